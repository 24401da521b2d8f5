//! On error: the original function, untouched, plus the errors as `compile_error!`, so that
//! users see the real problem and no follow-on errors about missing items (thiserror's
//! `fallback.rs`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

/// The original item and the errors.
pub fn expand(item: &ItemFn, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    quote! {
        #item
        #errors
    }
}
