//! One node per call of a `#[differentiable]` function: the generated adjoint as the node's
//! rule.

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use smallvec::SmallVec;

use crate::base::tensor::TensorId;
use crate::record::forward::Tangents;
use crate::record::stack;
use crate::tape::closure::{ClosureRule, record_boxed_with_jvp};
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
/// maps the output's cotangent to one cotangent per input, and whose JVP rule (under a
/// [`ForwardAccumulator`](crate::ForwardAccumulator)) is `jvp`, the function's generated
/// tangent code: the output's tangent from the inputs' tangents, read with
/// [`FusedTangents::of`].
///
/// `batch_safe` says that the rule is right as it stands for a cotangent with leading
/// batch axes, so that a jacobian's vectorised sweep runs it once for all rows instead of
/// once per row. `#[differentiable]` sets it when the generated adjoint is built only from
/// the elementwise rules of [`vjp`](crate::vjp), [`accumulate`](crate::generated::accumulate)
/// and [`unbroadcast`](crate::generated::unbroadcast): every step then maps `g` to `g ⊙ c`,
/// summed over broadcast axes behind the batch axes, with `c` independent of `g`, which
/// commutes with stacking cotangents along leading axes.
///
/// ```
/// use gradtape_runtime::{AnyTensor, ForwardAccumulator, GradientTape, Tensor, generated, vjp};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let sin = |x: &Tensor<f64>| {
///     let value = generated::without_recording(|| x.sin());
///     let saved = x.clone();
///     // d sin(x) = cos(x) dx, as the rule and as the JVP rule
///     let rule = move |g: Tensor<f64>| vec![Some(AnyTensor::from(vjp::sin(&saved, &g)))];
///     let jvp = |t: &generated::FusedTangents<'_>| x.cos() * t.of(0, x);
///     generated::record_fused("sin", value, &[AnyTensor::from(x.clone())], true, rule, &jvp)
/// };
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| sin(&x));
/// // one sweep for both rows: d sin(xᵢ)/dxⱼ = cos(xᵢ) [i = j]
/// let j = tape.jacobian(&y, &x).unwrap().unwrap();
/// assert_eq!(j.to_vec(), vec![1.0_f64.cos(), 0.0, 0.0, 2.0_f64.cos()]);
///
/// let acc = ForwardAccumulator::new(&x, Tensor::from_vec(vec![2.0, 0.0], &[2])).unwrap();
/// let y = acc.record(|| sin(&x));
/// assert_eq!(acc.jvp(&y).unwrap().to_vec(), vec![1.0_f64.cos() * 2.0, 0.0]);
/// ```
#[track_caller]
pub fn record_fused<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    batch_safe: bool,
    rule: F,
    jvp: &dyn Fn(&FusedTangents<'_>) -> Tensor<T>,
) -> Tensor<T>
where
    F: Fn(Tensor<T>) -> Vec<Option<AnyTensor>> + 'static,
{
    let rule = move |g: &AnyTensor, _needs: &[bool]| {
        let g = T::from_any(g).expect("a fused node's cotangent has its output's dtype");
        rule(g.clone())
    };
    let jvp = |t: &Tangents<'_>, _out: &Tensor<T>| Some(jvp(&FusedTangents(t)));
    record_boxed_with_jvp(
        op,
        value,
        inputs,
        ClosureRule { rule, batch_safe },
        Some(&jvp),
    )
}

/// The tangents of a fused node's inputs in one accumulator, as its generated tangent code
/// reads them.
pub struct FusedTangents<'a>(&'a Tangents<'a>);

impl FusedTangents<'_> {
    /// The tangent of input `k`, whose value is `like`: zeros of `like`'s shape where the
    /// accumulator has none for it (a constant of this computation).
    ///
    /// # Panics
    /// If input `k` is not of dtype `T`.
    pub fn of<T: Float>(&self, k: usize, like: &Tensor<T>) -> Tensor<T> {
        match self.0.of::<T>(k) {
            Some(tangent) => tangent.clone(),
            None => Tensor::zeros(like.shape()),
        }
    }
}
