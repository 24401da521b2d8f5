use gradtape::differentiable;

fn checked(x: f64) -> Option<f64> {
    (x > 0.0).then_some(x)
}

#[differentiable]
fn f(x: f64) -> Option<f64> {
    let y = checked(x)?;
    Some(y * y)
}

fn main() {}
