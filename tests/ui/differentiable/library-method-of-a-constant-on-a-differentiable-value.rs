use gradtape::differentiable;

pub struct Settings {
    pub scale: Option<f64>,
}

// A standard method of an option or iterator of constants, taking a closure over a
// differentiable value, that no rewrite takes: the macro's message at the method (it was
// rustc's "method `unwrap_or_else_vjp_partial` exists but its trait bounds were not
// satisfied", the call taken for an annotated method of the receiver). (`max_by` over
// constants by a comparison of differentiable values is a constant, a choice by
// comparisons: `heaviest_weight` in `differentiable_constant_blocks.rs`.)
#[differentiable]
fn scaled(x: f64, settings: &Settings) -> f64 {
    let scale = settings.scale;
    scale.unwrap_or_else(|| x * 3.0) * x
}

fn main() {}
