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
    let mut a1 = x[3];
    a1 += a1.hypot(T::one());
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(-0.3).unwrap() + *w * (*v).sin();
    }
    let k2 = ((x[3]).sin() + (p.b + x[3]));
    out[0] += k2;
    let mut m3 = x[0];
    let mut t4 = T::zero();
    for i in 1..4 {
        m3 = m3.max(x[i]);
        t4 = t4 + (x[i] - m3).exp();
    }
    let n5 = if s <= (x[3]).mul_add(a1, T::from(1.1).unwrap()) {
        ((out[1]).tanh() + p.w[2])
    } else {
        (x[1] * p.v[3])
    };
    out[2] + p.v[1] + a1 + t4 + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_0_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = x[3];
    a1 += a1.hypot(1.0);
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * (-0.3_f64) + *w * (*v).sin();
    }
    let k2 = ((x[3]).sin() + (p.b + x[3]));
    out[0] += k2;
    let mut m3 = x[0];
    let mut t4 = 0.0;
    for i in 1..4 {
        m3 = m3.max(x[i]);
        t4 = t4 + (x[i] - m3).exp();
    }
    let n5 = if s <= (x[3]).mul_add(a1, (1.1_f64)) {
        ((out[1]).tanh() + p.w[2])
    } else {
        (x[1] * p.v[3])
    };
    out[2] + p.v[1] + a1 + t4 + n5 + out.iter().copied().sum::<f64>()
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
    let mut a1 = x[3];
    a1 += a1.hypot(T::one());
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(-0.3).unwrap() + *w * (*v).sin();
    }
    let k2 = ((x[3]).sin() + (p.b + x[3]));
    out[0] += k2;
    let mut m3 = x[0];
    let mut t4 = T::zero();
    for i in 1..4 {
        m3 = m3.max(x[i]);
        t4 = t4 + (x[i] - m3).exp();
    }
    let n5 = if s <= (x[3]).mul_add(a1, T::from(1.1).unwrap()) {
        ((out[1]).tanh() + p.w[2])
    } else {
        (x[1] * p.v[3])
    };
    out[2] + p.v[1] + a1 + t4 + n5 + out.iter().copied().sum::<T>()
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
    out[1] = out[3];
    if T::from(0.0).unwrap() < s {
        return (s + out[0]).mul_add(x[2], (s + s));
    }
    let k1 = (x[0] * x[0]).sin();
    helper_smooth(&mut out[1..], k1);
    let mut a2 = out[1];
    a2 -= (out[1]).tanh().min(x.iter().map(|v| s).sum::<T>());
    a2 *= T::from(0.7).unwrap();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (a2.tanh()).atan() < s.abs() {
                break 'outer;
            }
            a2 = (a2
                + ((out[j] / (T::from(1.5).unwrap() + (x[j]) * (x[j])))
                    * (out[1]
                        / (T::from(1.5).unwrap()
                            + (T::from(0.9).unwrap()) * (T::from(0.9).unwrap()))))
                    * x[i])
                .tanh();
        }
    }
    let (n3, n4) = ((s + a2.cos()), (x[2]).atan());
    ((x[0]).atan() * a2.tanh().exp()) + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_1_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    out[1] = out[3];
    if (0.0_f64) < s {
        return (s + out[0]).mul_add(x[2], (s + s));
    }
    let k1 = (x[0] * x[0]).sin();
    helper_smooth(&mut out[1..], k1);
    let mut a2 = out[1];
    a2 -= (out[1]).tanh().min(x.iter().map(|v| s).sum::<f64>());
    a2 *= (0.7_f64);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (a2.tanh()).atan() < s.abs() {
                break 'outer;
            }
            a2 = (a2
                + ((out[j] / ((1.5_f64) + (x[j]) * (x[j])))
                    * (out[1] / ((1.5_f64) + (0.9_f64) * (0.9_f64))))
                    * x[i])
                .tanh();
        }
    }
    let (n3, n4) = ((s + a2.cos()), (x[2]).atan());
    ((x[0]).atan() * a2.tanh().exp()) + out.iter().copied().sum::<f64>()
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
    out[1] = out[3];
    if T::from(0.0).unwrap() < s {
        return (s + out[0]).mul_add(x[2], (s + s));
    }
    let k1 = (x[0] * x[0]).sin();
    helper_smooth_on_duals(&mut out[1..], k1);
    let mut a2 = out[1];
    a2 -= (out[1]).tanh().min(x.iter().map(|v| s).sum::<T>());
    a2 *= T::from(0.7).unwrap();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (a2.tanh()).atan() < s.abs() {
                break 'outer;
            }
            a2 = (a2
                + ((out[j] / (T::from(1.5).unwrap() + (x[j]) * (x[j])))
                    * (out[1]
                        / (T::from(1.5).unwrap()
                            + (T::from(0.9).unwrap()) * (T::from(0.9).unwrap()))))
                    * x[i])
                .tanh();
        }
    }
    let (n3, n4) = ((s + a2.cos()), (x[2]).atan());
    ((x[0]).atan() * a2.tanh().exp()) + out.iter().copied().sum::<T>()
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
    for i in 0..4 {
        let mut b1 = x.to_vec();
        for i in 1..4 {
            b1[i] = b1[i - 1] * T::from(-0.1).unwrap() + b1[i].tanh();
        }
        let mut a2 = x[0];
        if let Some(v) = x.last() {
            a2 = a2 * T::from(0.9).unwrap() + (*v).sin();
        }
        for i in 1..4 {
            b1[i] = b1[i - 1] * T::from(-0.2).unwrap() + b1[i].tanh();
        }
    }
    let mut a3 = (x[0]).powi(2);
    if (s.signum() * s).tanh().exp() > a3 {
        a3 = (T::from(1.3).unwrap()).mul_add(
            ((x[2] - T::from(-1.2).unwrap())
                * ((T::from(1.2).unwrap()) * (T::from(1.2).unwrap()) + T::one()).sqrt()),
            (x[0] + a3).atan(),
        );
    } else {
        a3 = a3 - ((s.max(a3)) * (s.max(a3)) + T::one()).sqrt();
    }
    if (a3 * a3 + T::one())
        .sqrt()
        .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
        > (T::from(-0.6).unwrap()).tanh().exp()
    {
        a3 = ((a3 * a3 + T::one())
            .ln()
            .mul_add(((x[2]) * (x[2]) + T::one()).ln(), x[1])
            * (a3 * a3 + T::one())
                .ln()
                .mul_add(((x[2]) * (x[2]) + T::one()).ln(), x[1])
            + T::one())
        .sqrt();
    } else {
        a3 = a3 - s;
    }
    let mut k4 = 0;
    while k4 < 2 {
        a3 = (a3
            + (a3.atan()
                + (a3
                    / (T::from(1.5).unwrap()
                        + (T::from(1.0).unwrap()) * (T::from(1.0).unwrap())))))
        .tanh();
        k4 += 1;
    }
    let n5 = (T::from(1.4).unwrap())
        .min(T::from(1.7).unwrap())
        .tanh()
        .min((s.mul_add(x[2], x[0]) + (x[3]).min(s)));
    let mut b6 = vec![T::zero(); 4];
    for i in 0..4 {
        b6[i] = (x
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(0.1).unwrap())
            .sum::<T>()
            + (T::from(-0.5).unwrap()).tanh().exp());
    }
    let k7 = (b6[1] + x[2]).sin();
    b6[0] += k7;
    for v in b6.iter_mut() {
        *v = (*v - (s - s));
    }
    (x[2]).tanh().exp().cos() + b6.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_2_f64(x: &[f64], s: f64) -> f64 {
    for i in 0..4 {
        let mut b1 = x.to_vec();
        for i in 1..4 {
            b1[i] = b1[i - 1] * (-0.1_f64) + b1[i].tanh();
        }
        let mut a2 = x[0];
        if let Some(v) = x.last() {
            a2 = a2 * (0.9_f64) + (*v).sin();
        }
        for i in 1..4 {
            b1[i] = b1[i - 1] * (-0.2_f64) + b1[i].tanh();
        }
    }
    let mut a3 = (x[0]).powi(2);
    if (s.signum() * s).tanh().exp() > a3 {
        a3 = (1.3_f64).mul_add(
            ((x[2] - (-1.2_f64)) * ((1.2_f64) * (1.2_f64) + 1.0).sqrt()),
            (x[0] + a3).atan(),
        );
    } else {
        a3 = a3 - ((s.max(a3)) * (s.max(a3)) + 1.0).sqrt();
    }
    if (a3 * a3 + 1.0).sqrt().clamp((-0.8_f64), (0.9_f64)) > (-0.6_f64).tanh().exp() {
        a3 = ((a3 * a3 + 1.0)
            .ln()
            .mul_add(((x[2]) * (x[2]) + 1.0).ln(), x[1])
            * (a3 * a3 + 1.0)
                .ln()
                .mul_add(((x[2]) * (x[2]) + 1.0).ln(), x[1])
            + 1.0)
            .sqrt();
    } else {
        a3 = a3 - s;
    }
    let mut k4 = 0;
    while k4 < 2 {
        a3 = (a3 + (a3.atan() + (a3 / ((1.5_f64) + (1.0_f64) * (1.0_f64))))).tanh();
        k4 += 1;
    }
    let n5 = (1.4_f64)
        .min((1.7_f64))
        .tanh()
        .min((s.mul_add(x[2], x[0]) + (x[3]).min(s)));
    let mut b6 = vec![0.0; 4];
    for i in 0..4 {
        b6[i] = (x.windows(2).map(|w| (w[1] - w[0]) * (0.1_f64)).sum::<f64>()
            + (-0.5_f64).tanh().exp());
    }
    let k7 = (b6[1] + x[2]).sin();
    b6[0] += k7;
    for v in b6.iter_mut() {
        *v = (*v - (s - s));
    }
    (x[2]).tanh().exp().cos() + b6.iter().copied().sum::<f64>()
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
    for i in 0..4 {
        let mut b1 = x.to_vec();
        for i in 1..4 {
            b1[i] = b1[i - 1] * T::from(-0.1).unwrap() + b1[i].tanh();
        }
        let mut a2 = x[0];
        if let Some(v) = x.last() {
            a2 = a2 * T::from(0.9).unwrap() + (*v).sin();
        }
        for i in 1..4 {
            b1[i] = b1[i - 1] * T::from(-0.2).unwrap() + b1[i].tanh();
        }
    }
    let mut a3 = (x[0]).powi(2);
    if (s.signum() * s).tanh().exp() > a3 {
        a3 = (T::from(1.3).unwrap()).mul_add(
            ((x[2] - T::from(-1.2).unwrap())
                * ((T::from(1.2).unwrap()) * (T::from(1.2).unwrap()) + T::one()).sqrt()),
            (x[0] + a3).atan(),
        );
    } else {
        a3 = a3 - ((s.max(a3)) * (s.max(a3)) + T::one()).sqrt();
    }
    if (a3 * a3 + T::one())
        .sqrt()
        .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
        > (T::from(-0.6).unwrap()).tanh().exp()
    {
        a3 = ((a3 * a3 + T::one())
            .ln()
            .mul_add(((x[2]) * (x[2]) + T::one()).ln(), x[1])
            * (a3 * a3 + T::one())
                .ln()
                .mul_add(((x[2]) * (x[2]) + T::one()).ln(), x[1])
            + T::one())
        .sqrt();
    } else {
        a3 = a3 - s;
    }
    let mut k4 = 0;
    while k4 < 2 {
        a3 = (a3
            + (a3.atan()
                + (a3
                    / (T::from(1.5).unwrap()
                        + (T::from(1.0).unwrap()) * (T::from(1.0).unwrap())))))
        .tanh();
        k4 += 1;
    }
    let n5 = (T::from(1.4).unwrap())
        .min(T::from(1.7).unwrap())
        .tanh()
        .min((s.mul_add(x[2], x[0]) + (x[3]).min(s)));
    let mut b6 = vec![T::zero(); 4];
    for i in 0..4 {
        b6[i] = (x
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(0.1).unwrap())
            .sum::<T>()
            + (T::from(-0.5).unwrap()).tanh().exp());
    }
    let k7 = (b6[1] + x[2]).sin();
    b6[0] += k7;
    for v in b6.iter_mut() {
        *v = (*v - (s - s));
    }
    (x[2]).tanh().exp().cos() + b6.iter().copied().sum::<T>()
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
    let k1 = out
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.5).unwrap() + s);
    out[3] += k1;
    let mut a2 = (out.iter().skip(1).map(|v| *v).sum::<T>()).tanh().exp();
    if (x[2]).tanh() <= a2 {
        a2 = x[0];
    } else {
        a2 = a2 - ((x[2] + a2) - (x[3]).hypot(T::one()));
    }
    let f3 = move |v: T| ((v - v) * (v * v + T::one()).ln()) * a2;
    let n4 = f3(((T::from(-0.4).unwrap()).sin()
        - p.v
            .iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>()));
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-1.0).unwrap() + out[i].tanh();
    }
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    let k7 = out
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    helper_smooth(&mut out[..], k7);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if out[(j + 2) % 4] >= x[(j + 1) % 4] {
                break 'outer;
            }
            t6 = (t6 + ((t6 - x[1]) / (T::from(1.5).unwrap() + s * s)) * x[i]).tanh();
        }
    }
    T::from(-1.6).unwrap() + p.w[1] + a2 + m5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_3_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let k1 = out.iter().fold(0.0, |acc, v| acc * (-0.5_f64) + s);
    out[3] += k1;
    let mut a2 = (out.iter().skip(1).map(|v| *v).sum::<f64>()).tanh().exp();
    if (x[2]).tanh() <= a2 {
        a2 = x[0];
    } else {
        a2 = a2 - ((x[2] + a2) - (x[3]).hypot(1.0));
    }
    let f3 = move |v: f64| ((v - v) * (v * v + 1.0).ln()) * a2;
    let n4 = f3(((-0.4_f64).sin()
        - p.v
            .iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>()));
    for i in 1..4 {
        out[i] = out[i - 1] * (-1.0_f64) + out[i].tanh();
    }
    let mut m5 = x[0];
    let mut t6 = 0.0;
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    let k7 = out
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>();
    helper_smooth(&mut out[..], k7);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if out[(j + 2) % 4] >= x[(j + 1) % 4] {
                break 'outer;
            }
            t6 = (t6 + ((t6 - x[1]) / ((1.5_f64) + s * s)) * x[i]).tanh();
        }
    }
    (-1.6_f64) + p.w[1] + a2 + m5 + out.iter().copied().sum::<f64>()
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
    let k1 = out
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.5).unwrap() + s);
    out[3] += k1;
    let mut a2 = (out.iter().skip(1).map(|v| *v).sum::<T>()).tanh().exp();
    if (x[2]).tanh() <= a2 {
        a2 = x[0];
    } else {
        a2 = a2 - ((x[2] + a2) - (x[3]).hypot(T::one()));
    }
    let f3 = move |v: T| ((v - v) * (v * v + T::one()).ln()) * a2;
    let n4 = f3(((T::from(-0.4).unwrap()).sin()
        - p.v
            .iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>()));
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-1.0).unwrap() + out[i].tanh();
    }
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    let k7 = out
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    helper_smooth_on_duals(&mut out[..], k7);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if out[(j + 2) % 4] >= x[(j + 1) % 4] {
                break 'outer;
            }
            t6 = (t6 + ((t6 - x[1]) / (T::from(1.5).unwrap() + s * s)) * x[i]).tanh();
        }
    }
    T::from(-1.6).unwrap() + p.w[1] + a2 + m5 + out.iter().copied().sum::<T>()
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
    for i in 0..4 {
        let mut a1 = T::from(-1.7).unwrap();
        if let Some(v) = x.first() {
            a1 = a1 * T::from(0.1).unwrap() + (*v).sin();
        }
        if (s + (a1 / (T::from(1.5).unwrap() + s * s))) >= T::from(0.8).unwrap() {
            a1 = (x
                .iter()
                .fold(T::zero(), |acc, v| acc * T::from(0.0).unwrap() + *v)
                * x[(i + 2) % 4]);
        } else {
            a1 = a1 - T::from(-0.8).unwrap();
        }
    }
    for i in 0..4 {
        let mut b2 = x.to_vec();
        for i in 1..4 {
            b2[i] = b2[i - 1] * T::from(-0.4).unwrap() + b2[i].tanh();
        }
        let n3 = helper_soft(
            (T::from(-0.2).unwrap()
                - (T::from(-0.4).unwrap()
                    / (T::from(1.5).unwrap()
                        + (T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap())))),
            ((x[3]).hypot(T::one())
                * ((T::from(-1.3).unwrap()) * (T::from(-1.3).unwrap()) + T::one()).ln()),
        );
        let mut a4 = x[(i + 2) % 4];
        if let Some(v) = x.first() {
            a4 = a4 * T::from(0.1).unwrap() + (*v).sin();
        }
    }
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    t6 = t6 * T::from(0.9).unwrap() + x[2];
    ((T::from(0.0).unwrap()).max(m5)
        + ((T::from(-1.4).unwrap()) * (T::from(-1.4).unwrap()) + T::one())
            .powf(T::from(-0.9).unwrap()))
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_4_f64(x: &[f64], s: f64) -> f64 {
    for i in 0..4 {
        let mut a1 = (-1.7_f64);
        if let Some(v) = x.first() {
            a1 = a1 * (0.1_f64) + (*v).sin();
        }
        if (s + (a1 / ((1.5_f64) + s * s))) >= (0.8_f64) {
            a1 = (x.iter().fold(0.0, |acc, v| acc * (0.0_f64) + *v) * x[(i + 2) % 4]);
        } else {
            a1 = a1 - (-0.8_f64);
        }
    }
    for i in 0..4 {
        let mut b2 = x.to_vec();
        for i in 1..4 {
            b2[i] = b2[i - 1] * (-0.4_f64) + b2[i].tanh();
        }
        let n3 = helper_soft(
            ((-0.2_f64) - ((-0.4_f64) / ((1.5_f64) + (-1.5_f64) * (-1.5_f64)))),
            ((x[3]).hypot(1.0) * ((-1.3_f64) * (-1.3_f64) + 1.0).ln()),
        );
        let mut a4 = x[(i + 2) % 4];
        if let Some(v) = x.first() {
            a4 = a4 * (0.1_f64) + (*v).sin();
        }
    }
    let mut m5 = x[0];
    let mut t6 = 0.0;
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    t6 = t6 * (0.9_f64) + x[2];
    ((0.0_f64).max(m5) + ((-1.4_f64) * (-1.4_f64) + 1.0).powf((-0.9_f64)))
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
    for i in 0..4 {
        let mut a1 = T::from(-1.7).unwrap();
        if let Some(v) = x.first() {
            a1 = a1 * T::from(0.1).unwrap() + (*v).sin();
        }
        if (s + (a1 / (T::from(1.5).unwrap() + s * s))) >= T::from(0.8).unwrap() {
            a1 = (x
                .iter()
                .fold(T::zero(), |acc, v| acc * T::from(0.0).unwrap() + *v)
                * x[(i + 2) % 4]);
        } else {
            a1 = a1 - T::from(-0.8).unwrap();
        }
    }
    for i in 0..4 {
        let mut b2 = x.to_vec();
        for i in 1..4 {
            b2[i] = b2[i - 1] * T::from(-0.4).unwrap() + b2[i].tanh();
        }
        let n3 = helper_soft_on_duals(
            (T::from(-0.2).unwrap()
                - (T::from(-0.4).unwrap()
                    / (T::from(1.5).unwrap()
                        + (T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap())))),
            ((x[3]).hypot(T::one())
                * ((T::from(-1.3).unwrap()) * (T::from(-1.3).unwrap()) + T::one()).ln()),
        );
        let mut a4 = x[(i + 2) % 4];
        if let Some(v) = x.first() {
            a4 = a4 * T::from(0.1).unwrap() + (*v).sin();
        }
    }
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    t6 = t6 * T::from(0.9).unwrap() + x[2];
    ((T::from(0.0).unwrap()).max(m5)
        + ((T::from(-1.4).unwrap()) * (T::from(-1.4).unwrap()) + T::one())
            .powf(T::from(-0.9).unwrap()))
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
    let mut a1 = T::from(1.3).unwrap();
    a1 = a1 * T::from(0.2).unwrap()
        + (T::from(1.4).unwrap()).cos().min(
            (out.windows(2)
                .map(|w| (w[1] - w[0]) * T::from(-1.4).unwrap())
                .sum::<T>())
            .tanh(),
        );
    for v in out.iter_mut() {
        *v = ((T::from(-1.4).unwrap()) * (T::from(-1.4).unwrap()) + T::one())
            .ln()
            .tanh()
            .exp();
    }
    let mut p2 = (a1 + s);
    let mut q3 = x[2];
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * T::from(0.3).unwrap();
        p2 = p2 + q3 * T::from(0.3).unwrap();
    }
    for i in (0..4).rev() {
        if x[(i + 2) % 4] < (p.v[2] - T::from(-1.1).unwrap()) {
            return (p.v[(i + 3) % 4]).powi(3).cos();
        }
        let n4 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
        let n5 = if T::from(-0.1).unwrap() <= (p.w[i % 3]).cos() {
            p.v[i]
        } else {
            (n4 + (p.a).powi(2))
        };
    }
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        q3 = q3 * T::from(0.8).unwrap() + *w * (*v).sin();
    }
    ((a1 - a1) + (p.w[0] * out[2])) + p.b + a1 + q3 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_5_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = (1.3_f64);
    a1 = a1 * (0.2_f64)
        + (1.4_f64).cos().min(
            (out.windows(2)
                .map(|w| (w[1] - w[0]) * (-1.4_f64))
                .sum::<f64>())
            .tanh(),
        );
    for v in out.iter_mut() {
        *v = ((-1.4_f64) * (-1.4_f64) + 1.0).ln().tanh().exp();
    }
    let mut p2 = (a1 + s);
    let mut q3 = x[2];
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * (0.3_f64);
        p2 = p2 + q3 * (0.3_f64);
    }
    for i in (0..4).rev() {
        if x[(i + 2) % 4] < (p.v[2] - (-1.1_f64)) {
            return (p.v[(i + 3) % 4]).powi(3).cos();
        }
        let n4 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<f64>();
        let n5 = if (-0.1_f64) <= (p.w[i % 3]).cos() {
            p.v[i]
        } else {
            (n4 + (p.a).powi(2))
        };
    }
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        q3 = q3 * (0.8_f64) + *w * (*v).sin();
    }
    ((a1 - a1) + (p.w[0] * out[2])) + p.b + a1 + q3 + out.iter().copied().sum::<f64>()
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
    let mut a1 = T::from(1.3).unwrap();
    a1 = a1 * T::from(0.2).unwrap()
        + (T::from(1.4).unwrap()).cos().min(
            (out.windows(2)
                .map(|w| (w[1] - w[0]) * T::from(-1.4).unwrap())
                .sum::<T>())
            .tanh(),
        );
    for v in out.iter_mut() {
        *v = ((T::from(-1.4).unwrap()) * (T::from(-1.4).unwrap()) + T::one())
            .ln()
            .tanh()
            .exp();
    }
    let mut p2 = (a1 + s);
    let mut q3 = x[2];
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * T::from(0.3).unwrap();
        p2 = p2 + q3 * T::from(0.3).unwrap();
    }
    for i in (0..4).rev() {
        if x[(i + 2) % 4] < (p.v[2] - T::from(-1.1).unwrap()) {
            return (p.v[(i + 3) % 4]).powi(3).cos();
        }
        let n4 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
        let n5 = if T::from(-0.1).unwrap() <= (p.w[i % 3]).cos() {
            p.v[i]
        } else {
            (n4 + (p.a).powi(2))
        };
    }
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        q3 = q3 * T::from(0.8).unwrap() + *w * (*v).sin();
    }
    ((a1 - a1) + (p.w[0] * out[2])) + p.b + a1 + q3 + out.iter().copied().sum::<T>()
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
    let n1 = helper_soft((s.max(s) + (x[2] + s)), T::from(-2.0).unwrap());
    let mut a2 = ((x[1]).atan() * n1);
    let mut k3 = 0;
    while k3 < 2 {
        a2 = (a2 + (x.iter().map(|v| s).sum::<T>() + n1.max(p.w[1]))).tanh();
        k3 += 1;
    }
    let n4 = if x[0] > (T::from(1.4).unwrap()).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
    {
        ((p.b) * (p.b) + T::one()).ln()
    } else {
        p.v.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>()
    };
    for i in 0..4 {
        for pair in x.chunks(2) {
            a2 = a2 * T::from(0.9).unwrap() + pair[0] * pair[1].tanh();
        }
    }
    (T::from(1.4).unwrap()).tanh() + p.b + a2
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_6_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let n1 = helper_soft((s.max(s) + (x[2] + s)), (-2.0_f64));
    let mut a2 = ((x[1]).atan() * n1);
    let mut k3 = 0;
    while k3 < 2 {
        a2 = (a2 + (x.iter().map(|v| s).sum::<f64>() + n1.max(p.w[1]))).tanh();
        k3 += 1;
    }
    let n4 = if x[0] > (1.4_f64).clamp((-0.8_f64), (0.9_f64)) {
        ((p.b) * (p.b) + 1.0).ln()
    } else {
        p.v.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>()
    };
    for i in 0..4 {
        for pair in x.chunks(2) {
            a2 = a2 * (0.9_f64) + pair[0] * pair[1].tanh();
        }
    }
    (1.4_f64).tanh() + p.b + a2
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
    let n1 = helper_soft_on_duals((s.max(s) + (x[2] + s)), T::from(-2.0).unwrap());
    let mut a2 = ((x[1]).atan() * n1);
    let mut k3 = 0;
    while k3 < 2 {
        a2 = (a2 + (x.iter().map(|v| s).sum::<T>() + n1.max(p.w[1]))).tanh();
        k3 += 1;
    }
    let n4 = if x[0] > (T::from(1.4).unwrap()).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
    {
        ((p.b) * (p.b) + T::one()).ln()
    } else {
        p.v.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>()
    };
    for i in 0..4 {
        for pair in x.chunks(2) {
            a2 = a2 * T::from(0.9).unwrap() + pair[0] * pair[1].tanh();
        }
    }
    (T::from(1.4).unwrap()).tanh() + p.b + a2
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
    for i in 0..4 {
        let mut a1 = ((x[1] + x[(i + 2) % 4]) + (T::from(0.8).unwrap()).mul_add(s, x[(i + 1) % 4]));
        if (p.a).cos().max((p.w[i % 3] * T::from(-0.4).unwrap()))
            <= (T::from(-0.3).unwrap()).min(out[3])
        {
            a1 = a1;
        } else {
            a1 = a1 - (x[1] * x[(i + 3) % 4]).hypot(T::one());
        }
        let f2 = move |v: T| v * a1;
        let n3 = f2(((T::from(-1.4).unwrap()).signum() * (p.a)).sin());
        out[(i + 2) % 4] = x[1];
    }
    let n4 = if ((out
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.3).unwrap() + s))
        * (out
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(-0.3).unwrap() + s))
        + T::one())
    .ln()
        <= x.iter().map(|v| *v).sum::<T>()
    {
        (T::from(-1.5).unwrap() + x[2]).sin()
    } else {
        out[2]
    };
    let mut a5 = p.w[0];
    a5 -= (x[0] + s).cos();
    a5 *= T::from(-0.4).unwrap();
    let (n6, n7) = (((x[3]).atan() * (x[1]).sin()), x[2]);
    a5 = a5 * T::from(0.7).unwrap() + s.mul_add(x[2], (out[3]).tanh());
    x.windows(2)
        .map(|w| (w[1] - w[0]) * T::from(1.8).unwrap())
        .sum::<T>()
        + p.a
        + n4
        + n6
        + n7
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_7_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in 0..4 {
        let mut a1 = ((x[1] + x[(i + 2) % 4]) + (0.8_f64).mul_add(s, x[(i + 1) % 4]));
        if (p.a).cos().max((p.w[i % 3] * (-0.4_f64))) <= (-0.3_f64).min(out[3]) {
            a1 = a1;
        } else {
            a1 = a1 - (x[1] * x[(i + 3) % 4]).hypot(1.0);
        }
        let f2 = move |v: f64| v * a1;
        let n3 = f2(((-1.4_f64).signum() * (p.a)).sin());
        out[(i + 2) % 4] = x[1];
    }
    let n4 = if ((out.iter().fold(0.0, |acc, v| acc * (-0.3_f64) + s))
        * (out.iter().fold(0.0, |acc, v| acc * (-0.3_f64) + s))
        + 1.0)
        .ln()
        <= x.iter().map(|v| *v).sum::<f64>()
    {
        ((-1.5_f64) + x[2]).sin()
    } else {
        out[2]
    };
    let mut a5 = p.w[0];
    a5 -= (x[0] + s).cos();
    a5 *= (-0.4_f64);
    let (n6, n7) = (((x[3]).atan() * (x[1]).sin()), x[2]);
    a5 = a5 * (0.7_f64) + s.mul_add(x[2], (out[3]).tanh());
    x.windows(2).map(|w| (w[1] - w[0]) * (1.8_f64)).sum::<f64>()
        + p.a
        + n4
        + n6
        + n7
        + out.iter().copied().sum::<f64>()
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
    for i in 0..4 {
        let mut a1 = ((x[1] + x[(i + 2) % 4]) + (T::from(0.8).unwrap()).mul_add(s, x[(i + 1) % 4]));
        if (p.a).cos().max((p.w[i % 3] * T::from(-0.4).unwrap()))
            <= (T::from(-0.3).unwrap()).min(out[3])
        {
            a1 = a1;
        } else {
            a1 = a1 - (x[1] * x[(i + 3) % 4]).hypot(T::one());
        }
        let f2 = move |v: T| v * a1;
        let n3 = f2(((T::from(-1.4).unwrap()).signum() * (p.a)).sin());
        out[(i + 2) % 4] = x[1];
    }
    let n4 = if ((out
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.3).unwrap() + s))
        * (out
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(-0.3).unwrap() + s))
        + T::one())
    .ln()
        <= x.iter().map(|v| *v).sum::<T>()
    {
        (T::from(-1.5).unwrap() + x[2]).sin()
    } else {
        out[2]
    };
    let mut a5 = p.w[0];
    a5 -= (x[0] + s).cos();
    a5 *= T::from(-0.4).unwrap();
    let (n6, n7) = (((x[3]).atan() * (x[1]).sin()), x[2]);
    a5 = a5 * T::from(0.7).unwrap() + s.mul_add(x[2], (out[3]).tanh());
    x.windows(2)
        .map(|w| (w[1] - w[0]) * T::from(1.8).unwrap())
        .sum::<T>()
        + p.a
        + n4
        + n6
        + n7
        + out.iter().copied().sum::<T>()
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
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    out[2] = out[2] * (out[0]).max(s).powi(2) + x[3];
    let n3 = if x[3] < (s / (T::from(1.5).unwrap() + (x[1]) * (x[1]))) {
        (x.iter().step_by(2).map(|v| *v).sum::<T>()).powi(2)
    } else {
        (m1.tanh()).cos()
    };
    t2 = t2 * T::from(-0.5).unwrap()
        + x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(1.8).unwrap())
            .sum::<T>();
    (T::from(-1.5).unwrap() - x[3]) + m1 + t2 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_8_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut m1 = x[0];
    let mut t2 = 0.0;
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    out[2] = out[2] * (out[0]).max(s).powi(2) + x[3];
    let n3 = if x[3] < (s / ((1.5_f64) + (x[1]) * (x[1]))) {
        (x.iter().step_by(2).map(|v| *v).sum::<f64>()).powi(2)
    } else {
        (m1.tanh()).cos()
    };
    t2 = t2 * (-0.5_f64) + x.windows(2).map(|w| (w[1] - w[0]) * (1.8_f64)).sum::<f64>();
    ((-1.5_f64) - x[3]) + m1 + t2 + out.iter().copied().sum::<f64>()
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
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    out[2] = out[2] * (out[0]).max(s).powi(2) + x[3];
    let n3 = if x[3] < (s / (T::from(1.5).unwrap() + (x[1]) * (x[1]))) {
        (x.iter().step_by(2).map(|v| *v).sum::<T>()).powi(2)
    } else {
        (m1.tanh()).cos()
    };
    t2 = t2 * T::from(-0.5).unwrap()
        + x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(1.8).unwrap())
            .sum::<T>();
    (T::from(-1.5).unwrap() - x[3]) + m1 + t2 + out.iter().copied().sum::<T>()
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
    let n1 = (T::from(-0.7).unwrap()).powi(2);
    if x[3] < (x[2]).atan() {
        return (s.sin()).hypot(T::one());
    }
    let mut b2 = x.to_vec();
    let k3 = (n1 + x[0]);
    b2[1] += k3;
    let n4 = helper_soft(
        ((x[3]) * (x[3]) + T::one()).sqrt().min(n1.cos()),
        (b2[2]).abs().min((p.b).min(s)),
    );
    for v in b2.iter_mut() {
        *v = (*v).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    }
    let f5 = move |v: T| (v * v + T::one()).ln() * n4;
    let n6 = f5(n4);
    (x[3] + (T::from(0.7).unwrap()).sin()) + p.a + n1 + b2.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_9_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let n1 = (-0.7_f64).powi(2);
    if x[3] < (x[2]).atan() {
        return (s.sin()).hypot(1.0);
    }
    let mut b2 = x.to_vec();
    let k3 = (n1 + x[0]);
    b2[1] += k3;
    let n4 = helper_soft(
        ((x[3]) * (x[3]) + 1.0).sqrt().min(n1.cos()),
        (b2[2]).abs().min((p.b).min(s)),
    );
    for v in b2.iter_mut() {
        *v = (*v).clamp((-0.8_f64), (0.9_f64));
    }
    let f5 = move |v: f64| (v * v + 1.0).ln() * n4;
    let n6 = f5(n4);
    (x[3] + (0.7_f64).sin()) + p.a + n1 + b2.iter().copied().sum::<f64>()
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
    let n1 = (T::from(-0.7).unwrap()).powi(2);
    if x[3] < (x[2]).atan() {
        return (s.sin()).hypot(T::one());
    }
    let mut b2 = x.to_vec();
    let k3 = (n1 + x[0]);
    b2[1] += k3;
    let n4 = helper_soft_on_duals(
        ((x[3]) * (x[3]) + T::one()).sqrt().min(n1.cos()),
        (b2[2]).abs().min((p.b).min(s)),
    );
    for v in b2.iter_mut() {
        *v = (*v).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    }
    let f5 = move |v: T| (v * v + T::one()).ln() * n4;
    let n6 = f5(n4);
    (x[3] + (T::from(0.7).unwrap()).sin()) + p.a + n1 + b2.iter().copied().sum::<T>()
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
    let mut a1 = x[1];
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    let (n2, n3) = helper_pair(
        ((s + a1) * (s + a1) + T::one()).sqrt(),
        (s + x[3]).tanh().exp(),
    );
    let mut r6 = (x[3]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap() + T::from(-1.9).unwrap()).sin();
        k5 += 1;
        if k5 == 3 {
            break r6 * r6;
        }
    };
    let n7 = if s > (x[0]).powi(2) {
        s.max(s)
    } else {
        (x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-0.2).unwrap())
            .sum::<T>()
            - n2.hypot(T::one()))
    };
    let mut b8 = x.to_vec();
    let k9 = x[3];
    b8[3] += k9;
    (x[2]).max(n3) + a1 + n7 + b8.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_10_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = x[1];
    for pair in x.chunks(2) {
        a1 = a1 * (-0.5_f64) + pair[0] * pair[1].tanh();
    }
    let (n2, n3) = helper_pair(((s + a1) * (s + a1) + 1.0).sqrt(), (s + x[3]).tanh().exp());
    let mut r6 = (x[3]).clamp((-0.8_f64), (0.9_f64));
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * (0.7_f64) + (-1.9_f64)).sin();
        k5 += 1;
        if k5 == 3 {
            break r6 * r6;
        }
    };
    let n7 = if s > (x[0]).powi(2) {
        s.max(s)
    } else {
        (x.windows(2)
            .map(|w| (w[1] - w[0]) * (-0.2_f64))
            .sum::<f64>()
            - n2.hypot(1.0))
    };
    let mut b8 = x.to_vec();
    let k9 = x[3];
    b8[3] += k9;
    (x[2]).max(n3) + a1 + n7 + b8.iter().copied().sum::<f64>()
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
    let mut a1 = x[1];
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    let (n2, n3) = helper_pair_on_duals(
        ((s + a1) * (s + a1) + T::one()).sqrt(),
        (s + x[3]).tanh().exp(),
    );
    let mut r6 = (x[3]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap() + T::from(-1.9).unwrap()).sin();
        k5 += 1;
        if k5 == 3 {
            break r6 * r6;
        }
    };
    let n7 = if s > (x[0]).powi(2) {
        s.max(s)
    } else {
        (x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-0.2).unwrap())
            .sum::<T>()
            - n2.hypot(T::one()))
    };
    let mut b8 = x.to_vec();
    let k9 = x[3];
    b8[3] += k9;
    (x[2]).max(n3) + a1 + n7 + b8.iter().copied().sum::<T>()
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
    let f1 = move |v: T| ((s.max(v)) * (s.max(v)) + T::one()).sqrt();
    let n2 = f1(((x[3]).min(s) * (s * s + T::one()).ln()));
    for v in out.iter_mut() {
        *v = (*v).atan();
    }
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-0.5).unwrap() + out[i].tanh();
    }
    let n3 = helper_soft(
        (T::from(1.7).unwrap()).tanh(),
        out.iter().rev().map(|v| s).sum::<T>(),
    );
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (s.mul_add(T::from(0.8).unwrap(), *o) * (s * s + T::one()).ln())
            * T::from(0.9).unwrap()
            + (*v).sin();
    }
    for v in out.iter_mut() {
        *v = (*v).min(s.min(*v));
    }
    (T::from(0.3).unwrap()).powi(3).cos() + n3 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_11_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let f1 = move |v: f64| ((s.max(v)) * (s.max(v)) + 1.0).sqrt();
    let n2 = f1(((x[3]).min(s) * (s * s + 1.0).ln()));
    for v in out.iter_mut() {
        *v = (*v).atan();
    }
    for i in 1..4 {
        out[i] = out[i - 1] * (-0.5_f64) + out[i].tanh();
    }
    let n3 = helper_soft((1.7_f64).tanh(), out.iter().rev().map(|v| s).sum::<f64>());
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (s.mul_add((0.8_f64), *o) * (s * s + 1.0).ln()) * (0.9_f64) + (*v).sin();
    }
    for v in out.iter_mut() {
        *v = (*v).min(s.min(*v));
    }
    (0.3_f64).powi(3).cos() + n3 + out.iter().copied().sum::<f64>()
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
    let f1 = move |v: T| ((s.max(v)) * (s.max(v)) + T::one()).sqrt();
    let n2 = f1(((x[3]).min(s) * (s * s + T::one()).ln()));
    for v in out.iter_mut() {
        *v = (*v).atan();
    }
    for i in 1..4 {
        out[i] = out[i - 1] * T::from(-0.5).unwrap() + out[i].tanh();
    }
    let n3 = helper_soft_on_duals(
        (T::from(1.7).unwrap()).tanh(),
        out.iter().rev().map(|v| s).sum::<T>(),
    );
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (s.mul_add(T::from(0.8).unwrap(), *o) * (s * s + T::one()).ln())
            * T::from(0.9).unwrap()
            + (*v).sin();
    }
    for v in out.iter_mut() {
        *v = (*v).min(s.min(*v));
    }
    (T::from(0.3).unwrap()).powi(3).cos() + n3 + out.iter().copied().sum::<T>()
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
        *v = (*v + *v).atan();
    }
    for v in out.iter_mut() {
        *v = (T::from(-0.8).unwrap()).max(*v);
    }
    let mut a1 = (s * x[3]).sin();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[1] * x[j]).sin() >= (out[(j + 1) % 4] - out[(j + 3) % 4]) {
                break 'outer;
            }
            a1 = (a1 + (T::from(1.9).unwrap()).tanh() * x[i]).tanh();
        }
    }
    (x[0]).tanh().powi(3) + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_12_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for v in out.iter_mut() {
        *v = (*v + *v).atan();
    }
    for v in out.iter_mut() {
        *v = (-0.8_f64).max(*v);
    }
    let mut a1 = (s * x[3]).sin();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[1] * x[j]).sin() >= (out[(j + 1) % 4] - out[(j + 3) % 4]) {
                break 'outer;
            }
            a1 = (a1 + (1.9_f64).tanh() * x[i]).tanh();
        }
    }
    (x[0]).tanh().powi(3) + out.iter().copied().sum::<f64>()
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
        *v = (*v + *v).atan();
    }
    for v in out.iter_mut() {
        *v = (T::from(-0.8).unwrap()).max(*v);
    }
    let mut a1 = (s * x[3]).sin();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[1] * x[j]).sin() >= (out[(j + 1) % 4] - out[(j + 3) % 4]) {
                break 'outer;
            }
            a1 = (a1 + (T::from(1.9).unwrap()).tanh() * x[i]).tanh();
        }
    }
    (x[0]).tanh().powi(3) + out.iter().copied().sum::<T>()
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
    let mut a1 = p.b;
    'outer: for i in 0..4 {
        for j in 0..4 {
            if out[(j + 1) % 4] < (x[(j + 1) % 4]).powi(3) {
                break 'outer;
            }
            a1 = (a1
                + (T::from(0.2).unwrap())
                    .mul_add(T::from(-0.7).unwrap(), x[j])
                    .max((a1 - a1))
                    * x[i])
                .tanh();
        }
    }
    out[1] = out[1] * ((T::from(1.4).unwrap()) * (T::from(1.4).unwrap()) + T::one()).powf(s.tanh())
        + out[0];
    out[2] = (x[0]).atan();
    let mut k2 = 0;
    while k2 < 1 {
        a1 = (a1
            + (out
                .iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
            .hypot(T::one()))
        .tanh();
        k2 += 1;
    }
    let n3 = p.w.iter().take(3).map(|v| s).sum::<T>();
    for i in (0..4).rev() {
        if p.w.iter().map(|v| s).sum::<T>() <= p.v[i] {
            a1 = s;
        } else {
            a1 = a1
                - x.iter()
                    .enumerate()
                    .map(|(k, v)| *v * T::from(k + 1).unwrap())
                    .sum::<T>();
        }
        a1 += s;
        a1 *= T::from(-0.8).unwrap();
    }
    (out[3] + x[3]) + p.v[2] + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_13_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = p.b;
    'outer: for i in 0..4 {
        for j in 0..4 {
            if out[(j + 1) % 4] < (x[(j + 1) % 4]).powi(3) {
                break 'outer;
            }
            a1 = (a1 + (0.2_f64).mul_add((-0.7_f64), x[j]).max((a1 - a1)) * x[i]).tanh();
        }
    }
    out[1] = out[1] * ((1.4_f64) * (1.4_f64) + 1.0).powf(s.tanh()) + out[0];
    out[2] = (x[0]).atan();
    let mut k2 = 0;
    while k2 < 1 {
        a1 = (a1
            + (out
                .iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>())
            .hypot(1.0))
        .tanh();
        k2 += 1;
    }
    let n3 = p.w.iter().take(3).map(|v| s).sum::<f64>();
    for i in (0..4).rev() {
        if p.w.iter().map(|v| s).sum::<f64>() <= p.v[i] {
            a1 = s;
        } else {
            a1 = a1
                - x.iter()
                    .enumerate()
                    .map(|(k, v)| *v * ((k + 1) as f64))
                    .sum::<f64>();
        }
        a1 += s;
        a1 *= (-0.8_f64);
    }
    (out[3] + x[3]) + p.v[2] + out.iter().copied().sum::<f64>()
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
    let mut a1 = p.b;
    'outer: for i in 0..4 {
        for j in 0..4 {
            if out[(j + 1) % 4] < (x[(j + 1) % 4]).powi(3) {
                break 'outer;
            }
            a1 = (a1
                + (T::from(0.2).unwrap())
                    .mul_add(T::from(-0.7).unwrap(), x[j])
                    .max((a1 - a1))
                    * x[i])
                .tanh();
        }
    }
    out[1] = out[1] * ((T::from(1.4).unwrap()) * (T::from(1.4).unwrap()) + T::one()).powf(s.tanh())
        + out[0];
    out[2] = (x[0]).atan();
    let mut k2 = 0;
    while k2 < 1 {
        a1 = (a1
            + (out
                .iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
            .hypot(T::one()))
        .tanh();
        k2 += 1;
    }
    let n3 = p.w.iter().take(3).map(|v| s).sum::<T>();
    for i in (0..4).rev() {
        if p.w.iter().map(|v| s).sum::<T>() <= p.v[i] {
            a1 = s;
        } else {
            a1 = a1
                - x.iter()
                    .enumerate()
                    .map(|(k, v)| *v * T::from(k + 1).unwrap())
                    .sum::<T>();
        }
        a1 += s;
        a1 *= T::from(-0.8).unwrap();
    }
    (out[3] + x[3]) + p.v[2] + out.iter().copied().sum::<T>()
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
    let mut a1 = x[0];
    if x.iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>()
        <= (x[1] / (T::from(1.5).unwrap() + (T::from(0.9).unwrap()) * (T::from(0.9).unwrap())))
    {
        a1 = ((a1 - T::from(-1.7).unwrap()).atan() - (x[0]).tanh());
    } else {
        a1 = a1 - (T::from(0.2).unwrap() - (x[3] + a1));
    }
    for i in 0..4 {
        let mut r4 = x.iter().fold(T::zero(), |acc, v| {
            acc * T::from(0.2).unwrap() + T::from(-0.8).unwrap()
        });
        let mut k3 = 0;
        let n2 = loop {
            r4 = (r4 * T::from(0.7).unwrap() + x[1]).sin();
            k3 += 1;
            if k3 == 2 {
                break r4 * r4;
            }
        };
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if x[j] > (x[3] + x[0]) {
                break 'outer;
            }
            a1 = (a1 + (((x[j]) * (x[j]) + T::one()).ln() * (x[3]).min(a1)) * x[i]).tanh();
        }
    }
    let mut k5 = 0;
    while k5 < 2 {
        a1 = (a1 + T::from(-1.9).unwrap()).tanh();
        k5 += 1;
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.1).unwrap() + pair[0] * pair[1].tanh();
    }
    (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()).hypot(T::one())
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_14_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = x[0];
    if x.iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>()
        <= (x[1] / ((1.5_f64) + (0.9_f64) * (0.9_f64)))
    {
        a1 = ((a1 - (-1.7_f64)).atan() - (x[0]).tanh());
    } else {
        a1 = a1 - ((0.2_f64) - (x[3] + a1));
    }
    for i in 0..4 {
        let mut r4 = x.iter().fold(0.0, |acc, v| acc * (0.2_f64) + (-0.8_f64));
        let mut k3 = 0;
        let n2 = loop {
            r4 = (r4 * (0.7_f64) + x[1]).sin();
            k3 += 1;
            if k3 == 2 {
                break r4 * r4;
            }
        };
    }
    for pair in x.chunks(2) {
        a1 = a1 * (-0.7_f64) + pair[0] * pair[1].tanh();
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if x[j] > (x[3] + x[0]) {
                break 'outer;
            }
            a1 = (a1 + (((x[j]) * (x[j]) + 1.0).ln() * (x[3]).min(a1)) * x[i]).tanh();
        }
    }
    let mut k5 = 0;
    while k5 < 2 {
        a1 = (a1 + (-1.9_f64)).tanh();
        k5 += 1;
    }
    for pair in x.chunks(2) {
        a1 = a1 * (0.1_f64) + pair[0] * pair[1].tanh();
    }
    (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>()).hypot(1.0)
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
    let mut a1 = x[0];
    if x.iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>()
        <= (x[1] / (T::from(1.5).unwrap() + (T::from(0.9).unwrap()) * (T::from(0.9).unwrap())))
    {
        a1 = ((a1 - T::from(-1.7).unwrap()).atan() - (x[0]).tanh());
    } else {
        a1 = a1 - (T::from(0.2).unwrap() - (x[3] + a1));
    }
    for i in 0..4 {
        let mut r4 = x.iter().fold(T::zero(), |acc, v| {
            acc * T::from(0.2).unwrap() + T::from(-0.8).unwrap()
        });
        let mut k3 = 0;
        let n2 = loop {
            r4 = (r4 * T::from(0.7).unwrap() + x[1]).sin();
            k3 += 1;
            if k3 == 2 {
                break r4 * r4;
            }
        };
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if x[j] > (x[3] + x[0]) {
                break 'outer;
            }
            a1 = (a1 + (((x[j]) * (x[j]) + T::one()).ln() * (x[3]).min(a1)) * x[i]).tanh();
        }
    }
    let mut k5 = 0;
    while k5 < 2 {
        a1 = (a1 + T::from(-1.9).unwrap()).tanh();
        k5 += 1;
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.1).unwrap() + pair[0] * pair[1].tanh();
    }
    (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()).hypot(T::one())
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
    for i in 0..4 {
        let k1 = x
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(1.0).unwrap())
            .sum::<T>();
        out[(i + 1) % 4] += k1;
        let mut a2 = x
            .iter()
            .skip(1)
            .map(|v| (T::from(1.8).unwrap()).sin())
            .sum::<T>();
        if (a2.mul_add(s, x[i])).tanh().exp()
            <= (x[0]
                / (T::from(1.5).unwrap() + (T::from(-0.7).unwrap()) * (T::from(-0.7).unwrap())))
        {
            a2 = s;
        } else {
            a2 = a2 - (s - a2);
        }
        let n3 = (((out[(i + 1) % 4] + out[i]) - s.atan()) * ((x[i]).tanh().exp() - (s * x[i])));
    }
    let mut a4 = x.iter().step_by(2).map(|v| *v).sum::<T>();
    if let Some(v) = x.last() {
        a4 = a4 * T::from(0.6).unwrap() + (*v).sin();
    }
    if (out[3]).max(T::from(0.3).unwrap()).sin() >= s.hypot(T::one()) {
        a4 = (x[1]).tanh().exp();
    } else {
        a4 = a4 - s;
    }
    let k5 = ((a4 * x[1]) / (T::from(1.5).unwrap() + (a4 * s) * (a4 * s)));
    helper_smooth(&mut *out, k5);
    for pair in out.chunks(2) {
        a4 = a4 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    a4.atan() + a4 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_15_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for i in 0..4 {
        let k1 = x.windows(2).map(|w| (w[1] - w[0]) * (1.0_f64)).sum::<f64>();
        out[(i + 1) % 4] += k1;
        let mut a2 = x.iter().skip(1).map(|v| (1.8_f64).sin()).sum::<f64>();
        if (a2.mul_add(s, x[i])).tanh().exp() <= (x[0] / ((1.5_f64) + (-0.7_f64) * (-0.7_f64))) {
            a2 = s;
        } else {
            a2 = a2 - (s - a2);
        }
        let n3 = (((out[(i + 1) % 4] + out[i]) - s.atan()) * ((x[i]).tanh().exp() - (s * x[i])));
    }
    let mut a4 = x.iter().step_by(2).map(|v| *v).sum::<f64>();
    if let Some(v) = x.last() {
        a4 = a4 * (0.6_f64) + (*v).sin();
    }
    if (out[3]).max((0.3_f64)).sin() >= s.hypot(1.0) {
        a4 = (x[1]).tanh().exp();
    } else {
        a4 = a4 - s;
    }
    let k5 = ((a4 * x[1]) / ((1.5_f64) + (a4 * s) * (a4 * s)));
    helper_smooth(&mut *out, k5);
    for pair in out.chunks(2) {
        a4 = a4 * (-0.5_f64) + pair[0] * pair[1].tanh();
    }
    a4.atan() + a4 + out.iter().copied().sum::<f64>()
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
    for i in 0..4 {
        let k1 = x
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(1.0).unwrap())
            .sum::<T>();
        out[(i + 1) % 4] += k1;
        let mut a2 = x
            .iter()
            .skip(1)
            .map(|v| (T::from(1.8).unwrap()).sin())
            .sum::<T>();
        if (a2.mul_add(s, x[i])).tanh().exp()
            <= (x[0]
                / (T::from(1.5).unwrap() + (T::from(-0.7).unwrap()) * (T::from(-0.7).unwrap())))
        {
            a2 = s;
        } else {
            a2 = a2 - (s - a2);
        }
        let n3 = (((out[(i + 1) % 4] + out[i]) - s.atan()) * ((x[i]).tanh().exp() - (s * x[i])));
    }
    let mut a4 = x.iter().step_by(2).map(|v| *v).sum::<T>();
    if let Some(v) = x.last() {
        a4 = a4 * T::from(0.6).unwrap() + (*v).sin();
    }
    if (out[3]).max(T::from(0.3).unwrap()).sin() >= s.hypot(T::one()) {
        a4 = (x[1]).tanh().exp();
    } else {
        a4 = a4 - s;
    }
    let k5 = ((a4 * x[1]) / (T::from(1.5).unwrap() + (a4 * s) * (a4 * s)));
    helper_smooth_on_duals(&mut *out, k5);
    for pair in out.chunks(2) {
        a4 = a4 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    a4.atan() + a4 + out.iter().copied().sum::<T>()
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
    a1 = a1 * T::from(-1.0).unwrap() + x[3];
    for i in 0..4 {
        let k2 = (a1 - (x[3] * x[0]));
        out[(i + 2) % 4] += k2;
        for i in 0..4 {
            out[2] = x[(i + 3) % 4];
        }
    }
    let mut k3 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap() + ((s * x[2]).cos()).tanh();
        k3 += 1;
        if k3 >= 3 {
            break;
        }
    }
    let k4 = ((x[3] * a1) - (T::from(0.1).unwrap()).mul_add(s, a1));
    out[1] += k4;
    out[1] = out.iter().map(|v| (s.tanh()).powi(3)).sum::<T>();
    for v in out.iter_mut() {
        *v = ((*v).min(*v) * ((T::from(-0.7).unwrap()) * (T::from(-0.7).unwrap()) + T::one()).ln());
    }
    ((x[3]) * (x[3]) + T::one()).ln().tanh().exp() + a1 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_16_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = (-1.2_f64);
    a1 = a1 * (-1.0_f64) + x[3];
    for i in 0..4 {
        let k2 = (a1 - (x[3] * x[0]));
        out[(i + 2) % 4] += k2;
        for i in 0..4 {
            out[2] = x[(i + 3) % 4];
        }
    }
    let mut k3 = 0;
    loop {
        a1 = a1 * (0.5_f64) + ((s * x[2]).cos()).tanh();
        k3 += 1;
        if k3 >= 3 {
            break;
        }
    }
    let k4 = ((x[3] * a1) - (0.1_f64).mul_add(s, a1));
    out[1] += k4;
    out[1] = out.iter().map(|v| (s.tanh()).powi(3)).sum::<f64>();
    for v in out.iter_mut() {
        *v = ((*v).min(*v) * ((-0.7_f64) * (-0.7_f64) + 1.0).ln());
    }
    ((x[3]) * (x[3]) + 1.0).ln().tanh().exp() + a1 + out.iter().copied().sum::<f64>()
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
    a1 = a1 * T::from(-1.0).unwrap() + x[3];
    for i in 0..4 {
        let k2 = (a1 - (x[3] * x[0]));
        out[(i + 2) % 4] += k2;
        for i in 0..4 {
            out[2] = x[(i + 3) % 4];
        }
    }
    let mut k3 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap() + ((s * x[2]).cos()).tanh();
        k3 += 1;
        if k3 >= 3 {
            break;
        }
    }
    let k4 = ((x[3] * a1) - (T::from(0.1).unwrap()).mul_add(s, a1));
    out[1] += k4;
    out[1] = out.iter().map(|v| (s.tanh()).powi(3)).sum::<T>();
    for v in out.iter_mut() {
        *v = ((*v).min(*v) * ((T::from(-0.7).unwrap()) * (T::from(-0.7).unwrap()) + T::one()).ln());
    }
    ((x[3]) * (x[3]) + T::one()).ln().tanh().exp() + a1 + out.iter().copied().sum::<T>()
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
    let mut a1 = ((s.powi(3)) * (s.powi(3)) + T::one()).sqrt();
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.6).unwrap() + pair[0] * pair[1].tanh();
    }
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(-0.2).unwrap() + *w * (*v).sin();
    }
    let n2 = (p.b).tanh().mul_add(
        (p.w[2] - x[2]).max(((x[0]) * (x[0]) + T::one()).sqrt()),
        ((p.b).tanh().exp() * (s - s)),
    );
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = T::from(1.2).unwrap();
    }
    for i in 1..4 {
        b3[i] = b3[i - 1] * T::from(-1.0).unwrap() + b3[i].tanh();
    }
    if ((s - s) + (T::from(0.8).unwrap()).tanh()) >= (p.a).sin() {
        return (T::from(-1.8).unwrap()
            / (T::from(1.5).unwrap() + (T::from(-1.6).unwrap()) * (T::from(-1.6).unwrap())))
        .hypot(T::one());
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if x.windows(2)
                .map(|w| (w[1] - w[0]) * T::from(-1.4).unwrap())
                .sum::<T>()
                >= (p.v[0]).abs()
            {
                break 'outer;
            }
            a1 = (a1 + ((T::from(1.3).unwrap() * s) + (n2 + x[j])) * x[i]).tanh();
        }
    }
    (x.iter()
        .step_by(2)
        .map(|v| T::from(-0.7).unwrap())
        .sum::<T>())
    .hypot(T::one())
        + p.a
        + b3.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_17_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let mut a1 = ((s.powi(3)) * (s.powi(3)) + 1.0).sqrt();
    for pair in x.chunks(2) {
        a1 = a1 * (0.6_f64) + pair[0] * pair[1].tanh();
    }
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * (-0.2_f64) + *w * (*v).sin();
    }
    let n2 = (p.b).tanh().mul_add(
        (p.w[2] - x[2]).max(((x[0]) * (x[0]) + 1.0).sqrt()),
        ((p.b).tanh().exp() * (s - s)),
    );
    let mut b3 = vec![0.0; 4];
    for i in 0..4 {
        b3[i] = (1.2_f64);
    }
    for i in 1..4 {
        b3[i] = b3[i - 1] * (-1.0_f64) + b3[i].tanh();
    }
    if ((s - s) + (0.8_f64).tanh()) >= (p.a).sin() {
        return ((-1.8_f64) / ((1.5_f64) + (-1.6_f64) * (-1.6_f64))).hypot(1.0);
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if x.windows(2)
                .map(|w| (w[1] - w[0]) * (-1.4_f64))
                .sum::<f64>()
                >= (p.v[0]).abs()
            {
                break 'outer;
            }
            a1 = (a1 + (((1.3_f64) * s) + (n2 + x[j])) * x[i]).tanh();
        }
    }
    (x.iter().step_by(2).map(|v| (-0.7_f64)).sum::<f64>()).hypot(1.0)
        + p.a
        + b3.iter().copied().sum::<f64>()
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
    let mut a1 = ((s.powi(3)) * (s.powi(3)) + T::one()).sqrt();
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.6).unwrap() + pair[0] * pair[1].tanh();
    }
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a1 = a1 * T::from(-0.2).unwrap() + *w * (*v).sin();
    }
    let n2 = (p.b).tanh().mul_add(
        (p.w[2] - x[2]).max(((x[0]) * (x[0]) + T::one()).sqrt()),
        ((p.b).tanh().exp() * (s - s)),
    );
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = T::from(1.2).unwrap();
    }
    for i in 1..4 {
        b3[i] = b3[i - 1] * T::from(-1.0).unwrap() + b3[i].tanh();
    }
    if ((s - s) + (T::from(0.8).unwrap()).tanh()) >= (p.a).sin() {
        return (T::from(-1.8).unwrap()
            / (T::from(1.5).unwrap() + (T::from(-1.6).unwrap()) * (T::from(-1.6).unwrap())))
        .hypot(T::one());
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if x.windows(2)
                .map(|w| (w[1] - w[0]) * T::from(-1.4).unwrap())
                .sum::<T>()
                >= (p.v[0]).abs()
            {
                break 'outer;
            }
            a1 = (a1 + ((T::from(1.3).unwrap() * s) + (n2 + x[j])) * x[i]).tanh();
        }
    }
    (x.iter()
        .step_by(2)
        .map(|v| T::from(-0.7).unwrap())
        .sum::<T>())
    .hypot(T::one())
        + p.a
        + b3.iter().copied().sum::<T>()
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
    let n1 = ((x[3]) * (x[3]) + T::one()).ln().cos();
    let mut a2 = T::from(1.5).unwrap();
    for pair in x.chunks(2) {
        a2 = a2 * T::from(0.9).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut b3 = x.to_vec();
    let k4 = (s.mul_add(x[0], s) - (T::from(1.0).unwrap()).max(a2));
    helper_smooth(&mut b3, k4);
    let n5 = (x.iter().map(|v| (*v).sin()).sum::<T>() * x[2]);
    for v in b3.iter_mut() {
        *v = (*v).hypot(T::one()).tanh();
    }
    a2 += (n5 * b3[0]).max((s / (T::from(1.5).unwrap() + (b3[1]) * (b3[1]))));
    let k6 = b3[0];
    b3[1] += k6;
    x.iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v)
        + n5
        + b3.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_18_f64(x: &[f64], s: f64) -> f64 {
    let n1 = ((x[3]) * (x[3]) + 1.0).ln().cos();
    let mut a2 = (1.5_f64);
    for pair in x.chunks(2) {
        a2 = a2 * (0.9_f64) + pair[0] * pair[1].tanh();
    }
    let mut b3 = x.to_vec();
    let k4 = (s.mul_add(x[0], s) - (1.0_f64).max(a2));
    helper_smooth(&mut b3, k4);
    let n5 = (x.iter().map(|v| (*v).sin()).sum::<f64>() * x[2]);
    for v in b3.iter_mut() {
        *v = (*v).hypot(1.0).tanh();
    }
    a2 += (n5 * b3[0]).max((s / ((1.5_f64) + (b3[1]) * (b3[1]))));
    let k6 = b3[0];
    b3[1] += k6;
    x.iter().fold(0.0, |acc, v| acc * (0.2_f64) + *v) + n5 + b3.iter().copied().sum::<f64>()
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
    let n1 = ((x[3]) * (x[3]) + T::one()).ln().cos();
    let mut a2 = T::from(1.5).unwrap();
    for pair in x.chunks(2) {
        a2 = a2 * T::from(0.9).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut b3 = x.to_vec();
    let k4 = (s.mul_add(x[0], s) - (T::from(1.0).unwrap()).max(a2));
    helper_smooth_on_duals(&mut b3, k4);
    let n5 = (x.iter().map(|v| (*v).sin()).sum::<T>() * x[2]);
    for v in b3.iter_mut() {
        *v = (*v).hypot(T::one()).tanh();
    }
    a2 += (n5 * b3[0]).max((s / (T::from(1.5).unwrap() + (b3[1]) * (b3[1]))));
    let k6 = b3[0];
    b3[1] += k6;
    x.iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v)
        + n5
        + b3.iter().copied().sum::<T>()
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
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = x.iter().map(|v| *v).sum::<T>();
    }
    let k2 = ((x[1] / (T::from(1.5).unwrap() + (T::from(1.9).unwrap()) * (T::from(1.9).unwrap())))
        * (x[1] / (T::from(1.5).unwrap() + (T::from(1.9).unwrap()) * (T::from(1.9).unwrap())))
        + T::one())
    .powf(T::from(-1.5).unwrap());
    b1[1] += k2;
    let f3 = move |v: T| (T::from(-1.1).unwrap() * v.cos());
    let n4 = f3(T::from(1.2).unwrap());
    let n5 = ((s.tanh().exp()) * (s.tanh().exp()) + T::one()).powf((x[2] * n4));
    for i in (0..4).rev() {
        if (n4 + (x[(i + 1) % 4] * T::from(1.0).unwrap())) <= (s * s + T::one()).sqrt() {
            break;
        }
        let mut a6 = x[i];
        a6 += (T::from(0.1).unwrap() - b1[3]).sin();
    }
    let mut m7 = x[0];
    let mut t8 = T::zero();
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    let k9 = ((b1[2]).cos() * (x[3] / (T::from(1.5).unwrap() + s * s)));
    helper_smooth(&mut b1, k9);
    b1.iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>()
        + n4
        + n5
        + m7
        + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_19_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = vec![0.0; 4];
    for i in 0..4 {
        b1[i] = x.iter().map(|v| *v).sum::<f64>();
    }
    let k2 = ((x[1] / ((1.5_f64) + (1.9_f64) * (1.9_f64)))
        * (x[1] / ((1.5_f64) + (1.9_f64) * (1.9_f64)))
        + 1.0)
        .powf((-1.5_f64));
    b1[1] += k2;
    let f3 = move |v: f64| ((-1.1_f64) * v.cos());
    let n4 = f3((1.2_f64));
    let n5 = ((s.tanh().exp()) * (s.tanh().exp()) + 1.0).powf((x[2] * n4));
    for i in (0..4).rev() {
        if (n4 + (x[(i + 1) % 4] * (1.0_f64))) <= (s * s + 1.0).sqrt() {
            break;
        }
        let mut a6 = x[i];
        a6 += ((0.1_f64) - b1[3]).sin();
    }
    let mut m7 = x[0];
    let mut t8 = 0.0;
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    let k9 = ((b1[2]).cos() * (x[3] / ((1.5_f64) + s * s)));
    helper_smooth(&mut b1, k9);
    b1.iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>()
        + n4
        + n5
        + m7
        + b1.iter().copied().sum::<f64>()
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
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = x.iter().map(|v| *v).sum::<T>();
    }
    let k2 = ((x[1] / (T::from(1.5).unwrap() + (T::from(1.9).unwrap()) * (T::from(1.9).unwrap())))
        * (x[1] / (T::from(1.5).unwrap() + (T::from(1.9).unwrap()) * (T::from(1.9).unwrap())))
        + T::one())
    .powf(T::from(-1.5).unwrap());
    b1[1] += k2;
    let f3 = move |v: T| (T::from(-1.1).unwrap() * v.cos());
    let n4 = f3(T::from(1.2).unwrap());
    let n5 = ((s.tanh().exp()) * (s.tanh().exp()) + T::one()).powf((x[2] * n4));
    for i in (0..4).rev() {
        if (n4 + (x[(i + 1) % 4] * T::from(1.0).unwrap())) <= (s * s + T::one()).sqrt() {
            break;
        }
        let mut a6 = x[i];
        a6 += (T::from(0.1).unwrap() - b1[3]).sin();
    }
    let mut m7 = x[0];
    let mut t8 = T::zero();
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    let k9 = ((b1[2]).cos() * (x[3] / (T::from(1.5).unwrap() + s * s)));
    helper_smooth_on_duals(&mut b1, k9);
    b1.iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>()
        + n4
        + n5
        + m7
        + b1.iter().copied().sum::<T>()
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
    let mut a1 = (s.tanh().exp()).min(s.max(T::from(0.8).unwrap()));
    if x[1] < (T::from(-0.3).unwrap() + x[0]) {
        a1 = ((a1.atan()).tanh().floor() + (out[0]).sin());
    } else {
        a1 = a1 - x.iter().map(|v| (*v).hypot(T::one())).sum::<T>();
    }
    for pair in out.chunks(2) {
        a1 = a1 * T::from(-0.6).unwrap() + pair[0] * pair[1].tanh();
    }
    out[1] = (a1.max(out.iter().rev().map(|v| T::from(1.9).unwrap()).sum::<T>()))
        .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    let k2 = ((out[0]).atan() * (out[0]).atan() + T::one()).sqrt();
    out[2] += k2;
    for v in out.iter_mut() {
        *v = (*v / (T::from(1.5).unwrap() + (T::from(0.2).unwrap()) * (T::from(0.2).unwrap())))
            .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    }
    x[1] + a1 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_20_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = (s.tanh().exp()).min(s.max((0.8_f64)));
    if x[1] < ((-0.3_f64) + x[0]) {
        a1 = ((a1.atan()).tanh().floor() + (out[0]).sin());
    } else {
        a1 = a1 - x.iter().map(|v| (*v).hypot(1.0)).sum::<f64>();
    }
    for pair in out.chunks(2) {
        a1 = a1 * (-0.6_f64) + pair[0] * pair[1].tanh();
    }
    out[1] =
        (a1.max(out.iter().rev().map(|v| (1.9_f64)).sum::<f64>())).clamp((-0.8_f64), (0.9_f64));
    let k2 = ((out[0]).atan() * (out[0]).atan() + 1.0).sqrt();
    out[2] += k2;
    for v in out.iter_mut() {
        *v = (*v / ((1.5_f64) + (0.2_f64) * (0.2_f64))).clamp((-0.8_f64), (0.9_f64));
    }
    x[1] + a1 + out.iter().copied().sum::<f64>()
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
    let mut a1 = (s.tanh().exp()).min(s.max(T::from(0.8).unwrap()));
    if x[1] < (T::from(-0.3).unwrap() + x[0]) {
        a1 = ((a1.atan()).tanh().floor() + (out[0]).sin());
    } else {
        a1 = a1 - x.iter().map(|v| (*v).hypot(T::one())).sum::<T>();
    }
    for pair in out.chunks(2) {
        a1 = a1 * T::from(-0.6).unwrap() + pair[0] * pair[1].tanh();
    }
    out[1] = (a1.max(out.iter().rev().map(|v| T::from(1.9).unwrap()).sum::<T>()))
        .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    let k2 = ((out[0]).atan() * (out[0]).atan() + T::one()).sqrt();
    out[2] += k2;
    for v in out.iter_mut() {
        *v = (*v / (T::from(1.5).unwrap() + (T::from(0.2).unwrap()) * (T::from(0.2).unwrap())))
            .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap());
    }
    x[1] + a1 + out.iter().copied().sum::<T>()
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
    let mut a1 = (s - (T::from(-1.2).unwrap() / (T::from(1.5).unwrap() + s * s)));
    let mut k2 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap() + (x[0]).tanh();
        k2 += 1;
        if k2 >= 1 {
            break;
        }
    }
    let n3 = (x[0]).tanh().exp();
    let mut r6 = a1.powi(3);
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap() + ((s * x[1]) * (a1 - x[2]))).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    if ((x[3] / (T::from(1.5).unwrap() + (x[3]) * (x[3])))
        * (x[3] / (T::from(1.5).unwrap() + (x[3]) * (x[3])))
        + T::one())
    .sqrt()
        >= (T::from(1.2).unwrap() + s)
    {
        return s.min(x[0]);
    }
    s.min(T::from(1.0).unwrap()) + n3 + n4
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_21_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (s - ((-1.2_f64) / ((1.5_f64) + s * s)));
    let mut k2 = 0;
    loop {
        a1 = a1 * (0.5_f64) + (x[0]).tanh();
        k2 += 1;
        if k2 >= 1 {
            break;
        }
    }
    let n3 = (x[0]).tanh().exp();
    let mut r6 = a1.powi(3);
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * (0.7_f64) + ((s * x[1]) * (a1 - x[2]))).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    if ((x[3] / ((1.5_f64) + (x[3]) * (x[3]))) * (x[3] / ((1.5_f64) + (x[3]) * (x[3]))) + 1.0)
        .sqrt()
        >= ((1.2_f64) + s)
    {
        return s.min(x[0]);
    }
    s.min((1.0_f64)) + n3 + n4
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
    let mut a1 = (s - (T::from(-1.2).unwrap() / (T::from(1.5).unwrap() + s * s)));
    let mut k2 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap() + (x[0]).tanh();
        k2 += 1;
        if k2 >= 1 {
            break;
        }
    }
    let n3 = (x[0]).tanh().exp();
    let mut r6 = a1.powi(3);
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap() + ((s * x[1]) * (a1 - x[2]))).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    if ((x[3] / (T::from(1.5).unwrap() + (x[3]) * (x[3])))
        * (x[3] / (T::from(1.5).unwrap() + (x[3]) * (x[3])))
        + T::one())
    .sqrt()
        >= (T::from(1.2).unwrap() + s)
    {
        return s.min(x[0]);
    }
    s.min(T::from(1.0).unwrap()) + n3 + n4
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
    let n1 = if (x[3]).tanh().exp() <= (x[2]).tanh().exp() {
        ((x[3] / (T::from(1.5).unwrap() + s * s)) / (T::from(1.5).unwrap() + (x[1]) * (x[1])))
    } else {
        ((T::from(0.8).unwrap()).sin() * (T::from(-0.1).unwrap()).sin())
    };
    let mut a2 = x[0];
    a2 -= s.cos();
    for i in 0..4 {
        let mut b3 = x.to_vec();
        let k4 = T::from(-0.1).unwrap();
        b3[i] += k4;
    }
    let f5 = move |v: T| ((s.hypot(T::one())) * (s.hypot(T::one())) + T::one()).ln() * a2;
    let n6 = f5((x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .cos());
    (f5(x[3])).tanh() + n1 + n6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_22_f64(x: &[f64], s: f64) -> f64 {
    let n1 = if (x[3]).tanh().exp() <= (x[2]).tanh().exp() {
        ((x[3] / ((1.5_f64) + s * s)) / ((1.5_f64) + (x[1]) * (x[1])))
    } else {
        ((0.8_f64).sin() * (-0.1_f64).sin())
    };
    let mut a2 = x[0];
    a2 -= s.cos();
    for i in 0..4 {
        let mut b3 = x.to_vec();
        let k4 = (-0.1_f64);
        b3[i] += k4;
    }
    let f5 = move |v: f64| ((s.hypot(1.0)) * (s.hypot(1.0)) + 1.0).ln() * a2;
    let n6 = f5((x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>())
    .cos());
    (f5(x[3])).tanh() + n1 + n6
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
    let n1 = if (x[3]).tanh().exp() <= (x[2]).tanh().exp() {
        ((x[3] / (T::from(1.5).unwrap() + s * s)) / (T::from(1.5).unwrap() + (x[1]) * (x[1])))
    } else {
        ((T::from(0.8).unwrap()).sin() * (T::from(-0.1).unwrap()).sin())
    };
    let mut a2 = x[0];
    a2 -= s.cos();
    for i in 0..4 {
        let mut b3 = x.to_vec();
        let k4 = T::from(-0.1).unwrap();
        b3[i] += k4;
    }
    let f5 = move |v: T| ((s.hypot(T::one())) * (s.hypot(T::one())) + T::one()).ln() * a2;
    let n6 = f5((x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .cos());
    (f5(x[3])).tanh() + n1 + n6
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
    let n1 = (p.v.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
        * ((x
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v))
            * (x.iter()
                .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v))
            + T::one())
        .powf(x[3]));
    let mut a2 = (x[3]).sin();
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a2 = a2 * T::from(-0.7).unwrap() + *w * (*v).sin();
    }
    let mut p3 = s;
    let mut q4 = p.w.iter().rev().map(|v| T::from(-1.5).unwrap()).sum::<T>();
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * T::from(0.5).unwrap();
        p3 = p3 + q4 * T::from(0.5).unwrap();
    }
    let mut p5 = (T::from(-1.7).unwrap() - x[2]);
    let mut q6 = x.iter().fold(T::zero(), |acc, v| {
        acc * T::from(-0.1).unwrap() + T::from(0.6).unwrap()
    });
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.4).unwrap();
        p5 = p5 + q6 * T::from(0.4).unwrap();
    }
    let (n7, n8) = helper_pair(p3, n1);
    let mut r11 = (p.b).tanh();
    let mut k10 = 0;
    let n9 = loop {
        r11 = (r11 * T::from(0.7).unwrap() + s).sin();
        k10 += 1;
        if k10 == 3 {
            break r11 * r11;
        }
    };
    ((s * s + T::one()).ln() * s.max(x[1])) + p.a + n1 + a2 + p3 + q4 + q6 + n7 + n8
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_23_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let n1 = (p.v.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>()
        * ((x.iter().fold(0.0, |acc, v| acc * (0.2_f64) + *v))
            * (x.iter().fold(0.0, |acc, v| acc * (0.2_f64) + *v))
            + 1.0)
            .powf(x[3]));
    let mut a2 = (x[3]).sin();
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a2 = a2 * (-0.7_f64) + *w * (*v).sin();
    }
    let mut p3 = s;
    let mut q4 = p.w.iter().rev().map(|v| (-1.5_f64)).sum::<f64>();
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * (0.5_f64);
        p3 = p3 + q4 * (0.5_f64);
    }
    let mut p5 = ((-1.7_f64) - x[2]);
    let mut q6 = x.iter().fold(0.0, |acc, v| acc * (-0.1_f64) + (0.6_f64));
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.4_f64);
        p5 = p5 + q6 * (0.4_f64);
    }
    let (n7, n8) = helper_pair(p3, n1);
    let mut r11 = (p.b).tanh();
    let mut k10 = 0;
    let n9 = loop {
        r11 = (r11 * (0.7_f64) + s).sin();
        k10 += 1;
        if k10 == 3 {
            break r11 * r11;
        }
    };
    ((s * s + 1.0).ln() * s.max(x[1])) + p.a + n1 + a2 + p3 + q4 + q6 + n7 + n8
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
    let n1 = (p.v.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
        * ((x
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v))
            * (x.iter()
                .fold(T::zero(), |acc, v| acc * T::from(0.2).unwrap() + *v))
            + T::one())
        .powf(x[3]));
    let mut a2 = (x[3]).sin();
    for (w, v) in p.w.iter().zip(p.v.iter()) {
        a2 = a2 * T::from(-0.7).unwrap() + *w * (*v).sin();
    }
    let mut p3 = s;
    let mut q4 = p.w.iter().rev().map(|v| T::from(-1.5).unwrap()).sum::<T>();
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * T::from(0.5).unwrap();
        p3 = p3 + q4 * T::from(0.5).unwrap();
    }
    let mut p5 = (T::from(-1.7).unwrap() - x[2]);
    let mut q6 = x.iter().fold(T::zero(), |acc, v| {
        acc * T::from(-0.1).unwrap() + T::from(0.6).unwrap()
    });
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.4).unwrap();
        p5 = p5 + q6 * T::from(0.4).unwrap();
    }
    let (n7, n8) = helper_pair_on_duals(p3, n1);
    let mut r11 = (p.b).tanh();
    let mut k10 = 0;
    let n9 = loop {
        r11 = (r11 * T::from(0.7).unwrap() + s).sin();
        k10 += 1;
        if k10 == 3 {
            break r11 * r11;
        }
    };
    ((s * s + T::one()).ln() * s.max(x[1])) + p.a + n1 + a2 + p3 + q4 + q6 + n7 + n8
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
    for v in out.iter_mut() {
        *v = (T::from(0.4).unwrap() + *v).tanh();
    }
    for v in out.iter_mut() {
        *v = T::from(1.4).unwrap();
    }
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (T::from(-1.4).unwrap() * s).sin() * T::from(0.7).unwrap() + (*v).sin();
    }
    s + p.w[0] + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_24_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    for v in out.iter_mut() {
        *v = ((0.4_f64) + *v).tanh();
    }
    for v in out.iter_mut() {
        *v = (1.4_f64);
    }
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = ((-1.4_f64) * s).sin() * (0.7_f64) + (*v).sin();
    }
    s + p.w[0] + out.iter().copied().sum::<f64>()
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
    for v in out.iter_mut() {
        *v = (T::from(0.4).unwrap() + *v).tanh();
    }
    for v in out.iter_mut() {
        *v = T::from(1.4).unwrap();
    }
    for (o, v) in out.iter_mut().zip(x.iter()) {
        *o = (T::from(-1.4).unwrap() * s).sin() * T::from(0.7).unwrap() + (*v).sin();
    }
    s + p.w[0] + out.iter().copied().sum::<T>()
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
    let mut a1 = p.b;
    a1 = a1 * T::from(-0.9).unwrap() + (p.b).tanh();
    for i in 0..4 {
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(-0.9).unwrap() + out[i].tanh();
        }
        match i {
            k if k % 2 == 0 => {
                a1 = a1 * T::from(0.5).unwrap() + (p.b).max(s);
            }
            _ => {
                a1 = a1 - (x.iter().map(|v| s).sum::<T>()).hypot(T::one());
            }
        }
    }
    if p.b >= out.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>() {
        a1 = (x[0]).tanh();
    } else {
        a1 = a1 - x[2];
    }
    let (n2, n3) = helper_pair(
        ((out[3]) * (out[3]) + T::one()).ln(),
        (a1 / (T::from(1.5).unwrap() + (p.v[3]) * (p.v[3])))
            .mul_add((x[0] - T::from(0.9).unwrap()), s.powi(3)),
    );
    a1 += (x[0]).min(x[3]).abs();
    a1 *= T::from(-1.0).unwrap();
    for v in out.iter_mut() {
        *v = ((s / (T::from(1.5).unwrap() + (*v) * (*v))) + (T::from(0.9).unwrap()).powi(2));
    }
    (x[0]).hypot(T::one()).atan() + p.a + n2 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_25_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = p.b;
    a1 = a1 * (-0.9_f64) + (p.b).tanh();
    for i in 0..4 {
        for i in 1..4 {
            out[i] = out[i - 1] * (-0.9_f64) + out[i].tanh();
        }
        match i {
            k if k % 2 == 0 => {
                a1 = a1 * (0.5_f64) + (p.b).max(s);
            }
            _ => {
                a1 = a1 - (x.iter().map(|v| s).sum::<f64>()).hypot(1.0);
            }
        }
    }
    if p.b
        >= out
            .iter()
            .zip(out.iter())
            .map(|(a, b)| *a * *b)
            .sum::<f64>()
    {
        a1 = (x[0]).tanh();
    } else {
        a1 = a1 - x[2];
    }
    let (n2, n3) = helper_pair(
        ((out[3]) * (out[3]) + 1.0).ln(),
        (a1 / ((1.5_f64) + (p.v[3]) * (p.v[3]))).mul_add((x[0] - (0.9_f64)), s.powi(3)),
    );
    a1 += (x[0]).min(x[3]).abs();
    a1 *= (-1.0_f64);
    for v in out.iter_mut() {
        *v = ((s / ((1.5_f64) + (*v) * (*v))) + (0.9_f64).powi(2));
    }
    (x[0]).hypot(1.0).atan() + p.a + n2 + out.iter().copied().sum::<f64>()
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
    let mut a1 = p.b;
    a1 = a1 * T::from(-0.9).unwrap() + (p.b).tanh();
    for i in 0..4 {
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(-0.9).unwrap() + out[i].tanh();
        }
        match i {
            k if k % 2 == 0 => {
                a1 = a1 * T::from(0.5).unwrap() + (p.b).max(s);
            }
            _ => {
                a1 = a1 - (x.iter().map(|v| s).sum::<T>()).hypot(T::one());
            }
        }
    }
    if p.b >= out.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>() {
        a1 = (x[0]).tanh();
    } else {
        a1 = a1 - x[2];
    }
    let (n2, n3) = helper_pair_on_duals(
        ((out[3]) * (out[3]) + T::one()).ln(),
        (a1 / (T::from(1.5).unwrap() + (p.v[3]) * (p.v[3])))
            .mul_add((x[0] - T::from(0.9).unwrap()), s.powi(3)),
    );
    a1 += (x[0]).min(x[3]).abs();
    a1 *= T::from(-1.0).unwrap();
    for v in out.iter_mut() {
        *v = ((s / (T::from(1.5).unwrap() + (*v) * (*v))) + (T::from(0.9).unwrap()).powi(2));
    }
    (x[0]).hypot(T::one()).atan() + p.a + n2 + out.iter().copied().sum::<T>()
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
    let n1 = helper_soft(s, (x[0]).tanh().exp().sin());
    let mut b2 = x.to_vec();
    let k3 = T::from(0.7).unwrap();
    helper_smooth(&mut b2, k3);
    let n4 = helper_power(
        b2.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.5).unwrap())
            .sum::<T>(),
        3,
    );
    let mut a5 = x[1];
    for pair in b2.chunks(2) {
        a5 = a5 * T::from(-1.0).unwrap() + pair[0] * pair[1].tanh();
    }
    let n6 = helper_soft(
        b2[0],
        (x[2]).sin().mul_add(
            T::from(-1.9).unwrap(),
            (T::from(-1.0).unwrap()).hypot(T::one()),
        ),
    );
    a5 += (s + n6).tanh();
    for v in b2.iter_mut() {
        *v = *v;
    }
    (b2.windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-1.1).unwrap())
        .sum::<T>())
    .mul_add((T::from(0.1).unwrap()).abs(), s.tanh())
        + n4
        + n6
        + b2.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_26_f64(x: &[f64], s: f64) -> f64 {
    let n1 = helper_soft(s, (x[0]).tanh().exp().sin());
    let mut b2 = x.to_vec();
    let k3 = (0.7_f64);
    helper_smooth(&mut b2, k3);
    let n4 = helper_power(
        b2.windows(2)
            .map(|w| (w[1] - w[0]) * (-1.5_f64))
            .sum::<f64>(),
        3,
    );
    let mut a5 = x[1];
    for pair in b2.chunks(2) {
        a5 = a5 * (-1.0_f64) + pair[0] * pair[1].tanh();
    }
    let n6 = helper_soft(
        b2[0],
        (x[2]).sin().mul_add((-1.9_f64), (-1.0_f64).hypot(1.0)),
    );
    a5 += (s + n6).tanh();
    for v in b2.iter_mut() {
        *v = *v;
    }
    (b2.windows(2)
        .map(|w| (w[1] - w[0]) * (-1.1_f64))
        .sum::<f64>())
    .mul_add((0.1_f64).abs(), s.tanh())
        + n4
        + n6
        + b2.iter().copied().sum::<f64>()
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
    let n1 = helper_soft_on_duals(s, (x[0]).tanh().exp().sin());
    let mut b2 = x.to_vec();
    let k3 = T::from(0.7).unwrap();
    helper_smooth_on_duals(&mut b2, k3);
    let n4 = helper_power_on_duals(
        b2.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.5).unwrap())
            .sum::<T>(),
        3,
    );
    let mut a5 = x[1];
    for pair in b2.chunks(2) {
        a5 = a5 * T::from(-1.0).unwrap() + pair[0] * pair[1].tanh();
    }
    let n6 = helper_soft_on_duals(
        b2[0],
        (x[2]).sin().mul_add(
            T::from(-1.9).unwrap(),
            (T::from(-1.0).unwrap()).hypot(T::one()),
        ),
    );
    a5 += (s + n6).tanh();
    for v in b2.iter_mut() {
        *v = *v;
    }
    (b2.windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-1.1).unwrap())
        .sum::<T>())
    .mul_add((T::from(0.1).unwrap()).abs(), s.tanh())
        + n4
        + n6
        + b2.iter().copied().sum::<T>()
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
    let n3 = (x[0] + x[1]);
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        ((p.w[2]).mul_add(x[3], s) * ((p.b) * (p.b) + T::one()).ln()),
        (p.b * p.a).cos(),
    ) + f2((p.b * p.a).cos());
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    let n7 = helper_soft(
        (x[2]).tanh().exp(),
        (T::from(-0.5).unwrap()).hypot(T::one()),
    );
    p.w.iter()
        .map(|v| ((T::from(1.2).unwrap()) * (T::from(1.2).unwrap()) + T::one()).sqrt())
        .sum::<T>()
        + p.v[1]
        + n3
        + n4
        + m5
        + t6
        + n7
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_27_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let n3 = (x[0] + x[1]);
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(
        ((p.w[2]).mul_add(x[3], s) * ((p.b) * (p.b) + 1.0).ln()),
        (p.b * p.a).cos(),
    ) + f2((p.b * p.a).cos());
    let mut m5 = x[0];
    let mut t6 = 0.0;
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    let n7 = helper_soft((x[2]).tanh().exp(), (-0.5_f64).hypot(1.0));
    p.w.iter()
        .map(|v| ((1.2_f64) * (1.2_f64) + 1.0).sqrt())
        .sum::<f64>()
        + p.v[1]
        + n3
        + n4
        + m5
        + t6
        + n7
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
    let n3 = (x[0] + x[1]);
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        ((p.w[2]).mul_add(x[3], s) * ((p.b) * (p.b) + T::one()).ln()),
        (p.b * p.a).cos(),
    ) + f2((p.b * p.a).cos());
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    let n7 = helper_soft_on_duals(
        (x[2]).tanh().exp(),
        (T::from(-0.5).unwrap()).hypot(T::one()),
    );
    p.w.iter()
        .map(|v| ((T::from(1.2).unwrap()) * (T::from(1.2).unwrap()) + T::one()).sqrt())
        .sum::<T>()
        + p.v[1]
        + n3
        + n4
        + m5
        + t6
        + n7
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
    let mut b1 = x.to_vec();
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.9).unwrap() + b1[i].tanh();
    }
    let k2 = x[2];
    b1[0] += k2;
    let mut a3 = ((x[3]).mul_add(x[2], x[1]) * (x[3]).mul_add(x[2], x[1]) + T::one()).ln();
    a3 -= (x[0]).min((p.a).mul_add(a3, x[2]));
    a3 *= T::from(-0.7).unwrap();
    for i in (0..4).rev() {
        for v in b1.iter_mut() {
            *v = *v;
        }
    }
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.7).unwrap() + b1[i].tanh();
    }
    x[2] + p.b + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_28_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    for i in 1..4 {
        b1[i] = b1[i - 1] * (-0.9_f64) + b1[i].tanh();
    }
    let k2 = x[2];
    b1[0] += k2;
    let mut a3 = ((x[3]).mul_add(x[2], x[1]) * (x[3]).mul_add(x[2], x[1]) + 1.0).ln();
    a3 -= (x[0]).min((p.a).mul_add(a3, x[2]));
    a3 *= (-0.7_f64);
    for i in (0..4).rev() {
        for v in b1.iter_mut() {
            *v = *v;
        }
    }
    for i in 1..4 {
        b1[i] = b1[i - 1] * (-0.7_f64) + b1[i].tanh();
    }
    x[2] + p.b + b1.iter().copied().sum::<f64>()
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
    let mut b1 = x.to_vec();
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.9).unwrap() + b1[i].tanh();
    }
    let k2 = x[2];
    b1[0] += k2;
    let mut a3 = ((x[3]).mul_add(x[2], x[1]) * (x[3]).mul_add(x[2], x[1]) + T::one()).ln();
    a3 -= (x[0]).min((p.a).mul_add(a3, x[2]));
    a3 *= T::from(-0.7).unwrap();
    for i in (0..4).rev() {
        for v in b1.iter_mut() {
            *v = *v;
        }
    }
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.7).unwrap() + b1[i].tanh();
    }
    x[2] + p.b + b1.iter().copied().sum::<T>()
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
    let mut a1 = (x[0]).mul_add(x[3], x[1]).tanh().exp();
    if x[2] >= (a1 / (T::from(1.5).unwrap() + (x[1]) * (x[1]))) {
        a1 = (T::from(1.5).unwrap() * ((x[2]).signum() * (T::from(1.3).unwrap()))).tanh();
    } else {
        a1 = a1 - s;
    }
    let mut b2 = x.to_vec();
    let k3 = (s * b2[1]).mul_add((x[3] - x[1]), x[3]);
    helper_smooth(&mut b2, k3);
    let n4 = x[1];
    let mut k5 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap() + (x[0]).tanh();
        k5 += 1;
        if k5 >= 2 {
            break;
        }
    }
    b2.iter().map(|v| (*v + s)).sum::<T>() + a1 + n4 + b2.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_29_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (x[0]).mul_add(x[3], x[1]).tanh().exp();
    if x[2] >= (a1 / ((1.5_f64) + (x[1]) * (x[1]))) {
        a1 = ((1.5_f64) * ((x[2]).signum() * (1.3_f64))).tanh();
    } else {
        a1 = a1 - s;
    }
    let mut b2 = x.to_vec();
    let k3 = (s * b2[1]).mul_add((x[3] - x[1]), x[3]);
    helper_smooth(&mut b2, k3);
    let n4 = x[1];
    let mut k5 = 0;
    loop {
        a1 = a1 * (0.5_f64) + (x[0]).tanh();
        k5 += 1;
        if k5 >= 2 {
            break;
        }
    }
    b2.iter().map(|v| (*v + s)).sum::<f64>() + a1 + n4 + b2.iter().copied().sum::<f64>()
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
    let mut a1 = (x[0]).mul_add(x[3], x[1]).tanh().exp();
    if x[2] >= (a1 / (T::from(1.5).unwrap() + (x[1]) * (x[1]))) {
        a1 = (T::from(1.5).unwrap() * ((x[2]).signum() * (T::from(1.3).unwrap()))).tanh();
    } else {
        a1 = a1 - s;
    }
    let mut b2 = x.to_vec();
    let k3 = (s * b2[1]).mul_add((x[3] - x[1]), x[3]);
    helper_smooth_on_duals(&mut b2, k3);
    let n4 = x[1];
    let mut k5 = 0;
    loop {
        a1 = a1 * T::from(0.5).unwrap() + (x[0]).tanh();
        k5 += 1;
        if k5 >= 2 {
            break;
        }
    }
    b2.iter().map(|v| (*v + s)).sum::<T>() + a1 + n4 + b2.iter().copied().sum::<T>()
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
    let (n1, n2) = helper_pair(
        (s * s + T::one()).sqrt(),
        (((x[0]) * (x[0]) + T::one()).ln() - (x[3]).cos()),
    );
    for i in 0..4 {
        let mut a3 = ((out[i]).atan() * (out[i]).atan() + T::one()).sqrt();
        a3 = a3 * T::from(0.4).unwrap() + out[(i + 1) % 4];
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(0.5).unwrap() + out[i].tanh();
        }
    }
    let mut r6 = (x[3]).sin();
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap() + (x[2]).mul_add(x[3], n2)).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    let mut p7 = ((T::from(0.1).unwrap()) * (T::from(0.1).unwrap()) + T::one()).sqrt();
    let mut q8 = s.powi(3);
    for i in 0..4 {
        q8 = q8 - (p7 + x[i]).sin() * T::from(0.3).unwrap();
        p7 = p7 + q8 * T::from(0.3).unwrap();
    }
    (n1 * n1 + T::one()).sqrt().tanh().exp()
        + n1
        + n2
        + n4
        + p7
        + q8
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_30_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let (n1, n2) = helper_pair(
        (s * s + 1.0).sqrt(),
        (((x[0]) * (x[0]) + 1.0).ln() - (x[3]).cos()),
    );
    for i in 0..4 {
        let mut a3 = ((out[i]).atan() * (out[i]).atan() + 1.0).sqrt();
        a3 = a3 * (0.4_f64) + out[(i + 1) % 4];
        for i in 1..4 {
            out[i] = out[i - 1] * (0.5_f64) + out[i].tanh();
        }
    }
    let mut r6 = (x[3]).sin();
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * (0.7_f64) + (x[2]).mul_add(x[3], n2)).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    let mut p7 = ((0.1_f64) * (0.1_f64) + 1.0).sqrt();
    let mut q8 = s.powi(3);
    for i in 0..4 {
        q8 = q8 - (p7 + x[i]).sin() * (0.3_f64);
        p7 = p7 + q8 * (0.3_f64);
    }
    (n1 * n1 + 1.0).sqrt().tanh().exp() + n1 + n2 + n4 + p7 + q8 + out.iter().copied().sum::<f64>()
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
    let (n1, n2) = helper_pair_on_duals(
        (s * s + T::one()).sqrt(),
        (((x[0]) * (x[0]) + T::one()).ln() - (x[3]).cos()),
    );
    for i in 0..4 {
        let mut a3 = ((out[i]).atan() * (out[i]).atan() + T::one()).sqrt();
        a3 = a3 * T::from(0.4).unwrap() + out[(i + 1) % 4];
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(0.5).unwrap() + out[i].tanh();
        }
    }
    let mut r6 = (x[3]).sin();
    let mut k5 = 0;
    let n4 = loop {
        r6 = (r6 * T::from(0.7).unwrap() + (x[2]).mul_add(x[3], n2)).sin();
        k5 += 1;
        if k5 == 4 {
            break r6 * r6;
        }
    };
    let mut p7 = ((T::from(0.1).unwrap()) * (T::from(0.1).unwrap()) + T::one()).sqrt();
    let mut q8 = s.powi(3);
    for i in 0..4 {
        q8 = q8 - (p7 + x[i]).sin() * T::from(0.3).unwrap();
        p7 = p7 + q8 * T::from(0.3).unwrap();
    }
    (n1 * n1 + T::one()).sqrt().tanh().exp()
        + n1
        + n2
        + n4
        + p7
        + q8
        + out.iter().copied().sum::<T>()
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
    let k1 = s;
    out[0] += k1;
    let n2 = (out[0] - (x[1]).mul_add(x[3], out[3]).tanh());
    for i in 0..4 {
        for v in out.iter_mut() {
            *v = (T::from(1.6).unwrap() - *v).tanh().exp();
        }
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(0.9).unwrap() + out[i].tanh();
        }
    }
    ((x[1]).mul_add(T::from(0.6).unwrap(), T::from(1.4).unwrap()) + (s * x[1]))
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_31_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let k1 = s;
    out[0] += k1;
    let n2 = (out[0] - (x[1]).mul_add(x[3], out[3]).tanh());
    for i in 0..4 {
        for v in out.iter_mut() {
            *v = ((1.6_f64) - *v).tanh().exp();
        }
        for i in 1..4 {
            out[i] = out[i - 1] * (0.9_f64) + out[i].tanh();
        }
    }
    ((x[1]).mul_add((0.6_f64), (1.4_f64)) + (s * x[1])) + out.iter().copied().sum::<f64>()
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
    let k1 = s;
    out[0] += k1;
    let n2 = (out[0] - (x[1]).mul_add(x[3], out[3]).tanh());
    for i in 0..4 {
        for v in out.iter_mut() {
            *v = (T::from(1.6).unwrap() - *v).tanh().exp();
        }
        for i in 1..4 {
            out[i] = out[i - 1] * T::from(0.9).unwrap() + out[i].tanh();
        }
    }
    ((x[1]).mul_add(T::from(0.6).unwrap(), T::from(1.4).unwrap()) + (s * x[1]))
        + out.iter().copied().sum::<T>()
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
    let mut a1 = (s.min(x[2])).powi(3);
    if (a1 + s) < (x[0] + a1) {
        a1 = (s * s + T::one()).ln();
    } else {
        a1 = a1 - s.sin();
    }
    for i in (0..4).rev() {
        let n2 = helper_soft(
            x[(i + 2) % 4],
            (x[0])
                .abs()
                .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()),
        );
        match i {
            k if k % 2 == 0 => {
                a1 = a1 * T::from(0.5).unwrap() + x[i];
            }
            _ => {
                a1 = a1 - ((T::from(1.8).unwrap()).floor() + (x[3] - x[2]));
            }
        }
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    let (n3, n4) = ((x[0]).sin().cos(), T::from(-0.5).unwrap());
    s + a1
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_32_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (s.min(x[2])).powi(3);
    if (a1 + s) < (x[0] + a1) {
        a1 = (s * s + 1.0).ln();
    } else {
        a1 = a1 - s.sin();
    }
    for i in (0..4).rev() {
        let n2 = helper_soft(x[(i + 2) % 4], (x[0]).abs().clamp((-0.8_f64), (0.9_f64)));
        match i {
            k if k % 2 == 0 => {
                a1 = a1 * (0.5_f64) + x[i];
            }
            _ => {
                a1 = a1 - ((1.8_f64).floor() + (x[3] - x[2]));
            }
        }
    }
    for pair in x.chunks(2) {
        a1 = a1 * (-0.7_f64) + pair[0] * pair[1].tanh();
    }
    for pair in x.chunks(2) {
        a1 = a1 * (-0.5_f64) + pair[0] * pair[1].tanh();
    }
    let (n3, n4) = ((x[0]).sin().cos(), (-0.5_f64));
    s + a1
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
    let mut a1 = (s.min(x[2])).powi(3);
    if (a1 + s) < (x[0] + a1) {
        a1 = (s * s + T::one()).ln();
    } else {
        a1 = a1 - s.sin();
    }
    for i in (0..4).rev() {
        let n2 = helper_soft_on_duals(
            x[(i + 2) % 4],
            (x[0])
                .abs()
                .clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()),
        );
        match i {
            k if k % 2 == 0 => {
                a1 = a1 * T::from(0.5).unwrap() + x[i];
            }
            _ => {
                a1 = a1 - ((T::from(1.8).unwrap()).floor() + (x[3] - x[2]));
            }
        }
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    let (n3, n4) = ((x[0]).sin().cos(), T::from(-0.5).unwrap());
    s + a1
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
    let n1 = (T::from(-0.7).unwrap()
        - (out
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.5).unwrap())
            .sum::<T>())
        .tanh()
        .exp());
    let mut a2 =
        ((T::from(-0.4).unwrap()).tanh() - (T::from(1.7).unwrap() * T::from(-2.0).unwrap()));
    let mut k3 = 0;
    while k3 < 3 {
        a2 = (a2 + x[2]).tanh();
        k3 += 1;
    }
    let k4 = s.tanh();
    out[1] += k4;
    let n5 = (x[2] / (T::from(1.5).unwrap() + (T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap())));
    ((T::from(-1.8).unwrap()).powi(2) * (T::from(-1.8).unwrap()).powi(2) + T::one()).ln()
        + n1
        + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_33_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let n1 = ((-0.7_f64)
        - (out
            .windows(2)
            .map(|w| (w[1] - w[0]) * (-1.5_f64))
            .sum::<f64>())
        .tanh()
        .exp());
    let mut a2 = ((-0.4_f64).tanh() - ((1.7_f64) * (-2.0_f64)));
    let mut k3 = 0;
    while k3 < 3 {
        a2 = (a2 + x[2]).tanh();
        k3 += 1;
    }
    let k4 = s.tanh();
    out[1] += k4;
    let n5 = (x[2] / ((1.5_f64) + (-1.5_f64) * (-1.5_f64)));
    ((-1.8_f64).powi(2) * (-1.8_f64).powi(2) + 1.0).ln() + n1 + out.iter().copied().sum::<f64>()
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
    let n1 = (T::from(-0.7).unwrap()
        - (out
            .windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.5).unwrap())
            .sum::<T>())
        .tanh()
        .exp());
    let mut a2 =
        ((T::from(-0.4).unwrap()).tanh() - (T::from(1.7).unwrap() * T::from(-2.0).unwrap()));
    let mut k3 = 0;
    while k3 < 3 {
        a2 = (a2 + x[2]).tanh();
        k3 += 1;
    }
    let k4 = s.tanh();
    out[1] += k4;
    let n5 = (x[2] / (T::from(1.5).unwrap() + (T::from(-1.5).unwrap()) * (T::from(-1.5).unwrap())));
    ((T::from(-1.8).unwrap()).powi(2) * (T::from(-1.8).unwrap()).powi(2) + T::one()).ln()
        + n1
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
    let mut a1 = (T::from(-0.1).unwrap() - (s - x[0]));
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.2).unwrap() + pair[0] * pair[1].tanh();
    }
    let n2 = if ((s - s) * x[0]) >= ((x[1]) * (x[1]) + T::one()).ln() {
        (x[1] + (s - x[0]))
    } else {
        x[0]
    };
    let f3 = move |v: T| v * a1;
    let n4 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    (s.tanh()).atan()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_34_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = ((-0.1_f64) - (s - x[0]));
    for pair in x.chunks(2) {
        a1 = a1 * (-0.2_f64) + pair[0] * pair[1].tanh();
    }
    let n2 = if ((s - s) * x[0]) >= ((x[1]) * (x[1]) + 1.0).ln() {
        (x[1] + (s - x[0]))
    } else {
        x[0]
    };
    let f3 = move |v: f64| v * a1;
    let n4 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>();
    (s.tanh()).atan()
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
    let mut a1 = (T::from(-0.1).unwrap() - (s - x[0]));
    for pair in x.chunks(2) {
        a1 = a1 * T::from(-0.2).unwrap() + pair[0] * pair[1].tanh();
    }
    let n2 = if ((s - s) * x[0]) >= ((x[1]) * (x[1]) + T::one()).ln() {
        (x[1] + (s - x[0]))
    } else {
        x[0]
    };
    let f3 = move |v: T| v * a1;
    let n4 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    (s.tanh()).atan()
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
    let (n1, n2) = ((T::from(-1.0).unwrap()).sin(), x[0]);
    let mut p3 = (T::from(-1.6).unwrap() - out[3]);
    let mut q4 = n1.max(x[2]);
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * T::from(0.1).unwrap();
        p3 = p3 + q4 * T::from(0.1).unwrap();
    }
    out[0] = out[0] * out.iter().map(|v| s).sum::<T>() + x[1];
    (T::from(-0.3).unwrap() - x[3]) + p.a + n2 + q4 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_35_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let (n1, n2) = ((-1.0_f64).sin(), x[0]);
    let mut p3 = ((-1.6_f64) - out[3]);
    let mut q4 = n1.max(x[2]);
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * (0.1_f64);
        p3 = p3 + q4 * (0.1_f64);
    }
    out[0] = out[0] * out.iter().map(|v| s).sum::<f64>() + x[1];
    ((-0.3_f64) - x[3]) + p.a + n2 + q4 + out.iter().copied().sum::<f64>()
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
    let (n1, n2) = ((T::from(-1.0).unwrap()).sin(), x[0]);
    let mut p3 = (T::from(-1.6).unwrap() - out[3]);
    let mut q4 = n1.max(x[2]);
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * T::from(0.1).unwrap();
        p3 = p3 + q4 * T::from(0.1).unwrap();
    }
    out[0] = out[0] * out.iter().map(|v| s).sum::<T>() + x[1];
    (T::from(-0.3).unwrap() - x[3]) + p.a + n2 + q4 + out.iter().copied().sum::<T>()
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
    let mut a1 = (x[3]).min(s.tanh());
    a1 = a1 * T::from(0.2).unwrap() + x[0];
    let mut r4 = ((x[0]) * (x[0]) + T::one()).ln();
    let mut k3 = 0;
    let n2 = loop {
        r4 = (r4 * T::from(0.7).unwrap() + (x[0] + T::from(-1.3).unwrap())).sin();
        k3 += 1;
        if k3 == 2 {
            break r4 * r4;
        }
    };
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    if let Some(v) = x.last() {
        a1 = a1 * T::from(-0.7).unwrap() + (*v).sin();
    }
    let n7 = (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .atan();
    let mut m8 = x[0];
    let mut t9 = T::zero();
    for i in 1..4 {
        m8 = m8.max(x[i]);
        t9 = t9 + (x[i] - m8).exp();
    }
    (n2 + x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-1.6).unwrap())
        .sum::<T>())
        + p.b
        + t6
        + t9
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_36_f64(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let mut a1 = (x[3]).min(s.tanh());
    a1 = a1 * (0.2_f64) + x[0];
    let mut r4 = ((x[0]) * (x[0]) + 1.0).ln();
    let mut k3 = 0;
    let n2 = loop {
        r4 = (r4 * (0.7_f64) + (x[0] + (-1.3_f64))).sin();
        k3 += 1;
        if k3 == 2 {
            break r4 * r4;
        }
    };
    let mut m5 = x[0];
    let mut t6 = 0.0;
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    if let Some(v) = x.last() {
        a1 = a1 * (-0.7_f64) + (*v).sin();
    }
    let n7 = (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>())
    .atan();
    let mut m8 = x[0];
    let mut t9 = 0.0;
    for i in 1..4 {
        m8 = m8.max(x[i]);
        t9 = t9 + (x[i] - m8).exp();
    }
    (n2 + x
        .windows(2)
        .map(|w| (w[1] - w[0]) * (-1.6_f64))
        .sum::<f64>())
        + p.b
        + t6
        + t9
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
    let mut a1 = (x[3]).min(s.tanh());
    a1 = a1 * T::from(0.2).unwrap() + x[0];
    let mut r4 = ((x[0]) * (x[0]) + T::one()).ln();
    let mut k3 = 0;
    let n2 = loop {
        r4 = (r4 * T::from(0.7).unwrap() + (x[0] + T::from(-1.3).unwrap())).sin();
        k3 += 1;
        if k3 == 2 {
            break r4 * r4;
        }
    };
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        t6 = t6 + (x[i] - m5).exp();
        m5 = m5.max(x[i]);
    }
    if let Some(v) = x.last() {
        a1 = a1 * T::from(-0.7).unwrap() + (*v).sin();
    }
    let n7 = (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .atan();
    let mut m8 = x[0];
    let mut t9 = T::zero();
    for i in 1..4 {
        m8 = m8.max(x[i]);
        t9 = t9 + (x[i] - m8).exp();
    }
    (n2 + x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-1.6).unwrap())
        .sum::<T>())
        + p.b
        + t6
        + t9
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
    for pair in out.chunks(2) {
        a1 = a1 * T::from(-0.2).unwrap() + pair[0] * pair[1].tanh();
    }
    out[0] = T::from(-0.4).unwrap();
    for i in 0..4 {
        out[1] = out[1] * (x[3]).atan().max(s) + T::from(-1.2).unwrap();
        let (n2, n3) = (
            out.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>(),
            s.tanh().exp(),
        );
        for (o, v) in out.iter_mut().zip(x.iter()) {
            *o = ((T::from(-0.6).unwrap()).atan() - *o) * T::from(-0.8).unwrap() + (*v).sin();
        }
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (s + x[1]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
                >= (T::from(1.3).unwrap() + out[(j + 2) % 4])
            {
                break 'outer;
            }
            a1 = (a1 + s * x[i]).tanh();
        }
    }
    let n4 =
        if (a1.tanh().exp() + out.iter().map(|v| T::from(-0.5).unwrap()).sum::<T>()) > a1.atan() {
            (T::from(-1.2).unwrap()).cos()
        } else {
            a1
        };
    let mut p5 = n4;
    let mut q6 = out[3];
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.2).unwrap();
        p5 = p5 + q6 * T::from(0.2).unwrap();
    }
    let n7 = x[3];
    (out[1]).cos().powi(2) + n4 + p5 + n7 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_37_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = x[2];
    for pair in out.chunks(2) {
        a1 = a1 * (-0.2_f64) + pair[0] * pair[1].tanh();
    }
    out[0] = (-0.4_f64);
    for i in 0..4 {
        out[1] = out[1] * (x[3]).atan().max(s) + (-1.2_f64);
        let (n2, n3) = (
            out.iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>(),
            s.tanh().exp(),
        );
        for (o, v) in out.iter_mut().zip(x.iter()) {
            *o = ((-0.6_f64).atan() - *o) * (-0.8_f64) + (*v).sin();
        }
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (s + x[1]).clamp((-0.8_f64), (0.9_f64)) >= ((1.3_f64) + out[(j + 2) % 4]) {
                break 'outer;
            }
            a1 = (a1 + s * x[i]).tanh();
        }
    }
    let n4 = if (a1.tanh().exp() + out.iter().map(|v| (-0.5_f64)).sum::<f64>()) > a1.atan() {
        (-1.2_f64).cos()
    } else {
        a1
    };
    let mut p5 = n4;
    let mut q6 = out[3];
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.2_f64);
        p5 = p5 + q6 * (0.2_f64);
    }
    let n7 = x[3];
    (out[1]).cos().powi(2) + n4 + p5 + n7 + out.iter().copied().sum::<f64>()
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
    for pair in out.chunks(2) {
        a1 = a1 * T::from(-0.2).unwrap() + pair[0] * pair[1].tanh();
    }
    out[0] = T::from(-0.4).unwrap();
    for i in 0..4 {
        out[1] = out[1] * (x[3]).atan().max(s) + T::from(-1.2).unwrap();
        let (n2, n3) = (
            out.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>(),
            s.tanh().exp(),
        );
        for (o, v) in out.iter_mut().zip(x.iter()) {
            *o = ((T::from(-0.6).unwrap()).atan() - *o) * T::from(-0.8).unwrap() + (*v).sin();
        }
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (s + x[1]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())
                >= (T::from(1.3).unwrap() + out[(j + 2) % 4])
            {
                break 'outer;
            }
            a1 = (a1 + s * x[i]).tanh();
        }
    }
    let n4 =
        if (a1.tanh().exp() + out.iter().map(|v| T::from(-0.5).unwrap()).sum::<T>()) > a1.atan() {
            (T::from(-1.2).unwrap()).cos()
        } else {
            a1
        };
    let mut p5 = n4;
    let mut q6 = out[3];
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.2).unwrap();
        p5 = p5 + q6 * T::from(0.2).unwrap();
    }
    let n7 = x[3];
    (out[1]).cos().powi(2) + n4 + p5 + n7 + out.iter().copied().sum::<T>()
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
    let mut a1 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[(j + 3) % 4] * s).powi(3) >= x[j] {
                break 'outer;
            }
            a1 = (a1 + s.tanh().exp() * x[i]).tanh();
        }
    }
    let mut m2 = x[0];
    let mut t3 = T::zero();
    for i in 1..4 {
        t3 = t3 + (x[i] - m2).exp();
        m2 = m2.max(x[i]);
    }
    let (n4, n5) = helper_pair(
        (s * t3).min(((x[3]) * (x[3]) + T::one()).powf(s)),
        ((T::from(0.0).unwrap()) * (T::from(0.0).unwrap()) + T::one())
            .ln()
            .atan(),
    );
    for i in 0..4 {
        match i {
            k if k % 2 == 0 => {
                t3 = t3 * T::from(0.5).unwrap() + s;
            }
            _ => {
                t3 = t3 - (t3.cos() - n5);
            }
        }
        for pair in out.chunks(2) {
            m2 = m2 * T::from(-0.2).unwrap() + pair[0] * pair[1].tanh();
        }
        for v in out.iter_mut() {
            *v = (s.sin() * *v);
        }
    }
    for pair in out.chunks(2) {
        t3 = t3 * T::from(-0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    x.iter().map(|v| s.sin()).sum::<T>() + m2 + n4 + n5 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_38_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let mut a1 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<f64>();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[(j + 3) % 4] * s).powi(3) >= x[j] {
                break 'outer;
            }
            a1 = (a1 + s.tanh().exp() * x[i]).tanh();
        }
    }
    let mut m2 = x[0];
    let mut t3 = 0.0;
    for i in 1..4 {
        t3 = t3 + (x[i] - m2).exp();
        m2 = m2.max(x[i]);
    }
    let (n4, n5) = helper_pair(
        (s * t3).min(((x[3]) * (x[3]) + 1.0).powf(s)),
        ((0.0_f64) * (0.0_f64) + 1.0).ln().atan(),
    );
    for i in 0..4 {
        match i {
            k if k % 2 == 0 => {
                t3 = t3 * (0.5_f64) + s;
            }
            _ => {
                t3 = t3 - (t3.cos() - n5);
            }
        }
        for pair in out.chunks(2) {
            m2 = m2 * (-0.2_f64) + pair[0] * pair[1].tanh();
        }
        for v in out.iter_mut() {
            *v = (s.sin() * *v);
        }
    }
    for pair in out.chunks(2) {
        t3 = t3 * (-0.7_f64) + pair[0] * pair[1].tanh();
    }
    x.iter().map(|v| s.sin()).sum::<f64>() + m2 + n4 + n5 + out.iter().copied().sum::<f64>()
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
    let mut a1 = x.iter().zip(out.iter()).map(|(a, b)| *a * *b).sum::<T>();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[(j + 3) % 4] * s).powi(3) >= x[j] {
                break 'outer;
            }
            a1 = (a1 + s.tanh().exp() * x[i]).tanh();
        }
    }
    let mut m2 = x[0];
    let mut t3 = T::zero();
    for i in 1..4 {
        t3 = t3 + (x[i] - m2).exp();
        m2 = m2.max(x[i]);
    }
    let (n4, n5) = helper_pair_on_duals(
        (s * t3).min(((x[3]) * (x[3]) + T::one()).powf(s)),
        ((T::from(0.0).unwrap()) * (T::from(0.0).unwrap()) + T::one())
            .ln()
            .atan(),
    );
    for i in 0..4 {
        match i {
            k if k % 2 == 0 => {
                t3 = t3 * T::from(0.5).unwrap() + s;
            }
            _ => {
                t3 = t3 - (t3.cos() - n5);
            }
        }
        for pair in out.chunks(2) {
            m2 = m2 * T::from(-0.2).unwrap() + pair[0] * pair[1].tanh();
        }
        for v in out.iter_mut() {
            *v = (s.sin() * *v);
        }
    }
    for pair in out.chunks(2) {
        t3 = t3 * T::from(-0.7).unwrap() + pair[0] * pair[1].tanh();
    }
    x.iter().map(|v| s.sin()).sum::<T>() + m2 + n4 + n5 + out.iter().copied().sum::<T>()
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
    let n1 = s;
    let n2 = helper_soft(
        (T::from(0.0).unwrap()).atan().tanh().exp(),
        x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.1).unwrap())
            .sum::<T>(),
    );
    let mut r5 = (out[0] - n2);
    let mut k4 = 0;
    let n3 = loop {
        r5 = (r5 * T::from(0.7).unwrap()
            + (x.iter().map(|v| s).sum::<T>()
                / (T::from(1.5).unwrap()
                    + (T::from(-0.3).unwrap() + out[1]) * (T::from(-0.3).unwrap() + out[1]))))
            .sin();
        k4 += 1;
        if k4 == 2 {
            break r5 * r5;
        }
    };
    let mut a6 = out
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    a6 += ((T::from(-1.6).unwrap()).mul_add(a6, s) / (T::from(1.5).unwrap() + s * s));
    a6 *= T::from(-0.5).unwrap();
    let mut m7 = x[0];
    let mut t8 = T::zero();
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    s + n1 + n3 + m7 + t8 + out.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_39_f64(x: &[f64], s: f64, out: &mut [f64]) -> f64 {
    let n1 = s;
    let n2 = helper_soft(
        (0.0_f64).atan().tanh().exp(),
        x.windows(2)
            .map(|w| (w[1] - w[0]) * (-1.1_f64))
            .sum::<f64>(),
    );
    let mut r5 = (out[0] - n2);
    let mut k4 = 0;
    let n3 = loop {
        r5 = (r5 * (0.7_f64)
            + (x.iter().map(|v| s).sum::<f64>()
                / ((1.5_f64) + ((-0.3_f64) + out[1]) * ((-0.3_f64) + out[1]))))
            .sin();
        k4 += 1;
        if k4 == 2 {
            break r5 * r5;
        }
    };
    let mut a6 = out
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>();
    a6 += ((-1.6_f64).mul_add(a6, s) / ((1.5_f64) + s * s));
    a6 *= (-0.5_f64);
    let mut m7 = x[0];
    let mut t8 = 0.0;
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    s + n1 + n3 + m7 + t8 + out.iter().copied().sum::<f64>()
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
    let n1 = s;
    let n2 = helper_soft_on_duals(
        (T::from(0.0).unwrap()).atan().tanh().exp(),
        x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-1.1).unwrap())
            .sum::<T>(),
    );
    let mut r5 = (out[0] - n2);
    let mut k4 = 0;
    let n3 = loop {
        r5 = (r5 * T::from(0.7).unwrap()
            + (x.iter().map(|v| s).sum::<T>()
                / (T::from(1.5).unwrap()
                    + (T::from(-0.3).unwrap() + out[1]) * (T::from(-0.3).unwrap() + out[1]))))
            .sin();
        k4 += 1;
        if k4 == 2 {
            break r5 * r5;
        }
    };
    let mut a6 = out
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    a6 += ((T::from(-1.6).unwrap()).mul_add(a6, s) / (T::from(1.5).unwrap() + s * s));
    a6 *= T::from(-0.5).unwrap();
    let mut m7 = x[0];
    let mut t8 = T::zero();
    for i in 1..4 {
        t8 = t8 + (x[i] - m7).exp();
        m7 = m7.max(x[i]);
    }
    s + n1 + n3 + m7 + t8 + out.iter().copied().sum::<T>()
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
