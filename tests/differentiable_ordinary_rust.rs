//! Ordinary Rust that `#[differentiable]` rejected until session 31 (issue 13), each form
//! now rewritten into one lowering differentiates, and checked against dual numbers and
//! central differences at orders 1 and 2 (`twice!`: the body annotated, and plain over
//! `num_traits::Float` on `gradtape::generated::Dual`):
//!
//! - a labelled block, `'a: { .. break 'a v; .. tail }`, for its value or as a statement,
//!   also inside a loop left by `continue 'outer`, on plain numbers and on tensors
//!   (`rewrite.rs`, `LabelledBlocks`: the block is a `loop` whose body runs once);
//! - `while let Some(v) = it.next()` over an iterator of a differentiable array bound by
//!   `let` (`rewrite.rs`, `IteratorLoops`: the `for` loop it is);
//! - `match pair { .. }` on a local tuple (`lower.rs`, `split_tuple_local`: the parts as a
//!   tuple scrutinee), and a local tuple written field by field;
//! - a local struct copied whole (`let mut b = a;`, also in a loop's body) and then
//!   written, or built with `..base` (`fields.rs`: the copy built again from the fields);
//! - `match` on a slice by slice patterns (`[a, b]`, `[first, .., last]` with a guard,
//!   `_`; `match *x` binding by value) (`rewrite.rs`, `SlicePatterns`: the `if` chain on
//!   the length, the names bound by index);
//! - an option's combinators with a closure over differentiable values, `o.map(|v|
//!   ..).unwrap_or(d)`, `map_or`, `map_or_else`, `unwrap_or_else` (`rewrite.rs`,
//!   `OptionCombinators`: the `match` they stand for), checked through its faces against
//!   differences at orders 1 and 2.

// the forms are written as users write them, which clippy would have written otherwise
#![allow(clippy::while_let_on_iterator, clippy::manual_swap)]

#[macro_use]
mod common;

use common::{Tolerance, check_annotated};
use gradtape::{Tensor, differentiable};

// ----- labelled blocks -----

twice! {
    /// A value chosen by a labelled block: two early exits with a value, and the tail.
    fn chosen_by_a_labelled_block / chosen_by_a_labelled_block_on_duals<T>(x: &[T]) -> T {
        let a = x[0];
        let b = x[1];
        let v = 'pick: {
            if a > b {
                break 'pick a * a * b;
            }
            let t = a * b;
            if t > T::one() {
                break 'pick t.sqrt();
            }
            t.sin() + b
        };
        v * a
    }
}

twice! {
    /// A labelled block as a statement: updates of a local, cut short by `break 'done`.
    fn cut_short / cut_short_on_duals<T>(x: &[T]) -> T {
        let mut y = x[0];
        'done: {
            if y > T::one() {
                break 'done;
            }
            y = y * x[1];
            if y > T::one() {
                break 'done;
            }
            y = y + x[1].exp();
        }
        y * y
    }
}

twice! {
    /// A labelled block inside a loop: a term per element, `continue 'terms` skipping
    /// negative ones, `break 'term` taking a logarithm of large ones.
    fn terms_by_a_labelled_block / terms_by_a_labelled_block_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        'terms: for i in 0..x.len() {
            let term = 'term: {
                if x[i] < T::zero() {
                    continue 'terms;
                }
                if x[i] > T::one() {
                    break 'term x[i].ln() + T::one();
                }
                x[i] * x[i]
            };
            total = total + term * T::from(i + 1).unwrap();
        }
        total
    }
}

twice! {
    /// A labelled block whose last statement leaves it (no `break` is added after it),
    /// inside a labelled block.
    fn nested_labelled_blocks / nested_labelled_blocks_on_duals<T>(x: &[T]) -> T {
        let a = x[0];
        let outer = 'outer: {
            let inner = 'inner: {
                if a < T::zero() {
                    break 'outer -a;
                }
                break 'inner a.sqrt();
            };
            inner * x[1]
        };
        outer + a
    }
}

/// A labelled block on tensors, its exits decided on the values (one fused node: the
/// block is a loop there too).
#[differentiable]
fn t_chosen_by_a_labelled_block(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let s = (x * y).sum();
    let v = 'pick: {
        if s.to_scalar() > 1.0 {
            break 'pick s.sqrt() * x;
        }
        let t = x.sin() * y;
        if t.sum().to_scalar() < 0.0 {
            break 'pick t.exp();
        }
        t * &s
    };
    v + y
}

// ----- `while let Some(v) = it.next()` -----

twice! {
    /// Horner's rule over the coefficients from the last, by `next()`.
    fn horner_by_next / horner_by_next_on_duals<T>(x: &[T]) -> T {
        let z = x[0];
        let mut it = x.iter().rev();
        let mut acc = T::zero();
        while let Some(&c) = it.next() {
            acc = acc * z + c;
        }
        acc
    }
}

twice! {
    /// A weighted sum by `next()` over `enumerate()`, with a statement between the
    /// iterator's `let` and the loop.
    fn weighted_by_next / weighted_by_next_on_duals<T>(x: &[T]) -> T {
        let mut items = x.iter().enumerate();
        let scale = x[0] * x[0];
        let mut total = T::zero();
        while let Some((i, v)) = items.next() {
            let w = T::from(i + 1).unwrap();
            total = total + w * v.sin();
        }
        total * scale
    }
}

// ----- tuples -----

twice! {
    /// `match` on a local tuple, with a guard and bindings.
    fn match_on_a_local_pair / match_on_a_local_pair_on_duals<T>(x: &[T]) -> T {
        let pair = (x[0] * x[1], x[0] + x[1]);
        let d = match pair {
            (p, q) if p > q => p - q,
            (p, _) if p < T::zero() => -p,
            (p, q) => p * q,
        };
        d * pair.1
    }
}

twice! {
    /// A local tuple written field by field: an oscillator's position and velocity,
    /// stepped by symplectic Euler, and swapped at the end through a temporary.
    fn tuple_written_by_field / tuple_written_by_field_on_duals<T>(x: &[T]) -> T {
        let h = T::from(0.1).unwrap();
        let mut state = (x[0], x[1]);
        for _ in 0..5 {
            state.1 = state.1 - h * state.0;
            state.0 = state.0 + h * state.1;
        }
        let first = state.0;
        state.0 = state.1;
        state.1 = first;
        state.0 * T::from(2.0).unwrap() + state.1
    }
}

// ----- structs copied and updated -----

/// A particle of one dimension.
#[derive(Clone, Copy)]
struct Particle<T> {
    p: T,
    v: T,
}

twice! {
    /// A local struct copied whole, the copy written, and a third built with `..base`.
    fn struct_copied_then_written / struct_copied_then_written_on_duals<T>(x: &[T]) -> T {
        let h = T::from(0.25).unwrap();
        let a = Particle { p: x[0], v: x[1] };
        let mut b = a;
        b.p = b.p + b.v * h;
        let c = Particle {
            v: b.v - b.p * h,
            ..b
        };
        a.p * c.v + c.p * b.v + a.v
    }
}

twice! {
    /// An integrator keeping the previous state as a copy in its loop's body (`let prev =
    /// state;`), and replacing the state with `..prev`.
    fn previous_state_copied / previous_state_copied_on_duals<T>(x: &[T]) -> T {
        let h = T::from(0.1).unwrap();
        let mut state = Particle { p: x[0], v: x[1] };
        for _ in 0..4 {
            let prev = state;
            state.v = prev.v - h * prev.p.sin();
            state = Particle {
                p: prev.p + h * state.v,
                ..state
            };
        }
        state.p * state.v
    }
}

#[test]
fn labelled_blocks() {
    // each exit taken: a > b; a ≤ b with ab > 1; the tail
    one_slice_twice!(chosen_by_a_labelled_block, chosen_by_a_labelled_block_on_duals
        at [1.5, 0.5], [1.2, 1.4], [0.3, 0.8]);
    one_slice_twice!(cut_short, cut_short_on_duals at [1.5, 0.3], [0.8, 1.6], [0.4, 0.5]);
    one_slice_twice!(terms_by_a_labelled_block, terms_by_a_labelled_block_on_duals
        at [0.5, -0.3, 1.7, 0.9], [2.5, 0.2, -1.0, 0.4]);
    one_slice_twice!(nested_labelled_blocks, nested_labelled_blocks_on_duals
        at [0.7, 1.3], [-0.6, 0.9]);
}

#[test]
fn labelled_blocks_on_tensors() {
    let v = |values: &[f64]| Tensor::from_vec(values.to_vec(), &[values.len()]);
    let fused = |x: &[Tensor<f64>]| t_chosen_by_a_labelled_block(&x[0], &x[1]);
    let plain = |x: &[Tensor<f64>]| t_chosen_by_a_labelled_block::primal(&x[0], &x[1]);
    // each exit taken: Σxy > 1; Σ sin(x)·y < 0; the tail
    for inputs in [
        [v(&[1.0, 0.8]), v(&[0.9, 0.7])],
        [v(&[0.3, -0.5]), v(&[-0.4, 0.6])],
        [v(&[0.3, 0.5]), v(&[0.4, 0.6])],
    ] {
        if let Err(message) = check_annotated(
            "t_chosen_by_a_labelled_block",
            &inputs,
            &fused,
            &plain,
            Tolerance::F64,
            7,
        ) {
            panic!("{message}");
        }
    }
}

#[test]
fn loops_over_next() {
    one_slice_twice!(horner_by_next, horner_by_next_on_duals at [0.7, 1.5, -0.4, 0.3]);
    one_slice_twice!(weighted_by_next, weighted_by_next_on_duals at [0.6, -1.1, 0.4]);
}

#[test]
fn tuples_matched_and_written_by_field() {
    // each arm: p > q; p ≤ q with p < 0; the last
    one_slice_twice!(match_on_a_local_pair, match_on_a_local_pair_on_duals
        at [3.0, 2.0], [-0.5, 1.5], [0.5, 0.8]);
    one_slice_twice!(tuple_written_by_field, tuple_written_by_field_on_duals at [1.0, 0.3]);
}

#[test]
fn slice_patterns() {
    // each arm: two elements; first > last; the front; (the last arm needs fewer than 2)
    one_slice_twice!(by_slice_patterns, by_slice_patterns_on_duals at [0.7, -1.3]);
    one_slice_twice!(by_slice_patterns, by_slice_patterns_on_duals at [0.9, 0.2, -0.4, 0.3]);
    one_slice_twice!(by_slice_patterns, by_slice_patterns_on_duals at [0.1, 0.2, -0.4, 0.3]);
    one_slice_twice!(by_value_slice_patterns, by_value_slice_patterns_on_duals at [0.7, 5.0, -1.3]);
    one_slice_twice!(by_value_slice_patterns, by_value_slice_patterns_on_duals at [0.7, 1.2, -0.5, 1.3]);
    one_slice_twice!(by_value_slice_patterns, by_value_slice_patterns_on_duals at [0.6]);
    one_slice_twice!(if_let_slice_patterns, if_let_slice_patterns_on_duals at [0.6, -1.1, 0.4]);
    one_slice_twice!(if_let_slice_patterns, if_let_slice_patterns_on_duals at [0.6]);
}

#[test]
fn structs_copied_and_updated() {
    one_slice_twice!(struct_copied_then_written, struct_copied_then_written_on_duals at [0.8, -0.4]);
    one_slice_twice!(previous_state_copied, previous_state_copied_on_duals at [0.8, -0.4]);
}

// ----- slice patterns -----

twice! {
    /// `match` on a slice by slice patterns: an exact length, the ends around `..` with a
    /// guard, the front, and the rest; the elements bound by reference.
    fn by_slice_patterns / by_slice_patterns_on_duals<T>(x: &[T]) -> T {
        let head = match x {
            [a, b] => *a * *b,
            [first, .., last] if *first > *last => (*first - *last).exp(),
            [first, second, ..] => *first * *second + x[2].sin(),
            _ => T::zero(),
        };
        head * x[0]
    }
}

twice! {
    /// `match *x` (elements bound by value), the last arm a slice pattern of its own.
    fn by_value_slice_patterns / by_value_slice_patterns_on_duals<T>(x: &[T]) -> T {
        match *x {
            [a, _, c] => a * c,
            [.., y, z] => y.hypot(z),
            [a] => a,
            [] => T::zero(),
        }
    }
}

twice! {
    /// `if let` with a slice pattern, with and without `else`.
    fn if_let_slice_patterns / if_let_slice_patterns_on_duals<T>(x: &[T]) -> T {
        let mut total = x[0];
        if let [a, .., z] = x {
            total = total + *a * *z;
        }
        let tail = if let [_, second, ..] = x { second.cos() } else { T::one() };
        total * tail
    }
}

// ----- an option's combinators with a closure over differentiable values -----

/// `map(..).unwrap_or(..)`, `map_or`, `map_or_else` and `unwrap_or_else` of constant
/// options, each closure reading differentiable values.
#[differentiable]
fn option_combinators(x: f64, y: f64, scale: Option<f64>, shift: Option<f64>) -> f64 {
    let a = scale.map(|m| m * x).unwrap_or(x);
    let b = shift.map_or(y * y, |s| (s + y).sin());
    let c = scale.map_or_else(|| x.exp(), |m: f64| m * y);
    let d = shift.map(|s| s * x * y).unwrap_or_else(|| x - y);
    a * b + c * d
}

#[test]
fn option_combinators_with_closures() {
    use common::faces::Case;
    for (scale, shift) in [
        (Some(1.5), Some(0.2)),
        (None, Some(-0.7)),
        (Some(0.3), None),
        (None, None),
    ] {
        Case {
            name: "option_combinators",
            itself: &|x| option_combinators(x[0], x[1], scale, shift),
            primal: &|x| option_combinators::primal(x[0], x[1], scale, shift),
            grad: Some(&|x| {
                let (v, g) = option_combinators::grad(x[0], x[1], scale, shift);
                (v, g.to_vec())
            }),
            grad_into: &|x| {
                let (v, g) = option_combinators::grad(x[0], x[1], scale, shift);
                (v, g.to_vec())
            },
            jvp: &|x, t| option_combinators::jvp(x[0], x[1], scale, shift, t[0], t[1]),
        }
        .check_with_second_order(&[0.7, -0.4]);
    }
}
