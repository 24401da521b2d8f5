//! RMSprop, plain or centered, with optional momentum.

use std::collections::HashMap;

use gradtape_runtime::{Float, Tensor, Variable, VariableId};
use ndarray::{ArrayD, Zip};

use super::{Options, Prelude, UpdateRule, keras_options};

/// RMSprop (Hinton, 2012), with Keras 3's formulas (`keras/src/optimizers/rmsprop.py`): a
/// moving average of the squared gradient divides the step, optionally centered by the
/// moving average of the gradient itself, optionally with (plain, not Nesterov) momentum:
///
/// ```text
/// velocity = rho * velocity + (1 - rho) * g²
/// centered: average = rho * average + (1 - rho) * g
///           denominator = velocity - average² + epsilon
/// otherwise denominator = velocity + epsilon
/// increment = learning_rate * g / sqrt(denominator)
/// momentum > 0: m = momentum * m + increment; w = w - m
/// otherwise     w = w - increment
/// ```
///
/// `epsilon` sits inside the square root, unlike Adam's. Defaults as Keras: `rho = 0.9`,
/// `momentum = 0`, `epsilon = 1e-7`, not centered.
///
/// ```
/// use gradtape_nn::{Optimizer, RmsProp};
/// use gradtape_runtime::{Tensor, Variable};
/// // Keras' docstring example: loss = w²/2 at w = 10, so g = w = 10
/// let w = Variable::new(10.0_f32);
/// let mut rmsprop = RmsProp::new(0.1);
/// rmsprop.apply_gradients([(Some(Tensor::scalar(10.0)), &w)]);
/// // velocity = 0.1·100 = 10, w = 10 - 0.1·10/√(10 + 1e-7) = 9.683772
/// assert!((w.value().to_scalar() - 9.683772).abs() < 1e-6);
/// ```
pub struct RmsProp<T: Float> {
    options: Options<T>,
    rule: RmsPropRule<T>,
}

/// RMSprop's hyperparameters and its slots per variable.
struct RmsPropRule<T: Float> {
    rho: T,
    momentum: T,
    epsilon: T,
    centered: bool,
    slots: HashMap<VariableId, RmsPropSlots<T>>,
}

/// One variable's moving average of g², and its momentum and moving average of g when used.
struct RmsPropSlots<T> {
    velocity: ArrayD<T>,
    momentum: Option<ArrayD<T>>,
    average: Option<ArrayD<T>>,
}

impl<T: Float> RmsProp<T> {
    /// RMSprop with `learning_rate` (Keras' default is 0.001) and Keras' other defaults.
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> RmsProp<T> {
        RmsProp {
            options: Options::fixed("RmsProp::new", learning_rate),
            rule: RmsPropRule {
                rho: T::from_f64(0.9),
                momentum: T::zero(),
                epsilon: T::from_f64(1e-7),
                centered: false,
                slots: HashMap::new(),
            },
        }
    }

    /// The optimizer with another discounting factor for the old squared gradients.
    ///
    /// ```
    /// use gradtape_nn::{Optimizer, RmsProp};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// RmsProp::new(1.0).with_rho(0.75).apply_gradients([(Some(Tensor::scalar(2.0)), &w)]);
    /// // velocity = 0.25·4 = 1: w = -2/√(1 + 1e-7)
    /// assert!((w.value().to_scalar() + 2.0).abs() < 1e-6);
    /// ```
    ///
    /// # Panics
    /// If `rho` is outside `[0, 1]`.
    #[track_caller]
    pub fn with_rho(mut self, rho: T) -> RmsProp<T> {
        assert!(
            (T::zero()..=T::one()).contains(&rho),
            "RmsProp::with_rho: rho must be in [0, 1], got {rho}"
        );
        self.rule.rho = rho;
        self
    }

    /// The optimizer with momentum in `[0, 1]`: the increments accumulate as
    /// `m = momentum * m + increment`, and `m` is subtracted.
    ///
    /// ```
    /// use gradtape_nn::{Optimizer, RmsProp};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// let mut rmsprop = RmsProp::new(1.0).with_rho(0.0).with_momentum(0.5);
    /// // rho = 0: velocity = g², so each increment is g/√(g² + ε) ≈ 1
    /// rmsprop.apply_gradients([(Some(Tensor::scalar(3.0)), &w)]); // m ≈ 1
    /// rmsprop.apply_gradients([(Some(Tensor::scalar(3.0)), &w)]); // m ≈ 0.5 + 1
    /// assert!((w.value().to_scalar() + 2.5).abs() < 1e-6);
    /// ```
    ///
    /// # Panics
    /// If `momentum` is outside `[0, 1]`.
    #[track_caller]
    pub fn with_momentum(mut self, momentum: T) -> RmsProp<T> {
        assert!(
            (T::zero()..=T::one()).contains(&momentum),
            "RmsProp::with_momentum: momentum must be in [0, 1], got {momentum}"
        );
        self.rule.momentum = momentum;
        self
    }

    /// The optimizer with another `epsilon`, added to the denominator inside the square
    /// root.
    ///
    /// ```
    /// use gradtape_nn::{Optimizer, RmsProp};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// RmsProp::new(1.0).with_epsilon(0.9).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // velocity = 0.1: w = -1/√(0.1 + 0.9)
    /// assert!((w.value().to_scalar() + 1.0).abs() < 1e-15);
    /// ```
    ///
    /// # Panics
    /// If `epsilon` is negative or not finite.
    #[track_caller]
    pub fn with_epsilon(mut self, epsilon: T) -> RmsProp<T> {
        super::check_rate("RmsProp::with_epsilon", "epsilon", epsilon);
        self.rule.epsilon = epsilon;
        self
    }

    /// The optimizer normalising by the estimated variance of the gradient (`centered =
    /// true`, `velocity - average²`) instead of its uncentered second moment.
    ///
    /// ```
    /// use gradtape_nn::{Optimizer, RmsProp};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// RmsProp::new(1.0).with_centered(true).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // velocity = 0.1, average = 0.1: w = -1/√(0.1 - 0.01 + 1e-7)
    /// assert!((w.value().to_scalar() + 1.0 / (0.09_f64 + 1e-7).sqrt()).abs() < 1e-12);
    /// ```
    pub fn with_centered(mut self, centered: bool) -> RmsProp<T> {
        self.rule.centered = centered;
        self
    }
}

keras_options!(RmsProp);

/// One weight's RMSprop step on its slots, Keras' `update_step` element by element.
#[derive(Clone, Copy)]
struct RmsPropStep<T> {
    lr: T,
    rho: T,
    momentum: T,
    epsilon: T,
}

impl<T: Float> RmsPropStep<T> {
    #[inline]
    fn step(
        self,
        w: &mut T,
        g: T,
        velocity: &mut T,
        momentum: Option<&mut T>,
        average: Option<&mut T>,
    ) {
        let one_minus_rho = T::one() - self.rho;
        *velocity = self.rho * *velocity + one_minus_rho * (g * g);
        let denominator = match average {
            Some(average) => {
                *average = self.rho * *average + one_minus_rho * g;
                *velocity - *average * *average + self.epsilon
            }
            None => *velocity + self.epsilon,
        };
        let increment = self.lr * g / denominator.sqrt();
        match momentum {
            Some(m) => {
                *m = self.momentum * *m + increment;
                *w -= *m;
            }
            None => *w -= increment,
        }
    }
}

impl<T: Float> UpdateRule<T> for RmsPropRule<T> {
    type Step = RmsPropStep<T>;

    fn step_constants(&self, learning_rate: T, _iterations: u64) -> RmsPropStep<T> {
        RmsPropStep {
            lr: learning_rate,
            rho: self.rho,
            momentum: self.momentum,
            epsilon: self.epsilon,
        }
    }

    fn update(
        &mut self,
        var: &Variable<T>,
        value: Tensor<T>,
        grad: &Tensor<T>,
        step: RmsPropStep<T>,
        prelude: impl Prelude<T>,
    ) {
        // Dropped at once, so that the update reuses the storage no tensor shares.
        drop(value);
        let g = grad.view();
        // Keras keeps the slots it built with: momentum when momentum > 0, the average
        // when centered. Slots missing because an option came on later start at zero.
        let (with_momentum, centered) = (step.momentum > T::zero(), self.centered);
        let slots = self.slots.entry(var.id()).or_insert_with(|| RmsPropSlots {
            velocity: ArrayD::zeros(g.shape()),
            momentum: None,
            average: None,
        });
        if with_momentum && slots.momentum.is_none() {
            slots.momentum = Some(ArrayD::zeros(g.shape()));
        }
        if centered && slots.average.is_none() {
            slots.average = Some(ArrayD::zeros(g.shape()));
        }
        let RmsPropSlots {
            velocity,
            momentum,
            average,
        } = slots;
        let momentum = momentum.as_mut().filter(|_| with_momentum);
        let average = average.as_mut().filter(|_| centered);
        // In place: no second buffer the size of the weights. One Zip per combination of
        // slots, since a Zip's producers are fixed.
        var.update_array(|w| {
            let zip = Zip::from(w).and(&g).and(velocity);
            match (momentum, average) {
                (None, None) => zip.for_each(|w, &g, velocity| {
                    let g = prelude.apply(w, g);
                    step.step(w, g, velocity, None, None);
                }),
                (Some(m), None) => zip.and(m).for_each(|w, &g, velocity, m| {
                    let g = prelude.apply(w, g);
                    step.step(w, g, velocity, Some(m), None);
                }),
                (None, Some(a)) => zip.and(a).for_each(|w, &g, velocity, a| {
                    let g = prelude.apply(w, g);
                    step.step(w, g, velocity, None, Some(a));
                }),
                (Some(m), Some(a)) => zip.and(m).and(a).for_each(|w, &g, velocity, m, a| {
                    let g = prelude.apply(w, g);
                    step.step(w, g, velocity, Some(m), Some(a));
                }),
            }
        });
    }
}
