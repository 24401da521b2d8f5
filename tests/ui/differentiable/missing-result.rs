use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f64>) {
    let _ = x.square();
}

fn main() {}
