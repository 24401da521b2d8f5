use gradtape::{Tensor, Variable, differentiable};

struct Layer {
    w: Variable<f64>,
}

impl Layer {
    fn forward(&self, x: &Tensor<f64>) -> Tensor<f64> {
        x.matmul(&self.w.value())
    }
}

// `strict`: a method called on differentiable tensors is replayed op by op
#[differentiable(strict)]
fn through_a_method(layer: &Layer, x: &Tensor<f64>) -> Tensor<f64> {
    layer.forward(x).sum()
}

// `strict`: a method runs op by op, as written (`self` may hold variables)
struct Model {
    w: Variable<f64>,
}

impl Model {
    #[differentiable(strict)]
    fn loss(&self, x: &Tensor<f64>) -> Tensor<f64> {
        (x * &self.w.value()).sum()
    }
}

fn main() {}
