//! One allocation at the first tape that tells glibc's `malloc` to keep large buffers.
//!
//! glibc serves a request above its `mmap` threshold (128 KB at start) with a fresh
//! mapping and unmaps it on free, so a program that allocates and frees the same
//! multi-megabyte tensors every step pays a page fault per 4 KB each time (W8's training
//! step: about 10,000 faults, a quarter of its time; W6's jacobian, issue 17). glibc raises
//! the threshold by itself when a mapped block is freed, to that block's size (at most 32
//! MiB), and its heap-trimming threshold to twice that: from then on, blocks up to that
//! size come from the heap and are reused without faults, the same effect as
//! `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=…:glibc.malloc.trim_threshold=…`, which a
//! library cannot ask its users to set. So the first tape a process builds, or the first
//! tensor it stores above that starting threshold (a program that never records, such as
//! a primal evaluated on its own, allocates its temporaries all the same), allocates and
//! frees one block just under the 32 MiB cap. The cost is that a process keeps up to about
//! 62 MiB of freed heap for reuse instead of returning it at once. Other allocators (and
//! other C libraries) only see one allocation of 31 MiB, never touched, freed at once.

use std::sync::Once;

/// The block's size: under glibc's 32 MiB cap on the dynamic threshold with room for its
/// chunk header and page rounding (the cap applies to the mapped size).
const PRIMING_BYTES: usize = 31 << 20;

/// glibc's `mmap` threshold at start (`M_MMAP_THRESHOLD`'s default): arrays of at least
/// this many bytes are mapped afresh until [`keep_large_buffers`] has run.
const FIRST_MMAP_THRESHOLD: usize = 128 << 10;

/// Raises glibc's `mmap` threshold once per process (see the module docs). Called by the
/// first tape, by the first tensor of at least 128 KiB (`note_array`), and by
/// `#[differentiable]` code that keeps stacks for its loops (whose tape-free
/// `grad`/`grad_into` never build a tape: a gradient over 10⁵ elements would otherwise map,
/// fault in and unmap its stacks on every call).
pub fn keep_large_buffers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // black_box: an allocation that is never used may otherwise be elided
        let block: Vec<u8> = std::hint::black_box(Vec::with_capacity(PRIMING_BYTES));
        drop(block);
    });
}

/// Called where a tensor's array is stored: an array of `len` elements of `T` large enough
/// to have been mapped raises the threshold (see the module docs), so that the next
/// allocation of its size, and every later one, comes from the heap. One comparison for
/// any other array; after the first, one atomic load more for a large one.
#[inline]
pub(crate) fn note_array<T>(len: usize) {
    if mapped_at_first::<T>(len) {
        keep_large_buffers();
    }
}

/// Whether glibc, as it starts, maps an array of `len` elements of `T` afresh.
#[inline]
fn mapped_at_first<T>(len: usize) -> bool {
    len.saturating_mul(size_of::<T>()) >= FIRST_MMAP_THRESHOLD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_from_128_kib_on_are_the_ones_mapped_at_first() {
        assert!(!mapped_at_first::<f64>((128 << 10) / 8 - 1));
        assert!(mapped_at_first::<f64>((128 << 10) / 8));
        assert!(!mapped_at_first::<f32>((128 << 10) / 4 - 1));
        assert!(mapped_at_first::<f32>((128 << 10) / 4));
        // a length whose byte count overflows is large, not wrapped around to small
        assert!(mapped_at_first::<f64>(usize::MAX / 4));
    }
}
