use gradtape::{Tensor, differentiable};

macro_rules! double {
    ($x:expr) => {
        $x * 2.0
    };
}

#[differentiable]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    double!(x)
}

fn main() {}
