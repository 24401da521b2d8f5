//! Where values left the differentiable world while a tape recorded ("cuts"): the registry
//! [`GradientTape::explain`](crate::GradientTape::explain) reads to say why a gradient is
//! `None`. Tensors note what they export and import, casts note integer round trips, and the
//! tape stack passes a cut on from an op's inputs to its output; all of it only while some
//! tape records, so plain code pays nothing. Its limits are documented on
//! [`Explanation`](crate::Explanation).

use std::cell::{Cell, RefCell};
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use crate::base::dtype::{DType, is_float};
use crate::base::tensor::TensorId;

/// At most this many cuts and exports are remembered per thread.
pub(crate) const MAX_CUTS: usize = 1 << 16;

/// Where a gradient path was cut.
///
/// ```
/// use gradtape_runtime::{CutCause, Explanation, GradientTape, Tensor};
/// let x = Tensor::from_vec(vec![1.5_f32, 2.5], &[2]);
/// let tape = GradientTape::persistent();
/// tape.watch(&x);
/// let y = tape.record(|| x.cast::<i32>().cast::<f32>().sum());
/// let cause = CutCause::IntegerCast { dtype: "i32" };
/// assert_eq!(tape.explain(&y, &x), Explanation::PathCut { cause });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutCause {
    /// The value went through an integer dtype (`cast::<i32>()` and back, or a cast of
    /// integer data), which has no gradient.
    IntegerCast {
        /// The integer dtype, e.g. `"i32"`.
        dtype: &'static str,
    },
    /// The elements were read out (`to_vec`, `to_ndarray`) and a new tensor was built from
    /// them (`from_vec`, `Tensor::from(array)`): a constant to every tape.
    LeftLibrary,
}

#[derive(Clone, Copy)]
pub(crate) struct Cut {
    pub(crate) cause: CutCause,
    /// The float tensor whose value was carried across the cut, if known.
    pub(crate) origin: Option<TensorId>,
}

thread_local! {
    /// Whether `CUTS` may be non-empty: the one check every recorded op makes, kept in a
    /// const-initialised cell so that it costs a load.
    static HAS_CUTS: Cell<bool> = const { Cell::new(false) };
    /// Whether `CUTS` or `EXPORTS` may be non-empty (set by every insert, cleared by
    /// `new_epoch`): a recording that noted nothing, the usual one, then starts with one
    /// load, not a visit to each lazily initialised map.
    static NOTED: Cell<bool> = const { Cell::new(false) };
    static CUTS: RefCell<FxHashMap<TensorId, Cut>> = RefCell::new(FxHashMap::default());
    /// Hash of the elements of a float tensor read out while recording → that tensor.
    static EXPORTS: RefCell<FxHashMap<u64, TensorId>> = RefCell::new(FxHashMap::default());
}

fn hash_elements<T: DType>(values: impl Iterator<Item = T>) -> u64 {
    let mut hasher = FxHasher::default();
    for v in values {
        v.to_f64().to_bits().hash(&mut hasher);
    }
    hasher.finish()
}

fn insert_cut(id: TensorId, cut: Cut) {
    CUTS.with(|cuts| {
        let mut cuts = cuts.borrow_mut();
        if cuts.len() < MAX_CUTS {
            cuts.entry(id).or_insert(cut);
            HAS_CUTS.with(|has| has.set(true));
            NOTED.with(|noted| noted.set(true));
        }
    });
}

/// Forgets the cuts of earlier recordings: called when an outermost `record` begins, so
/// that the registry's memory is bounded by one recording's cuts.
#[inline]
pub(crate) fn new_epoch() {
    if NOTED.with(Cell::get) {
        forget_cuts();
    }
}

/// [`new_epoch`] once a recording noted a cut or an export: out of line, so that entering
/// a scope after recordings that noted none costs one flag's test.
#[inline(never)]
fn forget_cuts() {
    NOTED.with(|noted| noted.set(false));
    HAS_CUTS.with(|has| has.set(false));
    CUTS.with(|cuts| {
        if !cuts.borrow().is_empty() {
            cuts.borrow_mut().clear();
        }
    });
    EXPORTS.with(|exports| {
        if !exports.borrow().is_empty() {
            exports.borrow_mut().clear();
        }
    });
}

/// A cast from `T` to `U` produced the untracked tensor `out` from `input`.
pub(crate) fn note_cast<T: DType, U: DType>(input: TensorId, out: TensorId) {
    if !crate::base::context::any_recording() {
        return;
    }
    let inherited = CUTS.with(|cuts| cuts.borrow().get(&input).copied());
    match (is_float::<T>(), is_float::<U>()) {
        (true, false) => insert_cut(
            out,
            Cut {
                cause: CutCause::IntegerCast { dtype: U::NAME },
                origin: Some(input),
            },
        ),
        (false, true) => insert_cut(
            out,
            Cut {
                cause: CutCause::IntegerCast { dtype: T::NAME },
                origin: inherited.and_then(|c| c.origin),
            },
        ),
        _ => {}
    }
}

/// The elements of the tensor `id` were read out.
pub(crate) fn note_export<T: DType>(id: TensorId, values: impl Iterator<Item = T>, len: usize) {
    if len < 2 || !is_float::<T>() || !crate::base::context::any_recording() {
        return;
    }
    let hash = hash_elements(values);
    EXPORTS.with(|exports| {
        let mut exports = exports.borrow_mut();
        if exports.len() < MAX_CUTS {
            exports.insert(hash, id);
            NOTED.with(|noted| noted.set(true));
        }
    });
}

/// A tensor `id` was built from elements that came from outside.
pub(crate) fn note_import<T: DType>(id: TensorId, values: impl Iterator<Item = T>, len: usize) {
    if len < 2 || !is_float::<T>() || !crate::base::context::any_recording() {
        return;
    }
    if EXPORTS.with(|exports| exports.borrow().is_empty()) {
        return;
    }
    let hash = hash_elements(values);
    if let Some(origin) = EXPORTS.with(|exports| exports.borrow().get(&hash).copied()) {
        let cut = Cut {
            cause: CutCause::LeftLibrary,
            origin: Some(origin),
        };
        insert_cut(id, cut);
    }
}

/// Passes a cut carried by one of `inputs` on to `out` (called for ops run while a tape
/// records; one thread-local check when nothing was cut).
#[inline]
pub(crate) fn propagate(inputs: &[TensorId], out: TensorId) {
    if !HAS_CUTS.with(Cell::get) {
        return;
    }
    let found = CUTS.with(|cuts| {
        let cuts = cuts.borrow();
        inputs.iter().find_map(|id| cuts.get(id).copied())
    });
    if let Some(cut) = found {
        insert_cut(out, cut);
    }
}

/// The cut `id` carries, if any.
pub(crate) fn cut_of(id: TensorId) -> Option<Cut> {
    CUTS.with(|cuts| cuts.borrow().get(&id).copied())
}
