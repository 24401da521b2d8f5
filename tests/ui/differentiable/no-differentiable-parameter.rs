use gradtape::differentiable;

#[differentiable]
fn f(name: &str) -> f64 {
    name.len() as f64
}

fn main() {}
