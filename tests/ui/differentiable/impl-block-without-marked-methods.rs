use gradtape::differentiable;

struct Spring {
    k: f64,
}

// On an `impl` block the attribute differentiates the methods marked inside it.
#[differentiable]
impl Spring {
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {}
