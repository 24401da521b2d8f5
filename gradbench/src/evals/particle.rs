//! `particle`: the control `w` that makes a charged particle, integrated by Euler's method
//! in the field of two fixed charges at `(10, 10 − w)` and `(10, 0)`, cross the x axis at
//! the origin, found by [gradient descent](super::descent) on `x₀(t_f)²`.
//!
//! The force is `−∇ₓp(x; w)`, a gradient taken inside the integration, and the descent
//! differentiates the integration with respect to `w`: nested AD, through an unbounded
//! loop. Only `rr` (reverse over reverse) is answered: the outer gradient is a tape over the
//! integration, and each step's force comes from the generated adjoint of the potential,
//! recorded on it. (An inner tape per step gives the same numbers and costs 36% more
//! instructions.) `ff`, `fr`
//! and `rf` need forward mode, which gradtape does not have yet; they answer a failure.

use gradtape::{GradientTape, Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use super::descent::{argmin, nested_variants};
use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    w: f64,
    #[serde(flatten)]
    runs: Runs,
}

/// The time step of the integration.
const TIME_STEP: f64 = 0.1;

/// A bound on the integration's steps: at `w` near the reference's answer the particle
/// crosses the axis in about a hundred; one that never crosses is an error, not a hang.
const MAX_STEPS: usize = 1_000_000;

/// The electric potential at `(x, y)` of unit charges at `(10, 10 − w)` and `(10, 0)`.
#[differentiable]
pub fn potential(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let to_upper = ((x - 10.0).square() + (y - (10.0 - w)).square()).sqrt();
    let to_lower = ((x - 10.0).square() + y.square()).sqrt();
    1.0 / to_upper + 1.0 / to_lower
}

/// The force `−∇ₓp` on the particle at `(x, y)`: the generated adjoint of [`potential`]
/// (`potential::vjp`, reverse mode by source transformation), whose operations any tape that
/// tracks `x`, `y` or `w` records, so the outer gradient differentiates through it.
fn force(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    let (_, pullback) = potential::vjp(x, y, w);
    let (dx, dy, _) = pullback(Tensor::scalar(1.0));
    let connected = "the potential depends on the position";
    (-dx.expect(connected), -dy.expect(connected))
}

/// `x₀(t_f)²`: the square of where the particle crosses the x axis, for the control `w`.
///
/// # Panics
/// If the particle has not crossed the axis after a million steps.
///
/// ```
/// use gradtape::Tensor;
/// let miss = gradtape_gradbench::evals::particle::miss(&Tensor::scalar(0.0));
/// assert!(miss.to_scalar() > 0.0);
/// ```
pub fn miss(w: &Tensor<f64>) -> Tensor<f64> {
    let (mut x, mut y) = (Tensor::scalar(0.0), Tensor::scalar(8.0));
    let (mut vx, mut vy) = (Tensor::scalar(0.75), Tensor::scalar(0.0));
    for _ in 0..MAX_STEPS {
        let (fx, fy) = force(&x, &y, w);
        let (next_x, next_y) = (&x + &vx * TIME_STEP, &y + &vy * TIME_STEP);
        if next_y.to_scalar() <= 0.0 {
            // linear interpolation to the crossing
            let to_crossing = -&y / &vy;
            return (&x + to_crossing * &vx).square();
        }
        (x, y) = (next_x, next_y);
        (vx, vy) = (vx + fx * TIME_STEP, vy + fy * TIME_STEP);
    }
    panic!(
        "the particle did not cross the x axis in {MAX_STEPS} Euler steps (w = {})",
        w.to_scalar()
    )
}

/// `d miss/dw`, by a tape over the integration.
fn miss_gradient(w: &Tensor<f64>) -> Tensor<f64> {
    let tape = GradientTape::new();
    tape.watch(w);
    let value = tape.record(|| miss(w));
    tape.gradient(&value, w)
        .expect("a fresh tape answers its gradient")
        .expect("where the particle crosses depends on w")
}

/// The control found from `w`, reverse mode over reverse mode.
///
/// ```
/// let w = gradtape_gradbench::evals::particle::reverse_over_reverse(0.0);
/// // GradBench's expected answer
/// assert!((w - 0.2071918746486116).abs() < 1e-4);
/// ```
pub fn reverse_over_reverse(w: f64) -> f64 {
    argmin(miss, miss_gradient, &Tensor::scalar(w)).to_scalar()
}

/// `particle::rr`; `ff`, `fr` and `rf` answer [`Failure::Unsupported`].
///
/// ```
/// use serde_json::json;
/// let input = json!({ "w": 0.0, "min_runs": 1, "min_seconds": 0 });
/// let error = gradtape_gradbench::evals::particle::evaluate("rf", input).unwrap_err();
/// assert!(error.to_string().contains("forward-mode"));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { w, runs } = parse("particle", input)?;
    require("particle", w.is_finite(), || {
        format!("w = {w} is not finite")
    })?;
    nested_variants("particle", function, || {
        runs.evaluate(|| reverse_over_reverse(w))
    })
}
