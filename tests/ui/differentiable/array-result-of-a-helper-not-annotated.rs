use gradtape::differentiable;

fn rotated(x: &[f64; 2]) -> [f64; 2] {
    [x[1], -x[0]]
}

// An indexed array result of a function that is not annotated: the runtime's message at
// its name.
#[differentiable]
fn after_rotation(x: &[f64; 2]) -> f64 {
    let r = rotated(x);
    r[0] * x[1]
}

fn main() {}
