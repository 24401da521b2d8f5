// `#[differentiable]` on a parameter marks a struct of floats taken by `&` or by value, in a
// function returning a float (or a tuple of floats, or a struct of floats), or returning
// nothing and writing a float array (`out: &mut [f64]`), and a method's `self` marked is
// `&self` or `self`; anything
// else is the macro's own error. A marked `self` passed on to a method that is not
// annotated (`self.rest()`) is the runtime's message at the method's name, once per call
// (a proc macro cannot see the method; `method-not-annotated.rs`).
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
fn integer_result(#[differentiable] p: &Params, x: f64) -> usize {
    let y = p.a * x;
    y as usize
}

#[differentiable]
fn writes_no_float_array(#[differentiable] p: &Params, x: f64, count: &mut usize) {
    let y = p.a * x;
    *count += y as usize;
}

#[differentiable]
fn nothing_read(#[differentiable] p: &Params, x: f64) -> f64 {
    x * x
}

#[derive(Differentiable, Clone)]
struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn stretched(#[differentiable] &mut self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }

    #[differentiable]
    fn boxed(#[differentiable] self: Box<Self>, x: f64) -> f64 {
        0.5 * self.k * x * x
    }

    fn rest(&self) -> f64 {
        1.0
    }

    #[differentiable]
    fn used_whole(#[differentiable] &self, x: f64) -> f64 {
        0.5 * self.k * (x - self.rest()) * (x - self.rest())
    }
}

fn main() {}
