//! Local arrays of enum values built in the body and iterated (scalar mode), rewritten
//! before `enums` into loops over the positions whose item is one enum value `enums` then
//! splits into a tag and field locals: `let shapes = [Shape::Circle(x[0]),
//! Shape::Square(x[1])]; for s in &shapes { total += match s { .. }; }` becomes
//!
//! ```text
//! let shapes_0_0 = x[0];               // every payload, in the order written
//! let shapes_1_0 = x[1];
//! for shapes_k in 0..2 {
//!     let s = match shapes_k { 0 => Shape::Circle(shapes_0_0), 1 => Shape::Square(shapes_1_0), _ => unreachable!() };
//!     total += match s { Shape::Circle(r) => { let r = &r; PI * r * r } .. };
//! }
//! ```
//!
//! The local is `let name = [..];` or `vec![..]` (not `mut`), every element a variant's
//! construction (`Enum::Variant(..)`, `Enum::Unit`: `enums::construction`). Its payloads
//! are bound once, in the order the literal evaluates them, so each item is built from the
//! values the array held. Every later use must be one of these:
//!
//! - `for item in &name` / `name.iter()` whose body reads the item only as the value a
//!   `match` or `if let` matches (`only_matched`; the item a reference, as the original's: an arm
//!   of `match item` or `if let .. = item` binds each field again by reference, `let r =
//!   &r;`, so that `*r` and `r * r` read as they did), or `for item in name` /
//!   `name.into_iter()` (by value), the item a plain name;
//! - `name.len()` (the literal's count), `name.is_empty()`.
//!
//! Anything else, or a binding of the same name after it, leaves the local as written, and
//! lowering rejects each variant's construction with its own message.

use quote::format_ident;
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt, Token};

/// The body's statements with every rewritable local array of enum values rewritten, in
/// every block.
pub fn rewrite(stmts: Vec<Stmt>) -> Vec<Stmt> {
    crate::syntax::rewrite_locals(stmts, &mut |stmt, rest| rewrite_local(stmt, rest))
}

/// One array: its name, and each element's construction from its payload's locals.
struct Elements {
    name: Ident,
    builds: Vec<Expr>,
}

/// `stmt`, if it declares a local array of enum values whose every use in `rest` is
/// rewritable: the payloads' locals and `rest` rewritten.
fn rewrite_local(stmt: &Stmt, rest: &[Stmt]) -> Option<(Vec<Stmt>, Vec<Stmt>)> {
    let (pat, value) = crate::syntax::named_let(stmt)?;
    if pat.mutability.is_some() {
        return None;
    }
    let elements: Vec<Expr> = match crate::syntax::strip_parens(value) {
        Expr::Array(array) => array.elems.iter().cloned().collect(),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => mac
            .mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .ok()?
            .into_iter()
            .collect(),
        _ => return None,
    };
    if elements.is_empty()
        || rest
            .iter()
            .any(|stmt| crate::syntax::stmt_binds(stmt, &pat.ident))
    {
        return None;
    }
    let mut payloads: Vec<Stmt> = Vec::new();
    let mut builds = Vec::new();
    for (j, element) in elements.iter().enumerate() {
        let (_, args) = crate::enums::construction(element)?;
        let locals: Vec<Ident> = (0..args.len())
            .map(|i| crate::syntax::unspelled_ident(format_ident!("{}_{j}_{i}", pat.ident)))
            .collect();
        for (local, arg) in locals.iter().zip(&args) {
            payloads.push(syn::parse_quote!(let #local = #arg;));
        }
        builds.push(match crate::syntax::strip_parens(element) {
            Expr::Call(call) => {
                let func = &call.func;
                syn::parse_quote!(#func(#(#locals),*))
            }
            path => path.clone(),
        });
    }
    let array = Elements {
        name: pat.ident.clone(),
        builds,
    };
    let mut rest = rest.to_vec();
    let mut uses = Uses {
        array: &array,
        failed: false,
        loops: 0,
    };
    for stmt in &mut rest {
        uses.visit_stmt_mut(stmt);
    }
    if uses.failed || crate::syntax::mentions_with_macros(&rest, &array.name) {
        return None;
    }
    Some((payloads, rest))
}

/// Rewrites the uses of one array; `failed` when one is outside the rewrite.
struct Uses<'a> {
    array: &'a Elements,
    failed: bool,
    /// The loops rewritten so far (each counter a name of its own).
    loops: usize,
}

impl Uses<'_> {
    /// Whether the `for` loop's iterator is the array's elements: `Some(true)` by
    /// reference (`&name`, `name.iter()`), `Some(false)` by value (`name`,
    /// `name.into_iter()`).
    fn source(&self, expr: &Expr) -> Option<bool> {
        let name = &self.array.name;
        match crate::syntax::strip_parens(expr) {
            Expr::Reference(reference)
                if reference.mutability.is_none()
                    && crate::syntax::is_name(&reference.expr, name) =>
            {
                Some(true)
            }
            Expr::MethodCall(call)
                if call.args.is_empty() && crate::syntax::is_name(&call.receiver, name) =>
            {
                match call.method.to_string().as_str() {
                    "iter" => Some(true),
                    "into_iter" => Some(false),
                    _ => None,
                }
            }
            other if crate::syntax::is_name(other, name) => Some(false),
            _ => None,
        }
    }

    /// `for item in <the array> { body }` as the loop over its positions, the item built
    /// as each iteration starts; `None` if the pattern is no plain name.
    fn positions_loop(&mut self, for_loop: &syn::ExprForLoop, by_reference: bool) -> Option<Expr> {
        let Pat::Ident(item) = &*for_loop.pat else {
            return None;
        };
        if item.by_ref.is_some()
            || item.subpat.is_some()
            || !only_matched(&for_loop.body, &item.ident)
        {
            return None;
        }
        let counter = crate::syntax::fresh_local(format!("{}_k{}", self.array.name, self.loops));
        self.loops += 1;
        let n = self.array.builds.len();
        let arms = self
            .array
            .builds
            .iter()
            .enumerate()
            .map(|(j, build)| -> syn::Arm { syn::parse_quote!(#j => #build,) });
        let mut body = for_loop.body.clone();
        if by_reference {
            FieldsByReference { item: &item.ident }.visit_block_mut(&mut body);
        }
        let label = &for_loop.label;
        let stmts = &body.stmts;
        Some(syn::parse_quote!(
            #label for #counter in 0..#n {
                let #item = match #counter { #(#arms)* _ => unreachable!() };
                #(#stmts)*
            }
        ))
    }
}

impl VisitMut for Uses<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let name = &self.array.name;
        let rewritten: Option<Option<Expr>> = match expr {
            Expr::ForLoop(for_loop) => self
                .source(&for_loop.expr)
                .map(|by_reference| self.positions_loop(for_loop, by_reference)),
            Expr::MethodCall(call)
                if call.args.is_empty() && crate::syntax::is_name(&call.receiver, name) =>
            {
                let n = self.array.builds.len();
                match call.method.to_string().as_str() {
                    "len" => Some(Some(syn::parse_quote!(#n))),
                    "is_empty" => Some(Some(syn::parse_quote!(false))),
                    _ => Some(None),
                }
            }
            _ => None,
        };
        match rewritten {
            Some(Some(rewritten)) => *expr = rewritten,
            Some(None) => self.failed = true,
            None => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether the loop's `body` reads `item` only as the value a `match` or an `if let`
/// matches, by patterns `enums` takes (`_`, a variant's path, a variant's fields bound by
/// plain names or `_` or `..`, guards but on the last arm): then `enums` splits the built
/// item. Any other use (`area(s)`, `*s`, a field bound by `ref`) would meet an owned value
/// where the original had a reference, so the loop is left as written (a constant array
/// then runs as the user wrote it).
fn only_matched(body: &syn::Block, item: &Ident) -> bool {
    struct Scrutinees<'a> {
        item: &'a Ident,
        taken: bool,
    }
    fn arm_pattern(pat: &Pat) -> bool {
        match pat {
            Pat::Wild(_) | Pat::Path(_) => true,
            Pat::TupleStruct(tuple) => tuple.elems.iter().all(|elem| match elem {
                Pat::Wild(_) | Pat::Rest(_) => true,
                Pat::Ident(name) => name.by_ref.is_none() && name.subpat.is_none(),
                _ => false,
            }),
            _ => false,
        }
    }
    impl VisitMut for Scrutinees<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            let matched = match expr {
                Expr::Match(expr_match) if crate::syntax::is_name(&expr_match.expr, self.item) => {
                    let last = expr_match.arms.len().saturating_sub(1);
                    self.taken &=
                        expr_match
                            .arms
                            .iter()
                            .enumerate()
                            .all(|(k, arm)| match &arm.pat {
                                Pat::Guard(guarded) => k != last && arm_pattern(&guarded.pat),
                                pat => arm_pattern(pat),
                            });
                    Some(&mut expr_match.expr)
                }
                Expr::If(expr_if) => match &mut *expr_if.cond {
                    Expr::Let(test) if crate::syntax::is_name(&test.expr, self.item) => {
                        self.taken &= arm_pattern(&test.pat);
                        Some(&mut test.expr)
                    }
                    _ => None,
                },
                _ => None,
            };
            if let Some(scrutinee) = matched {
                **scrutinee = syn::parse_quote!(());
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut body = body.clone();
    let mut scrutinees = Scrutinees { item, taken: true };
    scrutinees.visit_block_mut(&mut body);
    scrutinees.taken && !crate::syntax::mentions_unshadowed(&body.stmts, item)
}

/// In a loop over the array by reference, each arm of `match item` (and the `then` of `if
/// let .. = item`) binds its fields again by reference as it starts (and in its guard),
/// as the original's default binding mode bound them through the reference.
struct FieldsByReference<'a> {
    item: &'a Ident,
}

/// `let name = &name;` for each name `pat` binds.
fn rebound(pat: &Pat) -> Vec<Stmt> {
    crate::syntax::pattern_idents(pat)
        .into_iter()
        .map(|name| syn::parse_quote!(let #name = &#name;))
        .collect()
}

impl VisitMut for FieldsByReference<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        match expr {
            Expr::Match(expr_match) if crate::syntax::is_name(&expr_match.expr, self.item) => {
                for arm in &mut expr_match.arms {
                    let rebound = match &arm.pat {
                        Pat::Guard(guarded) => rebound(&guarded.pat),
                        pat => rebound(pat),
                    };
                    if rebound.is_empty() {
                        continue;
                    }
                    if let Pat::Guard(guarded) = &mut arm.pat {
                        let guard = &guarded.guard;
                        *guarded.guard = syn::parse_quote!({ #(#rebound)* #guard });
                    }
                    let body = &arm.body;
                    *arm.body = syn::parse_quote!({ #(#rebound)* #body });
                    arm.comma = Some(Default::default());
                }
            }
            Expr::If(expr_if) => {
                if let Expr::Let(test) = crate::syntax::strip_parens(&expr_if.cond)
                    && crate::syntax::is_name(&test.expr, self.item)
                {
                    let rebound = rebound(&test.pat);
                    let stmts = &expr_if.then_branch.stmts;
                    expr_if.then_branch = syn::parse_quote!({ #(#rebound)* #(#stmts)* });
                }
            }
            _ => {}
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
