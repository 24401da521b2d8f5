use gradtape::differentiable;

#[differentiable]
unsafe fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
