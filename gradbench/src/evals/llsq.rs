//! `llsq`: the linear least-squares objective `y(x) = ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²` over `n`
//! points `tᵢ = −1 + 2i/(n−1)` with `sᵢ = sign(tᵢ)`, and its gradient.
//!
//! Written as a user with tensors would: the problem's data (the design matrix `Tᵢⱼ = tᵢʲ`
//! and the targets), then `½‖s − T x‖²`, annotated with `#[differentiable]`; the gradient is
//! the generated adjoint (`objective::vjp`). The data go in a struct, so the adjoint computes
//! no cotangent for them.
//!
//! The data depend on `n` and `m` only, not on `x`: they are built once per input, before
//! the timed runs, like the input itself (the C++ reference computes each `tᵢʲ` inside its
//! loop instead; building `T` takes about as long as one product with it).

use gradtape::{Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    n: usize,
    #[serde(flatten)]
    runs: Runs,
}

/// The fixed data of one problem size: the design matrix and the targets.
pub struct Problem {
    /// `[n, m]`: row `i` is `1, tᵢ, tᵢ², …, tᵢᵐ⁻¹`.
    pub design: Tensor<f64>,
    /// `[n, 1]`: `sign(tᵢ)`.
    pub targets: Tensor<f64>,
}

impl Problem {
    /// The problem for `n ≥ 2` points and `m` coefficients.
    ///
    /// ```
    /// let p = gradtape_gradbench::evals::llsq::Problem::new(3, 2);
    /// // t = −1, 0, 1
    /// assert_eq!(p.design.to_vec(), vec![1.0, -1.0, 1.0, 0.0, 1.0, 1.0]);
    /// assert_eq!(p.targets.to_vec(), vec![-1.0, 0.0, 1.0]);
    /// ```
    pub fn new(n: usize, m: usize) -> Problem {
        let mut design = Vec::with_capacity(n * m);
        let mut targets = Vec::with_capacity(n);
        for i in 0..n {
            let t = -1.0 + i as f64 * 2.0 / (n - 1) as f64;
            // sign with sign(0) = 0, as the reference's `(0 < t) - (t < 0)`
            targets.push(f64::from(u8::from(t > 0.0)) - f64::from(u8::from(t < 0.0)));
            let mut power = 1.0;
            for _ in 0..m {
                design.push(power);
                power *= t;
            }
        }
        Problem {
            design: Tensor::from_vec(design, &[n, m]),
            targets: Tensor::from_vec(targets, &[n, 1]),
        }
    }
}

/// The objective at the coefficients `x` (shape `[m, 1]`).
#[differentiable]
pub fn objective(x: &Tensor<f64>, problem: &Problem) -> Tensor<f64> {
    let residual = &problem.targets - problem.design.matmul(x);
    0.5 * (&residual * &residual).sum()
}

/// `llsq::primal` and `llsq::gradient`.
///
/// ```
/// use serde_json::json;
/// let input = json!({ "x": [0.0, 1.0], "n": 3, "min_runs": 1, "min_seconds": 0 });
/// let done = gradtape_gradbench::evals::llsq::evaluate("gradient", input).unwrap();
/// // residuals sᵢ − tᵢ are all 0 at x = (0, 1)
/// assert_eq!(done.output, json!([0.0, 0.0]));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { x, n, runs } = parse("llsq", input)?;
    require("llsq", n >= 2, || {
        format!("n = {n}: the points tᵢ = −1 + 2i/(n−1) need n ≥ 2")
    })?;
    let m = x.len();
    let x = Tensor::from_vec(x, &[m, 1]);
    let problem = Problem::new(n, m);
    match function {
        "primal" => Ok(runs.evaluate(|| objective(&x, &problem).to_scalar())),
        "gradient" => Ok(runs.evaluate(|| {
            let (_, pullback) = objective::vjp(&x, &problem);
            let (dx, ()) = pullback(Tensor::scalar(1.0));
            dx.expect("x is differentiable, so the adjoint gives its cotangent")
                .to_vec()
        })),
        _ => Err(Failure::UnknownFunction {
            module: "llsq",
            function: function.to_owned(),
            known: "`primal` and `gradient`",
        }),
    }
}
