// An integer result cannot be differentiated: there is no gradient to take.
use gradtape::{GradientTape, Variable};

fn main() {
    let w = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let rounded = tape.record(|| (&w * 3.0).cast::<i32>());
    let _ = tape.gradient(&rounded, &w);
}
