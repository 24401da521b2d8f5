//! The structures `gradient` accepts for sources and targets, and how results take the
//! sources' structure: one value, arrays, slices, `Vec`s, tuples and maps, nested freely.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};

use smallvec::SmallVec;

use super::backward::Gradients;
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use crate::record::variable::{AnyVariable, Variable};

/// The leaves of a sources structure, in the order [`Sources::collect_sources`] appends
/// them. Up to four are kept inline: a `gradient` call builds this list every time, and
/// taking a buffer from a per-thread pool for it cost more than the few leaves it holds.
///
/// A structure of your own becomes a source by passing each field on, in a fixed order:
///
/// ```
/// use gradtape_runtime::{GradientList, GradientTape, SourceList, Sources, Tensor, Variable};
/// struct Dense { kernel: Variable<f32>, bias: Variable<f32> }
/// struct DenseGrads { kernel: Option<Tensor<f32>>, bias: Option<Tensor<f32>> }
/// impl Sources for Dense {
///     type Output = DenseGrads;
///     fn collect_sources(&self, keys: &mut SourceList) {
///         self.kernel.collect_sources(keys);
///         self.bias.collect_sources(keys);
///     }
///     fn rebuild(&self, grads: &mut GradientList) -> DenseGrads {
///         DenseGrads { kernel: self.kernel.rebuild(grads), bias: self.bias.rebuild(grads) }
///     }
/// }
/// let layer = Dense { kernel: Variable::new(2.0_f32), bias: Variable::new(1.0_f32) };
/// let tape = GradientTape::new();
/// let y = tape.record(|| 3.0 * &layer.kernel + &layer.bias);
/// let grads = tape.gradient(&y, &layer).unwrap();
/// assert_eq!(grads.kernel.unwrap().to_scalar(), 3.0);
/// assert_eq!(grads.bias.unwrap().to_scalar(), 1.0);
/// ```
#[derive(Default)]
pub struct SourceList(SmallVec<[SourceKey; 4]>);

impl SourceList {
    /// Appends one leaf.
    ///
    /// ```
    /// use gradtape_runtime::{AnyVariable, SourceKey, SourceList, Variable};
    /// let mut keys = SourceList::default();
    /// keys.push(SourceKey::Variable(AnyVariable::from(Variable::new(1.0_f32))));
    /// assert_eq!(keys.len(), 1);
    /// ```
    // (`#[inline]` here and on the other small methods of these lists: `gradient` is
    // generic, so they are called from the user's crate, where without it each was a call
    // out of line costing more than its body)
    #[inline]
    pub fn push(&mut self, key: SourceKey) {
        self.0.push(key);
    }
}

impl std::ops::Deref for SourceList {
    type Target = [SourceKey];
    #[inline]
    fn deref(&self) -> &[SourceKey] {
        &self.0
    }
}

/// The gradients of a sources structure's leaves, in the order
/// [`Sources::collect_sources`] listed the leaves, for [`Sources::rebuild`] to take one at
/// a time. A concrete type rather than a `dyn Iterator`, so that taking one is inlined
/// (a value returned through a virtual call goes through memory in pieces).
///
/// ```
/// use gradtape_runtime::{AnyTensor, GradientList, GradientTape, Sources, Tensor};
/// struct Pair(Tensor<f64>, Tensor<f64>);
/// impl Sources for Pair {
///     type Output = (Option<Tensor<f64>>, Option<Tensor<f64>>);
///     fn collect_sources(&self, keys: &mut gradtape_runtime::SourceList) {
///         self.0.collect_sources(keys);
///         self.1.collect_sources(keys);
///     }
///     fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
///         // by hand: the next leaf's gradient, dtype-erased
///         let first = match grads.take_next() {
///             Some(AnyTensor::F64(g)) => Some(g),
///             _ => None,
///         };
///         (first, self.1.rebuild(grads))
///     }
/// }
/// let (x, y) = (Tensor::scalar(2.0_f64), Tensor::scalar(5.0_f64));
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// tape.watch(&y);
/// let z = tape.record(|| &x * &y);
/// let (gx, gy) = tape.gradient(&z, Pair(x.clone(), y.clone())).unwrap();
/// assert_eq!((gx.unwrap().to_scalar(), gy.unwrap().to_scalar()), (5.0, 2.0));
/// ```
pub struct GradientList(smallvec::IntoIter<[Option<AnyTensor>; 4]>);

impl GradientList {
    #[inline]
    pub(crate) fn new(grads: Gradients) -> GradientList {
        GradientList(grads.into_iter())
    }

    /// The next leaf's gradient: `None` if the target does not depend on it.
    ///
    /// # Panics
    /// If every leaf's gradient has been taken (a `rebuild` that takes more leaves than
    /// its `collect_sources` listed).
    #[inline]
    #[track_caller]
    pub fn take_next(&mut self) -> Option<AnyTensor> {
        self.0
            .next()
            .expect("Sources::rebuild: more leaves taken than collect_sources listed")
    }
}

/// The tensors of a targets structure, in the order [`Targets::collect_targets`] appends
/// them; up to two inline (a gradient usually has one target).
///
/// ```
/// use gradtape_runtime::{TargetList, Targets, Tensor};
/// let mut targets = TargetList::default();
/// (Tensor::scalar(1.0_f32), [Tensor::scalar(2.0_f64)]).collect_targets(&mut targets);
/// assert_eq!(targets.len(), 2);
/// assert_eq!(targets[1].dtype(), "f64");
/// ```
#[derive(Default)]
pub struct TargetList(SmallVec<[AnyTensor; 2]>);

impl TargetList {
    /// Appends one target.
    ///
    /// ```
    /// use gradtape_runtime::{AnyTensor, TargetList, Tensor};
    /// let mut targets = TargetList::default();
    /// targets.push(AnyTensor::F32(Tensor::scalar(1.0)));
    /// assert_eq!(targets.len(), 1);
    /// ```
    #[inline]
    pub fn push(&mut self, target: AnyTensor) {
        self.0.push(target);
    }

    pub(crate) fn into_vec(self) -> Vec<AnyTensor> {
        self.0.into_vec()
    }
}

impl std::ops::Deref for TargetList {
    type Target = [AnyTensor];
    #[inline]
    fn deref(&self) -> &[AnyTensor] {
        &self.0
    }
}

/// One leaf of a sources structure: a tensor (by identity) or a variable (all its reads).
#[derive(Clone, Debug)]
pub enum SourceKey {
    /// A tensor, watched or intermediate.
    Tensor(AnyTensor),
    /// A variable, whose reads' gradients are summed.
    Variable(AnyVariable),
}

impl SourceKey {
    /// The shape and dtype a gradient for this source has: the source's own.
    pub(crate) fn value(&self) -> AnyTensor {
        match self {
            SourceKey::Tensor(t) => t.clone(),
            SourceKey::Variable(v) => v.peek(),
        }
    }
}

/// What a gradient can be taken with respect to, and the shape of the result: each leaf
/// (a float [`Tensor`] or [`Variable`]) becomes an `Option<Tensor>` of the same dtype and
/// shape, `None` where the target does not depend on it.
///
/// ```
/// use std::collections::HashMap;
/// use gradtape_runtime::{GradientTape, Tensor, Variable};
/// let (a, b) = (Variable::new(2.0_f32), Variable::new(3.0_f64));
/// let x = Tensor::scalar(4.0_f32);
/// let tape = GradientTape::persistent();
/// tape.watch(&x);
/// let y = tape.record(|| &a * &x + b.value().cast::<f32>());
/// let (ga, gb) = tape.gradient(&y, (&a, &b)).unwrap();
/// assert_eq!(gb.unwrap().dtype(), "f64");
/// let grads = tape.gradient(&y, HashMap::from([("a", &a)])).unwrap();
/// assert_eq!(grads["a"].as_ref().unwrap().to_scalar(), 4.0);
/// assert_eq!(tape.gradient(&y, vec![&x]).unwrap()[0].as_ref().unwrap().to_scalar(), 2.0);
/// # let _ = ga;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a source of a gradient",
    label = "gradient sources must be float tensors or variables, or arrays, slices, Vecs, tuples or maps of them",
    note = "gradients need a float dtype (f32 or f64): integer and bool values are data; differentiate a float cast of them instead"
)]
pub trait Sources {
    /// The same structure with `Option<Tensor<T>>` at each leaf.
    type Output;
    /// Appends the leaves in order.
    fn collect_sources(&self, keys: &mut SourceList);
    /// Rebuilds the structure from the leaves' gradients, taken in the same order.
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output;
}

/// Runs a dtype-erased computation (gradient, jacobian) over the leaves of `sources`,
/// which appends one result per leaf to the list it is given, and gives the results back
/// in the structure of `sources`. (The list is filled in place: returned, a list of this
/// size was copied at each level on its way up.)
#[inline]
pub(crate) fn over_leaves<S: Sources, E>(
    sources: S,
    erased: impl FnOnce(&[SourceKey], &mut Gradients) -> Result<(), E>,
) -> Result<S::Output, E> {
    let mut keys = SourceList::default();
    sources.collect_sources(&mut keys);
    let mut results = Gradients::new();
    erased(&keys, &mut results)?;
    Ok(sources.rebuild(&mut GradientList::new(results)))
}

fn next_grad<T: Float>(grads: &mut GradientList) -> Option<Tensor<T>> {
    let grad = grads.take_next();
    grad.map(|g| T::from_any_owned(g).expect("a gradient has its source's dtype"))
}

impl<T: Float> Sources for Tensor<T> {
    type Output = Option<Tensor<T>>;
    fn collect_sources(&self, keys: &mut SourceList) {
        keys.push(SourceKey::Tensor(T::into_any(self.clone())));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        next_grad(grads)
    }
}

impl<T: Float> Sources for Variable<T> {
    type Output = Option<Tensor<T>>;
    fn collect_sources(&self, keys: &mut SourceList) {
        keys.push(SourceKey::Variable(AnyVariable::from(self.clone())));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        next_grad(grads)
    }
}

/// A variable of either dtype as a gradient source: its gradient comes back dtype-erased.
/// What `tape.gradient(&loss, &tape.watched_variables())` uses, TensorFlow's idiom.
///
/// ```
/// use gradtape_runtime::{AnyTensor, GradientTape, Variable};
/// let (a, b) = (Variable::new(2.0_f32), Variable::new(3.0_f64));
/// let tape = GradientTape::new();
/// let y = tape.record(|| a.value().cast::<f64>() * b.value());
/// let grads = tape.gradient(&y, &tape.watched_variables()).unwrap();
/// assert!(matches!(&grads[0], Some(AnyTensor::F32(g)) if g.to_scalar() == 3.0));
/// assert!(matches!(&grads[1], Some(AnyTensor::F64(g)) if g.to_scalar() == 2.0));
/// ```
impl Sources for AnyVariable {
    type Output = Option<AnyTensor>;
    fn collect_sources(&self, keys: &mut SourceList) {
        keys.push(SourceKey::Variable(self.clone()));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        grads.take_next()
    }
}

impl<S: Sources + ?Sized> Sources for &S {
    type Output = S::Output;
    fn collect_sources(&self, keys: &mut SourceList) {
        (**self).collect_sources(keys);
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        (**self).rebuild(grads)
    }
}

impl<S: Sources, const N: usize> Sources for [S; N] {
    type Output = [S::Output; N];
    fn collect_sources(&self, keys: &mut SourceList) {
        self.iter().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        std::array::from_fn(|i| self[i].rebuild(grads))
    }
}

impl<S: Sources> Sources for [S] {
    type Output = Vec<S::Output>;
    fn collect_sources(&self, keys: &mut SourceList) {
        self.iter().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        self.iter().map(|s| s.rebuild(grads)).collect()
    }
}

impl<S: Sources> Sources for Vec<S> {
    type Output = Vec<S::Output>;
    fn collect_sources(&self, keys: &mut SourceList) {
        self.as_slice().collect_sources(keys);
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        self.as_slice().rebuild(grads)
    }
}

impl<K: Clone + Eq + Hash, S: Sources, H: BuildHasher + Default> Sources for HashMap<K, S, H> {
    type Output = HashMap<K, S::Output, H>;
    fn collect_sources(&self, keys: &mut SourceList) {
        self.values().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        // Iteration order of one unchanged map is stable, so it matches `collect_sources`.
        self.iter()
            .map(|(k, s)| (k.clone(), s.rebuild(grads)))
            .collect()
    }
}

impl<K: Clone + Ord, S: Sources> Sources for BTreeMap<K, S> {
    type Output = BTreeMap<K, S::Output>;
    fn collect_sources(&self, keys: &mut SourceList) {
        self.values().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
        self.iter()
            .map(|(k, s)| (k.clone(), s.rebuild(grads)))
            .collect()
    }
}

/// Calls `$m!` once per tuple arity the runtime implements its traits for (1 to 8), with
/// the type parameters' names.
macro_rules! for_each_tuple {
    ($m:ident) => {
        $m!(A);
        $m!(A, B);
        $m!(A, B, C);
        $m!(A, B, C, D);
        $m!(A, B, C, D, E);
        $m!(A, B, C, D, E, F);
        $m!(A, B, C, D, E, F, G);
        $m!(A, B, C, D, E, F, G, H);
    };
}
pub(crate) use for_each_tuple;

macro_rules! tuple_sources {
    ($($name:ident),+) => {
        impl<$($name: Sources),+> Sources for ($($name,)+) {
            type Output = ($($name::Output,)+);
            #[allow(non_snake_case)]
            fn collect_sources(&self, keys: &mut SourceList) {
                let ($($name,)+) = self;
                $($name.collect_sources(keys);)+
            }
            #[allow(non_snake_case)]
            fn rebuild(&self, grads: &mut GradientList) -> Self::Output {
                let ($($name,)+) = self;
                ($($name.rebuild(grads),)+)
            }
        }
    };
}

for_each_tuple!(tuple_sources);

/// A gradient structure, as [`GradientTape::gradient`](crate::GradientTape::gradient)
/// returns it for some [`Sources`], with the `Option` taken off every leaf: what
/// [`GradientTape::gradient_connected`](crate::GradientTape::gradient_connected) returns.
/// Implemented for `Option<Tensor<T>>`, `Option<AnyTensor>` and arrays, `Vec`s, tuples and
/// maps of them; a structure of one's own implements it to be returned by
/// `gradient_connected` (as it implements [`Sources`] to be a source).
///
/// ```
/// use gradtape_runtime::{Connected, Tensor};
/// let grads = (Some(Tensor::scalar(1.0_f64)), [Some(Tensor::scalar(2.0_f32))]);
/// let (a, [b]) = grads.connected().unwrap();
/// assert_eq!((a.to_scalar(), b.to_scalar()), (1.0, 2.0));
/// let missing = vec![Some(Tensor::scalar(1.0_f64)), None];
/// assert!(missing.connected().is_none());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gradient structure `gradient_connected` can return",
    label = "implement `Connected` for it, or call `gradient` and handle each `None`"
)]
pub trait Connected: Sized {
    /// The same structure with a tensor at each leaf.
    type Value;
    /// The structure without its `Option`s, or `None` if any leaf is `None`.
    fn connected(self) -> Option<Self::Value>;
}

impl<T: Float> Connected for Option<Tensor<T>> {
    type Value = Tensor<T>;
    fn connected(self) -> Option<Tensor<T>> {
        self
    }
}

impl Connected for Option<AnyTensor> {
    type Value = AnyTensor;
    fn connected(self) -> Option<AnyTensor> {
        self
    }
}

impl<C: Connected, const N: usize> Connected for [C; N] {
    type Value = [C::Value; N];
    fn connected(self) -> Option<Self::Value> {
        let leaves: Vec<C::Value> = self.into_iter().map(C::connected).collect::<Option<_>>()?;
        Some(leaves.try_into().ok().expect("N leaves in, N leaves out"))
    }
}

impl<C: Connected> Connected for Vec<C> {
    type Value = Vec<C::Value>;
    fn connected(self) -> Option<Self::Value> {
        self.into_iter().map(C::connected).collect()
    }
}

impl<K: Eq + Hash, C: Connected, H: BuildHasher + Default> Connected for HashMap<K, C, H> {
    type Value = HashMap<K, C::Value, H>;
    fn connected(self) -> Option<Self::Value> {
        self.into_iter()
            .map(|(k, c)| Some((k, c.connected()?)))
            .collect()
    }
}

impl<K: Ord, C: Connected> Connected for BTreeMap<K, C> {
    type Value = BTreeMap<K, C::Value>;
    fn connected(self) -> Option<Self::Value> {
        self.into_iter()
            .map(|(k, c)| Some((k, c.connected()?)))
            .collect()
    }
}

macro_rules! tuple_connected {
    ($($name:ident),+) => {
        impl<$($name: Connected),+> Connected for ($($name,)+) {
            type Value = ($($name::Value,)+);
            #[allow(non_snake_case)]
            fn connected(self) -> Option<Self::Value> {
                let ($($name,)+) = self;
                Some(($($name.connected()?,)+))
            }
        }
    };
}

for_each_tuple!(tuple_connected);

/// What a gradient can be taken of: one float tensor, or several (an array, slice, `Vec`
/// or tuple of them), whose gradients are summed as TensorFlow does. A non-scalar target
/// contributes the gradient of the sum of its elements.
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor};
/// let x = Tensor::scalar(3.0_f64);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let (y, z) = tape.record(|| (x.square(), &x * 2.0));
/// // d/dx (x² + 2x) = 2x + 2 = 8 at x = 3
/// assert_eq!(tape.gradient(&[&y, &z], &x).unwrap().unwrap().to_scalar(), 8.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the target of a gradient",
    label = "gradient targets must be float tensors, or arrays, slices, Vecs or tuples of them",
    note = "gradients need a float dtype (f32 or f64): cast integer values to a float before computing with them"
)]
pub trait Targets {
    /// Appends the target tensors in order.
    fn collect_targets(&self, out: &mut TargetList);
}

impl<T: Float> Targets for Tensor<T> {
    fn collect_targets(&self, out: &mut TargetList) {
        out.push(T::into_any(self.clone()));
    }
}

impl Targets for AnyTensor {
    fn collect_targets(&self, out: &mut TargetList) {
        out.push(self.clone());
    }
}

impl<S: Targets + ?Sized> Targets for &S {
    fn collect_targets(&self, out: &mut TargetList) {
        (**self).collect_targets(out);
    }
}

impl<S: Targets, const N: usize> Targets for [S; N] {
    fn collect_targets(&self, out: &mut TargetList) {
        self.iter().for_each(|t| t.collect_targets(out));
    }
}

impl<S: Targets> Targets for [S] {
    fn collect_targets(&self, out: &mut TargetList) {
        self.iter().for_each(|t| t.collect_targets(out));
    }
}

impl<S: Targets> Targets for Vec<S> {
    fn collect_targets(&self, out: &mut TargetList) {
        self.as_slice().collect_targets(out);
    }
}

macro_rules! tuple_targets {
    ($($name:ident),+) => {
        impl<$($name: Targets),+> Targets for ($($name,)+) {
            #[allow(non_snake_case)]
            fn collect_targets(&self, out: &mut TargetList) {
                let ($($name,)+) = self;
                $($name.collect_targets(out);)+
            }
        }
    };
}

tuple_targets!(A);
tuple_targets!(A, B);
tuple_targets!(A, B, C);
tuple_targets!(A, B, C, D);
