//! Generation of the tangent code (`f::jvp`): it takes the IR and gives the user's
//! computation as written with, beside each active value, its tangent, computed in the
//! same pass (dual numbers, done at compile time). An elementwise op's Jacobian is
//! diagonal, hence its own transpose, so an op's tangent is its VJP rule applied to its
//! operands' tangents: unary `vjp::<name>(saved, t)`, binary
//! `rule_lhs(x, y, tx) + rule_rhs(x, y, ty)`, the very rules the adjoint calls; a call of
//! another annotated function goes through that function's `jvp_call`. Nothing is saved:
//! branches, arms and loops run once, as written, so the code keeps no tape, and in scalar
//! mode allocates nothing.
//!
//! Tensor mode is the same code on tensors, with two differences. A binary op's terms have
//! the broadcast shape of the operands with tangents, so the sum is broadcast to the
//! result's shape (`generated::broadcast_tangent`: a constant operand may widen it). And an
//! op with no elementwise rule, which the adjoint replays on a sub-tape, runs here under a
//! forward accumulator of its own (`generated::trace_jvp`), so its tangent comes from the
//! runtime's JVP rules. Tensors are not `Copy`: a tangent read by value is cloned (a
//! reference count). And a tangent is an `Option` (`None`, a symbolic zero): a parameter
//! the caller gives no tangent (`f::jvp_partial`, which an accumulator calls with the
//! tangents it has) costs no tangent work, and an op whose operands have none makes none.
//!
//! Every active binding `x` has its tangent `tan_x` (unique per binding, see
//! [`Binding::tangent`](crate::model::ir::Binding)), declared and assigned where `x` is.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemFn;

use super::{Generator, borrow, is_literal, paths, return_label};
use crate::model::ir::{Block, Callee, JumpKind, LoopHead, Op, Operand, Saves, Stmt, Target};
use crate::model::sig::Kind;
use crate::syntax::mixed;
use crate::vocabulary;

impl Generator<'_> {
    /// `jvp(params.., tangents..) -> (value, tangent)`: one tangent parameter per float
    /// parameter, in order, after all the parameters; the tangent has the result's type
    /// (a tuple of tangents for a tuple result).
    pub fn jvp_fn(&self, item: &ItemFn) -> TokenStream {
        let mut code = self.tangent_block(&self.body.block);
        if let Some(results) = &self.body.returned {
            // `return` jumps out of the body, a labelled block, its results assigned.
            let names = results.iter().map(|&b| self.name(b));
            let tangents = results.iter().map(|&b| self.tangent(b));
            let label = return_label();
            code = quote!(#(let #names;)* #(let #tangents;)* #label: { #code });
        }
        let params = self.params();
        let tangent_params = self.tangent_params();
        let read_value = self.read_value_import();
        let (mut values, mut tangents, mut finish) = (Vec::new(), Vec::new(), TokenStream::new());
        for (k, output) in self.body.outputs.iter().enumerate() {
            let (value, tangent) = (mixed(&format!("out{k}")), mixed(&format!("tan_out{k}")));
            let fwd = output.fwd();
            finish.extend(quote!(let #value = #fwd;));
            let dot = match output.binding() {
                Some(binding) if self.tensor() => {
                    let tangent = self.tangent_value(binding);
                    quote!(generated::tangent_or_zeros(#tangent, &#value))
                }
                Some(binding) => self.tangent_value(binding),
                None => quote!(generated::zero_like(&#value)),
            };
            finish.extend(quote!(let #tangent = #dot;));
            values.push(value);
            tangents.push(tangent);
        }
        let result = if self.sig.tuple_output {
            quote!(((#(#values),*), (#(#tangents),*)))
        } else if values.is_empty() {
            // Only `&mut` arrays are written: their tangents are in the caller's buffers.
            quote!(((), ()))
        } else {
            quote!((#(#values)*, #(#tangents)*))
        };
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let imports = paths::imports();
        // An array's tangent is a shadow: the caller's values (copied if the body writes
        // the array), or for a `&mut` output the caller's buffer, written in place.
        let shadows =
            self.sig
                .params
                .iter()
                .zip(&self.body.params)
                .filter_map(|(param, binding)| {
                    let binding = (*binding)?;
                    if !self.body.bindings[binding].array {
                        return None;
                    }
                    let tangent = self.tangent(binding);
                    if param.is_ragged() {
                        // the caller's tangent rows, of the parameter's shape (checked)
                        let (function, param_name) =
                            (format!("{}::jvp", item.sig.ident), param.ident.to_string());
                        let ident = &param.ident;
                        // (no rows at all is a zero tangent: `jvp_call`'s for a constant)
                        return Some(quote! {
                            if !#tangent.is_empty() {
                                generated::check_row_shadow(#function, #param_name, &#ident[..], #tangent);
                            }
                            let mut #tangent = generated::RowShadow::shared(#tangent);
                        });
                    }
                    let flat = match param.array_row() {
                        Some(_) => quote!(#tangent.as_flattened()),
                        None => quote!(#tangent),
                    };
                    Some(if param.is_output_array() {
                        let flat = match param.array_row() {
                            Some(_) => quote!(#tangent.as_flattened_mut()),
                            None => quote!(#tangent),
                        };
                        quote!(let mut #tangent = generated::Shadow::borrowed(#flat);)
                    } else {
                        quote!(let mut #tangent = generated::Shadow::shared(#flat);)
                    })
                });
        let name = if self.tensor() {
            format_ident!("jvp_partial")
        } else {
            format_ident!("jvp")
        };
        quote! {
            pub fn #name #generics (#(#params,)* #(#tangent_params),*) -> (#ret_ty, #ret_ty) #where_clause {
                #imports
                #read_value
                #(#shadows)*
                #code
                #finish
                #result
            }
        }
    }

    /// Tensor mode's `jvp(params.., tangents..)`: every differentiable parameter's tangent
    /// as a `&Tensor`, passed on to `jvp_partial` (whose tangents are `Option`s).
    pub fn jvp_public_fn(&self, item: &ItemFn) -> TokenStream {
        let private = paths::private();
        let mut params = Vec::new();
        let mut args = Vec::new();
        let mut tangent_args = Vec::new();
        for (param, binding) in self.sig.params.iter().zip(&self.body.params) {
            let ident = &param.ident;
            let ty = match (&param.kind, &param.elem) {
                (Kind::Variable, Some(elem)) => quote!(&#private::Tensor<#elem>),
                _ => {
                    let ty = &param.ty;
                    quote!(#ty)
                }
            };
            params.push(quote!(#ident: #ty));
            args.push(ident);
            if let (Some(binding), Some(elem)) = (binding, &param.elem) {
                let tangent = self.tangent(*binding);
                tangent_args.push((tangent, elem));
            }
        }
        let tangent_params = tangent_args
            .iter()
            .map(|(tangent, elem)| quote!(#tangent: &#private::Tensor<#elem>));
        let tangents = tangent_args
            .iter()
            .map(|(tangent, _)| quote!(::core::option::Option::Some(::core::clone::Clone::clone(#tangent))));
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let turbofish = generics.split_for_impl().1;
        let turbofish = turbofish.as_turbofish();
        quote! {
            pub fn jvp #generics (#(#params,)* #(#tangent_params),*) -> (#ret_ty, #ret_ty) #where_clause {
                Self::jvp_partial #turbofish (#(#args,)* #(#tangents),*)
            }
        }
    }

    /// `jvp_call(params.., (tangent or NoTangent, ..))`: `jvp` as another annotated
    /// function's tangent code calls it, one entry per parameter, since the caller cannot
    /// tell a float parameter from a data one. A float parameter's entry is its tangent or
    /// `NoTangent` (a constant argument, tangent zero), a data parameter's `NoTangent`.
    pub fn jvp_call_fn(&self, item: &ItemFn) -> TokenStream {
        let generated = paths::generated();
        let params = self.params();
        let mut entry_types = Vec::new();
        let mut entries = Vec::new();
        let mut tangents = Vec::new();
        let mut shaping = Vec::new();
        for (k, (param, binding)) in self.sig.params.iter().zip(&self.body.params).enumerate() {
            let entry = mixed(&format!("t{k}"));
            match (binding, &param.elem) {
                (Some(_), Some(elem)) if param.is_output_array() => {
                    // The caller's tangent shadow of the array it passes `&mut`, flat and
                    // of the array's length, updated in place as `jvp` does.
                    entry_types.push(quote!(&mut [#elem]));
                    tangents.push(match param.array_row() {
                        // whole rows: the caller's shadow has the array's flat length
                        Some(row) => quote!(#entry.as_chunks_mut::<{ #row }>().0),
                        None => quote!(#entry),
                    });
                }
                (Some(_), Some(elem)) if param.is_ragged() => {
                    // the caller's tangent shadow of rows (or `NoTangent`: no rows, zeros),
                    // in the parameter's shape
                    entry_types.push(quote!(impl #generated::TangentRows<#elem>));
                    // (shaped before the call: the call may move the array)
                    let (ident, shaped) = (&param.ident, mixed(&format!("rows{k}")));
                    shaping.push(quote!(let #shaped = #generated::tangent_rows_like(&#ident[..], #generated::TangentRows::<#elem>::rows(&#entry));));
                    tangents.push(quote!(&*#shaped));
                }
                (Some(_), Some(elem)) if param.is_whole() => {
                    // The caller's tangent of the struct (or `NoTangent`: a zero of its
                    // shape), `elem` being the struct's type.
                    entry_types.push(quote!(impl #generated::TangentStruct<#elem>));
                    let (ident, zero, tangent) = (
                        &param.ident,
                        mixed(&format!("zero{k}")),
                        mixed(&format!("struct{k}")),
                    );
                    let private = paths::private();
                    shaping.push(quote! {
                        let mut #zero = ::core::option::Option::None;
                        let #tangent: &#elem = #generated::struct_tangent(&#entry, &mut #zero, || {
                            <#elem as #private::Differentiable>::zero_like(#ident)
                        });
                    });
                    tangents.push(quote!(#tangent));
                }
                (Some(_), Some(elem)) if matches!(param.kind, Kind::Array { .. }) => {
                    // The caller's tangent shadow (or `NoTangent`: zeros) as a slice.
                    entry_types.push(quote!(impl #generated::TangentSlice<#elem>));
                    let flat = quote!(#generated::TangentSlice::<#elem>::flat(&#entry));
                    tangents.push(match param.array_row() {
                        Some(row) => quote!(&*#generated::tangent_rows::<#elem, { #row }>(#flat)),
                        None => flat,
                    });
                }
                (Some(_), Some(elem)) => {
                    entry_types.push(quote!(impl #generated::TangentArg<#elem>));
                    tangents.push(quote!(#generated::TangentArg::<#elem>::tangent(#entry)));
                }
                _ => entry_types.push(quote!(impl #generated::ConstantTangent)),
            }
            entries.push(entry);
        }
        let args = self.sig.params.iter().map(|p| &p.ident);
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let tangents_name = mixed("tangents");
        quote! {
            /// `jvp` with one tangent entry per parameter, as the tangent code of another
            /// annotated function calls it (`NoTangent` for a constant or data argument).
            #[doc(hidden)]
            #[inline]
            pub fn jvp_call #generics (#(#params,)* #tangents_name: (#(#entry_types,)*)) -> (#ret_ty, #ret_ty) #where_clause {
                let (#(#entries,)*) = #tangents_name;
                #(#shaping)*
                Self::jvp(#(#args,)* #(#tangents),*)
            }
        }
    }

    /// The tangent parameters: `tan_x: E` for each float parameter `x` of element type `E`
    /// (by value, also for an `&f64` parameter).
    fn tangent_params(&self) -> Vec<TokenStream> {
        self.sig
            .params
            .iter()
            .zip(&self.body.params)
            .filter_map(|(param, binding)| {
                let binding = (*binding)?;
                let tangent = self.tangent(binding);
                let elem = param.elem.as_ref().expect("a float parameter");
                if matches!(param.kind, Kind::Tensor { .. } | Kind::Variable) {
                    let private = paths::private();
                    let mutability = param.mutable.then(|| quote!(mut));
                    return Some(
                        quote!(#mutability #tangent: ::core::option::Option<#private::Tensor<#elem>>),
                    );
                }
                if param.is_output_array() {
                    // in the parameter's shape (rows for an array of rows), as `grad_into`'s
                    // buffer
                    let item = param.array_item();
                    return Some(quote!(#tangent: &mut [#item]));
                }
                if let Kind::Array { .. } = param.kind {
                    let item = param.array_item();
                    return Some(quote!(#tangent: &[#item]));
                }
                if param.is_whole() {
                    // a value of the struct, `elem`
                    return Some(quote!(#tangent: &#elem));
                }
                debug_assert!(matches!(param.kind, Kind::Float { .. }), "scalar mode");
                // Assigned where the parameter is, when it is `mut`.
                let mutability = param.mutable.then(|| quote!(mut));
                Some(quote!(#mutability #tangent: #elem))
            })
            .collect()
    }

    /// The tangent entries of another annotated function's `jvp_call`, one per argument
    /// ([`Self::call_tangent`]).
    pub(super) fn call_tangents(&self, func: &Callee, args: &[Operand]) -> Vec<TokenStream> {
        args.iter()
            .enumerate()
            .map(|(position, arg)| self.call_tangent(func, position, arg))
            .collect()
    }

    /// The tangent entry of argument `position` of another annotated function's
    /// `jvp_call`: the argument's tangent, an array's tangent shadow (read as a slice), or
    /// `NoTangent`. An argument the call borrows has its tangent borrowed too
    /// (`generated::TangentArg`, `TangentStruct` take `&T`): a struct the caller holds
    /// whole need not be `Copy`, and its tangent is read again after the call. The call
    /// borrows an argument written `&s` (`norm(&s)`), and a method's receiver, which
    /// method syntax borrows (`s.energy(k)`, the callee's `self: &Self`). The one rule for
    /// every call form (`Op::Call`, `Stmt::CallParts`, `Stmt::CallWrites`).
    pub(super) fn call_tangent(
        &self,
        func: &Callee,
        position: usize,
        arg: &Operand,
    ) -> TokenStream {
        let receiver = position == 0 && matches!(func, Callee::Method(_));
        match arg.binding() {
            Some(b) if self.body.bindings[b].array => {
                let tangent = self.tangent(b);
                quote!(&#tangent)
            }
            // (a plain helper's tangents are the numbers its dual numbers start from; a
            // struct parameter passed on whole has a `&S` tangent already)
            Some(b)
                if !self.tensor()
                    && !self.body.bindings[b].whole
                    && !matches!(func, Callee::Plain(_))
                    && (receiver
                        || matches!(crate::syntax::strip_parens(arg.fwd()),
                            syn::Expr::Reference(reference) if reference.mutability.is_none())) =>
            {
                let tangent = self.tangent(b);
                quote!(&#tangent)
            }
            Some(b) => self.tangent_value(b),
            None => quote!(generated::NoTangent),
        }
    }

    pub(super) fn tangent(&self, binding: usize) -> &syn::Ident {
        &self.body.bindings[binding].tangent
    }

    /// A binding's tangent read by value: itself (a number), or in tensor mode a clone
    /// (the tangent stays usable for later reads).
    fn tangent_value(&self, binding: usize) -> TokenStream {
        let tangent = self.tangent(binding);
        if self.tensor() {
            quote!(::core::clone::Clone::clone(&#tangent))
        } else {
            quote!(#tangent)
        }
    }

    fn tangent_block(&self, block: &Block) -> TokenStream {
        block
            .stmts
            .iter()
            .map(|stmt| self.tangent_stmt(stmt))
            .collect()
    }

    fn tangent_stmt(&self, stmt: &Stmt) -> TokenStream {
        match stmt {
            Stmt::Plain(tokens) => tokens.clone(),
            Stmt::Swap { a, b, code } => {
                let (a, b) = (self.tangent(*a), self.tangent(*b));
                quote!(#code ::core::mem::swap(&mut #a, &mut #b);)
            }
            Stmt::CallWrites {
                id,
                func,
                args,
                written,
                result,
            } => self.tangent_call_writes(*id, func, args, written, result),
            Stmt::Declare { binding, mutable } => {
                let (name, tangent) = (self.name(*binding), self.tangent(*binding));
                let mutability = mutable.then(|| quote!(mut));
                if self.body.bindings[*binding].active {
                    quote!(let #mutability #name; let #mutability #tangent;)
                } else {
                    quote!(let #mutability #name;)
                }
            }
            Stmt::CallParts {
                id,
                func,
                args,
                parts,
                fields,
            } => {
                let value = mixed(&format!("value{id}"));
                let dot = mixed(&format!("tan_value{id}"));
                let tangents = self.call_tangents(func, args);
                let call = func.jvp(args, tangents);
                let call = match fields {
                    Some(fields) => crate::results::parts_jvp(&call, fields),
                    None => call,
                };
                let names = parts.iter().map(|&b| self.name(b));
                let part_tangents = parts.iter().map(|&b| self.tangent(b));
                let index: Vec<syn::Index> = (0..parts.len()).map(syn::Index::from).collect();
                quote! {
                    let (#value, #dot) = #call;
                    #(let #names = #value.#index;)*
                    #(let #part_tangents = #dot.#index;)*
                }
            }
            Stmt::Jump { kind, label, .. } => match kind {
                JumpKind::Break => quote!(break #label;),
                JumpKind::Continue => quote!(continue #label;),
                JumpKind::Return => {
                    let label = return_label();
                    quote!(break #label;)
                }
            },
            Stmt::Def { id, target, op } => self.tangent_def(*id, target, op),
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                ..
            } => {
                let (then_code, else_code) = (
                    self.tangent_block(then_branch),
                    self.tangent_block(else_branch),
                );
                quote!(if #cond { #then_code } else { #else_code })
            }
            Stmt::Match {
                scrutinee, arms, ..
            } => {
                let arms = arms.iter().map(|arm| {
                    let pat = &arm.pat;
                    let guard = arm.guard.as_ref().map(|guard| quote!(if #guard));
                    let code = self.tangent_block(&arm.body);
                    quote!(#pat #guard => { #code })
                });
                quote!(match #scrutinee { #(#arms)* })
            }
            Stmt::Scope(block) => {
                let code = self.tangent_block(block);
                quote!({ #code })
            }
            Stmt::Loop {
                label, head, body, ..
            } => {
                let code = self.tangent_block(body);
                let label = label.as_ref().map(|label| quote!(#label:));
                match head {
                    LoopHead::For { pat, iter } => quote!(#label for #pat in #iter { #code }),
                    LoopHead::While { cond } => quote!(#label while #cond { #code }),
                    LoopHead::Loop => quote!(#label loop { #code }),
                }
            }
        }
    }

    /// `let [mut] tan_x[: ty] =` or `tan_x =`, as the value's own target.
    fn tangent_prefix(&self, target: &Target, id: usize) -> TokenStream {
        match target {
            Target::Element { .. } => {
                let tangent = Self::tangent_stored(id);
                quote!(let #tangent =)
            }
            Target::Let {
                binding,
                mutable,
                ty,
            } => {
                let tangent = self.tangent(*binding);
                let mutability = mutable.then(|| quote!(mut));
                // a reference's tangent is its referent's (`let u: &f64 = &x[2];`, whose
                // tangent is a number): the type spelled for the value is not the
                // tangent's, which is inferred, as for `let u = &x[2];`
                let ty = ty
                    .as_ref()
                    .filter(|ty| !matches!(ty, syn::Type::Reference(_)));
                let ty = ty.map(|ty| {
                    if self.tensor() {
                        quote!(: ::core::option::Option<#ty>)
                    } else {
                        quote!(: #ty)
                    }
                });
                quote!(let #mutability #tangent #ty =)
            }
            Target::Assign { binding } => {
                let tangent = self.tangent(*binding);
                quote!(#tangent =)
            }
        }
    }

    /// An operand's value as a rule takes it, `&V`: a literal as written (its type comes
    /// from the rule's other arguments), anything else by `generated::own` (a parameter
    /// may be an `&f64`). In tensor mode a constant is lifted to a tensor, as the
    /// adjoint lifts it.
    fn rule_value(&self, operand: &Operand) -> TokenStream {
        let fwd = operand.fwd();
        if self.tensor() && operand.binding().is_none() {
            // A literal's type comes from the rule's other arguments; anything else is
            // owned first (a parameter may be a `&Tensor`).
            let fwd = borrow(fwd);
            if is_literal(operand.fwd()) {
                quote!(&generated::lift(#fwd))
            } else {
                quote!(&generated::lift(&generated::own(#fwd)))
            }
        } else if is_literal(fwd) {
            quote!(&#fwd)
        } else {
            let fwd = borrow(fwd);
            quote!(&generated::own(#fwd))
        }
    }

    /// One operation and its tangent. A rule reads the op's inputs, or for rules that take
    /// the output (`exp`'s) the output: so the tangent is computed before the value, or
    /// just after it; either way from the operands' tangents before the op assigns any
    /// (`y = y * x` reads the old `y` and `tan_y`).
    fn tangent_stored(id: usize) -> syn::Ident {
        mixed(&format!("tan_stored{id}"))
    }

    /// [`tangent_def_value`](Self::tangent_def_value), then for an element write the
    /// write itself and its tangent's.
    fn tangent_def(&self, id: usize, target: &Target, op: &Op) -> TokenStream {
        let code = self.tangent_def_value(id, target, op);
        let suffix = self.target_suffix(target, id);
        let tangent_suffix = match target {
            Target::Element {
                binding,
                index,
                push,
                ..
            } if self.body.bindings[*binding].active => {
                let (tangent, stored) = (self.tangent(*binding), Self::tangent_stored(id));
                if *push {
                    quote!(#tangent.push_at(#index, #stored);)
                } else {
                    quote!(#tangent.set(#index, #stored);)
                }
            }
            _ => quote!(),
        };
        quote!(#code #suffix #tangent_suffix)
    }

    fn tangent_def_value(&self, id: usize, target: &Target, op: &Op) -> TokenStream {
        let prefix = self.target_prefix(target, id);
        let tangent_prefix = self.tangent_prefix(target, id);
        let binding = Self::target_binding(target);
        let name = &self.value_name(target, id);
        if !self.body.bindings[binding].active {
            // A constant (computed by code that may jump): no tangent.
            let expr = self.op_expr(op);
            return quote!(#prefix #expr;);
        }
        if self.body.bindings[binding].array && !matches!(target, Target::Element { .. }) {
            // A new array of constants: its tangent is zero, a shadow that grows as needed.
            let expr = self.op_expr(op);
            let tangent = self.tangent(binding);
            return match target {
                Target::Let { .. } if self.body.bindings[binding].ragged => quote! {
                    #prefix #expr;
                    let mut #tangent = generated::RowShadow::growable();
                },
                Target::Let { .. } => {
                    // typed by the array: where every rule its values meet is generic,
                    // nothing else fixes the element type (rustc's E0283/E0284)
                    let array = self.name(binding);
                    quote! {
                        #prefix #expr;
                        let mut #tangent = generated::Shadow::growable_like(&#array);
                    }
                }
                _ => quote!(#prefix #expr; #tangent.clear();),
            };
        }
        // The tangent of a value computed from constants alone.
        let zero = if self.tensor() {
            quote!(#tangent_prefix generated::no_tangent(&#name);)
        } else {
            quote!(#tangent_prefix generated::zero_like(&#name);)
        };
        // A rule applied to a tangent: in tensor mode to the tangent if there is one.
        let apply = |tangent: &syn::Ident, rule: &dyn Fn(TokenStream) -> TokenStream| {
            if self.tensor() {
                let t = mixed("t");
                let call = rule(quote!(#t));
                quote!(#tangent.as_ref().map(|#t| #call))
            } else {
                rule(quote!(&#tangent))
            }
        };
        // An operand's tangent by value (moved into a result), or by name (borrowed by a
        // rule).
        let tangent_of = |operand: &Operand| operand.binding().map(|b| self.tangent_value(b));
        let tangent_name = |operand: &Operand| operand.binding().map(|b| self.tangent(b));
        match op {
            Op::Copy { value, clone } => {
                let expr = self.op_expr(op);
                match tangent_of(value) {
                    // `let c = s.clone();` of a struct held whole: the tangent cloned as
                    // the value is (a struct need not be `Copy`)
                    Some(tangent) if *clone && !self.tensor() => {
                        quote!(#prefix #expr; #tangent_prefix ::core::clone::Clone::clone(&#tangent);)
                    }
                    Some(tangent) => quote!(#prefix #expr; #tangent_prefix #tangent;),
                    None => quote!(#prefix #expr; #zero),
                }
            }
            Op::Neg(x) => {
                let expr = self.op_expr(op);
                match tangent_name(x) {
                    Some(tangent) => {
                        // `-x` is `0 - x`: the rule of `sub`'s right operand.
                        let rule = format_ident!("{}", vocabulary::binary("sub").rules[1]);
                        let negated = apply(tangent, &|t| quote!(vjp::#rule(#t)));
                        quote!(#tangent_prefix #negated; #prefix #expr;)
                    }
                    None => quote!(#prefix #expr; #zero),
                }
            }
            Op::Cast { x, ty } => {
                let expr = self.op_expr(op);
                match tangent_of(x) {
                    // d(x as U) = dx as U
                    Some(tangent) => {
                        let cast = self.cast_to(quote!(#tangent), ty);
                        quote!(#tangent_prefix #cast; #prefix #expr;)
                    }
                    None => quote!(#prefix #expr; #zero),
                }
            }
            Op::Unary {
                method,
                saves,
                x,
                args,
            } => {
                let mut code = TokenStream::new();
                // Constant arguments computed once, for the op and its rule.
                let mut call_args = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    if is_literal(arg) {
                        call_args.push(quote!(#arg));
                    } else {
                        let local = mixed(&format!("arg{id}_{k}"));
                        code.extend(quote!(let #local = #arg;));
                        call_args.push(quote!(#local));
                    }
                }
                let row =
                    vocabulary::elementwise(&method.to_string()).expect("lowered from the table");
                let (rule, params) = (format_ident!("{}", row.rule), row.params);
                // A real constant is kept by the runtime as an `f64`: convert it for the rule.
                let rule_args: Vec<TokenStream> = call_args
                    .iter()
                    .zip(params)
                    .map(|(arg, param)| {
                        if vocabulary::is_real(*param) {
                            quote!(, generated::exponent(#arg))
                        } else {
                            quote!(, #arg)
                        }
                    })
                    .collect();
                let expr = self.unary_expr(method, x, call_args);
                let Some(tangent) = tangent_name(x) else {
                    code.extend(quote!(#prefix #expr; #zero));
                    return code;
                };
                match saves {
                    Saves::Input => {
                        let saved = self.rule_value(x);
                        let dot =
                            apply(tangent, &|t| quote!(vjp::#rule(#saved, #t #(#rule_args)*)));
                        code.extend(quote! {
                            #tangent_prefix #dot;
                            #prefix #expr;
                        });
                    }
                    Saves::Output => {
                        let dot = apply(
                            tangent,
                            &|t| quote!(vjp::#rule(&generated::own(&#name), #t #(#rule_args)*)),
                        );
                        code.extend(quote! {
                            #prefix #expr;
                            #tangent_prefix #dot;
                        })
                    }
                }
                code
            }
            Op::Binary { kind, lhs, rhs } => {
                let expr = self.op_expr(op);
                let row = vocabulary::binary(kind.row_name());
                let values = [self.rule_value(lhs), self.rule_value(rhs)];
                let terms: Vec<TokenStream> = [lhs, rhs]
                    .into_iter()
                    .zip(row.rules)
                    .filter_map(|(operand, rule)| {
                        if rule == vocabulary::IDENTITY_RULE {
                            return tangent_of(operand);
                        }
                        let tangent = tangent_name(operand)?;
                        let reads = vocabulary::rule_reads(rule);
                        let args: Vec<&TokenStream> = (0..2)
                            .filter(|&side| reads[side])
                            .map(|side| &values[side])
                            .collect();
                        let rule = format_ident!("{rule}");
                        Some(apply(tangent, &|t| quote!(vjp::#rule(#(#args,)* #t))))
                    })
                    .collect();
                if terms.is_empty() {
                    return quote!(#prefix #expr; #zero);
                }
                if self.tensor() {
                    // The terms, from the operands before the op assigns any; then
                    // broadcast to the result's shape (see the module's docs).
                    let sum = mixed(&format!("tan_sum{id}"));
                    let mut terms = terms.into_iter();
                    let first = terms.next().expect("not empty");
                    let total = terms.fold(
                        first,
                        |acc, term| quote!(generated::sum_tangents(#acc, #term)),
                    );
                    return quote! {
                        let #sum = #total;
                        #prefix #expr;
                        #tangent_prefix generated::broadcast_tangent(#sum, &#name);
                    };
                }
                quote! {
                    #tangent_prefix #(#terms)+*;
                    #prefix #expr;
                }
            }
            Op::Call { func, args } => {
                let value = mixed(&format!("value{id}"));
                let dot = mixed(&format!("tan_value{id}"));
                let tangents = self.call_tangents(func, args);
                let call = func.jvp(args, tangents);
                quote! {
                    let (#value, #dot) = #call;
                    #prefix #value;
                    #tangent_prefix #dot;
                }
            }
            Op::Trace { expr, inputs } => {
                // Under an accumulator of its own (tensor mode): the runtime's JVP rules.
                let value = mixed(&format!("value{id}"));
                let dot = mixed(&format!("tan_value{id}"));
                let values = inputs.iter().map(|(_, fwd)| {
                    let fwd = borrow(fwd);
                    quote!(generated::own(#fwd))
                });
                let tangents = inputs.iter().map(|(input, _)| self.tangent_value(*input));
                quote! {
                    let (#value, #dot) = generated::trace_jvp((#(#values,)*), (#(#tangents,)*), || #expr);
                    #prefix #value;
                    #tangent_prefix #dot;
                }
            }
            Op::Load { array, index, .. } => {
                let expr = self.op_expr(op);
                let tangent = self.tangent(*array);
                quote!(#prefix #expr; #tangent_prefix #tangent.get(#index);)
            }
        }
    }
}
