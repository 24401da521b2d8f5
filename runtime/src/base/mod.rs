//! The floor everything stands on: element types, tensors and their type-erased form, the
//! thread-local context (whether anything records, a sweep's batch axes), the registry of
//! cut gradient paths, and splitting work over two threads. Nothing here knows of tapes.

pub(crate) mod context;
pub(crate) mod cuts;
pub(crate) mod dtype;
pub(crate) mod parallel;
pub(crate) mod primal;
pub(crate) mod tensor;
