//! `Option`s of differentiable numbers (scalar mode), rewritten before lowering into what
//! lowering differentiates: a flag and a value. It takes the body's statements and gives
//! them rewritten.
//!
//! A local `let [mut] best [: Option<F>] = <option>;` whose initial value is an option
//! expression (`Some(e)`, `None`, or an `if`/`match`/block whose every branch ends in one,
//! or diverges) becomes two locals, `best_is_some` and `best_value`, declared and then
//! assigned in each branch: `Some(e)` assigns `true` and `e`, `None` assigns `false` and
//! nothing (the value a [`Slot`](crate::slots), holding its type's `Default` or, when the
//! value is a constant, `None`; never read while the flag is false). Every later use must be
//! one of these, rewritten in place:
//!
//! - `best = <option>;` (assigned the same way);
//! - `match best { .. }` with arms `Some(name)`, `Some(_)`, `None`, `_` (guards too): an
//!   `if` chain over the flag in the arms' order, `name` bound to the value inside the arm
//!   (and inside its guard);
//! - `if let Some(name) = best { .. } else { .. }`, `if let None = best`, and
//!   `let Some(name) = best else { .. };`;
//! - `best.unwrap_or(c)`, `unwrap_or_default()`, `unwrap()`, `expect(msg)` (an `assert!`
//!   on the flag with `Option`'s message), `is_some()`, `is_none()`,
//!   `map_or(d, |v| e)`, `map_or_else(|| d, |v| e)`.
//!
//! The rewrite is the same program: the value is read only where the flag says it exists,
//! in the order the original reads the option. Where any use is another form (the option
//! passed on, copied, returned, matched inside a tuple) or the name is bound again, the
//! local is left as written, and lowering rejects a differentiable value inside it with its
//! own message, as before.

use quote::format_ident;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt, Type};

use crate::slots::{Slot, Slots};

/// The body's statements with every rewritable `Option` local rewritten, in every block,
/// its value made by `slots`.
///
/// `plain` says whether a path is a plain helper named in `plain(..)` (run on dual numbers,
/// with no `Option` twin): its call is left as written.
pub fn rewrite(
    stmts: Vec<Stmt>,
    slots: &mut Slots,
    plain: &dyn Fn(&syn::Path) -> bool,
) -> Vec<Stmt> {
    let stmts = scrutinee_locals(stmts, plain);
    crate::syntax::rewrite_locals(stmts, &mut |stmt, rest| {
        rewrite_local(stmt, rest, slots, plain)
    })
}

/// The flag and value locals of an option local.
struct Parts<'a> {
    name: Ident,
    is_some: Ident,
    value: Slot,
    /// Whether a path is a plain helper's (`rewrite`).
    plain: &'a dyn Fn(&syn::Path) -> bool,
    /// Whether a function's call assigns the option ([`Parts::assign_call`]): then only the
    /// local's uses say it is an option, and it must have one.
    called: std::cell::Cell<bool>,
}

/// `stmt`, if it declares an option local whose every use in `rest` is rewritable: its
/// declaration (the two locals, then the initial value assigned) and `rest` rewritten.
fn rewrite_local(
    stmt: &Stmt,
    rest: &[Stmt],
    slots: &mut Slots,
    plain: &dyn Fn(&syn::Path) -> bool,
) -> Option<(Vec<Stmt>, Vec<Stmt>)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let (pat, ty) = match &local.pat {
        Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
        pat => (pat, None),
    };
    let Pat::Ident(pat) = pat else {
        return None;
    };
    if pat.by_ref.is_some() || pat.subpat.is_some() {
        return None;
    }
    let value_ty = match ty {
        Some(ty) => Some(option_payload(ty)?),
        None => None,
    };
    let parts = Parts {
        name: pat.ident.clone(),
        is_some: crate::syntax::unspelled_ident(format_ident!("{}_is_some", pat.ident)),
        value: slots.slot(crate::syntax::unspelled_ident(format_ident!(
            "{}_value", pat.ident
        ))),
        plain,
        called: std::cell::Cell::new(false),
    };
    let initial = parts.assign(&init.expr)?;
    // a call's local that nothing reads is no option by its uses (`let n = f(x);` unused)
    if parts.called.get() && !crate::syntax::mentions(rest, &parts.name) {
        return None;
    }
    let mut rest = rest.to_vec();
    let mut uses = Uses {
        parts: &parts,
        failed: false,
    };
    for stmt in &mut rest {
        uses.visit_stmt_mut(stmt);
    }
    if uses.failed || crate::syntax::mentions(&rest, &parts.name) {
        return None;
    }
    let is_some = &parts.is_some;
    let mutability = &pat.mutability;
    let declaration = vec![
        syn::parse_quote!(let #mutability #is_some: bool;),
        parts.value.declare(*mutability, value_ty),
        Stmt::Expr(initial, Some(Default::default())),
    ];
    Some((declaration, rest))
}

/// The mark on the `let` binding the parts of a call's `Option` result
/// (`#[gradtape_option_call] let (value, variant) = root(a, b);`, [`Parts::assign_call`]).
/// Read (and removed) by lowering; never emitted.
pub const CALL_MARK: &str = "gradtape_option_call";

/// The call of a function with an `Option` result that `option` is, by its path
/// (`root(..)`, `geometry::root(..)`, every segment lowercase: not a variant's or a tuple
/// struct's constructor, `Some(..)`, `Shape::Circle(..)`, nor an associated function,
/// `Option::from(..)`), not a plain helper's (`plain`), nor the runtime's; also inside
/// `generated::into_option(..)`, as `rewrite` reads `root(a, b).unwrap_or(c)`.
fn option_call<'e>(
    option: &'e Expr,
    plain: &dyn Fn(&syn::Path) -> bool,
) -> Option<&'e syn::ExprCall> {
    let Expr::Call(call) = crate::syntax::strip_parens(option) else {
        return None;
    };
    let Expr::Path(func) = &*call.func else {
        return None;
    };
    let runtime = func
        .path
        .segments
        .iter()
        .any(|segment| segment.ident == "__private");
    if runtime {
        // `generated::into_option(root(a, b))`: the call inside
        return match (func.path.segments.last(), call.args.first()) {
            (Some(last), Some(inner)) if last.ident == "into_option" && call.args.len() == 1 => {
                option_call(inner, plain)
            }
            _ => None,
        };
    }
    let function = func.qself.is_none()
        && !func.path.is_ident("Some")
        && func.path.segments.iter().all(|segment| {
            segment.arguments.is_none() && !crate::syntax::starts_uppercase(&segment.ident)
        });
    (function && !plain(&func.path)).then_some(call)
}

/// The methods of an option local that [`Uses`] rewrites.
const OPTION_METHODS: &[&str] = &[
    "unwrap_or",
    "unwrap_or_default",
    "unwrap",
    "expect",
    "is_some",
    "is_none",
    "map_or",
    "map_or_else",
];

/// The body with each `match`, `if let` and `let .. else` of a function's call
/// ([`option_call`]) by `Some`/`None` patterns, and each of its [`OPTION_METHODS`], reading
/// a local of the call instead (`match root(a, b) { .. }` is `{ let option = root(a, b);
/// match option { .. } }`): an
/// option local, which [`rewrite_local`] then takes (the same program: the scrutinee is
/// evaluated once, first, in both). In every block, closures and nested items aside.
fn scrutinee_locals(stmts: Vec<Stmt>, plain: &dyn Fn(&syn::Path) -> bool) -> Vec<Stmt> {
    struct Scrutinees<'a> {
        plain: &'a dyn Fn(&syn::Path) -> bool,
        next: usize,
    }
    impl Scrutinees<'_> {
        fn local(&mut self) -> Ident {
            self.next += 1;
            crate::syntax::fresh_local(format!("called_option{}", self.next))
        }
        fn option_patterns<'p>(&self, mut pats: impl Iterator<Item = &'p Pat>) -> bool {
            pats.all(|pat| {
                let pat = match pat {
                    Pat::Guard(guarded) => &*guarded.pat,
                    pat => pat,
                };
                match pat {
                    Pat::Wild(_) => true,
                    Pat::Ident(ident) => ident.ident == "None" && ident.subpat.is_none(),
                    Pat::Path(path) => path.path.is_ident("None"),
                    Pat::TupleStruct(tuple) => tuple.path.is_ident("Some"),
                    _ => false,
                }
            })
        }
    }
    impl VisitMut for Scrutinees<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let scrutinee = match expr {
                Expr::Match(choice)
                    if option_call(&choice.expr, self.plain).is_some()
                        && self.option_patterns(choice.arms.iter().map(|arm| &arm.pat)) =>
                {
                    &mut choice.expr
                }
                // `root(a, b).unwrap_or(c)`, `.expect(..)`, `.is_some()`, ..: a use of a local
                Expr::MethodCall(call)
                    if OPTION_METHODS.contains(&call.method.to_string().as_str())
                        && option_call(&call.receiver, self.plain).is_some() =>
                {
                    &mut call.receiver
                }
                Expr::If(branch) => match &mut *branch.cond {
                    Expr::Let(condition)
                        if option_call(&condition.expr, self.plain).is_some()
                            && self.option_patterns(std::iter::once(&*condition.pat)) =>
                    {
                        &mut condition.expr
                    }
                    _ => return,
                },
                _ => return,
            };
            let local = self.local();
            let call = std::mem::replace(&mut **scrutinee, syn::parse_quote!(#local));
            *expr = syn::parse_quote!({
                let #local = #call;
                #expr
            });
        }
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            syn::visit_mut::visit_block_mut(self, block);
            let mut stmts = Vec::with_capacity(block.stmts.len());
            for mut stmt in std::mem::take(&mut block.stmts) {
                if let Stmt::Local(local) = &mut stmt
                    && let Some(init) = &mut local.init
                    && init.diverge.is_some()
                    && option_call(&init.expr, self.plain).is_some()
                    && self.option_patterns(std::iter::once(&local.pat))
                {
                    let name = self.local();
                    let call = std::mem::replace(&mut *init.expr, syn::parse_quote!(#name));
                    stmts.push(syn::parse_quote!(let #name = #call;));
                }
                stmts.push(stmt);
            }
            block.stmts = stmts;
        }
        fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    Scrutinees { plain, next: 0 }.visit_block_mut(&mut block);
    block.stmts
}

/// `T` of `Option<T>`.
pub(crate) fn option_payload(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(ty) if args.args.len() == 1 => Some(ty),
        _ => None,
    }
}

impl Parts<'_> {
    /// `option` (an option expression) as statements assigning the flag and the value,
    /// branch by branch; `None` if it is not one.
    fn assign(&self, option: &Expr) -> Option<Expr> {
        crate::syntax::assign_branches(option, &mut |leaf| self.assign_leaf(leaf), |tail| {
            matches!(tail, Expr::Return(_) | Expr::Break(_) | Expr::Continue(_))
        })
    }

    /// One value `option` may end with ([`assign`](Self::assign)) as the statements that
    /// assign it.
    fn assign_leaf(&self, option: &Expr) -> Option<Expr> {
        let is_some = &self.is_some;
        match option {
            Expr::Call(call)
                if call.args.len() == 1
                    && matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Some")) =>
            {
                let e = &call.args[0];
                let set = self.value.set(e);
                Some(syn::parse_quote!({ #set #is_some = true; }))
            }
            Expr::Path(path) if path.path.is_ident("None") => {
                let unset = self.value.unset();
                Some(syn::parse_quote!({ #unset #is_some = false; }))
            }
            // a function's call (`root(a, b)`): an `Option` result, as the local's uses say
            Expr::Call(_) if option_call(option, self.plain).is_some() => {
                Some(self.assign_call(option))
            }
            // a branch that leaves (`return`, `break`, `continue`, `panic!`) assigns nothing
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => Some(option.clone()),
            Expr::Macro(mac)
                if mac.mac.path.is_ident("panic") || mac.mac.path.is_ident("unreachable") =>
            {
                Some(option.clone())
            }
            _ => None,
        }
    }

    /// `call`, a function's call with an `Option` result, as the statements that assign it.
    /// The value's slot, when the first lowering found it inactive (`Slots`), holds the
    /// option as the call returns it, a constant; otherwise the call's parts, the value
    /// and the variant (`option_results`), are bound by a `let` marked [`CALL_MARK`],
    /// which lowering makes a call of the callee's twin when the call reads a
    /// differentiable value, and the flag is the variant's sign (`1` for `Some`, `-1` for
    /// `None`: `generated::option_parts`).
    fn assign_call(&self, option: &Expr) -> Expr {
        let call = option_call(option, self.plain).expect("checked by `assign_leaf`");
        self.called.set(true);
        let is_some = &self.is_some;
        let name = self.name.to_string();
        let held = crate::syntax::fresh_local(format!("{name}_returned"));
        if let Some(hold) = self.value.hold_option(&held) {
            return syn::parse_quote!({
                let #held = #call;
                #is_some = #held.is_some();
                #hold
            });
        }
        let variant = crate::syntax::fresh_local(format!("{name}_variant"));
        let mark = format_ident!("{CALL_MARK}");
        let set = self.value.set(&held);
        // the variant is 1 or -1, above its negation exactly for `Some`: a comparison, a
        // constant, and no literal, which a float type parameter would not take
        syn::parse_quote!({
            #[#mark]
            let (#held, #variant) = #call;
            #is_some = #variant > -#variant;
            #set
        })
    }

    fn is_name(&self, expr: &Expr) -> bool {
        crate::syntax::is_name(expr, &self.name)
    }

    /// `let name = value;` (`let mut` as the pattern says) for a `Some(pat)` pattern, or
    /// nothing for `Some(_)`; `None` for any other inner pattern.
    fn bind(&self, inner: &Pat) -> Option<Option<Stmt>> {
        let value = self.value.read();
        match inner {
            Pat::Wild(_) => Some(None),
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                Some(Some(syn::parse_quote!(let #pat = #value;)))
            }
            _ => None,
        }
    }

    /// The condition an arm's pattern tests, and the binding it makes, or `None` for a
    /// pattern outside the rewrite (`Some(1.0)`, a binding of the whole option...).
    fn arm_test(&self, pat: &Pat) -> Option<(Option<Expr>, Option<Stmt>)> {
        let is_some = &self.is_some;
        match pat {
            Pat::Wild(_) => Some((None, None)),
            Pat::Ident(ident) if ident.ident == "None" && ident.subpat.is_none() => {
                Some((Some(syn::parse_quote!(!#is_some)), None))
            }
            Pat::Path(path) if path.path.is_ident("None") => {
                Some((Some(syn::parse_quote!(!#is_some)), None))
            }
            Pat::TupleStruct(tuple) if tuple.path.is_ident("Some") && tuple.elems.len() == 1 => {
                let binding = self.bind(&tuple.elems[0])?;
                Some((Some(syn::parse_quote!(#is_some)), binding))
            }
            _ => None,
        }
    }

    /// `match name { arms }` as an `if` chain over the flag.
    fn match_chain(&self, arms: &[syn::Arm]) -> Option<Expr> {
        let mut tests = Vec::new();
        for arm in arms {
            // syn 3 keeps a guard in the pattern: `Some(x) if x > 0`
            let (pat, guard) = match &arm.pat {
                Pat::Guard(guarded) => (&*guarded.pat, Some(&guarded.guard)),
                pat => (pat, None),
            };
            let (test, binding) = self.arm_test(pat)?;
            let guard = guard.map(|guard| {
                // the guard sees the arm's binding
                let guard: Expr = match &binding {
                    Some(binding) => syn::parse_quote!({ #binding #guard }),
                    None => syn::parse_quote!((#guard)),
                };
                guard
            });
            let condition: Option<Expr> = match (test, guard) {
                (Some(test), Some(guard)) => Some(syn::parse_quote!(#test && #guard)),
                (Some(test), None) => Some(test),
                (None, guard) => guard,
            };
            let body = &arm.body;
            let body: syn::Block = match &binding {
                Some(binding) => syn::parse_quote!({ #binding #body }),
                None => syn::parse_quote!({ #body }),
            };
            let catch_all = condition.is_none();
            tests.push((condition, body));
            if catch_all {
                break;
            }
        }
        // The match is exhaustive (rustc checked the body as written): once the arms
        // before it failed, the last arm matches, so it needs no test.
        let (_, last) = tests.pop()?;
        let mut chain: Expr = syn::parse_quote!(#last);
        for (condition, body) in tests.into_iter().rev() {
            let condition = condition.expect("only the last arm may be a catch-all");
            chain = syn::parse_quote!(if #condition #body else { #chain });
        }
        Some(chain)
    }
}

/// Rewrites the uses of one option local; `failed` when one is outside the rewrite.
struct Uses<'a> {
    parts: &'a Parts<'a>,
    failed: bool,
}

impl VisitMut for Uses<'_> {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        // `let Some(x) = name else { .. };`
        if let Stmt::Local(local) = stmt
            && let Some(init) = &local.init
            && let Some((_, diverge)) = &init.diverge
            && self.parts.is_name(&init.expr)
        {
            let (value, is_some) = (self.parts.value.read(), &self.parts.is_some);
            let rewritten = match &local.pat {
                Pat::TupleStruct(tuple)
                    if tuple.path.is_ident("Some") && tuple.elems.len() == 1 =>
                {
                    match &tuple.elems[0] {
                        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                            let mut diverge = diverge.clone();
                            self.visit_expr_mut(&mut diverge);
                            Some(
                                syn::parse_quote!(let #pat = if #is_some { #value } else { #diverge };),
                            )
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            match rewritten {
                Some(rewritten) => *stmt = rewritten,
                None => self.failed = true,
            }
            return;
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // again on the result: an assignment of a `match` on the option itself
        // (`best = match best { .. }`) gives a `match` on it, rewritten next. Each rewrite
        // removes the use at the top, so this ends.
        while let Some(rewritten) = self.rewrite(expr) {
            *expr = rewritten;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Uses<'_> {
    /// `expr` rewritten if it is a use of the option (its parts then visited again for
    /// uses inside them), `None` if it is not one.
    fn rewrite(&mut self, expr: &Expr) -> Option<Expr> {
        let parts = self.parts;
        let (is_some, value) = (&parts.is_some, parts.value.read());
        match expr {
            Expr::Assign(assign) if parts.is_name(&assign.left) => {
                let assigned = parts.assign(&assign.right);
                if assigned.is_none() {
                    self.failed = true;
                }
                assigned
            }
            Expr::Match(expr_match) if parts.is_name(&expr_match.expr) => {
                let chain = parts.match_chain(&expr_match.arms);
                if chain.is_none() {
                    self.failed = true;
                }
                chain
            }
            Expr::If(expr_if) => {
                let Expr::Let(test) = &*expr_if.cond else {
                    return None;
                };
                if !parts.is_name(&test.expr) {
                    return None;
                }
                let Some((Some(condition), binding)) = parts.arm_test(&test.pat) else {
                    self.failed = true;
                    return None;
                };
                let mut rewritten = expr_if.clone();
                rewritten.cond = Box::new(condition);
                if let Some(binding) = binding {
                    rewritten.then_branch.stmts.insert(0, binding);
                }
                Some(Expr::If(rewritten))
            }
            Expr::MethodCall(call) if parts.is_name(&call.receiver) => {
                let args: Vec<&Expr> = call.args.iter().collect();
                let rewritten: Option<Expr> = match (call.method.to_string().as_str(), args.as_slice()) {
                    ("is_some", []) => Some(syn::parse_quote!(#is_some)),
                    ("is_none", []) => Some(syn::parse_quote!((!#is_some))),
                    ("unwrap_or", [default]) => {
                        Some(syn::parse_quote!((if #is_some { #value } else { #default })))
                    }
                    ("unwrap_or_default", []) => Some(syn::parse_quote!((if #is_some { #value } else { ::core::default::Default::default() }))),
                    ("unwrap", []) => Some(syn::parse_quote!({
                        assert!(#is_some, "called `Option::unwrap()` on a `None` value");
                        #value
                    })),
                    ("expect", [message]) => Some(syn::parse_quote!({
                        assert!(#is_some, "{}", #message);
                        #value
                    })),
                    ("map_or", [default, Expr::Closure(f)]) => {
                        map_body(f).map(|(param, body)| syn::parse_quote!((if #is_some { let #param = #value; #body } else { #default })))
                    }
                    ("map_or_else", [Expr::Closure(default), Expr::Closure(f)])
                        if default.inputs.is_empty() =>
                    {
                        let default = &default.body;
                        map_body(f).map(|(param, body)| syn::parse_quote!((if #is_some { let #param = #value; #body } else { #default })))
                    }
                    _ => None,
                };
                if rewritten.is_none() {
                    self.failed = true;
                }
                rewritten
            }
            _ => None,
        }
    }
}

/// A one-parameter closure's parameter and body, `|v| e` or `|v: f64| e`.
fn map_body(f: &syn::ExprClosure) -> Option<(&Pat, &Expr)> {
    if f.inputs.len() != 1 || f.asyncness.is_some() || f.capture.is_some() {
        return None;
    }
    Some((&f.inputs[0], &f.body))
}
