//! Learning-rate schedules, Keras 3's `keras.optimizers.schedules` with its formulas.
//!
//! A schedule maps the optimizer's step count to a learning rate. Every optimizer accepts
//! one in place of a fixed rate (`Sgd::from_schedule`, `Adam::from_schedule`, ...) and, as
//! Keras does, evaluates it at `iterations()` *before* the step increments it: the first
//! `apply_gradients` uses `rate(0)`, the second `rate(1)`.
//!
//! ```
//! use gradtape_nn::schedules::{ExponentialDecay, LearningRateSchedule};
//! use gradtape_nn::{Optimizer, Sgd};
//! use gradtape_runtime::{Tensor, Variable};
//!
//! let schedule = ExponentialDecay::new(0.1, 1, 0.5); // 0.1, 0.05, 0.025, ...
//! assert_eq!(schedule.rate(2), 0.025);
//! let w = Variable::new(0.0_f64);
//! let mut sgd = Sgd::from_schedule(schedule);
//! for _ in 0..3 {
//!     sgd.apply_gradients([(Some(Tensor::scalar(-1.0)), &w)]);
//! }
//! // w = 0.1 + 0.05 + 0.025
//! assert!((w.value().to_scalar() - 0.175).abs() < 1e-15);
//! ```
//!
//! Rates are computed in `f64` and converted to the variables' dtype by the optimizer
//! (Keras computes them in the dtype of `initial_learning_rate`, usually `float32`, and
//! casts; the two agree to `f32` rounding).

/// A learning rate as a function of the optimizer's step, Keras'
/// `keras.optimizers.schedules.LearningRateSchedule`.
///
/// Closures `Fn(u64) -> f64` are schedules, as Keras accepts any callable of the step:
///
/// ```
/// use gradtape_nn::schedules::LearningRateSchedule;
/// use gradtape_nn::{Optimizer, Sgd};
/// use gradtape_runtime::{Tensor, Variable};
///
/// // Keras' documented custom schedule: initial_learning_rate / (step + 1)
/// let schedule = |step: u64| 0.1 / (step + 1) as f64;
/// assert_eq!(schedule.rate(1), 0.05);
/// let w = Variable::new(1.0_f64);
/// let mut sgd = Sgd::from_schedule(schedule);
/// sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]); // lr 0.1
/// sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]); // lr 0.05
/// assert!((w.value().to_scalar() - 0.85).abs() < 1e-15);
/// ```
pub trait LearningRateSchedule {
    /// The learning rate of the step taken when `step` steps have been taken before it (0
    /// for the first).
    fn rate(&self, step: u64) -> f64;
}

impl<F: Fn(u64) -> f64> LearningRateSchedule for F {
    fn rate(&self, step: u64) -> f64 {
        self(step)
    }
}

/// Checks that a schedule's step count is positive.
///
/// # Panics
/// Naming the schedule, if `decay_steps` is zero (Keras raises the same `ValueError`).
#[track_caller]
fn check_decay_steps(schedule: &str, decay_steps: u64) {
    assert!(
        decay_steps > 0,
        "{schedule}::new: decay_steps must be positive, got 0"
    );
}

/// `initial_learning_rate * decay_rate ^ (step / decay_steps)`, Keras' `ExponentialDecay`.
///
/// With `staircase`, `step / decay_steps` is an integer division: the rate drops by
/// `decay_rate` once every `decay_steps` steps. Keras:
///
/// ```text
/// p = step / decay_steps
/// if staircase: p = floor(p)
/// return initial_learning_rate * decay_rate ** p
/// ```
///
/// ```
/// use gradtape_nn::schedules::{ExponentialDecay, LearningRateSchedule};
/// // Keras' test: 0.05 · 0.96^(5/10) at step 5
/// let smooth = ExponentialDecay::new(0.05, 10, 0.96);
/// assert!((smooth.rate(5) - 0.05 * 0.96_f64.powf(0.5)).abs() < 1e-15);
/// // staircase: flat for steps 0..3, then 0.1 · 0.96^⌊100/3⌋ at step 100
/// let stairs = ExponentialDecay::new(0.1, 3, 0.96).with_staircase(true);
/// assert_eq!(stairs.rate(2), 0.1);
/// assert!((stairs.rate(100) - 0.1 * 0.96_f64.powi(33)).abs() < 1e-15);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ExponentialDecay {
    initial_learning_rate: f64,
    decay_steps: u64,
    decay_rate: f64,
    staircase: bool,
}

impl ExponentialDecay {
    /// The schedule decaying by `decay_rate` every `decay_steps` steps, continuously.
    ///
    /// # Panics
    /// If `decay_steps` is zero.
    #[track_caller]
    pub fn new(initial_learning_rate: f64, decay_steps: u64, decay_rate: f64) -> ExponentialDecay {
        check_decay_steps("ExponentialDecay", decay_steps);
        ExponentialDecay {
            initial_learning_rate,
            decay_steps,
            decay_rate,
            staircase: false,
        }
    }

    /// The schedule decaying at discrete intervals (`staircase = true`) or continuously.
    pub fn with_staircase(mut self, staircase: bool) -> ExponentialDecay {
        self.staircase = staircase;
        self
    }
}

impl LearningRateSchedule for ExponentialDecay {
    fn rate(&self, step: u64) -> f64 {
        let mut p = step as f64 / self.decay_steps as f64;
        if self.staircase {
            p = p.floor();
        }
        self.initial_learning_rate * self.decay_rate.powf(p)
    }
}

/// `initial_learning_rate / (1 + decay_rate * step / decay_steps)`, Keras'
/// `InverseTimeDecay`:
///
/// ```text
/// p = step / decay_steps
/// if staircase: p = floor(p)
/// return initial_learning_rate / (1 + decay_rate * p)
/// ```
///
/// ```
/// use gradtape_nn::schedules::{InverseTimeDecay, LearningRateSchedule};
/// // Keras' example: 1/t decay with rate 0.5, decay_steps 1: 0.1 / (1 + 0.5 · 2) at step 2
/// let schedule = InverseTimeDecay::new(0.1, 1, 0.5);
/// assert!((schedule.rate(2) - 0.05).abs() < 1e-15);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct InverseTimeDecay {
    initial_learning_rate: f64,
    decay_steps: u64,
    decay_rate: f64,
    staircase: bool,
}

impl InverseTimeDecay {
    /// The schedule dividing the rate by `1 + decay_rate` after each `decay_steps` steps,
    /// continuously.
    ///
    /// # Panics
    /// If `decay_steps` is zero.
    #[track_caller]
    pub fn new(initial_learning_rate: f64, decay_steps: u64, decay_rate: f64) -> InverseTimeDecay {
        check_decay_steps("InverseTimeDecay", decay_steps);
        InverseTimeDecay {
            initial_learning_rate,
            decay_steps,
            decay_rate,
            staircase: false,
        }
    }

    /// The schedule decaying at discrete intervals (`staircase = true`) or continuously.
    ///
    /// ```
    /// use gradtape_nn::schedules::{InverseTimeDecay, LearningRateSchedule};
    /// let schedule = InverseTimeDecay::new(0.1, 10, 0.96).with_staircase(true);
    /// assert_eq!(schedule.rate(9), 0.1);
    /// assert!((schedule.rate(10) - 0.1 / 1.96).abs() < 1e-15);
    /// ```
    pub fn with_staircase(mut self, staircase: bool) -> InverseTimeDecay {
        self.staircase = staircase;
        self
    }
}

impl LearningRateSchedule for InverseTimeDecay {
    fn rate(&self, step: u64) -> f64 {
        let mut p = step as f64 / self.decay_steps as f64;
        if self.staircase {
            p = p.floor();
        }
        self.initial_learning_rate / (1.0 + self.decay_rate * p)
    }
}

/// Constant rates between step boundaries, Keras' `PiecewiseConstantDecay`: `values[0]`
/// while `step <= boundaries[0]`, `values[i]` while `boundaries[i-1] < step <=
/// boundaries[i]`, and the last value once `step > boundaries[last]`.
///
/// ```
/// use gradtape_nn::schedules::{LearningRateSchedule, PiecewiseConstantDecay};
/// // Keras' example: 1.0 for the first 100001 steps, 0.5 for the next 10000, then 0.1
/// let schedule = PiecewiseConstantDecay::new(vec![100_000, 110_000], vec![1.0, 0.5, 0.1]);
/// assert_eq!(schedule.rate(100_000), 1.0);
/// assert_eq!(schedule.rate(100_001), 0.5);
/// assert_eq!(schedule.rate(110_000), 0.5);
/// assert_eq!(schedule.rate(110_001), 0.1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PiecewiseConstantDecay {
    boundaries: Vec<u64>,
    values: Vec<f64>,
}

impl PiecewiseConstantDecay {
    /// The schedule with `values.len() == boundaries.len() + 1` values; `boundaries` must
    /// increase strictly (Keras' documented requirement). No boundaries: one constant rate.
    ///
    /// # Panics
    /// If the lengths do not fit (Keras' `ValueError`) or the boundaries do not increase.
    #[track_caller]
    pub fn new(boundaries: Vec<u64>, values: Vec<f64>) -> PiecewiseConstantDecay {
        assert!(
            values.len() == boundaries.len() + 1,
            "PiecewiseConstantDecay::new: {} boundaries need {} values, got {}",
            boundaries.len(),
            boundaries.len() + 1,
            values.len()
        );
        assert!(
            boundaries.windows(2).all(|pair| pair[0] < pair[1]),
            "PiecewiseConstantDecay::new: boundaries must increase strictly, got {boundaries:?}"
        );
        PiecewiseConstantDecay { boundaries, values }
    }
}

impl LearningRateSchedule for PiecewiseConstantDecay {
    fn rate(&self, step: u64) -> f64 {
        // How many boundaries the step is past: its interval's index.
        self.values[self.boundaries.partition_point(|&b| b < step)]
    }
}

/// Cosine decay with an optional linear warm-up, Keras 3's `CosineDecay` (SGDR,
/// Loshchilov & Hutter; warm-up as Goyal et al.).
///
/// Without warm-up the rate falls from `initial_learning_rate` to `initial_learning_rate *
/// alpha` over `decay_steps` steps, then stays there. With
/// [`with_warmup`](Self::with_warmup)`(warmup_target, warmup_steps)` it first rises linearly
/// from `initial_learning_rate` to `warmup_target` over `warmup_steps` steps, then decays
/// from `warmup_target` to `warmup_target * alpha`. Keras 3's code:
///
/// ```text
/// decay(step, decay_from) =
///     decay_from * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)
/// no warm-up:  decay(min(step, decay_steps), initial_learning_rate)
/// warm-up:     step = min(step, decay_steps + warmup_steps)
///              if step < warmup_steps:
///                  (warmup_target - initial_learning_rate) * step / warmup_steps
///                      + initial_learning_rate
///              else: decay(step - warmup_steps, warmup_target)
/// ```
///
/// (Keras' docstring writes the warm-up without the `+ initial_learning_rate`; its code,
/// followed here, adds it.)
///
/// ```
/// use gradtape_nn::schedules::{CosineDecay, LearningRateSchedule};
/// let schedule = CosineDecay::new(0.1, 100);
/// assert_eq!(schedule.rate(0), 0.1);
/// assert!((schedule.rate(50) - 0.05).abs() < 1e-15); // half way: cos(π/2) = 0
/// assert_eq!(schedule.rate(100), 0.0);
/// // warm-up from 0 to 1 over 10 steps, then the decay from 1 over 100 steps
/// let warm = CosineDecay::new(0.0, 100).with_warmup(1.0, 10);
/// assert!((warm.rate(5) - 0.5).abs() < 1e-15);
/// assert_eq!(warm.rate(10), 1.0);
/// assert!((warm.rate(60) - 0.5).abs() < 1e-15);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CosineDecay {
    initial_learning_rate: f64,
    decay_steps: u64,
    alpha: f64,
    warmup: Option<(f64, u64)>,
}

impl CosineDecay {
    /// The schedule decaying from `initial_learning_rate` to 0 over `decay_steps` steps.
    ///
    /// # Panics
    /// If `decay_steps` is zero.
    #[track_caller]
    pub fn new(initial_learning_rate: f64, decay_steps: u64) -> CosineDecay {
        check_decay_steps("CosineDecay", decay_steps);
        CosineDecay {
            initial_learning_rate,
            decay_steps,
            alpha: 0.0,
            warmup: None,
        }
    }

    /// The schedule ending at `alpha` times the rate it decays from, instead of 0.
    ///
    /// ```
    /// use gradtape_nn::schedules::{CosineDecay, LearningRateSchedule};
    /// let schedule = CosineDecay::new(1.0, 1000).with_alpha(0.1);
    /// assert!((schedule.rate(5000) - 0.1).abs() < 1e-15);
    /// ```
    pub fn with_alpha(mut self, alpha: f64) -> CosineDecay {
        self.alpha = alpha;
        self
    }

    /// The schedule with Keras 3's warm-up: linear from `initial_learning_rate` to
    /// `warmup_target` over `warmup_steps` steps, then the decay from `warmup_target`.
    ///
    /// ```
    /// use gradtape_nn::schedules::{CosineDecay, LearningRateSchedule};
    /// // Keras' example: warm up from 0 to 0.1 over 1000 steps, then decay over 1000
    /// let schedule = CosineDecay::new(0.0, 1000).with_warmup(0.1, 1000);
    /// assert!((schedule.rate(250) - 0.025).abs() < 1e-15);
    /// assert!((schedule.rate(1500) - 0.05).abs() < 1e-15);
    /// ```
    pub fn with_warmup(mut self, warmup_target: f64, warmup_steps: u64) -> CosineDecay {
        self.warmup = Some((warmup_target, warmup_steps));
        self
    }

    /// Keras' `_decay_function`: the rate `step` steps into the decay from `decay_from`.
    fn decay(&self, step: f64, decay_from: f64) -> f64 {
        let completed_fraction = step / self.decay_steps as f64;
        let cosine_decayed = 0.5 * (1.0 + (std::f64::consts::PI * completed_fraction).cos());
        decay_from * ((1.0 - self.alpha) * cosine_decayed + self.alpha)
    }
}

impl LearningRateSchedule for CosineDecay {
    fn rate(&self, step: u64) -> f64 {
        let decay_steps = self.decay_steps as f64;
        let Some((warmup_target, warmup_steps)) = self.warmup else {
            return self.decay((step as f64).min(decay_steps), self.initial_learning_rate);
        };
        let warmup_steps = warmup_steps as f64;
        let step = (step as f64).min(decay_steps + warmup_steps);
        if step < warmup_steps {
            let completed_fraction = step / warmup_steps;
            (warmup_target - self.initial_learning_rate) * completed_fraction
                + self.initial_learning_rate
        } else {
            self.decay(step - warmup_steps, warmup_target)
        }
    }
}

/// A linear warm-up in front of any schedule, as TensorFlow Model Garden's `LinearWarmup`
/// (`official/modeling/optimization/lr_schedule.py`; Keras itself has warm-up only inside
/// `CosineDecay`):
///
/// ```text
/// final = after.rate(warmup_steps)
/// step < warmup_steps:  warmup_learning_rate + step / warmup_steps * (final - warmup_learning_rate)
/// otherwise:            after.rate(step)
/// ```
///
/// The wrapped schedule sees the global step, not the step since the warm-up ended: the
/// warm-up replaces its first `warmup_steps` steps and ends at the value it has there, so
/// the rate is continuous. A constant rate after the warm-up is the closure `|_: u64| rate`.
///
/// ```
/// use gradtape_nn::schedules::{ExponentialDecay, LearningRateSchedule, LinearWarmup};
/// // from 0 up to the constant 0.1 in 4 steps: 0, 0.025, 0.05, 0.075, then 0.1
/// let constant = LinearWarmup::new(|_: u64| 0.1, 4, 0.0);
/// assert!((constant.rate(1) - 0.025).abs() < 1e-15);
/// assert_eq!(constant.rate(4), 0.1);
/// // in front of a decay: ends at the decay's value at step 10, 0.1 · 0.5
/// let decay = LinearWarmup::new(ExponentialDecay::new(0.1, 10, 0.5), 10, 0.0);
/// assert!((decay.rate(5) - 0.025).abs() < 1e-15);
/// assert!((decay.rate(10) - 0.05).abs() < 1e-15);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LinearWarmup<S> {
    after: S,
    warmup_steps: u64,
    warmup_learning_rate: f64,
    final_warmup_rate: f64,
}

impl<S: LearningRateSchedule> LinearWarmup<S> {
    /// Warms up linearly from `warmup_learning_rate` for `warmup_steps` steps (none if 0),
    /// then follows `after`.
    pub fn new(after: S, warmup_steps: u64, warmup_learning_rate: f64) -> LinearWarmup<S> {
        let final_warmup_rate = after.rate(warmup_steps);
        LinearWarmup {
            after,
            warmup_steps,
            warmup_learning_rate,
            final_warmup_rate,
        }
    }
}

impl<S: LearningRateSchedule> LearningRateSchedule for LinearWarmup<S> {
    fn rate(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            self.warmup_learning_rate
                + step as f64 / self.warmup_steps as f64
                    * (self.final_warmup_rate - self.warmup_learning_rate)
        } else {
            self.after.rate(step)
        }
    }
}
