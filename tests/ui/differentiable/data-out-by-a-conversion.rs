use gradtape::{Tensor, differentiable, ndarray};

// A body the tape could otherwise record as written (a local `Vec` of tensors) that
// converts a tensor into an `ndarray` array (`.into()`, as `ArrayD::from(t)` would): on a
// sub-tape the array is a constant, a gradient cut silently (regression: it compiled, and
// `x`'s gradient was `None`), so the body keeps its errors.
#[differentiable]
fn cut(x: &Tensor<f64>) -> Tensor<f64> {
    let kept = vec![x.square()];
    let array: ndarray::ArrayD<f64> = kept[0].clone().into();
    Tensor::from(array).sum()
}

fn main() {}
