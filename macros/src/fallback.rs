//! On error: the original function, untouched, plus the errors as `compile_error!`, so that
//! users see the real problem and no follow-on errors about missing items (thiserror's
//! `fallback.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemFn;

/// The original item and the errors.
pub fn expand(item: &ItemFn, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    quote! {
        #item
        #errors
    }
}

/// A stand-in for a rejected function's companion type, so that its own errors are the
/// answer, not also each annotated caller's: a caller's generated code checks that the
/// callee has a companion (`generated::annotated`, "not annotated" otherwise) and calls
/// its items (`vjp`, `jvp_call`, `vjp_now`, `vjp_into`). This one passes the check, and
/// its items take any arguments and return a type holding the function's first error
/// (`[(); compile_error!(..)]`, the same message at the same span: a diagnostic rustc has
/// already emitted for the fallback, and does not emit twice), so nothing a caller
/// computes from them is checked further (no "type annotations needed", which items
/// returning `!` gave, nor mismatches, which a type's `compile_error!`, `()`, gave). Only
/// where a companion type
/// would stand: beside a function that is no method nor an item of an annotated `impl`
/// block (those have companion items in an `impl`, no type).
pub fn rejected(item: &ItemFn, error: &syn::Error) -> TokenStream {
    match error.clone().into_iter().next() {
        Some(first) => stand_in(item, first.into_compile_error()),
        None => TokenStream::new(),
    }
}

/// [`rejected`]'s stand-in, `never` the `compile_error!` its items return (in an array
/// length: an expression's, so the type holds the error, where a type's would be `()`).
fn stand_in(item: &ItemFn, never: TokenStream) -> TokenStream {
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
    // each item's arguments: the call's, then `jvp_call`'s tangents, `vjp_now`'s
    // cotangent, or `vjp_into`'s cotangent and sinks
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
        item("vjp", 0),
        item("jvp_call", 1),
        item("vjp_now", 1),
        item("vjp_into", 2),
    ];
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        // not among the companions rustc lists in another caller's "not annotated"
        #[diagnostic::do_not_recommend]
        impl #generated::Annotated for #name {}
        #[allow(dead_code, clippy::all)]
        impl #name {
            #(#items)*
        }
    }
}

/// The stand-in ([`rejected`]) of the user's function `item` whose twin's expansion
/// failed, from the twin's own stand-in `companion` (its first error; nothing if it has
/// none, a method's).
pub fn rejected_twin(item: &ItemFn, companion: &TokenStream) -> TokenStream {
    match first_compile_error(companion) {
        Some(never) => stand_in(item, never),
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
/// companion holding a `compile_error!`, every other error going into the fallback item.
pub fn is_stand_in(companion: &TokenStream) -> bool {
    companion.clone().into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == "compile_error",
        proc_macro2::TokenTree::Group(group) => is_stand_in(&group.stream()),
        _ => false,
    })
}
