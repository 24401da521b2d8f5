//! The tape as the fallback of a tensor body (the design's "differentiate that part by
//! running it on the runtime's tape inside the same node"): a body the fused node cannot
//! transform statically, but which the tape records as written (a local `Vec` of tensors,
//! a closure over them, a tensor method the vocabulary does not know), becomes a plain
//! helper holding the user's body, and the annotated function's body a call of it, which
//! lowering runs on a sub-tape inside the node as it runs any plain helper called with
//! tensors (`generated::trace`; a tuple result's parts from one run of it,
//! `generated::trace_parts`). Correct, slower than the generated adjoint, and visible in
//! `f::GENERATED` (the helper's call under `generated::trace`); `strict` refuses it. A
//! tensor method or associated function has no node (it runs op by op on the caller's
//! tapes): its fallback is its body as written ([`Fallback::AsWritten`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::visit::{self, Visit};
use syn::{FnArg, ItemFn, Pat};

use crate::model::sig::{Kind, Mode, Signature};

/// How a tensor body the generated adjoint cannot transform runs on the tape instead.
pub enum Fallback {
    /// A plain helper holding the user's body (`fn __gradtape_traced_f(..) -> R`, the
    /// user's signature renamed), and the body that calls it, which lowering runs on a
    /// sub-tape inside the node.
    Helper {
        helper: TokenStream,
        call: syn::Block,
    },
    /// A method or an associated function of an annotated `impl` block, whose body runs
    /// as written, op by op on the caller's tapes, as every such tensor function's does
    /// (it has no node of its own: see `expand::parts`), recording what the generated
    /// adjoint cannot transform as it records the rest.
    ///
    /// For a method, a helper taking `self` and run on a sub-tape inside a node would cut
    /// the gradients of the variables `self` may hold (the node would not see them as
    /// inputs), and one taking `self`'s fields would have to know which fields hold
    /// tensors and variables; the method as written is both the sound and the simple
    /// form, and an associated function follows it.
    AsWritten,
}

/// How the function runs on the tape, if it can: a function of tensor mode with one
/// tensor result or a tuple of them (each taken from one run of the helper,
/// `generated::trace_parts`), whose differentiable parameters are tensors (a variable's
/// value is read by the fused node, which a helper would not see), each parameter a plain
/// name, none `impl Trait` (the call names every type parameter), and whose body takes no
/// value out as data. A free function calls a helper ([`Fallback::Helper`]), a method or
/// an associated function of an annotated `impl` runs as written ([`Fallback::AsWritten`]).
pub fn traced(item: &ItemFn, sig: &Signature) -> Option<Fallback> {
    if sig.mode != Mode::Tensor
        || sig.whole_output
        || sig.params.iter().any(|p| p.kind == Kind::Variable)
        || takes_data_out(item)
    {
        return None;
    }
    if item.sig.receiver().is_some() || crate::syntax::is_in_impl_block() {
        return Some(Fallback::AsWritten);
    }
    let mut args = Vec::new();
    for input in &item.sig.inputs {
        let FnArg::Typed(typed) = input else {
            return None;
        };
        let Pat::Ident(name) = &*typed.pat else {
            return None;
        };
        if name.by_ref.is_some()
            || name.subpat.is_some()
            || matches!(&*typed.ty, syn::Type::ImplTrait(_))
        {
            return None;
        }
        args.push(name.ident.clone());
    }
    let name = format_ident!(
        "__gradtape_traced_{}",
        item.sig.ident,
        span = item.sig.ident.span()
    );
    let params = crate::syntax::type_and_const_params(&item.sig.generics);
    let turbofish = (!params.is_empty()).then(|| quote!(::<#(#params),*>));
    let mut helper_sig = item.sig.clone();
    helper_sig.ident = name.clone();
    // the user's lints apply to the user's code, in the helper too
    let lints = crate::syntax::lint_attrs(&item.attrs);
    let block = &item.block;
    let helper = quote! {
        #[doc(hidden)]
        #[allow(dead_code)]
        #(#lints)*
        #helper_sig #block
    };
    let call: syn::Block = if sig.tuple_output {
        // destructured, so that lowering runs the call once and takes each part from
        // that run (`generated::trace_parts`)
        let parts: Vec<syn::Ident> = (0..sig.outputs.len())
            .map(|k| crate::syntax::unspelled_ident(format_ident!("traced_part{k}")))
            .collect();
        syn::parse_quote!({
            let (#(#parts,)*) = #name #turbofish (#(#args),*);
            (#(#parts,)*)
        })
    } else {
        syn::parse_quote!({ #name #turbofish (#(#args),*) })
    };
    Some(Fallback::Helper { helper, call })
}

/// Whether the body turns a value into plain data (`to_vec`, `to_scalar`, .. the
/// vocabulary's escapes; a conversion, `.into()` or `ArrayD::from(t)`, which may be a
/// tensor's into an `ndarray`) other than to decide a branch (an `if`'s or a `while`'s
/// condition): the tape would record the data as a constant, a gradient cut silently, so
/// such a body keeps its errors (the escape's among them, or the error that stopped
/// lowering before it) rather than run on a sub-tape. A conversion that takes no tensor
/// is let through: `from` of a literal, on a float type or a type parameter of the
/// function (`T::from(0.5)`, no tensor converts so), and `Tensor::from` (into a tensor).
fn takes_data_out(item: &ItemFn) -> bool {
    struct Escapes {
        numbers: Vec<String>,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Escapes {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let name = call.method.to_string();
            if crate::vocabulary::cuts_the_tape(&name) || name == "into" || name == "try_into" {
                self.found = true;
            }
            visit::visit_expr_method_call(self, call);
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(path) = &*call.func
                && path.path.segments.len() >= 2
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "from" || last.ident == "try_from")
            {
                let owner = path.path.segments[0].ident.to_string();
                let of_a_literal = call.args.len() == 1
                    && matches!(
                        crate::syntax::strip_parens(&call.args[0]),
                        syn::Expr::Lit(_)
                    );
                if !of_a_literal && owner != "Tensor" && !self.numbers.contains(&owner) {
                    self.found = true;
                }
            }
            visit::visit_expr_call(self, call);
        }
        fn visit_expr_if(&mut self, expr_if: &'ast syn::ExprIf) {
            // the condition decides a branch: a number read there cuts nothing
            self.visit_block(&expr_if.then_branch);
            if let Some((_, otherwise)) = &expr_if.else_branch {
                self.visit_expr(otherwise);
            }
        }
        fn visit_expr_while(&mut self, expr_while: &'ast syn::ExprWhile) {
            self.visit_block(&expr_while.body);
        }
    }
    let mut numbers: Vec<String> = ["f32", "f64"].map(String::from).into();
    numbers.extend(item.sig.generics.type_params().map(|p| p.ident.to_string()));
    let mut escapes = Escapes {
        numbers,
        found: false,
    };
    escapes.visit_block(&item.block);
    escapes.found
}
