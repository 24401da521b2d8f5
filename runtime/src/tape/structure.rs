//! The structures `gradient` accepts for sources and targets, and how results take the
//! sources' structure: one value, arrays, slices, `Vec`s, tuples and maps, nested freely.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};

use crate::dtype::{AnyTensor, Float};
use crate::tensor::Tensor;
use crate::variable::{AnyVariable, Variable};

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
    fn collect_sources(&self, keys: &mut Vec<SourceKey>);
    /// Rebuilds the structure from the leaves' gradients, taken in the same order.
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output;
}

/// Runs a dtype-erased computation (gradient, jacobian) over the leaves of `sources` and
/// gives its results back in the structure of `sources`.
pub(crate) fn over_leaves<S: Sources, E, R: AsMut<Vec<Option<AnyTensor>>>>(
    sources: S,
    erased: impl FnOnce(&[SourceKey]) -> Result<R, E>,
) -> Result<S::Output, E> {
    let mut keys = super::Pooled::take(&super::pool::KEYS);
    sources.collect_sources(&mut keys);
    let mut results = erased(&keys)?;
    Ok(sources.rebuild(&mut results.as_mut().drain(..)))
}

fn next_grad<T: Float>(grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Option<Tensor<T>> {
    let grad = grads.next().expect("one gradient per source");
    grad.map(|g| T::from_any_owned(g).expect("a gradient has its source's dtype"))
}

impl<T: Float> Sources for Tensor<T> {
    type Output = Option<Tensor<T>>;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        keys.push(SourceKey::Tensor(T::into_any(self.clone())));
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        next_grad(grads)
    }
}

impl<T: Float> Sources for Variable<T> {
    type Output = Option<Tensor<T>>;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        keys.push(SourceKey::Variable(AnyVariable::from(self.clone())));
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        next_grad(grads)
    }
}

impl<S: Sources + ?Sized> Sources for &S {
    type Output = S::Output;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        (**self).collect_sources(keys);
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        (**self).rebuild(grads)
    }
}

impl<S: Sources, const N: usize> Sources for [S; N] {
    type Output = [S::Output; N];
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        self.iter().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        std::array::from_fn(|i| self[i].rebuild(grads))
    }
}

impl<S: Sources> Sources for [S] {
    type Output = Vec<S::Output>;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        self.iter().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        self.iter().map(|s| s.rebuild(grads)).collect()
    }
}

impl<S: Sources> Sources for Vec<S> {
    type Output = Vec<S::Output>;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        self.as_slice().collect_sources(keys);
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        self.as_slice().rebuild(grads)
    }
}

impl<K: Clone + Eq + Hash, S: Sources, H: BuildHasher + Default> Sources for HashMap<K, S, H> {
    type Output = HashMap<K, S::Output, H>;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        self.values().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        // Iteration order of one unchanged map is stable, so it matches `collect_sources`.
        self.iter()
            .map(|(k, s)| (k.clone(), s.rebuild(grads)))
            .collect()
    }
}

impl<K: Clone + Ord, S: Sources> Sources for BTreeMap<K, S> {
    type Output = BTreeMap<K, S::Output>;
    fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
        self.values().for_each(|s| s.collect_sources(keys));
    }
    fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
        self.iter()
            .map(|(k, s)| (k.clone(), s.rebuild(grads)))
            .collect()
    }
}

macro_rules! tuple_sources {
    ($($name:ident),+) => {
        impl<$($name: Sources),+> Sources for ($($name,)+) {
            type Output = ($($name::Output,)+);
            #[allow(non_snake_case)]
            fn collect_sources(&self, keys: &mut Vec<SourceKey>) {
                let ($($name,)+) = self;
                $($name.collect_sources(keys);)+
            }
            #[allow(non_snake_case)]
            fn rebuild(&self, grads: &mut dyn Iterator<Item = Option<AnyTensor>>) -> Self::Output {
                let ($($name,)+) = self;
                ($($name.rebuild(grads),)+)
            }
        }
    };
}

tuple_sources!(A);
tuple_sources!(A, B);
tuple_sources!(A, B, C);
tuple_sources!(A, B, C, D);
tuple_sources!(A, B, C, D, E);
tuple_sources!(A, B, C, D, E, F);
tuple_sources!(A, B, C, D, E, F, G);
tuple_sources!(A, B, C, D, E, F, G, H);

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
    fn collect_targets(&self, out: &mut Vec<AnyTensor>);
}

impl<T: Float> Targets for Tensor<T> {
    fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
        out.push(T::into_any(self.clone()));
    }
}

impl Targets for AnyTensor {
    fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
        out.push(self.clone());
    }
}

impl<S: Targets + ?Sized> Targets for &S {
    fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
        (**self).collect_targets(out);
    }
}

impl<S: Targets, const N: usize> Targets for [S; N] {
    fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
        self.iter().for_each(|t| t.collect_targets(out));
    }
}

impl<S: Targets> Targets for [S] {
    fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
        self.iter().for_each(|t| t.collect_targets(out));
    }
}

impl<S: Targets> Targets for Vec<S> {
    fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
        self.as_slice().collect_targets(out);
    }
}

macro_rules! tuple_targets {
    ($($name:ident),+) => {
        impl<$($name: Targets),+> Targets for ($($name,)+) {
            #[allow(non_snake_case)]
            fn collect_targets(&self, out: &mut Vec<AnyTensor>) {
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
