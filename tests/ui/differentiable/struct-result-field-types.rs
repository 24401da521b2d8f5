use gradtape::{Differentiable, differentiable};

// A struct result is differentiated as the tuple of its fields, floats of the function's
// float type: an integer field is the macro's message at the value (when its spelling
// says so: a literal, a comparison, an integer cast or parameter), and a float field of
// another type than the one a parameter names is the runtime's message at the field.
#[derive(Differentiable, Clone, Copy)]
struct Counted {
    x: f64,
    n: usize,
}

#[differentiable]
fn counted(x: f64, k: usize) -> Counted {
    if x > 0.0 {
        Counted { x: x * 2.0, n: 3 }
    } else {
        Counted { x, n: k }
    }
}

#[derive(Differentiable, Clone, Copy)]
struct Narrow {
    x: f32,
    v: f32,
}

// `x: f64` names the float type: the `f32` fields are not it
#[differentiable]
fn widened(x: f64) -> Narrow {
    Narrow { x, v: x * 2.0 }
}

fn main() {}
