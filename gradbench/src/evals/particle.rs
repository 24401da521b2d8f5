//! `particle`: the control `w` that makes a charged particle, integrated by Euler's method
//! in the field of two fixed charges at `(10, 10 − w)` and `(10, 0)`, cross the x axis at
//! the origin, found by [gradient descent](super::descent) on `x₀(t_f)²`.
//!
//! The force is `−∇ₓp(x; w)`, a gradient taken inside the integration, and the descent
//! differentiates the integration with respect to `w`: nested AD, through an unbounded
//! loop. All four variants are answered. The outer gradient (`d miss/dw`) is a tape over
//! the integration (`r`) or a forward accumulator around it (`f`); each step's force is
//! the generated adjoint of the potential (`r`: `potential::vjp`, whose operations the outer
//! tape or accumulator sees) or two forward-mode passes, one per coordinate (`f`). (For
//! `rr`, an inner tape per step gives the same numbers and costs 36% more instructions.)

use gradtape::{ForwardAccumulator, Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use super::descent::{Mode, argmin, gradient, nested_variants};
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

/// The force `−∇ₓp` on the particle at `(x, y)`, by `mode`: the generated adjoint of
/// [`potential`] (`potential::vjp`, reverse mode by source transformation), or one forward
/// accumulator per coordinate. Either way its operations are seen by any tape or
/// accumulator that tracks `x`, `y` or `w`, so the outer gradient differentiates through it.
fn force(
    x: &Tensor<f64>,
    y: &Tensor<f64>,
    w: &Tensor<f64>,
    mode: Mode,
) -> (Tensor<f64>, Tensor<f64>) {
    let connected = "the potential depends on the position";
    match mode {
        Mode::Reverse => {
            let (_, pullback) = potential::vjp(x, y, w);
            let (dx, dy, _) = pullback(Tensor::scalar(1.0));
            (-dx.expect(connected), -dy.expect(connected))
        }
        Mode::Forward => {
            let along = |dx: f64, dy: f64| {
                let tangents = (Tensor::scalar(dx), Tensor::scalar(dy));
                let acc = ForwardAccumulator::new((x, y), tangents).expect("0-d tangents");
                let p = acc.record(|| potential(x, y, w));
                acc.jvp(&p).expect(connected)
            };
            (-along(1.0, 0.0), -along(0.0, 1.0))
        }
    }
}

/// `x₀(t_f)²`: the square of where the particle crosses the x axis, for the control `w`,
/// the force on the way taken by `mode`.
///
/// # Panics
/// If the particle has not crossed the axis after a million steps.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::{descent::Mode, particle::miss};
/// let miss_r = miss(&Tensor::scalar(0.0), Mode::Reverse).to_scalar();
/// assert!(miss_r > 0.0);
/// assert!((miss(&Tensor::scalar(0.0), Mode::Forward).to_scalar() - miss_r).abs() < 1e-12);
/// ```
pub fn miss(w: &Tensor<f64>, mode: Mode) -> Tensor<f64> {
    let (mut x, mut y) = (Tensor::scalar(0.0), Tensor::scalar(8.0));
    let (mut vx, mut vy) = (Tensor::scalar(0.75), Tensor::scalar(0.0));
    for _ in 0..MAX_STEPS {
        let (fx, fy) = force(&x, &y, w, mode);
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

/// The control found from `w`, with the descent's gradients by `outer` and the force by
/// `inner`.
///
/// ```
/// use gradtape_gradbench::evals::{descent::Mode, particle::solve};
/// // GradBench's expected answer, by every variant
/// for outer in [Mode::Forward, Mode::Reverse] {
///     for inner in [Mode::Forward, Mode::Reverse] {
///         assert!((solve(0.0, outer, inner) - 0.2071918746486116).abs() < 1e-4);
///     }
/// }
/// ```
pub fn solve(w: f64, outer: Mode, inner: Mode) -> f64 {
    let cost = |w: &Tensor<f64>| miss(w, inner);
    argmin(cost, |w| gradient(outer, cost, w), &Tensor::scalar(w)).to_scalar()
}

/// `particle::ff`, `fr`, `rf` and `rr`.
///
/// ```
/// use serde_json::json;
/// let input = json!({ "w": 0.0, "min_runs": 1, "min_seconds": 0 });
/// assert!(gradtape_gradbench::evals::particle::evaluate("rf", input.clone()).is_ok());
/// assert!(gradtape_gradbench::evals::particle::evaluate("rx", input).is_err());
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { w, runs } = parse("particle", input)?;
    require("particle", w.is_finite(), || {
        format!("w = {w} is not finite")
    })?;
    nested_variants("particle", function, |outer, inner| {
        runs.evaluate(|| solve(w, outer, inner))
    })
}
