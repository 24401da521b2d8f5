//! Forward mode's recording side: the thread-local stack of active forward accumulators,
//! and how an op's tangent reaches them.
//!
//! An op that runs while an accumulator records, with an input that has a tangent there,
//! gets its output's tangent from the op's JVP rule (written beside its VJP rule, in
//! recordable ops). The rule runs with that accumulator, every accumulator entered inside
//! it and every tape entered inside it suspended, and everything entered outside it still
//! recording: so an outer tape records the tangent's computation (reverse over forward), an
//! outer accumulator computes its tangent (forward over forward), and nothing records its
//! own tangent work. This is TensorFlow's ordering of tapes and accumulators.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::base::context::adjust_recording;
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Tensor, TensorId};
use crate::record::stack::{self, PauseGuard};
use crate::record::variable::VariableId;

/// One accumulator's record: the tangent of every value it has seen, by tensor id.
pub(crate) struct AccumulatorState {
    /// Tangents of the primals and of every value computed from them in scope. A tensor's
    /// clones share its id, so they share its tangent.
    pub tangents: FxHashMap<TensorId, AnyTensor>,
    /// Variables given as primals, with their tangents: each read in scope gets the tangent.
    pub variables: Vec<(VariableId, AnyTensor)>,
    /// Inside `record` now.
    pub active: bool,
    /// Suspended by as many scopes (its own JVP work, or an inner one's).
    paused: u32,
    /// How many tapes were on the tape stack when this accumulator's scope began: those
    /// above are inside it, and are suspended while it computes a tangent.
    tapes_below: usize,
}

impl AccumulatorState {
    pub(crate) fn new(
        tangents: FxHashMap<TensorId, AnyTensor>,
        variables: Vec<(VariableId, AnyTensor)>,
    ) -> AccumulatorState {
        AccumulatorState {
            tangents,
            variables,
            active: false,
            paused: 0,
            tapes_below: 0,
        }
    }

    fn is_accumulating(&self) -> bool {
        self.active && self.paused == 0
    }

    /// The tangent of variable `var`, if it is one of the primals.
    pub(crate) fn variable_tangent(&self, var: VariableId) -> Option<&AnyTensor> {
        self.variables
            .iter()
            .find(|(id, _)| *id == var)
            .map(|(_, tangent)| tangent)
    }
}

pub(crate) type AccumulatorCell = RefCell<AccumulatorState>;

thread_local! {
    /// Active accumulators, outermost first.
    static ACCUMULATORS: RefCell<Vec<Rc<AccumulatorCell>>> = const { RefCell::new(Vec::new()) };
    /// Accumulators below this position are suspended by `without_recording`.
    static FLOOR: Cell<usize> = const { Cell::new(0) };
    /// How many accumulators above the floor are accumulating (active, not paused). Each
    /// is also counted in the context's recording count, so that `any_recording` (the one
    /// check an op makes) covers them.
    static ACCUMULATING: Cell<u32> = const { Cell::new(0) };
}

/// Whether any accumulator on this thread would see an op now.
#[inline]
pub(crate) fn accumulating() -> bool {
    ACCUMULATING.with(Cell::get) != 0
}

fn adjust(delta: i32) {
    ACCUMULATING.with(|count| count.set(count.get().wrapping_add_signed(delta)));
    adjust_recording(delta);
}

/// Whether `acc` is on the stack above the floor (its pauses count then).
fn is_live(acc: &Rc<AccumulatorCell>) -> bool {
    let floor = FLOOR.with(Cell::get);
    ACCUMULATORS.with(|stack| {
        stack
            .borrow()
            .iter()
            .skip(floor)
            .any(|a| Rc::ptr_eq(a, acc))
    })
}

/// Pushes `acc` on this thread's stack for the life of the returned guard.
///
/// # Panics
/// If the accumulator is already recording.
#[track_caller]
pub(crate) fn enter(acc: &Rc<AccumulatorCell>) -> ActiveGuard {
    {
        let mut state = acc.borrow_mut();
        assert!(
            !state.active,
            "ForwardAccumulator::record: this accumulator is already recording; an \
             accumulator cannot be entered twice at once (use a second one for nesting)"
        );
        state.active = true;
        state.tapes_below = stack::depth();
        if state.paused == 0 {
            adjust(1);
        }
    }
    ACCUMULATORS.with(|stack| stack.borrow_mut().push(Rc::clone(acc)));
    ActiveGuard {
        acc: Rc::clone(acc),
    }
}

/// Pops its accumulator off the stack when dropped, also on unwinding.
pub(crate) struct ActiveGuard {
    acc: Rc<AccumulatorCell>,
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        ACCUMULATORS.with(|stack| {
            let mut stack = stack.borrow_mut();
            if let Some(pos) = stack.iter().rposition(|a| Rc::ptr_eq(a, &self.acc)) {
                stack.remove(pos);
            }
        });
        let mut state = self.acc.borrow_mut();
        state.active = false;
        if state.paused == 0 {
            adjust(-1);
        }
    }
}

/// Suspends `acc` until dropped.
struct AccPause {
    acc: Rc<AccumulatorCell>,
}

impl AccPause {
    fn new(acc: &Rc<AccumulatorCell>) -> AccPause {
        let live = is_live(acc);
        let mut state = acc.borrow_mut();
        if state.paused == 0 && state.active && live {
            adjust(-1);
        }
        state.paused += 1;
        AccPause {
            acc: Rc::clone(acc),
        }
    }
}

impl Drop for AccPause {
    fn drop(&mut self) {
        let live = is_live(&self.acc);
        let mut state = self.acc.borrow_mut();
        state.paused -= 1;
        if state.paused == 0 && state.active && live {
            adjust(1);
        }
    }
}

/// The tangents of an op's inputs in one accumulator, in the op's input order (`None`:
/// no tangent, a zero one). What a JVP rule reads.
pub(crate) struct Tangents<'a>(&'a [Option<AnyTensor>]);

impl Tangents<'_> {
    /// The tangent of input `k`, typed as that input is.
    ///
    /// # Panics
    /// If input `k` is not of dtype `T` (a rule reading an input as the wrong type).
    #[inline]
    pub(crate) fn of<T: Float>(&self, k: usize) -> Option<&Tensor<T>> {
        self.0[k].as_ref().map(AnyTensor::typed::<T>)
    }

    /// The tangent of input `k`, dtype-erased.
    pub(crate) fn any(&self, k: usize) -> Option<&AnyTensor> {
        self.0[k].as_ref()
    }

    /// How many inputs the op has.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

/// An op's JVP rule: the output's tangent from its inputs' tangents (at least one present)
/// and the output. `None` means the output has no tangent (its value does not depend on
/// the inputs differentiably, as an integer result's).
pub(crate) type Jvp<'a, T> = dyn Fn(&Tangents<'_>, &Tensor<T>) -> Option<Tensor<T>> + 'a;

/// Gives `out` its tangent in every accumulating accumulator that has a tangent for one of
/// `inputs`, outermost first: an inner accumulator's tangent work is seen by the outer
/// ones, and a rule that reads the output (`exp`'s) must find the output's outer tangents
/// already there, or the outer accumulators would take it for a constant.
///
/// # Panics
/// If a rule returns a tangent whose shape is not the output's (a bug in that rule: never
/// passed on silently).
#[inline(never)]
pub(crate) fn push_tangents<T: Float>(inputs: &[TensorId], out: &Tensor<T>, jvp: &Jvp<'_, T>) {
    let floor = FLOOR.with(Cell::get);
    let depth = ACCUMULATORS.with(|stack| stack.borrow().len());
    for position in floor..depth {
        // Accumulators are only pushed and popped by scopes around this call, and a rule
        // enters none that outlives it, so the positions below `depth` stay the same.
        let acc = ACCUMULATORS.with(|stack| Rc::clone(&stack.borrow()[position]));
        let mut tangents: SmallVec<[Option<AnyTensor>; 2]> = SmallVec::new();
        let tapes_below = {
            let state = acc.borrow();
            if !state.is_accumulating() {
                continue;
            }
            for id in inputs {
                tangents.push(state.tangents.get(id).cloned());
            }
            state.tapes_below
        };
        if tangents.iter().all(Option::is_none) {
            continue;
        }
        let tangent = if position + 1 == depth && tapes_below == stack::depth() {
            // the innermost accumulator, with no tape inside it: only it pauses
            let _paused = PauseInnermost::new(&acc);
            jvp(&Tangents(&tangents), out)
        } else {
            let _suspended = suspend_from(position, tapes_below);
            jvp(&Tangents(&tangents), out)
        };
        if let Some(tangent) = tangent {
            assert!(
                tangent.has_shape(out.shape()),
                "forward mode: an op's JVP rule gave a tangent of shape {:?} for an output \
                 of shape {:?} (a bug in gradtape: please report it)",
                tangent.shape(),
                out.shape()
            );
            acc.borrow_mut()
                .tangents
                .insert(out.id(), T::into_any(tangent));
        }
    }
}

/// Pauses an accumulator known to be accumulating and live (the innermost one, while it
/// computes a tangent), until dropped: [`AccPause`] without its checks.
struct PauseInnermost<'a>(&'a AccumulatorCell);

impl<'a> PauseInnermost<'a> {
    fn new(acc: &'a AccumulatorCell) -> PauseInnermost<'a> {
        acc.borrow_mut().paused += 1;
        adjust(-1);
        PauseInnermost(acc)
    }
}

impl Drop for PauseInnermost<'_> {
    fn drop(&mut self) {
        self.0.borrow_mut().paused -= 1;
        adjust(1);
    }
}

/// Whether an accumulating accumulator has a tangent for one of `inputs`: generated code
/// asks, beside whether a tape tracks them, before computing on plain numbers (which would
/// leave its result without a tangent).
pub(crate) fn any_tangent(inputs: &[TensorId]) -> bool {
    if !accumulating() {
        return false;
    }
    let floor = FLOOR.with(Cell::get);
    ACCUMULATORS.with(|stack| {
        stack.borrow().iter().skip(floor).any(|acc| {
            let state = acc.borrow();
            state.is_accumulating() && inputs.iter().any(|id| state.tangents.contains_key(id))
        })
    })
}

/// Gives a read of a variable (the new value `value`) the variable's tangent in every
/// accumulating accumulator that has the variable as a primal.
pub(crate) fn variable_read(var: VariableId, value: TensorId) {
    let floor = FLOOR.with(Cell::get);
    ACCUMULATORS.with(|stack| {
        for acc in stack.borrow().iter().skip(floor) {
            let mut state = acc.borrow_mut();
            if !state.is_accumulating() {
                continue;
            }
            if let Some(tangent) = state.variable_tangent(var).cloned() {
                state.tangents.insert(value, tangent);
            }
        }
    });
}

/// What [`suspend_from`] restores when dropped.
struct Suspended {
    _accumulators: SmallVec<[AccPause; 2]>,
    _tapes: SmallVec<[PauseGuard; 2]>,
}

/// Suspends the accumulators from stack position `position` up (one accumulator and those
/// entered inside it) and the tapes from tape-stack position `tapes_below` up (those
/// entered inside it), until dropped.
fn suspend_from(position: usize, tapes_below: usize) -> Suspended {
    let accumulators = ACCUMULATORS.with(|stack| {
        stack.borrow()[position..]
            .iter()
            .map(Rc::clone)
            .collect::<SmallVec<[_; 2]>>()
    });
    Suspended {
        _accumulators: accumulators.iter().map(AccPause::new).collect(),
        _tapes: stack::pause_from(tapes_below),
    }
}

/// Runs `f` with every accumulator now active suspended (`without_recording`): those
/// entered inside `f` accumulate as usual. Returns what restores the previous state.
pub(crate) fn suspend_all() -> impl Drop {
    struct Restore {
        accumulating: u32,
        floor: usize,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            // The caller restores the recording count; this restores the accumulators'.
            ACCUMULATING.with(|count| count.set(self.accumulating));
            FLOOR.with(|floor| floor.set(self.floor));
        }
    }
    Restore {
        accumulating: ACCUMULATING.with(|count| count.replace(0)),
        floor: FLOOR.with(|floor| floor.replace(ACCUMULATORS.with(|stack| stack.borrow().len()))),
    }
}

/// When the only recorder on this thread is one accumulator (no tape records, no other
/// accumulator accumulates) and it has a tangent for one of `inputs`: runs `f` with that
/// accumulator paused, so that nothing records, giving it the inputs' tangents; `f`
/// returns its result and the tangents of the values it made, which the accumulator then
/// keeps. `None`, without calling `f`, otherwise. A `#[differentiable]` call computes its
/// value and tangent in one pass of its tangent code this way: with no other recorder, no
/// one could have seen the ops a node would have hidden.
pub(crate) fn with_sole_accumulator<R>(
    inputs: &[TensorId],
    f: impl FnOnce(&Tangents<'_>) -> (R, SmallVec<[(TensorId, AnyTensor); 2]>),
) -> Option<R> {
    if ACCUMULATING.with(Cell::get) != 1 || crate::base::context::recorders() != 1 {
        return None;
    }
    let floor = FLOOR.with(Cell::get);
    let acc = ACCUMULATORS.with(|stack| {
        stack
            .borrow()
            .iter()
            .skip(floor)
            .find(|acc| acc.borrow().is_accumulating())
            .map(Rc::clone)
    })?;
    let tangents: SmallVec<[Option<AnyTensor>; 4]> = {
        let state = acc.borrow();
        inputs
            .iter()
            .map(|id| state.tangents.get(id).cloned())
            .collect()
    };
    if tangents.iter().all(Option::is_none) {
        return None;
    }
    let (result, made) = {
        let _paused = AccPause::new(&acc);
        f(&Tangents(&tangents))
    };
    let mut state = acc.borrow_mut();
    for (id, tangent) in made {
        state.tangents.insert(id, tangent);
    }
    Some(result)
}
