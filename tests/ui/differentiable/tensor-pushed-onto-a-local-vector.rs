use gradtape::{Tensor, differentiable};

#[differentiable]
fn stages(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut parts: Vec<Tensor<f64>> = Vec::new();
    parts.push(x.sin());
    parts.push(x * y);
    x * 2.0
}

fn main() {}
