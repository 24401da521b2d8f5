use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>) -> Tensor<i32> {
    x.cast::<i32>()
}

fn main() {}
