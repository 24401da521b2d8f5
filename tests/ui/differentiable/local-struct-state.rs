use gradtape::differentiable;

// A state in a local struct is differentiated when it is read and written field by field
// (`tests/differentiable_control_flow.rs`, `a_local_struct_as_loop_state`) and when it is
// passed whole to, or replaced by the struct result of, another annotated function
// (`tests/differentiable_struct_results.rs`, `a_local_struct_passed_whole`): the issue's
// integrator below is rejected only because its `step` is not annotated (annotate it,
// with the state `#[differentiable]`, and it is differentiated).
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
