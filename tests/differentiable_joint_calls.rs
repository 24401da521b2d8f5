//! Calls of annotated functions in *joint* mode (Tapenade's term): in `grad_into` (and a
//! caller's `vjp_now`), a call in straight-line code whose arguments are parameters the
//! body cannot change is not made through the callee's `vjp` (which saves copies of what
//! its pullback reads) but through its primal in the forward code and its `vjp_now` in the
//! adjoint, which recomputes the callee's forward and reads the arguments in place. Each
//! case is checked through every face: `grad_into` (joint) against `grad` (through `vjp`,
//! split) to the bit, both against central differences, and `jvp` against `<grad, v>`.
//!
//! The cases are the ones where re-reading an argument could go wrong: a parameter
//! shadowed after the call (the adjoint must pass the value the forward passed), a `mut`
//! parameter written after the call (not joint), a chain of joint calls three deep, a
//! method of a constant receiver, a generic callee, literal arguments, a struct parameter
//! taken by value and passed by reference, and a call inside a loop (not joint). Last, the
//! same hazard for what `grad_into` recomputes by name (a top-level `let` shadowed after
//! the loop that reads it: the test fails if the recomputation ignores shadowing).

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::{Case, point};
use gradtape::differentiable;

#[differentiable]
fn weighted(w: &[f64], x: f64) -> f64 {
    w[0] * x * x + w[1] * x.sin()
}

#[differentiable]
fn shadowed_after_the_call(w: &[f64], x: f64) -> f64 {
    let y = weighted(w, x);
    // a new `x`: the adjoint's call must still see the parameter
    let x = x * 3.0 + y;
    y * x
}

#[differentiable]
fn written_after_the_call(w: &[f64], mut x: f64) -> f64 {
    let y = weighted(w, x);
    x = x * 2.0 + y;
    y * x
}

#[differentiable]
fn innermost(w: &[f64], x: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        total += (w[i] * x).tanh();
    }
    total
}

#[differentiable]
fn middle(w: &[f64], x: f64) -> f64 {
    innermost(w, x) * innermost(w, 0.5) + x
}

#[differentiable]
fn outermost(w: &[f64], x: f64) -> f64 {
    let a = middle(w, x);
    a * a + weighted(w, 2.0)
}

struct Scale {
    factor: f64,
}

impl Scale {
    #[differentiable]
    fn apply(&self, w: &[f64]) -> f64 {
        let mut total = 0.0;
        for v in w {
            total += v * v * self.factor;
        }
        total
    }
}

#[differentiable]
fn through_a_receiver(s: &Scale, w: &[f64]) -> f64 {
    s.apply(w).sqrt()
}

#[differentiable]
fn generic_norm<T: num_traits::Float>(w: &[T]) -> T {
    let mut total = T::zero();
    for v in w {
        total = total + *v * *v;
    }
    total.sqrt()
}

#[differentiable]
fn generic_caller<T: num_traits::Float>(w: &[T], x: T) -> T {
    generic_norm(w) * x
}

struct Data {
    offsets: Vec<f64>,
}

#[differentiable]
fn offset_sum(d: &Data, w: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        total += (w[i] - d.offsets[i]).powi(2);
    }
    total
}

#[differentiable]
fn by_value_data(d: Data, w: &[f64]) -> f64 {
    offset_sum(&d, w).ln_1p()
}

#[differentiable]
fn in_a_loop(w: &[f64], x: f64) -> f64 {
    let mut total = 0.0;
    for k in 0..3 {
        total += weighted(w, x + k as f64);
    }
    total
}

/// `f(w, x)`.
type Value = dyn Fn(&[f64], f64) -> f64;
/// `f::grad(w, x)`.
type Gradient = dyn Fn(&[f64], f64) -> (f64, (Vec<f64>, f64));
/// `f::grad_into(w, x, d_w, d_x)`.
type GradientInto = dyn Fn(&[f64], f64, &mut [f64], &mut f64) -> f64;
/// `f::jvp(w, x, t_w, t_x)`.
type Tangent = dyn Fn(&[f64], f64, &[f64], f64) -> (f64, f64);

/// The faces of `f(w, x)` over `[w.., x]` (`w` of length `n`).
fn check_w_x(
    name: &str,
    n: usize,
    itself: &Value,
    primal: &Value,
    grad: &Gradient,
    grad_into: &GradientInto,
    jvp: &Tangent,
) {
    let case = Case {
        name,
        itself: &|v| itself(&v[..n], v[n]),
        primal: &|v| primal(&v[..n], v[n]),
        grad: Some(&|v| {
            let (value, (mut d_w, d_x)) = grad(&v[..n], v[n]);
            d_w.push(d_x);
            (value, d_w)
        }),
        grad_into: &|v| {
            let (mut d_w, mut d_x) = (vec![0.0; n], 0.0);
            let value = grad_into(&v[..n], v[n], &mut d_w, &mut d_x);
            d_w.push(d_x);
            (value, d_w)
        },
        jvp: &|v, t| jvp(&v[..n], v[n], &t[..n], t[n]),
    };
    case.check_with_second_order(&point(n + 1, 17, -0.8, 0.8));
}

#[test]
fn a_parameter_shadowed_or_written_after_the_call() {
    check_w_x(
        "shadowed_after_the_call",
        2,
        &shadowed_after_the_call,
        &shadowed_after_the_call::primal,
        &shadowed_after_the_call::grad,
        &shadowed_after_the_call::grad_into,
        &shadowed_after_the_call::jvp,
    );
    check_w_x(
        "written_after_the_call",
        2,
        &written_after_the_call,
        &written_after_the_call::primal,
        &written_after_the_call::grad,
        &written_after_the_call::grad_into,
        &written_after_the_call::jvp,
    );
    // the adjoint's call is the joint one, on the parameter, through the callee's
    // `vjp_into` (the array's cotangent added into the caller's buffer)
    let shadowed = shadowed_after_the_call::GENERATED;
    assert!(shadowed.contains("gradtape_callee::vjp_into(") && shadowed.contains("*joint"));
    // a `mut` parameter is not passed again: the call is replayed on the copy the
    // forward code saved of it (`generate::replay`)
    let written = written_after_the_call::GENERATED;
    assert!(written.contains("vjp_into(") && written.contains("let argument"));
}

#[test]
fn a_chain_of_joint_calls_and_literal_arguments() {
    check_w_x(
        "outermost",
        4,
        &outermost,
        &outermost::primal,
        &outermost::grad,
        &outermost::grad_into,
        &outermost::jvp,
    );
    // each level's own `grad_into` and `vjp_now` call the next level's `vjp_into`
    assert!(calls(outermost::GENERATED, "vjp_into"));
    let w = [0.3, -0.2, 0.5, 0.1];
    let (value, (d_w, d_x)) = middle::grad(&w, 0.7);
    let (now_value, (now_w, now_x)) = middle::vjp_now(&w, 0.7, 1.0);
    assert_eq!(value.to_bits(), now_value.to_bits());
    assert_eq!(d_w, now_w.unwrap());
    assert_eq!(d_x.to_bits(), now_x.unwrap().to_bits());
}

#[test]
fn a_constant_receiver_a_generic_callee_and_data_by_value() {
    let s = Scale { factor: 1.5 };
    let n = 3;
    let case = Case {
        name: "through_a_receiver",
        itself: &|v| through_a_receiver(&s, v),
        primal: &|v| through_a_receiver::primal(&s, v),
        grad: Some(&|v| {
            let (value, [d_w]) = through_a_receiver::grad(&s, v);
            (value, d_w)
        }),
        grad_into: &|v| {
            let mut d_w = vec![0.0; v.len()];
            let value = through_a_receiver::grad_into(&s, v, &mut d_w);
            (value, d_w)
        },
        jvp: &|v, t| through_a_receiver::jvp(&s, v, t),
    };
    case.check_with_second_order(&point(n, 3, 0.2, 0.9));
    // the joint method call's adjoint goes through the method's `vjp_into` (the array's
    // cotangent added into the caller's buffer), as a function's does
    assert!(through_a_receiver::GENERATED.contains("apply_vjp_into"));

    check_w_x(
        "generic_caller",
        3,
        &generic_caller,
        &generic_caller::primal,
        &generic_caller::grad,
        &generic_caller::grad_into,
        &generic_caller::jvp,
    );
    // f32: the joint form agrees with the split one to the bit
    let w32 = [0.3_f32, -0.2, 0.5];
    let (_, (d_w, d_x)) = generic_caller::grad(&w32, 0.7_f32);
    let (mut into_w, mut into_x) = ([0.0_f32; 3], 0.0_f32);
    generic_caller::grad_into(&w32, 0.7, &mut into_w, &mut into_x);
    assert_eq!(d_w, into_w.to_vec());
    assert_eq!(d_x.to_bits(), into_x.to_bits());

    let offsets = vec![0.1, -0.3, 0.2];
    let case = Case {
        name: "by_value_data",
        itself: &|v| {
            by_value_data(
                Data {
                    offsets: offsets.clone(),
                },
                v,
            )
        },
        primal: &|v| {
            by_value_data::primal(
                Data {
                    offsets: offsets.clone(),
                },
                v,
            )
        },
        grad: Some(&|v| {
            let data = Data {
                offsets: offsets.clone(),
            };
            let (value, [d_w]) = by_value_data::grad(data, v);
            (value, d_w)
        }),
        grad_into: &|v| {
            let data = Data {
                offsets: offsets.clone(),
            };
            let mut d_w = vec![0.0; v.len()];
            let value = by_value_data::grad_into(data, v, &mut d_w);
            (value, d_w)
        },
        jvp: &|v, t| {
            let data = Data {
                offsets: offsets.clone(),
            };
            by_value_data::jvp(data, v, t)
        },
    };
    case.check_with_second_order(&point(3, 5, -0.5, 0.5));
}

#[test]
fn a_call_in_a_loop_is_not_joint() {
    check_w_x(
        "in_a_loop",
        2,
        &in_a_loop,
        &in_a_loop::primal,
        &in_a_loop::grad,
        &in_a_loop::grad_into,
        &in_a_loop::jvp,
    );
    // each trip's call goes through `vjp`, its pullback kept on a stack
    assert!(!calls(in_a_loop::GENERATED, "vjp_now"));
}

/// Whether generated code calls a function named `item` (`GENERATED` also shows the
/// function's own `item`, defined, not called).
fn calls(code: &str, item: &str) -> bool {
    code.replace(&format!("fn {item}"), "").contains(item)
}

// ----- what `grad_into` recomputes by name -----

#[differentiable]
fn shift_then_shadow(xs: &[f64], s: f64) -> f64 {
    // `k` and `s` are read again by name in the adjoint's recomputation of `t`, unless
    // shadowed: the second `k` below must not be the one the adjoint reads
    let k = s * 2.0;
    let mut total = 0.0;
    for x in xs {
        let t = (x - k) * s;
        total += t * t;
    }
    let k = 7.0;
    total + k
}

#[test]
fn recomputation_reads_names_only_where_nothing_shadows_them() {
    check_w_x(
        "shift_then_shadow",
        3,
        &shift_then_shadow,
        &shift_then_shadow::primal,
        &shift_then_shadow::grad,
        &shift_then_shadow::grad_into,
        &shift_then_shadow::jvp,
    );
}

/// A tuple result of an array and a float: a caller reads it by its parts (through
/// `vjp`), and it has `vjp_now` and `vjp_into` too, built on `vjp`, for a caller holding
/// it as one value.
#[differentiable]
fn spread(w: &[f64], x: f64) -> (f64, f64) {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * (x * (i as f64 + 1.0)).sin();
    }
    (s, s * x + w[0] * w[1])
}

#[test]
fn a_tuple_results_vjp_now_and_vjp_into_are_its_pullback_at_once() {
    use gradtape::__private::generated::NoSink;
    let (w, x) = ([0.3, -0.2, 0.5], 0.4);
    let g = (Some(0.7), Some(-1.3));
    let (value, pullback) = spread::vjp(&w, x);
    let (d_w, d_x) = pullback(g);
    let (d_w, d_x) = (d_w.unwrap(), d_x.unwrap());
    // the pullback against central differences of ⟨g, f⟩
    let dot = |p: &[f64]| {
        let (s, t) = spread(&p[..3], p[3]);
        0.7 * s - 1.3 * t
    };
    let numeric = common::central_differences(&dot, &[w[0], w[1], w[2], x]);
    for (k, (a, n)) in d_w.iter().chain([&d_x]).zip(&numeric).enumerate() {
        assert!(
            common::close(*a, *n, 1e-6),
            "d/dp{k} {a} vs differences {n}"
        );
    }
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let (now_value, (now_w, now_x)) = spread::vjp_now(&w, x, g);
    assert_eq!(bits(&[value.0, value.1]), bits(&[now_value.0, now_value.1]));
    assert_eq!(bits(&d_w), bits(&now_w.unwrap()));
    assert_eq!(d_x.to_bits(), now_x.unwrap().to_bits());
    // `vjp_into` (its cotangent an `Option`, `None` for a value that got none) adds the
    // array's cotangent into the sink, its entry `()`
    let mut sink = [1.0, 2.0, 3.0];
    let (into_value, ((), into_x)) = spread::vjp_into(&w, x, Some(g), (&mut sink[..], NoSink));
    assert_eq!(
        bits(&[value.0, value.1]),
        bits(&[into_value.0, into_value.1])
    );
    let added: Vec<f64> = [1.0, 2.0, 3.0]
        .iter()
        .zip(&d_w)
        .map(|(s, d)| s + d)
        .collect();
    assert_eq!(bits(&sink), bits(&added));
    assert_eq!(d_x.to_bits(), into_x.unwrap().to_bits());
}
