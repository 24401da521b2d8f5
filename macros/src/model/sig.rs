//! Parsing the signature into its model (the first phase, with `args`): it takes the
//! function's signature and gives which parameters are differentiable, of what kind, and
//! what the function returns; rejections are `validate`'s. The model: which parameters are differentiable, of what kind, and what the
//! function returns. A function is in *tensor mode* when it takes or returns tensors (it is
//! recorded on tapes as one fused node), in *scalar mode* when it works on plain `f32`/`f64`
//! numbers (it gets a tape-free gradient).
//!
//! Types here are as `syntax::unwrap_type_groups` left them: no invisible group (a
//! `macro_rules!`'s `$t:ty`) and no parentheses around a float, an array or a reference.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::generate::paths;

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
    /// An array, slice or `Vec` of `f32`/`f64` (`&[F]`, `&mut [F]`, `[F; N]`, `&[F; N]`,
    /// `Vec<F>`, `&Vec<F>`, `&mut Vec<F>`): differentiable in scalar mode, element by
    /// element through a shadow buffer; a constant in tensor mode.
    ///
    /// An array of rows (`[[F; N]; M]`, `&[[F; N]]`, `Vec<[F; N]>`) has `row` `Some(N)`:
    /// it is read and written as `m[i][j]`, element `i * N + j` of one flat shadow.
    ///
    /// A *ragged* array of rows (`&[Vec<F>]`, `Vec<Vec<F>>`, `&Vec<Vec<F>>`: rows of any
    /// lengths) has `ragged` set and `row` `None`: `m[i][j]` is index
    /// `i * RAGGED_STRIDE + j` of a shadow of rows (`generated::RowShadow`).
    Array {
        form: ArrayForm,
        by_mut_ref: bool,
        row: Option<String>,
        ragged: bool,
    },
    /// A struct of floats passed on whole to other annotated functions (scalar mode): a
    /// struct parameter marked `#[differentiable]` or a field of one, as the struct pass
    /// (`params.rs`) hands it to its twin (`&S`, named in the hidden `__whole(..)`
    /// argument). Its cotangent is a value of `S` (the parameter's `elem`), summed with
    /// `Differentiable::accumulate`; its only use is as a call's argument.
    Struct,
    /// Anything else (sizes, flags, integer tensors, slices of other types, parameters
    /// held by `constant(..)`): a constant.
    Constant,
}

/// The shape of an array parameter, which its gradient takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayForm {
    /// `[F]` or `Vec<F>`: the gradient is a `Vec<F>`.
    Slice,
    /// `[F; N]`: the gradient is a `[F; N]` (the length, as written).
    Fixed(String),
}

/// One parameter.
pub struct Param {
    pub ident: Ident,
    /// Declared `mut x`: the generated functions declare it so too, for the body's
    /// assignments to it.
    pub mutable: bool,
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
    /// Scalar mode, one result of a type that may be a struct (a path that is no float,
    /// integer or container; `results` took every body returning a literal of it): a
    /// struct result held whole and returned on (`let s = step(..); s`, `step(..)`), one
    /// value whose cotangent is a value of it (`generated::Accumulate`). No `grad` nor
    /// `grad_into`, which seed a float result with 1.
    pub whole_output: bool,
    /// Parameters of integer types (or tensors of them), for the error when nothing is
    /// differentiable.
    pub integer_params: Vec<Type>,
    /// The type parameters bound by `Float` ([`float_type_params`]): element types of float
    /// arrays besides `f32`/`f64` (`&[T]`, `Vec<T>`, a local `Vec<T>`).
    pub floats: Vec<Ident>,
}

impl Param {
    /// Whether the adjoint computes a cotangent for this parameter.
    pub fn differentiable(&self, mode: Mode) -> bool {
        match self.kind {
            Kind::Tensor { .. } | Kind::Variable => true,
            Kind::Float { .. } | Kind::Array { .. } | Kind::Struct => mode == Mode::Scalar,
            Kind::Constant => false,
        }
    }

    /// Whether this is a struct passed on whole ([`Kind::Struct`]).
    pub fn is_whole(&self) -> bool {
        self.kind == Kind::Struct
    }

    /// Whether this is an array parameter the function writes (`&mut [F]`).
    pub fn is_output_array(&self) -> bool {
        matches!(
            self.kind,
            Kind::Array {
                by_mut_ref: true,
                ..
            }
        )
    }

    /// An array parameter's item: `F`, or `[F; N]` for an array of rows (the element type
    /// of its `grad_into` buffer and `jvp` tangent slices).
    pub fn array_item(&self) -> TokenStream {
        let elem = self.elem.as_ref().expect("a float array");
        match &self.kind {
            Kind::Array { row: Some(row), .. } => {
                let row: TokenStream = row.parse().expect("printed from tokens");
                quote!([#elem; #row])
            }
            Kind::Array { ragged: true, .. } => quote!(::std::vec::Vec<#elem>),
            _ => quote!(#elem),
        }
    }

    /// Whether this is a ragged array of rows (`&[Vec<F>]`, `Vec<Vec<F>>`).
    pub fn is_ragged(&self) -> bool {
        matches!(self.kind, Kind::Array { ragged: true, .. })
    }

    /// The row length `N` of an array of rows, as written (`None` for a ragged one).
    pub fn array_row(&self) -> Option<TokenStream> {
        match &self.kind {
            Kind::Array { row: Some(row), .. } => Some(row.parse().expect("printed from tokens")),
            _ => None,
        }
    }

    /// The type of this parameter's cotangent (`Tensor<F>`, `F`, `Vec<F>` or `[F; N]`).
    pub fn cotangent_type(&self) -> proc_macro2::TokenStream {
        let elem = self
            .elem
            .as_ref()
            .expect("differentiable parameters have an element type");
        match self.kind {
            Kind::Tensor { .. } | Kind::Variable => {
                let private = paths::private();
                quote!(#private::Tensor<#elem>)
            }
            Kind::Array {
                ref form,
                ref row,
                ragged,
                ..
            } => {
                let elem = match row {
                    Some(row) => {
                        let row: TokenStream = row.parse().expect("printed from tokens");
                        quote!([#elem; #row])
                    }
                    None if ragged => quote!(::std::vec::Vec<#elem>),
                    None => quote!(#elem),
                };
                match form {
                    ArrayForm::Fixed(len) => {
                        let len: TokenStream = len.parse().expect("printed from tokens");
                        quote!([#elem; #len])
                    }
                    ArrayForm::Slice => quote!(::std::vec::Vec<#elem>),
                }
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

/// An integer or boolean type: data, never differentiated.
pub fn is_integer(ty: &Type) -> bool {
    is_named(ty, INTEGERS)
}

fn strip_ref(ty: &Type) -> (&Type, bool) {
    match ty {
        Type::Reference(reference) => (&reference.elem, true),
        other => (other, false),
    }
}

/// `Tensor<E>` or `Variable<E>`: the container name and element type.
pub fn container(ty: &Type) -> Option<(&'static str, &Type)> {
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

/// A float type: `f32`, `f64`, or one of `type_params` (the function's, bound by `Float` at
/// its definition; the compiler checks the bound). Plain numbers pass none.
pub fn is_float(ty: &Type, type_params: &[Ident]) -> bool {
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

/// The type of a method's `self`: `Self`, `&Self` (with its lifetime), or as written.
pub fn receiver_type(receiver: &syn::Receiver) -> Type {
    match &receiver.kind {
        syn::ReceiverKind::Reference(and, lifetime, mutability) => {
            syn::parse_quote!(#and #lifetime #mutability Self)
        }
        syn::ReceiverKind::Typed(_, ty) => (**ty).clone(),
        _ => syn::parse_quote!(Self),
    }
}

/// Classifies the signature. Parameters [`validate::signature`](crate::validate::signature)
/// rejects are left out; `None` if there is no result type.
pub fn parse(item: &ItemFn) -> Option<Signature> {
    let sig = &item.sig;
    let type_params = type_params(item);
    let float_params = float_type_params(item);
    let mut params = Vec::new();
    let mut integer_params = Vec::new();
    for input in &sig.inputs {
        let typed = match input {
            // `&self` (or `self`): a constant parameter named `self`, declared by its
            // type (`self: &Self`), which is a receiver in every generated function too.
            FnArg::Receiver(receiver) => {
                params.push(Param {
                    ident: Ident::from(receiver.self_token),
                    mutable: receiver.mutability.is_some(),
                    ty: receiver_type(receiver),
                    kind: Kind::Constant,
                    elem: None,
                });
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let Pat::Ident(pat) = &*typed.pat else {
            continue;
        };
        if pat.by_ref.is_some() || pat.subpat.is_some() {
            continue;
        }
        let ty = (*typed.ty).clone();
        let by_mut_ref =
            matches!(&ty, Type::Reference(reference) if reference.mutability.is_some());
        let (inner, by_ref) = strip_ref(&ty);
        let array = float_array_or_rows(inner, &float_params)
            .map(|(form, row, elem)| (form, row, false, elem))
            .or_else(|| {
                // (a `&mut [Vec<F>]` output is not differentiated: rejected as any `&mut`)
                float_ragged_rows(inner, &float_params)
                    .filter(|_| !by_mut_ref)
                    .map(|elem| (ArrayForm::Slice, None, true, elem))
            });
        if let Some((form, row, ragged, elem)) = array {
            params.push(Param {
                ident: pat.ident.clone(),
                mutable: pat.mutability.is_some(),
                kind: Kind::Array {
                    form,
                    by_mut_ref,
                    row,
                    ragged,
                },
                elem: Some(elem.clone()),
                ty,
            });
            continue;
        }
        if by_mut_ref {
            continue;
        }
        let (kind, elem) = match container(inner) {
            Some((name, elem)) if is_float(elem, &type_params) => {
                let kind = if name == "Tensor" {
                    Kind::Tensor { by_ref }
                } else {
                    Kind::Variable
                };
                (kind, Some(elem.clone()))
            }
            Some((_, elem)) => {
                if is_integer(elem) {
                    integer_params.push(ty.clone());
                }
                (Kind::Constant, None)
            }
            None if is_float(inner, &float_params) => (Kind::Float { by_ref }, Some(inner.clone())),
            None => {
                if is_integer(inner) {
                    integer_params.push(ty.clone());
                }
                (Kind::Constant, None)
            }
        };
        params.push(Param {
            ident: pat.ident.clone(),
            mutable: pat.mutability.is_some(),
            ty,
            kind,
            elem,
        });
    }

    let writes_arrays = params.iter().any(Param::is_output_array);
    let (outputs, tuple_output) = match &sig.output {
        // A function that only writes `&mut` arrays: its results are those.
        ReturnType::Default if writes_arrays => (Vec::new(), false),
        ReturnType::Default => return None,
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(tuple) if tuple.elems.is_empty() && writes_arrays => (Vec::new(), false),
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
    if mode == Mode::Tensor {
        // No tape tracks plain numbers: in tensor mode float arrays are data.
        for param in &mut params {
            if let Kind::Array { .. } = param.kind {
                param.kind = Kind::Constant;
                param.elem = None;
            }
        }
    }
    let whole_output = mode == Mode::Scalar
        && !tuple_output
        && matches!(&outputs[..], [ty] if crate::params::is_struct_type(ty, &float_params))
        && crate::results::returns_values(item);
    Some(Signature {
        mode,
        params,
        outputs,
        tuple_output,
        whole_output,
        integer_params,
        floats: float_params,
    })
}

/// The function's type parameters (element types bound by `Float` where it is defined),
/// and the float type parameters of an enclosing `impl` its `where` clause names
/// ([`impl_floats`]).
pub fn type_params(item: &ItemFn) -> Vec<Ident> {
    item.sig
        .generics
        .type_params()
        .map(|p| p.ident.clone())
        .chain(impl_floats(item))
        .collect()
}

/// Names bound by a trait named `Float` in the `where` clause that are no type parameter
/// of the function: an enclosing `impl<T: Float>`'s, which `#[differentiable]` on the
/// `impl` block restates there for its methods (`impl_block.rs`).
pub fn impl_floats(item: &ItemFn) -> Vec<Ident> {
    let generics = &item.sig.generics;
    let Some(clause) = &generics.where_clause else {
        return Vec::new();
    };
    let declared: Vec<&Ident> = generics.type_params().map(|p| &p.ident).collect();
    let mut floats: Vec<Ident> = Vec::new();
    for predicate in &clause.predicates {
        if let syn::WherePredicate::Type(p) = predicate
            && names_float(&p.bounds)
            && let Type::Path(ty) = &p.bounded_ty
            && let Some(ident) = ty.path.get_ident()
            // once each: the runtime's bound may restate the user's
            && !declared.contains(&ident)
            && !floats.contains(ident)
            // a struct result's float alias is a type, not a parameter (`float_aliases`)
            && !ident.to_string().starts_with(FLOAT_ALIAS)
        {
            floats.push(ident.clone());
        }
    }
    floats
}

/// Whether a bound list names a trait called `Float`.
pub fn names_float(
    bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
) -> bool {
    bounds.iter().any(|bound| {
        matches!(bound, syn::TypeParamBound::Trait(t)
            if t.path.segments.last().is_some_and(|s| s.ident == "Float"))
    })
}

/// The type parameters bound by a trait named `Float` (`num_traits::Float`,
/// `gradtape::Float`), inline or in the `where` clause: plain numbers in scalar mode, like
/// `f32`/`f64` (`fn f<T: Float>(x: T) -> T`).
pub fn float_type_params(item: &ItemFn) -> Vec<Ident> {
    let generics = &item.sig.generics;
    generics
        .type_params()
        .filter(|param| {
            names_float(&param.bounds)
                || generics.where_clause.as_ref().is_some_and(|clause| {
                    clause.predicates.iter().any(|predicate| {
                        matches!(predicate, syn::WherePredicate::Type(p)
                            if matches!(&p.bounded_ty, Type::Path(ty) if ty.path.is_ident(&param.ident))
                                && names_float(&p.bounds))
                    })
                })
        })
        .map(|param| param.ident.clone())
        .chain(impl_floats(item))
        .chain(float_aliases(item))
        .collect()
}

/// The most parts a tuple result may have (and so an array result elements, a struct
/// result fields: each goes through a twin returning a tuple): the runtime builds a tuple
/// result's cotangent from its parts up to this arity (`generated::FromParts`), and the
/// generated code starts it from `Default`, which the standard library implements up to
/// it.
pub const MAX_PARTS: usize = 12;

/// The prefix of a struct result's float alias (`results::Model::float_alias`).
pub const FLOAT_ALIAS: &str = "__gradtape_float_";

/// The float type a struct result's twin names when no parameter does
/// (`results::Model::float_alias`): `__gradtape_float_f` bound by `Float` in its `where`
/// clause, an alias of the struct's own float type, a float like a type parameter.
fn float_aliases(item: &ItemFn) -> Vec<Ident> {
    let Some(clause) = &item.sig.generics.where_clause else {
        return Vec::new();
    };
    clause
        .predicates
        .iter()
        .filter_map(|predicate| match predicate {
            syn::WherePredicate::Type(p) if names_float(&p.bounds) => match &p.bounded_ty {
                Type::Path(ty) => ty
                    .path
                    .get_ident()
                    .filter(|ident| ident.to_string().starts_with(FLOAT_ALIAS))
                    .cloned(),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The item as the generated functions declare it: in scalar mode each float type
/// parameter also bound by the runtime's `Float` (f32 or f64), which the rules the
/// generated code calls require, and by `Differentiable`, which a struct of it (`State<T>`,
/// deriving `Differentiable` with the bound `T: Differentiable`) needs to be passed to a
/// marked parameter or held whole (`Float` does not imply it); the function itself keeps
/// the user's bounds.
pub fn with_runtime_float_bounds(item: &ItemFn, sig: &Signature) -> ItemFn {
    let mut item = item.clone();
    if sig.mode != Mode::Scalar {
        return item;
    }
    let floats = float_type_params(&item);
    if floats.is_empty() {
        return item;
    }
    let private = paths::private();
    let clause = item.sig.generics.make_where_clause();
    for param in floats {
        clause
            .predicates
            .push(syn::parse_quote!(#param: #private::Float + #private::Differentiable));
    }
    item
}

/// `[F]`, `[F; N]` or `Vec<F>` with `F` = `f32`/`f64` or one of `floats` (the function's
/// type parameters bound by `Float`): the form and `F`.
pub fn float_array<'t>(ty: &'t Type, floats: &[Ident]) -> Option<(ArrayForm, &'t Type)> {
    match ty {
        Type::Slice(slice) if is_float(&slice.elem, floats) => {
            Some((ArrayForm::Slice, &slice.elem))
        }
        Type::Array(array) if is_float(&array.elem, floats) => Some((
            ArrayForm::Fixed(array.len.to_token_stream().to_string()),
            &array.elem,
        )),
        _ => match last_segment(ty) {
            Some((ident, Some(elem))) if ident == "Vec" && is_float(elem, floats) => {
                Some((ArrayForm::Slice, elem))
            }
            _ => None,
        },
    }
}

/// A float array (`row` `None`) or an array of rows of floats, `[[F; N]]`, `[[F; N]; M]`
/// or `Vec<[F; N]>` (`row` `Some(N)`, the length as written): the form, the row length
/// and `F`.
pub fn float_array_or_rows<'t>(
    ty: &'t Type,
    floats: &[Ident],
) -> Option<(ArrayForm, Option<String>, &'t Type)> {
    if let Some((form, elem)) = float_array(ty, floats) {
        return Some((form, None, elem));
    }
    let (form, row) = match ty {
        Type::Slice(slice) => (ArrayForm::Slice, &*slice.elem),
        Type::Array(array) => (
            ArrayForm::Fixed(array.len.to_token_stream().to_string()),
            &*array.elem,
        ),
        _ => match last_segment(ty) {
            Some((ident, Some(row))) if ident == "Vec" => (ArrayForm::Slice, row),
            _ => return None,
        },
    };
    match float_array(row, floats)? {
        (ArrayForm::Fixed(len), elem) => Some((form, Some(len), elem)),
        (ArrayForm::Slice, _) => None,
    }
}

/// A ragged array of rows of floats, `[Vec<F>]` or `Vec<Vec<F>>` (`F` = `f32`/`f64` or
/// one of `floats`, the float type parameters): `F`.
pub fn float_ragged_rows<'t>(ty: &'t Type, floats: &[Ident]) -> Option<&'t Type> {
    let row = match ty {
        Type::Slice(slice) => &*slice.elem,
        _ => match last_segment(ty) {
            Some((ident, Some(row))) if ident == "Vec" => row,
            _ => return None,
        },
    };
    match (last_segment(row), float_array(row, floats)) {
        (Some((ident, _)), Some((ArrayForm::Slice, elem))) if ident == "Vec" => Some(elem),
        _ => None,
    }
}

/// Makes the parameters `names` (each `&S`) structs passed on whole ([`Kind::Struct`]):
/// the struct pass's hidden `__whole(..)` argument of a twin.
pub fn pass_whole(sig: &mut Signature, names: &[Ident]) {
    for name in names {
        let param = sig
            .params
            .iter_mut()
            .find(|p| &p.ident == name)
            .expect("the struct pass names its twin's own parameters");
        let Type::Reference(reference) = &param.ty else {
            unreachable!("the struct pass passes a whole struct by reference");
        };
        param.elem = Some((*reference.elem).clone());
        param.kind = Kind::Struct;
    }
}

/// Holds the parameters `names` constant (`#[differentiable(constant(..))]`): data, with
/// no gradient. A name that is no parameter is an error.
pub fn hold_constant(cx: &crate::ctxt::Ctxt, sig: &mut Signature, names: &[Ident]) {
    for name in names {
        match sig.params.iter_mut().find(|p| &p.ident == name) {
            Some(param) => {
                if let Kind::Array {
                    by_mut_ref: true, ..
                } = param.kind
                {
                    cx.error_spanned_by(
                        name,
                        "a `&mut` array is an output of the function: it cannot be held constant",
                    );
                    continue;
                }
                param.kind = Kind::Constant;
                param.elem = None;
            }
            None => cx.error_spanned_by(
                name,
                format_args!("`{name}` is no parameter of this function"),
            ),
        }
    }
}
