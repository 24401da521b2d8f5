//! Enum values built in the body and only matched (scalar mode), rewritten before lowering
//! into what lowering differentiates: a tag and one local per payload field. It takes the
//! body's statements and gives them rewritten.
//!
//! A local `let [mut] shape[: Shape] = <build>;` whose initial value builds an enum variant,
//! `Shape::Circle(r)` (a path of two segments or more, the last capitalised, called with
//! the payload) or `Shape::Empty` (no payload), or an `if`/`match`/block whose every
//! branch ends in one or leaves (`return`, `break`, `continue`, `panic!`), becomes a `usize`
//! tag local, `shape_tag`, and a local per field of each variant built, `shape_v0_0`, ..,
//! declared and then assigned in each branch: the variant's number as the tag, its payload
//! to its fields in order (evaluated in order, as the call evaluates its arguments), and
//! every other variant's fields nothing (each field a [`Slot`](crate::slots), holding its
//! type's `Default` or, when the field is a constant, `None`; never read while the tag says
//! otherwise). Every later use must be one of these, rewritten in place:
//!
//! - `shape = <build>;` (assigned the same way; `let mut` only, as Rust requires);
//! - `match shape { .. }` with arms `Shape::Circle(r, _)`, `Shape::Empty`,
//!   `Shape::Circle(..)` and `_` (guards too): an `if` chain over the tag in the arms' order,
//!   each name bound to its field's local inside the arm (and inside its guard);
//! - `if let Shape::Circle(r) = shape { .. } else { .. }` (the `match` it is).
//!
//! The rewrite is the same program: the value's variant is the one its last build made,
//! and an arm runs when the original's would (arms of variants the body never builds are
//! never taken, so they are dropped). Every variant built must be named by some arm's
//! pattern: that is what tells a variant (a pattern names only variants and structs) from
//! an associated function of the same spelling. Where any use is another form (the value
//! passed on, copied, returned, compared, matched by reference or inside a tuple, a field
//! bound by `ref`, an or-pattern, a struct-like variant), or the name is named in a macro
//! or anywhere else outside the scope of a binding of the same name (an arm binding `r`
//! of another enum's `match` reads its own `r`), the local is left as written, and
//! lowering rejects the variant's construction with its own message.

use std::collections::HashSet;

use quote::{ToTokens, format_ident};
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use crate::slots::{Slot, Slots};

/// The body's statements with every rewritable enum local rewritten, in every block, its
/// fields made by `slots`.
pub fn rewrite(stmts: Vec<Stmt>, slots: &mut Slots) -> Vec<Stmt> {
    crate::syntax::rewrite_locals(stmts, &mut |stmt, rest| rewrite_local(stmt, rest, slots))
}

/// One variant the body builds: its path as written and its payload's field locals.
struct Variant {
    path: String,
    fields: Vec<Slot>,
}

/// The tag and field locals of one enum local.
struct Parts {
    name: Ident,
    tag: Ident,
    variants: Vec<Variant>,
}

/// `stmt`, if it declares an enum local whose every use in `rest` is rewritable: its
/// declaration (the tag and field locals, then the initial value assigned) and `rest`
/// rewritten.
fn rewrite_local(stmt: &Stmt, rest: &[Stmt], slots: &mut Slots) -> Option<(Vec<Stmt>, Vec<Stmt>)> {
    // (a type, `let shape: Shape = ..`, is the enum's: the tag and fields have their own)
    let (pat, value) = crate::syntax::named_let(stmt)?;
    let mut parts = Parts {
        name: pat.ident.clone(),
        tag: crate::syntax::unspelled_ident(format_ident!("{}_tag", pat.ident)),
        variants: Vec::new(),
    };
    // every variant built, by the initial value and by later assignments, first: each
    // build assigns every variant's fields
    parts.collect(value, slots)?;
    let mut finder = Assignments {
        parts: &mut parts,
        slots,
        failed: false,
    };
    for stmt in rest {
        syn::visit::Visit::visit_stmt(&mut finder, stmt);
    }
    if finder.failed || parts.variants.is_empty() {
        return None;
    }
    let initial = parts.assign(value)?;
    let mut rest = rest.to_vec();
    let mut uses = Uses {
        parts: &parts,
        failed: false,
        named: HashSet::new(),
    };
    for stmt in &mut rest {
        uses.visit_stmt_mut(stmt);
    }
    let built: HashSet<&str> = parts.variants.iter().map(|v| v.path.as_str()).collect();
    if uses.failed
        || !built.iter().all(|path| uses.named.contains(*path))
        || crate::syntax::mentions_unshadowed(&rest, &parts.name)
    {
        return None;
    }
    let tag = &parts.tag;
    let mutability = &pat.mutability;
    let mut declaration: Vec<Stmt> = vec![syn::parse_quote!(let #mutability #tag: usize;)];
    for field in parts.variants.iter().flat_map(|v| &v.fields) {
        declaration.push(field.declare(*mutability, None));
    }
    declaration.push(Stmt::Expr(initial, Some(Default::default())));
    Some((declaration, rest))
}

/// A variant's construction: its path as written and its payload (empty for a unit
/// variant), if `expr` is one (a path of two segments or more, the last capitalised).
pub(crate) fn construction(expr: &Expr) -> Option<(String, Vec<&Expr>)> {
    let (path, args) = match expr {
        Expr::Call(call) => {
            let Expr::Path(path) = &*call.func else {
                return None;
            };
            (path, call.args.iter().collect())
        }
        Expr::Path(path) => (path, Vec::new()),
        _ => return None,
    };
    if path.qself.is_some() || !is_variant_path(&path.path) {
        return None;
    }
    Some((path.path.to_token_stream().to_string(), args))
}

/// `Enum::Variant` by Rust's naming convention: two segments or more, the last
/// capitalised, no generic arguments on it.
fn is_variant_path(path: &syn::Path) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    path.segments.len() >= 2
        && last.arguments.is_none()
        && last
            .ident
            .to_string()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase())
}

/// Whether `expr` leaves instead of ending with a value.
fn leaves(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(mac) => mac.mac.path.is_ident("panic") || mac.mac.path.is_ident("unreachable"),
        _ => false,
    }
}

impl Parts {
    /// Notes each variant `build` constructs (its arity must be the same everywhere);
    /// `None` if `build` is not a build expression.
    fn collect(&mut self, build: &Expr, slots: &mut Slots) -> Option<()> {
        match build {
            Expr::Paren(paren) => self.collect(&paren.expr, slots),
            Expr::If(expr_if) => {
                let (_, otherwise) = expr_if.else_branch.as_ref()?;
                self.collect_block(&expr_if.then_branch, slots)?;
                self.collect(otherwise, slots)
            }
            Expr::Match(expr_match) => {
                for arm in &expr_match.arms {
                    self.collect(&arm.body, slots)?;
                }
                Some(())
            }
            Expr::Block(block) if block.label.is_none() => self.collect_block(&block.block, slots),
            expr if leaves(expr) => Some(()),
            expr => {
                let (path, args) = construction(expr)?;
                match self.variants.iter().find(|v| v.path == path) {
                    Some(known) => (known.fields.len() == args.len()).then_some(()),
                    None => {
                        let k = self.variants.len();
                        let fields = (0..args.len())
                            .map(|j| {
                                slots.slot(crate::syntax::unspelled_ident(format_ident!(
                                    "{}_v{k}_{j}",
                                    self.name
                                )))
                            })
                            .collect();
                        self.variants.push(Variant { path, fields });
                        Some(())
                    }
                }
            }
        }
    }

    fn collect_block(&mut self, block: &syn::Block, slots: &mut Slots) -> Option<()> {
        match block.stmts.last()? {
            Stmt::Expr(tail, None) => self.collect(tail, slots),
            Stmt::Expr(tail, Some(_)) if leaves(tail) => Some(()),
            _ => None,
        }
    }

    /// `build` as statements assigning the tag and every field, branch by branch.
    fn assign(&self, build: &Expr) -> Option<Expr> {
        crate::syntax::assign_branches(build, &mut |expr| self.assign_leaf(expr), leaves)
    }

    /// One value `build` may end with ([`assign`](Self::assign)) as the statements that
    /// assign it.
    fn assign_leaf(&self, build: &Expr) -> Option<Expr> {
        match build {
            // a statement of its own (`{ unreachable!(); }`): an arm whose body is a bare
            // `panic!(..)`/`unreachable!()` beside arms that are blocks of assignments made
            // generated code that did not parse (the macro's panic "generated functions:
            // expected `;`"; regression `enum_built_by_a_match_with_a_panicking_arm`)
            expr if leaves(expr) => Some(syn::parse_quote!({ #expr; })),
            expr => {
                let (path, args) = construction(expr)?;
                let k = self.variants.iter().position(|v| v.path == path)?;
                let tag = &self.tag;
                // the payload evaluated in order, as the call evaluates it, before any field
                // changes (an argument may read the value being replaced); then the fields,
                // and the other variants' fields, never read while the tag is `k`
                let mut stmts: Vec<Stmt> = Vec::new();
                let temps: Vec<Ident> = (0..args.len())
                    .map(|j| crate::syntax::unspelled_ident(format_ident!("{}_arg{j}", self.name)))
                    .collect();
                for (temp, arg) in temps.iter().zip(&args) {
                    stmts.push(syn::parse_quote!(let #temp = #arg;));
                }
                for (field, temp) in self.variants[k].fields.iter().zip(&temps) {
                    stmts.push(field.set(temp));
                }
                for (other, variant) in self.variants.iter().enumerate() {
                    if other != k {
                        stmts.extend(variant.fields.iter().map(Slot::unset));
                    }
                }
                Some(syn::parse_quote!({ #(#stmts)* #tag = #k; }))
            }
        }
    }

    /// An arm's test of the tag and the bindings its pattern makes; `Some(None)` for a
    /// variant the body never builds (the arm is never taken); `None` for a pattern
    /// outside the rewrite.
    #[allow(clippy::type_complexity)]
    fn arm_test(
        &self,
        pat: &Pat,
        named: &mut HashSet<String>,
    ) -> Option<Option<(Option<Expr>, Vec<Stmt>)>> {
        let (path, elems): (&syn::Path, Vec<&Pat>) = match pat {
            Pat::Wild(_) => return Some(Some((None, Vec::new()))),
            Pat::Path(path) if path.qself.is_none() => (&path.path, Vec::new()),
            Pat::TupleStruct(tuple) if tuple.qself.is_none() => {
                (&tuple.path, tuple.elems.iter().collect())
            }
            _ => return None,
        };
        if !is_variant_path(path) {
            return None;
        }
        let path = path.to_token_stream().to_string();
        named.insert(path.clone());
        let Some(k) = self.variants.iter().position(|v| v.path == path) else {
            return Some(None);
        };
        let fields = &self.variants[k].fields;
        let whole_rest = matches!(&elems[..], [Pat::Rest(_)]);
        if !whole_rest && elems.len() != fields.len() {
            return None;
        }
        let mut bindings = Vec::new();
        if !whole_rest {
            for (elem, field) in elems.iter().zip(fields) {
                match elem {
                    Pat::Wild(_) => {}
                    Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                        let value = field.read();
                        bindings.push(syn::parse_quote!(let #name = #value;));
                    }
                    _ => return None,
                }
            }
        }
        let tag = &self.tag;
        Some(Some((Some(syn::parse_quote!(#tag == #k)), bindings)))
    }

    /// `match name { arms }` as an `if` chain over the tag.
    fn match_chain(&self, arms: &[syn::Arm], named: &mut HashSet<String>) -> Option<Expr> {
        let mut tests = Vec::new();
        for arm in arms {
            let (pat, guard) = match &arm.pat {
                Pat::Guard(guarded) => (&*guarded.pat, Some(&guarded.guard)),
                pat => (pat, None),
            };
            let Some((test, bindings)) = self.arm_test(pat, named)? else {
                continue;
            };
            // the guard sees the arm's bindings
            let guard: Option<Expr> =
                guard.map(|guard| syn::parse_quote!({ #(#bindings)* #guard }));
            let condition: Option<Expr> = match (test, guard) {
                (Some(test), Some(guard)) => Some(syn::parse_quote!(#test && #guard)),
                (Some(test), None) => Some(test),
                (None, guard) => guard,
            };
            let body = &arm.body;
            let body: syn::Block = syn::parse_quote!({ #(#bindings)* #body });
            let guarded = guard_of(&arm.pat);
            tests.push((condition, body, guarded));
        }
        // The match is exhaustive (rustc checked the body as written) and the value is one
        // of the variants built: once the arms before it failed, the last arm taken
        // matches, so it needs no test, unless it is guarded (then the exhaustiveness
        // rests on an arm dropped above: left as written).
        let (_, last, guarded) = tests.pop()?;
        if guarded {
            return None;
        }
        let mut chain: Expr = syn::parse_quote!(#last);
        for (condition, body, _) in tests.into_iter().rev() {
            let condition = condition?;
            chain = syn::parse_quote!(if #condition #body else { #chain });
        }
        Some(chain)
    }
}

fn guard_of(pat: &Pat) -> bool {
    matches!(pat, Pat::Guard(_))
}

/// Finds the variants later assignments `name = <build>;` build; `failed` when one is no
/// build expression.
struct Assignments<'a> {
    parts: &'a mut Parts,
    slots: &'a mut Slots,
    failed: bool,
}

impl<'ast> syn::visit::Visit<'ast> for Assignments<'_> {
    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        if crate::syntax::is_name(&assign.left, &self.parts.name)
            && self.parts.collect(&assign.right, self.slots).is_none()
        {
            self.failed = true;
        }
        syn::visit::visit_expr_assign(self, assign);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Rewrites the uses of one enum local; `failed` when one is outside the rewrite; `named`
/// the variant paths the patterns name.
struct Uses<'a> {
    parts: &'a Parts,
    failed: bool,
    named: HashSet<String>,
}

impl VisitMut for Uses<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // inner uses first (an arm's body may match the value again)
        syn::visit_mut::visit_expr_mut(self, expr);
        let name = &self.parts.name;
        let rewritten = match expr {
            Expr::Match(expr_match) if crate::syntax::is_name(&expr_match.expr, name) => {
                Some(self.parts.match_chain(&expr_match.arms, &mut self.named))
            }
            Expr::If(expr_if)
                if matches!(crate::syntax::strip_parens(&expr_if.cond),
                    Expr::Let(test) if crate::syntax::is_name(&test.expr, name)) =>
            {
                let matched = crate::syntax::if_let_as_match(expr_if);
                Some(matched.and_then(|m| self.parts.match_chain(&m.arms, &mut self.named)))
            }
            Expr::Assign(assign) if crate::syntax::is_name(&assign.left, name) => {
                Some(self.parts.assign(&assign.right))
            }
            _ => None,
        };
        match rewritten {
            Some(Some(rewritten)) => *expr = rewritten,
            Some(None) => self.failed = true,
            None => {}
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
