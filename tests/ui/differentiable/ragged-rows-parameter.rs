use gradtape::differentiable;

// rows of `Vec`s have no common length: not differentiable (data only)
#[differentiable]
fn f(m: &[Vec<f64>]) -> f64 {
    m[0][0] * m[1][1]
}

fn main() {}
