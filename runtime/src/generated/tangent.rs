//! What the tangent code (`f::jvp`) of a scalar-mode `#[differentiable]` function calls
//! besides the elementwise rules: a typed zero, and the per-argument tangents of a call of
//! another annotated function, whose signature the caller's macro cannot see.

use crate::base::dtype::Float;

/// The tangent of a value computed from constants alone: zero, of the value's own type
/// (so that an unsuffixed literal's type is still inferred from its uses).
///
/// ```
/// let acc = 0.5_f32;
/// assert_eq!(gradtape_runtime::generated::zero_like(&acc), 0.0_f32);
/// ```
#[inline]
pub fn zero_like<T: Float>(_value: &T) -> T {
    T::zero()
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
