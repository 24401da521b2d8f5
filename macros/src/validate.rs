//! Validation: every rejection of the macro, with its message, in one place. It takes the
//! user's syntax (and, for the body, which values are differentiable) and gives errors in the
//! [`Ctxt`]; it changes nothing.
//!
//! The signature is checked up front ([`signature`]) and once classified ([`outputs`],
//! [`has_differentiable_param`]). Whether a construct of the body is an error depends on
//! whether it touches a differentiable value, which only lowering knows, so lowering calls
//! these functions where it meets the construct; none of them decides anything else.
//! Messages are lowercase, with no trailing period, and say what to write instead.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Pat, ReturnType, Type};

use crate::ctxt::Ctxt;
use crate::model::sig::{self, Mode, Signature};

// ----- the signature -----

/// A function without `self` that names `Self` is an associated function of an `impl`
/// block, annotated on its own: its companion items would be a type beside it, which an
/// `impl` block cannot hold (rustc's "struct is not supported in `impl`s"). The block's
/// own `#[differentiable]` puts them beside it as associated functions. (One that does not
/// name `Self` cannot be told from a free function by a macro that sees only it.)
pub fn associated_function_alone(cx: &Ctxt, item: &syn::ItemFn) {
    if item.sig.receiver().is_none()
        && !crate::syntax::is_in_impl_block()
        && crate::syntax::names_self(quote::ToTokens::to_token_stream(item))
    {
        cx.error_spanned_by(
            &item.sig.ident,
            "an associated function (no `self`) annotated on its own: put #[differentiable] on its `impl` block as well, which then gives it companion items beside it (`Type::f_vjp`, `Type::f_grad`, ...), as a method has",
        );
    }
}

/// What is wrong with the signature whatever the parameters' types: `async`, `unsafe`,
/// `self`, patterns, `&mut`, no result.
pub fn signature(cx: &Ctxt, sig: &syn::Signature, floats: &[syn::Ident]) {
    if let Some(asyncness) = &sig.asyncness {
        cx.error_spanned_by(asyncness, "a #[differentiable] function cannot be async");
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(
            unsafety,
            "a #[differentiable] function cannot be unsafe: its adjoint is derived from safe code only",
        );
    }
    for input in &sig.inputs {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                // `&mut self`, or `self: &mut Self`
                if let Type::Reference(reference) = sig::receiver_type(receiver)
                    && let Some(mutability) = reference.mutability
                {
                    cx.error_spanned_by(
                        mutability,
                        "a #[differentiable] method cannot take `&mut self`: mutation through references has no adjoint; take `&self` and return the new value instead",
                    );
                }
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        if !matches!(&*typed.pat, Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none()) {
            cx.error_spanned_by(
                &typed.pat,
                "parameters of a #[differentiable] function must be plain names: destructure inside the body",
            );
            continue;
        }
        if let Type::Reference(reference) = &*typed.ty
            && let Some(mutability) = &reference.mutability
            && sig::float_array_or_rows(&reference.elem, floats).is_none()
        {
            cx.error_spanned_by(
                mutability,
                "a #[differentiable] function cannot take `&mut` parameters: mutation through references has no adjoint; return the new value instead",
            );
        }
    }
    let writes_arrays = sig.inputs.iter().any(|input| {
        matches!(input, FnArg::Typed(typed) if matches!(&*typed.ty,
            Type::Reference(reference) if reference.mutability.is_some()
                && sig::float_array_or_rows(&reference.elem, floats).is_some()))
    });
    if let ReturnType::Default = sig.output
        && !writes_arrays
    {
        cx.syn_error(syn::Error::new(
            sig.paren_token.span.close(),
            "a #[differentiable] function must return the value to differentiate: add `-> Tensor<f32>` (or a float, or a tuple of them)",
        ));
    }
}

/// Each result must be a float tensor (tensor mode) or a float (scalar mode); a `&mut`
/// float array is an output of scalar mode only.
pub fn outputs(cx: &Ctxt, model: &Signature, type_params: &[syn::Ident], method: bool) {
    if model.mode == Mode::Tensor {
        for param in &model.params {
            if let Type::Reference(reference) = &param.ty
                && let Some(mutability) = &reference.mutability
            {
                cx.error_spanned_by(
                    mutability,
                    "a #[differentiable] function of tensors cannot take `&mut` parameters: `&mut [f64]` outputs are for functions of plain floats; return a tensor instead",
                );
            }
        }
    }
    // a struct held whole and returned on: its own type's `Accumulate` says whether it is
    // a struct of floats
    if model.whole_output {
        return;
    }
    for ty in &model.outputs {
        output(cx, ty, model.mode, type_params, method);
    }
    if model.tuple_output && model.outputs.len() > sig::MAX_PARTS {
        cx.error_spanned_by(
            &model.outputs[sig::MAX_PARTS],
            format_args!(
                "a tuple result of a #[differentiable] function has at most {} parts (this one has {}): write the values into a `&mut [f64]` parameter instead, which is differentiated at any length",
                sig::MAX_PARTS,
                model.outputs.len()
            ),
        );
    }
}

fn output(cx: &Ctxt, ty: &Type, mode: Mode, type_params: &[syn::Ident], method: bool) {
    let ok = match (sig::tensor_elem(ty), mode) {
        (Some(elem), Mode::Tensor) => {
            if sig::is_integer(elem) {
                cx.error_spanned_by(
                    ty,
                    format_args!(
                        "`{}` results cannot be differentiated: integer tensors are data; return a float tensor (`Tensor<f32>` or `Tensor<f64>`)",
                        sig::type_name(ty)
                    ),
                );
                return;
            }
            sig::is_float(elem, type_params)
        }
        (None, Mode::Scalar) => sig::container(ty).is_none() && sig::is_float(ty, type_params),
        _ => false,
    };
    if ok {
        return;
    }
    let message = if sig::is_integer(ty) {
        format!(
            "`{}` results cannot be differentiated: return a float (`f32` or `f64`) or a float tensor",
            sig::type_name(ty)
        )
    } else if mode == Mode::Tensor {
        format!(
            "`{}` cannot be the result of a #[differentiable] tensor function: return `Tensor<f32>`, `Tensor<f64>` or a tuple of them",
            sig::type_name(ty)
        )
    } else {
        // A method's `T` that is no parameter of its own: the `impl`'s, which a method
        // alone cannot see bound by `Float`.
        let impl_param = method
            && matches!(ty, Type::Path(path) if path.qself.is_none()
                && path.path.get_ident().is_some_and(|ident| !type_params.contains(ident)));
        let hint = if impl_param {
            format!(
                "; if `{0}` is a float type parameter of the `impl` block (`impl<{0}: Float>`), put #[differentiable] on the block as well: it tells its marked methods that `{0}` is a float",
                sig::type_name(ty)
            )
        } else if let Type::Array(array) = ty
            && let Some(len) = std::iter::once(&array.len)
                .chain(match &*array.elem {
                    Type::Array(row) => Some(&row.len),
                    _ => None,
                })
                .find(|len| !matches!(len, syn::Expr::Lit(_)))
        {
            format!(
                "; an array's length must be a literal (`[f64; 3]`, `[[f64; 3]; 3]`): the macro differentiates it as the tuple of its elements, and cannot count `{}` of them (for a length the caller chooses, write into a `&mut [f64]` parameter instead)",
                len.to_token_stream()
            )
        } else {
            String::new()
        };
        format!(
            "`{}` cannot be the result of a #[differentiable] function: return `f32`, `f64`, a float tensor, a tuple of them, an array of floats or of rows of them (`[f64; 3]`, `[[f64; 3]; 3]`), or a struct of floats built by a literal (`State {{ x: .., v: .. }}`){hint}",
            sig::type_name(ty)
        )
    };
    cx.error_spanned_by(ty, message);
}

/// A row pushed onto a local array of fixed rows other than as a literal of its elements
/// (`path.push(next)` of a local row): lowering writes a pushed row element by element.
pub fn row_pushed_whole(cx: &Ctxt, value: &Expr) {
    cx.error_spanned_by(
        value,
        "a row pushed onto a local array of rows of differentiable values is written \
         element by element, from a literal of its elements or a local array by name: \
         write `let r = ..; rows.push([r[0], r[1]]);`",
    );
}

/// A function with nothing to differentiate: point at the first integer parameter (the
/// likely mistake) or at the name.
pub fn has_differentiable_param(cx: &Ctxt, model: &Signature, item_sig: &syn::Signature) {
    if model.params.iter().any(|p| p.differentiable(model.mode)) {
        return;
    }
    match model.integer_params.first() {
        Some(ty) => cx.error_spanned_by(
            ty,
            format_args!(
                "`{}` parameters cannot be differentiated: differentiable parameters must be float tensors (`Tensor<f32>`, `&Tensor<f64>`), variables, or `f32`/`f64` numbers; cast integers to a float first",
                sig::type_name(ty)
            ),
        ),
        None => match tuple_of_floats(item_sig) {
            // `fn dist(a: (f64, f64), b: (f64, f64))`: the likely intent, named
            Some(ty) => cx.error_spanned_by(
                ty,
                "a tuple parameter is not differentiated: pass its numbers as parameters of their own (`ax: f64, ay: f64`) or as an array (`a: [f64; 2]`, `a: &[f64]`), which are",
            ),
            None => cx.syn_error(syn::Error::new(
                item_sig.ident.span(),
                "a #[differentiable] function needs a differentiable parameter: a float tensor, a variable, an `f32`/`f64` number, an array, slice or `Vec` of them, or a struct of them marked `#[differentiable] p: &Params` (its type deriving `Differentiable`); other parameters are constants",
            )),
        },
    }
}

/// The first parameter typed as a tuple of `f32`/`f64` (or a reference to one).
fn tuple_of_floats(item_sig: &syn::Signature) -> Option<&syn::Type> {
    item_sig.inputs.iter().find_map(|input| {
        let syn::FnArg::Typed(typed) = input else {
            return None;
        };
        let ty = match &*typed.ty {
            syn::Type::Reference(reference) => &*reference.elem,
            other => other,
        };
        let syn::Type::Tuple(tuple) = ty else {
            return None;
        };
        let float = |t: &syn::Type| {
            matches!(t, syn::Type::Path(path) if path.path.is_ident("f64") || path.path.is_ident("f32"))
        };
        (!tuple.elems.is_empty() && tuple.elems.iter().all(float)).then_some(&*typed.ty)
    })
}

// ----- the body: constructs lowering meets -----

const UNSAFE: &str = "`unsafe` code cannot be differentiated: move it into a function outside the #[differentiable] one and pass its result as a constant";

const MUTABLE_BORROW: &str =
    "a differentiable value cannot be borrowed mutably: mutation through references has no adjoint";

/// Macros that only read values (a differentiable struct parameter's fields read inside
/// one are constants there: `params.rs`).
pub const HARMLESS_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "println",
    "eprintln",
    "print",
    "eprint",
    "format",
    "write",
    "writeln",
    "dbg",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "vec",
];

/// An expression that reads a differentiable value and has no adjoint.
pub fn unsupported_expr(cx: &Ctxt, expr: &Expr) {
    let message = match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
            "a jump inside an expression is not differentiated: write it as a statement, or as the value of an `if`/`match` branch"
        }
        Expr::Closure(_) => {
            "this closure is not differentiated: a closure bound by `let` and only called by its name, or passed by name to a method (`xs.iter().map(f)`), is (it is inlined at each call), and so is one a closure returns or a block ends in (`let f = { let k = ..; move |v| v * k };`) where nothing after the block names what the block binds; one used otherwise as a value (handed to a function, stored) is not, so call it directly, rename what its block binds, or move the code into a function (calls are differentiated)"
        }
        Expr::Unsafe(_) => UNSAFE,
        Expr::Macro(_) => {
            "macros are not differentiated (only assert!, println! and similar reads are allowed): write the computation out"
        }
        Expr::Cast(_) => {
            "casts of differentiable values are not differentiated: keep the value's float type, or use `stop_gradient(..)` before casting"
        }
        Expr::Index(_) => {
            "indexing a differentiable value is not differentiated: take a tensor's elements by `slice` or `gather`; a collection of tensors is indexed as a slice parameter (`xs[i]` of `xs: &[Tensor<f64>]`) or in a plain helper called with the tensors"
        }
        Expr::Field(_) => {
            "fields of differentiable values are not differentiated, but for a struct or tuple result of a call bound by `let` and read only by its fields (`let s = step(..);`, then `s.x`; `step(..).x`), a named field of a struct result held whole (`norm(&s) + s.x`) and a local struct read and written field by field: a tuple result is read by its parts where the call is bound, not held whole (pass the values as separate parameters, or read the result's parts where the call is bound)"
        }
        Expr::Tuple(_) | Expr::Array(_) => {
            "a tuple of differentiable values is supported as the function's result or destructured (`let (a, b) = (x, y);`), an array of them as a local's value (`let a = [x, y];`, then indexed), and a local array of tuples (`vec![(x[0], 2.0), ..]`, `push((a, b))`) read by index (`pairs[i].0`), `len`, `push` or iterated (`for (v, w) in &pairs`): bind each value to its own name, or the array to a local"
        }
        // a local struct read and written only field by field (`let mut s = State { x, v };
        // s.v += ..`) is split into one local per field before lowering (`fields`); one
        // used otherwise reaches here
        Expr::Struct(_) => {
            "a struct built from differentiable values is differentiated as a local read and written field by field (`let mut s = State { x: x0, v: 0.0 }; s.v -= dt * s.x;`, `s.x`, `s = State { x: .., v: .. };`) or passed whole to another annotated function (`s = step(&s, dt);`, `fill(&s, &mut out);`); this one is used otherwise (returned, passed to a plain helper, a method called on it): keep its fields as separate locals, or pass them as separate parameters"
        }
        Expr::Try(_) => "`?` is not supported in a #[differentiable] function",
        Expr::Assign(_) => "an assignment is a statement: write it on its own line",
        _ => "this expression cannot be differentiated by #[differentiable]",
    };
    // What the tape records as written, were the body run on it (not `unsafe`).
    if matches!(expr, Expr::Unsafe(_)) {
        cx.error_spanned_by(expr, message);
    } else {
        cx.traceable_error(expr, message);
    }
}

/// What a tensor-mode body does instead of keeping differentiable tensors in a local
/// collection: the fused node's bindings are single tensors, so a `Vec` of them has no
/// adjoint of its own.
const TENSOR_COLLECTION_HINT: &str = "take the tensors as a slice parameter (`xs: &[Tensor<f64>]`, read by `xs[i]`, `iter()`, `zip`, `fold`; the function then runs op by op on the caller's tape), or build and read the vector in a plain helper called with the tensors (`helper(&[a.clone(), b.clone()])`, run on a sub-tape inside this function's node)";

/// A local collection of differentiable tensors in a tensor-mode body: `vec![..]` of
/// them, or one pushed (`push`, `insert`, `extend`).
pub fn collection_of_tensors(cx: &Ctxt, tokens: impl ToTokens) {
    cx.traceable_error(
        tokens,
        format_args!(
            "a #[differentiable] tensor function keeps no collection of differentiable tensors of its own: {TENSOR_COLLECTION_HINT}"
        ),
    );
}

/// A macro other than the ones that only read values.
pub fn macro_call(cx: &Ctxt, mac: &syn::Macro) {
    let name = crate::syntax::last_segment(&mac.path);
    if !HARMLESS_MACROS.contains(&name.as_str()) {
        cx.error_spanned_by(
            mac,
            format_args!(
                "`{name}!` cannot be differentiated: a #[differentiable] function allows only macros that read values (assert!, println!, ...); write the computation out"
            ),
        );
    }
}

/// An `unsafe` block (its keyword).
pub fn unsafe_block(cx: &Ctxt, unsafety: impl ToTokens) {
    cx.error_spanned_by(unsafety, UNSAFE);
}

/// `&mut` on a differentiable value.
pub fn mutable_borrow(cx: &Ctxt, mutability: impl ToTokens) {
    cx.error_spanned_by(mutability, MUTABLE_BORROW);
}

/// Checks code that is emitted as written: no `unsafe`, no closures over differentiable
/// values, only harmless macros, no `&mut` of a differentiable value. `mentions_active`
/// says whether an expression reads a differentiable value.
pub fn as_written(cx: &Ctxt, expr: &Expr, mentions_active: &dyn Fn(&Expr) -> bool) {
    AsWritten {
        cx,
        mentions_active,
    }
    .visit_expr(expr);
}

/// [`as_written`] for a `let` statement.
pub fn local_as_written(cx: &Ctxt, local: &syn::Local, mentions_active: &dyn Fn(&Expr) -> bool) {
    AsWritten {
        cx,
        mentions_active,
    }
    .visit_local(local);
}

/// Whether `expr` only reads: no assignment (plain or compound), no `&mut`, no macro, and
/// no method call but those that read their receiver (comparisons, `abs`, `unwrap`, ..):
/// a `&mut self` method (`buf.push(v)`) could change a differentiable local.
fn writes_nothing(expr: &Expr) -> bool {
    const READS: &[&str] = &[
        "partial_cmp",
        "total_cmp",
        "cmp",
        "unwrap",
        "abs",
        "is_nan",
        "is_finite",
        "reverse",
        "then",
        "lt",
        "le",
        "gt",
        "ge",
        "eq",
        "ne",
    ];
    !crate::syntax::may_write(expr, false, Some(READS))
}

struct AsWritten<'c, 'f> {
    cx: &'c Ctxt,
    mentions_active: &'f dyn Fn(&Expr) -> bool,
}

impl<'ast> Visit<'ast> for AsWritten<'_, '_> {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        // `knots.partition_point(|&k| k <= t)`, `binary_search_by(|p| p.total_cmp(&t))`:
        // a closure whose result only decides a position or an ordering (a constant) may
        // test differentiable values, as long as it writes nothing (an assignment in it
        // would be a differentiable value changed in code left as written)
        if crate::vocabulary::has_no_gradient(&call.method.to_string()) {
            self.visit_expr(&call.receiver);
            for arg in &call.args {
                match arg {
                    Expr::Closure(closure) if writes_nothing(&closure.body) => {
                        self.visit_expr(&closure.body)
                    }
                    Expr::Closure(closure) if (self.mentions_active)(arg) => {
                        self.cx.error_spanned_by(
                            closure,
                            format_args!(
                                "the closure of `{}` decides a position or an ordering, a constant: it may test differentiable values (`|&k| k <= t`) but not write, call a method that may write (`push`), or run a macro, since this code runs as written; compute the value outside the closure",
                                call.method
                            ),
                        );
                    }
                    arg => self.visit_expr(arg),
                }
            }
            return;
        }
        visit::visit_expr_method_call(self, call);
    }
    fn visit_expr_cast(&mut self, cast: &'ast syn::ExprCast) {
        // `x as f64` is differentiated, `x as usize` a constant: a type that is neither
        // by its spelling (an alias) would make the gradient through it silently zero
        if !crate::syntax::holds_no_float(&cast.ty) && (self.mentions_active)(&cast.expr) {
            let ty = quote::ToTokens::to_token_stream(&cast.ty);
            self.cx.error_spanned_by(
                &cast.ty,
                format!(
                    "a cast of a differentiable value to `{ty}`: #[differentiable] tells a float \
                     cast (differentiated) from an integer's (a constant) by the type's spelling, \
                     and `{ty}` is neither; write `as f64` or `as f32` (or the integer type)"
                ),
            );
        }
        visit::visit_expr_cast(self, cast);
    }
    fn visit_expr_unsafe(&mut self, expr: &'ast syn::ExprUnsafe) {
        unsafe_block(self.cx, expr.unsafe_token);
    }
    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        // The whole closure, not its body alone: a parameter spelled like a differentiable
        // value (`cs.iter().map(|x| x * 2.0)` beside a parameter `x`) is not a capture.
        if (self.mentions_active)(&Expr::Closure(closure.clone())) {
            self.cx.traceable_error(
                closure,
                "this closure over differentiable values is not differentiated: a closure bound by `let` and only called by its name is (it is inlined at each call); one used as a value is not, so call it directly, or move the code into a function (calls are differentiated)",
            );
        }
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        macro_call(self.cx, mac);
    }
    fn visit_expr_reference(&mut self, reference: &'ast syn::ExprReference) {
        if let Some(mutability) = &reference.mutability
            && (self.mentions_active)(&reference.expr)
        {
            mutable_borrow(self.cx, mutability);
        }
        visit::visit_expr_reference(self, reference);
    }
}

/// An assignment inside a condition (of an `if` or a `while`, which runs as written, a
/// constant) that writes a differentiable value, or writes a value computed from one
/// (`while x.iter().any(|&v| { s += v * t; v > t })`): its derivative would be lost
/// silently. Integers and flags (`n += 1`) may be updated there.
pub fn condition_writes(cx: &Ctxt, cond: &Expr, mentions_active: &dyn Fn(&Expr) -> bool) {
    struct Writes<'c, 'f> {
        cx: &'c Ctxt,
        mentions_active: &'f dyn Fn(&Expr) -> bool,
        /// Inside a closure, whose parameters lowering does not know: any value but a
        /// literal may be an element of a differentiable array (`|&v| { s += v; .. }`).
        in_closure: bool,
        /// The names bound inside the condition (by `let`, a closure's parameters, a `for`
        /// pattern), innermost scope last. Rebinding such a name writes nothing outside
        /// the condition (`x.iter().fold(..)`'s accumulator, as the iterator rewrite spells
        /// it out, or a user's `{ let mut t = ..; t = t * 2.0; t } > 1.0`), so it loses
        /// no derivative; a write through one (`*v = ..`, `r[0] = ..`) may, and is checked.
        declared: crate::syntax::Scopes,
    }
    impl Writes<'_, '_> {
        /// Whether `target` is a name bound inside the condition (the name itself, not a
        /// place reached through it).
        fn local_to_condition(&self, target: &Expr) -> bool {
            let Expr::Path(path) = crate::syntax::strip_parens(target) else {
                return false;
            };
            let Some(name) = path.path.get_ident() else {
                return false;
            };
            path.qself.is_none() && self.declared.contains(name)
        }

        fn bind(&mut self, pat: &syn::Pat) {
            self.declared.bind(pat);
        }

        fn write(&self, target: &Expr, value: &Expr, whole: &Expr) {
            if self.local_to_condition(target) {
                return;
            }
            let literal = matches!(crate::syntax::strip_parens(value), Expr::Lit(_));
            if (self.mentions_active)(target)
                || (self.mentions_active)(value)
                || (self.in_closure && !literal)
            {
                self.cx.error_spanned_by(
                    whole,
                    "this assignment is inside a condition, which a #[differentiable] function runs as written (its value is a constant), so it would not be differentiated: make the update a statement before the condition",
                );
            }
        }
    }
    impl<'ast> Visit<'ast> for Writes<'_, '_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.write(&assign.left, &assign.right, &Expr::Assign(assign.clone()));
            visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            if crate::syntax::is_compound_assign(&binary.op) {
                self.write(&binary.left, &binary.right, &Expr::Binary(binary.clone()));
            }
            visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
            let outer = std::mem::replace(&mut self.in_closure, true);
            self.declared.open();
            for input in &closure.inputs {
                self.bind(input);
            }
            self.visit_expr(&closure.body);
            self.declared.close();
            self.in_closure = outer;
        }
        fn visit_block(&mut self, block: &'ast syn::Block) {
            self.declared.open();
            visit::visit_block(self, block);
            self.declared.close();
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            // the initialiser runs before the name is bound
            if let Some(init) = &local.init {
                self.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.visit_expr(diverge);
                }
            }
            self.bind(&local.pat);
        }
        fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
            self.visit_expr(&for_loop.expr);
            self.declared.open();
            self.bind(&for_loop.pat);
            self.visit_block(&for_loop.body);
            self.declared.close();
        }
    }
    Writes {
        cx,
        mentions_active,
        in_closure: false,
        declared: crate::syntax::Scopes::default(),
    }
    .visit_expr(cond);
}

/// A `break`/`continue` with no loop of that label around it in the lowered body (a
/// labelled block is a loop there, `rewrite::LabelledBlocks`; Rust rejects the other
/// jumps without a target itself).
pub fn jump_target(cx: &Ctxt, jump: &Expr) {
    cx.error_spanned_by(
        jump,
        "this jump leaves no loop of the #[differentiable] function that it differentiates",
    );
}

/// A condition with `let` inside a chain (`if let A = a && c`).
pub fn let_chain(cx: &Ctxt, cond: &Expr) {
    cx.error_spanned_by(
        cond,
        "a #[differentiable] function supports `if let`/`while let` with one pattern: nest the other conditions inside it",
    );
}

/// A `for` loop over a differentiable value (its iterator expression).
pub fn loop_over_active(cx: &Ctxt, iter: &Expr) {
    cx.traceable_error(
        iter,
        "a `for` loop cannot iterate over a differentiable value: loop over a range of indices instead",
    );
}

/// An `if` producing a value with no `else`.
pub fn if_without_else(cx: &Ctxt, expr_if: &syn::ExprIf) {
    cx.error_spanned_by(
        expr_if,
        "an `if` that produces a value needs an `else` branch",
    );
}

/// A block with no tail expression where a value is needed: the function's body when
/// `whole_function`, else the value of an `if`/`match`/block.
pub fn missing_tail(cx: &Ctxt, stmts: &[syn::Stmt], whole_function: bool) {
    if whole_function {
        cx.syn_error(syn::Error::new(
            Span::call_site(),
            "a #[differentiable] function must end with the expression of its result",
        ));
    } else {
        let span = stmts.last().map_or(Span::call_site(), |s| s.span());
        cx.syn_error(syn::Error::new(
            span,
            "this block must end with the value it produces",
        ));
    }
}

/// A tuple result whose tail is a tuple of another length.
pub fn tuple_length(cx: &Ctxt, tuple: &syn::ExprTuple) {
    cx.error_spanned_by(
        tuple,
        "this tuple's length differs from the declared result's",
    );
}

/// A tuple result whose tail is not a tuple expression.
pub fn tuple_tail(cx: &Ctxt, expr: &Expr) {
    cx.error_spanned_by(
        expr,
        "a #[differentiable] function with a tuple result must end with a tuple expression `(a, b)`",
    );
}

/// `let s = helper(..);` read by named fields (`s.x`) where `helper` is a plain helper
/// named in `plain(..)`: only an annotated function's struct result is read so
/// (`results::parts_vjp`).
pub fn struct_result_of_a_plain_helper(cx: &Ctxt, path: &syn::Path) {
    cx.error_spanned_by(
        path,
        "a value read by its fields (`s.x`) is a struct result of another #[differentiable] \
         function; this call is of a plain helper (`plain(..)`), which runs on dual numbers \
         and returns floats: return the fields as a tuple, or annotate the helper",
    );
}

/// `let s = ..;` read by named fields whose value is not the call `split_tuple_local`
/// takes it for (`stop_gradient(f(..))`).
pub fn struct_result_not_a_call(cx: &Ctxt, local: &syn::Local) {
    cx.error_spanned_by(
        local,
        "a value read by its fields (`s.x`) is a struct result of a call of another \
         #[differentiable] function, bound by `let s = f(..);`: bind the call's result \
         first, then read its fields",
    );
}

/// A differentiable value bound by a pattern (in tensor mode, the tape records it as
/// written).
pub fn destructured(cx: &Ctxt, pat: &Pat, mode: Mode) {
    let report = if mode == Mode::Tensor {
        Ctxt::traceable_error
    } else {
        Ctxt::error_spanned_by
    };
    report(
        cx,
        pat,
        "a differentiable value must be bound to a plain name: write `let name = ...;` (destructuring is not differentiated)",
    );
}

/// `(a, b) = value;` where the value is neither a tuple expression nor a call.
pub fn destructured_assignment(cx: &Ctxt, value: &Expr) {
    cx.error_spanned_by(
        value,
        "a destructuring assignment of differentiable values needs a tuple expression `(x, y)` or a call on its right: bind this value with `let` first",
    );
}

/// `let ... else` with a differentiable value (its `else`).
pub fn let_else(cx: &Ctxt, diverge: impl ToTokens) {
    cx.error_spanned_by(
        diverge,
        "`let ... else` is not supported for differentiable values",
    );
}

/// An assignment of a differentiable value through a reference, a field or an index.
pub fn assignment_target(cx: &Ctxt, left: &Expr) {
    cx.error_spanned_by(
        left,
        "a #[differentiable] function can assign only to its own `let mut` locals: mutation through references, fields or indexing has no adjoint; build a new value instead",
    );
}

/// `r[i] = value;` of a differentiable value, where `r` is a local whose value's type the
/// macro cannot see (a copy of a field or of a call's result, `let mut r = model.rel[b];`):
/// it is not known to be a float array, so it has no shadow.
pub fn element_of_untyped_local(cx: &Ctxt, left: &Expr, local: &syn::Ident) {
    cx.error_spanned_by(
        left,
        format!(
            "`{local}` is written element by element with a differentiable value, but its type is not known to #[differentiable] (the value it starts from does not show it): spell it, `let mut {local}: [f64; N] = ...;` (or `Vec<f64>`), so that it is differentiated as a float array"
        ),
    );
}

/// An index that depends on a differentiable value.
pub fn active_index(cx: &Ctxt, index: &Expr) {
    cx.error_spanned_by(
        index,
        "this index reads a differentiable value: compute the integer into a local first (`let i = x[0] as usize;`), then index with it",
    );
}

/// Indexing into something that is no array parameter or local array of floats.
pub fn indexed_value(cx: &Ctxt, base: &Expr) {
    cx.error_spanned_by(
        base,
        "a #[differentiable] function indexes only its array, slice and `Vec` parameters of floats, its own local arrays (`vec![0.0; n]`, `[0.0; 3]`) and the array results of annotated functions it binds by `let` (`let c = cross(a, b);`), by name: bind the value to such a local first",
    );
}

/// A differentiable array used whole, not element by element.
pub fn whole_array(cx: &Ctxt, expr: &Expr) {
    cx.error_spanned_by(
        expr,
        "a differentiable array is differentiated element by element: index it (`a[i]`), loop over it (`for v in a.iter()`), or reduce it (`a.iter().sum()`), or pass it whole to another #[differentiable] function (`f(&a)`); it cannot be copied or returned whole, except a fixed-size array (`[f64; N]`, `[[f64; N]; M]`) copied into a local of the same type (`let mut m = *a;`, `m = next;`) and a flat float `Vec` local assigned another array of the body of the same length (`state = next;`), element by element (for data, hold the parameter constant: `#[differentiable(constant(name))]`)",
    );
}

/// A differentiable struct (or a field of one) passed on whole, used otherwise than as an
/// argument of another annotated function. The struct pass allows no other use, so this is
/// its backstop: the core would not know how to differentiate the use.
pub fn whole_struct(cx: &Ctxt, expr: &Expr) {
    cx.error_spanned_by(
        expr,
        "a differentiable struct is used whole only as an argument of another #[differentiable] function (`f(&s, x)`); read its fields for anything else",
    );
}

/// An assignment of a differentiable value to a name that is no `let mut` local.
pub fn assignment_to_non_local(cx: &Ctxt, left: &Expr) {
    cx.error_spanned_by(
        left,
        "this name is not a `let mut` local of the function; a differentiable value cannot be assigned to it",
    );
}

/// `a += b` used as a value.
pub fn compound_in_expr(cx: &Ctxt, binary: &syn::ExprBinary) {
    cx.error_spanned_by(
        binary,
        "compound assignment is a statement: write it on its own line",
    );
}

/// An operator other than `+ - * / %` on a differentiable value.
pub fn operator(cx: &Ctxt, op: &syn::BinOp) {
    cx.error_spanned_by(
        op,
        format_args!(
            "`{}` has no derivative rule: only `+ - * / %` are differentiated",
            op.to_token_stream()
        ),
    );
}

/// A differentiable value as the constant argument of an elementwise method (`powf`).
pub fn active_constant_arg(cx: &Ctxt, args: impl ToTokens, name: impl Display) {
    cx.error_spanned_by(
        args,
        format_args!(
            "the argument of `{name}` must be a constant: a differentiable exponent has no rule here; write `(y * x.ln()).exp()`"
        ),
    );
}

/// A method that turns a differentiable value into plain data (`to_vec`).
pub fn escape(cx: &Ctxt, method: &syn::Ident) {
    cx.error_spanned_by(
        method,
        format_args!(
            "`{method}` turns a differentiable value into plain data, which would cut its gradient silently: keep computing with tensor ops, or wrap the value in `stop_gradient(..)` if no gradient should flow"
        ),
    );
}

/// `m.to_vec()` (or `clone`) of a differentiable array of rows: no copy of it is made.
pub fn rows_copied_whole(cx: &Ctxt, method: &syn::Ident) {
    cx.error_spanned_by(
        method,
        format_args!(
            "an array of rows is not copied whole by `{method}` in a #[differentiable] function: read the array itself, or copy the rows you need one by one (`let r = m[i].to_vec();`) or element by element into a local `vec![vec![0.0; n]; rows]`"
        ),
    );
}

/// The reductions by a comparison or a closure (`max_by`, `reduce`, ..) that have no rule:
/// their message names the `fold` that is differentiated.
pub fn is_reduction_by(method: &str) -> bool {
    matches!(
        method,
        "max_by" | "min_by" | "max_by_key" | "min_by_key" | "reduce"
    )
}

/// A method with no rule, on a differentiable value.
pub fn unknown_method(cx: &Ctxt, method: &syn::Ident, mode: Mode) {
    let search = matches!(
        method.to_string().as_str(),
        "position" | "rposition" | "find" | "any" | "all"
    );
    let hint = if mode == Mode::Scalar && search {
        // a search over a float array left as written by `searches`
        "over a float array (`a.iter()`, then `copied`, `rev`, `skip`, `take`, `step_by`) with a closure of one name, it is the loop with a `break` it stands for where its statement evaluates it first (a `let`'s value, an `if`'s condition, an `if let`'s or a `match`'s scrutinee, or the receiver of a method there); `find` over `a.iter()` gives an `Option<&F>`, read as a number by `.copied()`, `if let Some(&v)`, `Some(v)` with `*v`, or `match` arms: for an `Option` local to pass on, write `a.iter().copied().find(..)`"
    } else if mode == Mode::Scalar && is_reduction_by(&method.to_string()) {
        "the largest or smallest element of a float array by a comparison or a key is differentiated as `a.iter().copied().max_by(|p, q| p.total_cmp(q))` (also `min_by`, `max_by_key`, `min_by_key`, over `a.iter()` then `copied`, `rev`, `skip`, `take`, `step_by` and a last `map`; the comparison a closure that is not `move`, or a path like `f64::total_cmp`), read by `unwrap`, `expect`, `match` or `if let` where its statement evaluates it first (a `let`'s value, a `match`'s scrutinee, a method's receiver there), and as a `fold` (`a.iter().copied().fold(f64::NEG_INFINITY, f64::max)`); `reduce` is differentiated in the same places over values (`a.iter().copied().reduce(f64::max)`, or after a last `map`; the step a closure of two inputs that is not `move`, or a path like `f64::max`), read by `unwrap`, `unwrap_or`, `match` or `if let`; over `a.iter()` (its value a reference to an element, the step's two parameters plain names) where the option is read as a number: `*m.unwrap()`, `.copied()`, `Some(&v)` or `Some(v)` then `*v`, else write `.copied()` before the `reduce`"
    } else if mode == Mode::Scalar
        && matches!(
            method.to_string().as_str(),
            "sort_by"
                | "sort_unstable_by"
                | "sort_by_key"
                | "sort_unstable_by_key"
                | "sort_by_cached_key"
                | "select_nth_unstable_by"
                | "select_nth_unstable_by_key"
        )
    {
        // `iterators`' `sort_by` rewrites these where they sort a flat float array
        "a flat float array of the body (a parameter `&mut [F]`, a local copy `let mut v = x.to_vec();`, a local buffer) is sorted differentiably in place by `sort_by`, `sort_unstable_by`, `sort_by_key`, `sort_unstable_by_key` or `sort_by_cached_key` (the permutation the body's own sort makes on the values, each element's cotangent following it), and by `select_nth_unstable_by`/`_by_key` called as a statement, read by `*v.select_nth_unstable_by(k, ..).1`, or destructured by `let (lo, m, hi) = v.select_nth_unstable_by(k, ..);` with `m` read as `*m` (`lo` and `hi` as slices); its result held otherwise (references into the array) is not followed: write `v.select_nth_unstable_by(k, |a, b| a.total_cmp(b));`, then read `v[k]`"
    } else if mode == Mode::Scalar && method == "next" {
        // an iterator held in a local that `rewrite::IteratorLoops` left as written
        "an iterator over a float array held in a local is differentiated as `while let Some(v) = it.next() { .. }` when that loop is the iterator's only use and nothing between its `let` and the loop changes what it reads (it is then the `for` loop `for v in a.iter() { .. }`); otherwise loop over the indices (`for i in 0..a.len()`, with `a[i]`)"
    } else if mode == Mode::Scalar {
        "on plain numbers it differentiates the float methods of the vocabulary of ops (`sqrt`, `exp`, `ln`, `sin`, `tan`, `atan2`, `powf`, `hypot`, `max`, `clamp`, `mul_add`, .. as the guide lists them), and over float arrays the iterator forms `iter`, `iter_mut`, `zip`, `enumerate`, `rev`, `skip`, `take`, `step_by`, `copied`, `filter`, `take_while`, `skip_while` (a closure that does not bind its parameter again), `map` (followed by `zip`, `filter`, `enumerate`, `rev`, `take` or a consumer, and by `skip` or `step_by` when its closure has no effect: no assignment, call or indexing), `sum`, `product`, `fold` (a tuple accumulator too), `reduce`, `count`, `collect` or a local `Vec`'s `extend`, `windows`/`chunks`/`chunks_exact` in a `for` loop, `position`/`find`/`any`/`all`, and an element's `get(i)`/`first()`/`last()` with `copied()` then `unwrap_or`, `unwrap_or_else`, `unwrap_or_default` or `map_or`; another function's or method's call is differentiated when it is `#[differentiable]` too"
    } else if matches!(
        method.to_string().as_str(),
        "push" | "insert" | "extend" | "push_back" | "push_front"
    ) {
        return collection_of_tensors(cx, method);
    } else if method == "fold" {
        // `iterators::tensor_folds` left it as written
        "a `fold` over an iterator (`a.iter()`, a range, after any `map`s) is differentiated as the loop it stands for when no closure of it may `return` or use `?` and none is `move`: write the loop"
    } else {
        "wrap the computation in a function taking tensors (calls are differentiated through the runtime's rules), or use the runtime's tensor ops"
    };
    let message =
        format!("`{method}` is not a differentiable method known to #[differentiable]: {hint}");
    // A tensor method the tape records as written, were the body run on it.
    if mode == Mode::Tensor {
        cx.traceable_error(method, message);
    } else {
        cx.error_spanned_by(method, message);
    }
}

/// A differentiable value passed to a constructor (`Some(x)`, `Point(x, y)`).
pub fn stored_in_constructor(cx: &Ctxt, path: &syn::Path, mode: Mode) {
    let name = crate::syntax::last_segment(path);
    let hint = match (name.as_str(), mode) {
        ("Some", Mode::Scalar) => {
            "an `Option` of a differentiable number is differentiated as a local read by `match`, `if let`, `let Some(..) = .. else`, `unwrap_or`, `unwrap`, `expect`, `is_some`, `is_none` or `map_or`; this one is used otherwise (passed on, copied or returned whole)"
        }
        _ => {
            "the adjoint cannot follow a value stored in a struct, a tuple struct or an enum: keep the numbers in locals, or return them as a tuple"
        }
    };
    cx.error_spanned_by(
        path,
        format_args!("a differentiable value cannot be stored in `{name}(..)`: {hint}"),
    );
}

/// Interior-mutability containers: a float behind one changes without an assignment the
/// adjoint could see.
const INTERIOR_MUTABILITY: &[&str] = &[
    "Cell",
    "RefCell",
    "OnceCell",
    "Mutex",
    "RwLock",
    "AtomicU64",
    "AtomicU32",
];

/// A call of a value (a parameter or local holding a closure or a function pointer, `f(x)`)
/// on differentiable values: its body is not the macro's to see. In scalar mode there is
/// nothing to differentiate it with; in tensor mode it would run op by op, which `strict`
/// refuses.
pub fn call_of_a_value(cx: &Ctxt, path: &syn::Path, strict: bool) {
    let name = path.to_token_stream().to_string();
    let message = if strict {
        format!(
            "`{name}` is a value (a closure or function the caller passes), so its call runs op by op on the node's sub-tape, which `strict` does not allow: call a #[differentiable] function by name"
        )
    } else {
        format!(
            "`{name}` is a value (a closure or function the caller passes), not a function item: #[differentiable] cannot see its body, so its call on differentiable values cannot be differentiated in scalar mode; call a #[differentiable] function by name (or a generic helper named in `plain(..)`), or compute the call on constants only"
        )
    };
    cx.error_spanned_by(path, message);
}

/// A type's associated function called on differentiable values (scalar mode).
pub fn associated_call(cx: &Ctxt, path: &syn::Path) {
    let ty = path
        .segments
        .iter()
        .rev()
        .nth(1)
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let message = if INTERIOR_MUTABILITY.contains(&ty.as_str()) {
        format!(
            "a differentiable value cannot be put behind `{ty}`: interior mutability changes values without an assignment the adjoint could see"
        )
    } else if path.segments.len() >= 2
        && path.segments.last().is_some_and(|last| {
            last.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        })
    {
        // by Rust's naming convention an enum variant (what `enums` did not rewrite)
        format!(
            "`{}` builds an enum value holding differentiable values: one bound by `let` and only matched (`match v {{ .. }}`, `if let`, arms binding its fields by name) is differentiated, and so is a local array of them iterated by a `for` loop whose item is only matched (`for s in &shapes`); one passed on, returned, copied, compared or matched by reference is not, and a variant must be named by some arm's pattern (for data, hold the values constant: `#[differentiable(constant(name))]`)",
            quote::quote!(#path).to_string().replace(' ', "")
        )
    } else {
        format!(
            "`{}` is a type's associated function: #[differentiable] differentiates calls of annotated functions (`f(x)`) and methods (`value.f(x)`) on plain numbers; call an annotated function instead",
            quote::quote!(#path).to_string().replace(' ', "")
        )
    };
    cx.error_spanned_by(path, message);
}

/// `push` onto a differentiable parameter array.
pub fn parameter_grows(cx: &Ctxt, receiver: &Expr) {
    cx.error_spanned_by(
        receiver,
        "a differentiable parameter array cannot grow: its gradient has the parameter's length; copy it into a local first (`let mut w = v.to_vec();`)",
    );
}

/// A call of something other than a named function.
pub fn unnamed_call(cx: &Ctxt, func: &Expr) {
    cx.error_spanned_by(
        func,
        "only calls of named functions are differentiated: call a function by its path",
    );
}

/// A row `m[i]` of an array of rows used whole (read, written, or iterated) otherwise
/// than as a local's copy (`let r = m[i];`) or, for fixed-size rows, written whole
/// (`m[i] = r;`).
pub fn whole_row(cx: &Ctxt, row: &Expr) {
    cx.error_spanned_by(
        row,
        "a row of a differentiable array of rows is differentiated element by element: index it (`m[i][j]`), loop over its columns (`for j in 0..m[i].len()`), or pass it to another #[differentiable] function (`f(&m[i])`); it is used whole only when copied into a local (`let r = m[i];`, `m[i].clone()`) or, if its rows are of fixed size (`[[f64; N]; M]`, `&mut [[f64; N]]`), written whole (`m[i] = r;`, `m[i] = [a, b];`); a row of a ragged array (`Vec<f64>`, whose length an assignment may change) is written element by element",
    );
}

/// A differentiable array passed to a plain helper: dual numbers replace numbers one for
/// one, and an array's length is known only at run time.
pub fn plain_helper_array(cx: &Ctxt, helper: &syn::Path, arg: &Expr) {
    cx.error_spanned_by(
        arg,
        format_args!(
            "a differentiable array or struct cannot be passed to the plain helper `{}`: plain helpers run on dual numbers, one per differentiable number argument; annotate `{}` with #[differentiable] (it differentiates arrays and structs), or pass it numbers",
            path_text(helper),
            path_text(helper),
        ),
    );
}

/// A plain helper whose result is destructured, called with no differentiable number.
pub fn plain_helper_on_constants(cx: &Ctxt, helper: &syn::Path) {
    cx.error_spanned_by(
        helper,
        format_args!(
            "this call of the plain helper `{}` passes it no differentiable number (only values computed from them, such as comparisons), so its parts are constants: compute them outside the `let`, or pass the numbers",
            path_text(helper)
        ),
    );
}

/// Strict mode and a plain helper: its derivative would come from dual numbers at run time.
pub fn strict_plain_helper(cx: &Ctxt, helper: &syn::Path) {
    cx.error_spanned_by(
        helper,
        format_args!(
            "`strict` allows no fallback, and `{}` is a plain helper (named in `plain(..)`), differentiated at run time on dual numbers: annotate it with #[differentiable] and drop it from `plain(..)`",
            path_text(helper)
        ),
    );
}

/// Strict mode and a tensor-mode method of a constant receiver: it runs op by op.
pub fn strict_method(cx: &Ctxt, method: &syn::Ident) {
    cx.error_spanned_by(
        method,
        format_args!(
            "`strict` allows no fallback, and `{method}` is a method called on differentiable tensors, which is replayed op by op on a sub-tape (tensor-mode methods have no generated code): make it a #[differentiable] function taking the receiver's tensors"
        ),
    );
}

/// Strict mode and a body that runs op by op as written (tensor mode).
pub fn strict_op_by_op(cx: &Ctxt, name: &syn::Ident) {
    cx.error_spanned_by(
        name,
        "`strict` allows no fallback, and this function runs op by op, as written: its body reads tensors or variables that the fused node would not see as inputs (a method's `self`, a struct's fields, a global); pass them as parameters",
    );
}

/// Strict mode and a tensor associated function of an annotated `impl` block, which runs
/// op by op as written (as a tensor method does).
pub fn strict_associated_tensor_function(cx: &Ctxt, name: &syn::Ident) {
    cx.error_spanned_by(
        name,
        "`strict` allows no fallback, and a tensor function of an `impl` block runs op by op, as written (it has no node of its own): make it a free #[differentiable] function",
    );
}

/// Strict mode and a tensor body that would run on a sub-tape as written (the errors
/// beside this one say which constructs have no generated adjoint).
pub fn strict_traced(cx: &Ctxt, name: &syn::Ident) {
    cx.error_spanned_by(
        name,
        "`strict` allows no fallback, and without it this body would run on a sub-tape inside the function's node, as written (the tape records what the generated adjoint cannot transform, as the other errors here say): rewrite those parts, or drop `strict`",
    );
}

/// Strict mode and a pullback boxed for possible recursion (scalar mode).
pub fn strict_boxed(cx: &Ctxt, call: &dyn ToTokens) {
    cx.error_spanned_by(
        call,
        "`strict` allows no fallback, and this call is made in a branch, so it may recurse back into this function: its pullback is boxed (a heap allocation per call); make the call unconditional, or drop `strict`",
    );
}

fn path_text(path: &syn::Path) -> String {
    crate::syntax::segment_names(path).join("::")
}

/// `std::mem::take(&mut a)` (or another function of the standard library given a
/// differentiable array `&mut`, but `swap` of two float arrays, a `Stmt::Swap`).
pub fn library_array_writer(cx: &Ctxt, path: &syn::Path) {
    cx.error_spanned_by(
        path,
        "a differentiable array cannot be handed `&mut` to a function of the standard library (`take`, `replace`; `std::mem::swap` of two float arrays is differentiated): its adjoint would have to move the array's cotangents with it; copy element by element instead (`for i in 0..n { state[i] = next[i]; }`)",
    );
}

/// A part of an array of rows passed `&mut` (`&mut m[1..]`), or `&mut buf` passed to a
/// call whose tuple result is not destructured: a call writing arrays is differentiated
/// only when it writes whole arrays or parts of flat ones and its result is dropped, one
/// float, or a tuple destructured (`Stmt::CallWrites`).
pub fn array_output_argument(cx: &Ctxt, mutability: impl ToTokens) {
    cx.error_spanned_by(
        mutability,
        "a call writing a `&mut` float array is differentiated when its result is dropped, one float, or a tuple destructured (`f(&x, &mut out);`, `let e = f(&x, &mut out[2..5]);`, `let (a, b) = f(&x, &mut out);`) and it writes whole arrays or parts of flat ones: write a part of an array of rows through a local array",
    );
}

/// A ragged array of rows (`&[Vec<F>]`, a local `vec![vec![0.0; n]; m]`) grown by a row:
/// a whole row written.
pub fn ragged_grows(cx: &Ctxt, expr: &Expr) {
    cx.error_spanned_by(
        expr,
        "a ragged array of rows (`&[Vec<f64>]`, `Vec<Vec<f64>>`) is written element by element (`m[i][j] = ..`): it cannot be grown by a row; start from its final shape (`vec![vec![0.0; n]; m]`) and write the elements",
    );
}

/// `for row in m` of an owned array of rows whose body names `m` or declares `mut row`:
/// the row is a copy the body could make differ from `m[k]`.
pub fn row_by_value(cx: &Ctxt, row: &syn::Ident, array: &syn::Ident) {
    cx.error_spanned_by(
        row,
        format_args!(
            "a row of `{array}` by value is read as `{array}[k]` in the loop's body, which here names `{array}` (or declares the row `mut`): loop over the indices and copy the row (`for k in 0..{array}.len() {{ let row = {array}[k]; .. }}`)"
        ),
    );
}
