//! Gradients and activations as a diagnostic: per-variable gradient statistics
//! ([`GradientStats`]) and per-layer activation statistics ([`ActivationStats`]), cheap
//! enough to compute every step. [`Monitor`](crate::monitor::Monitor) keeps their history
//! and turns them into warnings.
//!
//! What each number says:
//!
//! - a gradient's **L2 norm** `‖g‖ = sqrt(Σ gᵢ²)` and **max |gᵢ|**: how far a step moves
//!   the variable; a norm near zero over many steps (vanishing) means the variable no longer
//!   learns, a huge or non-finite one (exploding) means training is about to diverge;
//! - the **fraction of exact zeros**: units that passed no gradient at all (a dead ReLU
//!   makes its kernel column and bias entry exactly zero);
//! - the **update ratio** `lr·‖g‖ / ‖w‖`: the relative size of a plain SGD step; around
//!   1e-3 is the usual healthy figure, far below means frozen, near 1 means the step
//!   rewrites the weights;
//! - the **global norm** `sqrt(Σ ‖gₖ‖²)` over every variable that has a gradient
//!   (`tf.linalg.global_norm`, what gradient clipping reads);
//! - for an activation, the fraction of outputs where it is **flat** (its derivative is zero
//!   or nearly: ReLU at 0, sigmoid and tanh in saturation) and the fraction of units flat
//!   for the **whole batch** (dead: they pass no gradient back for any example).
//!
//! ```
//! use gradtape_nn::diagnostics::{ActivationStats, GradientStats};
//! use gradtape_nn::{Activation, Dense, Layer, Sequential};
//! use gradtape_runtime::{GradientTape, Tensor};
//!
//! let model = Sequential::new()
//!     .push(Dense::<f32>::new("hidden", 4, 8, 0).with_activation(Activation::Relu))
//!     .push(Dense::new("out", 8, 1, 1));
//! let variables = model.trainable_variables();
//! let x = Tensor::random_normal(&[16, 4], 0.0, 1.0, 2);
//! let tape = GradientTape::new();
//! let mut outputs = Vec::new();
//! let loss = tape.record(|| model.call_with_activations(&x, &mut outputs).square().mean());
//! let grads = tape.gradient(&loss, &variables).unwrap();
//!
//! let stats = GradientStats::new(&variables, &grads, 0.1);
//! assert_eq!(stats.variables().len(), 4);
//! assert!(stats.global_norm() > 0.0);
//! let kernel = stats.get("hidden/kernel").unwrap().gradient.as_ref().unwrap();
//! assert_eq!(kernel.nan + kernel.infinite, 0);
//!
//! let layers = ActivationStats::of_layers(&outputs);
//! assert_eq!(layers[0].layer, "hidden");
//! assert!(layers[0].dead_fraction.unwrap() < 1.0);
//! assert_eq!(layers[1].dead_fraction, None); // a linear layer cannot be dead
//! ```

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};

use gradtape_runtime::{
    AnyTensor, DType, Float, Sources, Tensor, Variable, any_recording, without_recording,
};

use crate::layers::{Activation, LayerOutput};

/// One leaf of a sources structure paired with its gradient: what [`GradientStats`]
/// summarises.
///
/// ```
/// use gradtape_nn::diagnostics::{GradientPairs, Leaf};
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::with_name("w", 2.0_f32);
/// let mut leaves: Vec<Leaf> = Vec::new();
/// w.pair_leaves(&Some(Tensor::scalar(0.5)), &mut leaves);
/// assert_eq!(leaves[0].name, "w");
/// assert!(leaves[0].gradient.is_some());
/// ```
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The variable's name, or `#i` for the `i`-th leaf when it is a tensor.
    pub name: String,
    /// The variable's current value (or the tensor itself).
    pub value: AnyTensor,
    /// Its gradient, `None` where the target does not depend on it.
    pub gradient: Option<AnyTensor>,
}

/// A sources structure (anything [`GradientTape::gradient`] accepts) whose gradient result
/// can be walked beside it, leaf by leaf, in the order the tape lists the leaves: one value,
/// arrays, slices, `Vec`s, tuples (up to 8) and maps, nested freely.
///
/// [`GradientTape::gradient`]: gradtape_runtime::GradientTape::gradient
///
/// ```
/// use gradtape_nn::diagnostics::{GradientPairs, Leaf};
/// use gradtape_runtime::{GradientTape, Variable};
/// let (a, b) = (Variable::with_name("a", 1.0_f32), Variable::with_name("b", 2.0_f64));
/// let tape = GradientTape::new();
/// let y = tape.record(|| a.square());
/// let grads = tape.gradient(&y, (&a, &b)).unwrap();
/// let mut leaves: Vec<Leaf> = Vec::new();
/// (&a, &b).pair_leaves(&grads, &mut leaves);
/// let names: Vec<&str> = leaves.iter().map(|l| l.name.as_str()).collect();
/// assert_eq!(names, ["a", "b"]);
/// assert!(leaves[1].gradient.is_none()); // y does not depend on b
/// ```
pub trait GradientPairs: Sources {
    /// Appends each leaf with its gradient taken from `grads`, the result of a gradient
    /// with respect to `self`.
    ///
    /// # Panics
    /// If `grads` does not have `self`'s structure (a `Vec` of another length, a map
    /// missing a key).
    fn pair_leaves(&self, grads: &Self::Output, out: &mut Vec<Leaf>);
}

/// A variable's value, read without any tape seeing it (a diagnostic is not a model).
fn read_quietly<T: Float>(var: &Variable<T>) -> Tensor<T> {
    if any_recording() {
        without_recording(|| var.value())
    } else {
        var.value()
    }
}

impl<T: Float> GradientPairs for Variable<T> {
    fn pair_leaves(&self, grads: &Option<Tensor<T>>, out: &mut Vec<Leaf>) {
        out.push(Leaf {
            name: self.name().to_string(),
            value: read_quietly(self).into(),
            gradient: grads.clone().map(AnyTensor::from),
        });
    }
}

impl<T: Float> GradientPairs for Tensor<T> {
    fn pair_leaves(&self, grads: &Option<Tensor<T>>, out: &mut Vec<Leaf>) {
        out.push(Leaf {
            name: format!("#{}", out.len()),
            value: self.clone().into(),
            gradient: grads.clone().map(AnyTensor::from),
        });
    }
}

impl<S: GradientPairs + ?Sized> GradientPairs for &S {
    fn pair_leaves(&self, grads: &S::Output, out: &mut Vec<Leaf>) {
        (**self).pair_leaves(grads, out);
    }
}

impl<S: GradientPairs, const N: usize> GradientPairs for [S; N] {
    fn pair_leaves(&self, grads: &[S::Output; N], out: &mut Vec<Leaf>) {
        self.iter()
            .zip(grads)
            .for_each(|(s, g)| s.pair_leaves(g, out));
    }
}

impl<S: GradientPairs> GradientPairs for [S] {
    #[track_caller]
    fn pair_leaves(&self, grads: &Vec<S::Output>, out: &mut Vec<Leaf>) {
        assert!(
            self.len() == grads.len(),
            "GradientPairs: {} sources but {} gradients",
            self.len(),
            grads.len()
        );
        self.iter()
            .zip(grads)
            .for_each(|(s, g)| s.pair_leaves(g, out));
    }
}

impl<S: GradientPairs> GradientPairs for Vec<S> {
    #[track_caller]
    fn pair_leaves(&self, grads: &Vec<S::Output>, out: &mut Vec<Leaf>) {
        self.as_slice().pair_leaves(grads, out);
    }
}

impl<K: Clone + Eq + Hash, S: GradientPairs, H: BuildHasher + Default> GradientPairs
    for HashMap<K, S, H>
{
    #[track_caller]
    fn pair_leaves(&self, grads: &HashMap<K, S::Output, H>, out: &mut Vec<Leaf>) {
        // The tape lists a map's leaves in the sources map's own order.
        for (k, s) in self {
            let g = grads
                .get(k)
                .expect("GradientPairs: the gradients lack a key of the sources");
            s.pair_leaves(g, out);
        }
    }
}

impl<K: Clone + Ord, S: GradientPairs> GradientPairs for BTreeMap<K, S> {
    #[track_caller]
    fn pair_leaves(&self, grads: &BTreeMap<K, S::Output>, out: &mut Vec<Leaf>) {
        for (k, s) in self {
            let g = grads
                .get(k)
                .expect("GradientPairs: the gradients lack a key of the sources");
            s.pair_leaves(g, out);
        }
    }
}

macro_rules! tuple_pairs {
    ($($name:ident $grad:ident),+) => {
        impl<$($name: GradientPairs),+> GradientPairs for ($($name,)+) {
            #[allow(non_snake_case)]
            fn pair_leaves(&self, grads: &Self::Output, out: &mut Vec<Leaf>) {
                let ($($name,)+) = self;
                let ($($grad,)+) = grads;
                $($name.pair_leaves($grad, out);)+
            }
        }
    };
}

tuple_pairs!(A a);
tuple_pairs!(A a, B b);
tuple_pairs!(A a, B b, C c);
tuple_pairs!(A a, B b, C c, D d);
tuple_pairs!(A a, B b, C c, D d, E e);
tuple_pairs!(A a, B b, C c, D d, E e, F f);
tuple_pairs!(A a, B b, C c, D d, E e, F f, G g);
tuple_pairs!(A a, B b, C c, D d, E e, F f, G g, H h);

/// Sums over one tensor's elements, from one pass.
#[derive(Clone, Copy, Default)]
struct Sums {
    squares: f64,
    total: f64,
    max_abs: f64,
    zeros: usize,
    nan: usize,
    infinite: usize,
    len: usize,
}

/// Independent accumulators per sum: sixteen lanes, four SSE registers of f32, so that a
/// sweep over a block vectorises and no addition waits for the one before it.
const LANES: usize = 16;

/// Elements each lane sums within one block. A block is summed in lanes of the tensor's own
/// type `T`, and each block's lane sums are then added into `f64` lanes.
///
/// Why f32 lanes for f32 tensors: they take four elements per SSE instruction with no
/// conversion (f64 lanes take two, after converting), more than twice the speed.
///
/// Why blocks: a lane's sum of 16 positive f32 terms (squares) is within 16·2⁻²⁴ ≈ 9.5e-7
/// relative of the exact sum, so a norm (its square root) is within 4.8e-7 relative,
/// whatever the tensor's length; the `f64` lanes then add the blocks with an error of order
/// 1e-16 per block. Likewise a sum of mixed signs (for the mean) is within 16·2⁻²⁴·Σ|v|.
/// The f32 lanes can overflow or underflow where f64 would not: [`accurate_in_lanes`] says
/// when, and then the tensor is summed again in `f64` lanes.
const PER_LANE: usize = 16;

/// Elements per block: 256 (1 KiB of f32), read from memory once and swept twice while it
/// sits in the L1 cache.
const BLOCK: usize = LANES * PER_LANE;

/// Whether `T` is narrower than `f64` (sums in its lanes may need a second, `f64` pass).
fn narrower_than_f64<T: Float>() -> bool {
    DType::to_f64(T::epsilon()) > f64::EPSILON
}

/// Whether a sum of squares taken in `T` lanes is as accurate as [`PER_LANE`] promises:
/// finite (no square or partial sum overflowed `T`; NaN and infinite elements are then
/// counted from the `f64` pass) and at least twice `terms` times `T`'s smallest normal
/// number. Below that, a square may have been rounded to a subnormal or to zero: each such
/// square is off by at most half the smallest subnormal, `terms` of them by at most 2⁻²⁵
/// relative of a sum that large.
fn accurate_in_lanes<T: Float>(squares: f64, terms: usize) -> bool {
    squares.is_finite() && squares >= 2.0 * terms as f64 * DType::to_f64(T::min_positive_value())
}

/// The last elements of a tensor, under [`LANES`], followed by zeros: so that every lane
/// loop runs over whole chunks (a shorter last loop makes LLVM keep the lanes apart, and
/// shuffle them together again on every chunk). Zeros leave sums of squares, sums and
/// maxima of |v| unchanged; a count of zeros takes them off again ([`sums_in`]).
fn padded<T: Float>(rest: &[T]) -> [T; LANES] {
    let mut chunk = [T::zero(); LANES];
    chunk[..rest.len()].copy_from_slice(rest);
    chunk
}

/// Two running reductions of `block`, lane by lane: `first` and `second` fold each element,
/// converted to `A`, into the lane of its position modulo [`LANES`] (the last partial chunk
/// [`padded`] with zeros). One sweep per pair: with two reductions in the loop, LLVM
/// vectorises it cleanly (with four, its SLP vectoriser shuffles lanes between registers
/// and spills).
#[inline(always)]
fn fold_lanes<T: Float, A: Float>(
    block: &[T],
    first: impl Fn(A, A) -> A,
    second: impl Fn(A, A) -> A,
) -> ([A; LANES], [A; LANES]) {
    let mut a = [A::zero(); LANES];
    let mut b = [A::zero(); LANES];
    let mut fold = |chunk: &[T; LANES]| {
        for ((a, b), &v) in a.iter_mut().zip(&mut b).zip(chunk) {
            let v = A::from_f64(DType::to_f64(v));
            *a = first(*a, v);
            *b = second(*b, v);
        }
    };
    let (chunks, rest) = block.as_chunks::<LANES>();
    chunks.iter().for_each(&mut fold);
    if !rest.is_empty() {
        fold(&padded(rest));
    }
    (a, b)
}

/// Σv², Σv, max |v| and the count of zeros of `values`, in one pass over memory: block by
/// block ([`BLOCK`]), two branch-free sweeps per block (the maximum and the zero count are
/// selects: `maxps` and a compare-and-mask), each element converted to `A` and summed in `A`
/// lanes, each block's lanes added into `f64` lanes.
fn sums_in<T: Float, A: Float>(values: &[T]) -> Sums {
    let mut squares = [0.0_f64; LANES];
    let mut total = [0.0_f64; LANES];
    let mut zeros = [0.0_f64; LANES];
    let mut max_abs = [0.0_f64; LANES];
    for block in values.chunks(BLOCK) {
        let (block_squares, block_total) =
            fold_lanes::<T, A>(block, |s, v| s + v * v, |s, v| s + v);
        let (block_max, block_zeros) = fold_lanes::<T, A>(
            block,
            // NaN compares false: never taken as the maximum (NaN makes the sum of
            // squares NaN: counted in `sums_of`)
            |m, v| if v.abs() > m { v.abs() } else { m },
            // at most PER_LANE per lane: exact in any float type
            |z, v| z + if v == A::zero() { A::one() } else { A::zero() },
        );
        for k in 0..LANES {
            squares[k] += DType::to_f64(block_squares[k]);
            total[k] += DType::to_f64(block_total[k]);
            zeros[k] += DType::to_f64(block_zeros[k]);
            let m = DType::to_f64(block_max[k]);
            max_abs[k] = if m > max_abs[k] { m } else { max_abs[k] };
        }
    }
    Sums {
        squares: squares.iter().sum(),
        total: total.iter().sum(),
        max_abs: max_abs.iter().copied().fold(0.0, f64::max),
        // less the zeros of the padding
        zeros: zeros.iter().sum::<f64>() as usize - (LANES - values.len() % LANES) % LANES,
        len: values.len(),
        ..Sums::default()
    }
}

/// `Σv²` alone (a weight's norm), in `A` lanes block by block as [`sums_in`].
fn squares_in<T: Float, A: Float>(values: &[T]) -> f64 {
    let mut squares = [0.0_f64; LANES];
    for block in values.chunks(BLOCK) {
        let mut block_squares = [A::zero(); LANES];
        let mut fold = |chunk: &[T; LANES]| {
            for (s, &v) in block_squares.iter_mut().zip(chunk) {
                let v = A::from_f64(DType::to_f64(v));
                *s += v * v;
            }
        };
        let (chunks, rest) = block.as_chunks::<LANES>();
        chunks.iter().for_each(&mut fold);
        if !rest.is_empty() {
            fold(&padded(rest));
        }
        for (s, &b) in squares.iter_mut().zip(&block_squares) {
            *s += DType::to_f64(b);
        }
    }
    squares.iter().sum()
}

/// The elements of `t` in a contiguous slice (a copy only for a non-standard layout).
fn with_values<T: Float, R>(t: &Tensor<T>, f: impl FnOnce(&[T]) -> R) -> R {
    let view = t.view();
    match view.as_slice() {
        Some(values) => f(values),
        None => f(&view.iter().copied().collect::<Vec<_>>()),
    }
}

/// The sums of a gradient: one pass in `T` lanes, and a second in `f64` lanes only when the
/// first may be inaccurate (see [`accurate_in_lanes`]: overflow, non-finite elements,
/// squares below `T`'s normal range).
fn sums_of<T: Float>(t: &Tensor<T>) -> Sums {
    with_values(t, |values| {
        let mut s = sums_in::<T, T>(values);
        if narrower_than_f64::<T>() && !accurate_in_lanes::<T>(s.squares, s.len - s.zeros) {
            s = sums_in::<T, f64>(values);
        }
        // A sum of squares is finite exactly when every element is: count only then.
        if !s.squares.is_finite() {
            s.nan = values.iter().filter(|v| v.is_nan()).count();
            s.infinite = values.iter().filter(|v| v.is_infinite()).count();
        }
        s
    })
}

/// `Σwᵢ²`, as [`sums_of`] takes it: in `T` lanes, again in `f64` lanes when needed (an
/// all-zero weight, a fresh bias, takes the second pass: it is small).
fn squares_of<T: Float>(t: &Tensor<T>) -> f64 {
    with_values(t, |values| {
        let squares = squares_in::<T, T>(values);
        if narrower_than_f64::<T>() && !accurate_in_lanes::<T>(squares, values.len()) {
            squares_in::<T, f64>(values)
        } else {
            squares
        }
    })
}

fn weight_norm(t: &AnyTensor) -> f64 {
    match t {
        AnyTensor::F32(t) => squares_of(t).sqrt(),
        AnyTensor::F64(t) => squares_of(t).sqrt(),
    }
}

fn sums_of_any(t: &AnyTensor) -> Sums {
    match t {
        AnyTensor::F32(t) => sums_of(t),
        AnyTensor::F64(t) => sums_of(t),
    }
}

/// The statistics of one gradient tensor.
///
/// ```
/// use gradtape_nn::diagnostics::GradientSummary;
/// use gradtape_runtime::Tensor;
/// let g = Tensor::from_vec(vec![3.0_f32, -4.0, 0.0, 0.0], &[4]);
/// let w = Tensor::from_vec(vec![1.0_f32, 0.0, 0.0, 0.0], &[4]);
/// let s = GradientSummary::new(&g.into(), &w.into(), 0.1);
/// // ‖g‖ = sqrt(9 + 16) = 5, mean = -1/4, two zeros of four, 0.1·5 / ‖w‖ = 0.5
/// assert_eq!((s.norm, s.max_abs, s.mean, s.zero_fraction), (5.0, 4.0, -0.25, 0.5));
/// assert_eq!(s.update_ratio, Some(0.5));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GradientSummary {
    /// `‖g‖₂ = sqrt(Σ gᵢ²)`; NaN or infinite when an element is.
    pub norm: f64,
    /// `max |gᵢ|` over the elements that are not NaN.
    pub max_abs: f64,
    /// The mean of the elements.
    pub mean: f64,
    /// The fraction of elements exactly zero.
    pub zero_fraction: f64,
    /// How many elements are NaN.
    pub nan: usize,
    /// How many elements are infinite.
    pub infinite: usize,
    /// `learning_rate · ‖g‖ / ‖w‖`, the relative size of a plain gradient step; `None`
    /// when the weight is all zeros (a freshly initialised bias), where no ratio exists.
    pub update_ratio: Option<f64>,
}

impl GradientSummary {
    /// The statistics of `gradient`, for a weight `value` and a `learning_rate`.
    ///
    /// ```
    /// use gradtape_nn::diagnostics::GradientSummary;
    /// use gradtape_runtime::Tensor;
    /// let g = Tensor::from_vec(vec![f64::NAN, f64::INFINITY, 1.0], &[3]);
    /// let s = GradientSummary::new(&g.into(), &Tensor::<f64>::ones(&[3]).into(), 1.0);
    /// assert_eq!((s.nan, s.infinite, s.max_abs), (1, 1, f64::INFINITY));
    /// assert!(s.norm.is_nan() && !s.is_finite());
    /// ```
    pub fn new(gradient: &AnyTensor, value: &AnyTensor, learning_rate: f64) -> GradientSummary {
        GradientSummary::with_weight_norm(gradient, weight_norm(value), learning_rate)
    }

    fn with_weight_norm(gradient: &AnyTensor, w_norm: f64, learning_rate: f64) -> GradientSummary {
        let g = sums_of_any(gradient);
        let norm = g.squares.sqrt();
        let len = g.len.max(1) as f64;
        GradientSummary {
            norm,
            max_abs: g.max_abs,
            mean: g.total / len,
            zero_fraction: g.zeros as f64 / len,
            nan: g.nan,
            infinite: g.infinite,
            update_ratio: (w_norm > 0.0).then(|| learning_rate * norm / w_norm),
        }
    }

    /// Whether every element is finite.
    pub fn is_finite(&self) -> bool {
        self.nan + self.infinite == 0
    }
}

/// One variable's (or source tensor's) gradient statistics.
///
/// ```
/// use gradtape_nn::diagnostics::GradientStats;
/// use gradtape_runtime::{Tensor, Variable};
/// let w = Variable::with_name("w", Tensor::from_vec(vec![3.0_f32, 4.0], &[2]));
/// let stats = GradientStats::new(&[&w], &[None], 0.01);
/// let w_stats = &stats.variables()[0];
/// assert_eq!((w_stats.name.as_str(), w_stats.weight_norm), ("w", 5.0));
/// assert!(w_stats.gradient.is_none()); // reported as missing, never as zero
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VariableStats {
    /// The variable's name (`#i` for the `i`-th source when it is a tensor).
    pub name: String,
    /// Its shape.
    pub shape: Vec<usize>,
    /// `‖w‖₂` before the update.
    pub weight_norm: f64,
    /// The gradient's statistics; `None` when the gradient is `None` (the target does not
    /// depend on the variable: see `GradientTape::explain`).
    pub gradient: Option<GradientSummary>,
}

/// Per-variable gradient statistics of one step, and the global norm.
///
/// ```
/// use gradtape_nn::diagnostics::GradientStats;
/// use gradtape_runtime::{GradientTape, Variable};
/// let (w1, w2) = (Variable::with_name("w1", 5.0_f32), Variable::with_name("w2", 3.0_f32));
/// let tape = GradientTape::new();
/// let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
/// let grads = tape.gradient(&z, [&w1, &w2]).unwrap();
/// let stats = GradientStats::new(&[&w1, &w2], &grads, 0.01);
/// // ∂z/∂w1 = 6·w1 + 2·w2 = 36, ∂z/∂w2 = 2·w1 = 10: global norm sqrt(36² + 10²)
/// assert!((stats.global_norm() - (1396.0_f64).sqrt()).abs() < 1e-9);
/// // update ratio of w1: 0.01 · 36 / 5
/// let ratio = stats.get("w1").unwrap().gradient.as_ref().unwrap().update_ratio.unwrap();
/// assert!((ratio - 0.072).abs() < 1e-12);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GradientStats {
    variables: Vec<VariableStats>,
    global_norm: f64,
    learning_rate: f64,
}

impl GradientStats {
    /// The statistics of `grads`, the result of a gradient with respect to `sources`, for
    /// an optimizer step with `learning_rate` (for the update ratio). Call it before the
    /// optimizer applies the gradients: `‖w‖` is read from the variables as they are.
    ///
    /// # Panics
    /// If `grads` does not have the structure of `sources`.
    #[track_caller]
    pub fn new<S: GradientPairs + ?Sized>(
        sources: &S,
        grads: &S::Output,
        learning_rate: f64,
    ) -> GradientStats {
        let mut leaves = Vec::new();
        sources.pair_leaves(grads, &mut leaves);
        GradientStats::from_leaves(&leaves, learning_rate)
    }

    /// The statistics of leaves already paired with their gradients.
    ///
    /// ```
    /// use gradtape_nn::diagnostics::{GradientStats, Leaf};
    /// use gradtape_runtime::Tensor;
    /// let leaf = Leaf {
    ///     name: "w".into(),
    ///     value: Tensor::scalar(2.0_f64).into(),
    ///     gradient: Some(Tensor::scalar(-1.0_f64).into()),
    /// };
    /// assert_eq!(GradientStats::from_leaves(&[leaf], 1.0).global_norm(), 1.0);
    /// ```
    pub fn from_leaves(leaves: &[Leaf], learning_rate: f64) -> GradientStats {
        let variables: Vec<VariableStats> = leaves
            .iter()
            .map(|leaf| {
                let w_norm = weight_norm(&leaf.value);
                VariableStats {
                    name: leaf.name.clone(),
                    shape: leaf.value.shape().to_vec(),
                    weight_norm: w_norm,
                    gradient: leaf
                        .gradient
                        .as_ref()
                        .map(|g| GradientSummary::with_weight_norm(g, w_norm, learning_rate)),
                }
            })
            .collect();
        let global_norm = variables
            .iter()
            .filter_map(|v| v.gradient.as_ref())
            .map(|g| g.norm * g.norm)
            .sum::<f64>()
            .sqrt();
        GradientStats {
            variables,
            global_norm,
            learning_rate,
        }
    }

    /// Each variable's statistics, in the order of the sources.
    pub fn variables(&self) -> &[VariableStats] {
        &self.variables
    }

    /// The first variable named `name`.
    pub fn get(&self, name: &str) -> Option<&VariableStats> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// `sqrt(Σ ‖gₖ‖²)` over the gradients that are not `None` (`tf.linalg.global_norm`).
    pub fn global_norm(&self) -> f64 {
        self.global_norm
    }

    /// The learning rate the update ratios were computed for.
    pub fn learning_rate(&self) -> f64 {
        self.learning_rate
    }

    /// The variables whose gradient is `None`.
    ///
    /// ```
    /// use gradtape_nn::diagnostics::GradientStats;
    /// use gradtape_runtime::{Tensor, Variable};
    /// let (a, b) = (Variable::with_name("a", 1.0_f32), Variable::with_name("b", 1.0_f32));
    /// let stats = GradientStats::new(&[&a, &b], &[Some(Tensor::scalar(1.0)), None], 0.1);
    /// assert_eq!(stats.missing().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["b"]);
    /// ```
    pub fn missing(&self) -> impl Iterator<Item = &VariableStats> {
        self.variables.iter().filter(|v| v.gradient.is_none())
    }
}

/// Sigmoid outputs below this, or above `1 -` this, are saturated: there
/// `σ'(x) = y(1 - y) < 0.0099`, under 4% of its peak of 0.25.
pub const SIGMOID_SATURATION: f64 = 0.01;

/// Tanh outputs with `|y|` above this are saturated: there `tanh'(x) = 1 - y² < 0.0199`,
/// under 2% of its peak of 1.
pub const TANH_SATURATION: f64 = 0.99;

/// Whether an activation's derivative is zero or nearly at output `y`: ReLU at `y = 0`,
/// sigmoid and tanh in saturation (see [`SIGMOID_SATURATION`], [`TANH_SATURATION`]).
/// `None` for activations with no flat region (linear, softmax).
///
/// ```
/// use gradtape_nn::Activation;
/// use gradtape_nn::diagnostics::is_flat;
/// assert_eq!(is_flat(Activation::Relu, 0.0), Some(true));
/// assert_eq!(is_flat(Activation::Sigmoid, 0.995), Some(true));
/// assert_eq!(is_flat(Activation::Tanh, -0.5), Some(false));
/// assert_eq!(is_flat(Activation::Linear, 0.0), None);
/// ```
#[inline]
pub fn is_flat(activation: Activation, y: f64) -> Option<bool> {
    match activation {
        Activation::Relu => Some(y <= 0.0),
        Activation::Sigmoid => Some(!(SIGMOID_SATURATION..=1.0 - SIGMOID_SATURATION).contains(&y)),
        Activation::Tanh => Some(y.abs() > TANH_SATURATION),
        Activation::Linear | Activation::Softmax => None,
    }
}

/// One layer's activation statistics over a batch.
///
/// ```
/// use gradtape_nn::Activation;
/// use gradtape_nn::diagnostics::ActivationStats;
/// use gradtape_runtime::Tensor;
/// // two examples, three ReLU units: unit 0 is zero for both, unit 1 for one
/// let y = Tensor::from_vec(vec![0.0_f32, 0.0, 1.0, 0.0, 2.0, 3.0], &[2, 3]);
/// let s = ActivationStats::new("hidden", Activation::Relu, &y);
/// assert_eq!((s.units, s.batch), (3, 2));
/// assert_eq!(s.flat_fraction, Some(0.5)); // 3 zeros of 6 outputs
/// assert_eq!(s.dead_fraction, Some(1.0 / 3.0)); // unit 0
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ActivationStats {
    /// The layer's name.
    pub layer: String,
    /// Its activation.
    pub activation: Activation,
    /// Units (the size of the last axis).
    pub units: usize,
    /// Examples (the product of the other axes).
    pub batch: usize,
    /// The fraction of outputs (examples × units) where the activation is flat (see
    /// [`is_flat`]); `None` for an activation with no flat region.
    pub flat_fraction: Option<f64>,
    /// The fraction of units flat for every example of the batch: dead ReLU units,
    /// saturated sigmoid or tanh units. They pass no gradient back for this batch.
    pub dead_fraction: Option<f64>,
}

impl ActivationStats {
    /// The statistics of a layer's post-activation `output`, `[batch, units]` (or any
    /// rank: the last axis is the units).
    pub fn new<T: Float>(layer: &str, activation: Activation, output: &Tensor<T>) -> Self {
        let units = output.shape().last().copied().unwrap_or(1);
        let batch = output.len().checked_div(units).unwrap_or(0);
        let (flat_fraction, dead_fraction) = match is_flat(activation, 0.0) {
            None => (None, None),
            Some(_) => {
                let (flat, dead) = flat_counts(activation, output, units);
                (
                    Some(flat as f64 / output.len().max(1) as f64),
                    Some(dead as f64 / units.max(1) as f64),
                )
            }
        };
        ActivationStats {
            layer: layer.to_string(),
            activation,
            units,
            batch,
            flat_fraction,
            dead_fraction,
        }
    }

    /// The statistics of each layer output that
    /// [`Layer::call_with_activations`](crate::Layer::call_with_activations) collected.
    pub fn of_layers<T: Float>(outputs: &[LayerOutput<T>]) -> Vec<ActivationStats> {
        outputs
            .iter()
            .map(|o| ActivationStats::new(&o.layer, o.activation, &o.output))
            .collect()
    }
}

/// How many outputs are flat, and how many units are flat for every example.
fn flat_counts<T: Float>(
    activation: Activation,
    output: &Tensor<T>,
    units: usize,
) -> (usize, usize) {
    // Each arm passes `is_flat` with a constant activation: once inlined, its `match` folds
    // away and the loop holds only the comparisons, so the definition stays in one place.
    with_values(output, |values| match activation {
        Activation::Relu => count_flat(values, units, |y| is_flat(Activation::Relu, y)),
        Activation::Sigmoid => count_flat(values, units, |y| is_flat(Activation::Sigmoid, y)),
        Activation::Tanh => count_flat(values, units, |y| is_flat(Activation::Tanh, y)),
        Activation::Linear | Activation::Softmax => (0, 0),
    })
}

/// [`flat_counts`] for one activation's test `flat` on row-major `[batch, units]` values:
/// one pass row by row, each row folding its flat outputs into a count and its units that
/// are not flat into a per-unit mask (no column is walked, nothing branches per element).
#[inline(always)]
fn count_flat<T: Float>(
    values: &[T],
    units: usize,
    flat: impl Fn(f64) -> Option<bool>,
) -> (usize, usize) {
    if values.is_empty() {
        return (0, 0);
    }
    // alive[u]: unit u is not flat for some example so far
    let mut alive = vec![false; units];
    let mut flat_count = 0;
    for row in values.chunks_exact(units) {
        let mut row_flat = 0_u32;
        for (alive, &y) in alive.iter_mut().zip(row) {
            let is_flat = flat(DType::to_f64(y)) == Some(true);
            row_flat += u32::from(is_flat);
            *alive |= !is_flat;
        }
        flat_count += row_flat as usize;
    }
    let dead = alive.iter().filter(|a| !**a).count();
    (flat_count, dead)
}
