use gradtape::differentiable;

// An array literal returned must have the result's length.
#[differentiable]
fn pair(x: f64) -> [f64; 2] {
    if x > 0.0 {
        return [x, x * x];
    }
    [x, 2.0 * x, 3.0]
}

fn main() {}
