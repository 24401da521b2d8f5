use gradtape::{Tensor, differentiable};

// `strict`: without it, the body runs on a sub-tape inside the node, as written
#[differentiable(strict)]
fn stages(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut parts: Vec<Tensor<f64>> = Vec::new();
    parts.push(x.sin());
    parts.push(x * y);
    x * 2.0
}

fn main() {}
