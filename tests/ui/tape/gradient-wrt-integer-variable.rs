// TensorFlow silently watches an integer variable and returns None; gradtape refuses.
use gradtape::{GradientTape, Tensor, Variable};

fn main() {
    let x = Variable::new(Tensor::from_vec(vec![2_i32, 2, 2, 2], &[2, 2]));
    let tape = GradientTape::new();
    let y = tape.record(|| x.value().cast::<f32>().sum());
    let _ = tape.gradient(&y, &x);
}
