use gradtape::{Tensor, differentiable};

// not annotated: a strict caller's sub-tape would record it op by op
fn gelu(x: &Tensor<f64>) -> Tensor<f64> {
    x * &(x * 1.702).sigmoid()
}

#[differentiable(strict)]
fn f(x: &Tensor<f64>) -> Tensor<f64> {
    gelu(x).sum()
}

fn main() {}
