//! Optimizers with TensorFlow's (Keras 3's) update formulas, applied to `(gradient,
//! variable)` pairs as `optimizer.apply_gradients(zip(grads, vars))` does.
//!
//! Updates are computed elementwise on the values, outside every tape: an update is never
//! recorded, whatever tape is active around it.

use std::collections::HashMap;

use gradtape_runtime::{Float, Tensor, Variable, VariableId, any_recording, without_recording};
use ndarray::{ArrayD, Zip};

/// Applies gradients to variables.
///
/// ```
/// use gradtape_nn::{Optimizer, Sgd};
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
/// let mut sgd = Sgd::new(0.5);
/// sgd.apply_gradients([(Some(Tensor::from_vec(vec![2.0, -2.0], &[2])), &w)]);
/// assert_eq!(w.value().to_vec(), vec![0.0, 3.0]);
/// assert_eq!(sgd.iterations(), 1);
/// ```
pub trait Optimizer<T: Float> {
    /// Updates each variable from its gradient. Pairs whose gradient is `None` (the loss
    /// does not depend on that variable) are skipped, as Keras skips them. One call is one
    /// step: the step counter (Adam's bias correction) advances once per call.
    ///
    /// # Panics
    /// If a gradient's shape differs from its variable's; the panic points at the call.
    #[track_caller]
    fn apply_gradients<'a, I>(&mut self, grads_and_vars: I)
    where
        I: IntoIterator<Item = (Option<Tensor<T>>, &'a Variable<T>)>,
        T: 'a;

    /// How many times `apply_gradients` has run (Keras' `optimizer.iterations`).
    fn iterations(&self) -> u64;
}

/// The value of `var`, checked against the gradient's shape.
///
/// # Panics
/// Naming the optimizer and the variable, if a gradient's shape is not its variable's.
#[track_caller]
fn checked_value<T: Float>(op: &str, var: &Variable<T>, grad: &Tensor<T>) -> Tensor<T> {
    // An optimizer's reads are not a model's: no tape may see them. Nothing records in the
    // usual training loop, and then suspending the tapes is work for nothing.
    let value = if any_recording() {
        without_recording(|| var.value())
    } else {
        var.value()
    };
    assert!(
        grad.has_shape(value.shape()),
        "{op}: gradient of shape {:?} for variable '{}' of shape {:?}",
        grad.shape(),
        var.name(),
        value.shape()
    );
    value
}

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
pub struct Sgd<T: Float> {
    learning_rate: T,
    momentum: T,
    nesterov: bool,
    velocities: HashMap<VariableId, ArrayD<T>>,
    iterations: u64,
}

impl<T: Float> Sgd<T> {
    /// Plain gradient descent with `learning_rate` (Keras' default is 0.01).
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> Sgd<T> {
        assert!(
            learning_rate >= T::zero() && learning_rate.is_finite(),
            "Sgd::new: learning rate must be finite and non-negative, got {learning_rate}"
        );
        Sgd {
            learning_rate,
            momentum: T::zero(),
            nesterov: false,
            velocities: HashMap::new(),
            iterations: 0,
        }
    }

    /// The optimizer with momentum in `[0, 1]`.
    ///
    /// # Panics
    /// If `momentum` is outside `[0, 1]`.
    #[track_caller]
    pub fn with_momentum(mut self, momentum: T) -> Sgd<T> {
        assert!(
            (T::zero()..=T::one()).contains(&momentum),
            "Sgd::with_momentum: momentum must be in [0, 1], got {momentum}"
        );
        self.momentum = momentum;
        self
    }

    /// The optimizer with Nesterov momentum on or off.
    pub fn with_nesterov(mut self, nesterov: bool) -> Sgd<T> {
        self.nesterov = nesterov;
        self
    }

    /// The learning rate.
    pub fn learning_rate(&self) -> T {
        self.learning_rate
    }

    /// Changes the learning rate (for schedules); the velocities are kept.
    pub fn set_learning_rate(&mut self, learning_rate: T) {
        self.learning_rate = learning_rate;
    }

    #[track_caller]
    fn update(&mut self, grad: &Tensor<T>, var: &Variable<T>) {
        let value = checked_value("Sgd::apply_gradients", var, grad);
        let rule = SgdRule {
            lr: self.learning_rate,
            momentum: self.momentum,
            nesterov: self.nesterov,
        };
        let velocity = (rule.momentum != T::zero()).then(|| {
            self.velocities
                .entry(var.id())
                .or_insert_with(|| ArrayD::zeros(grad.shape()))
        });
        if grad.shape().is_empty() {
            // A scalar weight (linear regression's): plain numbers, no arrays to build.
            let m = velocity.and_then(|v| v.first_mut());
            let w = rule.step(value.to_scalar(), m, grad.to_scalar());
            var.assign(Tensor::scalar(w));
            return;
        }
        // Dropped before the update, which then reuses the storage no tensor shares.
        drop(value);
        // In place: no second buffer the size of the weights.
        match velocity {
            // plain SGD, the common case: on two threads when the weights are large
            None => var.update_zip(grad, |w, g| *w = rule.step(*w, None, g)),
            Some(velocity) => var.update_array(|w| {
                Zip::from(w)
                    .and(velocity)
                    .and(&grad.view())
                    .for_each(|w, m, &g| *w = rule.step(*w, Some(m), g))
            }),
        }
    }
}

/// One weight's SGD step, shared by the array and the scalar paths.
#[derive(Clone, Copy)]
struct SgdRule<T> {
    lr: T,
    momentum: T,
    nesterov: bool,
}

impl<T: Float> SgdRule<T> {
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

impl<T: Float> Optimizer<T> for Sgd<T> {
    fn apply_gradients<'a, I>(&mut self, grads_and_vars: I)
    where
        I: IntoIterator<Item = (Option<Tensor<T>>, &'a Variable<T>)>,
        T: 'a,
    {
        for (grad, var) in grads_and_vars {
            if let Some(grad) = grad {
                self.update(&grad, var);
            }
        }
        self.iterations += 1;
    }

    fn iterations(&self) -> u64 {
        self.iterations
    }
}

/// Adam, with TensorFlow's formulas (Keras 3 `keras/src/optimizers/adam.py`, the
/// implementation behind `tf.keras.optimizers.Adam`). At step `t = iterations + 1`:
///
/// ```text
/// alpha = learning_rate * sqrt(1 - beta_2^t) / (1 - beta_1^t)
/// m = m + (g - m) * (1 - beta_1)
/// v = v + (g² - v) * (1 - beta_2)
/// w = w - (m * alpha) / (sqrt(v) + epsilon)
/// ```
///
/// The bias correction is folded into the step size, so `epsilon` is the paper's
/// "epsilon hat" (TF's docs: "This epsilon is 'epsilon hat' in the Kingma and Ba paper (in
/// the formula just before Section 2.1), not the epsilon in Algorithm 1 of the paper").
/// Defaults as in TF: `beta_1 = 0.9`, `beta_2 = 0.999`, `epsilon = 1e-7`.
///
/// ```
/// use gradtape_nn::{Adam, Optimizer};
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::new(1.0_f64);
/// let mut adam = Adam::new(0.1);
/// adam.apply_gradients([(Some(Tensor::scalar(2.0)), &w)]);
/// // step 1: m = 0.1·2 = 0.2, v = 0.001·4 = 0.004, alpha = 0.1·sqrt(0.001)/0.1,
/// // w = 1 - 0.2·alpha/(sqrt(0.004) + 1e-7) = 1 - 0.1 up to epsilon
/// // (the first Adam step moves each weight by about the learning rate)
/// assert!((w.value().to_scalar() - 0.9).abs() < 1e-6);
/// ```
pub struct Adam<T: Float> {
    learning_rate: T,
    beta_1: T,
    beta_2: T,
    epsilon: T,
    moments: HashMap<VariableId, (ArrayD<T>, ArrayD<T>)>,
    iterations: u64,
}

impl<T: Float> Adam<T> {
    /// Adam with `learning_rate` (TF's default is 0.001) and TF's other defaults.
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> Adam<T> {
        assert!(
            learning_rate >= T::zero() && learning_rate.is_finite(),
            "Adam::new: learning rate must be finite and non-negative, got {learning_rate}"
        );
        Adam {
            learning_rate,
            beta_1: T::from_f64(0.9),
            beta_2: T::from_f64(0.999),
            epsilon: T::from_f64(1e-7),
            moments: HashMap::new(),
            iterations: 0,
        }
    }

    /// The optimizer with other decay rates for the moment estimates.
    ///
    /// # Panics
    /// If either is outside `[0, 1)`.
    #[track_caller]
    pub fn with_betas(mut self, beta_1: T, beta_2: T) -> Adam<T> {
        let valid = |b: T| (T::zero()..T::one()).contains(&b);
        assert!(
            valid(beta_1) && valid(beta_2),
            "Adam::with_betas: betas must be in [0, 1), got {beta_1} and {beta_2}"
        );
        self.beta_1 = beta_1;
        self.beta_2 = beta_2;
        self
    }

    /// The optimizer with another `epsilon` (the paper's "epsilon hat").
    pub fn with_epsilon(mut self, epsilon: T) -> Adam<T> {
        self.epsilon = epsilon;
        self
    }

    /// The learning rate.
    pub fn learning_rate(&self) -> T {
        self.learning_rate
    }

    /// Changes the learning rate (for schedules); the moments are kept.
    pub fn set_learning_rate(&mut self, learning_rate: T) {
        self.learning_rate = learning_rate;
    }

    #[track_caller]
    fn update(&mut self, grad: &Tensor<T>, var: &Variable<T>, alpha: T) {
        // Dropped at once, so that the update reuses the storage no tensor shares.
        drop(checked_value("Adam::apply_gradients", var, grad));
        let g = grad.view();
        let (beta_1, beta_2, epsilon) = (self.beta_1, self.beta_2, self.epsilon);
        let (m, v) = self
            .moments
            .entry(var.id())
            .or_insert_with(|| (ArrayD::zeros(g.shape()), ArrayD::zeros(g.shape())));
        let (one_minus_b1, one_minus_b2) = (T::one() - beta_1, T::one() - beta_2);
        // In place: no second buffer the size of the weights.
        var.update_array(|w| {
            Zip::from(w).and(m).and(v).and(&g).for_each(|w, m, v, &g| {
                *m += (g - *m) * one_minus_b1;
                *v += (g * g - *v) * one_minus_b2;
                *w -= (*m * alpha) / (v.sqrt() + epsilon);
            });
        });
    }

    /// The step size with the bias correction of step `iterations + 1`, computed in `T` as
    /// Keras computes it in the variable's dtype.
    fn alpha(&self) -> T {
        let step = T::from_f64((self.iterations + 1) as f64);
        let beta_1_power = self.beta_1.powf(step);
        let beta_2_power = self.beta_2.powf(step);
        self.learning_rate * (T::one() - beta_2_power).sqrt() / (T::one() - beta_1_power)
    }
}

impl<T: Float> Optimizer<T> for Adam<T> {
    fn apply_gradients<'a, I>(&mut self, grads_and_vars: I)
    where
        I: IntoIterator<Item = (Option<Tensor<T>>, &'a Variable<T>)>,
        T: 'a,
    {
        let alpha = self.alpha();
        for (grad, var) in grads_and_vars {
            if let Some(grad) = grad {
                self.update(&grad, var, alpha);
            }
        }
        self.iterations += 1;
    }

    fn iterations(&self) -> u64 {
        self.iterations
    }
}
