//! The primitives. Each op's public method, forward computation and backward rule live
//! together in one place (JAX's rule tables, micrograd's per-op closures); files group ops
//! by family. Rules are written in the same recordable ops as user code, which is what makes
//! higher-order derivatives work with no special case.
//!
//! How an op is written:
//!
//! ```text
//! pub fn sin(&self) -> Tensor<T> {
//!     // d/dx sin x = cos x
//!     unary(self, "sin", Saved::Input, T::sin, |x, g| g * &x.cos())
//! }
//! ```
//!
//! The rule is a closure that captures nothing, so it is zero-sized; [`static_rule`] turns it
//! into a `&'static dyn Backward` without allocating, which keeps recording an op free of
//! heap allocation for scalars.

pub(crate) mod binary;
pub(crate) mod cast;
pub(crate) mod composite;
pub(crate) mod conv;
pub(crate) mod data;
pub(crate) mod linalg;
pub(crate) mod primal;
pub(crate) mod reduce;
pub(crate) mod select;
pub(crate) mod shape;
pub(crate) mod softmax;
pub(crate) mod unary;

use std::marker::PhantomData;

/// The same rule closure twice, once typed at `Tensor<T>` and once at `T`: the rules are
/// generic `vjp` functions, so one text serves both (see [`binary`]).
macro_rules! both {
    ($rule:expr) => {
        ($rule, $rule)
    };
}
pub(crate) use both;

use ndarray::{ArrayBase, ArrayD, IxDyn, Zip};
use smallvec::{SmallVec, smallvec};

use crate::base::dtype::{AnyTensor, DType, Float};
use crate::base::primal::Primal;
use crate::base::tensor::{Data, DataRef, Stored, Tensor};
use crate::record::forward::{NumberJvp, Tangents, tangent_by_numbers};
use crate::record::node::{Backward, InputGrads, NumberCtx, ParamSlot, Params, Rule, RuleCtx};
use crate::record::stack::{self, ElementwiseHead, Keep, OpName};

/// Wraps a rule closure so that it implements [`Backward`].
struct FnRule<F>(F);

impl<F: Fn(&RuleCtx<'_>, &AnyTensor) -> InputGrads> Backward for FnRule<F> {
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        (self.0)(ctx, g)
    }
}

/// A `'static` rule from a closure that captures nothing.
pub(crate) fn static_rule<F>(f: F) -> Rule
where
    F: Fn(&RuleCtx<'_>, &AnyTensor) -> InputGrads + 'static,
{
    Rule::Static(leak_zero_sized(FnRule(f)))
}

/// `Box::new` of a zero-sized value does not allocate, so leaking it leaks nothing: the
/// result is a `'static` reference to a value with no bytes. The assertion, checked at
/// compile time, keeps any closure that captures state out of here.
fn leak_zero_sized<R: Backward + 'static>(rule: R) -> &'static dyn Backward {
    const { assert!(size_of::<R>() == 0, "static rules must capture nothing") };
    Box::leak(Box::new(rule))
}

/// Which value a unary op keeps for its backward rule: only what the rule needs (ReLU keeps
/// its output, not its input).
#[derive(Clone, Copy)]
pub(crate) enum Saved {
    Input,
    Output,
}

impl Saved {
    /// The value kept: the op's `input` or its `output`.
    #[inline(always)]
    fn pick<'a, T: Float>(self, input: &'a Tensor<T>, output: &'a Tensor<T>) -> &'a Tensor<T> {
        match self {
            Saved::Input => input,
            Saved::Output => output,
        }
    }

    /// What the vocabulary says the rule of the unary op `name` keeps; fails the build if
    /// the op has no row or its rule keeps anything else.
    pub(crate) const fn of(name: &str) -> Saved {
        match gradtape_primitives::row_of(name).saves {
            [gradtape_primitives::Saved::Input(0)] => Saved::Input,
            [gradtape_primitives::Saved::Output] => Saved::Output,
            _ => panic!("a unary elementwise op keeps its input or its output"),
        }
    }
}

/// The plain numbers behind `values` when every one is a 0-d inline scalar of dtype `T`.
/// A rule's `backward_numbers` evaluates the same generic `vjp` function instantiated at `T`
/// instead of `Tensor<T>`: a faster evaluation of one rule, not a second rule.
#[inline]
fn scalars<T: Float, const N: usize>(values: [&AnyTensor; N]) -> Option<[T; N]> {
    let mut out = [T::ZERO; N];
    for (slot, value) in out.iter_mut().zip(values) {
        *slot = value.typed::<T>().as_inline_scalar()?;
    }
    Some(out)
}

struct UnaryRule<T, F, S>(F, S, PhantomData<fn(T)>);

impl<T: Float, F, S> Backward for UnaryRule<T, F, S>
where
    F: Fn(&Tensor<T>, &Tensor<T>) -> Tensor<T>,
    S: Fn(&T, &T) -> T,
{
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let saved = ctx.saved[0].typed::<T>();
        smallvec![Some(T::into_any((self.0)(saved, g.typed::<T>())))]
    }

    #[inline]
    fn backward_numbers(&self, ctx: NumberCtx<'_>, g: f64) -> Option<[f64; 2]> {
        let [saved] = scalars::<T, 1>([&ctx.saved[0]])?;
        Some([DType::to_f64((self.1)(&saved, &T::from_f64(g))), 0.0])
    }
}

/// An elementwise op whose forward value `data` is computed from `x`, with backward rule
/// `rule(saved, g)`, where `saved` is the input or the output as `saved_value` says. `rule`
/// is one generic `vjp` function, passed twice: at `Tensor<T>` for the general case and at
/// `T` for the number path.
#[inline]
#[track_caller]
pub(crate) fn unary<T: Float, R, S>(
    x: &Tensor<T>,
    op: OpName,
    saved_value: Saved,
    data: Data<T>,
    (rule, scalar_rule): (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, &Tensor<T>) -> Tensor<T> + Copy + 'static,
    S: Fn(&T, &T) -> T + Copy + 'static,
{
    let head = ElementwiseHead {
        op,
        rule: leak_zero_sized(UnaryRule(rule, scalar_rule, PhantomData)),
        params: || ParamSlot::None,
        scalar_param: None,
    };
    // An elementwise op's jacobian is diagonal, so it is its own transpose: the JVP rule
    // is the VJP rule applied to the tangent, at the value the rule keeps.
    let numbers = move |out: &Tensor<T>, [dx, _]: [Option<T>; 2]| {
        let kept = saved_value.pick(x, out).as_inline_scalar()?;
        Some(dx.map(|dx| scalar_rule(&kept, &dx)))
    };
    let jvp = move |t: &Tangents<'_>, out: &Tensor<T>| {
        if let Some(tangent) = tangent_by_numbers(t, out, numbers) {
            return tangent;
        }
        t.of::<T>(0).map(|t| rule(saved_value.pick(x, out), t))
    };
    // (two arms: what the tape keeps differs in type, an input or the output)
    match saved_value {
        Saved::Input => {
            let keep = Keep {
                inputs: [x],
                output: false,
            };
            stack::record_keeping(data, &[x.id()], keep, head, jvp, numbers)
        }
        Saved::Output => {
            let keep = Keep {
                inputs: [],
                output: true,
            };
            stack::record_keeping(data, &[x.id()], keep, head, jvp, numbers)
        }
    }
}

struct UnaryParamRule<T, F, S>(F, S, PhantomData<fn(T)>);

impl<T: Float, F, S> Backward for UnaryParamRule<T, F, S>
where
    F: Fn(&Tensor<T>, &Tensor<T>, f64) -> Tensor<T>,
    S: Fn(&T, &T, f64) -> T,
{
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let x = ctx.saved[0].typed::<T>();
        smallvec![Some(T::into_any((self.0)(
            x,
            g.typed::<T>(),
            real_param(ctx)
        )))]
    }

    #[inline]
    fn backward_numbers(&self, ctx: NumberCtx<'_>, g: f64) -> Option<[f64; 2]> {
        let [x] = scalars::<T, 1>([&ctx.saved[0]])?;
        let p = ctx.real_param()?;
        Some([DType::to_f64((self.1)(&x, &T::from_f64(g), p)), 0.0])
    }
}

/// The exponent `unary_with_param` keeps in its node.
fn real_param(ctx: &RuleCtx<'_>) -> f64 {
    match ctx.params {
        Params::Real(p) => *p,
        _ => unreachable!("unary_with_param saves a real"),
    }
}

/// An elementwise op with one real parameter `p` (an exponent); the rule gets
/// `(x, g, p)`, passed at `Tensor<T>` and at `T` as for [`unary`].
#[inline]
#[track_caller]
pub(crate) fn unary_with_param<T: Float, R, S>(
    x: &Tensor<T>,
    op: OpName,
    p: f64,
    f: impl Fn(T) -> T + Sync,
    (rule, scalar_rule): (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, &Tensor<T>, f64) -> Tensor<T> + Copy + 'static,
    S: Fn(&T, &T, f64) -> T + Copy + 'static,
{
    // elementwise, so the VJP rule applied to the tangent is the JVP rule (see `unary`)
    let numbers = move |_: &Tensor<T>, [dx, _]: [Option<T>; 2]| {
        let x = x.as_inline_scalar()?;
        Some(dx.map(|dx| scalar_rule(&x, &dx, p)))
    };
    let jvp = move |t: &Tangents<'_>, out: &Tensor<T>| {
        if let Some(tangent) = tangent_by_numbers(t, out, numbers) {
            return tangent;
        }
        t.of::<T>(0).map(|t| rule(x, t, p))
    };
    let rule = UnaryParamRule(rule, scalar_rule, PhantomData);
    elementwise_with_param(x, op, p, f, [x], rule, (jvp, numbers))
}

/// Records the elementwise op `f` of `x` with the real parameter `p`, whose `rule` keeps
/// `kept` (the input, or nothing).
#[inline]
#[track_caller]
fn elementwise_with_param<T: Float, const N: usize>(
    x: &Tensor<T>,
    op: OpName,
    p: f64,
    f: impl Fn(T) -> T + Sync,
    kept: [&Tensor<T>; N],
    rule: impl Backward + 'static,
    (jvp, numbers): (
        impl Fn(&Tangents<'_>, &Tensor<T>) -> Option<Tensor<T>>,
        impl NumberJvp<T> + Copy,
    ),
) -> Tensor<T> {
    let data = x.map_data(f);
    let keep = Keep {
        inputs: kept,
        output: false,
    };
    let head = ElementwiseHead {
        op,
        rule: leak_zero_sized(rule),
        params: || ParamSlot::Real(p),
        scalar_param: Some(p),
    };
    stack::record_keeping(data, &[x.id()], keep, head, jvp, numbers)
}

struct LinearRule<T, F, S>(F, S, PhantomData<fn(T)>);

impl<T: Float, F, S> Backward for LinearRule<T, F, S>
where
    F: Fn(&Tensor<T>, f64) -> Tensor<T>,
    S: Fn(&T, f64) -> T,
{
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        smallvec![Some(T::into_any((self.0)(g.typed::<T>(), real_param(ctx))))]
    }

    #[inline]
    fn backward_numbers(&self, ctx: NumberCtx<'_>, g: f64) -> Option<[f64; 2]> {
        let p = ctx.real_param()?;
        Some([DType::to_f64((self.1)(&T::from_f64(g), p)), 0.0])
    }
}

/// An elementwise op that is linear in its input for a fixed real parameter `p` (`x · c`
/// for a plain number `c`): its rule `rule(g, p)` needs no saved value, so the tape keeps
/// none, and the constant never becomes a tensor of its own. The rule comes at `Tensor<T>`
/// and at `T`, as for [`unary`].
#[inline]
#[track_caller]
pub(crate) fn linear<T: Float, R, S>(
    x: &Tensor<T>,
    op: OpName,
    p: f64,
    f: impl Fn(T) -> T + Sync,
    (rule, scalar_rule): (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, f64) -> Tensor<T> + Copy + 'static,
    S: Fn(&T, f64) -> T + Copy + 'static,
{
    // linear and elementwise: the op itself, applied to the tangent
    // (captures no input: every op pays for building its closure, recording or not)
    let numbers = move |out: &Tensor<T>, [dx, _]: [Option<T>; 2]| {
        out.as_inline_scalar()?;
        Some(dx.map(|dx| scalar_rule(&dx, p)))
    };
    let jvp = move |t: &Tangents<'_>, out: &Tensor<T>| {
        if let Some(tangent) = tangent_by_numbers(t, out, numbers) {
            return tangent;
        }
        t.of::<T>(0).map(|t| rule(t, p))
    };
    let rule = LinearRule(rule, scalar_rule, PhantomData);
    elementwise_with_param(x, op, p, f, [], rule, (jvp, numbers))
}

/// Cotangents of a binary op's two inputs, `None` where not needed.
pub(crate) type PairGrads<V> = (Option<V>, Option<V>);

struct BinaryRule<T, F, S>(F, S, PhantomData<fn(T)>);

impl<T: Float, F, S> Backward for BinaryRule<T, F, S>
where
    F: Fn(&Tensor<T>, &Tensor<T>, &Tensor<T>, [bool; 2]) -> PairGrads<Tensor<T>>,
    S: Fn(&T, &T, &T, [bool; 2]) -> PairGrads<T>,
{
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let needs = [ctx.needs[0], ctx.needs[1]];
        let (x, y) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
        let (gx, gy) = (self.0)(x, y, g.typed::<T>(), needs);
        // Broadcasting in the forward means summing in the backward (over the batch
        // axes of a jacobian's sweep too, which `sum_to_batched` leaves alone).
        let reduce = |grad: Option<Tensor<T>>, like: &Tensor<T>| {
            grad.map(|grad| T::into_any(grad.sum_to_batched(like.shape())))
        };
        smallvec![reduce(gx, x), reduce(gy, y)]
    }

    #[inline]
    fn backward_numbers(&self, ctx: NumberCtx<'_>, g: f64) -> Option<[f64; 2]> {
        let [x, y] = scalars::<T, 2>([&ctx.saved[0], &ctx.saved[1]])?;
        let (gx, gy) = (self.1)(&x, &y, &T::from_f64(g), ctx.needs);
        Some([gx.map_or(0.0, DType::to_f64), gy.map_or(0.0, DType::to_f64)])
    }
}

/// An elementwise binary op with NumPy broadcasting. `rule(x, y, g, needs)` returns the
/// cotangents at the broadcast shape; they are summed back to each input's shape here, in
/// one place for every binary op. The rule comes twice, as [`both!`] writes it: typed at
/// `Tensor<T>` and at `T` (the number path).
///
/// # Panics
/// If the shapes do not broadcast, naming `op` and both shapes.
#[inline]
#[track_caller]
pub(crate) fn binary<T: Float, R, S>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: OpName,
    f: impl Fn(T, T) -> T + Sync,
    (rule, scalar_rule): (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, &Tensor<T>, &Tensor<T>, [bool; 2]) -> PairGrads<Tensor<T>> + Copy + 'static,
    S: Fn(&T, &T, &T, [bool; 2]) -> PairGrads<T> + Copy + 'static,
{
    let data = zip_broadcast(x, y, op, f);
    let keep = Keep {
        inputs: [x, y],
        output: false,
    };
    // Each partial derivative is diagonal (before broadcasting), so the VJP rule of an
    // operand applied to its tangent is that operand's term of the JVP; the broadcast is
    // the transpose of the VJP's un-broadcasting sum.
    let numbers = move |_: &Tensor<T>, [da, db]: [Option<T>; 2]| {
        let (a, b) = (x.as_inline_scalar()?, y.as_inline_scalar()?);
        let da = da.and_then(|da| scalar_rule(&a, &b, &da, [true, false]).0);
        let db = db.and_then(|db| scalar_rule(&a, &b, &db, [false, true]).1);
        Some(sum_tangent_numbers(da, db))
    };
    let jvp = move |t: &Tangents<'_>, out: &Tensor<T>| {
        if let Some(tangent) = tangent_by_numbers(t, out, numbers) {
            return tangent;
        }
        let dx = t.of::<T>(0).and_then(|t| rule(x, y, t, [true, false]).0);
        let dy = t.of::<T>(1).and_then(|t| rule(x, y, t, [false, true]).1);
        sum_tangents(dx, dy, out.shape())
    };
    let head = ElementwiseHead {
        op,
        rule: leak_zero_sized(BinaryRule(rule, scalar_rule, PhantomData)),
        params: || ParamSlot::None,
        scalar_param: None,
    };
    stack::record_keeping(data, &[x.id(), y.id()], keep, head, jvp, numbers)
}

/// `dx + dy` (either may be absent), broadcast to the output's `shape`: the tangent of a
/// binary op from its two operands' terms. `None` only when both are.
pub(crate) fn sum_tangents<T: Float>(
    dx: Option<Tensor<T>>,
    dy: Option<Tensor<T>>,
    shape: &[usize],
) -> Option<Tensor<T>> {
    let sum = match (dx, dy) {
        (Some(dx), Some(dy)) => dx + dy,
        (Some(d), None) | (None, Some(d)) => d,
        (None, None) => return None,
    };
    // most tangents have the output's shape already: no call, no clone
    if sum.has_shape(shape) {
        return Some(sum);
    }
    Some(sum.broadcast_to(shape))
}

/// [`sum_tangents`] on plain numbers (0-d operands, a 0-d output): the same additions.
#[inline(always)]
fn sum_tangent_numbers<T: Float>(dx: Option<T>, dy: Option<T>) -> Option<T> {
    match (dx, dy) {
        (Some(dx), Some(dy)) => Some(dx + dy),
        (Some(d), None) | (None, Some(d)) => Some(d),
        (None, None) => None,
    }
}

struct AdditiveRule<T, F, S>(F, S, PhantomData<fn(T)>);

impl<T: Float, F, S> Backward for AdditiveRule<T, F, S>
where
    F: Fn(&Tensor<T>) -> Tensor<T>,
    S: Fn(&T) -> T,
{
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let needs = (ctx.needs[0], ctx.needs[1]);
        let g = g.typed::<T>();
        let (gx, gy) = (needs.0.then(|| g.clone()), needs.1.then(|| (self.0)(g)));
        let Params::DimsAxis(shapes, split) = ctx.params else {
            return smallvec![gx.map(T::into_any), gy.map(T::into_any)];
        };
        // Broadcasting in the forward means summing in the backward (over the batch axes
        // of a jacobian's sweep too, which `sum_to_batched` leaves alone).
        let (x_shape, y_shape) = shapes.split_at(*split);
        smallvec![
            gx.map(|gx| T::into_any(gx.sum_to_batched(x_shape))),
            gy.map(|gy| T::into_any(gy.sum_to_batched(y_shape))),
        ]
    }

    #[inline]
    fn backward_numbers(&self, ctx: NumberCtx<'_>, g: f64) -> Option<[f64; 2]> {
        // Differing shapes (kept as params) mean the operands were not both 0-d.
        if !matches!(ctx.params, ParamSlot::None) {
            return None;
        }
        Some([g, DType::to_f64((self.1)(&T::from_f64(g)))])
    }
}

/// A binary op whose partial derivatives are constants, `x + y` and `x - y`: like
/// [`binary`], but it saves no input values (its rule needs none), only the two shapes when
/// they differ, so the tape does not keep the operands alive. `rhs_rule(g)` is `y`'s
/// cotangent before un-broadcasting (given at `Tensor<T>` and at `T`, as for [`unary`]);
/// `x`'s is `g`.
///
/// # Panics
/// If the shapes do not broadcast, naming `op` and both shapes.
#[inline(always)]
#[track_caller]
pub(crate) fn additive<T: Float, R, S>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: OpName,
    f: impl Fn(T, T) -> T + Sync,
    (rhs_rule, scalar_rhs_rule): (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>) -> Tensor<T> + Copy + 'static,
    S: Fn(&T) -> T + Copy + 'static,
{
    let data = zip_broadcast(x, y, op, f);
    record_additive(data, x, y, op, (rhs_rule, scalar_rhs_rule))
}

/// [`additive`] with an owned left operand. When it is an array no other tensor holds (a
/// temporary, as `a * x` in `a * x + b`) and the result has its shape, the result is
/// computed in its buffer: no allocation. Safe while recording too: the additive rules
/// save no values, and a tape knows the operand only by its id.
///
/// Two 0-d operands take the first branch, which is small enough to inline into the
/// caller (with the compact record `record_keeping` inlines); arrays go out of line.
#[inline]
#[track_caller]
pub(crate) fn additive_owned<T: Float, R, S>(
    x: Tensor<T>,
    y: &Tensor<T>,
    op: OpName,
    f: impl Fn(T, T) -> T + Sync,
    rules: (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>) -> Tensor<T> + Copy + 'static,
    S: Fn(&T) -> T + Copy + 'static,
{
    if let (Some(a), Some(b)) = (x.as_inline_scalar(), y.as_inline_scalar()) {
        return record_additive(Data::scalar(f(a, b)), &x, y, op, rules);
    }
    additive_owned_arrays(x, y, op, f, rules)
}

/// [`additive_owned`] when an operand is an array.
#[inline(never)]
#[track_caller]
fn additive_owned_arrays<T: Float, R, S>(
    mut x: Tensor<T>,
    y: &Tensor<T>,
    op: OpName,
    f: impl Fn(T, T) -> T + Sync,
    rules: (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>) -> Tensor<T> + Copy + 'static,
    S: Fn(&T) -> T + Copy + 'static,
{
    if let Some(Stored::Own(array)) = x.unique_array_mut()
        && zip_into(array, y, &f)
    {
        return record_additive(x.data_clone(), &x, y, op, rules);
    }
    additive(&x, y, op, f, rules)
}

/// Records an additive op of `x` and `y` whose value is `data`. Inlined into its two
/// callers: a call with a frame of its own cost about a tenth of recording a 0-d `+`.
#[inline(always)]
#[track_caller]
fn record_additive<T: Float, R, S>(
    data: Data<T>,
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: OpName,
    (rhs_rule, scalar_rhs_rule): (R, S),
) -> Tensor<T>
where
    R: Fn(&Tensor<T>) -> Tensor<T> + Copy + 'static,
    S: Fn(&T) -> T + Copy + 'static,
{
    // The rules save no values: only the two shapes, when they differ.
    let keep = Keep {
        inputs: [],
        output: false,
    };
    let head = ElementwiseHead {
        op,
        rule: leak_zero_sized(AdditiveRule(rhs_rule, scalar_rhs_rule, PhantomData)),
        params: || {
            let (xs, ys) = (x.shape(), y.shape());
            if crate::base::tensor::same_shape(xs, ys) {
                ParamSlot::None
            } else {
                both_shapes(xs, ys)
            }
        },
        // a 0-d result of a broadcasting op has 0-d operands: the same shapes
        scalar_param: None,
    };
    // linear: `dx + rhs_rule(dy)`, broadcast to the output
    // (captures no input: every op pays for building its closure, recording or not)
    let numbers = move |out: &Tensor<T>, [dx, dy]: [Option<T>; 2]| {
        out.as_inline_scalar()?;
        Some(sum_tangent_numbers(dx, dy.map(|dy| scalar_rhs_rule(&dy))))
    };
    let jvp = move |t: &Tangents<'_>, out: &Tensor<T>| {
        if let Some(tangent) = tangent_by_numbers(t, out, numbers) {
            return tangent;
        }
        sum_tangents(
            t.of::<T>(0).cloned(),
            t.of::<T>(1).map(rhs_rule),
            out.shape(),
        )
    };
    stack::record_keeping(data, &[x.id(), y.id()], keep, head, jvp, numbers)
}

/// The parameters of an additive op whose operands' shapes differ: both shapes, kept for
/// its rule to un-broadcast. Out of line, so the head of the usual op (same shapes, no
/// parameters) stays small enough to inline.
#[cold]
#[inline(never)]
fn both_shapes(xs: &[usize], ys: &[usize]) -> ParamSlot {
    let shapes = xs.iter().chain(ys).copied().collect();
    ParamSlot::from(Params::DimsAxis(shapes, xs.len()))
}

/// Applies `f` elementwise over the broadcast of `x` and `y` (not recorded).
#[inline]
#[track_caller]
pub(crate) fn zip_broadcast<T: crate::DType, U: crate::DType>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: &str,
    f: impl Fn(T, T) -> U + Sync,
) -> Data<U> {
    match (x.data(), y.data()) {
        (DataRef::Scalar(a), DataRef::Scalar(b)) => Data::scalar(f(a.get(), b.get())),
        _ => zip_broadcast_arrays(x, y, op, f),
    }
}

/// [`zip_broadcast`] when an operand is an array. Out of line, so that an op on 0-d values,
/// which inlines into its caller, does not carry the array loops with it.
#[inline(never)]
#[track_caller]
fn zip_broadcast_arrays<T: crate::DType, U: crate::DType>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: &str,
    f: impl Fn(T, T) -> U + Sync,
) -> Data<U> {
    match (x.data(), y.data()) {
        (DataRef::Scalar(_), DataRef::Scalar(_)) => {
            unreachable!("zip_broadcast handles two numbers")
        }
        // a reshape's elements (shared with another tensor) through a view
        (DataRef::Array(a), DataRef::Scalar(b)) => {
            let b = b.get();
            match a.own() {
                Some(a) => crate::base::tensor::map_array(a, |v| f(v, b)),
                None => crate::base::tensor::map_array(&a.view(), |v| f(v, b)),
            }
        }
        (DataRef::Scalar(a), DataRef::Array(b)) => {
            let a = a.get();
            match b.own() {
                Some(b) => crate::base::tensor::map_array(b, |v| f(a, v)),
                None => crate::base::tensor::map_array(&b.view(), |v| f(a, v)),
            }
        }
        (DataRef::Array(a), DataRef::Array(b)) => match (a.own(), b.own()) {
            (Some(a), Some(b)) => zip_arrays(a, b, op, &f),
            _ => zip_arrays(&a.view(), &b.view(), op, &f),
        },
    }
}

/// [`zip_broadcast`] of two arrays.
#[inline]
#[track_caller]
fn zip_arrays<T: crate::DType, U: crate::DType, S: ndarray::Data<Elem = T>, R>(
    a: &ArrayBase<S, IxDyn>,
    b: &ArrayBase<R, IxDyn>,
    op: &str,
    f: &(impl Fn(T, T) -> U + Sync),
) -> Data<U>
where
    R: ndarray::Data<Elem = T>,
{
    if let Some(out) = zip_trailing(a, b, f) {
        return Data::from_array(out);
    }
    if crate::base::tensor::same_shape(a.shape(), b.shape()) {
        return Data::from_array(Zip::from(a).and(b).map_collect(|&p, &q| f(p, q)));
    }
    let shape = broadcast_shapes(op, a.shape(), b.shape());
    let (a, b) = (
        a.broadcast(IxDyn(&shape)).expect("shape checked"),
        b.broadcast(IxDyn(&shape)).expect("shape checked"),
    );
    Data::from_array(Zip::from(&a).and(&b).map_collect(|&p, &q| f(p, q)))
}

/// The fast path of [`zip_broadcast`]: both operands contiguous, and one a contiguous
/// block repeated (its shape, leading 1s aside, a suffix of the other's: equal shapes, a
/// bias row against a batch) or each of its elements repeated over a block (the other's
/// shape with trailing axes set to 1: a reduction with kept dimensions). Plain slice loops
/// instead of `Zip` over broadcast views: 1.4–6× faster on small tensors, 1.3–1.5× on a
/// bias row at 128×784 or 256×256 (release, f32, 2-core machine).
fn zip_trailing<T: crate::DType, U: crate::DType, S: ndarray::Data<Elem = T>, R>(
    a: &ArrayBase<S, IxDyn>,
    b: &ArrayBase<R, IxDyn>,
    f: &(impl Fn(T, T) -> U + Sync),
) -> Option<ArrayD<U>>
where
    R: ndarray::Data<Elem = T>,
{
    let (xs, ys) = (a.as_slice()?, b.as_slice()?);
    if xs.is_empty() || ys.is_empty() {
        return None;
    }
    if crate::base::tensor::same_shape(a.shape(), b.shape()) {
        // the common case first: one zipped pass, no block analysis (shared with the helper
        // thread when long: each element is `f` of its own pair, so the values are the same)
        let out = crate::base::parallel::zip_collect(xs, ys, |&p, &q| f(p, q));
        return Some(crate::base::tensor::array_from_vec(a.raw_dim(), out));
    }
    let mut out = Vec::with_capacity(xs.len().max(ys.len()));
    let shape = if is_trailing_part(b.shape(), a.shape()) {
        for chunk in xs.chunks_exact(ys.len()) {
            out.extend(chunk.iter().zip(ys).map(|(&p, &q)| f(p, q)));
        }
        a.raw_dim()
    } else if is_trailing_part(a.shape(), b.shape()) {
        for chunk in ys.chunks_exact(xs.len()) {
            out.extend(xs.iter().zip(chunk).map(|(&p, &q)| f(p, q)));
        }
        b.raw_dim()
    } else if is_leading_part(b.shape(), a.shape()) {
        for (chunk, &q) in xs.chunks_exact(xs.len() / ys.len()).zip(ys) {
            out.extend(chunk.iter().map(|&p| f(p, q)));
        }
        a.raw_dim()
    } else if is_leading_part(a.shape(), b.shape()) {
        for (chunk, &p) in ys.chunks_exact(ys.len() / xs.len()).zip(xs) {
            out.extend(chunk.iter().map(|&q| f(p, q)));
        }
        b.raw_dim()
    } else {
        return None;
    };
    Some(crate::base::tensor::array_from_vec(shape, out))
}

/// `a = f(a, y)` elementwise in `a`'s buffer, with `y` broadcast to `a`'s shape, when `a` is
/// in standard layout and `y` is a number or a contiguous array that broadcasts to `a`
/// without growing it (the layouts [`zip_trailing`] handles, in its order of operations, so
/// the values are the same). Returns whether it did.
fn zip_into<T: crate::DType>(
    a: &mut ArrayD<T>,
    y: &Tensor<T>,
    f: &(impl Fn(T, T) -> T + Sync),
) -> bool {
    use crate::base::parallel::chunks_in_place;
    if let DataRef::Scalar(q) = y.data() {
        let Some(xs) = a.as_slice_mut() else {
            return false;
        };
        let q = q.get();
        if !xs.is_empty() {
            // (shared with the helper thread when long; each element is `f` of its own pair)
            chunks_in_place(xs, parts_block(xs.len()), |_, c| {
                c.iter_mut().for_each(|p| *p = f(*p, q));
            });
        }
        return true;
    }
    let (whole, part) = (a.shape(), y.shape());
    let (same, trailing) = (
        crate::base::tensor::same_shape(whole, part),
        is_trailing_part(part, whole),
    );
    let leading = !same && !trailing && is_leading_part(part, whole);
    let (Some(ys), true) = (y.data().as_slice(), same || trailing || leading) else {
        return false;
    };
    let Some(xs) = a.as_slice_mut() else {
        return false;
    };
    if xs.is_empty() || ys.is_empty() {
        return false;
    }
    // Each element is `f` of its own pair, in the order of one pass; `chunks_in_place` runs
    // its parts of the chunks with the helper thread when `xs` is long (W8's bias adds).
    if same {
        let block = parts_block(xs.len());
        chunks_in_place(xs, block, |i, c| {
            let ys = &ys[i * block..(i + 1) * block];
            c.iter_mut().zip(ys).for_each(|(p, &q)| *p = f(*p, q));
        });
    } else if trailing {
        chunks_in_place(xs, ys.len(), |_, c| {
            c.iter_mut().zip(ys).for_each(|(p, &q)| *p = f(*p, q));
        });
    } else {
        let block = xs.len() / ys.len();
        chunks_in_place(xs, block, |i, c| {
            let q = ys[i];
            c.iter_mut().for_each(|p| *p = f(*p, q));
        });
    }
    true
}

/// The chunk length `parallel::chunks_in_place` may share out for `len` elements
/// (non-zero) of an elementwise pass: one of its parts when `len` is long and divisible
/// into them, else all of it (one chunk, one thread).
fn parts_block(len: usize) -> usize {
    use crate::base::parallel::{PARTS, SPLIT_ELEMENTWISE};
    if len >= SPLIT_ELEMENTWISE && len.is_multiple_of(PARTS) {
        len / PARTS
    } else {
        len
    }
}

/// Whether `part`, without its leading 1s, is a suffix of `whole` and has no more axes: then
/// broadcasting `part` to `whole` repeats it as one contiguous block.
pub(crate) fn is_trailing_part(part: &[usize], whole: &[usize]) -> bool {
    let ones = part.iter().take_while(|&&d| d == 1).count();
    let block = &part[ones..];
    part.len() <= whole.len()
        && crate::base::tensor::same_shape(block, &whole[whole.len() - block.len()..])
}

/// Whether `part` is `whole` with some trailing axes set to 1 (a reduction with kept
/// dimensions): then broadcasting repeats each of its elements over one contiguous block.
pub(crate) fn is_leading_part(part: &[usize], whole: &[usize]) -> bool {
    let kept = part.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1);
    part.len() == whole.len() && crate::base::tensor::same_shape(&part[..kept], &whole[..kept])
}

/// The NumPy broadcast of two shapes.
///
/// # Panics
/// If they do not broadcast, with a message naming `op` and both shapes.
#[track_caller]
pub(crate) fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> SmallVec<[usize; 4]> {
    // No closure around the panic: it would report the closure's location instead of the
    // user's line that `#[track_caller]` forwards here.
    match try_broadcast_shapes(a, b) {
        Some(shape) => shape,
        None => panic!("{op}: shapes {a:?} and {b:?} cannot be broadcast together"),
    }
}

/// The NumPy broadcast of two shapes, or `None` if they do not broadcast.
pub(crate) fn try_broadcast_shapes(a: &[usize], b: &[usize]) -> Option<SmallVec<[usize; 4]>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() >= rank {
            s[i + s.len() - rank]
        } else {
            1
        }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (p, q) if p == q => Some(p),
            (1, q) => Some(q),
            (p, 1) => Some(p),
            _ => None,
        })
        .collect()
}

/// An array from an owned `ArrayD`, as a new (untracked) tensor.
pub(crate) fn constant<T: crate::DType>(array: ArrayD<T>) -> Tensor<T> {
    Tensor::from_data(Data::from_array(array))
}

/// Checks an axis against a rank, naming the op.
#[track_caller]
pub(crate) fn check_axis(op: &str, axis: usize, shape: &[usize]) -> usize {
    assert!(
        axis < shape.len(),
        "{op}: axis {axis} is out of range for a tensor of shape {shape:?} (rank {})",
        shape.len()
    );
    axis
}

/// An elementwise op whose derivative is zero wherever it exists (a mask, a sign), recorded
/// with a rule that gives zeros: a derivative through it is connected and zero, as
/// TensorFlow's (`Sign`'s gradient and ReLU's second derivative are registered zeros), never
/// `None`. Rules use these, so this is what makes the second derivative of `relu` or `abs`
/// zero rather than unconnected.
#[inline]
#[track_caller]
pub(crate) fn piecewise_constant<T: Float>(
    x: &Tensor<T>,
    op: OpName,
    f: impl Fn(T) -> T + Sync,
) -> Tensor<T> {
    // the factor 0 is kept as `linear`'s parameter: the rule is `g · 0`
    linear(x, op, 0.0, f, both!(|g, c| Primal::scale(g, c)))
}
