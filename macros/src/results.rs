//! Struct results (scalar mode): a function returning a struct of floats built by a
//! literal, `fn step(x: f64, v: f64, dt: f64) -> State { State { x: x + dt * v, v: v - dt
//! * x } }`, is differentiated as the tuple of its fields that it is.
//!
//! A proc macro sees no types, so the struct's fields are read from the literals the body
//! returns, and the function is differentiated through a hidden twin that returns them as
//! a tuple, which every later phase already differentiates (a tuple result), the way
//! [`params`](crate::params) differentiates a struct parameter through a twin taking its
//! fields:
//!
//! 1. **Read** ([`read`]): whether the result is a struct ([`has_struct_result`]), the
//!    literal at each result position (the body's tail, through blocks, `if`/`else` and
//!    `match` arms, and each `return`), the fields in the order the first literal names
//!    them, and the function's float type ([`float_type`], or the struct's own through an
//!    alias, `Model::float_alias`). Every rejection of the form is here, at the user's
//!    tokens: a result position that is no literal where another is one, a literal with
//!    `..base` or naming the fields in another order, a field whose value is no float by
//!    its spelling ([`no_float`]), an associated function annotated without its `impl`
//!    block.
//! 2. **Twin** (`__gradtape_result_{name}`): the user's item with the result type `(F, F,
//!    ..)` (`F` for one field) and each literal the tuple of its fields' values, in order,
//!    each through [`result_part`]; expanded through the whole pipeline (a twin with
//!    marked struct parameters goes on to `params`).
//! 3. **Companion**: the user's `vjp`, `jvp`, `jvp_call`, `vjp_now`, `vjp_into`, `primal`
//!    and `GENERATED` call the twin's, building the struct from the tuple (the value, the
//!    tangent) and the tuple's cotangent from the struct (`vjp`'s pullback takes a value of
//!    the struct, every field its cotangent), each field through `generated::result_field`
//!    at the field (a field of another type is its one message there). Invariant: the
//!    twin's tuple and the companion's conversions use the one field order [`read`]
//!    returns, so each field's value, tangent and cotangent is its own.
//! 4. **Callers** ([`parts_vjp`], [`parts_jvp`]): an annotated caller reading the result
//!    by its fields (`lower` splits `let s = step(..);` into the call's parts) makes the
//!    call a tuple result's of the fields it reads, so the rest of its code is a tuple
//!    result's. The caller cannot know the twin's order, and needs not: it names fields.
//!    A caller holding the result whole (`norm(&s)`, `let t = s;`, returned) needs no
//!    field either: the struct is one value of the call, as a float result is, its
//!    cotangent a value of the struct (`generated::Accumulate`, which the derive
//!    implements), and a field read of it is `Callee::Field`. A function returning such
//!    a value (no literal: [`returns_values`]) is no struct result of this pass but one
//!    value (`Signature::whole_output`).
//!
//! A method (or an associated function of an annotated `impl` block) has a twin method
//! and companion items beside it, named after it (`step_vjp`), as `params` writes them.
//!
//! `fn f` itself is the user's item as written.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, FnArg, Ident, ImplItem, ItemFn, Member, Pat, PathArguments, ReturnType, Type};

use crate::ctxt::Ctxt;
use crate::model::sig::{self, Kind, Mode};
use crate::syntax::{mixed, strip_parens};

/// Whether the function returns a struct built by a literal (scalar mode): the item this
/// pass expands. A result type that may be a struct (a path that is no float, integer or
/// known container) with a struct literal at a result position; any other result goes on
/// to the pipeline, whose errors say what a result may be.
pub fn has_struct_result(item: &ItemFn) -> bool {
    let ReturnType::Type(_, ty) = &item.sig.output else {
        return false;
    };
    if !crate::params::is_struct_type(ty, &sig::float_type_params(item)) {
        return false;
    }
    if sig::parse(item).is_some_and(|sig| sig.mode == Mode::Tensor) {
        return false;
    }
    let mut block = item.block.clone();
    let mut found = false;
    each_result(&mut block, &mut |expr| {
        found |= matches!(strip_parens(expr), Expr::Struct(_));
    });
    found
}

/// Whether the function returns an array of floats, `[F; N]` with `F` a float type and
/// `N` a literal, or an array of rows of them, `[[F; C]; R]` (scalar mode): differentiated
/// as the tuple of its elements (row-major), as a struct result is of its fields
/// ([`read_array`]).
pub fn has_array_result(item: &ItemFn) -> bool {
    array_result(item).is_some()
}

/// A literal array length, if `len` is one (and not 0).
fn literal_len(len: &Expr) -> Option<usize> {
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(len),
        ..
    }) = strip_parens(len)
    else {
        return None;
    };
    len.base10_parse::<usize>().ok().filter(|&len| len > 0)
}

/// The element type and the shape of an array result ([`has_array_result`]): `[F; N]` is
/// `N` elements, `[[F; C]; R]` is `R * C` elements in rows of `C`.
fn array_result(item: &ItemFn) -> Option<(Type, usize, Option<usize>)> {
    let ReturnType::Type(_, ty) = &item.sig.output else {
        return None;
    };
    let Type::Array(array) = &**ty else {
        return None;
    };
    let floats = sig::float_type_params(item);
    let len = literal_len(&array.len)?;
    let (elem, row) = if sig::is_float(&array.elem, &floats) {
        (&*array.elem, None)
    } else if let Type::Array(row) = strip_type_parens(&array.elem)
        && sig::is_float(&row.elem, &floats)
    {
        (&*row.elem, Some(literal_len(&row.len)?))
    } else {
        return None;
    };
    if sig::parse(item).is_some_and(|sig| sig.mode == Mode::Tensor) {
        return None;
    }
    Some((elem.clone(), len * row.unwrap_or(1), row))
}

/// `T` for `(T)`, else the type itself.
fn strip_type_parens(ty: &Type) -> &Type {
    match ty {
        Type::Paren(paren) => strip_type_parens(&paren.elem),
        Type::Group(group) => strip_type_parens(&group.elem),
        ty => ty,
    }
}

/// Whether every result position of the body (as [`has_struct_result`] reads them) is a
/// value that may be a struct held whole: a name (`s`), a call (`step(..)`), a method's
/// call, a field (`pair.state`): what a function returning a struct it does not build by
/// a literal returns (`Signature::whole_output`). Arithmetic is a float's (a method whose
/// `T` is the `impl`'s, unseen, keeps the result type's message).
pub fn returns_values(item: &ItemFn) -> bool {
    let mut block = item.block.clone();
    let (mut any, mut all) = (false, true);
    each_result(&mut block, &mut |expr| {
        any = true;
        all &= matches!(
            strip_parens(expr),
            Expr::Path(_) | Expr::Call(_) | Expr::MethodCall(_) | Expr::Field(_)
        );
    });
    any && all
}

/// The item and its companion.
pub fn parts(args: TokenStream, item: ItemFn) -> (TokenStream, TokenStream) {
    let (model, constant) = match crate::fallback::read_for_twin(&args, &item, read) {
        Ok(read) => read,
        Err(rejected) => return rejected,
    };
    let user_item = crate::params::stripped(&item);
    let twin = twin(&item, &model);
    let (twin_fn, twin_companion) = crate::expand::parts(args.clone(), twin);
    let method = model.method.then(|| twin_name(&item));
    let Some(twin_items) = companion_items(&twin_companion, method.as_ref()) else {
        // the twin's expansion failed: its fallback carries the errors, at the user's
        // tokens (the twin is the user's item but for its result), and its stand-in
        // companion (`fallback::rejected`) stands for the user's function's
        let rejected = crate::fallback::rejected_twin(&item, &twin_companion, &constant);
        return (quote!(#user_item), quote!(#twin_fn #rejected));
    };
    // an array result's writer: what a caller indexing the result calls (`array_calls`)
    let writer = match &model.shape {
        Shape::Array { len, row } => writer(&item, &model, *len, *row),
        _ => None,
    };
    let (writer_fn, writer_items) = match writer {
        // a method's writer is a method beside it, its items too (`__gradtape_write_f_vjp`),
        // which a caller calls as a method's (`Callee::Method`)
        Some(writer) if model.method => {
            let (writer_fn, writer_companion) = crate::expand::parts(args, writer);
            let writer_companion = allow_non_snake_case(writer_companion);
            (
                Some(quote!(#[doc(hidden)] #[allow(non_snake_case)] #writer_fn #writer_companion)),
                None,
            )
        }
        Some(writer) => {
            let sig = writer.sig.clone();
            let (writer_fn, writer_companion) = crate::expand::parts(args, writer);
            let items = crate::params::twin_companion_items(&writer_companion, None, |ty| {
                matches!(ty, Type::Path(path) if path.path.segments.last()
                    .is_some_and(|last| last.ident.to_string().starts_with(WRITER_PREFIX)))
            });
            (
                Some(quote!(#writer_fn #writer_companion)),
                items.map(|items| (sig, items)),
            )
        }
        None => (None, None),
    };
    let mut companion = companion(&user_item, &model, &twin_items, writer_items.as_ref());
    companion.extend(writer_fn);
    // a method's twin items are `impl` items named after the twin: with a marked `self`,
    // `params`' twin of this twin names its own `__gradtape_fields___gradtape_result_f_..`,
    // which rustc's snake-case lint flags for the `___`
    let twin_companion = if model.method {
        allow_non_snake_case(twin_companion)
    } else {
        twin_companion
    };
    let float_alias = model.float_alias.as_ref().map(|(_, declared)| declared);
    crate::fallback::with_twin(
        &user_item,
        float_alias,
        [twin_fn, twin_companion, companion],
    )
}

/// `impl` items with `#[allow(non_snake_case)]` each (as they are if they do not parse).
fn allow_non_snake_case(items: TokenStream) -> TokenStream {
    let Ok(mut block) = syn::parse2::<syn::ItemImpl>(quote!(impl Companion { #items })) else {
        return items;
    };
    for item in &mut block.items {
        if let ImplItem::Fn(f) = item {
            f.attrs.push(syn::parse_quote!(#[allow(non_snake_case)]));
        }
    }
    let items = &block.items;
    quote!(#(#items)*)
}

/// What the pass read.
struct Model {
    /// A struct's fields or an array's elements: the twin's tuple's parts.
    shape: Shape,
    /// The function's float type ([`float_type`]), or the alias of the struct's own.
    float: Type,
    /// When no parameter names the float type (a function of marked structs alone, not a
    /// method): `type __gradtape_float_f = <S as FieldType<..>>::Type;`, the struct's first
    /// field's type, declared beside the twin, whose float type it is (a `where` bound
    /// `__gradtape_float_f: Float` on the twin tells every later phase it is a float).
    float_alias: Option<(syn::Ident, TokenStream)>,
    /// A method, or an associated function of an annotated `impl` block: its companion
    /// items are associated functions named after it (`step_vjp`), as a method's are.
    method: bool,
}

/// What the result is made of: the twin's tuple has one part per field or element.
enum Shape {
    /// A struct of floats built by a literal.
    Struct {
        /// The struct's path as the first literal spells it (`State`): the companion
        /// builds values of the struct with it.
        path: syn::Path,
        /// The fields, in the order the first literal names them: the twin's tuple's
        /// order.
        fields: Vec<Member>,
        /// Where the first literal names each field: its type's check is spanned there.
        spans: Vec<Span>,
    },
    /// An array of floats, `[F; len]` (its length a literal): element `k` is part `k`;
    /// or, with `row`, an array of rows `[[F; row]; len / row]`: element `[i][j]` is part
    /// `i * row + j` (row-major, the order a literal of rows is written and computed in).
    Array { len: usize, row: Option<usize> },
}

impl Shape {
    /// The twin's tuple's arity.
    fn len(&self) -> usize {
        match self {
            Shape::Struct { fields, .. } => fields.len(),
            Shape::Array { len, .. } => *len,
        }
    }
}

/// An array result's type as the user spells it, for messages: `[F; N]`, `[[F; C]; R]`.
fn array_type(float: &Type, len: usize, row: Option<usize>) -> String {
    let float = float.to_token_stream();
    match row {
        None => format!("[{float}; {len}]"),
        Some(row) => format!("[[{float}; {row}]; {}]", len / row),
    }
}

/// Reads an array result (`[F; N]`, [`array_result`]): its length, the float type its
/// elements name. Every result position may be any value of the array's type
/// ([`array_parts`]), but an array literal must have the result's length: the twin's
/// tuple would otherwise be rustc's mismatch at the attribute beside its own at the
/// literal.
fn read_array(cx: &Ctxt, item: &ItemFn) -> Option<Model> {
    let (float, len, row) = array_result(item)?;
    if len > sig::MAX_PARTS {
        let ReturnType::Type(_, result) = &item.sig.output else {
            unreachable!("an array result")
        };
        cx.error_spanned_by(
            result,
            format_args!(
                "an array result of a #[differentiable] function has at most {} elements \
                 (this one has {len}): it is differentiated as the tuple of its elements; \
                 write the values into a `&mut [{}]` parameter instead, which is \
                 differentiated at any length",
                sig::MAX_PARTS,
                match row {
                    None => float.to_token_stream().to_string(),
                    Some(row) => format!("[{}; {row}]", float.to_token_stream()),
                }
            ),
        );
        return None;
    }
    let method = item.sig.receiver().is_some() || crate::syntax::is_in_impl_block();
    let ty = array_type(&float, len, row);
    let mut block = item.block.clone();
    each_result(&mut block, &mut |expr| {
        let Expr::Array(array) = strip_parens(expr) else {
            return;
        };
        let rows = len / row.unwrap_or(1);
        if array.elems.len() != rows {
            cx.error_spanned_by(
                &*expr,
                format_args!(
                    "this array has {} elements where the function's result, `{ty}`, has \
                     {rows}",
                    array.elems.len(),
                ),
            );
            return;
        }
        // a row written as a literal has the row's length
        if let Some(row) = row {
            for element in &array.elems {
                if let Expr::Array(literal) = strip_parens(element)
                    && literal.elems.len() != row
                {
                    cx.error_spanned_by(
                        element,
                        format_args!(
                            "this row has {} elements where a row of the function's \
                             result, `{ty}`, has {row}",
                            literal.elems.len(),
                        ),
                    );
                }
            }
        }
    });
    Some(Model {
        shape: Shape::Array { len, row },
        float,
        float_alias: None,
        method,
    })
}

/// Reads the struct or array result, reporting every rejection of the form.
fn read(cx: &Ctxt, item: &ItemFn) -> Option<Model> {
    if has_array_result(item) {
        return read_array(cx, item);
    }
    let ReturnType::Type(_, result) = &item.sig.output else {
        unreachable!("has_struct_result: a result type")
    };
    // An `impl` block holds no companion type: a method's items, or an associated
    // function's of an annotated block, are associated functions beside it. An associated
    // function annotated alone cannot place them (`Self` says it is one).
    let method = item.sig.receiver().is_some() || crate::syntax::is_in_impl_block();
    let names_self = crate::syntax::names_in(result.to_token_stream()).contains("Self");
    if !method && names_self {
        cx.error_spanned_by(
            result,
            "an associated function returning a struct places its companion items beside it \
             in its `impl` block, which a macro on the function alone cannot see: put \
             #[differentiable] on the `impl` block as well",
        );
        return None;
    }
    let named_float = float_type(item, method);
    // the float type as the messages name it
    let float_named = named_float.as_ref().map_or_else(
        || "the struct's own".to_string(),
        |float| format!("`{}`", float.to_token_stream()),
    );
    // the parameters of a type that holds no float (`n: usize`), by name
    let constants: Vec<(syn::Ident, Type)> = sig::parse(item)
        .map(|sig| sig.params)
        .unwrap_or_default()
        .into_iter()
        .filter(|param| crate::syntax::holds_no_float(&param.ty))
        .map(|param| (param.ident, param.ty))
        .collect();
    let mut first: Option<(syn::Path, Vec<Member>, Vec<Span>)> = None;
    let mut block = item.block.clone();
    each_result(&mut block, &mut |expr| {
        let Expr::Struct(literal) = strip_parens(expr) else {
            cx.error_spanned_by(
                &*expr,
                format_args!(
                    "a #[differentiable] function returning a struct (`{}`) returns at its \
                     end and at each `return` a struct literal naming every field (`{} {{ \
                     a: .., b: .. }}`), or at each of them a value of the struct held whole \
                     (`s`, `step(..)`): this result is no literal where another is one \
                     (bind it, `let s = ..;`, and return the literal of its fields, `a: s.a`)",
                    sig::type_name(result),
                    sig::type_name(result)
                ),
            );
            return;
        };
        if let Some(rest) = &literal.rest {
            cx.error_spanned_by(
                rest,
                "a struct result names every field: `..base` would take fields from a value \
                 whose derivative the macro cannot follow",
            );
            return;
        }
        // a value that is no float by its spelling: the macro's message at it, before the
        // twin's tuple of floats would meet it as rustc's type errors
        for field in &literal.fields {
            if let Some(what) = no_float(&field.expr, &constants) {
                cx.error_spanned_by(
                    &field.expr,
                    format_args!(
                        "a struct result's fields are floats of the function's float type \
                         ({float_named}), the tuple of which is differentiated: `{}` is \
                         {what} (return it beside the floats some other way, a second \
                         function, or make the field a float)",
                        field.member.to_token_stream()
                    ),
                );
            }
        }
        let members: Vec<Member> = literal.fields.iter().map(|f| f.member.clone()).collect();
        let spans = literal
            .fields
            .iter()
            .map(|f| syn::spanned::Spanned::span(&f.member))
            .collect();
        match &first {
            None => first = Some((literal.path.clone(), members, spans)),
            Some((_, fields, _)) if *fields != members => cx.error_spanned_by(
                &literal.path,
                format_args!(
                    "every literal of a struct result names its fields in the same order, the \
                     first one's (`{}`): the order is the order the values are computed in",
                    fields
                        .iter()
                        .map(|m| m.to_token_stream().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Some(_) => {}
        }
    });
    let (path, fields, spans) = first?;
    if fields.len() > sig::MAX_PARTS {
        cx.error_spanned_by(
            &path,
            format_args!(
                "a struct result of a #[differentiable] function has at most {} fields (this \
                 one has {}): it is differentiated as the tuple of its fields; split it into \
                 structs of fewer fields, or write the values into a `&mut [f64]` parameter",
                sig::MAX_PARTS,
                fields.len()
            ),
        );
        return None;
    }
    // a function (not generic, not a method): the struct's first field's type (a method's
    // items sit in an `impl` block, where no alias can)
    let float_alias = named_float.is_none().then(|| {
        let alias = format_ident!("{}{}", sig::FLOAT_ALIAS, item.sig.ident);
        let private = crate::generate::paths::private();
        let key = crate::syntax::field_key(&fields[0]);
        let declared = quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            type #alias = <#result as #private::FieldType<#key>>::Type;
        };
        (alias, declared)
    });
    let float = match (&float_alias, named_float) {
        (Some((alias, _)), _) => syn::parse_quote!(#alias),
        (None, Some(float)) => float,
        (None, None) => unreachable!("an alias where no float type is named"),
    };
    Some(Model {
        shape: Shape::Struct {
            path,
            fields,
            spans,
        },
        float,
        float_alias,
        method,
    })
}

/// What a struct literal's field value is when its spelling says it is no float (`None`
/// when it may be one): an integer, `bool`, character or string literal, a comparison or
/// logical operation, a cast to a type that holds no float, or a parameter of such a type
/// (`constants`). The rest (an integer local, an integer function's call) the twin's types
/// check, at rustc's errors.
fn no_float(expr: &Expr, constants: &[(syn::Ident, Type)]) -> Option<String> {
    match strip_parens(expr) {
        Expr::Lit(lit) => match &lit.lit {
            syn::Lit::Int(int) if !matches!(int.suffix(), "f32" | "f64") => {
                Some("an integer".into())
            }
            syn::Lit::Bool(_) => Some("a `bool`".into()),
            syn::Lit::Char(_) | syn::Lit::Byte(_) => Some("a character".into()),
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => Some("a string".into()),
            _ => None,
        },
        Expr::Binary(binary)
            if matches!(
                binary.op,
                syn::BinOp::Eq(_)
                    | syn::BinOp::Ne(_)
                    | syn::BinOp::Lt(_)
                    | syn::BinOp::Le(_)
                    | syn::BinOp::Gt(_)
                    | syn::BinOp::Ge(_)
                    | syn::BinOp::And(_)
                    | syn::BinOp::Or(_)
            ) =>
        {
            Some("a `bool`".into())
        }
        Expr::Cast(cast) if crate::syntax::holds_no_float(&cast.ty) => Some(format!(
            "a `{}`",
            cast.ty.to_token_stream().to_string().replace(' ', "")
        )),
        Expr::Path(path) => {
            let ident = path.path.get_ident()?;
            let (_, ty) = constants.iter().find(|(name, _)| name == ident)?;
            Some(format!(
                "a `{}` parameter",
                ty.to_token_stream().to_string().replace(' ', "")
            ))
        }
        _ => None,
    }
}

/// The function's float type as its signature names it: for a function generic over the
/// float type, its first float or float array parameter's element type, else its first
/// float type parameter (`fn rhs<T: Float>(#[differentiable] s: &State<T>) ->
/// State<T>`); for a method, its first float or float array parameter's, else `f64`.
/// `None` for any other function: the struct's own (`Model::float_alias`, its first
/// field's type), whatever its parameters are (`fn narrowed(x: f64) -> Narrow { Narrow {
/// x: x as f32 } }`). A struct result's fields have that type, and so do a marked
/// struct's fields read as floats (`params` lifts them at the result's type): a field of
/// another type is a compile error at the field (`generated::ResultField`, `FloatField`),
/// never a conversion.
fn float_type(item: &ItemFn, method: bool) -> Option<Type> {
    let type_params = sig::float_type_params(item);
    if type_params.is_empty() && !method {
        return None;
    }
    let from_params = sig::parse(item).and_then(|sig| {
        sig.params.iter().find_map(|param| match param.kind {
            Kind::Float { .. } | Kind::Array { .. } => param.elem.clone(),
            _ => None,
        })
    });
    from_params
        .or_else(|| type_params.first().map(|param| syn::parse_quote!(#param)))
        .or_else(|| Some(syn::parse_quote!(f64)))
}

/// Calls `f` on each result position of the body: the tail (through blocks, `if`/`else`
/// and `match` arms) and each `return`'s value, outside closures and nested items.
pub(crate) fn each_result(block: &mut syn::Block, f: &mut dyn FnMut(&mut Expr)) {
    Returns { f: &mut *f }.visit_block_mut(block);
    block_tail(block, f);
}

fn block_tail(block: &mut syn::Block, f: &mut dyn FnMut(&mut Expr)) {
    if let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last_mut() {
        tail_positions(tail, f);
    }
}

fn tail_positions(expr: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match expr {
        Expr::If(branch) => {
            block_tail(&mut branch.then_branch, f);
            if let Some((_, otherwise)) = &mut branch.else_branch {
                tail_positions(otherwise, f);
            }
        }
        Expr::Match(choice) => {
            for arm in &mut choice.arms {
                tail_positions(&mut arm.body, f);
            }
        }
        Expr::Block(block) if block.label.is_none() => block_tail(&mut block.block, f),
        Expr::Paren(paren) => tail_positions(&mut paren.expr, f),
        Expr::Group(group) => tail_positions(&mut group.expr, f),
        // its value is a result position of its own ([`Returns`]); the others diverge
        Expr::Return(_) | Expr::Continue(_) | Expr::Break(_) => {}
        Expr::Macro(mac) if diverges(&mac.mac) => {}
        _ => f(expr),
    }
}

/// A macro that never returns (a branch's tail may be one).
fn diverges(mac: &syn::Macro) -> bool {
    ["panic", "unreachable", "todo", "unimplemented"]
        .iter()
        .any(|name| mac.path.is_ident(name))
}

/// Each `return`'s value, outside closures and nested items (whose `return`s are theirs).
struct Returns<'a> {
    f: &'a mut dyn FnMut(&mut Expr),
}

impl VisitMut for Returns<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    // a `return` inside the value is the same function's: seen first
                    visit_mut::visit_expr_mut(self, value);
                    tail_positions(value, self.f);
                }
            }
            Expr::Closure(_) => {}
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The prefix of an array result's writer's name (`__gradtape_write_{name}`, [`writer`]).
const WRITER_PREFIX: &str = "__gradtape_write_";

/// An array result's writer: `fn __gradtape_write_f(a, b, out: &mut [F; N])`, the user's
/// parameters (their marks kept, for `params`) and the array written element by element
/// from the twin's tuple, `let (p0, p1) = __gradtape_result_f(a, b); out[0] = p0; out[1] =
/// p1;`. Expanded through the whole pipeline, it is an annotated function writing a `&mut`
/// array, which a caller calls as one (`Stmt::CallWrites`) through the companion's
/// `__gradtape_write` items ([`writer_items`]): the caller's local array holds the
/// result, indexed, iterated and passed on as any other (`array_calls`). A method's
/// (`&self` kept, its mark too) is a method beside it, `self.__gradtape_write_f(x, out)`,
/// whose own items a caller calls as a method's. An array of rows' writer takes `out: &mut
/// [[F; C]; R]` and writes `out[i][j] = part(i * C + j)`: the type fixes the caller's
/// local's row length, which the caller cannot spell. `None` for a parameter bound by a
/// pattern other than a name (the signature's validation reports it).
fn writer(item: &ItemFn, model: &Model, len: usize, row: Option<usize>) -> Option<ItemFn> {
    let mut writer = item.clone();
    writer.sig.ident = format_ident!("{WRITER_PREFIX}{}", item.sig.ident);
    writer.vis = syn::Visibility::Inherited;
    writer
        .attrs
        .retain(|attr| !attr.path().is_ident("doc") && !attr.path().is_ident("must_use"));
    writer.sig.output = ReturnType::Default;
    let mut args = Vec::new();
    for input in &item.sig.inputs {
        match input {
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                    args.push(pat.ident.clone());
                }
                _ => return None,
            },
            FnArg::Receiver(_) => {}
        }
    }
    crate::syntax::set_spelled(crate::syntax::names_in(item.to_token_stream()));
    let out = Ident::new(&crate::syntax::unspelled("out".into()), Span::call_site());
    let float = &model.float;
    let out_type: Type = match row {
        None => {
            let n = proc_macro2::Literal::usize_unsuffixed(len);
            syn::parse_quote!([#float; #n])
        }
        Some(row) => {
            let (r, c) = (
                proc_macro2::Literal::usize_unsuffixed(len / row),
                proc_macro2::Literal::usize_unsuffixed(row),
            );
            syn::parse_quote!([[#float; #c]; #r])
        }
    };
    writer
        .sig
        .inputs
        .push(syn::parse_quote!(#out: &mut #out_type));
    let parts: Vec<Ident> = (0..len)
        .map(|k| {
            Ident::new(
                &crate::syntax::unspelled(format!("part{k}")),
                Span::call_site(),
            )
        })
        .collect();
    let twin = twin_name(item);
    // the twin as the user's item is reached: a method's on `self`, an associated
    // function's of its `impl` block on `Self`
    let twin = if item.sig.receiver().is_some() {
        quote!(self.#twin)
    } else if model.method {
        quote!(Self::#twin)
    } else {
        quote!(#twin)
    };
    // element `k`'s place: `out[k]`, or `out[k / C][k % C]` of rows
    let places = (0..len).map(|k| match row {
        None => {
            let k = syn::Index::from(k);
            quote!(#out[#k])
        }
        Some(row) => {
            let (i, j) = (syn::Index::from(k / row), syn::Index::from(k % row));
            quote!(#out[#i][#j])
        }
    });
    let pattern = if len == 1 {
        parts[0].to_token_stream()
    } else {
        quote!((#(#parts),*))
    };
    writer.block = Box::new(syn::parse_quote!({
        let #pattern = #twin(#(#args),*);
        #(#places = #parts;)*
    }));
    Some(writer)
}

/// The twin's name: `__gradtape_result_{name}`.
pub(crate) fn twin_name(item: &ItemFn) -> syn::Ident {
    format_ident!("__gradtape_result_{}", item.sig.ident)
}

/// The twin: the user's item (its marks kept, for `params`) returning the tuple of the
/// struct's fields, each literal the tuple of its values in [`Model::fields`]' order.
fn twin(item: &ItemFn, model: &Model) -> ItemFn {
    let mut twin = item.clone();
    twin.sig.ident = twin_name(item);
    twin.vis = syn::Visibility::Inherited;
    twin.attrs
        .retain(|attr| !attr.path().is_ident("doc") && !attr.path().is_ident("must_use"));
    let float = &model.float;
    let ReturnType::Type(_, result) = &mut twin.sig.output else {
        unreachable!("a struct result")
    };
    // A generic twin's `where` clause is never empty: rustc words the suggestion of a
    // field's failed conversion (`result_field`'s message) after the item's clause
    // ("extending" one, or "introducing" one), so with a clause in every item made from
    // the twin (its own, its companion's, the user's companion's, which copy it) those
    // messages are one diagnostic, which rustc reports once.
    if let Some(first) = twin
        .sig
        .generics
        .type_params()
        .next()
        .map(|p| p.ident.clone())
        && twin
            .sig
            .generics
            .where_clause
            .as_ref()
            .is_none_or(|c| c.predicates.is_empty())
    {
        twin.sig
            .generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#first: ::core::marker::Sized));
    }
    if let Some((alias, _)) = &model.float_alias {
        // the struct's float type, a float to every later phase (`sig::float_type_params`)
        let private = crate::generate::paths::private();
        twin.sig
            .generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#alias: #private::Float));
    }
    let arity = model.shape.len();
    let floats = (0..arity).map(|_| float);
    **result = if arity == 1 {
        float.clone()
    } else {
        syn::parse_quote!((#(#floats),*))
    };
    let (fields, spans) = match &model.shape {
        Shape::Struct { fields, spans, .. } => (fields, spans),
        Shape::Array { len, row } => {
            crate::syntax::set_spelled(crate::syntax::names_in(item.to_token_stream()));
            // `let p = core::array::from_fn(..); p`: typed as the result while the twin
            // still returns `p` (the tuple of its elements names no type)
            twin.block.stmts = crate::rewrite::from_fn_returned(
                std::mem::take(&mut twin.block.stmts),
                &item.sig.output,
            );
            each_result(&mut twin.block, &mut |expr| {
                *expr = match row {
                    None => array_parts(expr, *len, float),
                    Some(row) => rows_parts(expr, *len / *row, *row),
                };
            });
            return twin;
        }
    };
    // a method's parameter's `f32` or `f64`, the struct's own through its alias, or a
    // generic function's float type parameter `T` (which `as` cannot name: the cast's
    // code converts through `generated::float_cast`, `Generator::cast_to`)
    let type_params = sig::float_type_params(item);
    let cast = model.float_alias.is_some()
        || (model.method
            && matches!(float, Type::Path(path) if path.path.is_ident("f32") || path.path.is_ident("f64")))
        || matches!(float, Type::Path(path)
            if path.path.get_ident().is_some_and(|ident| type_params.contains(ident)));
    let own_type = marked_of_the_result_type(item);
    each_result(&mut twin.block, &mut |expr| {
        let Expr::Struct(literal) = strip_parens(expr) else {
            unreachable!("read: every result position is a literal")
        };
        // the literal's order is the model's (read checks it): the values are computed
        // in the order the user wrote them, each through `ResultField` at its field
        // ([`result_part`]: a constant of another type is that message, not rustc's
        // mismatch in the tuple)
        let values: Vec<Expr> = literal
            .fields
            .iter()
            .zip(spans)
            .map(|(f, span)| {
                let read = own_field_read(&f.expr, &own_type).map(|(member, known)| {
                    // checked at the result's field of that name, of the read's type; a
                    // receiver whose type is unknown, where it is returned
                    fields
                        .iter()
                        .position(|field| known && *field == member)
                        .map_or(*span, |k| spans[k])
                });
                result_part(*span, float, &f.expr, cast, read)
            })
            .collect();
        *expr = tuple_of(&values);
    });
    twin
}

/// The twin's result for `values`, its parts: the tuple of them, or the one value.
fn tuple_of(values: &[Expr]) -> Expr {
    if let [value] = values {
        syn::parse_quote!((#value))
    } else {
        syn::parse_quote!((#(#values),*))
    }
}

/// An array result position as the twin's tuple of its `len` elements: a literal's
/// elements as written (`[a, b]` is `(a, b)`: computed in the same order), a repeat's
/// value once (`[v; 3]` is `{ let e = v; (e, e, e) }`), a place read element by element
/// (`out`, `*p`, `self.pos`: `(out[0], out[1])`, as lowering reads a local or parameter
/// array), and any other value (a call's, `if` and `match` being result positions of
/// their own) bound first, `{ let r = f(..); (r[0], r[1]) }`, a local indexed, which
/// `array_calls` makes the local array an annotated callee's writer writes. [`read_array`]
/// checked a literal's length.
fn array_parts(expr: &Expr, len: usize, float: &Type) -> Expr {
    let elements = |array: &Expr| -> Vec<Expr> {
        (0..len)
            .map(|k| {
                let k = syn::Index::from(k);
                syn::parse_quote!(#array[#k])
            })
            .collect()
    };
    match strip_parens(expr) {
        Expr::Array(array) => tuple_of(&array.elems.iter().cloned().collect::<Vec<_>>()),
        Expr::Repeat(repeat) => {
            let element = crate::syntax::fresh_local("array_element");
            let value = &repeat.expr;
            let parts = tuple_of(&vec![syn::parse_quote!(#element); len]);
            syn::parse_quote!({ let #element = #value; #parts })
        }
        Expr::Path(path) if path.path.get_ident().is_some() => tuple_of(&elements(expr)),
        Expr::Field(_) => tuple_of(&elements(expr)),
        Expr::Unary(unary)
            if matches!(unary.op, syn::UnOp::Deref(_))
                && matches!(strip_parens(&unary.expr), Expr::Path(path) if path.path.get_ident().is_some()) =>
        {
            tuple_of(&elements(&unary.expr))
        }
        // `core::array::from_fn(..)`: its type written, the result's, which `iterators`
        // needs to fill the array by a loop (`from_fn_let`)
        _ if crate::iterators::is_array_from_fn(expr) => {
            let array = crate::syntax::fresh_local("array_result");
            let parts = tuple_of(&elements(&syn::parse_quote!(#array)));
            syn::parse_quote!({ let #array: [#float; #len] = #expr; #parts })
        }
        _ => {
            let array = crate::syntax::fresh_local("array_result");
            let parts = tuple_of(&elements(&syn::parse_quote!(#array)));
            syn::parse_quote!({ let #array = #expr; #parts })
        }
    }
}

/// An array of rows' result position (`[[F; cols]; rows]`) as the twin's tuple of its
/// elements, row-major: a literal of rows each written as a literal, `[[a, b], [c, d]]`,
/// its elements as written (`(a, b, c, d)`: computed in the same order); any other
/// literal's rows bound first, in order, each read as [`array_parts`] reads an array (`[r,
/// [c, d]]` with `r` a local: `(r[0], r[1], c, d)`); a repeat's row once (`[[v; 2]; 2]` is
/// `{ let e = v; (e, e, e, e) }`, `[[a, b]; 2]` is `{ let e0 = a; let e1 = b; (e0, e1, e0,
/// e1) }`); a place read element by element (`m`: `(m[0][0], m[0][1], ..)`); anything
/// else bound first, `{ let r = f(..); (r[0][0], ..) }`, a local indexed by rows, which
/// `array_calls` makes the local array an annotated callee's writer writes. [`read_array`]
/// checked a literal's lengths.
fn rows_parts(expr: &Expr, rows: usize, cols: usize) -> Expr {
    // the locals bound before the tuple, each named apart (`array_element0`, ..)
    let fresh = std::cell::Cell::new(0);
    let fresh = |name: &str| {
        let k = fresh.get();
        fresh.set(k + 1);
        crate::syntax::fresh_local(format!("{name}{k}"))
    };
    let elements = |array: &Expr| -> Vec<Expr> {
        (0..rows * cols)
            .map(|k| {
                let (i, j) = (syn::Index::from(k / cols), syn::Index::from(k % cols));
                syn::parse_quote!(#array[#i][#j])
            })
            .collect()
    };
    // a row's elements: a literal's as written, else read by index from a place, or from
    // a local the row is bound to first (`bound`)
    let row_elements = |row: &Expr, bound: &mut Vec<syn::Stmt>| -> Vec<Expr> {
        match strip_parens(row) {
            Expr::Array(literal) => literal.elems.iter().cloned().collect(),
            Expr::Repeat(repeat) => {
                let element = fresh("array_element");
                let value = &repeat.expr;
                bound.push(syn::parse_quote!(let #element = #value;));
                vec![syn::parse_quote!(#element); cols]
            }
            place if is_place(place) => array_parts_elements(place, cols),
            _ => {
                let local = fresh("array_row");
                bound.push(syn::parse_quote!(let #local = #row;));
                array_parts_elements(&syn::parse_quote!(#local), cols)
            }
        }
    };
    let with_bound = |bound: Vec<syn::Stmt>, parts: Vec<Expr>| -> Expr {
        let parts = tuple_of(&parts);
        if bound.is_empty() {
            parts
        } else {
            syn::parse_quote!({ #(#bound)* #parts })
        }
    };
    match strip_parens(expr) {
        Expr::Array(array) => {
            let all_literals = array
                .elems
                .iter()
                .all(|row| matches!(strip_parens(row), Expr::Array(_)));
            if all_literals {
                let parts = array
                    .elems
                    .iter()
                    .flat_map(|row| match strip_parens(row) {
                        Expr::Array(literal) => literal.elems.iter().cloned().collect::<Vec<_>>(),
                        _ => unreachable!("every row a literal"),
                    })
                    .collect::<Vec<_>>();
                return tuple_of(&parts);
            }
            // each row that is no literal bound first, in the order written, so that the
            // rows' values are computed in order; a literal row's elements are bound too
            // when a later row is, for the same reason
            let mut bound = Vec::new();
            let mut parts = Vec::new();
            for row in &array.elems {
                match strip_parens(row) {
                    Expr::Array(literal) => {
                        for value in &literal.elems {
                            let element = fresh("array_element");
                            bound.push(syn::parse_quote!(let #element = #value;));
                            parts.push(syn::parse_quote!(#element));
                        }
                    }
                    _ => parts.extend(row_elements(row, &mut bound)),
                }
            }
            with_bound(bound, parts)
        }
        Expr::Repeat(repeat) => {
            let mut bound = Vec::new();
            let row: Vec<Expr> = match strip_parens(&repeat.expr) {
                Expr::Array(literal) => literal
                    .elems
                    .iter()
                    .map(|value| {
                        let element = fresh("array_element");
                        bound.push(syn::parse_quote!(let #element = #value;));
                        syn::parse_quote!(#element)
                    })
                    .collect(),
                _ => row_elements(&repeat.expr, &mut bound),
            };
            let parts = (0..rows).flat_map(|_| row.iter().cloned()).collect();
            with_bound(bound, parts)
        }
        place if is_place(place) => tuple_of(&elements(&place_of(place))),
        _ => {
            let array = crate::syntax::fresh_local("array_result");
            let parts = tuple_of(&elements(&syn::parse_quote!(#array)));
            syn::parse_quote!({ let #array = #expr; #parts })
        }
    }
}

/// Whether an array value is a place read element by element: a name, a field, `*p` of a
/// name.
fn is_place(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Path(path) => path.path.get_ident().is_some(),
        Expr::Field(_) => true,
        Expr::Unary(unary) => {
            matches!(unary.op, syn::UnOp::Deref(_))
                && matches!(strip_parens(&unary.expr), Expr::Path(path) if path.path.get_ident().is_some())
        }
        _ => false,
    }
}

/// The place [`is_place`] reads: `p` for `*p` (indexing reads through the reference).
fn place_of(expr: &Expr) -> Expr {
    match strip_parens(expr) {
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => (*unary.expr).clone(),
        expr => expr.clone(),
    }
}

/// `(a[0], .., a[len - 1])`'s elements of a place [`is_place`].
fn array_parts_elements(array: &Expr, len: usize) -> Vec<Expr> {
    let array = place_of(array);
    (0..len)
        .map(|k| {
            let k = syn::Index::from(k);
            syn::parse_quote!(#array[#k])
        })
        .collect()
}

/// A struct literal's field value as the twin returns it: `value` converted to the float
/// type through `generated::ResultField`, spanned at the field, as the companion converts
/// it back. A constant of another type (`n: count`, an integer) is then the trait's
/// message at the field, the same one the companion's conversion gives (rustc reports it
/// once), rather than a mismatch in the twin's tuple. Lowering reads an active value
/// through it as the value itself ([`result_part_value`]): a differentiable value is a
/// float, of that type or rustc's error at the user's value.
///
/// With `cast` (a method's twin's float type, a parameter's `f32` or `f64`, a function's
/// that is the struct's own through its alias, or a generic function's float type
/// parameter `T`), `cast_to_float`: lowering casts a differentiable value to the float
/// type (`Op::Cast`: `value as F`, or `generated::float_cast::<T, _>(value)` for a type
/// parameter, which `as` cannot name, `Generator::cast_to`), so that a float field of the
/// other float type (a method's struct of `f32`, a struct mixing `f32` and `f64` fields,
/// `energy: f64` in a generic function's `Observed<T>`) is the companion's `ResultField`
/// message alone, not also rustc's mismatches in the twin's tuple and adjoint (a field of
/// the float type casts to itself, the same bits). For a type parameter rustc adds to
/// that message a suggestion of a `where` bound (`f64: ResultField<T>`), worded after the
/// item's `where` clause: [`twin`] gives every generic twin one, so that the items made
/// from it say the same and the message is reported once. The cast is lowering's, not
/// written here: `params` takes a marked struct's field read only through `as` for a
/// constant's, and a constant keeps the conversion's check.
///
/// With `read` (the value is a field of a marked parameter of the result's own struct
/// type, `v: s.v`, or crossed, `x: s.v`: [`own_field_read`]), `read_to_float`
/// (`read_cast_to_float`): the same conversion, by a name `params` recognises, which then
/// checks that read through the result's conversion at the span `read` holds, the
/// result's field of the read's name (`v`'s), whose type the read has: a field of another
/// type is then one message (the result's, at that field) rather than one more at the
/// read. The method's name carries that span.
fn result_part(span: Span, float: &Type, value: &Expr, cast: bool, read: Option<Span>) -> Expr {
    let conversion = result_conversion(span, float);
    let method = match (read.is_some(), cast) {
        (false, false) => "to_float",
        (false, true) => "cast_to_float",
        (true, false) => "read_to_float",
        (true, true) => "read_cast_to_float",
    };
    let method = syn::Ident::new(method, read.unwrap_or(span));
    syn::parse_quote_spanned!(span=> #conversion.#method(#value))
}

/// The marked parameters (`#[differentiable]`) whose type is the result's struct type, as
/// spelled (`s: &Mixed` of `-> Mixed`, a marked `&self` of `-> Self`, or of `-> Swapped`
/// in an annotated `impl Swapped` block, `syntax::impl_self_type`): a field of theirs
/// has the type of the result's field of the same name (`true`). A marked `self` of a
/// method returning a type spelled by name outside an annotated block may be of another
/// type (`false`): a field of it returned has the type of the field it is returned as.
fn marked_of_the_result_type(item: &ItemFn) -> Vec<(String, bool)> {
    let ReturnType::Type(_, result) = &item.sig.output else {
        return Vec::new();
    };
    let spelled = |ty: &Type| {
        let mut ty = ty;
        while let Type::Reference(reference) = ty {
            ty = &reference.elem;
        }
        ty.to_token_stream().to_string()
    };
    let result = spelled(result);
    let marked =
        |attrs: &[syn::Attribute]| attrs.iter().any(|a| a.path().is_ident("differentiable"));
    item.sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Receiver(receiver) if marked(&receiver.attrs) => {
                let known = result == "Self"
                    || crate::syntax::impl_self_type().is_some_and(|ty| ty == result);
                Some(("self".to_string(), known))
            }
            FnArg::Typed(typed) if marked(&typed.attrs) && spelled(&typed.ty) == result => {
                match &*typed.pat {
                    Pat::Ident(pat) => Some((pat.ident.to_string(), true)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// The field of one of `params` a literal's field value is, read as it is (`s.v` of `v:
/// s.v`, or of `x: s.v`, the fields crossed), and whether the parameter is known to be of
/// the result's type (then the result's field of that name has its type).
fn own_field_read(value: &Expr, params: &[(String, bool)]) -> Option<(Member, bool)> {
    let Expr::Field(field) = strip_parens(value) else {
        return None;
    };
    let Expr::Path(path) = strip_parens(&field.base) else {
        return None;
    };
    let ident = path.path.get_ident().filter(|_| path.qself.is_none())?;
    let (_, known) = params.iter().find(|(param, _)| ident == param)?;
    Some((field.member.clone(), *known))
}

/// `generated::result_field::<F, _>()`, a field's conversions, at the field: the one
/// diagnostic of a field of another type (every generated function makes the same, which
/// rustc reports once).
pub(crate) fn result_conversion(span: Span, float: &Type) -> TokenStream {
    let at = crate::generate::paths::generated_at(span);
    let float = respanned(float.to_token_stream(), span);
    quote::quote_spanned!(span=> #at::result_field::<#float, _>())
}

/// `tokens` with every token at `span`.
fn respanned(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut rebuilt =
                    proc_macro2::Group::new(group.delimiter(), respanned(group.stream(), span));
                rebuilt.set_span(span);
                tree = proc_macro2::TokenTree::Group(rebuilt);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

/// The value a twin's [`result_part`] converts, if `call` is one, and the float type a
/// differentiable value is cast to (`cast_to_float`, a method's twin).
pub fn result_part_value(call: &syn::ExprMethodCall) -> Option<(&Expr, Option<Type>)> {
    let Expr::Call(made) = strip_parens(&call.receiver) else {
        return None;
    };
    let Expr::Path(func) = strip_parens(&made.func) else {
        return None;
    };
    let names: Vec<String> = func
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let shape = ["gradtape", "__private", "generated", "result_field"];
    if names != shape || !made.args.is_empty() || call.args.len() != 1 {
        return None;
    }
    let value = &call.args[0];
    if call.method == "to_float" || call.method == "read_to_float" {
        return Some((value, None));
    }
    if call.method != "cast_to_float" && call.method != "read_cast_to_float" {
        return None;
    }
    // `result_field::<F, _>`: `F`
    let last = func.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(float) => Some((value, Some(float.clone()))),
        _ => None,
    }
}

/// The value of a twin's [`result_part`] made with `read` (`read_to_float`: a field of a
/// marked parameter of the result's type), and the span of the result's field of the
/// read's name, where `params` checks that read.
pub fn result_read_value(call: &syn::ExprMethodCall) -> Option<(&Expr, Span)> {
    let (value, _) = result_part_value(call)?;
    let read = call.method == "read_to_float" || call.method == "read_cast_to_float";
    read.then(|| (value, call.method.span()))
}

/// The twin's companion items by name (`vjp`, `jvp`, ..), `None` if its expansion failed:
/// a function's are in its companion type's `impl` (the type named after the twin), a
/// method's (`method`, the twin's name) are `impl` items named after the twin
/// (`__gradtape_result_step_vjp`).
pub(crate) fn companion_items(
    tokens: &TokenStream,
    method: Option<&syn::Ident>,
) -> Option<BTreeMap<String, syn::ImplItemFn>> {
    crate::params::twin_companion_items(tokens, method, |ty| {
        matches!(ty, Type::Path(path) if path.path.segments.last()
            .is_some_and(|last| last.ident.to_string().starts_with("__gradtape_result_")))
    })
}

/// The user's companion: the twin's items, the struct built from the tuple and the
/// tuple's cotangent from the struct.
fn companion(
    item: &ItemFn,
    model: &Model,
    twin: &BTreeMap<String, syn::ImplItemFn>,
    writer: Option<&(syn::Signature, BTreeMap<String, syn::ImplItemFn>)>,
) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let twin_name = twin_name(item);
    let ReturnType::Type(_, result) = &item.sig.output else {
        unreachable!("a struct result")
    };
    let arity = model.shape.len();
    let one = arity == 1;
    let float = &model.float;
    // Each struct field converted through `generated::ResultField<F>`, spanned at the
    // user's field: it is a float of the function's float type `F`, or that trait's
    // message there, the one error (a plain conversion would be rustc's type errors at the
    // attribute, one per generated function). An array's elements are of the float type
    // `[F; N]` names: no conversion.
    let from_float = |k: usize, part: TokenStream| -> TokenStream {
        match &model.shape {
            Shape::Struct { spans, .. } => {
                let conversion = result_conversion(spans[k], float);
                quote!(#conversion.from_float(#part))
            }
            Shape::Array { .. } => part,
        }
    };
    let to_float = |k: usize, g: &syn::Ident| -> TokenStream {
        match &model.shape {
            Shape::Struct { fields, spans, .. } => {
                let conversion = result_conversion(spans[k], float);
                let field = &fields[k];
                quote!(#conversion.to_float(#g.#field))
            }
            Shape::Array { row: None, .. } => {
                let k = syn::Index::from(k);
                quote!(#g[#k])
            }
            Shape::Array { row: Some(row), .. } => {
                let (i, j) = (syn::Index::from(k / row), syn::Index::from(k % row));
                quote!(#g[#i][#j])
            }
        }
    };
    // the struct or array from a tuple of its parts' values (or tangents)
    let build = |tuple: &syn::Ident| -> TokenStream {
        let values: Vec<TokenStream> = if one {
            vec![from_float(0, quote!(#tuple))]
        } else {
            (0..arity)
                .map(|k| {
                    let index = syn::Index::from(k);
                    from_float(k, quote!(#tuple.#index))
                })
                .collect()
        };
        match &model.shape {
            Shape::Struct { path, fields, .. } => quote!(#path { #(#fields: #values),* }),
            Shape::Array { row: None, .. } => quote!([#(#values),*]),
            Shape::Array { row: Some(row), .. } => {
                let rows = values.chunks(*row).map(|row| quote!([#(#row),*]));
                quote!([#(#rows),*])
            }
        }
    };
    // the tuple's cotangent from the result's, every part's given: what the twin's `vjp`
    // takes, for the user's `vjp` (whose caller gives the whole cotangent)
    let exact_cotangent = |g: &syn::Ident| -> TokenStream {
        if one {
            to_float(0, g)
        } else {
            let parts = (0..arity).map(|k| to_float(k, g));
            quote!((#(::core::option::Option::Some(#parts)),*))
        }
    };
    // the twin's cotangent (what its `vjp_partial`'s pullback takes: `Option` of a float,
    // or of a tuple of them) from the result's: a struct's cotangent is a value of it,
    // zero in a field that got none (`zero_like` where the caller read other fields), so
    // a zero part is none (`generated::field_cotangent`), never a zero that would meet
    // an infinite partial of the part (`0 · ∞`, NaN)
    let generated = crate::generate::paths::generated();
    let cotangent = |g: &syn::Ident| -> TokenStream {
        if one {
            let part = to_float(0, g);
            quote!(#generated::field_cotangent(#part))
        } else {
            let parts = (0..arity).map(|k| to_float(k, g));
            quote!(::core::option::Option::Some((#(#generated::field_cotangent(#parts)),*)))
        }
    };
    let [value, pullback, g, tangent] = ["value", "pullback", "g", "tangent"].map(mixed);
    // an item of the twin (`Twin::vjp`, or `Self::__gradtape_result_step_vjp`), and the
    // name of one of the user's (`vjp`, or `step_vjp`)
    let twin_item = |item: &str| -> TokenStream {
        if model.method {
            let twin = crate::syntax::method_companion(&twin_name, item);
            quote!(Self::#twin)
        } else {
            let item = syn::Ident::new(item, Span::call_site());
            quote!(#twin_name::#item)
        }
    };
    let own_name = |item: &str| -> syn::Ident {
        if model.method {
            crate::syntax::method_companion(name, item)
        } else {
            syn::Ident::new(item, Span::call_site())
        }
    };

    // vjp: the pullback takes a value of the struct
    let vjp = {
        let twin_vjp = &twin["vjp"];
        let mut sig = twin_vjp.sig.clone();
        let boxed = set_vjp_types(&mut sig.output, result, result);
        let inputs = &sig.inputs;
        let (generics, output) = (&sig.generics, &sig.output);
        let where_clause = &generics.where_clause;
        let args = arg_names(&twin_vjp.sig);
        let (value_of, cotangent_of) = (build(&value), exact_cotangent(&g));
        let mut pullback_fn = quote!(move |#g: #result| #pullback(#cotangent_of));
        let (call_vjp, vjp_name) = (twin_item("vjp"), own_name("vjp"));
        if boxed {
            pullback_fn = quote!(::std::boxed::Box::new(#pullback_fn));
        }
        quote! {
            /// The forward value (a value of the struct) and the pullback: it takes the
            /// result's cotangent as a value of the struct (every field its cotangent) and
            /// gives one entry per parameter, `Option` of a cotangent for a differentiable
            /// one, `()` for a constant.
            #[inline]
            pub fn #vjp_name #generics (#inputs) #output #where_clause {
                let (#value, #pullback) = #call_vjp(#(#args),*);
                let #value = #value_of;
                (#value, #pullback_fn)
            }
        }
    };

    // vjp_partial, hidden: `vjp` whose pullback takes `Option` of the struct's cotangent
    // (`None`: none, the twin's `None`), what a caller's forward code calls for a call
    // passing on a `&mut` parameter (`Stmt::CallWrites`; `phase_of(y, dt)`)
    let vjp_partial = {
        let twin_vjp = &twin["vjp"];
        let mut sig = twin_vjp.sig.clone();
        let optional: Type = syn::parse_quote!(::core::option::Option<#result>);
        let boxed = set_vjp_types(&mut sig.output, result, &optional);
        let inputs = &sig.inputs;
        let (generics, output) = (&sig.generics, &sig.output);
        let where_clause = &generics.where_clause;
        let args = arg_names(&twin_vjp.sig);
        let (value_of, cotangent_of) = (build(&value), cotangent(&g));
        let mut pullback_fn =
            quote!(move |#g: #optional| #pullback(#g.and_then(|#g| #cotangent_of)));
        let (call_vjp, vjp_name) = (twin_item("vjp_partial"), own_name("vjp_partial"));
        if boxed {
            pullback_fn = quote!(::std::boxed::Box::new(#pullback_fn));
        }
        quote! {
            #[doc(hidden)]
            #[inline]
            pub fn #vjp_name #generics (#inputs) #output #where_clause {
                let (#value, #pullback) = #call_vjp(#(#args),*);
                let #value = #value_of;
                (#value, #pullback_fn)
            }
        }
    };

    // vjp_now and vjp_into, hidden: what an annotated caller's `grad`, `grad_into` and
    // `vjp_now` call for a call whose struct result it holds as one value (`let s =
    // step(..); norm(&s)`), joint or replayed (`generate::replay`), as for a float
    // result. Built on the twin's `vjp` (a tuple result has neither of its own): the
    // pullback applied at once to the struct's cotangent; `vjp_into` adds each
    // differentiable array's cotangent into its sink, its entry then `()`.
    let (vjp_now, vjp_into) = {
        let twin_vjp = &twin["vjp"];
        let sig = &twin_vjp.sig;
        let (inputs, generics) = (&sig.inputs, &sig.generics);
        let where_clause = &generics.where_clause;
        let args = arg_names(sig);
        let entries = pullback_output(&sig.output);
        let value_of = build(&value);
        let cotangent_of = cotangent(&g);
        let call_vjp = twin_item("vjp_partial");
        let vjp_now_name = own_name("vjp_now");
        let vjp_now = quote! {
            #[doc(hidden)]
            #[inline]
            pub fn #vjp_now_name #generics (#inputs, #g: #result) -> (#result, #entries) #where_clause {
                let (#value, #pullback) = #call_vjp(#(#args),*);
                (#value_of, #pullback(#cotangent_of))
            }
        };
        // one sink per parameter, as `generate::vjp_into_fn` takes them: an array's is
        // `Sink` of its element type, every other's `NoArraySink`
        let (params, mode) =
            sig::parse(item).map_or((Vec::new(), Mode::Scalar), |sig| (sig.params, sig.mode));
        // the entries' types, an array's `()` (its cotangent is in its sink)
        let mut entry_types: Vec<Type> = match &entries {
            Type::Tuple(tuple) => tuple.elems.iter().cloned().collect(),
            _ => unreachable!("the entries are a tuple"),
        };
        let generated = crate::generate::paths::generated();
        let mut generics = generics.clone();
        let (mut sinks, mut sink_types, mut entries_out) = (Vec::new(), Vec::new(), Vec::new());
        let [grads] = ["grads"].map(mixed);
        for (k, arg) in args.iter().enumerate() {
            let ty = format_ident!("GradtapeSink{k}");
            let sink = mixed(&format!("sink{k}"));
            let index = syn::Index::from(k);
            let array = params.iter().find(|param| {
                param.ident == arg.to_string()
                    && param.differentiable(mode)
                    && matches!(param.kind, Kind::Array { .. })
                    && !param.is_ragged()
                    && !param.is_output_array()
            });
            let bound: syn::TypeParam = match array.and_then(|param| param.elem.as_ref()) {
                Some(elem) => {
                    entries_out.push(quote!({
                        #generated::entry_into_sink(#grads.#index, #sink);
                    }));
                    entry_types[k] = syn::parse_quote!(());
                    syn::parse_quote!(#ty: #generated::Sink<#elem>)
                }
                None => {
                    entries_out.push(quote!(#grads.#index));
                    syn::parse_quote!(#ty: #generated::NoArraySink)
                }
            };
            generics.params.push(syn::GenericParam::Type(bound));
            sinks.push(sink);
            sink_types.push(ty);
        }
        let vjp_into_name = own_name("vjp_into");
        let vjp_into = quote! {
            #[doc(hidden)]
            #[inline]
            pub fn #vjp_into_name #generics (#inputs, #g: ::core::option::Option<#result>, (#(#sinks,)*): (#(#sink_types,)*)) -> (#result, (#(#entry_types,)*)) #where_clause {
                let (#value, #pullback) = #call_vjp(#(#args),*);
                let #grads = #pullback(#g.and_then(|#g| #cotangent_of));
                (#value_of, (#(#entries_out,)*))
            }
        };
        (vjp_now, vjp_into)
    };

    // jvp (and the hidden `jvp_call` an annotated caller's tangent code calls, its
    // tangents one tuple of entries): the value and the tangent, each a value of the struct
    let tangent_item = |item: &str, doc: TokenStream| {
        twin.get(item).map(|twin_fn| {
            let sig = &twin_fn.sig;
            let (inputs, generics) = (&sig.inputs, &sig.generics);
            let where_clause = &generics.where_clause;
            let args = arg_names(sig);
            let (value_of, tangent_of) = (build(&value), build(&tangent));
            let (call, name) = (twin_item(item), own_name(item));
            quote! {
                #doc
                #[inline]
                pub fn #name #generics (#inputs) -> (#result, #result) #where_clause {
                    let (#value, #tangent) = #call(#(#args),*);
                    (#value_of, #tangent_of)
                }
            }
        })
    };
    let jvp = tangent_item(
        "jvp",
        quote! {
            /// The value and its directional derivative, each a value of the struct: one
            /// tangent per differentiable parameter, in order, after all the parameters, in
            /// one forward pass.
        },
    );
    let jvp_call = tangent_item("jvp_call", quote!(#[doc(hidden)]));

    // primal: the body as written, with the twin's generics (its float bounds)
    let primal = {
        let sig = &twin["vjp"].sig;
        let (inputs, generics) = (&sig.inputs, &sig.generics);
        let where_clause = &generics.where_clause;
        let block = &item.block;
        let primal_name = own_name("primal");
        quote! {
            /// The original body, run as written.
            #[inline]
            #[allow(unused_mut)]
            pub fn #primal_name #generics (#inputs) -> #result #where_clause #block
        }
    };
    // what the result is, and its parts, in the docs
    let (kind, what, parts) = match &model.shape {
        Shape::Struct { .. } => ("a struct of floats", "the struct", "the struct's fields"),
        Shape::Array { .. } => ("an array of floats", "the array", "the array's elements"),
    };
    let doc = if model.method {
        format!(
            "What `#[differentiable]` generated for [`{name}`](Self::{name}), whose result \
             is {kind}, written for {parts} as a tuple. Beside it: `{name}_vjp`, whose \
             pullback takes the result's cotangent as a value of {what}, and `{name}_jvp`, \
             which gives the value and the tangent as values of it."
        )
    } else {
        format!(
            "What `#[differentiable]` generated for [`{name}`](fn@{name}), whose result is \
             {kind}: `{name}::vjp`'s pullback takes the result's cotangent as a value of \
             {what}, `{name}::jvp` gives the value and the tangent as values of {what}. \
             `{name}::GENERATED` shows the code, written for {parts} as a tuple."
        )
    };
    crate::params::TwinCompanion {
        vis,
        name,
        twin_name: &twin_name,
        method: model.method,
        doc,
        generated_doc: match &model.shape {
            Shape::Struct { .. } => {
                "The generated forward and adjoint code, as readable source (the struct's \
                 fields a tuple)."
            }
            Shape::Array { .. } => {
                "The generated forward and adjoint code, as readable source (the array's \
                 elements a tuple)."
            }
        },
    }
    .place(
        [
            Some(primal),
            Some(vjp),
            Some(vjp_partial),
            Some(vjp_now),
            Some(vjp_into),
            jvp,
            jvp_call,
        ]
        .into_iter()
        .flatten()
        .chain(writer.map(writer_items).into_iter().flatten()),
    )
}

/// An array result's writer ([`writer`]) and its companion items, as the user's
/// companion's hidden `__gradtape_write`, `__gradtape_write_vjp`,
/// `__gradtape_write_vjp_partial`, .. (each calling the writer's): what a caller's
/// `Callee::Writer` calls, found through the user's function's name as every callee's
/// items are (`ir::through_companion`), so that a function that is not annotated is the
/// runtime's message at its name (`generated::NotAnnotated` has items of these names).
fn writer_items(
    (sig, items): &(syn::Signature, BTreeMap<String, syn::ImplItemFn>),
) -> Vec<TokenStream> {
    hidden_items(crate::array_calls::WRITER, sig, items)
}

/// A hidden companion of the user's companion type, `prefix` (`__gradtape_write`,
/// `__gradtape_option`): an item of that name calling the function `function` (the writer,
/// the twin), and one per item of its companion `items` a caller's generated code calls
/// (`vjp`, `vjp_partial`, `vjp_now`, `vjp_into`, `jvp_call`), `{prefix}_{item}`, each
/// calling the item with the same signature.
pub(crate) fn hidden_items(
    prefix: &str,
    function: &syn::Signature,
    items: &BTreeMap<String, syn::ImplItemFn>,
) -> Vec<TokenStream> {
    let name = &function.ident;
    // the function's parameters without their marks (`#[differentiable] s: &S`), which
    // only the attribute reads
    let mut inputs = function.inputs.clone();
    for input in &mut inputs {
        match input {
            FnArg::Typed(typed) => typed.attrs.clear(),
            FnArg::Receiver(receiver) => receiver.attrs.clear(),
        }
    }
    let generics = &function.generics;
    let where_clause = &generics.where_clause;
    let output = &function.output;
    let args = arg_names(function);
    let own = format_ident!("{prefix}");
    let mut written = vec![quote! {
        #[doc(hidden)]
        #[inline]
        pub fn #own #generics (#inputs) #output #where_clause {
            #name(#(#args),*)
        }
    }];
    for (item, f) in items {
        if !matches!(
            item.as_str(),
            "vjp" | "vjp_partial" | "vjp_now" | "vjp_into" | "jvp_call"
        ) {
            continue;
        }
        let mut f = f.clone();
        let args = arg_names(&f.sig);
        let item = Ident::new(item, Span::call_site());
        f.sig.ident = format_ident!("{prefix}_{item}");
        f.attrs = vec![
            syn::parse_quote!(#[doc(hidden)]),
            syn::parse_quote!(#[inline]),
        ];
        f.block = syn::parse_quote!({ #name::#item(#(#args),*) });
        written.push(f.to_token_stream());
    }
    written
}

/// The entries a `vjp`'s pullback gives: `E` in its return type `(R, impl Fn(G) -> E + ..)`
/// (or `Box<dyn Fn(G) -> E>`).
pub(crate) fn pullback_output(output: &ReturnType) -> Type {
    let ReturnType::Type(_, ty) = output else {
        unreachable!("`vjp` returns the value and the pullback")
    };
    let Type::Tuple(pair) = &**ty else {
        unreachable!("`vjp` returns a pair")
    };
    let bounds = match pair.elems.iter().nth(1).expect("the pullback") {
        Type::ImplTrait(pullback) => &pullback.bounds,
        Type::Path(boxed) => match &boxed.path.segments.last().expect("`Box`").arguments {
            PathArguments::AngleBracketed(args) => match args.args.first() {
                Some(syn::GenericArgument::Type(Type::TraitObject(object))) => &object.bounds,
                _ => unreachable!("`Box<dyn Fn(..)>`"),
            },
            _ => unreachable!("`Box<dyn Fn(..)>`"),
        },
        _ => unreachable!("the pullback is `impl Fn` or boxed"),
    };
    bounds
        .iter()
        .find_map(|bound| match bound {
            syn::TypeParamBound::Trait(bound) => match &bound.path.segments.last()?.arguments {
                PathArguments::Parenthesized(args) => match &args.output {
                    ReturnType::Type(_, out) => Some((**out).clone()),
                    ReturnType::Default => None,
                },
                _ => None,
            },
            _ => None,
        })
        .expect("the pullback's `Fn(G) -> E` bound")
}

/// The parameters' names, in order, to pass them on (a tuple of names, `vjp_into`'s
/// sinks, as the tuple).
pub(crate) fn arg_names(sig: &syn::Signature) -> Vec<TokenStream> {
    sig.inputs
        .iter()
        .map(|input| match input {
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(pat) => pat.ident.to_token_stream(),
                Pat::Tuple(tuple) => {
                    let names = tuple.elems.iter();
                    quote!((#(#names,)*))
                }
                _ => unreachable!("generated parameters are names"),
            },
            FnArg::Receiver(receiver) => receiver.self_token.to_token_stream(),
        })
        .collect()
}

/// `vjp`'s return type `(R, impl Fn(G) -> E + use<..>)` (or `Box<dyn Fn(G) -> E>`) with
/// the struct `result` for `R` and `cotangent` for `G` (the struct, or `Option` of it for
/// `vjp_partial`); whether the pullback is boxed.
pub(crate) fn set_vjp_types(output: &mut ReturnType, result: &Type, cotangent: &Type) -> bool {
    let ReturnType::Type(_, ty) = output else {
        unreachable!("`vjp` returns the value and the pullback")
    };
    let Type::Tuple(pair) = &mut **ty else {
        unreachable!("`vjp` returns a pair")
    };
    let mut elems = pair.elems.iter_mut();
    *elems.next().expect("the value") = result.clone();
    let pullback = elems.next().expect("the pullback");
    let (bounds, boxed) = match pullback {
        Type::ImplTrait(pullback) => (&mut pullback.bounds, false),
        Type::Path(boxed) => {
            let last = boxed.path.segments.last_mut().expect("`Box`");
            let PathArguments::AngleBracketed(args) = &mut last.arguments else {
                unreachable!("`Box<dyn Fn(..)>`")
            };
            match args.args.first_mut() {
                Some(syn::GenericArgument::Type(Type::TraitObject(object))) => {
                    (&mut object.bounds, true)
                }
                _ => unreachable!("`Box<dyn Fn(..)>`"),
            }
        }
        _ => unreachable!("the pullback is `impl Fn` or boxed"),
    };
    for bound in bounds {
        if let syn::TypeParamBound::Trait(bound) = bound
            && let Some(last) = bound.path.segments.last_mut()
            && let PathArguments::Parenthesized(args) = &mut last.arguments
        {
            // one input, the tuple's cotangent
            if let Some(input) = args.inputs.first_mut() {
                input.ty = cotangent.clone();
            }
        }
    }
    boxed
}

/// A caller's call of a function with a struct result read by its fields (`let s =
/// step(..);`, then `s.x`, `s.v`: `Stmt::CallParts` with `fields`): the callee's
/// `vjp_partial` call `call`, `(S, impl Fn(Option<S>) -> E)`, made a tuple result's,
/// `((s.x, s.v), impl Fn((Option<F>, Option<F>)) -> E)`, so the caller's code is a tuple
/// result's. The pullback's struct cotangent is a zero of the struct
/// (`Differentiable::zero_like`, from the value) with each read field's cotangent in it:
/// a field the caller does not read is zero, which `vjp_partial` takes for none
/// (`generated::field_cotangent`), so it meets none of the field's partials.
pub fn parts_vjp(call: &TokenStream, fields: &[Member]) -> TokenStream {
    let private = crate::generate::paths::private();
    let [value, pullback, zero, g, cotangent, part] =
        ["value", "pullback", "zero", "g", "cotangent", "part"].map(mixed);
    let index: Vec<syn::Index> = (0..fields.len()).map(syn::Index::from).collect();
    let options = fields.iter().map(|_| quote!(::core::option::Option<_>));
    quote!({
        let (#value, #pullback) = #call;
        let #zero = #private::Differentiable::zero_like(&#value);
        (
            (#(#value.#fields,)*),
            move |#g: (#(#options,)*)| {
                let mut #cotangent = #private::Differentiable::zero_like(&#zero);
                #(
                    if let ::core::option::Option::Some(#part) = #g.#index {
                        #cotangent.#fields = #part;
                    }
                )*
                #pullback(::core::option::Option::Some(#cotangent))
            },
        )
    })
}

/// [`parts_vjp`] for the tangent code: the callee's `jvp_call` call `call`, `(S, S)`, made
/// `((s.x, s.v), (ṡ.x, ṡ.v))`.
pub fn parts_jvp(call: &TokenStream, fields: &[Member]) -> TokenStream {
    let [value, tangent] = ["value", "tangent"].map(mixed);
    quote!({
        let (#value, #tangent) = #call;
        ((#(#value.#fields,)*), (#(#tangent.#fields,)*))
    })
}
