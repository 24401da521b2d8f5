use gradtape::{Tensor, differentiable};

// A body that would run on a sub-tape (a local `Vec` of tensors) but also reads a value
// out as a number: on the tape that number is a constant, a gradient cut silently, so the
// body keeps its errors rather than run there.
#[differentiable]
fn normalised(x: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    let parts = vec![x.square(), x.exp()];
    let scale = parts[1].sum().to_scalar();
    (&parts[0] / scale, parts[1].clone())
}

fn main() {}
