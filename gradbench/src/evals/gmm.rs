//! `gmm`: the log posterior of a Gaussian mixture model with a Wishart prior on the precision
//! matrices (`objective`), and its gradient with respect to `alpha`, `mu`, `q` and `l`
//! (`jacobian`).
//!
//! Written as a user with tensors would, all points and components at once (as the PyTorch
//! reference does): each component's factor `Qₖ` (`exp(qₖ)` on the diagonal, `lₖ` below it,
//! column by column) is built by scattering `[exp(qₖ) | lₖ]` into the `d × d` positions with a
//! constant index map, `Qₖ(xᵢ − μₖ) = [Qₖ | −Qₖμₖ]·[xᵢ; 1]` is one matrix product for a
//! block of points and all components (blocks of about 1 MiB of intermediates, so that they
//! stay in cache), and the log-sum-exp over the components takes its shift through
//! `stop_gradient`. The function is annotated with `#[differentiable]`; the gradient is the
//! generated adjoint (`objective::vjp`). The data and constants go in a struct, so the
//! adjoint computes no cotangent for them.

use gradtape::{Tensor, differentiable, stop_gradient};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::runs::{matrix, parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    d: usize,
    k: usize,
    n: usize,
    x: Vec<Vec<f64>>,
    m: usize,
    gamma: f64,
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
    #[serde(flatten)]
    runs: Runs,
}

/// The gradient, in the eval's `Independent` shape.
#[derive(Debug, Serialize)]
pub struct Gradient {
    /// `∂/∂alpha`, `k` numbers.
    pub alpha: Vec<f64>,
    /// `∂/∂mu`, `k` rows of `d`.
    pub mu: Vec<Vec<f64>>,
    /// `∂/∂q`, `k` rows of `d`.
    pub q: Vec<Vec<f64>>,
    /// `∂/∂l`, `k` rows of `d(d−1)/2`.
    pub l: Vec<Vec<f64>>,
}

/// What the objective does not differentiate: the data points, the sizes, the prior's
/// parameters and the index map that places `[exp(q) | l]` in the factors `Q`.
pub struct Problem {
    /// The points, each with a 1 appended (`[n, d + 1]`), in consecutive blocks of at most
    /// [`Problem::BLOCK`]`/(k·d)` rows: a block's `[rows, k·d]` intermediates stay in cache.
    pub blocks: Vec<Tensor<f64>>,
    /// Dimension of the space.
    pub d: usize,
    /// Number of components.
    pub k: usize,
    /// Number of points.
    pub n: usize,
    /// Additional degrees of freedom of the Wishart prior.
    pub m: usize,
    /// Precision of the Wishart prior.
    pub gamma: f64,
    /// For column `j` of `[exp(qₖ) | lₖ]` (length `d(d+1)/2`), its row-major position
    /// `r·d + c` in `Qₖ`: the diagonal first, then the strictly lower part column by column.
    pub placement: Vec<usize>,
}

impl Problem {
    /// How many numbers one block's intermediates hold (`rows · k · d`), about 1 MiB.
    pub const BLOCK: usize = 1 << 17;

    /// The problem for `n` points `x` (row-major, `[n, d]`) and `k` components.
    ///
    /// ```
    /// use gradtape::Tensor;
    /// let x = Tensor::from_vec(vec![0.0; 6], &[2, 3]);
    /// let p = gradtape_gradbench::evals::gmm::Problem::new(x, 4, 0, 1.0);
    /// // d = 3: the diagonal (0, 4, 8), then column 0 below it (3, 6), then column 1 (7)
    /// assert_eq!(p.placement, vec![0, 4, 8, 3, 6, 7]);
    /// assert_eq!(p.blocks.len(), 1);
    /// assert_eq!(p.blocks[0].shape(), &[2, 4]);
    /// ```
    ///
    /// # Panics
    /// If `x` is not a matrix.
    pub fn new(x: Tensor<f64>, k: usize, m: usize, gamma: f64) -> Problem {
        let d = x.shape().get(1).copied().unwrap_or(1);
        let rows = Problem::BLOCK / (k * d).max(1);
        Problem::in_blocks_of(rows, x, k, m, gamma)
    }

    /// As [`new`](Self::new), with blocks of `rows` points (the last one shorter).
    ///
    /// ```
    /// use gradtape::Tensor;
    /// let x = Tensor::from_vec(vec![0.0; 10], &[5, 2]);
    /// let p = gradtape_gradbench::evals::gmm::Problem::in_blocks_of(2, x, 3, 0, 1.0);
    /// let rows: Vec<usize> = p.blocks.iter().map(|b| b.shape()[0]).collect();
    /// assert_eq!(rows, vec![2, 2, 1]);
    /// ```
    ///
    /// # Panics
    /// If `x` is not a matrix.
    pub fn in_blocks_of(rows: usize, x: Tensor<f64>, k: usize, m: usize, gamma: f64) -> Problem {
        let &[n, d] = x.shape() else {
            panic!(
                "gmm: the points must be a matrix, got shape {:?}",
                x.shape()
            );
        };
        let mut placement: Vec<usize> = (0..d).map(|i| i * d + i).collect();
        for c in 0..d {
            placement.extend((c + 1..d).map(|r| r * d + c));
        }
        let rows = rows.clamp(1, n.max(1));
        let x = Tensor::concat(&[&x, &Tensor::from_vec(vec![1.0; n], &[n, 1])], 1);
        let blocks = (0..n)
            .step_by(rows)
            .map(|start| x.slice(0, start, rows.min(n - start)))
            .collect();
        Problem {
            blocks,
            d,
            k,
            n,
            m,
            gamma,
            placement,
        }
    }

    /// The terms of the objective that depend on no parameter: the Gaussians' normalisation
    /// `−n·d/2·log 2π` and `k` times the Wishart prior's `n_w·d·log(γ/√2) − log Γ_d(n_w/2)`,
    /// `n_w = d + m + 1`.
    ///
    /// ```
    /// use gradtape::Tensor;
    /// let x = Tensor::from_vec(vec![0.0], &[1, 1]);
    /// let p = gradtape_gradbench::evals::gmm::Problem::new(x, 1, 0, 1.0);
    /// // d = 1, m = 0: −½ log 2π + 2·log(1/√2) − log Γ(1)
    /// let expected = -0.5 * (2.0 * std::f64::consts::PI).ln() - 2f64.ln();
    /// assert!((p.constant() - expected).abs() < 1e-15);
    /// ```
    pub fn constant(&self) -> f64 {
        let (d, n, k) = (self.d as f64, self.n as f64, self.k as f64);
        let n_wishart = self.d + self.m + 1;
        let wishart = n_wishart as f64 * d * (self.gamma.ln() - 0.5 * 2f64.ln())
            - log_multivariate_gamma(n_wishart, self.d);
        -n * d * 0.5 * (2.0 * std::f64::consts::PI).ln() + k * wishart
    }
}

/// `log Γ(h/2)` for a positive integer `h`, exactly by recurrence: `Γ(1) = 1`,
/// `Γ(1/2) = √π`, `Γ(a + 1) = a·Γ(a)`.
fn log_gamma_of_half(h: usize) -> f64 {
    assert!(h > 0, "Γ has a pole at 0");
    let mut out = if h.is_multiple_of(2) {
        0.0
    } else {
        0.5 * std::f64::consts::PI.ln()
    };
    // a runs over h/2 − 1, h/2 − 2, … down to 1 or 1/2
    let mut twice_a = h;
    while twice_a > 2 {
        twice_a -= 2;
        out += (twice_a as f64 / 2.0).ln();
    }
    out
}

/// The multivariate log-gamma function `log Γ_p(n/2) = p(p−1)/4·log π + Σⱼ log Γ(n/2 + (1−j)/2)`
/// for `j = 1..=p`, at the half-integer `n/2` the Wishart prior needs (`n ≥ p + 1`).
fn log_multivariate_gamma(n: usize, p: usize) -> f64 {
    let pf = p as f64;
    0.25 * pf * (pf - 1.0) * std::f64::consts::PI.ln()
        + (1..=p).map(|j| log_gamma_of_half(n + 1 - j)).sum::<f64>()
}

/// The log posterior at `alpha` (`[k]`), `mu` (`[k, d]`), `q` (`[k, d]`) and `l`
/// (`[k, d(d−1)/2]`).
#[differentiable]
pub fn objective(
    alpha: &Tensor<f64>,
    mu: &Tensor<f64>,
    q: &Tensor<f64>,
    l: &Tensor<f64>,
    problem: &Problem,
) -> Tensor<f64> {
    let (d, k) = (problem.d, problem.k);
    // Qₖ, all k at once, stacked: row k·d + r is row r of Qₖ, [k·d, d]
    let diagonal = q.exp();
    let factors = Tensor::concat(&[&diagonal, l], 1)
        .scatter_add(1, &problem.placement, d * d)
        .reshape(&[k * d, d]);
    // Qₖ μₖ, [k, d]
    let qmu = (factors.reshape(&[k, d, d]) * mu.reshape(&[k, 1, d])).sum_axis(2, false);
    // [Qₖ | −Qₖμₖ] stacked, [k·d, d + 1]: against a point with a 1 appended, Qₖ(x − μₖ)
    let affine = Tensor::concat(&[&factors, &-qmu.reshape(&[k * d, 1])], 1);
    let sum_q = q.sum_axis(1, false);
    let offset = alpha + &sum_q;
    // Σᵢ logsumexpₖ βᵢₖ with βᵢₖ = αₖ + Σⱼ qₖⱼ − ½‖Qₖ(xᵢ − μₖ)‖², a block of points at a time
    let mut lse_points = Tensor::scalar(0.0);
    for block in 0..problem.blocks.len() {
        let points = problem.blocks[block].shape()[0];
        // Qₖ(xᵢ − μₖ) for the block's points and every component, [points, k·d]
        let centred = problem.blocks[block].matmul_transposed(&affine, false, true);
        let squared = centred.square().reshape(&[points, k, d]).sum_axis(2, false);
        let beta = &offset - 0.5 * squared;
        // the shift through stop_gradient: the value does not depend on it
        let shift = stop_gradient(&beta.max_axis(1, true));
        let lse = (beta - &shift).exp().sum_axis(1, true).ln() + shift;
        lse_points = lse_points + lse.sum();
    }
    let alpha_shift = stop_gradient(&alpha.max());
    let lse_alpha = (alpha - &alpha_shift).exp().sum().ln() + alpha_shift;
    // the Wishart prior's terms in the parameters: −γ²/2‖Qₖ‖²_F + m Σⱼ qₖⱼ, summed over k
    let frobenius = diagonal.square().sum() + l.square().sum();
    let prior = (problem.m as f64) * sum_q.sum() - 0.5 * problem.gamma * problem.gamma * frobenius;
    lse_points - (problem.n as f64) * lse_alpha + prior + problem.constant()
}

/// The checked input: the parameters as tensors and the problem.
struct Parameters {
    alpha: Tensor<f64>,
    mu: Tensor<f64>,
    q: Tensor<f64>,
    l: Tensor<f64>,
    problem: Problem,
}

impl Parameters {
    fn new(input: Input) -> Result<(Parameters, Runs), Failure> {
        let Input {
            d,
            k,
            n,
            x,
            m,
            gamma,
            alpha,
            mu,
            q,
            l,
            runs,
        } = input;
        require("gmm", d >= 1 && k >= 1 && n >= 1, || {
            format!("d = {d}, k = {k}, n = {n}: each must be at least 1")
        })?;
        require("gmm", gamma > 0.0, || {
            format!("gamma = {gamma}: must be positive")
        })?;
        require("gmm", alpha.len() == k, || {
            format!("`alpha` has {} numbers, expected k = {k}", alpha.len())
        })?;
        let x = matrix("gmm", "x", x, n, d)?;
        let parameters = Parameters {
            alpha: Tensor::from_vec(alpha, &[k]),
            mu: matrix("gmm", "mu", mu, k, d)?,
            q: matrix("gmm", "q", q, k, d)?,
            l: matrix("gmm", "l", l, k, d * (d - 1) / 2)?,
            problem: Problem::new(x, k, m, gamma),
        };
        Ok((parameters, runs))
    }
}

/// The rows of a `[rows, len]` tensor.
fn rows(t: &Tensor<f64>) -> Vec<Vec<f64>> {
    let len = t.shape()[1];
    t.to_vec().chunks(len.max(1)).map(<[f64]>::to_vec).collect()
}

/// `gmm::objective` and `gmm::jacobian`.
///
/// ```
/// use serde_json::json;
/// // one component, one point at its mean, d = 1, Q = [1]: the log density of N(0, 1) at 0
/// // plus the Wishart prior's log density at 1 (n_w = 2, γ = 1: −log 2 − ½)
/// let input = json!({
///     "d": 1, "k": 1, "n": 1, "x": [[0.5]], "m": 0, "gamma": 1.0,
///     "alpha": [0.0], "mu": [[0.5]], "q": [[0.0]], "l": [[]],
///     "min_runs": 1, "min_seconds": 0,
/// });
/// let done = gradtape_gradbench::evals::gmm::evaluate("objective", input).unwrap();
/// let expected = -0.5 * (2.0 * std::f64::consts::PI).ln() - 2f64.ln() - 0.5;
/// assert!((done.output.as_f64().unwrap() - expected).abs() < 1e-12);
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let (p, runs) = Parameters::new(parse("gmm", input)?)?;
    match function {
        "objective" => {
            Ok(runs.evaluate(|| objective(&p.alpha, &p.mu, &p.q, &p.l, &p.problem).to_scalar()))
        }
        "jacobian" => Ok(runs.evaluate(|| {
            let (_, pullback) = objective::vjp(&p.alpha, &p.mu, &p.q, &p.l, &p.problem);
            let (alpha, mu, q, l, ()) = pullback(Tensor::scalar(1.0));
            let expect = "the parameters are differentiable, so the adjoint gives their cotangents";
            let l = l.expect(expect);
            Gradient {
                alpha: alpha.expect(expect).to_vec(),
                mu: rows(&mu.expect(expect)),
                q: rows(&q.expect(expect)),
                // d = 1: k empty rows
                l: if p.problem.d == 1 {
                    vec![Vec::new(); p.problem.k]
                } else {
                    rows(&l)
                },
            }
        })),
        _ => Err(Failure::UnknownFunction {
            module: "gmm",
            function: function.to_owned(),
            known: "`objective` and `jacobian`",
        }),
    }
}
