//! `hello`: `square(x) = x²` and `double(x)`, its derivative, for one number.
//!
//! The derivative is `square`'s tape-free gradient from `#[differentiable]`.

use gradtape::differentiable;
use serde_json::Value;

use crate::runs::parse;
use crate::{Evaluation, Failure, Runs};

/// The objective.
#[differentiable]
pub fn square(x: f64) -> f64 {
    x * x
}

/// `hello::square` and `hello::double`; the input is the number itself, run once.
///
/// ```
/// let done = gradtape_gradbench::evals::hello::evaluate("double", serde_json::json!(-2.5)).unwrap();
/// assert_eq!(done.output, -5.0);
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let x: f64 = parse("hello", input)?;
    match function {
        "square" => Ok(Runs::ONCE.evaluate(|| square(x))),
        "double" => Ok(Runs::ONCE.evaluate(|| {
            let (_, [dx]) = square::grad(x);
            dx
        })),
        _ => Err(Failure::UnknownFunction {
            module: "hello",
            function: function.to_owned(),
            known: "`square` and `double`",
        }),
    }
}
