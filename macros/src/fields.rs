//! Local structs read and written field by field (scalar mode), split into one local per
//! field before lowering, which then differentiates each as any other local (one shadow
//! per field). It takes the body's statements and gives them rewritten.
//!
//! A local `let [mut] s [: Ty] = Ty { f: e, g: h };` (a struct literal naming every field
//! it sets, no `..base`) becomes one local per field, declared in the literal's order (the
//! order Rust evaluates the fields in), `let [mut] s_f = e; let [mut] s_g = h;`, the names
//! the generated code's own (hygienic). Every later use of `s` must be one of these,
//! rewritten in place:
//!
//! - `s.f` (read, or written: `s.f = e`, `s.f += e`), a field the literal sets;
//! - `s = Ty { f: e, g: h };` with the same fields: every value first, into temporaries
//!   (`s = Ty { x: s.v, v: s.x }` swaps), then each field's local assigned;
//! - `s = f(..);`, a call of a function returning the struct (`results`): the call into a
//!   temporary, `let t = f(..);`, then each field's local assigned from it, `s_f = t.f;`
//!   (lowering splits `t`, read only by field, into the call's parts);
//! - `f(&s, ..)` or `f(s, ..)` (or `x.m(&s, ..)`), the struct passed whole to a function
//!   or a method: built again from the fields' locals, `f(&Ty { f: s_f, g: s_g }, ..)`,
//!   which lowering passes field by field (`Callee::Gathered`);
//! - `let t = s;` or `t = s;`, a copy of the struct whole: built again from the fields'
//!   locals, `let t = Ty { f: s_f, g: s_g };`, whose literal names every field, so `t`
//!   is split in its turn;
//! - `Ty { f: e, ..s }`, a literal taking the fields it does not set from `s`: those read
//!   from their locals, `Ty { f: e, g: s_g }` (a literal naming every field, split in its
//!   turn where it initialises a local).
//!
//! Any other use (`s` passed whole, `s.method()`, a field the literal does not set, a
//! nested field written through `s.f.g`, `s` bound again by a later pattern) leaves the
//! local as written, and lowering rejects a differentiable value in it with its own
//! message, as before. The split is the same program for a struct without a `Drop` of
//! its own: each field is a value, read and written where the original reads and writes
//! it. One difference remains, of types: a field's local takes its type from its value
//! and its uses, as any `let`, not from the struct's declaration, so a field set by an
//! unsuffixed literal (`v: 0.0`, `steps: 0`) that meets no typed value afterwards (only
//! literals, then an `as` cast) would be an `f64` (`i32`) where the field was an `f32`
//! (`usize`). An integrator's fields meet each other and the parameters, which fixes them.

use std::collections::HashSet;

use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Member, Stmt};

use crate::syntax::strip_parens;

/// The body's statements with every splittable local struct split, in every block; the
/// locals whose method calls rebuild their receiver noted in `receivers`.
pub fn rewrite(stmts: Vec<Stmt>, receivers: &mut Receivers) -> Vec<Stmt> {
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    Fields {
        next: 0,
        receivers,
        named: HashSet::new(),
    }
    .visit_block_mut(&mut block);
    block.stmts
}

/// The split locals whose method calls, `s.energy(k)`, build the receiver again from the
/// fields' locals, `(Ty { f: s_f, .. }).energy(k)`: lowering gives an annotated method of
/// a struct of differentiable values the fields one by one. Of a constant struct, the
/// method is any method (`&mut self`, one returning a borrow of `self`), which a rebuilt
/// temporary would not serve: so the expansion lowers a body again when the first
/// lowering left every field of such a local inactive ([`Receivers::inactive_in`]), the
/// local then kept whole, as written.
#[derive(Default)]
pub struct Receivers {
    /// The locals kept whole (their method calls not rebuilt), by [`key`].
    kept: HashSet<String>,
    /// Each local whose receivers were rebuilt, by [`key`], and its fields' locals.
    rebuilt: Vec<(String, Vec<Ident>)>,
}

impl Receivers {
    /// The receivers of a second lowering: the locals in `kept` are kept whole.
    pub fn keeping(kept: HashSet<String>) -> Receivers {
        Receivers {
            kept,
            rebuilt: Vec::new(),
        }
    }

    /// The locals whose receivers were rebuilt and whose every field `body` (their
    /// lowering) left inactive.
    pub fn inactive_in(&self, body: &crate::model::ir::Body) -> HashSet<String> {
        let active = body.active_names();
        self.rebuilt
            .iter()
            .filter(|(_, parts)| parts.iter().all(|part| !active.contains(&part.to_string())))
            .map(|(key, _)| key.clone())
            .collect()
    }
}

/// A local's key, the same in every lowering: its name and where the user wrote it.
fn key(name: &Ident) -> String {
    format!("{name}@{:?}", name.span())
}

struct Fields<'r> {
    /// For the temporaries of whole assignments.
    next: usize,
    receivers: &'r mut Receivers,
    /// The fields' locals named so far: a second local of the same name gets locals of
    /// its own names, so that its fields' activity is its own.
    named: HashSet<String>,
}

impl VisitMut for Fields<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        // inner blocks first: a local declared inside one is split there
        visit_mut::visit_block_mut(self, block);
        crate::syntax::rewrite_with_rest(block, |stmt, rest| self.split(stmt, rest));
    }

    // a closure's own body is not the function's; items have bodies of their own
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Fields<'_> {
    /// `stmt`, if it declares a struct local whose every use in `rest` is a field's: the
    /// fields' declarations and `rest` rewritten.
    fn split(&mut self, stmt: &Stmt, rest: &[Stmt]) -> Option<(Vec<Stmt>, Vec<Stmt>)> {
        let (pat, value) = crate::syntax::named_let(stmt)?;
        let values = literal_fields(value)?;
        let Expr::Struct(literal) = strip_parens(value) else {
            unreachable!("literal_fields: a struct literal")
        };
        let name = &pat.ident;
        let parts: Vec<(Ident, Ident)> = values
            .iter()
            .map(|(field, _)| {
                let mut spelled = format!("{name}_{field}");
                let mut k = 1;
                while self.named.contains(&spelled) {
                    k += 1;
                    spelled = format!("{name}_{field}{k}");
                }
                (field.clone(), crate::syntax::fresh_local(spelled))
            })
            .collect();
        let mut rest = rest.to_vec();
        let mut uses = Uses {
            name,
            path: &literal.path,
            parts: &parts,
            failed: false,
            copied: false,
            rebuild_receivers: !self.receivers.kept.contains(&key(name)),
            rebuilt_receiver: false,
            next: &mut self.next,
        };
        for stmt in &mut rest {
            uses.visit_stmt_mut(stmt);
        }
        if uses.failed || crate::syntax::mentions(&rest, name) {
            return None;
        }
        if uses.rebuilt_receiver {
            let locals = parts.iter().map(|(_, part)| part.clone()).collect();
            self.receivers.rebuilt.push((key(name), locals));
        }
        self.named
            .extend(parts.iter().map(|(_, part)| part.to_string()));
        if uses.copied {
            // a copy in a nested block (`let prev = s;` in a loop's body) is a literal
            // now, which that block's pass, run before this one, did not see
            for stmt in &mut rest {
                self.visit_stmt_mut(stmt);
            }
        }
        let mutability = &pat.mutability;
        let declaration = values
            .iter()
            .zip(&parts)
            .map(|((_, value), (_, part))| syn::parse_quote!(let #mutability #part = #value;))
            .collect();
        Some((declaration, rest))
    }
}

/// The fields a struct literal sets, in its order, with their values (`Ty { x }` is
/// `Ty { x: x }`); `None` for another expression, a `..base` or a tuple struct's fields.
fn literal_fields(expr: &Expr) -> Option<Vec<(Ident, Expr)>> {
    let Expr::Struct(literal) = strip_parens(expr) else {
        return None;
    };
    if literal.rest.is_some() || literal.dot2_token.is_some() || literal.qself.is_some() {
        return None;
    }
    literal
        .fields
        .iter()
        .map(|field| match &field.member {
            Member::Named(ident) => Some((ident.clone(), field.expr.clone())),
            Member::Unnamed(_) => None,
        })
        .collect()
}

/// Rewrites the uses of a split struct local; `failed` if one is of another form.
struct Uses<'a> {
    name: &'a Ident,
    /// The struct's path as its literal spells it: passed whole, it is built again.
    path: &'a syn::Path,
    /// Each field and its local.
    parts: &'a [(Ident, Ident)],
    failed: bool,
    /// A `let t = s;` was rewritten into a literal `t` may be split by.
    copied: bool,
    /// Whether `s.method(..)` builds its receiver again ([`Receivers`]); else it keeps
    /// the local whole.
    rebuild_receivers: bool,
    /// Whether a receiver was built again.
    rebuilt_receiver: bool,
    next: &'a mut usize,
}

impl Uses<'_> {
    fn is_name(&self, expr: &Expr) -> bool {
        matches!(strip_parens(expr), Expr::Path(path)
            if path.qself.is_none() && path.path.is_ident(self.name))
    }

    fn part(&self, field: &Ident) -> Option<&Ident> {
        self.parts
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, part)| part)
    }
}

impl Uses<'_> {
    /// The struct built again from its fields' locals, `Ty { f: s_f, g: s_g }`, spanned
    /// at `at` (the use it stands for: what lowering says of it is said there).
    fn rebuilt(&self, at: proc_macro2::Span) -> Expr {
        let path = self.path;
        let fields = self.parts.iter().map(|(field, _)| field);
        // each local named where the use is written (resolved as declared: hygiene kept),
        // so that lowering's message on a field (an array field passed whole) is there
        let parts = self.parts.iter().map(|(_, part)| {
            let mut part = part.clone();
            part.set_span(part.span().located_at(at));
            part
        });
        syn::parse_quote_spanned!(at=> #path { #(#fields: #parts),* })
    }

    /// `literal`, whose base (`..s`) is the split struct, with the fields it does not set
    /// read from their locals instead, and no base.
    fn fill_from_base(&self, literal: &mut syn::ExprStruct) {
        let set: Vec<Member> = literal.fields.iter().map(|f| f.member.clone()).collect();
        for (field, part) in self.parts {
            let member = Member::Named(field.clone());
            if !set.contains(&member) {
                literal.fields.push(syn::parse_quote!(#field: #part));
            }
        }
        literal.rest = None;
        literal.dot2_token = None;
    }
}

impl VisitMut for Uses<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Field(field) if self.is_name(&field.base) => {
                let part = match &field.member {
                    Member::Named(member) => self.part(member).cloned(),
                    Member::Unnamed(_) => None,
                };
                match part {
                    Some(part) => *expr = syn::parse_quote!(#part),
                    None => self.failed = true,
                }
                return;
            }
            // `s = f(..);` (or `s = sim.step(..);`) of a function or method returning the
            // struct (`results`): the call's
            // value first, into a temporary read by field (which lowering splits into the
            // call's parts), then each field's local assigned
            Expr::Assign(assign)
                if self.is_name(&assign.left)
                    && matches!(
                        strip_parens(&assign.right),
                        Expr::MethodCall(_) | Expr::Call(_)
                    )
                    && !matches!(strip_parens(&assign.right), Expr::Call(call)
                        if !matches!(&*call.func, Expr::Path(_))) =>
            {
                self.visit_expr_mut(&mut assign.right);
                *self.next += 1;
                let temp = crate::syntax::fresh_local(format!("result{}", *self.next));
                let call = &assign.right;
                let assigns = self
                    .parts
                    .iter()
                    .map(|(field, part)| -> Stmt { syn::parse_quote!(#part = #temp.#field;) });
                *expr = syn::parse_quote!({ let #temp = #call; #(#assigns)* });
                return;
            }
            // `step(&s, dt)` (or `sim.step(&s)`): the struct passed whole to a function or
            // a method, built again from its fields' locals (lowering gives the call the
            // fields one by one, and adds the callee's gradient of the struct into them:
            // `Callee::Gathered`)
            Expr::Call(_) | Expr::MethodCall(_) if !matches!(expr, Expr::Call(call) if !matches!(&*call.func, Expr::Path(_))) =>
            {
                let args = match expr {
                    Expr::Call(call) => &mut call.args,
                    Expr::MethodCall(call) => {
                        // `s.energy(k)`: the receiver built again too, in parentheses, so
                        // that the call autorefs it as it does `s` (lowering gives an
                        // annotated method the fields one by one)
                        if self.is_name(&call.receiver) {
                            if !self.rebuild_receivers {
                                self.failed = true;
                                return;
                            }
                            let rebuilt =
                                self.rebuilt(syn::spanned::Spanned::span(&*call.receiver));
                            *call.receiver = syn::parse_quote!((#rebuilt));
                            self.rebuilt_receiver = true;
                        } else {
                            self.visit_expr_mut(&mut call.receiver);
                        }
                        &mut call.args
                    }
                    _ => unreachable!("matched"),
                };
                for arg in args {
                    let (whole, by_ref) = match strip_parens(arg) {
                        Expr::Reference(reference) if reference.mutability.is_none() => {
                            (self.is_name(&reference.expr), true)
                        }
                        other => (self.is_name(other), false),
                    };
                    if whole {
                        let rebuilt = self.rebuilt(syn::spanned::Spanned::span(&*arg));
                        let by_ref = by_ref.then(|| quote::quote!(&));
                        *arg = syn::parse_quote!(#by_ref #rebuilt);
                    } else {
                        self.visit_expr_mut(arg);
                    }
                }
                return;
            }
            // `t = s;`: the struct copied whole into another place, built again from its
            // fields' locals (a copy reads every field, as the rebuilt literal does)
            Expr::Assign(assign) if self.is_name(&assign.right) => {
                self.visit_expr_mut(&mut assign.left);
                *assign.right = self.rebuilt(syn::spanned::Spanned::span(&*assign.right));
                return;
            }
            // `Ty { f: e, ..s }`: the fields the literal does not set are read from their
            // locals (Rust evaluates the named fields in order, then the base; the base is
            // a place read here, with no effect of its own)
            Expr::Struct(literal)
                if literal
                    .rest
                    .as_deref()
                    .is_some_and(|base| self.is_name(base)) =>
            {
                self.fill_from_base(literal);
                visit_mut::visit_expr_struct_mut(self, literal);
                return;
            }
            Expr::Assign(assign) if self.is_name(&assign.left) => {
                if let Expr::Struct(literal) = &mut *assign.right
                    && literal
                        .rest
                        .as_deref()
                        .is_some_and(|base| self.is_name(base))
                {
                    self.fill_from_base(literal);
                }
                let Some(mut values) = literal_fields(&assign.right) else {
                    self.failed = true;
                    return;
                };
                // the same fields, each once: then every value first, into temporaries,
                // in the literal's order (the fields' own reads are rewritten too)
                let mut set: Vec<String> = values.iter().map(|(f, _)| f.to_string()).collect();
                set.sort();
                let mut declared: Vec<String> =
                    self.parts.iter().map(|(f, _)| f.to_string()).collect();
                declared.sort();
                if set != declared {
                    self.failed = true;
                    return;
                }
                for (_, value) in &mut values {
                    self.visit_expr_mut(value);
                }
                *self.next += 1;
                let mut stmts: Vec<Stmt> = Vec::new();
                let mut assigns: Vec<Stmt> = Vec::new();
                for (field, value) in values {
                    let temp = crate::syntax::fresh_local(format!("field{}_{field}", *self.next));
                    let part = self.part(&field).expect("checked above").clone();
                    stmts.push(syn::parse_quote!(let #temp = #value;));
                    assigns.push(syn::parse_quote!(#part = #temp;));
                }
                stmts.extend(assigns);
                *expr = syn::parse_quote!({ #(#stmts)* });
                return;
            }
            _ => {}
        }
        if self.is_name(expr) {
            // the struct whole: passed on, moved, borrowed, matched
            self.failed = true;
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        // `let t = s;`: a copy of the struct whole, built again from its fields' locals
        // (which splits `t` in turn, its literal naming every field)
        if let Some(init) = &mut local.init
            && init.diverge.is_none()
            && self.is_name(&init.expr)
        {
            *init.expr = self.rebuilt(syn::spanned::Spanned::span(&*init.expr));
            self.copied = true;
            self.visit_pat_mut(&mut local.pat);
            return;
        }
        visit_mut::visit_local_mut(self, local);
    }

    fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
        // bound again: later uses would be another local's
        if &pat.ident == self.name {
            self.failed = true;
        }
        visit_mut::visit_pat_ident_mut(self, pat);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // a macro's tokens are not rewritten: one naming the struct keeps it whole
        if names(mac.tokens.clone(), self.name) {
            self.failed = true;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether a token stream holds the identifier `name`, through its groups.
fn names(tokens: proc_macro2::TokenStream, name: &Ident) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => &ident == name,
        proc_macro2::TokenTree::Group(group) => names(group.stream(), name),
        _ => false,
    })
}
