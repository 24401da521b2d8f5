//! Ordinary Rust that `#[differentiable]` rejected until the `rejections` branch (issue 13),
//! each form now rewritten into one lowering differentiates, and checked against dual
//! numbers and central differences at orders 1 and 2 (`twice!`: the body annotated, and
//! plain over `num_traits::Float` on `gradtape::generated::Dual`):
//!
//! - `let Some(v) = a.get(i) else { .. };` (also `first()`, `last()`, `Some(&v)`) on a
//!   float array (`iterators.rs`, `element_let_else`: the index tested, the else block run
//!   when it is out of range, the element bound by index in the same block);
//! - a sub-slice bound by a slice pattern, `[a, rest @ ..]` (`rewrite.rs`,
//!   `SlicePatterns`: `let rest = &x[1..x.len()];`), or by `let p = &x[i..j];`
//!   (`iterators.rs`, `sub_slice_let`: a view of the array in the statements after);
//! - an enum value with float payloads built in the body and only matched (`enums.rs`: a
//!   tag and a local per field), also rebuilt from itself in a loop;
//! - a closure defined inside another closure's body (`rewrite.rs`, `Closures`: inlined
//!   there first), with captures, an inner `return`, a `move` snapshot, `FnMut`;
//! - `sort_by` of a float array of the body (`iterators.rs`, `sort_by`: the order decided
//!   on the values by the same stable sort, then element swaps), with ties checked by hand
//!   and a writer sorting its output checked against differences;
//! - and a regression found on the way (an integer chosen by a test of values).

// the forms are written as users write them, which clippy would have written otherwise
#![allow(clippy::while_let_loop, clippy::needless_late_init)]

#[macro_use]
mod common;

use gradtape::differentiable;

// ----- `let .. else` on an element -----

twice! {
    /// The second value if there is one, else the first (an early `return`).
    fn second_or_first / second_or_first_on_duals<T>(x: &[T]) -> T {
        let Some(&v) = x.get(1) else {
            return x[0] * x[0];
        };
        v * v + x[0].sin()
    }
}

twice! {
    /// A product of each value with the one two places on, `continue` past the end: the
    /// else block of a `let .. else` inside a loop.
    fn lagged_products / lagged_products_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for i in 0..x.len() {
            let Some(ahead) = x.get(i + 2) else {
                continue;
            };
            total = total + x[i] * (*ahead).tanh();
        }
        total
    }
}

twice! {
    /// Horner's rule walking coefficients until `get` runs out (`break`).
    fn horner_until_missing / horner_until_missing_on_duals<T>(x: &[T]) -> T {
        let t = x[0];
        let mut acc = T::zero();
        let mut k = 1;
        loop {
            let Some(&c) = x.get(k) else {
                break;
            };
            acc = acc * t + c;
            k += 1;
        }
        acc
    }
}

twice! {
    /// The ends by `first()` and `last()` (one by reference, one by value), the else
    /// block reading the outer `v` that the `let` then shadows.
    fn ends_by_let_else / ends_by_let_else_on_duals<T>(x: &[T]) -> T {
        let v = x[0] * T::from(0.5).unwrap();
        let Some(first) = x.first() else {
            return v;
        };
        let Some(&v) = x.last() else {
            return v;
        };
        (*first - v).exp() + v * *first
    }
}

twice! {
    /// A `let .. else` whose index is computed (evaluated once, before the test) and
    /// whose else block panics.
    fn computed_index / computed_index_on_duals<T>(x: &[T]) -> T {
        let mut n = 0;
        let i = {
            n += 1;
            n + x.len() / 2
        };
        let Some(&mid) = x.get(i - 1) else {
            panic!("no middle value")
        };
        mid.powi(3) + x[0] * T::from(n).unwrap()
    }
}

#[test]
fn let_else_on_an_element() {
    one_slice_twice!(second_or_first, second_or_first_on_duals at [0.7, -1.3], [0.6]);
    one_slice_twice!(lagged_products, lagged_products_on_duals at [0.7, -1.3, 0.4, 1.1]);
    one_slice_twice!(lagged_products, lagged_products_on_duals at [0.7, -1.3]);
    one_slice_twice!(horner_until_missing, horner_until_missing_on_duals
        at [0.7, -1.3, 0.4, 1.1], [0.5]);
    one_slice_twice!(ends_by_let_else, ends_by_let_else_on_duals at [0.3, 0.8, -0.4], [0.6]);
    one_slice_twice!(computed_index, computed_index_on_duals at [0.3, 0.8, -0.4], [0.6]);
}

// ----- a sub-slice bound by a slice pattern, or by `let` -----

twice! {
    /// The head and the rest: `[a, rest @ ..]`, the rest summed, indexed and measured.
    fn head_plus_rest / head_plus_rest_on_duals<T>(x: &[T]) -> T {
        match x {
            [a, rest @ ..] => {
                let mut s = T::zero();
                for v in rest.iter() {
                    s = s + *v * *v;
                }
                *a * s + rest.iter().copied().sum::<T>() + T::from(rest.len()).unwrap()
            }
            [] => T::zero(),
        }
    }
}

twice! {
    /// The interior between the ends, `[first, inner @ .., last]`: a trapezoid rule's
    /// weights (the ends halved), the inner part read by index.
    fn trapezoid / trapezoid_on_duals<T>(x: &[T]) -> T {
        let half = T::from(0.5).unwrap();
        match x {
            [first, inner @ .., last] => {
                let mut s = (*first + *last) * half;
                for k in 0..inner.len() {
                    s = s + inner[k].exp();
                }
                s
            }
            [only] => *only,
            [] => T::zero(),
        }
    }
}

twice! {
    /// A recursive-descent shape without recursion: `if let [x0, tail @ ..]` with a guard,
    /// the tail zipped with the array itself, and shadowing of the tail's name after the
    /// match.
    fn tail_against_whole / tail_against_whole_on_duals<T>(x: &[T]) -> T {
        let tail = x[0];
        let v = if let [x0, tail @ ..] = x {
            let dots: T = tail.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum();
            *x0 + dots
        } else {
            T::one()
        };
        v * tail
    }
}

twice! {
    /// A part bound by `let`: a moving average's window of the last three values, its
    /// mean by `iter().sum()` and its spread by a loop.
    fn part_bound_by_let / part_bound_by_let_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let recent: &[T] = &x[n - 3..];
        let mean = recent.iter().copied().sum::<T>() / T::from(recent.len()).unwrap();
        let mut spread = T::zero();
        for v in recent {
            spread = spread + (*v - mean) * (*v - mean);
        }
        let first = &x[..=1];
        mean + spread.sqrt() * first[1] + first.iter().fold(T::zero(), |acc, v| acc + v.sin())
    }
}

twice! {
    /// A part of the sub-slice to its end, `rest[1..]`, and a guard reading the sub-slice's
    /// length (the arm's names bound inside the guard too).
    fn part_of_the_rest / part_of_the_rest_on_duals<T>(x: &[T]) -> T {
        match x {
            [a, rest @ ..] if rest.len() > 1 => {
                let inner: T = rest[1..].iter().map(|v| *v * *v).sum();
                *a * rest[0] + inner + rest[..].iter().copied().sum::<T>()
            }
            [a, ..] => a.exp(),
            [] => T::zero(),
        }
    }
}

#[test]
fn sub_slices_bound_by_name() {
    one_slice_twice!(part_of_the_rest, part_of_the_rest_on_duals at [0.7, -1.3, 0.4, 1.1]);
    one_slice_twice!(part_of_the_rest, part_of_the_rest_on_duals at [0.7, -1.3]);
    one_slice_twice!(head_plus_rest, head_plus_rest_on_duals at [0.7, -1.3, 0.4], [0.6]);
    one_slice_twice!(trapezoid, trapezoid_on_duals at [0.7, -1.3, 0.4, 1.1], [0.7, -1.3]);
    one_slice_twice!(trapezoid, trapezoid_on_duals at [0.6]);
    one_slice_twice!(tail_against_whole, tail_against_whole_on_duals at [0.7, -1.3, 0.4]);
    one_slice_twice!(part_bound_by_let, part_bound_by_let_on_duals at [0.7, -1.3, 0.4, 1.1]);
}

// ----- enums with float payloads built locally and matched -----

/// A shape whose size is differentiated.
enum Shape<T> {
    Circle(T),
    Square(T),
    Rect(T, T),
    Empty,
}

/// A piecewise model's segment.
enum Segment<T> {
    Left(T),
    Middle(T, T),
    Right,
}

/// A peak tracker's phase.
enum Phase<T> {
    Rising(T),
    Falling(T, T),
}

twice! {
    /// The shape chosen by a test, its area by a `match` (a variant never built, `Rect`,
    /// has an arm that is never taken; a unit variant, `Empty`, is built by its path).
    fn area / area_on_duals<T>(x: &[T]) -> T {
        let round = x[1] > T::zero();
        let shape = if round {
            Shape::Circle(x[0])
        } else if x[0] > T::from(2.0).unwrap() {
            Shape::Empty
        } else {
            Shape::Square(x[0] * x[1])
        };
        match shape {
            Shape::Circle(r) => T::from(std::f64::consts::PI).unwrap() * r * r,
            Shape::Rect(w, h) => w * h,
            Shape::Square(s) => s * s,
            Shape::Empty => T::zero(),
        }
    }
}

twice! {
    /// A piecewise function by a segment enum (its `let` typed): three builds in an `if`
    /// chain (one unit variant), matched with a guard reading both fields and a wildcard
    /// field.
    fn piecewise / piecewise_on_duals<T>(x: &[T]) -> T {
        let t = x[0];
        let segment: Segment<T> = if t < T::zero() {
            Segment::Left(t * t)
        } else if t < T::one() {
            let s = t.sin();
            Segment::Middle(t, s)
        } else {
            Segment::Right
        };
        let y = match segment {
            Segment::Left(a) => a.exp(),
            Segment::Middle(a, b) if a * x[1] > b => a * b + x[1],
            Segment::Middle(a, _) => a.cos(),
            Segment::Right => t.ln() + T::one(),
        };
        y * x[1]
    }
}

twice! {
    /// A state machine over the values: the phase rebuilt from itself each step
    /// (`state = match state { .. }`: the payload read before any field changes).
    fn peak_drop / peak_drop_on_duals<T>(x: &[T]) -> T {
        let mut state = Phase::Rising(x[0]);
        for i in 1..x.len() {
            state = match state {
                Phase::Rising(v) if x[i] > v => Phase::Rising(x[i]),
                Phase::Rising(v) => Phase::Falling(v, x[i]),
                Phase::Falling(p, v) => Phase::Falling(v.max(p), v.min(x[i])),
            };
        }
        match state {
            Phase::Rising(v) => v * v,
            Phase::Falling(p, v) => p - v + p * v,
        }
    }
}

twice! {
    /// `if let` on a locally built value (twice), a `match` in the build, the payload arguments
    /// evaluated in order (each reads a counter the one before changed), and an arm's
    /// binding shadowing a local of the same name.
    fn if_let_on_a_built_value / if_let_on_a_built_value_on_duals<T>(x: &[T]) -> T {
        let w = x[0];
        let mut n = 0;
        let kind = if x[1] > T::zero() { 1 } else { 2 };
        let shape = match kind {
            1 => Shape::Rect(
                {
                    n += 1;
                    w * T::from(n).unwrap()
                },
                {
                    n += 2;
                    x[1] * T::from(n).unwrap()
                },
            ),
            _ => Shape::Circle(x[1] * x[0]),
        };
        let mut total = w;
        if let Shape::Rect(w, h) = shape {
            total = total + w * h.exp();
        } else {
            total = total * T::from(2.0).unwrap();
        }
        let extra = if let Shape::Circle(r) = shape { r.sin() } else { T::zero() };
        total + w + extra
    }
}

#[test]
fn enums_built_locally_and_matched() {
    one_slice_twice!(area, area_on_duals at [0.7, 1.3], [0.7, -1.3], [2.5, -1.0]);
    one_slice_twice!(piecewise, piecewise_on_duals at [-0.7, 1.3], [0.4, 1.3], [0.4, 0.1]);
    one_slice_twice!(piecewise, piecewise_on_duals at [1.4, 0.6]);
    one_slice_twice!(peak_drop, peak_drop_on_duals at [0.2, 0.5, 0.9, 0.4, 0.3]);
    one_slice_twice!(peak_drop, peak_drop_on_duals at [0.2, 0.5, 0.9, 1.4]);
    one_slice_twice!(if_let_on_a_built_value, if_let_on_a_built_value_on_duals
        at [0.7, 1.3], [0.7, -1.3]);
}

// ----- a closure defined inside another closure's body -----

twice! {
    /// The inner closure captures the outer's parameter and a local of the function, and
    /// is called twice.
    fn closure_in_a_closure / closure_in_a_closure_on_duals<T>(x: &[T]) -> T {
        let y = x[1];
        let outer = |a: T| {
            let inner = |b: T| b * y + a;
            inner(a) * inner(a.sin())
        };
        outer(x[0]) + outer(y)
    }
}

twice! {
    /// An inner closure leaving early (its `return` leaves it, not the outer closure nor
    /// the function), its parameter named like the outer's.
    fn inner_closure_returns / inner_closure_returns_on_duals<T>(x: &[T]) -> T {
        let soft = |a: T| {
            let clip = |a: T| {
                if a > T::one() {
                    return T::one();
                }
                a
            };
            clip(a) + clip(a * a) * T::from(0.5).unwrap()
        };
        soft(x[0]) * x[1] + soft(x[1])
    }
}

twice! {
    /// A `move` outer closure whose inner closure reads `y`, `y` changed before the outer
    /// is called: the call reads `y` as the closure took it.
    fn inner_closure_reads_a_snapshot / inner_closure_reads_a_snapshot_on_duals<T>(
        x: &[T],
    ) -> T {
        let mut y = x[1];
        let outer = move |a: T| {
            let inner = |b: T| b * y;
            inner(a).exp()
        };
        y = y * y + x[0];
        outer(x[0]) + y
    }
}

twice! {
    /// An inner closure mutating a local of the outer (`FnMut`), inside a closure given
    /// to `map`, over a sum.
    fn inner_closure_in_a_map / inner_closure_in_a_map_on_duals<T>(x: &[T]) -> T {
        let w = x[0];
        x.iter()
            .map(|v| {
                let mut acc = *v;
                let mut add = |t: T| acc = acc + t * w;
                add(*v);
                add(v.cos());
                acc
            })
            .sum::<T>()
    }
}

#[test]
fn closures_inside_closures() {
    one_slice_twice!(closure_in_a_closure, closure_in_a_closure_on_duals at [0.7, -1.3]);
    one_slice_twice!(inner_closure_returns, inner_closure_returns_on_duals
        at [0.7, -1.3], [1.4, 0.8], [0.9, 1.2]);
    one_slice_twice!(inner_closure_reads_a_snapshot, inner_closure_reads_a_snapshot_on_duals
        at [0.7, -1.3]);
    one_slice_twice!(inner_closure_in_a_map, inner_closure_in_a_map_on_duals
        at [0.7, -1.3, 0.4]);
}

// ----- `sort_by` of a copy -----

twice! {
    /// The median of a copy (an odd count), times the smallest, plus the largest.
    fn median_of_a_copy / median_of_a_copy_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2] * v[0] + v[v.len() - 1]
    }
}

twice! {
    /// A trimmed mean: the copy sorted by `partial_cmp`, the extremes left out.
    fn trimmed_mean / trimmed_mean_on_duals<T>(x: &[T]) -> T {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mut total = T::zero();
        for k in 1..v.len() - 1 {
            total = total + v[k];
        }
        total / T::from(v.len() - 2).unwrap()
    }
}

twice! {
    /// An ordered weighted average of computed values: a local buffer filled by a loop,
    /// sorted descending (the comparator's arguments swapped), weighted by rank.
    fn ordered_weighted_average / ordered_weighted_average_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut v = vec![T::zero(); n];
        for i in 0..n {
            v[i] = x[i] * x[i] - x[0].sin();
        }
        v.sort_by(|a, b| b.partial_cmp(a).unwrap());
        let mut total = T::zero();
        for k in 0..n {
            total = total + v[k] * T::from(k + 1).unwrap();
        }
        total
    }
}

/// The sorted copy's `k`-th value by `total_cmp` (ties: the check below).
#[differentiable]
fn kth_smallest(x: &[f64], k: usize) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[k]
}

#[test]
fn sorts_of_a_copy() {
    one_slice_twice!(median_of_a_copy, median_of_a_copy_on_duals
        at [0.3, -1.0, 2.0, 0.5, 0.1], [0.9, 0.2, -0.4]);
    one_slice_twice!(trimmed_mean, trimmed_mean_on_duals at [0.3, -1.0, 2.0, 0.5, 0.1]);
    one_slice_twice!(ordered_weighted_average, ordered_weighted_average_on_duals
        at [0.3, -1.0, 2.0, 0.5], [1.2, 0.4, -0.7]);
    // the JVP agrees with the gradient
    let x: [f64; 5] = [0.3, -1.0, 2.0, 0.5, 0.1];
    let t: [f64; 5] = [0.5, -0.25, 1.0, 0.75, -2.0];
    let (value, [g]) = median_of_a_copy::grad(&x[..]);
    let (by_jvp, dy) = median_of_a_copy::jvp(&x[..], &t[..]);
    assert_eq!(by_jvp.to_bits(), value.to_bits());
    let dot: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    assert!((dy - dot).abs() < 1e-12, "{dy} vs {dot}");
}

/// A writer sorting its `&mut` output in place, descending.
#[differentiable]
fn sorted_descending_into(x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = x[i] * x[i] - x[0];
    }
    out.sort_by(|a, b| b.total_cmp(a));
}

/// The writer's sorted output, weighted by rank.
#[differentiable]
fn by_rank(x: &[f64]) -> f64 {
    let mut sorted = vec![0.0; x.len()];
    sorted_descending_into(x, &mut sorted);
    sorted[0] * 3.0 + sorted[1].sin() + sorted[2]
}

#[test]
fn sort_of_a_writers_output() {
    let x = [0.3, -1.2, 2.0, 0.7];
    let mut out = [0.0; 4];
    sorted_descending_into(&x, &mut out);
    for (got, want) in out.iter().zip([3.7, 1.14, 0.19, -0.21]) {
        assert!((got - want).abs() < 1e-12, "{out:?}");
    }
    let (value, [g]) = by_rank::grad(&x[..]);
    assert_eq!(value.to_bits(), by_rank(&x).to_bits());
    let differences = common::central_differences(&|p| by_rank::primal(p), &x);
    for k in 0..x.len() {
        assert!(
            common::close(g[k], differences[k], 1e-6),
            "{k}: {g:?} vs {differences:?}"
        );
    }
}

#[test]
fn sort_ties_keep_their_order() {
    // `sort_by` is stable: of two equal values the first stays first, so the sorted
    // copy's element 1 is `x[0]` and element 2 is `x[2]`: each takes its own cotangent
    let x = [0.5, 0.2, 0.5];
    assert_eq!(kth_smallest(&x, 1), 0.5);
    assert_eq!(kth_smallest::grad(&x, 1).1[0], vec![1.0, 0.0, 0.0]);
    assert_eq!(kth_smallest::grad(&x, 2).1[0], vec![0.0, 0.0, 1.0]);
    assert_eq!(kth_smallest::grad(&x, 0).1[0], vec![0.0, 1.0, 0.0]);
    // -0.0 sorts before 0.0 by `total_cmp`: the value, not only the gradient, is the
    // sorted copy's
    let zeros = [0.0, -0.0];
    let (value, g) = kth_smallest::grad(&zeros, 0);
    assert!(value == 0.0 && value.is_sign_negative());
    assert_eq!(g[0], vec![0.0, 1.0]);
}

// ----- regressions found on the way -----

twice! {
    /// An integer chosen by a test of differentiable values, `let kind = if .. { 1 } else {
    /// 2 };`, then tested: the local was made active (its branches' test reads `x`), and the
    /// generated code asked `{integer}` for a zero tangent (E0277, rustc's error at the
    /// attribute). A constant now (`lower.rs`, `literal_branches`).
    fn integer_chosen_by_a_test_on_values / integer_chosen_by_a_test_on_values_on_duals<T>(
        x: &[T],
    ) -> T {
        let kind = if x[1] > T::zero() { 1 } else { 2 };
        let sign = match kind {
            1 if x[0] > x[1] => true,
            1 => false,
            _ => true,
        };
        let a;
        if kind == 1 {
            a = x[0] * x[1];
        } else {
            a = x[1].exp();
        }
        if sign { a + T::from(kind).unwrap() * x[0] } else { -a }
    }
}

#[test]
fn regressions() {
    one_slice_twice!(integer_chosen_by_a_test_on_values,
        integer_chosen_by_a_test_on_values_on_duals at [0.7, 0.3], [0.2, 0.3], [0.7, -1.3]);
}

// ----- a view read past its end -----

/// A window read past its end (`w[2]` of a window of two): the body as written panics;
/// the generated code read the next window's element.
#[differentiable]
fn reads_past_its_window(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut first = true;
    for w in x.windows(2) {
        // (the first window only: at the last, the array's own check panics too)
        if first {
            s += w[2];
            first = false;
        }
        s += w[0] * w[1];
    }
    s
}

/// A sub-slice bound by `let` read past its end.
#[differentiable]
fn reads_past_its_part(x: &[f64]) -> f64 {
    let p = &x[1..3];
    p[0] * p[2]
}

/// Regression: a view's element was its array's at an offset, checked only against the
/// array, so `grad` read a neighbouring element where `f` panics (the helpers' review
/// found it). Each face now panics as the body does, with the slice's message.
#[test]
fn reads_past_a_view_panic_as_the_body_does() {
    let x = [0.5, -1.0, 2.0, 0.25, 1.5];
    let faces: [Box<dyn Fn()>; 7] = [
        Box::new(|| _ = reads_past_its_window(&x)),
        Box::new(|| _ = reads_past_its_window::grad(&x)),
        Box::new(|| _ = reads_past_its_window::vjp(&x)),
        Box::new(|| _ = reads_past_its_window::jvp(&x, &[1.0; 5])),
        Box::new(|| _ = reads_past_its_part(&x)),
        Box::new(|| _ = reads_past_its_part::grad(&x)),
        Box::new(|| _ = reads_past_its_part::jvp(&x, &[1.0; 5])),
    ];
    for face in faces {
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(face))
            .expect_err("reading past a view's end panics");
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        assert!(
            message.contains("index out of bounds"),
            "the slice's message, not another: {message}"
        );
    }
}
