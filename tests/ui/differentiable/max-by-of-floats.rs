use gradtape::differentiable;

// `max_by` has no rule: the message names the `fold` that is differentiated.
#[differentiable]
fn largest_squared(x: &[f64]) -> f64 {
    let m = x.iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap();
    m * m
}

fn main() {}
