//! The thread-local context every floor reads: whether any tape records (the one check an
//! op makes) and how many batch axes the cotangents of the running sweep carry. The floors
//! above set them (the tape stack, a jacobian's sweep); the floors below only read them, so
//! they live here, under both.

use std::cell::Cell;

use crate::base::tensor::Dims;

thread_local! {
    /// How many tapes on this thread's stack, above its floor, are recording (not paused).
    static RECORDING: Cell<u32> = const { Cell::new(0) };
}

/// Whether any tape on this thread is recording.
#[inline]
pub(crate) fn any_recording() -> bool {
    RECORDING.with(Cell::get) != 0
}

/// How many recorders (tapes recording, forward accumulators accumulating) see an op now.
#[inline]
pub(crate) fn recorders() -> u32 {
    RECORDING.with(Cell::get)
}

/// Counts tapes starting (`+1`) or stopping (`-1`) to record; only the tape stack calls it.
pub(crate) fn adjust_recording(delta: i32) {
    RECORDING.with(|count| count.set(count.get().wrapping_add_signed(delta)));
}

/// Sets the count, returning the previous one: the tape stack suspends every tape with 0
/// and restores the saved count afterwards.
pub(crate) fn replace_recording(count: u32) -> u32 {
    RECORDING.with(|cell| cell.replace(count))
}

thread_local! {
    /// Leading batch axes of the cotangents in the sweep running now on this thread.
    static BATCH_RANK: Cell<usize> = const { Cell::new(0) };
}

/// How many leading batch axes every cotangent in the running backward sweep carries: 0
/// in a plain `gradient`, 1 in a jacobian's vectorised sweep.
#[inline]
pub(crate) fn batch_rank() -> usize {
    BATCH_RANK.with(Cell::get)
}

/// Sets the batch rank until the guard drops (also on unwinding).
pub(crate) fn enter_batch(rank: usize) -> BatchGuard {
    BatchGuard(BATCH_RANK.with(|cell| cell.replace(rank)))
}

/// Restores the previous batch rank when dropped.
pub(crate) struct BatchGuard(usize);

impl Drop for BatchGuard {
    fn drop(&mut self) {
        BATCH_RANK.with(|cell| cell.set(self.0));
    }
}

/// `shape` behind the batch axes of the cotangent whose shape is `g`: the shape a
/// cotangent of a value of shape `shape` has in the running sweep.
#[inline]
pub(crate) fn batched_shape(g: &[usize], shape: &[usize]) -> Dims {
    let k = batch_rank();
    let mut out: Dims = g[..k].into();
    out.extend_from_slice(shape);
    out
}
