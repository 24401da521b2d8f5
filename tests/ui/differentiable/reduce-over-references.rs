use gradtape::differentiable;

// `reduce` over float values is differentiated (`x.iter().copied().reduce(f64::max)`), and
// over references where its option is read as a number (`*m.unwrap()`, `.copied()`,
// `Some(&v)`); an `Option<&f64>` used otherwise (here by `map`) is not: the message says to
// write `.copied()` first.
#[differentiable]
fn largest_squared(x: &[f64]) -> f64 {
    x.iter()
        .reduce(|a, b| if a > b { a } else { b })
        .map(|m| m * m)
        .unwrap_or(0.0)
}

fn main() {}
