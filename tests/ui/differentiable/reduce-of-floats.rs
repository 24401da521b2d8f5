use gradtape::differentiable;

// `max_by`/`min_by` (and by a key) over a float array are differentiated; `reduce` is not:
// the message names the forms that are.
#[differentiable]
fn largest_squared(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max).unwrap();
    m * m
}

fn main() {}
