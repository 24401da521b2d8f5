use gradtape::differentiable;

pub struct Spring {
    k: f64,
}

#[differentiable]
impl Spring {
    #[differentiable]
    fn force(&self, x: &[f64; 2]) -> [f64; 2] {
        [-self.k * x[0], -self.k * x[1]]
    }
}

// A method's array result is differentiated (`force_vjp`), but not indexed by a caller.
#[differentiable]
fn work(spring: &Spring, x: &[f64; 2]) -> f64 {
    let f = spring.force(x);
    f[0] * x[0] + f[1] * x[1]
}

fn main() {}
