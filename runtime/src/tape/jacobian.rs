//! Jacobians by one vectorised backward sweep (TensorFlow's `pfor` idea, done on the tape):
//! the cotangents of all output elements travel through the sweep together, as one tensor
//! with a leading batch axis, instead of one sweep per output element.
//!
//! Elementwise rules (`g * x.cos()`) broadcast over the extra axis by themselves. Rules that
//! name shapes or axes (reshape, reductions, broadcasting's sum, slices, concatenation,
//! gathers, softmax, matmul) ask [`batch_rank`] how many leading batch axes the cotangent
//! carries and shift their axes and shapes by it. They do so with ordinary recordable ops on
//! concrete shapes, so a batched sweep run while an outer tape records is itself recorded
//! correctly (the gradient of a jacobian). Closure rules (custom gradients, fused
//! functions), which cannot be told about batch axes, run once per example instead
//! ([`per_example`]), unless they are batch-safe: `#[differentiable]` functions whose
//! adjoint is elementwise (`generated::record_fused` with `batch_safe`) run once for all rows.

use ndarray::{ArrayD, IxDyn};

use super::backward::{self, Sweep};
use super::structure::{SourceKey, Sources};
use super::{GradientTape, TapeError, UnconnectedGradients};
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use crate::record::node::{Backward, Dims, InputGrads, RuleCtx};

use crate::base::context::{batch_rank, enter_batch};

/// Runs a closure rule once per example of a batched cotangent and stacks the results:
/// correct for any rule, at the cost of one rule call per example.
pub(crate) fn per_example(rule: &dyn Backward, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
    let k = batch_rank();
    let lead: Dims = g.shape()[..k].into();
    let inner: Dims = g.shape()[k..].into();
    let count: usize = lead.iter().product();
    let mut flat_shape: Dims = smallvec::smallvec![count];
    flat_shape.extend_from_slice(&inner);
    let flat = g.reshape_any(&flat_shape);
    let mut per_input: Vec<Vec<Option<AnyTensor>>> = vec![Vec::new(); ctx.needs.len()];
    {
        let _unbatched = enter_batch(0);
        for e in 0..count {
            let g_e = flat.slice_any(0, e, 1).reshape_any(&inner);
            for (slot, grad) in per_input.iter_mut().zip(rule.backward(ctx, &g_e)) {
                slot.push(grad);
            }
        }
    }
    per_input
        .into_iter()
        .map(|examples| stack_examples(examples, &lead))
        .collect()
}

/// Stacks per-example cotangents under the batch axes `lead`; examples without one are
/// zeros. `None` if no example has one.
fn stack_examples(examples: Vec<Option<AnyTensor>>, lead: &[usize]) -> Option<AnyTensor> {
    let like = examples.iter().flatten().next()?.clone();
    let mut one: Dims = smallvec::smallvec![1];
    one.extend_from_slice(like.shape());
    let pieces: Vec<AnyTensor> = examples
        .into_iter()
        .map(|e| e.unwrap_or_else(|| like.zeros_like()).reshape_any(&one))
        .collect();
    let mut shape: Dims = lead.into();
    shape.extend_from_slice(like.shape());
    Some(concat_any(&pieces, 0).reshape_any(&shape))
}

/// Concatenates tensors of one dtype along `axis` (recorded).
fn concat_any(parts: &[AnyTensor], axis: usize) -> AnyTensor {
    fn typed<T: Float>(parts: &[AnyTensor], axis: usize) -> Tensor<T> {
        let parts: Vec<&Tensor<T>> = parts.iter().map(AnyTensor::typed::<T>).collect();
        Tensor::concat(&parts, axis)
    }
    match parts.first().expect("at least one part") {
        AnyTensor::F32(_) => AnyTensor::F32(typed(parts, axis)),
        AnyTensor::F64(_) => AnyTensor::F64(typed(parts, axis)),
    }
}

/// Above this many cotangent elements per sweep, a jacobian sweeps in chunks of rows.
const DEFAULT_BATCH_ELEMENTS: usize = 1 << 22;

/// Options of [`GradientTape::jacobian_with`] and
/// [`batch_jacobian_with`](GradientTape::batch_jacobian_with).
///
/// ```
/// use gradtape_runtime::{GradientTape, JacobianOptions, Tensor, UnconnectedGradients};
/// let (x, unused) = (Tensor::from_vec(vec![1.0_f64, 2.0], &[2]), Tensor::scalar(0.0_f64));
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// tape.watch(&unused);
/// let y = tape.record(|| x.square());
/// let options = JacobianOptions::new().unconnected(UnconnectedGradients::Zero).max_batch(1);
/// let (jx, ju) = tape.jacobian_with(&y, (&x, &unused), options).unwrap();
/// // d(x²)/dx = diag(2x)
/// assert_eq!(jx.unwrap().to_vec(), vec![2.0, 0.0, 0.0, 4.0]);
/// assert_eq!(ju.unwrap().shape(), &[2]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct JacobianOptions {
    unconnected: UnconnectedGradients,
    max_batch: Option<usize>,
}

impl JacobianOptions {
    /// The defaults: `None` for unconnected sources; chunks sized by memory.
    pub fn new() -> JacobianOptions {
        JacobianOptions::default()
    }

    /// What to return for sources the target does not depend on.
    pub fn unconnected(mut self, unconnected: UnconnectedGradients) -> JacobianOptions {
        self.unconnected = unconnected;
        self
    }

    /// At most `rows` output elements per backward sweep (at least 1). By default a sweep
    /// takes as many rows as keep a cotangent of the target's or a source's shape, times
    /// the rows, under 4 Mi elements.
    pub fn max_batch(mut self, rows: usize) -> JacobianOptions {
        self.max_batch = Some(rows.max(1));
        self
    }

    fn chunk_rows(&self, rows: usize, per_row: usize) -> usize {
        let by_memory = (DEFAULT_BATCH_ELEMENTS / per_row.max(1)).max(1);
        self.max_batch.unwrap_or(by_memory).min(rows).max(1)
    }
}

impl GradientTape {
    /// The jacobian of `target` with respect to each source, in the structure of
    /// `sources`: for a source of shape `X`, a tensor of shape `target.shape() + X` whose
    /// entry `[i…, j…]` is ∂target[i…]/∂source[j…]; `None` where the target does not depend
    /// on the source.
    ///
    /// Vectorised: the cotangents of all target elements go through one backward sweep as
    /// one batch (in chunks when that batch would be large, see [`JacobianOptions`]), not
    /// one sweep per element. Taken while an outer tape records, the jacobian is recorded
    /// on it like any other computation, so it can be differentiated again.
    ///
    /// **Cost of closure rules.** A rule given as a closure cannot be told about the batch
    /// axis, so inside the sweep it runs once per target element (per row of the chunk),
    /// on that row's cotangent: ops from [`custom_gradient`](crate::custom_gradient) and
    /// [`straight_through`](crate::straight_through), and `#[differentiable]` functions
    /// whose adjoint includes a call differentiated on a tape of its own (`matmul`,
    /// reductions, reshapes, slices, softmax, calls of other functions). When an outer tape
    /// records, each of those calls also recomputes the function's forward code. The
    /// result is the same; only the time grows with the number of target elements. An
    /// annotated function whose adjoint is elementwise (arithmetic, `maximum`/`minimum`
    /// and the elementwise methods, with broadcasting, in any control flow) is batch-safe
    /// and runs once per sweep, like a built-in op.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3]);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.sin());
    /// let j = tape.jacobian(&y, &x).unwrap().unwrap();
    /// // d sin(xᵢ)/dxⱼ = cos(xᵢ) [i = j]
    /// assert_eq!(j.shape(), &[3, 3]);
    /// assert_eq!(j.to_vec()[4], 2.0_f32.cos());
    /// assert_eq!(j.to_vec()[1], 0.0);
    /// ```
    ///
    /// # Errors
    /// As [`gradient`](Self::gradient): [`TapeError::NotPersistent`] for a second gradient
    /// or jacobian from a non-persistent tape, [`TapeError::GradientWhileRecording`] inside
    /// a non-persistent tape's own scope, [`TapeError::NonFinite`] in anomaly mode (a
    /// cotangent of any row).
    pub fn jacobian<T: Float, S: Sources>(
        &self,
        target: &Tensor<T>,
        sources: S,
    ) -> Result<S::Output, TapeError> {
        self.jacobian_with(target, sources, JacobianOptions::default())
    }

    /// [`jacobian`](Self::jacobian) with zeros for unconnected sources or a chunk size.
    ///
    /// # Errors
    /// As [`jacobian`](Self::jacobian).
    pub fn jacobian_with<T: Float, S: Sources>(
        &self,
        target: &Tensor<T>,
        sources: S,
        options: JacobianOptions,
    ) -> Result<S::Output, TapeError> {
        let target = T::into_any(target.clone());
        super::structure::over_leaves(sources, |keys, out| {
            out.extend(self.jacobian_erased(&target, keys, options)?);
            Ok(())
        })
    }

    /// The dtype-erased core of `jacobian`.
    #[doc(hidden)]
    pub fn jacobian_erased(
        &self,
        target: &AnyTensor,
        sources: &[SourceKey],
        options: JacobianOptions,
    ) -> Result<Vec<Option<AnyTensor>>, TapeError> {
        self.check_usable()?;
        let y_shape = target.shape().to_vec();
        let rows = target.len_any();
        let stacked = self.sweep_rows(target, sources, rows, options, |start, len| {
            one_hot_rows(target, start, len, &y_shape, None)
        })?;
        Ok(stacked
            .into_iter()
            .zip(sources)
            .map(|(rows_x, source)| {
                let x_shape = source.value().shape().to_vec();
                let shape: Dims = y_shape.iter().chain(&x_shape).copied().collect();
                match (rows_x, options.unconnected) {
                    (Some(j), _) => Some(j.reshape_any(&shape)),
                    (None, UnconnectedGradients::Zero) => Some(source.value().zeros_of(&shape)),
                    (None, UnconnectedGradients::None) => None,
                }
            })
            .collect())
    }

    /// The jacobian of each example of a batch: for a target of shape `[b, y…]` and a
    /// source of shape `[b, x…]`, a tensor of shape `[b, y…, x…]` whose entry
    /// `[n, i…, j…]` is ∂target[n, i…]/∂source[n, j…]. `sources` is a structure as for
    /// [`gradient`](Self::gradient); `None` for unconnected sources.
    ///
    /// **Assumption**, as in TensorFlow: example `n` of the target depends only on example
    /// `n` of each source (no batch normalisation, no mixing across the batch axis). It is
    /// what makes one sweep per target element of one example enough: the sweep seeds
    /// element `i…` of every example at once and reads each example's row back from its
    /// own example of the source. If examples do depend on each other, the result is the
    /// sum over examples `m` of ∂target[m, i…]/∂source[n, j…]: wrong, silently. Use
    /// [`jacobian`](Self::jacobian) then.
    ///
    /// Closure rules cost as in [`jacobian`](Self::jacobian): those that are not batch-safe
    /// run once per target element of one example (the sweep's rows).
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[2, 2]);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.square());
    /// let j = tape.batch_jacobian(&y, &x).unwrap().unwrap();
    /// // per example, d(x²)/dx = diag(2x)
    /// assert_eq!(j.shape(), &[2, 2, 2]);
    /// assert_eq!(j.to_vec(), vec![2.0, 0.0, 0.0, 4.0, 6.0, 0.0, 0.0, 8.0]);
    /// ```
    ///
    /// # Errors
    /// [`TapeError::BatchJacobianRank`] if the target or a source has fewer than 2 axes,
    /// [`TapeError::BatchJacobianBatchSize`] if their first axes differ, and the errors of
    /// [`jacobian`](Self::jacobian).
    pub fn batch_jacobian<T: Float, S: Sources>(
        &self,
        target: &Tensor<T>,
        sources: S,
    ) -> Result<S::Output, TapeError> {
        self.batch_jacobian_with(target, sources, JacobianOptions::default())
    }

    /// [`batch_jacobian`](Self::batch_jacobian) with zeros for unconnected sources or a
    /// chunk size.
    ///
    /// # Errors
    /// As [`batch_jacobian`](Self::batch_jacobian).
    pub fn batch_jacobian_with<T: Float, S: Sources>(
        &self,
        target: &Tensor<T>,
        sources: S,
        options: JacobianOptions,
    ) -> Result<S::Output, TapeError> {
        let target = T::into_any(target.clone());
        super::structure::over_leaves(sources, |keys, out| {
            out.extend(self.batch_jacobian_erased(&target, keys, options)?);
            Ok(())
        })
    }

    fn batch_jacobian_erased(
        &self,
        target: &AnyTensor,
        sources: &[SourceKey],
        options: JacobianOptions,
    ) -> Result<Vec<Option<AnyTensor>>, TapeError> {
        let batch = check_batch_shapes(target, sources)?;
        self.check_usable()?;
        let y_shape = target.shape()[1..].to_vec();
        let rows: usize = y_shape.iter().product();
        let stacked = self.sweep_rows(target, sources, rows, options, |start, len| {
            one_hot_rows(target, start, len, &y_shape, Some(batch))
        })?;
        Ok(stacked
            .into_iter()
            .zip(sources)
            .map(|(rows_x, source)| {
                let x_shape = source.value().shape()[1..].to_vec();
                let shape: Dims = std::iter::once(batch)
                    .chain(y_shape.iter().copied())
                    .chain(x_shape.iter().copied())
                    .collect();
                match (rows_x, options.unconnected) {
                    // [rows, b, x…] → [b, rows, x…] → [b, y…, x…]
                    (Some(j), _) => {
                        let mut perm: Dims = (0..j.shape().len()).collect();
                        perm.swap(0, 1);
                        Some(j.permute_any(&perm).reshape_any(&shape))
                    }
                    (None, UnconnectedGradients::Zero) => Some(source.value().zeros_of(&shape)),
                    (None, UnconnectedGradients::None) => None,
                }
            })
            .collect())
    }

    /// Sweeps `rows` seeds (`seed(start, len)` builds rows `start..start + len`, with the
    /// row as the leading batch axis) in chunks, and returns per source its cotangents
    /// stacked along that axis, or `None` if the source is unconnected.
    fn sweep_rows(
        &self,
        target: &AnyTensor,
        sources: &[SourceKey],
        rows: usize,
        options: JacobianOptions,
        seed: impl Fn(usize, usize) -> AnyTensor,
    ) -> Result<Vec<Option<AnyTensor>>, TapeError> {
        let per_row = sources
            .iter()
            .map(|s| s.value().len_any())
            .chain([target.len_any()])
            .max()
            .unwrap_or(1);
        let chunk = options.chunk_rows(rows, per_row);
        let mut parts: Vec<Vec<Option<AnyTensor>>> = vec![Vec::new(); sources.len()];
        let targets = std::slice::from_ref(target);
        let mut start = 0;
        while start < rows {
            let len = chunk.min(rows - start);
            let seeds = [seed(start, len)];
            let sweep = Sweep {
                targets,
                seeds: Some(&seeds),
                sources,
                batch_rank: 1,
                retain: start + len < rows,
            };
            let mut grads = backward::Gradients::new();
            if let Some(found) = backward::run(&self.cell, sweep, &mut grads) {
                // (anomaly mode) the rest of the rows would only repeat it
                self.finish_gradient();
                return Err(found.into());
            }
            for ((slot, grad), source) in parts.iter_mut().zip(grads.drain(..)).zip(sources) {
                let mut shape: Dims = smallvec::smallvec![len];
                shape.extend_from_slice(source.value().shape());
                if let Some(g) = &grad {
                    assert!(
                        g.shape() == &shape[..],
                        "gradtape internal: a batched sweep gave a cotangent of shape {:?} \
                         for a source of shape {:?}; a rule lost the batch axis",
                        g.shape(),
                        source.value().shape()
                    );
                }
                slot.push(grad);
            }
            start += len;
        }
        if !self.cell.borrow().persistent {
            self.cell.borrow_mut().consumed = true;
        }
        if rows == 0 {
            return Ok(sources
                .iter()
                .map(|s| {
                    let mut shape = vec![0];
                    shape.extend_from_slice(s.value().shape());
                    Some(s.value().zeros_of(&shape))
                })
                .collect());
        }
        Ok(parts.into_iter().map(join_chunks).collect())
    }
}

/// Joins a source's chunks along the row axis; zeros for chunks that found no path.
fn join_chunks(chunks: Vec<Option<AnyTensor>>) -> Option<AnyTensor> {
    if chunks.len() == 1 {
        return chunks.into_iter().next().expect("one chunk");
    }
    let like = chunks.iter().flatten().next()?.clone();
    let pieces: Vec<AnyTensor> = chunks
        .into_iter()
        .map(|c| c.unwrap_or_else(|| like.zeros_like()))
        .collect();
    Some(concat_any(&pieces, 0))
}

/// The seeds for rows `start..start + len`: row `r` is one-hot at element `r` of a value of
/// shape `y_shape`, or, for a batch jacobian, at element `r` of every example.
fn one_hot_rows(
    like: &AnyTensor,
    start: usize,
    len: usize,
    y_shape: &[usize],
    batch: Option<usize>,
) -> AnyTensor {
    fn typed<T: Float>(
        start: usize,
        len: usize,
        y_shape: &[usize],
        batch: Option<usize>,
    ) -> Tensor<T> {
        let per_example: usize = y_shape.iter().product();
        let examples = batch.unwrap_or(1);
        let mut data = vec![T::zero(); len * examples * per_example];
        for r in 0..len {
            for n in 0..examples {
                data[(r * examples + n) * per_example + start + r] = T::one();
            }
        }
        let mut shape = vec![len];
        shape.extend(batch);
        shape.extend_from_slice(y_shape);
        crate::ops::constant(ArrayD::from_shape_vec(IxDyn(&shape), data).expect("sizes match"))
    }
    match like {
        AnyTensor::F32(_) => AnyTensor::F32(typed(start, len, y_shape, batch)),
        AnyTensor::F64(_) => AnyTensor::F64(typed(start, len, y_shape, batch)),
    }
}

/// The batch size shared by the target and every source of a batch jacobian.
fn check_batch_shapes(target: &AnyTensor, sources: &[SourceKey]) -> Result<usize, TapeError> {
    let rank_error = |what: String, shape: &[usize]| TapeError::BatchJacobianRank {
        what,
        shape: shape.to_vec(),
    };
    if target.shape().len() < 2 {
        return Err(rank_error("target".into(), target.shape()));
    }
    let batch = target.shape()[0];
    for (index, source) in sources.iter().enumerate() {
        let value = source.value();
        let shape = value.shape();
        if shape.len() < 2 {
            return Err(rank_error(format!("source {index}"), shape));
        }
        if shape[0] != batch {
            return Err(TapeError::BatchJacobianBatchSize {
                target_batch: batch,
                index,
                source_batch: shape[0],
            });
        }
    }
    Ok(batch)
}

impl AnyTensor {
    /// The number of elements.
    pub(crate) fn len_any(&self) -> usize {
        match self {
            AnyTensor::F32(t) => t.len(),
            AnyTensor::F64(t) => t.len(),
        }
    }

    /// Zeros of `shape` in this tensor's dtype.
    pub(crate) fn zeros_of(&self, shape: &[usize]) -> AnyTensor {
        match self {
            AnyTensor::F32(_) => AnyTensor::F32(Tensor::zeros(shape)),
            AnyTensor::F64(_) => AnyTensor::F64(Tensor::zeros(shape)),
        }
    }

    /// Permutes the axes (recorded).
    pub(crate) fn permute_any(&self, perm: &[usize]) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(t.permute(perm)),
            AnyTensor::F64(t) => AnyTensor::F64(t.permute(perm)),
        }
    }
}
