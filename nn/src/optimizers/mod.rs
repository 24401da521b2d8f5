//! Optimizers with TensorFlow's (Keras 3's) update formulas, applied to `(gradient,
//! variable)` pairs as `optimizer.apply_gradients(zip(grads, vars))` does.
//!
//! Updates are computed elementwise on the values, outside every tape: an update is never
//! recorded, whatever tape is active around it.
//!
//! Every optimizer also has the options Keras 3's base optimizer gives them all, applied in
//! Keras' order within one `apply_gradients` call:
//!
//! 1. the learning rate of the step: a fixed rate, or a [schedule](crate::schedules)
//!    evaluated at `iterations()` (`from_schedule`);
//! 2. gradient clipping, at most one of `with_clipnorm` (each gradient to that L2 norm),
//!    `with_global_clipnorm` (all gradients together, `tf.clip_by_global_norm`) and
//!    `with_clipvalue` (each element to `[-v, v]`), with the formulas of
//!    [`clipping`](crate::clipping);
//! 3. decoupled weight decay (`with_weight_decay`): `w = w - w * weight_decay * lr` for each
//!    variable that has a gradient, before the optimizer's own rule;
//! 4. the optimizer's rule.
//!
//! Clipping and decay are folded into the rule's single pass over each variable (the same
//! numbers, in the same order, as Keras' separate steps), so they allocate nothing: the
//! update stays in place. Each combination of them is compiled into the rule's loop as its
//! own type (`Prelude`), with no branch per element. Clipping by norm reads each gradient
//! once more for its norm. Only global clipping, which needs every gradient's norm before
//! the first update, holds the step's gradients in a buffer the optimizer reuses.

mod adagrad;
mod adam;
mod rmsprop;
mod sgd;

pub use adagrad::Adagrad;
pub use adam::{Adam, AdamW};
pub use rmsprop::RmsProp;
pub use sgd::Sgd;

use gradtape_runtime::{Float, Tensor, Variable, VariableId, any_recording, without_recording};

use crate::clipping::{check_threshold, clip_norm_divisor, global_scale, sum_of_squares};
use crate::schedules::LearningRateSchedule;

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
    /// step: the step counter (Adam's bias correction, a schedule's step) advances once per
    /// call.
    ///
    /// # Panics
    /// If a gradient's shape differs from its variable's, or a learning-rate schedule gives
    /// a negative or non-finite rate; the panic points at the call.
    #[track_caller]
    fn apply_gradients<'a, I>(&mut self, grads_and_vars: I)
    where
        I: IntoIterator<Item = (Option<Tensor<T>>, &'a Variable<T>)>,
        T: 'a;

    /// How many times `apply_gradients` has run (Keras' `optimizer.iterations`).
    fn iterations(&self) -> u64;

    /// The learning rate the next step uses (Keras' `optimizer.learning_rate`): the fixed
    /// rate, or the schedule's rate at [`iterations`](Self::iterations).
    ///
    /// ```
    /// use gradtape_nn::schedules::PiecewiseConstantDecay;
    /// use gradtape_nn::{Adam, Optimizer};
    /// use gradtape_runtime::{Tensor, Variable};
    /// let mut adam = Adam::<f32>::from_schedule(PiecewiseConstantDecay::new(vec![0], vec![0.1, 0.01]));
    /// assert_eq!(Optimizer::learning_rate(&adam), 0.1);
    /// adam.apply_gradients([(Some(Tensor::scalar(1.0)), &Variable::new(1.0))]);
    /// assert_eq!(Optimizer::learning_rate(&adam), 0.01);
    /// ```
    ///
    /// # Panics
    /// If a schedule gives a negative or non-finite rate.
    #[track_caller]
    fn learning_rate(&self) -> T;
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

/// A fixed learning rate or a schedule of the step.
enum LearningRate<T> {
    Fixed(T),
    Schedule(Box<dyn LearningRateSchedule + Send + Sync>),
}

/// Keras' clipping options; at most one is set.
#[derive(Clone, Copy, PartialEq)]
enum Clipping<T> {
    Off,
    /// `clipnorm`: each gradient to this L2 norm.
    Norm(T),
    /// `clipvalue`: each element to `[-v, v]`.
    Value(T),
    /// `global_clipnorm`: all gradients together to this L2 norm.
    GlobalNorm(T),
}

impl<T> Clipping<T> {
    fn keras_name(&self) -> &'static str {
        match self {
            Clipping::Off => "none",
            Clipping::Norm(_) => "clipnorm",
            Clipping::Value(_) => "clipvalue",
            Clipping::GlobalNorm(_) => "global_clipnorm",
        }
    }
}

/// What Keras 3's base optimizer holds for every optimizer: the learning rate, clipping,
/// weight decay and the step counter. Each optimizer pairs it with its rule.
struct Options<T: Float> {
    learning_rate: LearningRate<T>,
    clipping: Clipping<T>,
    weight_decay: Option<T>,
    /// Variables `exclude_from_weight_decay` named, by identity.
    decay_excluded: Vec<VariableId>,
    /// Substrings of the names of variables without weight decay (Keras' `var_names`).
    decay_excluded_names: Vec<String>,
    iterations: u64,
    /// Global clipping's buffer for one step's pairs: empty between steps (no gradient is
    /// kept alive), its capacity reused.
    pending: Vec<(Tensor<T>, Variable<T>)>,
}

impl<T: Float> Options<T> {
    /// A fixed learning rate and none of the options.
    ///
    /// # Panics
    /// Naming `optimizer`, if the rate is negative or not finite.
    #[track_caller]
    fn fixed(optimizer: &str, learning_rate: T) -> Options<T> {
        check_rate(optimizer, "learning rate", learning_rate);
        Options {
            learning_rate: LearningRate::Fixed(learning_rate),
            clipping: Clipping::Off,
            weight_decay: None,
            decay_excluded: Vec::new(),
            decay_excluded_names: Vec::new(),
            iterations: 0,
            pending: Vec::new(),
        }
    }

    /// The learning rate of the step after `iterations` steps.
    ///
    /// # Panics
    /// Naming `op` and the step, if a schedule's rate is negative or not finite.
    #[track_caller]
    fn current_rate(&self, op: &str) -> T {
        match &self.learning_rate {
            LearningRate::Fixed(rate) => *rate,
            LearningRate::Schedule(schedule) => {
                let rate = schedule.rate(self.iterations);
                assert!(
                    rate >= 0.0 && rate.is_finite(),
                    "{op}: the learning rate schedule gave {rate} at step {}; rates must be \
                     finite and non-negative",
                    self.iterations
                );
                T::from_f64(rate)
            }
        }
    }

    /// Sets a clipping option.
    ///
    /// # Panics
    /// If another clipping option is already set (Keras: "Only one of `clipnorm`,
    /// `clipvalue` and `global_clipnorm` can be set") or the threshold is not positive and
    /// finite.
    #[track_caller]
    fn set_clipping(&mut self, method: &str, clipping: Clipping<T>) {
        let (Clipping::Norm(threshold)
        | Clipping::Value(threshold)
        | Clipping::GlobalNorm(threshold)) = clipping
        else {
            unreachable!("set_clipping is given an option")
        };
        check_threshold(method, clipping.keras_name(), threshold);
        assert!(
            self.clipping == Clipping::Off || self.clipping.keras_name() == clipping.keras_name(),
            "{method}: only one of clipnorm, clipvalue and global_clipnorm can be set, and {} \
             already is",
            self.clipping.keras_name()
        );
        self.clipping = clipping;
    }

    /// Whether weight decay applies to `var`.
    fn decays(&self, var: &Variable<T>) -> bool {
        self.weight_decay.is_some()
            && !self.decay_excluded.contains(&var.id())
            && !self
                .decay_excluded_names
                .iter()
                .any(|name| var.name().contains(name.as_str()))
    }

    /// One step: Keras' `apply`. The rate is the schedule's at the step count before this
    /// step; the count advances once, whatever the gradients.
    #[track_caller]
    fn apply<'a, R, I>(&mut self, op: &str, rule: &mut R, grads_and_vars: I)
    where
        R: UpdateRule<T>,
        I: IntoIterator<Item = (Option<Tensor<T>>, &'a Variable<T>)>,
        T: 'a,
    {
        let learning_rate = self.current_rate(op);
        let constants = rule.step_constants(learning_rate, self.iterations);
        if self.clipping == Clipping::Off && self.weight_decay.is_none() {
            // The common case, the rule alone: no per-variable options to look at.
            for (grad, var) in grads_and_vars {
                if let Some(grad) = grad {
                    let value = checked_value(op, var, &grad);
                    rule.update(var, value, &grad, constants, Plain);
                }
            }
        } else if let Clipping::GlobalNorm(clip_norm) = self.clipping {
            // Every norm before the first update: the pairs wait in the buffer.
            let mut pending = std::mem::take(&mut self.pending);
            let mut squares = 0.0;
            for (grad, var) in grads_and_vars {
                if let Some(grad) = grad {
                    drop(checked_value(op, var, &grad));
                    squares += sum_of_squares(&grad.view());
                    pending.push((grad, var.clone()));
                }
            }
            let scale = global_scale(T::from_f64(squares.sqrt()), clip_norm);
            let clip = ElementClip::Scale(Scale {
                mul: scale,
                div: T::one(),
            });
            for (grad, var) in pending.drain(..) {
                self.update(op, rule, &grad, &var, constants, learning_rate, clip);
            }
            self.pending = pending;
        } else {
            for (grad, var) in grads_and_vars {
                if let Some(grad) = grad {
                    let clip = match self.clipping {
                        Clipping::Norm(clip_norm) => {
                            let norm = T::from_f64(sum_of_squares(&grad.view()).sqrt());
                            ElementClip::Scale(Scale {
                                mul: clip_norm,
                                div: clip_norm_divisor(norm, clip_norm),
                            })
                        }
                        Clipping::Value(limit) => ElementClip::Clamp(Clamp(limit)),
                        Clipping::Off | Clipping::GlobalNorm(_) => ElementClip::Off,
                    };
                    self.update(op, rule, &grad, var, constants, learning_rate, clip);
                }
            }
        }
        self.iterations += 1;
    }

    /// One variable's update, with the prelude its options call for: the plain rule when
    /// there is nothing to clip or decay for it (compiled without either).
    #[allow(clippy::too_many_arguments)]
    #[track_caller]
    fn update<R: UpdateRule<T>>(
        &self,
        op: &str,
        rule: &mut R,
        grad: &Tensor<T>,
        var: &Variable<T>,
        constants: R::Step,
        learning_rate: T,
        clip: ElementClip<T>,
    ) {
        let value = checked_value(op, var, grad);
        let decay = self
            .weight_decay
            .filter(|_| self.decays(var))
            .map(|weight_decay| Decay {
                weight_decay,
                learning_rate,
            });
        match (decay, clip) {
            (None, ElementClip::Off) => rule.update(var, value, grad, constants, Plain),
            (None, ElementClip::Scale(s)) => rule.update(var, value, grad, constants, s),
            (None, ElementClip::Clamp(c)) => rule.update(var, value, grad, constants, c),
            (Some(d), ElementClip::Off) => rule.update(var, value, grad, constants, d),
            (Some(d), ElementClip::Scale(s)) => {
                rule.update(var, value, grad, constants, Both(d, s))
            }
            (Some(d), ElementClip::Clamp(c)) => {
                rule.update(var, value, grad, constants, Both(d, c))
            }
        }
    }
}

/// # Panics
/// If `value` is negative or not finite, naming `method` and `what`.
#[track_caller]
fn check_rate<T: Float>(method: &str, what: &str, value: T) {
    assert!(
        value >= T::zero() && value.is_finite(),
        "{method}: {what} must be finite and non-negative, got {value}"
    );
}

/// An optimizer's own rule: its hyperparameters, its slots per variable (keyed by
/// `VariableId`) and its update.
trait UpdateRule<T: Float> {
    /// What the rule computes once per step (Adam's bias-corrected step size).
    type Step: Copy;

    /// The constants of the step taken after `iterations` steps, at `learning_rate`.
    fn step_constants(&self, learning_rate: T, iterations: u64) -> Self::Step;

    /// Updates `var` in place from `grad`, whose shape matches. `value` is the variable's
    /// value, read for the check: a rule that updates in place drops it first, so that no
    /// tensor shares the storage the update writes. Each element goes through `prelude`
    /// (weight decay, clipping) before the rule.
    fn update(
        &mut self,
        var: &Variable<T>,
        value: Tensor<T>,
        grad: &Tensor<T>,
        step: Self::Step,
        prelude: impl Prelude<T>,
    );
}

/// What happens to one weight and its gradient element before the optimizer's rule. Each
/// combination of options is its own type, so that each rule's loop is compiled for it with
/// no branch per element (a branching prelude kept the loops from vectorising: AdamW took
/// six times Adam's instructions).
trait Prelude<T>: Copy + Send + Sync {
    /// Applies weight decay to `w` in place and returns the clipped gradient element.
    fn apply(self, w: &mut T, g: T) -> T;
}

/// No weight decay, no clipping.
#[derive(Clone, Copy)]
struct Plain;

impl<T> Prelude<T> for Plain {
    #[inline(always)]
    fn apply(self, _w: &mut T, g: T) -> T {
        g
    }
}

/// Keras' weight decay at the step's learning rate.
#[derive(Clone, Copy)]
struct Decay<T> {
    weight_decay: T,
    learning_rate: T,
}

impl<T: Float> Prelude<T> for Decay<T> {
    #[inline(always)]
    fn apply(self, w: &mut T, g: T) -> T {
        // Keras: variable.assign(variable - variable * wd * lr)
        *w = *w - *w * self.weight_decay * self.learning_rate;
        g
    }
}

/// `g * mul / div`: `clipnorm` (`mul = clip_norm`, `div = max(‖g‖, clip_norm)`, as
/// `tf.clip_by_norm` computes it) or `global_clipnorm` (`mul` the global scale, `div = 1`).
#[derive(Clone, Copy)]
struct Scale<T> {
    mul: T,
    div: T,
}

impl<T: Float> Prelude<T> for Scale<T> {
    #[inline(always)]
    fn apply(self, _w: &mut T, g: T) -> T {
        g * self.mul / self.div
    }
}

/// `clipvalue`: `clip(g, -limit, limit)`; a NaN stays NaN.
#[derive(Clone, Copy)]
struct Clamp<T>(T);

impl<T: Float> Prelude<T> for Clamp<T> {
    #[inline(always)]
    fn apply(self, _w: &mut T, g: T) -> T {
        // Two selects (vectorised); comparisons with NaN are false, so NaN passes.
        let g = if g > self.0 { self.0 } else { g };
        if g < -self.0 { -self.0 } else { g }
    }
}

/// Decay, then clipping (independent: one changes `w`, the other `g`).
#[derive(Clone, Copy)]
struct Both<D, C>(D, C);

impl<T, D: Prelude<T>, C: Prelude<T>> Prelude<T> for Both<D, C> {
    #[inline(always)]
    fn apply(self, w: &mut T, g: T) -> T {
        let g = self.0.apply(w, g);
        self.1.apply(w, g)
    }
}

/// A variable's clipping, as the step's options and its gradient's norm decide it.
#[derive(Clone, Copy)]
enum ElementClip<T> {
    Off,
    Scale(Scale<T>),
    Clamp(Clamp<T>),
}

/// The methods every optimizer shares (Keras 3's base-optimizer arguments) and its
/// `Optimizer` impl, for an optimizer struct with fields `options: Options<T>` and
/// `rule` (its `UpdateRule`).
macro_rules! keras_options {
    ($name:ident) => {
        impl<T: gradtape_runtime::Float> $name<T> {
            #[doc = concat!("The optimizer with its learning rate from `schedule`, evaluated at \
                [`iterations`](crate::Optimizer::iterations) before each step (Keras' `",
                stringify!($name), "(learning_rate=schedule)`); the other hyperparameters are \
                [`new`](Self::new)'s defaults.")]
            ///
            /// ```
            /// use gradtape_nn::schedules::ExponentialDecay;
            #[doc = concat!("use gradtape_nn::{Optimizer, ", stringify!($name), "};")]
            /// use gradtape_runtime::{Tensor, Variable};
            /// // 0.1 at step 0, halved at each step after
            #[doc = concat!("let mut optimizer = ", stringify!($name),
                "::from_schedule(ExponentialDecay::new(0.1, 1, 0.5));")]
            /// assert_eq!(optimizer.learning_rate(), 0.1);
            /// let w = Variable::new(1.0_f64);
            /// optimizer.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
            /// assert_eq!(optimizer.learning_rate(), 0.05);
            /// ```
            pub fn from_schedule<S>(schedule: S) -> $name<T>
            where
                S: crate::schedules::LearningRateSchedule + Send + Sync + 'static,
            {
                let mut optimizer = $name::new(T::zero());
                optimizer.options.learning_rate =
                    crate::optimizers::LearningRate::Schedule(Box::new(schedule));
                optimizer
            }

            /// The learning rate the next step uses: the fixed rate, or the schedule's rate
            /// at [`iterations`](crate::Optimizer::iterations).
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::new(0.25_f32).learning_rate(), 0.25);")]
            /// ```
            ///
            /// # Panics
            /// If a schedule gives a negative or non-finite rate.
            #[track_caller]
            pub fn learning_rate(&self) -> T {
                self.options
                    .current_rate(concat!(stringify!($name), "::learning_rate"))
            }

            /// Changes the fixed learning rate (a schedule by hand, as Keras'
            /// `optimizer.learning_rate = ...`); the optimizer's state is kept.
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::", stringify!($name), ";")]
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(0.1_f64);")]
            /// optimizer.set_learning_rate(0.01);
            /// assert_eq!(optimizer.learning_rate(), 0.01);
            /// ```
            ///
            /// # Panics
            /// If the optimizer was made with a schedule (Keras raises a `TypeError`: the
            /// schedule owns the rate), or the rate is negative or not finite.
            #[track_caller]
            pub fn set_learning_rate(&mut self, learning_rate: T) {
                const METHOD: &str = concat!(stringify!($name), "::set_learning_rate");
                assert!(
                    matches!(
                        self.options.learning_rate,
                        crate::optimizers::LearningRate::Fixed(_)
                    ),
                    "{METHOD}: this optimizer's learning rate comes from a schedule, which \
                     cannot be overridden"
                );
                crate::optimizers::check_rate(METHOD, "learning rate", learning_rate);
                self.options.learning_rate = crate::optimizers::LearningRate::Fixed(learning_rate);
            }

            /// The optimizer clipping each gradient to L2 norm `clipnorm` before its step
            /// (Keras' `clipnorm`, with `tf.clip_by_norm`'s formula
            /// `g * clipnorm / max(‖g‖₂, clipnorm)`; see
            /// [`clip_by_norm`](crate::clipping::clip_by_norm)).
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::{Optimizer, ", stringify!($name), "};")]
            /// use gradtape_runtime::{Tensor, Variable};
            /// // [30, 40] has norm 50: clipped to norm 5 it is [3, 4]
            /// let (clipped, plain) = (Variable::new(Tensor::zeros(&[2])), Variable::new(Tensor::zeros(&[2])));
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(0.1_f64).with_clipnorm(5.0);")]
            /// optimizer.apply_gradients([(Some(Tensor::from_vec(vec![30.0, 40.0], &[2])), &clipped)]);
            #[doc = concat!(stringify!($name), "::new(0.1)")]
            ///     .apply_gradients([(Some(Tensor::from_vec(vec![3.0, 4.0], &[2])), &plain)]);
            /// assert_eq!(clipped.value().to_vec(), plain.value().to_vec());
            /// ```
            ///
            /// # Panics
            /// If `clipnorm` is not positive and finite, or another clipping option is set.
            #[track_caller]
            pub fn with_clipnorm(mut self, clipnorm: T) -> $name<T> {
                self.options.set_clipping(
                    concat!(stringify!($name), "::with_clipnorm"),
                    crate::optimizers::Clipping::Norm(clipnorm),
                );
                self
            }

            /// The optimizer clipping every gradient element to `[-clipvalue, clipvalue]`
            /// before its step (Keras' `clipvalue`; a NaN element stays NaN).
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::{Optimizer, ", stringify!($name), "};")]
            /// use gradtape_runtime::{Tensor, Variable};
            /// let (clipped, plain) = (Variable::new(Tensor::zeros(&[2])), Variable::new(Tensor::zeros(&[2])));
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(0.1_f64).with_clipvalue(1.0);")]
            /// optimizer.apply_gradients([(Some(Tensor::from_vec(vec![100.0, -0.5], &[2])), &clipped)]);
            #[doc = concat!(stringify!($name), "::new(0.1)")]
            ///     .apply_gradients([(Some(Tensor::from_vec(vec![1.0, -0.5], &[2])), &plain)]);
            /// assert_eq!(clipped.value().to_vec(), plain.value().to_vec());
            /// ```
            ///
            /// # Panics
            /// If `clipvalue` is not positive and finite, or another clipping option is set.
            #[track_caller]
            pub fn with_clipvalue(mut self, clipvalue: T) -> $name<T> {
                self.options.set_clipping(
                    concat!(stringify!($name), "::with_clipvalue"),
                    crate::optimizers::Clipping::Value(clipvalue),
                );
                self
            }

            /// The optimizer clipping all gradients of a step together to global L2 norm
            /// `global_clipnorm` (Keras' `global_clipnorm`, with `tf.clip_by_global_norm`'s
            /// formula; see [`clip_by_global_norm`](crate::clipping::clip_by_global_norm)). A
            /// non-finite global norm makes every gradient NaN, as in TensorFlow.
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::{Optimizer, ", stringify!($name), "};")]
            /// use gradtape_runtime::{Tensor, Variable};
            /// // [30] and [40] have global norm 50: clipped to 5 they are [3] and [4]
            /// let (a, b) = (Variable::new(Tensor::zeros(&[1])), Variable::new(Tensor::zeros(&[1])));
            /// let (c, d) = (Variable::new(Tensor::zeros(&[1])), Variable::new(Tensor::zeros(&[1])));
            /// let g = |x: f64| Some(Tensor::from_vec(vec![x], &[1]));
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(0.1_f64).with_global_clipnorm(5.0);")]
            /// optimizer.apply_gradients([(g(30.0), &a), (g(40.0), &b)]);
            #[doc = concat!(stringify!($name), "::new(0.1).apply_gradients([(g(3.0), &c), (g(4.0), &d)]);")]
            /// for (clipped, plain) in [(a, c), (b, d)] {
            ///     assert!((clipped.value().to_vec()[0] - plain.value().to_vec()[0]).abs() < 1e-12);
            /// }
            /// ```
            ///
            /// # Panics
            /// If `global_clipnorm` is not positive and finite, or another clipping option is
            /// set.
            #[track_caller]
            pub fn with_global_clipnorm(mut self, global_clipnorm: T) -> $name<T> {
                self.options.set_clipping(
                    concat!(stringify!($name), "::with_global_clipnorm"),
                    crate::optimizers::Clipping::GlobalNorm(global_clipnorm),
                );
                self
            }

            /// The optimizer with Keras' decoupled weight decay: before its rule, each
            /// variable that has a gradient becomes `w - w * weight_decay * learning_rate`,
            /// at the step's learning rate (Loshchilov & Hutter's AdamW decay, which Keras 3
            /// offers on every optimizer). 0 turns decay off.
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::{Optimizer, ", stringify!($name), "};")]
            /// use gradtape_runtime::{Tensor, Variable};
            /// // Keras' test: a zero gradient, so only the decay moves w: 2 - 2 · 0.004 · 1
            /// let w = Variable::new(2.0_f64);
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(1.0).with_weight_decay(0.004);")]
            /// optimizer.apply_gradients([(Some(Tensor::scalar(0.0)), &w)]);
            /// assert!((w.value().to_scalar() - 1.992).abs() < 1e-15);
            /// ```
            ///
            /// # Panics
            /// If `weight_decay` is negative or not finite.
            #[track_caller]
            pub fn with_weight_decay(mut self, weight_decay: T) -> $name<T> {
                crate::optimizers::check_rate(
                    concat!(stringify!($name), "::with_weight_decay"),
                    "weight decay",
                    weight_decay,
                );
                self.options.weight_decay = (weight_decay != T::zero()).then_some(weight_decay);
                self
            }

            /// The optimizer leaving these variables out of weight decay (Keras'
            /// `exclude_from_weight_decay(var_list=...)`), e.g. biases.
            ///
            /// ```
            #[doc = concat!("use gradtape_nn::{Optimizer, ", stringify!($name), "};")]
            /// use gradtape_runtime::{Tensor, Variable};
            /// let (kernel, bias) = (Variable::new(2.0_f64), Variable::new(2.0_f64));
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(1.0)")]
            ///     .with_weight_decay(0.004)
            ///     .exclude_from_weight_decay(&[&bias]);
            /// let zero = || Some(Tensor::scalar(0.0));
            /// optimizer.apply_gradients([(zero(), &kernel), (zero(), &bias)]);
            /// assert_eq!(bias.value().to_scalar(), 2.0);
            /// assert!(kernel.value().to_scalar() < 2.0);
            /// ```
            pub fn exclude_from_weight_decay(mut self, variables: &[&gradtape_runtime::Variable<T>]) -> $name<T> {
                self.options
                    .decay_excluded
                    .extend(variables.iter().map(|v| v.id()));
                self
            }

            /// The optimizer leaving out of weight decay every variable whose name contains
            /// one of `names` (Keras' `exclude_from_weight_decay(var_names=...)`, which
            /// searches the names the same way).
            ///
            /// ```
            /// use gradtape_nn::{Dense, Layer, Optimizer};
            #[doc = concat!("use gradtape_nn::", stringify!($name), ";")]
            /// use gradtape_runtime::Tensor;
            /// let dense = Dense::<f64>::from_values("dense", Tensor::ones(&[1, 1]), Tensor::ones(&[1]));
            #[doc = concat!("let mut optimizer = ", stringify!($name), "::new(1.0)")]
            ///     .with_weight_decay(0.004)
            ///     .exclude_from_weight_decay_names(&["bias"]);
            /// let variables = dense.trainable_variables(); // dense/kernel, dense/bias
            /// let zeros = variables.iter().map(|v| Some(Tensor::zeros(&v.shape())));
            /// optimizer.apply_gradients(zeros.zip(&variables));
            /// assert_eq!(variables[1].value().to_vec(), vec![1.0]);
            /// assert!(variables[0].value().to_vec()[0] < 1.0);
            /// ```
            pub fn exclude_from_weight_decay_names(mut self, names: &[&str]) -> $name<T> {
                self.options
                    .decay_excluded_names
                    .extend(names.iter().map(|name| name.to_string()));
                self
            }
        }

        impl<T: gradtape_runtime::Float> crate::Optimizer<T> for $name<T> {
            fn apply_gradients<'a, I>(&mut self, grads_and_vars: I)
            where
                I: IntoIterator<
                    Item = (
                        Option<gradtape_runtime::Tensor<T>>,
                        &'a gradtape_runtime::Variable<T>,
                    ),
                >,
                T: 'a,
            {
                self.options.apply(
                    concat!(stringify!($name), "::apply_gradients"),
                    &mut self.rule,
                    grads_and_vars,
                );
            }

            fn iterations(&self) -> u64 {
                self.options.iterations
            }

            fn learning_rate(&self) -> T {
                $name::learning_rate(self)
            }
        }
    };
}
use keras_options;
