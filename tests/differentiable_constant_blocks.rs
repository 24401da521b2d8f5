//! Blocks, `if`/`match` arms with statements, and `loop`s that read differentiable values
//! in their tests but give their `let` a constant: an integer counted or searched on tests
//! of values, a flag. The local is a constant as written (its derivative is zero wherever
//! it has one); before, it was taken for a differentiable value and rustc answered with
//! E0277 (`{integer}: ZeroTangent`). Lowering decides it on what it assigned the block's
//! temporary (`Lowerer::assigns_constants_only`), so a block that gives a float on one
//! path stays differentiable. Each is checked against dual numbers and central differences
//! at orders 1 and 2 (`twice!`).

// blocks that bind a value and give it, as the forms under test write them
#![allow(clippy::let_and_return)]

#[macro_use]
mod common;

use gradtape::differentiable;

twice! {
    /// A mean square over the count of positive values plus one: the count a block with a
    /// loop and a test on each value (regression: E0277, `{integer}: Own`).
    fn count_then_scale / count_then_scale_on_duals<T>(x: &[T]) -> T {
        let n = {
            let mut c = 0;
            for v in x.iter() {
                if *v > T::zero() {
                    c += 1;
                }
            }
            c
        };
        let mut s = T::zero();
        for v in x.iter() {
            s = s + *v * *v;
        }
        s / (T::from(n).unwrap() + T::one())
    }
}

twice! {
    /// The first value not below zero (or the last), found by a `while` in a typed block.
    fn first_non_negative / first_non_negative_on_duals<T>(x: &[T]) -> T {
        let k: usize = {
            let mut i = 0;
            while i + 1 < x.len() && x[i] < T::zero() {
                i += 1;
            }
            i
        };
        x[k] * x[k].sin()
    }
}

twice! {
    /// A bucket chosen by a test on values, each branch with statements of its own.
    fn bucketed / bucketed_on_duals<T>(x: &[T]) -> T {
        let b = if x[0] > x[1] {
            let d = 2;
            d * 3
        } else {
            let e = x.len();
            e - 1
        };
        x[b % x.len()] * x[0]
    }
}

twice! {
    /// An index found by a `loop` breaking with it.
    fn first_above_a_half / first_above_a_half_on_duals<T>(x: &[T]) -> T {
        let mut j = 0;
        let idx = loop {
            if j + 1 >= x.len() || x[j] > T::from(0.5).unwrap() {
                break j;
            }
            j += 1;
        };
        x[idx].exp()
    }
}

twice! {
    /// A flag and a `mut` count, each from a block, the count changed afterwards.
    fn flag_and_count / flag_and_count_on_duals<T>(x: &[T]) -> T {
        let any_negative = {
            let mut f = false;
            for v in x.iter() {
                if *v < T::zero() {
                    f = true;
                }
            }
            f
        };
        let mut m = {
            let mut c = 0usize;
            for i in 0..x.len() {
                if x[i] * x[i] > T::one() {
                    c += 1;
                }
            }
            c
        };
        m += 1;
        if any_negative {
            x[0] * T::from(m).unwrap()
        } else {
            x[1] * x[1]
        }
    }
}

twice! {
    /// A block giving a float built from the values stays differentiable (the sum of the
    /// positive values, squared).
    fn positive_sum_squared / positive_sum_squared_on_duals<T>(x: &[T]) -> T {
        let s = {
            let mut c = T::zero();
            for v in x.iter() {
                if *v > T::zero() {
                    c = c + *v;
                }
            }
            c
        };
        s * s
    }
}

twice! {
    /// A `match` whose arms give a constant on one path and a value on the other is a
    /// value: the constant arm contributes no derivative.
    fn constant_or_value / constant_or_value_on_duals<T>(x: &[T]) -> T {
        let y = match x.len() {
            0 => T::zero(),
            _ => {
                if x[0] > T::zero() {
                    let two = T::from(2.0).unwrap();
                    two
                } else {
                    let v = x[0] * x[1];
                    v
                }
            }
        };
        y * x[1]
    }
}

twice! {
    /// A constant local assigned a block's count in each round of a loop (regression:
    /// E0277, the assignment forced the integer differentiable).
    fn count_reassigned / count_reassigned_on_duals<T>(x: &[T]) -> T {
        let mut n = 0;
        let mut s = T::zero();
        for r in 0..2 {
            n = {
                let mut c = 0;
                for v in x.iter() {
                    if *v > T::from(r).unwrap() {
                        c += 1;
                    }
                }
                c
            };
            s = s + x[0] * T::from(n).unwrap();
        }
        s + T::from(n).unwrap()
    }
}

twice! {
    /// The position of the largest value, by a `match` whose arm loops (an argmax).
    fn argmax_by_match / argmax_by_match_on_duals<T>(x: &[T]) -> T {
        let k = match x.len() {
            0 => 0,
            len => {
                let mut best = 0;
                for i in 1..len {
                    if x[i] > x[best] {
                        best = i;
                    }
                }
                best
            }
        };
        x[k] * x[0]
    }
}

twice! {
    /// A block with a side effect on a value and a constant result: the side effect is
    /// differentiated, the result is a constant.
    fn side_effect_then_count / side_effect_then_count_on_duals<T>(x: &[T]) -> T {
        let mut s = T::zero();
        let n = {
            s = s + x[0].sin();
            let mut c = 1;
            if x[1] > T::zero() {
                c += 1;
            }
            c
        };
        s * T::from(n).unwrap()
    }
}

twice! {
    /// Linear interpolation on knots found by `binary_search_by` (the knots and the point
    /// differentiable: the position is a constant, decided by comparisons).
    fn interpolated / interpolated_on_duals<T>(v: &[T]) -> T {
        let t = v[4];
        let i = match v[..4].binary_search_by(|p| p.partial_cmp(&t).unwrap()) {
            Ok(i) => i.min(2),
            Err(i) => i.saturating_sub(1).min(2),
        };
        let u = (t - v[i]) / (v[i + 1] - v[i]);
        v[i].sin() * (T::one() - u) + v[i + 1].sin() * u
    }
}

twice! {
    /// A piece chosen by `partition_point` with a closure testing the point.
    fn piece_by_partition / piece_by_partition_on_duals<T>(v: &[T]) -> T {
        let t = v[3];
        let i = v[..3].partition_point(|&k| k <= t).clamp(1, 2);
        (t - v[i - 1]) * v[i]
    }
}

twice! {
    /// Branches on an `Ordering` from `partial_cmp` and `total_cmp`.
    fn by_ordering / by_ordering_on_duals<T>(v: &[T]) -> T {
        let first = match v[0].partial_cmp(&v[1]) {
            Some(std::cmp::Ordering::Less) => v[1] - v[0],
            Some(std::cmp::Ordering::Greater) => v[0] * v[1],
            _ => v[0],
        };
        let second = if v[1].partial_cmp(&v[2]) == Some(std::cmp::Ordering::Less) {
            v[2].sin()
        } else {
            v[1].cos()
        };
        first + second
    }
}

twice! {
    /// The weight that maximises `w · v0` among constants, by `max_by` comparing
    /// differentiable values: a choice by comparisons, so a constant (was a UI case).
    fn heaviest_weight / heaviest_weight_on_duals<T>(v: &[T], weights: &[usize]) -> T {
        let n = weights
            .iter()
            .max_by(|a, b| {
                (T::from(**a).unwrap() * v[0])
                    .partial_cmp(&(T::from(**b).unwrap() * v[0]))
                    .unwrap()
            });
        v[0] * v[1] * n.map_or(T::one(), |&k| T::from(k).unwrap())
    }
}

#[test]
fn constants_given_by_blocks_reading_values() {
    one_slice_twice!(count_then_scale, count_then_scale_on_duals at
        [0.4, -1.1, 0.3], [-1.4, -0.2, 0.9, 2.5]);
    one_slice_twice!(first_non_negative, first_non_negative_on_duals at
        [-0.4, -1.1, 0.3], [1.4, -0.2, 0.9], [-1.0, -2.0]);
    one_slice_twice!(bucketed, bucketed_on_duals at
        [0.4, -1.1, 0.3], [-1.4, 0.2, 0.9, 2.5]);
    one_slice_twice!(first_above_a_half, first_above_a_half_on_duals at
        [0.4, 1.1, 0.3], [-1.4, 0.2, 0.1]);
    one_slice_twice!(flag_and_count, flag_and_count_on_duals at
        [0.4, -1.1, 0.3], [1.4, 0.2, 0.9, 2.5]);
    one_slice_twice!(count_reassigned, count_reassigned_on_duals at
        [0.4, -1.1, 1.3], [1.4, 0.2, 0.9, 2.5]);
    one_slice_twice!(argmax_by_match, argmax_by_match_on_duals at
        [0.4, -1.1, 1.3], [1.4, 0.2, 0.9, 2.5]);
    one_slice_twice!(side_effect_then_count, side_effect_then_count_on_duals at
        [0.4, -1.1], [1.4, 0.2, 0.9]);
}

#[test]
fn positions_and_orderings_decided_by_comparisons() {
    // knots 0.1 < 0.7 < 1.3 < 2.0, the point between the second and third, on a knot,
    // and past the last
    one_slice_twice!(interpolated, interpolated_on_duals at
        [0.1, 0.7, 1.3, 2.0, 0.9], [0.1, 0.7, 1.3, 2.0, 2.4], [0.1, 0.7, 1.3, 2.0, -0.3]);
    one_slice_twice!(piece_by_partition, piece_by_partition_on_duals at
        [0.1, 0.7, 1.3, 0.9], [0.1, 0.7, 1.3, 1.6], [0.1, 0.7, 1.3, -0.2]);
    // a positive v0 picks the largest weight, a negative one the smallest
    with_constant_twice!(heaviest_weight, heaviest_weight_on_duals, &[3, 7, 2][..], at
        [0.4, 1.1], [-1.4, 0.2]);
    one_slice_twice!(by_ordering, by_ordering_on_duals at
        [0.4, 1.1, 0.3], [1.4, 0.2, 0.9], [0.5, -0.2, 0.9]);
}

#[test]
fn blocks_giving_values_stay_differentiable() {
    one_slice_twice!(positive_sum_squared, positive_sum_squared_on_duals at
        [0.4, -1.1, 0.3], [-1.4, 0.2, 0.9, 2.5]);
    one_slice_twice!(constant_or_value, constant_or_value_on_duals at
        [0.4, -1.1], [-1.4, 0.2, 0.9]);
}

/// The count's own value: a block's constant is the count the body computes, not a value
/// lowering invented (the gradient of `x · n` is `n` in `x`'s first slot).
#[differentiable]
fn scaled_by_count(x: &[f64]) -> f64 {
    let n = {
        let mut c = 0;
        for v in x.iter() {
            if *v > 1.0 {
                c += 1;
            }
        }
        c
    };
    x[0] * n as f64
}

#[test]
fn a_block_count_is_the_count_the_body_computes() {
    let x = [2.0, 3.0, 0.5, 1.5];
    assert_eq!(scaled_by_count(&x), 6.0);
    let (value, [g]) = scaled_by_count::grad(&x);
    assert_eq!(value, 6.0);
    assert_eq!(g, vec![3.0, 0.0, 0.0, 0.0]);
}
