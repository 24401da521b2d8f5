//! Why a gradient is `None`: [`GradientTape::explain`] inspects the tape (what it watches,
//! what it recorded and in which order) and a small registry of the places where values
//! left the differentiable world, and names the cause.
//!
//! The registry ("cuts") notes, only while some tape records so that plain code pays
//! nothing: float tensors made by casting an integer tensor, integer tensors made by
//! casting a float one (to follow float → int → float), and float arrays built with
//! `from_vec` or from an ndarray whose elements equal those just read out of a tensor with
//! `to_vec`/`to_ndarray` (matched by a hash of the elements). Ops recorded or run while a
//! tape records pass a cut on from their inputs to their output, so a target computed from a
//! cut value carries it.
//!
//! Limits, documented rather than guessed around: a value that left as a scalar
//! (`to_scalar`) is not followed (literals would match it by accident); values that left
//! and came back while no tape recorded are not followed; a tensor carries one cut, the
//! first it met; the registry keeps at most `MAX_CUTS` entries per thread, and is emptied
//! when an outermost `record` scope begins (a training loop's next step), so it answers
//! for the latest recording. When the registry cannot tell, `explain` reports what the tape
//! itself shows, which is always true.

use std::fmt;

use super::GradientTape;
use super::structure::SourceKey;
use crate::base::cuts;
pub use crate::base::cuts::CutCause;
use crate::base::dtype::Float;
use crate::base::tensor::{Tensor, TensorId};
use crate::record::node::{NO_NODE, NodeId};
use crate::record::state::TapeState;
use crate::record::variable::{AnyVariable, Variable};

/// Why a variable is not watched by a tape.
///
/// ```
/// use gradtape_runtime::{Explanation, GradientTape, Variable, VariableNotWatched};
/// let frozen = Variable::with_name("frozen", 1.0_f64).trainable(false);
/// let tape = GradientTape::persistent();
/// let y = tape.record(|| frozen.square());
/// let Explanation::VariableNotWatched { reason, .. } = tape.explain(&y, &frozen) else {
///     unreachable!()
/// };
/// assert_eq!(reason, VariableNotWatched::NotTrainable);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariableNotWatched {
    /// It was created with `trainable(false)`, which tapes do not watch on their own.
    NotTrainable,
    /// The tape was built with `watch_accessed_variables(false)`.
    AccessWatchingOff,
    /// It is trainable, but the tape never saw it read while recording.
    NeverRead,
}

/// The answer of [`GradientTape::explain`]: why the gradient of a target with respect to a
/// source is `None`, or that it is not. Printable (`Display` says what to do).
///
/// ```
/// use gradtape_runtime::{Explanation, GradientTape, Tensor};
/// let x = Tensor::scalar(2.0_f32);
/// let tape = GradientTape::persistent();
/// let y = tape.record(|| x.square());
/// tape.watch(&x); // too late: y was computed before
/// let why = tape.explain(&y, &x);
/// assert_eq!(why, Explanation::WatchedAfterTarget);
/// println!("gradient is None: {why}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Explanation {
    /// The gradient exists: a recorded path leads from the source to the target.
    Connected,
    /// The source is a tensor this tape never tracked: neither watched nor computed from a
    /// watched value while the tape recorded.
    TensorNotWatched,
    /// The source is a variable this tape does not watch.
    VariableNotWatched {
        /// The variable's name.
        name: String,
        /// Why it is not watched.
        reason: VariableNotWatched,
    },
    /// The source was watched only after the target was computed: `watch` is not
    /// retroactive, so the ops that made the target were not recorded as using it.
    WatchedAfterTarget,
    /// The path from the source reaches the target only through a value that left the
    /// differentiable world.
    PathCut {
        /// How it left.
        cause: CutCause,
    },
    /// The source is downstream of the target: it was computed after, or from, the target.
    SourceAfterTarget,
    /// No op producing the target was recorded on this tape: it was computed outside
    /// `record`, under `stop_recording`, or from values the tape does not track.
    TargetNotRecorded,
    /// Both are on the tape, but no recorded op connects the source to the target.
    NoPath {
        /// The op that produced the target, as recorded.
        target_op: &'static str,
    },
    /// The tape is not persistent and released its records in an earlier gradient.
    RecordsReleased,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Explanation::Connected => write!(
                f,
                "the target depends on the source through recorded ops; the gradient is not None"
            ),
            Explanation::TensorNotWatched => write!(
                f,
                "the source tensor is not watched by this tape: call tape.watch(&source) before \
                 the ops that use it (inside or before tape.record), or make it a trainable \
                 Variable, which tapes watch when it is read"
            ),
            Explanation::VariableNotWatched { name, reason } => match reason {
                VariableNotWatched::NotTrainable => write!(
                    f,
                    "variable `{name}` is not trainable, so the tape does not watch it on its \
                     own: call tape.watch(&{name}) before reading it, or create it trainable"
                ),
                VariableNotWatched::AccessWatchingOff => write!(
                    f,
                    "variable `{name}` is not watched: the tape was built with \
                     watch_accessed_variables(false); call tape.watch(&{name}) before reading it"
                ),
                VariableNotWatched::NeverRead => write!(
                    f,
                    "variable `{name}` was never read while this tape recorded: read it inside \
                     tape.record(..), or call tape.watch(&{name}) first"
                ),
            },
            Explanation::WatchedAfterTarget => write!(
                f,
                "the source was watched after the target was computed; watch is not \
                 retroactive: call tape.watch(&source) before the ops that use it"
            ),
            Explanation::PathCut { cause } => match cause {
                CutCause::IntegerCast { dtype } => write!(
                    f,
                    "the path from the source to the target goes through a cast to or from \
                     {dtype}, and integer values have no gradient: keep the computation in a \
                     float dtype"
                ),
                CutCause::LeftLibrary => write!(
                    f,
                    "the path from the source to the target leaves the library: its elements \
                     were read out (to_vec/to_ndarray) and a new tensor was built from them, \
                     which is a constant to every tape: keep the computation in tensor ops"
                ),
            },
            Explanation::SourceAfterTarget => write!(
                f,
                "the source is downstream of the target (computed after it), so the target \
                 cannot depend on it"
            ),
            Explanation::TargetNotRecorded => write!(
                f,
                "no op producing the target was recorded on this tape: it was computed \
                 outside tape.record, under stop_recording, or only from values the tape \
                 does not track"
            ),
            Explanation::NoPath { target_op } => write!(
                f,
                "the target (recorded as the output of `{target_op}`) and the source are both \
                 on the tape, but no recorded op leads from the source to the target: the \
                 target does not depend on it"
            ),
            Explanation::RecordsReleased => write!(
                f,
                "this non-persistent tape released its records when it computed a gradient; \
                 use GradientTape::persistent() to ask more than one question"
            ),
        }
    }
}

/// What [`GradientTape::explain`] accepts as a source: one float tensor or variable.
///
/// ```
/// use gradtape_runtime::{Explanation, GradientTape, Variable};
/// let v = Variable::new(2.0_f32);
/// let tape = GradientTape::persistent();
/// let y = tape.record(|| v.square());
/// assert_eq!(tape.explain(&y, &v), Explanation::Connected);
/// ```
pub trait ExplainSource {
    /// The source as the tape sees it.
    #[doc(hidden)]
    fn source_key(&self) -> SourceKey;
}

impl<T: Float> ExplainSource for Tensor<T> {
    fn source_key(&self) -> SourceKey {
        SourceKey::Tensor(T::into_any(self.clone()))
    }
}

impl<T: Float> ExplainSource for Variable<T> {
    fn source_key(&self) -> SourceKey {
        SourceKey::Variable(AnyVariable::from(self.clone()))
    }
}

impl<S: ExplainSource + ?Sized> ExplainSource for &S {
    fn source_key(&self) -> SourceKey {
        (**self).source_key()
    }
}

impl GradientTape {
    /// Why `gradient(target, source)` is `None` (or [`Explanation::Connected`] if it is
    /// not): the source is not watched (and how to watch it), was watched only after the
    /// target was computed, the path is cut by leaving the library or by an integer cast,
    /// the target was not recorded, or there is no recorded path at all. Asking does not
    /// change the tape. The `Display` of the answer says what to do.
    ///
    /// ```
    /// use gradtape_runtime::{Explanation, GradientTape, Tensor};
    /// let x = Tensor::scalar(3.0_f32);
    /// let tape = GradientTape::persistent();
    /// let y = tape.record(|| x.square());
    /// assert!(tape.gradient(&y, &x).unwrap().is_none());
    /// let why = tape.explain(&y, &x);
    /// assert_eq!(why, Explanation::TensorNotWatched);
    /// assert!(why.to_string().contains("tape.watch"));
    /// ```
    pub fn explain<T: Float>(
        &self,
        target: &Tensor<T>,
        source: &impl ExplainSource,
    ) -> Explanation {
        self.explain_key(target.id(), &source.source_key())
    }

    /// [`explain`](Self::explain) for a target known by its id (dtype-erased; what
    /// [`gradient_connected`](Self::gradient_connected) asks before releasing the records).
    pub(crate) fn explain_key(&self, target: TensorId, key: &SourceKey) -> Explanation {
        let state = self.cell.borrow();
        if let SourceKey::Tensor(s) = key
            && s.id() == target
        {
            return Explanation::Connected;
        }
        if state.consumed {
            return Explanation::RecordsReleased;
        }
        let sources = match source_nodes(&state, key) {
            Ok(nodes) => nodes,
            Err(why) => return why,
        };
        let target_node = state.lookup(target);
        let reached = reachable(&state, &sources);
        if target_node != NO_NODE && reached[target_node as usize] {
            return Explanation::Connected;
        }
        if let Some(cause) = cut_on_path(&state, target, key, &reached) {
            return Explanation::PathCut { cause };
        }
        let first_source = sources.iter().copied().min().expect("at least one node");
        let watched_clock = watch_clock(&state, key);
        if target_node == NO_NODE {
            return match watched_clock {
                Some(clock) if is_fresh(target) && target.0 < clock => {
                    Explanation::WatchedAfterTarget
                }
                _ => Explanation::TargetNotRecorded,
            };
        }
        if target_node < first_source {
            let is_leaf = state.records().inputs(first_source as usize).is_empty();
            return if is_leaf {
                Explanation::WatchedAfterTarget
            } else {
                Explanation::SourceAfterTarget
            };
        }
        Explanation::NoPath {
            target_op: state.records().op(target_node as usize),
        }
    }
}

/// The nodes of the source on this tape, or why it has none.
fn source_nodes(state: &TapeState, key: &SourceKey) -> Result<Vec<NodeId>, Explanation> {
    match key {
        SourceKey::Tensor(t) => match state.lookup(t.id()) {
            NO_NODE => Err(Explanation::TensorNotWatched),
            node => Ok(vec![node]),
        },
        SourceKey::Variable(v) => {
            let leaves = state
                .variable_index(v.id())
                .map(|index| state.variables[index].leaves.to_vec())
                .unwrap_or_default();
            if !leaves.is_empty() {
                return Ok(leaves);
            }
            let reason = if state.variable_index(v.id()).is_some() {
                VariableNotWatched::NeverRead
            } else if !v.trainable() {
                VariableNotWatched::NotTrainable
            } else if !state.watch_accessed_variables {
                VariableNotWatched::AccessWatchingOff
            } else {
                VariableNotWatched::NeverRead
            };
            Err(Explanation::VariableNotWatched {
                name: v.name().to_string(),
                reason,
            })
        }
    }
}

/// `reached[i]`: node `i` is a source node or has a recorded path from one.
fn reachable(state: &TapeState, sources: &[NodeId]) -> Vec<bool> {
    let mut reached = vec![false; state.nodes.len()];
    for &s in sources {
        reached[s as usize] = true;
    }
    let first = sources.iter().copied().min().unwrap_or(0) as usize;
    let records = state.records();
    for i in first..state.nodes.len() {
        if !reached[i] {
            reached[i] = records
                .inputs(i)
                .iter()
                .any(|&j| j != NO_NODE && reached[j as usize]);
        }
    }
    reached
}

/// The cut the target carries, if the value carried across it depends on the source.
fn cut_on_path(
    state: &TapeState,
    target: TensorId,
    key: &SourceKey,
    reached: &[bool],
) -> Option<CutCause> {
    let cut = cuts::cut_of(target)?;
    let origin = cut.origin?;
    let from_source = matches!(key, SourceKey::Tensor(s) if s.id() == origin)
        || matches!(state.lookup(origin), node if node != NO_NODE && reached[node as usize]);
    from_source.then_some(cut.cause)
}

/// The id clock when the source tensor was explicitly watched, if it was.
fn watch_clock(state: &TapeState, key: &SourceKey) -> Option<u64> {
    let SourceKey::Tensor(t) = key else {
        return None;
    };
    state
        .watched_tensors
        .iter()
        .find(|(id, _)| *id == t.id())
        .map(|&(_, clock)| clock)
}

/// Ids not encoding a tape node come from a per-thread counter that only grows, so they
/// order tensors made on one thread by creation time.
fn is_fresh(id: TensorId) -> bool {
    id.0 & crate::base::tensor::TAPE_ENCODED_BIT == 0
}
