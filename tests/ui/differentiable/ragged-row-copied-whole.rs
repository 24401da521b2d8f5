use gradtape::differentiable;

// one row of a ragged array of rows, copied into a local `Vec`
#[differentiable]
fn f(m: &[Vec<f64>]) -> f64 {
    let row = m[1].clone();
    row[0] * m[0][0]
}

fn main() {}
