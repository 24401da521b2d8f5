//! The three phases of one statement kind, [`Stmt::CallWrites`]: a call of another
//! annotated function that writes `&mut` float arrays of the caller (`step(&x, &mut next);`).
//! Enzyme's convention for duplicated arguments carries the arrays' cotangents: the
//! caller's shadow of a written array is handed to the callee in place, holding the
//! cotangent of the array's values after the call, and the callee leaves it holding that of
//! its values before the call (elements it overwrote zeroed, elements it read increased).
//! So the caller needs no copy of the array's old values, and nothing is restored.
//!
//! [`Stmt::CallWrites`]: crate::model::ir::Stmt::CallWrites

use proc_macro2::TokenStream;
use quote::quote;

use super::Generator;
use crate::model::ir::{CallResult, Callee, Operand, Written};
use crate::syntax::mixed;

impl Generator<'_> {
    /// Whether the adjoint needs the call: its result or some array it writes reaches the
    /// function's result.
    fn call_writes_useful(
        &self,
        args: &[Operand],
        written: &[Written],
        result: &CallResult,
    ) -> bool {
        result.bindings().iter().any(|&b| self.useful[b])
            || written
                .iter()
                .any(|w| args[w.position].binding().is_some_and(|b| self.useful[b]))
    }

    /// How the call's arguments reach `vjp_into`, if it is replayed
    /// ([`replayed_call`](Self::replayed_call)); a callee returning a tuple has none.
    fn replayed_writer(
        &self,
        func: &Callee,
        args: &[Operand],
        written: &[Written],
        result: &CallResult,
        depth: usize,
    ) -> Option<Vec<super::replay::Passed>> {
        if let CallResult::Parts(_) = result {
            return None;
        }
        self.replayed_call(func, args, written, depth)
    }

    /// A written array's flat length, `a.len()` (times the row length for rows): the length
    /// of its shadow's part the callee reads and writes.
    fn written_len(&self, arg: &Operand) -> TokenStream {
        let binding = arg.binding().expect("a written array is active");
        let name = self.name(binding);
        match &self.body.bindings[binding].row {
            Some(row) => quote!(#name.len() * (#row)),
            None => quote!(#name.len()),
        }
    }

    /// The call's value, named `value`, bound to `result`'s temporaries: `let e = value;`,
    /// each part of a tuple `let a = value.0; ..`, or nothing.
    fn bind_call_result(&self, result: &CallResult, value: &proc_macro2::Ident) -> TokenStream {
        match result {
            CallResult::Dropped => quote!(),
            CallResult::Value(b) => {
                let name = self.name(*b);
                quote!(let #name = #value;)
            }
            CallResult::Parts(parts) => {
                let names = parts.iter().map(|&b| self.name(b));
                let index = (0..parts.len()).map(syn::Index::from);
                quote!(#(let #names = #value.#index;)*)
            }
        }
    }

    /// Forward: the bounds of each written array's elements saved (its length when passed
    /// whole, which starts at 0; a part's `start` and `end` locals), then the callee's
    /// `vjp_partial` (which writes the arrays), its pullback saved, its value bound to
    /// `result`. Without an adjoint to feed, the call as written.
    pub(super) fn forward_call_writes(
        &self,
        id: usize,
        func: &Callee,
        args: &[Operand],
        written: &[Written],
        result: &CallResult,
        depth: usize,
    ) -> TokenStream {
        if !self.saving || !self.call_writes_useful(args, written, result) {
            let call = func.primal(args);
            if let CallResult::Dropped = result {
                return quote!(#call;);
            }
            let value = mixed(&format!("value{id}"));
            let bind = self.bind_call_result(result, &value);
            return quote!(let #value = #call; #bind);
        }
        if let Some(passed) = self.replayed_writer(func, args, written, result, depth) {
            // the call as written, its arguments (the written arrays' old values among
            // them) saved for `vjp_into`
            // in the last trip of its loop, the callee's forward with its saves, once
            let split = self.split_call(id, func, args, written, &passed, depth);
            let condition = split.map(|loop_id| self.split_condition(loop_id, func, args.len()));
            let (saves, call) =
                self.forward_replayed(id, func, args, &passed, depth, condition.as_ref());
            let value = mixed(&format!("value{id}"));
            let bind = self.bind_call_result(result, &value);
            let call = match split {
                Some(loop_id) => self.forward_split(id, loop_id, func, args, &passed, call),
                None => call,
            };
            return quote!(#saves let #value = #call; #bind);
        }
        let mut code = TokenStream::new();
        for (n, w) in written.iter().enumerate() {
            // a whole array starts at 0: only its length is saved
            let bounds = match &w.part {
                Some(part) => {
                    let (start, end) = (&part.start, &part.end);
                    vec![("wstart", quote!(#start)), ("wend", quote!(#end))]
                }
                None => vec![("wend", self.written_len(&args[w.position]))],
            };
            for (bound, value) in bounds {
                let save = self.save(format!("{bound}{id}_{n}"), depth);
                let name = &save.name;
                code.extend(quote!(let #name: usize = #value;));
                if depth > 0 {
                    code.extend(save.keep(quote!(#name)));
                }
            }
        }
        // several written arrays, some passed on as they are: each of those lent as the
        // callee's parameter takes it, the flag saying which kept for the pullback
        let mut lent = args.to_vec();
        let mut flags = Vec::new();
        if Self::passed_on_beside_others(written) {
            for (n, w) in written.iter().enumerate().filter(|(_, w)| w.passed_on) {
                let save = self.save(format!("written{id}_{n}"), depth);
                let flag = save.name.clone();
                code.extend(quote!(let mut #flag: bool = true;));
                let Operand::Active { binding, fwd } = &args[w.position] else {
                    unreachable!("a written array is active")
                };
                lent[w.position] = Operand::Active {
                    binding: *binding,
                    fwd: syn::parse_quote!(generated::lend(#fwd, &mut #flag)),
                };
                if depth > 0 {
                    flags.push(save.keep(quote!(#flag)));
                }
            }
        }
        // `vjp_partial`: the pullback takes `Option` of the value's cotangent
        let (call, value) =
            self.call_vjp_of(id, func.vjp_partial_writing(&lent, written.len()), depth);
        let bind = self.bind_call_result(result, &value);
        code.extend(quote!(#call #bind #(#flags)*));
        code
    }

    /// Whether the call passes on a `&mut` parameter as it is beside other written arrays
    /// ([`Written::passed_on`]): its pullback then goes through `generated::PassedOnMany`.
    fn passed_on_beside_others(written: &[Written]) -> bool {
        written.len() > 1 && written.iter().any(|w| w.passed_on)
    }

    /// Adjoint: the pullback (`vjp_partial`'s, or `vjp_into` for a replayed call) called
    /// with `Option` of the result's cotangent: `None` when the statement drops the value
    /// or it got none (the callee then skips the value's contribution, as the tape skips
    /// an output no target depends on: a zero would meet an infinite partial, `0 · ∞`, NaN,
    /// at a singular point); for a tuple destructured, each part's, `None` where the part
    /// reaches nothing, as for [`Stmt::CallParts`]. In place, the elements of each written
    /// array's shadow that the call wrote (the whole array at its length then, or the
    /// part); the other arguments' cotangents added as for any call.
    ///
    /// [`Stmt::CallParts`]: crate::model::ir::Stmt::CallParts
    pub(super) fn reverse_call_writes(
        &self,
        id: usize,
        func: &Callee,
        args: &[Operand],
        written: &[Written],
        result: &CallResult,
        depth: usize,
    ) -> TokenStream {
        if !self.call_writes_useful(args, written, result) {
            return quote!();
        }
        let g = match result {
            CallResult::Value(b) if self.useful[*b] => {
                let slot = self.slot(*b);
                quote!(#slot.take())
            }
            CallResult::Parts(parts) => {
                let cotangent = self.parts_cotangents(parts);
                quote!(::core::option::Option::Some(generated::FromParts::from_parts(&mut [#(#cotangent),*])))
            }
            CallResult::Value(_) | CallResult::Dropped => quote!(::core::option::Option::None),
        };
        if let Some(passed) = self.replayed_writer(func, args, written, result, depth) {
            // `vjp_into` adds every array's cotangent into its shadow, the written ones'
            // elements taken as the pullback takes them
            // decided on the plans the forward code had (`split_call`)
            let split = self.split_call(id, func, args, written, &passed, depth);
            let mut passed = passed;
            if let ([w], CallResult::Dropped) = (written, result)
                && w.passed_on
                && let super::replay::Passed::Array { form, .. } = &mut passed[w.position]
            {
                // a reader of a `&mut` parameter passed on as it is, its value dropped:
                // skipped
                *form = super::replay::Form::UnlessRead;
            }
            let (prologue, call) = self.reverse_replayed(id, func, args, &passed, g.clone(), depth);
            if split.is_some() {
                // the adjoint the last trip kept, where it did
                let call = self.reverse_split(id, args, &passed, g, call);
                return quote!(#prologue #call);
            }
            return quote!(#prologue #call);
        }
        let (mut prologue, pullback) = self.recall(format!("pullback{id}"), depth);
        let mut buffers = Vec::new();
        for (n, w) in written.iter().enumerate() {
            let start = match &w.part {
                Some(_) => {
                    let (pop, start) = self.recall(format!("wstart{id}_{n}"), depth);
                    prologue.extend(pop);
                    start
                }
                None => quote!(&0usize),
            };
            let (pop, end) = self.recall(format!("wend{id}_{n}"), depth);
            prologue.extend(pop);
            let slot = self.slot(
                args[w.position]
                    .binding()
                    .expect("a written array is active"),
            );
            buffers.push(
                quote!(&mut generated::ArrayShadow::prefix_mut(&mut #slot, *#end)[*#start..]),
            );
        }
        let grads = mixed("grads");
        let accumulate = args.iter().enumerate().filter_map(|(k, arg)| {
            if written.iter().any(|w| w.position == k) {
                return None;
            }
            let index = syn::Index::from(k);
            self.accumulate_argument(arg, quote!(#grads.#index))
        });
        if let [w] = written
            && w.passed_on
        {
            // a `&mut` parameter passed on as it is (`w(x, y)`): the pullback takes its
            // shadow if the callee writes it, else returns its cotangent, added in
            let buffer = &buffers[0];
            let shadow = mixed(&format!("passed{id}"));
            let index = syn::Index::from(w.position);
            if let CallResult::Dropped = result {
                // a reader's dropped value carries no cotangent: its pullback not called
                return quote! {
                    #prologue
                    let #shadow: &mut [_] = #buffer;
                    if let Some(#grads) =
                        generated::PassedOn::pull_unless_read(#pullback, #g, &mut *#shadow)
                    {
                        generated::Absorb::absorb(#grads.#index, #shadow);
                        #(#accumulate)*
                    }
                };
            }
            return quote! {
                #prologue
                let #shadow: &mut [_] = #buffer;
                let #grads = generated::PassedOn::pull(#pullback, #g, &mut *#shadow);
                generated::Absorb::absorb(#grads.#index, #shadow);
                #(#accumulate)*
            };
        }
        if Self::passed_on_beside_others(written) {
            // each written array's shadow, and whether the callee writes it (a spelled
            // `&mut a` always; one passed on as it is as `generated::lend` recorded): the
            // pullback takes those it writes, and the others' entries are their cotangents
            let mut flags = Vec::new();
            let mut shadows = Vec::new();
            let mut absorbs = Vec::new();
            for (n, (w, buffer)) in written.iter().zip(&buffers).enumerate() {
                let shadow = mixed(&format!("passed{id}_{n}"));
                prologue.extend(quote!(let #shadow: &mut [_] = #buffer;));
                shadows.push(quote!(&mut *#shadow));
                if w.passed_on {
                    let (pop, flag) = self.recall(format!("written{id}_{n}"), depth);
                    prologue.extend(pop);
                    flags.push(quote!(*#flag));
                    let index = syn::Index::from(w.position);
                    absorbs.push(quote!(generated::Absorb::absorb(#grads.#index, #shadow);));
                } else {
                    flags.push(quote!(true));
                }
            }
            let pull = quote! {
                let #grads = generated::PassedOnMany::pull(#pullback, #g, [#(#flags),*], [#(#shadows),*]);
                #(#absorbs)*
                #(#accumulate)*
            };
            if let CallResult::Dropped = result {
                // a reader's dropped value carries no cotangent: its pullback not called
                // where the callee writes none of the arrays
                return quote! {
                    #prologue
                    if [#(#flags),*].contains(&true) {
                        #pull
                    }
                };
            }
            return quote!(#prologue #pull);
        }
        quote! {
            #prologue
            let #grads = (#pullback)(#g #(, #buffers)*);
            #(#accumulate)*
        }
    }

    /// Tangent: the callee's `jvp_call` with the written elements of each written array's
    /// tangent shadow (the array at its length, or the part), which it updates in place;
    /// the result and its tangent bound.
    pub(super) fn tangent_call_writes(
        &self,
        id: usize,
        func: &Callee,
        args: &[Operand],
        written: &[Written],
        result: &CallResult,
    ) -> TokenStream {
        let mut code = TokenStream::new();
        let mut tangents = Vec::new();
        for (k, arg) in args.iter().enumerate() {
            match written.iter().position(|w| w.position == k) {
                Some(n) => {
                    let tangent = self.tangent(arg.binding().expect("a written array is active"));
                    match &written[n].part {
                        Some(part) => {
                            let (start, end) = (&part.start, &part.end);
                            tangents.push(quote!(
                                &mut generated::Shadow::prefix_mut(&mut #tangent, #end)[#start..]
                            ));
                        }
                        None => {
                            let len = mixed(&format!("wlen{id}_{n}"));
                            let value = self.written_len(arg);
                            code.extend(quote!(let #len: usize = #value;));
                            tangents
                                .push(quote!(generated::Shadow::prefix_mut(&mut #tangent, #len)));
                        }
                    }
                }
                None => tangents.push(self.call_tangent(func, k, arg)),
            }
        }
        let call = func.jvp(args, tangents);
        match result {
            CallResult::Value(b) => {
                let (name, tangent) = (self.name(*b), self.tangent(*b));
                code.extend(quote!(let (#name, #tangent) = #call;));
            }
            CallResult::Parts(parts) => {
                // as for `Stmt::CallParts`: the value and the tangent, each a tuple
                let value = mixed(&format!("value{id}"));
                let dot = mixed(&format!("tan_value{id}"));
                let names = parts.iter().map(|&b| self.name(b));
                let tangents = parts.iter().map(|&b| self.tangent(b));
                let index: Vec<syn::Index> = (0..parts.len()).map(syn::Index::from).collect();
                code.extend(quote! {
                    let (#value, #dot) = #call;
                    #(let #names = #value.#index;)*
                    #(let #tangents = #dot.#index;)*
                });
            }
            CallResult::Dropped => code.extend(quote!(let _ = #call;)),
        }
        code
    }
}
