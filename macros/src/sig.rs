//! The signature model: which parameters are differentiable, of what kind, and what the
//! function returns. A function is in *tensor mode* when it takes or returns tensors (it is
//! recorded on tapes as one fused node), in *scalar mode* when it works on plain `f32`/`f64`
//! numbers (it gets a tape-free gradient).

use quote::quote;
use syn::{FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::ctxt::Ctxt;

/// How a function is differentiated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Tensors in or out: one fused node on the tapes.
    Tensor,
    /// Plain float numbers: a tape-free gradient.
    Scalar,
}

/// What a parameter is, as far as differentiation goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `Tensor<F>` or `&Tensor<F>`: differentiable in tensor mode.
    Tensor { by_ref: bool },
    /// `&Variable<F>`: its value is read (so tapes watch it) and differentiated.
    Variable,
    /// `f32`/`f64` (or a reference to one): differentiable in scalar mode, a constant in
    /// tensor mode (no tape can track a plain number).
    Float { by_ref: bool },
    /// Anything else (sizes, flags, integer tensors, slices): a constant.
    Constant,
}

/// One parameter.
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub kind: Kind,
    /// The element type (`f32`, `f64`, `T`) for tensors, variables and floats.
    pub elem: Option<Type>,
}

/// The checked signature.
pub struct Signature {
    pub mode: Mode,
    pub params: Vec<Param>,
    /// The result types: one, or the elements of a tuple.
    pub outputs: Vec<Type>,
    pub tuple_output: bool,
}

impl Param {
    /// Whether the adjoint computes a cotangent for this parameter.
    pub fn differentiable(&self, mode: Mode) -> bool {
        match self.kind {
            Kind::Tensor { .. } | Kind::Variable => true,
            Kind::Float { .. } => mode == Mode::Scalar,
            Kind::Constant => false,
        }
    }

    /// The type of this parameter's cotangent (`Tensor<F>` or `F`).
    pub fn cotangent_type(&self) -> proc_macro2::TokenStream {
        let elem = self
            .elem
            .as_ref()
            .expect("differentiable parameters have an element type");
        match self.kind {
            Kind::Tensor { .. } | Kind::Variable => {
                quote!(::gradtape::__private::Tensor<#elem>)
            }
            _ => quote!(#elem),
        }
    }
}

const INTEGERS: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "bool",
];

fn last_segment(ty: &Type) -> Option<(&Ident, Option<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    let arg = match &segment.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
            GenericArgument::Type(ty) => Some(ty),
            _ => None,
        }),
        _ => None,
    };
    Some((&segment.ident, arg))
}

fn is_named(ty: &Type, names: &[&str]) -> bool {
    matches!(last_segment(ty), Some((ident, None)) if names.iter().any(|n| ident == n))
}

fn strip_ref(ty: &Type) -> (&Type, bool) {
    match ty {
        Type::Reference(reference) => (&reference.elem, true),
        Type::Paren(paren) => strip_ref(&paren.elem),
        other => (other, false),
    }
}

/// `Tensor<E>` or `Variable<E>`: the container name and element type.
fn container(ty: &Type) -> Option<(&'static str, &Type)> {
    let (ident, arg) = last_segment(ty)?;
    let name = if ident == "Tensor" {
        "Tensor"
    } else if ident == "Variable" {
        "Variable"
    } else {
        return None;
    };
    Some((name, arg?))
}

/// The element type of a `Tensor<E>` type.
pub fn tensor_elem(ty: &Type) -> Option<&Type> {
    match container(ty) {
        Some(("Tensor", elem)) => Some(elem),
        _ => None,
    }
}

/// A float element type: `f32`, `f64`, or a type parameter of the function (bound by
/// `Float` at its definition; the compiler checks the bound).
fn is_float_elem(ty: &Type, type_params: &[Ident]) -> bool {
    is_named(ty, &["f32", "f64"])
        || matches!(last_segment(ty), Some((ident, None)) if type_params.contains(ident))
}

/// A type as users write it (`Tensor<i32>`, not `Tensor < i32 >`).
pub fn type_name(ty: &Type) -> String {
    quote!(#ty)
        .to_string()
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" ,", ",")
}

fn mentions_tensor(ty: &Type) -> bool {
    quote!(#ty).to_string().contains("Tensor")
}

/// Classifies the signature, recording errors for what cannot be differentiated.
pub fn parse(cx: &Ctxt, item: &ItemFn) -> Option<Signature> {
    let sig = &item.sig;
    let type_params: Vec<Ident> = sig
        .generics
        .type_params()
        .map(|p| p.ident.clone())
        .collect();
    if let Some(asyncness) = &sig.asyncness {
        cx.error_spanned_by(asyncness, "a #[differentiable] function cannot be async");
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(
            unsafety,
            "a #[differentiable] function cannot be unsafe: its adjoint is derived from safe code only",
        );
    }
    let mut params = Vec::new();
    let mut integer_params = Vec::new();
    for input in &sig.inputs {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                cx.error_spanned_by(
                    receiver,
                    "#[differentiable] works on free functions: take the value as an ordinary parameter instead of `self`",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
            other => {
                cx.error_spanned_by(
                    other,
                    "parameters of a #[differentiable] function must be plain names: destructure inside the body",
                );
                continue;
            }
        };
        let ty = (*typed.ty).clone();
        if let Type::Reference(reference) = &ty
            && let Some(mutability) = &reference.mutability
        {
            cx.error_spanned_by(
                mutability,
                "a #[differentiable] function cannot take `&mut` parameters: mutation through references has no adjoint; return the new value instead",
            );
            continue;
        }
        let (inner, by_ref) = strip_ref(&ty);
        let (kind, elem) = match container(inner) {
            Some((name, elem)) if is_float_elem(elem, &type_params) => {
                let kind = if name == "Tensor" {
                    Kind::Tensor { by_ref }
                } else {
                    Kind::Variable
                };
                (kind, Some(elem.clone()))
            }
            Some((_, elem)) => {
                if is_named(elem, INTEGERS) {
                    integer_params.push(ty.clone());
                }
                (Kind::Constant, None)
            }
            None if is_named(inner, &["f32", "f64"]) => {
                (Kind::Float { by_ref }, Some(inner.clone()))
            }
            None => {
                if is_named(inner, INTEGERS) {
                    integer_params.push(ty.clone());
                }
                (Kind::Constant, None)
            }
        };
        params.push(Param {
            ident,
            ty,
            kind,
            elem,
        });
    }

    let (outputs, tuple_output) = match &sig.output {
        ReturnType::Default => {
            cx.syn_error(syn::Error::new(
                sig.paren_token.span.close(),
                "a #[differentiable] function must return the value to differentiate: add `-> Tensor<f32>` (or a float, or a tuple of them)",
            ));
            return None;
        }
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(tuple) if !tuple.elems.is_empty() => {
                (tuple.elems.iter().cloned().collect::<Vec<_>>(), true)
            }
            other => (vec![other.clone()], false),
        },
    };

    let mode = if params
        .iter()
        .any(|p| matches!(p.kind, Kind::Tensor { .. } | Kind::Variable))
        || outputs.iter().any(mentions_tensor)
    {
        Mode::Tensor
    } else {
        Mode::Scalar
    };

    for output in &outputs {
        check_output(cx, output, mode, &type_params);
    }
    if !params.iter().any(|p| p.differentiable(mode)) {
        match integer_params.first() {
            Some(ty) => cx.error_spanned_by(
                ty,
                format_args!(
                    "`{}` parameters cannot be differentiated: differentiable parameters must be float tensors (`Tensor<f32>`, `&Tensor<f64>`), variables, or `f32`/`f64` numbers; cast integers to a float first",
                    type_name(ty)
                ),
            ),
            None => cx.syn_error(syn::Error::new(
                sig.ident.span(),
                "a #[differentiable] function needs a differentiable parameter: a float tensor, a variable, or an `f32`/`f64` number",
            )),
        }
    }
    Some(Signature {
        mode,
        params,
        outputs,
        tuple_output,
    })
}

fn check_output(cx: &Ctxt, ty: &Type, mode: Mode, type_params: &[Ident]) {
    let ok = match (container(ty), mode) {
        (Some(("Tensor", elem)), Mode::Tensor) => {
            if is_named(elem, INTEGERS) {
                cx.error_spanned_by(
                    ty,
                    format_args!(
                        "`{}` results cannot be differentiated: integer tensors are data; return a float tensor (`Tensor<f32>` or `Tensor<f64>`)",
                        type_name(ty)
                    ),
                );
                return;
            }
            is_float_elem(elem, type_params)
        }
        (None, Mode::Scalar) => is_named(ty, &["f32", "f64"]),
        _ => false,
    };
    if ok {
        return;
    }
    let message = if is_named(ty, INTEGERS) {
        format!(
            "`{}` results cannot be differentiated: return a float (`f32` or `f64`) or a float tensor",
            type_name(ty)
        )
    } else if mode == Mode::Tensor {
        format!(
            "`{}` cannot be the result of a #[differentiable] tensor function: return `Tensor<f32>`, `Tensor<f64>` or a tuple of them",
            type_name(ty)
        )
    } else {
        format!(
            "`{}` cannot be the result of a #[differentiable] function: return `f32`, `f64`, a float tensor, or a tuple of them",
            type_name(ty)
        )
    };
    cx.error_spanned_by(ty, message);
}
