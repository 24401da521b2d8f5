use gradtape::{Tensor, differentiable};

struct Scale(f64);

impl Scale {
    #[differentiable]
    fn apply(&self, x: &Tensor<f64>) -> Tensor<f64> {
        x * self.0
    }
}

fn main() {}
