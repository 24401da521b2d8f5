//! Replayed calls (Tapenade's joint mode, extended to calls in loops and to calls writing
//! arrays): where the adjoint runs in the same body as the forward code (`grad_into`,
//! `grad`'s `vjp_now`, `vjp_into`), a call of another annotated function that is not joint
//! ([`joint_call`](Generator::joint_call): straight-line, arguments the body cannot
//! change) runs as written, and the forward code saves copies of the arguments the body may
//! change afterwards. The adjoint calls the callee's `vjp_into` on those copies: the
//! callee's forward code and adjoint at once, reading its arguments in place and adding
//! each array's cotangent straight into the caller's shadow (its sink). A pullback would
//! instead save, per call, every operand its adjoint reads, and return each array's
//! cotangent as a `Vec` to be added in (what `vjp`, whose adjoint outlives the function's
//! borrows, still does).
//!
//! The phases of the one feature: [`replayed_call`](Generator::replayed_call) decides and
//! plans, [`forward_replayed`](Generator::forward_replayed) saves and calls,
//! [`reverse_replayed`](Generator::reverse_replayed) calls `vjp_into`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, Ident};

use super::{Flavour, Generator, copied_by_spelling, is_literal};
use crate::model::ir::{BindingId, Block, Callee, LoopHead, Operand, Stmt, Written};
use crate::syntax::{mixed, single_ident, strip_parens};

/// How a replayed call's argument reaches the callee's `vjp_into`.
pub(super) enum Passed {
    /// As written: a literal, or a parameter the body cannot change.
    AsIs,
    /// A differentiable number, saved by value.
    Number,
    /// A constant by value (a counter, a length), saved by `Clone`.
    Constant,
    /// A float array, saved as a copy of its elements and given back in the form the call
    /// passes it (`&a`, `&mut a`, `a`).
    Array { name: Ident, form: Form },
}

/// How a call passes an array.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Shared,
    Mut,
    Owned,
    /// `Mut`, of a `&mut` parameter passed on as it is by a statement dropping the value
    /// (`check(y);`): the call is skipped if the callee only reads it
    /// (`generated::replay_unless_read`).
    UnlessRead,
}

impl Generator<'_> {
    /// How each argument of the call reaches the callee's `vjp_into`, if the call is
    /// replayed: only where the adjoint runs in the same body (the copies are locals and
    /// stacks of this body, and a parameter passed as it is is still borrowed), in scalar
    /// mode without checkpointing, for a call by path (a function, or an associated
    /// function of an annotated `impl` block) or of a method on a constant receiver that
    /// the body cannot change (a parameter, or a field path of one: `self.stepper.rate(..)`)
    /// given no differentiable struct, that is not joint, writing whole arrays only, each
    /// of whose arguments is a literal, a parameter the body cannot change, a
    /// differentiable number or a constant named by value, or a flat float array named
    /// (`a`, `&a`, `&mut a`) and passed once. Anything else keeps the callee's `vjp`,
    /// an array result's writer too (`Callee::Writer`): a replay saves a copy of every
    /// array argument, the result's local included, one allocation each per call, where
    /// the writer's kept pullback allocates nothing (a pendulum of 10⁴ steps whose state
    /// is an array result: 2.1–3.9 ms replayed, 1.3 ms kept, docs/PERFORMANCE.md).
    pub(super) fn replayed_call(
        &self,
        func: &Callee,
        args: &[Operand],
        written: &[Written],
        depth: usize,
    ) -> Option<Vec<Passed>> {
        if !self.same_body()
            || !matches!(self.flavour, Flavour::Scalar)
            || self.body.checkpoint.is_some()
            || !matches!(
                func,
                Callee::Function(_) | Callee::Associated(_) | Callee::Method(_)
            )
            || self.joint_call(func, args, depth)
            || written.iter().any(|w| w.part.is_some())
            || !self.reachable_from_the_adjoint(func)
        {
            return None;
        }
        // A method given a differentiable struct (as its receiver or an argument) keeps its
        // `vjp`: its `vjp_into` exists (`params.rs`), but the struct's gradient would come
        // back as an entry of a replayed method call, a path no test covers; only a method
        // of a constant receiver whose arguments are numbers and arrays is replayed.
        if matches!(func, Callee::Method(_))
            && args
                .iter()
                .any(|arg| arg.binding().is_some_and(|b| self.body.bindings[b].whole))
        {
            return None;
        }
        let mut arrays: Vec<BindingId> = Vec::new();
        let mut passed = Vec::with_capacity(args.len());
        for (k, arg) in args.iter().enumerate() {
            let expr = strip_parens(arg.fwd());
            let is_written = written.iter().any(|w| w.position == k);
            let array = arg.binding().filter(|&b| self.body.bindings[b].array);
            if let Some(binding) = array {
                let b = &self.body.bindings[binding];
                if b.row.is_some() || b.ragged || b.whole || arrays.contains(&binding) {
                    return None;
                }
                arrays.push(binding);
            }
            if is_literal(expr) {
                passed.push(Passed::AsIs);
                continue;
            }
            if self.stable_argument(expr) && !is_written {
                passed.push(Passed::AsIs);
                continue;
            }
            if k == 0 && matches!(func, Callee::Method(_)) {
                // a method's receiver is passed as it is, never saved (a copy would be a
                // clone of a whole model per call): a constant field of a parameter the
                // body cannot change (`self.hidden.forward(..)`)
                if !is_written && self.stable_field_path(expr) {
                    passed.push(Passed::AsIs);
                    continue;
                }
                return None;
            }
            let plan = match (arg.binding(), array) {
                (Some(_), Some(_)) => {
                    let (name, form) = self.array_form(expr, is_written)?;
                    Passed::Array { name, form }
                }
                (Some(binding), None) if !self.body.bindings[binding].whole => {
                    single_ident(expr)?;
                    Passed::Number
                }
                (Some(_), None) => return None,
                (None, _) => {
                    single_ident(expr)?;
                    Passed::Constant
                }
            };
            if is_written
                && !matches!(
                    plan,
                    Passed::Array {
                        form: Form::Mut,
                        ..
                    }
                )
            {
                return None;
            }
            passed.push(plan);
        }
        Some(passed)
    }

    /// Whether the callee's path means the same in the adjoint as in the forward code: its
    /// first segment is no name an item inside the body binds (`use m as physics;`, a nested
    /// `fn`), which the forward code's own block may hide from the adjoint.
    fn reachable_from_the_adjoint(&self, func: &Callee) -> bool {
        let path = match func {
            Callee::Function(path)
            | Callee::Associated(path)
            | Callee::Writer(path)
            | Callee::Option(path) => path,
            // found by the receiver's type, which the adjoint's receiver has too
            Callee::Method(_) => return true,
            Callee::Plain(_) | Callee::Gathered(..) | Callee::Field(_) => return false,
        };
        let Some(names) = &self.body.item_names else {
            return false;
        };
        path.segments
            .first()
            .is_some_and(|first| first.ident != "self" && !names.contains(&first.ident.to_string()))
    }

    /// A joint call's adjoint through the callee's `vjp_into` rather than its `vjp_now`,
    /// where the callee has one reachable by path (a function or an associated function)
    /// and every differentiable array passed is flat: each array's cotangent is added into
    /// the caller's shadow by the callee (no `Vec` returned and added in), and a constant
    /// array's is not asked for. The joint arguments are `joint` (what the forward code
    /// borrowed); `None` keeps `vjp_now`.
    pub(super) fn joint_into_sinks(
        &self,
        func: &Callee,
        args: &[Operand],
        joint: &[Operand],
        g: TokenStream,
    ) -> Option<TokenStream> {
        if !self.reachable_from_the_adjoint(func) {
            return None;
        }
        let mut sinks = Vec::with_capacity(args.len());
        let mut arrays = Vec::new();
        for (arg, read) in args.iter().zip(joint) {
            // a struct (or an array field) passed whole gets its gradient as an entry
            if arg.binding().is_some_and(|b| self.body.bindings[b].whole) {
                return None;
            }
            match arg.binding().filter(|&b| self.body.bindings[b].array) {
                Some(binding) => {
                    let b = &self.body.bindings[binding];
                    if b.row.is_some() || b.ragged || b.whole || arrays.contains(&binding) {
                        return None;
                    }
                    arrays.push(binding);
                    let (slot, read) = (self.slot(binding), read.fwd());
                    sinks.push(
                        quote!(generated::ArrayShadow::prefix_mut(&mut #slot, (#read).len())),
                    );
                }
                None => sinks.push(quote!(generated::NoSink)),
            }
        }
        let reads = joint.iter().map(|read| {
            let read = read.fwd();
            quote!(#read)
        });
        let grads = mixed("grads");
        let call = func.vjp_into(
            reads.collect(),
            quote!(::core::option::Option::Some(#g)),
            sinks,
        );
        let mut code = quote!(let (_, #grads) = #call;);
        for (k, arg) in args.iter().enumerate() {
            if arg.binding().is_some_and(|b| self.body.bindings[b].array) {
                continue;
            }
            let index = syn::Index::from(k);
            code.extend(self.accumulate_argument(arg, quote!(#grads.#index)));
        }
        Some(code)
    }

    /// Whether `expr` (`p` or `&p`) is a parameter the body cannot change, as a joint
    /// call's arguments are.
    fn stable_argument(&self, expr: &Expr) -> bool {
        let (inner, borrowed) = crate::syntax::strip_shared_borrow(expr);
        single_ident(inner).is_some_and(|ident| self.stable_param(ident, borrowed))
    }

    /// Whether `expr` is a field path of a parameter the body cannot change (`self.hidden`,
    /// `&model.layer`), which means the same in the adjoint as in the forward code.
    fn stable_field_path(&self, expr: &Expr) -> bool {
        let mut inner = strip_parens(crate::syntax::strip_shared_borrow(expr).0);
        while let Expr::Field(field) = inner {
            inner = strip_parens(&field.base);
        }
        single_ident(inner).is_some_and(|ident| self.stable_param(ident, true))
    }

    /// The array an argument names, and how it is passed: `&a` (or `&a[..]`), `&mut a` (or
    /// `&mut a[..]`), or `a` itself, a reference parameter's (shared or, written by the
    /// call, `&mut`) or an owned array moved or copied.
    fn array_form(&self, expr: &Expr, written: bool) -> Option<(Ident, Form)> {
        let whole = |expr: &Expr| -> Option<Ident> {
            match strip_parens(expr) {
                Expr::Index(index)
                    if matches!(strip_parens(&index.index), Expr::Range(range)
                        if range.start.is_none() && range.end.is_none()) =>
                {
                    single_ident(strip_parens(&index.expr)).cloned()
                }
                other => single_ident(other).cloned(),
            }
        };
        match expr {
            // `&*y`: the same borrow as `&y`
            Expr::Reference(reference)
                if reference.mutability.is_none()
                    && matches!(strip_parens(&reference.expr), Expr::Unary(unary)
                        if matches!(unary.op, syn::UnOp::Deref(_))) =>
            {
                let Expr::Unary(unary) = strip_parens(&reference.expr) else {
                    unreachable!("a dereference")
                };
                Some((
                    single_ident(strip_parens(&unary.expr))?.clone(),
                    Form::Shared,
                ))
            }
            Expr::Reference(reference) => {
                let name = whole(&reference.expr)?;
                let form = if reference.mutability.is_some() {
                    Form::Mut
                } else {
                    Form::Shared
                };
                Some((name, form))
            }
            other => {
                let name = single_ident(other)?.clone();
                let param = self.sig.params.iter().find(|p| p.ident == name);
                let form = match param.map(|p| &p.ty) {
                    Some(syn::Type::Reference(reference)) => {
                        if written && reference.mutability.is_some() {
                            Form::Mut
                        } else {
                            Form::Shared
                        }
                    }
                    _ => Form::Owned,
                };
                Some((name, form))
            }
        }
    }

    /// The name of a replayed call's saved argument.
    fn replay_save_name(id: usize, k: usize) -> String {
        format!("argument{id}_{k}")
    }

    /// Forward: each argument the body may change saved (a number as it is, a constant
    /// cloned, an array's elements copied), then the call as written. The code, and the
    /// call's expression.
    pub(super) fn forward_replayed(
        &self,
        id: usize,
        func: &Callee,
        args: &[Operand],
        passed: &[Passed],
        depth: usize,
        split: Option<&TokenStream>,
    ) -> (TokenStream, TokenStream) {
        let mut code = TokenStream::new();
        for (k, (arg, plan)) in args.iter().zip(passed).enumerate() {
            let value = match plan {
                Passed::AsIs => continue,
                Passed::Number => {
                    let expr = arg.fwd();
                    quote!(#expr)
                }
                Passed::Constant => {
                    let expr = arg.fwd();
                    quote!(::core::clone::Clone::clone(&#expr))
                }
                // an owned array keeps its own type (`[F; N]` of a const generic `N`
                // cannot be rebuilt from a slice: rustc could not infer `N`)
                Passed::Array {
                    name,
                    form: Form::Owned,
                } => quote!(::core::clone::Clone::clone(&#name)),
                // a split call's adjoint needs no copy: an empty one, of the same kind,
                // keeps the stack's cursor in step (`split_call`)
                Passed::Array { name, .. } => match split {
                    Some(split) => quote! {
                        if #split {
                            generated::snapshot_empty(&#name)
                        } else {
                            generated::snapshot(&#name)
                        }
                    },
                    None => quote!(generated::snapshot(&#name)),
                },
            };
            code.extend(self.save(Self::replay_save_name(id, k), depth).keep(value));
        }
        (code, func.primal(args))
    }

    /// Adjoint: the saved arguments recalled (before any condition, so every stack's
    /// cursor moves once per run), and the code calling the callee's `vjp_into` on them with
    /// the cotangent `g`, each differentiable array's shadow as its sink, then adding the
    /// numbers' cotangents as for any call. The recalls, and the call.
    pub(super) fn reverse_replayed(
        &self,
        id: usize,
        func: &Callee,
        args: &[Operand],
        passed: &[Passed],
        g: TokenStream,
        depth: usize,
    ) -> (TokenStream, TokenStream) {
        let mut prologue = TokenStream::new();
        let mut code = TokenStream::new();
        let mut lent = None;
        let mut call_args = Vec::with_capacity(args.len());
        let mut sinks = Vec::with_capacity(args.len());
        for (k, (arg, plan)) in args.iter().zip(passed).enumerate() {
            let saved = match plan {
                Passed::AsIs => None,
                _ => {
                    let (pop, saved) = self.recall(Self::replay_save_name(id, k), depth);
                    prologue.extend(pop);
                    Some(saved)
                }
            };
            let (value, len) = match (plan, &saved) {
                (Passed::AsIs, _) => {
                    let expr = arg.fwd();
                    (quote!(#expr), quote!((#expr).len()))
                }
                (Passed::Number, Some(saved)) => (quote!(*(#saved)), TokenStream::new()),
                (Passed::Constant, Some(saved)) => (
                    quote!(::core::clone::Clone::clone(#saved)),
                    TokenStream::new(),
                ),
                (Passed::Array { form, .. }, Some(saved)) => {
                    let value = match form {
                        Form::Shared => quote!(generated::Restore::restore(#saved)),
                        Form::Mut | Form::UnlessRead => {
                            // the callee writes it again: a copy of what it held, in the
                            // call site's scratch (declared where the adjoint starts)
                            let scratch = mixed(&format!("scratch{id}_{k}"));
                            code.extend(quote!(generated::refill(&mut #scratch, #saved);));
                            self.scratches.borrow_mut().push(scratch.clone());
                            if *form == Form::UnlessRead {
                                let name = mixed(&format!("lent{id}"));
                                lent = Some((scratch, saved.clone(), name.clone()));
                                quote!(#name)
                            } else {
                                quote!(generated::RestoreMut::restore_mut(&mut #scratch, #saved))
                            }
                        }
                        Form::Owned => quote!(::core::clone::Clone::clone(#saved)),
                    };
                    (value, quote!((#saved).len()))
                }
                _ => unreachable!("every argument but one passed as it is is saved"),
            };
            call_args.push(value);
            sinks.push(match arg.binding() {
                Some(binding) if self.body.bindings[binding].array => {
                    let slot = self.slot(binding);
                    quote!(generated::ArrayShadow::prefix_mut(&mut #slot, #len))
                }
                _ => quote!(generated::NoSink),
            });
        }
        let grads = mixed("grads");
        let call = func.vjp_into(call_args, g, sinks);
        let mut replay = quote!(let (_, #grads) = #call;);
        for (k, arg) in args.iter().enumerate() {
            if arg.binding().is_some_and(|b| self.body.bindings[b].array) {
                continue;
            }
            let index = syn::Index::from(k);
            replay.extend(self.accumulate_argument(arg, quote!(#grads.#index)));
        }
        match lent {
            Some((scratch, saved, name)) => code.extend(quote! {
                generated::replay_unless_read(&mut #scratch, #saved, |#name| { #replay });
            }),
            None => code.extend(replay),
        }
        (prologue, code)
    }
}

/// Replayed calls split in the last trip of their loop (issue 14, item 3 of "ode's
/// gradient" in docs/PERFORMANCE.md): a replayed call runs as written in the forward code
/// and again, with its saves, in `vjp_into`; in the last trip of a loop over a range (the
/// trip count known as the loop starts) nothing the caller does comes between that trip's
/// call and its adjoint but the rest of the forward code, so the call goes through the
/// callee's `vjp_split` there instead: its forward code with the saves runs once, on the
/// caller's arrays, and its adjoint is kept (a closure in `split<id>`, declared where the
/// function starts) until the caller's adjoint reaches the call.
///
/// Invariants: the copies the call saves are kept in every trip, the last one included, so
/// every stack's cursor moves as for a call that is not split, and where the callee declines
/// (`vjp_split` returns `None`) or the loop ends before its last trip (a `break`, a `return`)
/// the call is replayed from them as before. The slot is filled at most once per run of the
/// function (the loop sits in no other loop: depth 0), in the trip whose count is the trip
/// count, and taken by the first replay of the call site in the adjoint, which is that trip's
/// (the adjoint replays trips last to first, and a trip's call is replayed exactly when it ran).
impl Generator<'_> {
    /// The name of a split call's slot for the callee's adjoint.
    pub(super) fn split_slot(id: usize) -> Ident {
        mixed(&format!("split{id}"))
    }

    /// The name of a loop's trip count as the loop starts: its iterator's size, which a
    /// range reports exactly.
    pub(super) fn split_last(loop_id: usize) -> Ident {
        mixed(&format!("last{loop_id}"))
    }

    /// Whether loop `loop_id` has a split call (asked once its body's code is generated).
    pub(super) fn loop_has_split(&self, loop_id: usize) -> bool {
        self.splits.borrow().iter().any(|&(_, l)| l == loop_id)
    }

    /// The loop whose last trip splits the replayed call `id`, if it is split: a writing
    /// call of a function by path (its `vjp_split` a companion item; a method's or an
    /// associated function's is not generated), at depth 1 of a `for` loop over a range
    /// `a..b` at depth 0 (in no other loop, outside a checkpointed body, a branch of it or a
    /// block of it being fine), passed only literals, the caller's own number or flat float
    /// array parameters as they are, differentiable numbers, and float arrays written,
    /// spelled `&mut a`: so the callee's parameters are numbers and flat float arrays, which its
    /// `vjp_split` takes (a struct or a constant of another type may be a callee's own
    /// twin's, which has none), and a shared array the closure borrows is one the body
    /// cannot change.
    pub(super) fn split_call(
        &self,
        id: usize,
        func: &Callee,
        args: &[Operand],
        written: &[Written],
        passed: &[Passed],
        depth: usize,
    ) -> Option<usize> {
        if depth != 1 || !self.saving || !matches!(func, Callee::Function(_)) {
            return None;
        }
        for (k, (arg, plan)) in args.iter().zip(passed).enumerate() {
            let array = arg.binding().is_some_and(|b| self.body.bindings[b].array);
            let fits = match plan {
                Passed::AsIs => {
                    let expr = strip_parens(arg.fwd());
                    is_literal(expr)
                        || array
                        || single_ident(expr).is_some_and(|ident| {
                            self.sig.params.iter().any(|p| {
                                &p.ident == ident
                                    && !matches!(p.ty, syn::Type::Reference(_))
                                    && copied_by_spelling(&p.ty, &self.sig.floats)
                            })
                        })
                }
                Passed::Number => true,
                // spelled `&mut a`, a local's or a parameter's: a callee may take a `&mut`
                // parameter passed on as it is (`w(x, y)`) as `&[F]`, and its adjoint
                // would then borrow the caller's array until the caller's adjoint runs
                Passed::Array { form, .. } => {
                    *form == Form::Mut
                        && array
                        && matches!(strip_parens(arg.fwd()), Expr::Reference(reference)
                            if reference.mutability.is_some())
                        && !written.iter().any(|w| w.position == k && w.passed_on)
                }
                Passed::Constant => false,
            };
            if !fits {
                return None;
            }
        }
        let loop_id = split_loop(&self.body.block, id)?;
        self.splits.borrow_mut().push((id, loop_id));
        Some(loop_id)
    }

    /// The condition under which the call `func` is split: the loop's last trip, and a
    /// callee whose `vjp_split` hands its adjoint back (`SPLITS`, a constant).
    pub(super) fn split_condition(
        &self,
        loop_id: usize,
        func: &Callee,
        arity: usize,
    ) -> TokenStream {
        let Callee::Function(path) = func else {
            unreachable!("only a function's call is split (`split_call`)")
        };
        let (trips, last) = (mixed(&format!("trips{loop_id}")), Self::split_last(loop_id));
        let splits = match crate::model::ir::resolved_callee(path, arity, true) {
            Some((checked, alias)) => quote!({ #checked #alias::SPLITS }),
            None => quote!(#path::SPLITS),
        };
        quote!((#trips == #last && #splits))
    }

    /// Forward of a split call: `call` (the call as written) in every trip but the last,
    /// the callee's `vjp_split` in the last, its adjoint and the written arrays' lengths kept
    /// in the call's slot. The saves come before, as in every trip.
    pub(super) fn forward_split(
        &self,
        id: usize,
        loop_id: usize,
        func: &Callee,
        args: &[Operand],
        passed: &[Passed],
        call: TokenStream,
    ) -> TokenStream {
        let Callee::Function(path) = func else {
            unreachable!("only a function's call is split (`split_call`)")
        };
        let condition = self.split_condition(loop_id, func, args.len());
        let slot = Self::split_slot(id);
        let lens = args.iter().zip(passed).filter_map(|(_, plan)| match plan {
            Passed::Array { name, .. } => Some(quote!(#name.len())),
            _ => None,
        });
        let forward_args = args
            .iter()
            .map(|arg| {
                let fwd = arg.fwd();
                quote!(#fwd)
            })
            .collect();
        let split =
            crate::model::ir::through_companion(path, "vjp_split", forward_args, args.len());
        let (value, tape, lengths) = (mixed("value"), mixed("tape"), mixed("lengths"));
        quote! {
            if #condition {
                let #lengths = [#(#lens),*];
                let (#value, #tape) = #split;
                #slot = ::core::option::Option::map(#tape, |#tape| (#tape, #lengths));
                #value
            } else {
                #call
            }
        }
    }

    /// Adjoint of a split call: the callee's kept adjoint, taken from the slot, called with
    /// the cotangent `g` and the caller's shadows as sinks (`Some` of each differentiable
    /// array's, of its length at the call), then the numbers' cotangents added; `replay`
    /// (the call replayed from its copies) when the slot is empty.
    pub(super) fn reverse_split(
        &self,
        id: usize,
        args: &[Operand],
        passed: &[Passed],
        g: TokenStream,
        replay: TokenStream,
    ) -> TokenStream {
        let slot = Self::split_slot(id);
        let (tape, lengths, grads) = (mixed("tape"), mixed("lengths"), mixed("grads"));
        let mut written = 0usize;
        let sinks = args.iter().zip(passed).map(|(arg, plan)| {
            let len = match plan {
                Passed::Array { .. } => {
                    let k = written;
                    written += 1;
                    quote!(#lengths[#k])
                }
                _ => {
                    let expr = arg.fwd();
                    quote!((#expr).len())
                }
            };
            match arg.binding() {
                Some(binding) if self.body.bindings[binding].array => {
                    let slot = self.slot(binding);
                    quote!(::core::option::Option::Some(generated::ArrayShadow::prefix_mut(&mut #slot, #len)))
                }
                _ => quote!(generated::NoSink),
            }
        });
        let sinks: Vec<TokenStream> = sinks.collect();
        let mut accumulate = TokenStream::new();
        for (k, arg) in args.iter().enumerate() {
            if arg.binding().is_some_and(|b| self.body.bindings[b].array) {
                continue;
            }
            let index = syn::Index::from(k);
            accumulate.extend(self.accumulate_argument(arg, quote!(#grads.#index)));
        }
        quote! {
            match ::core::option::Option::take(&mut #slot) {
                ::core::option::Option::Some((#tape, #lengths)) => {
                    let #grads = #tape(#g, (#(#sinks,)*));
                    #accumulate
                }
                ::core::option::Option::None => { #replay }
            }
        }
    }
}

/// The `for` loop over a range at depth 0 whose body (a branch or block of it, not a loop
/// inside it) holds the call statement `id`.
fn split_loop(block: &Block, id: usize) -> Option<usize> {
    block.stmts.iter().find_map(|stmt| match stmt {
        Stmt::Loop {
            id: loop_id,
            head: LoopHead::For { iter, .. },
            body,
            ..
        } if is_range(iter) && holds_call(body, id) => Some(*loop_id),
        Stmt::If {
            then_branch,
            else_branch,
            ..
        } => split_loop(then_branch, id).or_else(|| split_loop(else_branch, id)),
        Stmt::Match { arms, .. } => arms.iter().find_map(|arm| split_loop(&arm.body, id)),
        Stmt::Scope(block) => split_loop(block, id),
        _ => None,
    })
}

/// `a..b`: a range whose iterator's size is its trip count (`size_hint` exact).
fn is_range(iter: &Expr) -> bool {
    matches!(strip_parens(iter), Expr::Range(range)
        if range.start.is_some()
            && range.end.is_some()
            && matches!(range.limits, syn::RangeLimits::HalfOpen(_)))
}

/// Whether the block (its branches and blocks, not its loops) holds the call statement `id`.
fn holds_call(block: &Block, id: usize) -> bool {
    block.stmts.iter().any(|stmt| match stmt {
        Stmt::CallWrites { id: call, .. } => *call == id,
        Stmt::If {
            then_branch,
            else_branch,
            ..
        } => holds_call(then_branch, id) || holds_call(else_branch, id),
        Stmt::Match { arms, .. } => arms.iter().any(|arm| holds_call(&arm.body, id)),
        Stmt::Scope(block) => holds_call(block, id),
        _ => false,
    })
}
