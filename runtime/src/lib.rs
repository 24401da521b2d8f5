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

mod custom;
mod dtype;
pub mod hooks;
mod ops;
pub mod tape;
mod tensor;
mod variable;

pub use custom::{custom_gradient, stop_gradient, straight_through};
pub use dtype::{AnyTensor, DType, Float};
pub use ops::binary::Operand;
pub use tape::{
    CutCause, ExplainSource, Explanation, GradientOptions, GradientTape, JacobianOptions,
    SourceKey, Sources, TapeBuilder, TapeError, Targets, UnconnectedGradients, VariableNotWatched,
    Watch,
};
pub use tensor::Tensor;
pub use variable::{AnyVariable, Variable, VariableId};
