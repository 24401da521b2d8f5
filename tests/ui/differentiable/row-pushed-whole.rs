// A row pushed onto a local array of rows as a call's result: the macro's message at the
// row (a pushed row is written element by element, from a literal or a local row).
use gradtape::differentiable;

#[differentiable]
fn step(p: &[f64; 2], dt: f64) -> [f64; 2] {
    [p[0] + dt * p[1], p[1] - dt * p[0]]
}

#[differentiable]
fn path(x0: f64, v0: f64) -> f64 {
    let mut states: Vec<[f64; 2]> = vec![[x0, v0]];
    for i in 0..10 {
        states.push(step(&states[i], 0.1));
    }
    states[10][0]
}

fn main() {}
