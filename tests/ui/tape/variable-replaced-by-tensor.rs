// TensorFlow's pitfall: `x = x + 1` replaces the variable by a tensor, and the next gradient
// is silently None. In gradtape the replacement is a type error; use `x.assign_add(1.0)`.
use gradtape::{GradientTape, Variable};

fn main() {
    let mut x = Variable::new(2.0_f32);
    for _epoch in 0..2 {
        let tape = GradientTape::new();
        let y = tape.record(|| &x + 1.0);
        println!("{:?}", tape.gradient(&y, &x));
        x = &x + 1.0;
    }
}
