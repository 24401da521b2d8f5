use gradtape::{Tensor, differentiable};

// `strict`: without it, the body runs on a sub-tape inside the node, as written, and each
// part of the tuple is taken from that one run
#[differentiable(strict)]
fn stages(x: &Tensor<f64>, k: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    let mut rates = vec![x * k];
    rates.push(&rates[0] * k);
    (rates[0].clone(), rates[1].clone())
}

fn main() {}
