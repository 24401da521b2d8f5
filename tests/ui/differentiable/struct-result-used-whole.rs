use gradtape::{Differentiable, differentiable};

// An annotated caller holds another function's struct result whole (`let s = step(..);`
// passed on, copied, returned, read by field). What stays rejected is the macro's or the
// runtime's message at the user's tokens: a result that is a literal at one position and
// a value held whole at another, a struct passed to a parameter the callee holds
// constant, a struct held whole given to a function that is not annotated, a tuple result
// held whole.
#[derive(Differentiable, Clone, Copy)]
struct State {
    x: f64,
    v: f64,
}

#[differentiable]
fn euler(x: f64, v: f64, dt: f64) -> State {
    State { x: x + dt * v, v: v - dt * x }
}

// the callee's parameter is not marked: the struct's gradient would be lost
#[differentiable]
fn scaled_time(s: &State, dt: f64) -> f64 {
    dt * 2.0 + s.x.signum()
}

fn plain_norm(s: &State) -> f64 {
    s.x * s.x + s.v * s.v
}

#[differentiable]
fn mixed(x: f64, v: f64) -> State {
    if x > 0.0 {
        euler(x, v, 0.1)
    } else {
        State { x: v, v: x }
    }
}

#[differentiable]
fn to_a_constant_parameter(x: f64, v: f64) -> f64 {
    let s = euler(x, v, 0.1);
    scaled_time(&s, x)
}

#[differentiable]
fn to_a_plain_function(x: f64, v: f64) -> f64 {
    let s = euler(x, v, 0.1);
    plain_norm(&s)
}

#[differentiable]
fn pair(x: f64) -> (f64, f64) {
    (x * 2.0, x + 1.0)
}

// a tuple result is read by its parts where the call is bound: held whole (copied) and
// read by `.0`, it is the macro's message at the part
#[differentiable]
fn tuple_held_whole(x: f64) -> f64 {
    let p = pair(x);
    let q = p;
    q.0 * p.1
}

fn main() {}
