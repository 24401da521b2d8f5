use gradtape::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    x.to_vec()[1] * 2.0
}

fn main() {}
