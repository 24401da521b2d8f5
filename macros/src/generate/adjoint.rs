//! Generation of the adjoint: it takes the IR (with what the forward saved) and gives the
//! pullback's body, the statements in reverse, each op's cotangent mapped to its operands'
//! by the runtime's rules (`vjp::*`, named by `gradtape-primitives`) or by replaying a
//! sub-tape; branches and loops replay the decisions the forward saved.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Expr, Ident};

use super::{Generator, Save, borrow, exit_name, is_literal, number_constant};
use crate::model::ir::{
    BindingId, Block, Counter, Op, Operand, RETURN_REGION, Recompute, Saves, Stmt, Target,
};
use crate::model::sig::{ArrayForm, Kind};
use crate::syntax::mixed;
use crate::vocabulary;

/// Where a call's argument is in the user's code: the value a shared borrow takes (`s` in
/// `&s`), since lowering writes the `&` again (its span the attribute's, which a span of
/// the whole borrow would fall back to).
fn argument_span(arg: &Operand) -> proc_macro2::Span {
    syn::spanned::Spanned::span(crate::syntax::strip_shared_borrow(arg.fwd()).0)
}

impl Generator<'_> {
    pub(super) fn adjoint_fn_body(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (param, binding) in self.sig.params.iter().zip(&self.body.params) {
            if let Some(binding) = binding {
                let slot = self.slot(*binding);
                if self.body.bindings[*binding].array {
                    let elem = param.elem.as_ref().expect("a float array");
                    // `grad_into`: the caller's buffer (`d_<param>`, checked against the
                    // array's length); `vjp`: zeros of the length the forward saw, or for a
                    // `&mut` output the pullback's argument `d_<param>` (flat), in place.
                    let shadow = if self.sinks && !param.is_ragged() {
                        // `vjp_into`: the caller's sink (its shadow of the array passed,
                        // flat), or zeros in a buffer of the callee's own when it has none
                        let (sink, len) = (Self::sink(param), Self::array_len(param));
                        let zeros = mixed(&format!("{slot}_zeros"));
                        out.extend(quote!(let mut #zeros = ::std::vec::Vec::new();));
                        quote!(generated::Sink::<#elem>::shadow(#sink, #len, &mut #zeros))
                    } else if param.is_output_array() && !self.into {
                        let buffer = Self::into_buffer(param);
                        quote!(generated::FixedShadow::<#elem, &mut [#elem]>::borrowed(#buffer))
                    } else if param.is_ragged() {
                        // rows of the parameter's shape: the caller's (checked), or zeros
                        if self.into {
                            let buffer = Self::into_buffer(param);
                            quote!(generated::RowShadow::<#elem>::borrowed(&mut *#buffer))
                        } else {
                            let len = Self::array_len(param);
                            quote!(generated::RowShadow::<#elem>::zeros(&#len))
                        }
                    } else if self.into {
                        let buffer = Self::into_buffer(param);
                        let flat = match param.array_row() {
                            Some(_) => quote!(#buffer.as_flattened_mut()),
                            None => quote!(&mut *#buffer),
                        };
                        quote!(generated::FixedShadow::<#elem, &mut [#elem]>::borrowed(#flat))
                    } else if let (
                        Kind::Array {
                            form: ArrayForm::Fixed(n),
                            ..
                        },
                        None,
                    ) = (&param.kind, param.array_row())
                        && let Ok(n) = n.parse::<TokenStream>()
                    {
                        // a flat `[F; N]`: zeros on the stack
                        quote!(generated::FixedShadow::<#elem, [#elem; #n]>::zeros_array())
                    } else {
                        let len = Self::array_len(param);
                        quote!(generated::FixedShadow::<#elem, ::std::vec::Vec<#elem>>::zeros(#len))
                    };
                    out.extend(quote!(let mut #slot = #shadow;));
                } else {
                    let ty = self.cotangent_of(param);
                    out.extend(quote!(let mut #slot: Option<#ty> = None;));
                }
            }
        }
        // (first: a body whose `return`s are jumps is itself at depth 1, its shadows
        // cleared where declared)
        out.extend(self.hoisted_shadows());
        out.extend(self.declare_slots(&self.body.block));
        let g = mixed("g");
        if self.sig.tuple_output {
            let parts: Vec<Ident> = (0..self.body.outputs.len())
                .map(|i| mixed(&format!("g{i}")))
                .collect();
            if self.seed_optional() {
                // no cotangent: every part's `None`
                out.extend(quote!(let (#(#parts),*) = #g.unwrap_or_default();));
            } else {
                out.extend(quote!(let (#(#parts),*) = #g;));
            }
            for (part, output) in parts.iter().zip(&self.body.outputs) {
                if let Some(binding) = output.binding() {
                    let slot = self.slot(binding);
                    out.extend(quote!(generated::accumulate_option(&mut #slot, #part);));
                }
            }
        } else if let Some(binding) = self.body.outputs.first().and_then(Operand::binding) {
            let slot = self.slot(binding);
            if self.seed_optional() {
                out.extend(quote!(generated::accumulate_option(&mut #slot, #g);));
            } else {
                out.extend(quote!(generated::accumulate(&mut #slot, #g);));
            }
        }
        let mut reverse = TokenStream::new();
        if self.body.returned.is_some() {
            let (pop, exit) = self.recall(exit_name(RETURN_REGION), 1);
            reverse.extend(pop);
            self.regions.borrow_mut().push(Some((RETURN_REGION, exit)));
            reverse.extend(self.reverse_stmts(&self.body.block));
            self.regions.borrow_mut().pop();
        } else {
            reverse.extend(self.reverse_stmts(&self.body.block));
        }
        // the replayed calls' scratch buffers, named by the reverse statements just made
        for scratch in self.scratches.borrow_mut().drain(..) {
            out.extend(quote!(let mut #scratch = ::std::vec::Vec::new();));
        }
        out.extend(reverse);
        let grads = self
            .body
            .params
            .iter()
            .zip(&self.sig.params)
            .map(|(binding, param)| match binding {
                Some(binding) if self.body.bindings[*binding].array && self.into => quote!(()),
                // left in `vjp_into`'s sink
                Some(binding)
                    if self.body.bindings[*binding].array && self.sinks && !param.is_ragged() =>
                {
                    quote!(())
                }
                // left in the pullback's buffer
                Some(_) if param.is_output_array() => quote!(()),
                Some(binding) if self.body.bindings[*binding].array => {
                    let slot = self.slot(*binding);
                    if param.is_ragged() {
                        return quote!(Some(#slot.into_rows()));
                    }
                    match (&param.kind, param.array_row()) {
                        (
                            Kind::Array {
                                form: ArrayForm::Fixed(_),
                                ..
                            },
                            Some(_),
                        ) => quote!(Some(#slot.into_matrix())),
                        (_, Some(row)) => {
                            let len = Self::array_len(param);
                            quote!(Some(#slot.into_rows(#len / (#row))))
                        }
                        (
                            Kind::Array {
                                form: ArrayForm::Fixed(_),
                                ..
                            },
                            None,
                        ) => quote!(Some(#slot.into_array())),
                        _ => quote!(Some(#slot.into_vec())),
                    }
                }
                Some(binding) => {
                    let slot = self.slot(*binding);
                    quote!(#slot)
                }
                None => quote!(()),
            });
        out.extend(quote!((#(#grads,)*)));
        out
    }

    /// Adds the cotangent a callee's pullback gives for an argument into its slot (`None`
    /// for a constant argument): an array passed whole gets it added into its shadow,
    /// element by element.
    pub(super) fn accumulate_argument(
        &self,
        arg: &Operand,
        grad: TokenStream,
    ) -> Option<TokenStream> {
        let binding = arg.binding()?;
        let slot = self.slot(binding);
        Some(if self.body.bindings[binding].ragged {
            quote!(generated::RowsCotangent::add_rows_into(#grad, &mut #slot);)
        } else if self.body.bindings[binding].array {
            quote!(generated::ArrayCotangent::add_into(#grad, &mut #slot, 0);)
        } else if self.body.bindings[binding].whole {
            // the call and the entry it is given spanned at the argument: a callee that
            // gives no gradient for the struct is an error whose primary span is there
            // (the entry's own tokens carry the attribute's span)
            let span = argument_span(arg);
            let at = super::paths::generated_at(span);
            let entry = quote::format_ident!("gradtape_entry", span = span);
            quote::quote_spanned! {span=>
                {
                    let #entry = #grad;
                    #at::accumulate_whole(&mut #slot, #entry);
                }
            }
        } else {
            // spanned at the argument: a callee holding the parameter constant (its entry
            // `()`) is `generated::Entry`'s message there
            let span = argument_span(arg);
            let at = super::paths::generated_at(span);
            let entry = quote::format_ident!("gradtape_entry", span = span);
            quote::quote_spanned! {span=>
                {
                    let #entry = #grad;
                    #at::accumulate_entry(&mut #slot, #entry);
                }
            }
        })
    }

    /// The slots of a block's bindings, declared where the block's reverse code starts. A
    /// flat local array's shadow declared inside a loop (`block.depth > 0`) is declared
    /// once before the whole sweep instead ([`hoisted_shadows`](Self::hoisted_shadows))
    /// and cleared here: the same zeros a fresh one starts as (`LocalShadow::clear`
    /// keeps the allocation), without an allocation per replayed iteration (an array
    /// result's local written by a writer in a loop of 10⁴ steps spent half its time in
    /// `malloc`).
    fn declare_slots(&self, block: &Block) -> TokenStream {
        let slots = block
            .declared
            .iter()
            .filter(|&&b| self.useful[b])
            .map(|&b| {
                let slot = self.slot(b);
                if self.body.bindings[b].ragged {
                    quote!(let mut #slot = generated::RowShadow::growable();)
                } else if self.body.bindings[b].array && block.depth > 0 {
                    quote!(#slot.clear();)
                } else if self.body.bindings[b].array {
                    quote!(let mut #slot = generated::LocalShadow::growable();)
                } else {
                    quote!(let mut #slot = None;)
                }
            });
        quote!(#(#slots)*)
    }

    /// The declarations of every flat local array's shadow declared inside a loop (at any
    /// nesting), made once before the sweep ([`declare_slots`](Self::declare_slots)).
    /// Each slot's name is its binding's own, so one declaration at the top serves every
    /// block that declares the binding.
    fn hoisted_shadows(&self) -> TokenStream {
        fn collect(block: &Block, out: &mut Vec<BindingId>) {
            if block.depth > 0 {
                out.extend(&block.declared);
            }
            for stmt in &block.stmts {
                match stmt {
                    Stmt::If {
                        then_branch,
                        else_branch,
                        ..
                    } => {
                        collect(then_branch, out);
                        collect(else_branch, out);
                    }
                    Stmt::Match { arms, .. } => {
                        for arm in arms {
                            collect(&arm.body, out);
                        }
                    }
                    Stmt::Loop { body, .. } | Stmt::Scope(body) => collect(body, out),
                    _ => {}
                }
            }
        }
        let mut nested = Vec::new();
        collect(&self.body.block, &mut nested);
        let slots = nested
            .into_iter()
            .filter(|&b| {
                let binding = &self.body.bindings[b];
                self.useful[b] && binding.array && !binding.ragged
            })
            .map(|b| {
                let slot = self.slot(b);
                quote!(let mut #slot = generated::LocalShadow::growable();)
            });
        quote!(#(#slots)*)
    }

    /// The block's statements in reverse. In a region a jump may end early, a statement
    /// after a jump (in this block) is replayed only if the run did not end at that jump.
    fn reverse_stmts(&self, block: &Block) -> TokenStream {
        let region = self.regions.borrow().last().cloned().flatten();
        (0..block.stmts.len())
            .rev()
            .map(|k| {
                let code = self.reverse_stmt(&block.stmts[k], block.depth);
                let Some((region, exit)) = &region else {
                    return code;
                };
                let before = Block::jumps_leaving(&block.stmts[..k], *region);
                if before.is_empty() || code.is_empty() {
                    return code;
                }
                quote!(if !matches!(*#exit, #(#before)|*) { #code })
            })
            .collect()
    }

    fn reverse_block(&self, block: &Block) -> TokenStream {
        let slots = self.declare_slots(block);
        let code = self.reverse_stmts(block);
        quote!(#slots #code)
    }

    fn reverse_stmt(&self, stmt: &Stmt, depth: usize) -> TokenStream {
        match stmt {
            Stmt::Plain(_) | Stmt::Declare { .. } | Stmt::Jump { .. } => quote!(),
            Stmt::CallParts {
                id, args, parts, ..
            } => {
                if !parts.iter().any(|&b| self.useful[b]) {
                    return quote!();
                }
                let (pop, pullback) = self.recall(format!("pullback{id}"), depth);
                let cotangent = self.parts_cotangents(parts);
                let grads = mixed("grads");
                let accumulate = args.iter().enumerate().filter_map(|(k, arg)| {
                    let index = syn::Index::from(k);
                    self.accumulate_argument(arg, quote!(#grads.#index))
                });
                quote! {
                    #pop
                    let #grads = (#pullback)(generated::FromParts::from_parts(&mut [#(#cotangent),*]));
                    #(#accumulate)*
                }
            }
            Stmt::Def { id, target, op } => self.reverse_def(*id, target, op, depth),
            // the cotangents follow the values back (both useful, or neither)
            Stmt::Swap { a, b, .. } if self.useful[*a] => {
                let (a, b) = (self.slot(*a), self.slot(*b));
                quote!(::core::mem::swap(&mut #a, &mut #b);)
            }
            Stmt::Swap { .. } => quote!(),
            Stmt::CallWrites {
                id,
                func,
                args,
                written,
                result,
            } => self.reverse_call_writes(*id, func, args, written, result, depth),
            Stmt::If {
                id,
                then_branch,
                else_branch,
                ..
            } => {
                let flag = self.recall(format!("branch{id}"), depth);
                let (then_code, else_code) = (
                    self.reverse_block(then_branch),
                    self.reverse_block(else_branch),
                );
                let (prologue, value) = flag;
                quote! {
                    #prologue
                    if *#value { #then_code } else { #else_code }
                }
            }
            Stmt::Match { id, arms, .. } => {
                let (prologue, value) = self.recall(format!("arm{id}"), depth);
                let arms = arms.iter().enumerate().map(|(index, arm)| {
                    let code = self.reverse_block(&arm.body);
                    quote!(#index => { #code })
                });
                quote! {
                    #prologue
                    match *#value { #(#arms)* _ => unreachable!("a match arm that did not run") }
                }
            }
            Stmt::Scope(block) => {
                let code = self.reverse_block(block);
                quote!({ #code })
            }
            Stmt::Loop {
                id, body, exits, ..
            } => match self.checkpointed(depth) {
                Some(_) => self.reverse_checkpointed(stmt),
                None => self.reverse_loop(*id, body, *exits, depth),
            },
        }
    }

    /// A loop's adjoint: its iterations replayed last to first, each up to the jump that
    /// ended it.
    pub(super) fn reverse_loop(
        &self,
        id: usize,
        body: &Block,
        exits: bool,
        depth: usize,
    ) -> TokenStream {
        let (mut prologue, value) = self.recall(format!("trips{id}"), depth);
        for (binding, _) in self.invariants.per_loop.get(&id).into_iter().flatten() {
            let name = super::invariants::Invariants::name(id, *binding);
            prologue.extend(self.recall(name, depth).0);
        }
        let (exit_pop, region) = if exits {
            let (pop, exit) = self.recall(exit_name(id), body.depth);
            (pop, Some((id, exit)))
        } else {
            (quote!(), None)
        };
        // The iterations replayed last to first, `t` the one replayed (the index of a read
        // counting on the loop's counter).
        let (count, t) = Self::replay_counter(id);
        let windows = self.trip_windows(id, body, exits);
        let mut taken = TokenStream::new();
        for (binding, window) in &windows {
            let (slot, name, first) = (self.slot(*binding), &window.name, window.first);
            let span = window.span;
            taken.extend(quote! {
                let #name = generated::trip_window(&mut #slot, #first, #span, #count);
            });
        }
        let read_windows = self.trip_read_windows(id, body, exits);
        for (binding, window) in &read_windows {
            let (name, array) = (&window.name, self.name(*binding));
            let (first, span) = (window.first, window.span);
            taken.extend(quote! {
                let #name = generated::read_window(&#array[..], #first, #span, #count);
            });
        }
        self.windows.borrow_mut().extend(windows);
        self.read_windows.borrow_mut().extend(read_windows);
        self.regions.borrow_mut().push(region);
        let code = self.reverse_block(body);
        self.regions.borrow_mut().pop();
        self.windows
            .borrow_mut()
            .retain(|_, window| window.loop_id != id);
        self.read_windows
            .borrow_mut()
            .retain(|_, window| window.loop_id != id);
        // The saves it made by trip: this run's part of its stack of records, exactly
        // `count` long, taken once, so each read at `t < count` needs no check.
        let by_trip = self.saves_by_trip(id).then(|| {
            let record = super::RecordField::record(id);
            let (stack, cursor, slots) = (record.stack(), record.cursor(), record.slots());
            quote!(let #slots = generated::trip_saves(&#stack, &mut #cursor, #count);)
        });
        quote! {
            #prologue
            let #count: usize = *#value;
            #by_trip
            #taken
            for #t in (0..#count).rev() { #exit_pop #code }
        }
    }

    /// Whether a loop's adjoint may take windows: the loop runs every trip to its end (no
    /// jump ends it early), in scalar mode, outside a checkpointed body.
    fn takes_windows(&self, exits: bool) -> bool {
        !exits
            && !self.tensor()
            && self.body.checkpoint.is_none()
            && self.segment.borrow().is_none()
    }

    /// The array shadows loop `id`'s adjoint reaches through windows (`TripWindow`): those
    /// of arrays the loop's body reads or writes only at the loop's counter plus a
    /// constant, in statements that run on every trip (no branch, arm or inner loop around
    /// them), and mentions in no other way, in a loop that `takes_windows`, its counter
    /// running forward. Then trip `t` of `count` met element `t + c` of each such
    /// array, for each of its constants `c`, and the forward code's access proved it in
    /// bounds; so the elements `first .. first + span + count` (`first` the least `c`,
    /// `span` the greatest less the least) exist in a parameter's fixed shadow, and a
    /// local's growable shadow is grown to them with zeros, the values it reads beyond its
    /// end. The adjoint's take and add at `t + c` are then `window[t + (c - first)]`,
    /// below `count + span`, the window's length: no check in the loop, and each shadow's
    /// take and add one plain load and store.
    fn trip_windows(&self, id: usize, body: &Block, exits: bool) -> Vec<(BindingId, TripWindow)> {
        if !self.takes_windows(exits) {
            return Vec::new();
        }
        let mut reach = std::collections::HashMap::new();
        trip_reach(&body.stmts, id, true, &mut reach);
        for binding in &body.declared {
            reach.insert(*binding, None);
        }
        let mut windows: Vec<(BindingId, TripWindow)> = reach
            .into_iter()
            .filter_map(|(binding, offsets)| {
                let (first, last) = offsets?;
                let array = &self.body.bindings[binding];
                let plain = array.array && array.row.is_none() && !array.ragged && !array.whole;
                (plain && self.useful[binding]).then(|| {
                    let name = mixed(&format!("{}_window{id}", array.slot));
                    (binding, TripWindow::new(id, name, (first, last)))
                })
            })
            .collect();
        // (in a fixed order: the generated code is the same from build to build)
        windows.sort_by_key(|(binding, _)| *binding);
        windows
    }

    /// The array parameters loop `id`'s adjoint reads again (`remat`) through windows: those
    /// the loop's body reads at the loop's counter plus a constant in statements that run
    /// on every trip, under the conditions of `trip_windows`. The window holds the
    /// elements those reads met (the least constant to the greatest, over every trip): a
    /// reread at another index (a read in a branch) reads the array as before.
    fn trip_read_windows(
        &self,
        id: usize,
        body: &Block,
        exits: bool,
    ) -> Vec<(BindingId, TripWindow)> {
        if !self.takes_windows(exits) || !self.same_body() {
            return Vec::new();
        }
        let mut reads = std::collections::HashMap::new();
        trip_reads(&body.stmts, id, &mut reads);
        let mut windows: Vec<(BindingId, TripWindow)> = reads
            .into_iter()
            .filter(|(array, _)| {
                let binding = &self.body.bindings[*array];
                self.rereads(*array) && binding.row.is_none() && !binding.ragged
            })
            .map(|(array, offsets)| {
                let name = mixed(&format!("{}_read{id}", self.name(array)));
                (array, TripWindow::new(id, name, offsets))
            })
            .collect();
        windows.sort_by_key(|(binding, _)| *binding);
        windows
    }

    /// A reread of `array` at `counter` through its loop's window, if it has one and the
    /// index is among those the window holds.
    pub(super) fn read_window_element(
        &self,
        array: BindingId,
        counter: &Counter,
    ) -> Option<TokenStream> {
        self.read_windows.borrow().get(&array)?.element(counter)
    }

    /// The element of a window the adjoint takes or adds into for an access of `binding` at
    /// `recompute`, if that shadow is reached through one in the loop being reversed.
    fn window_element(&self, binding: BindingId, recompute: &Recompute) -> Option<TokenStream> {
        let Recompute::Counter(counter) = recompute else {
            return None;
        };
        let windows = self.windows.borrow();
        let window = windows.get(&binding)?;
        if window.loop_id != counter.loop_id || counter.reversed {
            return None;
        }
        // (every access of the loop's trips is inside: `trip_reach` took them all)
        Some(
            window
                .element(counter)
                .expect("first is the least and last the greatest"),
        )
    }

    /// The value loop counter `counter` had in the iteration being replayed (an operand,
    /// parenthesized): `t` (or `n - 1 - t` backwards), `t` the replayed iteration and `n`
    /// the trip count. In a checkpointed loop the adjoint replays one segment, whose trip
    /// `t` is the loop's trip `start + t` of `total`.
    pub(super) fn replayed_counter(&self, counter: Counter) -> TokenStream {
        let (count, t) = Self::replay_counter(counter.loop_id);
        let segment = self.segment.borrow().clone();
        let trip = match segment {
            Some(segment) if segment.loop_id == counter.loop_id => {
                let (start, total) = (&segment.start, &segment.total);
                if counter.reversed {
                    quote!((#total - 1 - (#start + #t)))
                } else {
                    quote!((#start + #t))
                }
            }
            _ if counter.reversed => quote!((#count - 1 - #t)),
            _ => quote!(#t),
        };
        // The range's first value and the read's constant: the index the forward code
        // computed, in range then, so the sum does not wrap
        match counter.offset {
            0 => trip,
            offset => quote!(#trip.wrapping_add_signed(#offset)),
        }
    }

    /// The value the op `id`'s operand `side` had, if its loop saved it as it started
    /// (`invariants`): a reference to the value the loop's reverse popped.
    fn invariant_value(&self, id: usize, side: usize) -> Option<TokenStream> {
        let (start, binding) = *self.invariants.uses.get(&(id, side))?;
        let depth = self.invariants.depths[&start];
        let name = super::invariants::Invariants::name(start, binding);
        Some(self.recall(name, depth).1)
    }

    /// The index a read or write at `recompute` had in the forward code.
    fn recomputed_index(&self, recompute: &Recompute) -> TokenStream {
        match recompute {
            Recompute::Counter(counter) => self.replayed_counter(*counter),
            Recompute::Element { row, col, stride } => {
                // the flat index `flat_index`/`ragged_index` computed (and bounds-checked)
                // in the forward code
                let (r, c) = (self.replayed_counter(*row), self.replayed_counter(*col));
                quote!((#r * (#stride) + #c))
            }
        }
    }

    /// The window element an element write's adjoint takes, if its shadow is reached
    /// through a window (`trip_windows`).
    fn windowed_write(&self, target: &Target) -> Option<TokenStream> {
        match target {
            Target::Element {
                binding,
                counter: Some(recompute),
                push: false,
                ..
            } => self.window_element(*binding, recompute),
            _ => None,
        }
    }

    /// The index of an element write, as a reference: recomputed from loop counters, or
    /// the one the forward code saved (with the code popping it).
    fn element_index(
        &self,
        id: usize,
        target: &Target,
        depth: usize,
    ) -> (TokenStream, TokenStream) {
        match target {
            Target::Element {
                counter: Some(recompute),
                ..
            } => {
                let index = self.recomputed_index(recompute);
                (quote!(), quote!(&#index))
            }
            _ => self.recall(format!("idx{id}"), depth),
        }
    }

    /// The names of a loop's trip count and of the iteration being replayed.
    pub(super) fn replay_counter(loop_id: usize) -> (Ident, Ident) {
        (
            mixed(&format!("count{loop_id}")),
            mixed(&format!("replay{loop_id}")),
        )
    }

    /// Whether loop `loop_id`'s forward code made saves by trip (pushed its records).
    fn saves_by_trip(&self, loop_id: usize) -> bool {
        (self.by_trip.borrow().values()).any(|field| field.loop_id == loop_id)
    }

    /// Recalls a save made in the forward code (same name and depth).
    pub(super) fn recall(&self, name: String, depth: usize) -> (TokenStream, TokenStream) {
        let name = mixed(&name);
        let trip = self.by_trip.borrow().get(&name).copied();
        Save {
            name,
            depth,
            once: false,
            trip,
        }
        .recall()
    }

    /// A constant operand as a value the rules compute with.
    fn constant(&self, expr: &Expr, saved: Option<TokenStream>) -> TokenStream {
        let value = saved.unwrap_or_else(|| match self.zero_d() {
            Some(elem) => {
                let value = number_constant(expr, elem);
                quote!(&#value)
            }
            None => borrow(expr),
        });
        if self.tensor() {
            quote!(&generated::lift(#value))
        } else {
            value
        }
    }

    fn reverse_def(&self, id: usize, target: &Target, op: &Op, depth: usize) -> TokenStream {
        let binding = Self::target_binding(target);
        if !self.useful[binding] {
            return quote!();
        }
        let slot = self.slot(binding);
        let g = mixed("g");
        if self.body.bindings[binding].array && !matches!(target, Target::Element { .. }) {
            // The array got a new value of constants (`let mut buf = vec![0.0; n]`):
            // nothing flows back past here.
            return quote!(#slot.clear(););
        }
        let mut prologue = TokenStream::new();
        let mut rules = TokenStream::new();
        let acc = |operand: &Operand, value: TokenStream| -> TokenStream {
            match operand.binding() {
                Some(b) => {
                    let slot = self.slot(b);
                    quote!(generated::accumulate(&mut #slot, #value);)
                }
                None => quote!(),
            }
        };
        match op {
            Op::Copy { value, .. } => {
                if value.binding().is_none() {
                    // A constant overwrote the value: nothing flows back past here (for an
                    // element, its cotangent is taken and dropped).
                    if let Target::Element { .. } = target {
                        if let Some(element) = self.windowed_write(target) {
                            return quote!(#element = ::core::default::Default::default(););
                        }
                        let (pop, index) = self.element_index(id, target, depth);
                        return quote!(#pop let _ = #slot.take(*#index););
                    }
                    return quote!(#slot = None;);
                }
                rules.extend(acc(value, quote!(#g)));
            }
            Op::Neg(x) => {
                // `-x` is `0 - x`: the rule of `sub`'s right operand.
                let rule = format_ident!("{}", vocabulary::binary("sub").rules[1]);
                rules.extend(acc(x, quote!(vjp::#rule(&#g))));
            }
            Op::Cast { x, .. } => {
                // d(x as U)/dx = 1: the cotangent, converted back to x's type
                let (pop, saved) = self.recall(format!("x{id}"), depth);
                prologue.extend(pop);
                rules.extend(acc(x, quote!(generated::convert_like(#g, #saved))));
            }
            Op::Unary {
                method,
                saves,
                x,
                args,
            } => {
                let mut extra = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    if is_literal(arg) {
                        extra.push(quote!(#arg));
                    } else {
                        let (pop, value) = self.recall(format!("arg{id}_{k}"), depth);
                        prologue.extend(pop);
                        extra.push(quote!(*#value));
                    }
                }
                // A real constant is kept by the runtime as an `f64`: convert it for the rule.
                let row =
                    vocabulary::elementwise(&method.to_string()).expect("lowered from the table");
                let (rule, params) = (format_ident!("{}", row.rule), row.params);
                extra = extra
                    .into_iter()
                    .zip(params)
                    .map(|(p, param)| {
                        if vocabulary::is_real(*param) {
                            quote!(generated::exponent(#p))
                        } else {
                            p
                        }
                    })
                    .collect();
                let saved_name = match saves {
                    Saves::Input => format!("x{id}"),
                    Saves::Output => format!("out{id}"),
                };
                let (pop, saved) = self.recall(saved_name, depth);
                prologue.extend(pop);
                let extra = extra.iter().map(|e| quote!(, #e));
                rules.extend(acc(x, quote!(vjp::#rule(#saved, &#g #(#extra)*))));
            }
            Op::Binary { kind, lhs, rhs } if self.selection(kind, lhs, rhs).is_some() => {
                // `max`/`min` of numbers: the saved comparison routes the cotangent to the
                // operand the result is, and a zero to the other (a select, as TensorFlow's
                // gradient of `maximum`: an infinite cotangent gives no NaN).
                let (pop, selected) = self.recall(format!("sel{id}"), depth);
                prologue.extend(pop);
                let chosen = mixed("lhs_chosen");
                rules.extend(quote!(let #chosen: bool = (#selected).clone();));
                for (operand, wins) in [(lhs, quote!(#chosen)), (rhs, quote!(!#chosen))] {
                    let routed = quote! {
                        if #wins { ::core::clone::Clone::clone(&#g) } else { generated::zero_like(&#g) }
                    };
                    rules.extend(acc(operand, routed));
                }
            }
            Op::Binary { kind, lhs, rhs } => {
                let (keep_lhs, keep_rhs) = self.binary_saves(kind, lhs, rhs);
                let mut value_of = |operand: &Operand, keep: bool, name: String, side: usize| {
                    // recomputed rather than saved (`remat`), as the forward code decided
                    if keep && let Some(value) = self.rematerialized(operand) {
                        return Some(quote!(&#value));
                    }
                    // saved once as its loop started, popped before the trips' replay
                    if keep && let Some(value) = self.invariant_value(id, side) {
                        return Some(value);
                    }
                    let saved = keep.then(|| {
                        let (pop, value) = self.recall(name, depth);
                        prologue.extend(pop);
                        value
                    });
                    match operand.binding() {
                        Some(_) => saved,
                        None => Some(self.constant(operand.fwd(), saved)),
                    }
                };
                let l = value_of(lhs, keep_lhs, format!("lhs{id}"), 0);
                let r = value_of(rhs, keep_rhs, format!("rhs{id}"), 1);
                // Each operand has its own rule (on ties of `maximum` TensorFlow gives the
                // whole cotangent to the first operand, so even those are not symmetric),
                // taking the operands it reads, then the cotangent.
                let row = vocabulary::binary(kind.row_name());
                let values = [&l, &r];
                let rule_call = |rule: &str| {
                    if rule == vocabulary::IDENTITY_RULE {
                        // a path call, not `g.clone()`: a method call needs `g`'s type
                        // known where it is written, and a slot first written later in
                        // the reverse sweep (`let mut v = 0.0;` carried by a loop) is not
                        return quote!(::core::clone::Clone::clone(&#g));
                    }
                    let reads = vocabulary::rule_reads(rule);
                    let args = (0..2)
                        .filter(|&side| reads[side])
                        .map(|side| values[side].clone().expect("saved when needed"));
                    let rule = format_ident!("{rule}");
                    quote!(vjp::#rule(#(#args,)* &#g))
                };
                for ((operand, rule), keep) in [lhs, rhs].into_iter().zip(row.rules).zip([&l, &r]) {
                    if operand.binding().is_none() {
                        continue;
                    }
                    let grad = rule_call(rule);
                    let grad = match (self.tensor(), keep) {
                        (true, Some(like)) => quote!(generated::unbroadcast(#grad, #like)),
                        _ => grad,
                    };
                    rules.extend(acc(operand, grad));
                }
            }
            Op::Trace { inputs, .. } => {
                let (pop, trace) = self.recall(format!("trace{id}"), depth);
                prologue.extend(pop);
                let grads = mixed("grads");
                rules.extend(quote!(let #grads = (#trace).vjp(&#g);));
                for (k, (input, _)) in inputs.iter().enumerate() {
                    let slot = self.slot(*input);
                    let index = syn::Index::from(k);
                    rules.extend(quote!(generated::accumulate_option(&mut #slot, #grads.#index);));
                }
            }
            Op::Load { array, counter, .. } => {
                let index = match counter {
                    Some(recompute) => {
                        let index = self.recomputed_index(recompute);
                        quote!(&#index)
                    }
                    None => {
                        let (pop, index) = self.recall(format!("load{id}"), depth);
                        prologue.extend(pop);
                        index
                    }
                };
                let shadow = self.slot(*array);
                match counter
                    .as_ref()
                    .and_then(|c| self.window_element(*array, c))
                {
                    Some(element) => {
                        rules.extend(quote!(generated::add_into(&mut #element, #g);));
                    }
                    None => rules.extend(quote!(#shadow.add(*#index, #g);)),
                }
            }
            Op::Call { func, args } => {
                if let Some(passed) = self.replayed_call(func, args, &[], depth) {
                    let (pop, call) = self.reverse_replayed(
                        id,
                        func,
                        args,
                        &passed,
                        quote!(::core::option::Option::Some(#g)),
                        depth,
                    );
                    prologue.extend(pop);
                    rules.extend(call);
                    return quote! {
                        #prologue
                        if let Some(#g) = #slot.take() { #rules }
                    };
                }
                let grads = mixed("grads");
                if self.joint_call(func, args, depth) {
                    let (_, joint) = self.joint_args(id, args);
                    if let Some(call) = self.joint_into_sinks(func, args, &joint, quote!(#g)) {
                        // the arrays' cotangents added into their shadows by the callee
                        rules.extend(call);
                        return quote! {
                            #prologue
                            if let Some(#g) = #slot.take() { #rules }
                        };
                    }
                    let call = func.vjp_now(&joint, quote!(#g));
                    rules.extend(quote!(let (_, #grads) = #call;));
                } else {
                    let (pop, pullback) = self.recall(format!("pullback{id}"), depth);
                    prologue.extend(pop);
                    if self.partial_call(func) {
                        // `vjp_partial`'s pullback
                        rules.extend(
                            quote!(let #grads = (#pullback)(::core::option::Option::Some(#g));),
                        );
                    } else {
                        rules.extend(quote!(let #grads = (#pullback)(#g);));
                    }
                }
                for (k, arg) in args.iter().enumerate() {
                    let index = syn::Index::from(k);
                    rules.extend(self.accumulate_argument(arg, quote!(#grads.#index)));
                }
            }
        }
        if let Target::Element { .. } = target {
            // The element's cotangent, taken: the value it held before does not reach
            // the result through it.
            if let Some(element) = self.windowed_write(target) {
                return quote! {
                    #prologue
                    let #g = ::core::mem::take(&mut #element);
                    #rules
                };
            }
            let (pop, index) = self.element_index(id, target, depth);
            return quote! {
                #pop
                #prologue
                let #g = #slot.take(*#index);
                #rules
            };
        }
        quote! {
            #prologue
            if let Some(#g) = #slot.take() { #rules }
        }
    }
}

/// A shadow the adjoint of a loop reaches through a window taken before the trips' replay
/// (`Generator::trip_windows`): `name`, the elements `first .. first + span + count` of the
/// shadow.
pub(super) struct TripWindow {
    loop_id: usize,
    name: Ident,
    first: isize,
    span: usize,
}

impl TripWindow {
    /// The window `name` of loop `loop_id` over the offsets `first ..= last` (and the trips).
    fn new(loop_id: usize, name: Ident, (first, last): (isize, isize)) -> Self {
        let span = usize::try_from(last - first).expect("last is the greatest");
        TripWindow {
            loop_id,
            name,
            first,
            span,
        }
    }

    /// The element trip `t` of the loop being replayed reaches at its counter plus
    /// `counter.offset`, if `counter` counts on this window's loop, forward, and the offset
    /// is among those the window holds.
    fn element(&self, counter: &Counter) -> Option<TokenStream> {
        let step = counter.offset.checked_sub(self.first)?;
        let inside = self.loop_id == counter.loop_id
            && !counter.reversed
            && (0..=self.span as isize).contains(&step);
        if !inside {
            return None;
        }
        let (name, t) = (&self.name, Generator::replay_counter(counter.loop_id).1);
        Some(match step as usize {
            0 => quote!(#name[#t]),
            step => quote!(#name[#t + #step]),
        })
    }
}

/// Widens `range`, the least and greatest offset met so far, to `offset`.
fn widen(range: &mut (isize, isize), offset: isize) {
    range.0 = range.0.min(offset);
    range.1 = range.1.max(offset);
}

/// For each array loop `id`'s statements `stmts` read at the loop's counter plus a
/// constant on every trip (no branch, arm or inner loop around the read), the least and
/// greatest constant.
fn trip_reads(
    stmts: &[Stmt],
    id: usize,
    reads: &mut std::collections::HashMap<BindingId, (isize, isize)>,
) {
    for stmt in stmts {
        match stmt {
            Stmt::Def {
                op:
                    Op::Load {
                        array,
                        counter: Some(Recompute::Counter(c)),
                        ..
                    },
                ..
            } if c.loop_id == id && !c.reversed => {
                widen(
                    reads.entry(*array).or_insert((c.offset, c.offset)),
                    c.offset,
                );
            }
            Stmt::Scope(block) => trip_reads(&block.stmts, id, reads),
            _ => {}
        }
    }
}

/// What `trip_reach` finds of each binding: the least and greatest offsets of its accesses
/// at the loop's counter, or `None` if it is mentioned another way.
type Reach = std::collections::HashMap<BindingId, Option<(isize, isize)>>;

/// For each binding loop `id`'s statements `stmts` mention, the least and greatest
/// constants `c` of its accesses at the loop's counter plus `c` (`Some`), or `None` if any
/// mention is another kind (an access in a branch, an arm or an inner loop, or at an index
/// saved or counted on another loop, a push, a call's argument, a new value, ...). `top`:
/// `stmts` run on every trip.
fn trip_reach(stmts: &[Stmt], id: usize, top: bool, reach: &mut Reach) {
    let other = |binding: BindingId, reach: &mut Reach| {
        reach.insert(binding, None);
    };
    let access = |binding: BindingId, counter: &Option<Recompute>, reach: &mut Reach| {
        let offset = match counter {
            Some(Recompute::Counter(c)) if top && c.loop_id == id && !c.reversed => c.offset,
            _ => {
                reach.insert(binding, None);
                return;
            }
        };
        if let Some(range) = reach.entry(binding).or_insert(Some((offset, offset))) {
            widen(range, offset);
        }
    };
    let operands = |ops: &mut dyn Iterator<Item = &Operand>, reach: &mut Reach| {
        for operand in ops {
            if let Some(binding) = operand.binding() {
                reach.insert(binding, None);
            }
        }
    };
    for stmt in stmts {
        match stmt {
            Stmt::Plain(_) | Stmt::Jump { .. } => {}
            Stmt::Declare { binding, .. } => other(*binding, reach),
            Stmt::Def { target, op, .. } => {
                match target {
                    Target::Element {
                        binding,
                        counter,
                        push: false,
                        ..
                    } => access(*binding, counter, reach),
                    other_target => other(other_target.binding(), reach),
                }
                match op {
                    Op::Load { array, counter, .. } => access(*array, counter, reach),
                    Op::Copy { value, .. } => operands(&mut std::iter::once(value), reach),
                    Op::Neg(x) | Op::Unary { x, .. } | Op::Cast { x, .. } => {
                        operands(&mut std::iter::once(x), reach)
                    }
                    Op::Binary { kind, lhs, rhs } => {
                        operands(&mut [lhs, rhs].into_iter(), reach);
                        if let crate::model::ir::BinaryKind::FusedMulAdd(parts) = kind {
                            operands(&mut [&parts.0, &parts.1].into_iter(), reach);
                        }
                    }
                    Op::Trace { inputs, .. } => {
                        for (binding, _) in inputs {
                            other(*binding, reach);
                        }
                    }
                    Op::Call { args, .. } => operands(&mut args.iter(), reach),
                }
            }
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                trip_reach(&then_branch.stmts, id, false, reach);
                trip_reach(&else_branch.stmts, id, false, reach);
                for binding in then_branch.declared.iter().chain(&else_branch.declared) {
                    other(*binding, reach);
                }
            }
            Stmt::Match { arms, .. } => {
                for arm in arms {
                    trip_reach(&arm.body.stmts, id, false, reach);
                    for binding in &arm.body.declared {
                        other(*binding, reach);
                    }
                }
            }
            Stmt::Loop { body, .. } => {
                trip_reach(&body.stmts, id, false, reach);
                for binding in &body.declared {
                    other(*binding, reach);
                }
            }
            Stmt::Scope(block) => {
                trip_reach(&block.stmts, id, top, reach);
                for binding in &block.declared {
                    other(*binding, reach);
                }
            }
            Stmt::CallParts { args, parts, .. } => {
                operands(&mut args.iter(), reach);
                for binding in parts {
                    other(*binding, reach);
                }
            }
            Stmt::CallWrites { args, result, .. } => {
                operands(&mut args.iter(), reach);
                for binding in result.bindings() {
                    other(*binding, reach);
                }
            }
            Stmt::Swap { a, b, .. } => {
                other(*a, reach);
                other(*b, reach);
            }
        }
    }
}
