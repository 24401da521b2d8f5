//! Analysis, between lowering and generation: it reads the IR and decides what the
//! generated code must do, changing nothing ([`saves`]: which values the adjoint needs and
//! whether it is batch-safe; [`zero_d`]: whether the body also runs on plain numbers).

pub mod saves;
pub mod zero_d;
