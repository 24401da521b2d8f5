//! Calls of functions with an array result whose caller indexes the result (scalar mode):
//! `let c = cross(a, b);` and then `c[0]`, `c[i]`, `c.iter()`, `for v in c`, `let [x, y,
//! z] = c;`.
//!
//! A proc macro sees one item: the caller cannot know the callee's result type, nor its
//! length. It knows how the result is used, and a value that is indexed or iterated is an
//! array. Such a `let` is marked ([`MARK`]) for lowering, which, when the call reads a
//! differentiable value, makes `c` a local array of the caller and the call a call of the
//! callee's writer, `cross::__gradtape_write(a, b, &mut c)` (`Callee::Writer`): an
//! annotated function writing a `&mut` array (`Stmt::CallWrites`), Enzyme's shadow in
//! place. Everything the caller does with `c` is then what it does with any local array,
//! and the length is the callee's, known to the type checker only (the local starts as
//! `generated::array_of_zeros()`, its type the writer's parameter's). A result the code
//! reads by rows (`r[i][j]`, [`used_as_rows`]) is an array of rows, `[[F; C]; R]`: the
//! mark says so ([`ROWS`]), the local starts as `generated::array_of_zero_rows()` and its
//! row length is read off it (`generated::row_len`). A call reading no differentiable
//! value stays as written: a constant array, whatever the callee is.
//!
//! The callee's side is `results`' (an array result's writer and its companion items). A
//! callee that is not annotated is the runtime's message at its name
//! (`generated::Annotated`, through `ir::through_companion`).

use std::collections::HashSet;

use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat, Stmt};

use crate::syntax::{single_ident, strip_parens};

/// The mark on a `let` whose value is a call's array result indexed later:
/// `#[gradtape_array_result] let c = cross(a, b);`. Read (and removed) by lowering; never
/// emitted.
pub const MARK: &str = "gradtape_array_result";

/// The mark's argument on a local the code after it uses as an array of rows
/// (`#[gradtape_array_result(rows)] let r = rotation(t);`, then `r[0][1]`): the callee's
/// result is `[[F; C]; R]` (else it is `[F; N]`, and the caller's code would not compile
/// as written either), the local an array of rows whose row length `C` lowering reads off
/// the local (`generated::row_len`).
pub const ROWS: &str = "rows";

/// Whether a `let` marked [`MARK`] holds an array of rows ([`ROWS`]).
pub fn marked_rows(local: &syn::Local) -> bool {
    local.attrs.iter().any(|attr| {
        attr.path().is_ident(MARK)
            && attr
                .parse_args::<Ident>()
                .is_ok_and(|argument| argument == ROWS)
    })
}

/// The last segment of the path a caller calls an array result's writer by
/// (`cross::__gradtape_write`), the companion's item (`results::writer_items`).
pub const WRITER: &str = "__gradtape_write";

/// The body's statements with every such `let` marked, in every block. `plain` says
/// whether a path is a plain helper named in `plain(..)` (run on dual numbers, with no
/// writer).
pub fn mark(stmts: Vec<Stmt>, plain: &dyn Fn(&syn::Path) -> bool) -> Vec<Stmt> {
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    let mut arrays = ArrayNames::default();
    arrays.visit_block(&block);
    // the names used as arrays of rows somewhere: `s = step(&s);` of one writes rows
    let rows = arrays
        .0
        .iter()
        .filter(|name| {
            let mut uses = RowUses::new(name);
            uses.visit_block(&block);
            uses.found(&arrays.0)
        })
        .cloned()
        .collect();
    Marks {
        plain,
        arrays: arrays.0,
        rows,
    }
    .visit_block_mut(&mut block);
    block.stmts
}

struct Marks<'p> {
    plain: &'p dyn Fn(&syn::Path) -> bool,
    /// The names the body uses as arrays anywhere ([`ArrayNames`]).
    arrays: HashSet<Ident>,
    /// Those of them it uses as arrays of rows ([`used_as_rows`]).
    rows: HashSet<Ident>,
}

impl VisitMut for Marks<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        visit_mut::visit_block_mut(self, block);
        // `let [x, y] = f(..);`: the result bound to a local first, `let r = f(..); let [x,
        // y] = r;`, a local array destructured
        let mut stmts = Vec::with_capacity(block.stmts.len());
        let old = std::mem::take(&mut block.stmts);
        for (k, stmt) in old.iter().cloned().enumerate() {
            // `let c = f(&c);` indexed later: the result bound to a local of its own first,
            // marked, then copied into the new `c` (`let c = r;`, an array's copy), so
            // the array the writer writes is never one the call reads
            if let syn::Stmt::Local(local) = &stmt
                && let Some(ident) = bound_name(&local.pat)
                && let Some(init) = &local.init
                && init.diverge.is_none()
                && self.calls_by_name(&init.expr)
                && crate::syntax::names_in(quote::ToTokens::to_token_stream(&init.expr))
                    .contains(&ident.to_string())
                && indexed_in(ident, &old[k + 1..])
            {
                let result = crate::syntax::fresh_local("array_result");
                let value = &init.expr;
                let mark = Ident::new(MARK, proc_macro2::Span::call_site());
                if used_as_rows(ident, &old[k + 1..]) {
                    let rows = Ident::new(ROWS, proc_macro2::Span::call_site());
                    stmts.push(syn::parse_quote!(#[#mark(#rows)] let #result = #value;));
                } else {
                    stmts.push(syn::parse_quote!(#[#mark] let #result = #value;));
                }
                let mut copy = local.clone();
                copy.init = Some(syn::LocalInit {
                    eq_token: init.eq_token,
                    expr: Box::new(syn::parse_quote!(#result)),
                    diverge: None,
                });
                stmts.push(syn::Stmt::Local(copy));
                continue;
            }
            if let syn::Stmt::Local(local) = &stmt
                && let Pat::Slice(slice) = &local.pat
                && let Some(init) = &local.init
                && init.diverge.is_none()
                && self.calls_by_name(&init.expr)
            {
                let result = crate::syntax::fresh_local("array_result");
                let value = &init.expr;
                let attrs = &local.attrs;
                stmts.push(syn::parse_quote!(let #result = #value;));
                stmts.push(syn::parse_quote!(#(#attrs)* let #slice = #result;));
                continue;
            }
            // `s = step(&s, dt);` of a name used as an array: the result bound to a local
            // first, then assigned (an array's copy, element by element), as Rust evaluates
            // the value before the place
            if let syn::Stmt::Expr(Expr::Assign(assign), Some(_)) = &stmt
                && let Some(name) = single_ident(&assign.left)
                && self.arrays.contains(name)
                && self.calls_by_name(&assign.right)
            {
                let result = crate::syntax::fresh_local("array_result");
                let value = &assign.right;
                let mark = Ident::new(MARK, proc_macro2::Span::call_site());
                if self.rows.contains(name) {
                    let rows = Ident::new(ROWS, proc_macro2::Span::call_site());
                    stmts.push(syn::parse_quote!(#[#mark(#rows)] let #result = #value;));
                } else {
                    stmts.push(syn::parse_quote!(#[#mark] let #result = #value;));
                }
                stmts.push(syn::parse_quote!(#name = #result;));
                continue;
            }
            stmts.push(stmt);
        }
        block.stmts = stmts;
        for k in 0..block.stmts.len() {
            let (head, rest) = block.stmts.split_at_mut(k + 1);
            let syn::Stmt::Local(local) = &mut head[k] else {
                continue;
            };
            // `let c = ..;` or `let c: [f64; 3] = ..;`
            let pat = match &local.pat {
                Pat::Ident(pat) => pat,
                Pat::Type(typed) => match &*typed.pat {
                    Pat::Ident(pat) => pat,
                    _ => continue,
                },
                _ => continue,
            };
            let Some(init) = &local.init else {
                continue;
            };
            if init.diverge.is_some()
                || local.attrs.iter().any(|attr| attr.path().is_ident(MARK))
                || pat.by_ref.is_some()
                || pat.subpat.is_some()
                || !self.calls_by_name(&init.expr)
                || !indexed_in(&pat.ident, rest)
                // `let c = f(&c);`: the arguments read the earlier `c`, which the local
                // array the call writes would hide (bound through a local of its own
                // above; here only where the new `c` is no array)
                || crate::syntax::names_in(quote::ToTokens::to_token_stream(&init.expr))
                    .contains(&pat.ident.to_string())
            {
                continue;
            }
            let mark = Ident::new(MARK, proc_macro2::Span::call_site());
            if used_as_rows(&pat.ident, rest) {
                let rows = Ident::new(ROWS, proc_macro2::Span::call_site());
                local.attrs.push(syn::parse_quote!(#[#mark(#rows)]));
            } else {
                local.attrs.push(syn::parse_quote!(#[#mark]));
            }
        }
    }

    // a closure's or nested item's body is its own
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Marks<'_> {
    /// A call of a function by its path that may be an annotated function with an array
    /// result: not a constructor (`Point(..)`), nor a type's associated function
    /// (`Vec::from`), nor one with generic arguments (its companion type has none), nor a
    /// plain helper or `stop_gradient`.
    fn calls_by_name(&self, expr: &Expr) -> bool {
        let call = match strip_parens(expr) {
            Expr::Call(call) => call,
            // a method of the user's: not one of the standard library's a copy or an
            // iterator is made by, nor a float method
            Expr::MethodCall(call) => {
                let method = call.method.to_string();
                return call.turbofish.is_none()
                    && !STANDARD_METHODS.contains(&method.as_str())
                    && crate::vocabulary::elementwise(&method).is_none()
                    && !method.starts_with("__gradtape");
            }
            _ => return false,
        };
        let Expr::Path(func) = &*call.func else {
            return false;
        };
        let path = &func.path;
        func.qself.is_none()
            && !crate::syntax::is_constructor(path)
            && (!crate::syntax::is_associated(path) || crate::syntax::is_annotated_associated(path))
            && path.segments.iter().all(|s| s.arguments.is_none())
            && path.segments.last().is_some_and(|last| {
                last.ident != "stop_gradient" && !last.ident.to_string().starts_with("__gradtape")
            })
            && !(self.plain)(path)
    }
}

/// The name `let name = ..;` or `let name: T = ..;` binds (not by reference).
fn bound_name(pat: &Pat) -> Option<&Ident> {
    let pat = match pat {
        Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    match pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(&pat.ident),
        _ => None,
    }
}

/// Whether `rest` (the statements after `let name = ..;`, up to a `let` binding the name
/// again, whose value still reads it) uses `name` as an array: indexes it (`name[i]`),
/// calls a slice's method on it (`iter`, `len`, `first`, ..), iterates it (`for v in
/// name`, `&name`) or destructures it (`let [a, b] = name;`).
fn indexed_in(name: &Ident, rest: &[Stmt]) -> bool {
    let mut uses = ArrayNames::default();
    for stmt in rest {
        if let Stmt::Local(local) = stmt
            && crate::syntax::pattern_binds(&local.pat, name)
        {
            if let Some(init) = &local.init {
                uses.visit_expr(&init.expr);
            }
            break;
        }
        uses.visit_stmt(stmt);
    }
    uses.0.contains(name)
}

/// Whether `rest` (as [`indexed_in`] reads it) uses `name` as an array of rows: reads an
/// element by two indices (`name[i][j]`), destructures it by rows (`let [[a, b], [c, d]] =
/// name;`), binds a row it then uses as an array (`let row = name[i];`), passes a row on
/// (`dot(&name[0], x)`, `name[i].iter()`, `for v in &name[i]`), or iterates it (`for row
/// in name.iter()`, `name.iter().map(|row| ..)`, through `enumerate`, `rev`, ..) with the
/// item used as an array. A float cannot be used so: a caller of a function returning
/// `[F; N]` using the result so does not compile as written either. (A mark of rows the
/// result is not, or no mark of rows where it is, is rustc's type mismatch at the call,
/// between the local's zeros and the writer's `&mut` parameter: never a local of the
/// wrong shape.)
fn used_as_rows(name: &Ident, rest: &[Stmt]) -> bool {
    let mut rows = RowUses::new(name);
    let mut arrays = ArrayNames::default();
    for stmt in rest {
        if let Stmt::Local(local) = stmt
            && crate::syntax::pattern_binds(&local.pat, name)
        {
            if let Some(init) = &local.init {
                rows.visit_expr(&init.expr);
                arrays.visit_expr(&init.expr);
            }
            break;
        }
        rows.visit_stmt(stmt);
        arrays.visit_stmt(stmt);
    }
    rows.found(&arrays.0)
}

/// What [`used_as_rows`] looks for: a use of `name` as rows, or the names bound to its
/// rows (one of which used as an array is a row).
struct RowUses<'n> {
    name: &'n Ident,
    /// Used as an array of rows for sure (`name[i][j]`, `name[i].iter()`, ..).
    rows: bool,
    /// `&name[i]` passed to a call: a row, or an element taken by reference (an annotated
    /// `fn weight(v: &f64)`), so it counts only if no item is used as a number.
    borrowed_rows: bool,
    /// An item `name[i]` used as a number (an operand of `+`, `-`, `*`, `/`, `%`, or of
    /// a negation): the array is flat, whatever `&name[i]` elsewhere suggested
    /// (regression: `weight(&c[0])` of a flat `c = cross(a, b)` took `c` for rows,
    /// `a_flat_result_whose_element_is_borrowed`).
    elements: bool,
    row_names: HashSet<Ident>,
}

impl<'n> RowUses<'n> {
    fn new(name: &'n Ident) -> Self {
        RowUses {
            name,
            rows: false,
            borrowed_rows: false,
            elements: false,
            row_names: HashSet::new(),
        }
    }

    /// Whether what was visited uses the name as rows; `arrays`, the names the same code
    /// uses as arrays (a row bound to a name is one).
    fn found(&self, arrays: &HashSet<Ident>) -> bool {
        self.rows
            || (self.borrowed_rows && !self.elements)
            || self.row_names.iter().any(|row| arrays.contains(row))
    }

    /// Whether `expr` is `name`, `&name`, or an iterator over its items (`name.iter()`,
    /// `name.iter().enumerate()`, `.rev()`, ..); with `enumerate`, the item is a pair.
    fn iterates(&self, expr: &Expr) -> Option<bool> {
        match strip_parens(expr) {
            Expr::Reference(reference) => self.iterates(&reference.expr),
            Expr::MethodCall(call) if ROW_ITERATORS.contains(&call.method.to_string().as_str()) => {
                let enumerated = self.iterates(&call.receiver)?;
                Some(enumerated || call.method == "enumerate")
            }
            expr => (single_ident(expr) == Some(self.name)).then_some(false),
        }
    }

    /// The name an item pattern binds to a row: `row`, `&row`, `(i, row)` of `enumerate`.
    fn row_name(pat: &Pat, enumerated: bool) -> Option<&Ident> {
        let pat = match (pat, enumerated) {
            (Pat::Tuple(tuple), true) if tuple.elems.len() == 2 => &tuple.elems[1],
            (_, true) => return None,
            (pat, false) => pat,
        };
        let pat = match pat {
            Pat::Reference(reference) => &*reference.pat,
            Pat::Type(typed) => &*typed.pat,
            pat => pat,
        };
        match pat {
            Pat::Ident(ident) => Some(&ident.ident),
            _ => None,
        }
    }

    /// An item bound by `pat` and used in `body` (a loop's, a closure's): a row if the
    /// body uses it as an array.
    fn item_in(&mut self, pat: &Pat, enumerated: bool, body: &Expr) {
        if let Some(row) = Self::row_name(pat, enumerated) {
            let mut arrays = ArrayNames::default();
            arrays.visit_expr(body);
            self.rows |= arrays.0.contains(row);
        }
    }

    /// Whether `expr` is a row of `name`: `&name[i]` (a row borrowed, `dot(&name[0], x)`,
    /// `for v in &name[i]`), or, unless `borrowed_only`, `name[i]` itself (a slice
    /// method's receiver, `name[i].iter()`). An element of a flat array borrowed so is a
    /// `&F`, which no annotated function takes.
    fn row_of_name(&self, expr: &Expr, borrowed_only: bool) -> bool {
        let expr = match strip_parens(expr) {
            Expr::Reference(reference) => strip_parens(&reference.expr),
            _ if borrowed_only => return false,
            expr => expr,
        };
        matches!(expr, Expr::Index(index)
            if single_ident(strip_parens(&index.expr)) == Some(self.name))
    }
}

impl<'ast> Visit<'ast> for RowUses<'_> {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        // `dot(&name[0], x)`: a row passed on
        self.borrowed_rows |= call.args.iter().any(|arg| self.row_of_name(arg, true));
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
        use syn::BinOp;
        if matches!(
            binary.op,
            BinOp::Add(_)
                | BinOp::Sub(_)
                | BinOp::Mul(_)
                | BinOp::Div(_)
                | BinOp::Rem(_)
                | BinOp::AddAssign(_)
                | BinOp::SubAssign(_)
                | BinOp::MulAssign(_)
                | BinOp::DivAssign(_)
                | BinOp::RemAssign(_)
        ) {
            self.elements |= [&*binary.left, &*binary.right]
                .into_iter()
                .any(|side| self.row_of_name(side, false) && !self.row_of_name(side, true));
        }
        visit::visit_expr_binary(self, binary);
    }

    fn visit_expr_unary(&mut self, unary: &'ast syn::ExprUnary) {
        if matches!(unary.op, syn::UnOp::Neg(_)) && self.row_of_name(&unary.expr, false) {
            self.elements = true;
        }
        visit::visit_expr_unary(self, unary);
    }

    fn visit_expr_index(&mut self, index: &'ast syn::ExprIndex) {
        if let Expr::Index(row) = strip_parens(&index.expr)
            && single_ident(strip_parens(&row.expr)) == Some(self.name)
        {
            self.rows = true;
        }
        visit::visit_expr_index(self, index);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            let init = strip_parens(&init.expr);
            // `let [[a, b], [c, d]] = name;`
            if let Pat::Slice(slice) = &local.pat
                && single_ident(init) == Some(self.name)
                && slice.elems.iter().any(|elem| matches!(elem, Pat::Slice(_)))
            {
                self.rows = true;
            }
            // `let row = name[i];`, the row used as an array in the code after it
            if let Expr::Index(index) = init
                && single_ident(strip_parens(&index.expr)) == Some(self.name)
                && let Some(row) = Self::row_name(&local.pat, false)
            {
                self.row_names.insert(row.clone());
            }
        }
        visit::visit_local(self, local);
    }

    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        // `for v in &name[i]`
        self.rows |= self.row_of_name(&for_loop.expr, true);
        if let Some(enumerated) = self.iterates(&for_loop.expr) {
            let body = Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: for_loop.body.clone(),
            });
            self.item_in(&for_loop.pat, enumerated, &body);
        }
        visit::visit_expr_for_loop(self, for_loop);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        // `name[i].iter()`, `name[i].len()`: a row's slice method; `x.dot(&name[0])`
        self.rows |= SLICE_METHODS.iter().any(|method| call.method == method)
            && self.row_of_name(&call.receiver, false);
        self.borrowed_rows |= call.args.iter().any(|arg| self.row_of_name(arg, true));
        // `name.iter().map(|row| ..)`: an adaptor's closure over the items
        if let Some(enumerated) = self.iterates(&call.receiver) {
            for arg in &call.args {
                if let Expr::Closure(closure) = strip_parens(arg)
                    && let Some(pat) = closure.inputs.first()
                {
                    self.item_in(pat, enumerated, &closure.body);
                }
            }
        }
        visit::visit_expr_method_call(self, call);
    }
}

/// The iterator adaptors an array of rows' items go through unchanged (as items), which
/// [`RowUses`] follows.
const ROW_ITERATORS: &[&str] = &[
    "iter",
    "into_iter",
    "iter_mut",
    "enumerate",
    "rev",
    "skip",
    "take",
    "step_by",
    "copied",
    "cloned",
];

/// Every name the code visited indexes (`name[i]`), calls a slice's method on (`iter`,
/// `len`, `first`, ..), iterates (`for v in name`, `&name`) or destructures (`let [a, b] =
/// name;`): an array, since a float cannot be used so.
#[derive(Default)]
struct ArrayNames(HashSet<Ident>);

impl ArrayNames {
    fn add(&mut self, expr: &Expr) {
        let expr = match strip_parens(expr) {
            Expr::Reference(reference) => strip_parens(&reference.expr),
            expr => expr,
        };
        if let Some(ident) = single_ident(expr) {
            self.0.insert(ident.clone());
        }
    }
}

impl<'ast> Visit<'ast> for ArrayNames {
    fn visit_expr_index(&mut self, index: &'ast syn::ExprIndex) {
        self.add(&index.expr);
        visit::visit_expr_index(self, index);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if SLICE_METHODS.iter().any(|method| call.method == method) {
            self.add(&call.receiver);
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.add(&for_loop.expr);
        visit::visit_expr_for_loop(self, for_loop);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let (Pat::Slice(_), Some(init)) = (&local.pat, &local.init) {
            self.add(&init.expr);
        }
        visit::visit_local(self, local);
    }
}

/// Methods of the standard library whose result may be indexed (a copy, a collection, an
/// unwrapped value): never an annotated method's array result.
const STANDARD_METHODS: &[&str] = &[
    "clone",
    "to_vec",
    "to_owned",
    "collect",
    "into",
    "try_into",
    "cloned",
    "copied",
    "map",
    "unwrap",
    "unwrap_or",
    "expect",
    "as_slice",
    "as_ref",
    "borrow",
    "iter",
    "into_iter",
    "rev",
    "zip",
    "split_at",
    "concat",
];

/// The slice methods whose receiver is an array.
const SLICE_METHODS: &[&str] = &[
    "iter",
    "into_iter",
    "len",
    "first",
    "last",
    "get",
    "windows",
    "chunks",
    "to_vec",
];
