//! Generation of the companion type `f` beside `fn f`: it takes the generated functions
//! and their printed source, and gives the struct with `f::vjp`, `f::primal`, the 0-d
//! functions, `f::grad` (scalar mode) and `f::GENERATED`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use super::{Tangent, ZeroD};
use crate::model::sig::{Kind, Param, Signature};
use crate::syntax::{method_companion, mixed};

/// The generated functions a companion holds.
pub struct Functions<'a> {
    pub vjp: &'a TokenStream,
    pub zero_d: Option<&'a ZeroD>,
    pub tangent: &'a Tangent,
    /// With array (or whole struct) parameters.
    pub grad_into: Option<&'a TokenStream>,
    /// What a caller calls in joint mode: one float result, no written array.
    pub vjp_now: Option<&'a TokenStream>,
    /// What a caller's adjoint calls for a replayed call: scalar mode, no tuple result.
    pub vjp_into: Option<&'a TokenStream>,
}

pub fn companion(
    item: &ItemFn,
    sig: &Signature,
    functions: Functions<'_>,
    source: &str,
) -> TokenStream {
    let Functions {
        vjp,
        zero_d,
        tangent,
        grad_into,
        vjp_now,
        vjp_into,
    } = functions;
    let vis = &item.vis;
    // The user's lint levels (`#[allow(unused_variables)]`..), for `primal`, the same body:
    // it warns where the function does, and only there.
    let lints = crate::syntax::lint_attrs(&item.attrs);
    let name = &item.sig.ident;
    let fn_sig = &item.sig;
    let block = &item.block;
    let generics = &fn_sig.generics;
    let where_clause = &generics.where_clause;
    let params = fn_sig.inputs.iter();
    let output = &fn_sig.output;
    let doc = format!(
        "What `#[differentiable]` generated for [`{name}`](fn@{name}): `{name}::vjp` runs the \
         forward code, saving what the adjoint needs, and returns the value with the pullback \
         (the adjoint as a closure from the result's cotangent to one entry per parameter: \
         `Option` of a cotangent for a differentiable one, `()` for a constant); `{name}::jvp` (value and \
         directional derivative, forward mode); for plain-float functions `{name}::grad` (value and gradient), and with array parameters \
         `{name}::grad_into` (the gradient into the caller's buffers).\n\n\
         The generated code:\n\n```text\n{source}```"
    );
    // `grad` is built on `vjp_now`, which exists exactly for the functions `grad` serves
    // (scalar mode, one float result, no written array), and for a struct result held
    // whole (`Signature::whole_output`) and a tuple result, whose cotangents no `1` seeds
    let grad =
        (vjp_now.is_some() && !sig.whole_output && !sig.tuple_output).then(|| grad_fn(item, sig));
    let vjp = (!vjp.is_empty()).then(|| {
        // `vjp`, then in scalar mode `vjp_partial` (hidden: what annotated callers call)
        let mut functions = syn::parse2::<syn::File>(vjp.clone())
            .expect("generated functions")
            .items
            .into_iter();
        let public = functions.next();
        quote! {
            /// The forward value and the pullback (the generated adjoint). For a function
            /// writing `&mut [F]` outputs, the pullback also takes each output's cotangent
            /// (a `&mut [F]` of its length, in place, as `grad_into`'s buffer).
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #public
            #(
                /// `vjp` whose pullback takes `Option` of the result's cotangent: `None`
                /// for a value that reaches nothing, whose contribution is skipped rather
                /// than multiplied by a zero (`0 · ∞` is NaN where a partial is infinite).
                /// What an annotated caller's code calls.
                #[doc(hidden)]
                #[inline]
                #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
                #functions
            )*
        }
    });
    let grad_into = grad_into.map(|grad_into| {
        quote! {
            /// The value, with the gradient accumulated (`+=`) into the caller's buffers,
            /// one after all the parameters per float parameter, in order: `&mut [F]` of
            /// the array's length for an array, slice or `Vec` parameter, `&mut F` for a
            /// float. For a `&mut [F]` output the buffer holds the output's cotangent on
            /// entry and the cotangent of the array's values before the call on return
            /// (Enzyme's shadow). No tape; in straight-line code nothing is allocated
            /// (loops keep their saves on stacks).
            ///
            /// # Panics
            ///
            /// If a buffer's length is not its array's.
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #grad_into
        }
    });
    let vjp_now = vjp_now.map(|vjp_now| {
        quote! {
            /// `vjp` with its pullback applied to `g` at once: what an annotated caller's
            /// adjoint calls for a call in straight-line code (joint mode), reading the
            /// arguments in place instead of saving copies for a pullback.
            #[doc(hidden)]
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #vjp_now
        }
    });
    let vjp_into = vjp_into.map(|vjp_into| {
        quote! {
            /// `vjp_now` with each array parameter's cotangent added into the sink after
            /// `g` (the caller's shadow, or `generated::NoSink`): what an annotated caller's
            /// adjoint calls for a replayed call (`generated`'s `replay`), on copies of the
            /// arguments the caller saved.
            #[doc(hidden)]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #vjp_into
        }
    });
    let zero_d = zero_d.map(|ZeroD { vjp, primal }| {
        quote! {
            /// The forward value and the pullback on plain numbers, for calls whose
            /// differentiable inputs are all 0-d tensors (the same code as `vjp`, with each
            /// 0-d tensor as its number).
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #vjp

            /// The body on plain numbers, for calls whose differentiable inputs are all
            /// 0-d tensors when nothing records them.
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #primal
        }
    });
    let tangent = {
        let Tangent { jvp, jvp_call } = tangent;
        quote! {
            /// The value and its directional derivative: one tangent per differentiable
            /// parameter, in order, after all the parameters (a slice for an array
            /// parameter, a buffer the tangent is written into for a `&mut` array output,
            /// a `&Tensor` for a tensor or variable parameter); the tangent has the
            /// result's type. Computed beside the value in one pass (forward mode, no
            /// tape; on plain floats no allocation unless the body builds or writes arrays).
            #[inline]
            #[allow(unused_imports, unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #jvp

            #jvp_call
        }
    };
    let items = quote! {
        /// The generated forward and adjoint code, as readable source.
        pub const GENERATED: &'static str = #source;

        /// The original body, run as written.
        #[inline]
        #(#lints)*
        #[allow(unused_mut)]
        pub fn primal #generics (#(#params),*) #output #where_clause #block

        #vjp

        #zero_d

        #grad

        #grad_into

        #vjp_now

        #vjp_into

        #tangent
    };
    // a method, or an associated function of an annotated `impl` block: no companion type
    // can sit in an `impl` block
    if item.sig.receiver().is_some() || crate::syntax::is_in_impl_block() {
        return method_items(item, items);
    }
    let generated = crate::generate::paths::generated();
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        // what a caller's generated code checks before calling these items (`Callee`)
        impl #generated::Annotated for #name {}
        impl #generated::AnnotatedOnNumbers for #name {}

        #[allow(dead_code, clippy::all)]
        impl #name {
            #items
        }
    }
}

/// A method's companion items: an `impl` block can hold no companion type, so the items
/// are associated functions beside the method, each named after it (`energy_vjp`,
/// `energy_grad`, `ENERGY_GENERATED`), with the method's visibility; the generated code's
/// calls of its own items (`Self::vjp`) are renamed to match. Callers reach them by method
/// syntax on the same receiver ([`Callee::Method`](crate::model::ir::Callee::Method)).
fn method_items(item: &ItemFn, items: TokenStream) -> TokenStream {
    use syn::visit_mut::VisitMut;

    struct Rename<'a> {
        method: &'a syn::Ident,
        names: Vec<String>,
    }
    impl VisitMut for Rename<'_> {
        fn visit_path_mut(&mut self, path: &mut syn::Path) {
            if let [first, last] = path.segments.iter_mut().collect::<Vec<_>>().as_mut_slice()
                && first.ident == "Self"
                && self.names.iter().any(|name| last.ident == name)
            {
                last.ident = method_companion(self.method, &last.ident.to_string());
            }
            syn::visit_mut::visit_path_mut(self, path);
        }
    }

    let method = &item.sig.ident;
    let vis = &item.vis;
    let mut block: syn::ItemImpl = syn::parse_quote!(impl Companion { #items });
    let names: Vec<String> = block
        .items
        .iter()
        .filter_map(|item| match item {
            syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut rename = Rename { method, names };
    for impl_item in &mut block.items {
        rename.visit_impl_item_mut(impl_item);
        match impl_item {
            syn::ImplItem::Fn(f) => {
                f.sig.ident = method_companion(method, &f.sig.ident.to_string());
                f.vis = vis.clone();
            }
            syn::ImplItem::Const(c) => {
                let name = format!("{}_{}", method.to_string().to_uppercase(), c.ident);
                c.ident = syn::Ident::new(&name, method.span());
                c.vis = vis.clone();
                let doc = format!(
                    "What `#[differentiable]` generated for the method [`{method}`](Self::{method}), \
                     as readable source. Beside the method: `{method}_vjp` (the forward value and \
                     the pullback, one entry per parameter, `()` for `self`), `{method}_jvp` (value \
                     and directional derivative), `{method}_grad` for plain-float results, and \
                     `{method}_grad_into` with array parameters."
                );
                c.attrs = vec![syn::parse_quote!(#[doc = #doc])];
            }
            _ => {}
        }
    }
    // `GENERATED` shows the renamed functions (as `Self::GENERATED` shows `vjp`, `jvp`):
    // every generated one but `primal`, `grad` and `jvp_call`.
    let shown = [
        "vjp",
        "vjp_partial",
        "grad_into",
        "vjp_now",
        "vjp_into",
        "jvp",
    ]
    .map(|item| method_companion(method, item));
    let source = block.items.iter().filter_map(|item| match item {
        syn::ImplItem::Fn(f) if shown.contains(&f.sig.ident) => {
            let mut f = f.clone();
            f.attrs.clear();
            f.vis = syn::Visibility::Inherited;
            Some(f)
        }
        _ => None,
    });
    let source = crate::generate::pretty(&quote!(#(#source)*));
    for impl_item in &mut block.items {
        if let syn::ImplItem::Const(c) = impl_item {
            c.expr = syn::parse_quote!(#source);
        }
    }
    let items = block.items;
    quote! {
        #(
            #[allow(dead_code, clippy::all)]
            #items
        )*
    }
}

/// The gradient `grad` returns from the entries of a pullback (`grads`, one per parameter:
/// `Option` of a cotangent for a differentiable one, `()` for a constant), with its type:
/// one entry per differentiable parameter, in order, an array when they are of one type
/// (`[f64; 2]`), a tuple otherwise; a float's `None` (no cotangent reached it) is its zero,
/// a struct's the zero of its shape.
pub(crate) fn gradient_of_entries(
    sig: &Signature,
    grads: &syn::Ident,
) -> (TokenStream, TokenStream) {
    let differentiable: Vec<(usize, &Param)> = sig
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.differentiable(sig.mode))
        .collect();
    let generated = crate::generate::paths::generated();
    let entries = differentiable.iter().map(|(i, p)| {
        let index = syn::Index::from(*i);
        let ident = &p.ident;
        match p.kind {
            // a struct's zero is of its shape
            Kind::Struct => quote!(#generated::whole_or_zero(#grads.#index, #ident)),
            // always computed: `[F; N]` has no `Default` for every `N`
            Kind::Array { .. } => quote!(#grads.#index.unwrap_or_else(|| unreachable!("an array's gradient is always computed"))),
            _ => quote!(#grads.#index.unwrap_or_default()),
        }
    });
    let elems: Vec<String> = differentiable
        .iter()
        .map(|(_, p)| p.cotangent_type().to_string())
        .collect();
    let uniform = elems.windows(2).all(|w| w[0] == w[1]);
    if uniform {
        let ty = differentiable[0].1.cotangent_type();
        let n = differentiable.len();
        (quote!([#ty; #n]), quote!([#(#entries),*]))
    } else {
        let tys = differentiable.iter().map(|(_, p)| p.cotangent_type());
        (quote!((#(#tys,)*)), quote!((#(#entries,)*)))
    }
}

/// `f::grad(x, y) -> (value, [df/dx, df/dy])` for a plain float function: one forward and
/// one reverse sweep, no tape, no allocation.
fn grad_fn(item: &ItemFn, sig: &Signature) -> TokenStream {
    let fn_sig = &item.sig;
    let generics = &fn_sig.generics;
    let where_clause = &generics.where_clause;
    // As declared, without `mut`: `grad` only passes them on.
    let params = sig.params.iter().map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        quote!(#ident: #ty)
    });
    let args = sig.params.iter().map(|p| &p.ident);
    let out = &sig.outputs[0];
    let [value, grads_name] = ["value", "grads"].map(mixed);
    let private = crate::generate::paths::private();
    let (grads_ty, grads_value) = gradient_of_entries(sig, &grads_name);
    quote! {
        /// The value and the gradient (one entry per float parameter, in order), computed
        /// by the generated adjoint with no tape.
        #[inline]
        pub fn grad #generics (#(#params),*) -> (#out, #grads_ty) #where_clause {
            // forward and adjoint in one body: what `grad_into` recomputes is not saved,
            // and calls in straight-line code are joint
            let (#value, #grads_name) = Self::vjp_now(#(#args,)* <#out as #private::DType>::ONE);
            (#value, #grads_value)
        }
    }
}
