//! Metrics computed on values (never recorded), and the per-epoch [`History`] of a run.

use gradtape_runtime::{Float, Tensor};
use ndarray::Axis;

/// The index of the largest entry of each row of a `[batch, classes]` tensor (the first
/// one on ties, as TF's `argmax`).
///
/// ```
/// use gradtape_nn::metrics::argmax_rows;
/// use gradtape_runtime::Tensor;
/// let scores = Tensor::from_vec(vec![0.1_f32, 0.7, 0.2, 0.5, 0.5, 0.0], &[2, 3]);
/// assert_eq!(argmax_rows(&scores), vec![1, 0]);
/// ```
///
/// # Panics
/// If `scores` is not 2-D.
#[track_caller]
pub fn argmax_rows<T: Float>(scores: &Tensor<T>) -> Vec<usize> {
    assert!(
        scores.rank() == 2,
        "argmax_rows: needs a [batch, classes] tensor, got shape {:?}",
        scores.shape()
    );
    scores
        .view()
        .axis_iter(Axis(0))
        .map(|row| {
            row.iter()
                .enumerate()
                .fold((0, T::neg_infinity()), |(best, top), (i, &v)| {
                    if v > top { (i, v) } else { (best, top) }
                })
                .0
        })
        .collect()
}

/// The fraction of rows whose largest score is at the label (Keras'
/// `SparseCategoricalAccuracy`).
///
/// ```
/// use gradtape_nn::metrics::accuracy;
/// use gradtape_runtime::Tensor;
/// let logits = Tensor::from_vec(vec![2.0_f32, 1.0, 0.0, 3.0, 5.0, 4.0], &[3, 2]);
/// assert_eq!(accuracy(&logits, &[0, 1, 1]), 2.0 / 3.0);
/// ```
///
/// # Panics
/// If `logits` is not 2-D or the number of labels differs from its rows.
#[track_caller]
pub fn accuracy<T: Float>(logits: &Tensor<T>, labels: &[usize]) -> f64 {
    let predicted = argmax_rows(logits);
    assert!(
        predicted.len() == labels.len(),
        "accuracy: {} rows of logits but {} labels",
        predicted.len(),
        labels.len()
    );
    if labels.is_empty() {
        return 0.0;
    }
    let correct = predicted.iter().zip(labels).filter(|(p, l)| p == l).count();
    correct as f64 / labels.len() as f64
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochRecord {
    /// Mean training loss over the epoch's batches.
    pub loss: f64,
    /// Mean training accuracy over the epoch's batches.
    pub accuracy: f64,
    /// Accuracy on held-out data after the epoch, if measured.
    pub test_accuracy: Option<f64>,
    /// Wall-clock seconds the epoch took.
    pub seconds: f64,
}

/// The figures of a training run, one record per epoch (Keras' `History`).
///
/// ```
/// use gradtape_nn::History;
/// use gradtape_nn::metrics::EpochRecord;
/// let mut history = History::default();
/// history.push(EpochRecord { loss: 0.5, accuracy: 0.8, test_accuracy: Some(0.85), seconds: 1.0 });
/// assert_eq!(history.epochs().len(), 1);
/// assert_eq!(history.last().unwrap().test_accuracy, Some(0.85));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    epochs: Vec<EpochRecord>,
}

impl History {
    /// Appends an epoch's record.
    pub fn push(&mut self, record: EpochRecord) {
        self.epochs.push(record);
    }

    /// Every epoch's record, in order.
    pub fn epochs(&self) -> &[EpochRecord] {
        &self.epochs
    }

    /// The latest record.
    pub fn last(&self) -> Option<&EpochRecord> {
        self.epochs.last()
    }
}

/// Running means of loss and accuracy over an epoch's batches, weighted by batch size.
///
/// ```
/// use gradtape_nn::metrics::RunningMean;
/// let mut mean = RunningMean::default();
/// mean.add(1.0, 0.5, 2);
/// mean.add(4.0, 1.0, 1);
/// assert_eq!(mean.loss(), 2.0);
/// assert_eq!(mean.accuracy(), 2.0 / 3.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RunningMean {
    loss: f64,
    accuracy: f64,
    count: usize,
}

impl RunningMean {
    /// Adds a batch of `count` examples with mean `loss` and `accuracy`.
    pub fn add(&mut self, loss: f64, accuracy: f64, count: usize) {
        self.loss += loss * count as f64;
        self.accuracy += accuracy * count as f64;
        self.count += count;
    }

    /// The mean loss so far (0 before any batch).
    pub fn loss(&self) -> f64 {
        self.loss / self.count.max(1) as f64
    }

    /// The mean accuracy so far (0 before any batch).
    pub fn accuracy(&self) -> f64 {
        self.accuracy / self.count.max(1) as f64
    }
}
