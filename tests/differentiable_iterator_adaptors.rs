//! Iterator adaptors people write that `#[differentiable]` rejected until the
//! `iter-adaptors` branch (issue 13), each now rewritten into the indexed loop it stands for
//! (`macros/src/iterators.rs`) and checked against dual numbers and central differences
//! at orders 1 and 2 (`twice!`: the body annotated, and plain over `num_traits::Float` on
//! `gradtape::generated::Dual`):
//!
//! - `filter` in a chain (before the map, in a `for` loop, a reduction, a `collect`) as the
//!   `continue` it stands for, and `count` (an integer, a constant);
//! - `skip`/`take`/`step_by` after `enumerate`, `zip` or `rev` (positions counted before
//!   them);
//! - `fold` with a tuple accumulator, destructured by `let` or read by `.0`/`.1`;
//! - an element's option with a default (`x.get(i).copied().unwrap_or(d)`, `map_or`, ..);
//! - `collect` as a block's tail (through blocks and an `if`'s branches).
//!
//! The tricky cases are checked by hand: a predicate with an effect (evaluated once per
//! element, in order), names a predicate shadows, empty arrays, skips past the end.

// the forms are written as users write them
#![allow(clippy::needless_late_init, clippy::let_and_return)]

#[macro_use]
mod common;

use gradtape::differentiable;

// ----- `filter` -----

twice! {
    /// The Kullback–Leibler divergence of `p` from `q` (the two halves of `pq`), the
    /// terms of zero probability skipped by a filter on the pair.
    fn kl_divergence / kl_divergence_on_duals<T>(pq: &[T]) -> T {
        let n = pq.len() / 2;
        let p = &pq[..n];
        let q = &pq[n..];
        p.iter()
            .zip(q.iter())
            .filter(|(a, _)| **a > T::zero())
            .map(|(a, b)| *a * (*a / *b).ln())
            .sum()
    }
}

twice! {
    /// The mean of the values above the overall mean: a filtered sum over a filtered
    /// count (`|&&v|`, a copy of the value).
    fn mean_above_mean / mean_above_mean_on_duals<T>(x: &[T]) -> T {
        let m = x.iter().copied().sum::<T>() / T::from(x.len()).unwrap();
        let n = x.iter().filter(|&&v| v > m).count();
        let s: T = x.iter().filter(|&&v| v > m).copied().sum();
        s / T::from(n).unwrap()
    }
}

twice! {
    /// A hinge loss: the margin violations, in a `for` loop over a filter (a method on
    /// the reference, auto-deref), weighted by how many there are.
    fn hinge_loss / hinge_loss_on_duals<T>(x: &[T]) -> T {
        let margin = T::one();
        let mut loss = T::zero();
        for v in x.iter().filter(|v| v.abs() < margin) {
            loss = loss + (margin - v.abs()).powi(2);
        }
        let violations = x.iter().filter(|v| v.abs() < margin).count();
        loss * T::from(violations + 1).unwrap()
    }
}

twice! {
    /// The log-sum of the positive values, collected first into a local `Vec`.
    fn log_of_positives / log_of_positives_on_duals<T>(x: &[T]) -> T {
        let logs: Vec<T> = x.iter().filter(|v| **v > T::zero()).map(|v| v.ln_1p()).collect();
        let mut s = T::zero();
        for k in 0..logs.len() {
            s = s + logs[k] * T::from(k + 1).unwrap();
        }
        s
    }
}

twice! {
    /// The even positions' values (a filter on the position, `i % 2` on a `&usize`),
    /// then two filters in a row and a `fold` after them.
    fn even_positions / even_positions_on_duals<T>(x: &[T]) -> T {
        let even: T = x
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, v)| v.sin())
            .sum();
        let bounded = x
            .iter()
            .filter(|v| **v > -T::one())
            .filter(|&&v| v < T::one())
            .fold(T::one(), |acc, v| acc * (T::one() + *v));
        even + bounded
    }
}

twice! {
    /// A filter whose closure counts the elements it sees (`FnMut`, a side effect) and
    /// whose parameter shadows a value the map reads: evaluated once per element, in
    /// order, and seeing its own binding only.
    fn counted_predicate / counted_predicate_on_duals<T>(x: &[T]) -> T {
        let v = x[0] * T::from(0.5).unwrap();
        let mut seen = 0;
        let s: T = x
            .iter()
            .filter(|v| {
                seen += 1;
                **v > T::zero()
            })
            .map(|w| *w * v)
            .sum();
        s * T::from(seen).unwrap()
    }
}

#[test]
fn filters() {
    one_slice_twice!(kl_divergence, kl_divergence_on_duals
        at [0.2, 0.5, 0.3, 0.25, 0.35, 0.4], [0.9, 0.1, 0.3, 0.7]);
    one_slice_twice!(mean_above_mean, mean_above_mean_on_duals
        at [0.7, -1.3, 0.4, 1.1], [0.2, 0.9, 0.3, 0.1, 0.8]);
    one_slice_twice!(hinge_loss, hinge_loss_on_duals at [0.7, -1.3, 0.4, 1.1, -0.2]);
    one_slice_twice!(log_of_positives, log_of_positives_on_duals at [0.7, -1.3, 0.4, 1.1]);
    one_slice_twice!(even_positions, even_positions_on_duals at [0.7, -1.3, 0.4, 1.1, -0.6]);
    one_slice_twice!(counted_predicate, counted_predicate_on_duals
        at [0.7, -1.3, 0.4, 1.1], [-0.7, 0.3]);
}

/// A term of zero probability is skipped: its gradient is exactly zero (the filter's
/// `continue`), the value the plain function's, and an empty array sums to zero.
#[test]
fn filtered_terms_and_empty_arrays() {
    let pq: [f64; 6] = [0.4, 0.0, 0.6, 0.3, 0.3, 0.4];
    let (value, [g]) = kl_divergence::grad(&pq);
    assert_eq!(value.to_bits(), kl_divergence_on_plain(&pq).to_bits());
    assert_eq!(g[1], 0.0);
    assert_eq!(g[4], 0.0);
    assert!((g[0] - ((0.4f64 / 0.3).ln() + 1.0)).abs() < 1e-12);
    let (value, [g]) = log_of_positives::grad(&[]);
    assert_eq!((value, g.len()), (0.0, 0));
    let (value, [g]) = hinge_loss::grad(&[2.0, -3.0]);
    assert_eq!((value, g), (0.0, vec![0.0, 0.0]));
}

fn kl_divergence_on_plain(pq: &[f64]) -> f64 {
    kl_divergence_on_duals(pq)
}

// ----- `skip`/`take`/`step_by` after `enumerate`, `zip` or `rev` -----

twice! {
    /// The total variation weighted by position: each value after the first against the
    /// one before it, positions counted before the `skip`.
    fn weighted_variation / weighted_variation_on_duals<T>(x: &[T]) -> T {
        let mut s = T::zero();
        for (i, v) in x.iter().enumerate().skip(1) {
            s = s + (*v - x[i - 1]).powi(2) * T::from(i).unwrap();
        }
        s
    }
}

twice! {
    /// Simpson's rule on samples at unit spacing: the odd positions weighted 4, the
    /// interior even ones 2 (`skip` then `step_by` after `enumerate`, in reductions).
    fn simpson / simpson_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let odd: T = x
            .iter()
            .enumerate()
            .skip(1)
            .step_by(2)
            .map(|(_, v)| v.exp())
            .sum();
        let even: T = x
            .iter()
            .enumerate()
            .skip(2)
            .step_by(2)
            .take((n - 1) / 2 - 1)
            .map(|(i, v)| v.exp() * T::from(2 - i % 2).unwrap())
            .sum();
        (x[0].exp() + x[n - 1].exp() + T::from(4).unwrap() * odd + even)
            / T::from(3).unwrap()
    }
}

twice! {
    /// A polynomial in reverse with its positions (`rev` then `skip`: the last
    /// coefficient skipped), and a zip with a part of the array taking its first two
    /// pairs.
    fn reversed_and_zipped / reversed_and_zipped_on_duals<T>(x: &[T]) -> T {
        let t = T::from(0.7).unwrap();
        let mut acc = T::zero();
        for (i, c) in x.iter().enumerate().rev().skip(1) {
            acc = acc * t + *c * T::from(i + 1).unwrap();
        }
        let pairs: T = x
            .iter()
            .zip(x.iter().skip(1))
            .take(2)
            .map(|(a, b)| *a * b.cos())
            .sum();
        acc + pairs
    }
}

#[test]
fn counted_adaptors() {
    one_slice_twice!(weighted_variation, weighted_variation_on_duals
        at [0.7, -1.3, 0.4, 1.1], [0.5]);
    one_slice_twice!(simpson, simpson_on_duals
        at [0.7, -1.3, 0.4, 1.1, 0.2], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    one_slice_twice!(reversed_and_zipped, reversed_and_zipped_on_duals
        at [0.7, -1.3, 0.4, 1.1], [0.3, 0.6]);
}

/// A skip past the end leaves nothing (no element read, no panic), as the iterator does;
/// `step_by(0)` panics, as the iterator does.
#[differentiable]
fn skipping(x: &[f64], n: usize, step: usize) -> f64 {
    x.iter()
        .enumerate()
        .skip(n)
        .step_by(step)
        .map(|(i, v)| v * i as f64)
        .sum()
}

#[test]
fn skips_past_the_end_and_a_zero_step() {
    let x = [0.5, -1.0, 2.0];
    assert_eq!(skipping::grad(&x, 5, 1), (0.0, [vec![0.0; 3]]));
    assert_eq!(skipping::grad(&x, 1, 5), (-1.0, [vec![0.0, 1.0, 0.0]]));
    assert_eq!(skipping::grad(&x, 0, 2), (4.0, [vec![0.0, 0.0, 2.0]]));
    assert!(std::panic::catch_unwind(|| skipping(&x, 0, 0)).is_err());
}

// ----- `fold` with a tuple accumulator -----

twice! {
    /// The variance from one pass of sums, `let (s, q) = ..fold((0, 0), ..)`.
    fn variance_by_sums / variance_by_sums_on_duals<T>(x: &[T]) -> T {
        let n = T::from(x.len()).unwrap();
        let (s, q) = x
            .iter()
            .fold((T::zero(), T::zero()), |(s, q), &v| (s + v, q + v * v));
        q / n - (s / n) * (s / n)
    }
}

twice! {
    /// Welford's online variance: a three-part accumulator, each step a block ending in
    /// the tuple, the count unused by name (`_`) in the result.
    fn welford / welford_on_duals<T>(x: &[T]) -> T {
        let (_, mean, m2): (T, T, T) = x.iter().fold(
            (T::zero(), T::zero(), T::zero()),
            |(n, mean, m2), v| {
                let n1 = n + T::one();
                let d = *v - mean;
                let mean1 = mean + d / n1;
                (n1, mean1, m2 + d * (*v - mean1))
            },
        );
        m2 / T::from(x.len() - 1).unwrap() + mean
    }
}

twice! {
    /// A geometric mean's log and a product read by `.1` and `.0` of folds (one over a
    /// zip), the second step's parts from an `if`.
    fn folded_parts / folded_parts_on_duals<T>(x: &[T]) -> T {
        let product = x.iter().fold((T::zero(), T::one()), |(s, p), &v| (s + v, p * v)).1;
        let extreme = x
            .iter()
            .zip(x.iter().skip(1))
            .fold((x[0], T::zero()), |(hi, gaps), (a, b)| {
                if *b > hi {
                    (*b, gaps + (*b - *a).abs())
                } else {
                    (hi, gaps + (*b - *a).abs())
                }
            })
            .0;
        product + extreme
    }
}

#[test]
fn tuple_folds() {
    one_slice_twice!(variance_by_sums, variance_by_sums_on_duals at [0.7, -1.3, 0.4, 1.1]);
    one_slice_twice!(welford, welford_on_duals at [0.7, -1.3, 0.4, 1.1], [0.2, 0.9]);
    one_slice_twice!(folded_parts, folded_parts_on_duals at [0.7, -1.3, 0.4, 1.1]);
}

// ----- an element's option with a default -----

twice! {
    /// Boundary values with defaults: the ends `copied().unwrap_or(..)`, a ghost cell
    /// past the end by `get(i + 1)` (`cloned`, `unwrap_or_else`), a `map_or` on a
    /// reference and one on a copy, and an end by `*x.last().unwrap()`.
    fn boundary_stencil / boundary_stencil_on_duals<T>(x: &[T]) -> T {
        let first = x.first().copied().unwrap_or(T::zero());
        let last = x.last().copied().unwrap_or(first * T::from(2).unwrap());
        let mut s = T::zero();
        for i in 0..x.len() {
            let right = x.get(i + 1).cloned().unwrap_or_else(|| last.sin());
            s = s + x[i] * right;
        }
        let third = x.get(2).map_or(x[0] * x[1], |v| v.exp());
        let fourth = x.get(3).copied().map_or(T::one(), |v| v * v);
        s + first * last + third + fourth + *x.last().unwrap()
    }
}

#[test]
fn element_defaults() {
    one_slice_twice!(boundary_stencil, boundary_stencil_on_duals
        at [0.7, -1.3, 0.4, 1.1], [0.3, 0.6], [0.9, 0.2, -0.5]);
}

/// An empty array takes every default (the eager one evaluated, never an element).
#[differentiable]
fn ends_or(x: &[f64], d: f64) -> f64 {
    x.first().copied().unwrap_or(d) * x.last().copied().unwrap_or(d * 3.0)
        + x.get(1).map_or(d, |v| v.sin())
        + x.get(7).copied().unwrap_or_default()
}

#[test]
fn defaults_of_an_empty_array() {
    assert_eq!(ends_or(&[], 2.0), 14.0);
    assert_eq!(ends_or::grad(&[], 2.0), (14.0, (vec![], 13.0)));
    let (value, (gx, gd)) = ends_or::grad(&[0.5], 2.0);
    assert_eq!((value, gd), (2.25, 1.0));
    assert_eq!(gx, vec![1.0]);
}

// ----- `collect` as a block's tail -----

twice! {
    /// The softmax of `x` built in a block ending in a `collect`, then its expected value
    /// of `x` and its first entry.
    fn softmax_block / softmax_block_on_duals<T>(x: &[T]) -> T {
        let softmax: Vec<T> = {
            let e: Vec<T> = x.iter().map(|v| v.exp()).collect();
            let s: T = e.iter().copied().sum();
            e.iter().map(|v| *v / s).collect()
        };
        let mut expected = T::zero();
        for k in 0..x.len() {
            expected = expected + softmax[k] * x[k];
        }
        expected + softmax[0]
    }
}

twice! {
    /// Normalised by the larger of two scales chosen by an `if` whose branches each end
    /// in a `collect`; then the same name bound again from a block that reads the first
    /// (the block names it: collected into a buffer of its own, then copied).
    fn normalised_twice / normalised_twice_on_duals<T>(x: &[T]) -> T {
        let scaled: Vec<T> = if x[0] > T::zero() {
            x.iter().map(|v| *v / (T::one() + x[0])).collect()
        } else {
            let m = x[0] * x[0] + T::one();
            x.iter().map(|v| *v * m).collect()
        };
        let scaled: Vec<T> = {
            let total: T = scaled.iter().map(|v| v.abs()).sum();
            scaled.iter().map(|v| *v / total).collect()
        };
        let mut s = T::zero();
        for k in 0..scaled.len() {
            s = s + scaled[k] * T::from(k + 1).unwrap();
        }
        s
    }
}

#[test]
fn collected_tails() {
    one_slice_twice!(softmax_block, softmax_block_on_duals at [0.7, -1.3, 0.4, 1.1], [0.2]);
    one_slice_twice!(normalised_twice, normalised_twice_on_duals
        at [0.7, -1.3, 0.4, 1.1], [-0.7, 0.3, 0.5]);
}

// ----- the tricky cases: writes, nested and labelled loops, filters after counting -----

twice! {
    /// A filtered `iter_mut` writing the elements it keeps (a local copy), a filtered
    /// reduction inside a user's loop (its `continue` is the inner loop's), and a
    /// labelled loop over a filter left by `continue 'outer`.
    fn filtered_writes_and_loops / filtered_writes_and_loops_on_duals<T>(x: &[T]) -> T {
        let mut y = x.to_vec();
        for v in y.iter_mut().filter(|v| **v > T::zero()) {
            *v = v.sqrt() + *v;
        }
        let mut total = T::zero();
        for i in 0..x.len() {
            if i == 1 {
                continue;
            }
            let above: T = y.iter().filter(|v| **v > x[i]).map(|v| *v * x[i]).sum();
            total = total + above;
        }
        'outer: for v in x.iter().filter(|v| v.abs() > T::from(0.5).unwrap()) {
            for k in 0..2 {
                if k == 1 && *v < T::zero() {
                    continue 'outer;
                }
                total = total + *v * T::from(k + 1).unwrap();
            }
            total = total * T::from(1.5).unwrap();
        }
        total
    }
}

twice! {
    /// A filter after counted adaptors (the odd positions from 1), a `count` after a map
    /// (the map still runs once per item, here counting), and a zip's pairs taken while
    /// reversed.
    fn filters_after_counting / filters_after_counting_on_duals<T>(x: &[T]) -> T {
        let odd: T = x
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(i, _)| i % 2 == 1)
            .map(|(i, v)| *v * T::from(i).unwrap())
            .sum();
        let mut mapped = 0;
        let n = x
            .iter()
            .map(|v| {
                mapped += 1;
                *v * T::from(2).unwrap()
            })
            .count();
        let pairs: T = x
            .iter()
            .zip(x[1..].iter())
            .rev()
            .take(2)
            .fold(T::zero(), |acc, (a, b)| acc * T::from(0.5).unwrap() + *a * *b);
        odd * T::from(n + mapped).unwrap() + pairs
    }
}

#[test]
fn tricky_cases() {
    one_slice_twice!(filtered_writes_and_loops, filtered_writes_and_loops_on_duals
        at [0.7, -1.3, 0.4, 1.1], [0.6, 0.9, -0.8]);
    one_slice_twice!(filters_after_counting, filters_after_counting_on_duals
        at [0.7, -1.3, 0.4, 1.1, 0.2], [0.6, 0.9]);
}
