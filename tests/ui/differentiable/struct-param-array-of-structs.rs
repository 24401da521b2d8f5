// An array (or `Vec`) of differentiable structs inside a differentiable struct, its
// elements used as structs (an annotated method's receiver), indexed or iterated: not
// differentiated yet. The macro's message at the array's read, once per function, not
// rustc's "no method named `forward` found for type `f64`" (the field was taken for a float
// array). A `Box<Layer>` field, or one field per layer, differentiates.
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Unit {
    w: f64,
    b: f64,
}

#[differentiable]
impl Unit {
    #[differentiable]
    fn forward(#[differentiable] &self, x: f64) -> f64 {
        (self.w * x + self.b).tanh()
    }
}

#[derive(Differentiable, Clone)]
struct Net {
    layers: [Unit; 2],
    stack: Vec<Unit>,
    scale: f64,
}

#[differentiable]
fn indexed(#[differentiable] m: &Net, x: f64) -> f64 {
    let mut h = x;
    for i in 0..2 {
        h = m.layers[i].forward(h);
    }
    h * m.scale
}

#[differentiable]
fn iterated(#[differentiable] m: &Net, x: f64) -> f64 {
    let mut h = x;
    for layer in &m.stack {
        h = layer.forward(h);
    }
    h * m.scale
}

#[differentiable]
fn iterated_by_iter(#[differentiable] m: &Net, x: f64) -> f64 {
    let mut h = x;
    for layer in m.layers.iter() {
        h = layer.forward(h) + m.scale;
    }
    h
}

fn main() {}
