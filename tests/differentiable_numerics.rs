//! `#[differentiable]` on ordinary numerical code as people write it (issue 13, the bug
//! hunt): quadrature, root finding, recurrences, filters, losses, integrators and
//! reductions, annotated as written (nothing rewritten to please the macro). Each function
//! is checked through its faces (`f`, `f::primal`, `f::grad`, `f::grad_into` where it
//! exists, `f::jvp`) against each other, against central differences of `f::primal`, and at
//! second order as scalar mode has it (rows of the Hessian by differences of `grad` against
//! second differences of the value; `d/dx jvp` likewise): `common::faces::Case`.
//!
//! Points are chosen away from kinks and branch switches (a branch taken is part of the
//! computation; differences across a switch would measure the jump, not the derivative).
//! The bisection is the exception on purpose: its gradient is that of the computation as
//! written (zero: the root is built from constants by comparisons), not the implicit
//! function theorem's, and the test says so.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::{Case, point};
use gradtape::differentiable;
use num_traits::Float;

// ----- 1. quadrature -----

/// Composite Simpson's rule for ∫ₐᵇ sin(kx) e^{-x} dx over `N` panels, an index loop with
/// the 4-2-4 weights chosen by parity.
#[differentiable]
fn simpson(a: f64, b: f64, k: f64) -> f64 {
    const N: usize = 10;
    let h = (b - a) / N as f64;
    let mut sum = (k * a).sin() * (-a).exp() + (k * b).sin() * (-b).exp();
    for i in 1..N {
        let x = a + i as f64 * h;
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * (k * x).sin() * (-x).exp();
    }
    sum * h / 3.0
}

const GL_NODES: [f64; 3] = [-0.774_596_669_241_483_4, 0.0, 0.774_596_669_241_483_4];
const GL_WEIGHTS: [f64; 3] = [5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0];

/// Three-point Gauss-Legendre on [a, b] of e^{kx} / (1 + c x²): the nodes mapped from
/// [-1, 1] by a closure, zipped with the weights, both `const` tables.
///
/// Regression: a chain rooted at a `const` item was rejected ("`sum` is not a
/// differentiable method known"): the macro did not know `GL_NODES` for an array.
#[differentiable]
fn gauss_legendre(a: f64, b: f64, k: f64, c: f64) -> f64 {
    let half = 0.5 * (b - a);
    let mid = 0.5 * (a + b);
    let f = |x: f64| (k * x).exp() / (1.0 + c * x * x);
    GL_NODES
        .iter()
        .zip(GL_WEIGHTS.iter())
        .map(|(&t, &w)| w * f(mid + half * t))
        .sum::<f64>()
        * half
}

/// The same rule by an index loop over the tables (the form that always worked).
#[differentiable]
fn gauss_legendre_indexed(a: f64, b: f64, k: f64, c: f64) -> f64 {
    let half = 0.5 * (b - a);
    let mid = 0.5 * (a + b);
    let f = |x: f64| (k * x).exp() / (1.0 + c * x * x);
    let mut total = 0.0;
    for i in 0..3 {
        total += GL_WEIGHTS[i] * f(mid + half * GL_NODES[i]);
    }
    total * half
}

const ROWS: [[f64; 2]; 4] = [[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8], [2.0, 1.0]];
static LABELS: [f64; 4] = [1.0, 0.0, 1.0, 0.0];

/// Logistic regression over a `const` table of rows and a `static` table of labels, by a
/// `for` loop over the zipped items (a form that worked before the tables' reductions did,
/// kept to guard that the tables' new reading leaves it as it was).
#[differentiable]
fn logistic_loss_on_tables(w: &[f64]) -> f64 {
    let mut total = 0.0;
    for (row, &y) in ROWS.iter().zip(LABELS.iter()) {
        let z = w[0] + w[1] * row[0] + w[2] * row[1];
        let p = 1.0 / (1.0 + (-z).exp());
        total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    total / ROWS.len() as f64
}

// ----- 2. root finding -----

/// Newton's method for the root of x³ + p x - q, with a tolerance loop and an early
/// return on convergence.
#[differentiable]
fn newton_cubic(p: f64, q: f64) -> f64 {
    let mut x = 1.0;
    let mut iterations = 0;
    while iterations < 50 {
        let fx = x * x * x + p * x - q;
        if fx.abs() < 1e-14 {
            return x;
        }
        let dfx = 3.0 * x * x + p;
        x -= fx / dfx;
        iterations += 1;
    }
    x
}

/// Bisection for the root of x³ + p x - 1 on [0, 2]: the root as a function of `p`, built
/// only from constants by comparisons.
#[differentiable]
fn bisection(p: f64) -> f64 {
    let mut lo = 0.0;
    let mut hi = 2.0;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * mid + p * mid - 1.0 > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

// ----- 3. losses over slices -----

/// A numerically stable log-sum-exp: the maximum by a fold, then the shifted sum.
#[differentiable]
fn logsumexp(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    m + s.ln()
}

/// Softmax cross-entropy of `logits` against the class `target`, stable, with an early
/// return for an out-of-range target.
#[differentiable]
fn softmax_cross_entropy(logits: &[f64], target: usize) -> f64 {
    if target >= logits.len() {
        return 0.0;
    }
    let mut m = logits[0];
    for &z in &logits[1..] {
        if z > m {
            m = z;
        }
    }
    let mut total = 0.0;
    for &z in logits {
        total += (z - m).exp();
    }
    m + total.ln() - logits[target]
}

/// The Huber loss summed over residuals, by `match` on the size of each.
#[differentiable]
fn huber(r: &[f64], delta: f64) -> f64 {
    let mut loss = 0.0;
    for &v in r.iter() {
        let a = v.abs();
        loss += match a <= delta {
            true => 0.5 * v * v,
            false => delta * (a - 0.5 * delta),
        };
    }
    loss
}

/// Logistic regression: the mean negative log-likelihood of rows of three features
/// (`w[0]` the bias) against 0/1 labels.
#[differentiable]
fn logistic_loss(w: &[f64], rows: &[[f64; 2]], labels: &[f64]) -> f64 {
    let mut total = 0.0;
    for (row, &y) in rows.iter().zip(labels) {
        let z = w[0] + w[1] * row[0] + w[2] * row[1];
        let p = 1.0 / (1.0 + (-z).exp());
        total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    total / rows.len() as f64
}

/// The residual sum of squares of a polynomial fit, each value by Horner's rule.
#[differentiable]
fn polyfit_residual(coef: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mut rss = 0.0;
    for i in 0..xs.len() {
        let mut p = 0.0;
        for c in coef.iter().rev() {
            p = p * xs[i] + c;
        }
        let r = p - ys[i];
        rss += r * r;
    }
    rss
}

// ----- 4. recurrences -----

/// Horner's rule by a fold over the reversed coefficients.
#[differentiable]
fn horner(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

/// Clenshaw's recurrence for a Chebyshev series Σ cₖ Tₖ(x).
#[differentiable]
fn clenshaw(c: &[f64], x: f64) -> f64 {
    let n = c.len();
    let mut b1 = 0.0;
    let mut b2 = 0.0;
    for k in (1..n).rev() {
        let b0 = 2.0 * x * b1 - b2 + c[k];
        b2 = b1;
        b1 = b0;
    }
    x * b1 - b2 + c[0]
}

/// Welford's running mean and variance (the sample variance at the end).
#[differentiable]
fn welford_variance(x: &[f64]) -> f64 {
    let mut n = 0.0;
    let mut mean = 0.0;
    let mut m2 = 0.0;
    for &v in x {
        n += 1.0;
        let delta = v - mean;
        mean += delta / n;
        m2 += delta * (v - mean);
    }
    if n < 2.0 { 0.0 } else { m2 / (n - 1.0) }
}

/// Squares of a simple moving average over windows of `w`.
#[differentiable]
fn moving_average_energy(x: &[f64], w: usize) -> f64 {
    x.windows(w)
        .map(|s| s.iter().sum::<f64>() / w as f64)
        .map(|m| m * m)
        .sum()
}

/// An exponential moving average, the last value.
#[differentiable]
fn ema(x: &[f64], alpha: f64) -> f64 {
    let mut s = x[0];
    for v in x.iter().skip(1) {
        s = alpha * v + (1.0 - alpha) * s;
    }
    s
}

// ----- 5. interpolation -----

/// A cubic Hermite spline through knots `xs` (constant) with values `ys` and slopes `ms`,
/// at `t`: the interval found by binary search.
#[differentiable]
fn hermite(xs: &[f64], ys: &[f64], ms: &[f64], t: f64) -> f64 {
    let mut lo = 0;
    let mut hi = xs.len() - 1;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if xs[mid] <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let h = xs[hi] - xs[lo];
    let s = (t - xs[lo]) / h;
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    h00 * ys[lo] + h10 * h * ms[lo] + h01 * ys[hi] + h11 * h * ms[hi]
}

// ----- 6. small fixed matrices -----

/// One step of a constant-velocity Kalman filter (state position and velocity, position
/// measured): predict, update, the updated position plus the trace of the covariance.
#[differentiable]
fn kalman_step(p: [[f64; 2]; 2], x: [f64; 2], z: f64, q: f64, r: f64) -> f64 {
    let dt = 0.1;
    let f = [[1.0, dt], [0.0, 1.0]];
    // predict: x = F x, P = F P Fᵀ + q I
    let xp = [
        f[0][0] * x[0] + f[0][1] * x[1],
        f[1][0] * x[0] + f[1][1] * x[1],
    ];
    let mut fp = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                fp[i][j] += f[i][k] * p[k][j];
            }
        }
    }
    let mut pp = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                pp[i][j] += fp[i][k] * f[j][k];
            }
        }
        pp[i][i] += q;
    }
    // update with H = [1, 0]
    let s = pp[0][0] + r;
    let gain = [pp[0][0] / s, pp[1][0] / s];
    let innovation = z - xp[0];
    let xn = [xp[0] + gain[0] * innovation, xp[1] + gain[1] * innovation];
    let mut pn = pp;
    for i in 0..2 {
        for j in 0..2 {
            pn[i][j] = pp[i][j] - gain[i] * pp[0][j];
        }
    }
    xn[0] + 0.5 * xn[1] + pn[0][0] + pn[1][1]
}

/// Gauss-Seidel sweeps on a diagonally dominant 3x3 system, then a weighted sum of the
/// solution.
#[differentiable]
fn gauss_seidel(a: [[f64; 3]; 3], b: [f64; 3]) -> f64 {
    let mut x = [0.0; 3];
    for _sweep in 0..25 {
        for i in 0..3 {
            let mut sigma = 0.0;
            for j in 0..3 {
                if j != i {
                    sigma += a[i][j] * x[j];
                }
            }
            x[i] = (b[i] - sigma) / a[i][i];
        }
    }
    x[0] + 2.0 * x[1] - x[2]
}

// ----- 7. integrators -----

/// A damped spring's parameters; `simulate` integrates it by semi-implicit Euler.
///
/// (With the state in a local struct, `let mut s = State { x: x0, v: v0 }; s.v += ..`,
/// it is rejected: "this expression cannot be differentiated" on the struct literal,
/// "fields of differentiable values are not differentiated" on `s.x`.)
struct Spring {
    stiffness: f64,
    damping: f64,
}

#[differentiable]
impl Spring {
    #[differentiable]
    fn simulate(&self, x0: f64, v0: f64) -> f64 {
        let (mut x, mut v) = (x0, v0);
        let dt = 0.05;
        for _ in 0..40 {
            let a = -self.stiffness * x - self.damping * v;
            v += dt * a;
            x += dt * v;
        }
        x * x + 0.5 * v * v
    }
}

/// One Runge-Kutta-Fehlberg 4(5) step of y' = -k y + sin(t y) from t = 0: the fifth-order
/// value plus its error estimate against the fourth-order one.
#[differentiable]
fn rkf45_step(y: f64, h: f64, k: f64) -> f64 {
    let f = |t: f64, y: f64| -k * y + (t * y).sin();
    let k1 = h * f(0.0, y);
    let k2 = h * f(h / 4.0, y + k1 / 4.0);
    let k3 = h * f(3.0 * h / 8.0, y + 3.0 * k1 / 32.0 + 9.0 * k2 / 32.0);
    let k4 = h * f(
        12.0 * h / 13.0,
        y + 1932.0 * k1 / 2197.0 - 7200.0 * k2 / 2197.0 + 7296.0 * k3 / 2197.0,
    );
    let k5 = h * f(
        h,
        y + 439.0 * k1 / 216.0 - 8.0 * k2 + 3680.0 * k3 / 513.0 - 845.0 * k4 / 4104.0,
    );
    let k6 = h * f(
        h / 2.0,
        y - 8.0 * k1 / 27.0 + 2.0 * k2 - 3544.0 * k3 / 2565.0 + 1859.0 * k4 / 4104.0
            - 11.0 * k5 / 40.0,
    );
    let y4 = y + 25.0 * k1 / 216.0 + 1408.0 * k3 / 2565.0 + 2197.0 * k4 / 4104.0 - k5 / 5.0;
    let y5 = y + 16.0 * k1 / 135.0 + 6656.0 * k3 / 12825.0 + 28561.0 * k4 / 56430.0
        - 9.0 * k5 / 50.0
        + 2.0 * k6 / 55.0;
    let error = (y5 - y4).abs();
    y5 + error
}

// ----- 8. piecewise functions and reductions -----

/// `clamp` and `abs` (the points stay away from the kinks).
#[differentiable]
fn piecewise(x: f64, y: f64) -> f64 {
    let c = (x * y).clamp(-1.0, 1.0);
    let d = (x - 2.0 * y).abs();
    c * d + (x + y).clamp(0.0, 10.0).sqrt()
}

/// The sum of the largest and twice the second largest, without sorting.
#[differentiable]
fn top_two(x: &[f64]) -> f64 {
    let mut first = f64::NEG_INFINITY;
    let mut second = f64::NEG_INFINITY;
    for &v in x {
        if v > first {
            second = first;
            first = v;
        } else if v > second {
            second = v;
        }
    }
    first + 2.0 * second
}

/// The Euclidean norm by a `hypot` fold (no overflow for large entries).
#[differentiable]
fn hypot_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |acc: f64, &v| acc.hypot(v))
}

/// The spread (max - min) and the largest absolute value, by folds with `f64::max` and
/// `f64::min`.
#[differentiable]
fn spread(x: &[f64]) -> f64 {
    let hi = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lo = x.iter().cloned().fold(f64::INFINITY, f64::min);
    let big = x.iter().map(|v| v.abs()).fold(0.0, f64::max);
    (hi - lo) * big
}

/// The log of the entry at an optional index, by `if let`.
///
/// (Found in the body by `x.iter().position(..)` or `.find(..)`, it is rejected:
/// "`position` is not a differentiable method known to #[differentiable]".)
#[differentiable]
fn log_at(x: &[f64], at: Option<usize>) -> f64 {
    if let Some(i) = at {
        x[i].ln() * x[0]
    } else {
        x[0]
    }
}

/// The log of the first positive entry, found by an index loop with a `break` (the form
/// to use where `position`/`find` are rejected).
#[differentiable]
fn log_first_positive(x: &[f64]) -> f64 {
    let mut found = x.len();
    for i in 0..x.len() {
        if x[i] > 0.0 {
            found = i;
            break;
        }
    }
    if found < x.len() {
        x[found].ln() * x[0]
    } else {
        0.0
    }
}

/// A loop with a break value: Newton's iterate for √a once within tolerance.
#[differentiable]
fn loop_break_value(a: f64) -> f64 {
    let mut x = a;
    let mut n = 0;
    let r = loop {
        let next = 0.5 * (x + a / x);
        n += 1;
        if (next - x).abs() < 1e-13 || n > 60 {
            break next;
        }
        x = next;
    };
    r * r.ln()
}

/// A Legendre series, each polynomial by `match` on the degree.
#[differentiable]
fn legendre_sum(c: &[f64], x: f64) -> f64 {
    let mut total = 0.0;
    for (k, ck) in c.iter().enumerate() {
        let p = match k {
            0 => 1.0,
            1 => x,
            2 => 0.5 * (3.0 * x * x - 1.0),
            _ => 0.5 * (5.0 * x.powi(3) - 3.0 * x),
        };
        total += ck * p;
    }
    total
}

/// Points stored flat as (x, y) pairs, by `chunks_exact(2)`: the summed squared distance
/// to (c, c). A trailing odd element is no point and is not read.
///
/// Regression: `chunks_exact` was rejected ("a `for` loop cannot iterate over a
/// differentiable value"); it is now a loop over whole chunks, like `chunks`.
#[differentiable]
fn chunk_points(xy: &[f64], c: f64) -> f64 {
    let mut total = 0.0;
    for p in xy.chunks_exact(2) {
        total += (p[0] - c).powi(2) + (p[1] - c).powi(2);
    }
    total
}

// ----- 9. generic and single precision -----

/// The smooth-L1 ("soft plus" of |x|) loss, generic over the float type.
#[differentiable]
fn softplus_sum<T: Float>(x: T, y: T, beta: T) -> T {
    let one = T::one();
    let sp = |v: T| (one + (beta * v).exp()).ln() / beta;
    sp(x) + sp(y - x) * sp(y)
}

/// GELU by its tanh approximation, in `f32`.
#[differentiable]
fn gelu32(x: f32, s: f32) -> f32 {
    let c = (2.0 / std::f32::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh()) * s
}

// ----- the checks -----

#[test]
fn quadrature() {
    numbers!(simpson(0, 1, 2)).check_with_second_order(&[0.2, 1.7, 1.3]);
    numbers!(gauss_legendre(0, 1, 2, 3)).check_with_second_order(&[-0.4, 1.1, 0.7, 0.3]);
    numbers!(gauss_legendre_indexed(0, 1, 2, 3)).check_with_second_order(&[-0.4, 1.1, 0.7, 0.3]);
    let (value, gradient) = gauss_legendre::grad(-0.4, 1.1, 0.7, 0.3);
    let (indexed, by_index) = gauss_legendre_indexed::grad(-0.4, 1.1, 0.7, 0.3);
    assert_eq!((value, gradient), (indexed, by_index));
    // Simpson's rule is exact for cubics' integrals up to its error: against the closed
    // form of ∫ sin(kx) e^{-x} dx at a fine grid (here only 10 panels: within 1e-4).
    let exact = |a: f64, b: f64, k: f64| {
        let g = |x: f64| -(-x).exp() * ((x * k).sin() + k * (k * x).cos()) / (1.0 + k * k);
        g(b) - g(a)
    };
    assert!((simpson(0.2, 1.7, 1.3) - exact(0.2, 1.7, 1.3)).abs() < 1e-4);
}

#[test]
fn root_finding() {
    numbers!(newton_cubic(0, 1)).check_with_second_order(&[1.5, 2.0]);
    // at convergence the derivative of Newton's iterate is the implicit function
    // theorem's: dx/dq = 1 / (3x² + p), dx/dp = -x / (3x² + p)
    let (x, [dp, dq]) = newton_cubic::grad(1.5, 2.0);
    let slope = 3.0 * x * x + 1.5;
    assert!((dq - 1.0 / slope).abs() < 1e-12, "{dq}");
    assert!((dp + x / slope).abs() < 1e-12, "{dp}");
}

/// Bisection builds its root from the constants 0 and 2 by halving, choosing the half by
/// a comparison: as written, the root does not depend on `p` through any arithmetic, so
/// its derivative is zero almost everywhere (a step function with steps of 2⁻⁶⁰). That
/// is what AD of the computation gives, and rightly: it is not the implicit function
/// theorem's -x / (3x² + p), which central differences (across many tiny steps) see.
#[test]
fn bisection_differentiates_the_computation_as_written() {
    let p = 0.7;
    let (root, [dp]) = bisection::grad(p);
    assert_eq!(root.to_bits(), bisection(p).to_bits());
    assert_eq!(dp, 0.0);
    assert_eq!(bisection::jvp(p, 1.0), (root, 0.0));
    // the computed root is the root (to the bisection's resolution), and the implicit
    // derivative differs: the zero above is not an accident of a lost dependency
    assert!((root * root * root + p * root - 1.0).abs() < 1e-12);
    let implicit = -root / (3.0 * root * root + p);
    assert!(implicit.abs() > 0.1, "{implicit}");
}

#[test]
fn losses_over_slices() {
    slices!(@second_order logsumexp, [5], [0], point(5, 1, -2.0, 2.0));
    slice_and_constant!(@second_order softmax_cross_entropy, 2, point(4, 2, -2.0, 2.0));
    slice_and_constant!(@second_order softmax_cross_entropy, 7, point(4, 2, -2.0, 2.0));
    // residuals on both sides of delta = 1, away from ±1
    let r = vec![0.3, -0.6, 1.7, -2.4, 0.05];
    slice_and_float!(@second_order huber, [r, vec![1.0]].concat());
    let rows = [[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8], [2.0, 1.0]];
    let labels = [1.0, 0.0, 1.0, 0.0];
    Case {
        name: "logistic_loss",
        itself: &|x| logistic_loss(x, &rows, &labels),
        primal: &|x| logistic_loss::primal(x, &rows, &labels),
        grad: Some(&|x| {
            let (v, (g, _, _)) = logistic_loss::grad(x, &rows, &labels);
            (v, g)
        }),
        grad_into: &|x| {
            let (mut g, mut drows, mut dlabels) = (vec![0.0; x.len()], [[0.0; 2]; 4], [0.0; 4]);
            let v = logistic_loss::grad_into(x, &rows, &labels, &mut g, &mut drows, &mut dlabels);
            (v, g)
        },
        jvp: &|x, t| logistic_loss::jvp(x, &rows, &labels, t, &[[0.0; 2]; 4], &[0.0; 4]),
    }
    .check_with_second_order(&[0.1, -0.4, 0.7]);
    slices!(@second_order logistic_loss_on_tables, [3], [0], vec![0.1, -0.4, 0.7]);
    // the same loss as with the tables passed in
    let (on_tables, g) = logistic_loss_on_tables::grad(&[0.1, -0.4, 0.7]);
    let (passed, (h, _, _)) = logistic_loss::grad(&[0.1, -0.4, 0.7], &ROWS, &LABELS);
    assert_eq!((on_tables, &g[0]), (passed, &h));
    slices!(@second_order polyfit_residual, [3, 4, 4], [0, 1, 2], point(11, 3, -1.0, 1.0));
}

#[test]
fn recurrences() {
    slice_and_float!(@second_order horner, [point(5, 4, -1.0, 1.0), vec![0.6]].concat());
    slice_and_float!(@second_order clenshaw, [point(6, 5, -1.0, 1.0), vec![0.3]].concat());
    // Clenshaw against the series summed directly: Σ cₖ cos(k acos x)
    let c = [0.5, -0.25, 1.0, 0.125];
    let direct: f64 = c
        .iter()
        .enumerate()
        .map(|(k, ck)| ck * (k as f64 * 0.3_f64.acos()).cos())
        .sum();
    assert!((clenshaw(&c, 0.3) - direct).abs() < 1e-14);
    slices!(@second_order welford_variance, [6], [0], point(6, 6, -1.0, 2.0));
    // Welford against the two-pass sample variance
    let x = point(6, 6, -1.0, 2.0);
    let mean = x.iter().sum::<f64>() / 6.0;
    let two_pass = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 5.0;
    assert!((welford_variance(&x) - two_pass).abs() < 1e-14);
    slice_and_constant!(@second_order moving_average_energy, 3, point(7, 7, -1.0, 1.0));
    slice_and_float!(@second_order ema, [point(6, 8, -1.0, 1.0), vec![0.3]].concat());
}

#[test]
fn interpolation() {
    let knots = [0.0, 0.5, 1.25, 2.0, 3.0];
    let n = knots.len();
    for t in [0.3, 1.0, 1.7, 2.6] {
        Case {
            name: "hermite",
            itself: &|x| hermite(&knots, &x[..n], &x[n..2 * n], x[2 * n]),
            primal: &|x| hermite::primal(&knots, &x[..n], &x[n..2 * n], x[2 * n]),
            grad: Some(&|x| {
                let (v, (_, gy, gm, gt)) = hermite::grad(&knots, &x[..n], &x[n..2 * n], x[2 * n]);
                (v, [gy, gm, vec![gt]].concat())
            }),
            grad_into: &|x| {
                let (mut dk, mut dy, mut dm, mut dt) =
                    (vec![0.0; n], vec![0.0; n], vec![0.0; n], 0.0);
                let v = hermite::grad_into(
                    &knots,
                    &x[..n],
                    &x[n..2 * n],
                    x[2 * n],
                    &mut dk,
                    &mut dy,
                    &mut dm,
                    &mut dt,
                );
                (v, [dy, dm, vec![dt]].concat())
            },
            jvp: &|x, t| {
                hermite::jvp(
                    &knots,
                    &x[..n],
                    &x[n..2 * n],
                    x[2 * n],
                    &[0.0; 5],
                    &t[..n],
                    &t[n..2 * n],
                    t[2 * n],
                )
            },
        }
        .check_with_second_order(&[point(2 * n, 9, -1.0, 1.0), vec![t]].concat());
    }
}

#[test]
fn small_fixed_matrices() {
    let m2 = |x: &[f64]| [[x[0], x[1]], [x[2], x[3]]];
    Case {
        name: "kalman_step",
        itself: &|x| kalman_step(m2(x), [x[4], x[5]], x[6], x[7], x[8]),
        primal: &|x| kalman_step::primal(m2(x), [x[4], x[5]], x[6], x[7], x[8]),
        grad: Some(&|x| {
            let (v, (gp, gx, gz, gq, gr)) =
                kalman_step::grad(m2(x), [x[4], x[5]], x[6], x[7], x[8]);
            (v, [gp.concat(), gx.to_vec(), vec![gz, gq, gr]].concat())
        }),
        grad_into: &|x| {
            let (mut dp, mut dx, mut dz, mut dq, mut dr) = ([[0.0; 2]; 2], [0.0; 2], 0.0, 0.0, 0.0);
            let v = kalman_step::grad_into(
                m2(x),
                [x[4], x[5]],
                x[6],
                x[7],
                x[8],
                &mut dp,
                &mut dx,
                &mut dz,
                &mut dq,
                &mut dr,
            );
            (v, [dp.concat(), dx.to_vec(), vec![dz, dq, dr]].concat())
        },
        jvp: &|x, t| {
            kalman_step::jvp(
                m2(x),
                [x[4], x[5]],
                x[6],
                x[7],
                x[8],
                &m2(t),
                &[t[4], t[5]],
                t[6],
                t[7],
                t[8],
            )
        },
    }
    .check_with_second_order(&[1.0, 0.2, 0.2, 0.5, 0.3, -0.1, 0.6, 0.05, 0.4]);
    let m3 = |x: &[f64]| [[x[0], x[1], x[2]], [x[3], x[4], x[5]], [x[6], x[7], x[8]]];
    let b3 = |x: &[f64]| [x[9], x[10], x[11]];
    Case {
        name: "gauss_seidel",
        itself: &|x| gauss_seidel(m3(x), b3(x)),
        primal: &|x| gauss_seidel::primal(m3(x), b3(x)),
        grad: Some(&|x| {
            let (v, (ga, gb)) = gauss_seidel::grad(m3(x), b3(x));
            (v, [ga.concat(), gb.to_vec()].concat())
        }),
        grad_into: &|x| {
            let (mut da, mut db) = ([[0.0; 3]; 3], [0.0; 3]);
            let v = gauss_seidel::grad_into(m3(x), b3(x), &mut da, &mut db);
            (v, [da.concat(), db.to_vec()].concat())
        },
        jvp: &|x, t| gauss_seidel::jvp(m3(x), b3(x), &m3(t), &b3(t)),
    }
    .check_with_second_order(&[
        4.0, 1.0, -0.5, 0.5, 5.0, 1.0, -1.0, 0.5, 3.0, 1.0, -2.0, 0.5,
    ]);
}

#[test]
fn integrators() {
    let spring = Spring {
        stiffness: 3.0,
        damping: 0.4,
    };
    Case {
        name: "Spring::simulate",
        itself: &|x| spring.simulate(x[0], x[1]),
        primal: &|x| spring.simulate(x[0], x[1]),
        grad: Some(&|x| {
            let (v, g) = spring.simulate_grad(x[0], x[1]);
            (v, g.to_vec())
        }),
        grad_into: &|x| {
            let (v, g) = spring.simulate_grad(x[0], x[1]);
            (v, g.to_vec())
        },
        jvp: &|x, t| spring.simulate_jvp(x[0], x[1], t[0], t[1]),
    }
    .check_with_second_order(&[0.8, -0.3]);
    numbers!(rkf45_step(0, 1, 2)).check_with_second_order(&[0.9, 0.2, 1.5]);
}

#[test]
fn piecewise_and_reductions() {
    // inside the clamps' ranges, and with x y clamped (derivative of that factor zero)
    numbers!(piecewise(0, 1)).check_with_second_order(&[0.7, 0.4]);
    numbers!(piecewise(0, 1)).check_with_second_order(&[2.5, 1.5]);
    numbers!(piecewise(0, 1)).check_with_second_order(&[-0.6, 0.9]);
    slices!(@second_order top_two, [5], [0], vec![0.3, 1.2, -0.5, 0.9, 0.1]);
    slices!(@second_order top_two, [4], [0], vec![1.5, 0.2, 0.4, -0.5]);
    slices!(@second_order hypot_norm, [4], [0], point(4, 10, -2.0, 2.0));
    // the fold over `hypot` at entries whose squares overflow: still the norm
    assert!((hypot_norm(&[3e200, 4e200]) - 5e200).abs() < 1e186);
    slices!(@second_order spread, [5], [0], vec![0.3, -1.2, 0.5, 0.9, 0.1]);
    slice_and_constant!(@second_order log_at, Some(2), vec![-0.3, -1.2, 0.5, 0.9]);
    slice_and_constant!(@second_order log_at, Some(0), vec![0.7, -1.2, 0.5]);
    slice_and_constant!(@second_order log_at, None, vec![0.7, -1.2, 0.5]);
    slices!(@second_order log_first_positive, [4], [0], vec![-0.3, -1.2, 0.5, 0.9]);
    slices!(@second_order log_first_positive, [3], [0], vec![0.7, -1.2, 0.5]);
    assert_eq!(
        log_first_positive::grad(&[-1.0, -2.0]),
        (0.0, [vec![0.0, 0.0]])
    );
}

#[test]
fn loops_matches_and_chunks() {
    numbers!(loop_break_value(0)).check_with_second_order(&[2.5]);
    let (value, [g]) = loop_break_value::grad(2.5);
    // r = √a: d/da (r ln r) = (ln r + 1) / (2 √a)
    let r = 2.5_f64.sqrt();
    assert!((value - r * r.ln()).abs() < 1e-14);
    assert!((g - (r.ln() + 1.0) / (2.0 * r)).abs() < 1e-12, "{g}");
    slice_and_float!(@second_order legendre_sum, [point(5, 12, -1.0, 1.0), vec![0.4]].concat());
    slice_and_float!(@second_order chunk_points, [point(6, 13, -1.0, 1.0), vec![0.2]].concat());
    // odd length: the last element is not read, its derivative zero
    let x = point(5, 14, -1.0, 1.0);
    let (value, (g, dc)) = chunk_points::grad(&x, 0.2);
    let by_hand: f64 = (0..4).map(|k| (x[k] - 0.2).powi(2)).sum();
    assert!((value - by_hand).abs() < 1e-14);
    assert_eq!(g[4], 0.0);
    let dc_by_hand: f64 = (0..4).map(|k| -2.0 * (x[k] - 0.2)).sum();
    assert!((dc - dc_by_hand).abs() < 1e-12);
    slice_and_float!(@second_order chunk_points, [x, vec![0.2]].concat());
}

#[test]
fn generic_and_single_precision() {
    numbers!(softplus_sum(0, 1, 2)).check_with_second_order(&[0.3, 0.8, 1.7]);
    // f32: against central differences in f64 of the same formula
    let (x, s) = (0.7_f32, 1.3_f32);
    let (value, [dx, ds]) = gelu32::grad(x, s);
    assert_eq!(value.to_bits(), gelu32(x, s).to_bits());
    let gelu = |x: f64, s: f64| {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh()) * s
    };
    let h = 1e-6;
    let (x64, s64) = (f64::from(x), f64::from(s));
    let ex = (gelu(x64 + h, s64) - gelu(x64 - h, s64)) / (2.0 * h);
    let es = (gelu(x64, s64 + h) - gelu(x64, s64 - h)) / (2.0 * h);
    assert!((f64::from(dx) - ex).abs() < 1e-5, "{dx} vs {ex}");
    assert!((f64::from(ds) - es).abs() < 1e-5, "{ds} vs {es}");
    let (by_jvp, tangent) = gelu32::jvp(x, s, 0.5, -0.25);
    assert_eq!(by_jvp.to_bits(), value.to_bits());
    assert!((tangent - (0.5 * dx - 0.25 * ds)).abs() < 1e-6);
    // order 2 by differences of `grad` (f32 steps: loose)
    let hs = 1e-2_f32;
    let d2 = (gelu32::grad(x + hs, s).1[0] - gelu32::grad(x - hs, s).1[0]) / (2.0 * hs);
    let e2 = (gelu(x64 + 1e-4, s64) - 2.0 * gelu(x64, s64) + gelu(x64 - 1e-4, s64)) / 1e-8;
    assert!((f64::from(d2) - e2).abs() < 1e-3, "{d2} vs {e2}");
}

// ----- regressions -----

/// Regression: a chain of two `map`s before a reduction was rejected ("`sum` is not a
/// differentiable method known"), over windows (`moving_average_energy`) and over an
/// array alike; the maps are now fused into one before the iterator forms are read.
#[differentiable]
fn chained_maps(x: &[f64], k: f64) -> f64 {
    let scaled: f64 = x
        .iter()
        .map(|v| v * k)
        .map(|u| u.sin())
        .map(|s| s * s)
        .sum();
    let windowed = x
        .windows(2)
        .map(|w| w[0] * w[1])
        .map(|p: f64| p.exp())
        .sum::<f64>();
    scaled + windowed
}

#[test]
fn chained_maps_are_fused() {
    slice_and_float!(@second_order chained_maps, [point(5, 11, -1.0, 1.0), vec![0.8]].concat());
    // by hand at x = [1, 2], k = 0.5: sin²(0.5) + sin²(1) + e²
    let (value, (g, dk)) = chained_maps::grad(&[1.0, 2.0], 0.5);
    let expected = 0.5_f64.sin().powi(2) + 1.0_f64.sin().powi(2) + 2.0_f64.exp();
    assert!((value - expected).abs() < 1e-14, "{value} vs {expected}");
    // d/dx0 = k sin(2 k x0) + x1 e^{x0 x1}, d/dk = x0 sin(2 k x0) + x1 sin(2 k x1)
    let dx0 = 0.5 * 1.0_f64.sin() + 2.0 * 2.0_f64.exp();
    assert!((g[0] - dx0).abs() < 1e-12, "{} vs {dx0}", g[0]);
    let dk_expected = 1.0_f64.sin() + 2.0 * 2.0_f64.sin();
    assert!((dk - dk_expected).abs() < 1e-12, "{dk} vs {dk_expected}");
}

// A differentiable parameter named as a `const` would be (`W`, as ML code writes weight
// matrices): the iterator rewrite takes `SCREAMING_CASE` names it does not know for
// constant tables, so a parameter of that name must still be a differentiable array.
mod capitals {
    // (for the generated items too, which take the parameter's name)
    #![allow(non_snake_case)]
    use super::*;

    #[differentiable]
    pub fn weights_in_capitals(W: &[f64], x: f64) -> f64 {
        W.iter()
            .zip(GL_WEIGHTS.iter())
            .map(|(w, c)| (w * x).sin() * c)
            .sum::<f64>()
    }
}
use capitals::weights_in_capitals;

#[test]
fn a_parameter_named_in_capitals_keeps_its_gradient() {
    slice_and_float!(@second_order weights_in_capitals, vec![0.3, -0.7, 1.1, 0.9]);
    // by hand: d/dW_k = x cos(W_k x) c_k, d/dx = Σ W_k cos(W_k x) c_k
    let w = [0.3, -0.7, 1.1];
    let (_, (g, dx)) = weights_in_capitals::grad(&w, 0.9);
    let mut dx_expected = 0.0;
    for k in 0..3 {
        let c = GL_WEIGHTS[k];
        let expected = 0.9 * (w[k] * 0.9).cos() * c;
        assert!(
            (g[k] - expected).abs() < 1e-14,
            "dW{k}: {} vs {expected}",
            g[k]
        );
        dx_expected += w[k] * (w[k] * 0.9).cos() * c;
    }
    assert!((dx - dx_expected).abs() < 1e-14, "{dx} vs {dx_expected}");
}
