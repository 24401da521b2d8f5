use gradtape::differentiable;

// An `Option<&f64>` from `find` over `x.iter()` kept in a local and passed on whole: only
// the uses that read it as a number are rewritten (the loop with a `break` gives the
// element by value), so this one is left as written and rejected.
#[differentiable]
fn found_passed_on(x: &[f64], t: f64) -> f64 {
    let found = x.iter().find(|&&v| v > t);
    found.map_or(t, |v| v * t)
}

// A search over a chain with a `map` (or `zip`, `enumerate`) is not rewritten: its
// closure would see another item than the array's element.
#[differentiable]
fn position_after_a_map(x: &[f64], t: f64) -> f64 {
    let i = x.iter().map(|v| v * t).position(|v| v > 1.0).unwrap_or(0);
    x[i] * t
}

// An `Option<f64>` from `find` over copies, copied whole into another local: the
// option's flag and value cannot follow it (the error points at `find`).
#[differentiable]
fn found_option_copied(x: &[f64], t: f64) -> f64 {
    let found = x.iter().copied().find(|&v| v > t);
    let again = found;
    again.unwrap_or(t)
}

fn main() {}
