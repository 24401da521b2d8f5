//! Adam and AdamW (Adam with decoupled weight decay), which share one rule.

use std::collections::HashMap;

use gradtape_runtime::{Float, Tensor, Variable, VariableId};
use ndarray::{ArrayD, Zip};

use super::{Options, Prelude, UpdateRule, keras_options};

/// Adam, with TensorFlow's formulas (Keras 3 `keras/src/optimizers/adam.py`, the
/// implementation behind `tf.keras.optimizers.Adam`). At step `t = iterations + 1`:
///
/// ```text
/// alpha = learning_rate * sqrt(1 - beta_2^t) / (1 - beta_1^t)
/// m = m + (g - m) * (1 - beta_1)
/// v = v + (g² - v) * (1 - beta_2)
/// if amsgrad: v_hat = max(v_hat, v); v = v_hat
/// w = w - (m * alpha) / (sqrt(v) + epsilon)
/// ```
///
/// The bias correction is folded into the step size, so `epsilon` is the paper's
/// "epsilon hat" (TF's docs: "This epsilon is 'epsilon hat' in the Kingma and Ba paper (in
/// the formula just before Section 2.1), not the epsilon in Algorithm 1 of the paper").
/// Defaults as in TF: `beta_1 = 0.9`, `beta_2 = 0.999`, `epsilon = 1e-7`, no AMSGrad.
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
///
/// With [`with_weight_decay`](Self::with_weight_decay) this is Keras' AdamW exactly; see
/// [`AdamW`] for the type with AdamW's default decay.
pub struct Adam<T: Float> {
    options: Options<T>,
    rule: AdamRule<T>,
}

/// AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization"), Keras 3's `AdamW`:
/// Adam's rule after the decoupled decay `w = w - w * weight_decay * learning_rate`, applied
/// to every variable that has a gradient, at the step's learning rate (Keras'
/// `_apply_weight_decay`, run before `update_step`). At step `t = iterations + 1`:
///
/// ```text
/// w = w - w * weight_decay * learning_rate
/// alpha = learning_rate * sqrt(1 - beta_2^t) / (1 - beta_1^t)
/// m = m + (g - m) * (1 - beta_1)
/// v = v + (g² - v) * (1 - beta_2)
/// w = w - (m * alpha) / (sqrt(v) + epsilon)
/// ```
///
/// The decay is not part of the gradient (that would be L2 regularisation, which Adam's
/// scaling would distort): a weight with a zero gradient still shrinks by
/// `weight_decay * learning_rate` of itself. Defaults as Keras: `weight_decay = 0.004`, and
/// Adam's (`beta_1 = 0.9`, `beta_2 = 0.999`, `epsilon = 1e-7`). Biases and normalisation
/// scales are usually left out:
/// [`exclude_from_weight_decay_names`](Self::exclude_from_weight_decay_names).
///
/// ```
/// use gradtape_nn::{AdamW, Optimizer};
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::new(1.0_f64);
/// let mut adamw = AdamW::new(0.1).with_weight_decay(0.5);
/// adamw.apply_gradients([(Some(Tensor::scalar(2.0)), &w)]);
/// // decay: 1 - 1·0.5·0.1 = 0.95; then Adam's first step, about -0.1 (see `Adam`)
/// assert!((w.value().to_scalar() - 0.85).abs() < 1e-6);
/// ```
pub struct AdamW<T: Float> {
    options: Options<T>,
    rule: AdamRule<T>,
}

/// Adam's hyperparameters and its moments per variable.
struct AdamRule<T: Float> {
    beta_1: T,
    beta_2: T,
    epsilon: T,
    amsgrad: bool,
    slots: HashMap<VariableId, AdamSlots<T>>,
}

/// One variable's first and second moments, and with AMSGrad the largest second moment.
struct AdamSlots<T> {
    m: ArrayD<T>,
    v: ArrayD<T>,
    v_hat: Option<ArrayD<T>>,
}

impl<T: Float> AdamRule<T> {
    /// TF's defaults.
    fn keras_defaults() -> AdamRule<T> {
        AdamRule {
            beta_1: T::from_f64(0.9),
            beta_2: T::from_f64(0.999),
            epsilon: T::from_f64(1e-7),
            amsgrad: false,
            slots: HashMap::new(),
        }
    }

    /// # Panics
    /// Naming `method`, if either beta is outside `[0, 1)`.
    #[track_caller]
    fn set_betas(&mut self, method: &str, beta_1: T, beta_2: T) {
        let valid = |b: T| (T::zero()..T::one()).contains(&b);
        assert!(
            valid(beta_1) && valid(beta_2),
            "{method}: betas must be in [0, 1), got {beta_1} and {beta_2}"
        );
        self.beta_1 = beta_1;
        self.beta_2 = beta_2;
    }
}

impl<T: Float> Adam<T> {
    /// Adam with `learning_rate` (TF's default is 0.001) and TF's other defaults.
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> Adam<T> {
        Adam {
            options: Options::fixed("Adam::new", learning_rate),
            rule: AdamRule::keras_defaults(),
        }
    }

    /// The optimizer with other decay rates for the moment estimates.
    ///
    /// ```
    /// use gradtape_nn::{Adam, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// let mut adam = Adam::new(1.0).with_betas(0.5, 0.75);
    /// adam.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // m = 0.5, v = 0.25, alpha = √0.25 / 0.5 = 1: w = -0.5 / (0.5 + 1e-7)
    /// assert!((w.value().to_scalar() + 1.0).abs() < 1e-6);
    /// ```
    ///
    /// # Panics
    /// If either is outside `[0, 1)`.
    #[track_caller]
    pub fn with_betas(mut self, beta_1: T, beta_2: T) -> Adam<T> {
        self.rule.set_betas("Adam::with_betas", beta_1, beta_2);
        self
    }

    /// The optimizer with another `epsilon` (the paper's "epsilon hat").
    ///
    /// ```
    /// use gradtape_nn::{Adam, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(1.0_f64);
    /// Adam::new(0.1).with_epsilon(1.0).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // alpha = √0.001: w = 1 - 0.1·√0.001 / (√0.001 + 1)
    /// let alpha = 0.001_f64.sqrt();
    /// assert!((w.value().to_scalar() - (1.0 - 0.1 * alpha / (alpha + 1.0))).abs() < 1e-15);
    /// ```
    pub fn with_epsilon(mut self, epsilon: T) -> Adam<T> {
        self.rule.epsilon = epsilon;
        self
    }

    /// The optimizer with the AMSGrad variant on or off (Reddi et al., "On the Convergence
    /// of Adam and Beyond"): the step divides by the largest second moment seen so far.
    ///
    /// ```
    /// use gradtape_nn::{Adam, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let (w, plain) = (Variable::new(0.0_f64), Variable::new(0.0_f64));
    /// let mut amsgrad = Adam::new(0.1).with_amsgrad(true);
    /// let mut adam = Adam::new(0.1);
    /// for g in [10.0, 0.1] {
    ///     amsgrad.apply_gradients([(Some(Tensor::scalar(g)), &w)]);
    ///     adam.apply_gradients([(Some(Tensor::scalar(g)), &plain)]);
    /// }
    /// // v shrinks at the second step; AMSGrad divides by the first step's v instead
    /// assert!(w.value().to_scalar() > plain.value().to_scalar());
    /// ```
    pub fn with_amsgrad(mut self, amsgrad: bool) -> Adam<T> {
        self.rule.amsgrad = amsgrad;
        self
    }
}

keras_options!(Adam);

impl<T: Float> AdamW<T> {
    /// AdamW with `learning_rate` (Keras' default is 0.001), `weight_decay = 0.004` and
    /// Adam's defaults.
    ///
    /// ```
    /// use gradtape_nn::{AdamW, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(2.0_f64);
    /// let mut adamw = AdamW::new(1.0);
    /// adamw.apply_gradients([(Some(Tensor::scalar(0.0)), &w)]);
    /// // Keras' test: 2 - 2·0.004·1
    /// assert!((w.value().to_scalar() - 1.992).abs() < 1e-15);
    /// ```
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> AdamW<T> {
        let mut options = Options::fixed("AdamW::new", learning_rate);
        options.weight_decay = Some(T::from_f64(0.004));
        AdamW {
            options,
            rule: AdamRule::keras_defaults(),
        }
    }

    /// The optimizer with other decay rates for the moment estimates, as
    /// [`Adam::with_betas`].
    ///
    /// ```
    /// use gradtape_nn::{AdamW, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64); // nothing to decay
    /// AdamW::new(1.0).with_betas(0.5, 0.75).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // m = 0.5, v = 0.25, alpha = √0.25 / 0.5 = 1: w = -0.5 / (0.5 + 1e-7)
    /// assert!((w.value().to_scalar() + 1.0).abs() < 1e-6);
    /// ```
    ///
    /// # Panics
    /// If either is outside `[0, 1)`.
    #[track_caller]
    pub fn with_betas(mut self, beta_1: T, beta_2: T) -> AdamW<T> {
        self.rule.set_betas("AdamW::with_betas", beta_1, beta_2);
        self
    }

    /// The optimizer with another `epsilon`, as [`Adam::with_epsilon`].
    ///
    /// ```
    /// use gradtape_nn::{AdamW, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(1.0_f64);
    /// AdamW::new(0.1).with_epsilon(1.0).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // decay: 1 - 1·0.004·0.1; alpha = √0.001: Adam's step 0.1·√0.001 / (√0.001 + 1)
    /// let alpha = 0.001_f64.sqrt();
    /// let want = (1.0 - 0.0004) - 0.1 * alpha / (alpha + 1.0);
    /// assert!((w.value().to_scalar() - want).abs() < 1e-14);
    /// ```
    pub fn with_epsilon(mut self, epsilon: T) -> AdamW<T> {
        self.rule.epsilon = epsilon;
        self
    }

    /// The optimizer with the AMSGrad variant on or off, as [`Adam::with_amsgrad`].
    ///
    /// ```
    /// use gradtape_nn::{AdamW, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let (w, plain) = (Variable::new(0.0_f64), Variable::new(0.0_f64));
    /// let mut amsgrad = AdamW::new(0.1).with_amsgrad(true);
    /// let mut adamw = AdamW::new(0.1);
    /// for g in [10.0, 0.1] {
    ///     amsgrad.apply_gradients([(Some(Tensor::scalar(g)), &w)]);
    ///     adamw.apply_gradients([(Some(Tensor::scalar(g)), &plain)]);
    /// }
    /// // the same decay; AMSGrad divides by the first step's larger v
    /// assert!(w.value().to_scalar() > plain.value().to_scalar());
    /// ```
    pub fn with_amsgrad(mut self, amsgrad: bool) -> AdamW<T> {
        self.rule.amsgrad = amsgrad;
        self
    }
}

keras_options!(AdamW);

impl<T: Float> UpdateRule<T> for AdamRule<T> {
    /// `alpha`, the bias-corrected step size.
    type Step = T;

    /// The step size with the bias correction of step `iterations + 1`, computed in `T` as
    /// Keras computes it in the variable's dtype.
    fn step_constants(&self, learning_rate: T, iterations: u64) -> T {
        let step = T::from_f64((iterations + 1) as f64);
        let beta_1_power = self.beta_1.powf(step);
        let beta_2_power = self.beta_2.powf(step);
        learning_rate * (T::one() - beta_2_power).sqrt() / (T::one() - beta_1_power)
    }

    fn update(
        &mut self,
        var: &Variable<T>,
        value: Tensor<T>,
        grad: &Tensor<T>,
        alpha: T,
        prelude: impl Prelude<T>,
    ) {
        // Dropped at once, so that the update reuses the storage no tensor shares.
        drop(value);
        let g = grad.view();
        let (epsilon, amsgrad) = (self.epsilon, self.amsgrad);
        let slots = self.slots.entry(var.id()).or_insert_with(|| AdamSlots {
            m: ArrayD::zeros(g.shape()),
            v: ArrayD::zeros(g.shape()),
            v_hat: None,
        });
        if amsgrad && slots.v_hat.is_none() {
            // Zeros, as Keras' slot starts (also when AMSGrad is turned on after steps
            // without it): the first max makes it v.
            slots.v_hat = Some(ArrayD::zeros(g.shape()));
        }
        let AdamSlots { m, v, v_hat } = slots;
        let (one_minus_b1, one_minus_b2) = (T::one() - self.beta_1, T::one() - self.beta_2);
        // Keras' assign_add of (g - m)·(1 - β₁) and of (g² - v)·(1 - β₂).
        let moments = move |m: &mut T, v: &mut T, g: T| {
            *m += (g - *m) * one_minus_b1;
            *v += (g * g - *v) * one_minus_b2;
        };
        // In place: no second buffer the size of the weights.
        match v_hat.as_mut().filter(|_| amsgrad) {
            Some(v_hat) => var.update_array(|w| {
                Zip::from(w)
                    .and(m)
                    .and(v)
                    .and(v_hat)
                    .and(&g)
                    .for_each(|w, m, v, v_hat, &g| {
                        let g = prelude.apply(w, g);
                        moments(m, v, g);
                        // ops.maximum, NaN-propagating (Rust's max would keep v_hat); a
                        // select, which vectorises
                        *v_hat = if *v_hat >= *v { *v_hat } else { *v };
                        *w -= (*m * alpha) / (v_hat.sqrt() + epsilon);
                    });
            }),
            None => var.update_array(|w| {
                Zip::from(w).and(m).and(v).and(&g).for_each(|w, m, v, &g| {
                    let g = prelude.apply(w, g);
                    moments(m, v, g);
                    *w -= (*m * alpha) / (v.sqrt() + epsilon);
                });
            }),
        }
    }
}
