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

use std::cell::{Cell, RefCell, RefMut};
use std::rc::Rc;

use smallvec::SmallVec;

use crate::base::context::{adjust_recording, any_recording};
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Tensor, TensorId};
use crate::record::stack::{self, PauseGuard};
use crate::record::tangent_table::TangentTable;
use crate::record::variable::VariableId;

/// One accumulator's record: the tangent of every value it has seen, by tensor id.
pub(crate) struct AccumulatorState {
    /// Tangents of the primals and of every value computed from them in scope. A tensor's
    /// clones share its id, so they share its tangent.
    pub tangents: TangentTable,
    /// Variables given as primals, with their tangents: each read in scope gets the tangent.
    pub variables: Vec<(VariableId, AnyTensor)>,
    /// Inside `record` now.
    pub active: bool,
    /// Suspended by as many scopes (its own JVP work, or an inner one's). A `Cell`, so
    /// that pausing needs no exclusive borrow: the accumulator's state stays borrowed
    /// (shared) while one of its JVP rules runs, which reads the inputs' tangents in place.
    paused: Cell<u32>,
    /// How many tapes were on the tape stack when this accumulator's scope began: those
    /// above are inside it, and are suspended while it computes a tangent.
    tapes_below: usize,
}

impl AccumulatorState {
    pub(crate) fn new(
        tangents: TangentTable,
        variables: Vec<(VariableId, AnyTensor)>,
    ) -> AccumulatorState {
        AccumulatorState {
            tangents,
            variables,
            active: false,
            paused: Cell::new(0),
            tapes_below: 0,
        }
    }

    #[inline]
    fn is_accumulating(&self) -> bool {
        self.active && self.paused.get() == 0
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

#[inline(always)]
fn adjust(delta: i32) {
    ACCUMULATING.with(|count| count.set(count.get().wrapping_add_signed(delta)));
    adjust_recording(delta);
    crate::record::stack::refresh_compact();
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
    // Checked through a shared borrow: one of this accumulator's own JVP rules (which
    // runs with its state borrowed) entering it again gets this message too.
    assert!(
        !acc.borrow().active,
        "ForwardAccumulator::record: this accumulator is already recording; an \
         accumulator cannot be entered twice at once (use a second one for nesting)"
    );
    {
        let mut state = acc.borrow_mut();
        state.active = true;
        state.tapes_below = stack::depth();
        if state.paused.get() == 0 {
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
        if state.paused.get() == 0 {
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
        let state = acc.borrow();
        if state.paused.get() == 0 && state.active && live {
            adjust(-1);
        }
        state.paused.set(state.paused.get() + 1);
        AccPause {
            acc: Rc::clone(acc),
        }
    }
}

impl Drop for AccPause {
    fn drop(&mut self) {
        let live = is_live(&self.acc);
        let state = self.acc.borrow();
        state.paused.set(state.paused.get() - 1);
        if state.paused.get() == 0 && state.active && live {
            adjust(1);
        }
    }
}

/// The tangents of an op's inputs in one accumulator, in the op's input order (`None`:
/// no tangent, a zero one). What a JVP rule reads.
pub(crate) struct Tangents<'a> {
    values: &'a [Option<&'a AnyTensor>],
    unobserved: bool,
}

impl Tangents<'_> {
    /// The tangent of input `k`, typed as that input is.
    ///
    /// # Panics
    /// If input `k` is not of dtype `T` (a rule reading an input as the wrong type).
    #[inline]
    pub(crate) fn of<T: Float>(&self, k: usize) -> Option<&Tensor<T>> {
        self.values[k].map(AnyTensor::typed::<T>)
    }

    /// The tangent of input `k`, dtype-erased.
    pub(crate) fn any(&self, k: usize) -> Option<&AnyTensor> {
        self.values[k]
    }

    /// How many inputs the op has.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// The tangents of a unary or binary op's inputs as plain numbers of dtype `T`
    /// (`None` in a slot: no tangent), when a rule may compute on them: nothing can
    /// observe how the tangent is computed (no tape and no other accumulator records while
    /// the rule runs), and every tangent present is a 0-d value stored inline. The rule
    /// then runs the same generic function instantiated at `T` instead of recordable ops:
    /// its result is the same to the bit, and there is no record for the difference to
    /// show in.
    #[inline]
    pub(crate) fn numbers<T: Float>(&self) -> Option<[Option<T>; 2]> {
        if !self.unobserved || self.values.len() > 2 {
            return None;
        }
        let mut numbers = [None; 2];
        for (slot, tangent) in numbers.iter_mut().zip(self.values) {
            if let Some(tangent) = tangent {
                *slot = Some(tangent.typed::<T>().as_inline_scalar()?);
            }
        }
        Some(numbers)
    }
}

/// An op's JVP rule on plain numbers, for 0-d operands stored inline: the output's tangent
/// from the output and the tangents of the (at most two) inputs (`None` in a slot: no
/// tangent). `None` when an operand is not such a number (the op then uses its tensor
/// rule); `Some(None)` when the output has no tangent.
///
/// The same rule as the op's [`Jvp`], instantiated at `T` (see [`Tangents::numbers`]).
pub(crate) trait NumberJvp<T>:
    FnOnce(&Tensor<T>, [Option<T>; 2]) -> Option<Option<T>>
{
}

impl<T, F: FnOnce(&Tensor<T>, [Option<T>; 2]) -> Option<Option<T>>> NumberJvp<T> for F {}

/// The tangent a JVP rule gives from `tangents`, by its number form `numbers` when the
/// tangents allow it (see [`Tangents::numbers`]); `None` when they do not, and the rule's
/// tensor form must run.
#[inline(always)]
pub(crate) fn tangent_by_numbers<T: Float>(
    tangents: &Tangents<'_>,
    out: &Tensor<T>,
    numbers: impl NumberJvp<T>,
) -> Option<Option<Tensor<T>>> {
    let tangent = numbers(out, tangents.numbers::<T>()?)?;
    Some(tangent.map(Tensor::scalar))
}

/// When one accumulator is the only recorder on this thread (no tape records, no other
/// accumulator accumulates) and the tangents of `inputs` (at most two) there are plain
/// numbers or absent: gives `out` its tangent by `numbers`, the op's JVP rule on plain
/// numbers, and returns `true`. Returns `false`, having done nothing, otherwise (or when
/// `numbers` declines); the caller then takes [`push_tangents`]' general path.
///
/// This is [`push_tangents`]' answer in the case it serves most (a scalar program under
/// one accumulator) without its bookkeeping: the rule runs no ops, so the accumulator
/// need not be paused for it, and nothing else records, so nothing could see the work.
#[inline]
pub(crate) fn push_number_tangent<T: Float>(
    inputs: &[TensorId],
    out: &Tensor<T>,
    numbers: impl NumberJvp<T>,
) -> bool {
    if crate::base::context::recorders() != 1 || ACCUMULATING.with(Cell::get) != 1 {
        return false;
    }
    let (x, y) = match *inputs {
        [x] => (x, None),
        [x, y] => (x, Some(y)),
        _ => return false,
    };
    let floor = FLOOR.with(Cell::get);
    ACCUMULATORS.with(|stack| {
        let stack = stack.borrow();
        // The one accumulating: the only one above the floor, as a rule; else found.
        let acc = match &stack[floor..] {
            [acc] => acc,
            above => match above.iter().find(|acc| acc.borrow().is_accumulating()) {
                Some(acc) => acc,
                None => return false,
            },
        };
        // An accumulating accumulator's state is borrowed only by its own JVP work, which
        // runs with it paused; `try_` all the same, and the general path if it were.
        let Ok(mut state) = acc.try_borrow_mut() else {
            return false;
        };
        // (straight-line, not a loop over `[x, y]`: that went through the stack)
        let Some(dx) = state.tangents.number::<T>(x) else {
            return false;
        };
        let dy = match y {
            Some(y) => match state.tangents.number::<T>(y) {
                Some(dy) => dy,
                None => return false,
            },
            None => None,
        };
        let tangents = [dx, dy];
        if tangents.iter().all(Option::is_none) {
            // no input has a tangent here: neither has the output
            return true;
        }
        let Some(tangent) = numbers(out, tangents) else {
            return false;
        };
        if let Some(tangent) = tangent {
            state.tangents.insert_number(out.id(), tangent);
        }
        true
    })
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
    // One accumulator above the floor (the usual case): one visit to the stack.
    let (depth, alone) = ACCUMULATORS.with(|stack| {
        let stack = stack.borrow();
        let alone = (stack.len() == floor + 1).then(|| Rc::clone(&stack[floor]));
        (stack.len(), alone)
    });
    if let Some(acc) = alone {
        push_tangent(&acc, floor, true, inputs, out, jvp);
        return;
    }
    for position in floor..depth {
        // Accumulators are only pushed and popped by scopes around this call, and a rule
        // enters none that outlives it, so the positions below `depth` stay the same.
        let acc = ACCUMULATORS.with(|stack| Rc::clone(&stack.borrow()[position]));
        push_tangent(&acc, position, position + 1 == depth, inputs, out, jvp);
    }
}

/// [`push_tangents`] for the accumulator `acc` at stack position `position` (the innermost
/// one if `innermost`).
#[inline(always)]
fn push_tangent<T: Float>(
    acc: &AccumulatorCell,
    position: usize,
    innermost: bool,
    inputs: &[TensorId],
    out: &Tensor<T>,
    jvp: &Jvp<'_, T>,
) {
    // The state stays borrowed (shared) while the rule runs, so the rule reads the inputs'
    // tangents where they are stored, with no copies. Nothing takes it exclusively then:
    // the accumulator is paused, so no op records on it, and pausing, `enter`'s check and
    // variable reads take it shared (see `variable_read`).
    let tangent = {
        let mut state = acc.borrow();
        if !state.is_accumulating() {
            return;
        }
        // Rules read tensors: a tangent kept as a number gets its tensor first, for good.
        // (A table that never kept a number, as under a tape, is not searched.)
        if state.tangents.holds_numbers() && inputs.iter().any(|&id| state.tangents.is_number(id)) {
            drop(state);
            let mut tangents = RefMut::map(acc.borrow_mut(), |state| &mut state.tangents);
            for &id in inputs {
                tangents.tensor(id);
            }
            drop(tangents);
            state = acc.borrow();
        }
        // Unary and binary ops, nearly all of them, look their inputs up into an array.
        let mut pair = [None; 2];
        let many: SmallVec<[Option<&AnyTensor>; 4]>;
        let found: &[Option<&AnyTensor>] = if let [x, ref rest @ ..] = *inputs
            && rest.len() <= 1
        {
            pair[0] = state.tangents.kept_tensor(x);
            if let [y] = *rest {
                pair[1] = state.tangents.kept_tensor(y);
            }
            &pair[..inputs.len()]
        } else {
            many = inputs
                .iter()
                .map(|&id| state.tangents.kept_tensor(id))
                .collect();
            &many
        };
        if found.iter().all(Option::is_none) {
            return;
        }
        if innermost && state.tapes_below == stack::depth() {
            // the innermost accumulator, with no tape inside it: only it pauses
            let _paused = PauseInnermost::new(&state.paused);
            jvp(&tangents_now(found), out)
        } else {
            let _suspended = suspend_from(position, state.tapes_below);
            jvp(&tangents_now(found), out)
        }
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

/// The tangents `found`, for a rule about to run with its accumulator suspended: whether
/// anything observes the rule's work is whether anything records now.
#[inline(always)]
fn tangents_now<'a>(found: &'a [Option<&'a AnyTensor>]) -> Tangents<'a> {
    Tangents {
        values: found,
        unobserved: !any_recording(),
    }
}

/// Pauses an accumulator known to be accumulating and live (the innermost one, while it
/// computes a tangent), until dropped: [`AccPause`] without its checks. Holds the
/// accumulator's pause count.
struct PauseInnermost<'a>(&'a Cell<u32>);

impl<'a> PauseInnermost<'a> {
    #[inline(always)]
    fn new(paused: &'a Cell<u32>) -> PauseInnermost<'a> {
        paused.set(paused.get() + 1);
        adjust(-1);
        PauseInnermost(paused)
    }
}

impl Drop for PauseInnermost<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
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
            state.is_accumulating() && inputs.iter().any(|&id| state.tangents.contains(id))
        })
    })
}

/// Gives a read of a variable (the new value `value`) the variable's tangent in every
/// accumulating accumulator that has the variable as a primal.
pub(crate) fn variable_read(var: VariableId, value: TensorId) {
    let floor = FLOOR.with(Cell::get);
    ACCUMULATORS.with(|stack| {
        for acc in stack.borrow().iter().skip(floor) {
            // Checked through a shared borrow first: a paused accumulator may be borrowed
            // by its own JVP rule running now (see `push_tangent`).
            let tangent = {
                let state = acc.borrow();
                if !state.is_accumulating() {
                    continue;
                }
                state.variable_tangent(var).cloned()
            };
            if let Some(tangent) = tangent {
                acc.borrow_mut().tangents.insert(value, tangent);
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
            crate::record::stack::refresh_compact();
        }
    }
    let restore = Restore {
        accumulating: ACCUMULATING.with(|count| count.replace(0)),
        floor: FLOOR.with(|floor| floor.replace(ACCUMULATORS.with(|stack| stack.borrow().len()))),
    };
    crate::record::stack::refresh_compact();
    restore
}

/// When the only recorder on this thread is one accumulator (no tape records, no other
/// accumulator accumulates) and it has a tangent for one of `inputs`: runs `f` with that
/// accumulator paused, so that nothing records, giving it the inputs' tangents; `f`
/// returns its result and the tangents of the values it made, which the accumulator then
/// keeps. `None`, without calling `f`, otherwise. A `#[differentiable]` call computes its
/// value and tangent in one pass of its tangent code this way: with no other recorder, no
/// one could have seen the ops a node would have hidden.
pub(crate) fn with_sole_accumulator<R>(
    inputs: &[AnyTensor],
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
    // Owned (reference counts), so that nothing borrows the accumulator while `f` runs.
    let tangents: SmallVec<[Option<AnyTensor>; 4]> = {
        let state = acc.borrow();
        inputs
            .iter()
            .map(|input| state.tangents.get(input.id()).map(|t| t.to_tensor()))
            .collect()
    };
    if tangents.iter().all(Option::is_none) {
        return None;
    }
    let values: SmallVec<[Option<&AnyTensor>; 4]> = tangents.iter().map(Option::as_ref).collect();
    let (result, made) = {
        let _paused = AccPause::new(&acc);
        // with it paused, nothing on this thread records
        f(&Tangents {
            values: &values,
            unobserved: true,
        })
    };
    let mut state = acc.borrow_mut();
    for (id, tangent) in made {
        state.tangents.insert(id, tangent);
    }
    Some(result)
}
