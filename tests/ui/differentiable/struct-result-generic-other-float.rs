use gradtape::{Differentiable, differentiable};
use num_traits::Float;

// A generic function's struct result is the tuple of its fields at its float type `T`: a
// field of another float type is the runtime's message at the field, once, and no E0308
// (the value is converted to `T` before the check, as `as` converts to `f32`/`f64`); the
// `where` bound rustc suggests beside it (`f64: ResultField<T>`) cannot hold.
#[derive(Differentiable, Clone, Copy)]
struct Observed<T> {
    x: T,
    energy: f64,
}

#[differentiable]
fn observe<T: Float>(x: T, k: f64) -> Observed<T> {
    Observed {
        x: x * x,
        energy: k * 2.0,
    }
}

fn main() {}
