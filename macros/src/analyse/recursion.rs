//! Which functions box their pullback, for recursion (scalar mode's one fallback besides
//! plain helpers): a pullback type that contains itself cannot be an `impl Fn`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ItemFn;

use crate::args::Calls;
use crate::model::sig::Mode;

/// The call that makes the function's pullback boxed, if any: its type would otherwise contain itself
/// (rustc's E0720, "cannot resolve opaque type"). That happens when the function is on a
/// cycle of calls, since each function's pullback holds its callees' pullbacks: the
/// function calls itself (`name(..)`, `Self::name(..)`, `self.name(..)`), or, in scalar
/// mode, another function sits on a cycle with it (mutual recursion), which the macro
/// cannot see from one function. A cycle that ends has a call that is conditional (in an
/// `if`, a `match` arm, a loop's body or condition, or the right of `&&`/`||`), so every
/// function with such a call of another function is boxed: each cycle then holds at least
/// one boxed pullback (a call of a plain helper is never on a cycle). The cost, one allocation per call of the function, falls only on
/// functions that call others conditionally; a function whose calls are all unconditional
/// keeps its `impl Fn`.
pub fn boxing_call(item: &ItemFn, mode: Mode, calls: &Calls) -> Option<TokenStream> {
    use syn::visit::Visit;
    struct Finder<'a> {
        name: &'a syn::Ident,
        scalar: bool,
        calls: &'a Calls,
        /// How many conditional contexts enclose the visitor.
        conditional: usize,
        /// The first call that makes the pullback boxed.
        found: Option<TokenStream>,
    }
    impl Finder<'_> {
        fn under_condition(&mut self, visit: impl FnOnce(&mut Self)) {
            self.conditional += 1;
            visit(self);
            self.conditional -= 1;
        }
        /// A call of another function, by a path, that lowering takes for a call of an
        /// annotated function (`helper`, `physics::helper`): not a constructor or a
        /// type's associated function (`Some`, `Tensor::scalar`), which it rejects on
        /// differentiable values, nor `stop_gradient`.
        fn may_be_annotated(&self, path: &syn::Path) -> bool {
            self.calls.plain_helper(path).is_none()
                && !crate::syntax::is_constructor(path)
                && (!crate::syntax::is_associated(path)
                    || crate::syntax::is_annotated_associated(path))
                && path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident != "stop_gradient")
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(path) = crate::syntax::strip_parens(&call.func) {
                let segments: Vec<&syn::Ident> =
                    path.path.segments.iter().map(|s| &s.ident).collect();
                let itself = match segments.as_slice() {
                    [name] => *name == self.name,
                    [first, name] => *first == "Self" && *name == self.name,
                    _ => false,
                };
                // (a struct result's twin's conversion of a field is no call of a function)
                let conditional_call = self.scalar
                    && self.conditional > 0
                    && self.may_be_annotated(&path.path)
                    && path
                        .path
                        .segments
                        .last()
                        .is_none_or(|last| last.ident != "result_field");
                if (itself || conditional_call) && self.found.is_none() {
                    self.found = Some(call.to_token_stream());
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            // `self.name(..)`: the method itself; `self.other(..)` conditionally (scalar
            // mode): possibly a method on a cycle with it. A float method of a field
            // (`self.k.sin()`) is neither.
            let on_self = matches!(
                crate::syntax::strip_parens(&call.receiver),
                syn::Expr::Path(path) if path.path.is_ident("self")
            );
            let name = call.method.to_string();
            let float_method = crate::vocabulary::elementwise(&name).is_some()
                || crate::vocabulary::binary_method(&name, true).is_some();
            let cycle = on_self
                && (call.method == *self.name
                    || (self.scalar && self.conditional > 0 && !float_method));
            if cycle && self.found.is_none() {
                self.found = Some(call.to_token_stream());
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_expr_if(&mut self, expr: &'ast syn::ExprIf) {
            self.visit_expr(&expr.cond);
            self.under_condition(|this| {
                this.visit_block(&expr.then_branch);
                if let Some((_, other)) = &expr.else_branch {
                    this.visit_expr(other);
                }
            });
        }
        fn visit_arm(&mut self, arm: &'ast syn::Arm) {
            self.under_condition(|this| syn::visit::visit_arm(this, arm));
        }
        fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
            self.visit_expr(&expr.expr);
            self.under_condition(|this| this.visit_block(&expr.body));
        }
        fn visit_expr_while(&mut self, expr: &'ast syn::ExprWhile) {
            self.under_condition(|this| syn::visit::visit_expr_while(this, expr));
        }
        fn visit_expr_loop(&mut self, expr: &'ast syn::ExprLoop) {
            self.under_condition(|this| syn::visit::visit_expr_loop(this, expr));
        }
        fn visit_expr_binary(&mut self, expr: &'ast syn::ExprBinary) {
            if matches!(expr.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
                self.visit_expr(&expr.left);
                self.under_condition(|this| this.visit_expr(&expr.right));
            } else {
                syn::visit::visit_expr_binary(self, expr);
            }
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            // `let .. else { .. }`: the diverging block runs conditionally
            self.visit_pat(&local.pat);
            if let Some(init) = &local.init {
                self.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.under_condition(|this| this.visit_expr(diverge));
                }
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        name: &item.sig.ident,
        scalar: mode == Mode::Scalar,
        calls,
        conditional: 0,
        found: None,
    };
    finder.visit_block(&item.block);
    finder.found
}
