//! `lse`: LogSumExp with the max trick, `a + log Σᵢ exp(xᵢ − a)` with `a = max x`, and its
//! gradient.
//!
//! Built from its primitives (a max, a sum), as the eval asks, annotated with
//! `#[differentiable]`; the gradient is the generated adjoint (`logsumexp::vjp`). The max
//! is taken through `stop_gradient`: the result does not depend on `a` (its two uses cancel),
//! so the shift needs no derivative.

use gradtape::{Tensor, differentiable, stop_gradient};
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    #[serde(flatten)]
    runs: Runs,
}

/// LogSumExp of all of `x`'s elements.
#[differentiable]
pub fn logsumexp(x: &Tensor<f64>) -> Tensor<f64> {
    let a = stop_gradient(&x.max());
    (x - &a).exp().sum().ln() + a
}

/// `lse::primal` and `lse::gradient`.
///
/// ```
/// use serde_json::json;
/// let input = json!({ "x": [0.0, 0.0], "min_runs": 1, "min_seconds": 0 });
/// let done = gradtape_gradbench::evals::lse::evaluate("gradient", input).unwrap();
/// assert_eq!(done.output, json!([0.5, 0.5]));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { x, runs } = parse("lse", input)?;
    require("lse", !x.is_empty(), || {
        "x is empty: LogSumExp needs at least one element".to_owned()
    })?;
    let n = x.len();
    let x = Tensor::from_vec(x, &[n]);
    match function {
        "primal" => Ok(runs.evaluate(|| logsumexp(&x).to_scalar())),
        "gradient" => Ok(runs.evaluate(|| {
            let (_, pullback) = logsumexp::vjp(&x);
            let (dx,) = pullback(Tensor::scalar(1.0));
            dx.expect("x is differentiable, so the adjoint gives its cotangent")
                .to_vec()
        })),
        _ => Err(Failure::UnknownFunction {
            module: "lse",
            function: function.to_owned(),
            known: "`primal` and `gradient`",
        }),
    }
}
