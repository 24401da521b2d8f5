//! [`Primal`]: what the backward rules compute with, and its implementation on plain `f32`
//! and `f64` (plain arithmetic, for the tape-free gradients `#[differentiable]` generates;
//! `Tensor`'s, with recordable ops, is in the ops floor). Also the numeric kernels the plain
//! implementation and the ops share.
//!
//! Writing each rule once, generic over `Primal`, is what lets the tape and the macro share
//! it: the tape calls `vjp::sin::<Tensor<T>>`, generated scalar code calls `vjp::sin::<f64>`.

use crate::base::dtype::Float;

/// A value the backward rules compute with: a float [`Tensor`](crate::Tensor) or a plain `f32`/`f64`.
///
/// Its functions are the few operations rules need; on tensors they are the recorded ops of
/// the same names. They are associated functions (`Primal::scale(&x, 2.0)`), not methods:
/// rustc suggests importing a trait whose *method* matches a name a user mistyped on `f64` or
/// `Tensor` (`x.sigmoid()`), and these rule helpers must not appear in such suggestions. The
/// runtime's own rules call them with method syntax through a crate-private extension trait.
///
/// ```
/// use gradtape_runtime::{Primal, Tensor, vjp};
/// // d/dx sin x = cos x, on a plain number and on a tensor
/// assert_eq!(vjp::sin(&0.0_f64, &2.0), 2.0);
/// let g = vjp::sin(&Tensor::scalar(0.0_f64), &Tensor::scalar(2.0));
/// assert_eq!(g.to_scalar(), 2.0);
/// assert_eq!(Primal::scale(&3.0_f64, 2.0), 6.0);
/// assert_eq!(Primal::mul_scaled(&3.0_f64, &2.0, 0.5), 3.0);
/// ```
pub trait Primal: Clone {
    /// `x + other` (tensors broadcast).
    fn add(x: &Self, other: &Self) -> Self;
    /// `x - other`.
    fn sub(x: &Self, other: &Self) -> Self;
    /// `x * other`.
    fn mul(x: &Self, other: &Self) -> Self;
    /// `x / other`.
    fn div(x: &Self, other: &Self) -> Self;
    /// `-x`.
    fn neg(x: &Self) -> Self;
    /// `x * c`.
    fn scale(x: &Self, c: f64) -> Self;
    /// `x * other * c`; tensors compute it in one pass.
    fn mul_scaled(x: &Self, other: &Self, c: f64) -> Self {
        Self::scale(&Self::mul(x, other), c)
    }
    /// `1 - x`.
    fn one_minus(x: &Self) -> Self;
    /// `x²`.
    fn square(x: &Self) -> Self;
    /// `xⁿ`.
    fn powi(x: &Self, n: i32) -> Self;
    /// `xᵖ`.
    fn powf(x: &Self, p: f64) -> Self;
    /// `sin x`.
    fn sin(x: &Self) -> Self;
    /// `cos x`.
    fn cos(x: &Self) -> Self;
    /// `1 / (1 + e^-x)`.
    fn sigmoid(x: &Self) -> Self;
    /// `[x > 0]` as 0 or 1: a constant (its own derivative is zero almost everywhere).
    fn positive_mask(x: &Self) -> Self;
    /// The sign of x (0 at 0): a constant.
    fn sign(x: &Self) -> Self;
    /// `[x ≥ other]` as 0 or 1 (tensors broadcast): a constant, the share of the
    /// cotangent the first operand of `max(x, other)` gets.
    fn at_least(x: &Self, other: &Self) -> Self;
    /// Sums a broadcast cotangent back to `like`'s shape (identity on plain numbers).
    fn sum_to_like(x: &Self, like: &Self) -> Self;
}

/// The elementary functions the rules of the trigonometric, hyperbolic, exponential and
/// power families compute with, beyond [`Primal`]'s arithmetic: on tensors the recorded ops
/// of the same names, on plain `f32`/`f64` the standard library's.
///
/// A trait of its own, implemented for every [`Float`] by a blanket impl rather than
/// required by it; its functions are associated functions, as [`Primal`]'s, so that their
/// names (`exp`, `sqrt`...) never compete with `num_traits::Float`'s methods nor appear in
/// rustc's import suggestions.
///
/// ```
/// use gradtape_runtime::{Elementary, Tensor, vjp};
/// assert_eq!(Elementary::sqrt(&4.0_f64), 2.0);
/// assert_eq!(Elementary::hypot(&3.0_f64, &4.0), 5.0);
/// // d/dx asinh x = 1 / √(x² + 1), on a number and on a tensor
/// assert_eq!(vjp::asinh(&0.0_f64, &2.0), 2.0);
/// assert_eq!(vjp::asinh(&Tensor::scalar(0.0_f64), &Tensor::scalar(2.0)).to_scalar(), 2.0);
/// ```
pub trait Elementary: Primal {
    /// `√x`.
    fn sqrt(x: &Self) -> Self;
    /// `eˣ`.
    fn exp(x: &Self) -> Self;
    /// `ln x`.
    fn ln(x: &Self) -> Self;
    /// `sinh x`.
    fn sinh(x: &Self) -> Self;
    /// `cosh x`.
    fn cosh(x: &Self) -> Self;
    /// `√(x² + other²)` without overflow (tensors broadcast).
    fn hypot(x: &Self, other: &Self) -> Self;
    /// `x^other` (tensors broadcast).
    fn pow(x: &Self, other: &Self) -> Self;
    /// The integer `n` with `x % other = x − n·other` (Rust's `%`, truncated division;
    /// tensors broadcast): a constant, whose own derivative is zero almost everywhere (on
    /// tensors it is not recorded). Taken from the remainder the op computes, not from
    /// `trunc(x / other)`, whose rounded quotient can reach the next integer while the
    /// remainder is still on the piece before it, just below `other`:
    ///
    /// ```
    /// use gradtape_runtime::Elementary;
    /// let (x, y) = (119.38069778508886_f64, 4.7752279114035545);
    /// assert_eq!((x / y).trunc(), 25.0); // the quotient rounded up to 25
    /// assert!(x % y > 4.775); // but the remainder is 24's: x − 24·y
    /// assert_eq!(Elementary::rem_quotient(&x, &y), 24.0);
    /// ```
    fn rem_quotient(x: &Self, other: &Self) -> Self;
    /// The integer `q` with `x.rem_euclid(other) = x − q·other` (`div_euclid`'s value, but
    /// taken from the remainder, as [`Elementary::rem_quotient`]): a constant.
    fn rem_euclid_quotient(x: &Self, other: &Self) -> Self;
}

impl<T: Float> Elementary for T {
    #[inline]
    fn sqrt(x: &Self) -> Self {
        num_traits::Float::sqrt(*x)
    }
    #[inline]
    fn exp(x: &Self) -> Self {
        num_traits::Float::exp(*x)
    }
    #[inline]
    fn ln(x: &Self) -> Self {
        num_traits::Float::ln(*x)
    }
    #[inline]
    fn sinh(x: &Self) -> Self {
        num_traits::Float::sinh(*x)
    }
    #[inline]
    fn cosh(x: &Self) -> Self {
        num_traits::Float::cosh(*x)
    }
    #[inline]
    fn hypot(x: &Self, other: &Self) -> Self {
        num_traits::Float::hypot(*x, *other)
    }
    #[inline]
    fn pow(x: &Self, other: &Self) -> Self {
        num_traits::Float::powf(*x, *other)
    }
    #[inline]
    fn rem_quotient(x: &Self, other: &Self) -> Self {
        rem_quotient(*x, *other)
    }
    #[inline]
    fn rem_euclid_quotient(x: &Self, other: &Self) -> Self {
        rem_euclid_quotient(*x, *other)
    }
}

/// [`Primal`]'s functions as methods, for the runtime's own rules (`g.mul_scaled(x, 2.0)`
/// reads as the calculus does). Crate-private, so rustc never suggests it to users; every
/// method forwards to the [`Primal`] function of the same name (those the rules call).
pub(crate) trait PrimalOps: Primal {
    fn add(&self, other: &Self) -> Self {
        Primal::add(self, other)
    }
    fn mul(&self, other: &Self) -> Self {
        Primal::mul(self, other)
    }
    fn div(&self, other: &Self) -> Self {
        Primal::div(self, other)
    }
    fn neg(&self) -> Self {
        Primal::neg(self)
    }
    fn scale(&self, c: f64) -> Self {
        Primal::scale(self, c)
    }
    fn mul_scaled(&self, other: &Self, c: f64) -> Self {
        Primal::mul_scaled(self, other, c)
    }
    fn one_minus(&self) -> Self {
        Primal::one_minus(self)
    }
    fn square(&self) -> Self {
        Primal::square(self)
    }
    fn powi(&self, n: i32) -> Self {
        Primal::powi(self, n)
    }
    fn powf(&self, p: f64) -> Self {
        Primal::powf(self, p)
    }
    fn sin(&self) -> Self {
        Primal::sin(self)
    }
    fn cos(&self) -> Self {
        Primal::cos(self)
    }
    fn sigmoid(&self) -> Self {
        Primal::sigmoid(self)
    }
    fn positive_mask(&self) -> Self {
        Primal::positive_mask(self)
    }
    fn sign(&self) -> Self {
        Primal::sign(self)
    }
    fn at_least(&self, other: &Self) -> Self {
        Primal::at_least(self, other)
    }
}

impl<V: Primal> PrimalOps for V {}

/// [`Elementary`]'s functions as methods, for the runtime's own rules; crate-private as
/// [`PrimalOps`].
pub(crate) trait ElementaryOps: Elementary {
    fn sqrt(&self) -> Self {
        Elementary::sqrt(self)
    }
    fn exp(&self) -> Self {
        Elementary::exp(self)
    }
    fn ln(&self) -> Self {
        Elementary::ln(self)
    }
    fn sinh(&self) -> Self {
        Elementary::sinh(self)
    }
    fn cosh(&self) -> Self {
        Elementary::cosh(self)
    }
    fn hypot(&self, other: &Self) -> Self {
        Elementary::hypot(self, other)
    }
    fn pow(&self, other: &Self) -> Self {
        Elementary::pow(self, other)
    }
    fn rem_quotient(&self, other: &Self) -> Self {
        Elementary::rem_quotient(self, other)
    }
    fn rem_euclid_quotient(&self, other: &Self) -> Self {
        Elementary::rem_euclid_quotient(self, other)
    }
}

impl<V: Elementary> ElementaryOps for V {}

/// The sign of `v`: 0 at 0, and NaN at NaN (as TensorFlow 2 and NumPy: a NaN is never
/// turned into a number).
pub(crate) fn sign_of<T: Float>(v: T) -> T {
    if v > T::ZERO {
        T::ONE
    } else if v < T::ZERO {
        -T::ONE
    } else if v == T::ZERO {
        T::ZERO
    } else {
        v
    }
}

/// `[v > 0]` as 0 or 1 (0 at NaN: the share of the cotangent ReLU passes, TensorFlow's
/// `features > 0`).
pub(crate) fn positive_mask_of<T: Float>(v: T) -> T {
    if v > T::ZERO { T::ONE } else { T::ZERO }
}

/// `[a ≥ b]` as 0 or 1 (0 when either is NaN: TensorFlow's mask for `maximum`'s first
/// operand, which gives the cotangent to the second).
pub(crate) fn at_least<T: Float>(a: T, b: T) -> T {
    if a >= b { T::ONE } else { T::ZERO }
}

/// The larger of two numbers, NaN if either is (`tf.maximum`); on a tie, `a`.
#[inline]
pub(crate) fn maximum<T: Float>(a: T, b: T) -> T {
    if a >= b {
        a
    } else if b > a {
        b
    } else {
        a + b
    }
}

/// The smaller of two numbers, NaN if either is (`tf.minimum`); on a tie, `a`.
#[inline]
pub(crate) fn minimum<T: Float>(a: T, b: T) -> T {
    if a <= b {
        a
    } else if b < a {
        b
    } else {
        a + b
    }
}

/// Euclid's remainder, `0 ≤ r < |b|` (or `|b|` itself by rounding), as `f64::rem_euclid`
/// computes it, for `num_traits::Float`, which has none: the truncated remainder, moved
/// up by `|b|` when negative.
#[inline]
pub(crate) fn rem_euclid_value<T: Float>(a: T, b: T) -> T {
    let r = a % b;
    if r < T::ZERO { r + b.abs() } else { r }
}

/// The integer `n` of `a % b = a − n·b`. `fmod` is exact, so `a − r` is `n·b` up to one
/// rounding and its quotient by `b` is `n` up to another: rounded to the nearest integer
/// it is `n` exactly below 2⁵¹ (and within a relative 2⁻⁵² above). At `b = ±∞` (`r = a`)
/// it is 0; where `a % b` is NaN (`b = 0`, `a` infinite) it is NaN.
#[inline]
pub(crate) fn rem_quotient<T: Float>(a: T, b: T) -> T {
    ((a - a % b) / b).round()
}

/// The integer `q` of `a.rem_euclid(b) = a − q·b`, as [`rem_quotient`]: `div_euclid`'s
/// value wherever that agrees with the remainder. (The remainder's `+ |b|` is rounded, so
/// `a − r` is `q·b` within a rounding of `|b|`'s size: still `q` once rounded.)
#[inline]
pub(crate) fn rem_euclid_quotient<T: Float>(a: T, b: T) -> T {
    ((a - rem_euclid_value(a, b)) / b).round()
}

/// `max(v, 0)`, NaN at NaN (`tf.nn.relu`).
#[inline]
pub(crate) fn relu_value<T: Float>(v: T) -> T {
    if v < T::ZERO { T::ZERO } else { v }
}

macro_rules! scalar_primal {
    ($($t:ty),*) => {$(
        impl Primal for $t {
            #[inline] fn add(x: &Self, other: &Self) -> Self { x + other }
            #[inline] fn sub(x: &Self, other: &Self) -> Self { x - other }
            #[inline] fn mul(x: &Self, other: &Self) -> Self { x * other }
            #[inline] fn div(x: &Self, other: &Self) -> Self { x / other }
            #[inline] fn neg(x: &Self) -> Self { -x }
            #[inline] fn scale(x: &Self, c: f64) -> Self { x * c as $t }
            #[inline] fn one_minus(x: &Self) -> Self { 1.0 - x }
            #[inline] fn square(x: &Self) -> Self { x * x }
            #[inline] fn powi(x: &Self, n: i32) -> Self { <$t>::powi(*x, n) }
            #[inline] fn powf(x: &Self, p: f64) -> Self { <$t>::powf(*x, p as $t) }
            #[inline] fn sin(x: &Self) -> Self { <$t>::sin(*x) }
            #[inline] fn cos(x: &Self) -> Self { <$t>::cos(*x) }
            #[inline] fn sigmoid(x: &Self) -> Self { sigmoid_value(*x) }
            #[inline] fn positive_mask(x: &Self) -> Self { positive_mask_of(*x) }
            #[inline] fn sign(x: &Self) -> Self { sign_of(*x) }
            #[inline] fn at_least(x: &Self, other: &Self) -> Self { at_least(*x, *other) }
            #[inline] fn sum_to_like(x: &Self, _like: &Self) -> Self { *x }
        }
    )*};
}

scalar_primal!(f32, f64);

/// The logistic sigmoid of one number, without overflow for either sign.
pub(crate) fn sigmoid_value<T: Float>(v: T) -> T {
    if v >= T::ZERO {
        T::ONE / (T::ONE + (-v).exp())
    } else {
        let e = v.exp();
        e / (T::ONE + e)
    }
}

/// `ln(1 + eˣ)` of one number, without overflow.
pub(crate) fn softplus_value<T: Float>(v: T) -> T {
    // ln(1 + eˣ) = max(x, 0) + ln(1 + e^-|x|)
    v.max(T::ZERO) + (-v.abs()).exp().ln_1p()
}
