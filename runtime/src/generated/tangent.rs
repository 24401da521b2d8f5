//! What the tangent code (`f::jvp`) of a `#[differentiable]` function calls besides the
//! elementwise rules: a typed zero, the per-argument tangents of a call of another
//! annotated function (scalar mode), whose signature the caller's macro cannot see, and in
//! tensor mode broadcasting and the tangents of calls run under an accumulator.

use crate::base::dtype::Float;
use crate::base::tensor::Tensor;
use crate::tape::forward::ForwardAccumulator;
use crate::tape::{Sources, UnconnectedGradients};

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

/// The tangent of a binary op's result in tensor mode, from its operands' terms: the sum
/// of the terms has the broadcast shape of the operands that have tangents, which is the
/// result's own unless a constant operand broadcast the result wider (`x + c`, `c` of a
/// larger shape): then the tangent is broadcast to it, as the value was.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::broadcast_tangent};
/// let value = Tensor::<f64>::zeros(&[2, 2]);
/// let tangent = broadcast_tangent(Tensor::from_vec(vec![1.0, 2.0], &[2]), &value);
/// assert_eq!(tangent.to_vec(), vec![1.0, 2.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn broadcast_tangent<T: Float>(tangent: Tensor<T>, value: &Tensor<T>) -> Tensor<T> {
    if tangent.shape() == value.shape() {
        tangent
    } else {
        tangent.broadcast_to(value.shape())
    }
}

/// The value and tangent of one call that tensor-mode tangent code differentiates
/// dynamically (a tensor op with no elementwise rule, such as `matmul` or `sum_axis`, or a
/// call of a function built from gradtape ops): run under a
/// [`ForwardAccumulator`](crate::ForwardAccumulator) of its own, with `tangents` (a tuple,
/// one per input) as the tangents of `inputs`, so the tangent comes from the runtime's own
/// JVP rules. An output that does not depend on the inputs gets a zero tangent.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let dx = Tensor::from_vec(vec![0.5_f64, -1.0], &[2]);
/// // d Σ x² = Σ 2x dx
/// let (total, tangent) = generated::trace_jvp((x.clone(),), (dx,), || x.square().sum());
/// assert_eq!((total.to_scalar(), tangent.to_scalar()), (5.0, 2.0 * 0.5 - 4.0));
/// ```
///
/// # Panics
/// If a tangent's shape or dtype is not its input's (a bug in the generated code: never
/// passed on silently).
#[track_caller]
pub fn trace_jvp<I: Sources, U: Float>(
    inputs: I,
    tangents: I,
    f: impl FnOnce() -> Tensor<U>,
) -> (Tensor<U>, Tensor<U>) {
    let accumulator = ForwardAccumulator::new(inputs, tangents)
        .unwrap_or_else(|e| panic!("#[differentiable] tangent code: {e}"));
    let value = accumulator.record(f);
    let tangent = accumulator
        .jvp_with(&value, UnconnectedGradients::Zero)
        .expect("a zero tangent for an unconnected value");
    (value, tangent)
}

/// The tangent a caller passes for an argument that carries none: a constant given to a
/// float parameter (its tangent is zero) or any argument of a data parameter.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTangent;

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

impl<T: Float> TangentArg<T> for NoTangent {
    #[inline]
    fn tangent(self) -> T {
        T::zero()
    }
}
