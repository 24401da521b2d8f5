//! The floor everything stands on: element types, tensors and their type-erased form, the
//! thread-local context (whether anything records, a sweep's batch axes), the registry of
//! cut gradient paths, splitting work over two threads, and one hint to the allocator.
//! Nothing here knows of tapes.

pub(crate) mod alloc;
pub(crate) mod context;
pub(crate) mod cuts;
pub(crate) mod dtype;
pub(crate) mod parallel;
pub(crate) mod primal;
pub(crate) mod tensor;
