//! Iterator and slice forms `#[differentiable]` rejected until the `iter-more` branch
//! (issue 13), each rewritten into indexed loops lowering differentiates (`iterators.rs`),
//! and checked against dual numbers and central differences at orders 1 and 2 (`twice!`:
//! the body annotated, and plain over `num_traits::Float` on `gradtape::generated::Dual`,
//! which runs std's iterators), with the cases where a rewrite could change meaning
//! (lengths that differ in a `zip`, side effects and order in closures, empty arrays)
//! checked by hand or through the plain copy:
//!
//! - a reversed side of a `zip` (`x.iter().zip(x.iter().rev())`, `x.iter().rev().zip(w)`),
//!   its item read at `len - 1 - k` of its own array (`Item::FromEnd`);
//! - `rev`/`take` after a `map` that more adapters follow, and `skip`/`step_by` when the
//!   map has no effect (`CommuteMaps`), and a `for` loop over a chain ending in a `map`;
//! - `collect` of floats over an array of rows (`x0.iter().map(|r| r[0]).collect()`);
//! - a copy read at once (`x.to_vec()[i]`, `x.to_vec().iter()`), and `let p =
//!   core::array::from_fn(..); p` typed by the signature only.

// the forms are written as users write them (a copy read at once, a whole-range slice
// walked)
#![allow(
    clippy::needless_range_loop,
    clippy::let_and_return,
    clippy::unnecessary_to_owned,
    clippy::redundant_slicing
)]

#[macro_use]
mod common;

use common::{central_differences, close};
use gradtape::differentiable;

// ----- a reversed side of a zip -----

twice! {
    /// How palindromic a signal is: each element against its mirror image.
    fn palindrome_score / palindrome_score_on_duals<T>(x: &[T]) -> T {
        x.iter().zip(x.iter().rev()).map(|(a, b)| *a * *b).sum()
    }
}

twice! {
    /// One output of a full convolution of a signal with a kernel (the kernel read
    /// backwards), the two of different lengths, either the longer: the shorter bounds
    /// the pairs.
    fn convolution_tap / convolution_tap_on_duals<T>(x: &[T]) -> T {
        let signal = &x[..3];
        let kernel = &x[3..];
        signal.iter().zip(kernel.iter().rev()).map(|(s, k)| *s * k.tanh()).sum()
    }
}

twice! {
    /// A reversed left side and a plain right side in a `for` loop (a back-substitution's
    /// weights read from the end), the right side the shorter.
    fn reversed_left / reversed_left_on_duals<T>(x: &[T]) -> T {
        let w = &x[1..];
        let mut total = T::zero();
        for (a, b) in x.iter().rev().zip(w) {
            total = total + *a * b.sin();
        }
        total
    }
}

twice! {
    /// A reversed right side collected into a local `Vec` (the differences of a signal
    /// and its time reversal), then read by index.
    fn reversal_differences / reversal_differences_on_duals<T>(x: &[T]) -> T {
        let d: Vec<T> = x[1..].iter().zip(x.iter().rev()).map(|(a, b)| *a - *b).collect();
        let mut total = T::zero();
        for k in 0..d.len() {
            total = total + d[k] * d[k] * T::from(k + 1).unwrap();
        }
        total
    }
}

twice! {
    /// A mapped right side read backwards, and a position taken after the zip (a
    /// discounted cross-correlation at lag zero).
    fn discounted_mirror / discounted_mirror_on_duals<T>(x: &[T]) -> T {
        let gamma = T::from(0.8).unwrap();
        let mut total = T::zero();
        for (i, (a, b)) in x.iter().zip(x.iter().map(|u| u.cos()).rev()).enumerate() {
            total = total + gamma.powi(i as i32) * *a * b;
        }
        total
    }
}

twice! {
    /// Elements written through a reversed mutable left side (`iter_mut().rev()`), and
    /// through a plain one from a reversed right side, into local buffers.
    fn reversed_writes / reversed_writes_on_duals<T>(x: &[T]) -> T {
        let mut y = vec![T::zero(); x.len() - 1];
        for (o, v) in y.iter_mut().rev().zip(x.iter()) {
            *o = *v * *v;
        }
        let mut z = vec![T::zero(); x.len()];
        for (o, v) in z.iter_mut().zip(y.iter().rev()) {
            *o = v.exp();
        }
        let mut total = T::zero();
        for k in 0..y.len() {
            total = total + y[k] * T::from(k + 1).unwrap() + z[k] * x[k];
        }
        total
    }
}

twice! {
    /// A reversed right side with adapters after the zip: positions then `skip`, a
    /// filter on the left item, and the pairs run backwards by a `rev` after the zip
    /// (which `Zip` gives as the same pairs in reverse, whichever side is longer).
    fn reversed_pairs_adapted / reversed_pairs_adapted_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for (i, (a, b)) in x.iter().zip(x[1..].iter().rev()).enumerate().skip(1) {
            total = total + T::from(i).unwrap() * *a * *b;
        }
        let kept: T = x
            .iter()
            .zip(x.iter().rev())
            .filter(|(a, _)| **a > T::zero())
            .map(|(a, b)| *a * b.sin())
            .sum();
        let half = T::from(0.5).unwrap();
        let back: T = x
            .iter()
            .zip(x[1..].iter().rev())
            .rev()
            .map(|(a, b)| *a - *b * *b)
            .fold(T::zero(), |acc, d| acc * half + d);
        total + kept + back
    }
}

#[test]
fn reversed_zip() {
    one_slice_twice!(reversed_pairs_adapted, reversed_pairs_adapted_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.2, -0.4, 1.3, 0.6]);
    one_slice_twice!(palindrome_score, palindrome_score_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9], [0.4, 1.2, -0.7]);
    // a kernel shorter than the signal, then longer
    one_slice_twice!(convolution_tap, convolution_tap_on_duals at [0.3, -1.0, 2.0, 0.5, 0.7]);
    one_slice_twice!(convolution_tap, convolution_tap_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.7, -0.2, 1.1]);
    one_slice_twice!(reversed_left, reversed_left_on_duals at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(reversal_differences, reversal_differences_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.1]);
    one_slice_twice!(discounted_mirror, discounted_mirror_on_duals at [0.3, -1.0, 2.0]);
    one_slice_twice!(reversed_writes, reversed_writes_on_duals at [0.3, -1.0, 2.0, 0.5]);
}

/// Two arrays of their own lengths, the right one reversed: each pair is the left's `k`-th
/// element and the right's `k`-th from its end, for as many pairs as the shorter has.
#[differentiable]
fn mirrored_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b.iter().rev()).map(|(p, q)| p * q).sum()
}

#[differentiable]
fn reversed_left_dot(a: &[f64], b: &[f64]) -> f64 {
    let mut total = 0.0;
    for (p, q) in a.iter().rev().zip(b) {
        total += p * q * q;
    }
    total
}

#[test]
fn reversed_zip_of_lengths_that_differ() {
    for (a, b) in [
        (&[0.3, -1.0, 2.0, 0.5][..], &[0.9, 0.2][..]),
        (&[0.3][..], &[0.9, 0.2, 1.5][..]),
        (&[][..], &[0.9][..]),
        (&[0.4, 0.6][..], &[][..]),
    ] {
        let n = a.len().min(b.len());
        let (value, [ga, gb]) = mirrored_dot::grad(a, b);
        let plain: f64 = a.iter().zip(b.iter().rev()).map(|(p, q)| p * q).sum();
        assert_eq!(value.to_bits(), plain.to_bits());
        assert_eq!(mirrored_dot(a, b).to_bits(), plain.to_bits());
        for k in 0..a.len() {
            let expected = if k < n { b[b.len() - 1 - k] } else { 0.0 };
            assert_eq!(ga[k], expected, "{ga:?}");
        }
        for j in 0..b.len() {
            // b[j] pairs with a[b.len() - 1 - j] when that pair is among the first n
            let k = b.len() - 1 - j;
            let expected = if k < n { a[k] } else { 0.0 };
            assert_eq!(gb[j], expected, "{gb:?}");
        }
        let (value, [ga, gb]) = reversed_left_dot::grad(a, b);
        let mut plain = 0.0;
        for (p, q) in a.iter().rev().zip(b) {
            plain += p * q * q;
        }
        assert_eq!(value.to_bits(), plain.to_bits());
        assert_eq!(reversed_left_dot(a, b).to_bits(), plain.to_bits());
        for j in 0..a.len() {
            let k = a.len() - 1 - j;
            let expected = if k < n { b[k] * b[k] } else { 0.0 };
            assert_eq!(ga[j], expected, "{ga:?}");
        }
        for k in 0..b.len() {
            let expected = if k < n {
                2.0 * a[a.len() - 1 - k] * b[k]
            } else {
                0.0
            };
            assert_eq!(gb[k], expected, "{gb:?}");
        }
    }
}

// ----- rev, skip, take, step_by after a map -----

twice! {
    /// Rewards squared, discounted from the last step back (`map` then `rev` then
    /// `enumerate`): a return computed backwards.
    fn discounted_from_the_end / discounted_from_the_end_on_duals<T>(x: &[T]) -> T {
        let gamma = T::from(0.9).unwrap();
        let mut total = T::zero();
        for (i, r) in x.iter().map(|v| *v * *v).rev().enumerate() {
            total = total + gamma.powi(i as i32) * r;
        }
        total
    }
}

twice! {
    /// Each exponential against the element before it: `map`, `skip(1)`, then `zip`
    /// (a ratio of successive terms).
    fn successive_terms / successive_terms_on_duals<T>(x: &[T]) -> T {
        x.iter().map(|v| v.exp()).skip(1).zip(x.iter()).map(|(a, b)| a * *b).sum()
    }
}

twice! {
    /// The even-indexed terms of a mapped series (`step_by(2)` after the map: a
    /// Simpson-like weight on every other sample).
    fn every_other_term / every_other_term_on_duals<T>(x: &[T]) -> T {
        let four = T::from(4.0).unwrap();
        x.iter().map(|v| v.sin() * four).step_by(2).sum()
    }
}

twice! {
    /// The first few scaled samples in a `for` loop (`take` after the map), then the
    /// last ones backwards (`rev` then `take`).
    fn first_and_last / first_and_last_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for s in x.iter().map(|v| *v * T::from(3.0).unwrap()).take(2) {
            total = total + s * s;
        }
        for s in x.iter().map(|v| v.tanh()).rev().take(2) {
            total = total + s;
        }
        total
    }
}

twice! {
    /// A map reversed then zipped with the array read forwards (the form the
    /// `iterator-adaptor-left-as-written` case rejected), summed.
    fn reversed_map_zipped / reversed_map_zipped_on_duals<T>(x: &[T]) -> T {
        let t = x[0] + T::one();
        x.iter().map(|v| *v * t).rev().zip(x.iter()).map(|(a, b)| a * *b).sum()
    }
}

twice! {
    /// A map with side effects (a call count and the last item it saw) before `rev` and
    /// `take`: it runs once per item the iterator yields, in its order (from the end),
    /// which the plain copy on dual numbers, std's iterators, fixes.
    fn map_effects_in_order / map_effects_in_order_on_duals<T>(x: &[T]) -> T {
        let mut calls = 0usize;
        let mut last = T::zero();
        let mut total = T::zero();
        let mut i = 0usize;
        for s in x
            .iter()
            .map(|v| {
                calls = calls + 1;
                last = *v;
                *v * *v
            })
            .rev()
            .take(3)
        {
            i = i + 1;
            total = total + s * T::from(i).unwrap();
        }
        total + last * T::from(1000.0).unwrap() + T::from(calls * 100).unwrap()
    }
}

#[test]
fn adapters_after_a_map() {
    one_slice_twice!(discounted_from_the_end, discounted_from_the_end_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(successive_terms, successive_terms_on_duals at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(every_other_term, every_other_term_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.2], [0.9, 0.1]);
    one_slice_twice!(first_and_last, first_and_last_on_duals at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(reversed_map_zipped, reversed_map_zipped_on_duals at [0.3, -1.0, 2.0]);
    one_slice_twice!(map_effects_in_order, map_effects_in_order_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.7], [0.9, 0.4]);
}

/// `for s in x.iter().take(n).map(f)`: the part of the array and the map. The rewrite
/// over the part used to leave its name unbound when the loop over the map was not
/// taken (rustc's `cannot find value part1`).
#[differentiable]
fn loop_over_a_mapped_part(x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for s in x.iter().skip(1).take(n).map(|v| v * v) {
        total += s;
    }
    total
}

#[test]
fn regression_loop_over_a_mapped_part() {
    let x = [0.5, -1.5, 2.0, 3.0];
    assert_eq!(loop_over_a_mapped_part(&x, 2), 1.5 * 1.5 + 4.0);
    let (value, [g]) = loop_over_a_mapped_part::grad(&x, 2);
    assert_eq!(value, 1.5 * 1.5 + 4.0);
    assert_eq!(g, vec![0.0, -3.0, 4.0, 0.0]);
    assert_eq!(
        loop_over_a_mapped_part::grad(&[], 2).1[0],
        Vec::<f64>::new()
    );
}

// ----- floats collected over an array of rows -----

/// The first coordinates of 2-D points collected, then their spread (a bounding box's
/// width by its variance).
#[differentiable]
fn spread_of_first_coordinates(x0: &[[f64; 2]]) -> f64 {
    let xs: Vec<f64> = x0.iter().map(|r| r[0]).collect();
    let mut mean = 0.0;
    for k in 0..xs.len() {
        mean += xs[k];
    }
    mean /= xs.len() as f64;
    let mut s = 0.0;
    for k in 0..xs.len() {
        s += (xs[k] - mean) * (xs[k] - mean);
    }
    s
}

/// The sum of each point's coordinate product (a covariance's inner sum).
#[differentiable]
fn coordinate_products(x0: &[[f64; 2]]) -> f64 {
    x0.iter().map(|p| p[0] * p[1]).sum()
}

/// Norms of 3-D points collected untyped, then weighted (a `Vec` of rows).
#[differentiable]
fn weighted_norms(points: Vec<[f64; 3]>) -> f64 {
    let norms = points
        .iter()
        .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
        .collect::<Vec<f64>>();
    let mut total = 0.0;
    for (k, n) in norms.iter().enumerate() {
        total += n * (k + 1) as f64;
    }
    total
}

fn rows<const N: usize>(x: &[f64]) -> Vec<[f64; N]> {
    x.chunks(N).map(|c| std::array::from_fn(|j| c[j])).collect()
}

/// `f`'s gradient (flattened) against central differences of the value at `x`, and its
/// value against the plain computation's.
fn check_rows(
    name: &str,
    value: f64,
    plain: f64,
    gradient: &[f64],
    f: &dyn Fn(&[f64]) -> f64,
    x: &[f64],
) {
    assert_eq!(value.to_bits(), plain.to_bits(), "{name}: value");
    let differences = central_differences(f, x);
    for k in 0..x.len() {
        assert!(
            close(gradient[k], differences[k], 1e-6),
            "{name}: ∂/∂x{k} {} vs central differences {}",
            gradient[k],
            differences[k]
        );
    }
}

#[test]
fn floats_collected_over_rows() {
    let x = [0.3, -1.0, 2.0, 0.5, -0.7, 1.4];
    let points = rows::<2>(&x);
    let (value, [g]) = spread_of_first_coordinates::grad(&points);
    let firsts = [0.3, 2.0, -0.7];
    let mean = firsts.iter().sum::<f64>() / 3.0;
    let plain: f64 = firsts.iter().map(|v| (v - mean) * (v - mean)).sum();
    assert!(close(value, plain, 1e-14));
    check_rows(
        "spread_of_first_coordinates",
        value,
        spread_of_first_coordinates(&points),
        g.as_flattened(),
        &|x| spread_of_first_coordinates(&rows::<2>(x)),
        &x,
    );
    let (value, [g]) = coordinate_products::grad(&points);
    assert_eq!(g, vec![[-1.0, 0.3], [0.5, 2.0], [1.4, -0.7]]);
    check_rows(
        "coordinate_products",
        value,
        points.iter().map(|p| p[0] * p[1]).sum(),
        g.as_flattened(),
        &|x| coordinate_products(&rows::<2>(x)),
        &x,
    );
    let (value, [g]) = weighted_norms::grad(rows::<3>(&x));
    let plain: f64 = rows::<3>(&x)
        .iter()
        .enumerate()
        .map(|(k, p)| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() * (k + 1) as f64)
        .sum();
    check_rows(
        "weighted_norms",
        value,
        plain,
        g.as_flattened(),
        &|x| weighted_norms(rows::<3>(x)),
        &x,
    );
    // no rows: an empty sum, and an empty buffer
    assert_eq!(coordinate_products::grad(&[]).1[0], Vec::<[f64; 2]>::new());
    assert_eq!(weighted_norms(Vec::new()), 0.0);
}

twice! {
    /// The same forms over a local `Vec` of rows filled from a slice (orders 1 and 2
    /// against dual numbers): a centroid's squared distance to the origin.
    fn centroid_distance / centroid_distance_on_duals<T>(x: &[T]) -> T {
        let n = x.len() / 2;
        let mut points = vec![[T::zero(); 2]; n];
        for k in 0..n {
            points[k][0] = x[2 * k];
            points[k][1] = x[2 * k + 1] * x[2 * k + 1];
        }
        let xs: Vec<T> = points.iter().map(|r| r[0]).collect();
        let products: T = points.iter().map(|p| p[0] * p[1]).sum();
        let mut cx = T::zero();
        for k in 0..xs.len() {
            cx = cx + xs[k];
        }
        cx = cx / T::from(n).unwrap();
        cx * cx + products
    }
}

#[test]
fn floats_collected_over_local_rows() {
    one_slice_twice!(centroid_distance, centroid_distance_on_duals
        at [0.3, -1.0, 2.0, 0.5, -0.7, 1.4], [0.9, 0.4]);
}

// ----- a copy read at once; an array from `from_fn` returned -----

twice! {
    /// An element of a copy (`x.to_vec()[i]`) and a chain over a copy
    /// (`x.to_vec().iter()`, `.into_iter()`): a normalised peak.
    fn copies_read_at_once / copies_read_at_once_on_duals<T>(x: &[T]) -> T {
        let first = x.to_vec()[0];
        let squares: T = x.to_vec().iter().map(|v| *v * *v).sum();
        let shifted: T = x.to_vec().into_iter().map(|v| (v - first).exp()).sum();
        first * squares / shifted + T::from(x.to_vec().len()).unwrap()
    }
}

#[test]
fn copy_read_at_once() {
    one_slice_twice!(copies_read_at_once, copies_read_at_once_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9]);
}

/// Rotated points by `core::array::from_fn`, the array's type only in the signature.
#[differentiable]
fn rotated(x: &[f64]) -> [f64; 3] {
    let (c, s) = (x[3].cos(), x[3].sin());
    let p = core::array::from_fn(|i| {
        if i == 2 {
            x[2]
        } else if i == 0 {
            c * x[0] - s * x[1]
        } else {
            s * x[0] + c * x[1]
        }
    });
    p
}

#[test]
fn from_fn_typed_by_the_signature() {
    let x = [0.3, -1.0, 2.0, 0.5];
    let (c, s) = (0.5f64.cos(), 0.5f64.sin());
    assert_eq!(rotated(&x), [c * 0.3 + s, s * 0.3 - c, 2.0]);
    for (k, seed) in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        .iter()
        .enumerate()
    {
        let (_, pullback) = rotated::vjp(&x);
        let g = pullback(*seed).0.expect("x is differentiable");
        let differences = central_differences(&|x| rotated(x)[k], &x);
        for j in 0..4 {
            assert!(
                close(g[j], differences[j], 1e-6),
                "{k}: {g:?} {differences:?}"
            );
        }
    }
}

// ----- reduce over references -----

twice! {
    /// The largest element squared over its sum, by a `reduce` over references read by
    /// `*` (the closure returns one of the two references it is given).
    fn largest_by_reference / largest_by_reference_on_duals<T>(x: &[T]) -> T {
        let m = *x.iter().reduce(|a, b| if a > b { a } else { b }).unwrap();
        let total: T = x.iter().copied().sum();
        m * m / total
    }
}

twice! {
    /// The element of largest magnitude, compared through `*` and a float method, read by
    /// `copied()` with a default (a robust scale).
    fn largest_magnitude / largest_magnitude_on_duals<T>(x: &[T]) -> T {
        let m = x
            .iter()
            .reduce(|a: &T, b: &T| if (*a).abs() >= b.abs() { a } else { b })
            .copied()
            .unwrap_or(T::one());
        m.abs().sqrt() + x[0] * m
    }
}

twice! {
    /// The smallest element, matched (`Some(&v)`, `None`).
    fn smallest_matched / smallest_matched_on_duals<T>(x: &[T]) -> T {
        match x.iter().reduce(|a, b| if b < a { b } else { a }) {
            Some(&v) => v.exp() + x[x.len() - 1],
            None => T::zero(),
        }
    }
}

/// The largest element's square by `map` on the option of a reference, with a default.
#[differentiable]
fn largest_squared_or_zero(x: &[f64]) -> f64 {
    x.iter()
        .reduce(|a, b| if a > b { a } else { b })
        .map(|m| m * m)
        .unwrap_or(0.0)
}

#[test]
fn reduce_over_references() {
    one_slice_twice!(largest_by_reference, largest_by_reference_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(largest_magnitude, largest_magnitude_on_duals
        at [0.3, -1.5, 2.0, 0.5], [0.9, 0.4]);
    one_slice_twice!(smallest_matched, smallest_matched_on_duals at [0.3, -1.0, 2.0, 0.5]);
}

/// Ties: `reduce` keeps what its closure returns, here the first of equal elements
/// (`a >= b`), or the later one (`a > b`): the gradient goes to that element alone.
#[differentiable]
fn first_of_ties(x: &[f64]) -> f64 {
    let m = *x.iter().reduce(|a, b| if a >= b { a } else { b }).unwrap();
    m * 3.0
}

#[differentiable]
fn last_of_ties(x: &[f64]) -> f64 {
    x.iter()
        .reduce(|a, b| if a > b { a } else { b })
        .copied()
        .unwrap_or(0.5)
        * 3.0
}

#[test]
fn reduce_over_references_at_ties_and_empty() {
    let x = [1.0, 2.0, -1.0, 2.0];
    assert_eq!(
        first_of_ties::grad(&x[..]),
        (6.0, [vec![0.0, 3.0, 0.0, 0.0]])
    );
    assert_eq!(
        last_of_ties::grad(&x[..]),
        (6.0, [vec![0.0, 0.0, 0.0, 3.0]])
    );
    assert_eq!(last_of_ties::grad(&[]), (1.5, [Vec::new()]));
    assert!(std::panic::catch_unwind(|| first_of_ties::grad(&[])).is_err());
    assert_eq!(first_of_ties(&[-4.0]), -12.0);
    assert_eq!(last_of_ties(&x), 6.0);
    assert_eq!(
        largest_squared_or_zero::grad(&x[..]),
        (4.0, [vec![0.0, 0.0, 0.0, 4.0]])
    );
    assert_eq!(largest_squared_or_zero(&[-3.0]), 9.0);
    assert_eq!(largest_squared_or_zero::grad(&[]), (0.0, [Vec::new()]));
}

// ----- a slice walked by assigning it again -----

twice! {
    /// Products of neighbours, walking the slice by `while let [first, rest @ ..]` and
    /// `s = rest;` (a recursive definition written as a loop).
    fn walked_neighbours / walked_neighbours_on_duals<T>(x: &[T]) -> T {
        let mut s = &x[..];
        let mut acc = T::zero();
        while let [first, rest @ ..] = s {
            if let Some(next) = rest.first() {
                acc = acc + *first * *next;
            } else {
                acc = acc + first.sin();
            }
            s = rest;
        }
        acc
    }
}

twice! {
    /// A Horner-like walk from a part of the array, by length and by `s = &s[1..];`,
    /// reading two elements of the current slice and its length.
    fn walked_by_length / walked_by_length_on_duals<T>(x: &[T]) -> T {
        let mut s = &x[1..];
        let mut total = T::zero();
        while s.len() > 1 {
            total = total * T::from(0.5).unwrap() + s[0] * s[1] + T::from(s.len()).unwrap();
            s = &s[1..];
        }
        total + x[0]
    }
}

twice! {
    /// Both ends walked inwards (`[first, middle @ .., last]`), a palindrome's
    /// mismatch, and the element left in the middle by value (`[&m]`).
    fn walked_from_both_ends / walked_from_both_ends_on_duals<T>(x: &[T]) -> T {
        let mut s = x;
        let mut mismatch = T::zero();
        while let [first, middle @ .., last] = s {
            mismatch = mismatch + (*first - *last) * (*first - *last);
            s = middle;
        }
        if let [m] = s {
            mismatch = mismatch + *m * *m;
        }
        mismatch
    }
}

twice! {
    /// A slice replaced by a part of its array under a condition (`y = &x[1..];`, which
    /// the `slice-copied-whole` case rejected), then read.
    fn conditionally_advanced / conditionally_advanced_on_duals<T>(x: &[T]) -> T {
        let mut y = x;
        if y[0] > T::zero() {
            y = &x[1..];
        }
        y[0] * T::from(2.0).unwrap() + T::from(y.len()).unwrap()
    }
}

twice! {
    /// The walked slice's ends read by `if let` (`last()` by value, `get(1)` by
    /// reference), then walked by `s = &s[1..];`: a running contrast.
    fn walked_ends / walked_ends_on_duals<T>(x: &[T]) -> T {
        let mut s = x;
        let mut total = T::zero();
        while !s.is_empty() {
            if let Some(&last) = s.last() {
                total = total + last * s[0];
            }
            if let Some(second) = s.get(1) {
                total = total - second.cos();
            } else {
                total = total + T::one();
            }
            s = &s[1..];
        }
        total
    }
}

#[test]
fn walked_slices() {
    one_slice_twice!(walked_ends, walked_ends_on_duals at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(conditionally_advanced, conditionally_advanced_on_duals
        at [0.3, -1.0, 2.0], [-0.9, 0.4]);
    one_slice_twice!(walked_neighbours, walked_neighbours_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(walked_by_length, walked_by_length_on_duals
        at [0.3, -1.0, 2.0, 0.5, 1.5], [0.9, 0.4]);
    one_slice_twice!(walked_from_both_ends, walked_from_both_ends_on_duals
        at [0.3, -1.0, 2.0, 0.5, 1.5], [0.9, 0.4, -0.2, 0.7]);
}

/// An index past the walked slice's end panics, as the slice's own check does, even where
/// the array goes on.
#[differentiable]
fn walked_past_the_end(x: &[f64]) -> f64 {
    let mut s = &x[..2];
    let mut total = 0.0;
    while !s.is_empty() {
        total += s[0] * s[1];
        s = &s[1..];
    }
    total
}

#[test]
fn walked_slice_checks_its_own_length() {
    assert!(std::panic::catch_unwind(|| walked_past_the_end(&[1.0, 2.0, 3.0])).is_err());
    assert!(std::panic::catch_unwind(|| walked_past_the_end::grad(&[1.0, 2.0, 3.0])).is_err());
    assert!(std::panic::catch_unwind(|| walked_past_the_end(&[1.0])).is_err());
    assert!(std::panic::catch_unwind(|| walked_past_the_end::grad(&[1.0])).is_err());
}
