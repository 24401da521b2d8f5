use gradtape::differentiable;

#[differentiable]
fn step(state: &[f64], next: &mut [f64]) {
    next[0] = state[0] + 0.1 * state[1];
    next[1] = state[1] - 0.1 * state[0];
}

#[differentiable]
fn integrate(x0: &[f64]) -> f64 {
    let mut state = x0.to_vec();
    let mut next = vec![0.0; 2];
    for _ in 0..10 {
        step(&state, &mut next);
        state = std::mem::take(&mut next);
        next = vec![0.0; 2];
    }
    state[0]
}

fn main() {}
