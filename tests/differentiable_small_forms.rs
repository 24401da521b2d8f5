//! Small everyday forms `#[differentiable]` rejected before: `for_each` with a closure
//! (`rewrite::ForEachLoops`), a function named as a map's closure, `.map(f64::exp)`
//! (`MapPaths`), `v.reverse()` (`Reverses`: the swaps it makes) and `format!` reading a
//! differentiable value (a constant `String`). Each is checked against dual numbers and
//! central differences at orders 1 and 2 (`twice!`), or against its closed form.

#[macro_use]
mod common;

use gradtape::differentiable;

twice! {
    /// Each value doubled in place by `iter_mut().for_each(..)`, then a running sum by
    /// `for_each` over a range assigning a captured total.
    fn doubled_in_place / doubled_in_place_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        v.iter_mut().for_each(|e| *e = *e * T::from(2.0).unwrap() + (*e).sin());
        let mut total = T::zero();
        (0..v.len()).for_each(|i| total = total + v[i] * x[0]);
        total
    }
}

twice! {
    /// Log-sum-exp with the exponential named as the map's function.
    fn log_sum_exp_by_path / log_sum_exp_by_path_on_duals<T>(x: &[T]) -> T {
        let m = x.iter().copied().fold(T::neg_infinity(), T::max);
        x.iter().map(|&v| v - m).map(T::exp).sum::<T>().ln() + m
    }
}

twice! {
    /// A polynomial evaluated from its reversed coefficients: `reverse` of a local copy.
    fn reversed_horner / reversed_horner_on_duals<T>(x: &[T]) -> T {
        let mut c = x.to_vec();
        c.reverse();
        let mut acc = T::zero();
        for i in 0..c.len() {
            acc = acc * x[0] + c[i];
        }
        acc
    }
}

#[test]
fn for_each_map_paths_and_reverse() {
    one_slice_twice!(doubled_in_place, doubled_in_place_on_duals at
        [0.4, 1.1, 0.3], [-1.4, 0.2, 0.9]);
    one_slice_twice!(log_sum_exp_by_path, log_sum_exp_by_path_on_duals at
        [0.4, 1.1, 0.3], [-1.4, 0.2, 0.9]);
    one_slice_twice!(reversed_horner, reversed_horner_on_duals at
        [0.4, 1.1, 0.3, -0.5], [-1.4, 0.2, 0.9, 2.0]);
}

/// A writer reversing its output in place: `reverse` of a `&mut` parameter.
#[differentiable]
fn reversed_squares(x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = x[i] * x[i];
    }
    out.reverse();
    out[0] += x[0];
}

#[test]
fn reverse_of_a_written_output() {
    let x = [0.5, -1.5, 2.0];
    let mut out = [0.0; 3];
    reversed_squares(&x, &mut out);
    assert_eq!(out, [4.0 + 0.5, 2.25, 0.25]);
    // the pullback of a cotangent on the output: out = [x2² + x0, x1², x0²]
    let w = [0.3, -0.7, 1.1];
    let ((), pullback) = reversed_squares::vjp(&x, &mut [0.0; 3]);
    let (g, ()) = pullback((), &mut w.clone());
    let g = g.expect("a gradient");
    let expected = [
        w[0] + w[2] * 2.0 * x[0],
        w[1] * 2.0 * x[1],
        w[0] * 2.0 * x[2],
    ];
    for k in 0..3 {
        assert!(
            common::close(g[k], expected[k], 1e-14),
            "{g:?} vs {expected:?}"
        );
    }
}

/// A label formatted from a differentiable value: the `String` is a constant.
#[differentiable]
fn labelled(x: f64) -> f64 {
    let label = format!("{x:.1}");
    if label.len() > 3 { x * x } else { x.sin() }
}

#[test]
fn format_reading_a_differentiable_value() {
    for (x, derivative) in [(0.25_f64, 0.25_f64.cos()), (-1.25, -2.5), (12.5, 25.0)] {
        let (value, [g]) = labelled::grad(x);
        assert_eq!(value, labelled(x));
        assert!(common::close(g, derivative, 1e-14), "{g} vs {derivative}");
    }
}

twice! {
    /// Integers and a sign chosen by tests on differentiable values, from other integers
    /// (regression: `let m = if x > 2.0 { k + 1 } else { k };` made `m` an active local,
    /// and the generated code asked `usize` for a zero tangent, rustc's E0277).
    fn integer_branches_chosen_by_a_test_on_values / integer_branches_on_duals<T>(x: &[T]) -> T {
        let k: usize = if x[0] > T::one() { 2 } else { 1 };
        let m = if x[0] > T::from(2.0).unwrap() { k + 1 } else { k };
        let sign = match x[1] > T::zero() {
            true => T::one(),
            false => -T::one(),
        };
        x[0] * T::from(m).unwrap() + sign * x[1] * x[1]
    }
}

#[test]
fn integer_branches_chosen_by_a_test_on_values_are_constants() {
    one_slice_twice!(integer_branches_chosen_by_a_test_on_values, integer_branches_on_duals at
        [0.4, 1.1], [1.4, -0.7], [2.5, 0.3]);
}

twice! {
    /// A piecewise-linear map read from a table of pairs by a destructuring assignment
    /// whose index is computed, `(p, q) = table[i + 1];` (regression: the macro's "needs a
    /// tuple expression" error at the value).
    fn table_of_pairs / table_of_pairs_on_duals<T>(x: &[T], table: &[(f64, f64)]) -> T {
        let (mut p, mut q);
        let mut y = x[0] * x[1];
        for i in 0..table.len() - 1 {
            (p, q) = table[i + 1];
            y = y * T::from(p).unwrap() + x[i % x.len()] * T::from(q).unwrap();
        }
        let mut c = [0.0; 2];
        [c[0], c[1]] = [table[0].1, table[(x.len() + 1) % table.len()].0];
        y + T::from(c[0] - c[1]).unwrap() * x[0]
    }
}

twice! {
    /// `let y = x;` of a borrowed array parameter: a view of the whole (regression: the
    /// macro's "cannot be copied" error at the copy).
    fn aliased_parameter / aliased_parameter_on_duals<T>(x: &[T]) -> T {
        let y = x;
        let mut s = T::zero();
        for (a, b) in y.iter().zip(x.iter()) {
            s = s + *a * *b;
        }
        s + y[y.len() - 1] * y[0].sin()
    }
}

#[test]
fn computed_places_destructured_and_aliased_parameters() {
    let table = [(0.5, 1.0), (1.5, -0.5), (0.75, 2.0)];
    with_constant_twice!(table_of_pairs, table_of_pairs_on_duals, &table, at
        [0.4, 1.1, 0.3], [-1.4, 0.2]);
    one_slice_twice!(aliased_parameter, aliased_parameter_on_duals at
        [0.4, 1.1, 0.3], [-1.4, 0.2, 0.9, 2.5]);
}

twice! {
    /// `std::mem::swap` of two differentiable locals ordering a pair, and of a local with
    /// a constant one (regression: "cannot be borrowed mutably").
    fn ordered_by_swap / ordered_by_swap_on_duals<T>(x: &[T]) -> T {
        let (mut p, mut q) = (x[0], x[1] * T::from(2.0).unwrap());
        if p > q {
            std::mem::swap(&mut p, &mut q);
        }
        let mut r = T::one();
        let mut s = x[2].sin();
        core::mem::swap(&mut r, &mut s);
        q - p * p + r * s.exp()
    }
}

twice! {
    /// `let (head, tail) = x.split_at(k);`: two views of the array.
    fn halves_by_split / halves_by_split_on_duals<T>(x: &[T]) -> T {
        let (head, tail) = x.split_at(x.len() / 2);
        let mut s = T::zero();
        for v in tail.iter() {
            s = s + *v * *v;
        }
        head.iter().copied().sum::<T>() * s + tail[0]
    }
}

twice! {
    /// A slice pattern on `x[..]`, and `while let Some(v) = x.get(i)` stepping by two.
    fn patterned_and_stepped / patterned_and_stepped_on_duals<T>(x: &[T]) -> T {
        let head = if let [a, b, ..] = x[..] { a * b } else { T::zero() };
        let mut i = 0;
        let mut s = T::zero();
        while let Some(v) = x.get(i) {
            s = s + *v * *v;
            i += 2;
        }
        let mut j = 1;
        'odd: while let Some(&w) = x.get(j) {
            j += 2;
            if w < T::zero() {
                continue 'odd;
            }
            s = s + w.sqrt();
        }
        head + s
    }
}

#[test]
fn swaps_splits_whole_ranges_and_while_let_on_elements() {
    one_slice_twice!(ordered_by_swap, ordered_by_swap_on_duals at
        [0.4, 1.1, 0.3], [1.4, 0.2, -0.9]);
    one_slice_twice!(halves_by_split, halves_by_split_on_duals at
        [0.4, 1.1, 0.3], [1.4, 0.2, -0.9, 2.0]);
    one_slice_twice!(patterned_and_stepped, patterned_and_stepped_on_duals at
        [0.4, 1.1, 0.3], [1.4, -0.2, -0.9, 2.0, 0.7]);
}
