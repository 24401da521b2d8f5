//! `saddle`: `min_x max_y f(x, y)` with `f(x, y) = (x₁² + x₂²) − (y₁² + y₂²)`, both searches
//! by [gradient descent](super::descent) from the same start, the outer one differentiating
//! *through* the inner one (nested AD).
//!
//! Of the four variants only `rr` (reverse over reverse) is answered: the outer gradient is
//! a tape recording the whole inner search, whose gradients come from the generated adjoint
//! of the cost, recorded on it. `ff`, `fr` and `rf` need forward mode, which gradtape does not have yet (the issue
//! "Forward mode, Hessian-vector products and checkpointing"); they answer a failure, never a
//! value computed some other way.

use gradtape::{GradientTape, Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use super::descent::{argmax, argmin, nested_variants};
use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    start: [f64; 2],
    #[serde(flatten)]
    runs: Runs,
}

/// The function whose saddle point is sought.
#[differentiable]
pub fn cost(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.square().sum() - y.square().sum()
}

/// `∂cost/∂y` at `(x, y)`: the generated adjoint of [`cost`] (`cost::vjp`, reverse mode by
/// source transformation), whose operations any tape that tracks `x` or `y` records.
fn gradient_in_y(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let (_, pullback) = cost::vjp(x, y);
    let (_, dy) = pullback(Tensor::scalar(1.0));
    dy.expect("the cost depends on y")
}

/// `max_y cost(x, y)`, the maximum found by descent from `start`.
fn max_over_y(x: &Tensor<f64>, start: &Tensor<f64>) -> Tensor<f64> {
    let y = argmax(|y| cost(x, y), |y| gradient_in_y(x, y), start);
    cost(x, &y)
}

/// `∂/∂x max_y cost(x, y)`, by a tape over the whole inner search.
fn gradient_in_x(x: &Tensor<f64>, start: &Tensor<f64>) -> Tensor<f64> {
    let tape = GradientTape::new();
    tape.watch(x);
    let value = tape.record(|| max_over_y(x, start));
    tape.gradient(&value, x)
        .expect("a fresh tape answers its gradient")
        .expect("the maximum depends on x")
}

/// The saddle point `(x, y)` from `start`, reverse mode over reverse mode, as `[x₁, x₂, y₁, y₂]`.
///
/// ```
/// let point = gradtape_gradbench::evals::saddle::reverse_over_reverse([1.0, 1.0]);
/// // the saddle point of x² − y² is the origin
/// assert!(point.iter().all(|v| v.abs() < 1e-4));
/// ```
pub fn reverse_over_reverse(start: [f64; 2]) -> Vec<f64> {
    let start = Tensor::from_vec(start.to_vec(), &[2]);
    let x = argmin(
        |x| max_over_y(x, &start),
        |x| gradient_in_x(x, &start),
        &start,
    );
    let y = argmax(|y| cost(&x, y), |y| gradient_in_y(&x, y), &start);
    let mut point = x.to_vec();
    point.extend(y.to_vec());
    point
}

/// `saddle::rr`; `ff`, `fr` and `rf` answer [`Failure::Unsupported`].
///
/// ```
/// use serde_json::json;
/// let input = json!({ "start": [1.0, 1.0], "min_runs": 1, "min_seconds": 0 });
/// let error = gradtape_gradbench::evals::saddle::evaluate("ff", input).unwrap_err();
/// assert!(error.to_string().contains("forward-mode"));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { start, runs } = parse("saddle", input)?;
    require("saddle", start.iter().all(|v| v.is_finite()), || {
        format!("start = {start:?} is not finite")
    })?;
    nested_variants("saddle", function, || {
        runs.evaluate(|| reverse_over_reverse(start))
    })
}
