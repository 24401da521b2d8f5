//! Enums and options whose payload is a constant of a type with no `Default` (a reference
//! to a configuration, a closure, a struct that derives nothing), built in the body beside
//! differentiable floats: the rewrites split them into a tag or flag and a local per field,
//! and such a field holds an `Option` (`macros/src/slots.rs`), where it held its type's
//! `Default` and rustc answered E0277. Each function is checked against dual numbers and
//! central differences at orders 1 and 2 (`twice!`).

// the forms are written as users write them, which clippy would have written otherwise
#![allow(clippy::needless_late_init, clippy::manual_map)]

#[macro_use]
mod common;

use gradtape::differentiable;

/// A configuration a function reads but does not differentiate: no `Default`, no `Copy`.
struct Config {
    order: usize,
    scale: f64,
    name: String,
}

fn config() -> Config {
    Config {
        order: 3,
        scale: 0.5,
        name: "huber".to_string(),
    }
}

/// A segment of a piecewise model, chosen by value.
struct Segment {
    start: f64,
    weight: f64,
}

// ----- enums -----

/// A loss's step: scaled by a configuration it holds by reference, or plain.
enum Step<'a, T> {
    Scaled(&'a Config, T),
    Plain(T),
}

twice! {
    /// A piecewise loss whose one branch keeps the configuration beside the residual.
    fn piecewise_loss / piecewise_loss_on_duals<T>(x: &[T], c: &Config) -> T {
        let r = x[0] - x[1];
        let step = if r > T::zero() { Step::Scaled(c, r * r) } else { Step::Plain(-r) };
        match step {
            Step::Scaled(cfg, v) => v * T::from(cfg.scale).unwrap() + T::from(cfg.order).unwrap() * x[1],
            Step::Plain(v) => v.exp() * x[0],
        }
    }
}

#[test]
fn an_enum_holding_a_reference_to_a_configuration() {
    let c = config();
    assert_eq!(c.name, "huber");
    with_constant_twice!(piecewise_loss, piecewise_loss_on_duals, &c,
        at [1.3, 0.4], [0.2, 0.9], [-0.7, 0.1]);
}

/// A weighting of terms: uniform, or by a function the caller gives.
enum Weighting<'a, T> {
    Uniform(T),
    ByIndex(&'a dyn Fn(usize) -> f64, T),
}

twice! {
    /// A weighted sum whose weights come from a closure held in the enum when a threshold
    /// is passed.
    fn weighted_terms / weighted_terms_on_duals<T>(x: &[T], by_index: &dyn Fn(usize) -> f64) -> T {
        let total = x[0] + x[1] + x[2];
        let weighting = if total > T::one() {
            Weighting::ByIndex(by_index, total.sqrt())
        } else {
            Weighting::Uniform(total)
        };
        let mut sum = T::zero();
        for i in 0..x.len() {
            sum = sum + match weighting {
                Weighting::Uniform(w) => x[i] * w,
                Weighting::ByIndex(f, s) => x[i] * x[i] * T::from(f(i)).unwrap() * s,
            };
        }
        sum
    }
}

#[test]
fn an_enum_holding_a_closure() {
    let by_index = |i: usize| 1.0 + 0.25 * i as f64;
    with_constant_twice!(weighted_terms, weighted_terms_on_duals, &by_index,
        at [0.9, 0.8, 0.7], [0.1, 0.2, 0.3], [1.5, -0.2, 0.4]);
}

/// A regime of a simulation, held by value with its segment (which derives nothing).
enum Regime<T> {
    Fitted(Segment, T),
    Free(T),
}

twice! {
    /// A state carried through steps, its regime rebuilt from itself each step with a
    /// segment made in the body: the enum reassigned in a loop.
    fn regime_walk / regime_walk_on_duals<T>(x: &[T], c: &Config) -> T {
        let mut regime = Regime::Free(x[0]);
        for k in 0..4 {
            let start = c.scale * k as f64 - 0.4;
            regime = match regime {
                Regime::Free(v) if v > T::from(start).unwrap() => Regime::Fitted(
                    Segment { start, weight: 0.5 + k as f64 },
                    v * x[1],
                ),
                Regime::Free(v) => Regime::Free(v + x[1].sin()),
                Regime::Fitted(seg, v) => Regime::Free(v * T::from(seg.weight).unwrap() - T::from(seg.start).unwrap()),
            };
        }
        match regime {
            Regime::Fitted(seg, v) => v * T::from(seg.weight).unwrap(),
            Regime::Free(v) => v,
        }
    }
}

#[test]
fn an_enum_holding_a_struct_by_value_rebuilt_in_a_loop() {
    let c = config();
    with_constant_twice!(regime_walk, regime_walk_on_duals, &c,
        at [0.9, 0.8], [0.1, 1.2], [-0.7, 0.3], [2.0, -0.6]);
}

// ----- options -----

twice! {
    /// A penalty applied when a configuration is given and the value exceeds a bound:
    /// `map_or` and `if let` on an option of a reference.
    fn penalised / penalised_on_duals<T>(x: &[T], c: &Config) -> T {
        let active = if x[0] > x[1] { Some(c) } else { None };
        let scale = active.map_or(T::one(), |cfg| T::from(cfg.scale).unwrap());
        let mut y = x[0] * x[1] * scale;
        if let Some(cfg) = active {
            y = y + T::from(cfg.order).unwrap() * (x[0] - x[1]).powi(2);
        }
        y
    }
}

#[test]
fn an_option_of_a_reference_to_a_configuration() {
    let c = config();
    with_constant_twice!(penalised, penalised_on_duals, &c,
        at [1.3, 0.4], [0.2, 0.9], [2.5, -1.0]);
}

twice! {
    /// The segment a value falls in, found by a loop that keeps the best so far (an
    /// option of a pair holding a reference), then its weight read by `unwrap` and by
    /// `let .. else`.
    fn segment_fit / segment_fit_on_duals<T>(x: &[T], segments: &[Segment]) -> T {
        let mut found: Option<(usize, &Segment)> = None;
        for (k, seg) in segments.iter().enumerate() {
            if x[0] > T::from(seg.start).unwrap() {
                found = Some((k, seg));
            }
        }
        let Some(hit) = found else {
            return x[0] * x[1];
        };
        let weight = T::from(hit.1.weight).unwrap();
        let again = found.unwrap();
        (x[0] - T::from(again.1.start).unwrap()) * weight + T::from(hit.0).unwrap() * x[1].exp()
    }
}

#[test]
fn an_option_of_a_pair_holding_a_reference_found_in_a_loop() {
    let segments = [
        Segment {
            start: -1.0,
            weight: 2.0,
        },
        Segment {
            start: 0.0,
            weight: 0.5,
        },
        Segment {
            start: 1.0,
            weight: 3.0,
        },
    ];
    with_constant_twice!(segment_fit, segment_fit_on_duals, &segments,
        at [0.5, 0.2], [1.5, -0.3], [-0.5, 0.7], [-2.0, 0.1]);
}

twice! {
    /// An option of a float beside one of a closure: the float's slot is differentiated,
    /// the closure's holds an `Option`.
    fn shifted_by / shifted_by_on_duals<T>(x: &[T], shift: &dyn Fn(usize) -> f64) -> T {
        let offset = if x[0] < x[1] { Some(x[1] - x[0]) } else { None };
        let rule = if x[0] > T::zero() { Some(shift) } else { None };
        let base = offset.unwrap_or(x[0] * x[0]);
        match rule {
            Some(f) => base * T::from(f(2)).unwrap() + x[0],
            None => base.cos(),
        }
    }
}

#[test]
fn an_option_of_a_closure_beside_an_option_of_a_float() {
    let shift = |i: usize| 0.5 * i as f64;
    with_constant_twice!(shifted_by, shifted_by_on_duals, &shift,
        at [0.3, 0.9], [1.2, 0.4], [-0.6, 0.2], [-0.2, -0.9]);
}

// ----- an option the body does not build -----

/// A configuration whose scale may be missing.
struct Scaling {
    scale: Option<f64>,
}

/// `unwrap_or` with a differentiable default of an option parameter, of a field, and of a
/// `Result` parameter (whose `unwrap_or` is its `ok()`'s), the default with effects
/// evaluated whatever the option holds: each was rustc's E0599 (the call taken for an
/// annotated method of the receiver).
#[differentiable]
fn defaults_of_given_options(
    x: f64,
    scale: Option<f64>,
    c: &Scaling,
    r: Result<f64, String>,
) -> f64 {
    let a = scale.unwrap_or(x) * x;
    let b = c.scale.unwrap_or(x.sin() * 2.0);
    let mut calls = 0;
    let d = r.unwrap_or({
        calls += 1;
        x * x
    });
    a + b * x + d + calls as f64
}

#[test]
fn unwrap_or_of_an_option_parameter_field_and_result_with_a_differentiable_default() {
    for (scale, field, r) in [
        (Some(3.0), Some(0.5), Ok(4.0)),
        (None, None, Err("missing".to_string())),
        (Some(-1.5), None, Err("missing".to_string())),
    ] {
        let c = Scaling { scale: field };
        for x in [0.4_f64, -1.3] {
            // the value and derivative in closed form, case by case
            let (a, da) = match scale {
                Some(s) => (s * x, s),
                None => (x * x, 2.0 * x),
            };
            let (b, db) = match field {
                Some(s) => (s, 0.0),
                None => (2.0 * x.sin(), 2.0 * x.cos()),
            };
            let (d, dd) = match &r {
                Ok(v) => (*v, 0.0),
                Err(_) => (x * x, 2.0 * x),
            };
            let value = a + b * x + d + 1.0;
            let derivative = da + db * x + b + dd;
            let itself = defaults_of_given_options(x, scale, &c, r.clone());
            assert!(common::close(itself, value, 1e-14), "{itself} vs {value}");
            let (by_grad, [g]) = defaults_of_given_options::grad(x, scale, &c, r.clone());
            assert_eq!(by_grad.to_bits(), itself.to_bits());
            assert!(common::close(g, derivative, 1e-12), "{g} vs {derivative}");
            let f = |p: &[f64]| defaults_of_given_options(p[0], scale, &c, r.clone());
            let differences = common::central_differences(&f, &[x]);
            assert!(
                common::close(g, differences[0], 1e-7),
                "{g} vs {differences:?}"
            );
        }
    }
}
