//! `#[differentiable]` arrays of a generic float type, and calls of annotated functions
//! that write a `&mut [F]` output (issue 13).
//!
//! 1. `fn f<T: Float>(x: &[T], ..)` with `num_traits::Float` as users write it: `&[T]`,
//!    `Vec<T>`, `&Vec<T>`, `[T; N]`, `&mut [T]` outputs, local buffers `vec![T::zero(); n]`
//!    and a typed `Vec<T>`, a generic helper over arrays called from a generic caller;
//!    instantiated at f64 (checked through every face) and at f32 (against f64).
//! 2. `step(&state, k, dt, &mut next);` inside an annotated function: the callee's `vjp`
//!    writes `next`, its pullback takes `next`'s shadow in place (Enzyme's convention: the
//!    cotangent of the values after the call in, that of the values before it out). An
//!    explicit-Euler and an RK4 step called in loops of annotated integrators, a writer
//!    calling writers, `matvec(m, &x, &mut y)`, an output partially written, an output
//!    read before it is written, a writer's float result used (`let n = f(&x, &mut u);`)
//!    and dropped, writing calls in a checkpointed loop, a writer of rows, and the double
//!    buffer `std::mem::swap(&mut state, &mut next)`.
//! 3. A part of a flat array written by such a call, `f(&x, &mut out[a..b])` (also `a..`,
//!    `..=b`), per trip of a loop, in place over overlapping parts, with a result; the
//!    bounds evaluated once.
//! 4. Writing methods of a constant receiver, `layer.apply(&x, &mut h);`, from a free
//!    function and from another method, as a statement and as a value.
//! 5. Local buffers filled with a differentiable value, `vec![x[0]; n]`, `[s; 3]`.
//! 6. `copy_from_slice` between float arrays; (6., 7.) writing calls whose tuple result
//!    is destructured, of functions and of methods.
//! 8. The caller's own `&mut [f64]` parameter passed on as it is (`step(x, s, y);`, which
//!    Rust reborrows), then (9.) to calls whose value is used (`let e = w(x, y);`, in
//!    expressions, returned, in loops, checkpointed, generic), (10.) to a reader as a
//!    statement (`check(y);`), and (11.) to a reader returning a struct: each against the
//!    form spelling `&mut y` (or `&y` for a reader), to the bit.
//! 12. A writer's value dropped where its derivative is infinite (was NaN: the callee's
//!     pullback met a zero cotangent; it now takes none, `vjp_partial`'s `None`); (13.)
//!     `&mut y` of a `mut y` parameter in a checkpointed function; (14.) `&*y` passed to
//!     a reader, against `&y` to the bit; (15.) the caller's own `&mut [f64]` parameter
//!     passed as it is to an annotated method (`self.relax(x, y);`, `r.relaxed(x, s,
//!     y);`), against `&mut *y` to the bit; (16.) several passed on in one call
//!     (`kick(pos, vel, dt)`), to writers of both, of one, and to readers, against the
//!     spelled form (`&*pos, &mut *vel`); (17.) a value bound and unread, read on a branch
//!     not taken, a tuple's part dropped, readers' values unread, and struct results'
//!     fields unread (a zero field of a struct's cotangent is none), each where the
//!     derivative is infinite.
//!
//! Each function is checked as in `differentiable_slices.rs` (`common::faces`): `f`,
//! `f::grad`, `f::grad_into` and `f::jvp` give `f::primal`'s value to the bit; the
//! gradient matches central differences of `f::primal`; `grad_into` gives `grad`'s
//! gradient to the bit; `jvp` along `v` is `⟨∇f, v⟩`; second order by differences of
//! `f::grad` and `f::jvp`. A writer itself is checked through `⟨w, out⟩` with `out`'s
//! initial values as inputs too (it may keep or read them).

// The functions are written as users write them, index loops included.
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::manual_memcpy,
    clippy::useless_vec
)]

#[macro_use]
mod common;

use common::faces::{Case, point, split};
use common::{central_differences, close};
use gradtape::differentiable;
use num_traits::Float;

// ----- 1. arrays of a generic float type -----

#[differentiable]
fn generic_dot<T: Float>(a: &[T], b: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..a.len() {
        s = s + a[i] * b[i];
    }
    s
}

/// A generic helper over arrays, called three times by a generic caller.
/// `.sum()` and `.product()` over arrays of a generic float type (they started from the
/// literals `0.0`/`1.0`, which are not a `T`, and did not compile).
#[differentiable]
fn generic_sum_and_product<T: Float + std::iter::Sum + std::iter::Product>(x: &[T], w: &[T]) -> T {
    let s: T = x.iter().zip(w).map(|(a, b)| *a * *b).sum();
    let p: T = x.iter().map(|a| T::one() + *a * *a).product();
    s * p
}

#[differentiable]
fn generic_cosine<T: Float>(x: &[T], w: &[T]) -> T {
    generic_dot(x, w) / (generic_dot(x, x).sqrt() * generic_dot(w, w).sqrt())
}

/// Iterator forms and `max` over `&[T]`.
#[differentiable]
fn generic_log_sum_exp<T: Float>(x: &[T]) -> T {
    let m = x.iter().fold(T::neg_infinity(), |acc, v| acc.max(*v));
    let mut s = T::zero();
    for v in x.iter() {
        s = s + (*v - m).exp();
    }
    s.ln() + m
}

/// `Vec<T>` by value, `&Vec<T>`, a local `vec![T::zero(); n]` and `T::from` constants.
#[differentiable]
fn generic_smoothed_energy<T: Float>(x: Vec<T>, w: &Vec<T>) -> T {
    let half = T::from(0.5).unwrap();
    let mut smooth = vec![T::zero(); x.len()];
    smooth[0] = x[0];
    for i in 1..x.len() {
        smooth[i] = half * (smooth[i - 1] + x[i]);
    }
    let mut e = T::zero();
    for i in 0..x.len() {
        e = e + w[i] * smooth[i] * smooth[i];
    }
    e
}

/// A typed local `Vec<T>` grown by `push`.
#[differentiable]
fn generic_pushed<T: Float>(x: &[T]) -> T {
    let mut v: Vec<T> = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        v.push(x[i].sin() * x[i]);
    }
    let mut p = T::one();
    for i in 0..v.len() {
        p = p * (T::one() + v[i] * v[i]);
    }
    p.ln()
}

/// `[T; 6]` by value: the squared area of a triangle, shoelace formula.
#[differentiable]
fn generic_triangle_area2<T: Float>(p: [T; 6]) -> T {
    let cross = (p[2] - p[0]) * (p[5] - p[1]) - (p[4] - p[0]) * (p[3] - p[1]);
    let quarter = T::from(0.25).unwrap();
    quarter * cross * cross
}

/// A `&mut [T]` output.
#[differentiable]
fn generic_scale_into<T: Float>(x: &[T], s: T, out: &mut [T]) {
    for i in 0..x.len() {
        out[i] = s * x[i].tanh();
    }
}

/// A generic writer called by a generic caller.
#[differentiable]
fn generic_scaled_norm<T: Float>(x: &[T], s: T) -> T {
    let mut out = vec![T::zero(); x.len()];
    generic_scale_into(x, s, &mut out);
    generic_dot(&out, &out).sqrt()
}

#[test]
fn generic_arrays_at_f64() {
    slices!(@second_order generic_dot, [4, 4], [0, 1], point(8, 1, -1.0, 1.0));
    slices!(@second_order generic_sum_and_product, [4, 4], [0, 1], point(8, 5, -1.0, 1.0));
    slices!(@second_order generic_cosine, [4, 4], [0, 1], point(8, 2, 0.2, 1.0));
    slices!(@second_order generic_log_sum_exp, [5], [0], point(5, 3, -2.0, 2.0));
    slices!(@second_order generic_pushed, [4], [0], point(4, 4, -1.0, 1.0));
    let lens = [5, 5];
    Case {
        name: "generic_smoothed_energy",
        itself: &|x| {
            let p = split(x, &lens);
            generic_smoothed_energy(p[0].clone(), &p[1])
        },
        primal: &|x| {
            let p = split(x, &lens);
            generic_smoothed_energy::primal(p[0].clone(), &p[1])
        },
        grad: Some(&|x| {
            let p = split(x, &lens);
            let (value, g) = generic_smoothed_energy::grad(p[0].clone(), &p[1]);
            (value, g.concat())
        }),
        grad_into: &|x| {
            let p = split(x, &lens);
            let (mut dx, mut dw) = (vec![0.0; 5], vec![0.0; 5]);
            let value = generic_smoothed_energy::grad_into(p[0].clone(), &p[1], &mut dx, &mut dw);
            (value, [dx, dw].concat())
        },
        jvp: &|x, v| {
            let (p, t) = (split(x, &lens), split(v, &lens));
            generic_smoothed_energy::jvp(p[0].clone(), &p[1], &t[0], &t[1])
        },
    }
    .check_with_second_order(&point(10, 5, -1.0, 1.0));
    let six = |x: &[f64]| -> [f64; 6] { x.try_into().unwrap() };
    Case {
        name: "generic_triangle_area2",
        itself: &|x| generic_triangle_area2(six(x)),
        primal: &|x| generic_triangle_area2::primal(six(x)),
        grad: Some(&|x| {
            let (value, [g]) = generic_triangle_area2::grad(six(x));
            (value, g.to_vec())
        }),
        grad_into: &|x| {
            let mut d = [0.0; 6];
            let value = generic_triangle_area2::grad_into(six(x), &mut d);
            (value, d.to_vec())
        },
        jvp: &|x, v| generic_triangle_area2::jvp(six(x), v),
    }
    .check_with_second_order(&point(6, 6, -1.0, 1.0));
    Case {
        name: "generic_scaled_norm",
        itself: &|x| generic_scaled_norm(&x[1..], x[0]),
        primal: &|x| generic_scaled_norm::primal(&x[1..], x[0]),
        grad: Some(&|x| {
            let (value, (dx, ds)) = generic_scaled_norm::grad(&x[1..], x[0]);
            (value, [vec![ds], dx].concat())
        }),
        grad_into: &|x| {
            let (mut dx, mut ds) = (vec![0.0; x.len() - 1], 0.0);
            let value = generic_scaled_norm::grad_into(&x[1..], x[0], &mut dx, &mut ds);
            (value, [vec![ds], dx].concat())
        },
        jvp: &|x, v| generic_scaled_norm::jvp(&x[1..], x[0], &v[1..], v[0]),
    }
    .check_with_second_order(&point(5, 7, 0.3, 1.5));
    Writer {
        name: "generic_scale_into",
        inputs: 4,
        outputs: 3,
        primal: &|x, out| generic_scale_into::primal(&x[1..], x[0], out),
        itself: &|x, out| generic_scale_into(&x[1..], x[0], out),
        grad_into: &|x, out, dx, d_out| {
            let (d_s, d_x) = dx.split_at_mut(1);
            generic_scale_into::grad_into(&x[1..], x[0], out, d_x, &mut d_s[0], d_out);
        },
        jvp: &|x, out, v, t| {
            generic_scale_into::jvp(&x[1..], x[0], out, &v[1..], v[0], t);
        },
    }
    .check(&point(4, 8, -1.0, 1.0), &point(3, 9, -1.0, 1.0));
}

/// The same generic code at f32: values and gradients as at f64 to f32's precision, and
/// `grad_into` equal to `grad` to the bit.
#[test]
fn generic_arrays_at_f32() {
    let x64 = point(5, 11, 0.2, 1.0);
    let w64 = point(5, 12, 0.2, 1.0);
    let narrow = |v: &[f64]| v.iter().map(|&v| v as f32).collect::<Vec<f32>>();
    let (x32, w32) = (narrow(&x64), narrow(&w64));
    let agree = |name: &str, (v32, g32): (f32, Vec<f32>), (v64, g64): (f64, Vec<f64>)| {
        assert!(close(f64::from(v32), v64, 1e-5), "{name}: {v32} vs {v64}");
        for (k, (a, b)) in g32.iter().zip(&g64).enumerate() {
            assert!(close(f64::from(*a), *b, 1e-4), "{name}: d/dx{k} {a} vs {b}");
        }
    };
    let (v32, [dx32, dw32]) = generic_cosine::grad(&x32[..], &w32[..]);
    let (v64, [dx64, dw64]) = generic_cosine::grad(&x64[..], &w64[..]);
    agree(
        "generic_cosine",
        (v32, [dx32.clone(), dw32.clone()].concat()),
        (v64, [dx64, dw64].concat()),
    );
    let (mut dx, mut dw) = (vec![0.0_f32; 5], vec![0.0_f32; 5]);
    assert_eq!(
        generic_cosine::grad_into(&x32, &w32, &mut dx, &mut dw).to_bits(),
        v32.to_bits()
    );
    assert_eq!((dx, dw), (dx32, dw32));
    let (v32, [g32]) = generic_log_sum_exp::grad(&x32[..]);
    let (v64, [g64]) = generic_log_sum_exp::grad(&x64[..]);
    agree("generic_log_sum_exp", (v32, g32), (v64, g64));
    let (v32, (gx32, gs32)) = generic_scaled_norm::grad(&x32[..], 0.7_f32);
    let (v64, (gx64, gs64)) = generic_scaled_norm::grad(&x64[..], 0.7_f64);
    agree(
        "generic_scaled_norm",
        (v32, [vec![gs32], gx32].concat()),
        (v64, [vec![gs64], gx64].concat()),
    );
    // the tangent at f32 is ⟨∇f, v⟩ at f32
    let (_, t32) = generic_log_sum_exp::jvp(&x32[..], &w32[..]);
    let (_, [g32]) = generic_log_sum_exp::grad(&x32[..]);
    let dot: f32 = g32.iter().zip(&w32).map(|(g, v)| g * v).sum();
    assert!((t32 - dot).abs() < 1e-5, "jvp {t32} vs {dot}");
}

// ----- 2. calls of annotated functions writing `&mut [f64]` -----

/// One explicit-Euler step of a damped oscillator, `x' = v`, `v' = -k x - c v`.
#[differentiable]
fn oscillator_step(state: &[f64], k: f64, dt: f64, next: &mut [f64]) {
    let c = 0.1;
    next[0] = state[0] + dt * state[1];
    next[1] = state[1] + dt * (-k * state[0] - c * state[1]);
}

/// Explicit Euler over 25 steps, the state carried in two local buffers: the energy at the
/// end.
#[differentiable]
fn euler_energy(x0: &[f64], k: f64) -> f64 {
    let mut state = vec![0.0; 2];
    state[0] = x0[0];
    state[1] = x0[1];
    let mut next = vec![0.0; 2];
    for _ in 0..25 {
        oscillator_step(&state, k, 0.05, &mut next);
        for i in 0..2 {
            state[i] = next[i];
        }
    }
    0.5 * (k * state[0] * state[0] + state[1] * state[1])
}

/// A pendulum's rate of change, `θ' = ω`, `ω' = -k sin θ`, into `rate`.
#[differentiable]
fn pendulum_rate(s: &[f64], k: f64, rate: &mut [f64]) {
    rate[0] = s[1];
    rate[1] = -k * s[0].sin();
}

/// One classic RK4 step: a writer calling a writer four times, with local stage buffers.
#[differentiable]
fn rk4_step(state: &[f64], k: f64, dt: f64, next: &mut [f64]) {
    let mut k1 = [0.0; 2];
    let mut k2 = [0.0; 2];
    let mut k3 = [0.0; 2];
    let mut k4 = [0.0; 2];
    let mut mid = [0.0; 2];
    pendulum_rate(state, k, &mut k1);
    for i in 0..2 {
        mid[i] = state[i] + 0.5 * dt * k1[i];
    }
    pendulum_rate(&mid, k, &mut k2);
    for i in 0..2 {
        mid[i] = state[i] + 0.5 * dt * k2[i];
    }
    pendulum_rate(&mid, k, &mut k3);
    for i in 0..2 {
        mid[i] = state[i] + dt * k3[i];
    }
    pendulum_rate(&mid, k, &mut k4);
    for i in 0..2 {
        next[i] = state[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

/// RK4 over 20 steps: the final angle's cosine.
#[differentiable]
fn rk4_final(s0: &[f64], k: f64) -> f64 {
    let mut state = s0.to_vec();
    let mut next = vec![0.0; 2];
    for _ in 0..20 {
        rk4_step(&state, k, 0.1, &mut next);
        state[0] = next[0];
        state[1] = next[1];
    }
    state[0].cos() + 0.1 * state[1]
}

/// Two Euler steps into the caller's output: a writer passing its own `&mut` output on.
#[differentiable]
fn two_steps(state: &[f64], k: f64, out: &mut [f64]) {
    let mut mid = vec![0.0; 2];
    oscillator_step(state, k, 0.1, &mut mid);
    oscillator_step(&mid, k, 0.1, &mut *out);
}

#[differentiable]
fn matvec(m: &[[f64; 3]], x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += m[i][j] * x[j];
        }
        y[i] = s;
    }
}

/// Two layers of the same matrix, `tanh` between them.
#[differentiable]
fn two_layers(m: &[[f64; 3]], x: &[f64]) -> f64 {
    let mut h = vec![0.0; 3];
    matvec(m, x, &mut h);
    for i in 0..3 {
        h[i] = h[i].tanh();
    }
    let mut y = [0.0; 3];
    matvec(m, &h, &mut y);
    y[0] * y[0] + y[1] * y[2]
}

/// Writes only the first `x.len()` elements of `out`.
#[differentiable]
fn overwrite_head(x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = x[i] * x[i];
    }
}

/// The buffer's tail keeps the values written before the call: their cotangents must pass
/// through the callee untouched, the head's must stop there.
#[differentiable]
fn partly_overwritten(x: &[f64], y: &[f64]) -> f64 {
    let mut buf = vec![0.0; y.len()];
    for i in 0..y.len() {
        buf[i] = y[i].sin();
    }
    overwrite_head(x, &mut buf);
    let mut s = 0.0;
    for i in 0..buf.len() {
        s += (i as f64 + 1.0) * buf[i] * y[i];
    }
    s
}

/// Reads each element of `u` before overwriting it (a relaxation sweep, in place).
#[differentiable]
fn relax(source: &[f64], u: &mut [f64]) {
    for i in 0..u.len() {
        u[i] = 0.5 * u[i] + 0.25 * source[i] * u[i].cos();
    }
}

#[differentiable]
fn relaxed(source: &[f64], u0: &[f64]) -> f64 {
    let mut u = u0.to_vec();
    for _ in 0..6 {
        relax(source, &mut u);
    }
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i] * u[i];
    }
    s
}

/// A writer with a result of its own, which the caller's statement drops.
#[differentiable]
fn normalise_into(x: &[f64], out: &mut [f64]) -> f64 {
    let mut n = 0.0;
    for i in 0..x.len() {
        n += x[i] * x[i];
    }
    let n = n.sqrt();
    for i in 0..x.len() {
        out[i] = x[i] / n;
    }
    n
}

/// The writer's result used as well as its output.
#[differentiable]
fn normalised_and_scaled(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len()];
    let norm = normalise_into(x, &mut u);
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i] * x[i] * x[i];
    }
    s * norm.ln()
}

#[differentiable]
fn normalised_moment(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len()];
    normalise_into(x, &mut u);
    let mut s = 0.0;
    for i in 0..u.len() {
        s += (i as f64 + 1.0) * u[i];
    }
    s
}

#[test]
fn integrators_calling_step_functions() {
    slice_and_float!(@second_order euler_energy, vec![1.0, 0.3, 2.0]);
    slice_and_float!(@second_order rk4_final, vec![0.8, -0.2, 1.5]);
}

#[test]
fn calls_writing_outputs() {
    // 3 × 3 matrix row after row, then x
    let m_and_x = |x: &[f64]| -> (Vec<[f64; 3]>, Vec<f64>) {
        let m = x[..9].chunks(3).map(|r| [r[0], r[1], r[2]]).collect();
        (m, x[9..].to_vec())
    };
    Case {
        name: "two_layers",
        itself: &|x| {
            let (m, v) = m_and_x(x);
            two_layers(&m, &v)
        },
        primal: &|x| {
            let (m, v) = m_and_x(x);
            two_layers::primal(&m, &v)
        },
        grad: Some(&|x| {
            let (m, v) = m_and_x(x);
            let (value, (dm, dv)) = two_layers::grad(&m, &v);
            (value, [dm.concat(), dv].concat())
        }),
        grad_into: &|x| {
            let (m, v) = m_and_x(x);
            let (mut dm, mut dv) = (vec![[0.0; 3]; 3], vec![0.0; 3]);
            let value = two_layers::grad_into(&m, &v, &mut dm, &mut dv);
            (value, [dm.concat(), dv].concat())
        },
        jvp: &|x, t| {
            let (m, v) = m_and_x(x);
            let (tm, tv) = m_and_x(t);
            two_layers::jvp(&m, &v, &tm, &tv)
        },
    }
    .check_with_second_order(&point(12, 31, -1.0, 1.0));
    slices!(@second_order partly_overwritten, [2, 5], [0, 1], point(7, 32, -1.0, 1.0));
    slices!(@second_order relaxed, [4, 4], [0, 1], point(8, 33, -1.0, 1.0));
    slices!(@second_order normalised_moment, [4], [0], point(4, 34, 0.5, 1.5));
    slices!(@second_order normalised_and_scaled, [4], [0], point(4, 35, 0.5, 1.5));
}

/// `(x, out, dx, d_out)` of a writer's `grad_into`.
type Writes<'a> = &'a dyn Fn(&[f64], &mut [f64], &mut [f64], &mut [f64]);
/// `(x, out, v, tangent of out)` of a writer's `jvp`.
type WritesTangent<'a> = &'a dyn Fn(&[f64], &mut [f64], &[f64], &mut [f64]);

/// A writer checked on its own: `x` and `out`'s initial values are its inputs (it may keep
/// or read them), `⟨w, out⟩` its objective.
struct Writer<'a> {
    name: &'a str,
    inputs: usize,
    outputs: usize,
    primal: &'a dyn Fn(&[f64], &mut [f64]),
    itself: &'a dyn Fn(&[f64], &mut [f64]),
    /// `grad_into(x, out, dx, d_out)`.
    grad_into: Writes<'a>,
    /// `jvp(x, out, v, tangent of out)`, the tangent buffer holding that of `out`'s
    /// initial values.
    jvp: WritesTangent<'a>,
}

impl Writer<'_> {
    fn check(&self, x: &[f64], out0: &[f64]) {
        let (name, n) = (self.name, self.inputs);
        assert_eq!((x.len(), out0.len()), (n, self.outputs));
        let w = point(self.outputs, 7, -1.0, 1.0);
        let objective = |all: &[f64]| {
            let mut out = all[n..].to_vec();
            (self.primal)(&all[..n], &mut out);
            out.iter().zip(&w).map(|(o, w)| o * w).sum::<f64>()
        };
        let all = [x, out0].concat();
        let mut expected = out0.to_vec();
        (self.primal)(x, &mut expected);
        let mut out = out0.to_vec();
        (self.itself)(x, &mut out);
        assert_eq!(out, expected, "{name}: itself");
        let (mut out, mut dx, mut d_out) = (out0.to_vec(), vec![0.0; n], w.clone());
        (self.grad_into)(x, &mut out, &mut dx, &mut d_out);
        assert_eq!(out, expected, "{name}: grad_into's output");
        let gradient = [dx, d_out].concat();
        let by_differences = central_differences(&objective, &all);
        for (k, (g, e)) in gradient.iter().zip(&by_differences).enumerate() {
            assert!(
                close(*g, *e, 1e-5),
                "{name}: d/d{k} = {g}, central differences {e}"
            );
        }
        let v = point(all.len(), 5, -1.0, 1.0);
        let (mut out, mut tangent) = (out0.to_vec(), v[n..].to_vec());
        (self.jvp)(x, &mut out, &v[..n], &mut tangent);
        assert_eq!(out, expected, "{name}: jvp's output");
        let along: f64 = tangent.iter().zip(&w).map(|(t, w)| t * w).sum();
        let dot: f64 = gradient.iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            close(along, dot, 1e-10),
            "{name}: jvp {along} vs <grad, v> {dot}"
        );
    }
}

#[test]
fn writers_on_their_own() {
    Writer {
        name: "relax",
        inputs: 3,
        outputs: 3,
        primal: &|x, u| relax::primal(x, u),
        itself: &|x, u| relax(x, u),
        grad_into: &|x, u, dx, du| relax::grad_into(x, u, dx, du),
        jvp: &|x, u, v, t| {
            relax::jvp(x, u, v, t);
        },
    }
    .check(&point(3, 41, -1.0, 1.0), &point(3, 42, -1.0, 1.0));
    Writer {
        name: "overwrite_head",
        inputs: 2,
        outputs: 4,
        primal: &|x, out| overwrite_head::primal(x, out),
        itself: &|x, out| overwrite_head(x, out),
        grad_into: &|x, out, dx, d_out| overwrite_head::grad_into(x, out, dx, d_out),
        jvp: &|x, out, v, t| {
            overwrite_head::jvp(x, out, v, t);
        },
    }
    .check(&point(2, 43, -1.0, 1.0), &point(4, 44, -1.0, 1.0));
    Writer {
        name: "rk4_step",
        inputs: 3,
        outputs: 2,
        primal: &|x, out| rk4_step::primal(&x[..2], x[2], 0.1, out),
        itself: &|x, out| rk4_step(&x[..2], x[2], 0.1, out),
        grad_into: &|x, out, dx, d_out| {
            let (d_state, d_k) = dx.split_at_mut(2);
            rk4_step::grad_into(
                &x[..2],
                x[2],
                0.1,
                out,
                d_state,
                &mut d_k[0],
                &mut 0.0,
                d_out,
            );
        },
        jvp: &|x, out, v, t| {
            rk4_step::jvp(&x[..2], x[2], 0.1, out, &v[..2], v[2], 0.0, t);
        },
    }
    .check(&[0.8, -0.2, 1.5], &[0.0, 0.0]);
    Writer {
        name: "two_steps",
        inputs: 3,
        outputs: 2,
        primal: &|x, out| two_steps::primal(&x[..2], x[2], out),
        itself: &|x, out| two_steps(&x[..2], x[2], out),
        grad_into: &|x, out, dx, d_out| {
            let (d_state, d_k) = dx.split_at_mut(2);
            two_steps::grad_into(&x[..2], x[2], out, d_state, &mut d_k[0], d_out);
        },
        jvp: &|x, out, v, t| {
            two_steps::jvp(&x[..2], x[2], out, &v[..2], v[2], t);
        },
    }
    .check(&[1.0, 0.3, 2.0], &[0.5, -0.5]);
}

/// A writer's `vjp`, which annotated callers call: its pullback takes the output's
/// cotangent in place and gives what `grad_into` gives.
#[test]
fn a_writers_vjp_is_its_grad_into() {
    let source = [0.3, -0.7, 1.1];
    let u0 = [0.5, 0.25, -1.0];
    let w = [1.0, -2.0, 0.5];
    let mut u = u0;
    let ((), pullback) = relax::vjp(&source, &mut u);
    let mut d_u = w;
    let (d_source, ()) = pullback((), &mut d_u);
    let (mut u_into, mut d_source_into, mut d_u_into) = (u0, [0.0; 3], w);
    relax::grad_into(&source, &mut u_into, &mut d_source_into, &mut d_u_into);
    assert_eq!(u, u_into);
    assert_eq!(d_source.unwrap(), d_source_into.to_vec());
    assert_eq!(d_u, d_u_into);
    // by hand, element i: u' = u/2 + s cos(u)/4, so ∂u'/∂s = cos(u)/4, ∂u'/∂u = 1/2 - s sin(u)/4
    for i in 0..3 {
        let (s, u) = (source[i], u0[i]);
        assert!((d_source_into[i] - w[i] * u.cos() / 4.0).abs() < 1e-15);
        assert!((d_u_into[i] - w[i] * (0.5 - s * u.sin() / 4.0)).abs() < 1e-15);
    }
}

// ----- 3. generic code handing parts and copies of arrays on -----

/// A range of a generic array passed on (copied into a local part first), a generic
/// `to_vec` copy, and a literal of generic values.
#[differentiable]
fn generic_parts<T: Float>(x: &[T]) -> T {
    let tail = generic_dot(&x[1..], &x[1..]);
    let mut copy = x.to_vec();
    copy[0] = copy[0] * tail;
    let pair = [copy[0], x[1].sin()];
    generic_dot(&copy, x) + generic_dot(&pair, &pair)
}

#[test]
fn generic_parts_and_copies() {
    slices!(@second_order generic_parts, [4], [0], point(4, 51, -1.0, 1.0));
    let x: Vec<f32> = point(4, 51, -1.0, 1.0).iter().map(|&v| v as f32).collect();
    let (v32, [g32]) = generic_parts::grad(&x[..]);
    let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let (v64, [g64]) = generic_parts::grad(&x64[..]);
    assert!(close(f64::from(v32), v64, 1e-5), "{v32} vs {v64}");
    for (a, b) in g32.iter().zip(&g64) {
        assert!(close(f64::from(*a), *b, 1e-4), "{a} vs {b}");
    }
}

/// `relaxed` with its loop checkpointed: the segments rerun the writing calls from
/// snapshots of `u`, so the gradient is the same to the bit.
#[differentiable(checkpoint(snapshots = 2))]
fn relaxed_checkpointed(source: &[f64], u0: &[f64]) -> f64 {
    let mut u = u0.to_vec();
    for _ in 0..6 {
        relax(source, &mut u);
    }
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i] * u[i];
    }
    s
}

#[test]
fn writing_calls_in_a_checkpointed_loop() {
    let (source, u0) = (point(4, 61, -1.0, 1.0), point(4, 62, -1.0, 1.0));
    let (value, [d_source, d_u0]) = relaxed::grad(&source, &u0);
    let (by_segments, [s_source, s_u0]) = relaxed_checkpointed::grad(&source, &u0);
    assert_eq!(by_segments.to_bits(), value.to_bits());
    assert_eq!(
        relaxed_checkpointed(&source, &u0).to_bits(),
        value.to_bits()
    );
    assert_eq!((s_source, s_u0), (d_source, d_u0));
}

/// A writer of an array of rows: the outer product `m[i][j] = a[i] b[j]`.
#[differentiable]
fn outer_into(a: &[f64], b: &[f64], m: &mut [[f64; 2]]) {
    for i in 0..m.len() {
        for j in 0..2 {
            m[i][j] = a[i] * b[j];
        }
    }
}

#[differentiable]
fn outer_energy(a: &[f64], b: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 3];
    outer_into(a, b, &mut m);
    let mut s = 0.0;
    for i in 0..3 {
        s += m[i][0].sin() * m[i][1];
    }
    s
}

#[test]
fn a_writer_of_rows() {
    slices!(@second_order outer_energy, [3, 2], [0, 1], point(5, 71, -1.0, 1.0));
    // on its own, its output's buffers in rows: `grad_into` and `jvp` against ⟨w, m⟩
    let rows = |v: &[f64]| -> Vec<[f64; 2]> { v.chunks(2).map(|r| [r[0], r[1]]).collect() };
    Writer {
        name: "outer_into",
        inputs: 5,
        outputs: 6,
        primal: &|x, out| {
            let mut m = rows(out);
            outer_into::primal(&x[..3], &x[3..], &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        itself: &|x, out| {
            let mut m = rows(out);
            outer_into(&x[..3], &x[3..], &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        grad_into: &|x, out, dx, d_out| {
            let (mut m, mut d_m) = (rows(out), rows(d_out));
            let (d_a, d_b) = dx.split_at_mut(3);
            outer_into::grad_into(&x[..3], &x[3..], &mut m, d_a, d_b, &mut d_m);
            out.copy_from_slice(m.as_flattened());
            d_out.copy_from_slice(d_m.as_flattened());
        },
        jvp: &|x, out, v, t| {
            let (mut m, mut t_m) = (rows(out), rows(t));
            outer_into::jvp(&x[..3], &x[3..], &mut m, &v[..3], &v[3..], &mut t_m);
            out.copy_from_slice(m.as_flattened());
            t.copy_from_slice(t_m.as_flattened());
        },
    }
    .check(&point(5, 72, -1.0, 1.0), &point(6, 73, -1.0, 1.0));
}

/// A writer of whole rows: `m[i] = r;` from a local row and `m[0] = [..];` from a literal
/// reading the row it replaces, into a `&mut [[f64; 2]]` output (formerly the macro's
/// error "a row ... cannot be copied or written whole").
#[differentiable]
fn rows_into(a: &[f64], b: &[f64], m: &mut [[f64; 2]]) {
    for i in 0..m.len() {
        let r = [a[i] * b[0], a[i].sin() + b[1] * m[i][1]];
        m[i] = r;
    }
    m[0] = [m[0][1] * b[1], m[0][0]];
}

/// The same into a `&mut [[f64; 2]; 3]` output.
#[differentiable]
fn rows_into_fixed(a: &[f64], b: &[f64], m: &mut [[f64; 2]; 3]) {
    for i in 0..3 {
        let r = [a[i] * b[0], a[i].sin() + b[1] * m[i][1]];
        m[i] = r;
    }
    m[0] = [m[0][1] * b[1], m[0][0]];
}

#[differentiable]
fn rows_into_energy(a: &[f64], b: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 3];
    rows_into(a, b, &mut m);
    let mut n = [[0.5; 2]; 3];
    rows_into_fixed(a, b, &mut n);
    let mut s = 0.0;
    for i in 0..3 {
        s += m[i][0].sin() * m[i][1] + n[i][0] * n[i][1];
    }
    s
}

#[test]
fn a_writer_of_whole_rows() {
    slices!(@second_order rows_into_energy, [3, 2], [0, 1], point(5, 74, -1.0, 1.0));
    let rows = |v: &[f64]| -> Vec<[f64; 2]> { v.chunks(2).map(|r| [r[0], r[1]]).collect() };
    Writer {
        name: "rows_into",
        inputs: 5,
        outputs: 6,
        primal: &|x, out| {
            let mut m = rows(out);
            rows_into::primal(&x[..3], &x[3..], &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        itself: &|x, out| {
            let mut m = rows(out);
            rows_into(&x[..3], &x[3..], &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        grad_into: &|x, out, dx, d_out| {
            let (mut m, mut d_m) = (rows(out), rows(d_out));
            let (d_a, d_b) = dx.split_at_mut(3);
            rows_into::grad_into(&x[..3], &x[3..], &mut m, d_a, d_b, &mut d_m);
            out.copy_from_slice(m.as_flattened());
            d_out.copy_from_slice(d_m.as_flattened());
        },
        jvp: &|x, out, v, t| {
            let (mut m, mut t_m) = (rows(out), rows(t));
            rows_into::jvp(&x[..3], &x[3..], &mut m, &v[..3], &v[3..], &mut t_m);
            out.copy_from_slice(m.as_flattened());
            t.copy_from_slice(t_m.as_flattened());
        },
    }
    .check(&point(5, 75, -1.0, 1.0), &point(6, 76, -1.0, 1.0));
    let fixed = |v: &[f64]| -> [[f64; 2]; 3] { [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]]] };
    Writer {
        name: "rows_into_fixed",
        inputs: 5,
        outputs: 6,
        primal: &|x, out| {
            let mut m = fixed(out);
            rows_into_fixed::primal(&x[..3], &x[3..], &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        itself: &|x, out| {
            let mut m = fixed(out);
            rows_into_fixed(&x[..3], &x[3..], &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        grad_into: &|x, out, dx, d_out| {
            let (mut m, mut d_m) = (fixed(out), fixed(d_out));
            let (d_a, d_b) = dx.split_at_mut(3);
            rows_into_fixed::grad_into(&x[..3], &x[3..], &mut m, d_a, d_b, &mut d_m);
            out.copy_from_slice(m.as_flattened());
            d_out.copy_from_slice(d_m.as_flattened());
        },
        jvp: &|x, out, v, t| {
            let (mut m, mut t_m) = (fixed(out), fixed(t));
            rows_into_fixed::jvp(&x[..3], &x[3..], &mut m, &v[..3], &v[3..], &mut t_m);
            out.copy_from_slice(m.as_flattened());
            t.copy_from_slice(t_m.as_flattened());
        },
    }
    .check(&point(5, 77, -1.0, 1.0), &point(6, 78, -1.0, 1.0));
}

// ----- `swap` of rows and of elements -----
//
// `m.swap(i, j)` on an array of rows (a `&mut [[f64; 2]]` output, a local `[[T; 2]; 3]`,
// a literal of rows) exchanges the rows' elements one at a time (`iterators.rs`; it was
// the macro's error "a differentiable array ... cannot be copied" on the attribute: the
// rewrite moved a row whole through a temporary, in tokens of its own);
// `a.swap(i, j)` on a flat array is the exchange of two elements. The writers are checked
// on their own (`Writer`) and through callers at order 2 (`slices!`: `grad_into` against
// `grad` too); the local arrays against dual numbers as well (`Twice`).

/// Swaps rows of its output, between updates reading them, the second swap's indices
/// computed.
#[differentiable]
fn rows_swapped(a: &[f64], m: &mut [[f64; 2]]) {
    for i in 0..m.len() {
        m[i][0] = m[i][0] * a[i] + m[i][1];
    }
    m.swap(0, 2);
    m[0][1] = m[0][1] * a[1].sin() + m[2][0];
    let last = m.len() - 1;
    m.swap(last - 1, 0);
    m[1][0] += m[0][1] * a[0];
}

/// Swaps elements of its output, and of its caller's output twice (back to the start).
#[differentiable]
fn elements_swapped(a: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = out[i] * a[i] + a[(i + 1) % a.len()];
    }
    out.swap(0, 2);
    out[0] *= out[1].cos();
    out.swap(1, 1);
    out.swap(2, 1);
}

#[differentiable]
fn swapped_energy(a: &[f64], b: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 3];
    for i in 0..3 {
        m[i][0] = b[i];
        m[i][1] = b[i] * a[i];
    }
    rows_swapped(a, &mut m);
    m.swap(2, 1);
    let mut flat = [b[0], b[1] * b[2], a[2]];
    elements_swapped(a, &mut flat);
    flat.swap(0, 1);
    let mut s = 0.0;
    for i in 0..3 {
        s += m[i][0].sin() * m[i][1] + flat[i] * m[i][0] * (i + 1) as f64;
    }
    s
}

twice! {
    /// Local arrays of rows, typed and not, swapped by constant and computed indices
    /// between writes.
    fn local_rows_swapped / local_rows_swapped_on_duals<T>(x: &[T]) -> T {
        let mut m: [[T; 2]; 3] = [[x[0], x[1]], [x[1] * x[2], T::one()], [x[2], x[0].sin()]];
        m.swap(0, 2);
        m[1][1] = m[1][1] * m[0][0];
        for i in 0..3 {
            m.swap(i, 2 - i);
            m[i][0] = m[i][0] * m[i][1] + x[i];
        }
        // untyped: a literal of rows
        let mut r = [[x[2], x[0]], [x[1], x[1] * x[0]]];
        r.swap(1, 0);
        r[0][1] = r[0][1] * r[1][1];
        let mut s = r[0][0] * r[0][1] + r[1][0];
        for i in 0..3 {
            s = s + m[i][0] * T::from(i + 1).unwrap() + m[i][1] * m[i][1];
        }
        s
    }
}

twice! {
    /// A local flat array, swapped by constant and computed indices between writes.
    fn local_elements_swapped / local_elements_swapped_on_duals<T>(x: &[T]) -> T {
        let mut a = [x[0], x[1] * x[2], x[2].exp()];
        a.swap(0, 2);
        a[1] = a[1] * a[0];
        for i in 0..3 {
            a.swap(i, (i + 1) % 3);
            a[i] = a[i] * x[i] + a[2];
        }
        a[0] * a[1] + a[2] * x[0]
    }
}

#[test]
fn swaps_of_rows_and_of_elements() {
    slices!(@second_order swapped_energy, [3, 3], [0, 1], point(6, 81, -1.0, 1.0));
    let rows = |v: &[f64]| -> Vec<[f64; 2]> { v.chunks(2).map(|r| [r[0], r[1]]).collect() };
    Writer {
        name: "rows_swapped",
        inputs: 3,
        outputs: 6,
        primal: &|x, out| {
            let mut m = rows(out);
            rows_swapped::primal(x, &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        itself: &|x, out| {
            let mut m = rows(out);
            rows_swapped(x, &mut m);
            out.copy_from_slice(m.as_flattened());
        },
        grad_into: &|x, out, dx, d_out| {
            let (mut m, mut d_m) = (rows(out), rows(d_out));
            rows_swapped::grad_into(x, &mut m, dx, &mut d_m);
            out.copy_from_slice(m.as_flattened());
            d_out.copy_from_slice(d_m.as_flattened());
        },
        jvp: &|x, out, v, t| {
            let (mut m, mut t_m) = (rows(out), rows(t));
            rows_swapped::jvp(x, &mut m, v, &mut t_m);
            out.copy_from_slice(m.as_flattened());
            t.copy_from_slice(t_m.as_flattened());
        },
    }
    .check(&point(3, 82, -1.0, 1.0), &point(6, 83, -1.0, 1.0));
    Writer {
        name: "elements_swapped",
        inputs: 3,
        outputs: 3,
        primal: &|x, out| elements_swapped::primal(x, out),
        itself: &|x, out| elements_swapped(x, out),
        grad_into: &|x, out, dx, d_out| elements_swapped::grad_into(x, out, dx, d_out),
        jvp: &|x, out, v, t| {
            elements_swapped::jvp(x, out, v, t);
        },
    }
    .check(&point(3, 84, -1.0, 1.0), &point(3, 85, -1.0, 1.0));
    one_slice_twice!(local_rows_swapped, local_rows_swapped_on_duals at [0.3, -0.8, 1.1]
    );
    one_slice_twice!(local_elements_swapped, local_elements_swapped_on_duals at [0.6, 0.4, -0.9]
    );
    slices!(@second_order local_rows_swapped, [3], [0], point(3, 86, -1.0, 1.0));
    slices!(@second_order local_elements_swapped, [3], [0], point(3, 87, -1.0, 1.0));
}

// ----- an array of rows passed on as it is (regression, issue 13) -----
//
// A `&mut [[f64; 2]]` parameter passed on bare (`f(a, m)`, which Rust reborrows) to a
// call whose value is used was taken for read, and a writer then got rustc's E0057 and
// E0308 in the expansion ("argument #2 of type `&mut [f64]` is missing"). It is now lent
// as the callee's parameter takes it (`generated::lend`), as a flat array's is.

/// Writes the rows from `a` and returns a value of its own.
#[differentiable]
fn fill_rows(a: &[f64], m: &mut [[f64; 2]]) -> f64 {
    for i in 0..m.len() {
        m[i][0] = a[i] * m[i][1] + 2.0 * a[i];
        m[i][1] = a[i].sin();
    }
    a[0] * a[0]
}

/// Reads the rows.
#[differentiable]
fn row_products(m: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        s += m[i][0] * m[i][1];
    }
    s
}

/// Writes the rows and a flat array beside them.
#[differentiable]
fn fill_rows_and_sums(a: &[f64], m: &mut [[f64; 2]], sums: &mut [f64]) -> f64 {
    let e = fill_rows(a, m);
    for i in 0..sums.len() {
        sums[i] = m[i][0] + m[i][1] * e;
    }
    e
}

/// Passes its rows on as they are: to a writer and a reader whose values it uses, to a
/// writer in a loop (replayed), to a reader whose value it drops, and beside a flat
/// array another writer writes.
#[differentiable]
fn rows_passed_on(a: &[f64], m: &mut [[f64; 2]], sums: &mut [f64]) -> f64 {
    let e = fill_rows(a, m);
    let mut total = e + row_products(m);
    for _ in 0..2 {
        total += fill_rows(a, m) * row_products(m);
    }
    row_products(m);
    total + fill_rows_and_sums(a, m, sums)
}

/// The same through a parameter of fixed rows, `&mut [[f64; 2]; 3]`.
#[differentiable]
fn fixed_rows_passed_on(a: &[f64], m: &mut [[f64; 2]; 3]) -> f64 {
    let e = fill_rows(a, m);
    e * row_products(m)
}

#[differentiable]
fn rows_passed_on_energy(a: &[f64]) -> f64 {
    let mut m = [[0.25; 2]; 3];
    let mut sums = [0.0; 3];
    let total = rows_passed_on(a, &mut m, &mut sums);
    let mut n = [[0.5; 2]; 3];
    let fixed = fixed_rows_passed_on(a, &mut n);
    total + m[1][0] * sums[2] + sums[0].cos() + fixed * n[2][1]
}

#[test]
fn an_array_of_rows_passed_on_as_it_is() {
    slices!(@second_order rows_passed_on_energy, [3], [0], point(3, 91, -1.0, 1.0));
    // the value as written, by hand: every pass reads and writes the same rows
    let a = [0.4, -0.7, 0.9];
    let fill = |m: &mut [[f64; 2]; 3]| {
        for i in 0..3 {
            m[i][0] = a[i] * m[i][1] + 2.0 * a[i];
            m[i][1] = a[i].sin();
        }
        a[0] * a[0]
    };
    let products = |m: &[[f64; 2]; 3]| m.iter().map(|r| r[0] * r[1]).sum::<f64>();
    let mut m = [[0.25; 2]; 3];
    let e = fill(&mut m);
    let mut total = e + products(&m);
    for _ in 0..2 {
        let f = fill(&mut m);
        total += f * products(&m);
    }
    let e = fill(&mut m);
    let sums: Vec<f64> = (0..3).map(|i| m[i][0] + m[i][1] * e).collect();
    total += e;
    let mut n = [[0.5; 2]; 3];
    let e = fill(&mut n);
    let fixed = e * products(&n);
    let expected = total + m[1][0] * sums[2] + sums[0].cos() + fixed * n[2][1];
    assert!(close(rows_passed_on_energy(&a), expected, 1e-15));
}

/// The integrator's double buffer, `std::mem::swap(&mut state, &mut next)`: the shadows
/// are swapped back in the adjoint.
#[differentiable]
fn euler_energy_swapping(x0: &[f64], k: f64) -> f64 {
    let mut state = vec![x0[0], x0[1]];
    let mut next = vec![0.0; 2];
    for _ in 0..25 {
        oscillator_step(&state, k, 0.05, &mut next);
        std::mem::swap(&mut state, &mut next);
    }
    0.5 * (k * state[0] * state[0] + state[1] * state[1])
}

#[test]
fn swapped_buffers() {
    slice_and_float!(@second_order euler_energy_swapping, vec![1.0, 0.3, 2.0]);
    // the same steps as copying the buffer back
    let (x0, k) = ([1.0, 0.3], 2.0);
    let (value, (dx, dk)) = euler_energy_swapping::grad(&x0, k);
    let (copied, (cdx, cdk)) = euler_energy::grad(&x0, k);
    assert_eq!((value, dx, dk), (copied, cdx, cdk));
}

// ----- 3. calls writing a part of a flat array, `f(&x, &mut out[a..b]);` -----

/// A rotation of the plane applied to `p`, written into `out`.
#[differentiable]
fn rotate_into(angle: f64, p: &[f64], out: &mut [f64]) {
    let (s, c) = angle.sin_cos();
    out[0] = c * p[0] - s * p[1];
    out[1] = s * p[0] + c * p[1];
}

/// Each pair of `points` rotated into its own part of one buffer, in a loop (the parts'
/// bounds differ per trip, so the adjoint must reuse each trip's), and an element no call
/// writes.
#[differentiable]
fn rotated_pairs(points: &[f64], angles: &[f64]) -> f64 {
    let n = angles.len();
    let mut out = vec![0.0; 2 * n + 1];
    out[2 * n] = points[0] * points[1];
    for i in 0..n {
        rotate_into(
            angles[i],
            &points[2 * i..2 * i + 2],
            &mut out[2 * i..2 * i + 2],
        );
    }
    let mut s = 0.0;
    for i in 0..out.len() {
        s += (i as f64 + 1.0) * out[i] * out[i];
    }
    s
}

/// Parts relaxed in place (`relax` reads each element before overwriting it), by an
/// open-ended and an inclusive range, and a writer's result used beside its part.
#[differentiable]
fn relaxed_parts(source: &[f64], u0: &[f64]) -> f64 {
    let mut u = u0.to_vec();
    let n = u.len();
    for _ in 0..3 {
        relax(source, &mut u[1..]);
        relax(source, &mut u[..=2]);
    }
    let norm = normalise_into(&source[..2], &mut u[n - 2..]);
    let mut s = norm * u[0];
    for i in 0..n {
        s += u[i] * u[i] * (i as f64 + 0.5);
    }
    s
}

#[test]
fn calls_writing_parts_of_arrays() {
    slices!(@second_order rotated_pairs, [6, 3], [0, 1], point(9, 36, -1.0, 1.0));
    slices!(@second_order relaxed_parts, [4, 5], [0, 1], point(9, 37, 0.3, 1.2));
}

/// A part written by a callee leaves the rest of the array's cotangents alone, and a part
/// taken with bounds that have side effects evaluates them once (regression for the
/// bounds: they live in locals the adjoint reuses, not in the expressions re-evaluated).
#[differentiable]
fn part_with_counted_bounds(x: &[f64]) -> f64 {
    let mut out = vec![0.0; 4];
    for i in 0..4 {
        out[i] = x[i] * x[i];
    }
    let mut next = 0;
    let mut bump = || {
        next += 1;
        next
    };
    rotate_into(x[0], &x[1..3], &mut out[bump()..bump() + 1]);
    out[0] + 2.0 * out[1] + 3.0 * out[2] + 4.0 * out[3] + next as f64
}

#[test]
fn a_parts_bounds_are_evaluated_once() {
    let x = [0.3, -0.7, 1.1, 0.4];
    // bump() gives 1 then 2: the part is out[1..3]; `next` ends at 2
    let (s, c) = x[0].sin_cos();
    let (r0, r1) = (c * x[1] - s * x[2], s * x[1] + c * x[2]);
    let expected = x[0] * x[0] + 2.0 * r0 + 3.0 * r1 + 4.0 * x[3] * x[3] + 2.0;
    assert!((part_with_counted_bounds(&x) - expected).abs() < 1e-15);
    let (value, [g]) = part_with_counted_bounds::grad(&x);
    assert!((value - expected).abs() < 1e-15);
    let by_differences = central_differences(&|x: &[f64]| part_with_counted_bounds::primal(x), &x);
    for (k, (g, e)) in g.iter().zip(&by_differences).enumerate() {
        assert!(
            close(*g, *e, 1e-6),
            "d/dx{k} = {g}, central differences {e}"
        );
    }
}

// ----- 4. calls of annotated methods writing `&mut [f64]` -----

/// A dense layer whose parameters are data (`self` is a constant in scalar mode).
struct Dense2 {
    w: [[f64; 3]; 2],
    b: [f64; 2],
}

impl Dense2 {
    /// `out = tanh(W x + b)`.
    #[differentiable]
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..2 {
            let mut s = self.b[i];
            for j in 0..3 {
                s += self.w[i][j] * x[j];
            }
            out[i] = s.tanh();
        }
    }

    /// `out = scale · (W x)`, and `|W x|²` as its result.
    #[differentiable]
    fn apply_scaled(&self, x: &[f64], scale: f64, out: &mut [f64]) -> f64 {
        let mut norm = 0.0;
        for i in 0..2 {
            let mut s = 0.0;
            for j in 0..3 {
                s += self.w[i][j] * x[j];
            }
            out[i] = scale * s;
            norm += s * s;
        }
        norm
    }

    /// A method calling a writing method of `self`.
    #[differentiable]
    fn energy(&self, x: &[f64]) -> f64 {
        let mut h = [0.0; 2];
        self.apply(x, &mut h);
        h[0] * h[0] + 3.0 * h[1]
    }
}

/// A free function calling a layer's writing methods: as a statement, and as a value
/// writing a part of a buffer.
#[differentiable]
fn layer_energy(layer: &Dense2, x: &[f64]) -> f64 {
    let mut h = [0.0; 2];
    layer.apply(x, &mut h);
    let mut out = vec![x[0]; 4];
    out[3] = x[2];
    let n = layer.apply_scaled(x, h[0], &mut out[1..3]);
    h[0] * h[1] + out[0] * out[1] - out[2] * n + out[3] + layer.energy(x)
}

#[test]
fn calls_of_writing_methods() {
    let layer = Dense2 {
        w: [[0.3, -0.5, 0.8], [0.6, 0.2, -0.4]],
        b: [0.1, -0.2],
    };
    let x = point(3, 41, -1.0, 1.0);
    Case {
        name: "layer_energy",
        itself: &|x| layer_energy(&layer, x),
        primal: &|x| layer_energy::primal(&layer, x),
        grad: Some(&|x| {
            let (value, [dx]) = layer_energy::grad(&layer, x);
            (value, dx)
        }),
        grad_into: &|x| {
            let mut dx = vec![0.0; 3];
            let value = layer_energy::grad_into(&layer, x, &mut dx);
            (value, dx)
        },
        jvp: &|x, v| layer_energy::jvp(&layer, x, v),
    }
    .check_with_second_order(&x);
    // the method's own companion items: `energy_grad` against differences of the method
    let (value, [dx]) = layer.energy_grad(&x);
    assert_eq!(value, layer.energy(&x));
    let by_differences = central_differences(&|x: &[f64]| layer.energy(x), &x);
    for (k, (g, e)) in dx.iter().zip(&by_differences).enumerate() {
        assert!(
            close(*g, *e, 1e-6),
            "energy: d/dx{k} = {g}, central differences {e}"
        );
    }
}

// ----- 5. local buffers filled with a differentiable value, `vec![e; n]`, `[e; N]` -----

/// Buffers filled with differentiable values: at the top, inside a loop (a fresh buffer
/// per trip), as a fixed array, and beside a fill of a constant (`f64::INFINITY`).
#[differentiable]
fn filled_buffers(x: &[f64], w: &[f64]) -> f64 {
    let mut running = vec![x[0] * w[0]; x.len()];
    for i in 1..x.len() {
        running[i] = running[i - 1] * 0.5 + x[i] * w[i];
    }
    let mut best = vec![f64::INFINITY; x.len()];
    let mut total = 0.0;
    for i in 0..x.len() {
        let scaled = [running[i].sin(); 3];
        let local = vec![x[i] - w[i]; 2];
        best[i] = best[i].min(scaled[0] * scaled[2] + local[1]);
        total += best[i] * (i as f64 + 1.0);
    }
    total
}

/// The same at a generic float type.
#[differentiable]
fn generic_filled<T: Float>(x: &[T]) -> T {
    let mut acc = vec![x[0]; x.len()];
    for i in 1..x.len() {
        acc[i] = acc[i - 1] * x[i];
    }
    acc[x.len() - 1]
}

#[test]
fn buffers_filled_with_differentiable_values() {
    slices!(@second_order filled_buffers, [4, 4], [0, 1], point(8, 43, -1.0, 1.0));
    slices!(@second_order generic_filled, [4], [0], point(4, 44, 0.5, 1.5));
    // the product's gradient by hand: x0 x1 x2 x3 / x_i
    let x = [0.5, 1.5, 2.0, 0.8];
    let (value, [g]) = generic_filled::grad(&x[..]);
    let product: f64 = x.iter().product();
    assert!((value - product).abs() < 1e-15);
    for (gi, xi) in g.iter().zip(&x) {
        assert!((gi - product / xi).abs() < 1e-14);
    }
}

// ----- 6. `copy_from_slice` between float arrays -----

/// A double buffer copied back with `copy_from_slice` each step, and a part copied into a
/// fixed array.
#[differentiable]
fn copied_back(x0: &[f64], k: f64) -> f64 {
    let mut state = x0.to_vec();
    let mut next = vec![0.0; x0.len()];
    for _ in 0..5 {
        for i in 0..state.len() {
            next[i] = state[i] - 0.1 * k * state[(i + 1) % state.len()].sin();
        }
        state.copy_from_slice(&next);
    }
    let mut head = [0.0; 2];
    head.copy_from_slice(&state[1..3]);
    state[0] * head[0] + head[1]
}

#[test]
fn copies_from_slices() {
    slice_and_float!(@second_order copied_back, vec![1.0, 0.3, -0.5, 2.0]);
}

/// Slices of different lengths panic, as `copy_from_slice` does.
#[differentiable]
fn copied_mismatched(x: &[f64]) -> f64 {
    let mut head = [0.0; 2];
    head.copy_from_slice(x);
    head[0] * head[1]
}

#[test]
#[should_panic(expected = "copy_from_slice: the two slices have different lengths")]
fn copies_of_different_lengths_panic() {
    let _ = copied_mismatched::grad(&[1.0, 2.0, 3.0]);
}

#[test]
#[should_panic(expected = "source slice length (3) does not match destination slice length (2)")]
fn copies_of_different_lengths_panic_in_the_function_itself() {
    // nothing records: the body as written, so std's own message
    let _ = copied_mismatched(&[1.0, 2.0, 3.0]);
}

// ----- 6. a writing call whose tuple result is destructured -----

/// A writer returning a tuple: the norm and the largest square, besides `out` (formerly
/// the trybuild case `writing-call-with-a-tuple-result`, rejected at the caller).
#[differentiable]
fn normalise_with_stats(x: &[f64], out: &mut [f64]) -> (f64, f64) {
    let mut n = 0.0;
    let mut largest = 0.0;
    for i in 0..x.len() {
        n += x[i] * x[i];
        if x[i] * x[i] > largest {
            largest = x[i] * x[i];
        }
    }
    let n = n.sqrt();
    for i in 0..x.len() {
        out[i] = x[i] / n;
    }
    (n, largest)
}

/// `let (a, b) = f(&x, &mut out);`, both parts used, and `(c, _) = f(..);` assigned to
/// existing locals with one part dropped, in a loop.
#[differentiable]
fn stats_used(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len()];
    let (norm, largest) = normalise_with_stats(x, &mut u);
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i] * x[i] * largest;
    }
    let mut again = 0.0;
    for _ in 0..2 {
        let mut w = vec![0.0; u.len()];
        (again, _) = normalise_with_stats(&u, &mut w);
        u[0] = w[0] * again + u[1];
    }
    s * norm.ln() + again * u[0]
}

#[test]
fn a_writing_call_with_a_tuple_result() {
    slices!(@second_order stats_used, [3], [0], vec![0.7, -1.1, 0.4]);
    slices!(stats_used, [5], [0], point(5, 79, -1.0, 1.0));
}

// ----- 7. a writing method whose tuple result is destructured -----

impl Dense2 {
    /// `out = W x` and, as a tuple, `|W x|²` and `s · Σ out`.
    #[differentiable]
    fn project_with_stats(&self, x: &[f64], s: f64, out: &mut [f64]) -> (f64, f64) {
        let mut norm = 0.0;
        let mut total = 0.0;
        for i in 0..2 {
            let mut v = self.b[i];
            for j in 0..3 {
                v += self.w[i][j] * x[j];
            }
            out[i] = v;
            norm += v * v;
            total += s * v;
        }
        (norm, total)
    }
}

/// `let (a, b) = layer.method(&x, &mut out);`, as a free function's tuple is (formerly
/// rejected as a destructured method call), and `(c, _) = layer.method(..);` assigned to
/// an existing local with one part dropped, in a loop.
#[differentiable]
fn method_stats_used(layer: &Dense2, x: &[f64]) -> f64 {
    let mut h = [0.0; 2];
    let (norm, total) = layer.project_with_stats(x, x[0], &mut h);
    let mut again = 0.0;
    for _ in 0..2 {
        let mut g = [0.0; 2];
        let input = [h[0], h[1], x[2]];
        (again, _) = layer.project_with_stats(&input, again + 0.5, &mut g);
        h[0] = g[1] * x[1];
    }
    norm.sqrt() * total + h[0] * h[1] + again
}

#[test]
fn a_writing_method_with_a_tuple_result() {
    let layer = Dense2 {
        w: [[0.3, -0.5, 0.8], [0.6, 0.2, -0.4]],
        b: [0.1, -0.2],
    };
    for x in [vec![0.7, -1.1, 0.4], point(3, 83, -1.0, 1.0)] {
        Case {
            name: "method_stats_used",
            itself: &|x| method_stats_used(&layer, x),
            primal: &|x| method_stats_used::primal(&layer, x),
            grad: Some(&|x| {
                let (value, [dx]) = method_stats_used::grad(&layer, x);
                (value, dx)
            }),
            grad_into: &|x| {
                let mut dx = vec![0.0; 3];
                let value = method_stats_used::grad_into(&layer, x, &mut dx);
                (value, dx)
            },
            jvp: &|x, v| method_stats_used::jvp(&layer, x, v),
        }
        .check_with_second_order(&x);
    }
    // one call of the method's own `vjp` per call, its tuple's parts bound from its value
    let generated = method_stats_used::GENERATED;
    assert!(
        generated.contains(".project_with_stats_vjp_partial("),
        "{generated}"
    );
    assert!(!generated.contains(".project_with_stats("), "{generated}");
}

// ----- 8. a `&mut` parameter passed straight on, `step(x, s, y);` -----

/// `y₀ ← y₀ + h x₀ cos y₀`, `yᵢ ← yᵢ + h xᵢ sin yᵢ₋₁` (the new `yᵢ₋₁`), in place: a writer
/// reading the old values it overwrites.
#[differentiable]
fn nudge(x: &[f64], s: usize, y: &mut [f64]) {
    let h = 1.0 / s as f64;
    let first = y[0];
    y[0] = first + h * x[0] * first.cos();
    for i in 1..y.len() {
        y[i] += h * x[i] * y[i - 1].sin();
    }
}

/// `y` (its initial values kept in part) stepped `s` times, the caller's own `&mut`
/// parameter passed on as it is (Rust reborrows it): a replayed call in a loop. This
/// failed with rustc's E0308 under the attribute (the call was taken for one reading `y`,
/// replayed with a shared copy and given a shared tangent).
#[differentiable]
fn nudged_in_a_loop(x: &[f64], s: usize, y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 0.5 * y[i] + 0.1;
    }
    for _ in 0..s {
        nudge(x, s, y);
    }
}

/// [`nudged_in_a_loop`] with the reborrow `&mut y` spelled out (the form that compiled):
/// the oracle.
#[differentiable]
#[allow(clippy::needless_borrow)]
fn nudged_in_a_loop_reborrowed(x: &[f64], s: usize, mut y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 0.5 * y[i] + 0.1;
    }
    for _ in 0..s {
        nudge(x, s, &mut y);
    }
}

/// Straight-line code: passed on twice in a row, written, passed on again.
#[differentiable]
fn nudged_twice(x: &[f64], s: usize, y: &mut [f64]) {
    nudge(x, s, y);
    nudge(x, s, y);
    y[0] *= x[1];
    nudge(x, s, y);
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn nudged_twice_reborrowed(x: &[f64], s: usize, mut y: &mut [f64]) {
    nudge(x, s, &mut y);
    nudge(x, s, &mut y);
    y[0] *= x[1];
    nudge(x, s, &mut y);
}

/// Outside any loop, in a branch.
#[differentiable]
fn nudged_in_a_branch(x: &[f64], s: usize, y: &mut [f64]) {
    if x[0] > 0.0 {
        nudge(x, s, y);
    } else {
        nudge(x, s + 1, y);
        nudge(x, s, y);
    }
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn nudged_in_a_branch_reborrowed(x: &[f64], s: usize, mut y: &mut [f64]) {
    if x[0] > 0.0 {
        nudge(x, s, &mut y);
    } else {
        nudge(x, s + 1, &mut y);
        nudge(x, s, &mut y);
    }
}

#[differentiable]
fn sum_of_squares(a: &[f64]) -> f64 {
    let mut t = 0.0;
    for i in 0..a.len() {
        t += a[i] * a[i];
    }
    t
}

/// A writer with a value: `y` passed on as it is to writers (statements), then to a reader
/// whose value is used (`sum_of_squares(y)`, a shared parameter: still a read).
#[differentiable]
fn nudged_energy(x: &[f64], y: &mut [f64]) -> f64 {
    nudged_in_a_loop(x, 3, y);
    nudge(x, 2, y);
    sum_of_squares(y) * x[2]
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn nudged_energy_reborrowed(x: &[f64], mut y: &mut [f64]) -> f64 {
    nudged_in_a_loop_reborrowed(x, 3, &mut y);
    nudge(x, 2, &mut y);
    sum_of_squares(y) * x[2]
}

/// [`nudged_energy`] from a copy of `y0`: a function with `grad` and a `vjp` of one result.
#[differentiable]
fn nudged_energy_of(x: &[f64], y0: &[f64]) -> f64 {
    let mut y = y0.to_vec();
    nudged_energy(x, &mut y)
}

#[differentiable]
fn nudged_energy_of_reborrowed(x: &[f64], y0: &[f64]) -> f64 {
    let mut y = y0.to_vec();
    nudged_energy_reborrowed(x, &mut y)
}

/// `(x, s, y)` of a writer.
type Passes = fn(&[f64], usize, &mut [f64]);
/// `(x, s, y, d_x, d_y)` of a writer's `grad_into`.
type PassesInto = fn(&[f64], usize, &mut [f64], &mut [f64], &mut [f64]);
/// `(x, s, y, tangent of x, tangent of y)` of a writer's `jvp`.
type PassesTangent = fn(&[f64], usize, &mut [f64], &[f64], &mut [f64]);
/// `(x, s, y, d_y)` of a writer's `vjp` and its pullback: `d_x`, `d_y` in place.
type PassesPullback = fn(&[f64], usize, &mut [f64], &mut [f64]) -> Vec<f64>;

/// One form of a writer passing its `y` on: `f`, `f::primal`, `f::grad_into`, `f::jvp`,
/// `f::vjp`.
type PassingForm = (Passes, Passes, PassesInto, PassesTangent, PassesPullback);

macro_rules! passing_form {
    ($f:ident) => {
        (
            |x, s, y| $f(x, s, y),
            |x, s, y| $f::primal(x, s, y),
            |x, s, y, dx, dy| $f::grad_into(x, s, y, dx, dy),
            |x, s, y, v, t| {
                $f::jvp(x, s, y, v, t);
            },
            |x, s, y, dy| {
                let ((), pullback) = $f::vjp(x, s, y);
                pullback((), dy).0.expect("a gradient")
            },
        )
    };
}

/// The bare form checked on its own (its output, `grad_into` against central differences,
/// `jvp` against `⟨∇, v⟩`), then against the reborrow form: the same output, gradient
/// (`grad_into`, and `vjp`'s pullback) and tangent, to the bit.
fn check_passed_on(name: &str, bare: PassingForm, reborrowed: PassingForm) {
    let x = point(4, 91, -1.0, 1.0);
    // both signs of `x₀`: both branches of `nudged_in_a_branch`
    check_passed_on_at(name, &x, bare, reborrowed);
    check_passed_on_at(name, &[-x[0], x[1], x[2], x[3]], bare, reborrowed);
}

fn check_passed_on_at(name: &str, x: &[f64], bare: PassingForm, reborrowed: PassingForm) {
    let s = 3;
    let (x, y0) = (x.to_vec(), point(4, 92, -1.0, 1.0));
    let (itself, primal, grad_into, jvp, vjp) = bare;
    let (_, re_primal, re_grad_into, re_jvp, re_vjp) = reborrowed;
    Writer {
        name,
        inputs: 4,
        outputs: 4,
        primal: &|x, y| primal(x, s, y),
        itself: &|x, y| itself(x, s, y),
        grad_into: &|x, y, dx, dy| grad_into(x, s, y, dx, dy),
        jvp: &|x, y, v, t| jvp(x, s, y, v, t),
    }
    .check(&x, &y0);
    let w = point(4, 93, -1.0, 1.0);
    let run_into = |f: PassesInto| {
        let (mut y, mut dx, mut dy) = (y0.clone(), vec![0.0; 4], w.clone());
        f(&x, s, &mut y, &mut dx, &mut dy);
        (y, dx, dy)
    };
    let by_grad_into = run_into(grad_into);
    assert_eq!(by_grad_into, run_into(re_grad_into), "{name}: grad_into");
    let run_vjp = |f: PassesPullback| {
        let (mut y, mut dy) = (y0.clone(), w.clone());
        let dx = f(&x, s, &mut y, &mut dy);
        (y, dx, dy)
    };
    let by_vjp = run_vjp(vjp);
    assert_eq!(by_vjp, run_vjp(re_vjp), "{name}: vjp");
    assert_eq!(by_vjp.0, by_grad_into.0, "{name}: vjp's output");
    for (k, (a, b)) in [&by_vjp.1[..], &by_vjp.2]
        .concat()
        .iter()
        .zip([&by_grad_into.1[..], &by_grad_into.2].concat())
        .enumerate()
    {
        assert!(close(*a, b, 1e-12), "{name}: d/d{k} vjp {a}, grad_into {b}");
    }
    let (mut y, mut re_y) = (y0.clone(), y0.clone());
    primal(&x, s, &mut y);
    re_primal(&x, s, &mut re_y);
    assert_eq!(y, re_y, "{name}: primal");
    let v = point(8, 94, -1.0, 1.0);
    let run_jvp = |f: PassesTangent| {
        let (mut y, mut t) = (y0.clone(), v[4..].to_vec());
        f(&x, s, &mut y, &v[..4], &mut t);
        (y, t)
    };
    assert_eq!(run_jvp(jvp), run_jvp(re_jvp), "{name}: jvp");
}

/// `step(x, s, y);` of a `y: &mut [f64]` parameter (which Rust reborrows), in a loop, in
/// straight-line code twice in a row, and in a branch: the gradients of `&mut y`.
#[test]
fn a_mut_parameter_passed_straight_on() {
    check_passed_on(
        "nudged_in_a_loop",
        passing_form!(nudged_in_a_loop),
        passing_form!(nudged_in_a_loop_reborrowed),
    );
    check_passed_on(
        "nudged_twice",
        passing_form!(nudged_twice),
        passing_form!(nudged_twice_reborrowed),
    );
    check_passed_on(
        "nudged_in_a_branch",
        passing_form!(nudged_in_a_branch),
        passing_form!(nudged_in_a_branch_reborrowed),
    );
    // each call replayed (`vjp_into`) as the reborrow's is
    for (bare, reborrowed) in [
        (
            nudged_in_a_loop::GENERATED,
            nudged_in_a_loop_reborrowed::GENERATED,
        ),
        (nudged_twice::GENERATED, nudged_twice_reborrowed::GENERATED),
        (
            nudged_in_a_branch::GENERATED,
            nudged_in_a_branch_reborrowed::GENERATED,
        ),
    ] {
        let calls = |generated: &str| {
            let into = generated.matches("vjp_into(").count();
            (into, generated.matches("::vjp(").count())
        };
        assert_eq!(calls(bare), calls(reborrowed), "{bare}");
        assert!(calls(bare).0 > 0, "{bare}");
    }
}

/// `(x, y, d_x, d_y) -> value` of a writer with a value's `grad_into`.
type ValueInto = fn(&[f64], &mut [f64], &mut [f64], &mut [f64]) -> f64;

/// A writer with a value passing its `y` on to writers and then to a reader
/// (`sum_of_squares(y)`), called on a copy: `grad`, `grad_into`, `vjp` and `jvp` against
/// central differences and the reborrow form; the writer's own `grad_into` and `vjp` too.
#[test]
fn a_mut_parameter_passed_straight_on_then_read() {
    let at = point(8, 95, -1.0, 1.0);
    slices!(@second_order nudged_energy_of, [4, 4], [0, 1], at.clone());
    let (x, y0) = (&at[..4], &at[4..]);
    let (value, [dx, dy]) = nudged_energy_of::grad(x, y0);
    let (re_value, [re_dx, re_dy]) = nudged_energy_of_reborrowed::grad(x, y0);
    assert_eq!(value.to_bits(), re_value.to_bits());
    assert_eq!(
        nudged_energy_of_reborrowed(x, y0).to_bits(),
        value.to_bits()
    );
    assert_eq!((&dx, &dy), (&re_dx, &re_dy));
    let (by_vjp, pullback) = nudged_energy_of::vjp(x, y0);
    let (re_by_vjp, re_pullback) = nudged_energy_of_reborrowed::vjp(x, y0);
    assert_eq!(by_vjp.to_bits(), re_by_vjp.to_bits());
    let (vdx, vdy) = pullback(1.0);
    assert_eq!((vdx.clone(), vdy.clone()), re_pullback(1.0));
    for (a, b) in [vdx.unwrap(), vdy.unwrap()]
        .concat()
        .iter()
        .zip([dx, dy].concat())
    {
        assert!(close(*a, b, 1e-12), "vjp {a}, grad {b}");
    }
    // the writer itself: `grad_into` and `vjp` of the bare form are the reborrow's
    let into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.to_vec(), vec![0.0; 4], vec![0.5; 4]);
        let value = f(x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    assert_eq!(
        into(|x, y, dx, dy| nudged_energy::grad_into(x, y, dx, dy)),
        into(|x, y, dx, dy| nudged_energy_reborrowed::grad_into(x, y, dx, dy)),
    );
    let (mut y, mut re_y) = (y0.to_vec(), y0.to_vec());
    let (value, pullback) = nudged_energy::vjp(x, &mut y);
    let (re_value, re_pullback) = nudged_energy_reborrowed::vjp(x, &mut re_y);
    assert_eq!((value.to_bits(), &y), (re_value.to_bits(), &re_y));
    let (mut dy, mut re_dy) = (vec![0.5; 4], vec![0.5; 4]);
    assert_eq!(pullback(1.0, &mut dy), re_pullback(1.0, &mut re_dy));
    assert_eq!(dy, re_dy);
}

// ----- 9. a `&mut` parameter passed straight on to a call whose value is used -----

/// A writer with a value: `y` nudged in place, and an energy of its new values returned.
#[differentiable]
fn nudge_energy(x: &[f64], y: &mut [f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..y.len() {
        y[i] += 0.5 * x[i] * y[i].sin();
        e += y[i] * y[i] * x[i];
    }
    e
}

/// `let e = w(x, y);` of the caller's own `y: &mut [f64]`, passed on as it is (Rust
/// reborrows it). This failed with rustc's E0308: a call whose value is used was taken for
/// one reading `y`.
#[differentiable]
fn energy_in_a_let(x: &[f64], y: &mut [f64]) -> f64 {
    let e = nudge_energy(x, y);
    e * x[0] + y[1]
}

/// [`energy_in_a_let`] with the reborrow `&mut y` spelled out (the form that compiled):
/// the oracle, as the other `_reborrowed` forms below.
#[differentiable]
#[allow(clippy::needless_borrow)]
fn energy_in_a_let_reborrowed(x: &[f64], mut y: &mut [f64]) -> f64 {
    let e = nudge_energy(x, &mut y);
    e * x[0] + y[1]
}

/// Inside an expression, `y` read after the call (Rust evaluates left to right).
#[differentiable]
fn energy_in_an_expression(x: &[f64], y: &mut [f64]) -> f64 {
    x[1] * nudge_energy(x, y) + y[0] * y[2]
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn energy_in_an_expression_reborrowed(x: &[f64], mut y: &mut [f64]) -> f64 {
    x[1] * nudge_energy(x, &mut y) + y[0] * y[2]
}

/// As the tail, and returned early from a branch.
#[differentiable]
fn energy_returned(x: &[f64], y: &mut [f64]) -> f64 {
    if x[0] > 0.0 {
        return nudge_energy(x, y);
    }
    y[0] *= x[1];
    nudge_energy(x, y)
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn energy_returned_reborrowed(x: &[f64], mut y: &mut [f64]) -> f64 {
    if x[0] > 0.0 {
        return nudge_energy(x, &mut y);
    }
    y[0] *= x[1];
    nudge_energy(x, &mut y)
}

/// In a loop, the values summed.
#[differentiable]
fn energy_in_a_loop(x: &[f64], y: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for _ in 0..3 {
        total += nudge_energy(x, y);
    }
    total
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn energy_in_a_loop_reborrowed(x: &[f64], mut y: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for _ in 0..3 {
        total += nudge_energy(x, &mut y);
    }
    total
}

/// A reader's value used the same way (`sum_of_squares(y)`, a shared parameter), beside
/// a writer's: the oracle passes `&y`.
#[differentiable]
fn read_in_a_let(x: &[f64], y: &mut [f64]) -> f64 {
    let before = sum_of_squares(y);
    let e = nudge_energy(x, y);
    before * e + x[3] * sum_of_squares(y)
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn read_in_a_let_shared(x: &[f64], mut y: &mut [f64]) -> f64 {
    let before = sum_of_squares(&y);
    let e = nudge_energy(x, &mut y);
    before * e + x[3] * sum_of_squares(&y)
}

/// In a checkpointed loop, a writer's value and a reader's.
#[differentiable(checkpoint(snapshots = 2))]
fn energy_checkpointed(x: &[f64], y: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for _ in 0..4 {
        total += nudge_energy(x, y) * sum_of_squares(y);
    }
    total
}

/// (`&mut *y`; `&mut y` of a `mut y` parameter, which failed with rustc's E0596 here, is
/// [`energy_checkpointed_mut`] in section 13)
#[differentiable(checkpoint(snapshots = 2))]
#[allow(clippy::needless_borrow)]
fn energy_checkpointed_reborrowed(x: &[f64], y: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for _ in 0..4 {
        total += nudge_energy(x, &mut *y) * sum_of_squares(&y);
    }
    total
}

/// Generic over the float type: a generic writer's value and a generic reader's
/// (`generic_dot(y, x)`).
#[differentiable]
fn generic_nudge_energy<T: Float>(x: &[T], y: &mut [T]) -> T {
    let mut e = T::zero();
    for i in 0..y.len() {
        y[i] = y[i] + x[i] * y[i].sin();
        e = e + y[i] * y[i];
    }
    e
}

#[differentiable]
fn generic_energy_in_a_let<T: Float>(x: &[T], y: &mut [T]) -> T {
    let e = generic_nudge_energy(x, y);
    e * x[0] + generic_dot(y, x)
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn generic_energy_in_a_let_reborrowed<T: Float>(x: &[T], mut y: &mut [T]) -> T {
    let e = generic_nudge_energy(x, &mut y);
    e * x[0] + generic_dot(&y, x)
}

/// `(x, y) -> value` of a writer with a value.
type Valued = fn(&[f64], &mut [f64]) -> f64;
/// `(x, y, tangent of x, tangent of y) -> (value, its tangent)` of its `jvp`.
type ValuedTangent = fn(&[f64], &mut [f64], &[f64], &mut [f64]) -> (f64, f64);
/// `(x, y, d_y) -> (value, d_x)` of its `vjp` and the pullback of `1`, `d_y` in place.
type ValuedPullback = fn(&[f64], &mut [f64], &mut [f64]) -> (f64, Vec<f64>);

/// One form of a writer with a value passing its `y` on: `f`, `f::primal`,
/// `f::grad_into`, `f::jvp`, `f::vjp`.
type ValuedForm = (Valued, Valued, ValueInto, ValuedTangent, ValuedPullback);

macro_rules! valued_form {
    ($f:ident) => {
        (
            |x, y| $f(x, y),
            |x, y| $f::primal(x, y),
            |x, y, dx, dy| $f::grad_into(x, y, dx, dy),
            |x, y, v, t| $f::jvp(x, y, v, t),
            |x, y, dy| {
                let (value, pullback) = $f::vjp(x, y);
                let (dx, ()) = pullback(1.0, dy);
                (value, dx.expect("a gradient"))
            },
        )
    };
}

/// The bare form checked on its own, `value + ⟨w, y⟩` its objective (`y`'s initial values
/// inputs too): its value and output against `f::primal`'s, to the bit; `grad_into`
/// against central differences; `vjp`'s pullback against `grad_into`; `jvp` against
/// `⟨∇, v⟩`. Then against the oracle form: the same value, output, gradient (`grad_into`,
/// and `vjp`'s pullback) and tangent, to the bit.
fn check_valued(name: &str, bare: ValuedForm, oracle: ValuedForm) {
    let x = point(4, 96, -1.0, 1.0);
    // both signs of `x₀`: both branches of `energy_returned`
    check_valued_at(name, &x, bare, oracle);
    check_valued_at(name, &[-x[0], x[1], x[2], x[3]], bare, oracle);
}

fn check_valued_at(name: &str, x: &[f64], bare: ValuedForm, oracle: ValuedForm) {
    let (y0, w) = (point(4, 97, -1.0, 1.0), point(4, 98, -1.0, 1.0));
    let (itself, primal, grad_into, jvp, vjp) = bare;
    let (_, o_primal, o_grad_into, o_jvp, o_vjp) = oracle;
    let run = |f: Valued| {
        let mut y = y0.clone();
        let value = f(x, &mut y);
        (value.to_bits(), y)
    };
    let expected = run(primal);
    assert_eq!(run(itself), expected, "{name}: itself");
    assert_eq!(run(o_primal), expected, "{name}: the oracle's primal");
    let objective = |all: &[f64]| {
        let mut y = all[4..].to_vec();
        let value = primal(&all[..4], &mut y);
        value + y.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>()
    };
    let all = [x, &y0[..]].concat();
    let run_into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.clone(), vec![0.0; 4], w.clone());
        let value = f(x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let by_grad_into = run_into(grad_into);
    assert_eq!(
        (by_grad_into.0, &by_grad_into.1),
        (expected.0, &expected.1),
        "{name}: grad_into's value and output"
    );
    assert_eq!(by_grad_into, run_into(o_grad_into), "{name}: grad_into");
    let gradient = [&by_grad_into.2[..], &by_grad_into.3].concat();
    let by_differences = central_differences(&objective, &all);
    for (k, (g, e)) in gradient.iter().zip(&by_differences).enumerate() {
        assert!(
            close(*g, *e, 1e-6),
            "{name}: d/d{k} = {g}, central differences {e}"
        );
    }
    let run_vjp = |f: ValuedPullback| {
        let (mut y, mut dy) = (y0.clone(), w.clone());
        let (value, dx) = f(x, &mut y, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let by_vjp = run_vjp(vjp);
    assert_eq!(by_vjp, run_vjp(o_vjp), "{name}: vjp");
    assert_eq!(
        (by_vjp.0, &by_vjp.1),
        (expected.0, &expected.1),
        "{name}: vjp's value"
    );
    for (k, (a, b)) in [&by_vjp.2[..], &by_vjp.3]
        .concat()
        .iter()
        .zip(&gradient)
        .enumerate()
    {
        assert!(
            close(*a, *b, 1e-12),
            "{name}: d/d{k} vjp {a}, grad_into {b}"
        );
    }
    let v = point(8, 99, -1.0, 1.0);
    let run_jvp = |f: ValuedTangent| {
        let (mut y, mut t) = (y0.clone(), v[4..].to_vec());
        let (value, tangent) = f(x, &mut y, &v[..4], &mut t);
        (value.to_bits(), tangent.to_bits(), y, t)
    };
    let by_jvp = run_jvp(jvp);
    assert_eq!(by_jvp, run_jvp(o_jvp), "{name}: jvp");
    assert_eq!(
        (by_jvp.0, &by_jvp.2),
        (expected.0, &expected.1),
        "{name}: jvp's value"
    );
    let along = f64::from_bits(by_jvp.1) + by_jvp.3.iter().zip(&w).map(|(t, w)| t * w).sum::<f64>();
    let dot: f64 = gradient.iter().zip(&v).map(|(g, v)| g * v).sum();
    assert!(
        close(along, dot, 1e-10),
        "{name}: jvp {along} vs <grad, v> {dot}"
    );
}

/// `[energy_in_a_let]` and `[energy_in_a_loop]` on a copy of `y0`: functions with `grad`,
/// for second order.
#[differentiable]
fn energy_in_a_let_of(x: &[f64], y0: &[f64]) -> f64 {
    let mut y = y0.to_vec();
    energy_in_a_let(x, &mut y)
}

#[differentiable]
fn energy_in_a_loop_of(x: &[f64], y0: &[f64]) -> f64 {
    let mut y = y0.to_vec();
    energy_in_a_loop(x, &mut y) + y[0]
}

/// `let e = w(x, y);`, `a * w(x, y) + ..`, `return w(x, y);`, a tail `w(x, y)`, and
/// `total += w(x, y);` in a loop (also checkpointed), generic, of a writer with a value and
/// the caller's own `y: &mut [f64]`: each against the `&mut y` form to the bit, central differences, `jvp`, and a
/// reader's value used beside them against the `&y` form. Second order through copies.
#[test]
fn a_mut_parameter_passed_straight_on_to_a_call_whose_value_is_used() {
    check_valued(
        "energy_in_a_let",
        valued_form!(energy_in_a_let),
        valued_form!(energy_in_a_let_reborrowed),
    );
    check_valued(
        "energy_in_an_expression",
        valued_form!(energy_in_an_expression),
        valued_form!(energy_in_an_expression_reborrowed),
    );
    check_valued(
        "energy_returned",
        valued_form!(energy_returned),
        valued_form!(energy_returned_reborrowed),
    );
    check_valued(
        "energy_in_a_loop",
        valued_form!(energy_in_a_loop),
        valued_form!(energy_in_a_loop_reborrowed),
    );
    check_valued(
        "read_in_a_let",
        valued_form!(read_in_a_let),
        valued_form!(read_in_a_let_shared),
    );
    check_valued(
        "energy_checkpointed",
        valued_form!(energy_checkpointed),
        valued_form!(energy_checkpointed_reborrowed),
    );
    check_valued(
        "generic_energy_in_a_let",
        valued_form!(generic_energy_in_a_let),
        valued_form!(generic_energy_in_a_let_reborrowed),
    );
    let at = point(8, 100, -1.0, 1.0);
    slices!(@second_order energy_in_a_let_of, [4, 4], [0, 1], at.clone());
    slices!(@second_order energy_in_a_loop_of, [4, 4], [0, 1], at);
    // the caller's `vjp` chooses the callee's pullback by its type
    assert!(energy_in_a_let::GENERATED.contains("PassedOn"));
    assert!(!energy_in_a_let_reborrowed::GENERATED.contains("PassedOn"));
}

// ----- 10. regression: a reader called as a statement, `check(y);` -----

/// A reader called with the caller's own `y: &mut [f64]` as a statement, its value
/// dropped, at the top and in a loop, beside a writer. The fix of `step(x, s, y);` (section
/// 8) took every such call for a writer, and this failed with rustc's E0308 (the reader's
/// pullback takes no shadow, nor its `vjp_into` a `&mut` copy).
#[differentiable]
fn read_and_dropped(x: &[f64], y: &mut [f64]) -> f64 {
    sum_of_squares(y);
    for _ in 0..2 {
        nudge(x, 2, y);
        sum_of_squares(y);
    }
    y[0] * x[1] + y[3]
}

/// [`read_and_dropped`] with `&y` for the reader: the oracle.
#[differentiable]
#[allow(clippy::needless_borrow)]
fn read_and_dropped_shared(x: &[f64], mut y: &mut [f64]) -> f64 {
    sum_of_squares(&y);
    for _ in 0..2 {
        nudge(x, 2, &mut y);
        sum_of_squares(&y);
    }
    y[0] * x[1] + y[3]
}

#[differentiable]
fn read_and_dropped_of(x: &[f64], y0: &[f64]) -> f64 {
    let mut y = y0.to_vec();
    read_and_dropped(x, &mut y)
}

#[test]
fn a_reader_called_as_a_statement_with_a_mut_parameter() {
    check_valued(
        "read_and_dropped",
        valued_form!(read_and_dropped),
        valued_form!(read_and_dropped_shared),
    );
    slices!(@second_order read_and_dropped_of, [4, 4], [0, 1], point(8, 101, -1.0, 1.0));
}

/// `√a₀ + a₁`: an infinite derivative at `a₀ = 0`.
#[differentiable]
fn root_sum(a: &[f64]) -> f64 {
    a[0].sqrt() + a[1]
}

/// A reader's value dropped where its derivative is infinite (`y₀ = 0`), at the top and
/// in a loop: the call carries no cotangent (the tape never sweeps a dropped value, nor
/// does the `&y` form). The first form of the fix ran the reader's adjoint with a zero
/// cotangent, adding `0 · ∞`, NaN, into `y₀`'s.
#[differentiable]
fn root_dropped(x: &[f64], y: &mut [f64]) -> f64 {
    root_sum(y);
    for _ in 0..2 {
        root_sum(y);
        y[1] *= x[0];
    }
    y[1] * x[1]
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn root_dropped_shared(x: &[f64], y: &mut [f64]) -> f64 {
    root_sum(&y);
    for _ in 0..2 {
        root_sum(&y);
        y[1] *= x[0];
    }
    y[1] * x[1]
}

#[test]
fn a_reader_dropped_where_its_derivative_is_infinite() {
    let (x, y0, w) = ([0.7, -1.3], [0.0, 0.5], [0.25, -0.5]);
    // x₁ x₀² y₁ + ⟨w, y⟩ after, y₁ ← x₀² y₁: by hand
    let expected_dx = [2.0 * x[0] * y0[1] * (x[1] + w[1]), x[0] * x[0] * y0[1]];
    let expected_dy = [w[0], x[0] * x[0] * (x[1] + w[1])];
    let into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.to_vec(), vec![0.0; 2], w.to_vec());
        let value = f(&x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let by_grad_into = into(|x, y, dx, dy| root_dropped::grad_into(x, y, dx, dy));
    assert_eq!(
        by_grad_into,
        into(|x, y, dx, dy| root_dropped_shared::grad_into(x, y, dx, dy))
    );
    let pulled = |f: ValuedPullback| {
        let (mut y, mut dy) = (y0.to_vec(), w.to_vec());
        let (value, dx) = f(&x, &mut y, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let by_vjp = pulled(|x, y, dy| {
        let (value, pullback) = root_dropped::vjp(x, y);
        let (dx, ()) = pullback(1.0, dy);
        (value, dx.expect("a gradient"))
    });
    assert_eq!(
        by_vjp,
        pulled(|x, y, dy| {
            let (value, pullback) = root_dropped_shared::vjp(x, y);
            let (dx, ()) = pullback(1.0, dy);
            (value, dx.expect("a gradient"))
        })
    );
    let mut y = y0.to_vec();
    assert_eq!(by_grad_into.0, root_dropped::primal(&x, &mut y).to_bits());
    let mut y = y0.to_vec();
    assert_eq!(by_grad_into.0, root_dropped(&x, &mut y).to_bits());
    let mut y = y0.to_vec();
    assert_eq!(by_grad_into.0, root_dropped_shared(&x, &mut y).to_bits());
    for (gradient, dx, dy) in [
        (&by_grad_into, &by_grad_into.2, &by_grad_into.3),
        (&by_vjp, &by_vjp.2, &by_vjp.3),
    ] {
        assert_eq!(gradient.1, [0.0, x[0] * x[0] * y0[1]]);
        for (a, b) in dx
            .iter()
            .chain(dy)
            .zip(expected_dx.iter().chain(&expected_dy))
        {
            assert!(close(*a, *b, 1e-14), "{a} vs {b}: {dx:?} {dy:?}");
        }
    }
}

// ----- 11. a struct result of a call passed a `&mut` parameter as it is -----

#[derive(gradtape::Differentiable, Debug, Clone, Copy, PartialEq)]
struct Phase {
    x: f64,
    v: f64,
}

#[differentiable]
fn phase_of(y: &[f64], dt: f64) -> Phase {
    Phase {
        x: y[0] + dt * y[1],
        v: y[1] - dt * y[0].sin(),
    }
}

#[differentiable]
fn phase_norm(#[differentiable] s: &Phase) -> f64 {
    (s.x * s.x + s.v * s.v).sqrt()
}

#[differentiable]
fn phase_weighed(#[differentiable] s: &Phase, a: &[f64]) -> f64 {
    s.x * a[0] + s.v * a[1]
}

/// A reader's struct result read by field, `let s = phase_of(y, dt);` of the caller's own
/// `y: &mut [f64]`, and (below) held whole and passed on, read by `.x` at the call, and
/// `y` passed beside a struct literal passed whole. A call passing `y` on as it is may
/// write it, so its value is the call's of a writer: one held whole, a struct, has no
/// `Default` for the zero cotangent a writer's pullback takes when the value gets none
/// (rustc's E0277 in the first form of the fix: a zero of the value's shape is saved).
#[differentiable]
fn phase_by_field(y: &mut [f64], dt: f64) -> f64 {
    let s = phase_of(y, dt);
    s.x * s.v
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn phase_by_field_shared(y: &mut [f64], dt: f64) -> f64 {
    let s = phase_of(&y, dt);
    s.x * s.v
}

#[differentiable]
fn phase_held_whole(y: &mut [f64], dt: f64) -> f64 {
    let s = phase_of(y, dt);
    phase_norm(&s)
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn phase_held_whole_shared(y: &mut [f64], dt: f64) -> f64 {
    let s = phase_of(&y, dt);
    phase_norm(&s)
}

#[differentiable]
fn phase_dotted(y: &mut [f64], dt: f64) -> f64 {
    phase_of(y, dt).x * 2.0
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn phase_dotted_shared(y: &mut [f64], dt: f64) -> f64 {
    phase_of(&y, dt).x * 2.0
}

#[differentiable]
fn phase_beside_a_literal(y: &mut [f64], dt: f64) -> f64 {
    let s = Phase {
        x: y[0] * dt,
        v: y[1],
    };
    phase_weighed(&s, y)
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn phase_beside_a_literal_shared(y: &mut [f64], dt: f64) -> f64 {
    let s = Phase {
        x: y[0] * dt,
        v: y[1],
    };
    phase_weighed(&s, &y)
}

/// `(y, dt) -> value`.
type PhaseValue = fn(&mut [f64], f64) -> f64;
/// `(y, dt, d_y, d_dt) -> value` of `grad_into`.
type PhaseInto = fn(&mut [f64], f64, &mut [f64], &mut f64) -> f64;

#[test]
fn struct_results_of_calls_passed_a_mut_parameter() {
    let forms: [(&str, [PhaseValue; 3], PhaseInto, PhaseInto); 4] = [
        (
            "phase_by_field",
            [
                phase_by_field::primal,
                phase_by_field,
                phase_by_field_shared,
            ],
            phase_by_field::grad_into,
            phase_by_field_shared::grad_into,
        ),
        (
            "phase_held_whole",
            [
                phase_held_whole::primal,
                phase_held_whole,
                phase_held_whole_shared,
            ],
            phase_held_whole::grad_into,
            phase_held_whole_shared::grad_into,
        ),
        (
            "phase_dotted",
            [phase_dotted::primal, phase_dotted, phase_dotted_shared],
            phase_dotted::grad_into,
            phase_dotted_shared::grad_into,
        ),
        (
            "phase_beside_a_literal",
            [
                phase_beside_a_literal::primal,
                phase_beside_a_literal,
                phase_beside_a_literal_shared,
            ],
            phase_beside_a_literal::grad_into,
            phase_beside_a_literal_shared::grad_into,
        ),
    ];
    let at = [0.3, 0.7, 0.1];
    for (name, [primal, itself, itself_shared], bare, shared) in forms {
        let run = |f: PhaseInto| {
            let (mut y, mut dy, mut d_dt) = (at[..2].to_vec(), vec![0.0; 2], 0.0);
            let value = f(&mut y, at[2], &mut dy, &mut d_dt);
            (value.to_bits(), y, dy, d_dt)
        };
        let by_bare = run(bare);
        assert_eq!(by_bare, run(shared), "{name}");
        let mut y = at[..2].to_vec();
        assert_eq!(by_bare.0, primal(&mut y, at[2]).to_bits(), "{name}: value");
        for f in [itself, itself_shared] {
            let mut y = at[..2].to_vec();
            assert_eq!(by_bare.0, f(&mut y, at[2]).to_bits(), "{name}: itself");
        }
        let objective = |p: &[f64]| primal(&mut p[..2].to_vec(), p[2]);
        let gradient = [by_bare.2[0], by_bare.2[1], by_bare.3];
        for (k, (g, e)) in gradient
            .iter()
            .zip(central_differences(&objective, &at))
            .enumerate()
        {
            assert!(
                close(*g, e, 1e-6),
                "{name}: d/d{k} = {g}, central differences {e}"
            );
        }
    }
}

// ----- 12. regression: a writer's value dropped where its derivative is infinite -----

/// A writer with a value: `y₁ ← x₀ y₁`, returning `√y₀ + y₁`, infinite in `y₀` at `y₀ = 0`.
#[differentiable]
fn root_nudge(x: &[f64], y: &mut [f64]) -> f64 {
    y[1] *= x[0];
    y[0].sqrt() + y[1]
}

/// The writer called as a statement, its value dropped, with the caller's own `y` passed
/// on as it is, at the top and in a loop: the value carries no cotangent (the tape never
/// sweeps a dropped value), while `y`'s shadow is still pulled back through the write.
#[differentiable]
fn root_nudge_dropped(x: &[f64], y: &mut [f64]) -> f64 {
    root_nudge(x, y);
    for _ in 0..2 {
        root_nudge(x, y);
    }
    y[1] * x[1]
}

/// [`root_nudge_dropped`] spelling the reborrow `&mut *y`.
#[differentiable]
fn root_nudge_dropped_reborrowed(x: &[f64], y: &mut [f64]) -> f64 {
    root_nudge(x, &mut *y);
    for _ in 0..2 {
        root_nudge(x, &mut *y);
    }
    y[1] * x[1]
}

/// The same writes op by op, no call: the oracle.
#[differentiable]
fn root_nudge_inlined(x: &[f64], y: &mut [f64]) -> f64 {
    for _ in 0..3 {
        y[1] *= x[0];
    }
    y[1] * x[1]
}

/// On a local buffer, `root_nudge(x, &mut b);`.
#[differentiable]
fn root_nudge_dropped_local(x: &[f64], y0: &[f64]) -> f64 {
    let mut b = y0.to_vec();
    root_nudge(x, &mut b);
    for _ in 0..2 {
        root_nudge(x, &mut b);
    }
    b[1] * x[1] + b[0]
}

#[test]
fn a_writer_dropped_where_its_derivative_is_infinite() {
    let (x, y0, w) = ([0.7, -1.3], [0.0, 0.5], [0.25, -0.5]);
    // x₁ x₀³ y₁ + ⟨w, y⟩ after, y₁ ← x₀³ y₁: by hand
    let cube = x[0] * x[0] * x[0];
    let expected_dx = [3.0 * x[0] * x[0] * y0[1] * (x[1] + w[1]), cube * y0[1]];
    let expected_dy = [w[0], cube * (x[1] + w[1])];
    let into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.to_vec(), vec![0.0; 2], w.to_vec());
        let value = f(&x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let pulled = |f: ValuedPullback| {
        let (mut y, mut dy) = (y0.to_vec(), w.to_vec());
        let (value, dx) = f(&x, &mut y, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let oracle = into(|x, y, dx, dy| root_nudge_inlined::grad_into(x, y, dx, dy));
    let objective = |all: &[f64]| {
        let mut y = all[2..].to_vec();
        let value = root_nudge_inlined::primal(&all[..2], &mut y);
        value + y.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>()
    };
    let by_differences = central_differences(&objective, &[&x[..], &y0[..]].concat());
    let itself = |f: Valued| {
        let mut y = y0.to_vec();
        (f(&x, &mut y).to_bits(), y)
    };
    assert_eq!(itself(root_nudge_dropped), itself(root_nudge_inlined));
    assert_eq!(
        itself(root_nudge_dropped_reborrowed),
        itself(root_nudge_inlined)
    );
    for (name, by_grad_into, by_vjp, primal) in [
        (
            "root_nudge_dropped",
            into(|x, y, dx, dy| root_nudge_dropped::grad_into(x, y, dx, dy)),
            pulled(|x, y, dy| {
                let (value, pullback) = root_nudge_dropped::vjp(x, y);
                let (dx, ()) = pullback(1.0, dy);
                (value, dx.expect("a gradient"))
            }),
            root_nudge_dropped::primal as Valued,
        ),
        (
            "root_nudge_dropped_reborrowed",
            into(|x, y, dx, dy| root_nudge_dropped_reborrowed::grad_into(x, y, dx, dy)),
            pulled(|x, y, dy| {
                let (value, pullback) = root_nudge_dropped_reborrowed::vjp(x, y);
                let (dx, ()) = pullback(1.0, dy);
                (value, dx.expect("a gradient"))
            }),
            root_nudge_dropped_reborrowed::primal as Valued,
        ),
    ] {
        let mut y = y0.to_vec();
        let value = primal(&x, &mut y);
        assert_eq!(
            (by_grad_into.0, &by_grad_into.1),
            (value.to_bits(), &y),
            "{name}"
        );
        assert_eq!((by_vjp.0, &by_vjp.1), (value.to_bits(), &y), "{name}: vjp");
        assert_eq!(by_grad_into, oracle, "{name}: against the inlined writes");
        for (dx, dy) in [(&by_grad_into.2, &by_grad_into.3), (&by_vjp.2, &by_vjp.3)] {
            for ((a, b), d) in dx
                .iter()
                .chain(dy)
                .zip(expected_dx.iter().chain(&expected_dy))
                .zip(&by_differences)
            {
                assert!(close(*a, *b, 1e-14), "{name}: {a} vs {b}: {dx:?} {dy:?}");
                assert!(close(*a, *d, 1e-6), "{name}: {a} vs differences {d}");
            }
        }
    }
}

/// [`a_writer_dropped_where_its_derivative_is_infinite`] on a local buffer,
/// `root_nudge(x, &mut b);`.
#[test]
fn a_writer_dropped_on_a_local_buffer_where_its_derivative_is_infinite() {
    let (x, y0) = ([0.7, -1.3], [0.0, 0.5]);
    let cube = x[0] * x[0] * x[0];
    let (value, [dx, dy0]) = root_nudge_dropped_local::grad(&x, &y0);
    assert_eq!(
        value.to_bits(),
        root_nudge_dropped_local::primal(&x, &y0).to_bits()
    );
    assert_eq!(value.to_bits(), root_nudge_dropped_local(&x, &y0).to_bits());
    let expected = [
        3.0 * x[0] * x[0] * y0[1] * x[1],
        cube * y0[1],
        1.0,
        cube * x[1],
    ];
    for (a, b) in dx.iter().chain(&dy0).zip(&expected) {
        assert!(close(*a, *b, 1e-14), "local: {a} vs {b}: {dx:?} {dy0:?}");
    }
    // orders 1 and 2 through every face, at the singular point (the dropped `√b₀` is NaN
    // at `b₀ = -h` and infinite in its derivative at 0, and reaches nothing) and off it
    slices!(@second_order root_nudge_dropped_local, [2, 2], [0, 1], vec![0.7, -1.3, 0.0, 0.5]);
    slices!(@second_order root_nudge_dropped_local, [2, 2], [0, 1], vec![0.7, -1.3, 0.3, 0.5]);
}

// ----- 13. regression: `&mut y` of a `mut y` parameter in a checkpointed function -----

/// [`energy_checkpointed`] spelling `&mut y` of a `mut y: &mut [f64]` parameter: the
/// checkpointed code dropped the parameter's `mut`, and this failed with rustc's E0596.
#[differentiable(checkpoint(snapshots = 2))]
#[allow(clippy::needless_borrow)]
fn energy_checkpointed_mut(x: &[f64], mut y: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for _ in 0..4 {
        total += nudge_energy(x, &mut y) * sum_of_squares(&y);
    }
    total
}

#[test]
fn a_mut_parameter_reborrowed_in_a_checkpointed_function() {
    check_valued(
        "energy_checkpointed_mut",
        valued_form!(energy_checkpointed_mut),
        valued_form!(energy_checkpointed_reborrowed),
    );
}

// ----- 14. regression: `&*y` of a `&mut` parameter passed to a reader -----

/// [`read_in_a_let_shared`] spelling the shared reborrow `&*y`, which the macro rejected
/// ("differentiated element by element") where `&y` was accepted.
#[differentiable]
fn read_in_a_let_deref(x: &[f64], y: &mut [f64]) -> f64 {
    let before = sum_of_squares(&*y);
    let e = nudge_energy(x, &mut *y);
    before * e + x[3] * sum_of_squares(&*y)
}

/// [`read_in_a_let_deref`] spelling `&y`: the oracle.
#[differentiable]
#[allow(clippy::needless_borrow)]
fn read_in_a_let_deref_shared(x: &[f64], y: &mut [f64]) -> f64 {
    let before = sum_of_squares(&y);
    let e = nudge_energy(x, &mut *y);
    before * e + x[3] * sum_of_squares(&y)
}

/// [`read_and_dropped_shared`] and [`root_dropped_shared`] spelling `&*y`.
#[differentiable]
fn read_and_dropped_deref(x: &[f64], y: &mut [f64]) -> f64 {
    sum_of_squares(&*y);
    for i in 0..y.len() {
        y[i] *= x[i];
    }
    sum_of_squares(&*y) * x[0]
}

#[differentiable]
fn root_dropped_deref(x: &[f64], y: &mut [f64]) -> f64 {
    root_sum(&*y);
    for _ in 0..2 {
        root_sum(&*y);
        y[1] *= x[0];
    }
    y[1] * x[1]
}

#[differentiable]
#[allow(clippy::needless_borrow)]
fn read_and_dropped_deref_shared(x: &[f64], y: &mut [f64]) -> f64 {
    sum_of_squares(&y);
    for i in 0..y.len() {
        y[i] *= x[i];
    }
    sum_of_squares(&y) * x[0]
}

#[test]
fn a_mut_parameter_reborrowed_shared_to_a_reader() {
    check_valued(
        "read_in_a_let_deref",
        valued_form!(read_in_a_let_deref),
        valued_form!(read_in_a_let_deref_shared),
    );
    check_valued(
        "read_and_dropped_deref",
        valued_form!(read_and_dropped_deref),
        valued_form!(read_and_dropped_deref_shared),
    );
    let (x, y0, w) = ([0.7, -1.3], [0.0, 0.5], [0.25, -0.5]);
    let into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.to_vec(), vec![0.0; 2], w.to_vec());
        let value = f(&x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let by_deref = into(|x, y, dx, dy| root_dropped_deref::grad_into(x, y, dx, dy));
    assert_eq!(
        by_deref,
        into(|x, y, dx, dy| root_dropped_shared::grad_into(x, y, dx, dy))
    );
    assert!(by_deref.2.iter().chain(&by_deref.3).all(|g| g.is_finite()));
    let mut y = y0.to_vec();
    assert_eq!(by_deref.0, root_dropped_deref(&x, &mut y).to_bits());
    assert_eq!(by_deref.1, y);
}

// ----- 15. a `&mut` parameter passed as it is to an annotated method -----

/// A relaxation whose rate is data (`self` a constant in scalar mode).
struct Relaxation {
    rate: f64,
}

impl Relaxation {
    /// `yᵢ ← yᵢ + rate · xᵢ sin yᵢ`, in place: a writing method.
    #[differentiable]
    fn relax(&self, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] += self.rate * x[i] * y[i].sin();
        }
    }

    /// `Σ yᵢ² xᵢ`: a reading method of a `&[f64]` (given a `&mut` parameter, coerced).
    #[differentiable]
    fn weighted(&self, x: &[f64], y: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..y.len() {
            total += y[i] * y[i] * x[i] * self.rate;
        }
        total
    }

    /// `self.relax(x, y);` of a `y: &mut [f64]` parameter (which Rust reborrows), twice, in
    /// a loop, in a branch. This failed with rustc's E0308 under the attribute: the call
    /// was taken for one reading `y`.
    #[differentiable]
    fn relaxed(&self, x: &[f64], s: usize, y: &mut [f64]) {
        self.relax(x, y);
        for _ in 0..s {
            self.relax(x, y);
        }
        if x[0] > 0.0 {
            self.relax(x, y);
        }
    }

    /// [`Relaxation::relaxed`] with the reborrow `&mut *y` spelled out: the oracle.
    #[differentiable]
    fn relaxed_reborrowed(&self, x: &[f64], s: usize, y: &mut [f64]) {
        self.relax(x, &mut *y);
        for _ in 0..s {
            self.relax(x, &mut *y);
        }
        if x[0] > 0.0 {
            self.relax(x, &mut *y);
        }
    }

    /// The method's value used: a writer's (`let e = ..`) and a reader's of the same
    /// parameter passed as it is.
    #[differentiable]
    fn relaxed_weight(&self, x: &[f64], y: &mut [f64]) -> f64 {
        self.relax(x, y);
        let w = self.weighted(x, y);
        w * x[1] + y[0]
    }

    #[differentiable]
    fn relaxed_weight_reborrowed(&self, x: &[f64], y: &mut [f64]) -> f64 {
        self.relax(x, &mut *y);
        let w = self.weighted(x, &*y);
        w * x[1] + y[0]
    }
}

/// A free function passing its `&mut` parameter to a method of a constant receiver.
#[differentiable]
fn relaxed_by(r: &Relaxation, x: &[f64], s: usize, y: &mut [f64]) {
    r.relaxed(x, s, y);
}

#[differentiable]
fn relaxed_by_reborrowed(r: &Relaxation, x: &[f64], s: usize, y: &mut [f64]) {
    r.relaxed_reborrowed(x, s, &mut *y);
}

/// [`relaxed_by`] from a copy of `y0`, its result `Σ yᵢ²`: a function with `grad`.
#[differentiable]
fn relaxed_energy(x: &[f64], y0: &[f64]) -> f64 {
    let r = Relaxation { rate: 0.3 };
    let mut y = y0.to_vec();
    relaxed_by(&r, x, 2, &mut y);
    let e = r.relaxed_weight(x, &mut y);
    e + y[1] * y[2]
}

#[test]
fn a_mut_parameter_passed_to_a_method() {
    let r = Relaxation { rate: 0.3 };
    let bare: PassingForm = (
        |x, s, y| Relaxation { rate: 0.3 }.relaxed(x, s, y),
        |x, s, y| Relaxation { rate: 0.3 }.relaxed_primal(x, s, y),
        |x, s, y, dx, dy| Relaxation { rate: 0.3 }.relaxed_grad_into(x, s, y, dx, dy),
        |x, s, y, v, t| {
            Relaxation { rate: 0.3 }.relaxed_jvp(x, s, y, v, t);
        },
        |x, s, y, dy| {
            let r = Relaxation { rate: 0.3 };
            let ((), pullback) = r.relaxed_vjp(x, s, y);
            pullback((), dy).1.expect("a gradient")
        },
    );
    let reborrowed: PassingForm = (
        |x, s, y| Relaxation { rate: 0.3 }.relaxed_reborrowed(x, s, y),
        |x, s, y| Relaxation { rate: 0.3 }.relaxed_reborrowed_primal(x, s, y),
        |x, s, y, dx, dy| Relaxation { rate: 0.3 }.relaxed_reborrowed_grad_into(x, s, y, dx, dy),
        |x, s, y, v, t| {
            Relaxation { rate: 0.3 }.relaxed_reborrowed_jvp(x, s, y, v, t);
        },
        |x, s, y, dy| {
            let r = Relaxation { rate: 0.3 };
            let ((), pullback) = r.relaxed_reborrowed_vjp(x, s, y);
            pullback((), dy).1.expect("a gradient")
        },
    );
    check_passed_on("Relaxation::relaxed", bare, reborrowed);
    check_passed_on(
        "relaxed_by",
        (
            |x, s, y| relaxed_by(&Relaxation { rate: 0.3 }, x, s, y),
            |x, s, y| relaxed_by::primal(&Relaxation { rate: 0.3 }, x, s, y),
            |x, s, y, dx, dy| relaxed_by::grad_into(&Relaxation { rate: 0.3 }, x, s, y, dx, dy),
            |x, s, y, v, t| {
                relaxed_by::jvp(&Relaxation { rate: 0.3 }, x, s, y, v, t);
            },
            |x, s, y, dy| {
                let r = Relaxation { rate: 0.3 };
                let ((), pullback) = relaxed_by::vjp(&r, x, s, y);
                pullback((), dy).1.expect("a gradient")
            },
        ),
        (
            |x, s, y| relaxed_by_reborrowed(&Relaxation { rate: 0.3 }, x, s, y),
            |x, s, y| relaxed_by_reborrowed::primal(&Relaxation { rate: 0.3 }, x, s, y),
            |x, s, y, dx, dy| {
                relaxed_by_reborrowed::grad_into(&Relaxation { rate: 0.3 }, x, s, y, dx, dy)
            },
            |x, s, y, v, t| {
                relaxed_by_reborrowed::jvp(&Relaxation { rate: 0.3 }, x, s, y, v, t);
            },
            |x, s, y, dy| {
                let r = Relaxation { rate: 0.3 };
                let ((), pullback) = relaxed_by_reborrowed::vjp(&r, x, s, y);
                pullback((), dy).1.expect("a gradient")
            },
        ),
    );
    // a value used: against the reborrow form to the bit, and central differences
    let (x, y0, w) = (
        point(4, 96, -1.0, 1.0),
        point(4, 97, -1.0, 1.0),
        point(4, 98, -1.0, 1.0),
    );
    let into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.clone(), vec![0.0; 4], w.clone());
        let value = f(&x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let bare = into(|x, y, dx, dy| Relaxation { rate: 0.3 }.relaxed_weight_grad_into(x, y, dx, dy));
    assert_eq!(
        bare,
        into(|x, y, dx, dy| {
            Relaxation { rate: 0.3 }.relaxed_weight_reborrowed_grad_into(x, y, dx, dy)
        })
    );
    let (mut y, mut re_y) = (y0.clone(), y0.clone());
    assert_eq!(bare.0, r.relaxed_weight(&x, &mut y).to_bits());
    assert_eq!(bare.0, r.relaxed_weight_reborrowed(&x, &mut re_y).to_bits());
    assert_eq!((&bare.1, &bare.1), (&y, &re_y));
    // the whole: every face against central differences, second order by differences
    let at = [x.clone(), y0.clone()].concat();
    slices!(@second_order relaxed_energy, [4, 4], [0, 1], at);
}

// ----- 16. several `&mut` parameters passed on as they are, `step(pos, vel, dt)` -----

/// Writes `pos` and `vel` (a symplectic Euler step of `x″ = -sin x`).
#[differentiable]
fn step_both(pos: &mut [f64], vel: &mut [f64], dt: f64) {
    for i in 0..pos.len() {
        vel[i] -= dt * pos[i].sin();
        pos[i] += dt * vel[i];
    }
}

/// Writes `pos`, reads `vel`.
#[differentiable]
fn drift(pos: &mut [f64], vel: &[f64], dt: f64) {
    for i in 0..pos.len() {
        pos[i] += dt * vel[i] * (1.0 + 0.1 * vel[i]);
    }
}

/// Reads `pos`, writes `vel`: the second array the written one.
#[differentiable]
fn kick(pos: &[f64], vel: &mut [f64], dt: f64) {
    for i in 0..vel.len() {
        vel[i] -= dt * (pos[i].sin() + 0.2 * pos[i] * vel[i]);
    }
}

/// Reads both.
#[differentiable]
fn pair_energy(pos: &[f64], vel: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..pos.len() {
        e += 0.5 * vel[i] * vel[i] + 1.0 - pos[i].cos();
    }
    e
}

/// Writes both and returns a value.
#[differentiable]
fn step_energy(pos: &mut [f64], vel: &mut [f64], dt: f64) -> f64 {
    step_both(pos, vel, dt);
    pos[0] * vel[1]
}

/// Reads `a` and `b`, writes `out`.
#[differentiable]
fn mix_into(a: &[f64], b: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] += a[i] * b[i];
    }
}

/// Its two `&mut` parameters passed on as they are to writers of both, of one (the first
/// or the second) and to readers, as statements and as values, in straight-line code and
/// in a loop, and beside a spelled `&mut buf`. Each such call was rustc's error under the
/// attribute (E0057, E0308, E0277): a statement took every such parameter for written and
/// a call whose value is used for read.
#[differentiable(constant(dt))]
fn leapfrog(pos: &mut [f64], vel: &mut [f64], dt: f64, steps: usize) -> f64 {
    kick(pos, vel, 0.5 * dt);
    for _ in 0..steps {
        drift(pos, vel, dt);
        kick(pos, vel, dt);
    }
    step_both(pos, vel, dt);
    let e = step_energy(pos, vel, dt);
    let mut buf = vec![0.5; pos.len()];
    mix_into(pos, vel, &mut buf);
    pair_energy(pos, vel) * e + buf[0] + kick_energy(pos, vel, dt)
}

/// A writer of `vel` whose value is used, the second array the written one.
#[differentiable]
fn kick_energy(pos: &[f64], vel: &mut [f64], dt: f64) -> f64 {
    kick(pos, vel, dt);
    vel[0] * pos[1]
}

/// [`leapfrog`] with each argument spelled as the callee takes it (`&mut *pos`, `&*vel`):
/// the oracle.
#[differentiable(constant(dt))]
fn leapfrog_spelled(pos: &mut [f64], vel: &mut [f64], dt: f64, steps: usize) -> f64 {
    kick(&*pos, &mut *vel, 0.5 * dt);
    for _ in 0..steps {
        drift(&mut *pos, &*vel, dt);
        kick(&*pos, &mut *vel, dt);
    }
    step_both(&mut *pos, &mut *vel, dt);
    let e = step_energy(&mut *pos, &mut *vel, dt);
    let mut buf = vec![0.5; pos.len()];
    mix_into(&*pos, &*vel, &mut buf);
    pair_energy(&*pos, &*vel) * e + buf[0] + kick_energy(&*pos, &mut *vel, dt)
}

/// [`leapfrog`] from copies, `Σ` of what it leaves: a function with `grad`.
#[differentiable]
fn leapfrog_objective(x: &[f64], v0: &[f64]) -> f64 {
    let mut pos = x.to_vec();
    let mut vel = v0.to_vec();
    let e = leapfrog(&mut pos, &mut vel, 0.1, 3);
    e + pos[0] * vel[1] + pos[1]
}

#[test]
fn several_mut_parameters_passed_on() {
    // every face against central differences, second order by differences
    let at = point(4, 99, -1.0, 1.0);
    slices!(@second_order leapfrog_objective, [2, 2], [0, 1], at.clone());
    // the writer itself against the spelled form: `grad_into` (replayed calls), `vjp` (the
    // pullbacks, `PassedOnMany`) and `jvp`; values and outputs to the bit, derivatives to
    // rounding (a read's cotangent is added into the shadow, where the spelled read's
    // reaches it in another order)
    let (pos0, vel0, w) = (&at[..2], &at[2..], [0.3, -0.7, 0.5, 0.2]);
    type Face = fn(&mut [f64], &mut [f64], &mut [f64], &mut [f64]) -> f64;
    let run = |f: Face| {
        let (mut pos, mut vel) = (pos0.to_vec(), vel0.to_vec());
        let (mut dpos, mut dvel) = (w[..2].to_vec(), w[2..].to_vec());
        let value = f(&mut pos, &mut vel, &mut dpos, &mut dvel);
        (value.to_bits(), [pos, vel].concat(), [dpos, dvel].concat())
    };
    let same = |name: &str, a: &(u64, Vec<f64>, Vec<f64>), b: &(u64, Vec<f64>, Vec<f64>)| {
        assert_eq!((a.0, &a.1), (b.0, &b.1), "{name}: value and output");
        for (k, (x, y)) in a.2.iter().zip(&b.2).enumerate() {
            assert!(close(*x, *y, 1e-12), "{name}: d{k} {x} vs {y}");
        }
    };
    let bare = run(|p, v, dp, dv| leapfrog::grad_into(p, v, 0.1, 3, dp, dv));
    let spelled = run(|p, v, dp, dv| leapfrog_spelled::grad_into(p, v, 0.1, 3, dp, dv));
    same("grad_into", &bare, &spelled);
    let (mut pos, mut vel) = (pos0.to_vec(), vel0.to_vec());
    assert_eq!(bare.0, leapfrog(&mut pos, &mut vel, 0.1, 3).to_bits());
    assert_eq!(bare.1, [pos, vel].concat());
    let (mut pos, mut vel) = (pos0.to_vec(), vel0.to_vec());
    assert_eq!(
        bare.0,
        leapfrog_spelled(&mut pos, &mut vel, 0.1, 3).to_bits()
    );
    // the pullbacks take the shadows the callee's parameters write
    assert!(leapfrog::GENERATED.contains("PassedOnMany"));
    let by_vjp = run(|p, v, dp, dv| {
        let (value, pullback) = leapfrog::vjp(p, v, 0.1, 3);
        pullback(1.0, dp, dv);
        value
    });
    let spelled_vjp = run(|p, v, dp, dv| {
        let (value, pullback) = leapfrog_spelled::vjp(p, v, 0.1, 3);
        pullback(1.0, dp, dv);
        value
    });
    same("vjp", &by_vjp, &spelled_vjp);
    same("vjp against grad_into", &by_vjp, &bare);
    let by_jvp = run(|p, v, tp, tv| leapfrog::jvp(p, v, 0.1, 3, tp, tv).1);
    let spelled_jvp = run(|p, v, tp, tv| leapfrog_spelled::jvp(p, v, 0.1, 3, tp, tv).1);
    same("jvp", &by_jvp, &spelled_jvp);
}

// ----- 17. regression: a call's value that gets no cotangent where its derivative is
// infinite -----

/// [`root_nudge_dropped`] binding the value and never reading it (`let _e = w(x, y);`),
/// and reading it only on a branch not taken (`x₀ > 10`): either way the value gets no
/// cotangent, which the callee's pullback takes as none (`vjp_partial`'s `None`), not as
/// a zero, which met the infinite partial of `√y₀` at `y₀ = 0` (NaN).
#[differentiable]
fn root_nudge_unused(x: &[f64], y: &mut [f64]) -> f64 {
    let _e = root_nudge(x, y);
    let mut total = 0.0;
    for _ in 0..2 {
        let e = root_nudge(x, &mut *y);
        if x[0] > 10.0 {
            total += e;
        }
    }
    y[1] * x[1] + total
}

/// A writer with a tuple value: `y₁ ← x₀ y₁`, returning `(√y₀, y₁)`.
#[differentiable]
fn root_nudge_pair(x: &[f64], y: &mut [f64]) -> (f64, f64) {
    y[1] *= x[0];
    (y[0].sqrt(), y[1])
}

/// [`root_nudge_pair`]'s first part dropped: the pullback gets `None` for it.
#[differentiable]
fn root_nudge_pair_half(x: &[f64], y: &mut [f64]) -> f64 {
    let (_root, last) = root_nudge_pair(x, y);
    let (_again, again) = root_nudge_pair(x, &mut *y);
    (last + again) * x[1]
}

/// [`root_nudge_pair_half`]'s writes op by op, no call: the oracle.
#[differentiable]
fn root_nudge_pair_half_inlined(x: &[f64], y: &mut [f64]) -> f64 {
    y[1] *= x[0];
    let last = y[1];
    y[1] *= x[0];
    let again = y[1];
    (last + again) * x[1]
}

/// `(√a₀, a₀ a₁)`: a reader (no `&mut`) with a tuple value, infinite in `a₀` at `a₀ = 0`.
#[differentiable]
fn root_and_product(a: &[f64]) -> (f64, f64) {
    (a[0].sqrt(), a[0] * a[1])
}

/// Readers' values computed and never read: a value bound and unused, a call as a
/// statement, a tuple's first part dropped. `a₀ a₁ · a₁`.
#[differentiable]
fn reader_values_unused(x: &[f64]) -> f64 {
    let _unused = root_sum(x);
    root_sum(x);
    let (_root, product) = root_and_product(x);
    product * x[1]
}

/// A reader's struct result with a field infinite in `y₀` at `y₀ = 0`.
#[derive(gradtape::Differentiable, Debug, Clone, Copy, PartialEq)]
struct RootPhase {
    root: f64,
    v: f64,
}

#[differentiable]
fn root_phase(y: &[f64], dt: f64) -> RootPhase {
    RootPhase {
        root: y[0].sqrt(),
        v: y[1] * dt,
    }
}

/// `v²`, reading only the field `v`.
#[differentiable]
fn speed_squared(#[differentiable] s: &RootPhase) -> f64 {
    s.v * s.v
}

/// The struct result of a call passing on the caller's `&mut` parameter, read by its
/// field `v` only.
#[differentiable]
fn root_phase_by_field(y: &mut [f64], dt: f64) -> f64 {
    let s = root_phase(y, dt);
    s.v * dt
}

/// The same struct result dropped: `root_phase(y, dt);`.
#[differentiable]
fn root_phase_dropped(y: &mut [f64], dt: f64) -> f64 {
    root_phase(y, dt);
    y[1] * dt * dt
}

/// The same struct result held whole and passed to a function reading `v` only.
#[differentiable]
fn root_phase_held_whole(y: &mut [f64], dt: f64) -> f64 {
    let s = root_phase(y, dt);
    speed_squared(&s)
}

/// A writer form checked at `x = (0.7, -1.3)`, `y = (0, 0.5)`, `√y₀` infinite in `y₀`
/// there: value and `y` after against `f::primal` and `f` to the bit; `grad_into` and
/// `vjp`'s pullback finite, against each other, against `oracle`'s `grad_into` to 1e-14
/// and against central differences of `value + ⟨w, y⟩` (NaN computed and dropped at
/// `y₀ - h` does not reach it); `jvp` along a tangent against `⟨∇, v⟩`.
fn check_at_the_singular_point(name: &str, bare: ValuedForm, oracle: ValueInto) {
    let (x, y0, w) = ([0.7, -1.3], [0.0, 0.5], [0.25, -0.5]);
    let (itself, primal, grad_into, jvp, vjp) = bare;
    let run = |f: Valued| {
        let mut y = y0.to_vec();
        (f(&x, &mut y).to_bits(), y)
    };
    let expected = run(primal);
    assert_eq!(run(itself), expected, "{name}: itself");
    let into = |f: ValueInto| {
        let (mut y, mut dx, mut dy) = (y0.to_vec(), vec![0.0; 2], w.to_vec());
        let value = f(&x, &mut y, &mut dx, &mut dy);
        (value.to_bits(), y, dx, dy)
    };
    let by_grad_into = into(grad_into);
    assert_eq!(
        (by_grad_into.0, &by_grad_into.1),
        (expected.0, &expected.1),
        "{name}"
    );
    let (mut y, mut dy) = (y0.to_vec(), w.to_vec());
    let (value, dx) = vjp(&x, &mut y, &mut dy);
    assert_eq!(
        (value.to_bits(), &y),
        (expected.0, &expected.1),
        "{name}: vjp"
    );
    let by_oracle = into(oracle);
    let objective = |all: &[f64]| {
        let mut y = all[2..].to_vec();
        let value = primal(&all[..2], &mut y);
        value + y.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>()
    };
    let by_differences = central_differences(&objective, &[&x[..], &y0[..]].concat());
    let gradient: Vec<f64> = by_grad_into
        .2
        .iter()
        .chain(&by_grad_into.3)
        .copied()
        .collect();
    for (k, (((a, b), o), d)) in gradient
        .iter()
        .zip(dx.iter().chain(&dy))
        .zip(by_oracle.2.iter().chain(&by_oracle.3))
        .zip(&by_differences)
        .enumerate()
    {
        assert!(a.is_finite(), "{name}: d/d{k} = {a}: {gradient:?}");
        assert!(
            close(*a, *b, 1e-14),
            "{name}: d/d{k}: grad_into {a}, vjp {b}"
        );
        assert!(close(*a, *o, 1e-14), "{name}: d/d{k}: {a}, the oracle {o}");
        assert!(close(*a, *d, 1e-6), "{name}: d/d{k}: {a}, differences {d}");
    }
    let (v, t) = ([0.3, -0.2], [0.2, 0.4]);
    let mut y = y0.to_vec();
    let mut ty = t.to_vec();
    let (value, tangent) = jvp(&x, &mut y, &v, &mut ty);
    assert_eq!(value.to_bits(), expected.0, "{name}: jvp");
    let along: f64 = gradient
        .iter()
        .zip(v.iter().chain(&t))
        .map(|(g, v)| g * v)
        .sum();
    // the objective's tangent: the value's and ⟨w, y's tangent after⟩
    let tangent = tangent + ty.iter().zip(&w).map(|(t, w)| t * w).sum::<f64>();
    assert!(
        close(tangent, along, 1e-12),
        "{name}: jvp {tangent} vs {along}"
    );
}

#[test]
fn a_writer_value_unused_where_its_derivative_is_infinite() {
    check_at_the_singular_point(
        "root_nudge_unused",
        valued_form!(root_nudge_unused),
        root_nudge_inlined::grad_into,
    );
}

#[test]
fn a_writer_tuple_part_dropped_where_its_derivative_is_infinite() {
    check_at_the_singular_point(
        "root_nudge_pair_half",
        valued_form!(root_nudge_pair_half),
        root_nudge_pair_half_inlined::grad_into,
    );
    check_valued(
        "root_nudge_pair_half",
        valued_form!(root_nudge_pair_half),
        valued_form!(root_nudge_pair_half_inlined),
    );
}

#[test]
fn reader_values_unused_where_their_derivative_is_infinite() {
    // x₀ x₁²: ∇ = (x₁², 2 x₀ x₁), at x₀ = 0 where √x₀ is computed and dropped
    for x in [[0.0, -1.3], [0.6, 0.9]] {
        let (value, [g]) = reader_values_unused::grad(&x);
        assert_eq!(value.to_bits(), reader_values_unused::primal(&x).to_bits());
        let expected = [x[1] * x[1], 2.0 * x[0] * x[1]];
        let mut into = vec![0.0; 2];
        reader_values_unused::grad_into(&x, &mut into);
        let (_, pullback) = reader_values_unused::vjp(&x);
        let (by_vjp,) = pullback(1.0);
        let by_vjp = by_vjp.expect("a gradient");
        let by_differences = central_differences(&|p| reader_values_unused::primal(p), &x);
        for k in 0..2 {
            assert!(close(g[k], expected[k], 1e-14), "{g:?} vs {expected:?}");
            assert_eq!(into[k].to_bits(), g[k].to_bits(), "grad_into {into:?}");
            assert_eq!(by_vjp[k].to_bits(), g[k].to_bits(), "vjp {by_vjp:?}");
            assert!(
                close(g[k], by_differences[k], 1e-6),
                "{g:?} vs {by_differences:?}"
            );
        }
    }
    slices!(@second_order reader_values_unused, [2], [0], vec![0.0, -1.3]);
    slices!(@second_order reader_values_unused, [2], [0], vec![0.6, 0.9]);
}

/// `(y, dt) -> value` of a struct-result caller.
type RootPhaseValue = fn(&mut [f64], f64) -> f64;
/// `(y, dt, d_y, d_dt) -> value` of its `grad_into`.
type RootPhaseInto = fn(&mut [f64], f64, &mut [f64], &mut f64) -> f64;

#[test]
fn struct_results_unread_where_their_derivative_is_infinite() {
    let forms: [(
        &str,
        RootPhaseValue,
        RootPhaseValue,
        RootPhaseInto,
        [f64; 3],
    ); 3] = [
        // v dt = y₁ dt²
        (
            "root_phase_by_field",
            root_phase_by_field,
            root_phase_by_field::primal,
            root_phase_by_field::grad_into,
            [0.0, 0.7 * 0.7, 2.0 * 0.5 * 0.7],
        ),
        // y₁ dt²
        (
            "root_phase_dropped",
            root_phase_dropped,
            root_phase_dropped::primal,
            root_phase_dropped::grad_into,
            [0.0, 0.7 * 0.7, 2.0 * 0.5 * 0.7],
        ),
        // v² = y₁² dt²
        (
            "root_phase_held_whole",
            root_phase_held_whole,
            root_phase_held_whole::primal,
            root_phase_held_whole::grad_into,
            [0.0, 2.0 * 0.5 * 0.7 * 0.7, 2.0 * 0.5 * 0.5 * 0.7],
        ),
    ];
    let (y0, dt) = ([0.0, 0.5], 0.7);
    for (name, itself, primal, grad_into, expected) in forms {
        let (mut y, mut dy, mut d_dt) = (y0.to_vec(), vec![0.0; 2], 0.0);
        let value = grad_into(&mut y, dt, &mut dy, &mut d_dt);
        let mut again = y0.to_vec();
        assert_eq!(value.to_bits(), primal(&mut again, dt).to_bits(), "{name}");
        let mut again = y0.to_vec();
        assert_eq!(value.to_bits(), itself(&mut again, dt).to_bits(), "{name}");
        let objective = |p: &[f64]| primal(&mut p[..2].to_vec(), p[2]);
        let by_differences = central_differences(&objective, &[y0[0], y0[1], dt]);
        let gradient = [dy[0], dy[1], d_dt];
        for k in 0..3 {
            assert!(
                close(gradient[k], expected[k], 1e-14),
                "{name}: {gradient:?} vs {expected:?}"
            );
            assert!(
                close(gradient[k], by_differences[k], 1e-6),
                "{name}: {gradient:?} vs differences {by_differences:?}"
            );
        }
    }
}

/// [`root_phase`]'s result read by a caller taking `y` shared (no `&mut`): by its field
/// `v` bound (`let s = ..; s.v`), by `.v` at the call, and held whole and passed to a
/// function reading `v` only. The struct's cotangent is a value of it, zero in the field
/// `root` no one read, and that zero met `∂√y₀ = ∞` (NaN) until a zero field was taken
/// for none (`generated::field_cotangent`).
#[differentiable]
fn root_phase_read(y: &[f64], dt: f64) -> f64 {
    let s = root_phase(y, dt);
    s.v * dt
}

#[differentiable]
fn root_phase_dotted(y: &[f64], dt: f64) -> f64 {
    root_phase(y, dt).v * dt
}

#[differentiable]
fn root_phase_whole(y: &[f64], dt: f64) -> f64 {
    let s = root_phase(y, dt);
    speed_squared(&s)
}

/// `(y, dt) -> value` of a caller reading a struct result.
type ReadsRootPhase = fn(&[f64], f64) -> f64;
/// A form reading [`root_phase`]'s result: its name, the function and its `primal`,
/// `grad`, `vjp`'s pullback of 1, `jvp`, and the gradient by hand.
type RootPhaseForm = (
    &'static str,
    [ReadsRootPhase; 2],
    fn(&[f64], f64) -> (f64, (Vec<f64>, f64)),
    fn(&[f64], f64) -> (Option<Vec<f64>>, Option<f64>),
    fn(&[f64], f64, &[f64], f64) -> (f64, f64),
    [f64; 3],
);

#[test]
fn struct_result_fields_unread_where_their_derivative_is_infinite() {
    // y₁ dt², y₁ dt², y₁² dt² at y = (0, 0.5), dt = 0.7, through `grad`, `vjp`, `jvp`
    let (y, dt) = ([0.0, 0.5], 0.7);
    let square = [0.0, 2.0 * 0.5 * 0.7 * 0.7, 2.0 * 0.5 * 0.5 * 0.7];
    let linear = [0.0, 0.7 * 0.7, 2.0 * 0.5 * 0.7];
    let forms: [RootPhaseForm; 3] = [
        (
            "root_phase_read",
            [root_phase_read, root_phase_read::primal],
            root_phase_read::grad,
            |y, dt| root_phase_read::vjp(y, dt).1(1.0),
            root_phase_read::jvp,
            linear,
        ),
        (
            "root_phase_dotted",
            [root_phase_dotted, root_phase_dotted::primal],
            root_phase_dotted::grad,
            |y, dt| root_phase_dotted::vjp(y, dt).1(1.0),
            root_phase_dotted::jvp,
            linear,
        ),
        (
            "root_phase_whole",
            [root_phase_whole, root_phase_whole::primal],
            root_phase_whole::grad,
            |y, dt| root_phase_whole::vjp(y, dt).1(1.0),
            root_phase_whole::jvp,
            square,
        ),
    ];
    for (name, [itself, primal], grad, vjp, jvp, expected) in forms {
        let (value, (dy, d_dt)) = grad(&y, dt);
        assert_eq!(value.to_bits(), primal(&y, dt).to_bits(), "{name}");
        assert_eq!(value.to_bits(), itself(&y, dt).to_bits(), "{name}");
        let gradient = [dy[0], dy[1], d_dt];
        let (by_vjp_y, by_vjp_dt) = vjp(&y, dt);
        let by_vjp = [
            &by_vjp_y.expect("a gradient")[..],
            &[by_vjp_dt.expect("a gradient")],
        ]
        .concat();
        let by_differences =
            central_differences(&|p: &[f64]| primal(&p[..2], p[2]), &[y[0], y[1], dt]);
        for k in 0..3 {
            assert!(
                close(gradient[k], expected[k], 1e-14),
                "{name}: {gradient:?}"
            );
            assert!(
                close(by_vjp[k], expected[k], 1e-14),
                "{name}: vjp {by_vjp:?}"
            );
            assert!(
                close(gradient[k], by_differences[k], 1e-6),
                "{name}: {gradient:?} vs {by_differences:?}"
            );
        }
        // along (0.2, 0.4, -0.3): the tangent of `√y₀` (infinite) is never read
        let (at, tangent) = jvp(&y, dt, &[0.2, 0.4], -0.3);
        assert_eq!(at.to_bits(), value.to_bits(), "{name}: jvp");
        let along = 0.2 * expected[0] + 0.4 * expected[1] - 0.3 * expected[2];
        assert!(
            close(tangent, along, 1e-12),
            "{name}: jvp {tangent} vs {along}"
        );
    }
}

/// Reads `y`; its partial in `y₀` is infinite at `y₀ = 0`.
#[differentiable]
fn root_reader(y: &[f64]) -> f64 {
    y[0].sqrt() + y[1]
}

/// Calls the reader in a loop, passing its own `&mut` parameter on as it is and dropping
/// the value; the loop also writes `y`, so the call is replayed.
#[differentiable]
fn reads_dropped_in_a_loop(x: &[f64], y: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        y[1] *= x[i];
        root_reader(y);
        s += y[1] * x[0];
    }
    s
}

/// A replayed reader whose value is dropped, at a point where its partial is infinite:
/// its dropped value carries no cotangent, so nothing meets the infinite partial (it
/// would be `0 · ∞`, NaN).
#[test]
fn a_replayed_reader_dropped_where_its_derivative_is_infinite() {
    let (x, y0, w) = ([0.7, -1.3], [0.0, 0.5], [0.25, -0.5]);
    // s = y₁ x₀² (1 + x₁), y ← [y₀, y₁ x₀ x₁]; the objective s + ⟨w, y⟩, by hand
    let expected_dx = [
        2.0 * y0[1] * x[0] * (1.0 + x[1]) + w[1] * y0[1] * x[1],
        y0[1] * x[0] * x[0] + w[1] * y0[1] * x[0],
    ];
    let expected_dy = [w[0], x[0] * x[0] * (1.0 + x[1]) + w[1] * x[0] * x[1]];
    let (mut y, mut dx, mut dy) = (y0.to_vec(), vec![0.0; 2], w.to_vec());
    let value = reads_dropped_in_a_loop::grad_into(&x, &mut y, &mut dx, &mut dy);
    let mut y_primal = y0.to_vec();
    assert_eq!(
        value.to_bits(),
        reads_dropped_in_a_loop::primal(&x, &mut y_primal).to_bits()
    );
    assert_eq!(y, y_primal);
    let mut y_itself = y0.to_vec();
    assert_eq!(
        value.to_bits(),
        reads_dropped_in_a_loop(&x, &mut y_itself).to_bits()
    );
    assert_eq!(y_itself, y_primal);
    for (k, (g, e)) in dx.iter().zip(&expected_dx).enumerate() {
        assert!(close(*g, *e, 1e-15), "d/dx{k} = {g}, by hand {e}");
    }
    for (k, (g, e)) in dy.iter().zip(&expected_dy).enumerate() {
        assert!(close(*g, *e, 1e-15), "d/dy{k} = {g}, by hand {e}");
    }
    let objective = |all: &[f64]| {
        let mut y = all[2..].to_vec();
        let value = reads_dropped_in_a_loop::primal(&all[..2], &mut y);
        value + y.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>()
    };
    // (the reader's value is dropped, so a step to y₀ < 0, where its root is NaN, leaves
    // the objective alone)
    let all = [&x[..], &y0[..]].concat();
    let differences = central_differences(&objective, &all);
    for (k, g) in dx.iter().chain(&dy).enumerate() {
        assert!(g.is_finite(), "∂/∂p{k} = {g}");
        assert!(
            close(*g, differences[k], 1e-7),
            "∂/∂p{k} = {g}, differences {}",
            differences[k]
        );
    }
    // and through the pullback
    let (mut y, mut dy) = (y0.to_vec(), w.to_vec());
    let (value_vjp, pullback) = reads_dropped_in_a_loop::vjp(&x, &mut y);
    assert_eq!(value_vjp.to_bits(), value.to_bits());
    let (dx_vjp, ()) = pullback(1.0, &mut dy);
    assert_eq!(dx_vjp.expect("a gradient"), dx);
}
