//! Replayed calls split in the last trip of their loop (issue 14): in `grad_into` and
//! `grad` (whose adjoint runs in the same body), a replayed writing call in a `for` loop
//! over a range runs, in the loop's last trip, through the callee's hidden `vjp_split`
//! (its forward code with its saves, once, its adjoint kept for the caller's adjoint)
//! instead of as written and again in `vjp_into`. Every other trip, and every loop where
//! the last trip is not known or not reached, replays the call from its saved copies.
//!
//! Each case is checked through every face (`slices!`: the value to the bit, `grad` and
//! `grad_into` against each other and central differences, `jvp`, and second order), and
//! the split gradient (`grad_into`) against `vjp`'s pullback, which keeps the callees'
//! pullbacks and never splits. Where the code should split, it is checked that it does.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::close;
use common::faces::{Gradient, point};
use gradtape::differentiable;

/// One explicit step of `y′ = f(x, y)`, `f₀ = x₀`, `fᵢ = xᵢ sin(yᵢ₋₁)`, in place: a stage
/// carried from element to element, as the ode eval's step does.
#[differentiable]
fn step(x: &[f64], s: usize, y: &mut [f64]) {
    let h = 1.0 / s as f64;
    let n = x.len().min(y.len());
    let mut before = y[0];
    y[0] += h * x[0];
    for i in 1..n {
        let yi = y[i];
        y[i] = yi + h * x[i] * before.sin();
        before = yi;
    }
}

/// `s` steps from a fixed start, then the last element: the call's written array read
/// after the loop (its value from the last trip's split call).
#[differentiable]
fn last_after_steps(x: &[f64], s: usize) -> f64 {
    let mut y = vec![0.25; x.len()];
    for _ in 0..s {
        step(x, s, &mut y);
    }
    y[x.len() - 1] + y[0] * y[0]
}

/// Steps that stop early: `break` once the state passes a bound, so the loop may end
/// before its last trip (then nothing is split, every call replayed from its copy).
#[differentiable]
fn steps_until(x: &[f64], s: usize, thousandths: usize) -> f64 {
    let mut y = vec![0.5; x.len()];
    for _ in 0..s {
        step(x, s, &mut y);
        if y[0] > 0.001 * thousandths as f64 {
            break;
        }
    }
    y[x.len() - 1] * y[0]
}

/// The written array changed after the call in the same trip, the last one included: the
/// split call's adjoint must not hold it.
#[differentiable]
fn written_after_the_call(x: &[f64], s: usize) -> f64 {
    let mut y = vec![0.1; x.len()];
    for k in 0..s {
        step(x, s, &mut y);
        y[k % x.len()] = y[k % x.len()] * 0.5 + x[0];
    }
    y.iter().map(|v| v * v).sum()
}

/// The call in an inner loop (depth 2: never split, the inner loop runs once per outer
/// trip), in the outer loop's body (depth 1 of a loop at depth 0: split in the outer loop's
/// last trip), and in a loop after them (split in its last trip). (`s ≥ 1`: the outer loop
/// calls `step` whatever the inner loop does.)
#[differentiable]
fn nested(x: &[f64], s: usize) -> f64 {
    let mut y = vec![0.2; x.len()];
    for _ in 0..2 {
        for _ in 0..s {
            step(x, s, &mut y);
        }
        step(x, s, &mut y);
    }
    for _ in 0..s {
        step(x, s, &mut y);
    }
    y[x.len() - 1]
}

/// `out[i] += c · a[i] · out[i]`, returning `Σ out`: a number argument whose cotangent
/// comes back from the split adjoint, and a value used by the caller.
#[differentiable]
fn grow(a: &[f64], c: f64, out: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..a.len() {
        out[i] += c * a[i] * out[i];
        total += out[i];
    }
    total
}

#[differentiable]
fn numbers_and_values(x: &[f64]) -> f64 {
    let mut out = vec![1.0; x.len()];
    let mut total = 0.0;
    for k in 0..3 {
        let c = 0.3 * x[k % x.len()] + 0.1;
        let sum = grow(x, c, &mut out);
        total += sum * c;
    }
    total + out[0]
}

/// The call in a branch of the loop's body, taken in the last trip or not.
#[differentiable]
fn in_a_branch(x: &[f64], s: usize, last_taken: bool) -> f64 {
    let mut y = vec![0.3; x.len()];
    for k in 0..s {
        if k + 1 < s || last_taken {
            step(x, s, &mut y);
        } else {
            y[0] *= x[0];
        }
    }
    y[0] + y[x.len() - 1]
}

/// A `while` loop: its trip count is not known as it starts, so nothing is split.
#[differentiable]
fn in_a_while(x: &[f64], s: usize) -> f64 {
    let mut y = vec![0.25; x.len()];
    let mut k = 0;
    while k < s {
        step(x, s, &mut y);
        k += 1;
    }
    y[x.len() - 1]
}

/// A callee whose lifetimes the user spelled: its `vjp_split` runs it as written and hands
/// no adjoint back, so the caller replays the last trip's call from its copy.
#[differentiable]
fn scale_into<'a>(x: &'a [f64], y: &'a mut [f64]) {
    for i in 0..x.len().min(y.len()) {
        y[i] = y[i] * x[i] + 0.5 * x[i];
    }
}

#[differentiable]
fn spelled_lifetimes(x: &[f64], s: usize) -> f64 {
    let mut y = vec![1.0; x.len()];
    for _ in 0..s {
        scale_into(x, &mut y);
    }
    y[0] * y[x.len() - 1]
}

/// `s` steps in place, as the ode eval's `solve`: its own last step split.
#[differentiable]
fn steps_into(x: &[f64], s: usize, y: &mut [f64]) {
    for v in y.iter_mut() {
        *v = 0.5;
    }
    for _ in 0..s {
        step(x, s, y);
    }
}

/// A caller of a function that splits calls of its own, in a loop: that callee declines
/// to split (its adjoint's type would hold its callees'), and its last call is replayed.
#[differentiable]
fn steps_twice(x: &[f64], s: usize) -> f64 {
    let mut y = vec![0.0; x.len()];
    let mut total = 0.0;
    for k in 0..2 {
        steps_into(x, s, &mut y);
        total += y[k % x.len()] * y[x.len() - 1];
    }
    total
}

/// `grad_into`'s code (from `f::GENERATED`), up to the next function.
fn grad_into_code(generated: &str) -> &str {
    let rest = &generated[generated.find("pub fn grad_into").expect("grad_into")..];
    &rest[..rest[1..].find("pub fn ").map_or(rest.len(), |k| k + 1)]
}

/// The gradient from `grad_into` (split where the code splits) against `vjp`'s pullback's
/// (never split), close (the sums may run in another order), the values to the bit.
fn against_the_pullback(name: &str, x: &[f64], grad_into: Gradient<'_>, pullback: Gradient<'_>) {
    let (value, split) = grad_into(x);
    let (pullback_value, kept) = pullback(x);
    assert_eq!(value.to_bits(), pullback_value.to_bits(), "{name}: value");
    for (k, (a, b)) in split.iter().zip(&kept).enumerate() {
        assert!(
            close(*a, *b, 1e-12),
            "{name}: d/dx{k} split {a}, pullback {b}"
        );
    }
}

/// `f(x, s)`'s faces, and its `grad_into` against its pullback, for each trip count.
macro_rules! with_trips {
    ($f:ident, $n:expr, $seed:expr, [$($s:expr),*]) => {{
        $(
            let s: usize = $s;
            let x = point($n, $seed, 0.2, 0.9);
            let case = format!("{} at s = {}", stringify!($f), s);
            common::faces::Case {
                name: &case,
                itself: &|x| $f(x, s),
                primal: &|x| $f::primal(x, s),
                grad: Some(&|x| {
                    let (value, g) = $f::grad(x, s);
                    { let [g] = g; (value, g) }
                }),
                grad_into: &|x| {
                    let mut d = vec![0.0; x.len()];
                    let value = $f::grad_into(x, s, &mut d);
                    (value, d)
                },
                jvp: &|x, v| $f::jvp(x, s, v),
            }
            .check_with_second_order(&x);
            against_the_pullback(
                &case,
                &x,
                &|x| {
                    let mut d = vec![0.0; x.len()];
                    let value = $f::grad_into(x, s, &mut d);
                    (value, d)
                },
                &|x| {
                    let (value, pullback) = $f::vjp(x, s);
                    (value, pullback(1.0).0.expect("a gradient"))
                },
            );
        )*
    }};
}

#[test]
fn the_last_step_split_and_its_state_read_after_the_loop() {
    with_trips!(last_after_steps, 5, 41, [0, 1, 2, 7]);
    assert_eq!(
        grad_into_code(last_after_steps::GENERATED)
            .matches("vjp_split(")
            .count(),
        1,
        "the last trip's call goes through `vjp_split`"
    );
    // the split gives the same value as the call as written, to the bit
    let x = point(6, 42, 0.2, 0.9);
    let mut y = vec![0.25; 6];
    step(&x, 3, &mut y);
    let mut split = vec![0.25; 6];
    let (value, adjoint) = step::vjp_split(&x, 3, &mut split);
    assert_eq!(value, ());
    assert!(adjoint.is_some(), "`step` splits");
    assert_eq!(
        y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        split.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn a_loop_ended_by_a_break_before_or_in_its_last_trip() {
    // the bound passed early (no split), in the last trip, or never
    let x = point(4, 43, 0.2, 0.9);
    let mut y = vec![0.5; 4];
    let mut firsts = vec![0.5];
    for _ in 0..4 {
        step(&x, 4, &mut y);
        firsts.push(y[0]);
    }
    // `y₀` grows by `x₀ / 4 ≥ 0.05` per trip: a bound halfway is passed in trip `trip`
    let passed_in = |trip: usize| ((firsts[trip] + firsts[trip + 1]) * 500.0).round() as usize;
    for bound in [passed_in(0), passed_in(3), 1_000_000] {
        let case = format!("steps_until at {bound} thousandths");
        common::faces::Case {
            name: &case,
            itself: &|x| steps_until(x, 4, bound),
            primal: &|x| steps_until::primal(x, 4, bound),
            grad: Some(&|x| {
                let (value, g) = steps_until::grad(x, 4, bound);
                {
                    let [g] = g;
                    (value, g)
                }
            }),
            grad_into: &|x| {
                let mut d = vec![0.0; x.len()];
                let value = steps_until::grad_into(x, 4, bound, &mut d);
                (value, d)
            },
            jvp: &|x, v| steps_until::jvp(x, 4, bound, v),
        }
        .check_with_second_order(&x);
        against_the_pullback(
            &case,
            &x,
            &|x| {
                let mut d = vec![0.0; x.len()];
                let value = steps_until::grad_into(x, 4, bound, &mut d);
                (value, d)
            },
            &|x| {
                let (value, pullback) = steps_until::vjp(x, 4, bound);
                (value, pullback(1.0).0.expect("a gradient"))
            },
        );
    }
}

#[test]
fn the_written_array_changed_after_the_call() {
    with_trips!(written_after_the_call, 4, 44, [0, 1, 3]);
}

#[test]
fn nested_loops_split_only_calls_of_loops_at_depth_zero() {
    with_trips!(nested, 4, 45, [1, 2, 3]);
    assert_eq!(
        grad_into_code(nested::GENERATED)
            .matches("vjp_split(")
            .count(),
        2,
        "the calls at depth 1 of loops at depth 0 split, the inner loop's call does not"
    );
}

#[test]
fn a_number_argument_and_a_value_used() {
    let x = point(4, 46, 0.2, 0.9);
    slices!(@second_order numbers_and_values, [4], [0], x.clone());
    against_the_pullback(
        "numbers_and_values",
        &x,
        &|x| {
            let mut d = vec![0.0; x.len()];
            let value = numbers_and_values::grad_into(x, &mut d);
            (value, d)
        },
        &|x| {
            let (value, pullback) = numbers_and_values::vjp(x);
            (value, pullback(1.0).0.expect("a gradient"))
        },
    );
    assert_eq!(
        grad_into_code(numbers_and_values::GENERATED)
            .matches("vjp_split(")
            .count(),
        1
    );
}

#[test]
fn a_call_in_a_branch_taken_in_the_last_trip_or_not() {
    for taken in [true, false] {
        let x = point(4, 47, 0.2, 0.9);
        let case = format!("in_a_branch, last taken: {taken}");
        common::faces::Case {
            name: &case,
            itself: &|x| in_a_branch(x, 3, taken),
            primal: &|x| in_a_branch::primal(x, 3, taken),
            grad: Some(&|x| {
                let (value, g) = in_a_branch::grad(x, 3, taken);
                {
                    let [g] = g;
                    (value, g)
                }
            }),
            grad_into: &|x| {
                let mut d = vec![0.0; x.len()];
                let value = in_a_branch::grad_into(x, 3, taken, &mut d);
                (value, d)
            },
            jvp: &|x, v| in_a_branch::jvp(x, 3, taken, v),
        }
        .check_with_second_order(&x);
    }
}

#[test]
fn a_while_loop_is_not_split() {
    with_trips!(in_a_while, 4, 48, [0, 1, 3]);
    assert_eq!(
        grad_into_code(in_a_while::GENERATED)
            .matches("vjp_split(")
            .count(),
        0
    );
}

#[test]
fn a_callee_with_spelled_lifetimes_declines_and_is_replayed() {
    with_trips!(spelled_lifetimes, 4, 49, [0, 1, 3]);
    let x = point(3, 50, 0.2, 0.9);
    let mut y = vec![1.0; 3];
    let (_, adjoint) = scale_into::vjp_split(&x, &mut y);
    assert!(
        adjoint.is_none(),
        "a callee with spelled lifetimes does not split"
    );
}

#[test]
fn a_callee_that_splits_calls_of_its_own_declines() {
    with_trips!(steps_twice, 4, 51, [0, 1, 3]);
    let x = point(3, 52, 0.2, 0.9);
    let mut y = vec![0.0; 3];
    let (_, adjoint) = steps_into::vjp_split(&x, 2, &mut y);
    assert!(adjoint.is_none(), "`steps_into` splits calls of its own");
    const { assert!(!steps_into::SPLITS && step::SPLITS) };
}
