use gradtape::{Differentiable, differentiable};

// A struct result is differentiated as the tuple of its fields, floats of the function's
// float type: an integer field is the macro's message at the field (beside rustc's own
// type errors in the tuple the twin returns).
#[derive(Differentiable, Clone, Copy)]
struct Counted {
    x: f64,
    n: usize,
}

#[differentiable]
fn counted(x: f64) -> Counted {
    Counted { x: x * 2.0, n: 3 }
}

fn main() {}
