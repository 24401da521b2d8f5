use gradtape::{Differentiable, differentiable};

// A marked `self` whose fields a struct result returns crossed (`x: self.v, v: self.x`),
// in a method annotated alone (its `impl` block is not, so `Pair` cannot be known to be
// `Self`): a method naming no float type is differentiated at `f64`, and each `f32` field
// read is checked where it is returned, through the result's conversion there, the one
// message of that field (not one more where it is read).
#[derive(Differentiable, Clone, Copy)]
struct Pair {
    x: f32,
    v: f32,
}

impl Pair {
    #[differentiable]
    fn crossed(#[differentiable] &self) -> Pair {
        Pair { x: self.v, v: self.x }
    }
}

fn main() {}
