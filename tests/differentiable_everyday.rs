//! Everyday functions of five kinds, annotated as a user writes them (issue 13's hunt,
//! session 15): geometry over fixed arrays and arrays of points, statistics and losses
//! over slices, finance, simulations, generic code, and a model as a struct whose method
//! reads its field arrays. Each is checked through its faces (`f`, `primal`, `grad`,
//! `jvp`) against central differences, and at second order where it is smooth.
//!
//! A second round: an n-body simulation over rows copied whole (`pos.to_vec()`), a
//! Gaussian-process quadratic form, a product with ragged rows grown by `push`, softmax
//! cross-entropy through a collected `Vec`, a `match` on a configuration enum, an `Option`
//! constant, a closure capturing a differentiable value, recursion, an early `return` from
//! a loop, a labelled `break` with a value, `let .. else`, a running maximum, a search by
//! `while`, tuple results, a `mut` parameter and casts.
//!
//! Four forms were rejected before this session, each now a named regression test:
//! - `let (mut x, mut v) = (0.0, 0.0);`, a tuple of constants into `mut` names later
//!   assigned differentiable values ("this name is not a `let mut` local"):
//!   `a_tuple_of_constants_into_mut_names`;
//! - a struct's field as an iterator source (`self.w.iter().zip(x.iter())`), ("`sum` is not
//!   a differentiable method"), and an array literal as one (`[h0, h1].iter()`):
//!   `struct_fields_as_iterator_sources`;
//! - rows of fixed width copied whole (`let mut p = pos.to_vec();` of `pos: &[[f64; 2]]`,
//!   "an array of rows is not copied whole"): `rows_copied_whole_and_simulated`;
//! - from the third round (ranges and element methods), `(0..n).map(|i| x[i] * y[i])
//!   .sum()` and `.collect()` over a range, `*x.first().unwrap()`, `x.last().unwrap()`
//!   and `v.swap(i, j)` ("not a differentiable method"): `ranges_ends_swaps_and_strides`;
//! - from the fourth round (methods calling methods, generic helpers, a `match` on a
//!   `bool`, a 3x3 product, Newton by `while`, a writer), an array destructured by a
//!   pattern, `let [w, x, y, z] = q;` ("must be bound to a plain name"):
//!   `methods_generics_and_array_patterns`.

#![allow(clippy::excessive_precision)]

#[macro_use]
mod common;

use common::faces::{Case, point};
use gradtape::differentiable;
use num_traits::Float;

/// A `Case` of a function of a flat point, `grad` flattened the same way (and standing in
/// for `grad_into`, as `numbers!` does).
macro_rules! flat {
    ($name:expr, $itself:expr, $primal:expr, $grad:expr, $jvp:expr) => {
        Case {
            name: $name,
            itself: &$itself,
            primal: &$primal,
            grad: Some(&$grad),
            grad_into: &$grad,
            jvp: &$jvp,
        }
    };
}

fn a3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

fn a2(x: &[f64]) -> [f64; 2] {
    [x[0], x[1]]
}

// ----- geometry -----

#[differentiable]
fn triangle_area(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f64 {
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let cx = u[1] * v[2] - u[2] * v[1];
    let cy = u[2] * v[0] - u[0] * v[2];
    let cz = u[0] * v[1] - u[1] * v[0];
    0.5 * (cx * cx + cy * cy + cz * cz).sqrt()
}

#[differentiable]
fn shoelace(points: &[[f64; 2]]) -> f64 {
    let n = points.len();
    let mut area = 0.0;
    for i in 0..n {
        let j = (i + 1) % n;
        area += points[i][0] * points[j][1] - points[j][0] * points[i][1];
    }
    area.abs() / 2.0
}

#[differentiable]
fn point_segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0);
    let (qx, qy) = (a[0] + t * dx, a[1] + t * dy);
    ((p[0] - qx).powi(2) + (p[1] - qy).powi(2)).sqrt()
}

#[test]
fn geometry() {
    let flat3 = |x: &[f64]| (a3(&x[0..3]), a3(&x[3..6]), a3(&x[6..9]));
    let x = vec![0.1, -0.2, 0.3, 1.2, 0.1, -0.4, 0.2, 0.9, 0.5];
    flat!(
        "triangle_area",
        |x: &[f64]| {
            let (a, b, c) = flat3(x);
            triangle_area(a, b, c)
        },
        |x: &[f64]| {
            let (a, b, c) = flat3(x);
            triangle_area::primal(a, b, c)
        },
        |x: &[f64]| {
            let (a, b, c) = flat3(x);
            let (value, [ga, gb, gc]) = triangle_area::grad(a, b, c);
            (value, [ga, gb, gc].concat())
        },
        |x: &[f64], t: &[f64]| {
            let (a, b, c) = flat3(x);
            let (ta, tb, tc) = flat3(t);
            triangle_area::jvp(a, b, c, &ta, &tb, &tc)
        }
    )
    .check_with_second_order(&x);

    let rows = |x: &[f64]| -> Vec<[f64; 2]> { x.chunks(2).map(a2).collect() };
    // a convex-ish pentagon, counter-clockwise
    let x = vec![0.0, 0.0, 1.1, 0.1, 1.3, 0.9, 0.6, 1.4, -0.2, 0.8];
    flat!(
        "shoelace",
        |x: &[f64]| shoelace(&rows(x)),
        |x: &[f64]| shoelace::primal(&rows(x)),
        |x: &[f64]| {
            let (value, [g]) = shoelace::grad(&rows(x));
            (value, g.concat())
        },
        |x: &[f64], t: &[f64]| shoelace::jvp(&rows(x), &rows(t))
    )
    .check_with_second_order(&x);

    let flat2 = |x: &[f64]| (a2(&x[0..2]), a2(&x[2..4]), a2(&x[4..6]));
    // the projection inside the segment (t in (0, 1)) and past its end (t clamped to 1)
    for x in [
        vec![0.4, 0.7, 0.0, 0.0, 1.0, 0.2],
        vec![1.6, 0.5, 0.0, 0.0, 1.0, 0.2],
    ] {
        flat!(
            "point_segment_distance",
            |x: &[f64]| {
                let (p, a, b) = flat2(x);
                point_segment_distance(p, a, b)
            },
            |x: &[f64]| {
                let (p, a, b) = flat2(x);
                point_segment_distance::primal(p, a, b)
            },
            |x: &[f64]| {
                let (p, a, b) = flat2(x);
                let (value, [gp, ga, gb]) = point_segment_distance::grad(p, a, b);
                (value, [gp, ga, gb].concat())
            },
            |x: &[f64], t: &[f64]| {
                let (p, a, b) = flat2(x);
                let (tp, ta, tb) = flat2(t);
                point_segment_distance::jvp(p, a, b, &tp, &ta, &tb)
            }
        )
        .check_with_second_order(&x);
    }
}

// ----- statistics and losses -----

#[differentiable]
fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let mut sxy = 0.0;
    let mut sxx = 0.0;
    let mut syy = 0.0;
    for (a, b) in x.iter().zip(y.iter()) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    sxy / (sxx * syy).sqrt()
}

#[differentiable]
fn normal_log_likelihood(data: &[f64], mu: f64, log_sigma: f64) -> f64 {
    let sigma = log_sigma.exp();
    let mut ll = 0.0;
    for &d in data {
        let z = (d - mu) / sigma;
        ll -= 0.5 * z * z + log_sigma + 0.5 * (2.0 * std::f64::consts::PI).ln();
    }
    ll
}

#[differentiable]
fn weighted_variance(x: &[f64], w: &[f64]) -> f64 {
    let total: f64 = w.iter().sum();
    let mean = x.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() / total;
    x.iter()
        .zip(w)
        .map(|(a, b)| b * (a - mean).powi(2))
        .sum::<f64>()
        / total
}

#[differentiable]
fn focal_loss(p: &[f64], labels: &[u8], gamma: f64) -> f64 {
    let mut loss = 0.0;
    for i in 0..p.len() {
        let pt = if labels[i] == 1 { p[i] } else { 1.0 - p[i] };
        loss -= (1.0 - pt).powf(gamma) * pt.ln();
    }
    loss / p.len() as f64
}

#[differentiable]
fn smooth_l1(pred: &[f64], target: &[f64], beta: f64) -> f64 {
    pred.iter()
        .zip(target)
        .map(|(p, t)| {
            let d = (p - t).abs();
            if d < beta {
                0.5 * d * d / beta
            } else {
                d - 0.5 * beta
            }
        })
        .sum()
}

#[differentiable]
fn cosine_similarity(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (na * nb)
}

/// `f(x: &[f64], y: &[f64])` of two slices of length `n`, checked with second order at the
/// flat point `[x.., y..]`.
macro_rules! two_slices {
    ($f:ident, $n:expr, $x:expr) => {{
        let n: usize = $n;
        flat!(
            stringify!($f),
            |x: &[f64]| $f(&x[..n], &x[n..]),
            |x: &[f64]| $f::primal(&x[..n], &x[n..]),
            |x: &[f64]| {
                let (value, [gx, gy]) = $f::grad(&x[..n], &x[n..]);
                (value, [gx, gy].concat())
            },
            |x: &[f64], t: &[f64]| $f::jvp(&x[..n], &x[n..], &t[..n], &t[n..])
        )
        .check_with_second_order($x)
    }};
}

#[test]
fn statistics_and_losses() {
    let x = point(14, 3, -1.0, 1.0);
    two_slices!(pearson, 7, &x);
    two_slices!(cosine_similarity, 7, &x);
    let mut xw = point(12, 5, -1.0, 1.0);
    for w in &mut xw[6..] {
        *w = 0.5 + w.abs(); // positive weights
    }
    two_slices!(weighted_variance, 6, &xw);
    // |pred - target| on both sides of beta = 0.4, none at the kink
    let pt = vec![0.1, 0.9, -0.3, 0.5, 0.0, 0.2, 0.6, -0.25, 0.15, 0.3];
    let (value, (gp, gt, _)) = smooth_l1::grad(&pt[..5], &pt[5..], 0.4);
    assert_eq!(value, smooth_l1(&pt[..5], &pt[5..], 0.4));
    let expected = common::central_differences(&|x| smooth_l1(&x[..5], &x[5..], 0.4), &pt);
    for (k, (g, e)) in [gp, gt].concat().iter().zip(&expected).enumerate() {
        assert!(
            common::close(*g, *e, 1e-6),
            "smooth_l1: d/dx{k} = {g}, differences {e}"
        );
    }

    let data = point(9, 7, -2.0, 2.0);
    let x = vec![0.3, -0.2];
    flat!(
        "normal_log_likelihood",
        |x: &[f64]| normal_log_likelihood(&data, x[0], x[1]),
        |x: &[f64]| normal_log_likelihood::primal(&data, x[0], x[1]),
        |x: &[f64]| {
            let (value, (_, gm, gs)) = normal_log_likelihood::grad(&data, x[0], x[1]);
            (value, vec![gm, gs])
        },
        |x: &[f64], t: &[f64]| {
            normal_log_likelihood::jvp(&data, x[0], x[1], &[0.0; 9], t[0], t[1])
        }
    )
    .check_with_second_order(&x);

    let labels = [1u8, 0, 1, 1, 0, 0];
    let x = vec![0.8, 0.3, 0.55, 0.9, 0.1, 0.45, 2.0];
    flat!(
        "focal_loss",
        |x: &[f64]| focal_loss(&x[..6], &labels, x[6]),
        |x: &[f64]| focal_loss::primal(&x[..6], &labels, x[6]),
        |x: &[f64]| {
            let (value, (gp, gg)) = focal_loss::grad(&x[..6], &labels, x[6]);
            (value, [gp, vec![gg]].concat())
        },
        |x: &[f64], t: &[f64]| focal_loss::jvp(&x[..6], &labels, x[6], &t[..6], t[6])
    )
    .check_with_second_order(&x);
}

// ----- finance -----

/// Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7), as a user writes `erf` for lack of
/// one in std.
#[differentiable]
fn erf_approx(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.3275911 * x);
    let y = 1.0
        - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
            + 0.254829592)
            * t
            * (-x * x).exp();
    sign * y
}

#[differentiable]
fn black_scholes_call(s: f64, k: f64, r: f64, sigma: f64, t: f64) -> f64 {
    let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / (sigma * t.sqrt());
    let d2 = d1 - sigma * t.sqrt();
    let n1 = 0.5 * (1.0 + erf_approx(d1 / std::f64::consts::SQRT_2));
    let n2 = 0.5 * (1.0 + erf_approx(d2 / std::f64::consts::SQRT_2));
    s * n1 - k * (-r * t).exp() * n2
}

#[differentiable]
fn bond_price(face: f64, coupon: f64, rate: f64, periods: usize) -> f64 {
    let mut price = 0.0;
    let mut discount = 1.0;
    for _ in 0..periods {
        discount /= 1.0 + rate;
        price += coupon * discount;
    }
    price + face * discount
}

#[test]
fn finance() {
    numbers!(black_scholes_call(0, 1, 2, 3, 4))
        .check_with_second_order(&[105.0, 100.0, 0.03, 0.25, 0.75]);
    // delta by hand: N(d1), an identity of the exact normal CDF (the terms in φ(d1) and
    // φ(d2) cancel); through the approximation they cancel to its accuracy only (5e-6
    // here), so this checks the value of the formula, the differences above its slope
    let (s, k, r, sigma, t) = (105.0, 100.0, 0.03, 0.25, 0.75);
    let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / (sigma * f64::sqrt(t));
    let (_, [delta, ..]) = black_scholes_call::grad(s, k, r, sigma, t);
    let n_d1 = 0.5 * (1.0 + erf_approx(d1 / std::f64::consts::SQRT_2));
    assert!(
        (delta - n_d1).abs() < 2e-5,
        "delta {delta} against N(d1) {n_d1}"
    );

    let x = vec![100.0, 4.5, 0.05];
    flat!(
        "bond_price",
        |x: &[f64]| bond_price(x[0], x[1], x[2], 10),
        |x: &[f64]| bond_price::primal(x[0], x[1], x[2], 10),
        |x: &[f64]| {
            let (value, [gf, gc, gr]) = bond_price::grad(x[0], x[1], x[2], 10);
            (value, vec![gf, gc, gr])
        },
        |x: &[f64], t: &[f64]| bond_price::jvp(x[0], x[1], x[2], 10, t[0], t[1], t[2])
    )
    .check_with_second_order(&x);
    // the price's derivative in the face value is the discount factor
    let (_, [d_face, _, _]) = bond_price::grad(100.0, 4.5, 0.05, 10);
    assert!((d_face - 1.05_f64.powi(-10)).abs() < 1e-14);
}

// ----- simulations -----

/// A driven oscillator integrated from rest, state declared as a tuple of constants:
/// rejected before ("this name is not a `let mut` local of the function").
#[differentiable]
fn driven_oscillator(k: f64, drive: f64, steps: usize) -> f64 {
    let (mut x, mut v) = (0.0, 0.0);
    let dt = 0.01;
    for i in 0..steps {
        let t = i as f64 * dt;
        v += (drive * t.sin() - k * x) * dt;
        x += v * dt;
    }
    x * x + v * v
}

#[differentiable]
fn spring_chain(k: f64, x0: &[f64], steps: usize) -> f64 {
    let n = x0.len();
    let mut x = x0.to_vec();
    let mut v = vec![0.0; n];
    let dt = 0.01;
    for _ in 0..steps {
        for i in 1..n - 1 {
            let f = k * (x[i - 1] - 2.0 * x[i] + x[i + 1]);
            v[i] += f * dt;
        }
        for i in 0..n {
            x[i] += v[i] * dt;
        }
    }
    x.iter().map(|xi| xi * xi).sum()
}

#[test]
fn a_tuple_of_constants_into_mut_names() {
    let x = vec![2.0, 0.7];
    flat!(
        "driven_oscillator",
        |x: &[f64]| driven_oscillator(x[0], x[1], 300),
        |x: &[f64]| driven_oscillator::primal(x[0], x[1], 300),
        |x: &[f64]| {
            let (value, [gk, gd]) = driven_oscillator::grad(x[0], x[1], 300);
            (value, vec![gk, gd])
        },
        |x: &[f64], t: &[f64]| driven_oscillator::jvp(x[0], x[1], 300, t[0], t[1])
    )
    .check_with_second_order(&x);
}

#[test]
fn simulations() {
    let x = [vec![3.0], point(6, 11, -1.0, 1.0)].concat();
    flat!(
        "spring_chain",
        |x: &[f64]| spring_chain(x[0], &x[1..], 50),
        |x: &[f64]| spring_chain::primal(x[0], &x[1..], 50),
        |x: &[f64]| {
            let (value, (gk, gx)) = spring_chain::grad(x[0], &x[1..], 50);
            (value, [vec![gk], gx].concat())
        },
        |x: &[f64], t: &[f64]| spring_chain::jvp(x[0], &x[1..], 50, t[0], &t[1..])
    )
    .check_with_second_order(&x);
}

// ----- generic code -----

#[differentiable]
fn logistic<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}

#[differentiable]
fn generic_mse<T: Float>(pred: &[T], target: &[T]) -> T {
    let mut acc = T::zero();
    for i in 0..pred.len() {
        let d = pred[i] - target[i];
        acc = acc + d * d;
    }
    acc / T::from(pred.len()).unwrap()
}

#[differentiable]
fn generic_caller(x: f64, y: f64) -> f64 {
    logistic(x * y) + logistic(x)
}

#[test]
fn generic_code() {
    numbers!(generic_caller(0, 1)).check_with_second_order(&[0.4, -1.3]);
    let x = point(8, 13, -1.0, 1.0);
    two_slices!(generic_mse, 4, &x);
    // f32 through the same function
    let (value, [gp, gt]) = generic_mse::grad(&[1.0_f32, 2.0], &[0.5, 2.5]);
    assert_eq!(value, 0.25);
    assert_eq!((gp, gt), (vec![0.5, -0.5], vec![-0.5, 0.5]));
}

// ----- a model as a struct -----

/// Weights as field arrays, read by iterator chains in methods: rejected before ("`sum`
/// is not a differentiable method").
struct Linear {
    w: [f64; 3],
    b: f64,
}

impl Linear {
    #[differentiable]
    fn predict(&self, x: [f64; 3]) -> f64 {
        self.w.iter().zip(x.iter()).map(|(w, x)| w * x).sum::<f64>() + self.b
    }
}

struct Mlp {
    hidden: [Linear; 2],
    scale: Vec<f64>,
}

impl Mlp {
    #[differentiable]
    fn forward(&self, x: [f64; 3]) -> f64 {
        let h0 = self.hidden[0].predict(x).tanh();
        let h1 = self.hidden[1].predict(x).tanh();
        let mut out = 0.0;
        // a field as a `for` loop's source, zipped with an array literal
        for (s, h) in self.scale.iter().zip([h0, h1].iter()) {
            out += s * h;
        }
        out
    }
}

#[differentiable]
fn linear_loss(model: &Linear, x: [f64; 3], y: f64) -> f64 {
    let p = model.predict(x);
    (p - y) * (p - y)
}

/// A field of a struct parameter as a source, zipped with a slice, and an array literal
/// of differentiable values as one.
#[differentiable]
fn weighted_sum(model: &Linear, x: &[f64]) -> f64 {
    let ends = [x[0], x[x.len() - 1]].iter().map(|e| e * e).sum::<f64>();
    x.iter()
        .zip(&model.w)
        .map(|(x, w)| w * x.sin())
        .sum::<f64>()
        + ends
}

#[test]
fn struct_fields_as_iterator_sources() {
    let model = Linear {
        w: [0.5, -1.2, 0.8],
        b: 0.1,
    };
    let x = vec![0.3, -0.7, 1.1, 0.4];
    flat!(
        "linear_loss",
        |x: &[f64]| linear_loss(&model, a3(x), x[3]),
        |x: &[f64]| linear_loss::primal(&model, a3(x), x[3]),
        |x: &[f64]| {
            let (value, (gx, gy)) = linear_loss::grad(&model, a3(x), x[3]);
            (value, [gx.to_vec(), vec![gy]].concat())
        },
        |x: &[f64], t: &[f64]| linear_loss::jvp(&model, a3(x), x[3], &t[..3], t[3])
    )
    .check_with_second_order(&x);
    // by hand: d/dx (w·x + b - y)² = 2 (p - y) w
    let p = 0.5 * 0.3 - 1.2 * -0.7 + 0.8 * 1.1 + 0.1;
    let (_, (gx, _)) = linear_loss::grad(&model, a3(&x), 0.4);
    for (g, w) in gx.iter().zip(model.w) {
        assert!((g - 2.0 * (p - 0.4) * w).abs() < 1e-14);
    }

    let x = vec![0.3, -0.7, 1.1];
    flat!(
        "weighted_sum",
        |x: &[f64]| weighted_sum(&model, x),
        |x: &[f64]| weighted_sum::primal(&model, x),
        |x: &[f64]| {
            let (value, [g]) = weighted_sum::grad(&model, x);
            (value, g)
        },
        |x: &[f64], t: &[f64]| weighted_sum::jvp(&model, x, t)
    )
    .check_with_second_order(&x);

    let mlp = Mlp {
        hidden: [
            Linear {
                w: [0.5, -1.2, 0.8],
                b: 0.1,
            },
            Linear {
                w: [-0.3, 0.4, 0.9],
                b: -0.2,
            },
        ],
        scale: vec![1.5, -0.5],
    };
    let x = vec![0.3, -0.7, 1.1];
    flat!(
        "Mlp::forward",
        |x: &[f64]| mlp.forward(a3(x)),
        |x: &[f64]| mlp.forward(a3(x)),
        |x: &[f64]| {
            let (value, [g]) = mlp.forward_grad(a3(x));
            (value, g.to_vec())
        },
        |x: &[f64], t: &[f64]| mlp.forward_jvp(a3(x), t)
    )
    .check_with_second_order(&x);
}

// ----- a second round: simulations over rows, kernels, searches, control flow -----

#[differentiable]
fn nbody_energy(pos: &[[f64; 2]], mass: &[f64], steps: usize) -> f64 {
    let n = pos.len();
    let mut p = pos.to_vec();
    let mut v = vec![[0.0; 2]; n];
    let dt = 0.01;
    for _ in 0..steps {
        for i in 0..n {
            let mut acc = [0.0, 0.0];
            for j in 0..n {
                if i == j {
                    continue;
                }
                let dx = p[j][0] - p[i][0];
                let dy = p[j][1] - p[i][1];
                let r2 = dx * dx + dy * dy + 1e-3;
                let inv = mass[j] / (r2 * r2.sqrt());
                acc[0] += dx * inv;
                acc[1] += dy * inv;
            }
            v[i][0] += acc[0] * dt;
            v[i][1] += acc[1] * dt;
        }
        for i in 0..n {
            p[i][0] += v[i][0] * dt;
            p[i][1] += v[i][1] * dt;
        }
    }
    let mut e = 0.0;
    for i in 0..n {
        e += 0.5 * mass[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1]);
    }
    e
}

#[differentiable]
fn gp_quadratic(x: &[f64], alpha: &[f64], length: f64) -> f64 {
    let n = x.len();
    let mut k = 0.0;
    for i in 0..n {
        for j in 0..n {
            let d = x[i] - x[j];
            k += (-d * d / (2.0 * length * length)).exp() * alpha[i] * alpha[j];
        }
    }
    k
}

#[differentiable]
fn matvec_norm(rows: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut y = Vec::with_capacity(rows.len());
    for row in rows {
        let mut s = 0.0;
        for (a, b) in row.iter().zip(x) {
            s += a * b;
        }
        y.push(s);
    }
    y.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[differentiable]
fn softmax_cross_entropy(logits: &[f64], label: usize) -> f64 {
    let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = logits.iter().map(|z| (z - m).exp()).collect();
    let total: f64 = exps.iter().sum();
    -(exps[label] / total).ln()
}

/// A configuration enum, matched on (a constant).
#[derive(Clone, Copy)]
enum Activation {
    Relu,
    Tanh,
    Softplus,
}

#[differentiable]
fn activate(x: f64, act: Activation) -> f64 {
    match act {
        Activation::Relu => x.max(0.0),
        Activation::Tanh => x.tanh(),
        Activation::Softplus => x.exp().ln_1p(),
    }
}

#[differentiable]
fn clipped(x: f64, clip: Option<f64>) -> f64 {
    let y = x * x;
    if let Some(c) = clip { y.min(c) } else { y }
}

#[differentiable]
fn with_closure(x: &[f64], a: f64) -> f64 {
    let scale = |t: f64| a * t.sin();
    x.iter().map(|&v| scale(v)).sum()
}

#[differentiable]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 { 1.0 } else { x * power(x, n - 1) }
}

#[differentiable]
fn first_above(x: &[f64], t: f64) -> f64 {
    for &v in x {
        if v > t {
            return v * v;
        }
    }
    0.0
}

#[differentiable]
#[allow(clippy::let_and_return)] // as written: the loop's value bound, then returned
fn labelled(x: f64) -> f64 {
    let mut y = x;
    let r = 'outer: loop {
        for _ in 0..3 {
            y = y * 0.9 + 0.1;
            if y < 0.5 {
                break 'outer y * 2.0;
            }
        }
        if y > 3.0 {
            break y;
        }
        y += 1.0;
    };
    r
}

#[differentiable]
fn let_else(x: &[f64], k: Option<usize>) -> f64 {
    let Some(i) = k else {
        return 0.0;
    };
    x[i].exp()
}

#[differentiable]
fn running_max_loss(x: &[f64]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    let mut total = 0.0;
    for &v in x.iter() {
        best = best.max(v);
        total += best;
    }
    total
}

#[differentiable]
fn interp(xs: &[f64], ys: &[f64], t: f64) -> f64 {
    let mut i = 0;
    while i + 2 < xs.len() && xs[i + 1] < t {
        i += 1;
    }
    let w = (t - xs[i]) / (xs[i + 1] - xs[i]);
    ys[i] * (1.0 - w) + ys[i + 1] * w
}

#[differentiable]
fn tuple_return(x: f64, y: f64) -> (f64, f64) {
    (x * y, x + y)
}

#[differentiable]
fn uses_tuple(x: f64, y: f64) -> f64 {
    let (p, s) = tuple_return(x, y);
    let pair = tuple_return(p, s);
    pair.0 * pair.1
}

#[differentiable]
fn mutable_param(mut x: f64, n: usize) -> f64 {
    for _ in 0..n {
        x = x.cos();
    }
    x
}

#[differentiable]
fn casts(x: f32, y: f64) -> f64 {
    let z = x as f64 * y;
    let k = (z * 10.0) as i64;
    z + k as f64
}

#[test]
fn rows_copied_whole_and_simulated() {
    // three bodies, positions row by row, then the masses
    let x = vec![0.0, 0.0, 1.0, 0.2, -0.3, 0.9];
    let mass = [1.0, 0.5, 0.8];
    let rows = |x: &[f64]| -> Vec<[f64; 2]> { x.chunks(2).map(a2).collect() };
    flat!(
        "nbody_energy",
        |x: &[f64]| nbody_energy(&rows(x), &mass, 20),
        |x: &[f64]| nbody_energy::primal(&rows(x), &mass, 20),
        |x: &[f64]| {
            let (value, (g, _)) = nbody_energy::grad(&rows(x), &mass, 20);
            (value, g.concat())
        },
        |x: &[f64], t: &[f64]| nbody_energy::jvp(&rows(x), &mass, 20, &rows(t), &[0.0; 3])
    )
    .check_with_second_order(&x);
}

#[test]
fn kernels_and_products() {
    let x = [point(5, 17, -1.0, 1.0), point(5, 19, -1.0, 1.0), vec![0.7]].concat();
    flat!(
        "gp_quadratic",
        |x: &[f64]| gp_quadratic(&x[..5], &x[5..10], x[10]),
        |x: &[f64]| gp_quadratic::primal(&x[..5], &x[5..10], x[10]),
        |x: &[f64]| {
            let (value, (gx, ga, gl)) = gp_quadratic::grad(&x[..5], &x[5..10], x[10]);
            (value, [gx, ga, vec![gl]].concat())
        },
        |x: &[f64], t: &[f64]| gp_quadratic::jvp(
            &x[..5],
            &x[5..10],
            x[10],
            &t[..5],
            &t[5..10],
            t[10]
        )
    )
    .check_with_second_order(&x);

    let rows: Vec<Vec<f64>> = vec![point(3, 23, -1.0, 1.0), point(3, 29, -1.0, 1.0)];
    let x = point(3, 31, -1.0, 1.0);
    flat!(
        "matvec_norm",
        |x: &[f64]| matvec_norm(&rows, x),
        |x: &[f64]| matvec_norm::primal(&rows, x),
        |x: &[f64]| {
            let (value, (_, g)) = matvec_norm::grad(&rows, x);
            (value, g)
        },
        |x: &[f64], t: &[f64]| matvec_norm::jvp(&rows, x, &[vec![0.0; 3], vec![0.0; 3]], t)
    )
    .check_with_second_order(&x);

    let x = vec![0.3, -1.2, 2.0, 0.5];
    let (value, [g]) = softmax_cross_entropy::grad(&x, 2);
    assert_eq!(value, softmax_cross_entropy(&x, 2));
    // by hand: softmax(x) - one_hot(label)
    let total: f64 = x.iter().map(|z| z.exp()).sum();
    assert!((value - (total.ln() - 2.0)).abs() < 1e-14);
    for (k, g) in g.iter().enumerate() {
        let expected = x[k].exp() / total - f64::from(k == 2);
        assert!(
            (g - expected).abs() < 1e-14,
            "d/dz{k} = {g}, by hand {expected}"
        );
    }
}

/// `grad` of a function of one differentiable number (the others fixed) against central
/// differences of the function itself.
fn check_number(name: &str, f: &dyn Fn(f64) -> f64, grad: &dyn Fn(f64) -> (f64, f64), x: f64) {
    let (value, g) = grad(x);
    assert_eq!(value.to_bits(), f(x).to_bits(), "{name}({x}): value");
    let expected = common::central_differences(&|x: &[f64]| f(x[0]), &[x])[0];
    assert!(
        common::close(g, expected, 1e-6),
        "{name}({x}): {g} against {expected}"
    );
}

#[test]
fn configuration_and_control_flow() {
    for (act, x) in [
        (Activation::Relu, 0.7),
        (Activation::Relu, -0.7),
        (Activation::Tanh, 0.4),
        (Activation::Softplus, -0.3),
    ] {
        let grad = |x| {
            let (value, [g]) = activate::grad(x, act);
            (value, g)
        };
        check_number("activate", &|x| activate(x, act), &grad, x);
    }
    for (x, clip) in [(0.5, Some(1.0)), (2.0, Some(1.0)), (2.0, None)] {
        let grad = |x| {
            let (value, [g]) = clipped::grad(x, clip);
            (value, g)
        };
        check_number("clipped", &|x| clipped(x, clip), &grad, x);
    }
    let grad = |x| {
        let (value, [g]) = power::grad(x, 5);
        (value, g)
    };
    check_number("power", &|x| power(x, 5), &grad, 1.3);
    assert_eq!(power::grad(2.0, 5).1, [80.0]); // 5 x⁴
    check_number(
        "labelled",
        &labelled,
        &|x| {
            let (value, [g]) = labelled::grad(x);
            (value, g)
        },
        0.3,
    );
    check_number(
        "labelled",
        &labelled,
        &|x| {
            let (value, [g]) = labelled::grad(x);
            (value, g)
        },
        3.0,
    );
    check_number(
        "mutable_param",
        &|x| mutable_param(x, 7),
        &|x| {
            let (value, [g]) = mutable_param::grad(x, 7);
            (value, g)
        },
        0.4,
    );
    // `as f32`/`as f64` are differentiable, a cast to an integer a constant (its step)
    let (value, (gx, gy)) = casts::grad(0.25_f32, 1.5);
    assert_eq!(value, casts(0.25, 1.5));
    assert_eq!((gx, gy), (1.5, 0.25));
    let x = vec![0.7, -0.4];
    numbers!(uses_tuple(0, 1)).check_with_second_order(&x);
}

#[test]
fn closures_searches_and_interpolation() {
    let x = vec![0.3, -0.8, 1.4, 0.1, 0.9];
    flat!(
        "with_closure",
        |x: &[f64]| with_closure(&x[..4], x[4]),
        |x: &[f64]| with_closure::primal(&x[..4], x[4]),
        |x: &[f64]| {
            let (value, (gx, ga)) = with_closure::grad(&x[..4], x[4]);
            (value, [gx, vec![ga]].concat())
        },
        |x: &[f64], t: &[f64]| with_closure::jvp(&x[..4], x[4], &t[..4], t[4])
    )
    .check_with_second_order(&x);

    let x = vec![0.3, -0.8, 1.4, 0.1];
    for t in [1.0, 2.0] {
        let (value, (g, gt)) = first_above::grad(&x, t);
        assert_eq!(value, first_above(&x, t));
        // the first element above 1.0 is x[2]; none is above 2.0
        let expected: Vec<f64> = if t == 1.0 {
            vec![0.0, 0.0, 2.0 * 1.4, 0.0]
        } else {
            vec![0.0; 4]
        };
        assert_eq!((g, gt), (expected, 0.0));
    }
    let x = vec![0.5, 0.2, 0.9, 0.4];
    flat!(
        "running_max_loss",
        |x: &[f64]| running_max_loss(x),
        |x: &[f64]| running_max_loss::primal(x),
        |x: &[f64]| {
            let (value, [g]) = running_max_loss::grad(x);
            (value, g)
        },
        |x: &[f64], t: &[f64]| running_max_loss::jvp(x, t)
    )
    .check(&x);
    let (_, [g]) = running_max_loss::grad(&x);
    // the running maximum is x[0] twice, then x[2] twice
    assert_eq!(g, vec![2.0, 0.0, 2.0, 0.0]);

    let (xs, ys) = (vec![0.0, 1.0, 2.5, 4.0], point(4, 37, -1.0, 1.0));
    for t in [0.4, 1.7, 3.2] {
        let grad = |t| {
            let (value, (_, _, t)) = interp::grad(&xs, &ys, t);
            (value, t)
        };
        check_number("interp", &|t| interp(&xs, &ys, t), &grad, t);
    }
    let (value, g) = let_else::grad(&[0.5, 1.0], Some(1));
    assert_eq!(value, let_else(&[0.5, 1.0], Some(1)));
    assert_eq!(g, [vec![0.0, 1.0_f64.exp()]]);
    let (value, g) = let_else::grad(&[0.5, 1.0], None);
    assert_eq!((value, g), (0.0, [vec![0.0, 0.0]]));
}

// ----- a third round: ranges, ends, swaps and strides -----

#[differentiable]
fn range_dot(x: &[f64], y: &[f64]) -> f64 {
    (0..x.len()).map(|i| x[i] * y[i]).sum::<f64>()
}

#[differentiable]
fn range_collect(x: &[f64], w: f64) -> f64 {
    let v: Vec<f64> = (0..x.len()).map(|i| x[i] * w).collect();
    v.iter().sum()
}

#[differentiable]
fn enumerate_weighted(x: &[f64]) -> f64 {
    x.iter().enumerate().map(|(i, v)| v * i as f64).sum()
}

#[differentiable]
fn tv(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[differentiable]
fn spread(x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::MIN, f64::max);
    let s = x.iter().cloned().fold(f64::MAX, f64::min);
    m - s
}

#[differentiable]
fn first_last(x: &[f64]) -> f64 {
    let a = x[0];
    let b = x[x.len() - 1];
    let c = *x.first().unwrap();
    let d = *x.last().unwrap();
    a * b + c - d
}

#[differentiable]
fn stepped(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).step_by(2) {
        s += x[i].sin();
    }
    s
}

#[differentiable]
fn swapped(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.swap(0, 1);
    v[0] * 2.0 + v[1]
}

#[differentiable]
fn nan_guard(x: f64) -> f64 {
    let y = (x * x - 1.0).sqrt();
    if y.is_nan() { 0.0 } else { y }
}

#[differentiable]
fn sum_sq_range(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for i in (1..n).rev() {
        total += (x[i] - x[i - 1]).abs();
    }
    total
}

#[differentiable]
fn powi_var(x: f64, n: u32) -> f64 {
    x.powi(n as i32) / (n as f64)
}

#[differentiable]
fn zip3(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    a.iter().zip(b).zip(c).map(|((x, y), z)| x * y * z).sum()
}

#[differentiable]
fn mean_std(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

#[differentiable]
fn zscore_sum(x: &[f64]) -> f64 {
    let (m, s) = mean_std(x);
    x.iter().map(|v| ((v - m) / s).powi(3)).sum()
}

#[differentiable]
fn iter_mut_scale(x: &[f64], a: f64) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut() {
        *e *= a;
    }
    v.iter().sum()
}

#[differentiable]
fn f32_model(w: &[f32], x: &[f32]) -> f32 {
    let z: f32 = w.iter().zip(x).map(|(a, b)| a * b).sum();
    1.0 / (1.0 + (-z).exp())
}

/// `f(x: &[f64])` checked with second order at `x` (`order1` for first order only, where
/// the function has kinks).
macro_rules! one_slice {
    ($f:ident, $x:expr) => {
        one_slice!(@ $f, $x).check_with_second_order(&$x)
    };
    (order1 $f:ident, $x:expr) => {
        one_slice!(@ $f, $x).check(&$x)
    };
    (@ $f:ident, $x:expr) => {
        flat!(
            stringify!($f),
            |x: &[f64]| $f(x),
            |x: &[f64]| $f::primal(x),
            |x: &[f64]| {
                let (value, [g]) = $f::grad(x);
                (value, g)
            },
            |x: &[f64], t: &[f64]| $f::jvp(x, t)
        )
    };
}

#[test]
fn ranges_ends_swaps_and_strides() {
    let x = point(10, 41, -1.0, 1.0);
    two_slices!(range_dot, 5, &x);
    two_slices!(zip3_first_two, 5, &x);
    let x = point(6, 43, -1.0, 1.0);
    one_slice!(enumerate_weighted, x);
    one_slice!(tv, x);
    one_slice!(first_last, x);
    one_slice!(stepped, x);
    one_slice!(swapped, x);
    one_slice!(zscore_sum, x);
    one_slice!(order1 spread, x);
    one_slice!(order1 sum_sq_range, x);
    // `swap` exchanges the first two elements: d/dx0 = 1, d/dx1 = 2
    let (_, [g]) = swapped::grad(&x);
    assert_eq!(&g[..2], &[1.0, 2.0]);
    // the first and last elements, by hand
    let (_, [g]) = first_last::grad(&[2.0, 5.0, 3.0]);
    assert_eq!(g, vec![3.0 + 1.0, 0.0, 2.0 - 1.0]);

    let x = [point(4, 47, -1.0, 1.0), vec![1.7]].concat();
    slice_and_float!(@second_order range_collect, x.clone());
    slice_and_float!(@second_order iter_mut_scale, x);
    let grad = |x| {
        let (value, [g]) = nan_guard::grad(x);
        (value, g)
    };
    check_number("nan_guard", &nan_guard, &grad, 1.5);
    // inside (-1, 1) the root is NaN and the guard gives the constant 0
    assert_eq!(nan_guard::grad(0.5), (0.0, [0.0]));
    let grad = |x| {
        let (value, [g]) = powi_var::grad(x, 3);
        (value, g)
    };
    check_number("powi_var", &|x| powi_var(x, 3), &grad, 1.2);

    let (w, x) = ([0.5_f32, -0.25, 1.0], [1.0_f32, 2.0, -0.5]);
    let (value, [gw, gx]) = f32_model::grad(&w, &x);
    let z: f32 = -0.5; // 0.5 - 0.5 - 0.5
    let sigma = 1.0 / (1.0 + (-z).exp());
    assert!((value - sigma).abs() < 1e-7);
    assert_eq!(value, f32_model(&w, &x));
    for k in 0..3 {
        assert!((gw[k] - sigma * (1.0 - sigma) * x[k]).abs() < 1e-6);
        assert!((gx[k] - sigma * (1.0 - sigma) * w[k]).abs() < 1e-6);
    }
}

/// `zip3` with its third slice fixed, as `two_slices!` takes two.
#[differentiable]
fn zip3_first_two(a: &[f64], b: &[f64]) -> f64 {
    let c = [0.5, -1.0, 2.0, 0.25, 1.5];
    zip3(a, b, &c)
}

// ----- a fourth round: methods calling methods, generic helpers, array patterns -----

struct Pendulum {
    g: f64,
    l: f64,
}

impl Pendulum {
    #[differentiable]
    fn accel(&self, theta: f64) -> f64 {
        -self.g / self.l * theta.sin()
    }

    #[differentiable]
    fn simulate(&self, theta0: f64, omega0: f64, steps: usize) -> f64 {
        let (mut th, mut om) = (theta0, omega0);
        let dt = 0.01;
        for _ in 0..steps {
            om += self.accel(th) * dt;
            th += om * dt;
        }
        th
    }
}

#[differentiable]
fn generic_norm<T: Float>(v: &[T]) -> T {
    v.iter().fold(T::zero(), |acc, &x| acc + x * x).sqrt()
}

#[differentiable]
fn generic_poly<T: Float>(coeffs: &[T], x: T) -> T {
    let mut acc = T::zero();
    for &c in coeffs.iter().rev() {
        acc = acc * x + c;
    }
    acc
}

#[differentiable]
fn calls_generic(v: &[f64], x: f64) -> f64 {
    generic_norm(v) + generic_poly(v, x)
}

#[differentiable]
fn huber_total(r: &[f64], delta: f64) -> f64 {
    let mut total = 0.0;
    for &ri in r {
        let a = ri.abs();
        total += match a <= delta {
            true => 0.5 * ri * ri,
            false => delta * (a - 0.5 * delta),
        };
    }
    total
}

#[differentiable]
fn matmul_trace(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> f64 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c[0][0] + c[1][1] + c[2][2]
}

#[differentiable]
fn quaternion_rotate(q: [f64; 4], v: [f64; 3]) -> f64 {
    let [w, x, y, z] = q;
    let n = (w * w + x * x + y * y + z * z).sqrt();
    let (w, x, y, z) = (w / n, x / n, y / n, z / n);
    (1.0 - 2.0 * (y * y + z * z)) * v[0]
        + 2.0 * (x * y - w * z) * v[1]
        + 2.0 * (x * z + w * y) * v[2]
}

#[differentiable]
fn while_newton(a: f64) -> f64 {
    let mut x = a;
    let mut it = 0;
    while it < 20 {
        let fx = x * x - a;
        if fx.abs() < 1e-14 {
            break;
        }
        x -= fx / (2.0 * x);
        it += 1;
    }
    x
}

#[differentiable]
fn log_softmax_at(z: &[f64], k: usize) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lse = m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
    z[k] - lse
}

#[differentiable]
fn elementwise_out(x: &[f64], out: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        out[i] = x[i].tanh();
    }
    out.iter().sum()
}

#[test]
fn methods_generics_and_array_patterns() {
    let pendulum = Pendulum { g: 9.81, l: 1.5 };
    let x = vec![0.4, -0.2];
    flat!(
        "Pendulum::simulate",
        |x: &[f64]| pendulum.simulate(x[0], x[1], 100),
        |x: &[f64]| pendulum.simulate(x[0], x[1], 100),
        |x: &[f64]| {
            let (value, [g0, g1]) = pendulum.simulate_grad(x[0], x[1], 100);
            (value, vec![g0, g1])
        },
        |x: &[f64], t: &[f64]| pendulum.simulate_jvp(x[0], x[1], 100, t[0], t[1])
    )
    .check_with_second_order(&x);

    let x = [point(4, 53, -1.0, 1.0), vec![0.6]].concat();
    slice_and_float!(@second_order calls_generic, x);

    let x = [vec![0.3, -2.0, 0.8, 1.5, -0.1], vec![1.0]].concat();
    slice_and_float!(huber_total, x);

    let rows = |x: &[f64]| -> [[f64; 3]; 3] { [a3(&x[0..3]), a3(&x[3..6]), a3(&x[6..9])] };
    let x = point(18, 59, -1.0, 1.0);
    flat!(
        "matmul_trace",
        |x: &[f64]| matmul_trace(&rows(&x[..9]), &rows(&x[9..])),
        |x: &[f64]| matmul_trace::primal(&rows(&x[..9]), &rows(&x[9..])),
        |x: &[f64]| {
            let (value, [ga, gb]) = matmul_trace::grad(&rows(&x[..9]), &rows(&x[9..]));
            (value, [ga.concat(), gb.concat()].concat())
        },
        |x: &[f64], t: &[f64]| matmul_trace::jvp(
            &rows(&x[..9]),
            &rows(&x[9..]),
            &rows(&t[..9]),
            &rows(&t[9..])
        )
    )
    .check_with_second_order(&x);
    // tr(AB): d/dA = Bᵀ
    let (_, [ga, _]) = matmul_trace::grad(&rows(&x[..9]), &rows(&x[9..]));
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(ga[i][j], x[9 + 3 * j + i]);
        }
    }

    let x = vec![0.9, 0.1, -0.3, 0.2, 1.0, -0.5, 0.25];
    flat!(
        "quaternion_rotate",
        |x: &[f64]| quaternion_rotate([x[0], x[1], x[2], x[3]], a3(&x[4..])),
        |x: &[f64]| quaternion_rotate::primal([x[0], x[1], x[2], x[3]], a3(&x[4..])),
        |x: &[f64]| {
            let (value, (gq, gv)) = quaternion_rotate::grad([x[0], x[1], x[2], x[3]], a3(&x[4..]));
            (value, [gq.to_vec(), gv.to_vec()].concat())
        },
        |x: &[f64], t: &[f64]| quaternion_rotate::jvp(
            [x[0], x[1], x[2], x[3]],
            a3(&x[4..]),
            &t[..4],
            &t[4..]
        )
    )
    .check_with_second_order(&x);

    // Newton's square root, differentiated through its iterations: 1 / (2 sqrt(a))
    let (value, [g]) = while_newton::grad(2.0);
    assert_eq!(value, while_newton(2.0));
    assert!((value - 2.0_f64.sqrt()).abs() < 1e-15);
    assert!((g - 0.5 / 2.0_f64.sqrt()).abs() < 1e-12);

    let x = point(5, 61, -1.0, 1.0);
    slice_and_constant!(@second_order log_softmax_at, 3, x);

    let x = point(4, 67, -1.0, 1.0);
    let mut out = vec![0.0; 4];
    let value = elementwise_out(&x, &mut out);
    let mut gx = vec![0.0; 4];
    let mut d_out = vec![0.0; 4]; // the result's own cotangent only
    let by_grad = elementwise_out::grad_into(&x, &mut out, &mut gx, &mut d_out);
    assert_eq!(value, by_grad);
    for k in 0..4 {
        let expected = 1.0 - x[k].tanh().powi(2);
        assert!(
            (gx[k] - expected).abs() < 1e-14,
            "d/dx{k} = {}, by hand {expected}",
            gx[k]
        );
    }
}

// ----- names the generated code also uses (silent wrong gradients before this session) -----
//
// Lowering's scopes are keyed by spelling, so a user's `t0` (a temporary's name), `acc3`
// (a desugared accumulator's) or `best_value` (an `Option`'s part's) was one name with the
// generated one: the value stayed right and the gradient went wrong, with no error
// (`locals_spelled_like_temporaries`, `locals_spelled_like_desugared_names`). Generated
// names now skip what the user's item spells (`Lowerer::temp_name`, `syntax::unspelled`).

/// A helper spelled like the lowering's temporaries.
#[differentiable]
fn t0(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn t1(x: f64) -> f64 {
    x.sin()
}

#[differentiable]
fn calls_t(x: f64, y: f64) -> f64 {
    let a = x * y + x.exp();
    t0(a) + t1(a * 2.0) + t0(y)
}

#[test]
fn helpers_spelled_like_temporaries() {
    let (v, [gx, gy]) = calls_t::grad(0.3, 0.7);
    assert_eq!(v, calls_t(0.3, 0.7));
    let a = 0.3 * 0.7 + 0.3_f64.exp();
    let da = 2.0 * a + 2.0 * (2.0 * a).cos();
    assert!((gx - da * (0.7 + 0.3_f64.exp())).abs() < 1e-12);
    assert!((gy - (da * 0.3 + 2.0 * 0.7)).abs() < 1e-12);
}

/// Locals spelled like the lowering's temporaries.
#[differentiable]
fn locals_like_temporaries(x: f64, y: f64) -> f64 {
    let t0 = x * y;
    let t1 = t0.sin() + x;
    let t2 = t1 * t0 + y.exp();
    t2 * t1 - t0
}

#[test]
fn locals_spelled_like_temporaries() {
    let f = |x: f64, y: f64| {
        let t0 = x * y;
        let t1 = t0.sin() + x;
        let t2 = t1 * t0 + y.exp();
        t2 * t1 - t0
    };
    let (v, [gx, gy]) = locals_like_temporaries::grad(0.3, 0.7);
    assert_eq!(v, f(0.3, 0.7));
    assert_eq!(v, locals_like_temporaries(0.3, 0.7));
    let h = 1e-6;
    let dx = (f(0.3 + h, 0.7) - f(0.3 - h, 0.7)) / (2.0 * h);
    let dy = (f(0.3, 0.7 + h) - f(0.3, 0.7 - h)) / (2.0 * h);
    assert!((gx - dx).abs() < 1e-6, "{gx} {dx}");
    assert!((gy - dy).abs() < 1e-6, "{gy} {dy}");
}

/// A local spelled like the desugaring's accumulator, read inside the chain.
#[differentiable]
fn reads_acc_inside(x: &[f64], s: f64) -> f64 {
    let acc3 = s * 2.0;
    let item6 = s.sin();
    x.iter().map(|v| v * acc3 + item6).sum::<f64>() + x.iter().sum::<f64>() * acc3
}

#[test]
fn locals_spelled_like_desugared_names() {
    let x = [0.5, -1.0, 2.0];
    let f = |x: &[f64], s: f64| {
        let acc3 = s * 2.0;
        let item6 = s.sin();
        x.iter().map(|v| v * acc3 + item6).sum::<f64>() + x.iter().sum::<f64>() * acc3
    };
    let (v, (gx, gs)) = reads_acc_inside::grad(&x, 0.3);
    assert_eq!(v, f(&x, 0.3));
    assert_eq!(v, reads_acc_inside(&x, 0.3));
    let h = 1e-6;
    let ds = (f(&x, 0.3 + h) - f(&x, 0.3 - h)) / (2.0 * h);
    assert!((gs - ds).abs() < 1e-6, "{gs} {ds}");
    for k in 0..3 {
        let mut up = x;
        up[k] += h;
        let mut down = x;
        down[k] -= h;
        let d = (f(&up, 0.3) - f(&down, 0.3)) / (2.0 * h);
        assert!((gx[k] - d).abs() < 1e-6, "{k}: {} {d}", gx[k]);
    }
}

struct State {
    x: f64,
    v: f64,
}

/// Locals spelled like the names the `Option` and struct passes give their parts.
#[differentiable]
fn parts_spelled_like_users(x: &[f64], s: f64) -> f64 {
    let best_value = s * 3.0;
    let mut best: Option<f64> = None;
    for &v in x {
        if v > 0.0 {
            best = Some(v * s);
        }
    }
    let st_x = s.cos();
    let mut st = State { x: s, v: 0.0 };
    for _ in 0..3 {
        st.v += st.x * 0.1;
        st.x += st.v;
    }
    best.unwrap_or(0.0) * best_value + st.x * st_x
}

#[test]
fn parts_spelled_like_user_locals() {
    let x = [0.5, -1.0, 2.0];
    let f = |s: f64| {
        let best_value = s * 3.0;
        let best = 2.0 * s;
        let st_x = s.cos();
        let (mut px, mut pv) = (s, 0.0);
        for _ in 0..3 {
            pv += px * 0.1;
            px += pv;
        }
        best * best_value + px * st_x
    };
    let (v, (_, gs)) = parts_spelled_like_users::grad(&x, 0.3);
    assert_eq!(v, parts_spelled_like_users(&x, 0.3));
    assert!((v - f(0.3)).abs() < 1e-14, "{v} {}", f(0.3));
    let h = 1e-6;
    let ds = (f(0.3 + h) - f(0.3 - h)) / (2.0 * h);
    assert!((gs - ds).abs() < 1e-6, "{gs} {ds}");
}

/// Locals spelled like `grad_into`'s buffers (`d_<param>`) and like other generated names
/// (`value`, `pullback0`): a local `Vec` named `d_x` shadowed the buffer of `x`'s gradient,
/// and the adjoint added into the local: `grad_into` gave a silently zero gradient for `x`.
#[differentiable]
fn locals_like_buffers(x: &[f64], g: f64) -> f64 {
    let mut d_x = vec![0.0; x.len()];
    let mut total = 0.0;
    for (k, v) in x.iter().enumerate() {
        total += v * g * (k as f64 + 1.0);
        d_x[k] = v * v;
    }
    let value = d_x.iter().map(|pullback0| pullback0 * g).sum::<f64>();
    total + value
}

#[test]
fn locals_spelled_like_buffers() {
    slice_and_float!(@second_order locals_like_buffers, vec![0.5, -1.0, 2.0, 0.6]);
}

// Parameters and locals spelled like the generated code's own names (the pullback's `g`,
// `value`, `grads`, `pullback0`, `value0`, the slots `d_g` and tangents `tan_g`): a guard,
// these were already kept apart by hygiene.

#[differentiable]
fn names_like_generated(g: f64, value: f64, grads: f64) -> f64 {
    let d_g = g * value;
    let tan_g = d_g.sin() * grads;
    let pullback0 = tan_g * g;
    let value0 = pullback0 + value * value;
    value0 * g + d_g
}

#[differentiable]
fn slice_g(x: &[f64], g: f64) -> f64 {
    let mut s = 0.1_f64;
    for v in x {
        s += v * g * s.cos();
    }
    s * g
}

#[test]
fn parameters_spelled_like_generated_code_names() {
    let f = |a: f64, b: f64, c: f64| names_like_generated(a, b, c);
    let (v, [ga, gb, gc]) = names_like_generated::grad(0.3, 0.7, -0.4);
    assert_eq!(v, f(0.3, 0.7, -0.4));
    let h = 1e-6;
    let d = |k: usize| {
        let mut up = [0.3, 0.7, -0.4];
        let mut down = up;
        up[k] += h;
        down[k] -= h;
        (f(up[0], up[1], up[2]) - f(down[0], down[1], down[2])) / (2.0 * h)
    };
    for (k, g) in [ga, gb, gc].into_iter().enumerate() {
        assert!((g - d(k)).abs() < 1e-6, "{k}: {g} {}", d(k));
    }
    let (_, t) = names_like_generated::jvp(0.3, 0.7, -0.4, 1.0, 0.0, 0.0);
    assert!((t - d(0)).abs() < 1e-6);
    let x = [0.5, -1.0, 2.0];
    let (v, (gx, gg)) = slice_g::grad(&x, 0.6);
    assert_eq!(v, slice_g(&x, 0.6));
    let dg = (slice_g(&x, 0.6 + h) - slice_g(&x, 0.6 - h)) / (2.0 * h);
    assert!((gg - dg).abs() < 1e-6, "{gg} {dg}");
    let mut into = vec![0.0; 3];
    let mut into_g = 0.0;
    slice_g::grad_into(&x, 0.6, &mut into, &mut into_g);
    assert_eq!((into, into_g), (gx, gg));
}
