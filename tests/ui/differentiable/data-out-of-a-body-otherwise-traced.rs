use gradtape::{Tensor, differentiable};

// A body that takes a value out as plain data: it is not run on a sub-tape, where the data
// would be a constant and the gradient cut silently (regression: it compiled, and `x`'s
// gradient was `None`). The error is the value taken out (`to_vec`), not the `fold` after
// it, which would compute on a constant even were it differentiated (the guide's
// `compile_fail` example `largest`; it said `fold` is not a differentiable method).
#[differentiable]
fn largest(x: &Tensor<f64>) -> Tensor<f64> {
    Tensor::scalar(x.to_vec().into_iter().fold(f64::MIN, f64::max))
}

fn main() {}
