use gradtape::differentiable;

// A double buffer of `Vec`s: `state = next;` may change the length of `state` (a `Vec`'s
// is not in its type), so it is not copied element by element as a fixed-size array's
// `state = next;` is (`[f64; N]`: tests/differentiable_arrays.rs, `oscillator_rk2`).
// Reported once, on the value; the reads `state[i]` after it are not.
#[differentiable]
fn relaxed(x: &[f64]) -> f64 {
    let mut state = vec![0.0; x.len()];
    for i in 0..x.len() {
        state[i] = x[i];
    }
    for _ in 0..3 {
        let mut next = vec![0.0; state.len()];
        for i in 0..state.len() {
            next[i] = 0.5 * state[i];
        }
        state = next;
    }
    state[0]
}

fn main() {}
