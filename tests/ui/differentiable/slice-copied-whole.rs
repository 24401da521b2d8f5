use gradtape::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let y = x;
    y[0] * 2.0
}

fn main() {}
