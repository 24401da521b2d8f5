//! Analysis of the 0-d path: it takes the signature model and the IR and gives a [`Plan`]
//! when a tensor function's body also runs on plain numbers.
//!
//! The 0-d path of a tensor function: when its body is elementwise, the same forward and
//! adjoint can run on plain numbers (as scalar mode does) whenever every differentiable
//! input of a call is a 0-d tensor. [`plan`] decides at compile time whether a body
//! qualifies; the wrapper checks the shapes at run time.
//!
//! A body qualifies when every differentiable operation is an elementwise one (arithmetic,
//! negation, the unary methods with a `vjp` rule, `maximum`/`minimum`), every constant
//! operand is certainly a plain number (so the result stays 0-d and the code type-checks
//! on numbers), and no code emitted as written names a differentiable value (it would be
//! a number there, not a tensor). Anything else (traced tensor ops, calls, metadata reads,
//! tensor constants of unknown shape) keeps the tensor path only.

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Expr, Lit, Pat, Type};

use crate::model::ir::{Block, Body, LoopHead, Op, Operand, Stmt};
use crate::model::sig::{self, Kind, Mode, Signature};
use crate::syntax::strip_parens;

/// How the 0-d path runs a qualifying function.
pub struct Plan {
    /// The element type every differentiable value has (`f32`, `f64`, or `T`).
    pub elem: Type,
}

/// The plan for `body`, or `None` if it must always run on tensors.
pub fn plan(sig: &Signature, body: &Body) -> Option<Plan> {
    if sig.mode != Mode::Tensor {
        return None;
    }
    let elem = common_elem(sig)?;
    let active: HashSet<String> = body
        .bindings
        .iter()
        .filter(|b| b.active)
        .map(|b| b.name.to_string())
        .collect();
    let mut checker = Checker {
        active,
        scopes: vec![HashMap::new()],
    };
    for param in &sig.params {
        let scalar = matches!(param.kind, Kind::Float { by_ref: false });
        checker.define(param.ident.to_string(), scalar);
    }
    checker.block(&body.block)?;
    for output in &body.outputs {
        checker.operand(output)?;
    }
    Some(Plan { elem })
}

/// The element type shared by every differentiable parameter and every result.
fn common_elem(sig: &Signature) -> Option<Type> {
    let mut elems = sig
        .params
        .iter()
        .filter(|p| p.differentiable(Mode::Tensor))
        .map(|p| p.elem.clone())
        .chain(sig.outputs.iter().map(|ty| sig::tensor_elem(ty).cloned()));
    let first = elems.next()??;
    let name = first.to_token_stream().to_string();
    elems
        .all(|e| e.is_some_and(|e| e.to_token_stream().to_string() == name))
        .then_some(first)
}

/// Walks the body in order, with the plain-number locals of each scope.
struct Checker {
    /// Names of differentiable bindings: numbers on the 0-d path.
    active: HashSet<String>,
    /// Per scope, innermost last: whether a local name is certainly a plain number.
    scopes: Vec<HashMap<String, bool>>,
}

impl Checker {
    fn define(&mut self, name: String, scalar: bool) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name, scalar);
    }

    fn is_scalar_local(&self, name: &str) -> bool {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.get(name).copied())
            .unwrap_or(false)
    }

    /// Code emitted as written must not name a differentiable value.
    fn as_written(&self, tokens: impl ToTokens) -> Option<()> {
        (!names_any(tokens.into_token_stream(), &self.active)).then_some(())
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Option<()>) -> Option<()> {
        self.scopes.push(HashMap::new());
        let result = f(self);
        self.scopes.pop();
        result
    }

    fn block(&mut self, block: &Block) -> Option<()> {
        block.stmts.iter().try_for_each(|stmt| self.stmt(stmt))
    }

    fn stmt(&mut self, stmt: &Stmt) -> Option<()> {
        match stmt {
            Stmt::Plain(tokens) => {
                self.as_written(tokens)?;
                self.plain(tokens);
                Some(())
            }
            Stmt::Declare { .. } | Stmt::Jump { .. } => Some(()),
            // Scalar mode only: no 0-d path.
            Stmt::CallParts { .. } | Stmt::CallWrites { .. } | Stmt::Swap { .. } => None,
            // An active `let` needs no bookkeeping: active names are never read as
            // constants (`as_written` rejects them).
            Stmt::Def { op, .. } => self.op(op),
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                ..
            } => {
                self.as_written(cond)?;
                self.scoped(|c| c.block(then_branch))?;
                self.scoped(|c| c.block(else_branch))
            }
            Stmt::Match {
                scrutinee, arms, ..
            } => {
                self.as_written(scrutinee)?;
                for arm in arms {
                    self.as_written(&arm.pat)?;
                    if let Some(guard) = &arm.guard {
                        self.as_written(guard)?;
                    }
                    self.scoped(|c| {
                        c.shadow(&arm.pat);
                        c.block(&arm.body)
                    })?;
                }
                Some(())
            }
            Stmt::Scope(block) => self.scoped(|c| c.block(block)),
            Stmt::Loop { head, body, .. } => match head {
                LoopHead::For { pat, iter } => {
                    self.as_written(iter)?;
                    self.as_written(pat)?;
                    self.scoped(|c| {
                        c.shadow(pat);
                        c.block(body)
                    })
                }
                LoopHead::While { cond } => {
                    self.as_written(cond)?;
                    self.scoped(|c| c.block(body))
                }
                LoopHead::Loop => self.scoped(|c| c.block(body)),
            },
        }
    }

    /// Records what a plain statement binds: a plain-number local, or a shadowing name.
    fn plain(&mut self, tokens: &TokenStream) {
        let Ok(syn::Stmt::Local(local)) = syn::parse2::<syn::Stmt>(tokens.clone()) else {
            return;
        };
        let (ident, ty) = match &local.pat {
            Pat::Ident(pat) if pat.subpat.is_none() => (&pat.ident, None),
            Pat::Type(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.subpat.is_none() => (&pat.ident, Some(&*typed.ty)),
                _ => return self.shadow(&local.pat),
            },
            _ => return self.shadow(&local.pat),
        };
        let by_value = matches!(&local.pat, Pat::Ident(pat) if pat.by_ref.is_none())
            || matches!(&local.pat, Pat::Type(typed)
                if matches!(&*typed.pat, Pat::Ident(pat) if pat.by_ref.is_none()));
        let scalar = by_value
            && match (ty, &local.init) {
                (Some(ty), _) => is_number_type(ty),
                (None, Some(init)) if init.diverge.is_none() => self.plain_number(&init.expr),
                _ => false,
            };
        self.define(ident.to_string(), scalar);
    }

    /// Every name `pat` binds now means something other than a plain number.
    fn shadow(&mut self, pat: &Pat) {
        for name in idents(pat.to_token_stream()) {
            self.define(name, false);
        }
    }

    fn op(&self, op: &Op) -> Option<()> {
        match op {
            Op::Copy { value, .. } | Op::Neg(value) => self.operand(value),
            Op::Unary { x, args, .. } => {
                self.operand(x)?;
                args.iter().try_for_each(|arg| self.as_written(arg))
            }
            Op::Binary { lhs, rhs, .. } => {
                self.operand(lhs)?;
                self.operand(rhs)
            }
            // scalar mode's: no tensor function has one
            Op::Trace { .. } | Op::Call { .. } | Op::Cast { .. } | Op::Load { .. } => None,
        }
    }

    fn operand(&self, operand: &Operand) -> Option<()> {
        match operand {
            Operand::Active { .. } => Some(()),
            Operand::Inactive(expr) => {
                self.as_written(expr)?;
                let expr = strip_parens(expr);
                (scalar_tensor_arg(expr).is_some() || self.plain_number(expr)).then_some(())
            }
        }
    }

    /// Whether `expr` is certainly a plain number (never a tensor).
    fn plain_number(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Lit(lit) => matches!(lit.lit, Lit::Float(_) | Lit::Int(_)),
            // `as` converts only to primitive types.
            Expr::Cast(_) => true,
            Expr::Path(path) => path
                .path
                .get_ident()
                .is_some_and(|ident| self.is_scalar_local(&ident.to_string())),
            Expr::Unary(unary) => {
                matches!(unary.op, syn::UnOp::Neg(_)) && self.plain_number(&unary.expr)
            }
            Expr::Binary(binary) => {
                crate::syntax::is_arithmetic(&binary.op)
                    && self.plain_number(&binary.left)
                    && self.plain_number(&binary.right)
            }
            Expr::MethodCall(call) => {
                NUMBER_METHODS.contains(&call.method.to_string().as_str())
                    && self.plain_number(&call.receiver)
            }
            _ => false,
        }
    }
}

/// Methods of `f32`/`f64` that return a number of the receiver's type.
const NUMBER_METHODS: &[&str] = &[
    "sqrt", "exp", "ln", "log10", "log2", "sin", "cos", "tan", "tanh", "abs", "powi", "powf",
    "max", "min", "recip", "floor", "ceil", "round", "clone",
];

fn is_number_type(ty: &Type) -> bool {
    const NUMBERS: &[&str] = &[
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize",
    ];
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.get_ident().is_some_and(|i| NUMBERS.iter().any(|n| i == n)))
}

/// `Tensor::scalar(arg)`: a 0-d constant, the number `arg` on the 0-d path.
pub fn scalar_tensor_arg(expr: &Expr) -> Option<&Expr> {
    let Expr::Call(call) = strip_parens(expr) else {
        return None;
    };
    let Expr::Path(func) = &*call.func else {
        return None;
    };
    let segments = crate::syntax::segment_names(&func.path);
    let named = segments.len() >= 2
        && segments[segments.len() - 2] == "Tensor"
        && segments[segments.len() - 1] == "scalar";
    (named && call.args.len() == 1).then(|| &call.args[0])
}

/// Every identifier in `tokens`, at any depth.
fn idents(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Group(group) => out.extend(idents(group.stream())),
            _ => {}
        }
    }
    out
}

fn names_any(tokens: TokenStream, names: &HashSet<String>) -> bool {
    idents(tokens).iter().any(|ident| names.contains(ident))
}
