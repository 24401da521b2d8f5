use gradtape::{Differentiable, differentiable};

// A struct result is read from the literals the body returns (`results`): each rejection
// below is the macro's own message at the user's tokens.
#[derive(Differentiable, Clone, Copy)]
struct State {
    x: f64,
    v: f64,
}

#[differentiable]
fn euler(x: f64, v: f64, dt: f64) -> State {
    State { x: x + dt * v, v: v - dt * x }
}

// a result that is no literal: bind it and return the literal of its fields
#[differentiable]
fn not_a_literal(x: f64, v: f64) -> State {
    if x > 0.0 {
        return euler(x, v, 0.1);
    }
    State { x, v }
}

// `..base` takes fields from a value the macro does not follow
#[differentiable]
fn with_base(x: f64, v: f64) -> State {
    let s = State { x: 1.0, v: 2.0 };
    State { x: x * v, ..s }
}

// the literals name the fields in two orders
#[differentiable]
fn reordered(x: f64, v: f64) -> State {
    if x > 0.0 {
        State { v: x, x: v }
    } else {
        State { x, v }
    }
}

impl State {
    // an associated function returning `Self`, annotated without its block
    #[differentiable]
    fn scaled(x: f64, v: f64) -> Self {
        Self { x: 2.0 * x, v }
    }
}

fn main() {}
