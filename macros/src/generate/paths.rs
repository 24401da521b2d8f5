//! The paths generated code reaches the runtime by, written nowhere else: everything goes
//! through `::gradtape::__private`, and the runtime module of entry points for generated
//! code is named once, in [`HOOKS`].

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// The runtime module (under `__private`) of entry points for generated code: fused nodes,
/// sub-tape traces, accumulation, the 0-d kernels. Renaming it in the runtime is a change to
/// this line; generated code keeps calling it `hooks` locally (see [`imports`]).
const HOOKS: &str = "hooks";

/// `::gradtape::__private`, the facade's module for generated code.
pub fn private() -> TokenStream {
    quote!(::gradtape::__private)
}

/// The full path of the runtime's module of entry points, for code outside the generated
/// functions' [`imports`].
pub fn hooks() -> TokenStream {
    let private = private();
    let module = Ident::new(HOOKS, Span::call_site());
    quote!(#private::#module)
}

/// The imports at the top of each generated function: the entry points as `hooks` and the
/// runtime's rules as `vjp`, the short names the generated body uses.
pub fn imports() -> TokenStream {
    let private = private();
    let module = Ident::new(HOOKS, Span::call_site());
    if module == "hooks" {
        quote!(use #private::{hooks, vjp};)
    } else {
        quote!(use #private::{#module as hooks, vjp};)
    }
}
