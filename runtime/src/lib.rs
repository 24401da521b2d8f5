//! The runtime of [gradtape](https://docs.rs/gradtape): n-d [`Tensor`]s, [`Variable`]s, and a
//! [`GradientTape`] with TensorFlow's semantics, plus every primitive's forward and backward
//! rule. Most users depend on the `gradtape` crate, which re-exports all of this together
//! with the `#[differentiable]` attribute.
//!
//! ```
//! use gradtape_runtime::{GradientTape, Variable};
//! let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
//! let tape = GradientTape::new();
//! let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
//! let [dz_dw1, dz_dw2] = tape.gradient(&z, [&w1, &w2]).unwrap();
//! // ∂z/∂w1 = 6 w1 + 2 w2 = 36, ∂z/∂w2 = 2 w1 = 10
//! assert_eq!(dz_dw1.unwrap().to_scalar(), 36.0);
//! assert_eq!(dz_dw2.unwrap().to_scalar(), 10.0);
//! ```

#![doc(test(attr(deny(warnings))))]

//! # Layout: floors, each importing only those below it
//!
//! 1. `base`: element types, tensors, the thread-local context, the cut registry;
//! 2. `record`: the tape stack, one tape's state, nodes and rules, variables' storage;
//! 3. `ops`: every primitive, its forward and its rule together, one family per file;
//! 4. `variable`: the tensor API on variables (a read, then the op);
//! 5. `tape`: [`GradientTape`], the sweep, jacobians, source structures, `explain`,
//!    custom gradients;
//! 6. `generated`: what `#[differentiable]`'s generated code calls (hidden).

mod base;
#[doc(hidden)]
pub mod generated;
mod ops;
mod params;
mod record;
mod tape;
mod variable;

/// The `ndarray` crate, at the version gradtape's tensors are built on: arrays handed to
/// [`Tensor::from`] and taken back with [`Tensor::to_ndarray`] are this crate's, so a user
/// names it through gradtape rather than guessing a matching version in their own
/// `Cargo.toml`.
///
/// ```
/// use gradtape_runtime::{Tensor, ndarray};
/// let a = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]].into_dyn();
/// let t = Tensor::from(a.clone());
/// assert_eq!(t.shape(), &[2, 2]);
/// assert_eq!(t.to_ndarray(), a);
/// ```
pub use ndarray;

pub use base::dtype::{AnyTensor, DType, Float};
pub use base::parallel::{ThreadCountFixed, num_threads, set_num_threads};
pub use base::primal::{Elementary, Primal};
pub use base::tensor::Tensor;
pub use ops::binary::Operand;
pub use ops::conv::{Conv2dOptions, Padding};
pub use ops::linalg::TensorRef;
pub use ops::shape::GatherIndices;
pub use params::Differentiable;
#[doc(hidden)]
pub use params::FieldType;
pub use record::variable::{AnyVariable, Variable, VariableId};
pub use record::{any_recording, without_recording};
pub use tape::checkpoint::{checkpoint, checkpointed_loop, recompute_grad};
pub use tape::custom::{StopGradient, custom_gradient, stop_gradient, straight_through};
pub use tape::gradcheck::{
    GradcheckError, GradcheckOptions, GradcheckReport, WorstElement, gradcheck, gradcheck_with,
};
pub use tape::transforms;
pub use tape::{
    AnomalyPhase, Connected, CutCause, ExplainSource, Explanation, ForwardAccumulator,
    GradientList, GradientOptions, GradientTape, JacobianOptions, NonFiniteValue, SourceKey,
    SourceList, Sources, TangentError, TapeBuilder, TapeError, TargetList, Targets,
    UnconnectedGradients, VariableNotWatched, Watch,
};

/// The backward (vector-Jacobian product) rule of every elementwise primitive, generic over
/// [`Primal`] so that the tape (on tensors) and `#[differentiable]`'s generated code (on
/// tensors or plain floats) share one definition. Each takes the primal value the rule needs
/// and the output's cotangent `g`, and returns the input's cotangent.
///
/// ```
/// use gradtape_runtime::vjp;
/// // d/dx x² = 2x: at x = 3 with incoming cotangent 1
/// assert_eq!(vjp::square(&3.0_f64, &1.0), 6.0);
/// ```
pub mod vjp {
    pub use crate::ops::binary::{
        atan2_lhs, atan2_rhs, div_lhs, div_rhs, hypot_lhs, hypot_rhs, log_lhs, log_rhs,
        maximum_lhs, maximum_rhs, minimum_lhs, minimum_rhs, mul_lhs, mul_rhs, pass_through,
        pow_lhs, pow_rhs, rem_euclid_rhs, rem_rhs, sub_rhs,
    };
    pub use crate::ops::unary::{powf, powi};

    /// The unary rules, one per row of the vocabulary.
    macro_rules! unary_rules {
        ($($name:ident: $saved:ident,)*) => {
            pub use crate::ops::unary::{$($name),*};
        };
    }
    gradtape_primitives::elementwise_unary!(unary_rules);
}
