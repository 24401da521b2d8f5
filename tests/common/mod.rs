//! `check_grads`: reverse-mode derivatives of orders 1 and 2 against central finite
//! differences in f64, through the public `gradtape::gradcheck` (JAX's `check_grads`), plus
//! what a comparison with numbers cannot tell: whether a vanishing second derivative is
//! `None` (unconnected) or connected zeros, as TensorFlow answers for each op.
//!
//! Finite differences only ever evaluate `f` and dot products in plain Rust, so they share
//! no rule with what they check.

#![allow(dead_code)]

#[macro_use]
pub mod faces;
#[macro_use]
pub mod twice;

use std::fmt::Write;

use gradtape::{
    ForwardAccumulator, GradcheckOptions, GradientOptions, GradientTape, Tensor,
    UnconnectedGradients, gradcheck_with,
};

/// Where a row's random inputs are drawn from.
#[derive(Clone, Copy, Debug)]
pub enum Domain {
    /// Standard normal.
    Normal,
    /// Uniform on `[lo, hi)`.
    Uniform(f64, f64),
    /// Uniform on `[0.5, 2)`: for `ln`, `sqrt`, `powf`.
    Positive,
    /// `±[1, 2)` with a random sign: away from the kinks of `relu`, `abs` and the poles of
    /// `1/x`, so that finite differences of step ≪ 1 never straddle one.
    AwayFromZero,
}

/// Which derivative to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Reverse mode against finite differences of `⟨f, v⟩`.
    First,
    /// First order, then the nested-tape product against finite differences of the
    /// first-order gradient.
    Second,
    /// First order, then: the second derivative vanishes (a linear or piecewise-linear op),
    /// so the nested gradient must be `None` for every input (SEMANTICS: the second
    /// derivative of a linear function is `None`), zeros under
    /// `UnconnectedGradients::Zero`, and finite differences must agree that it is zero.
    SecondIsNone,
    /// First order, then: the second derivative is zero but connected (an op whose rule
    /// goes through a mask or sign registered with a zero gradient, ReLU's and `abs`'s in
    /// TensorFlow), so the nested gradient must be zeros for every input, never `None`.
    SecondIsZero,
}

/// Finite-difference step and the tolerance `|analytic - fd| ≤ rtol (1 + |fd|)`.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// Step of the first-order central differences.
    pub step: f64,
    /// Step of the second-order central differences (of a gradient).
    pub step2: f64,
    /// Relative tolerance (absolute below magnitude 1).
    pub rtol: f64,
}

impl Tolerance {
    /// For computations entirely in f64: truncation error O(h²) and rounding error
    /// O(ε/h) are both far below 1e-6 at these steps.
    pub const F64: Tolerance = Tolerance {
        step: 1e-6,
        step2: 1e-5,
        rtol: 1e-6,
    };
    /// For paths through f32 (ε ≈ 1.2e-7): a step of 1e-6 would drown in rounding, so a
    /// larger step and a looser tolerance.
    pub const THROUGH_F32: Tolerance = Tolerance {
        step: 1e-3,
        step2: 1e-3,
        rtol: 2e-3,
    };
}

/// A function of the row's inputs.
pub type Op<'a> = &'a dyn Fn(&[Tensor<f64>]) -> Tensor<f64>;

/// Draws a row's input of `shape` from `domain`, reproducibly for `seed`.
pub fn sample(shape: &[usize], domain: Domain, seed: u64) -> Tensor<f64> {
    match domain {
        Domain::Normal => Tensor::random_normal(shape, 0.0, 1.0, seed),
        Domain::Uniform(lo, hi) => Tensor::random_uniform(shape, lo, hi, seed),
        Domain::Positive => Tensor::random_uniform(shape, 0.5, 2.0, seed),
        Domain::AwayFromZero => {
            let u = Tensor::<f64>::random_uniform(shape, -1.0, 1.0, seed).to_vec();
            let away = u.iter().map(|&v| v.signum() * (1.0 + v.abs())).collect();
            Tensor::from_vec(away, shape)
        }
    }
}

/// Checks `f`'s derivatives at `inputs` to `order`. `Err` says which row, input and
/// element disagree, with the inputs and both values.
pub fn check_grads(
    name: &str,
    inputs: &[Tensor<f64>],
    f: Op<'_>,
    order: Order,
    tol: Tolerance,
    seed: u64,
) -> Result<(), String> {
    let report = |what: &str, detail: String| {
        let mut msg = format!("row `{name}`, {what}:\n{detail}");
        for (i, x) in inputs.iter().enumerate() {
            let _ = write!(msg, "\n  input {i}: {x}");
        }
        msg
    };
    // The derivatives against central differences: the public `gradcheck`, which reports
    // the worst element.
    let options = GradcheckOptions::new()
        .step(tol.step)
        .second_step(tol.step2)
        .tolerance(tol.rtol)
        .seed(seed)
        .second_order(order != Order::First);
    gradcheck_with(f, inputs, options).map_err(|e| report("gradcheck", e.to_string()))?;
    check_forward(f, inputs, order, tol, seed).map_err(|e| report("forward mode", e))?;
    if order == Order::First {
        return Ok(());
    }
    // What gradcheck cannot tell from a zero: whether the second derivative is connected.
    let out_shape = f(inputs).shape().to_vec();
    let v = Tensor::random_normal(&out_shape, 0.0, 1.0, seed ^ 0x5eed_0001);
    let u: Vec<Tensor<f64>> = inputs
        .iter()
        .enumerate()
        .map(|(i, x)| Tensor::random_normal(x.shape(), 0.0, 1.0, seed ^ (0x5eed_0100 + i as u64)))
        .collect();
    let nested = hvp(f, inputs, &v, &u, UnconnectedGradients::None);
    if order == Order::SecondIsNone {
        if let Some(i) = nested.iter().position(Option::is_some) {
            return Err(report(
                "second order",
                format!(
                    "expected `None` for input {i} (the second derivative vanishes), got {}",
                    nested[i].as_ref().expect("is some")
                ),
            ));
        }
        let zeros = hvp(f, inputs, &v, &u, UnconnectedGradients::Zero);
        if let Some(i) = first_not_zeros(&zeros, inputs) {
            return Err(report(
                "second order",
                format!(
                    "UnconnectedGradients::Zero: expected zeros of shape {:?} for input {i}, got {:?}",
                    inputs[i].shape(),
                    zeros[i]
                ),
            ));
        }
    }
    if order == Order::SecondIsZero
        && let Some(i) = first_not_zeros(&nested, inputs)
    {
        return Err(report(
            "second order",
            format!(
                "expected connected zeros for input {i}, got {:?}",
                nested[i]
            ),
        ));
    }
    Ok(())
}

/// The first input whose gradient is not zeros of its shape (`None` counts as not zeros).
fn first_not_zeros(grads: &[Option<Tensor<f64>>], inputs: &[Tensor<f64>]) -> Option<usize> {
    grads.iter().zip(inputs).position(|(g, x)| {
        !g.as_ref()
            .is_some_and(|g| g.has_shape(x.shape()) && g.to_vec().iter().all(|&e| e == 0.0))
    })
}

/// Forward mode against three independent answers, for every row `check_grads` runs:
/// - the JVP `J·u` against central differences `(f(x + h u) - f(x - h u)) / 2h`;
/// - the JVP against the VJP: `⟨J·u, v⟩ = ⟨u, Jᵀ·v⟩` (the two rules are each other's
///   transposes);
/// - at second order, each nesting with a forward accumulator against the reverse-over-
///   reverse product `H_v·u` (`hvp`): forward over reverse (an accumulator around the
///   tape's gradient), reverse over forward (a tape around the accumulator), and forward
///   over forward (`⟨∂²f/∂x² [u, w], v⟩ = ⟨H_v·u, w⟩`).
///
/// A `None` tangent counts as zeros: an unconnected JVP must still agree with the numbers.
pub fn check_forward(
    f: Op<'_>,
    inputs: &[Tensor<f64>],
    order: Order,
    tol: Tolerance,
    seed: u64,
) -> Result<(), String> {
    let directions = |salt: u64| -> Vec<Tensor<f64>> {
        inputs
            .iter()
            .enumerate()
            .map(|(i, x)| Tensor::random_normal(x.shape(), 0.0, 1.0, seed ^ (salt + i as u64)))
            .collect()
    };
    let u = directions(0xf0d_0100);
    let y = f(inputs);
    let v = Tensor::random_normal(y.shape(), 0.0, 1.0, seed ^ 0xf0d_0001);
    let or_zeros = |t: Option<Tensor<f64>>, like: &Tensor<f64>| {
        t.unwrap_or_else(|| Tensor::zeros(like.shape()))
    };

    // J·u by forward mode
    let acc = ForwardAccumulator::new(inputs, &u[..]).map_err(|e| e.to_string())?;
    let y_fwd = acc.record(|| f(inputs));
    let jvp = or_zeros(acc.jvp(&y_fwd), &y);
    if jvp.shape() != y.shape() {
        return Err(format!(
            "JVP of shape {:?} for an output of shape {:?}",
            jvp.shape(),
            y.shape()
        ));
    }

    // against central differences along u
    let h = tol.step;
    let shifted = |sign: f64| -> Vec<Tensor<f64>> {
        inputs
            .iter()
            .zip(&u)
            .map(|(x, u)| {
                let values = x
                    .to_vec()
                    .iter()
                    .zip(u.to_vec())
                    .map(|(a, b)| a + sign * h * b)
                    .collect();
                Tensor::from_vec(values, x.shape())
            })
            .collect()
    };
    let (plus, minus) = (f(&shifted(1.0)).to_vec(), f(&shifted(-1.0)).to_vec());
    for (k, (&got, (p, m))) in jvp.to_vec().iter().zip(plus.iter().zip(&minus)).enumerate() {
        let fd = (p - m) / (2.0 * h);
        if (got - fd).abs() > tol.rtol * (1.0 + fd.abs()) {
            return Err(format!(
                "JVP element {k} is {got}, central differences give {fd}"
            ));
        }
    }

    // against the VJP: ⟨J u, v⟩ = ⟨u, Jᵀ v⟩
    let forward_side = dot(&jvp, &v);
    let reverse_side: f64 = vjp(f, inputs, &v)
        .iter()
        .zip(&u)
        .map(|(g, u)| g.as_ref().map_or(0.0, |g| dot(g, u)))
        .sum();
    // Two exact derivatives, rounded differently: tight in f64, f32's rounding otherwise.
    let exact = if tol.rtol < 1e-5 { 1e-10 } else { tol.rtol };
    let scale = 1.0 + forward_side.abs().max(reverse_side.abs());
    if (forward_side - reverse_side).abs() > exact * scale {
        return Err(format!(
            "⟨J·u, v⟩ = {forward_side} by forward mode but ⟨u, Jᵀ·v⟩ = {reverse_side} by reverse mode"
        ));
    }
    if order == Order::First {
        return Ok(());
    }

    // second order: every nesting against reverse over reverse
    let reference: Vec<Tensor<f64>> = hvp(f, inputs, &v, &u, UnconnectedGradients::Zero)
        .into_iter()
        .map(|t| t.expect("zeros when unconnected"))
        .collect();
    let close = |what: &str, got: &[Tensor<f64>]| -> Result<(), String> {
        for (i, (got, want)) in got.iter().zip(&reference).enumerate() {
            for (k, (a, b)) in got.to_vec().iter().zip(want.to_vec()).enumerate() {
                if (a - b).abs() > 1e3 * exact * (1.0 + b.abs()) {
                    return Err(format!(
                        "{what}: input {i} element {k} is {a}, reverse over reverse gives {b}"
                    ));
                }
            }
        }
        Ok(())
    };

    // forward over reverse: the accumulator sees the tape's backward sweep
    let acc = ForwardAccumulator::new(inputs, &u[..]).map_err(|e| e.to_string())?;
    let grads = acc.record(|| vjp(f, inputs, &v));
    let fwd_over_rev: Vec<Tensor<f64>> = grads
        .iter()
        .zip(inputs)
        .map(|(g, x)| or_zeros(g.as_ref().and_then(|g| acc.jvp(g)), x))
        .collect();
    close("forward over reverse", &fwd_over_rev)?;

    // reverse over forward: the tape records the tangent computations
    let tape = GradientTape::new();
    for x in inputs {
        tape.watch(x);
    }
    let along_v = tape.record(|| {
        let acc = ForwardAccumulator::new(inputs, &u[..]).expect("checked above");
        let y = acc.record(|| f(inputs));
        acc.jvp(&y).map_or(Tensor::scalar(0.0), |t| (t * &v).sum())
    });
    let options = GradientOptions::new().unconnected(UnconnectedGradients::Zero);
    let rev_over_fwd: Vec<Tensor<f64>> = tape
        .gradient_with(&along_v, inputs, options)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|t| t.expect("zeros when unconnected"))
        .collect();
    close("reverse over forward", &rev_over_fwd)?;

    // forward over forward: ⟨∂²f [u, w], v⟩ = ⟨H_v u, w⟩
    let w = directions(0xf0d_0200);
    let outer = ForwardAccumulator::new(inputs, &w[..]).map_err(|e| e.to_string())?;
    let inner_jvp = outer.record(|| {
        let inner = ForwardAccumulator::new(inputs, &u[..]).expect("checked above");
        let y = inner.record(|| f(inputs));
        inner.jvp(&y)
    });
    let second = inner_jvp
        .as_ref()
        .and_then(|t| outer.jvp(t))
        .map_or(0.0, |t| dot(&t, &v));
    let want: f64 = reference.iter().zip(&w).map(|(h, w)| dot(h, w)).sum();
    if (second - want).abs() > 1e3 * exact * (1.0 + want.abs()) {
        return Err(format!(
            "forward over forward: ⟨∂²f[u, w], v⟩ = {second}, reverse over reverse gives {want}"
        ));
    }
    Ok(())
}

/// `Σ a ⊙ b` in plain f64.
fn dot(a: &Tensor<f64>, b: &Tensor<f64>) -> f64 {
    a.to_vec().iter().zip(b.to_vec()).map(|(x, y)| x * y).sum()
}

/// `∇ₓ⟨f(x), v⟩` by reverse mode, `None` for inputs `f` does not depend on.
pub fn vjp(f: Op<'_>, xs: &[Tensor<f64>], v: &Tensor<f64>) -> Vec<Option<Tensor<f64>>> {
    let tape = GradientTape::new();
    for x in xs {
        tape.watch(x);
    }
    let y = tape.record(|| f(xs));
    let seed = GradientOptions::new().output_gradients([v.clone()]);
    tape.gradient_with(&y, xs, seed)
        .expect("a fresh tape computes one gradient")
}

/// `∇ₓ⟨∇ₓ⟨f(x), v⟩, u⟩`: an outer tape records the inner tape's gradient computation.
pub fn hvp(
    f: Op<'_>,
    xs: &[Tensor<f64>],
    v: &Tensor<f64>,
    u: &[Tensor<f64>],
    unconnected: UnconnectedGradients,
) -> Vec<Option<Tensor<f64>>> {
    let outer = GradientTape::new();
    for x in xs {
        outer.watch(x);
    }
    let along_u = outer.record(|| {
        vjp(f, xs, v)
            .iter()
            .zip(u)
            .filter_map(|(g, u)| g.as_ref().map(|g| (g * u).sum()))
            .fold(Tensor::scalar(0.0), |acc, term| acc + term)
    });
    let options = GradientOptions::new().unconnected(unconnected);
    outer
        .gradient_with(&along_u, xs, options)
        .expect("a fresh tape computes one gradient")
}

std::thread_local! {
    static CAPTURING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static CAUGHT: std::cell::RefCell<Option<(String, u32, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns the panic's file, line and message, without
/// printing it (other threads' panics go to the default hook as usual): for checking that
/// a misuse's panic points at the caller's line (`#[track_caller]` all the way down).
pub fn panic_site(f: impl FnOnce()) -> (String, u32, String) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(std::cell::Cell::get) {
                return default(info);
            }
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let location = info.location().expect("panics have a location");
            let site = (location.file().to_string(), location.line(), message);
            CAUGHT.with(|c| *c.borrow_mut() = Some(site));
        }));
    });
    CAPTURING.with(|c| c.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CAPTURING.with(|c| c.set(false));
    assert!(result.is_err(), "expected a panic");
    CAUGHT
        .with(|c| c.borrow_mut().take())
        .expect("the hook saw the panic")
}

/// Checks an annotated function `fused` against the same body recorded op by op (`plain`,
/// its `f::primal`) and against central finite differences in f64: the value, the
/// vector-Jacobian product `∇ₓ⟨f(x), v⟩` (order 1) and the nested-tape product
/// `∇ₓ⟨∇ₓ⟨f(x), v⟩, u⟩` (order 2). `None` gradients count as zeros, so a gradient the fused
/// node loses shows as a mismatch. `Err` says which check and which values disagree.
pub fn check_annotated(
    name: &str,
    inputs: &[Tensor<f64>],
    fused: Op<'_>,
    plain: Op<'_>,
    tol: Tolerance,
    seed: u64,
) -> Result<(), String> {
    let report = |what: &str, detail: String| format!("`{name}`, {what}:\n{detail}");
    let (value, expected) = (fused(inputs), plain(inputs));
    let same_value = value.shape() == expected.shape()
        && value
            .to_vec()
            .iter()
            .zip(expected.to_vec())
            .all(|(p, q)| within(*p, q, 1e-12));
    if !same_value {
        return Err(report(
            "value",
            format!("annotated {value}\n  op by op {expected}"),
        ));
    }
    let v = Tensor::random_normal(expected.shape(), 0.0, 1.0, seed ^ 0x5eed_0001);
    let by_tape = to_values(inputs, vjp(plain, inputs, &v));
    let by_macro = to_values(inputs, vjp(fused, inputs, &v));
    let by_tape_values: Vec<Vec<f64>> = by_tape
        .iter()
        .map(|g| g.clone().unwrap_or_default())
        .collect();
    compare(&by_macro, &by_tape_values, 1e-10).map_err(|d| {
        report(
            "first order, annotated vs op by op (as `finite differences`)",
            d,
        )
    })?;
    let vjp_v = by_tape_values;

    let u: Vec<Tensor<f64>> = inputs
        .iter()
        .enumerate()
        .map(|(i, x)| Tensor::random_normal(x.shape(), 0.0, 1.0, seed ^ (0x5eed_0100 + i as u64)))
        .collect();
    let nested = |f: Op<'_>| to_values(inputs, hvp(f, inputs, &v, &u, UnconnectedGradients::None));
    let (by_macro, by_tape) = (nested(fused), nested(plain));
    let by_tape_values: Vec<Vec<f64>> = by_tape
        .iter()
        .map(|g| g.clone().unwrap_or_default())
        .collect();
    compare(&by_macro, &by_tape_values, 1e-9).map_err(|d| {
        report(
            "second order, annotated vs op by op (as `finite differences`)",
            d,
        )
    })?;
    forward_mode(fused, plain, inputs, &v, &u, &by_tape_values, &vjp_v)
        .map_err(|d| report("forward mode", d))?;
    // Both orders against central differences, through the public `gradcheck`.
    let options = GradcheckOptions::new()
        .step(tol.step)
        .second_step(tol.step2)
        .tolerance(tol.rtol)
        .seed(seed)
        .second_order(true);
    gradcheck_with(fused, inputs, options)
        .map(drop)
        .map_err(|e| report("annotated vs finite differences", e.to_string()))
}

/// The tangent of `f(xs)` along `us` under one accumulator (zeros if unconnected).
pub fn accumulator_jvp(f: Op<'_>, xs: &[Tensor<f64>], us: &[Tensor<f64>]) -> Tensor<f64> {
    let acc =
        ForwardAccumulator::new(xs.to_vec(), us.to_vec()).expect("tangents of the inputs' shapes");
    let y = acc.record(|| f(xs));
    acc.jvp_with(&y, UnconnectedGradients::Zero)
        .expect("zeros for an unconnected result")
}

/// Forward mode through an annotated function (whose node's tangent is its generated
/// `f::jvp`) against the op-by-op accumulator and the reverse mode: at order one the JVP
/// `J u` itself and `⟨v, J u⟩ = ⟨Jᵀv, u⟩` (`vjp_v` is `Jᵀv` by the op-by-op tape); at
/// order two reverse over forward `∇ₓ⟨J u, v⟩`, forward over reverse (the JVP along `u` of
/// `Jᵀv`), both equal to the nested tapes' `hvp_vu`, and forward over forward `D²f[u, u]`
/// against the op-by-op accumulators.
fn forward_mode(
    fused: Op<'_>,
    plain: Op<'_>,
    xs: &[Tensor<f64>],
    v: &Tensor<f64>,
    u: &[Tensor<f64>],
    hvp_vu: &[Vec<f64>],
    vjp_v: &[Vec<f64>],
) -> Result<(), String> {
    let (by_macro, by_tape) = (accumulator_jvp(fused, xs, u), accumulator_jvp(plain, xs, u));
    compare(&[Ok(by_macro.to_vec())], &[by_tape.to_vec()], 1e-10)
        .map_err(|d| format!("J u, annotated vs op by op:\n{d}"))?;
    let pairing: f64 = vjp_v
        .iter()
        .zip(u)
        .map(|(g, u)| g.iter().zip(u.to_vec()).map(|(g, u)| g * u).sum::<f64>())
        .sum();
    let along_v = (&by_macro * v).sum().to_scalar();
    compare(&[Ok(vec![along_v])], &[vec![pairing]], 1e-10)
        .map_err(|d| format!("<v, J u> (forward) vs <J^T v, u> (reverse):\n{d}"))?;

    let tape = GradientTape::new();
    for x in xs {
        tape.watch(x);
    }
    let paired = tape.record(|| (accumulator_jvp(fused, xs, u) * v).sum());
    let reverse_over_forward = to_values(xs, tape.gradient(&paired, xs).expect("a fresh tape"));
    compare(&reverse_over_forward, hvp_vu, 1e-9)
        .map_err(|d| format!("reverse over forward vs nested tapes:\n{d}"))?;

    let outer =
        ForwardAccumulator::new(xs.to_vec(), u.to_vec()).expect("tangents of the inputs' shapes");
    // Zeros for a gradient the tape leaves `None`: the accumulator reads tensors only.
    let grads: Vec<Tensor<f64>> = outer.record(|| {
        vjp(fused, xs, v)
            .into_iter()
            .zip(xs)
            .map(|(g, x)| g.unwrap_or_else(|| Tensor::zeros(x.shape())))
            .collect()
    });
    let forward_over_reverse = to_values(xs, outer.jvp_with(grads, UnconnectedGradients::None));
    compare(&forward_over_reverse, hvp_vu, 1e-9)
        .map_err(|d| format!("forward over reverse vs nested tapes:\n{d}"))?;

    let twice = |f: Op<'_>| {
        let outer = ForwardAccumulator::new(xs.to_vec(), u.to_vec())
            .expect("tangents of the inputs' shapes");
        let inner = outer.record(|| accumulator_jvp(f, xs, u));
        outer
            .jvp_with(&inner, UnconnectedGradients::Zero)
            .expect("zeros for an unconnected result")
    };
    compare(&[Ok(twice(fused).to_vec())], &[twice(plain).to_vec()], 1e-9)
        .map_err(|d| format!("forward over forward, annotated vs op by op:\n{d}"))
}

/// Gradients as plain values (`None` as zeros), checked against the inputs' shapes.
fn to_values(xs: &[Tensor<f64>], grads: Vec<Option<Tensor<f64>>>) -> Vec<Result<Vec<f64>, String>> {
    grads
        .into_iter()
        .zip(xs)
        .map(|(g, x)| match g {
            None => Ok(vec![0.0; x.len()]),
            Some(g) if g.has_shape(x.shape()) => Ok(g.to_vec()),
            Some(g) => Err(format!(
                "gradient has shape {:?}, its input {:?}",
                g.shape(),
                x.shape()
            )),
        })
        .collect()
}

/// The first element where `analytic` and `expected` disagree beyond `rtol`, described.
fn compare(
    analytic: &[Result<Vec<f64>, String>],
    expected: &[Vec<f64>],
    rtol: f64,
) -> Result<(), String> {
    for (i, (a, n)) in analytic.iter().zip(expected).enumerate() {
        let a = a.as_ref().map_err(|e| format!("input {i}: {e}"))?;
        if let Some(k) = a.iter().zip(n).position(|(p, q)| !within(*p, *q, rtol)) {
            return Err(format!(
                "input {i}, element {k}: {} vs {}\n  annotated: {a:?}\n  expected:  {n:?}",
                a[k], n[k]
            ));
        }
    }
    Ok(())
}

/// `|a - b| ≤ rtol (1 + |b|)`; false if either is NaN.
fn within(a: f64, b: f64, rtol: f64) -> bool {
    (a - b).abs() <= rtol * (1.0 + b.abs())
}

/// Central differences of a function of plain numbers at `x`, in every coordinate (step
/// 10⁻⁶): the oracle of the scalar-mode tests.
pub fn central_differences(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    central_differences_step(f, x, 1e-6)
}

/// [`central_differences`] with step `h` (larger for a function rounded to f32 inside).
pub fn central_differences_step(f: &dyn Fn(&[f64]) -> f64, x: &[f64], h: f64) -> Vec<f64> {
    (0..x.len())
        .map(|k| {
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[k] += h;
            down[k] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

/// The text of one generated function, `pub fn NAME` up to the next generated function,
/// cut out of a `GENERATED` text.
///
/// # Panics
/// If `code` has no `pub fn NAME`.
pub fn generated_fn<'a>(code: &'a str, name: &str) -> &'a str {
    let head = format!("pub fn {name}");
    let start = code
        .find(&head)
        .unwrap_or_else(|| panic!("no `{head}` in:\n{code}"));
    let rest = &code[start..];
    &rest[..rest[1..].find("pub fn ").map_or(rest.len(), |k| k + 1)]
}

/// What generated code saves, by name (`lhs7`, `trips3`), read from a `GENERATED` text:
/// the stacks it declares (`let mut lhs7_stack = ..`) but loops' stacks of records, and
/// the fields of those records (`let lhs7_trip;`, a save by trip).
pub fn saved_names(code: &str) -> Vec<String> {
    code.lines()
        .map(str::trim)
        .filter_map(|line| {
            let stack = (line.strip_prefix("let mut "))
                .and_then(|rest| rest.split_once("_stack = "))
                .map(|(name, _)| name)
                .filter(|name| !name.starts_with("record"));
            let field = (line.strip_prefix("let ")).and_then(|rest| rest.strip_suffix("_trip;"));
            stack.or(field).map(str::to_string)
        })
        .collect()
}

/// `a` within `rtol` of `b`, relative to `1 + |b|`.
pub fn close(a: f64, b: f64, rtol: f64) -> bool {
    (a - b).abs() <= rtol * (1.0 + b.abs())
}

/// Central differences of `loss` in every element of every variable, against `grads`
/// (one tensor per variable, in order).
pub fn check_variables_against_differences(
    name: &str,
    variables: &[&gradtape::Variable<f64>],
    grads: &[Tensor<f64>],
    loss: &dyn Fn() -> f64,
) {
    assert_eq!(
        variables.len(),
        grads.len(),
        "`{name}`: one gradient per variable"
    );
    let h = 1e-6;
    for (k, (variable, grad)) in variables.iter().zip(grads).enumerate() {
        let value = variable.value();
        let (shape, values) = (value.shape().to_vec(), value.to_vec());
        assert_eq!(
            grad.shape(),
            &shape[..],
            "`{name}`: variable {k}'s gradient shape"
        );
        let at = |i: usize, delta: f64| {
            let mut moved = values.clone();
            moved[i] += delta;
            variable.assign(Tensor::from_vec(moved, &shape));
            let l = loss();
            variable.assign(Tensor::from_vec(values.clone(), &shape));
            l
        };
        for (i, g) in grad.to_vec().iter().enumerate() {
            let fd = (at(i, h) - at(i, -h)) / (2.0 * h);
            assert!(
                (g - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "`{name}`: variable {k}, element {i}: {g} vs central differences {fd}"
            );
        }
    }
}
