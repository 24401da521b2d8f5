use gradtape::differentiable;

#[differentiable]
fn scale_into(x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = 2.0 * x[i];
    }
}

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut out = vec![0.0; x.len() + 1];
    scale_into(x, &mut out[1..]);
    out[1] * x[1]
}

fn main() {}
