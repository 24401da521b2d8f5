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
