//! Losses, recorded on the active tape like any other op.

use gradtape_runtime::{Float, Tensor};

/// The mean of `(prediction - target)²` over all elements (Keras' `MeanSquaredError` for
/// equal shapes). `target` may broadcast against `prediction`.
///
/// ```
/// use gradtape_nn::losses::mean_squared_error;
/// use gradtape_runtime::Tensor;
/// let p = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3]);
/// let y = Tensor::from_vec(vec![1.0_f32, 0.0, 0.0], &[3]);
/// // (0 + 4 + 9) / 3
/// assert_eq!(mean_squared_error(&p, &y).to_scalar(), 13.0 / 3.0);
/// ```
///
/// # Panics
/// If the shapes do not broadcast.
#[track_caller]
pub fn mean_squared_error<T: Float>(prediction: &Tensor<T>, target: &Tensor<T>) -> Tensor<T> {
    (prediction - target).square().mean()
}

/// Softmax cross-entropy from unnormalised `logits` `[batch, classes]` and integer class
/// `labels` (one per row), averaged over the batch: Keras'
/// `SparseCategoricalCrossentropy(from_logits=True)`, the mean of TF's
/// `sparse_softmax_cross_entropy_with_logits`.
///
/// Stable for any logits: it is computed as `-log_softmax(logits)[i, label_i]`, with the
/// log-sum-exp shifted by each row's maximum, never as `ln(softmax)`.
///
/// ```
/// use gradtape_nn::losses::sparse_softmax_cross_entropy;
/// use gradtape_runtime::Tensor;
/// let logits = Tensor::from_vec(vec![0.0_f64, 0.0, 1000.0, 0.0], &[2, 2]);
/// // row 0: -ln(1/2); row 1 (label 0, logit 1000 vs 0): -ln(1/(1 + e⁻¹⁰⁰⁰)) ≈ 0
/// let loss = sparse_softmax_cross_entropy(&logits, &[1, 0]);
/// assert!((loss.to_scalar() - 2f64.ln() / 2.0).abs() < 1e-12);
/// ```
///
/// # Panics
/// If `logits` is not 2-D, the number of labels differs from its rows, or a label is not a
/// class index.
#[track_caller]
pub fn sparse_softmax_cross_entropy<T: Float>(logits: &Tensor<T>, labels: &[usize]) -> Tensor<T> {
    sparse_softmax_cross_entropy_per_example(logits, labels).mean()
}

/// The per-example losses behind [`sparse_softmax_cross_entropy`] (TF's
/// `sparse_softmax_cross_entropy_with_logits`): a `[batch]` tensor of
/// `-log_softmax(logits)[i, label_i]`.
///
/// ```
/// use gradtape_nn::losses::sparse_softmax_cross_entropy_per_example;
/// use gradtape_runtime::Tensor;
/// let logits = Tensor::from_vec(vec![0.0_f64, 0.0], &[1, 2]);
/// let losses = sparse_softmax_cross_entropy_per_example(&logits, &[0]);
/// assert!((losses.to_vec()[0] - 2f64.ln()).abs() < 1e-12);
/// ```
///
/// # Panics
/// As [`sparse_softmax_cross_entropy`].
#[track_caller]
pub fn sparse_softmax_cross_entropy_per_example<T: Float>(
    logits: &Tensor<T>,
    labels: &[usize],
) -> Tensor<T> {
    // One fused op, which checks the shapes and labels (naming itself): its rule is
    // softmax - onehot, without log_softmax's, gather's and negation's temporaries.
    logits.sparse_softmax_cross_entropy_with_logits(labels)
}
