use gradtape::differentiable;

fn total(values: &[f64]) -> f64 {
    values.iter().sum()
}

#[differentiable]
fn f(x: &[f64]) -> f64 {
    total(x) * 2.0
}

fn main() {}
