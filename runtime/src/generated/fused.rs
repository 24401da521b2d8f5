//! One node per call of a `#[differentiable]` function: the generated adjoint as the node's
//! rule.

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use smallvec::SmallVec;

use crate::base::tensor::TensorId;
use crate::record::forward::{self, Tangents};
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
/// [`FusedTangents::get`].
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
///     let jvp = |t: &generated::FusedTangents<'_>| x.cos() * t.get::<f64>(0).unwrap();
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

/// A `#[differentiable]` call's value and tangent in one pass of its tangent code, when the
/// only recorder on this thread is one forward accumulator and it has a tangent for one of
/// `inputs`: `jvp` gets the inputs' tangents and returns `(value, tangent)`; the accumulator
/// keeps the tangent and the value is returned. `None`, without calling `jvp`, otherwise:
/// then the call records a node ([`record_fused`]), whose JVP rule runs the same code.
///
/// ```
/// use gradtape_runtime::{AnyTensor, ForwardAccumulator, Tensor, generated};
/// let x = Tensor::from_vec(vec![0.5_f64, 1.0], &[2]);
/// let sin = |x: &Tensor<f64>| {
///     let inputs = [AnyTensor::from(x.clone())];
///     // d sin(x) = cos(x) dx
///     generated::forward_only(&inputs, |t| (x.sin(), x.cos() * t.get::<f64>(0).unwrap()))
/// };
/// assert!(sin(&x).is_none()); // nothing records
/// let acc = ForwardAccumulator::new(&x, Tensor::from_vec(vec![2.0, 0.0], &[2])).unwrap();
/// let y = acc.record(|| sin(&x)).unwrap();
/// assert_eq!(acc.jvp(&y).unwrap().to_vec(), vec![0.5_f64.cos() * 2.0, 0.0]);
/// ```
pub fn forward_only<V: FusedResult>(
    inputs: &[AnyTensor],
    jvp: impl FnOnce(&FusedTangents<'_>) -> (V, V),
) -> Option<V> {
    // The ids are read only past the accumulator check: a call recorded on a tape pays
    // one thread-local read here.
    forward::with_sole_accumulator(inputs, |tangents| {
        let (value, tangent) = jvp(&FusedTangents(tangents));
        let mut sink = TangentSink(SmallVec::new());
        value.give_tangents(tangent, &mut sink);
        (value, sink.0)
    })
}

/// The tangents a [`forward_only`] call made, paired with their values' ids.
pub struct TangentSink(SmallVec<[(TensorId, AnyTensor); 2]>);

/// What a `#[differentiable]` tensor function returns: a tensor or a tuple of them.
pub trait FusedResult {
    /// Pairs each part with its tangent (`tangents` has this value's structure).
    fn give_tangents(&self, tangents: Self, sink: &mut TangentSink);
}

impl<T: Float> FusedResult for Tensor<T> {
    /// # Panics
    /// If the tangent's shape is not the value's (a bug in generated code: never passed on
    /// silently).
    fn give_tangents(&self, tangent: Tensor<T>, sink: &mut TangentSink) {
        assert!(
            tangent.has_shape(self.shape()),
            "#[differentiable] tangent code gave a tangent of shape {:?} for a value of shape {:?}",
            tangent.shape(),
            self.shape()
        );
        sink.0.push((self.id(), T::into_any(tangent)));
    }
}

/// `FusedResult` for a tuple: each type with its value's and its tangent's names.
macro_rules! fused_result {
    ($(($name:ident, $value:ident, $tangent:ident)),+) => {
        impl<$($name: FusedResult),+> FusedResult for ($($name,)+) {
            fn give_tangents(&self, tangents: Self, sink: &mut TangentSink) {
                let ($($value,)+) = self;
                let ($($tangent,)+) = tangents;
                $($value.give_tangents($tangent, sink);)+
            }
        }
    };
}

for_each_arity!(fused_result);

/// The tangents of a fused node's inputs in one accumulator, as its generated tangent code
/// reads them.
pub struct FusedTangents<'a>(&'a Tangents<'a>);

impl FusedTangents<'_> {
    /// The tangent of input `k`, or `None` where the accumulator has none for it (a
    /// constant of this computation, whose zero tangent the tangent code skips).
    ///
    /// # Panics
    /// If input `k` is not of dtype `T`.
    pub fn get<T: Float>(&self, k: usize) -> Option<Tensor<T>> {
        self.0.of::<T>(k).cloned()
    }
}
