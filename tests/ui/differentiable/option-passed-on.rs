use gradtape::differentiable;

fn or_zero(value: Option<f64>) -> f64 {
    value.unwrap_or(0.0)
}

// An `Option` of a differentiable number is rewritten into a flag and a value only when
// every use is a `match`, `if let`, `let ... else` or one of `Option`'s reading methods;
// passed on whole, it is left as written and rejected.
#[differentiable]
fn halved(x: f64) -> f64 {
    let half = if x > 0.0 { Some(x * 0.5) } else { None };
    or_zero(half)
}

fn main() {}
