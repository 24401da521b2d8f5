// An option read from a plain function given a differentiable value: the runtime's
// "not annotated" message at its name (the caller reads it through the function's
// companion, which a plain function has not).
use gradtape::differentiable;

fn checked_ln(x: f64) -> Option<f64> {
    (x > 0.0).then(|| x.ln())
}

#[differentiable]
fn sum_of_logs(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        if let Some(l) = checked_ln(x[i]) {
            total += l;
        }
    }
    total
}

fn main() {}
