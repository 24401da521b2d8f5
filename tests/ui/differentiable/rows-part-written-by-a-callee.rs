use gradtape::differentiable;

#[differentiable]
fn scale_rows(x: &[f64], out: &mut [[f64; 2]]) {
    for i in 0..out.len() {
        out[i][0] = 2.0 * x[i];
        out[i][1] = x[i];
    }
}

// A part of a flat array is written in place (`&mut out[1..]`); a part of an array of
// rows is not.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut m = vec![[0.0; 2]; x.len() + 1];
    scale_rows(x, &mut m[1..]);
    m[1][0] * x[1]
}

fn main() {}
