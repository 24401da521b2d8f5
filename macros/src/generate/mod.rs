//! Generation, the last phase: it takes the signature model, the IR and the analyses and
//! gives the code. For `fn f`, the attribute emits:
//!
//! - `fn f` itself ([`wrapper`]): in tensor mode, the original body at plain speed when
//!   nothing records (or no input is watched), otherwise one fused node on the tapes whose
//!   rule is the generated adjoint; in scalar mode, the original function unchanged.
//! - a companion type `f` ([`companion`]; a braced struct, so it lives beside the function)
//!   with `f::vjp` (forward code that saves what the adjoint needs, returning the value and
//!   the pullback closure; in scalar mode a wrapper of the hidden `f::vjp_partial`, whose
//!   pullback takes `Option` of the result's cotangent, `None` for none, what annotated
//!   callers call), `f::primal` (the original body), in scalar mode `f::grad` (and
//!   `f::grad_into`, gradients into the caller's buffers, when there are array parameters), for
//!   elementwise tensor functions `f::vjp_scalar` and `f::primal_scalar` (the same on plain
//!   numbers, which `f` runs when every differentiable input is 0-d), and `f::GENERATED`,
//!   the generated code as readable source.
//!
//! The [`Generator`] here writes the `vjp` functions: their signatures, with the bodies from
//! [`forward`] (the user's code, saving values) and [`adjoint`] (the reverse sweep, calling
//! the runtime's rules). Every runtime path is written in [`paths`].

mod adjoint;
mod checkpoint;
pub mod companion;
mod forward;
mod invariants;
pub mod paths;
mod remat;
mod replay;
mod tangent;
pub mod wrapper;
mod writes;

use std::cell::RefCell;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Expr, Ident, ItemFn, Lit, Type};

use crate::analyse::saves;
use crate::analyse::zero_d::{self, Plan};
use crate::model::ir::{Body, Callee, Operand, RETURN_REGION};
use crate::model::sig::{Kind, Param, Signature};
use crate::syntax::mixed;

/// The tangent functions of a scalar-mode function: `jvp` and `jvp_call`.
pub struct Tangent {
    pub jvp: TokenStream,
    pub jvp_call: TokenStream,
}

/// The functions of the 0-d path: `vjp_scalar` and `primal_scalar`.
pub struct ZeroD {
    pub vjp: TokenStream,
    pub primal: TokenStream,
}

/// The name of the save of how a region's run ended (see [`Stmt::Jump`](crate::model::ir::Stmt)).
fn exit_name(region: usize) -> String {
    if region == RETURN_REGION {
        "exit_return".to_string()
    } else {
        format!("exit{region}")
    }
}

/// The label of the block a `return` jump leaves.
fn return_label() -> syn::Lifetime {
    syn::Lifetime {
        apostrophe: proc_macro2::Span::mixed_site(),
        ident: mixed("gradtape_return"),
    }
}

pub fn pretty(vjp: &TokenStream) -> String {
    match syn::parse2::<syn::File>(vjp.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => vjp.to_string(),
    }
}

fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => matches!(lit.lit, Lit::Float(_) | Lit::Int(_)),
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Neg(_)) && is_literal(&unary.expr),
        Expr::Paren(paren) => is_literal(&paren.expr),
        Expr::Group(group) => is_literal(&group.expr),
        _ => false,
    }
}

/// Parenthesises an expression used as a method receiver unless it is already atomic.
fn receiver(expr: &Expr) -> TokenStream {
    match expr {
        Expr::Path(_) | Expr::Paren(_) | Expr::MethodCall(_) | Expr::Call(_) | Expr::Lit(_) => {
            quote!(#expr)
        }
        other => quote!((#other)),
    }
}

/// `&expr`, parenthesised as needed.
fn borrow(expr: &Expr) -> TokenStream {
    let inner = receiver(expr);
    quote!(&#inner)
}

/// A value the forward code saves for the adjoint.
struct Save {
    name: Ident,
    depth: usize,
    /// Saved at most once per call (in a branch, in no loop): its stack is a
    /// `generated::SavedOnce`, one slot and no allocation, rather than a `Vec`.
    once: bool,
    /// Saved exactly once per trip of a loop (`LoopSaves::by_trip`): a field of the
    /// loop's record, one record pushed per trip, so that one run of the loop leaves
    /// exactly its trip count of records, which the adjoint takes as one slice and reads
    /// at the replayed trip's index.
    trip: Option<RecordField>,
}

/// Where a save made by trip lives: its loop, and its field in the loop's record.
///
/// A loop saving by trip binds each such value to a local as it is made and pushes them
/// together, one tuple per trip, at its trip's end, which every trip reaches (no jump ends
/// one early): one stack, one capacity test and one length per trip, where a stack per
/// save kept each stack's pointer, length and capacity live through the trip (more than
/// the registers, so spilled and reloaded by every save; ode's step saved 2.4 ns per
/// element this way, against 4.3).
#[derive(Clone, Copy)]
struct RecordField {
    loop_id: usize,
    index: usize,
}

impl RecordField {
    /// The stack of the loop's records (as any save's: `Save::stack`, `Save::cursor`).
    fn record(loop_id: usize) -> Save {
        Save {
            name: mixed(&format!("record{loop_id}")),
            depth: 1,
            once: false,
            trip: None,
        }
    }

    /// The local a save by trip is kept in until its trip's end: a name of its own, as
    /// the forward code binds a flag or a trip count to the save's name itself before
    /// keeping it.
    fn local(save: &Ident) -> Ident {
        mixed(&format!("{save}_trip"))
    }

    /// The slice of the loop's records that one run of it pushed (`trip_saves`), which
    /// the adjoint reads at the replayed trip.
    fn slots(loop_id: usize) -> Ident {
        Self::record(loop_id).slots()
    }
}

impl Save {
    fn stack(&self) -> Ident {
        crate::syntax::mixed(&format!("{}_stack", self.name))
    }
    fn cursor(&self) -> Ident {
        crate::syntax::mixed(&format!("{}_at", self.name))
    }

    /// The slice of this save's stack that one run of its loop pushed, which the adjoint
    /// reads trip by trip, when it is saved by trip.
    fn slots(&self) -> Ident {
        crate::syntax::mixed(&format!("{}_slots", self.name))
    }

    /// Forward: keep `value` (at depth 0 as a local the pullback captures, by trip as the
    /// local its trip's record takes at the trip's end, otherwise on a stack, one entry
    /// per execution).
    fn keep(&self, value: TokenStream) -> TokenStream {
        let name = &self.name;
        if self.depth == 0 {
            quote!(let #name = #value;)
        } else if self.trip.is_some() {
            // declared as the trip starts (`forward_loop`), assigned exactly once per trip
            let local = RecordField::local(name);
            quote!(#local = #value;)
        } else {
            // not `Vec::push`: its growth path in the loop body keeps the loop's
            // accumulators in memory (`generated::keep`)
            let stack = self.stack();
            if self.once {
                quote!(generated::keep_once(&mut #stack, #value);)
            } else {
                quote!(generated::keep(&mut #stack, #value);)
            }
        }
    }

    /// Adjoint: code that makes `self.name` available, and a reference to it.
    fn recall(&self) -> (TokenStream, TokenStream) {
        let name = &self.name;
        if self.depth == 0 {
            (quote!(), quote!(&#name))
        } else if let Some(RecordField { loop_id, index }) = self.trip {
            // the trip being replayed, below the slice's length, the trip count: no check
            let slots = RecordField::slots(loop_id);
            let (replay, index) = (
                Generator::replay_counter(loop_id).1,
                syn::Index::from(index),
            );
            (quote!(let #name = &#slots[#replay].#index;), quote!(#name))
        } else {
            let (stack, cursor) = (self.stack(), self.cursor());
            (
                quote!(let #name = generated::pop(&#stack, &mut #cursor);),
                quote!(#name),
            )
        }
    }
}

/// The saves of a loop being generated (forward code).
struct LoopSaves {
    id: usize,
    /// Whether the loop saves by trip: no jump ends it or one of its trips early (so each
    /// save made in no branch of its body is made exactly once per trip), in scalar mode
    /// or on the 0-d path, outside a checkpointed body.
    by_trip: bool,
    /// How many branches and arms enclose the loop's body: a save made at that level runs
    /// exactly once per trip.
    branches: usize,
    /// Saves made at most once per trip, pushed on their stacks (room for the trip count
    /// reserved up front).
    per_trip: Vec<Ident>,
    /// Saves made exactly once per trip, read back by trip (`by_trip`): the fields of
    /// the loop's record, in order.
    indexed: Vec<Ident>,
}

/// What the generated code computes with.
#[derive(Clone, Copy)]
pub enum Flavour<'p> {
    /// Tensors: a tensor function's `vjp`.
    Tensor,
    /// Plain numbers: a scalar function's `vjp`.
    Scalar,
    /// Plain numbers standing for the 0-d tensors of a tensor function: its `vjp_scalar`
    /// (see [`zero_d`](crate::analyse::zero_d)).
    ZeroD(&'p Plan),
}

pub struct Generator<'a> {
    sig: &'a Signature,
    body: &'a Body,
    flavour: Flavour<'a>,
    pub useful: Vec<bool>,
    /// Saves at depth > 0 (their stacks are declared up front).
    stacks: RefCell<Vec<Ident>>,
    /// Those of `stacks` made in no loop, so at most once per call (`Save::once`).
    saved_once: RefCell<Vec<Ident>>,
    /// For each loop being generated, innermost last: the saves made at most once per
    /// iteration (their stacks get room for the trip count before the loop starts).
    loops: RefCell<Vec<LoopSaves>>,
    /// How many branches and arms enclose the code being generated (forward).
    branches: std::cell::Cell<usize>,
    /// The saves made by trip, and their loop's record field (filled by the forward code,
    /// read by the adjoint's recalls).
    by_trip: RefCell<std::collections::HashMap<Ident, RecordField>>,
    /// For each plain block being generated, innermost last: the values saved in it at
    /// depth 0 (locals it hands out to the enclosing code, see `forward_scope`).
    scopes: RefCell<Vec<Vec<Ident>>>,
    /// Whether the forward code saves anything (not in `primal_scalar`).
    saving: bool,
    /// For each region being reversed (the body, loops), innermost last: its id and the
    /// name of how its current run ended, if a jump may end it early.
    regions: RefCell<Vec<Option<(usize, TokenStream)>>>,
    /// Writing `grad_into`: array parameters' shadows are the caller's buffers.
    into: bool,
    /// Writing `vjp_now`: the adjoint runs in the same body as the forward code, seeded
    /// with the caller's cotangent, and returns the pullback's entries.
    now: bool,
    /// Writing `vjp_into`: as `vjp_now`, but each array parameter's cotangent is added
    /// into the sink the caller hands over (`generated::Sink`), not returned.
    sinks: bool,
    /// The segment of a checkpointed loop the adjoint is replaying, if any.
    segment: RefCell<Option<checkpoint::Segment>>,
    /// What `grad_into`'s adjoint recomputes instead of saving (empty elsewhere).
    remat: remat::Remat<'a>,
    /// The adjoint's scratch buffers for arrays a replayed call writes, one per call site
    /// and argument, declared where the adjoint starts so every replay reuses one
    /// allocation.
    scratches: RefCell<Vec<Ident>>,
    /// The replayed calls split in the last trip of their loop (`replay::split_call`), by
    /// call id, with their loop's id: each declares its slot for the callee's adjoint
    /// where the function starts, and its loop counts its trips.
    splits: RefCell<Vec<(usize, usize)>>,
    /// The operands loops save once as they start rather than on every trip.
    invariants: invariants::Invariants,
    /// The shadows the adjoint of a loop being reversed reads and writes through a window
    /// taken before its trips' replay (`adjoint::TripWindow`), by array binding.
    windows: RefCell<std::collections::HashMap<usize, adjoint::TripWindow>>,
    /// The array parameters the adjoint of a loop being reversed reads again (`remat`)
    /// through a window taken before its trips' replay, by array binding.
    read_windows: RefCell<std::collections::HashMap<usize, adjoint::TripWindow>>,
}

impl<'a> Generator<'a> {
    pub fn new(sig: &'a Signature, body: &'a Body, flavour: Flavour<'a>) -> Self {
        let mut generator = Generator {
            sig,
            body,
            flavour,
            useful: saves::useful(body),
            stacks: Default::default(),
            saved_once: Default::default(),
            loops: Default::default(),
            branches: Default::default(),
            by_trip: Default::default(),
            scopes: Default::default(),
            saving: true,
            regions: Default::default(),
            into: false,
            now: false,
            sinks: false,
            segment: Default::default(),
            remat: Default::default(),
            invariants: Default::default(),
            scratches: Default::default(),
            splits: Default::default(),
            windows: Default::default(),
            read_windows: Default::default(),
        };
        generator.invariants = invariants::Invariants::plan(&generator);
        generator
    }

    /// The generator of `grad_into` (scalar mode): gradients into the caller's buffers.
    pub fn into_buffers(sig: &'a Signature, body: &'a Body) -> Self {
        Generator {
            into: true,
            remat: remat::Remat::plan(sig, body),
            ..Generator::new(sig, body, Flavour::Scalar)
        }
    }

    /// The generator of `vjp_now` (scalar mode): forward and adjoint in one body, as
    /// `grad_into`'s (so it recomputes what `grad_into` recomputes), with the pullback's
    /// zeroed shadows and entries.
    pub fn now(sig: &'a Signature, body: &'a Body) -> Self {
        Generator {
            now: true,
            remat: remat::Remat::plan(sig, body),
            ..Generator::new(sig, body, Flavour::Scalar)
        }
    }

    /// The generator of `vjp_into` (scalar mode): `vjp_now`'s, with the array parameters'
    /// cotangents added into the caller's sinks (what a replayed call's adjoint calls,
    /// [`replayed_call`](Self::replayed_call)).
    pub fn into_sinks(sig: &'a Signature, body: &'a Body) -> Self {
        Generator {
            sinks: true,
            remat: remat::Remat::plan(sig, body),
            ..Generator::new(sig, body, Flavour::Scalar)
        }
    }

    /// Whether the adjoint runs in the same body as the forward code (`grad_into`,
    /// `vjp_now`, `vjp_into`): the parameters are still borrowed there, unchanged.
    fn same_body(&self) -> bool {
        self.into || self.now || self.sinks
    }

    /// Whether a call runs in *joint* mode (Tapenade's term): the forward code calls the
    /// callee's primal, and the adjoint its `vjp_now`, which recomputes the callee's
    /// forward and its adjoint at once, reading its arguments in place, instead of the
    /// callee's `vjp` saving copies of what its pullback will read. Only where the
    /// adjoint runs in the same body (`same_body`), for a call in straight-line code
    /// (depth 0: run exactly once), of an annotated function or method (not a plain
    /// helper), whose arguments are all literals or parameters the body cannot change
    /// (not `mut`, not `&mut` outputs), borrowed (`&p`) or of a type that is `Copy` by its
    /// spelling (a reference, a float, an integer), so that the adjoint's call sees the
    /// forward's. The forward code borrows each argument into a local of its own
    /// ([`joint_args`](Self::joint_args)), which both calls read: a later `let` shadowing
    /// a parameter's name cannot change what the adjoint passes.
    pub(super) fn joint_call(&self, func: &Callee, args: &[Operand], depth: usize) -> bool {
        if !self.same_body()
            || depth > 0
            || matches!(
                func,
                Callee::Plain(_) | Callee::Gathered(..) | Callee::Field(_)
            )
        {
            return false;
        }
        args.iter().all(|arg| {
            let (expr, borrowed) = crate::syntax::strip_shared_borrow(arg.fwd());
            is_literal(expr)
                || crate::syntax::single_ident(expr)
                    .is_some_and(|ident| self.stable_param(ident, borrowed))
        })
    }

    /// Whether `ident` is a parameter the body cannot change (not `mut`, not a `&mut`
    /// output), passed borrowed (`&p`) or of a type `Copy` by its spelling: an argument
    /// the adjoint may read again as it is.
    fn stable_param(&self, ident: &Ident, borrowed: bool) -> bool {
        self.sig.params.iter().any(|p| {
            &p.ident == ident
                && !p.mutable
                && !p.is_output_array()
                && (borrowed || copied_by_spelling(&p.ty, &self.sig.floats))
        })
    }

    /// A joint call's arguments as the forward code borrows them (`let joint3_0 =
    /// &(x);`), and as both calls then read them (`*joint3_0`).
    pub(super) fn joint_args(&self, id: usize, args: &[Operand]) -> (TokenStream, Vec<Operand>) {
        let mut borrows = TokenStream::new();
        let read = args
            .iter()
            .enumerate()
            .map(|(k, arg)| {
                let name = mixed(&format!("joint{id}_{k}"));
                let fwd = arg.fwd();
                borrows.extend(quote!(let #name = &(#fwd);));
                Operand::Inactive(syn::parse_quote!(*#name))
            })
            .collect();
        (borrows, read)
    }

    /// What `vjp` and `vjp_now` are built from, generated in the order the stacks need:
    /// the bodies first, which register the stacks `stack_code` then declares.
    fn pieces(&self, item: &ItemFn) -> Pieces {
        let forward = self.forward_body();
        let adjoint = self.adjoint_fn_body();
        let (stack_decls, cursors) = self.stack_code();
        Pieces {
            forward,
            adjoint,
            stack_decls,
            cursors,
            value: self.value(),
            lens: self.array_lens(),
            params: self.params(),
            cot_ty: self.cotangent_type(),
            grads_ty: self.grads_type(),
            ret_ty: self.ret_type(item),
        }
    }

    /// `vjp_now(params.., g) -> (value, entries)`: `vjp` and its pullback applied to `g` at
    /// once, in one body, what a caller's adjoint calls in joint mode
    /// ([`joint_call`](Self::joint_call)). No pullback is built, and what `grad_into`
    /// recomputes is read in place rather than saved.
    pub fn vjp_now_fn(&self, item: &ItemFn) -> TokenStream {
        self.one_body_fn(item, "vjp_now", &item.sig.generics, None)
    }

    /// `name(params.., g[, sinks]) -> (value, entries)`: the forward code and the adjoint
    /// seeded with `g` in one body (`vjp_now`, and `vjp_into` with its sinks' parameter).
    fn one_body_fn(
        &self,
        item: &ItemFn,
        name: &str,
        generics: &syn::Generics,
        sinks: Option<TokenStream>,
    ) -> TokenStream {
        let Pieces {
            forward,
            adjoint,
            stack_decls,
            cursors,
            value,
            lens,
            params,
            cot_ty,
            grads_ty,
            ret_ty,
        } = self.pieces(item);
        let name = Ident::new(name, proc_macro2::Span::call_site());
        let where_clause = &generics.where_clause;
        let (g, value_name) = (mixed("g"), mixed("value"));
        // `vjp_into`'s cotangent is `Option`, `None` for a value its caller dropped
        let cot_ty = if self.seed_optional() {
            quote!(::core::option::Option<#cot_ty>)
        } else {
            cot_ty
        };
        let imports = paths::imports();
        let sinks = sinks.map(|sinks| quote!(, #sinks));
        quote! {
            pub fn #name #generics (#(#params,)* #g: #cot_ty #sinks) -> (#ret_ty, #grads_ty) #where_clause {
                #imports
                #(#stack_decls)*
                #lens
                #forward
                let #value_name = #value;
                #(#cursors)*
                (#value_name, { #adjoint })
            }
        }
    }

    /// `vjp_into(params.., g, (sinks..)) -> (value, entries)`: `vjp_now` with a tuple of one
    /// sink per parameter after the cotangent (`generated::Sink` of the element type
    /// for a differentiable array, whose cotangent is added there and whose entry is `()`;
    /// only `generated::NoSink` for any other parameter). Hidden: what a caller's adjoint
    /// calls for a replayed call.
    pub fn vjp_into_fn(&self, item: &ItemFn) -> TokenStream {
        let generated = paths::generated();
        let mut generics = item.sig.generics.clone();
        let (mut sinks, mut sink_types) = (Vec::new(), Vec::new());
        for (k, (param, binding)) in self.sig.params.iter().zip(&self.body.params).enumerate() {
            let ty = format_ident!("GradtapeSink{k}");
            let array = binding.is_some_and(|b| self.body.bindings[b].array) && !param.is_ragged();
            let bound: syn::TypeParam = if array {
                let elem = param.elem.as_ref().expect("a float array");
                syn::parse_quote!(#ty: #generated::Sink<#elem>)
            } else {
                syn::parse_quote!(#ty: #generated::NoArraySink)
            };
            generics.params.push(syn::GenericParam::Type(bound));
            sinks.push(Self::sink(param));
            sink_types.push(ty);
        }
        let sinks = quote!((#(#sinks,)*): (#(#sink_types,)*));
        self.one_body_fn(item, "vjp_into", &generics, Some(sinks))
    }

    /// `vjp_split(params..) -> (value, Option<adjoint>)`: `vjp_into` cut in two, what a
    /// caller runs for a replayed call in the last trip of a loop over a range
    /// ([`split_call`](Self::split_call)): the forward code with its saves runs now, on the
    /// caller's own arguments (it writes the caller's arrays, as the call as written would),
    /// and the adjoint is handed back as a closure taking the cotangent and one sink per
    /// parameter (`Option<&mut [F]>` of the caller's shadow for a differentiable array,
    /// `None` for none; `generated::NoSink` for any other parameter), so the callee's
    /// forward runs once instead of twice (as written, then again in `vjp_into`).
    ///
    /// The closure owns the saves and borrows only the shared parameters (each `&` given a
    /// lifetime of its own, the only ones it captures, `use<..>`): a written `&mut` array
    /// stays the caller's to read and write before the adjoint runs. Where that cannot be
    /// said in the signature (a lifetime the user spelled, a reference inside a type,
    /// `impl Trait`), where the adjoint reads a `&mut` parameter in place, or where the
    /// body calls other functions (a joint call's forward code borrows the function's own
    /// locals; a split of its own would hold its callees' adjoint types, and a cycle a type
    /// containing itself, rustc's E0720) or holds a struct, the call runs as written and no closure comes back
    /// (`None`, and `SPLITS` is `false`): the caller then replays it from the copies it
    /// saved, as for any other trip. Invariant: `Some` only when the closure's
    /// adjoint is exactly `vjp_into`'s for these arguments.
    ///
    /// A free function's only (empty for a method: a method's companion items are renamed
    /// per method, `method_companion`, and no caller splits a method's call), and not shown
    /// in `f::GENERATED` (it is `vjp_into`'s code, cut in two). Call it on a generator of
    /// its own (`into_sinks`): generating registers the stacks the code declares.
    pub fn vjp_split_fn(&self, item: &ItemFn) -> TokenStream {
        if item.sig.receiver().is_some() || crate::syntax::is_in_impl_block() {
            return TokenStream::new();
        }
        let generated = paths::generated();
        let Pieces {
            forward,
            adjoint,
            stack_decls,
            cursors,
            value,
            lens,
            params: _,
            cot_ty,
            grads_ty,
            ret_ty,
        } = self.pieces(item);
        let cot_ty = quote!(::core::option::Option<#cot_ty>);
        let (mut sinks, mut sink_types) = (Vec::new(), Vec::new());
        for (param, binding) in self.sig.params.iter().zip(&self.body.params) {
            let array = binding.is_some_and(|b| self.body.bindings[b].array) && !param.is_ragged();
            sinks.push(Self::sink(param));
            sink_types.push(if array {
                let elem = param.elem.as_ref().expect("a float array");
                quote!(::core::option::Option<&mut [#elem]>)
            } else {
                quote!(#generated::NoSink)
            });
        }
        let tape_ty = quote!(::core::ops::FnOnce(#cot_ty, (#(#sink_types,)*)) -> #grads_ty);
        // each `&` parameter a lifetime of its own; the closure captures the shared ones
        let mut generics = item.sig.generics.clone();
        let mut lifetimes: Vec<syn::Lifetime> = Vec::new();
        let mut captured: Vec<TokenStream> = Vec::new();
        let mut params = Vec::new();
        let mut splits = item.sig.generics.lifetimes().next().is_none();
        let mut written = Vec::new();
        for (k, p) in self.sig.params.iter().enumerate() {
            let ident = &p.ident;
            let mutability = p.mutable.then(|| quote!(mut));
            let ty = match &p.ty {
                Type::Reference(reference) if reference.lifetime.is_none() => {
                    splits &= no_borrow_inside(&reference.elem);
                    let lifetime = syn::Lifetime::new(
                        &format!("'gradtape_p{k}"),
                        proc_macro2::Span::call_site(),
                    );
                    lifetimes.push(lifetime.clone());
                    if reference.mutability.is_some() {
                        written.push(ident.to_string());
                    } else {
                        captured.push(quote!(#lifetime));
                    }
                    let mut reference = reference.clone();
                    reference.lifetime = Some(lifetime);
                    quote!(#reference)
                }
                other => {
                    splits &= no_borrow_inside(other);
                    quote!(#other)
                }
            };
            params.push(quote!(#mutability #ident: #ty));
        }
        splits &= !mentions_any(&adjoint, &written);
        // a body splitting calls of its own calls functions: declined below too
        splits &= self.splits.borrow().is_empty();
        // Only a leaf over numbers and flat arrays: a call's forward code may borrow the
        // function's own locals for its adjoint (a joint call's `&(arg)`), which no closure
        // handed out can hold, and a struct or a hidden twin may hold anything.
        splits &= calls_nothing(&self.body.block)
            && !self.body.bindings.iter().any(|b| b.whole)
            && !item.sig.ident.to_string().starts_with("__gradtape_");
        for lifetime in lifetimes.iter().rev() {
            generics.params.insert(
                0,
                syn::GenericParam::Lifetime(syn::LifetimeParam::new(lifetime.clone())),
            );
        }
        for param in item.sig.generics.params.iter() {
            match param {
                syn::GenericParam::Type(t) => {
                    let ident = &t.ident;
                    captured.push(quote!(#ident));
                }
                syn::GenericParam::Const(c) => {
                    let ident = &c.ident;
                    captured.push(quote!(#ident));
                }
                syn::GenericParam::Lifetime(_) => {}
            }
        }
        let where_clause = &generics.where_clause;
        let imports = paths::imports();
        let (g, value_name) = (mixed("g"), mixed("value"));
        if !splits {
            let names = self.sig.params.iter().map(|p| &p.ident);
            return quote! {
                /// Whether `vjp_split` hands its adjoint back (never, here).
                #[doc(hidden)]
                pub const SPLITS: bool = false;

                #[doc(hidden)]
                #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
                pub fn vjp_split #generics (#(#params,)*) -> (#ret_ty, ::core::option::Option<fn(#cot_ty, (#(#sink_types,)*)) -> #grads_ty>) #where_clause {
                    (Self::primal(#(#names),*), ::core::option::Option::None)
                }
            };
        }
        quote! {
            /// Whether `vjp_split` hands its adjoint back (always, here): a caller then
            /// saves no copy of the arrays for the call it splits.
            #[doc(hidden)]
            pub const SPLITS: bool = true;
            #[doc(hidden)]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            pub fn vjp_split #generics (#(#params,)*) -> (#ret_ty, ::core::option::Option<impl #tape_ty + use<#(#captured),*>>) #where_clause {
                #imports
                #(#stack_decls)*
                #lens
                #forward
                let #value_name = #value;
                #(#cursors)*
                (
                    #value_name,
                    ::core::option::Option::Some(move |#g: #cot_ty, (#(#sinks,)*): (#(#sink_types,)*)| -> #grads_ty { #adjoint }),
                )
            }
        }
    }

    /// A tuple result's `vjp_now` and `vjp_into` (which `one_body_fn` does not write):
    /// `vjp` and its pullback applied to `g` at once, `vjp_into` adding each differentiable
    /// array's cotangent into its sink (`generated::entry_into_sink`), as a struct result's
    /// companion builds them on its twin's `vjp`. A caller reads a tuple result by its
    /// parts (`Stmt::CallParts`, through `vjp`); it calls these only for one it holds as
    /// one value, which it can pass on only to a callee that cannot take it (no annotated
    /// function has a tuple parameter): that callee's message is then the one error, not
    /// also rustc's E0599 for these items.
    pub fn tuple_by_pullback_fns(&self, item: &ItemFn) -> (TokenStream, TokenStream) {
        let generated = paths::generated();
        let (params, cot_ty, ret_ty) = (self.params(), self.cotangent_type(), self.ret_type(item));
        let args: Vec<&Ident> = self.sig.params.iter().map(|p| &p.ident).collect();
        let (g, value, pullback, grads) = (
            mixed("g"),
            mixed("value"),
            mixed("pullback"),
            mixed("grads"),
        );
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let now_grads = Generator {
            sinks: false,
            ..Generator::new(self.sig, self.body, Flavour::Scalar)
        }
        .grads_type();
        let vjp_now = quote! {
            pub fn vjp_now #generics (#(#params,)* #g: #cot_ty) -> (#ret_ty, #now_grads) #where_clause {
                let (#value, #pullback) = Self::vjp(#(#args),*);
                (#value, #pullback(#g))
            }
        };
        let mut into_generics = generics.clone();
        let (mut sinks, mut sink_types, mut entries, mut entry_types) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (k, (param, binding)) in self.sig.params.iter().zip(&self.body.params).enumerate() {
            let ty = format_ident!("GradtapeSink{k}");
            let sink = Self::sink(param);
            let index = syn::Index::from(k);
            let array = binding.is_some_and(|b| self.body.bindings[b].array) && !param.is_ragged();
            let bound: syn::TypeParam = if array {
                let elem = param.elem.as_ref().expect("a float array");
                entries.push(quote!({ #generated::entry_into_sink(#grads.#index, #sink); }));
                entry_types.push(quote!(()));
                syn::parse_quote!(#ty: #generated::Sink<#elem>)
            } else {
                entries.push(quote!(#grads.#index));
                entry_types.push(
                    if param.differentiable(self.sig.mode) && !param.is_output_array() {
                        let cotangent = self.cotangent_of(param);
                        quote!(Option<#cotangent>)
                    } else {
                        quote!(())
                    },
                );
                syn::parse_quote!(#ty: #generated::NoArraySink)
            };
            into_generics.params.push(syn::GenericParam::Type(bound));
            sinks.push(sink);
            sink_types.push(ty);
        }
        let into_where = &into_generics.where_clause;
        let vjp_into = quote! {
            pub fn vjp_into #into_generics (#(#params,)* #g: ::core::option::Option<#cot_ty>, (#(#sinks,)*): (#(#sink_types,)*)) -> (#ret_ty, (#(#entry_types,)*)) #into_where {
                let (#value, #pullback) = Self::vjp_partial(#(#args),*);
                let #grads = #pullback(#g);
                (#value, (#(#entries,)*))
            }
        };
        (vjp_now, vjp_into)
    }

    /// The name of `vjp_into`'s sink for a parameter's cotangent.
    fn sink(param: &Param) -> Ident {
        mixed(&format!("sink_{}", param.ident))
    }

    /// The name of an array parameter's length, saved by the forward code of `vjp`.
    fn array_len(param: &Param) -> Ident {
        mixed(&format!("len_{}", param.ident))
    }

    /// The name of `grad_into`'s buffer for a parameter's gradient: `d_<param>`, at the
    /// mixed site, so that a user's local of that spelling in the body (`let mut d_x =
    /// 0.0;`) does not shadow it (regression: the adjoint wrote into the user's local,
    /// `differentiable_everyday::locals_spelled_like_buffers`).
    fn into_buffer(param: &Param) -> Ident {
        mixed(&format!("d_{}", param.ident))
    }

    /// `let len_a = a.len();` for each array parameter (its gradient's length).
    fn array_lens(&self) -> TokenStream {
        self.sig
            .params
            .iter()
            .zip(&self.body.params)
            .filter(|(_, b)| b.is_some_and(|b| self.body.bindings[b].array))
            .map(|(param, _)| {
                let (len, ident) = (Self::array_len(param), &param.ident);
                if param.is_ragged() {
                    // the gradient's shape: each row's length
                    return quote!(let #len = generated::row_lengths(&#ident[..]););
                }
                match param.array_row() {
                    // the flat shadow's length
                    Some(row) => quote!(let #len = #ident.len() * (#row);),
                    None => quote!(let #len = #ident.len();),
                }
            })
            .collect()
    }

    /// The forward code alone, on numbers: `primal_scalar`, which the function runs for
    /// 0-d inputs when nothing records.
    pub fn primal(sig: &'a Signature, body: &'a Body, plan: &'a Plan) -> Self {
        Generator {
            useful: vec![false; body.bindings.len()],
            saving: false,
            ..Generator::new(sig, body, Flavour::ZeroD(plan))
        }
    }

    fn tensor(&self) -> bool {
        matches!(self.flavour, Flavour::Tensor)
    }

    /// The element type the 0-d path computes with, if this is the 0-d path.
    fn zero_d(&self) -> Option<&Type> {
        match self.flavour {
            Flavour::ZeroD(plan) => Some(&plan.elem),
            _ => None,
        }
    }

    fn save(&self, name: String, depth: usize) -> Save {
        self.save_kind(name, depth, false)
    }

    /// A save of a number (an operand in scalar mode or on the 0-d path, an index, a flag,
    /// a trip count), which a loop saving by trip reads back by trip when the save is
    /// made exactly once per trip.
    fn save_number(&self, name: String, depth: usize) -> Save {
        self.save_kind(name, depth, true)
    }

    fn save_kind(&self, name: String, depth: usize, number: bool) -> Save {
        let once = depth > 0 && self.loops.borrow().is_empty();
        let name = mixed(&name);
        // saved by trip: a number, in a loop that saves by trip, in no branch of its body
        let trip = self.loops.borrow().last().and_then(|saves| {
            (number
                && depth > 0
                && self.saving
                && saves.by_trip
                && saves.branches == self.branches.get())
            .then_some(RecordField {
                loop_id: saves.id,
                index: saves.indexed.len(),
            })
        });
        let save = Save {
            name,
            depth,
            once,
            trip,
        };
        if depth == 0
            && self.saving
            && let Some(saved) = self.scopes.borrow_mut().last_mut()
        {
            saved.push(save.name.clone());
        }
        if depth > 0 && self.saving {
            if let Some(field) = trip {
                // a field of its loop's record, whose stack the loop registers
                let mut loops = self.loops.borrow_mut();
                let saves = loops.last_mut().expect("a save by trip is in a loop");
                saves.indexed.push(save.name.clone());
                self.by_trip.borrow_mut().insert(save.name.clone(), field);
            } else {
                self.stacks.borrow_mut().push(save.name.clone());
                if once {
                    self.saved_once.borrow_mut().push(save.name.clone());
                }
                if let Some(saves) = self.loops.borrow_mut().last_mut() {
                    saves.per_trip.push(save.name.clone());
                }
            }
        }
        save
    }

    /// A save registered by `save` elsewhere (a region's exit, a loop's trip count), made
    /// here too (by a jump): on the same stack, of the same kind.
    fn saved_before(&self, name: String) -> Save {
        let name = mixed(&name);
        let once = self.saved_once.borrow().contains(&name);
        let trip = self.by_trip.borrow().get(&name).copied();
        Save {
            name,
            depth: 1,
            once,
            trip,
        }
    }

    /// An operand as the forward code reads it: the user's expression, or on the 0-d path
    /// the binding's number (whatever borrows or clones the tensor code had) or the
    /// constant as a number.
    fn operand(&self, operand: &Operand) -> TokenStream {
        match (self.flavour, operand) {
            (Flavour::ZeroD(_), Operand::Active { binding, .. }) => {
                let name = self.name(*binding);
                quote!(#name)
            }
            (Flavour::ZeroD(plan), Operand::Inactive(expr)) => number_constant(expr, &plan.elem),
            (_, operand) => {
                let fwd = operand.fwd();
                quote!(#fwd)
            }
        }
    }

    /// An operand as a method receiver.
    fn receiver(&self, operand: &Operand) -> TokenStream {
        match self.flavour {
            Flavour::ZeroD(_) => self.operand(operand),
            _ => receiver(operand.fwd()),
        }
    }

    /// `value as ty`, or `generated::float_cast::<T, _>(value)` when `ty` is one of the
    /// function's float type parameters, which `as` cannot name (the same value: a cast
    /// between `f32` and `f64`).
    fn cast_to(&self, value: TokenStream, ty: &syn::Type) -> TokenStream {
        let type_param = matches!(ty, syn::Type::Path(path)
            if path.qself.is_none()
                && path.path.get_ident().is_some_and(|ident| self.sig.floats.contains(ident)));
        if type_param {
            quote!(generated::float_cast::<#ty, _>(#value))
        } else {
            quote!(#value as #ty)
        }
    }

    /// An owned copy of an operand's value, to save for the adjoint (on the 0-d path the
    /// number itself).
    fn owned(&self, operand: &Operand) -> TokenStream {
        match self.flavour {
            Flavour::ZeroD(_) => self.operand(operand),
            _ => {
                let fwd = borrow(operand.fwd());
                quote!(generated::own(#fwd))
            }
        }
    }

    /// The type of a parameter's cotangent (`E` on the 0-d path).
    fn cotangent_of(&self, param: &Param) -> TokenStream {
        match self.zero_d() {
            Some(elem) => quote!(#elem),
            None => param.cotangent_type(),
        }
    }

    /// The type of a result (`E` on the 0-d path).
    fn output_type(&self, ty: &Type) -> TokenStream {
        match self.zero_d() {
            Some(elem) => quote!(#elem),
            None => quote!(#ty),
        }
    }

    /// The cotangents of a tuple result's parts, taken from their slots (`None` for a part
    /// the adjoint does not need), in order: what `generated::FromParts` assembles.
    fn parts_cotangents(&self, parts: &[usize]) -> Vec<TokenStream> {
        parts
            .iter()
            .map(|&b| {
                if self.useful[b] {
                    let slot = self.slot(b);
                    quote!(#slot.take())
                } else {
                    quote!(None)
                }
            })
            .collect()
    }

    fn slot(&self, binding: usize) -> &Ident {
        &self.body.bindings[binding].slot
    }

    fn name(&self, binding: usize) -> &Ident {
        &self.body.bindings[binding].name
    }

    // ----- the generated functions -----

    /// The declarations of the stacks the forward code saves on (called after the forward
    /// and adjoint bodies are generated, which register them), and the adjoint's cursors
    /// into them, each starting at its stack's end.
    fn stack_code(&self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let stacks = self.stacks.borrow();
        let saved_once = self.saved_once.borrow();
        let once = |name: &Ident| saved_once.contains(name);
        let generated = paths::generated();
        // Stacks of long loops are large: glibc would serve each from a fresh mapping and
        // fault its pages in on every call, unless its threshold is raised first (once per
        // process; `runtime::base::alloc`).
        let prime = stacks
            .iter()
            .any(|name| !once(name))
            .then(|| quote!(#generated::keep_large_buffers();));
        // each split call's slot for its callee's adjoint (`replay::split_call`), its
        // type inferred from the one assignment in the forward code
        let mut split_ids: Vec<usize> = self.splits.borrow().iter().map(|&(id, _)| id).collect();
        split_ids.sort_unstable();
        split_ids.dedup();
        let split_slots = split_ids.into_iter().map(|id| {
            let slot = Self::split_slot(id);
            quote!(let mut #slot = ::core::option::Option::None;)
        });
        let decls = prime
            .into_iter()
            .chain(split_slots)
            .chain(stacks.iter().map(|name| {
                let stack = crate::syntax::mixed(&format!("{}_stack", name));
                if once(name) {
                    quote!(let mut #stack = #generated::SavedOnce::new();)
                } else {
                    quote!(let mut #stack = ::std::vec::Vec::new();)
                }
            }))
            .collect();
        let cursors = stacks
            .iter()
            .map(|name| {
                let (stack, cursor) = (
                    crate::syntax::mixed(&format!("{}_stack", name)),
                    crate::syntax::mixed(&format!("{}_at", name)),
                );
                quote!(let mut #cursor = #stack.len();)
            })
            .collect();
        (decls, cursors)
    }

    pub fn vjp_fn(&self, item: &ItemFn) -> TokenStream {
        let Pieces {
            forward,
            adjoint,
            stack_decls,
            cursors,
            value,
            lens,
            params,
            cot_ty,
            grads_ty,
            ret_ty,
        } = self.pieces(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        // the `impl`'s float parameters too, in scope for a method (`use<..>` must name
        // every type parameter in scope)
        let mut captured = crate::syntax::type_and_const_params(generics);
        captured.extend(crate::model::sig::impl_floats(item));
        let g = mixed("g");
        let value_name = mixed("value");
        let read_value = self.read_value_import();
        // Scalar mode: the body is `vjp_partial`, whose pullback takes `Option` of the
        // result's cotangent, and `vjp` passes it `Some` (the wrapper below).
        let partial = self.seed_optional();
        let fn_name = match self.flavour {
            Flavour::ZeroD(_) => format_ident!("vjp_scalar"),
            _ if partial => format_ident!("vjp_partial"),
            _ => format_ident!("vjp"),
        };
        let public_cot_ty = cot_ty.clone();
        let cot_ty = if partial {
            quote!(::core::option::Option<#cot_ty>)
        } else {
            cot_ty
        };
        let imports = paths::imports();
        // A `&mut` array output's shadow is the caller's, in place: one more argument of
        // the pullback per written array, its flat numbers (`d_<param>`, of the array's
        // length), holding the cotangent of the array's values after the call on entry
        // and that of its values before the call on return.
        let (written, written_tys): (Vec<TokenStream>, Vec<TokenStream>) = self
            .sig
            .params
            .iter()
            .filter(|p| p.is_output_array())
            .map(|p| {
                let (buffer, elem) = (
                    Self::into_buffer(p),
                    p.elem.as_ref().expect("a float array"),
                );
                (quote!(#buffer: &mut [#elem]), quote!(&mut [#elem]))
            })
            .unzip();
        let pullback = quote!(move |#g: #cot_ty #(, #written)*| -> #grads_ty {
            #(#cursors)*
            #adjoint
        });
        // A function on a cycle of calls keeps its own pullback inside it: as an `impl Fn`
        // that type would contain itself (rustc's E0720), so it is boxed. So is one whose
        // `vjp` bounds what a checkpointed loop's borrowed constants point to
        // (`referents_copied`): an `impl Fn` carries `vjp`'s bounds, so a type that fails
        // them would be reported again at each use of the pullback, in rustc's words; a box
        // is checked once, at the call (one allocation per call, beside the snapshots').
        let referents_copied = self.referents_copied();
        let boxed = self.body.boxed || !referents_copied.is_empty();
        let (pullback_ty, pullback) = if boxed {
            (
                quote!(::std::boxed::Box<dyn Fn(#cot_ty #(, #written_tys)*) -> #grads_ty>),
                quote!(::std::boxed::Box::new(#pullback)),
            )
        } else {
            (
                quote!(impl Fn(#cot_ty #(, #written_tys)*) -> #grads_ty + use<#(#captured),*>),
                pullback,
            )
        };
        // A boxed pullback is `'static` (like the `impl Fn`, it captures no reference),
        // so its type parameters must be too: floats are.
        let where_clause = if boxed {
            let mut generics = generics.clone();
            let clause = generics.make_where_clause();
            for param in &item.sig.generics.params {
                if let syn::GenericParam::Type(t) = param {
                    let ident = &t.ident;
                    clause.predicates.push(syn::parse_quote!(#ident: 'static));
                }
            }
            for bound in referents_copied {
                clause.predicates.push(syn::parse_quote!(#bound));
            }
            generics.where_clause.map(|clause| quote!(#clause))
        } else {
            where_clause.as_ref().map(|clause| quote!(#clause))
        };
        let function = quote! {
            pub fn #fn_name #generics (#(#params),*) -> (#ret_ty, #pullback_ty) #where_clause {
                #imports
                #read_value
                #(#stack_decls)*
                #lens
                #forward
                let #value_name = #value;
                (#value_name, #pullback)
            }
        };
        if !partial {
            return function;
        }
        // `vjp` first: the companion's doc and attributes are written before the tokens
        let public_pullback_ty = if boxed {
            quote!(::std::boxed::Box<dyn Fn(#public_cot_ty #(, #written_tys)*) -> #grads_ty>)
        } else {
            quote!(impl Fn(#public_cot_ty #(, #written_tys)*) -> #grads_ty + use<#(#captured),*>)
        };
        let args = self.sig.params.iter().map(|p| &p.ident);
        let buffers: Vec<Ident> = self
            .sig
            .params
            .iter()
            .filter(|p| p.is_output_array())
            .map(Self::into_buffer)
            .collect();
        let partial_pullback = mixed("pullback");
        let mut wrapped = quote!(move |#g: #public_cot_ty #(, #written)*| -> #grads_ty {
            #partial_pullback(::core::option::Option::Some(#g) #(, #buffers)*)
        });
        if boxed {
            wrapped = quote!(::std::boxed::Box::new(#wrapped));
        }
        // `vjp_partial`: `vjp` whose pullback takes `Option` of the result's cotangent,
        // `None` when the value reaches nothing (a caller dropped it), so that its
        // contribution is skipped, not multiplied by a zero (`0 · ∞` is NaN where a
        // partial is infinite), as the tape skips an output no target depends on: what an
        // annotated caller's code calls (the companion gives it its attributes, hidden)
        let params = self.params();
        quote! {
            pub fn vjp #generics (#(#params),*) -> (#ret_ty, #public_pullback_ty) #where_clause {
                let (#value_name, #partial_pullback) = Self::vjp_partial(#(#args),*);
                (#value_name, #wrapped)
            }

            #function
        }
    }

    /// Whether the adjoint's seed is `Option` of the result's cotangent (`None`: no
    /// cotangent, the seed skipped): in scalar mode, `vjp_partial`'s pullback and
    /// `vjp_into`, what callers call for a value they may drop. (`vjp_now` and
    /// `grad_into` are always seeded.)
    fn seed_optional(&self) -> bool {
        matches!(self.flavour, Flavour::Scalar) && !self.now && !self.into
    }

    /// `use generated::ReadValue as _;` when a parameter is a variable: in the generated
    /// functions it is the tensor read from it, and `.value()` on it (in code emitted as
    /// written, such as `stop_gradient(&w.value())`) must still compile.
    fn read_value_import(&self) -> Option<TokenStream> {
        let generated = paths::generated();
        self.sig
            .params
            .iter()
            .any(|p| p.kind == Kind::Variable)
            .then(|| quote!(use #generated::ReadValue as _;))
    }

    /// The result, as the forward code computed it (`()` for a function that only writes
    /// `&mut` arrays).
    fn value(&self) -> TokenStream {
        let outputs: Vec<TokenStream> = self.body.outputs.iter().map(|o| self.operand(o)).collect();
        if self.sig.tuple_output {
            quote!((#(#outputs),*))
        } else if outputs.is_empty() {
            quote!(())
        } else {
            quote!(#(#outputs)*)
        }
    }

    /// `grad_into(params.., d_params..) -> value` (scalar mode): the forward code, then the
    /// adjoint seeded with 1 (the result is a float) accumulating into the caller's
    /// buffers: `&mut [F]` for an array parameter (of its length), `&mut F` for a float.
    /// A `&mut [F]` output's buffer holds its cotangent on entry and, on return, the
    /// cotangent of the array's values before the call (Enzyme's shadow).
    pub fn grad_into_fn(&self, item: &ItemFn) -> TokenStream {
        let forward = self.forward_body();
        let adjoint = self.adjoint_fn_body();
        let (stack_decls, cursors) = self.stack_code();
        let value = self.value();
        let params = self.params();
        let name = item.sig.ident.to_string();
        let mut buffers = Vec::new();
        let mut checks = Vec::new();
        let mut scalars = TokenStream::new();
        let grads = mixed("grads");
        for (k, (param, binding)) in self.sig.params.iter().zip(&self.body.params).enumerate() {
            if binding.is_none() {
                continue;
            }
            let (buffer, elem, ident) = (
                Self::into_buffer(param),
                param.elem.as_ref().expect("differentiable"),
                &param.ident,
            );
            if param.is_output_array() || matches!(param.kind, Kind::Array { .. }) {
                let item = param.array_item();
                buffers.push(quote!(#buffer: &mut [#item]));
                let param_name = ident.to_string();
                if param.is_ragged() {
                    let function = format!("{name}::grad_into");
                    checks.push(quote!(generated::check_row_shadow(#function, #param_name, &#ident[..], &#buffer[..]);));
                    continue;
                }
                checks.push(quote!(generated::check_shadow(#name, #param_name, #ident.len(), #buffer.len());));
            } else if param.is_whole() {
                // `elem` is the struct's type
                buffers.push(quote!(#buffer: &mut #elem));
                let index = syn::Index::from(k);
                scalars.extend(quote!(generated::add_whole(#buffer, #grads.#index);));
            } else {
                buffers.push(quote!(#buffer: &mut #elem));
                let index = syn::Index::from(k);
                scalars.extend(quote!(if let Some(g) = #grads.#index { *#buffer += g; }));
            }
        }
        let g = mixed("g");
        let seed = match self.sig.outputs.first() {
            // `ONE`, not `1.0`: the result may be a generic float type
            Some(ty) => {
                let private = paths::private();
                quote!(let #g: #ty = <#ty as #private::DType>::ONE;)
            }
            None => quote!(let #g = ();),
        };
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let value_name = mixed("value");
        let imports = paths::imports();
        quote! {
            #[track_caller]
            pub fn grad_into #generics (#(#params,)* #(#buffers),*) -> #ret_ty #where_clause {
                #imports
                #(#checks)*
                #(#stack_decls)*
                #forward
                let #value_name = #value;
                #seed
                #(#cursors)*
                let #grads = { #adjoint };
                #scalars
                #value_name
            }
        }
    }

    /// The parameters of the generated functions: variables as the tensor read from them,
    /// on the 0-d path tensors as numbers.
    fn params(&self) -> Vec<TokenStream> {
        let params = self.sig.params.iter().map(|p| {
            let ident = &p.ident;
            let ty = match (&p.kind, &p.elem) {
                (Kind::Tensor { .. } | Kind::Variable, Some(elem)) if self.zero_d().is_some() => {
                    quote!(#elem)
                }
                (Kind::Variable, Some(elem)) => {
                    let private = paths::private();
                    quote!(&#private::Tensor<#elem>)
                }
                _ => {
                    let ty = &p.ty;
                    quote!(#ty)
                }
            };
            let mutability = p.mutable.then(|| quote!(mut));
            quote!(#mutability #ident: #ty)
        });
        params.collect()
    }

    /// The result type (numbers on the 0-d path).
    fn ret_type(&self, item: &ItemFn) -> TokenStream {
        let outputs = self.sig.outputs.iter().map(|ty| self.output_type(ty));
        match (&item.sig.output, self.zero_d()) {
            (syn::ReturnType::Type(_, ty), None) => quote!(#ty),
            (_, Some(_)) if self.sig.tuple_output => quote!((#(#outputs),*)),
            (_, Some(_)) => quote!(#(#outputs)*),
            (syn::ReturnType::Default, None) => quote!(()),
        }
    }

    /// `primal_scalar`: the forward code on numbers, returning the value.
    pub fn primal_fn(&self, item: &ItemFn) -> TokenStream {
        let forward = self.forward_body();
        let outputs = self.body.outputs.iter().map(|o| self.operand(o));
        let value = if self.sig.tuple_output {
            quote!((#(#outputs),*))
        } else {
            quote!(#(#outputs)*)
        };
        let params = self.params();
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        quote! {
            pub fn primal_scalar #generics (#(#params),*) -> #ret_ty #where_clause {
                #forward
                #value
            }
        }
    }

    fn cotangent_type(&self) -> TokenStream {
        let outputs: Vec<TokenStream> = self
            .sig
            .outputs
            .iter()
            .map(|ty| self.output_type(ty))
            .collect();
        if self.sig.tuple_output {
            quote!((#(Option<#outputs>),*))
        } else if outputs.is_empty() {
            quote!(())
        } else {
            quote!(#(#outputs)*)
        }
    }

    fn grads_type(&self) -> TokenStream {
        let entries = self.sig.params.iter().map(|p| {
            // a `&mut` array output's cotangent is left in the caller's buffer, an array's
            // in `vjp_into`'s sink
            let sunk = self.sinks && matches!(p.kind, Kind::Array { .. }) && !p.is_ragged();
            if p.differentiable(self.sig.mode) && !p.is_output_array() && !sunk {
                let ty = self.cotangent_of(p);
                quote!(Option<#ty>)
            } else {
                quote!(())
            }
        });
        quote!((#(#entries,)*))
    }
}

/// A constant operand as the plain number it is on the 0-d path, typed as `elem` (in the
/// tensor code it is an `Operand<elem>` of an elementwise op, so it has that type); a
/// literal would otherwise default to `f64` where nothing else fixes its type.
fn number_constant(expr: &Expr, elem: &Type) -> TokenStream {
    let value = zero_d::scalar_tensor_arg(expr).unwrap_or(expr);
    quote!(::core::convert::identity::<#elem>(#value))
}

/// Whether a parameter of this type is `Copy` by its spelling: a shared reference, a float
/// or integer type, `bool`, or a float type parameter (`floats`, bound by `Float`, which is
/// `Copy`).
fn copied_by_spelling(ty: &Type, floats: &[Ident]) -> bool {
    match ty {
        Type::Reference(reference) => reference.mutability.is_none(),
        Type::Path(path) => path.path.get_ident().is_some_and(|ident| {
            crate::syntax::names_no_float(ident)
                || ident == "f32"
                || ident == "f64"
                || floats.contains(ident)
        }),
        _ => false,
    }
}

/// Whether a type holds no reference, lifetime or `impl Trait` (a parameter's type
/// `vjp_split` can give a lifetime of its own only at its top).
fn no_borrow_inside(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
        fn visit_type_trait_object(&mut self, _: &'ast syn::TypeTraitObject) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, ty);
    !finder.0
}

/// Whether a block (its branches, blocks and loops) calls no other function: no call,
/// writing call, call by parts or traced op.
fn calls_nothing(block: &crate::model::ir::Block) -> bool {
    use crate::model::ir::{Op, Stmt};
    block.stmts.iter().all(|stmt| match stmt {
        Stmt::Def { op, .. } => !matches!(op, Op::Call { .. } | Op::Trace { .. }),
        Stmt::CallParts { .. } | Stmt::CallWrites { .. } => false,
        Stmt::If {
            then_branch,
            else_branch,
            ..
        } => calls_nothing(then_branch) && calls_nothing(else_branch),
        Stmt::Match { arms, .. } => arms.iter().all(|arm| calls_nothing(&arm.body)),
        Stmt::Loop { body, .. } | Stmt::Scope(body) => calls_nothing(body),
        Stmt::Plain(_) | Stmt::Declare { .. } | Stmt::Jump { .. } | Stmt::Swap { .. } => true,
    })
}

/// Whether generated code names any of `names` (or `self`), at any depth: the adjoint
/// reading a parameter in place.
fn mentions_any(code: &TokenStream, names: &[String]) -> bool {
    code.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => {
            ident == "self" || names.iter().any(|name| ident == name)
        }
        proc_macro2::TokenTree::Group(group) => mentions_any(&group.stream(), names),
        _ => false,
    })
}

/// The pieces of a function holding the forward code and the adjoint
/// ([`Generator::pieces`]).
struct Pieces {
    forward: TokenStream,
    adjoint: TokenStream,
    stack_decls: Vec<TokenStream>,
    cursors: Vec<TokenStream>,
    value: TokenStream,
    lens: TokenStream,
    params: Vec<TokenStream>,
    cot_ty: TokenStream,
    grads_ty: TokenStream,
    ret_ty: TokenStream,
}
