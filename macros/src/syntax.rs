//! Small syntax helpers every phase shares: no phase of its own.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::{Expr, Ident};

/// A name of generated code, hygienic to the user's (`Span::mixed_site`): locals the
/// generated code introduces can neither capture nor shadow the user's.
pub fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

thread_local! {
    /// The names the item being expanded spells (`set_spelled`, once per expansion).
    static SPELLED: std::cell::RefCell<HashSet<String>> = std::cell::RefCell::new(HashSet::new());
    /// Whether the function being expanded is an item of an `impl` block
    /// ([`in_impl_block`]).
    static IN_IMPL_BLOCK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The type of that block, as spelled (`Swapped`, `Particle<T>`).
    static IMPL_SELF_TYPE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `expand` with the function it expands known to be an item of an `impl` block
/// (`#[differentiable]` on the block): an associated function without `self` then gets
/// its companion items as associated functions named after it, as a method does, since
/// an `impl` block can hold no companion type. A proc macro on a function cannot see
/// where the function is; the block's expansion tells it this way, and the block's type
/// (`self_ty`, [`impl_self_type`]).
pub fn in_impl_block<T>(self_ty: &syn::Type, expand: impl FnOnce() -> T) -> T {
    IN_IMPL_BLOCK.with(|flag| flag.set(true));
    IMPL_SELF_TYPE
        .with(|ty| *ty.borrow_mut() = Some(quote::ToTokens::to_token_stream(self_ty).to_string()));
    let expanded = expand();
    IN_IMPL_BLOCK.with(|flag| flag.set(false));
    IMPL_SELF_TYPE.with(|ty| *ty.borrow_mut() = None);
    expanded
}

/// The type of the annotated `impl` block the function being expanded is an item of, as
/// its tokens spell it (see [`in_impl_block`]): what `Self` is, where a signature spells
/// the type by name.
pub fn impl_self_type() -> Option<String> {
    IMPL_SELF_TYPE.with(|ty| ty.borrow().clone())
}

/// Whether the tokens name `Self` (an item that does is an `impl`'s or a trait's).
pub fn names_self(tokens: proc_macro2::TokenStream) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == "Self",
        proc_macro2::TokenTree::Group(group) => names_self(group.stream()),
        _ => false,
    })
}

/// Whether the function being expanded is an item of an `impl` block (see
/// [`in_impl_block`]).
pub fn is_in_impl_block() -> bool {
    IN_IMPL_BLOCK.with(std::cell::Cell::get)
}

/// Records the names the user's item spells, for [`unspelled`]: called as an expansion
/// starts, before the passes that name locals of their own.
pub fn set_spelled(names: HashSet<String>) {
    SPELLED.with(|spelled| *spelled.borrow_mut() = names);
}

/// `name`, or `name` with `_g` appended until the user's item does not spell it. The passes
/// before lowering (`iterators`, `fields`, `options`, `rewrite`) and lowering itself write
/// locals of their own into the body, and lowering's scopes are keyed by spelling: a
/// user's `acc3` and a desugared accumulator `acc3` would be one name to it, and the
/// gradient silently wrong (regressions: `differentiable_everyday::
/// {locals_spelled_like_temporaries, locals_spelled_like_desugared_names}`).
pub fn unspelled(name: String) -> String {
    SPELLED.with(|spelled| {
        let spelled = spelled.borrow();
        let mut name = name;
        while spelled.contains(&name) {
            name.push_str("_g");
        }
        name
    })
}

/// A local the expansion writes into the body, named `name` unless the user's item spells
/// that ([`unspelled`]), at the mixed site.
pub fn fresh_local(name: impl Into<String>) -> Ident {
    mixed(&unspelled(name.into()))
}

/// `ident` respelled if the user's item spells it ([`unspelled`]), at its own span.
pub fn unspelled_ident(ident: Ident) -> Ident {
    Ident::new(&unspelled(ident.to_string()), ident.span())
}

/// Rewrites `block`'s statements one at a time: `rewrite(stmt, rest)` may replace a
/// statement and everything after it (`Some((replacement, new_rest))`, as a local split
/// into several rewrites its later uses), and the scan resumes after the replacement. The
/// passes that turn one local into several (`options`, `fields`) share it.
pub fn rewrite_with_rest(
    block: &mut syn::Block,
    mut rewrite: impl FnMut(&syn::Stmt, &[syn::Stmt]) -> Option<(Vec<syn::Stmt>, Vec<syn::Stmt>)>,
) {
    let mut i = 0;
    while i < block.stmts.len() {
        match rewrite(&block.stmts[i], &block.stmts[i + 1..]) {
            Some((replacement, rest)) => {
                let n = replacement.len();
                block.stmts.truncate(i);
                block.stmts.extend(replacement);
                block.stmts.extend(rest);
                i += n;
            }
            None => i += 1,
        }
    }
}

/// Whether a pattern binds `name` (anywhere in it: `name`, `(a, name)`, `S { x: name }`).
pub fn pattern_binds(pat: &syn::Pat, name: &Ident) -> bool {
    let mut binds = Binds { name, found: false };
    syn::visit::Visit::visit_pat(&mut binds, pat);
    binds.found
}

/// Whether `stmt` binds `name` anywhere (a `let`, a closure's or a `for`'s pattern, an
/// arm), items' bodies aside: the passes that split a local (`tuples`, `enum_arrays`)
/// leave it whole when a later statement binds its name again.
pub fn stmt_binds(stmt: &syn::Stmt, name: &Ident) -> bool {
    let mut binds = Binds { name, found: false };
    syn::visit::Visit::visit_stmt(&mut binds, stmt);
    binds.found
}

/// Finds a binding of `name` (`pattern_binds`, `stmt_binds`); an item's body is its own
/// scope, not visited.
struct Binds<'n> {
    name: &'n Ident,
    found: bool,
}

impl<'ast> syn::visit::Visit<'ast> for Binds<'_> {
    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        self.found |= pat.ident == *self.name;
        syn::visit::visit_pat_ident(self, pat);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `value`, the value of a local being split (an option, an enum), with each value it may
/// end with (through parentheses, `if`/`else`, `match` arms and unlabelled blocks) made
/// the statement `leaf` gives for it, each branch then assigning instead of giving a
/// value; a block ending in a statement that `leaves` (`return x;`) keeps it. `None` if
/// `leaf` refuses one (or an `if` has no `else`). The passes `options` and `enums` share
/// it.
pub fn assign_branches(
    value: &Expr,
    leaf: &mut dyn FnMut(&Expr) -> Option<Expr>,
    leaves: fn(&Expr) -> bool,
) -> Option<Expr> {
    let block_of =
        |block: &syn::Block, leaf: &mut dyn FnMut(&Expr) -> Option<Expr>| -> Option<syn::Block> {
            let mut block = block.clone();
            match block.stmts.pop()? {
                syn::Stmt::Expr(tail, None) => {
                    let assigned = assign_branches(&tail, leaf, leaves)?;
                    block
                        .stmts
                        .push(syn::Stmt::Expr(assigned, Some(Default::default())));
                    Some(block)
                }
                syn::Stmt::Expr(tail, semi) if leaves(&tail) => {
                    block.stmts.push(syn::Stmt::Expr(tail, semi));
                    Some(block)
                }
                _ => None,
            }
        };
    match value {
        Expr::Paren(paren) => assign_branches(&paren.expr, leaf, leaves),
        Expr::If(expr_if) => {
            let (_, otherwise) = expr_if.else_branch.as_ref()?;
            let mut expr_if = expr_if.clone();
            expr_if.then_branch = block_of(&expr_if.then_branch, leaf)?;
            let otherwise = assign_branches(otherwise, leaf, leaves)?;
            expr_if.else_branch = Some((Default::default(), Box::new(otherwise)));
            Some(Expr::If(expr_if))
        }
        Expr::Match(expr_match) => {
            let mut expr_match = expr_match.clone();
            for arm in &mut expr_match.arms {
                *arm.body = assign_branches(&arm.body, leaf, leaves)?;
                arm.comma = Some(Default::default());
            }
            Some(Expr::Match(expr_match))
        }
        Expr::Block(block) if block.label.is_none() => {
            let mut block = block.clone();
            block.block = block_of(&block.block, leaf)?;
            Some(Expr::Block(block))
        }
        value => leaf(value),
    }
}

/// A rewrite of one statement and the statements after it ([`rewrite_with_rest`]).
pub type LocalRewrite<'a> =
    &'a mut dyn FnMut(&syn::Stmt, &[syn::Stmt]) -> Option<(Vec<syn::Stmt>, Vec<syn::Stmt>)>;

/// The body's statements with `rewrite` applied to the locals of every block
/// ([`rewrite_with_rest`]), inner blocks first (a local declared inside one is rewritten
/// there), the bodies of closures and nested items left as they are (theirs are not the
/// function's): the passes turning one local into several (`options`, `enums`).
pub fn rewrite_locals(stmts: Vec<syn::Stmt>, rewrite: LocalRewrite) -> Vec<syn::Stmt> {
    use syn::visit_mut::{self, VisitMut};
    struct Locals<'a>(LocalRewrite<'a>);
    impl VisitMut for Locals<'_> {
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            visit_mut::visit_block_mut(self, block);
            rewrite_with_rest(block, &mut *self.0);
        }
        fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut block = syn::Block {
        brace_token: Default::default(),
        stmts,
    };
    Locals(rewrite).visit_block_mut(&mut block);
    block.stmts
}

/// `let [mut] name[: T] = value;` (no `else`, the name bound by value): the name's pattern
/// and the value. A type, if written, is the value's.
pub fn named_let(stmt: &syn::Stmt) -> Option<(&syn::PatIdent, &Expr)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    let pat = match &local.pat {
        syn::Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    let syn::Pat::Ident(pat) = pat else {
        return None;
    };
    if init.diverge.is_some() || pat.by_ref.is_some() || pat.subpat.is_some() {
        return None;
    }
    Some((pat, &init.expr))
}

/// `let [mut] name = value;` (no type, no `else`, the name bound by value): the name's
/// pattern and the value.
pub fn plain_let(stmt: &syn::Stmt) -> Option<(&syn::PatIdent, &Expr)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let syn::Pat::Ident(pat) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || pat.by_ref.is_some() || pat.subpat.is_some() {
        return None;
    }
    Some((pat, &init.expr))
}

/// An array by name, `a`, or behind a dereference, `*a`: the name, and whether it was
/// dereferenced (its elements then read by value, where a slice by name gives references).
pub fn name_or_deref(expr: &Expr) -> Option<(&Ident, bool)> {
    match strip_parens(expr) {
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Deref(_),
            expr,
            ..
        }) => single_ident(strip_parens(expr)).map(|name| (name, true)),
        other => single_ident(other).map(|name| (name, false)),
    }
}

/// Whether `expr` jumps (`break`, `continue`, `return`): what follows it in its block
/// never runs.
pub fn is_jump(expr: &Expr) -> bool {
    matches!(
        strip_parens(expr),
        Expr::Break(_) | Expr::Continue(_) | Expr::Return(_)
    )
}

/// `if let P = e { A } else { B }` as the `match e { P => { A } _ => { B } }` it is (an
/// `else` left out is `{}`); `None` for any other `if`.
pub fn if_let_as_match(expr_if: &syn::ExprIf) -> Option<syn::ExprMatch> {
    let Expr::Let(condition) = strip_parens(&expr_if.cond) else {
        return None;
    };
    let (pat, scrutinee, then) = (&condition.pat, &condition.expr, &expr_if.then_branch);
    let otherwise: Expr = match &expr_if.else_branch {
        Some((_, else_expr)) => (**else_expr).clone(),
        None => syn::parse_quote!({}),
    };
    Some(syn::parse_quote!(match #scrutinee { #pat => #then _ => #otherwise }))
}

/// `stmts`, a block's body, as the labelled `loop` that runs them once, `'l: loop {
/// stmts; break 'l (tail); }` (`break 'l;` for a block with no value; nothing after a
/// last statement that jumps already): the same value and effects, and a `break 'l v`
/// inside leaves it with `v`. What a labelled block is, and an inlined closure's body
/// whose `return`s became such `break`s.
pub fn loop_once(
    label: &syn::Lifetime,
    mut stmts: Vec<syn::Stmt>,
    attrs: &[syn::Attribute],
) -> Expr {
    let span = label.span();
    match stmts.pop() {
        Some(syn::Stmt::Expr(tail, None)) => {
            stmts.push(syn::parse_quote_spanned!(span=> break #label (#tail);))
        }
        Some(last) => {
            let jumps = matches!(&last, syn::Stmt::Expr(expr, _) if is_jump(expr));
            stmts.push(last);
            if !jumps {
                stmts.push(syn::parse_quote_spanned!(span=> break #label;));
            }
        }
        None => stmts.push(syn::parse_quote_spanned!(span=> break #label;)),
    }
    syn::parse_quote_spanned!(span=> #(#attrs)* #label: loop { #(#stmts)* })
}

/// Whether `tokens` (a closure's body) hold a `return` or a `?`, conservatively (nested
/// closures' too): moved out of its closure, such a body would leave the function, not
/// the closure. The iterator rewrites (`iterators`, `searches`) refuse such closures.
pub fn leaves_early(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == "return",
        TokenTree::Punct(punct) => punct.as_char() == '?',
        TokenTree::Group(group) => leaves_early(group.stream()),
        TokenTree::Literal(_) => false,
    })
}

/// `expr` without the parentheses and invisible groups around it.
pub fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip_parens(&paren.expr),
        Expr::Group(group) => strip_parens(&group.expr),
        other => other,
    }
}

/// Whether `expr` is a name or a literal (in parentheses or not): an operand the generated
/// code may read a second time, with no effect and the same value.
pub fn is_name_or_literal(expr: &Expr) -> bool {
    matches!(strip_parens(expr), Expr::Lit(_) | Expr::Path(_))
}

/// The names an expression binds itself while a visitor walks it, innermost scope last:
/// what the visitors that must tell a name the code binds from the function's binding of
/// the same spelling keep (`lower`'s `ActiveFinder`, `validate::condition_writes`).
#[derive(Default)]
pub struct Scopes(Vec<Vec<Ident>>);

impl Scopes {
    /// Opens a scope (a block, a closure, a `for` body..).
    pub fn open(&mut self) {
        self.0.push(Vec::new());
    }

    /// Closes the innermost scope: the names bound in it leave with it.
    pub fn close(&mut self) {
        self.0.pop();
    }

    /// Binds `pat`'s names in the innermost scope (opening one if none is).
    pub fn bind(&mut self, pat: &syn::Pat) {
        let names = pattern_idents(pat).into_iter().cloned();
        match self.0.last_mut() {
            Some(scope) => scope.extend(names),
            None => self.0.push(names.collect()),
        }
    }

    /// Whether some open scope binds `ident`.
    pub fn contains(&self, ident: &Ident) -> bool {
        self.0.iter().flatten().any(|name| name == ident)
    }
}

/// The user's lint attributes (`#[allow(..)]`, `#[warn(..)]`, `#[deny(..)]`,
/// `#[forbid(..)]`, `#[expect(..)]`): what an item the macro emits holding the user's body
/// (`f::primal`, a traced helper) carries too, so it warns where the function does.
pub fn lint_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|attr| {
        ["allow", "warn", "deny", "forbid", "expect"]
            .iter()
            .any(|level| attr.path().is_ident(level))
    })
}

/// The type and const parameters of `generics`, in order (no lifetimes): what a turbofish
/// or a `use<..>` bound names.
pub fn type_and_const_params(generics: &syn::Generics) -> Vec<Ident> {
    generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(t) => Some(t.ident.clone()),
            syn::GenericParam::Const(c) => Some(c.ident.clone()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// The names a pattern binds, in order (every `PatIdent` in it, `ref`/`mut` ones too).
pub fn pattern_idents(pat: &syn::Pat) -> Vec<&Ident> {
    use syn::visit::Visit;
    struct Names<'p>(Vec<&'p Ident>);
    impl<'p> Visit<'p> for Names<'p> {
        fn visit_pat_ident(&mut self, pat: &'p syn::PatIdent) {
            self.0.push(&pat.ident);
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(pat);
    names.0
}

/// `expr` without its parentheses and a shared borrow (`&x`, `(&x)`, `x`), and whether it
/// was borrowed: how an argument passes a value on (`&mut x` is not a shared borrow).
pub fn strip_shared_borrow(expr: &Expr) -> (&Expr, bool) {
    match strip_parens(expr) {
        Expr::Reference(reference) if reference.mutability.is_none() => {
            (strip_parens(&reference.expr), true)
        }
        other => (other, false),
    }
}

/// The name `expr` is, if it is a lone identifier.
pub fn single_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    }
}

/// The name of a `#[differentiable]` method's companion item: `energy` and `vjp` give
/// `energy_vjp`, spanned on the method's name (a method's items are associated functions
/// beside it, as an `impl` block can hold no companion type).
pub fn method_companion(method: &Ident, item: &str) -> Ident {
    Ident::new(&format!("{method}_{item}"), method.span())
}

/// Whether a name starts with an uppercase letter: by Rust's naming, a type, a trait, a
/// tuple struct or an enum variant rather than a function, a module or a local.
pub fn starts_uppercase(ident: &Ident) -> bool {
    ident.to_string().starts_with(|c: char| c.is_uppercase())
}

/// Whether a called path names a constructor (a tuple struct or an enum variant: `Some`,
/// `Ok`, `Point`, `Shape::Circle`) rather than a function: its last segment starts with an
/// uppercase letter.
pub fn is_constructor(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|last| starts_uppercase(&last.ident))
}

/// Whether a called path names a type's associated function (`Cell::new`, `Self::helper`,
/// `Vec::<f64>::from`): a segment before the last starts with an uppercase letter.
pub fn is_associated(path: &syn::Path) -> bool {
    path.segments
        .iter()
        .rev()
        .nth(1)
        .is_some_and(|segment| starts_uppercase(&segment.ident))
}

/// Whether a called path names an associated function an annotated `impl` block may have
/// given companion items (`Self::helper`, `Spring::energy_of`: `Self` or a type by its
/// own name, then a function's lowercase name, no generic arguments): a caller reaches
/// them as `Self::helper_vjp(..)`. The standard library's types (`Vec::from`, `Box::new`,
/// `Cell::new`) have none, and keep the macro's error for a type's associated function.
pub fn is_annotated_associated(path: &syn::Path) -> bool {
    const STANDARD: &[&str] = &[
        "Vec",
        "Box",
        "Rc",
        "Arc",
        "Cell",
        "RefCell",
        "OnceCell",
        "Mutex",
        "RwLock",
        "String",
        "Option",
        "Result",
        "HashMap",
        "HashSet",
        "BTreeMap",
        "BTreeSet",
        "VecDeque",
        "BinaryHeap",
        "Iterator",
        "IntoIterator",
        "Default",
        "From",
        "Into",
        "Clone",
        "Float",
        "FloatConst",
        "NumCast",
        "ToPrimitive",
        "Tensor",
        "Variable",
    ];
    let [ty, function] = path.segments.iter().collect::<Vec<_>>()[..] else {
        return false;
    };
    path.leading_colon.is_none()
        && ty.arguments.is_none()
        && function.arguments.is_none()
        && starts_uppercase(&ty.ident)
        && !STANDARD.contains(&ty.ident.to_string().as_str())
        && !starts_uppercase(&function.ident)
}

/// The names the items inside a body bind (`use` declarations' names and renames, nested
/// functions, modules, types, constants, macros), at any depth; `None` if one is a glob
/// import, which may bind any name.
pub fn item_names(block: &syn::Block) -> Option<HashSet<String>> {
    use syn::visit::Visit;
    struct Items {
        names: HashSet<String>,
        glob: bool,
    }
    impl<'ast> Visit<'ast> for Items {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let ident = match item {
                syn::Item::Fn(f) => Some(&f.sig.ident),
                syn::Item::Mod(m) => Some(&m.ident),
                syn::Item::Struct(s) => Some(&s.ident),
                syn::Item::Enum(e) => Some(&e.ident),
                syn::Item::Union(u) => Some(&u.ident),
                syn::Item::Type(t) => Some(&t.ident),
                syn::Item::Const(c) => Some(&c.ident),
                syn::Item::Static(s) => Some(&s.ident),
                syn::Item::Trait(t) => Some(&t.ident),
                syn::Item::Macro(m) => m.ident.as_ref(),
                _ => None,
            };
            if let Some(ident) = ident {
                self.names.insert(ident.to_string());
            }
            if let syn::Item::Use(item) = item {
                self.visit_use_tree(&item.tree);
            }
            // the items' own bodies are not this body's
        }
        fn visit_use_name(&mut self, name: &'ast syn::UseName) {
            self.names.insert(name.ident.to_string());
        }
        fn visit_use_rename(&mut self, rename: &'ast syn::UseRename) {
            self.names.insert(rename.rename.to_string());
        }
        fn visit_use_glob(&mut self, _: &'ast syn::UseGlob) {
            self.glob = true;
        }
    }
    let mut items = Items {
        names: HashSet::new(),
        glob: false,
    };
    items.visit_block(block);
    (!items.glob).then_some(items.names)
}

/// `expr` is the plain name `name`.
pub fn is_name(expr: &Expr, name: &Ident) -> bool {
    matches!(strip_parens(expr), Expr::Path(path)
        if path.qself.is_none() && path.path.is_ident(name))
}

/// The names of a path's segments, without generic arguments (`std::mem::swap` gives
/// `["std", "mem", "swap"]`).
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Every identifier in `tokens`, by name, macro arguments included: the names a user's
/// item spells, which a name of generated code compared by its text (hygiene is not
/// visible to the macro) must not be mistaken for.
pub fn names_in(tokens: TokenStream) -> HashSet<String> {
    fn walk(tokens: TokenStream, out: &mut HashSet<String>) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => {
                    out.insert(ident.to_string());
                }
                TokenTree::Group(group) => walk(group.stream(), out),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
        }
    }
    let mut out = HashSet::new();
    walk(tokens, &mut out);
    out
}

/// The first and one-past-the-last positions a range selects of `array` (`a..b`,
/// `a..=b`, `a..`, `..b`), as expressions to evaluate: `0` for an open start, `array.len()`
/// for an open end.
pub fn range_bounds(
    range: &syn::ExprRange,
    array: &impl quote::ToTokens,
) -> (proc_macro2::TokenStream, proc_macro2::TokenStream) {
    use quote::quote;
    let start = range
        .start
        .as_ref()
        .map_or(quote!(0), |start| quote!(#start));
    let end = match (&range.end, &range.limits) {
        (Some(end), syn::RangeLimits::HalfOpen(_)) => quote!(#end),
        (Some(end), syn::RangeLimits::Closed(_)) => quote!((#end) + 1),
        (None, _) => quote!(#array.len()),
    };
    (start, end)
}

/// Replaces every type wrapped in an invisible group (`Type::Group`: a `$t:ty` fragment of
/// a `macro_rules!` that wrote the item) or in parentheses (`Type::Paren`, `(f64)`) by the
/// type inside, throughout `item`, so that every phase that classifies types (the
/// signature's floats and arrays, a local's annotation, a cast's target) sees `f64` and
/// never `Group(f64)`: the one place such wrappers are undone.
///
/// Invariant: the item means what it meant. A wrapper is dropped only around a type whose
/// printed tokens parse back the same wherever a type goes (a path, an array, a slice, a
/// reference, a tuple, a pointer, `!`, `_`); around any other (`dyn A + B` behind a `&`,
/// whose bounds the group held together) the wrapper becomes parentheses, which keep that
/// grouping when printed, as a `None`-delimited group would not survive reparsing.
pub fn unwrap_type_groups(item: &mut syn::Item) {
    use syn::Type;
    use syn::visit_mut::VisitMut;

    struct Unwrap;

    impl VisitMut for Unwrap {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            // the inside first, so nested wrappers are undone from within
            syn::visit_mut::visit_type_mut(self, ty);
            let inner = match ty {
                Type::Group(group) => &mut group.elem,
                Type::Paren(paren) => &mut paren.elem,
                _ => return,
            };
            let bare = matches!(
                **inner,
                Type::Path(_)
                    | Type::Array(_)
                    | Type::Slice(_)
                    | Type::Reference(_)
                    | Type::Tuple(_)
                    | Type::Ptr(_)
                    | Type::Never(_)
                    | Type::Infer(_)
            );
            if bare {
                let inner = std::mem::replace(&mut **inner, Type::Verbatim(TokenStream::new()));
                *ty = inner;
            } else if let Type::Group(group) = ty {
                let elem = std::mem::replace(
                    &mut group.elem,
                    Box::new(Type::Verbatim(TokenStream::new())),
                );
                *ty = Type::Paren(syn::TypeParen {
                    attrs: std::mem::take(&mut group.attrs),
                    paren_token: syn::token::Paren(group.group_token.span),
                    elem,
                });
            }
        }
    }

    Unwrap.visit_item_mut(item);
}

/// Splices every invisible group (`None`-delimited) whose first token is `let` into the
/// stream around it: a `$s:stmt` fragment of a `macro_rules!` holding a `let`, which syn
/// would otherwise read as an expression (`Expr::Let`, that cannot carry a type, `let x:
/// f64 = ..`, nor an `else`) rather than as a statement. Run on the attribute's input
/// before it is parsed.
///
/// Invariant: the tokens mean what they meant. A `let` starts a statement only (no
/// `expr` fragment matches `let`), and a statement's group holds no trailing `;`: the
/// statement's own tokens, spliced, are that statement.
///
/// A group with no such fragment inside is kept as it came (a group rebuilt around new
/// contents gets one span for both delimiters, as `proc_macro` sets no other): the
/// spans of an item no `macro_rules!` wrote are untouched.
pub fn splice_let_fragments(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group};

    // (a fragment passed on by one `macro_rules!` to another is a group in a group)
    fn starts_let(tokens: TokenStream) -> bool {
        match tokens.into_iter().next() {
            Some(TokenTree::Ident(ident)) => ident == "let",
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::None => {
                starts_let(group.stream())
            }
            _ => false,
        }
    }

    fn is_let_fragment(group: &Group) -> bool {
        group.delimiter() == Delimiter::None && starts_let(group.stream())
    }

    fn holds_let_fragment(tokens: &TokenStream) -> bool {
        tokens.clone().into_iter().any(|tree| match tree {
            TokenTree::Group(group) => {
                is_let_fragment(&group) || holds_let_fragment(&group.stream())
            }
            _ => false,
        })
    }

    if !holds_let_fragment(&tokens) {
        return tokens;
    }
    tokens
        .into_iter()
        .flat_map(|tree| -> Vec<TokenTree> {
            let TokenTree::Group(group) = tree else {
                return vec![tree];
            };
            if !holds_let_fragment(&TokenStream::from(TokenTree::Group(group.clone()))) {
                return vec![TokenTree::Group(group)];
            }
            let inner = splice_let_fragments(group.stream());
            if is_let_fragment(&group) {
                inner.into_iter().collect()
            } else {
                let mut rebuilt = Group::new(group.delimiter(), inner);
                rebuilt.set_span(group.span());
                vec![TokenTree::Group(rebuilt)]
            }
        })
        .collect()
}

/// Replaces every expression wrapped in an invisible group (`Expr::Group`: an `$e:expr`,
/// `$s:stmt` or `$b:block` fragment of a `macro_rules!` that wrote the item) throughout
/// `item`, so that every phase that matches on expressions (a binary operation, an
/// iterator form's receiver, an index, a block) sees the expression and never
/// `Group(..)`: the one place such groups are undone, as
/// [`unwrap_type_groups`] does for types.
///
/// Invariant: the item means what it meant. The group also held its expression together
/// (`$e * 2.0` with `$e = a + b` is `(a + b) * 2.0`), which printed tokens would lose. So a
/// group is dropped outright where nothing outside can bind into it (a statement, a
/// `let`'s value, an argument, an element, an index, the right side of an assignment, a
/// `return`/`break` value, inside parentheses) or around an expression that nothing can
/// split (a name, a literal, a call, a method call, an index, a field, a tuple, an array,
/// parentheses, a macro); anywhere else the group becomes parentheses, spanned on the
/// fragment.
pub fn unwrap_expr_groups(item: &mut syn::Item) {
    use syn::visit_mut::VisitMut;

    struct Unwrap;

    /// Drops every group around `expr` (a position where nothing can bind into it).
    fn peel(expr: &mut Expr) {
        while let Expr::Group(group) = expr {
            let inner = std::mem::replace(&mut *group.expr, Expr::Verbatim(TokenStream::new()));
            *expr = inner;
        }
    }

    impl VisitMut for Unwrap {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            // the free positions inside `expr` first: peeled before their groups are
            // visited, which would otherwise turn them into parentheses
            match expr {
                Expr::Call(call) => call.args.iter_mut().for_each(peel),
                Expr::MethodCall(call) => call.args.iter_mut().for_each(peel),
                Expr::Array(array) => array.elems.iter_mut().for_each(peel),
                Expr::Tuple(tuple) => tuple.elems.iter_mut().for_each(peel),
                Expr::Index(index) => peel(&mut index.index),
                Expr::Assign(assign) => peel(&mut assign.right),
                Expr::Paren(paren) => peel(&mut paren.expr),
                Expr::Return(ret) => ret.expr.iter_mut().for_each(|e| peel(e)),
                Expr::Break(brk) => brk.expr.iter_mut().for_each(|e| peel(e)),
                Expr::Repeat(repeat) => peel(&mut repeat.expr),
                _ => {}
            }
            // then the inside, so nested groups are undone from within
            syn::visit_mut::visit_expr_mut(self, expr);
            let Expr::Group(group) = expr else {
                return;
            };
            let atomic = matches!(
                *group.expr,
                Expr::Path(_)
                    | Expr::Lit(_)
                    | Expr::Call(_)
                    | Expr::MethodCall(_)
                    | Expr::Index(_)
                    | Expr::Field(_)
                    | Expr::Tuple(_)
                    | Expr::Array(_)
                    | Expr::Repeat(_)
                    | Expr::Paren(_)
                    | Expr::Macro(_)
            );
            let inner = std::mem::replace(&mut *group.expr, Expr::Verbatim(TokenStream::new()));
            *expr = if atomic {
                inner
            } else {
                Expr::Paren(syn::ExprParen {
                    attrs: std::mem::take(&mut group.attrs),
                    paren_token: syn::token::Paren(group.group_token.span),
                    expr: Box::new(inner),
                })
            };
        }

        fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
            match stmt {
                syn::Stmt::Expr(expr, _) => peel(expr),
                syn::Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        peel(&mut init.expr);
                    }
                }
                _ => {}
            }
            syn::visit_mut::visit_stmt_mut(self, stmt);
        }
    }

    Unwrap.visit_item_mut(item);
}

/// Turns every invisible group (`None`-delimited) that holds a block-like expression
/// (its first token `if`, `match`, `loop`, `while`, `for` or `unsafe`) and is followed by
/// what continues an expression (an operator, `.`, `?`, `as`, an index `[..]`) into
/// parentheses: an `$e:expr` fragment used as an operand (`$e * 2.0` with `$e = if a > b
/// { a } else { b }`), which syn, at the start of a statement, would end after the
/// block-like expression as rustc does not (rustc reads the fragment whole, as an
/// operand). Run on the attribute's input before it is parsed.
///
/// Invariant: the tokens mean what rustc read. Parentheses around an expression used as
/// an operand are its grouping; a group followed by `;`, `,`, a name or a block, or by
/// nothing, is kept (a statement, an argument, a block's value). A `$s:stmt` fragment
/// holding such an expression statement and followed by a statement that starts with an
/// operator (`-x;`, `*p = ..;`) would be read as one expression: code that then fails to
/// compile, not code that runs differently, as the operator's operand would be `()`.
/// A group with no such fragment inside is kept as it came (see
/// [`splice_let_fragments`]).
pub fn parenthesize_block_like_operands(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group};

    fn starts_block_like(tokens: TokenStream) -> bool {
        match tokens.into_iter().next() {
            Some(TokenTree::Ident(ident)) => {
                matches!(
                    ident.to_string().as_str(),
                    "if" | "match" | "loop" | "while" | "for" | "unsafe"
                )
            }
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::None => {
                starts_block_like(group.stream())
            }
            _ => false,
        }
    }

    fn continues_expression(next: Option<&TokenTree>) -> bool {
        match next {
            Some(TokenTree::Punct(punct)) => !matches!(punct.as_char(), ';' | ','),
            Some(TokenTree::Ident(ident)) => ident == "as",
            Some(TokenTree::Group(group)) => group.delimiter() == Delimiter::Bracket,
            _ => false,
        }
    }

    fn is_operand(group: &Group, next: Option<&TokenTree>) -> bool {
        group.delimiter() == Delimiter::None
            && starts_block_like(group.stream())
            && continues_expression(next)
    }

    fn holds_operand(tokens: &TokenStream) -> bool {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        trees.iter().enumerate().any(|(k, tree)| match tree {
            TokenTree::Group(group) => {
                is_operand(group, trees.get(k + 1)) || holds_operand(&group.stream())
            }
            _ => false,
        })
    }

    if !holds_operand(&tokens) {
        return tokens;
    }
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (k, tree) in trees.iter().enumerate() {
        let TokenTree::Group(group) = tree else {
            out.push(tree.clone());
            continue;
        };
        let operand = is_operand(group, trees.get(k + 1));
        if !operand && !holds_operand(&group.stream()) {
            out.push(tree.clone());
            continue;
        }
        let inner = parenthesize_block_like_operands(group.stream());
        let delimiter = if operand {
            Delimiter::Parenthesis
        } else {
            group.delimiter()
        };
        let mut rebuilt = Group::new(delimiter, inner);
        rebuilt.set_span(group.span());
        out.push(TokenTree::Group(rebuilt));
    }
    out.into_iter().collect()
}

/// Whether any identifier of `stmts` is `name`, items' bodies aside (conservatively: a
/// field or a method of that name counts too). The passes that split a local (`options`,
/// `fields`) ask it whether the local is still mentioned after their rewrite.
pub fn mentions(stmts: &[syn::Stmt], name: &Ident) -> bool {
    Mentions::find(stmts, name, false)
}

/// [`mentions`], or a macro's token of that name (which no rewrite can see into): a use a
/// pass splitting the local did not take.
pub fn mentions_with_macros(stmts: &[syn::Stmt], name: &Ident) -> bool {
    Mentions::find(stmts, name, true)
}

/// Finds an identifier `name` ([`mentions`], and in macros' tokens too with `macros`);
/// an item's body is its own scope, not visited.
struct Mentions<'a> {
    name: &'a Ident,
    macros: bool,
    found: bool,
}

impl Mentions<'_> {
    fn find(stmts: &[syn::Stmt], name: &Ident, macros: bool) -> bool {
        use syn::visit::Visit;
        let mut finder = Mentions {
            name,
            macros,
            found: false,
        };
        for stmt in stmts {
            finder.visit_stmt(stmt);
        }
        finder.found
    }
}

impl<'ast> syn::visit::Visit<'ast> for Mentions<'_> {
    fn visit_ident(&mut self, ident: &'ast Ident) {
        self.found |= ident == self.name;
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if self.macros {
            self.found |= names_in(mac.tokens.clone()).contains(&self.name.to_string());
        }
        syn::visit::visit_macro(self, mac);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether `op` is one of the five arithmetic operators (`+ - * / %`), whose value is a
/// number of its operands' type.
pub fn is_arithmetic(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Add(_)
            | syn::BinOp::Sub(_)
            | syn::BinOp::Mul(_)
            | syn::BinOp::Div(_)
            | syn::BinOp::Rem(_)
    )
}

/// Whether `name` occurs in `stmts` where it may stand for a binding declared before them:
/// any identifier of that name (a field or a method too, conservatively) or a macro's token
/// of that name, except inside the scope of a binding of the same name the statements
/// make themselves (a match arm's pattern over its guard and body, a closure's parameters,
/// a `for` loop's pattern over its body, an `if let`'s over its `then` block, a `let`'s
/// over the statements after it in its block). A pattern that binds the name is no use
/// either. Items' bodies aside. Conservative elsewhere: a `while let` or a let chain
/// binding the name counts as a mention.
pub fn mentions_unshadowed(stmts: &[syn::Stmt], name: &Ident) -> bool {
    use syn::visit::{self, Visit};
    struct Finder<'a> {
        name: &'a Ident,
        found: bool,
    }
    impl Finder<'_> {
        fn stmts(&mut self, stmts: &[syn::Stmt]) {
            for stmt in stmts {
                if let syn::Stmt::Local(local) = stmt {
                    if let Some(init) = &local.init {
                        self.visit_expr(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            self.visit_expr(diverge);
                        }
                    }
                    if pattern_binds(&local.pat, self.name) {
                        // the statements after it read the new binding
                        return;
                    }
                    self.visit_pat(&local.pat);
                } else {
                    self.visit_stmt(stmt);
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_block(&mut self, block: &'ast syn::Block) {
            self.stmts(&block.stmts);
        }
        fn visit_arm(&mut self, arm: &'ast syn::Arm) {
            if !pattern_binds(&arm.pat, self.name) {
                visit::visit_arm(self, arm);
            }
        }
        fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
            if !closure.inputs.iter().any(|p| pattern_binds(p, self.name)) {
                visit::visit_expr_closure(self, closure);
            }
        }
        fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
            self.visit_expr(&for_loop.expr);
            if !pattern_binds(&for_loop.pat, self.name) {
                self.visit_pat(&for_loop.pat);
                self.visit_block(&for_loop.body);
            }
        }
        fn visit_expr_if(&mut self, expr_if: &'ast syn::ExprIf) {
            if let Expr::Let(test) = &*expr_if.cond
                && pattern_binds(&test.pat, self.name)
            {
                self.visit_expr(&test.expr);
                if let Some((_, otherwise)) = &expr_if.else_branch {
                    self.visit_expr(otherwise);
                }
                return;
            }
            visit::visit_expr_if(self, expr_if);
        }
        fn visit_ident(&mut self, ident: &'ast Ident) {
            self.found |= ident == self.name;
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.found |= names_in(mac.tokens.clone()).contains(&self.name.to_string());
            visit::visit_macro(self, mac);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder { name, found: false };
    finder.stmts(stmts);
    finder.found
}

/// The names of the types that hold no float: the integers, `bool`, `char`, `str`, `String`.
pub fn names_no_float(ident: &Ident) -> bool {
    matches!(
        ident.to_string().as_str(),
        "u8" | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "bool"
            | "char"
            | "str"
            | "String"
    )
}

/// A type that holds no float by its spelling: one [`names_no_float`] names, or references,
/// arrays, slices and tuples of those. An alias or a struct may hold one.
pub fn holds_no_float(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => holds_no_float(&reference.elem),
        syn::Type::Array(array) => holds_no_float(&array.elem),
        syn::Type::Slice(slice) => holds_no_float(&slice.elem),
        syn::Type::Tuple(tuple) => tuple.elems.iter().all(holds_no_float),
        syn::Type::Paren(paren) => holds_no_float(&paren.elem),
        syn::Type::Group(group) => holds_no_float(&group.elem),
        syn::Type::Path(path) if path.qself.is_none() => {
            path.path.get_ident().is_some_and(names_no_float)
        }
        _ => false,
    }
}

/// Whether `expr` may write: an assignment (plain or compound) or a `&mut` borrow; with
/// `returns`, also a `return` with a value (which hands it to the adjoint's result); with
/// `reads`, also a macro or a method call not named in `reads` (a `&mut self` method,
/// `buf.push(v)`, writes its receiver).
pub fn may_write(expr: &Expr, returns: bool, reads: Option<&[&str]>) -> bool {
    struct Writes<'r> {
        found: bool,
        returns: bool,
        reads: Option<&'r [&'r str]>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Writes<'_> {
        fn visit_expr_assign(&mut self, _: &'ast syn::ExprAssign) {
            self.found = true;
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            self.found |= is_compound_assign(&binary.op);
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_reference(&mut self, reference: &'ast syn::ExprReference) {
            self.found |= reference.mutability.is_some();
            syn::visit::visit_expr_reference(self, reference);
        }
        fn visit_expr_return(&mut self, ret: &'ast syn::ExprReturn) {
            if self.returns {
                self.found |= ret.expr.is_some();
            } else {
                syn::visit::visit_expr_return(self, ret);
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.found |= self.reads.is_some();
            syn::visit::visit_macro(self, mac);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if let Some(reads) = self.reads {
                self.found |= !reads.contains(&call.method.to_string().as_str());
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let mut writes = Writes {
        found: false,
        returns,
        reads,
    };
    syn::visit::Visit::visit_expr(&mut writes, expr);
    writes.found
}

/// `+=`, `-=`, .. : the compound assignments.
pub fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// A path's last segment, as text (`""` for an empty path): a macro's or a constructor's
/// name however it is qualified (`std::println`, `Option::Some`).
pub fn last_segment(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// The key that names a struct's field in `FieldType<KEY>` (the runtime's): the 64-bit
/// FNV-1a hash of its name (`w`, or a tuple struct's index, `0`), as a `u64` literal. The
/// derive implements `FieldType<KEY>` for each field, and a function's macro names the
/// type of a field it passes on whole through it, both computing the key here.
pub fn field_key(member: &syn::Member) -> proc_macro2::Literal {
    let name = match member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    proc_macro2::Literal::u64_suffixed(hash)
}
