use gradtape::differentiable;

// A `skip` (or `step_by`) after a `map` with an effect: the iterator runs the map on the
// items it passes over too, which the loop over the items left would not, so the chain
// is left as written (its `sum` rejected); put the `skip` before the `map`.
#[differentiable]
fn skip_after_a_counting_map(x: &[f64], t: f64) -> f64 {
    let mut calls = 0.0;
    let s: f64 = x
        .iter()
        .map(|v| {
            calls += 1.0;
            v * t
        })
        .skip(1)
        .zip(x.iter())
        .map(|(a, b)| a * b)
        .sum();
    s + calls
}

// A reversed left side of a `zip` mapped with an effect: when that side is the longer,
// `Zip` runs the map on one more item or not depending on the consumer, so it is left
// as written; a map without effects is taken (`x.iter().map(|v| v * t).rev().zip(..)`).
#[differentiable]
fn reversed_counting_map_zipped(x: &[f64], t: f64) -> f64 {
    let mut calls = 0.0;
    let s: f64 = x
        .iter()
        .map(|v| {
            calls += 1.0;
            v * t
        })
        .rev()
        .zip(x[1..].iter())
        .map(|(a, b)| a * b)
        .sum();
    s + calls
}

// A filter's closure binding its parameter's name again: its `**v` cannot be told from
// the outer one's, so the loop is left as written.
#[differentiable]
fn filter_rebinding_its_parameter(x: &[f64], t: f64) -> f64 {
    let mut s = 0.0;
    for v in x.iter().filter(|v| {
        let v = **v * t;
        v > 1.0
    }) {
        s += v * t;
    }
    s
}

// Positions counted after a filter (`enumerate` of the items left) are not the
// element's: left as written.
#[differentiable]
fn positions_after_a_filter(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).enumerate().map(|(i, v)| v * i as f64).sum()
}

// A default for a reference (`unwrap_or(&d)`): copy the element first
// (`x.first().copied().unwrap_or(d)`).
#[differentiable]
fn reference_default(x: &[f64], d: f64) -> f64 {
    *x.first().unwrap_or(&d) * d
}

fn main() {}
