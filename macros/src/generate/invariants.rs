//! Operands a loop reads but never changes, saved once as the loop starts rather than on
//! every trip (scalar mode): `dt` in `x += dt * v`, `cos` in `p[i] * cos` after `let cos
//! = theta.cos();`. The adjoint pops the value with the loop's trip count, before it
//! replays the trips, and every trip's rule reads it from there.
//!
//! Exact: such an operand is a binding with one value for the whole run of the loop,
//! because
//! - it is a parameter nothing writes, or a binding defined once by an immutable `let`
//!   (`remat::collect`: no other write, declaration, call part or swap targets it);
//! - it is defined outside the loop (its definition's enclosing loops are a strict prefix
//!   of the loops around the use), so it is defined before the loop starts and does not
//!   change while the loop runs;
//! - it is a number, not an array;
//! - a constant operand (`h` in `h * k[i]`, an inactive name) qualifies the same way: a
//!   name bound once in the whole function (so it names that binding wherever it
//!   appears), by an immutable `let` with a value (run as written), met before the use.
//!
//! It is saved at the outermost loop entered after its definition (the fewest saves),
//! where it is in scope: the use is in its scope and in that loop, and its definition is
//! not in that loop, so the whole loop is in its scope.

use std::collections::{HashMap, HashSet};

use super::Generator;
use crate::model::ir::{BindingId, Block, Op, Operand, Stmt, Target};

/// The plan: which bindings each loop saves as it starts, and which operands read them.
#[derive(Default)]
pub(super) struct Invariants {
    /// For each loop (its id): the bindings saved as it starts, with the operand to save
    /// (an active operand naming the binding), in the order first met.
    pub(super) per_loop: HashMap<usize, Vec<(BindingId, Operand)>>,
    /// For each binary op (its statement's id) and side (0 for the left operand): the loop
    /// whose start saved it, and the binding.
    pub(super) uses: HashMap<(usize, usize), (usize, BindingId)>,
    /// The depth of each loop statement (its block's): where its saves are made.
    pub(super) depths: HashMap<usize, usize>,
}

impl Invariants {
    /// The name of the value loop `start` saves of `binding`.
    pub(super) fn name(start: usize, binding: BindingId) -> String {
        format!("inv{start}_{binding}")
    }
}

impl Invariants {
    pub(super) fn plan(generator: &Generator) -> Self {
        let mut plan = Invariants::default();
        // scalar code that saves, and no checkpointed loop (its segments rerun the loop)
        if generator.tensor()
            || generator.zero_d().is_some()
            || !generator.saving
            || generator.body.checkpoint.is_some()
        {
            return plan;
        }
        let (mut lets, mut written) = (HashMap::new(), HashSet::new());
        super::remat::collect(&generator.body.block, &mut lets, &mut written);
        let mut constant: HashSet<BindingId> = lets
            .into_iter()
            .filter(|(b, ops)| ops.len() == 1 && !written.contains(b))
            .map(|(b, _)| b)
            .collect();
        let mut defined: HashMap<BindingId, Vec<usize>> = HashMap::new();
        for binding in generator.body.params.iter().flatten() {
            if !written.contains(binding) {
                constant.insert(*binding);
            }
            defined.insert(*binding, Vec::new());
        }
        let mut walk = Walk {
            generator,
            constant,
            defined,
            loops: Vec::new(),
            plan: &mut plan,
        };
        walk.block(&generator.body.block);
        plan
    }
}

struct Walk<'g, 'a> {
    generator: &'g Generator<'a>,
    constant: HashSet<BindingId>,
    /// The loops around each binding's definition, outermost first.
    defined: HashMap<BindingId, Vec<usize>>,
    /// The loops around the statement being walked, outermost first.
    loops: Vec<usize>,
    plan: &'g mut Invariants,
}

impl Walk<'_, '_> {
    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Def { id, target, op } => {
                    if let Op::Binary { kind, lhs, rhs } = op
                        && self.generator.selection(kind, lhs, rhs).is_none()
                    {
                        let keeps = self.generator.binary_saves(kind, lhs, rhs);
                        for (side, (operand, keep)) in
                            [(lhs, keeps.0), (rhs, keeps.1)].into_iter().enumerate()
                        {
                            if keep {
                                self.operand(*id, side, operand);
                            }
                        }
                    }
                    if let Target::Let { binding, .. } = target {
                        self.defined.insert(*binding, self.loops.clone());
                    }
                }
                Stmt::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    self.block(then_branch);
                    self.block(else_branch);
                }
                Stmt::Match { arms, .. } => {
                    for arm in arms {
                        self.block(&arm.body);
                    }
                }
                Stmt::Scope(body) => self.block(body),
                Stmt::Plain(tokens) => {
                    if let Ok(syn::Stmt::Local(local)) = syn::parse2::<syn::Stmt>(tokens.clone())
                        && local
                            .init
                            .as_ref()
                            .is_some_and(|init| init.diverge.is_none())
                        && let syn::Pat::Ident(pat) = &local.pat
                        && pat.mutability.is_none()
                        && pat.by_ref.is_none()
                        && pat.subpat.is_none()
                        && let Some(binding) = self.unique(&pat.ident)
                    {
                        self.defined.insert(binding, self.loops.clone());
                        self.constant.insert(binding);
                    }
                }
                Stmt::Loop { id, body, .. } => {
                    self.plan.depths.insert(*id, block.depth);
                    self.loops.push(*id);
                    self.block(body);
                    self.loops.pop();
                }
                _ => {}
            }
        }
    }

    /// The binding of a name the function binds exactly once.
    fn unique(&self, name: &syn::Ident) -> Option<BindingId> {
        let bindings = &self.generator.body.bindings;
        let mut named = bindings.iter().enumerate().filter(|(_, b)| b.name == *name);
        let (binding, _) = named.next()?;
        named.next().is_none().then_some(binding)
    }

    /// A kept operand of the op `id`: planned if it is constant and defined outside the
    /// innermost loop around the op.
    fn operand(&mut self, id: usize, side: usize, operand: &Operand) {
        let binding = match operand.binding() {
            Some(binding) => binding,
            // a constant name, bound once (`Stmt::Plain` lets above)
            None => match crate::syntax::single_ident(crate::syntax::strip_parens(operand.fwd()))
                .and_then(|ident| self.unique(ident))
            {
                Some(binding) => binding,
                None => return,
            },
        };
        // read by its name (not through a method or a dereference): the same expression
        // at the loop's start
        let name = &self.generator.body.bindings[binding].name;
        if !crate::syntax::is_name(operand.fwd(), name) {
            return;
        }
        if !self.constant.contains(&binding) || self.generator.body.bindings[binding].array {
            return;
        }
        let Some(outside) = self.defined.get(&binding) else {
            return;
        };
        // the loops around the definition are the first loops around the use
        if outside.len() >= self.loops.len() || self.loops[..outside.len()] != outside[..] {
            return;
        }
        let start = self.loops[outside.len()];
        let saved = self.plan.per_loop.entry(start).or_default();
        if !saved.iter().any(|(b, _)| *b == binding) {
            saved.push((binding, operand.clone()));
        }
        self.plan.uses.insert((id, side), (start, binding));
    }
}
