//! The pipeline, and nothing else: parse (the attribute's arguments, the signature model),
//! validate the signature, rewrite float paths, local closures, searches over float arrays and `Option` locals, rewrite early returns, lower the body into the IR (validating it
//! as it goes), analyse it, generate the code; on any error, the fallback.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::analyse::{checkpoint, reach, recursion, saves, zero_d};
use crate::args;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::fields;
use crate::generate::companion::{Functions, companion};
use crate::generate::wrapper::wrapper_fn;
use crate::generate::{Flavour, Generator, Tangent, ZeroD, pretty};
use crate::iterators;
use crate::lower;
use crate::model::sig::{self, Mode};
use crate::options;
use crate::returns;
use crate::rewrite;
use crate::searches;
use crate::slots::Slots;
use crate::validate;

/// The whole expansion, or the fallback with every error.
pub fn differentiable(args: TokenStream, item: ItemFn) -> TokenStream {
    let (item, companion) = parts(args, item);
    quote!(#item #companion)
}

/// The expansion in two parts: the function itself (or the fallback with every error),
/// and its companion items (a method's are associated functions, which an `impl` block of
/// a trait cannot hold: [`impl_block`](crate::impl_block) puts them in one of their own).
pub fn parts(args: TokenStream, item: ItemFn) -> (TokenStream, TokenStream) {
    // a struct result built by a literal, or an array result: through a twin returning its
    // fields or elements as a tuple, which this function expands (a marked struct
    // parameter of it then goes to `params`)
    if crate::results::has_struct_result(&item) || crate::results::has_array_result(&item) {
        return crate::results::parts(args, item);
    }
    // an `Option` result: through a twin returning the value and the variant as a tuple
    if crate::option_results::has_option_result(&item) {
        return crate::option_results::parts(args, item);
    }
    // a struct parameter (or `self`) marked `#[differentiable]`: through a twin taking its
    // fields, which this function expands
    if crate::params::has_marked(&item) {
        return crate::params::parts(args, item);
    }
    let cx = Ctxt::default();
    // the names the user's item spells: before any pass names a local of its own
    // (`syntax::unspelled`), and for lowering's desugared names
    let user_names = crate::syntax::names_in(quote::ToTokens::to_token_stream(&item));
    crate::syntax::set_spelled(user_names.clone());
    let args = args::parse(&cx, args);
    validate::associated_function_alone(&cx, &item);
    validate::signature(&cx, &item.sig, &sig::float_type_params(&item));
    let mut sig = sig::parse(&item);
    if let Some(sig) = &mut sig {
        sig::hold_constant(&cx, sig, &args.constant);
        sig::pass_whole(sig, &args.whole);
    }
    // Whether the body may read tensors or variables the fused node would not see: then
    // it runs op by op (a function of such parameters alone is fine).
    let op_by_op = sig.as_ref().is_some_and(|sig| reach::op_by_op(sig, &item));
    let method = item.sig.receiver().is_some();
    // A tensor function of an annotated `impl` block, method or associated function, runs
    // as written (below).
    let as_written = sig.as_ref().is_some_and(|sig| sig.mode == Mode::Tensor)
        && (method || crate::syntax::is_in_impl_block());
    if op_by_op && args.calls.strict.is_some() {
        validate::strict_op_by_op(&cx, &item.sig.ident);
    } else if as_written && args.calls.strict.is_some() {
        validate::strict_associated_tensor_function(&cx, &item.sig.ident);
    }
    if let Some(sig) = &sig {
        let floats = match sig.mode {
            Mode::Tensor => sig::type_params(&item),
            Mode::Scalar => sig::float_type_params(&item),
        };
        validate::outputs(&cx, sig, &floats, item.sig.receiver().is_some());
        // A parameter the signature's validation rejected (a pattern, `self`, `&mut`) is
        // left out of the model: "no differentiable parameter" would only echo that error.
        let every_param_modelled = sig.params.len() == item.sig.inputs.len();
        // A scalar function's struct parameters (and a method's `self`) are constants:
        // it still needs a float to differentiate.
        if (!op_by_op || sig.mode == Mode::Scalar) && every_param_modelled {
            validate::has_differentiable_param(&cx, sig, &item.sig);
        }
    }
    // The body lowered into the IR once (`body`: the user's, or the call of the traced
    // helper below), its errors recorded in `cx`, the rewrites' slots made by `slots`.
    let lower_once = |cx: &Ctxt,
                      sig: &sig::Signature,
                      body: &syn::Block,
                      slots: &mut Slots,
                      receivers: &mut fields::Receivers| {
        let borrowed: Vec<syn::Ident> = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(typed)
                    if matches!(&*typed.ty, syn::Type::Reference(r) if r.mutability.is_none()) =>
                {
                    match &*typed.pat {
                        syn::Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                            Some(pat.ident.clone())
                        }
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        // every parameter's name: a local of the same name shadows one only from its `let`
        let parameters: Vec<syn::Ident> = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(typed) => match &*typed.pat {
                    syn::Pat::Ident(pat) => Some(pat.ident.clone()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let mut stmts = rewrite::rewrite(
            cx,
            sig.mode,
            body.stmts.clone(),
            &borrowed,
            &parameters,
            &sig.floats,
        );
        if sig.mode == Mode::Tensor {
            // a tensor accumulator folded over an iterator: the loop it stands for
            stmts = iterators::tensor_folds(stmts);
        }
        if sig.mode == Mode::Scalar {
            // a call's array result indexed later: a local array, which the passes after
            // see as one
            stmts =
                crate::array_calls::mark(stmts, &|path| args.calls.plain_helper(path).is_some());
            // local arrays of tuples split into one array per position: the iterator
            // forms and lowering then see local arrays
            stmts = crate::tuples::rewrite(stmts);
            // local structs split into their fields first: the searches and options
            // then see plain locals
            stmts = fields::rewrite(stmts, receivers);
            // a local array of enum values iterated: a loop building each item, which
            // `enums` then splits
            stmts = crate::enum_arrays::rewrite(stmts);
            // enum values built in the body and only matched: a tag and field locals
            stmts = crate::enums::rewrite(stmts, slots);
            // `let y = x;` of a borrowed flat array parameter: a view of the whole
            let aliased: std::collections::HashSet<String> = array_params(sig)
                .difference(&row_params(sig))
                .filter(|name| borrowed.iter().any(|b| b == name.as_str()))
                .cloned()
                .collect();
            stmts = rewrite::slice_aliases(stmts, &aliased);
            // before `options`: a `find`'s option is a local `options` rewrites
            let (arrays, rows) =
                iterators::with_locals(&stmts, array_params(sig), row_params(sig), &sig.floats);
            stmts = searches::rewrite(stmts, &arrays, &rows);
            stmts = options::rewrite(stmts, slots, &|path| {
                args.calls.plain_helper(path).is_some()
            });
        }
        let mut stmts = returns::rewrite(stmts);
        if sig.tuple_output {
            // a tail that branches, as `returns` may leave it: into parts assigned per branch
            stmts = rewrite::tuple_tail(stmts, sig.outputs.len());
        }
        if sig.mode == Mode::Scalar {
            let (arrays, rows) = (array_params(sig), row_params(sig));
            let fixed = sig
                .params
                .iter()
                .filter(|p| {
                    matches!(
                        p.kind,
                        sig::Kind::Array {
                            form: sig::ArrayForm::Fixed(_),
                            ..
                        }
                    )
                })
                .map(|p| p.ident.to_string())
                .collect();
            let widths = sig
                .params
                .iter()
                .filter_map(|p| Some((p.ident.to_string(), p.array_row()?)))
                .collect();
            // the float arrays and arrays of rows, the body's locals too
            let (flat, of_rows) =
                iterators::with_locals(&stmts, arrays.clone(), rows.clone(), &sig.floats);
            let float_arrays: std::collections::HashSet<String> =
                flat.union(&of_rows).cloned().collect();
            let constants = constant_array_params(sig, &stmts);
            stmts = iterators::desugar(
                cx,
                stmts,
                arrays,
                rows,
                fixed,
                &widths,
                &sig.floats,
                constants,
            );
            // a reduction the desugaring left (over a range or an iterator of constants)
            stmts = rewrite::reductions_as_loops(stmts, &float_arrays);
            // options again: a call's option read inside an iterator's closure, which the
            // desugaring inlined (`x.iter().map(|&v| inverse(v).unwrap_or(0.0)).sum()`)
            stmts = options::rewrite(stmts, slots, &|path| {
                args.calls.plain_helper(path).is_some()
            });
        }
        let block = syn::Block {
            brace_token: body.brace_token,
            stmts,
        };
        let schedule = args.checkpoint.as_ref().map(|c| c.schedule);
        let mut body = lower::lower(cx, sig, &block, schedule, &args.calls, &user_names);
        if let Some(asked) = &args.checkpoint {
            checkpoint::check(cx, asked, sig, &item, &body);
        }
        let boxing = recursion::boxing_call(&item, sig.mode, &args.calls);
        if let (Some(call), Some(_)) = (&boxing, &args.calls.strict) {
            validate::strict_boxed(cx, call);
        }
        body.boxed = boxing.is_some();
        body.item_names = crate::syntax::item_names(&item.block);
        body
    };
    // The body lowered into the IR, its errors recorded in `cx`: again when the rewrites
    // made a slot the first lowering left inactive, which then holds an `Option` (a
    // constant payload may have no `Default`: `slots`), or built a receiver again from a
    // local struct's fields the first lowering left inactive, which is then kept whole (a
    // constant's method may be any: `fields::Receivers`).
    let lower_body = |cx: &Ctxt, sig: &sig::Signature, body: &syn::Block| {
        let first = Ctxt::default();
        let (mut slots, mut receivers) = (Slots::default(), fields::Receivers::default());
        let lowered = lower_once(&first, sig, body, &mut slots, &mut receivers);
        let inactive = slots.inactive_in(&lowered);
        let kept = receivers.inactive_in(&lowered);
        if inactive.is_empty() && kept.is_empty() {
            cx.absorb(first);
            return lowered;
        }
        lower_once(
            cx,
            sig,
            body,
            &mut Slots::with_optional(inactive),
            &mut fields::Receivers::keeping(kept),
        )
    };
    let mut cx = cx;
    let mut body = sig.as_ref().map(|sig| lower_body(&cx, sig, &item.block));
    // A tensor body the fused node cannot transform statically but the tape can record as
    // written (a local `Vec` of tensors, a closure over them, an unknown tensor method):
    // run as a plain helper on a sub-tape inside the node, as a call of one the user wrote
    // would be (`traced::traced`). Not under `strict`, which reports the errors.
    let mut traced_helper = None;
    if let Some(sig) = &sig
        && cx.only_traceable()
        && args.checkpoint.is_none()
        && let Some(fallback) = crate::traced::traced(&item, sig)
    {
        if args.calls.strict.is_some() {
            validate::strict_traced(&cx, &item.sig.ident);
        } else {
            match fallback {
                crate::traced::Fallback::Helper { helper, call } => {
                    let retry = Ctxt::default();
                    let retried = lower_body(&retry, sig, &call);
                    if !retry.has_errors() {
                        (cx, body, traced_helper) = (retry, Some(retried), Some(helper));
                    }
                }
                // as every tensor function of an `impl` block (below): no node, no
                // companion items
                crate::traced::Fallback::AsWritten => return (quote!(#item), TokenStream::new()),
            }
        }
    }
    if let Err(error) = cx.check() {
        let rejected = fallback::rejected(&item, &error, sig.as_ref(), &args.constant);
        return (fallback::expand(&item, error), rejected);
    }
    let (sig, body) = (sig.expect("checked"), body.expect("checked"));
    // The function as the generated functions declare it (scalar generics bound by the
    // runtime's `Float`); the wrapper is the user's item.
    let generated_item = sig::with_runtime_float_bounds(&item, &sig);

    let flavour = match sig.mode {
        Mode::Tensor => Flavour::Tensor,
        Mode::Scalar => Flavour::Scalar,
    };
    let generator = Generator::new(&sig, &body, flavour);
    let vjp = generator.vjp_fn(&generated_item);
    let plan = zero_d::plan(&sig, &body);
    let zero_d = plan.as_ref().map(|plan| ZeroD {
        vjp: Generator::new(&sig, &body, Flavour::ZeroD(plan)).vjp_fn(&generated_item),
        primal: Generator::primal(&sig, &body, plan).primal_fn(&item),
    });
    // The tangent code, `f::jvp` (and in scalar mode the form calls of it take; tensor
    // mode calls are replayed under an accumulator, which meets the callee's node).
    let tangent = match sig.mode {
        Mode::Scalar => Tangent {
            jvp: generator.jvp_fn(&generated_item),
            jvp_call: generator.jvp_call_fn(&generated_item),
        },
        // `jvp` passes its tangents on to `jvp_partial`, which takes `Option`s (what an
        // accumulator's node calls with the tangents it has).
        Mode::Tensor => {
            let partial = generator.jvp_fn(&generated_item);
            Tangent {
                jvp: generator.jvp_public_fn(&generated_item),
                jvp_call: quote! {
                    /// `jvp` with a tangent or `None` (a zero, which costs no tangent work)
                    /// per differentiable parameter.
                    #[doc(hidden)]
                    #[allow(unused_imports, unused_variables, unused_mut, unused_parens, unused_assignments, unused_braces, unreachable_code, unused_labels, non_snake_case, clippy::all)]
                    #partial
                },
            }
        }
    };
    // Array parameters (scalar mode): `grad_into`, gradients into the caller's buffers.
    // (and structs passed on whole, whose buffers are `&mut S`)
    let arrays = body
        .params
        .iter()
        .flatten()
        .any(|&b| body.bindings[b].array)
        || sig.params.iter().any(sig::Param::is_whole);
    let grad_into = (arrays && !sig.tuple_output && !sig.whole_output)
        .then(|| Generator::into_buffers(&sig, &body).grad_into_fn(&generated_item));
    // What a caller's adjoint calls in joint mode (`Generator::joint_call`): every scalar
    // function a call (`Op::Call`) can reach, one float result and no written array.
    let writes_arrays = sig.params.iter().any(sig::Param::is_output_array);
    let vjp_now = (sig.mode == Mode::Scalar && !sig.tuple_output && !writes_arrays)
        .then(|| Generator::now(&sig, &body).vjp_now_fn(&generated_item));
    // What a caller's adjoint calls for a replayed call (`Generator::replayed_call`): every
    // scalar function with one result (or none, writing arrays).
    let vjp_into = (sig.mode == Mode::Scalar && !sig.tuple_output)
        .then(|| Generator::into_sinks(&sig, &body).vjp_into_fn(&generated_item));
    // A tuple result's, built on `vjp` (`Generator::tuple_by_pullback_fns`): what a caller
    // holding it as one value calls (`grad` is not built on it: its seed is no tuple). Not
    // a hidden twin's (`params`, `results`): the user's items built on a twin's take its
    // `vjp_now` for a float result's.
    let twin = item.sig.ident.to_string().starts_with("__gradtape_");
    let (vjp_now, vjp_into) = match (vjp_now, vjp_into) {
        (None, None) if sig.mode == Mode::Scalar && sig.tuple_output && !writes_arrays && !twin => {
            let (now, into) =
                Generator::new(&sig, &body, Flavour::Scalar).tuple_by_pullback_fns(&generated_item);
            (Some(now), Some(into))
        }
        other => other,
    };
    // The source shown in `f::GENERATED`: every generated function but `jvp_call`, in the
    // companion's order (`vjp_now` is what `grad` runs, `vjp_into` what a caller's adjoint
    // runs for a replayed call: generated adjoints like `vjp`'s).
    let zero_d_source = zero_d
        .as_ref()
        .map(|ZeroD { vjp, primal }| quote!(#vjp #primal));
    let jvp_source = match sig.mode {
        Mode::Scalar => &tangent.jvp,
        Mode::Tensor => &tangent.jvp_call,
    };
    let source = pretty(&quote!(#vjp #zero_d_source #grad_into #vjp_now #vjp_into #jvp_source));
    // `vjp_split` (`vjp_into` cut in two, for a replayed call in the last trip of a loop)
    // beside `vjp_into`, where a caller finds both; not in the source shown
    let vjp_split = (sig.mode == Mode::Scalar && !sig.tuple_output)
        .then(|| Generator::into_sinks(&sig, &body).vjp_split_fn(&generated_item));
    let vjp_into = vjp_into.map(|vjp_into| quote!(#vjp_into #vjp_split));
    if args.dump {
        eprintln!(
            "#[differentiable] generated for `{}`:\n{source}",
            item.sig.ident
        );
    }
    if as_written {
        // `self` may hold tensors and variables no fused node would see (`reach`), so a
        // tensor method always runs op by op, as written: it needs no wrapper and no
        // companion items (calls of it from other annotated functions are replayed on a
        // sub-tape), and so it may live in a trait's `impl` too. An associated function
        // of the block runs so as well: its wrapper and companion items would be the
        // free function's, whose paths (`f::vjp`) an `impl` cannot hold.
        debug_assert!(op_by_op || !method, "`self` may hold tensors");
        return (quote!(#item), TokenStream::new());
    }
    let wrapper = match sig.mode {
        Mode::Tensor => wrapper_fn(
            &item,
            &sig,
            plan.as_ref(),
            saves::batch_safe(&body, &generator.useful),
            op_by_op,
        ),
        Mode::Scalar => quote!(#item),
    };
    let functions = Functions {
        vjp: &vjp,
        zero_d: zero_d.as_ref(),
        tangent: &tangent,
        grad_into: grad_into.as_ref(),
        vjp_now: vjp_now.as_ref(),
        vjp_into: vjp_into.as_ref(),
    };
    let companion = companion(&generated_item, &sig, functions, &source);
    // (a free function's: the helper beside it, at module level)
    (wrapper, quote!(#companion #traced_helper))
}

/// The names of a scalar function's array parameters (of floats or of rows).
fn array_params(sig: &sig::Signature) -> std::collections::HashSet<String> {
    sig.params
        .iter()
        .filter(|p| matches!(p.kind, sig::Kind::Array { .. }))
        .map(|p| p.ident.to_string())
        .collect()
}

/// A scalar function's constant parameters that are arrays, slices or `Vec`s (of any
/// element type: `&[bool]`, `Vec<usize>`, `&[(f64, f64)]`), by name, with whether the
/// parameter is a reference; those the body binds again anywhere (a pattern of the same
/// name) are left out, so the name means the parameter wherever it is read.
fn constant_array_params(
    sig: &sig::Signature,
    stmts: &[syn::Stmt],
) -> std::collections::HashMap<String, bool> {
    struct Bound(std::collections::HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Bound {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0.insert(pat.ident.to_string());
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut bound = Bound(std::collections::HashSet::new());
    for stmt in stmts {
        syn::visit::Visit::visit_stmt(&mut bound, stmt);
    }
    sig.params
        .iter()
        .filter(|p| matches!(p.kind, sig::Kind::Constant))
        .filter(|p| !bound.0.contains(&p.ident.to_string()))
        .filter_map(|p| {
            let (ty, by_ref) = match &p.ty {
                syn::Type::Reference(r) if r.mutability.is_none() => (&*r.elem, true),
                syn::Type::Reference(_) => return None,
                ty => (ty, false),
            };
            let indexable = match ty {
                syn::Type::Slice(_) => by_ref,
                syn::Type::Array(_) => true,
                syn::Type::Path(path) => {
                    path.qself.is_none()
                        && path.path.segments.last().is_some_and(|s| s.ident == "Vec")
                }
                _ => false,
            };
            indexable.then(|| (p.ident.to_string(), by_ref))
        })
        .collect()
}

/// The names of a scalar function's parameters that are arrays of rows (ragged or not).
fn row_params(sig: &sig::Signature) -> std::collections::HashSet<String> {
    sig.params
        .iter()
        .filter(|p| p.array_row().is_some() || p.is_ragged())
        .map(|p| p.ident.to_string())
        .collect()
}
