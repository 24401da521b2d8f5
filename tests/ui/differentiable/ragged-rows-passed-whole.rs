use gradtape::differentiable;

#[differentiable]
fn total(m: &[Vec<f64>]) -> f64 {
    m[0][0] + m[1][0]
}

// a ragged array of rows is differentiated element by element (or one row at a time):
// its shadow of rows is not handed to another annotated function whole
#[differentiable]
fn f(m: &[Vec<f64>]) -> f64 {
    total(m) * m[0][1]
}

fn main() {}
