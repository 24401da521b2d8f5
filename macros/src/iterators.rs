//! The iterator forms over float arrays, desugared into indexed loops before lowering
//! (scalar mode): a rewrite of the syntax, no runtime of its own. Lowering then sees only
//! element reads and writes (`a[k]`), which it differentiates through shadow buffers.
//!
//! - `for v in a.iter()` (also `for v in a`, `for v in &a`, `for &v in a.iter()`, `for &v in a`,
//!   `.copied()`, `.cloned()`) is `for k in 0..a.len() { let v = a[k]; .. }`, with `*v`
//!   read as `v`;
//! - `.enumerate()` binds the position, `.zip(b)` a second array at the same index (the
//!   shorter length wins), `.rev()` runs the indices backwards (`(0..n).rev()`; a position
//!   taken by `enumerate` before the `rev` counts from the other end);
//! - `for v in a.iter_mut()` (or `&mut a`) reads `*v` as the place `a[k]`, so `*v = e`
//!   and `*v += e` are element writes, and `v` as a float method's receiver (`v.sin()`,
//!   auto-deref of `&mut f64`) the same place, unless the body binds `v` again;
//! - `for w in a.windows(n)` / `a.chunks(n)` / `a.chunks_exact(n)` (whole chunks only)
//!   loops over offsets, `w` a view of `a` in the body: `w[j]` is `a[offset + j]`, `w.len()` the view's length, and the iterator forms
//!   over `w` read `a` at those places; zipped with another array's views (each its own
//!   view) or elements (a reference to `b[k]`, or a copy for `&q`) and enumerated, for as
//!   many trips as the shorter source; `a.windows(n).map(|w| e).sum()` (or `product`, or
//!   a `fold`, of such a chain) is such a loop accumulating `e`;
//! - a part of an array as a source (`for b in &a[i..j]`, `a[i..].iter()`, `.zip(&b[..n])`,
//!   `a.iter().skip(i).take(n)`, `.step_by(s)`, and `skip`/`take`/`step_by` after it,
//!   counting strided items, in a loop or a reduction) is a view of the array like a
//!   window, its first element, length and stride bound once before the loop;
//! - `let y: Vec<f64> = a.iter().map(|v| e).collect();` is a local buffer grown by a loop
//!   over the chain, `let mut y = Vec::new(); for v in a.iter() { y.push(e); }`;
//! - `a.copy_from_slice(&b)` (or `clone_from_slice`) is the lengths' check and an element
//!   copy over `a.iter_mut().zip(b.iter())`;
//! - `let w = a.to_vec();` (or `a.clone()`) is a local buffer of `a`'s length filled by a
//!   copying loop, so the copy is a local array like any other;
//! - `.sum()`, `.product()`, `.fold(init, |acc, v| e)` (or `.fold(init, f64::max)`),
//!   after an optional `.map(|v| e)`, are a block computing the accumulator in such a
//!   loop: `{ let mut acc = 0.0; for k in 0..a.len() { let v = a[k]; acc = acc + e; } acc }`;
//! - `.map(|p| e).map(|q| f)` is first fused into one `.map(|p| { let q = e; f })` (the
//!   same calls in the same order), so that every form above takes a chain of maps.
//! - `.filter(|p| test)` before the map (any number of them) is the `continue` it stands
//!   for, `if !{ let p = ..; test } { continue; }` at the head of the iteration, so each
//!   test runs once per item, in order, before the next test, the map and the body; the
//!   closure is given a reference to the item, so its names are one reference more than a
//!   map's and one `*` less is written for each (`|(a, _)| **a > 0.0` reads `a`);
//!   `.count()` is a `usize` counter (a constant);
//! - `skip`/`take`/`step_by` after `enumerate`, `zip` or `rev` (which `Parts` cannot take
//!   as a part of one array) count the chain's items: their bounds are computed before the
//!   loop, the loop counts the items left, and each iteration reads the element index it
//!   stands for (positions taken before them are that index's);
//! - `.fold((a, b), |(s, q), v| (e, f))` keeps one accumulator per part; `let (s, q) =
//!   ..fold(..);` binds the parts after the loop, `..fold(..).1` is that part;
//! - `a.get(i).copied().unwrap_or(d)` (also `first`/`last`, `cloned`, `unwrap_or_else`,
//!   `unwrap_or_default`, `map_or`, `map_or_else`) is a test of the index, the eager
//!   default evaluated first; `match`/`if let`/`let .. else` also take `.copied()`;
//! - `let y = { ..; a.iter().map(..).collect() };` (through blocks and `if`/`else`) is `y`
//!   declared first and the block pushing into it where its tail was;
//! - a `map` followed by `zip`, `filter` or `enumerate` (`x.iter().map(f).zip(y.iter()
//!   .map(g))`, `x.iter().map(|v| v.exp()).filter(|e| *e > 1.0)`) is a [`Step::Map`]: its
//!   value computed into a local as each iteration starts, in the chain's order with the
//!   filters (the left side of a `zip` before its right side, and only for the pairs the
//!   `zip` yields, as the iterators run the closures), the adapters after it reading that
//!   local; a map ending in a tuple literal has a local per part. A `rev` or `take` after
//!   a map, and a `skip` or `step_by` after one without effects, are first moved before it
//!   ([`CommuteMaps`]: the map then runs on the same items in the same order, or on fewer
//!   where nobody can tell); a `for` loop over a chain ending in a map binds the mapped
//!   value as each iteration starts;
//! - a reversed side of a `zip` (`x.iter().zip(x.iter().rev())`, `x.iter().rev().zip(w)`)
//!   reads its own arrays from their own end ([`Item::FromEnd`]: the `k`-th pair takes
//!   element `len - 1 - k` of that side), the shorter side bounding the pairs;
//! - over an array of rows, `collect` of floats (`x0.iter().map(|r| r[0]).collect()`)
//!   fills a flat local buffer; a copy read at once (`x.to_vec()[i]`,
//!   `x.to_vec().iter()`) of an array the body never writes is the read of the array
//!   ([`CopiesReadAtOnce`]);
//! - `let p: [F; N] = core::array::from_fn(|i| e);` is `N` zeros filled by a loop in
//!   index order; `v.extend_from_slice(s)` and `v.extend(items)` on a local float `Vec`
//!   are the loop pushing each item; the element `select_nth_unstable_by(k, ..)` puts at
//!   `k`, read by `*v.select_nth_unstable_by(k, ..).1` or `let (lo, m, hi) = ..;` then
//!   `*m`, is the statement form's selection, then `v[k]`.
//!
//! A `.sum()` rewritten as a loop starts from `generated::sum_start()`, `-0.0` for floats,
//! as std's float `Sum` does (an empty sum is `-0.0`).
//!
//! Only chains over the names of float arrays (array parameters, locals made by
//! `vec![..]`, `[..]`, `Vec::new()`, `Vec::with_capacity(..)` or typed so) and of
//! `SCREAMING_CASE` items (`const`/`static` arrays, read as constants) are rewritten;
//! anything else is left for lowering (which rejects a loop over a differentiable value).
//! The rewrite is exact: every element is read where and as often as the iterator would
//! read it, and the body runs as written.

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat};

use crate::ctxt::Ctxt;
use crate::syntax::{mixed, single_ident, strip_parens};
use crate::validate;

/// Rewrites the iterator forms over `arrays` (and the body's local float arrays) in
/// `stmts`; `constants`, the constant array parameters a `zip` may pair items with.
#[allow(clippy::too_many_arguments)]
pub fn desugar(
    cx: &Ctxt,
    stmts: Vec<syn::Stmt>,
    mut arrays: HashSet<String>,
    mut rows: HashSet<String>,
    fixed: HashSet<String>,
    widths: &HashMap<String, TokenStream>,
    floats: &[Ident],
    constants: HashMap<String, bool>,
) -> Vec<syn::Stmt> {
    let mut stmts = stmts;
    let (flat, of_rows) = with_locals(&stmts, arrays.clone(), rows.clone(), floats);
    let mut read_copies = CopiesReadAtOnce {
        arrays: flat.union(&of_rows).cloned().collect(),
        written: written_names(&stmts),
    };
    for stmt in &mut stmts {
        read_copies.visit_stmt_mut(stmt);
        CommuteMaps.visit_stmt_mut(stmt);
        FuseMaps.visit_stmt_mut(stmt);
    }
    // the copies and collects read the body's local arrays too (`let mut s = vec![0.0;
    // n]; .. s.iter().map(f).collect()`), not the parameters' alone; a collect of floats
    // over rows may be over a local array of rows (`vec![[0.0; 2]; n]`)
    let stmts = copies(stmts, &flat, &rows, &of_rows, fixed, widths, floats);
    let mut locals = Locals(&mut arrays, &mut rows, floats);
    for stmt in &stmts {
        locals.visit_stmt(stmt);
    }
    let fixed_rows = fixed_width_rows(&stmts, widths, floats);
    let mut rewriter = Rewriter {
        cx,
        arrays,
        rows,
        fixed_rows,
        next: 0,
        views: Vec::new(),
        aliases: Vec::new(),
        fields: Vec::new(),
        counted_index: None,
        adapted_derefs: Vec::new(),
        constants,
    };
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    rewriter.visit_block_mut(&mut block);
    block.stmts
}

/// `arrays` and `rows` (the parameters') with the body's local float arrays (and arrays of
/// rows) added, as [`desugar`] finds them: for the rewrites before it (`searches`).
pub fn with_locals(
    stmts: &[syn::Stmt],
    mut arrays: HashSet<String>,
    mut rows: HashSet<String>,
    floats: &[Ident],
) -> (HashSet<String>, HashSet<String>) {
    let mut locals = Locals(&mut arrays, &mut rows, floats);
    for stmt in stmts {
        locals.visit_stmt(stmt);
    }
    (arrays, rows)
}

/// A name in `SCREAMING_CASE` that is no array of the body's: a `const` or `static` item
/// by Rust's naming convention (`const NODES: [f64; 3]`), an array of constants. A chain
/// over it (`NODES.iter().zip(WEIGHTS.iter()).map(..).sum()`) is rewritten like any
/// other, reading `NODES[k]`, which lowering takes as a constant (no shadow: nothing
/// flows back into an item). Were the name something else, the rewritten `NAME[k]` and
/// `NAME.len()` would not compile: never a silent change.
fn constant_item(ident: &Ident) -> bool {
    let name = ident.to_string();
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A copy of a float array read at once, `a.to_vec()[i]` (also `a.to_vec()[i..j]`,
/// `a.to_vec().iter()`, `.into_iter()`, `.len()`, and `to_owned()`/`clone()` for
/// `to_vec()`), as the read of `a` itself: `a[i]`, `a.iter()`, `a.iter().cloned()`,
/// `a.len()`. The same values, the same panics (an index out of bounds is one either
/// way): the copy holds `a`'s elements, and nothing writes it. Only for an array the body
/// never writes ([`written_names`]): were `a` written while the copy is read (in the
/// index, or in a closure of the chain), the copy would still hold the old values.
struct CopiesReadAtOnce {
    arrays: HashSet<String>,
    written: HashSet<String>,
}

impl CopiesReadAtOnce {
    /// `a` for `a.to_vec()` (`to_owned()`, `clone()`) of such an array.
    fn copied(&self, expr: &Expr) -> Option<Ident> {
        let Expr::MethodCall(copy) = strip_parens(expr) else {
            return None;
        };
        if !matches!(
            copy.method.to_string().as_str(),
            "to_vec" | "to_owned" | "clone"
        ) || !copy.args.is_empty()
            || copy.turbofish.is_some()
        {
            return None;
        }
        let name = single_ident(strip_parens(&copy.receiver))?;
        (self.arrays.contains(&name.to_string()) && !self.written.contains(&name.to_string()))
            .then(|| name.clone())
    }
}

impl VisitMut for CopiesReadAtOnce {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        match expr {
            Expr::Index(index) => {
                if let Some(array) = self.copied(&index.expr) {
                    *index.expr = syn::parse_quote!(#array);
                }
            }
            Expr::MethodCall(call) if call.args.is_empty() && call.turbofish.is_none() => {
                let Some(array) = self.copied(&call.receiver) else {
                    return;
                };
                let span = call.method.span();
                *expr = match call.method.to_string().as_str() {
                    "iter" | "len" => {
                        let method = &call.method;
                        syn::parse_quote!(#array.#method())
                    }
                    // the copy's owned elements: values
                    "into_iter" => syn::parse_quote_spanned!(span=> #array.iter().cloned()),
                    _ => return,
                };
            }
            _ => {}
        }
    }
}

/// The names the body may write: assigned (`a = ..`, `a[i] += ..`, `a.f = ..`), borrowed
/// `&mut`, or the receiver of a method that is no reading one (`push`, `iter_mut`,
/// `sort_by`, ..), anywhere, closures included.
fn written_names(stmts: &[syn::Stmt]) -> HashSet<String> {
    /// The name a place is rooted at (`a`, `a[i]`, `a.f[j]`, `*a`).
    fn root(expr: &Expr) -> Option<String> {
        match strip_parens(expr) {
            Expr::Index(index) => root(&index.expr),
            Expr::Field(field) => root(&field.base),
            Expr::Unary(unary) => root(&unary.expr),
            other => single_ident(other).map(Ident::to_string),
        }
    }
    const READS: &[&str] = &[
        "iter",
        "len",
        "is_empty",
        "to_vec",
        "to_owned",
        "clone",
        "first",
        "last",
        "get",
        "windows",
        "chunks",
        "chunks_exact",
        "contains",
        "into_iter",
        "copied",
        "cloned",
    ];
    struct Writes(HashSet<String>);
    impl<'ast> Visit<'ast> for Writes {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            let place = match expr {
                Expr::Assign(assign) => root(&assign.left),
                Expr::Binary(binary) if crate::syntax::is_compound_assign(&binary.op) => {
                    root(&binary.left)
                }
                Expr::Reference(reference) if reference.mutability.is_some() => {
                    root(&reference.expr)
                }
                Expr::MethodCall(call) if !READS.contains(&call.method.to_string().as_str()) => {
                    root(&call.receiver)
                }
                _ => None,
            };
            self.0.extend(place);
            visit::visit_expr(self, expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            // a macro's tokens may write any name they spell
            crate::syntax::names_in(mac.tokens.clone())
                .into_iter()
                .for_each(|name| {
                    self.0.insert(name);
                });
        }
    }
    let mut writes = Writes(HashSet::new());
    for stmt in stmts {
        writes.visit_stmt(stmt);
    }
    writes.0
}

/// The reads of `name` in `expr`, a view of the flat `array` from `offset` (a `usize`
/// local) of `len` elements, as the loops over windows read theirs ([`ViewReads`]):
/// `name[i]` is `array[offset + i]`, checked against `len`, `name[i..j]` that part of
/// `array`, `name.len()` is `len`. For `rewrite::walked_slices`, whose views move.
pub(crate) fn read_view(
    expr: &mut Expr,
    name: &Ident,
    array: &Ident,
    offset: &Ident,
    len: TokenStream,
) {
    let view = View {
        name: name.to_string(),
        array: array.clone(),
        offset: offset.clone(),
        len,
        row: false,
        stride: None,
    };
    ViewReads(&view).visit_expr_mut(expr);
}

/// Whether `ty` is `Vec<F>` of a float type `F` (`f32`, `f64` or one of `floats`).
fn vec_of_floats(ty: &syn::Type, floats: &[Ident]) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    let [syn::GenericArgument::Type(syn::Type::Path(element))] =
        &args.args.iter().collect::<Vec<_>>()[..]
    else {
        return false;
    };
    last.ident == "Vec"
        && element.qself.is_none()
        && element.path.get_ident().is_some_and(|name| {
            name == "f32" || name == "f64" || floats.iter().any(|float| float == name)
        })
}

/// Whether a map's value is a number by its form, whatever its operands (`r[0]`, an
/// element of a row; `p[0] * p[1]`; `r[0].sqrt()`; a float literal): no row or array
/// value has that form, so a `collect` of it over rows fills a flat buffer.
fn float_valued(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Index(index) => !matches!(strip_parens(&index.index), Expr::Range(_)),
        Expr::Binary(binary) => crate::syntax::is_arithmetic(&binary.op),
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Neg(_)),
        Expr::MethodCall(call) => {
            crate::rewrite::FLOAT_METHODS.contains(&call.method.to_string().as_str())
        }
        Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Float(_)),
        _ => false,
    }
}

/// `recv.map(f).rev()` as `recv.rev().map(f)` (also `take(n)`; `skip(n)` and
/// `step_by(s)` when `f` is [free of effects](free_of_effects)), innermost first and again
/// on the new receiver (`recv.map(f).rev().skip(1)` is `recv.rev().skip(1).map(f)`), so
/// that the map that more adapters follow comes after every adapter that skips or
/// reorders items, a form the chains take. Exact: `Rev<Map>` and `Map<Rev>` both call `f`
/// on the back item as each item is taken, and `take` calls the iterator below it only
/// for the items it yields; `skip` and `step_by` do call `f` on the items they pass
/// over, which no one can tell when `f` has no effect. The adapter's argument is then
/// evaluated before the closure is made rather than after: making a closure (not `move`)
/// runs nothing, and an argument that could change what it borrows would not compile
/// as written either. Any other pair is kept.
struct CommuteMaps;

impl VisitMut for CommuteMaps {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        commute_map(expr);
    }
}

/// [`CommuteMaps`] at one node: whether `expr` changed.
fn commute_map(expr: &mut Expr) -> bool {
    let Expr::MethodCall(outer) = expr else {
        return false;
    };
    let method = outer.method.to_string();
    // whether the adapter calls the iterator below it only for the items it yields
    let yields_only = match (method.as_str(), outer.args.len()) {
        ("rev", 0) | ("take", 1) => true,
        ("skip" | "step_by", 1) => false,
        _ => return false,
    };
    if outer.turbofish.is_some() {
        return false;
    }
    let Expr::MethodCall(inner) = &*outer.receiver else {
        return false;
    };
    if inner.method != "map" || inner.args.len() != 1 || inner.turbofish.is_some() {
        return false;
    }
    let Expr::Closure(closure) = strip_parens(&inner.args[0]) else {
        return false;
    };
    if closure.capture.is_some() || closure.asyncness.is_some() {
        return false;
    }
    if !yields_only && !free_of_effects(&closure.body) {
        return false;
    }
    // `recv.adapter(args).map(f)`, the adapter's receiver made the map's
    let mut map = inner.clone();
    let mut adapter = outer.clone();
    adapter.receiver = map.receiver.clone();
    let mut adapted = Expr::MethodCall(adapter);
    // the adapter may now follow another map (`recv.map(g).map(f).rev()` unfused)
    commute_map(&mut adapted);
    map.receiver = Box::new(adapted);
    *expr = Expr::MethodCall(map);
    true
}

/// Whether evaluating `expr` can have no effect anyone sees, so that running it on fewer
/// items changes nothing: no assignment, `&mut` borrow, macro, call of a function or of
/// a method that is not a float method of the vocabulary, indexing (which may panic),
/// jump or `?`, `unsafe` or closure; names, literals, fields, arithmetic, casts, blocks
/// of `let`s and `if`/`match` on such values are.
fn free_of_effects(expr: &Expr) -> bool {
    struct Effects(bool);
    impl<'ast> Visit<'ast> for Effects {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Lit(_)
                | Expr::Path(_)
                | Expr::Paren(_)
                | Expr::Group(_)
                | Expr::Field(_)
                | Expr::Cast(_)
                | Expr::Unary(_)
                | Expr::Tuple(_)
                | Expr::Block(_)
                | Expr::If(_)
                | Expr::Match(_)
                | Expr::Let(_) => {}
                Expr::Reference(reference) if reference.mutability.is_none() => {}
                Expr::Binary(binary) if !crate::syntax::is_compound_assign(&binary.op) => {}
                Expr::MethodCall(call)
                    if crate::rewrite::FLOAT_METHODS
                        .contains(&call.method.to_string().as_str()) => {}
                _ => self.0 = true,
            }
            visit::visit_expr(self, expr);
        }
        fn visit_macro(&mut self, _: &'ast syn::Macro) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {
            self.0 = true;
        }
    }
    let mut effects = Effects(false);
    effects.visit_expr(expr);
    !effects.0
}

/// `recv.map(|p| e).map(|q| f)` as `recv.map(|p| { let q = e; f })`, innermost pair
/// first, so a chain of any number of maps is one map. Exact for an iterator (and for
/// `Option`/`Result`): each item goes through `e` then `f`, in the same order, once.
///
/// Only closures of one input, neither `async`, both `move` or neither, the first
/// without `return` or `?`, whose second body does not name anything
/// the first closure's pattern binds (unless the second pattern binds it again): fused,
/// `f` would see `p`'s binding where it saw an outer one. The test is on `f`'s tokens, so
/// it may refuse (a field or method of the same name) but never shadows; a refused pair
/// stays as written.
struct FuseMaps;

impl VisitMut for FuseMaps {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        let Expr::MethodCall(outer) = expr else {
            return;
        };
        if outer.method != "map" || outer.args.len() != 1 || outer.turbofish.is_some() {
            return;
        }
        let Expr::MethodCall(inner) = strip_parens(&outer.receiver) else {
            return;
        };
        if inner.method != "map" || inner.args.len() != 1 || inner.turbofish.is_some() {
            return;
        }
        let (Expr::Closure(first), Expr::Closure(second)) =
            (strip_parens(&inner.args[0]), strip_parens(&outer.args[0]))
        else {
            return;
        };
        if first.inputs.len() != 1
            || second.inputs.len() != 1
            || first.asyncness.is_some()
            || second.asyncness.is_some()
            || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&first.body))
            || first.capture.is_some() != second.capture.is_some()
        {
            return;
        }
        let mut bound = HashSet::new();
        pattern_names(&first.inputs[0], &mut bound);
        let mut rebound = HashSet::new();
        pattern_names(&second.inputs[0], &mut rebound);
        let mut named = HashSet::new();
        token_idents(quote::ToTokens::to_token_stream(&second.body), &mut named);
        if bound
            .iter()
            .any(|name| !rebound.contains(name) && named.contains(name))
        {
            return;
        }
        let (q, e, f) = (&second.inputs[0], &first.body, &second.body);
        let mut fused = first.clone();
        // the second closure's return type (if written) is the fused one's; the first's
        // result is only `q`'s, inferred (a typed first body is a block, kept whole)
        fused.body = Box::new(syn::parse_quote!({ let #q = #e; #f }));
        fused.output = second.output.clone();
        let receiver = (*inner.receiver).clone();
        *outer.receiver = receiver;
        outer.args[0] = Expr::Closure(fused);
    }
}

/// The names a pattern binds (conservatively: every identifier in it, its type aside).
fn pattern_names(pat: &Pat, names: &mut HashSet<String>) {
    token_idents(quote::ToTokens::to_token_stream(strip_pat_type(pat)), names);
}

/// Every identifier in a token stream, through its groups.
fn token_idents(tokens: TokenStream, names: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(ident) => {
                names.insert(ident.to_string());
            }
            proc_macro2::TokenTree::Group(group) => token_idents(group.stream(), names),
            _ => {}
        }
    }
}

/// `let [mut] w = a.to_vec();` (or `a.clone()`) of a float array `a` (not an array of
/// rows): a local buffer of `a`'s length, then a loop copying `a` into it element by
/// element, `let mut w = vec![0.0; a.len()]; for k in 0..a.len() { w[k] = a[k]; }`, so
/// that `w` is a local array like any other (it may grow; its reads and writes go through
/// its shadow) and each element's cotangent flows back to `a`'s. In every block; a name
/// bound this way is an array for the copies after it.
///
/// Not `a.clone()` of a fixed-size array (`fixed`: the parameters `[F; N]`, `&[F; N]`,
/// and the locals seen so far made by a literal, `[e; N]`, typed so or copied from one):
/// that is an array of the same type, which lowering copies element by element
/// (`lower_array_copy`), so that `m = next;` between such arrays stays possible.
fn copies(
    stmts: Vec<syn::Stmt>,
    arrays: &HashSet<String>,
    rows: &HashSet<String>,
    all_rows: &HashSet<String>,
    fixed: HashSet<String>,
    widths: &HashMap<String, TokenStream>,
    floats: &[Ident],
) -> Vec<syn::Stmt> {
    struct Copies<'a> {
        arrays: HashSet<String>,
        rows: &'a HashSet<String>,
        /// The arrays of rows, the body's local ones too: a `collect` of floats over
        /// one is a flat buffer.
        all_rows: &'a HashSet<String>,
        fixed: HashSet<String>,
        /// The row width `N` of each parameter of fixed-width rows (`&[[F; N]]`).
        widths: &'a HashMap<String, TokenStream>,
        floats: &'a [Ident],
    }
    impl VisitMut for Copies<'_> {
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            let mut out = Vec::with_capacity(block.stmts.len());
            for mut stmt in std::mem::take(&mut block.stmts) {
                self.visit_stmt_mut(&mut stmt);
                match self.copy(&stmt) {
                    Some(expanded) => out.extend(expanded),
                    None => out.push(stmt),
                }
            }
            block.stmts = out;
        }
        fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    impl Copies<'_> {
        /// `let y = a.iter().map(|v| e).collect();` (also `: Vec<F>`, `::<Vec<_>>`, a
        /// chain of the iterator forms over `a`, `.copied()`/`.cloned()` items without a
        /// `map`): a local buffer grown by a loop over the chain, `let mut y = Vec::new();
        /// for v in a.iter() { y.push(e); }`, which the rewrite then desugars. `a` must be
        /// a float array, so the items are floats.
        fn collected(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
            let init = local.init.as_ref()?;
            if init.diverge.is_some() {
                return None;
            }
            let (name, ty) = match &local.pat {
                Pat::Ident(pat) => (&pat.ident, None),
                Pat::Type(typed) => match &*typed.pat {
                    Pat::Ident(pat) => (&pat.ident, Some(&typed.ty)),
                    _ => return None,
                },
                _ => return None,
            };
            let float_items = ty.is_some_and(|ty| vec_of_floats(ty, self.floats));
            let Some(pushing) = self.collect_loop(&init.expr, name, float_items) else {
                return self.collected_tail(name, ty.map(|ty| &**ty), &init.expr);
            };
            self.arrays.insert(name.to_string());
            let declared: syn::Stmt = match ty {
                Some(ty) => syn::parse_quote!(let mut #name: #ty = ::std::vec::Vec::new();),
                None => syn::parse_quote!(let mut #name = ::std::vec::Vec::new();),
            };
            Some(vec![declared, pushing])
        }

        /// `a.iter().map(|v| e).collect()` (as [`collected`](Self::collected) takes it) as
        /// the loop pushing each item into `target`, `for v in a.iter() { target.push(e);
        /// }`.
        fn collect_loop(
            &self,
            expr: &Expr,
            target: &Ident,
            float_items: bool,
        ) -> Option<syn::Stmt> {
            let Expr::MethodCall(collect) = strip_parens(expr) else {
                return None;
            };
            if collect.method != "collect" || !collect.args.is_empty() {
                return None;
            }
            let (pat, value, source): (Pat, Expr, &Expr) = match strip_parens(&collect.receiver) {
                Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                    let Expr::Closure(closure) = strip_parens(&map.args[0]) else {
                        return None;
                    };
                    if closure.inputs.len() != 1 {
                        return None;
                    }
                    let pat = strip_pat_type(&closure.inputs[0]).clone();
                    (pat, (*closure.body).clone(), &map.receiver)
                }
                // `chain.map(f).filter(p).collect()` (or `.copied().filter(p)`): values,
                // since the filters pass on the items they are given
                Expr::MethodCall(copy)
                    if matches!(copy.method.to_string().as_str(), "copied" | "cloned")
                        || filtered_values(&collect.receiver) =>
                {
                    let item = crate::syntax::fresh_local("collected_item");
                    (
                        syn::parse_quote!(#item),
                        syn::parse_quote!(#item),
                        &collect.receiver,
                    )
                }
                _ => return None,
            };
            // over a range (`(0..n).map(|i| x[i] * w).collect()`), the items are its
            // integers and the loop is the range's, as written
            if range_map(&collect.receiver).is_none() {
                let root = chain_root(source)?;
                // over rows, only floats collected (`|r| r[0]`, `|p| p[0] * p[1]`, or
                // into a `Vec<F>`): the buffer is then a flat float array, which the
                // rows loop fills reading each row as a view
                let root = root.to_string();
                let of_rows = self.rows.contains(&root) || self.all_rows.contains(&root);
                let floats_of_rows = of_rows && (float_items || float_valued(&value));
                if !(self.arrays.contains(&root) && !of_rows || floats_of_rows) {
                    return None;
                }
            }
            Some(syn::parse_quote!(for #pat in #source { #target.push(#value); }))
        }

        /// `let y = { stmts; a.iter().map(|v| e).collect() };` (a block ending in a
        /// collect, also through blocks in blocks and the branches of an `if` with an
        /// `else`): `y` declared first, then the block with the loop pushing into it in
        /// place of its tail, `let mut y = Vec::new(); { stmts; for v in a.iter() {
        /// y.push(e); } }`. The same values in the same order: the statements run first,
        /// then the chain. When the block names `y` (an outer `y` it reads, or its own),
        /// the loop pushes into a fresh buffer instead, copied into `y` after the block.
        fn collected_tail(
            &mut self,
            name: &Ident,
            ty: Option<&syn::Type>,
            init: &Expr,
        ) -> Option<Vec<syn::Stmt>> {
            if !matches!(strip_parens(init), Expr::Block(_) | Expr::If(_)) {
                return None;
            }
            let mut named = HashSet::new();
            token_idents(quote!(#init), &mut named);
            let named = named.contains(&name.to_string());
            let target = if named {
                crate::syntax::fresh_local(format!("{name}_collected"))
            } else {
                name.clone()
            };
            let pushing = self.push_tail(init, &target)?;
            self.arrays.insert(target.to_string());
            self.arrays.insert(name.to_string());
            let declared: syn::Stmt = match ty {
                Some(ty) => syn::parse_quote!(let mut #target: #ty = ::std::vec::Vec::new();),
                None => syn::parse_quote!(let mut #target = ::std::vec::Vec::new();),
            };
            let mut stmts = vec![declared, syn::Stmt::Expr(pushing, Some(Default::default()))];
            if named {
                // (not `0.0`: the elements may be of a generic float type)
                let generated = crate::generate::paths::generated();
                let k = crate::syntax::fresh_local("copy_index");
                let typed = ty.map(|ty| quote!(: #ty));
                stmts.push(syn::parse_quote!(
                    let mut #name #typed = vec![#generated::element_zero(); #target.len()];
                ));
                stmts.push(syn::parse_quote!(
                    for #k in 0..#target.len() { #name[#k] = #target[#k]; }
                ));
            }
            Some(stmts)
        }

        /// `expr` with the collect it ends in (through blocks and an `if`'s branches) the
        /// loop pushing into `target`.
        fn push_tail(&self, expr: &Expr, target: &Ident) -> Option<Expr> {
            match strip_parens(expr) {
                Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                    let (tail, stmts) = block.block.stmts.split_last()?;
                    let syn::Stmt::Expr(tail, None) = tail else {
                        return None;
                    };
                    let pushing = self.push_tail(tail, target)?;
                    Some(syn::parse_quote!({ #(#stmts)* #pushing; }))
                }
                Expr::If(branch) => {
                    let (_, otherwise) = branch.else_branch.as_ref()?;
                    let then = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: branch.then_branch.clone(),
                    });
                    let (then, otherwise) = (
                        self.push_tail(&then, target)?,
                        self.push_tail(otherwise, target)?,
                    );
                    let cond = &branch.cond;
                    Some(syn::parse_quote!(if #cond #then else #otherwise))
                }
                collect => {
                    let pushing = self.collect_loop(collect, target, false)?;
                    Some(syn::parse_quote!({ #pushing }))
                }
            }
        }

        fn copy(&mut self, stmt: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
            let syn::Stmt::Local(local) = stmt else {
                return None;
            };
            if let Some(expanded) = self.collected(local) {
                return Some(expanded);
            }
            if let Some(expanded) = from_fn_let(local) {
                // a fixed-size local array like any other from here on
                if let Some(name) = local_name(local) {
                    self.arrays.insert(name.clone());
                    self.fixed.insert(name);
                }
                return Some(expanded);
            }
            // (by name, as the sets here are: a fixed-size local, or a copy of one; any
            // other `let` of the name shadows it)
            if let Some(name) = local_name(local) {
                let copied = whole_copy(local).is_some_and(|(_, s)| self.fixed.contains(&s));
                if copied || crate::lower::is_fixed_local(local, self.floats) {
                    self.fixed.insert(name);
                } else {
                    self.fixed.remove(&name);
                }
            }
            let init = local.init.as_ref()?;
            if init.diverge.is_some() {
                return None;
            }
            // `let w = ..;` or typed, `let w: Vec<[f64; 2]> = ..;` (the type kept)
            let (pat, ty) = match &local.pat {
                Pat::Ident(pat) => (pat, None),
                Pat::Type(typed) => match &*typed.pat {
                    Pat::Ident(pat) => (pat, Some(&typed.ty)),
                    _ => return None,
                },
                _ => return None,
            };
            let ty = ty.map(|ty| quote!(: #ty));
            let Expr::MethodCall(call) = strip_parens(&init.expr) else {
                return None;
            };
            let source = single_ident(strip_parens(&call.receiver))?.to_string();
            if let Some(width) = self.widths.get(&source)
                && matches!(call.method.to_string().as_str(), "to_vec" | "clone")
                && call.args.is_empty()
                && !(call.method == "clone" && self.fixed.contains(&source))
            {
                // `let mut p = pos.to_vec();` of rows of fixed width (`pos: &[[F; N]]`): a
                // local array of rows `vec![[0; N]; len]` filled element by element
                let (name, source) = (&pat.ident, &call.receiver);
                let (k, j) = (
                    crate::syntax::fresh_local("copy_index"),
                    crate::syntax::fresh_local("copy_column"),
                );
                self.arrays.insert(name.to_string());
                let generated = crate::generate::paths::generated();
                return Some(vec![
                    syn::parse_quote!(let mut #name #ty = vec![[#generated::element_zero(); #width]; #source.len()];),
                    syn::parse_quote!(for #k in 0..#source.len() { for #j in 0..#width { #name[#k][#j] = #source[#k][#j]; } }),
                ]);
            }
            let copying = matches!(call.method.to_string().as_str(), "to_vec" | "clone")
                && call.args.is_empty()
                && self.arrays.contains(&source)
                && !self.rows.contains(&source)
                && !(call.method == "clone" && self.fixed.contains(&source));
            if !copying {
                return None;
            }
            let (name, source) = (&pat.ident, &call.receiver);
            let k = crate::syntax::fresh_local("copy_index");
            self.arrays.insert(name.to_string());
            Some(vec![
                {
                    // not `0.0`: the elements may be of a generic float type
                    let generated = crate::generate::paths::generated();
                    syn::parse_quote!(let mut #name #ty = vec![#generated::element_zero(); #source.len()];)
                },
                syn::parse_quote!(for #k in 0..#source.len() { #name[#k] = #source[#k]; }),
            ])
        }
    }
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    Copies {
        arrays: arrays.clone(),
        rows,
        all_rows,
        fixed,
        widths,
        floats,
    }
    .visit_block_mut(&mut block);
    block.stmts
}

/// `core::array::from_fn(f)` (also `std::array::from_fn`, `array::from_fn`, with a
/// turbofish or not): a call [`from_fn_let`] rewrites where its length is known.
pub fn is_array_from_fn(expr: &Expr) -> bool {
    let Expr::Call(call) = strip_parens(expr) else {
        return false;
    };
    let Expr::Path(func) = strip_parens(&call.func) else {
        return false;
    };
    let segments: Vec<String> = func
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    func.qself.is_none()
        && matches!(
            &segments[..],
            ["core" | "std", "array", "from_fn"] | ["array", "from_fn"]
        )
        && call.args.len() == 1
}

/// `let p: [F; N] = core::array::from_fn(|i| e);` (also `std::array::from_fn`,
/// `array::from_fn`, or `N` given by a turbofish, `from_fn::<F, N, _>`): a local array of
/// `N` zeros, then the loop filling it in order, `let mut p: [F; N] = [zero; N]; for k in
/// 0..N { let i = k; p[k] = e; }`, as `from_fn` calls the closure for each index in order.
/// Left as written (`None`) when `N` is not written, or the closure is `move`, `async`,
/// leaves early, or names `p` (which would be the new array in the loop, an outer one in
/// the closure).
fn from_fn_let(local: &syn::Local) -> Option<Vec<syn::Stmt>> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let (name, ty) = match &local.pat {
        Pat::Type(typed) => match &*typed.pat {
            Pat::Ident(pat) => (&pat.ident, Some(&*typed.ty)),
            _ => return None,
        },
        Pat::Ident(pat) => (&pat.ident, None),
        _ => return None,
    };
    if !is_array_from_fn(&init.expr) {
        return None;
    }
    let Expr::Call(call) = strip_parens(&init.expr) else {
        return None;
    };
    let Expr::Path(func) = strip_parens(&call.func) else {
        return None;
    };
    // `N`: the annotation's length, or the turbofish's second argument
    let turbofish = match &func.path.segments.last()?.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 3 => {
            let (element, len) = (&args.args[0], &args.args[1]);
            Some((quote!(#element), quote!(#len)))
        }
        _ => None,
    };
    let (ty, len): (TokenStream, TokenStream) = match (ty, turbofish) {
        (Some(syn::Type::Array(array)), _) => {
            let len = &array.len;
            (quote!(#array), quote!(#len))
        }
        (None, Some((element, len))) => (quote!([#element; #len]), len),
        _ => return None,
    };
    let Expr::Closure(closure) = strip_parens(&call.args[0]) else {
        return None;
    };
    if closure.inputs.len() != 1
        || closure.capture.is_some()
        || closure.asyncness.is_some()
        || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body))
    {
        return None;
    }
    let mut named = HashSet::new();
    token_idents(quote::ToTokens::to_token_stream(closure), &mut named);
    if named.contains(&name.to_string()) {
        return None;
    }
    let (pat, body) = (&closure.inputs[0], &closure.body);
    let k = crate::syntax::fresh_local("from_fn_index");
    let generated = crate::generate::paths::generated();
    Some(vec![
        syn::parse_quote!(let mut #name: #ty = [#generated::element_zero(); #len];),
        syn::parse_quote!(for #k in 0..#len { let #pat = #k; #name[#k] = #body; }),
    ])
}

/// Collects the names of the body's local float arrays (and of those that are arrays of
/// rows); the third field is the function's float type parameters.
struct Locals<'a>(
    &'a mut HashSet<String>,
    &'a mut HashSet<String>,
    &'a [Ident],
);

impl<'ast> Visit<'ast> for Locals<'_> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if is_row_copy(local, self.1) {
            // `let r = m[i];` / `m[i].clone()`: lowered as a local array (a copy of the row)
            if let Pat::Ident(ident) = &local.pat {
                self.0.insert(ident.ident.to_string());
            }
        } else if let Some((name, source)) = whole_copy(local)
            && self.0.contains(&source)
        {
            // `let m = *a;` (`a.clone()`, `a`) of an array: lowered as a local array of
            // the same shape when `a` is of fixed size (`lower`'s `lower_array_copy`);
            // otherwise rejected there, whatever is desugared here
            if self.1.contains(&source) {
                self.1.insert(name.clone());
            }
            self.0.insert(name);
        } else if crate::lower::is_array_local(local, self.2) && !literal_of_other_values(local) {
            let pat = match &local.pat {
                Pat::Type(typed) => &*typed.pat,
                other => other,
            };
            if let Pat::Ident(ident) = pat {
                self.0.insert(ident.ident.to_string());
                if crate::lower::local_row(local, self.2).is_some()
                    || crate::lower::is_ragged_local(local, self.2)
                    || is_rows_literal(local)
                {
                    self.1.insert(ident.ident.to_string());
                }
            }
        }
        visit::visit_local(self, local);
    }
}

/// Whether `local` is an untyped array literal (`[..]`, `vec![..]`, `[e; N]`,
/// `vec![e; n]`) whose elements are plainly no floats: enum variants (`Mode::Scale(2.0)`,
/// `enums::construction`) or struct literals. Such an array is no float array:
/// desugared as one, `for m in &modes` read `let m = modes[k];`, an owned value where the
/// body had a reference (regression `constant_modes_passed_on`: rustc's E0308 answered a
/// constant array of enum values whose item was passed on). One the passes before took
/// (`tuples`, `enum_arrays`) is already rewritten; what is left runs as written.
fn literal_of_other_values(local: &syn::Local) -> bool {
    let Some(init) = &local.init else {
        return false;
    };
    if matches!(&local.pat, Pat::Type(_)) {
        return false;
    }
    let other = |element: &Expr| {
        matches!(strip_parens(element), Expr::Struct(_))
            || crate::enums::construction(strip_parens(element)).is_some()
    };
    match strip_parens(&init.expr) {
        Expr::Array(array) => array.elems.first().is_some_and(other),
        Expr::Repeat(repeat) => other(&repeat.expr),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
            let tokens = &mac.mac.tokens;
            if let Ok(repeat) = syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                return other(&repeat.expr);
            }
            mac.mac
                .parse_body_with(
                    syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|elements| elements.first().is_some_and(other))
        }
        _ => false,
    }
}

/// The names of the arrays of rows of one fixed width: the parameters of `widths` (`&[[F;
/// N]]`, `[[F; N]; M]`), and the locals `stmts` declare so (`[[e; N]; M]`, typed, a
/// literal of rows, a whole copy of such an array), but not ragged ones (`Vec<Vec<F>>`).
fn fixed_width_rows(
    stmts: &[syn::Stmt],
    widths: &HashMap<String, TokenStream>,
    floats: &[Ident],
) -> HashSet<String> {
    /// The names bound to fixed-width rows, and those bound to anything else somewhere
    /// (excluded everywhere: the rewrite below reads names, not scopes).
    struct Fixed<'f> {
        fixed: HashSet<String>,
        other: HashSet<String>,
        floats: &'f [Ident],
    }
    impl<'ast> Visit<'ast> for Fixed<'_> {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            match local_name(local) {
                Some(name) => {
                    let fixed = crate::lower::local_row(local, self.floats).is_some()
                        || is_rows_literal(local)
                        || whole_copy(local)
                            .is_some_and(|(_, source)| self.fixed.contains(&source));
                    if fixed {
                        self.fixed.insert(name);
                    } else {
                        self.other.insert(name);
                    }
                }
                None => self.visit_pat(&local.pat),
            }
            if let Some(init) = &local.init {
                self.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.visit_expr(diverge);
                }
            }
        }
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.other.insert(pat.ident.to_string());
            visit::visit_pat_ident(self, pat);
        }
    }
    let mut fixed = Fixed {
        fixed: widths.keys().cloned().collect(),
        other: HashSet::new(),
        floats,
    };
    for stmt in stmts {
        fixed.visit_stmt(stmt);
    }
    fixed.fixed.retain(|name| !fixed.other.contains(name));
    fixed.fixed
}

/// `let m = [[a, b], [c, d]];` (also `vec![..]` of them): a literal of rows, which lowering
/// makes a local array of rows (its `lower_array_literal`).
fn is_rows_literal(local: &syn::Local) -> bool {
    let Some(init) = &local.init else {
        return false;
    };
    let elems: Vec<Expr> = match strip_parens(&init.expr) {
        Expr::Array(array) => array.elems.iter().cloned().collect(),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
            let tokens = &mac.mac.tokens;
            match syn::parse2::<Expr>(quote!([#tokens])) {
                Ok(Expr::Array(array)) => array.elems.into_iter().collect(),
                _ => return false,
            }
        }
        _ => return false,
    };
    !elems.is_empty()
        && elems
            .iter()
            .all(|elem| matches!(strip_parens(elem), Expr::Array(_)))
}

/// `let m = *a;`, `a.clone()` or `a`, the name `m` is bound by (typed or not), and `a`'s.
fn whole_copy(local: &syn::Local) -> Option<(String, String)> {
    let name = local_name(local)?;
    let source = match strip_parens(&local.init.as_ref()?.expr) {
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => &*unary.expr,
        Expr::MethodCall(call) if call.method == "clone" && call.args.is_empty() => &*call.receiver,
        other => other,
    };
    let source = single_ident(strip_parens(source))?;
    Some((name, source.to_string()))
}

/// The name a `let` binds, typed or not, if its pattern is a name.
fn local_name(local: &syn::Local) -> Option<String> {
    let pat = match &local.pat {
        Pat::Type(typed) => &*typed.pat,
        other => other,
    };
    match pat {
        Pat::Ident(ident) => Some(ident.ident.to_string()),
        _ => None,
    }
}

/// `let r = m[i];`, `m[i].clone()` or `m[i].to_vec()` of an array of rows `m` among
/// `rows`.
fn is_row_copy(local: &syn::Local, rows: &HashSet<String>) -> bool {
    let Some(init) = &local.init else {
        return false;
    };
    let row = match strip_parens(&init.expr) {
        Expr::MethodCall(call)
            if call.args.is_empty()
                && matches!(call.method.to_string().as_str(), "clone" | "to_vec") =>
        {
            strip_parens(&call.receiver)
        }
        other => other,
    };
    matches!(row, Expr::Index(index)
        if single_ident(strip_parens(&index.expr)).is_some_and(|m| rows.contains(&m.to_string())))
}

/// What one step of an iterator chain yields.
#[derive(Clone)]
enum Item {
    /// An element `array[k]`: by reference (`iter`), by value (`copied`), or mutable
    /// (`iter_mut`, a place).
    Elem {
        array: Ident,
        by_ref: bool,
        mutable: bool,
    },
    /// A position (`enumerate`).
    Position(TokenStream),
    /// An element of a constant array parameter a `zip` pairs the items with (`zip(labels)`
    /// of `labels: &[bool]`): `&array[k]` where the iterator gives references (`by_ref`),
    /// `array[k]` where it gives values (an owned array's `into_iter`), bound to the user's
    /// pattern as it is (no `*name` rewritten: the name holds what the iterator gives).
    Constant {
        array: Ident,
        by_ref: bool,
    },
    Tuple(Vec<Item>),
    /// A value a `map` in the middle of the chain computed (`x.iter().map(f).zip(y)`), in
    /// the named local as the iteration starts ([`Step::Map`]).
    Value(Ident),
    /// The item of a reversed side of a `zip` (`x.iter().zip(y.iter().rev())`, or
    /// `x.iter().rev().zip(y)`), read at the other end of its own arrays: the `k`-th pair
    /// takes that side's element `len - 1 - k`, `len` (the tokens) the side's own length,
    /// so the shorter side still bounds the pairs, as `zip` does ([`Rewriter::read_from_the_end`]).
    FromEnd(Box<Item>, TokenStream),
}

/// What each iteration runs, in the chain's order, before the item is bound: the
/// per-item work of the adapters that are not the last `map`.
#[derive(Clone)]
enum Step {
    /// `.filter(|pat| test)` on the item it tests (a reference to it is the closure's
    /// argument): the `continue` it stands for; or a `take_while`'s `break`, or a
    /// `skip_while`'s `continue` while its flag says the items are still skipped.
    Filter(syn::ExprClosure, Item, Pass),
    /// `.map(|pat| e)` followed by more adapters (`zip`, `filter`, `enumerate`) on the
    /// item it maps: `let out = { pat bound; e };`, the next adapters reading
    /// [`Item::Value`] `out`. The iterators evaluate `e` once per item that reaches it, in
    /// the chain's order (the left side of a `zip` before its right side, only for the
    /// pairs it yields), exactly as the loop does.
    /// A map whose body ends in a tuple literal (`|v| (v.cos(), v.sin())`) has a local
    /// per part (a tuple of differentiable values is no value lowering binds), its item a
    /// tuple of them.
    Map(syn::ExprClosure, Item, Vec<Ident>),
}

/// What an item failing (or, for `skip_while`, passing) a [`Step::Filter`]'s test does.
#[derive(Clone)]
enum Pass {
    /// `filter`: the item is left out (`continue`).
    Filter,
    /// `take_while`: the iterator ends (`break`): no later item is tested or read.
    TakeWhile,
    /// `skip_while`: items are left out while the test holds, up to the first that fails
    /// it (the flag, `true` before the loop, turned `false` there); none is tested after.
    SkipWhile(Ident),
}

/// A chain of iterator adapters over arrays, all read at one index.
struct Chain {
    /// The arrays read (their lengths bound the loop).
    arrays: Vec<Ident>,
    item: Item,
    reversed: bool,
    /// A trailing `.map(|pat| e)`.
    map: Option<syn::ExprClosure>,
    /// The filters and the maps followed by more adapters, in order: each iteration's
    /// work before the item is bound.
    steps: Vec<Step>,
    /// `skip`/`take`/`step_by` after an `enumerate`, a `zip` or a `rev` (which `Parts`
    /// cannot take as a part of one array), counting the chain's items, and a `rev` after
    /// them: positions are counted before them.
    counted: Vec<Counted>,
    /// The element index the items are read at: the loop counter `gradtape_k`, or with
    /// `counted` adapters a local computed from it as each iteration starts.
    index: Ident,
}

struct Rewriter<'c> {
    /// For the errors only the desugaring can see (a row by value of an array the loop
    /// writes).
    cx: &'c Ctxt,
    arrays: HashSet<String>,
    /// The arrays of rows among `arrays`: an item of one is a row, named by its place.
    rows: HashSet<String>,
    /// The arrays of rows of one fixed width among `rows` (not ragged): two of their rows
    /// are exchanged element by element.
    fixed_rows: HashSet<String>,
    /// The rows the chain being bound yields, by reference: each name stands for a
    /// reference to its place, `(&m[k])`, in the body (`row[j]` is `m[k][j]`, which
    /// lowering differentiates, and `dot(row, x)` passes the row `&m[k]`).
    aliases: Vec<(String, Expr)>,
    next: usize,
    /// The windows and chunks of the loops being rewritten: a name standing for
    /// `array[offset..offset + len]`.
    views: Vec<View>,
    /// Sources the form being rewritten takes that are no names: fields (`self.w.iter()`,
    /// `zip(&model.bias)`) and array literals (`[h0, h1].iter()`), each a fresh name bound
    /// (`let name = &self.w;`, `let name = [h0, h1];`) in a block around the rewritten
    /// form, which reads `name[k]` and `name.len()`.
    fields: Vec<(Ident, Expr)>,
    /// The element index `bind` reads items at while a chain with `counted` adapters is
    /// bound (else the loop counter).
    counted_index: Option<Ident>,
    /// The rewrites of `*name` `adapted_bind` found for a loop's pattern.
    adapted_derefs: Vec<(String, Expr)>,
    /// The constant array parameters (`labels: &[bool]`, `ids: Vec<usize>`) the body never
    /// binds again, by name, with whether the parameter is a reference: a `zip` may pair
    /// a chain's items with their elements ([`Item::Constant`]).
    constants: HashMap<String, bool>,
}

/// A window or chunk `name` of `array`: its element `j` is `array[offset + j]`, `offset`
/// a `usize` local bound as each iteration starts.
struct View {
    name: String,
    array: Ident,
    offset: Ident,
    len: TokenStream,
    /// A row of an array of rows (`for row in m`): `offset` is the row's index, and
    /// element `j` is `array[offset][j]`.
    row: bool,
    /// A part taken by `step_by(s)`: element `j` is `array[offset + j * s]`, `s` a
    /// `usize` local.
    stride: Option<Ident>,
}

impl Rewriter<'_> {
    fn fresh(&mut self, stem: &str) -> Ident {
        self.next += 1;
        crate::syntax::fresh_local(format!("{stem}{}", self.next))
    }

    fn array(&mut self, expr: &Expr) -> Option<Ident> {
        let expr = strip_parens(expr);
        if let Expr::Field(field) = expr {
            return self.field_source(field);
        }
        if let Expr::Array(_) = expr {
            // a local array like any other once bound (its elements evaluated where the
            // iterator would evaluate them: as the rewritten form starts)
            let name = self.fresh("elements");
            self.fields.push((name.clone(), expr.clone()));
            return Some(name);
        }
        if let Expr::Index(index) = expr {
            return self.indexed_row(index);
        }
        let ident = single_ident(expr)?;
        (self.arrays.contains(&ident.to_string())
            || self.view(ident).is_some()
            || constant_item(ident))
        .then(|| ident.clone())
    }

    /// A row of an array of rows picked by index as a source (`m[r].iter()`, `&w[r]` in a
    /// `zip`; a matrix-vector product's `w[r].iter().zip(x).map(|(a, b)| a * b).sum()`): a
    /// row view of `m` (element `j` is `m[row][j]`, as in [`rows_loop`](Self::rows_loop)),
    /// the index evaluated once into a fresh `usize` local bound where the rewritten form
    /// starts, where the iterator would evaluate it. The view lives while the form is
    /// rewritten ([`with_fields`](Self::with_fields) drops it).
    fn indexed_row(&mut self, index: &syn::ExprIndex) -> Option<Ident> {
        let array = single_ident(strip_parens(&index.expr))?;
        if !self.rows.contains(&array.to_string())
            || matches!(strip_parens(&index.index), Expr::Range(_))
        {
            return None;
        }
        let position = self.fresh("row");
        let at = &index.index;
        self.fields.push((position.clone(), syn::parse_quote!(#at)));
        let name = self.fresh("indexed_row");
        self.views.push(View {
            name: name.to_string(),
            array: array.clone(),
            offset: position.clone(),
            len: quote!(#array[#position].len()),
            row: true,
            stride: None,
        });
        Some(name)
    }

    /// A field as a source (`self.w`, `model.layer.bias`): read as constants, since a
    /// struct is data in scalar mode (its fields get no shadow) and a differentiable
    /// value cannot be stored in one (lowering's error). Rewritten over a fresh name bound
    /// to the field by reference, so the loop reads it as it reads an array. The root must
    /// be a name that is no array or view of the body (a field of one is no array).
    fn field_source(&mut self, field: &syn::ExprField) -> Option<Ident> {
        let mut root = &*field.base;
        while let Expr::Field(inner) = strip_parens(root) {
            root = &inner.base;
        }
        let root = single_ident(strip_parens(root))?;
        if self.arrays.contains(&root.to_string()) || self.view(root).is_some() {
            return None;
        }
        let name = self.fresh("field");
        self.fields.push((name.clone(), syn::parse_quote!(&#field)));
        Some(name)
    }

    /// `rewrite`'s result, in a block binding the fields and literals it took as sources
    /// (if any); those a failed attempt took are forgotten.
    fn with_fields(&mut self, rewrite: impl FnOnce(&mut Self) -> Option<Expr>) -> Option<Expr> {
        let (taken, viewed) = (self.fields.len(), self.views.len());
        let rewritten = rewrite(self);
        let fields = self.fields.split_off(taken);
        // the views of indexed rows the form took (`indexed_row`); any other view a
        // rewrite pushes it pops itself
        self.views.truncate(viewed);
        let rewritten = rewritten?;
        if fields.is_empty() {
            return Some(rewritten);
        }
        let (names, values): (Vec<Ident>, Vec<Expr>) = fields.into_iter().unzip();
        Some(syn::parse_quote!({
            #(let #names = #values;)*
            #rewritten
        }))
    }

    fn view(&self, name: &Ident) -> Option<&View> {
        self.views.iter().rev().find(|v| name == &v.name)
    }

    /// Element `k` of an array or a view.
    fn place(&self, name: &Ident, k: &Ident) -> TokenStream {
        match self.view(name) {
            Some(View {
                array,
                offset,
                row: true,
                ..
            }) => quote!(#array[#offset][#k]),
            Some(View {
                array,
                offset,
                stride: Some(stride),
                ..
            }) => quote!(#array[#offset + #k * #stride]),
            Some(View { array, offset, .. }) => quote!(#array[#offset + #k]),
            None => quote!(#name[#k]),
        }
    }

    /// Element accesses written through methods, on a float array of the body: `a.first()`
    /// or `a.last()` then `.unwrap()` (or `.copied().unwrap()`, and `*` before it) is the
    /// element `a[0]` or `a[a.len() - 1]` (an empty array panics either way, by index
    /// rather than by `unwrap`); `a.swap(i, j)` is the exchange of two elements through a
    /// temporary, each index evaluated once, as `swap` evaluates them (on rows, `m.swap(i,
    /// j)`, the exchange of the two rows' elements one at a time).
    fn element_access(&mut self, expr: &Expr) -> Option<Expr> {
        let unwrapped = |expr: &Expr| -> Option<(Ident, bool)> {
            let Expr::MethodCall(unwrap) = strip_parens(expr) else {
                return None;
            };
            if unwrap.method != "unwrap" || !unwrap.args.is_empty() {
                return None;
            }
            let mut inner = strip_parens(&unwrap.receiver);
            if let Expr::MethodCall(copied) = inner
                && matches!(copied.method.to_string().as_str(), "copied" | "cloned")
                && copied.args.is_empty()
            {
                inner = strip_parens(&copied.receiver);
            }
            let Expr::MethodCall(end) = inner else {
                return None;
            };
            let first = match end.method.to_string().as_str() {
                "first" => true,
                "last" => false,
                _ => return None,
            };
            let array = single_ident(strip_parens(&end.receiver))?;
            (end.args.is_empty() && self.arrays.contains(&array.to_string()))
                .then(|| (array.clone(), first))
        };
        let element = |(array, first): (Ident, bool)| -> Expr {
            if first {
                syn::parse_quote!(#array[0])
            } else {
                syn::parse_quote!(#array[#array.len() - 1])
            }
        };
        match strip_parens(expr) {
            Expr::Unary(deref) if matches!(deref.op, syn::UnOp::Deref(_)) => {
                unwrapped(&deref.expr).map(element)
            }
            Expr::MethodCall(swap)
                if swap.method == "swap"
                    && swap.args.len() == 2
                    && single_ident(strip_parens(&swap.receiver))
                        .is_some_and(|a| self.arrays.contains(&a.to_string())) =>
            {
                let array = &swap.receiver;
                let (i, j) = (&swap.args[0], &swap.args[1]);
                let (a, b, t) = (
                    self.fresh("swap_i"),
                    self.fresh("swap_j"),
                    self.fresh("swap_t"),
                );
                let span = swap.method.span();
                if single_ident(strip_parens(array))
                    .is_some_and(|name| self.fixed_rows.contains(&name.to_string()))
                {
                    // rows of one width: element by element, as lowering differentiates an
                    // array of rows (a row is no value it copies whole). Not ragged rows,
                    // whose swap exchanges their lengths too: those stay a row moved
                    // whole, which lowering rejects at this `swap`.
                    let k = self.fresh("swap_k");
                    return Some(syn::parse_quote_spanned!(span=> {
                        let (#a, #b): (usize, usize) = (#i, #j);
                        for #k in 0..#array[#a].len() {
                            let #t = #array[#a][#k];
                            #array[#a][#k] = #array[#b][#k];
                            #array[#b][#k] = #t;
                        }
                    }));
                }
                Some(syn::parse_quote_spanned!(span=> {
                    let (#a, #b): (usize, usize) = (#i, #j);
                    let #t = #array[#a];
                    #array[#a] = #array[#b];
                    #array[#b] = #t;
                }))
            }
            other => unwrapped(other).map(element),
        }
    }

    /// `if let Some(v) = a.first() { then } else { other }` on a float array of the body
    /// (also `a.last()`, `a.get(i)`, and `Some(&v)`): the same program with the element
    /// read by index, `if 0 < a.len() { let v = &a[0]; then } else { other }` (`&v`:
    /// `let v = a[0];`), `get`'s index evaluated once, before the test, as the call
    /// evaluates it. Any other pattern is left as written (the lowering's to judge).
    fn element_if_let(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::If(branch) = expr else {
            return None;
        };
        let Expr::Let(test) = &*branch.cond else {
            return None;
        };
        let (array, at, copied) = self.element_call(&test.expr)?;
        let index = self.fresh("element_index");
        let binding = element_binding(&test.pat, &quote!(#array[#index]), copied)?;
        Some(element_if(
            branch,
            &index,
            &at,
            &quote!(#array.len()),
            &binding,
        ))
    }

    /// `match a.first() { Some(v) if guard => .., Some(v) => .., None => .. }` (also
    /// `last()`, `get(i)`, `Some(&v)`, `_`): the same test of the index as
    /// [`Self::element_if_let`], then the arms in their order as an `if` chain on each
    /// side of it: where the element exists, the `Some` arms and `_`; where it does not,
    /// `None` and `_`. A guard sees the arm's binding in a block of its own, so a later
    /// arm never sees an earlier arm's names. Left as written when a side's chain does not
    /// end in an arm without a guard (rustc's exhaustiveness then speaks) or an arm's
    /// pattern is anything else.
    fn element_match(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::Match(matched) = expr else {
            return None;
        };
        let (array, at, copied) = self.element_call(&matched.expr)?;
        let index = self.fresh("element_index");
        // Each side's arms, in order: (the binding, the guard, the body).
        let mut present: Vec<(Option<TokenStream>, Option<&Expr>, &Expr)> = Vec::new();
        let mut absent: Vec<(Option<TokenStream>, Option<&Expr>, &Expr)> = Vec::new();
        for arm in &matched.arms {
            let (pat, guard) = match &arm.pat {
                Pat::Guard(guarded) => (&*guarded.pat, Some(&*guarded.guard)),
                pat => (pat, None),
            };
            match pat {
                Pat::Wild(_) => {
                    present.push((None, guard, &arm.body));
                    absent.push((None, guard, &arm.body));
                }
                Pat::Ident(none) if none.ident == "None" && none.subpat.is_none() => {
                    absent.push((None, guard, &arm.body));
                }
                Pat::Path(none) if none.path.is_ident("None") => {
                    absent.push((None, guard, &arm.body))
                }
                pat => present.push((
                    Some(element_binding(pat, &quote!(#array[#index]), copied)?),
                    guard,
                    &arm.body,
                )),
            }
        }
        let chain = |arms: &[(Option<TokenStream>, Option<&Expr>, &Expr)]| -> Option<TokenStream> {
            // The arms after the first without a guard are never reached on this side.
            let reached = arms
                .iter()
                .position(|(_, guard, _)| guard.is_none())
                .map_or(arms, |last| &arms[..=last]);
            let mut chain: Option<TokenStream> = None;
            for (binding, guard, body) in reached.iter().rev() {
                chain = Some(match (guard, chain) {
                    (None, _) => quote!({ #binding #body }),
                    (Some(guard), Some(rest)) => {
                        quote!(if { #binding #guard } { #binding #body } else { #rest })
                    }
                    (Some(_), None) => return None,
                });
            }
            chain
        };
        let (when_present, when_absent) = (chain(&present)?, chain(&absent)?);
        Some(syn::parse_quote!({
            let #index: usize = #at;
            if #index < #array.len() { #when_present } else { #when_absent }
        }))
    }

    /// `a.first()`, `a.last()` or `a.get(i)` on a float array of the body, or its
    /// `.copied()`/`.cloned()`: the array, the index the call reads, and whether the
    /// option holds a copy of the element (else a reference to it).
    fn element_call(&self, expr: &Expr) -> Option<(Ident, Expr, bool)> {
        if let Expr::MethodCall(copy) = strip_parens(expr)
            && matches!(copy.method.to_string().as_str(), "copied" | "cloned")
            && copy.args.is_empty()
            && let Some((array, at, false)) = self.element_call(&copy.receiver)
        {
            return Some((array, at, true));
        }
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let array = single_ident(strip_parens(&call.receiver))?.clone();
        if !self.arrays.contains(&array.to_string()) {
            return None;
        }
        let at: Expr = match (call.method.to_string().as_str(), call.args.len()) {
            ("first", 0) => syn::parse_quote!(0),
            ("last", 0) => syn::parse_quote!(#array.len().wrapping_sub(1)),
            ("get", 1) => {
                let i = &call.args[0];
                syn::parse_quote!(#i)
            }
            _ => return None,
        };
        Some((array, at, false))
    }

    /// The loop's length: the shortest array's (or view's).
    fn length(&self, names: &[Ident]) -> TokenStream {
        let len = |name: &Ident| match self.view(name) {
            Some(view) => {
                let len = &view.len;
                quote!((#len))
            }
            None => quote!(#name.len()),
        };
        let (first, rest) = names.split_first().expect("a source");
        let mut n = len(first);
        for name in rest {
            let other = len(name);
            n = quote!(#n.min(#other));
        }
        n
    }

    /// `for w in a.windows(size)` / `a.chunks(size)`: the loop over offsets, with `w` a
    /// view of `a` in its body (`w[j]`, `w.len()` and iterator forms over `w` read `a`).
    /// Also zipped with the views of another array (`for (x, y) in a.windows(2).zip(b.windows(2))`,
    /// each its own view) or with a float array's elements (`.zip(w)`, `.zip(&w)`,
    /// `.zip(w.iter())`: the element a reference, `let q = &w[k];`, or a copy for `&q`), for
    /// as many trips as the shorter gives (as `zip` does), and enumerated last (`(i, w)`,
    /// `(i, (w, q))`: the trip's index).
    fn views_loop(&mut self, for_loop: &mut syn::ExprForLoop) -> Option<Expr> {
        let mut source = strip_parens(&for_loop.expr);
        let mut pat = &*for_loop.pat;
        // `.enumerate()` last: the trip's index, the pattern's first part
        let mut index_pat = None;
        if let Expr::MethodCall(call) = source
            && call.method == "enumerate"
            && call.args.is_empty()
        {
            let Pat::Tuple(pair) = pat else {
                return None;
            };
            let [index, rest] = &pair.elems.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            if !matches!(index, Pat::Ident(_) | Pat::Wild(_)) {
                return None;
            }
            index_pat = Some(*index);
            pat = rest;
            source = strip_parens(&call.receiver);
        }
        // `.zip(other)`: another array's views, or a float array's elements
        let mut partner = None;
        if let Expr::MethodCall(call) = source
            && call.method == "zip"
            && call.args.len() == 1
        {
            let Pat::Tuple(pair) = pat else {
                return None;
            };
            let [first, second] = &pair.elems.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            partner = Some((&call.args[0], *second));
            pat = first;
            source = strip_parens(&call.receiver);
        }
        let (array, method, size) = self.views_of(source)?;
        let Pat::Ident(pat) = pat else {
            return None;
        };
        let k = index_var();
        let offset = self.fresh("offset");
        let (count, start, len) = view_shape(&method, &array, size, &k, &offset);
        let mut views = vec![(
            View {
                name: pat.ident.to_string(),
                array: array.clone(),
                offset,
                len,
                row: false,
                stride: None,
            },
            start,
        )];
        let mut counts = vec![count];
        let mut bindings = Vec::new();
        if let Some(index) = index_pat
            && let Pat::Ident(index) = index
        {
            bindings.push(quote!(let #index: usize = #k;));
        }
        match partner {
            None => {}
            Some((other, other_pat)) => {
                if let Some((other_array, other_method, other_size)) = self.views_of(other) {
                    let Pat::Ident(other_pat) = other_pat else {
                        return None;
                    };
                    let other_offset = self.fresh("offset");
                    let (count, start, len) =
                        view_shape(&other_method, &other_array, other_size, &k, &other_offset);
                    counts.push(count);
                    views.push((
                        View {
                            name: other_pat.ident.to_string(),
                            array: other_array,
                            offset: other_offset,
                            len,
                            row: false,
                            stride: None,
                        },
                        start,
                    ));
                } else {
                    // a float array's element: a reference to it, as the zip's item is
                    let elements = match strip_parens(other) {
                        Expr::Reference(reference) if reference.mutability.is_none() => {
                            &*reference.expr
                        }
                        Expr::MethodCall(iter) if iter.method == "iter" && iter.args.is_empty() => {
                            &*iter.receiver
                        }
                        other => other,
                    };
                    let elements = single_ident(strip_parens(elements))?.clone();
                    if !self.arrays.contains(&elements.to_string()) {
                        return None;
                    }
                    let place = quote!(#elements[#k]);
                    let binding = match other_pat {
                        Pat::Wild(_) => TokenStream::new(),
                        // the zip's item is a reference to the element
                        pat => item_binding(pat, &place, false)?,
                    };
                    counts.push(quote!(#elements.len()));
                    bindings.push(binding);
                }
            }
        }
        let mut body = for_loop.body.clone();
        // `w[j]` and `w.len()` first, then the iterator forms over `w`.
        for (view, _) in &views {
            ViewReads(view).visit_block_mut(&mut body);
        }
        let offsets: Vec<TokenStream> = views
            .iter()
            .map(|(view, start)| {
                let offset = &view.offset;
                quote!(let #offset: usize = #start;)
            })
            .collect();
        let pushed = views.len();
        self.views.extend(views.into_iter().map(|(view, _)| view));
        self.visit_block_mut(&mut body);
        self.views.truncate(self.views.len() - pushed);
        let stmts = &body.stmts;
        let label = &for_loop.label;
        // as many trips as the shortest source gives
        let count = counts
            .into_iter()
            .reduce(|a, b| quote!(::core::cmp::min(#a, #b)))
            .expect("the views' count");
        Some(syn::parse_quote!(#label for #k in 0..#count {
            #(#offsets)*
            #(#bindings)*
            #(#stmts)*
        }))
    }

    /// `a.windows(size)` (or `chunks`, `chunks_exact`) of a float array of the body: the
    /// array, the method and the size.
    fn views_of(&self, expr: &Expr) -> Option<(Ident, String, Expr)> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let method = call.method.to_string();
        if !matches!(method.as_str(), "windows" | "chunks" | "chunks_exact") || call.args.len() != 1
        {
            return None;
        }
        let array = single_ident(strip_parens(&call.receiver))?.clone();
        if !self.arrays.contains(&array.to_string()) {
            return None;
        }
        Some((array, method, call.args[0].clone()))
    }

    /// `for row in m` (or `&m`, `m.iter()`, `m.iter_mut()`, with `.enumerate()`,
    /// `.zip(..)`, `.rev()`) over an array of rows `m`: each row the pattern names becomes
    /// a *row view* in the body, its index `let rowN: usize = gradtape_k;` taken as each
    /// iteration starts, so that `row[j]`, `row.len()` and the iterator forms over `row`
    /// (`row.iter().zip(w)`, `.map(..).sum()`, `for x in row`) read `m[rowN][j]`, and
    /// `row` elsewhere (`dot(row, x)`) is `(&m[rowN])`. The row's name is then `_` in the
    /// pattern, and the loop is desugared as any other. Exact because the body cannot
    /// write `m` while a row of it is borrowed; a row by value (`for row in m` of an owned
    /// array) is read so only when the body never names `m` and does not declare the
    /// row `mut` (else the macro's error).
    fn rows_loop(&mut self, for_loop: &mut syn::ExprForLoop) -> Option<Expr> {
        let chain = self.chain(&for_loop.expr, true)?;
        if chain.map.is_some() || !chain.steps.is_empty() || !chain.counted.is_empty() {
            return None;
        }
        let mut pat = (*for_loop.pat).clone();
        let mut rows = Vec::new();
        self.row_names(&mut pat, &chain.item, &for_loop.body, &mut rows);
        if rows.is_empty() {
            return None;
        }
        let body = self.row_views(&rows, &for_loop.body)?;
        *for_loop.pat = pat;
        for_loop.body = body;
        self.for_loop(for_loop)
    }

    /// `chain.map(|row| e).sum()` (or `.product()`, `.fold(init, f)`) over an array of
    /// rows: the rows the closure's pattern names are row views in `e`, as in
    /// [`rows_loop`](Self::rows_loop), then the reduction is desugared as any other.
    fn rows_reduction(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let chain = self.chain(&call.receiver, false)?;
        if !chain.steps.is_empty() || !chain.counted.is_empty() {
            return None;
        }
        let closure = chain.map.as_ref()?;
        let mut pat = closure.inputs[0].clone();
        let body = &closure.body;
        let body: syn::Block = syn::parse_quote!({ #body });
        let mut rows = Vec::new();
        self.row_names(&mut pat, &chain.item, &body, &mut rows);
        if rows.is_empty() {
            return None;
        }
        let body = self.row_views(&rows, &body)?;
        let mut call = call.clone();
        let Expr::MethodCall(map) = &mut *call.receiver else {
            return None;
        };
        let Expr::Closure(closure) = &mut map.args[0] else {
            return None;
        };
        closure.inputs[0] = pat;
        *closure.body = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: body,
        });
        self.reduction(&call)
    }

    /// `body` with each of `rows` (name, array, mutable) a row view: its index taken
    /// first (`let rowN: usize = gradtape_k;`), `row[j]` and `row.len()` read through it,
    /// the iterator forms over it desugared, and `row` elsewhere `(&m[rowN])`.
    fn row_views(
        &mut self,
        rows: &[(Ident, Ident, bool)],
        body: &syn::Block,
    ) -> Option<syn::Block> {
        let mut body = body.clone();
        let mut starts = Vec::new();
        let mut aliases = Vec::new();
        for (name, array, mutable) in rows {
            let index = self.fresh("row");
            let k = index_var();
            starts.push(quote!(let #index: usize = #k;));
            let view = View {
                name: name.to_string(),
                array: array.clone(),
                offset: index.clone(),
                len: quote!(#array[#index].len()),
                row: true,
                stride: None,
            };
            ViewReads(&view).visit_block_mut(&mut body);
            let place = if *mutable {
                quote!((&mut #array[#index]))
            } else {
                quote!((&#array[#index]))
            };
            aliases.push((name.to_string(), syn::parse2(place).ok()?));
            self.views.push(view);
        }
        self.visit_block_mut(&mut body);
        for _ in rows {
            self.views.pop();
        }
        Aliases(&aliases).visit_block_mut(&mut body);
        let stmts = &body.stmts;
        Some(syn::parse_quote!({ #(#starts)* #(#stmts)* }))
    }

    /// The names `pat` binds to rows of an array of rows in `item` (replaced by `_` in
    /// `pat`), with the array and whether the row is mutable.
    fn row_names(
        &self,
        pat: &mut Pat,
        item: &Item,
        body: &syn::Block,
        out: &mut Vec<(Ident, Ident, bool)>,
    ) {
        match (pat, item) {
            (Pat::Type(typed), _) => self.row_names(&mut typed.pat, item, body, out),
            (Pat::Paren(paren), _) => self.row_names(&mut paren.pat, item, body, out),
            (
                pat @ Pat::Ident(_),
                Item::Elem {
                    array,
                    by_ref,
                    mutable,
                },
            ) if self.rows.contains(&array.to_string()) && self.view(array).is_none() => {
                let Pat::Ident(ident) = &*pat else {
                    unreachable!("matched")
                };
                if ident.by_ref.is_some() || ident.subpat.is_some() {
                    return;
                }
                // a row by value: only where reading `m[k]` later is the same value
                // (reported, then read as a view all the same: no follow-on errors)
                if !*by_ref && (ident.mutability.is_some() || names(body, array)) {
                    validate::row_by_value(self.cx, &ident.ident, array);
                }
                out.push((ident.ident.clone(), array.clone(), *mutable));
                *pat = syn::parse_quote!(_);
            }
            (Pat::Tuple(tuple), Item::Tuple(items)) if tuple.elems.len() == items.len() => {
                for (pat, item) in tuple.elems.iter_mut().zip(items) {
                    self.row_names(pat, item, body, out);
                }
            }
            _ => {}
        }
    }

    /// A constant array parameter as a `zip`'s argument: `labels`, `&labels`,
    /// `labels.iter()` (elements by reference; `labels` by value where the parameter is
    /// owned, as its `into_iter` gives them).
    fn constant_partner(&self, expr: &Expr) -> Option<Item> {
        let (name, by_ref) = match strip_parens(expr) {
            Expr::MethodCall(call) if call.args.is_empty() && call.method == "iter" => {
                (single_ident(strip_parens(&call.receiver))?, true)
            }
            Expr::Reference(reference) if reference.mutability.is_none() => {
                (single_ident(strip_parens(&reference.expr))?, true)
            }
            other => {
                let name = single_ident(other)?;
                (name, *self.constants.get(&name.to_string())?)
            }
        };
        if self.arrays.contains(&name.to_string())
            || !self.constants.contains_key(&name.to_string())
        {
            return None;
        }
        Some(Item::Constant {
            array: name.clone(),
            by_ref,
        })
    }

    /// A source: `a.iter()`, `a.iter_mut()`, `a.into_iter()`, `&a`, `&mut a`, and `a`
    /// itself where `bare` allows (a `for` loop's or a `zip`'s argument).
    fn source(&mut self, expr: &Expr, bare: bool) -> Option<Item> {
        match strip_parens(expr) {
            Expr::MethodCall(call) if call.args.is_empty() => {
                let array = self.array(&call.receiver)?;
                let (by_ref, mutable) = match call.method.to_string().as_str() {
                    "iter" => (true, false),
                    "iter_mut" => (true, true),
                    "into_iter" => (false, false),
                    _ => return None,
                };
                Some(Item::Elem {
                    array,
                    by_ref,
                    mutable,
                })
            }
            Expr::Reference(reference) if bare => Some(Item::Elem {
                array: self.array(&reference.expr)?,
                by_ref: true,
                mutable: reference.mutability.is_some(),
            }),
            other if bare => Some(Item::Elem {
                array: self.array(other)?,
                by_ref: false,
                mutable: false,
            }),
            _ => None,
        }
    }

    fn chain(&mut self, expr: &Expr, bare: bool) -> Option<Chain> {
        // a chain counting its items after an `enumerate`/`zip`/`rev` reads them at an
        // index of its own (the loop counter counts the items left)
        let index = if counts_items(expr) {
            self.fresh("index")
        } else {
            index_var()
        };
        self.chain_at(expr, bare, &index)
    }

    fn chain_at(&mut self, expr: &Expr, bare: bool, index: &Ident) -> Option<Chain> {
        if let Some(item) = self.source(expr, bare) {
            let Item::Elem { array, .. } = &item else {
                unreachable!("a source is an element")
            };
            return Some(Chain {
                arrays: vec![array.clone()],
                item,
                reversed: false,
                map: None,
                steps: Vec::new(),
                counted: Vec::new(),
                index: index.clone(),
            });
        }
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let mut chain = self.chain_at(&call.receiver, false, index)?;
        let method = call.method.to_string();
        if chain.map.is_some() {
            // After a `map`, a reduction, or an adapter that takes every mapped item in
            // turn: the map then runs as each iteration starts. Not one that would skip
            // or reorder items (`rev`, `skip`, `take`, `step_by`: whether the map runs on
            // the items they pass over is the adapters' own business), rejected as written.
            if !matches!(method.as_str(), "zip" | "filter" | "enumerate" | "map") {
                return None;
            }
            self.map_step(&mut chain)?;
        }
        // after a filter, only more filters, `copied` and the map or the consumer: any
        // other adapter would count or pair the items left (rejected as written)
        if chain
            .steps
            .iter()
            .any(|step| matches!(step, Step::Filter(..)))
            && !matches!(
                method.as_str(),
                "filter" | "take_while" | "skip_while" | "copied" | "cloned" | "map"
            )
        {
            return None;
        }
        // after a map that is no longer the last, nothing that skips or reorders items
        if chain.steps.iter().any(|step| matches!(step, Step::Map(..)))
            && matches!(
                method.as_str(),
                "rev" | "skip" | "take" | "step_by" | "copied" | "cloned"
            )
        {
            return None;
        }
        // after `skip`/`take`/`step_by` of positions or pairs, no adapter that would
        // count them again from their own start; a `rev` reverses the items they left
        // (`Counted::Rev`), each still read at its element index
        if !chain.counted.is_empty() && matches!(method.as_str(), "enumerate" | "zip") {
            return None;
        }
        match (method.as_str(), call.args.len()) {
            ("copied" | "cloned", 0) => chain.item = by_value(chain.item),
            ("rev", 0) if !chain.counted.is_empty() => {
                if !chain.steps.is_empty() {
                    return None;
                }
                chain.counted.push(Counted::Rev);
            }
            ("rev", 0) => chain.reversed = !chain.reversed,
            ("filter" | "take_while" | "skip_while", 1) => match strip_parens(&call.args[0]) {
                Expr::Closure(closure) if closure.inputs.len() == 1 => {
                    let pass = match method.as_str() {
                        "filter" => Pass::Filter,
                        "take_while" => Pass::TakeWhile,
                        _ => Pass::SkipWhile(self.fresh("skipping")),
                    };
                    chain
                        .steps
                        .push(Step::Filter(closure.clone(), chain.item.clone(), pass))
                }
                _ => return None,
            },
            ("skip" | "take" | "step_by", 1) => {
                let arg = &call.args[0];
                chain.counted.push(Counted::By(match method.as_str() {
                    "skip" => Strided::Skip(quote!(#arg)),
                    "take" => Strided::Take(quote!(#arg)),
                    _ => Strided::StepBy(quote!(#arg)),
                }));
            }
            ("enumerate", 0) => {
                let n = self.length(&chain.arrays);
                let k = index.clone();
                let position = if chain.reversed {
                    quote!((#n - 1 - #k))
                } else {
                    quote!(#k)
                };
                chain.item = Item::Tuple(vec![Item::Position(position), chain.item]);
            }
            ("zip", 1) => {
                if chain.reversed {
                    // the left side's items counted from its own end: the pairs then
                    // run forwards, and the shorter side bounds them
                    self.read_from_the_end(&mut chain, true)?;
                }
                if let Some(other) = self.source(&call.args[0], true) {
                    let Item::Elem { array, .. } = &other else {
                        return None;
                    };
                    chain.arrays.push(array.clone());
                    chain.item = Item::Tuple(vec![chain.item, other]);
                } else if let Some(other) = self.constant_partner(&call.args[0]) {
                    let Item::Constant { array, .. } = &other else {
                        return None;
                    };
                    chain.arrays.push(array.clone());
                    chain.item = Item::Tuple(vec![chain.item, other]);
                } else {
                    let other = self.zipped_chain(&call.args[0], index)?;
                    chain.arrays.extend(other.arrays);
                    chain.steps.extend(other.steps);
                    chain.item = Item::Tuple(vec![chain.item, other.item]);
                }
            }
            ("map", 1) => match strip_parens(&call.args[0]) {
                Expr::Closure(closure) if closure.inputs.len() == 1 => {
                    chain.map = Some(closure.clone())
                }
                _ => return None,
            },
            _ => return None,
        }
        Some(chain)
    }

    /// The trailing map of `chain` as a [`Step::Map`] (more adapters follow it), the item
    /// its value. `None` for a closure that would not run the same inlined: `move` (its
    /// captures its own copies), `async`, or leaving early (`return`, `?`).
    fn map_step(&mut self, chain: &mut Chain) -> Option<()> {
        let closure = chain.map.take()?;
        if closure.asyncness.is_some()
            || closure.capture.is_some()
            || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body))
        {
            return None;
        }
        let outs: Vec<Ident> = match tail_tuple_arity(&closure.body) {
            Some(arity) => (0..arity).map(|_| self.fresh("mapped")).collect(),
            None => vec![self.fresh("mapped")],
        };
        let item = match &outs[..] {
            [out] if tail_tuple_arity(&closure.body).is_none() => Item::Value(out.clone()),
            outs => Item::Tuple(outs.iter().cloned().map(Item::Value).collect()),
        };
        chain
            .steps
            .push(Step::Map(closure, chain.item.clone(), outs));
        chain.item = item;
        Some(())
    }

    /// A `zip`'s argument that is a chain of its own over arrays read at the same index
    /// (`y.iter().map(g)`, `b.iter().zip(c)`, `b.iter().enumerate()`): its maps are steps
    /// run after the left side's, as `Zip` takes the left item before the right one. A
    /// reversed one (`y.iter().rev()`) reads its own arrays from their end
    /// ([`Rewriter::read_from_the_end`]). Not one with a filter or a counting adapter
    /// (its items would not be read at the left's index).
    fn zipped_chain(&mut self, expr: &Expr, index: &Ident) -> Option<Chain> {
        let mut other = self.chain_at(expr, true, index)?;
        if !other.counted.is_empty()
            || other
                .steps
                .iter()
                .any(|step| matches!(step, Step::Filter(..)))
        {
            return None;
        }
        if other.map.is_some() {
            self.map_step(&mut other)?;
        }
        if other.reversed {
            self.read_from_the_end(&mut other, false)?;
        }
        Some(other)
    }

    /// A reversed chain (`x.iter().rev()`, `y.iter().rev().map(g)`) as one running
    /// forwards over its items counted from the end ([`Item::FromEnd`]), so that it can
    /// be a side of a `zip`: its `k`-th item is the element `len - 1 - k` of its own
    /// arrays, whatever the other side's length (the loop's `(0..n).rev()` would start at
    /// the shorter length's end instead). The items come in the same order and each map
    /// runs on the same items in the same order. `None` for a chain this cannot say
    /// exactly: positions taken (`enumerate`, counted from one end), filters or counted
    /// adapters (their items are no one element index), and, on the left side (`left`),
    /// a map that is not free of effects: when that side is the longer, `Zip` may run it
    /// once more on an item it then drops, or not, depending on the consumer.
    fn read_from_the_end(&mut self, chain: &mut Chain, left: bool) -> Option<()> {
        fn has_position(item: &Item) -> bool {
            match item {
                Item::Position(_) => true,
                Item::Tuple(items) => items.iter().any(has_position),
                Item::FromEnd(inner, _) => has_position(inner),
                _ => false,
            }
        }
        if !chain.counted.is_empty() || chain.map.is_some() || has_position(&chain.item) {
            return None;
        }
        let len = self.length(&chain.arrays);
        // each element read wrapped (a mapped value, already computed, reads nothing)
        fn wrap(item: Item, len: &TokenStream) -> Item {
            match item {
                Item::Tuple(items) => {
                    Item::Tuple(items.into_iter().map(|item| wrap(item, len)).collect())
                }
                Item::Value(_) => item,
                item => Item::FromEnd(Box::new(item), len.clone()),
            }
        }
        for step in &mut chain.steps {
            match step {
                Step::Filter(..) => return None,
                Step::Map(closure, item, _) => {
                    if has_position(item) || (left && !free_of_effects(&closure.body)) {
                        return None;
                    }
                    *item = wrap(item.clone(), &len);
                }
            }
        }
        chain.item = wrap(chain.item.clone(), &len);
        chain.reversed = false;
        Some(())
    }

    /// `let` statements binding `pat` to `item` (values first, into temporaries, so that
    /// a name the pattern binds cannot change what the other parts read), and the
    /// rewrites of `*name` in the body: to `name` (an element read by reference) or to
    /// the place `a[k]` (a mutable element).
    fn bind(
        &mut self,
        pat: &Pat,
        item: &Item,
        lets: &mut Vec<TokenStream>,
        binds: &mut Vec<TokenStream>,
        derefs: &mut Vec<(String, Expr)>,
    ) -> Option<()> {
        let k = self.counted_index.clone().unwrap_or_else(index_var);
        match (pat, item) {
            (pat, Item::Constant { array, by_ref }) => {
                let read = match by_ref {
                    true => quote!(&#array[#k]),
                    false => quote!(#array[#k]),
                };
                binds.push(quote!(let #pat = #read;));
                Some(())
            }
            (Pat::Type(typed), _) => self.bind(&typed.pat, item, lets, binds, derefs),
            (Pat::Wild(_), _) => Some(()),
            (Pat::Paren(paren), _) => self.bind(&paren.pat, item, lets, binds, derefs),
            (pat, Item::FromEnd(inner, len)) => {
                // the side's own index, bound first: every read of the inner item
                // (elements, rows, places written) is at it
                let at = self.fresh("from_end");
                lets.push(quote!(let #at: usize = #len - 1 - #k;));
                let outer = self.counted_index.replace(at);
                let bound = self.bind(pat, inner, lets, binds, derefs);
                self.counted_index = outer;
                bound
            }
            // `for &v in a.iter()`, and `for &v in a` of a slice parameter (whose elements
            // are references; for an owned array the user's own code does not compile)
            (Pat::Reference(reference), Item::Elem { array, .. })
                if reference.mutability.is_none() =>
            {
                let by_value = Item::Elem {
                    array: array.clone(),
                    by_ref: false,
                    mutable: false,
                };
                self.bind(&reference.pat, &by_value, lets, binds, derefs)
            }
            (
                Pat::Ident(ident),
                Item::Elem {
                    array,
                    by_ref,
                    mutable,
                },
            ) if ident.by_ref.is_none()
                && ident.subpat.is_none()
                && *by_ref
                && self.rows.contains(&array.to_string())
                && self.view(array).is_none() =>
            {
                // A row by reference: the body cannot write the array while it is
                // borrowed, so `m[k]` is the row's value wherever the name is read.
                let place = self.place(array, &k);
                let row = if *mutable {
                    quote!((&mut #place))
                } else {
                    quote!((&#place))
                };
                self.aliases
                    .push((ident.ident.to_string(), syn::parse2(row).ok()?));
                Some(())
            }
            (Pat::Ident(ident), Item::Elem { array, mutable, .. })
                if ident.by_ref.is_none() && ident.subpat.is_none() =>
            {
                let name = &ident.ident;
                let place = self.place(array, &k);
                if *mutable {
                    derefs.push((name.to_string(), syn::parse2(place).ok()?));
                    return Some(());
                }
                let temp = self.fresh("elem");
                lets.push(quote!(let #temp = #place;));
                let mutability = &ident.mutability;
                binds.push(quote!(let #mutability #name = #temp;));
                derefs.push((name.to_string(), syn::parse_quote!(#name)));
                Some(())
            }
            (Pat::Ident(ident), Item::Position(position))
                if ident.by_ref.is_none() && ident.subpat.is_none() =>
            {
                let name = &ident.ident;
                let mutability = &ident.mutability;
                binds.push(quote!(let #mutability #name: usize = #position;));
                Some(())
            }
            (Pat::Tuple(tuple), Item::Tuple(items)) if tuple.elems.len() == items.len() => {
                for (pat, item) in tuple.elems.iter().zip(items) {
                    self.bind(pat, item, lets, binds, derefs)?;
                }
                Some(())
            }
            // A mapped value: `*name` read as `name` (a map returning the reference it
            // was given, `|v| v`, is read as the value it refers to)
            (Pat::Ident(ident), Item::Value(value))
                if ident.by_ref.is_none() && ident.subpat.is_none() =>
            {
                let name = &ident.ident;
                let mutability = &ident.mutability;
                binds.push(quote!(let #mutability #name = #value;));
                derefs.push((name.to_string(), syn::parse_quote!(#name)));
                Some(())
            }
            // a tuple a map returned, taken apart as the closure's pattern does
            (Pat::Tuple(_), Item::Value(value)) => {
                binds.push(quote!(let #pat = #value;));
                Some(())
            }
            _ => None,
        }
    }

    /// The loop's range, the `let`s starting each iteration for `pat` over `chain`, and
    /// the rewrites of `*name` in the body.
    fn head(&mut self, pat: &Pat, chain: &Chain) -> Option<Head> {
        if !chain.counted.is_empty() || !chain.steps.is_empty() {
            return self.adapted_head(pat, chain);
        }
        let (mut lets, mut binds, mut derefs) = (Vec::new(), Vec::new(), Vec::new());
        self.bind(pat, &chain.item, &mut lets, &mut binds, &mut derefs)?;
        let n = self.length(&chain.arrays);
        let range = if chain.reversed {
            quote!((0..#n).rev())
        } else {
            quote!(0..#n)
        };
        Some(Head {
            setup: TokenStream::new(),
            range,
            lets: quote!(#(#lets)* #(#binds)*),
            derefs,
        })
    }

    /// `for pat in chain { body }` as an indexed loop.
    fn for_loop(&mut self, for_loop: &syn::ExprForLoop) -> Option<Expr> {
        let mut chain = self.chain(&for_loop.expr, true)?;
        if chain.map.is_some() {
            // `for s in x.iter().map(f)`: the loop takes each mapped item as it starts an
            // iteration, so the map is a value computed there, then bound to `pat`
            self.map_step(&mut chain)?;
        }
        let Head {
            setup,
            range,
            lets,
            derefs,
        } = self.head(&for_loop.pat, &chain)?;
        let k = index_var();
        let mut body = for_loop.body.clone();
        Derefs::block(&derefs, &mut body);
        Aliases(&std::mem::take(&mut self.aliases)).visit_block_mut(&mut body);
        let stmts = &body.stmts;
        let label = &for_loop.label;
        if setup.is_empty() {
            return Some(syn::parse_quote!(#label for #k in #range { #lets #(#stmts)* }));
        }
        Some(syn::parse_quote!({ #setup #label for #k in #range { #lets #(#stmts)* } }))
    }

    /// `chain.sum()`, `.product()`, `.fold(..)`, `.count()` as a block computing the
    /// accumulator.
    fn reduction(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let method = call.method.to_string();
        if let Some(rewritten) = range_reduction(call) {
            return Some(rewritten);
        }
        let chain = self.chain(&call.receiver, false)?;
        let acc = self.fresh("acc");
        // The item's value in the loop (the closure's body after its pattern's `let`s).
        let (pat, value): (Pat, Expr) = match &chain.map {
            Some(closure) => {
                let pat = closure.inputs[0].clone();
                (pat, (*closure.body).clone())
            }
            // a count reads no item
            None if method == "count" => (syn::parse_quote!(_), syn::parse_quote!(())),
            None => {
                let item = self.fresh("item");
                (syn::parse_quote!(#item), syn::parse_quote!(#item))
            }
        };
        let k = index_var();
        let (init, update): (TokenStream, TokenStream) = match (method.as_str(), call.args.len()) {
            ("sum" | "product", 0) => sum_or_product(call, &acc, &value),
            // an integer, a constant: each item counted where the iterator counts it, the
            // map's value (if any) computed and dropped as `Map::count` computes it
            ("count", 0) => match chain.map {
                Some(_) => (quote!(: usize = 0), quote!(let _ = #value; #acc += 1;)),
                None => (quote!(: usize = 0), quote!(#acc += 1;)),
            },
            ("fold", 2) => {
                let init = &call.args[0];
                match strip_parens(&call.args[1]) {
                    Expr::Closure(closure)
                        if closure.inputs.len() == 2
                            && matches!(strip_pat_type(&closure.inputs[0]), Pat::Tuple(_)) =>
                    {
                        return self.tuple_fold(&chain, init, closure);
                    }
                    Expr::Closure(closure) if closure.inputs.len() == 2 => {
                        let acc_pat = &closure.inputs[0];
                        let Pat::Ident(_) = strip_pat_type(acc_pat) else {
                            return None;
                        };
                        let acc_pat = strip_pat_type(acc_pat);
                        if let Some(map) = &chain.map {
                            // `.map(|p| e).fold(init, |acc, q| f)`: each item mapped, then
                            // folded, as the iterators run them (a function path as the
                            // fold's closure is one since `MapPaths`): `e` read with the
                            // chain's item bound to `p`, its value bound to `q` for `f`
                            let Head {
                                setup,
                                range,
                                lets,
                                derefs,
                            } = self.head(&map.inputs[0], &chain)?;
                            let mut mapped: Expr = (*map.body).clone();
                            Derefs::expr(&derefs, &mut mapped);
                            Aliases(&std::mem::take(&mut self.aliases)).visit_expr_mut(&mut mapped);
                            let (item, item_pat) = (self.fresh("mapped"), &closure.inputs[1]);
                            let body = &closure.body;
                            return Some(syn::parse_quote!({
                                let mut #acc = #init;
                                #setup
                                for #k in #range {
                                    #lets
                                    let #item = #mapped;
                                    let #acc_pat = #acc;
                                    let #item_pat = #item;
                                    #acc = #body;
                                }
                                #acc
                            }));
                        }
                        // the fold's closure takes the item as its second argument
                        let Head {
                            setup,
                            range,
                            lets,
                            derefs,
                        } = self.head(&closure.inputs[1], &chain)?;
                        let mut body: Expr = (*closure.body).clone();
                        Derefs::expr(&derefs, &mut body);
                        Aliases(&std::mem::take(&mut self.aliases)).visit_expr_mut(&mut body);
                        return Some(syn::parse_quote!({
                            let mut #acc = #init;
                            #setup
                            for #k in #range {
                                #lets
                                let #acc_pat = #acc;
                                #acc = #body;
                            }
                            #acc
                        }));
                    }
                    // `f64::max`: the method, which lowering knows
                    Expr::Path(func)
                        if func.path.segments.len() == 2
                            && ["f32", "f64"]
                                .iter()
                                .any(|ty| func.path.segments[0].ident == ty) =>
                    {
                        let method = &func.path.segments[1].ident;
                        (quote!(= #init), quote!(#acc = #acc.#method(#value);))
                    }
                    Expr::Path(func) => (quote!(= #init), quote!(#acc = #func(#acc, #value);)),
                    _ => return None,
                }
            }
            _ => return None,
        };
        let Head {
            setup,
            range,
            lets,
            derefs,
        } = self.head(&pat, &chain)?;
        let mut update: Expr = syn::parse2(quote!({ #update })).ok()?;
        Derefs::expr(&derefs, &mut update);
        Aliases(&std::mem::take(&mut self.aliases)).visit_expr_mut(&mut update);
        let reduced: Expr = syn::parse_quote!({
            let mut #acc #init;
            #setup
            for #k in #range {
                #lets
                #update
            }
            #acc
        });
        if method == "count" {
            // an integer, whatever its tests read: lowering takes a cast to an integer
            // for a constant (a block reading active values would be taken for an active
            // value, and `usize` has no tangent)
            return Some(syn::parse_quote!((#reduced as usize)));
        }
        Some(reduced)
    }
}

/// Replaces each part of a flat float array in an iterator chain's sources (`&a[i..j]`,
/// `a[i..].iter()`, `a[..j]` in a `zip`, `a.iter().skip(i).take(n)`) with a fresh name,
/// recording the part: its array and the bounds of its elements.
struct Parts<'r> {
    arrays: &'r HashSet<String>,
    rows: &'r HashSet<String>,
    found: Vec<Part>,
    next: &'r mut usize,
}

/// A part of `array`: elements `start..end` (bounds as written, evaluated once), every
/// `stride`-th of them if `step_by` took it, then the adapters `after` applied to those
/// strided items in order.
struct Part {
    name: Ident,
    array: Ident,
    start: TokenStream,
    end: TokenStream,
    stride: Option<TokenStream>,
    after: Vec<Strided>,
}

/// An adapter after a `step_by`, counting strided items: the part stays every
/// `stride`-th element from a first one, with another first, count or stride.
#[derive(Clone)]
enum Strided {
    /// `.skip(n)`: the first moves `min(n, len)` items on, the count drops by as many.
    Skip(TokenStream),
    /// `.take(n)`: at most `n` items.
    Take(TokenStream),
    /// `.step_by(s)`: every `s`-th item, the stride multiplied by `s`.
    StepBy(TokenStream),
}

/// An adapter of a chain's `counted` ones: a [`Strided`] counting the items left, or a
/// `rev` of them.
#[derive(Clone)]
enum Counted {
    By(Strided),
    /// `.rev()` after counted adapters: the items they left, every `stride`-th element
    /// from `first`, `len` of them, in the other order. Its first is the old last, counted
    /// from the other end (`total - 1 - (first + (len - 1) * stride)`); the loop then
    /// reads from the other end (each `rev` flips the orientation the chain ends in).
    Rev,
}

/// What [`Parts::skipped`] found: a flat array's elements `start..end`, every
/// `stride`-th, the adapters after the first `step_by`, whether the items are copies,
/// whether they run from the end (`rev`, on contiguous elements only), whether any
/// adapter applied.
struct Skipped {
    array: Ident,
    start: TokenStream,
    end: TokenStream,
    stride: Option<TokenStream>,
    after: Vec<Strided>,
    copied: bool,
    reversed: bool,
    applied: bool,
}

impl Parts<'_> {
    fn flat_array<'e>(&self, expr: &'e Expr) -> Option<&'e Ident> {
        let array = single_ident(strip_parens(expr))?;
        (self.arrays.contains(&array.to_string()) && !self.rows.contains(&array.to_string()))
            .then_some(array)
    }

    /// `a.iter()` (then `.copied()`/`.cloned()`) with `.skip(n)`/`.take(n)`/`.step_by(s)`
    /// applied in any order: before the first `step_by` they narrow the contiguous
    /// elements, after it they count strided items ([`Strided`]).
    fn skipped(&self, expr: &Expr) -> Option<Skipped> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        // after a `step_by`, `skip`/`take`/`step_by` count strided items: recorded in
        // order, the part's first, count and stride computed from them as the loop starts
        let adapter: Option<fn(TokenStream) -> Strided> =
            match (call.method.to_string().as_str(), call.args.len()) {
                ("skip", 1) => Some(Strided::Skip),
                ("take", 1) => Some(Strided::Take),
                ("step_by", 1) => Some(Strided::StepBy),
                _ => None,
            };
        if let Some(adapter) = adapter {
            let mut inner = self.skipped(&call.receiver)?;
            if inner.stride.is_some() {
                let n = &call.args[0];
                inner.after.push(adapter(quote!(#n)));
                return Some(inner);
            }
        }
        let unstrided = || self.skipped(&call.receiver).filter(|s| s.stride.is_none());
        match (call.method.to_string().as_str(), call.args.len()) {
            ("iter", 0) => {
                let array = self.flat_array(&call.receiver)?;
                Some(Skipped {
                    array: array.clone(),
                    start: quote!(0),
                    end: quote!(#array.len()),
                    stride: None,
                    after: Vec::new(),
                    copied: false,
                    reversed: false,
                    applied: false,
                })
            }
            // contiguous elements from the end: a `skip`/`take` after it narrows them from
            // that end (`Parts::reversed_skipped`)
            ("rev", 0) => {
                let inner = unstrided()?;
                Some(Skipped {
                    reversed: !inner.reversed,
                    ..inner
                })
            }
            ("skip" | "take", 1) if unstrided().is_some_and(|inner| inner.reversed) => {
                Some(reversed_skipped(unstrided()?, call))
            }
            ("copied" | "cloned", 0) => Some(Skipped {
                copied: true,
                ..self.skipped(&call.receiver)?
            }),
            ("skip", 1) => {
                let inner = unstrided()?;
                let (start, end, n) = (&inner.start, &inner.end, &call.args[0]);
                Some(Skipped {
                    start: quote!(((#start) + (#n)).min(#end)),
                    applied: true,
                    ..inner
                })
            }
            ("take", 1) => {
                let inner = unstrided()?;
                let (start, end, n) = (&inner.start, &inner.end, &call.args[0]);
                Some(Skipped {
                    end: quote!((#end).min((#start) + (#n))),
                    applied: true,
                    ..inner
                })
            }
            ("step_by", 1) => {
                let inner = unstrided().filter(|inner| !inner.reversed)?;
                let step = &call.args[0];
                Some(Skipped {
                    stride: Some(quote!(#step)),
                    applied: true,
                    ..inner
                })
            }
            _ => None,
        }
    }

    fn part(
        &mut self,
        array: Ident,
        (start, end): (TokenStream, TokenStream),
        stride: Option<TokenStream>,
        after: Vec<Strided>,
    ) -> Ident {
        *self.next += 1;
        let name = crate::syntax::fresh_local(format!("part{}", self.next));
        self.found.push(Part {
            name: name.clone(),
            array,
            start,
            end,
            stride,
            after,
        });
        name
    }
}

/// `.skip(n)`/`.take(n)` (`call`) after a `rev` of contiguous elements `start..end`:
/// the reversed items are the elements from `end - 1` down, so `skip(n)` drops the last
/// `min(n, len)` elements, `end` moving back to no less than `start`, and `take(n)` keeps
/// the last `min(n, len)`, `start` moving up to no more than `end`; the part is still
/// read from its end. As std's `Rev<Skip>`/`Rev<Take>` give them: `a.iter().rev().take(3)`
/// is `a[a.len() - min(3, a.len())..]` from its end.
fn reversed_skipped(inner: Skipped, call: &syn::ExprMethodCall) -> Skipped {
    let (start, end, n) = (&inner.start, &inner.end, &call.args[0]);
    if call.method == "skip" {
        Skipped {
            end: quote!((#end).saturating_sub(#n).max(#start)),
            applied: true,
            ..inner
        }
    } else {
        Skipped {
            start: quote!((#start).max((#end).saturating_sub(#n))),
            applied: true,
            ..inner
        }
    }
}

impl VisitMut for Parts<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Some(Skipped {
            array,
            start,
            end,
            stride,
            after,
            copied,
            reversed,
            applied: true,
        }) = self.skipped(expr)
        {
            let name = self.part(array, (start, end), stride, after);
            *expr = if copied {
                syn::parse_quote!(#name.iter().copied())
            } else {
                syn::parse_quote!(#name.iter())
            };
            if reversed {
                *expr = syn::parse_quote!(#expr.rev());
            }
            return;
        }
        if let Expr::Index(index) = strip_parens(expr)
            && let Expr::Range(range) = strip_parens(&index.index)
            && let Some(array) = self.flat_array(&index.expr)
        {
            let array = array.clone();
            let (start, end) = crate::syntax::range_bounds(range, &array);
            let name = self.part(array, (start, end), None, Vec::new());
            *expr = syn::parse_quote!(#name);
            return;
        }
        // a closure's body is the map's, not a source
        if let Expr::Closure(_) = expr {
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

impl Rewriter<'_> {
    /// A `for` loop or a reduction whose chain iterates parts of flat float arrays
    /// (`for b in &x[i + 1..]`, `x[1..].iter().zip(&y[..n]).map(..).sum()`,
    /// `x.iter().skip(1).take(n)`): each part is a view of its array (element `j` is
    /// `a[start + j]`), its bounds bound once before, as Rust evaluates them, and the loop
    /// or reduction rewritten over the views as over windows. `None` if the chain has no
    /// part.
    fn over_parts(&mut self, expr: &mut Expr) -> Option<Expr> {
        let source = match expr {
            Expr::ForLoop(for_loop) => &mut *for_loop.expr,
            Expr::MethodCall(call)
                if matches!(
                    call.method.to_string().as_str(),
                    "sum" | "product" | "fold" | "count"
                ) =>
            {
                &mut *call.receiver
            }
            _ => return None,
        };
        let mut parts = Parts {
            arrays: &self.arrays,
            rows: &self.rows,
            found: Vec::new(),
            next: &mut self.next,
        };
        let mut rewritten_source = source.clone();
        parts.visit_expr_mut(&mut rewritten_source);
        if parts.found.is_empty() {
            return None;
        }
        let found = std::mem::take(&mut parts.found);
        let part_names: Vec<String> = found.iter().map(|part| part.name.to_string()).collect();
        let mut lets = Vec::new();
        let depth = self.views.len();
        for Part {
            name,
            array,
            start,
            end,
            stride,
            after,
        } in found
        {
            let (first, len) = (self.fresh("start"), self.fresh("len"));
            // `&a[i..j]` checks `i <= j <= a.len()`; so does this slice, evaluated once
            // (`skip`/`take` clip their bounds, as the iterators do)
            lets.push(quote! {
                let #first: usize = #start;
                let #len: usize = #array[#first..#end].len();
            });
            // `step_by(s)` yields every `s`-th element from the first: `ceil(len / s)` of
            // them (and, as the iterator does, panics for `s == 0`)
            let stride = stride.map(|step| {
                let local = self.fresh("stride");
                lets.push(quote! {
                    let #local: usize = #step;
                    let #len: usize = #len.div_ceil(#local);
                });
                local
            });
            // The adapters after the `step_by`, on the strided items `first + j * stride`
            // (`j < len`), each shadowing the locals it changes, as the iterators count:
            // `skip(n)` passes `min(n, len)` items, `take(n)` keeps at most `n`, `step_by(s)`
            // keeps every `s`-th from the first (`ceil(len / s)`; `s == 0` panics).
            if let Some(stride) = &stride {
                for adapter in after {
                    lets.push(match adapter {
                        Strided::Skip(n) => {
                            let passed = self.fresh("passed");
                            quote! {
                                let #passed: usize = #len.min(#n);
                                let #first: usize = #first + #passed * #stride;
                                let #len: usize = #len - #passed;
                            }
                        }
                        Strided::Take(n) => quote! {
                            let #len: usize = #len.min(#n);
                        },
                        Strided::StepBy(s) => {
                            let step = self.fresh("step");
                            quote! {
                                let #step: usize = #s;
                                let #len: usize = #len.div_ceil(#step);
                                let #stride: usize = #stride * #step;
                            }
                        }
                    });
                }
            }
            self.views.push(View {
                name: name.to_string(),
                array,
                offset: first,
                len: quote!(#len),
                row: false,
                stride,
            });
        }
        let mut rewritten = expr.clone();
        match &mut rewritten {
            Expr::ForLoop(for_loop) => *for_loop.expr = rewritten_source,
            Expr::MethodCall(call) => *call.receiver = rewritten_source,
            _ => unreachable!("matched above"),
        }
        self.visit_expr_mut(&mut rewritten);
        self.views.truncate(depth);
        // a form the loops could not take over the views still names a part, which
        // nothing binds: left as written instead (lowering's message, never rustc's)
        let left = crate::syntax::names_in(quote::ToTokens::to_token_stream(&rewritten));
        if part_names.iter().any(|name| left.contains(name)) {
            return None;
        }
        Some(syn::parse_quote!({ #(#lets)* #rewritten }))
    }
}

impl Rewriter<'_> {
    /// `a.copy_from_slice(&b)` (or `clone_from_slice`, `b` an array or a part of one) of
    /// flat float arrays: the lengths checked as the method checks them, then an element
    /// copy over the zipped iterators, rewritten as any loop (so `a`'s elements take `b`'s
    /// cotangents back).
    fn copied_from(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        if !matches!(
            call.method.to_string().as_str(),
            "copy_from_slice" | "clone_from_slice"
        ) || call.args.len() != 1
        {
            return None;
        }
        let target = single_ident(strip_parens(&call.receiver))?;
        let source = match strip_parens(&call.args[0]) {
            Expr::Reference(reference) => &*reference.expr,
            other => other,
        };
        let root = chain_root(source)?;
        let flat = |name: &Ident| {
            self.arrays.contains(&name.to_string()) && !self.rows.contains(&name.to_string())
        };
        if !flat(target) || !flat(root) {
            return None;
        }
        let (dst, src) = (
            crate::syntax::fresh_local("copy_dst"),
            crate::syntax::fresh_local("copy_src"),
        );
        let method = call.method.to_string();
        let mut rewritten: Expr = syn::parse_quote!({
            assert_eq!(
                #target.len(),
                #source.len(),
                "{}: the two slices have different lengths",
                #method
            );
            for (#dst, #src) in #target.iter_mut().zip(#source.iter()) {
                *#dst = *#src;
            }
        });
        self.visit_expr_mut(&mut rewritten);
        Some(rewritten)
    }

    /// `v.extend_from_slice(s)` and `v.extend(items)` on a local float `Vec` `v` of the
    /// body: the loop pushing each item in turn, as the methods do, which the rewrite then
    /// desugars (`v` grows like any local buffer, each pushed element's cotangent going
    /// back to the element or value it was):
    ///
    /// - `extend_from_slice(&a)`, `(&a[i..j])`, `(a)` of a slice, `(&[p, q])`: `for &item
    ///   in &a[i..j] { v.push(item); }`;
    /// - `extend(chain)` over a float array ending in a `map`, `copied` or `cloned` (or
    ///   filters after one): `for item in chain { v.push(item); }`; a chain of references
    ///   (`a.iter()`, `&a[..k]`, `.rev()`, `.skip(n)`..) pushes each one's value, `for &item
    ///   in chain`; `(i..j).map(|k| e)` runs its range, `for k in i..j { v.push(e); }`.
    ///
    /// `v` cannot be the source (Rust's borrows forbid it), so each item is read before any
    /// push changes what a later one reads.
    fn extended(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let method = call.method.to_string();
        if !matches!(method.as_str(), "extend" | "extend_from_slice")
            || call.args.len() != 1
            || call.turbofish.is_some()
        {
            return None;
        }
        let target = single_ident(strip_parens(&call.receiver))?.clone();
        if !self.arrays.contains(&target.to_string())
            || self.rows.contains(&target.to_string())
            || self.view(&target).is_some()
        {
            return None;
        }
        let source = &call.args[0];
        let item = self.fresh("extend_item");
        let span = call.method.span();
        if let Some((range, closure)) = range_map(source)
            && method == "extend"
        {
            if closure.capture.is_some()
                || closure.asyncness.is_some()
                || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body))
            {
                return None;
            }
            let (pat, body) = (&closure.inputs[0], &closure.body);
            return Some(
                syn::parse_quote_spanned!(span=> for #pat in #range { #target.push(#body); }),
            );
        }
        let literal = matches!(strip_parens(source), Expr::Reference(reference)
            if matches!(strip_parens(&reference.expr), Expr::Array(_)));
        if !literal {
            let root = chain_root(source)?;
            if !self.arrays.contains(&root.to_string())
                || self.rows.contains(&root.to_string())
                || *root == target
            {
                return None;
            }
        }
        let values = method == "extend"
            && match strip_parens(source) {
                Expr::MethodCall(last) => {
                    matches!(
                        last.method.to_string().as_str(),
                        "map" | "copied" | "cloned"
                    ) || filtered_values(source)
                }
                _ => false,
            };
        // a trailing map's closure is the loop's pattern and pushed value (a `for` loop
        // takes no chain ending in a map)
        if let Expr::MethodCall(map) = strip_parens(source)
            && map.method == "map"
            && map.args.len() == 1
            && let Expr::Closure(closure) = strip_parens(&map.args[0])
        {
            if closure.inputs.len() != 1
                || closure.capture.is_some()
                || closure.asyncness.is_some()
                || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body))
            {
                return None;
            }
            let (pat, body, chain) = (
                strip_pat_type(&closure.inputs[0]),
                &closure.body,
                &map.receiver,
            );
            return Some(
                syn::parse_quote_spanned!(span=> for #pat in #chain { #target.push(#body); }),
            );
        }
        Some(if values {
            syn::parse_quote_spanned!(span=> for #item in #source { #target.push(#item); })
        } else {
            syn::parse_quote_spanned!(span=> for &#item in #source { #target.push(#item); })
        })
    }

    /// `a.windows(k).map(|w| e).sum()` (or `.product()`, or `chunks`): the accumulator in
    /// a `for w in a.windows(k)` loop, which [`views_loop`](Self::views_loop) then
    /// rewrites, `{ let mut acc = 0.0; for w in a.windows(k) { acc = acc + (e); } acc }`.
    fn views_reduction(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let method = call.method.to_string();
        if !matches!(method.as_str(), "sum" | "product") || !call.args.is_empty() {
            return None;
        }
        let Expr::MethodCall(map) = strip_parens(&call.receiver) else {
            return None;
        };
        if map.method != "map" || map.args.len() != 1 {
            return None;
        }
        let (views, _) = self.views_chain(&map.receiver)?;
        let Expr::Closure(closure) = strip_parens(&map.args[0]) else {
            return None;
        };
        let [pat] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let (pat, body) = (strip_pat_type(pat), &closure.body);
        let acc = self.fresh("acc");
        let (init, update) = sum_or_product(call, &acc, body);
        let mut rewritten: Expr = syn::parse_quote!({
            let mut #acc #init;
            for #pat in #views { #update }
            #acc
        });
        self.visit_expr_mut(&mut rewritten);
        Some(rewritten)
    }

    /// The views a reduction or a fold runs over, as [`views_loop`](Self::views_loop)
    /// takes them: [`views_call`](Self::views_call), then a `zip` and an `enumerate`; with
    /// the views' own call.
    fn views_chain<'e>(&self, expr: &'e Expr) -> Option<(&'e Expr, &'e syn::ExprMethodCall)> {
        let mut source = strip_parens(expr);
        if let Expr::MethodCall(call) = source
            && call.method == "enumerate"
            && call.args.is_empty()
        {
            source = strip_parens(&call.receiver);
        }
        if let Expr::MethodCall(call) = source
            && call.method == "zip"
            && call.args.len() == 1
        {
            source = strip_parens(&call.receiver);
        }
        Some((expr, self.views_call(source)?))
    }

    /// `a.windows(k)` (or `chunks`, `chunks_exact`) of a float array of the body, the
    /// views a reduction or a fold runs over.
    fn views_call<'e>(&self, expr: &'e Expr) -> Option<&'e syn::ExprMethodCall> {
        let Expr::MethodCall(views) = strip_parens(expr) else {
            return None;
        };
        (matches!(
            views.method.to_string().as_str(),
            "windows" | "chunks" | "chunks_exact"
        ) && views.args.len() == 1
            && single_ident(strip_parens(&views.receiver))
                .is_some_and(|array| self.arrays.contains(&array.to_string())))
        .then_some(views)
    }

    /// `a.windows(k).fold(init, |acc, w| e)` (or `chunks`, `chunks_exact`): the loop over
    /// the views carrying the accumulator, `{ let mut acc = init; for w in a.windows(k) {
    /// let acc_name = acc; acc = e; } acc }`, which [`views_loop`](Self::views_loop) then
    /// rewrites. The size is a literal or a name (the iterator is made before `init` is
    /// evaluated; neither then has effects to order), the accumulator a name, and the
    /// closure's body holds no `return` (which would leave the closure, not the loop).
    fn views_fold(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        if call.method != "fold" || call.args.len() != 2 {
            return None;
        }
        let (views, base) = self.views_chain(&call.receiver)?;
        if !matches!(strip_parens(&base.args[0]), Expr::Lit(_) | Expr::Path(_)) {
            return None;
        }
        let Expr::Closure(closure) = strip_parens(&call.args[1]) else {
            return None;
        };
        let [acc_pat, view_pat] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let Pat::Ident(acc_name) = strip_pat_type(acc_pat) else {
            return None;
        };
        let body = &closure.body;
        if acc_name.by_ref.is_some()
            || acc_name.subpat.is_some()
            || crate::returns::contains_return(&syn::Stmt::Expr((**body).clone(), None))
        {
            return None;
        }
        let (init, view_pat) = (&call.args[0], strip_pat_type(view_pat));
        let acc = self.fresh("acc");
        let mut rewritten: Expr = syn::parse_quote!({
            let mut #acc = #init;
            for #view_pat in #views {
                let #acc_name = #acc;
                #acc = #body;
            }
            #acc
        });
        self.visit_expr_mut(&mut rewritten);
        Some(rewritten)
    }
}

/// The `let` a `Some(v)` (a reference to the element, or a copy of it when the option is
/// `copied`) or `Some(&v)` (a copy of it) pattern becomes, reading the element at `place`
/// (`array[index]`); `None` for any other pattern.
pub(crate) fn element_binding(pat: &Pat, place: &TokenStream, copied: bool) -> Option<TokenStream> {
    let Pat::TupleStruct(some) = pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 {
        return None;
    }
    item_binding(&some.elems[0], place, copied)
}

/// The `let` an item's pattern becomes, the item the element at `place`: a name binds a
/// reference to it (a copy when the items are `copied`), `&v` a copy; `None` for any
/// other pattern.
fn item_binding(pat: &Pat, place: &TokenStream, copied: bool) -> Option<TokenStream> {
    match pat {
        Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() && copied => {
            Some(quote!(let #name = #place;))
        }
        Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
            Some(quote!(let #name = &#place;))
        }
        Pat::Reference(reference) if reference.mutability.is_none() && !copied => {
            match &*reference.pat {
                Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                    Some(quote!(let #name = #place;))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `if let Some(v) = <an element> { then } else { other }` as the test of its index,
/// evaluated once first: `{ let index: usize = at; if index < len { binding then } else
/// { other } }` (`binding` from [`element_binding`]). Shared by the element accesses of
/// arrays ([`Rewriter::element_if_let`]) and of walked slices (`rewrite`'s).
pub(crate) fn element_if(
    branch: &syn::ExprIf,
    index: &Ident,
    at: &Expr,
    len: &TokenStream,
    binding: &TokenStream,
) -> Expr {
    let then = &branch.then_branch.stmts;
    let otherwise = branch
        .else_branch
        .as_ref()
        .map(|(_, other)| quote!(else #other));
    syn::parse_quote!({
        let #index: usize = #at;
        if #index < #len {
            #binding
            #(#then)*
        } #otherwise
    })
}

impl Rewriter<'_> {
    /// `let Some(v) = a.get(i) else { diverge };` (also `first()`, `last()`, `Some(&v)`)
    /// on a float array of the body: the same program as statements of the same block,
    /// `let index: usize = i; if index >= a.len() { diverge } let v = &a[index];`. The
    /// else block diverges (Rust requires it), so the statements after the `let` run
    /// exactly when the element exists, with `v` bound where the `let` bound it (the same
    /// scope: a later shadowing or an earlier `v` are untouched). `get`'s index is
    /// evaluated once, before the test, as the call evaluates it. Any other pattern is
    /// left as written (the lowering's to judge).
    fn element_let_else(&mut self, stmt: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        let (_, diverge) = init.diverge.as_ref()?;
        let (array, at, copied) = self.element_call(&init.expr)?;
        let index = self.fresh("element_index");
        let binding = element_binding(&local.pat, &quote!(#array[#index]), copied)?;
        let block: syn::Block = syn::parse_quote!({
            let #index: usize = #at;
            if #index >= #array.len() #diverge
            #binding
        });
        Some(block.stmts)
    }
}

impl Rewriter<'_> {
    /// `let part = &a[i..j];` (any range; typed `&[F]` or not) of a flat float array of the
    /// body, `part` bound by that name alone: the statements after it read `part` as a
    /// view of `a` (`part[k]` is `a[start + k]`, `part.len()` its length, the iterator
    /// forms over it desugared, `part` elsewhere `(&a[start..start + len])`), its bounds
    /// evaluated once where the `let` was and checked as `&a[i..j]` checks them. The same
    /// program: `a` cannot be written while the part borrows it, so each read of the view
    /// reads what the part would. Left as written (lowering rejects a part bound by name)
    /// when a later statement binds the name again or a macro names it (its tokens are not
    /// rewritten).
    fn sub_slice_let(
        &mut self,
        stmt: &syn::Stmt,
        after: &[syn::Stmt],
    ) -> Option<(Vec<syn::Stmt>, View)> {
        let syn::Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        let pat = match &local.pat {
            Pat::Type(typed) => {
                let syn::Type::Reference(reference) = &*typed.ty else {
                    return None;
                };
                if reference.mutability.is_some()
                    || !matches!(&*reference.elem, syn::Type::Slice(_))
                {
                    return None;
                }
                &*typed.pat
            }
            pat => pat,
        };
        let Pat::Ident(name) = pat else {
            return None;
        };
        if name.by_ref.is_some() || name.mutability.is_some() || name.subpat.is_some() {
            return None;
        }
        let Expr::Reference(reference) = strip_parens(&init.expr) else {
            return None;
        };
        if reference.mutability.is_some() {
            return None;
        }
        let Expr::Index(index) = strip_parens(&reference.expr) else {
            return None;
        };
        let Expr::Range(range) = strip_parens(&index.index) else {
            return None;
        };
        let array = single_ident(strip_parens(&index.expr))?.clone();
        if !self.arrays.contains(&array.to_string()) || self.rows.contains(&array.to_string()) {
            return None;
        }
        let ident = &name.ident;
        let mut rebound = PatNames::default();
        let mut in_macros = HashSet::new();
        for stmt in after {
            rebound.visit_stmt(stmt);
            MacroIdents(&mut in_macros).visit_stmt(stmt);
        }
        if rebound.0.contains(&ident.to_string()) || in_macros.contains(&ident.to_string()) {
            return None;
        }
        let (start, end) = crate::syntax::range_bounds(range, &array);
        let (offset, len) = (self.fresh("part_start"), self.fresh("part_len"));
        // `&a[i..j]` checks `i <= j <= a.len()`; so does this slice, evaluated once
        let block: syn::Block = syn::parse_quote!({
            let #offset: usize = #start;
            let #len: usize = #array[#offset..#end].len();
        });
        let view = View {
            name: ident.to_string(),
            array,
            offset,
            len: quote!(#len),
            row: false,
            stride: None,
        };
        Some((block.stmts, view))
    }
}

impl Rewriter<'_> {
    /// `a.sort_by(compare)` on a flat float array of the body (a local copy, `let mut v =
    /// x.to_vec();`, or a `&mut [F]` parameter), and the other in-place sorts of it
    /// (`sort_unstable_by`, `sort_by_key`, `sort_unstable_by_key`, `sort_by_cached_key`,
    /// and, as a statement, `select_nth_unstable_by(k, compare)` and
    /// `select_nth_unstable_by_key`): a permutation the values decide, piecewise like
    /// `max`, so differentiable as the exchanges it makes. The order is decided on the
    /// values by `generated::sort_order`, which runs the body's own call on a copy (the
    /// same method, the same arguments, the same values: the same arrangement, ties
    /// included, whatever the algorithm) and pairs each position with the input holding
    /// its bits; then the elements are exchanged into it one swap at a time through a
    /// temporary, as `a.swap(i, j)` is, with plain `usize` bookkeeping of where each
    /// original element is (`place`) and which one each position holds (`at`); lowering
    /// differentiates the swaps, so each sorted element's cotangent goes back to the
    /// element it came from. `statement`: the call is a statement's whole expression, so
    /// its value (a `select_nth_*`'s references into the array) is not read.
    fn sort_by(&mut self, expr: &Expr, statement: bool) -> Option<Expr> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let arity = match call.method.to_string().as_str() {
            "sort_by"
            | "sort_unstable_by"
            | "sort_by_key"
            | "sort_unstable_by_key"
            | "sort_by_cached_key" => 1,
            "select_nth_unstable_by" | "select_nth_unstable_by_key" if statement => 2,
            _ => return None,
        };
        if call.args.len() != arity || call.turbofish.is_some() {
            return None;
        }
        let array = single_ident(strip_parens(&call.receiver))?.clone();
        if !self.arrays.contains(&array.to_string()) || self.rows.contains(&array.to_string()) {
            return None;
        }
        let (method, args) = (&call.method, &call.args);
        let copy = self.fresh("sort_copy");
        // the body's own call, on the copy `sort_order` makes
        let sorting = quote!(|#copy| { #copy.#method(#args); });
        let generated = crate::generate::paths::generated();
        let (order, at, place) = (
            self.fresh("sort_order"),
            self.fresh("sort_at"),
            self.fresh("sort_place"),
        );
        let (k, p, s, t) = (
            self.fresh("sort_k"),
            self.fresh("sort_p"),
            self.fresh("sort_s"),
            self.fresh("sort_t"),
        );
        let span = call.method.span();
        Some(syn::parse_quote_spanned!(span=> {
            let mut #order: ::std::vec::Vec<usize> = (0..#array.len()).collect();
            if #generated::sort_order(&mut #order, &#array[..], #sorting) {
                let mut #at: ::std::vec::Vec<usize> = (0..#array.len()).collect();
                let mut #place: ::std::vec::Vec<usize> = (0..#array.len()).collect();
                for #k in 0..#array.len() {
                    // position `k` takes the original element `order[k]`, wherever the
                    // swaps before left it; the element there goes where that one was
                    let #p: usize = #place[#order[#k]];
                    if #p != #k {
                        let #t = #array[#k];
                        #array[#k] = #array[#p];
                        #array[#p] = #t;
                        let #s: usize = #at[#k];
                        #at[#p] = #s;
                        #place[#s] = #p;
                        #at[#k] = #order[#k];
                        #place[#order[#k]] = #k;
                    }
                }
            }
        }))
    }
}

impl Rewriter<'_> {
    /// `v.select_nth_unstable_by(k, compare)` (or `_by_key`) on a flat float array of the
    /// body: the array, the index and the call with the index a local, `{ let at: usize =
    /// k; v.select_nth_unstable_by(at, compare); }` as statements, which [`sort_by`]
    /// rewrites as a statement (`k` evaluated once, before the comparison runs, as the
    /// call's arguments are).
    fn selection(&mut self, expr: &Expr) -> Option<(Ident, Ident, Vec<syn::Stmt>)> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        if !matches!(
            call.method.to_string().as_str(),
            "select_nth_unstable_by" | "select_nth_unstable_by_key"
        ) || call.args.len() != 2
            || call.turbofish.is_some()
        {
            return None;
        }
        let array = single_ident(strip_parens(&call.receiver))?.clone();
        if !self.arrays.contains(&array.to_string()) || self.rows.contains(&array.to_string()) {
            return None;
        }
        let at = self.fresh("selected_at");
        let (k, by, method) = (&call.args[0], &call.args[1], &call.method);
        let sorting: Expr = syn::parse_quote!(#array.#method(#at, #by));
        let sorted = self.sort_by(&sorting, true)?;
        Some((
            array,
            at.clone(),
            vec![
                syn::parse_quote!(let #at: usize = #k;),
                syn::Stmt::Expr(sorted, Some(Default::default())),
            ],
        ))
    }

    /// `*v.select_nth_unstable_by(k, compare).1` (the element the selection puts at `k`,
    /// read): `{ let at: usize = k; <the selection>; v[at] }`, the same order of work.
    fn selected_element(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::Unary(deref) = strip_parens(expr) else {
            return None;
        };
        if !matches!(deref.op, syn::UnOp::Deref(_)) {
            return None;
        }
        let Expr::Field(field) = strip_parens(&deref.expr) else {
            return None;
        };
        if !matches!(&field.member, syn::Member::Unnamed(index) if index.index == 1) {
            return None;
        }
        let (array, at, stmts) = self.selection(&field.base)?;
        Some(syn::parse_quote!({ #(#stmts)* #array[#at] }))
    }

    /// `let (lo, m, hi) = v.select_nth_unstable_by(k, compare);` (each part a name or
    /// `_`): the selection as statements, `lo` and `hi` bound to the parts `&v[..at]` and
    /// `&v[at + 1..]` (views of `v` once rewritten), and the rewrite of `*m` in the
    /// statements `after` to `v[at]`. `None` (left as written) when `after` binds `m`
    /// again, names it in a macro, or reads it other than by `*m` (the reference itself,
    /// which a read by index does not stand for).
    fn selected_let(
        &mut self,
        stmt: &syn::Stmt,
        after: &[syn::Stmt],
    ) -> Option<(Vec<syn::Stmt>, Rewrites)> {
        let syn::Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        let Pat::Tuple(parts) = &local.pat else {
            return None;
        };
        let names: Vec<Option<&Ident>> = parts
            .elems
            .iter()
            .map(|part| match part {
                Pat::Wild(_) => Some(None),
                Pat::Ident(name)
                    if name.by_ref.is_none()
                        && name.subpat.is_none()
                        && name.mutability.is_none() =>
                {
                    Some(Some(&name.ident))
                }
                _ => None,
            })
            .collect::<Option<_>>()?;
        let [lo, middle, hi] = names[..] else {
            return None;
        };
        let (array, at, mut stmts) = self.selection(&init.expr)?;
        let mut derefs = Vec::new();
        if let Some(middle) = middle {
            let mut rebound = PatNames::default();
            let mut in_macros = HashSet::new();
            for stmt in after {
                rebound.visit_stmt(stmt);
                MacroIdents(&mut in_macros).visit_stmt(stmt);
            }
            if rebound.0.contains(&middle.to_string()) || in_macros.contains(&middle.to_string()) {
                return None;
            }
            let place: Expr = syn::parse_quote!(#array[#at]);
            derefs.push((middle.to_string(), place));
            // every read of `m` must be a `*m` (or a method on it) the rewrite takes
            let mut rest = syn::Block {
                brace_token: Default::default(),
                stmts: after.to_vec(),
            };
            Derefs::block(&derefs, &mut rest);
            let mut left = HashSet::new();
            token_idents(quote!(#rest), &mut left);
            if left.contains(&middle.to_string()) {
                return None;
            }
        }
        if let Some(lo) = lo {
            stmts.push(syn::parse_quote!(let #lo = &#array[..#at];));
        }
        if let Some(hi) = hi {
            stmts.push(syn::parse_quote!(let #hi = &#array[#at + 1..];));
        }
        Some((stmts, derefs))
    }
}

/// Rewrites of `*name` to a place (`Derefs`' items).
type Rewrites = Vec<(String, Expr)>;

/// The identifiers the macros' tokens spell.
struct MacroIdents<'a>(&'a mut HashSet<String>);

impl<'ast> Visit<'ast> for MacroIdents<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let mut names = HashSet::new();
        token_idents(mac.tokens.clone(), &mut names);
        self.0.extend(names);
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut i = 0;
        while i < block.stmts.len() {
            // `let (s, q) = chain.fold((a, b), |(s, q), v| ..);`: the fold's statements
            // (already rewritten), then the parts bound
            if let Some(stmts) = self.tuple_fold_let(&block.stmts[i]) {
                let n = stmts.len();
                block.stmts.splice(i..=i, stmts);
                i += n;
                continue;
            }
            if let Some(stmts) = self.element_let_else(&block.stmts[i]) {
                // the statements it became are visited in turn (the else block's forms)
                block.stmts.splice(i..=i, stmts);
                continue;
            }
            if let Some((lets, view)) = self.sub_slice_let(&block.stmts[i], &block.stmts[i + 1..]) {
                let mut rest = block.stmts.split_off(i + 1);
                block.stmts.truncate(i);
                for mut stmt in lets {
                    self.visit_stmt_mut(&mut stmt);
                    block.stmts.push(stmt);
                }
                // `rest[i..j]` (a part of the part), `rest[j]` and `rest.len()` first, then
                // the iterator forms over `rest`, then `rest` anywhere else the part itself
                for stmt in &mut rest {
                    ViewReads(&view).visit_stmt_mut(stmt);
                }
                let (array, offset, len) = (&view.array, &view.offset, &view.len);
                let place: Expr = syn::parse_quote!((&#array[#offset..#offset + #len]));
                let alias = [(view.name.clone(), place)];
                self.views.push(view);
                // as a block of their own: a later part bound by `let` is found there too
                let mut after = syn::Block {
                    brace_token: Default::default(),
                    stmts: rest,
                };
                self.visit_block_mut(&mut after);
                let mut rest = after.stmts;
                self.views.pop();
                for stmt in &mut rest {
                    Aliases(&alias).visit_stmt_mut(stmt);
                }
                block.stmts.extend(rest);
                return;
            }
            // `let (_, m, _) = v.select_nth_unstable_by(k, compare);` then `*m`: the
            // statement form, then `v[k]` read where `*m` was
            if let Some((stmts, derefs)) = self.selected_let(&block.stmts[i], &block.stmts[i + 1..])
            {
                let n = stmts.len();
                let mut rest = block.stmts.split_off(i + 1);
                block.stmts.truncate(i);
                block.stmts.extend(stmts);
                let mut after = syn::Block {
                    brace_token: Default::default(),
                    stmts: std::mem::take(&mut rest),
                };
                Derefs::block(&derefs, &mut after);
                block.stmts.extend(after.stmts);
                // the new statements are visited in turn (the sort's, the parts' `let`s)
                let _ = n;
                continue;
            }
            // `v.select_nth_unstable_by(k, compare);`: a sort whose value is not read
            if let syn::Stmt::Expr(expr, Some(_)) = &block.stmts[i]
                && let Some(mut rewritten) = self.sort_by(expr, true)
            {
                visit_mut::visit_expr_mut(self, &mut rewritten);
                block.stmts[i] = syn::Stmt::Expr(rewritten, Some(Default::default()));
                i += 1;
                continue;
            }
            self.visit_stmt_mut(&mut block.stmts[i]);
            i += 1;
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `chain.fold((a, b), |(s, q), v| ..).0`: the fold with that part as its value.
        if let Some(rewritten) = self.with_fields(|this| this.tuple_fold_part(expr)) {
            *expr = rewritten;
            return;
        }
        // `a.get(i).copied().unwrap_or(d)`, `a.first().map_or(d, |v| e)`: a test of the
        // index, the element or the default.
        if let Some(rewritten) = self.element_or(expr) {
            *expr = rewritten;
            visit_mut::visit_expr_mut(self, expr);
            return;
        }
        // `if let Some(v) = a.first() { .. }` and `match a.first() { .. }` (`last`,
        // `get(i)`): a test of the index and the element.
        if let Some(rewritten) = self
            .element_if_let(expr)
            .or_else(|| self.element_match(expr))
        {
            *expr = rewritten;
            visit_mut::visit_expr_mut(self, expr);
            return;
        }
        // `*v.select_nth_unstable_by(k, compare).1`: the sort, then the element at `k`.
        if let Some(mut rewritten) = self.selected_element(expr) {
            self.visit_expr_mut(&mut rewritten);
            *expr = rewritten;
            return;
        }
        // `a.sort_by(|p, q| ..)`: the order decided on the values, then exchanges.
        if let Some(rewritten) = self.sort_by(expr, false) {
            *expr = rewritten;
            visit_mut::visit_expr_mut(self, expr);
            return;
        }
        // `*a.first().unwrap()`, `a.last().unwrap()`, `a.swap(i, j)`: element accesses.
        if let Some(rewritten) = self.element_access(expr) {
            *expr = rewritten;
            visit_mut::visit_expr_mut(self, expr);
            return;
        }
        // A reduction over windows or chunks: a loop over them.
        if let Expr::MethodCall(call) = expr
            && let Some(rewritten) = self.with_fields(|this| this.views_reduction(call))
        {
            *expr = rewritten;
            return;
        }
        if let Expr::MethodCall(call) = expr
            && let Some(rewritten) = self.with_fields(|this| this.views_fold(call))
        {
            *expr = rewritten;
            return;
        }
        // `v.extend_from_slice(&a[..k])`, `v.extend(a.iter().map(..))`: a pushing loop.
        if let Some(mut rewritten) = self.extended(expr) {
            self.visit_expr_mut(&mut rewritten);
            *expr = rewritten;
            return;
        }
        // `a.copy_from_slice(&b)`: an element copy loop.
        if let Expr::MethodCall(call) = expr
            && let Some(rewritten) = self.with_fields(|this| this.copied_from(call))
        {
            *expr = rewritten;
            return;
        }
        // A chain over parts of arrays: rewritten over views of them.
        if let Some(rewritten) = self.with_fields(|this| this.over_parts(expr)) {
            *expr = rewritten;
            return;
        }
        // A loop over windows or chunks, or over rows: its body is rewritten knowing the
        // view.
        if let Expr::ForLoop(for_loop) = expr
            && let Some(rewritten) = self.with_fields(|this| this.views_loop(for_loop))
        {
            *expr = rewritten;
            return;
        }
        if let Expr::ForLoop(for_loop) = expr
            && let Some(rewritten) = self.with_fields(|this| this.rows_loop(&mut for_loop.clone()))
        {
            *expr = rewritten;
            return;
        }
        if let Expr::MethodCall(call) = expr
            && let Some(rewritten) = self.with_fields(|this| this.rows_reduction(call))
        {
            *expr = rewritten;
            return;
        }
        // Inner forms first: a closure's body or a loop's body may hold reductions.
        visit_mut::visit_expr_mut(self, expr);
        let rewritten = self.with_fields(|this| match expr {
            Expr::ForLoop(for_loop) => this.for_loop(for_loop),
            Expr::MethodCall(call) => this.reduction(call),
            _ => None,
        });
        if let Some(rewritten) = rewritten {
            *expr = rewritten;
        }
    }

    // Items have bodies of their own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Rewrites `*name` for the names an iteration binds: to the name (read by value) or to
/// the element's place (a mutable element). A method called on the name itself, `v.sin()`
/// or `v.is_nan()` (auto-deref of `&mut f64`: the same call as `(*v).sin()`), gets the
/// place as its receiver too (a comparison resolved on the reference, `v.lt(&w)`, the
/// place borrowed `&mut`), unless the body binds the name again anywhere (`let v = ..`, a
/// closure's `|v|`), where `v` may be another value.
struct Derefs<'d> {
    items: &'d [(String, Expr)],
    rebound: HashSet<String>,
    /// Locals that copy an item read by value (`let y = v;`, so `y` is the same `&f64` in
    /// the user's code and a float after the rewrite), in scope from the statement after
    /// to the end of their block: `*y` reads `y` as `*v` reads `v` (regression: E0614,
    /// "type `f64` cannot be dereferenced", on `{ let y = item; *y * 2.0 }`). Only by-value
    /// items: a mutable item's place read through another name is not followed.
    copies: Vec<Ident>,
}

impl<'d> Derefs<'d> {
    /// Applies the rewrites to a loop's body.
    fn block(items: &'d [(String, Expr)], body: &mut syn::Block) {
        let mut bound = PatNames::default();
        bound.visit_block(body);
        Derefs {
            items,
            rebound: bound.0,
            copies: Vec::new(),
        }
        .visit_block_mut(body);
    }

    /// Applies the rewrites to an expression (a closure's body, an update).
    fn expr(items: &'d [(String, Expr)], body: &mut Expr) {
        let mut bound = PatNames::default();
        bound.visit_expr(body);
        Derefs {
            items,
            rebound: bound.0,
            copies: Vec::new(),
        }
        .visit_expr_mut(body);
    }

    fn place(&self, ident: &Ident) -> Option<&Expr> {
        self.items
            .iter()
            .find(|(name, _)| ident == name)
            .map(|(_, place)| place)
    }
}

impl VisitMut for Derefs<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let outer = self.copies.clone();
        for stmt in &mut block.stmts {
            self.visit_stmt_mut(stmt);
            let syn::Stmt::Local(local) = stmt else {
                continue;
            };
            // A `let` ends the copies it shadows, and `let y = v;` of a by-value item
            // (its place is its own name) starts one.
            let bound = crate::syntax::pattern_idents(&local.pat);
            self.copies.retain(|copy| !bound.contains(&copy));
            if let Pat::Ident(copy) = &local.pat
                && copy.by_ref.is_none()
                && copy.subpat.is_none()
                && let Some(init) = &local.init
                && init.diverge.is_none()
                && let Some(source) = single_ident(strip_parens(&init.expr))
                && (self.copies.contains(source)
                    || self
                        .place(source)
                        .is_some_and(|place| place == &syn::parse_quote!(#source)))
            {
                self.copies.push(copy.ident.clone());
            }
        }
        // The block's own copies end with it, and the ones it shadowed are back.
        self.copies = outer;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Unary(unary) = expr
            && matches!(unary.op, syn::UnOp::Deref(_))
            && let Some(ident) = single_ident(strip_parens(&unary.expr))
        {
            if let Some(place) = self.place(ident) {
                *expr = place.clone();
                return;
            }
            if self.copies.contains(ident) {
                *expr = syn::parse_quote!(#ident);
                return;
            }
        }
        if let Expr::MethodCall(call) = expr
            && let Some(ident) = single_ident(strip_parens(&call.receiver))
            && !self.rebound.contains(&ident.to_string())
            && let Some(place) = self.place(ident)
        {
            // Rust finds these on the reference itself (`PartialOrd for &mut f64`: `v.lt(&w)`
            // takes `w: &&mut f64`), every other method of a float on the float it
            // dereferences to (`v.is_nan()`, `v.to_bits()`)
            let on_the_reference =
                REFERENCE_COMPARISONS.contains(&call.method.to_string().as_str());
            *call.receiver = if on_the_reference && place != &syn::parse_quote!(#ident) {
                syn::parse_quote!((&mut #place))
            } else {
                place.clone()
            };
            for arg in &mut call.args {
                self.visit_expr_mut(arg);
            }
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

/// The comparison methods a `&mut f64` receiver resolves to the reference's own impl of
/// (`PartialEq`, `PartialOrd` and `Ord` for `&mut A`), whose argument is then a reference
/// to a `&mut f64`.
const REFERENCE_COMPARISONS: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "partial_cmp", "cmp"];

/// The names the patterns of a body bind (`let`, `for`, `match` arms, closure parameters).
#[derive(Default)]
struct PatNames(HashSet<String>);

impl<'ast> Visit<'ast> for PatNames {
    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        self.0.insert(pat.ident.to_string());
        visit::visit_pat_ident(self, pat);
    }
}

/// Replaces each name a row of an array of rows is bound to by the row's place `m[k]`.
struct Aliases<'a>(&'a [(String, Expr)]);

impl VisitMut for Aliases<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Some(ident) = single_ident(expr)
            && let Some((_, place)) = self.0.iter().find(|(name, _)| ident == name)
        {
            *expr = place.clone();
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

/// Whether `body` names `ident` anywhere.
fn names(body: &syn::Block, ident: &Ident) -> bool {
    struct Finder<'i>(&'i Ident, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_ident(&mut self, ident: &'ast Ident) {
            self.1 |= ident == self.0;
        }
    }
    let mut finder = Finder(ident, false);
    finder.visit_block(body);
    finder.1
}

/// The loop variable of a desugared loop (one per loop: inner loops shadow it).
/// The trips of a loop over `array`'s views `method(size)` (`windows`, `chunks`,
/// `chunks_exact`), the view's first element in trip `k` (its `offset`), and its length.
fn view_shape(
    method: &str,
    array: &Ident,
    size: Expr,
    k: &Ident,
    offset: &Ident,
) -> (TokenStream, TokenStream, TokenStream) {
    if method == "windows" {
        (
            quote!((#array.len() + 1).saturating_sub(#size)),
            quote!(#k),
            quote!(#size),
        )
    } else if method == "chunks_exact" {
        // whole chunks only: the remainder (`len % size` elements) is not visited
        (
            quote!(#array.len() / (#size)),
            quote!(#k * (#size)),
            quote!((#size)),
        )
    } else {
        (
            quote!(#array.len().div_ceil(#size)),
            quote!(#k * (#size)),
            quote!((#size).min(#array.len() - #offset)),
        )
    }
}

fn index_var() -> Ident {
    mixed("gradtape_k")
}

/// Rewrites a view's element reads `w[j]` as `a[offset + j]` (a row's `row[j]` as
/// `m[row][j]`) and `w.len()` as its length.
struct ViewReads<'v>(&'v View);

impl VisitMut for ViewReads<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        let View {
            name,
            array,
            offset,
            len,
            row,
            stride,
        } = self.0;
        let generated = crate::generate::paths::generated();
        match expr {
            // A part of a flat view, `w[i..j]` (any range): that part of its array,
            // `a[offset + i..offset + j]`, `i` and `j` evaluated once each, in order, the
            // end checked against the view's length as the view's slice checks it (the
            // array's own check would let an end past the view's through) and `i <= j`
            // by the array's slicing. Then a part like any other: a source of iterator
            // forms, bound by `let` (a view of it), passed on.
            Expr::Index(index)
                if !*row
                    && stride.is_none()
                    && single_ident(strip_parens(&index.expr)).is_some_and(|i| i == name)
                    && let Expr::Range(range) = strip_parens(&index.index) =>
            {
                let start = range
                    .start
                    .as_ref()
                    .map_or(quote!(0), |start| quote!(#start));
                let end = match (&range.end, &range.limits) {
                    (None, _) => quote!(#len),
                    (Some(end), syn::RangeLimits::HalfOpen(_)) => {
                        quote!(#generated::view_end(#end, #len))
                    }
                    (Some(last), syn::RangeLimits::Closed(_)) => {
                        quote!(#generated::view_end_inclusive(#last, #len))
                    }
                };
                *expr = syn::parse_quote!(#array[#offset + (#start)..#offset + #end]);
            }
            Expr::Index(index)
                if single_ident(strip_parens(&index.expr)).is_some_and(|i| i == name) =>
            {
                let position = &index.index;
                // A flat view's element is the array's at an offset: checked against the
                // view's length, as the slice `w` checks it where the body runs as written
                // (`f` panics on `w[2]` of a window of two; the array's own check would
                // pass while the window is not its last, and the generated code read the
                // next window's element). A row is a real row, checked by its own index.
                let checked = quote!(#generated::view_index(#position, #len));
                *expr = match (row, stride) {
                    (true, _) => syn::parse_quote!(#array[#offset][#position]),
                    (false, Some(stride)) => {
                        syn::parse_quote!(#array[#offset + (#checked) * #stride])
                    }
                    (false, None) => syn::parse_quote!(#array[#offset + (#checked)]),
                };
            }
            Expr::MethodCall(call)
                if call.method == "len"
                    && call.args.is_empty()
                    && single_ident(strip_parens(&call.receiver)).is_some_and(|i| i == name) =>
            {
                *expr = syn::parse_quote!((#len));
            }
            _ => {}
        }
    }
}

/// An element read by value.
fn by_value(item: Item) -> Item {
    match item {
        Item::Elem { array, mutable, .. } => Item::Elem {
            array,
            by_ref: false,
            mutable,
        },
        Item::Tuple(items) => Item::Tuple(items.into_iter().map(by_value).collect()),
        Item::FromEnd(inner, len) => Item::FromEnd(Box::new(by_value(*inner)), len),
        other => other,
    }
}

/// `chain.filter(p)` (any number of filters) after a `map`, `copied` or `cloned`: a chain
/// whose items are values.
fn filtered_values(expr: &Expr) -> bool {
    let Expr::MethodCall(call) = strip_parens(expr) else {
        return false;
    };
    if call.method != "filter" {
        return false;
    }
    let mut inner = strip_parens(&call.receiver);
    while let Expr::MethodCall(filter) = inner
        && filter.method == "filter"
    {
        inner = strip_parens(&filter.receiver);
    }
    matches!(inner, Expr::MethodCall(call)
        if matches!(call.method.to_string().as_str(), "map" | "copied" | "cloned"))
}

/// The array an iterator chain starts from: `a` of `a.iter().map(..)..`, `&a`, `a[..]`.
fn chain_root(expr: &Expr) -> Option<&Ident> {
    match strip_parens(expr) {
        Expr::MethodCall(call) => chain_root(&call.receiver),
        Expr::Reference(reference) => chain_root(&reference.expr),
        Expr::Index(index) => chain_root(&index.expr),
        other => single_ident(other),
    }
}

fn strip_pat_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(typed) => &typed.pat,
        other => other,
    }
}

/// The accumulator's `: ty = init` (`sum::<f64>()`), or `= init` (its type inferred from
/// the items).
/// The accumulator `acc`'s `= init` (or `: ty = init`) and its update by `value` for a
/// `.sum()` or `.product()` call (not `0.0`/`1.0`: the items may be of a generic float
/// type).
/// `range.map(|i| e)`, the range a range expression (`0..n`, `(1..=n).rev()`), and the
/// closure (of one input).
fn range_map(expr: &Expr) -> Option<(&Expr, &syn::ExprClosure)> {
    let Expr::MethodCall(map) = strip_parens(expr) else {
        return None;
    };
    if map.method != "map" || map.args.len() != 1 {
        return None;
    }
    let Expr::Closure(closure) = strip_parens(&map.args[0]) else {
        return None;
    };
    let is_range = |expr: &Expr| matches!(strip_parens(expr), Expr::Range(range) if range.start.is_some() && range.end.is_some());
    let range = match strip_parens(&map.receiver) {
        range if is_range(range) => range,
        Expr::MethodCall(rev)
            if rev.method == "rev" && rev.args.is_empty() && is_range(&rev.receiver) =>
        {
            &map.receiver
        }
        _ => return None,
    };
    (closure.inputs.len() == 1).then_some((range, closure))
}

/// `(a..b).map(|i| e).sum()` (or `.product()`, a reversed range too): the loop over the
/// range as written, `{ let mut acc = 0; for i in a..b { acc = acc + e; } acc }`, whose
/// counter lowering knows. The items are the range's integers, so `e` reads the arrays by
/// index (`x[i] * y[i]`).
fn range_reduction(call: &syn::ExprMethodCall) -> Option<Expr> {
    if !matches!(call.method.to_string().as_str(), "sum" | "product") || !call.args.is_empty() {
        return None;
    }
    let (range, closure) = range_map(&call.receiver)?;
    if closure.asyncness.is_some() || closure.capture.is_some() {
        return None;
    }
    let acc = crate::syntax::fresh_local("gradtape_range_acc");
    let pat = &closure.inputs[0];
    let body = &closure.body;
    let (init, update) = sum_or_product(call, &acc, body);
    Some(syn::parse_quote!({
        let mut #acc #init;
        for #pat in #range {
            #update
        }
        #acc
    }))
}

fn sum_or_product(
    call: &syn::ExprMethodCall,
    acc: &Ident,
    value: &impl quote::ToTokens,
) -> (TokenStream, TokenStream) {
    let generated = crate::generate::paths::generated();
    if call.method == "sum" {
        // from `-0.0`, as std's float `Sum` starts (`-0.0 + v` is `v` for every `v`, `-0.0`
        // included, so an empty sum and a sum of `-0.0`s are `-0.0` as the iterator's are)
        (
            typed_init(call, quote!(#generated::sum_start())),
            quote!(#acc = #acc + (#value);),
        )
    } else {
        (
            typed_init(call, quote!(#generated::element_one())),
            quote!(#acc = #acc * (#value);),
        )
    }
}

fn typed_init(call: &syn::ExprMethodCall, init: TokenStream) -> TokenStream {
    match &call.turbofish {
        Some(turbofish) => {
            let ty = &turbofish.args;
            quote!(: #ty = #init)
        }
        None => quote!(= #init),
    }
}

/// A desugared loop's head.
struct Head {
    /// Statements before the loop (the counted adapters' bounds, evaluated once, in the
    /// order of the adapters).
    setup: TokenStream,
    range: TokenStream,
    /// The `let`s starting each iteration.
    lets: TokenStream,
    /// The rewrites of `*name` in the body.
    derefs: Vec<(String, Expr)>,
}

/// Tensor mode: `chain.fold(init, |acc, v| e)`, after any `.map(|p| e)` calls, over an
/// iterator the body reads as written (a constant array's `iter()`, a range, a slice of
/// tensors' `iter()`), is the loop it stands for, so that an accumulator holding a
/// differentiable tensor is differentiated as any loop-carried value:
/// `{ let mut acc = init; for item in chain { let v = { let p = item; m }; let acc = acc;
/// acc = e; } acc }`. Each closure's pattern is bound by `let` in the order the iterator
/// would call them, in a block of its own, and each body evaluated once per item, as the
/// iterator would. A closure that may leave
/// early (`return`, `?`) is left as written (the loop would leave the function instead),
/// as is a `move` closure, a chain that does not visibly start from an iterator (a user
/// type's own `fold`). A closure's name may be spelled like a value of the function (a
/// map's `|x|` beside a parameter `x`): the loop binds it in a block of its own, which
/// lowering scopes as Rust does.
pub fn tensor_folds(stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    struct Folds {
        next: usize,
    }
    impl VisitMut for Folds {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            // inner folds first: a fold in a closure's body is rewritten before the body is
            // moved into the loop
            visit_mut::visit_expr_mut(self, expr);
            if let Expr::MethodCall(call) = expr
                && let Some(fold) = self.tensor_reduction(call, None)
                && let Some(rewritten) = self.fold(&fold)
            {
                *expr = rewritten;
            } else if let Expr::MethodCall(call) = expr
                && let Some(rewritten) = self.fold(call)
            {
                *expr = rewritten;
            }
        }
        fn visit_local_mut(&mut self, local: &mut syn::Local) {
            // `let s: Tensor<T> = chain.sum();`: the type the `let` names is the sum's
            visit_mut::visit_local_mut(self, local);
            if let Pat::Type(typed) = &local.pat
                && let Some(init) = &mut local.init
                && let Expr::MethodCall(call) = &*init.expr
                && let Some(fold) = self.tensor_reduction(call, Some(&typed.ty))
                && let Some(rewritten) = self.fold(&fold)
            {
                *init.expr = rewritten;
            }
        }
    }
    impl Folds {
        /// `chain.sum::<Tensor<T>>()` (or `product`; the type from the turbofish, else
        /// `typed`, a `let`'s): the same as `chain.fold(empty, |acc, v| acc + v)`, folding
        /// from the empty sum of the type (`-0.0`, so the bits are the sum's as written,
        /// `impl Sum for Tensor`) or product (`1`). Sums of anything else (`sum::<f64>()`)
        /// are not tensors' and stay as written.
        fn tensor_reduction(
            &self,
            call: &syn::ExprMethodCall,
            typed: Option<&syn::Type>,
        ) -> Option<syn::ExprMethodCall> {
            let method = call.method.to_string();
            if !matches!(method.as_str(), "sum" | "product") || !call.args.is_empty() {
                return None;
            }
            let ty: syn::Type = match (&call.turbofish, typed) {
                (Some(turbofish), _) if turbofish.args.len() == 1 => match &turbofish.args[0] {
                    syn::GenericArgument::Type(ty) => ty.clone(),
                    _ => return None,
                },
                (None, Some(ty)) => ty.clone(),
                _ => return None,
            };
            let syn::Type::Path(path) = &ty else {
                return None;
            };
            if path.qself.is_some() || path.path.segments.last()?.ident != "Tensor" {
                return None;
            }
            let (acc, item) = (
                crate::syntax::fresh_local(format!("{method}_acc")),
                crate::syntax::fresh_local(format!("{method}_item")),
            );
            let receiver = &call.receiver;
            Some(if method == "sum" {
                syn::parse_quote!(#receiver.fold(
                    <#ty as ::core::iter::Sum>::sum(::core::iter::empty::<#ty>()),
                    |#acc, #item| #acc + #item
                ))
            } else {
                syn::parse_quote!(#receiver.fold(
                    <#ty as ::core::iter::Product>::product(::core::iter::empty::<#ty>()),
                    |#acc, #item| #acc * #item
                ))
            })
        }

        fn fold(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
            if call.method != "fold" || call.args.len() != 2 {
                return None;
            }
            let Expr::Closure(closure) = strip_parens(&call.args[1]) else {
                return None;
            };
            if closure.inputs.len() != 2
                || !matches!(strip_pat_type(&closure.inputs[0]), Pat::Ident(_))
            {
                return None;
            }
            // the maps, innermost first, each a closure of one argument
            let mut maps = Vec::new();
            let mut source = &*call.receiver;
            while let Expr::MethodCall(map) = strip_parens(source)
                && map.method == "map"
                && map.args.len() == 1
                && let Expr::Closure(inner) = strip_parens(&map.args[0])
                && inner.inputs.len() == 1
            {
                maps.push(inner);
                source = &map.receiver;
            }
            maps.reverse();
            let closures = maps.iter().copied().chain([closure]);
            // a `move` closure owns its captures, which a loop body would move again on
            // each pass
            if closures.clone().any(|c| {
                c.asyncness.is_some()
                    || c.capture.is_some()
                    || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&c.body))
            }) || !starts_an_iterator(source)
            {
                return None;
            }
            self.next += 1;
            let acc = crate::syntax::fresh_local(format!("fold_acc{}", self.next));
            let item = crate::syntax::fresh_local(format!("fold_item{}", self.next));
            // each closure's argument is the previous closure's value (the first's, the
            // item), its pattern bound in a block of its own: a later closure's body sees
            // none of an earlier one's names, as with the closures (a map's `|x| ..` does
            // not shadow an `x` the fold's body reads)
            let mut value: Expr = syn::parse_quote!(#item);
            for map in &maps {
                let pat = &map.inputs[0];
                let body = &map.body;
                value = syn::parse_quote!({ let #pat = #value; #body });
            }
            let (acc_pat, item_pat, body) = (&closure.inputs[0], &closure.inputs[1], &closure.body);
            let init = &call.args[0];
            Some(syn::parse_quote!({
                let mut #acc = #init;
                for #item in #source {
                    let #item_pat = #value;
                    let #acc_pat = #acc;
                    #acc = #body;
                }
                #acc
            }))
        }
    }
    /// Whether `expr` is visibly an iterator: a range, or a chain of adaptors on
    /// `iter()`, `into_iter()`, `windows(n)`, `chunks(n)` or `chunks_exact(n)`.
    fn starts_an_iterator(expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Range(_) => true,
            Expr::MethodCall(call) => {
                matches!(
                    call.method.to_string().as_str(),
                    "iter" | "into_iter" | "windows" | "chunks" | "chunks_exact"
                ) || (matches!(
                    call.method.to_string().as_str(),
                    "rev"
                        | "enumerate"
                        | "zip"
                        | "skip"
                        | "take"
                        | "step_by"
                        | "copied"
                        | "cloned"
                        | "chain"
                ) && starts_an_iterator(&call.receiver))
            }
            _ => false,
        }
    }
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    Folds { next: 0 }.visit_block_mut(&mut block);
    block.stmts
}

// ----- adaptors: `filter`, counted `skip`/`take`/`step_by`, tuple folds -----

impl Rewriter<'_> {
    /// The head of a loop over a chain with filters or counted adapters. Counted
    /// adapters (`x.iter().enumerate().skip(1)`) count the chain's items: their bounds are
    /// computed once before the loop, in the adapters' order, as the iterators count
    /// (`skip(n)` passes `min(n, len)` items, `take(n)` keeps at most `n`, `step_by(s)`
    /// every `s`-th from the first, panicking for `s == 0`), the loop counter runs over
    /// the items left, and each iteration reads the element index it stands for (the
    /// positions `enumerate` took before them are that index's, counted from the start).
    /// Each filter is then the `continue` it stands for, its predicate evaluated once per
    /// item, in order, before the next filter, the map and the body.
    fn adapted_head(&mut self, pat: &Pat, chain: &Chain) -> Option<Head> {
        let k = index_var();
        let index = &chain.index;
        let n = self.length(&chain.arrays);
        let mut setup = TokenStream::new();
        // each `skip_while`'s flag: the items are skipped until one fails its test
        for step in &chain.steps {
            if let Step::Filter(_, _, Pass::SkipWhile(skipping)) = step {
                setup.extend(quote!(let mut #skipping: bool = true;));
            }
        }
        let (range, at) = if chain.counted.is_empty() {
            let range = if chain.reversed {
                quote!((0..#n).rev())
            } else {
                quote!(0..#n)
            };
            (range, TokenStream::new())
        } else {
            let (total, first, len, stride) = (
                self.fresh("total"),
                self.fresh("first"),
                self.fresh("count"),
                self.fresh("stride"),
            );
            setup.extend(quote! {
                let #total: usize = #n;
                let #first: usize = 0;
                let #len: usize = #total;
                let #stride: usize = 1;
            });
            for adapter in &chain.counted {
                setup.extend(match adapter {
                    Counted::Rev => quote! {
                        let #first: usize = if #len == 0 {
                            0
                        } else {
                            #total - 1 - (#first + (#len - 1) * #stride)
                        };
                    },
                    Counted::By(Strided::Skip(m)) => {
                        let passed = self.fresh("passed");
                        quote! {
                            let #passed: usize = #len.min(#m);
                            let #first: usize = #first + #passed * #stride;
                            let #len: usize = #len - #passed;
                        }
                    }
                    Counted::By(Strided::Take(m)) => quote! {
                        let #len: usize = #len.min(#m);
                    },
                    Counted::By(Strided::StepBy(s)) => {
                        let step = self.fresh("step");
                        quote! {
                            let #step: usize = #s;
                            let #len: usize = #len.div_ceil(#step);
                            let #stride: usize = #stride * #step;
                        }
                    }
                });
            }
            // the item's place in the sequence the adapters counted (from the back when
            // the chain ends reversed: each `rev` after them flips it)
            let position = quote!(#first + #k * #stride);
            let revs = chain
                .counted
                .iter()
                .filter(|a| matches!(a, Counted::Rev))
                .count();
            let at = if chain.reversed != (revs % 2 == 1) {
                quote!(let #index: usize = #total - 1 - (#position);)
            } else {
                quote!(let #index: usize = #position;)
            };
            (quote!(0..#len), at)
        };
        let outer = self.counted_index.replace(index.clone());
        let bound = self.adapted_bind(pat, chain);
        self.counted_index = outer;
        let (tests, lets) = bound?;
        Some(Head {
            setup,
            range,
            lets: quote!(#at #tests #lets),
            derefs: std::mem::take(&mut self.adapted_derefs),
        })
    }

    /// The filters' tests and the item's `let`s for `pat` (its rewrites of `*name` left
    /// in `adapted_derefs`).
    fn adapted_bind(&mut self, pat: &Pat, chain: &Chain) -> Option<(TokenStream, TokenStream)> {
        let mut tests = TokenStream::new();
        for step in &chain.steps {
            tests.extend(match step {
                Step::Filter(closure, item, pass) => self.filter_test(closure, item, pass)?,
                Step::Map(closure, item, outs) => self.map_value(closure, item, outs)?,
            });
        }
        let (mut lets, mut binds, mut derefs) = (Vec::new(), Vec::new(), Vec::new());
        self.bind(pat, &chain.item, &mut lets, &mut binds, &mut derefs)?;
        self.adapted_derefs = derefs;
        Some((tests, quote!(#(#lets)* #(#binds)*)))
    }

    /// A [`Step::Map`]: `let out = { pat bound to item; e };`, the closure's names bound in
    /// a block of their own (the rest of the iteration never sees them).
    fn map_value(
        &mut self,
        closure: &syn::ExprClosure,
        item: &Item,
        outs: &[Ident],
    ) -> Option<TokenStream> {
        let (mut lets, mut binds, mut derefs) = (Vec::new(), Vec::new(), Vec::new());
        let aliased = self.aliases.len();
        self.bind(&closure.inputs[0], item, &mut lets, &mut binds, &mut derefs)?;
        let aliases = self.aliases.split_off(aliased);
        let mut body = (*closure.body).clone();
        Derefs::expr(&derefs, &mut body);
        Aliases(&aliases).visit_expr_mut(&mut body);
        if let [out] = outs
            && tail_tuple_arity(&body).is_none()
        {
            return Some(quote! {
                let #out = { #(#lets)* #(#binds)* #body };
            });
        }
        // a tuple's parts, each assigned its local in order where the tuple was built
        let (stmts, parts) = tuple_tail(body, outs.len())?;
        Some(quote! {
            #(let #outs;)*
            {
                #(#lets)* #(#binds)* #(#stmts)*
                #(#outs = #parts;)*
            }
        })
    }

    /// `.filter(|pat| test)` on `item` as `if !{ lets; test } { continue; }`. The closure's argument is a reference to the item: a pattern `&p`
    /// binds `p` to the item as a map's would; a name (or names in a tuple, by match
    /// ergonomics) is one reference more than the item, so one `*` less is written in
    /// the test for each (`|(a, _)| **a > 0.0` reads `a`'s value). Left as written (`None`)
    /// for a closure that is `move` (its captures would be its own copies) or `async`,
    /// leaves early (`return`, `?`), binds such a name again or names it in a macro.
    fn filter_test(
        &mut self,
        closure: &syn::ExprClosure,
        item: &Item,
        pass: &Pass,
    ) -> Option<TokenStream> {
        if closure.asyncness.is_some()
            || closure.capture.is_some()
            || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body))
        {
            return None;
        }
        let (pat, layered) = match strip_pat_type(&closure.inputs[0]) {
            Pat::Reference(reference) if reference.mutability.is_none() => {
                ((*reference.pat).clone(), Vec::new())
            }
            other => {
                let mut layered = Vec::new();
                (under_reference(other, &mut layered)?, layered)
            }
        };
        let mut body = (*closure.body).clone();
        if !layered.is_empty() {
            let mut bound = PatNames::default();
            bound.visit_expr(&body);
            let mut in_macros = HashSet::new();
            MacroIdents(&mut in_macros).visit_expr(&body);
            if layered.iter().any(|name| {
                bound.0.contains(&name.to_string()) || in_macros.contains(&name.to_string())
            }) {
                return None;
            }
            OneDerefLess(&layered).visit_expr_mut(&mut body);
        }
        let (mut lets, mut binds, mut derefs) = (Vec::new(), Vec::new(), Vec::new());
        let aliased = self.aliases.len();
        self.bind(&pat, item, &mut lets, &mut binds, &mut derefs)?;
        let aliases = self.aliases.split_off(aliased);
        Derefs::expr(&derefs, &mut body);
        Aliases(&aliases).visit_expr_mut(&mut body);
        // (the test as the condition itself: lowering knows a condition for a test of
        // values, not a `bool` local holding one)
        let test = quote!({ #(#lets)* #(#binds)* #body });
        Some(match pass {
            Pass::Filter => quote! {
                if !#test {
                    continue;
                }
            },
            Pass::TakeWhile => quote! {
                if !#test {
                    break;
                }
            },
            Pass::SkipWhile(skipping) => quote! {
                if #skipping {
                    if #test {
                        continue;
                    }
                    #skipping = false;
                }
            },
        })
    }

    /// `chain.fold((a, b), |(s, q), v| (e, f))` (a tuple accumulator of any arity, bound
    /// by a tuple of names): one accumulator per part, `{ let mut acc0 = a; let mut acc1 =
    /// b; for .. { let s = acc0; let q = acc1; acc0 = e; acc1 = f; } (acc0, acc1) }`, the
    /// parts of the initial value and of each step evaluated in their order, each step's
    /// parts all computed from the pattern's copies before the next step. A step that is
    /// no tuple literal (a block ending in one is followed to it) is destructured into
    /// temporaries first. Its value, a tuple, is taken apart where it is read
    /// ([`tuple_fold_let`](Self::tuple_fold_let), [`tuple_fold_part`](Self::tuple_fold_part)).
    fn tuple_fold(
        &mut self,
        chain: &Chain,
        init: &Expr,
        closure: &syn::ExprClosure,
    ) -> Option<Expr> {
        let Pat::Tuple(parts) = strip_pat_type(&closure.inputs[0]) else {
            return None;
        };
        if chain.map.is_some()
            || closure.asyncness.is_some()
            || closure.capture.is_some()
            || crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body))
            || parts.elems.is_empty()
            || !parts.elems.iter().all(|part| match part {
                Pat::Ident(name) => name.by_ref.is_none() && name.subpat.is_none(),
                Pat::Wild(_) => true,
                _ => false,
            })
        {
            return None;
        }
        let accs: Vec<Ident> = (0..parts.elems.len()).map(|_| self.fresh("acc")).collect();
        let starts = match strip_parens(init) {
            Expr::Tuple(tuple) if tuple.elems.len() == accs.len() => {
                let values = tuple.elems.iter();
                quote!(#(let mut #accs = #values;)*)
            }
            _ => quote!(let (#(mut #accs),*) = #init;),
        };
        let Head {
            setup,
            range,
            lets,
            derefs,
        } = self.head(&closure.inputs[1], chain)?;
        let mut body: Expr = (*closure.body).clone();
        Derefs::expr(&derefs, &mut body);
        Aliases(&std::mem::take(&mut self.aliases)).visit_expr_mut(&mut body);
        let copies = parts
            .elems
            .iter()
            .zip(&accs)
            .filter_map(|(part, acc)| match part {
                Pat::Wild(_) => None,
                part => Some(quote!(let #part = #acc;)),
            });
        let step = self.tuple_step(&body, &accs);
        let k = index_var();
        Some(syn::parse_quote!({
            #starts
            #setup
            for #k in #range {
                #lets
                #(#copies)*
                #step
            }
            (#(#accs),*)
        }))
    }

    /// The accumulators `accs` assigned a step's tuple `body`: part by part for a tuple
    /// literal (in order; the parts read the pattern's copies, never the accumulators),
    /// through a block ending in one and the branches of an `if` with an `else`, else
    /// through temporaries.
    fn tuple_step(&mut self, body: &Expr, accs: &[Ident]) -> TokenStream {
        match strip_parens(body) {
            Expr::Tuple(tuple) if tuple.elems.len() == accs.len() => {
                let values = tuple.elems.iter();
                quote!(#(#accs = #values;)*)
            }
            Expr::Block(block)
                if block.label.is_none()
                    && matches!(block.block.stmts.last(), Some(syn::Stmt::Expr(_, None))) =>
            {
                let (tail, stmts) = block.block.stmts.split_last().expect("a tail");
                let syn::Stmt::Expr(tail, None) = tail else {
                    unreachable!("matched")
                };
                let step = self.tuple_step(tail, accs);
                quote!({ #(#stmts)* #step })
            }
            Expr::If(branch) if branch.else_branch.is_some() => {
                let then = Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: branch.then_branch.clone(),
                });
                let (then, otherwise) = (
                    self.tuple_step(&then, accs),
                    self.tuple_step(&branch.else_branch.as_ref().expect("matched").1, accs),
                );
                let cond = &branch.cond;
                quote!(if #cond #then else #otherwise)
            }
            other => {
                let temps: Vec<Ident> = accs.iter().map(|_| self.fresh("part")).collect();
                quote!(let (#(#temps),*) = #other; #(#accs = #temps;)*)
            }
        }
    }

    /// An element's option with a default: `a.get(i).copied().unwrap_or(d)` (also
    /// `first()`, `last()`, `cloned()`), `.unwrap_or_else(|| d)`, `.unwrap_or_default()`,
    /// and `a.get(i).map_or(d, |v| e)` / `.map_or_else(|| d, |v| e)` (copied or not): the
    /// index evaluated once, then an eager default (`unwrap_or`, `map_or`, evaluated
    /// always, as the call's argument is, before the element is read), then the element
    /// by index where it exists, else the default: `{ let index: usize = i; let d = d; if
    /// index < a.len() { a[index] } else { d } }`. A closure's pattern binds the element
    /// as `Some(v)` would (a reference, or a copy after `copied`); a closure that is `move`
    /// or `async`, takes other patterns or leaves early is left as written.
    fn element_or(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let args: Vec<&Expr> = call.args.iter().collect();
        let method = call.method.to_string();
        if !matches!(
            (method.as_str(), &args[..]),
            ("unwrap_or" | "unwrap_or_else", [_])
                | ("unwrap_or_default", [])
                | ("map_or" | "map_or_else", [_, _])
        ) {
            return None;
        }
        let (array, at, copied) = self.element_call(&call.receiver)?;
        // a closure's body, with its parameters
        let closure = |expr: &Expr, inputs: usize| -> Option<syn::ExprClosure> {
            let Expr::Closure(closure) = strip_parens(expr) else {
                return None;
            };
            (closure.inputs.len() == inputs
                && closure.asyncness.is_none()
                && closure.capture.is_none()
                && !crate::syntax::leaves_early(quote::ToTokens::to_token_stream(&closure.body)))
            .then(|| closure.clone())
        };
        let index = self.fresh("element_index");
        let fallback = self.fresh("element_default");
        // the default: evaluated first (`eager`), or where the element is missing
        let (eager, otherwise) = match (method.as_str(), args.first()) {
            ("unwrap_or" | "map_or", Some(default)) => {
                (quote!(let #fallback = #default;), quote!(#fallback))
            }
            ("unwrap_or_else" | "map_or_else", Some(default)) => {
                let body = closure(default, 0)?.body;
                (TokenStream::new(), quote!(#body))
            }
            _ => {
                let generated = crate::generate::paths::generated();
                (TokenStream::new(), quote!(#generated::element_zero()))
            }
        };
        let present = if method.starts_with("map_or") {
            let map = closure(args[1], 1)?;
            let body = &map.body;
            let binding = match strip_pat_type(&map.inputs[0]) {
                Pat::Wild(_) => TokenStream::new(),
                Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                    if copied {
                        quote!(let #name = #array[#index];)
                    } else {
                        quote!(let #name = &#array[#index];)
                    }
                }
                Pat::Reference(reference) if reference.mutability.is_none() && !copied => {
                    let pat = &reference.pat;
                    quote!(let #pat = #array[#index];)
                }
                _ => return None,
            };
            quote!({ #binding #body })
        } else if copied {
            quote!(#array[#index])
        } else {
            // `a.first().unwrap_or(&d)`: a reference, left as written
            return None;
        };
        let span = call.method.span();
        Some(syn::parse_quote_spanned!(span=> {
            let #index: usize = #at;
            #eager
            if #index < #array.len() { #present } else { #otherwise }
        }))
    }

    /// `chain.fold((a, b), |(s, q), v| ..).0` (any part): the fold rewritten as any
    /// (over parts of arrays too), its value that part of the tuple it ends in.
    fn tuple_fold_part(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::Field(field) = strip_parens(expr) else {
            return None;
        };
        let syn::Member::Unnamed(part) = &field.member else {
            return None;
        };
        let arity = tuple_fold_arity(&field.base)?;
        let mut base = (*field.base).clone();
        self.visit_expr_mut(&mut base);
        let (stmts, parts) = tuple_tail(base, arity)?;
        let part = parts.get(part.index as usize)?;
        Some(syn::parse_quote!({ #(#stmts)* #part }))
    }

    /// `let (s, q) = chain.fold((a, b), |(s, q), v| ..);` (names or `_`, typed by a tuple
    /// type or not): the fold's statements in the block, then `let s = acc0; let q =
    /// acc1;` (a tuple of differentiable values is no value lowering holds; its parts
    /// are). The statements bind fresh names only, so the user's code sees the pattern's
    /// names alone, bound where the `let` bound them.
    fn tuple_fold_let(&mut self, stmt: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return None;
        }
        let (pat, types): (&Pat, Option<Vec<&syn::Type>>) = match &local.pat {
            Pat::Type(typed) => match &*typed.ty {
                syn::Type::Tuple(tuple) => (&*typed.pat, Some(tuple.elems.iter().collect())),
                _ => return None,
            },
            pat => (pat, None),
        };
        let Pat::Tuple(names) = pat else {
            return None;
        };
        let arity = tuple_fold_arity(&init.expr)?;
        if names.elems.len() != arity
            || types.as_ref().is_some_and(|t| t.len() != arity)
            || !names.elems.iter().all(|name| match name {
                Pat::Ident(name) => name.by_ref.is_none() && name.subpat.is_none(),
                Pat::Wild(_) => true,
                _ => false,
            })
        {
            return None;
        }
        let mut value = (*init.expr).clone();
        self.visit_expr_mut(&mut value);
        let (mut stmts, parts) = tuple_tail(value, arity)?;
        for (i, (name, part)) in names.elems.iter().zip(parts).enumerate() {
            if let Pat::Wild(_) = name {
                continue;
            }
            stmts.push(match &types {
                Some(types) => {
                    let ty = types[i];
                    syn::parse_quote!(let #name: #ty = #part;)
                }
                None => syn::parse_quote!(let #name = #part;),
            });
        }
        Some(stmts)
    }
}

/// The arity of `chain.fold(init, |(s, q, ..), v| ..)`'s tuple accumulator.
fn tuple_fold_arity(expr: &Expr) -> Option<usize> {
    let Expr::MethodCall(call) = strip_parens(expr) else {
        return None;
    };
    if call.method != "fold" || call.args.len() != 2 {
        return None;
    }
    let Expr::Closure(closure) = strip_parens(&call.args[1]) else {
        return None;
    };
    match (
        closure.inputs.len(),
        closure.inputs.first().map(strip_pat_type),
    ) {
        (2, Some(Pat::Tuple(parts))) => Some(parts.elems.len()),
        _ => None,
    }
}

/// The arity of the tuple literal `expr` ends in (through blocks), if it does.
fn tail_tuple_arity(expr: &Expr) -> Option<usize> {
    match expr {
        Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
            match block.block.stmts.last() {
                Some(syn::Stmt::Expr(tail, None)) => tail_tuple_arity(tail),
                _ => None,
            }
        }
        Expr::Paren(paren) => tail_tuple_arity(&paren.expr),
        Expr::Tuple(tuple) if !tuple.elems.is_empty() => Some(tuple.elems.len()),
        _ => None,
    }
}

/// A rewritten tuple fold (`{ stmts; (acc0, acc1) }`, in the blocks binding its parts and
/// fields, whose names are fresh) as its statements, flattened, and the parts its tail
/// holds; `None` if it is not one (the fold was left as written).
fn tuple_tail(expr: Expr, arity: usize) -> Option<(Vec<syn::Stmt>, Vec<Expr>)> {
    let mut stmts = Vec::new();
    let mut expr = expr;
    loop {
        match expr {
            Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                let mut inner = block.block.stmts;
                let Some(syn::Stmt::Expr(tail, None)) = inner.pop() else {
                    return None;
                };
                stmts.extend(inner);
                expr = tail;
            }
            Expr::Tuple(tuple) if tuple.elems.len() == arity => {
                return Some((stmts, tuple.elems.into_iter().collect()));
            }
            _ => return None,
        }
    }
}

/// Whether a chain has `skip`/`take`/`step_by` among its adapters (those `Parts` left:
/// after an `enumerate`, a `zip` or a `rev`).
fn counts_items(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::MethodCall(call) => {
            matches!(
                call.method.to_string().as_str(),
                "skip" | "take" | "step_by"
            ) || counts_items(&call.receiver)
        }
        _ => false,
    }
}

/// A filter's pattern as it binds under the reference its closure is given: the same
/// pattern, its names (each one reference more than the item's part) in `layered`, and a
/// `&p` inside a tuple matching the part itself (as edition 2021 reads it). `None` for
/// any other pattern.
fn under_reference(pat: &Pat, layered: &mut Vec<Ident>) -> Option<Pat> {
    match pat {
        Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
            layered.push(name.ident.clone());
            Some(pat.clone())
        }
        Pat::Wild(_) => Some(pat.clone()),
        Pat::Paren(paren) => under_reference(&paren.pat, layered),
        Pat::Type(typed) => under_reference(&typed.pat, layered),
        Pat::Tuple(tuple) => {
            let mut tuple = tuple.clone();
            for elem in tuple.elems.iter_mut() {
                *elem = match &*elem {
                    Pat::Reference(reference) if reference.mutability.is_none() => {
                        (*reference.pat).clone()
                    }
                    other => under_reference(other, layered)?,
                };
            }
            Some(Pat::Tuple(tuple))
        }
        _ => None,
    }
}

/// Removes one `*` from each dereference of the names (`**a` is `*a`, `*a` is `a`): a
/// filter's names bound one reference less than its closure's.
struct OneDerefLess<'n>(&'n [Ident]);

impl VisitMut for OneDerefLess<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Unary(unary) = expr
            && matches!(unary.op, syn::UnOp::Deref(_))
            && let Some(ident) = single_ident(strip_parens(&unary.expr))
            && self.0.contains(ident)
        {
            *expr = (*unary.expr).clone();
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expression after [`FuseMaps`], as tokens (spacing as `quote` prints it).
    fn fused(expr: Expr) -> String {
        let mut expr = expr;
        FuseMaps.visit_expr_mut(&mut expr);
        quote!(#expr).to_string()
    }

    fn tokens(expr: Expr) -> String {
        quote!(#expr).to_string()
    }

    #[test]
    fn a_chain_of_maps_is_one_map() {
        assert_eq!(
            fused(syn::parse_quote!(
                x.iter()
                    .map(|v| v * k)
                    .map(|u| u.sin())
                    .map(|s: f64| s * s)
                    .sum()
            )),
            tokens(syn::parse_quote!(
                x.iter()
                    .map(|v| {
                        let s: f64 = {
                            let u = v * k;
                            u.sin()
                        };
                        s * s
                    })
                    .sum()
            )),
        );
    }

    /// The expression after [`CommuteMaps`].
    fn commuted(expr: Expr) -> String {
        let mut expr = expr;
        CommuteMaps.visit_expr_mut(&mut expr);
        quote!(#expr).to_string()
    }

    /// `rev` and `take` move before any map (the same calls of it, in the same order),
    /// through a chain of them; `skip` and `step_by` only before a map without effects.
    #[test]
    fn adapters_move_before_a_map() {
        assert_eq!(
            commuted(syn::parse_quote!(
                x.iter().map(|v| v * v).rev().take(2).enumerate()
            )),
            tokens(syn::parse_quote!(
                x.iter().rev().take(2).map(|v| v * v).enumerate()
            )),
        );
        assert_eq!(
            commuted(syn::parse_quote!(x.iter().map(|v| v.exp()).skip(1).zip(y))),
            tokens(syn::parse_quote!(x.iter().skip(1).map(|v| v.exp()).zip(y))),
        );
        // a counting map, and one reading by index (which may panic), before a `skip`
        for expr in [
            syn::parse_quote!(
                x.iter()
                    .map(|v| {
                        calls += 1;
                        v * 2.0
                    })
                    .skip(1)
            ),
            syn::parse_quote!(x.iter().map(|v| v * y[3]).step_by(2)),
            syn::parse_quote!(x.iter().map(move |v| v * 2.0).rev()),
        ] {
            let expr: Expr = expr;
            assert_eq!(commuted(expr.clone()), tokens(expr));
        }
        // a counting map before `rev` or `take`: it still runs once per item yielded
        assert_eq!(
            commuted(syn::parse_quote!(
                x.iter()
                    .map(|v| {
                        calls += 1;
                        *v
                    })
                    .take(2)
            )),
            tokens(syn::parse_quote!(x.iter().take(2).map(|v| {
                calls += 1;
                *v
            }))),
        );
    }

    /// Fused, `|y| y + x` would read the first closure's `x`, not the outer one.
    #[test]
    fn a_pair_that_would_shadow_is_kept() {
        let expr: Expr = syn::parse_quote!(a.iter().map(|x| x * 2.0).map(|y| y + x).sum());
        assert_eq!(fused(expr.clone()), tokens(expr));
        // the second pattern binding the name again is no shadowing
        assert_eq!(
            fused(syn::parse_quote!(
                a.iter().map(|x| x * 2.0).map(|x| x + 1.0)
            )),
            tokens(syn::parse_quote!(a.iter().map(|x| {
                let x = x * 2.0;
                x + 1.0
            }))),
        );
    }

    /// A `return` or `?` in the first body would skip the second; a `move` on one only
    /// would change what the other captures.
    #[test]
    fn pairs_that_leave_early_or_capture_differently_are_kept() {
        for expr in [
            syn::parse_quote!(
                a.map(|x| {
                    if x > 0.0 {
                        return 1.0;
                    }
                    x
                })
                .map(|y| y * 2.0)
            ),
            syn::parse_quote!(a.map(|x| x.parse::<f64>()?).map(|y| y * 2.0)),
            syn::parse_quote!(a.map(move |x| x * k).map(|y| y * 2.0)),
        ] {
            let expr: Expr = expr;
            assert_eq!(fused(expr.clone()), tokens(expr));
        }
    }

    /// The tail expression of `stmts` after [`tensor_folds`], as tokens.
    fn folded(expr: Expr) -> String {
        let stmts = tensor_folds(vec![syn::Stmt::Expr(expr, None)]);
        let block = syn::Block {
            brace_token: Default::default(),
            stmts,
        };
        quote!(#block).to_string()
    }

    #[test]
    fn a_tensor_fold_is_the_loop_it_stands_for() {
        let rewritten = folded(syn::parse_quote!(
            c.iter()
                .rev()
                .map(|r| x - *r)
                .fold(x * 0.0, |acc, f| acc * f)
        ));
        // the source as written, each closure's pattern bound in the order of its call,
        // the accumulator carried by the loop
        for part in [
            "for fold_item1 in c . iter () . rev ()",
            "let f = { let r = fold_item1 ; x - * r } ;",
            "let acc = fold_acc1 ;",
            "fold_acc1 = acc * f ;",
        ] {
            assert!(rewritten.contains(part), "{part} in {rewritten}");
        }
    }

    /// A closure that may leave early, a `move` closure and a receiver that is no visible
    /// iterator (a user type's own `fold`) are left as written.
    #[test]
    fn folds_that_are_no_plain_loop_are_kept() {
        for expr in [
            syn::parse_quote!(c.iter().fold(x * 0.0, |acc, v| {
                if *v > 1.0 {
                    return acc;
                }
                acc + *v
            })),
            syn::parse_quote!(c.iter().fold(x * 0.0, move |acc, v| acc * y + *v)),
            syn::parse_quote!(tree.fold(x * 0.0, |acc, v| acc + v)),
        ] {
            let expr: Expr = expr;
            assert_eq!(folded(expr.clone()), tokens(syn::parse_quote!({ #expr })));
        }
    }
}
