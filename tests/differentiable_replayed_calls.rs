//! Replayed calls (joint mode beyond straight-line code): in `grad_into` and `grad` (and a
//! caller's own `vjp_into`), a call of an annotated function that is not joint (in a loop
//! or a branch, or on arguments the body changes) runs as written, the forward code saving
//! copies of the arguments the body may change, and the adjoint calls the callee's
//! `vjp_into` on the copies, which adds the arrays' cotangents straight into the caller's
//! shadows. `f::vjp` keeps the split form (the callee's pullbacks), so each case is
//! checked through every face and, in addition, the replayed gradient (`grad_into`)
//! against the split one (`vjp`'s pullback).
//!
//! The cases are the ones a copy could get wrong: an argument overwritten after the call
//! (an integrator's state), a written array whose old values the callee reads, fixed-size
//! arrays by value, by reference and by `&mut`, an owned `Vec` moved into the call, a
//! constant counter passed by value, and a call in a branch of a loop; and methods of a
//! struct held constant, called on the caller's `self` or on a field of a parameter.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::{Gradient, point};
use common::{central_differences, close};
use gradtape::{Differentiable, differentiable};

/// `y′ = f(x, y)`: `f₀ = x₀`, `fᵢ = xᵢ sin(yᵢ₋₁)`.
#[differentiable]
fn rate(x: &[f64], y: &[f64], out: &mut [f64]) {
    out[0] = x[0];
    for i in 1..x.len() {
        out[i] = x[i] * y[i - 1].sin();
    }
}

/// Explicit midpoint steps: the state `y` and the stage are overwritten after each call
/// that read them, so the adjoint must see the copies.
#[differentiable]
fn integrator(x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.5; n];
    let mut k = vec![0.0; n];
    let mut stage = vec![0.0; n];
    for _ in 0..6 {
        rate(x, &y, &mut k);
        for i in 0..n {
            stage[i] = y[i] + 0.05 * k[i];
        }
        rate(x, &stage, &mut k);
        for i in 0..n {
            y[i] += 0.1 * k[i];
        }
    }
    let mut total = 0.0;
    for i in 0..n {
        total += y[i] * y[i];
    }
    total
}

/// `out[i] += s · a[i] · out[i]`: reads the old values of the array it writes.
#[differentiable]
fn grow(a: &[f64], s: f64, out: &mut [f64]) {
    for i in 0..a.len() {
        out[i] += s * a[i] * out[i];
    }
}

#[differentiable]
fn accumulating(x: &[f64]) -> f64 {
    let mut out = vec![1.0; x.len()];
    for k in 0..4 {
        let s = 0.3 + 0.1 * k as f64;
        grow(x, s, &mut out);
        out[0] = out[0] * 0.5 + x[k % x.len()];
    }
    out[0] + out[1] * out[x.len() - 1]
}

/// A point rotated by an angle: a fixed-size array by value.
#[differentiable]
fn rotated_x(p: [f64; 2], angle: f64) -> f64 {
    p[0] * angle.cos() - p[1] * angle.sin()
}

/// `v ← m v` for a 2x2 matrix in a flat fixed-size array.
#[differentiable]
fn apply(m: &[f64; 4], v: &mut [f64; 2]) {
    let (a, b) = (v[0], v[1]);
    v[0] = m[0] * a + m[1] * b;
    v[1] = m[2] * a + m[3] * b;
}

#[differentiable]
fn fixed_arrays(x: &[f64]) -> f64 {
    let mut m = [x[0], x[1], x[2], x[3]];
    let mut v = [1.0, x[1]];
    let mut total = 0.0;
    for k in 0..3 {
        apply(&m, &mut v);
        total += rotated_x(v, x[k]);
        m[k] = m[k] * 0.9 + v[0] * 0.1;
    }
    total
}

/// The mean of an owned `Vec`, moved into the call.
#[differentiable]
fn mean(v: Vec<f64>) -> f64 {
    let mut total = 0.0;
    for i in 0..v.len() {
        total += v[i];
    }
    total / v.len() as f64
}

/// `x^n` for a constant exponent.
#[differentiable]
fn power(x: f64, n: u32) -> f64 {
    let mut p = 1.0;
    for _ in 0..n {
        p *= x;
    }
    p
}

#[differentiable]
fn moved_and_counted(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let pair = vec![x[i], x[i] * x[0]];
        total += mean(pair);
        let n = (i % 3) as u32 + 1;
        if x[i] > -0.5 {
            total += power(x[i], n);
        } else {
            total -= power(x[0], n) * 0.5;
        }
    }
    total
}

/// The replayed gradient (`grad_into`) against the split one (`vjp`'s pullback), close
/// (the sums may run in another order), and every call replayed in the code: `calls`
/// calls of `vjp_into` (in `grad_into`) beside as many of the callees' `vjp_partial` (in
/// `vjp`, whose pullbacks take `Option` of a call's cotangent).
fn against_the_split_form(
    name: &str,
    x: &[f64],
    grad_into: &dyn Fn(&[f64], &mut [f64]) -> f64,
    split: Gradient<'_>,
    (generated, calls): (&str, usize),
) {
    let mut replayed = vec![0.0; x.len()];
    let value = grad_into(x, &mut replayed);
    let (split_value, split_gradient) = split(x);
    assert_eq!(value.to_bits(), split_value.to_bits(), "{name}: value");
    for (k, (r, s)) in replayed.iter().zip(&split_gradient).enumerate() {
        assert!(
            close(*r, *s, 1e-12),
            "{name}: d/dx{k} replayed {r}, split {s}"
        );
    }
    // `vjp` and `vjp_partial` come first, then `grad_into`, up to the next function
    let (split_code, rest) =
        generated.split_at(generated.find("pub fn grad_into").expect("grad_into"));
    let grad_into_code = &rest[..rest[1..].find("pub fn ").map_or(rest.len(), |k| k + 1)];
    assert_eq!(
        (
            grad_into_code.matches("vjp_into(").count(),
            // (`vjp` itself calls `Self::vjp_partial`)
            split_code.matches("::vjp_partial(").count()
                - split_code.matches("Self::vjp_partial(").count()
        ),
        (calls, calls),
        "{name}: `grad_into` replays every call"
    );
}

macro_rules! replayed {
    ($f:ident, $n:expr, $seed:expr, $calls:expr) => {{
        let x = point($n, $seed, -1.0, 1.0);
        slices!(@second_order $f, [$n], [0], x.clone());
        against_the_split_form(
            stringify!($f),
            &x,
            &|x, d| $f::grad_into(x, d),
            &|x| {
                let (value, pullback) = $f::vjp(x);
                (value, pullback(1.0).0.expect("a gradient"))
            },
            ($f::GENERATED, $calls),
        );
    }};
}

#[test]
fn an_integrators_state_overwritten_after_each_call() {
    replayed!(integrator, 4, 21, 2);
}

#[test]
fn a_written_array_whose_old_values_the_callee_reads() {
    replayed!(accumulating, 3, 22, 1);
}

#[test]
fn fixed_size_arrays_by_value_by_reference_and_by_mut() {
    replayed!(fixed_arrays, 4, 23, 2);
}

#[test]
fn an_owned_vec_moved_in_and_a_constant_counter() {
    replayed!(moved_and_counted, 5, 24, 3);
}

// ----- methods of a struct held constant, called in a loop -----

/// A damped right-hand side and its step, as methods of a model the callers hold constant.
struct Stepper {
    damping: f64,
    dt: f64,
}

#[differentiable]
impl Stepper {
    /// `outᵢ = xᵢ sin(yᵢ₋₁) − damping · yᵢ` (`out₀ = x₀ − damping · y₀`).
    #[differentiable]
    fn rate(&self, x: &[f64], y: &[f64], out: &mut [f64]) {
        out[0] = x[0] - self.damping * y[0];
        for i in 1..x.len() {
            out[i] = x[i] * y[i - 1].sin() - self.damping * y[i];
        }
    }

    /// Euler steps through `self.rate`, the state overwritten after each call that read
    /// it: the receiver is the caller's `self`.
    #[differentiable]
    fn run(&self, x: &[f64]) -> f64 {
        let n = x.len();
        let mut y = vec![0.25; n];
        let mut k = vec![0.0; n];
        for _ in 0..5 {
            self.rate(x, &y, &mut k);
            for i in 0..n {
                y[i] += self.dt * k[i];
            }
        }
        y.iter().map(|v| v * v).sum()
    }
}

/// A model holding a stepper: its method called on a field of a constant parameter.
struct Model {
    stepper: Stepper,
    scale: f64,
}

#[differentiable]
fn through_a_field(model: &Model, x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.5; n];
    let mut k = vec![0.0; n];
    let mut total = 0.0;
    for step in 0..4 {
        model.stepper.rate(x, &y, &mut k);
        for i in 0..n {
            y[i] += model.stepper.dt * k[i];
        }
        total += model.scale * y[step % n];
    }
    total
}

/// The replayed gradient against the split one and central differences, and the directional
/// derivative of the tangent code against it.
fn check_replayed_method(
    name: &str,
    x: &[f64],
    primal: &dyn Fn(&[f64]) -> f64,
    grad_into: &dyn Fn(&[f64], &mut [f64]) -> f64,
    split: Gradient<'_>,
    jvp: &dyn Fn(&[f64], &[f64]) -> f64,
) {
    let mut replayed = vec![0.0; x.len()];
    let value = grad_into(x, &mut replayed);
    assert_eq!(value.to_bits(), primal(x).to_bits(), "{name}: value");
    let (split_value, split_gradient) = split(x);
    assert_eq!(
        value.to_bits(),
        split_value.to_bits(),
        "{name}: split value"
    );
    let differences = central_differences(primal, x);
    for k in 0..x.len() {
        let (r, s, d) = (replayed[k], split_gradient[k], differences[k]);
        assert!(
            close(r, s, 1e-12),
            "{name}: d/dx{k} replayed {r}, split {s}"
        );
        assert!(
            close(r, d, 1e-7),
            "{name}: d/dx{k} replayed {r}, differences {d}"
        );
    }
    let direction = point(x.len(), 77, -1.0, 1.0);
    let along: f64 = replayed.iter().zip(&direction).map(|(g, v)| g * v).sum();
    let tangent = jvp(x, &direction);
    assert!(
        close(tangent, along, 1e-12),
        "{name}: jvp {tangent}, ⟨grad, v⟩ {along}"
    );
}

#[test]
fn a_method_called_in_a_loop_on_self() {
    let stepper = Stepper {
        damping: 0.3,
        dt: 0.1,
    };
    let x = point(4, 31, -1.0, 1.0);
    check_replayed_method(
        "Stepper::run",
        &x,
        &|x| stepper.run(x),
        &|x, d| stepper.run_grad_into(x, d),
        &|x| {
            let (value, pullback) = stepper.run_vjp(x);
            (value, pullback(1.0).1.expect("a gradient"))
        },
        &|x, t| stepper.run_jvp(x, t).1,
    );
    // `grad_into` replays the call through the method's `vjp_into`; `vjp` keeps pullbacks
    let generated = Stepper::RUN_GENERATED;
    let grad_into = &generated[generated.find("fn run_grad_into").expect("grad_into")..];
    assert!(grad_into.contains(".rate_vjp_into("), "{generated}");
    assert!(!grad_into.contains(".rate_vjp("), "{generated}");
}

#[test]
fn a_method_called_in_a_loop_on_a_field_of_a_parameter() {
    let model = Model {
        stepper: Stepper {
            damping: 0.2,
            dt: 0.15,
        },
        scale: 1.5,
    };
    let x = point(3, 32, -1.0, 1.0);
    check_replayed_method(
        "through_a_field",
        &x,
        &|x| through_a_field(&model, x),
        &|x, d| through_a_field::grad_into(&model, x, d),
        &|x| {
            let (value, pullback) = through_a_field::vjp(&model, x);
            (value, pullback(1.0).1.expect("a gradient"))
        },
        &|x, t| through_a_field::jvp(&model, x, t).1,
    );
    let generated = through_a_field::GENERATED;
    let grad_into = &generated[generated.find("fn grad_into").expect("grad_into")..];
    assert!(grad_into.contains(".rate_vjp_into("), "{generated}");
}

/// A layer whose method marks its `self` (a struct of floats, differentiated where the layer
/// is a caller's differentiable parameter), called here in a loop on a constant layer.
#[derive(Differentiable, Clone)]
struct Layer {
    w: f64,
    bias: f64,
}

impl Layer {
    #[differentiable]
    fn respond(#[differentiable] &self, x: f64) -> f64 {
        (self.w * x + self.bias).tanh()
    }
}

#[differentiable]
fn repeated_layer(layer: &Layer, x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let mut y = x[i];
        for _ in 0..3 {
            y = 0.5 * y + layer.respond(y);
        }
        total += y * x[0];
    }
    total
}

#[test]
fn a_method_marking_its_self_called_in_a_loop_on_a_constant_receiver() {
    let layer = Layer { w: 0.7, bias: 0.2 };
    let x = point(3, 33, -1.0, 1.0);
    check_replayed_method(
        "repeated_layer",
        &x,
        &|x| repeated_layer(&layer, x),
        &|x, d| repeated_layer::grad_into(&layer, x, d),
        &|x| {
            let (value, pullback) = repeated_layer::vjp(&layer, x);
            (value, pullback(1.0).1.expect("a gradient"))
        },
        &|x, t| repeated_layer::jvp(&layer, x, t).1,
    );
    let generated = repeated_layer::GENERATED;
    let grad_into = &generated[generated.find("fn grad_into").expect("grad_into")..];
    assert!(grad_into.contains(".respond_vjp_into("), "{generated}");
}
