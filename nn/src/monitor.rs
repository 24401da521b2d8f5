//! A training monitor: records gradient and activation statistics
//! ([`diagnostics`](crate::diagnostics)) every N steps, keeps their history, writes it as
//! CSV, and flags what goes wrong as typed [`Warning`]s naming the variable or layer:
//!
//! - **vanishing**: a variable's gradient norm (or the global norm) below a threshold for
//!   K records in a row (default: 1e-5, 5 records);
//! - **exploding**: a gradient norm above a threshold (default 1e3), and **non-finite**
//!   gradients (any NaN or infinite element);
//! - **dead layers**: a layer whose fraction of dead units (ReLU zero, or sigmoid/tanh
//!   saturated, for a whole batch) is at least a threshold for K records (default 0.5);
//! - **missing gradients**: a `None` gradient (the loss does not depend on the variable).
//!
//! Each warning is given once when its condition starts (after K records for the
//! conditions that need them) and again only after the condition has cleared.
//!
//! ```
//! use gradtape_nn::diagnostics::{ActivationStats, GradientStats};
//! use gradtape_nn::monitor::Monitor;
//! use gradtape_nn::{Activation, Dense, Layer, Optimizer, Sequential, Sgd, losses};
//! use gradtape_runtime::{GradientTape, Tensor};
//!
//! let model = Sequential::new()
//!     .push(Dense::<f32>::new("hidden", 2, 8, 0).with_activation(Activation::Tanh))
//!     .push(Dense::new("out", 8, 1, 1));
//! let variables = model.trainable_variables();
//! let (x, y) = (Tensor::random_normal(&[32, 2], 0.0, 1.0, 2), Tensor::zeros(&[32, 1]));
//! let mut sgd = Sgd::new(0.1);
//! let mut monitor = Monitor::new().with_every(2);
//! for step in 0..10 {
//!     let tape = GradientTape::new();
//!     let mut outputs = Vec::new();
//!     let loss = tape.record(|| {
//!         losses::mean_squared_error(&model.call_with_activations(&x, &mut outputs), &y)
//!     });
//!     let grads = tape.gradient(&loss, &variables).unwrap();
//!     if monitor.is_due(step) {
//!         let stats = GradientStats::new(&variables, &grads, sgd.learning_rate().into());
//!         for warning in monitor.record(step, &stats, &ActivationStats::of_layers(&outputs)) {
//!             println!("{warning}");
//!         }
//!     }
//!     sgd.apply_gradients(grads.into_iter().zip(&variables));
//! }
//! assert_eq!(monitor.records().len(), 5);
//! assert!(monitor.warnings().is_empty());
//! assert!(monitor.to_csv().starts_with("step,kind,name,statistic,value\n0,gradient,global,norm,"));
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use crate::diagnostics::{ActivationStats, GradientStats, SIGMOID_SATURATION, TANH_SATURATION};
use crate::layers::Activation;

/// Something going wrong in training, found by a [`Monitor`].
///
/// ```
/// use gradtape_nn::monitor::Warning;
/// let w = Warning::Exploding { step: 7, variable: Some("dense/kernel".into()), norm: 5e4, threshold: 1e3 };
/// assert_eq!(w.step(), 7);
/// assert_eq!(w.subject(), "dense/kernel");
/// assert!(w.to_string().starts_with("step 7: exploding gradient of 'dense/kernel'"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// A gradient norm stayed below `threshold` for `records` records in a row.
    Vanishing {
        /// The step of the record that completed the streak.
        step: u64,
        /// The variable; `None` for the global norm.
        variable: Option<String>,
        /// The norm at `step`.
        norm: f64,
        /// The monitor's vanishing threshold.
        threshold: f64,
        /// How many records in a row were below it.
        records: usize,
    },
    /// A finite gradient norm went above `threshold`.
    Exploding {
        /// The step of the record.
        step: u64,
        /// The variable; `None` for the global norm.
        variable: Option<String>,
        /// The norm at `step`.
        norm: f64,
        /// The monitor's exploding threshold.
        threshold: f64,
    },
    /// A gradient has NaN or infinite elements.
    NonFinite {
        /// The step of the record.
        step: u64,
        /// The variable.
        variable: String,
        /// How many elements are NaN.
        nan: usize,
        /// How many elements are infinite.
        infinite: usize,
    },
    /// A gradient is `None`: the loss does not depend on the variable.
    MissingGradient {
        /// The step of the record.
        step: u64,
        /// The variable.
        variable: String,
    },
    /// A layer's fraction of dead units stayed at or above `threshold` for `records`
    /// records in a row.
    DeadLayer {
        /// The step of the record that completed the streak.
        step: u64,
        /// The layer.
        layer: String,
        /// Its activation (dead means zero for ReLU, saturated for sigmoid and tanh).
        activation: Activation,
        /// The fraction of its units dead at `step`.
        dead_fraction: f64,
        /// The monitor's dead-unit threshold.
        threshold: f64,
        /// How many records in a row were at or above it.
        records: usize,
    },
}

impl Warning {
    /// The step of the record that raised it.
    pub fn step(&self) -> u64 {
        match self {
            Warning::Vanishing { step, .. }
            | Warning::Exploding { step, .. }
            | Warning::NonFinite { step, .. }
            | Warning::MissingGradient { step, .. }
            | Warning::DeadLayer { step, .. } => *step,
        }
    }

    /// The variable or layer it is about (`"global norm"` for the global norm).
    pub fn subject(&self) -> &str {
        match self {
            Warning::Vanishing { variable, .. } | Warning::Exploding { variable, .. } => {
                variable.as_deref().unwrap_or("global norm")
            }
            Warning::NonFinite { variable, .. } | Warning::MissingGradient { variable, .. } => {
                variable
            }
            Warning::DeadLayer { layer, .. } => layer,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Vanishing {
                step,
                variable: Some(variable),
                norm,
                threshold,
                records,
            } => write!(
                f,
                "step {step}: vanishing gradient of '{variable}': norm {norm:.3e}, below \
                 {threshold:.0e} for {records} records in a row; it barely learns. Look at \
                 the layers between it and the loss: saturated sigmoid/tanh units or a deep \
                 stack shrink the gradient at each layer (ReLU, a better initialisation or \
                 fewer layers help)"
            ),
            Warning::Vanishing {
                step,
                variable: None,
                norm,
                threshold,
                records,
            } => write!(
                f,
                "step {step}: vanishing gradients: global norm {norm:.3e}, below \
                 {threshold:.0e} for {records} records in a row; nothing learns. Check that \
                 the loss depends on the model and is not saturated, and look at the \
                 per-layer norms for where the gradient is lost"
            ),
            Warning::Exploding {
                step,
                variable,
                norm,
                threshold,
            } => {
                match variable {
                    Some(variable) => write!(
                        f,
                        "step {step}: exploding gradient of '{variable}': norm {norm:.3e}, \
                         above {threshold:.0e}"
                    )?,
                    None => write!(
                        f,
                        "step {step}: exploding gradients: global norm {norm:.3e}, above \
                         {threshold:.0e}"
                    )?,
                }
                write!(
                    f,
                    "; training is about to diverge. Lower the learning rate, clip gradients \
                     by their global norm, or check the scale of the inputs"
                )
            }
            Warning::NonFinite {
                step,
                variable,
                nan,
                infinite,
            } => write!(
                f,
                "step {step}: non-finite gradient of '{variable}': {nan} NaN and {infinite} \
                 infinite elements; training has diverged, or an op is undefined at its input \
                 (ln of 0, sqrt of a negative, 0/0). Lower the learning rate, and look for \
                 the first record where a norm grew"
            ),
            Warning::MissingGradient { step, variable } => write!(
                f,
                "step {step}: no gradient for '{variable}' (None): the loss does not depend \
                 on it; GradientTape::explain says why"
            ),
            Warning::DeadLayer {
                step,
                layer,
                activation,
                dead_fraction,
                threshold,
                records,
            } => {
                let percent = dead_fraction * 100.0;
                let threshold = threshold * 100.0;
                match activation {
                    Activation::Relu => write!(
                        f,
                        "step {step}: dead layer '{layer}': {percent:.0}% of its ReLU units \
                         output 0 for the whole batch (at least {threshold:.0}% for {records} \
                         records in a row) and pass back no gradient. Lower the learning \
                         rate, check the initialisation and the inputs' scale"
                    ),
                    _ => {
                        let region = if *activation == Activation::Sigmoid {
                            format!(
                                "output below {SIGMOID_SATURATION} or above {}",
                                1.0 - SIGMOID_SATURATION
                            )
                        } else {
                            format!("|output| above {TANH_SATURATION}")
                        };
                        write!(
                            f,
                            "step {step}: saturated layer '{layer}': {percent:.0}% of its \
                             {activation:?} units are saturated ({region}) for the whole \
                             batch (at least {threshold:.0}% for {records} records in a \
                             row) and pass back almost no gradient. Scale the inputs, use \
                             smaller initial weights, or ReLU"
                        )
                    }
                }
            }
        }
    }
}

/// One record of a [`Monitor`]'s history: the statistics of one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The training step.
    pub step: u64,
    /// Its gradient statistics.
    pub gradients: GradientStats,
    /// Its activation statistics, one per layer (empty if none were given).
    pub activations: Vec<ActivationStats>,
}

/// Which condition a streak counts.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Check {
    Vanishing,
    Exploding,
    NonFinite,
    Missing,
    Dead,
}

/// The streak key of the global norm.
const GLOBAL: usize = usize::MAX;

/// Records gradient and activation statistics, keeps the history, and raises
/// [`Warning`]s. See the [module docs](self) for a training loop.
///
/// ```
/// use gradtape_nn::diagnostics::{GradientStats, Leaf};
/// use gradtape_nn::monitor::{Monitor, Warning};
/// use gradtape_runtime::Tensor;
/// // a gradient that shrinks tenfold per step
/// let mut monitor = Monitor::new().with_vanishing(1e-3, 3);
/// let mut raised = Vec::new();
/// for step in 0..8 {
///     let leaf = Leaf {
///         name: "w".into(),
///         value: Tensor::scalar(1.0_f32).into(),
///         gradient: Some(Tensor::scalar(10f32.powi(-(step as i32))).into()),
///     };
///     raised.extend(monitor.record(step, &GradientStats::from_leaves(&[leaf], 0.1), &[]));
/// }
/// // below 1e-3 from step 4 (1e-4) on: the third record in a row is step 6, for "w" and
/// // for the global norm
/// assert_eq!(raised.len(), 2);
/// assert!(matches!(&raised[0], Warning::Vanishing { step: 6, records: 3, .. }));
/// ```
#[derive(Clone, Debug)]
pub struct Monitor {
    every: u64,
    vanishing_threshold: f64,
    patience: usize,
    exploding_threshold: f64,
    dead_threshold: f64,
    records: Vec<Record>,
    warnings: Vec<Warning>,
    streaks: HashMap<(Check, usize), usize>,
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor::new()
    }
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Check::Vanishing => "vanishing",
            Check::Exploding => "exploding",
            Check::NonFinite => "non-finite",
            Check::Missing => "missing",
            Check::Dead => "dead",
        };
        f.write_str(name)
    }
}

impl Monitor {
    /// A monitor recording every step, with the default thresholds: vanishing below 1e-5
    /// for 5 records, exploding above 1e3, dead layers at 50% dead units for 5 records.
    ///
    /// ```
    /// use gradtape_nn::monitor::Monitor;
    /// let monitor = Monitor::new();
    /// assert!(monitor.is_due(0) && monitor.is_due(1));
    /// assert!(monitor.records().is_empty());
    /// ```
    pub fn new() -> Monitor {
        Monitor {
            every: 1,
            vanishing_threshold: 1e-5,
            patience: 5,
            exploding_threshold: 1e3,
            dead_threshold: 0.5,
            records: Vec::new(),
            warnings: Vec::new(),
            streaks: HashMap::new(),
        }
    }

    /// The monitor recording every `every` steps (see [`is_due`](Self::is_due)).
    ///
    /// ```
    /// use gradtape_nn::monitor::Monitor;
    /// let monitor = Monitor::new().with_every(10);
    /// assert!(monitor.is_due(0) && monitor.is_due(20) && !monitor.is_due(5));
    /// ```
    ///
    /// # Panics
    /// If `every` is 0.
    #[track_caller]
    pub fn with_every(mut self, every: u64) -> Monitor {
        assert!(every > 0, "Monitor::with_every: needs at least 1, got 0");
        self.every = every;
        self
    }

    /// Vanishing: a norm below `threshold` for `patience` records in a row (also the
    /// patience of dead layers).
    ///
    /// ```
    /// use gradtape_nn::monitor::Monitor;
    /// let monitor = Monitor::new().with_vanishing(1e-7, 10);
    /// # let _ = monitor;
    /// ```
    ///
    /// # Panics
    /// If `patience` is 0.
    #[track_caller]
    pub fn with_vanishing(mut self, threshold: f64, patience: usize) -> Monitor {
        assert!(
            patience > 0,
            "Monitor::with_vanishing: patience needs at least 1 record, got 0"
        );
        self.vanishing_threshold = threshold;
        self.patience = patience;
        self
    }

    /// Exploding: a finite norm above `threshold`.
    ///
    /// ```
    /// use gradtape_nn::monitor::Monitor;
    /// let monitor = Monitor::new().with_exploding(100.0);
    /// # let _ = monitor;
    /// ```
    pub fn with_exploding(mut self, threshold: f64) -> Monitor {
        self.exploding_threshold = threshold;
        self
    }

    /// Dead layers: at least `fraction` of a layer's units dead (for the vanishing
    /// patience's number of records in a row).
    ///
    /// ```
    /// use gradtape_nn::monitor::Monitor;
    /// let monitor = Monitor::new().with_dead_units(0.9);
    /// # let _ = monitor;
    /// ```
    pub fn with_dead_units(mut self, fraction: f64) -> Monitor {
        self.dead_threshold = fraction;
        self
    }

    /// Whether `step` is one to record: every `every`-th step from 0.
    pub fn is_due(&self, step: u64) -> bool {
        step.is_multiple_of(self.every)
    }

    /// Adds the statistics of `step` to the history, and returns the warnings they raise
    /// (also kept, see [`warnings`](Self::warnings)). Pass `&[]` for `activations` to
    /// watch gradients only.
    pub fn record(
        &mut self,
        step: u64,
        gradients: &GradientStats,
        activations: &[ActivationStats],
    ) -> Vec<Warning> {
        let mut raised = Vec::new();
        let (vanishing, exploding, patience) = (
            self.vanishing_threshold,
            self.exploding_threshold,
            self.patience,
        );
        let global = gradients.global_norm();
        let any_gradient = gradients.variables().iter().any(|v| v.gradient.is_some());
        if self.streak(
            (Check::Vanishing, GLOBAL),
            any_gradient && global < vanishing,
        ) == patience
        {
            raised.push(Warning::Vanishing {
                step,
                variable: None,
                norm: global,
                threshold: vanishing,
                records: patience,
            });
        }
        if self.streak(
            (Check::Exploding, GLOBAL),
            global.is_finite() && global > exploding,
        ) == 1
        {
            raised.push(Warning::Exploding {
                step,
                variable: None,
                norm: global,
                threshold: exploding,
            });
        }
        for (i, v) in gradients.variables().iter().enumerate() {
            let name = || v.name.clone();
            let Some(g) = &v.gradient else {
                if self.streak((Check::Missing, i), true) == 1 {
                    raised.push(Warning::MissingGradient {
                        step,
                        variable: name(),
                    });
                }
                continue;
            };
            self.streak((Check::Missing, i), false);
            if self.streak((Check::NonFinite, i), !g.is_finite()) == 1 {
                raised.push(Warning::NonFinite {
                    step,
                    variable: name(),
                    nan: g.nan,
                    infinite: g.infinite,
                });
            }
            if self.streak((Check::Vanishing, i), g.norm < vanishing) == patience {
                raised.push(Warning::Vanishing {
                    step,
                    variable: Some(name()),
                    norm: g.norm,
                    threshold: vanishing,
                    records: patience,
                });
            }
            if self.streak(
                (Check::Exploding, i),
                g.norm.is_finite() && g.norm > exploding,
            ) == 1
            {
                raised.push(Warning::Exploding {
                    step,
                    variable: Some(name()),
                    norm: g.norm,
                    threshold: exploding,
                });
            }
        }
        for (j, layer) in activations.iter().enumerate() {
            let Some(dead) = layer.dead_fraction else {
                continue;
            };
            if self.streak((Check::Dead, j), dead >= self.dead_threshold) == patience {
                raised.push(Warning::DeadLayer {
                    step,
                    layer: layer.layer.clone(),
                    activation: layer.activation,
                    dead_fraction: dead,
                    threshold: self.dead_threshold,
                    records: patience,
                });
            }
        }
        self.records.push(Record {
            step,
            gradients: gradients.clone(),
            activations: activations.to_vec(),
        });
        self.warnings.extend(raised.iter().cloned());
        raised
    }

    /// Counts one more record for which `key`'s condition holds (`on`), or ends its
    /// streak; the streak's length.
    fn streak(&mut self, key: (Check, usize), on: bool) -> usize {
        if on {
            let count = self.streaks.entry(key).or_insert(0);
            *count += 1;
            *count
        } else {
            self.streaks.remove(&key);
            0
        }
    }

    /// Every record, in order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Every warning raised so far, in order.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The history as CSV in long form, one value per row, with the header
    /// `step,kind,name,statistic,value`: `kind` is `gradient` (name: a variable, or
    /// `global` for the global norm) or `activation` (name: a layer). Gradient statistics:
    /// `norm`, `max_abs`, `mean`, `zero_fraction`, `nan`, `infinite`, `update_ratio` (when
    /// defined), `weight_norm`, and `missing` (1) for a `None` gradient; activation
    /// statistics: `flat_fraction`, `dead_fraction`. NaN and infinities are written `NaN`,
    /// `inf`, `-inf`.
    ///
    /// ```
    /// use gradtape_nn::diagnostics::GradientStats;
    /// use gradtape_nn::monitor::Monitor;
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::with_name("w", 2.0_f32);
    /// let mut monitor = Monitor::new();
    /// monitor.record(3, &GradientStats::new(&[&w], &[Some(Tensor::scalar(-0.5))], 0.1), &[]);
    /// let csv = monitor.to_csv();
    /// assert!(csv.contains("3,gradient,global,norm,0.5\n"));
    /// assert!(csv.contains("3,gradient,w,update_ratio,0.025\n")); // 0.1 · 0.5 / 2
    /// ```
    pub fn to_csv(&self) -> String {
        use std::fmt::Write;
        let mut csv = String::from("step,kind,name,statistic,value\n");
        let mut row = |step: u64, kind: &str, name: &str, statistic: &str, value: f64| {
            // writing to a String cannot fail
            let _ = writeln!(csv, "{step},{kind},{},{statistic},{value}", quoted(name));
        };
        for r in &self.records {
            let s = r.step;
            row(s, "gradient", "global", "norm", r.gradients.global_norm());
            for v in r.gradients.variables() {
                let name = v.name.as_str();
                match &v.gradient {
                    None => row(s, "gradient", name, "missing", 1.0),
                    Some(g) => {
                        row(s, "gradient", name, "norm", g.norm);
                        row(s, "gradient", name, "max_abs", g.max_abs);
                        row(s, "gradient", name, "mean", g.mean);
                        row(s, "gradient", name, "zero_fraction", g.zero_fraction);
                        row(s, "gradient", name, "nan", g.nan as f64);
                        row(s, "gradient", name, "infinite", g.infinite as f64);
                        if let Some(ratio) = g.update_ratio {
                            row(s, "gradient", name, "update_ratio", ratio);
                        }
                    }
                }
                row(s, "gradient", name, "weight_norm", v.weight_norm);
            }
            for a in &r.activations {
                if let (Some(flat), Some(dead)) = (a.flat_fraction, a.dead_fraction) {
                    row(s, "activation", &a.layer, "flat_fraction", flat);
                    row(s, "activation", &a.layer, "dead_fraction", dead);
                }
            }
        }
        csv
    }

    /// Writes [`to_csv`](Self::to_csv) to `path`.
    ///
    /// ```
    /// use gradtape_nn::monitor::Monitor;
    /// let path = std::env::temp_dir().join("gradtape-doc-monitor.csv");
    /// Monitor::new().write_csv(&path).unwrap();
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), "step,kind,name,statistic,value\n");
    /// ```
    ///
    /// # Errors
    /// If the file cannot be written.
    pub fn write_csv(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_csv())
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn quoted(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}
