//! The reverse sweep: from seeded targets back to the sources, one rule call per node that
//! lies on a path between them.

use std::rc::Rc;

use smallvec::SmallVec;

use super::structure::SourceKey;
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use crate::record::node::{
    InputGrads, NO_NODE, Node, NodeId, Record, Records, Rule, ScalarNode, clear_nodes,
};
use crate::record::numerics::{AnomalyPhase, Found, NonFiniteValue};
use crate::record::stack::TapeCell;
use crate::record::state::TapeState;

/// A sweep's inputs, already validated.
pub(crate) struct Sweep<'a> {
    pub targets: &'a [AnyTensor],
    /// One cotangent per target to start from; `None` for ones of each target's shape.
    pub seeds: Option<&'a [AnyTensor]>,
    pub sources: &'a [SourceKey],
    /// Leading batch axes every cotangent carries (0 for `gradient`; 1 for a jacobian's
    /// vectorised sweep, see `jacobian::batch_rank`).
    pub batch_rank: usize,
    /// Keep the records even on a non-persistent tape (a jacobian sweeping in chunks).
    pub retain: bool,
}

/// Where the sources sit on the tape: `(source, node)` for each node whose gradient adds
/// to that source's (a variable read several times has several). One flat list, because
/// building a list per source showed up in the per-gradient cost of small graphs. (Kept
/// in the scratch as a `Vec`, reused, it cost more: the moves in and out of the pool.)
type SourceNodes = SmallVec<[(u32, NodeId); 8]>;

/// Each source's gradient (`None` if unconnected), in the sources' order; inline for the
/// usual few sources.
pub(crate) type Gradients = SmallVec<[Option<AnyTensor>; 4]>;

/// Runs the sweep and appends each source's gradient (`None` if unconnected) to `out`
/// (written in place: a returned list of this size was copied at each level on its way up).
/// On a tape in anomaly mode, returns the first non-finite cotangent a rule computed (or,
/// when the sweep records onto the tape itself, a non-finite value an op of it recorded).
pub(crate) fn run(tape: &Rc<TapeCell>, sweep: Sweep<'_>, out: &mut Gradients) -> Option<Found> {
    // A handful of 0-d nodes (a scalar loss of a few scalars): the same numbers without
    // this sweep's fixed cost, where that path applies (it says when, and reads nothing
    // but the records when it does not).
    if sweep.seeds.is_none()
        && sweep.batch_rank == 0
        && super::few::sweep(tape, sweep.targets, sweep.sources, out)
    {
        return None;
    }
    // Set for every sweep, also to 0: a rule that takes a gradient of its own (a fused
    // function's sub-tape) inside a batched sweep must not see the outer batch axes.
    let _batch = crate::base::context::enter_batch(sweep.batch_rank);
    // Rules run no tapes of their own that outlive them, so this holds for the whole sweep.
    let unrecorded = !crate::record::stack::any_recording();
    // Filled by plain pushes: SmallVec's iterator `extend` and `collect` cost more than
    // the few nodes a small gradient has.
    let mut target_nodes: SmallVec<[NodeId; 2]> = SmallVec::new();
    let mut source_nodes = SourceNodes::new();
    let sweeping;
    let check;
    // One past the last target's node: the sweep's extent.
    let mut end = 0;
    {
        let mut state = tape.borrow_mut();
        sweeping = SweepGuard::enter(tape, &mut state);
        check = state.check_numerics;
        for target in sweep.targets {
            let node = state.lookup(target.id());
            if node != NO_NODE {
                end = end.max(node as usize + 1);
            }
            target_nodes.push(node);
        }
        for (k, source) in (0..).zip(sweep.sources) {
            push_nodes_of_source(&state, k, source, &mut source_nodes);
        }
    }
    let mut scratch = Scratch::take();
    // (empty, as given back: filled in one reserved pass; `resize` cloned `Zero` through
    // an out-of-line call per slot)
    scratch
        .grads
        .extend(std::iter::repeat_with(|| Cot::Zero).take(end));
    // Seeds of targets that are sources themselves and not on the tape, by source.
    let mut direct: SmallVec<[(usize, Cot); 1]> = SmallVec::new();
    for (k, (target, &node)) in sweep.targets.iter().zip(&target_nodes).enumerate() {
        let seed = match sweep.seeds {
            Some(seeds) => Cot::of(seeds[k].clone(), unrecorded),
            None => Cot::ones_like(target, unrecorded),
        };
        if node != NO_NODE {
            scratch.tensors |= matches!(seed, Cot::Tensor(_));
            // by reference: see `add_from`
            scratch.grads[node as usize].add_from(&seed);
            continue;
        }
        // Not on the tape: only `gradient(x, x)` itself connects (TensorFlow gives ones).
        for (j, source) in sweep.sources.iter().enumerate() {
            if matches!(source, SourceKey::Tensor(s) if s.id() == target.id()) {
                direct.push((j, seed.clone()));
            }
        }
    }
    let mut finding = None;
    if end > 0 {
        let flags = SweepFlags {
            retain: sweep.retain,
            unrecorded,
        };
        // Anomaly mode is a second instance of the sweep, out of line: the usual one tests
        // no flag per node, and is laid out as if there were no other.
        if check {
            sweep_checking(tape, &mut scratch, &source_nodes, end, flags, &mut finding);
        } else {
            sweep_nodes::<false>(tape, &mut scratch, &source_nodes, end, flags, &mut finding);
        }
    }
    gather(
        &source_nodes,
        &scratch.grads,
        &direct,
        out,
        sweep.sources.len(),
    );
    scratch.give_back();
    sweeping.finish();
    if !check {
        return None;
    }
    let state = tape.borrow();
    match finding {
        Some(f) => {
            let phase = AnomalyPhase::Backward { input: f.input };
            Some(state.found(f.node, &f.inputs, f.op, phase, f.value))
        }
        // (a persistent tape differentiating inside its own scope records its rules' ops)
        None => state.non_finite.clone(),
    }
}

/// Where a sweep in anomaly mode first met a non-finite cotangent: node `node` (op `op`,
/// inputs `inputs`) gave `value` to its input number `input`. The rest of what the error
/// names is read from the tape's sites after the sweep.
struct Finding {
    node: NodeId,
    op: &'static str,
    inputs: SmallVec<[NodeId; 4]>,
    input: usize,
    value: NonFiniteValue,
}

impl Finding {
    /// Keeps the first finding: `value` in the cotangent of input `input` of node `i`.
    #[cold]
    #[inline(never)]
    fn note(
        slot: &mut Option<Finding>,
        node: &Node,
        i: usize,
        input: usize,
        value: NonFiniteValue,
    ) {
        if slot.is_none() {
            *slot = Some(Finding {
                node: i as NodeId,
                op: node.op,
                inputs: node.inputs.iter().copied().collect(),
                input,
                value,
            });
        }
    }
}

/// Marks a tape as sweeping while a gradient runs, for `reset` to refuse. If a rule panics,
/// the records are half swept (a non-persistent sweep drops what it passes; a sweep that
/// nothing records holds them outside the tape): dropped while unwinding, the guard
/// releases them and poisons the tape, so that no later gradient reads them
/// (`TapeError::Poisoned`).
struct SweepGuard<'a> {
    tape: &'a TapeCell,
    /// Whether an outer sweep of the same tape was running (a rule taking a gradient of it).
    outer: bool,
}

impl<'a> SweepGuard<'a> {
    fn enter(tape: &'a TapeCell, state: &mut TapeState) -> SweepGuard<'a> {
        let outer = std::mem::replace(&mut state.sweeping, true);
        SweepGuard { tape, outer }
    }

    /// The sweep is done; the records are as it left them.
    fn finish(self) {
        self.tape.borrow_mut().sweeping = self.outer;
        std::mem::forget(self);
    }
}

impl Drop for SweepGuard<'_> {
    /// Only when unwinding (`finish` forgets the guard).
    fn drop(&mut self) {
        // No borrow of the tape is held across a rule, so this succeeds; if it did not,
        // panicking again would abort, and the tape is left as it is.
        if let Ok(mut state) = self.tape.try_borrow_mut() {
            state.sweeping = self.outer;
            state.poisoned = true;
            state.release_records();
        }
    }
}

/// Appends each of the `sources` gradients to `out`: the sum of the cotangents of its
/// nodes (`source_nodes` lists them in source order) and of the seeds that reached it
/// `direct`ly.
fn gather(
    source_nodes: &SourceNodes,
    grads: &[Cot],
    direct: &[(usize, Cot)],
    out: &mut Gradients,
    sources: usize,
) {
    let mut nodes = source_nodes.iter().peekable();
    for k in 0..sources {
        let mut sum = Cot::Zero;
        while let Some(&(_, node)) = nodes.next_if(|&&(source, _)| source as usize == k) {
            if let Some(g) = grads.get(node as usize) {
                sum.add_from(g);
            }
        }
        for (_, seed) in direct.iter().filter(|(source, _)| *source == k) {
            sum.add_from(seed);
        }
        out.push(sum.into_tensor());
    }
}

/// A cotangent in the sweep's buffer. A sweep that nothing records keeps 0-d cotangents as
/// plain numbers: scalar code then pays for no tensor, and no fresh id, per cotangent.
/// A recorded sweep keeps tensors only, so that every sum it makes is recorded.
#[derive(Clone, Default)]
#[repr(u8)]
enum Cot {
    /// No cotangent yet: a symbolic zero, never materialised.
    #[default]
    Zero,
    /// A 0-d cotangent of dtype `f32` (`single`) or `f64`, as an `f64` either way (exact for
    /// `f32`): one width for both, because an `f32` written as 4 bytes and then moved as the
    /// 8 of an `f64` waited on store forwarding, a quarter of a scalar sweep's time.
    Number {
        value: f64,
        single: bool,
    },
    Tensor(AnyTensor),
}

impl Cot {
    /// How the sweep holds the cotangent `g`.
    #[inline]
    fn of(g: AnyTensor, unrecorded: bool) -> Cot {
        if unrecorded {
            match &g {
                AnyTensor::F32(t) => {
                    if let Some(v) = t.as_inline_scalar() {
                        return Cot::number(f64::from(v), true);
                    }
                }
                AnyTensor::F64(t) => {
                    if let Some(v) = t.as_inline_scalar() {
                        return Cot::number(v, false);
                    }
                }
            }
        }
        Cot::Tensor(g)
    }

    /// The default seed of `target`: ones of its shape and dtype. When nothing records, a 0-d seed is the
    /// number 1, so the usual scalar loss builds no tensor for it.
    #[inline]
    fn ones_like(target: &AnyTensor, unrecorded: bool) -> Cot {
        match target {
            AnyTensor::F32(t) if unrecorded && t.as_inline_scalar().is_some() => {
                Cot::number(1.0, true)
            }
            AnyTensor::F64(t) if unrecorded && t.as_inline_scalar().is_some() => {
                Cot::number(1.0, false)
            }
            _ => Cot::Tensor(target.ones_like()),
        }
    }

    /// The number `v` (of dtype `f32` if `single`, widened to `f64`) as a cotangent.
    #[inline(always)]
    fn number(value: f64, single: bool) -> Cot {
        Cot::Number { value, single }
    }

    /// Adds `g` into this slot.
    #[inline]
    fn add(&mut self, g: Cot) {
        match g {
            Cot::Zero => {}
            Cot::Number { value, single } => self.add_number(value, single),
            Cot::Tensor(_) if matches!(self, Cot::Zero) => *self = g,
            Cot::Tensor(_) => self.add_tensors(g),
        }
    }

    /// Adds a copy of `g` into this slot (a number is copied as it is added): read
    /// through a reference, a fresh number's fields are read one by one, never moved whole
    /// (a wide load of narrow stores, a store-forwarding stall).
    #[inline(always)]
    fn add_from(&mut self, g: &Cot) {
        match *g {
            Cot::Zero => {}
            Cot::Number { value, single } => self.add_number(value, single),
            Cot::Tensor(_) => self.add(g.clone()),
        }
    }

    /// Adds the number `v` into this slot: of dtype `f32` if `single` (widened to `f64`),
    /// or, from a compact record, the `f64` product of two such numbers, exact, which is
    /// rounded here to the `f32` product.
    #[inline(always)]
    fn add_number(&mut self, v: f64, single: bool) {
        match self {
            // In the dtype's own arithmetic: `f32` sums round as `f32` (the slot's value is
            // an `f32` value; `v`'s narrowing is exact, or rounds the product once).
            Cot::Number {
                value,
                single: true,
            } => *value = sum_in_dtype(true, *value, v),
            Cot::Number {
                value,
                single: false,
            } => *value = sum_in_dtype(false, *value, v),
            // (rounded to the dtype here: a compact record's product `∂ · g` comes
            // unrounded, as the sums above round it anyway)
            Cot::Zero => *self = Cot::number(in_dtype(single, v), single),
            Cot::Tensor(_) => self.add_tensors(Cot::number(in_dtype(single, v), single)),
        }
    }

    /// A sum that needs tensors: arrays, every sum of a recorded sweep, or a 0-d number
    /// meeting a tensor. Out of line, so the scalar cases above stay small.
    #[inline(never)]
    fn add_tensors(&mut self, g: Cot) {
        let sum = match (std::mem::take(self).into_tensor(), g.into_tensor()) {
            (Some(a), Some(b)) => a.accumulate(b),
            (a, b) => a.or(b).expect("one cotangent is non-zero here"),
        };
        *self = Cot::Tensor(sum);
    }

    fn into_tensor(self) -> Option<AnyTensor> {
        match self {
            Cot::Zero => None,
            // The narrowing is exact: a `single` value holds an `f32` value.
            Cot::Number {
                value,
                single: true,
            } => Some(AnyTensor::F32(Tensor::scalar(value as f32))),
            Cot::Number {
                value,
                single: false,
            } => Some(AnyTensor::F64(Tensor::scalar(value))),
            Cot::Tensor(t) => Some(t),
        }
    }
}

/// How a sweep runs: whether it keeps the records of a non-persistent tape (a jacobian
/// sweeping in chunks), and whether nothing records it (rules may compute on raw values).
#[derive(Clone, Copy)]
struct SweepFlags {
    retain: bool,
    unrecorded: bool,
}

/// A sweep's working memory, reused across gradients on this thread: a training loop takes
/// one gradient per step, and allocating (and page-faulting) these each time showed up in
/// profiles. A pool rather than one buffer, because sweeps nest (a custom rule may take a
/// gradient of its own).
struct Scratch {
    /// Cotangent of each node.
    grads: Vec<Cot>,
    /// Whether each node lies downstream of a source (or is one).
    relevant: Vec<bool>,
    /// Whether each node is a source.
    is_source: Vec<bool>,
    /// Whether `grads` may hold a tensor: set where one can be put there (a tensor seed,
    /// a rule's general form). When it is not, every slot is a number or a zero, which owns
    /// nothing, and `give_back` forgets them instead of checking each (for scalar code, a
    /// scan of the whole buffer per gradient).
    tensors: bool,
}

thread_local! {
    static SCRATCH_POOL: std::cell::RefCell<Vec<Scratch>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Scratch {
    /// An empty scratch; the caller sizes it once it holds it, so the lengths are not
    /// written here and read back wide after the move.
    fn take() -> Scratch {
        SCRATCH_POOL
            .with(|pool| pool.borrow_mut().pop())
            // (built only when the pool is empty: `unwrap_or` built one every time, and
            // called its destructor)
            .unwrap_or_else(|| Scratch {
                grads: Vec::new(),
                relevant: Vec::new(),
                is_source: Vec::new(),
                tensors: false,
            })
    }

    fn give_back(mut self) {
        // Cleared, and no larger than a spare tape's records (see `MAX_SPARE_RECORDS`).
        let most = crate::record::state::MAX_SPARE_RECORDS;
        if self.tensors {
            self.grads.clear();
        } else {
            // SAFETY: a length of 0 claims nothing about any element. The slots are
            // forgotten, not dropped, which is always memory-safe, and leaks nothing here:
            // with `tensors` unset no slot holds a tensor (see the field), and `Cot::Zero`
            // and `Cot::Number` own no memory.
            unsafe { self.grads.set_len(0) };
        }
        self.tensors = false;
        self.grads.shrink_to(most);
        self.relevant.clear();
        self.relevant.shrink_to(most);
        self.is_source.clear();
        self.is_source.shrink_to(most);
        // During thread teardown the pool may be gone; then the buffers just drop.
        let _ = SCRATCH_POOL.try_with(|pool| pool.borrow_mut().push(self));
    }
}

/// Appends the nodes of source `k` to `out`.
fn push_nodes_of_source(state: &TapeState, k: u32, source: &SourceKey, out: &mut SourceNodes) {
    match source {
        SourceKey::Tensor(t) => match state.lookup(t.id()) {
            NO_NODE => {}
            node => out.push((k, node)),
        },
        SourceKey::Variable(v) => {
            if let Some(index) = state.variable_index(v.id()) {
                for &node in &state.variables[index].leaves {
                    out.push((k, node));
                }
            }
        }
    }
}

/// Marks which nodes below `end` lie downstream of a source (or are one): only those need
/// cotangents. Everything else is skipped. `leaf_count`: how many leaves the tape has.
/// Returns whether every node is, so that the sweep can read no marks
/// ([`Relevant::Every`]); then `scratch.relevant` is left empty.
fn mark_relevant(
    nodes: Records<'_>,
    source_nodes: &SourceNodes,
    end: usize,
    leaf_count: usize,
    scratch: &mut Scratch,
) -> bool {
    // (both lists are empty, as given back; `extend` fills them in one pass, where
    // `resize` went through an out-of-line call)
    let is_source = &mut scratch.is_source;
    is_source.extend(std::iter::repeat_n(false, end));
    let mut source_leaves = 0;
    for &(_, node) in source_nodes {
        let node = node as usize;
        if node < end && !is_source[node] {
            is_source[node] = true;
            source_leaves += usize::from(nodes.is_leaf(node));
        }
    }
    let relevant = &mut scratch.relevant;
    if source_leaves == leaf_count {
        // Every leaf is a source, and every other node was recorded because one of its
        // inputs was tracked, so descends from a leaf: all are relevant (the usual case,
        // a gradient w.r.t. everything the tape watched), no walk needed, and no marks.
        return true;
    }
    let first = is_source.iter().position(|&s| s).unwrap_or(end);
    relevant.extend_from_slice(is_source);
    for i in first..end {
        if !relevant[i] {
            relevant[i] = nodes
                .inputs(i)
                .iter()
                .any(|&j| j != NO_NODE && relevant[j as usize]);
        }
    }
    false
}

/// Which nodes lie on a path to a source (see [`mark_relevant`]).
#[derive(Clone, Copy)]
enum Relevant<'a> {
    /// All of them: the usual gradient, with respect to everything the tape watched.
    Every,
    /// Those marked `true`, by node.
    Marked(&'a [bool]),
}

impl<'a> Relevant<'a> {
    /// [`Relevant::Every`] if `every`, else the marks `relevant`.
    #[inline]
    fn of(every: bool, relevant: &'a [bool]) -> Relevant<'a> {
        if every {
            Relevant::Every
        } else {
            Relevant::Marked(relevant)
        }
    }

    /// Whether the input node `j` needs a cotangent: it is tracked and relevant.
    #[inline(always)]
    fn needs(self, j: NodeId) -> bool {
        j != NO_NODE && self.node(j as usize)
    }

    /// Whether node `i` is relevant.
    #[inline(always)]
    fn node(self, i: usize) -> bool {
        match self {
            Relevant::Every => true,
            Relevant::Marked(relevant) => relevant[i],
        }
    }
}

/// [`sweep_nodes`] in anomaly mode.
#[cold]
#[inline(never)]
fn sweep_checking(
    tape: &Rc<TapeCell>,
    scratch: &mut Scratch,
    sources: &SourceNodes,
    end: usize,
    flags: SweepFlags,
    finding: &mut Option<Finding>,
) {
    sweep_nodes::<true>(tape, scratch, sources, end, flags, finding);
}

/// The sweep proper; `CHECK`: anomaly mode, each rule's cotangents are checked and the
/// first non-finite one goes to `finding`.
fn sweep_nodes<const CHECK: bool>(
    tape: &Rc<TapeCell>,
    scratch: &mut Scratch,
    sources: &SourceNodes,
    end: usize,
    flags: SweepFlags,
    finding: &mut Option<Finding>,
) {
    let (persistent, recording) = {
        let state = tape.borrow();
        (state.persistent || flags.retain, state.is_recording())
    };
    let unrecorded = flags.unrecorded;
    if recording {
        // A persistent tape differentiating inside its own scope: its rules record onto it,
        // so the records must stay in place; each node is cloned out before its rule runs.
        let every = {
            let state = tape.borrow();
            mark_relevant(state.records(), sources, end, state.leaf_count, scratch)
        };
        let Scratch {
            grads,
            relevant,
            is_source,
            tensors,
        } = scratch;
        let relevance = Relevant::of(every, relevant);
        for i in (0..end).rev() {
            if relevance.node(i) {
                let (node, saved) = {
                    let state = tape.borrow();
                    state.records().to_general(i, &state.saved)
                };
                *tensors |= step::<CHECK>(
                    &node,
                    &saved,
                    i,
                    grads,
                    (relevance, is_source[i], unrecorded),
                    finding,
                );
            }
        }
        return;
    }
    let (mut nodes, mut general, kept, mut saved, leaf_count, owning) = {
        let mut state = tape.borrow_mut();
        (
            std::mem::take(&mut state.nodes),
            std::mem::take(&mut state.general),
            std::mem::take(&mut state.kept),
            std::mem::take(&mut state.saved),
            state.leaf_count,
            state.owning_nodes,
        )
    };
    let records = Records {
        records: &nodes,
        general: &general,
        kept: &kept,
    };
    let every = mark_relevant(records, sources, end, leaf_count, scratch);
    let Scratch {
        grads,
        relevant,
        is_source,
        tensors,
    } = scratch;
    let relevance = Relevant::of(every, relevant);
    if persistent {
        for i in (0..end).rev() {
            if relevance.node(i) {
                let flags = (relevance, is_source[i], unrecorded);
                *tensors |= match &nodes[i] {
                    Record::General(k) => {
                        let node = &general[*k as usize];
                        let values = &saved[node.saved.as_range()];
                        step::<CHECK>(node, values, i, grads, flags, finding)
                    }
                    Record::Scalar(node) => {
                        let flags = (relevance, &is_source[..], unrecorded);
                        step_scalar::<CHECK>(node, &kept, i, grads, flags, finding)
                    }
                };
            }
        }
    } else {
        // Non-persistent: the values each node saved (and the state a closure rule
        // captured) are dropped as soon as the sweep has passed it. Saved values sit in
        // node order, so passing a node truncates them; the general nodes past the last
        // target go first, with their saved values.
        if let Some((first_general, arena)) = records.arena_from(end) {
            saved.truncate(arena);
            general.truncate(first_general);
        }
        nodes.truncate(end);
        // (`relevant` is empty when every node is: see `mark_relevant`)
        let marks = (&relevant[..], &is_source[..end]);
        let consumed = (&nodes[..], &mut general[..], &kept[..], &mut saved);
        // Two instances: with every node relevant (the usual gradient) no mark is read,
        // and an input needs a cotangent exactly when it is tracked.
        *tensors |= if every {
            sweep_consuming::<CHECK, true>(consumed, marks, grads, unrecorded, finding)
        } else {
            sweep_consuming::<CHECK, false>(consumed, marks, grads, unrecorded, finding)
        };
        // The emptied buffers go back for reuse; `gradient` then releases the rest.
        // (records own nothing: clearing them is setting the length)
        nodes.clear();
        clear_nodes(&mut general, owning);
    }
    let mut state = tape.borrow_mut();
    if general.is_empty() {
        state.owning_nodes = false;
    }
    state.nodes = nodes;
    state.general = general;
    state.kept = kept;
    state.saved = saved;
}

/// The sweep of a tape that is not kept: node by node from the last, each node's rule run
/// (where it is relevant) and then its saved values and captured state dropped. `EVERY`:
/// every node is relevant (`marks.0` is not read, and is empty). Returns whether a rule's
/// general form ran (see [`step`]).
#[inline(always)]
fn sweep_consuming<const CHECK: bool, const EVERY: bool>(
    (nodes, general, kept, saved): (&[Record], &mut [Node], &[u64], &mut Vec<AnyTensor>),
    (relevant, is_source): (&[bool], &[bool]),
    grads: &mut [Cot],
    unrecorded: bool,
    finding: &mut Option<Finding>,
) -> bool {
    let relevance = Relevant::of(EVERY, relevant);
    let mut tensors = false;
    // (stated once, so that indexing by a node below `nodes.len()` needs no check: a
    // loop over an enumerated iterator derived each index from the record's address, a
    // division by the record's size per node)
    let end = nodes.len();
    assert!(grads.len() >= end && (EVERY || relevant.len() >= end) && is_source.len() >= end);
    for i in (0..end).rev() {
        let node = match &nodes[i] {
            Record::Scalar(node) => {
                // Nothing in the arena, nothing owned: only the partials to apply.
                if EVERY || relevant[i] {
                    let flags = (relevance, is_source, unrecorded);
                    tensors |= step_scalar::<CHECK>(node, kept, i, grads, flags, finding);
                }
                continue;
            }
            Record::General(k) => &mut general[*k as usize],
        };
        if node.inputs.is_none() {
            // A leaf: nothing to run, save or drop; its cotangent is read where the
            // sources are gathered.
            continue;
        }
        if EVERY || relevant[i] {
            let values = &saved[node.saved.as_range()];
            let flags = (relevance, is_source[i], unrecorded);
            tensors |= step::<CHECK>(node, values, i, grads, flags, finding);
        }
        // One by one, each drop inline: scalar code's nodes save none or one or two
        // values, for which `truncate`'s out-of-line slice drop cost more.
        let start = node.saved.start();
        while saved.len() > start {
            drop(saved.pop());
        }
        if matches!(node.rule, Rule::Boxed(_)) {
            node.rule = Rule::Leaf;
        }
    }
    tensors
}

/// Pushes node `i`'s cotangent through its rule into its inputs' cotangents. `unrecorded`: no
/// tape records the sweep, so rules may compute on raw values. Returns whether the rule's
/// general form ran, which may have put tensors into `grads` (see `Scratch::tensors`).
#[inline(always)]
fn step<const CHECK: bool>(
    node: &Node,
    saved: &[AnyTensor],
    i: usize,
    grads: &mut [Cot],
    flags: (Relevant<'_>, bool, bool),
    finding: &mut Option<Finding>,
) -> bool {
    let (relevant, keep, unrecorded) = flags;
    if node.inputs.is_none() {
        // A leaf: its cotangent is read where the sources are gathered.
        return false;
    }
    // A number is read in place, field by field, and left there (nothing reads it again,
    // and it holds no memory): moving the whole slot out would read back wide what the
    // last `add_number` wrote narrowly.
    let (number, single) = match grads[i] {
        Cot::Zero => return false,
        Cot::Number { value, single } => (value, single),
        Cot::Tensor(_) => {
            // Taken unless kept, so a large cotangent is freed as soon as it is used.
            let g = if keep {
                grads[i].clone()
            } else {
                std::mem::take(&mut grads[i])
            };
            let Cot::Tensor(g) = g else {
                unreachable!("the slot holds a tensor")
            };
            step_tensor::<CHECK>(
                node,
                saved,
                (i, &g),
                &needs_of(node, relevant),
                grads,
                unrecorded,
                finding,
            );
            return true;
        }
    };
    // The plain-number path: unary and binary ops on 0-d values, the bulk of scalar code.
    if let Some([first, second]) = node.inputs.pair() {
        let needs = [relevant.needs(first), relevant.needs(second)];
        if let Some(cotangents) = node.run_rule_numbers(saved, number, needs) {
            for ((need, j), v) in needs.into_iter().zip([first, second]).zip(cotangents) {
                if need {
                    grads[j as usize].add_number(v, single);
                }
            }
            if CHECK {
                for (k, (need, v)) in needs.into_iter().zip(cotangents).enumerate() {
                    if let (true, Some(value)) = (need, NonFiniteValue::of(v)) {
                        Finding::note(finding, node, i, k, value);
                    }
                }
            }
            return false;
        }
    }
    let g = Cot::number(number, single)
        .into_tensor()
        .expect("a number is a non-zero cotangent");
    step_tensor::<CHECK>(
        node,
        saved,
        (i, &g),
        &needs_of(node, relevant),
        grads,
        unrecorded,
        finding,
    );
    true
}

/// [`step`] for a compact record: a number cotangent goes through the partials, which
/// only a sweep that nothing records meets (a recorded sweep and a jacobian's batched one
/// hold tensors); anything else runs the general rule, on the general node the record
/// stands for.
#[inline(always)]
fn step_scalar<const CHECK: bool>(
    node: &ScalarNode,
    kept: &[u64],
    i: usize,
    grads: &mut [Cot],
    (relevant, is_source, unrecorded): (Relevant<'_>, &[bool], bool),
    finding: &mut Option<Finding>,
) -> bool {
    let g = match grads[i] {
        Cot::Zero => return false,
        Cot::Number { value, .. } if !CHECK => value,
        _ => {
            // (whether node `i` is a source, read only here: the partials need not know)
            let flags = (relevant, is_source[i], unrecorded);
            let (node, saved) = node.general(kept);
            return step::<CHECK>(&node, &saved, i, grads, flags, finding);
        }
    };
    let single = node.single;
    let inputs = if node.binary { 2 } else { 1 };
    for k in 0..inputs {
        let j = node.inputs[k] as usize;
        // One bounds test both skips an absent input and keeps the index in range:
        // `NO_NODE` (`NodeId::MAX`) is past every slot, as a tape's node ids are below it;
        // any other input was recorded before node `i` (the reverse order this sweep
        // relies on), so its slot exists.
        debug_assert!(j == NO_NODE as usize || j < i, "input {j} of node {i}");
        if let Some(slot) = grads.get_mut(j)
            && relevant.node(j)
        {
            // In the dtype's arithmetic, as the rule computes `g · ∂`: an `f32` product
            // is exact in `f64`, and `add_number` rounds it (once: the `f32` product).
            slot.add_number(node.partials[k] * g, single);
        }
    }
    false
}

/// `v` rounded to `f32` if `single` (the dtype of a compact record's values), else as it
/// is. A sum or product of two `f32` values computed in `f64` and rounded once is the
/// `f32` operation's result.
#[inline(always)]
pub(super) fn in_dtype(single: bool, v: f64) -> f64 {
    if single { f64::from(v as f32) } else { v }
}

/// `a + b` in the dtype's arithmetic (`a` a value of the dtype, `b` exact in it or rounded
/// once by the narrowing): `f32` sums round as `f32`.
#[inline(always)]
pub(super) fn sum_in_dtype(single: bool, a: f64, b: f64) -> f64 {
    if single {
        f64::from(a as f32 + b as f32)
    } else {
        a + b
    }
}

/// Which of `node`'s inputs need a cotangent: those on a path to a source.
fn needs_of(node: &Node, relevant: Relevant<'_>) -> SmallVec<[bool; 4]> {
    node.inputs.iter().map(|&j| relevant.needs(j)).collect()
}

/// [`step`] with a tensor cotangent `g` of node `i`: the rule's general form.
fn step_tensor<const CHECK: bool>(
    node: &Node,
    saved: &[AnyTensor],
    (i, g): (usize, &AnyTensor),
    needs: &[bool],
    grads: &mut [Cot],
    unrecorded: bool,
    finding: &mut Option<Finding>,
) {
    if !needs.contains(&true) {
        return;
    }
    let mut input_grads = node.run_rule(saved, g, needs, unrecorded);
    if CHECK {
        for (k, grad) in input_grads.iter().enumerate() {
            if let Some(value) = grad.as_ref().and_then(NonFiniteValue::first_in_any) {
                Finding::note(finding, node, i, k, value);
            }
        }
    }
    for (k, &j) in node.inputs.iter().enumerate() {
        if let (true, Some(grad)) = (needs[k], input_grads[k].take()) {
            grads[j as usize].add(Cot::of(grad, unrecorded));
        }
    }
}

impl Node {
    /// Runs this node's rule for the incoming cotangent `g`.
    pub(crate) fn run_rule(
        &self,
        saved: &[AnyTensor],
        g: &AnyTensor,
        needs: &[bool],
        unrecorded: bool,
    ) -> InputGrads {
        let grads = self.with_ctx(saved, needs, unrecorded, |ctx| match &self.rule {
            Rule::Leaf => InputGrads::new(),
            Rule::Static(rule) => rule.backward(ctx, g),
            // A closure rule may reshape or index its cotangent in ways that know nothing
            // of batch axes: inside a jacobian's batched sweep it runs once per example,
            // unless it declared itself batch-safe.
            Rule::Boxed(rule) if crate::base::context::batch_rank() > 0 && !rule.batch_safe() => {
                super::jacobian::per_example(&**rule, ctx, g)
            }
            Rule::Boxed(rule) => rule.backward(ctx, g),
        });
        // The sweep zips cotangents with inputs; a short list would silently drop some.
        assert!(
            grads.len() == self.inputs.len(),
            "gradtape internal: the backward rule of `{}` returned {} cotangents for {} inputs",
            self.op,
            grads.len(),
            self.inputs.len()
        );
        grads
    }
}

impl AnyTensor {
    /// Elementwise sum of two cotangents of the same dtype; recorded like any op, so
    /// accumulation inside a gradient computed under an outer tape stays differentiable.
    pub(crate) fn accumulate(self, other: AnyTensor) -> AnyTensor {
        match (self, other) {
            (AnyTensor::F32(a), AnyTensor::F32(b)) => AnyTensor::F32(add_cotangents(a, b)),
            (AnyTensor::F64(a), AnyTensor::F64(b)) => AnyTensor::F64(add_cotangents(a, b)),
            (a, b) => panic!(
                "gradtape internal: cotangents of dtypes {} and {} for one value",
                a.dtype(),
                b.dtype()
            ),
        }
    }
}

/// `a + b`, on plain numbers when both are inline scalars and nothing records the sum (the
/// same value the recorded op would give, without its bookkeeping).
fn add_cotangents<T: Float>(a: Tensor<T>, b: Tensor<T>) -> Tensor<T> {
    if let (Some(x), Some(y)) = (a.as_inline_scalar(), b.as_inline_scalar())
        && !crate::any_recording()
    {
        return Tensor::scalar(x + y);
    }
    a + b
}

/// The most cotangent slots any spare scratch of this thread has room for.
pub(crate) fn scratch_capacity() -> usize {
    SCRATCH_POOL.with(|pool| {
        pool.borrow()
            .iter()
            .map(|s| s.grads.capacity())
            .max()
            .unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use crate::{GradientTape, Tensor};

    /// A compact binary record whose other operand is untracked (`NO_NODE`), in either
    /// place, on a tape past the few-node sweep and with relevance marks (a watched value
    /// off the path from the source): `step_scalar`'s one bounds test per input must skip
    /// the absent input and still reach the present one. Every value is exact in both
    /// dtypes, so the gradient is exact in any order of summation: d/dx = 8 · (3 + 3).
    #[test]
    fn a_compact_record_with_an_untracked_operand_under_relevance_marks() {
        macro_rules! check {
            ($t:ty) => {{
                let x = Tensor::scalar(0.5 as $t);
                let z = Tensor::scalar(1.5 as $t);
                let c = Tensor::scalar(3.0 as $t);
                let tape = GradientTape::new();
                tape.watch(&x);
                tape.watch(&z);
                let y = tape.record(|| {
                    // (on no path from `x`: marked irrelevant, so the marks are read)
                    let mut y = &z * &z;
                    for _ in 0..8 {
                        y = &(&c * &x) + &y;
                        y = &y + &(&x * &c);
                    }
                    y
                });
                let dx = tape.gradient(&y, &x).unwrap().unwrap().to_scalar();
                assert_eq!(dx.to_bits(), (48.0 as $t).to_bits(), "{}", stringify!($t));
            }};
        }
        check!(f32);
        check!(f64);
    }
}
