//! The mutable state of one tape: its nodes, which tensors it tracks, which variables it
//! watches, and its flags.
//!
//! Tracking is by tensor id. A tensor born on a tape carries its node in its id
//! (`1 | 0 | tape uid (38 bits) | node (24 bits)`), so the common lookup, an intermediate of the
//! innermost tape, is a compare and a mask with no hashing. Everything else (watched
//! leaves, outputs recorded on outer tapes of a nest) goes through a hash map.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::base::dtype::AnyTensor;
use crate::base::tensor::{ARRAY_BIT, TAPE_ENCODED_BIT, TensorId};
use crate::record::node::{
    Inputs, NO_NODE, Node, NodeId, ParamSlot, Record, Records, Rule, SavedRange, ScalarNode,
    clear_nodes,
};
use crate::record::numerics::{Found, Site};
use crate::record::stack::{OpHead, TapeCell};
use crate::record::variable::{AnyVariable, VariableId};

const NODE_BITS: u32 = 24;
const NODE_MASK: u64 = (1 << NODE_BITS) - 1;
/// 38 bits, not the 39 left below the encoded bit: bit 62 is `base::tensor`'s
/// `ARRAY_BIT`, which no id may have.
const UID_BITS: u32 = 38;
const UID_MASK: u64 = (1 << UID_BITS) - 1;

/// 2³⁸ tape uids: at one new tape per nanosecond that lasts 4.5 minutes, in practice never
/// wraps; a wrap could only confuse a tensor with a node of a tape 2³⁸ tapes younger.
static NEXT_TAPE_UID: AtomicU64 = AtomicU64::new(1);

/// The id prefix of a tape with a new uid: the encoded bit and the uid, above the node
/// bits, so that naming a node and recognising its id are an `or` and a masked compare.
fn fresh_id_base() -> u64 {
    let uid = NEXT_TAPE_UID.fetch_add(1, Ordering::Relaxed) & UID_MASK;
    TAPE_ENCODED_BIT | (uid << NODE_BITS)
}

/// A variable a tape watches, and the nodes of the values of it that the tape has read:
/// several after an `assign`, whose gradients are summed.
pub(crate) struct WatchedVariable {
    pub(crate) var: AnyVariable,
    pub(crate) leaves: SmallVec<[NodeId; 4]>,
}

thread_local! {
    /// Finished tapes of this thread, whole (their `Rc` and every buffer), for the next
    /// tape to reuse: a training loop that opens one tape per step then allocates nothing
    /// for it (no `Rc` allocation), and nothing is moved field by field.
    static SPARE_TAPES: RefCell<Vec<Rc<TapeCell>>> = const { RefCell::new(Vec::new()) };
}

/// Appends `$value` to the `Vec` `$list`, evaluating it only once there is room, so that
/// it is built in the list's own memory.
///
/// `Vec::push` takes a value built beforehand, on the stack: the tape's records (nodes,
/// saved tensors) were written there field by field, in narrow stores, and then copied into
/// the list with wide loads, which waited on store forwarding (perf: about a sixth of the
/// time of a small gradient). A macro rather than a function taking a closure: a closure
/// passed by value had its captures (a whole node) copied through the stack first.
macro_rules! push_in_place {
    ($list:expr, $value:expr) => {{
        let list: &mut Vec<_> = $list;
        list.reserve(1);
        let len = list.len();
        list.spare_capacity_mut()[0].write($value);
        // SAFETY: `reserve(1)` left room for at least one element past `len`, so index 0 of
        // the spare capacity exists, and the write above initialised it; the first `len + 1`
        // elements are therefore initialised. (If `$value` panics, nothing was written and
        // the length is unchanged.)
        unsafe { list.set_len(len + 1) };
    }};
}
pub(crate) use push_in_place;

/// `tracked_span` of an empty map: no id is inside it.
const EMPTY_SPAN: (u64, u64) = (u64::MAX, 0);

/// Keep at most this many spare tapes per thread (one per nesting level in use).
const MAX_SPARE_TAPES: usize = 4;

/// A spare tape keeps room for at most this many records (and saved values): enough that a
/// training step or W2's 40,000-op chain reuses its buffers, while one huge recording (10⁷
/// ops, a gigabyte) gives its memory back instead of holding it until the thread exits.
pub(crate) const MAX_SPARE_RECORDS: usize = 1 << 17;

/// Opaque outside the crate: reachable only through `Watch`, which users do not implement.
#[doc(hidden)]
pub struct TapeState {
    /// `TAPE_ENCODED_BIT | uid << NODE_BITS`: the ids of this tape's nodes, but for the
    /// node index (see `fresh_id_base`).
    id_base: u64,
    pub(crate) persistent: bool,
    pub(crate) watch_accessed_variables: bool,
    /// On this thread's stack of active tapes (inside `record`).
    pub(crate) active: bool,
    /// Depth of `stop_recording` scopes currently open on this tape.
    pub(crate) paused: u32,
    /// A non-persistent tape whose one gradient has been taken.
    pub(crate) consumed: bool,
    /// A gradient or jacobian of this tape is running (its rules may call back into it).
    pub(crate) sweeping: bool,
    /// A sweep panicked (a rule did) and its records were released: every later gradient
    /// is refused until `reset` (`TapeError::Poisoned`).
    pub(crate) poisoned: bool,
    /// The records, by node id.
    pub(crate) nodes: Vec<Record>,
    /// The general nodes the records point to ([`Record::General`]), in node order.
    pub(crate) general: Vec<Node>,
    /// The words compact records keep for their general rules (see [`ScalarNode`]), in
    /// node order.
    pub(crate) kept: Vec<u64>,
    /// The values the nodes' rules saved, in node order; each node knows its span. Node
    /// order is what lets a non-persistent sweep free them as it passes, by truncating.
    pub(crate) saved: Vec<AnyTensor>,
    tracked: FxHashMap<TensorId, NodeId>,
    /// The smallest and largest id in `tracked`: ids outside cannot be tracked, which spares
    /// the hash lookup for the common constant operand (`y * 0.9` makes a new, larger id).
    tracked_span: (u64, u64),
    pub(crate) variables: Vec<WatchedVariable>,
    /// How many of `nodes` are leaves (watched values). Every other node descends from one,
    /// so a gradient whose sources include every leaf needs every node (see
    /// `backward::mark_relevant`).
    pub(crate) leaf_count: usize,
    /// Whether some node in `general` may own heap memory (see `node::clear_nodes`).
    pub(crate) owning_nodes: bool,
    /// Ids of tensors `watch`ed explicitly, each with the fresh-id clock at the watch
    /// (a tensor with a smaller fresh id existed before it), for `explain`.
    pub(crate) watched_tensors: Vec<(TensorId, u64)>,
    /// Anomaly mode (`TapeBuilder::check_numerics`): every value recorded here and every
    /// cotangent its sweeps compute is checked for NaN and ±inf.
    pub(crate) check_numerics: bool,
    /// In anomaly mode, each node's site (where it was recorded, its value's shape), by
    /// node; empty otherwise.
    pub(crate) sites: Vec<Option<Site>>,
    /// In anomaly mode, the first non-finite forward value recorded here.
    pub(crate) non_finite: Option<Found>,
}

impl TapeState {
    fn new(persistent: bool, watch_accessed_variables: bool) -> TapeState {
        TapeState {
            id_base: fresh_id_base(),
            persistent,
            watch_accessed_variables,
            active: false,
            paused: 0,
            consumed: false,
            sweeping: false,
            poisoned: false,
            nodes: Vec::new(),
            general: Vec::new(),
            kept: Vec::new(),
            saved: Vec::new(),
            tracked: FxHashMap::default(),
            tracked_span: EMPTY_SPAN,
            variables: Vec::new(),
            leaf_count: 0,
            owning_nodes: false,
            watched_tensors: Vec::new(),
            check_numerics: false,
            sites: Vec::new(),
            non_finite: None,
        }
    }

    /// A tape with these settings: a spare one of this thread's, reset, or a new one.
    pub(crate) fn new_cell(
        persistent: bool,
        watch_accessed_variables: bool,
        check_numerics: bool,
    ) -> Rc<TapeCell> {
        let spare = SPARE_TAPES.with(|spare| spare.borrow_mut().pop());
        let cell = spare.unwrap_or_else(|| {
            Rc::new(RefCell::new(TapeState::new(
                persistent,
                watch_accessed_variables,
            )))
        });
        {
            let mut state = cell.borrow_mut();
            // Everything else, the uid included, was reset when the tape was given back.
            state.persistent = persistent;
            state.watch_accessed_variables = watch_accessed_variables;
            state.check_numerics = check_numerics;
            state.consumed = false;
            state.poisoned = false;
        }
        cell
    }

    /// Takes back a tape its `GradientTape` is done with, for [`TapeState::new_cell`] to
    /// reuse; `cell` must be the only reference to it (the pool keeps a clone).
    pub(crate) fn give_back(cell: &Rc<TapeCell>) {
        debug_assert_eq!(Rc::strong_count(cell), 1, "a tape given back is unshared");
        {
            let mut state = cell.borrow_mut();
            // Unshared means no recording or pause guard holds it, and those guards reset
            // these flags when they drop.
            debug_assert!(
                !state.active && state.paused == 0,
                "a tape given back is idle"
            );
            // A new uid, so no tensor of this use matches a node of the next.
            state.clear();
            state.nodes.shrink_to(MAX_SPARE_RECORDS);
            state.general.shrink_to(MAX_SPARE_RECORDS);
            state.kept.shrink_to(MAX_SPARE_RECORDS);
            state.saved.shrink_to(MAX_SPARE_RECORDS);
            // (hashbrown's `shrink_to` rehashes even a table with room to spare: asked only
            // of one that is over the bound, which an empty table of a scalar gradient is not)
            if state.tracked.capacity() > MAX_SPARE_RECORDS {
                state.tracked.shrink_to(MAX_SPARE_RECORDS);
            }
            state.sites.shrink_to(MAX_SPARE_RECORDS);
        }
        // During thread teardown the pool may already be gone; then the tape just drops.
        let _ = SPARE_TAPES.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < MAX_SPARE_TAPES {
                spare.push(Rc::clone(cell));
            }
        });
    }

    /// The records, with the general nodes and kept words they point to.
    #[inline]
    pub(crate) fn records(&self) -> Records<'_> {
        Records {
            records: &self.nodes,
            general: &self.general,
            kept: &self.kept,
        }
    }

    /// Whether ops run now are recorded on this tape.
    #[inline]
    pub(crate) fn is_recording(&self) -> bool {
        self.active && self.paused == 0
    }

    /// This tape's node for the tensor with `id`, or [`NO_NODE`].
    #[inline(always)]
    pub(crate) fn lookup(&self, id: TensorId) -> NodeId {
        let raw = id.0;
        if raw & !NODE_MASK == self.id_base {
            let node = raw & NODE_MASK;
            if (node as usize) < self.nodes.len() {
                return node as NodeId;
            }
        }
        let (low, high) = self.tracked_span;
        if raw < low || raw > high {
            return NO_NODE;
        }
        self.tracked.get(&id).copied().unwrap_or(NO_NODE)
    }

    /// The id the next pushed node's output gets when this is the innermost recording tape.
    #[inline]
    pub(crate) fn next_output_id(&self) -> TensorId {
        self.encoded_id(self.nodes.len())
            .unwrap_or_else(TensorId::fresh)
    }

    /// The id that names `node` of this tape, which `lookup` finds without the map; `None`
    /// past the first 2²⁴ nodes, whose outputs take fresh ids.
    #[inline(always)]
    pub(crate) fn encoded_id(&self, node: usize) -> Option<TensorId> {
        let node = node as u64;
        // (`& !ARRAY_BIT` changes nothing, `id_base` never has it (`UID_BITS`), but tells
        // the compiler so: a 0-d op inlined into its caller then reads its output's value
        // and drops it with no test of the tag, where an id read from the tape's memory
        // could have had the bit for all it knew)
        (node <= NODE_MASK).then_some(TensorId((self.id_base | node) & !ARRAY_BIT))
    }

    /// Appends a node (the op, rule and parameters `head` builds, and `inputs`) as the
    /// producer of the tensor `out`; `save` appends the values its rule keeps to the arena,
    /// where they are written once, in place, never through intermediate buffers.
    ///
    /// The node comes in parts and is assembled at its write into the tape, so it is never
    /// copied whole through the stack; `head` is called there, after the arena pushes, so
    /// that an op's constant head (a static rule, no parameters or one number) is written
    /// straight into the node. Built before the pushes and held across them, the rule's
    /// tag and pointers went through the stack in narrow stores and came back in one wide
    /// load, a store-forwarding stall per op (perf, docs/PERFORMANCE.md).
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        head: impl FnOnce() -> OpHead,
        inputs: Inputs,
        save: impl FnOnce(&mut Vec<AnyTensor>),
        out: TensorId,
    ) -> NodeId {
        let start = self.saved.len() as u32;
        save(&mut self.saved);
        let saved = SavedRange::new(start, self.saved.len() as u32);
        let general = self.general.len() as u32;
        // (decided on the parts, in registers, not read back from the written node)
        let owns_heap;
        push_in_place!(&mut self.general, {
            let OpHead { op, rule, params } = head();
            owns_heap = Node::parts_own_heap(&rule, &inputs, &params);
            Node {
                op,
                rule,
                inputs,
                saved,
                params,
            }
        });
        self.owning_nodes |= owns_heap;
        self.push_record(Record::General(general), out)
    }

    /// Appends `record` as node `index`, the producer of the tensor `out`, and tracks `out`
    /// by the map unless its id is the one that encodes the node.
    #[inline(always)]
    fn push_record(&mut self, record: Record, out: TensorId) -> NodeId {
        let index = self.nodes.len() as NodeId;
        // An id `next_output_id` encoded for this node finds it without the map. (Compared
        // with the encoding, not with `next_output_id`: past the encodable nodes that takes
        // a fresh id.)
        let encoded = self.encoded_id(index as usize) == Some(out);
        push_in_place!(&mut self.nodes, record);
        if !encoded {
            self.tracked.insert(out, index);
            let (low, high) = self.tracked_span;
            self.tracked_span = (low.min(out.0), high.max(out.0));
        }
        index
    }

    /// Appends the compact record of a 0-d op (see [`ScalarNode`]), as the producer of the
    /// tensor whose id `encoded_id` gives for the node it becomes (so `lookup` finds it
    /// without the map: the caller checked that there is one). `node` is the record but
    /// for its `kept` field, which is set here; `words` are the words it keeps (see
    /// [`ScalarNode`]'s invariant), appended to the kept list (nothing for an op that
    /// keeps nothing).
    #[inline(always)]
    pub(crate) fn push_scalar(&mut self, node: ScalarNode, words: &[u64]) -> NodeId {
        let index = self.nodes.len() as NodeId;
        // A record that keeps no words reads none (`ScalarNode::general` slices an empty
        // span): its start is 0, not the list's length, which spares a load per op that
        // keeps nothing (`words` has a constant length once inlined).
        let kept = if words.is_empty() {
            0
        } else {
            let start = self.kept.len() as u32;
            self.kept.extend_from_slice(words);
            start
        };
        push_in_place!(&mut self.nodes, Record::Scalar(ScalarNode { kept, ..node }));
        index
    }

    /// Tracks `id` as a watched leaf unless it is tracked already; returns its node.
    pub(crate) fn track_leaf(&mut self, id: TensorId, op: &'static str) -> NodeId {
        match self.lookup(id) {
            NO_NODE => self.push_leaf(id, op),
            node => node,
        }
    }

    /// Appends a watched leaf for `id`, which the caller knows is not tracked yet.
    #[inline]
    pub(crate) fn push_leaf(&mut self, id: TensorId, op: &'static str) -> NodeId {
        self.leaf_count += 1;
        let head = || OpHead {
            op,
            rule: Rule::Leaf,
            params: ParamSlot::None,
        };
        self.push(head, Inputs::NONE, |_| {}, id)
    }

    /// [`TapeState::track_leaf`] of a watched value of shape `shape` (noted in anomaly
    /// mode, for the errors of the ops that read it).
    pub(crate) fn track_leaf_of_shape(
        &mut self,
        id: TensorId,
        op: &'static str,
        shape: &[usize],
    ) -> NodeId {
        let node = self.track_leaf(id, op);
        if self.check_numerics {
            self.note_site(node, None, shape);
        }
        node
    }

    /// The index of `var` in `variables`, adding it if absent (kept in creation order, as
    /// TensorFlow's `watched_variables` is).
    pub(crate) fn watch_variable(&mut self, var: &AnyVariable) -> usize {
        match self.variable_position(var.id()) {
            Ok(index) => index,
            Err(index) => self.watch_variable_at(index, var.clone()),
        }
    }

    /// Watches `var`, which is not watched yet and goes at `index` of `variables` (as
    /// [`variable_position`](Self::variable_position) found); returns `index`.
    pub(crate) fn watch_variable_at(&mut self, index: usize, var: AnyVariable) -> usize {
        debug_assert_eq!(self.variable_position(var.id()), Err(index));
        let watched = WatchedVariable {
            var,
            leaves: SmallVec::new(),
        };
        self.variables.insert(index, watched);
        index
    }

    /// The watched-variable entry for `id`, if this tape watches that variable. A scan of
    /// a few watched variables costs less than the binary search (a gradient of a scalar
    /// loss of a few variables looks each source up once).
    #[inline]
    pub(crate) fn variable_index(&self, id: VariableId) -> Option<usize> {
        if self.variables.len() <= 4 {
            return self.variables.iter().position(|w| w.var.id() == id);
        }
        self.variable_position(id).ok()
    }

    /// `Ok` with the watched-variable entry for `id`, or `Err` with where it would go
    /// (`variables` is sorted by id).
    #[inline]
    pub(crate) fn variable_position(&self, id: VariableId) -> Result<usize, usize> {
        self.variables.binary_search_by_key(&id, |w| w.var.id())
    }

    /// Forgets every record and watch: old tensors must not match the new nodes, so the
    /// tape takes a new uid.
    pub(crate) fn clear(&mut self) {
        self.release_records();
        self.variables.clear();
    }

    /// Drops the records (and the values their rules saved) once a non-persistent tape has
    /// computed its gradient, but remembers which variables it watched: TensorFlow's
    /// `watched_variables()` still lists them after `gradient`.
    #[inline]
    pub(crate) fn release_records(&mut self) {
        if self.leaf_count == 0 && self.sites.is_empty() && self.non_finite.is_none() {
            // Nothing recorded since the last release (say, a tape dropped after its
            // gradient): the first node of a record is a leaf, every list below is filled
            // only alongside a node, and no tensor carries the current uid, so all of it,
            // the uid included, can stay. (Tested here, inlined: the call out of line
            // saved and restored six registers for nothing.)
            debug_assert!(self.nodes.is_empty() && self.saved.is_empty());
            debug_assert!(self.tracked.is_empty() && self.watched_tensors.is_empty());
            return;
        }
        self.release_recorded();
    }

    /// [`release_records`](Self::release_records) of a tape with something to release.
    #[inline(never)]
    fn release_recorded(&mut self) {
        // (anomaly mode's records are kept only beside nodes, but cost nothing to clear)
        self.sites.clear();
        self.non_finite = None;
        if self.leaf_count == 0 {
            // (only anomaly mode's notes were left: see the caller)
            return;
        }
        self.id_base = fresh_id_base();
        // (records own nothing: clearing them is setting the length)
        self.nodes.clear();
        clear_nodes(&mut self.general, self.owning_nodes);
        self.owning_nodes = false;
        self.kept.clear();
        self.saved.clear();
        self.tracked.clear();
        self.tracked_span = EMPTY_SPAN;
        self.leaf_count = 0;
        self.watched_tensors.clear();
        for watched in &mut self.variables {
            watched.leaves.clear();
        }
    }
}

/// The most records any spare tape of this thread has room for (for the test that the
/// spares stay bounded).
pub(crate) fn spare_record_capacity() -> usize {
    SPARE_TAPES.with(|spare| {
        spare
            .borrow()
            .iter()
            .map(|cell| {
                let state = cell.borrow();
                (state.nodes.capacity())
                    .max(state.general.capacity())
                    .max(state.kept.capacity())
                    .max(state.saved.capacity())
            })
            .max()
            .unwrap_or(0)
    })
}
