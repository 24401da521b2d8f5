//! Normalisations used by classifiers: `softmax` and `log_softmax` along an axis, computed
//! stably (shifted by the maximum).

use ndarray::{Axis, Zip};
use smallvec::smallvec;

use super::{check_axis, static_rule};
use crate::dtype::Float;
use crate::tape::jacobian::batch_rank;
use crate::tape::node::Params;
use crate::tape::recording::{self, NodeSpec};
use crate::tensor::{Data, Tensor};

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
        recording::record(data, &[self.id()], |out| NodeSpec {
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
        })
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
        recording::record(data, &[self.id()], |out| NodeSpec {
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
        })
    }
}

/// `x - max - ln Σ exp(x - max)` along `axis`, not recorded.
fn log_softmax_values<T: Float>(x: &Tensor<T>, axis: usize) -> ndarray::ArrayD<T> {
    let view = x.view();
    if axis + 1 == view.ndim()
        && let Some(values) = view.as_slice()
    {
        return last_axis_log_softmax(values, view.shape());
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

/// [`log_softmax_values`] along the last axis of row-major `values`: each row a slice, one
/// output array and no temporaries (a classifier's logits; ndarray's axis folds and
/// broadcast zips cost more than the arithmetic at `[128, 10]`). Same operations, in the
/// same order, as the general path.
fn last_axis_log_softmax<T: Float>(values: &[T], shape: &[usize]) -> ndarray::ArrayD<T> {
    let width = shape.last().copied().unwrap_or(1);
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
    ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), out).expect("one value per input")
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
