use gradtape::differentiable;

// A result is differentiated through a tuple of at most 12 parts: an array of more
// elements, or a tuple of more parts, is the macro's message.
#[differentiable]
fn powers(x: f64) -> [f64; 16] {
    let mut out = [0.0; 16];
    let mut p = 1.0;
    for i in 0..16 {
        out[i] = p;
        p *= x;
    }
    out
}

#[differentiable]
#[allow(clippy::type_complexity)]
fn many(
    x: f64,
) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
    (x, x, x, x, x, x, x, x, x, x, x, x, x)
}

fn main() {}
