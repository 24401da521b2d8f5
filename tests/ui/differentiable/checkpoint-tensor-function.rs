use gradtape::{Tensor, differentiable};

#[differentiable(checkpoint)]
fn f(x0: &Tensor<f64>, steps: usize) -> Tensor<f64> {
    let mut x = x0.clone();
    for _ in 0..steps {
        x = x.sin() + 0.5;
    }
    x
}

fn main() {}
