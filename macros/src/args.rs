//! Parsing the attribute's arguments (the first phase, with `model::sig`): it takes the tokens
//! of `#[differentiable(..)]` and gives [`Args`]: `#[differentiable]` or `#[differentiable(dump)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

use crate::ctxt::Ctxt;

/// What the attribute was asked for.
#[derive(Default)]
pub struct Args {
    /// Print the generated forward and adjoint code at build time.
    pub dump: bool,
}

/// Parses the arguments, recording an error for anything unknown.
pub fn parse(cx: &Ctxt, tokens: TokenStream) -> Args {
    let mut args = Args::default();
    let parser = Punctuated::<Ident, Token![,]>::parse_terminated;
    match parser.parse2(tokens) {
        Ok(idents) => {
            for ident in idents {
                if ident == "dump" {
                    args.dump = true;
                } else {
                    cx.error_spanned_by(
                        &ident,
                        format_args!(
                            "unknown argument `{ident}`: #[differentiable] takes only `dump` (print the generated code at build time)"
                        ),
                    );
                }
            }
        }
        Err(error) => cx.syn_error(error),
    }
    args
}
