//! `ode`: the ODE `y₀′ = x₀`, `yᵢ′ = xᵢ yᵢ₋₁` (`i > 0`) from `y(0) = 0`, integrated to
//! `t = 2` with `s` steps of classical fourth-order Runge–Kutta, and the gradient of the
//! final state's last element `y_{n−1}(2)` with respect to every `xᵢ`.
//!
//! Written as a user of plain Rust would, the C++ reference
//! (`gradbench-src/cpp/gradbench/evals/ode.hpp`) loop for loop: the right-hand side writes
//! into a `&mut [f64]`, the solver keeps four stage buffers and a scratch state, and every
//! function is annotated with `#[differentiable]`. The gradient is the generated adjoint of
//! [`last_element`](fn@last_element) (`last_element::grad_into`): no tape, the derivative of exactly the
//! function the eval names, taken through every Runge–Kutta step (the C++ `manual` tool
//! answers the closed form of the exact solution instead, which agrees within the eval's
//! tolerance).

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

/// The right-hand side `y′ = f(x, y)`, written into `rate`: `f₀ = x₀`, `fᵢ = xᵢ yᵢ₋₁`.
/// The three slices have the same length `n ≥ 1`.
///
/// ```
/// use gradtape_gradbench::evals::ode::rate;
/// let mut z = [0.0; 3];
/// rate(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], &mut z);
/// assert_eq!(z, [1.0, 8.0, 15.0]);
/// ```
#[differentiable]
pub fn rate(x: &[f64], y: &[f64], rate: &mut [f64]) {
    rate[0] = x[0];
    for i in 1..x.len() {
        rate[i] = x[i] * y[i - 1];
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
    let n = x.len();
    let h = 2.0 / s as f64;
    let mut k1 = vec![0.0; n];
    let mut k2 = vec![0.0; n];
    let mut k3 = vec![0.0; n];
    let mut k4 = vec![0.0; n];
    let mut stage = vec![0.0; n];
    for v in y.iter_mut() {
        *v = 0.0;
    }
    for _ in 0..s {
        rate(x, y, &mut k1);
        for i in 0..n {
            stage[i] = y[i] + h * k1[i] / 2.0;
        }
        rate(x, &stage, &mut k2);
        for i in 0..n {
            stage[i] = y[i] + h * k2[i] / 2.0;
        }
        rate(x, &stage, &mut k3);
        for i in 0..n {
            stage[i] = y[i] + h * k3[i];
        }
        rate(x, &stage, &mut k4);
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
}

/// The last element of [`solve`](fn@solve)'s state, `y_{n−1}(2)`: the function the eval's
/// `gradient` differentiates.
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
    solve(x, s, &mut y);
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
