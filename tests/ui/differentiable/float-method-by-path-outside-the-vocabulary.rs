// A float method the vocabulary of ops does not differentiate, called by its path: the
// macro's message on the method's name (rustc's "unresolved import `f64`" before).
use gradtape::differentiable;

#[differentiable]
fn one_ulp_up(a: f64, b: f64) -> f64 {
    f64::next_up(a) * b
}

fn main() {}
