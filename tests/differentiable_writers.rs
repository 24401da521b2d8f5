#![allow(clippy::needless_range_loop)]
#[macro_use]
mod common;
use gradtape::differentiable;

#[differentiable]
fn euler_step(state: &[f64], k: f64, dt: f64, next: &mut [f64]) {
    // harmonic oscillator with damping: x' = v, v' = -k x - 0.1 v
    next[0] = state[0] + dt * state[1];
    next[1] = state[1] + dt * (-k * state[0] - 0.1 * state[1]);
}

#[differentiable(dump)]
fn integrate(x0: &[f64], k: f64, steps: usize) -> f64 {
    let mut state = vec![0.0; 2];
    state[0] = x0[0];
    state[1] = x0[1];
    let mut next = vec![0.0; 2];
    for _ in 0..steps {
        euler_step(&state, k, 0.1, &mut next);
        state[0] = next[0];
        state[1] = next[1];
    }
    state[0] * state[0] + state[1]
}

#[test]
fn probe() {
    let x = [1.0, 0.5];
    let (v, g) = integrate::grad(&x, 2.0, 5);
    println!("{v} {g:?}");
    let h = 1e-6;
    let f = |a: f64, b: f64, k: f64| integrate::primal(&[a, b], k, 5);
    println!("{} {} {}", (f(1.0 + h, 0.5, 2.0) - f(1.0 - h, 0.5, 2.0)) / (2.0 * h), (f(1.0, 0.5 + h, 2.0) - f(1.0, 0.5 - h, 2.0)) / (2.0 * h), (f(1.0, 0.5, 2.0 + h) - f(1.0, 0.5, 2.0 - h)) / (2.0 * h));
    println!("{:?}", integrate::jvp(&x, 2.0, 5, &[1.0, 0.0], 0.0));
}
