use gradtape::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    for _ in 0..3 {
        if y > 10.0 {
            return y;
        }
        y = y * x;
    }
    y
}

fn main() {}
