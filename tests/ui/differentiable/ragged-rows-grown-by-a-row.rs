use gradtape::differentiable;

// a row pushed onto a ragged array of rows is a whole row written
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut m = vec![vec![0.0; 2]; 1];
    m[0][0] = x[0];
    m.push(vec![x[1], x[2]]);
    m[0][0] * m[1][1]
}

fn main() {}
