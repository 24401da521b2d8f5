//! A new user's first try (issue 13, session 31): twenty-six functions written as people write
//! them, without looking at what the attribute supports, then annotated. Six were
//! rejected: two for forms fixed the same session (a closure returning a pair
//! destructured at its call, `let (k1x, k1v) = f(x, v);`, and `let [a, b, c] = *p;`),
//! which are here; four still are (listed in `docs/CORPUS.md`). The 22 accepted are each
//! checked through their faces against central differences and at second order
//! (`Case::check_with_second_order`; the running maximum at first order only).
//!
//! A second round of twenty, on plain numbers again (a struct of parameters, a
//! simulated price path with a running maximum, a bond, springs, a sort by swaps, ragged
//! rows, logistic regression, generic helpers, recursion, an early exit, `f32` mixed with
//! `f64`, a sub-slice, constant options, a writer called by another): one was rejected, an
//! option's `map(..).unwrap_or(..)` with a closure over a differentiable value, accepted
//! since (`OptionCombinators`); all are checked the same way.
//!
//! A third round of models as structs with methods: a linear model whose `loss` method
//! calls its `predict` method, springs nested in a struct, a polynomial holding a `Vec`,
//! a simulation's configuration as a constant `self` called by another function: all
//! accepted and checked the same way.
//!
//! Then eight tensor functions of the same kind (a small network, attention, a recurrent
//! cell over slices, Huber, layer normalisation, polynomial features, a gate decided on
//! the values, sparse cross-entropy): all accepted, each checked against the op-by-op tape
//! of its `f::primal` and central differences at orders 1 and 2 (`check_annotated`).

#![allow(clippy::excessive_precision, clippy::let_and_return)]

#[macro_use]
mod common;

use common::faces::Case;
use common::{Tolerance, check_annotated};
use gradtape::{Differentiable, Tensor, differentiable};
use num_traits::Float;

/// A `Case` from the faces written out, `grad` standing in for `grad_into`.
macro_rules! faces {
    ($f:ident, $itself:expr, $primal:expr, $grad:expr, $jvp:expr) => {
        Case {
            name: stringify!($f),
            itself: &$itself,
            primal: &$primal,
            grad: Some(&$grad),
            grad_into: &$grad,
            jvp: &$jvp,
        }
    };
}

/// A function of one slice, checked with second order at `x`.
macro_rules! one_slice {
    ($f:ident at $x:expr) => {
        faces!(
            $f,
            |x| $f(x),
            |x| $f::primal(x),
            |x| {
                let (v, [g]) = $f::grad(x);
                (v, g)
            },
            |x, t| $f::jvp(x, t)
        )
        .check_with_second_order(&$x)
    };
}

/// A function of a slice and a number, on the flat point `[x.., k]`, checked with second
/// order.
macro_rules! slice_and_float {
    ($f:ident at $x:expr) => {{
        let x: Vec<f64> = $x;
        let n = x.len() - 1;
        faces!(
            $f,
            |x| $f(&x[..n], x[n]),
            |x| $f::primal(&x[..n], x[n]),
            |x| {
                let (v, (gs, gf)) = $f::grad(&x[..n], x[n]);
                (v, [gs, vec![gf]].concat())
            },
            |x, t| $f::jvp(&x[..n], x[n], &t[..n], t[n])
        )
        .check_with_second_order(&x)
    }};
}

// ----- losses and statistics -----

#[differentiable]
fn softmax_xent(logits: &[f64], label: usize) -> f64 {
    let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = logits.iter().map(|z| (z - m).exp()).collect();
    let total: f64 = exps.iter().sum();
    -(exps[label] / total).ln()
}

#[differentiable]
fn kahan_sum_of_squares(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    let mut comp = 0.0;
    for &v in x {
        let y = v * v - comp;
        let t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    sum
}

#[differentiable]
fn cumulative_sum_of_squares(x: &[f64]) -> f64 {
    let mut c = Vec::with_capacity(x.len());
    let mut run = 0.0;
    for v in x {
        run += v;
        c.push(run);
    }
    c.iter().map(|v| v * v).sum()
}

#[differentiable]
fn scaled_norm(x: &[f64], s: f64) -> f64 {
    let scaled: Vec<f64> = x.iter().map(|v| v * s).collect();
    let norm = scaled.iter().map(|v| v * v).sum::<f64>().sqrt();
    norm
}

#[differentiable]
fn largest_by_fold(x: &[f64]) -> f64 {
    x.iter().copied().fold(f64::MIN, f64::max)
}

#[differentiable]
fn generic_norm<T: Float + std::iter::Sum>(x: &[T]) -> T {
    x.iter().map(|&v| v * v).sum::<T>().sqrt()
}

#[differentiable]
fn scaled_in_place_sum(x: &[f64], s: f64) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut() {
        *e *= s.sin() + *e;
    }
    v.iter().sum()
}

#[differentiable]
fn roughness(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[differentiable]
fn chunk_products(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for pair in x.chunks(2) {
        total += pair[0] * pair[pair.len() - 1];
    }
    total
}

#[differentiable]
fn triple_products(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    a.iter().zip(b).zip(c).map(|((x, y), z)| x * y * z).sum()
}

// ----- numerical methods -----

#[differentiable]
fn newton_cbrt(a: f64) -> f64 {
    let mut y = a;
    let r = loop {
        let next = y - (y * y * y - a) / (3.0 * y * y);
        if (next - y).abs() < 1e-13 {
            break next;
        }
        y = next;
    };
    r
}

#[differentiable]
fn simpson(x: f64, n: usize) -> f64 {
    let f = |t: f64| (t * x).sin();
    let h = 1.0 / n as f64;
    let mut s = f(0.0) + f(1.0);
    for i in 1..n {
        let t = i as f64 * h;
        s += if i % 2 == 1 { 4.0 * f(t) } else { 2.0 * f(t) };
    }
    s * h / 3.0
}

#[differentiable]
fn horner_by_fold(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

#[differentiable]
fn table_lookup(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    let i = xs
        .iter()
        .position(|&v| v > x)
        .unwrap_or(xs.len() - 1)
        .max(1);
    let t = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
    ys[i - 1] * (1.0 - t) + ys[i] * t
}

/// A damped oscillator by classical Runge–Kutta, the rate a closure returning a pair.
#[differentiable]
fn rk4_pair(x0: f64, v0: f64, dt: f64) -> f64 {
    let f = |x: f64, v: f64| (v, -x - 0.1 * v);
    let (mut x, mut v) = (x0, v0);
    for _ in 0..20 {
        let (k1x, k1v) = f(x, v);
        let (k2x, k2v) = f(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v);
        let (k3x, k3v) = f(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v);
        let (k4x, k4v) = f(x + dt * k3x, v + dt * k3v);
        x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    x
}

// ----- geometry, finance, models -----

#[differentiable]
fn destructured_point(p: &[f64; 3]) -> f64 {
    let [a, b, c] = *p;
    a * b + c.sin()
}

#[differentiable]
fn weighted_rows(m: &[[f64; 3]], x: &[f64; 3]) -> f64 {
    let mut total = 0.0;
    for (i, row) in m.iter().enumerate() {
        let dot = row[0] * x[0] + row[1] * x[1] + row[2] * x[2];
        total += (i as f64 + 1.0) * dot.tanh();
    }
    total
}

const G: f64 = 9.81;

#[differentiable]
fn projectile_range(v: f64, angle: f64) -> f64 {
    const DRAG: f64 = 0.01;
    let (s, c) = angle.sin_cos();
    2.0 * v * v * s * c / G * (1.0 - DRAG * v)
}

#[differentiable]
fn clamped_blend(x: f64, lo: f64, hi: f64) -> f64 {
    let a = f64::max(x, lo);
    let b = a.min(hi);
    b.clamp(lo, hi) + x.hypot(lo).atan2(hi)
}

/// An approximation of `erf` (Abramowitz and Stegun 7.1.25's first term), generic.
fn erf_approx<T: Float>(x: T) -> T {
    let t = T::one() / (T::one() + T::from(0.3275911).unwrap() * x.abs());
    let y = T::one() - t * (-x * x).exp();
    if x < T::zero() { -y } else { y }
}

#[differentiable(plain(erf_approx))]
fn call_price(s: f64, k: f64, sigma: f64, t: f64, r: f64) -> f64 {
    let d1 = ((s / k).ln() + (r + sigma * sigma / 2.0) * t) / (sigma * t.sqrt());
    let d2 = d1 - sigma * t.sqrt();
    let n = |d: f64| 0.5 * (1.0 + erf_approx(d / 2.0_f64.sqrt()));
    s * n(d1) - k * (-r * t).exp() * n(d2)
}

/// A shape, read by `match` with bindings.
enum Shape {
    Circle(f64),
    Rect { w: f64, h: f64 },
}

#[differentiable]
fn scaled_area(scale: f64, shape: &Shape) -> f64 {
    match shape {
        Shape::Circle(r) => std::f64::consts::PI * (r * scale).powi(2),
        Shape::Rect { w, h } => w * h * scale * scale,
    }
}

/// A polynomial model.
struct Cubic {
    w: [f64; 3],
    b: f64,
}

#[differentiable]
impl Cubic {
    #[differentiable]
    fn forward(&self, x: f64) -> f64 {
        let mut h = self.b;
        for (i, w) in self.w.iter().enumerate() {
            h += w * x.powi(i as i32 + 1);
        }
        h.tanh()
    }
}

// ----- a second round -----

#[derive(Differentiable, Clone, Copy, Debug)]
struct Normal {
    mu: f64,
    log_sigma: f64,
}

#[differentiable(constant(data))]
fn gaussian_nll(#[differentiable] p: &Normal, data: &[f64]) -> f64 {
    let sigma = p.log_sigma.exp();
    let mut nll = 0.0;
    for &x in data {
        let z = (x - p.mu) / sigma;
        nll += 0.5 * z * z + p.log_sigma;
    }
    nll / data.len() as f64
}

#[differentiable(constant(shocks))]
fn lookback_payoff(s0: f64, mu: f64, sigma: f64, shocks: &[f64]) -> f64 {
    let dt = 1.0 / 252.0;
    let mut s = s0;
    let mut path_max = s0;
    for z in shocks {
        s *= ((mu - 0.5 * sigma * sigma) * dt + sigma * dt.sqrt() * z).exp();
        if s > path_max {
            path_max = s;
        }
    }
    (path_max - s0).max(0.0)
}

#[differentiable]
fn bond_price(rate: f64, coupon: f64, years: u32) -> f64 {
    let mut price = 0.0;
    for t in 1..=years {
        price += coupon / (1.0 + rate).powi(t as i32);
    }
    price + 100.0 / (1.0 + rate).powf(years as f64)
}

#[differentiable]
fn spring_chain(x: &[f64], k: f64) -> f64 {
    let n = x.len();
    let mut e = 0.0;
    for i in 0..n - 1 {
        let d = x[i + 1] - x[i] - 1.0;
        e += 0.5 * k * d * d;
    }
    e
}

#[differentiable]
fn ranked_weights(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let n = v.len();
    for i in 0..n {
        for j in 0..n - 1 - i {
            if v[j] > v[j + 1] {
                v.swap(j, j + 1);
            }
        }
    }
    v.iter()
        .enumerate()
        .map(|(i, x)| (i as f64 + 1.0) * x)
        .sum()
}

#[differentiable]
fn ragged_norm(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut total = 0.0;
    for row in m {
        let dot: f64 = row.iter().zip(x).map(|(a, b)| a * b).sum();
        total += dot * dot;
    }
    total.sqrt()
}

#[differentiable(constant(xs, ys))]
fn logistic_loss(w: &[f64], xs: &[[f64; 2]], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z = w[0] * x[0] + w[1] * x[1] + w[2];
        let p = 1.0 / (1.0 + (-z).exp());
        loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    loss / ys.len() as f64
}

#[differentiable]
fn generic_lerp<T: Float>(a: T, b: T, t: T) -> T {
    a + (b - a) * t
}

#[differentiable]
fn calls_generic(x: f64, y: f64) -> f64 {
    let m = generic_lerp(x, y, 0.25);
    m * generic_lerp(y, x, 0.5)
}

#[differentiable]
fn recursive_power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * recursive_power(x, n - 1)
    }
}

#[differentiable]
fn early_exit_search(x: &[f64], threshold: f64) -> f64 {
    for (i, &v) in x.iter().enumerate() {
        if v * v > threshold {
            return v * i as f64;
        }
    }
    x.iter().sum::<f64>()
}

#[differentiable]
fn f32_mix(x: f32, y: f64) -> f64 {
    let a = (x * 2.0).sin() as f64;
    a * y + (y as f32).exp() as f64
}

#[differentiable]
fn trapezoid(ys: &[f64], dx: f64) -> f64 {
    let n = ys.len();
    let inner: f64 = ys[1..n - 1].iter().sum();
    dx * (0.5 * (ys[0] + ys[n - 1]) + inner)
}

#[differentiable]
fn option_chain(x: f64, maybe: Option<f64>) -> f64 {
    let s = maybe.unwrap_or(1.0);
    let v = maybe.map(|m| m * x).unwrap_or(x);
    s * v
}

#[differentiable]
fn two_pass_variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
}

#[differentiable]
fn softplus_sum(x: &[f64]) -> f64 {
    x.iter()
        .map(|&v| if v > 20.0 { v } else { v.exp().ln_1p() })
        .sum()
}

#[differentiable]
fn weighted_mean_by_index(x: &[f64], w: &[f64]) -> f64 {
    let mut num = 0.0;
    let mut den = 0.0;
    for i in 0..x.len() {
        num += w[i] * x[i];
        den += w[i];
    }
    num / den
}

#[differentiable]
fn tanh_into(x: &[f64], out: &mut [f64]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o = v.tanh();
    }
}

#[differentiable]
fn sum_of_tanh_squares(x: &[f64]) -> f64 {
    let mut buf = vec![0.0; x.len()];
    tanh_into(x, &mut buf);
    buf.iter().map(|v| v * v).sum()
}

#[differentiable]
fn two_distances(x: f64, y: f64) -> f64 {
    let sq = |v: f64| v * v;
    let dist = |a: f64, b: f64| (sq(a) + sq(b)).sqrt();
    dist(x, y) + dist(x - 1.0, y + 2.0)
}

// ----- a third round: models as structs -----

#[derive(Differentiable, Clone, Debug)]
struct LinearModel {
    w: [f64; 3],
    b: f64,
}

#[differentiable]
impl LinearModel {
    #[differentiable]
    fn predict(#[differentiable] &self, x: &[f64; 3]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
    }

    #[differentiable(constant(xs, ys))]
    fn loss(#[differentiable] &self, xs: &[[f64; 3]], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let r = self.predict(x) - y;
            total += r * r;
        }
        total / ys.len() as f64
    }
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct Spring {
    k: f64,
    rest: f64,
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct SpringPair {
    left: Spring,
    right: Spring,
}

#[differentiable]
fn pair_energy(#[differentiable] p: &SpringPair, x: f64) -> f64 {
    let dl = x - p.left.rest;
    let dr = x - p.right.rest;
    0.5 * p.left.k * dl * dl + 0.5 * p.right.k * dr * dr
}

#[derive(Differentiable, Clone, Debug)]
struct Polynomial {
    coeffs: Vec<f64>,
}

#[differentiable]
impl Polynomial {
    #[differentiable]
    fn eval(#[differentiable] &self, x: f64) -> f64 {
        let mut acc = 0.0;
        for c in self.coeffs.iter().rev() {
            acc = acc * x + c;
        }
        acc
    }
}

struct Simulation {
    dt: f64,
    steps: usize,
}

#[differentiable]
impl Simulation {
    #[differentiable]
    fn run(&self, x0: f64, v0: f64, k: f64) -> f64 {
        let (mut x, mut v) = (x0, v0);
        for _ in 0..self.steps {
            v -= self.dt * k * x;
            x += self.dt * v;
        }
        x * x + v * v
    }
}

#[differentiable]
fn simulated(x: f64, k: f64) -> f64 {
    let sim = Simulation {
        dt: 0.01,
        steps: 100,
    };
    sim.run(x, 0.0, k)
}

// ----- tensors -----

#[differentiable]
fn mlp(x: &Tensor<f64>, w1: &Tensor<f64>, b1: &Tensor<f64>, w2: &Tensor<f64>) -> Tensor<f64> {
    let h = x.matmul(w1) + b1;
    let h = h.tanh();
    let y = h.matmul(w2);
    (&y * &y).mean()
}

#[differentiable]
fn attention(q: &Tensor<f64>, k: &Tensor<f64>, v: &Tensor<f64>) -> Tensor<f64> {
    let d = q.shape()[1] as f64;
    let scores = q.matmul(&k.transpose()) / d.sqrt();
    let weights = scores.softmax(1);
    weights.matmul(v).sum()
}

#[differentiable]
fn rnn(xs: &Tensor<f64>, w: &Tensor<f64>, u: &Tensor<f64>) -> Tensor<f64> {
    let steps = xs.shape()[0];
    let mut h = Tensor::zeros(&[1, w.shape()[1]]);
    for t in 0..steps {
        let x_t = xs.slice(0, t, 1);
        h = (x_t.matmul(w) + h.matmul(u)).tanh();
    }
    h.sum()
}

#[differentiable]
fn huber(pred: &Tensor<f64>, target: &Tensor<f64>, delta: f64) -> Tensor<f64> {
    let r = (pred - target).abs();
    let quad = r.clamp(0.0, delta);
    let lin = &r - &quad;
    (quad.square() * 0.5 + lin * delta).mean()
}

#[differentiable]
fn layer_norm(x: &Tensor<f64>, gamma: &Tensor<f64>) -> Tensor<f64> {
    let mu = x.mean_axis(1, true);
    let centered = x - &mu;
    let var = (&centered * &centered).mean_axis(1, true);
    let y = centered / (var + 1e-5).sqrt();
    (y * gamma).sum()
}

#[differentiable]
fn poly_features(x: &Tensor<f64>, coeffs: &[f64]) -> Tensor<f64> {
    let mut acc = x * 0.0;
    let mut p = Tensor::ones(x.shape());
    for &c in coeffs {
        acc = acc + &p * c;
        p = p * x;
    }
    acc.sum()
}

#[differentiable]
fn gated(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let z = x.matmul(w);
    let gate = z.sigmoid();
    let out = &z * &gate;
    if out.sum().to_scalar() > 0.0 {
        out.sum()
    } else {
        (out * 2.0).sum()
    }
}

#[differentiable]
fn xent(logits: &Tensor<f64>, labels: &[usize]) -> Tensor<f64> {
    logits
        .sparse_softmax_cross_entropy_with_logits(labels)
        .mean()
}

// ----- the checks -----

#[test]
fn losses_and_statistics() {
    let x = vec![0.3, -1.2, 0.8, 0.1];
    faces!(
        softmax_xent,
        |x| softmax_xent(x, 2),
        |x| softmax_xent::primal(x, 2),
        |x| {
            let (v, [g]) = softmax_xent::grad(x, 2);
            (v, g)
        },
        |x, t| softmax_xent::jvp(x, 2, t)
    )
    .check_with_second_order(&x);
    one_slice!(kahan_sum_of_squares at x);
    one_slice!(cumulative_sum_of_squares at x);
    one_slice!(roughness at x);
    one_slice!(chunk_products at x);
    one_slice!(chunk_products at [0.5, -0.7, 1.1]);
    one_slice!(generic_norm at x);
    // the largest unique: a kink only where two tie
    faces!(
        largest_by_fold,
        |x| largest_by_fold(x),
        |x| largest_by_fold::primal(x),
        |x| {
            let (v, [g]) = largest_by_fold::grad(x);
            (v, g)
        },
        |x, t| largest_by_fold::jvp(x, t)
    )
    .check(&x);
    slice_and_float!(scaled_norm at vec![0.3, -1.2, 0.8, 1.7]);
    slice_and_float!(scaled_in_place_sum at vec![0.3, -1.2, 0.8, 1.7]);
    slice_and_float!(horner_by_fold at vec![0.5, -1.0, 0.25, 2.0, 0.7]);
    let split3 = |x: &[f64]| (x[0..2].to_vec(), x[2..4].to_vec(), x[4..6].to_vec());
    faces!(
        triple_products,
        |x| {
            let (a, b, c) = split3(x);
            triple_products(&a, &b, &c)
        },
        |x| {
            let (a, b, c) = split3(x);
            triple_products::primal(&a, &b, &c)
        },
        |x| {
            let (a, b, c) = split3(x);
            let (v, [ga, gb, gc]) = triple_products::grad(&a, &b, &c);
            (v, [ga, gb, gc].concat())
        },
        |x, t| {
            let (a, b, c) = split3(x);
            let (ta, tb, tc) = split3(t);
            triple_products::jvp(&a, &b, &c, &ta, &tb, &tc)
        }
    )
    .check_with_second_order(&[0.3, -1.2, 0.8, 0.5, 1.1, -0.4]);
}

#[test]
fn numerical_methods() {
    numbers!(newton_cbrt(0)).check_with_second_order(&[2.0]);
    numbers!(newton_cbrt(0)).check_with_second_order(&[0.6]);
    faces!(
        simpson,
        |x| simpson(x[0], 8),
        |x| simpson::primal(x[0], 8),
        |x| {
            let (v, g) = simpson::grad(x[0], 8);
            (v, g.to_vec())
        },
        |x, t| simpson::jvp(x[0], 8, t[0])
    )
    .check_with_second_order(&[1.3]);
    numbers!(rk4_pair(0, 1, 2)).check_with_second_order(&[1.0, 0.2, 0.1]);
    // inside the second interval, and past the last point (extrapolated)
    for x in [0.7, 2.6] {
        let (xs, n) = ([0.0, 0.5, 1.0, 2.0], 4);
        let xs = &xs;
        faces!(
            table_lookup,
            |y| table_lookup(xs, &y[..n], y[n]),
            |y| table_lookup::primal(xs, &y[..n], y[n]),
            |y| {
                let (v, (gx, gy, g)) = table_lookup::grad(xs, &y[..n], y[n]);
                assert!(gx.iter().all(|g| g.is_finite()));
                (v, [gy, vec![g]].concat())
            },
            |y, t| table_lookup::jvp(xs, &y[..n], y[n], &[0.0; 4], &t[..n], t[n])
        )
        .check_with_second_order(&[1.0, 0.4, -0.3, 2.0, x]);
    }
}

#[test]
fn geometry_finance_models() {
    faces!(
        destructured_point,
        |x| destructured_point(&[x[0], x[1], x[2]]),
        |x| destructured_point::primal(&[x[0], x[1], x[2]]),
        |x| {
            let (v, [g]) = destructured_point::grad(&[x[0], x[1], x[2]]);
            (v, g.to_vec())
        },
        |x, t| destructured_point::jvp(&[x[0], x[1], x[2]], &[t[0], t[1], t[2]])
    )
    .check_with_second_order(&[0.4, -1.1, 0.9]);
    let rows = |x: &[f64]| -> Vec<[f64; 3]> { x.chunks(3).map(|r| [r[0], r[1], r[2]]).collect() };
    let at = |x: &[f64]| (rows(&x[..6]), [x[6], x[7], x[8]]);
    faces!(
        weighted_rows,
        |x| {
            let (m, p) = at(x);
            weighted_rows(&m, &p)
        },
        |x| {
            let (m, p) = at(x);
            weighted_rows::primal(&m, &p)
        },
        |x| {
            let (m, p) = at(x);
            let (v, (gm, gp)) = weighted_rows::grad(&m, &p);
            (v, [gm.concat(), gp.to_vec()].concat())
        },
        |x, t| {
            let ((m, p), (tm, tp)) = (at(x), at(t));
            weighted_rows::jvp(&m, &p, &tm, &tp)
        }
    )
    .check_with_second_order(&[0.3, -0.2, 0.5, 0.1, 0.4, -0.6, 0.7, 1.1, -0.3]);
    numbers!(projectile_range(0, 1)).check_with_second_order(&[12.0, 0.6]);
    // x inside [lo, hi], below lo, above hi
    for x in [0.4, -0.5, 1.8] {
        numbers!(clamped_blend(0, 1, 2)).check_with_second_order(&[x, 0.1, 1.2]);
    }
    numbers!(call_price(0, 1, 2, 3, 4)).check_with_second_order(&[105.0, 100.0, 0.25, 0.75, 0.03]);
    for shape in [Shape::Circle(0.7), Shape::Rect { w: 1.5, h: 0.4 }] {
        let shape = &shape;
        faces!(
            scaled_area,
            |x| scaled_area(x[0], shape),
            |x| scaled_area::primal(x[0], shape),
            |x| {
                let (v, g) = scaled_area::grad(x[0], shape);
                (v, g.to_vec())
            },
            |x, t| scaled_area::jvp(x[0], shape, t[0])
        )
        .check_with_second_order(&[1.3]);
    }
    let model = Cubic {
        w: [0.5, -0.3, 0.2],
        b: 0.1,
    };
    let model = &model;
    faces!(
        forward,
        |x| model.forward(x[0]),
        |x| model.forward_primal(x[0]),
        |x| {
            let (v, g) = model.forward_grad(x[0]);
            (v, g.to_vec())
        },
        |x, t| model.forward_jvp(x[0], t[0])
    )
    .check_with_second_order(&[0.8]);
}

#[test]
fn a_second_round() {
    let data = [0.3, -1.1, 0.8, 2.2, 0.5];
    faces!(
        gaussian_nll,
        |x| gaussian_nll(
            &Normal {
                mu: x[0],
                log_sigma: x[1]
            },
            &data
        ),
        |x| gaussian_nll::primal(
            &Normal {
                mu: x[0],
                log_sigma: x[1]
            },
            &data
        ),
        |x| {
            let (v, [g]) = gaussian_nll::grad(
                &Normal {
                    mu: x[0],
                    log_sigma: x[1],
                },
                &data,
            );
            (v, vec![g.mu, g.log_sigma])
        },
        |x, t| gaussian_nll::jvp(
            &Normal {
                mu: x[0],
                log_sigma: x[1]
            },
            &data,
            &Normal {
                mu: t[0],
                log_sigma: t[1]
            }
        )
    )
    .check_with_second_order(&[0.4, -0.2]);
    let shocks = [0.5, 1.2, -0.3, 0.9, -1.5, 0.2];
    faces!(
        lookback_payoff,
        |x| lookback_payoff(x[0], x[1], x[2], &shocks),
        |x| lookback_payoff::primal(x[0], x[1], x[2], &shocks),
        |x| {
            let (v, g) = lookback_payoff::grad(x[0], x[1], x[2], &shocks);
            (v, g.to_vec())
        },
        |x, t| lookback_payoff::jvp(x[0], x[1], x[2], &shocks, t[0], t[1], t[2])
    )
    .check_with_second_order(&[100.0, 0.05, 0.3]);
    faces!(
        bond_price,
        |x| bond_price(x[0], x[1], 5),
        |x| bond_price::primal(x[0], x[1], 5),
        |x| {
            let (v, g) = bond_price::grad(x[0], x[1], 5);
            (v, g.to_vec())
        },
        |x, t| bond_price::jvp(x[0], x[1], 5, t[0], t[1])
    )
    .check_with_second_order(&[0.04, 3.0]);
    slice_and_float!(spring_chain at vec![0.0, 1.2, 1.9, 3.3, 2.0]);
    // one element squared is over the threshold: the early exit; none is: the sum
    slice_and_float!(early_exit_search at vec![0.3, -0.5, 1.4, 0.2, 1.0]);
    slice_and_float!(early_exit_search at vec![0.3, -0.5, 0.4, 0.2, 1.0]);
    slice_and_float!(trapezoid at vec![0.3, -0.5, 1.4, 0.2, 0.1]);
    // distinct values, so that the order is fixed near the point
    one_slice!(ranked_weights at [0.9, -0.4, 1.7, 0.2]);
    one_slice!(two_pass_variance at [0.9, -0.4, 1.7, 0.2]);
    one_slice!(softplus_sum at [0.9, -0.4, 21.7, 0.2]);
    one_slice!(sum_of_tanh_squares at [0.9, -0.4, 1.7, 0.2]);
    let ragged = |x: &[f64]| {
        (
            vec![x[0..2].to_vec(), x[2..5].to_vec(), x[5..6].to_vec()],
            x[6..9].to_vec(),
        )
    };
    faces!(
        ragged_norm,
        |x| {
            let (m, v) = ragged(x);
            ragged_norm(&m, &v)
        },
        |x| {
            let (m, v) = ragged(x);
            ragged_norm::primal(&m, &v)
        },
        |x| {
            let (m, v) = ragged(x);
            let (value, (gm, gv)) = ragged_norm::grad(&m, &v);
            (value, [gm.concat(), gv].concat())
        },
        |x, t| {
            let ((m, v), (tm, tv)) = (ragged(x), ragged(t));
            ragged_norm::jvp(&m, &v, &tm, &tv)
        }
    )
    .check_with_second_order(&[0.3, -0.2, 0.5, 0.1, 0.4, -0.6, 0.7, 1.1, -0.3]);
    let xs = [[0.5, 1.0], [-1.2, 0.3], [0.8, -0.7], [0.1, 0.1]];
    let ys = [1.0, 0.0, 1.0, 0.0];
    faces!(
        logistic_loss,
        |w| logistic_loss(w, &xs, &ys),
        |w| logistic_loss::primal(w, &xs, &ys),
        |w| {
            let (v, [g]) = logistic_loss::grad(w, &xs, &ys);
            (v, g)
        },
        |w, t| logistic_loss::jvp(w, &xs, &ys, t)
    )
    .check_with_second_order(&[0.3, -0.8, 0.1]);
    numbers!(calls_generic(0, 1)).check_with_second_order(&[0.7, -1.3]);
    faces!(
        recursive_power,
        |x| recursive_power(x[0], 4),
        |x| recursive_power::primal(x[0], 4),
        |x| {
            let (v, g) = recursive_power::grad(x[0], 4);
            (v, g.to_vec())
        },
        |x, t| recursive_power::jvp(x[0], 4, t[0])
    )
    .check_with_second_order(&[1.3]);
    // `f32` through its own faces, at a tolerance of `f32`
    let (value, (gx, gy)) = f32_mix::grad(0.4, 0.7);
    assert_eq!(value.to_bits(), f32_mix(0.4, 0.7).to_bits());
    let h = 1e-3;
    let by_x = (f32_mix(0.4 + h as f32, 0.7) - f32_mix(0.4 - h as f32, 0.7)) / (2.0 * h);
    let by_y = (f32_mix(0.4, 0.7 + h) - f32_mix(0.4, 0.7 - h)) / (2.0 * h);
    assert!(
        (f64::from(gx) - by_x).abs() < 1e-2 * (1.0 + by_x.abs()),
        "{gx} vs {by_x}"
    );
    assert!(
        (gy - by_y).abs() < 1e-3 * (1.0 + by_y.abs()),
        "{gy} vs {by_y}"
    );
    for maybe in [Some(1.7), None] {
        faces!(
            option_chain,
            |x| option_chain(x[0], maybe),
            |x| option_chain::primal(x[0], maybe),
            |x| {
                let (v, g) = option_chain::grad(x[0], maybe);
                (v, g.to_vec())
            },
            |x, t| option_chain::jvp(x[0], maybe, t[0])
        )
        .check_with_second_order(&[0.6]);
    }
    let split = |x: &[f64]| (x[..3].to_vec(), x[3..].to_vec());
    faces!(
        weighted_mean_by_index,
        |x| {
            let (a, b) = split(x);
            weighted_mean_by_index(&a, &b)
        },
        |x| {
            let (a, b) = split(x);
            weighted_mean_by_index::primal(&a, &b)
        },
        |x| {
            let (a, b) = split(x);
            let (v, [ga, gb]) = weighted_mean_by_index::grad(&a, &b);
            (v, [ga, gb].concat())
        },
        |x, t| {
            let ((a, b), (ta, tb)) = (split(x), split(t));
            weighted_mean_by_index::jvp(&a, &b, &ta, &tb)
        }
    )
    .check_with_second_order(&[0.3, -1.2, 0.8, 0.5, 1.1, 0.7]);
    numbers!(two_distances(0, 1)).check_with_second_order(&[0.7, -1.3]);
}

#[test]
fn a_third_round_of_models() {
    let xs = [
        [0.5, 1.0, -0.2],
        [-1.2, 0.3, 0.8],
        [0.8, -0.7, 0.1],
        [0.1, 0.1, 0.9],
    ];
    let ys = [1.0, -0.5, 0.3, 0.7];
    let model = |x: &[f64]| LinearModel {
        w: [x[0], x[1], x[2]],
        b: x[3],
    };
    faces!(
        loss,
        |x| model(x).loss(&xs, &ys),
        |x| model(x).loss_primal(&xs, &ys),
        |x| {
            let (v, [g]) = model(x).loss_grad(&xs, &ys);
            (v, vec![g.w[0], g.w[1], g.w[2], g.b])
        },
        |x, t| model(x).loss_jvp(&xs, &ys, &model(t))
    )
    .check_with_second_order(&[0.3, -0.8, 0.1, 0.2]);
    let springs = |x: &[f64]| SpringPair {
        left: Spring {
            k: x[0],
            rest: x[1],
        },
        right: Spring {
            k: x[2],
            rest: x[3],
        },
    };
    faces!(
        pair_energy,
        |x| pair_energy(&springs(x), x[4]),
        |x| pair_energy::primal(&springs(x), x[4]),
        |x| {
            let (v, (p, gx)) = pair_energy::grad(&springs(x), x[4]);
            (v, vec![p.left.k, p.left.rest, p.right.k, p.right.rest, gx])
        },
        |x, t| pair_energy::jvp(&springs(x), x[4], &springs(t), t[4])
    )
    .check_with_second_order(&[2.0, -0.5, 3.0, 1.0, 0.4]);
    let poly = |x: &[f64]| Polynomial {
        coeffs: x[..4].to_vec(),
    };
    faces!(
        eval,
        |x| poly(x).eval(x[4]),
        |x| poly(x).eval_primal(x[4]),
        |x| {
            let (v, (p, gx)) = poly(x).eval_grad(x[4]);
            (v, [p.coeffs, vec![gx]].concat())
        },
        |x, t| poly(x).eval_jvp(x[4], &poly(t), t[4])
    )
    .check_with_second_order(&[0.5, -1.0, 0.25, 2.0, 0.7]);
    numbers!(simulated(0, 1)).check_with_second_order(&[0.8, 2.5]);
}

/// A matrix of `rows × cols` with values spread over about [-1, 1] by `seed`.
fn matrix(rows: usize, cols: usize, seed: u64) -> Tensor<f64> {
    let values = common::faces::point(rows * cols, seed, -1.0, 1.0);
    Tensor::from_vec(values, &[rows, cols])
}

/// Checks a tensor function of the inputs against its op-by-op tape and differences.
fn tensor_check(
    name: &str,
    inputs: &[Tensor<f64>],
    fused: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>,
    plain: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>,
) {
    if let Err(message) = check_annotated(name, inputs, fused, plain, Tolerance::F64, 7) {
        panic!("{message}");
    }
}

#[test]
fn tensor_functions() {
    let (x, w1, b1, w2) = (
        matrix(3, 4, 1),
        matrix(4, 5, 2),
        matrix(1, 5, 3),
        matrix(5, 2, 4),
    );
    tensor_check(
        "mlp",
        &[x, w1, b1, w2],
        &|t| mlp(&t[0], &t[1], &t[2], &t[3]),
        &|t| mlp::primal(&t[0], &t[1], &t[2], &t[3]),
    );
    tensor_check(
        "attention",
        &[matrix(3, 4, 5), matrix(5, 4, 6), matrix(5, 2, 7)],
        &|t| attention(&t[0], &t[1], &t[2]),
        &|t| attention::primal(&t[0], &t[1], &t[2]),
    );
    tensor_check(
        "rnn",
        &[matrix(4, 3, 8), matrix(3, 5, 9), matrix(5, 5, 10)],
        &|t| rnn(&t[0], &t[1], &t[2]),
        &|t| rnn::primal(&t[0], &t[1], &t[2]),
    );
    // residuals on both sides of δ = 0.5, none at 0 or δ
    let pred = Tensor::from_vec(vec![0.3, -1.2, 0.9, 2.0], &[4]);
    let target = Tensor::from_vec(vec![0.1, 0.4, 0.65, 1.1], &[4]);
    tensor_check(
        "huber",
        &[pred, target],
        &|t| huber(&t[0], &t[1], 0.5),
        &|t| huber::primal(&t[0], &t[1], 0.5),
    );
    tensor_check(
        "layer_norm",
        &[matrix(3, 4, 11), matrix(1, 4, 12)],
        &|t| layer_norm(&t[0], &t[1]),
        &|t| layer_norm::primal(&t[0], &t[1]),
    );
    let coeffs = [0.5, -1.0, 0.25, 2.0];
    tensor_check(
        "poly_features",
        &[matrix(2, 3, 13)],
        &|t| poly_features(&t[0], &coeffs),
        &|t| poly_features::primal(&t[0], &coeffs),
    );
    // both branches: the gated sum positive, then negative
    let gated_sum = |x: &Tensor<f64>, w: &Tensor<f64>| {
        let z = x.matmul(w);
        (&z * &z.sigmoid()).sum().to_scalar()
    };
    let (x, w) = (matrix(2, 4, 15), matrix(4, 3, 14));
    let w_flipped = &w * -1.0;
    assert!(gated_sum(&x, &w) > 0.0 && gated_sum(&x, &w_flipped) < 0.0);
    for w in [w, w_flipped] {
        tensor_check("gated", &[x.clone(), w], &|t| gated(&t[0], &t[1]), &|t| {
            gated::primal(&t[0], &t[1])
        });
    }
    let labels = [2, 0, 1];
    tensor_check(
        "xent",
        &[matrix(3, 4, 16)],
        &|t| xent(&t[0], &labels),
        &|t| xent::primal(&t[0], &labels),
    );
}
