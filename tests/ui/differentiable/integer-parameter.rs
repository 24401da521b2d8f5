use gradtape::differentiable;

#[differentiable]
fn f(n: i32) -> f64 {
    n as f64 * 2.0
}

fn main() {}
