//! The `#[differentiable]` attribute of [gradtape](https://docs.rs/gradtape): compile-time
//! source transformation of a Rust function into forward code that saves what its adjoint
//! needs, plus the adjoint (pullback) itself, built from the function's own syntax.
//!
//! Phases, one file each (private modules): `args` (attribute arguments), `sig` (the signature model),
//! `lower` (the body into the `ir`, rejecting what cannot be differentiated),
//! `analyse` (which values the adjoint needs), `fast` (whether a tensor function can
//! also run on plain numbers when its inputs are 0-d), `expand` (code generation),
//! `fallback` (the original item plus the errors). Errors are collected in a `ctxt::Ctxt`.

mod analyse;
mod args;
mod ctxt;
mod expand;
mod fallback;
mod fast;
mod ir;
mod lower;
mod sig;

use proc_macro::TokenStream;

/// Differentiates a function at compile time. See the `gradtape` crate for the guide.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(input as syn::ItemFn);
    expand::differentiable(args.into(), item).into()
}
