use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
pub struct Spring {
    k: f64,
}

#[differentiable]
impl Spring {
    #[differentiable]
    fn force(#[differentiable] &self, x: &[f64; 2]) -> [f64; 2] {
        [-self.k * x[0], -self.k * x[1]]
    }
}

// A method's array result is indexed by a caller when the receiver is a constant; here the
// receiver is differentiable (its `force_vjp` gives the spring's gradient itself).
#[differentiable]
fn work(#[differentiable] spring: &Spring, x: &[f64; 2]) -> f64 {
    let f = spring.force(x);
    f[0] * x[0] + f[1] * x[1]
}

fn main() {}
