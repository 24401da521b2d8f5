use gradtape::differentiable;

// Points as tuples: ordinary Rust, but tuples are not differentiated; the message says
// what is.
#[differentiable]
fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (a.0 - b.0, a.1 - b.1);
    (dx * dx + dy * dy).sqrt()
}

fn main() {}
