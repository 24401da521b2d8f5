use gradtape::{Tensor, differentiable};

// A closure that is only called is inlined (see tests/differentiable_control_flow.rs); one
// handed on as a value is not differentiated.
// `strict`: without it, the body runs on a sub-tape inside the node, as written
#[differentiable(strict)]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    let square = |t: &Tensor<f32>| t * x;
    let same = square;
    same(x)
}

fn main() {}
