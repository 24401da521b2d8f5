//! Parsing the attribute's arguments (the first phase, with `model::sig`): it takes the tokens
//! of `#[differentiable(..)]` and gives [`Args`]: `#[differentiable]`,
//! `#[differentiable(dump)]`, `#[differentiable(constant(xs, ys))]`,
//! `#[differentiable(checkpoint)]` /
//! `#[differentiable(checkpoint(snapshots = 200, levels = 3))]`,
//! `#[differentiable(plain(helper, util::norm))]`, `#[differentiable(strict)]`, or any of them
//! together.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Ident, Meta, Token};

use crate::ctxt::Ctxt;
use crate::model::ir::Schedule;

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
    /// `__whole(a, b)`: not for users; the struct pass (`params.rs`) names its twin's
    /// parameters that are structs passed on whole to other annotated functions
    /// ([`Kind::Struct`](crate::model::sig::Kind::Struct)).
    pub whole: Vec<Ident>,
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

/// `checkpoint` or `checkpoint(snapshots = n, levels = l)`: each top-level loop keeps at
/// most `snapshots` copies of its carried state per level and recomputes one segment at a
/// time in the adjoint (see [`Schedule`]).
pub struct Checkpoint {
    /// At least 2 snapshots, 2 to [`MAX_LEVELS`] levels.
    pub schedule: Schedule,
    /// The argument as written, for errors about it.
    pub tokens: TokenStream,
}

/// The snapshots a checkpointed loop keeps when the attribute does not say: for a loop of
/// `n` trips, segments of at most `2n / 200` trips are recomputed, so the adjoint holds
/// the saves of under 1% of the trips (and 200 copies of the state).
pub const DEFAULT_SNAPSHOTS: usize = 200;

/// The levels of snapshots when the attribute does not say: the forward pass's, and the
/// adjoint's rerun of each segment with saves (the square-root schedule).
pub const DEFAULT_LEVELS: usize = 2;

/// The most levels `checkpoint(levels = l)` takes: each level adds a forward pass and a
/// nesting of the generated adjoint; 200 snapshots over 5 levels already cover 10¹¹ trips
/// with segments of under 1,000.
pub const MAX_LEVELS: usize = 5;

const USAGE: &str = "#[differentiable] takes `dump` (print the generated code at build time), `constant(a, b, ..)` (float parameters held constant, with no gradient), `checkpoint` or `checkpoint(snapshots = n, levels = l)` (recompute top-level loops from snapshots of their state), `plain(helper, ..)` (functions that are not annotated, differentiated by running them on dual numbers) and `strict` (no such fallback anywhere in the body)";

const CHECKPOINT_USAGE: &str = "write `checkpoint` or `checkpoint(snapshots = n, levels = l)` (either or both), with n an integer of at least 2 and l from 2 to 5";

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
                    Meta::List(list) if list.path.is_ident("__whole") => {
                        // `self` among them: any identifier, keywords too
                        let names = |input: syn::parse::ParseStream| {
                            Punctuated::<Ident, Token![,]>::parse_terminated_with(
                                input,
                                syn::ext::IdentExt::parse_any,
                            )
                        };
                        match names.parse2(list.tokens.clone()) {
                            Ok(names) => args.whole.extend(names),
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
                            schedule: Schedule {
                                snapshots: DEFAULT_SNAPSHOTS,
                                levels: DEFAULT_LEVELS,
                            },
                            tokens: quote::quote!(#meta),
                        });
                    }
                    Meta::List(list) if list.path.is_ident("checkpoint") => {
                        if let Some(schedule) = checkpoint_schedule(cx, list) {
                            args.checkpoint = Some(Checkpoint {
                                schedule,
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

/// The schedule of `checkpoint(snapshots = n, levels = l)` (each optional, not both
/// absent), or `None` after recording an error on each wrong token.
fn checkpoint_schedule(cx: &Ctxt, list: &syn::MetaList) -> Option<Schedule> {
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
    let mut schedule = Schedule {
        snapshots: DEFAULT_SNAPSHOTS,
        levels: DEFAULT_LEVELS,
    };
    let mut valid = true;
    for meta in &metas {
        let (Meta::NameValue(nv), Some(name)) = (meta, meta.path().get_ident()) else {
            cx.error_spanned_by(
                meta,
                format_args!("unknown checkpoint argument: {CHECKPOINT_USAGE}"),
            );
            valid = false;
            continue;
        };
        let (slot, least, most) = match name.to_string().as_str() {
            "snapshots" => (&mut schedule.snapshots, 2, usize::MAX),
            "levels" => (&mut schedule.levels, 2, MAX_LEVELS),
            _ => {
                cx.error_spanned_by(
                    &nv.path,
                    format_args!("unknown checkpoint argument: {CHECKPOINT_USAGE}"),
                );
                valid = false;
                continue;
            }
        };
        let value = match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => int.base10_parse::<usize>().ok(),
            _ => None,
        };
        match value {
            Some(n) if (least..=most).contains(&n) => *slot = n,
            _ => {
                let range = if most == usize::MAX {
                    format!("an integer of at least {least}")
                } else {
                    format!("an integer from {least} to {most}")
                };
                cx.error_spanned_by(
                    &nv.value,
                    format_args!("{name} must be {range}: {CHECKPOINT_USAGE}"),
                );
                valid = false;
            }
        }
    }
    valid.then_some(schedule)
}
