//! Struct parameters marked `#[differentiable]` (scalar mode): `fn nll(#[differentiable] p:
//! &Gaussian, data: &[f64]) -> f64`, the gradient with respect to `p` a value of the same
//! struct (`Differentiable::zero_like`, filled field by field).
//!
//! A proc macro sees no types, so the fields are found by how the body reads them, and the
//! function is differentiated through a hidden twin that takes them as parameters of their
//! own, which every later phase already differentiates:
//!
//! 1. **Read** ([`read`]): the marked parameters, the function's float type (its result's),
//!    and every read of a field path of a marked parameter (`p.mu`, `p.layer.w[i]`), each
//!    classified by where it stands: an *array* read (indexed, iterated, `len`, borrowed
//!    whole), a *float* read (arithmetic, a call's argument, a `let` with no type, a float
//!    method), or a *constant* read (inside an index, a range, a condition or comparison, an
//!    integer cast, a `let` typed with an integer, a printing or assertion macro). Every
//!    rejection of this pass is here: a marked parameter used whole, written, shadowed, or
//!    read inside another macro; a marked parameter that is no struct; a result that is no
//!    float (nor nothing, of a writer: a function writing a `&mut` float array, whose
//!    float type is the array's, its twin a writer too).
//! 2. **Lift**: a path read as a float becomes a parameter `p_mu: F`, one read as an array a
//!    parameter `p_w: &[F]`, appended after the user's; the twin's body reads them instead.
//!    A path read only as a constant stays a read of `p`, which the twin still takes (as a
//!    constant, as every struct parameter is). A path read as a float only through `as`
//!    (`p.n as f64`) stays constant too, and the generated code checks that it is no float
//!    (a float's gradient through the cast would be lost).
//! 3. **Expand** the twin (`__gradtape_fields_{name}`) through the whole pipeline.
//! 4. **Forward** ([`companion`]): the user's companion items (`vjp`, `grad`, `jvp`,
//!    `jvp_call`, `grad_into`, `primal`, `GENERATED`) call the twin's with each lifted
//!    path's value (through `generated::float_field`/`float_array_field`, spanned at the
//!    user's field, so a wrong guess is a compile error there, never a gradient of the wrong
//!    thing) and gather the lifted paths' cotangents into the struct.
//!
//! A method's `self` marked `#[differentiable]` is one more such parameter, of type `Self`:
//! the twin is then a method (`&self`), its items associated functions named after it, and
//! the user's items (`energy_vjp`, ..) call them as `Self::__gradtape_fields_energy_vjp`.

use std::collections::{BTreeMap, HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{
    BinOp, Expr, FnArg, GenericArgument, ImplItem, ItemFn, Member, Pat, PathArguments, ReturnType,
    Type,
};

use crate::ctxt::Ctxt;
use crate::syntax::{holds_no_float, method_companion, mixed, strip_parens};

/// Whether the function has a parameter marked `#[differentiable]` (the item this pass
/// expands; any other goes straight to the pipeline).
pub fn has_marked(item: &ItemFn) -> bool {
    item.sig.inputs.iter().any(|input| match input {
        FnArg::Typed(typed) => typed.attrs.iter().any(is_mark),
        FnArg::Receiver(receiver) => receiver.attrs.iter().any(is_mark),
    })
}

fn is_mark(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("differentiable")
}

/// The item and its companion of a function or method with marked struct parameters
/// (for a method, both are `impl` items: the companion holds the twin method too).
pub fn parts(args: TokenStream, item: ItemFn) -> (TokenStream, TokenStream) {
    let (model, constant) = match crate::fallback::read_for_twin(&args, &item, read) {
        Ok(read) => read,
        Err(rejected) => return rejected,
    };
    let user_item = stripped(&item);
    let twin = twin(&item, &model);
    // the twin's parameters that are structs passed on whole, for the pipeline
    let whole: Vec<syn::Ident> = model
        .params
        .iter()
        .flatten()
        .flat_map(Marked::passed_whole)
        .map(|(name, _)| name)
        .collect();
    let args = match (whole.is_empty(), args.is_empty()) {
        (true, _) => args,
        (false, true) => quote!(__whole(#(#whole),*)),
        (false, false) => quote!(#args, __whole(#(#whole),*)),
    };
    let (twin_fn, twin_companion) = crate::expand::parts(args, twin);
    let Some(twin_items) = companion_items(&twin_companion, &model) else {
        // the twin's expansion failed: its fallback carries the errors, and its stand-in
        // companion (`fallback::rejected`) stands for the user's function's
        let rejected = crate::fallback::rejected_twin(&item, &twin_companion, &constant);
        return (quote!(#user_item), quote!(#twin_fn #rejected));
    };
    let companion = companion(&user_item, &model, &twin_items);
    crate::fallback::with_twin(&user_item, None, [twin_fn, twin_companion, companion])
}

/// The user's item without the marks (the function as written runs the body as it is).
pub fn stripped(item: &ItemFn) -> ItemFn {
    let mut item = item.clone();
    for input in &mut item.sig.inputs {
        match input {
            FnArg::Typed(typed) => typed.attrs.retain(|attr| !is_mark(attr)),
            FnArg::Receiver(receiver) => receiver.attrs.retain(|attr| !is_mark(attr)),
        }
    }
    item
}

/// What the pass read: the marked parameters, their lifted paths, the float type.
struct Model {
    /// The function's float type (its result's), as written.
    float: Type,
    /// Per parameter of the user's signature, in order: `Some` when marked.
    params: Vec<Option<Marked>>,
    /// Paths read as floats only through `as`: checked to be no float.
    cast_only: Vec<(syn::Ident, Vec<Member>, Span)>,
    /// A method's name (its companion items are associated functions named after it).
    method: Option<syn::Ident>,
}

struct Marked {
    ident: syn::Ident,
    /// The struct's type (`Gaussian` for `&Gaussian` or `Gaussian`).
    ty: Type,
    /// Taken by reference (`&Gaussian`) rather than by value.
    by_ref: bool,
    /// Passed on whole to another annotated function (`dense(layer, x)`): the twin takes
    /// it as a struct passed whole, with a cotangent of its own.
    whole: bool,
    /// The lifted paths, in the order of their first read.
    lifted: Vec<Lifted>,
}

impl Marked {
    /// What the twin takes as structs passed on whole, each its parameter's name and the
    /// struct's type: the parameter itself if it is passed on, then each lifted path that
    /// is (its type named through `FieldType`).
    fn passed_whole(&self) -> Vec<(syn::Ident, Type)> {
        let itself = self.whole.then(|| (self.ident.clone(), self.ty.clone()));
        let paths = self
            .lifted
            .iter()
            .filter(|l| l.whole)
            .map(|l| (l.name.clone(), field_type(&self.ty, &l.path)));
        itself.into_iter().chain(paths).collect()
    }
}

struct Lifted {
    path: Vec<Member>,
    array: bool,
    /// A sub-struct (or any field) passed on whole to another annotated function
    /// (`dense(&model.hidden, x)`): the twin's parameter is `&T`, `T` the field's type
    /// named through `FieldType`, and its cotangent a value of `T`.
    whole: bool,
    /// The twin's parameter.
    name: syn::Ident,
    /// The first read's span: where a check of its type points.
    span: Span,
    /// A float path returned as a field of a struct result of its struct's type
    /// (`Mixed { v: s.v }`, `s: &Mixed`, or crossed, `Mixed { x: s.v, .. }`), the span of
    /// the result's field of its name (`v`), of its type: its value is read and its
    /// gradient added through the result's conversion there (`generated::result_field`),
    /// not through `FloatField` at the read. The two checks hold for the same types, and
    /// the result's companion makes the same one at the same span, so a field of another
    /// type is one message, not one at the read and one at the result's field.
    returned: Option<Span>,
}

/// How one read of a path stands.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Read {
    Constant,
    Cast,
    Float,
    Array,
    /// Passed whole as an argument of a function call (`dense(&m.hidden, x)`, `f(p)`).
    Whole,
}

fn read(cx: &Ctxt, item: &ItemFn) -> Option<Model> {
    let float = float_type(cx, item);
    let mut params = Vec::new();
    let mut marked_names = HashSet::new();
    for input in &item.sig.inputs {
        let typed = match input {
            FnArg::Typed(typed) => typed,
            FnArg::Receiver(receiver) => {
                params.push(marked_receiver(cx, receiver));
                if let Some(marked) = params.last().and_then(Option::as_ref) {
                    marked_names.insert(marked.ident.to_string());
                }
                continue;
            }
        };
        let Some(mark) = typed.attrs.iter().find(|attr| is_mark(attr)) else {
            params.push(None);
            continue;
        };
        if !matches!(mark.meta, syn::Meta::Path(_)) {
            cx.error_spanned_by(
                mark,
                "`#[differentiable]` on a parameter takes no arguments",
            );
        }
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => pat.ident.clone(),
            other => {
                cx.error_spanned_by(
                    other,
                    "a differentiable struct parameter needs a plain name (`p: &Gaussian`): its fields are read through it",
                );
                params.push(None);
                continue;
            }
        };
        let (ty, by_ref) = match &*typed.ty {
            Type::Reference(reference) if reference.mutability.is_some() => {
                cx.error_spanned_by(
                    &typed.ty,
                    "a differentiable struct parameter is read, not written: take it by `&` or by value",
                );
                params.push(None);
                continue;
            }
            Type::Reference(reference) => ((*reference.elem).clone(), true),
            other => (other.clone(), false),
        };
        if !is_struct_type(&ty, &crate::model::sig::float_type_params(item)) {
            cx.error_spanned_by(
                &typed.ty,
                "`#[differentiable]` on a parameter marks a struct of floats (with \
                 `#[derive(Differentiable)]`); float, array and slice parameters are \
                 differentiable without it",
            );
            params.push(None);
            continue;
        }
        marked_names.insert(ident.to_string());
        params.push(Some(Marked {
            ident,
            ty,
            by_ref,
            whole: false,
            lifted: Vec::new(),
        }));
    }
    let mut finder = Finder {
        cx,
        marked: &marked_names,
        struct_params: struct_params(item),
        held: HashMap::new(),
        constant_depth: 0,
        floats: float_names(item, float.as_ref()),
        reads: BTreeMap::new(),
        returned: HashMap::new(),
        erred: HashSet::new(),
        order: Vec::new(),
    };
    finder.visit_block(&item.block);
    let (reads, order, mut erred, returned) =
        (finder.reads, finder.order, finder.erred, finder.returned);
    let mut cast_only = Vec::new();
    let user_names = crate::syntax::names_in(item.to_token_stream());
    let mut taken = user_names.clone();
    for (key, path) in order {
        let (kinds, span) = &reads[&key];
        let param = &key.0;
        let path = &path;
        let arrays = kinds.contains(&Read::Array);
        let floats = kinds.contains(&Read::Float);
        let whole = kinds.contains(&Read::Whole);
        if path.is_empty() {
            // the parameter itself, passed on whole (its only use besides its fields')
            if let Some(marked) = params
                .iter_mut()
                .flatten()
                .find(|m| m.ident == param.as_str())
            {
                marked.whole = true;
            }
            continue;
        }
        if whole && floats {
            erred.insert(param.clone());
            cx.syn_error(syn::Error::new(
                *span,
                format!(
                    "`{param}.{}` is passed whole to a function and read as a float: a \
                     differentiable struct's field is one or the other (pass `{param}.{}` by \
                     value to a float parameter)",
                    path_text(path),
                    path_text(path)
                ),
            ));
            continue;
        }
        // passed whole and also indexed or iterated: an array, passed as one
        let whole = whole && !arrays;
        if arrays && floats {
            erred.insert(param.clone());
            cx.syn_error(syn::Error::new(
                *span,
                format!(
                    "`{param}.{}` is read both as an array (indexed, iterated or borrowed) and as a \
                     float: a differentiable struct's field is one or the other",
                    path_text(path)
                ),
            ));
            continue;
        }
        if !(arrays || floats || whole) {
            if kinds.contains(&Read::Cast) {
                // at the read, resolved as the parameter is declared (the read's first
                // token may be another's: `(p).n`, a field a macro wrote)
                let hygiene = params
                    .iter()
                    .flatten()
                    .find(|m| m.ident == param.as_str())
                    .map_or(*span, |m| m.ident.span());
                let ident = syn::Ident::new(param, span.resolved_at(hygiene));
                cast_only.push((ident, path.clone(), *span));
            }
            continue;
        }
        let mut name = format!("{param}_{}", path_text(path).replace('.', "_"));
        while taken.contains(&name) {
            name.push_str("_g");
        }
        taken.insert(name.clone());
        let marked = params
            .iter_mut()
            .flatten()
            .find(|m| m.ident == param.as_str())
            .expect("a marked parameter");
        // Declared where its reads can see it. A `macro_rules!` whose caller names `self`
        // or `p`, or gives the body, gives those the caller's hygiene and the attribute the
        // macro's (rustc E0425 "cannot find value `self_rate` in this scope"), so every
        // read of a lifted path resolves as the path is declared (`read_of`). A float or an
        // array is declared at the attribute (where a message about the parameter points),
        // resolved as the marked parameter's own name. A field passed on whole is declared
        // at the marked parameter's type: the generated code's uses of it name the field's
        // type (`FieldType`), and where the struct names none their messages are then the
        // one already at that type, not one more at the attribute (with another hygiene)
        // or at the read.
        let declared = if whole {
            marked.ty.span()
        } else {
            Span::call_site().resolved_at(marked.ident.span())
        };
        marked.lifted.push(Lifted {
            path: path.clone(),
            array: arrays,
            whole,
            name: syn::Ident::new(&name, declared),
            span: *span,
            returned: returned.get(&key).copied().filter(|_| !arrays && !whole),
        });
    }
    for marked in params.iter().flatten() {
        if marked.lifted.is_empty() && !marked.whole && !erred.contains(&marked.ident.to_string()) {
            cx.error_spanned_by(
                &marked.ident,
                format!(
                    "the body reads no field of `{}` as a float or an array, so it has no gradient: \
                     drop `#[differentiable]` from it",
                    marked.ident
                ),
            );
        }
    }
    Some(Model {
        float: float?,
        params,
        cast_only,
        method: item.sig.receiver().map(|_| item.sig.ident.clone()),
    })
}

/// A method's `self` marked `#[differentiable]` (`&self` or `self`, of the `impl`'s type),
/// or `None` when unmarked (a constant, as in every method) or rejected.
fn marked_receiver(cx: &Ctxt, receiver: &syn::Receiver) -> Option<Marked> {
    let mark = receiver.attrs.iter().find(|attr| is_mark(attr))?;
    if !matches!(mark.meta, syn::Meta::Path(_)) {
        cx.error_spanned_by(mark, "`#[differentiable]` on `self` takes no arguments");
    }
    let by_ref = match &receiver.kind {
        syn::ReceiverKind::Reference(_, _, Some(_)) => {
            cx.error_spanned_by(
                receiver,
                "a differentiable `self` is read, not written: take it by `&self` or `self`",
            );
            return None;
        }
        syn::ReceiverKind::Reference(_, _, None) => true,
        syn::ReceiverKind::Value => false,
        _ => {
            cx.error_spanned_by(
                receiver,
                "a differentiable `self` is written `&self` or `self` (its type is the `impl`'s)",
            );
            return None;
        }
    };
    Some(Marked {
        ident: syn::Ident::from(receiver.self_token),
        ty: syn::parse_quote_spanned!(receiver.self_token.span=> Self),
        by_ref,
        whole: false,
        lifted: Vec::new(),
    })
}

/// The function's float type: its result's, a float type or a float type parameter, or
/// that of every part of a tuple result (a struct result's twin returns one, `results`), or
/// for a writer (no result) that of a float array it takes `&mut`.
fn float_type(cx: &Ctxt, item: &ItemFn) -> Option<Type> {
    let floats = crate::model::sig::float_type_params(item);
    let is_float = |ty: &Type| {
        matches!(ty, Type::Path(path) if path.path.get_ident()
            .is_some_and(|ident| ident == "f32" || ident == "f64" || floats.contains(ident)))
    };
    if let ReturnType::Type(_, ty) = &item.sig.output {
        if is_float(ty) {
            return Some((**ty).clone());
        }
        if let Type::Tuple(tuple) = &**ty
            && let Some(first) = tuple.elems.first()
            && tuple.elems.iter().all(|part| {
                is_float(part)
                    && part.to_token_stream().to_string() == first.to_token_stream().to_string()
            })
        {
            return Some(first.clone());
        }
    }
    // a writer (no result): the element type of the float arrays it writes, whose values
    // the struct's gradient is taken of
    let unit = match &item.sig.output {
        ReturnType::Default => true,
        ReturnType::Type(_, ty) => matches!(&**ty, Type::Tuple(tuple) if tuple.elems.is_empty()),
    };
    if unit {
        let written = item.sig.inputs.iter().find_map(|input| {
            let FnArg::Typed(typed) = input else {
                return None;
            };
            let Type::Reference(reference) = &*typed.ty else {
                return None;
            };
            reference.mutability?;
            crate::model::sig::float_array_or_rows(&reference.elem, &floats)
                .map(|(_, _, elem)| elem)
                .or_else(|| crate::model::sig::float_ragged_rows(&reference.elem, &floats))
                .cloned()
        });
        if written.is_some() {
            return written;
        }
    }
    let message = "a function with a differentiable struct parameter returns a float (`f64`, \
         `f32`, or its float type parameter), a tuple of that float, or a struct of floats, or \
         writes a float array (`out: &mut [f64]`) and returns nothing: the struct's gradient is \
         taken of that value";
    match &item.sig.output {
        // no result type to point at: the function's name
        ReturnType::Default => cx.error_spanned_by(&item.sig.ident, message),
        output => cx.error_spanned_by(output, message),
    }
    None
}

/// The names that spell a float type in this function: `f32`, `f64`, its float type
/// parameters (a `let` typed with one reads a field as a float).
/// The name a place is rooted at: `s` of `s`, `s.a.b`, `(s.a)`.
fn place_root(expr: &Expr) -> Option<&syn::Ident> {
    let mut expr = strip_parens(expr);
    while let Expr::Field(field) = expr {
        expr = strip_parens(&field.base);
    }
    crate::syntax::single_ident(expr)
}

/// The parameters no slice method taking an array can be called on (`Finder::struct_params`),
/// marked or not.
fn struct_params(item: &ItemFn) -> HashSet<String> {
    let type_params = crate::model::sig::type_params(item);
    // a type that may be an iterator: a type parameter, an `impl Trait`, the standard
    // library's iterators by their names
    let may_iterate = |ty: &Type| match ty {
        Type::Path(path) => path.path.segments.last().is_some_and(|last| {
            type_params.contains(&last.ident)
                || ITERATOR_TYPES.contains(&last.ident.to_string().as_str())
        }),
        _ => true,
    };
    item.sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Receiver(receiver) => {
                let by_value = receiver.mutability.is_none()
                    && matches!(crate::model::sig::receiver_type(receiver), Type::Path(_));
                let shared = matches!(crate::model::sig::receiver_type(receiver), Type::Reference(r) if r.mutability.is_none());
                (shared || by_value).then(|| "self".to_string())
            }
            FnArg::Typed(typed) => match (&*typed.pat, &*typed.ty) {
                (Pat::Ident(pat), Type::Reference(r)) if r.mutability.is_none() => {
                    Some(pat.ident.to_string())
                }
                (Pat::Ident(pat), ty) if pat.mutability.is_none() && !may_iterate(ty) => {
                    Some(pat.ident.to_string())
                }
                _ => None,
            },
        })
        .collect()
}

fn float_names(item: &ItemFn, float: Option<&Type>) -> HashSet<String> {
    let mut names: HashSet<String> = ["f32", "f64"].map(String::from).into();
    names.extend(
        crate::model::sig::float_type_params(item)
            .iter()
            .map(ToString::to_string),
    );
    if let Some(float) = float {
        names.insert(float.to_token_stream().to_string());
    }
    names
}

/// A type that may be a struct: a path, not a float (nor a float type parameter), an
/// integer, `bool` or a known container.
pub fn is_struct_type(ty: &Type, float_params: &[syn::Ident]) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    !(crate::syntax::names_no_float(&last.ident)
        || matches!(
            last.ident.to_string().as_str(),
            "f32" | "f64" | "Vec" | "Tensor" | "Variable" | "Option" | "Box"
        ))
        && path
            .path
            .get_ident()
            .is_none_or(|ident| !float_params.contains(ident))
}

fn path_text(path: &[Member]) -> String {
    path.iter()
        .map(|member| match member {
            Member::Named(ident) => ident.to_string(),
            Member::Unnamed(index) => index.index.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The marked parameter and field path `expr` reads (`p.layer.w` gives `p`, `[layer, w]`).
fn field_chain(expr: &Expr, marked: &HashSet<String>) -> Option<(String, Vec<Member>)> {
    let mut path = Vec::new();
    let mut expr = strip_parens(expr);
    while let Expr::Field(field) = expr {
        path.push(field.member.clone());
        expr = strip_parens(&field.base);
    }
    if path.is_empty() {
        return None;
    }
    let ident = crate::syntax::single_ident(expr)?;
    let name = ident.to_string();
    if !marked.contains(&name) {
        return None;
    }
    path.reverse();
    Some((name, path))
}

/// The methods of a float array that read it (a receiver of one is an array).
const ARRAY_METHODS: &[&str] = &[
    "iter",
    "len",
    "is_empty",
    "windows",
    "chunks",
    "chunks_exact",
    "first",
    "last",
    "to_vec",
    "as_slice",
    "into_iter",
];

/// Whether a method of a float (or of a value of the body) reads its receiver as a value:
/// the float methods with rules (`exp`, `max`, `mul_add`, the rounding family), `clone`,
/// and the methods the lowering knows as metadata, escapes or stores. Any other method of
/// a field is another annotated method's call, its receiver passed on whole.
fn is_value_method(name: &str) -> bool {
    use crate::vocabulary;
    vocabulary::elementwise(name).is_some()
        || vocabulary::binary_method(name, true).is_some()
        || vocabulary::binary_method(name, false).is_some()
        || vocabulary::has_no_gradient(name)
        || vocabulary::is_metadata(name)
        || vocabulary::is_escape(name)
        || vocabulary::stores_argument(name)
        || INTEGER_ARGUMENT_METHODS.contains(&name)
        || matches!(
            name,
            "mul_add"
                | "clamp"
                | "fract"
                | "copysign"
                | "clone"
                | "to_owned"
                | "into"
                | "is_nan"
                | "is_finite"
                | "is_sign_negative"
                | "is_sign_positive"
                | "to_bits"
        )
}

/// Whether `name` is a method of `f32`/`f64` (`sin_cos`, `total_cmp`): a receiver of one
/// is a float, never a struct.
fn is_float_method(name: &str) -> bool {
    crate::rewrite::FLOAT_METHODS.contains(&name)
        || matches!(
            name,
            "total_cmp" | "partial_cmp" | "to_string" | "eq" | "ne" | "lt" | "le" | "gt" | "ge"
        )
}

/// Methods of the standard library that take an array as an argument (`a.iter().zip(&p.w)`,
/// `out.copy_from_slice(&p.w)`): a field given to one is an array read, not a struct (or
/// array) passed on whole to another annotated method, unless the receiver is a
/// differentiable struct or the argument a marked struct itself (then the method is the
/// user's, `Finder::visit_expr`). (Those that store their argument, `extend_from_slice`,
/// are value methods.)
const SLICE_ARGUMENT_METHODS: &[&str] = &["zip", "chain", "copy_from_slice", "clone_from_slice"];

/// Functions whose result is an iterator (`std::iter::repeat(x)`): a local bound to one may
/// be given to a slice method (`SLICE_ARGUMENT_METHODS`), and is not `Finder::held`.
const ITERATOR_SOURCES: &[&str] = &[
    "repeat",
    "repeat_n",
    "repeat_with",
    "successors",
    "from_fn",
    "once",
    "once_with",
    "empty",
    "zip",
    "chain",
];

/// The standard library's iterator types by name (`Range<usize>`): a parameter of one may
/// be given to `zip` or `chain`.
const ITERATOR_TYPES: &[&str] = &[
    "Range",
    "RangeInclusive",
    "RangeFrom",
    "Iter",
    "IterMut",
    "IntoIter",
    "Map",
    "Zip",
    "Chain",
    "Rev",
    "Take",
    "Skip",
    "StepBy",
    "Enumerate",
    "Copied",
    "Cloned",
    "Repeat",
    "Windows",
    "Chunks",
];

/// Methods whose result is an iterator (beside `ARRAY_METHODS`): not `Finder::held`.
const ITERATOR_METHODS: &[&str] = &[
    "iter_mut",
    "map",
    "rev",
    "skip",
    "take",
    "step_by",
    "cycle",
    "copied",
    "cloned",
    "enumerate",
    "zip",
    "chain",
    "filter",
    "filter_map",
    "flat_map",
    "scan",
    "take_while",
    "skip_while",
    "peekable",
    "by_ref",
];

/// Methods whose arguments are counts or indices: a field read there is a constant read.
const INTEGER_ARGUMENT_METHODS: &[&str] = &[
    "powi",
    "take",
    "skip",
    "step_by",
    "nth",
    "get",
    "windows",
    "chunks",
    "chunks_exact",
    "swap",
    "truncate",
    "reserve",
    "split_at",
    "rotate_left",
    "rotate_right",
];

/// A marked parameter's name and a path's text (`p`, `layer.w`).
type Key = (String, String);

struct Finder<'a> {
    cx: &'a Ctxt,
    marked: &'a HashSet<String>,
    /// The parameters no slice method taking an array (`SLICE_ARGUMENT_METHODS`) can be
    /// called on, nor on a field of one: taken by shared borrow (`well: &Well`, `&self`:
    /// `zip` and `chain` take their iterator by value, `copy_from_slice` writes), or by
    /// value, not `mut`, of a type that is no iterator (`s: Pair`).
    struct_params: HashSet<String>,
    /// The locals bound to what `zip` and `chain` (which need an iterator) cannot be called
    /// on: a function's result that is no iterator source (`let s = step(x)`), a method's
    /// of such a value or of a differentiable struct (`let t = s.advance(dt)`), a copy of
    /// one; and whether the binding is `mut` (`copy_from_slice` can only be called on
    /// one: a `mut` local may be a `Vec` a function returned).
    held: HashMap<String, bool>,
    /// Above 0 inside an index, a range, a condition, a comparison, an integer cast or a
    /// `let` typed with a non-float.
    constant_depth: usize,
    floats: HashSet<String>,
    reads: BTreeMap<Key, (Vec<Read>, Span)>,
    /// The paths returned as a field of a struct result of their struct's type (`v: s.v`,
    /// `x: s.v`, `results::result_read_value`), with the span of the result's field of
    /// their name: their check is
    /// the result's conversion there (`Lifted::returned`).
    returned: HashMap<Key, Span>,
    /// The marked parameters an error was reported about (no second "reads no field").
    erred: HashSet<String>,
    /// The keys in the order of their first read, with their paths.
    order: Vec<(Key, Vec<Member>)>,
}

impl Finder<'_> {
    fn note(&mut self, (param, path): (String, Vec<Member>), read: Read, span: Span) {
        let key = (param, path_text(&path));
        let read = if self.constant_depth > 0 && read != Read::Array {
            Read::Constant
        } else {
            read
        };
        let entry = self.reads.entry(key.clone()).or_insert_with(|| {
            self.order.push((key, path));
            (Vec::new(), span)
        });
        // the span a check points at: the first read that decides the kind
        if read > Read::Constant && !entry.0.iter().any(|r| *r > Read::Constant) {
            entry.1 = span;
        }
        entry.0.push(read);
    }

    fn constant<T>(&mut self, visit: impl FnOnce(&mut Self) -> T) -> T {
        self.constant_depth += 1;
        let result = visit(self);
        self.constant_depth -= 1;
        result
    }

    /// A field read at `expr` (`Some`), noted as `read`.
    fn field(&mut self, expr: &Expr, read: Read) -> bool {
        match field_chain(expr, self.marked) {
            Some(key) => {
                self.note(key, read, expr.span());
                true
            }
            None => false,
        }
    }

    /// A write to `target` (an assignment's left side): rejected if it is a marked
    /// parameter's field or element.
    fn check_write(&mut self, target: &Expr) {
        let mut place = strip_parens(target);
        while let Expr::Index(index) = place {
            place = strip_parens(&index.expr);
        }
        if let Some((param, path)) = field_chain(place, self.marked) {
            self.erred.insert(param.clone());
            self.cx.error_spanned_by(
                target,
                format!(
                    "`{param}.{}` is a differentiable struct parameter's field, which the body \
                     reads but may not write: copy it into a local first",
                    path_text(&path)
                ),
            );
        }
    }

    /// Whether `receiver` is a place the slice method `method` cannot be called on: a
    /// parameter of `struct_params` or a field of one, a marked struct, a local `held`
    /// (not `mut`, for a method that writes, `copy_from_slice`).
    fn on_a_struct_value(&self, receiver: &Expr, method: &str) -> bool {
        let writes = !matches!(method, "zip" | "chain");
        place_root(receiver).is_some_and(|ident| {
            let name = ident.to_string();
            self.struct_params.contains(&name)
                || self.marked.contains(&name)
                || self
                    .held
                    .get(&name)
                    .is_some_and(|&mutable| !(writes && mutable))
        })
    }

    /// Whether a `let`'s value is one a local is `held` for.
    fn struct_value(&self, value: &Expr) -> bool {
        match strip_parens(value) {
            Expr::Call(call) => matches!(&*call.func, Expr::Path(path)
            if path.path.segments.last().is_some_and(|last| {
                !ITERATOR_SOURCES.contains(&last.ident.to_string().as_str())
            })),
            Expr::MethodCall(call) => {
                let name = call.method.to_string();
                !ARRAY_METHODS.contains(&name.as_str())
                    && !ITERATOR_METHODS.contains(&name.as_str())
                    && self.on_a_struct_value(&call.receiver, "zip")
            }
            value => {
                place_root(value).is_some_and(|ident| self.held.contains_key(&ident.to_string()))
            }
        }
    }

    /// Whether `value` is a marked parameter itself (`p`, `&p`), not a field of one.
    fn is_marked(&self, value: &Expr) -> bool {
        let (inner, _) = crate::syntax::strip_shared_borrow(value);
        crate::syntax::single_ident(inner)
            .is_some_and(|ident| self.marked.contains(&ident.to_string()))
    }

    /// A value passed on whole, noted as such (`true`): a marked parameter (`p`, `&p`, as a
    /// call's argument or another method's receiver), or a field path passed by reference
    /// (`&p.layer`) or as a receiver (`p.layer.forward(x)`). A field passed by value
    /// (`f(p.mu)`) is a float's read, as in arithmetic.
    fn passed_whole(&mut self, value: &Expr, receiver: bool) -> bool {
        let (inner, borrowed) = crate::syntax::strip_shared_borrow(value);
        if let Some(ident) = crate::syntax::single_ident(inner)
            && self.marked.contains(&ident.to_string())
        {
            // in a condition: the "used whole" error, from the path's visit
            if self.constant_depth > 0 {
                return false;
            }
            self.note((ident.to_string(), Vec::new()), Read::Whole, value.span());
            return true;
        }
        (borrowed || receiver) && self.field(inner, Read::Whole)
    }

    /// An element of an array field used as a struct, the receiver of a method that is no
    /// float's (`m.layers[i].forward(h)`, `layer.forward(h)` of `for layer in &m.layers`):
    /// an array of structs inside the struct, which is not differentiated (its lifted
    /// parameter would be a float array's). The macro's message at `at`, the array's read,
    /// not rustc's "no method named `forward` found for `f64`" in the twin.
    fn struct_elements(&mut self, (param, path): (String, Vec<Member>), at: &Expr) {
        self.erred.insert(param.clone());
        self.cx.error_spanned_by(
            at,
            format!(
                "`{param}.{}` holds structs (its element is a method's receiver): \
                 #[differentiable] does not differentiate arrays or `Vec`s of structs \
                 inside a differentiable struct; give each struct a field of its own \
                 (`first: Layer, second: Layer`, or `Box<Layer>`)",
                path_text(&path)
            ),
        );
    }

    /// The array field a `for` loop's source iterates (`&m.layers`, `m.layers.iter()`).
    fn iterated_field(&self, source: &Expr) -> Option<(String, Vec<Member>)> {
        let (inner, _) = crate::syntax::strip_shared_borrow(source);
        match strip_parens(inner) {
            Expr::MethodCall(call) if call.method == "iter" && call.args.is_empty() => {
                field_chain(&call.receiver, self.marked)
            }
            inner => field_chain(inner, self.marked),
        }
    }

    fn is_float_type(&self, ty: &Type) -> bool {
        self.floats.contains(&ty.to_token_stream().to_string())
    }

    /// An `if`'s or `while`'s condition: a constant, but for a `let` in it whose pattern
    /// binds a value (`if let Some(v) = ..`), which is read as any value is.
    fn condition(&mut self, cond: &Expr) {
        match strip_parens(cond) {
            Expr::Let(expr_let) if pattern_binds(&expr_let.pat) => {
                self.visit_pat(&expr_let.pat);
                self.visit_expr(&expr_let.expr);
            }
            Expr::Binary(binary) if matches!(binary.op, BinOp::And(_)) => {
                // a chain of `let`s and conditions
                self.condition(&binary.left);
                self.condition(&binary.right);
            }
            cond => self.constant(|this| this.visit_expr(cond)),
        }
    }
}

/// Whether `name` is the receiver of a method that is no float's in `block`
/// (`layer.forward(h)`): a struct, not a float.
fn receives_a_method(block: &syn::Block, name: &syn::Ident) -> bool {
    struct Receives<'n>(&'n syn::Ident, bool);
    impl<'ast> Visit<'ast> for Receives<'_> {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let name = call.method.to_string();
            if !is_value_method(&name)
                && !ARRAY_METHODS.contains(&name.as_str())
                && !is_float_method(&name)
                && crate::syntax::single_ident(strip_parens(&call.receiver))
                    .is_some_and(|ident| ident == self.0)
            {
                self.1 = true;
            }
            visit::visit_expr_method_call(self, call);
        }
    }
    let mut receives = Receives(name, false);
    receives.visit_block(block);
    receives.1
}

/// Whether a pattern binds a name (a value flows out of what it matches): an identifier
/// that is no constant or unit variant (those start uppercase: `None`, `MAX`), anywhere in it.
fn pattern_binds(pat: &Pat) -> bool {
    struct Binds(bool);
    impl<'ast> Visit<'ast> for Binds {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            if !crate::syntax::starts_uppercase(&pat.ident) || pat.subpat.is_some() {
                self.0 = true;
            }
            visit::visit_pat_ident(self, pat);
        }
        // a range's or literal's expressions bind nothing
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut binds = Binds(false);
    binds.visit_pat(pat);
    binds.0
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if let Expr::MethodCall(call) = expr
            && let Some((value, span)) = crate::results::result_read_value(call)
            && let Some((param, path)) = field_chain(strip_parens(value), self.marked)
        {
            let key = (param, path_text(&path));
            self.returned.entry(key).or_insert(span);
        }
        match expr {
            Expr::Field(_) if self.field(expr, Read::Float) => {}
            Expr::Field(field)
                if matches!(strip_parens(&field.base), Expr::MethodCall(call)
                    if field_chain(&call.receiver, self.marked).is_some()) =>
            {
                // `p.inner.clone().b`: a part of the struct used whole
                let Expr::MethodCall(call) = strip_parens(&field.base) else {
                    unreachable!("matched above");
                };
                let (param, path) = field_chain(&call.receiver, self.marked).expect("matched");
                self.erred.insert(param.clone());
                self.cx.error_spanned_by(
                    &call.receiver,
                    format!(
                        "`{param}.{}` is used whole (a method call whose result's field is read): \
                         read the fields of a differentiable struct parameter directly \
                         (`{param}.{}.field`)",
                        path_text(&path),
                        path_text(&path)
                    ),
                );
            }
            Expr::Path(path) => {
                if let Some(ident) = path.path.get_ident()
                    && path.qself.is_none()
                    && self.marked.contains(&ident.to_string())
                {
                    self.erred.insert(ident.to_string());
                    self.cx.error_spanned_by(
                        expr,
                        format!(
                            "`{ident}` is a differentiable struct parameter: the body reads it by \
                             field (`{ident}.mu`, `{ident}.w[i]`), not whole (a call's argument, a \
                             method's receiver, a copy), whose gradient the generated code could \
                             not follow; read the fields it needs and pass those"
                        ),
                    );
                }
            }
            Expr::Index(index) => {
                if !self.field(&index.expr, Read::Array) {
                    self.visit_expr(&index.expr);
                }
                self.constant(|this| this.visit_expr(&index.index));
            }
            Expr::MethodCall(call) => {
                let name = call.method.to_string();
                let read = if ARRAY_METHODS.contains(&name.as_str()) {
                    Read::Array
                } else if is_value_method(&name) {
                    Read::Float
                } else {
                    // `m.hidden.forward(x)`: another annotated method's receiver
                    Read::Whole
                };
                let element = match strip_parens(&call.receiver) {
                    Expr::Index(index)
                        if read == Read::Whole
                            && self.constant_depth == 0
                            && !is_float_method(&name) =>
                    {
                        field_chain(&index.expr, self.marked)
                    }
                    _ => None,
                };
                let noted = if let Some(array) = element {
                    self.struct_elements(array, &call.receiver);
                    true
                } else if read == Read::Whole {
                    self.passed_whole(&call.receiver, true)
                } else {
                    self.field(&call.receiver, read)
                };
                if !noted {
                    self.visit_expr(&call.receiver);
                }
                let counts = INTEGER_ARGUMENT_METHODS.contains(&name.as_str());
                // `well.energy(&p, x)`, `well.energy(&p.state, x)`: a struct (or a field
                // of one) given whole to another annotated method, as to a function. A
                // method named like a slice method taking an array (`zip`, ..) is the
                // user's where no slice method could be: on a differentiable struct (the
                // receiver passed whole, `p.zip(&q)`), on a shared borrow parameter
                // (`well.zip(&m.pair)`), or on a name given a marked struct itself (`s.zip(
                // &q)`, `s` a struct result: no slice method takes one; an iterator chain
                // given one, `a.iter().zip(q)`, stays a struct used whole).
                let slice_named = SLICE_ARGUMENT_METHODS.contains(&name.as_str());
                let users = read == Read::Whole
                    && (noted || !slice_named || self.on_a_struct_value(&call.receiver, &name));
                let on_a_place = place_root(&call.receiver).is_some();
                for arg in &call.args {
                    let passes_on =
                        users || (read == Read::Whole && on_a_place && self.is_marked(arg));
                    if counts {
                        self.constant(|this| this.visit_expr(arg));
                    } else if !(passes_on && self.passed_whole(arg, false)) {
                        self.visit_expr(arg);
                    }
                }
            }
            Expr::Reference(reference) => {
                if !self.field(&reference.expr, Read::Array) {
                    self.visit_expr(&reference.expr);
                }
            }
            Expr::ForLoop(for_loop)
                if matches!(&*for_loop.pat, Pat::Ident(_))
                    && self.iterated_field(&for_loop.expr).is_some() =>
            {
                let Pat::Ident(pat) = &*for_loop.pat else {
                    unreachable!("matched above");
                };
                if receives_a_method(&for_loop.body, &pat.ident) {
                    let array = self.iterated_field(&for_loop.expr).expect("matched above");
                    self.struct_elements(array, &for_loop.expr);
                    self.visit_block(&for_loop.body);
                } else {
                    visit::visit_expr(self, expr);
                }
            }
            Expr::Range(_) => self.constant(|this| visit::visit_expr(this, expr)),
            Expr::Repeat(repeat) => {
                self.visit_expr(&repeat.expr);
                self.constant(|this| this.visit_expr(&repeat.len));
            }
            Expr::Call(call)
                if matches!(&*call.func, Expr::Path(path)
                    if path.path.segments.last().is_some_and(|s| s.ident == "with_capacity")) =>
            {
                self.constant(|this| visit::visit_expr(this, expr));
            }
            Expr::Call(call)
                if matches!(&*call.func, Expr::Path(path)
                    if !crate::syntax::is_constructor(&path.path)) =>
            {
                // a struct (or a field of one) passed whole to another annotated function
                self.visit_expr(&call.func);
                for arg in &call.args {
                    if !self.passed_whole(arg, false) {
                        self.visit_expr(arg);
                    }
                }
            }
            Expr::Cast(cast) => {
                if self.is_float_type(&cast.ty) {
                    if !self.field(&cast.expr, Read::Cast) {
                        self.visit_expr(&cast.expr);
                    }
                } else if holds_no_float(&cast.ty) {
                    self.constant(|this| this.visit_expr(&cast.expr));
                } else {
                    // a type it cannot tell from a float's by its spelling (an alias):
                    // read as a value, which the field's check keeps honest
                    self.visit_expr(&cast.expr);
                }
            }
            Expr::Binary(binary) if is_comparison(&binary.op) => {
                self.constant(|this| visit::visit_expr(this, expr));
            }
            Expr::Binary(binary) if crate::syntax::is_compound_assign(&binary.op) => {
                self.check_write(&binary.left);
                visit::visit_expr(self, expr);
            }
            Expr::Assign(assign) => {
                self.check_write(&assign.left);
                visit::visit_expr(self, expr);
            }
            Expr::If(expr_if) => {
                self.condition(&expr_if.cond);
                self.visit_block(&expr_if.then_branch);
                if let Some((_, otherwise)) = &expr_if.else_branch {
                    self.visit_expr(otherwise);
                }
            }
            Expr::While(expr_while) => {
                self.condition(&expr_while.cond);
                self.visit_block(&expr_while.body);
            }
            Expr::Match(expr_match) => {
                // compared with the arms' patterns, a constant; bound by one, a value
                if expr_match.arms.iter().any(|arm| pattern_binds(&arm.pat)) {
                    self.visit_expr(&expr_match.expr);
                } else {
                    self.constant(|this| this.visit_expr(&expr_match.expr));
                }
                for arm in &expr_match.arms {
                    match &arm.pat {
                        Pat::Guard(guarded) => {
                            self.visit_pat(&guarded.pat);
                            self.constant(|this| this.visit_expr(&guarded.guard));
                        }
                        pat => self.visit_pat(pat),
                    }
                    self.visit_expr(&arm.body);
                }
            }
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        self.visit_pat(&local.pat);
        let Some(init) = &local.init else {
            return;
        };
        // only a type that holds no float by its spelling makes the value a constant (an
        // alias, a tuple or an array of floats would not)
        let constant = matches!(&local.pat, Pat::Type(typed) if holds_no_float(&typed.ty));
        if constant {
            self.constant(|this| this.visit_expr(&init.expr));
        } else {
            self.visit_expr(&init.expr);
        }
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
        let bound = match &local.pat {
            Pat::Type(typed) => &*typed.pat,
            pat => pat,
        };
        if let Pat::Ident(pat) = bound {
            let name = pat.ident.to_string();
            if pat.by_ref.is_none() && self.struct_value(&init.expr) {
                self.held.insert(name, pat.mutability.is_some());
            } else {
                self.held.remove(&name);
            }
        }
    }

    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        if self.marked.contains(&pat.ident.to_string()) {
            self.cx.error_spanned_by(
                &pat.ident,
                format!(
                    "this binding shadows the differentiable struct parameter `{}`: give it another name",
                    pat.ident
                ),
            );
        }
        visit::visit_pat_ident(self, pat);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = crate::syntax::last_segment(&mac.path);
        if name == "vec" {
            // `vec![p.mu; n]`, `vec![p.a, p.b]`: an array expression, as lowering reads it
            let tokens = &mac.tokens;
            if let Ok(array) = syn::parse2::<Expr>(quote!([#tokens])) {
                self.visit_expr(&array);
                return;
            }
        }
        let mentions = crate::syntax::names_in(mac.tokens.clone());
        if let Some(param) = self.marked.iter().find(|name| mentions.contains(*name)) {
            if crate::validate::HARMLESS_MACROS.contains(&name.as_str()) {
                // reads only: its fields' values are constants there, and the twin still
                // takes the parameter
                return;
            }
            self.erred.insert(param.clone());
            self.cx.error_spanned_by(
                mac,
                format!(
                    "a differentiable struct parameter's fields are read inside `{name}!`, whose \
                     arguments the macro cannot follow: bind them first (`let mu = {param}.mu;`) \
                     and pass the local"
                ),
            );
        }
    }

    // a nested item is its own scope
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn is_comparison(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
    )
}

/// The twin's name: `__gradtape_fields_{name}`.
fn twin_name(item: &ItemFn) -> syn::Ident {
    twin_ident(&item.sig.ident)
}

fn twin_ident(name: &syn::Ident) -> syn::Ident {
    format_ident!("__gradtape_fields_{}", name)
}

/// The twin: the user's parameters (a marked one by reference, unmarked), then one per
/// lifted path, and the body reading those.
fn twin(item: &ItemFn, model: &Model) -> ItemFn {
    let mut twin = stripped(item);
    twin.sig.ident = twin_name(item);
    twin.vis = syn::Visibility::Inherited;
    twin.attrs
        .retain(|attr| !attr.path().is_ident("doc") && !attr.path().is_ident("must_use"));
    let float = &model.float;
    for (input, marked) in twin.sig.inputs.iter_mut().zip(&model.params) {
        if let (FnArg::Receiver(receiver), Some(_)) = (&mut *input, marked) {
            // `self` by value taken by reference, as a struct parameter is: nothing is
            // written through it
            if matches!(receiver.kind, syn::ReceiverKind::Value) {
                receiver.kind = syn::ReceiverKind::Reference(Default::default(), None, None);
                receiver.mutability = None;
            }
            continue;
        }
        if let (FnArg::Typed(typed), Some(_)) = (&mut *input, marked) {
            // every read of it may be lifted
            typed
                .attrs
                .push(syn::parse_quote!(#[allow(unused_variables)]));
        }
        if let (FnArg::Typed(typed), Some(marked)) = (input, marked)
            && !marked.by_ref
        {
            let ty = &marked.ty;
            *typed.ty = syn::parse_quote!(&#ty);
            // `mut p: S` taken by reference: nothing is written through it
            if let Pat::Ident(pat) = &mut *typed.pat {
                pat.mutability = None;
            }
        }
    }
    for marked in model.params.iter().flatten() {
        for lifted in &marked.lifted {
            let name = &lifted.name;
            let input: FnArg = if lifted.whole {
                let ty = field_type(&marked.ty, &lifted.path);
                syn::parse_quote!(#name: &#ty)
            } else if lifted.array {
                syn::parse_quote!(#name: &[#float])
            } else {
                syn::parse_quote!(#name: #float)
            };
            twin.sig.inputs.push(input);
        }
    }
    // a struct passed on whole in generic code: its gradient is summed, so its type is
    // `Differentiable` (the user's items are bound so too)
    let type_params: HashSet<String> = twin
        .sig
        .generics
        .type_params()
        .map(|param| param.ident.to_string())
        .collect();
    for marked in model.params.iter().flatten() {
        for (_, ty) in marked.passed_whole() {
            let mentions = crate::syntax::names_in(ty.to_token_stream());
            if mentions
                .iter()
                .any(|name| type_params.contains(name) || name == "Self")
            {
                let private = crate::generate::paths::private();
                twin.sig
                    .generics
                    .make_where_clause()
                    .predicates
                    .push(syn::parse_quote!(#ty: #private::Differentiable));
            }
        }
    }
    let mut lifted = BTreeMap::new();
    let mut whole = BTreeMap::new();
    for marked in model.params.iter().flatten() {
        for path in &marked.lifted {
            let key = (marked.ident.to_string(), path_text(&path.path));
            // an array's parameter is a reference already (`&[F]`), as is one passed whole
            if path.whole || path.array {
                whole.insert(key.clone(), path.name.clone());
            }
            lifted.insert(key, path.name.clone());
        }
    }
    let marked = model
        .params
        .iter()
        .flatten()
        .map(|m| m.ident.to_string())
        .collect();
    Replace {
        lifted: &lifted,
        whole: &whole,
        marked: &marked,
    }
    .visit_block_mut(&mut twin.block);
    twin
}

/// The type of the field at `path` of a struct of type `ty`, named through the derive's
/// `FieldType` impls: `<<M as FieldType<K1>>::Type as FieldType<K2>>::Type` for `m.a.b`.
fn field_type(ty: &Type, path: &[Member]) -> Type {
    let private = crate::generate::paths::private();
    path.iter().fold(ty.clone(), |ty, member| {
        let key = crate::syntax::field_key(member);
        syn::parse_quote!(<#ty as #private::FieldType<#key>>::Type)
    })
}

/// A read of the lifted parameter `name` in place of the user's field read at `at`: at the
/// user's span (an error about the value, a type or a borrow, points at the field), and
/// resolved as the parameter is declared (`read`): for a float or an array, as the marked
/// parameter's own name; for a field passed on whole, as the parameter's type.
fn read_of(name: &syn::Ident, at: Span) -> syn::Ident {
    syn::Ident::new(&name.to_string(), at.resolved_at(name.span()))
}

struct Replace<'a> {
    lifted: &'a BTreeMap<Key, syn::Ident>,
    /// The lifted paths whose parameter is a reference: those passed on whole, and arrays
    /// (`&[F]`), so that `&p.w` is the parameter itself, not a `&&[F]` (which is no
    /// iterator: `x.iter().zip(&p.w)`).
    whole: &'a BTreeMap<Key, syn::Ident>,
    marked: &'a HashSet<String>,
}

impl VisitMut for Replace<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `&m.hidden` passed whole, or `&p.w` of an array: the lifted parameter is the
        // reference itself (a `&[F; N]` field then unsizes to a slice parameter, which
        // `&&[F; N]` would not)
        if let Expr::Reference(reference) = &*expr
            && reference.mutability.is_none()
            && let Some((param, path)) = field_chain(&reference.expr, self.marked)
            && let Some(name) = self.whole.get(&(param, path_text(&path)))
        {
            let name = read_of(name, expr.span());
            *expr = syn::parse_quote!(#name);
            return;
        }
        if let Some((param, path)) = field_chain(expr, self.marked)
            && let Some(name) = self.lifted.get(&(param, path_text(&path)))
        {
            let name = read_of(name, expr.span());
            *expr = syn::parse_quote!(#name);
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        if mac.path.is_ident("vec") {
            let tokens = &mac.tokens;
            if let Ok(Expr::Array(mut array)) = syn::parse2::<Expr>(quote!([#tokens])) {
                self.visit_expr_array_mut(&mut array);
                mac.tokens = array.elems.to_token_stream();
            } else if let Ok(Expr::Repeat(mut repeat)) = syn::parse2::<Expr>(quote!([#tokens])) {
                self.visit_expr_mut(&mut repeat.expr);
                let (value, len) = (&repeat.expr, &repeat.len);
                mac.tokens = quote!(#value; #len);
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The twin's companion items, by name (`vjp`, `grad`, ..), from its expansion (`None` if it
/// failed): a function's are in its companion type's `impl`, a method's are `impl` items
/// named after the twin (`__gradtape_fields_energy_vjp`).
fn companion_items(
    tokens: &TokenStream,
    model: &Model,
) -> Option<BTreeMap<String, syn::ImplItemFn>> {
    let method = model.method.as_ref().map(twin_ident);
    twin_companion_items(tokens, method.as_ref(), |_| true)
}

/// The companion items of a twin (the struct parameters' here, the struct results' in
/// `results`) by name, from the twin's expansion; `None` if it failed. A twin method's
/// (`method`, the twin's name) are the `impl` items named after it (`{method}_vjp`); a twin
/// function's are the items of the inherent `impl` blocks whose type `companion_type`
/// accepts. The one reading of a twin's expansion both passes share.
pub(crate) fn twin_companion_items(
    tokens: &TokenStream,
    method: Option<&syn::Ident>,
    companion_type: impl Fn(&syn::Type) -> bool,
) -> Option<BTreeMap<String, syn::ImplItemFn>> {
    if crate::fallback::is_stand_in(tokens) {
        return None;
    }
    let mut items = BTreeMap::new();
    if let Some(method) = method {
        let block: syn::ItemImpl = syn::parse2(quote!(impl Companion { #tokens })).ok()?;
        let prefix = format!("{method}_");
        for item in block.items {
            if let ImplItem::Fn(f) = item
                && let Some(name) = f.sig.ident.to_string().strip_prefix(&prefix)
            {
                items.insert(name.to_string(), f);
            }
        }
    } else {
        let file: syn::File = syn::parse2(tokens.clone()).ok()?;
        for item in file.items {
            if let syn::Item::Impl(block) = item
                && block.trait_.is_none()
                && companion_type(&block.self_ty)
            {
                for item in block.items {
                    if let ImplItem::Fn(f) = item {
                        items.insert(f.sig.ident.to_string(), f);
                    }
                }
            }
        }
    }
    items.contains_key("vjp").then_some(items)
}

/// The statements adding the entries of marked parameter `k` into its gradient `d`: the
/// twin's entry `grads.k` for the struct passed whole, then one entry per lifted field
/// (`grads.next`, `next` counting on). With `sinks` (the twin's `vjp_into`), a lifted
/// array field is not gathered after the call: the field of `d` is handed to the call as
/// its sink, pushed there (every other lifted field's sink is `NoSink`).
fn gather_marked(
    marked: &Marked,
    k: usize,
    d: &syn::Ident,
    grads: &syn::Ident,
    next: &mut usize,
    float: &Type,
    mut sinks: Option<&mut Vec<TokenStream>>,
) -> Vec<TokenStream> {
    let generated = crate::generate::paths::generated();
    let mut gathers = Vec::new();
    if marked.whole {
        let index = syn::Index::from(k);
        gathers.push(quote!(#generated::add_whole(&mut #d, #grads.#index);));
    }
    for lifted in &marked.lifted {
        let (path, entry) = (&lifted.path, syn::Index::from(*next));
        *next += 1;
        // spanned at the field, as its read's check: one diagnostic if it is no float
        let at = generated_at(lifted.span);
        if let Some(sinks) = sinks.as_deref_mut() {
            if lifted.array && !lifted.whole {
                sinks.push(quote_spanned!(lifted.span=> #at::float_array_field_mut::<#float, _>(&mut #d.#(#path).*)));
                continue;
            }
            sinks.push(quote!(#generated::NoSink));
        }
        gathers.push(if lifted.whole {
            quote_spanned!(lifted.span=> #at::add_whole(&mut #d.#(#path).*, #grads.#entry);)
        } else if let Some(span) = lifted.returned {
            let conversion = returned_conversion(span, float);
            quote_spanned!(span=> #conversion.add_to(&mut #d.#(#path).*, #grads.#entry);)
        } else if lifted.array {
            quote_spanned!(lifted.span=> #at::add_float_array_field::<#float, _>(&mut #d.#(#path).*, #grads.#entry);)
        } else {
            quote_spanned!(lifted.span=> #at::add_float_field::<#float, _>(&mut #d.#(#path).*, #grads.#entry);)
        });
    }
    gathers
}

/// The user's companion type and items, each forwarding to the twin's.
fn companion(
    item: &ItemFn,
    model: &Model,
    twin: &BTreeMap<String, syn::ImplItemFn>,
) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let twin_name = twin_name(item);
    // the twin's generics: a float type parameter bound by the runtime's `Float`, as every
    // generated function has it; each struct `Differentiable` (its zero is the gradient's start)
    let mut generics = twin["vjp"].sig.generics.clone();
    let type_params: HashSet<String> = generics
        .type_params()
        .map(|param| param.ident.to_string())
        .collect();
    for marked in model.params.iter().flatten() {
        let ty = &marked.ty;
        // a concrete struct's impl is checked at its `zero_like` call, spanned at the type
        // (a bound on a concrete type would be reported at the attribute)
        let mentions = crate::syntax::names_in(ty.to_token_stream());
        if mentions.iter().any(|name| type_params.contains(name)) {
            generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#ty: ::gradtape::__private::Differentiable));
        }
    }
    if let Some(marked) = model.params.iter().flatten().find(|m| m.ident == "self") {
        // a method sees no `impl` generics: its `Self` is bound wherever it is generic,
        // and the message of a type without the derive points at `self`
        let ty = &marked.ty;
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote_spanned!(marked.ident.span()=> #ty: ::gradtape::__private::Differentiable));
    }
    let generics = &generics;
    let where_clause = &generics.where_clause;
    let float = &model.float;
    let generated = crate::generate::paths::generated();
    let private = crate::generate::paths::private();
    // every parameter, `self` included: as declared, and its name
    let declared: Vec<TokenStream> = item
        .sig
        .inputs
        .iter()
        .map(|input| match input {
            FnArg::Typed(typed) => {
                let (pat, ty) = (&typed.pat, &typed.ty);
                quote!(#pat: #ty)
            }
            FnArg::Receiver(receiver) => receiver.to_token_stream(),
        })
        .collect();
    let idents: Vec<syn::Ident> = item
        .sig
        .inputs
        .iter()
        .map(|input| match input {
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(pat) => pat.ident.clone(),
                _ => unreachable!("the signature's validation rejects patterns in scalar mode"),
            },
            FnArg::Receiver(receiver) => syn::Ident::from(receiver.self_token),
        })
        .collect();
    // the typed parameters (a method's generated functions declare `self` apart)
    let typed_count = typed_params(&item.sig).len();
    // an item of the twin (`Twin::vjp`, or `Self::__gradtape_fields_energy_vjp`), and
    // one of the user's own companion (`Self::vjp`, or `Self::energy_vjp`)
    let twin_item = |name: &str| -> TokenStream {
        let name = syn::Ident::new(name, Span::call_site());
        match &model.method {
            Some(method) => {
                let twin = method_companion(&twin_ident(method), &name.to_string());
                quote!(Self::#twin)
            }
            None => quote!(#twin_name::#name),
        }
    };
    let own_name = |name: &str| -> syn::Ident {
        match &model.method {
            Some(method) => method_companion(method, name),
            None => syn::Ident::new(name, Span::call_site()),
        }
    };
    // the twin's arguments: the user's (a marked one by reference), then the lifted values
    let struct_ref = |k: usize| -> TokenStream {
        let ident = &idents[k];
        match &model.params[k] {
            Some(marked) if !marked.by_ref => quote!(&#ident),
            _ => quote!(#ident),
        }
    };
    let user_args: Vec<TokenStream> = (0..idents.len()).map(struct_ref).collect();
    let lifted_of = |source: &TokenStream| {
        let source = source.clone();
        move |lifted: &Lifted| lifted_value(&source, lifted, float)
    };
    let lifted_args: Vec<TokenStream> = model
        .params
        .iter()
        .zip(&idents)
        .filter_map(|(marked, ident)| Some((marked.as_ref()?, ident)))
        .flat_map(|(marked, ident)| {
            let source = quote!(#ident);
            marked
                .lifted
                .iter()
                .map(lifted_of(&source))
                .collect::<Vec<_>>()
        })
        .collect();
    let lifted_count = lifted_args.len();
    let [
        vjp_name,
        grad_name,
        jvp_name,
        jvp_call_name,
        grad_into_name,
        primal_name,
    ] = ["vjp", "grad", "jvp", "jvp_call", "grad_into", "primal"].map(own_name);
    let [call_vjp, call_jvp, call_jvp_call, call_grad_into] =
        ["vjp", "jvp", "jvp_call", "grad_into"].map(twin_item);
    let n = idents.len();
    let checks = model.cast_only.iter().map(|(param, path, span)| {
        let at = generated_at(*span);
        quote_spanned!(*span=> #at::constant_field(&#param.#(#path).*);)
    });
    let checks = quote!(#(#checks)*);

    // vjp: the twin's, its pullback's entries for the lifted paths gathered into the structs
    let (vjp, vjp_partial, vjp_now) = {
        let twin_vjp = &twin["vjp"];
        let mut output = twin_vjp.sig.output.clone();
        let entries = pullback_entries(&mut output).expect("`vjp` returns a pullback");
        let mut user_entries: Vec<Type> = entries.iter().take(n).cloned().collect();
        for (k, marked) in model.params.iter().enumerate() {
            if let Some(marked) = marked {
                let ty = &marked.ty;
                user_entries[k] = syn::parse_quote!(::core::option::Option<#ty>);
            }
        }
        set_pullback_entries(&mut output, &user_entries);
        let [value, pullback, grads, g] = ["value", "pullback", "grads", "g"].map(mixed);
        let mut zeros = Vec::new();
        let mut gathers = Vec::new();
        let mut next = n;
        let mut results = Vec::new();
        for (k, marked) in model.params.iter().enumerate() {
            let index = syn::Index::from(k);
            let Some(marked) = marked else {
                results.push(quote!(#grads.#index));
                continue;
            };
            let (zero, d) = (mixed(&format!("zero{k}")), mixed(&format!("d{k}")));
            let source = &user_args[k];
            let ty = &marked.ty;
            zeros.push(quote_spanned!(ty.span()=> let #zero = <#ty as #private::Differentiable>::zero_like(#source);));
            gathers.push(quote_spanned!(ty.span()=> let mut #d = <#ty as #private::Differentiable>::zero_like(&#zero);));
            gathers.extend(gather_marked(marked, k, &d, &grads, &mut next, float, None));
            results.push(quote!(::core::option::Option::Some(#d)));
        }
        // the twin's pullback takes the result's cotangent, then, for a function writing
        // `&mut [F]` outputs, each output's cotangent buffer, which it updates in place:
        // passed through as they are (typed, so that the closure is general over their
        // lifetimes)
        let buffers: Vec<Type> = pullback_signature(&mut output.clone())
            .map(|signature| {
                signature
                    .inputs
                    .iter()
                    .skip(1)
                    .map(|arg| arg.ty.clone())
                    .collect()
            })
            .unwrap_or_default();
        let buffer_names: Vec<syn::Ident> = (0..buffers.len())
            .map(|k| mixed(&format!("output_cotangent{k}")))
            .collect();
        let mut pullback_fn = quote!(move |#g #(, #buffer_names: #buffers)*| {
            let #grads = #pullback(#g #(, #buffer_names)*);
            #(#gathers)*
            (#(#results,)*)
        });
        if boxed_pullback(&output) {
            pullback_fn = quote!(::std::boxed::Box::new(#pullback_fn));
        }
        // `vjp_now`: the twin's, its entries gathered at once (a struct's zero built from
        // the struct itself: nothing outlives the call)
        let vjp_now = twin.get("vjp_now").map(|_| {
            let call_vjp_now = twin_item("vjp_now");
            let vjp_now_name = own_name("vjp_now");
            let now_zeros = model.params.iter().enumerate().filter_map(|(k, marked)| {
                let marked = marked.as_ref()?;
                let (zero, ty, source) = (mixed(&format!("zero{k}")), &marked.ty, &user_args[k]);
                Some(quote_spanned!(ty.span()=> let #zero: &#ty = #source;))
            });
            quote! {
                #[doc(hidden)]
                #[inline]
                pub fn #vjp_now_name #generics (#(#declared,)* #g: #float) -> (#float, (#(#user_entries,)*)) #where_clause {
                    #checks
                    #(#now_zeros)*
                    let (#value, #grads) = #call_vjp_now(#(#user_args,)* #(#lifted_args,)* #g);
                    #(#gathers)*
                    (#value, (#(#results,)*))
                }
            }
        });
        // `vjp_partial`: the twin's, its pullback taking `Option` of the cotangent, what a
        // caller's forward code calls for a call passing on a `&mut` parameter
        let mut partial_output = output.clone();
        optional_pullback_cotangent(&mut partial_output);
        let [call_vjp_partial, vjp_partial_name] = [
            twin_item("vjp_partial"),
            own_name("vjp_partial").to_token_stream(),
        ];
        (
            quote! {
                /// The forward value and the pullback: one entry per parameter, `Option` of a
                /// cotangent for a differentiable one (a differentiable struct's is a value of
                /// the struct), `()` for a constant.
                #[inline]
                pub fn #vjp_name #generics (#(#declared),*) #output #where_clause {
                    #checks
                    #(#zeros)*
                    let (#value, #pullback) = #call_vjp(#(#user_args,)* #(#lifted_args),*);
                    (#value, #pullback_fn)
                }
            },
            quote! {
                #[doc(hidden)]
                #[inline]
                pub fn #vjp_partial_name #generics (#(#declared),*) #partial_output #where_clause {
                    #checks
                    #(#zeros)*
                    let (#value, #pullback) = #call_vjp_partial(#(#user_args,)* #(#lifted_args),*);
                    (#value, #pullback_fn)
                }
            },
            vjp_now,
        )
    };

    // vjp_into: the twin's, with one sink per user parameter, a lifted array's sink the
    // field of the struct's gradient, built before the call, and the other entries
    // gathered after it as `vjp_now` gathers them
    let vjp_into = twin.get("vjp_into").map(|twin_into| {
            let call_vjp_into = twin_item("vjp_into");
            let [value, grads, g] = ["value", "grads", "g"].map(mixed);
            let ReturnType::Type(_, twin_output) = &twin_into.sig.output else {
                unreachable!("`vjp_into` returns the value and the entries")
            };
            let Type::Tuple(pair) = &**twin_output else {
                unreachable!("`vjp_into` returns a pair")
            };
            let Some(Type::Tuple(twin_entries)) = pair.elems.iter().nth(1) else {
                unreachable!("`vjp_into`'s entries are a tuple")
            };
            // the value's type and its cotangent's, as the twin declares them (a writer's
            // value is `()`, not the float)
            let value_ty = &pair.elems[0];
            let cotangent_ty = &typed_params(&twin_into.sig)[typed_count + lifted_count].ty;
            // the user's sinks: the twin's own bounds for the user's parameters
            let mut into_generics = generics.clone();
            let sink_params: Vec<syn::TypeParam> = twin_into
                .sig
                .generics
                .type_params()
                .filter(|param| param.ident.to_string().starts_with("GradtapeSink"))
                .take(n)
                .cloned()
                .collect();
            let sink_names: Vec<syn::Ident> =
                (0..n).map(|k| mixed(&format!("sink{k}"))).collect();
            let sink_types = sink_params.iter().map(|param| &param.ident);
            into_generics
                .params
                .extend(sink_params.iter().cloned().map(syn::GenericParam::Type));
            let mut builds = Vec::new();
            let mut user_sinks = Vec::new();
            let mut lifted_sinks = Vec::new();
            let mut gathers = Vec::new();
            let mut results = Vec::new();
            let mut entries = Vec::new();
            let mut next = n;
            for (k, marked) in model.params.iter().enumerate() {
                let index = syn::Index::from(k);
                let Some(marked) = marked else {
                    let sink = &sink_names[k];
                    user_sinks.push(quote!(#sink));
                    results.push(quote!(#grads.#index));
                    entries.push(twin_entries.elems[k].to_token_stream());
                    continue;
                };
                user_sinks.push(quote!(#generated::NoSink));
                let (d, ty, source) = (mixed(&format!("d{k}")), &marked.ty, &user_args[k]);
                builds.push(quote_spanned!(ty.span()=> let mut #d = <#ty as #private::Differentiable>::zero_like(#source);));
                gathers.extend(gather_marked(
                    marked,
                    k,
                    &d,
                    &grads,
                    &mut next,
                    float,
                    Some(&mut lifted_sinks),
                ));
                results.push(quote!(::core::option::Option::Some(#d)));
                entries.push(quote!(::core::option::Option<#ty>));
            }
            let vjp_into_name = own_name("vjp_into");
            let into_where = &into_generics.where_clause;
            quote! {
                #[doc(hidden)]
                #[inline]
                pub fn #vjp_into_name #into_generics (#(#declared,)* #g: #cotangent_ty, (#(#sink_names,)*): (#(#sink_types,)*)) -> (#value_ty, (#(#entries,)*)) #into_where {
                    #checks
                    #(#builds)*
                    let (#value, #grads) = #call_vjp_into(#(#user_args,)* #(#lifted_args,)* #g, (#(#user_sinks,)* #(#lifted_sinks,)*));
                    #(#gathers)*
                    (#value, (#(#results,)*))
                }
            }
        });

    // grad: from vjp, as the twin's, with the structs' entries as they are
    let grad = twin.get("grad").map(|_| {
        let twin_vjp = &twin["vjp"];
        let mut output = twin_vjp.sig.output.clone();
        let entries = pullback_entries(&mut output).expect("`vjp` returns a pullback");
        let [value, grads] = ["value", "grads"].map(mixed);
        let vjp_now_name = own_name("vjp_now");
        let mut tys = Vec::new();
        let mut values = Vec::new();
        for (k, marked) in model.params.iter().enumerate() {
            let index = syn::Index::from(k);
            if let Some(marked) = marked {
                tys.push(marked.ty.to_token_stream());
                values.push(quote!(#grads.#index.unwrap_or_else(|| unreachable!("a struct's gradient is always gathered"))));
                continue;
            }
            let Some(inner) = option_inner(&entries[k]) else {
                continue; // `()`: a constant
            };
            let is_float = matches!(&inner, Type::Path(path)
                if path.path.get_ident().is_some() && inner.to_token_stream().to_string() == float.to_token_stream().to_string());
            values.push(if is_float {
                quote!(#grads.#index.unwrap_or_default())
            } else {
                quote!(#grads.#index.unwrap_or_else(|| unreachable!("an array's gradient is always computed")))
            });
            tys.push(inner.to_token_stream());
        }
        let texts: Vec<String> = tys.iter().map(ToString::to_string).collect();
        let (grads_ty, grads_value) = if texts.windows(2).all(|w| w[0] == w[1]) {
            let (ty, count) = (&tys[0], tys.len());
            (quote!([#ty; #count]), quote!([#(#values),*]))
        } else {
            (quote!((#(#tys,)*)), quote!((#(#values,)*)))
        };
        quote! {
            /// The value and the gradient (one entry per differentiable parameter, in
            /// order: a differentiable struct's is a value of the struct), by the generated
            /// adjoint, with no tape.
            #[inline]
            pub fn #grad_name #generics (#(#declared),*) -> (#float, #grads_ty) #where_clause {
                let (#value, #grads) = Self::#vjp_now_name(#(#idents,)* <#float as #private::DType>::ONE);
                (#value, #grads_value)
            }
        }
    });

    // jvp: a differentiable struct's tangent is a value of the struct
    let jvp = twin.get("jvp").map(|twin_jvp| {
        let twin_params = typed_params(&twin_jvp.sig);
        let tangents = &twin_params[typed_count + lifted_count..];
        let by_name = |name: &str| tangents.iter().find(|t| pat_name(t) == name);
        let mut declared_tangents = Vec::new();
        let mut user_tangents = Vec::new();
        let mut lifted_tangents = Vec::new();
        for (k, marked) in model.params.iter().enumerate() {
            if let Some(marked) = marked {
                let (tangent, ty) = (mixed(&format!("tan_{}", idents[k])), &marked.ty);
                declared_tangents.push(quote!(#tangent: &#ty));
                if marked.whole {
                    // the twin's own tangent of the struct passed on whole
                    user_tangents.push(quote!(#tangent));
                }
                let source = quote!(#tangent);
                lifted_tangents.extend(marked.lifted.iter().map(lifted_of(&source)));
            } else if let Some(tangent) = by_name(&format!("tan_{}", idents[k])) {
                declared_tangents.push(tangent.to_token_stream());
                let tangent = pat_ident(tangent);
                user_tangents.push(quote!(#tangent));
            }
        }
        let output = &twin_jvp.sig.output;
        quote! {
            /// The value and its directional derivative: one tangent per differentiable
            /// parameter, in order, after all the parameters (a differentiable struct's is a
            /// value of the struct, `&S`), in one forward pass.
            #[inline]
            pub fn #jvp_name #generics (#(#declared,)* #(#declared_tangents),*) #output #where_clause {
                #call_jvp(#(#user_args,)* #(#lifted_args,)* #(#user_tangents,)* #(#lifted_tangents),*)
            }
        }
    });

    // jvp_call: what an annotated caller calls, with the struct as a constant (`NoTangent`)
    let jvp_call = twin.get("jvp_call").map(|twin_call| {
        // `jvp_call(params.., tangents: (E0, E1, ..))`, an entry per parameter: the user's
        // entries as the twin declares them, `NoTangent` for the lifted paths
        let twin_params = typed_params(&twin_call.sig);
        let Type::Tuple(entry_types) = &*twin_params[typed_count + lifted_count].ty else {
            unreachable!("`jvp_call` takes its tangents as one tuple");
        };
        let entries: Vec<syn::Ident> = (0..n).map(|k| mixed(&format!("t{k}"))).collect();
        // a struct's entry: its tangent (`&S`) or `NoTangent`, read as a zero of its shape
        // (the lifted paths' tangents are read from it)
        let mut user_types = Vec::new();
        let mut shaping = Vec::new();
        let mut twin_entries = Vec::new();
        let mut lifted_entries = Vec::new();
        for (k, (marked, entry_type)) in model.params.iter().zip(&entry_types.elems).enumerate() {
            let entry = &entries[k];
            let Some(marked) = marked else {
                user_types.push(entry_type.to_token_stream());
                twin_entries.push(quote!(#entry));
                continue;
            };
            let (ty, source) = (&marked.ty, &user_args[k]);
            user_types.push(quote!(impl #generated::TangentStruct<#ty>));
            let (zero, tangent) = (mixed(&format!("zero{k}")), mixed(&format!("struct{k}")));
            // spanned at the type, as the struct's other `zero_like`s: one diagnostic if it
            // is not `Differentiable`
            let at = generated_at(ty.span());
            shaping.push(quote_spanned! {ty.span()=>
                let mut #zero = ::core::option::Option::None;
                let #tangent: &#ty = #at::struct_tangent(&#entry, &mut #zero, || {
                    <#ty as #private::Differentiable>::zero_like(#source)
                });
            });
            twin_entries.push(if marked.whole {
                quote!(#tangent)
            } else {
                quote!(#generated::NoTangent)
            });
            let source = quote!(#tangent);
            lifted_entries.extend(marked.lifted.iter().map(lifted_of(&source)));
        }
        let tangents = mixed("tangents");
        let output = &twin_call.sig.output;
        quote! {
            #[doc(hidden)]
            #[inline]
            pub fn #jvp_call_name #generics (#(#declared,)* #tangents: (#(#user_types,)*)) #output #where_clause {
                let (#(#entries,)*) = #tangents;
                #(#shaping)*
                #call_jvp_call(#(#user_args,)* #(#lifted_args,)* (#(#twin_entries,)* #(#lifted_entries,)*))
            }
        }
    });

    // grad_into: a differentiable struct's buffer is a value of the struct (`&mut S`)
    let grad_into = twin.get("grad_into").map(|twin_into| {
        let twin_params = typed_params(&twin_into.sig);
        let buffers = &twin_params[typed_count + lifted_count..];
        let by_name = |name: &str| buffers.iter().find(|b| pat_name(b) == name);
        let mut declared_buffers = Vec::new();
        let mut user_buffers = Vec::new();
        let mut lifted_buffers = Vec::new();
        // a struct passed on whole gets its gradient in a buffer of its own (the lifted
        // paths' buffers borrow the caller's), added into the caller's after the call
        let mut whole_buffers = Vec::new();
        let mut whole_adds = Vec::new();
        for (k, marked) in model.params.iter().enumerate() {
            if let Some(marked) = marked {
                let (buffer, ty) = (mixed(&format!("d_{}", idents[k])), &marked.ty);
                let source_of_k = &idents[k];
                declared_buffers.push(quote!(#buffer: &mut #ty));
                if marked.whole {
                    let (whole, source) = (mixed(&format!("whole{k}")), &user_args[k]);
                    whole_buffers.push(quote!(let mut #whole = <#ty as #private::Differentiable>::zero_like(#source);));
                    user_buffers.push(quote!(&mut #whole));
                    whole_adds.push(quote!(<#ty as #private::Differentiable>::accumulate(#buffer, &#whole);));
                }
                for (j, lifted) in marked.lifted.iter().enumerate() {
                    let path = &lifted.path;
                    // a path passed whole that holds another lifted path (`&m.hidden` and
                    // `m.hidden.b`): a buffer of its own, as the struct's
                    let overlaps = lifted.whole
                        && marked.lifted.iter().any(|other| {
                            other.path.len() > path.len() && other.path.starts_with(path)
                        });
                    if overlaps {
                        let whole = mixed(&format!("whole{k}_{j}"));
                        let field_ty = field_type(ty, path);
                        whole_buffers.push(quote!(let mut #whole = <#field_ty as #private::Differentiable>::zero_like(&#source_of_k.#(#path).*);));
                        lifted_buffers.push(quote!(&mut #whole));
                        whole_adds.push(quote!(<#field_ty as #private::Differentiable>::accumulate(&mut #buffer.#(#path).*, &#whole);));
                        continue;
                    }
                    lifted_buffers.push(if lifted.whole {
                        quote!(&mut #buffer.#(#path).*)
                    } else if lifted.array {
                        quote!(#generated::float_array_field_mut::<#float, _>(&mut #buffer.#(#path).*))
                    } else {
                        quote!(&mut #buffer.#(#path).*)
                    });
                }
            } else if let Some(buffer) = by_name(&format!("d_{}", idents[k])) {
                declared_buffers.push(buffer.to_token_stream());
                let buffer = pat_ident(buffer);
                user_buffers.push(quote!(#buffer));
            }
        }
        let output = &twin_into.sig.output;
        let value_name = mixed("value");
        quote! {
            /// The value, with the gradient accumulated (`+=`) into the caller's buffers, one
            /// per differentiable parameter after all the parameters, in order: `&mut S` for
            /// a differentiable struct (its floats and arrays accumulated), `&mut [F]` of the
            /// array's length for an array, `&mut F` for a float. No tape.
            ///
            /// # Panics
            ///
            /// If a buffer's length is not its array's.
            #[inline]
            #[track_caller]
            pub fn #grad_into_name #generics (#(#declared,)* #(#declared_buffers),*) #output #where_clause {
                #(#whole_buffers)*
                let #value_name = #call_grad_into(#(#user_args,)* #(#lifted_args,)* #(#user_buffers,)* #(#lifted_buffers),*);
                #(#whole_adds)*
                #value_name
            }
        }
    });

    // with no array among the twin's parameters it has no `grad_into`: the struct's is
    // built on its allocation-free `grad`, its entries added into the buffers
    let grad_into = grad_into.or_else(|| {
        twin.get("grad")?;
        let mut output = twin["vjp"].sig.output.clone();
        let entries = pullback_entries(&mut output).expect("`vjp` returns a pullback");
        let [value, grads] = ["value", "grads"].map(mixed);
        // the twin's gradient: its float parameters' entries in order (the user's floats),
        // then the lifted paths'
        let is_float = |k: usize| model.params[k].is_none() && option_inner(&entries[k]).is_some();
        let float_count = (0..model.params.len()).filter(|&k| is_float(k)).count();
        let (mut next_float, mut next_lifted) = (0_usize, float_count);
        let mut declared_buffers = Vec::new();
        let mut adds = Vec::new();
        for (k, marked) in model.params.iter().enumerate() {
            let buffer = mixed(&format!("d_{}", idents[k]));
            if let Some(marked) = marked {
                let ty = &marked.ty;
                declared_buffers.push(quote!(#buffer: &mut #ty));
                for lifted in &marked.lifted {
                    let (path, at) = (&lifted.path, generated_at(lifted.span));
                    adds.push(match lifted.returned {
                        Some(span) => {
                            let conversion = returned_conversion(span, float);
                            quote_spanned!(span=> #conversion.add_to(&mut #buffer.#(#path).*, ::core::option::Option::Some(#grads[#next_lifted]));)
                        }
                        None => quote_spanned!(lifted.span=> #at::add_float_field::<#float, _>(&mut #buffer.#(#path).*, ::core::option::Option::Some(#grads[#next_lifted]));),
                    });
                    next_lifted += 1;
                }
            } else if is_float(k) {
                declared_buffers.push(quote!(#buffer: &mut #float));
                adds.push(quote!(*#buffer += #grads[#next_float];));
                next_float += 1;
            }
        }
        let call_grad = twin_item("grad");
        Some(quote! {
            /// The value, with the gradient accumulated (`+=`) into the caller's buffers, one
            /// per differentiable parameter after all the parameters, in order: `&mut S` for
            /// a differentiable struct (its floats accumulated), `&mut F` for a float. No
            /// tape, no allocation.
            #[inline]
            pub fn #grad_into_name #generics (#(#declared,)* #(#declared_buffers),*) -> #float #where_clause {
                let (#value, #grads) = #call_grad(#(#user_args,)* #(#lifted_args),*);
                #(#adds)*
                #value
            }
        })
    });

    let block = &item.block;
    let output = &item.sig.output;
    let primal = quote! {
        /// The original body, run as written.
        #[inline]
        #[allow(unused_mut)]
        pub fn #primal_name #generics (#(#declared),*) #output #where_clause #block
    };
    let doc = match &model.method {
        Some(method) => format!(
            "What `#[differentiable]` generated for the method [`{method}`](Self::{method}), \
             whose differentiable struct parameters (`self` among them when marked) are \
             differentiated through their fields, written for the fields as parameters of their \
             own. Beside the method: `{method}_vjp`, `{method}_grad`, `{method}_jvp` and \
             `{method}_grad_into`, which take and give a struct's gradient and tangent as values \
             of the struct."
        ),
        None => format!(
            "What `#[differentiable]` generated for [`{name}`](fn@{name}), whose differentiable \
             struct parameters are differentiated through their fields: `{name}::vjp`, \
             `{name}::grad`, `{name}::jvp` and `{name}::grad_into` take and give a struct's \
             gradient and tangent as values of the struct. `{name}::GENERATED` shows the code, \
             written for the fields as parameters of their own."
        ),
    };
    TwinCompanion {
        vis,
        name,
        twin_name: &twin_name,
        method: model.method.is_some(),
        doc,
        generated_doc: "The generated forward and adjoint code, as readable source (the fields \
                        read as floats and arrays are parameters of their own).",
    }
    .place(
        [
            Some(primal),
            Some(vjp),
            Some(vjp_partial),
            vjp_now,
            vjp_into,
            grad,
            jvp,
            jvp_call,
            grad_into,
        ]
        .into_iter()
        .flatten(),
    )
}

/// Where a function differentiated through a twin puts its companion items (struct
/// parameters here, struct results in `results`). A method's go beside it, with its
/// visibility: the items named after it (`step_vjp`, as given) and `{NAME}_GENERATED`,
/// the twin method's. A function's go in a companion type named after it, `Annotated`,
/// whose `GENERATED` is the twin's.
pub(crate) struct TwinCompanion<'a> {
    pub vis: &'a syn::Visibility,
    /// The user's function or method.
    pub name: &'a syn::Ident,
    /// The twin function's companion type, or the twin method.
    pub twin_name: &'a syn::Ident,
    pub method: bool,
    /// The doc of the companion type, or of the method's `{NAME}_GENERATED`.
    pub doc: String,
    /// The doc of the companion type's `GENERATED`.
    pub generated_doc: &'static str,
}

impl TwinCompanion<'_> {
    /// The companion holding `items` (generated functions, `pub`, in order).
    pub(crate) fn place(self, items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
        let TwinCompanion {
            vis,
            name,
            twin_name,
            method,
            doc,
            generated_doc,
        } = self;
        if method {
            let generated_name = format_ident!("{}_GENERATED", name.to_string().to_uppercase());
            let twin_generated =
                format_ident!("{}_GENERATED", twin_name.to_string().to_uppercase());
            let items = items.into_iter().map(|tokens| {
                let mut f: syn::ImplItemFn = syn::parse2(tokens).expect("a generated function");
                f.vis = vis.clone();
                f
            });
            return quote! {
                #[doc = #doc]
                #[allow(dead_code)]
                #vis const #generated_name: &'static str = Self::#twin_generated;

                #(
                    #[allow(dead_code, unused_variables, unused_mut, non_snake_case, clippy::all)]
                    #items
                )*
            };
        }
        let generated = crate::generate::paths::generated();
        let items = items.into_iter();
        quote! {
            #[doc = #doc]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #name {}

            impl #generated::Annotated for #name {}
            impl #generated::AnnotatedOnNumbers for #name {}

            #[allow(dead_code, unused_variables, unused_mut, non_snake_case, clippy::all)]
            impl #name {
                #[doc = #generated_doc]
                pub const GENERATED: &'static str = #twin_name::GENERATED;

                #(#items)*
            }
        }
    }
}

/// A lifted path's value read from `source` (the struct, or its tangent), through the check
/// of its type spanned at the user's first read of it.
fn lifted_value(source: &TokenStream, lifted: &Lifted, float: &Type) -> TokenStream {
    let path = &lifted.path;
    let at = generated_at(lifted.span);
    if lifted.whole {
        // its type is the field's, named through `FieldType`: no check needed
        quote_spanned!(lifted.span=> &#source.#(#path).*)
    } else if lifted.array {
        quote_spanned!(lifted.span=> #at::float_array_field::<#float, _>(&#source.#(#path).*))
    } else if let Some(span) = lifted.returned {
        let conversion = returned_conversion(span, float);
        quote_spanned!(span=> #conversion.to_float(#source.#(#path).*))
    } else {
        quote_spanned!(lifted.span=> #at::float_field::<#float, _>(&#source.#(#path).*))
    }
}

/// The result's conversion of a field returned as it is (`Lifted::returned`): the same
/// tokens at the same span as the result's companion makes (`results::result_conversion`),
/// so that a field of another type is one diagnostic, which rustc reports once.
fn returned_conversion(span: Span, float: &Type) -> TokenStream {
    crate::results::result_conversion(span, float)
}

fn generated_at(span: Span) -> TokenStream {
    crate::generate::paths::generated_at(span)
}

/// The typed parameters of a signature, in order.
fn typed_params(sig: &syn::Signature) -> Vec<syn::PatType> {
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => Some(typed.clone()),
            FnArg::Receiver(_) => None,
        })
        .collect()
}

fn pat_ident(typed: &syn::PatType) -> syn::Ident {
    match &*typed.pat {
        Pat::Ident(pat) => pat.ident.clone(),
        _ => unreachable!("generated parameters are names"),
    }
}

fn pat_name(typed: &syn::PatType) -> String {
    pat_ident(typed).to_string()
}

/// `T` of `Option<T>` (the pullback's entry of a differentiable parameter), `None` for `()`.
fn option_inner(ty: &Type) -> Option<Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(inner) => Some(inner.clone()),
        _ => None,
    }
}

/// Whether `vjp`'s pullback is boxed (`Box<dyn Fn(..)>`): the user's `vjp` boxes its own.
fn boxed_pullback(output: &ReturnType) -> bool {
    matches!(output, ReturnType::Type(_, ty)
        if matches!(&**ty, Type::Tuple(pair)
            if matches!(pair.elems.iter().nth(1), Some(Type::Path(_)))))
}

/// The entries of the pullback's result in `vjp`'s return type
/// `(R, impl Fn(G) -> (E0, E1, ..) + use<..>)`.
fn pullback_entries(output: &mut ReturnType) -> Option<Vec<Type>> {
    pullback_result(output).map(|tuple| tuple.elems.iter().cloned().collect())
}

fn set_pullback_entries(output: &mut ReturnType, entries: &[Type]) {
    if let Some(tuple) = pullback_result(output) {
        tuple.elems = entries.iter().cloned().collect();
        if entries.len() == 1 {
            tuple.elems.push_punct(Default::default());
        }
    }
}

fn pullback_result(output: &mut ReturnType) -> Option<&mut syn::TypeTuple> {
    match &mut pullback_signature(output)?.output {
        ReturnType::Type(_, result) => match &mut **result {
            Type::Tuple(tuple) => Some(tuple),
            _ => None,
        },
        ReturnType::Default => None,
    }
}

/// The pullback's cotangent `G` (its first input) in `vjp`'s return type made
/// `Option<G>`: `vjp_partial`'s.
fn optional_pullback_cotangent(output: &mut ReturnType) {
    if let Some(input) = pullback_signature(output).and_then(|args| args.inputs.first_mut()) {
        let ty = &input.ty;
        input.ty = syn::parse_quote!(::core::option::Option<#ty>);
    }
}

/// `(G) -> E` of the pullback's `Fn` bound in `vjp`'s return type
/// `(R, impl Fn(G) -> E + use<..>)` (or `Box<dyn Fn(G) -> E>`).
fn pullback_signature(output: &mut ReturnType) -> Option<&mut syn::ParenthesizedGenericArguments> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::Tuple(pair) = &mut **ty else {
        return None;
    };
    let bounds = match pair.elems.iter_mut().nth(1)? {
        Type::ImplTrait(pullback) => &mut pullback.bounds,
        // `Box<dyn Fn(G) -> (..)>`: a boxed pullback (a call in a loop or a branch)
        Type::Path(boxed) => {
            let last = boxed.path.segments.last_mut()?;
            let PathArguments::AngleBracketed(args) = &mut last.arguments else {
                return None;
            };
            match args.args.first_mut()? {
                GenericArgument::Type(Type::TraitObject(object)) => &mut object.bounds,
                _ => return None,
            }
        }
        _ => return None,
    };
    bounds.iter_mut().find_map(|bound| match bound {
        syn::TypeParamBound::Trait(bound) => {
            let last = bound.path.segments.last_mut()?;
            match &mut last.arguments {
                PathArguments::Parenthesized(args) => Some(args),
                _ => None,
            }
        }
        _ => None,
    })
}
