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

/// What a tape stores per recorded op: a general [`Node`], or the compact record of a 0-d
/// elementwise op ([`ScalarNode`]).
///
/// Node ids index one list of records, so a sweep meets both kinds in recording order.
pub(crate) enum Record {
    General(Node),
    Scalar(ScalarNode),
}

/// A unary or binary elementwise op on 0-d `f32` or `f64` values, recorded with its local
/// partial derivatives (CoDiPack's Jacobian taping): a sweep that nothing records adds
/// `partials[k] · g` into input `k`'s cotangent, with no rule call and no saved value read.
///
/// The record keeps what its general rule needs too (the rule, its saved values with their
/// ids, its parameter), so that a sweep an outer tape records, a jacobian's batched sweep
/// and every reader of nodes see the same [`Node`] the general path would have written
/// ([`ScalarNode::general`]): the partials are an evaluation of that rule, never a second
/// one.
///
/// Invariant: written only by `TapeState::push_scalar`, for an op whose inputs and output
/// are 0-d, whose rule is [`Rule::Static`] and whose parameter is none or one real number.
#[derive(Clone)]
pub(crate) struct ScalarNode {
    pub op: &'static str,
    pub rule: &'static dyn Backward,
    /// This tape's node of each input, or [`NO_NODE`]; the second is [`NO_NODE`] for a
    /// unary op.
    pub inputs: [NodeId; 2],
    /// `∂ output / ∂ input k`, computed in the op's dtype and widened to `f64` (exact for
    /// `f32`); 0 where the op has no second input.
    pub partials: [f64; 2],
    /// The values the general rule keeps, in its order (the first `saved_len`): each
    /// value's id and the value, widened to `f64`.
    pub saved: [(TensorId, f64); 2],
    /// The op's real parameter, when `has_param`.
    pub param: f64,
    /// The arena's length when the op was recorded: where a general node's saved span would
    /// start and end (the arena holds nothing of this node).
    pub arena: u32,
    /// Whether the op is binary.
    pub binary: bool,
    pub saved_len: u8,
    pub has_param: bool,
    /// Whether the dtype is `f32` (else `f64`).
    pub single: bool,
}

impl ScalarNode {
    /// The general node the general path would have recorded for this op, with the values
    /// its rule saved (the same ids and values, so a sweep an outer tape records stays
    /// connected to it).
    pub(crate) fn general(&self) -> (Node, SmallVec<[AnyTensor; 2]>) {
        let saved = self.saved[..usize::from(self.saved_len)]
            .iter()
            .map(|&(id, value)| {
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
            saved: SavedRange::new(self.arena, self.arena),
            params: if self.has_param {
                ParamSlot::Real(self.param)
            } else {
                ParamSlot::None
            },
        };
        (node, saved)
    }
}

impl Record {
    /// The op's name.
    #[inline]
    pub(crate) fn op(&self) -> &'static str {
        match self {
            Record::General(node) => node.op,
            Record::Scalar(node) => node.op,
        }
    }

    /// This tape's node of each input, in order ([`NO_NODE`] where untracked).
    #[inline]
    pub(crate) fn inputs(&self) -> &[NodeId] {
        match self {
            Record::General(node) => &node.inputs,
            Record::Scalar(node) => &node.inputs[..1 + usize::from(node.binary)],
        }
    }

    /// Whether this is a watched value (a leaf: the sweep stops here).
    #[inline]
    pub(crate) fn is_leaf(&self) -> bool {
        matches!(
            self,
            Record::General(Node {
                rule: Rule::Leaf,
                ..
            })
        )
    }

    /// Where the values the rule saved end in the arena.
    #[inline]
    pub(crate) fn saved_end(&self) -> usize {
        match self {
            Record::General(node) => node.saved.end(),
            Record::Scalar(node) => node.arena as usize,
        }
    }

    /// The general node of this record and the values its rule saved (`arena`: the tape's
    /// saved values), cloned out of the tape.
    pub(crate) fn to_general(&self, arena: &[AnyTensor]) -> (Node, SmallVec<[AnyTensor; 2]>) {
        match self {
            Record::General(node) => (
                node.clone(),
                arena[node.saved.as_range()].iter().cloned().collect(),
            ),
            Record::Scalar(node) => node.general(),
        }
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
/// [`Node::parts_own_heap`]; a [`ScalarNode`] owns none). When none does, their destructors would do nothing, and they are
/// forgotten in one step instead of being dropped one by one (a call and a check of each
/// field per node: for scalar code, about as much as its backward rule).
#[inline]
pub(crate) fn clear_nodes(nodes: &mut Vec<Record>, owning: bool) {
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
        assert_eq!(size_of::<ScalarNode>(), 104);
        assert_eq!(size_of::<Record>(), 104);
    }
}
