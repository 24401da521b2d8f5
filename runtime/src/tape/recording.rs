//! The thread-local stack of active tapes, and how an op gets onto them.
//!
//! An op is recorded on every active, non-paused tape that tracks one of its inputs
//! (TensorFlow's rule). With no tape active the whole cost is one thread-local read.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use smallvec::SmallVec;

use super::node::{NO_NODE, Node, NodeId, Params, Rule};
use super::state::TapeState;
use crate::dtype::{AnyTensor, Float};
use crate::tensor::{Data, Tensor, TensorId};
use crate::variable::AnyVariable;

pub(crate) type TapeCell = RefCell<TapeState>;

thread_local! {
    /// Active tapes, outermost first.
    static STACK: RefCell<Vec<Rc<TapeCell>>> = const { RefCell::new(Vec::new()) };
    /// How many tapes on `STACK` are recording (not paused): the one check an op makes.
    static RECORDING: Cell<u32> = const { Cell::new(0) };
}

/// Whether any tape on this thread is recording.
#[inline]
pub(crate) fn any_recording() -> bool {
    RECORDING.with(Cell::get) != 0
}

fn adjust_recording(delta: i32) {
    RECORDING.with(|count| count.set(count.get().wrapping_add_signed(delta)));
}

/// Pushes `tape` on this thread's stack for the life of the returned guard.
///
/// # Panics
/// If the tape is already recording (TensorFlow raises in that case too).
#[track_caller]
pub(crate) fn enter(tape: &Rc<TapeCell>) -> ActiveGuard {
    {
        let mut state = tape.borrow_mut();
        assert!(
            !state.active,
            "GradientTape::record: this tape is already recording; a tape cannot be entered \
             twice at once (use a second tape for nesting)"
        );
        state.active = true;
        if state.paused == 0 {
            adjust_recording(1);
        }
    }
    STACK.with(|stack| {
        let mut stack = stack.borrow_mut();
        if stack.is_empty() {
            super::explain::new_epoch();
        }
        stack.push(Rc::clone(tape));
    });
    ActiveGuard {
        tape: Rc::clone(tape),
    }
}

/// Pops its tape off the stack when dropped, also on unwinding.
pub(crate) struct ActiveGuard {
    tape: Rc<TapeCell>,
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        STACK.with(|stack| {
            let mut stack = stack.borrow_mut();
            if let Some(pos) = stack.iter().rposition(|t| Rc::ptr_eq(t, &self.tape)) {
                stack.remove(pos);
            }
        });
        let mut state = self.tape.borrow_mut();
        state.active = false;
        if state.paused == 0 {
            adjust_recording(-1);
        }
    }
}

/// Pauses `tape` for the life of the returned guard.
pub(crate) fn pause(tape: &Rc<TapeCell>) -> PauseGuard {
    let mut state = tape.borrow_mut();
    if state.paused == 0 && state.active {
        adjust_recording(-1);
    }
    state.paused += 1;
    PauseGuard {
        tape: Rc::clone(tape),
    }
}

/// Resumes its tape when dropped.
pub(crate) struct PauseGuard {
    tape: Rc<TapeCell>,
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        let mut state = self.tape.borrow_mut();
        state.paused -= 1;
        if state.paused == 0 && state.active {
            adjust_recording(1);
        }
    }
}

/// What an op records besides its inputs: built only when some tape records the op.
pub(crate) struct NodeSpec {
    pub op: &'static str,
    pub rule: Rule,
    pub saved: SmallVec<[AnyTensor; 2]>,
    pub params: Params,
}

/// Finishes an op: wraps its forward value `data` and records it on every recording tape
/// that tracks one of `inputs`. `spec` gets the output tensor (rules may save it) and is
/// called only if the op is recorded somewhere.
#[inline]
pub(crate) fn record<T: Float>(
    data: Data<T>,
    inputs: &[TensorId],
    spec: impl FnOnce(&Tensor<T>) -> NodeSpec,
) -> Tensor<T> {
    if !any_recording() {
        return Tensor::from_data(data);
    }
    record_on_stack(data, inputs, spec)
}

/// The tapes (by stack position) that record an op, with the op's inputs' nodes there.
type Recorders = SmallVec<[(usize, SmallVec<[NodeId; 2]>); 2]>;

fn record_on_stack<T: Float>(
    data: Data<T>,
    inputs: &[TensorId],
    spec: impl FnOnce(&Tensor<T>) -> NodeSpec,
) -> Tensor<T> {
    STACK.with(|stack| {
        let stack = stack.borrow();
        let recorders = tapes_tracking(&stack, inputs);
        let Some((innermost, _)) = recorders.first() else {
            let out = Tensor::from_data(data);
            super::explain::propagate(inputs, out.id());
            return out;
        };
        let id = stack[*innermost].borrow().next_output_id();
        super::explain::propagate(inputs, id);
        let out = Tensor::with_id(id, data);
        let NodeSpec {
            op,
            rule,
            saved,
            params,
        } = spec(&out);
        let last = recorders.len() - 1;
        let mut saved = Some(saved);
        let mut params = Some(params);
        for (k, (position, input_nodes)) in recorders.into_iter().enumerate() {
            // The last tape takes the spec by value; earlier ones clone it (nested tapes).
            let (saved, params) = if k == last {
                (
                    saved.take().expect("taken once"),
                    params.take().expect("taken once"),
                )
            } else {
                (
                    saved.clone().expect("present"),
                    params.clone().expect("present"),
                )
            };
            let node = Node {
                op,
                rule: rule.clone(),
                inputs: input_nodes,
                saved,
                params,
            };
            stack[position].borrow_mut().push(node, id);
        }
        out
    })
}

fn tapes_tracking(stack: &[Rc<TapeCell>], inputs: &[TensorId]) -> Recorders {
    let mut recorders = Recorders::new();
    for (position, tape) in stack.iter().enumerate().rev() {
        let state = tape.borrow();
        if !state.is_recording() {
            continue;
        }
        let nodes: SmallVec<[NodeId; 2]> = inputs.iter().map(|&id| state.lookup(id)).collect();
        if nodes.iter().any(|&n| n != NO_NODE) {
            recorders.push((position, nodes));
        }
    }
    recorders
}

/// Tells the recording tapes that `var` was read as `value` (or assigned, or created, when
/// `value` is `None`): each tape that watches accessed variables starts watching it, and a
/// tape that watches it tracks this value as one of its reads.
pub(crate) fn variable_accessed(var: &AnyVariable, value: Option<&AnyTensor>) {
    STACK.with(|stack| {
        for tape in stack.borrow().iter() {
            let mut state = tape.borrow_mut();
            if !state.is_recording() {
                continue;
            }
            let index = match state.variable_index(var.id()) {
                Some(index) => index,
                None if state.watch_accessed_variables && var.trainable() => {
                    state.watch_variable(var)
                }
                None => continue,
            };
            if let Some(value) = value {
                track_variable_read(&mut state, index, value.id());
            }
        }
    });
}

/// Tracks one read of a watched variable as a leaf of it.
pub(crate) fn track_variable_read(state: &mut TapeState, index: usize, value: TensorId) {
    let node = state.track_leaf(value, "variable");
    let leaves = &mut state.variables[index].leaves;
    if !leaves.contains(&node) {
        leaves.push(node);
    }
}

/// Runs `f` with no tape on this thread recording (optimizer updates, `assign_add`).
pub(crate) fn without_any<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            // Scopes opened and closed inside `f` have balanced their own counts.
            RECORDING.with(|count| count.set(count.get() + self.0));
        }
    }
    let _restore = Restore(RECORDING.with(|count| count.replace(0)));
    f()
}
