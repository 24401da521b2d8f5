use gradtape::differentiable;

// An array result is not differentiated yet (a tuple or a struct of floats is): the
// message names the forms that are.
#[differentiable]
fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn main() {}
