use gradtape::{Tensor, differentiable};

trait Twice {
    fn twice(&self) -> Tensor<f32>;
}

impl Twice for Tensor<f32> {
    fn twice(&self) -> Tensor<f32> {
        self * 2.0
    }
}

// `strict`: without it, the body runs on a sub-tape inside the node, as written
#[differentiable(strict)]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    x.twice()
}

fn main() {}
