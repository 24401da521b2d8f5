//! The searches over float arrays (scalar mode), `position` (and `rposition`), `find`,
//! `any` and `all`, rewritten before the `Option`s are (`options`) into the loop with a
//! `break` they are, and the extrema `max_by`/`min_by` (by a key too) into the loop of
//! their fold, which the iterator desugaring (`iterators`) then turns into indexed loops
//! like any other. It takes the body's statements and gives them rewritten.
//!
//! A search is `chain.position(|p| e)` (also `find`, `any`, `all`) whose `chain` is
//! `a.iter()` of a flat float array `a` (a parameter or a local the iterator desugaring
//! knows, or a part `a[i..j].iter()`), then any of `copied`, `cloned`, `rev`, `skip`,
//! `take`, `step_by`. It is rewritten where it is the first thing its statement evaluates
//! (a `let`'s value, an expression statement, an `if let`'s or a `match`'s scrutinee, or
//! the receiver, left operand or operand of one of those), so that running the search just
//! before the statement is the same program. In an `if`'s or a `while`'s condition it is
//! left as written: a condition runs as written in the primal, its value a constant
//! (lowering rejects one that writes a differentiable value), so the search needs no loop
//! of its own there (and no replay in the adjoint):
//!
//! ```text
//! let i = x.iter().position(|&v| v > t).unwrap_or(n);
//! // is
//! let mut hit = false;
//! let mut at: usize = 0;
//! for (pos, &v) in x.iter().enumerate() {
//!     if v > t { hit = true; at = pos; break; }
//! }
//! let search = if hit { Some(at) } else { None };
//! let i = search.unwrap_or(n);
//! ```
//!
//! `any` is `hit`, `all(p)` is `!any(!p)` (each result a local, a name fitting every
//! place the search was); `position`'s result is an integer and `any`'s a
//! flag, constants (the comparisons they make carry no gradient). `find` keeps the element
//! found, `found = v;` in the branch, and its `Option` is `if hit { Some(found) } else
//! { None }`, which `options` then splits into a flag and a value: the cotangent of the
//! result goes to the element found, through the loop's own adjoint. Over `a.iter()` the
//! items are references, `find` gives an `Option<&F>`: only the uses that read it as a
//! number are rewritten (`.copied()`/`.cloned()`, `if let Some(&v)`/`Some(v)`, `match`
//! arms `Some(&v)`/`Some(v)`, `*v` read as `v` in them); any other leaves the statement as
//! written, and lowering rejects it with its own message.
//!
//! The extrema by a comparison or a key, `max_by`, `min_by`, `max_by_key` and `min_by_key`
//! (also after a last `map`), and `reduce(f)` over values (after `copied`, `cloned` or a
//! last `map`: the first item kept, each later one combined by `f`), are rewritten in the
//! same places into the loop of the
//! iterator's fold ([`Searches::extremum_loop`]), whose `Option` is `find`'s: the element
//! kept, whose cotangent goes back to it. Each step is decided by `std::cmp::max_by` (or
//! `min_by`) itself, so the element kept is the one the iterator keeps, ties and the
//! comparison's own order of signed zeros and NaNs included, and the comparison runs as
//! often, with the same arguments, as in the body.
//!
//! An extremum with its position, `let (i, v) = a.iter().enumerate().max_by(f).unwrap();`
//! (also by a key, with `copied`, `expect`, or the position alone through `.map(|(i, _)|
//! i)`), is the loop of the fold over the positions ([`EnumeratedExtrema`]), before the
//! rest.
//!
//! The closure's parameter is a name (or `_`) behind as many `&` as the item's type allows;
//! `*v` of a name bound behind fewer is read as `v` (the body sees the element by value,
//! as in the desugared loops). A closure with `return` or `?` in its body (which would
//! leave the function, not the closure), `async`, or another pattern, is left as written.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat, Stmt};

use crate::syntax::{single_ident, strip_parens};

/// The body's statements with every search over `arrays` (not `rows`) rewritten, in every
/// block.
pub fn rewrite(stmts: Vec<Stmt>, arrays: &HashSet<String>, rows: &HashSet<String>) -> Vec<Stmt> {
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    EnumeratedExtrema { arrays, next: 0 }.visit_block_mut(&mut block);
    Searches {
        arrays,
        rows,
        next: 0,
    }
    .visit_block_mut(&mut block);
    block.stmts
}

/// An extremum with its position, `let (i, v) = a.iter().enumerate().max_by(compare).unwrap();`
/// (an argmax; `min_by`, `max_by_key`, `min_by_key`; over `a.iter()`, `.copied()` or
/// `.cloned()` of a flat float array; `expect(msg)` for `unwrap()`; a last `.map(|(i, _)|
/// i)` before it), as the loop of the iterator's fold over the positions: each item
/// `(k, &a[k])` (`(k, a[k])` for values) compared with the one kept by
/// `generated::by_comparison_takes` (a key's by `generated::BestKey`), as the fold
/// compares them, the position kept a constant, then the item kept, `(best, &a[best])`,
/// bound by the statement's pattern (through the map's closure first). An empty array is
/// `unwrap`'s panic, with its message. Its element is read at the end, a load like any
/// other, so its cotangent goes back to it.
struct EnumeratedExtrema<'a> {
    arrays: &'a HashSet<String>,
    next: usize,
}

impl VisitMut for EnumeratedExtrema<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        visit_mut::visit_block_mut(self, block);
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match self.rewritten(&stmt) {
                Some(rewritten) => stmts.extend(rewritten),
                None => stmts.push(stmt),
            }
        }
        block.stmts = stmts;
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl EnumeratedExtrema<'_> {
    /// `stmt` as the loop and the `let` it stands for, if it is one.
    fn rewritten(&mut self, stmt: &Stmt) -> Option<Vec<Stmt>> {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return None;
        }
        // `.unwrap()` or `.expect(msg)` last
        let Expr::MethodCall(unwrap) = strip_parens(&init.expr) else {
            return None;
        };
        let message = match (unwrap.method.to_string().as_str(), unwrap.args.len()) {
            ("unwrap", 0) => None,
            ("expect", 1) => Some(&unwrap.args[0]),
            _ => return None,
        };
        // a `.map(|pat| body)` before it
        let (extremum, map) = match strip_parens(&unwrap.receiver) {
            Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                let closure = one_input_closure(&map.args[0])?;
                let pat = match &closure.inputs[0] {
                    Pat::Type(typed) => (*typed.pat).clone(),
                    pat => pat.clone(),
                };
                (&*map.receiver, Some((pat, (*closure.body).clone())))
            }
            other => (other, None),
        };
        let Expr::MethodCall(extremum) = strip_parens(extremum) else {
            return None;
        };
        let (max, by) = extremum_by(extremum)?;
        // `a.iter().enumerate()`, with `copied()`/`cloned()` before `enumerate`
        let Expr::MethodCall(enumerate) = strip_parens(&extremum.receiver) else {
            return None;
        };
        if enumerate.method != "enumerate" || !enumerate.args.is_empty() {
            return None;
        }
        let mut source = strip_parens(&enumerate.receiver);
        let mut by_ref = true;
        if let Expr::MethodCall(copied) = source
            && (copied.method == "copied" || copied.method == "cloned")
            && copied.args.is_empty()
        {
            by_ref = false;
            source = strip_parens(&copied.receiver);
        }
        let Expr::MethodCall(iter) = source else {
            return None;
        };
        if iter.method != "iter" || !iter.args.is_empty() {
            return None;
        }
        let array = single_ident(strip_parens(&iter.receiver))?;
        if !self.arrays.contains(&array.to_string()) {
            return None;
        }
        self.next += 1;
        let n = self.next;
        let generated = crate::generate::paths::generated();
        let [hit, best, k, keys] = ["argbest_hit", "argbest", "argbest_k", "argbest_keys"]
            .map(|stem| crate::syntax::fresh_local(format!("{stem}{n}")));
        let item = |at: &Ident| -> TokenStream {
            if by_ref {
                quote::quote!((#at, &#array[#at]))
            } else {
                quote::quote!((#at, #array[#at]))
            }
        };
        let (kept, next) = (item(&best), item(&k));
        let span = extremum.method.span();
        let mut stmts: Vec<Stmt> = vec![
            syn::parse_quote!(let mut #hit = false;),
            syn::parse_quote!(let mut #best: usize = 0;),
        ];
        let takes = match by {
            By::Key(key) => {
                stmts.push(syn::parse_quote!(let mut #keys = #generated::BestKey::new();));
                quote::quote_spanned!(span=> #keys.takes(#max, &#next, #key))
            }
            By::Comparison(compare) => quote::quote_spanned!(span=>
                !#hit || #generated::by_comparison_takes(#max, &#kept, &#next, #compare)
            ),
            By::Reduce(_) => unreachable!("`extremum_by` gives a comparison or a key"),
        };
        stmts.push(syn::parse_quote!(for #k in 0..#array.len() {
            if #takes {
                #hit = true;
                #best = #k;
            }
        }));
        stmts.push(match message {
            None => syn::parse_quote!(
                ::core::assert!(#hit, "called `Option::unwrap()` on a `None` value");
            ),
            Some(message) => syn::parse_quote!(::core::assert!(#hit, "{}", #message);),
        });
        let pat = &local.pat;
        stmts.push(match map {
            None => syn::parse_quote!(let #pat = #kept;),
            Some((map_pat, body)) => syn::parse_quote!(let #pat = {
                let #map_pat = #kept;
                #body
            };),
        });
        Some(stmts)
    }
}

struct Searches<'a> {
    arrays: &'a HashSet<String>,
    rows: &'a HashSet<String>,
    next: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Position,
    /// `rposition`: the last match's position, counted from the front.
    RPosition,
    Find,
    Any,
    All,
}

/// A search, as found in a statement.
struct Search {
    kind: Kind,
    /// The chain the search is called on.
    chain: Expr,
    /// Whether the chain's items are references (`a.iter()`, no `copied`).
    by_ref: bool,
    /// The name the closure binds (`None` for `_`), and whether `mut`.
    name: Option<(Ident, bool)>,
    /// The closure's body, its `*v` read as `v` where the name is bound by value.
    body: Expr,
    /// The method's name: where an error about the result points.
    span: proc_macro2::Span,
}

impl VisitMut for Searches<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut out = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            // inner blocks first (a loop's body, a branch): their statements are theirs
            self.visit_stmt_mut(&mut stmt);
            match self.hoist(&stmt) {
                Some(expanded) => out.extend(expanded),
                None => out.push(stmt),
            }
        }
        block.stmts = out;
    }

    // a closure's body is not the function's; items have bodies of their own
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Searches<'_> {
    /// `stmt` with its first-evaluated search run before it, or `None`.
    fn hoist(&mut self, stmt: &Stmt) -> Option<Vec<Stmt>> {
        let mut stmt = stmt.clone();
        let slot: &mut Expr = match &mut stmt {
            Stmt::Local(local) => &mut local.init.as_mut()?.expr,
            Stmt::Expr(expr, _) => expr,
            _ => return None,
        };
        let slot = self.first_slot(slot)?;
        if let Some(extremum) = self.extremum(slot) {
            let (before, result) = self.extremum_loop(extremum.clone());
            let value = crate::syntax::fresh_local(format!("gradtape_search{}", self.next));
            *slot = syn::parse_quote!(#value);
            return finish_option(stmt, before, &value, result, extremum.by_ref);
        }
        let search = self.search(slot)?;
        self.next += 1;
        let n = self.next;
        let hit = crate::syntax::fresh_local(format!("gradtape_hit{n}"));
        let (at, pos) = (
            crate::syntax::fresh_local(format!("gradtape_at{n}")),
            crate::syntax::fresh_local(format!("gradtape_pos{n}")),
        );
        let found = crate::syntax::fresh_local(format!("gradtape_found{n}"));
        let item = crate::syntax::fresh_local(format!("gradtape_item{n}"));
        let Search {
            kind,
            chain,
            by_ref,
            name,
            body,
            span,
        } = search;
        // A block body's statements run in the loop, before the `if` on its value (in the
        // condition they would run as written, not differentiated).
        let (stmts, body) = match body {
            Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                let mut stmts = block.block.stmts;
                match stmts.pop() {
                    Some(Stmt::Expr(tail, None)) => (stmts, tail),
                    _ => return None,
                }
            }
            body => (Vec::new(), body),
        };
        // the loop's element name: the closure's own if it binds one, not `mut`, and no
        // statement of the body may bind it again (the element found must be the
        // element, whatever the body does with its copy)
        let (element, rebind): (Ident, Option<Stmt>) = match name {
            Some((name, false)) if stmts.is_empty() => (name, None),
            Some((name, false)) => (item.clone(), Some(syn::parse_quote!(let #name = #item;))),
            Some((name, true)) => (
                item.clone(),
                Some(syn::parse_quote!(let mut #name = #item;)),
            ),
            None => (item, None),
        };
        let element_pat: Pat = if by_ref {
            syn::parse_quote!(&#element)
        } else {
            syn::parse_quote!(#element)
        };
        let mut before: Vec<Stmt> = vec![syn::parse_quote!(let mut #hit = false;)];
        let (head, found_it): (proc_macro2::TokenStream, proc_macro2::TokenStream) = match kind {
            Kind::Position => {
                before.push(syn::parse_quote!(let mut #at: usize = 0;));
                (
                    quote::quote!(for (#pos, #element_pat) in #chain.enumerate()),
                    quote::quote!(#at = #pos;),
                )
            }
            // from the back, each item's position still counted from the front
            Kind::RPosition => {
                before.push(syn::parse_quote!(let mut #at: usize = 0;));
                (
                    quote::quote!(for (#pos, #element_pat) in #chain.enumerate().rev()),
                    quote::quote!(#at = #pos;),
                )
            }
            Kind::Find => {
                // not `0.0`: the elements may be of a generic float type
                let generated = crate::generate::paths::generated();
                before.push(syn::parse_quote!(let mut #found = #generated::element_zero();));
                (
                    quote::quote!(for #element_pat in #chain),
                    quote::quote!(#found = #element;),
                )
            }
            Kind::Any | Kind::All => (quote::quote!(for #element_pat in #chain), quote::quote!()),
        };
        let condition = match kind {
            Kind::All => quote::quote!(!(#body)),
            _ => quote::quote!(#body),
        };
        before.push(syn::parse_quote!(#head {
            #rebind
            #(#stmts)*
            if #condition {
                #hit = true;
                #found_it
                break;
            }
        }));
        // the result, a local (a name is an operand in every place the search was)
        let result: Expr = match kind {
            Kind::Position | Kind::RPosition => {
                syn::parse_quote!(if #hit { Some(#at) } else { None })
            }
            Kind::Any => syn::parse_quote!(#hit),
            Kind::All => syn::parse_quote!(!#hit),
            // spanned on `find`: an option `options` cannot rewrite (passed on whole) is
            // lowering's error there
            Kind::Find => {
                syn::parse_quote_spanned!(span=> if #hit { Some(#found) } else { None })
            }
        };
        let value = crate::syntax::fresh_local(format!("gradtape_search{n}"));
        *slot = syn::parse_quote!(#value);
        if kind == Kind::Find {
            return finish_option(stmt, before, &value, result, by_ref);
        }
        before.push(syn::parse_quote!(let #value = #result;));
        before.push(stmt);
        Some(before)
    }

    /// The loop an extremum stands for, and its result (an `Option` of the element kept):
    ///
    /// ```text
    /// let m = a.iter().copied().max_by(compare).unwrap();
    /// // is
    /// let mut hit = false;
    /// let mut found = 0.0;
    /// for v in a.iter().copied() {
    ///     if !hit || generated::by_comparison_takes(true, &found, &v, compare) {
    ///         hit = true;
    ///         found = v;
    ///     }
    /// }
    /// let search = if hit { Some(found) } else { None };
    /// let m = search.unwrap();
    /// ```
    ///
    /// The first item is taken without a comparison, each later one compared with the one
    /// kept by `std::cmp::max_by` (`min_by`) itself, as the iterator's fold compares them:
    /// the same calls of the comparison, the same ties. A key (`max_by_key`) is computed
    /// once per item, in order, and kept beside the element (`generated::BestKey`). A
    /// trailing `map` is the loop's first statement, its closure's pattern the loop's.
    fn extremum_loop(&mut self, extremum: Extremum) -> (Vec<Stmt>, Expr) {
        self.next += 1;
        let n = self.next;
        let generated = crate::generate::paths::generated();
        let hit = crate::syntax::fresh_local(format!("gradtape_hit{n}"));
        let found = crate::syntax::fresh_local(format!("gradtape_found{n}"));
        let item = crate::syntax::fresh_local(format!("gradtape_item{n}"));
        let keys = crate::syntax::fresh_local(format!("gradtape_keys{n}"));
        let Extremum {
            max,
            by,
            chain,
            by_ref,
            map,
            span,
        } = extremum;
        let mut before: Vec<Stmt> = vec![
            syn::parse_quote!(let mut #hit = false;),
            // not `0.0`: the elements may be of a generic float type
            syn::parse_quote!(let mut #found = #generated::element_zero();),
        ];
        // the loop's head and the item by value (`item`), and the item as the iterator
        // yields it (behind a reference over `a.iter()` with no `map`)
        let (head, first, yielded): (TokenStream, TokenStream, TokenStream) = match map {
            Some((pat, body)) => (
                quote::quote!(for #pat in #chain),
                quote::quote!(let #item = #body;),
                quote::quote!(&#item),
            ),
            None if by_ref => (
                quote::quote!(for &#item in #chain),
                TokenStream::new(),
                quote::quote!(&&#item),
            ),
            None => (
                quote::quote!(for #item in #chain),
                TokenStream::new(),
                quote::quote!(&#item),
            ),
        };
        let kept = if by_ref && first.is_empty() {
            quote::quote!(&&#found)
        } else {
            quote::quote!(&#found)
        };
        if let By::Reduce(step) = &by {
            // the first item kept as it is, each later one combined with the value kept,
            // as `Iterator::reduce` folds from its first item
            let combined = match strip_parens(step) {
                Expr::Closure(closure) => {
                    let (kept, next, body) =
                        (&closure.inputs[0], &closure.inputs[1], &closure.body);
                    quote::quote!({ let #kept = #found; let #next = #item; #body })
                }
                // `f64::max` (`T::max` of a float type parameter, `f32::hypot`, ..): the
                // method, which lowering knows, where a path is no function it calls
                Expr::Path(func)
                    if func.path.segments.len() == 2
                        && ["max", "min", "hypot", "atan2", "powf"]
                            .iter()
                            .any(|method| func.path.segments[1].ident == method) =>
                {
                    let method = &func.path.segments[1].ident;
                    quote::quote!(#found.#method(#item))
                }
                func => quote::quote!(#func(#found, #item)),
            };
            before.push(syn::parse_quote_spanned!(span=> #head {
                #first
                // (the first item's branch first: it gives `found` its type before the
                // step's methods read it)
                if !#hit {
                    #hit = true;
                    #found = #item;
                } else {
                    #found = #combined;
                }
            }));
            let result = syn::parse_quote_spanned!(span=> if #hit { Some(#found) } else { None });
            return (before, result);
        }
        let takes = match by {
            By::Reduce(_) => unreachable!("returned above"),
            By::Comparison(compare) => quote::quote_spanned!(span=>
                !#hit || #generated::by_comparison_takes(#max, #kept, #yielded, #compare)
            ),
            By::Key(key) => {
                before.push(syn::parse_quote!(let mut #keys = #generated::BestKey::new();));
                quote::quote_spanned!(span=> #keys.takes(#max, #yielded, #key))
            }
        };
        before.push(syn::parse_quote!(#head {
            #first
            if #takes {
                #hit = true;
                #found = #item;
            }
        }));
        // spanned on the method: an option `options` cannot rewrite (passed on whole) is
        // lowering's error there
        let result = syn::parse_quote_spanned!(span=> if #hit { Some(#found) } else { None });
        (before, result)
    }

    /// The search evaluated first in `expr`, if any: `expr` itself, or the first-evaluated
    /// part of the receiver of a method call, the left operand of a binary operator, the
    /// operand of a unary one, a cast, a field access, a `?`, a reference, an `if let`'s
    /// or a `match`'s scrutinee.
    fn first_slot<'e>(&self, expr: &'e mut Expr) -> Option<&'e mut Expr> {
        if self.search(expr).is_some() || self.extremum(expr).is_some() {
            return Some(expr);
        }
        match expr {
            Expr::MethodCall(call) => self.first_slot(&mut call.receiver),
            Expr::Binary(binary) => self.first_slot(&mut binary.left),
            Expr::Unary(unary) => self.first_slot(&mut unary.expr),
            Expr::Paren(paren) => self.first_slot(&mut paren.expr),
            Expr::Group(group) => self.first_slot(&mut group.expr),
            Expr::Cast(cast) => self.first_slot(&mut cast.expr),
            Expr::Field(field) => self.first_slot(&mut field.base),
            Expr::Try(try_expr) => self.first_slot(&mut try_expr.expr),
            Expr::Reference(reference) => self.first_slot(&mut reference.expr),
            // an `if`'s condition (not an `if let`'s) runs as written, a constant: a
            // search there needs no loop of its own (lowering rejects a condition that
            // writes a differentiable value)
            Expr::If(expr_if) if matches!(strip_parens(&expr_if.cond), Expr::Let(_)) => {
                self.first_slot(&mut expr_if.cond)
            }
            Expr::Let(expr_let) => self.first_slot(&mut expr_let.expr),
            Expr::Match(expr_match) => self.first_slot(&mut expr_match.expr),
            _ => None,
        }
    }

    /// `expr` as a search over a flat float array.
    fn search(&self, expr: &Expr) -> Option<Search> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        let kind = match call.method.to_string().as_str() {
            "position" => Kind::Position,
            "rposition" => Kind::RPosition,
            "find" => Kind::Find,
            "any" => Kind::Any,
            "all" => Kind::All,
            _ => return None,
        };
        if call.args.len() != 1 || call.turbofish.is_some() {
            return None;
        }
        let closure = one_input_closure(&call.args[0])?;
        let by_ref = self.chain(&call.receiver)?;
        // the closure's parameter: `find`'s is a reference to the item
        let depth = usize::from(by_ref) + usize::from(kind == Kind::Find);
        let (name, refs) = parameter(&closure.inputs[0])?;
        if refs > depth {
            return None;
        }
        let mut body = (*closure.body).clone();
        if let Some((name, _)) = &name
            && depth > refs
        {
            StripDerefs {
                name,
                levels: depth - refs,
            }
            .visit_expr_mut(&mut body);
        }
        Some(Search {
            kind,
            chain: (*call.receiver).clone(),
            by_ref,
            name,
            body,
            span: call.method.span(),
        })
    }

    /// Whether `expr` is a chain over a flat float array whose items are references
    /// (`Some(true)`) or copies (`Some(false)`).
    fn chain(&self, expr: &Expr) -> Option<bool> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        match (call.method.to_string().as_str(), call.args.len()) {
            ("iter", 0) => {
                let root = match strip_parens(&call.receiver) {
                    Expr::Index(index) if matches!(strip_parens(&index.index), Expr::Range(_)) => {
                        &*index.expr
                    }
                    other => other,
                };
                let root = single_ident(strip_parens(root))?.to_string();
                (self.arrays.contains(&root) && !self.rows.contains(&root)).then_some(true)
            }
            ("copied" | "cloned", 0) => self.chain(&call.receiver).map(|_| false),
            ("rev", 0) | ("skip" | "take" | "step_by", 1) => self.chain(&call.receiver),
            _ => None,
        }
    }
}

/// `stmt` after the loop `before` of a search whose result is an `Option` of the element
/// found (`find`, `max_by`, ..), `value` standing for it in `stmt`: over references
/// (`by_ref`), an `Option<&F>` becomes an `Option<F>`, so its uses must read it as a
/// number ([`Uses`]; `None`, left as written, otherwise). `let v = <search>;` makes the
/// option the user's local itself, which `options` then rewrites with its uses.
fn finish_option(
    mut stmt: Stmt,
    mut before: Vec<Stmt>,
    value: &Ident,
    result: Expr,
    by_ref: bool,
) -> Option<Vec<Stmt>> {
    let mut uses = Uses {
        option: value,
        by_ref,
        unread: 0,
    };
    uses.visit_stmt_mut(&mut stmt);
    if uses.unread > 0 {
        return None;
    }
    if let Stmt::Local(local) = &mut stmt
        && let Some(init) = &mut local.init
        && init.diverge.is_none()
        && single_ident(strip_parens(&init.expr)).is_some_and(|i| i == value)
    {
        *init.expr = result;
        before.push(stmt);
        return Some(before);
    }
    before.push(syn::parse_quote!(let #value = #result;));
    before.push(stmt);
    Some(before)
}

/// A trailing `.map(|pat| body)`: its pattern and body.
type Map = (Pat, Expr);

/// An extremum by a comparison or a key over a flat float array, as found in a statement:
/// `chain.max_by(compare)` (`min_by`, `max_by_key(key)`, `min_by_key`).
#[derive(Clone)]
struct Extremum {
    max: bool,
    by: By,
    /// The chain the extremum is called on, without a trailing `map`.
    chain: Expr,
    /// Whether the chain's items are references (`a.iter()`, no `copied`, no `map`).
    by_ref: bool,
    /// A trailing `.map(|pat| body)`: its pattern and body.
    map: Option<(Pat, Expr)>,
    span: proc_macro2::Span,
}

#[derive(Clone)]
enum By {
    /// The comparison: a closure that is not `move`, or a path (`f64::total_cmp`), written
    /// once per comparison in the loop (a closure literal made again there is the same
    /// closure: it captures by reference, so what it changes is the outer locals).
    Comparison(Expr),
    /// The key function, as the comparison.
    Key(Expr),
    /// `reduce(f)`: the function combining the value kept with each later item, a closure
    /// of two inputs that is not `move`, or a path (`f64::max`).
    Reduce(Expr),
}

/// `max_by(compare)` (`min_by`, `max_by_key(key)`, `min_by_key`): whether it keeps the
/// largest, and its comparison or key, a closure that is not `move` and does not leave the
/// function, or a path; `None` for any other call.
fn extremum_by(call: &syn::ExprMethodCall) -> Option<(bool, By)> {
    let (max, keyed) = match call.method.to_string().as_str() {
        "max_by" => (true, false),
        "min_by" => (false, false),
        "max_by_key" => (true, true),
        "min_by_key" => (false, true),
        _ => return None,
    };
    if call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let by = match strip_parens(&call.args[0]) {
        Expr::Closure(closure)
            if closure.capture.is_none()
                && closure.asyncness.is_none()
                && !crate::syntax::leaves_early(closure.body.to_token_stream()) =>
        {
            call.args[0].clone()
        }
        Expr::Path(path) if path.qself.is_none() => call.args[0].clone(),
        _ => return None,
    };
    Some((
        max,
        if keyed {
            By::Key(by)
        } else {
            By::Comparison(by)
        },
    ))
}

impl Searches<'_> {
    /// `expr` as an extremum over a flat float array.
    fn extremum(&self, expr: &Expr) -> Option<Extremum> {
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        if call.method == "reduce" {
            return self.reduction(call);
        }
        let (max, by) = extremum_by(call)?;
        let (chain, map, by_ref) = self.mapped_chain(&call.receiver)?;
        Some(Extremum {
            max,
            by,
            chain,
            by_ref,
            map,
            span: call.method.span(),
        })
    }

    /// The chain an extremum or a reduction is called on (`receiver`), without a trailing
    /// `map`, the map's pattern and body, and whether the items are references (`a.iter()`,
    /// no `copied`, no `map`).
    fn mapped_chain(&self, receiver: &Expr) -> Option<(Expr, Option<Map>, bool)> {
        // a trailing `map` of one input, which may not leave the function
        let (chain, map) = match strip_parens(receiver) {
            Expr::MethodCall(map_call) if map_call.method == "map" && map_call.args.len() == 1 => {
                let closure = one_input_closure(&map_call.args[0])?;
                let pat = match &closure.inputs[0] {
                    Pat::Type(typed) => (*typed.pat).clone(),
                    pat => pat.clone(),
                };
                (
                    (*map_call.receiver).clone(),
                    Some((pat, (*closure.body).clone())),
                )
            }
            _ => (receiver.clone(), None),
        };
        let by_ref = self.chain(&chain)? && map.is_none();
        Some((chain, map, by_ref))
    }
}

impl Searches<'_> {
    /// `chain.reduce(f)` over a flat float array: the loop of the iterator's fold from its
    /// first item, [`Searches::extremum_loop`] with `f` as its step ([`By::Reduce`]). Over
    /// references (`a.iter().reduce(..)`, whose value is a reference to one of the
    /// elements) the step is read over values ([`by_value_step`]) and the option's uses
    /// as an `Option<F>`'s (`*m.unwrap()`, `.copied()`, `Some(&v)`: [`finish_option`]).
    fn reduction(&self, call: &syn::ExprMethodCall) -> Option<Extremum> {
        if call.args.len() != 1 || call.turbofish.is_some() {
            return None;
        }
        let step = match strip_parens(&call.args[0]) {
            Expr::Closure(closure)
                if closure.inputs.len() == 2
                    && closure.capture.is_none()
                    && closure.asyncness.is_none()
                    && !crate::syntax::leaves_early(closure.body.to_token_stream()) =>
            {
                call.args[0].clone()
            }
            Expr::Path(path) if path.qself.is_none() => call.args[0].clone(),
            _ => return None,
        };
        let (chain, map, by_ref) = self.mapped_chain(&call.receiver)?;
        let step = if by_ref { by_value_step(&step)? } else { step };
        Some(Extremum {
            max: false,
            by: By::Reduce(step),
            chain,
            by_ref,
            map,
            span: call.method.span(),
        })
    }
}

/// A `reduce`'s step over references (`a.iter().reduce(|a, b| if a > b { a } else { b
/// })`, the closure given two references and returning one of them) as the same step over
/// the values they refer to, `*a` read as `a`: the loop keeps the value, so the reference
/// the step returns is the value it refers to, and a comparison, arithmetic or a float
/// method reads a reference as its value. `None` (left as written) for a path (`f64::max`
/// takes values: the body does not compile) or a parameter that is no plain name.
fn by_value_step(step: &Expr) -> Option<Expr> {
    let Expr::Closure(closure) = strip_parens(step) else {
        return None;
    };
    let mut closure = closure.clone();
    let mut inputs = syn::punctuated::Punctuated::new();
    for input in &closure.inputs {
        // each parameter a name bound by value (a written `&F` type would be the
        // reference's)
        inputs.push(match parameter(input)? {
            (Some((name, mutable)), 0) => {
                StripDerefs {
                    name: &name,
                    levels: 1,
                }
                .visit_expr_mut(&mut closure.body);
                match mutable {
                    true => syn::parse_quote!(mut #name),
                    false => syn::parse_quote!(#name),
                }
            }
            (None, 0) => syn::parse_quote!(_),
            _ => return None,
        });
    }
    closure.inputs = inputs;
    // every value the step gives is one of its parameters: over values it is the value
    // that parameter refers to (a reference from elsewhere, `&FLOOR`, would be a value
    // of another type there)
    let names: Vec<Ident> = closure
        .inputs
        .iter()
        .filter_map(|input| match input {
            Pat::Ident(ident) => Some(ident.ident.clone()),
            _ => None,
        })
        .collect();
    returns_a_parameter(&closure.body, &names).then_some(Expr::Closure(closure))
}

/// Whether each value `expr` may give (a block's tail, each branch of an `if` with an
/// `else` or of a `match`) is one of `names`.
fn returns_a_parameter(expr: &Expr, names: &[Ident]) -> bool {
    match strip_parens(expr) {
        Expr::Block(block) if block.label.is_none() => match block.block.stmts.last() {
            Some(Stmt::Expr(tail, None)) => returns_a_parameter(tail, names),
            _ => false,
        },
        Expr::If(branch) => {
            let then = branch.then_branch.stmts.last();
            matches!(then, Some(Stmt::Expr(tail, None)) if returns_a_parameter(tail, names))
                && branch
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, otherwise)| returns_a_parameter(otherwise, names))
        }
        Expr::Match(matched) => matched
            .arms
            .iter()
            .all(|arm| returns_a_parameter(&arm.body, names)),
        other => single_ident(other).is_some_and(|name| names.contains(name)),
    }
}

/// The name a closure's parameter binds (`None` for `_`), whether `mut`, and the number
/// of `&` in front of it; `None` for another pattern.
fn parameter(pat: &Pat) -> Option<(Option<(Ident, bool)>, usize)> {
    match pat {
        Pat::Type(typed) => parameter(&typed.pat),
        Pat::Paren(paren) => parameter(&paren.pat),
        Pat::Reference(reference) if reference.mutability.is_none() => {
            let (name, refs) = parameter(&reference.pat)?;
            Some((name, refs + 1))
        }
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
            Some((Some((ident.ident.clone(), ident.mutability.is_some())), 0))
        }
        Pat::Wild(_) => Some((None, 0)),
        _ => None,
    }
}

/// Reads `*v` (up to `levels` times `*`) as `v`: the name is bound to the element by value
/// where the closure had it behind references.
struct StripDerefs<'n> {
    name: &'n Ident,
    levels: usize,
}

impl VisitMut for StripDerefs<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let mut stars = 0;
        let mut inner = &*expr;
        while let Expr::Unary(unary) = inner
            && matches!(unary.op, syn::UnOp::Deref(_))
        {
            stars += 1;
            inner = strip_parens(&unary.expr);
        }
        if (1..=self.levels).contains(&stars) && single_ident(inner) == Some(self.name) {
            let name = self.name;
            *expr = syn::parse_quote!(#name);
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

/// The uses of a `find`'s option in its statement, made those of an `Option<F>`: over
/// references, `.copied()`/`.cloned()` dropped and the patterns `Some(&v)` made
/// `Some(v)`, `Some(v)` kept with `*v` read as `v` in what it guards. `unread` counts the
/// uses of an `Option<&F>` left otherwise.
struct Uses<'o> {
    option: &'o Ident,
    by_ref: bool,
    unread: usize,
}

impl Uses<'_> {
    fn is_option(&self, expr: &Expr) -> bool {
        single_ident(strip_parens(expr)).is_some_and(|i| i == self.option)
    }

    /// `Some(&v)` as `Some(v)`; `Some(v)` with `*v` read as `v` in `guarded`. `false` for
    /// another pattern binding the reference.
    fn pattern(&self, pat: &mut Pat, guarded: &mut [&mut Expr]) -> bool {
        let Pat::TupleStruct(some) = pat else {
            // `None`, `_`
            return matches!(pat, Pat::Wild(_) | Pat::Ident(_) | Pat::Path(_))
                && !matches!(pat, Pat::Ident(ident) if ident.ident != "None");
        };
        if !some.path.is_ident("Some") || some.elems.len() != 1 {
            return false;
        }
        match &mut some.elems[0] {
            Pat::Reference(reference) if reference.mutability.is_none() => {
                let inner = (*reference.pat).clone();
                some.elems[0] = inner;
                true
            }
            Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                let name = ident.ident.clone();
                for expr in guarded {
                    StripDerefs {
                        name: &name,
                        levels: 1,
                    }
                    .visit_expr_mut(expr);
                }
                true
            }
            Pat::Wild(_) => true,
            _ => false,
        }
    }
}

impl VisitMut for Uses<'_> {
    /// `let Some(&v) = <find> else { .. };`: the name is bound by value after it.
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if self.by_ref
            && let Some(init) = &mut local.init
            && init.diverge.is_some()
            && self.is_option(&init.expr)
        {
            let by_value = match &mut local.pat {
                Pat::TupleStruct(some) if some.path.is_ident("Some") && some.elems.len() == 1 => {
                    match &some.elems[0] {
                        Pat::Reference(reference) if reference.mutability.is_none() => {
                            let inner = (*reference.pat).clone();
                            some.elems[0] = inner;
                            true
                        }
                        _ => false,
                    }
                }
                _ => false,
            };
            if !by_value {
                self.unread += 1;
            }
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_expr_mut(diverge);
            }
            return;
        }
        visit_mut::visit_local_mut(self, local);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if !self.by_ref {
            return;
        }
        match expr {
            Expr::MethodCall(call)
                if self.is_option(&call.receiver)
                    && call.args.is_empty()
                    && matches!(call.method.to_string().as_str(), "copied" | "cloned") =>
            {
                let option = self.option;
                *expr = syn::parse_quote!(#option);
                return;
            }
            // `*option.unwrap()` (`expect`): the number itself
            Expr::Unary(deref)
                if matches!(deref.op, syn::UnOp::Deref(_))
                    && matches!(strip_parens(&deref.expr), Expr::MethodCall(call)
                        if self.is_option(&call.receiver)
                            && matches!(call.method.to_string().as_str(), "unwrap" | "expect")) =>
            {
                *expr = (*deref.expr).clone();
                return;
            }
            // the same on an `Option<F>` as on an `Option<&F>`
            Expr::MethodCall(call)
                if self.is_option(&call.receiver)
                    && call.args.is_empty()
                    && matches!(call.method.to_string().as_str(), "is_some" | "is_none") =>
            {
                return;
            }
            Expr::If(expr_if) => {
                if let Expr::Let(expr_let) = &mut *expr_if.cond
                    && self.is_option(&expr_let.expr)
                {
                    let mut then: Expr = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: expr_if.then_branch.clone(),
                    });
                    if self.pattern(&mut expr_let.pat, &mut [&mut then]) {
                        let Expr::Block(then) = then else {
                            unreachable!("built a block")
                        };
                        expr_if.then_branch = then.block;
                    } else {
                        self.unread += 1;
                    }
                    if let Some((_, otherwise)) = &mut expr_if.else_branch {
                        self.visit_expr_mut(otherwise);
                    }
                    self.visit_block_mut(&mut expr_if.then_branch);
                    return;
                }
            }
            Expr::Match(expr_match) if self.is_option(&expr_match.expr) => {
                for arm in &mut expr_match.arms {
                    let mut guarded: Vec<&mut Expr> = vec![&mut arm.body];
                    // syn 3 keeps a guard in the pattern: `Some(v) if *v > 0.0`
                    let pat = match &mut arm.pat {
                        Pat::Guard(with_guard) => {
                            guarded.push(&mut with_guard.guard);
                            &mut *with_guard.pat
                        }
                        pat => pat,
                    };
                    if !self.pattern(pat, &mut guarded) {
                        self.unread += 1;
                    }
                }
                for arm in &mut expr_match.arms {
                    self.visit_expr_mut(&mut arm.body);
                }
                return;
            }
            _ => {}
        }
        if self.is_option(expr) {
            // any other use of an `Option<&F>`
            self.unread += 1;
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

/// `arg` as a closure of one input, not `async`, with no written return type, whose body
/// does not leave the function (`return`, `?`): one the rewrite can inline in a loop.
fn one_input_closure(arg: &Expr) -> Option<&syn::ExprClosure> {
    let Expr::Closure(closure) = strip_parens(arg) else {
        return None;
    };
    (closure.inputs.len() == 1
        && closure.asyncness.is_none()
        && closure.output == syn::ReturnType::Default
        && !crate::syntax::leaves_early(closure.body.to_token_stream()))
    .then_some(closure)
}
