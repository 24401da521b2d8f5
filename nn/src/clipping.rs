//! Gradient clipping on values, TensorFlow's `tf.clip_by_norm`, `tf.clip_by_global_norm` and
//! `tf.linalg.global_norm`, for a training loop that clips its gradients itself. The
//! optimizers' `with_clipnorm`, `with_clipvalue` and `with_global_clipnorm` options apply
//! the same formulas inside `apply_gradients`.
//!
//! These functions read values and build new ones, outside every tape: their results are
//! constants to any tape recording around them (as an optimizer's updates are), so use them
//! on gradients, not inside a computation to be differentiated.
//!
//! Sums of squares are accumulated in `f64` for both float dtypes (TensorFlow sums in the
//! tensor's dtype); the norm and everything after it is computed in the tensor's dtype.
//!
//! ```
//! use gradtape_nn::clipping::clip_by_global_norm;
//! use gradtape_runtime::Tensor;
//! let grads = vec![Some(Tensor::from_vec(vec![3.0_f64, 0.0], &[2])), None, Some(Tensor::scalar(4.0))];
//! let (clipped, norm) = clip_by_global_norm(&grads, 2.5);
//! assert_eq!(norm, 5.0); // √(3² + 4²), before clipping
//! // scaled by 2.5 / 5 = 0.5, so the global norm is 2.5
//! assert_eq!(clipped[0].as_ref().unwrap().to_vec(), vec![1.5, 0.0]);
//! assert!(clipped[1].is_none());
//! assert_eq!(clipped[2].as_ref().unwrap().to_scalar(), 2.0);
//! ```

use gradtape_runtime::{Float, Tensor};
use ndarray::ArrayViewD;

/// Σ x² over the elements, accumulated in `f64`: in eight partial sums over contiguous
/// data (which the compiler vectorises; an in-order sum of floats it may not reorder), in
/// order otherwise.
pub(crate) fn sum_of_squares<T: Float>(values: &ArrayViewD<'_, T>) -> f64 {
    let square = |x: T| {
        let x = x.to_f64();
        x * x
    };
    let Some(slice) = values.as_slice_memory_order() else {
        return values.iter().map(|&x| square(x)).sum();
    };
    let mut lanes = [0.0; 8];
    let chunks = slice.chunks_exact(8);
    let rest: f64 = chunks.remainder().iter().map(|&x| square(x)).sum();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane += square(x);
        }
    }
    lanes.iter().sum::<f64>() + rest
}

/// `max(norm, clip_norm)` as `tf.clip_by_norm` takes it, with a NaN norm giving NaN (Rust's
/// `max` would return `clip_norm` and hide the NaN).
pub(crate) fn clip_norm_divisor<T: Float>(norm: T, clip_norm: T) -> T {
    if norm.is_nan() {
        norm
    } else {
        norm.max(clip_norm)
    }
}

/// `tf.clip_by_global_norm`'s scale for the global norm `norm`:
/// `clip_norm * min(1 / norm, 1 / clip_norm) + (norm - norm)`. The last term is 0 for a
/// finite norm and NaN otherwise, which is how TensorFlow turns an infinite or NaN norm
/// into NaN gradients. A zero norm gives `1 / norm = inf` and the scale `clip_norm /
/// clip_norm`.
// `norm - norm` is deliberate: TensorFlow's signal, 0 or NaN.
#[allow(clippy::eq_op)]
pub(crate) fn global_scale<T: Float>(norm: T, clip_norm: T) -> T {
    let one = T::one();
    clip_norm * (one / norm).min(one / clip_norm) + (norm - norm)
}

/// Checks a clipping threshold.
///
/// # Panics
/// Naming `op`, if `clip_norm` is not positive and finite.
#[track_caller]
pub(crate) fn check_threshold<T: Float>(op: &str, what: &str, threshold: T) {
    assert!(
        threshold > T::zero() && threshold.is_finite(),
        "{op}: {what} must be positive and finite, got {threshold}"
    );
}

/// `tf.clip_by_norm(t, clip_norm)`: `t * clip_norm / max(‖t‖₂, clip_norm)`, the whole
/// tensor's L2 norm.
///
/// A tensor whose norm is at most `clip_norm` keeps its values (up to the rounding of
/// multiplying and dividing by `clip_norm`, as in TensorFlow); a larger one is scaled down to
/// norm `clip_norm`. An all-zero tensor stays zero (TensorFlow's guard against `√0`). A NaN
/// norm makes every element NaN; an infinite one makes the finite elements 0 and the
/// infinite ones NaN (`∞ / ∞`), as the formula says.
///
/// ```
/// use gradtape_nn::clipping::clip_by_norm;
/// use gradtape_runtime::Tensor;
/// // Keras' test: [100, 100] clipped to norm 1 is [√2/2, √2/2]
/// let t = Tensor::from_vec(vec![100.0_f64, 100.0], &[2]);
/// let clipped = clip_by_norm(&t, 1.0).to_vec();
/// assert!((clipped[0] - 2.0_f64.sqrt() / 2.0).abs() < 1e-15);
/// // already short enough: unchanged
/// assert_eq!(clip_by_norm(&t, 1000.0).to_vec(), vec![100.0, 100.0]);
/// ```
///
/// # Panics
/// If `clip_norm` is not positive and finite.
#[track_caller]
pub fn clip_by_norm<T: Float>(tensor: &Tensor<T>, clip_norm: T) -> Tensor<T> {
    check_threshold("clip_by_norm", "clip_norm", clip_norm);
    let values = tensor.view();
    let norm = T::from_f64(sum_of_squares(&values).sqrt());
    let divisor = clip_norm_divisor(norm, clip_norm);
    Tensor::from(values.mapv(|x| x * clip_norm / divisor))
}

/// `tf.linalg.global_norm`: `√(Σᵢ ‖tᵢ‖₂²)` over the tensors that are present (`None`
/// entries, the gradients of unconnected variables, are skipped). 0 for no tensors.
///
/// ```
/// use gradtape_nn::clipping::global_norm;
/// use gradtape_runtime::Tensor;
/// let grads = [Some(Tensor::from_vec(vec![1.0_f32, 2.0], &[2])), None, Some(Tensor::scalar(2.0))];
/// assert_eq!(global_norm(&grads), 3.0); // √(1 + 4 + 4)
/// ```
pub fn global_norm<T: Float>(tensors: &[Option<Tensor<T>>]) -> T {
    let squares: f64 = tensors
        .iter()
        .flatten()
        .map(|t| sum_of_squares(&t.view()))
        .sum();
    T::from_f64(squares.sqrt())
}

/// `tf.clip_by_global_norm(t_list, clip_norm)`: every tensor times `clip_norm /
/// max(global_norm, clip_norm)`, returned with the global norm *before* clipping.
///
/// If the global norm is at most `clip_norm` the tensors keep their values (up to the
/// rounding of the scale, `clip_norm · (1 / clip_norm)`, as in TensorFlow); otherwise they are
/// all shrunk by the same ratio, so the gradient keeps its direction. `None` entries stay
/// `None`. As TensorFlow documents, if the global norm is infinite (or NaN) every entry
/// becomes NaN "to signal that an error occurred"; the returned norm says which.
///
/// ```
/// use gradtape_nn::clipping::clip_by_global_norm;
/// use gradtape_runtime::Tensor;
/// // Keras' test: [50, 100] clipped to global norm 1 is [50, 100] / ‖[50, 100]‖
/// let grads = vec![Some(Tensor::from_vec(vec![50.0_f64, 100.0], &[2]))];
/// let (clipped, norm) = clip_by_global_norm(&grads, 1.0);
/// assert!((norm - 12500.0_f64.sqrt()).abs() < 1e-12);
/// let clipped = clipped[0].as_ref().unwrap().to_vec();
/// assert!((clipped[0] - 50.0 / norm).abs() < 1e-15 && (clipped[1] - 100.0 / norm).abs() < 1e-15);
/// // a NaN anywhere makes every gradient NaN
/// let bad = vec![Some(Tensor::scalar(f64::NAN)), Some(Tensor::scalar(1.0))];
/// let (clipped, norm) = clip_by_global_norm(&bad, 1.0);
/// assert!(norm.is_nan() && clipped[1].as_ref().unwrap().to_scalar().is_nan());
/// ```
///
/// # Panics
/// If `clip_norm` is not positive and finite.
#[track_caller]
pub fn clip_by_global_norm<T: Float>(
    tensors: &[Option<Tensor<T>>],
    clip_norm: T,
) -> (Vec<Option<Tensor<T>>>, T) {
    check_threshold("clip_by_global_norm", "clip_norm", clip_norm);
    let norm = global_norm(tensors);
    let scale = global_scale(norm, clip_norm);
    let clipped = tensors
        .iter()
        .map(|t| {
            t.as_ref()
                .map(|t| Tensor::from(t.view().mapv(|x| x * scale)))
        })
        .collect();
    (clipped, norm)
}
