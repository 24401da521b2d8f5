// A tuple result held as one value and passed to a helper that is not annotated: the
// helper's message is the one error (the tuple's cotangent sums part by part, and the
// tuple result has the items a caller holding it calls), not a cascade beside it.
use gradtape::differentiable;

#[differentiable]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

fn norm(p: (f64, f64)) -> f64 {
    (p.0 * p.0 + p.1 * p.1).sqrt()
}

#[differentiable]
fn radius(r: f64, theta: f64) -> f64 {
    let p = polar(r, theta);
    norm(p)
}

fn main() {}
