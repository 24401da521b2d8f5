//! Dual numbers for the fallback of `#[differentiable(plain(helper))]`: a plain helper,
//! generic over `num_traits::Float` and not annotated, runs unchanged on [`Dual`] numbers
//! that carry the derivatives of each value along the call's `N` differentiable arguments
//! (forward mode by operator overloading). One evaluation gives the value and every
//! partial derivative, exactly (no differences); the caller's pullback multiplies them by
//! the result's cotangent ([`dual_vjp`]), its tangent code takes their combination along
//! the arguments' tangents ([`dual_jvp`]).
//!
//! Each derivative follows the runtime's rule of the same op (TensorFlow's conventions):
//! `max`/`min` give a tie to their first operand, `abs` has derivative 0 at 0, `powf`'s
//! derivative in its exponent is 0 where the base is not positive, and the rounding family
//! (`floor`, `ceil`, `round`, `trunc`, `signum`) has derivative 0. Comparisons and
//! predicates read the value alone, so a helper's branches go as on plain numbers.

use std::cmp::Ordering;
use std::fmt;
use std::iter::{Product, Sum};
use std::num::FpCategory;
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use num_traits::{Float as NumFloat, FloatConst, Num, NumCast, One, ToPrimitive, Zero};

use crate::base::dtype::Float;

/// A number with its derivatives along `N` directions: `value + Σ partials[i] εᵢ` with
/// `εᵢ εⱼ = 0`. It implements `num_traits::Float` and `FloatConst`, so generic numeric code
/// runs on it unchanged and carries its derivatives along.
///
/// ```
/// use gradtape_runtime::generated::Dual;
/// use num_traits::Float;
///
/// fn softplus<T: Float>(x: T) -> T {
///     (T::one() + x.exp()).ln()
/// }
///
/// let x = Dual::<f64, 1>::variable(0.5, 0);
/// let y = softplus(x);
/// assert_eq!(y.value, softplus(0.5));
/// let logistic = 1.0 / (1.0 + (-0.5_f64).exp());
/// assert!((y.partials[0] - logistic).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Dual<T, const N: usize> {
    /// The value.
    pub value: T,
    /// The derivative along each of the `N` directions.
    pub partials: [T; N],
}

impl<T: Float, const N: usize> Dual<T, N> {
    /// A constant: every partial zero.
    ///
    /// ```
    /// use gradtape_runtime::generated::Dual;
    /// assert_eq!(Dual::<f64, 2>::constant(3.0).partials, [0.0, 0.0]);
    /// ```
    #[inline]
    pub fn constant(value: T) -> Self {
        Dual {
            value,
            partials: [T::zero(); N],
        }
    }

    /// The `index`-th of `N` independent variables: partial 1 along `index`, 0 elsewhere.
    ///
    /// # Panics
    /// If `index >= N`.
    ///
    /// ```
    /// use gradtape_runtime::generated::Dual;
    /// assert_eq!(Dual::<f64, 2>::variable(3.0, 1).partials, [0.0, 1.0]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn variable(value: T, index: usize) -> Self {
        assert!(index < N, "Dual::variable: direction {index} of {N}");
        let mut partials = [T::zero(); N];
        partials[index] = T::one();
        Dual { value, partials }
    }

    /// `f(self)` with derivative `derivative` at `self`: the chain rule.
    #[inline]
    fn chain(self, value: T, derivative: T) -> Self {
        Dual {
            value,
            partials: self.partials.map(|p| p * derivative),
        }
    }

    /// `f(self, other)` with partial derivatives `da`, `db`.
    #[inline]
    fn chain2(self, other: Self, value: T, da: T, db: T) -> Self {
        let mut partials = self.partials;
        for (p, q) in partials.iter_mut().zip(other.partials) {
            *p = *p * da + q * db;
        }
        Dual { value, partials }
    }

    /// One of two operands, with its partials (a selection's derivative).
    #[inline]
    fn select(first: bool, a: Self, b: Self, value: T) -> Self {
        let partials = if first { a.partials } else { b.partials };
        Dual { value, partials }
    }
}

/// The partials of a plain helper's result, and what its caller's adjoint and tangent code
/// read from them: [`Dual`] for a float result, a tuple of them for a tuple result.
#[diagnostic::on_unimplemented(
    message = "this plain helper returns `{Self}` on dual numbers, not `Dual` numbers: it is not generic over the float type",
    label = "a plain helper (named in `plain(..)`) runs on dual numbers",
    note = "a plain helper must be generic over `num_traits::Float` (`fn helper<T: Float>(x: T) -> T`), returning that type or a tuple of it; otherwise annotate it with #[differentiable] and drop it from `plain(..)`"
)]
pub trait DualResult<T, const N: usize> {
    /// The result on plain numbers (`T`, or a tuple of `T`).
    type Value;
    /// The result's cotangent as a caller's adjoint gives it: `T` for a float result, a
    /// tuple of `Option<T>` (one per part, `None` for an unused part) for a tuple.
    type Cotangent;
    /// The result's tangent along a direction (`N` = 1): `T`, or a tuple of `T`.
    type Tangent;
    /// The value.
    fn value(&self) -> Self::Value;
    /// The cotangent of each of the `N` arguments: `Σ_k g_k ∂result_k/∂argument`.
    fn pullback(&self, cotangent: Self::Cotangent) -> [T; N];
    /// The tangent: the single partial of each part.
    fn tangent(&self) -> Self::Tangent;
}

impl<T: Float, const N: usize> DualResult<T, N> for Dual<T, N> {
    type Value = T;
    type Cotangent = T;
    type Tangent = T;
    #[inline]
    fn value(&self) -> T {
        self.value
    }
    #[inline]
    fn pullback(&self, cotangent: T) -> [T; N] {
        self.partials.map(|p| cotangent * p)
    }
    #[inline]
    fn tangent(&self) -> T {
        self.partials.first().copied().unwrap_or_else(T::zero)
    }
}

macro_rules! dual_tuple {
    ($(($part:ident, $k:tt)),+) => {
        impl<T: Float, const N: usize> DualResult<T, N> for ($(dual_tuple!(@dual $part),)+) {
            type Value = ($(dual_tuple!(@plain $part),)+);
            type Cotangent = ($(Option<dual_tuple!(@plain $part)>,)+);
            type Tangent = ($(dual_tuple!(@plain $part),)+);
            #[inline]
            fn value(&self) -> Self::Value {
                ($(self.$k.value,)+)
            }
            #[inline]
            fn pullback(&self, cotangent: Self::Cotangent) -> [T; N] {
                let mut total = [T::zero(); N];
                $(
                    if let Some(g) = cotangent.$k {
                        for (t, p) in total.iter_mut().zip(self.$k.partials) {
                            *t += g * p;
                        }
                    }
                )+
                total
            }
            #[inline]
            fn tangent(&self) -> Self::Tangent {
                ($(DualResult::tangent(&self.$k),)+)
            }
        }
    };
    (@dual $part:ident) => { Dual<T, N> };
    (@plain $part:ident) => { T };
}

dual_tuple!((a, 0), (b, 1));
dual_tuple!((a, 0), (b, 1), (c, 2));
dual_tuple!((a, 0), (b, 1), (c, 2), (d, 3));

/// A plain helper's call, for a caller's `vjp`: runs `f` once on the `N` differentiable
/// arguments as independent [`Dual`] variables and returns the value with the result's
/// partials (a [`DualResult`], whose `pullback` the caller's adjoint calls).
///
/// ```
/// use gradtape_runtime::generated::{DualResult, dual_vjp};
/// use num_traits::Float;
///
/// fn area<T: Float>(w: T, h: T) -> T {
///     w * h
/// }
/// let (value, result) = dual_vjp([2.0_f64, 5.0], |[w, h]| area(w, h));
/// assert_eq!(value, 10.0);
/// assert_eq!(result.pullback(1.0), [5.0, 2.0]);
/// ```
#[inline]
pub fn dual_vjp<T: Float, const N: usize, R: DualResult<T, N>>(
    arguments: [T; N],
    f: impl FnOnce([Dual<T, N>; N]) -> R,
) -> (R::Value, R) {
    let mut index = 0;
    let duals = arguments.map(|value| {
        let dual = Dual::variable(value, index);
        index += 1;
        dual
    });
    let result = f(duals);
    (result.value(), result)
}

/// A plain helper's call, for a caller's tangent code: runs `f` once on the `N`
/// differentiable arguments, each a [`Dual`] whose one partial is its tangent, and returns
/// the value and the result's tangent (the directional derivative).
///
/// ```
/// use gradtape_runtime::generated::dual_jvp;
/// use num_traits::Float;
///
/// fn area<T: Float>(w: T, h: T) -> T {
///     w * h
/// }
/// // d(w h) = h dw + w dh
/// let (value, tangent) = dual_jvp([2.0_f64, 5.0], [1.0, 0.5], |[w, h]| area(w, h));
/// assert_eq!((value, tangent), (10.0, 6.0));
/// ```
#[inline]
pub fn dual_jvp<T: Float, const N: usize, R: DualResult<T, 1>>(
    arguments: [T; N],
    tangents: [T; N],
    f: impl FnOnce([Dual<T, 1>; N]) -> R,
) -> (R::Value, R::Tangent) {
    let mut duals = [Dual::constant(T::zero()); N];
    for ((dual, value), tangent) in duals.iter_mut().zip(arguments).zip(tangents) {
        *dual = Dual {
            value,
            partials: [tangent],
        };
    }
    let result = f(duals);
    (result.value(), result.tangent())
}

/// A constant argument of a plain helper, as the helper's parameter takes it: a float of
/// the caller's type becomes a constant [`Dual`] where the parameter is the helper's float
/// type, and anything else (integers, flags, configurations, a float parameter of a fixed
/// type) is passed as it is. Which one is decided by the parameter's type, by inference.
///
/// ```
/// use gradtape_runtime::generated::{Dual, IntoParameter};
///
/// fn scaled<T: num_traits::Float>(x: T, k: T, times: usize) -> T {
///     x * k * T::from(times).unwrap()
/// }
/// let x = Dual::<f64, 1>::variable(2.0, 0);
/// let y = scaled(x, IntoParameter::into_parameter(3.0_f64), IntoParameter::into_parameter(2_usize));
/// assert_eq!((y.value, y.partials), (12.0, [6.0]));
/// ```
pub trait IntoParameter<Target> {
    /// The argument as the parameter takes it.
    fn into_parameter(self) -> Target;
}

impl<T: Float, const N: usize> IntoParameter<Dual<T, N>> for T {
    #[inline]
    fn into_parameter(self) -> Dual<T, N> {
        Dual::constant(self)
    }
}

impl<X> IntoParameter<X> for X {
    #[inline]
    fn into_parameter(self) -> X {
        self
    }
}

// ----- arithmetic -----

impl<T: Float, const N: usize> Add for Dual<T, N> {
    type Output = Self;
    #[inline]
    fn add(self, other: Self) -> Self {
        let mut partials = self.partials;
        for (p, q) in partials.iter_mut().zip(other.partials) {
            *p += q;
        }
        Dual {
            value: self.value + other.value,
            partials,
        }
    }
}

impl<T: Float, const N: usize> Sub for Dual<T, N> {
    type Output = Self;
    #[inline]
    fn sub(self, other: Self) -> Self {
        let mut partials = self.partials;
        for (p, q) in partials.iter_mut().zip(other.partials) {
            *p -= q;
        }
        Dual {
            value: self.value - other.value,
            partials,
        }
    }
}

impl<T: Float, const N: usize> Mul for Dual<T, N> {
    type Output = Self;
    #[inline]
    fn mul(self, other: Self) -> Self {
        self.chain2(other, self.value * other.value, other.value, self.value)
    }
}

impl<T: Float, const N: usize> Div for Dual<T, N> {
    type Output = Self;
    #[inline]
    fn div(self, other: Self) -> Self {
        let value = self.value / other.value;
        // d(a/b) = da / b - (a/b) db / b
        self.chain2(other, value, other.value.recip(), -value / other.value)
    }
}

impl<T: Float, const N: usize> Rem for Dual<T, N> {
    type Output = Self;
    /// `a % b = a - n b`, `n = trunc(a / b)`: derivative 1 in `a`, `-n` in `b`, with `n`
    /// taken from the remainder (`trunc` of the rounded quotient can be the next integer
    /// while the remainder is still the piece before's: the derivative of neither side).
    #[inline]
    fn rem(self, other: Self) -> Self {
        let value = self.value % other.value;
        let quotient = ((self.value - value) / other.value).round();
        self.chain2(other, value, T::one(), -quotient)
    }
}

impl<T: Float, const N: usize> Neg for Dual<T, N> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Dual {
            value: -self.value,
            partials: self.partials.map(|p| -p),
        }
    }
}

macro_rules! assign_ops {
    ($(($trait:ident, $method:ident, $op:ident)),+) => {
        $(
            impl<T: Float, const N: usize> $trait for Dual<T, N> {
                #[inline]
                fn $method(&mut self, other: Self) {
                    *self = (*self).$op(other);
                }
            }
        )+
    };
}

assign_ops!(
    (AddAssign, add_assign, add),
    (SubAssign, sub_assign, sub),
    (MulAssign, mul_assign, mul),
    (DivAssign, div_assign, div),
    (RemAssign, rem_assign, rem)
);

impl<T: Float, const N: usize> Sum for Dual<T, N> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::zero(), Add::add)
    }
}

impl<'a, T: Float, const N: usize> Sum<&'a Dual<T, N>> for Dual<T, N> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.copied().sum()
    }
}

impl<T: Float, const N: usize> Product for Dual<T, N> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::one(), Mul::mul)
    }
}

impl<'a, T: Float, const N: usize> Product<&'a Dual<T, N>> for Dual<T, N> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.copied().product()
    }
}

// ----- comparisons read the value -----

impl<T: Float, const N: usize> PartialEq for Dual<T, N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Float, const N: usize> PartialOrd for Dual<T, N> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<T: Float, const N: usize> Default for Dual<T, N> {
    fn default() -> Self {
        Self::zero()
    }
}

impl<T: Float + fmt::Display, const N: usize> fmt::Display for Dual<T, N> {
    /// The value, as a plain number prints (so a helper's messages read as they would).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

// ----- num-traits -----

impl<T: Float, const N: usize> Zero for Dual<T, N> {
    #[inline]
    fn zero() -> Self {
        Self::constant(T::zero())
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.value.is_zero()
    }
}

impl<T: Float, const N: usize> One for Dual<T, N> {
    #[inline]
    fn one() -> Self {
        Self::constant(T::one())
    }
}

impl<T: Float, const N: usize> Num for Dual<T, N> {
    type FromStrRadixErr = T::FromStrRadixErr;
    fn from_str_radix(text: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(text, radix).map(Self::constant)
    }
}

impl<T: Float, const N: usize> ToPrimitive for Dual<T, N> {
    fn to_i64(&self) -> Option<i64> {
        ToPrimitive::to_i64(&self.value)
    }
    fn to_u64(&self) -> Option<u64> {
        ToPrimitive::to_u64(&self.value)
    }
    fn to_i128(&self) -> Option<i128> {
        ToPrimitive::to_i128(&self.value)
    }
    fn to_u128(&self) -> Option<u128> {
        ToPrimitive::to_u128(&self.value)
    }
    fn to_f32(&self) -> Option<f32> {
        ToPrimitive::to_f32(&self.value)
    }
    fn to_f64(&self) -> Option<f64> {
        ToPrimitive::to_f64(&self.value)
    }
}

impl<T: Float, const N: usize> NumCast for Dual<T, N> {
    /// A constant: a number converted from another type carries no derivative.
    fn from<U: ToPrimitive>(n: U) -> Option<Self> {
        <T as NumCast>::from(n).map(Self::constant)
    }
}

macro_rules! float_consts {
    ($($name:ident),+) => {
        impl<T: Float, const N: usize> FloatConst for Dual<T, N> {
            $(
                #[inline]
                fn $name() -> Self {
                    Self::constant(T::$name())
                }
            )+
        }
    };
}

float_consts!(
    E,
    FRAC_1_PI,
    FRAC_1_SQRT_2,
    FRAC_2_PI,
    FRAC_2_SQRT_PI,
    FRAC_PI_2,
    FRAC_PI_3,
    FRAC_PI_4,
    FRAC_PI_6,
    FRAC_PI_8,
    LN_10,
    LN_2,
    LOG10_E,
    LOG2_E,
    PI,
    SQRT_2,
    TAU,
    LOG10_2,
    LOG2_10
);

/// Unary methods whose derivative is a formula in the argument `x` and the value `y`.
macro_rules! unary {
    ($($name:ident(|$x:ident, $y:ident| $derivative:expr);)+) => {
        $(
            #[inline]
            fn $name(self) -> Self {
                let $x = self.value;
                let $y = $x.$name();
                self.chain($y, $derivative)
            }
        )+
    };
}

/// Methods with a constant result: a zero derivative wherever it exists.
macro_rules! rounding {
    ($($name:ident),+) => {
        $(
            #[inline]
            fn $name(self) -> Self {
                Self::constant(self.value.$name())
            }
        )+
    };
}

/// Constants and predicates, of the value.
macro_rules! of_value {
    (constants: $($name:ident),+; predicates: $($pred:ident -> $ret:ty),+;) => {
        $(
            #[inline]
            fn $name() -> Self {
                Self::constant(T::$name())
            }
        )+
        $(
            #[inline]
            fn $pred(self) -> $ret {
                self.value.$pred()
            }
        )+
    };
}

impl<T: Float, const N: usize> NumFloat for Dual<T, N> {
    of_value! {
        constants: nan, infinity, neg_infinity, neg_zero, min_value, min_positive_value,
            epsilon, max_value;
        predicates: is_nan -> bool, is_infinite -> bool, is_finite -> bool, is_normal -> bool,
            is_subnormal -> bool, classify -> FpCategory, is_sign_positive -> bool,
            is_sign_negative -> bool, integer_decode -> (u64, i16, i8);
    }

    rounding!(floor, ceil, round, trunc, signum);

    unary! {
        fract(|_x, _y| T::one());
        recip(|_x, y| -y * y);
        sqrt(|_x, y| (y + y).recip());
        exp(|_x, y| y);
        exp2(|_x, y| y * T::LN_2());
        ln(|x, _y| x.recip());
        log2(|x, _y| (x * T::LN_2()).recip());
        log10(|x, _y| (x * T::LN_10()).recip());
        to_degrees(|_x, _y| T::from(180.0).unwrap() / T::PI());
        to_radians(|_x, _y| T::PI() / T::from(180.0).unwrap());
        cbrt(|_x, y| (T::from(3.0).unwrap() * y * y).recip());
        sin(|x, _y| x.cos());
        cos(|x, _y| -x.sin());
        tan(|_x, y| T::one() + y * y);
        asin(|x, _y| (T::one() - x * x).sqrt().recip());
        acos(|x, _y| -(T::one() - x * x).sqrt().recip());
        atan(|x, _y| (T::one() + x * x).recip());
        exp_m1(|x, _y| x.exp());
        ln_1p(|x, _y| (T::one() + x).recip());
        sinh(|x, _y| x.cosh());
        cosh(|x, _y| x.sinh());
        tanh(|_x, y| T::one() - y * y);
        asinh(|x, _y| (x * x + T::one()).sqrt().recip());
        acosh(|x, _y| (x * x - T::one()).sqrt().recip());
        atanh(|x, _y| (T::one() - x * x).recip());
    }

    /// Derivative `sign(x)`, 0 at 0 (TensorFlow's `abs` rule).
    #[inline]
    fn abs(self) -> Self {
        let x = self.value;
        let sign = if x > T::zero() {
            T::one()
        } else if x < T::zero() {
            -T::one()
        } else {
            T::zero()
        };
        self.chain(x.abs(), sign)
    }

    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        let value = self.value.mul_add(a.value, b.value);
        let mut partials = b.partials;
        for ((p, s), q) in partials.iter_mut().zip(self.partials).zip(a.partials) {
            *p += s * a.value + q * self.value;
        }
        Dual { value, partials }
    }

    #[inline]
    fn powi(self, n: i32) -> Self {
        let x = self.value;
        let derivative = if n == 0 {
            T::zero()
        } else {
            T::from(n).unwrap() * x.powi(n - 1)
        };
        self.chain(x.powi(n), derivative)
    }

    /// `y xʸ⁻¹` in the base; `xʸ ln x` in the exponent where `x > 0`, 0 elsewhere (the
    /// runtime's `pow` rule, TensorFlow's).
    #[inline]
    fn powf(self, n: Self) -> Self {
        let (x, y) = (self.value, n.value);
        let value = x.powf(y);
        let in_base = y * x.powf(y - T::one());
        let in_exponent = if x > T::zero() {
            value * x.ln()
        } else {
            T::zero()
        };
        self.chain2(n, value, in_base, in_exponent)
    }

    #[inline]
    fn log(self, base: Self) -> Self {
        let (x, b) = (self.value, base.value);
        let ln_b = b.ln();
        // ln x / ln b: 1 / (x ln b) in x, -ln x / (b ln² b) in b
        self.chain2(
            base,
            x.log(b),
            (x * ln_b).recip(),
            -x.ln() / (b * ln_b * ln_b),
        )
    }

    /// The larger, as `T::max`; a tie goes to `self` (the runtime's `maximum` rule).
    #[inline]
    fn max(self, other: Self) -> Self {
        let first = other.value.is_nan() || self.value >= other.value;
        Self::select(first, self, other, self.value.max(other.value))
    }

    /// The smaller, as `T::min`; a tie goes to `self` (the runtime's `minimum` rule).
    #[inline]
    fn min(self, other: Self) -> Self {
        let first = other.value.is_nan() || self.value <= other.value;
        Self::select(first, self, other, self.value.min(other.value))
    }

    #[allow(deprecated)]
    #[inline]
    fn abs_sub(self, other: Self) -> Self {
        if self.value <= other.value {
            Self::constant(T::zero())
        } else {
            self - other
        }
    }

    #[inline]
    fn hypot(self, other: Self) -> Self {
        let (x, y) = (self.value, other.value);
        let h = x.hypot(y);
        self.chain2(other, h, x / h, y / h)
    }

    /// `atan2(self = y, other = x)`: `x / (x² + y²)` in `y`, `-y / (x² + y²)` in `x`.
    #[inline]
    fn atan2(self, other: Self) -> Self {
        let (y, x) = (self.value, other.value);
        let r2 = x * x + y * y;
        self.chain2(other, y.atan2(x), x / r2, -y / r2)
    }

    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.value.sin_cos();
        (self.chain(s, c), self.chain(c, -s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central differences of `f` at `x`.
    fn difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
        let h = 1e-6;
        (f(x + h) - f(x - h)) / (2.0 * h)
    }

    #[test]
    fn every_unary_method_against_differences() {
        macro_rules! check {
            ($($name:ident at $x:expr),+ $(,)?) => {
                $(
                    let x: f64 = $x;
                    let dual = Dual::<f64, 1>::variable(x, 0).$name();
                    assert_eq!(dual.value.to_bits(), x.$name().to_bits(), stringify!($name));
                    let expected = difference(|x| x.$name(), x);
                    assert!(
                        (dual.partials[0] - expected).abs() < 1e-7 * (1.0 + expected.abs()),
                        "{}: {} vs {}", stringify!($name), dual.partials[0], expected
                    );
                )+
            };
        }
        check!(
            fract at 2.3, recip at -0.7, sqrt at 1.7, exp at 0.4, exp2 at -1.2, ln at 2.5,
            log2 at 0.8, log10 at 3.0, to_degrees at 0.3, to_radians at 40.0, cbrt at -2.0,
            sin at 0.9, cos at 0.9, tan at 0.6, asin at 0.3, acos at -0.4, atan at 1.7,
            exp_m1 at 0.01, ln_1p at 0.2, sinh at -0.6, cosh at 0.6, tanh at 0.8,
            asinh at 1.1, acosh at 1.6, atanh at 0.5, abs at -0.3, abs at 0.3,
        );
    }

    #[test]
    fn binary_methods_against_differences() {
        let (a, b) = (0.7_f64, 1.9_f64);
        type OnDuals = fn(Dual<f64, 2>, Dual<f64, 2>) -> Dual<f64, 2>;
        type OnNumbers = fn(f64, f64) -> f64;
        let cases: [(&str, OnDuals, OnNumbers); 10] = [
            ("mul", |x, y| x * y, |x, y| x * y),
            ("div", |x, y| x / y, |x, y| x / y),
            ("rem", |x, y| y % x, |x, y| y % x),
            ("powf", |x, y| x.powf(y), |x, y| x.powf(y)),
            ("log", |x, y| y.log(x), |x, y| y.log(x)),
            ("hypot", |x, y| x.hypot(y), |x, y| x.hypot(y)),
            ("atan2", |x, y| x.atan2(y), |x, y| x.atan2(y)),
            ("mul_add", |x, y| x.mul_add(y, x), |x, y| x.mul_add(y, x)),
            ("max", |x, y| x.max(y * x), |x, y| x.max(y * x)),
            ("sub", |x, y| x - y, |x, y| x - y),
        ];
        for (name, dual, plain) in cases {
            let result = dual(Dual::variable(a, 0), Dual::variable(b, 1));
            assert_eq!(result.value.to_bits(), plain(a, b).to_bits(), "{name}");
            let da = difference(|x| plain(x, b), a);
            let db = difference(|y| plain(a, y), b);
            for (got, expected) in result.partials.into_iter().zip([da, db]) {
                assert!((got - expected).abs() < 1e-7, "{name}: {got} vs {expected}");
            }
        }
    }

    #[test]
    fn conventions_of_the_runtime_rules() {
        // a tie of max/min goes to the first operand
        let (x, y) = (Dual::<f64, 2>::variable(1.0, 0), Dual::variable(1.0, 1));
        assert_eq!(x.max(y).partials, [1.0, 0.0]);
        assert_eq!(x.min(y).partials, [1.0, 0.0]);
        // a NaN operand of max is passed over, as f64::max does
        let nan = Dual::<f64, 2>::variable(f64::NAN, 1);
        assert_eq!(x.max(nan).partials, [1.0, 0.0]);
        assert_eq!(nan.max(x).partials, [1.0, 0.0]);
        // abs at 0, the rounding family, powf's exponent at a zero base
        assert_eq!(Dual::<f64, 1>::variable(0.0, 0).abs().partials, [0.0]);
        assert_eq!(Dual::<f64, 1>::variable(2.7, 0).floor().partials, [0.0]);
        assert_eq!(Dual::<f64, 1>::variable(2.7, 0).signum().partials, [0.0]);
        let power = Dual::<f64, 2>::variable(0.0, 0).powf(Dual::variable(2.0, 1));
        assert_eq!(power.partials, [0.0, 0.0]);
        // powi's derivative, n = 0 included
        assert_eq!(Dual::<f64, 1>::variable(3.0, 0).powi(3).partials, [27.0]);
        assert_eq!(Dual::<f64, 1>::variable(3.0, 0).powi(0).partials, [0.0]);
        // `%` a hair below a jump, where the rounded quotient is already the next integer:
        // the remainder is 24's piece, x − 24·y, so its derivative in y is −24, not −25
        let (x, y) = (119.38069778508886_f64, 4.7752279114035545);
        assert_eq!((x / y).trunc(), 25.0);
        let r = Dual::<f64, 2>::variable(x, 0) % Dual::variable(y, 1);
        assert_eq!(r.partials, [1.0, -24.0]);
        assert_eq!(r.value.to_bits(), (x - 24.0 * y).to_bits());
    }

    #[test]
    fn tuple_results_pull_back_their_parts() {
        let (value, result) = dual_vjp([2.0_f64, 3.0], |[a, b]| (a * b, a + b));
        assert_eq!(value, (6.0, 5.0));
        assert_eq!(result.pullback((Some(1.0), None)), [3.0, 2.0]);
        assert_eq!(result.pullback((Some(1.0), Some(2.0))), [5.0, 4.0]);
        let (value, tangent) = dual_jvp([2.0_f64, 3.0], [1.0, 1.0], |[a, b]| (a * b, a - b));
        assert_eq!((value, tangent), ((6.0, -1.0), (5.0, 0.0)));
    }

    #[test]
    fn sums_products_and_casts() {
        let xs = [Dual::<f64, 1>::variable(2.0, 0), Dual::constant(3.0)];
        let sum: Dual<f64, 1> = xs.iter().sum();
        let product: Dual<f64, 1> = xs.into_iter().product();
        assert_eq!((sum.value, sum.partials), (5.0, [1.0]));
        assert_eq!((product.value, product.partials), (6.0, [3.0]));
        let cast = <Dual<f32, 1> as NumCast>::from(2_u8).unwrap();
        assert_eq!((cast.value, cast.partials), (2.0, [0.0]));
        assert_eq!(Dual::<f64, 1>::variable(2.5, 0).to_i64(), Some(2));
    }
}
