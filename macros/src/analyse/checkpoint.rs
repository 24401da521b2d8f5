//! What `#[differentiable(checkpoint)]` cannot do, rejected before generation: it
//! checkpoints the top-level loops of a scalar-mode body, which the adjoint recomputes
//! segment by segment from snapshots of their state (see `generate::checkpoint`).

use syn::visit::Visit;

use crate::args::Checkpoint;
use crate::ctxt::Ctxt;
use crate::model::ir::{Body, Stmt};
use crate::model::sig::{Mode, Signature};

/// Records an error for each thing a checkpointed body cannot have: tensor parameters, a
/// `return` inside a loop (or inside an expression), or no loop at its top level.
pub fn check(cx: &Ctxt, checkpoint: &Checkpoint, sig: &Signature, item: &syn::ItemFn, body: &Body) {
    let arg = &checkpoint.tokens;
    if sig.mode == Mode::Tensor {
        cx.error_spanned_by(
            arg,
            "checkpoint is for functions of plain floats and float arrays: a function of tensors records op by op, checkpoint its loop with `gradtape::checkpointed_loop` instead",
        );
        return;
    }
    let mut returns = ReturnsInLoops::default();
    returns.visit_block(&item.block);
    for ret in &returns.found {
        cx.error_spanned_by(
            ret,
            "a checkpointed loop cannot `return`: `break` out of the loop and return after it",
        );
    }
    if !returns.found.is_empty() {
        return;
    }
    if body.returned.is_some() {
        cx.error_spanned_by(
            arg,
            "checkpoint needs the body's `return`s to end its branches: a `return` inside an expression makes the whole body a jump target",
        );
        return;
    }
    if !has_top_level_loop(&body.block.stmts) {
        cx.error_spanned_by(
            arg,
            "checkpoint has no loop to checkpoint: it applies to the `for`, `while` and `loop` statements at the top level of the body",
        );
    }
}

fn has_top_level_loop(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match stmt {
        Stmt::Loop { .. } => true,
        Stmt::Scope(block) => has_top_level_loop(&block.stmts),
        _ => false,
    })
}

/// The `return`s inside loops of the body (not inside closures or nested items).
#[derive(Default)]
struct ReturnsInLoops {
    depth: usize,
    found: Vec<syn::ExprReturn>,
}

impl<'ast> Visit<'ast> for ReturnsInLoops {
    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.depth += 1;
        syn::visit::visit_expr_for_loop(self, node);
        self.depth -= 1;
    }
    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        self.depth += 1;
        syn::visit::visit_expr_while(self, node);
        self.depth -= 1;
    }
    fn visit_expr_loop(&mut self, node: &'ast syn::ExprLoop) {
        self.depth += 1;
        syn::visit::visit_expr_loop(self, node);
        self.depth -= 1;
    }
    fn visit_expr_return(&mut self, node: &'ast syn::ExprReturn) {
        if self.depth > 0 {
            self.found.push(node.clone());
        }
        syn::visit::visit_expr_return(self, node);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
