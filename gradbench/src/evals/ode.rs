//! `ode`: the ODE `y₀′ = x₀`, `yᵢ′ = xᵢ yᵢ₋₁` (`i > 0`) from `y(0) = 0`, integrated to
//! `t = 2` with `s` steps of classical fourth-order Runge–Kutta, and the gradient of the
//! final state's last element `y_{n−1}(2)` with respect to every `xᵢ`.
//!
//! Written as a user with tensors would, in plain Rust: the right-hand side on the whole
//! state vector (`x · (1, y₀, …, y_{n−2})`, a slice and a concat) and the four stages of
//! each step. The gradient comes from a `GradientTape` recording the solve op by op, of
//! the final state's last element: the derivative of exactly the function the eval names,
//! taken through every Runge–Kutta step (the C++ `manual` tool answers the closed form of
//! the exact solution instead, which agrees within the eval's tolerance).
//!
//! Not `#[differentiable]`: the attribute accepts this code (an earlier version of this
//! module used it), but its adjoint differentiates each slice, concat and call inside the
//! loop on a sub-tape of its own, and measured 2 to 2.5 times slower than the plain tape
//! (n = 1000, s = 100: 6.0 ms against 2.5 ms; n = 100 000, s = 10: 33 ms against 20 ms).

use gradtape::{GradientTape, Tensor};
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

/// The right-hand side `y′ = f(x, y)`: `f₀ = x₀`, `fᵢ = xᵢ yᵢ₋₁`.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::ode::rate;
/// let x = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]);
/// let y = Tensor::from_vec(vec![4.0, 5.0, 6.0], &[3]);
/// assert_eq!(rate(&x, &y).to_vec(), vec![1.0, 8.0, 15.0]);
/// ```
pub fn rate(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let n = x.len();
    x * Tensor::concat(&[&Tensor::ones(&[1]), &y.slice(0, 0, n - 1)], 0)
}

/// The state at `t = 2` after `s` Runge–Kutta steps from `y(0) = 0`; `x` has shape `[n]`,
/// `n ≥ 1`.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::ode::solve;
/// // y₀ = x₀ t exactly; y₁ = x₀ x₁ t²/2, which RK4 integrates exactly too
/// let x = Tensor::from_vec(vec![0.5, 3.0], &[2]);
/// let y = solve(&x, 4).to_vec();
/// assert!((y[0] - 1.0).abs() < 1e-15 && (y[1] - 3.0).abs() < 1e-14);
/// ```
pub fn solve(x: &Tensor<f64>, s: usize) -> Tensor<f64> {
    let h = 2.0 / s as f64;
    let mut y = Tensor::zeros(x.shape());
    for _ in 0..s {
        let k1 = rate(x, &y);
        let k2 = rate(x, &(&y + &k1 * (h / 2.0)));
        let k3 = rate(x, &(&y + &k2 * (h / 2.0)));
        let k4 = rate(x, &(&y + &k3 * h));
        y = &y + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    y
}

/// The gradient of the last element of [`solve`]`(x, s)` with respect to `x`, from a tape
/// recording the solve.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::ode::gradient;
/// // y₁(2) = 2 x₀ x₁: ∂/∂x₀ = 2 x₁ = 6, ∂/∂x₁ = 2 x₀ = 1
/// let g = gradient(&Tensor::from_vec(vec![0.5, 3.0], &[2]), 4);
/// assert!((g[0] - 6.0).abs() < 1e-13 && (g[1] - 1.0).abs() < 1e-13);
/// ```
pub fn gradient(x: &Tensor<f64>, s: usize) -> Vec<f64> {
    let n = x.len();
    let tape = GradientTape::new();
    tape.watch(x);
    let last = tape.record(|| solve(x, s).slice(0, n - 1, 1).sum());
    tape.gradient(&last, x)
        .expect("a fresh tape")
        .expect("the last element depends on x")
        .to_vec()
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
    let n = x.len();
    let x = Tensor::from_vec(x, &[n]);
    match function {
        "primal" => Ok(runs.evaluate(|| solve(&x, s).to_vec())),
        "gradient" => Ok(runs.evaluate(|| gradient(&x, s))),
        _ => Err(Failure::UnknownFunction {
            module: "ode",
            function: function.to_owned(),
            known: "`primal` and `gradient`",
        }),
    }
}
