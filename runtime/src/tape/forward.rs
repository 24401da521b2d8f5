//! [`ForwardAccumulator`]: forward-mode derivatives (Jacobian-vector products) with
//! TensorFlow's `tf.autodiff.ForwardAccumulator` semantics.
//!
//! Where a tape records a computation and sweeps it backwards afterwards, an accumulator
//! carries a tangent beside every value as the computation runs: one pass gives
//! `J·v` for one direction `v`, whatever the number of outputs. Each op's JVP rule sits
//! beside its VJP rule (see `ops`); the recording side is `record::forward`.

use std::rc::Rc;

use smallvec::SmallVec;

use super::structure::{GradientList, SourceKey, SourceList, Sources};
use super::{GradientTape, UnconnectedGradients};
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Tensor, TensorId};
use crate::record::forward::{self, AccumulatorCell, AccumulatorState, Tangents};
use crate::record::node::{Backward, Params, RuleCtx};
use crate::record::tangent_table::TangentTable;

/// Forward-mode automatic differentiation: primals and their tangents are given up front,
/// ops run inside [`record`](Self::record) carry tangents alongside their values, and
/// [`jvp`](Self::jvp) reads the tangent of any value computed there: the Jacobian-vector
/// product `J·v` of that value with respect to the primals, in the direction of the
/// tangents. TensorFlow's `tf.autodiff.ForwardAccumulator`.
///
/// ```
/// use gradtape_runtime::{ForwardAccumulator, Tensor};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let v = Tensor::from_vec(vec![1.0_f64, 0.0], &[2]);
/// let acc = ForwardAccumulator::new(&x, &v).unwrap();
/// let y = acc.record(|| x.square().sum()); // y = x₀² + x₁²
/// // dy along v = 2 x₀ · 1 + 2 x₁ · 0
/// assert_eq!(acc.jvp(&y).unwrap().to_scalar(), 2.0);
/// ```
///
/// **Nesting.** Accumulators and tapes nest in any order, as in TensorFlow:
/// - an accumulator around a tape's `gradient` gives Hessian-vector products
///   (forward over reverse: the backward sweep's ops carry tangents too);
/// - a tape around an accumulator differentiates a JVP (reverse over forward: the tape
///   records the tangent computations);
/// - an accumulator inside another gives higher forward derivatives.
///
/// An accumulator never sees its own tangent work, nor does any tape or accumulator entered
/// inside it; those entered outside it do.
///
/// ```
/// use gradtape_runtime::{ForwardAccumulator, GradientTape, Tensor};
/// // Hessian-vector product of f(x) = Σ x³: H = diag(6x), so H·v = 6 x ⊙ v
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let v = Tensor::from_vec(vec![1.0_f64, 1.0], &[2]);
/// let acc = ForwardAccumulator::new(&x, &v).unwrap();
/// let grad = acc.record(|| {
///     let tape = GradientTape::new();
///     tape.watch(&x);
///     let y = tape.record(|| x.powi(3).sum());
///     tape.gradient(&y, &x).unwrap().unwrap()
/// });
/// assert_eq!(acc.jvp(&grad).unwrap().to_vec(), vec![6.0, 12.0]);
/// ```
///
/// **Memory.** The accumulator keeps the tangent of every value computed in its scope
/// until it is dropped (as a tape keeps its records); a long loop under one accumulator
/// holds one tangent per op. For plain-number loops, a `#[differentiable]` function's
/// generated forward code carries no such record.
pub struct ForwardAccumulator {
    state: Rc<AccumulatorCell>,
}

impl ForwardAccumulator {
    /// An accumulator with `tangents[i]` as the tangent of `primals[i]`. Both are
    /// structures of the same shape, of the kinds `gradient` accepts as sources (a tensor,
    /// a variable, arrays, slices, `Vec`s, tuples and maps of them); each tangent has its
    /// primal's shape and dtype. A variable primal gives its tangent to every read of it
    /// inside [`record`](Self::record); a tangent may itself be a variable (its value is
    /// used).
    ///
    /// ```
    /// use gradtape_runtime::{ForwardAccumulator, Tensor, Variable};
    /// let w = Variable::new(3.0_f32);
    /// let acc = ForwardAccumulator::new(&w, Tensor::scalar(1.0_f32)).unwrap();
    /// let y = acc.record(|| w.square());
    /// assert_eq!(acc.jvp(&y).unwrap().to_scalar(), 6.0);
    /// ```
    ///
    /// # Errors
    /// [`TangentError`] if the structures have different numbers of leaves, or a tangent's
    /// shape or dtype differs from its primal's.
    pub fn new<P: Sources, V: Sources>(
        primals: P,
        tangents: V,
    ) -> Result<ForwardAccumulator, TangentError> {
        let (mut primal_keys, mut tangent_keys) = (SourceList::default(), SourceList::default());
        primals.collect_sources(&mut primal_keys);
        tangents.collect_sources(&mut tangent_keys);
        if primal_keys.len() != tangent_keys.len() {
            return Err(TangentError::Count {
                primals: primal_keys.len(),
                tangents: tangent_keys.len(),
            });
        }
        let mut by_id = TangentTable::default();
        let mut variables = Vec::new();
        for (index, (primal, tangent)) in primal_keys.iter().zip(tangent_keys.iter()).enumerate() {
            let (value, tangent) = (primal.value(), tangent.value());
            if value.dtype() != tangent.dtype() || value.shape() != tangent.shape() {
                return Err(TangentError::Mismatch {
                    index,
                    primal_shape: value.shape().to_vec(),
                    primal_dtype: value.dtype(),
                    tangent_shape: tangent.shape().to_vec(),
                    tangent_dtype: tangent.dtype(),
                });
            }
            match primal {
                SourceKey::Tensor(t) => {
                    by_id.insert(t.id(), tangent);
                }
                SourceKey::Variable(v) => variables.push((v.id(), tangent)),
            }
        }
        Ok(ForwardAccumulator {
            state: Rc::new(AccumulatorCell::new(AccumulatorState::new(
                by_id, variables,
            ))),
        })
    }

    /// An accumulator with the given tangents of tensors, by id (already checked against
    /// their primals): generated tangent code's accumulator for one call.
    pub(crate) fn from_tangents(
        tangents: impl IntoIterator<Item = (TensorId, AnyTensor)>,
    ) -> ForwardAccumulator {
        let mut by_id = TangentTable::default();
        for (id, tangent) in tangents {
            by_id.insert(id, tangent);
        }
        ForwardAccumulator {
            state: Rc::new(AccumulatorCell::new(AccumulatorState::new(
                by_id,
                Vec::new(),
            ))),
        }
    }

    /// Runs `f` with this accumulator active: every op in it whose inputs have tangents
    /// computes its output's tangent. May be called again (tangents are kept across
    /// scopes).
    ///
    /// ```
    /// use gradtape_runtime::{ForwardAccumulator, Tensor};
    /// let x = Tensor::scalar(2.0_f64);
    /// let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0)).unwrap();
    /// let y = acc.record(|| x.exp());
    /// let outside = y.sin(); // not recorded: no tangent
    /// assert!((acc.jvp(&y).unwrap().to_scalar() - 2.0_f64.exp()).abs() < 1e-12);
    /// assert!(acc.jvp(&outside).is_none());
    /// ```
    ///
    /// # Panics
    /// If called from inside its own `record` (use a second accumulator for nesting).
    #[track_caller]
    pub fn record<R>(&self, f: impl FnOnce() -> R) -> R {
        let _active = forward::enter(&self.state);
        f()
    }

    /// The tangent of each value in `targets` (a tensor, or a structure of them as
    /// [`Sources`] describes), in the same structure: `None` for a value computed outside
    /// [`record`](Self::record) or not from a primal (TensorFlow's
    /// `unconnected_gradients=NONE`). A primal's tangent is the one given.
    ///
    /// ```
    /// use gradtape_runtime::{ForwardAccumulator, Tensor};
    /// let (x, c) = (Tensor::scalar(3.0_f64), Tensor::scalar(5.0_f64));
    /// let acc = ForwardAccumulator::new(&x, Tensor::scalar(2.0)).unwrap();
    /// let (y, z) = acc.record(|| (&x * &c, c.sin()));
    /// let (dy, dz) = acc.jvp((&y, &z));
    /// assert_eq!(dy.unwrap().to_scalar(), 10.0); // c · 2
    /// assert!(dz.is_none()); // z does not depend on x
    /// ```
    pub fn jvp<S: Sources>(&self, targets: S) -> S::Output {
        self.jvp_with(targets, UnconnectedGradients::None)
    }

    /// [`jvp`](Self::jvp), with zeros of each value's shape and dtype in place of `None`
    /// when `unconnected` is [`UnconnectedGradients::Zero`].
    ///
    /// ```
    /// use gradtape_runtime::{ForwardAccumulator, Tensor, UnconnectedGradients};
    /// let x = Tensor::scalar(3.0_f64);
    /// let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0)).unwrap();
    /// let c = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    /// let dc = acc.jvp_with(&c, UnconnectedGradients::Zero).unwrap();
    /// assert_eq!(dc.to_vec(), vec![0.0, 0.0]);
    /// ```
    pub fn jvp_with<S: Sources>(&self, targets: S, unconnected: UnconnectedGradients) -> S::Output {
        let mut keys = SourceList::default();
        targets.collect_sources(&mut keys);
        let fill = |(key, tangent): (&SourceKey, Option<AnyTensor>)| match (tangent, unconnected) {
            (Some(t), _) => Some(t),
            (None, UnconnectedGradients::Zero) => Some(key.value().zeros_like()),
            (None, UnconnectedGradients::None) => None,
        };
        // Exclusive, so that a tangent kept as a number gets the tensor it keeps from now on
        // (two reads give the same tensor); shared if the accumulator is busy (its own JVP
        // work asking), and then such a tensor is a new constant each time.
        let found: SmallVec<[Option<AnyTensor>; 4]> = match self.state.try_borrow_mut() {
            Ok(mut state) => keys
                .iter()
                .map(|key| (key, kept_tangent(&mut state, key)))
                .map(fill)
                .collect(),
            Err(_) => {
                let state = self.state.borrow();
                keys.iter()
                    .map(|key| (key, tangent_copy(&state, key)))
                    .map(fill)
                    .collect()
            }
        };
        targets.rebuild(&mut GradientList::new(found))
    }
}

/// The tangent of the tensor or variable `key` in `state`, if it has one; a tangent kept as
/// a number gets the tensor it keeps from now on (see `TangentTable::tensor`).
fn kept_tangent(state: &mut AccumulatorState, key: &SourceKey) -> Option<AnyTensor> {
    match key {
        SourceKey::Tensor(t) => state.tangents.tensor(t.id()).cloned(),
        SourceKey::Variable(v) => state.variable_tangent(v.id()).cloned(),
    }
}

/// [`kept_tangent`] through a shared borrow: a tangent kept as a number comes as a new
/// constant tensor, not kept.
fn tangent_copy(state: &AccumulatorState, key: &SourceKey) -> Option<AnyTensor> {
    match key {
        SourceKey::Tensor(t) => state.tangents.get(t.id()).map(|t| t.to_tensor()),
        SourceKey::Variable(v) => state.variable_tangent(v.id()).cloned(),
    }
}

impl std::fmt::Debug for ForwardAccumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state.borrow();
        f.debug_struct("ForwardAccumulator")
            .field("tangents", &state.tangents.len())
            .field("recording", &state.active)
            .finish()
    }
}

/// Primals and tangents that do not match, from [`ForwardAccumulator::new`].
///
/// ```
/// use gradtape_runtime::{ForwardAccumulator, TangentError, Tensor};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let err = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap_err();
/// assert!(matches!(err, TangentError::Mismatch { index: 0, .. }));
/// assert!(err.to_string().contains("[2]"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TangentError {
    /// The structures have different numbers of leaves.
    #[error(
        "ForwardAccumulator: {primals} primals but {tangents} tangents; give one tangent per \
         primal, in the same structure"
    )]
    Count {
        /// Leaves of the primals' structure.
        primals: usize,
        /// Leaves of the tangents' structure.
        tangents: usize,
    },
    /// A tangent's shape or dtype differs from its primal's.
    #[error(
        "ForwardAccumulator: primal {index} has shape {primal_shape:?} and dtype \
         {primal_dtype}, but its tangent has shape {tangent_shape:?} and dtype \
         {tangent_dtype}; they must be equal"
    )]
    Mismatch {
        /// Position of the primal among the primals' leaves.
        index: usize,
        /// The primal's shape.
        primal_shape: Vec<usize>,
        /// The primal's dtype.
        primal_dtype: &'static str,
        /// The tangent's shape.
        tangent_shape: Vec<usize>,
        /// The tangent's dtype.
        tangent_dtype: &'static str,
    },
}

/// The JVP of an op whose rule is only a pullback (a custom gradient, a `#[differentiable]`
/// call): its transpose. The pullback is linear in its cotangent `u`, so with
/// `s(u) = Σₖ ⟨pullbackₖ(u), tₖ⟩ = ⟨u, J t⟩`, the JVP `J t` is `∂s/∂u`, which a tape
/// computes exactly (JAX's and TensorFlow's "double backward" for ops without a forward
/// rule). The pullback's own ops are recordable, so an outer tape or accumulator sees
/// this computation too.
pub(crate) fn jvp_by_transposition<T: Float>(
    rule: &dyn Backward,
    tangents: &Tangents<'_>,
    out: &Tensor<T>,
) -> Tensor<T> {
    // The pullback is called directly, not by a sweep: it must not see the batch axes of
    // a jacobian's sweep that may be running around this op (its cotangent `u` has none).
    let _unbatched = crate::base::context::enter_batch(0);
    let u = Tensor::<T>::zeros(out.shape());
    let tape = GradientTape::new();
    tape.watch(&u);
    let pairing = tape.record(|| {
        let needs: SmallVec<[bool; 4]> = (0..tangents.len())
            .map(|k| tangents.any(k).is_some())
            .collect();
        let ctx = RuleCtx {
            saved: &[],
            params: &Params::None,
            needs: &needs,
            unrecorded: false,
        };
        let cotangents = rule.backward(&ctx, &T::into_any(u.clone()));
        let mut total = Tensor::<T>::scalar(T::ZERO);
        for (k, cotangent) in cotangents.iter().enumerate() {
            if let (Some(c), Some(t)) = (cotangent, tangents.any(k)) {
                total = total + inner_product::<T>(c, t);
            }
        }
        total
    });
    match tape.gradient(&pairing, &u) {
        Ok(Some(jvp)) => jvp,
        // The pairing does not depend on `u`: the pullback gives no cotangent to the inputs
        // that have tangents, so their directions do not move the output.
        Ok(None) => Tensor::zeros(out.shape()),
        Err(e) => unreachable!("a fresh tape's gradient cannot fail: {e}"),
    }
}

/// `Σ c ⊙ t` as a 0-d tensor of dtype `T` (recorded: a float cast where the dtypes differ).
///
/// # Panics
/// If `c` and `t` differ in dtype (a rule giving an input a cotangent of another dtype).
fn inner_product<T: Float>(c: &AnyTensor, t: &AnyTensor) -> Tensor<T> {
    match (c, t) {
        (AnyTensor::F32(c), AnyTensor::F32(t)) => (c * t).sum().cast::<T>(),
        (AnyTensor::F64(c), AnyTensor::F64(t)) => (c * t).sum().cast::<T>(),
        _ => panic!(
            "forward mode: a custom rule gave a cotangent of dtype {} for an input of dtype {}",
            c.dtype(),
            t.dtype()
        ),
    }
}
