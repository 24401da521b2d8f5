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
//! library cannot ask its users to set. So the first tape a process builds allocates and
//! frees one block just under the 32 MiB cap. The cost is that a process keeps up to about
//! 62 MiB of freed heap for reuse instead of returning it at once. Other allocators (and
//! other C libraries) only see one allocation of 31 MiB, never touched, freed at once.

use std::sync::Once;

/// The block's size: under glibc's 32 MiB cap on the dynamic threshold with room for its
/// chunk header and page rounding (the cap applies to the mapped size).
const PRIMING_BYTES: usize = 31 << 20;

/// Raises glibc's `mmap` threshold once per process (see the module docs). Called by the
/// first tape, and by `#[differentiable]` code that keeps stacks for its loops (whose
/// tape-free `grad`/`grad_into` never build a tape: a gradient over 10⁵ elements would
/// otherwise map, fault in and unmap its stacks on every call).
pub fn keep_large_buffers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // black_box: an allocation that is never used may otherwise be elided
        let block: Vec<u8> = std::hint::black_box(Vec::with_capacity(PRIMING_BYTES));
        drop(block);
    });
}
