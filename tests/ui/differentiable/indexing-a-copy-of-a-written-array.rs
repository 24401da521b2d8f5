use gradtape::differentiable;

// A copy read at once (`x.to_vec()[1]`, `x.to_vec().iter()`) is read as the array itself
// when the body never writes the array; a copy of one it writes is a value of its own,
// indexed only once bound by `let`.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut y = vec![0.0; 2];
    y[1] = x[1] * 3.0;
    y.to_vec()[1] * 2.0
}

fn main() {}
