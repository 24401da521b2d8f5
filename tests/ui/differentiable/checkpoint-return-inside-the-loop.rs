use gradtape::differentiable;

#[differentiable(checkpoint)]
fn f(x0: f64, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x.sin() + 0.5;
        if x > 1.0 {
            return x;
        }
    }
    x * x
}

fn main() {}
