// TensorFlow logs a warning and returns None; gradtape refuses to compile.
use gradtape::{GradientTape, Tensor};

fn main() {
    let labels = Tensor::from_vec(vec![1_i32, 0, 2], &[3]);
    let tape = GradientTape::new();
    tape.watch(&labels);
}
