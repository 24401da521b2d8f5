use gradtape::differentiable;

pub struct Settings {
    pub scale: Option<f64>,
}

// A standard method of an option or iterator of constants, taking a closure over a
// differentiable value, that no rewrite takes: the macro's message at the method (it was
// rustc's "method `unwrap_or_else_vjp_partial` exists but its trait bounds were not
// satisfied", the call taken for an annotated method of the receiver).
#[differentiable]
fn scaled(x: f64, settings: &Settings) -> f64 {
    let scale = settings.scale;
    scale.unwrap_or_else(|| x * 3.0) * x
}

#[differentiable]
fn heaviest(x: f64, weights: &[usize]) -> f64 {
    let n = weights.iter().max_by(|a, b| (**a as f64 * x).total_cmp(&(**b as f64 * x)));
    x * n.map_or(1.0, |&k| k as f64)
}

fn main() {}
