use gradtape::{Tensor, differentiable};

// The map's `x` shadows the parameter `x` the fold's body reads: the loop the fold stands
// for would bind it where lowering takes it for the parameter, so the fold is left as
// written, a closure passed as a value.
#[differentiable]
fn doubled_horner(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
    coefficients
        .iter()
        .map(|x| *x * 2.0)
        .fold(x * 0.0, |acc, c| acc * x + c)
}

fn main() {}
