use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>, out: &mut [f32]) -> Tensor<f32> {
    out[0] = 1.0;
    x.sin()
}

fn main() {}
