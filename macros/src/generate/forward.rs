//! Generation of the forward code: it takes the IR and gives the user's computation as
//! written (operands rebuilt; on the 0-d path the same on numbers), with each value the
//! adjoint needs saved beside it: at depth 0 as a local the pullback captures, inside
//! control flow on a stack, one entry per execution.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::{Flavour, Generator, Save, borrow, exit_name, is_literal, paths, return_label};
use crate::model::ir::{
    BinaryKind, Block, JumpKind, LoopHead, Op, Operand, RETURN_REGION, Saves, Stmt, Target,
};
use crate::syntax::mixed;
use crate::vocabulary;

impl Generator<'_> {
    /// The body's forward code. When a `return` jumps out of it, the body is a labelled
    /// block the jumps leave, after the results' declarations, and it saves how it ended.
    pub(super) fn forward_body(&self) -> TokenStream {
        let Some(results) = &self.body.returned else {
            return self.forward_block(&self.body.block);
        };
        // registered before the body, whose jumps save into it too (`saved_before`)
        let exit = self.save(exit_name(RETURN_REGION), 1);
        let code = self.forward_block(&self.body.block);
        let names = results.iter().map(|&b| self.name(b));
        let ran_to_end = self.keep_exit(&exit, 0);
        let label = return_label();
        quote! {
            #(let #names;)*
            #label: { #code #ran_to_end }
        }
    }

    /// Saves how a region's run ended (0: at its end; else the id of the jump).
    fn keep_exit(&self, exit: &Save, id: usize) -> TokenStream {
        if !self.saving {
            return quote!();
        }
        exit.keep(quote!(#id))
    }

    pub(super) fn forward_block(&self, block: &Block) -> TokenStream {
        block
            .stmts
            .iter()
            .map(|stmt| self.forward_stmt(stmt, block.depth))
            .collect()
    }

    fn forward_stmt(&self, stmt: &Stmt, depth: usize) -> TokenStream {
        match stmt {
            Stmt::Plain(tokens) => tokens.clone(),
            Stmt::Declare { binding, mutable } => {
                let name = self.name(*binding);
                let mutability = mutable.then(|| quote!(mut));
                quote!(let #mutability #name;)
            }
            Stmt::Def { id, target, op } => self.forward_def(*id, target, op, depth),
            Stmt::If {
                id,
                cond,
                then_branch,
                else_branch,
            } => {
                let flag = self.save_number(format!("branch{id}"), depth);
                let name = &flag.name;
                let keep = self.keep_control(&flag);
                let (then_code, else_code) = self.in_branch(|| {
                    (
                        self.forward_block(then_branch),
                        self.forward_block(else_branch),
                    )
                });
                let bind = if depth == 0 {
                    quote!(let #name: bool = #cond;)
                } else {
                    quote!(let #name: bool = #cond; #keep)
                };
                quote! {
                    #bind
                    if #name { #then_code } else { #else_code }
                }
            }
            Stmt::Match {
                id,
                scrutinee,
                arms,
            } if depth > 0 => {
                // The arm taken is saved as it starts: it may jump out before its end.
                // (Exactly one arm runs, so the save is made once wherever the match is.)
                let flag = self.save_number(format!("arm{id}"), depth);
                let arms = self.forward_arms(arms, |index, code| {
                    let keep = self.saving.then(|| flag.keep(quote!(#index)));
                    quote!({ #keep #code })
                });
                quote!(match #scrutinee { #(#arms)* })
            }
            Stmt::CallParts {
                id,
                func,
                args,
                parts,
                fields,
            } => {
                let call = match fields {
                    Some(fields) => crate::results::parts_vjp(&func.vjp_partial(args), fields),
                    None => func.vjp(args),
                };
                let (call, value) = self.call_vjp_of(*id, call, depth);
                let names = parts.iter().map(|&b| self.name(b));
                let index = (0..parts.len()).map(syn::Index::from);
                quote! {
                    #call
                    #(let #names = #value.#index;)*
                }
            }
            Stmt::Jump {
                id,
                kind,
                label,
                exits,
            } => {
                let saves = exits.iter().map(|&region| {
                    let exit = self.saved_before(exit_name(region));
                    self.keep_exit(&exit, *id)
                });
                // The loops it leaves for good (all its regions but the last: the target
                // of a `break`/`continue`, or the body) never reach the save of their trip
                // count after the loop: it is saved here.
                let left = &exits[..exits.len() - 1];
                let trips = left.iter().filter(|_| self.saving).map(|&region| {
                    let trips = self.saved_before(format!("trips{region}"));
                    let name = &trips.name;
                    trips.keep(quote!(#name))
                });
                let saves = saves.chain(trips).collect::<Vec<_>>();
                let jump = match kind {
                    JumpKind::Break => quote!(break #label;),
                    JumpKind::Continue => quote!(continue #label;),
                    JumpKind::Return => {
                        let label = return_label();
                        quote!(break #label;)
                    }
                };
                quote!(#(#saves)* #jump)
            }
            Stmt::Match {
                id,
                scrutinee,
                arms,
            } => {
                let flag = self.save_number(format!("arm{id}"), depth);
                let name = &flag.name;
                let arms = self.forward_arms(arms, |index, code| quote!({ #code #index }));
                let keep = self.keep_control(&flag);
                quote! {
                    let #name: usize = match #scrutinee { #(#arms)* };
                    #keep
                }
            }
            Stmt::Scope(block) => self.forward_scope(block),
            Stmt::Swap { code, .. } => code.clone(),
            Stmt::CallWrites {
                id,
                func,
                args,
                written,
                result,
            } => self.forward_call_writes(*id, func, args, written, result, depth),
            Stmt::Loop {
                id,
                label,
                head,
                body,
                exits,
            } => match self.checkpointed(depth) {
                Some(schedule) => self.forward_checkpointed(stmt, schedule),
                None => self.forward_loop(*id, label.as_ref(), head, body, *exits, depth),
            },
        }
    }

    /// A loop's forward code: its trip count saved, and values on stacks one entry per
    /// trip (room reserved up front from a `for` iterator's size hint).
    pub(super) fn forward_loop(
        &self,
        id: usize,
        label: Option<&syn::Lifetime>,
        head: &LoopHead,
        body: &Block,
        exits: bool,
        depth: usize,
    ) -> TokenStream {
        let trips = self.save_number(format!("trips{id}"), depth);
        let name = &trips.name;
        // the operands the trips read but never change, once (`invariants`)
        let mut invariants = TokenStream::new();
        for (binding, operand) in self.invariants.per_loop.get(&id).into_iter().flatten() {
            let name = super::invariants::Invariants::name(id, *binding);
            let save = self.save_kind(name, depth, !self.tensor());
            invariants.extend(save.keep(self.owned(operand)));
        }
        let by_trip = !exits && self.saving && !self.tensor() && self.body.checkpoint.is_none();
        self.loops.borrow_mut().push(super::LoopSaves {
            id,
            by_trip,
            branches: self.branches.get(),
            per_trip: Vec::new(),
            indexed: Vec::new(),
        });
        // Each iteration is counted as it starts (a jump may end it early) and, when
        // one may, saves how it ended.
        let ran_to_end = exits.then(|| {
            let exit = self.save(exit_name(id), body.depth);
            self.keep_exit(&exit, 0)
        });
        let body_code = self.forward_block(body);
        let label = label.map(|label| quote!(#label:));
        let super::LoopSaves {
            mut per_trip,
            indexed,
            ..
        } = self.loops.borrow_mut().pop().expect("pushed above");
        let code = if indexed.is_empty() {
            quote!(#name += 1; #body_code #ran_to_end)
        } else {
            // The saves by trip, declared as the trip starts, each assigned once in it (in
            // no branch), pushed together as the trip's record at its end, which every
            // trip reaches (`by_trip`: no jump ends one early). The body in a block of its
            // own: its last statement may be an expression without a semicolon.
            let record = super::RecordField::record(id);
            let stack = record.stack();
            let indexed: Vec<Ident> = indexed.iter().map(super::RecordField::local).collect();
            self.stacks.borrow_mut().push(record.name.clone());
            per_trip.push(record.name);
            quote! {
                #name += 1;
                #(let #indexed;)*
                { #body_code }
                generated::keep(&mut #stack, (#(#indexed,)*));
            }
        };
        let keep = self.keep_control(&trips);
        // a split call's trip count as the loop starts (`replay::split_call`: a range,
        // whose size is exact; 0, which no trip's count is, otherwise)
        let last = self.loop_has_split(id).then(|| {
            let (iterator, last) = (mixed(&format!("iter{id}")), Self::split_last(id));
            let (lower, upper) = (mixed("lower"), mixed("upper"));
            quote! {
                let #last: usize = match ::core::iter::Iterator::size_hint(&#iterator) {
                    (#lower, ::core::option::Option::Some(#upper)) if #lower == #upper => #lower,
                    _ => 0,
                };
            }
        });
        let looped = match head {
            LoopHead::For { pat, iter } if !per_trip.is_empty() || last.is_some() => {
                // Room for one save per trip up front: growing a stack while the
                // loop runs copies it over and over. `match` keeps the iterator
                // expression's temporaries alive through the loop, as `for` does.
                let (iterator, hint) = (mixed(&format!("iter{id}")), mixed("hint"));
                let stacks = per_trip
                    .iter()
                    .map(|save| crate::syntax::mixed(&format!("{}_stack", save)));
                quote! {
                    match ::core::iter::IntoIterator::into_iter(#iter) {
                        #iterator => {
                            let #hint = ::core::iter::Iterator::size_hint(&#iterator).0;
                            #(generated::reserve(&mut #stacks, #hint);)*
                            #last
                            #label for #pat in #iterator { #code }
                        }
                    }
                }
            }
            LoopHead::For { pat, iter } => quote!(#label for #pat in #iter { #code }),
            LoopHead::While { cond } => quote!(#label while #cond { #code }),
            LoopHead::Loop => quote!(#label loop { #code }),
        };
        quote! {
            #invariants
            let mut #name: usize = 0;
            #looped
            #keep
        }
    }

    /// A plain block, in braces so that the names it declares end with it. The values it
    /// saves at depth 0 are locals the pullback captures: the block hands them out as a
    /// tuple (`let (s1, s2,) = { ..; (s1, s2,) };`).
    fn forward_scope(&self, block: &Block) -> TokenStream {
        self.scopes.borrow_mut().push(Vec::new());
        let code = self.forward_block(block);
        let saved = self.scopes.borrow_mut().pop().expect("pushed above");
        // Handed out here, they are locals of the enclosing block, which may be a plain
        // block itself.
        if let Some(outer) = self.scopes.borrow_mut().last_mut() {
            outer.extend(saved.iter().cloned());
        }
        if saved.is_empty() {
            return quote!({ #code });
        }
        quote! {
            let (#(#saved,)*) = { #code (#(#saved,)*) };
        }
    }

    /// A `match`'s arms, each `pat if guard => body`, `body` what `arm_body` makes of the
    /// arm's index and its forward code (generated as a branch: `in_branch`).
    fn forward_arms(
        &self,
        arms: &[crate::model::ir::Arm],
        arm_body: impl Fn(usize, TokenStream) -> TokenStream,
    ) -> Vec<TokenStream> {
        self.in_branch(|| {
            arms.iter()
                .enumerate()
                .map(|(index, arm)| {
                    let pat = &arm.pat;
                    let guard = arm.guard.as_ref().map(|guard| quote!(if #guard));
                    let body = arm_body(index, self.forward_block(&arm.body));
                    quote!(#pat #guard => #body)
                })
                .collect()
        })
    }

    /// Generates the code of a branch or arms (whose saves are made in some trips only).
    fn in_branch<T>(&self, generate: impl FnOnce() -> T) -> T {
        self.branches.set(self.branches.get() + 1);
        let code = generate();
        self.branches.set(self.branches.get() - 1);
        code
    }

    /// Saves a branch taken or a trip count (bound to its name already) when it is on a
    /// stack; at depth 0 the pullback captures the local itself.
    fn keep_control(&self, save: &Save) -> TokenStream {
        if save.depth == 0 || !self.saving {
            return quote!();
        }
        let name = &save.name;
        save.keep(quote!(#name))
    }

    pub(super) fn target_prefix(&self, target: &Target, id: usize) -> TokenStream {
        match target {
            Target::Element { .. } => {
                let stored = Self::stored(id);
                quote!(let #stored =)
            }
            Target::Let {
                binding,
                mutable,
                ty,
            } => {
                let name = self.name(*binding);
                let mutability = mutable.then(|| quote!(mut));
                // On the 0-d path the value is a number, whatever tensor type was written.
                let ty = ty
                    .as_ref()
                    .filter(|_| self.zero_d().is_none())
                    .map(|ty| quote!(: #ty));
                quote!(let #mutability #name #ty =)
            }
            Target::Assign { binding } => {
                let name = self.name(*binding);
                quote!(#name =)
            }
        }
    }

    /// The value an element write stores, computed first into a local of its own.
    pub(super) fn stored(id: usize) -> Ident {
        mixed(&format!("stored{id}"))
    }

    /// What follows the op's `let`: the element write itself.
    pub(super) fn target_suffix(&self, target: &Target, id: usize) -> TokenStream {
        match target {
            Target::Element {
                binding,
                index,
                push,
                ..
            } => {
                let (array, stored) = (self.name(*binding), Self::stored(id));
                if *push {
                    quote!(#array.push(#stored);)
                } else if let Some(row) = &self.body.bindings[*binding].row {
                    quote!(#array[#index / (#row)][#index % (#row)] = #stored;)
                } else {
                    quote!(#array[#index] = #stored;)
                }
            }
            _ => quote!(),
        }
    }

    /// The name holding the op's value once computed.
    pub(super) fn value_name(&self, target: &Target, id: usize) -> Ident {
        match target {
            Target::Element { .. } => Self::stored(id),
            other => self.name(other.binding()).clone(),
        }
    }

    pub(super) fn target_binding(target: &Target) -> usize {
        target.binding()
    }

    /// The op's forward expression, as the user wrote it (operands rebuilt); on the 0-d
    /// path, the same on numbers.
    pub(super) fn op_expr(&self, op: &Op) -> TokenStream {
        match op {
            Op::Copy { value, clone } => {
                if *clone && self.zero_d().is_none() {
                    let recv = self.receiver(value);
                    quote!(#recv.clone())
                } else {
                    self.operand(value)
                }
            }
            Op::Neg(x) => {
                let x = self.receiver(x);
                quote!(-#x)
            }
            Op::Cast { x, ty } => {
                let x = self.receiver(x);
                self.cast_to(x, ty)
            }
            Op::Unary {
                method, x, args, ..
            } => self.unary_expr(method, x, args.iter().map(|a| quote!(#a)).collect()),
            Op::Binary { kind, lhs, rhs } => {
                let (l, r) = (self.operand(lhs), self.operand(rhs));
                match kind {
                    BinaryKind::Add => quote!(#l + #r),
                    BinaryKind::Sub => quote!(#l - #r),
                    BinaryKind::Mul => quote!(#l * #r),
                    BinaryKind::Div => quote!(#l / #r),
                    BinaryKind::Rem => quote!(#l % #r),
                    BinaryKind::Method { row, .. } if self.zero_d().is_some() => {
                        let kernel = format_ident!("{row}");
                        let generated = paths::generated();
                        quote!(#generated::scalar::#kernel(#l, #r))
                    }
                    BinaryKind::Method { method, .. } => {
                        let l = self.receiver(lhs);
                        quote!(#l.#method(#r))
                    }
                    BinaryKind::FusedMulAdd(operands) => {
                        let (x, a) = &**operands;
                        let (x, a) = (self.receiver(x), self.operand(a));
                        quote!(#x.mul_add(#a, #r))
                    }
                }
            }
            Op::Trace { expr, .. } => quote!(#expr),
            Op::Call { func, args } => func.primal(args),
            Op::Load { array, index, .. } => {
                let row = &self.body.bindings[*array].row;
                let array = self.name(*array);
                match row {
                    // `m[i][j]` back from its flat index
                    Some(row) => quote!(#array[#index / (#row)][#index % (#row)]),
                    None => quote!(#array[#index]),
                }
            }
        }
    }

    /// `x.method(args)`, or on the 0-d path the kernel of the same name on numbers.
    pub(super) fn unary_expr(
        &self,
        method: &Ident,
        x: &Operand,
        args: Vec<TokenStream>,
    ) -> TokenStream {
        let x = self.receiver(x);
        match self.zero_d() {
            Some(_) => {
                // the kernel of the primitive the method records (`expm1` for `exp_m1`)
                let kernel = vocabulary::elementwise(&method.to_string())
                    .map_or_else(|| method.clone(), |row| format_ident!("{}", row.rule));
                let generated = paths::generated();
                quote!(#generated::scalar::#kernel(#x #(, #args)*))
            }
            None => quote!(#x.#method(#(#args),*)),
        }
    }

    fn forward_def(&self, id: usize, target: &Target, op: &Op, depth: usize) -> TokenStream {
        let code = self.forward_def_value(id, target, op, depth);
        let suffix = self.target_suffix(target, id);
        let index = match target {
            // an index the adjoint recomputes from loop counters is not saved
            Target::Element {
                index,
                counter: None,
                ..
            } if self.useful[target.binding()] && self.saving => self
                .save_number(format!("idx{id}"), depth)
                .keep(quote!(#index)),
            _ => quote!(),
        };
        quote!(#code #index #suffix)
    }

    fn forward_def_value(&self, id: usize, target: &Target, op: &Op, depth: usize) -> TokenStream {
        let prefix = self.target_prefix(target, id);
        let binding = Self::target_binding(target);
        if !self.useful[binding] {
            let expr = self.op_expr(op);
            return quote!(#prefix #expr;);
        }
        let mut code = TokenStream::new();
        match op {
            Op::Load { index, counter, .. } => {
                // an index that is its loop's counter is recomputed by the adjoint
                if counter.is_none() {
                    code.extend(
                        self.save_number(format!("load{id}"), depth)
                            .keep(quote!(#index)),
                    );
                }
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Copy { .. } | Op::Neg(_) => {
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Cast { x, .. } => {
                // the operand's value tells the adjoint which type to convert back to
                let save = self.save_kind(format!("x{id}"), depth, !self.tensor());
                code.extend(save.keep(self.owned(x)));
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Unary {
                method,
                saves,
                x,
                args,
            } => {
                let mut call_args = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    if is_literal(arg) {
                        call_args.push(quote!(#arg));
                    } else {
                        let save = self.save_kind(format!("arg{id}_{k}"), depth, !self.tensor());
                        let name = &save.name;
                        code.extend(quote!(let #name = #arg;));
                        if depth > 0 {
                            code.extend(save.keep(quote!(#name)));
                        }
                        call_args.push(quote!(#name));
                    }
                }
                if *saves == Saves::Input {
                    let save = self.save_kind(format!("x{id}"), depth, !self.tensor());
                    code.extend(save.keep(self.owned(x)));
                }
                let expr = self.unary_expr(method, x, call_args);
                code.extend(quote!(#prefix #expr;));
                if *saves == Saves::Output {
                    let save = self.save_kind(format!("out{id}"), depth, !self.tensor());
                    let name = self.value_name(target, id);
                    let value = match self.flavour {
                        Flavour::ZeroD(_) => quote!(#name),
                        _ => quote!(generated::own(&#name)),
                    };
                    code.extend(save.keep(value));
                }
            }
            Op::Binary { kind, lhs, rhs } if let Some(selects) = self.selection(kind, lhs, rhs) => {
                code.extend(self.save_number(format!("sel{id}"), depth).keep(selects));
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Binary { kind, lhs, rhs } => {
                let (keep_lhs, keep_rhs) = self.binary_saves(kind, lhs, rhs);
                // (an operand the adjoint recomputes is not saved: `remat`)
                let keep_lhs = keep_lhs && self.rematerialized(lhs).is_none();
                let keep_rhs = keep_rhs && self.rematerialized(rhs).is_none();
                // (nor one its loop saved as it started: `invariants`)
                let keep_lhs = keep_lhs && !self.invariants.uses.contains_key(&(id, 0));
                let keep_rhs = keep_rhs && !self.invariants.uses.contains_key(&(id, 1));
                let number = !self.tensor();
                if keep_lhs {
                    let save = self.save_kind(format!("lhs{id}"), depth, number);
                    code.extend(save.keep(self.owned(lhs)));
                }
                if keep_rhs {
                    let save = self.save_kind(format!("rhs{id}"), depth, number);
                    code.extend(save.keep(self.owned(rhs)));
                }
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Trace { expr, inputs } => {
                let save = self.save(format!("trace{id}"), depth);
                let value = mixed(&format!("value{id}"));
                let trace = mixed(&format!("trace{id}"));
                let inputs = inputs.iter().map(|(_, fwd)| {
                    let fwd = borrow(fwd);
                    quote!(generated::own(#fwd))
                });
                code.extend(quote! {
                    let (#value, #trace) = generated::trace((#(#inputs,)*), || #expr);
                });
                if depth > 0 {
                    code.extend(save.keep(quote!(#trace)));
                }
                code.extend(quote!(#prefix #value;));
            }
            Op::Call { func, args } if self.joint_call(func, args, depth) => {
                // the value alone: the adjoint calls `vjp_now` on the same arguments
                let (borrows, args) = self.joint_args(id, args);
                let call = func.primal(&args);
                code.extend(quote!(#borrows #prefix #call;));
            }
            Op::Call { func, args } => {
                match self.replayed_call(func, args, &[], depth) {
                    Some(passed) => {
                        // the call as written, its arguments saved for `vjp_into`
                        let (saves, call) =
                            self.forward_replayed(id, func, args, &passed, depth, None);
                        code.extend(quote!(#saves #prefix #call;));
                    }
                    None => {
                        // `vjp_partial` where it exists (see `partial_call`)
                        let call = if self.partial_call(func) {
                            func.vjp_partial(args)
                        } else {
                            func.vjp(args)
                        };
                        let (call, value) = self.call_vjp_of(id, call, depth);
                        code.extend(quote!(#call #prefix #value;));
                    }
                }
            }
        }
        code
    }

    /// Whether an `Op::Call` goes through the callee's `vjp_partial` (scalar mode, an
    /// annotated callee: no plain helper on dual numbers), its pullback given `Some` of
    /// the result's cotangent: for a struct result held whole (`let s = step(..);` passed
    /// on as `&s`; the caller cannot tell it from a float's), whose cotangent's zero fields
    /// (those no one read: the struct's cotangent is built from a zero of it) are none in
    /// the callee (`generated::field_cotangent`), where the struct's own `vjp` passes every
    /// field's cotangent on as given.
    pub(super) fn partial_call(&self, func: &crate::model::ir::Callee) -> bool {
        matches!(self.flavour, Flavour::Scalar)
            && !matches!(func, crate::model::ir::Callee::Plain(_))
    }

    /// A call of another function through its `vjp` (`Op::Call`, `Stmt::CallParts`,
    /// `Stmt::CallWrites`; `vjp_partial` for some, or a struct result's made a tuple's):
    /// `let (value{id}, pullback{id}) = #call;`, the pullback kept for the adjoint on its
    /// stack below depth 0. The code, and the value's name.
    pub(super) fn call_vjp_of(
        &self,
        id: usize,
        call: TokenStream,
        depth: usize,
    ) -> (TokenStream, Ident) {
        let save = self.save(format!("pullback{id}"), depth);
        let pullback = &save.name;
        let value = mixed(&format!("value{id}"));
        let keep = (depth > 0 && self.saving).then(|| save.keep(quote!(#pullback)));
        (quote!(let (#value, #pullback) = #call; #keep), value)
    }

    /// For `max`/`min` of plain numbers, the comparison that says which operand the
    /// result is (`lhs >= rhs` for `max`, `rhs >= lhs` for `min`: the first operand wins
    /// ties, as TensorFlow's rules give it the cotangent): saved as a `bool` instead of both
    /// operands, a sixteenth of the memory in a loop. The operands must be names or
    /// constants without effects, since the comparison reads them a second time.
    pub(super) fn selection(
        &self,
        kind: &BinaryKind,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Option<TokenStream> {
        if !matches!(self.flavour, Flavour::Scalar) {
            return None;
        }
        let row = kind.row_name();
        if row != "maximum" && row != "minimum" {
            return None;
        }
        let pure = |operand: &Operand| crate::syntax::is_name_or_literal(operand.fwd());
        if !(pure(lhs) && pure(rhs)) {
            return None;
        }
        let (l, r) = (self.receiver(lhs), self.receiver(rhs));
        Some(if row == "maximum" {
            quote!(#l >= #r)
        } else {
            quote!(#r >= #l)
        })
    }

    /// Which operands of a binary op the adjoint needs: those its active operands' rules
    /// read (the other operand's value for the product and quotient rules), and an active
    /// operand's own shape to undo broadcasting.
    pub(super) fn binary_saves(
        &self,
        kind: &BinaryKind,
        lhs: &Operand,
        rhs: &Operand,
    ) -> (bool, bool) {
        let active = [lhs.binding().is_some(), rhs.binding().is_some()];
        let row = vocabulary::binary(kind.row_name());
        let reads = row.rules.map(vocabulary::rule_reads);
        let need = |side: usize| {
            (row.saves[side] && (0..2).any(|k| active[k] && reads[k][side]))
                || (active[side] && self.tensor())
        };
        (
            need(0) && !is_literal(lhs.fwd()),
            need(1) && !is_literal(rhs.fwd()),
        )
    }
}
