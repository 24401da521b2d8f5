//! Analysis of what the adjoint needs: it takes the IR and gives, per binding, whether the
//! adjoint needs it, and whether the adjoint is batch-safe. A binding is *useful* if the
//! result depends on it through differentiable operations. Only useful operations save
//! values and get reverse code; the rest of the forward code runs as written.

use crate::model::ir::{Block, Body, Op, Operand, Stmt, Target};

/// `useful[b]` for every binding `b`.
pub fn useful(body: &Body) -> Vec<bool> {
    let mut useful = vec![false; body.bindings.len()];
    for output in &body.outputs {
        if let Some(binding) = output.binding() {
            useful[binding] = true;
        }
    }
    for &written in &body.written {
        useful[written] = true;
    }
    // Loops and reassignment make the dependence cyclic: iterate to the fixed point.
    loop {
        let mut changed = false;
        visit_call_parts(&body.block, &mut |parts, args| {
            if parts.iter().any(|&b| useful[b]) {
                for arg in args.iter().filter_map(Operand::binding) {
                    if !useful[arg] {
                        useful[arg] = true;
                        changed = true;
                    }
                }
            }
        });
        visit_defs(&body.block, &mut |target, op| {
            let target = target.binding();
            if !useful[target] {
                return;
            }
            for operand in operands(op) {
                if !useful[operand] {
                    useful[operand] = true;
                    changed = true;
                }
            }
        });
        if !changed {
            return useful;
        }
    }
}

/// Whether the adjoint is right as it stands for a cotangent with leading batch axes (a
/// jacobian's vectorised sweep), so that the fused node can run it once for all rows.
///
/// True when every op with reverse code has an elementwise rule (`g ⊙ c`, with `c` from
/// the forward values) followed by a sum over broadcast axes, which `generated::unbroadcast`
/// does behind the batch axes: such maps commute with stacking cotangents along a leading
/// axis. Control flow replays saved decisions, independent of the cotangent. A traced call
/// (matmul, reductions, reshapes, other functions) runs a `gradient` of its own, which
/// knows nothing of the outer sweep's batch axes: not batch-safe.
pub fn batch_safe(body: &Body, useful: &[bool]) -> bool {
    let mut safe = true;
    visit_defs(&body.block, &mut |target, op| {
        if useful[target.binding()] && matches!(op, Op::Trace { .. } | Op::Call { .. }) {
            safe = false;
        }
    });
    safe
}

/// The active bindings an op reads.
pub fn operands(op: &Op) -> Vec<usize> {
    match op {
        Op::Copy { value, .. } => value.binding().into_iter().collect(),
        Op::Neg(x) | Op::Unary { x, .. } | Op::Cast { x, .. } => x.binding().into_iter().collect(),
        Op::Binary { lhs, rhs, .. } => lhs.binding().into_iter().chain(rhs.binding()).collect(),
        Op::Trace { inputs, .. } => inputs.iter().map(|(binding, _)| *binding).collect(),
        Op::Call { args, .. } => args.iter().filter_map(|arg| arg.binding()).collect(),
        Op::Load { array, .. } => vec![*array],
    }
}

/// Calls `f` with the parts and arguments of every [`Stmt::CallParts`], and with the
/// arrays written (and the result) and arguments of every [`Stmt::CallWrites`] (a written
/// array is a result of the call, and an argument too: the values it keeps reach the
/// result through it).
fn visit_call_parts(block: &Block, f: &mut impl FnMut(&[usize], &[Operand])) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::CallParts { parts, args, .. } => f(parts, args),
            Stmt::CallWrites {
                args,
                written,
                result,
                ..
            } => {
                let results: Vec<usize> = written
                    .iter()
                    .filter_map(|w| args[w.position].binding())
                    .chain(result.bindings().iter().copied())
                    .collect();
                f(&results, args)
            }
            // each array is a result of the swap and an argument of it
            Stmt::Swap { a, b, .. } => {
                let operand = |binding: usize| Operand::Active {
                    binding,
                    fwd: syn::parse_quote!(swapped),
                };
                f(&[*a, *b], &[operand(*a), operand(*b)])
            }
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                visit_call_parts(then_branch, f);
                visit_call_parts(else_branch, f);
            }
            Stmt::Match { arms, .. } => arms.iter().for_each(|arm| visit_call_parts(&arm.body, f)),
            Stmt::Loop { body, .. } | Stmt::Scope(body) => visit_call_parts(body, f),
            Stmt::Plain(_) | Stmt::Declare { .. } | Stmt::Def { .. } | Stmt::Jump { .. } => {}
        }
    }
}

fn visit_defs(block: &Block, f: &mut impl FnMut(&Target, &Op)) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Def { target, op, .. } => f(target, op),
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                visit_defs(then_branch, f);
                visit_defs(else_branch, f);
            }
            Stmt::Match { arms, .. } => arms.iter().for_each(|arm| visit_defs(&arm.body, f)),
            Stmt::Loop { body, .. } | Stmt::Scope(body) => visit_defs(body, f),
            Stmt::Plain(_)
            | Stmt::Declare { .. }
            | Stmt::Jump { .. }
            | Stmt::CallParts { .. }
            | Stmt::CallWrites { .. }
            | Stmt::Swap { .. } => {}
        }
    }
}
