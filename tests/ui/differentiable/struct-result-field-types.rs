use gradtape::{Differentiable, differentiable};

// A struct result is differentiated as the tuple of its fields, floats of the function's
// float type: an integer field is the macro's message at the field (beside rustc's own
// type errors in the tuple the twin returns), and so is a float field of another type.
#[derive(Differentiable, Clone, Copy)]
struct Counted {
    x: f64,
    n: usize,
}

#[differentiable]
fn counted(x: f64) -> Counted {
    Counted { x: x * 2.0, n: 3 }
}

// a struct of `f32` from a function naming no float type: it is differentiated at `f64`
// (or its float type parameter), and each field is the macro's message at the field
#[derive(Differentiable, Clone, Copy)]
struct Narrow {
    x: f32,
    v: f32,
}

#[differentiable]
fn swapped(#[differentiable] s: &Narrow) -> Narrow {
    Narrow { x: s.v, v: s.x }
}

fn main() {}
