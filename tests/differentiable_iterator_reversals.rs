//! Iterator forms `#[differentiable]` rejected until the `iter-more` branch (issue 13).

// the forms are written as users write them
#![allow(clippy::needless_range_loop, clippy::let_and_return)]

#[macro_use]
mod common;

use gradtape::differentiable;

twice! {
    /// A palindrome score.
    fn palindrome_score / palindrome_score_on_duals<T>(x: &[T]) -> T {
        x.iter().zip(x.iter().rev()).map(|(a, b)| *a * *b).sum()
    }
}

twice! {
    /// A reversed left side.
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
    /// collect with reversed right.
    fn reversed_collect / reversed_collect_on_duals<T>(x: &[T]) -> T {
        let d: Vec<T> = x[1..].iter().zip(x.iter().rev()).map(|(a, b)| *a - *b).collect();
        let mut total = T::zero();
        for k in 0..d.len() {
            total = total + d[k] * d[k];
        }
        total
    }
}

twice! {
    /// map then rev then enumerate
    fn map_rev_enumerate / map_rev_enumerate_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for (i, s) in x.iter().map(|v| *v * *v).rev().enumerate() {
            total = total + s * T::from(i + 1).unwrap();
        }
        total
    }
}

twice! {
    /// map then skip then zip
    fn map_skip_zip / map_skip_zip_on_duals<T>(x: &[T]) -> T {
        x.iter().map(|v| v.exp()).skip(1).zip(x.iter()).map(|(a, b)| a * *b).sum()
    }
}

twice! {
    /// map then step_by then sum
    fn map_step_sum / map_step_sum_on_duals<T>(x: &[T]) -> T {
        x.iter().map(|v| v.sin()).step_by(2).sum()
    }
}

twice! {
    /// map then take in for loop
    fn map_take_for / map_take_for_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for s in x.iter().map(|v| *v * T::from(3.0).unwrap()).take(2) {
            total = total + s * s;
        }
        total
    }
}

twice! {
    /// reversed right mapped
    fn reversed_right_mapped / reversed_right_mapped_on_duals<T>(x: &[T]) -> T {
        x.iter().zip(x.iter().map(|u| u.cos()).rev()).map(|(a, b)| *a * b).sum()
    }
}

#[cfg(any())]
#[differentiable]
fn rows_collect(x0: &[[f64; 2]]) -> f64 {
    let xs: Vec<f64> = x0.iter().map(|r| r[0]).collect();
    let mut s = 0.0;
    for k in 0..xs.len() {
        s += xs[k] * xs[k];
    }
    s
}

#[differentiable]
fn rows_sum(x0: &[[f64; 2]]) -> f64 {
    x0.iter().map(|p| p[0] * p[1]).sum()
}

#[differentiable]
fn rows_vec_sum(x0: Vec<[f64; 3]>) -> f64 {
    x0.iter().map(|p| p[0] * p[1] + p[2]).sum()
}

#[cfg(any())]
#[differentiable]
fn to_vec_index(x: &[f64]) -> f64 {
    x.to_vec()[1] * 2.0
}

#[cfg(any())]
#[differentiable]
fn to_vec_iter(x: &[f64]) -> f64 {
    x.to_vec().iter().map(|v| v * v).sum()
}

#[cfg(any())]
#[differentiable]
fn from_fn_returned(x: &[f64]) -> [f64; 3] {
    let p = core::array::from_fn(|i| x[i] * 2.0);
    p
}

#[test]
fn reversed_zip() {
    one_slice_twice!(palindrome_score, palindrome_score_on_duals at [0.3, -1.0, 2.0, 0.5], [0.9]);
    one_slice_twice!(reversed_left, reversed_left_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(reversed_collect, reversed_collect_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(map_rev_enumerate, map_rev_enumerate_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(map_skip_zip, map_skip_zip_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(map_step_sum, map_step_sum_on_duals at [0.3, -1.0, 2.0, 0.5, 0.2]);
    one_slice_twice!(map_take_for, map_take_for_on_duals at [0.3, -1.0, 2.0, 0.5]);
    one_slice_twice!(reversed_right_mapped, reversed_right_mapped_on_duals at [0.3, -1.0, 2.0]);
}
