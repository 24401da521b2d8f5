//! Parsing the attribute's arguments (the first phase, with `model::sig`): it takes the tokens
//! of `#[differentiable(..)]` and gives [`Args`]: `#[differentiable]`,
//! `#[differentiable(dump)]`, `#[differentiable(constant(xs, ys))]`,
//! `#[differentiable(checkpoint)]` / `#[differentiable(checkpoint(snapshots = 200))]`,
//! `#[differentiable(plain(helper, util::norm))]`, `#[differentiable(strict)]`, or any of them
//! together.

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
    /// Checkpoint the body's top-level loops (scalar mode).
    pub checkpoint: Option<Checkpoint>,
    /// How calls are differentiated: the plain helpers named, and strict mode.
    pub calls: Calls,
}

/// What the body's calls reach, as far as the attribute is told: a proc macro sees one item,
/// so it cannot tell an annotated callee (whose companion items it calls) from a plain one.
#[derive(Default)]
pub struct Calls {
    /// `plain(a, b::c)`: functions that are not annotated, called on differentiable numbers
    /// anyway. In scalar mode each call runs the helper on dual numbers (it must be generic
    /// over `num_traits::Float`); in tensor mode every call is replayed on a sub-tape, so a
    /// plain helper over tensors needs no naming.
    pub plain: Vec<syn::Path>,
    /// `strict`: no part of the body is differentiated at run time by a fallback (dual
    /// numbers, a sub-tape recording op by op, a boxed pullback); each would-be fallback is
    /// the macro's error. The argument as written, for errors about it.
    pub strict: Option<TokenStream>,
}

impl Calls {
    /// The listed plain helper `path` names, compared segment by segment without generic
    /// arguments; `None` if it is not listed.
    pub fn plain_helper(&self, path: &syn::Path) -> Option<&syn::Path> {
        let wanted = crate::syntax::segment_names(path);
        self.plain.iter().find(|listed| {
            listed.leading_colon.is_some() == path.leading_colon.is_some()
                && crate::syntax::segment_names(listed) == wanted
        })
    }
}

/// `checkpoint` or `checkpoint(snapshots = n)`: each top-level loop keeps at most
/// `snapshots` copies of its carried state and recomputes one segment at a time in the
/// adjoint.
pub struct Checkpoint {
    /// The most snapshots a loop keeps at once (at least 2).
    pub snapshots: usize,
    /// The argument as written, for errors about it.
    pub tokens: TokenStream,
}

/// The snapshots a checkpointed loop keeps when the attribute does not say: for a loop of
/// `n` trips, segments of at most `2n / 200` trips are recomputed, so the adjoint holds
/// the saves of under 1% of the trips (and 200 copies of the state).
pub const DEFAULT_SNAPSHOTS: usize = 200;

const USAGE: &str = "#[differentiable] takes `dump` (print the generated code at build time), `constant(a, b, ..)` (float parameters held constant, with no gradient), `checkpoint` or `checkpoint(snapshots = n)` (recompute top-level loops from snapshots of their state), `plain(helper, ..)` (functions that are not annotated, differentiated by running them on dual numbers) and `strict` (no such fallback anywhere in the body)";

const CHECKPOINT_USAGE: &str =
    "write `checkpoint` or `checkpoint(snapshots = n)`, with n an integer of at least 2";

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
                    Meta::List(list) if list.path.is_ident("plain") => {
                        let paths = Punctuated::<syn::Path, Token![,]>::parse_terminated;
                        match paths.parse2(list.tokens.clone()) {
                            Ok(paths) if paths.is_empty() => cx.error_spanned_by(
                                list,
                                "`plain(..)` names the helpers that are not annotated: `plain(helper, util::norm)`",
                            ),
                            Ok(paths) => {
                                for path in paths {
                                    if path.segments.iter().any(|s| !s.arguments.is_none()) {
                                        cx.error_spanned_by(
                                            &path,
                                            "name a plain helper without generic arguments: its float type is the dual numbers it runs on",
                                        );
                                    } else {
                                        args.calls.plain.push(path);
                                    }
                                }
                            }
                            Err(error) => cx.syn_error(error),
                        }
                    }
                    Meta::Path(path) if path.is_ident("strict") => {
                        args.calls.strict = Some(quote::quote!(#meta));
                    }
                    Meta::Path(path) if path.is_ident("checkpoint") => {
                        args.checkpoint = Some(Checkpoint {
                            snapshots: DEFAULT_SNAPSHOTS,
                            tokens: quote::quote!(#meta),
                        });
                    }
                    Meta::List(list) if list.path.is_ident("checkpoint") => {
                        if let Some(snapshots) = checkpoint_snapshots(cx, list) {
                            args.checkpoint = Some(Checkpoint {
                                snapshots,
                                tokens: quote::quote!(#meta),
                            });
                        }
                    }
                    Meta::NameValue(nv) if nv.path.is_ident("checkpoint") => {
                        cx.error_spanned_by(
                            nv,
                            format_args!("malformed checkpoint: {CHECKPOINT_USAGE}"),
                        );
                    }
                    other => cx.error_spanned_by(other, format_args!("unknown argument: {USAGE}")),
                }
            }
        }
        Err(error) => cx.syn_error(error),
    }
    args
}

/// The `n` of `checkpoint(snapshots = n)`, or an error on the wrong token.
fn checkpoint_snapshots(cx: &Ctxt, list: &syn::MetaList) -> Option<usize> {
    let inner = Punctuated::<Meta, Token![,]>::parse_terminated;
    let metas = match inner.parse2(list.tokens.clone()) {
        Ok(metas) => metas,
        Err(error) => {
            cx.syn_error(error);
            return None;
        }
    };
    if metas.is_empty() {
        cx.error_spanned_by(
            list,
            format_args!("malformed checkpoint: {CHECKPOINT_USAGE}"),
        );
        return None;
    }
    let mut snapshots = None;
    for meta in &metas {
        let Meta::NameValue(nv) = meta else {
            cx.error_spanned_by(
                meta,
                format_args!("unknown checkpoint argument: {CHECKPOINT_USAGE}"),
            );
            continue;
        };
        if !nv.path.is_ident("snapshots") {
            cx.error_spanned_by(
                &nv.path,
                format_args!("unknown checkpoint argument: {CHECKPOINT_USAGE}"),
            );
            continue;
        }
        let value = match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => int.base10_parse::<usize>().ok(),
            _ => None,
        };
        match value {
            Some(n) if n >= 2 => snapshots = Some(n),
            _ => cx.error_spanned_by(&nv.value, "snapshots must be an integer of at least 2: write `checkpoint` or `checkpoint(snapshots = n)`"),
        }
    }
    snapshots
}
