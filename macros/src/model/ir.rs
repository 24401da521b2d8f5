//! The IR: the model of the body that lowering gives and the later phases read. The body as
//! the adjoint sees it: statements whose differentiable operations are split into one
//! primitive each (a compile-time tape), with the control flow kept as it was.
//! Forward code is the user's own expressions, rebuilt from `fwd` fields; the adjoint walks
//! the same statements in reverse.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, Ident, Pat, Path, Type};

/// The function a call reaches, and so how its derivative is had.
pub enum Callee {
    /// `f(args)`, an annotated function: its items are `f::vjp`, `f::jvp_call` (the
    /// companion type beside `fn f`).
    Function(Path),
    /// `receiver.f(args)`, a `#[differentiable]` method: the items are the associated
    /// functions `f_vjp`, `f_jvp_call` beside it, called by method syntax on the same
    /// receiver (the call's first operand), so the receiver's type need not be known here.
    Method(Ident),
    /// `Type::f(args)` or `Self::f(args)`, an associated function (no `self`) of an `impl`
    /// block annotated with `#[differentiable]`: the items are the associated functions
    /// `Type::f_vjp`, `Type::f_jvp_call` beside it, as a method's
    /// ([`is_annotated_associated`](crate::syntax::is_annotated_associated)).
    Associated(Path),
    /// `helper(args)`, a plain helper named in `plain(..)`: not annotated, so it runs on
    /// dual numbers (`generated::dual_vjp`, `generated::dual_jvp`), one evaluation giving
    /// the value and the partials along every differentiable argument. Its differentiable
    /// arguments are numbers (lowering rejects arrays).
    Plain(Path),
    /// A call of another callee (a function, by its path) given a struct of differentiable
    /// values built by a literal (`step(&State { x: a, v: b }, dt)`, as `fields.rs` makes
    /// `step(&s, dt)` of a local struct): the call's operands are the literal's fields,
    /// one each (`a, b, dt`), and `shapes` says how to put them back into the callee's
    /// arguments. The callee's pullback entry of the struct (`Option<S>`) gives each
    /// field's cotangent, its tangent entry is the struct of the fields' tangents.
    Gathered(Box<Callee>, Vec<ArgShape>),
    /// `s.x`, a named field of a value the caller holds whole (a struct result bound by
    /// `let` and used otherwise than by its fields, `let s = step(..); norm(&s) + s.x`):
    /// read as a call of one operand, `s`, whose pullback gives the struct's cotangent, a
    /// zero of it (`Differentiable::zero_like`) with the field's cotangent in the field,
    /// and whose tangent is the field of the struct's tangent. The macro need not know the
    /// struct's other fields: the zero has them all.
    Field(syn::Member),
    /// `let c = f(args);` of an annotated function `f` with an array result, `c` indexed
    /// or iterated later (`array_calls`): the call writes the caller's local array `c`
    /// (the last argument, `&mut c`) through `f`'s array writer, whose items are `f`'s
    /// companion's `__gradtape_write`, `__gradtape_write_vjp_partial`, .. (`results`), a
    /// call writing a `&mut` array ([`Stmt::CallWrites`]) like any other.
    Writer(Path),
    /// `let r = f(args);` of an annotated function `f` with an `Option` result, `r` read as
    /// an option later (`options`): the call's two parts, the value and the variant
    /// (`generated::option_parts`), through `f`'s companion's `__gradtape_option`,
    /// `__gradtape_option_vjp_partial`, .. (`option_results`), a call with a tuple result
    /// like any other.
    Option(Path),
}

/// How a [`Callee::Gathered`] call's operands make one of its arguments.
#[derive(Clone, Debug)]
pub enum ArgShape {
    /// One operand, the argument as written.
    One,
    /// A struct literal (borrowed, `&S { .. }`, or by value), one operand per field, in the
    /// literal's order.
    Struct {
        path: Path,
        members: Vec<syn::Member>,
        by_ref: bool,
    },
}

/// The callee's arguments from a [`Callee::Gathered`] call's operands (`flat`, one per
/// operand, then anything after them: a cotangent, the tangents), each struct built
/// again by its literal; `field` maps a field's operand (its value, or its tangent).
fn regroup(
    shapes: &[ArgShape],
    flat: Vec<TokenStream>,
    field: impl Fn(TokenStream) -> TokenStream,
) -> Vec<TokenStream> {
    let mut flat = flat.into_iter();
    let mut args = Vec::new();
    for shape in shapes {
        match shape {
            ArgShape::One => args.extend(flat.next()),
            ArgShape::Struct {
                path,
                members,
                by_ref,
            } => {
                let values: Vec<TokenStream> = members
                    .iter()
                    .filter_map(|_| flat.next())
                    .map(&field)
                    .collect();
                let by_ref = by_ref.then(|| quote!(&));
                args.push(quote!(#by_ref #path { #(#members: #values),* }));
            }
        }
    }
    args.extend(flat);
    args
}

impl Callee {
    /// The call itself, on the arguments as written.
    pub fn primal(&self, args: &[Operand]) -> TokenStream {
        if let Callee::Field(member) = self {
            let whole = args[0].fwd();
            return quote!((#whole).#member);
        }
        self.companion(None, forward_args(args))
    }

    /// `(value, pullback)`: the pullback takes the result's cotangent and gives one entry
    /// per argument, an `Option` of the cotangent for a differentiable one.
    pub fn vjp(&self, args: &[Operand]) -> TokenStream {
        match self {
            Callee::Plain(path) => {
                let plain = plain_call(path, args);
                let (bind, run) = (&plain.bind, plain.run("dual_vjp", None));
                let result = crate::syntax::mixed("result");
                let partials = crate::syntax::mixed("partials");
                let mut k = 0;
                let entries = args.iter().map(|arg| match arg.binding() {
                    Some(_) => {
                        let index = syn::Index::from(k);
                        k += 1;
                        quote!(::core::option::Option::Some(#partials[#index]))
                    }
                    None => quote!(()),
                });
                quote! {{
                    #bind
                    let (value, #result) = #run;
                    (value, move |g| {
                        let #partials = generated::DualResult::pullback(&#result, g);
                        (#(#entries,)*)
                    })
                }}
            }
            Callee::Gathered(inner, shapes) => Self::gathered_vjp(inner, shapes, args, "vjp", 0),
            Callee::Field(member) => {
                let private = crate::generate::paths::private();
                let [whole, zero, g, cotangent] =
                    ["whole", "zero", "g", "cotangent"].map(crate::syntax::mixed);
                let fwd = args[0].fwd();
                quote!({
                    let #whole = &(#fwd);
                    let #zero = #private::Differentiable::zero_like(#whole);
                    (#whole.#member, move |#g| {
                        let mut #cotangent = #private::Differentiable::zero_like(&#zero);
                        #cotangent.#member = #g;
                        (::core::option::Option::Some(#cotangent),)
                    })
                })
            }
            _ => self.companion(Some("vjp"), forward_args(args)),
        }
    }

    /// `vjp` (or `vjp_partial`, `item`) of a [`Callee::Gathered`] call: the struct's entry
    /// (`Option<S>`) read field by field, one entry per operand. The pullback takes the
    /// cotangent, then `shadows` written arrays' shadows (a call writing `&mut` arrays,
    /// `Stmt::CallWrites`), passed on to the callee's.
    fn gathered_vjp(
        inner: &Callee,
        shapes: &[ArgShape],
        args: &[Operand],
        item: &str,
        shadows: usize,
    ) -> TokenStream {
        let [value, pullback, g, entries] =
            ["value", "pullback", "g", "entries"].map(crate::syntax::mixed);
        // each `&mut [_]` spelled, so that the closure takes any borrow (higher-ranked),
        // as the callee's pullback does
        let shadows: Vec<proc_macro2::Ident> = (0..shadows)
            .map(|k| crate::syntax::mixed(&format!("shadow{k}")))
            .collect();
        let call = inner.companion(Some(item), regroup(shapes, forward_args(args), |v| v));
        let mut flat = Vec::new();
        for (k, shape) in shapes.iter().enumerate() {
            let index = syn::Index::from(k);
            match shape {
                ArgShape::One => flat.push(quote!(#entries.#index)),
                ArgShape::Struct { path, members, .. } => {
                    // at the user's literal: a callee holding it constant is the
                    // runtime's message there
                    let span = syn::spanned::Spanned::span(path);
                    let at = crate::generate::paths::generated_at(span);
                    // each field's cotangent cloned out of the entry (an array field's
                    // is no `Copy`)
                    for member in members {
                        flat.push(quote::quote_spanned!(span=> #at::StructEntry::field(&#entries.#index, |s| ::core::clone::Clone::clone(&s.#member))));
                    }
                }
            }
        }
        quote!({
            let (#value, #pullback) = #call;
            (#value, move |#g #(, #shadows: &mut [_])*| {
                let #entries = #pullback(#g #(, #shadows)*);
                (#(#flat,)*)
            })
        })
    }

    /// `(value, pullback)` of a call writing `&mut` arrays (`Stmt::CallWrites`) or with a
    /// struct result (held whole, or read by field), whose callee is annotated (by path,
    /// a method, or with struct literals gathered): the callee's `vjp_partial`, whose
    /// pullback takes `Option` of the result's cotangent, `None` for a value that reaches
    /// nothing (skipped, where a zero would meet an infinite partial: `0 · ∞` is NaN), and
    /// for a struct, a zero field for none.
    pub fn vjp_partial(&self, args: &[Operand]) -> TokenStream {
        match self {
            Callee::Function(_)
            | Callee::Associated(_)
            | Callee::Method(_)
            | Callee::Writer(_)
            | Callee::Option(_) => self.companion(Some("vjp_partial"), forward_args(args)),
            Callee::Gathered(inner, shapes) => {
                Self::gathered_vjp(inner, shapes, args, "vjp_partial", 0)
            }
            Callee::Field(_) => {
                // a struct field of a struct: its one entry, none for none
                let [value, pullback, g] = ["value", "pullback", "g"].map(crate::syntax::mixed);
                let call = self.vjp(args);
                quote!({
                    let (#value, #pullback) = #call;
                    (#value, move |#g: ::core::option::Option<_>| match #g {
                        ::core::option::Option::Some(#g) => #pullback(#g),
                        ::core::option::Option::None => (::core::option::Option::None,),
                    })
                })
            }
            Callee::Plain(_) => {
                unreachable!("a plain helper (dual numbers) writes no array and returns a float")
            }
        }
    }

    /// [`vjp_partial`](Self::vjp_partial) of a call writing `shadows` arrays
    /// (`Stmt::CallWrites`): its pullback takes their shadows after the cotangent, a
    /// [`Callee::Gathered`] call's too.
    pub fn vjp_partial_writing(&self, args: &[Operand], shadows: usize) -> TokenStream {
        match self {
            Callee::Gathered(inner, shapes) => {
                Self::gathered_vjp(inner, shapes, args, "vjp_partial", shadows)
            }
            _ => self.vjp_partial(args),
        }
    }

    /// `(value, entries)`: the callee's `vjp_now`, its forward and adjoint at once on the
    /// cotangent `g` (joint mode, in a caller's `grad_into` or `vjp_now`).
    pub fn vjp_now(&self, args: &[Operand], g: TokenStream) -> TokenStream {
        let mut call_args = forward_args(args);
        call_args.push(g);
        self.companion(Some("vjp_now"), call_args)
    }

    /// `(value, entries)`: the callee's `vjp_into`, its forward and adjoint at once on the
    /// cotangent `g` (an `Option`: `None`, none, for a value that reaches nothing), each array argument's cotangent added into its sink in `sinks` (a
    /// tuple, one per argument), for a replayed call in a caller's `grad_into`, `grad` or
    /// `vjp_now` (see `generated`'s `replay`).
    pub fn vjp_into(
        &self,
        args: Vec<TokenStream>,
        g: TokenStream,
        sinks: Vec<TokenStream>,
    ) -> TokenStream {
        let mut call_args = args;
        call_args.push(g);
        call_args.push(quote!((#(#sinks,)*)));
        self.companion(Some("vjp_into"), call_args)
    }

    /// `(value, tangent)`, given each argument's tangent entry (`generated::NoTangent`
    /// for a constant).
    pub fn jvp(&self, args: &[Operand], tangents: Vec<TokenStream>) -> TokenStream {
        match self {
            Callee::Plain(path) => {
                let plain = plain_call(path, args);
                let tangents = args
                    .iter()
                    .zip(tangents)
                    .filter(|(arg, _)| arg.binding().is_some())
                    .map(|(_, tangent)| tangent)
                    .collect();
                let (bind, run) = (&plain.bind, plain.run("dual_jvp", Some(tangents)));
                quote!({ #bind #run })
            }
            Callee::Field(member) => {
                // the struct's tangent, a value of it (its operand is active)
                let (whole, tangent) = (args[0].fwd(), &tangents[0]);
                quote!(((#whole).#member, (#tangent).#member))
            }
            Callee::Gathered(inner, shapes) => {
                // a struct's tangent entry is the struct of its fields' tangents (a zero for
                // a constant field's `NoTangent`)
                let generated = crate::generate::paths::generated();
                let tangents = regroup(shapes, tangents, |t| quote!(#generated::field_tangent(#t)));
                let mut call_args = regroup(shapes, forward_args(args), |v| v);
                call_args.push(quote!((#(#tangents,)*)));
                inner.companion(Some("jvp_call"), call_args)
            }
            _ => {
                let mut call_args = forward_args(args);
                call_args.push(quote!((#(#tangents,)*)));
                self.companion(Some("jvp_call"), call_args)
            }
        }
    }

    /// The call of the function itself (`item` `None`) or of one of its companion items,
    /// with `args` (for a method, the receiver first).
    fn companion(&self, item: Option<&str>, args: Vec<TokenStream>) -> TokenStream {
        match self {
            Callee::Field(_) => unreachable!(
                "a field read is never joint nor replayed (`joint_call`, `replayed_call`)"
            ),
            // the call as written (its pullback and tangents are `vjp`'s and `jvp`'s; never
            // joint nor replayed, `joint_call`, `replayed_call`)
            Callee::Gathered(inner, shapes) => inner.companion(item, regroup(shapes, args, |v| v)),
            Callee::Writer(path) => hidden_companion(path, crate::array_calls::WRITER, item, args),
            Callee::Option(path) => {
                hidden_companion(path, crate::option_results::HIDDEN, item, args)
            }
            Callee::Function(path) | Callee::Plain(path) => match item {
                None => quote!(#path(#(#args),*)),
                Some(item) => {
                    // `jvp_call` takes the tangents after the call's own arguments, and
                    // `vjp_now` the cotangent
                    let arity = args.len()
                        - match item {
                            "jvp_call" | "vjp_now" => 1,
                            "vjp_into" => 2,
                            _ => 0,
                        };
                    through_companion(path, item, args, arity)
                }
            },
            Callee::Associated(path) => {
                let Some(item) = item else {
                    return quote!(#path(#(#args),*));
                };
                let mut path = path.clone();
                let last = path
                    .segments
                    .last_mut()
                    .expect("`Type::f` has two segments");
                let span = last.ident.span();
                last.ident = crate::syntax::method_companion(&last.ident, item);
                // a fallback of the item's name and arity for every type, which the type's
                // own (inherent) item shadows: without one, the fallback's unmet bound is
                // the error, at the function's name (`AnnotatedAssociated`)
                let name = &last.ident;
                let generated = crate::generate::paths::generated();
                let generated_at = crate::generate::paths::generated_at(span);
                let fallback = crate::syntax::mixed("gradtape_not_annotated");
                let types: Vec<Ident> = (0..args.len())
                    .map(|k| quote::format_ident!("A{k}"))
                    .collect();
                let bound = quote::quote_spanned!(span=> #generated_at::AnnotatedAssociated);
                quote!({
                    #[allow(non_camel_case_types, dead_code, clippy::all)]
                    trait #fallback {
                        fn #name<#(#types),*>(#(_: #types),*) -> ! where Self: #bound;
                    }
                    #[allow(clippy::all)]
                    impl<T: ?Sized> #fallback for T {
                        fn #name<#(#types),*>(#(_: #types),*) -> ! where Self: #generated::AnnotatedAssociated {
                            unreachable!("a call of an associated function that is not annotated does not compile")
                        }
                    }
                    #path(#(#args),*)
                })
            }
            Callee::Method(method) => {
                let mut args = args.into_iter();
                let receiver = args.next().expect("a method call has a receiver");
                let args: Vec<TokenStream> = args.collect();
                let Some(item) = item else {
                    return quote!((#receiver).#method(#(#args),*));
                };
                let name = crate::syntax::method_companion(method, item);
                let fallback = method_fallback(&name, args.len(), method.span());
                quote!({
                    #fallback
                    (#receiver).#name(#(#args),*)
                })
            }
        }
    }
}

/// A fallback of a method `name` of `arity` arguments besides `self`, in scope for one
/// call, for every struct deriving `Differentiable` (`generated::DerivedStruct`; a
/// differentiable receiver is one): an annotated `impl` block's own (inherent) method
/// shadows it, and without one the call reaches the fallback, whose bound `AnnotatedMethod` (spanned at
/// the user's method name) is unmet, and that is the error.
///
/// The fallback returns its bound's associated type rather than `!`: unmet, it is rustc's
/// error type, which ends the checking of what the call's result flows into, and the
/// error names no generated function, so the copies of it that `vjp`, `vjp_now` and `jvp`
/// make are one diagnostic, which rustc reports once. (A path call, as of an associated
/// function, also reports the where-clause with the item's path, once per generated
/// function: that fallback keeps its `!`.)
///
/// It takes `&mut self`: method lookup tries each receiver type by value, then `&`, then
/// `&mut`, inherent methods first at each step, so an annotated method taken by value,
/// `&self` or `&mut self` is found at the same step as the fallback or an earlier one (a
/// `&self` fallback came before a `&mut self` method called on a local).
fn method_fallback(name: &Ident, arity: usize, span: proc_macro2::Span) -> TokenStream {
    let generated = crate::generate::paths::generated();
    let generated_at = crate::generate::paths::generated_at(span);
    let fallback = crate::syntax::mixed("gradtape_not_annotated");
    let types: Vec<Ident> = (0..arity).map(|k| quote::format_ident!("A{k}")).collect();
    let marker = Ident::new("AnnotatedMethod", span);
    let bound = quote::quote_spanned!(span=> Self: #generated_at::#marker);
    let never = quote::quote_spanned!(span=> <Self as #generated_at::#marker>::Never);
    quote! {
        #[allow(non_camel_case_types, dead_code, clippy::all)]
        trait #fallback {
            fn #name<#(#types),*>(&mut self, #(_: #types),*) -> #never where #bound;
        }
        #[allow(clippy::all)]
        impl<T: ?Sized + #generated::DerivedStruct> #fallback for T {
            fn #name<#(#types),*>(&mut self, #(_: #types),*) -> #never where #bound {
                unreachable!("a call of a method that is not annotated does not compile")
            }
        }
    }
}

/// The call of a hidden companion of `path`'s companion type (`prefix`: an array result's
/// writer, an `Option` result's twin), itself (`item` `None`) or one of its items
/// (`{prefix}_{item}`), with `args`: its parameters are the function's (the writer's
/// written array last), then as the function's own items take them.
fn hidden_companion(
    path: &Path,
    prefix: &str,
    item: Option<&str>,
    args: Vec<TokenStream>,
) -> TokenStream {
    // `jvp_call` takes the tangents after the call's own arguments, `vjp_now` the
    // cotangent, `vjp_into` the cotangent and the sinks
    let (name, extra) = match item {
        None => (prefix.to_string(), 0),
        Some(item) => (
            format!("{prefix}_{item}"),
            match item {
                "jvp_call" | "vjp_now" => 1,
                "vjp_into" => 2,
                _ => 0,
            },
        ),
    };
    let arity = args.len() - extra;
    through_companion(path, &name, args, arity)
}

/// A call of an annotated function's companion item (`path::vjp(args)`), made only after
/// checking that `path` is annotated at all ([`resolved_callee`]). A path with generic
/// arguments (`f::<f64>`) cannot be imported, and keeps the direct form.
pub fn through_companion(
    path: &Path,
    item: &str,
    args: Vec<TokenStream>,
    arity: usize,
) -> TokenStream {
    let item = Ident::new(item, syn::spanned::Spanned::span(path));
    // (a companion item is called on plain numbers only: scalar mode)
    match resolved_callee(path, arity, true) {
        Some((checked, alias)) => quote!({
            #checked
            #alias::#item(#(#args),*)
        }),
        None => quote!(#path::#item(#(#args),*)),
    }
}

/// The statements that bring `path`'s companion type into scope and check it is one, and
/// the alias it then has; `None` for a path with generic arguments, which cannot be
/// imported.
///
/// The callee is imported under an alias beside a glob import of a fallback type of the
/// same alias (`generated::callee!`), and the explicit import shadows the glob, so the
/// alias is the callee's companion type if it has one and `generated::NotAnnotated<arity>`
/// otherwise: name resolution is the only thing that can tell, since a proc macro sees one
/// item. `generated::annotated`, spanned at the function's name, then makes a fallback the
/// runtime's message there, not rustc's "cannot find module or crate `path`". The fallback
/// has items of the call's name and arity (the callee's parameters), so the check's error
/// is the only one, and the same one in each generated function, which rustc reports once.
///
/// On plain numbers (`on_numbers`, scalar mode) the check is `generated::annotated_on_numbers`,
/// whose message names `plain(..)` too, the other way out there.
pub fn resolved_callee(
    path: &Path,
    arity: usize,
    on_numbers: bool,
) -> Option<(TokenStream, Ident)> {
    if path
        .segments
        .iter()
        .any(|segment| !segment.arguments.is_none())
    {
        return None;
    }
    // the alias `generated::callee!` declares
    let alias = crate::syntax::mixed("gradtape_callee");
    // the function's own name, not the path's first segment (`norm` in `util::norm`)
    let span = path.segments.last().map_or_else(
        || syn::spanned::Spanned::span(path),
        |last| last.ident.span(),
    );
    let generated = crate::generate::paths::generated();
    let generated_at = crate::generate::paths::generated_at(span);
    let alias_at = Ident::new(&alias.to_string(), alias.span().located_at(span));
    let arity = proc_macro2::Literal::usize_unsuffixed(arity);
    let check = if on_numbers {
        quote::format_ident!("annotated_on_numbers")
    } else {
        quote::format_ident!("annotated")
    };
    let checked = quote! {
        #generated::callee!(#arity; #path);
        #generated_at::#check::<#alias_at>();
    };
    Some((checked, alias))
}

/// The forward expressions of a call's arguments.
fn forward_args(args: &[Operand]) -> Vec<TokenStream> {
    args.iter()
        .map(|arg| quote::ToTokens::to_token_stream(arg.fwd()))
        .collect()
}

/// A plain helper's call on dual numbers: every argument evaluated first, in order, into a
/// local (`bind`), as the call would evaluate them; the differentiable ones' values
/// (`actives`) become the dual variables `duals`, and `call` is the helper's call on them,
/// each constant argument passed through `generated::IntoParameter` (a constant dual where the
/// helper's parameter is its float type, the value itself otherwise).
struct PlainCall<'p> {
    path: &'p Path,
    bind: TokenStream,
    actives: Vec<Ident>,
    duals: Vec<Ident>,
    call: TokenStream,
}

impl PlainCall<'_> {
    /// `generated::<runner>([actives], [tangents], |[duals]| call)`, spanned at the helper
    /// (a helper that is not generic is an error there).
    fn run(&self, runner: &str, tangents: Option<Vec<TokenStream>>) -> TokenStream {
        let Self {
            path,
            actives,
            duals,
            call,
            ..
        } = self;
        let span = syn::spanned::Spanned::span(path);
        let runner = Ident::new(runner, span);
        let runner = quote::quote_spanned!(span=> generated::#runner);
        let tangents = tangents.map(|tangents| quote!([#(#tangents),*],));
        quote!(#runner([#(#actives),*], #tangents |[#(#duals),*]| #call))
    }
}

fn plain_call<'p>(path: &'p Path, args: &[Operand]) -> PlainCall<'p> {
    let mut bind = TokenStream::new();
    let (mut actives, mut duals, mut call_args) = (Vec::new(), Vec::new(), Vec::new());
    for (k, arg) in args.iter().enumerate() {
        let local = crate::syntax::mixed(&format!("argument{k}"));
        let fwd = arg.fwd();
        bind.extend(quote!(let #local = #fwd;));
        match arg.binding() {
            Some(_) => {
                // at the user's argument, so that a helper whose parameter is not generic
                // is rustc's "expected `f64`, found `Dual<f64, 1>`" there
                let span =
                    proc_macro2::Span::mixed_site().located_at(syn::spanned::Spanned::span(fwd));
                let dual = Ident::new(&format!("gradtape_dual{k}"), span);
                call_args.push(quote!(#dual));
                actives.push(local);
                duals.push(dual);
            }
            None => call_args.push(quote!(generated::IntoParameter::into_parameter(#local))),
        }
    }
    PlainCall {
        path,
        bind,
        actives,
        duals,
        call: quote!(#path(#(#call_args),*)),
    }
}

/// Index of a binding (a parameter, a `let`, a temporary) in [`Body::bindings`].
pub type BindingId = usize;

/// A name that holds a value: its forward name and its adjoint slot.
pub struct Binding {
    pub name: Ident,
    /// The adjoint accumulator, `d_<name>`.
    pub slot: Ident,
    /// The tangent beside the value in `jvp`, `tan_<name>` (unique per binding like the
    /// slot, so shadowing needs no care).
    pub tangent: Ident,
    /// Whether it depends on a differentiable input.
    pub active: bool,
    /// Whether it is an array, slice or `Vec` of floats (scalar mode): its slot is a
    /// `generated::Shadow`, its tangent a shadow too, and it is read and written only
    /// element by element ([`Op::Load`], [`Target::Element`]).
    pub array: bool,
    /// For an array of rows (`[[F; N]; M]`, a local `[[0.0; N]; M]`): `N`, as written.
    /// Its shadow is flat: `m[i][j]` is element `i * N + j` (the index local holds that
    /// flat index, `generated::flat_index`), and the forward code reads it back as
    /// `m[k / N][k % N]`.
    pub row: Option<TokenStream>,
    /// For a ragged array of rows (`&[Vec<F>]`, a local `vec![vec![0.0; n]; m]`): `row` is
    /// `generated::RAGGED_STRIDE`, the index local holds `generated::ragged_index` (`i *
    /// RAGGED_STRIDE + j`, bounds checked against row `i`), and the shadow is a
    /// `generated::RowShadow`.
    pub ragged: bool,
    /// A struct passed on whole ([`Kind::Struct`](crate::model::sig::Kind::Struct)): its
    /// slot an `Option<S>`, its tangent a `&S`, its only use a call's argument.
    pub whole: bool,
}

/// An operand of an operation.
#[derive(Clone)]
pub enum Operand {
    /// A differentiable value: the binding, and the expression that reads it in the forward
    /// code (the user's own, e.g. `&a`, or a temporary's name).
    Active { binding: BindingId, fwd: Expr },
    /// A constant (a literal, a parameter treated as data, ...): the user's expression.
    Inactive(Expr),
}

impl Operand {
    /// The forward expression.
    pub fn fwd(&self) -> &Expr {
        match self {
            Operand::Active { fwd, .. } | Operand::Inactive(fwd) => fwd,
        }
    }

    /// The binding, if differentiable.
    pub fn binding(&self) -> Option<BindingId> {
        match self {
            Operand::Active { binding, .. } => Some(*binding),
            Operand::Inactive(_) => None,
        }
    }
}

/// Which primal value an elementwise rule takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Saves {
    Input,
    Output,
}

/// An arithmetic operator or a two-operand elementwise method.
#[derive(Clone)]
pub enum BinaryKind {
    Add,
    Sub,
    Mul,
    Div,
    /// `%` on floats (the row `rem`: truncated, as Rust's `%`).
    Rem,
    /// A two-operand elementwise method, `lhs.method(rhs)`: the method as written
    /// (`max`, `maximum`, `atan2`, `powf`...) and the row it records (`maximum`, `pow`...),
    /// whose rules the adjoint calls and whose kernel the 0-d path runs.
    Method {
        method: Ident,
        row: &'static str,
    },
    /// On plain numbers, the sum that ends `x.mul_add(a, b)`, `lhs` the product `x * a`
    /// just before it: recorded and differentiated as `+`, but its value is Rust's fused
    /// `x.mul_add(a, b)`, rounded once, as the user's function computes it (the two ops'
    /// `x * a + b` rounds twice, and the gradient's value would differ from the
    /// function's in the last bit). `x` and `a` are names or constants (read again here).
    /// (Boxed: two operands inline would make every op as large.)
    FusedMulAdd(Box<(Operand, Operand)>),
}

impl BinaryKind {
    /// The op's row in `gradtape-primitives`.
    pub fn row_name(&self) -> &'static str {
        match self {
            BinaryKind::Add | BinaryKind::FusedMulAdd(_) => "add",
            BinaryKind::Sub => "sub",
            BinaryKind::Mul => "mul",
            BinaryKind::Div => "div",
            BinaryKind::Rem => "rem",
            BinaryKind::Method { row, .. } => row,
        }
    }
}

/// One primitive operation of the forward code.
pub enum Op {
    /// The value of an operand, as written (`let b = a;`, `y = a.clone();`, constants).
    Copy { value: Operand, clone: bool },
    /// `-x`.
    Neg(Operand),
    /// `x.method(args)` with an elementwise rule `vjp::method`.
    Unary {
        method: Ident,
        saves: Saves,
        x: Operand,
        args: Vec<Expr>,
    },
    /// `x as f32` / `x as f64` in scalar mode: the value converted, its cotangent converted
    /// back to `x`'s type (a float-to-float cast's derivative is 1).
    Cast { x: Operand, ty: Type },
    /// `lhs op rhs`.
    Binary {
        kind: BinaryKind,
        lhs: Operand,
        rhs: Operand,
    },
    /// A call differentiated dynamically on a tape of its own: `expr` computed from
    /// `inputs` (tensor mode).
    Trace {
        expr: Expr,
        inputs: Vec<(BindingId, Expr)>,
    },
    /// A call to another `#[differentiable]` function, through its generated `vjp`
    /// (scalar mode): the function and its arguments (for a method, the receiver first).
    Call { func: Callee, args: Vec<Operand> },
    /// `array[index]` of an active array (scalar mode). `index` is the name of a `usize`
    /// local the lowering bound just before (a `Stmt::Plain`), so that the forward code
    /// saves the index it read (unless `counter` says how to recompute it) and the adjoint
    /// adds into that element of the shadow.
    Load {
        array: BindingId,
        index: Ident,
        /// How the adjoint recomputes `index` instead of saving it, if it can.
        counter: Option<Recompute>,
    },
}

/// An index that is a loop's counter plus a constant: the counter of a loop of the
/// iterator desugaring (`for k in 0..n`, `for k in (0..n).rev()`), or a user's loop over a
/// range from an integer literal (`for i in 1..n`, `for i in (0..=n).rev()`, `i` not
/// `mut`), read as `i`, `i + 1` or `i - 1`. The adjoint recomputes it from the iteration it
/// replays (`t + offset`, or `n - 1 - t + offset`, the trip count being `n`), instead of
/// saving it; `offset` is the range's first value plus the constant. A reversed loop a
/// jump may end early has no such counter (its trip count is not `n`): its reads and
/// writes save their indices (`lower::forget_counter`).
#[derive(Clone, Copy)]
pub struct Counter {
    pub loop_id: usize,
    pub reversed: bool,
    pub offset: isize,
}

/// A read whose index the adjoint recomputes from the loop counters of the iteration it
/// replays rather than saving it. Exact because the index is a function of counters
/// alone: the desugaring's counters and the row indices bound from them
/// (`let rowN: usize = gradtape_k;`) are immutable and hygienic (no user code names them),
/// and the replayed iteration `t` of a loop is the iteration whose counter was `t` (or
/// `n - 1 - t`).
#[derive(Clone)]
pub enum Recompute {
    /// `a[k]`: the index is a loop's counter.
    Counter(Counter),
    /// `m[r][c]` of an array of rows, `r` and `c` both counters (a row view's read: the row
    /// index is the outer loop's, the column the inner loop's): the flat index
    /// `r * stride + c`, as `generated::flat_index` (`stride` the row length `N`) or
    /// `generated::ragged_index` (`stride` `RAGGED_STRIDE`) computed it in the forward
    /// code, whose bounds checks passed there already. `stride` is a constant in scope in
    /// every generated function (a parameter's `N` or `RAGGED_STRIDE`).
    Element {
        row: Counter,
        col: Counter,
        stride: TokenStream,
    },
}

impl Recompute {
    /// Whether the index counts on loop `id`.
    pub fn counts_on(&self, id: usize) -> bool {
        match self {
            Recompute::Counter(c) => c.loop_id == id,
            Recompute::Element { row, col, .. } => row.loop_id == id || col.loop_id == id,
        }
    }
}

/// Where an operation's value goes.
#[allow(clippy::large_enum_variant)]
pub enum Target {
    /// `let [mut] name[: ty] = ...`.
    Let {
        binding: BindingId,
        mutable: bool,
        ty: Option<Type>,
    },
    /// `name = ...` for a binding declared earlier.
    Assign { binding: BindingId },
    /// `array[index] = ...` (or `array.push(...)`, then `index` is the length before the
    /// push) of an active array: `index` names a `usize` local bound just before. The
    /// adjoint takes the shadow's element (reads and zeroes it): the value overwritten
    /// does not reach the result through this element any more. Nothing is restored: every
    /// value a rule needs was saved at the op that read it (a `Load` copies the element
    /// into a temporary first), so overwriting an element never changes a saved value.
    Element {
        binding: BindingId,
        index: Ident,
        push: bool,
        /// How the adjoint recomputes `index` instead of saving it, if it can (as a
        /// [`Op::Load`]'s).
        counter: Option<Recompute>,
    },
}

impl Target {
    /// The binding written (the array, for an element).
    pub fn binding(&self) -> BindingId {
        match self {
            Target::Let { binding, .. }
            | Target::Assign { binding }
            | Target::Element { binding, .. } => *binding,
        }
    }
}

/// A `match` arm.
pub struct Arm {
    pub pat: Pat,
    pub guard: Option<Expr>,
    pub body: Block,
}

/// The head of a loop.
pub enum LoopHead {
    For {
        pat: Pat,
        iter: Expr,
    },
    While {
        cond: Expr,
    },
    /// `loop`: it ends by a jump only.
    Loop,
}

/// The region a `return` leaves: the whole body (loops are regions too, named by their
/// ids).
pub const RETURN_REGION: usize = usize::MAX;

/// What a jump does once it has left its regions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum JumpKind {
    Break,
    Continue,
    /// To the end of the body, the results already assigned.
    Return,
}

/// One statement.
#[allow(clippy::large_enum_variant)]
pub enum Stmt {
    /// Forward-only code with nothing to differentiate, emitted as written.
    Plain(TokenStream),
    /// `let name;` (assigned later, e.g. in the branches of an `if`).
    Declare { binding: BindingId, mutable: bool },
    /// One operation.
    Def { id: usize, target: Target, op: Op },
    /// `if cond { .. } else { .. }`: the branch taken is saved.
    If {
        id: usize,
        cond: Expr,
        then_branch: Block,
        else_branch: Block,
    },
    /// `match scrutinee { .. }`: the arm taken is saved.
    Match {
        id: usize,
        scrutinee: Expr,
        arms: Vec<Arm>,
    },
    /// `for`/`while`/`loop`: the trip count is saved (counted as each iteration starts),
    /// per-iteration values on stacks. When a jump can end an iteration early (`exits`),
    /// each iteration also saves how it ended: 0 when it ran to the end of the body, else
    /// the id of the jump that ended it.
    Loop {
        id: usize,
        label: Option<syn::Lifetime>,
        head: LoopHead,
        body: Block,
        exits: bool,
    },
    /// `let (a, b) = f(..);` of another annotated function with a tuple result (scalar
    /// mode): its `vjp` called once, each part a new binding `let part = value.k;` (the
    /// pattern's names are then copies of them).
    CallParts {
        id: usize,
        func: Callee,
        args: Vec<Operand>,
        parts: Vec<BindingId>,
        /// A struct result read by its fields (`let s = step(..);` then `s.x`, `s.v`):
        /// the fields the parts are, in order. The call then goes through
        /// `results::parts_vjp`/`parts_jvp`, which make the callee's struct (value,
        /// tangent, cotangent) this tuple of parts, so the rest is a tuple result's.
        fields: Option<Vec<syn::Member>>,
    },
    /// `f(&x, &mut out);`, a call of another annotated function that writes `&mut` float
    /// arrays (scalar mode): `args` as for [`Op::Call`], the arrays written (`written`,
    /// positions in `args`, each an active array operand) included. The forward code calls
    /// its `vjp`, which writes the arrays; the adjoint calls the pullback with each written
    /// array's shadow in place (Enzyme's shadow: it holds the cotangent of the array's
    /// values after the call, and is left holding that of its values before it), then adds
    /// the other arguments' cotangents as for a call. The tangent code passes the written
    /// arrays' tangent shadows to `jvp_call`, which updates them in place. A call used as
    /// a value (`let e = f(&x, &mut out);`, a float result) puts it in `result`, a
    /// temporary this statement declares, as a tuple result destructured (`let (a, b) =
    /// f(&x, &mut out);`) puts its parts in temporaries.
    CallWrites {
        id: usize,
        func: Callee,
        args: Vec<Operand>,
        written: Vec<Written>,
        result: CallResult,
    },
    /// `std::mem::swap(&mut a, &mut b);` of two active arrays (scalar mode), the
    /// double-buffer of an integrator: the forward code swaps them as written, the adjoint
    /// swaps their shadows back, the tangent code swaps their tangents.
    Swap {
        a: BindingId,
        b: BindingId,
        code: TokenStream,
    },
    /// `break`, `continue` or a `return` from inside a loop or an expression: it leaves
    /// `exits`, the regions (loop ids, innermost first, and [`RETURN_REGION`]) whose current
    /// iteration (or the body's run) it ends. The forward code saves `id` as each one's
    /// exit; the adjoint replays an iteration only up to the jump that ended it. A value
    /// (`break v`, `return v`) was assigned to its target just before, by a `Def`.
    Jump {
        id: usize,
        kind: JumpKind,
        label: Option<syn::Lifetime>,
        exits: Vec<usize>,
    },
    /// A plain block `{ .. }`: its own scope (a name it declares, shadowing or not, ends
    /// with it), at the enclosing block's depth (it runs once each time that block does).
    Scope(Block),
}

/// What a [`Stmt::CallWrites`] does with the call's value.
#[derive(Clone)]
pub enum CallResult {
    /// Dropped (`f(&x, &mut out);`).
    Dropped,
    /// One float, in a temporary (`let e = f(&x, &mut out);`).
    Value(BindingId),
    /// A tuple destructured, each part in a temporary of its own, in order (`let (a, b) =
    /// f(&x, &mut out);`, `(a, _) = ..`).
    Parts(Vec<BindingId>),
}

impl CallResult {
    /// The temporaries holding the value: none, one, or one per part.
    pub fn bindings(&self) -> &[BindingId] {
        match self {
            CallResult::Dropped => &[],
            CallResult::Value(binding) => std::slice::from_ref(binding),
            CallResult::Parts(parts) => parts,
        }
    }
}

/// An array a [`Stmt::CallWrites`] writes: the argument at `position` (an active array
/// operand), passed whole (`&mut out`, `&mut out[..]`, `&mut *out`) or as a part of a flat
/// array (`&mut out[a..b]`, `&mut out[a..]`, `&mut out[..b]`, `&mut out[a..=b]`), whose
/// bounds are `usize` locals bound just before the call (so the forward code, the adjoint
/// and the tangent code all see the same elements, whatever the bound expressions do).
#[derive(Clone)]
pub struct Written {
    pub position: usize,
    pub part: Option<WrittenPart>,
    /// A `&mut` float array parameter of the caller passed on as it is (`w(x, y)`, Rust
    /// reborrowing it): the callee may write it (`y: &mut [F]`) or only read it (`a:
    /// &[F]`), which the caller cannot tell without its signature. The generated code is
    /// the same for both, the callee's types choosing (`generated::PassedOn`, `Absorb`,
    /// `RestoreMut` and `TangentSlice` of `&[F]` and `&mut [F]`): a read leaves the array
    /// as it was, so the cotangent of its values before the call is the one after it plus
    /// the read's, as a writer's shadow holds. Beside other written arrays (`step(pos,
    /// vel, dt)`, `w(y, &mut out)`) the forward code lends it through `generated::lend`,
    /// which records whether the callee writes it, and the pullback takes the shadows the
    /// flags say (`generated::PassedOnMany`).
    pub passed_on: bool,
}

/// The elements `start..end` of a written array: the locals holding the part's bounds.
#[derive(Clone)]
pub struct WrittenPart {
    pub start: Ident,
    pub end: Ident,
}

/// A block: its statements, how deep in control flow it is (values saved at depth 0 are
/// kept as they are, deeper ones on stacks), and the bindings it declares.
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub depth: usize,
    pub declared: Vec<BindingId>,
}

/// The lowered body.
pub struct Body {
    pub bindings: Vec<Binding>,
    /// Parameters' bindings, in order (`None` for constants).
    pub params: Vec<Option<BindingId>>,
    pub block: Block,
    /// The results (one, or the elements of a tuple result).
    pub outputs: Vec<Operand>,
    /// When a `return` is a jump (inside a loop or an expression), the bindings that hold
    /// the results: declared before the body, which runs as a labelled block that the
    /// jumps leave, at depth 1 (everything saved on stacks).
    pub returned: Option<Vec<BindingId>>,
    /// The `&mut` array parameters the function writes: results too, their cotangents
    /// given by the caller.
    pub written: Vec<BindingId>,
    /// `#[differentiable(checkpoint)]`: how each top-level loop (a [`Stmt::Loop`] at
    /// depth 0) keeps snapshots of its carried state, from which the adjoint recomputes
    /// the loop one segment at a time (see `generate::checkpoint`).
    pub checkpoint: Option<Schedule>,
    /// Whether the pullback is boxed: the function may be on a cycle of calls
    /// (`analyse::recursion`).
    pub boxed: bool,
    /// The names the body's own items bind (`use` declarations, nested `fn`s, `mod`s,
    /// types), `None` if one is a glob import (`use m::*;`): the generated code may run the
    /// forward code in a block of its own, so a call by such a name is not repeated in the
    /// adjoint, outside that block (`generate::replay`).
    pub item_names: Option<std::collections::HashSet<String>>,
}

/// A checkpointed loop's schedule: the forward pass keeps at most `snapshots` copies of
/// the loop's state, at the starts of segments of trips; the adjoint reruns each segment
/// quietly keeping at most `snapshots` copies within it, and so on, `levels` deep, the last
/// level rerunning its trips with saves and reversing them. For `n` trips the adjoint holds
/// `(levels - 1) · snapshots` states and the saves of `n / snapshots^(levels - 1)` trips,
/// and the loop runs forward `levels` times.
#[derive(Clone, Copy)]
pub struct Schedule {
    pub snapshots: usize,
    pub levels: usize,
}

impl Body {
    /// The names of the bindings lowering found active (a name bound more than once is
    /// here if any of its bindings is): the expansion's second lowering reads which of
    /// the rewrites' locals stayed constant by them (`slots`, `fields::Receivers`).
    pub fn active_names(&self) -> std::collections::HashSet<String> {
        self.bindings
            .iter()
            .filter(|b| b.active)
            .map(|b| b.name.to_string())
            .collect()
    }
}

impl Block {
    /// The ids of the jumps in `stmts` (at any depth) that leave `region`.
    pub fn jumps_leaving(stmts: &[Stmt], region: usize) -> Vec<usize> {
        let mut found = Vec::new();
        for stmt in stmts {
            stmt.collect_jumps(region, &mut found);
        }
        found
    }
}

impl Stmt {
    fn collect_jumps(&self, region: usize, found: &mut Vec<usize>) {
        fn block(block: &Block, region: usize, found: &mut Vec<usize>) {
            for stmt in &block.stmts {
                stmt.collect_jumps(region, found);
            }
        }
        match self {
            Stmt::Jump { id, exits, .. } if exits.contains(&region) => found.push(*id),
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                block(then_branch, region, found);
                block(else_branch, region, found);
            }
            Stmt::Match { arms, .. } => {
                for arm in arms {
                    block(&arm.body, region, found);
                }
            }
            Stmt::Loop { body, .. } | Stmt::Scope(body) => block(body, region, found),
            Stmt::Plain(_)
            | Stmt::Declare { .. }
            | Stmt::Def { .. }
            | Stmt::Jump { .. }
            | Stmt::CallParts { .. }
            | Stmt::CallWrites { .. }
            | Stmt::Swap { .. } => {}
        }
    }
}
