//! Forms found rejected in hand-written batches of everyday functions (issue 13):
//!
//! - **local arrays of tuples of floats**: `let pairs: Vec<(f64, f64)> = vec![(x[0],
//!   2.0), ..];`, `let mut pts = Vec::new(); pts.push((a, b));`, read by `for (v, w) in
//!   &pairs`, `for &(v, w) in pairs.iter()`, `pairs.iter().map(|(v, w)| ..).sum()`,
//!   `pairs[i].0`, and written by `pairs[i].1 += ..`. Each is split into one array per
//!   position before the other passes (`macros/src/tuples.rs`), the positions kept in
//!   step;
//! - **arrays of enum values (variants holding floats) built locally, iterated and
//!   matched**: `let shapes = [Shape::Circle(x[0]), Shape::Square(x[1])]; for s in
//!   &shapes { total += match s { .. }; }`: each payload bound once, in the order written,
//!   and the loop over the positions, its item built as each iteration starts
//!   (`macros/src/enum_arrays.rs`), which `enums` then splits into a tag and fields;
//! - **every order of `rev`, `take`, `skip` and `enumerate`** on a float slice
//!   (`x.iter().rev().take(k).enumerate()`): a `skip`/`take` after a `rev` of an array's
//!   elements is a part of it read from its end (`iterators::reversed_skipped`), and a
//!   `rev` after counted adapters reverses the items they left (`iterators::Counted::Rev`).
//!   All 36 orders of three and four of them are checked against std's own iterators
//!   (value to the bit, and each element's index, through the same chain over the
//!   indices), for every length from 0 to 6;
//! - **an `Option` from `reduce`/`max_by` read by `.map(..).unwrap_or(..)` in generic
//!   code** (`fn f<T: Float>(x: &[T]) -> T`), whose default is `T::zero()` or
//!   `T::from(c).unwrap()`: a constant, no call with effects (`rewrite::is_float_constant`),
//!   so the combinator is the `match` it stands for; and `collect`s over constant rows
//!   with `x` read beside them (checked here, differentiated before).
//!
//! Each function is written once and checked against dual numbers and central differences
//! at orders 1 and 2 (`twice!`: the plain copy runs std's own iterators and tuples), or as
//! every annotated function is (`slices!`: the value to the bit, `grad_into` against
//! `grad`, central differences, `jvp`, second order). The cases where a split could change
//! meaning (the order elements with effects are evaluated in, a push whose value reads the
//! array's length, an empty array, a `zip` of unequal lengths, a name shadowing the array)
//! are checked by hand or through the plain copy.

// the forms are written as users write them
#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::vec_init_then_push,
    clippy::iter_count,
    clippy::unused_enumerate_index
)]

#[macro_use]
mod common;

use common::faces::point;
use gradtape::differentiable;

// ----- a local array of tuples built by a literal -----

twice! {
    /// A weighted sum over (value, weight) pairs, the weights constants: `for (v, w) in
    /// &pairs` (each part a reference, as from the original tuples).
    fn weighted_pairs / weighted_pairs_on_duals<T>(x: &[T]) -> T {
        let pairs: Vec<(T, T)> = vec![
            (x[0], T::from(2.0).unwrap()),
            (x[1] * x[2], T::from(3.0).unwrap()),
            (x[2].sin(), T::from(-0.5).unwrap()),
        ];
        let mut s = T::zero();
        for (v, w) in &pairs {
            s = s + *v * *w * *v;
        }
        s
    }
}

twice! {
    /// Points of a polyline as (x, y) pairs, by value (`for &(px, py) in pts.iter()`): its
    /// length.
    fn polyline_length / polyline_length_on_duals<T>(x: &[T]) -> T {
        let pts = [(x[0], x[1]), (x[2], x[3]), (x[1], x[0] * x[3])];
        let mut length = T::zero();
        let (mut qx, mut qy) = pts[0];
        for &(px, py) in pts.iter().skip(1) {
            length = length + ((px - qx) * (px - qx) + (py - qy) * (py - qy)).sqrt();
            qx = px;
            qy = py;
        }
        length
    }
}

twice! {
    /// A dot product of pairs by `map` and `sum`, both closure forms (`|(v, w)|` and
    /// `|&(v, w)|`), and a count.
    fn mapped_pairs / mapped_pairs_on_duals<T>(x: &[T]) -> T {
        let pairs = vec![(x[0], x[1]), (x[2], x[0].exp()), (x[1].cos(), x[2])];
        let by_reference: T = pairs.iter().map(|(v, w)| *v * *w).sum();
        let by_value: T = pairs.iter().map(|&(v, w)| v * w.tanh()).sum();
        let n = T::from(pairs.iter().count()).unwrap();
        by_reference * by_value / n
    }
}

twice! {
    /// Read and written by position (`pairs[i].0`, `pairs[i].1 = ..`), the length read
    /// beside (a table of (time, value) samples updated in place, then integrated by the
    /// trapezoid rule).
    fn trapezoid_table / trapezoid_table_on_duals<T>(x: &[T]) -> T {
        let mut samples = [(T::zero(), x[0]), (T::from(0.5).unwrap(), x[1]), (T::one(), x[2])];
        for i in 0..samples.len() {
            samples[i].1 = samples[i].1 * samples[i].1 + samples[i].0;
        }
        let mut area = T::zero();
        for i in 1..samples.len() {
            let dt = samples[i].0 - samples[i - 1].0;
            area = area + dt * (samples[i].1 + samples[i - 1].1) / T::from(2.0).unwrap();
        }
        area
    }
}

twice! {
    /// Three positions (a weighted point cloud, (x, y, mass)), enumerated: the mass-weighted
    /// second moment about the centroid's x.
    fn weighted_cloud / weighted_cloud_on_duals<T>(x: &[T]) -> T {
        let cloud = vec![(x[0], x[1], T::one()), (x[1], x[2], x[0] * x[0]), (x[2], x[0], T::from(2.0).unwrap())];
        let mut mass = T::zero();
        let mut first = T::zero();
        for (_, &(px, _, m)) in cloud.iter().enumerate() {
            mass = mass + m;
            first = first + m * px;
        }
        let centre = first / mass;
        let mut second = T::zero();
        for (i, (px, py, m)) in cloud.iter().enumerate() {
            second = second + *m * (*px - centre) * (*px - centre) * T::from(i + 1).unwrap() + *py;
        }
        second
    }
}

twice! {
    /// Filtered by a test on one position, folded: the kinetic energy of the particles
    /// moving right ((velocity, mass)).
    fn filtered_fold / filtered_fold_on_duals<T>(x: &[T]) -> T {
        let particles = [(x[0], T::from(2.0).unwrap()), (x[1], T::one()), (x[2], x[0] * x[0])];
        particles
            .iter()
            .filter(|&(v, _)| *v > T::zero())
            .fold(T::zero(), |e, (v, m)| e + *m * *v * *v / T::from(2.0).unwrap())
    }
}

twice! {
    /// Items bound whole by a name and read by position (`for p in &pairs`, `|p| p.0`,
    /// `filter(|p| p.1 > ..)`), and by value with `mut` (`for mut p in pairs`, the copy
    /// changed).
    fn named_items / named_items_on_duals<T>(x: &[T]) -> T {
        let pairs = vec![(x[0], x[1]), (x[1] * x[2], T::from(-0.5).unwrap()), (x[2], x[0].cos())];
        let mut s = T::zero();
        for p in &pairs {
            s = s + p.0 * p.1;
        }
        let mapped: T = pairs.iter().map(|p| p.0.sin() * p.1).sum();
        let positive: T = pairs.iter().filter(|p| p.1 > T::zero()).map(|&(a, b)| a * b * b).sum();
        for mut p in pairs {
            p.0 = p.0 * T::from(2.0).unwrap();
            s = s + p.0 * p.0 - p.1;
        }
        s * mapped + positive
    }
}

twice! {
    /// Three positions reordered in place (`swap`, `reverse`) and scaled through
    /// `iter_mut` and `&mut` (a bubble pass over (key, value, weight) records by key).
    fn reordered_records / reordered_records_on_duals<T>(x: &[T]) -> T {
        let mut records = vec![
            (x[0], x[1], T::one()),
            (x[1], x[2] * x[0], T::from(0.5).unwrap()),
            (x[2], x[0].exp(), T::from(2.0).unwrap()),
        ];
        for i in 1..records.len() {
            if records[i - 1].0 > records[i].0 {
                records.swap(i - 1, i);
            }
        }
        records.reverse();
        for (_, v, w) in records.iter_mut() {
            *v = *v * *w;
        }
        for (k, _, w) in &mut records {
            *w = *w + *k;
        }
        let mut s = T::zero();
        for i in 0..records.len() {
            s = s * T::from(0.7).unwrap() + records[i].1 * records[i].2;
        }
        s
    }
}

twice! {
    /// An array of (centre, width) pairs zipped with the samples, on either side of the
    /// `zip` and after an `enumerate` (a mixture of bumps evaluated at each sample).
    fn zipped_pairs / zipped_pairs_on_duals<T>(x: &[T]) -> T {
        let bumps = vec![(x[0], T::one()), (x[1] * x[1], T::from(0.5).unwrap()), (x[2], x[0].exp())];
        let mut total = T::zero();
        for (xi, (c, w)) in x.iter().zip(&bumps) {
            total = total + ((*xi - *c) / *w).powi(2);
        }
        let right: T = bumps.iter().zip(x.iter().rev()).map(|(&(c, w), xi)| c * w * *xi).sum();
        let mut ranked = T::zero();
        for ((i, p), xi) in bumps.iter().enumerate().zip(x.iter().skip(1)) {
            ranked = ranked + T::from(i + 1).unwrap() * p.0 * p.1.sin() * *xi;
        }
        total * right + ranked
    }
}

#[test]
fn local_arrays_of_tuples_built_by_literals_differentiate() {
    one_slice_twice!(weighted_pairs, weighted_pairs_on_duals at [0.3, -1.2, 0.7], [1.5, 0.4, -2.0]);
    one_slice_twice!(polyline_length, polyline_length_on_duals at [0.3, -1.2, 0.7, 2.0]);
    one_slice_twice!(mapped_pairs, mapped_pairs_on_duals at [0.3, -1.2, 0.7], [1.1, 0.4, 0.2]);
    one_slice_twice!(trapezoid_table, trapezoid_table_on_duals at [0.3, -1.2, 0.7]);
    one_slice_twice!(named_items, named_items_on_duals at [0.3, -1.2, 0.7], [1.5, 0.4, 2.0]);
    // `x` longer than the pairs, then as long (its skipped side the shorter): each `zip`
    // stops at its shorter side
    one_slice_twice!(zipped_pairs, zipped_pairs_on_duals at [0.3, -1.2, 0.7, 2.0], [1.5, 0.4, -2.0]);
    // keys in order, then out of order (the swaps taken)
    one_slice_twice!(reordered_records, reordered_records_on_duals
        at [0.3, 0.7, 1.2], [1.5, 0.4, -2.0]);
    one_slice_twice!(weighted_cloud, weighted_cloud_on_duals at [0.3, -1.2, 0.7], [1.3, 0.6, 0.9]);
    // some particles moving left, then all right
    one_slice_twice!(filtered_fold, filtered_fold_on_duals at [0.3, -1.2, 0.7], [0.3, 1.2, 0.7]);
}

// ----- built by pushes -----

/// Segments pushed as (start, end) in a loop, then read by `for (a, b) in &segments` and
/// by position (a piecewise-linear path's squared length and its last end).
#[differentiable]
fn pushed_segments(x: &[f64]) -> f64 {
    let mut segments = Vec::new();
    for i in 1..x.len() {
        segments.push((x[i - 1], x[i] * x[i]));
    }
    let mut total = 0.0;
    for (a, b) in &segments {
        total += (b - a) * (b - a);
    }
    let last = segments.len() - 1;
    segments[last].1 += x[0];
    total + segments[last].1 * segments[0].0
}

/// A `Vec` typed and built by pushes whose value reads the array's own length (evaluated
/// before either position grows), and `pairs[i] = (a, b)` (the value's parts first).
#[differentiable]
fn pushes_reading_the_length(a: f64, b: f64) -> f64 {
    let mut pts: Vec<(f64, f64)> = Vec::with_capacity(3);
    pts.push((a, pts.len() as f64));
    pts.push((b * a, pts.len() as f64 + 1.0));
    pts.push((b, a));
    pts[1] = (pts[1].0 + pts[2].1, pts[0].0);
    let mut s = 0.0;
    for &(v, w) in pts.iter().rev() {
        s = s * 0.5 + v * w;
    }
    s
}

/// The same by std, tuple by tuple.
fn pushes_reading_the_length_by_std(a: f64, b: f64) -> f64 {
    let mut pts: Vec<(f64, f64)> = Vec::with_capacity(3);
    pts.push((a, pts.len() as f64));
    pts.push((b * a, pts.len() as f64 + 1.0));
    pts.push((b, a));
    pts[1] = (pts[1].0 + pts[2].1, pts[0].0);
    let mut s = 0.0;
    for &(v, w) in pts.iter().rev() {
        s = s * 0.5 + v * w;
    }
    s
}

/// An empty array of tuples (no push runs for a short input): sums over it are zero, its
/// length zero.
#[differentiable]
fn maybe_empty_pairs(x: &[f64]) -> f64 {
    let mut pairs = vec![];
    for i in 2..x.len() {
        pairs.push((x[i], x[i - 2]));
    }
    let s: f64 = pairs.iter().map(|(a, b)| a * b).sum();
    s + x[0] * pairs.len() as f64 + if pairs.is_empty() { x[1] } else { 0.0 }
}

#[test]
fn local_arrays_of_tuples_built_by_pushes_differentiate() {
    slices!(@second_order pushed_segments, [4], [0], point(4, 3, -1.0, 1.0));
    slices!(@second_order pushed_segments, [2], [0], point(2, 5, -1.0, 1.0));
    numbers!(pushes_reading_the_length(0, 1)).check_with_second_order(&[0.7, -1.3]);
    for (a, b) in [(0.7, -1.3), (2.0, 0.25)] {
        assert_eq!(
            pushes_reading_the_length(a, b).to_bits(),
            pushes_reading_the_length_by_std(a, b).to_bits()
        );
    }
    slices!(@second_order maybe_empty_pairs, [5], [0], point(5, 7, -1.0, 1.0));
    slices!(maybe_empty_pairs, [2], [0], point(2, 9, -1.0, 1.0));
    // nothing pushed: the value is x[1], its gradient (0, 1)
    let (value, [g]) = maybe_empty_pairs::grad(&[0.5, 2.0]);
    assert_eq!((value, g), (2.0, vec![0.0, 1.0]));
}

// ----- meaning kept -----

/// Elements whose values have effects (a counter bumped by each): evaluated in the order
/// written, row by row, not position by position.
#[differentiable]
fn elements_with_effects(x: &[f64]) -> f64 {
    let mut calls = 0.0;
    let mut bump = |v: f64| {
        calls += 1.0;
        v * calls
    };
    let pairs = [(bump(x[0]), bump(x[1])), (bump(x[1]), bump(x[0]))];
    pairs[0].0 + 10.0 * pairs[0].1 + 100.0 * pairs[1].0 + 1000.0 * pairs[1].1
}

/// The same by std.
fn elements_with_effects_by_std(x: &[f64]) -> f64 {
    let mut calls = 0.0;
    let mut bump = |v: f64| {
        calls += 1.0;
        v * calls
    };
    let pairs = [(bump(x[0]), bump(x[1])), (bump(x[1]), bump(x[0]))];
    pairs[0].0 + 10.0 * pairs[0].1 + 100.0 * pairs[1].0 + 1000.0 * pairs[1].1
}

/// A tuple array zipped with a longer slice (the shorter bounds the pairs) through its
/// split, and a name of a position's array spelled by the user (`pairs_0`).
#[differentiable]
fn zipped_with_a_slice(x: &[f64]) -> f64 {
    let pairs_0 = 0.5;
    let pairs = vec![(x[0], 1.0), (x[1], 2.0)];
    let mut s = pairs_0;
    for (i, (v, w)) in pairs.iter().enumerate() {
        s += v * w * x[i + 1];
    }
    s
}

/// Closures with effects over a tuple array (a counter in a `filter` and in a `map`): run
/// once per element, in order, as over the tuples.
#[differentiable]
fn closures_with_effects(x: &[f64]) -> f64 {
    let pairs = vec![(x[0], 1.0), (x[1], -2.0), (x[0] * x[1], 3.0)];
    let mut tested = 0.0;
    let mut mapped = 0.0;
    let s: f64 = pairs
        .iter()
        .filter(|&(_, w)| {
            tested += 1.0;
            *w > 0.0
        })
        .map(|(v, w)| {
            mapped += 1.0;
            v * w * mapped
        })
        .sum();
    s + 10.0 * tested + 100.0 * mapped
}

/// The same by std.
fn closures_with_effects_by_std(x: &[f64]) -> f64 {
    let pairs = vec![(x[0], 1.0), (x[1], -2.0), (x[0] * x[1], 3.0)];
    let mut tested = 0.0;
    let mut mapped = 0.0;
    let s: f64 = pairs
        .iter()
        .filter(|&(_, w)| {
            tested += 1.0;
            *w > 0.0
        })
        .map(|(v, w)| {
            mapped += 1.0;
            v * w * mapped
        })
        .sum();
    s + 10.0 * tested + 100.0 * mapped
}

#[test]
fn splitting_keeps_meaning() {
    for x in [[0.3, -1.2], [2.0, 0.5]] {
        assert_eq!(
            elements_with_effects(&x).to_bits(),
            elements_with_effects_by_std(&x).to_bits()
        );
    }
    slices!(@second_order elements_with_effects, [2], [0], point(2, 11, -1.0, 1.0));
    slices!(@second_order zipped_with_a_slice, [3], [0], point(3, 13, -1.0, 1.0));
    for x in [[0.3, -1.2], [2.0, 0.5]] {
        assert_eq!(
            closures_with_effects(&x).to_bits(),
            closures_with_effects_by_std(&x).to_bits()
        );
    }
    slices!(@second_order closures_with_effects, [2], [0], point(2, 29, -1.0, 1.0));
    let x = [0.3, -1.2, 0.7];
    assert_eq!(zipped_with_a_slice(&x), 0.5 + 0.3 * -1.2 + -1.2 * 2.0 * 0.7);
}

// ----- arrays of enum values -----

/// Shapes, each holding its sizes.
enum Shape<T> {
    Circle(T),
    Square(T),
    Rect(T, T),
    Empty,
}

/// A loss term of a composite objective.
enum Term<T> {
    Quadratic(T),
    Huber(T, T),
    Constant,
}

twice! {
    /// The total area of a few shapes, iterated by reference and matched (`r * r` through
    /// the references, as written).
    fn total_area / total_area_on_duals<T>(x: &[T]) -> T {
        let pi = T::from(std::f64::consts::PI).unwrap();
        let shapes = [Shape::Circle(x[0]), Shape::Square(x[1]), Shape::Rect(x[0], x[2] * x[1])];
        let mut total = T::zero();
        for s in &shapes {
            total = total
                + match s {
                    Shape::Circle(r) => pi * *r * *r,
                    Shape::Square(a) => *a * *a,
                    Shape::Rect(a, b) => *a * *b,
                    Shape::Empty => T::zero(),
                };
        }
        total
    }
}

twice! {
    /// A composite loss over terms held by value (`for t in terms`), a guard reading a
    /// field, an `if let` with no `else`, the array's length.
    fn composite_loss / composite_loss_on_duals<T>(x: &[T]) -> T {
        let delta = T::from(0.5).unwrap();
        let terms = vec![
            Term::Huber(x[0] - x[1], delta),
            Term::Quadratic(x[2].sin()),
            Term::Constant,
            Term::Huber(x[1] * x[2], delta),
        ];
        let n = T::from(terms.len()).unwrap();
        let mut loss = T::zero();
        for t in terms {
            if let Term::Quadratic(r) = t {
                loss = loss + r * r;
            }
            loss = loss
                + match t {
                    Term::Huber(r, d) if r.abs() <= d => r * r / T::from(2.0).unwrap(),
                    Term::Huber(r, d) => d * (r.abs() - d / T::from(2.0).unwrap()),
                    Term::Quadratic(_) => T::zero(),
                    Term::Constant => T::one(),
                };
        }
        loss / n
    }
}

twice! {
    /// Pairwise interactions of the items of one array (two loops over it, nested), by
    /// `iter()`, the unit variant named by its arm.
    fn pairwise_overlap / pairwise_overlap_on_duals<T>(x: &[T]) -> T {
        let shapes = [Shape::Circle(x[0]), Shape::Empty, Shape::Circle(x[1] + x[2])];
        let mut overlap = T::zero();
        for a in shapes.iter() {
            for b in shapes.iter() {
                let ra = match a {
                    Shape::Circle(r) => *r,
                    Shape::Empty => T::zero(),
                    _ => T::one(),
                };
                let rb = match b {
                    Shape::Circle(r) => r.exp(),
                    Shape::Empty => T::one(),
                    _ => T::zero(),
                };
                overlap = overlap + ra * rb;
            }
        }
        overlap
    }
}

/// An enum value built by a `match` one of whose arms panics (`_ => unreachable!()`), then
/// matched: the macro itself panicked before ("generated functions: unexpected token,
/// expected `;`"), the arm's bare macro beside arms of assignments.
#[differentiable]
fn enum_built_by_a_match_with_a_panicking_arm(x: &[f64], i: usize) -> f64 {
    let s = match i {
        0 => Shape::Circle(x[0]),
        1 => Shape::Square(x[1]),
        _ => unreachable!(),
    };
    match s {
        Shape::Circle(r) => r * r,
        Shape::Square(a) => a.sin(),
        _ => 0.0,
    }
}

/// The same with a `panic!` naming the value, in a block that is the body's value.
#[differentiable]
fn enum_built_in_a_tail_block(x: &[f64], i: usize) -> f64 {
    {
        let s = match i {
            0 => Shape::Rect(x[0], x[1]),
            n => panic!("no shape {n}"),
        };
        match s {
            Shape::Rect(a, b) => a * b.exp(),
            _ => 0.0,
        }
    }
}

/// Payloads with effects (a counter bumped by each): bound in the order written, once,
/// though each item is built again at every trip.
#[differentiable]
fn payloads_with_effects(x: &[f64]) -> f64 {
    let mut calls = 0.0;
    let mut bump = |v: f64| {
        calls += 1.0;
        v * calls
    };
    let shapes = [
        Shape::Rect(bump(x[0]), bump(x[1])),
        Shape::Circle(bump(x[1])),
    ];
    let mut total = 0.0;
    for _ in 0..2 {
        for s in &shapes {
            total = total * 10.0
                + match s {
                    Shape::Circle(r) => *r,
                    Shape::Rect(a, b) => a - b,
                    _ => 0.0,
                };
        }
    }
    total
}

/// The same by std.
fn payloads_with_effects_by_std(x: &[f64]) -> f64 {
    let mut calls = 0.0;
    let mut bump = |v: f64| {
        calls += 1.0;
        v * calls
    };
    let shapes = [
        Shape::Rect(bump(x[0]), bump(x[1])),
        Shape::Circle(bump(x[1])),
    ];
    let mut total = 0.0;
    for _ in 0..2 {
        for s in &shapes {
            total = total * 10.0
                + match s {
                    Shape::Circle(r) => *r,
                    Shape::Rect(a, b) => a - b,
                    _ => 0.0,
                };
        }
    }
    total
}

/// A step of a pipeline, holding constants.
enum Mode {
    Scale(f64),
    Shift(f64),
}

/// A plain helper reading a mode by reference.
fn is_scale(mode: &Mode) -> bool {
    matches!(mode, Mode::Scale(_))
}

/// An array of enum values of constants whose item is passed on by reference (to a plain
/// helper): left as written, as before (regression: the loop over positions would have
/// handed the helper an owned value, rustc's type error).
#[differentiable]
fn constant_modes_passed_on(x: &[f64]) -> f64 {
    let modes = [Mode::Scale(2.0), Mode::Shift(0.5), Mode::Scale(3.0)];
    let mut v = x[0];
    for m in &modes {
        if is_scale(m) {
            v = v * v;
        } else {
            v += x[1];
        }
    }
    v
}

/// The same array only matched: split, its payloads constants read through the arms.
#[differentiable]
fn constant_modes_matched(x: &[f64]) -> f64 {
    let modes = [Mode::Scale(2.0), Mode::Shift(0.5), Mode::Scale(-1.5)];
    let mut v = x[0];
    for m in &modes {
        v = match m {
            Mode::Scale(k) => v * *k + x[1],
            Mode::Shift(c) => (v + c).sin(),
        };
    }
    v
}

#[test]
fn arrays_of_enum_values_differentiate() {
    one_slice_twice!(total_area, total_area_on_duals at [0.3, -1.2, 0.7], [1.5, 0.4, -2.0]);
    // the quadratic side of both Huber terms, then the linear side of both
    one_slice_twice!(composite_loss, composite_loss_on_duals at [0.3, 0.1, 0.7], [1.5, -0.4, 2.0]);
    one_slice_twice!(pairwise_overlap, pairwise_overlap_on_duals at [0.3, -1.2, 0.7]);
    for x in [[0.3, -1.2], [2.0, 0.5]] {
        assert_eq!(
            payloads_with_effects(&x).to_bits(),
            payloads_with_effects_by_std(&x).to_bits()
        );
    }
    slices!(@second_order payloads_with_effects, [2], [0], point(2, 17, -1.0, 1.0));
    slice_and_constant!(@second_order enum_built_by_a_match_with_a_panicking_arm, 0, point(2, 31, -1.0, 1.0));
    slice_and_constant!(@second_order enum_built_by_a_match_with_a_panicking_arm, 1, point(2, 37, -1.0, 1.0));
    slice_and_constant!(@second_order enum_built_in_a_tail_block, 0, point(2, 41, -1.0, 1.0));
    let past = std::panic::catch_unwind(|| enum_built_in_a_tail_block(&[0.5, 2.0], 3));
    let message = past.expect_err("no shape 3 panics");
    assert_eq!(
        message.downcast_ref::<String>().map(String::as_str),
        Some("no shape 3")
    );
    slices!(@second_order constant_modes_passed_on, [2], [0], point(2, 19, -1.0, 1.0));
    slices!(@second_order constant_modes_matched, [2], [0], point(2, 23, -1.0, 1.0));
    let x = [0.7, -0.2];
    assert_eq!(
        constant_modes_passed_on(&x),
        ((0.7f64 * 0.7) + -0.2) * ((0.7 * 0.7) + -0.2)
    );
    assert_eq!(
        constant_modes_matched(&x),
        ((0.7 * 2.0 + -0.2 + 0.5f64).sin()) * -1.5 + -0.2
    );
}

// ----- `rev`, `take`, `skip` and `enumerate` in everyday functions -----

twice! {
    /// An exponentially weighted mean of the last three samples, the newest weighted most
    /// (`rev().take(3).enumerate()`): fewer samples than three take what there is.
    fn recent_weighted / recent_weighted_on_duals<T>(x: &[T]) -> T {
        let decay = T::from(0.6).unwrap();
        let mut total = T::zero();
        let mut weights = T::zero();
        for (i, v) in x.iter().rev().take(3).enumerate() {
            let w = decay.powi(i as i32);
            total = total + w * *v;
            weights = weights + w;
        }
        total / weights
    }
}

twice! {
    /// Backward differences from the end, skipping the first sample
    /// (`enumerate().skip(1).rev()`: positions are the samples' own), the newest two only
    /// (`take(2)`): a momentum estimate.
    fn recent_momentum / recent_momentum_on_duals<T>(x: &[T]) -> T {
        x.iter()
            .enumerate()
            .skip(1)
            .rev()
            .take(2)
            .map(|(i, v)| (*v - x[i - 1]) * (*v - x[i - 1]) / T::from(i).unwrap())
            .sum()
    }
}

twice! {
    /// The samples before the newest, from the end, by value (`rev().skip(1)`,
    /// `take(3).rev()` of a copy): a leave-last-out sum of squares against a reversed head.
    fn leave_last_out / leave_last_out_on_duals<T>(x: &[T]) -> T {
        let mut s = T::zero();
        for &v in x.iter().rev().skip(1) {
            s = s + v * v;
        }
        let head: T = x.iter().take(3).rev().enumerate().map(|(i, v)| T::from(i + 1).unwrap() * v.sin()).sum();
        s * head
    }
}

#[test]
fn rev_take_skip_and_enumerate_in_everyday_functions_differentiate() {
    one_slice_twice!(recent_weighted, recent_weighted_on_duals
        at [0.3, -1.2, 0.7, 2.0, 0.4], [1.5, -0.4], [0.8]);
    one_slice_twice!(recent_momentum, recent_momentum_on_duals
        at [0.3, -1.2, 0.7, 2.0, 0.4], [1.5, -0.4], [0.8]);
    one_slice_twice!(leave_last_out, leave_last_out_on_duals
        at [0.3, -1.2, 0.7, 2.0, 0.4], [1.5, -0.4], [0.8]);
}

// ----- an extremum's option in generic code; collects over constant rows -----

twice! {
    /// The largest sample squared, zero for no sample (`reduce` over copies, then
    /// `map(..).unwrap_or(T::zero())`).
    fn largest_squared / largest_squared_on_duals<T>(x: &[T]) -> T {
        x.iter().copied().reduce(|a, b| a.max(b)).map(|m| m * m).unwrap_or(T::zero())
    }
}

twice! {
    /// The peak of a signal by `max_by` over references, scaled, a default through
    /// `T::from`: the option of a reference mapped to a number.
    fn scaled_peak / scaled_peak_on_duals<T>(x: &[T]) -> T {
        let peak = x
            .iter()
            .max_by(|a, b| a.partial_cmp(b).unwrap())
            .map(|m| *m * T::from(1.5).unwrap() + m.sin())
            .unwrap_or(T::from(-1.0).unwrap());
        peak * T::from(x.len()).unwrap()
    }
}

twice! {
    /// The exponential of the smallest sample, one for no sample: `reduce` over
    /// references, the option's reference read through `map`, the default `T::one()`.
    fn smallest_sample / smallest_sample_on_duals<T>(x: &[T]) -> T {
        x.iter().reduce(|a, b| if *b < *a { b } else { a }).map(|m| m.exp()).unwrap_or(T::one())
    }
}

/// Row sums of constant ragged rows collected untyped in the closure (`r.iter().sum()`,
/// typed by the local), weighting `x` beside them.
#[differentiable]
fn row_sums_beside(x: &[f64]) -> f64 {
    let rows = vec![vec![1.0, 2.0], vec![3.0], vec![]];
    let s: Vec<f64> = rows.iter().map(|r| r.iter().sum()).collect();
    x[0] * s[0] + x[1] * x[1] * s[1] + s[2] * x[0]
}

/// Constant rows zipped with `x`, each row's sum times its sample, collected, then summed.
#[differentiable]
fn rows_zipped_with_x(x: &[f64]) -> f64 {
    let rows = vec![vec![1.0, 2.0], vec![3.0], vec![0.5, 0.5, 0.25]];
    let s: Vec<f64> = rows
        .iter()
        .zip(x)
        .map(|(r, v)| v * v * r.iter().sum::<f64>())
        .collect();
    s.iter().sum::<f64>() * x[0]
}

/// Constant rows whose closure reads `x`: a row of features dotted with the weights.
#[differentiable]
fn rows_read_with_x(x: &[f64]) -> f64 {
    let rows = vec![vec![1.0, -2.0], vec![3.0, 0.5]];
    let s: Vec<f64> = rows
        .iter()
        .map(|r| r.iter().zip(x).map(|(c, w)| c * w.tanh()).sum())
        .collect();
    s[0] * s[1]
}

#[test]
fn options_of_extrema_in_generic_code_and_collects_over_constant_rows_differentiate() {
    one_slice_twice!(largest_squared, largest_squared_on_duals at [0.3, -1.2, 0.7], [-1.5, -0.4]);
    one_slice_twice!(scaled_peak, scaled_peak_on_duals at [0.3, -1.2, 0.7], [-1.5, -0.4]);
    one_slice_twice!(smallest_sample, smallest_sample_on_duals at [0.3, -1.2, 0.7], [-1.5]);
    // no sample: the default, and no gradient
    assert_eq!(largest_squared::<f64>(&[]), 0.0);
    assert_eq!(scaled_peak::<f64>(&[]), -0.0);
    let (value, [g]) = smallest_sample::grad(&[] as &[f64]);
    assert_eq!((value, g.len()), (1.0, 0));
    slices!(@second_order row_sums_beside, [2], [0], point(2, 3, -1.0, 1.0));
    slices!(@second_order rows_zipped_with_x, [3], [0], point(3, 5, -1.0, 1.0));
    // `x` shorter than the rows: the zip stops at its end
    slices!(@second_order rows_zipped_with_x, [2], [0], point(2, 7, -1.0, 1.0));
    slices!(@second_order rows_read_with_x, [2], [0], point(2, 9, -1.0, 1.0));
}

// ----- every order of `rev`, `take`, `skip` and `enumerate` -----

/// For each `name: [adapters]`, an annotated `name(x: &[f64]) -> f64` summing `(i + 1) *
/// v * v` over `x.iter()` then the adapters (which include `enumerate`), and its check
/// against std's own iterators at every length from 0 to 6: the value to the bit (the
/// same chain run by std), and the gradient element by element, `2 (i + 1) x[k]` at
/// each element index `k` the same chain over the indices `0..n` gives (zero
/// elsewhere), by `grad` and `grad_into`.
macro_rules! orders {
    ($($name:ident: [$($adapter:tt)*])*) => {
        mod orders {
            use gradtape::differentiable;
            $(
                #[differentiable]
                pub fn $name(x: &[f64]) -> f64 {
                    x.iter() $($adapter)* .map(|(i, v)| (i as f64 + 1.0) * v * v).sum()
                }
            )*
        }

        #[test]
        fn every_order_of_rev_take_skip_and_enumerate_is_std_s() {
            $(
                for n in 0..=6 {
                    let name = stringify!($name);
                    let x: Vec<f64> = (0..n).map(|k| 0.3 + 0.7 * k as f64 - 0.1 * (k * k) as f64).collect();
                    let by_std: f64 =
                        x.iter() $($adapter)* .map(|(i, v)| (i as f64 + 1.0) * v * v).sum();
                    assert_eq!(orders::$name(&x).to_bits(), by_std.to_bits(), "{name}, n = {n}");
                    let indices: Vec<usize> = (0..n).collect();
                    let mut expected = vec![0.0; n];
                    for (i, &k) in indices.iter() $($adapter)* {
                        expected[k] += 2.0 * (i as f64 + 1.0) * x[k];
                    }
                    let (value, [g]) = orders::$name::grad(&x);
                    assert_eq!(value.to_bits(), by_std.to_bits(), "{name}, n = {n}: grad's value");
                    let mut into = vec![0.0; n];
                    orders::$name::grad_into(&x, &mut into);
                    for k in 0..n {
                        assert!(common::close(g[k], expected[k], 1e-15), "{name}, n = {n}: {g:?} against {expected:?}");
                        assert_eq!(into[k].to_bits(), g[k].to_bits(), "{name}, n = {n}: grad_into");
                    }
                }
            )*
        }
    };
}

orders! {
    rev_take_skip_en: [.rev() .take(3) .skip(1) .enumerate()]
    rev_take_en_skip: [.rev() .take(3) .enumerate() .skip(1)]
    rev_skip_take_en: [.rev() .skip(1) .take(3) .enumerate()]
    rev_skip_en_take: [.rev() .skip(1) .enumerate() .take(3)]
    rev_en_take_skip: [.rev() .enumerate() .take(3) .skip(1)]
    rev_en_skip_take: [.rev() .enumerate() .skip(1) .take(3)]
    take_rev_skip_en: [.take(3) .rev() .skip(1) .enumerate()]
    take_rev_en_skip: [.take(3) .rev() .enumerate() .skip(1)]
    take_skip_rev_en: [.take(3) .skip(1) .rev() .enumerate()]
    take_skip_en_rev: [.take(3) .skip(1) .enumerate() .rev()]
    take_en_rev_skip: [.take(3) .enumerate() .rev() .skip(1)]
    take_en_skip_rev: [.take(3) .enumerate() .skip(1) .rev()]
    skip_rev_take_en: [.skip(1) .rev() .take(3) .enumerate()]
    skip_rev_en_take: [.skip(1) .rev() .enumerate() .take(3)]
    skip_take_rev_en: [.skip(1) .take(3) .rev() .enumerate()]
    skip_take_en_rev: [.skip(1) .take(3) .enumerate() .rev()]
    skip_en_rev_take: [.skip(1) .enumerate() .rev() .take(3)]
    skip_en_take_rev: [.skip(1) .enumerate() .take(3) .rev()]
    en_rev_take_skip: [.enumerate() .rev() .take(3) .skip(1)]
    en_rev_skip_take: [.enumerate() .rev() .skip(1) .take(3)]
    en_take_rev_skip: [.enumerate() .take(3) .rev() .skip(1)]
    en_take_skip_rev: [.enumerate() .take(3) .skip(1) .rev()]
    en_skip_rev_take: [.enumerate() .skip(1) .rev() .take(3)]
    en_skip_take_rev: [.enumerate() .skip(1) .take(3) .rev()]
    rev_take_en: [.rev() .take(3) .enumerate()]
    rev_en_take: [.rev() .enumerate() .take(3)]
    take_rev_en: [.take(3) .rev() .enumerate()]
    take_en_rev: [.take(3) .enumerate() .rev()]
    en_rev_take: [.enumerate() .rev() .take(3)]
    en_take_rev: [.enumerate() .take(3) .rev()]
    rev_skip_en: [.rev() .skip(1) .enumerate()]
    rev_en_skip: [.rev() .enumerate() .skip(1)]
    skip_rev_en: [.skip(1) .rev() .enumerate()]
    skip_en_rev: [.skip(1) .enumerate() .rev()]
    en_rev_skip: [.enumerate() .rev() .skip(1)]
    en_skip_rev: [.enumerate() .skip(1) .rev()]
}
