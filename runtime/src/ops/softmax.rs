//! Normalisations used by classifiers: `softmax` and `log_softmax` along an axis, computed
//! stably (shifted by the maximum), and the fused softmax cross-entropy with integer labels.

use std::rc::Rc;

use ndarray::{ArrayD, Axis, IxDyn, Zip};
use smallvec::smallvec;

use super::{check_axis, constant, static_rule};
use crate::base::context::batch_rank;
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Data, Tensor};
use crate::record::forward::Tangents;
use crate::record::node::{InputGrads, Params, RuleCtx};
use crate::record::stack::{self, NodeSpec};

impl<T: Float> Tensor<T> {
    /// `exp(x) / Σ exp(x)` along `axis`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let p = Tensor::from_vec(vec![1.0_f64, 1.0], &[2]).softmax(0);
    /// assert_eq!(p.to_vec(), vec![0.5, 0.5]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn softmax(&self, axis: usize) -> Tensor<T> {
        check_axis("softmax", axis, self.shape());
        let log_p = log_softmax_values(self, axis);
        let data = Data::from_array(log_p.mapv(T::exp));
        let spec = |out: &Tensor<T>| NodeSpec {
            op: "softmax",
            // ∂softmax: x̄ = y ⊙ (ḡ - Σ ḡ ⊙ y)
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(_, axis) = ctx.params else {
                    unreachable!()
                };
                let (y, g) = (ctx.saved[0].typed::<T>(), g.typed::<T>());
                let inner = (g * y).sum_axis(axis + batch_rank(), true);
                smallvec![Some(T::into_any(y * (g - inner)))]
            }),
            saved: smallvec![T::into_any(out.clone())],
            params: Params::DimsAxis(smallvec::SmallVec::new(), axis),
        };
        // d softmax = y ⊙ (dx - Σ dx ⊙ y): the rule's matrix is symmetric
        let jvp = |t: &Tangents<'_>, y: &Tensor<T>| {
            t.of::<T>(0).map(|t| y * (t - (t * y).sum_axis(axis, true)))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// `x - ln Σ exp(x)` along `axis`: the log of [`softmax`](Self::softmax), without its
    /// underflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let l = Tensor::from_vec(vec![0.0_f64, 0.0], &[1, 2]).log_softmax(1);
    /// assert!((l.to_vec()[0] - 0.5_f64.ln()).abs() < 1e-12);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn log_softmax(&self, axis: usize) -> Tensor<T> {
        check_axis("log_softmax", axis, self.shape());
        let data = Data::from_array(log_softmax_values(self, axis));
        let spec = |out: &Tensor<T>| NodeSpec {
            op: "log_softmax",
            // ∂log_softmax: x̄ = ḡ - softmax(x) Σ ḡ
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(_, axis) = ctx.params else {
                    unreachable!()
                };
                let (out, g) = (ctx.saved[0].typed::<T>(), g.typed::<T>());
                let total = g.sum_axis(axis + batch_rank(), true);
                smallvec![Some(T::into_any(g - out.exp() * total))]
            }),
            saved: smallvec![T::into_any(out.clone())],
            params: Params::DimsAxis(smallvec::SmallVec::new(), axis),
        };
        // d log_softmax = dx - Σ softmax(x) ⊙ dx
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            t.of::<T>(0)
                .map(|t| t - (out.exp() * t).sum_axis(axis, true))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }
}

impl<T: Float> Tensor<T> {
    /// Per-example softmax cross-entropy of `[batch, classes]` logits against integer class
    /// `labels`: `-log_softmax(self)[i, labels[i]]`, a `[batch]` tensor (TensorFlow's
    /// `tf.nn.sparse_softmax_cross_entropy_with_logits`). One op with one rule,
    /// `x̄ = (softmax(x) - onehot(labels)) ⊙ ḡ`, instead of a `log_softmax`, a gather and a
    /// negation, each with its own temporaries forward and backward.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let logits = Tensor::from_vec(vec![0.0_f64, 0.0, 0.0, 2.0_f64.ln()], &[2, 2]);
    /// let losses = logits.sparse_softmax_cross_entropy_with_logits(&[0, 1]);
    /// // row 0: -ln(1/2); row 1: -ln(2/3)
    /// let want = [2.0_f64.ln(), 1.5_f64.ln()];
    /// for (got, want) in losses.to_vec().iter().zip(want) {
    ///     assert!((got - want).abs() < 1e-12);
    /// }
    /// ```
    ///
    /// # Panics
    /// If `self` is not 2-D, the number of labels differs from its rows, or a label is not a
    /// class index.
    #[track_caller]
    pub fn sparse_softmax_cross_entropy_with_logits(&self, labels: &[usize]) -> Tensor<T> {
        const OP: &str = "sparse_softmax_cross_entropy_with_logits";
        let shape = self.shape();
        assert!(
            shape.len() == 2 && shape[0] == labels.len(),
            "{OP}: logits of shape {shape:?} need [batch, classes] with batch = {} labels",
            labels.len()
        );
        if let Some(bad) = labels.iter().find(|&&label| label >= shape[1]) {
            panic!("{OP}: label {bad} is not a class index for logits of shape {shape:?}");
        }
        let view = self.view();
        let values = view.as_standard_layout();
        let log_p = last_axis_log_softmax(values.as_slice().expect("standard layout"), shape[1]);
        let classes = shape[1];
        let losses: Vec<T> = labels
            .iter()
            .enumerate()
            .map(|(row, &label)| -log_p[row * classes + label])
            .collect();
        let data = Data::from_array(
            ArrayD::from_shape_vec(IxDyn(&[labels.len()]), losses).expect("one per row"),
        );
        let spec = |_: &Tensor<T>| NodeSpec {
            op: OP,
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => cross_entropy_rule(ctx, g),
                AnyTensor::F64(g) => cross_entropy_rule(ctx, g),
            }),
            saved: smallvec![
                T::into_any(self.clone()),
                // the probabilities, for a first-order sweep that records nothing
                T::into_any(constant(
                    ArrayD::from_shape_vec(IxDyn(shape), log_p.into_iter().map(T::exp).collect())
                        .expect("one per logit")
                ))
            ],
            params: Params::Gather {
                indices: Rc::from(labels),
                axis: 1,
                shape: shape.into(),
            },
        };
        // d loss_i = Σⱼ softmax(x)ᵢⱼ dxᵢⱼ - dxᵢₗ, the softmax recomputed in recorded ops
        // (from the logits) so that an outer derivative sees its dependence on them
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            t.of::<T>(0).map(|t| {
                let expected = (self.softmax(1) * t).sum_axis(1, false);
                let picks: Vec<usize> = (0..labels.len())
                    .map(|row| row * classes + labels[row])
                    .collect();
                let picked = t.reshape(&[labels.len() * classes]).gather(0, &picks);
                expected - picked
            })
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }
}

/// The rule of [`Tensor::sparse_softmax_cross_entropy_with_logits`]:
/// ∂/∂xᵢⱼ (-xᵢₗ + ln Σₖ exp xᵢₖ) = softmax(x)ᵢⱼ - [j = lᵢ], times ḡᵢ.
///
/// With no tape recording and no batch axes, one pass over the saved probabilities; else in
/// recorded ops, the softmax recomputed from the saved logits so that its dependence on
/// them is on record (higher order), and ḡ broadcast over the classes behind any batch axes.
fn cross_entropy_rule<T: Float>(ctx: &RuleCtx<'_>, g: &Tensor<T>) -> InputGrads {
    let Params::Gather {
        indices: labels,
        shape,
        ..
    } = ctx.params
    else {
        unreachable!("the cross-entropy saves its labels")
    };
    let classes = shape[1];
    let onehot = |j: usize, label: usize| if j == label { T::ONE } else { T::ZERO };
    if ctx.unrecorded && batch_rank() == 0 {
        let probabilities = ctx.saved[1].typed::<T>().view();
        let p = probabilities.as_slice().expect("saved in standard layout");
        let mut out = Vec::with_capacity(p.len());
        for ((row, &label), &g) in p
            .chunks_exact(classes.max(1))
            .zip(labels.iter())
            .zip(g.view().iter())
        {
            out.extend(
                row.iter()
                    .enumerate()
                    .map(|(j, &p)| (p - onehot(j, label)) * g),
            );
        }
        let grad = ArrayD::from_shape_vec(IxDyn(shape), out).expect("one per logit");
        return smallvec![Some(T::into_any(constant(grad)))];
    }
    let x = ctx.saved[0].typed::<T>();
    let targets: Vec<T> = labels
        .iter()
        .flat_map(|&label| (0..classes).map(move |j| onehot(j, label)))
        .collect();
    let targets = constant(ArrayD::from_shape_vec(IxDyn(shape), targets).expect("one per logit"));
    let mut column: Vec<usize> = g.shape().to_vec();
    column.push(1);
    let grad = (&x.softmax(1) - &targets) * &g.reshape(&column);
    smallvec![Some(T::into_any(grad))]
}

/// `x - max - ln Σ exp(x - max)` along `axis`, not recorded.
fn log_softmax_values<T: Float>(x: &Tensor<T>, axis: usize) -> ndarray::ArrayD<T> {
    let view = x.view();
    if axis + 1 == view.ndim()
        && let Some(values) = view.as_slice()
    {
        let out = last_axis_log_softmax(values, view.shape()[view.ndim() - 1]);
        return ArrayD::from_shape_vec(view.raw_dim(), out).expect("one value per input");
    }
    let top = view
        .fold_axis(
            Axis(axis),
            T::neg_infinity(),
            |&m, &v| if v > m { v } else { m },
        )
        .insert_axis(Axis(axis));
    let shifted = Zip::from(&view)
        .and_broadcast(&top)
        .map_collect(|&v, &m| if m.is_finite() { v - m } else { v });
    let log_total = shifted
        .mapv(T::exp)
        .sum_axis(Axis(axis))
        .mapv(T::ln)
        .insert_axis(Axis(axis));
    Zip::from(&shifted)
        .and_broadcast(&log_total)
        .map_collect(|&v, &l| v - l)
}

/// [`log_softmax_values`] along the last axis of row-major `values` with rows of `width`:
/// each row a slice, one output vector and no temporaries (a classifier's logits; ndarray's axis folds and
/// broadcast zips cost more than the arithmetic at `[128, 10]`). Same operations, in the
/// same order, as the general path.
fn last_axis_log_softmax<T: Float>(values: &[T], width: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len());
    if width > 0 {
        for row in values.chunks_exact(width) {
            let top = row
                .iter()
                .fold(T::neg_infinity(), |m, &v| if v > m { v } else { m });
            let shift = |v: T| if top.is_finite() { v - top } else { v };
            let log_total = row.iter().map(|&v| shift(v).exp()).sum::<T>().ln();
            out.extend(row.iter().map(|&v| shift(v) - log_total));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row-slice path (last axis) against the general one (axis 0 of the transpose),
    /// including rows with infinities, where both must give the same NaNs and infinities.
    #[test]
    fn last_axis_path_matches_the_general_path() {
        let inf = f64::INFINITY;
        let rows = vec![
            0.5, -1.0, 3.0, 2.0, //
            1000.0, 0.0, -1000.0, 1.0, //
            -inf, 0.0, 1.0, -inf, //
            -inf, -inf, -inf, -inf, //
            inf, 1.0, 0.0, 2.0,
        ];
        let x = Tensor::from_vec(rows, &[5, 4]);
        let fast = log_softmax_values(&x, 1);
        let general = log_softmax_values(&x.transpose(), 0);
        for (a, b) in fast.iter().zip(general.t().iter()) {
            assert!(
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() < 1e-12,
                "{a} vs {b}"
            );
        }
    }
}
