//! Scalar-mode programs written by `gradtape-fuzz --scalar` (fuzz/src/scalar.rs): each
//! a plain-float annotated function (some writing an output `out: &mut [T]`, some taking a
//! struct `p: &Params<T>`), its `f64` twin, and the same body generic over
//! `num_traits::Float` run on dual numbers; checked against the dual numbers and central
//! differences, orders 1 and 2, through every face, and at `f32` against dual numbers on
//! `f32`. Generated: do not edit; regenerate with
//! `cargo run -p gradtape-fuzz -- --scalar --seeds SEEDS --test-file tests/generated_scalar_programs.rs`.

#![allow(unused, clippy::all)]

mod common;

use common::{central_differences, close};
use gradtape::generated::Dual;
use gradtape::{Differentiable, differentiable};
// (`F::zero()` in the `f64` twins' faces, where `F` is `f64`)
use num_traits::{One, Zero};

/// Called by the programs: an annotated helper.
#[differentiable]
fn helper_soft<T: gradtape::Float>(a: T, b: T) -> T {
    (a * b).tanh() + a * T::from(0.5).unwrap()
}

fn helper_soft_on_duals<T: num_traits::Float>(a: T, b: T) -> T {
    (a * b).tanh() + a * T::from(0.5).unwrap()
}

/// Called by the programs: an annotated recursive helper, `v` to the power `n` by halves.
#[differentiable]
fn helper_power<T: gradtape::Float>(v: T, n: usize) -> T {
    if n == 0 {
        T::one()
    } else if n % 2 == 0 {
        let h = helper_power(v, n / 2);
        h * h
    } else {
        v * helper_power(v, n - 1)
    }
}

fn helper_power_on_duals<T: num_traits::Float>(v: T, n: usize) -> T {
    if n == 0 {
        T::one()
    } else if n % 2 == 0 {
        let h = helper_power_on_duals(v, n / 2);
        h * h
    } else {
        v * helper_power_on_duals(v, n - 1)
    }
}

/// Called by the programs: an annotated helper returning a pair.
#[differentiable]
fn helper_pair<T: gradtape::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

fn helper_pair_on_duals<T: num_traits::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

/// Called by the programs: an annotated writer into a caller's buffer.
#[differentiable]
fn helper_smooth<T: gradtape::Float>(buf: &mut [T], k: T) {
    for i in 1..buf.len() {
        buf[i] = buf[i] * k.tanh() + buf[i - 1] * T::from(0.25).unwrap();
    }
}

fn helper_smooth_on_duals<T: num_traits::Float>(buf: &mut [T], k: T) {
    for i in 1..buf.len() {
        buf[i] = buf[i] * k.tanh() + buf[i - 1] * T::from(0.25).unwrap();
    }
}

/// The struct parameter some programs take (`#[differentiable] p: &Params<T>`): floats
/// read by field, a fixed-size array and a vector, its gradient a `Params` compared field
/// by field.
#[derive(Differentiable, Clone, Debug)]
struct Params<T> {
    a: T,
    b: T,
    w: [T; 3],
    v: Vec<T>,
}

/// The number of floats in a `Params`.
const PARAMS: usize = 9;

/// `Params` from its floats, in order (`a`, `b`, `w`, `v`).
fn params<F: Copy>(p: &[F]) -> Params<F> {
    Params {
        a: p[0],
        b: p[1],
        w: [p[2], p[3], p[4]],
        v: p[5..9].to_vec(),
    }
}

/// A `Params` (a gradient, a tangent) as its floats, field by field in order.
fn flat<F: Copy>(p: &Params<F>) -> Vec<F> {
    [vec![p.a, p.b], p.w.to_vec(), p.v.clone()].concat()
}

/// A writer is checked through its value plus `⟨WEIGHTS, out⟩`, with `out`'s initial
/// values inputs too (it may read them): `grad_into` and the pullback take `WEIGHTS` as
/// `out`'s cotangent.
const WEIGHTS: [f64; 4] = [0.7, -0.4, 1.1, 0.3];

fn weights<F: num_traits::Float>() -> Vec<F> {
    WEIGHTS.iter().map(|w| F::from(*w).unwrap()).collect()
}

fn weighted<F: num_traits::Float>(out: &[F]) -> F {
    out.iter()
        .zip(WEIGHTS)
        .fold(F::zero(), |total, (o, w)| total + *o * F::from(w).unwrap())
}

/// A program's faces at a point `p` (its inputs flattened: the struct's floats, `x`, `s`,
/// the output's initial values), each giving the objective (the value, plus `⟨WEIGHTS,
/// out⟩` for a writer).
struct Faces<F> {
    /// by `f::primal`
    primal: F,
    /// by `f` itself
    itself: F,
    /// the objective and its gradient: by `f::grad`, or for a writer by `f::grad_into`
    grad: (F, Vec<F>),
    /// the same another way: by `f::grad_into` into zeroed buffers, or for a writer by
    /// `f::vjp`'s pullback
    other: (F, Vec<F>),
    /// by `f::jvp` along a direction `t`: the objective and its derivative along `t`
    jvp: (F, F),
}

/// The inputs of program `seed`: in (-1, 1), from a small generator of its own.
fn point<const M: usize>(seed: u64) -> [f64; M] {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    std::array::from_fn(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    })
}

/// The objective and its gradient on dual numbers, one direction per input.
fn by_duals<F: gradtape::Float, const M: usize>(
    on_duals: &dyn Fn(&[Dual<F, M>]) -> Dual<F, M>,
    p: &[F],
) -> (F, Vec<F>) {
    let d: Vec<Dual<F, M>> = p
        .iter()
        .enumerate()
        .map(|(i, &v)| Dual::variable(v, i))
        .collect();
    let y = on_duals(&d);
    (y.value, y.partials.to_vec())
}

/// Program `name`'s faces at `p` against dual numbers and differences (orders 1 and 2),
/// against each other (`other`, `jvp` along `t`), and its `f64` twin's to the bit.
fn check<const M: usize>(
    name: &str,
    p: [f64; M],
    t: [f64; M],
    faces: &dyn Fn(&[f64], &[f64]) -> Faces<f64>,
    twin: &dyn Fn(&[f64], &[f64]) -> Faces<f64>,
    on_duals: &dyn Fn(&[Dual<f64, M>]) -> Dual<f64, M>,
) {
    let at = faces(&p, &t);
    let value = at.primal;
    assert!(value.is_finite(), "{name}: value {value} at {p:?}");
    assert_eq!(
        at.itself.to_bits(),
        value.to_bits(),
        "{name}: f against primal"
    );
    let (by_grad, gradient) = &at.grad;
    assert_eq!(by_grad.to_bits(), value.to_bits(), "{name}: grad's value");
    let (dual_value, dual_gradient) = by_duals(on_duals, &p);
    assert!(
        close(dual_value, value, 1e-12),
        "{name}: {dual_value} on duals, {value}"
    );
    let differences = central_differences(&|q| faces(q, &t).primal, &p);
    for k in 0..M {
        assert!(
            close(gradient[k], dual_gradient[k], 1e-10),
            "{name}: ∂/∂p{k} {} vs dual numbers {} at {p:?}\n  grad  {gradient:?}\n  duals {dual_gradient:?}",
            gradient[k],
            dual_gradient[k]
        );
        assert!(
            close(gradient[k], differences[k], 1e-5),
            "{name}: ∂/∂p{k} {} vs central differences {} at {p:?}",
            gradient[k],
            differences[k]
        );
    }
    // order two: each Hessian column by differences of the gradient, against the same
    // differences of the dual numbers' gradient
    let h = 1e-5;
    for j in 0..M {
        let moved = |by: f64| {
            let mut q = p;
            q[j] += by;
            q
        };
        let (up, down) = (faces(&moved(h), &t).grad.1, faces(&moved(-h), &t).grad.1);
        let (dual_up, dual_down) = (
            by_duals(on_duals, &moved(h)).1,
            by_duals(on_duals, &moved(-h)).1,
        );
        for i in 0..M {
            let of_grad = (up[i] - down[i]) / (2.0 * h);
            let of_duals = (dual_up[i] - dual_down[i]) / (2.0 * h);
            assert!(
                close(of_grad, of_duals, 1e-6),
                "{name}: H[{i}][{j}] {of_grad} by grad, {of_duals} by dual numbers at {p:?}"
            );
        }
    }
    // the other faces
    let (by_other, other) = &at.other;
    assert_eq!(
        by_other.to_bits(),
        value.to_bits(),
        "{name}: the other gradient's value"
    );
    for (k, (a, b)) in other.iter().zip(gradient).enumerate() {
        assert!(
            close(*a, *b, 1e-13),
            "{name}: ∂/∂p{k} {a} the other way, {b} by grad"
        );
    }
    let (by_jvp, tangent) = at.jvp;
    assert_eq!(by_jvp.to_bits(), value.to_bits(), "{name}: jvp's value");
    let along: f64 = gradient.iter().zip(&t).map(|(g, t)| g * t).sum();
    assert!(
        close(tangent, along, 1e-10),
        "{name}: jvp {tangent}, gradient along t {along}"
    );
    // the `f64` twin: the same code on `f64`, the same to the bit
    let twin = twin(&p, &t);
    let bits = |faces: &Faces<f64>| -> Vec<u64> {
        [
            faces.primal,
            faces.itself,
            faces.grad.0,
            faces.other.0,
            faces.jvp.0,
            faces.jvp.1,
        ]
        .iter()
        .chain(&faces.grad.1)
        .chain(&faces.other.1)
        .map(|v| v.to_bits())
        .collect()
    };
    assert_eq!(
        bits(&twin),
        bits(&at),
        "{name}: the f64 twin against the generic function"
    );
}

/// The generic program at `f32`: its value and gradient against dual numbers on `f32` at
/// the same point (the same operations on the same values, so the same branches taken),
/// within `f32`'s rounding: the value relative to its size, each partial relative to the
/// gradient's largest (the reverse sweep sums the same terms in another order, each term
/// up to that size).
fn at_f32<const M: usize>(
    name: &str,
    p: [f64; M],
    faces: &dyn Fn(&[f32], &[f32]) -> Faces<f32>,
    on_duals: &dyn Fn(&[Dual<f32, M>]) -> Dual<f32, M>,
) {
    let p: Vec<f32> = p.iter().map(|&v| v as f32).collect();
    let at = faces(&p, &[0.0; M]);
    let value = at.primal;
    assert!(value.is_finite(), "{name} at f32: value {value} at {p:?}");
    assert_eq!(
        at.itself.to_bits(),
        value.to_bits(),
        "{name} at f32: f against primal"
    );
    let (by_grad, gradient) = &at.grad;
    assert_eq!(
        by_grad.to_bits(),
        value.to_bits(),
        "{name} at f32: grad's value"
    );
    let (dual_value, dual_gradient) = by_duals(on_duals, &p);
    assert!(
        (value - dual_value).abs() <= F32_VALUE * (1.0 + dual_value.abs()),
        "{name} at f32: {value}, on duals {dual_value}"
    );
    let largest = dual_gradient.iter().fold(0.0_f32, |m, g| m.max(g.abs()));
    for (k, (g, d)) in gradient.iter().zip(&dual_gradient).enumerate() {
        assert!(
            (g - d).abs() <= F32_GRADIENT * (1.0 + largest),
            "{name} at f32: ∂/∂p{k} {g} vs dual numbers {d} at {p:?}"
        );
    }
}

/// `f32`'s tolerances: some 170 and 1700 roundings (of 2^-24 each) at the scale of the
/// values compared.
const F32_VALUE: f32 = 1e-5;
const F32_GRADIENT: f32 = 1e-4;

#[differentiable]
#[allow(clippy::all, unused)]
fn program_0<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in (0..4).rev() {
        let (n1, n2) = (
            ((out[i] - out[i]) * (T::from(1.6).unwrap() * T::from(0.4).unwrap())),
            (s / (T::from(1.5).unwrap() + (out[i]).cos() * (out[i]).cos())),
        );
        let (mut p3, mut q4) = ((T::from(-1.7).unwrap() + n2), s.sin());
        let mut k5 = 0;
        while k5 < 2 {
            (p3, q4) = (
                p3 + q4 * T::from(0.2).unwrap(),
                q4 - (p3 + (x[i] * n1)).sin() * T::from(0.2).unwrap(),
            );
            k5 += 1;
        }
        let n8 = ((x[2]) * (x[2]) + T::one()).sqrt();
        let f6 = |u: T, w: T| (u * n8 - w).tanh();
        let f7 = |u: T| f6(u, u * u) + n8;
        let n9 = f6(x[i], p.w[i % 3]) + f7(p.w[i % 3]);
    }
    let mut a10 = ((x[1]) * (x[1]) + T::one()).ln();
    if ((x[3]).powi(3) * (out[0]).tanh()) > x[3] {
        a10 = p.v[2];
    } else {
        a10 = a10 - ((s * p.a) * (x[0] + a10));
    }
    let t11 = helper_pair(s, x[2]);
    let n12 = t11.0
        * (out[3])
            .atan()
            .hypot(T::one() + (s * s + T::one()).sqrt() * (s * s + T::one()).sqrt())
        + t11.1;
    let mut m13 = x[0];
    let mut t14 = T::zero();
    for i in 1..4 {
        m13 = m13.max(x[i]);
        t14 = t14 + (x[i] - m13).exp();
    }
    let n15 = s;
    p.w[2] + p.w[2] + n15 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_0_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in (0..4).rev() {
        let (n1, n2) = (
            ((out[i] - out[i]) * ((1.6_f64) * (0.4_f64))),
            (s / ((1.5_f64) + (out[i]).cos() * (out[i]).cos())),
        );
        let (mut p3, mut q4) = (((-1.7_f64) + n2), s.sin());
        let mut k5 = 0;
        while k5 < 2 {
            (p3, q4) = (
                p3 + q4 * (0.2_f64),
                q4 - (p3 + (x[i] * n1)).sin() * (0.2_f64),
            );
            k5 += 1;
        }
        let n8 = ((x[2]) * (x[2]) + 1.0).sqrt();
        let f6 = |u: f64, w: f64| (u * n8 - w).tanh();
        let f7 = |u: f64| f6(u, u * u) + n8;
        let n9 = f6(x[i], p.w[i % 3]) + f7(p.w[i % 3]);
    }
    let mut a10 = ((x[1]) * (x[1]) + 1.0).ln();
    if ((x[3]).powi(3) * (out[0]).tanh()) > x[3] {
        a10 = p.v[2];
    } else {
        a10 = a10 - ((s * p.a) * (x[0] + a10));
    }
    let t11 = helper_pair(s, x[2]);
    let n12 = t11.0
        * (out[3])
            .atan()
            .hypot(1.0 + (s * s + 1.0).sqrt() * (s * s + 1.0).sqrt())
        + t11.1;
    let mut m13 = x[0];
    let mut t14 = 0.0;
    for i in 1..4 {
        m13 = m13.max(x[i]);
        t14 = t14 + (x[i] - m13).exp();
    }
    let n15 = s;
    p.w[2] + p.w[2] + n15 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_0_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in (0..4).rev() {
        let (n1, n2) = (
            ((out[i] - out[i]) * (T::from(1.6).unwrap() * T::from(0.4).unwrap())),
            (s / (T::from(1.5).unwrap() + (out[i]).cos() * (out[i]).cos())),
        );
        let (mut p3, mut q4) = ((T::from(-1.7).unwrap() + n2), s.sin());
        let mut k5 = 0;
        while k5 < 2 {
            (p3, q4) = (
                p3 + q4 * T::from(0.2).unwrap(),
                q4 - (p3 + (x[i] * n1)).sin() * T::from(0.2).unwrap(),
            );
            k5 += 1;
        }
        let n8 = ((x[2]) * (x[2]) + T::one()).sqrt();
        let f6 = |u: T, w: T| (u * n8 - w).tanh();
        let f7 = |u: T| f6(u, u * u) + n8;
        let n9 = f6(x[i], p.w[i % 3]) + f7(p.w[i % 3]);
    }
    let mut a10 = ((x[1]) * (x[1]) + T::one()).ln();
    if ((x[3]).powi(3) * (out[0]).tanh()) > x[3] {
        a10 = p.v[2];
    } else {
        a10 = a10 - ((s * p.a) * (x[0] + a10));
    }
    let t11 = helper_pair_on_duals(s, x[2]);
    let n12 = t11.0
        * (out[3])
            .atan()
            .hypot(T::one() + (s * s + T::one()).sqrt() * (s * s + T::one()).sqrt())
        + t11.1;
    let mut m13 = x[0];
    let mut t14 = T::zero();
    for i in 1..4 {
        m13 = m13.max(x[i]);
        t14 = t14 + (x[i] - m13).exp();
    }
    let n15 = s;
    p.w[2] + p.w[2] + n15 + out.iter().copied().sum::<T>()
}

fn program_0_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_0::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_0(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_0::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_0::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_0::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_0_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_0_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_0_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_0_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_0_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_0_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_0_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_0_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_0_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_0",
        point(0),
        point(0 + 7),
        &program_0_faces,
        &program_0_f64_faces,
        &program_0_objective_on_duals,
    );
    at_f32::<18>(
        "program_0",
        point(0),
        &program_0_faces,
        &program_0_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_1<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    let k1 = x[3];
    out[1] += k1;
    let mut a2 = T::from(0.0).unwrap();
    let mut k3 = 0;
    while k3 < 3 {
        a2 = (a2 + (x[3]).atan().sin()).tanh();
        k3 += 1;
    }
    out[1] = ((x[2]) * (x[2]) + T::one()).powf(s);
    let mut k4 = 0;
    loop {
        a2 = a2 * T::from(0.5).unwrap() + ((T::max(x[0], x[0])).hypot(T::one())).tanh();
        k4 += 1;
        if k4 >= 3 {
            break;
        }
    }
    let n5 = (out[2] + (out[1] + s.atan()));
    if ((x[3]).hypot(T::one()) + out[1]) >= x[1] {
        a2 = T::min((x[2]).hypot(T::one()), x[1]);
    } else {
        a2 = a2 - a2;
    }
    s + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_1_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let k1 = x[3];
    out[1] += k1;
    let mut a2 = (0.0_f64);
    let mut k3 = 0;
    while k3 < 3 {
        a2 = (a2 + (x[3]).atan().sin()).tanh();
        k3 += 1;
    }
    out[1] = ((x[2]) * (x[2]) + 1.0).powf(s);
    let mut k4 = 0;
    loop {
        a2 = a2 * (0.5_f64) + ((f64::max(x[0], x[0])).hypot(1.0)).tanh();
        k4 += 1;
        if k4 >= 3 {
            break;
        }
    }
    let n5 = (out[2] + (out[1] + s.atan()));
    if ((x[3]).hypot(1.0) + out[1]) >= x[1] {
        a2 = f64::min((x[2]).hypot(1.0), x[1]);
    } else {
        a2 = a2 - a2;
    }
    s + n5 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_1_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let k1 = x[3];
    out[1] += k1;
    let mut a2 = T::from(0.0).unwrap();
    let mut k3 = 0;
    while k3 < 3 {
        a2 = (a2 + (x[3]).atan().sin()).tanh();
        k3 += 1;
    }
    out[1] = ((x[2]) * (x[2]) + T::one()).powf(s);
    let mut k4 = 0;
    loop {
        a2 = a2 * T::from(0.5).unwrap() + ((T::max(x[0], x[0])).hypot(T::one())).tanh();
        k4 += 1;
        if k4 >= 3 {
            break;
        }
    }
    let n5 = (out[2] + (out[1] + s.atan()));
    if ((x[3]).hypot(T::one()) + out[1]) >= x[1] {
        a2 = T::min((x[2]).hypot(T::one()), x[1]);
    } else {
        a2 = a2 - a2;
    }
    s + n5 + out.iter().copied().sum::<T>()
}

fn program_1_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_1::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_1(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_1::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_1::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_1::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_1_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_1_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_1_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_1_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_1_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_1_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_1_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_1_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_1_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_1",
        point(1),
        point(1 + 7),
        &program_1_faces,
        &program_1_f64_faces,
        &program_1_objective_on_duals,
    );
    at_f32::<9>(
        "program_1",
        point(1),
        &program_1_faces,
        &program_1_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_2<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = ((x[0]).signum() * (x[3]).max(s));
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    let (n2, n3) = helper_pair(
        (x[0] + a1).hypot(T::one() + (s.mul_add(s, a1)) * (s.mul_add(s, a1))),
        x.iter().map(|v| *v).sum::<T>(),
    );
    let (n4, n5) = (
        (x[2] * (x[0] - s)),
        ((x[0]).tanh().exp()
            / (T::from(1.5).unwrap()
                + (T::from(0.7).unwrap()).tanh().exp() * (T::from(0.7).unwrap()).tanh().exp())),
    );
    let mut m6 = x[0];
    let mut t7 = T::zero();
    for i in 1..4 {
        t7 = t7 + (x[i] - m6).exp();
        m6 = m6.max(x[i]);
    }
    let t8 = helper_pair(
        (x[3] + s).hypot(
            T::one()
                + (x[3]).mul_add(T::from(-0.6).unwrap(), x[1])
                    * (x[3]).mul_add(T::from(-0.6).unwrap(), x[1]),
        ),
        (s.hypot(T::one() + s * s)).mul_add(x[2], x[1]),
    );
    let n9 = t8.0 * (T::from(1.7).unwrap()).powi(3) + t8.1;
    let mut b10 = x.to_vec();
    for i in 1..4 {
        b10[i] = b10[i - 1] * T::from(-0.6).unwrap() + b10[i].tanh();
    }
    for i in 0..4 {
        if let Some(v) = x.first() {
            m6 = m6 * T::from(0.4).unwrap() + (*v).sin();
        }
        let mut m11 = x[0];
        let mut t12 = T::zero();
        for i in 1..4 {
            t12 = t12 + (x[i] - m11).exp();
            m11 = m11.max(x[i]);
        }
    }
    ((b10[3]).min(T::from(0.7).unwrap()) * (b10[3]).min(T::from(0.7).unwrap()) + T::one()).ln()
        + a1
        + n2
        + n3
        + n5
        + m6
        + t7
        + b10.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_2_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = ((x[0]).signum() * (x[3]).max(s));
    for pair in x.chunks(2) {
        a1 = a1 * (0.7_f64) + pair[0] * pair[1].tanh();
    }
    let (n2, n3) = helper_pair(
        (x[0] + a1).hypot(1.0 + (s.mul_add(s, a1)) * (s.mul_add(s, a1))),
        x.iter().map(|v| *v).sum::<f64>(),
    );
    let (n4, n5) = (
        (x[2] * (x[0] - s)),
        ((x[0]).tanh().exp() / ((1.5_f64) + (0.7_f64).tanh().exp() * (0.7_f64).tanh().exp())),
    );
    let mut m6 = x[0];
    let mut t7 = 0.0;
    for i in 1..4 {
        t7 = t7 + (x[i] - m6).exp();
        m6 = m6.max(x[i]);
    }
    let t8 = helper_pair(
        (x[3] + s).hypot(1.0 + (x[3]).mul_add((-0.6_f64), x[1]) * (x[3]).mul_add((-0.6_f64), x[1])),
        (s.hypot(1.0 + s * s)).mul_add(x[2], x[1]),
    );
    let n9 = t8.0 * (1.7_f64).powi(3) + t8.1;
    let mut b10 = x.to_vec();
    for i in 1..4 {
        b10[i] = b10[i - 1] * (-0.6_f64) + b10[i].tanh();
    }
    for i in 0..4 {
        if let Some(v) = x.first() {
            m6 = m6 * (0.4_f64) + (*v).sin();
        }
        let mut m11 = x[0];
        let mut t12 = 0.0;
        for i in 1..4 {
            t12 = t12 + (x[i] - m11).exp();
            m11 = m11.max(x[i]);
        }
    }
    ((b10[3]).min((0.7_f64)) * (b10[3]).min((0.7_f64)) + 1.0).ln()
        + a1
        + n2
        + n3
        + n5
        + m6
        + t7
        + b10.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_2_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = ((x[0]).signum() * (x[3]).max(s));
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    let (n2, n3) = helper_pair_on_duals(
        (x[0] + a1).hypot(T::one() + (s.mul_add(s, a1)) * (s.mul_add(s, a1))),
        x.iter().map(|v| *v).sum::<T>(),
    );
    let (n4, n5) = (
        (x[2] * (x[0] - s)),
        ((x[0]).tanh().exp()
            / (T::from(1.5).unwrap()
                + (T::from(0.7).unwrap()).tanh().exp() * (T::from(0.7).unwrap()).tanh().exp())),
    );
    let mut m6 = x[0];
    let mut t7 = T::zero();
    for i in 1..4 {
        t7 = t7 + (x[i] - m6).exp();
        m6 = m6.max(x[i]);
    }
    let t8 = helper_pair_on_duals(
        (x[3] + s).hypot(
            T::one()
                + (x[3]).mul_add(T::from(-0.6).unwrap(), x[1])
                    * (x[3]).mul_add(T::from(-0.6).unwrap(), x[1]),
        ),
        (s.hypot(T::one() + s * s)).mul_add(x[2], x[1]),
    );
    let n9 = t8.0 * (T::from(1.7).unwrap()).powi(3) + t8.1;
    let mut b10 = x.to_vec();
    for i in 1..4 {
        b10[i] = b10[i - 1] * T::from(-0.6).unwrap() + b10[i].tanh();
    }
    for i in 0..4 {
        if let Some(v) = x.first() {
            m6 = m6 * T::from(0.4).unwrap() + (*v).sin();
        }
        let mut m11 = x[0];
        let mut t12 = T::zero();
        for i in 1..4 {
            t12 = t12 + (x[i] - m11).exp();
            m11 = m11.max(x[i]);
        }
    }
    ((b10[3]).min(T::from(0.7).unwrap()) * (b10[3]).min(T::from(0.7).unwrap()) + T::one()).ln()
        + a1
        + n2
        + n3
        + n5
        + m6
        + t7
        + b10.iter().copied().sum::<T>()
}

fn program_2_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_2::primal(&p[0..4], p[4]);
    let itself = program_2(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_2::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_2::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_2::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_2_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_2_f64::primal(&p[0..4], p[4]);
    let itself = program_2_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_2_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_2_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_2_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_2_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_2_on_duals(&d[0..4], d[4])
}

#[test]
fn program_2_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_2",
        point(2),
        point(2 + 7),
        &program_2_faces,
        &program_2_f64_faces,
        &program_2_objective_on_duals,
    );
    at_f32::<5>(
        "program_2",
        point(2),
        &program_2_faces,
        &program_2_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_3<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let k1 = (((x[3]) * (x[3]) + T::one()).sqrt().tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n2 = out[k1] * (p.w[2] + x[1]).tanh().exp();
    let mut a3 = ((s * x[2]) + n2);
    let mut k4 = 0;
    loop {
        a3 = a3 * T::from(0.5).unwrap()
            + (s.sin() + (out[3] / (T::from(1.5).unwrap() + (p.w[1]) * (p.w[1])))).tanh();
        k4 += 1;
        if k4 >= 1 {
            break;
        }
    }
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(0.6).unwrap() + out[i].tanh();
    }
    for v in out.iter_mut() {
        *v = ((*v).signum() * (T::from(0.2).unwrap())).sin();
    }
    let n5 = helper_soft(
        (T::from(1.0).unwrap())
            .atan2(T::from(1.5).unwrap() + (out[2]) * (out[2]))
            .cos(),
        out[0],
    );
    let mut p6 = (n5 * p.w[2]);
    let mut q7 = x[2];
    for i in 0..4 {
        q7 = q7 - (p6 + x[i]).sin() * T::from(0.1).unwrap();
        p6 = p6 + q7 * T::from(0.1).unwrap();
    }
    let mut p8 = s.min(x[1]);
    let mut q9 = (p.b).max(out[0]);
    for i in 0..4 {
        q9 = q9 - (p8 + x[i]).sin() * T::from(0.5).unwrap();
        p8 = p8 + q9 * T::from(0.5).unwrap();
    }
    s + p.a + a3 + p8 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_3_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let k1 = (((x[3]) * (x[3]) + 1.0).sqrt().tanh().abs() * (3.5_f64)).floor() as usize;
    let n2 = out[k1] * (p.w[2] + x[1]).tanh().exp();
    let mut a3 = ((s * x[2]) + n2);
    let mut k4 = 0;
    loop {
        a3 = a3 * (0.5_f64) + (s.sin() + (out[3] / ((1.5_f64) + (p.w[1]) * (p.w[1])))).tanh();
        k4 += 1;
        if k4 >= 1 {
            break;
        }
    }
    for i in 1..4 {
        out[i] = out[i - 1] * (0.6_f64) + out[i].tanh();
    }
    for v in out.iter_mut() {
        *v = ((*v).signum() * (0.2_f64)).sin();
    }
    let n5 = helper_soft(
        (1.0_f64).atan2((1.5_f64) + (out[2]) * (out[2])).cos(),
        out[0],
    );
    let mut p6 = (n5 * p.w[2]);
    let mut q7 = x[2];
    for i in 0..4 {
        q7 = q7 - (p6 + x[i]).sin() * (0.1_f64);
        p6 = p6 + q7 * (0.1_f64);
    }
    let mut p8 = s.min(x[1]);
    let mut q9 = (p.b).max(out[0]);
    for i in 0..4 {
        q9 = q9 - (p8 + x[i]).sin() * (0.5_f64);
        p8 = p8 + q9 * (0.5_f64);
    }
    s + p.a + a3 + p8 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_3_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let k1 = (((x[3]) * (x[3]) + T::one()).sqrt().tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n2 = out[k1] * (p.w[2] + x[1]).tanh().exp();
    let mut a3 = ((s * x[2]) + n2);
    let mut k4 = 0;
    loop {
        a3 = a3 * T::from(0.5).unwrap()
            + (s.sin() + (out[3] / (T::from(1.5).unwrap() + (p.w[1]) * (p.w[1])))).tanh();
        k4 += 1;
        if k4 >= 1 {
            break;
        }
    }
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(0.6).unwrap() + out[i].tanh();
    }
    for v in out.iter_mut() {
        *v = ((*v).signum() * (T::from(0.2).unwrap())).sin();
    }
    let n5 = helper_soft_on_duals(
        (T::from(1.0).unwrap())
            .atan2(T::from(1.5).unwrap() + (out[2]) * (out[2]))
            .cos(),
        out[0],
    );
    let mut p6 = (n5 * p.w[2]);
    let mut q7 = x[2];
    for i in 0..4 {
        q7 = q7 - (p6 + x[i]).sin() * T::from(0.1).unwrap();
        p6 = p6 + q7 * T::from(0.1).unwrap();
    }
    let mut p8 = s.min(x[1]);
    let mut q9 = (p.b).max(out[0]);
    for i in 0..4 {
        q9 = q9 - (p8 + x[i]).sin() * T::from(0.5).unwrap();
        p8 = p8 + q9 * T::from(0.5).unwrap();
    }
    s + p.a + a3 + p8 + out.iter().copied().sum::<T>()
}

fn program_3_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_3::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_3(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_3::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_3::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_3::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_3_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_3_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_3_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_3_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_3_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_3_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_3_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_3_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_3_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_3",
        point(3),
        point(3 + 7),
        &program_3_faces,
        &program_3_f64_faces,
        &program_3_objective_on_duals,
    );
    at_f32::<18>(
        "program_3",
        point(3),
        &program_3_faces,
        &program_3_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_4<T: gradtape::Float>(x: &[T], s: T) -> T {
    let (mut p1, mut q2) = (s, T::from(-1.7).unwrap());
    let mut k3 = 0;
    while k3 < 2 {
        (p1, q2) = (
            p1 + q2 * T::from(0.4).unwrap(),
            q2 - (p1 + x[1]).sin() * T::from(0.4).unwrap(),
        );
        k3 += 1;
    }
    q2 = q2 * T::from(-0.1).unwrap() + p1;
    q2 = q2 * T::from(-0.8).unwrap()
        + x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>();
    if (p1 - x[0]).tanh().exp() >= T::from(-0.8).unwrap() {
        return (x
            .iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .atan2(T::from(1.5).unwrap() + (x[0]).powi(2) * (x[0]).powi(2));
    }
    ((T::from(-1.5).unwrap() * p1) * (T::from(-1.5).unwrap() * p1) + T::one()).sqrt() + p1
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_4_f64(x: &[f64], s: f64) -> f64 {
    let (mut p1, mut q2) = (s, (-1.7_f64));
    let mut k3 = 0;
    while k3 < 2 {
        (p1, q2) = (p1 + q2 * (0.4_f64), q2 - (p1 + x[1]).sin() * (0.4_f64));
        k3 += 1;
    }
    q2 = q2 * (-0.1_f64) + p1;
    q2 = q2 * (-0.8_f64)
        + x.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>();
    if (p1 - x[0]).tanh().exp() >= (-0.8_f64) {
        return (x
            .iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>())
        .atan2((1.5_f64) + (x[0]).powi(2) * (x[0]).powi(2));
    }
    (((-1.5_f64) * p1) * ((-1.5_f64) * p1) + 1.0).sqrt() + p1
}

#[allow(clippy::all, unused)]
fn program_4_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let (mut p1, mut q2) = (s, T::from(-1.7).unwrap());
    let mut k3 = 0;
    while k3 < 2 {
        (p1, q2) = (
            p1 + q2 * T::from(0.4).unwrap(),
            q2 - (p1 + x[1]).sin() * T::from(0.4).unwrap(),
        );
        k3 += 1;
    }
    q2 = q2 * T::from(-0.1).unwrap() + p1;
    q2 = q2 * T::from(-0.8).unwrap()
        + x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>();
    if (p1 - x[0]).tanh().exp() >= T::from(-0.8).unwrap() {
        return (x
            .iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .atan2(T::from(1.5).unwrap() + (x[0]).powi(2) * (x[0]).powi(2));
    }
    ((T::from(-1.5).unwrap() * p1) * (T::from(-1.5).unwrap() * p1) + T::one()).sqrt() + p1
}

fn program_4_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_4::primal(&p[0..4], p[4]);
    let itself = program_4(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_4::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_4::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_4::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_4_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_4_f64::primal(&p[0..4], p[4]);
    let itself = program_4_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_4_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_4_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_4_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_4_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_4_on_duals(&d[0..4], d[4])
}

#[test]
fn program_4_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_4",
        point(4),
        point(4 + 7),
        &program_4_faces,
        &program_4_f64_faces,
        &program_4_objective_on_duals,
    );
    at_f32::<5>(
        "program_4",
        point(4),
        &program_4_faces,
        &program_4_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_5<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let n1 = helper_soft(
        (x[2]).tanh().exp().min((s * T::from(1.4).unwrap())),
        (out.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.4).unwrap())
            .sum::<T>())
        .hypot(T::one()),
    );
    let (n2, n3) = (
        ((x[3]) * (x[3]) + T::one())
            .powf(T::from(1.6).unwrap())
            .atan(),
        (x[2] + (p.a).min(x[0])),
    );
    let (n4, n5) = (
        (p.v[2])
            .atan2(T::from(1.5).unwrap() + (T::from(-1.1).unwrap()) * (T::from(-1.1).unwrap()))
            .max((x[1]).atan()),
        (out[0]).tanh().exp(),
    );
    let mut a6 = (p.v[0]).max(n3).atan();
    a6 = a6 * T::from(-0.5).unwrap()
        + (T::min(n4, ((x[3]) * (x[3]) + T::one()).ln())
            / (T::from(1.5).unwrap() + (n1.hypot(T::one())) * (n1.hypot(T::one()))));
    a6 = a6 * T::from(0.8).unwrap() + n2.tanh();
    (x[3]).max(x[1]) + p.a + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_5_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let n1 = helper_soft(
        (x[2]).tanh().exp().min((s * (1.4_f64))),
        (out.windows(2)
            .map(|w| (w[1] - w[0]) * (-1.4_f64))
            .sum::<f64>())
        .hypot(1.0),
    );
    let (n2, n3) = (
        ((x[3]) * (x[3]) + 1.0).powf((1.6_f64)).atan(),
        (x[2] + (p.a).min(x[0])),
    );
    let (n4, n5) = (
        (p.v[2])
            .atan2((1.5_f64) + (-1.1_f64) * (-1.1_f64))
            .max((x[1]).atan()),
        (out[0]).tanh().exp(),
    );
    let mut a6 = (p.v[0]).max(n3).atan();
    a6 = a6 * (-0.5_f64)
        + (f64::min(n4, ((x[3]) * (x[3]) + 1.0).ln())
            / ((1.5_f64) + (n1.hypot(1.0)) * (n1.hypot(1.0))));
    a6 = a6 * (0.8_f64) + n2.tanh();
    (x[3]).max(x[1]) + p.a + n5 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_5_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let n1 = helper_soft_on_duals(
        (x[2]).tanh().exp().min((s * T::from(1.4).unwrap())),
        (out.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.4).unwrap())
            .sum::<T>())
        .hypot(T::one()),
    );
    let (n2, n3) = (
        ((x[3]) * (x[3]) + T::one())
            .powf(T::from(1.6).unwrap())
            .atan(),
        (x[2] + (p.a).min(x[0])),
    );
    let (n4, n5) = (
        (p.v[2])
            .atan2(T::from(1.5).unwrap() + (T::from(-1.1).unwrap()) * (T::from(-1.1).unwrap()))
            .max((x[1]).atan()),
        (out[0]).tanh().exp(),
    );
    let mut a6 = (p.v[0]).max(n3).atan();
    a6 = a6 * T::from(-0.5).unwrap()
        + (T::min(n4, ((x[3]) * (x[3]) + T::one()).ln())
            / (T::from(1.5).unwrap() + (n1.hypot(T::one())) * (n1.hypot(T::one()))));
    a6 = a6 * T::from(0.8).unwrap() + n2.tanh();
    (x[3]).max(x[1]) + p.a + n5 + out.iter().copied().sum::<T>()
}

fn program_5_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_5::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_5(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_5::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_5::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_5::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_5_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_5_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_5_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_5_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_5_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_5_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_5_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_5_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_5_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_5",
        point(5),
        point(5 + 7),
        &program_5_faces,
        &program_5_f64_faces,
        &program_5_objective_on_duals,
    );
    at_f32::<18>(
        "program_5",
        point(5),
        &program_5_faces,
        &program_5_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_6<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    let mut p1 = (x[3]).tanh();
    let mut q2 = s.mul_add(x[2], s);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.4).unwrap();
        p1 = p1 + q2 * T::from(0.4).unwrap();
    }
    for i in 0..4 {
        if x[i] < q2.hypot(T::one()) {
            continue;
        }
        let (n3, n4) = (
            (p1.tanh() + q2),
            (p.v[(i + 1) % 4])
                .mul_add(q2, T::from(-0.2).unwrap())
                .hypot(
                    T::one()
                        + (s.signum() * (T::from(1.4).unwrap()))
                            * (s.signum() * (T::from(1.4).unwrap())),
                ),
        );
    }
    let f5 = move |v: T| (v * s.hypot(T::one())) * q2;
    let mut r8 = q2.atan2(T::from(1.5).unwrap() + q2 * q2);
    let mut k7 = 0;
    let n6 = loop {
        r8 = (r8 * T::from(0.7).unwrap()
            + (T::from(1.4).unwrap()
                - x.windows(2)
                    .map(|w| (w[1] - w[0]) * T::from(1.5).unwrap())
                    .sum::<T>()))
        .sin();
        k7 += 1;
        if k7 == 3 {
            break r8 * r8;
        }
    };
    (s.tanh().exp()).mul_add(p1.tanh().exp(), x[0]) + p.w[2] + p1 + q2 + n6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_6_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let mut p1 = (x[3]).tanh();
    let mut q2 = s.mul_add(x[2], s);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * (0.4_f64);
        p1 = p1 + q2 * (0.4_f64);
    }
    for i in 0..4 {
        if x[i] < q2.hypot(1.0) {
            continue;
        }
        let (n3, n4) = (
            (p1.tanh() + q2),
            (p.v[(i + 1) % 4])
                .mul_add(q2, (-0.2_f64))
                .hypot(1.0 + (s.signum() * (1.4_f64)) * (s.signum() * (1.4_f64))),
        );
    }
    let f5 = move |v: f64| (v * s.hypot(1.0)) * q2;
    let mut r8 = q2.atan2((1.5_f64) + q2 * q2);
    let mut k7 = 0;
    let n6 = loop {
        r8 = (r8 * (0.7_f64)
            + ((1.4_f64) - x.windows(2).map(|w| (w[1] - w[0]) * (1.5_f64)).sum::<f64>()))
        .sin();
        k7 += 1;
        if k7 == 3 {
            break r8 * r8;
        }
    };
    (s.tanh().exp()).mul_add(p1.tanh().exp(), x[0]) + p.w[2] + p1 + q2 + n6
}

#[allow(clippy::all, unused)]
fn program_6_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    let mut p1 = (x[3]).tanh();
    let mut q2 = s.mul_add(x[2], s);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.4).unwrap();
        p1 = p1 + q2 * T::from(0.4).unwrap();
    }
    for i in 0..4 {
        if x[i] < q2.hypot(T::one()) {
            continue;
        }
        let (n3, n4) = (
            (p1.tanh() + q2),
            (p.v[(i + 1) % 4])
                .mul_add(q2, T::from(-0.2).unwrap())
                .hypot(
                    T::one()
                        + (s.signum() * (T::from(1.4).unwrap()))
                            * (s.signum() * (T::from(1.4).unwrap())),
                ),
        );
    }
    let f5 = move |v: T| (v * s.hypot(T::one())) * q2;
    let mut r8 = q2.atan2(T::from(1.5).unwrap() + q2 * q2);
    let mut k7 = 0;
    let n6 = loop {
        r8 = (r8 * T::from(0.7).unwrap()
            + (T::from(1.4).unwrap()
                - x.windows(2)
                    .map(|w| (w[1] - w[0]) * T::from(1.5).unwrap())
                    .sum::<T>()))
        .sin();
        k7 += 1;
        if k7 == 3 {
            break r8 * r8;
        }
    };
    (s.tanh().exp()).mul_add(p1.tanh().exp(), x[0]) + p.w[2] + p1 + q2 + n6
}

fn program_6_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_6::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_6(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_6::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_6::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_6::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_6_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_6_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_6_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_6_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_6_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_6_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_6_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_6_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_6_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_6",
        point(6),
        point(6 + 7),
        &program_6_faces,
        &program_6_f64_faces,
        &program_6_objective_on_duals,
    );
    at_f32::<14>(
        "program_6",
        point(6),
        &program_6_faces,
        &program_6_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_7<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for v in out.iter_mut() {
        *v = ((s + *v) * (s + *v) + T::one()).sqrt();
    }
    let mut a1 = T::min((x[0]).powi(3), ((x[0]) * (x[0]) + T::one()).sqrt());
    a1 = a1 * T::from(-0.7).unwrap()
        + ((x[2]).max(x[1]).max((a1 * a1))
            / (T::from(1.5).unwrap()
                + (a1.hypot(T::one() + s * s)).cos() * (a1.hypot(T::one() + s * s)).cos()));
    let k2 = ((x[0]) * (x[0]) + T::one()).ln().hypot(T::one());
    helper_smooth(&mut out[..], k2);
    if (p.a - x[0]).tanh().exp() >= a1 {
        a1 = ((p.a) * (p.a) + T::one()).sqrt().sin().sin();
    } else {
        a1 = a1
            - ((p.w[1]).hypot(T::one() + (out[0]) * (out[0]))
                * (p.w[1]).hypot(T::one() + (out[0]) * (out[0]))
                + T::one())
            .ln();
    }
    out[0] = ((x[2]).powi(2).cos()
        / (T::from(1.5).unwrap() + (s + (p.w[0]).max(s)) * (s + (p.w[0]).max(s))));
    p.a + p.v[0] + a1 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_7_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for v in out.iter_mut() {
        *v = ((s + *v) * (s + *v) + 1.0).sqrt();
    }
    let mut a1 = f64::min((x[0]).powi(3), ((x[0]) * (x[0]) + 1.0).sqrt());
    a1 = a1 * (-0.7_f64)
        + ((x[2]).max(x[1]).max((a1 * a1))
            / ((1.5_f64) + (a1.hypot(1.0 + s * s)).cos() * (a1.hypot(1.0 + s * s)).cos()));
    let k2 = ((x[0]) * (x[0]) + 1.0).ln().hypot(1.0);
    helper_smooth(&mut out[..], k2);
    if (p.a - x[0]).tanh().exp() >= a1 {
        a1 = ((p.a) * (p.a) + 1.0).sqrt().sin().sin();
    } else {
        a1 = a1
            - ((p.w[1]).hypot(1.0 + (out[0]) * (out[0]))
                * (p.w[1]).hypot(1.0 + (out[0]) * (out[0]))
                + 1.0)
                .ln();
    }
    out[0] = ((x[2]).powi(2).cos() / ((1.5_f64) + (s + (p.w[0]).max(s)) * (s + (p.w[0]).max(s))));
    p.a + p.v[0] + a1 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_7_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for v in out.iter_mut() {
        *v = ((s + *v) * (s + *v) + T::one()).sqrt();
    }
    let mut a1 = T::min((x[0]).powi(3), ((x[0]) * (x[0]) + T::one()).sqrt());
    a1 = a1 * T::from(-0.7).unwrap()
        + ((x[2]).max(x[1]).max((a1 * a1))
            / (T::from(1.5).unwrap()
                + (a1.hypot(T::one() + s * s)).cos() * (a1.hypot(T::one() + s * s)).cos()));
    let k2 = ((x[0]) * (x[0]) + T::one()).ln().hypot(T::one());
    helper_smooth_on_duals(&mut out[..], k2);
    if (p.a - x[0]).tanh().exp() >= a1 {
        a1 = ((p.a) * (p.a) + T::one()).sqrt().sin().sin();
    } else {
        a1 = a1
            - ((p.w[1]).hypot(T::one() + (out[0]) * (out[0]))
                * (p.w[1]).hypot(T::one() + (out[0]) * (out[0]))
                + T::one())
            .ln();
    }
    out[0] = ((x[2]).powi(2).cos()
        / (T::from(1.5).unwrap() + (s + (p.w[0]).max(s)) * (s + (p.w[0]).max(s))));
    p.a + p.v[0] + a1 + out.iter().copied().sum::<T>()
}

fn program_7_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_7::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_7(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_7::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_7::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_7::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_7_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_7_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_7_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_7_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_7_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_7_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_7_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_7_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_7_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_7",
        point(7),
        point(7 + 7),
        &program_7_faces,
        &program_7_f64_faces,
        &program_7_objective_on_duals,
    );
    at_f32::<18>(
        "program_7",
        point(7),
        &program_7_faces,
        &program_7_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_8<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    let n3 = (T::from(1.8).unwrap()).hypot(T::one());
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        (out[0] + s).sin(),
        (n3.tanh() / (T::from(1.5).unwrap() + (x[0]).sin() * (x[0]).sin())),
    ) + f2((n3.tanh() / (T::from(1.5).unwrap() + (x[0]).sin() * (x[0]).sin())));
    let k5 = (n4.atan()
        / (T::from(1.5).unwrap()
            + ((out[3]) * (out[3]) + T::one()).ln() * ((out[3]) * (out[3]) + T::one()).ln()));
    out[1] += k5;
    if (x[3] + s).tanh().exp() < (T::from(1.8).unwrap()).max(x[0]) {
        return x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
    }
    out[1] = out[1] * (s - out[0]).hypot(T::one() + n4 * n4) + out[3];
    s + n3 + n4 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_8_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let n3 = (1.8_f64).hypot(1.0);
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(
        (out[0] + s).sin(),
        (n3.tanh() / ((1.5_f64) + (x[0]).sin() * (x[0]).sin())),
    ) + f2((n3.tanh() / ((1.5_f64) + (x[0]).sin() * (x[0]).sin())));
    let k5 = (n4.atan()
        / ((1.5_f64) + ((out[3]) * (out[3]) + 1.0).ln() * ((out[3]) * (out[3]) + 1.0).ln()));
    out[1] += k5;
    if (x[3] + s).tanh().exp() < (1.8_f64).max(x[0]) {
        return x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<f64>();
    }
    out[1] = out[1] * (s - out[0]).hypot(1.0 + n4 * n4) + out[3];
    s + n3 + n4 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_8_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let n3 = (T::from(1.8).unwrap()).hypot(T::one());
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        (out[0] + s).sin(),
        (n3.tanh() / (T::from(1.5).unwrap() + (x[0]).sin() * (x[0]).sin())),
    ) + f2((n3.tanh() / (T::from(1.5).unwrap() + (x[0]).sin() * (x[0]).sin())));
    let k5 = (n4.atan()
        / (T::from(1.5).unwrap()
            + ((out[3]) * (out[3]) + T::one()).ln() * ((out[3]) * (out[3]) + T::one()).ln()));
    out[1] += k5;
    if (x[3] + s).tanh().exp() < (T::from(1.8).unwrap()).max(x[0]) {
        return x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
    }
    out[1] = out[1] * (s - out[0]).hypot(T::one() + n4 * n4) + out[3];
    s + n3 + n4 + out.iter().copied().sum::<T>()
}

fn program_8_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_8::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_8(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_8::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_8::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_8::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_8_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_8_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_8_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_8_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_8_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_8_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_8_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_8_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_8_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_8",
        point(8),
        point(8 + 7),
        &program_8_faces,
        &program_8_f64_faces,
        &program_8_objective_on_duals,
    );
    at_f32::<9>(
        "program_8",
        point(8),
        &program_8_faces,
        &program_8_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_9<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    let mut a1 = (T::from(-0.7).unwrap() * s.tanh().exp());
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(0.2).unwrap() + *w * (*v).sin();
    }
    a1 = a1 * T::from(0.9).unwrap() + x[2];
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(0.2).unwrap() + *w * (*v).sin();
    }
    for i in (0..4).rev() {
        let n2 = helper_soft((p.a).tanh(), x[(i + 2) % 4]);
        a1 = a1 * T::from(-0.5).unwrap()
            + ((x[2]).sin().sin() * (x[2]).sin().sin() + T::one()).sqrt();
        match i % 3 {
            0 => {
                a1 = a1 + ((x[(i + 2) % 4] + s) - a1.hypot(T::one()));
            }
            1 => {
                a1 = a1 * (p.a).max(x[1]).max(T::min(x[1], n2));
            }
            _ => {
                a1 = (x[(i + 3) % 4] / (T::from(1.5).unwrap() + (x[2]) * (x[2])));
            }
        }
    }
    let t3 = helper_pair(
        s,
        (p.v.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(0.0).unwrap())
            .sum::<T>())
        .min((x[2]).hypot(T::one())),
    );
    let n4 = t3.0 * (s.powi(2)).atan() + t3.1;
    let mut r7 = (x[2] - p.w[2]);
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * T::from(0.7).unwrap() + (x[1]).tanh().exp().sin()).sin();
        k6 += 1;
        if k6 == 2 {
            break r7 * r7;
        }
    };
    n5.min((x[1]).hypot(T::one())) + p.v[1] + a1 + n5
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_9_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let mut a1 = ((-0.7_f64) * s.tanh().exp());
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * (0.2_f64) + *w * (*v).sin();
    }
    a1 = a1 * (0.9_f64) + x[2];
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * (0.2_f64) + *w * (*v).sin();
    }
    for i in (0..4).rev() {
        let n2 = helper_soft((p.a).tanh(), x[(i + 2) % 4]);
        a1 = a1 * (-0.5_f64) + ((x[2]).sin().sin() * (x[2]).sin().sin() + 1.0).sqrt();
        match i % 3 {
            0 => {
                a1 = a1 + ((x[(i + 2) % 4] + s) - a1.hypot(1.0));
            }
            1 => {
                a1 = a1 * (p.a).max(x[1]).max(f64::min(x[1], n2));
            }
            _ => {
                a1 = (x[(i + 3) % 4] / ((1.5_f64) + (x[2]) * (x[2])));
            }
        }
    }
    let t3 = helper_pair(
        s,
        (p.v.windows(2)
            .map(|w| (w[1] - w[0]) * (0.0_f64))
            .sum::<f64>())
        .min((x[2]).hypot(1.0)),
    );
    let n4 = t3.0 * (s.powi(2)).atan() + t3.1;
    let mut r7 = (x[2] - p.w[2]);
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * (0.7_f64) + (x[1]).tanh().exp().sin()).sin();
        k6 += 1;
        if k6 == 2 {
            break r7 * r7;
        }
    };
    n5.min((x[1]).hypot(1.0)) + p.v[1] + a1 + n5
}

#[allow(clippy::all, unused)]
fn program_9_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    let mut a1 = (T::from(-0.7).unwrap() * s.tanh().exp());
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(0.2).unwrap() + *w * (*v).sin();
    }
    a1 = a1 * T::from(0.9).unwrap() + x[2];
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(0.2).unwrap() + *w * (*v).sin();
    }
    for i in (0..4).rev() {
        let n2 = helper_soft_on_duals((p.a).tanh(), x[(i + 2) % 4]);
        a1 = a1 * T::from(-0.5).unwrap()
            + ((x[2]).sin().sin() * (x[2]).sin().sin() + T::one()).sqrt();
        match i % 3 {
            0 => {
                a1 = a1 + ((x[(i + 2) % 4] + s) - a1.hypot(T::one()));
            }
            1 => {
                a1 = a1 * (p.a).max(x[1]).max(T::min(x[1], n2));
            }
            _ => {
                a1 = (x[(i + 3) % 4] / (T::from(1.5).unwrap() + (x[2]) * (x[2])));
            }
        }
    }
    let t3 = helper_pair_on_duals(
        s,
        (p.v.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(0.0).unwrap())
            .sum::<T>())
        .min((x[2]).hypot(T::one())),
    );
    let n4 = t3.0 * (s.powi(2)).atan() + t3.1;
    let mut r7 = (x[2] - p.w[2]);
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * T::from(0.7).unwrap() + (x[1]).tanh().exp().sin()).sin();
        k6 += 1;
        if k6 == 2 {
            break r7 * r7;
        }
    };
    n5.min((x[1]).hypot(T::one())) + p.v[1] + a1 + n5
}

fn program_9_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_9::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_9(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_9::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_9::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_9::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_9_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_9_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_9_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_9_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_9_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_9_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_9_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_9_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_9_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_9",
        point(9),
        point(9 + 7),
        &program_9_faces,
        &program_9_f64_faces,
        &program_9_objective_on_duals,
    );
    at_f32::<14>(
        "program_9",
        point(9),
        &program_9_faces,
        &program_9_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_10<T: gradtape::Float>(x: &[T], s: T) -> T {
    let o1 = if (x[2]).powi(3) < s.tanh().exp() {
        Some(s)
    } else {
        None
    };
    let Some(v2) = o1 else {
        return (s.sin() - s);
    };
    let n3 = v2
        * (T::max(T::from(-1.9).unwrap(), T::from(-1.9).unwrap())
            + x.iter().take(3).map(|v| s).sum::<T>());
    let mut a4 = ((x[0]).hypot(T::one()) * (s * s + T::one()).ln());
    a4 = a4 * T::from(-0.6).unwrap() + s;
    let mut p5 = ((T::from(0.6).unwrap()).floor() + s);
    let mut q6 = T::min(n3, T::from(1.9).unwrap());
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.2).unwrap();
        p5 = p5 + q6 * T::from(0.2).unwrap();
    }
    let f7 = move |v: T| (v.cos()).powi(3) * a4;
    if ((s * T::from(-0.1).unwrap()) + f7(x[2])) >= a4.max(s) {
        return a4;
    }
    ((T::from(1.8).unwrap() - T::from(-1.5).unwrap()) + a4) + n3 + p5
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_10_f64(x: &[f64], s: f64) -> f64 {
    let o1 = if (x[2]).powi(3) < s.tanh().exp() {
        Some(s)
    } else {
        None
    };
    let Some(v2) = o1 else {
        return (s.sin() - s);
    };
    let n3 = v2 * (f64::max((-1.9_f64), (-1.9_f64)) + x.iter().take(3).map(|v| s).sum::<f64>());
    let mut a4 = ((x[0]).hypot(1.0) * (s * s + 1.0).ln());
    a4 = a4 * (-0.6_f64) + s;
    let mut p5 = ((0.6_f64).floor() + s);
    let mut q6 = f64::min(n3, (1.9_f64));
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.2_f64);
        p5 = p5 + q6 * (0.2_f64);
    }
    let f7 = move |v: f64| (v.cos()).powi(3) * a4;
    if ((s * (-0.1_f64)) + f7(x[2])) >= a4.max(s) {
        return a4;
    }
    (((1.8_f64) - (-1.5_f64)) + a4) + n3 + p5
}

#[allow(clippy::all, unused)]
fn program_10_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let o1 = if (x[2]).powi(3) < s.tanh().exp() {
        Some(s)
    } else {
        None
    };
    let Some(v2) = o1 else {
        return (s.sin() - s);
    };
    let n3 = v2
        * (T::max(T::from(-1.9).unwrap(), T::from(-1.9).unwrap())
            + x.iter().take(3).map(|v| s).sum::<T>());
    let mut a4 = ((x[0]).hypot(T::one()) * (s * s + T::one()).ln());
    a4 = a4 * T::from(-0.6).unwrap() + s;
    let mut p5 = ((T::from(0.6).unwrap()).floor() + s);
    let mut q6 = T::min(n3, T::from(1.9).unwrap());
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.2).unwrap();
        p5 = p5 + q6 * T::from(0.2).unwrap();
    }
    let f7 = move |v: T| (v.cos()).powi(3) * a4;
    if ((s * T::from(-0.1).unwrap()) + f7(x[2])) >= a4.max(s) {
        return a4;
    }
    ((T::from(1.8).unwrap() - T::from(-1.5).unwrap()) + a4) + n3 + p5
}

fn program_10_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_10::primal(&p[0..4], p[4]);
    let itself = program_10(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_10::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_10::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_10::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_10_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_10_f64::primal(&p[0..4], p[4]);
    let itself = program_10_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_10_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_10_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_10_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_10_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_10_on_duals(&d[0..4], d[4])
}

#[test]
fn program_10_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_10",
        point(10),
        point(10 + 7),
        &program_10_faces,
        &program_10_f64_faces,
        &program_10_objective_on_duals,
    );
    at_f32::<5>(
        "program_10",
        point(10),
        &program_10_faces,
        &program_10_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_11<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    let n1 = helper_soft(
        (out[2]).abs().sin(),
        s.hypot(T::one() + (s.cos()) * (s.cos())),
    );
    let k2 = out[1];
    out[1] += k2;
    for v in out.iter_mut() {
        *v = (s * s);
    }
    let mut a3 = (n1.mul_add(out[2], out[3])).cos();
    if let Some(v) = x.last() {
        a3 = a3 * T::from(-0.4).unwrap() + (*v).sin();
    }
    let k4 = ((x[2])
        .mul_add(n1.tanh(), (T::from(0.3).unwrap() + T::from(-1.9).unwrap()))
        .tanh()
        .abs()
        * T::from(3.5).unwrap())
    .floor()
    .to_usize()
    .unwrap();
    let n5 = out[k4] * (n1.tanh().exp()).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    out[0] = out[0]
        * (T::from(-0.1).unwrap() * x[2]).min(
            out.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>(),
        )
        + out[1];
    ((n1 * n1 + T::one()).sqrt() - out[1]) + n1 + a3 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_11_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let n1 = helper_soft((out[2]).abs().sin(), s.hypot(1.0 + (s.cos()) * (s.cos())));
    let k2 = out[1];
    out[1] += k2;
    for v in out.iter_mut() {
        *v = (s * s);
    }
    let mut a3 = (n1.mul_add(out[2], out[3])).cos();
    if let Some(v) = x.last() {
        a3 = a3 * (-0.4_f64) + (*v).sin();
    }
    let k4 = ((x[2])
        .mul_add(n1.tanh(), ((0.3_f64) + (-1.9_f64)))
        .tanh()
        .abs()
        * (3.5_f64))
        .floor() as usize;
    let n5 = out[k4] * (n1.tanh().exp()).clamp((-0.8_f64), (0.9_f64));
    out[0] = out[0]
        * ((-0.1_f64) * x[2]).min(
            out.iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>(),
        )
        + out[1];
    ((n1 * n1 + 1.0).sqrt() - out[1]) + n1 + a3 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_11_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let n1 = helper_soft_on_duals(
        (out[2]).abs().sin(),
        s.hypot(T::one() + (s.cos()) * (s.cos())),
    );
    let k2 = out[1];
    out[1] += k2;
    for v in out.iter_mut() {
        *v = (s * s);
    }
    let mut a3 = (n1.mul_add(out[2], out[3])).cos();
    if let Some(v) = x.last() {
        a3 = a3 * T::from(-0.4).unwrap() + (*v).sin();
    }
    let k4 = ((x[2])
        .mul_add(n1.tanh(), (T::from(0.3).unwrap() + T::from(-1.9).unwrap()))
        .tanh()
        .abs()
        * T::from(3.5).unwrap())
    .floor()
    .to_usize()
    .unwrap();
    let n5 = out[k4] * (n1.tanh().exp()).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    out[0] = out[0]
        * (T::from(-0.1).unwrap() * x[2]).min(
            out.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>(),
        )
        + out[1];
    ((n1 * n1 + T::one()).sqrt() - out[1]) + n1 + a3 + out.iter().copied().sum::<T>()
}

fn program_11_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_11::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_11(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_11::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_11::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_11::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_11_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_11_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_11_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_11_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_11_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_11_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_11_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_11_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_11_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_11",
        point(11),
        point(11 + 7),
        &program_11_faces,
        &program_11_f64_faces,
        &program_11_objective_on_duals,
    );
    at_f32::<9>(
        "program_11",
        point(11),
        &program_11_faces,
        &program_11_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_12<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    for v in out.iter_mut() {
        *v = (*v).hypot(T::one() + (T::from(-0.6).unwrap() + s) * (T::from(-0.6).unwrap() + s));
    }
    let mut a1 = s;
    a1 = a1 * T::from(-0.6).unwrap() + x[0];
    a1 = a1 * T::from(0.5).unwrap() + a1;
    ((x[0]).atan2(T::from(1.5).unwrap() + (x[1]) * (x[1])) + a1.cos())
        + a1
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_12_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for v in out.iter_mut() {
        *v = (*v).hypot(1.0 + ((-0.6_f64) + s) * ((-0.6_f64) + s));
    }
    let mut a1 = s;
    a1 = a1 * (-0.6_f64) + x[0];
    a1 = a1 * (0.5_f64) + a1;
    ((x[0]).atan2((1.5_f64) + (x[1]) * (x[1])) + a1.cos()) + a1 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_12_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for v in out.iter_mut() {
        *v = (*v).hypot(T::one() + (T::from(-0.6).unwrap() + s) * (T::from(-0.6).unwrap() + s));
    }
    let mut a1 = s;
    a1 = a1 * T::from(-0.6).unwrap() + x[0];
    a1 = a1 * T::from(0.5).unwrap() + a1;
    ((x[0]).atan2(T::from(1.5).unwrap() + (x[1]) * (x[1])) + a1.cos())
        + a1
        + out.iter().copied().sum::<T>()
}

fn program_12_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_12::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_12(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_12::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_12::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_12::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_12_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_12_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_12_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_12_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_12_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_12_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_12_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_12_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_12_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_12",
        point(12),
        point(12 + 7),
        &program_12_faces,
        &program_12_f64_faces,
        &program_12_objective_on_duals,
    );
    at_f32::<9>(
        "program_12",
        point(12),
        &program_12_faces,
        &program_12_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_13<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let n3 = p.b;
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        (x[1]).max(T::from(-1.1).unwrap()).tanh().exp(),
        ((x[0]).mul_add(T::from(0.2).unwrap(), T::from(-0.7).unwrap())
            - ((x[2]) * (x[2]) + T::one()).ln()),
    ) + f2(
        ((x[0]).mul_add(T::from(0.2).unwrap(), T::from(-0.7).unwrap())
            - ((x[2]) * (x[2]) + T::one()).ln()),
    );
    let mut a5 = (out
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.7).unwrap() + *v)
        * x[1]);
    a5 = a5 * T::from(0.3).unwrap() + (x.iter().map(|v| s).sum::<T>()).min((p.w[2]).atan());
    let k6 = (out[1] - (T::from(0.2).unwrap()).min(p.b));
    out[3] += k6;
    let n7 = match out.first() {
        Some(v) => {
            *v * ((T::from(0.7).unwrap()).floor() + (x[0]))
                .atan2(T::from(1.5).unwrap() + (p.v[1]).mul_add(s, s) * (p.v[1]).mul_add(s, s))
        }
        None => p.w[0],
    };
    let (mut p8, mut q9) = (
        T::min(x[2], x[3]),
        p.w.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(0.7).unwrap())
            .sum::<T>(),
    );
    let mut k10 = 0;
    while k10 < 2 {
        (p8, q9) = (
            p8 + q9 * T::from(0.3).unwrap(),
            q9 - (p8 + p.v[3]).sin() * T::from(0.3).unwrap(),
        );
        k10 += 1;
    }
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-0.4).unwrap() + out[i].tanh();
    }
    (T::from(-0.5).unwrap()).hypot(
        T::one()
            + (p.v[0]).atan2(T::from(1.5).unwrap() + (x[0]) * (x[0]))
                * (p.v[0]).atan2(T::from(1.5).unwrap() + (x[0]) * (x[0])),
    ) + p.b
        + n4
        + a5
        + n7
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_13_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let n3 = p.b;
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(
        (x[1]).max((-1.1_f64)).tanh().exp(),
        ((x[0]).mul_add((0.2_f64), (-0.7_f64)) - ((x[2]) * (x[2]) + 1.0).ln()),
    ) + f2(((x[0]).mul_add((0.2_f64), (-0.7_f64)) - ((x[2]) * (x[2]) + 1.0).ln()));
    let mut a5 = (out.iter().fold(0.0, |acc, v| acc * (0.7_f64) + *v) * x[1]);
    a5 = a5 * (0.3_f64) + (x.iter().map(|v| s).sum::<f64>()).min((p.w[2]).atan());
    let k6 = (out[1] - (0.2_f64).min(p.b));
    out[3] += k6;
    let n7 = match out.first() {
        Some(v) => {
            *v * ((0.7_f64).floor() + (x[0]))
                .atan2((1.5_f64) + (p.v[1]).mul_add(s, s) * (p.v[1]).mul_add(s, s))
        }
        None => p.w[0],
    };
    let (mut p8, mut q9) = (
        f64::min(x[2], x[3]),
        p.w.windows(2)
            .map(|w| (w[1] - w[0]) * (0.7_f64))
            .sum::<f64>(),
    );
    let mut k10 = 0;
    while k10 < 2 {
        (p8, q9) = (p8 + q9 * (0.3_f64), q9 - (p8 + p.v[3]).sin() * (0.3_f64));
        k10 += 1;
    }
    for i in 1..4 {
        out[i] = out[i - 1] * (-0.4_f64) + out[i].tanh();
    }
    (-0.5_f64).hypot(
        1.0 + (p.v[0]).atan2((1.5_f64) + (x[0]) * (x[0]))
            * (p.v[0]).atan2((1.5_f64) + (x[0]) * (x[0])),
    ) + p.b
        + n4
        + a5
        + n7
        + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_13_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let n3 = p.b;
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        (x[1]).max(T::from(-1.1).unwrap()).tanh().exp(),
        ((x[0]).mul_add(T::from(0.2).unwrap(), T::from(-0.7).unwrap())
            - ((x[2]) * (x[2]) + T::one()).ln()),
    ) + f2(
        ((x[0]).mul_add(T::from(0.2).unwrap(), T::from(-0.7).unwrap())
            - ((x[2]) * (x[2]) + T::one()).ln()),
    );
    let mut a5 = (out
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.7).unwrap() + *v)
        * x[1]);
    a5 = a5 * T::from(0.3).unwrap() + (x.iter().map(|v| s).sum::<T>()).min((p.w[2]).atan());
    let k6 = (out[1] - (T::from(0.2).unwrap()).min(p.b));
    out[3] += k6;
    let n7 = match out.first() {
        Some(v) => {
            *v * ((T::from(0.7).unwrap()).floor() + (x[0]))
                .atan2(T::from(1.5).unwrap() + (p.v[1]).mul_add(s, s) * (p.v[1]).mul_add(s, s))
        }
        None => p.w[0],
    };
    let (mut p8, mut q9) = (
        T::min(x[2], x[3]),
        p.w.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(0.7).unwrap())
            .sum::<T>(),
    );
    let mut k10 = 0;
    while k10 < 2 {
        (p8, q9) = (
            p8 + q9 * T::from(0.3).unwrap(),
            q9 - (p8 + p.v[3]).sin() * T::from(0.3).unwrap(),
        );
        k10 += 1;
    }
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-0.4).unwrap() + out[i].tanh();
    }
    (T::from(-0.5).unwrap()).hypot(
        T::one()
            + (p.v[0]).atan2(T::from(1.5).unwrap() + (x[0]) * (x[0]))
                * (p.v[0]).atan2(T::from(1.5).unwrap() + (x[0]) * (x[0])),
    ) + p.b
        + n4
        + a5
        + n7
        + out.iter().copied().sum::<T>()
}

fn program_13_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_13::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_13(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_13::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_13::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_13::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_13_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_13_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_13_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_13_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_13_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_13_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_13_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_13_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_13_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_13",
        point(13),
        point(13 + 7),
        &program_13_faces,
        &program_13_f64_faces,
        &program_13_objective_on_duals,
    );
    at_f32::<18>(
        "program_13",
        point(13),
        &program_13_faces,
        &program_13_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_14<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    let k2 = (x.iter().map(|v| T::from(-0.7).unwrap()).sum::<T>())
        .tanh()
        .exp();
    b1[3] += k2;
    let f3 = move |v: T| v;
    let k4 = ((b1[1]).tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n5 = x[k4] * (T::from(-1.1).unwrap() + b1[3]).atan();
    let mut a6 = T::max(
        b1.iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.9).unwrap() + *v),
        (n5.signum() * (T::from(0.9).unwrap())),
    );
    if let Some(v) = x.last() {
        a6 = a6 * T::from(-0.8).unwrap() + (*v).sin();
    }
    for pair in b1.chunks(2) {
        a6 = a6 * T::from(0.8).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut m7 = x[0];
    let mut t8 = T::zero();
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    (b1[2]).cos().sin() + n5 + m7 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_14_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    let k2 = (x.iter().map(|v| (-0.7_f64)).sum::<f64>()).tanh().exp();
    b1[3] += k2;
    let f3 = move |v: f64| v;
    let k4 = ((b1[1]).tanh().abs() * (3.5_f64)).floor() as usize;
    let n5 = x[k4] * ((-1.1_f64) + b1[3]).atan();
    let mut a6 = f64::max(
        b1.iter().fold(0.0, |acc, v| acc * (0.9_f64) + *v),
        (n5.signum() * (0.9_f64)),
    );
    if let Some(v) = x.last() {
        a6 = a6 * (-0.8_f64) + (*v).sin();
    }
    for pair in b1.chunks(2) {
        a6 = a6 * (0.8_f64) + pair[0] * pair[1].tanh();
    }
    let mut m7 = x[0];
    let mut t8 = 0.0;
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    (b1[2]).cos().sin() + n5 + m7 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_14_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    let k2 = (x.iter().map(|v| T::from(-0.7).unwrap()).sum::<T>())
        .tanh()
        .exp();
    b1[3] += k2;
    let f3 = move |v: T| v;
    let k4 = ((b1[1]).tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n5 = x[k4] * (T::from(-1.1).unwrap() + b1[3]).atan();
    let mut a6 = T::max(
        b1.iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.9).unwrap() + *v),
        (n5.signum() * (T::from(0.9).unwrap())),
    );
    if let Some(v) = x.last() {
        a6 = a6 * T::from(-0.8).unwrap() + (*v).sin();
    }
    for pair in b1.chunks(2) {
        a6 = a6 * T::from(0.8).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut m7 = x[0];
    let mut t8 = T::zero();
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    (b1[2]).cos().sin() + n5 + m7 + b1.iter().copied().sum::<T>()
}

fn program_14_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_14::primal(&p[0..4], p[4]);
    let itself = program_14(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_14::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_14::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_14::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_14_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_14_f64::primal(&p[0..4], p[4]);
    let itself = program_14_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_14_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_14_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_14_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_14_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_14_on_duals(&d[0..4], d[4])
}

#[test]
fn program_14_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_14",
        point(14),
        point(14 + 7),
        &program_14_faces,
        &program_14_f64_faces,
        &program_14_objective_on_duals,
    );
    at_f32::<5>(
        "program_14",
        point(14),
        &program_14_faces,
        &program_14_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_15<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    if (s + (x[0]).mul_add(out[2], T::from(1.8).unwrap())) >= (out[1] - s) {
        return ((x[0] + T::from(-0.7).unwrap()) * s);
    }
    if s >= T::min(x[0], T::from(0.2).unwrap()) {
        return T::from(0.8).unwrap();
    }
    let o1 = if (x[1] / (T::from(1.5).unwrap() + (x[0]) * (x[0]))).hypot(T::one())
        >= x.iter().take(3).map(|v| T::from(1.3).unwrap()).sum::<T>()
    {
        Some(((x[2]).tanh() - out[0]))
    } else {
        None
    };
    let Some(v2) = o1 else {
        return ((out[1]) * (out[1]) + T::one())
            .sqrt()
            .max(T::from(0.3).unwrap());
    };
    let n3 = v2 * (s.atan() - x[1]);
    let k4 = ((out[3]).powi(2) + (out[0]).atan());
    helper_smooth(&mut out[1..], k4);
    let mut r7 = n3.max(x[1]);
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * T::from(0.7).unwrap() + x[0]).sin();
        k6 += 1;
        if k6 == 3 {
            break r7 * r7;
        }
    };
    n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_15_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    if (s + (x[0]).mul_add(out[2], (1.8_f64))) >= (out[1] - s) {
        return ((x[0] + (-0.7_f64)) * s);
    }
    if s >= f64::min(x[0], (0.2_f64)) {
        return (0.8_f64);
    }
    let o1 = if (x[1] / ((1.5_f64) + (x[0]) * (x[0]))).hypot(1.0)
        >= x.iter().take(3).map(|v| (1.3_f64)).sum::<f64>()
    {
        Some(((x[2]).tanh() - out[0]))
    } else {
        None
    };
    let Some(v2) = o1 else {
        return ((out[1]) * (out[1]) + 1.0).sqrt().max((0.3_f64));
    };
    let n3 = v2 * (s.atan() - x[1]);
    let k4 = ((out[3]).powi(2) + (out[0]).atan());
    helper_smooth(&mut out[1..], k4);
    let mut r7 = n3.max(x[1]);
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * (0.7_f64) + x[0]).sin();
        k6 += 1;
        if k6 == 3 {
            break r7 * r7;
        }
    };
    n5 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_15_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    if (s + (x[0]).mul_add(out[2], T::from(1.8).unwrap())) >= (out[1] - s) {
        return ((x[0] + T::from(-0.7).unwrap()) * s);
    }
    if s >= T::min(x[0], T::from(0.2).unwrap()) {
        return T::from(0.8).unwrap();
    }
    let o1 = if (x[1] / (T::from(1.5).unwrap() + (x[0]) * (x[0]))).hypot(T::one())
        >= x.iter().take(3).map(|v| T::from(1.3).unwrap()).sum::<T>()
    {
        Some(((x[2]).tanh() - out[0]))
    } else {
        None
    };
    let Some(v2) = o1 else {
        return ((out[1]) * (out[1]) + T::one())
            .sqrt()
            .max(T::from(0.3).unwrap());
    };
    let n3 = v2 * (s.atan() - x[1]);
    let k4 = ((out[3]).powi(2) + (out[0]).atan());
    helper_smooth_on_duals(&mut out[1..], k4);
    let mut r7 = n3.max(x[1]);
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * T::from(0.7).unwrap() + x[0]).sin();
        k6 += 1;
        if k6 == 3 {
            break r7 * r7;
        }
    };
    n5 + out.iter().copied().sum::<T>()
}

fn program_15_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_15::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_15(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_15::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_15::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_15::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_15_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_15_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_15_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_15_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_15_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_15_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_15_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_15_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_15_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_15",
        point(15),
        point(15 + 7),
        &program_15_faces,
        &program_15_f64_faces,
        &program_15_objective_on_duals,
    );
    at_f32::<9>(
        "program_15",
        point(15),
        &program_15_faces,
        &program_15_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_16<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    let mut a1 = T::from(-1.2).unwrap();
    for pair in out.chunks(2) {
        a1 = a1 * T::from(0.4).unwrap() + pair[0] * pair[1].tanh();
    }
    let n2 = x[0];
    out[1] = (s.mul_add((x[3]).cos(), (x[1]).hypot(T::one() + (x[2]) * (x[2]))) - x[0]);
    let n3 = helper_soft(x[3], (s + x[2]).cos());
    let k4 = (x[2] / (T::from(1.5).unwrap() + (x[3]) * (x[3]))).mul_add(out[1], x[3]);
    out[2] += k4;
    out[0] = out[0] * (x[1]).tanh().abs() + x[1];
    (x[1]).hypot(T::one()) + a1 + n2 + n3 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_16_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = (-1.2_f64);
    for pair in out.chunks(2) {
        a1 = a1 * (0.4_f64) + pair[0] * pair[1].tanh();
    }
    let n2 = x[0];
    out[1] = (s.mul_add((x[3]).cos(), (x[1]).hypot(1.0 + (x[2]) * (x[2]))) - x[0]);
    let n3 = helper_soft(x[3], (s + x[2]).cos());
    let k4 = (x[2] / ((1.5_f64) + (x[3]) * (x[3]))).mul_add(out[1], x[3]);
    out[2] += k4;
    out[0] = out[0] * (x[1]).tanh().abs() + x[1];
    (x[1]).hypot(1.0) + a1 + n2 + n3 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_16_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let mut a1 = T::from(-1.2).unwrap();
    for pair in out.chunks(2) {
        a1 = a1 * T::from(0.4).unwrap() + pair[0] * pair[1].tanh();
    }
    let n2 = x[0];
    out[1] = (s.mul_add((x[3]).cos(), (x[1]).hypot(T::one() + (x[2]) * (x[2]))) - x[0]);
    let n3 = helper_soft_on_duals(x[3], (s + x[2]).cos());
    let k4 = (x[2] / (T::from(1.5).unwrap() + (x[3]) * (x[3]))).mul_add(out[1], x[3]);
    out[2] += k4;
    out[0] = out[0] * (x[1]).tanh().abs() + x[1];
    (x[1]).hypot(T::one()) + a1 + n2 + n3 + out.iter().copied().sum::<T>()
}

fn program_16_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_16::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_16(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_16::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_16::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_16::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_16_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_16_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_16_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_16_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_16_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_16_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_16_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_16_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_16_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_16",
        point(16),
        point(16 + 7),
        &program_16_faces,
        &program_16_f64_faces,
        &program_16_objective_on_duals,
    );
    at_f32::<9>(
        "program_16",
        point(16),
        &program_16_faces,
        &program_16_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_17<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    for i in 0..4 {
        let mut a1 = (s.cos()).max(p.a);
        a1 = a1 * T::from(-0.2).unwrap()
            + ((T::from(-1.1).unwrap()).tanh().atan() * (a1.hypot(T::one() + a1 * a1)).tanh());
    }
    let k2 = ((T::from(1.8).unwrap()).tanh().tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n3 = x[k2] * x[2];
    let mut b4 = [T::zero(); 4];
    for i in 0..4 {
        b4[i] = ((s.atan()) * (s.atan()) + T::one()).ln();
    }
    for v in b4.iter_mut() {
        *v = *v;
    }
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if ((b4[1]) * (b4[1]) + T::one())
                .powf((b4[(j + 3) % 4]).hypot(T::one() + (p.v[j]) * (p.v[j])))
                < (T::from(-1.8).unwrap()).atan()
            {
                break 'outer;
            }
            m5 = (m5 + s.tanh().exp() * x[i]).tanh();
        }
    }
    for i in 0..4 {
        t6 -= ((p.v[(i + 3) % 4]).tanh().exp()
            * x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>());
        t6 *= T::from(0.5).unwrap();
    }
    (m5 * m5 + T::one()).sqrt() + p.b + n3 + b4.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_17_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    for i in 0..4 {
        let mut a1 = (s.cos()).max(p.a);
        a1 = a1 * (-0.2_f64) + ((-1.1_f64).tanh().atan() * (a1.hypot(1.0 + a1 * a1)).tanh());
    }
    let k2 = ((1.8_f64).tanh().tanh().abs() * (3.5_f64)).floor() as usize;
    let n3 = x[k2] * x[2];
    let mut b4 = [0.0; 4];
    for i in 0..4 {
        b4[i] = ((s.atan()) * (s.atan()) + 1.0).ln();
    }
    for v in b4.iter_mut() {
        *v = *v;
    }
    let mut m5 = x[0];
    let mut t6 = 0.0;
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if ((b4[1]) * (b4[1]) + 1.0).powf((b4[(j + 3) % 4]).hypot(1.0 + (p.v[j]) * (p.v[j])))
                < (-1.8_f64).atan()
            {
                break 'outer;
            }
            m5 = (m5 + s.tanh().exp() * x[i]).tanh();
        }
    }
    for i in 0..4 {
        t6 -= ((p.v[(i + 3) % 4]).tanh().exp()
            * x.iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>());
        t6 *= (0.5_f64);
    }
    (m5 * m5 + 1.0).sqrt() + p.b + n3 + b4.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_17_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    for i in 0..4 {
        let mut a1 = (s.cos()).max(p.a);
        a1 = a1 * T::from(-0.2).unwrap()
            + ((T::from(-1.1).unwrap()).tanh().atan() * (a1.hypot(T::one() + a1 * a1)).tanh());
    }
    let k2 = ((T::from(1.8).unwrap()).tanh().tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n3 = x[k2] * x[2];
    let mut b4 = [T::zero(); 4];
    for i in 0..4 {
        b4[i] = ((s.atan()) * (s.atan()) + T::one()).ln();
    }
    for v in b4.iter_mut() {
        *v = *v;
    }
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if ((b4[1]) * (b4[1]) + T::one())
                .powf((b4[(j + 3) % 4]).hypot(T::one() + (p.v[j]) * (p.v[j])))
                < (T::from(-1.8).unwrap()).atan()
            {
                break 'outer;
            }
            m5 = (m5 + s.tanh().exp() * x[i]).tanh();
        }
    }
    for i in 0..4 {
        t6 -= ((p.v[(i + 3) % 4]).tanh().exp()
            * x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>());
        t6 *= T::from(0.5).unwrap();
    }
    (m5 * m5 + T::one()).sqrt() + p.b + n3 + b4.iter().copied().sum::<T>()
}

fn program_17_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_17::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_17(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_17::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_17::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_17::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_17_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_17_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_17_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_17_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_17_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_17_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_17_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_17_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_17_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_17",
        point(17),
        point(17 + 7),
        &program_17_faces,
        &program_17_f64_faces,
        &program_17_objective_on_duals,
    );
    at_f32::<14>(
        "program_17",
        point(17),
        &program_17_faces,
        &program_17_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_18<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = if (x[3])
        .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
        .tanh()
        .exp()
        >= T::from(1.5).unwrap()
    {
        ((x[3]).floor() + (x[0]))
            .atan2(T::from(1.5).unwrap() + (x[2]).hypot(T::one()) * (x[2]).hypot(T::one()))
    } else {
        x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
    };
    let t2 = (
        x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>(),
        x[1],
    );
    let n3 = t2.0 * (x[2] - s) + t2.1;
    let mut a4 = x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(1.3).unwrap())
        .sum::<T>();
    a4 = a4 * T::from(0.0).unwrap() + x[0];
    a4 = a4 * T::from(-0.9).unwrap() + x[0];
    if ((T::min(x[2], x[1])) * (T::min(x[2], x[1])) + T::one()).sqrt()
        > (x[0] * T::from(-0.9).unwrap())
    {
        return x
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v);
    }
    a4 = a4 * T::from(0.8).unwrap()
        + ((x[3] * (x[0] * x[3])) - (x[2]).tanh().atan2(T::from(1.5).unwrap() + (x[1]) * (x[1])));
    let (mut p5, mut q6) = (T::from(-0.4).unwrap(), n1.min(x[0]));
    let mut k7 = 0;
    while k7 < 2 {
        (p5, q6) = (
            p5 + q6 * T::from(0.1).unwrap(),
            q6 - (p5 + x[1]).sin() * T::from(0.1).unwrap(),
        );
        k7 += 1;
    }
    (q6.tanh()).atan() + n1 + n3 + a4 + q6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_18_f64(x: &[f64], s: f64) -> f64 {
    let n1 = if (x[3]).clamp((-0.8_f64), (0.9_f64)).tanh().exp() >= (1.5_f64) {
        ((x[3]).floor() + (x[0])).atan2((1.5_f64) + (x[2]).hypot(1.0) * (x[2]).hypot(1.0))
    } else {
        x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>()
    };
    let t2 = (
        x.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>(),
        x[1],
    );
    let n3 = t2.0 * (x[2] - s) + t2.1;
    let mut a4 = x.windows(2).map(|w| (w[1] - w[0]) * (1.3_f64)).sum::<f64>();
    a4 = a4 * (0.0_f64) + x[0];
    a4 = a4 * (-0.9_f64) + x[0];
    if ((f64::min(x[2], x[1])) * (f64::min(x[2], x[1])) + 1.0).sqrt() > (x[0] * (-0.9_f64)) {
        return x.iter().fold(0.0, |acc, v| acc * (0.2_f64) + *v);
    }
    a4 = a4 * (0.8_f64)
        + ((x[3] * (x[0] * x[3])) - (x[2]).tanh().atan2((1.5_f64) + (x[1]) * (x[1])));
    let (mut p5, mut q6) = ((-0.4_f64), n1.min(x[0]));
    let mut k7 = 0;
    while k7 < 2 {
        (p5, q6) = (p5 + q6 * (0.1_f64), q6 - (p5 + x[1]).sin() * (0.1_f64));
        k7 += 1;
    }
    (q6.tanh()).atan() + n1 + n3 + a4 + q6
}

#[allow(clippy::all, unused)]
fn program_18_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = if (x[3])
        .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
        .tanh()
        .exp()
        >= T::from(1.5).unwrap()
    {
        ((x[3]).floor() + (x[0]))
            .atan2(T::from(1.5).unwrap() + (x[2]).hypot(T::one()) * (x[2]).hypot(T::one()))
    } else {
        x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
    };
    let t2 = (
        x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>(),
        x[1],
    );
    let n3 = t2.0 * (x[2] - s) + t2.1;
    let mut a4 = x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(1.3).unwrap())
        .sum::<T>();
    a4 = a4 * T::from(0.0).unwrap() + x[0];
    a4 = a4 * T::from(-0.9).unwrap() + x[0];
    if ((T::min(x[2], x[1])) * (T::min(x[2], x[1])) + T::one()).sqrt()
        > (x[0] * T::from(-0.9).unwrap())
    {
        return x
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v);
    }
    a4 = a4 * T::from(0.8).unwrap()
        + ((x[3] * (x[0] * x[3])) - (x[2]).tanh().atan2(T::from(1.5).unwrap() + (x[1]) * (x[1])));
    let (mut p5, mut q6) = (T::from(-0.4).unwrap(), n1.min(x[0]));
    let mut k7 = 0;
    while k7 < 2 {
        (p5, q6) = (
            p5 + q6 * T::from(0.1).unwrap(),
            q6 - (p5 + x[1]).sin() * T::from(0.1).unwrap(),
        );
        k7 += 1;
    }
    (q6.tanh()).atan() + n1 + n3 + a4 + q6
}

fn program_18_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_18::primal(&p[0..4], p[4]);
    let itself = program_18(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_18::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_18::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_18::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_18_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_18_f64::primal(&p[0..4], p[4]);
    let itself = program_18_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_18_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_18_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_18_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_18_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_18_on_duals(&d[0..4], d[4])
}

#[test]
fn program_18_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_18",
        point(18),
        point(18 + 7),
        &program_18_faces,
        &program_18_f64_faces,
        &program_18_objective_on_duals,
    );
    at_f32::<5>(
        "program_18",
        point(18),
        &program_18_faces,
        &program_18_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_19<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    for i in (0..4).rev() {
        let mut b3 = x.to_vec();
        b3[(i + 1) % 4] = b3[(i + 1) % 4]
            * ((x[(i + 2) % 4] - T::from(1.9).unwrap()) - T::min(s, x[(i + 1) % 4]))
            + b3[2];
        if let Some(v) = x.first() {
            t2 = t2 * T::from(0.5).unwrap() + (*v).sin();
        }
    }
    let mut b4 = x.to_vec();
    let k5 = (x.iter().map(|v| s).sum::<T>()).hypot(T::one());
    b4[0] += k5;
    let (n6, n7) = helper_pair(x[2], m1);
    m1 = m1 * T::from(0.5).unwrap()
        + (n6 + x[2]).min(((s.cos()) * (s.cos()) + T::one()).powf((x[0] * b4[3])));
    m1 += ((m1 * b4[1]) * (m1 * b4[1]) + T::one()).sqrt();
    x.iter()
        .skip(1)
        .map(|v| {
            (T::from(-0.2).unwrap())
                .atan2(T::from(1.5).unwrap() + (T::from(1.1).unwrap()) * (T::from(1.1).unwrap()))
        })
        .sum::<T>()
        + m1
        + t2
        + n7
        + b4.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_19_f64(x: &[f64], s: f64) -> f64 {
    let mut m1 = x[0];
    let mut t2 = 0.0;
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    for i in (0..4).rev() {
        let mut b3 = x.to_vec();
        b3[(i + 1) % 4] =
            b3[(i + 1) % 4] * ((x[(i + 2) % 4] - (1.9_f64)) - f64::min(s, x[(i + 1) % 4])) + b3[2];
        if let Some(v) = x.first() {
            t2 = t2 * (0.5_f64) + (*v).sin();
        }
    }
    let mut b4 = x.to_vec();
    let k5 = (x.iter().map(|v| s).sum::<f64>()).hypot(1.0);
    b4[0] += k5;
    let (n6, n7) = helper_pair(x[2], m1);
    m1 = m1 * (0.5_f64) + (n6 + x[2]).min(((s.cos()) * (s.cos()) + 1.0).powf((x[0] * b4[3])));
    m1 += ((m1 * b4[1]) * (m1 * b4[1]) + 1.0).sqrt();
    x.iter()
        .skip(1)
        .map(|v| (-0.2_f64).atan2((1.5_f64) + (1.1_f64) * (1.1_f64)))
        .sum::<f64>()
        + m1
        + t2
        + n7
        + b4.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_19_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    for i in (0..4).rev() {
        let mut b3 = x.to_vec();
        b3[(i + 1) % 4] = b3[(i + 1) % 4]
            * ((x[(i + 2) % 4] - T::from(1.9).unwrap()) - T::min(s, x[(i + 1) % 4]))
            + b3[2];
        if let Some(v) = x.first() {
            t2 = t2 * T::from(0.5).unwrap() + (*v).sin();
        }
    }
    let mut b4 = x.to_vec();
    let k5 = (x.iter().map(|v| s).sum::<T>()).hypot(T::one());
    b4[0] += k5;
    let (n6, n7) = helper_pair_on_duals(x[2], m1);
    m1 = m1 * T::from(0.5).unwrap()
        + (n6 + x[2]).min(((s.cos()) * (s.cos()) + T::one()).powf((x[0] * b4[3])));
    m1 += ((m1 * b4[1]) * (m1 * b4[1]) + T::one()).sqrt();
    x.iter()
        .skip(1)
        .map(|v| {
            (T::from(-0.2).unwrap())
                .atan2(T::from(1.5).unwrap() + (T::from(1.1).unwrap()) * (T::from(1.1).unwrap()))
        })
        .sum::<T>()
        + m1
        + t2
        + n7
        + b4.iter().copied().sum::<T>()
}

fn program_19_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_19::primal(&p[0..4], p[4]);
    let itself = program_19(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_19::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_19::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_19::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_19_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_19_f64::primal(&p[0..4], p[4]);
    let itself = program_19_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_19_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_19_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_19_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_19_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_19_on_duals(&d[0..4], d[4])
}

#[test]
fn program_19_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_19",
        point(19),
        point(19 + 7),
        &program_19_faces,
        &program_19_f64_faces,
        &program_19_objective_on_duals,
    );
    at_f32::<5>(
        "program_19",
        point(19),
        &program_19_faces,
        &program_19_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_20<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    for i in 0..4 {
        let (n1, n2) = helper_pair(
            (out[2] * T::max(T::from(1.7).unwrap(), x[0])),
            T::from(1.0).unwrap(),
        );
        let k3 = (T::min(n1, x[(i + 2) % 4])).tanh().exp();
        helper_smooth(&mut out[..], k3);
        let (n4, n5) = (
            (out[0] / (T::from(1.5).unwrap() + (x[i]) * (x[i]))).abs(),
            s.sin(),
        );
    }
    let k6 = out.iter().map(|v| (*v + *v)).sum::<T>();
    out[1] += k6;
    let t7 = helper_pair(
        (s.sin()).min(out[1]),
        ((x[0]).max(T::from(-1.2).unwrap())
            / (T::from(1.5).unwrap()
                + (x[3]).atan2(T::from(1.5).unwrap() + s * s)
                    * (x[3]).atan2(T::from(1.5).unwrap() + s * s))),
    );
    let n8 = t7.0 * s + t7.1;
    let n9 = (T::max(x[0], n8) * n8.sin()).atan();
    let mut a10 = T::from(1.0).unwrap();
    a10 += (T::from(-1.2).unwrap()).atan2(T::from(1.5).unwrap() + (s.cos()) * (s.cos()));
    a10 *= T::from(0.4).unwrap();
    (T::min(out[2], s)).hypot(T::one()) + n9 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_20_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in 0..4 {
        let (n1, n2) = helper_pair((out[2] * f64::max((1.7_f64), x[0])), (1.0_f64));
        let k3 = (f64::min(n1, x[(i + 2) % 4])).tanh().exp();
        helper_smooth(&mut out[..], k3);
        let (n4, n5) = ((out[0] / ((1.5_f64) + (x[i]) * (x[i]))).abs(), s.sin());
    }
    let k6 = out.iter().map(|v| (*v + *v)).sum::<f64>();
    out[1] += k6;
    let t7 = helper_pair(
        (s.sin()).min(out[1]),
        ((x[0]).max((-1.2_f64))
            / ((1.5_f64) + (x[3]).atan2((1.5_f64) + s * s) * (x[3]).atan2((1.5_f64) + s * s))),
    );
    let n8 = t7.0 * s + t7.1;
    let n9 = (f64::max(x[0], n8) * n8.sin()).atan();
    let mut a10 = (1.0_f64);
    a10 += (-1.2_f64).atan2((1.5_f64) + (s.cos()) * (s.cos()));
    a10 *= (0.4_f64);
    (f64::min(out[2], s)).hypot(1.0) + n9 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_20_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in 0..4 {
        let (n1, n2) = helper_pair_on_duals(
            (out[2] * T::max(T::from(1.7).unwrap(), x[0])),
            T::from(1.0).unwrap(),
        );
        let k3 = (T::min(n1, x[(i + 2) % 4])).tanh().exp();
        helper_smooth_on_duals(&mut out[..], k3);
        let (n4, n5) = (
            (out[0] / (T::from(1.5).unwrap() + (x[i]) * (x[i]))).abs(),
            s.sin(),
        );
    }
    let k6 = out.iter().map(|v| (*v + *v)).sum::<T>();
    out[1] += k6;
    let t7 = helper_pair_on_duals(
        (s.sin()).min(out[1]),
        ((x[0]).max(T::from(-1.2).unwrap())
            / (T::from(1.5).unwrap()
                + (x[3]).atan2(T::from(1.5).unwrap() + s * s)
                    * (x[3]).atan2(T::from(1.5).unwrap() + s * s))),
    );
    let n8 = t7.0 * s + t7.1;
    let n9 = (T::max(x[0], n8) * n8.sin()).atan();
    let mut a10 = T::from(1.0).unwrap();
    a10 += (T::from(-1.2).unwrap()).atan2(T::from(1.5).unwrap() + (s.cos()) * (s.cos()));
    a10 *= T::from(0.4).unwrap();
    (T::min(out[2], s)).hypot(T::one()) + n9 + out.iter().copied().sum::<T>()
}

fn program_20_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_20::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_20(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_20::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_20::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_20::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_20_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_20_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_20_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_20_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_20_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_20_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_20_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_20_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_20_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_20",
        point(20),
        point(20 + 7),
        &program_20_faces,
        &program_20_f64_faces,
        &program_20_objective_on_duals,
    );
    at_f32::<9>(
        "program_20",
        point(20),
        &program_20_faces,
        &program_20_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_21<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    let k2 = (x.iter().map(|v| s).sum::<T>()).atan2(
        T::from(1.5).unwrap()
            + ((b1[0]) * (b1[0]) + T::one()).ln() * ((b1[0]) * (b1[0]) + T::one()).ln(),
    );
    helper_smooth(&mut b1, k2);
    let o3 = if (x[3] * T::from(-0.2).unwrap()).mul_add(x[0], (s + x[3]))
        >= (s / (T::from(1.5).unwrap() + (x[1]) * (x[1])))
    {
        Some(b1.iter().fold(T::zero(), |acc, v| {
            acc * T::from(-0.1).unwrap() + (T::from(-1.4).unwrap()).sin()
        }))
    } else {
        None
    };
    let Some(v4) = o3 else {
        return (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
            .tanh()
            .exp();
    };
    let n5 = v4 * x[2];
    let mut a6 = (n5 - x[0]);
    let mut k7 = 0;
    loop {
        a6 = a6 * T::from(0.5).unwrap() + (b1[0]).tanh();
        k7 += 1;
        if k7 >= 3 {
            break;
        }
    }
    let (mut p8, mut q9) = (x[3], (x[1]).hypot(T::one()));
    let mut k10 = 0;
    while k10 < 4 {
        (q9, p8) = (
            q9 - (p8 + (x[1]).atan()).sin() * T::from(0.2).unwrap(),
            p8 + q9 * T::from(0.2).unwrap(),
        );
        k10 += 1;
    }
    a6 + n5 + p8 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_21_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    let k2 = (x.iter().map(|v| s).sum::<f64>())
        .atan2((1.5_f64) + ((b1[0]) * (b1[0]) + 1.0).ln() * ((b1[0]) * (b1[0]) + 1.0).ln());
    helper_smooth(&mut b1, k2);
    let o3 = if (x[3] * (-0.2_f64)).mul_add(x[0], (s + x[3])) >= (s / ((1.5_f64) + (x[1]) * (x[1])))
    {
        Some(
            b1.iter()
                .fold(0.0, |acc, v| acc * (-0.1_f64) + (-1.4_f64).sin()),
        )
    } else {
        None
    };
    let Some(v4) = o3 else {
        return (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<f64>())
            .tanh()
            .exp();
    };
    let n5 = v4 * x[2];
    let mut a6 = (n5 - x[0]);
    let mut k7 = 0;
    loop {
        a6 = a6 * (0.5_f64) + (b1[0]).tanh();
        k7 += 1;
        if k7 >= 3 {
            break;
        }
    }
    let (mut p8, mut q9) = (x[3], (x[1]).hypot(1.0));
    let mut k10 = 0;
    while k10 < 4 {
        (q9, p8) = (
            q9 - (p8 + (x[1]).atan()).sin() * (0.2_f64),
            p8 + q9 * (0.2_f64),
        );
        k10 += 1;
    }
    a6 + n5 + p8 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_21_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    let k2 = (x.iter().map(|v| s).sum::<T>()).atan2(
        T::from(1.5).unwrap()
            + ((b1[0]) * (b1[0]) + T::one()).ln() * ((b1[0]) * (b1[0]) + T::one()).ln(),
    );
    helper_smooth_on_duals(&mut b1, k2);
    let o3 = if (x[3] * T::from(-0.2).unwrap()).mul_add(x[0], (s + x[3]))
        >= (s / (T::from(1.5).unwrap() + (x[1]) * (x[1])))
    {
        Some(b1.iter().fold(T::zero(), |acc, v| {
            acc * T::from(-0.1).unwrap() + (T::from(-1.4).unwrap()).sin()
        }))
    } else {
        None
    };
    let Some(v4) = o3 else {
        return (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
            .tanh()
            .exp();
    };
    let n5 = v4 * x[2];
    let mut a6 = (n5 - x[0]);
    let mut k7 = 0;
    loop {
        a6 = a6 * T::from(0.5).unwrap() + (b1[0]).tanh();
        k7 += 1;
        if k7 >= 3 {
            break;
        }
    }
    let (mut p8, mut q9) = (x[3], (x[1]).hypot(T::one()));
    let mut k10 = 0;
    while k10 < 4 {
        (q9, p8) = (
            q9 - (p8 + (x[1]).atan()).sin() * T::from(0.2).unwrap(),
            p8 + q9 * T::from(0.2).unwrap(),
        );
        k10 += 1;
    }
    a6 + n5 + p8 + b1.iter().copied().sum::<T>()
}

fn program_21_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_21::primal(&p[0..4], p[4]);
    let itself = program_21(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_21::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_21::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_21::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_21_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_21_f64::primal(&p[0..4], p[4]);
    let itself = program_21_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_21_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_21_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_21_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_21_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_21_on_duals(&d[0..4], d[4])
}

#[test]
fn program_21_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_21",
        point(21),
        point(21 + 7),
        &program_21_faces,
        &program_21_f64_faces,
        &program_21_objective_on_duals,
    );
    at_f32::<5>(
        "program_21",
        point(21),
        &program_21_faces,
        &program_21_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_22<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = (x[3] - T::from(0.9).unwrap()).max((x[2]).tanh());
    a1 = a1 * T::from(0.3).unwrap() + (T::min(a1, T::from(-1.1).unwrap())).hypot(T::one()).abs();
    let n2 = match x.last() {
        Some(v) => *v * (T::from(-0.1).unwrap() - s).abs(),
        None => x[1],
    };
    a1 = a1 * T::from(0.3).unwrap()
        + (x.iter().rev().map(|v| *v).sum::<T>())
            .max((x[1]).cos())
            .min(
                ((x[3]).hypot(T::one())
                    / (T::from(1.5).unwrap()
                        + (x[3]).atan2(T::from(1.5).unwrap() + (x[3]) * (x[3]))
                            * (x[3]).atan2(T::from(1.5).unwrap() + (x[3]) * (x[3])))),
            );
    let mut k3 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap()
            + ((x[1]).atan2(T::from(1.5).unwrap() + (x[1]) * (x[1]))
                / (T::from(1.5).unwrap() + (x[2] * x[2]) * (x[2] * x[2])))
                .tanh();
        k3 += 1;
        if k3 >= 1 {
            break;
        }
    }
    (((x[1]) * (x[1]) + T::one()).sqrt() + a1.hypot(T::one() + s * s)) + n2
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_22_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (x[3] - (0.9_f64)).max((x[2]).tanh());
    a1 = a1 * (0.3_f64) + (f64::min(a1, (-1.1_f64))).hypot(1.0).abs();
    let n2 = match x.last() {
        Some(v) => *v * ((-0.1_f64) - s).abs(),
        None => x[1],
    };
    a1 = a1 * (0.3_f64)
        + (x.iter().rev().map(|v| *v).sum::<f64>())
            .max((x[1]).cos())
            .min(
                ((x[3]).hypot(1.0)
                    / ((1.5_f64)
                        + (x[3]).atan2((1.5_f64) + (x[3]) * (x[3]))
                            * (x[3]).atan2((1.5_f64) + (x[3]) * (x[3])))),
            );
    let mut k3 = 0;
    loop {
        a1 = a1 * (0.5_f64)
            + ((x[1]).atan2((1.5_f64) + (x[1]) * (x[1]))
                / ((1.5_f64) + (x[2] * x[2]) * (x[2] * x[2])))
                .tanh();
        k3 += 1;
        if k3 >= 1 {
            break;
        }
    }
    (((x[1]) * (x[1]) + 1.0).sqrt() + a1.hypot(1.0 + s * s)) + n2
}

#[allow(clippy::all, unused)]
fn program_22_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = (x[3] - T::from(0.9).unwrap()).max((x[2]).tanh());
    a1 = a1 * T::from(0.3).unwrap() + (T::min(a1, T::from(-1.1).unwrap())).hypot(T::one()).abs();
    let n2 = match x.last() {
        Some(v) => *v * (T::from(-0.1).unwrap() - s).abs(),
        None => x[1],
    };
    a1 = a1 * T::from(0.3).unwrap()
        + (x.iter().rev().map(|v| *v).sum::<T>())
            .max((x[1]).cos())
            .min(
                ((x[3]).hypot(T::one())
                    / (T::from(1.5).unwrap()
                        + (x[3]).atan2(T::from(1.5).unwrap() + (x[3]) * (x[3]))
                            * (x[3]).atan2(T::from(1.5).unwrap() + (x[3]) * (x[3])))),
            );
    let mut k3 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap()
            + ((x[1]).atan2(T::from(1.5).unwrap() + (x[1]) * (x[1]))
                / (T::from(1.5).unwrap() + (x[2] * x[2]) * (x[2] * x[2])))
                .tanh();
        k3 += 1;
        if k3 >= 1 {
            break;
        }
    }
    (((x[1]) * (x[1]) + T::one()).sqrt() + a1.hypot(T::one() + s * s)) + n2
}

fn program_22_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_22::primal(&p[0..4], p[4]);
    let itself = program_22(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_22::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_22::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_22::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_22_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_22_f64::primal(&p[0..4], p[4]);
    let itself = program_22_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_22_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_22_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_22_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_22_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_22_on_duals(&d[0..4], d[4])
}

#[test]
fn program_22_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_22",
        point(22),
        point(22 + 7),
        &program_22_faces,
        &program_22_f64_faces,
        &program_22_objective_on_duals,
    );
    at_f32::<5>(
        "program_22",
        point(22),
        &program_22_faces,
        &program_22_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_23<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    let (mut p1, mut q2) = (
        (p.v[3]).powi(3),
        (s / (T::from(1.5).unwrap() + (T::from(-0.1).unwrap()) * (T::from(-0.1).unwrap()))),
    );
    let mut k3 = 0;
    while k3 < 2 {
        (q2, p1) = (
            q2 - (p1 + (x[3]).min(T::from(1.4).unwrap())).sin() * T::from(0.1).unwrap(),
            p1 + q2 * T::from(0.1).unwrap(),
        );
        k3 += 1;
    }
    let (mut p4, mut q5) = ((x[2]).powi(3), x.iter().step_by(2).map(|v| s).sum::<T>());
    let mut k6 = 0;
    while k6 < 4 {
        (p4, q5) = (
            p4 + q5 * T::from(0.2).unwrap(),
            q5 - (p4 + ((x[2]) * (x[2]) + T::one()).sqrt()).sin() * T::from(0.2).unwrap(),
        );
        k6 += 1;
    }
    let n7 = if p4 < (x[3] - p.a) { p1 } else { p1 };
    let n8 = if p.b <= s {
        (x[0]).atan().sin()
    } else {
        (T::min(x[2], x[2])).tanh()
    };
    let n9 = if n8 < (x[2]).mul_add(x[1], q2) {
        x[1]
    } else {
        (x.iter()
            .step_by(2)
            .map(|v| T::from(0.1).unwrap())
            .sum::<T>())
        .atan()
    };
    let mut b10 = vec![T::zero(); 4];
    for i in 0..4 {
        b10[i] = (p.w.iter().fold(T::zero(), |acc, v| {
            acc * T::from(0.0).unwrap() + T::from(0.1).unwrap()
        }))
        .cos();
    }
    for v in b10.iter_mut() {
        *v = s;
    }
    p.w[1] + p.v[2] + q2 + q5 + n7 + n8 + n9 + b10.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_23_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let (mut p1, mut q2) = (
        (p.v[3]).powi(3),
        (s / ((1.5_f64) + (-0.1_f64) * (-0.1_f64))),
    );
    let mut k3 = 0;
    while k3 < 2 {
        (q2, p1) = (
            q2 - (p1 + (x[3]).min((1.4_f64))).sin() * (0.1_f64),
            p1 + q2 * (0.1_f64),
        );
        k3 += 1;
    }
    let (mut p4, mut q5) = ((x[2]).powi(3), x.iter().step_by(2).map(|v| s).sum::<f64>());
    let mut k6 = 0;
    while k6 < 4 {
        (p4, q5) = (
            p4 + q5 * (0.2_f64),
            q5 - (p4 + ((x[2]) * (x[2]) + 1.0).sqrt()).sin() * (0.2_f64),
        );
        k6 += 1;
    }
    let n7 = if p4 < (x[3] - p.a) { p1 } else { p1 };
    let n8 = if p.b <= s {
        (x[0]).atan().sin()
    } else {
        (f64::min(x[2], x[2])).tanh()
    };
    let n9 = if n8 < (x[2]).mul_add(x[1], q2) {
        x[1]
    } else {
        (x.iter().step_by(2).map(|v| (0.1_f64)).sum::<f64>()).atan()
    };
    let mut b10 = vec![0.0; 4];
    for i in 0..4 {
        b10[i] = (p.w.iter().fold(0.0, |acc, v| acc * (0.0_f64) + (0.1_f64))).cos();
    }
    for v in b10.iter_mut() {
        *v = s;
    }
    p.w[1] + p.v[2] + q2 + q5 + n7 + n8 + n9 + b10.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_23_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    let (mut p1, mut q2) = (
        (p.v[3]).powi(3),
        (s / (T::from(1.5).unwrap() + (T::from(-0.1).unwrap()) * (T::from(-0.1).unwrap()))),
    );
    let mut k3 = 0;
    while k3 < 2 {
        (q2, p1) = (
            q2 - (p1 + (x[3]).min(T::from(1.4).unwrap())).sin() * T::from(0.1).unwrap(),
            p1 + q2 * T::from(0.1).unwrap(),
        );
        k3 += 1;
    }
    let (mut p4, mut q5) = ((x[2]).powi(3), x.iter().step_by(2).map(|v| s).sum::<T>());
    let mut k6 = 0;
    while k6 < 4 {
        (p4, q5) = (
            p4 + q5 * T::from(0.2).unwrap(),
            q5 - (p4 + ((x[2]) * (x[2]) + T::one()).sqrt()).sin() * T::from(0.2).unwrap(),
        );
        k6 += 1;
    }
    let n7 = if p4 < (x[3] - p.a) { p1 } else { p1 };
    let n8 = if p.b <= s {
        (x[0]).atan().sin()
    } else {
        (T::min(x[2], x[2])).tanh()
    };
    let n9 = if n8 < (x[2]).mul_add(x[1], q2) {
        x[1]
    } else {
        (x.iter()
            .step_by(2)
            .map(|v| T::from(0.1).unwrap())
            .sum::<T>())
        .atan()
    };
    let mut b10 = vec![T::zero(); 4];
    for i in 0..4 {
        b10[i] = (p.w.iter().fold(T::zero(), |acc, v| {
            acc * T::from(0.0).unwrap() + T::from(0.1).unwrap()
        }))
        .cos();
    }
    for v in b10.iter_mut() {
        *v = s;
    }
    p.w[1] + p.v[2] + q2 + q5 + n7 + n8 + n9 + b10.iter().copied().sum::<T>()
}

fn program_23_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_23::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_23(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_23::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_23::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_23::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_23_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_23_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_23_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_23_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_23_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_23_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_23_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_23_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_23_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_23",
        point(23),
        point(23 + 7),
        &program_23_faces,
        &program_23_f64_faces,
        &program_23_objective_on_duals,
    );
    at_f32::<14>(
        "program_23",
        point(23),
        &program_23_faces,
        &program_23_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_24<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let k1 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
    helper_smooth(&mut out[..], k1);
    if T::from(1.8).unwrap() >= p.w[1] {
        return ((out[2]).floor() + (out[3]));
    }
    let mut a2 = (x[1] + p.a).atan();
    let mut k3 = 0;
    loop {
        a2 = a2 * T::from(0.5).unwrap()
            + ((x[0]).atan()
                / (T::from(1.5).unwrap()
                    + (T::from(0.1).unwrap()).mul_add(T::from(1.6).unwrap(), x[2])
                        * (T::from(0.1).unwrap()).mul_add(T::from(1.6).unwrap(), x[2])))
            .tanh();
        k3 += 1;
        if k3 >= 2 {
            break;
        }
    }
    p.b + p.a + a2 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_24_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let k1 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<f64>();
    helper_smooth(&mut out[..], k1);
    if (1.8_f64) >= p.w[1] {
        return ((out[2]).floor() + (out[3]));
    }
    let mut a2 = (x[1] + p.a).atan();
    let mut k3 = 0;
    loop {
        a2 = a2 * (0.5_f64)
            + ((x[0]).atan()
                / ((1.5_f64)
                    + (0.1_f64).mul_add((1.6_f64), x[2]) * (0.1_f64).mul_add((1.6_f64), x[2])))
            .tanh();
        k3 += 1;
        if k3 >= 2 {
            break;
        }
    }
    p.b + p.a + a2 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_24_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let k1 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
    helper_smooth_on_duals(&mut out[..], k1);
    if T::from(1.8).unwrap() >= p.w[1] {
        return ((out[2]).floor() + (out[3]));
    }
    let mut a2 = (x[1] + p.a).atan();
    let mut k3 = 0;
    loop {
        a2 = a2 * T::from(0.5).unwrap()
            + ((x[0]).atan()
                / (T::from(1.5).unwrap()
                    + (T::from(0.1).unwrap()).mul_add(T::from(1.6).unwrap(), x[2])
                        * (T::from(0.1).unwrap()).mul_add(T::from(1.6).unwrap(), x[2])))
            .tanh();
        k3 += 1;
        if k3 >= 2 {
            break;
        }
    }
    p.b + p.a + a2 + out.iter().copied().sum::<T>()
}

fn program_24_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_24::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_24(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_24::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_24::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_24::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_24_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_24_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_24_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_24_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_24_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_24_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_24_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_24_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_24_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_24",
        point(24),
        point(24 + 7),
        &program_24_faces,
        &program_24_f64_faces,
        &program_24_objective_on_duals,
    );
    at_f32::<18>(
        "program_24",
        point(24),
        &program_24_faces,
        &program_24_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_25<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in (0..4).rev() {
        let (mut p1, mut q2) = ((T::from(1.9).unwrap()).cos(), (x[3] - x[(i + 2) % 4]));
        let mut k3 = 0;
        while k3 < 4 {
            (p1, q2) = (
                p1 + q2 * T::from(0.4).unwrap(),
                q2 - (p1 + (p.b).sin()).sin() * T::from(0.4).unwrap(),
            );
            k3 += 1;
        }
        let n4 = helper_power((out[2]).hypot(T::one()).max((out[3] * x[2])), 3);
        if let Some(v) = out.get(i + 1) {
            q2 = q2 * T::from(-0.5).unwrap() + (*v).sin();
        } else {
            q2 = q2 - ((x[(i + 2) % 4]) * (x[(i + 2) % 4]) + T::one()).sqrt();
        }
    }
    let mut p5 = (out[3]).max(p.b);
    let mut q6 = s.sin();
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.1).unwrap();
        p5 = p5 + q6 * T::from(0.1).unwrap();
    }
    out[3] = ((x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(0.4).unwrap())
        .sum::<T>())
    .hypot(T::one())
        + q6);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (q6 + q6).cos() > ((T::from(-2.0).unwrap()).signum() * (out[(j + 2) % 4])) {
                break 'outer;
            }
            p5 = (p5
                + (out[(j + 1) % 4] / (T::from(1.5).unwrap() + (x[2]) * (x[2]))).tanh() * x[i])
                .tanh();
        }
    }
    out[0] = s;
    let (n7, n8) = ((p5.tanh().exp()).max(p5), (T::max(s, s) - T::min(s, q6)));
    p.w[1] + p.a + n8 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_25_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in (0..4).rev() {
        let (mut p1, mut q2) = ((1.9_f64).cos(), (x[3] - x[(i + 2) % 4]));
        let mut k3 = 0;
        while k3 < 4 {
            (p1, q2) = (
                p1 + q2 * (0.4_f64),
                q2 - (p1 + (p.b).sin()).sin() * (0.4_f64),
            );
            k3 += 1;
        }
        let n4 = helper_power((out[2]).hypot(1.0).max((out[3] * x[2])), 3);
        if let Some(v) = out.get(i + 1) {
            q2 = q2 * (-0.5_f64) + (*v).sin();
        } else {
            q2 = q2 - ((x[(i + 2) % 4]) * (x[(i + 2) % 4]) + 1.0).sqrt();
        }
    }
    let mut p5 = (out[3]).max(p.b);
    let mut q6 = s.sin();
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.1_f64);
        p5 = p5 + q6 * (0.1_f64);
    }
    out[3] = ((x.windows(2).map(|w| (w[1] - w[0]) * (0.4_f64)).sum::<f64>()).hypot(1.0) + q6);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (q6 + q6).cos() > ((-2.0_f64).signum() * (out[(j + 2) % 4])) {
                break 'outer;
            }
            p5 = (p5 + (out[(j + 1) % 4] / ((1.5_f64) + (x[2]) * (x[2]))).tanh() * x[i]).tanh();
        }
    }
    out[0] = s;
    let (n7, n8) = (
        (p5.tanh().exp()).max(p5),
        (f64::max(s, s) - f64::min(s, q6)),
    );
    p.w[1] + p.a + n8 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_25_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in (0..4).rev() {
        let (mut p1, mut q2) = ((T::from(1.9).unwrap()).cos(), (x[3] - x[(i + 2) % 4]));
        let mut k3 = 0;
        while k3 < 4 {
            (p1, q2) = (
                p1 + q2 * T::from(0.4).unwrap(),
                q2 - (p1 + (p.b).sin()).sin() * T::from(0.4).unwrap(),
            );
            k3 += 1;
        }
        let n4 = helper_power_on_duals((out[2]).hypot(T::one()).max((out[3] * x[2])), 3);
        if let Some(v) = out.get(i + 1) {
            q2 = q2 * T::from(-0.5).unwrap() + (*v).sin();
        } else {
            q2 = q2 - ((x[(i + 2) % 4]) * (x[(i + 2) % 4]) + T::one()).sqrt();
        }
    }
    let mut p5 = (out[3]).max(p.b);
    let mut q6 = s.sin();
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.1).unwrap();
        p5 = p5 + q6 * T::from(0.1).unwrap();
    }
    out[3] = ((x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(0.4).unwrap())
        .sum::<T>())
    .hypot(T::one())
        + q6);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (q6 + q6).cos() > ((T::from(-2.0).unwrap()).signum() * (out[(j + 2) % 4])) {
                break 'outer;
            }
            p5 = (p5
                + (out[(j + 1) % 4] / (T::from(1.5).unwrap() + (x[2]) * (x[2]))).tanh() * x[i])
                .tanh();
        }
    }
    out[0] = s;
    let (n7, n8) = ((p5.tanh().exp()).max(p5), (T::max(s, s) - T::min(s, q6)));
    p.w[1] + p.a + n8 + out.iter().copied().sum::<T>()
}

fn program_25_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_25::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_25(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_25::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_25::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_25::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_25_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_25_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_25_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_25_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_25_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_25_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_25_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_25_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_25_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_25",
        point(25),
        point(25 + 7),
        &program_25_faces,
        &program_25_f64_faces,
        &program_25_objective_on_duals,
    );
    at_f32::<18>(
        "program_25",
        point(25),
        &program_25_faces,
        &program_25_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_26<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = match x.last() {
        Some(v) => *v * x[0],
        None => (T::from(0.7).unwrap()).powi(2),
    };
    let mut p2 = s;
    let mut q3 = T::from(-1.5).unwrap();
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * T::from(0.1).unwrap();
        p2 = p2 + q3 * T::from(0.1).unwrap();
    }
    let mut p4 = x[1];
    let mut q5 = x
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.8).unwrap() + s);
    for i in 0..4 {
        q5 = q5 - (p4 + x[i]).sin() * T::from(0.5).unwrap();
        p4 = p4 + q5 * T::from(0.5).unwrap();
    }
    let (n6, n7) = helper_pair(
        (x[1] / (T::from(1.5).unwrap() + (x[0]) * (x[0])))
            .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()),
        (x[2]).max(s).cos(),
    );
    let (mut p8, mut q9) = ((p2.signum() * (x[3])), n1.max(x[2]));
    let mut k10 = 0;
    while k10 < 4 {
        (p8, q9) = (
            p8 + q9 * T::from(0.3).unwrap(),
            q9 - (p8 + x[2]).sin() * T::from(0.3).unwrap(),
        );
        k10 += 1;
    }
    let mut b11 = x.to_vec();
    for i in 1..4 {
        b11[i] = b11[i - 1] * T::from(-0.6).unwrap() + b11[i].tanh();
    }
    let k12 = (x[0]).atan2(T::from(1.5).unwrap() + s * s).atan2(
        T::from(1.5).unwrap() + (T::from(-1.5).unwrap()).powi(3) * (T::from(-1.5).unwrap()).powi(3),
    );
    b11[0] += k12;
    (s.min(s) - x[3]) + p2 + q5 + n6 + n7 + b11.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_26_f64(x: &[f64], s: f64) -> f64 {
    let n1 = match x.last() {
        Some(v) => *v * x[0],
        None => (0.7_f64).powi(2),
    };
    let mut p2 = s;
    let mut q3 = (-1.5_f64);
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * (0.1_f64);
        p2 = p2 + q3 * (0.1_f64);
    }
    let mut p4 = x[1];
    let mut q5 = x.iter().fold(0.0, |acc, v| acc * (0.8_f64) + s);
    for i in 0..4 {
        q5 = q5 - (p4 + x[i]).sin() * (0.5_f64);
        p4 = p4 + q5 * (0.5_f64);
    }
    let (n6, n7) = helper_pair(
        (x[1] / ((1.5_f64) + (x[0]) * (x[0]))).clamp((-0.8_f64), (0.9_f64)),
        (x[2]).max(s).cos(),
    );
    let (mut p8, mut q9) = ((p2.signum() * (x[3])), n1.max(x[2]));
    let mut k10 = 0;
    while k10 < 4 {
        (p8, q9) = (p8 + q9 * (0.3_f64), q9 - (p8 + x[2]).sin() * (0.3_f64));
        k10 += 1;
    }
    let mut b11 = x.to_vec();
    for i in 1..4 {
        b11[i] = b11[i - 1] * (-0.6_f64) + b11[i].tanh();
    }
    let k12 = (x[0])
        .atan2((1.5_f64) + s * s)
        .atan2((1.5_f64) + (-1.5_f64).powi(3) * (-1.5_f64).powi(3));
    b11[0] += k12;
    (s.min(s) - x[3]) + p2 + q5 + n6 + n7 + b11.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_26_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = match x.last() {
        Some(v) => *v * x[0],
        None => (T::from(0.7).unwrap()).powi(2),
    };
    let mut p2 = s;
    let mut q3 = T::from(-1.5).unwrap();
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * T::from(0.1).unwrap();
        p2 = p2 + q3 * T::from(0.1).unwrap();
    }
    let mut p4 = x[1];
    let mut q5 = x
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.8).unwrap() + s);
    for i in 0..4 {
        q5 = q5 - (p4 + x[i]).sin() * T::from(0.5).unwrap();
        p4 = p4 + q5 * T::from(0.5).unwrap();
    }
    let (n6, n7) = helper_pair_on_duals(
        (x[1] / (T::from(1.5).unwrap() + (x[0]) * (x[0])))
            .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()),
        (x[2]).max(s).cos(),
    );
    let (mut p8, mut q9) = ((p2.signum() * (x[3])), n1.max(x[2]));
    let mut k10 = 0;
    while k10 < 4 {
        (p8, q9) = (
            p8 + q9 * T::from(0.3).unwrap(),
            q9 - (p8 + x[2]).sin() * T::from(0.3).unwrap(),
        );
        k10 += 1;
    }
    let mut b11 = x.to_vec();
    for i in 1..4 {
        b11[i] = b11[i - 1] * T::from(-0.6).unwrap() + b11[i].tanh();
    }
    let k12 = (x[0]).atan2(T::from(1.5).unwrap() + s * s).atan2(
        T::from(1.5).unwrap() + (T::from(-1.5).unwrap()).powi(3) * (T::from(-1.5).unwrap()).powi(3),
    );
    b11[0] += k12;
    (s.min(s) - x[3]) + p2 + q5 + n6 + n7 + b11.iter().copied().sum::<T>()
}

fn program_26_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_26::primal(&p[0..4], p[4]);
    let itself = program_26(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_26::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_26::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_26::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_26_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_26_f64::primal(&p[0..4], p[4]);
    let itself = program_26_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_26_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_26_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_26_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_26_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_26_on_duals(&d[0..4], d[4])
}

#[test]
fn program_26_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_26",
        point(26),
        point(26 + 7),
        &program_26_faces,
        &program_26_f64_faces,
        &program_26_objective_on_duals,
    );
    at_f32::<5>(
        "program_26",
        point(26),
        &program_26_faces,
        &program_26_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_27<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    if ((x[0]).atan() * x[2]) > (p.w[2] * s) {
        return ((p.v[1]).powi(3)
            * (x[0]).atan2(
                T::from(1.5).unwrap() + (T::from(-1.2).unwrap()) * (T::from(-1.2).unwrap()),
            ));
    }
    let n3 = (T::from(-0.5).unwrap() + s);
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        (x[0])
            .hypot(T::one() + (T::from(-2.0).unwrap()) * (T::from(-2.0).unwrap()))
            .hypot(T::one()),
        ((T::min(x[2], s)) * (T::min(x[2], s)) + T::one()).sqrt(),
    ) + f2(((T::min(x[2], s)) * (T::min(x[2], s)) + T::one()).sqrt());
    let n5 = helper_power(
        ((p.a).powi(2) / (T::from(1.5).unwrap() + (n4.cos()) * (n4.cos()))),
        4,
    );
    s.mul_add(
        x[3],
        (T::from(-2.0).unwrap()).hypot(T::one() + (p.b) * (p.b)),
    ) + p.w[2]
        + n3
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_27_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    if ((x[0]).atan() * x[2]) > (p.w[2] * s) {
        return ((p.v[1]).powi(3) * (x[0]).atan2((1.5_f64) + (-1.2_f64) * (-1.2_f64)));
    }
    let n3 = ((-0.5_f64) + s);
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(
        (x[0]).hypot(1.0 + (-2.0_f64) * (-2.0_f64)).hypot(1.0),
        ((f64::min(x[2], s)) * (f64::min(x[2], s)) + 1.0).sqrt(),
    ) + f2(((f64::min(x[2], s)) * (f64::min(x[2], s)) + 1.0).sqrt());
    let n5 = helper_power(((p.a).powi(2) / ((1.5_f64) + (n4.cos()) * (n4.cos()))), 4);
    s.mul_add(x[3], (-2.0_f64).hypot(1.0 + (p.b) * (p.b))) + p.w[2] + n3
}

#[allow(clippy::all, unused)]
fn program_27_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    if ((x[0]).atan() * x[2]) > (p.w[2] * s) {
        return ((p.v[1]).powi(3)
            * (x[0]).atan2(
                T::from(1.5).unwrap() + (T::from(-1.2).unwrap()) * (T::from(-1.2).unwrap()),
            ));
    }
    let n3 = (T::from(-0.5).unwrap() + s);
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        (x[0])
            .hypot(T::one() + (T::from(-2.0).unwrap()) * (T::from(-2.0).unwrap()))
            .hypot(T::one()),
        ((T::min(x[2], s)) * (T::min(x[2], s)) + T::one()).sqrt(),
    ) + f2(((T::min(x[2], s)) * (T::min(x[2], s)) + T::one()).sqrt());
    let n5 = helper_power_on_duals(
        ((p.a).powi(2) / (T::from(1.5).unwrap() + (n4.cos()) * (n4.cos()))),
        4,
    );
    s.mul_add(
        x[3],
        (T::from(-2.0).unwrap()).hypot(T::one() + (p.b) * (p.b)),
    ) + p.w[2]
        + n3
}

fn program_27_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_27::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_27(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_27::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_27::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_27::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_27_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_27_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_27_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_27_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_27_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_27_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_27_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_27_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_27_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_27",
        point(27),
        point(27 + 7),
        &program_27_faces,
        &program_27_f64_faces,
        &program_27_objective_on_duals,
    );
    at_f32::<14>(
        "program_27",
        point(27),
        &program_27_faces,
        &program_27_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_28<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    let f1 = move |v: T| (T::from(0.0).unwrap()).max(T::from(-1.4).unwrap()).tanh();
    let n2 = f1((p.a * x[3]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()));
    let mut a3 = x[1];
    a3 = a3 * T::from(0.2).unwrap() + p.b;
    let mut r6 = (x[0] - a3);
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap()
            + (T::from(-0.1).unwrap() / (T::from(1.5).unwrap() + (x[0]) * (x[0]))))
            .sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    let mut b7 = x.to_vec();
    for i in 1..4 {
        b7[i] = b7[i - 1] * T::from(-0.2).unwrap() + b7[i].tanh();
    }
    if (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .mul_add((b7[3]).sin(), s.sin())
        <= ((T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap()) + T::one()).sqrt()
    {
        return ((x[2]) * (x[2]) + T::one()).ln();
    }
    ((s.signum() * (x[3]))
        / (T::from(1.5).unwrap()
            + (b7.iter().map(|v| *v).sum::<T>()) * (b7.iter().map(|v| *v).sum::<T>())))
        + p.b
        + a3
        + n4
        + b7.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_28_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let f1 = move |v: f64| (0.0_f64).max((-1.4_f64)).tanh();
    let n2 = f1((p.a * x[3]).clamp((-0.8_f64), (0.9_f64)));
    let mut a3 = x[1];
    a3 = a3 * (0.2_f64) + p.b;
    let mut r6 = (x[0] - a3);
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * (0.7_f64) + ((-0.1_f64) / ((1.5_f64) + (x[0]) * (x[0])))).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    let mut b7 = x.to_vec();
    for i in 1..4 {
        b7[i] = b7[i - 1] * (-0.2_f64) + b7[i].tanh();
    }
    if (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>())
    .mul_add((b7[3]).sin(), s.sin())
        <= ((-1.5_f64) * (-1.5_f64) + 1.0).sqrt()
    {
        return ((x[2]) * (x[2]) + 1.0).ln();
    }
    ((s.signum() * (x[3]))
        / ((1.5_f64) + (b7.iter().map(|v| *v).sum::<f64>()) * (b7.iter().map(|v| *v).sum::<f64>())))
        + p.b
        + a3
        + n4
        + b7.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_28_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    let f1 = move |v: T| (T::from(0.0).unwrap()).max(T::from(-1.4).unwrap()).tanh();
    let n2 = f1((p.a * x[3]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()));
    let mut a3 = x[1];
    a3 = a3 * T::from(0.2).unwrap() + p.b;
    let mut r6 = (x[0] - a3);
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap()
            + (T::from(-0.1).unwrap() / (T::from(1.5).unwrap() + (x[0]) * (x[0]))))
            .sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    let mut b7 = x.to_vec();
    for i in 1..4 {
        b7[i] = b7[i - 1] * T::from(-0.2).unwrap() + b7[i].tanh();
    }
    if (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .mul_add((b7[3]).sin(), s.sin())
        <= ((T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap()) + T::one()).sqrt()
    {
        return ((x[2]) * (x[2]) + T::one()).ln();
    }
    ((s.signum() * (x[3]))
        / (T::from(1.5).unwrap()
            + (b7.iter().map(|v| *v).sum::<T>()) * (b7.iter().map(|v| *v).sum::<T>())))
        + p.b
        + a3
        + n4
        + b7.iter().copied().sum::<T>()
}

fn program_28_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_28::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_28(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_28::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_28::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_28::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_28_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_28_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_28_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_28_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_28_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_28_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_28_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_28_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_28_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_28",
        point(28),
        point(28 + 7),
        &program_28_faces,
        &program_28_f64_faces,
        &program_28_objective_on_duals,
    );
    at_f32::<14>(
        "program_28",
        point(28),
        &program_28_faces,
        &program_28_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_29<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut p1 = (x[0]).hypot(T::one());
    let mut q2 = (T::from(0.0).unwrap()).tanh().exp();
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.4).unwrap();
        p1 = p1 + q2 * T::from(0.4).unwrap();
    }
    let n3 = (T::from(0.6).unwrap() - x[2]).min((p1 + (x[3]).tanh().exp()));
    let t4 = helper_pair(
        (T::from(1.5).unwrap()).atan(),
        ((T::from(1.7).unwrap())
            .atan2(T::from(1.5).unwrap() + (T::from(1.3).unwrap()) * (T::from(1.3).unwrap()))
            + s),
    );
    let n5 = t4.0 * (s.powi(2)).tanh().exp() + t4.1;
    let k6 = (((x[3]).hypot(T::one()) + q2.tanh().exp()).tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n7 = x[k6] * x[3];
    n7 + p1 + n5 + n7
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_29_f64(x: &[f64], s: f64) -> f64 {
    let mut p1 = (x[0]).hypot(1.0);
    let mut q2 = (0.0_f64).tanh().exp();
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * (0.4_f64);
        p1 = p1 + q2 * (0.4_f64);
    }
    let n3 = ((0.6_f64) - x[2]).min((p1 + (x[3]).tanh().exp()));
    let t4 = helper_pair(
        (1.5_f64).atan(),
        ((1.7_f64).atan2((1.5_f64) + (1.3_f64) * (1.3_f64)) + s),
    );
    let n5 = t4.0 * (s.powi(2)).tanh().exp() + t4.1;
    let k6 = (((x[3]).hypot(1.0) + q2.tanh().exp()).tanh().abs() * (3.5_f64)).floor() as usize;
    let n7 = x[k6] * x[3];
    n7 + p1 + n5 + n7
}

#[allow(clippy::all, unused)]
fn program_29_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut p1 = (x[0]).hypot(T::one());
    let mut q2 = (T::from(0.0).unwrap()).tanh().exp();
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.4).unwrap();
        p1 = p1 + q2 * T::from(0.4).unwrap();
    }
    let n3 = (T::from(0.6).unwrap() - x[2]).min((p1 + (x[3]).tanh().exp()));
    let t4 = helper_pair_on_duals(
        (T::from(1.5).unwrap()).atan(),
        ((T::from(1.7).unwrap())
            .atan2(T::from(1.5).unwrap() + (T::from(1.3).unwrap()) * (T::from(1.3).unwrap()))
            + s),
    );
    let n5 = t4.0 * (s.powi(2)).tanh().exp() + t4.1;
    let k6 = (((x[3]).hypot(T::one()) + q2.tanh().exp()).tanh().abs() * T::from(3.5).unwrap())
        .floor()
        .to_usize()
        .unwrap();
    let n7 = x[k6] * x[3];
    n7 + p1 + n5 + n7
}

fn program_29_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_29::primal(&p[0..4], p[4]);
    let itself = program_29(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_29::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_29::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_29::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_29_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_29_f64::primal(&p[0..4], p[4]);
    let itself = program_29_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_29_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_29_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_29_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_29_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_29_on_duals(&d[0..4], d[4])
}

#[test]
fn program_29_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_29",
        point(29),
        point(29 + 7),
        &program_29_faces,
        &program_29_f64_faces,
        &program_29_objective_on_duals,
    );
    at_f32::<5>(
        "program_29",
        point(29),
        &program_29_faces,
        &program_29_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_30<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    let k1 = s;
    helper_smooth(&mut *out, k1);
    let (mut p2, mut q3) = ((x[0]).atan2(T::from(1.5).unwrap() + s * s), x[0]);
    let mut k4 = 0;
    while k4 < 4 {
        (q3, p2) = (
            q3 - (p2 + (x[3]).hypot(T::one())).sin() * T::from(0.4).unwrap(),
            p2 + q3 * T::from(0.4).unwrap(),
        );
        k4 += 1;
    }
    let n5 = if (s + s).cos() >= x.iter().map(|v| s).sum::<T>() {
        ((s + out[2]) * (s + out[2]) + T::one()).sqrt()
    } else {
        x[3]
    };
    for v in out.iter_mut() {
        *v = (s.tanh().exp()).tanh();
    }
    n5.min((x[2] + s)) + p2 + q3 + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_30_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let k1 = s;
    helper_smooth(&mut *out, k1);
    let (mut p2, mut q3) = ((x[0]).atan2((1.5_f64) + s * s), x[0]);
    let mut k4 = 0;
    while k4 < 4 {
        (q3, p2) = (
            q3 - (p2 + (x[3]).hypot(1.0)).sin() * (0.4_f64),
            p2 + q3 * (0.4_f64),
        );
        k4 += 1;
    }
    let n5 = if (s + s).cos() >= x.iter().map(|v| s).sum::<f64>() {
        ((s + out[2]) * (s + out[2]) + 1.0).sqrt()
    } else {
        x[3]
    };
    for v in out.iter_mut() {
        *v = (s.tanh().exp()).tanh();
    }
    n5.min((x[2] + s)) + p2 + q3 + n5 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_30_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let k1 = s;
    helper_smooth_on_duals(&mut *out, k1);
    let (mut p2, mut q3) = ((x[0]).atan2(T::from(1.5).unwrap() + s * s), x[0]);
    let mut k4 = 0;
    while k4 < 4 {
        (q3, p2) = (
            q3 - (p2 + (x[3]).hypot(T::one())).sin() * T::from(0.4).unwrap(),
            p2 + q3 * T::from(0.4).unwrap(),
        );
        k4 += 1;
    }
    let n5 = if (s + s).cos() >= x.iter().map(|v| s).sum::<T>() {
        ((s + out[2]) * (s + out[2]) + T::one()).sqrt()
    } else {
        x[3]
    };
    for v in out.iter_mut() {
        *v = (s.tanh().exp()).tanh();
    }
    n5.min((x[2] + s)) + p2 + q3 + n5 + out.iter().copied().sum::<T>()
}

fn program_30_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_30::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_30(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_30::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_30::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_30::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_30_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_30_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_30_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_30_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_30_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_30_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_30_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_30_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_30_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_30",
        point(30),
        point(30 + 7),
        &program_30_faces,
        &program_30_f64_faces,
        &program_30_objective_on_duals,
    );
    at_f32::<9>(
        "program_30",
        point(30),
        &program_30_faces,
        &program_30_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_31<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    out[0] = out[0] * s + x[2];
    let mut a1 = (out[1] - T::from(-0.6).unwrap())
        .atan2(T::from(1.5).unwrap() + (x[3]).sin() * (x[3]).sin());
    for pair in out.chunks(2) {
        a1 = a1 * T::from(0.4).unwrap() + pair[0] * pair[1].tanh();
    }
    let n2 = if x[1] <= (out[0] + s) {
        out[1]
    } else {
        ((x[2]).max(T::from(1.4).unwrap()) + s.tanh())
    };
    (out[2]).sin().tanh().exp() + n2 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_31_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    out[0] = out[0] * s + x[2];
    let mut a1 = (out[1] - (-0.6_f64)).atan2((1.5_f64) + (x[3]).sin() * (x[3]).sin());
    for pair in out.chunks(2) {
        a1 = a1 * (0.4_f64) + pair[0] * pair[1].tanh();
    }
    let n2 = if x[1] <= (out[0] + s) {
        out[1]
    } else {
        ((x[2]).max((1.4_f64)) + s.tanh())
    };
    (out[2]).sin().tanh().exp() + n2 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_31_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    out[0] = out[0] * s + x[2];
    let mut a1 = (out[1] - T::from(-0.6).unwrap())
        .atan2(T::from(1.5).unwrap() + (x[3]).sin() * (x[3]).sin());
    for pair in out.chunks(2) {
        a1 = a1 * T::from(0.4).unwrap() + pair[0] * pair[1].tanh();
    }
    let n2 = if x[1] <= (out[0] + s) {
        out[1]
    } else {
        ((x[2]).max(T::from(1.4).unwrap()) + s.tanh())
    };
    (out[2]).sin().tanh().exp() + n2 + out.iter().copied().sum::<T>()
}

fn program_31_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_31::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_31(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_31::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_31::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_31::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_31_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_31_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_31_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_31_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_31_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_31_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_31_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_31_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_31_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_31",
        point(31),
        point(31 + 7),
        &program_31_faces,
        &program_31_f64_faces,
        &program_31_objective_on_duals,
    );
    at_f32::<9>(
        "program_31",
        point(31),
        &program_31_faces,
        &program_31_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_32<T: gradtape::Float>(x: &[T], s: T) -> T {
    let f1 = move |v: T| (s.sin()).max((s * s + T::one()).powf(v));
    let n2 = f1(T::from(-1.0).unwrap());
    let mut a3 = s;
    let mut k4 = 0;
    while k4 < 1 {
        a3 = (a3 + n2.min((T::from(-0.9).unwrap()).atan2(T::from(1.5).unwrap() + n2 * n2))).tanh();
        k4 += 1;
    }
    let n5 = match x.first() {
        Some(v) => *v * a3,
        None => x[2],
    };
    let n6 = helper_soft((x[0]).tanh().mul_add(n2, x[3]), T::from(-0.1).unwrap());
    for i in 0..4 {
        match i {
            0 | 2 => {
                a3 = a3 * T::from(-1.0).unwrap()
                    + (n6 * T::from(0.6).unwrap())
                        .max((T::from(0.2).unwrap()).mul_add(T::from(-0.5).unwrap(), x[2]))
            }
            1..=2 if n5 >= s.atan2(T::from(1.5).unwrap() + n6 * n6) => {
                a3 = (a3
                    + x.iter()
                        .fold(T::zero(), |acc, v| acc * T::from(0.5).unwrap() + s.min(*v)))
                .tanh();
            }
            k if k + 1 == 4 => a3 = a3 * a3.cos(),
            _ => {}
        }
        let n7 = helper_power(T::from(1.4).unwrap(), 2);
    }
    n2 + n2 + n6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_32_f64(x: &[f64], s: f64) -> f64 {
    let f1 = move |v: f64| (s.sin()).max((s * s + 1.0).powf(v));
    let n2 = f1((-1.0_f64));
    let mut a3 = s;
    let mut k4 = 0;
    while k4 < 1 {
        a3 = (a3 + n2.min((-0.9_f64).atan2((1.5_f64) + n2 * n2))).tanh();
        k4 += 1;
    }
    let n5 = match x.first() {
        Some(v) => *v * a3,
        None => x[2],
    };
    let n6 = helper_soft((x[0]).tanh().mul_add(n2, x[3]), (-0.1_f64));
    for i in 0..4 {
        match i {
            0 | 2 => {
                a3 = a3 * (-1.0_f64) + (n6 * (0.6_f64)).max((0.2_f64).mul_add((-0.5_f64), x[2]))
            }
            1..=2 if n5 >= s.atan2((1.5_f64) + n6 * n6) => {
                a3 = (a3 + x.iter().fold(0.0, |acc, v| acc * (0.5_f64) + s.min(*v))).tanh();
            }
            k if k + 1 == 4 => a3 = a3 * a3.cos(),
            _ => {}
        }
        let n7 = helper_power((1.4_f64), 2);
    }
    n2 + n2 + n6
}

#[allow(clippy::all, unused)]
fn program_32_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let f1 = move |v: T| (s.sin()).max((s * s + T::one()).powf(v));
    let n2 = f1(T::from(-1.0).unwrap());
    let mut a3 = s;
    let mut k4 = 0;
    while k4 < 1 {
        a3 = (a3 + n2.min((T::from(-0.9).unwrap()).atan2(T::from(1.5).unwrap() + n2 * n2))).tanh();
        k4 += 1;
    }
    let n5 = match x.first() {
        Some(v) => *v * a3,
        None => x[2],
    };
    let n6 = helper_soft_on_duals((x[0]).tanh().mul_add(n2, x[3]), T::from(-0.1).unwrap());
    for i in 0..4 {
        match i {
            0 | 2 => {
                a3 = a3 * T::from(-1.0).unwrap()
                    + (n6 * T::from(0.6).unwrap())
                        .max((T::from(0.2).unwrap()).mul_add(T::from(-0.5).unwrap(), x[2]))
            }
            1..=2 if n5 >= s.atan2(T::from(1.5).unwrap() + n6 * n6) => {
                a3 = (a3
                    + x.iter()
                        .fold(T::zero(), |acc, v| acc * T::from(0.5).unwrap() + s.min(*v)))
                .tanh();
            }
            k if k + 1 == 4 => a3 = a3 * a3.cos(),
            _ => {}
        }
        let n7 = helper_power_on_duals(T::from(1.4).unwrap(), 2);
    }
    n2 + n2 + n6
}

fn program_32_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_32::primal(&p[0..4], p[4]);
    let itself = program_32(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_32::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_32::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_32::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_32_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_32_f64::primal(&p[0..4], p[4]);
    let itself = program_32_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_32_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_32_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_32_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_32_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_32_on_duals(&d[0..4], d[4])
}

#[test]
fn program_32_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_32",
        point(32),
        point(32 + 7),
        &program_32_faces,
        &program_32_f64_faces,
        &program_32_objective_on_duals,
    );
    at_f32::<5>(
        "program_32",
        point(32),
        &program_32_faces,
        &program_32_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_33<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = T::from(0.5).unwrap() * T::from(0.6).unwrap() + (*v).sin();
    }
    let mut p1 = (x[3] - out[0]);
    let mut q2 = (x[0]).powi(2);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.3).unwrap();
        p1 = p1 + q2 * T::from(0.3).unwrap();
    }
    let o3 = if out
        .iter()
        .rev()
        .map(|v| T::max(*v, T::from(-1.5).unwrap()))
        .sum::<T>()
        < s.max(q2)
    {
        Some(
            ((out[3] - out[2])
                / (T::from(1.5).unwrap()
                    + ((x[3]) * (x[3]) + T::one()).ln() * ((x[3]) * (x[3]) + T::one()).ln())),
        )
    } else {
        None
    };
    let Some(v4) = o3 else {
        return x
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.3).unwrap())
            .sum::<T>();
    };
    let n5 = v4 * q2.hypot(T::one());
    let (n6, n7) = helper_pair(
        p1.min(x[1]),
        (out.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>() - (x[2]).tanh()),
    );
    (T::from(-1.7).unwrap()).mul_add(q2, p1).tanh()
        + p1
        + q2
        + n5
        + n6
        + n7
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_33_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (0.5_f64) * (0.6_f64) + (*v).sin();
    }
    let mut p1 = (x[3] - out[0]);
    let mut q2 = (x[0]).powi(2);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * (0.3_f64);
        p1 = p1 + q2 * (0.3_f64);
    }
    let o3 = if out
        .iter()
        .rev()
        .map(|v| f64::max(*v, (-1.5_f64)))
        .sum::<f64>()
        < s.max(q2)
    {
        Some(
            ((out[3] - out[2])
                / ((1.5_f64) + ((x[3]) * (x[3]) + 1.0).ln() * ((x[3]) * (x[3]) + 1.0).ln())),
        )
    } else {
        None
    };
    let Some(v4) = o3 else {
        return x
            .windows(2)
            .map(|w| (w[1] - w[0]) * (-1.3_f64))
            .sum::<f64>();
    };
    let n5 = v4 * q2.hypot(1.0);
    let (n6, n7) = helper_pair(
        p1.min(x[1]),
        (out.iter()
            .zip(out.iter())
            .map(|(a, b)| *a * *b)
            .sum::<f64>()
            - (x[2]).tanh()),
    );
    (-1.7_f64).mul_add(q2, p1).tanh() + p1 + q2 + n5 + n6 + n7 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_33_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = T::from(0.5).unwrap() * T::from(0.6).unwrap() + (*v).sin();
    }
    let mut p1 = (x[3] - out[0]);
    let mut q2 = (x[0]).powi(2);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.3).unwrap();
        p1 = p1 + q2 * T::from(0.3).unwrap();
    }
    let o3 = if out
        .iter()
        .rev()
        .map(|v| T::max(*v, T::from(-1.5).unwrap()))
        .sum::<T>()
        < s.max(q2)
    {
        Some(
            ((out[3] - out[2])
                / (T::from(1.5).unwrap()
                    + ((x[3]) * (x[3]) + T::one()).ln() * ((x[3]) * (x[3]) + T::one()).ln())),
        )
    } else {
        None
    };
    let Some(v4) = o3 else {
        return x
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.3).unwrap())
            .sum::<T>();
    };
    let n5 = v4 * q2.hypot(T::one());
    let (n6, n7) = helper_pair_on_duals(
        p1.min(x[1]),
        (out.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>() - (x[2]).tanh()),
    );
    (T::from(-1.7).unwrap()).mul_add(q2, p1).tanh()
        + p1
        + q2
        + n5
        + n6
        + n7
        + out.iter().copied().sum::<T>()
}

fn program_33_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_33::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_33(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_33::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_33::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_33::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_33_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_33_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_33_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_33_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_33_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_33_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_33_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_33_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_33_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_33",
        point(33),
        point(33 + 7),
        &program_33_faces,
        &program_33_f64_faces,
        &program_33_objective_on_duals,
    );
    at_f32::<9>(
        "program_33",
        point(33),
        &program_33_faces,
        &program_33_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_34<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = (x[3] * x[i]).max(s.max(s));
    }
    let k2 = ((x[0]) * (x[0]) + T::one()).sqrt();
    b1[2] += k2;
    let n3 = helper_power((s + x[0]).cos(), 3);
    let o4 = if (x.iter().skip(1).map(|v| *v).sum::<T>()).cos() < (x[0] * x[3]) {
        Some(
            ((x[0] / (T::from(1.5).unwrap() + s * s)) * (x[0] / (T::from(1.5).unwrap() + s * s))
                + T::one())
            .powf(s.atan2(T::from(1.5).unwrap() + n3 * n3)),
        )
    } else {
        None
    };
    let Some(v5) = o4 else {
        return b1[1];
    };
    let n6 = v5 * x[2];
    let n9 = (T::from(-1.9).unwrap()).hypot(T::one());
    let f7 = |u: T, w: T| (u * n9 - w).tanh();
    let f8 = |u: T| f7(u, u * u) + n9;
    let n10 = f7(
        ((T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap()) + T::one()).powf((x[2]).tanh()),
        ((b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
            * (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
            + T::one())
        .sqrt(),
    ) + f8(((b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
        * (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
        + T::one())
    .sqrt());
    n6.max(n3.max(x[2])) + n9 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_34_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = vec![0.0; 4];
    for i in 0..4 {
        b1[i] = (x[3] * x[i]).max(s.max(s));
    }
    let k2 = ((x[0]) * (x[0]) + 1.0).sqrt();
    b1[2] += k2;
    let n3 = helper_power((s + x[0]).cos(), 3);
    let o4 = if (x.iter().skip(1).map(|v| *v).sum::<f64>()).cos() < (x[0] * x[3]) {
        Some(
            ((x[0] / ((1.5_f64) + s * s)) * (x[0] / ((1.5_f64) + s * s)) + 1.0)
                .powf(s.atan2((1.5_f64) + n3 * n3)),
        )
    } else {
        None
    };
    let Some(v5) = o4 else {
        return b1[1];
    };
    let n6 = v5 * x[2];
    let n9 = (-1.9_f64).hypot(1.0);
    let f7 = |u: f64, w: f64| (u * n9 - w).tanh();
    let f8 = |u: f64| f7(u, u * u) + n9;
    let n10 = f7(
        ((-1.5_f64) * (-1.5_f64) + 1.0).powf((x[2]).tanh()),
        ((b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<f64>())
            * (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<f64>())
            + 1.0)
            .sqrt(),
    ) + f8(
        ((b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<f64>())
            * (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<f64>())
            + 1.0)
            .sqrt(),
    );
    n6.max(n3.max(x[2])) + n9 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_34_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = (x[3] * x[i]).max(s.max(s));
    }
    let k2 = ((x[0]) * (x[0]) + T::one()).sqrt();
    b1[2] += k2;
    let n3 = helper_power_on_duals((s + x[0]).cos(), 3);
    let o4 = if (x.iter().skip(1).map(|v| *v).sum::<T>()).cos() < (x[0] * x[3]) {
        Some(
            ((x[0] / (T::from(1.5).unwrap() + s * s)) * (x[0] / (T::from(1.5).unwrap() + s * s))
                + T::one())
            .powf(s.atan2(T::from(1.5).unwrap() + n3 * n3)),
        )
    } else {
        None
    };
    let Some(v5) = o4 else {
        return b1[1];
    };
    let n6 = v5 * x[2];
    let n9 = (T::from(-1.9).unwrap()).hypot(T::one());
    let f7 = |u: T, w: T| (u * n9 - w).tanh();
    let f8 = |u: T| f7(u, u * u) + n9;
    let n10 = f7(
        ((T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap()) + T::one()).powf((x[2]).tanh()),
        ((b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
            * (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
            + T::one())
        .sqrt(),
    ) + f8(((b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
        * (b1.iter().zip(b1.iter()).map(|(a, b)| *a * *b).sum::<T>())
        + T::one())
    .sqrt());
    n6.max(n3.max(x[2])) + n9 + b1.iter().copied().sum::<T>()
}

fn program_34_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_34::primal(&p[0..4], p[4]);
    let itself = program_34(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_34::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_34::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_34::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_34_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_34_f64::primal(&p[0..4], p[4]);
    let itself = program_34_f64(&p[0..4], p[4]);
    let (value, (dx, ds)) = program_34_f64::grad(&p[0..4], p[4]);
    let grad = (value, [dx, vec![ds]].concat());
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_34_f64::grad_into(&p[0..4], p[4], &mut dx, &mut ds);
    let other = (value, [dx, vec![ds]].concat());
    let jvp = program_34_f64::jvp(&p[0..4], p[4], &t[0..4], t[4]);
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_34_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_34_on_duals(&d[0..4], d[4])
}

#[test]
fn program_34_matches_dual_numbers_and_finite_differences() {
    check::<5>(
        "program_34",
        point(34),
        point(34 + 7),
        &program_34_faces,
        &program_34_f64_faces,
        &program_34_objective_on_duals,
    );
    at_f32::<5>(
        "program_34",
        point(34),
        &program_34_faces,
        &program_34_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_35<T: gradtape::Float>(
    #[differentiable] p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in 0..4 {
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(0.0).unwrap() + out[i].tanh();
        }
        for i in 0..4 {
            let mut a1 = s.powi(3);
            a1 = a1 * T::from(-0.1).unwrap() + ((x[i]).floor() + (x[(i + 1) % 4])).atan().sin();
        }
    }
    let (n2, n3) = (x[1], x[2]);
    let (n4, n5) = helper_pair(
        (p.v.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .tanh(),
        p.v[3],
    );
    out[3] + p.a + n2 + n4 + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_35_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in 0..4 {
        for i in 1..4 {
            out[i] = out[i - 1] * (0.0_f64) + out[i].tanh();
        }
        for i in 0..4 {
            let mut a1 = s.powi(3);
            a1 = a1 * (-0.1_f64) + ((x[i]).floor() + (x[(i + 1) % 4])).atan().sin();
        }
    }
    let (n2, n3) = (x[1], x[2]);
    let (n4, n5) = helper_pair(
        (p.v.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>())
        .tanh(),
        p.v[3],
    );
    out[3] + p.a + n2 + n4 + n5 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_35_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in 0..4 {
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(0.0).unwrap() + out[i].tanh();
        }
        for i in 0..4 {
            let mut a1 = s.powi(3);
            a1 = a1 * T::from(-0.1).unwrap() + ((x[i]).floor() + (x[(i + 1) % 4])).atan().sin();
        }
    }
    let (n2, n3) = (x[1], x[2]);
    let (n4, n5) = helper_pair_on_duals(
        (p.v.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .tanh(),
        p.v[3],
    );
    out[3] + p.a + n2 + n4 + n5 + out.iter().copied().sum::<T>()
}

fn program_35_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[14..].to_vec();
    let primal = program_35::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_35(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_35::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_35::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_35::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_35_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[14..].to_vec();
    let primal =
        program_35_f64::primal(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let itself = program_35_f64(&params(&p[..9]), &p[9..13], p[13], &mut out) + weighted(&out);
    let mut out = p[14..].to_vec();
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_35_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &mut d_params,
        &mut dx,
        &mut ds,
        &mut d_out,
    );
    let grad = (
        value + weighted(&out),
        [flat(&d_params), dx, vec![ds], d_out].concat(),
    );
    let mut out = p[14..].to_vec();
    let (value, pullback) = program_35_f64::vjp(&params(&p[..9]), &p[9..13], p[13], &mut out);
    let mut d_out = weights::<F>();
    let (d_params, dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            d_params.map_or(vec![F::zero(); 9], |d| flat(&d)),
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[14..].to_vec();
    let mut t_out = t[14..].to_vec();
    let (value, tangent) = program_35_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut out,
        &params(&t[..9]),
        &t[9..13],
        t[13],
        &mut t_out,
    );
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_35_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[14..].to_vec();
    program_35_on_duals(&params(&d[..9]), &d[9..13], d[13], &mut out) + weighted(&out)
}

#[test]
fn program_35_matches_dual_numbers_and_finite_differences() {
    check::<18>(
        "program_35",
        point(35),
        point(35 + 7),
        &program_35_faces,
        &program_35_f64_faces,
        &program_35_objective_on_duals,
    );
    at_f32::<18>(
        "program_35",
        point(35),
        &program_35_faces,
        &program_35_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_36<T: gradtape::Float>(#[differentiable] p: &Params<T>, x: &[T], s: T) -> T {
    let f1 = move |v: T| v.max(T::from(-0.6).unwrap());
    let n2 = f1((T::max(x[3], T::from(-0.3).unwrap()) * (x[2] * x[0])));
    for i in (0..4).rev() {
        let (mut p3, mut q4) = (
            (n2 - x[(i + 2) % 4]),
            (x[1] / (T::from(1.5).unwrap() + (x[(i + 2) % 4]) * (x[(i + 2) % 4]))),
        );
        let mut k5 = 0;
        while k5 < 3 {
            (q4, p3) = (
                q4 - (p3 + (x[0]).min(x[3])).sin() * T::from(0.3).unwrap(),
                p3 + q4 * T::from(0.3).unwrap(),
            );
            k5 += 1;
        }
    }
    for i in 0..4 {
        let mut b6 = x.to_vec();
        let k7 = b6[3];
        b6[(i + 2) % 4] += k7;
        let mut a8 = (f1(x[i])
            + p.v
                .windows(2)
                .map(|w| (w[1] - w[0]) * T::from(0.7).unwrap())
                .sum::<T>());
        a8 = a8 * T::from(0.8).unwrap() + s.sin();
        let (n9, n10) = (
            x.iter().map(|v| s).sum::<T>(),
            (b6[(i + 3) % 4] * T::from(-0.3).unwrap()).atan(),
        );
    }
    let n13 = s;
    let f11 = |u: T, w: T| (u * n13 - w).tanh();
    let f12 = |u: T| f11(u, u * u) + n13;
    let n14 = f11(
        (n2 * p.v[3]).max((p.b).tanh().exp()),
        (p.a * n13).max((p.v[3]).mul_add(x[1], x[1])),
    ) + f12((p.a * n13).max((p.v[3]).mul_add(x[1], x[1])));
    let n15 = ((((x[3]) * (x[3]) + T::one()).sqrt()
        + (p.v[0] / (T::from(1.5).unwrap() + (x[0]) * (x[0]))))
        / (T::from(1.5).unwrap() + (p.v[2]) * (p.v[2])));
    let mut a16 = ((p.a).sin() * (p.a).sin() + T::one()).sqrt();
    if ((n13 * s).floor() + (x[3]).powi(3)) <= n15.tanh().exp() {
        a16 = f1(n13);
    } else {
        a16 = a16 - (x[0] * T::from(-0.9).unwrap());
    }
    (x[1]).cos() + p.w[0] + n2 + n14 + n15 + a16
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_36_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let f1 = move |v: f64| v.max((-0.6_f64));
    let n2 = f1((f64::max(x[3], (-0.3_f64)) * (x[2] * x[0])));
    for i in (0..4).rev() {
        let (mut p3, mut q4) = (
            (n2 - x[(i + 2) % 4]),
            (x[1] / ((1.5_f64) + (x[(i + 2) % 4]) * (x[(i + 2) % 4]))),
        );
        let mut k5 = 0;
        while k5 < 3 {
            (q4, p3) = (
                q4 - (p3 + (x[0]).min(x[3])).sin() * (0.3_f64),
                p3 + q4 * (0.3_f64),
            );
            k5 += 1;
        }
    }
    for i in 0..4 {
        let mut b6 = x.to_vec();
        let k7 = b6[3];
        b6[(i + 2) % 4] += k7;
        let mut a8 = (f1(x[i])
            + p.v
                .windows(2)
                .map(|w| (w[1] - w[0]) * (0.7_f64))
                .sum::<f64>());
        a8 = a8 * (0.8_f64) + s.sin();
        let (n9, n10) = (
            x.iter().map(|v| s).sum::<f64>(),
            (b6[(i + 3) % 4] * (-0.3_f64)).atan(),
        );
    }
    let n13 = s;
    let f11 = |u: f64, w: f64| (u * n13 - w).tanh();
    let f12 = |u: f64| f11(u, u * u) + n13;
    let n14 = f11(
        (n2 * p.v[3]).max((p.b).tanh().exp()),
        (p.a * n13).max((p.v[3]).mul_add(x[1], x[1])),
    ) + f12((p.a * n13).max((p.v[3]).mul_add(x[1], x[1])));
    let n15 = ((((x[3]) * (x[3]) + 1.0).sqrt() + (p.v[0] / ((1.5_f64) + (x[0]) * (x[0]))))
        / ((1.5_f64) + (p.v[2]) * (p.v[2])));
    let mut a16 = ((p.a).sin() * (p.a).sin() + 1.0).sqrt();
    if ((n13 * s).floor() + (x[3]).powi(3)) <= n15.tanh().exp() {
        a16 = f1(n13);
    } else {
        a16 = a16 - (x[0] * (-0.9_f64));
    }
    (x[1]).cos() + p.w[0] + n2 + n14 + n15 + a16
}

#[allow(clippy::all, unused)]
fn program_36_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    p: &Params<T>,
    x: &[T],
    s: T,
) -> T {
    let f1 = move |v: T| v.max(T::from(-0.6).unwrap());
    let n2 = f1((T::max(x[3], T::from(-0.3).unwrap()) * (x[2] * x[0])));
    for i in (0..4).rev() {
        let (mut p3, mut q4) = (
            (n2 - x[(i + 2) % 4]),
            (x[1] / (T::from(1.5).unwrap() + (x[(i + 2) % 4]) * (x[(i + 2) % 4]))),
        );
        let mut k5 = 0;
        while k5 < 3 {
            (q4, p3) = (
                q4 - (p3 + (x[0]).min(x[3])).sin() * T::from(0.3).unwrap(),
                p3 + q4 * T::from(0.3).unwrap(),
            );
            k5 += 1;
        }
    }
    for i in 0..4 {
        let mut b6 = x.to_vec();
        let k7 = b6[3];
        b6[(i + 2) % 4] += k7;
        let mut a8 = (f1(x[i])
            + p.v
                .windows(2)
                .map(|w| (w[1] - w[0]) * T::from(0.7).unwrap())
                .sum::<T>());
        a8 = a8 * T::from(0.8).unwrap() + s.sin();
        let (n9, n10) = (
            x.iter().map(|v| s).sum::<T>(),
            (b6[(i + 3) % 4] * T::from(-0.3).unwrap()).atan(),
        );
    }
    let n13 = s;
    let f11 = |u: T, w: T| (u * n13 - w).tanh();
    let f12 = |u: T| f11(u, u * u) + n13;
    let n14 = f11(
        (n2 * p.v[3]).max((p.b).tanh().exp()),
        (p.a * n13).max((p.v[3]).mul_add(x[1], x[1])),
    ) + f12((p.a * n13).max((p.v[3]).mul_add(x[1], x[1])));
    let n15 = ((((x[3]) * (x[3]) + T::one()).sqrt()
        + (p.v[0] / (T::from(1.5).unwrap() + (x[0]) * (x[0]))))
        / (T::from(1.5).unwrap() + (p.v[2]) * (p.v[2])));
    let mut a16 = ((p.a).sin() * (p.a).sin() + T::one()).sqrt();
    if ((n13 * s).floor() + (x[3]).powi(3)) <= n15.tanh().exp() {
        a16 = f1(n13);
    } else {
        a16 = a16 - (x[0] * T::from(-0.9).unwrap());
    }
    (x[1]).cos() + p.w[0] + n2 + n14 + n15 + a16
}

fn program_36_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let primal = program_36::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_36(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_36::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_36::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_36::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_36_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let primal = program_36_f64::primal(&params(&p[..9]), &p[9..13], p[13]);
    let itself = program_36_f64(&params(&p[..9]), &p[9..13], p[13]);
    let (value, (d_params, dx, ds)) = program_36_f64::grad(&params(&p[..9]), &p[9..13], p[13]);
    let grad = (value, [flat(&d_params), dx, vec![ds]].concat());
    let mut d_params = params(&[F::zero(); 9]);
    let (mut dx, mut ds) = (vec![F::zero(); 4], F::zero());
    let value = program_36_f64::grad_into(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &mut d_params,
        &mut dx,
        &mut ds,
    );
    let other = (value, [flat(&d_params), dx, vec![ds]].concat());
    let jvp = program_36_f64::jvp(
        &params(&p[..9]),
        &p[9..13],
        p[13],
        &params(&t[..9]),
        &t[9..13],
        t[13],
    );
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_36_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    program_36_on_duals(&params(&d[..9]), &d[9..13], d[13])
}

#[test]
fn program_36_matches_dual_numbers_and_finite_differences() {
    check::<14>(
        "program_36",
        point(36),
        point(36 + 7),
        &program_36_faces,
        &program_36_f64_faces,
        &program_36_objective_on_duals,
    );
    at_f32::<14>(
        "program_36",
        point(36),
        &program_36_faces,
        &program_36_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_37<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    let mut a1 = x[2];
    if T::min((a1 + out[0]), (out[0] + x[3])) >= x.iter().map(|v| T::from(-0.4).unwrap()).sum::<T>()
    {
        a1 = (T::from(-1.6).unwrap())
            .atan2(
                T::from(1.5).unwrap()
                    + (T::from(-1.5).unwrap()).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
                        * (T::from(-1.5).unwrap())
                            .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()),
            )
            .max(s);
    } else {
        a1 = a1
            - ((out[0] - T::from(-0.2).unwrap())
                * (T::from(1.1).unwrap() / (T::from(1.5).unwrap() + (x[3]) * (x[3]))));
    }
    let f2 = move |v: T| v * a1;
    let n3 = f2((out[3] - a1).atan());
    for v in out.iter_mut() {
        *v = ((*v - *v) * (*v - *v) + T::one()).ln();
    }
    a1 += (a1.sin()).hypot(T::one() + (x[0]).hypot(T::one()) * (x[0]).hypot(T::one()));
    if let Some(v) = x.first() {
        a1 = a1 * T::from(0.5).unwrap() + (*v).sin();
    }
    let k4 = x[3];
    helper_smooth(&mut *out, k4);
    if let Some(v) = x.first() {
        a1 = a1 * T::from(0.5).unwrap() + (*v).sin();
    }
    (s.cos() + out[1]) + a1 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_37_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = x[2];
    if f64::min((a1 + out[0]), (out[0] + x[3])) >= x.iter().map(|v| (-0.4_f64)).sum::<f64>() {
        a1 = (-1.6_f64)
            .atan2(
                (1.5_f64)
                    + (-1.5_f64).clamp((-0.8_f64), (0.9_f64))
                        * (-1.5_f64).clamp((-0.8_f64), (0.9_f64)),
            )
            .max(s);
    } else {
        a1 = a1 - ((out[0] - (-0.2_f64)) * ((1.1_f64) / ((1.5_f64) + (x[3]) * (x[3]))));
    }
    let f2 = move |v: f64| v * a1;
    let n3 = f2((out[3] - a1).atan());
    for v in out.iter_mut() {
        *v = ((*v - *v) * (*v - *v) + 1.0).ln();
    }
    a1 += (a1.sin()).hypot(1.0 + (x[0]).hypot(1.0) * (x[0]).hypot(1.0));
    if let Some(v) = x.first() {
        a1 = a1 * (0.5_f64) + (*v).sin();
    }
    let k4 = x[3];
    helper_smooth(&mut *out, k4);
    if let Some(v) = x.first() {
        a1 = a1 * (0.5_f64) + (*v).sin();
    }
    (s.cos() + out[1]) + a1 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_37_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    let mut a1 = x[2];
    if T::min((a1 + out[0]), (out[0] + x[3])) >= x.iter().map(|v| T::from(-0.4).unwrap()).sum::<T>()
    {
        a1 = (T::from(-1.6).unwrap())
            .atan2(
                T::from(1.5).unwrap()
                    + (T::from(-1.5).unwrap()).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
                        * (T::from(-1.5).unwrap())
                            .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()),
            )
            .max(s);
    } else {
        a1 = a1
            - ((out[0] - T::from(-0.2).unwrap())
                * (T::from(1.1).unwrap() / (T::from(1.5).unwrap() + (x[3]) * (x[3]))));
    }
    let f2 = move |v: T| v * a1;
    let n3 = f2((out[3] - a1).atan());
    for v in out.iter_mut() {
        *v = ((*v - *v) * (*v - *v) + T::one()).ln();
    }
    a1 += (a1.sin()).hypot(T::one() + (x[0]).hypot(T::one()) * (x[0]).hypot(T::one()));
    if let Some(v) = x.first() {
        a1 = a1 * T::from(0.5).unwrap() + (*v).sin();
    }
    let k4 = x[3];
    helper_smooth_on_duals(&mut *out, k4);
    if let Some(v) = x.first() {
        a1 = a1 * T::from(0.5).unwrap() + (*v).sin();
    }
    (s.cos() + out[1]) + a1 + out.iter().copied().sum::<T>()
}

fn program_37_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_37::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_37(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_37::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_37::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_37::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_37_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_37_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_37_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_37_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_37_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_37_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_37_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_37_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_37_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_37",
        point(37),
        point(37 + 7),
        &program_37_faces,
        &program_37_f64_faces,
        &program_37_objective_on_duals,
    );
    at_f32::<9>(
        "program_37",
        point(37),
        &program_37_faces,
        &program_37_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_38<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    for i in 0..4 {
        let k1 = x[i];
        out[(i + 2) % 4] += k1;
        let f2 = move |v: T| T::from(-1.7).unwrap();
        let n3 = f2(((s + s) - x[i]));
        for (o, v) in out.iter_mut().zip(x.iter()) {
            *o = *o * T::from(-0.7).unwrap() + (*v).sin();
        }
    }
    out[1] = (T::from(-2.0).unwrap()
        - ((T::from(0.0).unwrap()) * (T::from(0.0).unwrap()) + T::one())
            .ln()
            .hypot(T::one() + (x[2] - x[0]) * (x[2] - x[0])));
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-0.2).unwrap() + out[i].tanh();
    }
    let n4 = (out.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>() - x[2]);
    let mut r7 = x[0];
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * T::from(0.7).unwrap() + out.iter().map(|v| T::from(0.6).unwrap()).sum::<T>())
            .sin();
        k6 += 1;
        if k6 == 4 {
            break r7 * r7;
        }
    };
    (T::from(1.5).unwrap()).min(n4).hypot(T::one()) + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_38_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in 0..4 {
        let k1 = x[i];
        out[(i + 2) % 4] += k1;
        let f2 = move |v: f64| (-1.7_f64);
        let n3 = f2(((s + s) - x[i]));
        for (o, v) in out.iter_mut().zip(x.iter()) {
            *o = *o * (-0.7_f64) + (*v).sin();
        }
    }
    out[1] = ((-2.0_f64)
        - ((0.0_f64) * (0.0_f64) + 1.0)
            .ln()
            .hypot(1.0 + (x[2] - x[0]) * (x[2] - x[0])));
    for i in 1..4 {
        out[i] = out[i - 1] * (-0.2_f64) + out[i].tanh();
    }
    let n4 = (out
        .iter()
        .zip(out.iter())
        .map(|(a, b)| *a * *b)
        .sum::<f64>()
        - x[2]);
    let mut r7 = x[0];
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * (0.7_f64) + out.iter().map(|v| (0.6_f64)).sum::<f64>()).sin();
        k6 += 1;
        if k6 == 4 {
            break r7 * r7;
        }
    };
    (1.5_f64).min(n4).hypot(1.0) + n5 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_38_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for i in 0..4 {
        let k1 = x[i];
        out[(i + 2) % 4] += k1;
        let f2 = move |v: T| T::from(-1.7).unwrap();
        let n3 = f2(((s + s) - x[i]));
        for (o, v) in out.iter_mut().zip(x.iter()) {
            *o = *o * T::from(-0.7).unwrap() + (*v).sin();
        }
    }
    out[1] = (T::from(-2.0).unwrap()
        - ((T::from(0.0).unwrap()) * (T::from(0.0).unwrap()) + T::one())
            .ln()
            .hypot(T::one() + (x[2] - x[0]) * (x[2] - x[0])));
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-0.2).unwrap() + out[i].tanh();
    }
    let n4 = (out.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>() - x[2]);
    let mut r7 = x[0];
    let mut k6 = 0;
    let n5 = loop {
        r7 = (r7 * T::from(0.7).unwrap() + out.iter().map(|v| T::from(0.6).unwrap()).sum::<T>())
            .sin();
        k6 += 1;
        if k6 == 4 {
            break r7 * r7;
        }
    };
    (T::from(1.5).unwrap()).min(n4).hypot(T::one()) + n5 + out.iter().copied().sum::<T>()
}

fn program_38_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_38::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_38(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_38::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_38::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_38::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_38_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_38_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_38_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_38_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_38_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_38_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_38_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_38_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_38_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_38",
        point(38),
        point(38 + 7),
        &program_38_faces,
        &program_38_f64_faces,
        &program_38_objective_on_duals,
    );
    at_f32::<9>(
        "program_38",
        point(38),
        &program_38_faces,
        &program_38_objective_on_duals,
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_39<T: gradtape::Float>(x: &[T], s: T, out: &mut [T]) -> T {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = T::from(-0.3).unwrap() * T::from(0.5).unwrap() + (*v).sin();
    }
    for v in out.iter_mut() {
        *v = (s + T::from(1.7).unwrap()).hypot(T::one());
    }
    let mut a1 = ((out[0] * s) * (out[0] * s) + T::one()).ln();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[j] - a1).tanh()
                < x.windows(2)
                    .map(|w| (w[1] - w[0]) * T::from(-1.9).unwrap())
                    .sum::<T>()
            {
                break 'outer;
            }
            a1 = (a1 + (T::from(1.3).unwrap()).max((out[2] + x[j])) * x[i]).tanh();
        }
    }
    let n2 = helper_power(
        (s * T::from(-1.5).unwrap()).hypot(T::one() + (a1 * x[0]) * (a1 * x[0])),
        1,
    );
    let n3 = match x.first() {
        Some(v) => *v * (s.min(s)).sin(),
        None => ((T::from(0.1).unwrap()) * (T::from(0.1).unwrap()) + T::one()).ln(),
    };
    (s - out[1]).mul_add((s + x[0]), T::min(out[1], x[1])) + n3 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_39_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (-0.3_f64) * (0.5_f64) + (*v).sin();
    }
    for v in out.iter_mut() {
        *v = (s + (1.7_f64)).hypot(1.0);
    }
    let mut a1 = ((out[0] * s) * (out[0] * s) + 1.0).ln();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[j] - a1).tanh()
                < x.windows(2)
                    .map(|w| (w[1] - w[0]) * (-1.9_f64))
                    .sum::<f64>()
            {
                break 'outer;
            }
            a1 = (a1 + (1.3_f64).max((out[2] + x[j])) * x[i]).tanh();
        }
    }
    let n2 = helper_power((s * (-1.5_f64)).hypot(1.0 + (a1 * x[0]) * (a1 * x[0])), 1);
    let n3 = match x.first() {
        Some(v) => *v * (s.min(s)).sin(),
        None => ((0.1_f64) * (0.1_f64) + 1.0).ln(),
    };
    (s - out[1]).mul_add((s + x[0]), f64::min(out[1], x[1])) + n3 + out.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_39_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
    out: &mut [T],
) -> T {
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = T::from(-0.3).unwrap() * T::from(0.5).unwrap() + (*v).sin();
    }
    for v in out.iter_mut() {
        *v = (s + T::from(1.7).unwrap()).hypot(T::one());
    }
    let mut a1 = ((out[0] * s) * (out[0] * s) + T::one()).ln();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[j] - a1).tanh()
                < x.windows(2)
                    .map(|w| (w[1] - w[0]) * T::from(-1.9).unwrap())
                    .sum::<T>()
            {
                break 'outer;
            }
            a1 = (a1 + (T::from(1.3).unwrap()).max((out[2] + x[j])) * x[i]).tanh();
        }
    }
    let n2 = helper_power_on_duals(
        (s * T::from(-1.5).unwrap()).hypot(T::one() + (a1 * x[0]) * (a1 * x[0])),
        1,
    );
    let n3 = match x.first() {
        Some(v) => *v * (s.min(s)).sin(),
        None => ((T::from(0.1).unwrap()) * (T::from(0.1).unwrap()) + T::one()).ln(),
    };
    (s - out[1]).mul_add((s + x[0]), T::min(out[1], x[1])) + n3 + out.iter().copied().sum::<T>()
}

fn program_39_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {
    let mut out = p[5..].to_vec();
    let primal = program_39::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_39(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_39::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_39::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) = program_39::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_39_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {
    type F = f64;
    let mut out = p[5..].to_vec();
    let primal = program_39_f64::primal(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let itself = program_39_f64(&p[0..4], p[4], &mut out) + weighted(&out);
    let mut out = p[5..].to_vec();
    let (mut dx, mut ds, mut d_out) = (vec![F::zero(); 4], F::zero(), weights::<F>());
    let value = program_39_f64::grad_into(&p[0..4], p[4], &mut out, &mut dx, &mut ds, &mut d_out);
    let grad = (value + weighted(&out), [dx, vec![ds], d_out].concat());
    let mut out = p[5..].to_vec();
    let (value, pullback) = program_39_f64::vjp(&p[0..4], p[4], &mut out);
    let mut d_out = weights::<F>();
    let (dx, ds, _) = pullback(F::one(), &mut d_out);
    let other = (
        value + weighted(&out),
        [
            dx.unwrap_or(vec![F::zero(); 4]),
            vec![ds.unwrap_or(F::zero())],
            d_out,
        ]
        .concat(),
    );
    let mut out = p[5..].to_vec();
    let mut t_out = t[5..].to_vec();
    let (value, tangent) =
        program_39_f64::jvp(&p[0..4], p[4], &mut out, &t[0..4], t[4], &mut t_out);
    let jvp = (value + weighted(&out), tangent + weighted(&t_out));
    Faces {
        primal,
        itself,
        grad,
        other,
        jvp,
    }
}

fn program_39_objective_on_duals<
    D: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    d: &[D],
) -> D {
    let mut out = d[5..].to_vec();
    program_39_on_duals(&d[0..4], d[4], &mut out) + weighted(&out)
}

#[test]
fn program_39_matches_dual_numbers_and_finite_differences() {
    check::<9>(
        "program_39",
        point(39),
        point(39 + 7),
        &program_39_faces,
        &program_39_f64_faces,
        &program_39_objective_on_duals,
    );
    at_f32::<9>(
        "program_39",
        point(39),
        &program_39_faces,
        &program_39_objective_on_duals,
    );
}
