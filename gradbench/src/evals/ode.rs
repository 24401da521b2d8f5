//! `ode`: the ODE `y₀′ = x₀`, `yᵢ′ = xᵢ yᵢ₋₁` (`i > 0`) from `y(0) = 0`, integrated to
//! `t = 2` with `s` steps of classical fourth-order Runge–Kutta, and the gradient of the
//! final state's last element `y_{n−1}(2)` with respect to every `xᵢ`.
//!
//! Written as a user of plain Rust would, every function annotated with
//! `#[differentiable]`. The C++ reference (`gradbench-src/cpp/gradbench/evals/ode.hpp`)
//! takes each Runge–Kutta stage as a pass over the whole state (the right-hand side into
//! `k1`, the stage state, the right-hand side into `k2`, ...); here a [`step`](fn@step)
//! takes the four stages element by element in one pass, since element `i` of a stage
//! needs only element `i − 1` of the one before, carried from the previous element (the
//! stage sums written as JAX's tool writes them, `y + h/2 · k` and `y + h/6 · (k₁ + 2k₂ +
//! 2k₃ + k₄)`). The gradient is the generated adjoint of
//! [`last_element`](fn@last_element) (`last_element::grad_into`): no tape, the derivative
//! of exactly the function the eval names, taken through every Runge–Kutta step (the C++
//! `manual` tool answers the closed form of the exact solution instead, which agrees
//! within the eval's tolerance). Each step is a replayed call: the forward code keeps a
//! copy of the state it started from, and the adjoint reruns that one step from it, so
//! what the adjoint saves per element lives one step at a time (docs/PERFORMANCE.md,
//! "ode's gradient"); the last step runs once, through `step`'s hidden `vjp_split` (its
//! forward code with the saves, its adjoint kept for `last_element`'s: "ode: the last step
//! run once").

use gradtape::differentiable;
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    s: usize,
    #[serde(flatten)]
    runs: Runs,
}

/// One classical Runge–Kutta step of length `h = 2/s` of `y′ = f(x, y)`, `f₀ = x₀`,
/// `fᵢ = xᵢ yᵢ₋₁`, in place; `x` and `y` have the same length `n ≥ 1`.
///
/// The stage states `y + h/2 · k₁`, `y + h/2 · k₂`, `y + h · k₃` are needed at `i − 1`
/// only (`kⱼ` at `i` is `xᵢ` times the stage state at `i − 1`), so one pass carries them
/// from one element to the next, with the old `yᵢ₋₁` for `k₁`.
///
/// ```
/// use gradtape_gradbench::evals::ode::step;
/// // from y = 0 one step of length 2 gives y₀ = 2 x₀ and y₁ = 2 x₀ x₁ (exact)
/// let mut y = [0.0; 2];
/// step(&[0.5, 3.0], 1, &mut y);
/// assert_eq!(y, [1.0, 3.0]);
/// ```
#[differentiable]
pub fn step(x: &[f64], s: usize, y: &mut [f64]) {
    let h = 2.0 / s as f64;
    let half = h / 2.0;
    let sixth = h / 6.0;
    // the indices below stay under both lengths, so no access is checked in the loop
    let n = x.len().min(y.len());
    let k = x[0];
    let mut before = y[0];
    let mut stage1 = y[0] + half * k;
    let mut stage2 = y[0] + half * k;
    let mut stage3 = y[0] + h * k;
    y[0] += sixth * (k + 2.0 * k + 2.0 * k + k);
    for i in 1..n {
        let xi = x[i];
        let yi = y[i];
        let k1 = xi * before;
        let k2 = xi * stage1;
        let k3 = xi * stage2;
        let k4 = xi * stage3;
        before = yi;
        stage1 = yi + half * k1;
        stage2 = yi + half * k2;
        stage3 = yi + h * k3;
        y[i] = yi + sixth * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
}

/// The state at `t = 2` after `s` Runge–Kutta steps from `y(0) = 0`, written into `y`
/// (whatever it held); `x` and `y` have the same length `n ≥ 1`.
///
/// ```
/// use gradtape_gradbench::evals::ode::solve;
/// // y₀ = x₀ t exactly; y₁ = x₀ x₁ t²/2, which RK4 integrates exactly too
/// let mut y = [7.0, 7.0];
/// solve(&[0.5, 3.0], 4, &mut y);
/// assert!((y[0] - 1.0).abs() < 1e-15 && (y[1] - 3.0).abs() < 1e-14);
/// ```
#[differentiable]
pub fn solve(x: &[f64], s: usize, y: &mut [f64]) {
    for v in y.iter_mut() {
        *v = 0.0;
    }
    for _ in 0..s {
        step(x, s, y);
    }
}

/// The last element of [`solve`](fn@solve)'s state, `y_{n−1}(2)`: the function the eval's
/// `gradient` differentiates.
///
/// Its loop is `solve`'s, written out rather than called: a call of `solve` would be
/// replayed whole in the adjoint, so the gradient would run every step forward once more
/// (the joint-mode price, 15–30% of the gradient here).
///
/// ```
/// use gradtape_gradbench::evals::ode::last_element;
/// // y₁(2) = 2 x₀ x₁: ∂/∂x₀ = 2 x₁ = 6, ∂/∂x₁ = 2 x₀ = 1
/// assert!((last_element(&[0.5, 3.0], 4) - 3.0).abs() < 1e-14);
/// let mut g = [0.0; 2];
/// last_element::grad_into(&[0.5, 3.0], 4, &mut g);
/// assert!((g[0] - 6.0).abs() < 1e-13 && (g[1] - 1.0).abs() < 1e-13);
/// ```
#[differentiable]
pub fn last_element(x: &[f64], s: usize) -> f64 {
    let mut y = vec![0.0; x.len()];
    for _ in 0..s {
        step(x, s, &mut y);
    }
    y[x.len() - 1]
}

/// `ode::primal` and `ode::gradient`.
///
/// ```
/// use serde_json::json;
/// let input = json!({ "x": [0.5, 3.0], "s": 1, "min_runs": 1, "min_seconds": 0 });
/// let done = gradtape_gradbench::evals::ode::evaluate("primal", input).unwrap();
/// // one step of RK4 is exact for these polynomials: y = (x₀ t, x₀ x₁ t²/2) at t = 2
/// assert_eq!(done.output, json!([1.0, 3.0]));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { x, s, runs } = parse("ode", input)?;
    require("ode", !x.is_empty(), || {
        "x is empty: the state needs at least one element".to_owned()
    })?;
    require("ode", s >= 1, || {
        "s = 0: Runge–Kutta needs at least one step".to_owned()
    })?;
    // Each run fills a fresh output, as a caller of the function would get it.
    match function {
        "primal" => Ok(runs.evaluate(|| {
            let mut y = vec![0.0; x.len()];
            solve(&x, s, &mut y);
            y
        })),
        "gradient" => Ok(runs.evaluate(|| {
            let mut gradient = vec![0.0; x.len()];
            last_element::grad_into(&x, s, &mut gradient);
            gradient
        })),
        _ => Err(Failure::UnknownFunction {
            module: "ode",
            function: function.to_owned(),
            known: "`primal` and `gradient`",
        }),
    }
}
