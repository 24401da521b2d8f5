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
pub(crate) mod linalg;
pub(crate) mod nn;
pub(crate) mod reduce;
pub(crate) mod shape;
pub(crate) mod unary;

use std::marker::PhantomData;

use ndarray::{ArrayD, IxDyn, Zip};
use smallvec::{SmallVec, smallvec};

use crate::dtype::{AnyTensor, Float};
use crate::tape::node::{Backward, InputGrads, Params, Rule, RuleCtx};
use crate::tape::recording::{self, NodeSpec};
use crate::tensor::{Data, Tensor};

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

struct UnaryRule<T, F>(F, PhantomData<fn(T)>);

impl<T: Float, F: Fn(&Tensor<T>, &Tensor<T>) -> Tensor<T>> Backward for UnaryRule<T, F> {
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let saved = ctx.saved[0].typed::<T>();
        smallvec![Some(T::into_any((self.0)(saved, g.typed::<T>())))]
    }
}

/// An elementwise op `f` with backward rule `rule(saved, g)`, where `saved` is the input or
/// the output as `saved_value` says.
#[inline]
pub(crate) fn unary<T: Float, R>(
    x: &Tensor<T>,
    op: &'static str,
    saved_value: Saved,
    f: impl Fn(T) -> T,
    rule: R,
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, &Tensor<T>) -> Tensor<T> + 'static,
{
    let data = x.map_data(f);
    recording::record(data, &[x.id()], |out| NodeSpec {
        op,
        rule: Rule::Static(leak_zero_sized(UnaryRule(rule, PhantomData))),
        saved: smallvec![T::into_any(match saved_value {
            Saved::Input => x.clone(),
            Saved::Output => out.clone(),
        })],
        params: Params::None,
    })
}

struct UnaryParamRule<T, F>(F, PhantomData<fn(T)>);

impl<T: Float, F: Fn(&Tensor<T>, &Tensor<T>, f64) -> Tensor<T>> Backward for UnaryParamRule<T, F> {
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let Params::Real(p) = ctx.params else {
            unreachable!("unary_with_param saves a real")
        };
        let x = ctx.saved[0].typed::<T>();
        smallvec![Some(T::into_any((self.0)(x, g.typed::<T>(), *p)))]
    }
}

/// An elementwise op with one real parameter `p` (an exponent); the rule gets
/// `(x, g, p)`.
#[inline]
pub(crate) fn unary_with_param<T: Float, R>(
    x: &Tensor<T>,
    op: &'static str,
    p: f64,
    f: impl Fn(T) -> T,
    rule: R,
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, &Tensor<T>, f64) -> Tensor<T> + 'static,
{
    let data = x.map_data(f);
    recording::record(data, &[x.id()], |_| NodeSpec {
        op,
        rule: Rule::Static(leak_zero_sized(UnaryParamRule(rule, PhantomData))),
        saved: smallvec![T::into_any(x.clone())],
        params: Params::Real(p),
    })
}

/// Cotangents of a binary op's two inputs, `None` where not needed.
pub(crate) type PairGrads<T> = (Option<Tensor<T>>, Option<Tensor<T>>);

struct BinaryRule<T, F>(F, PhantomData<fn(T)>);

impl<T: Float, F> Backward for BinaryRule<T, F>
where
    F: Fn(&Tensor<T>, &Tensor<T>, &Tensor<T>, [bool; 2]) -> PairGrads<T>,
{
    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        let (x, y) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
        let (gx, gy) = (self.0)(x, y, g.typed::<T>(), [ctx.needs[0], ctx.needs[1]]);
        // Broadcasting in the forward means summing in the backward (over the batch
        // axes of a jacobian's sweep too, which `sum_to_batched` leaves alone).
        let reduce = |grad: Option<Tensor<T>>, like: &Tensor<T>| {
            grad.map(|grad| T::into_any(grad.sum_to_batched(like.shape())))
        };
        smallvec![reduce(gx, x), reduce(gy, y)]
    }
}

/// An elementwise binary op with NumPy broadcasting. `rule(x, y, g, needs)` returns the
/// cotangents at the broadcast shape; they are summed back to each input's shape here, in
/// one place for every binary op.
///
/// # Panics
/// If the shapes do not broadcast, naming `op` and both shapes.
#[inline]
#[track_caller]
pub(crate) fn binary<T: Float, R>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: &'static str,
    f: impl Fn(T, T) -> T,
    rule: R,
) -> Tensor<T>
where
    R: Fn(&Tensor<T>, &Tensor<T>, &Tensor<T>, [bool; 2]) -> PairGrads<T> + 'static,
{
    let data = zip_broadcast(x, y, op, f);
    recording::record(data, &[x.id(), y.id()], |_| NodeSpec {
        op,
        rule: Rule::Static(leak_zero_sized(BinaryRule(rule, PhantomData))),
        saved: smallvec![T::into_any(x.clone()), T::into_any(y.clone())],
        params: Params::None,
    })
}

/// Applies `f` elementwise over the broadcast of `x` and `y` (not recorded).
#[inline]
#[track_caller]
pub(crate) fn zip_broadcast<T: crate::DType, U: crate::DType>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    op: &str,
    f: impl Fn(T, T) -> U,
) -> Data<U> {
    match (&x.data, &y.data) {
        (Data::Scalar(a), Data::Scalar(b)) => Data::Scalar(f(*a, *b)),
        (Data::Array(a), Data::Scalar(b)) => Data::from_array(a.mapv(|v| f(v, *b))),
        (Data::Scalar(a), Data::Array(b)) => Data::from_array(b.mapv(|v| f(*a, v))),
        (Data::Array(a), Data::Array(b)) => {
            if a.shape() == b.shape() {
                return Data::from_array(Zip::from(&**a).and(&**b).map_collect(|&p, &q| f(p, q)));
            }
            if let Some(data) = zip_suffix(a, b, &f) {
                return data;
            }
            let shape = broadcast_shapes(op, a.shape(), b.shape());
            let (a, b) = (
                a.broadcast(IxDyn(&shape)).expect("shape checked"),
                b.broadcast(IxDyn(&shape)).expect("shape checked"),
            );
            Data::from_array(Zip::from(&a).and(&b).map_collect(|&p, &q| f(p, q)))
        }
    }
}

/// `f` over the broadcast of `a` and `b` when one's shape is a suffix of the other's, in
/// contiguous rows: the common case of a jacobian sweep's batched cotangent `[B, S…]`
/// meeting a saved value `[S…]`, which a general strided zip over `IxDyn` walks element by
/// element with index arithmetic. `None` when the shapes or layouts do not fit.
fn zip_suffix<T: crate::DType, U: crate::DType>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    f: &impl Fn(T, T) -> U,
) -> Option<Data<U>> {
    let a_is_big = a.ndim() >= b.ndim();
    let (big, small) = if a_is_big { (a, b) } else { (b, a) };
    if !big.shape().ends_with(small.shape()) || small.is_empty() {
        return None;
    }
    let (rows, row) = (big.as_slice()?, small.as_slice()?);
    let mut out = Vec::with_capacity(rows.len());
    for chunk in rows.chunks_exact(row.len()) {
        if a_is_big {
            out.extend(chunk.iter().zip(row).map(|(&p, &q)| f(p, q)));
        } else {
            out.extend(chunk.iter().zip(row).map(|(&q, &p)| f(p, q)));
        }
    }
    let array = ArrayD::from_shape_vec(big.raw_dim(), out).expect("one value per element");
    Some(Data::from_array(array))
}

/// The NumPy broadcast of two shapes.
///
/// # Panics
/// If they do not broadcast, with a message naming `op` and both shapes.
#[track_caller]
pub(crate) fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> SmallVec<[usize; 4]> {
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
            (p, q) if p == q => p,
            (1, q) => q,
            (p, 1) => p,
            _ => panic!("{op}: shapes {a:?} and {b:?} cannot be broadcast together"),
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
