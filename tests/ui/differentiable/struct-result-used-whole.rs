use gradtape::{Differentiable, differentiable};

// An annotated caller reads another function's struct result by its fields (`let s =
// step(..);`, then `s.x`; `step(..).x`; `let State { x, v } = step(..);`). Used whole (a
// copy, an argument), it is not split, and its fields' reads are rejected; held whole
// with no field read, the call is the runtime's message at the callee's name (beside
// rustc's errors in the generated code that takes it for a float).
#[derive(Differentiable, Clone, Copy)]
struct State {
    x: f64,
    v: f64,
}

#[differentiable]
fn euler(x: f64, v: f64, dt: f64) -> State {
    State { x: x + dt * v, v: v - dt * x }
}

#[differentiable]
fn norm(#[differentiable] s: &State) -> f64 {
    s.x * s.x + s.v * s.v
}

#[differentiable]
fn copied(x: f64, v: f64) -> f64 {
    let s = euler(x, v, 0.1);
    let t = s;
    t.x
}

#[differentiable]
fn passed_on(x: f64, v: f64) -> f64 {
    let s = euler(x, v, 0.1);
    norm(&s) + s.x
}

#[differentiable]
fn held_whole(x: f64, v: f64) -> f64 {
    let s = euler(x, v, 0.1);
    norm(&s)
}

fn main() {}
