use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    let s = x.sum().to_scalar();
    x * s
}

fn main() {}
