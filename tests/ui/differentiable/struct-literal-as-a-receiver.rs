use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
pub struct Blend {
    a: f64,
    b: f64,
}

#[differentiable]
impl Blend {
    #[differentiable]
    fn mix(#[differentiable] &self, x: f64) -> f64 {
        self.a * x + self.b
    }
}

// A struct literal of differentiable values is gathered field by field where it is passed
// to an annotated function (one returning a value, or writing a `&mut` array:
// tests/differentiable_array_results.rs, `blended_sum`); a method called on it is no
// such call.
#[differentiable]
fn blended(a: f64, b: f64, x: f64) -> f64 {
    Blend { a, b }.mix(x)
}

fn main() {}
