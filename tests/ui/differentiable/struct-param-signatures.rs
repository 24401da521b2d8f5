// `#[differentiable]` on a parameter marks a struct of floats taken by `&` or by value, in a
// function returning a float; anything else is the macro's own error.
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Params {
    a: f64,
}

#[differentiable]
fn not_a_struct(#[differentiable] x: f64, y: f64) -> f64 {
    x * y
}

#[differentiable]
fn written_through(#[differentiable] p: &mut Params, x: f64) -> f64 {
    p.a * x
}

#[differentiable]
fn tuple_result(#[differentiable] p: &Params, x: f64) -> (f64, f64) {
    (p.a * x, x)
}

#[differentiable]
fn nothing_read(#[differentiable] p: &Params, x: f64) -> f64 {
    x * x
}

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn energy(#[differentiable] &self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {}
