use gradtape::{Differentiable, differentiable};

// A local struct of differentiable values passed whole to another annotated function is
// built again from its fields, whose gradients come from the callee's gradient of the
// struct: a callee holding the parameter constant (not marked) would lose them, a compile
// error at the call in the runtime's words.
#[derive(Differentiable, Clone, Copy)]
struct State {
    x: f64,
    v: f64,
}

#[differentiable]
fn constant_state(s: &State, k: f64) -> f64 {
    k * s.x
}

#[differentiable]
fn caller(x0: f64, k: f64) -> f64 {
    let s = State { x: x0, v: 0.0 };
    constant_state(&s, k)
}

fn main() {}
