//! On error: the original function, untouched, plus the errors as `compile_error!`, so that
//! users see the real problem and no follow-on errors about missing items (thiserror's
//! `fallback.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemFn;

use crate::model::sig::{Mode, Signature};
use crate::syntax::method_companion;

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
/// mismatches, which a type's `compile_error!`, `()`, gave). A method's, or an associated
/// function's of an annotated `impl` block, are the same items as `impl` items named after
/// it (`energy_grad`, `ENERGY_GENERATED`, with its receiver), where its companion items
/// would stand ([`method_stand_in`]). `sig` is the signature model as the pipeline held it
/// (`constant(..)` applied), if it got that far: it counts the differentiable parameters,
/// whose tangents and gradient buffers `jvp` and `grad_into` take after the arguments;
/// without it they are counted from the item, less the parameters `constant` names (the
/// attribute's `constant(..)`, which a pass before the pipeline has not applied).
pub fn rejected(
    item: &ItemFn,
    error: &syn::Error,
    sig: Option<&Signature>,
    constant: &[syn::Ident],
) -> TokenStream {
    match error.clone().into_iter().next() {
        Some(first) => stand_in(item, first.into_compile_error(), sig, constant),
        None => TokenStream::new(),
    }
}

/// The start of a pass expanding a function through a hidden twin (`params`, `results`,
/// `option_results`): what the pass's `read` finds of the item, with the parameters the
/// attribute holds constant; or, where `read` recorded errors, the expansion it ends with
/// (the user's item with every error, and the rejected function's stand-in).
pub fn read_for_twin<M>(
    args: &TokenStream,
    item: &ItemFn,
    read: impl FnOnce(&crate::ctxt::Ctxt, &ItemFn) -> Option<M>,
) -> Result<(M, Vec<syn::Ident>), (TokenStream, TokenStream)> {
    let cx = crate::ctxt::Ctxt::default();
    // the parameters held constant, which a stand-in's items take no tangent for
    let constant = constant_names(args);
    let model = read(&cx, item);
    if let Err(error) = cx.check() {
        let rejected = rejected(item, &error, None, &constant);
        let user_item = crate::params::stripped(item);
        return Err((expand(&user_item, error), rejected));
    }
    Ok((model.expect("no error: a model"), constant))
}

/// The end of a pass expanding a function through a hidden twin (`params`, `results`,
/// `option_results`): the user's item as written, and the hidden items beside it (the
/// twin, its companion, the user's function's companion built on the twin's), after
/// `before` (a declaration the twin names).
pub fn with_twin(
    user_item: &ItemFn,
    before: Option<&TokenStream>,
    [twin_fn, twin_companion, companion]: [TokenStream; 3],
) -> (TokenStream, TokenStream) {
    (
        quote!(#user_item),
        quote! {
            #before
            #[doc(hidden)]
            #[allow(dead_code, non_snake_case, clippy::all)]
            #twin_fn
            #twin_companion
            #companion
        },
    )
}

/// The parameters the attribute's arguments `args` hold constant (`constant(..)`), for
/// [`rejected`] where the pipeline did not read them (a pass before it failed, or its twin):
/// an argument's own error is the pipeline's to report, so none is kept here.
pub fn constant_names(args: &TokenStream) -> Vec<syn::Ident> {
    crate::args::parse(&crate::ctxt::Ctxt::default(), args.clone()).constant
}

/// The number of `item`'s differentiable parameters and whether it runs in tensor mode:
/// by its signature model `sig`, else by the model of its signature as written (a
/// parameter marked `#[differentiable]`, a struct's, counted as one), less the parameters
/// held constant (`constant`); `None` where neither model exists.
fn differentiable_params(
    item: &ItemFn,
    sig: Option<&Signature>,
    constant: &[syn::Ident],
) -> (usize, Option<Mode>) {
    let count = |sig: &Signature| {
        sig.params
            .iter()
            .filter(|p| p.differentiable(sig.mode) && !constant.contains(&p.ident))
            .count()
    };
    if let Some(sig) = sig {
        return (count(sig), Some(sig.mode));
    }
    let marked = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|attr| attr.path().is_ident("differentiable"))
    };
    let mut plain = crate::params::stripped(item);
    let mut marks = 0;
    for (input, original) in plain.sig.inputs.iter_mut().zip(&item.sig.inputs) {
        let (attrs, name) = match original {
            syn::FnArg::Typed(typed) => (
                &typed.attrs,
                match &*typed.pat {
                    syn::Pat::Ident(pat) => Some(pat.ident.clone()),
                    _ => None,
                },
            ),
            syn::FnArg::Receiver(receiver) => {
                (&receiver.attrs, Some(syn::Ident::from(receiver.self_token)))
            }
        };
        if marked(attrs) {
            if !name.is_some_and(|name| constant.contains(&name)) {
                marks += 1;
            }
            // counted here, not again by its type
            if let syn::FnArg::Typed(typed) = input {
                *typed.ty = syn::parse_quote!(());
            }
        }
    }
    match crate::model::sig::parse(&plain) {
        Some(sig) => (marks + count(&sig), Some(sig.mode)),
        None => (marks, None),
    }
}

/// The prefix of the item only [`rejected`]'s stand-in has ([`is_stand_in`]), a method's
/// followed by its name (one per method of a block).
const STAND_IN_MARK: &str = "__gradtape_stand_in";

/// The stand-in's items (a companion type's: [`rejected`]) with their number of arguments
/// past the call's own: `jvp_call`'s tangents, `vjp_now`'s cotangent, `vjp_into`'s
/// cotangent and sinks, `jvp`'s tangents or `grad_into`'s buffers (one per differentiable
/// parameter).
fn stand_in_items(differentiable: usize) -> [(&'static str, usize); 11] {
    [
        ("primal", 0),
        ("vjp", 0),
        ("vjp_partial", 0),
        ("grad", 0),
        ("grad_into", differentiable),
        ("jvp", differentiable),
        ("vjp_scalar", 0),
        ("primal_scalar", 0),
        ("jvp_call", 1),
        ("vjp_now", 1),
        ("vjp_into", 2),
    ]
}

/// The companions a caller may reach beside a function's own, each with the arguments its
/// items take past [`stand_in_items`]' of the same name: an array result's writer,
/// `__gradtape_write` (`results::writer_items`, `ir::Callee::Writer`), whose items take the
/// written array after the call's own arguments, and an `Option` result's twin,
/// `__gradtape_option` (`option_results`, `ir::Callee::Option`). A rejected function stands
/// in for them too, so that a caller indexing its result or reading its option is not
/// rustc's "no associated item named `__gradtape_write_vjp_partial`" beside the function's
/// own error.
const HIDDEN_COMPANIONS: [(&str, usize); 2] = [
    (crate::array_calls::WRITER, 1),
    (crate::option_results::HIDDEN, 0),
];

/// The items a stand-in has for one hidden companion `prefix` (a [`HIDDEN_COMPANIONS`]
/// row), each with its number of arguments past the call's own: the companion itself
/// (`None`) and its `vjp`, `vjp_partial`, `jvp_call`, `vjp_now` and `vjp_into`.
fn hidden_items(extra: usize) -> [(Option<&'static str>, usize); 6] {
    [
        (None, extra),
        (Some("vjp"), extra),
        (Some("vjp_partial"), extra),
        (Some("jvp_call"), extra + 1),
        (Some("vjp_now"), extra + 1),
        (Some("vjp_into"), extra + 2),
    ]
}

/// [`rejected`]'s stand-in, `never` the `compile_error!` its items return (in an array
/// length: an expression's, so the type holds the error, where a type's would be `()`).
fn stand_in(
    item: &ItemFn,
    never: TokenStream,
    sig: Option<&Signature>,
    constant: &[syn::Ident],
) -> TokenStream {
    let (differentiable, mode) = differentiable_params(item, sig, constant);
    if item.sig.receiver().is_some() || crate::syntax::is_in_impl_block() {
        return method_stand_in(item, never, differentiable, mode);
    }
    // one naming `Self` in an `impl` block the attribute is not on
    // (`validate::associated_function_alone`): no companion items stand there
    if crate::syntax::names_self(quote::ToTokens::to_token_stream(item)) {
        return TokenStream::new();
    }
    let (vis, name) = (&item.vis, &item.sig.ident);
    let generated = crate::generate::paths::generated();
    let arity = item.sig.inputs.len();
    // `writer`, `__gradtape_write_vjp`, .. (a hidden companion's items are its prefix and
    // the item's name)
    let hidden = HIDDEN_COMPANIONS.iter().flat_map(|&(prefix, extra)| {
        hidden_items(extra).map(|(item, extra)| match item {
            None => (format_ident!("{prefix}"), extra),
            Some(item) => (format_ident!("{prefix}_{item}"), extra),
        })
    });
    let named =
        stand_in_items(differentiable).map(|(item, extra)| (format_ident!("{item}"), extra));
    let items = named.into_iter().chain(hidden).map(|(item, extra)| {
        let types: Vec<syn::Ident> = (0..arity + extra).map(|k| format_ident!("A{k}")).collect();
        quote! {
            pub fn #item<#(#types),*>(#(_: #types),*) -> [(); #never] {
                ::core::unreachable!("a rejected function's items are never called")
            }
        }
    });
    let mark = format_ident!("{STAND_IN_MARK}");
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        // not among the companions rustc lists in another caller's "not annotated"
        #[diagnostic::do_not_recommend]
        impl #generated::Annotated for #name {}
        #[diagnostic::do_not_recommend]
        impl #generated::AnnotatedOnNumbers for #name {}
        #[allow(dead_code, non_upper_case_globals, clippy::all)]
        impl #name {
            #(#items)*
            pub const GENERATED: [(); #never] = [];
            const #mark: () = ();
        }
    }
}

/// The stand-in of a rejected method, or associated function of an annotated `impl` block:
/// the items of [`stand_in`]'s companion type as `impl` items named after it
/// (`energy_grad`, `ENERGY_GENERATED`, as `generate::companion`'s `method_items` names the
/// real ones), a method's taking its receiver (by method syntax, `s.energy_grad(x)`, or by
/// path, `Spring::energy_grad(&s, x)`, as annotated callers reach them), with the method's
/// visibility. None for a method in tensor mode, which has no companion items (it runs op
/// by op, and may stand in a trait's `impl` annotated alone, which could hold none), nor
/// where the signature has no model to tell the mode (`mode`).
fn method_stand_in(
    item: &ItemFn,
    never: TokenStream,
    differentiable: usize,
    mode: Option<Mode>,
) -> TokenStream {
    let receiver = item.sig.receiver().map(|receiver| {
        let mut receiver = receiver.clone();
        receiver.attrs.clear();
        // the stand-in never binds it: `mut self` would be an unused `mut`
        receiver.mutability = None;
        receiver
    });
    match mode {
        Some(Mode::Scalar) => {}
        Some(Mode::Tensor) if receiver.is_none() => {}
        _ => return TokenStream::new(),
    }
    let (vis, method) = (&item.vis, &item.sig.ident);
    // the arguments past the receiver
    let arity = item.sig.inputs.len() - usize::from(receiver.is_some());
    let receiver = receiver.map(|receiver| quote!(#receiver,));
    // a method's hidden companions are methods beside it, `__gradtape_write_force` and its
    // items `__gradtape_write_force_vjp`, .. (`lower`'s `array_result_writer`)
    let hidden = HIDDEN_COMPANIONS.iter().flat_map(|&(prefix, extra)| {
        let companion = format_ident!("{prefix}_{method}");
        hidden_items(extra).map(move |(item, extra)| match item {
            None => (companion.clone(), extra),
            Some(item) => (method_companion(&companion, item), extra),
        })
    });
    let named =
        stand_in_items(differentiable).map(|(item, extra)| (method_companion(method, item), extra));
    let items = named.into_iter().chain(hidden).map(|(item, extra)| {
        let types: Vec<syn::Ident> = (0..arity + extra).map(|k| format_ident!("A{k}")).collect();
        quote! {
            #[allow(dead_code, clippy::all)]
            #vis fn #item<#(#types),*>(#receiver #(_: #types),*) -> [(); #never] {
                ::core::unreachable!("a rejected method's items are never called")
            }
        }
    });
    let generated = format_ident!("{}_GENERATED", method.to_string().to_uppercase());
    let mark = format_ident!("{STAND_IN_MARK}_{method}");
    quote! {
        #(#items)*
        #[allow(dead_code, clippy::all)]
        #vis const #generated: [(); #never] = [];
        #[allow(dead_code, non_upper_case_globals, clippy::all)]
        const #mark: () = ();
    }
}

/// The stand-in ([`rejected`]) of the user's function `item` whose twin's expansion
/// failed, from the twin's own stand-in `companion` (its first error; nothing if it has
/// none), with the parameters the attribute holds constant (`constant`).
pub fn rejected_twin(
    item: &ItemFn,
    companion: &TokenStream,
    constant: &[syn::Ident],
) -> TokenStream {
    match first_compile_error(companion) {
        Some(never) => stand_in(item, never, None, constant),
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
        proc_macro2::TokenTree::Ident(ident) => ident.to_string().starts_with(STAND_IN_MARK),
        proc_macro2::TokenTree::Group(group) => is_stand_in(&group.stream()),
        _ => false,
    })
}
