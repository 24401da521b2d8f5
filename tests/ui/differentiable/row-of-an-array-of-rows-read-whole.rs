use gradtape::differentiable;

#[differentiable]
fn f(m: &[[f64; 2]; 2]) -> f64 {
    let row = m[1];
    row[0] * m[0][1]
}

fn main() {}
