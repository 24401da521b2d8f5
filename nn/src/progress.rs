//! A progress bar per epoch (indicatif) showing the running loss and accuracy. It draws on
//! standard error only when that is a terminal, so logs and tests stay clean.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::metrics::RunningMean;

/// The bar of one epoch: call [`batch`](Self::batch) after each step and
/// [`finish`](Self::finish) at the end.
///
/// ```
/// use gradtape_nn::progress::EpochProgress;
/// let mut bar = EpochProgress::new(1, 3, 2);
/// bar.batch(0.9, 0.5, 64);
/// bar.batch(0.7, 0.75, 64);
/// let (loss, accuracy, _seconds) = bar.finish();
/// assert!((loss - 0.8).abs() < 1e-12 && (accuracy - 0.625).abs() < 1e-12);
/// ```
pub struct EpochProgress {
    bar: ProgressBar,
    mean: RunningMean,
    start: Instant,
}

impl EpochProgress {
    /// A bar for epoch `epoch` (from 1) of `epochs`, with `batches` steps.
    pub fn new(epoch: usize, epochs: usize, batches: usize) -> EpochProgress {
        let bar = ProgressBar::new(batches as u64);
        let style = ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed}, eta {eta})",
        )
        .expect("the template is valid")
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(format!("epoch {epoch}/{epochs}"));
        EpochProgress {
            bar,
            mean: RunningMean::default(),
            start: Instant::now(),
        }
    }

    /// Records a finished step on a batch of `count` examples with mean `loss` and
    /// `accuracy`, and advances the bar.
    pub fn batch(&mut self, loss: f64, accuracy: f64, count: usize) {
        self.mean.add(loss, accuracy, count);
        self.bar.set_message(format!(
            "loss {:.4} accuracy {:.4}",
            self.mean.loss(),
            self.mean.accuracy()
        ));
        self.bar.inc(1);
    }

    /// Clears the bar and returns the epoch's mean loss, mean accuracy and seconds.
    pub fn finish(self) -> (f64, f64, f64) {
        self.bar.finish_and_clear();
        (
            self.mean.loss(),
            self.mean.accuracy(),
            self.start.elapsed().as_secs_f64(),
        )
    }
}
