use gradtape::differentiable;

#[differentiable]
fn scale_into(x: &[f64], out: &mut [f64]) -> (f64, f64) {
    for i in 0..x.len() {
        out[i] = 2.0 * x[i];
    }
    (x[0], x[1])
}

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut out = vec![0.0; x.len()];
    let (first, second) = scale_into(x, &mut out);
    out[0] * first + second
}

fn main() {}
