use gradtape::differentiable;

// An array result's length must be a literal: the macro differentiates it as the tuple of
// its elements.
#[differentiable]
fn scaled<const N: usize>(x: &[f64; N], k: f64) -> [f64; N] {
    let mut out = [0.0; N];
    for i in 0..N {
        out[i] = k * x[i];
    }
    out
}

fn main() {}
