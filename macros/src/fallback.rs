//! On error: the original function, untouched, plus the errors as `compile_error!`, so that
//! users see the real problem and no follow-on errors about missing items (thiserror's
//! `fallback.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemFn;

use crate::model::sig::Signature;

/// The original item and the errors.
pub fn expand(item: &ItemFn, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    quote! {
        #item
        #errors
    }
}

/// A stand-in for a rejected function's companion type, so that its own errors are the
/// answer, not also each annotated caller's nor the user's own calls of its items: a
/// caller's generated code checks that the callee has a companion
/// (`generated::annotated`, "not annotated" otherwise) and calls its items (`vjp`,
/// `vjp_partial`, `jvp_call`, `vjp_now`, `vjp_into`), and users call the others (`grad`, `grad_into`,
/// `jvp`, `primal`, `GENERATED`..). This one passes the check and has every item a
/// companion type may have, each taking as many arguments as the real one would (of any
/// types) and returning a type holding the function's first error (`[(); compile_error!(..)]`,
/// the same message at the same span: a diagnostic rustc has already emitted for the
/// fallback, and does not emit twice), so nothing a caller computes from them is checked
/// further (no "type annotations needed", which items returning `!` gave, nor
/// mismatches, which a type's `compile_error!`, `()`, gave). Only where a companion type
/// would stand: beside a function that is no method nor an item of an annotated `impl`
/// block (those have companion items in an `impl`, no type). `sig` is the signature model
/// as the pipeline held it (`constant(..)` applied), if it got that far: it counts the
/// differentiable parameters, whose tangents and gradient buffers `jvp` and `grad_into`
/// take after the arguments; without it they are counted from the item.
pub fn rejected(item: &ItemFn, error: &syn::Error, sig: Option<&Signature>) -> TokenStream {
    match error.clone().into_iter().next() {
        Some(first) => stand_in(item, first.into_compile_error(), sig),
        None => TokenStream::new(),
    }
}

/// The number of `item`'s differentiable parameters: by its signature model `sig`, else
/// by the model of its signature as written (a parameter marked `#[differentiable]`, a
/// struct's, counted as one).
fn differentiable_params(item: &ItemFn, sig: Option<&Signature>) -> usize {
    let count = |sig: &Signature| {
        sig.params
            .iter()
            .filter(|p| p.differentiable(sig.mode))
            .count()
    };
    if let Some(sig) = sig {
        return count(sig);
    }
    let marked = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|attr| attr.path().is_ident("differentiable"))
    };
    let mut plain = crate::params::stripped(item);
    let mut marks = 0;
    for (input, original) in plain.sig.inputs.iter_mut().zip(&item.sig.inputs) {
        let attrs = match original {
            syn::FnArg::Typed(typed) => &typed.attrs,
            syn::FnArg::Receiver(receiver) => &receiver.attrs,
        };
        if marked(attrs) {
            marks += 1;
            // counted here, not again by its type
            if let syn::FnArg::Typed(typed) = input {
                *typed.ty = syn::parse_quote!(());
            }
        }
    }
    marks + crate::model::sig::parse(&plain).map_or(0, |sig| count(&sig))
}

/// The ident of the item only [`rejected`]'s stand-in has ([`is_stand_in`]).
const STAND_IN_MARK: &str = "__gradtape_stand_in";

/// [`rejected`]'s stand-in, `never` the `compile_error!` its items return (in an array
/// length: an expression's, so the type holds the error, where a type's would be `()`).
fn stand_in(item: &ItemFn, never: TokenStream, sig: Option<&Signature>) -> TokenStream {
    // a method, an item of an annotated block, or one naming `Self` (in an `impl` block
    // the attribute is not on: `validate::associated_function_alone`)
    if item.sig.receiver().is_some()
        || crate::syntax::is_in_impl_block()
        || crate::syntax::names_self(quote::ToTokens::to_token_stream(item))
    {
        return TokenStream::new();
    }
    let (vis, name) = (&item.vis, &item.sig.ident);
    let generated = crate::generate::paths::generated();
    let arity = item.sig.inputs.len();
    let differentiable = differentiable_params(item, sig);
    // each item's arguments: the call's, then `jvp_call`'s tangents, `vjp_now`'s
    // cotangent, `vjp_into`'s cotangent and sinks, `jvp`'s tangents or `grad_into`'s
    // buffers (one per differentiable parameter)
    let item = |item: &str, extra: usize| {
        let item = format_ident!("{item}");
        let types: Vec<syn::Ident> = (0..arity + extra).map(|k| format_ident!("A{k}")).collect();
        quote! {
            pub fn #item<#(#types),*>(#(_: #types),*) -> [(); #never] {
                ::core::unreachable!("a rejected function's items are never called")
            }
        }
    };
    let items = [
        item("primal", 0),
        item("vjp", 0),
        item("vjp_partial", 0),
        item("grad", 0),
        item("grad_into", differentiable),
        item("jvp", differentiable),
        item("vjp_scalar", 0),
        item("primal_scalar", 0),
        item("jvp_call", 1),
        item("vjp_now", 1),
        item("vjp_into", 2),
    ];
    let mark = format_ident!("{STAND_IN_MARK}");
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        // not among the companions rustc lists in another caller's "not annotated"
        #[diagnostic::do_not_recommend]
        impl #generated::Annotated for #name {}
        #[allow(dead_code, non_upper_case_globals, clippy::all)]
        impl #name {
            #(#items)*
            pub const GENERATED: [(); #never] = [];
            const #mark: () = ();
        }
    }
}

/// The stand-in ([`rejected`]) of the user's function `item` whose twin's expansion
/// failed, from the twin's own stand-in `companion` (its first error; nothing if it has
/// none, a method's).
pub fn rejected_twin(item: &ItemFn, companion: &TokenStream) -> TokenStream {
    match first_compile_error(companion) {
        Some(never) => stand_in(item, never, None),
        None => TokenStream::new(),
    }
}

/// The first `::core::compile_error! { .. }` in `tokens`, as `syn::Error` writes it.
fn first_compile_error(tokens: &TokenStream) -> Option<TokenStream> {
    let tokens: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
    for (k, token) in tokens.iter().enumerate() {
        match token {
            // `::core::compile_error ! {..}`: five tokens before the name, two after
            proc_macro2::TokenTree::Ident(ident) if ident == "compile_error" && k >= 5 => {
                return tokens
                    .get(k - 5..k + 3)
                    .map(|call| call.iter().cloned().collect());
            }
            proc_macro2::TokenTree::Group(group) => {
                if let Some(found) = first_compile_error(&group.stream()) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a companion is [`rejected`]'s stand-in (the expansion failed): the only
/// companion holding its marker item, which no other expansion emits (a `compile_error!`
/// may be anywhere: in a user's body that a real companion's `primal` copies).
pub fn is_stand_in(companion: &TokenStream) -> bool {
    companion.clone().into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == STAND_IN_MARK,
        proc_macro2::TokenTree::Group(group) => is_stand_in(&group.stream()),
        _ => false,
    })
}
