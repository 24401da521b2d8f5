//! Generation of `fn f` itself in tensor mode: it takes the signature model, the 0-d plan
//! and whether the adjoint is batch-safe, and gives the function that runs the original
//! body when nothing records (or no input is watched), and otherwise runs the generated
//! forward with recording suspended and pushes one node whose rule is the generated adjoint.
//! When the body has a 0-d plan it first tries the same on plain numbers. When the body
//! may read differentiable values that are no parameter of its own kind
//! ([`reach`](crate::analyse::reach)), it runs the body as written instead, op by op.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ItemFn};

use super::paths;
use crate::analyse::zero_d::Plan;
use crate::model::sig::{Kind, Param, Signature};
use crate::syntax::mixed;

/// The wrapper: `#[attrs] fn f(..) { .. }` with the user's signature.
pub fn wrapper_fn(
    item: &ItemFn,
    sig: &Signature,
    plan: Option<&Plan>,
    batch_safe: bool,
    op_by_op: bool,
) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        sig: fn_sig,
        ..
    } = item;
    let wrapper = Wrapper {
        sig,
        name: &fn_sig.ident,
        batch_safe,
        locals: Locals::new(),
        args: Arguments::of(sig),
        generated: paths::generated(),
    };
    let block = if op_by_op {
        // The body reads tensors or variables no input of a fused node would be (see
        // `analyse::reach`): run it as written, each op recorded on the caller's tapes.
        let (name, names) = (&fn_sig.ident, &wrapper.args.names);
        quote!({ #name::primal(#(#names),*) })
    } else {
        wrapper.block(plan.is_some())
    };
    // The body runs in `primal` or the generated code, never here: the parameters need
    // no `mut` of their own.
    let mut fn_sig = fn_sig.clone();
    for input in &mut fn_sig.inputs {
        if let syn::FnArg::Typed(typed) = input
            && let syn::Pat::Ident(pat) = &mut *typed.pat
        {
            pat.mutability = None;
        }
    }
    quote! {
        #(#attrs)*
        #vis #fn_sig #block
    }
}

/// The wrapper's own locals (hygienic: they cannot clash with the user's parameters).
struct Locals {
    value: Ident,
    inputs: Ident,
    pullback: Ident,
    grads: Ident,
    rule: Ident,
    cot: Ident,
    borrowed: Ident,
    g: Ident,
    tangents: Ident,
}

impl Locals {
    fn new() -> Self {
        Locals {
            value: mixed("value"),
            inputs: mixed("inputs"),
            pullback: mixed("pullback"),
            grads: mixed("grads"),
            rule: mixed("rule"),
            cot: mixed("cot"),
            borrowed: mixed("borrowed"),
            g: mixed("g"),
            tangents: mixed("tangents"),
        }
    }
}

/// What the wrapper does with each parameter, one list per use.
#[derive(Default)]
struct Arguments {
    /// The parameters, as the primal is called.
    names: Vec<Ident>,
    /// `let read_w = w.value();` for each variable.
    reads: TokenStream,
    /// The node's inputs, as `AnyTensor`s.
    inputs: Vec<TokenStream>,
    /// The tangent arguments of `f::jvp_partial`, one per input, read from the
    /// accumulator's tangents (`None` for an input it has none for).
    jvp_tangents: Vec<TokenStream>,
    /// The arguments of `f::vjp`.
    vjp_args: Vec<TokenStream>,
    /// Copies the rule keeps, to recompute the forward under an outer tape.
    keeps: TokenStream,
    /// The arguments of `f::vjp` from those copies.
    replay_args: Vec<TokenStream>,
    /// The pullback's cotangents as the node's (`AnyTensor`).
    grads: Vec<TokenStream>,
    /// The 0-d path: each tensor input's number and the tensor it is read from.
    numbers: Vec<(Ident, TokenStream)>,
    /// The arguments of `f::vjp_scalar` and `f::primal_scalar`.
    zero_d_args: Vec<TokenStream>,
    /// `f::vjp_scalar`'s cotangents as 0-d tensors.
    zero_d_grads: Vec<TokenStream>,
}

impl Arguments {
    fn of(sig: &Signature) -> Self {
        let locals = Locals::new();
        let mut args = Arguments::default();
        for (index, param) in sig.params.iter().enumerate() {
            args.add(param, index, &locals);
        }
        args
    }

    fn add(&mut self, param: &Param, index: usize, locals: &Locals) {
        let Locals {
            grads,
            borrowed,
            tangents,
            ..
        } = locals;
        let input = self.inputs.len();
        let generated = paths::generated();
        let any = {
            let private = paths::private();
            quote!(#private::AnyTensor)
        };
        let ident = &param.ident;
        self.names.push(ident.clone());
        let kept = mixed(&format!("kept_{ident}"));
        let number = mixed(&format!("number_{ident}"));
        let read = mixed(&format!("read_{ident}"));
        let index = syn::Index::from(index);
        let differentiable = matches!(param.kind, Kind::Tensor { .. } | Kind::Variable);
        match param.kind {
            Kind::Tensor { by_ref } => {
                let borrowed = if by_ref {
                    quote!(#ident)
                } else {
                    quote!(&#ident)
                };
                self.numbers.push((number.clone(), borrowed.clone()));
                self.inputs
                    .push(quote!(#any::from(::core::clone::Clone::clone(#borrowed))));
                self.jvp_tangents.push(quote!(#tangents.get(#input)));
                self.keeps
                    .extend(quote!(let #kept = ::core::clone::Clone::clone(#borrowed);));
                if by_ref {
                    self.vjp_args.push(quote!(#ident));
                    self.replay_args.push(quote!(&#kept));
                } else {
                    self.vjp_args
                        .push(quote!(::core::clone::Clone::clone(&#ident)));
                    self.replay_args
                        .push(quote!(::core::clone::Clone::clone(&#kept)));
                }
                self.grads.push(quote!(#grads.#index.map(#any::from)));
            }
            Kind::Variable => {
                self.numbers.push((number.clone(), quote!(&#read)));
                self.reads.extend(quote!(let #read = #ident.value();));
                self.inputs
                    .push(quote!(#any::from(::core::clone::Clone::clone(&#read))));
                self.jvp_tangents.push(quote!(#tangents.get(#input)));
                self.keeps
                    .extend(quote!(let #kept = ::core::clone::Clone::clone(&#read);));
                self.vjp_args.push(quote!(&#read));
                self.replay_args.push(quote!(&#kept));
                self.grads.push(quote!(#grads.#index.map(#any::from)));
            }
            Kind::Float { by_ref: true } | Kind::Constant
                if matches!(param.ty, syn::Type::Reference(_)) =>
            {
                let ty = &param.ty;
                self.keeps
                    .extend(quote!(let #kept = ::std::borrow::ToOwned::to_owned(#ident);));
                self.vjp_args.push(quote!(#ident));
                self.replay_args.push(quote! {{
                    let #borrowed: #ty = ::std::borrow::Borrow::borrow(&#kept);
                    #borrowed
                }});
            }
            _ => {
                self.keeps
                    .extend(quote!(let #kept = ::core::clone::Clone::clone(&#ident);));
                self.vjp_args
                    .push(quote!(::core::clone::Clone::clone(&#ident)));
                self.replay_args
                    .push(quote!(::core::clone::Clone::clone(&#kept)));
            }
        }
        if differentiable {
            self.zero_d_args.push(quote!(#number));
            self.zero_d_grads
                .push(quote!(#grads.#index.map(#generated::scalar_cotangent)));
        } else {
            self.zero_d_args
                .push(self.vjp_args.last().expect("pushed above").clone());
        }
    }
}

struct Wrapper<'a> {
    sig: &'a Signature,
    name: &'a Ident,
    batch_safe: bool,
    locals: Locals,
    args: Arguments,
    generated: TokenStream,
}

impl Wrapper<'_> {
    /// The function's body: plain when nothing records, else one node (tried on numbers
    /// first when `zero_d`).
    fn block(&self, zero_d: bool) -> TokenStream {
        let Wrapper {
            name,
            generated,
            args,
            ..
        } = self;
        let Locals {
            value,
            inputs,
            pullback,
            tangents,
            ..
        } = &self.locals;
        let Arguments {
            names,
            reads,
            inputs: input_values,
            vjp_args,
            jvp_tangents,
            keeps,
            ..
        } = args;
        let tensor_record = self.record(&|cot| self.tensor_rule(cot));
        let (zero_d, zero_d_plain) = zero_d.then(|| self.zero_d_paths()).unzip();
        // With nothing recording, variables are read only for the 0-d check.
        let plain_reads = zero_d_plain.as_ref().map(|_| reads);
        quote! {
            {
                if !#generated::any_recording() {
                    #plain_reads
                    #zero_d_plain
                    return #name::primal(#(#names),*);
                }
                #reads
                let #inputs = [#(#input_values),*];
                if !#generated::any_tracks(&#inputs) {
                    #zero_d_plain
                    return #name::primal(#(#names),*);
                }
                // One forward accumulator is all that records: the value and its tangent
                // in one pass of the tangent code, no node.
                if let ::core::option::Option::Some(#value) = #generated::forward_only(
                    &#inputs,
                    |#tangents: &#generated::FusedTangents<'_>| #name::jvp_partial(#(#vjp_args,)* #(#jvp_tangents),*),
                ) {
                    return #value;
                }
                #zero_d
                let (#value, #pullback) = #generated::without_recording(|| #name::vjp(#(#vjp_args),*));
                #keeps
                #tensor_record
            }
        }
    }

    /// Recomputes the forward from the kept inputs with recorded ops and pulls `cot` back.
    fn replay(&self, cot: &TokenStream) -> TokenStream {
        let Locals {
            pullback, grads, ..
        } = &self.locals;
        let (name, replay_args, node_grads) = (self.name, &self.args.replay_args, &self.args.grads);
        quote! {
            let (_, #pullback) = #name::vjp(#(#replay_args),*);
            let #grads = #pullback(#cot);
            ::std::vec![#(#node_grads),*]
        }
    }

    /// The node's rule on tensors.
    fn tensor_rule(&self, cot: TokenStream) -> TokenStream {
        let Locals {
            pullback, grads, ..
        } = &self.locals;
        let (generated, node_grads) = (&self.generated, &self.args.grads);
        let replay = self.replay(&cot);
        quote! {
            if #generated::any_recording() {
                // An outer tape records this gradient (higher order): recompute the
                // forward from the inputs with recorded ops, so that the adjoint is
                // connected to them there.
                #replay
            } else {
                let #grads = #pullback(#cot);
                ::std::vec![#(#node_grads),*]
            }
        }
    }

    /// Pushes the node (one per result of a tuple, sharing the rule) with the rule
    /// `rule_body` makes of the cotangent.
    fn record(&self, rule_body: &dyn Fn(TokenStream) -> TokenStream) -> TokenStream {
        let Locals {
            value,
            inputs,
            rule,
            cot,
            g,
            tangents,
            ..
        } = &self.locals;
        let generated = &self.generated;
        let op_name = self.name.to_string();
        // A jacobian runs a batch-safe adjoint once for all rows, any other once per row.
        let batch_safe = self.batch_safe;
        // The node's JVP rule (under a forward accumulator): the generated tangent code,
        // from the parameters, which outlive the recording.
        let (name, vjp_args, jvp_tangents) =
            (self.name, &self.args.vjp_args, &self.args.jvp_tangents);
        let jvp_call = quote!(#name::jvp_partial(#(#vjp_args,)* #(#jvp_tangents),*).1);
        if !self.sig.tuple_output {
            let body = rule_body(quote!(#g));
            return quote! {
                #generated::record_fused(
                    #op_name, #value, &#inputs, #batch_safe,
                    move |#g| { #body },
                    &|#tangents: &#generated::FusedTangents<'_>| #jvp_call,
                )
            };
        }
        let n = self.sig.outputs.len();
        let values: Vec<Ident> = (0..n).map(|i| mixed(&format!("value{i}"))).collect();
        let cot_ty = self.sig.outputs.iter().map(|ty| quote!(Option<#ty>));
        let body = rule_body(quote!(#cot));
        let records = values.iter().enumerate().map(|(i, value)| {
            let cot = (0..n).map(|j| {
                if i == j {
                    quote!(Some(#g))
                } else {
                    quote!(None)
                }
            });
            let index = syn::Index::from(i);
            quote! {{
                let #rule = ::std::rc::Rc::clone(&#rule);
                #generated::record_fused(
                    #op_name, #value, &#inputs, #batch_safe,
                    move |#g| #rule((#(#cot),*)),
                    &|#tangents: &#generated::FusedTangents<'_>| (#jvp_call).#index,
                )
            }}
        });
        quote! {
            let (#(#values),*) = #value;
            let #rule = ::std::rc::Rc::new(move |#cot: (#(#cot_ty),*)| { #body });
            (#(#records),*)
        }
    }

    /// The node's rule on the 0-d path: the numeric pullback, or the tensor adjoint
    /// replayed when an outer tape records or the cotangent is not 0-d.
    fn zero_d_rule(&self, cot: TokenStream) -> TokenStream {
        let Locals {
            pullback, grads, ..
        } = &self.locals;
        let (generated, zero_d_grads) = (&self.generated, &self.args.zero_d_grads);
        let number = mixed("number_cot");
        let outputs = self.sig.outputs.len();
        let as_number = if self.sig.tuple_output {
            let parts: Vec<Ident> = (0..outputs)
                .map(|i| mixed(&format!("number_cot{i}")))
                .collect();
            let reads = (0..outputs).map(|i| {
                let index = syn::Index::from(i);
                quote!(#generated::scalar_value_option(&#cot.#index))
            });
            quote! {
                match (#(#reads,)*) {
                    (#(::core::option::Option::Some(#parts),)*) => {
                        ::core::option::Option::Some((#(#parts),*))
                    }
                    _ => ::core::option::Option::None,
                }
            }
        } else {
            quote!(#generated::scalar_value(&#cot))
        };
        let replay = self.replay(&cot);
        quote! {
            match (#generated::any_recording(), #as_number) {
                (false, ::core::option::Option::Some(#number)) => {
                    let #grads = #pullback(#number);
                    ::std::vec![#(#zero_d_grads),*]
                }
                // An outer tape records (higher order), or the cotangent is not 0-d:
                // the tensor adjoint, recomputed with recordable ops.
                _ => { #replay }
            }
        }
    }

    /// The 0-d path's two early returns: recorded (one node whose rule runs on numbers)
    /// and plain (the body on numbers).
    fn zero_d_paths(&self) -> (TokenStream, TokenStream) {
        let Locals {
            value, pullback, ..
        } = &self.locals;
        let (name, generated) = (self.name, &self.generated);
        let Arguments {
            numbers,
            zero_d_args,
            keeps,
            ..
        } = &self.args;
        let private = paths::private();
        let tensors = if self.sig.tuple_output {
            let parts = (0..self.sig.outputs.len()).map(|i| {
                let index = syn::Index::from(i);
                quote!(#private::Tensor::scalar(#value.#index))
            });
            quote!((#(#parts),*))
        } else {
            quote!(#private::Tensor::scalar(#value))
        };
        let record = self.record(&|cot| self.zero_d_rule(cot));
        let (names, tensors_in): (Vec<&Ident>, Vec<&TokenStream>) =
            numbers.iter().map(|(n, t)| (n, t)).unzip();
        let all_0_d = quote! {
            (#(::core::option::Option::Some(#names),)*) = (#(#generated::scalar_value(#tensors_in),)*)
        };
        let recorded = quote! {
            // Every differentiable input is 0-d: run the adjoint on plain numbers.
            if let #all_0_d {
                let (#value, #pullback) = #name::vjp_scalar(#(#zero_d_args),*);
                let #value = #tensors;
                #keeps
                return { #record };
            }
        };
        let plain = quote! {
            if let #all_0_d {
                let #value = #name::primal_scalar(#(#zero_d_args),*);
                return #tensors;
            }
        };
        (recorded, plain)
    }
}
