//! `Tensor`'s implementation of [`Primal`]: each method a recorded op, so a rule run while
//! an outer tape records is itself recorded (higher order needs nothing else).

use crate::base::dtype::Float;
use crate::base::primal::{Elementary, Primal};
use crate::base::primal::{at_least, positive_mask_of, rem_euclid_quotient, rem_quotient, sign_of};
use crate::base::tensor::Tensor;

impl<T: Float> Primal for Tensor<T> {
    fn add(x: &Self, other: &Self) -> Self {
        x + other
    }
    fn sub(x: &Self, other: &Self) -> Self {
        x - other
    }
    fn mul(x: &Self, other: &Self) -> Self {
        x * other
    }
    fn div(x: &Self, other: &Self) -> Self {
        x / other
    }
    fn neg(x: &Self) -> Self {
        -x
    }
    fn scale(x: &Self, c: f64) -> Self {
        x * T::from_f64(c)
    }
    fn mul_scaled(x: &Self, other: &Self, c: f64) -> Self {
        super::binary::mul_scaled(x, other, c)
    }
    fn one_minus(x: &Self) -> Self {
        Tensor::scalar(T::ONE) - x
    }
    fn square(x: &Self) -> Self {
        Tensor::square(x)
    }
    fn powi(x: &Self, n: i32) -> Self {
        Tensor::powi(x, n)
    }
    fn powf(x: &Self, p: f64) -> Self {
        Tensor::powf(x, T::from_f64(p))
    }
    fn sin(x: &Self) -> Self {
        Tensor::sin(x)
    }
    fn cos(x: &Self) -> Self {
        Tensor::cos(x)
    }
    fn sigmoid(x: &Self) -> Self {
        Tensor::sigmoid(x)
    }
    fn positive_mask(x: &Self) -> Self {
        super::piecewise_constant(x, &"positive_mask", positive_mask_of)
    }
    fn sign(x: &Self) -> Self {
        super::piecewise_constant(x, &"sign", sign_of)
    }
    fn at_least(x: &Self, other: &Self) -> Self {
        // An untracked constant, as TensorFlow's `greater_equal` mask in the rule of
        // `maximum`: a second derivative through it is `None`, TensorFlow's answer too.
        Tensor::from_data(super::zip_broadcast(x, other, "maximum", at_least))
    }
    fn sum_to_like(x: &Self, like: &Self) -> Self {
        x.sum_to_shape(like.shape())
    }
}

impl<T: Float> Elementary for Tensor<T> {
    fn sqrt(x: &Self) -> Self {
        Tensor::sqrt(x)
    }
    fn exp(x: &Self) -> Self {
        Tensor::exp(x)
    }
    fn ln(x: &Self) -> Self {
        Tensor::ln(x)
    }
    fn sinh(x: &Self) -> Self {
        Tensor::sinh(x)
    }
    fn cosh(x: &Self) -> Self {
        Tensor::cosh(x)
    }
    fn hypot(x: &Self, other: &Self) -> Self {
        Tensor::hypot(x, other)
    }
    fn pow(x: &Self, other: &Self) -> Self {
        Tensor::pow(x, other)
    }
    fn rem_quotient(x: &Self, other: &Self) -> Self {
        // an untracked constant, as `at_least`'s mask: TensorFlow's `floor_div` in the
        // rule of `floormod` has no gradient either
        Tensor::from_data(super::zip_broadcast(x, other, "rem", rem_quotient))
    }
    fn rem_euclid_quotient(x: &Self, other: &Self) -> Self {
        Tensor::from_data(super::zip_broadcast(
            x,
            other,
            "rem_euclid",
            rem_euclid_quotient,
        ))
    }
}
