//! Local arrays of tuples (scalar mode), split before the other passes into one local array
//! per position, which the iterator desugaring and lowering differentiate as any local
//! array: `let pairs: Vec<(f64, f64)> = vec![(x[0], 2.0), (x[1], 3.0)];` becomes
//! `let pairs_0: Vec<f64> = vec![x[0], x[1]]; let pairs_1: Vec<f64> = vec![2.0, 3.0];`.
//!
//! The local is `let [mut] name[: Vec<(..)> | [(..); N]] = <value>;` whose value is
//! `vec![(..), ..]`, `vec![(..); n]`, `[(..), ..]`, `[(..); N]` (every element a tuple
//! literal of the same arity, two or more), or `Vec::new()`/`Vec::with_capacity(n)`/
//! `vec![]` (the arity then from the type or from the tuple literals pushed). The elements
//! are evaluated in the order written: unless every one is a name, a literal or a field
//! (which nothing can tell apart in any order), each is first bound to a local of its
//! own, in order (an index or integer arithmetic may panic, a call have effects). Every later use must be one of these, each rewritten
//! in place so that the positions stay in step (same length, same pushes, same writes):
//!
//! - `name[i].k`, read or written (`name[i].1 += ..`): `name_k[i]`;
//! - `name[i]` whole, read (`let (a, b) = name[i];`): `(name_0[i], name_1[i])`, and assigned
//!   (`name[i] = (a, b);`): the value's parts bound first (Rust evaluates an assignment's
//!   value before its place), then each array written; `i` with no effect, as it is read
//!   once per position;
//! - `name.len()`, `name.is_empty()`: those of `name_0`;
//! - `name.swap(i, j)` (`i`, `j` with no effect), `name.reverse()`: each position's;
//! - `name.push(t)`: `t`'s parts bound (`let (t0, t1) = t;`: evaluated once, before any
//!   array grows), then pushed in order;
//! - an iterator over the elements, `&name`, `&mut name`, `name.iter()`, `name.iter_mut()`,
//!   `name.iter().copied()`/`.cloned()`, `name.into_iter()` or `name` in a `for`, followed
//!   or such an iterator as the right side of a `zip` (`x.iter().zip(&pairs)`), followed
//!   by any of `enumerate`, `zip`, `rev`, `skip`, `take`, `step_by`, `filter`, then consumed by a
//!   `for` loop or `map`, `for_each`, `fold`, `any`, `all`, `count`: the zip of the
//!   positions' iterators (`name_0.iter().zip(name_1.iter())`, left-nested for three or
//!   more), each pattern that takes an item rewritten to match the zip's item. A pattern
//!   `(v, w)` binds the same types from `&(A, B)` as from `(&A, &B)`; `&(v, w)` becomes
//!   `(&v, &w)`; an item bound whole by a name (`for p in &pairs`, `|p| p.0 * p.1`) binds
//!   its parts to locals of their own, the body's `p.0` read from them (`(*p_0)` through
//!   a reference), if the body reads it only so.
//!
//! Anything else (the array passed on, returned, bound again, named in a macro, or any
//! other method), or a binding of the same name anywhere after it, leaves the local as
//! written, and lowering rejects it with its own message: the split is the same program
//! or it is not made.

use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt, Token, Type};

/// The body's statements with every splittable local array of tuples split, in every
/// block.
pub fn rewrite(stmts: Vec<Stmt>) -> Vec<Stmt> {
    crate::syntax::rewrite_locals(stmts, &mut |stmt, rest| split_local(stmt, rest))
}

/// A local array of tuples: its name, its arity, and the names of its positions' arrays.
struct Split {
    name: Ident,
    positions: Vec<Ident>,
}

/// How the array's initial value is written.
enum Initial {
    /// `vec![..]` (true) or `[..]` (false) listing tuple literals, each as its parts.
    List(bool, Vec<Vec<Expr>>),
    /// `vec![t; n]` (true) or `[t; N]` (false) repeating one tuple literal.
    Repeat(bool, Vec<Expr>, Expr),
    /// `Vec::new()`, `Vec::with_capacity(n)` or `vec![]`: the same empty value per position.
    Empty(Expr),
}

/// `stmt`, if it declares a local array of tuples whose every use in `rest` is rewritable:
/// the per-position declarations and `rest` rewritten.
fn split_local(stmt: &Stmt, rest: &[Stmt]) -> Option<(Vec<Stmt>, Vec<Stmt>)> {
    let (pat, value) = crate::syntax::named_let(stmt)?;
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let declared = match &local.pat {
        Pat::Type(typed) => Some(&*typed.ty),
        _ => None,
    };
    let initial = initial(value)?;
    let position_types = match declared {
        Some(ty) => Some(position_types(ty)?),
        None => None,
    };
    let arity = match (&initial, &position_types) {
        (Initial::List(_, rows), _) if !rows.is_empty() => rows[0].len(),
        (Initial::Repeat(_, parts, _), _) => parts.len(),
        (_, Some((_, types))) => types.len(),
        _ => pushed_arity(rest, &pat.ident)?,
    };
    if arity < 2
        || position_types
            .as_ref()
            .is_some_and(|(_, t)| t.len() != arity)
    {
        return None;
    }
    if let Initial::List(_, rows) = &initial
        && rows.iter().any(|row| row.len() != arity)
    {
        return None;
    }
    // a later binding of the name would make the rewrite's reading of it ambiguous
    if rest
        .iter()
        .any(|stmt| crate::syntax::stmt_binds(stmt, &pat.ident))
    {
        return None;
    }
    let split = Split {
        name: pat.ident.clone(),
        positions: (0..arity)
            .map(|k| crate::syntax::unspelled_ident(format_ident!("{}_{}", pat.ident, k)))
            .collect(),
    };
    let mut rest = rest.to_vec();
    let mut uses = Uses {
        split: &split,
        failed: false,
    };
    for stmt in &mut rest {
        uses.visit_stmt_mut(stmt);
    }
    if uses.failed || crate::syntax::mentions_with_macros(&rest, &split.name) {
        return None;
    }
    let mut declaration = Vec::new();
    let values = split.initial_values(initial, &mut declaration);
    let mutability = &pat.mutability;
    for (k, (position, value)) in split.positions.iter().zip(values).enumerate() {
        let ty = position_types
            .as_ref()
            .map(|(container, types)| container.of(&types[k]));
        declaration.push(match ty {
            Some(ty) => syn::parse_quote!(let #mutability #position: #ty = #value;),
            None => syn::parse_quote!(let #mutability #position = #value;),
        });
    }
    Some((declaration, rest))
}

/// The initial value's form, if it is one of an array of tuples (or an empty `Vec`).
fn initial(value: &Expr) -> Option<Initial> {
    match crate::syntax::strip_parens(value) {
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
            if mac.mac.tokens.is_empty() {
                return Some(Initial::Empty(syn::parse_quote!(::std::vec::Vec::new())));
            }
            let tokens = &mac.mac.tokens;
            if let Ok(repeat) = syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                return Some(Initial::Repeat(
                    true,
                    tuple_parts(&repeat.expr)?,
                    *repeat.len,
                ));
            }
            let elements = mac
                .mac
                .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                .ok()?;
            let rows = elements
                .iter()
                .map(tuple_parts)
                .collect::<Option<Vec<_>>>()?;
            Some(Initial::List(true, rows))
        }
        Expr::Array(array) if !array.elems.is_empty() => {
            let rows = array
                .elems
                .iter()
                .map(tuple_parts)
                .collect::<Option<Vec<_>>>()?;
            Some(Initial::List(false, rows))
        }
        Expr::Repeat(repeat) => Some(Initial::Repeat(
            false,
            tuple_parts(&repeat.expr)?,
            (*repeat.len).clone(),
        )),
        Expr::Call(call) if call.args.len() <= 1 => {
            let Expr::Path(path) = &*call.func else {
                return None;
            };
            let segments = crate::syntax::segment_names(&path.path);
            let n = segments.len();
            let known = n >= 2
                && segments[n - 2] == "Vec"
                && ((segments[n - 1] == "new" && call.args.is_empty())
                    || (segments[n - 1] == "with_capacity" && call.args.len() == 1));
            (known && call.args.iter().all(has_no_effect)).then(|| Initial::Empty(value.clone()))
        }
        _ => None,
    }
}

/// What holds the tuples, as the local's type spells it: `Vec<_>`, or `[_; N]`.
enum Container {
    Vec,
    Array(Expr),
}

impl Container {
    /// The same container of `elem`.
    fn of(&self, elem: &Type) -> Type {
        match self {
            Container::Vec => syn::parse_quote!(Vec<#elem>),
            Container::Array(len) => syn::parse_quote!([#elem; #len]),
        }
    }
}

/// The container and the positions' types of `Vec<(A, B, ..)>` or `[(A, B, ..); N]`.
fn position_types(ty: &Type) -> Option<(Container, Vec<Type>)> {
    let (container, elem) = match ty {
        Type::Array(array) => (Container::Array(array.len.clone()), &*array.elem),
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            if last.ident != "Vec" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first() {
                Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 => {
                    (Container::Vec, elem)
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    let Type::Tuple(tuple) = elem else {
        return None;
    };
    Some((container, tuple.elems.iter().cloned().collect()))
}

/// A tuple literal's parts, `(a, b)`, through parentheses.
fn tuple_parts(expr: &Expr) -> Option<Vec<Expr>> {
    match crate::syntax::strip_parens(expr) {
        Expr::Tuple(tuple) if tuple.elems.len() >= 2 => Some(tuple.elems.iter().cloned().collect()),
        _ => None,
    }
}

/// The arity of the tuple literals pushed onto `name` in `rest`, if there is at least one
/// and all agree.
fn pushed_arity(rest: &[Stmt], name: &Ident) -> Option<usize> {
    struct Pushes<'a> {
        name: &'a Ident,
        arities: Vec<usize>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Pushes<'_> {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if call.method == "push"
                && crate::syntax::is_name(&call.receiver, self.name)
                && let Some(parts) = call.args.first().and_then(tuple_parts)
            {
                self.arities.push(parts.len());
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut pushes = Pushes {
        name,
        arities: Vec::new(),
    };
    for stmt in rest {
        syn::visit::Visit::visit_stmt(&mut pushes, stmt);
    }
    let first = *pushes.arities.first()?;
    pushes.arities.iter().all(|&a| a == first).then_some(first)
}

/// Whether evaluating `expr` can have no effect but its value (or a panic): names,
/// literals, arithmetic and comparisons, indexing, fields, casts, references, and calls of
/// the float methods (`sqrt`, `powi`, ..) and `len`. What may be evaluated out of its
/// written order, or twice.
fn has_no_effect(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(paren) => has_no_effect(&paren.expr),
        Expr::Group(group) => has_no_effect(&group.expr),
        Expr::Unary(unary) => has_no_effect(&unary.expr),
        Expr::Binary(binary) => {
            !crate::syntax::is_compound_assign(&binary.op)
                && has_no_effect(&binary.left)
                && has_no_effect(&binary.right)
        }
        Expr::Index(index) => has_no_effect(&index.expr) && has_no_effect(&index.index),
        Expr::Field(field) => has_no_effect(&field.base),
        Expr::Cast(cast) => has_no_effect(&cast.expr),
        Expr::Reference(reference) => {
            reference.mutability.is_none() && has_no_effect(&reference.expr)
        }
        Expr::Tuple(tuple) => tuple.elems.iter().all(has_no_effect),
        Expr::MethodCall(call) => {
            let method = call.method.to_string();
            is_float_method(&method)
                && has_no_effect(&call.receiver)
                && call.args.iter().all(has_no_effect)
        }
        _ => false,
    }
}

/// Whether `expr` may be evaluated out of the order written with no difference at all:
/// a name, a literal, a field of a name, a negation of one. An index may panic, and
/// arithmetic on integers too (overflow, a division by zero): evaluated position by
/// position, another element's panic could come first, so those are bound in order.
fn reorderable(expr: &Expr) -> bool {
    match crate::syntax::strip_parens(expr) {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(field) => reorderable(&field.base),
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Neg(_)) && reorderable(&unary.expr),
        _ => false,
    }
}

impl Split {
    /// Each position's initial value, the statements binding the elements in the order
    /// written pushed to `before` first where one may have an effect.
    fn initial_values(&self, initial: Initial, before: &mut Vec<Stmt>) -> Vec<Expr> {
        let arity = self.positions.len();
        let mut bound = 0;
        // `expr`, or a local bound to it first (in the order this is called)
        let mut in_order = |expr: Expr, effects: bool, before: &mut Vec<Stmt>| -> Expr {
            if !effects {
                return expr;
            }
            let temporary = crate::syntax::fresh_local(format!("{}_element{}", self.name, bound));
            bound += 1;
            before.push(syn::parse_quote!(let #temporary = #expr;));
            syn::parse_quote!(#temporary)
        };
        match initial {
            Initial::List(is_vec, rows) => {
                let effects = !rows.iter().flatten().all(reorderable);
                let mut columns: Vec<Vec<Expr>> = vec![Vec::new(); arity];
                for row in rows {
                    for (k, part) in row.into_iter().enumerate() {
                        columns[k].push(in_order(part, effects, before));
                    }
                }
                columns
                    .into_iter()
                    .map(|column| match is_vec {
                        true => syn::parse_quote!(vec![#(#column),*]),
                        false => syn::parse_quote!([#(#column),*]),
                    })
                    .collect()
            }
            Initial::Repeat(is_vec, parts, len) => {
                // `vec![elem; n]` evaluates the element, then the length
                let effects = !(parts.iter().all(reorderable) && has_no_effect(&len));
                let parts: Vec<Expr> = parts
                    .into_iter()
                    .map(|p| in_order(p, effects, before))
                    .collect();
                // a `[t; N]`'s length is a constant: never bound
                let len = if is_vec {
                    in_order(len, effects, before)
                } else {
                    len
                };
                parts
                    .into_iter()
                    .map(|part| match is_vec {
                        true => syn::parse_quote!(vec![#part; #len]),
                        false => syn::parse_quote!([#part; #len]),
                    })
                    .collect()
            }
            Initial::Empty(value) => vec![value; arity],
        }
    }

    /// `name_0[index]`.. for each position.
    fn elements(&self, index: &Expr) -> Vec<Expr> {
        self.positions
            .iter()
            .map(|p| syn::parse_quote!(#p[#index]))
            .collect()
    }

    /// Fresh locals for one tuple's parts, `name_part0`, ...
    fn part_locals(&self) -> Vec<Ident> {
        (0..self.positions.len())
            .map(|k| crate::syntax::fresh_local(format!("{}_part{}", self.name, k)))
            .collect()
    }

    /// The zip of the positions' iterators (`iter`, `iter_mut`, or `iter().copied()`),
    /// left-nested.
    fn zipped(&self, items: Items) -> Expr {
        let each = |p: &Ident| -> Expr {
            match items {
                Items::Shared => syn::parse_quote!(#p.iter()),
                Items::Mut => syn::parse_quote!(#p.iter_mut()),
                Items::Value => syn::parse_quote!(#p.iter().copied()),
            }
        };
        let mut zipped = each(&self.positions[0]);
        for position in &self.positions[1..] {
            let next = each(position);
            zipped = syn::parse_quote!(#zipped.zip(#next));
        }
        zipped
    }

    /// The iterator over the elements `expr` is (`&name`, `name.iter()`, ..; `name` itself
    /// only where `bare` is, a `for`'s), and how it gives them.
    fn source(&self, expr: &Expr, bare: bool) -> Option<Items> {
        let name = &self.name;
        match crate::syntax::strip_parens(expr) {
            Expr::Reference(reference) if crate::syntax::is_name(&reference.expr, name) => {
                Some(match reference.mutability {
                    Some(_) => Items::Mut,
                    None => Items::Shared,
                })
            }
            Expr::Path(_) if bare && crate::syntax::is_name(expr, name) => Some(Items::Value),
            Expr::MethodCall(call) if call.args.is_empty() => {
                let method = call.method.to_string();
                if crate::syntax::is_name(&call.receiver, name) {
                    return match method.as_str() {
                        "iter" => Some(Items::Shared),
                        "iter_mut" => Some(Items::Mut),
                        "into_iter" => Some(Items::Value),
                        _ => None,
                    };
                }
                match (method.as_str(), crate::syntax::strip_parens(&call.receiver)) {
                    ("copied" | "cloned", Expr::MethodCall(inner))
                        if inner.method == "iter"
                            && inner.args.is_empty()
                            && crate::syntax::is_name(&inner.receiver, name) =>
                    {
                        Some(Items::Value)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Rewrites the iterator chain `expr` if its source is the array (`None` if not): the
    /// source becomes the zip and each pattern taking an item is rewritten to match it.
    fn chain(&self, expr: &mut Expr, bare: bool) -> Option<Chain> {
        if let Some(items) = self.source(expr, bare) {
            *expr = self.zipped(items);
            return Some(Chain::Items(Item {
                items,
                path: Vec::new(),
            }));
        }
        let Expr::MethodCall(call) = expr else {
            return None;
        };
        // the array as the right side of a `zip` (`x.iter().zip(&pairs)`): its items the
        // second of each pair
        if call.method == "zip"
            && call.args.len() == 1
            && let Some(items) = self.source(&call.args[0], true)
        {
            call.args[0] = self.zipped(items);
            return Some(Chain::Items(Item {
                items,
                path: vec![1],
            }));
        }
        let below = self.chain(&mut call.receiver, false)?;
        let Chain::Items(mut item) = below else {
            // the items are no longer the array's tuples
            return Some(below);
        };
        let arity = self.positions.len();
        let method = call.method.to_string();
        // the source is already the zip: any failure from here on is the chain's
        let step = move |call: &mut syn::ExprMethodCall| -> Option<Chain> {
            Some(match method.as_str() {
                "enumerate" if call.args.is_empty() => {
                    item.path.insert(0, 1);
                    Chain::Items(item)
                }
                // the array's items the first of each pair (the other side any iterator)
                "zip" if call.args.len() == 1 => {
                    item.path.insert(0, 0);
                    Chain::Items(item)
                }
                "rev" if call.args.is_empty() => Chain::Items(item),
                "skip" | "take" | "step_by" if call.args.len() == 1 => Chain::Items(item),
                "filter" if call.args.len() == 1 => {
                    // `filter`'s closure takes a reference to the item: `&(v, w)`, or a name
                    let closure = only_closure(call, 0)?;
                    let (pat, body) = (closure.inputs.first_mut()?, &mut *closure.body);
                    match pat {
                        Pat::Reference(reference) if reference.mutability.is_none() => {
                            item.rewrite_binding(&mut reference.pat, body, arity)?;
                        }
                        Pat::Ident(_) => {
                            // `|p|` reads `p.0` through two references: `&(p_0, p_1)` binds
                            // each part as one reference, read `*p_0`
                            let mut inner = pat.clone();
                            item.rewrite_binding(&mut inner, body, arity)?;
                            *pat = syn::parse_quote!(&#inner);
                        }
                        _ => return None,
                    }
                    Chain::Items(item)
                }
                "map" | "for_each" | "any" | "all" if call.args.len() == 1 => {
                    let closure = only_closure(call, 0)?;
                    let (pat, body) = (closure.inputs.first_mut()?, &mut *closure.body);
                    item.rewrite_binding(pat, body, arity)?;
                    Chain::Consumed
                }
                "fold" if call.args.len() == 2 => {
                    let closure = only_closure(call, 1)?;
                    let (pat, body) = (closure.inputs.iter_mut().nth(1)?, &mut *closure.body);
                    item.rewrite_binding(pat, body, arity)?;
                    Chain::Consumed
                }
                "count" if call.args.is_empty() => Chain::Consumed,
                _ => Chain::Failed,
            })
        };
        Some(step(call).unwrap_or(Chain::Failed))
    }
}

/// How the zip gives each position's element.
#[derive(Clone, Copy)]
enum Items {
    /// `&A` (from `&name`, `name.iter()`)
    Shared,
    /// `&mut A`
    Mut,
    /// `A` (from `name.iter().copied()`, `name` in a `for`)
    Value,
}

/// The item of a chain over the array after some adaptors: the zip's item, inside pairs
/// (`enumerate`'s `(position, item)`, a `zip`'s `(item, other)` or `(other, item)`): at
/// `path`, the index in each pair from the outermost.
#[derive(Clone)]
struct Item {
    items: Items,
    path: Vec<usize>,
}

/// What a chain over the array gives after a method.
enum Chain {
    /// Its items are still the array's (rewritten) tuples.
    Items(Item),
    /// A consumer took them: what follows sees no tuple of the array.
    Consumed,
    /// A method the rewrite does not take.
    Failed,
}

impl Item {
    /// `pat`, a pattern of the original item (`&(A, B)`, `&mut (A, B)` or `(A, B)`, inside
    /// the pairs of `path`), rewritten to bind the same names to the same types from the
    /// zip's item; `None` where it cannot be.
    fn rewrite(&self, pat: &Pat, arity: usize, named: &mut Vec<Named>) -> Option<Pat> {
        if let Some((&at, inner_path)) = self.path.split_first() {
            let Pat::Tuple(pair) = strip_pat_parens(pat) else {
                return None;
            };
            if pair.elems.len() != 2 || pair.elems.iter().any(|p| matches!(p, Pat::Rest(_))) {
                return None;
            }
            let inner = Item {
                items: self.items,
                path: inner_path.to_vec(),
            };
            let mut pair = pair.clone();
            pair.elems[at] = inner.rewrite(&pair.elems[at], arity, named)?;
            return Some(Pat::Tuple(pair));
        }
        let parts: Vec<Pat> = match pat {
            Pat::Wild(_) => return Some(pat.clone()),
            Pat::Paren(paren) => return self.rewrite(&paren.pat, arity, named),
            // a name for the whole item: its parts bound to locals of their own, the body's
            // `p.k` read from them (`Named::substitute`); a `mut` one only by value
            Pat::Ident(ident)
                if ident.by_ref.is_none()
                    && ident.subpat.is_none()
                    && (ident.mutability.is_none() || matches!(self.items, Items::Value)) =>
            {
                let parts: Vec<Ident> = (0..arity)
                    .map(|k| crate::syntax::fresh_local(format!("{}_{k}", ident.ident)))
                    .collect();
                let mutability = &ident.mutability;
                let pats: Vec<Pat> = parts
                    .iter()
                    .map(|part| syn::parse_quote!(#mutability #part))
                    .collect();
                named.push(Named {
                    name: ident.ident.clone(),
                    parts,
                    by_reference: !matches!(self.items, Items::Value),
                });
                pats
            }
            // the parts as they bind from the zip: by default binding through the
            // reference, as from the original reference to a tuple
            Pat::Tuple(tuple) => tuple.elems.iter().cloned().collect(),
            // `&(v, w)` binds the values: `(&v, &w)` does from the zip
            Pat::Reference(reference) if !matches!(self.items, Items::Value) => {
                let Pat::Tuple(tuple) = strip_pat_parens(&reference.pat) else {
                    return None;
                };
                let mutability = &reference.mutability;
                if mutability.is_some() != matches!(self.items, Items::Mut) {
                    return None;
                }
                tuple
                    .elems
                    .iter()
                    .map(|part| syn::parse_quote!(&#mutability (#part)))
                    .collect()
            }
            _ => return None,
        };
        if parts.len() != arity || parts.iter().any(|p| matches!(p, Pat::Rest(_))) {
            return None;
        }
        let mut parts = parts.into_iter();
        let mut nested = parts.next()?;
        for part in parts {
            nested = syn::parse_quote!((#nested, #part));
        }
        Some(nested)
    }
}

impl Item {
    /// `pat` rewritten ([`Item::rewrite`]) and `body`, where it binds, reading the parts
    /// of any item it binds whole by name ([`Named::substitute`]).
    fn rewrite_binding(&self, pat: &mut Pat, body: &mut Expr, arity: usize) -> Option<()> {
        let mut named = Vec::new();
        *pat = self.rewrite(pat, arity, &mut named)?;
        for item in &named {
            item.substitute(body)?;
        }
        Some(())
    }
}

/// Rewrites the uses of one array of tuples; `failed` when one is outside the rewrite.
struct Uses<'a> {
    split: &'a Split,
    failed: bool,
}

impl Uses<'_> {
    /// The rewrite of `expr` if it is a use of the array taken as a whole (outer forms
    /// first: `name[i].0` before `name[i]`); `None` if it is no such use.
    fn rewritten(&mut self, expr: &mut Expr) -> Option<Option<Expr>> {
        let split = self.split;
        let name = &split.name;
        let indexed = |expr: &Expr| -> Option<Expr> {
            match crate::syntax::strip_parens(expr) {
                Expr::Index(index) if crate::syntax::is_name(&index.expr, name) => {
                    Some((*index.index).clone())
                }
                _ => None,
            }
        };
        Some(match expr {
            Expr::Field(field) => {
                let index = indexed(&field.base)?;
                let syn::Member::Unnamed(k) = &field.member else {
                    return Some(None);
                };
                let Some(position) = split.positions.get(k.index as usize) else {
                    return Some(None);
                };
                Some(syn::parse_quote!(#position[#index]))
            }
            Expr::Assign(assign) => {
                let index = indexed(&assign.left)?;
                if !has_no_effect(&index) {
                    return Some(None);
                }
                let value = &assign.right;
                let parts = split.part_locals();
                let places = split.elements(&index);
                Some(syn::parse_quote!({
                    let (#(#parts),*) = #value;
                    #(#places = #parts;)*
                }))
            }
            // a compound assignment or a `&mut` of a whole element: no tuple place to take
            Expr::Binary(binary) if crate::syntax::is_compound_assign(&binary.op) => {
                indexed(&binary.left)?;
                None
            }
            Expr::Reference(reference) if reference.mutability.is_some() => {
                indexed(&reference.expr)?;
                None
            }
            Expr::Index(_) => {
                let index = indexed(expr)?;
                if !has_no_effect(&index) {
                    return Some(None);
                }
                let elements = split.elements(&index);
                Some(syn::parse_quote!((#(#elements),*)))
            }
            Expr::MethodCall(call) if crate::syntax::is_name(&call.receiver, name) => {
                let first = &split.positions[0];
                match call.method.to_string().as_str() {
                    "len" | "is_empty" if call.args.is_empty() => {
                        let method = &call.method;
                        Some(syn::parse_quote!(#first.#method()))
                    }
                    // the same swaps, or the same reversal, of every position
                    "swap" if call.args.len() == 2 && call.args.iter().all(has_no_effect) => {
                        let args = &call.args;
                        let positions = &split.positions;
                        Some(syn::parse_quote!({ #(#positions.swap(#args);)* }))
                    }
                    "reverse" if call.args.is_empty() => {
                        let positions = &split.positions;
                        Some(syn::parse_quote!({ #(#positions.reverse();)* }))
                    }
                    "push" if call.args.len() == 1 => {
                        let value = &call.args[0];
                        let parts = split.part_locals();
                        let positions = &split.positions;
                        Some(syn::parse_quote!({
                            let (#(#parts),*) = #value;
                            #(#positions.push(#parts);)*
                        }))
                    }
                    _ => None,
                }
            }
            Expr::MethodCall(_) => match split.chain(expr, false)? {
                Chain::Consumed => Some(expr.clone()),
                Chain::Items(_) | Chain::Failed => None,
            },
            _ => return None,
        })
    }
}

impl VisitMut for Uses<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::ForLoop(for_loop) = expr {
            match self.split.chain(&mut for_loop.expr, true) {
                Some(Chain::Items(item)) => {
                    let mut body = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: for_loop.body.clone(),
                    });
                    let arity = self.split.positions.len();
                    match item.rewrite_binding(&mut for_loop.pat, &mut body, arity) {
                        Some(()) => {
                            let Expr::Block(block) = body else {
                                unreachable!("the body stays a block")
                            };
                            for_loop.body = block.block;
                        }
                        None => self.failed = true,
                    }
                }
                Some(Chain::Failed) => self.failed = true,
                Some(Chain::Consumed) | None => {}
            }
        } else {
            match self.rewritten(expr) {
                Some(Some(rewritten)) => *expr = rewritten,
                Some(None) => self.failed = true,
                None => {}
            }
        }
        // inner uses (an index, a closure's body) after the outer form is rewritten
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `expr` without the parentheses and invisible groups around it, mutably.
fn strip_parens_mut(expr: &mut Expr) -> &mut Expr {
    match expr {
        Expr::Paren(paren) => strip_parens_mut(&mut paren.expr),
        Expr::Group(group) => strip_parens_mut(&mut group.expr),
        other => other,
    }
}

/// `pat` without the parentheses around it.
fn strip_pat_parens(pat: &Pat) -> &Pat {
    match pat {
        Pat::Paren(paren) => strip_pat_parens(&paren.pat),
        other => other,
    }
}

/// A method with no effect on its receiver or arguments: `len`, and the float methods the
/// vocabulary differentiates (`sqrt`, `atan2`, `max`, ..) or treats as constants.
fn is_float_method(method: &str) -> bool {
    crate::vocabulary::elementwise(method).is_some()
        || crate::vocabulary::binary_method(method, true).is_some()
        || matches!(
            method,
            "len"
                | "abs"
                | "powi"
                | "powf"
                | "clamp"
                | "mul_add"
                | "signum"
                | "floor"
                | "ceil"
                | "round"
                | "trunc"
                | "recip"
                | "to_radians"
                | "to_degrees"
        )
}

/// The closure a method call takes as its argument `at`.
fn only_closure(call: &mut syn::ExprMethodCall, at: usize) -> Option<&mut syn::ExprClosure> {
    match strip_parens_mut(call.args.iter_mut().nth(at)?) {
        Expr::Closure(closure) => Some(closure),
        _ => None,
    }
}

/// An item bound whole by a name (`for p in &pairs`, `|p| p.0 * p.1`) whose parts the body
/// reads by position: the name, the locals its parts are bound to, and whether each is a
/// reference (then `p.k` reads `(*p_k)`, the value auto-deref gave).
struct Named {
    name: Ident,
    parts: Vec<Ident>,
    by_reference: bool,
}

impl Named {
    /// `body` with each `name.k` read as its part; `None` if the body names `name`
    /// otherwise (passes it on whole, binds the name again, names it in a macro).
    fn substitute(&self, body: &mut Expr) -> Option<()> {
        struct Parts<'a>(&'a Named);
        impl VisitMut for Parts<'_> {
            fn visit_expr_mut(&mut self, expr: &mut Expr) {
                if let Expr::Field(field) = expr
                    && crate::syntax::is_name(&field.base, &self.0.name)
                    && let syn::Member::Unnamed(k) = &field.member
                    && let Some(part) = self.0.parts.get(k.index as usize)
                {
                    *expr = match self.0.by_reference {
                        true => syn::parse_quote!((*#part)),
                        false => syn::parse_quote!(#part),
                    };
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, expr);
            }
            fn visit_item_mut(&mut self, _: &mut syn::Item) {}
        }
        let stmt = Stmt::Expr(body.clone(), None);
        if crate::syntax::stmt_binds(&stmt, &self.name) {
            return None;
        }
        Parts(self).visit_expr_mut(body);
        (!crate::syntax::mentions_with_macros(&[Stmt::Expr(body.clone(), None)], &self.name))
            .then_some(())
    }
}
