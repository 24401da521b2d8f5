//! What a tape stores per recorded op: a [`Node`] with its backward rule, the tape-local ids
//! of its inputs, where the values the rule saved sit in the tape's arena, and the op's
//! static parameters.

use std::rc::Rc;

use smallvec::SmallVec;

use crate::base::dtype::AnyTensor;
use crate::base::tensor::{Data, Tensor, TensorId};

/// Tape-local index of a node. Dense, so gradients live in a `Vec` indexed by it.
pub(crate) type NodeId = u32;

/// Marks an input that this tape does not track (a constant as far as this tape knows).
pub(crate) const NO_NODE: NodeId = NodeId::MAX;

/// Cotangents for a node's inputs, in input order; `None` where the input needs none
/// (a symbolic zero: skipped, never materialised).
pub(crate) type InputGrads = SmallVec<[Option<AnyTensor>; 2]>;

pub(crate) use crate::base::tensor::Dims;

/// What a backward rule sees besides the incoming cotangent.
pub(crate) struct RuleCtx<'a> {
    /// The values the op chose to save, in the order it saved them.
    pub saved: &'a [AnyTensor],
    /// The op's static parameters (axes, shapes, exponents).
    pub params: &'a Params,
    /// `needs[i]`: whether input `i` is on a path to a requested source. A rule returns
    /// `None` for inputs that do not need a cotangent, which is how work nobody asked for
    /// (the gradient of the input images, say) is skipped.
    pub needs: &'a [bool],
    /// No tape records this rule's work, so it may compute on raw values (the ops it would
    /// run on tensors would not be recorded anyway).
    pub unrecorded: bool,
}

/// What [`Backward::backward_numbers`] sees besides the cotangent: a node's own fields,
/// borrowed as they are (no [`Params`] built), and which of its (at most two) inputs need
/// a cotangent.
#[derive(Clone, Copy)]
pub(crate) struct NumberCtx<'a> {
    pub saved: &'a [AnyTensor],
    pub params: &'a ParamSlot,
    pub needs: [bool; 2],
}

impl NumberCtx<'_> {
    /// The op's one real parameter (an exponent, a factor), if it has one.
    #[inline]
    pub(crate) fn real_param(&self) -> Option<f64> {
        match self.params {
            ParamSlot::Real(p) => Some(*p),
            _ => None,
        }
    }
}

/// A backward (vector-Jacobian product) rule: maps the cotangent of the op's output to the
/// cotangents of its inputs, using only recordable ops, so that a gradient computed while an
/// outer tape records is itself recorded (higher order with no special case).
pub(crate) trait Backward {
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads;

    /// The same rule evaluated on plain numbers, which a sweep that nothing records uses
    /// when the cotangent is 0-d: for a unary or binary op whose saved values are 0-d too,
    /// the cotangents of its inputs (0 where `ctx.needs` says none is needed, and for a
    /// unary op's missing second input). Numbers are in the op's dtype, widened to `f64`
    /// (exact for `f32`): a plain `f64` pair travels in registers (a dtype-tagged value
    /// would go through memory). `None` when the rule has no such form or a
    /// saved value is not 0-d; the sweep then calls [`Backward::backward`].
    fn backward_numbers(&self, _ctx: NumberCtx<'_>, _g: f64) -> Option<[f64; 2]> {
        None
    }

    /// Whether the rule is right as it stands for a cotangent with leading batch axes (a
    /// jacobian's vectorised sweep). A closure rule that is not runs once per example.
    fn batch_safe(&self) -> bool {
        false
    }
}

/// The rule of a node.
#[derive(Clone)]
pub(crate) enum Rule {
    /// A watched value: the sweep stops here.
    Leaf,
    /// A built-in primitive's rule: a zero-sized closure behind a `'static` reference,
    /// so recording allocates nothing for it (see `ops::rule`).
    Static(&'static dyn Backward),
    /// A rule that captures state: custom gradients and fused `#[differentiable]` calls.
    Boxed(Rc<dyn Backward>),
}

/// Static parameters of an op, kept beside its saved values.
#[derive(Clone, Debug, Default)]
pub(crate) enum Params {
    #[default]
    None,
    /// One real number (an exponent).
    Real(f64),
    /// One list of sizes (a shape, a permutation, split sizes).
    Dims(Dims),
    /// A list of sizes and an axis (reductions: the input shape and the axis).
    DimsAxis(Dims, usize),
    /// Indices along an axis, with the input's shape (gather and its transpose).
    Gather {
        indices: Rc<[usize]>,
        axis: usize,
        shape: Dims,
    },
    /// A cumulative sum's axis and direction (`cumsum`).
    Scan {
        axis: usize,
        exclusive: bool,
        reverse: bool,
    },
    /// A boolean condition and the shapes of the two operands it chooses between
    /// (`where_cond`).
    Mask {
        condition: Tensor<bool>,
        shapes: [Dims; 2],
    },
}

/// [`Params`] as a node stores them: the common cases inline, the rest boxed, so that a
/// node stays small (every recorded op moves one into the tape, and the sweep moves it out).
#[derive(Clone, Debug)]
pub(crate) enum ParamSlot {
    None,
    Real(f64),
    Boxed(Box<Params>),
}

impl From<Params> for ParamSlot {
    #[inline]
    fn from(params: Params) -> ParamSlot {
        match params {
            Params::None => ParamSlot::None,
            Params::Real(r) => ParamSlot::Real(r),
            other => ParamSlot::Boxed(Box::new(other)),
        }
    }
}

/// One recorded op on one tape.
#[derive(Clone)]
pub(crate) struct Node {
    /// The op's name, for diagnostics.
    pub op: &'static str,
    pub rule: Rule,
    /// This tape's node of each input, or [`NO_NODE`].
    pub inputs: Inputs,
    /// Where the values the rule saved sit in the tape's arena (`TapeState::saved`): kept
    /// out of the node so that a node is small and scalar values are stored flat.
    pub saved: SavedRange,
    pub params: ParamSlot,
}

/// What a tape stores per recorded op, indexed by node id: a general [`Node`] (kept in a
/// list of its own, [`Records::general`]; watched values among them), or the compact
/// record of a 0-d elementwise op ([`ScalarNode`]).
///
/// Node ids index one list of records, so a sweep meets both kinds in recording order.
/// A record owns nothing (it is `Copy`), so the list is forgotten in one step; its size
/// is the compact record's, 64 bytes, written once per recorded op and read once per
/// sweep (a general node, 88 bytes, inline here made every record that large: 104 bytes
/// with the compact record's fields, when it held them all). Two variants, so the kind
/// is one compare (the null niche of the rule's pointer): a third, for watched values,
/// cost the sweep 7 instructions per node to decode.
#[derive(Clone, Copy)]
pub(crate) enum Record {
    /// A general node: its index in [`Records::general`].
    General(u32),
    Scalar(ScalarNode),
}

/// A unary or binary elementwise op on 0-d `f32` or `f64` values, recorded with its local
/// partial derivatives (CoDiPack's Jacobian taping): a sweep that nothing records adds
/// `partials[k] · g` into input `k`'s cotangent, with no rule call and no saved value read.
///
/// The record keeps what its general rule needs too (the rule and name here; its saved
/// values with their ids as words of the tape's list [`Records::kept`], written only when
/// the rule keeps some; its parameter here), so that a sweep an outer tape records, a jacobian's
/// batched sweep and every reader of nodes see the same [`Node`] the general path would
/// have written ([`ScalarNode::general`]): the partials are an evaluation of that rule,
/// never a second one.
///
/// Invariant: written only by `TapeState::push_scalar`, for an op whose inputs and output
/// are 0-d, whose rule is [`Rule::Static`] and whose parameter is none or one real number;
/// `kept` is where its `2 * saved_len` words start in the kept list (each saved value's
/// id and bits), 0 when `saved_len` is 0.
#[derive(Clone, Copy)]
pub(crate) struct ScalarNode {
    pub rule: &'static dyn Backward,
    /// The op's name (one word: see `OpName`).
    pub op: &'static &'static str,
    /// This tape's node of each input, or [`NO_NODE`]; the second is [`NO_NODE`] for a
    /// unary op.
    pub inputs: [NodeId; 2],
    /// `∂ output / ∂ input k`, computed in the op's dtype and widened to `f64` (exact for
    /// `f32`); 0 where the op has no second input.
    pub partials: [f64; 2],
    /// The op's real parameter, when `has_param`.
    pub param: f64,
    /// Where this record's words start in the kept list (see the invariant).
    pub kept: u32,
    /// Whether the op is binary.
    pub binary: bool,
    /// How many values the general rule keeps (at most two).
    pub saved_len: u8,
    pub has_param: bool,
    /// Whether the dtype is `f32` (else `f64`).
    pub single: bool,
}

/// The words a [`ScalarNode`] keeps for its general rule: each saved value's id and bits.
pub(crate) type KeptWords = [u64; 4];

impl ScalarNode {
    /// The general node the general path would have recorded for this op, with the values
    /// its rule saved (the same ids and values, so a sweep an outer tape records stays
    /// connected to it); `kept`: the tape's kept list. The node's saved span is empty (the
    /// arena holds nothing of it): its values are the list returned.
    pub(crate) fn general(&self, kept: &[u64]) -> (Node, SmallVec<[AnyTensor; 2]>) {
        let start = self.kept as usize;
        let saved = kept[start..start + 2 * usize::from(self.saved_len)]
            .chunks_exact(2)
            .map(|pair| {
                let (id, value) = (TensorId(pair[0]), f64::from_bits(pair[1]));
                if self.single {
                    // exact: the value is an `f32` widened
                    AnyTensor::F32(Tensor::with_id(id, Data::scalar(value as f32)))
                } else {
                    AnyTensor::F64(Tensor::with_id(id, Data::scalar(value)))
                }
            })
            .collect();
        let inputs = if self.binary {
            Inputs::two(self.inputs[0], self.inputs[1])
        } else {
            Inputs::one(self.inputs[0])
        };
        let node = Node {
            op: self.op,
            rule: Rule::Static(self.rule),
            inputs,
            saved: SavedRange::default(),
            params: if self.has_param {
                ParamSlot::Real(self.param)
            } else {
                ParamSlot::None
            },
        };
        (node, saved)
    }
}

/// A tape's records as its readers see them: the records by node id, the general nodes
/// they point to, and the words compact records keep.
#[derive(Clone, Copy)]
pub(crate) struct Records<'a> {
    pub records: &'a [Record],
    pub general: &'a [Node],
    pub kept: &'a [u64],
}

impl<'a> Records<'a> {
    /// Node `i`'s op name.
    #[inline]
    pub(crate) fn op(self, i: usize) -> &'static str {
        match self.records[i] {
            Record::General(k) => self.general[k as usize].op,
            Record::Scalar(ref node) => node.op,
        }
    }

    /// Node `i`'s inputs' nodes, in order ([`NO_NODE`] where untracked).
    #[inline]
    pub(crate) fn inputs(self, i: usize) -> &'a [NodeId] {
        match &self.records[i] {
            Record::General(k) => &self.general[*k as usize].inputs,
            Record::Scalar(node) => &node.inputs[..1 + usize::from(node.binary)],
        }
    }

    /// Whether node `i` is a watched value (a leaf: the sweep stops here).
    #[inline]
    pub(crate) fn is_leaf(self, i: usize) -> bool {
        match self.records[i] {
            Record::General(k) => matches!(self.general[k as usize].rule, Rule::Leaf),
            Record::Scalar(_) => false,
        }
    }

    /// The general node of record `i` and the values its rule saved (`arena`: the tape's
    /// saved values), cloned out of the tape.
    pub(crate) fn to_general(
        self,
        i: usize,
        arena: &[AnyTensor],
    ) -> (Node, SmallVec<[AnyTensor; 2]>) {
        match self.records[i] {
            Record::General(k) => {
                let node = &self.general[k as usize];
                (
                    node.clone(),
                    arena[node.saved.as_range()].iter().cloned().collect(),
                )
            }
            Record::Scalar(ref node) => node.general(self.kept),
        }
    }

    /// Where the saved values of the nodes from `end` on start in the arena: the start of
    /// the first general node's span there (only general nodes keep values in the arena),
    /// or `None` when no node from `end` on is general.
    pub(crate) fn arena_from(self, end: usize) -> Option<(usize, usize)> {
        self.records[end..].iter().find_map(|record| match *record {
            Record::General(k) => Some((k as usize, self.general[k as usize].saved.start())),
            _ => None,
        })
    }
}

/// The tape-local ids of a node's inputs, in order ([`NO_NODE`] for an input the tape does
/// not track): up to two inline (nearly every op), more in a list of their own.
///
/// A plain struct, not a `SmallVec`: the compiler holds a fresh one in registers and its
/// fields go straight into the node (a `SmallVec`'s union goes through the stack in two
/// halves read back whole, a store-forwarding stall per op; docs/PERFORMANCE.md).
#[derive(Clone, Debug)]
pub(crate) struct Inputs {
    few: [NodeId; 2],
    /// How many of `few` are inputs (when `many` is `None`).
    len: u32,
    /// Boxed for a thin pointer, which keeps `Inputs` at 24 bytes like the `SmallVec` it
    /// replaces (a node is moved into the tape per recorded op); more than two inputs
    /// (`concat` of several tensors) is rare enough for the second indirection.
    #[allow(clippy::box_collection)]
    many: Option<Box<Vec<NodeId>>>,
}

impl Inputs {
    /// No inputs: a leaf's.
    pub(crate) const NONE: Inputs = Inputs {
        few: [NO_NODE; 2],
        len: 0,
        many: None,
    };

    /// One input.
    #[inline(always)]
    pub(crate) fn one(x: NodeId) -> Inputs {
        Inputs {
            few: [x, NO_NODE],
            len: 1,
            many: None,
        }
    }

    /// Two inputs.
    #[inline(always)]
    pub(crate) fn two(x: NodeId, y: NodeId) -> Inputs {
        Inputs {
            few: [x, y],
            len: 2,
            many: None,
        }
    }

    /// Whether there are none (a leaf's): read from the fields, without building the slice.
    #[inline(always)]
    pub(crate) fn is_none(&self) -> bool {
        self.len == 0 && self.many.is_none()
    }

    /// The one or two inputs of a unary or binary op, the second [`NO_NODE`] for a unary
    /// one; `None` for a leaf and for more than two.
    #[inline(always)]
    pub(crate) fn pair(&self) -> Option<[NodeId; 2]> {
        (self.len != 0 && self.many.is_none()).then_some(self.few)
    }

    /// Any number of inputs.
    pub(crate) fn from_list(ids: Vec<NodeId>) -> Inputs {
        match *ids {
            [] => Inputs::NONE,
            [x] => Inputs::one(x),
            [x, y] => Inputs::two(x, y),
            _ => Inputs {
                many: Some(Box::new(ids)),
                ..Inputs::NONE
            },
        }
    }
}

impl std::ops::Deref for Inputs {
    type Target = [NodeId];

    #[inline(always)]
    fn deref(&self) -> &[NodeId] {
        match &self.many {
            Some(ids) => ids,
            None => &self.few[..self.len as usize],
        }
    }
}

/// A node's span of the saved-value arena, `start..end`, packed in one word: written as
/// two 32-bit halves, it was then read back (when the node moved into the tape) with one
/// 64-bit load that waited on store forwarding, a fifth of the cost of recording a scalar
/// op (perf).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SavedRange(u64);

impl SavedRange {
    #[inline]
    pub(crate) fn new(start: u32, end: u32) -> SavedRange {
        SavedRange(u64::from(start) | (u64::from(end) << 32))
    }

    #[inline]
    pub(crate) fn start(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }

    #[inline]
    pub(crate) fn end(self) -> usize {
        (self.0 >> 32) as usize
    }

    #[inline]
    pub(crate) fn as_range(self) -> std::ops::Range<usize> {
        self.start()..self.end()
    }
}

/// Empties `nodes`; `owning`: whether any of them may own heap memory (see
/// [`Node::parts_own_heap`]). When none does, their destructors would do nothing, and they are
/// forgotten in one step instead of being dropped one by one (a call and a check of each
/// field per node: for scalar code, about as much as its backward rule).
#[inline]
pub(crate) fn clear_nodes(nodes: &mut Vec<Node>, owning: bool) {
    if owning {
        nodes.clear();
    } else {
        // SAFETY: a length of 0 claims nothing about any element. The nodes are forgotten,
        // not dropped, which is always memory-safe; it leaks nothing here, as none of them
        // owns heap memory (the caller's `owning` says so).
        unsafe { nodes.set_len(0) };
    }
}

impl Node {
    /// Whether dropping a node of these parts frees anything: a closure rule, boxed
    /// parameters, or a list of more than two inputs.
    #[inline(always)]
    pub(crate) fn parts_own_heap(rule: &Rule, inputs: &Inputs, params: &ParamSlot) -> bool {
        matches!(rule, Rule::Boxed(_))
            || matches!(params, ParamSlot::Boxed(_))
            || inputs.many.is_some()
    }

    /// The rule's view of this node, with its saved values `saved`.
    #[inline]
    pub(crate) fn with_ctx<R>(
        &self,
        saved: &[AnyTensor],
        needs: &[bool],
        unrecorded: bool,
        f: impl FnOnce(&RuleCtx<'_>) -> R,
    ) -> R {
        let inline;
        let params = match &self.params {
            ParamSlot::None => &Params::None,
            ParamSlot::Real(r) => {
                inline = Params::Real(*r);
                &inline
            }
            ParamSlot::Boxed(params) => &**params,
        };
        f(&RuleCtx {
            saved,
            params,
            needs,
            unrecorded,
        })
    }

    /// Runs this node's rule on plain numbers (see [`Backward::backward_numbers`]), if it
    /// has that form here; `needs` as for [`NumberCtx`].
    #[inline]
    pub(crate) fn run_rule_numbers(
        &self,
        saved: &[AnyTensor],
        g: f64,
        needs: [bool; 2],
    ) -> Option<[f64; 2]> {
        let rule: &dyn Backward = match &self.rule {
            Rule::Static(rule) => *rule,
            Rule::Boxed(rule) => &**rule,
            Rule::Leaf => return None,
        };
        let ctx = NumberCtx {
            saved,
            params: &self.params,
            needs,
        };
        rule.backward_numbers(ctx, g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes ARCHITECTURE.md quotes: every recorded op writes one `Record`.
    #[test]
    fn record_sizes() {
        assert_eq!(size_of::<Node>(), 88);
        assert_eq!(size_of::<ScalarNode>(), 64);
        assert_eq!(size_of::<Record>(), 64);
    }

    use crate::{GradientTape, Tensor};

    /// `f(x) = sin(x)·0.9 + x·0.1` and its derivative, in `f64`.
    fn chain_step(x: &Tensor<f64>) -> Tensor<f64> {
        x.sin() * 0.9 + x * 0.1
    }

    fn chain_step_derivative(x: f64) -> f64 {
        x.cos() * 0.9 + 0.1
    }

    /// Central difference of `chain_step` at `x` (an oracle independent of the tape).
    fn chain_step_difference(x: f64) -> f64 {
        let h = 1e-6;
        let f = |v: f64| chain_step(&Tensor::scalar(v)).to_scalar();
        (f(x + h) - f(x - h)) / (2.0 * h)
    }

    /// A non-persistent sweep from a target recorded before general nodes that saved
    /// values: the general nodes past the target (found through the records, since compact
    /// records note no arena position) go with their saved values, and the sweep's pops
    /// of the saved values of the general nodes it passes stay in step.
    #[test]
    fn a_target_before_general_nodes_drops_their_saved_values() {
        let x = Tensor::scalar(0.5_f64);
        let w = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]);
        let tape = GradientTape::new();
        tape.watch(&x);
        tape.watch(&w);
        let y = tape.record(|| {
            // a general node that saves values, before the compact records
            let before = (&w * &x).exp().sum();
            let y = chain_step(&x) + before * 0.0;
            // general nodes that save values, after the target
            let after = (&w * &y).exp();
            drop(after.sin());
            y
        });
        let [dx, dw] = tape.gradient(&y, [&x, &w]).expect("one gradient");
        let dx = dx.expect("connected").to_scalar();
        let before_dx = (0..3).map(|i| f64::from(i + 1) * (f64::from(i + 1) * 0.5).exp());
        let expected = chain_step_derivative(0.5) + 0.0 * before_dx.sum::<f64>();
        assert!((dx - expected).abs() < 1e-15, "{dx} vs {expected}");
        assert!((dx - chain_step_difference(0.5)).abs() < 1e-8);
        assert_eq!(dw.expect("connected").to_vec(), vec![0.0; 3]);
    }

    /// A persistent tape keeps every kind of record: a second gradient from an earlier
    /// target, and a jacobian (whose batched sweep holds tensors, so each compact record
    /// runs its general rule, rebuilt with the values and parameter it kept), agree with
    /// the derivative and with central differences.
    #[test]
    fn compact_records_rebuild_their_general_nodes() {
        let x = Tensor::scalar(0.5_f64);
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let (y, z) = tape.record(|| {
            let y = chain_step(&x);
            let z = chain_step(&y).exp();
            (y, z)
        });
        let dz = tape.gradient(&z, &x).unwrap().unwrap().to_scalar();
        let dy = tape.gradient(&y, &x).unwrap().unwrap().to_scalar();
        let jacobian = tape.jacobian(&y, &x).unwrap().unwrap().to_scalar();
        let y0 = chain_step(&x).to_scalar();
        let expected_dz = y0.sin().mul_add(0.9, y0 * 0.1).exp()
            * chain_step_derivative(y0)
            * chain_step_derivative(0.5);
        assert!((dz - expected_dz).abs() < 1e-14, "{dz} vs {expected_dz}");
        assert!((dy - chain_step_derivative(0.5)).abs() < 1e-15);
        assert!((dy - chain_step_difference(0.5)).abs() < 1e-8);
        assert_eq!(jacobian.to_bits(), dy.to_bits());
        // second order: a gradient taken inside the tape's own scope is recorded on it,
        // and that sweep runs each compact record's general rule on its rebuilt node
        // (the parameter 0.9 and sin's kept input among what it reads)
        let (d2, x2) = {
            let x = Tensor::scalar(0.5_f64);
            let tape = GradientTape::persistent();
            tape.watch(&x);
            let dy = tape.record(|| {
                let y = chain_step(&x);
                tape.gradient(&y, &x).unwrap().unwrap()
            });
            (
                tape.gradient(&dy, &x).unwrap().unwrap().to_scalar(),
                0.5_f64,
            )
        };
        let expected_d2 = -x2.sin() * 0.9;
        assert!((d2 - expected_d2).abs() < 1e-15, "{d2} vs {expected_d2}");
    }
}
