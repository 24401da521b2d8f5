//! `#[differentiable]` on the searches over slices of floats (issue 13): `position`,
//! `find`, `any` and `all`, as users write them, rewritten into the loop with a `break`
//! they are (`macros/src/searches.rs`). `position` gives an integer and `any`/`all` a
//! flag, constants; `find` gives an element, whose cotangent goes to the element found.
//!
//! Each function is checked through its faces (`f`, `f::primal`, `f::grad`,
//! `f::grad_into`, `f::jvp`) against each other, against central differences, and at
//! second order as scalar mode has it (`common::faces::Case`), at points away from the
//! thresholds (where the search's answer, and so the function, jumps).

// The functions are written as users write them, index loops included.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::point;
use gradtape::differentiable;

// ----- `position` -----

/// The energy of the tail from the first element above `t` (`position` with `unwrap_or`
/// as the user writes it, the index a constant).
#[differentiable]
fn tail_energy(x: &[f64], t: f64) -> f64 {
    let i = x.iter().position(|&v| v > t).unwrap_or(x.len());
    let mut s = 0.0;
    for j in i..x.len() {
        s += x[j] * x[j];
    }
    s * t
}

/// `position` over copies, a closure reading its parameter through `*`, `rev`, and
/// `if let Some(i)` on the index.
#[differentiable]
fn last_negative_weighted(x: &[f64], t: f64) -> f64 {
    let from_end = x.iter().rev().position(|v| *v < 0.0);
    let first_big = x.iter().copied().position(|v| v * t > 0.5);
    let mut y = t;
    if let Some(k) = from_end {
        y += x[x.len() - 1 - k].powi(2);
    }
    match first_big {
        Some(i) => y * x[i],
        None => y,
    }
}

// ----- `find` -----

/// `if let Some(v) = x.iter().find(..)`, the element by value (`|&&v|`, `Some(&v)`).
#[differentiable]
fn first_above_scaled(x: &[f64], t: f64) -> f64 {
    if let Some(&v) = x.iter().find(|&&v| v > t) {
        v * v * t
    } else {
        t.sin()
    }
}

/// The element behind its references (`|v| **v > t`, `Some(v)` then `*v`), in a `match`.
#[differentiable]
fn first_above_by_ref(x: &[f64], t: f64) -> f64 {
    match x.iter().find(|v| **v > t) {
        Some(v) => (*v).sin() * t + *v,
        None => 0.0,
    }
}

/// `find` over copies into a local `Option<f64>`, read by `unwrap_or` and `is_some`.
#[differentiable]
fn first_negative_or(x: &[f64], t: f64) -> f64 {
    let found = x.iter().copied().find(|&v| v < 0.0);
    let v = found.unwrap_or(t);
    if found.is_some() { v * t } else { v.exp() }
}

/// `.copied().unwrap_or(..)` of an `Option<&f64>`, over a reversed chain (the last one
/// above `t`).
#[differentiable]
fn last_above_exp(x: &[f64], t: f64) -> f64 {
    let v = x.iter().rev().find(|&&v| v > t).copied().unwrap_or(0.0);
    v.exp() + t * x[0]
}

/// `let Some(&v) = .. else { return .. };`, and a search over a local buffer.
#[differentiable]
fn first_large_square(x: &[f64], t: f64) -> f64 {
    let squares: Vec<f64> = x.iter().map(|v| v * v).collect();
    let Some(&v) = squares.iter().find(|&&s| s > t) else {
        return t * t;
    };
    v * t
}

/// `rposition`: the last element above `t`, its position counted from the front.
#[differentiable]
fn last_above_squared(x: &[f64], t: f64) -> f64 {
    let j = x.iter().rposition(|&v| v > t);
    match j {
        Some(j) => x[j] * x[j] * (j + 1) as f64,
        None => t,
    }
}

/// Searches over parts: `skip` (positions counted from the part's start, as the iterator
/// counts them) and `step_by` (every other element), and `find` in generic code.
#[differentiable]
fn searches_over_parts(x: &[f64], t: f64) -> f64 {
    let i = x.iter().skip(1).position(|&v| v > t).map_or(0, |k| k + 1);
    let every_other = x.iter().step_by(2).copied().find(|&v| v < t).unwrap_or(t);
    x[i] * every_other + generic_first_above(x, t)
}

#[differentiable]
fn generic_first_above<T: num_traits::Float>(x: &[T], t: T) -> T {
    match x.iter().find(|&&v| v > t) {
        Some(&v) => v * v,
        None => t,
    }
}

// ----- `any` and `all` -----

/// `any` in an `if` condition (run as written there: a condition is a constant), `all` as
/// a `let`'s value with a negation after it (the loop with a `break`).
#[differentiable]
fn flagged_scale(x: &[f64], t: f64) -> f64 {
    let scale = if x.iter().any(|&v| v > t) { 2.0 } else { 1.0 };
    let none_below = !x.iter().all(|v| *v > -t);
    if none_below {
        scale * x[1]
    } else {
        scale * x[0] * t
    }
}

#[test]
fn position_gives_a_constant_index() {
    // x[1] = 0.9 is the first above 0.5: the tail is x[1..]
    let x = vec![0.1, 0.9, -0.4, 0.7, 0.3];
    let expected = (0.81 + 0.16 + 0.49 + 0.09) * 0.5;
    assert!((tail_energy(&x, 0.5) - expected).abs() < 1e-12);
    let (_, (dx, dt)) = tail_energy::grad(&x, 0.5);
    assert_eq!(dx[0], 0.0);
    assert!((dx[1] - 2.0 * 0.9 * 0.5).abs() < 1e-12);
    assert!((dt - (0.81 + 0.16 + 0.49 + 0.09)).abs() < 1e-12);
    // none above: the tail is empty
    assert_eq!(tail_energy::grad(&x, 2.0).1.0, vec![0.0; 5]);
    slice_and_float!(@second_order tail_energy, vec![0.1, 0.9, -0.4, 0.7, 0.3, 0.5]);
    slice_and_float!(@second_order tail_energy, vec![0.1, 0.2, -0.4, 0.3, 0.3, 1.5]);
    slice_and_float!(@second_order last_negative_weighted, vec![0.3, -0.6, 0.8, 0.2, 0.7]);
    slice_and_float!(@second_order last_negative_weighted, vec![0.3, 0.6, 0.8, 0.2, 0.1]);
}

#[test]
fn find_sends_the_cotangent_to_the_element_found() {
    let x = vec![0.1, 0.9, 0.7, -0.3];
    // the first above 0.5 is x[1]: d/dx1 (x1² t) = 2 x1 t, nothing to x[2]
    let (value, (dx, dt)) = first_above_scaled::grad(&x, 0.5);
    assert!((value - 0.81 * 0.5).abs() < 1e-12);
    assert_eq!(dx[0], 0.0);
    assert!((dx[1] - 2.0 * 0.9 * 0.5).abs() < 1e-12);
    assert_eq!(dx[2], 0.0);
    assert!((dt - 0.81).abs() < 1e-12);
    for f_at in [
        vec![0.1, 0.9, 0.7, -0.3, 0.5],
        vec![0.1, 0.2, 0.3, -0.3, 0.5],
    ] {
        slice_and_float!(@second_order first_above_scaled, f_at.clone());
        slice_and_float!(@second_order first_above_by_ref, f_at.clone());
        slice_and_float!(@second_order first_negative_or, f_at.clone());
        slice_and_float!(@second_order last_above_exp, f_at.clone());
        slice_and_float!(@second_order first_large_square, f_at);
    }
    slice_and_float!(@second_order first_large_square, vec![0.1, 0.9, 0.7, -0.3, 0.05]);
}

#[test]
fn searches_over_parts_and_generic_code() {
    for x in [
        vec![0.9, 0.1, 0.7, -0.3, 0.2, 0.5],
        vec![0.1, 0.2, 0.7, 0.6, 0.2, 0.5],
        vec![0.9, 0.1, 0.2, -0.3, 0.2, 1.5],
    ] {
        slice_and_float!(@second_order searches_over_parts, x);
    }
    // x[2] = 0.7 is the last above 0.5: 3 x2²
    let (value, (dx, _)) = last_above_squared::grad(&[0.1, 0.9, 0.7, -0.3], 0.5);
    assert!((value - 3.0 * 0.49).abs() < 1e-12);
    assert_eq!(dx, vec![0.0, 0.0, 6.0 * 0.7, 0.0]);
    for x in [
        vec![0.1, 0.9, 0.7, -0.3, 0.5],
        vec![0.1, 0.2, 0.3, -0.3, 0.5],
    ] {
        slice_and_float!(@second_order last_above_squared, x);
    }
    // f32: the element found is a `T`
    let (value, (dx, dt)) = generic_first_above::grad(&[0.1f32, 0.9, 0.7], 0.5);
    assert_eq!(
        (value, dx, dt),
        (0.9f32 * 0.9, vec![0.0, 2.0 * 0.9, 0.0], 0.0)
    );
}

#[test]
fn any_and_all_are_constant_flags() {
    for f_at in [
        vec![0.1, 0.9, 0.7, -0.3, 0.5],
        vec![0.1, 0.2, 0.3, -0.3, 0.5],
        vec![0.1, 0.2, 0.3, -0.8, 0.5],
    ] {
        slice_and_float!(@second_order flagged_scale, f_at);
    }
    let mut x = point(6, 3, -1.0, 1.0);
    x.push(0.25);
    slice_and_float!(@second_order flagged_scale, x);
}

#[test]
fn generated_code_is_the_loop_with_a_break() {
    // the search is an indexed loop over the slice, left by `break` at the first hit,
    // its element read through the shadow
    for generated in [
        tail_energy::GENERATED,
        first_above_scaled::GENERATED,
        flagged_scale::GENERATED,
    ] {
        assert!(generated.contains("for gradtape_k in"), "{generated}");
        assert!(generated.contains("break"), "{generated}");
        assert!(!generated.contains(".position("), "{generated}");
        assert!(!generated.contains(".find("), "{generated}");
        assert!(!generated.contains(".all("), "{generated}");
    }
    // in an `if`'s condition the search runs as written
    assert!(flagged_scale::GENERATED.contains("x.iter().any("));
}

// ----- a search in a condition evaluated again -----

/// `any` in a `while` condition, evaluated again before each iteration: a condition is a
/// constant the primal computes as written (no rewrite needed; the loop it guards is
/// differentiated as any `while`).
#[differentiable]
fn shrink_until_small(x: &[f64], t: f64) -> f64 {
    let mut scale = 1.0;
    while x.iter().any(|&v| v * scale > t) {
        scale *= 0.5;
    }
    scale * x[0] * t
}

#[test]
fn a_search_in_a_while_condition() {
    // scale halves until every element times it is at most t
    let x = vec![0.3, 1.7, -0.2];
    assert_eq!(shrink_until_small(&x, 0.5), 0.25 * 0.3 * 0.5);
    slice_and_float!(@second_order shrink_until_small, vec![0.3, 1.7, -0.2, 0.5]);
}

// ----- a predicate that also updates a value -----

/// The predicate's statements run in the loop, before the test on its value: `s` takes
/// every element up to the first above `t`, differentiated (in a condition they would run
/// as written, and the gradient through `s` would be lost; such a condition is now the
/// macro's error, `tests/ui/differentiable/condition-writes-a-differentiable-value.rs`).
#[differentiable]
fn sum_up_to_first_above(x: &[f64], t: f64) -> f64 {
    let mut s = 0.0;
    let i = x
        .iter()
        .position(|&v| {
            s += v * t;
            v > t
        })
        .unwrap_or(0);
    s + x[i]
}

#[test]
fn a_predicate_with_statements_is_differentiated() {
    // x[1] is the first above 0.5: s = (0.3 + 1.7) t, the result s + x[1]
    let (value, (dx, dt)) = sum_up_to_first_above::grad(&[0.3, 1.7, -0.2], 0.5);
    assert!((value - 2.7).abs() < 1e-12);
    assert_eq!(dx, vec![0.5, 1.5, 0.0]);
    assert!((dt - 2.0).abs() < 1e-12);
    slice_and_float!(@second_order sum_up_to_first_above, vec![0.3, 1.7, -0.2, 0.5]);
    slice_and_float!(@second_order sum_up_to_first_above, vec![0.3, 0.1, -0.2, 0.5]);
}
