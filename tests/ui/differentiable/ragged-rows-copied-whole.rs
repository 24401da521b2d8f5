use gradtape::differentiable;

// an array of rows is not copied whole (its message was `to_vec`'s for tensors); the
// follow-on error on `c` remains
#[differentiable]
fn f(m: &[Vec<f64>]) -> f64 {
    let c = m.to_vec();
    c[0][0] * m[0][0]
}

fn main() {}
