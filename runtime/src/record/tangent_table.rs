//! An accumulator's tangents by tensor id: a dense run of slots for the ids its scope is
//! creating now, and a hash map for every other id.
//!
//! Tensor ids come from counters (a per-thread one for plain ids, a tape's node count for
//! the ids a tape hands out), so the outputs an accumulator sees in a loop have increasing
//! ids with small gaps (the ids its JVP rules' own ops take). Keeping those in slots
//! indexed by `id - base` makes a lookup a subtraction, a shift and a bounds check, and an
//! insert a store, where a hash map hashes, probes, and rehashes as it grows (17% of W2's
//! instructions under an accumulator: docs/PERFORMANCE.md, "Forward mode and
//! checkpointing"). The slots live in fixed-size pages, so the run grows without copying
//! what it holds (a doubling `Vec` of 100,000 slots copied 60 instructions' worth per op).

//!
//! A slot is plain data (`Copy`): a 0-d tangent computed on numbers is kept as the number
//! itself, and any other tangent as an index into a list of tensors. So storing a scalar
//! program's tangent makes no tensor (no fresh id), and dropping the table visits no slot
//! (docs/PERFORMANCE.md, "Forward mode and checkpointing").

use rustc_hash::FxHashMap;

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Tensor, TensorId};

/// A run may hold at most this many slots per tangent it holds, plus [`RUN_SLACK`]: it
/// never costs more than that many times the memory of its tangents' slots. An id past a
/// longer gap starts a new run.
const RUN_SPARSITY: usize = 8;
/// Empty slots a run may hold whatever its count (the first gaps of a new run).
const RUN_SLACK: usize = 64;
/// Slots per page: `1 << PAGE_BITS`.
const PAGE_BITS: u32 = 7;
const PAGE: usize = 1 << PAGE_BITS;

/// Where a tangent is: nowhere (`EMPTY`), in `value` as a number of dtype `f32`
/// (`SINGLE`, widened to `f64` exactly) or `f64` (`DOUBLE`), or in `tensors[index]`
/// (`TENSOR`). A number has no tensor, so no identity, until [`TangentTable::tensor`]
/// gives it one.
///
/// Plain fields rather than an enum with data: a slot is written field by field straight
/// into its page. An enum value was built on the stack and copied in with one 16-byte
/// load of its narrower stores, a store-forwarding stall per op (perf: half the time of
/// the number path).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    kind: u32,
    index: u32,
    value: f64,
}

const EMPTY: u32 = 0;
const SINGLE: u32 = 1;
const DOUBLE: u32 = 2;
const TENSOR: u32 = 3;

impl Slot {
    #[inline(always)]
    fn is_empty(self) -> bool {
        self.kind == EMPTY
    }
}

/// A page of slots.
type Page = Box<[Slot; PAGE]>;

fn empty_page() -> Page {
    // built on the heap: `Box::new` of an array built it on the stack and copied it over
    let slots: Box<[Slot]> = vec![Slot::default(); PAGE].into_boxed_slice();
    slots.try_into().expect("PAGE slots")
}

/// A tangent as the table holds it.
pub(crate) enum Tangent<'a> {
    /// A 0-d tangent kept as a number (see [`TangentTable::insert_number`]).
    Number {
        value: f64,
        single: bool,
    },
    Tensor(&'a AnyTensor),
}

/// Tangents by tensor id.
///
/// Invariant: every key of `older` is below `base`, and `base` never decreases; so an id
/// is in at most one of the two places, and `filled` counts the non-empty slots of the
/// run. Every `Slot::Tensor(k)` has `k < tensors.len()`.
#[derive(Default)]
pub(crate) struct TangentTable {
    /// The tangent of id `base + k` is slot `k % PAGE` of page `k / PAGE`, for `k < len`;
    /// slots at `len` and past it are empty.
    base: u64,
    len: usize,
    pages: Vec<Page>,
    /// How many slots of the run hold a tangent.
    filled: usize,
    /// Tangents of ids below `base`: the primals, values created before the run began,
    /// and runs given up for a newer one.
    older: FxHashMap<TensorId, Slot>,
    /// The tangents held as tensors. A replaced one stays until the table drops (a
    /// tangent is rarely set twice: a primal given again, a variable read again).
    tensors: Vec<AnyTensor>,
    /// Whether a tangent was ever kept as a number here (some may still be).
    numbers: bool,
}

impl TangentTable {
    /// Where the tangent of `id` is (`Slot::Empty` if it has none).
    #[inline(always)]
    fn slot(&self, id: TensorId) -> Slot {
        // below `base`, the subtraction wraps past any length
        let offset = id.0.wrapping_sub(self.base);
        if offset < self.len as u64 {
            let k = offset as usize;
            return self.pages[k >> PAGE_BITS][k & (PAGE - 1)];
        }
        if id.0 < self.base && !self.older.is_empty() {
            return self.older.get(&id).copied().unwrap_or_default();
        }
        Slot::default()
    }

    /// The tangent of `id`, if it has one.
    #[inline]
    pub(crate) fn get(&self, id: TensorId) -> Option<Tangent<'_>> {
        let slot = self.slot(id);
        match slot.kind {
            EMPTY => None,
            TENSOR => Some(Tangent::Tensor(&self.tensors[slot.index as usize])),
            kind => Some(Tangent::Number {
                value: slot.value,
                single: kind == SINGLE,
            }),
        }
    }

    /// The tangent of `id` as a number of dtype `T`: `Some(None)` if it has none,
    /// `Some(Some(v))` if it is a 0-d value stored inline (a number, or a 0-d tensor), and
    /// `None` if it is any other tensor.
    ///
    /// # Panics
    /// If the tangent is not of dtype `T` (a rule reading an input as the wrong type).
    #[inline(always)]
    pub(crate) fn number<T: Float>(&self, id: TensorId) -> Option<Option<T>> {
        let slot = self.slot(id);
        match slot.kind {
            EMPTY => Some(None),
            TENSOR => {
                let tensor = self.tensors[slot.index as usize].typed::<T>();
                Some(Some(tensor.as_inline_scalar()?))
            }
            kind => {
                assert_eq!(
                    kind == SINGLE,
                    T::SINGLE,
                    "forward mode: a tangent read as the wrong dtype (a bug in gradtape)"
                );
                Some(Some(T::from_f64(slot.value)))
            }
        }
    }

    /// Whether `id` has a tangent.
    #[inline]
    pub(crate) fn contains(&self, id: TensorId) -> bool {
        !self.slot(id).is_empty()
    }

    /// Whether a tangent may be kept as a number here: `false` means none is, and
    /// [`TangentTable::is_number`] need not be asked.
    #[inline]
    pub(crate) fn holds_numbers(&self) -> bool {
        self.numbers
    }

    /// Whether the tangent of `id` is kept as a number (has no tensor yet).
    #[inline]
    pub(crate) fn is_number(&self, id: TensorId) -> bool {
        matches!(self.slot(id).kind, SINGLE | DOUBLE)
    }

    /// The tangent of `id` as a tensor, if it has one: a tangent kept as a number gets its
    /// tensor now (a new 0-d constant), which it keeps, so every later read sees the same
    /// tensor.
    pub(crate) fn tensor(&mut self, id: TensorId) -> Option<&AnyTensor> {
        let slot = self.slot(id);
        let index = match slot.kind {
            EMPTY => return None,
            TENSOR => slot.index,
            kind => self.push_tensor(id, number_tensor(slot.value, kind == SINGLE)),
        };
        Some(&self.tensors[index as usize])
    }

    /// The tangent of `id` as the tensor it is kept as, if it has one.
    ///
    /// # Panics
    /// If the tangent is kept as a number: [`TangentTable::tensor`] gives it its tensor.
    #[inline]
    pub(crate) fn kept_tensor(&self, id: TensorId) -> Option<&AnyTensor> {
        match self.get(id)? {
            Tangent::Tensor(t) => Some(t),
            Tangent::Number { .. } => {
                panic!(
                    "forward mode: a tangent read as a tensor before it has one (a bug in gradtape)"
                )
            }
        }
    }

    /// Sets the tangent of `id`, replacing any it had.
    #[inline]
    pub(crate) fn insert(&mut self, id: TensorId, tangent: AnyTensor) {
        self.push_tensor(id, tangent);
    }

    /// Keeps `tangent` as the tangent of `id`; returns its index in `tensors`.
    fn push_tensor(&mut self, id: TensorId, tangent: AnyTensor) -> u32 {
        let index = u32::try_from(self.tensors.len()).expect("fewer than 2^32 tensor tangents");
        self.tensors.push(tangent);
        let slot = self.slot_mut(id);
        slot.kind = TENSOR;
        slot.index = index;
        index
    }

    /// Sets the tangent of `id` to the 0-d `value`, kept as a number: for a tangent that no
    /// tape or other accumulator saw computed (so no record knows it as a tensor).
    #[inline(always)]
    pub(crate) fn insert_number<T: Float>(&mut self, id: TensorId, value: T) {
        self.numbers = true;
        let slot = self.slot_mut(id);
        slot.kind = if T::SINGLE { SINGLE } else { DOUBLE };
        slot.value = value.to_f64();
    }

    /// The slot of `id`, to be filled: counted as filled from now on.
    #[inline(always)]
    fn slot_mut(&mut self, id: TensorId) -> &mut Slot {
        let offset = id.0.wrapping_sub(self.base);
        if offset < self.len as u64 {
            let k = offset as usize;
            let slot = &mut self.pages[k >> PAGE_BITS][k & (PAGE - 1)];
            self.filled += usize::from(slot.is_empty());
            slot
        } else if id.0 < self.base {
            self.older.entry(id).or_default()
        } else if offset < ((self.filled + 1) * RUN_SPARSITY + RUN_SLACK) as u64 {
            // past the run's end, which stays dense enough: extend it (the usual case, an
            // op's output); the slots in between are empty already
            let k = offset as usize;
            while self.pages.len() <= k >> PAGE_BITS {
                self.pages.push(empty_page());
            }
            self.len = k + 1;
            self.filled += 1;
            &mut self.pages[k >> PAGE_BITS][k & (PAGE - 1)]
        } else {
            self.restart_at(id)
        }
    }

    /// Moves the run into `older` and starts a new one at `id` (past the run's end, too far
    /// to extend it); returns `id`'s slot.
    #[cold]
    fn restart_at(&mut self, id: TensorId) -> &mut Slot {
        // Each tangent moves to `older` at most once, so this costs O(1) per insert overall.
        for k in 0..self.len {
            let old = std::mem::take(&mut self.pages[k >> PAGE_BITS][k & (PAGE - 1)]);
            if !old.is_empty() {
                self.older.insert(TensorId(self.base + k as u64), old);
            }
        }
        // The pages are empty again (slots past `len` always were): the new run reuses them.
        self.base = id.0;
        self.len = 1;
        self.filled = 1;
        if self.pages.is_empty() {
            self.pages.push(empty_page());
        }
        &mut self.pages[0][0]
    }

    /// How many ids have a tangent.
    pub(crate) fn len(&self) -> usize {
        self.filled + self.older.len()
    }
}

/// A tangent kept as a number, as a 0-d tensor of its dtype (a new constant).
fn number_tensor(value: f64, single: bool) -> AnyTensor {
    if single {
        // exact: the number holds an `f32` value
        AnyTensor::F32(Tensor::scalar(value as f32))
    } else {
        AnyTensor::F64(Tensor::scalar(value))
    }
}

impl Tangent<'_> {
    /// The tangent as a tensor: a number becomes a new 0-d constant (not kept: see
    /// [`TangentTable::tensor`] for the one that is).
    pub(crate) fn to_tensor(&self) -> AnyTensor {
        match *self {
            Tangent::Number { value, single } => number_tensor(value, single),
            Tangent::Tensor(t) => t.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::tensor::Tensor;

    fn tangent(v: f64) -> AnyTensor {
        AnyTensor::F64(Tensor::scalar(v))
    }

    fn value(table: &TangentTable, id: u64) -> Option<f64> {
        table.number::<f64>(TensorId(id)).expect("0-d")
    }

    #[test]
    fn ids_in_any_order_keep_their_tangents() {
        let mut table = TangentTable::default();
        // a run with gaps, an older id, an id far past the run (a new run), an id between
        // the two runs, a tape-encoded id, and a replacement in each place
        let ids = [
            100,
            102,
            103,
            107,
            5,
            1_000_000,
            500,
            1 << 63 | 7,
            102,
            5,
            1_000_000,
        ];
        for (k, &id) in ids.iter().enumerate() {
            table.insert(TensorId(id), tangent(k as f64));
        }
        assert_eq!(value(&table, 100), Some(0.0));
        assert_eq!(value(&table, 102), Some(8.0));
        assert_eq!(value(&table, 103), Some(2.0));
        assert_eq!(value(&table, 107), Some(3.0));
        assert_eq!(value(&table, 5), Some(9.0));
        assert_eq!(value(&table, 1_000_000), Some(10.0));
        assert_eq!(value(&table, 500), Some(6.0));
        assert_eq!(value(&table, 1 << 63 | 7), Some(7.0));
        for absent in [0, 4, 6, 101, 104, 108, 999_999, 1_000_001, 1 << 63] {
            assert_eq!(value(&table, absent), None, "id {absent}");
        }
        assert_eq!(table.len(), 8);
    }

    #[test]
    fn numbers_are_kept_until_read_as_tensors() {
        let mut table = TangentTable::default();
        table.insert_number(TensorId(10), 1.5_f64);
        table.insert_number(TensorId(11), 2.5_f32);
        table.insert(TensorId(12), tangent(3.5));
        assert!(table.holds_numbers());
        assert!(table.is_number(TensorId(10)) && table.is_number(TensorId(11)));
        assert!(!table.is_number(TensorId(12)) && !table.is_number(TensorId(13)));
        assert_eq!(table.number::<f64>(TensorId(10)), Some(Some(1.5)));
        assert_eq!(table.number::<f32>(TensorId(11)), Some(Some(2.5)));
        assert_eq!(table.number::<f64>(TensorId(12)), Some(Some(3.5)));
        assert_eq!(table.number::<f64>(TensorId(13)), Some(None));
        // read as a tensor, a number gets one tensor, of its dtype, the same every time
        let first = table.tensor(TensorId(11)).unwrap().typed::<f32>().clone();
        assert_eq!(first.to_scalar(), 2.5);
        assert!(!table.is_number(TensorId(11)));
        let again = table.kept_tensor(TensorId(11)).unwrap().typed::<f32>();
        assert_eq!(again.id(), first.id());
        // a new run far past this one moves the numbers to the map, still numbers
        table.insert_number(TensorId(1_000_000), 4.5_f64);
        assert!(table.is_number(TensorId(10)));
        assert_eq!(table.number::<f64>(TensorId(10)), Some(Some(1.5)));
        assert_eq!(table.number::<f64>(TensorId(1_000_000)), Some(Some(4.5)));
        assert_eq!(table.len(), 4);
        // a tensor that is not 0-d is no number
        let vector = AnyTensor::F64(Tensor::from_vec(vec![1.0, 2.0], &[2]));
        table.insert(TensorId(1_000_001), vector);
        assert_eq!(table.number::<f64>(TensorId(1_000_001)), None);
    }

    #[test]
    #[should_panic(expected = "read as the wrong dtype")]
    fn a_number_read_as_the_other_dtype_panics() {
        let mut table = TangentTable::default();
        table.insert_number(TensorId(10), 1.5_f32);
        let _ = table.number::<f64>(TensorId(10));
    }

    #[test]
    fn a_sparse_run_moves_to_the_map() {
        let mut table = TangentTable::default();
        // gaps of 1,000 ids: no run stays dense enough, every tangent is found all the same
        for k in 0..1_000_u64 {
            table.insert(TensorId(10 + 1_000 * k), tangent(k as f64));
        }
        assert!(table.len <= RUN_SLACK + RUN_SPARSITY);
        for k in 0..1_000_u64 {
            assert_eq!(value(&table, 10 + 1_000 * k), Some(k as f64));
            assert_eq!(value(&table, 11 + 1_000 * k), None);
        }
        assert_eq!(table.len(), 1_000);
    }

    #[test]
    fn a_dense_run_stays_in_the_vec() {
        let mut table = TangentTable::default();
        for k in 0..10_000_u64 {
            table.insert(TensorId(1 + 3 * k), tangent(k as f64));
        }
        assert!(table.older.is_empty());
        assert_eq!(table.len(), 10_000);
        assert_eq!(value(&table, 1 + 3 * 9_999), Some(9_999.0));
        assert_eq!(value(&table, 2 + 3 * 9_999), None);
    }
}
