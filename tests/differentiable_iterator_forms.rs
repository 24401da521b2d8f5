//! Iterator and closure forms `#[differentiable]` rejected until the `iter-forms` branch
//! (issue 13), each rewritten into one lowering differentiates, and checked against dual
//! numbers and central differences at orders 1 and 2 (`twice!`: the body annotated, and
//! plain over `num_traits::Float` on `gradtape::generated::Dual`), with ties checked by
//! hand:
//!
//! - every in-place sort of a float array of the body, `sort_unstable_by`, `sort_by_key`,
//!   `sort_unstable_by_key`, `sort_by_cached_key`, and `select_nth_unstable_by` as a
//!   statement (`iterators.rs`, `sort_by`): the permutation the body's own sort makes,
//!   decided on a copy of the values by the same call (`generated::sort_order`), then
//!   element swaps; the value is the body's bit for bit, ties included;
//! - `max_by`/`min_by` and `max_by_key`/`min_by_key` over a float array (`searches.rs`,
//!   `extremum_loop`): the loop of the iterator's fold, each step decided by
//!   `std::cmp::max_by`/`min_by` itself (`generated::by_comparison_takes`, `BestKey`), so
//!   the element kept (the last maximum, the first minimum, `total_cmp`'s signed zeros and
//!   NaNs) is the iterator's.

// the forms are written as users write them
#![allow(
    clippy::unnecessary_sort_by,
    clippy::needless_range_loop,
    clippy::let_and_return
)]

#[macro_use]
mod common;

use gradtape::differentiable;

// ----- in-place sorts -----

twice! {
    /// The median of a copy sorted by an unstable sort, times the smallest, plus the
    /// largest.
    fn median_unstable / median_unstable_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2] * v[0] + v[v.len() - 1]
    }
}

twice! {
    /// A rank-weighted sum of a copy sorted by a key (the magnitude on a fine integer
    /// grid), descending by the key's negation in an unstable sort by key.
    fn by_magnitude / by_magnitude_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        v.sort_by_key(|a| (a.abs() * T::from(1.0e6).unwrap()).to_i64().unwrap());
        let mut w = x.to_vec();
        w.sort_unstable_by_key(|a| -(a.abs() * T::from(1.0e6).unwrap()).to_i64().unwrap());
        let mut total = T::zero();
        for k in 0..v.len() {
            total = total + v[k] * T::from(k + 1).unwrap() + w[k].sin();
        }
        total
    }
}

twice! {
    /// A cached key, then the copy read at both ends.
    fn cached_key_ends / cached_key_ends_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        v.sort_by_cached_key(|a| (a.exp() * T::from(1.0e6).unwrap()).to_i64().unwrap());
        v[0] * v[v.len() - 1] + v[1]
    }
}

twice! {
    /// The `k`-th smallest of computed values by `select_nth_unstable_by`, called as a
    /// statement, then read by index (also the side of it that holds the smaller ones).
    fn nth_selected / nth_selected_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut v = vec![T::zero(); n];
        for i in 0..n {
            v[i] = x[i] * x[i] - x[0];
        }
        let mid = n / 2;
        v.select_nth_unstable_by(mid, |a, b| a.partial_cmp(b).unwrap());
        let mut below = T::zero();
        for k in 0..mid {
            below = below + v[k];
        }
        v[mid] * T::from(3.0).unwrap() + below
    }
}

twice! {
    /// A comparison bound by `let` and passed by name to the sort (the closure calling it,
    /// then inlined), in a loop that sorts a buffer again each time it changes.
    fn sorted_each_step / sorted_each_step_on_duals<T>(x: &[T]) -> T {
        let by_value = |a: &T, b: &T| a.partial_cmp(b).unwrap();
        let mut v = x.to_vec();
        let mut total = T::zero();
        for step in 0..3 {
            v.sort_unstable_by(by_value);
            total = total + v[step] * v[v.len() - 1];
            v[0] = v[0] * T::from(3.0).unwrap() + x[step];
        }
        total
    }
}

/// A writer sorting its `&mut` output in place by an unstable sort, descending.
#[differentiable]
fn sorted_descending_unstable_into(x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = x[i] * x[i] - x[0];
    }
    out.sort_unstable_by(|a, b| b.total_cmp(a));
}

/// The writer's sorted output, weighted by rank.
#[differentiable]
fn by_unstable_rank(x: &[f64]) -> f64 {
    let mut sorted = vec![0.0; x.len()];
    sorted_descending_unstable_into(x, &mut sorted);
    sorted[0] * 3.0 + sorted[1].sin() + sorted[2]
}

/// The sorted copy's `k`-th value by `total_cmp`, by an unstable sort (ties: below).
#[differentiable]
fn kth_unstable(x: &[f64], k: usize) -> f64 {
    let mut v = x.to_vec();
    v.sort_unstable_by(|a, b| a.total_cmp(b));
    v[k]
}

/// The same by `partial_cmp`, under which `-0.0` and `0.0` are equal.
#[differentiable]
fn kth_unstable_partial(x: &[f64], k: usize) -> f64 {
    let mut v = x.to_vec();
    v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
    v[k]
}

/// By magnitude: a key tying `-2.0` with `2.0`, distinct values.
#[differentiable]
fn kth_by_magnitude(x: &[f64], k: usize) -> f64 {
    let mut v = x.to_vec();
    v.sort_unstable_by(|a, b| a.abs().total_cmp(&b.abs()));
    v[k] * 3.0
}

/// A comparison with a side effect: it counts its calls, which the value reads.
#[differentiable]
fn counted_sort(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut calls = 0usize;
    v.sort_unstable_by(|a, b| {
        calls += 1;
        a.total_cmp(b)
    });
    v[0] + calls as f64
}

#[test]
fn in_place_sorts() {
    one_slice_twice!(median_unstable, median_unstable_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [0.9, 0.2, -0.4]);
    one_slice_twice!(by_magnitude, by_magnitude_on_duals at [0.3, -1.0, 2.0, 0.5, -0.1]);
    one_slice_twice!(cached_key_ends, cached_key_ends_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(nth_selected, nth_selected_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [1.3, -0.2, 0.6, -0.9]);
    one_slice_twice!(sorted_each_step, sorted_each_step_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [1.3, -0.2, 0.6, -0.9]);
    // a writer's unstable sort, through its caller, against differences
    let x = [0.3, -1.2, 2.0, 0.7];
    let (value, [g]) = by_unstable_rank::grad(&x[..]);
    assert_eq!(value.to_bits(), by_unstable_rank(&x).to_bits());
    let differences = common::central_differences(&|p| by_unstable_rank::primal(p), &x);
    for k in 0..x.len() {
        assert!(
            common::close(g[k], differences[k], 1e-6),
            "{k}: {g:?} vs {differences:?}"
        );
    }
    // the JVP agrees with the gradient
    let x: [f64; 5] = [0.3, -1.0, 2.0, 0.5, 0.1];
    let t: [f64; 5] = [0.5, -0.25, 1.0, 0.75, -2.0];
    let (value, [g]) = median_unstable::grad(&x[..]);
    let (by_jvp, dy) = median_unstable::jvp(&x[..], &t[..]);
    assert_eq!(by_jvp.to_bits(), value.to_bits());
    let dot: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    assert!((dy - dot).abs() < 1e-12, "{dy} vs {dot}");
}

#[test]
fn unstable_sort_ties() {
    // identical values: the value is the same whichever goes where; the convention pairs
    // them in their order, as `sort_by` keeps them (position 1 is `x[0]`, 2 is `x[2]`)
    let x = [0.5, 0.2, 0.5];
    assert_eq!(kth_unstable(&x, 1), 0.5);
    assert_eq!(kth_unstable::grad(&x, 1).1[0], vec![1.0, 0.0, 0.0]);
    assert_eq!(kth_unstable::grad(&x, 2).1[0], vec![0.0, 0.0, 1.0]);
    assert_eq!(kth_unstable::grad(&x, 0).1[0], vec![0.0, 1.0, 0.0]);
    // distinct values the comparison ties (`-0.0` and `0.0` by `partial_cmp`, `±2.0` by
    // magnitude, among enough elements that the algorithm's order of ties is its own):
    // the value is the body's bit for bit, and its cotangent goes to the input it is
    // (more than 20 elements: below that the sort is an insertion sort, which keeps ties
    // in their order; the check below that the arrangements differ from `sort_by`'s
    // keeps these points the ones that test it)
    let zeros: Vec<f64> = (0..48)
        .map(|i| match i % 7 {
            0 | 3 => -0.0,
            1 => 0.5 - i as f64 / 64.0,
            _ => 0.0,
        })
        .collect();
    let signs: Vec<f64> = (0..48)
        .map(|i| if (i * 5) % 3 == 0 { -1.0 } else { 1.0 } * (1.0 + (i % 4) as f64))
        .collect();
    for x in [&zeros, &signs] {
        let (mut stable, mut unstable) = (x.clone(), x.clone());
        stable.sort_by(|a, b| a.abs().partial_cmp(&b.abs()).unwrap());
        unstable.sort_unstable_by(|a, b| a.abs().partial_cmp(&b.abs()).unwrap());
        let bits = |v: &[f64]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
        assert_ne!(
            bits(&stable),
            bits(&unstable),
            "the ties' order is the algorithm's"
        );
    }
    for (x, scale) in [(&zeros, 1.0), (&signs, 3.0)] {
        for k in 0..x.len() {
            let (faces, value, g): (f64, f64, Vec<f64>) = if scale == 1.0 {
                let (value, [g]) = kth_unstable_partial::grad(&x[..], k);
                (kth_unstable_partial(&x[..], k), value, g)
            } else {
                let (value, [g]) = kth_by_magnitude::grad(&x[..], k);
                (kth_by_magnitude(&x[..], k), value, g)
            };
            assert_eq!(value.to_bits(), faces.to_bits(), "{k} of {x:?}");
            if scale == 1.0 {
                // among equal zeros only the sign tells them apart: the cotangent goes
                // to one input holding those bits
                let holders: Vec<usize> = (0..x.len())
                    .filter(|&i| x[i].to_bits() == value.to_bits())
                    .collect();
                assert_eq!(g.iter().sum::<f64>(), 1.0);
                assert!(holders.iter().any(|&i| g[i] == 1.0), "{k}: {g:?}");
            } else {
                assert_eq!(g.iter().sum::<f64>(), 3.0);
                let holders: Vec<usize> = (0..x.len())
                    .filter(|&i| x[i].to_bits() == (value / 3.0).to_bits())
                    .collect();
                assert!(holders.iter().any(|&i| g[i] == 3.0), "{k}: {g:?}");
            }
        }
    }
    // the comparison runs as often as the body's sort runs it
    let x = [0.3, -1.0, 2.0, 0.5, 0.1, 0.7, -0.2];
    let (value, [g]) = counted_sort::grad(&x[..]);
    assert_eq!(value.to_bits(), counted_sort(&x).to_bits());
    assert_eq!(g, vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

// ----- `max_by`, `min_by`, by a key -----

twice! {
    /// The largest element by `partial_cmp`, squared.
    fn largest_by / largest_by_on_duals<T>(x: &[T]) -> T {
        let m = x.iter().copied().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        m * m + x[0]
    }
}

twice! {
    /// The smallest over references (`*...unwrap()`), skipping the first.
    fn smallest_after_first / smallest_after_first_on_duals<T>(x: &[T]) -> T {
        let m = *x.iter().skip(1).min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        m.sin() * x[0]
    }
}

twice! {
    /// The peak of computed values (a `map` before `max_by`), read by `match`.
    fn peak_of_squares / peak_of_squares_on_duals<T>(x: &[T]) -> T {
        match x.iter().map(|v| *v * *v - x[0]).max_by(|a, b| a.partial_cmp(b).unwrap()) {
            Some(m) => m * T::from(3.0).unwrap(),
            None => T::zero(),
        }
    }
}

twice! {
    /// The element nearest a computed centre: a comparison capturing a differentiable
    /// value (it decides which element, and carries no derivative of its own).
    fn nearest_to_centre / nearest_to_centre_on_duals<T>(x: &[T]) -> T {
        let c = (x[0] + x[1]) * T::from(0.5).unwrap();
        let near = x
            .iter()
            .copied()
            .min_by(|a, b| (*a - c).abs().partial_cmp(&(*b - c).abs()).unwrap())
            .unwrap();
        near * c
    }
}

twice! {
    /// By a key: the largest magnitude (on a fine integer grid) and the smallest, from the
    /// back (`rev`).
    fn extreme_magnitudes / extreme_magnitudes_on_duals<T>(x: &[T]) -> T {
        let big = x
            .iter()
            .copied()
            .max_by_key(|v| (v.abs() * T::from(1.0e6).unwrap()).to_i64().unwrap())
            .unwrap();
        let small = x
            .iter()
            .rev()
            .min_by_key(|v| (v.abs() * T::from(1.0e6).unwrap()).to_i64().unwrap())
            .copied()
            .unwrap();
        big * T::from(2.0).unwrap() + small.exp()
    }
}

twice! {
    /// The largest of each tail in a loop that skips one (`continue`) and stops early
    /// (`break`): the extremum's own loop is run before its statement, inside the outer
    /// loop's body, and the outer loop's jumps keep their target.
    fn tails_until_large / tails_until_large_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for i in 0..x.len() {
            if i == 1 {
                continue;
            }
            let m = x[i..].iter().copied().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
            total = total + m * x[i];
            if total > T::from(4.0).unwrap() {
                break;
            }
        }
        total
    }
}

/// `max_by` by `total_cmp`.
#[differentiable]
fn max_total(x: &[f64]) -> f64 {
    x.iter().copied().max_by(f64::total_cmp).unwrap() * 2.0
}

/// `min_by` by `total_cmp`.
#[differentiable]
fn min_total(x: &[f64]) -> f64 {
    x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap() * 2.0
}

/// `max_by` by `partial_cmp`, under which `-0.0` and `0.0` are equal.
#[differentiable]
fn max_partial(x: &[f64]) -> f64 {
    x.iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap()
        * 2.0
}

/// `min_by` by `partial_cmp`.
#[differentiable]
fn min_partial(x: &[f64]) -> f64 {
    x.iter()
        .copied()
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap()
        * 2.0
}

/// An empty array's `None`, by `if let`.
#[differentiable]
fn largest_or_zero(x: &[f64]) -> f64 {
    if let Some(m) = x.iter().copied().max_by(|a, b| a.total_cmp(b)) {
        m * m
    } else {
        0.0
    }
}

/// A comparison that counts its calls, which the value reads.
#[differentiable]
fn counted_max(x: &[f64]) -> f64 {
    let mut calls = 0usize;
    let m = x
        .iter()
        .copied()
        .max_by(|a, b| {
            calls += 1;
            a.total_cmp(b)
        })
        .unwrap();
    m + calls as f64
}

#[test]
fn extrema_by_comparison_and_key() {
    one_slice_twice!(largest_by, largest_by_on_duals at [0.3, -1.0, 2.0, 0.5], [-0.3, -1.0]);
    one_slice_twice!(smallest_after_first, smallest_after_first_on_duals
        at [0.3, -1.0, 2.0, 0.5], [1.1, 0.4, 0.9]);
    one_slice_twice!(peak_of_squares, peak_of_squares_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(nearest_to_centre, nearest_to_centre_on_duals
        at [0.3, 1.1, 2.0, 0.5, 0.8]);
    one_slice_twice!(extreme_magnitudes, extreme_magnitudes_on_duals
        at [0.3, -1.0, 2.0, 0.5, -0.1]);
    // the `break` taken at the third element, and not at all
    one_slice_twice!(tails_until_large, tails_until_large_on_duals
        at [0.3, -1.0, 2.0, 0.5, 2.2], [0.3, -1.0, 0.2, 0.5]);
    let (value, [g]) = largest_or_zero::grad(&[][..]);
    assert_eq!((value, g), (0.0, vec![]));
    assert_eq!(largest_or_zero(&[]), 0.0);
    let x = [0.3, -1.0, 2.0, 0.5, 0.1];
    let (value, [g]) = counted_max::grad(&x[..]);
    assert_eq!(value.to_bits(), counted_max(&x).to_bits());
    assert_eq!(g, vec![0.0, 0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn extrema_ties_and_signed_zeros() {
    type Face = (fn(&[f64]) -> f64, fn(&[f64]) -> (f64, [Vec<f64>; 1]));
    let faces: [(&str, Face); 4] = [
        ("max_total", (max_total, max_total::grad)),
        ("min_total", (min_total, min_total::grad)),
        ("max_partial", (max_partial, max_partial::grad)),
        ("min_partial", (min_partial, min_partial::grad)),
    ];
    // (the point, the index each face keeps): `max_by` keeps the last of equal maxima,
    // `min_by` the first of equal minima; `total_cmp` orders -0.0 < 0.0 and puts a
    // positive NaN above everything, `partial_cmp` ties the zeros
    let nan = f64::NAN;
    let cases: [(&[f64], [usize; 4]); 5] = [
        (&[1.0, 3.0, 3.0, 1.0], [2, 0, 2, 0]),
        (&[0.0, -0.0], [0, 1, 1, 0]),
        (&[-0.0, 0.0], [1, 0, 1, 0]),
        (&[-0.0, 0.0, -0.0, 0.0], [3, 0, 3, 0]),
        (&[0.5, nan, -1.0], [1, 2, 0, 2]),
    ];
    for (x, kept) in cases {
        for ((name, (f, grad)), at) in faces.iter().zip(kept) {
            if name.ends_with("partial") && x.iter().any(|v| v.is_nan()) {
                continue; // `partial_cmp(..).unwrap()` panics on a NaN, as the body does
            }
            let (value, [g]) = grad(x);
            assert_eq!(value.to_bits(), f(x).to_bits(), "{name} at {x:?}");
            assert_eq!(value.to_bits(), (x[at] * 2.0).to_bits(), "{name} at {x:?}");
            let expected: Vec<f64> = (0..x.len())
                .map(|i| if i == at { 2.0 } else { 0.0 })
                .collect();
            assert_eq!(g, expected, "{name} at {x:?}");
        }
    }
    // a NaN met by `partial_cmp(..).unwrap()` panics in the generated code as in the body
    let with_nan = [0.5, nan];
    assert!(std::panic::catch_unwind(|| max_partial(&with_nan)).is_err());
    assert!(std::panic::catch_unwind(|| max_partial::grad(&with_nan)).is_err());
}

// ----- parts of views: `rest[..2]`, `p[i..j]` of `let p = &x[..]`, `w[..2]` of a window -----

twice! {
    /// The head plus the next two, by a slice pattern's rest (`rest[..2]`).
    fn head_plus_two / head_plus_two_on_duals<T>(x: &[T]) -> T {
        match x {
            [a, rest @ ..] => *a * rest[..2].iter().copied().sum::<T>(),
            [] => T::zero(),
        }
    }
}

twice! {
    /// A view of a view: `q = &p[1..3]` of `p = &x[1..]`, and inclusive and open parts of
    /// `p` read by iterator forms.
    fn view_of_a_view / view_of_a_view_on_duals<T>(x: &[T]) -> T {
        let p = &x[1..];
        let q = &p[1..3];
        let mut total = q[0] * q[1] + T::from(q.len()).unwrap();
        for v in p[..=1].iter() {
            total = total + v.sin();
        }
        total + p[2..].iter().copied().product::<T>()
    }
}

twice! {
    /// The first two of each window of three, by `w[..2]`.
    fn window_heads / window_heads_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for w in x.windows(3) {
            total = total + w[..2].iter().copied().product::<T>() * w[2];
        }
        total
    }
}

/// Reads past the end of its rest's part: `rest[..4]` of a rest of three.
#[differentiable]
fn part_past_the_rest(x: &[f64]) -> f64 {
    match x {
        [a, rest @ ..] => a * rest[..4].iter().sum::<f64>(),
        [] => 0.0,
    }
}

/// Reads past the end of a view of a view: `q[2]` of `q = &p[1..3]`, inside `p` and `x`.
#[differentiable]
fn past_a_view_of_a_view(x: &[f64]) -> f64 {
    let p = &x[1..];
    let q = &p[1..3];
    q[0] + q[2]
}

/// An inclusive part past a window's end: `w[1..=2]` of a window of two.
#[differentiable]
fn inclusive_past_a_window(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for w in x.windows(2) {
        total += w[1..=2].iter().sum::<f64>();
    }
    total
}

#[test]
fn parts_of_views() {
    one_slice_twice!(head_plus_two, head_plus_two_on_duals at [0.5, -1.0, 2.0, 0.25]);
    one_slice_twice!(view_of_a_view, view_of_a_view_on_duals
        at [0.5, -1.0, 2.0, 0.25, 1.5], [0.3, 0.7, -0.4, 1.1]);
    one_slice_twice!(window_heads, window_heads_on_duals at [0.5, -1.0, 2.0, 0.25, 1.5]);
}

#[test]
fn parts_past_a_view_panic_as_the_body_does() {
    let x = [0.5, -1.0, 2.0, 0.25];
    type Face<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let faces: [Face; 9] = [
        (
            "range end index 4 out of range for slice of length 3",
            Box::new(|| _ = part_past_the_rest(&x)),
        ),
        (
            "range end index 4 out of range for slice of length 3",
            Box::new(|| _ = part_past_the_rest::grad(&x)),
        ),
        (
            "range end index 4 out of range for slice of length 3",
            Box::new(|| _ = part_past_the_rest::jvp(&x, &[1.0; 4])),
        ),
        (
            "index out of bounds: the len is 2 but the index is 2",
            Box::new(|| _ = past_a_view_of_a_view(&x)),
        ),
        (
            "index out of bounds: the len is 2 but the index is 2",
            Box::new(|| _ = past_a_view_of_a_view::grad(&x)),
        ),
        (
            "index out of bounds: the len is 2 but the index is 2",
            Box::new(|| _ = past_a_view_of_a_view::jvp(&x, &[1.0; 4])),
        ),
        (
            "range end index 2 out of range for slice of length 2",
            Box::new(|| _ = inclusive_past_a_window(&x)),
        ),
        (
            "range end index 2 out of range for slice of length 2",
            Box::new(|| _ = inclusive_past_a_window::grad(&x)),
        ),
        (
            "range end index 2 out of range for slice of length 2",
            Box::new(|| _ = inclusive_past_a_window::jvp(&x, &[1.0; 4])),
        ),
    ];
    for (expected, face) in faces {
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(face))
            .expect_err("reading past a view's end panics");
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        assert!(message.contains(expected), "the slice's message: {message}");
    }
}

// ----- closures used as values in closures -----

twice! {
    /// A closure passed by name to `map` inside another closure's body (η-expanded, then
    /// inlined in the outer closure's body, which is inlined at its call).
    fn inner_closure_mapped / inner_closure_mapped_on_duals<T>(x: &[T]) -> T {
        let y = x[0].cos();
        let outer = |a: T| {
            let inner = |b: &T| *b * y + a;
            x.iter().map(inner).sum::<T>()
        };
        outer(x[1]) * T::from(2.0).unwrap()
    }
}

twice! {
    /// Closures by name to `fold` and `max_by`, at the top level.
    fn closures_by_name / closures_by_name_on_duals<T>(x: &[T]) -> T {
        let add_square = |acc: T, v: &T| acc + *v * *v;
        let by_value = |a: &T, b: &T| a.partial_cmp(b).unwrap();
        let total = x.iter().fold(T::zero(), add_square);
        let top = x.iter().copied().max_by(by_value).unwrap();
        total * top
    }
}

twice! {
    /// A closure returning a closure (`move`, capturing its parameter), called, and the
    /// closure it made called twice.
    fn closure_made_by_a_closure / closure_made_by_a_closure_on_duals<T>(x: &[T]) -> T {
        let scale = |s: T| move |v: T| v * s + x[1];
        let by_twice = scale(x[0] * T::from(2.0).unwrap());
        by_twice(x[1]) * by_twice(x[0].sin())
    }
}

twice! {
    /// A closure that makes and returns one by name, over an element read before; the
    /// element written after the closure is made, which the closure's copy must not see.
    fn closure_returned_by_name / closure_returned_by_name_on_duals<T>(x: &[T]) -> T {
        let mut y = x[1];
        let outer = |a: T| {
            let inner = move |b: T| b * a + y;
            inner
        };
        let f = outer(x[0].sin());
        y = y * T::from(3.0).unwrap();
        f(y) * f(x[2]) + y
    }
}

/// The name of a closure bound again after it (`let sq = 3.0;`): the later `sq` is another
/// value, so the argument is not rewritten into a call of the closure (`map(sq)` before it
/// still is: the closure is read where it is in scope).
#[differentiable]
fn closure_name_bound_again(x: &[f64]) -> f64 {
    let total: f64 = {
        let sq = |v: f64| v * v;
        x.iter().copied().map(sq).sum()
    };
    let sq = 3.0;
    total * sq
}

/// A closure made at the end of a block, after statements of its own (`s`, a counter
/// written): the block's statements run where the block was, once, then the closure is
/// bound by `let` (the statements after read the outer `k` and the counter).
#[differentiable]
fn made_in_a_block(x: f64, y: f64) -> f64 {
    let k = y * 5.0;
    let mut made = 0;
    let scaled = {
        let s = x * 2.0;
        made += 1;
        move |v: f64| v * s
    };
    scaled(y) + k + f64::from(made)
}

#[test]
fn closures_used_as_values_in_closures() {
    one_slice_twice!(inner_closure_mapped, inner_closure_mapped_on_duals
        at [0.7, -1.3, 0.4], [0.2, 0.9]);
    one_slice_twice!(closures_by_name, closures_by_name_on_duals at [0.7, -1.3, 0.4, 1.1]);
    one_slice_twice!(closure_made_by_a_closure, closure_made_by_a_closure_on_duals
        at [0.7, -1.3], [1.5, 0.25]);
    one_slice_twice!(closure_returned_by_name, closure_returned_by_name_on_duals
        at [0.7, -1.3, 0.4]);
    // d/dx Σ x² · 3 = 6x
    let x = [0.5, -1.0, 2.0];
    let (value, [g]) = closure_name_bound_again::grad(&x[..]);
    assert_eq!(value.to_bits(), closure_name_bound_again(&x).to_bits());
    assert_eq!(g, vec![3.0, -6.0, 12.0]);
    // 2xy + 5y + 1 (the block ran once): d/dx = 2y, d/dy = 2x + 5
    let (value, [dx, dy]) = made_in_a_block::grad(0.5, 1.5);
    assert_eq!(value.to_bits(), made_in_a_block(0.5, 1.5).to_bits());
    assert_eq!(value, 2.0 * 0.5 * 1.5 + 7.5 + 1.0);
    assert_eq!((dx, dy), (3.0, 6.0));
}
