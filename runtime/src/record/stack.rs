//! The thread-local stack of active tapes, and how an op gets onto them.
//!
//! An op is recorded on every active, non-paused tape that tracks one of its inputs
//! (TensorFlow's rule). With no tape active the whole cost is one thread-local read.

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::rc::Rc;

use smallvec::SmallVec;

use crate::base::dtype::{AnyTensor, DType, Float};
use crate::base::tensor::{Data, Tensor, TensorId};
use crate::record::forward::{self, Jvp, NumberJvp, Tangents};
use crate::record::node::{
    Backward, Inputs, KeptWords, NO_NODE, NodeId, ParamSlot, Params, Rule, ScalarNode,
};
use crate::record::numerics::check_forward;
use crate::record::state::{TapeState, push_in_place};
use crate::record::variable::{AnyVariable, VariableId};

pub(crate) type TapeCell = RefCell<TapeState>;

thread_local! {
    /// Active tapes, outermost first.
    static STACK: RefCell<TapeStack> = const { RefCell::new(TapeStack(Vec::new())) };
    /// Tapes below this position of `STACK` are suspended by `without_any`, also while a
    /// tape opened inside it records.
    static FLOOR: Cell<usize> = const { Cell::new(0) };
    /// The tape `STACK` holds above `FLOOR` when it holds exactly one there; null when it
    /// holds none, and [`SEVERAL`] when it holds more: what an op reads to find the tapes
    /// it records on (see [`tapes`]). Tapes below the floor are suspended, so they count
    /// as none: an op under a forward accumulator inside `without_any` (which keeps the
    /// recording count above 0) must not find the suspended tape here.
    ///
    /// Invariant: anything but null and `SEVERAL` only while `STACK` holds exactly one
    /// tape above `FLOOR`, and then that tape's `Rc::as_ptr`. [`TapeStack::set_sole`]
    /// (or its forms for `enter` and `ActiveGuard::drop`, [`TapeStack::set_sole_entered`]
    /// and [`TapeStack::set_sole_left`]) restores it after every change of `STACK` (`enter`
    /// and `ActiveGuard::drop`) and of `FLOOR` (`without_any`, entering and leaving), the
    /// only ones, and `TapeStack`'s destructor nulls it when the thread's `STACK` is
    /// destroyed. A `Cell` of a raw
    /// pointer has no destructor, so it stays readable during thread teardown.
    static SOLE: Cell<*const TapeCell> = const { Cell::new(std::ptr::null()) };
    /// `SOLE` when a 0-d elementwise op may be recorded on it as a compact record
    /// (`ScalarNode`), else null: the tape records (active, not paused), is not in anomaly
    /// mode, and no forward accumulator accumulates. One load tells an op what, read from
    /// `SOLE`, `ACCUMULATING` and the tape's flags, took five tests per op.
    ///
    /// Invariant: not null only while every one of those holds, and then equal to `SOLE`.
    /// Null is always sound (the general path decides then). [`refresh_compact`] restores
    /// it after each change that can break it: `SOLE` ([`TapeStack::set_sole`] and its
    /// forms, which set it themselves where they know the answer, and `TapeStack`'s
    /// destructor), a tape's pause count ([`pause`], `PauseGuard::drop`), the accumulators'
    /// count (`forward::adjust`, `forward::suspend_all`). A tape's `active`
    /// flag falls only once it has left `STACK` (`ActiveGuard::drop`), and its anomaly
    /// flag is set only while it is off the stack (`TapeState::new_cell`).
    static COMPACT: Cell<*const TapeCell> = const { Cell::new(std::ptr::null()) };
}

/// Restores `COMPACT`'s invariant (see there) from `SOLE`, the accumulators' count and the
/// sole tape's flags. A tape borrowed now (its caller is changing it) gives null: sound,
/// and the next change restores it.
pub(crate) fn refresh_compact() {
    let sole = SOLE.with(Cell::get);
    let mut compact = std::ptr::null();
    if sole.addr() > SEVERAL.addr() && !forward::accumulating() {
        // SAFETY: by `SOLE`'s invariant, a pointer other than the two markers is the one
        // live tape on `STACK`, alive while this reads it (see `tapes`).
        let tape = unsafe { &*sole };
        if let Ok(state) = tape.try_borrow()
            && state.is_recording()
            && !state.check_numerics
        {
            compact = sole;
        }
    }
    // (during thread teardown the cell may be gone: there is nothing to record on then)
    let _ = COMPACT.try_with(|cell| cell.set(compact));
}

/// The tape a 0-d elementwise op is recorded on as a compact record, if one is (see
/// `COMPACT`), borrowed for the caller's frame as [`tapes`] does.
#[inline(always)]
fn compact_tape(frame: &()) -> Option<&TapeCell> {
    let _ = frame;
    let compact = COMPACT.with(Cell::get);
    // SAFETY: by `COMPACT`'s invariant a non-null pointer equals `SOLE`, which is alive
    // for the caller's frame (see `tapes`, whose argument holds here word for word).
    (!compact.is_null()).then(|| unsafe { &*compact })
}

/// The active tapes of this thread, outermost first.
struct TapeStack(Vec<Rc<TapeCell>>);

impl TapeStack {
    /// Restores `SOLE`'s invariant after a change of the stack or of the floor.
    fn set_sole(&self) {
        let floor = FLOOR.with(Cell::get);
        let sole = match self.0.get(floor..).unwrap_or_default() {
            [] => {
                // No tape above the floor: `refresh_compact` would find a null `SOLE` and
                // set null.
                publish(std::ptr::null(), std::ptr::null());
                return;
            }
            [tape] => Rc::as_ptr(tape),
            _ => SEVERAL,
        };
        SOLE.with(|cell| cell.set(sole));
        refresh_compact();
    }

    /// [`set_sole`](Self::set_sole) after a scope's tape left the stack: inline, for a
    /// lone tape's scope leaving no tape above the floor (both pointers null, as
    /// `set_sole` sets them then).
    #[inline]
    fn set_sole_left(&self) {
        if self.0.len() <= FLOOR.with(Cell::get) {
            publish(std::ptr::null(), std::ptr::null());
            return;
        }
        self.set_sole();
    }

    /// [`set_sole`](Self::set_sole) after [`enter`] pushed `tape`, given `recordable`:
    /// whether the tape, now active, is neither paused nor in anomaly mode (its flags, read
    /// while `enter` held them). When `tape` is the one tape above the floor, that is
    /// `refresh_compact`'s test but for the accumulators' count, so the tape is not
    /// borrowed again.
    #[inline]
    fn set_sole_entered(&self, tape: &Rc<TapeCell>, recordable: bool) {
        let floor = FLOOR.with(Cell::get);
        if self.0.len() != floor + 1 {
            self.set_sole();
            return;
        }
        debug_assert!(self.0.last().is_some_and(|t| Rc::ptr_eq(t, tape)));
        let sole = Rc::as_ptr(tape);
        let compact = if recordable && !forward::accumulating() {
            sole
        } else {
            std::ptr::null()
        };
        publish(sole, compact);
    }
}

/// Sets `SOLE` and `COMPACT` where the caller knows both (`COMPACT` by `try_with`: it may
/// be gone during thread teardown).
#[inline(always)]
fn publish(sole: *const TapeCell, compact: *const TapeCell) {
    SOLE.with(|cell| cell.set(sole));
    let _ = COMPACT.try_with(|cell| cell.set(compact));
}

impl Drop for TapeStack {
    fn drop(&mut self) {
        // The tapes are released with the vector after this: `SOLE` must not name one.
        SOLE.with(|cell| cell.set(std::ptr::null()));
        let _ = COMPACT.try_with(|cell| cell.set(std::ptr::null()));
    }
}

impl std::ops::Deref for TapeStack {
    type Target = [Rc<TapeCell>];

    fn deref(&self) -> &[Rc<TapeCell>] {
        &self.0
    }
}

/// `SOLE` when the stack holds several tapes: an address no allocation has (that of a
/// zero-sized value, aligned like a `TapeCell`), so it is never a tape's.
const SEVERAL: *const TapeCell = std::ptr::dangling();

/// The tapes on this thread's stack.
enum Tapes<'frame> {
    None,
    /// The only one (the usual case).
    One(&'frame TapeCell),
    Several,
}

/// The tapes on this thread's stack, the one tape borrowed for the caller's frame: `frame`
/// is any local of the caller, whose lifetime bounds the reference.
///
/// Reading one thread-local pointer, where cloning the `Rc` out of `STACK` followed two
/// dependent loads with a read-modify-write of the count, and a second one to drop it: a
/// tenth of a scalar op's recording time (perf, docs/PERFORMANCE.md). (Not a closure
/// taking the tape: `#[track_caller]` does not pass through a closure, and an op's record
/// notes its caller's line.)
#[inline(always)]
fn tapes<'frame>(frame: &'frame ()) -> Tapes<'frame> {
    let _ = frame;
    let sole = SOLE.with(Cell::get);
    // (one comparison in the usual case: a tape's address is above both markers)
    if sole.addr() <= SEVERAL.addr() {
        return if sole.is_null() {
            Tapes::None
        } else {
            Tapes::Several
        };
    }
    // SAFETY: by `SOLE`'s invariant, any other pointer is `Rc::as_ptr` of the one tape on
    // `STACK` above the floor, so it was alive when read. It stays alive for the caller's frame: a tape is
    // on `STACK` only between `enter` and the drop of the `ActiveGuard` that holds an `Rc`
    // of it, and that guard lives in a frame of `GradientTape::record` (the only caller of
    // `enter`), an ancestor of every frame that runs while the tape is on the stack, so it
    // outlives the caller's frame (also when unwinding). Thread teardown nulls the pointer
    // before `STACK` releases its `Rc`s. The reference is shared, like every other
    // reference to a tape; the `RefCell` inside arbitrates mutation.
    Tapes::One(unsafe { &*sole })
}

/// The active tapes that may record now: those above the floor, with their positions.
fn live_tapes(stack: &[Rc<TapeCell>]) -> impl DoubleEndedIterator<Item = (usize, &Rc<TapeCell>)> {
    stack.iter().enumerate().skip(FLOOR.with(Cell::get))
}

/// Whether `tape` is on the stack above the floor (its pauses count in `RECORDING`).
fn is_live(tape: &Rc<TapeCell>) -> bool {
    STACK.with(|stack| live_tapes(&stack.borrow()).any(|(_, t)| Rc::ptr_eq(t, tape)))
}

pub(crate) use crate::base::context::any_recording;
use crate::base::context::{adjust_recording, replace_recording};

/// Pushes `tape` on this thread's stack for the life of the returned guard.
///
/// # Panics
/// If the tape is already recording (TensorFlow raises in that case too).
#[track_caller]
pub(crate) fn enter(tape: &Rc<TapeCell>) -> ActiveGuard<'_> {
    let recordable = {
        let mut state = tape.borrow_mut();
        assert!(
            !state.active,
            "GradientTape::record: this tape is already recording; a tape cannot be entered \
             twice at once (use a second tape for nesting)"
        );
        if state.consumed {
            // A non-persistent tape whose gradient was taken starts a new record, as
            // TensorFlow's does when entered again.
            state.clear();
            state.consumed = false;
        }
        state.active = true;
        if state.paused == 0 {
            adjust_recording(1);
        }
        state.paused == 0 && !state.check_numerics
    };
    STACK.with(|stack| {
        let mut stack = stack.borrow_mut();
        if stack.is_empty() {
            crate::base::cuts::new_epoch();
        }
        stack.0.push(Rc::clone(tape));
        stack.set_sole_entered(tape, recordable);
    });
    ActiveGuard { tape }
}

/// Pops its tape off the stack when dropped, also on unwinding. It borrows the tape's
/// `Rc` from the `GradientTape` that `record` runs on (the stack holds a count of its own),
/// so a scope takes no second count.
pub(crate) struct ActiveGuard<'a> {
    tape: &'a Rc<TapeCell>,
}

impl Drop for ActiveGuard<'_> {
    fn drop(&mut self) {
        STACK.with(|stack| {
            let mut stack = stack.borrow_mut();
            // Scopes nest, so the tape is usually the last one: popped, with no search.
            if stack.last().is_some_and(|t| Rc::ptr_eq(t, self.tape)) {
                stack.0.pop();
            } else if let Some(pos) = stack.iter().rposition(|t| Rc::ptr_eq(t, self.tape)) {
                stack.0.remove(pos);
            }
            stack.set_sole_left();
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
    let live = is_live(tape);
    let mut state = tape.borrow_mut();
    if state.paused == 0 && state.active && live {
        adjust_recording(-1);
    }
    state.paused += 1;
    drop(state);
    refresh_compact();
    PauseGuard {
        tape: Rc::clone(tape),
    }
}

/// How many tapes are on this thread's stack (an accumulator notes it when entered: the
/// tapes above are inside it).
pub(crate) fn depth() -> usize {
    STACK.with(|stack| stack.borrow().len())
}

/// Pauses the tapes from stack position `position` up, until the guards drop.
pub(crate) fn pause_from(position: usize) -> SmallVec<[PauseGuard; 2]> {
    let inside: SmallVec<[Rc<TapeCell>; 2]> = STACK.with(|stack| {
        stack
            .borrow()
            .iter()
            .skip(position)
            .map(Rc::clone)
            .collect()
    });
    inside.iter().map(pause).collect()
}

/// Resumes its tape when dropped.
pub(crate) struct PauseGuard {
    tape: Rc<TapeCell>,
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        // Scopes nest, so the floor is where it was when the pause began.
        let live = is_live(&self.tape);
        let mut state = self.tape.borrow_mut();
        state.paused -= 1;
        if state.paused == 0 && state.active && live {
            adjust_recording(1);
        }
        drop(state);
        refresh_compact();
    }
}

/// What an op records besides its inputs: built only when some tape records the op.
pub(crate) struct NodeSpec {
    pub op: &'static str,
    pub rule: Rule,
    pub saved: SmallVec<[AnyTensor; 2]>,
    pub params: Params,
}

/// An op's record without its saved values, which travel separately (see [`SaveValues`]).
/// Handed to a tape as a closure that builds it, called where the node is written (see
/// `TapeState::push`).
pub(crate) struct OpHead {
    pub op: &'static str,
    pub rule: Rule,
    pub params: ParamSlot,
}

/// How an op's saved values reach a tape's arena.
pub(crate) trait SaveValues<T: Float> {
    /// Appends the values to `arena`; `out` is the op's output (a rule may keep it).
    fn save_into(self, out: &Tensor<T>, arena: &mut Vec<AnyTensor>);
}

impl<T: Float> SaveValues<T> for SmallVec<[AnyTensor; 2]> {
    #[inline]
    fn save_into(self, _: &Tensor<T>, arena: &mut Vec<AnyTensor>) {
        for value in self {
            push_in_place!(arena, value);
        }
    }
}

/// What an elementwise op keeps: some of its inputs, then its output if `output`. Cloned
/// straight from the tensors into the arena, so the values are written once.
pub(crate) struct Keep<'a, T: Float, const N: usize> {
    pub inputs: [&'a Tensor<T>; N],
    pub output: bool,
}

// (by hand: a derive would ask `T: Copy` of the element type's tensors)
impl<T: Float, const N: usize> Clone for Keep<'_, T, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Float, const N: usize> Copy for Keep<'_, T, N> {}

impl<T: Float, const N: usize> SaveValues<T> for Keep<'_, T, N> {
    #[inline(always)]
    fn save_into(self, out: &Tensor<T>, arena: &mut Vec<AnyTensor>) {
        for input in self.inputs {
            push_in_place!(arena, T::into_any(input.clone()));
        }
        if self.output {
            push_in_place!(arena, T::into_any(out.clone()));
        }
    }
}

/// Finishes an op: wraps its forward value `data` and records it on every recording tape
/// that tracks one of `inputs`. `spec` gets the output tensor (rules may save it) and is
/// called only if the op is recorded somewhere.
///
/// `#[track_caller]`, as is every function from an op's public method down to here: a tape
/// in anomaly mode notes the user's line that recorded the op (nothing reads it otherwise).
///
/// `jvp` is the op's JVP rule, called only if a forward accumulator has a tangent for one
/// of `inputs` (see [`forward`]).
#[inline]
#[track_caller]
pub(crate) fn record<T: Float>(
    data: Data<T>,
    inputs: &[TensorId],
    spec: impl FnOnce(&Tensor<T>) -> NodeSpec,
    jvp: &Jvp<'_, T>,
) -> Tensor<T> {
    if !any_recording() {
        return Tensor::from_data(data);
    }
    let spec = |out: &Tensor<T>| {
        let NodeSpec {
            op,
            rule,
            saved,
            params,
        } = spec(out);
        let params = ParamSlot::from(params);
        (move || OpHead { op, rule, params }, saved)
    };
    record_on_stack(data, inputs, spec, jvp, None::<NoNumberJvp<T>>)
}

/// The number form of a JVP rule an op does not have (see [`record`]).
type NoNumberJvp<T> = fn(&Tensor<T>, [Option<T>; 2]) -> Option<Option<T>>;

/// An op's name behind a `'static` reference: one word, where the name itself is two,
/// so that a compact record ([`ScalarNode`]) has room for its parameter. A string
/// literal's reference (`&"add"`) is promoted to a static.
pub(crate) type OpName = &'static &'static str;

/// What an elementwise op records besides its inputs and saved values: its name, its
/// static rule, and `params` to build its parameters, called only if a general node is
/// written (an additive op compares its operands' shapes there).
pub(crate) struct ElementwiseHead<P> {
    pub op: OpName,
    pub rule: &'static dyn Backward,
    pub params: P,
    /// What `params` gives when the op's value is 0-d, known without calling it: the
    /// op's real parameter, or `None` for none (a compact record keeps nothing else).
    /// Calling `params` there cost an additive op a quarter of its compact recording
    /// (comparing two empty shapes, and dropping the `ParamSlot` out of line).
    pub scalar_param: Option<f64>,
}

/// [`record`] for an op whose rule keeps only some of its inputs and output (the
/// elementwise ops): those are written into the tape's arena directly. `numbers` is its
/// JVP rule on plain numbers (the same rule as `jvp`, see [`NumberJvp`]), which a lone
/// forward accumulator runs on 0-d values without the general path's bookkeeping, and
/// which gives a 0-d op's partial derivatives (see [`record_scalar`]).
#[inline(always)]
#[track_caller]
pub(crate) fn record_keeping<T: Float, const N: usize>(
    data: Data<T>,
    inputs: &[TensorId],
    keep: Keep<'_, T, N>,
    head: ElementwiseHead<impl FnOnce() -> ParamSlot>,
    jvp: impl Fn(&Tangents<'_>, &Tensor<T>) -> Option<Tensor<T>>,
    numbers: impl NumberJvp<T> + Copy,
) -> Tensor<T> {
    if !any_recording() {
        return Tensor::from_data(data);
    }
    let ElementwiseHead {
        op,
        rule,
        params,
        scalar_param,
    } = head;
    let frame = ();
    // (`jvp` comes by value and is referenced only in functions of its own: taken by
    // reference from the op, its captures were written to the op's frame before every
    // compact record, which never reads them)
    let mut params = params;
    // 0-d values on one tape, the bulk of scalar code: a compact record (see
    // `ScalarNode`). A forward accumulator takes the general path, which gives it
    // tangents.
    if let Some(tape) = compact_tape(&frame)
        && let Data::Scalar(value) = data
    {
        let head = ElementwiseHead {
            op,
            rule,
            params,
            scalar_param,
        };
        match record_scalar(tape, value.get(), inputs, keep, head, numbers) {
            Ok(out) => return out,
            Err(unused) => params = unused,
        }
    } else if let Tapes::None = tapes(&frame) {
        // Only forward accumulators are active: no node, the tangent alone (inline, as
        // the compact record is: a lone accumulator's 0-d path).
        let out = output(data, inputs, None);
        // (`push_tangents_of`, with `jvp` moved to its own frame where it is needed)
        if forward::accumulating() && !forward::push_number_tangent(inputs, &out, numbers) {
            push_tangents_by_rule(inputs, &out, jvp);
        }
        return out;
    }
    record_keeping_general(data, inputs, keep, (op, rule, params), jvp, numbers)
}

/// `forward::push_tangents` by an op's JVP rule `jvp`, taken by value: out of line, so
/// that the op's frame never takes its rule's address (see [`record_keeping`]).
#[inline(never)]
fn push_tangents_by_rule<T: Float>(
    inputs: &[TensorId],
    out: &Tensor<T>,
    jvp: impl Fn(&Tangents<'_>, &Tensor<T>) -> Option<Tensor<T>>,
) {
    forward::push_tangents(inputs, out, &jvp);
}

/// [`record_keeping`]'s general node: several tapes, anomaly mode, arrays, a forward
/// accumulator beside a tape. Out of line, so that what an op inlines into its caller is
/// the compact record and the checks that lead to it: an op's whole recording inlined
/// made it too large to inline, and each 0-d op paid a call with a frame of its own
/// (saving six registers, spilling its closures' captures) on top of recording.
#[inline(never)]
#[track_caller]
fn record_keeping_general<T: Float, const N: usize>(
    data: Data<T>,
    inputs: &[TensorId],
    keep: Keep<'_, T, N>,
    (op, rule, params): (OpName, &'static dyn Backward, impl FnOnce() -> ParamSlot),
    jvp: impl Fn(&Tangents<'_>, &Tensor<T>) -> Option<Tensor<T>>,
    numbers: impl NumberJvp<T> + Copy,
) -> Tensor<T> {
    let head = move || OpHead {
        op,
        rule: Rule::Static(rule),
        params: params(),
    };
    record_on_stack(data, inputs, |_| (head, keep), &jvp, Some(numbers))
}

/// Records a 0-d elementwise op `op` with value `value` and rule `rule` on `tape` as a
/// [`ScalarNode`], its partial derivatives evaluated by `numbers` (its JVP rule on
/// numbers: an elementwise op's Jacobian is diagonal, so its JVP and VJP rules are the
/// same function, and at a unit tangent of one input they give that input's partial
/// derivative). Each input's is evaluated alone, which gives what the rule gives with both
/// inputs needed because a binary rule computes each input's cotangent by a function of
/// its own (`nx.then(..)`, `ny.then(..)`: the other's need only gates it).
///
/// `Err(params)` when the op does not fit that form (the tape is in anomaly mode, an
/// input the rule keeps is an array, past the encodable nodes): nothing is recorded then,
/// and the caller takes the general path.
#[inline(always)]
fn record_scalar<T: Float, const N: usize, P: FnOnce() -> ParamSlot>(
    tape: &TapeCell,
    value: T,
    inputs: &[TensorId],
    keep: Keep<'_, T, N>,
    head: ElementwiseHead<P>,
    numbers: impl NumberJvp<T> + Copy,
) -> Result<Tensor<T>, P> {
    let ElementwiseHead {
        op,
        rule,
        params,
        scalar_param: param,
    } = head;
    let mut state = tape.borrow_mut();
    // (what `COMPACT` names is such a tape)
    debug_assert!(state.is_recording() && !state.check_numerics && !forward::accumulating());
    let (first, second) = match *inputs {
        [x] => (state.lookup(x), NO_NODE),
        [x, y] => (state.lookup(x), state.lookup(y)),
        _ => return Err(params),
    };
    if first == NO_NODE && second == NO_NODE {
        // No input tracked here: a constant, as the general path finds too.
        return Ok(output(Data::scalar(value), inputs, None));
    }
    let Some(id) = state.encoded_id(state.nodes.len()) else {
        return Err(params);
    };
    let out = Tensor::with_id(id, Data::scalar(value));
    // The words the record keeps for its general rule (see `ScalarNode`): the values the
    // rule keeps, in its order (the kept inputs, then the output), each as its id and
    // bits. Constant in number for each op, once inlined.
    let mut words: KeptWords = [0; 4];
    let mut len = 0;
    let mut saved_len = 0;
    for input in keep.inputs.into_iter().chain(keep.output.then_some(&out)) {
        let (Some(pair), Some(v)) = (words.get_mut(len..len + 2), input.as_inline_scalar()) else {
            return Err(params);
        };
        pair.copy_from_slice(&[input.id().0, v.to_f64().to_bits()]);
        len += 2;
        saved_len += 1;
    }
    // ∂ out / ∂ input k: the JVP at a unit tangent of input k alone (0 for an untracked
    // input, whose cotangent no sweep reads)
    let partial = |node: NodeId, tangents: [Option<T>; 2]| -> Option<f64> {
        if node == NO_NODE {
            return Some(0.0);
        }
        Some(numbers(&out, tangents)?.map_or(0.0, DType::to_f64))
    };
    let (Some(first_partial), Some(second_partial)) = (
        partial(first, [Some(T::ONE), None]),
        partial(second, [None, Some(T::ONE)]),
    ) else {
        return Err(params);
    };
    debug_assert!(
        match (params(), param) {
            (ParamSlot::None, None) => true,
            (ParamSlot::Real(p), Some(q)) => p.to_bits() == q.to_bits(),
            _ => false,
        },
        "{}: a 0-d op's `scalar_param` is what its `params` give",
        *op
    );
    let node = ScalarNode {
        op,
        rule,
        inputs: [first, second],
        partials: [first_partial, second_partial],
        param: param.unwrap_or(0.0),
        kept: 0,
        binary: inputs.len() == 2,
        saved_len,
        has_param: param.is_some(),
        single: T::SINGLE,
    };
    state.push_scalar(node, &words[..len]);
    drop(state);
    crate::base::cuts::propagate(inputs, id);
    Ok(out)
}

/// The tapes (by stack position) that record an op, with the op's inputs' nodes there.
type Recorders = SmallVec<[(usize, Inputs); 2]>;

#[inline(always)]
#[track_caller]
fn record_on_stack<T: Float, H: FnOnce() -> OpHead, S: SaveValues<T>>(
    data: Data<T>,
    inputs: &[TensorId],
    spec: impl FnOnce(&Tensor<T>) -> (H, S),
    jvp: &Jvp<'_, T>,
    numbers: Option<impl NumberJvp<T>>,
) -> Tensor<T> {
    // The op is recorded outside the thread-local's closure: a tensor returned through
    // `LocalKey::with` goes through memory in pieces that a wider load reads back, a
    // store-forwarding stall (docs/PERFORMANCE.md, "Store forwarding").
    let frame = ();
    let out = match tapes(&frame) {
        Tapes::One(tape) => record_on_one(tape, data, inputs, spec),
        Tapes::Several => STACK.with(|stack| record_on_many(&stack.borrow(), data, inputs, spec)),
        // only forward accumulators are active: nothing to record here
        Tapes::None => output(data, inputs, None),
    };
    // Recorded on the tapes first: a tape outside an accumulator records its tangent work
    // from this op's node on.
    push_tangents_of(inputs, &out, jvp, numbers);
    out
}

/// Gives the op's output `out` its tangent in every accumulating forward accumulator
/// (nothing when none is), by `numbers` on plain numbers where it applies, else by `jvp`.
#[inline(always)]
fn push_tangents_of<T: Float>(
    inputs: &[TensorId],
    out: &Tensor<T>,
    jvp: &Jvp<'_, T>,
    numbers: Option<impl NumberJvp<T>>,
) {
    if forward::accumulating() {
        // (a tape on the stack that records counts as a recorder: then the general path)
        let by_numbers =
            numbers.is_some_and(|numbers| forward::push_number_tangent(inputs, out, numbers));
        if !by_numbers {
            forward::push_tangents(inputs, out, jvp);
        }
    }
}

/// This tape's node of each input, or `None` if it tracks none of them.
#[inline(always)]
fn input_nodes(state: &TapeState, inputs: &[TensorId]) -> Option<Inputs> {
    // Unary and binary ops, nearly all of them, are checked on the fresh ids, before any
    // list exists (see `Inputs`).
    match *inputs {
        [x] => {
            let x = state.lookup(x);
            (x != NO_NODE).then(|| Inputs::one(x))
        }
        [x, y] => {
            let (x, y) = (state.lookup(x), state.lookup(y));
            (x != NO_NODE || y != NO_NODE).then(|| Inputs::two(x, y))
        }
        _ => {
            let nodes: Vec<NodeId> = inputs.iter().map(|&id| state.lookup(id)).collect();
            nodes
                .iter()
                .any(|&n| n != NO_NODE)
                .then(|| Inputs::from_list(nodes))
        }
    }
}

/// The common case, one tape: no bookkeeping of which tapes record.
#[inline(always)]
#[track_caller]
fn record_on_one<T: Float, H: FnOnce() -> OpHead, S: SaveValues<T>>(
    tape: &TapeCell,
    data: Data<T>,
    inputs: &[TensorId],
    spec: impl FnOnce(&Tensor<T>) -> (H, S),
) -> Tensor<T> {
    let mut state = tape.borrow_mut();
    let nodes = if state.is_recording() {
        input_nodes(&state, inputs)
    } else {
        None
    };
    let Some(nodes) = nodes else {
        return output(data, inputs, None);
    };
    let id = state.next_output_id();
    let out = output(data, inputs, Some(id));
    // `spec` only clones values; it records nothing, so holding the borrow is fine.
    let (head, saved) = spec(&out);
    let node = state.push(head, nodes, |arena| saved.save_into(&out, arena), id);
    if state.check_numerics {
        check_forward(&mut state, node, &out, Location::caller());
    }
    out
}

/// Nested tapes: the op goes on every recording tape that tracks an input; the innermost
/// one names the output.
#[track_caller]
fn record_on_many<T: Float, H: FnOnce() -> OpHead, S: SaveValues<T>>(
    stack: &[Rc<TapeCell>],
    data: Data<T>,
    inputs: &[TensorId],
    spec: impl FnOnce(&Tensor<T>) -> (H, S),
) -> Tensor<T> {
    let recorders = tapes_tracking(stack, inputs);
    let Some((innermost, _)) = recorders.first() else {
        return output(data, inputs, None);
    };
    let id = stack[*innermost].borrow().next_output_id();
    let out = output(data, inputs, Some(id));
    let (head, saved) = spec(&out);
    let OpHead { op, rule, params } = head();
    // Each tape keeps its own copies (cheap: clones share storage).
    let mut values = Vec::new();
    saved.save_into(&out, &mut values);
    for (position, nodes) in recorders {
        let head = || OpHead {
            op,
            rule: rule.clone(),
            params: params.clone(),
        };
        let save = |arena: &mut Vec<AnyTensor>| arena.extend_from_slice(&values);
        let mut state = stack[position].borrow_mut();
        let node = state.push(head, nodes, save, id);
        if state.check_numerics {
            check_forward(&mut state, node, &out, Location::caller());
        }
    }
    out
}

/// An op's output: named `id` by the innermost tape that records the op, or a fresh
/// identity (a constant) when none does. Either way `explain` learns whether the value
/// descends from a cut path.
#[inline(always)]
fn output<T: Float>(data: Data<T>, inputs: &[TensorId], id: Option<TensorId>) -> Tensor<T> {
    let out = match id {
        Some(id) => Tensor::with_id(id, data),
        None => Tensor::from_data(data),
    };
    crate::base::cuts::propagate(inputs, out.id());
    out
}

fn tapes_tracking(stack: &[Rc<TapeCell>], inputs: &[TensorId]) -> Recorders {
    let mut recorders = Recorders::new();
    for (position, tape) in live_tapes(stack).rev() {
        let state = tape.borrow();
        if !state.is_recording() {
            continue;
        }
        if let Some(nodes) = input_nodes(&state, inputs) {
            recorders.push((position, nodes));
        }
    }
    recorders
}

/// Tells the recording tapes that a variable was created or assigned: each tape that
/// watches accessed variables starts watching it (if trainable).
///
/// The variable comes as its id and trainable flag, with `erase` to build the stored handle
/// only when a tape starts watching it.
pub(crate) fn variable_accessed(id: VariableId, trainable: bool, erase: impl Fn() -> AnyVariable) {
    STACK.with(|stack| {
        for (_, tape) in live_tapes(&stack.borrow()) {
            let mut state = tape.borrow_mut();
            if state.is_recording() {
                watched_index(&mut state, id, trainable, &erase);
            }
        }
    });
}

/// Tells the recording tapes that a variable was read, and returns the id the new value
/// gets: named by the innermost tape that watches the variable (so that tape finds it with
/// no hashing), or `None` if no tape does. Each tape that watches accessed variables starts
/// watching it; each tape that watches it tracks the read as one of its leaves.
///
/// The usual read, of an already watched variable, touches no reference count: `erase`
/// builds the stored handle only when a tape starts watching.
#[inline]
pub(crate) fn variable_read(
    id: VariableId,
    trainable: bool,
    erase: impl Fn() -> AnyVariable,
) -> Option<TensorId> {
    // One tape (the usual case, and then it is above the floor: a caller checked that some
    // tape records) needs no walk down the stack; inlined into the read, with the walk
    // out of line.
    let frame = ();
    if let Tapes::One(tape) = tapes(&frame) {
        let mut state = tape.borrow_mut();
        if !state.is_recording() {
            return None;
        }
        let index = watched_index(&mut state, id, trainable, &erase)?;
        let value = state.next_output_id();
        track_new_read(&mut state, index, value);
        return Some(value);
    }
    variable_read_on_many(id, trainable, &erase)
}

/// [`variable_read`] with several tapes on the stack (or none above the floor).
#[inline(never)]
fn variable_read_on_many(
    id: VariableId,
    trainable: bool,
    erase: &dyn Fn() -> AnyVariable,
) -> Option<TensorId> {
    STACK.with(|stack| {
        let mut value = None;
        for (_, tape) in live_tapes(&stack.borrow()).rev() {
            let mut state = tape.borrow_mut();
            if !state.is_recording() {
                continue;
            }
            if let Some(index) = watched_index(&mut state, id, trainable, &erase) {
                let value = *value.get_or_insert_with(|| state.next_output_id());
                track_new_read(&mut state, index, value);
            }
        }
        value
    })
}

/// The watched-variable entry of `id` on this tape, starting to watch it if the tape
/// watches accessed variables and it is trainable.
fn watched_index(
    state: &mut TapeState,
    id: VariableId,
    trainable: bool,
    erase: &impl Fn() -> AnyVariable,
) -> Option<usize> {
    // (one search: where a missing variable goes is where it is watched)
    match state.variable_position(id) {
        Ok(index) => Some(index),
        Err(index) if state.watch_accessed_variables && trainable => {
            Some(state.watch_variable_at(index, erase()))
        }
        Err(_) => None,
    }
}

/// Undoes the automatic watch of a variable that was created (or assigned) in a recording
/// scope and then marked non-trainable before any read. A variable with reads is kept: an
/// explicit `watch` always tracks a read, and reads made while it was trainable count.
pub(crate) fn variable_became_untrainable(var: &AnyVariable) {
    STACK.with(|stack| {
        for (_, tape) in live_tapes(&stack.borrow()) {
            let mut state = tape.borrow_mut();
            if !state.is_recording() || !state.watch_accessed_variables {
                continue;
            }
            if let Some(index) = state.variable_index(var.id())
                && state.variables[index].leaves.is_empty()
            {
                state.variables.remove(index);
            }
        }
    });
}

/// Tracks one read of a watched variable as a leaf of it.
#[inline]
pub(crate) fn track_variable_read(state: &mut TapeState, index: usize, value: TensorId) {
    // A value already tracked is a read already counted (or an intermediate): only a new
    // leaf is a new read. Checking this way keeps many reads of one variable O(1) each.
    if state.lookup(value) == NO_NODE {
        track_new_read(state, index, value);
    }
}

/// [`track_variable_read`] of a value no tape tracks: a read's new id (a tape's
/// `next_output_id`, which names the node about to be pushed, or a fresh id), so no lookup.
#[inline(always)]
fn track_new_read(state: &mut TapeState, index: usize, value: TensorId) {
    debug_assert_eq!(state.lookup(value), NO_NODE, "a read's id is new");
    let node = state.push_leaf(value, "variable");
    state.variables[index].leaves.push(node);
    if state.check_numerics {
        let value = state.variables[index].var.peek();
        state.note_site(node, None, value.shape());
    }
}

/// Whether some recording tape tracks one of `inputs` (so an op on them would be recorded).
pub(crate) fn any_tape_tracks(inputs: &[TensorId]) -> bool {
    any_recording() && STACK.with(|stack| !tapes_tracking(&stack.borrow(), inputs).is_empty())
}

/// Runs `f` with every tape and forward accumulator now active suspended (optimizer updates, `assign_add`, the
/// forward pass of `#[differentiable]`): tapes entered inside `f` record as usual, the
/// suspended ones see nothing, not even through those.
pub(crate) fn without_any<R>(f: impl FnOnce() -> R) -> R {
    struct Restore {
        recording: u32,
        floor: usize,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            // Scopes opened inside `f` have closed (also when unwinding) and balanced their
            // own counts, so the saved values are current again.
            replace_recording(self.recording);
            FLOOR.with(|floor| floor.set(self.floor));
            // (during thread teardown the stack may be gone, and `SOLE` nulled with it)
            let _ = STACK.try_with(|stack| stack.borrow().set_sole());
        }
    }
    let _restore = Restore {
        recording: replace_recording(0),
        floor: FLOOR.with(|floor| floor.replace(STACK.with(|stack| stack.borrow().len()))),
    };
    STACK.with(|stack| stack.borrow().set_sole());
    // Forward accumulators are suspended alike (their count is part of the recording count
    // just replaced).
    let _accumulators = forward::suspend_all();
    f()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ForwardAccumulator, GradientTape, Tensor};

    /// Whether `COMPACT` names a tape now.
    fn compact() -> bool {
        !COMPACT.with(Cell::get).is_null()
    }

    /// `COMPACT` follows every change that decides whether a 0-d op may go onto the sole
    /// tape as a compact record: a tape entered and left, paused and resumed, a second
    /// tape inside it, anomaly mode, a forward accumulator, `without_recording`. A stale
    /// pointer would record an op on a paused tape (a gradient where none is) or skip an
    /// accumulator's tangent, with no error.
    #[test]
    fn compact_tape_follows_the_stack() {
        let x = Tensor::scalar(0.5_f64);
        assert!(!compact());
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let (y, paused) = tape.record(|| {
            assert!(compact(), "a lone recording tape");
            let paused = tape.stop_recording(|| {
                assert!(!compact(), "a paused tape");
                x.sin()
            });
            assert!(compact(), "resumed");
            let inner = GradientTape::new();
            inner.record(|| assert!(!compact(), "two tapes"));
            assert!(compact(), "the inner tape left");
            crate::without_recording(|| assert!(!compact(), "suspended"));
            assert!(compact(), "no longer suspended");
            let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0)).expect("0-d tangent");
            let z = acc.record(|| {
                assert!(!compact(), "an accumulator beside the tape");
                x.sin() * 3.0
            });
            assert_eq!(
                acc.jvp(&z).expect("connected").to_scalar(),
                3.0 * 0.5_f64.cos()
            );
            assert!(compact(), "the accumulator left");
            (x.sin() * 2.0 + &x, paused)
        });
        assert!(!compact(), "the tape left");
        let dy = tape.gradient(&y, &x).expect("one gradient");
        assert_eq!(
            dy.expect("connected").to_scalar(),
            2.0 * 0.5_f64.cos() + 1.0
        );
        let dp = tape.gradient(&paused, &x).expect("one gradient");
        assert!(
            dp.is_none(),
            "an op run while the tape was paused is not recorded"
        );

        let checking = GradientTape::builder().check_numerics(true).build();
        checking.watch(&x);
        checking.record(|| assert!(!compact(), "anomaly mode"));
    }

    /// `enter` and `ActiveGuard::drop` set `SOLE` and `COMPACT` themselves for a lone
    /// tape (`set_sole_entered`, `set_sole_left`), from the flags `enter` holds rather
    /// than by `refresh_compact`: each case where those flags or the stack around the tape
    /// say no, and the tape alone above `without_recording`'s floor, where they say yes.
    #[test]
    fn compact_tape_set_on_entry_and_exit() {
        let x = Tensor::scalar(0.5_f64);
        // paused before its scope is entered
        let paused = GradientTape::persistent();
        paused.watch(&x);
        let y = paused.stop_recording(|| {
            paused.record(|| {
                assert!(!compact(), "a tape entered while paused");
                x.sin()
            })
        });
        assert!(!compact(), "the paused tape left");
        assert!(paused.gradient(&y, &x).expect("one gradient").is_none());
        // entered inside a forward accumulator
        let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0)).expect("0-d tangent");
        acc.record(|| {
            let tape = GradientTape::new();
            tape.record(|| assert!(!compact(), "a tape entered inside an accumulator"));
            assert!(!compact(), "the tape inside the accumulator left");
        });
        // alone above the floor of `without_recording`, inside another tape
        let outer = GradientTape::new();
        outer.record(|| {
            crate::without_recording(|| {
                let inner = GradientTape::persistent();
                inner.watch(&x);
                let y = inner.record(|| {
                    assert!(compact(), "the one tape above the floor");
                    x.sin() * 2.0
                });
                assert!(!compact(), "no tape above the floor");
                assert_eq!(
                    inner
                        .gradient(&y, &x)
                        .expect("one gradient")
                        .map(|g| g.to_scalar()),
                    Some(0.5_f64.cos() * 2.0)
                );
            });
            assert!(compact(), "the outer tape resumed");
        });
        assert!(!compact());
    }
}
