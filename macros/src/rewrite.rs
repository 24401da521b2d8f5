//! Rewrites of the body before lowering, each an equivalence of Rust that puts an ordinary
//! form into a shape lowering differentiates. It takes the body's statements and gives them
//! rewritten:
//!
//! - a float method called by its path, `f64::max(a, b)` or `f32::sin(x)` (or through a
//!   float type parameter, `T::max(a, b)`), becomes the method call `a.max(b)`, `x.sin()`
//!   (for every method of `f32`/`f64` that takes `self`, the two forms are the same call);
//! - a local closure bound by `let` and only ever called, `let sq = |v: f64| v * v;`,
//!   is inlined at each call: `sq(x)` becomes `{ let arg0 = x; let v: f64 = arg0; v * v }`,
//!   so what it computes, and what it captures, is differentiated as if written in place.
//!   A shared-reference parameter (`v: &Tensor<F>`, `v: &f64`) is bound untyped, as
//!   `let v = &y;` is (lowering gives a `let`'s type to the tangent too), and `&x` of the
//!   function's own `&T` parameter passed for it is `x` (the reference the call's
//!   coercion of `&&T` makes). A parameter taking a slice, an array or a `Vec` by shared
//!   reference (`v: &[F]`) given an array by name (`&x`) is not bound at all: the body
//!   reads `x` where it reads `v` ([`ArrayAlias`]), since lowering differentiates arrays by
//!   name and rejects a copy of one.
//!   Its arguments are evaluated first, in order, as a call evaluates them, before any
//!   parameter is bound (a parameter named like a variable an argument reads cannot change
//!   what the argument reads).
//!
//! - a tuple produced by an `if`, a `match` or a block (an inlined closure's call), `let
//!   (a, b) = if c { (x, y) } else { (y, x) };`,
//!   becomes one declared local per element, assigned at the end of each branch, then the
//!   pattern bound from them: `let part0; let part1; if c { part0 = x; part1 = y; } else
//!   { .. } let (a, b) = (part0, part1);`. The parts have fresh names, so what the branches
//!   read is what they read before (the pattern's names are bound after them, as a `let`
//!   binds). A destructuring assignment, `(a, b) = if c { (x, y) } else { (y, x) };`, is
//!   split the same way and ends `(a, b) = (part0, part1);`, the form lowering takes (the
//!   places assigned after the whole value, as the assignment does); an array's, `[a, b]
//!   = arr;`, or a tuple's by name, `(a, b) = t;`, becomes `(a, b) = (arr[0], arr[1]);`,
//!   `(a, b) = (t.0, t.1);`;
//! - `.map(f64::exp)` (a path) is `.map(|item| f64::exp(item))`, `.fold(init, T::max)`
//!   `.fold(init, |acc, item| T::max(acc, item))` ([`MapPaths`]), and
//!   `items.for_each(|p| body);` the `for` loop it is ([`ForEachLoops`]), `v.reverse();`
//!   the swaps it makes ([`Reverses`]);
//! - a let chain, `if let Some(s) = scale && s > 0.0 { .. } else { .. }` (and `while`),
//!   becomes nested `if let`s, a `match` with a guard, or the branch's value held in an
//!   option ([`LetChains`]);
//! - a labelled block, `'a: { .. break 'a v; .. tail }`, becomes the `loop` whose body
//!   runs once, `'a: loop { .. break 'a v; .. break 'a tail; }` ([`LabelledBlocks`]);
//! - `let mut it = a.iter(); .. while let Some(v) = it.next() { body }`, with `it` used
//!   for nothing else, becomes `for v in a.iter() { body }` ([`IteratorLoops`]).
//!
//! A closure is inlined only where that is the same program: it is called with as many
//! arguments as it has parameters, its name is used for nothing but calls and is never
//! bound again, and no name it reads is bound again after it (the call would read the new
//! binding). Otherwise it is left as written, and lowering says why it cannot be
//! differentiated. A `return` in its body leaves the inlined body, not the function
//! ([`returning_to_the_call`]). A closure mutating what it captures (`FnMut`, `|v| acc +=
//! v`) mutates the variable itself where inlined, as its borrow does: nothing else can
//! read or write the variable between the closure and its last call.
//!
//! A closure sees what it captures as it was when the closure was made: a `move` closure
//! holds its own copy, and any other holds a borrow, under which the variable cannot change
//! until its last call, or has taken the value (a body that consumes it). The inlined body
//! reads the variable at the call instead, so where a captured variable may be written
//! between the closure and one of its calls, each place the body reads of it (`y`, `s.x`;
//! what Rust captures) is copied into a fresh local where the closure was, and the inlined
//! body reads that local ([`snapshot_captures`]). Where that cannot be done (the body binds
//! the name again, writes it, or reads it in a macro), it is the macro's error at the
//! closure, never a body reading the later value.

use std::collections::HashSet;

use quote::{format_ident, quote};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, Pat, Stmt};

use crate::ctxt::Ctxt;
use crate::model::sig::Mode;
use crate::syntax::{is_compound_assign, is_name};

/// The body's statements with the rewrites applied (those of float arrays in scalar mode,
/// `mode`), in every block; a closure whose
/// captures cannot be kept as they were when it was made is an error in `cx`. `borrowed`
/// are the function's parameters taken by shared reference (`x: &Tensor<F>`),
/// `parameters` every parameter's name, `floats` the function's float type parameters.
pub fn rewrite(
    cx: &Ctxt,
    mode: Mode,
    stmts: Vec<Stmt>,
    borrowed: &[Ident],
    parameters: &[Ident],
    floats: &[Ident],
) -> Vec<Stmt> {
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    LetChains { next: 0 }.visit_block_mut(&mut block);
    if mode == Mode::Scalar {
        // forms of float arrays and iterators of constants (a tensor body's collections
        // are read as written, or run on a sub-tape)
        MapPaths.visit_block_mut(&mut block);
        ForEachLoops.visit_block_mut(&mut block);
        Reverses { next: 0 }.visit_block_mut(&mut block);
        SplitAts { next: 0 }.visit_block_mut(&mut block);
        WhileLetElements.visit_block_mut(&mut block);
    }
    FloatPaths { floats }.visit_block_mut(&mut block);
    let mut patterns = Bindings::default();
    patterns.visit_block(&block);
    OptionCombinators {
        bound: &patterns,
        floats,
    }
    .visit_block_mut(&mut block);
    // the names that hold a shared reference wherever they appear, so that `&x` of one is
    // a reference to a reference: the borrowed parameters the body never binds again, and
    // the locals it binds once, by `let`, to a shared borrow or to another such name, or
    // typed a shared reference (`let r = &x[0];`, `let r = x;`, `let r: &T = ..;`), which
    // shadow no parameter
    let mut bound = Bindings::default();
    bound.visit_block(&block);
    let mut borrowed: HashSet<Ident> = borrowed
        .iter()
        .filter(|name| !bound.0.contains_key(*name))
        .cloned()
        .collect();
    let mut lets = ReferenceLets::default();
    lets.visit_block(&block);
    loop {
        let before = borrowed.len();
        for (name, init) in &lets.0 {
            let once = bound.0.get(name) == Some(&1) && !parameters.contains(name);
            let reference = match init.as_ref().map(crate::syntax::strip_parens) {
                None => true,
                Some(Expr::Reference(reference)) => reference.mutability.is_none(),
                Some(other) => {
                    crate::syntax::single_ident(other).is_some_and(|n| borrowed.contains(n))
                }
            };
            if once && reference {
                borrowed.insert(name.clone());
            }
        }
        if borrowed.len() == before {
            break;
        }
    }
    Closures {
        cx,
        next: 0,
        borrowed: &borrowed,
    }
    .visit_block_mut(&mut block);
    TupleBranches { next: 0 }.visit_block_mut(&mut block);
    LabelledBlocks.visit_block_mut(&mut block);
    SlicePatterns.visit_block_mut(&mut block);
    IteratorLoops.visit_block_mut(&mut block);
    block.stmts
}

// ----- an option's combinators with a closure -----

/// `o.map(|v| e).unwrap_or(d)`, `o.map_or(d, |v| e)`, `o.map_or_else(|| d, |v| e)` and
/// `o.map(|v| e).unwrap_or_else(|| d)` become `match o { Some(v) => e, None => d }`, which
/// lowering differentiates (and `options` takes apart, for an option local): the same
/// program, `o` evaluated once and first, then `e` with `v` bound to its value, or `d`.
/// An eagerly evaluated default (`unwrap_or(d)`, `map_or(d, ..)`) must be a pure
/// expression (names, literals, fields, arithmetic, casts, float methods), whose
/// evaluation the `None` arm may skip with no difference; a closure whose body leaves it
/// (`return`, `?`) or takes more than one parameter is left as written.
///
/// `o.unwrap_or(d)` of an option the body does not bind (a parameter, or a field of a
/// name) with a default that is no literal becomes `match generated::into_option(o) {
/// Some(v) => v, None => d }` too (`into_option` takes a `Result`'s `ok()`, as its
/// `unwrap_or` does): lowering took the call for an annotated method of the receiver,
/// which rustc answered. An option the body binds is `options`' (or lowering's) to take.
struct OptionCombinators<'b> {
    /// The names the body's patterns bind.
    bound: &'b Bindings,
    /// The function's float type parameters: a default `T::zero()` or `T::from(0.5)
    /// .unwrap()` of one is a constant ([`is_float_constant`]).
    floats: &'b [Ident],
}

impl VisitMut for OptionCombinators<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let Some(matched) =
            option_match(expr, self.floats).or_else(|| self.unwrap_or_match(expr))
        {
            *expr = matched;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl OptionCombinators<'_> {
    /// `o.unwrap_or(d)` as `match generated::into_option(o) { .. }`, if `o` is no name the
    /// body binds and `d` no literal ([`OptionCombinators`]).
    fn unwrap_or_match(&self, expr: &Expr) -> Option<Expr> {
        let Expr::MethodCall(call) = expr else {
            return None;
        };
        if call.method != "unwrap_or" || call.args.len() != 1 || call.turbofish.is_some() {
            return None;
        }
        let default = &call.args[0];
        let literal = |e: &Expr| matches!(e, Expr::Lit(_));
        let is_literal = match crate::syntax::strip_parens(default) {
            Expr::Unary(unary) => literal(crate::syntax::strip_parens(&unary.expr)),
            other => literal(other),
        };
        // a name or a field of one (`scale`, `c.scale`): a call's option (`x.iter().
        // position(..)`, `x.first().copied()`) is the searches' and the iterator forms'
        let receiver = &*call.receiver;
        let mut root = crate::syntax::strip_parens(receiver);
        while let Expr::Field(field) = root {
            root = crate::syntax::strip_parens(&field.base);
        }
        let name = crate::syntax::single_ident(root)?;
        // a local option by name is `options`' (or lowering's)
        let bare = matches!(crate::syntax::strip_parens(receiver), Expr::Path(_));
        let bound_here = bare && self.bound.0.contains_key(name);
        if is_literal || bound_here || is_search(receiver) {
            return None;
        }
        let generated = crate::generate::paths::generated();
        let value = crate::syntax::unspelled_ident(format_ident!("unwrapped"));
        let method = &call.method;
        // the option first, then the default, as the call evaluates them; a default with
        // effects is evaluated whatever the option holds, as the call evaluates it
        if is_pure(default) {
            Some(syn::parse_quote_spanned!(method.span()=>
                match #generated::into_option(#receiver) { Some(#value) => #value, None => #default }
            ))
        } else {
            let option = crate::syntax::unspelled_ident(format_ident!("unwrapped_option"));
            let taken = crate::syntax::unspelled_ident(format_ident!("unwrapped_default"));
            Some(syn::parse_quote_spanned!(method.span()=> {
                let #option = #generated::into_option(#receiver);
                let #taken = #default;
                match #option { Some(#value) => #value, None => #taken }
            }))
        }
    }
}

/// Whether `expr` is a search or an extremum (`position`, `find`, `max_by`, .., then any
/// `copied`/`cloned`): an option `searches` makes a local the body builds, which
/// `options` then takes with its `unwrap_or` (regression: `x.iter().position(|&v| v >
/// t).unwrap_or(x.len())` became `match generated::into_option(..)`, whose argument no
/// search is found in, and the position was rejected).
fn is_search(expr: &Expr) -> bool {
    let mut expr = crate::syntax::strip_parens(expr);
    while let Expr::MethodCall(call) = expr {
        match call.method.to_string().as_str() {
            "copied" | "cloned" => expr = crate::syntax::strip_parens(&call.receiver),
            "position" | "rposition" | "find" | "max_by" | "min_by" | "max_by_key"
            | "min_by_key" => return true,
            _ => return false,
        }
    }
    false
}

/// `expr` as the `match` it stands for, if it is one of [`OptionCombinators`]' forms.
fn option_match(expr: &Expr, floats: &[Ident]) -> Option<Expr> {
    let Expr::MethodCall(call) = expr else {
        return None;
    };
    let args: Vec<&Expr> = call.args.iter().collect();
    let (option, closure, default, lazy) = match (call.method.to_string().as_str(), &args[..]) {
        ("unwrap_or" | "unwrap_or_else", [default]) => {
            let Expr::MethodCall(map) = crate::syntax::strip_parens(&call.receiver) else {
                return None;
            };
            let [closure] = &map.args.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            if map.method != "map" {
                return None;
            }
            let lazy = call.method == "unwrap_or_else";
            (&*map.receiver, *closure, *default, lazy)
        }
        ("map_or", [default, closure]) => (&*call.receiver, *closure, *default, false),
        ("map_or_else", [default, closure]) => (&*call.receiver, *closure, *default, true),
        _ => return None,
    };
    let Expr::Closure(closure) = crate::syntax::strip_parens(closure) else {
        return None;
    };
    let [param] = &closure.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let param = match param {
        Pat::Type(typed) => &*typed.pat,
        other => other,
    };
    if leaves(&closure.body) {
        return None;
    }
    let default: Expr = if lazy {
        let Expr::Closure(default) = crate::syntax::strip_parens(default) else {
            return None;
        };
        if !default.inputs.is_empty() || leaves(&default.body) {
            return None;
        }
        (*default.body).clone()
    } else {
        if !is_pure(default) && !is_float_constant(default, floats) {
            return None;
        }
        default.clone()
    };
    let body = &closure.body;
    // at the method's name: what lowering says of the `match` is said of the call
    let method = &call.method;
    Some(syn::parse_quote_spanned!(method.span()=>
        match #option { Some(#param) => #body, None => #default }
    ))
}

/// Whether `body` has a `return` or a `?` of its own (outside closures inside it): moved
/// out of its closure, it would leave the function instead.
fn leaves(body: &Expr) -> bool {
    struct Leaves(bool);
    impl<'ast> Visit<'ast> for Leaves {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut leaves = Leaves(false);
    leaves.visit_expr(body);
    leaves.0
}

/// Whether evaluating `expr` has no effect, so that skipping it changes no value: names,
/// literals, fields, arithmetic, casts and float methods. (Integer arithmetic may panic
/// on overflow in a debug build, where skipping it would not; `f` itself runs the body as
/// written.)
fn is_pure(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(paren) => is_pure(&paren.expr),
        Expr::Group(group) => is_pure(&group.expr),
        Expr::Field(field) => is_pure(&field.base),
        Expr::Cast(cast) => is_pure(&cast.expr),
        Expr::Reference(reference) => reference.mutability.is_none() && is_pure(&reference.expr),
        Expr::Unary(unary) => is_pure(&unary.expr),
        Expr::Binary(binary) => {
            !is_compound_assign(&binary.op) && is_pure(&binary.left) && is_pure(&binary.right)
        }
        Expr::Tuple(tuple) => tuple.elems.iter().all(is_pure),
        Expr::MethodCall(call) => {
            FLOAT_METHODS.contains(&call.method.to_string().as_str())
                && is_pure(&call.receiver)
                && call.args.iter().all(is_pure)
        }
        _ => false,
    }
}

/// Whether `expr` is a float constant of generic code, with no effect: `T::zero()`,
/// `T::one()`, `T::infinity()`, `T::nan()`, .. and `T::from(c).unwrap()` (or `expect`) of
/// a pure `c`, for `T` one of the function's float type parameters (`floats`) or `f32`/
/// `f64`: what `num_traits::Float` and `NumCast` give, each a number and nothing else
/// (`from` of a number into a float never fails). An eager default of an option's
/// combinator may be one ([`option_match`]), as a literal may.
fn is_float_constant(expr: &Expr, floats: &[Ident]) -> bool {
    let of_float = |func: &Expr, names: &[&str]| -> bool {
        let Expr::Path(path) = crate::syntax::strip_parens(func) else {
            return false;
        };
        let segments: Vec<&syn::PathSegment> = path.path.segments.iter().collect();
        path.qself.is_none()
            && matches!(&segments[..], [ty, name]
                if ty.arguments.is_none()
                    && (floats.contains(&ty.ident) || ty.ident == "f32" || ty.ident == "f64")
                    && names.contains(&name.ident.to_string().as_str()))
    };
    match crate::syntax::strip_parens(expr) {
        Expr::Call(call) if call.args.is_empty() => of_float(
            &call.func,
            &[
                "zero",
                "one",
                "infinity",
                "neg_infinity",
                "nan",
                "neg_zero",
                "epsilon",
                "max_value",
                "min_value",
                "min_positive_value",
            ],
        ),
        Expr::MethodCall(unwrap)
            if matches!(unwrap.method.to_string().as_str(), "unwrap" | "expect")
                && unwrap.args.iter().all(|a| matches!(a, Expr::Lit(_))) =>
        {
            matches!(crate::syntax::strip_parens(&unwrap.receiver),
                Expr::Call(call) if call.args.len() == 1
                    && is_pure(&call.args[0])
                    && of_float(&call.func, &["from"]))
        }
        Expr::Unary(unary) => is_float_constant(&unary.expr, floats),
        Expr::Binary(binary) => {
            !is_compound_assign(&binary.op)
                && [&binary.left, &binary.right]
                    .iter()
                    .all(|side| is_pure(side) || is_float_constant(side, floats))
        }
        _ => false,
    }
}

// ----- slice patterns -----

/// `match x { [a, b] => e, [first, .., last] => f, _ => g }` (or `if let [a, b] = x { .. }
/// else { .. }`, the `match` it is) of an array or slice by name
/// (or `*x`), every arm's pattern a slice pattern of names, `_` and one `..` at most (or a
/// last `_`), becomes the `if` chain it stands for, each arm's test the length its pattern
/// needs (`x.len() == 2`, `x.len() >= 2`), its names bound to the elements by index first
/// (`let a = &x[0];`, from the end after a `..`: `let last = &x[x.len() - 1];`), by
/// reference for a slice by name (the binding mode `match` gives them) and by value for
/// `*x`. A guard is tested with its names bound. The last arm is the chain's `else`: the
/// `match` is exhaustive, so a value no earlier arm takes matches it. Lowering then reads
/// the elements by index, as it does any array's. A sub-slice bound by reference, `rest @
/// ..`, is `let rest = &x[k..x.len() - m];` (`k` elements before it, `m` after), which
/// `iterators` reads as a view of `x`. A sub-slice bound by value (`match *x`), an element
/// pattern that is not a name, or a guarded last arm leaves the `match` as written.
struct SlicePatterns;

impl VisitMut for SlicePatterns {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        // `if let [a, b] = x { A } else { B }` is `match x { [a, b] => { A } _ => { B } }`
        if let Expr::If(expr_if) = expr
            && let Some(matched) = crate::syntax::if_let_as_match(expr_if)
            && matches!(&matched.arms[0].pat, Pat::Slice(_))
        {
            if let Some(chain) = slice_match(&matched) {
                *expr = chain;
            }
            return;
        }
        if let Expr::Match(expr_match) = expr
            && let Some(chain) = slice_match(expr_match)
        {
            *expr = chain;
        }
    }

    /// `let [a, b, ..] = x else { D };` (a slice pattern as `match` takes it, `x` by name,
    /// `*x` or `x[..]`): the test of the length first, `if !(x.len() >= 2) { D }` (`D`
    /// diverges, as `let .. else` requires), then the names bound to the elements.
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        let mut out = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match slice_let_else(&stmt) {
                Some(stmts) => out.extend(stmts),
                None => out.push(stmt),
            }
        }
        block.stmts = out;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// [`SlicePatterns`]' `let [..] = x else { .. };`, as the test and the `let`s.
fn slice_let_else(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let Pat::Slice(slice) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref()?;
    let (_, diverge) = init.diverge.as_ref()?;
    let (array, by_value) =
        crate::syntax::name_or_deref(&init.expr).or_else(|| whole_range(&init.expr))?;
    let (test, lets) = slice_arm(slice, array, by_value)?;
    let mut stmts: Vec<Stmt> = vec![syn::parse_quote!(if !(#test) { #diverge })];
    stmts.extend(lets);
    Some(stmts)
}

/// `expr_match` as [`SlicePatterns`]' `if` chain, if it is of that form.
fn slice_match(expr_match: &syn::ExprMatch) -> Option<Expr> {
    let (array, by_value) =
        crate::syntax::name_or_deref(&expr_match.expr).or_else(|| whole_range(&expr_match.expr))?;
    let arms = &expr_match.arms;
    let last = arms.len().checked_sub(1)?;
    let mut chain: Option<Expr> = None;
    // from the last arm back, each arm the `if` around the chain of those after it
    for (k, arm) in arms.iter().enumerate().rev() {
        let (pat, guard) = match &arm.pat {
            Pat::Guard(guarded) => (&*guarded.pat, Some(&*guarded.guard)),
            pat => (pat, None),
        };
        let (test, lets): (Expr, Vec<Stmt>) = match pat {
            Pat::Wild(_) => (syn::parse_quote!(true), Vec::new()),
            Pat::Slice(slice) => slice_arm(slice, array, by_value)?,
            _ => return None,
        };
        let body = &arm.body;
        let taken: Expr = syn::parse_quote!({ #(#lets)* #body });
        chain = Some(match (k == last, guard, chain) {
            (true, None, None) => taken,
            (false, guard, Some(rest)) => {
                let test: Expr = match guard {
                    Some(guard) => syn::parse_quote!(#test && { #(#lets)* #guard }),
                    None => test,
                };
                syn::parse_quote!(if #test #taken else { #rest })
            }
            _ => return None,
        });
    }
    chain
}

/// `x[..]` of a name: the whole array as a place, its elements matched by value, as `*x`'s.
fn whole_range(expr: &Expr) -> Option<(&Ident, bool)> {
    let Expr::Index(index) = crate::syntax::strip_parens(expr) else {
        return None;
    };
    let Expr::Range(range) = crate::syntax::strip_parens(&index.index) else {
        return None;
    };
    if range.start.is_some() || range.end.is_some() {
        return None;
    }
    let array = crate::syntax::single_ident(crate::syntax::strip_parens(&index.expr))?;
    Some((array, true))
}

/// A slice arm's length test and the `let`s binding its names, if its elements are names
/// and `_` with one unbound `..` at most.
fn slice_arm(slice: &syn::PatSlice, array: &Ident, by_value: bool) -> Option<(Expr, Vec<Stmt>)> {
    let rest = slice.elems.iter().position(is_rest);
    if slice.elems.iter().filter(|p| is_rest(p)).count() > 1 {
        return None;
    }
    let before = rest.unwrap_or(slice.elems.len());
    let after = rest.map_or(0, |r| slice.elems.len() - r - 1);
    let needed = before + after;
    let test: Expr = match rest {
        Some(_) => syn::parse_quote!(#array.len() >= #needed),
        None => syn::parse_quote!(#array.len() == #needed),
    };
    let reference = (!by_value).then(|| quote!(&));
    let mut lets = Vec::new();
    for (k, elem) in slice.elems.iter().enumerate() {
        let index: Expr = match rest {
            Some(r) if k == r => {
                // `name @ ..`: the sub-slice between the elements before and after it,
                // `&x[before..x.len() - after]` (the length test above keeps it in range),
                // which `iterators` reads as a view of `x`. Not of `*x`, where it binds an
                // unsized `[F]` by value (rustc's error) or a fixed array's copy.
                if let Pat::Ident(name) = elem {
                    if by_value || name.by_ref.is_some() || name.mutability.is_some() {
                        return None;
                    }
                    let name = &name.ident;
                    lets.push(syn::parse_quote!(
                        let #name = &#array[#before..#array.len() - #after];
                    ));
                }
                continue;
            }
            Some(r) if k > r => {
                let from_end = slice.elems.len() - k;
                syn::parse_quote!(#array.len() - #from_end)
            }
            _ => syn::parse_quote!(#k),
        };
        match elem {
            Pat::Wild(_) => {}
            Pat::Ident(name)
                if name.by_ref.is_none() && name.mutability.is_none() && name.subpat.is_none() =>
            {
                let name = &name.ident;
                lets.push(syn::parse_quote!(let #name = #reference #array[#index];));
            }
            _ => return None,
        }
    }
    Some((test, lets))
}

/// `..` or `name @ ..` in a slice pattern.
fn is_rest(pat: &Pat) -> bool {
    match pat {
        Pat::Rest(_) => true,
        Pat::Ident(name) => name
            .subpat
            .as_ref()
            .is_some_and(|(_, sub)| matches!(&**sub, Pat::Rest(_))),
        _ => false,
    }
}

// ----- a function named as a map's closure -----

/// `.map(f64::exp)` (any path: `f64::sqrt`, `T::ln`, a helper) is `.map(|item|
/// f64::exp(item))`, the call the iterator makes per item, and `.fold(init, T::max)` is
/// `.fold(init, |acc, item| T::max(acc, item))`, which `FloatPaths` then makes the method
/// calls `item.exp()`, `acc.max(item)`: the iterator forms take closures.
struct MapPaths;

impl VisitMut for MapPaths {
    fn visit_expr_method_call_mut(&mut self, call: &mut syn::ExprMethodCall) {
        syn::visit_mut::visit_expr_method_call_mut(self, call);
        let function = match (call.method.to_string().as_str(), call.args.len()) {
            ("map", 1) => 0,
            ("fold", 2) => 1,
            _ => return,
        };
        let Expr::Path(path) = crate::syntax::strip_parens(&call.args[function]) else {
            return;
        };
        // `fold(init, f64::max)` is the iterator forms' own (a float type's path)
        if function == 1
            && path
                .path
                .segments
                .first()
                .is_some_and(|first| first.ident == "f64" || first.ident == "f32")
        {
            return;
        }
        let span = path
            .path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
        let item = crate::syntax::unspelled_ident(format_ident!("item"));
        let acc = crate::syntax::unspelled_ident(format_ident!("acc"));
        call.args[function] = match function {
            0 => syn::parse_quote_spanned!(span=> |#item| #path(#item)),
            _ => syn::parse_quote_spanned!(span=> |#acc, #item| #path(#acc, #item)),
        };
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// ----- `reverse` -----

/// `v.reverse();` is the swaps it makes, `{ let n = v.len(); for k in 0..n / 2 {
/// v.swap(k, n - 1 - k); } }`: element reads and writes, which lowering differentiates for
/// a float array (each element's cotangent follows it), and the same permutation of any
/// other slice.
struct Reverses {
    /// The next id for the length's and counter's locals.
    next: usize,
}

impl VisitMut for Reverses {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        syn::visit_mut::visit_stmt_mut(self, stmt);
        let Stmt::Expr(Expr::MethodCall(call), Some(_)) = stmt else {
            return;
        };
        if call.method != "reverse" || !call.args.is_empty() {
            return;
        }
        let Some(array) = crate::syntax::single_ident(crate::syntax::strip_parens(&call.receiver))
        else {
            return;
        };
        let id = self.next;
        self.next += 1;
        let n = crate::syntax::unspelled_ident(format_ident!("reverse_len_{id}"));
        let k = crate::syntax::unspelled_ident(format_ident!("reverse_k_{id}"));
        let span = call.method.span();
        *stmt = syn::parse_quote_spanned!(span=> {
            let #n = #array.len();
            for #k in 0..#n / 2 {
                #array.swap(#k, #n - 1 - #k);
            }
        });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// ----- `for_each` -----

/// `items.for_each(|p| body);` is `for p in items { body; }`: the body run once per item,
/// in order, as the closure is. A body that leaves the closure (`return`, which there ends
/// one item's call, or `?`) is left as written.
struct ForEachLoops;

impl VisitMut for ForEachLoops {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        syn::visit_mut::visit_stmt_mut(self, stmt);
        let Stmt::Expr(Expr::MethodCall(call), _) = stmt else {
            return;
        };
        if call.method != "for_each" || call.args.len() != 1 {
            return;
        }
        let Expr::Closure(closure) = crate::syntax::strip_parens(&call.args[0]) else {
            return;
        };
        if closure.inputs.len() != 1 || closure.asyncness.is_some() || leaves(&closure.body) {
            return;
        }
        let item = match &closure.inputs[0] {
            Pat::Type(typed) => &*typed.pat,
            pat => pat,
        };
        let (items, body) = (&call.receiver, &closure.body);
        let span = call.method.span();
        *stmt = syn::parse_quote_spanned!(span=> for #item in #items { #body; });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// ----- let chains -----

/// `if let P = e && c { A } else { B }` (Rust 2024's let chains; any mix of `let`s and
/// conditions joined by `&&`) becomes the forms lowering differentiates, each the same
/// program: the conjuncts evaluated left to right until one fails, each `let`'s names
/// bound for the conjuncts after it and for `A`, and `B` run when one fails.
///
/// - With no `else`: nested `if let P = e { if c { A } }`.
/// - A leading `let` and conditions after it: `match e { P if c => A, _ => B }`.
/// - Otherwise, when `A` is a statement (it ends with `;`): a flag says whether it ran,
///   `{ let mut taken = false; if let P = e { if c { taken = true; A } } if !taken { B } }`.
/// - Otherwise: the branch's value held in an option, so that `B` is written once:
///   `{ let mut taken = None; if let P = e { if c { taken = Some(A); } }
///   if let Some(v) = taken { v } else { B } }` (which `options` takes apart).
///
/// `while <chain> { body }` is `loop { if <chain> { body } else { break; } }`, its label
/// kept (a `continue` in `body` goes to the same loop).
struct LetChains {
    /// The next id for the taken branch's option.
    next: usize,
}

impl VisitMut for LetChains {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // inner chains first: a branch may hold one
        syn::visit_mut::visit_expr_mut(self, expr);
        let rewritten = match expr {
            Expr::If(expr_if) => conjuncts_of(&expr_if.cond).map(|conjuncts| {
                let span = expr_if.if_token.span;
                let then_branch = &expr_if.then_branch;
                let otherwise = expr_if.else_branch.as_ref().map(|(_, e)| &**e);
                self.if_chain(span, conjuncts, then_branch, otherwise)
            }),
            Expr::While(expr_while) => conjuncts_of(&expr_while.cond).map(|conjuncts| {
                let span = expr_while.while_token.span;
                let label = &expr_while.label;
                let breaking: Expr = syn::parse_quote_spanned!(span=> { break; });
                let body = self.if_chain(span, conjuncts, &expr_while.body, Some(&breaking));
                syn::parse_quote_spanned!(span=> #label loop { #body })
            }),
            _ => None,
        };
        if let Some(rewritten) = rewritten {
            *expr = rewritten;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl LetChains {
    /// `if <conjuncts> { then } [else otherwise]` without a chain.
    fn if_chain(
        &mut self,
        span: proc_macro2::Span,
        conjuncts: Vec<&Expr>,
        then: &syn::Block,
        otherwise: Option<&Expr>,
    ) -> Expr {
        let Some(otherwise) = otherwise else {
            return nested_conjuncts(span, &conjuncts, syn::parse_quote_spanned!(span=> #then));
        };
        if let [Expr::Let(first), rest @ ..] = &conjuncts[..]
            && !rest.iter().any(|c| matches!(c, Expr::Let(_)))
        {
            let (pat, scrutinee) = (&first.pat, &first.expr);
            return syn::parse_quote_spanned!(span=> match #scrutinee {
                #pat if #(#rest)&&* => #then,
                _ => #otherwise,
            });
        }
        let taken = crate::syntax::unspelled_ident(format_ident!("chain_taken_{}", self.next));
        let value = crate::syntax::unspelled_ident(format_ident!("chain_value_{}", self.next));
        self.next += 1;
        if has_no_value(then) {
            // a statement: a flag says whether `then` ran
            let take: syn::Block = syn::parse_quote_spanned!(span=> {
                #taken = true;
                #then
            });
            let nested = nested_conjuncts(span, &conjuncts, take);
            return syn::parse_quote_spanned!(span=> {
                let mut #taken = false;
                #nested
                if !#taken { #otherwise }
            });
        }
        // `Some`/`None` as the user spells them: the forms `options` takes apart
        let take: syn::Block = syn::parse_quote_spanned!(span=> {
            #taken = Some(#then);
        });
        let nested = nested_conjuncts(span, &conjuncts, take);
        syn::parse_quote_spanned!(span=> {
            let mut #taken = None;
            #nested
            if let Some(#value) = #taken { #value } else #otherwise
        })
    }
}

/// Whether `block` ends in a statement (its value is `()`): a `;`, an assignment, a loop
/// that is no `loop`, or nothing.
fn has_no_value(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(tail, None)) => {
            matches!(tail, Expr::Assign(_) | Expr::ForLoop(_) | Expr::While(_))
                || matches!(tail, Expr::Binary(binary) if is_compound_assign(&binary.op))
        }
        _ => true,
    }
}

/// The conjuncts of a condition joined by `&&`, left to right, if one is a `let` (a let
/// chain); `None` for any other condition.
fn conjuncts_of(cond: &Expr) -> Option<Vec<&Expr>> {
    fn flatten<'e>(expr: &'e Expr, into: &mut Vec<&'e Expr>) {
        match expr {
            Expr::Binary(binary) if matches!(binary.op, BinOp::And(_)) => {
                flatten(&binary.left, into);
                flatten(&binary.right, into);
            }
            other => into.push(other),
        }
    }
    if !matches!(cond, Expr::Binary(binary) if matches!(binary.op, BinOp::And(_))) {
        return None;
    }
    let mut conjuncts = Vec::new();
    flatten(cond, &mut conjuncts);
    conjuncts
        .iter()
        .any(|c| matches!(c, Expr::Let(_)))
        .then_some(conjuncts)
}

/// `if let P = e { if c { .. { inner } } }`: `inner` run when every conjunct holds, with
/// no `else`.
fn nested_conjuncts(span: proc_macro2::Span, conjuncts: &[&Expr], inner: syn::Block) -> Expr {
    let mut body = inner;
    for conjunct in conjuncts.iter().rev() {
        body = syn::parse_quote_spanned!(span=> { if #conjunct #body });
    }
    syn::parse_quote_spanned!(span=> #body)
}

// ----- reductions over iterators of constants -----

/// A reduction the iterator desugaring (`iterators`) left, its source no float array but a
/// range or an iterator of constants (`(0..n)`, `weights.iter()` of a `&[usize]`), after
/// any `.map(|p| e)` calls: `items.fold(init, |acc, item| body)`, `.sum()` or
/// `.product()`, becomes the loop it is,
/// `{ let items = <source>; let mut acc = init; for p in items { let item = e; acc = body; } acc }`
/// (`acc = acc + e` for a sum, from `generated::element_zero()`; a product from
/// `element_one()`): the source evaluated first and the initial value next, as the calls
/// evaluate them, and each map's body then the fold's run once per item, in order, as the
/// lazy iterator runs them. Lowering differentiates the loop (an iterator of constants is
/// run as written); it took the call for an annotated method of the receiver, which rustc
/// answered. A closure whose body leaves it (`return`, `?`), or a fold whose accumulator is
/// a pattern, is left as written.
///
/// A chain over a float array (`arrays`, by name) the desugaring did not take is left as
/// written, for lowering to report at the call.
pub fn reductions_as_loops(stmts: Vec<Stmt>, arrays: &HashSet<String>) -> Vec<Stmt> {
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    ReductionLoops { next: 0, arrays }.visit_block_mut(&mut block);
    block.stmts
}

/// `let y = x;` of a borrowed flat float array parameter (`x: &[f64]`, `&Vec<T>`, `&[T;
/// N]`; `parameters`, by name) the body never binds again: `let y = &x[..];`, a view of
/// the whole, which lowering takes as it takes `&x[i..j]` (a copy of the reference, read
/// through: the same elements, so the same values and panics). A `let` typed or `mut`
/// is left as written (its type may name the array's length, or the name may be
/// reassigned another array).
pub fn slice_aliases(stmts: Vec<Stmt>, parameters: &HashSet<String>) -> Vec<Stmt> {
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    let mut bound = Bindings::default();
    bound.visit_block(&block);
    let names: HashSet<String> = parameters
        .iter()
        .filter(|name| !bound.0.keys().any(|ident| ident == name.as_str()))
        .cloned()
        .collect();
    WalkedSlices { arrays: &names }.visit_block_mut(&mut block);
    SliceAliases { names: &names }.visit_block_mut(&mut block);
    block.stmts
}

// ----- a slice walked by assigning it again -----

/// `let mut s = &x[..];` (also `x`, `&x[i..j]`) of a borrowed flat array parameter `x`
/// that the statements after it assign again (`s = &s[1..];`, `s = rest;`), walking the
/// array: `s` is two `usize` locals, its first position and its end in `x`, set where
/// `s` is (the slice's own check first, `x[lo..hi].len()`) and again at each assignment,
/// and every read of `s` a read of `x` through them (`iterators::read_view`: `s[i]` is
/// `x[lo + i]` checked against `s`'s length, `s[i..j]` a part of `x`, `s.len()` is `hi -
/// lo`, `s.is_empty()`, `s.iter()` the part `x[lo..hi]`, `if let Some(v) = s.first()`
/// (`last()`, `get(i)`) the test of the index). `while let [first, rest @ ..]
/// = s { .. }` (names, `&name`, `_`, one `..` or `rest @ ..`) is the loop on `s`'s length
/// its pattern needs, each name bound to its element by reference (by value for
/// `&name`), `rest` a view of its own, which `s = rest;` copies. The same reads in the
/// same order: a slice is a pair of positions in `x`, and nothing else can change. Left as
/// written when `s` (or a `rest`) is used otherwise (passed on, bound again, in a
/// closure): no part of the rewrite is kept then.
struct WalkedSlices<'a> {
    arrays: &'a HashSet<String>,
}

impl VisitMut for WalkedSlices<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        let mut k = 0;
        while k < block.stmts.len() {
            if let Some((declared, rest)) = self.walked(&block.stmts[k], &block.stmts[k + 1..]) {
                let taken = declared.len();
                block.stmts.splice(k.., declared.into_iter().chain(rest));
                k += taken;
            } else {
                k += 1;
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A slice walked through `array`, named `name`, from `lo` (inclusive) to `hi`.
#[derive(Clone)]
struct Walked {
    name: Ident,
    lo: Ident,
    hi: Ident,
}

impl WalkedSlices<'_> {
    /// `stmt` (`let mut s = ..;`) as the locals of the walked slice, and `after` with its
    /// reads and assignments rewritten; `None` when it is not of that form.
    fn walked(&self, stmt: &Stmt, after: &[Stmt]) -> Option<(Vec<Stmt>, Vec<Stmt>)> {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let Pat::Ident(pat) = &local.pat else {
            return None;
        };
        let init = local.init.as_ref()?;
        if pat.mutability.is_none()
            || pat.by_ref.is_some()
            || pat.subpat.is_some()
            || init.diverge.is_some()
        {
            return None;
        }
        let name = pat.ident.clone();
        // the array and the part's bounds
        let (array, start, end) = match crate::syntax::strip_parens(&init.expr) {
            Expr::Reference(reference) if reference.mutability.is_none() => {
                let Expr::Index(index) = crate::syntax::strip_parens(&reference.expr) else {
                    return None;
                };
                let Expr::Range(range) = crate::syntax::strip_parens(&index.index) else {
                    return None;
                };
                let array = crate::syntax::single_ident(crate::syntax::strip_parens(&index.expr))?;
                let (start, end) = crate::syntax::range_bounds(range, array);
                (array.clone(), start, end)
            }
            other => {
                let array = crate::syntax::single_ident(other)?;
                (array.clone(), quote!(0), quote!(#array.len()))
            }
        };
        if !self.arrays.contains(&array.to_string()) || !assigned_again(after, &name) {
            return None;
        }
        let walked = Walked {
            lo: crate::syntax::fresh_local(format!("{name}_start")),
            hi: crate::syntax::fresh_local(format!("{name}_end")),
            name,
        };
        let (lo, hi) = (&walked.lo, &walked.hi);
        let declared: Vec<Stmt> = vec![
            syn::parse_quote!(let mut #lo: usize = #start;),
            syn::parse_quote!(let mut #hi: usize = #lo + #array[#lo..#end].len();),
        ];
        let mut walker = Walker {
            array: &array,
            views: vec![walked.clone()],
            failed: false,
            next: 0,
        };
        let mut rest: Vec<Stmt> = after.to_vec();
        for stmt in &mut rest {
            walker.visit_stmt_mut(stmt);
        }
        if walker.failed {
            return None;
        }
        // nothing left naming the slice (or a view its patterns made)
        let left = crate::syntax::names_in(quote!(#(#rest)*));
        if left.contains(&walked.name.to_string()) {
            return None;
        }
        Some((declared, rest))
    }
}

/// Whether `stmts` assign `name` (`name = ..`) anywhere.
fn assigned_again(stmts: &[Stmt], name: &Ident) -> bool {
    struct Assigns<'n>(&'n Ident, bool);
    impl<'ast> Visit<'ast> for Assigns<'_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.1 |= is_name(&assign.left, self.0);
            syn::visit::visit_expr_assign(self, assign);
        }
    }
    let mut assigns = Assigns(name, false);
    for stmt in stmts {
        assigns.visit_stmt(stmt);
    }
    assigns.1
}

/// The rewrite of [`WalkedSlices`] in the statements after the slice's `let`.
struct Walker<'a> {
    array: &'a Ident,
    /// The walked slice, then the views `while let` patterns made, innermost last.
    views: Vec<Walked>,
    failed: bool,
    next: usize,
}

impl Walker<'_> {
    fn view(&self, expr: &Expr) -> Option<Walked> {
        let name = crate::syntax::single_ident(crate::syntax::strip_parens(expr))?;
        self.views
            .iter()
            .rev()
            .find(|view| &view.name == name)
            .cloned()
    }

    /// `expr`'s reads of every view, innermost first.
    fn read(&self, expr: &mut Expr) {
        for Walked { name, lo, hi } in self.views.iter().rev() {
            crate::iterators::read_view(expr, name, self.array, lo, quote!((#hi - #lo)));
        }
    }

    /// `s = value;` (the value's reads already rewritten): a part of the array, or
    /// another view.
    fn assignment(&mut self, target: &Walked, value: &Expr) -> Option<Expr> {
        let Walked { lo, hi, .. } = target;
        if let Some(other) = self.view(value) {
            let (other_lo, other_hi) = (&other.lo, &other.hi);
            return Some(syn::parse_quote!({ #lo = #other_lo; #hi = #other_hi; }));
        }
        let Expr::Reference(reference) = crate::syntax::strip_parens(value) else {
            return None;
        };
        let Expr::Index(index) = crate::syntax::strip_parens(&reference.expr) else {
            return None;
        };
        let Expr::Range(range) = crate::syntax::strip_parens(&index.index) else {
            return None;
        };
        if reference.mutability.is_some()
            || !is_name(crate::syntax::strip_parens(&index.expr), self.array)
        {
            return None;
        }
        let array = self.array;
        let (start, end) = crate::syntax::range_bounds(range, array);
        self.next += 1;
        let (a, b) = (
            crate::syntax::fresh_local(format!("walk_start{}", self.next)),
            crate::syntax::fresh_local(format!("walk_end{}", self.next)),
        );
        // both bounds evaluated first, in order, then the part checked as the slice
        // checks it, then the slice moved
        Some(syn::parse_quote!({
            let #a: usize = #start;
            let #b: usize = #end;
            #hi = #a + #array[#a..#b].len();
            #lo = #a;
        }))
    }

    /// `while let [p, .., rest @ ..] = s { body }` as the loop on `s`'s length.
    fn while_let(&mut self, looped: &syn::ExprWhile) -> Option<Expr> {
        let Expr::Let(test) = crate::syntax::strip_parens(&looped.cond) else {
            return None;
        };
        let view = self.view(&test.expr)?;
        let Pat::Slice(slice) = &*test.pat else {
            return None;
        };
        let (lo, hi) = (&view.lo, &view.hi);
        let array = self.array;
        let rest_at = slice
            .elems
            .iter()
            .position(|p| matches!(p, Pat::Rest(_)) || rest_binding(p).is_some());
        if slice
            .elems
            .iter()
            .filter(|p| matches!(p, Pat::Rest(_)) || rest_binding(p).is_some())
            .count()
            > 1
        {
            return None;
        }
        let count = slice.elems.len() - usize::from(rest_at.is_some());
        let test: Expr = match rest_at {
            Some(_) => syn::parse_quote!(#hi - #lo >= #count),
            None => syn::parse_quote!(#hi - #lo == #count),
        };
        let mut lets: Vec<Stmt> = Vec::new();
        let mut inner: Option<Walked> = None;
        for (k, elem) in slice.elems.iter().enumerate() {
            let place: proc_macro2::TokenStream = match rest_at {
                Some(at) if k > at => {
                    let from_end = slice.elems.len() - k;
                    quote!(#array[#hi - #from_end])
                }
                _ => quote!(#array[#lo + #k]),
            };
            match elem {
                Pat::Rest(_) | Pat::Wild(_) => {}
                Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                    let name = &ident.ident;
                    let mutability = &ident.mutability;
                    lets.push(syn::parse_quote!(let #mutability #name = &#place;));
                }
                Pat::Reference(reference) if reference.mutability.is_none() => {
                    let Pat::Ident(ident) = &*reference.pat else {
                        return None;
                    };
                    if ident.subpat.is_some() || ident.by_ref.is_some() {
                        return None;
                    }
                    let name = &ident.ident;
                    let mutability = &ident.mutability;
                    lets.push(syn::parse_quote!(let #mutability #name = #place;));
                }
                elem => {
                    let name = rest_binding(elem)?;
                    let at = rest_at.expect("a rest binding");
                    let after = slice.elems.len() - at - 1;
                    self.next += 1;
                    let walked = Walked {
                        lo: crate::syntax::fresh_local(format!("{name}_start{}", self.next)),
                        hi: crate::syntax::fresh_local(format!("{name}_end{}", self.next)),
                        name: name.clone(),
                    };
                    let (rest_lo, rest_hi) = (&walked.lo, &walked.hi);
                    lets.push(syn::parse_quote!(let #rest_lo: usize = #lo + #at;));
                    lets.push(syn::parse_quote!(let #rest_hi: usize = #hi - #after;));
                    inner = Some(walked);
                }
            }
        }
        let mut body = looped.body.clone();
        let pushed = inner.is_some();
        if let Some(walked) = inner {
            self.views.push(walked);
        }
        self.visit_block_mut(&mut body);
        // a name the pattern binds must not be the walked slice's (its reads would be
        // the element's)
        if slice
            .elems
            .iter()
            .any(|p| crate::syntax::pattern_binds(p, &view.name))
        {
            self.failed = true;
        }
        if pushed {
            let walked = self.views.pop().expect("pushed above");
            let left = crate::syntax::names_in(quote!(#body));
            if left.contains(&walked.name.to_string()) {
                self.failed = true;
            }
        }
        let label = &looped.label;
        let stmts = &body.stmts;
        Some(syn::parse_quote!(#label while #test { #(#lets)* #(#stmts)* }))
    }
}

impl Walker<'_> {
    /// `if let Some(v) = s.first() { A } else { B }` (also `last()`, `get(i)`, `.copied()`,
    /// `Some(&v)`, `Some(_)`) of a walked slice or a pattern's view: the index evaluated
    /// once, tested against the view's length, `v` bound to the element there (by
    /// reference, as the option holds it, or by value), as `iterators` reads an array's.
    fn element_if_let(&mut self, branch: &syn::ExprIf) -> Option<Expr> {
        let Expr::Let(test) = &*branch.cond else {
            return None;
        };
        let (mut call, mut copied) = (crate::syntax::strip_parens(&test.expr), false);
        if let Expr::MethodCall(copy) = call
            && matches!(copy.method.to_string().as_str(), "copied" | "cloned")
            && copy.args.is_empty()
        {
            (call, copied) = (crate::syntax::strip_parens(&copy.receiver), true);
        }
        let Expr::MethodCall(call) = call else {
            return None;
        };
        let view = self.view(&call.receiver)?;
        let (lo, hi) = (&view.lo, &view.hi);
        let at: Expr = match (call.method.to_string().as_str(), call.args.len()) {
            ("first", 0) => syn::parse_quote!(0),
            ("last", 0) => syn::parse_quote!((#hi - #lo).wrapping_sub(1)),
            ("get", 1) => {
                let i = &call.args[0];
                syn::parse_quote!(#i)
            }
            _ => return None,
        };
        let Pat::TupleStruct(some) = &*test.pat else {
            return None;
        };
        if !some.path.is_ident("Some") || some.elems.len() != 1 {
            return None;
        }
        self.next += 1;
        let index = crate::syntax::fresh_local(format!("walk_index{}", self.next));
        let array = self.array;
        let place = quote!(#array[#lo + #index]);
        // `Some(_)` binds nothing; any other pattern as an array's element takes it
        let binding = match &some.elems[0] {
            Pat::Wild(_) => quote!(),
            _ => crate::iterators::element_binding(&test.pat, &place, copied)?,
        };
        Some(crate::iterators::element_if(
            branch,
            &index,
            &at,
            &quote!(#hi - #lo),
            &binding,
        ))
    }
}

/// `rest @ ..`: the name.
fn rest_binding(pat: &Pat) -> Option<&Ident> {
    match pat {
        Pat::Ident(ident)
            if ident.by_ref.is_none()
                && ident.mutability.is_none()
                && matches!(&ident.subpat, Some((_, sub)) if matches!(**sub, Pat::Rest(_))) =>
        {
            Some(&ident.ident)
        }
        _ => None,
    }
}

impl VisitMut for Walker<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if self.failed {
            return;
        }
        match expr {
            Expr::Assign(assign) => {
                if let Some(target) = self.view(&assign.left) {
                    if self
                        .views
                        .first()
                        .is_none_or(|first| first.name != target.name)
                    {
                        // only the walked slice is assigned (a pattern's view is not `mut`)
                        self.failed = true;
                        return;
                    }
                    self.visit_expr_mut(&mut assign.right);
                    self.read(&mut assign.right);
                    match self.assignment(&target, &assign.right) {
                        Some(rewritten) => *expr = rewritten,
                        None => self.failed = true,
                    }
                    return;
                }
            }
            Expr::While(looped) if matches!(&*looped.cond, Expr::Let(_)) => {
                if let Some(rewritten) = self.while_let(looped) {
                    *expr = rewritten;
                    return;
                }
            }
            Expr::If(branch) => {
                if let Some(mut rewritten) = self.element_if_let(branch) {
                    self.visit_expr_mut(&mut rewritten);
                    *expr = rewritten;
                    return;
                }
            }
            // a closure reading the slice would see the positions as they are where it
            // runs, not where it was made
            Expr::Closure(closure) => {
                let names = crate::syntax::names_in(quote!(#closure));
                if self
                    .views
                    .iter()
                    .any(|v| names.contains(&v.name.to_string()))
                {
                    self.failed = true;
                }
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
        // the reads the views' own rewrite does not make
        if let Expr::MethodCall(call) = expr
            && call.args.is_empty()
            && let Some(Walked { lo, hi, .. }) = self.view(&call.receiver)
        {
            let array = self.array;
            match call.method.to_string().as_str() {
                "is_empty" => *expr = syn::parse_quote!((#hi == #lo)),
                "iter" => *expr = syn::parse_quote!(#array[#lo..#hi].iter()),
                _ => {}
            }
        }
        self.read(expr);
    }

    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        // a view's name bound again: its later reads would be the new binding's
        if self
            .views
            .iter()
            .any(|view| crate::syntax::pattern_binds(&local.pat, &view.name))
        {
            self.failed = true;
            return;
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

struct SliceAliases<'a> {
    names: &'a HashSet<String>,
}

impl VisitMut for SliceAliases<'_> {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if let Pat::Ident(pat) = &local.pat
            && pat.by_ref.is_none()
            && pat.mutability.is_none()
            && pat.subpat.is_none()
            && let Some(init) = &mut local.init
            && init.diverge.is_none()
            && let Some(name) = crate::syntax::single_ident(crate::syntax::strip_parens(&init.expr))
            && self.names.contains(&name.to_string())
        {
            let name = name.clone();
            *init.expr = syn::parse_quote!(&#name[..]);
        }
        syn::visit_mut::visit_local_mut(self, local);
    }
}

/// `while let P = x.get(i) { B }` (or `first()`, `last()`, each maybe `.copied()`), of a
/// name: `loop { match x.get(i) { P => { B } _ => break } }`, what Rust makes of it, so
/// that the element `match` of `iterators` takes the test (`x.get(i)` evaluated at each
/// trip, before the body; `continue` goes to that test and `break` leaves the loop, as
/// before; a label stays on the loop).
struct WhileLetElements;

impl VisitMut for WhileLetElements {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::While(while_loop) = expr else {
            return;
        };
        let Expr::Let(test) = &*while_loop.cond else {
            return;
        };
        if !is_element_option(&test.expr) || !while_loop.attrs.is_empty() {
            return;
        }
        let (label, pat, scrutinee, body) =
            (&while_loop.label, &test.pat, &test.expr, &while_loop.body);
        *expr = syn::parse_quote!(#label loop {
            match #scrutinee {
                #pat => #body
                _ => break,
            }
        });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `x.get(i)`, `x.first()`, `x.last()` of a name, maybe then `.copied()`/`.cloned()`.
fn is_element_option(expr: &Expr) -> bool {
    let Expr::MethodCall(call) = crate::syntax::strip_parens(expr) else {
        return false;
    };
    match (call.method.to_string().as_str(), call.args.len()) {
        ("copied" | "cloned", 0) => is_element_option(&call.receiver),
        ("get", 1) | ("first" | "last", 0) => {
            crate::syntax::single_ident(crate::syntax::strip_parens(&call.receiver)).is_some()
        }
        _ => false,
    }
}

/// `let (head, tail) = x.split_at(k);` of a name: `let mid = k; let head = &x[..mid]; let
/// tail = &x[mid..];`, two views of the array, which `iterators` reads as parts of `x`
/// (`k` evaluated once, first; a `k` past the end panics at the first view, as
/// `split_at` panics).
struct SplitAts {
    /// The next id for the split point's local.
    next: usize,
}

impl VisitMut for SplitAts {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        let mut rewritten = Vec::with_capacity(block.stmts.len());
        for stmt in block.stmts.drain(..) {
            let Some((head, tail, array, mid)) = split_at(&stmt) else {
                rewritten.push(stmt);
                continue;
            };
            let at = crate::syntax::fresh_local(format!("split_at{}", self.next));
            self.next += 1;
            rewritten.push(syn::parse_quote!(let #at: usize = #mid;));
            rewritten.push(syn::parse_quote!(let #head = &#array[..#at];));
            rewritten.push(syn::parse_quote!(let #tail = &#array[#at..];));
        }
        block.stmts = rewritten;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The parts of `let (head, tail) = array.split_at(mid);`: the two patterns (names or
/// `_`, neither `mut` nor `ref`), the array's name and `mid`.
fn split_at(stmt: &Stmt) -> Option<(Pat, Pat, Ident, Expr)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
    let Pat::Tuple(tuple) = &local.pat else {
        return None;
    };
    let Expr::MethodCall(call) = crate::syntax::strip_parens(&init.expr) else {
        return None;
    };
    if call.method != "split_at" || call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let array = crate::syntax::single_ident(crate::syntax::strip_parens(&call.receiver))?;
    let plain = |pat: &Pat| match pat {
        Pat::Ident(ident) => {
            ident.by_ref.is_none() && ident.mutability.is_none() && ident.subpat.is_none()
        }
        Pat::Wild(_) => true,
        _ => false,
    };
    let [head, tail] = [tuple.elems.first()?, tuple.elems.last()?];
    if tuple.elems.len() != 2 || !plain(head) || !plain(tail) || !local.attrs.is_empty() {
        return None;
    }
    Some((
        head.clone(),
        tail.clone(),
        array.clone(),
        call.args[0].clone(),
    ))
}

struct ReductionLoops<'a> {
    /// The next id for the items' and accumulator's locals.
    next: usize,
    /// The float arrays, by name.
    arrays: &'a HashSet<String>,
}

impl VisitMut for ReductionLoops<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let Expr::MethodCall(call) = expr
            && let Some(rewritten) = self.reduction_loop(call)
        {
            *expr = rewritten;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl ReductionLoops<'_> {
    fn reduction_loop(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let span = call.method.span();
        let generated = crate::generate::paths::generated();
        let id = self.next;
        // the accumulator, its type if written, its start and the body updating it
        let (acc, acc_ty, init, step, item): (Ident, _, Expr, Expr, Pat) =
            match (call.method.to_string().as_str(), call.args.len()) {
                ("fold", 2) if call.turbofish.is_none() => {
                    let Expr::Closure(closure) = crate::syntax::strip_parens(&call.args[1]) else {
                        return None;
                    };
                    if closure.inputs.len() != 2
                        || closure.asyncness.is_some()
                        || leaves(&closure.body)
                    {
                        return None;
                    }
                    let (acc, acc_ty) = match &closure.inputs[0] {
                        Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
                        pat => (pat, None),
                    };
                    let Pat::Ident(acc) = acc else {
                        return None;
                    };
                    if acc.by_ref.is_some() || acc.subpat.is_some() {
                        return None;
                    }
                    // a `for` pattern or a `let` of the item takes no type: the iterator
                    // gives it
                    let item = match &closure.inputs[1] {
                        Pat::Type(typed) => (*typed.pat).clone(),
                        pat => pat.clone(),
                    };
                    let acc_ty = acc_ty.map(|ty| quote!(: #ty));
                    let step = (*closure.body).clone();
                    (acc.ident.clone(), acc_ty, call.args[0].clone(), step, item)
                }
                (method @ ("sum" | "product"), 0) => {
                    let acc = crate::syntax::unspelled_ident(format_ident!("reduction_acc_{id}"));
                    let value =
                        crate::syntax::unspelled_ident(format_ident!("reduction_item_{id}"));
                    let acc_ty = call.turbofish.as_ref().map(|turbofish| {
                        let ty = &turbofish.args;
                        quote!(: #ty)
                    });
                    let (init, step): (Expr, Expr) = match method {
                        // from `-0.0`, as std's float `Sum` starts
                        "sum" => (
                            syn::parse_quote!(#generated::sum_start()),
                            syn::parse_quote!(#acc + #value),
                        ),
                        _ => (
                            syn::parse_quote!(#generated::element_one()),
                            syn::parse_quote!(#acc * #value),
                        ),
                    };
                    (acc, acc_ty, init, step, syn::parse_quote!(#value))
                }
                _ => return None,
            };
        // the maps before the reduction, innermost last
        let mut maps = Vec::new();
        let mut source = &*call.receiver;
        while let Expr::MethodCall(map) = crate::syntax::strip_parens(source)
            && map.method == "map"
            && map.args.len() == 1
            && let Expr::Closure(closure) = crate::syntax::strip_parens(&map.args[0])
            && closure.inputs.len() == 1
            && closure.asyncness.is_none()
            && !leaves(&closure.body)
        {
            maps.push(closure);
            source = &map.receiver;
        }
        // the source's root name, through methods, references, indexing and fields
        let mut root = crate::syntax::strip_parens(source);
        loop {
            root = match root {
                Expr::MethodCall(inner) => crate::syntax::strip_parens(&inner.receiver),
                Expr::Reference(inner) => crate::syntax::strip_parens(&inner.expr),
                Expr::Index(inner) => crate::syntax::strip_parens(&inner.expr),
                Expr::Field(inner) => crate::syntax::strip_parens(&inner.base),
                _ => break,
            };
        }
        if crate::syntax::single_ident(root)
            .is_some_and(|name| self.arrays.contains(&name.to_string()))
        {
            return None;
        }
        // A sum or product of maps that read only their own items is constant, and stays
        // as written: its loop would start from `Zero`/`One`, which a type with `Sum` need
        // not have. One reading an outer name may read a differentiable value.
        if matches!(call.method.to_string().as_str(), "sum" | "product")
            && !maps.iter().any(|closure| reads_outer_names(closure))
        {
            return None;
        }
        self.next += 1;
        let items = crate::syntax::unspelled_ident(format_ident!("reduction_items_{id}"));
        // the first map's parameter binds the item; each map's value the next one's
        let mut lets: Vec<Stmt> = Vec::new();
        let mut binding = item;
        let mut head: Option<Pat> = None;
        for closure in maps.iter() {
            let param = match &closure.inputs[0] {
                Pat::Type(typed) => (*typed.pat).clone(),
                pat => pat.clone(),
            };
            let body = &closure.body;
            lets.push(syn::parse_quote_spanned!(span=> let #binding = #body;));
            binding = param;
            head = Some(binding.clone());
        }
        let head = head.unwrap_or(binding);
        lets.reverse();
        Some(syn::parse_quote_spanned!(span=> {
            let #items = #source;
            let mut #acc #acc_ty = #init;
            for #head in #items {
                #(#lets)*
                #acc = #step;
            }
            #acc
        }))
    }
}

/// Whether a closure's body names anything but its own parameters (a capture, a constant,
/// a function): a single-segment path that no parameter binds.
fn reads_outer_names(closure: &syn::ExprClosure) -> bool {
    let params: HashSet<String> = closure
        .inputs
        .iter()
        .flat_map(crate::syntax::pattern_idents)
        .map(|ident| ident.to_string())
        .collect();
    struct Outer<'p> {
        params: &'p HashSet<String>,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Outer<'_> {
        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            if let Some(ident) = path.path.get_ident()
                && !self.params.contains(&ident.to_string())
            {
                self.found = true;
            }
        }
        fn visit_macro(&mut self, _: &'ast syn::Macro) {
            // what a macro reads is not visible: count it as outer
            self.found = true;
        }
    }
    let mut outer = Outer {
        params: &params,
        found: false,
    };
    outer.visit_expr(&closure.body);
    outer.found
}

// ----- labelled blocks -----

/// `'a: { stmts; tail }` becomes `'a: loop { stmts; break 'a tail; }`: the same program,
/// since the loop's body runs once and leaves with the block's value, and a `break 'a v`
/// inside leaves both with `v`. Rust rejects an unlabelled `break` or `continue` inside a
/// labelled block (E0695) unless a loop or closure inside it is its target, so no jump
/// changes target. Lowering differentiates loops, with their exits and values.
struct LabelledBlocks;

impl VisitMut for LabelledBlocks {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::Block(block) = expr else { return };
        let Some(label) = block.label.take() else {
            return;
        };
        let stmts = std::mem::take(&mut block.block.stmts);
        *expr = crate::syntax::loop_once(&label.name, stmts, &block.attrs);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// ----- a loop over an iterator's `next()` -----

/// `let mut it = a.iter(); .. while let Some(v) = it.next() { body }` becomes `for v in
/// a.iter() { body }` where the `let` is: the same program when `it` is used for nothing
/// else (no other `next()`, no later read), since a `for` loop calls `next()` on the
/// iterator until it gives `None`, binding its item as the pattern does. Lowering
/// differentiates `for` loops over arrays and their iterator forms.
struct IteratorLoops;

impl VisitMut for IteratorLoops {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        let mut i = 0;
        while i < block.stmts.len() {
            if let Some((name, iter)) = iterator_let(&block.stmts[i])
                && let Some(at) = block.stmts[i + 1..]
                    .iter()
                    .position(|stmt| names(std::slice::from_ref(stmt)).contains(&name.to_string()))
                && let Some(looped) = next_loop(&block.stmts[i + 1 + at], &name, &iter)
                && !names(&block.stmts[i + 2 + at..]).contains(&name.to_string())
                // the iterator is made where the loop is: nothing between may change what
                // it reads (a borrow forbids most of it; a `move` closure's copy does not)
                && changed(&block.stmts[i + 1..i + 1 + at]).is_disjoint(&paths_read(&iter))
            {
                block.stmts[i + 1 + at] = looped;
                block.stmts.remove(i);
                continue;
            }
            i += 1;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Every identifier `stmts` spell, macros' arguments included.
fn names(stmts: &[Stmt]) -> HashSet<String> {
    crate::syntax::names_in(quote!(#(#stmts)*))
}

/// The names `stmts` may change or bind again, conservatively: the places assigned
/// (`n = ..`, `a[i] += ..`, by their root name), borrowed `&mut`, or a method's receivers
/// (which may take `&mut self`), the names a pattern binds, and every identifier of a
/// macro's arguments.
fn changed(stmts: &[Stmt]) -> HashSet<String> {
    struct Changed(HashSet<String>);
    impl Changed {
        fn root(&mut self, mut expr: &Expr) {
            loop {
                expr = match crate::syntax::strip_parens(expr) {
                    Expr::Field(field) => &field.base,
                    Expr::Index(index) => &index.expr,
                    Expr::Unary(unary) => &unary.expr,
                    Expr::MethodCall(call) => &call.receiver,
                    Expr::Path(path) => {
                        if let Some(first) = path.path.segments.first() {
                            self.0.insert(first.ident.to_string());
                        }
                        return;
                    }
                    _ => return,
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Changed {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Assign(assign) => self.root(&assign.left),
                Expr::Binary(binary) if is_compound_assign(&binary.op) => self.root(&binary.left),
                Expr::Reference(reference) if reference.mutability.is_some() => {
                    self.root(&reference.expr)
                }
                Expr::MethodCall(call) => self.root(&call.receiver),
                _ => {}
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0.insert(pat.ident.to_string());
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0.extend(crate::syntax::names_in(mac.tokens.clone()));
        }
    }
    let mut changed = Changed(HashSet::new());
    for stmt in stmts {
        changed.visit_stmt(stmt);
    }
    changed.0
}

/// The names `expr` reads (its paths' first segments, macros' arguments included), not
/// its methods' or fields' names.
fn paths_read(expr: &Expr) -> HashSet<String> {
    struct Paths(HashSet<String>);
    impl<'ast> Visit<'ast> for Paths {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            if let Some(first) = path.segments.first() {
                self.0.insert(first.ident.to_string());
            }
            syn::visit::visit_path(self, path);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0.extend(crate::syntax::names_in(mac.tokens.clone()));
        }
    }
    let mut paths = Paths(HashSet::new());
    paths.visit_expr(expr);
    paths.0
}

/// `let [mut] it = e;` with `e` a method call (`a.iter()`, `a.iter().rev()`, `a.windows(2)`):
/// the name and `e`.
fn iterator_let(stmt: &Stmt) -> Option<(Ident, Expr)> {
    let (pat, value) = crate::syntax::plain_let(stmt)?;
    let Expr::MethodCall(_) = crate::syntax::strip_parens(value) else {
        return None;
    };
    Some((pat.ident.clone(), value.clone()))
}

/// `stmt` as `for v in iter { body }`, if it is `while let Some(v) = it.next() { body }`
/// and `body` does not name `it`.
fn next_loop(stmt: &Stmt, it: &Ident, iter: &Expr) -> Option<Stmt> {
    let Stmt::Expr(Expr::While(while_loop), semi) = stmt else {
        return None;
    };
    let Expr::Let(condition) = crate::syntax::strip_parens(&while_loop.cond) else {
        return None;
    };
    let Pat::TupleStruct(some) = &*condition.pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 || some.qself.is_some() {
        return None;
    }
    let Expr::MethodCall(next) = crate::syntax::strip_parens(&condition.expr) else {
        return None;
    };
    if next.method != "next" || !next.args.is_empty() || !crate::syntax::is_name(&next.receiver, it)
    {
        return None;
    }
    let body = &while_loop.body;
    if names(&body.stmts).contains(&it.to_string()) {
        return None;
    }
    let pat = &some.elems[0];
    let label = &while_loop.label;
    let attrs = &while_loop.attrs;
    Some(Stmt::Expr(
        syn::parse_quote!(#(#attrs)* #label for #pat in #iter #body),
        *semi,
    ))
}

// ----- float methods called by their paths -----

/// The methods of `f32`/`f64` that take `self` and give a float (std's, as of Rust 1.95): a
/// call by path with the receiver first is the method call.
pub(crate) const FLOAT_METHODS: &[&str] = &[
    "abs",
    "abs_sub",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "clamp",
    "copysign",
    "cos",
    "cosh",
    "div_euclid",
    "exp",
    "exp2",
    "exp_m1",
    "floor",
    "fract",
    "hypot",
    "ln",
    "ln_1p",
    "log",
    "log10",
    "log2",
    "max",
    "maximum",
    "midpoint",
    "min",
    "minimum",
    "mul_add",
    "next_down",
    "next_up",
    "powf",
    "powi",
    "recip",
    "rem_euclid",
    "round",
    "round_ties_even",
    "signum",
    "sin",
    "sin_cos",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "to_degrees",
    "to_radians",
    "trunc",
];

/// The other methods of `f32`/`f64` that take `self` (std's, as of Rust 1.95), whose result
/// is a flag, an ordering, bits or bytes: called by path they are method calls too, so the
/// macro judges them as methods (a test, a constant, or its own message) where a path would
/// be taken for a function of the user's and answered by rustc ("unresolved import `f64`").
const FLOAT_QUERIES: &[&str] = &[
    "classify",
    "is_finite",
    "is_infinite",
    "is_nan",
    "is_normal",
    "is_sign_negative",
    "is_sign_positive",
    "is_subnormal",
    "to_be_bytes",
    "to_bits",
    "to_le_bytes",
    "to_ne_bytes",
    "total_cmp",
];

/// Float methods called by their paths, on `f32`/`f64` or on one of `floats` (the
/// function's float type parameters: `T::max(a, b)` is `num_traits::Float::max`, the
/// method `a.max(b)` calls).
struct FloatPaths<'a> {
    floats: &'a [Ident],
}

impl VisitMut for FloatPaths<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::Call(call) = expr else { return };
        let Some(method) = float_method_path(&call.func, self.floats) else {
            return;
        };
        let mut args = call.args.iter().cloned();
        let Some(receiver) = args.next() else { return };
        let receiver = typed_receiver(receiver, &method.float);
        let name = method.name;
        let rest: Vec<Expr> = args.collect();
        *expr = syn::parse_quote_spanned!(name.span()=> #receiver.#name(#(#rest),*));
    }
}

struct FloatMethod {
    float: Ident,
    name: Ident,
}

/// `f64::name` or `f32::name` (also `<f64>::name`, `std::primitive::f64::name`, or a float
/// type parameter of `floats`, `T::name`) naming a method of [`FLOAT_METHODS`] or
/// [`FLOAT_QUERIES`].
fn float_method_path(func: &Expr, floats: &[Ident]) -> Option<FloatMethod> {
    let Expr::Path(path) = crate::syntax::strip_parens(func) else {
        return None;
    };
    let segments: Vec<&syn::PathSegment> = path.path.segments.iter().collect();
    let (float, name) = match (&path.qself, segments.as_slice()) {
        (None, [.., float, name]) => (float.ident.clone(), &name.ident),
        (Some(qself), [name]) if qself.as_token.is_none() => {
            let syn::Type::Path(ty) = &*qself.ty else {
                return None;
            };
            (ty.path.get_ident()?.clone(), &name.ident)
        }
        _ => return None,
    };
    // a type parameter is one by its own name only (`T::max`, `<T>::max`, not `m::T::max`)
    let parameter = floats.contains(&float) && (segments.len() == 2 || path.qself.is_some());
    let float_named = float == "f32" || float == "f64" || parameter;
    let plain = segments.iter().all(|segment| segment.arguments.is_none());
    let method = FLOAT_METHODS.iter().chain(FLOAT_QUERIES).any(|m| name == m);
    (float_named && plain && method).then(|| FloatMethod {
        float,
        name: name.clone(),
    })
}

/// The receiver as a method call needs it: an unsuffixed literal gets the float's suffix
/// (`1.0.max(x)` would be a method call on an ambiguous `{float}`; a type parameter has no
/// literals, `T::max(1.0, x)` does not compile), anything but a name, a literal, a call or
/// a field is parenthesised.
fn typed_receiver(receiver: Expr, float: &Ident) -> Expr {
    match receiver {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(lit),
            attrs,
        }) if lit.suffix().is_empty() && (float == "f32" || float == "f64") => {
            let suffixed =
                syn::LitFloat::new(&format!("{}{}", lit.base10_digits(), float), lit.span());
            Expr::Lit(syn::ExprLit {
                attrs,
                lit: syn::Lit::Float(suffixed),
            })
        }
        // an integer literal stays as written: `f64::max(1, x)` does not compile, and
        // suffixing it would accept what rustc rejects
        simple @ (Expr::Path(_)
        | Expr::Lit(_)
        | Expr::Call(_)
        | Expr::MethodCall(_)
        | Expr::Field(_)
        | Expr::Paren(_)
        | Expr::Index(_)) => simple,
        other => syn::parse_quote!((#other)),
    }
}

// ----- local closures -----

struct Closures<'a> {
    cx: &'a Ctxt,
    /// The next id for a closure's snapshots' names: two closures of one block may both
    /// capture `y`, and each call must read its own closure's copy.
    next: usize,
    /// The parameters taken by shared reference that the body never binds again.
    borrowed: &'a HashSet<Ident>,
}

impl VisitMut for Closures<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        // inner blocks first: a closure defined and called inside one is inlined there
        syn::visit_mut::visit_block_mut(self, block);
        // functions declared in the block: visible in all of it
        let mut i = 0;
        while i < block.stmts.len() {
            let (before, rest) = block.stmts.split_at(i);
            let found = inlinable_fn(&rest[0], &[before, &rest[1..]], self.next);
            match found {
                Some(function) => {
                    self.next += 1;
                    block.stmts.remove(i);
                    inline_calls(&function, &mut block.stmts, self.borrowed);
                }
                None => i += 1,
            }
        }
        // a closure a block ends in by name, `{ ..; let g = |v| ..; g }`: the block ends
        // in the closure itself
        returned_by_name(block);
        // closures: visible after their `let`
        let mut i = 0;
        while i < block.stmts.len() {
            // `let f = { ..; |v| .. };` (a call of a closure returning one, inlined):
            // the block's statements, then `let f = |v| ..;`
            if let Some(hoisted) = hoisted_closure_block(&block.stmts[i], &block.stmts[i + 1..]) {
                block.stmts.splice(i..=i, hoisted);
                continue;
            }
            // a closure passed by name to a method: the closure calling it, where it is
            // then inlined (left as written otherwise: lowering's error names the closure)
            let mut expanded = block.stmts[i + 1..].to_vec();
            if eta_expand(&block.stmts[i], &mut expanded)
                && inlinable(&block.stmts[i], &[&expanded[..]], self.next).is_some()
            {
                block.stmts.truncate(i + 1);
                block.stmts.extend(expanded);
            }
            let found = inlinable(&block.stmts[i], &[&block.stmts[i + 1..]], self.next);
            match found {
                Some((mut closure, expr)) => {
                    // the closure's `let` becomes the copies of what it captured, taken
                    // where the closure took them
                    let snapshots = snapshot_captures(
                        self.cx,
                        &mut closure,
                        expr,
                        &block.stmts[i + 1..],
                        self.next,
                    );
                    self.next += 1;
                    let taken = snapshots.len();
                    block.stmts.splice(i..=i, snapshots);
                    i += taken;
                    inline_calls(&closure, &mut block.stmts[i..], self.borrowed);
                }
                None => i += 1,
            }
        }
    }

    // A closure's body is visited like any block (the default): a closure defined and
    // only called inside it is inlined there, the same program in any scope, so a closure
    // inside a closure is inlined into the outer's body before the outer is inlined at
    // its calls. Items have bodies of their own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `{ ..; let g = |v| ..; g }` (a closure returned by name: a closure's body making the
/// closure it returns) as `{ ..; |v| .. }`, where the block names `g` nowhere else and
/// nothing runs between the closure's `let` and the tail: the same closure, made at the
/// same point, so it captures the same values.
fn returned_by_name(block: &mut syn::Block) {
    let n = block.stmts.len();
    if n < 2 {
        return;
    }
    let Some(Stmt::Expr(tail, None)) = block.stmts.last() else {
        return;
    };
    let Some((pat, value)) = crate::syntax::plain_let(&block.stmts[n - 2]) else {
        return;
    };
    if !is_name(tail, &pat.ident) || pat.mutability.is_some() {
        return;
    }
    let Expr::Closure(closure) = crate::syntax::strip_parens(value) else {
        return;
    };
    // the closure's own body may name `g` (another binding of it, or a recursion that
    // does not compile as written): then left as written
    if crate::syntax::names_in(quote!(#closure)).contains(&pat.ident.to_string()) {
        return;
    }
    let closure = Expr::Closure(closure.clone());
    block.stmts.truncate(n - 2);
    block.stmts.push(Stmt::Expr(closure, None));
}

/// `let f = { stmts; |v| .. };` (also blocks in blocks, as an inlined call of a closure
/// returning a closure gives them) as `stmts` then `let f = |v| ..;`, so that `f` is a
/// closure bound by `let`, inlined at its calls. The same program where `scope`, the
/// statements after it, names nothing `stmts` bind (the block's names are then seen by
/// nothing but the closure, as before), and the block has no label or attribute.
fn hoisted_closure_block(stmt: &Stmt, scope: &[Stmt]) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let (_, value) = crate::syntax::plain_let(stmt)?;
    let mut stmts = Vec::new();
    let mut value = crate::syntax::strip_parens(value);
    while let Expr::Block(inner) = value {
        if inner.label.is_some() || !inner.attrs.is_empty() {
            return None;
        }
        let (last, init) = inner.block.stmts.split_last()?;
        let Stmt::Expr(tail, None) = last else {
            return None;
        };
        stmts.extend(init.iter().cloned());
        value = crate::syntax::strip_parens(tail);
    }
    let Expr::Closure(closure) = value else {
        return None;
    };
    if stmts.is_empty() {
        return None;
    }
    let mut bound = Bindings::default();
    for stmt in &stmts {
        bound.visit_stmt(stmt);
    }
    let later = names(scope);
    if bound.0.keys().any(|name| later.contains(&name.to_string())) {
        return None;
    }
    let mut local = local.clone();
    *local.init.as_mut()?.expr = Expr::Closure(closure.clone());
    stmts.push(Stmt::Local(local));
    Some(stmts)
}

/// A closure `stmt` binds by `let name = |p, q| body;`, passed by name as an argument of a
/// method in `scope` (the statements after it: `xs.iter().map(name)`, `v.sort_by(name)`,
/// in the function's body or a closure's), becomes the closure calling it there, `|a, b|
/// name(a, b)` (fresh names, as many as the closure's parameters): the same program, the
/// argument a closure that does what `name` does (`name` borrowed where it was moved, or
/// copied: a closure that captures by reference is `Copy`, and no use follows a move), so
/// that `name` is only called and is inlined as any closure, and the method sees a
/// closure literal, which the iterator forms take; whether any argument was rewritten.
/// Not where `scope` binds `name` again
/// (a later `name` may be another value), nor as a function's argument (a helper that is
/// not annotated is as unable to take the one closure as the other: left as written, the
/// closure used as a value is lowering's error).
fn eta_expand(stmt: &Stmt, scope: &mut [Stmt]) -> bool {
    let Some((pat, value)) = crate::syntax::plain_let(stmt) else {
        return false;
    };
    let Expr::Closure(closure) = crate::syntax::strip_parens(value) else {
        return false;
    };
    if closure.asyncness.is_some() || closure.constness.is_some() {
        return false;
    }
    let mut bound = Bindings::default();
    for stmt in scope.iter() {
        bound.visit_stmt(stmt);
    }
    if bound.0.contains_key(&pat.ident) {
        return false;
    }
    struct Arguments<'a> {
        name: &'a Ident,
        arity: usize,
        expanded: bool,
    }
    impl VisitMut for Arguments<'_> {
        fn visit_expr_method_call_mut(&mut self, call: &mut syn::ExprMethodCall) {
            syn::visit_mut::visit_expr_method_call_mut(self, call);
            for arg in &mut call.args {
                if is_name(arg, self.name) {
                    let params: Vec<Ident> = (0..self.arity)
                        .map(|k| crate::syntax::fresh_local(format!("gradtape_eta{k}")))
                        .collect();
                    let name = self.name;
                    *arg =
                        syn::parse_quote_spanned!(name.span()=> |#(#params),*| #name(#(#params),*));
                    self.expanded = true;
                }
            }
        }

        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut arguments = Arguments {
        name: &pat.ident,
        arity: closure.inputs.len(),
        expanded: false,
    };
    for stmt in scope {
        arguments.visit_stmt_mut(stmt);
    }
    arguments.expanded
}

/// A closure bound by `let name = |params| body;`.
struct LocalClosure {
    name: Ident,
    params: Vec<Pat>,
    body: Expr,
}

/// Replaces each call of `closure` in `stmts` by its body.
fn inline_calls(closure: &LocalClosure, stmts: &mut [Stmt], borrowed: &HashSet<Ident>) {
    let mut inliner = Inliner {
        closure,
        calls: 0,
        borrowed,
    };
    for stmt in stmts {
        inliner.visit_stmt_mut(stmt);
    }
}

/// The closure `stmt` binds, if it can be inlined into `scope`, the statements after it,
/// and the closure expression as written.
fn inlinable(
    stmt: &Stmt,
    scope: &[&[Stmt]],
    id: usize,
) -> Option<(LocalClosure, syn::ExprClosure)> {
    let (pat, value) = crate::syntax::plain_let(stmt)?;
    let Expr::Closure(closure) = crate::syntax::strip_parens(value) else {
        return None;
    };
    if closure.asyncness.is_some() || closure.constness.is_some() {
        return None;
    }
    let params: Vec<Pat> = closure.inputs.iter().cloned().collect();
    let parts = inlinable_parts(
        pat.ident.clone(),
        params,
        (*closure.body).clone(),
        scope,
        id,
    )?;
    Some((parts, closure.clone()))
}

/// The closure (or function) `name` with `params` and `body`, if it can be inlined into
/// `scope`, the statements that may call it (in one or more runs); `id` tells its body's
/// label (a `return` in it, [`returning_to_the_call`]) from every other closure's.
fn inlinable_parts(
    name: Ident,
    params: Vec<Pat>,
    body: Expr,
    scope: &[&[Stmt]],
    id: usize,
) -> Option<LocalClosure> {
    let scope = || scope.iter().flat_map(|run| run.iter());
    let body = returning_to_the_call(body, id);
    // every use of the name is a call with one argument per parameter (none at all: a
    // closure never called is inlined nowhere, its `let` kept as the copies of what it
    // captured, which nothing reads; as a value, the lowering would reject it)
    let mut uses = Uses {
        name: &name,
        arity: params.len(),
        calls: 0,
        other: false,
    };
    for stmt in scope() {
        uses.visit_stmt(stmt);
    }
    if uses.other {
        return None;
    }
    // neither the name nor what the body reads from outside is bound again after the
    // closure
    let mut read = Names::default();
    read.visit_expr(&body);
    let mut own = Bindings::default();
    for param in &params {
        own.visit_pat(param);
    }
    read.0.retain(|n| !own.0.contains_key(n));
    let mut bound = Bindings::default();
    for stmt in scope() {
        bound.visit_stmt(stmt);
    }
    if bound.0.contains_key(&name) || read.0.iter().any(|n| bound.0.contains_key(n)) {
        return None;
    }
    Some(LocalClosure { name, params, body })
}

/// `body` (a closure's or a local function's) with each `return` in it leaving the body
/// alone, as it does where the body is called, not the function it is inlined into: the
/// `return`s that end branches become the branches' values (`returns::rewrite`, as for the
/// function's own body, which costs nothing), and any left (in a loop, inside an
/// expression) become `break`s out of a labelled `loop` around the body, which runs once:
/// `'gradtape_closureN: loop { ..; break 'gradtape_closureN tail; }`, each `return e` a
/// `break 'gradtape_closureN e`: the labelled block the body is, in the `loop` form
/// [`LabelledBlocks`] gives one (lowering differentiates loops, with their exits and
/// values). Inner closures and items keep their own `return`s.
fn returning_to_the_call(body: Expr, id: usize) -> Expr {
    if !crate::returns::contains_return(&Stmt::Expr(body.clone(), None)) {
        return body;
    }
    let (stmts, attrs) = match body {
        Expr::Block(block) if block.label.is_none() => (block.block.stmts, block.attrs),
        other => (vec![Stmt::Expr(other, None)], Vec::new()),
    };
    let mut stmts = crate::returns::rewrite(stmts);
    if !stmts.iter().any(crate::returns::contains_return) {
        return Expr::Block(syn::ExprBlock {
            attrs,
            label: None,
            block: syn::Block {
                brace_token: Default::default(),
                stmts,
            },
        });
    }
    let label = syn::Lifetime::new(
        &format!(
            "'{}",
            crate::syntax::unspelled(format!("gradtape_closure{id}"))
        ),
        proc_macro2::Span::call_site(),
    );
    let mut breaks = ReturnsAsBreaks(&label);
    for stmt in &mut stmts {
        breaks.visit_stmt_mut(stmt);
    }
    crate::syntax::loop_once(&label, stmts, &attrs)
}

/// Turns each `return e` into `break 'label e` (see [`returning_to_the_call`]).
struct ReturnsAsBreaks<'a>(&'a syn::Lifetime);

impl VisitMut for ReturnsAsBreaks<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let Expr::Return(ret) = expr {
            let label = self.0;
            *expr = match &ret.expr {
                Some(value) => {
                    syn::parse_quote_spanned!(ret.return_token.span=> break #label (#value))
                }
                None => syn::parse_quote_spanned!(ret.return_token.span=> break #label),
            };
        }
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A function item declared in the body, `fn name(params) -> R { body }`, if it can be
/// inlined into `scope`, the block's other statements: as a closure, and also not generic
/// and not calling itself.
fn inlinable_fn(stmt: &Stmt, scope: &[&[Stmt]], id: usize) -> Option<LocalClosure> {
    let Stmt::Item(syn::Item::Fn(function)) = stmt else {
        return None;
    };
    let sig = &function.sig;
    if !sig.generics.params.is_empty()
        || sig.constness.is_some()
        || sig.asyncness.is_some()
        || matches!(sig.safety, syn::Safety::Unsafe(_))
        || sig.variadic.is_some()
    {
        return None;
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(typed) = input else {
            return None;
        };
        params.push(Pat::Type(typed.clone()));
    }
    let body = Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: (*function.block).clone(),
    });
    // a function body reads no local of the block: only its parameters (and items)
    let mut calls_itself = Uses {
        name: &sig.ident,
        arity: params.len(),
        calls: 0,
        other: false,
    };
    calls_itself.visit_expr(&body);
    if calls_itself.calls > 0 || calls_itself.other {
        return None;
    }
    inlinable_parts(sig.ident.clone(), params, body, scope, id)
}

/// Counts the calls of a closure's name and notes any other use.
struct Uses<'a> {
    name: &'a Ident,
    arity: usize,
    calls: usize,
    other: bool,
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if let Expr::Call(call) = expr
            && is_name(&call.func, self.name)
        {
            if call.args.len() == self.arity {
                self.calls += 1;
            } else {
                self.other = true;
            }
            for arg in &call.args {
                self.visit_expr(arg);
            }
            return;
        }
        if is_name(expr, self.name) {
            self.other = true;
            return;
        }
        syn::visit::visit_expr(self, expr);
    }

    // a macro's tokens may use the name in any way
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac
            .tokens
            .clone()
            .into_iter()
            .any(|token| matches!(&token, proc_macro2::TokenTree::Ident(i) if i == self.name))
        {
            self.other = true;
        }
    }
}

/// The plain names an expression reads (a superset of what a closure captures), but for
/// those an inner closure's parameters, a `for` loop's pattern or a block's `let` bind,
/// read inside it (an iterator's `map(|a| ..)` reads its own `a`, not one the statements
/// after may bind).
#[derive(Default)]
struct Names(HashSet<Ident>);

impl Names {
    /// The names `visit` reads, less those `patterns` bind.
    fn scoped<'ast>(
        &mut self,
        patterns: impl IntoIterator<Item = &'ast Pat>,
        visit: impl FnOnce(&mut Names),
    ) {
        let mut inner = Names::default();
        visit(&mut inner);
        let mut bound = Bindings::default();
        for pat in patterns {
            bound.visit_pat(pat);
        }
        self.0.extend(
            inner
                .0
                .into_iter()
                .filter(|name| !bound.0.contains_key(name)),
        );
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.scoped(&closure.inputs, |inner| inner.visit_expr(&closure.body));
    }

    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.visit_expr(&for_loop.expr);
        self.scoped([&*for_loop.pat], |inner| inner.visit_block(&for_loop.body));
    }

    // A name a block's `let` binds, read after it in the block, is the block's own (an
    // inlined closure's body binds its parameters so: a closure calling another reads
    // the other's parameter names, not ones the statements after it may bind).
    fn visit_block(&mut self, block: &'ast syn::Block) {
        let mut bound = Bindings::default();
        for stmt in &block.stmts {
            let mut inner = Names::default();
            match stmt {
                Stmt::Local(local) => {
                    if let Some(init) = &local.init {
                        inner.visit_expr(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            inner.visit_expr(diverge);
                        }
                    }
                }
                other => inner.visit_stmt(other),
            }
            self.0.extend(
                inner
                    .0
                    .into_iter()
                    .filter(|name| !bound.0.contains_key(name)),
            );
            if let Stmt::Local(local) = stmt {
                bound.visit_pat(&local.pat);
            }
        }
    }

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if let Some(ident) = path.path.get_ident() {
            self.0.insert(ident.clone());
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        for token in mac.tokens.clone() {
            if let proc_macro2::TokenTree::Ident(ident) = token {
                self.0.insert(ident);
            }
        }
    }
}

/// The names patterns bind (`let`, `for`, `match` arms, closure parameters, `if let`).
#[derive(Default)]
struct Bindings(std::collections::HashMap<Ident, usize>);

impl<'ast> Visit<'ast> for Bindings {
    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        *self.0.entry(pat.ident.clone()).or_default() += 1;
        syn::visit::visit_pat_ident(self, pat);
    }
}

/// The body's `let name = init;` statements binding one name (`mut` or not), with their
/// initialisers, `None` for one whose type is spelled a shared reference (`let s: &T =
/// ..;`, which holds one whatever its initialiser).
#[derive(Default)]
struct ReferenceLets(Vec<(Ident, Option<Expr>)>);

impl<'ast> Visit<'ast> for ReferenceLets {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let (pat, typed_shared) = match &local.pat {
            Pat::Type(typed) => (
                &*typed.pat,
                matches!(&*typed.ty, syn::Type::Reference(r) if r.mutability.is_none()),
            ),
            pat => (pat, false),
        };
        if let Pat::Ident(pat) = pat
            && pat.by_ref.is_none()
            && pat.subpat.is_none()
            && let Some(init) = &local.init
            && init.diverge.is_none()
        {
            let init = (!typed_shared).then(|| (*init.expr).clone());
            self.0.push((pat.ident.clone(), init));
        }
        syn::visit::visit_local(self, local);
    }
}

/// Replaces each call of the closure by its body.
struct Inliner<'a> {
    closure: &'a LocalClosure,
    calls: usize,
    borrowed: &'a HashSet<Ident>,
}

impl VisitMut for Inliner<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::Call(call) = expr else { return };
        if !is_name(&call.func, &self.closure.name) {
            return;
        }
        let call_id = self.calls;
        self.calls += 1;
        // an array parameter given an array by name is read as that array (`ArrayAlias`)
        let mut body = self.closure.body.clone();
        let mut aliased = vec![false; call.args.len()];
        for (k, (arg, param)) in call.args.iter().zip(&self.closure.params).enumerate() {
            if let Some(alias) = ArrayAlias::of(param, arg, self.closure, self.borrowed) {
                alias.apply(&mut body);
                aliased[k] = true;
            }
        }
        let temporaries: Vec<Ident> = (0..call.args.len())
            .map(|k| crate::syntax::unspelled_ident(format_ident!("closure_arg{k}_{call_id}")))
            .collect();
        // `&x` of a parameter `x: &T` passed for a reference parameter `v: &T`: the call
        // coerces `&&T` to `&T`, which the untyped binding below would not, so the
        // argument is `x` itself (the same reference)
        let args = call
            .args
            .iter()
            .zip(&self.closure.params)
            .zip(&aliased)
            .filter(|(_, aliased)| !**aliased)
            .map(|((arg, param), _)| {
                if let Pat::Type(typed) = param
                    && matches!(&*typed.ty, syn::Type::Reference(r)
                    if r.mutability.is_none() && !matches!(&*r.elem, syn::Type::Reference(_)))
                    && let Expr::Reference(reference) = crate::syntax::strip_parens(arg)
                    && reference.mutability.is_none()
                    && let Some(name) =
                        crate::syntax::single_ident(crate::syntax::strip_parens(&reference.expr))
                    && self.borrowed.contains(name)
                {
                    quote!(#name)
                } else {
                    quote!(#arg)
                }
            });
        let temporaries: Vec<Ident> = temporaries
            .into_iter()
            .zip(&aliased)
            .filter(|(_, aliased)| !**aliased)
            .map(|(temporary, _)| temporary)
            .collect();
        let params = self.closure.params.iter().zip(&aliased).filter(|(_, aliased)| !**aliased).map(|(param, _)| match param {
            // a shared reference, `v: &Tensor<F>` or `v: &f64`: bound without its type, as
            // `let v = &y;` is (lowering keeps a `let`'s type for the value's tangent,
            // which a reference is not); the argument's type is checked where the body is
            // compiled as written (`f::primal`)
            Pat::Type(typed)
                if matches!(&*typed.ty, syn::Type::Reference(r) if r.mutability.is_none()) =>
            {
                let pat = &typed.pat;
                quote!(#pat)
            }
            Pat::Type(typed) => {
                let (pat, ty) = (&typed.pat, &typed.ty);
                quote!(#pat: #ty)
            }
            other => quote!(#other),
        });
        // an assignment (`|v| acc += v`) or a block with no value (`|v| { acc += v; }`),
        // whose value is `()`, is a statement of its own (lowering takes neither as an
        // operand); anything else is the block's value, parenthesised: a body starting with
        // a block (`{ .. } + w`) would otherwise end the block's statements there
        let assignment = match crate::syntax::strip_parens(&body) {
            Expr::Binary(binary) if !is_compound_assign(&binary.op) => None,
            assignment @ (Expr::Assign(_) | Expr::Binary(_)) => Some(assignment.clone()),
            Expr::Block(block)
                if !matches!(block.block.stmts.last(), Some(Stmt::Expr(_, None))) =>
            {
                Some(Expr::Block(block.clone()))
            }
            _ => None,
        };
        *expr = if let Some(assignment) = assignment {
            syn::parse_quote!({
                #(let #temporaries = #args;)*
                #(let #params = #temporaries;)*
                #assignment;
            })
        } else {
            syn::parse_quote!({
                #(let #temporaries = #args;)*
                #(let #params = #temporaries;)*
                (#body)
            })
        };
    }
}

/// A closure's array parameter (`v: &[F]`, `&[F; N]`, `&Vec<F>`, any shared reference to a
/// slice, an array or a `Vec`) given an array by name (`norm(&x)`, `norm(x)` of `x: &[F]`):
/// the inlined body reads `x` where it reads `v`, since lowering differentiates arrays by
/// name and a `let v = &x;` would be a copy of a differentiable array, which it rejects.
/// The same program: `v` is `&x`, through which nothing can be written, and while it lives
/// `x` cannot be written either (the body as written, `f::primal`, is borrow-checked). `v`
/// indexed or a method's receiver becomes `x` (`v[i]` is `x[i]`, `v.iter()` is `x.iter()`,
/// auto-referenced alike); anywhere else (`for a in v`, `dot(v, w)`) the reference itself:
/// `x` if `x` is a borrowed parameter (a reference already), else `&x`. Only where no name
/// can change its meaning: the body binds neither `v` nor `x` again (nor does another
/// parameter name `x`) and names neither in a macro, whose tokens this does not rewrite.
struct ArrayAlias {
    param: Ident,
    array: Ident,
    /// Whether `array` is a reference itself (a borrowed parameter of the function).
    borrowed: bool,
}

impl ArrayAlias {
    fn of(
        param: &Pat,
        arg: &Expr,
        closure: &LocalClosure,
        borrowed: &HashSet<Ident>,
    ) -> Option<ArrayAlias> {
        let Pat::Type(typed) = param else {
            return None;
        };
        let Pat::Ident(pat) = &*typed.pat else {
            return None;
        };
        if pat.by_ref.is_some() || pat.mutability.is_some() || pat.subpat.is_some() {
            return None;
        }
        let syn::Type::Reference(reference) = &*typed.ty else {
            return None;
        };
        let is_array = match &*reference.elem {
            syn::Type::Slice(_) | syn::Type::Array(_) => true,
            syn::Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|last| last.ident == "Vec"),
            _ => false,
        };
        if reference.mutability.is_some() || !is_array {
            return None;
        }
        let (arg, by_reference) = match crate::syntax::strip_parens(arg) {
            Expr::Reference(r) if r.mutability.is_none() => {
                (crate::syntax::strip_parens(&r.expr), true)
            }
            arg => (arg, false),
        };
        let array = crate::syntax::single_ident(arg)?.clone();
        let is_borrowed = borrowed.contains(&array);
        // `norm(x)` of an owned array would move it, no call of a `&[F]` parameter
        if !by_reference && !is_borrowed {
            return None;
        }
        let mut bound = Bindings::default();
        bound.visit_expr(&closure.body);
        for other in &closure.params {
            bound.visit_pat(other);
        }
        bound.0.remove(&pat.ident);
        let mut in_macros = HashSet::new();
        let mut macros = MacroTokens(&mut in_macros);
        macros.visit_expr(&closure.body);
        let mut body_bound = Bindings::default();
        body_bound.visit_expr(&closure.body);
        if bound.0.contains_key(&array)
            || body_bound.0.contains_key(&pat.ident)
            || in_macros.contains(&pat.ident)
            || in_macros.contains(&array)
        {
            return None;
        }
        Some(ArrayAlias {
            param: pat.ident.clone(),
            array,
            // `&x` of a borrowed `x` is `x` (the call's coercion of `&&[F]`)
            borrowed: is_borrowed,
        })
    }

    fn apply(&self, body: &mut Expr) {
        let mut alias = self;
        alias.visit_expr_mut(body);
    }
}

impl VisitMut for &ArrayAlias {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let array = &self.array;
        match expr {
            Expr::Index(index) if is_name(&index.expr, &self.param) => {
                *index.expr = syn::parse_quote!(#array);
                self.visit_expr_mut(&mut index.index);
            }
            Expr::MethodCall(call) if is_name(&call.receiver, &self.param) => {
                *call.receiver = syn::parse_quote!(#array);
                for arg in &mut call.args {
                    self.visit_expr_mut(arg);
                }
            }
            expr if is_name(expr, &self.param) => {
                *expr = if self.borrowed {
                    syn::parse_quote!(#array)
                } else {
                    syn::parse_quote!(&#array)
                };
            }
            expr => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}

/// The identifiers in the macros an expression holds.
struct MacroTokens<'a>(&'a mut HashSet<Ident>);

impl<'ast> Visit<'ast> for MacroTokens<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        collect_idents(mac.tokens.clone(), self.0);
    }
}

// ----- what a closure captured, as it was when it was made -----

/// A place a closure's body reads from outside it: a name and the fields after it (`y`,
/// `s.x`, `p.0.w`), what Rust 2021 captures for it (indexing, a method call and a deref
/// end the place: `a[i]` captures `a`).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Place {
    root: Ident,
    fields: Vec<syn::Member>,
}

impl Place {
    /// Whether `self` is `other` or a place inside it (`s.x` inside `s`).
    fn within(&self, other: &Place) -> bool {
        self.root == other.root && self.fields.starts_with(&other.fields)
    }
}

/// The place `expr` names, if it is a name followed by fields.
fn place_of(expr: &Expr) -> Option<Place> {
    match expr {
        Expr::Path(path) if path.qself.is_none() => Some(Place {
            root: path.path.get_ident()?.clone(),
            fields: Vec::new(),
        }),
        Expr::Field(field) => {
            let mut place = place_of(&field.base)?;
            place.fields.push(field.member.clone());
            Some(place)
        }
        Expr::Paren(paren) => place_of(&paren.expr),
        _ => None,
    }
}

/// The name a written place starts from (`a` of `a[i].x`, `*a`, `(a)`).
fn root_of(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        Expr::Field(field) => root_of(&field.base),
        Expr::Index(index) => root_of(&index.expr),
        Expr::Paren(paren) => root_of(&paren.expr),
        Expr::Group(group) => root_of(&group.expr),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => root_of(&unary.expr),
        Expr::Reference(reference) => root_of(&reference.expr),
        _ => None,
    }
}

/// The places a closure's body reads from outside (a superset of what it captures: a
/// constant's or a unit struct's name too, which nothing writes), and the names its
/// macros' tokens mention.
#[derive(Default)]
struct Reads {
    places: HashSet<Place>,
    in_macros: HashSet<Ident>,
}

impl<'ast> Visit<'ast> for Reads {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if let Some(place) = place_of(expr) {
            self.places.insert(place);
            return;
        }
        // a called name is a function's or a closure's, not a value the body computes with
        if let Expr::Call(call) = expr
            && matches!(crate::syntax::strip_parens(&call.func), Expr::Path(_))
        {
            for arg in &call.args {
                self.visit_expr(arg);
            }
            return;
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        collect_idents(mac.tokens.clone(), &mut self.in_macros);
    }
}

fn collect_idents(tokens: proc_macro2::TokenStream, into: &mut HashSet<Ident>) {
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => {
                into.insert(ident);
            }
            proc_macro2::TokenTree::Group(group) => collect_idents(group.stream(), into),
            _ => {}
        }
    }
}

/// Methods that only read their receiver: a float's own (each takes `self`), a tensor
/// op's (a row of the primitives' table), and slices' and arrays' reads. Any other method
/// on a name may take `&mut self`.
fn reads_only(method: &Ident) -> bool {
    let name = method.to_string();
    FLOAT_METHODS.contains(&name.as_str())
        || gradtape_primitives::method(&name).is_some()
        || [
            "clone",
            "len",
            "is_empty",
            "iter",
            "to_vec",
            "first",
            "last",
            "get",
            "contains",
            "to_scalar",
            "shape",
            "sum",
            "mean",
        ]
        .contains(&name.as_str())
}

/// Finds the captured names that may be written after the closure is made and before one
/// of its calls, by walking the statements after it in the order they run: both branches
/// of an `if` or `match` from the same state, a loop's body twice (a write late in one
/// trip comes before a call early in the next).
struct Writes<'a> {
    closure: &'a Ident,
    /// The names the closure's body reads.
    captured: &'a HashSet<Ident>,
    /// A `move` closure: its copy of a `Copy` value outlives any write to the variable
    /// (an assignment, a compound one, `&mut`, a method that may take `&mut self`, a
    /// `ref mut` binding, a macro). Any other closure borrows what it reads, which nothing
    /// can write until its last call, or has taken it, after which only assigning it
    /// again is allowed: only assignments count.
    moves: bool,
    /// The names written on some path to here.
    written: HashSet<Ident>,
    /// The captured names written before some call.
    before_a_call: HashSet<Ident>,
}

impl Writes<'_> {
    fn write(&mut self, place: &Expr) {
        if let Some(root) = root_of(place) {
            self.written.insert(root.clone());
        }
    }
}

fn has_ref_mut(pat: &Pat) -> bool {
    struct RefMut(bool);
    impl<'ast> Visit<'ast> for RefMut {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0 |= pat.by_ref.is_some() && pat.mutability.is_some();
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut found = RefMut(false);
    found.visit_pat(pat);
    found.0
}

impl<'ast> Visit<'ast> for Writes<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Call(call) if is_name(&call.func, self.closure) => {
                // the arguments run first; then the body, which reads the copies
                for arg in &call.args {
                    self.visit_expr(arg);
                }
                let written = self.written.intersection(self.captured).cloned();
                self.before_a_call.extend(written.collect::<Vec<_>>());
            }
            // the right side runs first, then the place is written
            Expr::Assign(assign) => {
                self.visit_expr(&assign.right);
                self.visit_expr(&assign.left);
                self.write(&assign.left);
            }
            Expr::Binary(binary) if is_compound_assign(&binary.op) => {
                self.visit_expr(&binary.right);
                self.visit_expr(&binary.left);
                self.write(&binary.left);
            }
            Expr::Reference(reference) if self.moves && reference.mutability.is_some() => {
                self.visit_expr(&reference.expr);
                self.write(&reference.expr);
            }
            Expr::MethodCall(call) if self.moves => {
                syn::visit::visit_expr_method_call(self, call);
                if !reads_only(&call.method) {
                    self.write(&call.receiver);
                }
            }
            Expr::Let(binding) => {
                self.visit_expr(&binding.expr);
                if self.moves && has_ref_mut(&binding.pat) {
                    self.write(&binding.expr);
                }
            }
            // each branch from the state before it; after them, what any of them wrote
            Expr::If(expr_if) => {
                self.visit_expr(&expr_if.cond);
                let start = self.written.clone();
                self.visit_block(&expr_if.then_branch);
                let after_then = std::mem::replace(&mut self.written, start);
                if let Some((_, otherwise)) = &expr_if.else_branch {
                    self.visit_expr(otherwise);
                }
                self.written.extend(after_then);
            }
            Expr::Match(expr_match) => {
                self.visit_expr(&expr_match.expr);
                if self.moves && expr_match.arms.iter().any(|arm| has_ref_mut(&arm.pat)) {
                    self.write(&expr_match.expr);
                }
                let start = self.written.clone();
                let mut after = start.clone();
                for arm in &expr_match.arms {
                    self.written = start.clone();
                    // a guard is part of the pattern
                    self.visit_pat(&arm.pat);
                    self.visit_expr(&arm.body);
                    after.extend(self.written.drain());
                }
                self.written = after;
            }
            Expr::While(expr_while) => {
                for _ in 0..2 {
                    self.visit_expr(&expr_while.cond);
                    self.visit_block(&expr_while.body);
                }
            }
            Expr::ForLoop(expr_for) => {
                self.visit_expr(&expr_for.expr);
                for _ in 0..2 {
                    self.visit_block(&expr_for.body);
                }
            }
            Expr::Loop(expr_loop) => {
                for _ in 0..2 {
                    self.visit_block(&expr_loop.body);
                }
            }
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        syn::visit::visit_local(self, local);
        if let Some(init) = &local.init
            && self.moves
            && has_ref_mut(&local.pat)
        {
            self.write(&init.expr);
        }
    }

    // a macro's tokens may write any name they mention
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if self.moves {
            let mut mentioned = HashSet::new();
            collect_idents(mac.tokens.clone(), &mut mentioned);
            self.written.extend(mentioned);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Makes `closure`'s inlined body read what it captured as it was where it was made: each
/// place it reads of a name that may be written between `expr` (the closure as written)
/// and a call of it in `scope` gets a copy, `let <fresh> = <place>;`, and the body reads
/// the copy. Returns the copies' statements, in place of the closure's `let`.
///
/// The copy is what Rust does: a `move` closure copies a `Copy` place or takes the value,
/// and any other closure can only meet a write before its call if it took the value (its
/// body consumes it), which the copy takes too. Copying a place Rust captures whole (the
/// place, not its root: `s.x` leaves `s.y` usable after) keeps every program that compiled
/// compiling.
fn snapshot_captures(
    cx: &Ctxt,
    closure: &mut LocalClosure,
    expr: syn::ExprClosure,
    scope: &[Stmt],
    id: usize,
) -> Vec<Stmt> {
    let mut reads = Reads::default();
    reads.visit_expr(&closure.body);
    let mut own = Bindings::default();
    for param in &closure.params {
        own.visit_pat(param);
    }
    let mut bound_inside = Bindings::default();
    bound_inside.visit_expr(&closure.body);
    let captured: HashSet<Ident> = reads
        .places
        .iter()
        .map(|place| place.root.clone())
        .chain(reads.in_macros.iter().cloned())
        .filter(|name| !own.0.contains_key(name))
        .collect();
    let mut writes = Writes {
        closure: &closure.name,
        captured: &captured,
        moves: expr.capture.is_some(),
        written: HashSet::new(),
        before_a_call: HashSet::new(),
    };
    for stmt in scope {
        writes.visit_stmt(stmt);
    }
    // what the body itself assigns of a name it does not bind (its own `let mut acc` is
    // no capture): a `move` closure assigning its copy (`FnMut` over it) keeps that copy
    // from one call to the next, and the outer variable never sees it
    let moves = writes.moves;
    let mut stale: HashSet<Ident> = writes.before_a_call;
    let mut written_inside = Writes {
        closure: &closure.name,
        captured: &captured,
        moves: false,
        written: HashSet::new(),
        before_a_call: HashSet::new(),
    };
    written_inside.visit_expr(&closure.body);
    let written_inside: HashSet<Ident> = written_inside
        .written
        .intersection(&captured)
        .filter(|name| !bound_inside.0.contains_key(*name))
        .cloned()
        .collect();
    if moves {
        stale.extend(written_inside.iter().cloned());
    }
    if stale.is_empty() {
        return Vec::new();
    }
    let mut stale: Vec<Ident> = stale.into_iter().collect();
    stale.sort_by_key(|name| name.to_string());
    // a copy the body writes (it would have to live, mutable, from call to call), a
    // binding of the name inside the body (which the rewrite of its reads does not see),
    // or a macro reading it (whose tokens it does not rewrite): the macro's error, not a
    // body reading the later value
    for name in &stale {
        let message = if written_inside.contains(name) {
            format!(
                "this `move` closure assigns its own copy of `{name}`, which it keeps from one call to the next; the closure is inlined at each call, where that copy has no place: pass `{name}` to the closure as a parameter and return the new value"
            )
        } else if bound_inside.0.contains_key(name) || reads.in_macros.contains(name) {
            let how = if bound_inside.0.contains_key(name) {
                "binds it again inside its body"
            } else {
                "reads it inside a macro"
            };
            format!(
                "this closure captures `{name}`, which is written after the closure is made and before a call of it, and it {how}: the closure is inlined at each call, and the value it captured cannot be kept for it; pass `{name}` as a parameter of the closure, or bind the value the closure needs to a new local before making it"
            )
        } else {
            continue;
        };
        cx.error_spanned_by(&expr, message);
        return Vec::new();
    }
    // each place read of a stale name, but those inside another (Rust captures `s` for
    // `s.x` and `s`)
    let mut places: Vec<Place> = reads
        .places
        .into_iter()
        .filter(|place| stale.contains(&place.root))
        .collect();
    let all = places.clone();
    places.retain(|place| {
        !all.iter()
            .any(|other| other != place && place.within(other))
    });
    places.sort_by_key(|place| {
        let fields = &place.fields;
        format!("{} {}", place.root, quote!(#(#fields)*))
    });
    let copies: Vec<(Place, Ident)> = places
        .into_iter()
        .enumerate()
        .map(|(k, place)| {
            let name = format_ident!("closure_capture{k}_{id}", span = place.root.span());
            (place, crate::syntax::unspelled_ident(name))
        })
        .collect();
    let stmts: Vec<Stmt> = copies
        .iter()
        .map(|(place, copy)| {
            let (root, fields) = (&place.root, &place.fields);
            syn::parse_quote!(let #copy = #root #(.#fields)*;)
        })
        .collect();
    ReadCopies { copies: &copies }.visit_expr_mut(&mut closure.body);
    stmts
}

/// Replaces each copied place the body reads by its copy.
struct ReadCopies<'a> {
    copies: &'a [(Place, Ident)],
}

impl VisitMut for ReadCopies<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Some(place) = place_of(expr)
            && let Some((_, copy)) = self.copies.iter().find(|(p, _)| *p == place)
        {
            *expr = syn::parse_quote!(#copy);
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    // `S { y }` names the field and reads `y`: the read becomes `S { y: <copy> }`
    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        if field.colon_token.is_none() {
            field.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, field);
    }
}

// ----- tuples produced by branches -----

struct TupleBranches {
    /// The next id for the parts' names.
    next: usize,
}

impl VisitMut for TupleBranches {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        let mut rewritten = Vec::with_capacity(block.stmts.len());
        for stmt in block.stmts.drain(..) {
            match tuple_branch(&stmt) {
                Some((pat, arity, branches)) => {
                    let id = self.next;
                    self.next += 1;
                    let parts: Vec<Ident> = (0..arity)
                        .map(|k| {
                            crate::syntax::unspelled_ident(format_ident!("tuple_part{k}_{id}"))
                        })
                        .collect();
                    for part in &parts {
                        rewritten.push(syn::parse_quote!(let #part;));
                    }
                    let assigned = assign_parts(branches, &parts, id);
                    rewritten.push(Stmt::Expr(assigned, Some(Default::default())));
                    rewritten.push(syn::parse_quote!(let #pat = (#(#parts,)*);));
                }
                None => match tuple_assignment(&stmt) {
                    // `(a, b) = if c { (x, y) } else { (y, x) };`: the same, then the
                    // places assigned from the parts by the tuple assignment lowering
                    // takes (the places after the value, as the assignment evaluates them)
                    Some((places, arity, branches)) => {
                        let id = self.next;
                        self.next += 1;
                        let parts: Vec<Ident> = (0..arity)
                            .map(|k| {
                                crate::syntax::unspelled_ident(format_ident!("tuple_part{k}_{id}"))
                            })
                            .collect();
                        for part in &parts {
                            rewritten.push(syn::parse_quote!(let #part;));
                        }
                        let assigned = assign_parts(branches, &parts, id);
                        rewritten.push(Stmt::Expr(assigned, Some(Default::default())));
                        rewritten.push(syn::parse_quote!(#places = (#(#parts,)*);));
                    }
                    None => rewritten.push(element_assignment(&stmt).unwrap_or(stmt)),
                },
            }
        }
        block.stmts = rewritten;
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A tuple result's tail that branches (`if`/`else`, `match`, a block), as `returns`
/// leaves a body whose early `return`s end branches (`if c { return (a, b); } (x, y)`
/// becomes `if c { (a, b) } else { (x, y) }`): the parts declared first, each branch
/// assigning them (as [`TupleBranches`] does for a `let`), then the tuple of the parts, the
/// tail lowering takes. Any other tail is left as it is.
pub fn tuple_tail(mut stmts: Vec<Stmt>, arity: usize) -> Vec<Stmt> {
    let Some(Stmt::Expr(tail, None)) = stmts.last() else {
        return stmts;
    };
    if !branches(crate::syntax::strip_parens(tail)) {
        return stmts;
    }
    let Some(Stmt::Expr(tail, None)) = stmts.pop() else {
        unreachable!("checked")
    };
    let parts: Vec<Ident> = (0..arity)
        .map(|k| crate::syntax::unspelled_ident(format_ident!("tail_part{k}")))
        .collect();
    for part in &parts {
        stmts.push(syn::parse_quote!(let #part;));
    }
    // the id names a whole tuple held by a branch (`tuple_value_{id}`): one [`TupleBranches`]
    // never reaches, counting from 0
    let assigned = assign_parts(tail, &parts, usize::MAX);
    stmts.push(Stmt::Expr(assigned, Some(Default::default())));
    stmts.push(Stmt::Expr(syn::parse_quote!((#(#parts,)*)), None));
    stmts
}

/// `let <tuple pattern> = <if or match>;`: the pattern, its arity and the branching
/// expression.
fn tuple_branch(stmt: &Stmt) -> Option<(Pat, usize, Expr)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let tuple = match &local.pat {
        Pat::Tuple(tuple) => tuple,
        Pat::Type(typed) => match &*typed.pat {
            Pat::Tuple(tuple) => tuple,
            _ => return None,
        },
        _ => return None,
    };
    // a rest pattern (`..`) has no fixed arity
    if tuple.elems.iter().any(|p| matches!(p, Pat::Rest(_))) {
        return None;
    }
    // a block's value is an inlined closure's call (`let (k1, k2) = f(x, v);` of `let f =
    // |x: f64, v: f64| (v, -x);`)
    let branching = crate::syntax::strip_parens(&init.expr);
    branches(branching).then(|| (local.pat.clone(), tuple.elems.len(), branching.clone()))
}

/// `<tuple of places> = <if, match or block>;`, a destructuring assignment of branches
/// (lowering takes a tuple expression or a call as it is): the places' tuple, its arity
/// and the branching value.
fn tuple_assignment(stmt: &Stmt) -> Option<(Expr, usize, Expr)> {
    let Stmt::Expr(Expr::Assign(assign), Some(_)) = stmt else {
        return None;
    };
    let Expr::Tuple(places) = &*assign.left else {
        return None;
    };
    // a rest (`..`) has no fixed arity
    if places
        .elems
        .iter()
        .any(|place| matches!(place, Expr::Range(_)))
    {
        return None;
    }
    let value = crate::syntax::strip_parens(&assign.right);
    branches(value).then(|| {
        (
            Expr::Tuple(places.clone()),
            places.elems.len(),
            value.clone(),
        )
    })
}

/// A destructuring assignment with no rest of an array, `[a, b] = arr;` (by name) or
/// `[a, b] = [b, a];`, or of a tuple by name, field or index, `(a, b) = t;`, `(a, b) =
/// s.range;`, `(a, b) = table[i];`, `(a, b) = *r;`, as the tuple assignment lowering takes: `(a, b) = (arr[0], arr[1]);`, `(a,
/// b) = (b, a);`, `(a, b) = (t.0, t.1);` (every element read before any place is
/// assigned, as the value is; a name or field read twice is the same value).
fn element_assignment(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::Expr(Expr::Assign(assign), Some(semi)) = stmt else {
        return None;
    };
    let (Expr::Array(syn::ExprArray { elems: places, .. })
    | Expr::Tuple(syn::ExprTuple { elems: places, .. })) = &*assign.left
    else {
        return None;
    };
    if places.iter().any(|place| matches!(place, Expr::Range(_))) {
        return None;
    }
    let value = crate::syntax::strip_parens(&assign.right);
    let values: Vec<Expr> = match (&*assign.left, value) {
        (Expr::Array(_), Expr::Array(values)) if values.elems.len() == places.len() => {
            values.elems.iter().cloned().collect()
        }
        (Expr::Array(_), Expr::Path(path)) if path.path.get_ident().is_some() => (0..places.len())
            .map(|k| syn::parse_quote!(#path[#k]))
            .collect(),
        (Expr::Tuple(_), place) if is_name_or_field(place) => (0..places.len())
            .map(|k| {
                let k = syn::Index::from(k);
                syn::parse_quote!((#place).#k)
            })
            .collect(),
        // `(a, b) = table[i + 1];`, `[a, b] = rows[k % n];`, `(a, b) = pairs[i].1;`: a
        // place whose index is computed, read once into a fresh local (the index may call
        // or panic: evaluated once, before any place is assigned, as the value is), then
        // element by element
        (left, place) if is_computed_place(place) => {
            let held = crate::syntax::fresh_local("gradtape_destructured");
            let reads: Vec<Expr> = (0..places.len())
                .map(|k| match left {
                    Expr::Array(_) => syn::parse_quote!(#held[#k]),
                    _ => {
                        let k = syn::Index::from(k);
                        syn::parse_quote!(#held.#k)
                    }
                })
                .collect();
            let places = places.iter();
            return Some(Stmt::Expr(
                syn::parse_quote!({
                    let #held = #place;
                    (#(#places,)*) = (#(#reads,)*);
                }),
                Some(*semi),
            ));
        }
        _ => return None,
    };
    let places = places.iter();
    Some(Stmt::Expr(
        syn::parse_quote!((#(#places,)*) = (#(#values,)*)),
        Some(*semi),
    ))
}

/// An element or field of a name, field or element (`table[i + 1]`, `pairs[i].1`,
/// `rows[(k + 1) % n]`) whose index is not a name or a literal: [`is_name_or_field`]
/// takes the others.
fn is_computed_place(expr: &Expr) -> bool {
    match expr {
        Expr::Index(index) => {
            let base = crate::syntax::strip_parens(&index.expr);
            is_name_or_field(base) || is_computed_place(base)
        }
        Expr::Field(field) => is_computed_place(crate::syntax::strip_parens(&field.base)),
        _ => false,
    }
}

/// `name`, `name.field`, `name[i]` (`i` a name or a literal), `*name`, or any chain of
/// them: a place whose every read is the same value.
fn is_name_or_field(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        Expr::Field(field) => is_name_or_field(&field.base),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
            is_name_or_field(&unary.expr)
        }
        Expr::Index(index) => {
            let pure_index = matches!(&*index.index, Expr::Lit(_))
                || crate::syntax::single_ident(&index.index).is_some();
            is_name_or_field(&index.expr) && pure_index
        }
        _ => false,
    }
}

/// Whether `expr` is one value per branch, ending each in a tuple: an `if` with an `else`,
/// a `match`, or an unlabelled block (an inlined closure's call gives one).
fn branches(expr: &Expr) -> bool {
    match expr {
        Expr::If(expr_if) => expr_if.else_branch.is_some(),
        Expr::Match(_) => true,
        Expr::Block(block) => block.label.is_none(),
        _ => false,
    }
}

/// `expr`, a branch's value, as statements assigning its elements to `parts`.
fn assign_parts(expr: Expr, parts: &[Ident], id: usize) -> Expr {
    match expr {
        Expr::Paren(paren) => assign_parts(*paren.expr, parts, id),
        Expr::Tuple(tuple) if tuple.elems.len() == parts.len() => {
            let elems = tuple.elems.iter();
            syn::parse_quote!({ #(#parts = #elems;)* })
        }
        Expr::If(mut expr_if) => {
            expr_if.then_branch = assign_block(expr_if.then_branch, parts, id);
            if let Some((token, else_expr)) = expr_if.else_branch.take() {
                expr_if.else_branch = Some((token, Box::new(assign_parts(*else_expr, parts, id))));
            }
            Expr::If(expr_if)
        }
        Expr::Match(mut expr_match) => {
            for arm in &mut expr_match.arms {
                let body = std::mem::replace(&mut *arm.body, syn::parse_quote!(()));
                *arm.body = assign_parts(body, parts, id);
                arm.comma = Some(Default::default());
            }
            Expr::Match(expr_match)
        }
        Expr::Block(mut block) if block.label.is_none() => {
            block.block = assign_block(block.block, parts, id);
            Expr::Block(block)
        }
        // `return`, `break`, `continue`, `panic!(..)`: no value to assign
        diverging @ (Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) | Expr::Macro(_)) => {
            syn::parse_quote!({ #diverging; })
        }
        // any other tuple-valued expression (a call, a name): its parts by field
        other => {
            let whole = crate::syntax::unspelled_ident(format_ident!("tuple_value_{id}"));
            let fields = (0..parts.len()).map(syn::Index::from);
            syn::parse_quote!({
                let #whole = #other;
                #(#parts = #whole.#fields;)*
            })
        }
    }
}

/// A block whose tail expression (its value) is replaced by assignments to `parts`.
fn assign_block(mut block: syn::Block, parts: &[Ident], id: usize) -> syn::Block {
    match block.stmts.pop() {
        Some(Stmt::Expr(tail, None)) => {
            let assigned = assign_parts(tail, parts, id);
            block.stmts.push(Stmt::Expr(assigned, None));
        }
        // no value: the block diverges (ends with `return x;` or a `panic!`)
        Some(other) => block.stmts.push(other),
        None => {}
    }
    block
}

// ----- an array made by `from_fn` and returned -----

/// `let p = core::array::from_fn(|i| e); .. p` in a function returning `[F; N]`, `p` the
/// body's tail: the `let` typed as the result, `let p: [F; N] = ..;`, the form the
/// iterator desugaring takes (a loop filling `N` zeros in index order). Exact: the tail's
/// type is the result's (an array is never coerced), so it is `p`'s. Only a `let` of the
/// body's own statements, untyped, of a name no later statement binds again.
pub fn from_fn_returned(mut stmts: Vec<Stmt>, output: &syn::ReturnType) -> Vec<Stmt> {
    let syn::ReturnType::Type(_, ty) = output else {
        return stmts;
    };
    if !matches!(&**ty, syn::Type::Array(_)) {
        return stmts;
    }
    let Some(Stmt::Expr(tail, None)) = stmts.last() else {
        return stmts;
    };
    let Some(name) = crate::syntax::single_ident(crate::syntax::strip_parens(tail)).cloned() else {
        return stmts;
    };
    let Some(at) = stmts.iter().rposition(|stmt| {
        matches!(stmt, Stmt::Local(local) if crate::syntax::pattern_binds(&local.pat, &name))
    }) else {
        return stmts;
    };
    let Stmt::Local(local) = &mut stmts[at] else {
        unreachable!("found above")
    };
    let Pat::Ident(pat) = &local.pat else {
        return stmts;
    };
    if pat.ident != name
        || pat.by_ref.is_some()
        || pat.subpat.is_some()
        || !local.init.as_ref().is_some_and(|init| {
            init.diverge.is_none() && crate::iterators::is_array_from_fn(&init.expr)
        })
    {
        return stmts;
    }
    local.pat = Pat::Type(syn::PatType {
        attrs: Vec::new(),
        pat: Box::new(local.pat.clone()),
        colon_token: Default::default(),
        ty: ty.clone(),
    });
    stmts
}
