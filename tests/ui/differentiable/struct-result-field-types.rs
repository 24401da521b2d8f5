use gradtape::{Differentiable, differentiable};

// A struct result is differentiated as the tuple of its fields, floats of the function's
// float type: a value that is no float by its spelling (a literal, a comparison, an
// integer cast or parameter) is the macro's message at the value; any other constant of
// another type, and a float field of another type than a method's float parameter (a
// method's float type is its parameter's), the runtime's message at the field.
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

#[differentiable]
fn counted_by_a_local(x: f64, k: usize) -> Counted {
    let n = k + 1;
    Counted { x: x * 2.0, n }
}

#[derive(Differentiable, Clone, Copy)]
struct Narrow {
    x: f32,
    v: f32,
}

struct Scale;

impl Scale {
    #[differentiable]
    fn narrowed(&self, x: f64) -> Narrow {
        Narrow { x: x as f32, v: 2.0 }
    }
}

#[derive(Differentiable, Clone, Copy)]
struct Swapped {
    x: f32,
    v: f32,
}

// a method naming no float type is differentiated at `f64` (its items sit in the `impl`
// block, where the struct's own float type cannot be named): a struct of `f32` is the
// runtime's message once at each field of the result (a field of `self` returned crossed,
// `x: self.v`, is checked at the result's field of its name, `v`, whose type it has)
#[differentiable]
impl Swapped {
    #[differentiable]
    fn swapped(#[differentiable] &self) -> Swapped {
        Swapped { x: self.v, v: self.x }
    }
}

fn main() {}
