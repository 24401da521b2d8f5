//! Early returns, before lowering: it takes the body's statements and gives them with every
//! supported `return` turned into a branch, so that each path ends in the tail expression
//! (the IR has one exit). A `return` it cannot turn is reported through `validate`.

use syn::Expr;
use syn::visit::Visit;

use crate::ctxt::Ctxt;
use crate::validate;

/// Rewrites early `return`s into `if`/`else` form (`if c { return a; } rest` becomes
/// `if c { a } else { rest }`), so every path ends in the body's tail expression. A `return`
/// anywhere else (in a loop, inside an expression) is an error.
pub fn rewrite(cx: &Ctxt, stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    let Some(i) = stmts.iter().position(contains_return) else {
        return stmts;
    };
    let mut head = stmts[..i].to_vec();
    let rest = stmts[i + 1..].to_vec();
    let stmt = stmts[i].clone();
    let with_rest = |block: Vec<syn::Stmt>| -> syn::Block {
        let mut all = block;
        all.extend(rest.iter().cloned());
        syn::Block {
            brace_token: Default::default(),
            stmts: rewrite(cx, all),
        }
    };
    let expr = match stmt {
        syn::Stmt::Expr(expr, _) => expr,
        other => {
            Reporter(cx).visit_stmt(&other);
            return stmts;
        }
    };
    let rewritten: Expr = match expr {
        Expr::Return(ret) => match ret.expr {
            Some(value) => *value,
            None => syn::parse_quote!(()),
        },
        Expr::If(mut expr_if) => {
            expr_if.then_branch = with_rest(expr_if.then_branch.stmts.clone());
            let else_stmts = match expr_if.else_branch.take() {
                Some((_, else_expr)) => match *else_expr {
                    Expr::Block(block) => block.block.stmts,
                    other => vec![syn::Stmt::Expr(other, None)],
                },
                None => Vec::new(),
            };
            let else_block = with_rest(else_stmts);
            expr_if.else_branch =
                Some((Default::default(), Box::new(syn::parse_quote!(#else_block))));
            Expr::If(expr_if)
        }
        Expr::Match(mut expr_match) => {
            for arm in &mut expr_match.arms {
                let stmts = match &*arm.body {
                    Expr::Block(block) if block.label.is_none() => block.block.stmts.clone(),
                    other => vec![syn::Stmt::Expr(other.clone(), None)],
                };
                let block = with_rest(stmts);
                *arm.body = syn::parse_quote!(#block);
                arm.comma = Some(Default::default());
            }
            Expr::Match(expr_match)
        }
        Expr::Block(mut block) if block.label.is_none() => {
            block.block = with_rest(block.block.stmts.clone());
            Expr::Block(block)
        }
        other => {
            Reporter(cx).visit_expr(&other);
            return stmts;
        }
    };
    head.push(syn::Stmt::Expr(rewritten, None));
    head
}

fn contains_return(stmt: &syn::Stmt) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    finder.visit_stmt(stmt);
    finder.0
}

struct Reporter<'c>(&'c Ctxt);

impl<'ast> Visit<'ast> for Reporter<'_> {
    fn visit_expr_return(&mut self, ret: &'ast syn::ExprReturn) {
        validate::misplaced_return(self.0, ret);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
