//! Ordinary Rust that `#[differentiable]` rejected until the `rejections` branch (issue 13),
//! each form now rewritten into one lowering differentiates, and checked against dual
//! numbers and central differences at orders 1 and 2 (`twice!`: the body annotated, and
//! plain over `num_traits::Float` on `gradtape::generated::Dual`):
//!
//! - `let Some(v) = a.get(i) else { .. };` (also `first()`, `last()`, `Some(&v)`) on a
//!   float array (`iterators.rs`, `element_let_else`: the index tested, the else block run
//!   when it is out of range, the element bound by index in the same block);

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

#[test]
fn sub_slices_bound_by_name() {
    one_slice_twice!(head_plus_rest, head_plus_rest_on_duals at [0.7, -1.3, 0.4], [0.6]);
    one_slice_twice!(trapezoid, trapezoid_on_duals at [0.7, -1.3, 0.4, 1.1], [0.7, -1.3]);
    one_slice_twice!(trapezoid, trapezoid_on_duals at [0.6]);
    one_slice_twice!(tail_against_whole, tail_against_whole_on_duals at [0.7, -1.3, 0.4]);
    one_slice_twice!(part_bound_by_let, part_bound_by_let_on_duals at [0.7, -1.3, 0.4, 1.1]);
}
