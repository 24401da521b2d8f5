use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    let square = |t: &Tensor<f32>| t * x;
    square(x)
}

fn main() {}
