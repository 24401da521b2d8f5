//! Reads of a local array the adjoint may repeat in place (issues 13 and 14): `k1[i]` in
//! a loop after the loop that filled `k1`, when nothing writes `k1` from the read on. The
//! adjoint runs after the whole forward code, so it sees each element's final value; when
//! no write follows the read, that is the value the read took, and the forward code need
//! not save it (`generate::remat` reads it again, as it reads the caller's arrays).
//!
//! The rule is kept coarse so that it is plainly sound: it works at the granularity of the
//! body's top-level statements (each runs once, in order, when the top block is at depth
//! 0, that is when no `return` jumps out of it). A read of local array `a` in top-level
//! statement `S` qualifies when
//! - `a` is declared by a `let` of the top block (so it is in scope where the adjoint
//!   runs, after the forward code in the same function) with a fresh owned value
//!   (`vec![..]`, `[e; N]`, `[a, b]`, `Vec::new()`, `.to_vec()`): not a view borrowing
//!   another array, which could change under it or end its borrow early;
//! - no binding other than `a` has its name (the adjoint's `a` is that array);
//! - no statement from `S` on (`S` itself included, so a loop that writes `a` in a later
//!   trip, or an outer loop's later trip, never qualifies) writes `a` in any way: an
//!   element write or push, an assignment or declaration, a call's part, a writer's
//!   `&mut a`, a swap, or any mention of `a` in code the IR keeps as tokens (conditions,
//!   loop heads, plain statements, operands as written) other than `a.len()`,
//!   `a.is_empty()` and a shared borrow `&a` passed as it is; the results are checked
//!   the same way, as a statement after the last (a result that moves `a` away);
//! - the body has no checkpointed loop (its adjoint reruns segments of the forward code,
//!   writing the arrays again while it runs).
//!
//! Anything else keeps saving the value, as before.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::Ident;

use crate::model::ir::{BindingId, Block, Body, LoopHead, Op, Operand, Stmt, Target};

/// The temporaries each holding a read (an [`Op::Load`]) of a local array that the
/// adjoint may repeat in place (see the module docs).
pub fn in_place(body: &Body) -> HashSet<BindingId> {
    let mut found = HashSet::new();
    if body.block.depth != 0 || body.checkpoint.is_some() {
        return found;
    }
    let params: HashSet<BindingId> = body.params.iter().flatten().copied().collect();
    // the local arrays declared at the top with a fresh value, by the statement declaring
    let candidates: HashMap<BindingId, usize> = body
        .block
        .stmts
        .iter()
        .enumerate()
        .filter_map(|(at, stmt)| Some((fresh_array_let(body, stmt)?, at)))
        .filter(|(array, _)| {
            let name = &body.bindings[*array].name;
            body.bindings[*array].array
                && !params.contains(array)
                && body.bindings.iter().filter(|b| &b.name == name).count() == 1
        })
        .collect();
    if candidates.is_empty() {
        return found;
    }
    // the last top-level statement that may write each candidate (the results count as
    // one more statement, after the last)
    let mut last_write: HashMap<BindingId, usize> = HashMap::new();
    for (&array, &declared) in &candidates {
        let name = &body.bindings[array].name;
        let mut last = declared;
        for (at, stmt) in body.block.stmts.iter().enumerate().skip(declared + 1) {
            if writes_stmt(stmt, array, name) {
                last = at;
            }
        }
        if body
            .outputs
            .iter()
            .any(|output| !tokens_only_read(output.fwd().to_token_stream(), name))
        {
            last = body.block.stmts.len();
        }
        last_write.insert(array, last);
    }
    for (at, stmt) in body.block.stmts.iter().enumerate() {
        loads(std::slice::from_ref(stmt), &mut |temp, array| {
            if last_write.get(&array).is_some_and(|&last| last < at) {
                found.insert(temp);
            }
        });
    }
    found
}

/// The array a top-level `let` declares with a fresh owned value, if it is one.
fn fresh_array_let(body: &Body, stmt: &Stmt) -> Option<BindingId> {
    match stmt {
        Stmt::Def {
            target: Target::Let { binding, .. },
            op:
                Op::Copy {
                    value: Operand::Inactive(init),
                    ..
                },
            ..
        } => fresh_value(init).then_some(*binding),
        Stmt::Plain(tokens) => {
            let Ok(syn::Stmt::Local(local)) = syn::parse2::<syn::Stmt>(tokens.clone()) else {
                return None;
            };
            let syn::Pat::Ident(pat) = strip_type(&local.pat) else {
                return None;
            };
            let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
            if pat.by_ref.is_some() || pat.subpat.is_some() || !fresh_value(&init.expr) {
                return None;
            }
            let mut named = body
                .bindings
                .iter()
                .enumerate()
                .filter(|(_, b)| b.name == pat.ident);
            let (binding, _) = named.next()?;
            named.next().is_none().then_some(binding)
        }
        _ => None,
    }
}

fn strip_type(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Type(typed) => &typed.pat,
        other => other,
    }
}

/// Whether `expr` makes a new array owning its elements (borrowing nothing).
fn fresh_value(expr: &syn::Expr) -> bool {
    match crate::syntax::strip_parens(expr) {
        syn::Expr::Macro(mac) => mac
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "vec"),
        syn::Expr::Repeat(_) | syn::Expr::Array(_) => true,
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(path) => {
                let names = crate::syntax::segment_names(&path.path);
                matches!(
                    names.iter().map(String::as_str).collect::<Vec<_>>()[..],
                    [.., "Vec", "new" | "with_capacity"]
                )
            }
            _ => false,
        },
        syn::Expr::MethodCall(call) => call.method == "to_vec" && call.args.is_empty(),
        _ => false,
    }
}

/// Calls `found(temp, array)` for each read `let temp = array[index];` in `stmts`, at
/// any depth.
fn loads(stmts: &[Stmt], found: &mut impl FnMut(BindingId, BindingId)) {
    for stmt in stmts {
        match stmt {
            Stmt::Def {
                target: Target::Let { binding, .. },
                op: Op::Load { array, .. },
                ..
            } => found(*binding, *array),
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                loads(&then_branch.stmts, found);
                loads(&else_branch.stmts, found);
            }
            Stmt::Match { arms, .. } => arms.iter().for_each(|arm| loads(&arm.body.stmts, found)),
            Stmt::Loop { body, .. } | Stmt::Scope(body) => loads(&body.stmts, found),
            _ => {}
        }
    }
}

/// Whether `stmt` may write `array` (named `name`), at any depth: see the module docs.
fn writes_stmt(stmt: &Stmt, array: BindingId, name: &Ident) -> bool {
    let block = |block: &Block| block.stmts.iter().any(|s| writes_stmt(s, array, name));
    let operand = |operand: &Operand| !tokens_only_read(operand.fwd().to_token_stream(), name);
    let tokens = |tokens: TokenStream| !tokens_only_read(tokens, name);
    match stmt {
        Stmt::Plain(code) => tokens(code.clone()),
        Stmt::Declare { binding, .. } => *binding == array,
        Stmt::Def { target, op, .. } => {
            target.binding() == array
                || match op {
                    Op::Copy { value, .. } => operand(value),
                    Op::Neg(x) | Op::Cast { x, .. } => operand(x),
                    Op::Unary { x, args, .. } => {
                        operand(x) || args.iter().any(|arg| tokens(arg.to_token_stream()))
                    }
                    Op::Binary { kind, lhs, rhs } => {
                        let fused = match kind {
                            crate::model::ir::BinaryKind::FusedMulAdd(pair) => {
                                operand(&pair.0) || operand(&pair.1)
                            }
                            _ => false,
                        };
                        fused || operand(lhs) || operand(rhs)
                    }
                    Op::Trace { expr, inputs } => {
                        tokens(expr.to_token_stream())
                            || inputs
                                .iter()
                                .any(|(b, e)| *b == array || tokens(e.to_token_stream()))
                    }
                    Op::Call { args, .. } => args.iter().any(operand),
                    // a read, by the array's binding
                    Op::Load { .. } => false,
                }
        }
        Stmt::If {
            cond,
            then_branch,
            else_branch,
            ..
        } => tokens(cond.to_token_stream()) || block(then_branch) || block(else_branch),
        Stmt::Match {
            scrutinee, arms, ..
        } => {
            tokens(scrutinee.to_token_stream())
                || arms.iter().any(|arm| {
                    tokens(arm.pat.to_token_stream())
                        || arm
                            .guard
                            .as_ref()
                            .is_some_and(|g| tokens(g.to_token_stream()))
                        || block(&arm.body)
                })
        }
        Stmt::Loop { head, body, .. } => {
            let head = match head {
                LoopHead::For { pat, iter } => {
                    tokens(pat.to_token_stream()) || tokens(iter.to_token_stream())
                }
                LoopHead::While { cond } => tokens(cond.to_token_stream()),
                LoopHead::Loop => false,
            };
            head || block(body)
        }
        Stmt::CallParts { args, parts, .. } => parts.contains(&array) || args.iter().any(operand),
        Stmt::CallWrites {
            args,
            written,
            result,
            ..
        } => {
            written
                .iter()
                .any(|w| args[w.position].binding() == Some(array))
                || result.bindings().contains(&array)
                || args.iter().any(operand)
        }
        Stmt::Swap { a, b, code } => *a == array || *b == array || tokens(code.clone()),
        Stmt::Jump { .. } => false,
        Stmt::Scope(body) => block(body),
    }
}

/// Whether every mention of `name` in `tokens` (groups included) only reads the array:
/// `name.len()`, `name.is_empty()`, or `&name` alone (an argument, a whole operand). A
/// name after a `.` is a field or method, not the binding. Anything else may write it,
/// move it or shadow it.
fn tokens_only_read(tokens: TokenStream, name: &Ident) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().all(|(k, tree)| match tree {
        TokenTree::Group(group) => tokens_only_read(group.stream(), name),
        TokenTree::Ident(ident) if ident == name => {
            let punct = |at: Option<&TokenTree>, ch: char| {
                matches!(at, Some(TokenTree::Punct(p)) if p.as_char() == ch)
            };
            let before = k.checked_sub(1).and_then(|b| trees.get(b));
            let (next, method, call) = (trees.get(k + 1), trees.get(k + 2), trees.get(k + 3));
            // (`..name` is a range, not a field)
            let field = punct(before, '.')
                && !k
                    .checked_sub(2)
                    .is_some_and(|b| punct(trees.get(b), '.'));
            let query = punct(next, '.')
                && matches!(method, Some(TokenTree::Ident(m)) if m == "len" || m == "is_empty")
                && matches!(call, Some(TokenTree::Group(g))
                    if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
            let shared_borrow = punct(before, '&')
                && !k
                    .checked_sub(2)
                    .is_some_and(|b| punct(trees.get(b), '&'))
                && (next.is_none() || punct(next, ','));
            field || query || shared_borrow
        }
        _ => true,
    })
}
