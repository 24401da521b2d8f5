use gradtape::differentiable;

#[differentiable(checkpoint)]
fn f(x: f64) -> f64 {
    x.sin() * x
}

fn main() {}
