//! The `#[differentiable]` attribute of [gradtape](https://docs.rs/gradtape): compile-time
//! source transformation of a Rust function into forward code that saves what its adjoint
//! needs, plus the adjoint (pullback) itself, built from the function's own syntax.
//!
//! A pipeline of phases, one module each (private), run by `expand`:
//!
//! 0. struct parameters and struct results go through a hidden twin first: `params`
//!    (marked struct parameters lifted into one parameter per field) and `results` (a
//!    struct result returned as the tuple of its fields), each expanding its twin through
//!    the phases below and writing the user's companion items around the twin's;
//! 1. parse: `args` (the attribute's arguments), `model::sig` (the signature model);
//! 2. validate: `validate`, every rejection (errors collected in a `ctxt::Ctxt`);
//! 3. lower: `rewrite` (float methods called by path, local closures inlined, tuples from
//!    branches), `fields` (local structs split into one local per field, scalar mode),
//!    `searches` (`position`/`find`/`any`/`all` over float arrays into loops
//!    with a `break`, scalar mode), `options`, `returns` (early returns into branches), `iterators` (the iterator forms
//!    over float arrays into indexed loops, scalar mode), then `lower` (the body into the
//!    `model::ir`), asking `vocabulary` (read from `gradtape-primitives`) what each op is;
//! 4. analyse: `analyse::saves` (what the adjoint needs), `analyse::zero_d` (whether the
//!    body also runs on plain numbers);
//! 5. generate: `generate` (forward, adjoint, in scalar mode the tangent code, the wrapper
//!    function, the companion type);
//!
//! or, on any error, `fallback` (the original item plus every error).

mod analyse;
mod args;
mod array_calls;
mod ctxt;
mod derive_differentiable;
mod enum_arrays;
mod enums;
mod expand;
mod fallback;
mod fields;
mod generate;
mod impl_block;
mod iterators;
mod lower;
mod model;
mod option_results;
mod options;
mod params;
mod results;
mod returns;
mod rewrite;
mod searches;
mod slots;
mod sources;
mod syntax;
mod traced;
mod tuples;
mod validate;
mod vocabulary;

use proc_macro::TokenStream;

/// Differentiates a function at compile time. The guide is the `gradtape` crate's module
/// `gradtape::guide`.
///
/// # Forward mode
///
/// Every annotated function also gets `f::jvp`: its parameters, then one tangent per
/// differentiable parameter in order (data parameters get none), returning the value and
/// its directional derivative, `(value, tangent)` (a tuple of tangents for a tuple result).
/// The tangent code is the body as written with each value's tangent computed beside it, by
/// the same elementwise rules the adjoint calls, and calls of other annotated functions go
/// through their `jvp`.
///
/// On plain `f32`/`f64` numbers (scalar mode) that is dual numbers done at compile time, with
/// no tape and no allocation. One `jvp` gives the derivative along one direction (`jvp`
/// along the k-th unit vector is the k-th entry of `f::grad`), so it pays where a function
/// has few inputs and many results, or where one directional derivative is all that is
/// needed.
///
/// On tensors (tensor mode) a tangent is a `&Tensor` of its parameter's shape (a variable's
/// tangent is a tensor too); ops with no elementwise rule (`matmul`, reductions, calls) take
/// their tangents from the runtime's JVP rules, each under an accumulator of its own. Under a
/// `ForwardAccumulator`, an annotated call's node computes its tangent with this code, and
/// the code is made of recordable ops, so a tape around the accumulator differentiates it
/// again (reverse over forward), as does a second accumulator.
///
/// This example runs in `tests/differentiable_forward.rs`; the macro crate cannot depend on
/// `gradtape`:
///
/// ```ignore
/// use gradtape::differentiable;
///
/// #[differentiable]
/// fn polar(x: f64, y: f64) -> (f64, f64) {
///     ((x * x + y * y).sqrt(), (y / x).tanh())
/// }
///
/// // the radius and angle-like result, and how fast each changes along (dx, dy) = (1, 0):
/// // d/dx √(x² + y²) = x / r = 0.6 at (0.6, 0.8)
/// let ((r, _), (dr, _)) = polar::jvp(0.6, 0.8, 1.0, 0.0);
/// assert!((r - 1.0).abs() < 1e-15 && (dr - 0.6).abs() < 1e-15);
/// ```
///
/// # Arrays, slices and `Vec`s of floats
///
/// In a function of plain numbers, a parameter `&[F]`, `[F; N]`, `&[F; N]`, `Vec<F>` or
/// `&Vec<F>` (`F` = `f32`/`f64`) is differentiable element by element, and `&mut [F]` is an
/// output the function writes. The body reads and writes elements by index (`a[i]`,
/// `a[i] += ..`), builds local buffers (`vec![0.0; n]`, `[0.0; 3]`, `Vec::with_capacity(n)`
/// and `push`, `[a, b, c]`), and uses the iterator forms (`iter`, `iter_mut`, `zip`,
/// `enumerate`, `rev`, `copied`, `map` then `sum`/`product`, `fold`, `for w in
/// a.windows(n)` and `a.chunks(n)`), which the macro
/// rewrites into indexed loops. The gradient of an array comes back in its shape (`Vec<F>`,
/// `[F; N]`) from `f::grad` and `f::vjp`; `f::grad_into` writes it into the caller's
/// buffers instead (one `&mut [F]` per array, `&mut F` per number, after the parameters;
/// accumulated with `+=`), and for a `&mut [F]` output takes that output's cotangent in its
/// buffer. `f::jvp` takes an array's tangent as a slice. An array passed to another
/// annotated function (`dot(&x, &w)`, a row `&m[i]`, a range `&v[1..]`) is differentiated
/// through the call. Arrays of rows (`[[F; N]; M]`, `&[[F; N]]`, `Vec<[F; N]>`, local
/// `[[0.0; N]; M]`) are read and written as `m[i][j]`, with gradients of the same shape and
/// `&mut [[F; N]]` buffers and `&[[F; N]]` tangents; ragged ones (`&[Vec<F>]`,
/// `Vec<Vec<F>>`, local `vec![vec![0.0; n]; m]`) too, with `Vec<Vec<F>>` gradients,
/// `&mut [Vec<F>]` buffers and `&[Vec<F>]` tangents. Rows are iterated (`for row in m`)
/// and iterator forms work on a row (`row.iter().zip(w).map(..).sum()`). Data arrays are held constant by
/// `#[differentiable(constant(xs, ys))]` (this example runs in
/// `tests/differentiable_slices.rs`; the macro crate cannot depend on `gradtape`):
///
/// ```ignore
/// use gradtape::differentiable;
///
/// #[differentiable]
/// fn log_sum_exp(x: &[f64]) -> f64 {
///     let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
///     let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
///     s.ln() + m
/// }
///
/// // the gradient of log-sum-exp is the softmax
/// let (value, [softmax]) = log_sum_exp::grad(&[0.0, 0.0]);
/// assert_eq!((value, softmax), (2f64.ln(), vec![0.5, 0.5]));
/// let mut d = [0.0; 2];
/// log_sum_exp::grad_into(&[0.0, 0.0], &mut d);
/// assert_eq!(d, [0.5, 0.5]);
/// ```
///
/// # Values reached through other parameters
///
/// The fused node a call records has the function's tensor and variable parameters as its
/// inputs. A tensor or variable reached any other way (through a struct, a slice, a `Vec`
/// or a tuple parameter, a nested model, or a variable read in the body that is no
/// parameter) would be a constant to the generated adjoint, and its gradient silently
/// `None`. So when a parameter's type may hold tensors or variables (anything but numbers,
/// text, integer tensors and the standard containers of those) or the body calls `.value()`
/// on anything but a variable parameter, the function runs its body as written, op by op
/// on the caller's tapes: every gradient and higher order is the tape's, at the tape's
/// speed. `f::vjp` (and `f::grad` on plain numbers) still differentiates with respect to the
/// tensor, variable (and float) parameters only, holding what is read through the others
/// constant: a partial derivative, their entry `()` in the pullback's result. For one fused
/// node, pass the tensors and variables as parameters of their own (this example runs in
/// `tests/differentiable.rs`, `values_reached_through_other_parameters`; the macro crate
/// cannot depend on `gradtape`):
///
/// ```ignore
/// use gradtape::{differentiable, GradientTape, Tensor, Variable};
///
/// #[derive(Clone)]
/// struct Affine { a: Variable<f64>, b: Variable<f64> }
///
/// // op by op: `p.a` and `p.b` get their gradients from the tape
/// #[differentiable]
/// fn affine(p: &Affine, x: &Tensor<f64>) -> Tensor<f64> {
///     x * &p.a.value() + &p.b.value()
/// }
///
/// // one fused node
/// #[differentiable]
/// fn affine_fused(a: &Variable<f64>, b: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
///     x * a + b
/// }
///
/// let p = Affine { a: Variable::new(2.0), b: Variable::new(0.5) };
/// let x = Tensor::scalar(3.0);
/// let tape = GradientTape::new();
/// let y = tape.record(|| affine(&p, &x) + affine_fused(&p.a, &p.b, &x));
/// let [da, db] = tape.gradient(&y, [&p.a, &p.b]).unwrap();
/// // d/da 2(x a + b) = 2x = 6, d/db = 2
/// assert_eq!((da.unwrap().to_scalar(), db.unwrap().to_scalar()), (6.0, 2.0));
/// ```
///
/// # Checkpointing long loops
///
/// The adjoint of a loop needs what every trip saved, so a simulation of a million steps
/// holds a million steps' saves. `#[differentiable(checkpoint)]` (functions of plain numbers
/// and float arrays) checkpoints every loop at the top level of the body (`for`, `while`,
/// `loop`): the forward code runs it saving nothing, keeping only snapshots of its carried
/// state (every mutable name declared before the loop that the loop mentions: `let mut`
/// values and arrays, `mut` parameters, `&mut` array parameters) at the starts of segments
/// of trips; the adjoint restores the snapshots last to first, reruns each segment saving
/// as usual and reverses it. At most 200 snapshots are kept (`checkpoint(snapshots = n)`,
/// n ≥ 2, for another budget). A `for` over an iterator that knows its length (a range)
/// gets segments of `ceil(n / snapshots)` trips at once; otherwise the snapshots start one
/// per trip, and each time the budget is full every other one is dropped and the segments
/// double, so the trip count need not be known up front (`while`, `loop`). For `n` trips the adjoint holds the snapshots plus the saves of at most
/// `2n / snapshots` trips, and the loop runs forward twice. `checkpoint(levels = l)` (2 to
/// 5, default 2) checkpoints the adjoint's reruns too, `l` levels deep: it holds
/// `(l - 1) · snapshots` states and the saves of `n / snapshots^(l - 1)` trips, and the loop
/// runs forward `l` times. The rerun repeats the same float
/// operations in the same order: the gradient is the uncheckpointed one to the bit.
/// `break` and `continue` stay exact; a `return` inside a checkpointed loop, a function of
/// tensors (use `gradtape::checkpointed_loop`) and a body with no top-level loop are
/// errors. The names the loop only reads are copied once before it (a borrowed parameter
/// as an owned copy) so that the pullback can rerun it; they must be `Clone` (this example
/// runs in `tests/differentiable_checkpoint.rs`; the macro crate cannot depend on
/// `gradtape`):
///
/// ```ignore
/// use gradtape::differentiable;
///
/// #[differentiable(checkpoint(snapshots = 100))]
/// fn pendulum(x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
///     let (mut x, mut v) = (x0, v0);
///     for _ in 0..steps {
///         let a = -k * x.sin();
///         x += 0.01 * v;
///         v += 0.01 * a;
///     }
///     x
/// }
///
/// // 100,000 steps: the adjoint holds 100 snapshots and one segment's saves (1,000 steps)
/// let (_, [dx0, dv0, dk]) = pendulum::grad(0.5, 0.0, 2.0, 100_000);
/// ```
///
/// # Plain helpers and strict mode
///
/// `#[differentiable(plain(helper, util::norm))]` names functions that are not annotated
/// but are called on differentiable numbers: generic over `num_traits::Float`, each call
/// runs on dual numbers, which give the value and its partial derivatives in one
/// evaluation (scalar mode; in tensor mode any call is replayed on a sub-tape already).
/// `#[differentiable(strict)]` makes every such run-time fallback the macro's error: plain
/// helpers, pullbacks boxed for recursion, tensor code that runs op by op, calls of
/// tensor functions that are not annotated. The guide's section "Plain helpers" has the
/// details and examples.
///
/// On methods (`&self` or `self`) the companion items are associated functions named after
/// the method (`energy_vjp`, `energy_grad`, ...); in a trait's `impl`, which cannot hold
/// them, put `#[differentiable]` on the `impl` block as well, and the items go into an
/// inherent `impl` of the type beside it (see the guide's section on methods).
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    // A `macro_rules!` that wrote the item hands each fragment (`$t:ty`, `$e:expr`,
    // `$s:stmt`, `$b:block`) over in an invisible group: undone here, once, for every
    // phase after (before parsing, a `let` statement's, which syn would read as an
    // expression, and a block-like operand's, which syn would end early)
    let input = syntax::splice_let_fragments(input.into());
    let input = syntax::parenthesize_block_like_operands(input);
    let mut item = match syn::parse2::<syn::Item>(input) {
        Ok(item) => item,
        Err(error) => return error.into_compile_error().into(),
    };
    syntax::unwrap_type_groups(&mut item);
    syntax::unwrap_expr_groups(&mut item);
    match item {
        syn::Item::Fn(item) => expand::differentiable(args.into(), item).into(),
        syn::Item::Impl(block) => impl_block::expand(args.into(), block).into(),
        other => syn::Error::new_spanned(
            other,
            "#[differentiable] goes on a function, a method, or an `impl` block whose methods are marked #[differentiable]",
        )
        .into_compile_error()
        .into(),
    }
}

/// Makes a struct a source structure for `tape.gradient` (the trait `Sources`): its fields
/// are the leaves, in declaration order, each itself a source (a tensor, a variable, an
/// array, `Vec` or map of them, another derived struct), except those marked
/// `#[sources(skip)]` (configuration, sizes, functions). The derive also writes the
/// gradients struct, `{Name}Gradients` (or `#[sources(gradients = OtherName)]`), with the
/// same field names and visibility, each field the gradient of its source (`Option` for a
/// tensor or variable, a nested gradients struct for a nested model), `Clone` and `Debug`
/// where the gradients are. A model written as a struct then gets its gradient back in its own shape
/// (this example runs in `tests/derive_sources.rs`; the macro crate cannot depend on
/// `gradtape`):
///
/// ```ignore
/// use gradtape::{GradientTape, Sources, Tensor, Variable};
///
/// #[derive(Sources)]
/// struct Line {
///     slope: Variable<f64>,
///     intercept: Variable<f64>,
///     #[sources(skip)]
///     name: &'static str,
/// }
///
/// let line = Line { slope: Variable::new(2.0), intercept: Variable::new(1.0), name: "fit" };
/// let x = Tensor::scalar(3.0);
/// let tape = GradientTape::new();
/// let y = tape.record(|| (&x * &line.slope + &line.intercept).square());
/// let grads: LineGradients = tape.gradient(&y, &line).unwrap();
/// // y = (3·2 + 1)² = 49: dy/dslope = 2·7·3 = 42, dy/dintercept = 2·7 = 14
/// assert_eq!(grads.slope.unwrap().to_scalar(), 42.0);
/// assert_eq!(grads.intercept.unwrap().to_scalar(), 14.0);
/// ```
///
/// Enums and unions are rejected (their sources have no single shape), as is any other
/// `#[sources(..)]` argument; a field whose type is no source fails to compile on that
/// field, with the trait's message (mark it `#[sources(skip)]`).
#[proc_macro_derive(Sources, attributes(sources))]
pub fn derive_sources(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match sources::derive(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_compile_error().into(),
    }
}

/// Makes a struct of floats a differentiable parameter of `#[differentiable]` functions
/// (the trait `Differentiable`): a function's parameter of this type marked
/// `#[differentiable]` gets its gradient back as a value of the same struct, every float
/// field holding its partial derivative and every array its gradient. Fields of an integer,
/// `bool`, `char` or `String` type (or arrays and tuples of those), references, and fields marked `#[constant]` are
/// constants: the gradient holds a clone. Every other field's type must be `Differentiable`
/// itself (`f32`, `f64`, a `Vec` or array of them, a nested derived struct). This example
/// runs in `tests/differentiable_struct_params.rs` (the macro crate cannot depend on
/// `gradtape`):
///
/// ```ignore
/// use gradtape::{Differentiable, differentiable};
///
/// #[derive(Differentiable)]
/// struct Gaussian {
///     mu: f64,
///     log_sigma: f64,
///     samples: usize, // a constant: the gradient holds a copy
/// }
///
/// #[differentiable]
/// fn log_density(#[differentiable] p: &Gaussian, x: f64) -> f64 {
///     let z = (x - p.mu) / p.log_sigma.exp();
///     -0.5 * z * z - p.log_sigma
/// }
///
/// let p = Gaussian { mu: 1.0, log_sigma: 0.0, samples: 10 };
/// let (value, [d_p, _]) = log_density::grad(&p, 3.0);
/// ```
///
/// Enums and unions are rejected (their gradients have no single shape).
#[proc_macro_derive(Differentiable, attributes(constant))]
pub fn derive_differentiable(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match derive_differentiable::derive(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_compile_error().into(),
    }
}
