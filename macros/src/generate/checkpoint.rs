//! Checkpointed loops (`#[differentiable(checkpoint)]`, scalar mode): each loop at the top
//! level of the body runs forward without saving anything for the adjoint, keeping instead
//! snapshots of its carried state at the starts of segments of trips; the adjoint walks the
//! segments last to first: it restores a segment's snapshot, reruns that segment with the
//! ordinary forward code of the loop (saving onto stacks of its own), then runs the
//! ordinary adjoint of the loop on those stacks. The recomputation repeats the same float
//! operations in the same order, so the gradient is the uncheckpointed one to the bit.
//!
//! Placement: at most `snapshots` are kept at once. A `for` whose iterator knows its length
//! `n` (an exact size hint: ranges) gets segments of `ceil(n / snapshots)` trips up front.
//! Otherwise they start one per trip; when the budget is full, every other one is dropped
//! and the segment length doubles (the simplest online schedule), so a loop whose trip
//! count is unknown up front (`while`, `loop`, a `for` over a filtered iterator) needs no
//! count: for `n` trips, segments hold at most `2n / snapshots` trips. Memory: the snapshots plus one segment's saves; time: the loop
//! runs forward twice.
//!
//! With `levels = l` above 2, the adjoint checkpoints its reruns too: a level reruns its
//! segment quietly (the forward code as written, limited to the segment's trips), keeping
//! snapshots every `ceil(len / snapshots)` trips, and the level below replays those
//! sub-segments last to first; the last level reruns with saves and reverses, as above.
//! Each level's names end in the level's number; the last level's are the two-level ones.
//!
//! The carried state is every mutable name declared before the loop (a `let mut`, a `mut`
//! parameter, a `&mut` array parameter) that the loop mentions: it is cloned into each
//! snapshot (`generated::LoopSnapshot`). The other names the loop reads (and those its
//! `for` iterator reads, as they were before the loop) are copied once before it, so that
//! the adjoint can rerun it: a local by `Clone` (`generated::LoopCopy`). A shared borrow
//! parameter is the one case with a choice. Where the adjoint runs in the same body as
//! the forward code (`grad_into`, `vjp_now`, `vjp_into`: `same_body`), the borrow outlives
//! the rerun and the parameter cannot change during the call, so the reference itself is
//! copied and what it points to need not be `Clone`. `vjp`'s pullback outlives the borrow:
//! it keeps an owned copy (`to_owned` of a float array, `LoopCopy` of anything else,
//! under a bound of `vjp`'s, `referents_copied`).
//!
//! A method's `self` is such a name too, but `let` cannot bind it: where the adjoint runs
//! in the same body a `&self` is read in place (`reads_self_in_place`: the body cannot
//! rebind it, so the rerun's `self` is the loop's), and wherever the rerun does rebind it
//! (`vjp`'s copy of `*self`, a `self` by value, a `mut self` restored from a snapshot)
//! every `self` of the rerun is one hygienic name instead (`rename_self`).

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::ext::IdentExt;
use syn::visit::Visit;

use super::{Generator, paths};
use crate::model::ir::{LoopHead, Schedule, Stmt, Target};
use crate::model::sig::{Kind, Param, Signature};
use crate::syntax::mixed;

/// The segment of a checkpointed loop the adjoint replays: its first trip and the loop's
/// trip count, for reads indexed by the loop's counter.
#[derive(Clone)]
pub(super) struct Segment {
    pub loop_id: usize,
    pub start: Ident,
    pub total: Ident,
}

/// A name declared before a checkpointed loop.
#[derive(Clone)]
struct Declared<'a> {
    ident: Ident,
    mutable: bool,
    /// Declared without a value (`let y;`, e.g. for a `loop`'s `break` value), the binding.
    deferred: Option<usize>,
    /// The parameter it is, if one.
    param: Option<&'a Param>,
}

/// What a checkpointed loop carries from trip to trip and what it only reads.
struct Carried<'a> {
    /// Snapshotted at each segment's start.
    state: Vec<Declared<'a>>,
    /// Copied once, before the loop.
    constants: Vec<Declared<'a>>,
    /// Declared without a value and assigned by the loop: declared afresh, again without a
    /// value, for each segment's rerun (nothing reads them before the loop assigns them).
    fresh: Vec<Declared<'a>>,
}

/// The names of a checkpointed loop's forward locals that its adjoint reads.
fn snapshots_name(id: usize) -> String {
    format!("ck_snapshots{id}")
}

fn trips_name(id: usize) -> String {
    format!("ck_trips{id}")
}

fn constant_name(id: usize, ident: &Ident) -> String {
    format!("ck{id}_{}", ident.unraw())
}

impl<'a> Generator<'a> {
    /// The schedule of a loop statement at this depth, if it is checkpointed: the
    /// top-level loops of `vjp` and `grad_into` when the attribute asked for it.
    pub(super) fn checkpointed(&self, depth: usize) -> Option<Schedule> {
        if depth == 0 && self.saving && !self.tensor() && self.zero_d().is_none() {
            self.body.checkpoint
        } else {
            None
        }
    }

    /// The same generator saving nothing: the forward code as written.
    fn quiet(&self) -> Generator<'a> {
        Generator {
            useful: vec![false; self.body.bindings.len()],
            saving: false,
            ..Generator::new(self.sig, self.body, self.flavour)
        }
    }

    /// The forward code of a checkpointed loop: the loop as written, each trip that starts
    /// a segment first pushing `(trip, state)` onto the snapshots.
    pub(super) fn forward_checkpointed(&self, stmt: &Stmt, schedule: Schedule) -> TokenStream {
        let snapshots = schedule.snapshots;
        let Stmt::Loop {
            id,
            label,
            head,
            body,
            ..
        } = stmt
        else {
            unreachable!("a loop")
        };
        let carried = self.carried(stmt);
        // Locals the adjoint reads: registered as saves, so that a plain block around the
        // loop hands them out.
        let saved = self.save(snapshots_name(*id), 0).name;
        let trips = self.save(trips_name(*id), 0).name;
        let copies = carried.constants.iter().filter(|declared| !self.reads_self_in_place(declared)).map(|declared| {
            let copy = self.save(constant_name(*id, &declared.ident), 0).name;
            let name = &declared.ident;
            let generated = paths::generated_at(name.span());
            match declared.param.filter(|p| shared_reference(p)) {
                // The adjoint runs in this body, while the borrow lasts, and a shared
                // borrow of a parameter the body cannot rebind is the same value for the
                // rerun as for the loop: the reference is copied, not what it points to
                // (which need not be `Clone`).
                Some(_) if self.same_body() => quote!(let #copy = #name;),
                // A float array's owned copy: its elements are `Copy`.
                Some(param) if matches!(param.kind, Kind::Array { .. }) => {
                    quote!(let #copy = ::std::borrow::ToOwned::to_owned(#name);)
                }
                // `vjp`'s pullback outlives the borrow: it reruns the loop on a copy of
                // what the parameter points to (`vjp` asks for it, `referents_copied`).
                Some(_) => quote_spanned!(name.span()=> let #copy = #generated::LoopCopy::loop_copy(#name);),
                // a local (or a parameter by value): copied again for each rerun
                None => {
                    let copier = copier_at(name, quote!(LoopCopy::loop_copy));
                    let copies = paths::generated();
                    quote!(let #copy = #copies::Copies::new(&#name, #copier);)
                }
            }
        });
        let snapshot = snapshot_of(&carried);
        let segment = mixed(&format!("ck_segment{id}"));
        let snap = mixed("snap");
        let body_code = self.quiet().forward_block(body);
        let label = label.as_ref().map(|label| quote!(#label:));
        let (iterator, low, high) = (mixed(&format!("ck_iter{id}")), mixed("low"), mixed("high"));
        let looped = |head: TokenStream| {
            quote! {
                #label #head {
                    if #trips % #segment == 0 {
                        if #saved.len() >= #snapshots {
                            #segment *= 2;
                            #saved.retain(|#snap: &(usize, _)| #snap.0 % #segment == 0);
                        }
                        #saved.push((#trips, (#(#snapshot,)*)));
                    }
                    #trips += 1;
                    #body_code
                }
            }
        };
        let looped = match head {
            // An iterator that knows its length (a range) sets the segments at once, as
            // few as the budget allows. `match` keeps the iterator expression's
            // temporaries alive through the loop, as `for` does.
            LoopHead::For { pat, iter } => {
                let code = looped(quote!(for #pat in #iterator));
                quote! {
                    match ::core::iter::IntoIterator::into_iter(#iter) {
                        #iterator => {
                            let (#low, #high) = ::core::iter::Iterator::size_hint(&#iterator);
                            if #high == ::core::option::Option::Some(#low) {
                                #segment = usize::max(1, #low.div_ceil(#snapshots));
                            }
                            #code
                        }
                    }
                }
            }
            LoopHead::While { cond } => looped(quote!(while #cond)),
            LoopHead::Loop => looped(quote!(loop)),
        };
        quote! {
            #(#copies)*
            let mut #saved = ::std::vec::Vec::new();
            // Trips per segment: set from the trip count when the iterator knows it, else
            // from 1; doubles, dropping every other snapshot, when the budget is full.
            let mut #segment: usize = 1;
            let mut #trips: usize = 0;
            #looped
        }
    }

    /// The adjoint of a checkpointed loop: for each segment, last to first, the state
    /// restored from its snapshot, the segment rerun by the loop's ordinary forward code
    /// (its trips limited to the segment's, its saves on stacks of its own) and reversed
    /// by the loop's ordinary adjoint.
    pub(super) fn reverse_checkpointed(&self, stmt: &Stmt) -> TokenStream {
        let Stmt::Loop {
            id,
            label,
            head,
            body,
            exits,
        } = stmt
        else {
            unreachable!("a loop")
        };
        let carried = self.carried(stmt);
        let (saved, trips) = (mixed(&snapshots_name(*id)), mixed(&trips_name(*id)));
        let [count, k, start, len, state, iterator] =
            ["count", "k", "start", "len", "state", "iter"]
                .map(|part| mixed(&format!("ck_{part}{id}")));
        let rebinds = carried
            .constants
            .iter()
            .filter(|declared| !self.reads_self_in_place(declared))
            .map(|declared| {
                let name = &declared.ident;
                let copy = mixed(&constant_name(*id, name));
                match declared.param.and_then(reference_target) {
                    Some(target) if !declared.param.is_some_and(Param::is_output_array) => quote! {
                        #[allow(unused_variables)]
                        let #name: &#target = ::core::borrow::Borrow::borrow(&#copy);
                    },
                    // `Copies::copy`, with no bound to fail again if the copy before the
                    // loop did
                    _ => {
                        let generated = paths::generated();
                        quote! {
                            #[allow(unused_variables)]
                            let #name = #generated::Copies::copy(&#copy);
                        }
                    }
                }
            });
        let restores = |state: &Ident| restores_from(&carried, state);
        let fresh: Vec<TokenStream> = carried
            .fresh
            .iter()
            .map(|declared| {
                let name = &declared.ident;
                let mutability = declared.mutable.then(|| quote!(mut));
                quote!(#[allow(unused_variables, unused_mut)] let #mutability #name;)
            })
            .collect();
        // The loop limited to the segment's trips: a `for` over its iterator from the
        // segment's first item, a `while`/`loop` counting on the trip counter.
        let counter = mixed(&format!("trips{id}"));
        let (build, segment_head) = match head {
            LoopHead::For { pat, iter } => (
                segment_iterator(&iterator, iter, &start, &len),
                LoopHead::For {
                    pat: pat.clone(),
                    iter: syn::parse_quote!(#iterator),
                },
            ),
            LoopHead::While { cond } => (
                quote!(),
                LoopHead::While {
                    cond: syn::parse_quote!(#counter < #len && (#cond)),
                },
            ),
            LoopHead::Loop => (
                quote!(),
                LoopHead::While {
                    cond: syn::parse_quote!(#counter < #len),
                },
            ),
        };
        let registered = self.stacks.borrow().len();
        let forward = self.forward_loop(*id, label.as_ref(), &segment_head, body, *exits, 0);
        // The segment's stacks live in its replay, not in the function.
        let stacks = self.stacks.borrow_mut().split_off(registered);
        *self.segment.borrow_mut() = Some(Segment {
            loop_id: *id,
            start: start.clone(),
            total: trips.clone(),
        });
        let reverse = self.reverse_loop(*id, body, *exits, 0);
        *self.segment.borrow_mut() = None;
        let declarations = stacks.iter().map(|name| {
            let stack = crate::syntax::mixed(&format!("{}_stack", name));
            quote!(let mut #stack = ::std::vec::Vec::new();)
        });
        let cursors = stacks.iter().map(|name| {
            let (stack, cursor) = (
                crate::syntax::mixed(&format!("{}_stack", name)),
                crate::syntax::mixed(&format!("{}_at", name)),
            );
            quote!(let mut #cursor = #stack.len();)
        });
        let restored = restores(&state);
        // The last level: the segment `start..start + len` rerun with saves and reversed.
        let mut replay = quote! {
            #build
            #(#restored)*
            #(#fresh)*
            #(#declarations)*
            #forward
            #(#cursors)*
            #reverse
        };
        // Each level above it: its segment `start..start + len` rerun quietly from its
        // snapshot `state`, keeping snapshots of its own every `step` trips, whose
        // segments the level below replays, last to first.
        let schedule = self.checkpointed(0).expect("a checkpointed loop");
        let snapshots = schedule.snapshots;
        let (mut start, mut len, mut state) = (start, len, state);
        // the same at every level: the loop as written, saving nothing
        let snapshot = snapshot_of(&carried);
        let body_code = self.quiet().forward_block(body);
        let label = label.as_ref().map(|label| quote!(#label:));
        for level in 2..schedule.levels {
            let [
                outer_start,
                outer_len,
                outer_state,
                kept,
                step,
                at,
                k,
                count,
                iterator,
            ] = [
                "start", "len", "state", "kept", "step", "at", "k", "count", "iter",
            ]
            .map(|part| mixed(&format!("ck_{part}{id}_{level}")));
            let trip = quote! {
                if #at % #step == 0 {
                    #kept.push((#outer_start + #at, (#(#snapshot,)*)));
                }
                #at += 1;
                #body_code
            };
            let quiet = match head {
                LoopHead::For { pat, iter } => {
                    let build = segment_iterator(&iterator, iter, &outer_start, &outer_len);
                    quote!(#build #label for #pat in #iterator { #trip })
                }
                LoopHead::While { cond } => {
                    quote!(#label while #at < #outer_len && (#cond) { #trip })
                }
                LoopHead::Loop => quote!(#label while #at < #outer_len { #trip }),
            };
            let restored = restores(&outer_state);
            replay = quote! {
                let #step: usize = usize::max(1, #outer_len.div_ceil(#snapshots));
                let mut #kept = ::std::vec::Vec::new();
                {
                    #(#restored)*
                    #(#fresh)*
                    let mut #at: usize = 0;
                    #quiet
                }
                let #count = #kept.len();
                for #k in (0..#count).rev() {
                    let #start: usize = #kept[#k].0;
                    let #len: usize =
                        if #k + 1 < #count { #kept[#k + 1].0 } else { #outer_start + #outer_len } - #start;
                    #[allow(unused_variables)]
                    let #state = &#kept[#k].1;
                    #replay
                }
            };
            (start, len, state) = (outer_start, outer_len, outer_state);
        }
        // `self` cannot be bound by `let`: where the rerun rebinds it (a copy, or a
        // snapshot), every `self` of the rerun is one hygienic name instead.
        let mut rerun = quote!(#(#rebinds)* #replay);
        let rebound = |declared: &Declared<'_>| declared.ident == "self";
        if carried
            .constants
            .iter()
            .any(|d| rebound(d) && !self.reads_self_in_place(d))
            || carried.state.iter().any(rebound)
        {
            rerun = rename_self(rerun, &mixed(&format!("ck_self{id}")));
        }
        quote! {
            let #count = #saved.len();
            for #k in (0..#count).rev() {
                let #start: usize = #saved[#k].0;
                let #len: usize = if #k + 1 < #count { #saved[#k + 1].0 } else { #trips } - #start;
                #[allow(unused_variables)]
                let #state = &#saved[#k].1;
                #rerun
            }
        }
    }

    /// Whether the rerun reads this constant of the loop in place, with no copy before
    /// the loop: a method's `&self` where the adjoint runs in the same body, the same
    /// borrow for the rerun as for the loop (the body cannot rebind `self`, so nothing
    /// needs restoring either).
    fn reads_self_in_place(&self, declared: &Declared<'_>) -> bool {
        declared.ident == "self" && self.same_body() && declared.param.is_some_and(shared_reference)
    }

    /// The bounds `vjp` states on what its checkpointed loops' shared borrow parameters
    /// (other than float arrays) point to: `for<'gradtape_copy> T: generated::LoopCopy`.
    /// Its pullback outlives the call's borrows (its type captures no lifetime), so it
    /// reruns the loop on a copy of `T`, which needs `Clone`; `grad`, `grad_into` and the
    /// hidden joint forms rerun it on the borrow itself. Stated as a bound of `vjp` alone,
    /// a `T` that is not `Clone` leaves the function and its other items compiling, and
    /// only a use of `vjp` is the error (`LoopCopy`'s message, at that call). The bound is
    /// higher-ranked so that rustc does not reject it where it names no type parameter
    /// (`Well: LoopCopy` with `Well` not `Clone` would be a trivially false bound, an
    /// error at the definition). A referent naming an anonymous lifetime or an `impl
    /// Trait` cannot be spelled in a `where` clause: it has no bound, and its copy in the
    /// body is the message if it is not `Clone`.
    pub(super) fn referents_copied(&self) -> Vec<TokenStream> {
        if self.same_body() || self.checkpointed(0).is_none() {
            return Vec::new();
        }
        let mut loops = Vec::new();
        top_level_loops(&self.body.block.stmts, &mut loops);
        let mut seen = HashSet::new();
        let generated = paths::generated();
        loops
            .into_iter()
            .flat_map(|stmt| self.carried(stmt).constants)
            .filter_map(|declared| declared.param)
            .filter(|param| shared_reference(param) && !matches!(param.kind, Kind::Array { .. }))
            .filter_map(reference_target)
            .filter(|target| nameable(target))
            .filter(|target| seen.insert(quote!(#target).to_string()))
            .map(|target| quote!(for<'gradtape_copy> #target: #generated::LoopCopy))
            .collect()
    }

    /// The loop's carried state and the names it only reads, among those declared before
    /// it (a later declaration of a name shadowing an earlier one).
    fn carried(&self, stmt: &Stmt) -> Carried<'a> {
        let Stmt::Loop { id, head, body, .. } = stmt else {
            unreachable!("a loop")
        };
        let mut declared = parameters(self.sig);
        let found = self.declared_before(&self.body.block.stmts, *id, &mut declared);
        debug_assert!(found, "a top-level loop");
        let mut in_body = HashSet::new();
        mentions(self.quiet().forward_block(body), &mut in_body);
        let mut in_head = HashSet::new();
        match head {
            LoopHead::For { iter, .. } => mentions(quote!(#iter), &mut in_head),
            // evaluated on each trip's state, as the body is
            LoopHead::While { cond } => mentions(quote!(#cond), &mut in_body),
            LoopHead::Loop => {}
        }
        let mut seen = HashSet::new();
        let mut latest: Vec<Declared<'a>> = declared
            .into_iter()
            .rev()
            .filter(|d| seen.insert(d.ident.to_string()))
            .collect();
        latest.reverse();
        let mut carried = Carried {
            state: Vec::new(),
            constants: Vec::new(),
            fresh: Vec::new(),
        };
        let mut assigned = HashSet::new();
        assignments(&body.stmts, &mut assigned);
        for declared in latest {
            let name = declared.ident.to_string();
            let (body, head) = (in_body.contains(&name), in_head.contains(&name));
            if declared.deferred.is_some_and(|b| assigned.contains(&b)) {
                carried.fresh.push(declared);
                continue;
            }
            // A name the `for` iterator reads is copied as it was before the loop, even
            // if the body changes it (it is then state too).
            if (body && !declared.mutable) || head {
                carried.constants.push(declared.clone());
            }
            if body && declared.mutable {
                carried.state.push(declared);
            }
        }
        carried
    }

    /// Appends the names `stmts` declare before the loop `id` (into plain blocks around
    /// it); whether the loop was found.
    fn declared_before(&self, stmts: &[Stmt], id: usize, declared: &mut Vec<Declared<'a>>) -> bool {
        let binding = |binding: usize, mutable: bool| Declared {
            ident: self.body.bindings[binding].name.clone(),
            mutable,
            deferred: None,
            param: None,
        };
        for stmt in stmts {
            match stmt {
                Stmt::Loop { id: found, .. } if *found == id => return true,
                Stmt::Scope(block) => {
                    let mut inner = declared.clone();
                    if self.declared_before(&block.stmts, id, &mut inner) {
                        *declared = inner;
                        return true;
                    }
                }
                Stmt::Declare {
                    binding: b,
                    mutable,
                } => declared.push(Declared {
                    deferred: Some(*b),
                    ..binding(*b, *mutable)
                }),
                Stmt::Def {
                    target:
                        Target::Let {
                            binding: b,
                            mutable,
                            ..
                        },
                    ..
                } => declared.push(binding(*b, *mutable)),
                Stmt::CallParts { parts, .. } => {
                    declared.extend(parts.iter().map(|&b| binding(b, false)));
                }
                Stmt::Plain(tokens) => {
                    declared.extend(let_names(tokens).into_iter().map(|(ident, mutable)| {
                        Declared {
                            ident,
                            mutable,
                            deferred: None,
                            param: None,
                        }
                    }))
                }
                _ => {}
            }
        }
        false
    }
}

/// The parameters, as names declared before any loop (a `&mut` array is state).
fn parameters(sig: &Signature) -> Vec<Declared<'_>> {
    sig.params
        .iter()
        .map(|param| Declared {
            ident: param.ident.clone(),
            mutable: param.mutable || param.is_output_array(),
            deferred: None,
            param: Some(param),
        })
        .collect()
}

/// The checkpointed loops: the loops at the top level of `stmts`, and of plain blocks in
/// them.
fn top_level_loops<'s>(stmts: &'s [Stmt], found: &mut Vec<&'s Stmt>) {
    for stmt in stmts {
        match stmt {
            Stmt::Loop { .. } => found.push(stmt),
            Stmt::Scope(block) => top_level_loops(&block.stmts, found),
            _ => {}
        }
    }
}

/// Whether a type can be named in a `where` clause: no anonymous lifetime (`'_`), no
/// `impl Trait`.
fn nameable(ty: &syn::Type) -> bool {
    struct Unnameable(bool);
    impl<'ast> Visit<'ast> for Unnameable {
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            self.0 |= lifetime.ident == "_";
        }
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            // an elided lifetime
            self.0 |= reference.lifetime.is_none();
            syn::visit::visit_type_reference(self, reference);
        }
    }
    let mut found = Unnameable(false);
    found.visit_type(ty);
    !found.0
}

/// Whether a parameter is a shared borrow (`&[F]`, `&T`): the adjoint keeps an owned copy.
fn shared_reference(param: &Param) -> bool {
    matches!(&param.ty, syn::Type::Reference(r) if r.mutability.is_none())
}

/// The type a reference parameter borrows (`[F]` of `&[F]`).
fn reference_target(param: &Param) -> Option<&syn::Type> {
    match &param.ty {
        syn::Type::Reference(r) => Some(&r.elem),
        _ => None,
    }
}

/// The bindings `stmts` assign (`name = ..`), at any depth.
fn assignments(stmts: &[Stmt], found: &mut HashSet<usize>) {
    for stmt in stmts {
        match stmt {
            Stmt::Def {
                target: Target::Assign { binding },
                ..
            } => {
                found.insert(*binding);
            }
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                assignments(&then_branch.stmts, found);
                assignments(&else_branch.stmts, found);
            }
            Stmt::Match { arms, .. } => {
                for arm in arms {
                    assignments(&arm.body.stmts, found);
                }
            }
            Stmt::Loop { body, .. } | Stmt::Scope(body) => assignments(&body.stmts, found),
            _ => {}
        }
    }
}

/// Every identifier in `tokens`.
fn mentions(tokens: TokenStream, found: &mut HashSet<String>) {
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => {
                found.insert(ident.to_string());
            }
            TokenTree::Group(group) => mentions(group.stream(), found),
            _ => {}
        }
    }
}

/// The names a `let` statement's pattern binds, and whether each is `mut`.
fn let_names(tokens: &TokenStream) -> Vec<(Ident, bool)> {
    fn pattern(tokens: TokenStream, names: &mut Vec<(Ident, bool)>) -> bool {
        let mut mutable = false;
        for token in tokens {
            match token {
                TokenTree::Punct(p) if matches!(p.as_char(), '=' | ';' | ':') => return true,
                TokenTree::Ident(ident) => match ident.to_string().as_str() {
                    "mut" => mutable = true,
                    "ref" | "_" => {}
                    _ => names.push((ident, std::mem::take(&mut mutable))),
                },
                TokenTree::Group(group) => {
                    pattern(group.stream(), names);
                }
                _ => {}
            }
        }
        false
    }
    let mut tokens = tokens.clone().into_iter();
    let mut names = Vec::new();
    if matches!(tokens.next(), Some(TokenTree::Ident(ident)) if ident == "let") {
        pattern(tokens.collect(), &mut names);
    }
    names
}

/// `let iterator = ..;`: a `for` loop's iterator `iter` built again and limited to the
/// segment of `len` trips from trip `start` (`Iterator::skip`, then `take`).
fn segment_iterator(iterator: &Ident, iter: &syn::Expr, start: &Ident, len: &Ident) -> TokenStream {
    quote! {
        let #iterator = ::core::iter::Iterator::take(
            ::core::iter::Iterator::skip(::core::iter::IntoIterator::into_iter(#iter), #start),
            #len,
        );
    }
}

/// `tokens` with each `self` that is a value (not a path's `self::`) the hygienic `name`,
/// at the `self`'s place, so that a rerun may bind it. Items (a `fn`, `trait` or `impl`
/// the generated code declares, such as a call's fallback trait) are left as they are:
/// a `self` in one is that item's own.
fn rename_self(tokens: TokenStream, name: &Ident) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let punct = |at: usize, c: char| matches!(tokens.get(at), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let item_start = |at: usize| match &tokens[at] {
        TokenTree::Ident(ident) if ident == "trait" || ident == "impl" => true,
        TokenTree::Ident(ident) if ident == "fn" => {
            matches!(tokens.get(at + 1), Some(TokenTree::Ident(_)))
        }
        _ => false,
    };
    let mut renamed = Vec::with_capacity(tokens.len());
    let mut at = 0;
    while at < tokens.len() {
        if item_start(at) {
            // through the item's body, or its `;`
            while at < tokens.len() {
                let end = matches!(&tokens[at], TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace)
                    || punct(at, ';');
                renamed.push(tokens[at].clone());
                at += 1;
                if end {
                    break;
                }
            }
            continue;
        }
        renamed.push(match &tokens[at] {
            TokenTree::Ident(ident)
                if ident == "self" && !(punct(at + 1, ':') && punct(at + 2, ':')) =>
            {
                let mut ident = name.clone();
                ident.set_span(name.span().located_at(tokens[at].span()));
                TokenTree::Ident(ident)
            }
            TokenTree::Group(group) => {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), rename_self(group.stream(), name));
                inner.set_span(group.span());
                TokenTree::Group(inner)
            }
            other => other.clone(),
        });
        at += 1;
    }
    renamed.into_iter().collect()
}

/// The path of a copying function (`generated::LoopCopy::loop_copy`), every token at the
/// user's `name`: its trait's bound is checked where the path names the function, so a type
/// that is not `Clone` is the trait's message under the name (`runtime`'s
/// `generated/checkpoint.rs` says why not at an argument).
fn copier_at(name: &Ident, function: TokenStream) -> TokenStream {
    let generated = paths::generated_at(name.span());
    let function = syntax_at(function, name.span());
    quote!(#generated::#function)
}

/// `tokens` with every token at `span`.
fn syntax_at(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

/// The values of a checkpointed loop's carried state, cloned into a snapshot (a `&mut`
/// array parameter as an owned array).
fn snapshot_of(carried: &Carried<'_>) -> Vec<TokenStream> {
    carried
        .state
        .iter()
        .map(|declared| {
            let name = &declared.ident;
            match declared.param.filter(|p| p.is_output_array()) {
                Some(_) => quote!(::std::borrow::ToOwned::to_owned(&*#name)),
                None => {
                    let copier = copier_at(name, quote!(LoopSnapshot::loop_snapshot));
                    let copies = paths::generated();
                    quote!(#copies::Copies::new(&#name, #copier))
                }
            }
        })
        .collect()
}

/// The carried state rebound from the snapshot `state` (a tuple in [`snapshot_of`]'s
/// order), for a segment's rerun: each name a clone, a `&mut` array parameter a borrow of
/// a buffer of its own.
fn restores_from(carried: &Carried<'_>, state: &Ident) -> Vec<TokenStream> {
    carried
        .state
        .iter()
        .enumerate()
        .map(|(k, declared)| {
            let name = &declared.ident;
            let index = syn::Index::from(k);
            match declared.param.filter(|p| p.is_output_array()) {
                Some(param) => {
                    let buffer = mixed(&format!("ck_buffer_{}", name.unraw()));
                    let target = reference_target(param).expect("a `&mut` array");
                    // `mut y: &mut [F]` keeps its `mut` (the body may write `&mut y`)
                    let mutability = param.mutable.then(|| quote!(mut));
                    quote! {
                        let mut #buffer = ::core::clone::Clone::clone(&#state.#index);
                        #[allow(unused_mut)]
                        let #mutability #name: &mut #target = ::core::borrow::BorrowMut::borrow_mut(&mut #buffer);
                    }
                }
                // `Copies::copy`, with no bound to fail again if the snapshot did
                None => {
                    let generated = paths::generated();
                    quote! {
                        #[allow(unused_mut)]
                        let mut #name = #generated::Copies::copy(&#state.#index);
                    }
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tokens: TokenStream) -> Vec<(String, bool)> {
        let_names(&tokens)
            .into_iter()
            .map(|(ident, mutable)| (ident.to_string(), mutable))
            .collect()
    }

    #[test]
    fn let_patterns_give_their_names_and_mutability() {
        assert_eq!(names(quote!(let mut k = 0;)), [("k".into(), true)]);
        assert_eq!(
            names(quote!(let n: usize = a.len();)),
            [("n".into(), false)]
        );
        assert_eq!(
            names(quote!(let (mut a, b) = (1, 2);)),
            [("a".into(), true), ("b".into(), false)]
        );
        assert!(names(quote!(k += 1;)).is_empty());
    }
}
