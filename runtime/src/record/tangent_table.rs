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

use rustc_hash::FxHashMap;

use crate::base::dtype::AnyTensor;
use crate::base::tensor::TensorId;

/// A run may hold at most this many slots per tangent it holds, plus [`RUN_SLACK`]: it
/// never costs more than that many times the memory of its tangents' slots. An id past a
/// longer gap starts a new run.
const RUN_SPARSITY: usize = 8;
/// Empty slots a run may hold whatever its count (the first gaps of a new run).
const RUN_SLACK: usize = 64;
/// Slots per page: `1 << PAGE_BITS`.
const PAGE_BITS: u32 = 9;
const PAGE: usize = 1 << PAGE_BITS;

/// A page of slots.
type Page = Box<[Option<AnyTensor>; PAGE]>;

fn empty_page() -> Page {
    // built on the heap rather than moved there from the stack
    let slots: Box<[Option<AnyTensor>]> = (0..PAGE).map(|_| None).collect();
    slots.try_into().expect("PAGE slots")
}

/// Tangents by tensor id.
///
/// Invariant: every key of `older` is below `base`, and `base` never decreases; so an id
/// is in at most one of the two places, and `filled` counts the `Some` slots of the run.
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
    older: FxHashMap<TensorId, AnyTensor>,
}

impl TangentTable {
    /// The tangent of `id`, if it has one.
    #[inline]
    pub(crate) fn get(&self, id: TensorId) -> Option<&AnyTensor> {
        // below `base`, the subtraction wraps past any length
        let offset = id.0.wrapping_sub(self.base);
        if offset < self.len as u64 {
            return self.slot(offset as usize).as_ref();
        }
        if id.0 < self.base && !self.older.is_empty() {
            return self.older.get(&id);
        }
        None
    }

    /// Whether `id` has a tangent.
    #[inline]
    pub(crate) fn contains(&self, id: TensorId) -> bool {
        self.get(id).is_some()
    }

    /// Slot `k` of the run (`k < len`, or within the pages).
    #[inline(always)]
    fn slot(&self, k: usize) -> &Option<AnyTensor> {
        &self.pages[k >> PAGE_BITS][k & (PAGE - 1)]
    }

    /// Sets the tangent of `id`, replacing any it had.
    #[inline(always)]
    pub(crate) fn insert(&mut self, id: TensorId, tangent: AnyTensor) {
        let offset = id.0.wrapping_sub(self.base);
        let len = self.len;
        if offset < len as u64 {
            let k = offset as usize;
            let slot = &mut self.pages[k >> PAGE_BITS][k & (PAGE - 1)];
            self.filled += usize::from(slot.is_none());
            *slot = Some(tangent);
        } else if id.0 < self.base {
            self.older.insert(id, tangent);
        } else if offset < ((self.filled + 1) * RUN_SPARSITY + RUN_SLACK) as u64 {
            // past the run's end, which stays dense enough: extend it (the usual case, an
            // op's output); the slots in between are empty already
            let k = offset as usize;
            while self.pages.len() <= k >> PAGE_BITS {
                self.pages.push(empty_page());
            }
            self.pages[k >> PAGE_BITS][k & (PAGE - 1)] = Some(tangent);
            self.len = k + 1;
            self.filled += 1;
        } else {
            self.restart_at(id, tangent);
        }
    }

    /// Moves the run into `older` and starts a new one at `id` (past the run's end, too far
    /// to extend it).
    #[cold]
    fn restart_at(&mut self, id: TensorId, tangent: AnyTensor) {
        // Each tangent moves to `older` at most once, so this costs O(1) per insert overall.
        for k in 0..self.len {
            if let Some(tangent) = self.pages[k >> PAGE_BITS][k & (PAGE - 1)].take() {
                self.older.insert(TensorId(self.base + k as u64), tangent);
            }
        }
        // The pages are empty again (slots past `len` always were): the new run reuses them.
        self.base = id.0;
        self.len = 1;
        if self.pages.is_empty() {
            self.pages.push(empty_page());
        }
        self.pages[0][0] = Some(tangent);
        self.filled = 1;
    }

    /// How many ids have a tangent.
    pub(crate) fn len(&self) -> usize {
        self.filled + self.older.len()
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
        table
            .get(TensorId(id))
            .map(|t| t.typed::<f64>().to_scalar())
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
