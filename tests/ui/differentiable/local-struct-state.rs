use gradtape::differentiable;

// A state in a local struct is differentiated when it is read and written field by field
// (`tests/differentiable_control_flow.rs`, `a_local_struct_as_loop_state`); one passed
// whole to a function is not split, and its literal is rejected with its own message.
#[derive(Clone, Copy)]
struct State {
    x: f64,
    v: f64,
}

fn step(s: State, dt: f64) -> State {
    State {
        x: s.x + dt * s.v,
        v: s.v - dt * s.x,
    }
}

#[differentiable]
fn simulate(x0: f64, v0: f64) -> f64 {
    let mut s = State { x: x0, v: v0 };
    for _ in 0..40 {
        s = step(s, 0.05);
    }
    s.x * s.x + 0.5 * s.v * s.v
}

fn main() {}
