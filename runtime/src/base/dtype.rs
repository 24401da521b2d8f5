//! Element types: every [`DType`] can be stored in a tensor; only [`Float`] dtypes can be
//! differentiated.
//!
//! The split is what makes "gradient of an integer" a compile error rather than TensorFlow's
//! silent `None`: every API that watches, targets or sources a gradient is bounded by
//! [`Float`], whose `#[diagnostic::on_unimplemented]` message tells the user to cast.

use std::fmt::{Debug, Display};

use crate::base::tensor::Tensor;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
    impl Sealed for bool {}
}

/// An element type a [`Tensor`] can hold: `f32`, `f64`, `i32`, `i64`, `u8` or `bool`.
///
/// Sealed: the tape relies on knowing every dtype.
///
/// ```
/// use gradtape_runtime::{DType, Tensor};
/// assert_eq!(<i64 as DType>::NAME, "i64");
/// let labels = Tensor::from_vec(vec![3_u8, 1, 4], &[3]);
/// assert_eq!(labels.to_vec(), vec![3, 1, 4]);
/// ```
pub trait DType:
    sealed::Sealed + Copy + Default + PartialEq + PartialOrd + Debug + Display + Send + Sync + 'static
{
    /// The dtype's name as printed by [`Tensor`]'s `Display`, e.g. `"f32"`.
    const NAME: &'static str;
    /// The value zero (`false` for `bool`).
    const ZERO: Self;
    /// The value one (`true` for `bool`).
    const ONE: Self;
    /// Converts to `f64`, exactly for every dtype but `i64` values beyond 2⁵³.
    fn to_f64(self) -> f64;
    /// Converts from `f64`, rounding toward zero for integers (as `as` does).
    fn from_f64(v: f64) -> Self;
}

macro_rules! impl_dtype {
    ($($t:ty => $name:literal, $zero:expr, $one:expr, $to:expr, $from:expr;)*) => {$(
        impl DType for $t {
            const NAME: &'static str = $name;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            #[inline]
            fn to_f64(self) -> f64 { let f: fn($t) -> f64 = $to; f(self) }
            #[inline]
            fn from_f64(v: f64) -> Self { let f: fn(f64) -> $t = $from; f(v) }
        }
    )*};
}

impl_dtype! {
    f32 => "f32", 0.0, 1.0, |v| v as f64, |v| v as f32;
    f64 => "f64", 0.0, 1.0, |v| v, |v| v;
    i32 => "i32", 0, 1, |v| v as f64, |v| v as i32;
    i64 => "i64", 0, 1, |v| v as f64, |v| v as i64;
    u8 => "u8", 0, 1, |v| v as f64, |v| v as u8;
    bool => "bool", false, true, |v| if v { 1.0 } else { 0.0 }, |v| v != 0.0;
}

/// A differentiable dtype: `f32` or `f64`.
///
/// Every API that watches a value or asks for its gradient requires `T: Float`, so asking
/// for the gradient of an integer tensor does not compile:
///
/// ```compile_fail
/// use gradtape_runtime::{GradientTape, Tensor};
/// let labels = Tensor::from_vec(vec![1_i32, 2], &[2]);
/// let tape = GradientTape::new();
/// tape.watch(&labels); // error: gradients need a float dtype
/// ```
#[diagnostic::on_unimplemented(
    message = "gradients need a float dtype (f32 or f64), but this value has dtype `{Self}`",
    label = "`{Self}` values cannot be watched or differentiated",
    note = "integer and bool tensors are data; cast to a float first, e.g. `x.cast::<f32>()`, and differentiate that (the cast itself has no gradient)",
    note = "if `{Self}` is a `Dual`, it is an argument of a helper named in `#[differentiable(plain(..))]`, which runs on dual numbers: bound the helper by `num_traits::Float` rather than `gradtape::Float`, or annotate it with `#[differentiable]` instead of naming it"
)]
pub trait Float:
    DType
    + num_traits::Float
    + num_traits::FloatConst
    + ndarray::ScalarOperand
    + ndarray::LinalgScalar
    // `iter().sum()` / `.product()` over values or references, so that a body generic
    // over the float type compiles as the same body on `f64` does
    + std::iter::Sum
    + for<'a> std::iter::Sum<&'a Self>
    + std::iter::Product
    + for<'a> std::iter::Product<&'a Self>
    + std::ops::AddAssign
    + std::ops::SubAssign
    + std::ops::MulAssign
    + std::ops::DivAssign
    + crate::base::primal::Primal
    // generated code keeps a copy of a float constant it reads (`generated::own`), also in
    // functions generic over the float type
    + crate::generated::Own<Owned = Self>
{
    /// Whether this is `f32` (kept beside values widened to `f64`, as a tape's 0-d
    /// cotangents and an accumulator's 0-d tangents are).
    #[doc(hidden)]
    const SINGLE: bool;
    /// Wraps a typed tensor into the tape's dtype-erased form.
    #[doc(hidden)]
    fn into_any(t: Tensor<Self>) -> AnyTensor;
    /// The typed tensor inside `any`, or `None` if it holds the other float dtype.
    #[doc(hidden)]
    fn from_any(any: &AnyTensor) -> Option<&Tensor<Self>>;
    /// Moves the typed tensor out of `any`, or `None` if it holds the other float dtype.
    #[doc(hidden)]
    fn from_any_owned(any: AnyTensor) -> Option<Tensor<Self>>;
}

impl Float for f32 {
    const SINGLE: bool = true;
    #[inline]
    fn into_any(t: Tensor<Self>) -> AnyTensor {
        AnyTensor::F32(t)
    }
    #[inline]
    fn from_any(any: &AnyTensor) -> Option<&Tensor<Self>> {
        match any {
            AnyTensor::F32(t) => Some(t),
            AnyTensor::F64(_) => None,
        }
    }
    #[inline]
    fn from_any_owned(any: AnyTensor) -> Option<Tensor<Self>> {
        match any {
            AnyTensor::F32(t) => Some(t),
            AnyTensor::F64(_) => None,
        }
    }
}

impl Float for f64 {
    const SINGLE: bool = false;
    #[inline]
    fn into_any(t: Tensor<Self>) -> AnyTensor {
        AnyTensor::F64(t)
    }
    #[inline]
    fn from_any(any: &AnyTensor) -> Option<&Tensor<Self>> {
        match any {
            AnyTensor::F64(t) => Some(t),
            AnyTensor::F32(_) => None,
        }
    }
    #[inline]
    fn from_any_owned(any: AnyTensor) -> Option<Tensor<Self>> {
        match any {
            AnyTensor::F64(t) => Some(t),
            AnyTensor::F32(_) => None,
        }
    }
}

/// A float tensor of either dtype: how the tape stores values of mixed-precision graphs
/// (an `f32 → f64` cast records one node whose input and output differ in dtype).
///
/// ```
/// use gradtape_runtime::{AnyTensor, Tensor};
/// let any = AnyTensor::from(Tensor::scalar(2.0_f64));
/// assert_eq!(any.dtype(), "f64");
/// assert_eq!(any.shape(), &[] as &[usize]);
/// ```
#[derive(Clone, Debug)]
pub enum AnyTensor {
    /// An `f32` tensor.
    F32(Tensor<f32>),
    /// An `f64` tensor.
    F64(Tensor<f64>),
}

impl AnyTensor {
    /// The name of the dtype held, `"f32"` or `"f64"`.
    pub fn dtype(&self) -> &'static str {
        match self {
            AnyTensor::F32(_) => "f32",
            AnyTensor::F64(_) => "f64",
        }
    }

    /// The shape of the tensor held.
    pub fn shape(&self) -> &[usize] {
        match self {
            AnyTensor::F32(t) => t.shape(),
            AnyTensor::F64(t) => t.shape(),
        }
    }

    /// The typed tensor, panicking with the dtypes involved if it holds the other dtype:
    /// the tape only pairs values whose dtypes were fixed when the op was recorded.
    #[track_caller]
    pub(crate) fn typed<T: Float>(&self) -> &Tensor<T> {
        T::from_any(self).unwrap_or_else(|| {
            panic!(
                "gradtape internal: expected an {} tensor, found {}",
                T::NAME,
                self.dtype()
            )
        })
    }

    pub(crate) fn id(&self) -> crate::base::tensor::TensorId {
        match self {
            AnyTensor::F32(t) => t.id(),
            AnyTensor::F64(t) => t.id(),
        }
    }

    /// A tensor of ones with this tensor's shape and dtype (the default seed of a target).
    pub(crate) fn ones_like(&self) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(Tensor::ones(t.shape())),
            AnyTensor::F64(t) => AnyTensor::F64(Tensor::ones(t.shape())),
        }
    }

    /// A tensor of zeros with this tensor's shape and dtype.
    pub(crate) fn zeros_like(&self) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(Tensor::zeros(t.shape())),
            AnyTensor::F64(t) => AnyTensor::F64(Tensor::zeros(t.shape())),
        }
    }
}

impl<T: Float> From<Tensor<T>> for AnyTensor {
    fn from(t: Tensor<T>) -> Self {
        T::into_any(t)
    }
}

impl std::fmt::Display for AnyTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyTensor::F32(t) => Display::fmt(t, f),
            AnyTensor::F64(t) => Display::fmt(t, f),
        }
    }
}

/// Whether `T` is a differentiable dtype (`f32` or `f64`); folded to a constant per
/// instantiation.
pub(crate) fn is_float<T: DType>() -> bool {
    use std::any::TypeId;
    TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>()
}
