//! `#[differentiable]` on arrays, slices and `Vec`s of floats (issue 13): parameters
//! `&[f64]`, `&mut [f64]` (outputs), `[f64; N]`, `&[f64; N]`, `Vec<f64>`, `&Vec<f64>`;
//! element reads and writes (`a[i]`, `a[i] += ..`), local buffers (`vec![0.0; n]`,
//! `[0.0; 3]`, `Vec::with_capacity` + `push`); the iterator forms (`iter`, `iter_mut`,
//! `zip`, `enumerate`, `rev`, `map`, `sum`, `product`, `fold`), desugared into indexed
//! loops. Each function is written as user code would be and checked through all its
//! faces: `f` itself and `f::grad_into`/`f::grad`/`f::jvp` give the value of `f::primal`
//! (the body as written) to the bit; the gradient matches central differences of
//! `f::primal` in f64; `grad_into` gives `grad`'s gradient to the bit; the tangent along a
//! direction `v` is `⟨∇f, v⟩` (forward and reverse mode agree). Functions writing a
//! `&mut [f64]` output are checked through the objective `⟨w, out⟩`, `w` the output's
//! cotangent the caller passes to `grad_into`.
//!
//! Arrays passed whole to another annotated function, arrays of rows (`m[i][j]`) and the
//! second-order checks of slice functions are in `differentiable_arrays.rs`.

// The functions are written as users write them, index loops, `&Vec`, `vec!` buffers and
// `x = x / n` included: those are the forms under test.
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::assign_op_pattern,
    clippy::manual_memcpy,
    clippy::useless_vec,
    clippy::explicit_counter_loop,
    clippy::iter_cloned_collect
)]

#[macro_use]
mod common;

use common::faces::{Case, point};
use common::{central_differences, close};

use gradtape::differentiable;

// ----- oracles and the check: `common::faces` -----

/// `(x, out, dx or v, d_out or tangent)` of a function writing `out`.
type Writes<'a> = &'a dyn Fn(&[f64], &mut [f64], &mut [f64], &mut [f64]);
type WritesTangent<'a> = &'a dyn Fn(&[f64], &mut [f64], &[f64], &mut [f64]);

// ----- 1. parameter forms -----

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable]
fn euclidean_norm(v: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

#[differentiable]
fn sum_of_squares(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i].powi(2);
    }
    s
}

#[differentiable]
fn cross_norm(a: [f64; 3], b: &[f64; 3]) -> f64 {
    let c0 = a[1] * b[2] - a[2] * b[1];
    let c1 = a[2] * b[0] - a[0] * b[2];
    let c2 = a[0] * b[1] - a[1] * b[0];
    (c0 * c0 + c1 * c1 + c2 * c2).sqrt()
}

#[differentiable]
fn horner(coeffs: &[f64], x: f64) -> f64 {
    // coeffs[0] + coeffs[1] x + coeffs[2] x² + ...
    let mut y = 0.0;
    let mut i = coeffs.len();
    while i > 0 {
        i -= 1;
        y = y * x + coeffs[i];
    }
    y
}

#[differentiable]
fn least_squares(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    // a line through the data, w = [slope, intercept]
    let mut loss = 0.0;
    for i in 0..xs.len() {
        let r = w[0] * xs[i] + w[1] - ys[i];
        loss += r * r;
    }
    loss / xs.len() as f64
}

#[differentiable]
fn weighted_mean(values: &[f64], weights: &[f64]) -> f64 {
    let mut num = 0.0;
    let mut den = 0.0;
    for i in 0..values.len() {
        num += weights[i] * values[i];
        den += weights[i];
    }
    num / den
}

#[differentiable]
fn scale_into(x: &[f64], factor: f64, out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = factor * x[i].sin();
    }
}

#[differentiable]
fn softmax_into(x: &[f64], out: &mut [f64]) {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut total = 0.0;
    for i in 0..x.len() {
        out[i] = (x[i] - m).exp();
        total += out[i];
    }
    for i in 0..x.len() {
        out[i] /= total;
    }
}

#[differentiable]
fn normalised_in_place(mut v: Vec<f64>) -> f64 {
    let mut n = 0.0;
    for i in 0..v.len() {
        n += v[i] * v[i];
    }
    let n = n.sqrt();
    for i in 0..v.len() {
        v[i] = v[i] / n;
    }
    // the first coordinate of the unit vector, weighted by the others
    let mut s = 0.0;
    for i in 1..v.len() {
        s += v[0] * v[i] * i as f64;
    }
    s
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + 100.0 * b * b;
    }
    s
}

// ----- 2. body forms -----

#[differentiable]
fn prefix_sum_energy(x: &[f64]) -> f64 {
    let mut prefix = vec![0.0; x.len()];
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += x[i];
        prefix[i] = acc;
    }
    let mut e = 0.0;
    for i in 0..prefix.len() {
        e += prefix[i] * prefix[i];
    }
    e
}

#[differentiable]
fn moving_average(x: &[f64], out: &mut [f64]) {
    let window = x.len() - out.len() + 1;
    for i in 0..out.len() {
        let mut s = 0.0;
        for j in 0..window {
            s += x[i + j];
        }
        out[i] = s / window as f64;
    }
}

#[differentiable]
fn particle_energy(pos: [f64; 3], vel: [f64; 3], dt: f64) -> f64 {
    // explicit Euler in a harmonic well, 20 steps; the final energy
    let mut p = [0.0; 3];
    let mut v = [0.0; 3];
    for k in 0..3 {
        p[k] = pos[k];
        v[k] = vel[k];
    }
    for _ in 0..20 {
        for k in 0..3 {
            let a = -p[k];
            p[k] += dt * v[k];
            v[k] += dt * a;
        }
    }
    let mut e = 0.0;
    for k in 0..3 {
        e += 0.5 * (v[k] * v[k] + p[k] * p[k]);
    }
    e
}

#[differentiable]
fn compound_updates(x: &[f64]) -> f64 {
    let mut buf = [0.0; 4];
    for i in 0..4 {
        buf[i] = x[i];
    }
    buf[0] += x[1] * 2.0;
    buf[1] -= x[2].sin();
    buf[2] *= x[3];
    buf[3] /= 1.0 + x[0] * x[0];
    buf[0] * buf[1] + buf[2] - buf[3]
}

#[differentiable]
fn pushed_squares(x: &[f64]) -> f64 {
    let mut squares = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        squares.push(x[i] * x[i]);
    }
    let mut s = 0.0;
    for i in 0..squares.len() {
        s += squares[i].sqrt() * (i + 1) as f64;
    }
    s
}

#[differentiable]
fn matvec_norm(m: &[f64], v: &[f64]) -> f64 {
    // a row-major 3x3 matrix times v, then |Mv|²
    let mut y = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            y[i] += m[i * 3 + j] * v[j];
        }
    }
    y[0] * y[0] + y[1] * y[1] + y[2] * y[2]
}

#[differentiable]
fn laplacian_energy(u: &[f64]) -> f64 {
    let n = u.len();
    let mut e = 0.0;
    for i in 1..n - 1 {
        let lap = u[i - 1] - 2.0 * u[i] + u[i + 1];
        e += lap * lap;
    }
    e
}

#[differentiable]
fn soft_max_by_branch(x: &[f64]) -> f64 {
    let mut best = x[0];
    let mut at = 0;
    for i in 1..x.len() {
        if x[i] > best {
            best = x[i];
            at = i;
        }
    }
    best * best + x[(at + 1) % x.len()]
}

#[differentiable]
fn cumulative_product(x: &[f64]) -> f64 {
    let mut prod = vec![1.0; x.len() + 1];
    for i in 0..x.len() {
        prod[i + 1] = prod[i] * x[i];
    }
    prod[x.len()] + prod[1]
}

#[differentiable]
fn overwritten_twice(x: &[f64]) -> f64 {
    // an element read, then overwritten, then read again
    let mut a = vec![0.0; 2];
    a[0] = x[0] * x[1];
    let first = a[0].exp();
    a[0] = x[1].cos();
    a[1] = a[0] * first;
    a[1] + a[0]
}

#[differentiable]
fn triangle_area(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    // half the cross product's length, the edges as array literals of differentiable values
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = vec![c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
}

// ----- 3. iterator forms -----

#[differentiable]
fn iter_sum(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s
}

#[differentiable]
fn log_sum_exp(x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    s.ln() + m
}

#[differentiable]
fn zip_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum::<f64>()
}

#[differentiable]
fn geometric_mean(x: &[f64]) -> f64 {
    let p: f64 = x.iter().product();
    p.powf(1.0 / x.len() as f64)
}

#[differentiable]
fn horner_fold(coeffs: &[f64]) -> f64 {
    // the polynomial at x = 0.7, highest coefficient last
    coeffs.iter().rev().fold(0.0, |acc, c| acc * 0.7 + c)
}

#[differentiable]
fn enumerate_weighted(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate() {
        s += (i as f64 + 1.0) * v.tanh();
    }
    s
}

#[differentiable]
fn gaussian_mixture(x: &[f64], means: &[f64]) -> f64 {
    // negative log-likelihood of the data under an equal-weight mixture of unit Gaussians
    let mut nll = 0.0;
    for &xi in x.iter() {
        let mut p = 0.0;
        for m in means {
            let d = xi - m;
            p += (-0.5 * d * d).exp();
        }
        nll -= (p / means.len() as f64).ln();
    }
    nll
}

#[differentiable]
fn scaled_copy(x: &[f64], out: &mut [f64]) {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = 3.0 * v * v;
    }
    for o in out.iter_mut() {
        *o += 1.0;
    }
}

#[differentiable]
fn reversed_discount(rewards: &[f64]) -> f64 {
    // the discounted return, accumulated backwards
    let mut g = 0.0;
    for r in rewards.iter().rev() {
        g = r + 0.9 * g;
    }
    g
}

#[differentiable]
fn enumerate_rev(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().rev() {
        s = s * 0.5 + v * i as f64;
    }
    s
}

#[differentiable]
fn by_value_loop(x: Vec<f64>, y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in &x {
        s += v.exp();
    }
    for &v in y.iter() {
        s += v * s;
    }
    s
}

#[differentiable]
fn zip_squared_error(pred: &[f64], target: &[f64]) -> f64 {
    let mut e = 0.0;
    for (p, t) in pred.iter().zip(target) {
        e += (p - t) * (p - t);
    }
    e / pred.len() as f64
}

#[differentiable]
fn variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n
}

#[differentiable]
fn reversed_until_negative(x: &[f64]) -> f64 {
    // a jump out of a reversed loop: its trip count is not the length
    let mut s = 0.0;
    for v in x.iter().rev() {
        if *v < -0.5 {
            break;
        }
        s = s * 0.8 + v.sin();
    }
    s
}

#[differentiable]
fn skipping_small(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate() {
        if v.abs() < 0.2 {
            continue;
        }
        s += v * v * i as f64;
    }
    s
}

#[differentiable]
fn pushed_then_scaled(x: &[f64]) -> f64 {
    // a typed `Vec::new()` grown by `push`, scaled in place through `iter_mut`, summed
    let mut v: Vec<f64> = Vec::new();
    for &xi in x.iter() {
        v.push(xi.exp());
    }
    for e in v.iter_mut() {
        *e *= 0.5;
    }
    v.iter().sum::<f64>().ln()
}

/// `f32` arrays: gradients in `f32`.
#[differentiable]
fn half_norm_squared(x: &[f32]) -> f32 {
    x.iter().map(|v| 0.5 * v * v).sum()
}

#[differentiable]
fn window_means(x: &[f64], out: &mut [f64]) {
    let mut i = 0;
    for w in x.windows(3) {
        out[i] = w.iter().sum::<f64>() / w.len() as f64 + w[0] * w[2];
        i += 1;
    }
}

#[differentiable]
fn chunk_maxima(x: &[f64]) -> f64 {
    // the last chunk is shorter
    let mut s = 0.0;
    for c in x.chunks(2) {
        let m = c.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        s += m * c[0] + c.len() as f64;
    }
    s
}

// ----- the checks -----

#[test]
fn parameter_forms() {
    slices!(dot, [4, 4], [0, 1], point(8, 1, -1.0, 1.0));
    slices!(rosenbrock, [5], [0], point(5, 2, -1.0, 1.0));
    slices!(least_squares, [2, 6, 6], [0, 1, 2], point(14, 3, -1.0, 1.0));
    slices!(weighted_mean, [5, 5], [0, 1], point(10, 4, 0.5, 2.0));
    Case {
        name: "euclidean_norm",
        itself: &|x| euclidean_norm(&x.to_vec()),
        primal: &|x| euclidean_norm::primal(&x.to_vec()),
        grad: Some(&|x| {
            let (v, [g]) = euclidean_norm::grad(&x.to_vec());
            (v, g)
        }),
        grad_into: &|x| {
            let mut d = vec![0.0; x.len()];
            (euclidean_norm::grad_into(&x.to_vec(), &mut d), d)
        },
        jvp: &|x, t| euclidean_norm::jvp(&x.to_vec(), t),
    }
    .check(&point(6, 5, -1.0, 1.0));
    Case {
        name: "sum_of_squares",
        itself: &|x| sum_of_squares(x.to_vec()),
        primal: &|x| sum_of_squares::primal(x.to_vec()),
        grad: Some(&|x| {
            let (v, [g]) = sum_of_squares::grad(x.to_vec());
            (v, g)
        }),
        grad_into: &|x| {
            let mut d = vec![0.0; x.len()];
            (sum_of_squares::grad_into(x.to_vec(), &mut d), d)
        },
        jvp: &|x, t| sum_of_squares::jvp(x.to_vec(), t),
    }
    .check(&point(4, 6, -1.0, 1.0));
    Case {
        name: "normalised_in_place",
        itself: &|x| normalised_in_place(x.to_vec()),
        primal: &|x| normalised_in_place::primal(x.to_vec()),
        grad: Some(&|x| {
            let (v, [g]) = normalised_in_place::grad(x.to_vec());
            (v, g)
        }),
        grad_into: &|x| {
            let mut d = vec![0.0; x.len()];
            (normalised_in_place::grad_into(x.to_vec(), &mut d), d)
        },
        jvp: &|x, t| normalised_in_place::jvp(x.to_vec(), t),
    }
    .check(&point(4, 7, 0.2, 1.0));
    let arr = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    Case {
        name: "cross_norm",
        itself: &|x| cross_norm(arr(x), &arr(&x[3..])),
        primal: &|x| cross_norm::primal(arr(x), &arr(&x[3..])),
        grad: Some(&|x| {
            // fixed-size arrays get fixed-size gradients
            let (v, [ga, gb]): (f64, [[f64; 3]; 2]) = cross_norm::grad(arr(x), &arr(&x[3..]));
            (v, [ga, gb].concat())
        }),
        grad_into: &|x| {
            let (mut da, mut db) = ([0.0; 3], [0.0; 3]);
            let v = cross_norm::grad_into(arr(x), &arr(&x[3..]), &mut da, &mut db);
            (v, [da, db].concat())
        },
        jvp: &|x, t| cross_norm::jvp(arr(x), &arr(&x[3..]), &t[..3], &t[3..]),
    }
    .check(&point(6, 8, -1.0, 1.0));
    Case {
        name: "horner",
        itself: &|x| horner(&x[1..], x[0]),
        primal: &|x| horner::primal(&x[1..], x[0]),
        grad: Some(&|x| {
            let (v, (gc, gx)) = horner::grad(&x[1..], x[0]);
            (v, [vec![gx], gc].concat())
        }),
        grad_into: &|x| {
            let (mut dc, mut dx) = (vec![0.0; x.len() - 1], 0.0);
            let v = horner::grad_into(&x[1..], x[0], &mut dc, &mut dx);
            (v, [vec![dx], dc].concat())
        },
        jvp: &|x, t| horner::jvp(&x[1..], x[0], &t[1..], t[0]),
    }
    .check(&point(6, 9, -1.0, 1.0));
}

/// A function writing `out: &mut [f64]`, checked through `⟨w, out⟩`: `grad_into` with
/// `w` as the output's buffer gives the gradient of that objective; `jvp` writes the
/// output's tangent, whose `⟨w, ·⟩` is the directional derivative.
struct Writer<'a> {
    name: &'a str,
    /// Runs the body as written into `out`.
    primal: &'a dyn Fn(&[f64], &mut [f64]),
    itself: &'a dyn Fn(&[f64], &mut [f64]),
    /// `grad_into(x, out, dx, d_out)`: the gradient of `⟨d_out, out⟩` into `dx`.
    grad_into: Writes<'a>,
    jvp: WritesTangent<'a>,
    outputs: usize,
}

impl Writer<'_> {
    fn check(&self, x: &[f64]) {
        let name = self.name;
        let w = point(self.outputs, 7, -1.0, 1.0);
        let objective = |x: &[f64]| {
            let mut out = vec![0.0; self.outputs];
            (self.primal)(x, &mut out);
            out.iter().zip(&w).map(|(o, w)| o * w).sum::<f64>()
        };
        let mut expected_out = vec![0.0; self.outputs];
        (self.primal)(x, &mut expected_out);
        let mut out = vec![0.0; self.outputs];
        (self.itself)(x, &mut out);
        assert_eq!(out, expected_out, "{name}: itself");
        let (mut out, mut dx, mut d_out) = (vec![0.0; self.outputs], vec![0.0; x.len()], w.clone());
        (self.grad_into)(x, &mut out, &mut dx, &mut d_out);
        assert_eq!(out, expected_out, "{name}: grad_into's output");
        // every output element is written before it is read: nothing flows to its old value
        assert!(d_out.iter().all(|&g| g == 0.0), "{name}: d_out {d_out:?}");
        let expected = central_differences(&objective, x);
        for (k, (g, e)) in dx.iter().zip(&expected).enumerate() {
            assert!(
                close(*g, *e, 1e-5),
                "{name}: d/dx{k} = {g}, central differences {e}"
            );
        }
        let v = point(x.len(), 5, -1.0, 1.0);
        let (mut out, mut tangent) = (vec![0.0; self.outputs], vec![0.0; self.outputs]);
        (self.jvp)(x, &mut out, &v, &mut tangent);
        assert_eq!(out, expected_out, "{name}: jvp's output");
        let along: f64 = tangent.iter().zip(&w).map(|(t, w)| t * w).sum();
        let dot: f64 = dx.iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            close(along, dot, 1e-10),
            "{name}: jvp {along} vs <grad, v> {dot}"
        );
    }
}

#[test]
fn outputs_written_through_mut_slices() {
    Writer {
        name: "scale_into",
        primal: &|x, out| scale_into::primal(&x[1..], x[0], out),
        itself: &|x, out| scale_into(&x[1..], x[0], out),
        grad_into: &|x, out, dx, d_out| {
            let (d_factor, d_rest) = dx.split_at_mut(1);
            scale_into::grad_into(&x[1..], x[0], out, d_rest, &mut d_factor[0], d_out)
        },
        jvp: &|x, out, v, t| {
            scale_into::jvp(&x[1..], x[0], out, &v[1..], v[0], t);
        },
        outputs: 4,
    }
    .check(&point(5, 11, -1.0, 1.0));
    Writer {
        name: "softmax_into",
        primal: &|x, out| softmax_into::primal(x, out),
        itself: &|x, out| softmax_into(x, out),
        grad_into: &|x, out, dx, d_out| softmax_into::grad_into(x, out, dx, d_out),
        jvp: &|x, out, v, t| {
            softmax_into::jvp(x, out, v, t);
        },
        outputs: 5,
    }
    .check(&point(5, 12, -2.0, 2.0));
    Writer {
        name: "moving_average",
        primal: &|x, out| moving_average::primal(x, out),
        itself: &|x, out| moving_average(x, out),
        grad_into: &|x, out, dx, d_out| moving_average::grad_into(x, out, dx, d_out),
        jvp: &|x, out, v, t| {
            moving_average::jvp(x, out, v, t);
        },
        outputs: 5,
    }
    .check(&point(7, 13, -1.0, 1.0));
    Writer {
        name: "scaled_copy",
        primal: &|x, out| scaled_copy::primal(x, out),
        itself: &|x, out| scaled_copy(x, out),
        grad_into: &|x, out, dx, d_out| scaled_copy::grad_into(x, out, dx, d_out),
        jvp: &|x, out, v, t| {
            scaled_copy::jvp(x, out, v, t);
        },
        outputs: 4,
    }
    .check(&point(4, 14, -1.0, 1.0));
    Writer {
        name: "window_means",
        primal: &|x, out| window_means::primal(x, out),
        itself: &|x, out| window_means(x, out),
        grad_into: &|x, out, dx, d_out| window_means::grad_into(x, out, dx, d_out),
        jvp: &|x, out, v, t| {
            window_means::jvp(x, out, v, t);
        },
        outputs: 4,
    }
    .check(&point(6, 15, -1.0, 1.0));
}

#[test]
fn body_forms() {
    slices!(prefix_sum_energy, [6], [0], point(6, 21, -1.0, 1.0));
    slices!(compound_updates, [4], [0], point(4, 22, -1.0, 1.0));
    slices!(pushed_squares, [5], [0], point(5, 23, 0.5, 2.0));
    slices!(matvec_norm, [9, 3], [0, 1], point(12, 24, -1.0, 1.0));
    slices!(laplacian_energy, [7], [0], point(7, 25, -1.0, 1.0));
    slices!(soft_max_by_branch, [6], [0], point(6, 26, -1.0, 1.0));
    slices!(cumulative_product, [5], [0], point(5, 27, 0.5, 1.5));
    slices!(overwritten_twice, [2], [0], point(2, 28, -1.0, 1.0));
    slices!(triangle_area, [3, 3, 3], [0, 1, 2], point(9, 29, -1.0, 1.0));
    let arr = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    Case {
        name: "particle_energy",
        itself: &|x| particle_energy(arr(x), arr(&x[3..]), x[6]),
        primal: &|x| particle_energy::primal(arr(x), arr(&x[3..]), x[6]),
        grad: Some(&|x| {
            let (v, (gp, gv, gdt)) = particle_energy::grad(arr(x), arr(&x[3..]), x[6]);
            (v, [&gp[..], &gv[..], &[gdt]].concat())
        }),
        grad_into: &|x| {
            let (mut dp, mut dv, mut ddt) = ([0.0; 3], [0.0; 3], 0.0);
            let v =
                particle_energy::grad_into(arr(x), arr(&x[3..]), x[6], &mut dp, &mut dv, &mut ddt);
            (v, [&dp[..], &dv[..], &[ddt]].concat())
        },
        jvp: &|x, t| particle_energy::jvp(arr(x), arr(&x[3..]), x[6], &t[..3], &t[3..6], t[6]),
    }
    .check(&[0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.05]);
}

#[test]
fn iterator_forms() {
    slices!(iter_sum, [5], [0], point(5, 31, -1.0, 1.0));
    slices!(log_sum_exp, [6], [0], point(6, 32, -3.0, 3.0));
    slices!(zip_dot, [4, 5], [0, 1], point(9, 33, -1.0, 1.0));
    slices!(geometric_mean, [4], [0], point(4, 34, 0.5, 2.0));
    slices!(horner_fold, [5], [0], point(5, 35, -1.0, 1.0));
    slices!(enumerate_weighted, [5], [0], point(5, 36, -1.0, 1.0));
    slices!(gaussian_mixture, [6, 3], [0, 1], point(9, 37, -2.0, 2.0));
    slices!(reversed_discount, [6], [0], point(6, 38, -1.0, 1.0));
    slices!(enumerate_rev, [5], [0], point(5, 39, -1.0, 1.0));
    slices!(zip_squared_error, [5, 5], [0, 1], point(10, 40, -1.0, 1.0));
    slices!(variance, [6], [0], point(6, 41, -1.0, 1.0));
    slices!(
        reversed_until_negative,
        [6],
        [0],
        vec![0.3, -0.9, 0.4, 0.1, -0.2, 0.7]
    );
    slices!(
        skipping_small,
        [6],
        [0],
        vec![0.3, -0.1, 0.4, 0.15, -0.6, 0.7]
    );
    slices!(pushed_then_scaled, [5], [0], point(5, 43, -1.0, 1.0));
    slices!(chunk_maxima, [5], [0], point(5, 44, -1.0, 1.0));
    Case {
        name: "by_value_loop",
        itself: &|x| by_value_loop(x[..3].to_vec(), &x[3..]),
        primal: &|x| by_value_loop::primal(x[..3].to_vec(), &x[3..]),
        grad: Some(&|x| {
            let (v, [gx, gy]) = by_value_loop::grad(x[..3].to_vec(), &x[3..]);
            (v, [gx, gy].concat())
        }),
        grad_into: &|x| {
            let (mut dx, mut dy) = (vec![0.0; 3], vec![0.0; 3]);
            let v = by_value_loop::grad_into(x[..3].to_vec(), &x[3..], &mut dx, &mut dy);
            (v, [dx, dy].concat())
        },
        jvp: &|x, t| by_value_loop::jvp(x[..3].to_vec(), &x[3..], &t[..3], &t[3..]),
    }
    .check(&point(6, 42, -0.5, 0.5));
}

/// Hand-computed values, independent of central differences.
#[test]
fn hand_computed_gradients() {
    // d/da Σ aᵢbᵢ = b, d/db = a
    let (value, [da, db]) = dot::grad(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]);
    assert_eq!(value, 32.0);
    assert_eq!((da, db), (vec![4.0, 5.0, 6.0], vec![1.0, 2.0, 3.0]));
    // prefix sums of [1, 2, 3] are [1, 3, 6]; e = Σ pₖ², de/dxᵢ = 2 Σ_{k ≥ i} pₖ
    let (value, [g]) = prefix_sum_energy::grad(&[1.0, 2.0, 3.0]);
    assert_eq!(value, 46.0);
    assert_eq!(g, vec![20.0, 18.0, 12.0]);
    // the moving average of width 2: d⟨w, out⟩/dx = (w₀/2, (w₀ + w₁)/2, w₁/2)
    let (mut out, mut dx, mut d_out) = ([0.0; 2], [0.0; 3], [1.0, 10.0]);
    moving_average::grad_into(&[1.0, 2.0, 3.0], &mut out, &mut dx, &mut d_out);
    assert_eq!(out, [1.5, 2.5]);
    assert_eq!(dx, [0.5, 5.5, 5.0]);
    // grad_into accumulates, as Enzyme's shadows do
    let mut d = [1.0, 1.0, 1.0];
    iter_sum::grad_into(&[1.0, 2.0, 3.0], &mut d);
    // d/dxᵢ (Σx)² = 2 Σx = 12
    assert_eq!(d, [13.0, 13.0, 13.0]);
}

#[test]
fn f32_arrays() {
    // d/dxᵢ Σ xⱼ²/2 = xᵢ
    let x = [1.5_f32, -2.0, 0.25];
    assert_eq!(half_norm_squared(&x), half_norm_squared::primal(&x));
    let (value, [g]) = half_norm_squared::grad(&x);
    assert_eq!((value, g), (3.15625, vec![1.5, -2.0, 0.25]));
    let (_, tangent) = half_norm_squared::jvp(&x, &[1.0, 1.0, 1.0]);
    assert_eq!(tangent, -0.25);
}

/// The example of the attribute's docs, `# Arrays, slices and Vecs of floats`.
#[test]
fn the_documented_example() {
    let (value, [softmax]) = log_sum_exp::grad(&[0.0, 0.0]);
    assert_eq!((value, softmax), (2f64.ln(), vec![0.5, 0.5]));
    let mut d = [0.0; 2];
    log_sum_exp::grad_into(&[0.0, 0.0], &mut d);
    assert_eq!(d, [0.5, 0.5]);
}

/// Data held constant: no gradient entry for it, and whole uses allowed.
#[differentiable(constant(xs))]
fn fitted_line_loss(w: &[f64], xs: &[f64]) -> f64 {
    let data = xs.to_vec();
    let mut loss = 0.0;
    for (i, x) in data.iter().enumerate() {
        let r = w[0] * x + w[1] - (i as f64);
        loss += r * r;
    }
    loss
}

#[test]
fn constant_data() {
    // loss = Σ (w₀xᵢ + w₁ - i)²; at w = (1, 0), xs = (0, 2): residuals (0, 1),
    // d/dw₀ = 2 Σ rᵢxᵢ = 4, d/dw₁ = 2 Σ rᵢ = 2
    assert_eq!(fitted_line_loss(&[1.0, 0.0], &[0.0, 2.0]), 1.0);
    let (value, [g]) = fitted_line_loss::grad(&[1.0, 0.0], &[0.0, 2.0]);
    assert_eq!((value, g), (1.0, vec![4.0, 2.0]));
}

#[test]
fn a_gradient_buffer_of_the_wrong_length_panics_at_the_call() {
    let (file, line, message) = common::panic_site(|| {
        let mut d = [0.0; 2];
        iter_sum::grad_into(&[1.0, 2.0, 3.0], &mut d);
    });
    assert_eq!(file, file!());
    assert_eq!(line, line!() - 3);
    assert!(
        message.contains("iter_sum::grad_into")
            && message.contains("length 2")
            && message.contains("length 3"),
        "{message}"
    );
}

#[test]
fn generated_code_reads_elements_through_shadows() {
    // the adjoint adds into the shadow at the saved index; the forward runs an index loop
    assert!(dot::GENERATED.contains("generated::Shadow"));
    assert!(log_sum_exp::GENERATED.contains("for gradtape_k in 0..x.len()"));
    assert!(moving_average::GENERATED.contains("grad_into"));
}

// ----- parts of arrays as iterator sources, and `for &v in x` -----

/// A pair potential over `i < j`: the inner loop iterates the part `&x[i + 1..]`.
#[differentiable]
fn pair_potential(x: &[f64]) -> f64 {
    let mut e = 0.0;
    for (i, a) in x.iter().enumerate() {
        for b in &x[i + 1..] {
            e += 1.0 / ((a - b) * (a - b) + 0.5);
        }
    }
    e
}

/// `for &v in x` of a slice parameter.
#[differentiable]
fn smallest_square(x: &[f64]) -> f64 {
    let mut best = f64::INFINITY;
    for &v in x {
        best = best.min(v * v + 0.1 * v);
    }
    best
}

/// Reductions over parts (`x[1..]`, `&w[..n]`, an inclusive `x[1..=2]`), zipped, with
/// bounds read from a parameter's length.
#[differentiable]
fn part_reductions(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len() - 1;
    let s: f64 = x[1..].iter().zip(&w[..n]).map(|(a, b)| a * b).sum();
    let p = x[1..=2].iter().product::<f64>();
    let m = w[1..].iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v));
    s + p * m
}

/// `skip` and `take` on a slice's iterator (also past its end: they clip), zipped with
/// another, and after `copied` with `enumerate`.
#[differentiable]
fn skipped_and_taken(x: &[f64], n: usize) -> f64 {
    let mut s: f64 = x.iter().skip(1).take(2).map(|v| v * v).sum();
    for (a, b) in x.iter().zip(x.iter().skip(1)) {
        s += (b - a) * (b - a).sin();
    }
    for (i, v) in x.iter().copied().take(n).enumerate() {
        s += v * (i as f64 + 0.5);
    }
    s + x.iter().skip(n + 10).sum::<f64>()
}

/// Buffers collected from chains: `map(..).collect()` typed by the `let`, by a turbofish,
/// over a zip, and `copied().collect()`; then read by index and by iterator.
#[differentiable]
fn collected(x: &[f64], w: &[f64]) -> f64 {
    let squashed: Vec<f64> = x.iter().map(|v| v.tanh()).collect();
    let products = x.iter().zip(w).map(|(a, b)| a * b).collect::<Vec<f64>>();
    let copy: Vec<f64> = w.iter().copied().collect();
    let mut s = 0.0;
    for i in 0..squashed.len() {
        s += squashed[i] * products[i] + copy[i] * copy[i] * squashed[i];
    }
    s + products.iter().sum::<f64>()
}

/// Reductions over windows and chunks: `windows(2).map(..).sum()`, `chunks(2).map(..)
/// .product()` with a reduction over each chunk.
#[differentiable]
fn window_reductions(x: &[f64]) -> f64 {
    let roughness: f64 = x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let blocks = x
        .chunks(2)
        .map(|c| c.iter().sum::<f64>() + 1.5)
        .product::<f64>();
    roughness + blocks
}

/// Interleaved data: `step_by` alone, after `skip`, zipped, and with a stride that does
/// not divide the length.
#[differentiable]
fn interleaved(x: &[f64]) -> f64 {
    let even: f64 = x.iter().step_by(2).map(|v| v * v).sum();
    let mut cross = 0.0;
    for (a, b) in x.iter().step_by(2).zip(x.iter().skip(1).step_by(2)) {
        cross += a * b.sin();
    }
    let third: f64 = x.iter().skip(1).step_by(3).product();
    even + cross + third
}

/// `skip`/`take`/`step_by` after a `step_by`, counting strided items (a chain thinned,
/// then its burn-in skipped, as an MCMC trace is read), clipped where they run past the
/// end; formerly rejected (a `step_by` had to come last).
#[differentiable]
fn strided_then_narrowed(x: &[f64], n: usize) -> f64 {
    let thinned: f64 = x.iter().step_by(2).skip(1).take(n).map(|v| v * v).sum();
    let mut cross = 0.0;
    for (a, b) in x
        .iter()
        .step_by(2)
        .step_by(2)
        .zip(x.iter().skip(1).step_by(3).take(n))
    {
        cross += a * b.sin();
    }
    let tail: f64 = x.iter().step_by(3).skip(n).product();
    thinned + cross + tail
}

#[test]
fn parts_as_iterator_sources() {
    // (each value is the body's to the bit: the desugared chain reads the elements the
    // iterators yield, in their order)
    for n in [0, 1, 2, 9] {
        slice_and_constant!(@second_order strided_then_narrowed, n, point(9, 58, -1.0, 1.0));
    }
    // by hand, at n = 2 on 0..9: thinned reads 2, 4; cross pairs (0, 1), (4, 4); tail
    // reads 6
    let x: Vec<f64> = (0..9).map(|k| 0.1 * f64::from(k) + 0.05).collect();
    let (value, [g]) = strided_then_narrowed::grad(&x, 2);
    let expected = x[2] * x[2] + x[4] * x[4] + x[0] * x[1].sin() + x[4] * x[4].sin() + x[6];
    assert!((value - expected).abs() < 1e-15, "{value} vs {expected}");
    let mut by_hand = vec![0.0; 9];
    by_hand[2] = 2.0 * x[2];
    by_hand[4] = 2.0 * x[4] + x[4].sin() + x[4] * x[4].cos();
    by_hand[0] = x[1].sin();
    by_hand[1] = x[0] * x[1].cos();
    by_hand[6] = 1.0;
    for (a, b) in g.iter().zip(&by_hand) {
        assert!((a - b).abs() < 1e-14, "{g:?} vs {by_hand:?}");
    }
    slices!(@second_order interleaved, [7], [0], point(7, 57, -1.0, 1.0));
    slices!(@second_order window_reductions, [5], [0], point(5, 56, -1.0, 1.0));
    slices!(@second_order collected, [3, 3], [0, 1], point(6, 55, -1.0, 1.0));
    for n in [2, 9] {
        slice_and_constant!(@second_order skipped_and_taken, n, point(4, 54, -1.0, 1.0));
    }
    slices!(@second_order pair_potential, [4], [0], point(4, 51, -1.0, 1.0));
    slices!(smallest_square, [4], [0], point(4, 52, -1.0, 1.0));
    slices!(part_reductions, [4, 4], [0, 1], point(8, 53, -1.0, 1.0));
}

// ----- indices recomputed from the counters of the user's range loops -----

/// Reads and writes at `i`, `i - 1`, `i + 1` in loops from 0 and from 1, a compound
/// write, an inclusive range, a reversed range, and an inner loop; the indices are
/// recomputed by the adjoint, not saved.
#[differentiable]
fn stencils(x: &[f64], w: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    for i in 1..n - 1 {
        y[i] = x[i - 1] * w[i] - 2.0 * x[i] + x[i + 1] * w[i - 1];
    }
    for i in 0..=n - 2 {
        y[i + 1] += 0.5 * y[i] * x[i];
    }
    let mut s = 0.0;
    for i in (1..n).rev() {
        s = s * 0.9 + y[i] * y[i - 1];
        for j in 0..i {
            s += 0.01 * x[j] * y[i];
        }
    }
    s
}

/// Jumps: `break` and `continue` in a forward range (its trips still count from the first
/// value), `break` in a reversed one (which saves its indices: its trip count is not the
/// range's length), and the loop variable shadowed in the body (then an ordinary index).
#[differentiable]
fn stencils_with_jumps(x: &[f64], limit: f64) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        if x[i] > limit {
            continue;
        }
        s += x[i] * x[i - 1];
        if s > 10.0 * limit {
            break;
        }
    }
    for i in (0..x.len()).rev() {
        s += x[i].sin();
        if x[i] < -limit {
            break;
        }
    }
    for i in 0..x.len() - 1 {
        let i = x.len() - 1 - i;
        s += 0.5 * x[i] * x[i];
    }
    s
}

#[test]
fn indices_from_range_counters() {
    slices!(@second_order stencils, [6, 6], [0, 1], point(12, 61, -1.0, 1.0));
    for limit in [0.3, 2.0] {
        let x = point(7, 62, -1.0, 1.0);
        let case = common::faces::Case {
            name: "stencils_with_jumps",
            itself: &|x| stencils_with_jumps(x, limit),
            primal: &|x| stencils_with_jumps::primal(x, limit),
            grad: Some(&|x| {
                let (value, (g, _)) = stencils_with_jumps::grad(x, limit);
                (value, g)
            }),
            grad_into: &|x| {
                let (mut g, mut dl) = (vec![0.0; x.len()], 0.0);
                let value = stencils_with_jumps::grad_into(x, limit, &mut g, &mut dl);
                (value, g)
            },
            jvp: &|x, v| stencils_with_jumps::jvp(x, limit, v, 0.0),
        };
        case.check_with_second_order(&x);
    }
    // the generated code keeps no index of the stencil loops
    assert!(
        !stencils::GENERATED.contains("idx"),
        "{}",
        stencils::GENERATED
    );
}
