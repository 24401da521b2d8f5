//! Gradient descent with optional (Nesterov) momentum.

use std::collections::HashMap;

use gradtape_runtime::{Float, Tensor, Variable, VariableId};
use ndarray::{ArrayD, Zip};

use super::{Options, Prelude, UpdateRule, keras_options};

/// Gradient descent with optional momentum, Keras' `SGD`:
///
/// - `momentum == 0`: `w = w - learning_rate * g`
/// - otherwise `velocity = momentum * velocity - learning_rate * g`, then
///   `w = w + velocity`, or with Nesterov `w = w + momentum * velocity - learning_rate * g`.
///
/// (`keras.optimizers.SGD`: "velocity = momentum * velocity - learning_rate * g;
/// w = w + velocity"; with `nesterov=True`, "w = w + momentum * velocity - learning_rate * g".)
///
/// ```
/// use gradtape_nn::{Optimizer, Sgd};
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::new(1.0_f64);
/// let mut sgd = Sgd::new(0.1).with_momentum(0.9);
/// sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]); // v = -0.1, w = 0.9
/// sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]); // v = 0.9·(-0.1) - 0.1 = -0.19
/// assert!((w.value().to_scalar() - 0.71).abs() < 1e-12);
/// ```
///
/// Learning-rate schedules, clipping and weight decay: see [`from_schedule`](Self::from_schedule),
/// [`with_clipnorm`](Self::with_clipnorm), [`with_weight_decay`](Self::with_weight_decay).
pub struct Sgd<T: Float> {
    options: Options<T>,
    rule: SgdRule<T>,
}

/// SGD's hyperparameters and its velocity per variable.
struct SgdRule<T: Float> {
    momentum: T,
    nesterov: bool,
    velocities: HashMap<VariableId, ArrayD<T>>,
}

impl<T: Float> Sgd<T> {
    /// Plain gradient descent with `learning_rate` (Keras' default is 0.01).
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> Sgd<T> {
        Sgd {
            options: Options::fixed("Sgd::new", learning_rate),
            rule: SgdRule {
                momentum: T::zero(),
                nesterov: false,
                velocities: HashMap::new(),
            },
        }
    }

    /// The optimizer with momentum in `[0, 1]`.
    ///
    /// ```
    /// use gradtape_nn::{Optimizer, Sgd};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(Tensor::from_vec(vec![0.0_f64, 0.0], &[2]));
    /// let mut sgd = Sgd::new(1.0).with_momentum(0.5);
    /// for _ in 0..2 {
    ///     sgd.apply_gradients([(Some(Tensor::from_vec(vec![1.0, -2.0], &[2])), &w)]);
    /// }
    /// // velocity -g, then 0.5·(-g) - g: w = -g - 1.5·g = -2.5·g
    /// assert_eq!(w.value().to_vec(), vec![-2.5, 5.0]);
    /// ```
    ///
    /// # Panics
    /// If `momentum` is outside `[0, 1]`.
    #[track_caller]
    pub fn with_momentum(mut self, momentum: T) -> Sgd<T> {
        assert!(
            (T::zero()..=T::one()).contains(&momentum),
            "Sgd::with_momentum: momentum must be in [0, 1], got {momentum}"
        );
        self.rule.momentum = momentum;
        self
    }

    /// The optimizer with Nesterov momentum on or off.
    ///
    /// ```
    /// use gradtape_nn::{Optimizer, Sgd};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(1.0_f64);
    /// let mut sgd = Sgd::new(0.1).with_momentum(0.9).with_nesterov(true);
    /// sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // v = -0.1; w += 0.9·v - 0.1 = -0.19
    /// assert!((w.value().to_scalar() - 0.81).abs() < 1e-15);
    /// ```
    pub fn with_nesterov(mut self, nesterov: bool) -> Sgd<T> {
        self.rule.nesterov = nesterov;
        self
    }
}

keras_options!(Sgd);

/// One weight's SGD step, shared by the array and the scalar paths.
#[derive(Clone, Copy)]
struct SgdStep<T> {
    lr: T,
    momentum: T,
    nesterov: bool,
}

impl<T: Float> SgdStep<T> {
    /// The new weight for weight `w`, gradient `g` and (with momentum) velocity `m`, which
    /// is updated in place.
    #[inline]
    fn step(self, w: T, m: Option<&mut T>, g: T) -> T {
        let Some(m) = m else {
            return w - g * self.lr;
        };
        // Keras: m.assign(-g * lr + m * momentum); then w += m, or with Nesterov
        // w += -g * lr + m * momentum (with the updated m).
        *m = -g * self.lr + *m * self.momentum;
        w + if self.nesterov {
            -g * self.lr + *m * self.momentum
        } else {
            *m
        }
    }
}

impl<T: Float> UpdateRule<T> for SgdRule<T> {
    type Step = SgdStep<T>;

    fn step_constants(&self, learning_rate: T, _iterations: u64) -> SgdStep<T> {
        SgdStep {
            lr: learning_rate,
            momentum: self.momentum,
            nesterov: self.nesterov,
        }
    }

    fn update(
        &mut self,
        var: &Variable<T>,
        value: Tensor<T>,
        grad: &Tensor<T>,
        step: SgdStep<T>,
        prelude: impl Prelude<T>,
    ) {
        let velocity = (step.momentum != T::zero()).then(|| {
            self.velocities
                .entry(var.id())
                .or_insert_with(|| ArrayD::zeros(grad.shape()))
        });
        if grad.shape().is_empty() {
            // A scalar weight (linear regression's): plain numbers, no arrays to build.
            let m = velocity.and_then(|v| v.first_mut());
            let mut w = value.to_scalar();
            let g = prelude.apply(&mut w, grad.to_scalar());
            var.assign(Tensor::scalar(step.step(w, m, g)));
            return;
        }
        // Dropped before the update, which then reuses the storage no tensor shares.
        drop(value);
        // In place: no second buffer the size of the weights.
        match velocity {
            // plain SGD, the common case: on two threads when the weights are large
            None => var.update_zip(grad, |w, g| {
                let g = prelude.apply(w, g);
                *w = step.step(*w, None, g);
            }),
            Some(velocity) => var.update_array(|w| {
                Zip::from(w)
                    .and(velocity)
                    .and(&grad.view())
                    .for_each(|w, m, &g| {
                        let g = prelude.apply(w, g);
                        *w = step.step(*w, Some(m), g);
                    })
            }),
        }
    }
}
