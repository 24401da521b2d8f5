use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f64>) -> f64 {
    x.sum().to_scalar()
}

fn main() {}
