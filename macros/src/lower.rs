//! Lowering: it takes the signature model and the body (through `returns`) and gives the
//! [`ir`](crate::model::ir), one primitive per statement. It asks `vocabulary` what each
//! method is, and calls `validate` for every construct that cannot be differentiated.
//!
//! Which locals are *active* (depend on a differentiable input) is decided here: a value is
//! active if its expression reads an active binding. A `let mut` that only becomes active
//! later (`let mut acc = 0.0; for .. { acc = acc + x }`) is found by lowering again with it
//! marked active, until nothing changes.
//!
//! Jumps (`break`, `continue`, a `return` left by `returns`) become [`Stmt::Jump`]s naming
//! the regions they leave; `while let`, `if let` and `let ... else` are lowered as the
//! `loop`/`match` they stand for; tuple patterns and tuple-valued locals are split into one
//! binding per part.

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Ident, Pat, UnOp};

use crate::args::Calls;
use crate::ctxt::Ctxt;
use crate::model::ir::{
    ArgShape, Arm, BinaryKind, Binding, BindingId, Block, Body, CallResult, Callee, Counter,
    JumpKind, LoopHead, Op, Operand, RETURN_REGION, Recompute, Schedule, Stmt, Target, Written,
    WrittenPart,
};
use crate::model::sig::{ArrayForm, Kind, Mode, Signature};
use crate::syntax::{is_jump, mixed, single_ident, strip_parens};
use crate::validate;
use crate::vocabulary;

/// What to do with a block's tail expression.
#[derive(Clone, Copy)]
enum Tail {
    /// It is the function's result.
    Output,
    /// Assign it to a binding (the value of an `if`/`match`/block expression).
    Assign(BindingId),
    /// A statement: its value is `()`.
    Discard,
}

/// Lowers `body` (already through [`returns::rewrite`](crate::returns::rewrite)), iterating until the set of active
/// `let mut` bindings is stable. Errors go to `cx`. `checkpoint` is how each top-level loop
/// keeps snapshots when the attribute asked for checkpointing (recorded in the IR for
/// generation). `user_names` are the names the user's item spells (`syntax::names_in`):
/// a generated name among them is not trusted to be the desugaring's (see
/// `Lowerer::counters`).
pub fn lower(
    cx: &Ctxt,
    sig: &Signature,
    body: &syn::Block,
    checkpoint: Option<Schedule>,
    calls: &Calls,
    user_names: &HashSet<String>,
) -> Body {
    let mut forced = HashSet::new();
    let mut sites = HashMap::new();
    loop {
        let round = Ctxt::default();
        let mut lowerer = Lowerer::new(&round, sig, &forced, calls, user_names, sites);
        let lowered = lowerer.lower_fn_body(body);
        // the table of declaration sites outlives the round: a site keeps its number
        sites = std::mem::take(&mut lowerer.sites);
        let newly: HashSet<DeclKey> = lowerer.newly_forced.difference(&forced).copied().collect();
        // Activity only grows, and there are finitely many declarations: this ends.
        if newly.is_empty() {
            cx.absorb(round);
            return Body {
                checkpoint,
                ..lowered
            };
        }
        forced.extend(newly);
    }
}

struct Lowerer<'a> {
    cx: &'a Ctxt,
    mode: Mode,
    bindings: Vec<Binding>,
    /// Each binding's declaration key ([`DeclKey`]); `None` for the lowering's own
    /// temporaries, which no assignment can make active.
    keys: Vec<Option<DeclKey>>,
    scopes: Vec<HashMap<String, BindingId>>,
    /// Declarations to treat as active: those an earlier round found assigned (or
    /// written) a differentiable value.
    forced: &'a HashSet<DeclKey>,
    newly_forced: HashSet<DeclKey>,
    /// Every declaration site met so far, in any round, numbered ([`DeclKey::site`]);
    /// handed from round to round by [`lower`].
    sites: HashMap<(String, String), usize>,
    /// How many declarations of each site this round has keyed ([`DeclKey::nth`]).
    site_counts: HashMap<usize, usize>,
    /// Blocks under construction, innermost last.
    blocks: Vec<Block>,
    next_id: usize,
    next_temp: usize,
    /// Locals bound by `let` to a call's result (or a copy of one): the only locals that
    /// may be a struct held whole (a float's is arithmetic, a parameter), so a method
    /// outside the vocabulary called on one is an annotated method's (`s.energy(k)`, its
    /// `self` marked), not the macro's message.
    call_results: HashSet<BindingId>,
    outputs: Vec<Operand>,
    param_count: usize,
    /// Parameters that are variables: `.value()` on them reads the value the fused node
    /// takes as its input (in `vjp` they are that value already).
    variables: Vec<BindingId>,
    tuple_output: bool,
    output_count: usize,
    /// The fields of a struct result a `let` being lowered destructures
    /// ([`STRUCT_PARTS`]), for its [`Stmt::CallParts`].
    struct_fields: Option<Vec<syn::Member>>,
    /// The loops being lowered, innermost last: the targets of `break` and `continue`.
    loops: Vec<LoopCtx>,
    /// When `return` is a jump: the bindings that hold the results.
    returned: Option<Vec<BindingId>>,
    /// The `&mut` array parameters: results too.
    written: Vec<BindingId>,
    /// For the names of the index locals of element reads and writes.
    next_index: usize,
    /// The plain helpers named, and strict mode.
    calls: &'a Calls,
    /// The function's float type parameters: a local typed `Vec<T>` is an array too.
    floats: Vec<Ident>,
    /// Whether reads may count on the desugaring's loop counters (`gradtape_k`): not when
    /// the user's item spells that name itself, since names are compared by their text.
    counters: bool,
    /// The names the user's item spells (`lower`'s `user_names`).
    user_names: &'a HashSet<String>,
    /// The `usize` locals bound to a loop's counter as an iteration starts
    /// (`let rowN: usize = gradtape_k;`, a row view's row index), with that counter: an
    /// element read through one recomputes its index (`Recompute::Element`).
    counter_aliases: HashMap<BindingId, Counter>,
    /// The variables of the user's loops over ranges from an integer literal (`for i in
    /// 1..n`, not `mut`), with their loop's counter: a read or write at `i`, `i + 1` or
    /// `i - 1` recomputes its index.
    loop_counters: HashMap<BindingId, Counter>,
    /// The fixed-size float arrays (`[F; N]`, `[[F; N]; M]`: parameters, locals of a
    /// literal, of `[e; N]` or typed so, and whole copies of these), with whether the
    /// binding holds it behind a reference (`a: &[F; N]`). Only these are copied whole
    /// (`let m = *a;`, `m = next;`): their type fixes their length, so a copy element by
    /// element is the copy Rust makes, whereas a `Vec` assigned whole may change length.
    fixed: HashMap<BindingId, bool>,
}

/// What a [`Stmt::CallWrites`] is asked for of the call's value.
#[derive(Clone, Copy)]
enum Wanted {
    /// Nothing (a statement).
    Nothing,
    /// One float.
    Value,
    /// The parts of a tuple of this many, destructured.
    Parts(usize),
}

/// A call that may write `&mut` float arrays ([`Stmt::CallWrites`]): of an annotated
/// function, or of an annotated method of a constant receiver.
#[derive(Clone, Copy)]
enum Writer<'c> {
    Function(&'c syn::ExprCall),
    Method(&'c syn::ExprMethodCall),
}

impl Writer<'_> {
    /// The arguments as written (a method's receiver not among them).
    fn args(&self) -> &syn::punctuated::Punctuated<Expr, syn::Token![,]> {
        match self {
            Writer::Function(call) => &call.args,
            Writer::Method(call) => &call.args,
        }
    }

    /// The call as an expression.
    fn expr(&self) -> Expr {
        match self {
            Writer::Function(call) => Expr::Call((*call).clone()),
            Writer::Method(call) => Expr::MethodCall((*call).clone()),
        }
    }
}

/// A loop being lowered.
struct LoopCtx {
    /// Its id, which names it as a region.
    id: usize,
    label: Option<syn::Lifetime>,
    /// Where `break value` puts the value (a `loop` used as a value).
    value: Option<BindingId>,
    /// Whether a jump ends one of its iterations early.
    exits: bool,
    /// For a loop of the iterator desugaring (`for gradtape_k in 0..n`, or
    /// `(0..n).rev()`): whether it runs backwards.
    counter: Option<bool>,
}

/// A declaration's key, by which the rounds of [`lower`] tell which declarations an
/// earlier round forced active.
///
/// Invariant: the same declaration has the same key in every round, and two declarations
/// of one round never share a key. Lowering builds new syntax each round (desugarings, and
/// the statements after a split local cloned), so a node's address is no identity: a node
/// built and dropped in one round can have its address taken by another declaration in the
/// next (keyed by address, enumerate's desugared `let k: usize = gradtape_k;` was once made
/// active by a key forced for another local, and `k + 1` taken for a differentiable number;
/// whether it happened changed from build to build). What every rebuilt copy keeps is its
/// name's tokens: a clone keeps its span, and so a declaration is its *site*, the name and
/// where its name token was written (the span's printed form: the source bytes and the
/// macro context, distinct for tokens written in distinct places), numbered once for all
/// rounds, and *nth*, how many declarations of that site this round has keyed before it.
/// `nth` tells apart the declarations that share a site: the lowering's own names (spanned
/// at the attribute), one declaration lowered twice, tokens a `macro_rules!` repetition
/// wrote. The lowering visits the body in the same order in every round, so `nth` is the
/// same each round for a site whose earlier declarations are. (Were spans ever printed
/// alike, every declaration of a name would share a site and `nth` alone would number
/// them: still the same in every round for the same body.)
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct DeclKey {
    site: usize,
    nth: usize,
}

fn is_stop_gradient(call: &syn::ExprCall) -> bool {
    matches!(&*call.func, Expr::Path(path)
        if path.path.segments.last().is_some_and(|s| s.ident == "stop_gradient"))
}

impl<'a> Lowerer<'a> {
    fn new(
        cx: &'a Ctxt,
        sig: &Signature,
        forced: &'a HashSet<DeclKey>,
        calls: &'a Calls,
        user_names: &'a HashSet<String>,
        sites: HashMap<(String, String), usize>,
    ) -> Self {
        let mut lowerer = Lowerer {
            cx,
            calls,
            mode: sig.mode,
            bindings: Vec::new(),
            keys: Vec::new(),
            scopes: vec![HashMap::new()],
            forced,
            newly_forced: HashSet::new(),
            sites,
            site_counts: HashMap::new(),
            blocks: Vec::new(),
            next_id: 0,
            next_temp: 0,
            call_results: HashSet::new(),
            outputs: Vec::new(),
            param_count: sig.params.len(),
            variables: Vec::new(),
            tuple_output: sig.tuple_output,
            output_count: sig.outputs.len(),
            struct_fields: None,
            loops: Vec::new(),
            returned: None,
            written: Vec::new(),
            next_index: 0,
            floats: sig.floats.clone(),
            counters: !user_names.contains("gradtape_k"),
            user_names,
            counter_aliases: HashMap::new(),
            loop_counters: HashMap::new(),
            fixed: HashMap::new(),
        };
        for param in &sig.params {
            let active = param.differentiable(sig.mode);
            let binding = lowerer.bind(&param.ident, active, None);
            if let Kind::Array {
                row, ragged, form, ..
            } = &param.kind
            {
                if matches!(form, ArrayForm::Fixed(_)) {
                    let by_ref = matches!(param.ty, syn::Type::Reference(_));
                    lowerer.fixed.insert(binding, by_ref);
                }
                lowerer.bindings[binding].array = true;
                lowerer.bindings[binding].row = row
                    .as_ref()
                    .map(|row| row.parse().expect("printed from tokens"));
                if *ragged {
                    lowerer.make_ragged(binding);
                }
            }
            if param.is_output_array() && active {
                lowerer.written.push(binding);
            }
            if param.kind == Kind::Variable {
                lowerer.variables.push(binding);
            }
            if param.is_whole() {
                lowerer.bindings[binding].whole = true;
            }
        }
        lowerer
    }

    // ----- bindings and scopes -----

    /// The site of a declaration named `ident` ([`DeclKey`]): its name and where its name
    /// token was written.
    fn site_name(ident: &Ident) -> (String, String) {
        (ident.to_string(), format!("{:?}", ident.span()))
    }

    /// The key of the declaration of `ident` this round meets next: called once per
    /// declaration, as lowering reaches it (each call is the next of its site).
    fn declare(&mut self, ident: &Ident) -> DeclKey {
        let next_site = self.sites.len();
        let site = *self
            .sites
            .entry(Self::site_name(ident))
            .or_insert(next_site);
        let count = self.site_counts.entry(site).or_insert(0);
        let nth = *count;
        *count += 1;
        DeclKey { site, nth }
    }

    /// Whether some declaration at `ident`'s site is forced active (a look ahead at a
    /// declaration not yet reached, so without its `nth`).
    fn site_forced(&self, ident: &Ident) -> bool {
        self.sites
            .get(&Self::site_name(ident))
            .is_some_and(|&site| self.forced.iter().any(|key| key.site == site))
    }

    /// Declares a user name (or a temporary) in the innermost scope.
    fn bind(&mut self, ident: &Ident, active: bool, key: Option<DeclKey>) -> BindingId {
        let id = self.bindings.len();
        // One name per binding, shadowed or not: `x`, then `x_3` for a second `x`.
        let taken = self.bindings.iter().any(|b| b.slot == format!("d_{ident}"));
        let unique = if taken {
            format!("{ident}_{id}")
        } else {
            ident.to_string()
        };
        let active = active || key.is_some_and(|k| self.forced.contains(&k));
        self.bindings.push(Binding {
            name: ident.clone(),
            slot: mixed(&format!("d_{unique}")),
            tangent: mixed(&format!("tan_{unique}")),
            active,
            array: false,
            row: None,
            ragged: false,
            whole: false,
        });
        self.keys.push(key);
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(ident.to_string(), id);
        if let Some(block) = self.blocks.last_mut() {
            block.declared.push(id);
        }
        id
    }

    /// Marks an array binding as a ragged array of rows: `m[i][j]` at index
    /// `i * RAGGED_STRIDE + j` (see [`Binding::ragged`]).
    fn make_ragged(&mut self, binding: BindingId) {
        let generated = crate::generate::paths::generated();
        self.bindings[binding].row = Some(quote!(#generated::RAGGED_STRIDE));
        self.bindings[binding].ragged = true;
    }

    fn lookup(&self, ident: &Ident) -> Option<BindingId> {
        let name = ident.to_string();
        self.scopes.iter().rev().find_map(|s| s.get(&name).copied())
    }

    fn active_binding(&self, expr: &Expr) -> Option<BindingId> {
        let ident = single_ident(expr)?;
        let id = self.lookup(ident)?;
        self.bindings[id].active.then_some(id)
    }

    /// A fresh temporary's name, `t{n}`, never one the user's item spells
    /// (`syntax::fresh_local`): the scopes are keyed by spelling, so a user's local `t0`
    /// and a temporary `t0` would be one name to `lookup` (regression: locals named `t0`,
    /// `t1`, `t2` got a silently wrong gradient, `tests/differentiable_everyday.rs`,
    /// `locals_spelled_like_temporaries`).
    fn temp_name(&mut self) -> Ident {
        let name = crate::syntax::fresh_local(format!("t{}", self.next_temp));
        self.next_temp += 1;
        name
    }

    fn temp(&mut self) -> BindingId {
        let name = self.temp_name();
        self.bind(&name, true, None)
    }

    fn fresh_id(&mut self) -> usize {
        self.next_id += 1;
        self.next_id - 1
    }

    fn push(&mut self, stmt: Stmt) {
        self.blocks.last_mut().expect("a block").stmts.push(stmt);
    }

    fn enter_block(&mut self) {
        let depth = self.blocks.last().map_or(0, |b| b.depth + 1);
        self.blocks.push(Block {
            stmts: Vec::new(),
            depth,
            declared: Vec::new(),
        });
        self.scopes.push(HashMap::new());
    }

    fn exit_block(&mut self) -> Block {
        self.scopes.pop();
        self.blocks.pop().expect("a block")
    }

    /// Whether `node` reads an active binding (outside `stop_gradient(..)`).
    fn mentions_active(&self, expr: &Expr) -> bool {
        let mut finder = ActiveFinder {
            lowerer: self,
            found: false,
            shadowed: crate::syntax::Scopes::default(),
        };
        finder.visit_expr(expr);
        finder.found
    }

    // ----- function body -----

    fn lower_fn_body(&mut self, body: &syn::Block) -> Body {
        // A `return` left after `returns::rewrite` (in a loop, in an expression) is a jump
        // out of the body: the body then runs at depth 1, saving everything on stacks, since
        // a jump may skip any of its statements.
        let jumps_out = body.stmts.iter().any(crate::returns::contains_return);
        self.blocks.push(Block {
            stmts: Vec::new(),
            depth: usize::from(jumps_out),
            declared: Vec::new(),
        });
        if jumps_out {
            let results: Vec<BindingId> = (0..self.output_count).map(|_| self.temp()).collect();
            self.outputs = results
                .iter()
                .map(|&binding| {
                    let name = &self.bindings[binding].name;
                    Operand::Active {
                        binding,
                        fwd: syn::parse_quote!(#name),
                    }
                })
                .collect();
            self.returned = Some(results);
        }
        // A function that only writes `&mut` arrays has no result to compute.
        let tail = if self.output_count == 0 {
            Tail::Discard
        } else {
            Tail::Output
        };
        self.lower_stmts(&body.stmts, tail);
        let block = self.blocks.pop().expect("the body");
        Body {
            params: (0..self.param_count)
                .map(|id| self.bindings[id].active.then_some(id))
                .collect(),
            bindings: std::mem::take(&mut self.bindings),
            block,
            outputs: std::mem::take(&mut self.outputs),
            returned: self.returned.take(),
            written: std::mem::take(&mut self.written),
            checkpoint: None,
            boxed: false,
            item_names: None,
        }
    }

    fn lower_stmts(&mut self, stmts: &[syn::Stmt], tail: Tail) {
        let last = stmts.len().saturating_sub(1);
        let mut had_tail = false;
        for (i, stmt) in stmts.iter().enumerate() {
            if let syn::Stmt::Local(local) = stmt
                && let Some(init) = &local.init
                && let Some((_, diverge)) = &init.diverge
            {
                // `let P = e else { D }; rest` is `match e { P => { rest } _ => D }`.
                let (pat, expr) = (&local.pat, &init.expr);
                let rest = syn::Block {
                    brace_token: Default::default(),
                    stmts: stmts[i + 1..].to_vec(),
                };
                let matched: Expr = syn::parse_quote!(match #expr { #pat => #rest _ => #diverge });
                let has_tail = matches!(stmts.last(), Some(syn::Stmt::Expr(_, None))) && i != last;
                if has_tail || !matches!(tail, Tail::Discard) {
                    self.lower_tail(&matched, tail);
                } else {
                    self.lower_control(&matched, Tail::Discard);
                }
                return;
            }
            // (a tuple literal of constants too: `let mut w = (1.0, 0.0);` that a tuple of
            // differentiable values is assigned to later, `w = (w.0 * a, w.1 * b);`)
            if let syn::Stmt::Local(local) = stmt
                && let Some(init) = &local.init
                && (self.mentions_active(&init.expr)
                    || matches!(strip_parens(&init.expr), Expr::Tuple(_)))
                && let Some(split) =
                    split_tuple_local(local, &stmts[i + 1..], self.mode == Mode::Scalar)
            {
                self.lower_stmts(&split, tail);
                return;
            }
            match stmt {
                syn::Stmt::Expr(expr, None) if i == last => {
                    had_tail = true;
                    self.lower_tail(expr, tail);
                }
                _ => self.lower_stmt(stmt),
            }
        }
        if !had_tail && !stmts.last().is_some_and(diverges) {
            match tail {
                Tail::Output => validate::missing_tail(self.cx, stmts, true),
                Tail::Assign(_) => validate::missing_tail(self.cx, stmts, false),
                Tail::Discard => {}
            }
        }
    }

    fn lower_tail(&mut self, expr: &Expr, tail: Tail) {
        if is_jump(expr) {
            self.lower_jump(strip_parens(expr));
            return;
        }
        match tail {
            Tail::Output if self.returned.is_some() => {
                let results = self.returned.clone().expect("checked");
                self.lower_results(expr, &results);
            }
            Tail::Output => {
                let stripped = strip_parens(expr);
                match stripped {
                    Expr::Tuple(tuple) if self.tuple_output => {
                        if tuple.elems.len() != self.output_count {
                            validate::tuple_length(self.cx, tuple);
                        }
                        for elem in &tuple.elems {
                            let operand = self.lower_operand(elem);
                            self.outputs.push(operand);
                        }
                    }
                    _ if self.tuple_output => validate::tuple_tail(self.cx, expr),
                    _ => {
                        let operand = self.lower_operand(expr);
                        self.outputs.push(operand);
                    }
                }
            }
            Tail::Assign(binding) => {
                self.lower_into(expr, Target::Assign { binding });
            }
            Tail::Discard => self.lower_expr_stmt(expr, None),
        }
    }

    // ----- statements -----

    fn lower_stmt(&mut self, stmt: &syn::Stmt) {
        match stmt {
            syn::Stmt::Local(local) => self.lower_local(local),
            syn::Stmt::Item(item) => self.push(Stmt::Plain(item.to_token_stream())),
            syn::Stmt::Macro(mac) => {
                validate::macro_call(self.cx, &mac.mac);
                self.push(Stmt::Plain(mac.to_token_stream()));
            }
            syn::Stmt::Expr(expr, semi) => self.lower_expr_stmt(expr, *semi),
        }
    }

    fn lower_local(&mut self, local: &syn::Local) {
        // a struct result split into its fields (`split_tuple_local`): the fields go to the
        // call's `CallParts`, and no further (taken there, or dropped here)
        // `let State { x: a, v: b } = step(..);`: the struct result's fields, the call's
        // parts, bound as a tuple of them would be
        if self.mode == Mode::Scalar
            && let Some(split) = struct_pattern_local(local)
        {
            self.lower_local(&split);
            return;
        }
        // `let c = cross(a, b);` indexed later (`array_calls`): a local array the callee's
        // writer writes, when the call reads a differentiable value; else as written
        if let Some(index) = local
            .attrs
            .iter()
            .position(|attr| attr.path().is_ident(crate::array_calls::MARK))
        {
            let rows = crate::array_calls::marked_rows(local);
            let mut local = local.clone();
            local.attrs.remove(index);
            // `let c = ..;`, or typed, `let c: [f64; 3] = ..;` (the local keeps its type)
            let (pat, ty) = match &local.pat {
                Pat::Type(typed) => (&*typed.pat, Some(&typed.ty)),
                pat => (pat, None),
            };
            if self.mode == Mode::Scalar
                && let (Pat::Ident(pat), Some(init)) = (pat, &local.init)
                && let Some(write) = self.array_result_writer(&init.expr, &pat.ident)
            {
                let ident = &pat.ident;
                let generated = crate::generate::paths::generated();
                let ty = ty.map(|ty| quote!(: #ty));
                // an array of rows' (`[[F; C]; R]`): `C` read off the local (`local_row`)
                let zeros = if rows {
                    format_ident!("array_of_zero_rows")
                } else {
                    format_ident!("array_of_zeros")
                };
                // spanned at the call: a result of another shape than the code after it
                // reads (`[[F; C]; R]` never read by rows) is rustc's mismatch there
                let span = syn::spanned::Spanned::span(&init.expr);
                let zeros = quote::quote_spanned!(span=> #generated::#zeros());
                let zeros: syn::Stmt = syn::parse_quote!(let mut #ident #ty = #zeros;);
                self.lower_stmts(&[zeros, write], Tail::Discard);
                return;
            }
            self.lower_local(&local);
            return;
        }
        // `let (value, variant) = root(a, b);` of an option local initialised by a call
        // (`options`): the callee's `Option` result's parts through its companion,
        // `root::__gradtape_option(a, b)`, when the call reads a differentiable value; else
        // the option of constants as written, in parts (`generated::option_parts`)
        if let Some(index) = local
            .attrs
            .iter()
            .position(|attr| attr.path().is_ident(crate::options::CALL_MARK))
        {
            let mut local = local.clone();
            local.attrs.remove(index);
            if let Some(init) = &mut local.init
                && let Expr::Call(call) = &*init.expr
            {
                let active = self.mode == Mode::Scalar && self.mentions_active(&init.expr);
                let mut call = call.clone();
                match &mut *call.func {
                    Expr::Path(func) if active => {
                        let span = func.path.segments.last().expect("a path").ident.span();
                        func.path
                            .segments
                            .push(Ident::new(crate::option_results::HIDDEN, span).into());
                    }
                    _ => {
                        let generated = crate::generate::paths::generated();
                        call = syn::parse_quote!(#generated::option_parts(#call));
                    }
                }
                *init.expr = Expr::Call(call);
            }
            self.lower_local(&local);
            return;
        }
        if let Some(fields) = struct_parts_mark(local) {
            let mut local = local.clone();
            local
                .attrs
                .retain(|attr| !attr.path().is_ident(STRUCT_PARTS));
            self.struct_fields = Some(fields);
            self.lower_local(&local);
            if self.struct_fields.take().is_some() {
                validate::struct_result_not_a_call(self.cx, &local);
            }
            return;
        }
        let (ident, mutable, ty) = match &local.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                (Some(&pat.ident), pat.mutability.is_some(), None)
            }
            Pat::Type(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => (
                    Some(&pat.ident),
                    pat.mutability.is_some(),
                    Some((*typed.ty).clone()),
                ),
                _ => (None, false, None),
            },
            _ => (None, false, None),
        };
        // (an `if`/`match` whose every branch ends in a constant is a constant, however
        // active its conditions: `let kind = if x > 0.0 { 1 } else { 2 };`)
        let init_active = local.init.as_ref().is_some_and(|init| {
            self.mentions_active(&init.expr)
                && !literal_branches(&init.expr, &|e| !self.mentions_active(e))
        });
        // `let [a, b, c] = q;` of an array by name, or `*q` of a reference to one: one
        // `let` per element, `let a = q[0];` (indexing reads through the reference)
        // `let [[a, b], [c, d]] = m;` of an array of rows by name: `let a = m[0][0];` ..
        if let Pat::Slice(slice) = &local.pat
            && let Some(init) = &local.init
            && init.diverge.is_none()
            && let Some((array, _)) = crate::syntax::name_or_deref(&init.expr)
            && self.mode == Mode::Scalar
            && self.lookup(array).is_some_and(|binding| {
                let binding = &self.bindings[binding];
                binding.array && binding.row.is_some() && !binding.ragged
            })
            && slice.elems.iter().all(|row| {
                matches!(strip_pat_type(row), Pat::Slice(row) if row.elems.iter().all(is_leaf_pattern))
            })
        {
            for (i, row) in slice.elems.iter().enumerate() {
                let Pat::Slice(row) = strip_pat_type(row) else {
                    unreachable!("checked: every row a slice pattern")
                };
                let i = syn::Index::from(i);
                for (j, pat) in row.elems.iter().enumerate() {
                    let j = syn::Index::from(j);
                    let element: syn::Stmt = syn::parse_quote!(let #pat = #array[#i][#j];);
                    if let syn::Stmt::Local(element) = element {
                        self.lower_local(&element);
                    }
                }
            }
            return;
        }
        if let Pat::Slice(slice) = &local.pat
            && let Some(init) = &local.init
            && init.diverge.is_none()
            && let Some((array, _)) = crate::syntax::name_or_deref(&init.expr)
            && slice.elems.iter().all(is_leaf_pattern)
        {
            // (a name the pattern binds may be the array's, `let [q, r] = q;`)
            let values = (0..slice.elems.len())
                .map(|k| {
                    let index = syn::Index::from(k);
                    syn::parse_quote!(#array[#index])
                })
                .collect();
            self.lower_bound_in_turn(&slice.elems, None, values);
            return;
        }
        // `let [x, v] = m[i];` of a row of a local or parameter array of rows: the index
        // once, then each element into a fresh local, then one `let` per name
        if let Pat::Slice(slice) = &local.pat
            && let Some(init) = &local.init
            && init.diverge.is_none()
            && let Expr::Index(row) = strip_parens(&init.expr)
            && let Some(array) = single_ident(strip_parens(&row.expr))
            && !matches!(strip_parens(&row.index), Expr::Range(_))
            && self.mode == Mode::Scalar
            && self.lookup(array).is_some_and(|binding| {
                let binding = &self.bindings[binding];
                binding.array && binding.row.is_some() && !binding.ragged
            })
            && slice.elems.iter().all(is_leaf_pattern)
        {
            let at = self.temp_name();
            let index = &row.index;
            let values = (0..slice.elems.len())
                .map(|j| {
                    let j = syn::Index::from(j);
                    syn::parse_quote!(#array[#at][#j])
                })
                .collect();
            let at_row = syn::parse_quote!(let #at: usize = #index;);
            self.lower_bound_in_turn(&slice.elems, Some(at_row), values);
            return;
        }
        // `let [a, b] = [e, f];` of an array literal: each value into a fresh local first,
        // in order (a value may read a name the pattern binds again), then one `let` per
        // name, as the tuple form `let (a, b) = (e, f);` is
        if let Pat::Slice(slice) = &local.pat
            && let Some(init) = &local.init
            && init.diverge.is_none()
            && let Expr::Array(values) = strip_parens(&init.expr)
            && values.elems.len() == slice.elems.len()
            && slice.elems.iter().all(is_leaf_pattern)
        {
            let values = values.elems.iter().cloned().collect();
            self.lower_bound_in_turn(&slice.elems, None, values);
            return;
        }
        let Some(ident) = ident else {
            // a tuple of constants into `mut` names (`let (mut x, mut y) = (0.0, 0.0);`) is
            // bound name by name too, so that a later assignment of a differentiable value
            // can make a name active (regression: "not a `let mut` local")
            if let Some(init) = &local.init
                && init.diverge.is_none()
                && (init_active || mutable_names_from_tuple(&local.pat, &init.expr))
                && is_tuple_pattern(&local.pat)
            {
                self.lower_destructure(&local.pat, &init.expr);
                return;
            }
            if init_active {
                validate::destructured(self.cx, &local.pat, self.mode);
            }
            self.check_inactive_local(local);
            self.bind_pattern(&local.pat);
            self.push(Stmt::Plain(local.to_token_stream()));
            return;
        };
        let key = self.declare(ident);
        if let Some(init) = &local.init
            && init.diverge.is_none()
            && self.mode == Mode::Scalar
            && self.lower_row_copy(ident, key, &init.expr)
        {
            return;
        }
        if let Some(init) = &local.init
            && init.diverge.is_none()
            && self.mode == Mode::Scalar
            && self.lower_array_copy(ident, key, &init.expr)
        {
            return;
        }
        let forced = self.forced.contains(&key);
        let array = is_array_local(local, &self.floats);
        let bound = self.bindings.len();
        // `let rowN: usize = gradtape_k;`, immutable: the local is the loop's counter for
        // the whole iteration (a name the user's item does not spell is the desugaring's)
        let alias = local
            .init
            .as_ref()
            .filter(|init| init.diverge.is_none())
            .filter(|_| !mutable && !self.user_names.contains(&ident.to_string()))
            .filter(|_| ty.as_ref().is_some_and(is_usize))
            .and_then(|init| self.counter_of(&init.expr));
        self.lower_local_as(local, ident, mutable, ty, key, forced, init_active);
        // `let mut m = *a;` of a differentiable array is reported (`whole_array`); the new
        // name is still an array of the same shape, so its later reads (`m[i][j]`) get no
        // follow-on errors
        if let Some(init) = &local.init
            && let Some(source) = self.copied_array(&init.expr)
            && let Some(copy) = self.lookup(ident)
            && self.bindings.len() > bound
            && !self.bindings[copy].array
        {
            let (row, ragged) = (
                copied_row(self.bindings[source].row.clone(), ident),
                self.bindings[source].ragged,
            );
            let binding = &mut self.bindings[copy];
            (binding.array, binding.row, binding.ragged, binding.active) =
                (true, row, ragged, true);
        }
        // `let mut m = table;` of a constant fixed-size array (`lower_array_copy` took the
        // active ones): a plain local, but an array of that shape, so that an element
        // write of a differentiable value (`m[1] = x;`) makes it active and the next round
        // copies it element by element
        if let Some(init) = &local.init
            && init.diverge.is_none()
            && self.mode == Mode::Scalar
            && let Some(source) = self.fixed_source(&init.expr)
            && let Some(copy) = self.lookup(ident)
            && copy >= bound
            && copy != source
            && !self.bindings[copy].array
            && !self.bindings[source].ragged
        {
            let row = copied_row(self.bindings[source].row.clone(), ident);
            self.bindings[copy].array = true;
            self.bindings[copy].row = row;
            self.fixed.insert(copy, false);
        }
        if let Some(counter) = alias
            && let Some(binding) = self.lookup(ident)
        {
            self.counter_aliases.insert(binding, counter);
        }
        // The binding the `let` made (by its name: temporaries come before it, and a fill's
        // loops after it).
        if array
            && let Some(made) = self.lookup(ident)
            && made >= bound
        {
            self.bindings[made].array = true;
            // (a literal of rows set its row length already)
            if let Some(row) = local_row(local, &self.floats) {
                self.bindings[made].row = Some(row);
            } else if is_ragged_local(local, &self.floats) && !self.bindings[made].ragged {
                self.make_ragged(made);
            }
        }
        // (after the flag above: the binding is an array by now)
        if array
            && is_fixed_local(local, &self.floats)
            && let Some(binding) = self.lookup(ident)
            && binding >= bound
            && self.bindings[binding].array
        {
            self.fixed.insert(binding, false);
        }
    }

    /// `pats` bound to `values` in turn: `before` (an index taken once), each value into a
    /// fresh local, in order, then one `let` per pattern from its local, so that a name a
    /// pattern binds again never changes what a later value reads (`let [q, r] = q;`,
    /// `let [a, b] = [b, a];`).
    fn lower_bound_in_turn(
        &mut self,
        pats: &syn::punctuated::Punctuated<Pat, syn::Token![,]>,
        before: Option<syn::Stmt>,
        values: Vec<Expr>,
    ) {
        let temps: Vec<Ident> = values.iter().map(|_| self.temp_name()).collect();
        let lets = before
            .into_iter()
            .chain(
                temps
                    .iter()
                    .zip(&values)
                    .map(|(temp, value)| -> syn::Stmt { syn::parse_quote!(let #temp = #value;) }),
            )
            .chain(
                pats.iter()
                    .zip(&temps)
                    .map(|(pat, temp)| -> syn::Stmt { syn::parse_quote!(let #pat = #temp;) }),
            )
            .collect::<Vec<_>>();
        for element in lets {
            if let syn::Stmt::Local(element) = element {
                self.lower_local(&element);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_local_as(
        &mut self,
        local: &syn::Local,
        ident: &Ident,
        mutable: bool,
        ty: Option<syn::Type>,
        key: DeclKey,
        forced: bool,
        init_active: bool,
    ) {
        match &local.init {
            None => {
                let binding = self.bind(ident, forced, Some(key));
                if forced {
                    self.push(Stmt::Declare { binding, mutable });
                } else {
                    self.push(Stmt::Plain(local.to_token_stream()));
                }
            }
            Some(init) if init_active || forced => {
                if let Some((_, diverge)) = &init.diverge {
                    validate::let_else(self.cx, diverge);
                }
                let expr = strip_parens(&init.expr);
                if let Some(elems) = array_elements(expr)
                    && self.mode == Mode::Scalar
                    && is_array_local(local, &self.floats)
                {
                    self.lower_array_literal(ident, mutable, Some(key), expr, &elems);
                    return;
                }
                if let Some((row, count)) = array_repeat(expr)
                    && self.mode == Mode::Scalar
                    && is_array_local(local, &self.floats)
                    && self.mentions_active(&row)
                    && let Some(row) = RowFill::of(strip_parens(&row))
                {
                    self.lower_rows_fill(ident, key, expr, row, &count);
                    return;
                }
                if let Some((value, len)) = array_repeat(expr)
                    && self.mode == Mode::Scalar
                    && is_array_local(local, &self.floats)
                    && local_row(local, &self.floats).is_none()
                    && !is_ragged_local(local, &self.floats)
                    && self.mentions_active(&value)
                {
                    self.lower_array_fill(ident, key, expr, &value, &len);
                    return;
                }
                if matches!(
                    expr,
                    Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_)
                ) {
                    // The branches compute into a temporary: the name exists only after
                    // the `let`, so `let x = if .. { x.sin() } ..` reads the outer `x`.
                    let temp = self.temp();
                    self.push(Stmt::Declare {
                        binding: temp,
                        mutable: false,
                    });
                    let start = self.blocks.last().expect("a block").stmts.len();
                    self.lower_control(expr, Tail::Assign(temp));
                    let branches = &self.blocks.last().expect("a block").stmts[start..];
                    // `let n = { let mut c = 0; for v in x { if *v > 0.0 { c += 1; } } c };`:
                    // the code reads differentiable values, but every value it gives the
                    // temporary is a constant (an integer counted on tests of values), so
                    // the local is a constant, as written; its derivative is zero wherever
                    // it has one. Decided on what lowering assigned, not on the syntax: a
                    // name the block binds is as active as lowering found it.
                    if !forced && Self::assigns_constants_only(branches, temp) {
                        self.bindings[temp].active = false;
                        let name = self.bindings[temp].name.clone();
                        let mut local = local.clone();
                        if let Some(init) = &mut local.init {
                            *init.expr = syn::parse_quote!(#name);
                        }
                        self.bind(ident, false, Some(key));
                        self.push(Stmt::Plain(local.to_token_stream()));
                        return;
                    }
                    // `let s = if c { f(..) } else { g(..) };`: a call's result on every
                    // path, held whole as one bound by `let s = f(..);` is
                    let call_result = self.assigns_call_results_only(branches, temp);
                    let name = &self.bindings[temp].name;
                    let value = Operand::Active {
                        binding: temp,
                        fwd: syn::parse_quote!(#name),
                    };
                    let binding = self.bind(ident, true, Some(key));
                    if call_result {
                        self.call_results.insert(binding);
                    }
                    let target = Target::Let {
                        binding,
                        mutable,
                        ty,
                    };
                    let id = self.fresh_id();
                    let op = Op::Copy {
                        value,
                        clone: false,
                    };
                    self.push(Stmt::Def { id, target, op });
                    return;
                }
                // The value is lowered before the name exists: `let x = x.sin();` reads
                // the outer `x`.
                let is_condition = match strip_parens(&init.expr) {
                    Expr::Binary(binary) => is_read(&binary.op),
                    Expr::Unary(unary) => matches!(unary.op, UnOp::Not(_)),
                    _ => false,
                };
                if !forced && is_condition {
                    // It reads differentiable values but is a constant (`let over = y >
                    // limit;`): a plain local, as written.
                    self.check_inactive_local(local);
                    self.bind(ident, false, Some(key));
                    self.push(Stmt::Plain(local.to_token_stream()));
                    return;
                }
                let op = self.build(&init.expr);
                let binding = self.bind(ident, true, Some(key));
                let call_result = self.is_call_result(&op);
                if call_result {
                    self.call_results.insert(binding);
                }
                let target = Target::Let {
                    binding,
                    mutable,
                    ty,
                };
                let id = self.fresh_id();
                self.push(Stmt::Def { id, target, op });
            }
            Some(init) if escapes(&init.expr) => {
                // A constant computed by code that may jump (`match o { Some(v) => v, None
                // => continue }`): the jump must be lowered, the value stays a constant.
                let temp = self.temp_name();
                let temp = self.bind(&temp, false, None);
                self.push(Stmt::Declare {
                    binding: temp,
                    mutable: false,
                });
                let expr = strip_parens(&init.expr);
                if matches!(
                    expr,
                    Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_)
                ) {
                    self.lower_control(expr, Tail::Assign(temp));
                } else {
                    self.reject(expr);
                }
                let name = self.bindings[temp].name.clone();
                let mut local = local.clone();
                if let Some(init) = &mut local.init {
                    *init.expr = syn::parse_quote!(#name);
                }
                self.bind(ident, false, Some(key));
                self.push(Stmt::Plain(local.to_token_stream()));
            }
            Some(_) => {
                self.check_inactive_local(local);
                self.bind(ident, false, Some(key));
                self.push(Stmt::Plain(local.to_token_stream()));
            }
        }
    }

    /// Whether `op` gives a call's result (`f(..)`, `s.step(..)`, but not a field read
    /// `s.x`), or a copy of a local bound to one: what a local it binds holds may be a
    /// struct held whole (`call_results`), whose annotated methods it may call.
    fn is_call_result(&self, op: &Op) -> bool {
        match op {
            Op::Call { func, .. } => !matches!(func, Callee::Field(_)),
            Op::Copy { value, .. } => value
                .binding()
                .is_some_and(|b| self.call_results.contains(&b)),
            _ => false,
        }
    }

    /// Whether `stmts` (the branches, arms or loop a `let` computes its value in) assign
    /// `binding` at least once, and every time a call's result ([`Self::is_call_result`]).
    /// Any other statement that could set it (a writing call's result) counts as another
    /// value, so the answer errs towards `false`: a method on the local is then the
    /// macro's "unknown method" error, never a call on a float.
    fn assigns_call_results_only(&self, stmts: &[Stmt], binding: BindingId) -> bool {
        assigns_only(stmts, binding, &|op| self.is_call_result(op))
    }

    /// Whether `stmts` (the branches, arms, block or loop a `let` computes its value in)
    /// assign `binding` at least once, and every time a value that reads no
    /// differentiable binding. A call writing it, a swap or a call's parts count as
    /// differentiable values: the answer errs towards `false`, which keeps the local
    /// differentiable (rustc's or the macro's error for an integer, never a lost
    /// derivative).
    fn assigns_constants_only(stmts: &[Stmt], binding: BindingId) -> bool {
        assigns_only(stmts, binding, &|op| {
            crate::analyse::saves::operands(op).is_empty()
        })
    }

    // ----- tuples -----

    /// `let (a, b) = value;`: every part evaluated first, into temporaries (the new names
    /// must not change what the other parts read: `let (x, v) = (x + v, v - x);`), then
    /// bound.
    fn lower_destructure(&mut self, pat: &Pat, expr: &Expr) {
        // `let (_, m, _) = v.select_nth_unstable_by(k, ..);`: the sort is differentiated
        // as a statement only (`iterators`), its references into the array are not
        // followed; the message says so, at the method
        if let Expr::MethodCall(call) = strip_parens(expr)
            && matches!(
                call.method.to_string().as_str(),
                "select_nth_unstable_by" | "select_nth_unstable_by_key"
            )
        {
            validate::unknown_method(self.cx, &call.method, self.mode);
            return;
        }
        if let Some(tree) = self.evaluate(pat, expr) {
            self.bind_tree(pat, None, tree);
        }
    }

    /// `expr` evaluated into the shape of `pat`.
    fn evaluate(&mut self, pat: &Pat, expr: &Expr) -> Option<Tree> {
        let pat = strip_pat_type(pat);
        let Pat::Tuple(tuple_pat) = pat else {
            return Some(Tree::Leaf(self.snapshot(expr)));
        };
        let has_rest = tuple_pat.elems.iter().any(|p| matches!(p, Pat::Rest(_)));
        match strip_parens(expr) {
            Expr::Tuple(tuple) if !has_rest && tuple.elems.len() == tuple_pat.elems.len() => {
                let parts = tuple_pat.elems.iter().zip(&tuple.elems);
                let parts = parts.map(|(p, e)| self.evaluate(p, e));
                Some(Tree::Node(parts.collect::<Option<Vec<_>>>()?))
            }
            Expr::Call(call)
                if !has_rest
                    && matches!(&*call.func, Expr::Path(_))
                    && !is_stop_gradient(call)
                    && tuple_pat.elems.iter().all(is_leaf_pattern) =>
            {
                Some(Tree::Node(self.call_parts(call, tuple_pat.elems.len())))
            }
            Expr::MethodCall(call)
                if !has_rest
                    && call.method == "sin_cos"
                    && call.args.is_empty()
                    && tuple_pat.elems.len() == 2
                    && self.mode == Mode::Scalar
                    && self.mentions_active(&call.receiver) =>
            {
                // `x.sin_cos()` is `(x.sin(), x.cos())`, as std computes it: one op each,
                // on the receiver evaluated once
                let x = self.snapshot(&call.receiver);
                let parts = ["sin", "cos"].map(|name| {
                    let rule = vocabulary::elementwise(name).expect("a row of the vocabulary");
                    let op = Op::Unary {
                        method: syn::Ident::new(name, call.method.span()),
                        saves: rule.saves,
                        x: x.clone(),
                        args: Vec::new(),
                    };
                    Tree::Leaf(self.emit_temp(op))
                });
                Some(Tree::Node(parts.into()))
            }
            // `let (a, b) = layer.apply(&x, &mut out);` or `layer.stats(x)`: a method's
            // tuple, as a function's (`call_parts`)
            Expr::MethodCall(call)
                if !has_rest
                    && tuple_pat.elems.iter().all(is_leaf_pattern)
                    && self.is_method_with_parts(call) =>
            {
                Some(Tree::Node(self.method_parts(call, tuple_pat.elems.len())))
            }
            _ => {
                validate::destructured(self.cx, pat, self.mode);
                None
            }
        }
    }

    /// The parts of a call with a tuple result: in scalar mode one call of its `vjp`
    /// ([`Stmt::CallParts`]), in tensor mode one run of the call on a tape of its own
    /// (`generated::trace_parts`, a plain `let`), each part a trace taking its result
    /// from that run (a body with effects or random draws runs once, as written).
    fn call_parts(&mut self, call: &syn::ExprCall, arity: usize) -> Vec<Tree> {
        let Expr::Path(func) = &*call.func else {
            unreachable!("checked by the caller")
        };
        match self.mode {
            Mode::Tensor => {
                // the call run once on a tape of its own (a plain `let` of the run), each
                // part then a trace of its own taking its result from the run
                let Op::Trace { expr, inputs } = self.build_trace(&Expr::Call(call.clone())) else {
                    unreachable!("a trace")
                };
                let run = crate::syntax::mixed(&format!("traced_parts{}", self.fresh_id()));
                let generated = crate::generate::paths::generated();
                let owned = inputs
                    .iter()
                    .map(|(_, fwd)| quote!(#generated::own(&(#fwd))));
                self.push(Stmt::Plain(quote! {
                    let #run = #generated::trace_parts((#(#owned,)*), || #expr);
                }));
                (0..arity)
                    .map(|k| {
                        let index = syn::Index::from(k);
                        let expr = syn::parse_quote!(#run.part(|parts| &parts.#index));
                        let inputs = inputs.clone();
                        Tree::Leaf(self.emit_temp(Op::Trace { expr, inputs }))
                    })
                    .collect()
            }
            Mode::Scalar if self.calls_a_value(&func.path) => {
                validate::call_of_a_value(self.cx, &func.path, false);
                (0..arity)
                    .map(|_| {
                        Tree::Leaf(Operand::Inactive(syn::parse_quote!(::core::unreachable!())))
                    })
                    .collect()
            }
            Mode::Scalar if self.writes_arrays(call) || self.function_passes_on_lendable(call) => {
                self.writing_call_parts(Writer::Function(call), arity)
            }
            Mode::Scalar => {
                let callee = self.callee(&func.path);
                let (callee, args) = self.lower_gathered_args(callee, &call.args);
                if let Callee::Plain(_) = callee
                    && self.check_plain_arguments(&func.path, &args).is_none()
                {
                    validate::plain_helper_on_constants(self.cx, &func.path);
                }
                let fields = self.struct_fields.take();
                if fields.is_some()
                    && !matches!(
                        &callee,
                        Callee::Function(_) | Callee::Gathered(..) | Callee::Associated(_)
                    )
                {
                    validate::struct_result_of_a_plain_helper(self.cx, &func.path);
                }
                let parts: Vec<BindingId> = (0..arity).map(|_| self.temp()).collect();
                let id = self.fresh_id();
                self.push(Stmt::CallParts {
                    id,
                    func: callee,
                    args,
                    parts: parts.clone(),
                    fields,
                });
                self.part_leaves(&parts)
            }
        }
    }

    /// Whether a destructured method call is another annotated method's (scalar mode): a
    /// constant receiver, and arrays it writes or differentiable arguments, as
    /// `build_method` takes a method's call; or a differentiable struct's receiver
    /// ([`Self::struct_receiver`]).
    fn is_method_with_parts(&self, call: &syn::ExprMethodCall) -> bool {
        self.mode == Mode::Scalar
            && (self.method_writes_arrays(call)
                || self.method_passes_on_lendable(call)
                || self.struct_receiver(call).is_some()
                || self.active_struct_literal(&call.receiver).is_some()
                || (!self.mentions_active(&call.receiver)
                    && call.args.iter().any(|arg| self.mentions_active(arg))
                    && !vocabulary::stores_argument(&call.method.to_string())))
    }

    /// The binding of a method call's receiver that is a differentiable struct, whose
    /// `self` the (annotated) method marks: a struct parameter passed on whole
    /// (`m.hidden.forward(x)`, `s.advance(dt)` of a marked `s`) or a struct result held
    /// whole (`let s = kick(..); s.advance(dt)`), as `build_method` takes them.
    fn struct_receiver(&self, call: &syn::ExprMethodCall) -> Option<BindingId> {
        if self.mode != Mode::Scalar {
            return None;
        }
        self.whole_struct_arg(&call.receiver).or_else(|| {
            self.held_whole(&call.receiver)
                .filter(|receiver| self.call_results.contains(receiver))
        })
    }

    /// The parts of a method's tuple result (`is_method_with_parts`): one call of its
    /// `vjp` on the same receiver, [`Stmt::CallWrites`] if it writes arrays, else
    /// [`Stmt::CallParts`] (its receiver a differentiable operand if it is a struct's,
    /// [`Self::method_on_whole`]).
    fn method_parts(&mut self, call: &syn::ExprMethodCall, arity: usize) -> Vec<Tree> {
        if self.method_writes_arrays(call) || self.method_passes_on_lendable(call) {
            return self.writing_call_parts(Writer::Method(call), arity);
        }
        let (func, args) = match self.struct_receiver(call) {
            Some(receiver) => match self.method_on_whole(receiver, call) {
                Op::Call { func, args } => (func, args),
                _ => unreachable!("a method's call"),
            },
            None => self
                .method_of_a_literal(call)
                .unwrap_or_else(|| self.method_callee_args(call)),
        };
        let parts: Vec<BindingId> = (0..arity).map(|_| self.temp()).collect();
        let id = self.fresh_id();
        // a struct result read by its fields (`split_tuple_local`)
        let fields = self.struct_fields.take();
        self.push(Stmt::CallParts {
            id,
            func,
            args,
            parts: parts.clone(),
            fields,
        });
        self.part_leaves(&parts)
    }

    /// The leaves of a call's tuple result: each part's temporary, active.
    fn part_leaves(&self, parts: &[BindingId]) -> Vec<Tree> {
        parts
            .iter()
            .map(|&binding| {
                let name = &self.bindings[binding].name;
                Tree::Leaf(Operand::Active {
                    binding,
                    fwd: syn::parse_quote!(#name),
                })
            })
            .collect()
    }

    /// The parts of a call writing `&mut` arrays whose tuple result is destructured
    /// (`let (a, b) = f(&x, &mut out);`, or a method's, `layer.apply(&x, &mut out)`): one
    /// [`Stmt::CallWrites`] with a temporary per part. When nothing it reads or writes is
    /// active (or the round is lowered again), the call as written, once, into a temporary
    /// whose fields are the parts.
    fn writing_call_parts(&mut self, call: Writer, arity: usize) -> Vec<Tree> {
        let whole = call.expr();
        let pushed = self.writing_call(call, Wanted::Parts(arity));
        if let Some(CallResult::Parts(parts)) = self.pushed_call_result(pushed) {
            return self.part_leaves(parts);
        }
        let name = self.temp_name();
        if !pushed {
            self.check_inactive(&whole);
        }
        self.push(Stmt::Plain(quote!(let #name = #whole;)));
        self.bind(&name, false, None);
        (0..arity)
            .map(|k| {
                let index = syn::Index::from(k);
                Tree::Leaf(Operand::Inactive(syn::parse_quote!(#name.#index)))
            })
            .collect()
    }

    /// `expr`'s value as it is now, in a temporary of its own.
    fn snapshot(&mut self, expr: &Expr) -> Operand {
        let fresh = self.bindings.len();
        match self.lower_operand(expr) {
            Operand::Active { binding, .. } if binding >= fresh => {
                let name = &self.bindings[binding].name;
                Operand::Active {
                    binding,
                    fwd: syn::parse_quote!(#name),
                }
            }
            value @ Operand::Active { .. } => {
                // A tensor is cloned (a copy would move the user's local).
                let clone = self.mode == Mode::Tensor;
                self.emit_temp(Op::Copy { value, clone })
            }
            Operand::Inactive(expr) => {
                let name = self.temp_name();
                self.push(Stmt::Plain(quote!(let #name = #expr;)));
                self.bind(&name, false, None);
                Operand::Inactive(syn::parse_quote!(#name))
            }
        }
    }

    /// Binds the names of `pat` to the parts of `tree`.
    fn bind_tree(&mut self, pat: &Pat, ty: Option<&syn::Type>, tree: Tree) {
        match (pat, tree) {
            (Pat::Type(typed), tree) => self.bind_tree(&typed.pat, Some(&typed.ty), tree),
            (Pat::Tuple(tuple), Tree::Node(parts)) => {
                let types: Vec<Option<&syn::Type>> = match ty {
                    Some(syn::Type::Tuple(types)) if types.elems.len() == parts.len() => {
                        types.elems.iter().map(Some).collect()
                    }
                    _ => vec![None; parts.len()],
                };
                for ((pat, part), ty) in tuple.elems.iter().zip(parts).zip(types) {
                    self.bind_tree(pat, ty, part);
                }
            }
            (Pat::Wild(_), _) => {}
            (Pat::Ident(pat), Tree::Leaf(value))
                if pat.by_ref.is_none() && pat.subpat.is_none() =>
            {
                let key = self.declare(&pat.ident);
                let active = value.binding().is_some();
                let binding = self.bind(&pat.ident, active, Some(key));
                let mutable = pat.mutability.is_some();
                if self.bindings[binding].active {
                    let id = self.fresh_id();
                    let target = Target::Let {
                        binding,
                        mutable,
                        ty: ty.cloned(),
                    };
                    let op = Op::Copy {
                        value,
                        clone: false,
                    };
                    self.push(Stmt::Def { id, target, op });
                } else {
                    let ty = ty.map(|ty| quote!(: #ty));
                    let value = value.fwd();
                    self.push(Stmt::Plain(quote!(let #pat #ty = #value;)));
                }
            }
            (pat, _) => validate::destructured(self.cx, pat, self.mode),
        }
    }

    /// `(a, b) = (.., ..);`: every value first, into temporaries (`(x, v) = (v, x)` swaps),
    /// then each assigned.
    fn lower_tuple_assign(&mut self, left: &Expr, right: &Expr) {
        let Expr::Tuple(targets) = strip_parens(left) else {
            validate::assignment_target(self.cx, left);
            return;
        };
        let snapshots: Vec<Operand> = match strip_parens(right) {
            Expr::Tuple(values) if values.elems.len() == targets.elems.len() => {
                values.elems.iter().map(|e| self.snapshot(e)).collect()
            }
            Expr::Tuple(values) => {
                validate::tuple_length(self.cx, values);
                return;
            }
            Expr::Call(call) if matches!(&*call.func, Expr::Path(_)) && !is_stop_gradient(call) => {
                leaves(self.call_parts(call, targets.elems.len()))
            }
            // `(a, _) = layer.apply(&x, &mut out);`, as in `evaluate`
            Expr::MethodCall(call) if self.is_method_with_parts(call) => {
                leaves(self.method_parts(call, targets.elems.len()))
            }
            other => {
                validate::destructured_assignment(self.cx, other);
                return;
            }
        };
        for (target, value) in targets.elems.iter().zip(snapshots) {
            if matches!(strip_parens(target), Expr::Infer(_)) {
                continue;
            }
            let value = value.fwd().clone();
            let whole: Expr = syn::parse_quote!(#target = #value);
            self.lower_assign(target, &value, None, &whole);
        }
    }

    /// Registers the names a pattern binds, as constants.
    fn bind_pattern(&mut self, pat: &Pat) {
        for ident in crate::syntax::pattern_idents(pat) {
            self.bind(ident, false, None);
        }
    }

    fn lower_expr_stmt(&mut self, expr: &Expr, semi: Option<syn::token::Semi>) {
        if let Some(exchange) = self.scalar_swap(expr) {
            self.lower_tuple_assign(&exchange.0, &exchange.1);
            return;
        }
        match expr {
            Expr::Assign(assign)
                if matches!(strip_parens(&assign.left), Expr::Tuple(_))
                    && (self.mentions_active(&assign.right) || self.assigns_active(expr)) =>
            {
                self.lower_tuple_assign(&assign.left, &assign.right)
            }
            Expr::Assign(assign) => self.lower_assign(&assign.left, &assign.right, None, expr),
            Expr::Binary(binary) if compound(&binary.op).is_some() => {
                self.lower_assign(&binary.left, &binary.right, compound(&binary.op), expr)
            }
            Expr::If(_)
            | Expr::Match(_)
            | Expr::ForLoop(_)
            | Expr::While(_)
            | Expr::Loop(_)
            | Expr::Block(_) => self.lower_control(expr, Tail::Discard),
            Expr::Macro(mac) => {
                validate::macro_call(self.cx, &mac.mac);
                self.push(Stmt::Plain(quote!(#expr #semi)));
            }
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => self.lower_jump(expr),
            Expr::MethodCall(call)
                if call.method == "push"
                    && call.args.len() == 1
                    && self.array_target(&call.receiver).is_some() =>
            {
                self.lower_push(call, expr, semi)
            }
            Expr::Call(call)
                if self.mode == Mode::Scalar
                    && (self.writes_arrays(call) || self.passes_on_written(call)) =>
            {
                self.lower_writing_call(Writer::Function(call), expr, semi)
            }
            Expr::MethodCall(call)
                if self.mode == Mode::Scalar
                    && (self.method_writes_arrays(call) || self.method_passes_on_written(call)) =>
            {
                self.lower_writing_call(Writer::Method(call), expr, semi)
            }
            _ if self.mentions_active(expr) => {
                // Evaluated for its effects only: lowered so it is checked, its value unused.
                let _ = self.lower_operand(expr);
            }
            _ => {
                self.check_inactive(expr);
                self.push(Stmt::Plain(quote!(#expr #semi)));
            }
        }
    }

    fn lower_assign(&mut self, left: &Expr, right: &Expr, op: Option<BinaryKind>, whole: &Expr) {
        if let Some((binding, indices)) = self.element_place(left) {
            self.lower_store(binding, &indices, right, op, whole);
            return;
        }
        if op.is_none() && self.mode == Mode::Scalar && self.lower_array_assign(left, right) {
            return;
        }
        if op.is_none() && self.mode == Mode::Scalar && self.lower_row_assign(left, right, whole) {
            return;
        }
        if let Some(row) = self.row_of(left) {
            validate::whole_row(self.cx, row);
            return;
        }
        let target = single_ident(strip_parens(left)).and_then(|ident| self.lookup(ident));
        let value_active = self.mentions_active(right);
        let Some(binding) = target else {
            let untyped = match strip_parens(left) {
                Expr::Index(index) => single_ident(strip_parens(&index.expr))
                    .filter(|local| self.lookup(local).is_some_and(|b| self.keys[b].is_some())),
                _ => None,
            };
            if let (Some(local), true) = (untyped, value_active) {
                validate::element_of_untyped_local(self.cx, left, local);
            } else if value_active || self.mentions_active(left) {
                validate::assignment_target(self.cx, left);
            } else {
                self.check_inactive(whole);
                self.push(Stmt::Plain(quote!(#whole;)));
            }
            return;
        };
        if !self.bindings[binding].active {
            if !value_active {
                self.check_inactive(whole);
                self.push(Stmt::Plain(quote!(#whole;)));
                return;
            }
            // `n = { let mut c = 0; for v in x { if *v > 0.0 { c += 1; } } c };` of a
            // constant `n`: the code gives only constants, so `n` stays one. (Given a
            // value on some path, `n` is forced below and this round lowered again.) So
            // does a comparison or a logical `!` of values, `above = x[i] > t;` of a flag
            // (regression: the flag was made active, and its tangent rustc's E0277, "`bool:
            // ZeroTangent` is not satisfied", at the attribute)
            if op.is_none()
                && (matches!(
                    strip_parens(right),
                    Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_)
                ) || matches!(strip_parens(right), Expr::Binary(binary) if is_read(&binary.op))
                    || matches!(strip_parens(right), Expr::Unary(unary) if matches!(unary.op, UnOp::Not(_))))
                && let Operand::Inactive(value) = self.lower_operand(right)
            {
                self.push(Stmt::Plain(quote!(#left = #value;)));
                return;
            }
            match self.keys[binding] {
                Some(key) => {
                    self.newly_forced.insert(key);
                }
                None => validate::assignment_to_non_local(self.cx, left),
            }
        }
        let op = match op {
            None => self.build(right),
            Some(kind) => {
                let lhs = Operand::Active {
                    binding,
                    fwd: strip_parens(left).clone(),
                };
                let rhs = self.lower_operand(right);
                Op::Binary { kind, lhs, rhs }
            }
        };
        let id = self.fresh_id();
        self.push(Stmt::Def {
            id,
            target: Target::Assign { binding },
            op,
        });
    }

    /// `let v = [e0, e1, ..];` (or `vec![..]`) of differentiable values: zeros of that
    /// length, then one element write per value (each value lowered before the name
    /// exists, as any `let`'s).
    fn lower_array_literal(
        &mut self,
        ident: &Ident,
        mutable: bool,
        key: Option<DeclKey>,
        expr: &Expr,
        elems: &[Expr],
    ) {
        // `vec![vec![a, b], vec![c, d, e]]`: ragged rows (`Vec<Vec<F>>`), of any lengths
        if let Expr::Macro(_) = expr
            && let Some(rows) = elems
                .iter()
                .map(|e| match strip_parens(e) {
                    row @ Expr::Macro(_) => array_elements(row),
                    _ => None,
                })
                .collect::<Option<Vec<Vec<Expr>>>>()
            && !rows.is_empty()
            && let Some(key) = key
        {
            self.lower_ragged_literal(ident, key, &rows);
            return;
        }
        // `[[a, b], [c, d]]`: rows of one length, written element by element into zeros
        // of that shape through the flat shadow.
        let rows: Option<Vec<Vec<Expr>>> = elems
            .iter()
            .map(|e| match strip_parens(e) {
                Expr::Array(row) => Some(row.elems.iter().cloned().collect()),
                _ => None,
            })
            .collect();
        let row_len = rows
            .as_ref()
            .and_then(|rows| rows.first().map(Vec::len))
            .filter(|&n| rows.iter().flatten().all(|row| row.len() == n));
        let (elems, row) = match (rows, row_len) {
            (Some(rows), Some(n)) => (rows.concat(), Some(n)),
            _ => (elems.to_vec(), None),
        };
        let values: Vec<Operand> = elems.iter().map(|e| self.lower_operand(e)).collect();
        let n = elems.len();
        // (`element_zero()`, not `0.0`: the elements may be of a generic float type)
        let generated = crate::generate::paths::generated();
        let zero = quote!(#generated::element_zero());
        let zeros: Expr = match (expr, row) {
            (Expr::Macro(_), Some(row)) => {
                syn::parse_quote!(::std::vec![[#zero; #row]; #n / #row])
            }
            (_, Some(row)) => syn::parse_quote!([[#zero; #row]; #n / #row]),
            (Expr::Macro(_), None) => syn::parse_quote!(::std::vec![#zero; #n]),
            (_, None) => syn::parse_quote!([#zero; #n]),
        };
        let binding = self.bind(ident, true, key);
        self.bindings[binding].row = row.map(|row| quote!(#row));
        // Written element by element below: `mut` whatever the user wrote.
        let _ = mutable;
        self.declare_zeros(binding, zeros);
        for (k, value) in values.into_iter().enumerate() {
            let index = self.index_local(quote!(#k));
            let id = self.fresh_id();
            self.push(Stmt::Def {
                id,
                target: Target::Element {
                    binding,
                    index,
                    push: false,
                    counter: None,
                },
                op: Op::Copy {
                    value,
                    clone: false,
                },
            });
        }
    }

    /// `let m = vec![vec![a, b], vec![c, d, e]];` of differentiable values (a ragged
    /// `Vec<Vec<F>>`): each value into a fresh local first, row by row in order (before the
    /// name exists, as any `let`'s value), zeros of the rows' lengths, then one element
    /// write per value, lowered as the user's `m[k][j] = ..` is.
    fn lower_ragged_literal(&mut self, ident: &Ident, key: DeclKey, rows: &[Vec<Expr>]) {
        let mut fills = Vec::new();
        for (k, row) in rows.iter().enumerate() {
            for (j, value) in row.iter().enumerate() {
                let fill = mixed(&format!("gradtape_fill{k}_{j}"));
                self.lower_stmt(&syn::parse_quote!(let #fill = #value;));
                fills.push((k, j, fill));
            }
        }
        let generated = crate::generate::paths::generated();
        let zero = quote!(#generated::element_zero());
        let lens = rows.iter().map(Vec::len);
        let zeros: Expr = syn::parse_quote!(::std::vec![#(::std::vec![#zero; #lens]),*]);
        let binding = self.bind(ident, true, Some(key));
        self.make_ragged(binding);
        self.declare_zeros(binding, zeros);
        for (k, j, fill) in fills {
            self.lower_stmt(&syn::parse_quote!(#ident[#k][#j] = #fill;));
        }
    }

    /// `let v = vec![e; n];` (or `[e; N]`) of a differentiable `e`: `e` evaluated once into
    /// a local (before the name exists, as any `let`'s value), zeros of that length, then
    /// a loop writing the local into every element, lowered as the user's own loops are.
    /// The synthesized statements introduce no `let mut` whose activity the fixed point
    /// could force (the local is active from its value, the array is bound here, active,
    /// under the user's `let`'s key), so lowering them again in a later round is the same.
    fn lower_array_fill(
        &mut self,
        ident: &Ident,
        key: DeclKey,
        expr: &Expr,
        value: &Expr,
        len: &Expr,
    ) {
        let fill = mixed("gradtape_fill");
        self.lower_stmt(&syn::parse_quote!(let #fill = #value;));
        let generated = crate::generate::paths::generated();
        let zero = quote!(#generated::element_zero());
        let zeros: Expr = match expr {
            Expr::Macro(_) => syn::parse_quote!(::std::vec![#zero; #len]),
            _ => syn::parse_quote!([#zero; #len]),
        };
        let binding = self.bind(ident, true, Some(key));
        self.declare_zeros(binding, zeros);
        let k = mixed("fill_index");
        self.lower_stmt(&syn::parse_quote!(for #k in 0..#ident.len() { #ident[#k] = #fill; }));
    }

    /// `let m = [[e; N]; M];` (also `[[a, b]; M]`, `vec![[e; N]; m]`, `vec![vec![e; n];
    /// m]`) of differentiable values: each of the row's values evaluated once into a local
    /// (in the row's order, before the name exists, as Rust evaluates them), zeros of the
    /// shape, then loops writing the locals into every row, lowered as the user's own
    /// loops are. As for [`lower_array_fill`](Self::lower_array_fill), the synthesized
    /// statements bind the array here, active, under the user's `let`'s key, so lowering
    /// them again in a later round is the same.
    fn lower_rows_fill(
        &mut self,
        ident: &Ident,
        key: DeclKey,
        expr: &Expr,
        row: RowFill,
        count: &Expr,
    ) {
        let generated = crate::generate::paths::generated();
        let zero = quote!(#generated::element_zero());
        let (i, j) = (mixed("fill_row"), mixed("fill_column"));
        let (zero_row, row_len, write): (TokenStream, Option<TokenStream>, TokenStream) = match row
        {
            RowFill::Repeat { value, len, ragged } => {
                let fill = mixed("gradtape_fill");
                self.lower_stmt(&syn::parse_quote!(let #fill = #value;));
                let write = quote!(for #j in 0..#ident[#i].len() { #ident[#i][#j] = #fill; });
                if ragged {
                    (quote!(::std::vec![#zero; #len]), None, write)
                } else {
                    (quote!([#zero; #len]), Some(quote!(#len)), write)
                }
            }
            RowFill::Elements(values) => {
                let n = values.len();
                let mut writes = TokenStream::new();
                for (k, value) in values.iter().enumerate() {
                    let fill = mixed(&format!("gradtape_fill{k}"));
                    self.lower_stmt(&syn::parse_quote!(let #fill = #value;));
                    writes.extend(quote!(#ident[#i][#k] = #fill;));
                }
                (quote!([#zero; #n]), Some(quote!(#n)), writes)
            }
        };
        let zeros: Expr = match expr {
            Expr::Macro(_) => syn::parse_quote!(::std::vec![#zero_row; #count]),
            _ => syn::parse_quote!([#zero_row; #count]),
        };
        let binding = self.bind(ident, true, Some(key));
        match row_len {
            Some(len) => self.bindings[binding].row = Some(len),
            None => self.make_ragged(binding),
        }
        self.declare_zeros(binding, zeros);
        self.lower_stmt(&syn::parse_quote!(for #i in 0..#ident.len() { #write }));
    }

    /// The element `expr` names, with its array's binding and its indices: `a[e]` of a
    /// flat array, `m[i][j]` of an array of rows.
    fn element_place<'e>(&self, expr: &'e Expr) -> Option<(BindingId, Vec<&'e Expr>)> {
        let Expr::Index(index) = strip_parens(expr) else {
            return None;
        };
        if let Some(binding) = self.array_target(&index.expr) {
            // `m[i]` of an array of rows is a row, no element
            return self.bindings[binding]
                .row
                .is_none()
                .then(|| (binding, vec![&*index.index]));
        }
        // `(&m[i])[j]` too: a row bound by reference in an iterator form
        let Expr::Index(row) = strip_reference(strip_parens(&index.expr)) else {
            return None;
        };
        let binding = self.array_target(&row.expr)?;
        self.bindings[binding]
            .row
            .is_some()
            .then(|| (binding, vec![&*row.index, &*index.index]))
    }

    /// `m[i]` of an array of rows (a row used whole), if `expr` is one.
    fn row_of<'e>(&self, expr: &'e Expr) -> Option<&'e Expr> {
        let Expr::Index(index) = strip_parens(expr) else {
            return None;
        };
        let binding = self.array_target(&index.expr)?;
        self.bindings[binding].row.is_some().then_some(expr)
    }

    /// The index into an array's flat shadow: `e` for `a[e]`, `i * N + j` for `m[i][j]`
    /// (with `j < N` checked, as `m[i][j]` itself would: a column past the row must not
    /// read the next row's element).
    fn flat_index(&self, binding: BindingId, indices: &[&Expr]) -> TokenStream {
        match (indices, &self.bindings[binding].row) {
            ([i, j], Some(_)) if self.bindings[binding].ragged => {
                // row `i`'s own length bounds `j` (`m` is the array's name in every
                // generated function, an owned `Vec` or a slice: `&m[..]` is the rows)
                let generated = crate::generate::paths::generated();
                let name = &self.bindings[binding].name;
                quote!(#generated::ragged_index(&#name[..], #i, #j))
            }
            ([i, j], Some(row)) => {
                let generated = crate::generate::paths::generated();
                quote!(#generated::flat_index(#i, #j, #row))
            }
            ([i], _) => quote!(#i),
            _ => unreachable!("one index, or two for an array of rows"),
        }
    }

    /// How the adjoint recomputes the index of a read of `binding` at `indices` from the
    /// loop counters, if it can: `a[k]` with `k` a counter, or `m[r][c]` of an array of
    /// rows with `r` and `c` counters (or locals bound to counters) and a row length in
    /// scope everywhere (a parameter's, or the ragged stride; a local's `N` may be a
    /// `const` of an inner block).
    fn recompute(&self, binding: BindingId, indices: &[&Expr]) -> Option<Recompute> {
        match indices {
            [k] => self.counter_of(k).map(Recompute::Counter),
            [r, c] => {
                let data = &self.bindings[binding];
                if !(data.ragged || binding < self.param_count) {
                    return None;
                }
                Some(Recompute::Element {
                    row: self.counter_of(r)?,
                    col: self.counter_of(c)?,
                    stride: data.row.clone()?,
                })
            }
            _ => None,
        }
    }

    /// The loop counter `expr` is: `gradtape_k` (the innermost desugared loop's: each
    /// shadows the one around it, and every loop of the desugaring counts from 0), or a
    /// local bound to a counter (`counter_aliases`).
    fn counter_of(&self, expr: &Expr) -> Option<Counter> {
        // `i + c`, `c + i`, `i - c` for an integer literal `c`
        if let Expr::Binary(binary) = strip_parens(expr) {
            let literal = |e: &Expr| match strip_parens(e) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(int),
                    ..
                }) => int.base10_parse::<isize>().ok(),
                _ => None,
            };
            let shifted = |counter: Counter, by: isize| {
                Some(Counter {
                    offset: counter.offset.checked_add(by)?,
                    ..counter
                })
            };
            return match binary.op {
                BinOp::Add(_) => match (literal(&binary.left), literal(&binary.right)) {
                    (None, Some(c)) => shifted(self.counter_of(&binary.left)?, c),
                    (Some(c), None) => shifted(self.counter_of(&binary.right)?, c),
                    _ => None,
                },
                BinOp::Sub(_) => {
                    let c = literal(&binary.right)?;
                    shifted(self.counter_of(&binary.left)?, c.checked_neg()?)
                }
                _ => None,
            };
        }
        let ident = single_ident(strip_parens(expr))?;
        // A user's loop variable (`loop_counters`) is found by its binding, so shadowing
        // is respected; the desugaring's `gradtape_k` by its text, which is trusted only
        // when the user's item does not spell it.
        let binding = self.lookup(ident);
        if let Some(counter) = binding.and_then(|b| self.loop_counters.get(&b)) {
            return Some(*counter);
        }
        if !self.counters {
            return None;
        }
        if ident == "gradtape_k" {
            let ctx = self.loops.iter().rev().find(|l| l.counter.is_some())?;
            return Some(Counter {
                loop_id: ctx.id,
                reversed: ctx.counter == Some(true),
                offset: 0,
            });
        }
        self.counter_aliases.get(&binding?).copied()
    }

    /// The active array a `let`'s value copies whole (`*a`, `a`, `a.clone()`, `&a`), if any.
    fn copied_array(&self, expr: &Expr) -> Option<BindingId> {
        let inner = match strip_parens(expr) {
            Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => &*unary.expr,
            Expr::Reference(reference) => &*reference.expr,
            Expr::MethodCall(call) if call.method == "clone" && call.args.is_empty() => {
                &*call.receiver
            }
            other => other,
        };
        let binding = self.array_target(inner)?;
        self.bindings[binding].active.then_some(binding)
    }

    /// The array binding `expr` names (a parameter or a local array), if any.
    fn array_target(&self, expr: &Expr) -> Option<BindingId> {
        let ident = single_ident(strip_parens(expr))?;
        let binding = self.lookup(ident)?;
        self.bindings[binding].array.then_some(binding)
    }

    /// Makes an inactive array active (a differentiable value is stored into it): lowered
    /// again with it active. `false` (reported) if it is no local.
    fn activate(&mut self, binding: BindingId, left: &Expr) -> bool {
        if self.bindings[binding].active {
            return true;
        }
        match self.keys[binding] {
            Some(key) => {
                self.newly_forced.insert(key);
                true
            }
            None => {
                validate::assignment_to_non_local(self.cx, left);
                false
            }
        }
    }

    /// `let k: usize = index;` before an element read or write: the index the forward code
    /// uses and saves for the adjoint.
    fn index_local(&mut self, index: TokenStream) -> Ident {
        // never a name the user's item spells, as for temporaries (`temp_name`)
        let name = crate::syntax::fresh_local(format!("k{}", self.next_index));
        self.next_index += 1;
        self.push(Stmt::Plain(quote!(let #name: usize = #index;)));
        name
    }

    /// `array[index] = right` (or `op=`) for an array binding.
    fn lower_store(
        &mut self,
        binding: BindingId,
        indices: &[&Expr],
        right: &Expr,
        op: Option<BinaryKind>,
        whole: &Expr,
    ) {
        let value_active = self.mentions_active(right);
        if let Some(active) = indices.iter().find(|i| self.mentions_active(i)) {
            validate::active_index(self.cx, active);
            return;
        }
        if !self.bindings[binding].active {
            if value_active {
                let name = self.bindings[binding].name.clone();
                self.activate(binding, &syn::parse_quote!(#name));
            }
            self.check_inactive(whole);
            self.push(Stmt::Plain(quote!(#whole;)));
            return;
        }
        let position = self.flat_index(binding, indices);
        let counter = self.recompute(binding, indices);
        let k = self.index_local(position);
        let op = match op {
            None => self.build(right),
            Some(kind) => {
                let lhs = self.emit_temp(Op::Load {
                    array: binding,
                    index: k.clone(),
                    counter: counter.clone(),
                });
                let rhs = self.lower_operand(right);
                Op::Binary { kind, lhs, rhs }
            }
        };
        let id = self.fresh_id();
        self.push(Stmt::Def {
            id,
            target: Target::Element {
                binding,
                index: k,
                push: false,
                counter,
            },
            op,
        });
    }

    /// `array.push(value)` for an array binding: a write at the old length.
    fn lower_push(
        &mut self,
        call: &syn::ExprMethodCall,
        whole: &Expr,
        semi: Option<syn::token::Semi>,
    ) {
        let binding = self.array_target(&call.receiver).expect("checked");
        let value = &call.args[0];
        if !self.bindings[binding].active {
            if self.mentions_active(value) {
                self.activate(binding, &call.receiver);
            }
            self.check_inactive(whole);
            self.push(Stmt::Plain(quote!(#whole #semi)));
            return;
        }
        if self.bindings[binding].ragged {
            validate::ragged_grows(self.cx, whole);
            return;
        }
        if binding < self.param_count {
            // Parameters are bound first. A parameter's shadow has the array's length
            // (`grad_into`'s is the caller's buffer): a gradient of a grown parameter
            // would come back longer than the parameter (regression: `grad` gave 3 entries
            // for a `Vec` of 2, `grad_into` panicked).
            validate::parameter_grows(self.cx, &call.receiver);
            return;
        }
        let receiver = &call.receiver;
        if let Some(row) = self.bindings[binding].row.clone() {
            // a row pushed onto a local array of fixed rows (`path.push([x, y])`): its
            // elements computed first, in order, as the literal computes them (they may
            // read the array, its length too), then a row of zeros pushed (a constant, in
            // the forward code only: the shadow is flat and grows where it is written) and
            // each element written into it, element writes like any other
            // the row's elements: a literal's, or a local row's by name (`path.push(p)`,
            // `p` a `[F; C]` of the body, `C` a literal)
            let elements: Vec<Expr> = match strip_parens(value) {
                Expr::Array(literal) => literal.elems.iter().cloned().collect(),
                named => match (
                    single_ident(named).and_then(|name| self.lookup(name)),
                    syn::parse2::<syn::LitInt>(row.clone())
                        .ok()
                        .and_then(|len| len.base10_parse::<usize>().ok()),
                ) {
                    (Some(pushed), Some(len))
                        if self.bindings[pushed].array && self.bindings[pushed].row.is_none() =>
                    {
                        (0..len).map(|j| syn::parse_quote!(#named[#j])).collect()
                    }
                    _ => {
                        validate::row_pushed_whole(self.cx, value);
                        return;
                    }
                },
            };
            let values: Vec<Ident> = (0..elements.len())
                .map(|j| crate::syntax::fresh_local(format!("pushed{j}")))
                .collect();
            let at = crate::syntax::fresh_local("pushed_row");
            let mut stmts: Vec<syn::Stmt> = values
                .iter()
                .zip(&elements)
                .map(|(value, element)| syn::parse_quote!(let #value = #element;))
                .collect();
            stmts.push(syn::parse_quote!(let #at: usize = #receiver.len();));
            self.lower_stmts(&stmts, Tail::Discard);
            self.push(Stmt::Plain(quote!(
                #receiver.push([::core::default::Default::default(); #row]);
            )));
            let writes: Vec<syn::Stmt> = values
                .iter()
                .enumerate()
                .map(|(j, value)| syn::parse_quote!(#receiver[#at][#j] = #value;))
                .collect();
            self.lower_stmts(&writes, Tail::Discard);
            return;
        }
        let k = self.index_local(quote!(#receiver.len()));
        let op = self.build(value);
        let id = self.fresh_id();
        self.push(Stmt::Def {
            id,
            target: Target::Element {
                binding,
                index: k,
                push: true,
                counter: None,
            },
            op,
        });
    }

    /// Lowers `expr` as the value of `target`.
    fn lower_into(&mut self, expr: &Expr, target: Target) {
        let stripped = strip_parens(expr);
        if let Target::Assign { binding } = target
            && matches!(
                stripped,
                Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_)
            )
            && (self.mentions_active(stripped) || escapes(stripped))
        {
            self.lower_control(stripped, Tail::Assign(binding));
            return;
        }
        let op = self.build(expr);
        let id = self.fresh_id();
        self.push(Stmt::Def { id, target, op });
    }

    // ----- control flow -----

    fn lower_control(&mut self, expr: &Expr, tail: Tail) {
        if matches!(tail, Tail::Discard)
            && !self.mentions_active(expr)
            && !self.assigns_active(expr)
            && !escapes(expr)
        {
            self.check_inactive(expr);
            self.push(Stmt::Plain(quote!(#expr;)));
            return;
        }
        match expr {
            Expr::If(expr_if) if let Some(matched) = crate::syntax::if_let_as_match(expr_if) => {
                // `if let P = e { A } else { B }` is `match e { P => { A } _ => { B } }`.
                if expr_if.else_branch.is_none()
                    && let Tail::Assign(_) = tail
                {
                    validate::if_without_else(self.cx, expr_if);
                }
                self.lower_control(&Expr::Match(matched), tail);
            }
            Expr::If(expr_if) if has_let(&expr_if.cond) => {
                validate::let_chain(self.cx, &expr_if.cond);
            }
            Expr::If(expr_if) => {
                self.check_condition(&expr_if.cond);
                let then_branch = self.lower_branch(&expr_if.then_branch.stmts, tail);
                let else_branch = match &expr_if.else_branch {
                    Some((_, else_expr)) => match &**else_expr {
                        Expr::Block(block) => self.lower_branch(&block.block.stmts, tail),
                        other => {
                            self.enter_block();
                            self.lower_tail(other, tail);
                            self.exit_block()
                        }
                    },
                    None => {
                        if let Tail::Assign(_) = tail {
                            validate::if_without_else(self.cx, expr_if);
                        }
                        self.lower_branch(&[], Tail::Discard)
                    }
                };
                let id = self.fresh_id();
                self.push(Stmt::If {
                    id,
                    cond: (*expr_if.cond).clone(),
                    then_branch,
                    else_branch,
                });
            }
            Expr::Match(expr_match)
                if self.mentions_active(&expr_match.expr)
                    && expr_match.arms.iter().any(|arm| binds_names(&arm.pat)) =>
            {
                if let Some(matched) = self.bind_active_scrutinee(expr_match) {
                    self.lower_match(&matched, tail);
                }
            }
            Expr::Match(expr_match) => self.lower_match(expr_match, tail),
            Expr::Block(block) => {
                if let Some(unsafety) = block_unsafety(expr) {
                    validate::unsafe_block(self.cx, unsafety);
                    return;
                }
                // A plain block: its own scope, at the enclosing block's depth.
                let depth = self.blocks.last().map_or(0, |b| b.depth);
                self.blocks.push(Block {
                    stmts: Vec::new(),
                    depth,
                    declared: Vec::new(),
                });
                self.scopes.push(HashMap::new());
                self.lower_stmts(&block.block.stmts, tail);
                let block = self.exit_block();
                self.push(Stmt::Scope(block));
            }
            Expr::ForLoop(for_loop) => {
                if self.mentions_active(&for_loop.expr) {
                    validate::loop_over_active(self.cx, &for_loop.expr);
                }
                let head = LoopHead::For {
                    pat: (*for_loop.pat).clone(),
                    iter: (*for_loop.expr).clone(),
                };
                let label = for_loop.label.as_ref().map(|l| l.name.clone());
                let range = range_counter(&for_loop.pat, &for_loop.expr);
                self.lower_loop(label, head, None, |this| {
                    this.bind_pattern(&for_loop.pat);
                    // `for i in 1..n`: `i` is the loop's counter plus 1 on every trip
                    if let (Some((reversed, first)), Pat::Ident(pat)) = (range, &*for_loop.pat)
                        && pat.ident != "gradtape_k"
                        && let Some(binding) = this.lookup(&pat.ident)
                        && let Some(ctx) = this.loops.last()
                    {
                        let counter = Counter {
                            loop_id: ctx.id,
                            reversed,
                            offset: first,
                        };
                        this.loop_counters.insert(binding, counter);
                    }
                    this.lower_stmts(&for_loop.body.stmts, Tail::Discard);
                });
            }
            Expr::While(while_loop) if matches!(strip_parens(&while_loop.cond), Expr::Let(_)) => {
                // `while let P = e { body }` is `loop { match e { P => { body } _ => break } }`.
                let Expr::Let(condition) = strip_parens(&while_loop.cond) else {
                    unreachable!("matched above")
                };
                let (pat, scrutinee, body) = (&condition.pat, &condition.expr, &while_loop.body);
                let label = &while_loop.label;
                let looped: Expr = syn::parse_quote!(
                    #label loop { match #scrutinee { #pat => #body _ => break } }
                );
                self.lower_control(&looped, Tail::Discard);
            }
            Expr::While(while_loop) if has_let(&while_loop.cond) => {
                validate::let_chain(self.cx, &while_loop.cond);
            }
            Expr::While(while_loop) => {
                self.check_condition(&while_loop.cond);
                let head = LoopHead::While {
                    cond: (*while_loop.cond).clone(),
                };
                let label = while_loop.label.as_ref().map(|l| l.name.clone());
                self.lower_loop(label, head, None, |this| {
                    this.lower_stmts(&while_loop.body.stmts, Tail::Discard);
                });
            }
            Expr::Loop(loop_expr) => {
                let value = match tail {
                    Tail::Assign(binding) => Some(binding),
                    Tail::Discard => None,
                    Tail::Output => {
                        // Through a temporary, as any other value of control flow.
                        let operand = self.lower_operand(expr);
                        self.lower_tail_operand(operand);
                        return;
                    }
                };
                let label = loop_expr.label.as_ref().map(|l| l.name.clone());
                self.lower_loop(label, LoopHead::Loop, value, |this| {
                    this.lower_stmts(&loop_expr.body.stmts, Tail::Discard);
                });
            }
            other => self.lower_tail(other, tail),
        }
    }

    /// `match`: the arm taken is saved.
    fn lower_match(&mut self, expr_match: &syn::ExprMatch, tail: Tail) {
        let mut arms = Vec::new();
        for arm in &expr_match.arms {
            self.enter_block();
            self.bind_pattern(&arm.pat);
            match &*arm.body {
                Expr::Block(block) if block.label.is_none() => {
                    self.lower_stmts(&block.block.stmts, tail)
                }
                other => self.lower_tail(other, tail),
            }
            let body = self.exit_block();
            // syn 3 keeps a match guard inside the arm's pattern.
            let (pat, guard) = match &arm.pat {
                syn::Pat::Guard(guarded) => {
                    // a guard runs as written, as a condition does
                    self.check_condition(&guarded.guard);
                    ((*guarded.pat).clone(), Some((*guarded.guard).clone()))
                }
                pat => (pat.clone(), None),
            };
            arms.push(Arm { pat, guard, body });
        }
        let id = self.fresh_id();
        self.push(Stmt::Match {
            id,
            scrutinee: (*expr_match.expr).clone(),
            arms,
        });
    }

    /// `match` on differentiable values whose arms bind them (`match (a, b) { (p, q) if p >
    /// q => p - q, (p, q) => q - p }`): each differentiable part of the scrutinee (the
    /// whole, or an element of a tuple) is evaluated into a temporary first; in each arm
    /// its pattern, a name or `_`, becomes `_`, a guard reads the temporary, and the arm
    /// starts with `let p = temporary;`, so the binding is differentiated as any local.
    /// `None` (with the error) when such a part meets another pattern.
    fn bind_active_scrutinee(&mut self, expr_match: &syn::ExprMatch) -> Option<syn::ExprMatch> {
        let scrutinee = strip_parens(&expr_match.expr);
        let elems: Vec<&Expr> = match scrutinee {
            Expr::Tuple(tuple) => tuple.elems.iter().collect(),
            other => vec![other],
        };
        // Each part: the temporary holding a differentiable value, or how to read a
        // constant one (as written, or a comparison's value computed once).
        let mut parts: Vec<Option<Ident>> = Vec::new();
        let mut read: Vec<Expr> = Vec::new();
        for elem in &elems {
            if !self.mentions_active(elem) {
                parts.push(None);
                read.push((*elem).clone());
                continue;
            }
            match self.snapshot(elem) {
                Operand::Active { binding, .. } => {
                    let name = self.bindings[binding].name.clone();
                    read.push(syn::parse_quote!(&#name));
                    parts.push(Some(name));
                }
                Operand::Inactive(value) => {
                    parts.push(None);
                    read.push(value);
                }
            }
        }
        let tuple = matches!(scrutinee, Expr::Tuple(_));
        let mut matched = expr_match.clone();
        matched.expr = Box::new(if tuple {
            syn::parse_quote!((#(#read,)*))
        } else {
            read[0].clone()
        });
        for arm in &mut matched.arms {
            let (pat, guard) = match &mut arm.pat {
                Pat::Guard(guarded) => (&mut *guarded.pat, Some(&mut guarded.guard)),
                pat => (pat, None),
            };
            let mut renames: Vec<(Ident, Ident)> = Vec::new();
            let sub_pats: Vec<&mut Pat> = match (tuple, &mut *pat) {
                (true, Pat::Tuple(pats)) if pats.elems.len() == parts.len() => {
                    pats.elems.iter_mut().collect()
                }
                (false, pat) => vec![pat],
                (_, pat) => {
                    validate::destructured(self.cx, pat, self.mode);
                    return None;
                }
            };
            for (sub, part) in sub_pats.into_iter().zip(&parts) {
                let Some(temp) = part else { continue };
                match strip_pat_type(sub) {
                    Pat::Wild(_) => {}
                    Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                        renames.push((ident.ident.clone(), temp.clone()));
                        *sub = syn::parse_quote!(_);
                    }
                    other => {
                        validate::destructured(self.cx, other, self.mode);
                        return None;
                    }
                }
            }
            if let Some(guard) = guard {
                rename_idents(guard, &renames);
            }
            let lets = renames
                .iter()
                .map(|(name, temp)| -> syn::Stmt { syn::parse_quote!(let #name = #temp;) });
            let body = &arm.body;
            *arm.body = syn::parse_quote!({ #(#lets)* #body });
        }
        Some(matched)
    }

    /// A loop: `body` lowers its statements in the loop's block, with the loop as the
    /// target of the jumps in it.
    fn lower_loop(
        &mut self,
        label: Option<syn::Lifetime>,
        head: LoopHead,
        value: Option<BindingId>,
        body: impl FnOnce(&mut Self),
    ) {
        let id = self.fresh_id();
        let counter = match &head {
            LoopHead::For { pat, iter } => desugared_counter(pat, iter),
            _ => None,
        };
        self.loops.push(LoopCtx {
            id,
            label: label.clone(),
            value,
            exits: false,
            counter,
        });
        self.enter_block();
        body(self);
        let mut block = self.exit_block();
        // (the desugaring's reversed loops are among these)
        let reversed = matches!(&head, LoopHead::For { pat, iter }
            if range_counter(pat, iter).is_some_and(|(reversed, _)| reversed));
        if reversed && self.loops.last().is_some_and(|l| l.exits) {
            // a jump may end it early: its trip count is not `n`
            forget_counter(&mut block, id);
        }
        let ctx = self.loops.pop().expect("pushed above");
        self.push(Stmt::Loop {
            id,
            label,
            head,
            body: block,
            exits: ctx.exits,
        });
    }

    /// The function's result, an operand computed already.
    fn lower_tail_operand(&mut self, operand: Operand) {
        match self.returned.clone() {
            Some(results) => {
                let id = self.fresh_id();
                let target = Target::Assign {
                    binding: results[0],
                };
                let op = Op::Copy {
                    value: operand,
                    clone: false,
                };
                self.push(Stmt::Def { id, target, op });
            }
            None => self.outputs.push(operand),
        }
    }

    /// The results assigned to the bindings that hold them (`return` as a jump).
    fn lower_results(&mut self, expr: &Expr, results: &[BindingId]) {
        match (strip_parens(expr), results) {
            (_, [binding]) => self.lower_into(expr, Target::Assign { binding: *binding }),
            (Expr::Tuple(tuple), _) => {
                if tuple.elems.len() != results.len() {
                    validate::tuple_length(self.cx, tuple);
                    return;
                }
                // Every element before any assignment: `return (b, a)` may read them.
                let operands: Vec<Operand> =
                    tuple.elems.iter().map(|e| self.lower_operand(e)).collect();
                for (operand, &binding) in operands.into_iter().zip(results) {
                    let id = self.fresh_id();
                    let op = Op::Copy {
                        value: operand,
                        clone: false,
                    };
                    self.push(Stmt::Def {
                        id,
                        target: Target::Assign { binding },
                        op,
                    });
                }
            }
            (other, _) => validate::tuple_tail(self.cx, other),
        }
    }

    /// `break`, `continue` or `return`: its value assigned to its target, then the jump.
    fn lower_jump(&mut self, expr: &Expr) {
        let (kind, label, value) = match expr {
            Expr::Break(jump) => (JumpKind::Break, jump.label.clone(), jump.expr.as_deref()),
            Expr::Continue(jump) => (JumpKind::Continue, jump.label.clone(), None),
            Expr::Return(jump) => (JumpKind::Return, None, jump.expr.as_deref()),
            other => unreachable!("not a jump: {}", other.to_token_stream()),
        };
        let exits: Vec<usize> = if kind == JumpKind::Return {
            let Some(results) = self.returned.clone() else {
                unreachable!("a `return` left after `returns::rewrite` makes the body a region")
            };
            match value {
                Some(value) => self.lower_results(value, &results),
                None => validate::tuple_tail(self.cx, expr),
            }
            for ctx in &mut self.loops {
                ctx.exits = true;
            }
            let loops = self.loops.iter().rev().map(|ctx| ctx.id);
            loops.chain([RETURN_REGION]).collect()
        } else {
            let position = match &label {
                None => self.loops.len().checked_sub(1),
                Some(label) => self
                    .loops
                    .iter()
                    .rposition(|ctx| ctx.label.as_ref() == Some(label)),
            };
            let Some(position) = position else {
                validate::jump_target(self.cx, expr);
                return;
            };
            if let Some(value) = value {
                match self.loops[position].value {
                    Some(binding) => self.lower_into(value, Target::Assign { binding }),
                    None => self.lower_expr_stmt(value, None),
                }
            }
            for ctx in &mut self.loops[position..] {
                ctx.exits = true;
            }
            self.loops[position..]
                .iter()
                .rev()
                .map(|ctx| ctx.id)
                .collect()
        };
        // Nonzero: 0 is an iteration that ran to the end of its body.
        let id = self.fresh_id() + 1;
        self.push(Stmt::Jump {
            id,
            kind,
            label,
            exits,
        });
    }

    fn lower_branch(&mut self, stmts: &[syn::Stmt], tail: Tail) -> Block {
        self.enter_block();
        self.lower_stmts(stmts, tail);
        self.exit_block()
    }

    /// Whether `expr` assigns to an active binding (so it must be lowered even if it reads
    /// none).
    fn assigns_active(&self, expr: &Expr) -> bool {
        struct Assigns<'l, 'a> {
            lowerer: &'l Lowerer<'a>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Assigns<'_, '_> {
            fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
                // a name, or the names of a destructuring assignment, `(a, b) = (0.0, 1.0);`
                // (regression: `tuple_assignment_of_constants_to_active_locals`)
                fn names<'e>(left: &'e Expr, into: &mut Vec<&'e Ident>) {
                    match strip_parens(left) {
                        Expr::Tuple(tuple) => tuple.elems.iter().for_each(|e| names(e, into)),
                        other => into.extend(single_ident(other)),
                    }
                }
                let mut assigned = Vec::new();
                names(&assign.left, &mut assigned);
                for ident in assigned {
                    if let Some(id) = self.lowerer.lookup(ident)
                        && (self.lowerer.bindings[id].active
                            || self.lowerer.keys[id]
                                .is_some_and(|k| self.lowerer.forced.contains(&k)))
                    {
                        self.found = true;
                    }
                }
                visit::visit_expr_assign(self, assign);
            }
            fn visit_local(&mut self, local: &'ast syn::Local) {
                if let Pat::Ident(pat) = &local.pat
                    && self.lowerer.site_forced(&pat.ident)
                {
                    self.found = true;
                }
                visit::visit_local(self, local);
            }
        }
        let mut finder = Assigns {
            lowerer: self,
            found: false,
        };
        finder.visit_expr(expr);
        finder.found
    }

    // ----- expressions -----

    /// The operation computing `expr`: an op for an active operator or call, else a copy of
    /// the operand.
    fn build(&mut self, expr: &Expr) -> Op {
        match self.build_op(expr) {
            Some(op) => op,
            None => {
                let value = self.lower_operand(expr);
                let clone = false;
                Op::Copy { value, clone }
            }
        }
    }

    /// `expr` as an operand, splitting active operations into temporaries.
    fn lower_operand(&mut self, expr: &Expr) -> Operand {
        if !self.mentions_active(expr) {
            self.check_inactive(expr);
            return Operand::Inactive(expr.clone());
        }
        // a struct result's twin returns each field's value through `ResultField`
        // (`results::result_part`): a differentiable value is the value itself (a cast of
        // it is `build_op`'s)
        if let Expr::MethodCall(call) = strip_parens(expr)
            && let Some((value, None)) = crate::results::result_part_value(call)
        {
            return self.lower_operand(value);
        }
        if let Some(op) = self.build_op(expr) {
            return self.emit_temp(op);
        }
        match expr {
            Expr::Paren(paren) => self.wrap(&paren.expr, |inner| syn::parse_quote!((#inner))),
            Expr::Group(group) => self.wrap(&group.expr, |inner| inner),
            Expr::Reference(reference) => {
                if let Some(mutability) = &reference.mutability {
                    validate::mutable_borrow(self.cx, mutability);
                }
                self.wrap(&reference.expr, |inner| syn::parse_quote!(&#inner))
            }
            Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => {
                self.wrap(&unary.expr, |inner| syn::parse_quote!(*#inner))
            }
            Expr::Path(_) => match self.active_binding(expr) {
                Some(binding) if self.bindings[binding].array => {
                    validate::whole_array(self.cx, expr);
                    Operand::Inactive(expr.clone())
                }
                Some(binding) if self.bindings[binding].whole => {
                    validate::whole_struct(self.cx, expr);
                    Operand::Inactive(expr.clone())
                }
                Some(binding) => Operand::Active {
                    binding,
                    fwd: expr.clone(),
                },
                None => Operand::Inactive(expr.clone()),
            },
            Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_) => {
                if let Some(unsafety) = block_unsafety(expr) {
                    validate::unsafe_block(self.cx, unsafety);
                    return Operand::Inactive(expr.clone());
                }
                let binding = self.temp();
                self.push(Stmt::Declare {
                    binding,
                    mutable: false,
                });
                let start = self.blocks.last().expect("a block").stmts.len();
                self.lower_control(expr, Tail::Assign(binding));
                let name = &self.bindings[binding].name;
                let fwd = syn::parse_quote!(#name);
                // a constant the code computes on tests of values, as `lower_local_as`
                // takes it for a `let`
                let branches = &self.blocks.last().expect("a block").stmts[start..];
                if Self::assigns_constants_only(branches, binding) {
                    self.bindings[binding].active = false;
                    return Operand::Inactive(fwd);
                }
                Operand::Active { binding, fwd }
            }
            Expr::Binary(binary) if is_read(&binary.op) => Operand::Inactive(expr.clone()),
            Expr::Unary(unary) if matches!(unary.op, UnOp::Not(_)) => {
                Operand::Inactive(expr.clone())
            }
            Expr::Lit(_) => Operand::Inactive(expr.clone()),
            // `step(..).x`: a field of another annotated function's struct result, the
            // call's one part (`results::parts_vjp`)
            // `sim.step(..).x`: the same of an annotated method's struct result
            Expr::Field(field)
                if self.mode == Mode::Scalar
                    && matches!(&field.member, syn::Member::Named(_))
                    && matches!(strip_parens(&field.base), Expr::MethodCall(call)
                        if self.is_method_with_parts(call) && !self.method_writes_arrays(call)) =>
            {
                let Expr::MethodCall(call) = strip_parens(&field.base) else {
                    unreachable!("checked")
                };
                self.struct_fields = Some(vec![field.member.clone()]);
                let parts = self.method_parts(call, 1);
                self.struct_fields = None;
                match parts.into_iter().next() {
                    Some(Tree::Leaf(operand)) => operand,
                    _ => unreachable!("one part"),
                }
            }
            Expr::Field(field) if self.mode == Mode::Scalar && field_of_call(field).is_some() => {
                let call = field_of_call(field).expect("checked");
                self.struct_fields = Some(vec![field.member.clone()]);
                let parts = self.call_parts(call, 1);
                if self.struct_fields.take().is_some() {
                    validate::struct_result_of_a_plain_helper(self.cx, &func_path(call));
                }
                match parts.into_iter().next() {
                    Some(Tree::Leaf(operand)) => operand,
                    _ => unreachable!("one part"),
                }
            }
            // `s.x` of a value held whole (a struct result bound by `let` and used otherwise
            // too, `let s = step(..); norm(&s) + s.x`): the field read as a call of `s`
            // (`Callee::Field`), whose pullback puts the field's cotangent into a zero of
            // the struct. Only a named field: a tuple's element reads its part.
            Expr::Field(field)
                if self.mode == Mode::Scalar
                    && matches!(&field.member, syn::Member::Named(_))
                    && let Some(binding) = self.held_whole(&field.base) =>
            {
                let base = strip_parens(&field.base).clone();
                self.emit_temp(Op::Call {
                    func: Callee::Field(field.member.clone()),
                    args: vec![Operand::Active { binding, fwd: base }],
                })
            }
            other => {
                self.reject(other);
                Operand::Inactive(expr.clone())
            }
        }
    }

    /// The binding `expr` names if it is a value held whole: an active local that is no
    /// float array and no struct parameter passed on whole (whose fields `params` lifted),
    /// so one whose fields are read is a struct (a float has none).
    fn held_whole(&self, expr: &Expr) -> Option<BindingId> {
        let binding = self.active_binding(strip_parens(expr))?;
        let b = &self.bindings[binding];
        (!b.array && !b.whole && b.row.is_none() && !b.ragged).then_some(binding)
    }

    fn wrap(&mut self, inner: &Expr, rebuild: impl FnOnce(Expr) -> Expr) -> Operand {
        match self.lower_operand(inner) {
            Operand::Active { binding, fwd } => Operand::Active {
                binding,
                fwd: rebuild(fwd),
            },
            Operand::Inactive(expr) => Operand::Inactive(rebuild(expr)),
        }
    }

    fn emit_temp(&mut self, op: Op) -> Operand {
        let binding = self.temp();
        let id = self.fresh_id();
        self.push(Stmt::Def {
            id,
            target: Target::Let {
                binding,
                mutable: false,
                ty: None,
            },
            op,
        });
        let name = &self.bindings[binding].name;
        Operand::Active {
            binding,
            fwd: syn::parse_quote!(#name),
        }
    }

    /// `operand` as a name or a literal, which the forward code may read twice: bound to
    /// a temporary first if it is any other expression (a call, an element read).
    fn named(&mut self, operand: Operand) -> Operand {
        if crate::syntax::is_name_or_literal(operand.fwd()) {
            operand
        } else {
            self.emit_temp(Op::Copy {
                value: operand,
                clone: false,
            })
        }
    }

    /// The op for an active operator, method call or function call; `None` for anything
    /// else (atoms, control flow, inactive expressions).
    fn build_op(&mut self, expr: &Expr) -> Option<Op> {
        let expr = strip_parens(expr);
        if !self.mentions_active(expr) {
            return None;
        }
        // a struct result's twin's field conversion: the value's own op (`lower_operand`)
        if let Expr::MethodCall(call) = expr
            && let Some((value, cast)) = crate::results::result_part_value(call)
        {
            return match cast {
                Some(ty) => {
                    let x = self.lower_operand(value);
                    Some(Op::Cast { x, ty })
                }
                None => self.build_op(value),
            };
        }
        // `T::from(v).unwrap()` (or `f64::from(v)`) of a differentiable float `v`: a cast
        if self.mode == Mode::Scalar
            && let Some((value, ty)) = float_conversion(expr, &self.floats)
            && self.mentions_active(value)
        {
            let x = self.lower_operand(value);
            return Some(Op::Cast { x, ty });
        }
        match expr {
            Expr::Binary(binary) => {
                let kind = match binary.op {
                    BinOp::Add(_) => BinaryKind::Add,
                    BinOp::Sub(_) => BinaryKind::Sub,
                    BinOp::Mul(_) => BinaryKind::Mul,
                    BinOp::Div(_) => BinaryKind::Div,
                    BinOp::Rem(_) => BinaryKind::Rem,
                    op if is_read(&op) => return None,
                    op if compound(&op).is_some() => {
                        validate::compound_in_expr(self.cx, binary);
                        return Self::poisoned(expr);
                    }
                    op => {
                        validate::operator(self.cx, &op);
                        return Self::poisoned(expr);
                    }
                };
                let lhs = self.lower_operand(&binary.left);
                let rhs = self.lower_operand(&binary.right);
                Some(Op::Binary { kind, lhs, rhs })
            }
            Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
                let x = self.lower_operand(&unary.expr);
                Some(Op::Neg(x))
            }
            Expr::MethodCall(call) => self.build_method(call),
            Expr::Call(call) => self.build_call(call),
            Expr::Index(index) if self.mode == Mode::Scalar => {
                let Some((array, indices)) = self.element_place(expr) else {
                    match self.row_of(expr) {
                        Some(row) => validate::whole_row(self.cx, row),
                        None => validate::indexed_value(self.cx, &index.expr),
                    }
                    return Self::poisoned(expr);
                };
                if let Some(active) = indices.iter().find(|i| self.mentions_active(i)) {
                    validate::active_index(self.cx, active);
                    return Self::poisoned(expr);
                }
                let position = self.flat_index(array, &indices);
                let counter = self.recompute(array, &indices);
                let k = self.index_local(position);
                Some(Op::Load {
                    array,
                    index: k,
                    counter,
                })
            }
            // between f32 and f64 (a cast to an integer is a constant: see `ActiveFinder`)
            Expr::Cast(cast) if self.mode == Mode::Scalar && is_float_type(&cast.ty) => {
                let x = self.lower_operand(&cast.expr);
                let ty = (*cast.ty).clone();
                Some(Op::Cast { x, ty })
            }
            _ => None,
        }
    }

    /// The op standing for an expression already reported as an error, so that no
    /// follow-on error is reported for it.
    fn poisoned(expr: &Expr) -> Option<Op> {
        Some(Op::Copy {
            value: Operand::Inactive(expr.clone()),
            clone: false,
        })
    }

    /// The call of an annotated method on a struct the body holds whole (`receiver`, its
    /// binding), which the method takes as its differentiable `self`.
    fn method_on_whole(&mut self, receiver: BindingId, call: &syn::ExprMethodCall) -> Op {
        let receiver = Operand::Active {
            binding: receiver,
            fwd: (*call.receiver).clone(),
        };
        let args = self.lower_call_args(&call.args);
        Op::Call {
            func: Callee::Method(call.method.clone()),
            args: std::iter::once(receiver).chain(args).collect(),
        }
    }

    /// The call of an annotated method on a struct literal of differentiable values, its
    /// `self` (`(State { x: a, v: b }).energy(k)`, as `fields.rs` makes `s.energy(k)` of a
    /// local struct): the receiver given field by field, then the arguments (a literal
    /// among them so too), rebuilt for the method's companion items, whose `self` entry
    /// gives the fields' cotangents ([`Callee::Gathered`]). `None` for any other receiver.
    fn method_of_a_literal(
        &mut self,
        call: &syn::ExprMethodCall,
    ) -> Option<(Callee, Vec<Operand>)> {
        if self.mode != Mode::Scalar {
            return None;
        }
        let (literal, _) = self.active_struct_literal(&call.receiver)?;
        // by value: the companion's call autorefs its receiver, as the method's does
        let (shape, mut operands) = self.gathered_literal(literal, false);
        let mut shapes = vec![shape];
        let (arg_shapes, arg_operands) = self.gather_args(&call.args);
        shapes.extend(arg_shapes);
        operands.extend(arg_operands);
        let callee = Callee::Gathered(Box::new(Callee::Method(call.method.clone())), shapes);
        Some((callee, operands))
    }

    fn build_method(&mut self, call: &syn::ExprMethodCall) -> Option<Op> {
        let name = call.method.to_string();
        if let Some((func, args)) = self.method_of_a_literal(call) {
            return Some(Op::Call { func, args });
        }
        let receiver_active = self.mentions_active(&call.receiver);
        let args_active = call.args.iter().any(|arg| self.mentions_active(arg));
        if self.mode == Mode::Scalar
            && let Some(receiver) = self.whole_struct_arg(&call.receiver)
        {
            // `m.hidden.forward(x)`: a struct passed on whole as the receiver of another
            // annotated method, whose `self` is differentiable
            return Some(self.method_on_whole(receiver, call));
        }
        if let Some(op) = self.build_float_method(call, &name, args_active) {
            return Some(op);
        }
        if self.mode == Mode::Scalar
            && (self.method_writes_arrays(call) || self.method_passes_on_lendable(call))
        {
            // `let e = self.apply(&x, &mut out);`, `let e = self.apply(&x, y);`
            return self.build_writing_call(Writer::Method(call));
        }
        if receiver_active {
            if let Some(rule) = vocabulary::elementwise(&name)
                && call.args.len() == rule.params.len()
            {
                if args_active {
                    validate::active_constant_arg(self.cx, &call.args, &name);
                }
                let x = self.lower_operand(&call.receiver);
                return Some(Op::Unary {
                    method: call.method.clone(),
                    saves: rule.saves,
                    x,
                    args: call.args.iter().cloned().collect(),
                });
            }
            let variable_read = name == "value"
                && self
                    .active_binding(&call.receiver)
                    .is_some_and(|b| self.variables.contains(&b));
            if (name == "clone" || variable_read) && call.args.is_empty() {
                let value = self.lower_operand(&call.receiver);
                return Some(Op::Copy { value, clone: true });
            }
            if vocabulary::is_metadata(&name) && !args_active {
                return None;
            }
            if vocabulary::is_escape(&name) {
                // a float array's `to_vec()` is a copy (`iterators::copies`); what reaches
                // here of an array is an array of rows, which is not copied whole
                match self.active_binding(&call.receiver) {
                    Some(b) if self.mode == Mode::Scalar && self.bindings[b].array => {
                        validate::rows_copied_whole(self.cx, &call.method);
                    }
                    _ => validate::escape(self.cx, &call.method),
                }
                return Self::poisoned(&Expr::MethodCall(call.clone()));
            }
        }
        if vocabulary::is_traced(&name) && self.mode == Mode::Tensor {
            return Some(self.build_trace(&Expr::MethodCall(call.clone())));
        }
        if !receiver_active
            && args_active
            && self.mode == Mode::Scalar
            && vocabulary::is_library_method(&name)
        {
            // `opt.unwrap_or_else(|| x)` of an option the rewrites did not take, `it.
            // max_by(..)` of an iterator of constants: no annotated method of the receiver
            validate::unknown_method(self.cx, &call.method, self.mode);
            return Self::poisoned(&Expr::MethodCall(call.clone()));
        }
        if !receiver_active && args_active && !vocabulary::stores_argument(&name) {
            // A method of a constant receiver on differentiable arguments (a layer's
            // `forward`, a model's `energy`): another `#[differentiable]` method. In tensor
            // mode it is replayed on a sub-tape as a call is; in scalar mode its companion
            // items are called on the same receiver.
            return Some(match self.mode {
                Mode::Tensor => {
                    if self.calls.strict.is_some() {
                        validate::strict_method(self.cx, &call.method);
                    }
                    self.build_trace(&Expr::MethodCall(call.clone()))
                }
                Mode::Scalar => {
                    let (func, args) = self.method_callee_args(call);
                    Op::Call { func, args }
                }
            });
        }
        // `s.energy(k)` of a struct result held whole (a call's result, `call_results`):
        // an annotated method whose `self` is marked, as of a struct passed on whole
        if self.mode == Mode::Scalar
            && let Some(receiver) = self.held_whole(&call.receiver)
            && self.call_results.contains(&receiver)
        {
            return Some(self.method_on_whole(receiver, call));
        }
        if let Some(escape) = self.escape_in_receivers(&call.receiver) {
            // `x.to_vec().into_iter().fold(..)`: the value taken out as data is the error
            // to fix; the method after it would compute on a constant even were it known
            validate::escape(self.cx, escape);
        } else if self.mode == Mode::Scalar && self.active_struct_literal(&call.receiver).is_some()
        {
            // `Blend { a, b }.mix(x)`: the literal is what is not differentiated (the
            // method may well be annotated): the struct's message, at the literal
            validate::unsupported_expr(self.cx, strip_reference(strip_parens(&call.receiver)));
        } else {
            // `chain.max_by(..).unwrap()`: the method without a rule is the receiver's,
            // whose message says what to write instead
            let mut unknown = call;
            while let Expr::MethodCall(inner) = strip_parens(&unknown.receiver)
                && matches!(
                    unknown.method.to_string().as_str(),
                    "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default"
                )
                && validate::is_reduction_by(&inner.method.to_string())
            {
                unknown = inner;
            }
            validate::unknown_method(self.cx, &unknown.method, self.mode);
        }
        Self::poisoned(&Expr::MethodCall(call.clone()))
    }

    /// The first method of a chain of receivers (`x.to_vec().into_iter()`) that turns a
    /// differentiable value into plain data, reading the chain from its end.
    fn escape_in_receivers<'e>(&self, mut expr: &'e Expr) -> Option<&'e Ident> {
        while let Expr::MethodCall(call) = strip_parens(expr) {
            if vocabulary::cuts_the_tape(&call.method.to_string())
                && self.mentions_active(&call.receiver)
            {
                return Some(&call.method);
            }
            expr = &call.receiver;
        }
        None
    }

    /// The float methods of two or three operands, any of them active: the elementwise
    /// binary rows (`x.atan2(y)`, `x.max(y)`, `x.powf(y)` with `y` active...), and
    /// `x.mul_add(a, b)` and `x.clamp(lo, hi)`, lowered to the ops TensorFlow would record
    /// (`x * a + b`; `maximum(minimum(x, hi), lo)`, whose gradient is 1 at a bound).
    fn build_float_method(
        &mut self,
        call: &syn::ExprMethodCall,
        name: &str,
        args_active: bool,
    ) -> Option<Op> {
        let args: Vec<&Expr> = call.args.iter().collect();
        let method = |name: &str| Ident::new(name, call.method.span());
        match (name, args.as_slice()) {
            ("copysign", [sign]) if self.mode == Mode::Scalar => {
                // `x.copysign(s)` is `±x`: `x` times the constant `±1` that says whether
                // the sign bits of `x` and the result differ (the same bits as std's, NaN
                // signs included: `±x` is exact). Its derivative is that factor in `x`
                // (at `x = ±0`, that of the side the sign bit is on) and zero in `s`,
                // piecewise constant as `signum` is.
                if !self.mentions_active(&call.receiver) {
                    // only the sign is differentiable: a constant
                    return Some(Op::Copy {
                        value: Operand::Inactive(Expr::MethodCall(call.clone())),
                        clone: false,
                    });
                }
                let x = self.lower_operand(&call.receiver);
                let x = self.named(x);
                let fwd = x.fwd();
                let flip = Operand::Inactive(syn::parse_quote!(
                    (#fwd.copysign(#sign).signum() * #fwd.signum())
                ));
                Some(Op::Binary {
                    kind: BinaryKind::Mul,
                    lhs: x,
                    rhs: flip,
                })
            }
            (_, [arg]) => {
                let row = vocabulary::binary_method(name, args_active)?;
                let lhs = self.lower_operand(&call.receiver);
                let rhs = self.lower_operand(arg);
                let method = call.method.clone();
                Some(Op::Binary {
                    kind: BinaryKind::Method { method, row },
                    lhs,
                    rhs,
                })
            }
            ("mul_add", [a, b]) => {
                let (mut x, mut a) = (self.lower_operand(&call.receiver), self.lower_operand(a));
                // On numbers the sum's value is the fused one, which reads `x` and `a`
                // again: each is a name or a constant, or bound to one first.
                let fused = matches!(self.mode, Mode::Scalar);
                if fused {
                    x = self.named(x);
                    a = self.named(a);
                }
                let product = self.emit_temp(Op::Binary {
                    kind: BinaryKind::Mul,
                    lhs: x.clone(),
                    rhs: a.clone(),
                });
                let rhs = self.lower_operand(b);
                let kind = if fused {
                    BinaryKind::FusedMulAdd(Box::new((x, a)))
                } else {
                    BinaryKind::Add
                };
                Some(Op::Binary {
                    kind,
                    lhs: product,
                    rhs,
                })
            }
            ("fract", []) => {
                // `x − x.trunc()`, as std computes it (the same bits): derivative 1, the
                // truncation a constant, as `trunc` is. The receiver is read twice: a name.
                let x = self.lower_operand(&call.receiver);
                let x = self.named(x);
                let fwd = x.fwd();
                let whole = Operand::Inactive(syn::parse_quote!(#fwd.trunc()));
                Some(Op::Binary {
                    kind: BinaryKind::Sub,
                    lhs: x,
                    rhs: whole,
                })
            }
            ("clamp" | "clip_by_value", [lo, hi]) => {
                // f64 has `min`/`max`, tensors `minimum`/`maximum`
                let (min, max) = match self.mode {
                    Mode::Scalar => ("min", "max"),
                    Mode::Tensor => ("minimum", "maximum"),
                };
                let x = self.lower_operand(&call.receiver);
                let hi = self.lower_operand(hi);
                let kind = BinaryKind::Method {
                    method: method(min),
                    row: "minimum",
                };
                let below = self.emit_temp(Op::Binary {
                    kind,
                    lhs: x,
                    rhs: hi,
                });
                let lo = self.lower_operand(lo);
                let kind = BinaryKind::Method {
                    method: method(max),
                    row: "maximum",
                };
                Some(Op::Binary {
                    kind,
                    lhs: below,
                    rhs: lo,
                })
            }
            _ => None,
        }
    }

    fn build_call(&mut self, call: &syn::ExprCall) -> Option<Op> {
        if is_stop_gradient(call) {
            return None;
        }
        let Expr::Path(func) = &*call.func else {
            validate::unnamed_call(self.cx, &call.func);
            return Self::poisoned(&Expr::Call(call.clone()));
        };
        if self.mode == Mode::Scalar && self.calls_a_value(&func.path) {
            validate::call_of_a_value(self.cx, &func.path, false);
            return Self::poisoned(&Expr::Call(call.clone()));
        }
        if self.mode == Mode::Scalar
            && crate::syntax::is_associated(&func.path)
            && !crate::syntax::is_annotated_associated(&func.path)
        {
            // `Cell::new(x)`, `Vec::from(x)`: no companion item can be reached by this
            // path (an annotated method's are `value.f_vjp(..)`); it would be rustc's
            // "cannot find module `new`"
            validate::associated_call(self.cx, &func.path);
            return Self::poisoned(&Expr::Call(call.clone()));
        }
        if crate::syntax::is_constructor(&func.path) {
            // `Some(x)`, `Point(x, y)`: the value would be stored where the adjoint
            // cannot follow it (regression: it became a call of `Some::vjp`, E0433)
            validate::stored_in_constructor(self.cx, &func.path, self.mode);
            return Self::poisoned(&Expr::Call(call.clone()));
        }
        match self.mode {
            Mode::Tensor => {
                self.strict_tensor_call(&func.path);
                Some(self.build_trace(&Expr::Call(call.clone())))
            }
            // a plain helper writing an array is rejected with the helpers' error
            // (`plain_helper_array`), below
            Mode::Scalar
                if self.calls.plain_helper(&func.path).is_none()
                    && (self.writes_arrays(call) || self.function_passes_on_lendable(call)) =>
            {
                self.build_writing_call(Writer::Function(call))
            }
            Mode::Scalar => {
                let callee = self.callee(&func.path);
                let (callee, args) = self.lower_gathered_args(callee, &call.args);
                if let Callee::Plain(_) = callee {
                    self.check_plain_arguments(&func.path, &args)?;
                }
                Some(Op::Call { func: callee, args })
            }
        }
    }

    /// Whether `path` names a value of the body (a parameter or a user's local: a closure
    /// or a function pointer), which shadows any function of that name, rather than a
    /// function. The lowering's own temporaries (`t0`, bound with no key) do not count: a
    /// user's function may share their spelling (regression: `t0(a)` was taken for a
    /// value).
    fn calls_a_value(&self, path: &syn::Path) -> bool {
        path.get_ident()
            .and_then(|ident| self.lookup(ident))
            .is_some_and(|id| id < self.param_count || self.keys[id].is_some())
    }

    /// Whom a call by `path` reaches (scalar mode): a plain helper named in `plain(..)`
    /// (the macro's error in strict mode, which allows no fallback), or else an annotated
    /// function, whose companion items the generated code calls.
    fn callee(&self, path: &syn::Path) -> Callee {
        if let Some(function) = option_twin_of(path) {
            return Callee::Option(function);
        }
        match self.calls.plain_helper(path) {
            Some(_) => {
                if self.calls.strict.is_some() {
                    validate::strict_plain_helper(self.cx, path);
                }
                Callee::Plain(path.clone())
            }
            None if crate::syntax::is_annotated_associated(path) => {
                Callee::Associated(path.clone())
            }
            None => Callee::Function(path.clone()),
        }
    }

    /// A plain helper's differentiable arguments must be numbers (dual numbers replace
    /// them); with none, the call is a constant, computed as written (`None`).
    fn check_plain_arguments(&self, path: &syn::Path, args: &[Operand]) -> Option<()> {
        let mut active = false;
        for arg in args {
            if let Some(binding) = arg.binding() {
                active = true;
                if self.bindings[binding].array || self.bindings[binding].whole {
                    validate::plain_helper_array(self.cx, path, arg.fwd());
                }
            }
        }
        active.then_some(())
    }

    /// In strict mode, a tensor-mode call must reach an annotated function, whose fused node
    /// the sub-tape records: a plain one would record op by op. Checked as every call of a
    /// companion item is (`ir::resolved_callee`: the runtime's "not annotated" message at
    /// the name); a plain helper named in `plain(..)` is the macro's error.
    fn strict_tensor_call(&mut self, path: &syn::Path) {
        if self.calls.strict.is_none() {
            return;
        }
        if self.calls_a_value(path) {
            validate::call_of_a_value(self.cx, path, true);
            return;
        }
        if self.calls.plain_helper(path).is_some() {
            validate::strict_plain_helper(self.cx, path);
            return;
        }
        let check = match crate::model::ir::resolved_callee(path, 0, false) {
            Some((check, _)) => quote::quote!({ #check }),
            // a path with generic arguments cannot be imported: name an item only an
            // annotated function has
            None => quote::quote!(let _ = #path::GENERATED;),
        };
        self.push(Stmt::Plain(check));
    }

    /// The arguments of a call of another annotated function (scalar mode). An active
    /// array passed whole is an operand naming the array: the callee's pullback gives its
    /// cotangent whole, which the adjoint adds into the shadow, and its `jvp_call` reads
    /// the array's tangent shadow.
    /// A call's operands, a struct literal of differentiable values among its arguments
    /// (`step(&State { x: a, v: b }, dt)`) given field by field: the callee then rebuilds
    /// the struct from them ([`Callee::Gathered`]). Only an annotated function's call (a
    /// plain helper, a method or an associated function keeps its arguments, and the
    /// literal is rejected as any struct of differentiable values).
    fn lower_gathered_args(
        &mut self,
        callee: Callee,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> (Callee, Vec<Operand>) {
        let gathered = matches!(callee, Callee::Function(_) | Callee::Associated(_))
            && args
                .iter()
                .any(|arg| self.active_struct_literal(arg).is_some());
        if !gathered {
            return (callee, self.lower_call_args(args));
        }
        let (shapes, operands) = self.gather_args(args);
        (Callee::Gathered(Box::new(callee), shapes), operands)
    }

    /// A method's call of a constant receiver (another annotated method): the receiver
    /// first (a constant operand), then the arguments, a struct literal among them given
    /// field by field as a function's ([`lower_gathered_args`](Self::lower_gathered_args)).
    fn method_callee_args(&mut self, call: &syn::ExprMethodCall) -> (Callee, Vec<Operand>) {
        let receiver = Operand::Inactive((*call.receiver).clone());
        let callee = Callee::Method(call.method.clone());
        if !call
            .args
            .iter()
            .any(|arg| self.active_struct_literal(arg).is_some())
        {
            let args = self.lower_call_args(&call.args);
            return (callee, std::iter::once(receiver).chain(args).collect());
        }
        let (shapes, operands) = self.gather_args(&call.args);
        (
            Callee::Gathered(
                Box::new(callee),
                std::iter::once(ArgShape::One).chain(shapes).collect(),
            ),
            std::iter::once(receiver).chain(operands).collect(),
        )
    }

    /// A struct literal of differentiable values given field by field
    /// ([`Callee::Gathered`]): its shape, and one operand per field, in the literal's
    /// order, as Rust evaluates its fields.
    fn gathered_literal(
        &mut self,
        literal: &syn::ExprStruct,
        by_ref: bool,
    ) -> (ArgShape, Vec<Operand>) {
        let shape = ArgShape::Struct {
            path: literal.path.clone(),
            members: literal.fields.iter().map(|f| f.member.clone()).collect(),
            by_ref,
        };
        // a field holding a whole differentiable array (`w: m_w` of a split local struct,
        // or a literal `w: [x[0], x[1]]`, bound to a fresh local) is an array operand, whose entry
        // (`Option<[F; N]>`) adds into the array's shadow as any array passed whole
        let operands = literal
            .fields
            .iter()
            .map(|field| match self.whole_array_arg(&field.expr) {
                // a copy into the literal: the caller's array (a `Vec` too) stays its own,
                // as the struct it stands for was only borrowed
                Some(binding) => {
                    let expr = &field.expr;
                    Operand::Active {
                        binding,
                        fwd: syn::parse_quote!(::core::clone::Clone::clone(&#expr)),
                    }
                }
                None => self
                    .array_literal_arg(&field.expr)
                    .unwrap_or_else(|| self.lower_operand(&field.expr)),
            })
            .collect();
        (shape, operands)
    }

    /// The shapes and operands of a call's arguments, each struct literal of
    /// differentiable values given field by field.
    fn gather_args(
        &mut self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> (Vec<ArgShape>, Vec<Operand>) {
        let mut shapes = Vec::new();
        let mut operands = Vec::new();
        for arg in args {
            match self.active_struct_literal(arg) {
                Some((literal, by_ref)) => {
                    let (shape, fields) = self.gathered_literal(literal, by_ref);
                    shapes.push(shape);
                    operands.extend(fields);
                }
                None => {
                    shapes.push(ArgShape::One);
                    operands.extend(self.lower_call_args([arg]));
                }
            }
        }
        (shapes, operands)
    }

    /// A call's argument that is a struct literal naming its every field (no `..base`),
    /// reading differentiable values, by value or borrowed (`&S { .. }`): the literal and
    /// whether it is borrowed.
    fn active_struct_literal<'e>(&self, arg: &'e Expr) -> Option<(&'e syn::ExprStruct, bool)> {
        let (expr, by_ref) = match strip_parens(arg) {
            Expr::Reference(reference) if reference.mutability.is_none() => {
                (strip_parens(&reference.expr), true)
            }
            other => (other, false),
        };
        match expr {
            Expr::Struct(literal)
                if literal.rest.is_none()
                    && literal.qself.is_none()
                    && self.mentions_active(expr) =>
            {
                Some((literal, by_ref))
            }
            _ => None,
        }
    }

    fn lower_call_args<'e>(&mut self, args: impl IntoIterator<Item = &'e Expr>) -> Vec<Operand> {
        args.into_iter()
            .map(|arg| {
                if let Some(binding) = self.whole_struct_arg(arg) {
                    return Operand::Active {
                        binding,
                        fwd: arg.clone(),
                    };
                }
                if let Some(binding) = self.whole_array_arg(arg) {
                    return Operand::Active {
                        binding,
                        fwd: arg.clone(),
                    };
                }
                if let Some(part) = self.copied_part(arg) {
                    let name = self.bindings[part].name.clone();
                    return Operand::Active {
                        binding: part,
                        fwd: syn::parse_quote!(&#name),
                    };
                }
                if let Some(operand) = self.array_literal_arg(arg) {
                    return operand;
                }
                // `&mut a` (or a part, `&mut a[1..]`) where no writing call is lowered
                if let Expr::Reference(reference) = strip_parens(arg)
                    && let Some(mutability) = &reference.mutability
                    && (self.array_target(&reference.expr).is_some()
                        || matches!(strip_parens(&reference.expr), Expr::Index(index)
                            if self.array_target(&index.expr).is_some()))
                {
                    validate::array_output_argument(self.cx, mutability);
                    return Operand::Inactive(arg.clone());
                }
                self.lower_operand(arg)
            })
            .collect()
    }

    /// The array an argument passes `&mut`, if any: whole (`&mut a`, `&mut a[..]`, `&mut
    /// *out` of a `&mut` parameter), or a part of a flat array given by a range (`&mut
    /// a[i..j]`, `&mut a[i..]`, `&mut a[..j]`, `&mut a[i..=j]`), with that range. A part of
    /// an array of rows is none (the call is rejected as its argument).
    fn written_array_arg(&self, arg: &Expr) -> Option<(BindingId, Option<syn::ExprRange>)> {
        let Expr::Reference(reference) = strip_parens(arg) else {
            return None;
        };
        reference.mutability?;
        let inner = match strip_parens(&reference.expr) {
            Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => strip_parens(&unary.expr),
            other => other,
        };
        let Expr::Index(index) = inner else {
            return Some((self.array_target(inner)?, None));
        };
        let Expr::Range(range) = strip_parens(&index.index) else {
            return None;
        };
        let binding = self.array_target(&index.expr)?;
        if range.start.is_none() && range.end.is_none() {
            return Some((binding, None));
        }
        if self.bindings[binding].row.is_some() {
            return None;
        }
        Some((binding, Some(range.clone())))
    }

    /// Whether a method call passes a float array as `&mut` to a method of a constant
    /// receiver: a call of an annotated method writing it (`self.apply(&x, &mut out);`).
    fn method_writes_arrays(&self, call: &syn::ExprMethodCall) -> bool {
        // a constant receiver, or a differentiable struct the method marks `self` of
        (!self.mentions_active(&call.receiver) || self.struct_receiver(call).is_some())
            && call
                .args
                .iter()
                .any(|arg| self.written_array_arg(arg).is_some())
    }

    /// Whether a call statement passes a float array as `&mut` to a named function: a
    /// call of an annotated function writing it (`f(&x, &mut out);`).
    fn writes_arrays(&self, call: &syn::ExprCall) -> bool {
        callee_path(call).is_some()
            && call
                .args
                .iter()
                .any(|arg| self.written_array_arg(arg).is_some())
    }

    /// The `&mut` float array parameter an argument names as it is (`y`, which Rust
    /// reborrows implicitly: `step(x, s, y);` of `y: &mut [f64]`), if any.
    fn passed_on_written(&self, arg: &Expr) -> Option<BindingId> {
        let binding = self.lookup(single_ident(strip_parens(arg))?)?;
        self.written.contains(&binding).then_some(binding)
    }

    /// Whether a binding passed on as it is can be lent as the callee's parameter takes it
    /// (`generated::lend`): a flat array or one of fixed rows, whose shadow is flat either
    /// way. A ragged array of rows is not.
    fn is_lendable(&self, binding: BindingId) -> bool {
        !self.bindings[binding].ragged
    }

    /// Whether a call whose value is used passes on one of the caller's `&mut [F]` (or
    /// `&mut [[F; N]]`) parameters as it is (`let e = w(x, y);`, `total(y, z)`, `w(x, y, &mut out)`): a
    /// writing call ([`Written::passed_on`]), each such parameter written or read as the
    /// callee's types say. Not for a struct result read by field (`f(x, y).v`) nor a
    /// struct literal passed whole, which keep their own forms (reading `y`).
    fn passes_on_lendable<'e>(&self, mut args: impl Iterator<Item = &'e Expr> + Clone) -> bool {
        self.struct_fields.is_none()
            && !args
                .clone()
                .any(|arg| self.active_struct_literal(arg).is_some())
            && args.any(|arg| {
                self.passed_on_written(arg)
                    .is_some_and(|b| self.is_lendable(b))
            })
    }

    /// [`passes_on_lendable`](Self::passes_on_lendable) of a call of a named function (no plain
    /// helper).
    fn function_passes_on_lendable(&self, call: &syn::ExprCall) -> bool {
        callee_path(call).is_some_and(|path| self.calls.plain_helper(path).is_none())
            && self.passes_on_lendable(call.args.iter())
    }

    /// [`passes_on_lendable`](Self::passes_on_lendable) of a method call, under
    /// [`method_passes_on`](Self::method_passes_on)'s conditions.
    fn method_passes_on_lendable(&self, call: &syn::ExprMethodCall) -> bool {
        self.method_passes_on(call) && self.passes_on_lendable(call.args.iter())
    }

    /// [`passes_on_written`](Self::passes_on_written) of a method call statement
    /// (`self.update(y);`), under [`method_passes_on`](Self::method_passes_on)'s
    /// conditions on the receiver and the method.
    fn method_passes_on_written(&self, call: &syn::ExprMethodCall) -> bool {
        self.method_passes_on(call)
            && call
                .args
                .iter()
                .any(|arg| self.passed_on_written(arg).is_some())
    }

    /// Whether a method call may be an annotated method's given a `&mut` parameter as it
    /// is: scalar mode, a constant receiver that is no array, and a method that stores no
    /// argument.
    fn method_passes_on(&self, call: &syn::ExprMethodCall) -> bool {
        self.mode == Mode::Scalar
            && !self.mentions_active(&call.receiver)
            && self.array_target(&call.receiver).is_none()
            && self.struct_receiver(call).is_none()
            && !vocabulary::stores_argument(&call.method.to_string())
    }

    /// Whether a call statement of a named function passes on a `&mut` float array
    /// parameter as it is (`step(x, s, y);`): a call of an annotated function writing it,
    /// as `&mut y` would be, or reading it ([`Written::passed_on`]), beside other written
    /// arrays too.
    fn passes_on_written(&self, call: &syn::ExprCall) -> bool {
        callee_path(call).is_some_and(|path| self.calls.plain_helper(path).is_none())
            && call
                .args
                .iter()
                .any(|arg| self.passed_on_written(arg).is_some())
    }

    /// `f(&x, &mut out);` of another annotated function writing `out` (scalar mode), as a
    /// statement: [`writing_call`](Self::writing_call), or plain code if nothing it reads
    /// or writes is active.
    fn lower_writing_call(&mut self, call: Writer, expr: &Expr, semi: Option<syn::token::Semi>) {
        if !self.writing_call(call, Wanted::Nothing) {
            self.check_inactive(expr);
            self.push(Stmt::Plain(quote!(#expr #semi)));
        }
    }

    /// `std::mem::swap(&mut a, &mut b);` (or `core::mem::swap`, `mem::swap`) of two
    /// locals that are no arrays, one of them differentiable: the places and values of the
    /// tuple assignment `(a, b) = (b, a);` it is (each read before either is written).
    /// Arrays go to [`swaps`](Self::swaps).
    fn scalar_swap(&self, expr: &Expr) -> Option<(Expr, Expr)> {
        let Expr::Call(call) = expr else {
            return None;
        };
        let Expr::Path(func) = &*call.func else {
            return None;
        };
        if !is_mem_swap(&func.path, false) || call.args.len() != 2 {
            return None;
        }
        let mut names = Vec::new();
        for arg in &call.args {
            let Expr::Reference(reference) = strip_parens(arg) else {
                return None;
            };
            reference.mutability?;
            let name = single_ident(strip_parens(&reference.expr))?;
            let binding = self.lookup(name)?;
            if self.bindings[binding].array || self.bindings[binding].whole {
                return None;
            }
            names.push((name, binding));
        }
        let [(a, first), (b, second)] = names[..] else {
            return None;
        };
        if a == b || !(self.bindings[first].active || self.bindings[second].active) {
            return None;
        }
        Some((syn::parse_quote!((#a, #b)), syn::parse_quote!((#b, #a))))
    }

    /// `std::mem::swap(&mut a, &mut b);` (or `mem::swap`, `swap`) of two float arrays of
    /// which one is active: both are active from their declarations on (lowered again if
    /// one was not), and the statement is a [`Stmt::Swap`]. `true` if it is one.
    fn swaps(&mut self, call: &syn::ExprCall, written: &[(usize, BindingId)]) -> bool {
        let Expr::Path(func) = &*call.func else {
            return false;
        };
        let swap = is_mem_swap(&func.path, true);
        let [(0, a), (1, b)] = written[..] else {
            return false;
        };
        if !swap || call.args.len() != 2 || a == b {
            return false;
        }
        let row = |binding: BindingId| self.bindings[binding].row.as_ref().map(ToString::to_string);
        if row(a) != row(b) {
            return false;
        }
        let mut both = true;
        for (k, binding) in [(0, a), (1, b)] {
            if !self.bindings[binding].active {
                both = false;
                self.activate(binding, &call.args[k]);
            }
        }
        if both {
            self.push(Stmt::Swap {
                a,
                b,
                code: quote!(#call;),
            });
        }
        true
    }

    /// A call writing arrays of the standard library (`std::mem::take(&mut a)`,
    /// `mem::replace`; `swap` of two arrays is [`swaps`](Self::swaps)'): it has no `vjp`,
    /// and emptying or replacing an active array would need its shadow moved too. The
    /// macro's error rather than rustc's "cannot find `vjp`".
    fn library_writer(&self, call: &syn::ExprCall) -> bool {
        let Expr::Path(func) = &*call.func else {
            return false;
        };
        let segments = crate::syntax::segment_names(&func.path);
        let library = matches!(
            segments.first().map(String::as_str),
            Some("std" | "core" | "alloc")
        ) || matches!(
            segments.iter().rev().nth(1).map(String::as_str),
            Some("mem" | "ptr")
        ) || (segments.len() == 1
            && matches!(segments[0].as_str(), "swap" | "take" | "replace"));
        if library {
            validate::library_array_writer(self.cx, &func.path);
        }
        library
    }

    /// The result of the [`Stmt::CallWrites`] that `writing_call` just pushed (`pushed`), if
    /// it pushed one: the statement is the current block's last.
    fn pushed_call_result(&self, pushed: bool) -> Option<&CallResult> {
        match self.blocks.last()?.stmts.last() {
            Some(Stmt::CallWrites { result, .. }) if pushed => Some(result),
            _ => None,
        }
    }

    /// `let e = f(&x, &mut out);`: the call's value, in the temporary its
    /// [`Stmt::CallWrites`] declares (or the call as written, in a round lowered again).
    fn build_writing_call(&mut self, call: Writer) -> Option<Op> {
        let pushed = self.writing_call(call, Wanted::Value);
        let Some(CallResult::Value(result)) = self.pushed_call_result(pushed) else {
            // nothing active, lowered again, or reported (a library function)
            return Self::poisoned(&call.expr());
        };
        let (binding, name) = (*result, self.bindings[*result].name.clone());
        Some(Op::Copy {
            value: Operand::Active {
                binding,
                fwd: syn::parse_quote!(#name),
            },
            clone: false,
        })
    }

    /// The writer's call that writes an array result into the local array `array`
    /// (`array_calls`), if `value` (a call's) reads a differentiable value: a function's
    /// through its companion, `cross::__gradtape_write(a, b, &mut c)` (`Callee::Writer`),
    /// an annotated `impl` block's associated function's beside it,
    /// `Geometry::__gradtape_write_cross(a, b, &mut c)` (`Callee::Associated`), a
    /// constant receiver's method's on it, `spring.__gradtape_write_force(x, &mut f)`
    /// (`Callee::Method`). `None` (the `let` as written, a constant) otherwise.
    fn array_result_writer(&self, value: &Expr, array: &Ident) -> Option<syn::Stmt> {
        let out: Expr = syn::parse_quote!(&mut #array);
        let writer = |name: &Ident| {
            format_ident!(
                "{}_{}",
                crate::array_calls::WRITER,
                name,
                span = name.span()
            )
        };
        match strip_parens(value) {
            Expr::Call(call) if self.mentions_active(value) => {
                let Expr::Path(func) = &*call.func else {
                    return None;
                };
                let mut path = func.path.clone();
                let last = path.segments.last_mut().expect("a path");
                if crate::syntax::is_associated(&func.path) {
                    last.ident = writer(&last.ident);
                } else {
                    let span = last.ident.span();
                    path.segments
                        .push(Ident::new(crate::array_calls::WRITER, span).into());
                }
                let mut args = call.args.clone();
                args.push(out);
                Some(syn::parse_quote!(#path(#args);))
            }
            // (a differentiable struct receiver, `p.velocity(dt)` of a marked `p`, is an
            // operand of the writer's call, `writing_call`)
            Expr::MethodCall(call)
                if (!self.mentions_active(&call.receiver)
                    && call.args.iter().any(|arg| self.mentions_active(arg)))
                    || self.struct_receiver(call).is_some() =>
            {
                let mut call = call.clone();
                call.method = writer(&call.method);
                call.args.push(out);
                Some(syn::parse_quote!(#call;))
            }
            _ => None,
        }
    }

    /// A call of another annotated function writing arrays passed `&mut` (scalar mode): a
    /// [`Stmt::CallWrites`], its value as `wanted`. Each array it
    /// writes becomes active when anything it reads is (the callee's writes carry
    /// derivatives into it). `false` (nothing pushed) if nothing it reads or writes is
    /// active, or the arrays it writes were just made active (the round is lowered again).
    fn writing_call(&mut self, call: Writer, wanted: Wanted) -> bool {
        // A method's receiver is its first operand, a constant (`self`, a struct).
        let (func, mut args, function) = match call {
            Writer::Function(function) => {
                let Expr::Path(func) = &*function.func else {
                    unreachable!("checked by `writes_arrays`")
                };
                let callee = if let Some(function) = writer_of(&func.path) {
                    Callee::Writer(function)
                } else if let Some(function) = option_twin_of(&func.path) {
                    Callee::Option(function)
                } else if crate::syntax::is_annotated_associated(&func.path) {
                    Callee::Associated(func.path.clone())
                } else {
                    Callee::Function(func.path.clone())
                };
                (callee, Vec::new(), Some(function))
            }
            Writer::Method(method) => {
                // a differentiable struct receiver (a marked parameter passed on whole, a
                // struct result held whole) is an operand of its own, its cotangent the
                // method's entry for its marked `self` (as `method_on_whole`'s)
                let receiver = match self.struct_receiver(method) {
                    Some(binding) => Operand::Active {
                        binding,
                        fwd: (*method.receiver).clone(),
                    },
                    None => Operand::Inactive((*method.receiver).clone()),
                };
                (Callee::Method(method.method.clone()), vec![receiver], None)
            }
        };
        let offset = args.len();
        // how the operands make the callee's arguments: a struct literal of differentiable
        // values is one operand per field (`Callee::Gathered`), as for a call of a value
        let mut shapes = vec![ArgShape::One; offset];
        // the argument each operand is of (a written array's, for its messages)
        let mut argument_of: Vec<usize> = Vec::new();
        let call_args = call.args();
        // a `&mut` parameter passed on as it is: written or read ([`Written::passed_on`]),
        // the callee's types choosing; beside other written arrays too, its pullback then
        // taking the shadows the flags `generated::lend` records say (`PassedOnMany`)
        // (of rows too; a ragged array is never a `&mut` parameter: rejected as an output)
        // (a struct result read by field, `f(x, y).v`, and a struct literal passed whole
        // keep their own forms, which read it, or a statement writes it)
        let statement = matches!(wanted, Wanted::Nothing);
        let may_pass_on = self.struct_fields.is_none()
            && !call_args
                .iter()
                .any(|arg| self.active_struct_literal(arg).is_some());
        let mut written = Vec::new();
        let mut passed_on = Vec::new();
        for (k, arg) in call_args.iter().enumerate() {
            let explicit = self.written_array_arg(arg);
            let bare = self.passed_on_written(arg);
            let lendable = may_pass_on && bare.is_some_and(|b| self.is_lendable(b));
            if explicit.is_none() && lendable {
                passed_on.push(args.len());
            }
            let bare = bare
                .filter(|_| lendable || statement)
                .map(|binding| (binding, None));
            match explicit.or(bare) {
                Some((binding, range)) => {
                    written.push((args.len(), binding, range));
                    argument_of.push(k);
                    shapes.push(ArgShape::One);
                    args.push(Operand::Active {
                        binding,
                        fwd: arg.clone(),
                    });
                }
                None => match self.active_struct_literal(arg) {
                    Some((literal, by_ref)) => {
                        let (shape, fields) = self.gathered_literal(literal, by_ref);
                        shapes.push(shape);
                        argument_of.extend(fields.iter().map(|_| k));
                        args.extend(fields);
                    }
                    None => {
                        shapes.push(ArgShape::One);
                        let lowered = self.lower_call_args([arg]);
                        argument_of.extend(lowered.iter().map(|_| k));
                        args.extend(lowered);
                    }
                },
            }
        }
        // a struct literal gathered: the operands' positions are no argument positions
        // (`written` holds operand positions, which the generated code indexes by)
        let func = if shapes
            .iter()
            .any(|shape| matches!(shape, ArgShape::Struct { .. }))
        {
            Callee::Gathered(Box::new(func), shapes)
        } else {
            func
        };
        let reads_active = args
            .iter()
            .enumerate()
            .any(|(k, arg)| !written.iter().any(|&(w, ..)| w == k) && arg.binding().is_some());
        let writes_active = written.iter().any(|&(_, b, _)| self.bindings[b].active);
        if !reads_active && !writes_active {
            return false;
        }
        if let Some(function) = function {
            let whole: Vec<(usize, BindingId)> = written
                .iter()
                .filter(|(.., range)| range.is_none())
                .map(|&(k, b, _)| (k, b))
                .collect();
            if matches!(wanted, Wanted::Nothing)
                && whole.len() == written.len()
                && self.swaps(function, &whole)
            {
                return true;
            }
            if self.library_writer(function) {
                // reported: lowered no further
                return true;
            }
        }
        // An inactive array written from active values is active from its declaration on:
        // lowered again so (the `let mut` fixed point).
        let mut all_active = true;
        for &(k, binding, _) in &written {
            if !self.bindings[binding].active {
                all_active = false;
                // (a parameter that cannot be made active is reported)
                self.activate(binding, &call_args[argument_of[k - offset]]);
            }
        }
        if !all_active {
            return false;
        }
        let bounds = written.iter().filter_map(|(.., range)| range.as_ref());
        let bounds: Vec<&Expr> = bounds
            .flat_map(|range| [range.start.as_deref(), range.end.as_deref()])
            .flatten()
            .collect();
        if let Some(active) = bounds.into_iter().find(|bound| self.mentions_active(bound)) {
            validate::active_index(self.cx, active);
            return true;
        }
        let mut parts = Vec::new();
        for (position, binding, range) in written {
            let part = range.map(|range| {
                // The bounds in `usize` locals, evaluated once, before the call (as Rust
                // evaluates them, after the arguments before them), and the part passed as
                // their range: the adjoint and the tangent code reuse the same elements.
                let name = self.bindings[binding].name.clone();
                let (start, end) = crate::syntax::range_bounds(&range, &name);
                let (start, end) = (self.index_local(start), self.index_local(end));
                args[position] = Operand::Active {
                    binding,
                    fwd: syn::parse_quote!(&mut #name[#start..#end]),
                };
                WrittenPart { start, end }
            });
            parts.push(Written {
                position,
                part,
                passed_on: passed_on.contains(&position),
            });
        }
        let result = match wanted {
            Wanted::Nothing => CallResult::Dropped,
            Wanted::Value => CallResult::Value(self.temp()),
            Wanted::Parts(arity) => CallResult::Parts((0..arity).map(|_| self.temp()).collect()),
        };
        let id = self.fresh_id();
        self.push(Stmt::CallWrites {
            id,
            func,
            args,
            written: parts,
            result,
        });
        true
    }

    /// `let mut <binding> = <zeros>;`: a local array the lowering then fills element by
    /// element (a literal's values, a copy's reads).
    fn declare_zeros(&mut self, binding: BindingId, zeros: Expr) {
        self.bindings[binding].array = true;
        let id = self.fresh_id();
        self.push(Stmt::Def {
            id,
            target: Target::Let {
                binding,
                mutable: true,
                ty: None,
            },
            op: Op::Copy {
                value: Operand::Inactive(zeros),
                clone: false,
            },
        });
    }

    /// `binding` (named `ident`) made a local array of `zeros` and filled element by
    /// element, `for j in 0..len { ident[j] = read; }`: each read carries its element's
    /// cotangent back to where it was read (a part or a row copied whole).
    fn fill_copy(
        &mut self,
        binding: BindingId,
        zeros: Expr,
        ident: &Ident,
        j: &Ident,
        len: &Ident,
        read: &Expr,
    ) {
        self.declare_zeros(binding, zeros);
        let copy: syn::Stmt = syn::parse_quote! {
            for #j in 0..#len {
                #ident[#j] = #read;
            }
        };
        self.lower_stmts(&[copy], Tail::Discard);
    }

    /// Part of an active array passed to an annotated call, a row `&m[i]` of an array of
    /// rows or a range `&v[a..b]`: copied element by element into a local array first
    /// (`let mut part = [0.0; N]; for j in 0..N { part[j] = m[i][j]; }`), which is then
    /// passed whole. The copy's reads carry the callee's cotangent back into the array's
    /// shadow at the part's offset, with no new machinery; it costs a copy of the part
    /// (and for a range, an allocation). The part's bounds are evaluated once and checked
    /// first as the user's expression would (`let _ = &v[a..b];`), so a bad range panics
    /// as it would.
    fn copied_part(&mut self, arg: &Expr) -> Option<BindingId> {
        let Expr::Reference(reference) = strip_parens(arg) else {
            return None;
        };
        if reference.mutability.is_some() {
            return None;
        }
        let Expr::Index(index) = strip_parens(&reference.expr) else {
            return None;
        };
        let base = self.array_target(&index.expr)?;
        if !self.bindings[base].active || self.mentions_active(&index.index) {
            return None;
        }
        let (id, (start, len, j)) = self.copy_names("part");
        let array = &index.expr;
        let position = &index.index;
        // (`element_zero()`, not `0.0`: the elements may be of a generic float type)
        let generated = crate::generate::paths::generated();
        let (zeros, read): (Expr, Expr) =
            match (strip_parens(&index.index), &self.bindings[base].row) {
                (Expr::Range(range), None) => {
                    let (from, to) = crate::syntax::range_bounds(range, array);
                    // each bound evaluated once, then checked as `&v[a..b]` would be
                    self.push(Stmt::Plain(quote! {
                        let #start: usize = #from;
                        let #len: usize = #to;
                        let _ = &#array[#start..#len];
                        let #len: usize = #len - #start;
                    }));
                    (
                        syn::parse_quote!(::std::vec![#generated::element_zero(); #len]),
                        syn::parse_quote!(#array[#start + #j]),
                    )
                }
                (Expr::Range(_), Some(_)) => return None,
                (_, Some(_)) => self.row_source(base, array, position, (&start, &len, &j)),
                (_, None) => return None,
            };
        let ident = format_ident!("gradtape_part{id}");
        let part = self.bind(&ident, true, None);
        self.fill_copy(part, zeros, &ident, &j, &len, &read);
        Some(part)
    }

    /// The fixed-size array a value copies whole, `*a`, `a.clone()`, or `a` itself when
    /// the binding holds the array (not a reference to it, which `let m = a;` would copy
    /// as a reference): the array's binding, whatever its activity.
    fn fixed_source(&self, expr: &Expr) -> Option<BindingId> {
        let (inner, through_ref) = match strip_parens(expr) {
            Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => (&*unary.expr, true),
            Expr::MethodCall(call) if call.method == "clone" && call.args.is_empty() => {
                (&*call.receiver, true)
            }
            other => (other, false),
        };
        let binding = self.array_target(inner)?;
        let by_ref = *self.fixed.get(&binding)?;
        (through_ref || !by_ref).then_some(binding)
    }

    /// Writes every element of the fixed-size array `source` into `target` (both named as
    /// written), in lowered loops: `for j in 0..t.len() { t[j] = s[j]; }`, or over `i` and
    /// `j` for arrays of rows. Each write is an element write, so each element's cotangent
    /// flows back to the element it was read from, and the loops carry an integrator's
    /// `state = next;` like any other element writes in a loop. Invariant: the two have
    /// the same type (the body as written, `f::primal`, is compiled too), hence the same
    /// length, so the loops copy exactly the elements Rust's copy does.
    fn copy_elements(&mut self, target: &Expr, source: &Expr, rows: bool) {
        let (_, (i, _, j)) = self.copy_names("copy");
        let copy: syn::Stmt = if rows {
            syn::parse_quote! {
                for #i in 0..#target.len() {
                    for #j in 0..#target[#i].len() {
                        #target[#i][#j] = #source[#i][#j];
                    }
                }
            }
        } else {
            syn::parse_quote! {
                for #j in 0..#target.len() {
                    #target[#j] = #source[#j];
                }
            }
        };
        self.lower_stmts(&[copy], Tail::Discard);
    }

    /// `let m = *a;` (also `a.clone()`, or `a` of an array held by value) of a fixed-size
    /// float array, flat or of rows: a local array `m` starting as Rust's copy, each of
    /// whose elements is then written from `a`'s ([`copy_elements`](Self::copy_elements)),
    /// so that `m` is an array of its own whose cotangents flow back to `a`. Taken when the
    /// source is active, or when `m` is (a later `m = next;` of active values forces it).
    /// `let mut a = *a;`, shadowing the source, copies through a fresh local first (the
    /// new `a` would otherwise read itself in its copy loop). `false` (nothing lowered) for
    /// any other `let`.
    fn lower_array_copy(&mut self, ident: &Ident, key: DeclKey, init: &Expr) -> bool {
        let Some(source) = self.fixed_source(init) else {
            return false;
        };
        let data = &self.bindings[source];
        if data.ragged || !(data.active || self.forced.contains(&key)) {
            return false;
        }
        let row = data.row.clone();
        let source_name = data.name.clone();
        let init = strip_parens(init).clone();
        if source_name == *ident {
            let (id, _) = self.copy_names("whole");
            let through = format_ident!("gradtape_whole{id}");
            self.copy_into_new(&through, None, init, &source_name, &row);
            let init: Expr = syn::parse_quote!(#through);
            self.copy_into_new(ident, Some(key), init, &through, &row);
        } else {
            self.copy_into_new(ident, Some(key), init, &source_name, &row);
        }
        true
    }

    /// `let mut ident = init;`, then `ident`'s elements written from `source`'s: a new
    /// active local array of `row`'s shape (see [`lower_array_copy`](Self::lower_array_copy)).
    fn copy_into_new(
        &mut self,
        ident: &Ident,
        key: Option<DeclKey>,
        init: Expr,
        source: &Ident,
        row: &Option<TokenStream>,
    ) {
        let binding = self.bind(ident, true, key);
        self.bindings[binding].row = copied_row(row.clone(), ident);
        // The copy Rust makes, as the starting value (a constant: every element is
        // written below), so the local has the source's very type.
        self.declare_zeros(binding, init);
        self.fixed.insert(binding, false);
        let (target, source): (Expr, Expr) =
            (syn::parse_quote!(#ident), syn::parse_quote!(#source));
        self.copy_elements(&target, &source, row.is_some());
    }

    /// `m = next;` (also `m = *a;`, `m = a.clone()`) between fixed-size float arrays of the
    /// same shape: element by element ([`copy_elements`](Self::copy_elements)). `m = [a,
    /// b, c];` (or `[e; N]`, rows `[[a, b], [c, d]]`) into a fixed-size local array: the
    /// literal bound to a fresh local first, as Rust evaluates the value before the place
    /// (so `m = [m[1], m[0]];` swaps), then copied so. `false` (nothing lowered) for any
    /// other assignment, and when neither side is active (then it is plain data, left as
    /// written).
    fn lower_array_assign(&mut self, left: &Expr, right: &Expr) -> bool {
        let Some(target) = self.array_target(left) else {
            return false;
        };
        if !self.fixed.contains_key(&target) {
            return self.lower_vec_assign(target, left, right);
        }
        if self.fixed.get(&target) != Some(&false) {
            return false;
        }
        if matches!(strip_parens(right), Expr::Array(_) | Expr::Repeat(_)) {
            if !self.bindings[target].active && !self.mentions_active(right) {
                return false;
            }
            if !self.activate(target, left) {
                return true;
            }
            let (id, _) = self.copy_names("literal");
            let value = format_ident!("gradtape_literal{id}");
            let bind: syn::Stmt = syn::parse_quote!(let #value = #right;);
            self.lower_stmts(&[bind], Tail::Discard);
            let rows = self.bindings[target].row.is_some();
            let source: Expr = syn::parse_quote!(#value);
            self.copy_elements(strip_parens(left), &source, rows);
            return true;
        }
        let Some(source) = self.fixed_source(right) else {
            return false;
        };
        let (t, s) = (&self.bindings[target], &self.bindings[source]);
        if t.ragged || s.ragged || t.row.is_some() != s.row.is_some() {
            return false;
        }
        if !t.active && !s.active {
            return false;
        }
        let rows = t.row.is_some();
        let source_name = s.name.clone();
        // an active array stored into an inactive local makes the local active (lowered
        // again); reported if it is no local
        if !self.activate(target, left) {
            return true;
        }
        let source: Expr = syn::parse_quote!(#source_name);
        self.copy_elements(strip_parens(left), &source, rows);
        true
    }

    /// `state = next;` (also `next.clone()`) of a flat float `Vec` local from a flat float
    /// array of the body (the double buffer of every explicit integrator), or of a `Vec`
    /// of fixed-size rows from rows (`Vec<[F; C]>`, particles' positions), or of ragged
    /// rows from ragged rows (`Vec<Vec<F>>`, a grid double-buffered, each row's length
    /// checked too): checked to be of the same length, then copied element by element
    /// ([`copy_elements`](Self::copy_elements)), each element's cotangent flowing back to
    /// the element it was read from. Rust's assignment would resize `state` to `next`'s
    /// length; an element copy keeps `state`'s, so where they differ the generated code
    /// panics with a message naming both, never copying a part. `false` (nothing lowered)
    /// for any other assignment, and when neither side is active.
    fn lower_vec_assign(&mut self, target: BindingId, left: &Expr, right: &Expr) -> bool {
        let source = match strip_parens(right) {
            Expr::MethodCall(call) if call.method == "clone" && call.args.is_empty() => {
                self.array_target(&call.receiver)
            }
            other => self.array_target(other),
        };
        let Some(source) = source else {
            return false;
        };
        let (t, s) = (&self.bindings[target], &self.bindings[source]);
        // flat into flat, fixed-size rows into rows (`Vec<[F; C]>`: Rust gives both the
        // same row length, so only the number of rows can differ), or ragged rows into
        // ragged rows (`Vec<Vec<F>>`, a grid double-buffered: each row's length checked too)
        let rows = t.row.is_some();
        let ragged = t.ragged && s.ragged;
        if t.ragged != s.ragged || rows != s.row.is_some() || target == source {
            return false;
        }
        if !t.active && !s.active {
            return false;
        }
        let (target_name, source_name) = (t.name.clone(), s.name.clone());
        if !self.activate(target, left) {
            return true;
        }
        let message = format!(
            "#[differentiable] copies `{target_name} = {source_name};` of float `Vec`s element by element, which needs the same length ({{}} and {{}}); the function as written resizes `{target_name}`",
        );
        let check: syn::Stmt = syn::parse_quote! {
            assert!(
                #target_name.len() == #source_name.len(),
                #message,
                #target_name.len(),
                #source_name.len()
            );
        };
        self.lower_stmts(&[check], Tail::Discard);
        if ragged {
            let message = format!(
                "#[differentiable] copies `{target_name} = {source_name};` of `Vec`s of rows element by element, which needs rows of the same lengths (row {{}}: {{}} and {{}}); the function as written resizes `{target_name}`'s rows",
            );
            let (_, (i, _, _)) = self.copy_names("rows_checked");
            let check: syn::Stmt = syn::parse_quote! {
                for #i in 0..#target_name.len() {
                    assert!(
                        #target_name[#i].len() == #source_name[#i].len(),
                        #message,
                        #i,
                        #target_name[#i].len(),
                        #source_name[#i].len()
                    );
                }
            };
            self.lower_stmts(&[check], Tail::Discard);
        }
        let (target, source): (Expr, Expr) = (
            syn::parse_quote!(#target_name),
            syn::parse_quote!(#source_name),
        );
        self.copy_elements(&target, &source, rows);
        true
    }

    /// `m[i] = r;` (a row of an array of fixed-size rows, `[[F; N]; M]` or `&mut [[F; N]]`,
    /// written whole): the value first, as Rust evaluates it before the place, either a
    /// fixed-size flat array named as it is (`r`, `*r`, `r.clone()`) or anything else a
    /// local array can be made of (`[a, b, c]`, `m[k]`, `[e; N]`) bound to a fresh local;
    /// then row `i` (its index evaluated once and checked, as `m[i]` would be) written
    /// element by element from it, in a lowered loop, so each element's cotangent flows
    /// back to what it was computed from and an overwritten element's stops. Taking the
    /// value whole first keeps `m[i] = [m[i][1], m[i][0]];` a swap. Invariant: the two
    /// have the same length (the body as written, `f::primal`, is compiled too, and Rust
    /// assigns only `[F; N]` to a row `[F; N]`), so the loop writes exactly the row. A
    /// ragged row (`Vec<F>`, which an assignment may resize) is left to `whole_row`.
    /// `false` (nothing lowered) if `left` is no such row.
    fn lower_row_assign(&mut self, left: &Expr, right: &Expr, whole: &Expr) -> bool {
        let Some(row) = self.row_of(left) else {
            return false;
        };
        let Expr::Index(index) = strip_parens(row) else {
            return false;
        };
        let base = self.array_target(&index.expr).expect("a row's array");
        if self.bindings[base].ragged || self.mentions_active(&index.index) {
            return false;
        }
        if !self.bindings[base].active && !self.mentions_active(right) {
            // constants into a constant array: as written
            self.check_inactive(whole);
            self.push(Stmt::Plain(quote!(#whole;)));
            return true;
        }
        // an active row stored into an inactive local makes the local active (lowered
        // again); reported if it is no local
        if !self.activate(base, &index.expr) {
            return true;
        }
        let (id, (start, _, j)) = self.copy_names("row_put");
        let named = self
            .fixed_source(right)
            .filter(|&source| self.bindings[source].row.is_none())
            .map(|source| self.bindings[source].name.clone());
        let source = match named {
            Some(name) => name,
            None => {
                let value = format_ident!("gradtape_row_value{id}");
                let bind: syn::Stmt = syn::parse_quote!(let #value = #right;);
                self.lower_stmts(&[bind], Tail::Discard);
                let flat = self.lookup(&value).is_some_and(|binding| {
                    let data = &self.bindings[binding];
                    data.array && data.row.is_none() && !data.ragged
                });
                if !flat {
                    validate::whole_row(self.cx, row);
                    return true;
                }
                value
            }
        };
        let (array, position) = (&index.expr, &index.index);
        let put: Vec<syn::Stmt> = syn::parse_quote! {
            let #start: usize = #position;
            for #j in 0..#array[#start].len() {
                #array[#start][#j] = #source[#j];
            }
        };
        self.lower_stmts(&put, Tail::Discard);
        true
    }

    /// `let r = m[i];` (a row of an array of rows `[[F; N]; _]`, copied as Rust copies
    /// it), or `m[i].clone()` / `m[i].to_vec()` (also of a ragged array): a local array
    /// `r` filled by a lowered loop of element reads, as [`copied_part`](Self::copied_part)
    /// fills a row passed to a call, so `r[j]`, `r.len()`, its iterator forms and `&r`
    /// work as on any local array and each element's cotangent flows back to `m[i][j]`.
    /// The row's index is evaluated once and checked first, as `m[i]` would be. `false`
    /// (nothing lowered) for any other `let`.
    fn lower_row_copy(&mut self, ident: &Ident, key: DeclKey, init: &Expr) -> bool {
        let (row, copied) = match strip_parens(init) {
            Expr::MethodCall(call)
                if call.args.is_empty()
                    && matches!(call.method.to_string().as_str(), "clone" | "to_vec") =>
            {
                (strip_parens(&call.receiver), true)
            }
            other => (other, false),
        };
        let Some(row) = self.row_of(row) else {
            return false;
        };
        let Expr::Index(index) = strip_parens(row) else {
            return false;
        };
        let base = self.array_target(&index.expr).expect("a row's array");
        let ragged = self.bindings[base].ragged;
        // `let r = m[i];` of a ragged row moves a `Vec` out (rustc's error, left to it);
        // a `let` naming the array itself would read the copy in its own loop
        if !self.bindings[base].active
            || (ragged && !copied)
            || single_ident(strip_parens(&index.expr)).is_some_and(|array| array == ident)
            || self.mentions_active(&index.index)
        {
            return false;
        }
        let (_, (start, len, j)) = self.copy_names("row");
        let (array, position) = (&index.expr, &index.index);
        let (zeros, read) = self.row_source(base, array, position, (&start, &len, &j));
        let binding = self.bind(ident, true, Some(key));
        self.fill_copy(binding, zeros, ident, &j, &len, &read);
        true
    }

    /// A fresh number, and the names of a copy's first position, length and element index
    /// (`gradtape_<stem>_start<n>`, `_len<n>`, `_j<n>`).
    fn copy_names(&mut self, stem: &str) -> (usize, (Ident, Ident, Ident)) {
        let id = self.next_index;
        self.next_index += 1;
        let names = (
            format_ident!("gradtape_{stem}_start{id}"),
            format_ident!("gradtape_{stem}_len{id}"),
            format_ident!("gradtape_{stem}_j{id}"),
        );
        (id, names)
    }

    /// Row `position` of the array of rows `base` (written `array`), as a copy of it reads
    /// it: the row's index bound once to `start` and checked as `array[position]` would
    /// be, its length bound to `len`; the zeros of the copy (a `Vec` of the row's own
    /// length for a ragged array, `[0; N]` otherwise), and the read of its element `j`.
    fn row_source(
        &mut self,
        base: BindingId,
        array: &Expr,
        position: &Expr,
        (start, len, j): (&Ident, &Ident, &Ident),
    ) -> (Expr, Expr) {
        // (`element_zero()`, not `0.0`: the elements may be of a generic float type)
        let generated = crate::generate::paths::generated();
        let zeros: Expr = if self.bindings[base].ragged {
            self.push(Stmt::Plain(quote! {
                let #start: usize = #position;
                let #len: usize = #array[#start].len();
            }));
            syn::parse_quote!(::std::vec![#generated::element_zero(); #len])
        } else {
            let n = self.bindings[base].row.clone().expect("an array of rows");
            self.push(Stmt::Plain(quote! {
                let #start: usize = #position;
                let _ = &#array[#start];
                let #len: usize = #n;
            }));
            // a row's type read off the array's (`[F; N]`), not spelled `[zero; N]`: the
            // row length of a call's array of rows is no constant (`generated::row_len`)
            syn::parse_quote!(#generated::row_of_zeros(&#array[#start]))
        };
        (zeros, syn::parse_quote!(#array[#start][#j]))
    }

    /// An array literal of differentiable values passed whole (`norm([x[0], 2.0 * x[1]])`,
    /// `dot(&[a, b], w)`): a fresh local array holding it, lowered as `let t = [..];` is,
    /// where the argument stands (Rust evaluates the literal there too), passed in its
    /// place (by value or borrowed, as written). `None` for any other argument, and for a
    /// literal of constants (passed as written).
    fn array_literal_arg(&mut self, arg: &Expr) -> Option<Operand> {
        let (literal, by_ref) = match strip_parens(arg) {
            Expr::Reference(reference) if reference.mutability.is_none() => {
                (strip_parens(&reference.expr), true)
            }
            other => (other, false),
        };
        let Expr::Array(array) = literal else {
            return None;
        };
        if self.mode != Mode::Scalar || !self.mentions_active(literal) {
            return None;
        }
        let name = self.temp_name();
        let elems: Vec<Expr> = array.elems.iter().cloned().collect();
        self.lower_array_literal(&name, false, None, literal, &elems);
        let binding = self.lookup(&name)?;
        let fwd = if by_ref {
            syn::parse_quote!(&#name)
        } else {
            syn::parse_quote!(#name)
        };
        Some(Operand::Active { binding, fwd })
    }

    /// The struct passed on whole an argument passes (`s`, `&s`), if any.
    fn whole_struct_arg(&self, arg: &Expr) -> Option<BindingId> {
        let binding = self.active_binding(crate::syntax::strip_shared_borrow(arg).0)?;
        self.bindings[binding].whole.then_some(binding)
    }

    /// The active array an argument of an annotated call passes whole: `a`, `&a`,
    /// `&a[..]`, `a.clone()`, `a.to_vec()`, `a.as_slice()` (in parentheses or not).
    fn whole_array_arg(&self, arg: &Expr) -> Option<BindingId> {
        let (borrowed, shared) = crate::syntax::strip_shared_borrow(arg);
        let inner = match borrowed {
            // `&*y`: the same borrow as `&y` (a `&mut [F]` parameter reborrowed shared)
            Expr::Unary(unary) if shared && matches!(unary.op, UnOp::Deref(_)) => {
                strip_parens(&unary.expr)
            }
            Expr::Index(index)
                if matches!(strip_parens(&index.index), Expr::Range(range)
                    if range.start.is_none() && range.end.is_none()) =>
            {
                &index.expr
            }
            Expr::MethodCall(call)
                if call.args.is_empty()
                    && matches!(
                        call.method.to_string().as_str(),
                        "clone" | "to_vec" | "as_slice"
                    ) =>
            {
                &call.receiver
            }
            other => other,
        };
        let binding = self.array_target(inner)?;
        self.bindings[binding].active.then_some(binding)
    }

    fn build_trace(&mut self, expr: &Expr) -> Op {
        let mut inputs = Vec::new();
        let expr = match expr {
            Expr::MethodCall(call) => {
                let mut call = call.clone();
                call.receiver = Box::new(self.trace_input(&call.receiver, &mut inputs));
                for arg in call.args.iter_mut() {
                    *arg = self.trace_input(arg, &mut inputs);
                }
                Expr::MethodCall(call)
            }
            Expr::Call(call) => {
                let mut call = call.clone();
                for arg in call.args.iter_mut() {
                    *arg = self.trace_input(arg, &mut inputs);
                }
                Expr::Call(call)
            }
            other => other.clone(),
        };
        Op::Trace { expr, inputs }
    }

    /// An argument of a traced call, with active sub-expressions computed beforehand into
    /// temporaries; the active values it reads join `inputs`.
    fn trace_input(&mut self, expr: &Expr, inputs: &mut Vec<(BindingId, Expr)>) -> Expr {
        if !self.mentions_active(expr) {
            self.check_inactive(expr);
            return expr.clone();
        }
        if let Some(binding) = self.active_binding(expr) {
            if !inputs.iter().any(|(b, _)| *b == binding) {
                inputs.push((binding, expr.clone()));
            }
            return expr.clone();
        }
        match expr {
            Expr::Reference(reference) if reference.mutability.is_none() => {
                let inner = self.trace_input(&reference.expr, inputs);
                syn::parse_quote!(&#inner)
            }
            Expr::Paren(paren) => {
                let inner = self.trace_input(&paren.expr, inputs);
                syn::parse_quote!((#inner))
            }
            Expr::Array(array) => {
                let elems = array
                    .elems
                    .iter()
                    .map(|e| self.trace_input(e, inputs))
                    .collect::<Vec<_>>();
                syn::parse_quote!([#(#elems),*])
            }
            _ => match self.lower_operand(expr) {
                Operand::Active { binding, fwd } => {
                    if !inputs.iter().any(|(b, _)| *b == binding) {
                        inputs.push((binding, fwd.clone()));
                    }
                    fwd
                }
                Operand::Inactive(expr) => expr,
            },
        }
    }

    /// An expression reading a differentiable value with no adjoint: `vec![..]` of
    /// tensors in tensor mode is a collection the body would keep, the rest
    /// `validate::unsupported_expr`'s.
    fn reject(&self, expr: &Expr) {
        match strip_parens(expr) {
            Expr::Macro(mac) if self.mode == Mode::Tensor && mac.mac.path.is_ident("vec") => {
                validate::collection_of_tensors(self.cx, mac)
            }
            _ => validate::unsupported_expr(self.cx, expr),
        }
    }

    /// Checks code that is emitted as written (see [`validate::as_written`]).
    fn check_inactive(&self, expr: &Expr) {
        validate::as_written(self.cx, expr, &|e| self.mentions_active(e));
    }

    /// A condition runs as written (a constant): it may not write a differentiable
    /// value, which the adjoint would never see.
    fn check_condition(&self, cond: &Expr) {
        validate::condition_writes(self.cx, cond, &|e| self.mentions_active(e));
    }

    fn check_inactive_local(&self, local: &syn::Local) {
        validate::local_as_written(self.cx, local, &|e| self.mentions_active(e));
    }
}

/// `f32` or `f64`: a cast to it is differentiable (to any other type, a constant).
/// A conversion of one float into a float type the body names, which is a cast (a
/// float-to-float `NumCast` is `as`, num-traits' own definition): `T::from(v).unwrap()`,
/// `T::from(v).expect(..)`, `<T as NumCast>::from(v).unwrap()` for `T` one of `floats` (the
/// function's float type parameters), `f32` or `f64`; and `f64::from(v)` (`From<f32>`).
/// The value converted and the type. A value of an integer type is never differentiable,
/// so only a float's conversion meets lowering here.
fn float_conversion<'e>(expr: &'e Expr, floats: &[Ident]) -> Option<(&'e Expr, syn::Type)> {
    let named = |ident: &Ident| ident == "f32" || ident == "f64" || floats.contains(ident);
    let from = |func: &Expr| -> Option<syn::Type> {
        let Expr::Path(path) = strip_parens(func) else {
            return None;
        };
        let segments: Vec<&syn::PathSegment> = path.path.segments.iter().collect();
        let target = match (&path.qself, segments.as_slice()) {
            (None, [target, from]) if from.ident == "from" && target.arguments.is_none() => {
                target.ident.clone()
            }
            // `<T as NumCast>::from`, `<T as num_traits::NumCast>::from`
            (Some(qself), [.., cast, from])
                if qself.as_token.is_some() && cast.ident == "NumCast" && from.ident == "from" =>
            {
                let syn::Type::Path(ty) = &*qself.ty else {
                    return None;
                };
                ty.path.get_ident()?.clone()
            }
            _ => return None,
        };
        named(&target).then(|| syn::parse_quote!(#target))
    };
    match strip_parens(expr) {
        Expr::MethodCall(call)
            if (call.method == "unwrap" && call.args.is_empty())
                || (call.method == "expect" && call.args.len() == 1) =>
        {
            let Expr::Call(convert) = strip_parens(&call.receiver) else {
                return None;
            };
            let ty = from(&convert.func)?;
            (convert.args.len() == 1).then(|| (&convert.args[0], ty))
        }
        // `f64::from(v)`: `From<f32>` (no `unwrap`, and `f32::from` takes no float)
        Expr::Call(convert) if convert.args.len() == 1 => {
            let ty = from(&convert.func)?;
            matches!(&ty, syn::Type::Path(path) if path.path.is_ident("f64"))
                .then(|| (&convert.args[0], ty))
        }
        _ => None,
    }
}

fn is_float_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none()
        && path.path.get_ident().is_some_and(|ident| ident == "f32" || ident == "f64"))
}

/// `usize`, as the desugaring writes a row index's type.
fn is_usize(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none()
        && path.path.get_ident().is_some_and(|ident| ident == "usize"))
}

fn block_unsafety(expr: &Expr) -> Option<&syn::token::Unsafe> {
    match expr {
        Expr::Unsafe(unsafe_expr) => Some(&unsafe_expr.unsafe_token),
        _ => None,
    }
}

/// Whether `expr` may jump out of itself: a `return`, or a `break`/`continue` whose loop
/// is outside it. Such code is lowered even when it computes only constants, since the
/// adjoint must know where each iteration ended.
fn escapes(expr: &Expr) -> bool {
    struct Finder {
        /// Loops entered inside `expr`: their labels (`None` for unlabelled ones).
        loops: Vec<Option<String>>,
        found: bool,
    }
    impl Finder {
        fn jump(&mut self, label: Option<&syn::Lifetime>) {
            let inside = match label {
                None => !self.loops.is_empty(),
                Some(label) => {
                    let name = label.ident.to_string();
                    self.loops
                        .iter()
                        .any(|l| l.as_deref() == Some(name.as_str()))
                }
            };
            self.found |= !inside;
        }
        fn enter(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
            self.loops.push(label.map(|l| l.name.ident.to_string()));
            f(self);
            self.loops.pop();
        }
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.found = true;
        }
        fn visit_expr_break(&mut self, jump: &'ast syn::ExprBreak) {
            self.jump(jump.label.as_ref());
            visit::visit_expr_break(self, jump);
        }
        fn visit_expr_continue(&mut self, jump: &'ast syn::ExprContinue) {
            self.jump(jump.label.as_ref());
        }
        fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
            self.visit_expr(&node.expr);
            self.enter(node.label.as_ref(), |f| f.visit_block(&node.body));
        }
        fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
            self.enter(node.label.as_ref(), |f| {
                f.visit_expr(&node.cond);
                f.visit_block(&node.body);
            });
        }
        fn visit_expr_loop(&mut self, node: &'ast syn::ExprLoop) {
            self.enter(node.label.as_ref(), |f| f.visit_block(&node.body));
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        loops: Vec::new(),
        found: false,
    };
    finder.visit_expr(expr);
    finder.found
}

/// Whether `path` names `std::mem::swap` (`core::mem::swap`, `mem::swap`), or is a bare
/// `swap` where `bare` allows it (as [`Lowerer::swaps`] takes two arrays; a swap of two
/// scalar locals asks for the `mem` path).
fn is_mem_swap(path: &syn::Path, bare: bool) -> bool {
    let names = crate::syntax::segment_names(path);
    match names.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["swap"] => bare,
        ["mem", "swap"] => true,
        [root, "mem", "swap"] => matches!(root, "std" | "core"),
        _ => false,
    }
}

/// Whether `stmts` assign `binding` at least once, by a `Def` each time, and `accepts`
/// every such `Def`'s op. A statement that sets it otherwise (a writing call's result or
/// parts, a swap) is refused: the answer errs towards `false`.
fn assigns_only(stmts: &[Stmt], binding: BindingId, accepts: &dyn Fn(&Op) -> bool) -> bool {
    fn walk(
        stmts: &[Stmt],
        binding: BindingId,
        accepts: &dyn Fn(&Op) -> bool,
        seen: &mut bool,
    ) -> bool {
        stmts.iter().all(|stmt| match stmt {
            Stmt::Def { target, op, .. } => match target {
                Target::Assign { binding: b } | Target::Let { binding: b, .. } if *b == binding => {
                    *seen = true;
                    accepts(op)
                }
                _ => true,
            },
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                walk(&then_branch.stmts, binding, accepts, seen)
                    && walk(&else_branch.stmts, binding, accepts, seen)
            }
            Stmt::Match { arms, .. } => arms
                .iter()
                .all(|arm| walk(&arm.body.stmts, binding, accepts, seen)),
            Stmt::Loop { body, .. } | Stmt::Scope(body) => {
                walk(&body.stmts, binding, accepts, seen)
            }
            Stmt::CallParts { parts, .. } => !parts.contains(&binding),
            Stmt::CallWrites { result, .. } => !result.bindings().contains(&binding),
            Stmt::Swap { a, b, .. } => *a != binding && *b != binding,
            Stmt::Plain(_) | Stmt::Declare { .. } | Stmt::Jump { .. } => true,
        })
    }
    let mut seen = false;
    walk(stmts, binding, accepts, &mut seen) && seen
}

/// Whether `expr` is an `if`/`match` (or a block) whose every branch is a constant alone
/// (`constant`: an expression reading no differentiable value, as `1`, `k + 1`, `2.0`),
/// or leaves (`return`, `break`, `continue`), and which writes nothing (no assignment, no
/// `&mut` borrow, in its conditions either): its value is a constant, whatever its
/// conditions read (piecewise constant), and it has no effect the adjoint must see.
/// (Regressions: `let kind = if x[1] > 0.0 { 1 } else { 2 };` made `kind` an active
/// local, and the generated code asked `{integer}` for a zero tangent, E0277; so did `let
/// m = if x > 2.0 { k + 1 } else { k };` of an integer `k`,
/// `integer_branches_chosen_by_a_test_on_values`.)
fn literal_branches(expr: &Expr, constant: &dyn Fn(&Expr) -> bool) -> bool {
    fn tail(block: &syn::Block, constant: &dyn Fn(&Expr) -> bool) -> bool {
        match &block.stmts[..] {
            [syn::Stmt::Expr(tail, None)] => value(tail, constant),
            [
                syn::Stmt::Expr(
                    Expr::Return(syn::ExprReturn { expr: None, .. })
                    | Expr::Break(syn::ExprBreak { expr: None, .. })
                    | Expr::Continue(_),
                    Some(_),
                ),
            ] => true,
            _ => false,
        }
    }
    fn value(expr: &Expr, constant: &dyn Fn(&Expr) -> bool) -> bool {
        match strip_parens(expr) {
            Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Int(_) | syn::Lit::Bool(_)),
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
            Expr::If(expr_if) => {
                tail(&expr_if.then_branch, constant)
                    && expr_if
                        .else_branch
                        .as_ref()
                        .is_some_and(|(_, otherwise)| value(otherwise, constant))
            }
            Expr::Match(expr_match) => expr_match.arms.iter().all(|arm| value(&arm.body, constant)),
            Expr::Block(block) if block.label.is_none() => tail(&block.block, constant),
            other => constant(other),
        }
    }
    let writes = crate::syntax::may_write(expr, true, None);
    // The names the arms' and `if let`s' patterns bind hold what their scrutinee holds,
    // which may be differentiable, though no binding of the lowering's scopes is theirs
    // yet: a branch reading one is no constant (regression: `match pair { (p, q) if p > q
    // => p - q, .. }` of a differentiable pair looked constant, a silently wrong gradient,
    // `tuples_matched_and_written_by_field`).
    struct Patterns(HashSet<String>);
    impl<'ast> Visit<'ast> for Patterns {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0.insert(pat.ident.to_string());
            visit::visit_pat_ident(self, pat);
        }
    }
    let mut patterns = Patterns(HashSet::new());
    patterns.visit_expr(expr);
    let constant = |leaf: &Expr| {
        constant(leaf)
            && crate::syntax::names_in(leaf.to_token_stream())
                .iter()
                .all(|name| !patterns.0.contains(name))
    };
    matches!(
        strip_parens(expr),
        Expr::If(_) | Expr::Match(_) | Expr::Block(_)
    ) && !writes
        && value(expr, &constant)
}

/// Whether a statement never finishes (a jump, or a macro that panics): a block ending
/// with it needs no value.
fn diverges(stmt: &syn::Stmt) -> bool {
    let never = |mac: &syn::Macro| {
        mac.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "panic" | "unreachable" | "todo" | "unimplemented"
            )
        })
    };
    match stmt {
        syn::Stmt::Expr(expr, _) => {
            is_jump(expr) || matches!(strip_parens(expr), Expr::Macro(m) if never(&m.mac))
        }
        syn::Stmt::Macro(mac) => never(&mac.mac),
        _ => false,
    }
}

/// Whether a condition holds a `let` (a let chain, when not the whole condition).
fn has_let(cond: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_let(&mut self, _: &'ast syn::ExprLet) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder(false);
    finder.visit_expr(cond);
    finder.0
}

/// `let p = (a, b); rest` or `let p = f(..); rest` where `rest` reads `p` only by its
/// fields (`p.0`, `p.1`): the parts become locals of their own, `let (p__0, p__1) = ..;`,
/// and `rest` reads those (scalar replacement of aggregates), so each part is
/// differentiated as any local. `None` when `p` is used whole, rebound in a nested scope,
/// or named in a macro's tokens; a later `let` of the same name in this block ends its
/// scope (`let p = f(p.0, p.1);` reads the parts, the statements after it the new `p`).
///
/// With `structs` (scalar mode), a call's result read only by named fields (`s.x`) is a
/// struct result's, split the same way ([`split_struct_local`]).
fn split_tuple_local(
    local: &syn::Local,
    rest: &[syn::Stmt],
    structs: bool,
) -> Option<Vec<syn::Stmt>> {
    use syn::visit_mut::VisitMut;

    let Pat::Ident(pat) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref()?;
    if pat.by_ref.is_some() || pat.subpat.is_some() || init.diverge.is_some() {
        return None;
    }
    // a method's call is split only for a struct result (`let s = sim.step(x);`, `s.x`);
    // `let c = s.clone();` is a copy of a value held whole, read by field as it is
    let method_call = matches!(strip_parens(&init.expr), Expr::MethodCall(_));
    let arity_of_tuple = match strip_parens(&init.expr) {
        Expr::Tuple(tuple) => Some(tuple.elems.len()),
        Expr::Call(call) if matches!(&*call.func, Expr::Path(_)) => None,
        Expr::MethodCall(call) if call.method == "clone" && call.args.is_empty() => return None,
        Expr::MethodCall(_) => None,
        _ => return None,
    };
    struct Uses<'p> {
        name: &'p Ident,
        fields: Vec<u32>,
        /// Named fields read (`s.x`): a struct result's, in the order first read.
        named: Vec<Ident>,
        /// Replaced whole by a call's value (`s = step(s.x, s.v, dt);`): a struct result's.
        assigned: bool,
        /// The arities of the tuple literals assigned to it whole (`w = (w.0 * a, w.1)`),
        /// which the split writes part by part, `(w__0, w__1) = (..);`.
        tuples_assigned: Vec<usize>,
        /// The scrutinee of a `match` (`match p { (a, b) if a > b => .. }`), which reads
        /// every part: a tuple literal's local only, whose arity is known.
        matched: bool,
        whole: bool,
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr_match(&mut self, expr_match: &'ast syn::ExprMatch) {
            if single_ident(&expr_match.expr).is_some_and(|scrutinee| scrutinee == self.name) {
                self.matched = true;
                for arm in &expr_match.arms {
                    self.visit_arm(arm);
                }
                return;
            }
            visit::visit_expr_match(self, expr_match);
        }
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            if single_ident(&assign.left).is_some_and(|left| left == self.name)
                && is_call_by_name(&assign.right)
            {
                self.assigned = true;
                self.visit_expr(&assign.right);
                return;
            }
            if single_ident(&assign.left).is_some_and(|left| left == self.name)
                && let Expr::Tuple(tuple) = strip_parens(&assign.right)
            {
                self.tuples_assigned.push(tuple.elems.len());
                self.visit_expr(&assign.right);
                return;
            }
            visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_field(&mut self, field: &'ast syn::ExprField) {
            if let Some(base) = single_ident(&field.base)
                && base == self.name
            {
                match &field.member {
                    syn::Member::Unnamed(index) => self.fields.push(index.index),
                    syn::Member::Named(named) => {
                        if !self.named.contains(named) {
                            self.named.push(named.clone());
                        }
                    }
                }
                return;
            }
            visit::visit_expr_field(self, field);
        }
        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            if path.path.is_ident(self.name) {
                self.whole = true;
            }
        }
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.whole |= pat.ident == *self.name;
            visit::visit_pat_ident(self, pat);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let name = self.name.to_string();
            self.whole |= mac
                .tokens
                .to_string()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == name);
        }
    }
    let mut uses = Uses {
        name: &pat.ident,
        fields: Vec::new(),
        named: Vec::new(),
        assigned: false,
        tuples_assigned: Vec::new(),
        matched: false,
        whole: false,
    };
    // a later `let` binding the name again ends the local's scope; its value still reads it
    let shadow = shadowed_at(rest, &pat.ident);
    for stmt in &rest[..shadow.unwrap_or(rest.len())] {
        uses.visit_stmt(stmt);
    }
    if let Some(k) = shadow {
        for_each_init_expr(&rest[k], |expr| uses.visit_expr(expr));
    }
    if uses.whole
        || !(uses.fields.is_empty() || uses.named.is_empty())
        || (uses.matched && (arity_of_tuple.is_none() || !uses.named.is_empty()))
    {
        return None;
    }
    // a tuple literal assigned whole is written part by part: only of the local's arity
    if !uses.tuples_assigned.is_empty()
        && (!uses.named.is_empty()
            || uses
                .tuples_assigned
                .iter()
                .any(|&n| Some(n) != arity_of_tuple))
    {
        return None;
    }
    if !uses.named.is_empty() {
        // a struct result of a call read by field: `s.x` the part `s__x`; only a call's
        // (a struct literal's local is `fields.rs`'s), in scalar mode
        return (structs && arity_of_tuple.is_none())
            .then(|| split_struct_local(pat, &init.expr, &uses.named, rest, shadow));
    }
    if (uses.fields.is_empty() && !uses.matched && uses.tuples_assigned.is_empty())
        || method_call
        || uses.assigned
    {
        return None;
    }
    let arity =
        arity_of_tuple.unwrap_or_else(|| *uses.fields.iter().max().expect("nonempty") as usize + 1);
    let part = |k: usize| format_ident!("{}__{}", pat.ident, k, span = pat.ident.span());
    let mutability = &pat.mutability;
    let names = (0..arity).map(|k| {
        let name = part(k);
        quote!(#mutability #name)
    });
    let expr = &init.expr;
    let mut split: Vec<syn::Stmt> = vec![syn::parse_quote!(let (#(#names,)*) = #expr;)];
    struct Rename<'p> {
        name: &'p Ident,
        part: &'p dyn Fn(usize) -> Ident,
        arity: usize,
    }
    impl VisitMut for Rename<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            // `p = (a, b);`: the parts assigned, `(p__0, p__1) = (a, b);` (the values read
            // first, as Rust evaluates a tuple before it assigns)
            if let Expr::Assign(assign) = expr
                && single_ident(&assign.left).is_some_and(|left| left == self.name)
                && matches!(strip_parens(&assign.right), Expr::Tuple(_))
            {
                self.visit_expr_mut(&mut assign.right);
                let parts = (0..self.arity).map(|k| (self.part)(k));
                *assign.left = syn::parse_quote!((#(#parts,)*));
                return;
            }
            // `match p { .. }`: the parts as a tuple, which `bind_active_scrutinee` takes
            // apart again (the same values, read where `p` was)
            if let Expr::Match(expr_match) = expr
                && single_ident(&expr_match.expr).is_some_and(|scrutinee| scrutinee == self.name)
            {
                let parts = (0..self.arity).map(|k| (self.part)(k));
                *expr_match.expr = syn::parse_quote!((#(#parts,)*));
            }
            if let Expr::Field(field) = expr
                && let (Some(base), syn::Member::Unnamed(index)) =
                    (single_ident(&field.base), &field.member)
                && base == self.name
            {
                let name = (self.part)(index.index as usize);
                *expr = syn::parse_quote!(#name);
                return;
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    let mut rename = Rename {
        name: &pat.ident,
        part: &part,
        arity,
    };
    split.extend(renamed_in_scope(rest, shadow, &mut rename));
    Some(split)
}

/// The first statement of `rest` that binds `name` again (`let s = f(s.x);`), which ends
/// the scope of the local of that name declared before `rest`: its value is the last
/// place that local is read.
fn shadowed_at(rest: &[syn::Stmt], name: &Ident) -> Option<usize> {
    rest.iter().position(|stmt| {
        matches!(stmt, syn::Stmt::Local(local) if crate::syntax::pattern_binds(&local.pat, name))
    })
}

/// Calls `f` on the expressions a `let` evaluates (its value, its `else` block).
fn for_each_init_expr(stmt: &syn::Stmt, mut f: impl FnMut(&Expr)) {
    if let syn::Stmt::Local(local) = stmt
        && let Some(init) = &local.init
    {
        f(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            f(diverge);
        }
    }
}

/// `rest` with `rename` applied where the local is in scope: every statement before the
/// shadowing `let` at `shadow` ([`shadowed_at`]), and that `let`'s value; the statements
/// after it read the new binding, as written.
fn renamed_in_scope(
    rest: &[syn::Stmt],
    shadow: Option<usize>,
    rename: &mut impl syn::visit_mut::VisitMut,
) -> Vec<syn::Stmt> {
    let end = shadow.unwrap_or(rest.len());
    let mut out: Vec<syn::Stmt> = rest[..end]
        .iter()
        .map(|stmt| {
            let mut stmt = stmt.clone();
            rename.visit_stmt_mut(&mut stmt);
            stmt
        })
        .collect();
    if let Some(k) = shadow {
        let mut stmt = rest[k].clone();
        if let syn::Stmt::Local(local) = &mut stmt
            && let Some(init) = &mut local.init
        {
            rename.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                rename.visit_expr_mut(diverge);
            }
        }
        out.push(stmt);
        out.extend(rest[k + 1..].iter().cloned());
    }
    out
}

/// Whether a pattern binds a name.
fn binds_names(pat: &Pat) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, _: &'ast syn::PatIdent) {
            self.0 = true;
        }
        // A guard's expression binds nothing.
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut finder = Finder(false);
    finder.visit_pat(pat);
    finder.0
}

/// Every read of a name in `renames` in `expr` reads its new name instead.
fn rename_idents(expr: &mut Expr, renames: &[(Ident, Ident)]) {
    use syn::visit_mut::VisitMut;
    struct Rename<'r>(&'r [(Ident, Ident)]);
    impl VisitMut for Rename<'_> {
        fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
            if let Some(ident) = path.path.get_ident()
                && let Some((_, new)) = self.0.iter().find(|(old, _)| old == ident)
            {
                *path = syn::parse_quote!(#new);
            }
        }
    }
    Rename(renames).visit_expr_mut(expr);
}

/// A value being destructured: one operand, or the parts of a tuple.
enum Tree {
    Leaf(Operand),
    Node(Vec<Tree>),
}

fn strip_pat_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(typed) => strip_pat_type(&typed.pat),
        Pat::Paren(paren) => strip_pat_type(&paren.pat),
        other => other,
    }
}

fn is_tuple_pattern(pat: &Pat) -> bool {
    matches!(strip_pat_type(pat), Pat::Tuple(_))
}

/// `let (mut a, b) = (.., ..);`: a tuple pattern of names, one of them `mut`, bound to a
/// tuple expression of as many parts.
fn mutable_names_from_tuple(pat: &Pat, expr: &Expr) -> bool {
    let (Pat::Tuple(names), Expr::Tuple(values)) = (strip_pat_type(pat), strip_parens(expr)) else {
        return false;
    };
    names.elems.len() == values.elems.len()
        && names.elems.iter().all(is_leaf_pattern)
        && names.elems.iter().any(
            |name| matches!(strip_pat_type(name), Pat::Ident(ident) if ident.mutability.is_some()),
        )
}

/// A call's parts, each a leaf.
fn leaves(parts: Vec<Tree>) -> Vec<Operand> {
    parts
        .into_iter()
        .map(|part| match part {
            Tree::Leaf(operand) => operand,
            Tree::Node(_) => unreachable!("a call's parts are leaves"),
        })
        .collect()
}

/// A name or `_`: what a part of a call's tuple result may be bound to.
fn is_leaf_pattern(pat: &Pat) -> bool {
    match strip_pat_type(pat) {
        Pat::Ident(pat) => pat.by_ref.is_none() && pat.subpat.is_none(),
        Pat::Wild(_) => true,
        _ => false,
    }
}

fn compound(op: &BinOp) -> Option<BinaryKind> {
    match op {
        BinOp::AddAssign(_) => Some(BinaryKind::Add),
        BinOp::SubAssign(_) => Some(BinaryKind::Sub),
        BinOp::MulAssign(_) => Some(BinaryKind::Mul),
        BinOp::DivAssign(_) => Some(BinaryKind::Div),
        BinOp::RemAssign(_) => Some(BinaryKind::Rem),
        _ => None,
    }
}

/// Comparisons and logic: they read values, and their results are constants.
fn is_read(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_)
            | BinOp::And(_)
            | BinOp::Or(_)
    )
}

struct ActiveFinder<'n, 'a> {
    lowerer: &'n Lowerer<'a>,
    found: bool,
    /// The names the expression binds itself, innermost scope last: a block's `let`s (from
    /// the statement after), a closure's parameters, a `match` arm's, a `for` loop's and an
    /// `if let`/`while let`'s pattern. A read of one of them is not a read of the outer
    /// binding of that name (regression: `{ let x = item; *x * 2.0 }` inside a function
    /// whose tensor parameter is `x` was taken as active, and the generated code passed an
    /// `&f64` where a tensor was expected, `shadowing_a_tensor_parameter_in_an_inner_block`).
    /// Invariant, for soundness: a name enters a scope only after everything that could
    /// read the outer binding under the same spelling was visited (a `let`'s initialiser,
    /// a `for`'s iterator, an `if let`'s scrutinee), so the finder can only err on
    /// "active", never miss a read.
    shadowed: crate::syntax::Scopes,
}

impl ActiveFinder<'_, '_> {
    /// Whether `ident` names an active binding of the function, not one the expression
    /// bound itself.
    fn reads_active(&self, ident: &Ident) -> bool {
        !self.shadowed.contains(ident)
            && self
                .lowerer
                .lookup(ident)
                .is_some_and(|id| self.lowerer.bindings[id].active)
    }

    /// Adds `pat`'s names to the innermost scope.
    fn bind(&mut self, pat: &Pat) {
        self.shadowed.bind(pat);
    }

    /// Visits `visit` in a scope of its own, which the names bound in it leave with.
    fn scoped(&mut self, visit: impl FnOnce(&mut Self)) {
        self.shadowed.open();
        visit(self);
        self.shadowed.close();
    }
}

impl<'ast> Visit<'ast> for ActiveFinder<'_, '_> {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.scoped(|finder| visit::visit_block(finder, block));
    }
    fn visit_local(&mut self, local: &'ast syn::Local) {
        // The initialiser (and a `let .. else`'s block) reads the outer names; the
        // pattern's names shadow them from the next statement on.
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.bind(&local.pat);
    }
    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.scoped(|finder| {
            for input in &closure.inputs {
                finder.bind(input);
            }
            finder.visit_expr(&closure.body);
        });
    }
    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.scoped(|finder| {
            // A guard reads the arm's names (`Some(x) if *x > 0.0`).
            match &arm.pat {
                Pat::Guard(guarded) => {
                    finder.bind(&guarded.pat);
                    finder.visit_expr(&guarded.guard);
                }
                pat => finder.bind(pat),
            }
            finder.visit_expr(&arm.body);
        });
    }
    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.visit_expr(&for_loop.expr);
        self.scoped(|finder| {
            finder.bind(&for_loop.pat);
            finder.visit_block(&for_loop.body);
        });
    }
    fn visit_expr_let(&mut self, expr_let: &'ast syn::ExprLet) {
        // Only in an `if`'s or `while`'s condition, which open the scope the names live
        // in (to the end of the `then` block or the loop's body).
        self.visit_expr(&expr_let.expr);
        self.bind(&expr_let.pat);
    }
    fn visit_expr_if(&mut self, expr_if: &'ast syn::ExprIf) {
        self.scoped(|finder| {
            finder.visit_expr(&expr_if.cond);
            finder.visit_block(&expr_if.then_branch);
        });
        if let Some((_, otherwise)) = &expr_if.else_branch {
            self.visit_expr(otherwise);
        }
    }
    fn visit_expr_while(&mut self, expr_while: &'ast syn::ExprWhile) {
        self.scoped(|finder| {
            finder.visit_expr(&expr_while.cond);
            finder.visit_block(&expr_while.body);
        });
    }
    fn visit_expr_field(&mut self, field: &'ast syn::ExprField) {
        // A field of a struct passed on whole (`layer.n`): the struct pass lifted every
        // read of its floats and arrays, so what is left reads a constant (a size, a
        // flag), as the pass classified it.
        let mut base = strip_parens(&field.base);
        while let Expr::Field(inner) = base {
            base = strip_parens(&inner.base);
        }
        if let Some(ident) = crate::syntax::single_ident(base)
            && !self.shadowed.contains(ident)
            && let Some(id) = self.lowerer.lookup(ident)
            && self.lowerer.bindings[id].whole
        {
            return;
        }
        visit::visit_expr_field(self, field);
    }
    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if let Some(ident) = path.path.get_ident()
            && self.reads_active(ident)
        {
            self.found = true;
        }
    }
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        // `x.argmax_axis(1)` is an integer tensor: a constant, whatever it reads.
        if vocabulary::has_no_gradient(&name) {
            return;
        }
        // `x.shape()` reads metadata, not values: no gradient flows through it.
        if !vocabulary::is_metadata(&name) {
            self.visit_expr(&call.receiver);
        }
        for arg in &call.args {
            self.visit_expr(arg);
        }
    }
    fn visit_expr_cast(&mut self, cast: &'ast syn::ExprCast) {
        // `x as usize` is an integer: a constant, whatever it reads
        if is_float_type(&cast.ty) {
            self.visit_expr(&cast.expr);
        }
    }
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if !is_stop_gradient(call) {
            visit::visit_expr_call(self, call);
        }
    }
    // A `return`'s value leaves the function: it does not flow into the expression
    // around it (`let k = match m { Some(k) => k, None => return x };` is a constant).
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {}
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // `vec![..]` is an array expression (`vec![0.0; x.len()]` reads no value of `x`).
        if mac.path.is_ident("vec") {
            let tokens = &mac.tokens;
            if let Ok(array) = syn::parse2::<Expr>(quote!([#tokens])) {
                self.visit_expr(&array);
                return;
            }
        }
        // A macro whose value is no number (`format!`'s `String`, `write!`'s `Result`, an
        // assertion's `()`) is a constant, whatever it reads (`let label = format!("{x}");`)
        if mac.path.segments.last().is_some_and(|last| {
            matches!(
                last.ident.to_string().as_str(),
                "format"
                    | "format_args"
                    | "write"
                    | "writeln"
                    | "print"
                    | "println"
                    | "eprint"
                    | "eprintln"
                    | "assert"
                    | "assert_eq"
                    | "assert_ne"
                    | "debug_assert"
                    | "debug_assert_eq"
                    | "debug_assert_ne"
            )
        }) {
            return;
        }
        // Identifiers inside a macro's tokens: an approximation that errs on "active".
        let tokens = mac.tokens.to_string();
        for word in tokens.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            // Numbers (`vec![1.0]` splits into `1` and `0`) are not names.
            if word.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && self.reads_active(&format_ident!("{word}"))
            {
                self.found = true;
            }
        }
    }
}

/// The function whose array result's writer a path calls (`cross` of
/// `cross::__gradtape_write`, `array_calls`), if it is such a path.
fn writer_of(path: &syn::Path) -> Option<syn::Path> {
    let last = path.segments.last()?;
    if last.ident != crate::array_calls::WRITER || path.segments.len() < 2 {
        return None;
    }
    let mut function = path.clone();
    function.segments.pop();
    function.segments.pop_punct();
    Some(function)
}

/// The function `f` whose `Option` result's parts `path` reads, `f::__gradtape_option`
/// (`lower_local`'s rewrite of an option local initialised by a call).
fn option_twin_of(path: &syn::Path) -> Option<syn::Path> {
    let last = path.segments.last()?;
    if last.ident != crate::option_results::HIDDEN || path.segments.len() < 2 {
        return None;
    }
    let mut function = path.clone();
    function.segments.pop();
    function.segments.pop_punct();
    Some(function)
}

/// Whether a `let` holds a call's array result indexed later (`array_calls::MARK`): a
/// local array of fixed size.
fn is_array_result(local: &syn::Local) -> bool {
    local
        .attrs
        .iter()
        .any(|attr| attr.path().is_ident(crate::array_calls::MARK))
}

/// Whether an expression is the array of zeros a call's array result is written into
/// (`generated::array_of_zeros()`, `array_of_zero_rows()` for rows, `array_calls`): a
/// fixed-size local array.
fn is_array_of_zeros(expr: &Expr) -> bool {
    matches!(strip_parens(expr), Expr::Call(call) if call.args.is_empty()
        && matches!(&*call.func, Expr::Path(path) if path.path.segments.last()
            .is_some_and(|last| last.ident == "array_of_zeros" || last.ident == "array_of_zero_rows")
            && path.path.segments.iter().any(|segment| segment.ident == "__private")))
}

/// Whether a `let` declares an array of floats (a buffer the body indexes): its type is
/// written (`Vec<f64>`, `[f64; 3]`), or its value is `vec![..]`, `[..]`, `Vec::new()` or
/// `Vec::with_capacity(..)`.
pub fn is_array_local(local: &syn::Local, floats: &[Ident]) -> bool {
    if is_array_result(local) {
        return true;
    }
    if let Pat::Type(typed) = &local.pat {
        return crate::model::sig::float_array_or_rows(&typed.ty, floats).is_some()
            || crate::model::sig::float_ragged_rows(&typed.ty, floats).is_some();
    }
    let Some(init) = &local.init else {
        return false;
    };
    match strip_parens(&init.expr) {
        Expr::Array(_) | Expr::Repeat(_) => true,
        expr if is_array_of_zeros(expr) => true,
        Expr::Macro(mac) => mac.mac.path.is_ident("vec"),
        // `Vec::new()`, `::std::vec::Vec::new()`, `Vec::with_capacity(n)`
        Expr::Call(call) => matches!(&*call.func, Expr::Path(path)
            if path.path.segments.len() >= 2
                && path.path.segments[path.path.segments.len() - 2].ident == "Vec"
                && path.path.segments.last().is_some_and(|last|
                    matches!(last.ident.to_string().as_str(), "new" | "with_capacity"))),
        _ => false,
    }
}

/// Whether a local array is of fixed size (`[F; N]`, `[[F; N]; M]`): typed so, or made
/// by a literal `[a, b]` or `[e; N]` (not `vec![..]`).
pub fn is_fixed_local(local: &syn::Local, floats: &[Ident]) -> bool {
    if is_array_result(local) {
        return true;
    }
    if let Pat::Type(typed) = &local.pat {
        return matches!(
            crate::model::sig::float_array_or_rows(&typed.ty, floats),
            Some((ArrayForm::Fixed(_), _, _))
        );
    }
    local.init.as_ref().is_some_and(|init| {
        matches!(strip_parens(&init.expr), Expr::Array(_) | Expr::Repeat(_))
            || is_array_of_zeros(&init.expr)
    })
}

/// `e` for `&e`, `&mut e` and `(&e)`, else the expression itself.
fn strip_reference(expr: &Expr) -> &Expr {
    match expr {
        Expr::Reference(reference) => strip_parens(&reference.expr),
        other => other,
    }
}

/// The row length `N` of a local array of rows: typed `[[F; N]; M]` or `Vec<[F; N]>`, or
/// made by repeating a row `[[0.0; N]; M]`, `[[a, b]; M]` or `vec![[0.0; N]; m]`.
pub fn local_row(local: &syn::Local, floats: &[Ident]) -> Option<TokenStream> {
    if let Pat::Type(typed) = &local.pat {
        let (_, row, _) = crate::model::sig::float_array_or_rows(&typed.ty, floats)?;
        return row.map(|row| row.parse().expect("printed from tokens"));
    }
    // a call's array of rows (`array_calls`), the local the callee's writer writes: `C`
    // as the local's type has it, which the code cannot spell (every read of it is where
    // the local is in scope, by the name the generated code keeps)
    if crate::array_calls::marked_rows(local)
        || local.init.as_ref().is_some_and(|init| {
            matches!(strip_parens(&init.expr), Expr::Call(call) if matches!(&*call.func,
                Expr::Path(path) if path.path.segments.last()
                    .is_some_and(|last| last.ident == "array_of_zero_rows")))
        })
    {
        let Pat::Ident(pat) = &local.pat else {
            return None;
        };
        return Some(row_read_off(&pat.ident));
    }
    let (value, _) = array_repeat(strip_parens(&local.init.as_ref()?.expr))?;
    match strip_parens(&value) {
        Expr::Repeat(row) => {
            let len = &row.len;
            Some(quote!(#len))
        }
        Expr::Array(row) => {
            let len = row.elems.len();
            Some(quote!(#len))
        }
        _ => None,
    }
}

/// The row length of a row length read off a local array of rows (`local_row` of a
/// call's array of rows): `generated::row_len(&c)`.
fn row_read_off(ident: &Ident) -> TokenStream {
    let generated = crate::generate::paths::generated();
    quote!(#generated::row_len(&#ident))
}

/// A copy's row length (`let m = r;`, `let m = *r;` of an array of rows): the source's,
/// or, where the source's is read off the source itself ([`row_read_off`]), read off the
/// copy, of the same type. The generated code reads an array by its name, so the name in
/// its row length is then the array's own wherever it is read: never the source's, which
/// a later `let` may bind to another array (of another row length, whose flat index would
/// not be the copy's: a shadow passed on at one row length and read at another).
fn copied_row(row: Option<TokenStream>, copy: &Ident) -> Option<TokenStream> {
    // (the last identifier of `generated::row_len(&r)`'s path, its tokens' only
    // `row_len`: a row length from a type is a literal or a constant's path)
    let read_off = row.as_ref().is_some_and(|row| {
        row.clone().into_iter().any(
            |token| matches!(token, proc_macro2::TokenTree::Ident(ident) if ident == "row_len"),
        ) && row.to_string().contains("__private")
    });
    if read_off {
        Some(row_read_off(copy))
    } else {
        row
    }
}

/// Whether a local is a ragged array of rows: typed `Vec<Vec<F>>`, zeros
/// `vec![vec![0.0; n]; m]`, or rows written out, `vec![vec![a, b], vec![c, d, e]]`.
pub fn is_ragged_local(local: &syn::Local, floats: &[Ident]) -> bool {
    if let Pat::Type(typed) = &local.pat {
        return crate::model::sig::float_ragged_rows(&typed.ty, floats).is_some();
    }
    let Some(init) = &local.init else {
        return false;
    };
    let Expr::Macro(mac) = strip_parens(&init.expr) else {
        return false;
    };
    if !mac.mac.path.is_ident("vec") {
        return false;
    }
    let tokens = &mac.mac.tokens;
    let is_vec =
        |row: &Expr| matches!(strip_parens(row), Expr::Macro(row) if row.mac.path.is_ident("vec"));
    match syn::parse2::<Expr>(quote!([#tokens])) {
        // `vec![vec![e; n]; m]`
        Ok(Expr::Repeat(repeat)) => is_vec(&repeat.expr),
        // `vec![vec![a, b], vec![c, d, e]]`
        Ok(Expr::Array(rows)) => !rows.elems.is_empty() && rows.elems.iter().all(is_vec),
        _ => false,
    }
}

/// The row of a local array of rows made by repeating one (`[[e; N]; M]`, `[[a, b]; M]`,
/// `vec![vec![e; n]; m]`): how each of its elements is made.
enum RowFill {
    /// `[e; N]`, or `vec![e; n]` (`ragged`).
    Repeat {
        value: Box<Expr>,
        len: Box<Expr>,
        ragged: bool,
    },
    /// `[a, b, ..]`.
    Elements(Vec<Expr>),
}

impl RowFill {
    /// The row `row` is, if it is one of these forms.
    fn of(row: &Expr) -> Option<RowFill> {
        if let Expr::Array(array) = row {
            return Some(RowFill::Elements(array.elems.iter().cloned().collect()));
        }
        let (value, len) = array_repeat(row)?;
        Some(RowFill::Repeat {
            value: Box::new(value),
            len: Box::new(len),
            ragged: matches!(row, Expr::Macro(_)),
        })
    }
}

/// The value and the length of `[e; n]` or `vec![e; n]`.
fn array_repeat(expr: &Expr) -> Option<(Expr, Expr)> {
    let repeat = match expr {
        Expr::Repeat(repeat) => repeat.clone(),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
            let tokens = &mac.mac.tokens;
            match syn::parse2::<Expr>(quote!([#tokens])).ok()? {
                Expr::Repeat(repeat) => repeat,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((*repeat.expr, *repeat.len))
}

/// The elements of `[e0, e1, ..]` or `vec![e0, e1, ..]`.
fn array_elements(expr: &Expr) -> Option<Vec<Expr>> {
    match expr {
        Expr::Array(array) => Some(array.elems.iter().cloned().collect()),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
            let tokens = &mac.mac.tokens;
            match syn::parse2::<Expr>(quote!([#tokens])).ok()? {
                Expr::Array(array) => Some(array.elems.into_iter().collect()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether a loop is one of the iterator desugaring's, `for gradtape_k in 0..n` (`false`)
/// or `for gradtape_k in (0..n).rev()` (`true`).
fn desugared_counter(pat: &Pat, iter: &Expr) -> Option<bool> {
    let Pat::Ident(ident) = pat else { return None };
    if ident.ident != "gradtape_k" {
        return None;
    }
    let (reversed, first) = range_counter(pat, iter)?;
    (first == 0).then_some(reversed)
}

/// A user's `for i in a..b` (or `a..=b`, `(a..b).rev()`, `(a..=b).rev()`) with `a` an
/// integer literal and `i` a plain immutable name: whether it runs backwards, and `a`.
fn range_counter(pat: &Pat, iter: &Expr) -> Option<(bool, isize)> {
    let Pat::Ident(pat) = pat else { return None };
    if pat.mutability.is_some() || pat.by_ref.is_some() || pat.subpat.is_some() {
        return None;
    }
    let first = |expr: &Expr| match strip_parens(expr) {
        Expr::Range(range) => match range.start.as_deref().map(strip_parens) {
            Some(Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            })) if range.end.is_some() => int.base10_parse::<isize>().ok(),
            _ => None,
        },
        _ => None,
    };
    match strip_parens(iter) {
        Expr::MethodCall(call) if call.method == "rev" && call.args.is_empty() => {
            Some((true, first(&call.receiver)?))
        }
        other => Some((false, first(other)?)),
    }
}

/// The reads of `block` counting on loop `id`'s counter (in either index of a row's
/// element) save their indices instead.
fn forget_counter(block: &mut Block, id: usize) {
    let forget = |counter: &mut Option<Recompute>| {
        if counter.as_ref().is_some_and(|c| c.counts_on(id)) {
            *counter = None;
        }
    };
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Def { op, target, .. } => {
                if let Op::Load { counter, .. } = op {
                    forget(counter);
                }
                if let Target::Element { counter, .. } = target {
                    forget(counter);
                }
            }
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                forget_counter(then_branch, id);
                forget_counter(else_branch, id);
            }
            Stmt::Match { arms, .. } => {
                for arm in arms {
                    forget_counter(&mut arm.body, id);
                }
            }
            Stmt::Loop { body, .. } | Stmt::Scope(body) => forget_counter(body, id),
            _ => {}
        }
    }
}

/// The mark `split_tuple_local` puts on the `let` of a struct result split into its
/// fields, `#[gradtape_struct_parts(x, v)] let (s__x, s__v) = step(..);`: the fields, in
/// the parts' order. Read (and removed) by `lower_local`; never emitted.
const STRUCT_PARTS: &str = "gradtape_struct_parts";

fn struct_parts_mark(local: &syn::Local) -> Option<Vec<syn::Member>> {
    let attr = local
        .attrs
        .iter()
        .find(|attr| attr.path().is_ident(STRUCT_PARTS))?;
    let fields = attr
        .parse_args_with(
            syn::punctuated::Punctuated::<syn::Member, syn::Token![,]>::parse_terminated,
        )
        .expect("written by split_tuple_local");
    Some(fields.into_iter().collect())
}

/// `let s = f(..); rest` where `rest` reads `s` only by its named fields (`s.x`, `s.v`,
/// a struct result of another annotated function): `#[gradtape_struct_parts(x, v)] let
/// (s__x, s__v) = f(..);`, `rest` reading the parts ([`split_tuple_local`]'s scalar
/// replacement, the fields passed on to the call's [`Stmt::CallParts`] by the mark). A
/// call's value assigned whole, `s = g(..);`, sets every part from a temporary read by
/// field, `{ let s__value = g(..); s__x = s__value.x; .. }`: the fields never read are no
/// part, and nothing reads them.
fn split_struct_local(
    pat: &syn::PatIdent,
    expr: &Expr,
    fields: &[Ident],
    rest: &[syn::Stmt],
    shadow: Option<usize>,
) -> Vec<syn::Stmt> {
    use syn::visit_mut::VisitMut;

    let part = |field: &Ident| {
        let name = crate::syntax::unspelled(format!("{}__{}", pat.ident, field));
        Ident::new(&name, pat.ident.span())
    };
    let mutability = &pat.mutability;
    let names = fields.iter().map(|field| {
        let name = part(field);
        quote!(#mutability #name)
    });
    let mark = format_ident!("{}", STRUCT_PARTS);
    let mut split: Vec<syn::Stmt> =
        vec![syn::parse_quote!(#[#mark(#(#fields),*)] let (#(#names,)*) = #expr;)];
    struct Rename<'p> {
        name: &'p Ident,
        part: &'p dyn Fn(&Ident) -> Ident,
        /// The fields read: the parts a whole assignment sets.
        fields: &'p [Ident],
    }
    impl VisitMut for Rename<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Expr::Field(field) = expr
                && let (Some(base), syn::Member::Named(member)) =
                    (single_ident(&field.base), &field.member)
                && base == self.name
            {
                let name = (self.part)(member);
                *expr = syn::parse_quote!(#name);
                return;
            }
            // `s = step(..);`: the call's value into a temporary read by field (split in
            // turn), then each part assigned from it
            if let Expr::Assign(assign) = expr
                && single_ident(&assign.left).is_some_and(|left| left == self.name)
                && is_call_by_name(&assign.right)
            {
                self.visit_expr_mut(&mut assign.right);
                let value = &assign.right;
                let temp = mixed(&crate::syntax::unspelled(format!("{}__value", self.name)));
                let assigns = self.fields.iter().map(|field| {
                    let part = (self.part)(field);
                    quote!(#part = #temp.#field;)
                });
                *expr = syn::parse_quote!({ let #temp = #value; #(#assigns)* });
                return;
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    let mut rename = Rename {
        name: &pat.ident,
        part: &part,
        fields,
    };
    split.extend(renamed_in_scope(rest, shadow, &mut rename));
    split
}

/// A call of a function by its path or of a method: what may return a struct result.
fn is_call_by_name(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Call(call) => matches!(&*call.func, Expr::Path(_)) && !is_stop_gradient(call),
        Expr::MethodCall(_) => true,
        _ => false,
    }
}

/// The call whose struct result `field` reads by name (`step(..).x`), if it is one: a
/// call of a function by its path.
fn field_of_call(field: &syn::ExprField) -> Option<&syn::ExprCall> {
    let syn::Member::Named(_) = &field.member else {
        return None;
    };
    match strip_parens(&field.base) {
        Expr::Call(call) if matches!(&*call.func, Expr::Path(_)) && !is_stop_gradient(call) => {
            Some(call)
        }
        _ => None,
    }
}

/// The path a call calls (checked to be one).
fn func_path(call: &syn::ExprCall) -> syn::Path {
    match &*call.func {
        Expr::Path(path) => path.path.clone(),
        _ => unreachable!("a call by path"),
    }
}

/// `let S { x: a, v: b, .. } = f(..);` (each field bound to a name) as
/// `#[gradtape_struct_parts(x, v)] let (a, b) = f(..);`: the struct result's parts.
fn struct_pattern_local(local: &syn::Local) -> Option<syn::Local> {
    let Pat::Struct(pattern) = strip_pat_type(&local.pat) else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || pattern.qself.is_some() {
        return None;
    }
    match strip_parens(&init.expr) {
        Expr::Call(call) if matches!(&*call.func, Expr::Path(_)) && !is_stop_gradient(call) => {}
        Expr::MethodCall(_) => {}
        _ => return None,
    }
    let mut members = Vec::new();
    let mut names = Vec::new();
    for field in &pattern.fields {
        match &*field.pat {
            Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                members.push(field.member.clone());
                names.push(ident.clone());
            }
            _ => return None,
        }
    }
    if members.is_empty() {
        return None;
    }
    let value = &init.expr;
    let mark = format_ident!("{}", STRUCT_PARTS);
    match syn::parse_quote!(#[#mark(#(#members),*)] let (#(#names,)*) = #value;) {
        syn::Stmt::Local(split) => Some(split),
        _ => unreachable!("a `let`"),
    }
}

/// The path of a call's function when it may be another annotated function writing a
/// `&mut` array argument: a free function's, or an associated function of an annotated
/// `impl` block; not a tuple struct's or variant's constructor.
fn callee_path(call: &syn::ExprCall) -> Option<&syn::Path> {
    match &*call.func {
        Expr::Path(func)
            if (!crate::syntax::is_associated(&func.path)
                || crate::syntax::is_annotated_associated(&func.path))
                && !crate::syntax::is_constructor(&func.path) =>
        {
            Some(&func.path)
        }
        _ => None,
    }
}
