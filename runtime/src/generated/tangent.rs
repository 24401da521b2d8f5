//! What the tangent code (`f::jvp`) of a `#[differentiable]` function calls besides the
//! elementwise rules: a typed zero, the per-argument tangents of a call of another
//! annotated function (scalar mode), whose signature the caller's macro cannot see, and in
//! tensor mode broadcasting and the tangents of calls run under an accumulator.

use crate::base::dtype::AnyTensor;
use crate::base::dtype::Float;
use crate::base::tensor::Tensor;
use crate::base::tensor::TensorId;
use crate::tape::forward::ForwardAccumulator;

/// The tangent of a value computed from constants alone: zero, of the value's own type
/// (so that an unsuffixed literal's type is still inferred from its uses), and for a
/// tensor of its shape.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::zero_like};
/// let acc = 0.5_f32;
/// assert_eq!(zero_like(&acc), 0.0_f32);
/// let t = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// assert_eq!(zero_like(&t).to_vec(), vec![0.0, 0.0]);
/// ```
#[inline]
pub fn zero_like<V: ZeroTangent>(value: &V) -> V {
    value.zero_tangent()
}

/// A value that has a zero tangent of its own type: a float, or a float tensor.
pub trait ZeroTangent {
    /// The zero of this value's type (and shape).
    fn zero_tangent(&self) -> Self;
}

impl<T: Float> ZeroTangent for T {
    #[inline]
    fn zero_tangent(&self) -> T {
        T::zero()
    }
}

impl<T: Float> ZeroTangent for Tensor<T> {
    fn zero_tangent(&self) -> Tensor<T> {
        Tensor::zeros(self.shape())
    }
}

/// The tangent of a value computed from constants alone in tensor-mode tangent code: none
/// (a symbolic zero), typed as the value.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::no_tangent};
/// assert!(no_tangent(&Tensor::scalar(1.0_f32)).is_none());
/// ```
#[inline]
pub fn no_tangent<T: Float>(_value: &Tensor<T>) -> Option<Tensor<T>> {
    None
}

/// A result's tangent as `f::jvp` returns it: zeros of the value's shape for a symbolic
/// zero.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::tangent_or_zeros};
/// let value = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// assert_eq!(tangent_or_zeros(None, &value).to_vec(), vec![0.0, 0.0]);
/// ```
#[inline]
pub fn tangent_or_zeros<T: Float>(tangent: Option<Tensor<T>>, value: &Tensor<T>) -> Tensor<T> {
    tangent.unwrap_or_else(|| Tensor::zeros(value.shape()))
}

/// The sum of two terms of a tangent, either of which may be a symbolic zero.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::sum_tangents};
/// let t = || Some(Tensor::scalar(2.0_f64));
/// assert_eq!(sum_tangents(t(), t()).unwrap().to_scalar(), 4.0);
/// assert_eq!(sum_tangents(None, t()).unwrap().to_scalar(), 2.0);
/// assert!(sum_tangents::<f64>(None, None).is_none());
/// ```
#[inline]
pub fn sum_tangents<T: Float>(a: Option<Tensor<T>>, b: Option<Tensor<T>>) -> Option<Tensor<T>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The tangent of a binary op's result in tensor mode, from its operands' terms: the sum
/// of the terms has the broadcast shape of the operands that have tangents, which is the
/// result's own unless a constant operand broadcast the result wider (`x + c`, `c` of a
/// larger shape): then the tangent is broadcast to it, as the value was.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::broadcast_tangent};
/// let value = Tensor::<f64>::zeros(&[2, 2]);
/// let tangent = broadcast_tangent(Some(Tensor::from_vec(vec![1.0, 2.0], &[2])), &value);
/// assert_eq!(tangent.unwrap().to_vec(), vec![1.0, 2.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn broadcast_tangent<T: Float>(
    tangent: Option<Tensor<T>>,
    value: &Tensor<T>,
) -> Option<Tensor<T>> {
    let tangent = tangent?;
    Some(if tangent.shape() == value.shape() {
        tangent
    } else {
        tangent.broadcast_to(value.shape())
    })
}

/// The value and tangent of one call that tensor-mode tangent code differentiates
/// dynamically (a tensor op with no elementwise rule, such as `matmul` or `sum_axis`, or a
/// call of a function built from gradtape ops): run under a
/// [`ForwardAccumulator`](crate::ForwardAccumulator) of its own, with `tangents` (a tuple,
/// one `Option` per input) as the tangents of `inputs`, so the tangent comes from the
/// runtime's own JVP rules. Inputs without a tangent are constants of the call; with none
/// at all the call runs plainly. A result that does not depend on an input with a tangent
/// has none.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let dx = Tensor::from_vec(vec![0.5_f64, -1.0], &[2]);
/// // d Σ x² = Σ 2x dx
/// let (total, tangent) = generated::trace_jvp((x.clone(),), (Some(dx),), || x.square().sum());
/// assert_eq!((total.to_scalar(), tangent.unwrap().to_scalar()), (5.0, 2.0 * 0.5 - 4.0));
/// ```
///
/// # Panics
/// If a tangent's shape or dtype is not its input's (a bug in the generated code: never
/// passed on silently).
#[track_caller]
pub fn trace_jvp<I, U: Float>(
    inputs: I,
    tangents: impl TraceTangents<I>,
    f: impl FnOnce() -> Tensor<U>,
) -> (Tensor<U>, Option<Tensor<U>>) {
    let mut pairs = Vec::new();
    tangents.pair_with(&inputs, &mut pairs);
    if pairs.is_empty() {
        return (f(), None);
    }
    let accumulator = ForwardAccumulator::from_tangents(pairs);
    let value = accumulator.record(f);
    let tangent = accumulator.jvp(&value);
    (value, tangent)
}

/// The tangents of a [`trace_jvp`] call's inputs: a tuple of `Option<Tensor<_>>`, one per
/// input of the tuple `I`.
pub trait TraceTangents<I> {
    /// Each tangent that is present, by its input's id.
    ///
    /// # Panics
    /// If a tangent's shape is not its input's.
    fn pair_with(self, inputs: &I, pairs: &mut Vec<(TensorId, AnyTensor)>);
}

macro_rules! trace_tangents {
    ($(($name:ident, $input:ident, $tangent:ident)),+) => {
        impl<$($name: Float),+> TraceTangents<($(Tensor<$name>,)+)> for ($(Option<Tensor<$name>>,)+) {
            #[track_caller]
            fn pair_with(self, inputs: &($(Tensor<$name>,)+), pairs: &mut Vec<(TensorId, AnyTensor)>) {
                let ($($input,)+) = inputs;
                let ($($tangent,)+) = self;
                $(
                    if let Some(tangent) = $tangent {
                        assert!(
                            tangent.has_shape($input.shape()),
                            "#[differentiable] tangent code: a tangent of shape {:?} for a value of shape {:?}",
                            tangent.shape(),
                            $input.shape()
                        );
                        pairs.push(($input.id(), $name::into_any(tangent)));
                    }
                )+
            }
        }
    };
}

for_each_arity!(trace_tangents);

/// The tangent a caller passes for an argument that carries none: a constant given to a
/// float parameter (its tangent is zero) or any argument of a data parameter.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTangent;

/// What `f::jvp_call` takes for a parameter `f` holds constant: anything, ignored. A
/// caller gives [`NoTangent`], or, passing a differentiable value there, its tangent: that
/// caller's adjoint is then [`Entry`](super::Entry)'s message at the argument (the
/// gradient would be lost), so the tangent dropped here is never a result.
///
/// ```
/// use gradtape_runtime::generated::{ConstantTangent, NoTangent};
/// fn takes(_: impl ConstantTangent) {}
/// takes(NoTangent);
/// ```
pub trait ConstantTangent {}

impl<T: ?Sized> ConstantTangent for T {}

/// A tangent argument of `f::jvp_call` for a float parameter of element type `T`: the
/// tangent itself, or [`NoTangent`] for a constant argument.
///
/// ```
/// use gradtape_runtime::generated::{NoTangent, TangentArg};
/// assert_eq!(TangentArg::<f64>::tangent(2.0_f64), 2.0);
/// assert_eq!(TangentArg::<f64>::tangent(NoTangent), 0.0);
/// ```
pub trait TangentArg<T> {
    /// The tangent as a number.
    fn tangent(self) -> T;
}

// For every float type, also a type parameter `T: Float` of generic annotated code.
impl<T: Float> TangentArg<T> for T {
    #[inline]
    fn tangent(self) -> T {
        self
    }
}

// A whole `&F` field's tangent passed on to a float parameter.
impl<T: Float> TangentArg<T> for &T {
    #[inline]
    fn tangent(self) -> T {
        *self
    }
}

impl<T: Float> TangentArg<T> for NoTangent {
    #[inline]
    fn tangent(self) -> T {
        T::zero()
    }
}
