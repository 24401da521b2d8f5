use gradtape::{Tensor, differentiable};

macro_rules! double {
    ($x:expr) => {
        $x * 2.0
    };
}

// `strict`: without it, the body runs on a sub-tape inside the node, as written
#[differentiable(strict)]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    double!(x)
}

fn main() {}
