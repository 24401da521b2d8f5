//! Parsing the attribute's arguments (the first phase, with `model::sig`): it takes the tokens
//! of `#[differentiable(..)]` and gives [`Args`]: `#[differentiable]`,
//! `#[differentiable(dump)]`, `#[differentiable(constant(xs, ys))]`, or both.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Ident, Meta, Token};

use crate::ctxt::Ctxt;

/// What the attribute was asked for.
#[derive(Default)]
pub struct Args {
    /// Print the generated forward and adjoint code at build time.
    pub dump: bool,
    /// Float parameters (arrays, slices, `Vec`s, numbers) to hold constant: data, with no
    /// gradient (Enzyme's `Const` activity), as if they were of a non-float type.
    pub constant: Vec<Ident>,
}

const USAGE: &str = "#[differentiable] takes `dump` (print the generated code at build time) and `constant(a, b, ..)` (float parameters held constant, with no gradient)";

/// Parses the arguments, recording an error for anything unknown.
pub fn parse(cx: &Ctxt, tokens: TokenStream) -> Args {
    let mut args = Args::default();
    let parser = Punctuated::<Meta, Token![,]>::parse_terminated;
    match parser.parse2(tokens) {
        Ok(metas) => {
            for meta in metas {
                match &meta {
                    Meta::Path(path) if path.is_ident("dump") => args.dump = true,
                    Meta::List(list) if list.path.is_ident("constant") => {
                        let names = Punctuated::<Ident, Token![,]>::parse_terminated;
                        match names.parse2(list.tokens.clone()) {
                            Ok(names) => args.constant.extend(names),
                            Err(error) => cx.syn_error(error),
                        }
                    }
                    other => cx.error_spanned_by(other, format_args!("unknown argument: {USAGE}")),
                }
            }
        }
        Err(error) => cx.syn_error(error),
    }
    args
}
