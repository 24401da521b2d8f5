//! `Option` results (scalar mode): a function returning `Some(value)` or `None`,
//! `fn root(a: f64, b: f64) -> Option<f64>`, is differentiated as the two numbers it is,
//! through a hidden twin returning them as a tuple, which every later phase already
//! differentiates (a tuple result), as [`results`](crate::results) differentiates a struct
//! result through a twin returning its fields:
//!
//! 1. **Read** ([`read`]): whether the result is `Option<F>`, `F` a float type (`f32`,
//!    `f64` or a float type parameter: [`has_option_result`]), and that each result
//!    position is found (the body's tail, through blocks, `if`/`else` and `match` arms,
//!    and each `return`). Every rejection of the form is here, at the user's tokens: a
//!    method.
//! 2. **Twin** (`__gradtape_result_{name}`): the user's item returning `(F, F)`, `Some(v)`
//!    the tuple `(v, 1)` and `None` the tuple `(0, -1)`: the value (zero where there is
//!    none) and the variant, whose sign says which (`generated::option_parts`, the one
//!    statement of the encoding). Any other option at a result position (a local, another
//!    function's call) is matched into them, and each `e?` is the `let Some(v) = e else {
//!    return None; }` it stands for, `match r { Some(v) => (v, 1), None => (0,
//!    -1) }`, which `options` takes as it takes the user's own matches. The variant is a
//!    constant in every branch: its derivative is zero, and no cotangent is ever given
//!    for it.
//! 3. **Companion**: the user's `primal` (the body as written), `vjp`, `jvp` and `grad`,
//!    each `None` where the function returns `None` (no value, so no derivative to give),
//!    and `GENERATED` (the twin's); and the hidden items an annotated caller calls,
//!    `__gradtape_option` and `__gradtape_option_vjp`, `_vjp_partial`, `_vjp_now`,
//!    `_vjp_into`, `_jvp_call` (the twin's, [`results::hidden_items`](crate::results)).
//! 4. **Callers** (`options`, then `lower`): a caller's option local initialised by a
//!    call, `let r = root(a, b);` read by `match`, `if let`, `unwrap_or`, .. as any option
//!    local is, holds the call's two parts, `let (value, variant) =
//!    root::__gradtape_option(a, b);`, the flag read off the variant's sign
//!    (`generated::is_some_part`): a call of a tuple result (`ir::Callee::Option`). A caller
//!    cannot know the callee's result type: the option's uses say it is one, as indexing
//!    says an array result is one (`array_calls`). A call reading no differentiable value
//!    is a constant option, read through `generated::option_parts`.
//!
//! `fn root` itself is the user's item as written.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, ItemFn, ReturnType, Type};

use crate::ctxt::Ctxt;
use crate::model::sig::{self, Mode};
use crate::syntax::{mixed, strip_parens};

/// The prefix of the user's companion's hidden items a caller reads an `Option` result
/// through (`root::__gradtape_option(a, b)`, `root::__gradtape_option_vjp_partial(..)`).
pub const HIDDEN: &str = "__gradtape_option";

/// Whether the function returns `Option<F>` of a float type `F` (scalar mode): the item
/// this pass expands.
pub fn has_option_result(item: &ItemFn) -> bool {
    payload(item).is_some()
}

/// `F` of the result `Option<F>`, if it is a float type and the function runs in scalar
/// mode.
fn payload(item: &ItemFn) -> Option<Type> {
    let ReturnType::Type(_, ty) = &item.sig.output else {
        return None;
    };
    let payload = crate::options::option_payload(ty)?;
    if !sig::is_float(payload, &sig::float_type_params(item)) {
        return None;
    }
    if sig::parse(item).is_some_and(|sig| sig.mode == Mode::Tensor) {
        return None;
    }
    Some(payload.clone())
}

/// The item and its companion.
pub fn parts(args: TokenStream, item: ItemFn) -> (TokenStream, TokenStream) {
    let (float, constant) = match crate::fallback::read_for_twin(&args, &item, read) {
        Ok(read) => read,
        Err(rejected) => return rejected,
    };
    let user_item = crate::params::stripped(&item);
    let twin = twin(&item, &float);
    let twin_sig = twin.sig.clone();
    // the twin's signature model (the user's, but for the result, which has none)
    let model = sig::parse(&twin);
    let (twin_fn, twin_companion) = crate::expand::parts(args, twin);
    let Some(twin_items) = crate::results::companion_items(&twin_companion, None) else {
        // the twin's expansion failed: its fallback carries the errors, at the user's
        // tokens (the twin is the user's item but for its result), and its stand-in
        // companion (`fallback::rejected`) stands for the user's function's
        let rejected = crate::fallback::rejected_twin(&item, &twin_companion, &constant);
        return (quote!(#user_item), quote!(#twin_fn #rejected));
    };
    let companion = companion(&user_item, &float, &twin_sig, model.as_ref(), &twin_items);
    crate::fallback::with_twin(&user_item, None, [twin_fn, twin_companion, companion])
}

/// Reads the result: its float type; `None` (the error in `cx`) for a method.
fn read(cx: &Ctxt, item: &ItemFn) -> Option<Type> {
    let float = payload(item).expect("has_option_result");
    let ReturnType::Type(_, result) = &item.sig.output else {
        unreachable!("an `Option` result")
    };
    if item.sig.receiver().is_some() || crate::syntax::is_in_impl_block() {
        cx.error_spanned_by(
            result,
            format_args!(
                "a method or associated function returning `{}` is not differentiated yet: \
                 write it as a free function taking the struct (`fn {}(s: &S, ..)`), whose \
                 `Option` result is differentiated, or return the value and test the \
                 condition in the caller",
                sig::type_name(result),
                item.sig.ident
            ),
        );
        return None;
    }
    Some(float)
}

/// `v` of `Some(v)`.
fn some_value(expr: &Expr) -> Option<&Expr> {
    match strip_parens(expr) {
        Expr::Call(call)
            if call.args.len() == 1
                && matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Some")) =>
        {
            Some(&call.args[0])
        }
        _ => None,
    }
}

fn is_none(expr: &Expr) -> bool {
    matches!(strip_parens(expr), Expr::Path(path) if path.path.is_ident("None"))
}

/// Each `e?` of a body, outside closures and nested items (theirs are their own), as the
/// `return None` it is: `{ let Some(v) = e else { return None; }; v }`, a `let .. else`
/// that `options` reads.
struct Tries;

impl syn::visit_mut::VisitMut for Tries {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Try(found) => {
                syn::visit_mut::visit_expr_mut(self, &mut found.expr);
                let (option, span) = (&found.expr, found.question_token.span);
                let value = crate::syntax::fresh_local("tried");
                *expr = syn::parse_quote_spanned!(span=> {
                    let Some(#value) = #option else {
                        return None;
                    };
                    #value
                });
            }
            Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The twin: the user's item (its marks kept, for `params`) returning `(F, F)`, each
/// `Some(v)` the tuple `(v, 1)`, each `None` the tuple `(0, -1)`
/// (`generated::option_parts`' encoding).
fn twin(item: &ItemFn, float: &Type) -> ItemFn {
    let mut twin = item.clone();
    twin.sig.ident = crate::results::twin_name(item);
    twin.vis = syn::Visibility::Inherited;
    twin.attrs
        .retain(|attr| !attr.path().is_ident("doc") && !attr.path().is_ident("must_use"));
    let ReturnType::Type(_, result) = &mut twin.sig.output else {
        unreachable!("an `Option` result")
    };
    **result = syn::parse_quote!((#float, #float));
    // `e?` first: its `return None` is a result position of its own
    syn::visit_mut::VisitMut::visit_block_mut(&mut Tries, &mut twin.block);
    // `1.0` where the float type is named (the tuple's type makes the literal's), `T::one()`
    // for a type parameter, which has no literals
    let named =
        matches!(float, Type::Path(path) if path.path.is_ident("f32") || path.path.is_ident("f64"));
    let (zero, one): (Expr, Expr) = if named {
        (syn::parse_quote!(0.0), syn::parse_quote!(1.0))
    } else {
        (
            syn::parse_quote!(#float::zero()),
            syn::parse_quote!(#float::one()),
        )
    };
    crate::results::each_result(&mut twin.block, &mut |expr| {
        let span = syn::spanned::Spanned::span(&*expr);
        *expr = match some_value(expr) {
            Some(value) => syn::parse_quote_spanned!(span=> (#value, #one)),
            None if is_none(expr) => syn::parse_quote_spanned!(span=> (#zero, -#one)),
            // another option (a local, another function's call): its parts by a `match`,
            // which `options` reads as it reads the user's own
            None => {
                let value = crate::syntax::fresh_local("returned_value");
                // (`Some`, `None` as the prelude has them: the names `options` reads)
                syn::parse_quote_spanned!(span=> match #expr {
                    Some(#value) => (#value, #one),
                    None => (#zero, -#one),
                })
            }
        };
    });
    twin
}

/// The user's companion: the twin's items with the `Option` built from the tuple, and the
/// hidden items callers call.
fn companion(
    item: &ItemFn,
    float: &Type,
    twin_sig: &syn::Signature,
    model: Option<&sig::Signature>,
    twin: &BTreeMap<String, syn::ImplItemFn>,
) -> TokenStream {
    let name = &item.sig.ident;
    let twin_name = crate::results::twin_name(item);
    let ReturnType::Type(_, result) = &item.sig.output else {
        unreachable!("an `Option` result")
    };
    let generated = crate::generate::paths::generated();
    let private = crate::generate::paths::private();
    let [value, pullback, g, tangent, grads] =
        ["value", "pullback", "g", "tangent", "grads"].map(mixed);

    // primal: the body as written, with the twin's generics
    let primal = {
        let sig = &twin["vjp"].sig;
        let (inputs, generics) = (&sig.inputs, &sig.generics);
        let where_clause = &generics.where_clause;
        let block = &item.block;
        quote! {
            /// The original body, run as written.
            #[inline]
            #[allow(unused_mut)]
            pub fn primal #generics (#inputs) -> #result #where_clause #block
        }
    };

    // vjp: `None` where the function returns `None`; else the value and the pullback from
    // its cotangent (the variant's is none: it is a constant)
    let vjp = {
        let twin_vjp = &twin["vjp"];
        let mut sig = twin_vjp.sig.clone();
        let boxed = crate::results::set_vjp_types(&mut sig.output, float, float);
        let ReturnType::Type(_, pair) = &sig.output else {
            unreachable!("`vjp` returns the value and the pullback")
        };
        let inputs = &sig.inputs;
        let generics = &sig.generics;
        let where_clause = &generics.where_clause;
        let args = crate::results::arg_names(&twin_vjp.sig);
        let mut pullback_fn = quote!(move |#g: #float| #pullback((
            ::core::option::Option::Some(#g),
            ::core::option::Option::None,
        )));
        if boxed {
            pullback_fn = quote!(::std::boxed::Box::new(#pullback_fn));
        }
        quote! {
            /// `None` where the function returns `None`; else the forward value and the
            /// pullback: it takes the value's cotangent and gives one entry per parameter,
            /// `Option` of a cotangent for a differentiable one, `()` for a constant.
            #[inline]
            pub fn vjp #generics (#inputs) -> ::core::option::Option<#pair> #where_clause {
                let (#value, #pullback) = #twin_name::vjp(#(#args),*);
                let #value = #generated::option_of_parts(#value)?;
                ::core::option::Option::Some((#value, #pullback_fn))
            }
        }
    };

    // jvp: `None` where the function returns `None`; else the value and its tangent
    let jvp = twin.get("jvp").map(|twin_jvp| {
        let sig = &twin_jvp.sig;
        let (inputs, generics) = (&sig.inputs, &sig.generics);
        let where_clause = &generics.where_clause;
        let args = crate::results::arg_names(sig);
        quote! {
            /// `None` where the function returns `None`; else the value and its directional
            /// derivative: one tangent per differentiable parameter, in order, after all
            /// the parameters, in one forward pass.
            #[inline]
            pub fn jvp #generics (#inputs) -> ::core::option::Option<(#float, #float)> #where_clause {
                let (#value, #tangent) = #twin_name::jvp(#(#args),*);
                let #value = #generated::option_of_parts(#value)?;
                ::core::option::Option::Some((#value, #tangent.0))
            }
        }
    });

    // grad: `None` where the function returns `None`; else the value and the gradient, as
    // a float function's `grad` gives them (the pullback applied to one at once)
    let grad = model.map(|model| {
        let sig = &twin["vjp"].sig;
        let (inputs, generics) = (&sig.inputs, &sig.generics);
        let where_clause = &generics.where_clause;
        let args = crate::results::arg_names(sig);
        let (grads_ty, grads_value) =
            crate::generate::companion::gradient_of_entries(model, &grads);
        quote! {
            /// `None` where the function returns `None`; else the value and the gradient
            /// (one entry per float parameter, in order), computed by the generated
            /// adjoint with no tape.
            #[inline]
            pub fn grad #generics (#inputs) -> ::core::option::Option<(#float, #grads_ty)> #where_clause {
                let (#value, #pullback) = #twin_name::vjp(#(#args),*);
                let #value = #generated::option_of_parts(#value)?;
                let #grads = #pullback((
                    ::core::option::Option::Some(<#float as #private::DType>::ONE),
                    ::core::option::Option::None,
                ));
                ::core::option::Option::Some((#value, #grads_value))
            }
        }
    });

    let hidden = crate::results::hidden_items(HIDDEN, twin_sig, twin);
    let doc = format!(
        "What `#[differentiable]` generated for [`{name}`](fn@{name}), whose result is an \
         `Option`: `{name}::grad`, `{name}::vjp` and `{name}::jvp` give `None` where it \
         returns `None`, and the value with its derivatives where it returns `Some`. \
         `{name}::GENERATED` shows the code, written for the value and the variant as a \
         tuple (`None` the value zero and the variant -1)."
    );
    crate::params::TwinCompanion {
        vis: &item.vis,
        name,
        twin_name: &twin_name,
        method: false,
        doc,
        generated_doc: "The generated forward and adjoint code, as readable source (the \
                        option as the tuple of its value and its variant).",
    }
    .place(
        [Some(primal), Some(vjp), jvp, grad]
            .into_iter()
            .flatten()
            .chain(hidden),
    )
}
