//! `#[derive(Differentiable)]`: a struct of floats, arrays of floats and nested such structs
//! becomes a differentiable parameter of `#[differentiable]` functions, its gradient a value
//! of the same struct (`Differentiable::zero_like`, field by field), and a value generated
//! code may hold whole (`generated::Accumulate`: a call's struct result bound by `let`). Reading the struct and
//! every rejection come first, then the impl.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Member, Type};

use crate::ctxt::Ctxt;

/// The derive's expansion, or its errors (all of them at once).
pub fn derive(input: &DeriveInput) -> Result<TokenStream, syn::Error> {
    let cx = Ctxt::default();
    let fields = match &input.data {
        Data::Struct(data) => Some(&data.fields),
        Data::Enum(data) => {
            cx.error_spanned_by(
                data.enum_token,
                "#[derive(Differentiable)] needs a struct: an enum's variants hold different \
                 fields, so its gradient has no single shape",
            );
            None
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "#[derive(Differentiable)] needs a struct: a union's fields overlap, and only one holds a value",
            );
            None
        }
    };
    let mut zeros = Vec::new();
    let mut adds = Vec::new();
    let mut bounds = Vec::new();
    let mut field_types = Vec::new();
    if let Some(fields) = fields {
        for (index, field) in fields.iter().enumerate() {
            let member = match &field.ident {
                Some(ident) => Member::Named(ident.clone()),
                None => Member::Unnamed(index.into()),
            };
            let marked = constant_mark(&cx, field);
            let ty = &field.ty;
            field_types.push((crate::syntax::field_key(&member), ty));
            if marked || is_constant_type(ty) {
                zeros.push(quote!(#member: ::core::clone::Clone::clone(&self.#member)));
            } else {
                zeros.push(quote!(#member: ::gradtape::Differentiable::zero_like(&self.#member)));
                adds.push(quote!(::gradtape::Differentiable::accumulate(&mut self.#member, &gradient.#member);));
                bounds.push(quote!(#ty: ::gradtape::Differentiable));
            }
        }
    }
    cx.check()?;
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let predicates = where_clause.map(|w| &w.predicates);
    let comma = predicates
        .filter(|p| !p.empty_or_trailing())
        .map(|_| quote!(,));
    // each field's type, for code that passes the field on whole (`dense(&m.hidden, x)`)
    let field_types = field_types.iter().map(|(key, ty)| {
        quote! {
            impl #impl_generics ::gradtape::__private::FieldType<#key> for #name #ty_generics #where_clause {
                type Type = #ty;
            }
        }
    });
    Ok(quote! {
        // the receivers a caller's fallback for a method that is not annotated is for
        // (`generated::AnnotatedMethod`)
        impl #impl_generics ::gradtape::__private::generated::DerivedStruct for #name #ty_generics #where_clause {}
        impl #impl_generics ::gradtape::Differentiable for #name #ty_generics
        where #predicates #comma #(#bounds,)*
        {
            fn zero_like(&self) -> Self {
                #name { #(#zeros),* }
            }
            #[allow(unused_variables)]
            fn accumulate(&mut self, gradient: &Self) {
                #(#adds)*
            }
        }
        // the struct held as one differentiable value by generated code (a call's struct
        // result bound whole, `let s = step(..);`): its cotangent slot sums values of it
        impl #impl_generics ::gradtape::__private::generated::Accumulate for #name #ty_generics
        where #predicates #comma #name #ty_generics: ::gradtape::Differentiable
        {
            #[inline]
            fn sum(mut sum: Self, gradient: &Self) -> Self {
                ::gradtape::Differentiable::accumulate(&mut sum, gradient);
                sum
            }
        }
        // and its tangent's zero, where generated tangent code needs one
        impl #impl_generics ::gradtape::__private::generated::ZeroTangent for #name #ty_generics
        where #predicates #comma #name #ty_generics: ::gradtape::Differentiable
        {
            #[inline]
            fn zero_tangent(&self) -> Self {
                ::gradtape::Differentiable::zero_like(self)
            }
        }
        #(#field_types)*
    })
}

/// Whether the field is marked `#[constant]` (a bare attribute: anything else is an error).
fn constant_mark(cx: &Ctxt, field: &syn::Field) -> bool {
    let mut marked = false;
    for attr in &field.attrs {
        if attr.path().is_ident("constant") {
            if let syn::Meta::Path(_) = attr.meta {
                marked = true;
            } else {
                cx.error_spanned_by(
                    attr,
                    "`#[constant]` takes no arguments: it marks a field whose gradient is a copy of its value",
                );
            }
        }
    }
    marked
}

/// A field whose gradient is a clone: a reference (data the struct borrows), a function
/// pointer, or a type that holds no float by its spelling ([`holds_no_float`]: integers,
/// `bool`, `char`, `String`, and arrays and tuples of them).
///
/// [`holds_no_float`]: crate::syntax::holds_no_float
fn is_constant_type(ty: &Type) -> bool {
    match ty {
        Type::Reference(_) | Type::FnPtr(_) => true,
        Type::Group(group) => is_constant_type(&group.elem),
        Type::Paren(paren) => is_constant_type(&paren.elem),
        _ => crate::syntax::holds_no_float(ty),
    }
}
