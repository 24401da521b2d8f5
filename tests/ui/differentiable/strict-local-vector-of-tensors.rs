use gradtape::{Tensor, differentiable};

// `strict`: without it, the body runs on a sub-tape inside the node, as written
#[differentiable(strict)]
fn attention(q: &Tensor<f64>, k1: &Tensor<f64>, k2: &Tensor<f64>) -> Tensor<f64> {
    let keys = vec![k1.clone(), k2.clone()];
    let mut total = q.sum() * 0.0;
    for k in 0..2 {
        total = total + (q * &keys[k]).sum().exp();
    }
    total.ln()
}

fn main() {}
