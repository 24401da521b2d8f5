use gradtape::differentiable;

// `let .. else` on an element read by `get` is not rewritten (`if let` and `match` on it
// are).
#[differentiable]
fn second_or_first(x: &[f64]) -> f64 {
    let Some(v) = x.get(1) else {
        return x[0];
    };
    v * v
}

fn main() {}
