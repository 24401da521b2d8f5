use gradtape::{Differentiable, differentiable};

// A struct result is differentiated as the tuple of its fields, floats of one float type:
// for a function neither generic nor a method, the struct's own (its first field's). A
// struct mixing `f32` and `f64` fields is the runtime's message at each field of the other
// type, and nothing of rustc's beside it (the differentiable values are cast to the float
// type before the check, so the twin's tuple and adjoint type-check).
#[derive(Differentiable, Clone, Copy)]
struct Mixed {
    x: f32,
    v: f64,
}

#[differentiable]
fn from_floats(x: f64) -> Mixed {
    Mixed {
        x: x as f32,
        v: x * 2.0,
    }
}

// a marked parameter of the same struct: its `f64` field is read as the `f32` the
// function computes in and returned as the same field, so the read is checked through the
// result's conversion: one message, at the result's field
#[differentiable]
fn from_a_struct(#[differentiable] s: &Mixed) -> Mixed {
    Mixed { x: s.x * 2.0, v: s.v }
}

fn main() {}
