use gradtape::differentiable;

// a row of an array of rows is written element by element, not whole
#[differentiable]
fn f(mut m: [[f64; 2]; 2]) -> f64 {
    m[0] = m[1];
    m[0][0] * m[1][1]
}

fn main() {}
