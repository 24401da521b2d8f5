use gradtape::{Tensor, differentiable};

// A closure or function pointer passed in and called on differentiable values: its body is
// not the macro's to see, so each call is the macro's error at the value's name (it was
// rustc's "cannot find module or crate `f`").
#[differentiable]
fn simpson(f: &dyn Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    s * h / 3.0
}

#[differentiable]
fn apply_generic<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x * 2.0) + x
}

#[differentiable]
fn fn_pointer(f: fn(f64) -> f64, x: f64) -> f64 {
    f(x) * x
}


// tensor mode replays the call on a sub-tape, op by op, which `strict` refuses
#[differentiable(strict)]
fn strict_tensor(f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>, x: &Tensor<f64>) -> Tensor<f64> {
    f(x).sum()
}

fn main() {}
