use gradtape::differentiable;

#[differentiable]
fn f(x: f64) -> String {
    format!("{x}")
}

fn main() {}
