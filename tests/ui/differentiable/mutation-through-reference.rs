use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>, out: &mut Tensor<f32>) -> Tensor<f32> {
    *out = x.sin();
    x.cos()
}

fn main() {}
