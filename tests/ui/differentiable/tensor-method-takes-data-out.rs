use gradtape::{Tensor, Variable, differentiable};

struct Layer {
    kernel: Variable<f64>,
}

// A method runs as written on the caller's tapes, a local `Vec` of tensors included; a
// value read out as plain data would be a gradient cut silently, and stays an error.
#[differentiable]
impl Layer {
    #[differentiable]
    fn forward(&self, x: &Tensor<f64>) -> Tensor<f64> {
        let outputs = vec![x.matmul(&self.kernel.value())];
        let values = outputs[0].to_vec();
        Tensor::from_vec(values, &[2])
    }
}

fn main() {}
