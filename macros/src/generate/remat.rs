//! Values `grad_into`'s adjoint recomputes instead of saving (issue 13): an operand of a
//! binary op that is a short chain of arithmetic on elements of the caller's arrays, read
//! at loop counters (`(a - b) * (a - b)` with `a = p[j]`, `b = c[j]`). The forward code
//! then saves nothing per iteration for it, and the adjoint reads the elements again.
//!
//! Exact, bit for bit: the recomputed value is the same IEEE operations on the same
//! inputs, because
//! - every binding in the chain is defined once, by an immutable `let` (no other write,
//!   declaration, call part or swap targets it), so it holds one value per run of its
//!   scope, and the adjoint of an op runs in the replay of the iteration the op ran in;
//! - each element read is of an array parameter borrowed immutably (`&[F]`, `&[[F; N]]`,
//!   `&[Vec<F>]`, ...: nothing writes it during the call, and it outlives the adjoint,
//!   which `grad_into` runs in the same function), whose name no binding shadows; or of a
//!   local array of the top block that nothing writes from the read on
//!   (`analyse::local_reads`), so that the element still holds the value read;
//! - each index is recomputed from the loop counters (`Recompute`), as the read itself
//!   would be in the adjoint;
//! - a constant name (`constants`: bound once, by an immutable `let` of the top block run
//!   as written) holds the same value wherever the adjoint reads it, as below;
//! - a name read as it is (`names`) holds the same value wherever the adjoint reads it: a
//!   float parameter taken by value and never written, or a binding of an immutable `let`
//!   in the body's top block (straight-line code, before every loop's adjoint runs), whose
//!   scope is the function's, so the adjoint (after the forward code, in the same
//!   function) sees it; in both cases no other binding has its name (nothing shadows it).
//!
//! Only `grad_into`: `vjp`'s pullback is a `'static` closure (`+ use<>`) that cannot
//! borrow the arrays.

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;
use syn::Type;

use super::Generator;
use crate::model::ir::{BinaryKind, BindingId, Block, Body, Op, Operand, Recompute, Stmt, Target};
use crate::model::sig::{Kind, Signature};

/// The most operations a recomputed value repeats (element reads count): past that,
/// popping a saved value is cheaper.
const MAX_OPS: usize = 4;

/// What the adjoint may recompute.
#[derive(Default)]
pub(super) struct Remat<'a> {
    /// The one definition of each binding defined once, by an immutable `let`.
    defs: HashMap<BindingId, &'a Op>,
    /// The array parameters the adjoint may read again.
    arrays: HashSet<BindingId>,
    /// The bindings the adjoint may read by name: float parameters by value never
    /// written, and immutable `let`s of the top block, none of them shadowed.
    names: HashSet<BindingId>,
    /// The temporaries holding reads of local arrays that nothing writes from the read
    /// on (`analyse::local_reads`): the adjoint reads the element again too.
    local_reads: HashSet<BindingId>,
    /// Constant names the adjoint may read as they are (`half` in `y[i] + half * k[i]`):
    /// each bound by an immutable `let` of the top block and by nothing else.
    constants: HashSet<String>,
}

impl<'a> Remat<'a> {
    pub(super) fn plan(sig: &Signature, body: &'a Body) -> Self {
        let mut lets: HashMap<BindingId, Vec<&'a Op>> = HashMap::new();
        let mut written = HashSet::new();
        collect(&body.block, &mut lets, &mut written);
        let defs: HashMap<BindingId, &'a Op> = lets
            .into_iter()
            .filter(|(b, ops)| ops.len() == 1 && !written.contains(b))
            .map(|(b, ops)| (b, ops[0]))
            .collect();
        let unshadowed = |binding: BindingId| {
            let name = &body.bindings[binding].name;
            body.bindings.iter().filter(|b| &b.name == name).count() == 1
        };
        let scalar_params = sig
            .params
            .iter()
            .zip(&body.params)
            .filter_map(|(param, binding)| {
                let binding = (*binding)?;
                let by_value = param.kind == Kind::Float { by_ref: false } && !param.mutable;
                (by_value && !written.contains(&binding)).then_some(binding)
            });
        // the top block runs once, in straight line, when its depth is 0 (a body a jump
        // may leave runs at depth 1, inside a labelled block)
        let top_lets = body
            .block
            .stmts
            .iter()
            .filter(|_| body.block.depth == 0)
            .filter_map(|stmt| match stmt {
                Stmt::Def {
                    target:
                        Target::Let {
                            binding,
                            mutable: false,
                            ..
                        },
                    ..
                } if defs.contains_key(binding) => Some(*binding),
                _ => None,
            });
        let names = scalar_params
            .chain(top_lets)
            .filter(|&binding| unshadowed(binding))
            .collect();
        let arrays = sig
            .params
            .iter()
            .zip(&body.params)
            .filter_map(|(param, binding)| {
                let binding = (*binding)?;
                let borrowed = matches!(&param.ty, Type::Reference(r) if r.mutability.is_none());
                let array = matches!(
                    param.kind,
                    Kind::Array {
                        by_mut_ref: false,
                        ..
                    }
                );
                let name = param.ident.to_string();
                let unshadowed = body.bindings.iter().filter(|b| b.name == name).count() == 1;
                (borrowed && array && unshadowed && !written.contains(&binding)).then_some(binding)
            })
            .collect();
        Remat {
            defs,
            arrays,
            names,
            local_reads: crate::analyse::local_reads::in_place(body),
            constants: top_constants(body),
        }
    }
}

/// The names bound by an immutable `let` of the top block that runs as written (a
/// constant: `let half = h / 2.0;`), that no other binding has: the same value wherever
/// the adjoint, after the forward code in the same function, reads the name.
fn top_constants(body: &Body) -> HashSet<String> {
    if body.block.depth != 0 {
        return HashSet::new();
    }
    body.block
        .stmts
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Plain(tokens) => match syn::parse2::<syn::Stmt>(tokens.clone()) {
                Ok(syn::Stmt::Local(local)) => Some(local),
                _ => None,
            },
            _ => None,
        })
        .filter(|local| {
            local
                .init
                .as_ref()
                .is_some_and(|init| init.diverge.is_none())
        })
        .filter_map(|local| {
            let pat = match local.pat {
                syn::Pat::Type(typed) => *typed.pat,
                pat => pat,
            };
            match pat {
                syn::Pat::Ident(pat)
                    if pat.mutability.is_none() && pat.by_ref.is_none() && pat.subpat.is_none() =>
                {
                    Some(pat.ident)
                }
                _ => None,
            }
        })
        .filter(|name| body.bindings.iter().filter(|b| b.name == *name).count() == 1)
        .map(|name| name.to_string())
        .collect()
}

/// The immutable `let`s of each binding, and the bindings written any other way.
pub(super) fn collect<'a>(
    block: &'a Block,
    lets: &mut HashMap<BindingId, Vec<&'a Op>>,
    written: &mut HashSet<BindingId>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Def {
                target:
                    Target::Let {
                        binding,
                        mutable: false,
                        ..
                    },
                op,
                ..
            } => lets.entry(*binding).or_default().push(op),
            Stmt::Def { target, .. } => {
                written.insert(target.binding());
            }
            Stmt::Declare { binding, .. } => {
                written.insert(*binding);
            }
            Stmt::CallParts { parts, .. } => written.extend(parts.iter().copied()),
            Stmt::CallWrites {
                args,
                written: arrays,
                result,
                ..
            } => {
                written.extend(arrays.iter().filter_map(|w| args[w.position].binding()));
                written.extend(result.bindings().iter().copied());
            }
            Stmt::Swap { a, b, .. } => written.extend([*a, *b]),
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                collect(then_branch, lets, written);
                collect(else_branch, lets, written);
            }
            Stmt::Match { arms, .. } => {
                for arm in arms {
                    collect(&arm.body, lets, written);
                }
            }
            Stmt::Loop { body, .. } | Stmt::Scope(body) => collect(body, lets, written),
            Stmt::Plain(_) | Stmt::Jump { .. } => {}
        }
    }
}

impl Generator<'_> {
    /// The value of `operand` recomputed in the adjoint (an expression), if `grad_into`'s
    /// adjoint can recompute it (see the module docs); the forward code then does not save
    /// it. The same answer in the forward code and the adjoint: it depends on the IR only.
    pub(super) fn rematerialized(&self, operand: &Operand) -> Option<TokenStream> {
        if !self.same_body() {
            return None;
        }
        let mut ops = 0;
        let value = self.recompute_binding(operand.binding()?, &mut ops)?;
        // a copy of a name costs less than recomputing it, and saves nothing either way
        (ops > 0).then_some(value)
    }

    /// Whether the adjoint may read `array` again, a parameter nothing writes.
    pub(super) fn rereads(&self, array: BindingId) -> bool {
        self.remat.arrays.contains(&array)
    }

    fn recompute_binding(&self, binding: BindingId, ops: &mut usize) -> Option<TokenStream> {
        if self.remat.names.contains(&binding) {
            // read as it is: no operation
            let name = self.name(binding);
            return Some(quote!(#name));
        }
        let op = *self.remat.defs.get(&binding)?;
        let operand = |operand: &Operand, ops: &mut usize| match operand {
            Operand::Active { binding, .. } => self.recompute_binding(*binding, ops),
            Operand::Inactive(expr) if super::is_literal(expr) => Some(quote!(#expr)),
            Operand::Inactive(expr)
                if crate::syntax::single_ident(crate::syntax::strip_parens(expr))
                    .is_some_and(|name| self.remat.constants.contains(&name.to_string())) =>
            {
                Some(quote!(#expr))
            }
            Operand::Inactive(_) => None,
        };
        match op {
            Op::Copy { value, .. } => operand(value, ops),
            Op::Neg(x) => {
                *ops += 1;
                let x = operand(x, ops)?;
                Some(quote!((-#x)))
            }
            Op::Binary { kind, lhs, rhs } => {
                let symbol = match kind {
                    BinaryKind::Add => quote!(+),
                    BinaryKind::Sub => quote!(-),
                    BinaryKind::Mul => quote!(*),
                    BinaryKind::Div => quote!(/),
                    // (a fused sum is not `+`: its value is saved, never recomputed; a
                    // remainder is recomputed by no rule, so not here either)
                    BinaryKind::Rem | BinaryKind::Method { .. } | BinaryKind::FusedMulAdd(_) => {
                        return None;
                    }
                };
                *ops += 1;
                let (l, r) = (operand(lhs, ops)?, operand(rhs, ops)?);
                Some(quote!((#l #symbol #r)))
            }
            Op::Load {
                array,
                counter: Some(counter),
                ..
            } if self.remat.arrays.contains(array) || self.remat.local_reads.contains(&binding) => {
                *ops += 1;
                let name = &self.body.bindings[*array].name;
                match counter {
                    Recompute::Counter(k) => {
                        if let Some(element) = self.read_window_element(*array, k) {
                            return Some(element).filter(|_| *ops <= MAX_OPS);
                        }
                        let k = self.replayed_counter(*k);
                        Some(quote!(#name[#k]))
                    }
                    Recompute::Element { row, col, .. } => {
                        let (r, c) = (self.replayed_counter(*row), self.replayed_counter(*col));
                        Some(quote!(#name[#r][#c]))
                    }
                }
            }
            _ => None,
        }
        .filter(|_| *ops <= MAX_OPS)
    }
}
