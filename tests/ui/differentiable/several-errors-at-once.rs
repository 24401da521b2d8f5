use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    let _values = x.to_vec();
    let _copies = vec![x.clone()];
    let scaled = |y: &Tensor<f32>| y * x;
    let _kept = scaled;
    x * 2.0
}

fn main() {}
