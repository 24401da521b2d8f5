//! Code generation. For `fn f`, the attribute emits:
//!
//! - `fn f` itself: in tensor mode, the original body at plain speed when nothing records
//!   (or no input is watched), otherwise one fused node on the tapes whose rule is the
//!   generated adjoint; in scalar mode, the original function unchanged.
//! - a companion type `f` (a braced struct, so it lives beside the function) with
//!   `f::vjp` (forward code that saves what the adjoint needs, returning the value and the
//!   pullback closure), `f::primal` (the original body), in scalar mode `f::grad`, for
//!   elementwise tensor functions `f::vjp_scalar` (the same on plain numbers, which `f`
//!   runs when every differentiable input is 0-d; see [`fast`]), and `f::GENERATED`, the
//!   generated code as readable source.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Expr, Ident, ItemFn, Lit, Type};

use crate::analyse;
use crate::args;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::fast::{self, Plan};
use crate::ir::{BinaryKind, Block, Body, LoopHead, Op, Operand, Saves, Stmt, Target};
use crate::lower;
use crate::sig::{self, Kind, Mode, Param, Signature};

/// The whole expansion, or the fallback with every error.
pub fn differentiable(args: TokenStream, item: ItemFn) -> TokenStream {
    let cx = Ctxt::default();
    let args = args::parse(&cx, args);
    let sig = sig::parse(&cx, &item);
    let body = sig.as_ref().map(|sig| {
        let stmts = lower::rewrite_returns(&cx, item.block.stmts.clone());
        let block = syn::Block {
            brace_token: item.block.brace_token,
            stmts,
        };
        lower::lower(&cx, sig, &block)
    });
    if let Err(error) = cx.check() {
        return fallback::expand(&item, error);
    }
    let (sig, body) = (sig.expect("checked"), body.expect("checked"));
    let flavour = match sig.mode {
        Mode::Tensor => Flavour::Tensor,
        Mode::Scalar => Flavour::Scalar,
    };
    let generator = Generator::new(&sig, &body, flavour);
    let vjp = generator.vjp_fn(&item);
    let plan = fast::plan(&sig, &body);
    let zero_d = plan.as_ref().map(|plan| ZeroD {
        vjp: Generator::new(&sig, &body, Flavour::ZeroD(plan)).vjp_fn(&item),
        primal: Generator::primal(&sig, &body, plan).primal_fn(&item),
    });
    let source = match &zero_d {
        Some(ZeroD {
            vjp: vjp_scalar,
            primal,
        }) => pretty(&quote!(#vjp #vjp_scalar #primal)),
        None => pretty(&vjp),
    };
    if args.dump {
        eprintln!(
            "#[differentiable] generated for `{}`:\n{source}",
            item.sig.ident
        );
    }
    let wrapper = match sig.mode {
        Mode::Tensor => wrapper_fn(
            &item,
            &sig,
            plan.as_ref(),
            analyse::batch_safe(&body, &generator.useful),
        ),
        Mode::Scalar => quote!(#item),
    };
    let companion = companion(&item, &sig, &vjp, zero_d.as_ref(), &source);
    quote! {
        #wrapper
        #companion
    }
}

/// The functions of the 0-d path: `vjp_scalar` and `primal_scalar`.
struct ZeroD {
    vjp: TokenStream,
    primal: TokenStream,
}

fn pretty(vjp: &TokenStream) -> String {
    match syn::parse2::<syn::File>(vjp.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => vjp.to_string(),
    }
}

fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => matches!(lit.lit, Lit::Float(_) | Lit::Int(_)),
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Neg(_)) && is_literal(&unary.expr),
        Expr::Paren(paren) => is_literal(&paren.expr),
        Expr::Group(group) => is_literal(&group.expr),
        _ => false,
    }
}

/// Parenthesises an expression used as a method receiver unless it is already atomic.
fn receiver(expr: &Expr) -> TokenStream {
    match expr {
        Expr::Path(_) | Expr::Paren(_) | Expr::MethodCall(_) | Expr::Call(_) | Expr::Lit(_) => {
            quote!(#expr)
        }
        other => quote!((#other)),
    }
}

/// `&expr`, parenthesised as needed.
fn borrow(expr: &Expr) -> TokenStream {
    let inner = receiver(expr);
    quote!(&#inner)
}

/// A value the forward code saves for the adjoint.
struct Save {
    name: Ident,
    depth: usize,
}

impl Save {
    fn stack(&self) -> Ident {
        format_ident!("{}_stack", self.name)
    }
    fn cursor(&self) -> Ident {
        format_ident!("{}_at", self.name)
    }

    /// Forward: keep `value` (at depth 0 as a local the pullback captures, deeper on a
    /// stack, one entry per execution).
    fn keep(&self, value: TokenStream) -> TokenStream {
        let name = &self.name;
        if self.depth == 0 {
            quote!(let #name = #value;)
        } else {
            let stack = self.stack();
            quote!(#stack.push(#value);)
        }
    }

    /// Adjoint: code that makes `self.name` available, and a reference to it.
    fn recall(&self) -> (TokenStream, TokenStream) {
        let name = &self.name;
        if self.depth == 0 {
            (quote!(), quote!(&#name))
        } else {
            let (stack, cursor) = (self.stack(), self.cursor());
            (
                quote!(let #name = hooks::pop(&#stack, &mut #cursor);),
                quote!(#name),
            )
        }
    }
}

/// What the generated code computes with.
#[derive(Clone, Copy)]
enum Flavour<'p> {
    /// Tensors: a tensor function's `vjp`.
    Tensor,
    /// Plain numbers: a scalar function's `vjp`.
    Scalar,
    /// Plain numbers standing for the 0-d tensors of a tensor function: its `vjp_scalar`
    /// (see [`fast`]).
    ZeroD(&'p Plan),
}

struct Generator<'a> {
    sig: &'a Signature,
    body: &'a Body,
    flavour: Flavour<'a>,
    useful: Vec<bool>,
    /// Saves at depth > 0 (their stacks are declared up front).
    stacks: std::cell::RefCell<Vec<Ident>>,
    /// For each loop being generated, innermost last: the saves made at most once per
    /// iteration (their stacks get room for the trip count before the loop starts).
    loops: std::cell::RefCell<Vec<Vec<Ident>>>,
    /// Whether the forward code saves anything (not in `primal_scalar`).
    saving: bool,
}

impl<'a> Generator<'a> {
    fn new(sig: &'a Signature, body: &'a Body, flavour: Flavour<'a>) -> Self {
        Generator {
            sig,
            body,
            flavour,
            useful: analyse::useful(body),
            stacks: Default::default(),
            loops: Default::default(),
            saving: true,
        }
    }

    /// The forward code alone, on numbers: `primal_scalar`, which the function runs for
    /// 0-d inputs when nothing records.
    fn primal(sig: &'a Signature, body: &'a Body, plan: &'a Plan) -> Self {
        Generator {
            useful: vec![false; body.bindings.len()],
            saving: false,
            ..Generator::new(sig, body, Flavour::ZeroD(plan))
        }
    }

    fn tensor(&self) -> bool {
        matches!(self.flavour, Flavour::Tensor)
    }

    /// The element type the 0-d path computes with, if this is the 0-d path.
    fn zero_d(&self) -> Option<&Type> {
        match self.flavour {
            Flavour::ZeroD(plan) => Some(&plan.elem),
            _ => None,
        }
    }

    fn save(&self, name: String, depth: usize) -> Save {
        let save = Save {
            name: mixed(&name),
            depth,
        };
        if depth > 0 && self.saving {
            self.stacks.borrow_mut().push(save.name.clone());
            if let Some(per_trip) = self.loops.borrow_mut().last_mut() {
                per_trip.push(save.name.clone());
            }
        }
        save
    }

    /// An operand as the forward code reads it: the user's expression, or on the 0-d path
    /// the binding's number (whatever borrows or clones the tensor code had) or the
    /// constant as a number.
    fn operand(&self, operand: &Operand) -> TokenStream {
        match (self.flavour, operand) {
            (Flavour::ZeroD(_), Operand::Active { binding, .. }) => {
                let name = self.name(*binding);
                quote!(#name)
            }
            (Flavour::ZeroD(plan), Operand::Inactive(expr)) => fast::constant(expr, &plan.elem),
            (_, operand) => {
                let fwd = operand.fwd();
                quote!(#fwd)
            }
        }
    }

    /// An operand as a method receiver.
    fn receiver(&self, operand: &Operand) -> TokenStream {
        match self.flavour {
            Flavour::ZeroD(_) => self.operand(operand),
            _ => receiver(operand.fwd()),
        }
    }

    /// An owned copy of an operand's value, to save for the adjoint (on the 0-d path the
    /// number itself).
    fn owned(&self, operand: &Operand) -> TokenStream {
        match self.flavour {
            Flavour::ZeroD(_) => self.operand(operand),
            _ => {
                let fwd = borrow(operand.fwd());
                quote!(hooks::own(#fwd))
            }
        }
    }

    /// The type of a parameter's cotangent (`E` on the 0-d path).
    fn cotangent_of(&self, param: &Param) -> TokenStream {
        match self.zero_d() {
            Some(elem) => quote!(#elem),
            None => param.cotangent_type(),
        }
    }

    /// The type of a result (`E` on the 0-d path).
    fn output_type(&self, ty: &Type) -> TokenStream {
        match self.zero_d() {
            Some(elem) => quote!(#elem),
            None => quote!(#ty),
        }
    }

    fn slot(&self, binding: usize) -> &Ident {
        &self.body.bindings[binding].slot
    }

    fn name(&self, binding: usize) -> &Ident {
        &self.body.bindings[binding].name
    }

    // ----- the vjp function -----

    fn vjp_fn(&self, item: &ItemFn) -> TokenStream {
        let forward = self.forward_block(&self.body.block);
        let adjoint = self.adjoint_fn_body();
        let stacks = self.stacks.borrow();
        let stack_decls = stacks.iter().map(|name| {
            let stack = format_ident!("{}_stack", name);
            quote!(let mut #stack = ::std::vec::Vec::new();)
        });
        let cursors = stacks.iter().map(|name| {
            let (stack, cursor) = (
                format_ident!("{}_stack", name),
                format_ident!("{}_at", name),
            );
            quote!(let mut #cursor = #stack.len();)
        });
        let outputs: Vec<TokenStream> = self.body.outputs.iter().map(|o| self.operand(o)).collect();
        let value = if self.sig.tuple_output {
            quote!((#(#outputs),*))
        } else {
            quote!(#(#outputs)*)
        };
        let params = self.params();
        let (cot_ty, grads_ty) = (self.cotangent_type(), self.grads_type());
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let captured = generics.params.iter().filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.clone()),
            syn::GenericParam::Const(c) => Some(c.ident.clone()),
            syn::GenericParam::Lifetime(_) => None,
        });
        let g = mixed("g");
        let value_name = mixed("value");
        // Here a variable parameter is the tensor read from it: `.value()` on it (in code
        // emitted as written, such as `stop_gradient(&w.value())`) must still compile.
        let read_value = self
            .sig
            .params
            .iter()
            .any(|p| p.kind == Kind::Variable)
            .then(|| {
                quote!(
                    use ::gradtape::__private::hooks::ReadValue as _;
                )
            });
        let fn_name = match self.flavour {
            Flavour::ZeroD(_) => format_ident!("vjp_scalar"),
            _ => format_ident!("vjp"),
        };
        quote! {
            pub fn #fn_name #generics (#(#params),*) -> (#ret_ty, impl Fn(#cot_ty) -> #grads_ty + use<#(#captured),*>) #where_clause {
                use ::gradtape::__private::{hooks, vjp};
                #read_value
                #(#stack_decls)*
                #forward
                let #value_name = #value;
                (#value_name, move |#g: #cot_ty| -> #grads_ty {
                    #(#cursors)*
                    #adjoint
                })
            }
        }
    }

    /// The parameters of the generated functions: variables as the tensor read from them,
    /// on the 0-d path tensors as numbers.
    fn params(&self) -> Vec<TokenStream> {
        let params = self.sig.params.iter().map(|p| {
            let ident = &p.ident;
            let ty = match (&p.kind, &p.elem) {
                (Kind::Tensor { .. } | Kind::Variable, Some(elem)) if self.zero_d().is_some() => {
                    quote!(#elem)
                }
                (Kind::Variable, Some(elem)) => quote!(&::gradtape::__private::Tensor<#elem>),
                _ => {
                    let ty = &p.ty;
                    quote!(#ty)
                }
            };
            quote!(#ident: #ty)
        });
        params.collect()
    }

    /// The result type (numbers on the 0-d path).
    fn ret_type(&self, item: &ItemFn) -> TokenStream {
        let outputs = self.sig.outputs.iter().map(|ty| self.output_type(ty));
        match (&item.sig.output, self.zero_d()) {
            (syn::ReturnType::Type(_, ty), None) => quote!(#ty),
            (_, Some(_)) if self.sig.tuple_output => quote!((#(#outputs),*)),
            (_, Some(_)) => quote!(#(#outputs)*),
            (syn::ReturnType::Default, None) => quote!(()),
        }
    }

    /// `primal_scalar`: the forward code on numbers, returning the value.
    fn primal_fn(&self, item: &ItemFn) -> TokenStream {
        let forward = self.forward_block(&self.body.block);
        let outputs = self.body.outputs.iter().map(|o| self.operand(o));
        let value = if self.sig.tuple_output {
            quote!((#(#outputs),*))
        } else {
            quote!(#(#outputs)*)
        };
        let params = self.params();
        let ret_ty = self.ret_type(item);
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        quote! {
            pub fn primal_scalar #generics (#(#params),*) -> #ret_ty #where_clause {
                #forward
                #value
            }
        }
    }

    fn cotangent_type(&self) -> TokenStream {
        let outputs: Vec<TokenStream> = self
            .sig
            .outputs
            .iter()
            .map(|ty| self.output_type(ty))
            .collect();
        if self.sig.tuple_output {
            quote!((#(Option<#outputs>),*))
        } else {
            quote!(#(#outputs)*)
        }
    }

    fn grads_type(&self) -> TokenStream {
        let entries = self.sig.params.iter().map(|p| {
            if p.differentiable(self.sig.mode) {
                let ty = self.cotangent_of(p);
                quote!(Option<#ty>)
            } else {
                quote!(())
            }
        });
        quote!((#(#entries,)*))
    }

    fn adjoint_fn_body(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (param, binding) in self.sig.params.iter().zip(&self.body.params) {
            if let Some(binding) = binding {
                let slot = self.slot(*binding);
                let ty = self.cotangent_of(param);
                out.extend(quote!(let mut #slot: Option<#ty> = None;));
            }
        }
        out.extend(self.declare_slots(&self.body.block));
        let g = mixed("g");
        if self.sig.tuple_output {
            let parts: Vec<Ident> = (0..self.body.outputs.len())
                .map(|i| mixed(&format!("g{i}")))
                .collect();
            out.extend(quote!(let (#(#parts),*) = #g;));
            for (part, output) in parts.iter().zip(&self.body.outputs) {
                if let Some(binding) = output.binding() {
                    let slot = self.slot(binding);
                    out.extend(quote!(hooks::accumulate_option(&mut #slot, #part);));
                }
            }
        } else if let Some(binding) = self.body.outputs.first().and_then(Operand::binding) {
            let slot = self.slot(binding);
            out.extend(quote!(hooks::accumulate(&mut #slot, #g);));
        }
        out.extend(self.reverse_stmts(&self.body.block));
        let grads = self.body.params.iter().map(|binding| match binding {
            Some(binding) => {
                let slot = self.slot(*binding);
                quote!(#slot)
            }
            None => quote!(()),
        });
        out.extend(quote!((#(#grads,)*)));
        out
    }

    fn declare_slots(&self, block: &Block) -> TokenStream {
        let slots = block
            .declared
            .iter()
            .filter(|&&b| self.useful[b])
            .map(|&b| self.slot(b));
        quote!(#(let mut #slots = None;)*)
    }

    // ----- forward -----

    fn forward_block(&self, block: &Block) -> TokenStream {
        block
            .stmts
            .iter()
            .map(|stmt| self.forward_stmt(stmt, block.depth))
            .collect()
    }

    fn forward_stmt(&self, stmt: &Stmt, depth: usize) -> TokenStream {
        match stmt {
            Stmt::Plain(tokens) => tokens.clone(),
            Stmt::Declare { binding, mutable } => {
                let name = self.name(*binding);
                let mutability = mutable.then(|| quote!(mut));
                quote!(let #mutability #name;)
            }
            Stmt::Def { id, target, op } => self.forward_def(*id, target, op, depth),
            Stmt::If {
                id,
                cond,
                then_branch,
                else_branch,
            } => {
                let flag = self.save(format!("branch{id}"), depth);
                let name = &flag.name;
                let keep = self.keep_control(&flag);
                let (then_code, else_code) = (
                    self.forward_block(then_branch),
                    self.forward_block(else_branch),
                );
                let bind = if depth == 0 {
                    quote!(let #name: bool = #cond;)
                } else {
                    quote!(let #name: bool = #cond; #keep)
                };
                quote! {
                    #bind
                    if #name { #then_code } else { #else_code }
                }
            }
            Stmt::Match {
                id,
                scrutinee,
                arms,
            } => {
                let flag = self.save(format!("arm{id}"), depth);
                let name = &flag.name;
                let arms = arms.iter().enumerate().map(|(index, arm)| {
                    let pat = &arm.pat;
                    let guard = arm.guard.as_ref().map(|guard| quote!(if #guard));
                    let code = self.forward_block(&arm.body);
                    quote!(#pat #guard => { #code #index })
                });
                let keep = self.keep_control(&flag);
                quote! {
                    let #name: usize = match #scrutinee { #(#arms)* };
                    #keep
                }
            }
            Stmt::Loop { id, head, body } => {
                let trips = self.save(format!("trips{id}"), depth);
                let name = &trips.name;
                self.loops.borrow_mut().push(Vec::new());
                let code = self.forward_block(body);
                let per_trip = self.loops.borrow_mut().pop().expect("pushed above");
                let keep = self.keep_control(&trips);
                let looped = match head {
                    LoopHead::For { pat, iter } if !per_trip.is_empty() => {
                        // Room for one save per trip up front: growing a stack while the
                        // loop runs copies it over and over. `match` keeps the iterator
                        // expression's temporaries alive through the loop, as `for` does.
                        let (iterator, hint) = (mixed(&format!("iter{id}")), mixed("hint"));
                        let stacks = per_trip.iter().map(|save| format_ident!("{}_stack", save));
                        quote! {
                            match ::core::iter::IntoIterator::into_iter(#iter) {
                                #iterator => {
                                    let #hint = ::core::iter::Iterator::size_hint(&#iterator).0;
                                    #(#stacks.reserve(#hint);)*
                                    for #pat in #iterator { #code #name += 1; }
                                }
                            }
                        }
                    }
                    LoopHead::For { pat, iter } => {
                        quote!(for #pat in #iter { #code #name += 1; })
                    }
                    LoopHead::While { cond } => quote!(while #cond { #code #name += 1; }),
                };
                quote! {
                    let mut #name: usize = 0;
                    #looped
                    #keep
                }
            }
        }
    }

    /// Saves a branch taken or a trip count (bound to its name already) when it is on a
    /// stack; at depth 0 the pullback captures the local itself.
    fn keep_control(&self, save: &Save) -> TokenStream {
        if save.depth == 0 || !self.saving {
            return quote!();
        }
        let name = &save.name;
        save.keep(quote!(#name))
    }

    fn target_prefix(&self, target: &Target) -> TokenStream {
        match target {
            Target::Let {
                binding,
                mutable,
                ty,
            } => {
                let name = self.name(*binding);
                let mutability = mutable.then(|| quote!(mut));
                // On the 0-d path the value is a number, whatever tensor type was written.
                let ty = ty
                    .as_ref()
                    .filter(|_| self.zero_d().is_none())
                    .map(|ty| quote!(: #ty));
                quote!(let #mutability #name #ty =)
            }
            Target::Assign { binding } => {
                let name = self.name(*binding);
                quote!(#name =)
            }
        }
    }

    fn target_binding(target: &Target) -> usize {
        match target {
            Target::Let { binding, .. } | Target::Assign { binding } => *binding,
        }
    }

    /// The op's forward expression, as the user wrote it (operands rebuilt); on the 0-d
    /// path, the same on numbers.
    fn op_expr(&self, op: &Op) -> TokenStream {
        match op {
            Op::Copy { value, clone } => {
                if *clone && self.zero_d().is_none() {
                    let recv = self.receiver(value);
                    quote!(#recv.clone())
                } else {
                    self.operand(value)
                }
            }
            Op::Neg(x) => {
                let x = self.receiver(x);
                quote!(-#x)
            }
            Op::Unary {
                method, x, args, ..
            } => self.unary_expr(method, x, args.iter().map(|a| quote!(#a)).collect()),
            Op::Binary { kind, lhs, rhs } => {
                let (l, r) = (self.operand(lhs), self.operand(rhs));
                match kind {
                    BinaryKind::Add => quote!(#l + #r),
                    BinaryKind::Sub => quote!(#l - #r),
                    BinaryKind::Mul => quote!(#l * #r),
                    BinaryKind::Div => quote!(#l / #r),
                    BinaryKind::Maximum(_) | BinaryKind::Minimum(_) if self.zero_d().is_some() => {
                        let kernel = if matches!(kind, BinaryKind::Maximum(_)) {
                            quote!(maximum)
                        } else {
                            quote!(minimum)
                        };
                        quote!(::gradtape::__private::hooks::scalar::#kernel(#l, #r))
                    }
                    BinaryKind::Maximum(method) | BinaryKind::Minimum(method) => {
                        let l = self.receiver(lhs);
                        quote!(#l.#method(#r))
                    }
                }
            }
            Op::Trace { expr, .. } => quote!(#expr),
            Op::Call { func, args } => {
                let args = args.iter().map(Operand::fwd);
                quote!(#func(#(#args),*))
            }
        }
    }

    /// `x.method(args)`, or on the 0-d path the kernel of the same name on numbers.
    fn unary_expr(&self, method: &Ident, x: &Operand, args: Vec<TokenStream>) -> TokenStream {
        let x = self.receiver(x);
        match self.zero_d() {
            Some(_) => quote!(::gradtape::__private::hooks::scalar::#method(#x #(, #args)*)),
            None => quote!(#x.#method(#(#args),*)),
        }
    }

    fn forward_def(&self, id: usize, target: &Target, op: &Op, depth: usize) -> TokenStream {
        let prefix = self.target_prefix(target);
        let binding = Self::target_binding(target);
        if !self.useful[binding] {
            let expr = self.op_expr(op);
            return quote!(#prefix #expr;);
        }
        let mut code = TokenStream::new();
        match op {
            Op::Copy { .. } | Op::Neg(_) => {
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Unary {
                method,
                saves,
                x,
                args,
            } => {
                let mut call_args = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    if is_literal(arg) {
                        call_args.push(quote!(#arg));
                    } else {
                        let save = self.save(format!("arg{id}_{k}"), depth);
                        let name = &save.name;
                        code.extend(quote!(let #name = #arg;));
                        if depth > 0 {
                            code.extend(save.keep(quote!(#name)));
                        }
                        call_args.push(quote!(#name));
                    }
                }
                if *saves == Saves::Input {
                    let save = self.save(format!("x{id}"), depth);
                    code.extend(save.keep(self.owned(x)));
                }
                let expr = self.unary_expr(method, x, call_args);
                code.extend(quote!(#prefix #expr;));
                if *saves == Saves::Output {
                    let save = self.save(format!("out{id}"), depth);
                    let name = self.name(binding);
                    let value = match self.flavour {
                        Flavour::ZeroD(_) => quote!(#name),
                        _ => quote!(hooks::own(&#name)),
                    };
                    code.extend(save.keep(value));
                }
            }
            Op::Binary { kind, lhs, rhs } => {
                let (keep_lhs, keep_rhs) = self.binary_saves(kind, lhs, rhs);
                if keep_lhs {
                    code.extend(self.save(format!("lhs{id}"), depth).keep(self.owned(lhs)));
                }
                if keep_rhs {
                    code.extend(self.save(format!("rhs{id}"), depth).keep(self.owned(rhs)));
                }
                let expr = self.op_expr(op);
                code.extend(quote!(#prefix #expr;));
            }
            Op::Trace { expr, inputs } => {
                let save = self.save(format!("trace{id}"), depth);
                let value = mixed(&format!("value{id}"));
                let trace = mixed(&format!("trace{id}"));
                let inputs = inputs.iter().map(|(_, fwd)| {
                    let fwd = borrow(fwd);
                    quote!(hooks::own(#fwd))
                });
                code.extend(quote! {
                    let (#value, #trace) = hooks::trace((#(#inputs,)*), || #expr);
                });
                if depth > 0 {
                    code.extend(save.keep(quote!(#trace)));
                }
                code.extend(quote!(#prefix #value;));
            }
            Op::Call { func, args } => {
                let save = self.save(format!("pullback{id}"), depth);
                let value = mixed(&format!("value{id}"));
                let pullback = mixed(&format!("pullback{id}"));
                let args = args.iter().map(Operand::fwd);
                code.extend(quote! {
                    let (#value, #pullback) = #func::vjp(#(#args),*);
                });
                if depth > 0 {
                    code.extend(save.keep(quote!(#pullback)));
                }
                code.extend(quote!(#prefix #value;));
            }
        }
        code
    }

    /// Which operands of a binary op the adjoint needs: the other operand's value for the
    /// product and quotient rules, an operand's own shape to undo broadcasting.
    fn binary_saves(&self, kind: &BinaryKind, lhs: &Operand, rhs: &Operand) -> (bool, bool) {
        let (l_active, r_active) = (lhs.binding().is_some(), rhs.binding().is_some());
        let shape = self.tensor();
        let (need_l, need_r) = match kind {
            BinaryKind::Add | BinaryKind::Sub => (l_active && shape, r_active && shape),
            BinaryKind::Mul => (
                r_active || (l_active && shape),
                l_active || (r_active && shape),
            ),
            BinaryKind::Div => (r_active || (l_active && shape), l_active || r_active),
            BinaryKind::Maximum(_) | BinaryKind::Minimum(_) => (true, true),
        };
        (
            need_l && !is_literal(lhs.fwd()),
            need_r && !is_literal(rhs.fwd()),
        )
    }

    // ----- adjoint -----

    fn reverse_stmts(&self, block: &Block) -> TokenStream {
        block
            .stmts
            .iter()
            .rev()
            .map(|stmt| self.reverse_stmt(stmt, block.depth))
            .collect()
    }

    fn reverse_block(&self, block: &Block) -> TokenStream {
        let slots = self.declare_slots(block);
        let code = self.reverse_stmts(block);
        quote!(#slots #code)
    }

    fn reverse_stmt(&self, stmt: &Stmt, depth: usize) -> TokenStream {
        match stmt {
            Stmt::Plain(_) | Stmt::Declare { .. } => quote!(),
            Stmt::Def { id, target, op } => self.reverse_def(*id, target, op, depth),
            Stmt::If {
                id,
                then_branch,
                else_branch,
                ..
            } => {
                let flag = self.recall(format!("branch{id}"), depth);
                let (then_code, else_code) = (
                    self.reverse_block(then_branch),
                    self.reverse_block(else_branch),
                );
                let (prologue, value) = flag;
                quote! {
                    #prologue
                    if *#value { #then_code } else { #else_code }
                }
            }
            Stmt::Match { id, arms, .. } => {
                let (prologue, value) = self.recall(format!("arm{id}"), depth);
                let arms = arms.iter().enumerate().map(|(index, arm)| {
                    let code = self.reverse_block(&arm.body);
                    quote!(#index => { #code })
                });
                quote! {
                    #prologue
                    match *#value { #(#arms)* _ => unreachable!("a match arm that did not run") }
                }
            }
            Stmt::Loop { id, body, .. } => {
                let (prologue, value) = self.recall(format!("trips{id}"), depth);
                let code = self.reverse_block(body);
                quote! {
                    #prologue
                    for _ in 0..*#value { #code }
                }
            }
        }
    }

    /// Recalls a save made in the forward code (same name and depth).
    fn recall(&self, name: String, depth: usize) -> (TokenStream, TokenStream) {
        Save {
            name: mixed(&name),
            depth,
        }
        .recall()
    }

    /// A constant operand as a value the rules compute with.
    fn constant(&self, expr: &Expr, saved: Option<TokenStream>) -> TokenStream {
        let value = saved.unwrap_or_else(|| match self.zero_d() {
            Some(elem) => {
                let value = fast::constant(expr, elem);
                quote!(&#value)
            }
            None => borrow(expr),
        });
        if self.tensor() {
            quote!(&hooks::lift(#value))
        } else {
            value
        }
    }

    fn reverse_def(&self, id: usize, target: &Target, op: &Op, depth: usize) -> TokenStream {
        let binding = Self::target_binding(target);
        if !self.useful[binding] {
            return quote!();
        }
        let slot = self.slot(binding);
        let g = mixed("g");
        let mut prologue = TokenStream::new();
        let mut rules = TokenStream::new();
        let acc = |operand: &Operand, value: TokenStream| -> TokenStream {
            match operand.binding() {
                Some(b) => {
                    let slot = self.slot(b);
                    quote!(hooks::accumulate(&mut #slot, #value);)
                }
                None => quote!(),
            }
        };
        match op {
            Op::Copy { value, .. } => {
                if value.binding().is_none() {
                    // A constant overwrote the value: nothing flows back past here.
                    return quote!(#slot = None;);
                }
                rules.extend(acc(value, quote!(#g)));
            }
            Op::Neg(x) => rules.extend(acc(x, quote!(vjp::sub_rhs(&#g)))),
            Op::Unary {
                method,
                saves,
                x,
                args,
            } => {
                let mut extra = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    if is_literal(arg) {
                        extra.push(quote!(#arg));
                    } else {
                        let (pop, value) = self.recall(format!("arg{id}_{k}"), depth);
                        prologue.extend(pop);
                        extra.push(quote!(*#value));
                    }
                }
                if method == "powf" {
                    extra = extra
                        .into_iter()
                        .map(|p| quote!(hooks::exponent(#p)))
                        .collect();
                }
                let saved_name = match saves {
                    Saves::Input => format!("x{id}"),
                    Saves::Output => format!("out{id}"),
                };
                let (pop, saved) = self.recall(saved_name, depth);
                prologue.extend(pop);
                let extra = extra.iter().map(|e| quote!(, #e));
                rules.extend(acc(x, quote!(vjp::#method(#saved, &#g #(#extra)*))));
            }
            Op::Binary { kind, lhs, rhs } => {
                let (keep_lhs, keep_rhs) = self.binary_saves(kind, lhs, rhs);
                let mut value_of = |operand: &Operand, keep: bool, name: String| {
                    let saved = keep.then(|| {
                        let (pop, value) = self.recall(name, depth);
                        prologue.extend(pop);
                        value
                    });
                    match operand.binding() {
                        Some(_) => saved,
                        None => Some(self.constant(operand.fwd(), saved)),
                    }
                };
                let l = value_of(lhs, keep_lhs, format!("lhs{id}"));
                let r = value_of(rhs, keep_rhs, format!("rhs{id}"));
                let l_val = || l.clone().expect("saved when needed");
                let r_val = || r.clone().expect("saved when needed");
                let (dl, dr) = match kind {
                    BinaryKind::Add => (quote!(#g.clone()), quote!(#g.clone())),
                    BinaryKind::Sub => (quote!(#g.clone()), quote!(vjp::sub_rhs(&#g))),
                    BinaryKind::Mul => {
                        let (lv, rv) = (
                            lhs.binding().is_some().then(|| {
                                let r = r_val();
                                quote!(vjp::mul_lhs(#r, &#g))
                            }),
                            rhs.binding().is_some().then(|| {
                                let l = l_val();
                                quote!(vjp::mul_rhs(#l, &#g))
                            }),
                        );
                        (lv.unwrap_or_default(), rv.unwrap_or_default())
                    }
                    BinaryKind::Div => {
                        let lv = if lhs.binding().is_some() {
                            let r = r_val();
                            quote!(vjp::div_lhs(#r, &#g))
                        } else {
                            quote!()
                        };
                        let rv = if rhs.binding().is_some() {
                            let (l, r) = (l_val(), r_val());
                            quote!(vjp::div_rhs(#l, #r, &#g))
                        } else {
                            quote!()
                        };
                        (lv, rv)
                    }
                    BinaryKind::Maximum(_) | BinaryKind::Minimum(_) => {
                        // Each side has its own rule: on ties TensorFlow gives the whole
                        // cotangent to the first operand, so the rules are not symmetric.
                        let (lhs_rule, rhs_rule) = if matches!(kind, BinaryKind::Maximum(_)) {
                            (quote!(vjp::maximum_lhs), quote!(vjp::maximum_rhs))
                        } else {
                            (quote!(vjp::minimum_lhs), quote!(vjp::minimum_rhs))
                        };
                        let (l, r) = (l_val(), r_val());
                        (
                            quote!(#lhs_rule(#l, #r, &#g)),
                            quote!(#rhs_rule(#l, #r, &#g)),
                        )
                    }
                };
                for (operand, grad, keep) in [(lhs, dl, &l), (rhs, dr, &r)] {
                    if operand.binding().is_none() {
                        continue;
                    }
                    let grad = match (self.tensor(), keep) {
                        (true, Some(like)) => quote!(hooks::unbroadcast(#grad, #like)),
                        _ => grad,
                    };
                    rules.extend(acc(operand, grad));
                }
            }
            Op::Trace { inputs, .. } => {
                let (pop, trace) = self.recall(format!("trace{id}"), depth);
                prologue.extend(pop);
                let grads = mixed("grads");
                rules.extend(quote!(let #grads = (#trace).vjp(&#g);));
                for (k, (input, _)) in inputs.iter().enumerate() {
                    let slot = self.slot(*input);
                    let index = syn::Index::from(k);
                    rules.extend(quote!(hooks::accumulate_option(&mut #slot, #grads.#index);));
                }
            }
            Op::Call { args, .. } => {
                let (pop, pullback) = self.recall(format!("pullback{id}"), depth);
                prologue.extend(pop);
                let grads = mixed("grads");
                rules.extend(quote!(let #grads = (#pullback)(#g);));
                for (k, arg) in args.iter().enumerate() {
                    if let Some(b) = arg.binding() {
                        let slot = self.slot(b);
                        let index = syn::Index::from(k);
                        rules.extend(quote!(hooks::accumulate_option(&mut #slot, #grads.#index);));
                    }
                }
            }
        }
        quote! {
            #prologue
            if let Some(#g) = #slot.take() { #rules }
        }
    }
}

// ----- the function and its companion -----

fn wrapper_fn(
    item: &ItemFn,
    sig: &Signature,
    plan: Option<&Plan>,
    batch_safe: bool,
) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        sig: fn_sig,
        ..
    } = item;
    let name = &fn_sig.ident;
    let op_name = name.to_string();
    let hooks = quote!(::gradtape::__private::hooks);
    // A jacobian runs a batch-safe adjoint once for all rows, any other once per row.
    let record_fused = if batch_safe {
        quote!(record_fused_batched)
    } else {
        quote!(record_fused)
    };
    let [
        value,
        inputs_name,
        pullback,
        grads_name,
        rule,
        cot_name,
        borrowed,
    ] = [
        "value", "inputs", "pullback", "grads", "rule", "cot", "borrowed",
    ]
    .map(mixed);
    let any = quote!(::gradtape::__private::AnyTensor);
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.ident).collect();
    let mut reads = TokenStream::new();
    let mut inputs = Vec::new();
    let mut vjp_args = Vec::new();
    let mut keeps = TokenStream::new();
    let mut replay_args = Vec::new();
    let mut grads = Vec::new();
    // The 0-d path: each tensor input as a number, the arguments of `vjp_scalar`, and its
    // cotangents as 0-d tensors.
    let mut numbers = Vec::new();
    let mut zero_d_args = Vec::new();
    let mut zero_d_grads = Vec::new();
    for (index, param) in sig.params.iter().enumerate() {
        let ident = &param.ident;
        let kept = mixed(&format!("kept_{ident}"));
        let number = mixed(&format!("number_{ident}"));
        let index = syn::Index::from(index);
        match param.kind {
            Kind::Tensor { by_ref } => {
                let tensor = if by_ref {
                    quote!(#ident)
                } else {
                    quote!(&#ident)
                };
                numbers.push((number.clone(), tensor));
            }
            Kind::Variable => {
                let read = mixed(&format!("read_{ident}"));
                numbers.push((number.clone(), quote!(&#read)));
            }
            _ => {}
        }
        if matches!(param.kind, Kind::Tensor { .. } | Kind::Variable) {
            zero_d_args.push(quote!(#number));
            zero_d_grads.push(quote!(#grads_name.#index.map(#hooks::scalar_cotangent)));
        }
        match param.kind {
            Kind::Tensor { by_ref } => {
                let borrowed = if by_ref {
                    quote!(#ident)
                } else {
                    quote!(&#ident)
                };
                inputs.push(quote!(#any::from(::core::clone::Clone::clone(#borrowed))));
                keeps.extend(quote!(let #kept = ::core::clone::Clone::clone(#borrowed);));
                if by_ref {
                    vjp_args.push(quote!(#ident));
                    replay_args.push(quote!(&#kept));
                } else {
                    vjp_args.push(quote!(::core::clone::Clone::clone(&#ident)));
                    replay_args.push(quote!(::core::clone::Clone::clone(&#kept)));
                }
                grads.push(quote!(#grads_name.#index.map(#any::from)));
            }
            Kind::Variable => {
                let read = mixed(&format!("read_{ident}"));
                reads.extend(quote!(let #read = #ident.value();));
                inputs.push(quote!(#any::from(::core::clone::Clone::clone(&#read))));
                keeps.extend(quote!(let #kept = ::core::clone::Clone::clone(&#read);));
                vjp_args.push(quote!(&#read));
                replay_args.push(quote!(&#kept));
                grads.push(quote!(#grads_name.#index.map(#any::from)));
            }
            Kind::Float { by_ref: true } | Kind::Constant
                if matches!(param.ty, syn::Type::Reference(_)) =>
            {
                let ty = &param.ty;
                keeps.extend(quote!(let #kept = ::std::borrow::ToOwned::to_owned(#ident);));
                vjp_args.push(quote!(#ident));
                replay_args.push(quote! {{
                    let #borrowed: #ty = ::std::borrow::Borrow::borrow(&#kept);
                    #borrowed
                }});
            }
            _ => {
                keeps.extend(quote!(let #kept = ::core::clone::Clone::clone(&#ident);));
                vjp_args.push(quote!(::core::clone::Clone::clone(&#ident)));
                replay_args.push(quote!(::core::clone::Clone::clone(&#kept)));
            }
        }
        if !matches!(param.kind, Kind::Tensor { .. } | Kind::Variable) {
            zero_d_args.push(vjp_args.last().expect("pushed above").clone());
        }
    }
    let g = mixed("g");
    let grads_tokens = quote!(::std::vec![#(#grads),*]);
    let replay = |cot: &TokenStream| {
        quote! {
            let (_, #pullback) = #name::vjp(#(#replay_args),*);
            let #grads_name = #pullback(#cot);
            #grads_tokens
        }
    };
    let tensor_rule = |cot: TokenStream| {
        let replay = replay(&cot);
        quote! {
            if #hooks::any_recording() {
                // An outer tape records this gradient (higher order): recompute the
                // forward from the inputs with recorded ops, so that the adjoint is
                // connected to them there.
                #replay
            } else {
                let #grads_name = #pullback(#cot);
                #grads_tokens
            }
        }
    };
    let record = |rule_body: &dyn Fn(TokenStream) -> TokenStream| {
        if sig.tuple_output {
            let n = sig.outputs.len();
            let values: Vec<Ident> = (0..n).map(|i| mixed(&format!("value{i}"))).collect();
            let cot_ty = sig.outputs.iter().map(|ty| quote!(Option<#ty>));
            let body = rule_body(quote!(#cot_name));
            let records = values.iter().enumerate().map(|(i, value)| {
                let cot = (0..n).map(|j| if i == j { quote!(Some(#g)) } else { quote!(None) });
                quote! {{
                    let #rule = ::std::rc::Rc::clone(&#rule);
                    #hooks::#record_fused(#op_name, #value, &#inputs_name, move |#g| #rule((#(#cot),*)))
                }}
            });
            quote! {
                let (#(#values),*) = #value;
                let #rule = ::std::rc::Rc::new(move |#cot_name: (#(#cot_ty),*)| { #body });
                (#(#records),*)
            }
        } else {
            let body = rule_body(quote!(#g));
            quote!(#hooks::#record_fused(#op_name, #value, &#inputs_name, move |#g| { #body }))
        }
    };
    let tensor_record = record(&tensor_rule);
    let zero_d = plan.map(|_| {
        let zero_d_rule = |cot: TokenStream| {
            let number = mixed("number_cot");
            let as_number = if sig.tuple_output {
                let parts: Vec<Ident> = (0..sig.outputs.len())
                    .map(|i| mixed(&format!("number_cot{i}")))
                    .collect();
                let reads = (0..sig.outputs.len()).map(|i| {
                    let index = syn::Index::from(i);
                    quote!(#hooks::scalar_value_option(&#cot.#index))
                });
                quote! {
                    match (#(#reads,)*) {
                        (#(::core::option::Option::Some(#parts),)*) => {
                            ::core::option::Option::Some((#(#parts),*))
                        }
                        _ => ::core::option::Option::None,
                    }
                }
            } else {
                quote!(#hooks::scalar_value(&#cot))
            };
            let replay = replay(&cot);
            quote! {
                match (#hooks::any_recording(), #as_number) {
                    (false, ::core::option::Option::Some(#number)) => {
                        let #grads_name = #pullback(#number);
                        ::std::vec![#(#zero_d_grads),*]
                    }
                    // An outer tape records (higher order), or the cotangent is not 0-d:
                    // the tensor adjoint, recomputed with recordable ops.
                    _ => { #replay }
                }
            }
        };
        let tensors = if sig.tuple_output {
            let parts = (0..sig.outputs.len()).map(|i| {
                let index = syn::Index::from(i);
                quote!(::gradtape::__private::Tensor::scalar(#value.#index))
            });
            quote!((#(#parts),*))
        } else {
            quote!(::gradtape::__private::Tensor::scalar(#value))
        };
        let record = record(&zero_d_rule);
        let (names, tensors_in): (Vec<&Ident>, Vec<&TokenStream>) =
            numbers.iter().map(|(n, t)| (n, t)).unzip();
        let all_0_d = quote! {
            (#(::core::option::Option::Some(#names),)*) = (#(#hooks::scalar_value(#tensors_in),)*)
        };
        let recorded = quote! {
            // Every differentiable input is 0-d: run the adjoint on plain numbers.
            if let #all_0_d {
                let (#value, #pullback) = #name::vjp_scalar(#(#zero_d_args),*);
                let #value = #tensors;
                #keeps
                return { #record };
            }
        };
        let plain = quote! {
            if let #all_0_d {
                let #value = #name::primal_scalar(#(#zero_d_args),*);
                return #tensors;
            }
        };
        (recorded, plain)
    });
    let (zero_d, zero_d_plain) = zero_d.unzip();
    // With nothing recording, variables are read only for the 0-d check.
    let plain_reads = zero_d_plain.as_ref().map(|_| &reads);
    let block = quote! {
        {
            if !#hooks::any_recording() {
                #plain_reads
                #zero_d_plain
                return #name::primal(#(#args),*);
            }
            #reads
            let #inputs_name = [#(#inputs),*];
            if !#hooks::any_tracks(&#inputs_name) {
                #zero_d_plain
                return #name::primal(#(#args),*);
            }
            #zero_d
            let (#value, #pullback) = #hooks::without_recording(|| #name::vjp(#(#vjp_args),*));
            #keeps
            #tensor_record
        }
    };
    quote! {
        #(#attrs)*
        #vis #fn_sig #block
    }
}

fn companion(
    item: &ItemFn,
    sig: &Signature,
    vjp: &TokenStream,
    zero_d: Option<&ZeroD>,
    source: &str,
) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let fn_sig = &item.sig;
    let block = &item.block;
    let generics = &fn_sig.generics;
    let where_clause = &generics.where_clause;
    let params = fn_sig.inputs.iter();
    let output = &fn_sig.output;
    let doc = format!(
        "What `#[differentiable]` generated for [`{name}`](fn@{name}): `{name}::vjp` runs the \
         forward code, saving what the adjoint needs, and returns the value with the pullback \
         (the adjoint as a closure from the result's cotangent to one entry per parameter: \
         `Option` of a cotangent for a differentiable one, `()` for a constant).\n\n\
         The generated code:\n\n```text\n{source}```"
    );
    let grad = (sig.mode == Mode::Scalar && !sig.tuple_output).then(|| grad_fn(item, sig));
    let zero_d = zero_d.map(|ZeroD { vjp, primal }| {
        quote! {
            /// The forward value and the pullback on plain numbers, for calls whose
            /// differentiable inputs are all 0-d tensors (the same code as `vjp`, with each
            /// 0-d tensor as its number).
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, non_snake_case, clippy::all)]
            #vjp

            /// The body on plain numbers, for calls whose differentiable inputs are all
            /// 0-d tensors when nothing records them.
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, non_snake_case, clippy::all)]
            #primal
        }
    });
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #[allow(dead_code, clippy::all)]
        impl #name {
            /// The generated forward and adjoint code, as readable source.
            pub const GENERATED: &'static str = #source;

            /// The original body, run as written.
            #[inline]
            #[allow(unused_mut)]
            pub fn primal #generics (#(#params),*) #output #where_clause #block

            /// The forward value and the pullback (the generated adjoint).
            #[inline]
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, non_snake_case, clippy::all)]
            #vjp

            #zero_d

            #grad
        }
    }
}

/// `f::grad(x, y) -> (value, [df/dx, df/dy])` for a plain float function: one forward and
/// one reverse sweep, no tape, no allocation.
fn grad_fn(item: &ItemFn, sig: &Signature) -> TokenStream {
    let fn_sig = &item.sig;
    let generics = &fn_sig.generics;
    let where_clause = &generics.where_clause;
    let params = fn_sig.inputs.iter();
    let args = sig.params.iter().map(|p| &p.ident);
    let out = &sig.outputs[0];
    let [value, pullback, grads_name] = ["value", "pullback", "grads"].map(mixed);
    let differentiable: Vec<(usize, &sig::Param)> = sig
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.differentiable(sig.mode))
        .collect();
    let entries = differentiable.iter().map(|(i, _)| {
        let index = syn::Index::from(*i);
        quote!(#grads_name.#index.unwrap_or_default())
    });
    let elems: Vec<String> = differentiable
        .iter()
        .map(|(_, p)| p.cotangent_type().to_string())
        .collect();
    let uniform = elems.windows(2).all(|w| w[0] == w[1]);
    let (grads_ty, grads_value) = if uniform {
        let ty = differentiable[0].1.cotangent_type();
        let n = differentiable.len();
        (quote!([#ty; #n]), quote!([#(#entries),*]))
    } else {
        let tys = differentiable.iter().map(|(_, p)| p.cotangent_type());
        (quote!((#(#tys,)*)), quote!((#(#entries,)*)))
    };
    quote! {
        /// The value and the gradient (one entry per float parameter, in order), computed
        /// by the generated adjoint with no tape.
        #[inline]
        pub fn grad #generics (#(#params),*) -> (#out, #grads_ty) #where_clause {
            let (#value, #pullback) = Self::vjp(#(#args),*);
            let #grads_name = #pullback(1.0);
            (#value, #grads_value)
        }
    }
}
