//! `saddle`: `min_x max_y f(x, y)` with `f(x, y) = (x₁² + x₂²) − (y₁² + y₂²)`, both searches
//! by [gradient descent](super::descent) from the same start, the outer one differentiating
//! *through* the inner one (nested AD).
//!
//! All four variants are answered. The outer gradient is a tape recording the whole inner
//! search (`r`) or a forward accumulator per coordinate around it (`f`); the inner search's
//! gradients come from the generated adjoint of the cost (`r`, `cost::vjp`) or from forward
//! mode (`f`), and whichever computes them is seen by the outer tape or accumulator.

use gradtape::{Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use super::descent::{Mode, argmax, argmin, gradient, nested_variants};
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

/// `∂cost/∂y` at `(x, y)` by `mode`: the generated adjoint of [`cost`] (`cost::vjp`,
/// reverse mode by source transformation) or forward mode, one pass per coordinate. Either
/// way any tape or accumulator that tracks `x` or `y` sees its operations.
fn gradient_in_y(x: &Tensor<f64>, y: &Tensor<f64>, mode: Mode) -> Tensor<f64> {
    match mode {
        Mode::Reverse => {
            let (_, pullback) = cost::vjp(x, y);
            let (_, dy) = pullback(Tensor::scalar(1.0));
            dy.expect("the cost depends on y")
        }
        Mode::Forward => gradient(Mode::Forward, |y| cost(x, y), y),
    }
}

/// `max_y cost(x, y)`, the maximum found by descent from `start`, its gradients by `inner`.
fn max_over_y(x: &Tensor<f64>, start: &Tensor<f64>, inner: Mode) -> Tensor<f64> {
    let y = argmax(|y| cost(x, y), |y| gradient_in_y(x, y, inner), start);
    cost(x, &y)
}

/// The saddle point `(x, y)` from `start` as `[x₁, x₂, y₁, y₂]`: the outer search's
/// gradients (through the whole inner search) by `outer`, the inner search's by `inner`.
///
/// ```
/// use gradtape_gradbench::evals::{descent::Mode, saddle::solve};
/// // the saddle point of x² − y² is the origin, by every variant
/// for outer in [Mode::Forward, Mode::Reverse] {
///     for inner in [Mode::Forward, Mode::Reverse] {
///         let point = solve([1.0, 1.0], outer, inner);
///         assert!(point.iter().all(|v| v.abs() < 1e-4));
///     }
/// }
/// ```
pub fn solve(start: [f64; 2], outer: Mode, inner: Mode) -> Vec<f64> {
    let start = Tensor::from_vec(start.to_vec(), &[2]);
    let max_cost = |x: &Tensor<f64>| max_over_y(x, &start, inner);
    let x = argmin(max_cost, |x| gradient(outer, max_cost, x), &start);
    let y = argmax(|y| cost(&x, y), |y| gradient_in_y(&x, y, inner), &start);
    let mut point = x.to_vec();
    point.extend(y.to_vec());
    point
}

/// `saddle::ff`, `fr`, `rf` and `rr`.
///
/// ```
/// use serde_json::json;
/// let input = json!({ "start": [1.0, 1.0], "min_runs": 1, "min_seconds": 0 });
/// assert!(gradtape_gradbench::evals::saddle::evaluate("ff", input).is_ok());
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { start, runs } = parse("saddle", input)?;
    require("saddle", start.iter().all(|v| v.is_finite()), || {
        format!("start = {start:?} is not finite")
    })?;
    nested_variants("saddle", function, |outer, inner| {
        runs.evaluate(|| solve(start, outer, inner))
    })
}
