//! Anomaly mode's bookkeeping (`TapeBuilder::check_numerics`): where each node of a
//! checking tape was recorded and at what shape, and the first non-finite value found.
//!
//! Nothing here runs unless a tape has the option: an op pays one test of a flag of the
//! tape it is recorded on (`TapeState::check_numerics`), and a sweep one per gradient.

use std::fmt;
use std::panic::Location;

use smallvec::SmallVec;

use crate::base::dtype::{AnyTensor, DType, Float};
use crate::base::tensor::{Dims, Tensor};
use crate::record::node::{NO_NODE, NodeId};
use crate::record::state::TapeState;

/// Which value of an op was not finite: its forward value, or the cotangent its backward
/// rule computed for one of its inputs.
///
/// ```
/// use gradtape_runtime::{AnomalyPhase, GradientTape, TapeError, Tensor};
/// let x = Tensor::scalar(0.0_f64);
/// let tape = GradientTape::builder().check_numerics(true).build();
/// tape.watch(&x);
/// let y = tape.record(|| x.sqrt());
/// // √0 = 0 is finite; its derivative 1 / (2√0) is not
/// match tape.gradient(&y, &x) {
///     Err(TapeError::NonFinite { phase, .. }) => {
///         assert_eq!(phase, AnomalyPhase::Backward { input: 0 })
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnomalyPhase {
    /// The op's output, checked when the op was recorded.
    Forward,
    /// The cotangent the op's backward rule computed for its input number `input`
    /// (counted from 0 in the op's operand order).
    Backward {
        /// The operand whose cotangent was not finite.
        input: usize,
    },
}

/// What a non-finite value was: the first one found in a tensor, in row-major order.
///
/// ```
/// use gradtape_runtime::NonFiniteValue;
/// assert_eq!(NonFiniteValue::Nan.to_string(), "NaN");
/// assert_eq!(NonFiniteValue::NegInf.to_string(), "-inf");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonFiniteValue {
    /// Not a number.
    Nan,
    /// +∞.
    PosInf,
    /// −∞.
    NegInf,
}

impl NonFiniteValue {
    /// `v` classified, or `None` if it is finite.
    #[inline]
    pub(crate) fn of(v: f64) -> Option<NonFiniteValue> {
        if v.is_finite() {
            None
        } else if v.is_nan() {
            Some(NonFiniteValue::Nan)
        } else if v > 0.0 {
            Some(NonFiniteValue::PosInf)
        } else {
            Some(NonFiniteValue::NegInf)
        }
    }

    /// The first non-finite element of `t`, in row-major order.
    pub(crate) fn first_in<T: Float>(t: &Tensor<T>) -> Option<NonFiniteValue> {
        if let Some(v) = t.as_inline_scalar() {
            return NonFiniteValue::of(DType::to_f64(v));
        }
        t.view()
            .iter()
            .find(|v| !v.is_finite())
            .and_then(|&v| NonFiniteValue::of(DType::to_f64(v)))
    }

    /// [`NonFiniteValue::first_in`] of a float tensor of either dtype.
    pub(crate) fn first_in_any(t: &AnyTensor) -> Option<NonFiniteValue> {
        match t {
            AnyTensor::F32(t) => NonFiniteValue::first_in(t),
            AnyTensor::F64(t) => NonFiniteValue::first_in(t),
        }
    }
}

impl fmt::Display for NonFiniteValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NonFiniteValue::Nan => "NaN",
            NonFiniteValue::PosInf => "inf",
            NonFiniteValue::NegInf => "-inf",
        })
    }
}

/// Where a node of a checking tape was recorded (none for a leaf: a watched value or a
/// variable read is no op), and the shape of its value.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub location: Option<&'static Location<'static>>,
    pub shape: Dims,
}

/// The first non-finite value a checking tape found, with all that its error names.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub op: &'static str,
    pub phase: AnomalyPhase,
    pub value: NonFiniteValue,
    /// Each operand's shape; `None` for one the tape does not track (a constant).
    pub operand_shapes: Vec<Option<Vec<usize>>>,
    pub output_shape: Vec<usize>,
    pub location: &'static Location<'static>,
}

impl TapeState {
    /// Notes where node `node` was recorded and its value's shape (anomaly mode only).
    pub(crate) fn note_site(
        &mut self,
        node: NodeId,
        location: Option<&'static Location<'static>>,
        shape: &[usize],
    ) {
        let index = node as usize;
        if self.sites.len() <= index {
            self.sites.resize(index + 1, None);
        }
        self.sites[index] = Some(Site {
            location,
            shape: shape.into(),
        });
    }

    /// What the error names for a non-finite value of node `node` (inputs `inputs`) in
    /// `phase`.
    pub(crate) fn found(
        &self,
        node: NodeId,
        inputs: &[NodeId],
        op: &'static str,
        phase: AnomalyPhase,
        value: NonFiniteValue,
    ) -> Found {
        let site = |n: NodeId| {
            (n != NO_NODE)
                .then(|| self.sites.get(n as usize).and_then(Option::as_ref))
                .flatten()
        };
        let own = site(node);
        Found {
            op,
            phase,
            value,
            operand_shapes: inputs
                .iter()
                .map(|&j| site(j).map(|s| s.shape.to_vec()))
                .collect(),
            output_shape: own.map(|s| s.shape.to_vec()).unwrap_or_default(),
            // every op of a checking tape notes its site as it is recorded
            location: own
                .and_then(|s| s.location)
                .unwrap_or_else(|| Location::caller()),
        }
    }
}

/// Anomaly mode's forward check of node `node`, just recorded with output `out` at
/// `location`: notes the site, and keeps the first non-finite value the tape sees. Out of
/// line: only tapes with the option call it.
#[cold]
#[inline(never)]
pub(crate) fn check_forward<T: Float>(
    state: &mut TapeState,
    node: NodeId,
    out: &Tensor<T>,
    location: &'static Location<'static>,
) {
    state.note_site(node, Some(location), out.shape());
    if state.non_finite.is_some() {
        return;
    }
    if let Some(value) = NonFiniteValue::first_in(out) {
        let records = state.records();
        let inputs: SmallVec<[NodeId; 4]> = records.inputs(node as usize).to_vec().into();
        let op = records.op(node as usize);
        let found = state.found(node, &inputs, op, AnomalyPhase::Forward, value);
        state.non_finite = Some(found);
    }
}
