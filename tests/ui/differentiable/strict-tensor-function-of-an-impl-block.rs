use gradtape::{Tensor, differentiable};

struct Loss;

// `strict`: a tensor function of an `impl` block has no node of its own; it runs op by
// op, as written
#[differentiable]
impl Loss {
    #[differentiable(strict)]
    fn squared_error(prediction: &Tensor<f64>, target: &Tensor<f64>) -> Tensor<f64> {
        (prediction - target).square().mean()
    }
}

fn main() {}
