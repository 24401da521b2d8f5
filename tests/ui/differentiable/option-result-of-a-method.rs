// A method with an `Option` result: not differentiated yet, the macro's message at the
// result type.
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable)]
struct Line {
    slope: f64,
    offset: f64,
}

impl Line {
    #[differentiable]
    fn root(#[differentiable] &self) -> Option<f64> {
        if self.slope == 0.0 { None } else { Some(-self.offset / self.slope) }
    }
}

fn main() {}
