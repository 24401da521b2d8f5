//! What the code `#[differentiable]` generates calls, and nothing else: the top floor,
//! hidden from the docs. Generated code reaches it through `::gradtape::__private::generated`;
//! none of it is a stable API.
//!
//! - `fused`: the one node an annotated call records, with the generated adjoint as rule;
//! - `adjoint`: accumulation, un-broadcasting and the other helpers adjoints call;
//! - `trace`: sub-tapes for ops with no elementwise rule;
//! - `tangent`: the helpers of the tape-free tangent code (`f::jvp`) besides the rules;
//! - `parts`: the cotangent of a tuple result from its parts;
//! - `shadow`: the cotangent and tangent buffers of float arrays, slices and `Vec`s;
//! - `callee`: the check that a called function is annotated;
//! - `checkpoint`: the copies and snapshots a checkpointed loop makes for its rerun;
//! - `replay`: calls replayed in the adjoint (joint mode), their saved arguments and sinks;
//! - `dual`: dual numbers, on which a plain helper of `plain(..)` runs (the fallback);
//! - `rows`: those of ragged arrays of rows (`&[Vec<F>]`), indexed by `i * RAGGED_STRIDE + j`;
//! - `scalar`: the forward kernels on plain numbers (the 0-d path).

/// Invokes `$m` once per tuple arity from 1 to 8, each element named by a type, a value
/// and a tangent identifier: `$m!((A, a, ta), (B, b, tb))` for pairs.
macro_rules! for_each_arity {
    ($m:ident) => {
        for_each_arity!(@ $m [] (A, a, ta) (B, b, tb) (C, c, tc) (D, d, td)
            (E, e, te) (F, f, tf) (G, g, tg) (H, h, th));
    };
    (@ $m:ident [$($done:tt)*] $next:tt $($rest:tt)*) => {
        $m!($($done,)* $next);
        for_each_arity!(@ $m [$($done)* $next] $($rest)*);
    };
    (@ $m:ident [$($done:tt)*]) => {};
}

mod adjoint;
mod callee;
mod checkpoint;
mod dual;
mod fields;
mod fused;
mod parts;
mod replay;
mod rows;
mod shadow;
mod tangent;
mod trace;

pub use crate::base::alloc::keep_large_buffers;
pub use crate::record::{any_recording, without_recording};
pub use crate::tape::closure::record_closure;
pub use adjoint::*;
pub use callee::*;
pub use checkpoint::*;
pub use dual::*;
pub use fields::*;
pub use fused::*;
pub use parts::*;
pub use replay::*;
pub use rows::*;
pub use shadow::*;
pub use tangent::*;
pub use trace::*;

/// The forward kernels of the elementwise ops on plain numbers, for the 0-d path of
/// `#[differentiable]` tensor functions: each computes exactly what the tensor op of the
/// same name computes on one element (the same formula, in the same order), so the 0-d
/// path and the tensor path agree to the last bit.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::scalar};
/// let x = 0.3_f32;
/// assert_eq!(scalar::softplus(x), Tensor::scalar(x).softplus().to_scalar());
/// assert_eq!(scalar::maximum(x, 0.5), 0.5);
/// ```
pub mod scalar {
    pub use crate::ops::unary::kernel::*;

    use crate::base::dtype::Float;

    /// The larger of two numbers, as [`Tensor::maximum`](crate::Tensor::maximum).
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::maximum(1.0_f64, 2.0), 2.0);
    /// ```
    #[inline]
    pub fn maximum<T: Float>(a: T, b: T) -> T {
        crate::base::primal::maximum(a, b)
    }

    /// [`Tensor::atan2`](crate::Tensor::atan2) of two numbers.
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::atan2(0.0_f64, 1.0), 0.0);
    /// ```
    #[inline]
    pub fn atan2<T: Float>(y: T, x: T) -> T {
        num_traits::Float::atan2(y, x)
    }

    /// [`Tensor::hypot`](crate::Tensor::hypot) of two numbers.
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::hypot(3.0_f64, 4.0), 5.0);
    /// ```
    #[inline]
    pub fn hypot<T: Float>(x: T, y: T) -> T {
        num_traits::Float::hypot(x, y)
    }

    /// [`Tensor::pow`](crate::Tensor::pow) of two numbers.
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::pow(2.0_f64, 3.0), 8.0);
    /// ```
    #[inline]
    pub fn pow<T: Float>(x: T, y: T) -> T {
        num_traits::Float::powf(x, y)
    }

    /// [`Tensor::log`](crate::Tensor::log) of two numbers.
    ///
    /// ```
    /// assert!((gradtape_runtime::generated::scalar::log(8.0_f64, 2.0) - 3.0).abs() < 1e-14);
    /// ```
    #[inline]
    pub fn log<T: Float>(x: T, base: T) -> T {
        num_traits::Float::log(x, base)
    }

    /// The smaller of two numbers, as [`Tensor::minimum`](crate::Tensor::minimum).
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::minimum(1.0_f64, 2.0), 1.0);
    /// ```
    #[inline]
    pub fn minimum<T: Float>(a: T, b: T) -> T {
        crate::base::primal::minimum(a, b)
    }
}

/// What one recorded op keeps, for the test that holds the runtime to the vocabulary of
/// ops: its name, its number of inputs, and what each saved value is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedNode {
    /// The op's name.
    pub op: &'static str,
    /// How many inputs the node has.
    pub inputs: usize,
    /// Each saved value, in the node's order: an input (found by the node it is), the
    /// output, or something else (`Derived`). Telling inputs apart needs every input tracked.
    pub saved: Vec<gradtape_primitives::Saved>,
}

/// Every op node `tape` holds, in order (watched values and variable reads left out).
///
/// ```
/// use gradtape_primitives::Saved;
/// use gradtape_runtime::{GradientTape, Tensor, generated};
/// let x = Tensor::scalar(0.5_f64);
/// let tape = GradientTape::persistent();
/// tape.watch(&x);
/// tape.record(|| x.exp());
/// let nodes = generated::recorded_nodes(&tape);
/// assert_eq!(nodes[0].op, "exp");
/// assert_eq!(nodes[0].saved, [Saved::Output]); // d/dx eˣ = eˣ: the output is kept
/// ```
pub fn recorded_nodes(tape: &crate::GradientTape) -> Vec<RecordedNode> {
    use crate::record::node::NO_NODE;
    tape.with_state(|state| {
        let records = state.records();
        (0..records.records.len())
            .filter(|&index| !records.is_leaf(index))
            .map(|index| {
                // (a compact record is seen as the general node it stands for)
                let (node, saved) = records.to_general(index, &state.saved);
                let saved = saved
                    .iter()
                    .map(|value| {
                        let found = state.lookup(value.id());
                        if found != NO_NODE && found as usize == index {
                            gradtape_primitives::Saved::Output
                        } else if let Some(k) = node
                            .inputs
                            .iter()
                            .position(|&input| found != NO_NODE && input == found)
                        {
                            gradtape_primitives::Saved::Input(k)
                        } else {
                            gradtape_primitives::Saved::Derived
                        }
                    })
                    .collect();
                RecordedNode {
                    op: node.op,
                    inputs: node.inputs.len(),
                    saved,
                }
            })
            .collect()
    })
}

/// How many records and cotangent slots this thread keeps for reuse after its tapes are
/// done: bounded, so one huge gradient does not keep its memory until the thread exits.
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, generated};
/// let x = Tensor::scalar(1.0_f64);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| x.sin());
/// drop(tape.gradient(&y, &x));
/// drop(tape);
/// assert!(generated::spare_capacity() <= generated::MAX_SPARE_RECORDS);
/// ```
pub fn spare_capacity() -> usize {
    crate::record::state::spare_record_capacity().max(crate::tape::backward_scratch_capacity())
}

/// The bound on [`spare_capacity`].
pub const MAX_SPARE_RECORDS: usize = crate::record::state::MAX_SPARE_RECORDS;

/// The order a stable `values.sort_by(compare)` puts `values` in, as indices: `order`
/// (given `0..n`) sorted by comparing the values at its indices, by the same stable sort
/// making the same comparisons, so `values[order[k]]` is the `k`-th value sorted (ties
/// kept in their order, as `sort_by` keeps them); whether any index moved. Generated code
/// of a `sort_by` of a differentiable array decides the permutation here, on the values,
/// then exchanges the elements themselves (whose cotangents follow them).
///
/// ```
/// use gradtape_runtime::generated;
/// let values = [0.5_f64, -1.0, 0.5, 2.0];
/// let mut order: Vec<usize> = (0..values.len()).collect();
/// assert!(generated::sort_order(&mut order, &values, |a, b| a.total_cmp(b)));
/// assert_eq!(order, [1, 0, 2, 3]);
/// ```
pub fn sort_order<T>(
    order: &mut [usize],
    values: &[T],
    mut compare: impl FnMut(&T, &T) -> std::cmp::Ordering,
) -> bool {
    order.sort_by(|&i, &j| compare(&values[i], &values[j]));
    order.iter().enumerate().any(|(k, &i)| k != i)
}
