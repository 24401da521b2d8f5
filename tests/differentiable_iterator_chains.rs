//! Iterator chains `#[differentiable]` rejected until the `iter-rejects` branch (issue 13),
//! each rewritten into indexed loops lowering differentiates (`iterators.rs`), and checked
//! against dual numbers and central differences at orders 1 and 2 (`twice!`: the body
//! annotated, and plain over `num_traits::Float` on `gradtape::generated::Dual`), with the
//! cases where a rewrite could change meaning (lengths that differ in a `zip`, side effects
//! in closures, shadowing, empty arrays) checked against the plain copy by hand:
//!
//! - a `map` followed by more adapters (`x.iter().map(f).zip(y.iter())`, both sides of a
//!   `zip` mapped, `enumerate` or `filter` after a `map`), in reductions, `for` loops and
//!   `collect` into a local `Vec`: each map a value computed as the iteration starts, in
//!   the chain's order (`Step::Map`);
//! - a `filter` after a `map`, its predicate reading the mapped value, once per element.

// the forms are written as users write them
#![allow(clippy::needless_range_loop, clippy::let_and_return)]

#[macro_use]
mod common;

use gradtape::differentiable;

// ----- a map, then a zip -----

twice! {
    /// Residuals of a scaled series against a shifted copy of itself: the left side mapped,
    /// then zipped, then mapped again and summed (a least-squares objective's inner sum).
    fn scaled_residuals / scaled_residuals_on_duals<T>(x: &[T]) -> T {
        let w = x[0] * T::from(0.5).unwrap();
        x.iter()
            .map(|v| *v * w)
            .zip(x[1..].iter())
            .map(|(a, b)| (a - *b) * (a - *b))
            .sum()
    }
}

twice! {
    /// A weighted dot product with both sides mapped (a log-likelihood's `exp` against a
    /// scaled copy), the right side longer than the left: the pairs stop at the shorter.
    fn both_sides_mapped / both_sides_mapped_on_duals<T>(x: &[T]) -> T {
        let k = T::from(1.5).unwrap();
        x[..x.len() - 1]
            .iter()
            .map(|v| v.exp())
            .zip(x.iter().map(|u| *u * k + T::one()))
            .map(|(a, b)| a * b)
            .sum()
    }
}

twice! {
    /// The same pairs in a `for` loop, the left side now the longer one, each pair's
    /// position taken by `enumerate` after the zip (a discounted reward).
    fn discounted_pairs / discounted_pairs_on_duals<T>(x: &[T]) -> T {
        let gamma = T::from(0.9).unwrap();
        let mut total = T::zero();
        for (i, (a, b)) in x.iter().map(|v| v.sin()).zip(x[2..].iter().map(|u| *u * *u)).enumerate() {
            total = total + gamma.powi(i as i32) * a * b;
        }
        total
    }
}

twice! {
    /// A mapped-then-zipped chain collected into a local `Vec`, then read by index and
    /// iterated again (a finite-difference stencil of a transformed signal).
    fn collected_differences / collected_differences_on_duals<T>(x: &[T]) -> T {
        let d: Vec<T> = x.iter().map(|v| v.tanh()).zip(x[1..].iter()).map(|(a, b)| *b - a).collect();
        let mut total = d[0] * d[d.len() - 1];
        for k in 0..d.len() {
            total = total + d[k] * d[k];
        }
        total
    }
}

twice! {
    /// A map whose value is a pair, zipped with a mapped right side, the pair taken apart
    /// by the next closure's pattern (a complex product's real parts).
    fn paired_map / paired_map_on_duals<T>(x: &[T]) -> T {
        x.iter()
            .map(|v| (v.cos(), v.sin()))
            .zip(x[1..].iter().map(|u| *u * T::from(2.0).unwrap()))
            .map(|((c, s), r)| c * r - s * r * r)
            .sum()
    }
}

twice! {
    /// A fold over a mapped-and-zipped chain (a running product of ratios).
    fn folded_pairs / folded_pairs_on_duals<T>(x: &[T]) -> T {
        x.iter()
            .map(|v| *v * *v + T::one())
            .zip(x.iter().skip(1))
            .fold(T::one(), |acc, (a, b)| acc * (a / (T::one() + b.abs())))
    }
}

// ----- a filter after a map -----

twice! {
    /// The sum of the exponentials above one (`x > 0`): the predicate reads the mapped
    /// value.
    fn exp_above_one / exp_above_one_on_duals<T>(x: &[T]) -> T {
        x.iter().map(|v| v.exp()).filter(|e| *e > T::one()).sum()
    }
}

twice! {
    /// Losses above a margin, a hinge's active terms, with the predicate's pattern `&e`
    /// and a second map after the filter (squared).
    fn active_hinge_terms / active_hinge_terms_on_duals<T>(x: &[T]) -> T {
        let margin = T::from(0.25).unwrap();
        x.iter()
            .map(|v| T::one() - *v * x[0])
            .filter(|&e| e > margin)
            .map(|e| e * e)
            .sum()
    }
}

twice! {
    /// A filter before the map and one after it, in a `for` loop over positions taken
    /// before both (each kept value weighted by where it was).
    fn filters_around_a_map / filters_around_a_map_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for (i, e) in x
            .iter()
            .enumerate()
            .filter(|(_, v)| v.abs() > T::from(0.1).unwrap())
            .map(|(i, v)| (i, *v * T::from(3.0).unwrap()))
            .filter(|(_, e)| e.sin() > T::zero())
        {
            total = total + e * T::from(i + 1).unwrap();
        }
        total
    }
}

twice! {
    /// The mapped values a filter keeps, collected and averaged.
    fn kept_mean / kept_mean_on_duals<T>(x: &[T]) -> T {
        let kept: Vec<T> = x.iter().map(|v| *v * *v - T::one()).filter(|e| *e < T::zero()).collect();
        let mut total = T::zero();
        for k in 0..kept.len() {
            total = total + kept[k];
        }
        total / T::from(kept.len().max(1)).unwrap()
    }
}

#[test]
fn map_then_zip() {
    one_slice_twice!(scaled_residuals, scaled_residuals_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [0.9, 0.2, -0.4]);
    one_slice_twice!(both_sides_mapped, both_sides_mapped_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.2]);
    one_slice_twice!(discounted_pairs, discounted_pairs_on_duals
        at [0.3, -1.0, 2.0, 0.5, 1.1], [0.9, 0.2, 0.7]);
    one_slice_twice!(collected_differences, collected_differences_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.2]);
    one_slice_twice!(paired_map, paired_map_on_duals at [0.3, -1.0, 2.0], [0.9]);
    one_slice_twice!(folded_pairs, folded_pairs_on_duals at [0.3, -1.0, 2.0, 0.5]);
}

#[test]
fn filter_after_map() {
    // some kept, some not, and none kept
    one_slice_twice!(exp_above_one, exp_above_one_on_duals
        at [0.3, -1.0, 2.0, -0.5], [-0.9, -0.2]);
    one_slice_twice!(active_hinge_terms, active_hinge_terms_on_duals
        at [0.5, -1.0, 2.0, 0.1], [1.9, 0.2, 0.3]);
    one_slice_twice!(filters_around_a_map, filters_around_a_map_on_duals
        at [0.3, -1.0, 0.05, 2.0, 0.5], [0.9, 0.2, -0.4]);
    one_slice_twice!(kept_mean, kept_mean_on_duals at [0.3, -1.5, 0.9, 2.0], [1.9, -1.2]);
}

// ----- what a rewrite must not change -----

/// A map counting its calls (a side effect in the closure), zipped with a shorter right
/// side: the iterators run the left map only for the pairs they yield, and the loop as
/// many times.
#[differentiable]
fn counted_map_calls(x: &[f64], y: &[f64]) -> f64 {
    let mut calls = 0usize;
    let mut right_calls = 0usize;
    let s: f64 = x
        .iter()
        .map(|v| {
            calls += 1;
            v * 2.0
        })
        .zip(y.iter().map(|u| {
            right_calls += 1;
            u.sin()
        }))
        .map(|(a, b)| a * b)
        .sum();
    s + calls as f64 * 100.0 + right_calls as f64 * 10_000.0
}

fn counted_map_calls_plain(x: &[f64], y: &[f64]) -> f64 {
    let mut calls = 0usize;
    let mut right_calls = 0usize;
    let s: f64 = x
        .iter()
        .map(|v| {
            calls += 1;
            v * 2.0
        })
        .zip(y.iter().map(|u| {
            right_calls += 1;
            u.sin()
        }))
        .map(|(a, b)| a * b)
        .sum();
    s + calls as f64 * 100.0 + right_calls as f64 * 10_000.0
}

/// A filter after a map counting its tests: once per element, on the mapped value.
#[differentiable]
fn counted_filter_tests(x: &[f64]) -> f64 {
    let mut tests = 0usize;
    let s: f64 = x
        .iter()
        .map(|v| v.exp())
        .filter(|e| {
            tests += 1;
            *e > 1.0
        })
        .sum();
    s + tests as f64 * 1000.0
}

/// A map's parameter named as an outer local the next closure reads (shadowing): the
/// second closure sees the outer `v`, not the map's.
#[differentiable]
fn shadowed_names(x: &[f64]) -> f64 {
    let v = x[0] * 3.0;
    x.iter()
        .map(|v| v * v)
        .zip(x.iter())
        .map(|(a, b)| a * v + b)
        .sum()
}

#[test]
fn rewrites_keep_meaning() {
    for (x, y) in [
        (&[0.3, -1.0, 2.0, 0.5][..], &[0.9, 0.2][..]),
        (&[0.3][..], &[0.9, 0.2, 1.5][..]),
        (&[][..], &[0.9][..]),
        (&[0.4, 0.6][..], &[][..]),
    ] {
        let value = counted_map_calls(x, y);
        assert_eq!(value.to_bits(), counted_map_calls_plain(x, y).to_bits());
        let (by_grad, [gx, gy]) = counted_map_calls::grad(x, y);
        assert_eq!(by_grad.to_bits(), value.to_bits());
        let n = x.len().min(y.len());
        for k in 0..x.len() {
            let expected = if k < n { 2.0 * y[k].sin() } else { 0.0 };
            assert!((gx[k] - expected).abs() < 1e-12, "{gx:?}");
        }
        for k in 0..y.len() {
            let expected = if k < n { 2.0 * x[k] * y[k].cos() } else { 0.0 };
            assert!((gy[k] - expected).abs() < 1e-12, "{gy:?}");
        }
    }
    let x: [f64; 4] = [0.3, -1.0, 2.0, -0.5];
    let kept: f64 = x.iter().filter(|v| **v > 0.0).map(|v| v.exp()).sum();
    assert_eq!(counted_filter_tests(&x), kept + 4000.0);
    let (_, [g]) = counted_filter_tests::grad(&x[..]);
    assert_eq!(g, x.map(|v| if v > 0.0 { v.exp() } else { 0.0 }).to_vec());
    assert_eq!(counted_filter_tests(&[]), 0.0);
    let x = [0.5, -1.5, 2.0];
    let expected: f64 = x.iter().map(|v| v * v * x[0] * 3.0 + v).sum();
    assert_eq!(shadowed_names(&x), expected);
    let (_, [g]) = shadowed_names::grad(&x[..]);
    let squares: f64 = x.iter().map(|v| v * v).sum();
    let mut expected = x.map(|v| 2.0 * v * x[0] * 3.0 + 1.0).to_vec();
    expected[0] += 3.0 * squares;
    for k in 0..3 {
        assert!((g[k] - expected[k]).abs() < 1e-12, "{g:?} {expected:?}");
    }
}
/// Regression: a `.sum()` rewritten as a loop started from `+0.0`, where std's float `Sum`
/// starts from `-0.0`: the gradient's value of an empty sum (or of `-0.0`s) was `0.0`
/// where the function's is `-0.0` (now `generated::sum_start`).
#[differentiable]
fn sum_of_kept(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v * 2.0).sum()
}

#[test]
fn empty_sum_is_negative_zero() {
    for x in [&[][..], &[-1.0, -2.0][..], &[-0.0][..]] {
        let value = sum_of_kept(x);
        assert!(value == 0.0 && value.is_sign_negative(), "{value:?}");
        assert_eq!(sum_of_kept::grad(x).0.to_bits(), value.to_bits());
        assert_eq!(sum_of_kept::primal(x).to_bits(), value.to_bits());
    }
    let x = [-0.0, -0.0];
    let plain: f64 = x.iter().map(|v| v * 2.0).sum();
    assert_eq!(exp_above_one::<f64>(&[-1.0]).to_bits(), (-0.0f64).to_bits());
    assert!(plain.is_sign_negative());
}

// ----- reduce -----

twice! {
    /// The largest value by `T::max` (a path), unwrapped, times the sum by a closure (a
    /// normalised peak).
    fn peak_over_total / peak_over_total_on_duals<T>(x: &[T]) -> T {
        let peak = x.iter().copied().reduce(T::max).unwrap();
        let total = x.iter().copied().reduce(|a, b| a + b).unwrap();
        peak / (T::one() + total * total)
    }
}

twice! {
    /// A reduction of mapped values with a default for an empty array (`unwrap_or`), and
    /// of a part of the array: the smallest squared distance to a centre.
    fn nearest_squared / nearest_squared_on_duals<T>(x: &[T]) -> T {
        let c = x[0];
        let nearest = x[1..]
            .iter()
            .map(|v| (*v - c) * (*v - c))
            .reduce(|a, b| if b < a { b } else { a })
            .unwrap_or(T::from(100.0).unwrap());
        nearest.sqrt() + c
    }
}

twice! {
    /// A reduction read by `match` (`None` on an empty part: the body's own value), a
    /// smooth maximum (log-sum-exp folded pairwise).
    fn soft_peak / soft_peak_on_duals<T>(x: &[T]) -> T {
        let k = x.len() / 2;
        match x[k..].iter().copied().reduce(|a, b| a.max(b) + (-(a - b).abs()).exp().ln_1p()) {
            Some(m) => m * x[0],
            None => x[0],
        }
    }
}

#[test]
fn reductions() {
    one_slice_twice!(peak_over_total, peak_over_total_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9], [-0.4, -0.2]);
    one_slice_twice!(nearest_squared, nearest_squared_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.2], [0.9]);
    one_slice_twice!(soft_peak, soft_peak_on_duals at [0.3, -1.0, 2.0, 0.5], [0.9]);
}

/// `reduce` of an empty array read by `unwrap_or` (its default), by `match` (the `None`
/// arm), and by `unwrap` (the same panic as the iterator's).
#[differentiable]
fn reduce_or_default(x: &[f64], d: f64) -> f64 {
    let s = x.iter().copied().reduce(f64::max).unwrap_or(d * 2.0);
    let t = match x.iter().map(|v| v * d).reduce(|a, b| a * b) {
        Some(p) => p,
        None => -d,
    };
    s + t
}

#[differentiable]
fn reduce_unwrapped(x: &[f64]) -> f64 {
    x.iter().copied().reduce(|a, b| a * b).unwrap()
}

#[test]
fn reduce_on_empty_arrays() {
    assert_eq!(reduce_or_default(&[], 1.5), 3.0 - 1.5);
    let (value, (gx, gd)) = reduce_or_default::grad(&[], 1.5);
    assert_eq!((value, gx.len(), gd), (1.5, 0, 1.0));
    // ties of `f64::max`: its cotangent goes to the value kept (its first operand, as
    // `maximum`'s rule gives a tie to its first operand), the first of the equal ones
    let x = [0.5, 2.0, 2.0, -1.0];
    let (value, (gx, gd)) = reduce_or_default::grad(&x, 0.5);
    let product: f64 = x.iter().map(|v| v * 0.5).product();
    assert_eq!(value, 2.0 + product);
    let plain_max = x.iter().copied().reduce(f64::max).unwrap();
    assert_eq!(plain_max, 2.0);
    for k in 0..4 {
        let others: f64 = (0..4).filter(|&j| j != k).map(|j| x[j] * 0.5).product();
        let max_part = if k == 1 { 1.0 } else { 0.0 };
        assert!((gx[k] - (max_part + 0.5 * others)).abs() < 1e-12, "{gx:?}");
    }
    assert!((gd - 4.0 * product / 0.5).abs() < 1e-12);
    assert!(std::panic::catch_unwind(|| reduce_unwrapped(&[])).is_err());
    assert!(std::panic::catch_unwind(|| reduce_unwrapped::grad(&[])).is_err());
    assert_eq!(reduce_unwrapped(&[3.0]), 3.0);
    assert_eq!(reduce_unwrapped::grad(&[3.0, 2.0]).1[0], vec![2.0, 3.0]);
}

// ----- core::array::from_fn -----

twice! {
    /// Elementwise products of two parts into a fixed-size local by `core::array::from_fn`
    /// (`N` from the annotation), then read by index and iterated (a 3-vector's norm).
    fn from_fn_products / from_fn_products_on_duals<T>(x: &[T]) -> T {
        let p: [T; 3] = core::array::from_fn(|i| x[i] * x[i + 1]);
        let mut total = p[0] * p[2];
        for v in p.iter() {
            total = total + *v * *v;
        }
        total.sqrt()
    }
}

twice! {
    /// `std::array::from_fn` with `N` from a turbofish and a typed index, each element
    /// reading the one before it in the input (a discrete derivative).
    fn from_fn_turbofish / from_fn_turbofish_on_duals<T>(x: &[T]) -> T {
        let d = std::array::from_fn::<T, 2, _>(|i: usize| (x[i + 1] - x[i]) * T::from(i + 1).unwrap());
        d[0].sin() + d[1] * d[0]
    }
}

twice! {
    /// A cross product by `from_fn` of two 3-vectors taken from the input, its closure
    /// reading an outer local (a torque's magnitude).
    fn from_fn_cross / from_fn_cross_on_duals<T>(x: &[T]) -> T {
        let a = [x[0], x[1], x[2]];
        let b = [x[3], x[4], x[5]];
        let c: [T; 3] = core::array::from_fn(|i| a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3]);
        (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
    }
}

#[test]
fn array_from_fn() {
    one_slice_twice!(from_fn_products, from_fn_products_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.2, -0.4, 1.1]);
    one_slice_twice!(from_fn_turbofish, from_fn_turbofish_on_duals at [0.3, -1.0, 2.0]);
    one_slice_twice!(from_fn_cross, from_fn_cross_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.7, -0.2]);
}

/// A closure with a side effect (a count of its calls) and an index past the input's end
/// for a short input: called for each index in order, and the same panic.
#[differentiable]
fn from_fn_calls(x: &[f64]) -> f64 {
    let mut calls = 0usize;
    let p: [f64; 3] = core::array::from_fn(|i| {
        calls += 1;
        x[i] * (calls as f64)
    });
    p[0] + p[1] + p[2]
}

#[test]
fn from_fn_keeps_meaning() {
    let x = [0.5, 2.0, -1.0];
    assert_eq!(from_fn_calls(&x), 0.5 + 4.0 - 3.0);
    assert_eq!(from_fn_calls::grad(&x[..]).1[0], vec![1.0, 2.0, 3.0]);
    assert!(std::panic::catch_unwind(|| from_fn_calls(&[1.0, 2.0])).is_err());
    assert!(std::panic::catch_unwind(|| from_fn_calls::grad(&[1.0, 2.0])).is_err());
}

// ----- extend_from_slice and extend -----

twice! {
    /// A local buffer built from a part of the input, mapped values and a literal of
    /// computed values, then read by index and iterated (a feature vector's energy).
    fn extended_features / extended_features_on_duals<T>(x: &[T]) -> T {
        let k = x.len() / 2;
        let mut v: Vec<T> = Vec::new();
        v.extend_from_slice(&x[..k]);
        v.extend(x.iter().map(|a| *a * *a));
        v.extend_from_slice(&[x[0].exp(), x[1] * x[0]]);
        let mut total = v[0] * v[v.len() - 1];
        for e in v.iter() {
            total = total + e.sin();
        }
        total
    }
}

twice! {
    /// A buffer that starts with computed values and is extended from references (a
    /// reversed part), from copies after a filter and from a range's map.
    fn extended_in_steps / extended_in_steps_on_duals<T>(x: &[T]) -> T {
        let mut v = vec![x[0] * T::from(2.0).unwrap()];
        v.extend(x[1..].iter().rev());
        v.extend(x.iter().copied().filter(|a| *a > T::zero()));
        v.extend((0..2).map(|i| x[i] * T::from(i + 1).unwrap()));
        let mut total = T::zero();
        for i in 0..v.len() {
            total = total + v[i] * T::from(i + 1).unwrap();
        }
        total * v[1]
    }
}

#[test]
fn extending_buffers() {
    one_slice_twice!(extended_features, extended_features_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, 0.2]);
    one_slice_twice!(extended_in_steps, extended_in_steps_on_duals
        at [0.3, -1.0, 2.0, 0.5], [0.9, -0.2]);
}

// ----- the element select_nth_unstable_by puts at k, read -----

twice! {
    /// The median of a copy, read through the middle of the three parts the selection
    /// returns, with the lower part's sum (a robust location and spread).
    fn median_and_below / median_and_below_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        let mid = v.len() / 2;
        let (below, median, _) = v.select_nth_unstable_by(mid, |a, b| a.partial_cmp(b).unwrap());
        let mut low = T::zero();
        for e in below.iter() {
            low = low + *e;
        }
        *median * T::from(2.0).unwrap() + low * median.sin()
    }
}

twice! {
    /// The `k`-th smallest of computed values read directly from the call's value
    /// (`*v.select_nth_unstable_by(k, ..).1`), a quantile of squared residuals, and the
    /// upper part read after.
    fn squared_quantile / squared_quantile_on_duals<T>(x: &[T]) -> T {
        let mut r: Vec<T> = x.iter().map(|v| (*v - x[0]) * (*v - x[0]) + *v).collect();
        let k = (r.len() * 3) / 4;
        let q = *r.select_nth_unstable_by(k, |a, b| a.partial_cmp(b).unwrap()).1;
        let (_, _, above) = r.select_nth_unstable_by(k - 1, |a, b| a.partial_cmp(b).unwrap());
        let mut top = T::zero();
        for e in above.iter() {
            top = top + *e * *e;
        }
        q.sqrt() + top
    }
}

#[test]
fn selected_elements() {
    one_slice_twice!(median_and_below, median_and_below_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [0.9, 0.2, -0.4, 1.3]);
    one_slice_twice!(squared_quantile, squared_quantile_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [0.9, 0.2, -0.4, 1.3]);
}

/// The median by `total_cmp` of a copy (`-0.0` below `0.0`), read by `*m`.
#[differentiable]
fn median_total(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let k = v.len() / 2;
    let (_, m, _) = v.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
    *m * 3.0
}

/// The `k`-th by magnitude (`±2.0` tie), read from the call's value.
#[differentiable]
fn kth_selected_by_magnitude(x: &[f64], k: usize) -> f64 {
    let mut v = x.to_vec();
    *v.select_nth_unstable_by(k, |a, b| a.abs().total_cmp(&b.abs()))
        .1
}

#[test]
fn selected_element_ties() {
    // equal values: the value is the one the body's call leaves at `k`, bit for bit, and
    // its cotangent goes to one input holding those bits
    let x = [0.5, 0.2, 0.5, -0.0, 0.0, 0.5, 0.2];
    let (value, [g]) = median_total::grad(&x[..]);
    let mut plain = x.to_vec();
    let element = *plain.select_nth_unstable_by(3, |a, b| a.total_cmp(b)).1;
    assert_eq!(value.to_bits(), (element * 3.0).to_bits());
    assert_eq!(median_total(&x).to_bits(), (element * 3.0).to_bits());
    assert_eq!(g.iter().sum::<f64>(), 3.0);
    let holder = g.iter().position(|&d| d == 3.0).expect("one input");
    assert_eq!(x[holder].to_bits(), element.to_bits());
    // the signed zeros: `-0.0` is the smallest by `total_cmp`, `0.0` the next
    let zeros = [0.0, 1.0, -0.0];
    assert_eq!(median_total(&zeros).to_bits(), 0.0f64.to_bits());
    assert_eq!(median_total::grad(&zeros[..]).1[0], vec![3.0, 0.0, 0.0]);
    // many ties by magnitude, every `k`: the body's element bit for bit, its cotangent to
    // an input of those bits
    let signs: Vec<f64> = (0..48)
        .map(|i| if (i * 5) % 3 == 0 { -1.0 } else { 1.0 } * (1.0 + (i % 4) as f64))
        .collect();
    for k in 0..signs.len() {
        let mut plain = signs.clone();
        let expected = *plain
            .select_nth_unstable_by(k, |a, b| a.abs().total_cmp(&b.abs()))
            .1;
        assert_eq!(
            kth_selected_by_magnitude(&signs, k).to_bits(),
            expected.to_bits()
        );
        let (value, [g]) = kth_selected_by_magnitude::grad(&signs[..], k);
        assert_eq!(value.to_bits(), expected.to_bits(), "{k}");
        assert_eq!(g.iter().sum::<f64>(), 1.0);
        let holder = g.iter().position(|&d| d == 1.0).expect("one input");
        assert_eq!(signs[holder].to_bits(), expected.to_bits(), "{k}");
    }
}

/// An array result built by `core::array::from_fn` as the function's tail (`N` from the
/// result type).
#[differentiable]
fn pairwise_products(x: &[f64]) -> [f64; 3] {
    core::array::from_fn(|i| x[i] * x[i + 1])
}

/// A caller reading the array result by index.
#[differentiable]
fn products_energy(x: &[f64]) -> f64 {
    let p = pairwise_products(x);
    p[0] * p[2] + p[1].sin()
}

#[test]
fn from_fn_as_an_array_result() {
    let x = [0.3, -1.0, 2.0, 0.5];
    assert_eq!(pairwise_products(&x), [-0.3, -2.0, 1.0]);
    let f = |x: &[f64]| x[0] * x[1] * x[2] * x[3] + (x[1] * x[2]).sin();
    let (value, [g]) = products_energy::grad(&x[..]);
    assert_eq!(value.to_bits(), f(&x).to_bits());
    assert_eq!(products_energy(&x).to_bits(), value.to_bits());
    let h = 1e-6;
    for k in 0..4 {
        let (mut up, mut down) = (x, x);
        up[k] += h;
        down[k] -= h;
        let difference = (f(&up) - f(&down)) / (2.0 * h);
        assert!(
            (g[k] - difference).abs() < 1e-7,
            "{k}: {} vs {difference}",
            g[k]
        );
    }
}
