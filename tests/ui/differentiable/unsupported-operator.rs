use gradtape::differentiable;

// `%` is differentiated (`tests/differentiable_remainders.rs`); a bitwise operator has no
// derivative (nor a meaning on floats, which rustc's error below says too)
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x ^ y
}

fn main() {}
