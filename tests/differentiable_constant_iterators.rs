//! Reductions over ranges and iterators of constants that carry a differentiable value:
//! `(0..n).fold(x, |acc, _| acc.cos())`, `weights.iter().fold(x, ..)` of a `&[usize]`,
//! `coefficients.iter().map(|&k| k as f64 * x).sum()`. The iterator desugaring takes only
//! float arrays' chains; these became loops (`rewrite::reductions_as_loops`) where a fold
//! was rustc's E0599 (the call taken for an annotated method of the receiver) and a sum
//! the macro's "not a differentiable method". Each is checked against dual numbers and
//! central differences at orders 1 and 2 (`twice!`).

#[macro_use]
mod common;

use gradtape::differentiable;

twice! {
    /// A damped fixed-point iteration, `n` steps of a map: a fold over a range whose item
    /// is unused (regression: `(0..n).fold(..)` was rustc's E0599 on `fold_vjp_partial`).
    fn damped_iteration / damped_iteration_on_duals<T>(x: &[T], steps: &usize) -> T {
        (0..*steps).fold(x[0], |acc, _| acc.cos() * x[1] + x[0])
    }
}

twice! {
    /// A rising factorial `x (x + 1) .. (x + n - 1)`: a map over a range, then a fold.
    fn rising_factorial / rising_factorial_on_duals<T>(x: &[T], n: &usize) -> T {
        (0..*n).map(|i| x[0] + T::from(i).unwrap()).fold(T::one(), |a, b| a * b) * x[1]
    }
}

twice! {
    /// Horner's rule over integer coefficients held by the caller: a fold over a slice of
    /// integers, its item a reference pattern.
    fn integer_horner / integer_horner_on_duals<T>(x: &[T], coefficients: &[i32]) -> T {
        coefficients
            .iter()
            .rev()
            .fold(T::zero(), |acc, &c| acc * x[0] + T::from(c).unwrap() * x[1])
    }
}

twice! {
    /// A weighted sum of powers with integer exponents: a map then a sum over a slice of
    /// integers, beside a count that stays an integer.
    fn weighted_powers / weighted_powers_on_duals<T>(x: &[T], exponents: &[i32]) -> T {
        let total: T = exponents.iter().map(|&k| x[0].powi(k) * x[1]).sum();
        let degree: i32 = exponents.iter().map(|k| k * 2).sum();
        total * T::from(degree).unwrap()
    }
}

twice! {
    /// A product of squared sines at integer frequencies: two maps fused, then a product
    /// with its type written.
    fn sine_product / sine_product_on_duals<T>(x: &[T], frequencies: &[i32]) -> T {
        frequencies
            .iter()
            .map(|&k| (T::from(k).unwrap() * x[0]).sin())
            .map(|s| s * s + x[1])
            .product::<T>()
    }
}

#[test]
fn fold_over_a_range_or_constant_iterator_with_a_differentiable_accumulator() {
    with_constant_twice!(damped_iteration, damped_iteration_on_duals, &5,
        at [0.7, 0.4], [-0.3, 1.2]);
    with_constant_twice!(rising_factorial, rising_factorial_on_duals, &4,
        at [0.7, 0.4], [-2.3, 1.2]);
    with_constant_twice!(integer_horner, integer_horner_on_duals, &[3, -1, 4, 2][..],
        at [0.7, 0.4], [-1.3, 1.2]);
}

#[test]
fn sums_and_products_of_maps_over_constant_iterators() {
    with_constant_twice!(weighted_powers, weighted_powers_on_duals, &[1, 2, 5][..],
        at [0.7, 0.4], [-1.3, 1.2]);
    with_constant_twice!(sine_product, sine_product_on_duals, &[1, 2, 3][..],
        at [0.7, 0.4], [-1.3, 1.2]);
}
