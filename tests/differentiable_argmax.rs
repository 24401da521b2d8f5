//! An extremum with its position, `let (i, v) = x.iter().enumerate().max_by(..).unwrap();`
//! (an argmax, a greedy choice, a classifier's prediction), and its position alone through
//! `.map(|(i, _)| i)` (session 36, found by a batch of everyday functions: "a
//! differentiable value must be bound to a plain name" and "`unwrap` is not a
//! differentiable method").
//!
//! Each function is checked as every annotated function is (`Case`: the value to the bit
//! against the body as written, `grad_into` against `grad`, central differences, `jvp`
//! against the gradient, the second order), at points away from ties; ties and an empty
//! array by hand against the iterator's own choice.

#[macro_use]
mod common;

use gradtape::differentiable;

/// The largest score and where it is: the prediction's confidence times its class weight.
#[differentiable]
fn confident_class(x: &[f64]) -> f64 {
    let (class, score) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    score * score * (class as f64 + 1.0)
}

/// The position alone (`map`), then the element there read by index.
#[differentiable]
fn at_the_largest(x: &[f64]) -> f64 {
    let best = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
        .unwrap();
    x[best] * 2.0 + x[(best + 1) % x.len()]
}

/// The smallest copied value by `min_by`, with `expect`.
#[differentiable]
fn nearest_below(x: &[f64]) -> f64 {
    let (i, v) = x
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("a non-empty array");
    v * v + i as f64
}

/// The element of the largest magnitude by a key (`max_by_key` of an integer key).
#[differentiable]
fn largest_magnitude(x: &[f64]) -> f64 {
    let (_, v) = x
        .iter()
        .enumerate()
        .max_by_key(|(_, v)| (v.abs() * 1e6) as i64)
        .unwrap();
    v.sin()
}

#[test]
fn argmax_and_argmin_with_their_values() {
    // no two elements (nor magnitudes) within the differences' steps of each other, so
    // that the choice holds around each point
    for x in [
        vec![0.3, 1.7, -0.2, 0.9, -0.6],
        vec![-1.2, 0.4, 0.1, -0.3, 0.8],
        vec![0.5, -0.9, 1.4, -1.9, 0.2],
    ] {
        slices!(@second_order confident_class, [5], [0], x.clone());
        slices!(@second_order at_the_largest, [5], [0], x.clone());
        slices!(@second_order nearest_below, [5], [0], x.clone());
        slices!(@second_order largest_magnitude, [5], [0], x);
    }
}

#[test]
fn ties_are_the_iterators_and_an_empty_array_panics_as_unwrap_does() {
    // `max_by` keeps the last of equal elements, `min_by` the first, `max_by_key` the
    // last: the gradient goes to that one
    let x = [0.5, 2.0, -1.0, 2.0, -1.0];
    let (value, [g]) = confident_class::grad(&x);
    assert_eq!(value, confident_class(&x));
    assert_eq!(g, vec![0.0, 0.0, 0.0, 2.0 * 2.0 * 4.0, 0.0]);
    let (value, [g]) = nearest_below::grad(&x);
    assert_eq!(value, nearest_below(&x));
    assert_eq!(g, vec![0.0, 0.0, -2.0, 0.0, 0.0]);
    let y = [0.5, -2.0, 1.0, 2.0];
    let (value, [g]) = largest_magnitude::grad(&y);
    assert_eq!(value, largest_magnitude(&y));
    assert_eq!(g, vec![0.0, 0.0, 0.0, 2.0_f64.cos()]);
    // the iterator's message on an empty array
    let unwrapped = std::panic::catch_unwind(|| confident_class::grad(&[])).unwrap_err();
    assert_eq!(
        unwrapped.downcast_ref::<&str>().copied(),
        Some("called `Option::unwrap()` on a `None` value")
    );
    let expected = std::panic::catch_unwind(|| nearest_below::grad(&[])).unwrap_err();
    assert_eq!(
        expected.downcast_ref::<String>().map(String::as_str),
        Some("a non-empty array")
    );
}
