use gradtape::differentiable;

// A damped spring's state in a local struct, as an integrator keeps it: the struct literal
// is rejected with its own message, and the field reads and writes with theirs.
struct State {
    x: f64,
    v: f64,
}

#[differentiable]
fn simulate(x0: f64, v0: f64) -> f64 {
    let mut s = State { x: x0, v: v0 };
    for _ in 0..40 {
        let a = -3.0 * s.x - 0.4 * s.v;
        s.v += 0.05 * a;
        s.x += 0.05 * s.v;
    }
    s.x * s.x + 0.5 * s.v * s.v
}

fn main() {}
