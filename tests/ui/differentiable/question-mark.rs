// `?` outside a function with an `Option` result: here in one returning a `Result`, which
// is no result a #[differentiable] function may have (its `Ok` holds the value).
use gradtape::differentiable;

fn parse_scale(text: &str) -> Result<f64, String> {
    text.parse().map_err(|_| format!("not a number: {text}"))
}

#[differentiable]
fn scaled(x: f64, text: &str) -> Result<f64, String> {
    let k = parse_scale(text)?;
    Ok(k * x)
}

fn main() {}
