//! One node per call of a `#[differentiable]` function: the generated adjoint as the node's
//! rule.

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use smallvec::SmallVec;

use crate::base::tensor::TensorId;
use crate::record::stack;
use crate::tape::closure::{ClosureRule, record_boxed};
/// Whether some recording tape tracks one of `inputs`, or some forward accumulator has a
/// tangent for one: when neither, an op on them would be neither recorded nor given a
/// tangent, so `#[differentiable]` code runs its plain body instead (on plain numbers when
/// they are 0-d, which must not happen under an accumulator: the result would have no
/// tangent).
///
/// ```
/// use gradtape_runtime::{AnyTensor, GradientTape, Tensor, generated};
/// let (x, c) = (Tensor::scalar(1.0_f32), Tensor::scalar(2.0_f32));
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// tape.record(|| {
///     assert!(generated::any_tracks(&[AnyTensor::from(x.clone())]));
///     assert!(!generated::any_tracks(&[AnyTensor::from(c.clone())]));
/// });
/// ```
pub fn any_tracks(inputs: &[AnyTensor]) -> bool {
    let ids: SmallVec<[TensorId; 4]> = inputs.iter().map(AnyTensor::id).collect();
    stack::any_tape_tracks(&ids) || crate::record::forward::any_tangent(&ids)
}

/// Records a fused node (one `#[differentiable]` call): `value` with `inputs`, whose rule
/// maps the output's cotangent to one cotangent per input.
///
/// ```
/// use gradtape_runtime::{AnyTensor, GradientTape, Tensor, generated};
/// let x = Tensor::scalar(3.0_f64);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| {
///     let value = generated::without_recording(|| x.square());
///     let saved = x.clone();
///     // d/dx x² = 2x
///     generated::record_fused("square", value, &[AnyTensor::from(x.clone())], move |g| {
///         vec![Some(AnyTensor::from(g * &saved * 2.0))]
///     })
/// });
/// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 6.0);
/// ```
#[track_caller]
pub fn record_fused<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    rule: F,
) -> Tensor<T>
where
    F: Fn(Tensor<T>) -> Vec<Option<AnyTensor>> + 'static,
{
    record_typed(op, value, inputs, rule, false)
}

/// [`record_fused`] for a rule that is right as it stands for a cotangent with leading
/// batch axes, so that a jacobian's vectorised sweep runs it once for all rows instead of
/// once per row. `#[differentiable]` uses it when the generated adjoint is built only from
/// the elementwise rules of [`vjp`](crate::vjp), [`accumulate`](crate::generated::accumulate) and
/// [`unbroadcast`](crate::generated::unbroadcast): every
/// step then maps `g` to `g ⊙ c`, summed over broadcast axes behind the batch axes, with
/// `c` independent of `g`, which commutes with stacking cotangents along leading axes.
///
/// ```
/// use gradtape_runtime::{AnyTensor, GradientTape, Tensor, generated, vjp};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| {
///     let value = generated::without_recording(|| x.sin());
///     let saved = x.clone();
///     generated::record_fused_batched("sin", value, &[AnyTensor::from(x.clone())], move |g| {
///         vec![Some(AnyTensor::from(vjp::sin(&saved, &g)))]
///     })
/// });
/// // one sweep for both rows: d sin(xᵢ)/dxⱼ = cos(xᵢ) [i = j]
/// let j = tape.jacobian(&y, &x).unwrap().unwrap();
/// assert_eq!(j.to_vec(), vec![1.0_f64.cos(), 0.0, 0.0, 2.0_f64.cos()]);
/// ```
#[track_caller]
pub fn record_fused_batched<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    rule: F,
) -> Tensor<T>
where
    F: Fn(Tensor<T>) -> Vec<Option<AnyTensor>> + 'static,
{
    record_typed(op, value, inputs, rule, true)
}

/// [`record_fused`] and [`record_fused_batched`]: the rule gets its cotangent typed.
#[track_caller]
fn record_typed<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    rule: F,
    batch_safe: bool,
) -> Tensor<T>
where
    F: Fn(Tensor<T>) -> Vec<Option<AnyTensor>> + 'static,
{
    let rule = move |g: &AnyTensor, _needs: &[bool]| {
        let g = T::from_any(g).expect("a fused node's cotangent has its output's dtype");
        rule(g.clone())
    };
    record_boxed(op, value, inputs, ClosureRule { rule, batch_safe })
}
