// A differentiable struct parameter is read by field: written, shadowed, read both as an
// array and a float, or read inside a macro the attribute cannot follow, it is the macro's
// own error at the user's tokens, all at once; passed whole to a function that is not
// annotated, it is the "not annotated" error at the function's name. A field as `resize`'s fill
// value is a value (once taken for a constant, its gradient silently zero).
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Params {
    a: f64,
    w: Vec<f64>,
}

fn helper(p: &Params) -> f64 {
    p.a
}

macro_rules! double {
    ($e:expr) => {
        2.0 * $e
    };
}

#[differentiable]
fn used_whole(#[differentiable] p: &Params, x: f64) -> f64 {
    helper(p) * x + p.a
}

#[differentiable]
fn written(#[differentiable] mut p: Params, x: f64) -> f64 {
    p.a += 1.0;
    p.w[0] = x;
    p.a * x
}

#[differentiable]
fn shadowed(#[differentiable] p: &Params, x: f64) -> f64 {
    let y = p.a * x;
    let p = y;
    p
}

#[differentiable]
fn array_and_float(#[differentiable] p: &Params, x: f64) -> f64 {
    p.w[0] * x + p.w.clone().len() as f64
}

#[differentiable]
fn inside_a_macro(#[differentiable] p: &Params, x: f64) -> f64 {
    double!(p.a) * x
}

#[differentiable]
fn fill_value(#[differentiable] p: &Params, x: &[f64]) -> f64 {
    let mut v = Vec::new();
    v.resize(x.len(), p.a);
    let mut total = 0.0;
    for i in 0..x.len() {
        total += v[i] * x[i];
    }
    total
}

fn main() {}
