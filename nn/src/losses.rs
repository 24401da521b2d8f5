//! Losses, recorded on the active tape like any other op.

use gradtape_runtime::{Float, Tensor};

/// The mean of `(prediction - target)²` over all elements: Keras' `MeanSquaredError`.
///
/// As in Keras (`squeeze_or_expand_to_same_rank`), a shape one axis longer than the other
/// with a trailing axis of length 1 is one value per example: a `[n, 1]` prediction against
/// `[n]` targets compares them pairwise, it does not broadcast them into an `[n, n]`
/// table. Otherwise `target` must have the prediction's shape or broadcast to it (a scalar,
/// or one row for every example).
///
/// ```
/// use gradtape_nn::losses::mean_squared_error;
/// use gradtape_runtime::Tensor;
/// let p = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3]);
/// let y = Tensor::from_vec(vec![1.0_f32, 0.0, 0.0], &[3]);
/// // (0 + 4 + 9) / 3
/// assert_eq!(mean_squared_error(&p, &y).to_scalar(), 13.0 / 3.0);
/// // a column of predictions against a vector of targets: (0 + 4 + 9) / 3 again
/// assert_eq!(mean_squared_error(&p.reshape(&[3, 1]), &y).to_scalar(), 13.0 / 3.0);
/// ```
///
/// # Panics
/// Naming both shapes, if `target` does not broadcast to the prediction's shape once a
/// trailing axis of length 1 is squeezed as above. This is stricter than Keras, which also
/// lets the two broadcast against each other (a `[n, 1]` prediction and a `[1, n]` target
/// into `[n, n]`): such a loss compares every prediction with every target, and is never
/// what was meant.
#[track_caller]
pub fn mean_squared_error<T: Float>(prediction: &Tensor<T>, target: &Tensor<T>) -> Tensor<T> {
    let (p, y) = (prediction.shape(), target.shape());
    let squeezable = |longer: &[usize], shorter: &[usize]| {
        longer.len() == shorter.len() + 1 && longer.last() == Some(&1)
    };
    if squeezable(p, y) {
        return mean_squared_error(&prediction.reshape(&p[..y.len()]), target);
    }
    if squeezable(y, p) {
        return mean_squared_error(prediction, &target.reshape(&y[..p.len()]));
    }
    // Trailing axes aligned, as in broadcasting; the result must keep the prediction's shape.
    let broadcasts_to_prediction = y.len() <= p.len()
        && y.iter()
            .rev()
            .zip(p.iter().rev())
            .all(|(&t, &q)| t == q || t == 1);
    assert!(
        broadcasts_to_prediction,
        "mean_squared_error: prediction of shape {p:?} and target of shape {y:?} do not match; \
         the target needs the prediction's shape or one that broadcasts to it (a trailing \
         axis of length 1 on either is squeezed, as in Keras)"
    );
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
