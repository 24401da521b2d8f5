use gradtape::{Tensor, differentiable};

// A body the tape could otherwise record as written (a closure passed to `fold`, no
// generated adjoint) that also takes a value out as plain data: it is not run on a
// sub-tape, where the data would be a constant and the gradient cut silently; its errors
// stand (regression: it compiled, and `x`'s gradient was `None`).
#[differentiable]
fn largest(x: &Tensor<f64>) -> Tensor<f64> {
    Tensor::scalar(x.to_vec().into_iter().fold(f64::MIN, f64::max))
}

fn main() {}
