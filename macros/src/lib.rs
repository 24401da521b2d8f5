//! The `#[differentiable]` attribute of [gradtape](https://docs.rs/gradtape): compile-time
//! source transformation of a Rust function into forward code that saves what its adjoint
//! needs, plus the adjoint (pullback) itself, built from the function's own syntax.
//!
//! A pipeline of phases, one module each (private), run by `expand`:
//!
//! 1. parse: `args` (the attribute's arguments), `model::sig` (the signature model);
//! 2. validate: `validate`, every rejection (errors collected in a `ctxt::Ctxt`);
//! 3. lower: `returns` (early returns into branches), then `lower` (the body into the
//!    `model::ir`), asking `vocabulary` (read from `gradtape-primitives`) what each op is;
//! 4. analyse: `analyse::saves` (what the adjoint needs), `analyse::zero_d` (whether the
//!    body also runs on plain numbers);
//! 5. generate: `generate` (forward, adjoint, the wrapper function, the companion type);
//!
//! or, on any error, `fallback` (the original item plus every error).

mod analyse;
mod args;
mod ctxt;
mod expand;
mod fallback;
mod generate;
mod lower;
mod model;
mod returns;
mod syntax;
mod validate;
mod vocabulary;

use proc_macro::TokenStream;

/// Differentiates a function at compile time. See the `gradtape` crate for the guide.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(input as syn::ItemFn);
    expand::differentiable(args.into(), item).into()
}
