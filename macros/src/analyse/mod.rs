//! Analysis, between lowering and generation: it reads the IR and decides what the
//! generated code must do, changing nothing ([`saves`]: which values the adjoint needs and
//! whether it is batch-safe; [`zero_d`]: whether the body also runs on plain numbers;
//! [`local_reads`]: which reads of local arrays the adjoint may repeat in place;
//! [`reach`]: whether the body reads differentiable values the fused node cannot see, so
//! that it runs op by op; [`checkpoint`]: what a checkpointed body cannot have;
//! [`recursion`]: whether the pullback is boxed for cycles of calls).

pub mod checkpoint;
pub mod local_reads;
pub mod reach;
pub mod recursion;
pub mod saves;
pub mod zero_d;
