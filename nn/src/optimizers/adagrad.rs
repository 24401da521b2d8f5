//! Adagrad.

use std::collections::HashMap;

use gradtape_runtime::{Float, Tensor, Variable, VariableId};
use ndarray::{ArrayD, Zip};

use super::{Options, Prelude, UpdateRule, keras_options};

/// Adagrad (Duchi et al., 2011), with Keras 3's formulas (`keras/src/optimizers/adagrad.py`):
/// each weight's step shrinks with the sum of its squared gradients so far.
///
/// ```text
/// accumulator = accumulator + g²          (starting at initial_accumulator_value)
/// w = w - learning_rate * g / sqrt(accumulator + epsilon)
/// ```
///
/// Defaults as Keras: `initial_accumulator_value = 0.1`, `epsilon = 1e-7`.
///
/// ```
/// use gradtape_nn::{Adagrad, Optimizer};
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::new(1.0_f64);
/// let mut adagrad = Adagrad::new(0.5);
/// adagrad.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
/// // Keras' test: accumulator = 0.1 + 1, w = 1 - 0.5·1/√(1.1 + 1e-7) = 0.5233
/// assert!((w.value().to_scalar() - (1.0 - 0.5 / (1.1_f64 + 1e-7).sqrt())).abs() < 1e-15);
/// ```
pub struct Adagrad<T: Float> {
    options: Options<T>,
    rule: AdagradRule<T>,
}

/// Adagrad's hyperparameters and its accumulator per variable.
struct AdagradRule<T: Float> {
    initial_accumulator_value: T,
    epsilon: T,
    accumulators: HashMap<VariableId, ArrayD<T>>,
}

impl<T: Float> Adagrad<T> {
    /// Adagrad with `learning_rate` (Keras' default is 0.001; "to match the exact form in
    /// the original paper, use 1.0") and Keras' other defaults.
    ///
    /// # Panics
    /// If the learning rate is negative or not finite.
    #[track_caller]
    pub fn new(learning_rate: T) -> Adagrad<T> {
        Adagrad {
            options: Options::fixed("Adagrad::new", learning_rate),
            rule: AdagradRule {
                initial_accumulator_value: T::from_f64(0.1),
                epsilon: T::from_f64(1e-7),
                accumulators: HashMap::new(),
            },
        }
    }

    /// The optimizer whose accumulators start at `value` (Keras: "Must be non-negative").
    /// It applies to the variables the optimizer has not updated yet.
    ///
    /// ```
    /// use gradtape_nn::{Adagrad, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// let mut adagrad = Adagrad::new(1.0).with_initial_accumulator_value(3.0).with_epsilon(0.0);
    /// adagrad.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // accumulator = 3 + 1: w = -1/√4
    /// assert_eq!(w.value().to_scalar(), -0.5);
    /// ```
    ///
    /// # Panics
    /// If `value` is negative or not finite.
    #[track_caller]
    pub fn with_initial_accumulator_value(mut self, value: T) -> Adagrad<T> {
        super::check_rate(
            "Adagrad::with_initial_accumulator_value",
            "initial accumulator value",
            value,
        );
        self.rule.initial_accumulator_value = value;
        self
    }

    /// The optimizer with another `epsilon`, added to the accumulator inside the square root.
    ///
    /// ```
    /// use gradtape_nn::{Adagrad, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(0.0_f64);
    /// Adagrad::new(1.0).with_epsilon(2.9).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    /// // accumulator = 0.1 + 1: w = -1/√(1.1 + 2.9)
    /// assert!((w.value().to_scalar() + 0.5).abs() < 1e-15);
    /// ```
    ///
    /// # Panics
    /// If `epsilon` is negative or not finite.
    #[track_caller]
    pub fn with_epsilon(mut self, epsilon: T) -> Adagrad<T> {
        super::check_rate("Adagrad::with_epsilon", "epsilon", epsilon);
        self.rule.epsilon = epsilon;
        self
    }
}

keras_options!(Adagrad);

impl<T: Float> UpdateRule<T> for AdagradRule<T> {
    /// The learning rate.
    type Step = T;

    fn step_constants(&self, learning_rate: T, _iterations: u64) -> T {
        learning_rate
    }

    fn update(
        &mut self,
        var: &Variable<T>,
        value: Tensor<T>,
        grad: &Tensor<T>,
        lr: T,
        prelude: impl Prelude<T>,
    ) {
        // Dropped at once, so that the update reuses the storage no tensor shares.
        drop(value);
        let g = grad.view();
        let (initial, epsilon) = (self.initial_accumulator_value, self.epsilon);
        let accumulator = self
            .accumulators
            .entry(var.id())
            .or_insert_with(|| ArrayD::from_elem(g.shape(), initial));
        // In place: no second buffer the size of the weights.
        var.update_array(|w| {
            Zip::from(w)
                .and(accumulator)
                .and(&g)
                .for_each(|w, accumulator, &g| {
                    let g = prelude.apply(w, g);
                    *accumulator += g * g;
                    *w -= lr * g / (*accumulator + epsilon).sqrt();
                });
        });
    }
}
