// A method that does not exist on `f64` or `Tensor` must not make rustc suggest importing
// the runtime's rule-helper traits (`Primal`, `Elementary`): their functions are associated
// functions, not methods (regression test, issue 16).
use gradtape::Tensor;

fn main() {
    let x = 2.0_f64;
    let _ = x.sigmoid();
    let _ = x.scale(2.0);
    let t = Tensor::scalar(1.0_f64);
    let _ = t.one_minus();
    let _ = t.mul_scaled(&t, 2.0);
}
