use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
pub struct Blend {
    a: f64,
    b: f64,
}

#[differentiable]
fn blend_into(#[differentiable] p: &Blend, x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = p.a * x[i] + p.b;
    }
}

// A struct literal of differentiable values passed to a function writing a `&mut` array
// is not gathered field by field (it is for a function returning a value).
#[differentiable]
fn blended_sum(a: f64, b: f64, x: &[f64]) -> f64 {
    let mut out = vec![0.0; x.len()];
    blend_into(&Blend { a, b }, x, &mut out);
    out.iter().sum()
}

fn main() {}
