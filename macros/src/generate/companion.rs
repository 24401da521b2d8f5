//! Generation of the companion type `f` beside `fn f`: it takes the generated functions
//! and their printed source, and gives the struct with `f::vjp`, `f::primal`, the 0-d
//! functions, `f::grad` (scalar mode) and `f::GENERATED`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use super::{Tangent, ZeroD};
use crate::model::sig::{Kind, Mode, Param, Signature};
use crate::syntax::mixed;

pub fn companion(
    item: &ItemFn,
    sig: &Signature,
    vjp: &TokenStream,
    zero_d: Option<&ZeroD>,
    tangent: &Tangent,
    grad_into: Option<&TokenStream>,
    source: &str,
) -> TokenStream {
    let vis = &item.vis;
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
    let writes_arrays = sig.params.iter().any(Param::is_output_array);
    let grad = (sig.mode == Mode::Scalar && !sig.tuple_output && !writes_arrays)
        .then(|| grad_fn(item, sig));
    let vjp = (!vjp.is_empty()).then(|| {
        quote! {
            /// The forward value and the pullback (the generated adjoint).
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
            #vjp
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
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #[allow(dead_code, clippy::all)]
        impl #name {
            /// The generated forward and adjoint code, as readable source.
            pub const GENERATED: &'static str = #source;

            /// The original body, run as written.
            #[inline]
            #[allow(unused_mut)]
            pub fn primal #generics (#(#params),*) #output #where_clause #block

            #vjp

            #zero_d

            #grad

            #grad_into

            #tangent
        }
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
    let [value, pullback, grads_name] = ["value", "pullback", "grads"].map(mixed);
    let private = crate::generate::paths::private();
    let differentiable: Vec<(usize, &Param)> = sig
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.differentiable(sig.mode))
        .collect();
    let entries = differentiable.iter().map(|(i, p)| {
        let index = syn::Index::from(*i);
        match p.kind {
            // always computed: `[F; N]` has no `Default` for every `N`
            Kind::Array { .. } => quote!(#grads_name.#index.unwrap_or_else(|| unreachable!("an array's gradient is always computed"))),
            _ => quote!(#grads_name.#index.unwrap_or_default()),
        }
    });
    let elems: Vec<String> = differentiable
        .iter()
        .map(|(_, p)| p.cotangent_type().to_string())
        .collect();
    let uniform = elems.windows(2).all(|w| w[0] == w[1]);
    let (grads_ty, grads_value) = if uniform {
        let ty = differentiable[0].1.cotangent_type();
        let n = differentiable.len();
        (quote!([#ty; #n]), quote!([#(#entries),*]))
    } else {
        let tys = differentiable.iter().map(|(_, p)| p.cotangent_type());
        (quote!((#(#tys,)*)), quote!((#(#entries,)*)))
    };
    quote! {
        /// The value and the gradient (one entry per float parameter, in order), computed
        /// by the generated adjoint with no tape.
        #[inline]
        pub fn grad #generics (#(#params),*) -> (#out, #grads_ty) #where_clause {
            let (#value, #pullback) = Self::vjp(#(#args),*);
            let #grads_name = #pullback(<#out as #private::DType>::ONE);
            (#value, #grads_value)
        }
    }
}
