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
mod options;
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
pub use options::*;
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

    /// [`Tensor::rem`](crate::Tensor::rem) of two numbers: Rust's `%`.
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::rem(-7.5_f64, 2.0), -1.5);
    /// ```
    #[inline]
    pub fn rem<T: Float>(x: T, y: T) -> T {
        x % y
    }

    /// [`Tensor::rem_euclid`](crate::Tensor::rem_euclid) of two numbers, as
    /// `f64::rem_euclid` (which `num_traits::Float` has not).
    ///
    /// ```
    /// assert_eq!(gradtape_runtime::generated::scalar::rem_euclid(-7.5_f64, 2.0), 0.5);
    /// assert_eq!(gradtape_runtime::generated::scalar::rem_euclid(-7.5_f64, 2.0), (-7.5_f64).rem_euclid(2.0));
    /// ```
    #[inline]
    pub fn rem_euclid<T: Float>(x: T, y: T) -> T {
        crate::base::primal::rem_euclid_value(x, y)
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

/// The order the body's own in-place sort puts `values` in, as indices: `sort` (the body's
/// call, `|copy| copy.sort_unstable_by(compare)`, any `sort_*`/`select_nth_*` method) runs
/// on a copy of the values, the same call on the same values of the same type, so the copy
/// ends exactly as the body's array would, whatever the algorithm does with ties; then
/// `order` (given `0..n`) is made such that `values[order[k]]` is the copy's `k`-th value,
/// bit for bit. Each position is paired with an input of identical bits, which is unique
/// unless several inputs are identical: those are paired in their order (the first such
/// input to the first position holding it), the order a stable sort keeps, and the one
/// convention for them whichever the sort (identical inputs give identical values, so the
/// value is the body's; only which of them takes which cotangent is a convention, the
/// derivative at such a tie having no one value). Comparator ties of distinct values
/// (`-0.0` and `0.0` under `partial_cmp`, `-2.0` and `2.0` under a key `abs`) land where
/// the body's sort put them, with their cotangents. The comparator runs exactly as the
/// body's sort runs it (once per comparison the body makes, none more). Returns whether
/// any index moved. Generated code of a sort of a differentiable array decides the
/// permutation here, on the values, then exchanges the elements themselves (whose
/// cotangents follow them).
///
/// ```
/// use gradtape_runtime::generated;
/// let values = [0.5_f64, -1.0, 0.5, 2.0];
/// let mut order: Vec<usize> = (0..values.len()).collect();
/// assert!(generated::sort_order(&mut order, &values, |copy| copy.sort_unstable_by(|a, b| a.total_cmp(b))));
/// assert_eq!(order, [1, 0, 2, 3]);
/// // a key that ties `-2.0` and `2.0`: where the body's sort put each
/// let values = [2.0_f64, -2.0, 1.0];
/// let mut sorted = values;
/// sorted.sort_unstable_by(|a, b| a.abs().total_cmp(&b.abs()));
/// let mut order: Vec<usize> = (0..values.len()).collect();
/// generated::sort_order(&mut order, &values, |copy| copy.sort_unstable_by(|a, b| a.abs().total_cmp(&b.abs())));
/// for k in 0..3 {
///     assert_eq!(values[order[k]].to_bits(), sorted[k].to_bits());
/// }
/// ```
///
/// # Panics
///
/// When `sort` panics (a `partial_cmp(..).unwrap()` meeting a NaN), as the body's sort
/// does; and, were `sort` anything but a permutation of the copy (never in generated code),
/// rather than pair a value with an input that does not hold it.
pub fn sort_order<T: num_traits::Float>(
    order: &mut [usize],
    values: &[T],
    sort: impl FnOnce(&mut [T]),
) -> bool {
    let mut sorted = values.to_vec();
    sort(&mut sorted);
    // `integer_decode` is injective (sign, exponent and mantissa fields of the bits), so
    // equal keys are identical values; both index lists sorted stably by it, the `j`-th
    // input of a key pairs with the `j`-th position holding that key
    let bits = |v: T| v.integer_decode();
    let mut inputs: Vec<usize> = (0..values.len()).collect();
    inputs.sort_by_key(|&i| bits(values[i]));
    let mut positions: Vec<usize> = (0..sorted.len()).collect();
    positions.sort_by_key(|&k| bits(sorted[k]));
    assert_eq!(
        inputs.len(),
        positions.len(),
        "sort_order: the sort changed the length"
    );
    for (&i, &k) in inputs.iter().zip(&positions) {
        assert!(
            bits(values[i]) == bits(sorted[k]),
            "sort_order: the sort is no permutation of the values"
        );
        order[k] = i;
    }
    order.iter().enumerate().any(|(k, &i)| k != i)
}

/// Whether `Iterator::max_by(compare)` (`min_by` when `!max`), holding `best` and meeting
/// `item`, keeps the item: one step of its fold, decided by `std::cmp::max_by` (or
/// `min_by`) itself, as the iterator's fold decides it (`reduce` by `cmp::max_by(best,
/// item, compare)`), so ties (the last maximum, the first minimum), `total_cmp`'s order of
/// signed zeros and NaNs, and the comparator's calls (one per step, its arguments in the
/// same order) are the iterator's. `T` is the iterator's item (`&F` over `a.iter()`).
///
/// ```
/// use gradtape_runtime::generated;
/// let by = |a: &f64, b: &f64| a.partial_cmp(b).unwrap();
/// // equal under the comparison: `max_by` takes the later, `min_by` keeps the earlier
/// assert!(generated::by_comparison_takes(true, &0.0, &-0.0, by));
/// assert!(!generated::by_comparison_takes(false, &0.0, &-0.0, by));
/// assert!(!generated::by_comparison_takes(true, &0.0, &-0.0, |a: &f64, b: &f64| a.total_cmp(b)));
/// ```
pub fn by_comparison_takes<T>(
    max: bool,
    best: &T,
    item: &T,
    mut compare: impl FnMut(&T, &T) -> std::cmp::Ordering,
) -> bool {
    let by = |a: &(bool, &T), b: &(bool, &T)| compare(a.1, b.1);
    let taken = if max {
        std::cmp::max_by((false, best), (true, item), by)
    } else {
        std::cmp::min_by((false, best), (true, item), by)
    };
    taken.0
}

/// The key of the item `Iterator::max_by_key(key)` (or `min_by_key`) keeps, for generated
/// code running its fold as a loop: [`BestKey::takes`] computes each item's key once, in
/// order, as the iterator does, and decides as its fold decides (by `Ord::cmp` of the
/// keys through `std::cmp::max_by`/`min_by`: the last maximum, the first minimum).
///
/// ```
/// use gradtape_runtime::generated::BestKey;
/// let mut keys = BestKey::new();
/// let items = [1.5_f64, -2.0, 2.0, 0.5];
/// let kept: Vec<bool> = items.iter().map(|v| keys.takes(true, v, |v: &f64| v.abs() as i64)).collect();
/// // keys 1, 2, 2, 0: the first is kept, then `-2.0`, then `2.0` (an equal key: the later)
/// assert_eq!(kept, [true, true, true, false]);
/// ```
pub struct BestKey<B>(Option<B>);

impl<B: Ord> BestKey<B> {
    /// No item yet.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        BestKey(None)
    }

    /// Whether the fold keeps `item` (always the first), whose key `key` computes; the key
    /// kept is then its own.
    pub fn takes<T>(&mut self, max: bool, item: &T, key: impl FnOnce(&T) -> B) -> bool {
        let new = key(item);
        let taken = match &self.0 {
            None => true,
            Some(best) => {
                let by = |a: &(bool, &B), b: &(bool, &B)| a.1.cmp(b.1);
                if max {
                    std::cmp::max_by((false, best), (true, &new), by).0
                } else {
                    std::cmp::min_by((false, best), (true, &new), by).0
                }
            }
        };
        if taken {
            self.0 = Some(new);
        }
        taken
    }
}
