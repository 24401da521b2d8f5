//! [`GradientTape`]: records operations and computes gradients of recorded computations.

mod backward;
pub(crate) mod checkpoint;
pub(crate) mod closure;
pub(crate) mod custom;
pub(crate) mod explain;
mod few;
pub(crate) mod forward;
pub(crate) mod gradcheck;
pub(crate) mod jacobian;
mod structure;
pub mod transforms;

use std::panic::Location;
use std::rc::Rc;

pub(crate) use backward::scratch_capacity as backward_scratch_capacity;
pub use explain::{CutCause, ExplainSource, Explanation, VariableNotWatched};
pub use forward::{ForwardAccumulator, TangentError};
pub use jacobian::JacobianOptions;
pub(crate) use structure::for_each_tuple;
pub use structure::{Connected, GradientList, SourceKey, SourceList, Sources, TargetList, Targets};

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use crate::record::numerics::Found;
pub use crate::record::numerics::{AnomalyPhase, NonFiniteValue};
use crate::record::stack::{self, TapeCell};
use crate::record::state::TapeState;
use crate::record::variable::{AnyVariable, Variable};

/// Tape misuse, reported as an `Err` rather than a wrong or missing gradient.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TapeError {
    /// A non-persistent tape was asked for a second gradient or jacobian.
    #[error(
        "this GradientTape is not persistent and has already computed a gradient, which \
         released its records; create it with GradientTape::persistent() to compute several \
         gradients from one recording"
    )]
    NotPersistent,
    /// An earlier gradient or jacobian of this tape panicked (in a custom gradient's rule,
    /// say) and was caught: its records were half swept, so they were released, and the
    /// tape computes no gradient until [`GradientTape::reset`].
    #[error(
        "an earlier gradient computation on this GradientTape panicked, which left its \
         records unusable; call reset() to start a new record, or use a new tape"
    )]
    Poisoned,
    /// A non-persistent tape was asked for a gradient inside its own `record` scope.
    #[error(
        "gradient called inside the record scope of a non-persistent GradientTape; call it \
         after the scope ends, or use GradientTape::persistent() to record the gradient \
         computation itself (for higher-order derivatives)"
    )]
    GradientWhileRecording,
    /// A gradient or jacobian was asked of a tape while that tape's own sweep runs (from a
    /// custom gradient's rule): the sweep holds the records the answer would come from.
    #[error(
        "gradient or jacobian called on a GradientTape while that tape computes a gradient \
         (from a custom gradient's backward function, say); take it from another tape, or \
         after the outer gradient returns"
    )]
    GradientDuringSweep,
    /// Anomaly mode ([`TapeBuilder::check_numerics`]) found a NaN or an infinity: the first
    /// one, in a value an op recorded on this tape computed (when the op ran) or in a
    /// cotangent its backward rule computed (during this gradient).
    ///
    /// ```
    /// use gradtape_runtime::{AnomalyPhase, GradientTape, NonFiniteValue, TapeError, Tensor};
    /// let x = Tensor::from_vec(vec![1.0_f32, -1.0], &[2]);
    /// let tape = GradientTape::builder().check_numerics(true).build();
    /// tape.watch(&x);
    /// let line = line!() + 1;
    /// let y = tape.record(|| x.ln().sum());
    /// let error = tape.gradient(&y, &x).unwrap_err();
    /// let TapeError::NonFinite { op, phase, value, output_shape, location, .. } = &error else {
    ///     panic!("{error}")
    /// };
    /// assert_eq!((*op, *phase, *value), ("ln", AnomalyPhase::Forward, NonFiniteValue::Nan));
    /// assert_eq!(output_shape, &[2]);
    /// assert_eq!(location.line(), line); // this example's line that recorded `ln`
    /// assert!(error.to_string().contains("forward value of `ln`"), "{error}");
    /// ```
    #[error("{}", non_finite_message(.op, .phase, .value, .operand_shapes, .output_shape, .location))]
    NonFinite {
        /// The op's name, as in [`GradientTape::recorded_ops`].
        op: &'static str,
        /// Its forward value, or the cotangent of which input.
        phase: AnomalyPhase,
        /// The first non-finite element found (row-major order).
        value: NonFiniteValue,
        /// Each operand's shape; `None` for an operand this tape does not track (a
        /// constant, whose shape the tape never saw).
        operand_shapes: Vec<Option<Vec<usize>>>,
        /// The shape of the op's value.
        output_shape: Vec<usize>,
        /// The line that recorded the op.
        location: &'static Location<'static>,
    },
    /// [`GradientTape::gradient_connected`] found a source the target does not depend on,
    /// where [`gradient`](GradientTape::gradient) would give `None`; with the tape's own
    /// account of why ([`GradientTape::explain`]).
    #[error("{}", unconnected_message(*.position, .explanation))]
    Unconnected {
        /// The source's position among the leaves of the sources structure, in the order
        /// they were given (for `(&w, [&a, &b])`: `w` 0, `a` 1, `b` 2).
        position: usize,
        /// Why, as [`GradientTape::explain`] answers it for the first target; `None` when
        /// no target was given.
        explanation: Option<Explanation>,
    },
    /// `output_gradients` did not give exactly one seed per target.
    #[error(
        "output_gradients has {seeds} tensors but there are {targets} targets; give exactly one per target"
    )]
    OutputGradientsCount {
        /// How many targets were given.
        targets: usize,
        /// How many seeds were given.
        seeds: usize,
    },
    /// A seed's shape or dtype differs from its target's.
    #[error(
        "output_gradients[{index}] has shape {seed_shape:?} and dtype {seed_dtype}, but its \
         target has shape {target_shape:?} and dtype {target_dtype}; they must be equal"
    )]
    OutputGradientMismatch {
        /// Position of the seed.
        index: usize,
        /// The target's shape.
        target_shape: Vec<usize>,
        /// The target's dtype.
        target_dtype: &'static str,
        /// The seed's shape.
        seed_shape: Vec<usize>,
        /// The seed's dtype.
        seed_dtype: &'static str,
    },
    /// `batch_jacobian` was given a target or source with fewer than 2 axes.
    #[error(
        "batch_jacobian: the {what} has shape {shape:?}, but needs at least 2 axes (axis 0 \
         is the batch axis); use jacobian for unbatched values"
    )]
    BatchJacobianRank {
        /// `"target"` or `"source N"`.
        what: String,
        /// Its shape.
        shape: Vec<usize>,
    },
    /// `batch_jacobian` was given a target and a source with different batch sizes.
    #[error(
        "batch_jacobian: the target's batch axis (axis 0) has length {target_batch} but \
         source {index}'s has length {source_batch}; they must be equal"
    )]
    BatchJacobianBatchSize {
        /// Length of the target's axis 0.
        target_batch: usize,
        /// Position of the source among the sources.
        index: usize,
        /// Length of that source's axis 0.
        source_batch: usize,
    },
}

/// [`TapeError::NonFinite`]'s text.
fn non_finite_message(
    op: &str,
    phase: &AnomalyPhase,
    value: &NonFiniteValue,
    operand_shapes: &[Option<Vec<usize>>],
    output_shape: &[usize],
    location: &Location<'_>,
) -> String {
    let what = match phase {
        AnomalyPhase::Forward => format!("the forward value of `{op}` holds {value}"),
        AnomalyPhase::Backward { input } => format!(
            "the backward rule of `{op}` gave {value} in the cotangent of its input {input}"
        ),
    };
    let operands: Vec<String> = operand_shapes
        .iter()
        .map(|shape| match shape {
            Some(shape) => format!("{shape:?}"),
            None => "untracked".to_owned(),
        })
        .collect();
    format!(
        "check_numerics: {what} (op recorded at {location}; operand shapes [{}], output shape \
         {output_shape:?})",
        operands.join(", ")
    )
}

impl From<Found> for TapeError {
    fn from(found: Found) -> TapeError {
        let Found {
            op,
            phase,
            value,
            operand_shapes,
            output_shape,
            location,
        } = found;
        TapeError::NonFinite {
            op,
            phase,
            value,
            operand_shapes,
            output_shape,
            location,
        }
    }
}

/// What `gradient` returns for a source the target does not depend on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnconnectedGradients {
    /// `None` (TensorFlow's default).
    #[default]
    None,
    /// Zeros of the source's shape and dtype.
    Zero,
}

/// Options of [`GradientTape::gradient_with`].
///
/// ```
/// use gradtape_runtime::{GradientOptions, GradientTape, Tensor, UnconnectedGradients};
/// let (x, unused) = (Tensor::from_vec(vec![1.0_f32, 2.0], &[2]), Tensor::scalar(0.0_f32));
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// tape.watch(&unused);
/// let y = tape.record(|| &x * 3.0);
/// let options = GradientOptions::new()
///     .output_gradients([Tensor::from_vec(vec![1.0_f32, 10.0], &[2])])
///     .unconnected(UnconnectedGradients::Zero);
/// let (gx, gu) = tape.gradient_with(&y, (&x, &unused), options).unwrap();
/// assert_eq!(gx.unwrap().to_vec(), vec![3.0, 30.0]);
/// assert_eq!(gu.unwrap().to_scalar(), 0.0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct GradientOptions {
    output_gradients: Option<Vec<AnyTensor>>,
    unconnected: UnconnectedGradients,
}

impl GradientOptions {
    /// The defaults: seeds of ones, `None` for unconnected sources.
    pub fn new() -> GradientOptions {
        GradientOptions::default()
    }

    /// The cotangent to start from at each target (exactly one per target, each of the
    /// target's shape and dtype), instead of ones.
    pub fn output_gradients(mut self, seeds: impl Targets) -> GradientOptions {
        let mut all = TargetList::default();
        seeds.collect_targets(&mut all);
        self.output_gradients = Some(all.into_vec());
        self
    }

    /// What to return for sources the targets do not depend on.
    pub fn unconnected(mut self, unconnected: UnconnectedGradients) -> GradientOptions {
        self.unconnected = unconnected;
        self
    }
}

/// Records operations on tensors and variables and computes gradients of them: TensorFlow's
/// `tf.GradientTape`, with its semantics (see the crate docs).
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, Variable};
/// let w = Variable::new(3.0_f32);
/// let b = Variable::new(1.0_f32);
/// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[4]);
/// let y = Tensor::from_vec(vec![3.0_f32, 5.0, 7.0, 9.0], &[4]);
/// let tape = GradientTape::new();
/// let loss = tape.record(|| (&w * &x + &b - &y).square().mean());
/// let [dw, db] = tape.gradient(&loss, [&w, &b]).unwrap();
/// // the residual is 3x + 1 - (2x + 1) = x: ∂/∂w = mean(2x·x) = 15, ∂/∂b = mean(2x) = 5
/// assert_eq!(dw.unwrap().to_scalar(), 15.0);
/// assert_eq!(db.unwrap().to_scalar(), 5.0);
/// ```
pub struct GradientTape {
    pub(crate) cell: Rc<TapeCell>,
}

impl Drop for GradientTape {
    fn drop(&mut self) {
        // The tape's buffers (and its `Rc`) go to the next tape opened on this thread. Only
        // an unshared tape: while it records, the thread's stack of active tapes holds it
        // too, and then it is simply dropped.
        if Rc::strong_count(&self.cell) == 1 && Rc::weak_count(&self.cell) == 0 {
            TapeState::give_back(&self.cell);
        }
    }
}

/// Shows the settings and the recorded ops, in order.
///
/// ```
/// use gradtape_runtime::{GradientTape, Variable};
/// let x = Variable::new(2.0_f32);
/// let tape = GradientTape::new();
/// tape.record(|| x.sin() * 2.0);
/// let shown = format!("{tape:?}");
/// assert!(shown.contains(r#"ops: ["variable", "sin", "scale"]"#), "{shown}");
/// ```
impl std::fmt::Debug for GradientTape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.cell.borrow();
        let records = state.records();
        let ops: Vec<&str> = (0..state.nodes.len()).map(|i| records.op(i)).collect();
        f.debug_struct("GradientTape")
            .field("persistent", &state.persistent)
            .field("watch_accessed_variables", &state.watch_accessed_variables)
            .field("recording", &state.is_recording())
            .field("ops", &ops)
            .finish()
    }
}

impl Default for GradientTape {
    fn default() -> Self {
        GradientTape::new()
    }
}

/// Builds a [`GradientTape`] with non-default settings.
///
/// ```
/// use gradtape_runtime::{GradientTape, Variable};
/// let (x0, x1) = (Variable::new(0.0_f32), Variable::new(10.0_f32));
/// let tape = GradientTape::builder().watch_accessed_variables(false).build();
/// tape.watch(&x1);
/// let y = tape.record(|| x0.sin() + x1.softplus());
/// let (g0, g1) = tape.gradient(&y, (&x0, &x1)).unwrap();
/// assert!(g0.is_none());
/// assert!((g1.unwrap().to_scalar() - 0.9999546).abs() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TapeBuilder {
    persistent: bool,
    watch_accessed_variables: bool,
    check_numerics: bool,
}

impl TapeBuilder {
    /// Whether the tape keeps its records after a gradient (default `false`).
    pub fn persistent(mut self, persistent: bool) -> TapeBuilder {
        self.persistent = persistent;
        self
    }

    /// Whether trainable variables read while recording are watched (default `true`).
    pub fn watch_accessed_variables(mut self, watch: bool) -> TapeBuilder {
        self.watch_accessed_variables = watch;
        self
    }

    /// Anomaly mode (default `false`), PyTorch's `detect_anomaly` and TensorFlow's
    /// `enable_check_numerics` for this tape: every value an op recorded on it computes, and
    /// every cotangent its gradients' backward rules compute, is checked for NaN and ±inf.
    /// The first one found makes `gradient` (or `jacobian`) return
    /// [`TapeError::NonFinite`], naming the op, its operand and output shapes, whether the
    /// forward value or the cotangent of which input, and the line of your code that
    /// recorded the op. A non-finite forward value is reported even if the target does not
    /// depend on it (a masked-out `ln` of a negative number too, as in TensorFlow), and a
    /// persistent tape reports it from every gradient until [`GradientTape::reset`].
    ///
    /// Off, nothing is checked and nothing is noted (non-finite gradients come back as
    /// values, as in TensorFlow); on, each recorded op costs a scan of its value and the
    /// note of its line and shape, and each rule a scan of its cotangents.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, TapeError, Tensor};
    /// let x = Tensor::from_vec(vec![4.0_f64, 0.0], &[2]);
    /// let tape = GradientTape::builder().check_numerics(true).build();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.sqrt().sum());
    /// let error = tape.gradient(&y, &x).unwrap_err();
    /// assert!(matches!(error, TapeError::NonFinite { op: "sqrt", .. }));
    /// // check_numerics: the backward rule of `sqrt` gave inf in the cotangent of its input 0
    /// // (op recorded at src/main.rs:5:25; operand shapes [[2]], output shape [2])
    /// println!("{error}");
    ///
    /// // off: the infinite derivative of √x at 0 is returned as a value
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.sqrt().sum());
    /// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_vec(), vec![0.25, f64::INFINITY]);
    /// ```
    pub fn check_numerics(mut self, check: bool) -> TapeBuilder {
        self.check_numerics = check;
        self
    }

    /// The tape.
    pub fn build(self) -> GradientTape {
        // large tensors reused from the heap rather than mapped afresh on every step
        crate::base::alloc::keep_large_buffers();
        GradientTape {
            cell: TapeState::new_cell(
                self.persistent,
                self.watch_accessed_variables,
                self.check_numerics,
            ),
        }
    }
}

impl GradientTape {
    /// A non-persistent tape (one gradient) that watches trainable variables it sees read.
    ///
    /// ```
    /// use gradtape_runtime::GradientTape;
    /// assert!(!GradientTape::new().is_persistent());
    /// ```
    pub fn new() -> GradientTape {
        GradientTape::builder().build()
    }

    /// A persistent tape: any number of gradients and jacobians, until it is dropped.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![1.0_f32, 3.0], &[2]);
    /// let tape = GradientTape::persistent();
    /// tape.watch(&x);
    /// let (y, z) = tape.record(|| { let y = &x * &x; let z = &y * &y; (y, z) });
    /// assert_eq!(tape.gradient(&z, &x).unwrap().unwrap().to_vec(), vec![4.0, 108.0]);
    /// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_vec(), vec![2.0, 6.0]);
    /// ```
    pub fn persistent() -> GradientTape {
        GradientTape::builder().persistent(true).build()
    }

    /// A builder for `persistent`, `watch_accessed_variables` and `check_numerics`.
    ///
    /// ```
    /// use gradtape_runtime::GradientTape;
    /// let tape = GradientTape::builder().persistent(true).check_numerics(true).build();
    /// assert!(tape.is_persistent());
    /// ```
    pub fn builder() -> TapeBuilder {
        TapeBuilder {
            persistent: false,
            watch_accessed_variables: true,
            check_numerics: false,
        }
    }

    /// Whether this tape keeps its records after a gradient.
    pub fn is_persistent(&self) -> bool {
        self.cell.borrow().persistent
    }

    /// Runs `f` with this tape recording: ops in `f` whose inputs the tape tracks are
    /// recorded, and trainable variables read in `f` are watched. Entering a finished tape
    /// again appends to its record (a non-persistent tape whose gradient has been taken
    /// starts a new record instead, as TensorFlow's does); tapes nest.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::scalar(2.0_f64);
    /// let tape = GradientTape::persistent();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.square());
    /// let z = tape.record(|| &y + &x); // appends
    /// assert_eq!(tape.gradient(&z, &x).unwrap().unwrap().to_scalar(), 5.0);
    /// ```
    ///
    /// # Panics
    /// If this tape is already recording (`record` inside its own `record`).
    #[track_caller]
    pub fn record<R>(&self, f: impl FnOnce() -> R) -> R {
        let _guard = stack::enter(&self.cell);
        f()
    }

    /// Runs `f` with this tape paused: nothing in `f` is recorded on it (outer tapes go on
    /// recording), and `watch` inside does nothing.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Variable};
    /// let x = Variable::new(3.0_f32);
    /// let tape = GradientTape::new();
    /// let y = tape.record(|| {
    ///     let traced = x.square();
    ///     let untraced = tape.stop_recording(|| x.square());
    ///     traced + untraced
    /// });
    /// // only the recorded x² contributes: d/dx x² = 2x = 6
    /// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 6.0);
    /// ```
    pub fn stop_recording<R>(&self, f: impl FnOnce() -> R) -> R {
        let _guard = stack::pause(&self.cell);
        f()
    }

    /// Starts tracking `x` (a float tensor or variable): ops on it recorded from now on
    /// (not before) lead back to it. A variable is tracked through all its later reads.
    /// Does nothing while the tape is paused by `stop_recording`.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::scalar(3.0_f32);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.square());
    /// // d/dx x² = 2x = 6
    /// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 6.0);
    /// ```
    pub fn watch<W: Watch + ?Sized>(&self, x: &W) {
        let mut state = self.cell.borrow_mut();
        if state.paused > 0 {
            return;
        }
        x.watch_on(&mut state);
    }

    /// Drops every record and every explicit watch, as if the tape were new (it stays
    /// active if called inside `record`). A tape poisoned by a panicking gradient
    /// ([`TapeError::Poisoned`]) is usable again.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Variable};
    /// let x = Variable::new(3.0_f32);
    /// let tape = GradientTape::new();
    /// let y = tape.record(|| {
    ///     let discarded = x.powi(3);
    ///     tape.reset();
    ///     x.square() + discarded
    /// });
    /// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 6.0);
    /// ```
    ///
    /// # Panics
    /// If this tape is computing a gradient or jacobian (`reset` from a custom gradient's
    /// rule run by this tape's own sweep): the sweep holds the records it is going through.
    /// The panic unwinds through that gradient, which leaves the tape poisoned.
    #[track_caller]
    pub fn reset(&self) {
        let mut state = self.cell.borrow_mut();
        assert!(
            !state.sweeping,
            "GradientTape::reset: called while this tape computes a gradient (from a custom \
             gradient's rule, say), whose records it would clear half-way; reset the tape \
             after gradient returns"
        );
        state.clear();
        state.consumed = false;
        state.poisoned = false;
    }

    /// The variables this tape watches, in creation order.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Variable};
    /// let (a, b) = (Variable::with_name("a", 1.0_f32), Variable::with_name("b", 2.0_f32));
    /// let tape = GradientTape::new();
    /// tape.record(|| &b * &a);
    /// let names: Vec<String> = tape.watched_variables().iter().map(|v| v.name().into()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    pub fn watched_variables(&self) -> Vec<AnyVariable> {
        self.cell
            .borrow()
            .variables
            .iter()
            .map(|w| w.var.clone())
            .collect()
    }

    /// The gradient of `target` (one float tensor, or several whose gradients are summed)
    /// with respect to each source, in the structure of `sources`: `None` where the target
    /// does not depend on a source.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::scalar(3.0_f32);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let (y, z) = tape.record(|| { let y = &x * &x; let z = &y * &y; (y, z) });
    /// // gradient w.r.t. the intermediate y: dz/dy = 2y = 18
    /// assert_eq!(tape.gradient(&z, &y).unwrap().unwrap().to_scalar(), 18.0);
    /// ```
    ///
    /// # Errors
    /// [`TapeError::NotPersistent`] for a second gradient from a non-persistent tape;
    /// [`TapeError::GradientWhileRecording`] inside a non-persistent tape's own scope;
    /// [`TapeError::Poisoned`] after an earlier gradient of this tape panicked;
    /// [`TapeError::GradientDuringSweep`] from a rule run by this tape's own gradient;
    /// [`TapeError::NonFinite`] in anomaly mode ([`TapeBuilder::check_numerics`]).
    pub fn gradient<S: Sources>(
        &self,
        target: &(impl Targets + ?Sized),
        sources: S,
    ) -> Result<S::Output, TapeError> {
        self.gradient_with(target, sources, GradientOptions::default())
    }

    /// [`gradient`](Self::gradient) for sources the target must depend on: the gradients
    /// with the `Option`s taken off (see [`Connected`]), or [`TapeError::Unconnected`]
    /// naming the first source the target does not depend on and why, in the words of
    /// [`explain`](Self::explain). This is PyTorch's `torch.autograd.grad` with
    /// `allow_unused=False`; `gradient` keeps TensorFlow's `None`.
    ///
    /// ```
    /// use gradtape_runtime::{Explanation, GradientTape, TapeError, Tensor, Variable};
    /// let (w, b) = (Variable::new(2.0_f64), Variable::new(0.5_f64));
    /// let x = Tensor::scalar(3.0_f64);
    /// let tape = GradientTape::persistent();
    /// let y = tape.record(|| &w * &x + &b);
    /// let (dw, db) = tape.gradient_connected(&y, (&w, &b))?;
    /// assert_eq!((dw.to_scalar(), db.to_scalar()), (3.0, 1.0));
    ///
    /// let unused = Variable::with_name("unused", 1.0_f64);
    /// let error = tape.gradient_connected(&y, [&w, &unused]).unwrap_err();
    /// let TapeError::Unconnected { position, explanation } = &error else {
    ///     panic!("{error}")
    /// };
    /// assert_eq!(*position, 1);
    /// assert!(matches!(explanation, Some(Explanation::VariableNotWatched { .. })));
    /// assert!(error.to_string().contains("variable `unused` was never read"), "{error}");
    /// # Ok::<(), TapeError>(())
    /// ```
    ///
    /// # Errors
    /// [`TapeError::Unconnected`], and as [`gradient`](Self::gradient).
    pub fn gradient_connected<S: Sources>(
        &self,
        target: &(impl Targets + ?Sized),
        sources: S,
    ) -> Result<<S::Output as Connected>::Value, TapeError>
    where
        S::Output: Connected,
    {
        let mut targets = TargetList::default();
        target.collect_targets(&mut targets);
        let grads = structure::over_leaves(sources, |keys, grads| {
            let options = GradientOptions::default();
            self.gradient_erased(&targets, keys, options, Unconnected::Explain, grads)
        })?;
        Ok(grads.connected().expect(
            "every leaf has a gradient, yet `Connected::connected` gave None: \
             this structure's `Connected` impl does not match its `Sources` impl",
        ))
    }

    /// [`gradient`](Self::gradient) with explicit seeds (`output_gradients`) and the choice
    /// of zeros for unconnected sources.
    ///
    /// # Errors
    /// As [`gradient`](Self::gradient), and [`TapeError::OutputGradientsCount`] or
    /// [`TapeError::OutputGradientMismatch`] when the seeds do not match the targets one to
    /// one in shape and dtype.
    pub fn gradient_with<S: Sources>(
        &self,
        target: &(impl Targets + ?Sized),
        sources: S,
        options: GradientOptions,
    ) -> Result<S::Output, TapeError> {
        let mut targets = TargetList::default();
        target.collect_targets(&mut targets);
        structure::over_leaves(sources, |keys, grads| {
            self.gradient_erased(&targets, keys, options, Unconnected::Keep, grads)
        })
    }

    /// The dtype-erased core of `gradient`.
    fn gradient_erased(
        &self,
        targets: &[AnyTensor],
        sources: &[SourceKey],
        options: GradientOptions,
        unconnected: Unconnected,
        grads: &mut backward::Gradients,
    ) -> Result<(), TapeError> {
        self.check_usable()?;
        let seeds = match options.output_gradients {
            None => None,
            Some(given) => Some(validate_seeds(targets, given)?),
        };
        let sweep = backward::Sweep {
            targets,
            seeds: seeds.as_deref(),
            sources,
            batch_rank: 0,
            // the records outlive the sweep when a missing gradient is to be explained
            retain: unconnected == Unconnected::Explain,
        };
        let found = backward::run(&self.cell, sweep, grads);
        if unconnected == Unconnected::Explain
            && found.is_none()
            && let Some(position) = grads.iter().position(Option::is_none)
        {
            let explanation =
                (targets.first()).map(|target| self.explain_key(target.id(), &sources[position]));
            self.finish_gradient();
            return Err(TapeError::Unconnected {
                position,
                explanation,
            });
        }
        self.finish_gradient();
        if let Some(found) = found {
            return Err(found.into());
        }
        if options.unconnected == UnconnectedGradients::Zero {
            for (grad, source) in grads.iter_mut().zip(sources) {
                if grad.is_none() {
                    *grad = Some(source.value().zeros_like());
                }
            }
        }
        Ok(())
    }

    /// A non-persistent tape is done once a gradient has run: also when the sweep never
    /// ran (a target off the tape, an anomaly found before it), the records are released
    /// either way, as TensorFlow's are.
    fn finish_gradient(&self) {
        let mut state = self.cell.borrow_mut();
        if !state.persistent {
            state.consumed = true;
            state.release_records();
        }
    }

    /// Whether a gradient or jacobian may run now: the misuses, and in anomaly mode a
    /// non-finite value recorded already (which ends a non-persistent tape's record, as a
    /// gradient would).
    #[inline]
    fn check_usable(&self) -> Result<(), TapeError> {
        // The usual answer by one borrow and the flags' tests, inline; the errors (and a
        // non-persistent tape's release in anomaly mode) out of line.
        let state = self.cell.borrow();
        let usable = !state.poisoned
            && !state.sweeping
            && (state.persistent || (!state.consumed && !state.is_recording()))
            && state.non_finite.is_none();
        drop(state);
        if usable {
            return Ok(());
        }
        self.check_usable_slow()
    }

    /// [`check_usable`](Self::check_usable)'s answer, each case tested in turn.
    #[inline(never)]
    fn check_usable_slow(&self) -> Result<(), TapeError> {
        let state = self.cell.borrow();
        if state.poisoned {
            return Err(TapeError::Poisoned);
        }
        if state.sweeping {
            // Its records are in the sweep's hands (out of the tape, or half released).
            return Err(TapeError::GradientDuringSweep);
        }
        if !state.persistent {
            if state.consumed {
                return Err(TapeError::NotPersistent);
            }
            if state.is_recording() {
                return Err(TapeError::GradientWhileRecording);
            }
        }
        if let Some(found) = &state.non_finite {
            let error = found.clone().into();
            drop(state);
            self.finish_gradient();
            return Err(error);
        }
        Ok(())
    }
}

/// What [`GradientTape::gradient_erased`] does with a source the target does not depend on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unconnected {
    /// Leave its gradient `None` (or zeros, as the options say).
    Keep,
    /// Return [`TapeError::Unconnected`] with the tape's explanation.
    Explain,
}

fn unconnected_message(position: usize, explanation: &Option<Explanation>) -> String {
    let why = match explanation {
        None => "no target was given".to_string(),
        // `explain` follows recorded paths; a path whose every op's rule gives no gradient
        // (an op with no gradient, as TensorFlow registers for some) is still a path
        Some(Explanation::Connected) => "the tape records a path from it to the target, but \
            an op on every such path has no gradient"
            .to_string(),
        Some(why) => why.to_string(),
    };
    format!(
        "gradient_connected: the target does not depend on source {position} (counting the \
         sources' leaves in order): {why}; if that is intended, call `gradient`, which gives \
         None for it"
    )
}

fn validate_seeds(
    targets: &[AnyTensor],
    seeds: Vec<AnyTensor>,
) -> Result<Vec<AnyTensor>, TapeError> {
    if seeds.len() != targets.len() {
        return Err(TapeError::OutputGradientsCount {
            targets: targets.len(),
            seeds: seeds.len(),
        });
    }
    for (index, (target, seed)) in targets.iter().zip(&seeds).enumerate() {
        if !crate::base::tensor::same_shape(target.shape(), seed.shape())
            || target.dtype() != seed.dtype()
        {
            return Err(TapeError::OutputGradientMismatch {
                index,
                target_shape: target.shape().to_vec(),
                target_dtype: target.dtype(),
                seed_shape: seed.shape().to_vec(),
                seed_dtype: seed.dtype(),
            });
        }
    }
    Ok(seeds)
}

/// What [`GradientTape::watch`] accepts: float tensors and variables, and slices, arrays and
/// `Vec`s of them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be watched by a GradientTape",
    label = "only float (f32 or f64) tensors and variables can be watched",
    note = "gradients need a float dtype (f32 or f64): integer and bool values are data; cast them with `.cast::<f32>()` and watch the result"
)]
pub trait Watch {
    /// Starts tracking this value on the tape.
    #[doc(hidden)]
    fn watch_on(&self, state: &mut TapeStateHandle<'_>);
}

/// The tape internals `Watch` implementations reach (opaque to users).
#[doc(hidden)]
pub type TapeStateHandle<'a> = std::cell::RefMut<'a, TapeState>;

impl<T: Float> Watch for Tensor<T> {
    fn watch_on(&self, state: &mut TapeStateHandle<'_>) {
        state.track_leaf_of_shape(self.id(), "watched tensor", self.shape());
        state
            .watched_tensors
            .push((self.id(), crate::base::tensor::TensorId::fresh().0));
    }
}

impl<T: Float> Watch for Variable<T> {
    fn watch_on(&self, state: &mut TapeStateHandle<'_>) {
        let any = AnyVariable::from(self.clone());
        let index = state.watch_variable(&any);
        stack::track_variable_read(state, index, self.peek().id());
    }
}

impl<W: Watch> Watch for [W] {
    fn watch_on(&self, state: &mut TapeStateHandle<'_>) {
        self.iter().for_each(|w| w.watch_on(state));
    }
}

/// Watches every element, as TensorFlow's `tape.watch([a, b])` does.
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor};
/// let (a, b) = (Tensor::scalar(2.0_f32), Tensor::scalar(3.0_f32));
/// let tape = GradientTape::new();
/// tape.watch(&[&a, &b]);
/// let y = tape.record(|| &a * &b);
/// let [ga, gb] = tape.gradient(&y, [&a, &b]).unwrap();
/// assert_eq!((ga.unwrap().to_scalar(), gb.unwrap().to_scalar()), (3.0, 2.0));
/// ```
impl<W: Watch, const N: usize> Watch for [W; N] {
    fn watch_on(&self, state: &mut TapeStateHandle<'_>) {
        self.as_slice().watch_on(state);
    }
}

impl<W: Watch> Watch for Vec<W> {
    fn watch_on(&self, state: &mut TapeStateHandle<'_>) {
        self.as_slice().watch_on(state);
    }
}

impl<W: Watch + ?Sized> Watch for &W {
    fn watch_on(&self, state: &mut TapeStateHandle<'_>) {
        (**self).watch_on(state);
    }
}

impl GradientTape {
    /// Runs `f` on the tape's records (for the introspection generated code and tests use).
    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&TapeState) -> R) -> R {
        f(&self.cell.borrow())
    }

    /// The ops this tape has recorded so far, by name, in order (watched values and variable
    /// reads are not ops): what a recording did, for tests and diagnostics.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::scalar(3.0_f64);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// tape.record(|| x.sin() * 2.0);
    /// assert_eq!(tape.recorded_ops(), ["sin", "scale"]);
    /// ```
    pub fn recorded_ops(&self) -> Vec<&'static str> {
        let state = self.cell.borrow();
        let records = state.records();
        (0..state.nodes.len())
            .filter(|&i| !records.is_leaf(i))
            .map(|i| records.op(i))
            .collect()
    }
}
