//! The models the phases share: the signature ([`sig`], parsed first) and the body's IR
//! ([`ir`], what lowering gives).

pub mod ir;
pub mod sig;
