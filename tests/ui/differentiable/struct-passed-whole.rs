// A differentiable struct (or a field of one) passed on whole to another annotated
// function gets its gradient from that function's own gradient of the struct: a callee
// that holds the parameter constant, or a method whose `self` is not marked, would lose
// it, so each is a compile error at the argument, as is a field passed whole and read as
// a float, a struct whose `Differentiable` is written by hand (it names no field types),
// and a field passed to a plain helper (which runs on dual numbers, one per float).
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Differentiable, Clone)]
struct Model {
    layer: Layer,
    scale: f64,
}

#[differentiable]
fn constant_layer(layer: &Layer, x: f64) -> f64 {
    x * layer.b
}

#[differentiable]
fn passed_to_a_constant_parameter(#[differentiable] m: &Model, x: f64) -> f64 {
    constant_layer(&m.layer, x) * m.scale
}

impl Layer {
    #[differentiable]
    fn unmarked(&self, x: f64) -> f64 {
        x * self.b
    }
}

#[differentiable]
fn receiver_of_an_unmarked_method(#[differentiable] m: &Model, x: f64) -> f64 {
    m.layer.unmarked(x) * m.scale
}

#[differentiable]
fn by_reference(s: &f64, x: f64) -> f64 {
    s * x
}

#[differentiable]
fn passed_whole_and_read_as_a_float(#[differentiable] m: &Model, x: f64) -> f64 {
    by_reference(&m.scale, x) + m.scale
}

#[differentiable]
fn dense(#[differentiable] layer: &Layer, x: f64) -> f64 {
    layer.w[0] * x + layer.b
}

struct ByHand {
    inner: Layer,
}

impl Differentiable for ByHand {
    fn zero_like(&self) -> Self {
        ByHand {
            inner: self.inner.zero_like(),
        }
    }
    fn accumulate(&mut self, gradient: &Self) {
        self.inner.accumulate(&gradient.inner);
    }
}

#[differentiable]
fn field_of_a_struct_by_hand(#[differentiable] h: &ByHand, x: f64) -> f64 {
    dense(&h.inner, x)
}

fn plain_sum<T: num_traits::Float>(v: &[T]) -> T {
    v.iter().fold(T::zero(), |a, b| a + *b)
}

#[differentiable(plain(plain_sum))]
fn field_to_a_plain_helper(#[differentiable] m: &Model, x: f64) -> f64 {
    plain_sum(&m.layer.w) * x + m.scale
}

fn main() {}
