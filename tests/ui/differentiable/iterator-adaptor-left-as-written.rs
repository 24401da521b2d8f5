use gradtape::differentiable;

// A `rev` (or `skip`, `take`, `step_by`) after a `map` that more adapters follow: whether
// the map runs on the items they pass over is the adapters' own business, so the chain
// is left as written (its `sum` rejected); put the `rev` before the `map`.
#[differentiable]
fn rev_after_a_map(x: &[f64], t: f64) -> f64 {
    x.iter().map(|v| v * t).rev().zip(x.iter()).map(|(a, b)| a * b).sum()
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
