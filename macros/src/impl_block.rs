//! `#[differentiable]` on an `impl` block: it takes the block and gives it back with each
//! method marked `#[differentiable]` inside it expanded, and the methods' companion items
//! (`energy_vjp`, `energy_grad`, ...) in an inherent `impl` of the same type beside it.
//!
//! A method annotated on its own puts its companion items beside it, which an `impl` of a
//! trait cannot hold (rustc: "not a member of trait"); the attribute on a method sees only
//! the method, so it cannot know. On the block it can: the block says whether it is a
//! trait's, and an inherent `impl` of the type may follow it (the type is local wherever
//! the trait's `impl` may add items to it). The companion items are `pub` there, as the
//! trait's methods are public.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemFn, ItemImpl};

use crate::ctxt::Ctxt;
use crate::expand;

/// The block with its marked methods expanded, and their companion items beside it.
pub fn expand(args: TokenStream, mut block: ItemImpl) -> TokenStream {
    let cx = Ctxt::default();
    if !args.is_empty() {
        cx.error_spanned_by(
            &args,
            "#[differentiable] on an `impl` block takes no arguments: give them to the methods' own #[differentiable(..)]",
        );
    }
    let mut items = Vec::with_capacity(block.items.len());
    let mut companions = Vec::new();
    let mut marked = 0;
    for item in std::mem::take(&mut block.items) {
        let ImplItem::Fn(mut method) = item else {
            items.push(item);
            continue;
        };
        let Some(at) = method.attrs.iter().position(is_differentiable) else {
            items.push(ImplItem::Fn(method));
            continue;
        };
        marked += 1;
        let attr = method.attrs.remove(at);
        let args = match attr.meta {
            syn::Meta::List(list) => list.tokens,
            _ => TokenStream::new(),
        };
        let mut sig = method.sig;
        restate_float_bounds(&block.generics, &mut sig.generics);
        let function = ItemFn {
            attrs: method.attrs,
            vis: method.vis,
            modifiers: method.modifiers,
            sig,
            block: Box::new(method.block),
        };
        let (expanded, companion) =
            crate::syntax::in_impl_block(&block.self_ty, || expand::parts(args, function));
        items.extend(impl_items(expanded));
        companions.extend(impl_items(companion));
    }
    if marked == 0 {
        cx.error_spanned_by(
            &block.self_ty,
            "#[differentiable] on an `impl` block differentiates the methods marked #[differentiable] inside it, and none is",
        );
    }
    if block.trait_.is_some() {
        for companion in &mut companions {
            match companion {
                ImplItem::Fn(f) => f.vis = syn::parse_quote!(pub),
                ImplItem::Const(c) => c.vis = syn::parse_quote!(pub),
                _ => {}
            }
        }
    }
    block.items = items;
    let errors = cx.check().err().map(syn::Error::into_compile_error);
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    let companion_block = (!companions.is_empty()).then(|| {
        quote! {
            impl #impl_generics #self_ty #where_clause {
                #(#companions)*
            }
        }
    });
    quote! {
        #block
        #companion_block
        #errors
    }
}

/// The `impl`'s type parameters bound by `Float` (`impl<T: Float> Spring<T>`), restated in
/// the method's `where` clause (`where T: Float`, a bound the method may repeat), so that
/// the method's own expansion knows them for float types ([`impl_floats`](crate::model::sig::impl_floats)).
fn restate_float_bounds(block: &syn::Generics, method: &mut syn::Generics) {
    use crate::model::sig::names_float;
    let mut predicates: Vec<syn::WherePredicate> = Vec::new();
    for param in block.type_params() {
        if names_float(&param.bounds) {
            let (ident, bounds) = (&param.ident, &param.bounds);
            predicates.push(syn::parse_quote!(#ident: #bounds));
        }
    }
    if let Some(clause) = &block.where_clause {
        for predicate in &clause.predicates {
            if let syn::WherePredicate::Type(p) = predicate
                && names_float(&p.bounds)
            {
                predicates.push(predicate.clone());
            }
        }
    }
    if !predicates.is_empty() {
        method.make_where_clause().predicates.extend(predicates);
    }
}

/// Whether an attribute is `#[differentiable]` (or `#[differentiable(..)]`, by any path
/// ending in the name).
fn is_differentiable(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|last| last.ident == "differentiable")
}

/// Tokens of items as an `impl` block holds them (functions, constants, the fallback's
/// `compile_error!`).
fn impl_items(tokens: TokenStream) -> Vec<ImplItem> {
    let block: ItemImpl = syn::parse_quote!(impl Items { #tokens });
    block.items
}
