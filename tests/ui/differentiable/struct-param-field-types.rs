// The attribute takes a field for a float or an array by how the body reads it; the
// generated code checks each guess at the field: an integer read as a float, a float read
// only through `as`, a nested struct used whole, or a struct without the derive.
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Inner {
    b: f64,
}

#[derive(Differentiable, Clone)]
struct Params {
    a: f64,
    n: usize,
    scale: f32,
    inner: Inner,
}

#[differentiable]
fn integer_as_float(#[differentiable] p: &Params, x: f64) -> f64 {
    let n = p.n;
    p.a * x + (n as f64)
}

#[differentiable]
fn float_only_cast(#[differentiable] p: &Params, x: f64) -> f64 {
    p.a * x * p.scale as f64
}

#[differentiable]
fn nested_whole(#[differentiable] p: &Params, x: f64) -> f64 {
    p.a * x + p.inner.clone().b
}

struct NotDerived {
    c: f64,
}

#[differentiable]
fn without_the_derive(#[differentiable] p: &NotDerived, x: f64) -> f64 {
    p.c * x
}

impl NotDerived {
    #[differentiable]
    fn scaled(#[differentiable] &self, x: f64) -> f64 {
        self.c * x
    }
}

fn main() {}
