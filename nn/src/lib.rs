//! Training toolkit for [gradtape](https://docs.rs/gradtape): Keras-style layers
//! ([`Dense`], [`Conv2D`], [`MaxPool2D`], [`AvgPool2D`], [`Flatten`], [`Sequential`]),
//! optimizers with TensorFlow's (Keras 3's) update formulas ([`Sgd`], [`Adam`], [`AdamW`],
//! [`RmsProp`], [`Adagrad`]) with learning-rate [`schedules`], gradient [`clipping`] and
//! weight decay, losses and metrics, an MNIST (IDX)
//! reader with seeded minibatches, and checkpoints in the safetensors format.
//!
//! A training step is TensorFlow's: record the forward pass on a tape, take the gradient of
//! the loss with respect to the model's trainable variables, and hand the pairs to an
//! optimizer.
//!
//! ```
//! use gradtape_nn::{Activation, Adam, Dense, Layer, Optimizer, Sequential, losses};
//! use gradtape_runtime::{GradientTape, Tensor};
//!
//! let model = Sequential::new()
//!     .push(Dense::new("hidden", 2, 8, 1).with_activation(Activation::Tanh))
//!     .push(Dense::new("out", 8, 1, 2));
//! let x = Tensor::from_vec(vec![0.0_f32, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0], &[4, 2]);
//! let y = Tensor::from_vec(vec![0.0_f32, 1.0, 1.0, 0.0], &[4, 1]);
//! let mut optimizer = Adam::new(0.05);
//! let variables = model.trainable_variables();
//! let mut first = None;
//! for _ in 0..200 {
//!     let tape = GradientTape::new();
//!     let loss = tape.record(|| losses::mean_squared_error(&model.call(&x), &y));
//!     first.get_or_insert(loss.to_scalar());
//!     let grads = tape.gradient(&loss, &variables).unwrap();
//!     optimizer.apply_gradients(grads.into_iter().zip(&variables));
//! }
//! let last = losses::mean_squared_error(&model.call(&x), &y).to_scalar();
//! assert!(last < 0.1 * first.unwrap());
//! ```
//!
//! Optional features: `progress` (an indicatif progress bar per epoch) and `plot` (PNG plots
//! with plotters, drawn with an embedded font, so no system font library is needed).

#![doc(test(attr(deny(warnings))))]

pub mod checkpoint;
pub mod clipping;
pub mod data;
pub mod diagnostics;
mod layers;
pub mod losses;
pub mod metrics;
pub mod monitor;
mod optimizers;
#[cfg(feature = "plot")]
pub mod plot;
#[cfg(feature = "progress")]
pub mod progress;
pub mod schedules;

pub use layers::{
    Activation, AvgPool2D, BatchNormalization, Conv2D, Conv2DSpec, DataFormat, Dense, DenseSpec,
    Dropout, Embedding, Flatten, Layer, LayerNormalization, LayerOutput, LayerSpec, MaxPool2D,
    Sequential, glorot_uniform, glorot_uniform_conv,
};
pub use metrics::History;
pub use optimizers::{Adagrad, Adam, AdamW, Optimizer, RmsProp, Sgd};
