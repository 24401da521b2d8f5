use gradtape::differentiable;

const FLOOR: f64 = 0.0;

// `reduce` over float values is differentiated (`x.iter().copied().reduce(f64::max)`), and
// over references where its step gives one of its two parameters (`|a, b| if a > b { a }
// else { b }`); a step giving another reference (`&FLOOR`) is not: the message says to
// write `.copied()` first.
#[differentiable]
fn largest_above_the_floor(x: &[f64]) -> f64 {
    let m = *x
        .iter()
        .reduce(|a, b| if a > b { a } else if *b > FLOOR { b } else { &FLOOR })
        .unwrap();
    m * m
}

fn main() {}
