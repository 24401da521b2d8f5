//! The paths generated code reaches the runtime by, written nowhere else: everything goes
//! through `::gradtape::__private`, whose module `generated` holds the runtime's entry points
//! for generated code.

use proc_macro2::TokenStream;
use quote::quote;

/// `::gradtape::__private`, the facade's module for generated code.
pub fn private() -> TokenStream {
    quote!(::gradtape::__private)
}

/// The runtime's module of entry points for generated code (fused nodes, sub-tape traces,
/// accumulation, the 0-d kernels), for code outside the generated functions' [`imports`].
pub fn generated() -> TokenStream {
    let private = private();
    quote!(#private::generated)
}

/// [`generated`] with every token at `span`, for a check whose error should point at the
/// user's tokens.
pub fn generated_at(span: proc_macro2::Span) -> TokenStream {
    quote::quote_spanned!(span=> ::gradtape::__private::generated)
}

/// The imports at the top of each generated function: the entry points as `generated` and
/// the runtime's rules as `vjp`, the short names the generated body uses.
pub fn imports() -> TokenStream {
    let private = private();
    quote!(use #private::{generated, vjp};)
}
