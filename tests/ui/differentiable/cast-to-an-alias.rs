// A cast of a differentiable value to a type that is neither a float nor an integer by its
// spelling (an alias) is the macro's error: taken for an integer's cast, its gradient was
// silently zero.
use gradtape::{Differentiable, differentiable};

type Real = f64;

#[differentiable]
fn plain(x: f64) -> f64 {
    let e = x as Real;
    e * e + (x * 2.0) as Real
}

#[derive(Differentiable, Clone)]
struct Params {
    a: f64,
}

#[differentiable]
fn field(#[differentiable] p: &Params, x: f64) -> f64 {
    let e = p.a as Real;
    e * x + p.a
}

fn main() {}
