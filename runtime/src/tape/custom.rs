//! Gradient control: [`custom_gradient`] (a forward computation with a backward rule of the
//! user's), [`stop_gradient`] and [`straight_through`].

use std::panic::Location;
use std::rc::Rc;

use crate::base::dtype::{AnyTensor, Float};

use crate::base::tensor::Tensor;

/// Computes `forward(inputs)` and records it as one op named `name` whose backward rule is
/// the closure `forward` returns with its value, TensorFlow's `@tf.custom_gradient`.
///
/// `forward` runs with recording paused: the ops inside it are not recorded, only the one
/// op they make up. The backward closure gets the cotangent of the output and returns one
/// entry per input: `Some(cotangent)` of that input's shape, or `None` for no gradient.
/// Write it in tensor ops: a gradient taken while an outer tape records records them, so
/// second derivatives go through the custom rule as well.
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, custom_gradient};
/// // log(1 + eˣ) with a backward rule that stays finite for large x
/// let log1pexp = |x: &Tensor<f64>| {
///     custom_gradient("log1pexp", &[x], |inputs| {
///         let x = inputs[0].clone();
///         let value = (x.exp() + 1.0).ln();
///         // d/dx ln(1 + eˣ) = 1 - 1 / (1 + eˣ)
///         (value, move |g: &Tensor<f64>| vec![Some(g * (1.0 - 1.0 / (x.exp() + 1.0)))])
///     })
/// };
/// let x = Tensor::scalar(100.0_f64);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| log1pexp(&x));
/// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 1.0);
/// ```
///
/// # Panics
/// When the backward closure runs, if it returns a different number of gradients than
/// there are inputs, or a gradient whose shape differs from its input's. The check runs in
/// the gradient's sweep, long after this call, so the message names the function and the
/// line of this call, which defined the rule.
#[track_caller]
pub fn custom_gradient<T, F, B>(name: &'static str, inputs: &[&Tensor<T>], forward: F) -> Tensor<T>
where
    T: Float,
    F: FnOnce(&[Tensor<T>]) -> (Tensor<T>, B),
    B: Fn(&Tensor<T>) -> Vec<Option<Tensor<T>>> + 'static,
{
    let defined_at = Location::caller();
    let owned: Vec<Tensor<T>> = inputs.iter().map(|&t| t.clone()).collect();
    let (value, backward) = crate::record::without_recording(|| forward(&owned));
    let shapes: Rc<[Vec<usize>]> = owned.iter().map(|t| t.shape().to_vec()).collect();
    let erased: Vec<AnyTensor> = owned.into_iter().map(T::into_any).collect();
    crate::tape::closure::record_closure(name, value, &erased, move |g, _needs| {
        let grads = backward(g.typed::<T>());
        check_gradients(name, defined_at, &shapes, &grads);
        grads.into_iter().map(|g| g.map(T::into_any)).collect()
    })
}

/// Panics, naming the function and where it was defined, unless `grads` has one entry of
/// the right shape per input.
fn check_gradients<T: Float>(
    name: &str,
    defined_at: &Location<'_>,
    shapes: &[Vec<usize>],
    grads: &[Option<Tensor<T>>],
) {
    assert!(
        grads.len() == shapes.len(),
        "custom_gradient `{name}`: the backward function returned {} gradients for {} inputs; \
         return one per input (None for an input without a gradient) (custom_gradient called \
         at {defined_at})",
        grads.len(),
        shapes.len()
    );
    for (index, (grad, shape)) in grads.iter().zip(shapes).enumerate() {
        if let Some(grad) = grad {
            assert!(
                grad.shape() == &shape[..],
                "custom_gradient `{name}`: the gradient for input {index} has shape {:?}, but \
                 the input has shape {shape:?}; they must be equal (custom_gradient called at \
                 {defined_at})",
                grad.shape()
            );
        }
    }
}

/// `x` itself, as a value no tape can differentiate through: TensorFlow's
/// `tf.stop_gradient`. Ops on the result are recorded, but no gradient flows back to `x`.
///
/// Takes a tensor by reference, or a plain `f32`/`f64` (returned as it is: a plain number
/// has no path on any tape, and `#[differentiable]` treats the call's result as a constant
/// in plain-float functions too).
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, stop_gradient};
/// let x = Tensor::scalar(3.0_f32);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| &x * stop_gradient(&x));
/// // only the first factor is differentiated: d/dx (x · c) = c = 3
/// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 3.0);
/// assert_eq!(stop_gradient(2.5_f64), 2.5);
/// ```
pub fn stop_gradient<C: StopGradient>(x: C) -> C::Output {
    x.stopped()
}

/// What [`stop_gradient`] accepts: a float tensor by reference, or a plain float.
#[diagnostic::on_unimplemented(
    message = "`stop_gradient` takes a float tensor by reference (`&Tensor<f32>`) or a plain `f32`/`f64`, not `{Self}`",
    label = "pass `&tensor`, or the number itself"
)]
pub trait StopGradient {
    /// The result's type: a tensor for a tensor, a number for a number.
    type Output;
    /// The value with no gradient path.
    fn stopped(self) -> Self::Output;
}

impl<T: Float> StopGradient for &Tensor<T> {
    type Output = Tensor<T>;
    fn stopped(self) -> Tensor<T> {
        // A fresh identity over the same storage: no tape tracks it.
        Tensor::from_data(self.data_clone())
    }
}

impl<T: Float> StopGradient for &&Tensor<T> {
    type Output = Tensor<T>;
    fn stopped(self) -> Tensor<T> {
        (*self).stopped()
    }
}

impl StopGradient for f32 {
    type Output = f32;
    fn stopped(self) -> f32 {
        self
    }
}

impl StopGradient for f64 {
    type Output = f64;
    fn stopped(self) -> f64 {
        self
    }
}

/// `forward(x)` with the gradient of the identity: the straight-through estimator used to
/// train through rounding, sign or quantisation, whose true derivative is zero almost
/// everywhere.
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, straight_through};
/// let x = Tensor::from_vec(vec![0.2_f32, 1.7], &[2]);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let round = |x: &Tensor<f32>| {
///     Tensor::from_vec(x.to_vec().iter().map(|v| v.round()).collect(), x.shape())
/// };
/// let y = tape.record(|| straight_through(&x, round).square());
/// assert_eq!(y.to_vec(), vec![0.0, 4.0]);
/// // d/dx round(x)² taken as 2 round(x) · 1
/// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_vec(), vec![0.0, 4.0]);
/// ```
///
/// # Panics
/// If `forward` changes the shape (the identity's gradient needs equal shapes).
#[track_caller]
pub fn straight_through<T: Float>(
    x: &Tensor<T>,
    forward: impl FnOnce(&Tensor<T>) -> Tensor<T>,
) -> Tensor<T> {
    let value = crate::record::without_recording(|| forward(x));
    assert!(
        value.shape() == x.shape(),
        "straight_through: the forward function changed the shape from {:?} to {:?}; the \
         identity gradient needs equal shapes",
        x.shape(),
        value.shape()
    );
    // d/dx x = 1: the cotangent passes through unchanged
    crate::tape::closure::record_closure(
        "straight_through",
        value,
        &[T::into_any(x.clone())],
        |g, _| vec![Some(g.clone())],
    )
}
