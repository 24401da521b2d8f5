use gradtape::differentiable;

// A condition runs as written (its value is a constant): an update of a differentiable
// value inside it would not be differentiated. Found while adding the searches
// (tests/differentiable_searches.rs): both functions compiled and gave a zero gradient
// through `s`, silently.
#[differentiable]
fn update_in_a_while_condition(x: &[f64], t: f64) -> f64 {
    let mut s = 0.0;
    let mut scale = 1.0;
    while x.iter().any(|&v| {
        s += v * t;
        v * scale > t
    }) {
        scale *= 0.5;
    }
    s + scale
}

#[differentiable]
fn update_in_an_if_condition(x: f64, t: f64) -> f64 {
    let mut s = 0.0;
    if {
        s += x * t;
        s > 1.0
    } {
        s * 2.0
    } else {
        s
    }
}

// A match guard runs as written too.
#[differentiable]
fn update_in_a_guard(x: f64, k: i32) -> f64 {
    let mut s = x;
    match k {
        n if {
            s *= x;
            n > 0
        } =>
        {
            s + 1.0
        }
        _ => s,
    }
}

fn main() {}
