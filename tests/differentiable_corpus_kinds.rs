//! The corpus of issue 13, continued: annotated tensor functions of the kinds users write
//! (integrators, quadrature, statistics, geometry, finance, losses, small models), added
//! where the per-bullet recount (`docs/CORPUS.md`) found fewer than ten functions checked
//! against both oracles: patterns and aggregates, arrays and vectors, generic code,
//! structs and methods, and `mut` and constant parameters.
//!
//! Every function goes through `common::check_annotated`: its value and its derivatives
//! against the same body recorded op by op (`f::primal` on a tape) and against central
//! differences in f64, at orders one and two, and its forward mode (`f::jvp` under an
//! accumulator, also nested with a tape and with a second accumulator) against the
//! op-by-op accumulator. Each is checked on arrays and, where its body is elementwise, on
//! 0-d inputs too (the plain-number path), at points away from the kinks of any piecewise
//! function.

mod common;

use common::{Tolerance, check_annotated};
use gradtape::{Float, Tensor, differentiable};

// ----- the oracle -----

/// Checks `fused` (an annotated call) against `plain` (its `primal`) at each set of inputs.
fn check(name: &str, points: &[Vec<Tensor<f64>>], fused: common::Op<'_>, plain: common::Op<'_>) {
    for (k, inputs) in points.iter().enumerate() {
        if let Err(message) =
            check_annotated(name, inputs, fused, plain, Tolerance::F64, 17 + k as u64)
        {
            panic!("point {k}: {message}");
        }
    }
}

fn v(values: &[f64]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), &[values.len()])
}

fn s(value: f64) -> Tensor<f64> {
    Tensor::scalar(value)
}

// ----- 2. patterns and aggregates -----

/// Polar to Cartesian coordinates: a tuple result.
#[differentiable]
fn polar_to_cartesian(r: &Tensor<f64>, theta: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    (r * theta.cos(), r * theta.sin())
}

/// The energy per unit mass of a body on a circular-ish orbit, from polar coordinates:
/// another annotated function's tuple result destructured by `let`, a tuple `let` of
/// velocities.
#[differentiable]
fn orbit_energy(r: &Tensor<f64>, theta: &Tensor<f64>, omega: f64) -> Tensor<f64> {
    let (x, y) = polar_to_cartesian(r, theta);
    let (vx, vy) = (-&y * omega, &x * omega);
    let kinetic = (&vx * &vx + &vy * &vy) * 0.5;
    let potential = -(&x * &x + &y * &y).sqrt().recip();
    kinetic + potential
}

/// The mean and the (population) variance of a sample: a tuple result.
#[differentiable]
fn mean_and_variance(x: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    let n = x.len() as f64;
    let mean = x.sum() / n;
    let variance = (x - &mean).square().sum() / n;
    (mean, variance)
}

/// The squared error of standardised scores against targets: the statistics read by
/// `.0` and `.1` of a tuple held whole.
#[differentiable]
fn standardised_loss(x: &Tensor<f64>, target: &Tensor<f64>) -> Tensor<f64> {
    let stats = mean_and_variance(x);
    let z = (x - &stats.0) / (&stats.1 + 1e-3).sqrt();
    (z - target).square().mean()
}

/// Gauss–Legendre nodes and weights on [-1, 1], three points.
const NODES: [f64; 3] = [-0.774_596_669_241_483_4, 0.0, 0.774_596_669_241_483_4];
const WEIGHTS: [f64; 3] = [5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0];

/// `∫₀¹ sin(a t) e^{-b t} dt` by three-point Gauss–Legendre quadrature: `for (node,
/// weight) in` a zip of two constant arrays.
#[differentiable]
fn damped_sine_integral(a: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    let mut total = a * 0.0;
    for (node, weight) in NODES.iter().zip(WEIGHTS.iter()) {
        let t = 0.5 * (node + 1.0);
        total = total + (a * t).sin() * (-(b * t)).exp() * (0.5 * weight);
    }
    total
}

/// A smooth piecewise-linear regression (hinges at knots, softened by softplus), its
/// hinges given as `(knot, slope)` pairs: `for &(knot, slope) in`.
#[differentiable]
fn smooth_hinges(x: &Tensor<f64>, hinges: &[(f64, f64)], sharpness: f64) -> Tensor<f64> {
    let mut y = x * 0.1;
    for &(knot, slope) in hinges {
        y = y + ((x - knot) * sharpness).softplus() * (slope / sharpness);
    }
    y
}

/// Velocity Verlet for a spring `a = -k x`: the position, velocity and acceleration
/// carried together, a tuple `let` of `mut` names, updated in an order that reads the old
/// acceleration after the new position.
#[differentiable]
fn velocity_verlet(x0: &Tensor<f64>, v0: &Tensor<f64>, k: f64, dt: f64) -> Tensor<f64> {
    let (mut x, mut v) = (x0.clone(), v0.clone());
    let mut a = &x * -k;
    for _ in 0..20 {
        x = &x + &v * dt + &a * (0.5 * dt * dt);
        let a_next = &x * -k;
        v = &v + (&a + &a_next) * (0.5 * dt);
        a = a_next;
    }
    &x * &x * (0.5 * k) + &v * &v * 0.5
}

/// The Lotka–Volterra rates of prey and predators, a tuple of constants destructured.
#[differentiable]
fn predation_rates(
    prey: &Tensor<f64>,
    predators: &Tensor<f64>,
    params: (f64, f64, f64, f64),
) -> (Tensor<f64>, Tensor<f64>) {
    let (alpha, beta, gamma, delta) = params;
    let meetings = prey * predators;
    (
        prey * alpha - &meetings * beta,
        &meetings * delta - predators * gamma,
    )
}

/// Lotka–Volterra by Heun's method: each stage's tuple of rates destructured, two carried
/// populations.
#[differentiable]
fn lotka_volterra(prey0: &Tensor<f64>, predators0: &Tensor<f64>, dt: f64) -> Tensor<f64> {
    let params = (1.1, 0.4, 0.4, 0.1);
    let mut prey = prey0.clone();
    let mut predators = predators0.clone();
    for _ in 0..12 {
        let (dp, dq) = predation_rates(&prey, &predators, params);
        let (p1, q1) = (&prey + &dp * dt, &predators + &dq * dt);
        let (dp1, dq1) = predation_rates(&p1, &q1, params);
        prey = &prey + (dp + dp1) * (0.5 * dt);
        predators = &predators + (dq + dq1) * (0.5 * dt);
    }
    prey + predators * 2.0
}

/// The intersection over union of intervals `[a_lo, a_hi]` and `[b_lo, b_hi]` (the 1-D
/// case of the box IoU loss): a nested tuple destructured.
#[differentiable]
fn interval_iou(
    a_lo: &Tensor<f64>,
    a_hi: &Tensor<f64>,
    b_lo: &Tensor<f64>,
    b_hi: &Tensor<f64>,
) -> Tensor<f64> {
    let ((lo, hi), (len_a, len_b)) = (
        (a_lo.maximum(b_lo), a_hi.minimum(b_hi)),
        (a_hi - a_lo, b_hi - b_lo),
    );
    let overlap = (hi - lo).relu();
    let union = len_a + len_b - &overlap;
    overlap / union
}

#[test]
fn patterns_and_aggregates() {
    check(
        "orbit_energy",
        &[
            vec![v(&[1.0, 1.5, 0.8]), v(&[0.3, -1.2, 2.0])],
            vec![s(1.2), s(0.4)],
        ],
        &|x| orbit_energy(&x[0], &x[1], 0.9),
        &|x| orbit_energy::primal(&x[0], &x[1], 0.9),
    );
    check(
        "standardised_loss",
        &[vec![v(&[0.3, -1.2, 2.0, 0.7]), v(&[0.1, -0.9, 1.2, 0.2])]],
        &|x| standardised_loss(&x[0], &x[1]),
        &|x| standardised_loss::primal(&x[0], &x[1]),
    );
    check(
        "damped_sine_integral",
        &[
            vec![v(&[1.0, 2.5, -0.7]), v(&[0.3, 1.1, 0.5])],
            vec![s(1.4), s(0.6)],
        ],
        &|x| damped_sine_integral(&x[0], &x[1]),
        &|x| damped_sine_integral::primal(&x[0], &x[1]),
    );
    let hinges = [(-0.5, 1.0), (0.2, -2.0), (0.9, 1.5)];
    check(
        "smooth_hinges",
        &[vec![v(&[-1.0, 0.1, 0.6, 1.4])], vec![s(0.3)]],
        &|x| smooth_hinges(&x[0], &hinges, 8.0),
        &|x| smooth_hinges::primal(&x[0], &hinges, 8.0),
    );
    check(
        "velocity_verlet",
        &[
            vec![v(&[1.0, -0.4, 0.2]), v(&[0.0, 0.3, -0.8])],
            vec![s(0.7), s(0.2)],
        ],
        &|x| velocity_verlet(&x[0], &x[1], 2.0, 0.05),
        &|x| velocity_verlet::primal(&x[0], &x[1], 2.0, 0.05),
    );
    check(
        "lotka_volterra",
        &[
            vec![v(&[10.0, 4.0, 6.0]), v(&[2.0, 3.0, 1.5])],
            vec![s(5.0), s(1.0)],
        ],
        &|x| lotka_volterra(&x[0], &x[1], 0.02),
        &|x| lotka_volterra::primal(&x[0], &x[1], 0.02),
    );
    // intervals that overlap partly, the maximum and minimum never tied
    check(
        "interval_iou",
        &[
            vec![
                v(&[0.0, 0.2]),
                v(&[1.0, 0.9]),
                v(&[0.4, -0.3]),
                v(&[1.5, 0.6]),
            ],
            vec![s(0.1), s(1.1), s(0.5), s(2.0)],
        ],
        &|x| interval_iou(&x[0], &x[1], &x[2], &x[3]),
        &|x| interval_iou::primal(&x[0], &x[1], &x[2], &x[3]),
    );
}

// ----- names an expression binds itself (regression, issue 13) -----
//
// Each reads a name spelled like the tensor parameter `x` that an inner `let`, a closure,
// a `match` arm, an `if let` or a `for` binds to a constant. The generated code used to
// take the inner name for the parameter (E0308 in the expansion: "expected
// `&Tensor<f64>`, found `&f64`").

/// A polynomial whose coefficients are doubled in an inner block naming them `x`.
#[differentiable]
fn shadow_in_block(x: &Tensor<f64>, cs: &[f64]) -> Tensor<f64> {
    let mut acc = x * 0.0;
    for item in cs.iter() {
        let c = {
            let x = item;
            *x * 2.0
        };
        acc = acc * x + c;
    }
    acc.sum()
}

/// The coefficients summed by a closure whose parameter is named `x`.
#[differentiable]
fn shadow_in_closure(x: &Tensor<f64>, cs: &[f64]) -> Tensor<f64> {
    let total: f64 = cs.iter().map(|x| x * 2.0).sum();
    (x * total).sin().sum()
}

/// The first coefficient taken by a `match` arm binding `x`, the last by an `if let`.
#[differentiable]
fn shadow_in_match_and_if_let(x: &Tensor<f64>, cs: &[f64]) -> Tensor<f64> {
    let first = match cs.first() {
        Some(x) if *x > 0.0 => *x,
        Some(x) => -*x,
        None => 1.0,
    };
    let last = if let Some(x) = cs.last() {
        *x * 3.0
    } else {
        1.0
    };
    (x * first + last).exp().sum()
}

/// A sum over the coefficients by a `for` loop whose pattern is `x`, inside a block.
#[differentiable]
fn shadow_in_for_pattern(x: &Tensor<f64>, cs: &[f64]) -> Tensor<f64> {
    let total = {
        let mut t = 0.0;
        for x in cs {
            t += x * x;
        }
        t
    };
    (x * x * total).sum()
}

/// An inner `x` that is the parameter itself, doubled: the initialiser reads the outer
/// name, so the block stays differentiable (what the scoping must not lose).
#[differentiable]
fn rebinding_reads_the_outer_name(x: &Tensor<f64>, cs: &[f64]) -> Tensor<f64> {
    let doubled = {
        let x = x * 2.0;
        x.tanh()
    };
    let c = if let Some(x) = cs.first() { *x } else { 0.0 };
    (doubled * c + x).sum()
}

/// The same shapes in scalar mode, where the coefficients are differentiable too: the
/// inner names bind differentiable elements there, and the outer `x` keeps its own
/// derivative.
#[differentiable]
fn shadows_in_scalar_code(x: f64, cs: &[f64]) -> f64 {
    let mut acc = 0.0;
    for item in cs.iter() {
        let c = {
            let x = item;
            *x * 2.0
        };
        acc = acc * x + c;
    }
    let total: f64 = cs.iter().map(|x| x * x).sum();
    let first = match cs.first() {
        Some(x) if *x > 0.0 => *x,
        Some(x) => -*x,
        None => 1.0,
    };
    acc * total + first * x
}

/// `match` on an element that may not be there: `first()` with a guard and `Some(&v)`,
/// `get(i)` with `_`, `last()` with `None` first and a guarded `_`.
#[differentiable]
fn match_on_elements(x: &[f64], i: usize) -> f64 {
    let a = match x.first() {
        Some(&v) if v > 0.0 => v * v,
        Some(&v) => -v,
        None => 0.0,
    };
    let b = match x.get(i) {
        Some(v) => v.sin(),
        _ => 1.0,
    };
    let c = match x.last() {
        None => 0.0,
        _ if x.len() > 5 => 2.0,
        Some(v) => *v * 3.0,
    };
    a + b * c
}

/// `let [p, q] = [..];` of an array literal, the second rebinding both names from the
/// first's values (each value is taken before any name is bound again).
#[differentiable]
fn array_literal_lets(a: f64, b: f64) -> f64 {
    let [p, q] = [a * 2.0, b.sin()];
    let [q, p] = [p, q * a];
    p * q + p
}

/// The same of tensors, in a fused body.
#[differentiable]
fn tensor_array_literal_lets(x: &Tensor<f64>) -> Tensor<f64> {
    let [u, v] = [x * 2.0, x.sin()];
    let [v, u] = [u, &v * x];
    (&u * &v + u).sum()
}

#[test]
fn names_bound_inside_an_expression() {
    let cs = [0.5, -1.5, 0.75];
    let points = [vec![v(&[0.3, -0.6, 1.1])], vec![s(0.4)]];
    check(
        "shadow_in_block",
        &points,
        &|x| shadow_in_block(&x[0], &cs),
        &|x| shadow_in_block::primal(&x[0], &cs),
    );
    check(
        "shadow_in_closure",
        &points,
        &|x| shadow_in_closure(&x[0], &cs),
        &|x| shadow_in_closure::primal(&x[0], &cs),
    );
    check(
        "shadow_in_match_and_if_let",
        &points,
        &|x| shadow_in_match_and_if_let(&x[0], &cs),
        &|x| shadow_in_match_and_if_let::primal(&x[0], &cs),
    );
    check(
        "shadow_in_for_pattern",
        &points,
        &|x| shadow_in_for_pattern(&x[0], &cs),
        &|x| shadow_in_for_pattern::primal(&x[0], &cs),
    );
    check(
        "rebinding_reads_the_outer_name",
        &points,
        &|x| rebinding_reads_the_outer_name(&x[0], &cs),
        &|x| rebinding_reads_the_outer_name::primal(&x[0], &cs),
    );
    // The value of one by Horner's rule, written independently.
    let x = 0.4_f64;
    let expected: f64 = cs.iter().fold(0.0, |acc, c| acc * x + 2.0 * c);
    assert!((shadow_in_block(&s(x), &cs).to_scalar() - expected).abs() < 1e-14);

    // Scalar mode: the gradient against its analytic form and central differences.
    for cs in [[0.5, -1.5, 0.75], [-0.5, 1.5, 0.25]] {
        let (value, (dx, dcs)) = shadows_in_scalar_code::grad(x, &cs);
        assert_eq!(shadows_in_scalar_code(x, &cs), value);
        let acc: f64 = cs.iter().fold(0.0, |acc, c| acc * x + 2.0 * c);
        let d_acc_dx = 2.0 * cs[0] * 2.0 * x + 2.0 * cs[1];
        let total: f64 = cs.iter().map(|c| c * c).sum();
        let first = cs[0].abs();
        assert!(common::close(value, acc * total + first * x, 1e-14));
        assert!(common::close(dx, d_acc_dx * total + first, 1e-14));
        let p = [x, cs[0], cs[1], cs[2]];
        let differences = common::central_differences(
            &|p: &[f64]| shadows_in_scalar_code::primal(p[0], &p[1..]),
            &p,
        );
        for (k, g) in [dx].iter().chain(&dcs).enumerate() {
            assert!(
                common::close(*g, differences[k], 1e-8),
                "∂/∂p{k}: {g} vs {}",
                differences[k]
            );
        }
    }

    // `let [p, q] = [..]`: p = a sin b, q = 2a, so f = 2a² sin b + a sin b
    for (a, b) in [(0.7, -0.4), (-1.2, 2.1)] {
        let (value, [da, db]) = array_literal_lets::grad(a, b);
        assert_eq!(array_literal_lets(a, b), value);
        assert!(common::close(
            value,
            2.0 * a * a * b.sin() + a * b.sin(),
            1e-15
        ));
        assert!(common::close(da, 4.0 * a * b.sin() + b.sin(), 1e-14));
        assert!(common::close(
            db,
            2.0 * a * a * b.cos() + a * b.cos(),
            1e-14
        ));
        let differences = common::central_differences(
            &|p: &[f64]| array_literal_lets::primal(p[0], p[1]),
            &[a, b],
        );
        assert!(common::close(da, differences[0], 1e-8));
        assert!(common::close(db, differences[1], 1e-8));
    }
    check(
        "tensor_array_literal_lets",
        &[vec![v(&[0.3, -0.6, 1.1])], vec![s(0.4)]],
        &|x| tensor_array_literal_lets(&x[0]),
        &|x| tensor_array_literal_lets::primal(&x[0]),
    );

    // `match` on elements, each arm taken: the analytic gradient and central differences.
    for (x, i) in [
        (vec![0.7, -0.4, 1.3], 1),
        (vec![-0.7, -0.4, 1.3], 7),
        (vec![0.5, 0.1, 0.2, 0.3, 0.4, 0.9], 2),
    ] {
        let (value, [dx]) = match_on_elements::grad(&x, i);
        assert_eq!(match_on_elements(&x, i), value);
        let n = x.len();
        let (a, da) = if x[0] > 0.0 {
            (x[0] * x[0], 2.0 * x[0])
        } else {
            (-x[0], -1.0)
        };
        let (b, db) = if i < n {
            (x[i].sin(), x[i].cos())
        } else {
            (1.0, 0.0)
        };
        let (c, dc) = if n > 5 {
            (2.0, 0.0)
        } else {
            (x[n - 1] * 3.0, 3.0)
        };
        assert!(common::close(value, a + b * c, 1e-15));
        let mut want = vec![0.0; n];
        want[0] += da;
        if i < n {
            want[i] += db * c;
        }
        want[n - 1] += b * dc;
        let differences =
            common::central_differences(&|p: &[f64]| match_on_elements::primal(p, i), &x);
        for k in 0..n {
            assert!(
                common::close(dx[k], want[k], 1e-14),
                "∂/∂x{k}: {} vs {}",
                dx[k],
                want[k]
            );
            assert!(
                common::close(dx[k], differences[k], 1e-8),
                "∂/∂x{k}: {} vs {}",
                dx[k],
                differences[k]
            );
        }
    }
}

// ----- 3. arrays, slices and vectors -----

/// The classical Runge–Kutta weights.
const RK4_WEIGHTS: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];

/// Logistic growth `y' = r y (1 - y / K)` by classical Runge–Kutta, the stages as named
/// locals, the weights and nodes read from constant arrays by index.
#[differentiable]
fn logistic_growth_rk4(y0: &Tensor<f64>, rate: &Tensor<f64>, capacity: f64) -> Tensor<f64> {
    let dt = 0.25;
    let nodes = [0.0, 0.5, 0.5, 1.0];
    let mut y = y0.clone();
    for _ in 0..8 {
        let k1 = rate * &y * (1.0 - &y / capacity);
        let y2 = &y + &k1 * (nodes[1] * dt);
        let k2 = rate * &y2 * (1.0 - &y2 / capacity);
        let y3 = &y + &k2 * (nodes[2] * dt);
        let k3 = rate * &y3 * (1.0 - &y3 / capacity);
        let y4 = &y + &k3 * (nodes[3] * dt);
        let k4 = rate * &y4 * (1.0 - &y4 / capacity);
        y = &y
            + (k1 * RK4_WEIGHTS[0]
                + k2 * RK4_WEIGHTS[1]
                + k3 * RK4_WEIGHTS[2]
                + k4 * RK4_WEIGHTS[3])
                * dt;
    }
    y
}

/// A Chebyshev series `Σ c_k T_k(x)` by Clenshaw's recurrence: the coefficients walked
/// with `iter().rev()`, two carried tensors updated together.
#[differentiable]
fn chebyshev_clenshaw(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
    let mut b1 = x * 0.0;
    let mut b2 = x * 0.0;
    for c in coefficients[1..].iter().rev() {
        let b0 = x * &b1 * 2.0 - &b2 + *c;
        b2 = b1;
        b1 = b0;
    }
    x * &b1 - b2 + coefficients[0]
}

/// The monic polynomial with given roots, `Π (x - r)`, multiplied out over a slice.
#[differentiable]
fn from_roots(x: &Tensor<f64>, roots: &[f64]) -> Tensor<f64> {
    let mut p = x * 0.0 + 1.0;
    for r in roots {
        p = p * (x - *r);
    }
    p
}

/// An exponential moving average of constant prices with a differentiable smoothing
/// factor (kept in (0, 1) by a sigmoid), the squared tracking error summed: `.len()`,
/// indexing reads, `windows(2)` for the one-step changes.
#[differentiable]
fn ema_tracking_error(logit_alpha: &Tensor<f64>, prices: &[f64]) -> Tensor<f64> {
    let alpha = logit_alpha.sigmoid();
    let mut ema = logit_alpha * 0.0 + prices[0];
    let mut error = logit_alpha * 0.0;
    for pair in prices.windows(2) {
        ema = &ema + (pair[1] - &ema) * &alpha;
        let miss = &ema - pair[1];
        error = error + &miss * &miss;
    }
    error / (prices.len() - 1) as f64
}

/// A portfolio's variance `wᵀ Σ w` over a constant covariance matrix read as `cov[i][j]`,
/// the weights' entries taken by `slice`.
#[differentiable]
fn portfolio_variance(w: &Tensor<f64>, cov: &[[f64; 3]; 3]) -> Tensor<f64> {
    let mut total = w.sum() * 0.0;
    for i in 0..3 {
        let wi = w.slice(0, i, 1);
        for j in 0..3 {
            total = total + &wi * w.slice(0, j, 1) * cov[i][j];
        }
    }
    total.sum()
}

/// A Gaussian mixture's log-density at each point, its weights, means and widths given as
/// chunks `[w, mu, sigma]` of one flat constant slice (`chunks(3)`).
#[differentiable]
fn mixture_log_density(x: &Tensor<f64>, components: &[f64]) -> Tensor<f64> {
    let mut density = x * 0.0;
    for c in components.chunks(3) {
        let z = (x - c[1]) / c[2];
        density = density + (&z * &z * -0.5).exp() * (c[0] / (c[2] * 2.506_628_274_631_000_2));
    }
    density.ln()
}

/// An ensemble's mean prediction: members given as a slice of tensors (a parameter of
/// another type than a tensor, so the call runs op by op on the caller's tape).
#[differentiable]
fn ensemble_mean(members: &[Tensor<f64>], x: &Tensor<f64>) -> Tensor<f64> {
    let mut total = x * 0.0;
    for w in members {
        total = total + (x * w).tanh();
    }
    total / members.len() as f64
}

#[test]
fn arrays_slices_and_vectors() {
    check(
        "logistic_growth_rk4",
        &[
            vec![v(&[0.5, 2.0, 7.5]), v(&[0.8, 0.3, 1.2])],
            vec![s(1.0), s(0.6)],
        ],
        &|x| logistic_growth_rk4(&x[0], &x[1], 10.0),
        &|x| logistic_growth_rk4::primal(&x[0], &x[1], 10.0),
    );
    let coefficients = [0.5, -1.0, 0.25, 0.75, -0.3];
    check(
        "chebyshev_clenshaw",
        &[vec![v(&[-0.8, 0.1, 0.65])], vec![s(0.4)]],
        &|x| chebyshev_clenshaw(&x[0], &coefficients),
        &|x| chebyshev_clenshaw::primal(&x[0], &coefficients),
    );
    let prices = [100.0, 101.5, 99.8, 102.3, 103.0, 101.1];
    check(
        "ema_tracking_error",
        &[vec![v(&[-1.0, 0.3, 2.0])], vec![s(0.5)]],
        &|x| ema_tracking_error(&x[0], &prices),
        &|x| ema_tracking_error::primal(&x[0], &prices),
    );
    let cov = [
        [0.04, 0.006, -0.002],
        [0.006, 0.09, 0.01],
        [-0.002, 0.01, 0.0225],
    ];
    check(
        "portfolio_variance",
        &[vec![v(&[0.5, 0.3, 0.2])], vec![v(&[-0.2, 0.9, 0.3])]],
        &|x| portfolio_variance(&x[0], &cov),
        &|x| portfolio_variance::primal(&x[0], &cov),
    );
    let roots = [-1.0, 0.5, 2.0];
    check(
        "from_roots",
        &[vec![v(&[-0.3, 0.9, 2.7])], vec![s(1.3)]],
        &|x| from_roots(&x[0], &roots),
        &|x| from_roots::primal(&x[0], &roots),
    );
    let components = [0.3, -1.0, 0.5, 0.7, 1.0, 0.8];
    check(
        "mixture_log_density",
        &[vec![v(&[-1.2, 0.0, 1.4])], vec![s(0.3)]],
        &|x| mixture_log_density(&x[0], &components),
        &|x| mixture_log_density::primal(&x[0], &components),
    );
    check(
        "ensemble_mean",
        &[vec![
            v(&[0.3, -0.6, 1.1]),
            v(&[0.8, 0.1, -0.4]),
            v(&[-0.5, 1.2, 0.6]),
        ]],
        &|x| ensemble_mean(&x[1..], &x[0]),
        &|x| ensemble_mean::primal(&x[1..], &x[0]),
    );
}

// ----- 5. generic code -----

/// Binary cross-entropy with logits, generic over the float type, a constant from
/// `T::from`.
#[differentiable]
fn generic_bce<T: Float>(logits: &Tensor<T>, labels: &Tensor<T>) -> Tensor<T> {
    let eps = T::from(1e-7).unwrap();
    let p = logits.sigmoid();
    let one = T::one();
    -(labels * (&p + eps).ln() + (-labels + one) * (-&p + (one + eps)).ln())
}

/// The Huber loss, generic, the threshold a `T` parameter compared with a reduction.
#[differentiable]
fn generic_huber<T: Float>(prediction: &Tensor<T>, target: &Tensor<T>, delta: T) -> Tensor<T> {
    let r = prediction - target;
    let half = T::from(0.5).unwrap();
    if r.abs().max().to_scalar() <= delta {
        &r * &r * half
    } else {
        (r.abs() - delta * half) * delta
    }
}

/// Exponential decay by Heun's method, generic, the step from `T::from(usize)`.
#[differentiable]
fn generic_decay<T: Float>(y0: &Tensor<T>, rate: &Tensor<T>, steps: usize) -> Tensor<T> {
    let dt = T::one() / T::from(steps).unwrap();
    let half = T::from(0.5).unwrap();
    let mut y = y0.clone();
    for _ in 0..steps {
        let k1 = -(rate * &y);
        let k2 = -(rate * (&y + &k1 * dt));
        y = &y + (k1 + k2) * (dt * half);
    }
    y
}

/// A plain generic helper over tensors, not annotated: replayed op by op by its caller.
fn swish<T: Float>(x: &Tensor<T>, beta: T) -> Tensor<T> {
    x * (x * beta).sigmoid()
}

/// A generic two-layer perceptron calling an annotated generic loss and a plain generic
/// activation.
#[differentiable]
fn generic_perceptron<T: Float>(x: &Tensor<T>, w: &Tensor<T>, labels: &Tensor<T>) -> Tensor<T> {
    let hidden = swish(&x.matmul(w), T::from(1.5).unwrap());
    generic_bce(&hidden.sum_axis(1, false), labels).mean()
}

/// A local closure capturing a differentiable tensor, taking its argument by value: a
/// soft-threshold applied twice.
#[differentiable]
fn soft_threshold_twice(x: &Tensor<f64>, lambda: &Tensor<f64>) -> Tensor<f64> {
    let shrink = |v: Tensor<f64>| &v - (&v / lambda).tanh() * lambda;
    let once = shrink(x.clone());
    shrink(once) * x
}

/// The `n`-th Taylor partial sum of `eˣ` by recursion: `1 + x/1 (1 + x/2 (1 + ...))`.
#[differentiable]
fn exp_taylor(x: &Tensor<f64>, k: usize, n: usize) -> Tensor<f64> {
    if k > n {
        return x * 0.0 + 1.0;
    }
    x * exp_taylor(x, k + 1, n) / k as f64 + 1.0
}

/// The Lennard-Jones potential between pairs at distances `r`, generic, its parameters
/// `T` constants scaled by `T::from`.
#[differentiable]
fn generic_lennard_jones<T: Float>(r: &Tensor<T>, sigma: T, epsilon: T) -> Tensor<T> {
    let sr6 = (r.recip() * sigma).powi(6);
    (sr6.square() - &sr6) * (epsilon * T::from(4.0).unwrap())
}

/// A temperature-smoothed maximum (log-sum-exp, shifted by the maximum for stability),
/// generic.
#[differentiable]
fn generic_smooth_max<T: Float>(x: &Tensor<T>, temperature: T) -> Tensor<T> {
    let m = x.max();
    ((x - &m) / temperature).exp().sum().ln() * temperature + m
}

#[test]
fn generic_code() {
    check(
        "generic_bce",
        &[
            vec![v(&[0.3, -1.2, 2.0]), v(&[1.0, 0.0, 1.0])],
            vec![s(0.4), s(1.0)],
        ],
        &|x| generic_bce(&x[0], &x[1]),
        &|x| generic_bce::primal(&x[0], &x[1]),
    );
    // both branches: every residual within the threshold, and some beyond it
    for delta in [1.5, 0.4] {
        check(
            "generic_huber",
            &[vec![v(&[0.3, -1.2, 2.0]), v(&[0.1, -0.8, 1.3])]],
            &|x| generic_huber(&x[0], &x[1], delta),
            &|x| generic_huber::primal(&x[0], &x[1], delta),
        );
    }
    check(
        "generic_decay",
        &[
            vec![v(&[1.0, 2.0, -0.5]), v(&[0.3, 1.1, 2.0])],
            vec![s(1.0), s(0.7)],
        ],
        &|x| generic_decay(&x[0], &x[1], 10),
        &|x| generic_decay::primal(&x[0], &x[1], 10),
    );
    check(
        "generic_perceptron",
        &[vec![
            Tensor::from_vec(vec![0.5, -1.0, 1.5, 0.25, -0.75, 2.0], &[3, 2]),
            Tensor::from_vec(vec![0.3, -0.2, 0.5, 0.1, 0.4, -0.6], &[2, 3]),
            v(&[1.0, 0.0, 1.0]),
        ]],
        &|x| generic_perceptron(&x[0], &x[1], &x[2]),
        &|x| generic_perceptron::primal(&x[0], &x[1], &x[2]),
    );
    check(
        "soft_threshold_twice",
        &[
            vec![v(&[0.3, -1.2, 2.0]), v(&[0.5, 0.8, 1.1])],
            vec![s(0.9), s(0.4)],
        ],
        &|x| soft_threshold_twice(&x[0], &x[1]),
        &|x| soft_threshold_twice::primal(&x[0], &x[1]),
    );
    check(
        "generic_lennard_jones",
        &[vec![v(&[0.95, 1.1, 1.6])], vec![s(1.3)]],
        &|x| generic_lennard_jones(&x[0], 1.0, 0.5),
        &|x| generic_lennard_jones::primal(&x[0], 1.0, 0.5),
    );
    check(
        "generic_smooth_max",
        &[vec![v(&[0.3, -1.2, 2.0, 1.7])]],
        &|x| generic_smooth_max(&x[0], 0.5),
        &|x| generic_smooth_max::primal(&x[0], 0.5),
    );
    check(
        "exp_taylor",
        &[vec![v(&[0.3, -1.2, 2.0])], vec![s(0.9)]],
        &|x| exp_taylor(&x[0], 1, 8),
        &|x| exp_taylor::primal(&x[0], 1, 8),
    );
}

// ----- 7. `mut` parameters and constants of any type -----

/// Gradient descent on the Rosenbrock valley from a starting point taken as an owned
/// `mut` parameter, the steps a count: the end point's loss.
#[differentiable]
fn rosenbrock_descent(
    mut x: Tensor<f64>,
    mut y: Tensor<f64>,
    lr: f64,
    steps: usize,
) -> Tensor<f64> {
    for _ in 0..steps {
        let dx = (&x - 1.0) * 2.0 - &x * (&y - &x * &x) * 400.0;
        let dy = (&y - &x * &x) * 200.0;
        x = x - dx * lr;
        y = y - dy * lr;
    }
    (1.0 - &x).square() + (&y - &x * &x).square() * 100.0
}

/// An optimiser's configuration: constants to the adjoint.
#[derive(Clone, Copy)]
struct Momentum {
    lr: f64,
    beta: f64,
    clip: Option<f64>,
}

/// A learning-rate schedule: an enum constant.
#[derive(Clone, Copy)]
enum Schedule {
    Constant,
    Halving { every: usize },
}

/// Heavy-ball descent on a quadratic bowl `Σ c x²`, with an optional gradient clip and a
/// schedule: a configuration struct, an `Option` inside it, an enum read by `if let`, a
/// `mut` parameter reassigned.
#[differentiable]
fn heavy_ball(
    mut x: Tensor<f64>,
    curvature: &Tensor<f64>,
    config: &Momentum,
    schedule: Schedule,
) -> Tensor<f64> {
    let mut velocity = &x * 0.0;
    let mut lr = config.lr;
    for step in 0..12 {
        if let Schedule::Halving { every } = schedule
            && step > 0
            && step % every == 0
        {
            lr *= 0.5;
        }
        let mut g = curvature * &x * 2.0;
        if let Some(limit) = config.clip {
            g = g.clamp(-limit, limit);
        }
        velocity = &velocity * config.beta - g * lr;
        x = x + &velocity;
    }
    (curvature * &x * &x).sum()
}

/// Present value of cash flows at a differentiable yield, the discount rule a closure
/// constant and the day-count a flag.
#[differentiable]
fn present_value(
    rate: &Tensor<f64>,
    flows: &[f64],
    discount: &dyn Fn(usize) -> f64,
    continuous: bool,
) -> Tensor<f64> {
    let mut total = rate * 0.0;
    for (t, flow) in flows.iter().enumerate() {
        let time = discount(t);
        let factor = if continuous {
            (-(rate * time)).exp()
        } else {
            (rate + 1.0).powf(-time)
        };
        total = total + factor * *flow;
    }
    total
}

#[test]
fn mut_parameters_and_constants() {
    check(
        "rosenbrock_descent",
        &[
            vec![v(&[-0.5, 0.3, 1.2]), v(&[0.4, 0.2, 1.1])],
            vec![s(0.1), s(0.2)],
        ],
        &|x| rosenbrock_descent(x[0].clone(), x[1].clone(), 5e-4, 15),
        &|x| rosenbrock_descent::primal(x[0].clone(), x[1].clone(), 5e-4, 15),
    );
    let curvature = v(&[0.5, 1.5, 3.0]);
    for (config, schedule) in [
        (
            Momentum {
                lr: 0.1,
                beta: 0.8,
                clip: None,
            },
            Schedule::Constant,
        ),
        (
            // a clip wide enough that no gradient touches it at these points
            Momentum {
                lr: 0.05,
                beta: 0.9,
                clip: Some(50.0),
            },
            Schedule::Halving { every: 4 },
        ),
    ] {
        check(
            "heavy_ball",
            &[vec![v(&[1.0, -0.5, 0.3]), curvature.clone()]],
            &|x| heavy_ball(x[0].clone(), &x[1], &config, schedule),
            &|x| heavy_ball::primal(x[0].clone(), &x[1], &config, schedule),
        );
    }
    let flows = [5.0, 5.0, 5.0, 105.0];
    let yearly = |t: usize| (t + 1) as f64;
    for continuous in [false, true] {
        check(
            "present_value",
            &[vec![v(&[0.03, 0.05, 0.08])], vec![s(0.04)]],
            &|x| present_value(&x[0], &flows, &yearly, continuous),
            &|x| present_value::primal(&x[0], &flows, &yearly, continuous),
        );
    }
}

// ----- 4. structs and methods -----
//
// A struct parameter holding tensors is no input of a fused node: such a call runs op by
// op on the caller's tape (`tests/differentiable.rs`, "values reached through parameters of
// other types"), so its gradients are the tape's by construction; the checks below still
// compare it with `f::primal` and, what is not given, with central differences at orders
// one and two and under forward mode.

/// An affine map `x W + b`.
struct Affine {
    weights: Tensor<f64>,
    bias: Tensor<f64>,
}

impl Affine {
    #[differentiable]
    fn apply(&self, x: &Tensor<f64>) -> Tensor<f64> {
        x.matmul(&self.weights) + &self.bias
    }
}

/// Two affine layers (nested structs) with a leaky-tanh activation and a float field.
struct TwoLayer {
    hidden: Affine,
    output: Affine,
    leak: f64,
}

impl TwoLayer {
    #[differentiable]
    fn forward(&self, x: &Tensor<f64>) -> Tensor<f64> {
        let h = self.hidden.apply(x);
        let h = h.tanh() + &h * self.leak;
        self.output.apply(&h)
    }
}

/// The mean squared error of a two-layer model: a free function calling `&self` methods
/// of a nested struct parameter.
#[differentiable]
fn two_layer_mse(model: &TwoLayer, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    (model.forward(x) - y).square().mean()
}

/// A chain of springs: stiffnesses as a tensor field, rest lengths as a float array field.
struct SpringChain {
    stiffness: Tensor<f64>,
    rest: [f64; 3],
}

/// The chain's elastic energy at positions `x` (fixed end at 0), each spring's rest
/// length read from the array field by index.
#[differentiable]
fn spring_chain_energy(chain: &SpringChain, x: &Tensor<f64>) -> Tensor<f64> {
    let mut energy = x.sum() * 0.0;
    let mut left = x.sum() * 0.0;
    for i in 0..chain.rest.len() {
        let right = x.slice(0, i, 1).sum();
        let stretch = &right - &left - chain.rest[i];
        energy = energy + chain.stiffness.slice(0, i, 1).sum() * &stretch * &stretch * 0.5;
        left = right;
    }
    energy
}

/// A normal distribution's parameters, the scale kept positive by its logarithm.
struct Normal {
    mean: Tensor<f64>,
    log_scale: Tensor<f64>,
}

impl Normal {
    /// The negative log-likelihood of `data`.
    #[differentiable]
    fn nll(&self, data: &Tensor<f64>) -> Tensor<f64> {
        let z = (data - &self.mean) / self.log_scale.exp();
        (&z * &z * 0.5 + &self.log_scale).sum() + 0.918_938_533_204_672_7 * data.len() as f64
    }
}

/// A maximum-a-posteriori objective: the likelihood's method plus a Gaussian prior on the
/// parameters read through the struct.
#[differentiable]
fn normal_map_objective(model: &Normal, data: &Tensor<f64>, prior_weight: f64) -> Tensor<f64> {
    let prior = (model.mean.square() + model.log_scale.square()).sum() * prior_weight;
    model.nll(data) + prior
}

/// A damped pendulum's constants: a struct of floats.
struct Pendulum {
    length: f64,
    damping: f64,
}

impl Pendulum {
    /// The angle after a semi-implicit Euler run from `(theta, omega)`: a `&self` method
    /// reading float fields as constants, two carried tensors.
    #[differentiable]
    fn swing(&self, theta0: &Tensor<f64>, omega0: &Tensor<f64>, dt: f64) -> Tensor<f64> {
        let mut theta = theta0.clone();
        let mut omega = omega0.clone();
        for _ in 0..25 {
            omega = &omega - (theta.sin() * (9.81 / self.length) + &omega * self.damping) * dt;
            theta = &theta + &omega * dt;
        }
        theta
    }
}

/// The squared miss of a pendulum's swing against a target angle: a free caller of a
/// method on a struct of constants.
#[differentiable]
fn pendulum_miss(p: &Pendulum, theta0: &Tensor<f64>, omega0: &Tensor<f64>) -> Tensor<f64> {
    (p.swing(theta0, omega0, 0.04) - 0.3).square()
}

/// A one-dimensional Kalman filter's noise settings.
struct Kalman {
    process_noise: f64,
    measurement_noise: f64,
}

impl Kalman {
    /// The filtered state after a run of measurements, from a differentiable initial
    /// estimate and variance: a method over a slice of constants.
    #[differentiable]
    fn filter(&self, estimate0: &Tensor<f64>, variance0: &Tensor<f64>, zs: &[f64]) -> Tensor<f64> {
        let mut estimate = estimate0.clone();
        let mut variance = variance0.clone();
        for z in zs {
            let predicted = &variance + self.process_noise;
            let gain = &predicted / (&predicted + self.measurement_noise);
            estimate = &estimate + (*z - &estimate) * &gain;
            variance = (1.0 - &gain) * predicted;
        }
        estimate + variance
    }
}

/// The filter's output against a reference value (a free caller of the method).
#[differentiable]
fn kalman_error(filter: &Kalman, estimate0: &Tensor<f64>, variance0: &Tensor<f64>) -> Tensor<f64> {
    (filter.filter(estimate0, variance0, &[1.1, 0.9, 1.3, 1.0]) - 1.05).square()
}

/// An Elman recurrent cell: its weights as tensor fields, a method run over a sequence.
struct Elman {
    input: Tensor<f64>,
    recurrent: Tensor<f64>,
}

impl Elman {
    #[differentiable]
    fn run(&self, xs: &[f64], h0: &Tensor<f64>) -> Tensor<f64> {
        let mut h = h0.clone();
        for x in xs {
            h = (h.matmul(&self.recurrent) + &self.input * *x).tanh();
        }
        h
    }
}

/// The last hidden state's squared norm: a free caller of the cell's method.
#[differentiable]
fn elman_energy(cell: &Elman, h0: &Tensor<f64>) -> Tensor<f64> {
    cell.run(&[0.5, -1.0, 0.25, 0.8], h0).square().sum()
}

/// A standardiser holding a mean and a scale, generic over the float type.
struct Scaler<T: Float> {
    mean: Tensor<T>,
    scale: Tensor<T>,
}

/// The mean squared standardised residual, generic over the float type of a generic
/// struct parameter.
#[differentiable]
fn scaled_residual<T: Float>(scaler: &Scaler<T>, x: &Tensor<T>) -> Tensor<T> {
    ((x - &scaler.mean) / &scaler.scale).square().mean()
}

#[test]
fn structs_and_methods() {
    let model = |x: &[Tensor<f64>]| TwoLayer {
        hidden: Affine {
            weights: x[0].clone(),
            bias: x[1].clone(),
        },
        output: Affine {
            weights: x[2].clone(),
            bias: x[3].clone(),
        },
        leak: 0.1,
    };
    let batch = Tensor::from_vec(vec![0.5, -1.0, 1.5, 0.25, -0.75, 2.0], &[3, 2]);
    let targets = Tensor::from_vec(vec![0.2, -0.4, 0.9], &[3, 1]);
    check(
        "two_layer_mse",
        &[vec![
            Tensor::from_vec(vec![0.3, -0.2, 0.5, 0.1, 0.4, -0.6], &[2, 3]),
            v(&[0.05, -0.1, 0.2]),
            Tensor::from_vec(vec![0.7, -0.3, 0.2], &[3, 1]),
            v(&[0.1]),
        ]],
        &|x| two_layer_mse(&model(x), &batch, &targets),
        &|x| two_layer_mse::primal(&model(x), &batch, &targets),
    );
    let chain = |x: &[Tensor<f64>]| SpringChain {
        stiffness: x[1].clone(),
        rest: [0.8, 1.0, 1.2],
    };
    check(
        "spring_chain_energy",
        &[vec![v(&[0.7, 1.9, 3.3]), v(&[2.0, 1.5, 3.0])]],
        &|x| spring_chain_energy(&chain(x), &x[0]),
        &|x| spring_chain_energy::primal(&chain(x), &x[0]),
    );
    let normal = |x: &[Tensor<f64>]| Normal {
        mean: x[0].clone(),
        log_scale: x[1].clone(),
    };
    let data = v(&[0.3, -1.2, 2.0, 0.7, 1.1]);
    check(
        "normal_map_objective",
        &[vec![s(0.4), s(-0.2)], vec![s(-0.3), s(0.5)]],
        &|x| normal_map_objective(&normal(x), &data, 0.1),
        &|x| normal_map_objective::primal(&normal(x), &data, 0.1),
    );
    let pendulum = Pendulum {
        length: 1.2,
        damping: 0.3,
    };
    check(
        "pendulum_miss",
        &[
            vec![v(&[0.5, -0.2, 1.0]), v(&[0.0, 0.4, -0.3])],
            vec![s(0.7), s(0.1)],
        ],
        &|x| pendulum_miss(&pendulum, &x[0], &x[1]),
        &|x| pendulum_miss::primal(&pendulum, &x[0], &x[1]),
    );
    let kalman = Kalman {
        process_noise: 0.01,
        measurement_noise: 0.2,
    };
    check(
        "kalman_error",
        &[
            vec![v(&[0.0, 0.8, 2.0]), v(&[1.0, 0.5, 2.0])],
            vec![s(0.3), s(0.9)],
        ],
        &|x| kalman_error(&kalman, &x[0], &x[1]),
        &|x| kalman_error::primal(&kalman, &x[0], &x[1]),
    );
    let elman = |x: &[Tensor<f64>]| Elman {
        input: x[0].clone(),
        recurrent: x[1].clone(),
    };
    check(
        "elman_energy",
        &[vec![
            v(&[0.4, -0.3]),
            Tensor::from_vec(vec![0.5, -0.2, 0.3, 0.6], &[2, 2]),
            Tensor::from_vec(vec![0.1, -0.2], &[1, 2]),
        ]],
        &|x| elman_energy(&elman(x), &x[2]),
        &|x| elman_energy::primal(&elman(x), &x[2]),
    );
    let scaler = |x: &[Tensor<f64>]| Scaler {
        mean: x[0].clone(),
        scale: x[1].clone(),
    };
    check(
        "scaled_residual",
        &[vec![
            v(&[0.2, -0.1, 0.4]),
            v(&[1.5, 0.8, 2.0]),
            v(&[0.3, -1.2, 2.0]),
        ]],
        &|x| scaled_residual(&scaler(x), &x[2]),
        &|x| scaled_residual::primal(&scaler(x), &x[2]),
    );
}

// ----- a closure's capture replaced after the closure is made -----
//
// A `move` closure copies (or moves) what it captures when it is made; the attribute
// inlines a closure's body at each call, where the captured name may by then hold another
// value. This was a wrong gradient the recount found (`f::grad`'s value and gradient, a
// fused tensor call's gradient, read the later value, see `docs/CORPUS.md`); the inlined
// body now reads a copy taken where the closure was made (`rewrite::snapshot_captures`).
// The scalar forms (an element, a field, a loop) are in `differentiable_control_flow.rs`.

/// A hardening spring: the force law captured (by `move`) with the stiffness before it
/// hardens; the energy is read with the hardened stiffness.
#[differentiable]
fn hardening_spring(x0: f64, k0: f64) -> f64 {
    let mut k = k0;
    let force = move |x: f64| -k * x;
    k = k0 * 1.5;
    let mut x = x0;
    let mut v = 0.0;
    for _ in 0..20 {
        v += force(x) * 0.05;
        x += v * 0.05;
    }
    0.5 * k * x * x + 0.5 * v * v
}

/// The same on tensors.
#[differentiable]
fn hardening_spring_tensor(x0: &Tensor<f64>, k0: &Tensor<f64>) -> Tensor<f64> {
    let mut k = k0.clone();
    let force = move |x: Tensor<f64>| -(&k * x);
    k = k0 * 1.5;
    let mut x = x0.clone();
    let mut v = x0 * 0.0;
    for _ in 0..20 {
        v = &v + force(x.clone()) * 0.05;
        x = &x + &v * 0.05;
    }
    &k * &x * &x * 0.5 + &v * &v * 0.5
}

/// The recount's case on tensors: `y` moved into the closure as 2x, then assigned sin x.
/// The fused call's value was right and its gradient read the later `y`.
#[differentiable]
fn move_capture_tensor(x: &Tensor<f64>) -> Tensor<f64> {
    let mut y = x * 2.0;
    let f = move |v: Tensor<f64>| v * &y;
    y = x.sin();
    f(x.clone()) + &y
}

/// Not `move`, but the body consumes `y` (`v * y`), so the closure takes it; `y` is then
/// assigned again. Valid Rust whose expansion was E0382 ("borrow of moved value `y`"):
/// the inlined body moved `y` at the call, after the assignment.
#[differentiable]
fn consuming_capture_tensor(x: &Tensor<f64>) -> Tensor<f64> {
    let mut y = x * 2.0;
    let f = |v: Tensor<f64>| v * y;
    y = x.sin();
    f(x.clone()) + &y
}

#[test]
fn a_move_closure_whose_capture_is_replaced() {
    let (x0, k0) = (0.8, 2.0);
    // the function as written keeps the captured stiffness: its value is the body's
    let as_written = hardening_spring::primal(x0, k0);
    assert_eq!(hardening_spring(x0, k0).to_bits(), as_written.to_bits());
    let (value, gradient) = hardening_spring::grad(x0, k0);
    assert_eq!(
        value.to_bits(),
        hardening_spring::primal(x0, k0).to_bits(),
        "grad's value"
    );
    let expected =
        common::central_differences(&|p| hardening_spring::primal(p[0], p[1]), &[x0, k0]);
    for (g, e) in gradient.iter().zip(&expected) {
        assert!(
            common::close(*g, *e, 1e-6),
            "{gradient:?} vs central differences {expected:?}"
        );
    }
    check(
        "hardening_spring_tensor",
        &[vec![v(&[0.8, -0.3, 1.2]), v(&[2.0, 1.0, 0.5])]],
        &|x| hardening_spring_tensor(&x[0], &x[1]),
        &|x| hardening_spring_tensor::primal(&x[0], &x[1]),
    );
}

#[test]
fn a_tensor_closure_keeps_its_capture() {
    let points = [vec![v(&[0.7, -1.3, 0.2])], vec![s(0.7)]];
    check(
        "move_capture_tensor",
        &points,
        &|x| move_capture_tensor(&x[0]),
        &|x| move_capture_tensor::primal(&x[0]),
    );
    check(
        "consuming_capture_tensor",
        &points,
        &|x| consuming_capture_tensor(&x[0]),
        &|x| consuming_capture_tensor::primal(&x[0]),
    );
    // 2x² + sin x, elementwise: the value is the copy's, 2x, times x
    let x = v(&[0.7, -1.3, 0.2]);
    for (f, name) in [
        (
            move_capture_tensor as fn(&Tensor<f64>) -> Tensor<f64>,
            "move",
        ),
        (consuming_capture_tensor, "consuming"),
    ] {
        for (got, x) in f(&x).to_vec().iter().zip(x.to_vec()) {
            let expected = 2.0 * x * x + x.sin();
            assert!(
                (got - expected).abs() < 1e-12,
                "{name}: {got} vs {expected}"
            );
        }
    }
}

// ----- forms whose generated code did not compile -----
//
// Valid Rust the recount found failing with rustc errors inside the expansion
// (`docs/CORPUS.md`): a closure with a reference parameter (E0308, E0277; the inlined
// body bound it with its `&Tensor` type, which lowering keeps for the tangent), and a
// float method called on an `iter_mut` item (E0425: the desugared loop binds no `v`, it
// rewrote `*v` only).

/// A local closure capturing a differentiable tensor, taking its argument by reference
/// (the recount's form): a soft-threshold applied twice, to a parameter and to a local.
#[differentiable]
fn soft_threshold_twice_by_ref(x: &Tensor<f64>, lambda: &Tensor<f64>) -> Tensor<f64> {
    let shrink = |v: &Tensor<f64>| v - (v / lambda).tanh() * lambda;
    let once = shrink(x);
    shrink(&once) * x
}

/// `d(x)` and `d(&x)` of a `&Tensor` parameter (`&x` is `&&Tensor`, which the call
/// coerces), and `d(&y)` of a local.
#[differentiable]
fn reference_closure_arguments(x: &Tensor<f64>) -> Tensor<f64> {
    let d = |v: &Tensor<f64>| v * 2.0 + v.sin();
    let y = x * x;
    d(x) * d(&x) + d(&y)
}

/// `d(&r)` of locals that hold a reference (`let r = x;` of a `&Tensor` parameter, `let
/// q = &y;`), chained (`let s: &Tensor<f64> = r;`, the type spelled), and `d(q)`: the call
/// coerces `&&Tensor` to `&Tensor`. The expansion failed with rustc E0369 (`&&Tensor<f64>
/// * {float}`): the inlined closure bound its parameter to `&r` itself.
#[differentiable]
fn reference_local_arguments(x: &Tensor<f64>) -> Tensor<f64> {
    let d = |v: &Tensor<f64>| v * 2.0 + v.sin();
    let r = x;
    let s: &Tensor<f64> = r;
    let y = x * x;
    let q = &y;
    d(&r) * d(&s) + d(&q) + d(q)
}

/// A closure with a `&f64` parameter on plain numbers.
#[differentiable]
fn reference_float_closure(x: f64, w: f64) -> f64 {
    let d = |v: &f64| v * w + v.sin();
    let y = x * 3.0;
    d(&x) * d(&y)
}

/// The softsign of each entry, summed: `v.abs()` on an `iter_mut` item (auto-deref of
/// `&mut f64`), as the corpus writes it.
#[allow(clippy::assign_op_pattern)]
#[differentiable]
fn softsign_total(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    for v in a.iter_mut() {
        *v = *v / (1.0 + v.abs());
    }
    a.iter().sum::<f64>()
}

/// Float methods on an `iter_mut` item: `v.sin()`, `v.powi(2)`, `v.max(w)`, and
/// `*v += v.cos()`, on each entry of a zip too.
#[differentiable]
fn iter_mut_item_methods(x: &[f64], w: f64) -> f64 {
    let mut a = x.to_vec();
    for v in a.iter_mut() {
        *v = v.sin();
    }
    for v in a.iter_mut() {
        *v = v.powi(2) + v.max(w);
        *v += v.cos();
    }
    for (v, c) in a.iter_mut().zip(x.iter()) {
        *v = v.mul_add(*c, w);
    }
    a.iter().sum::<f64>()
}

/// The body binds the item's name again (`let v = ..`): `v.sin()` after it is the new
/// `v`, not the element, and is left so.
#[differentiable]
fn iter_mut_item_rebound(x: &[f64], w: f64) -> f64 {
    let mut a = x.to_vec();
    let mut t = 0.0;
    for v in a.iter_mut() {
        *v = (*v).sin();
        let v = w * 2.0;
        t += v.sin();
    }
    a.iter().sum::<f64>() + t
}

/// A plain-number function of `x: &[f64]` and a float `w`, through its faces: value,
/// `grad`, `grad_into` and `jvp` against `primal`, the gradient against central
/// differences, and second order by differences of `grad` and `jvp`.
#[allow(clippy::type_complexity)]
fn slice_and_float(
    name: &'static str,
    f: &dyn Fn(&[f64], f64) -> f64,
    primal: &dyn Fn(&[f64], f64) -> f64,
    grad: &dyn Fn(&[f64], f64) -> (f64, Vec<f64>),
    jvp: &dyn Fn(&[f64], f64, &[f64], f64) -> (f64, f64),
    x: &[f64],
) {
    let n = x.len() - 1;
    common::faces::Case {
        name,
        itself: &|x| f(&x[..n], x[n]),
        primal: &|x| primal(&x[..n], x[n]),
        grad: Some(&|x| grad(&x[..n], x[n])),
        grad_into: &|x| grad(&x[..n], x[n]),
        jvp: &|x, t| jvp(&x[..n], x[n], &t[..n], t[n]),
    }
    .check_with_second_order(x);
}

#[test]
fn a_closure_taking_a_reference() {
    check(
        "soft_threshold_twice_by_ref",
        &[
            vec![v(&[0.3, -1.2, 2.0]), v(&[0.5, 0.8, 1.1])],
            vec![s(0.9), s(0.4)],
        ],
        &|x| soft_threshold_twice_by_ref(&x[0], &x[1]),
        &|x| soft_threshold_twice_by_ref::primal(&x[0], &x[1]),
    );
    // the same values as the closure taking the tensor by value
    let (x, lambda) = (v(&[0.3, -1.2, 2.0]), v(&[0.5, 0.8, 1.1]));
    assert_eq!(
        soft_threshold_twice_by_ref(&x, &lambda).to_vec(),
        soft_threshold_twice(&x, &lambda).to_vec()
    );
    check(
        "reference_closure_arguments",
        &[vec![v(&[0.3, -1.2, 0.8])], vec![s(0.7)]],
        &|x| reference_closure_arguments(&x[0]),
        &|x| reference_closure_arguments::primal(&x[0]),
    );
    // (2x + sin x)² + 2x² + sin x², elementwise
    for (got, x) in reference_closure_arguments(&x)
        .to_vec()
        .iter()
        .zip(x.to_vec())
    {
        let d = |v: f64| 2.0 * v + v.sin();
        assert!((got - (d(x) * d(x) + d(x * x))).abs() < 1e-12);
    }
    // plain numbers: value, grad and jvp against primal and central differences
    for p in [[0.7, 1.3], [-0.4, 0.9]] {
        let (value, gradient) = reference_float_closure::grad(p[0], p[1]);
        let primal = reference_float_closure::primal(p[0], p[1]);
        assert_eq!(value.to_bits(), primal.to_bits());
        assert_eq!(
            reference_float_closure(p[0], p[1]).to_bits(),
            primal.to_bits()
        );
        let expected =
            common::central_differences(&|q| reference_float_closure::primal(q[0], q[1]), &p);
        for (g, e) in gradient.iter().zip(&expected) {
            assert!(common::close(*g, *e, 1e-6), "{gradient:?} vs {expected:?}");
        }
        let (at, tangent) = reference_float_closure::jvp(p[0], p[1], 0.3, -0.5);
        assert_eq!(at.to_bits(), primal.to_bits());
        let along = gradient[0] * 0.3 - gradient[1] * 0.5;
        assert!(common::close(tangent, along, 1e-12), "{tangent} vs {along}");
    }
}

#[test]
fn a_reference_local_passed_to_a_closure() {
    check(
        "reference_local_arguments",
        &[vec![v(&[0.3, -1.2, 0.8])], vec![s(0.7)]],
        &|x| reference_local_arguments(&x[0]),
        &|x| reference_local_arguments::primal(&x[0]),
    );
    // d(x)² + 2 d(x²), elementwise, d(v) = 2v + sin v
    let x = v(&[0.3, -1.2, 0.8]);
    for (got, x) in reference_local_arguments(&x)
        .to_vec()
        .iter()
        .zip(x.to_vec())
    {
        let d = |v: f64| 2.0 * v + v.sin();
        assert!((got - (d(x) * d(x) + 2.0 * d(x * x))).abs() < 1e-12);
    }
}

#[test]
fn a_float_method_on_an_iter_mut_item() {
    let x = [0.3, -1.2, 0.8, 2.0];
    common::faces::Case {
        name: "softsign_total",
        itself: &softsign_total,
        primal: &softsign_total::primal,
        grad: Some(&|x| {
            let (value, [g]) = softsign_total::grad(x);
            (value, g)
        }),
        grad_into: &|x| {
            let mut g = vec![0.0; x.len()];
            let value = softsign_total::grad_into(x, &mut g);
            (value, g)
        },
        jvp: &softsign_total::jvp,
    }
    .check_with_second_order(&x);
    let expected: f64 = x.iter().map(|v| v / (1.0 + v.abs())).sum();
    assert!((softsign_total(&x) - expected).abs() < 1e-15);
    let x = [0.3, -1.2, 0.8, 0.4];
    slice_and_float(
        "iter_mut_item_methods",
        &iter_mut_item_methods,
        &iter_mut_item_methods::primal,
        &|x, w| {
            let (value, (gx, gw)) = iter_mut_item_methods::grad(x, w);
            (value, [gx, vec![gw]].concat())
        },
        &iter_mut_item_methods::jvp,
        &x,
    );
    let expected: f64 = x[..3]
        .iter()
        .map(|&c| {
            let s = c.sin();
            let t = s.powi(2) + s.max(0.4);
            (t + t.cos()).mul_add(c, 0.4)
        })
        .sum();
    assert!((iter_mut_item_methods(&x[..3], 0.4) - expected).abs() < 1e-12);
    slice_and_float(
        "iter_mut_item_rebound",
        &iter_mut_item_rebound,
        &iter_mut_item_rebound::primal,
        &|x, w| {
            let (value, (gx, gw)) = iter_mut_item_rebound::grad(x, w);
            (value, [gx, vec![gw]].concat())
        },
        &iter_mut_item_rebound::jvp,
        &x,
    );
}

// ----- bodies run on a sub-tape (the tape's fallback, issue 13) -----
//
// Each keeps a local `Vec` of tensors, which the generated adjoint cannot transform, so
// the body runs on a sub-tape inside the function's node, as written (formerly rejected:
// "keeps no collection of differentiable tensors"; `strict` still rejects them, UI cases
// `strict-local-vector-of-tensors`, `strict-tensor-pushed-onto-a-local-vector`).

/// Logistic growth `y' = r y (1 - y / K)` by classical Runge–Kutta: each step's stages
/// pushed into a local `Vec` of tensors, read back by index (`k[i - 1]`), combined with the
/// weights of a constant array by `iter().zip()`.
#[differentiable]
fn logistic_growth_rk4_stages(y0: &Tensor<f64>, rate: &Tensor<f64>, capacity: f64) -> Tensor<f64> {
    let dt = 0.25;
    let offsets = [0.0, 0.5, 0.5, 1.0];
    let mut y = y0.clone();
    for _ in 0..8 {
        let mut k: Vec<Tensor<f64>> = Vec::new();
        for i in 0..offsets.len() {
            let stage = if i == 0 {
                y.clone()
            } else {
                &y + &k[i - 1] * (offsets[i] * dt)
            };
            k.push(rate * &stage * (1.0 - &stage / capacity));
        }
        let mut step = &y * 0.0;
        for (ki, w) in k.iter().zip(RK4_WEIGHTS.iter()) {
            step = step + ki * (w * dt);
        }
        y = y + step;
    }
    y
}

/// A Chebyshev series `Σ c_k T_k(x)`, the polynomials by their recurrence in a local
/// `Vec` read by index, the coefficients a slice walked with `enumerate`.
#[differentiable]
fn chebyshev_series(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
    let mut t = vec![x * 0.0 + 1.0, x.clone()];
    for k in 2..coefficients.len() {
        let next = x * &t[k - 1] * 2.0 - &t[k - 2];
        t.push(next);
    }
    let mut total = x * 0.0;
    for (k, c) in coefficients.iter().enumerate() {
        total = total + &t[k] * *c;
    }
    total
}

macro_rules! doubled {
    ($x:expr) => {
        $x * 2.0
    };
}

/// A trait of the user's, implemented for tensors.
trait Softened {
    fn softened(&self, w: &Tensor<f64>) -> Tensor<f64>;
}

impl Softened for Tensor<f64> {
    fn softened(&self, w: &Tensor<f64>) -> Tensor<f64> {
        (self * w).tanh()
    }
}

/// A closure over a tensor handed on as a value, a macro of the user's, and a method of
/// the user's trait: each has no generated adjoint, and the tape records them as written.
#[differentiable]
fn user_constructs(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let scale = |t: &Tensor<f64>| t * w;
    let same = scale;
    let doubled = doubled!(same(x));
    (doubled.softened(w) + x.softened(&doubled)).sum()
}

/// A pair of tensors broken out of a `loop` with its value, destructured by `let`: a
/// damped iteration until its sum falls below `threshold` (it halves at least each pass).
#[differentiable]
fn loop_pair(x: &Tensor<f64>, threshold: f64) -> Tensor<f64> {
    let mut y = x.clone();
    let (a, b) = loop {
        y = (&y * 0.5).sin();
        if y.abs().sum().to_scalar() < threshold {
            break (&y * 2.0, x.cos());
        }
    };
    (a * b).sum()
}

/// The same generic over the float type, with a `Vec` of tensors.
#[differentiable]
fn generic_stages<T: Float>(x: &Tensor<T>, w: &Tensor<T>, steps: usize) -> Tensor<T> {
    let mut k = vec![x.clone()];
    for i in 1..steps {
        let next = (&k[i - 1] * w).tanh();
        k.push(next);
    }
    k.iter().sum::<Tensor<T>>().sum()
}

#[test]
fn bodies_run_on_a_sub_tape() {
    check(
        "logistic_growth_rk4_stages",
        &[
            vec![v(&[0.5, 2.0, 7.5]), v(&[0.8, 0.3, 1.2])],
            vec![s(1.0), s(0.6)],
        ],
        &|x| logistic_growth_rk4_stages(&x[0], &x[1], 10.0),
        &|x| logistic_growth_rk4_stages::primal(&x[0], &x[1], 10.0),
    );
    // the same integration as the accepted form's, to the last bit
    let (y0, rate) = (v(&[0.5, 2.0, 7.5]), v(&[0.8, 0.3, 1.2]));
    assert_eq!(
        logistic_growth_rk4_stages(&y0, &rate, 10.0).to_vec(),
        logistic_growth_rk4(&y0, &rate, 10.0).to_vec()
    );
    let coefficients = [0.5, -1.0, 0.25, 0.75, -0.3];
    check(
        "chebyshev_series",
        &[vec![v(&[-0.8, 0.1, 0.65])], vec![s(0.4)]],
        &|x| chebyshev_series(&x[0], &coefficients),
        &|x| chebyshev_series::primal(&x[0], &coefficients),
    );
    // Clenshaw's recurrence evaluates the same series
    let x = v(&[-0.8, 0.1, 0.65]);
    let (series, clenshaw) = (
        chebyshev_series(&x, &coefficients).to_vec(),
        chebyshev_clenshaw(&x, &coefficients).to_vec(),
    );
    for (a, b) in series.iter().zip(&clenshaw) {
        assert!((a - b).abs() < 1e-14, "{a} vs {b}");
    }
    check(
        "user_constructs",
        &[vec![v(&[0.3, -0.6, 1.1]), v(&[0.8, 0.1, -0.4])]],
        &|x| user_constructs(&x[0], &x[1]),
        &|x| user_constructs::primal(&x[0], &x[1]),
    );
    check(
        "loop_pair",
        &[vec![v(&[0.3, -0.6, 1.1])], vec![s(0.9)]],
        &|x| loop_pair(&x[0], 0.1),
        &|x| loop_pair::primal(&x[0], 0.1),
    );
    check(
        "generic_stages",
        &[vec![v(&[0.3, -0.2]), v(&[0.5, 0.7])]],
        &|x| generic_stages(&x[0], &x[1], 3),
        &|x| generic_stages::primal(&x[0], &x[1], 3),
    );
    // One node per call, the helper's run visible in the generated code.
    for generated in [
        logistic_growth_rk4_stages::GENERATED,
        chebyshev_series::GENERATED,
        user_constructs::GENERATED,
        loop_pair::GENERATED,
        generic_stages::GENERATED,
    ] {
        assert!(generated.contains("generated::trace("), "{generated}");
        assert!(generated.contains("__gradtape_traced_"), "{generated}");
    }
    let tape = gradtape::GradientTape::persistent();
    tape.watch(&x);
    tape.record(|| chebyshev_series(&x, &coefficients));
    assert_eq!(gradtape::generated::recorded_nodes(&tape).len(), 1);
}

/// How many times `rk2_oscillator_stages`' body ran: the body of a function with a tuple
/// result runs once per call however many parts it returns.
static OSCILLATOR_RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A damped oscillator `x'' = -k x - c x'` by Heun's method, each step's two stages kept
/// in a local `Vec` of `(position, velocity)` rates: the position and the velocity
/// returned as a tuple, the body run on a sub-tape (the `Vec` has no generated adjoint).
#[differentiable]
fn rk2_oscillator_stages(
    x0: &Tensor<f64>,
    v0: &Tensor<f64>,
    stiffness: &Tensor<f64>,
    damping: f64,
) -> (Tensor<f64>, Tensor<f64>) {
    OSCILLATOR_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dt = 0.1;
    let (mut x, mut v) = (x0.clone(), v0.clone());
    for _ in 0..6 {
        let mut rates: Vec<(Tensor<f64>, Tensor<f64>)> = Vec::new();
        rates.push((v.clone(), -(stiffness * &x) - &v * damping));
        let (x1, v1) = (&x + &rates[0].0 * dt, &v + &rates[0].1 * dt);
        rates.push((v1.clone(), -(stiffness * &x1) - &v1 * damping));
        x = &x + (&rates[0].0 + &rates[1].0) * (0.5 * dt);
        v = &v + (&rates[0].1 + &rates[1].1) * (0.5 * dt);
    }
    (x, v)
}

/// The same integration with the stages as named locals, which the generated adjoint
/// transforms: the value to compare with.
#[differentiable]
fn rk2_oscillator(
    x0: &Tensor<f64>,
    v0: &Tensor<f64>,
    stiffness: &Tensor<f64>,
    damping: f64,
) -> (Tensor<f64>, Tensor<f64>) {
    let dt = 0.1;
    let (mut x, mut v) = (x0.clone(), v0.clone());
    for _ in 0..6 {
        let (r0, s0) = (v.clone(), -(stiffness * &x) - &v * damping);
        let (x1, v1) = (&x + &r0 * dt, &v + &s0 * dt);
        let (r1, s1) = (v1.clone(), -(stiffness * &x1) - &v1 * damping);
        x = &x + (&r0 + &r1) * (0.5 * dt);
        v = &v + (&s0 + &s1) * (0.5 * dt);
    }
    (x, v)
}

/// The softmax of a list of scores and its entropy, the scores' shifted exponentials in a
/// local `Vec`: a tuple of a vector and a 0-d tensor, generic over the float type.
#[differentiable]
fn softmax_and_entropy<T: Float>(
    scores: &Tensor<T>,
    temperature: &Tensor<T>,
) -> (Tensor<T>, Tensor<T>) {
    let shifted = scores / temperature;
    let mut terms = vec![shifted.exp()];
    terms.push(terms[0].sum());
    let p = &terms[0] / &terms[1];
    let entropy = -(&p * p.ln()).sum();
    (p, entropy)
}

/// An annotated caller destructuring a traced tuple result, and the parts read apart.
#[differentiable]
fn oscillator_energy(x0: &Tensor<f64>, v0: &Tensor<f64>, stiffness: &Tensor<f64>) -> Tensor<f64> {
    let (x, v) = rk2_oscillator_stages(x0, v0, stiffness, 0.3);
    (stiffness * &x * &x + &v * &v).sum() * 0.5
}

#[test]
fn tuple_bodies_run_on_a_sub_tape() {
    let points = [
        vec![
            v(&[0.5, -1.0, 0.2]),
            v(&[0.1, 0.4, -0.3]),
            v(&[1.5, 0.8, 2.0]),
        ],
        vec![s(0.7), s(-0.2), s(1.1)],
    ];
    // each part alone, and both together with weights that tell them apart
    check(
        "rk2_oscillator_stages.0",
        &points,
        &|x| rk2_oscillator_stages(&x[0], &x[1], &x[2], 0.3).0,
        &|x| rk2_oscillator_stages::primal(&x[0], &x[1], &x[2], 0.3).0,
    );
    check(
        "rk2_oscillator_stages.1",
        &points,
        &|x| rk2_oscillator_stages(&x[0], &x[1], &x[2], 0.3).1,
        &|x| rk2_oscillator_stages::primal(&x[0], &x[1], &x[2], 0.3).1,
    );
    let both = |(x, v): (Tensor<f64>, Tensor<f64>)| (&x * &v).sin() + &v * 0.3 + x.square() * 2.0;
    check(
        "rk2_oscillator_stages",
        &points,
        &|x| both(rk2_oscillator_stages(&x[0], &x[1], &x[2], 0.3)),
        &|x| both(rk2_oscillator_stages::primal(&x[0], &x[1], &x[2], 0.3)),
    );
    check(
        "oscillator_energy",
        &points,
        &|x| oscillator_energy(&x[0], &x[1], &x[2]),
        &|x| oscillator_energy::primal(&x[0], &x[1], &x[2]),
    );
    // the same values as the form the generated adjoint transforms, to the last bit
    let (x0, v0, k) = (
        v(&[0.5, -1.0, 0.2]),
        v(&[0.1, 0.4, -0.3]),
        v(&[1.5, 0.8, 2.0]),
    );
    let (traced, transformed) = (
        rk2_oscillator_stages(&x0, &v0, &k, 0.3),
        rk2_oscillator(&x0, &v0, &k, 0.3),
    );
    assert_eq!(traced.0.to_vec(), transformed.0.to_vec());
    assert_eq!(traced.1.to_vec(), transformed.1.to_vec());
    let scores = [vec![v(&[0.3, -1.2, 0.8, 0.1]), s(0.9)]];
    let weighted = |(p, entropy): (Tensor<f64>, Tensor<f64>)| {
        (p * v(&[1.0, -2.0, 0.5, 3.0])).sum() + entropy * 0.7
    };
    check(
        "softmax_and_entropy",
        &scores,
        &|x| weighted(softmax_and_entropy(&x[0], &x[1])),
        &|x| weighted(softmax_and_entropy::primal(&x[0], &x[1])),
    );
    let f32_scores = Tensor::from_vec(vec![0.3_f32, -1.2, 0.8], &[3]);
    let (p, _) = softmax_and_entropy(&f32_scores, &Tensor::scalar(1.0_f32));
    assert!((p.sum().to_scalar() - 1.0).abs() < 1e-6);
    for generated in [
        rk2_oscillator_stages::GENERATED,
        softmax_and_entropy::GENERATED,
    ] {
        assert!(generated.contains("trace_parts("), "{generated}");
        assert!(generated.contains("__gradtape_traced_"), "{generated}");
    }
    // one run of the body per call, under a tape and in the gradient's sweep
    let total = |(x, v): (Tensor<f64>, Tensor<f64>)| (x * 3.0 + v).sum();
    let tape = gradtape::GradientTape::persistent();
    tape.watch(&x0);
    let before = OSCILLATOR_RUNS.load(std::sync::atomic::Ordering::Relaxed);
    let y = tape.record(|| total(rk2_oscillator_stages(&x0, &v0, &k, 0.3)));
    assert_eq!(
        OSCILLATOR_RUNS.load(std::sync::atomic::Ordering::Relaxed) - before,
        1
    );
    let dx = tape.gradient(&y, &x0).unwrap().unwrap();
    assert_eq!(
        OSCILLATOR_RUNS.load(std::sync::atomic::Ordering::Relaxed) - before,
        1
    );
    let op_by_op = gradtape::GradientTape::new();
    op_by_op.watch(&x0);
    let y = op_by_op.record(|| total(rk2_oscillator_stages::primal(&x0, &v0, &k, 0.3)));
    let expected = op_by_op.gradient(&y, &x0).unwrap().unwrap();
    for (a, b) in dx.to_vec().iter().zip(expected.to_vec()) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
}
