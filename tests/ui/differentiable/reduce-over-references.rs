use gradtape::differentiable;

// `reduce` over float values is differentiated (`x.iter().copied().reduce(f64::max)`);
// over `x.iter()` its value is a reference to one of the elements, which is not: the
// message says to write `.copied()` first.
#[differentiable]
fn largest_squared(x: &[f64]) -> f64 {
    let m = *x.iter().reduce(|a, b| if a > b { a } else { b }).unwrap();
    m * m
}

fn main() {}
