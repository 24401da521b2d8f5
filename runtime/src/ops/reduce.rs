//! Reductions (`sum`, `mean`, `max`, over all elements or one axis, with or without kept
//! dimensions) and their transposes `broadcast_to` / `sum_to_shape`, which also serve every
//! broadcasting binary op's backward rule; and the cumulative sum `cumsum`, whose transpose
//! is the cumulative sum the other way.

use ndarray::{Axis, IxDyn};
use smallvec::smallvec;

use super::{check_axis, constant, static_rule, sum_tangents};
use crate::base::context::{batch_rank, batched_shape};
use crate::base::dtype::{AnyTensor, Float};
use crate::base::primal::Primal;
use crate::base::tensor::{Data, DataRef, Tensor, same_shape};
use crate::record::forward::Tangents;
use crate::record::node::{Dims, Params};
use crate::record::stack::{self, NodeSpec};

/// `Params::DimsAxis` axis value meaning "all axes".
const ALL_AXES: usize = usize::MAX;

/// The shape a reduction over `axis` (or all axes) has with kept dimensions.
fn kept_shape(input: &[usize], axis: usize) -> Dims {
    input
        .iter()
        .enumerate()
        .map(|(i, &d)| if axis == ALL_AXES || i == axis { 1 } else { d })
        .collect()
}

impl<T: Float> Tensor<T> {
    /// The sum of all elements, as a scalar.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.sum().to_scalar(), 10.0);
    /// ```
    #[track_caller]
    pub fn sum(&self) -> Tensor<T> {
        self.record_sum(Data::scalar(self.sum_all()), ALL_AXES)
    }

    /// The sum of all elements, on a contiguous slice when there is one (no allocation).
    fn sum_all(&self) -> T {
        match self.data() {
            DataRef::Scalar(v) => v.get(),
            DataRef::Array(a) => match a.as_slice() {
                Some(values) => sum_slice(values),
                None => a.view().sum(),
            },
        }
    }

    /// The sum along `axis`; `keep_dims` keeps it with length 1.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.sum_axis(0, false).to_vec(), vec![4.0, 6.0]);
    /// assert_eq!(x.sum_axis(1, true).shape(), &[2, 1]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn sum_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("sum_axis", axis, self.shape());
        let mut summed = self.view().sum_axis(Axis(axis));
        if keep_dims {
            summed.insert_axis_inplace(Axis(axis));
        }
        self.record_sum(Data::from_array(summed), axis)
    }

    #[track_caller]
    fn record_sum(&self, data: Data<T>, axis: usize) -> Tensor<T> {
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "sum",
            // d/dxᵢ Σ x = 1: the cotangent is spread back over the summed axes
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(shape, axis) = ctx.params else {
                    unreachable!()
                };
                smallvec![Some(spread_reduced(g, shape, *axis))]
            }),
            saved: smallvec![],
            params: Params::DimsAxis(self.shape().into(), axis),
        };
        // linear: the same sum of the tangent
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            t.of::<T>(0)
                .map(|t| reduced_like(t, axis, out, Tensor::sum, Tensor::sum_axis))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// One node for `sum · (1/n)`, rather than a sum node and a product node.
    #[track_caller]
    fn record_mean(&self, data: Data<T>, axis: usize) -> Tensor<T> {
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "mean",
            // d/dxᵢ (Σ x / n) = 1/n: the scaled cotangent is spread back over the axes
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(shape, axis) = ctx.params else {
                    unreachable!()
                };
                let n: usize = if *axis == ALL_AXES {
                    shape.iter().product()
                } else {
                    shape[*axis]
                };
                // scaled before spreading: the product costs one element, not n
                let g = g.scale_any(1.0 / n as f64);
                smallvec![Some(spread_reduced(&g, shape, *axis))]
            }),
            saved: smallvec![],
            params: Params::DimsAxis(self.shape().into(), axis),
        };
        // linear: the same mean of the tangent
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            t.of::<T>(0)
                .map(|t| reduced_like(t, axis, out, Tensor::mean, Tensor::mean_axis))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// The mean of all elements, as a scalar.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.mean().to_scalar(), 2.5);
    /// ```
    #[track_caller]
    pub fn mean(&self) -> Tensor<T> {
        // mean x = Σ x · (1/n), rounded as `x.sum() * (1/n)` would be
        let scale = T::from_f64(1.0 / self.len() as f64);
        self.record_mean(Data::scalar(self.sum_all() * scale), ALL_AXES)
    }

    /// The mean along `axis`; `keep_dims` keeps it with length 1.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.mean_axis(1, false).to_vec(), vec![1.5, 3.5]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn mean_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        let n = self.shape()[check_axis("mean_axis", axis, self.shape())];
        let scale = T::from_f64(1.0 / n as f64);
        let mut summed = self.view().sum_axis(Axis(axis));
        summed.mapv_inplace(|v| v * scale);
        if keep_dims {
            summed.insert_axis_inplace(Axis(axis));
        }
        self.record_mean(Data::from_array(summed), axis)
    }

    /// The largest element, as a scalar. The gradient is split evenly between tied maxima
    /// (as TensorFlow's `reduce_max`). The maximum of no elements is `-inf`, the identity of
    /// `max`, as in TensorFlow; its gradient is empty.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 4.0, 3.0], &[3]);
    /// assert_eq!(x.max().to_scalar(), 4.0);
    /// assert_eq!(Tensor::<f32>::zeros(&[0]).max().to_scalar(), f32::NEG_INFINITY);
    /// ```
    #[track_caller]
    pub fn max(&self) -> Tensor<T> {
        let top = match self.data() {
            DataRef::Scalar(v) => larger(T::neg_infinity(), v.get()),
            DataRef::Array(a) => match a.as_slice() {
                Some(values) => max_slice(values),
                None => max_in_order(a.view().iter()),
            },
        };
        self.record_max(Data::scalar(top), ALL_AXES)
    }

    /// The largest elements along `axis`; `keep_dims` keeps it with length 1. Along an
    /// empty axis the maximum is `-inf`, as in TensorFlow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 4.0, 3.0, 2.0], &[2, 2]);
    /// assert_eq!(x.max_axis(1, false).to_vec(), vec![4.0, 3.0]);
    /// let none = Tensor::<f32>::zeros(&[2, 0]).max_axis(1, false);
    /// assert_eq!(none.to_vec(), vec![f32::NEG_INFINITY; 2]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn max_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("max_axis", axis, self.shape());
        let mut top = self
            .view()
            .fold_axis(Axis(axis), T::neg_infinity(), |&m, &v| larger(m, v));
        if keep_dims {
            top.insert_axis_inplace(Axis(axis));
        }
        self.record_max(Data::from_array(top), axis)
    }

    #[track_caller]
    fn record_max(&self, data: Data<T>, axis: usize) -> Tensor<T> {
        let spec = |out: &Tensor<T>| NodeSpec {
            op: "max",
            // d max x / dxᵢ = [xᵢ = max] / #ties
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(shape, axis) = ctx.params else {
                    unreachable!()
                };
                let (x, out) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
                let weights = tie_weights(x, out, shape, *axis);
                let g = g.typed::<T>();
                // the product broadcasts `g` along the reduced axes (no spread copy of it)
                let g = g.reshape(&batched_shape(g.shape(), &kept_shape(shape, *axis)));
                debug_assert_eq!(
                    &super::broadcast_shapes("max", g.shape(), weights.shape())[..],
                    &batched_shape(g.shape(), shape)[..]
                );
                smallvec![Some(T::into_any(g * weights))]
            }),
            saved: smallvec![T::into_any(self.clone()), T::into_any(out.clone())],
            params: Params::DimsAxis(self.shape().into(), axis),
        };
        // the transpose of the rule: the tangent averaged over the tied maxima
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            t.of::<T>(0).map(|t| {
                let weights = tie_weights(self, out, self.shape(), axis);
                reduced_like(&(t * &weights), axis, out, Tensor::sum, Tensor::sum_axis)
            })
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// Repeats this tensor along broadcast axes to `shape` (NumPy broadcasting rules).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let b = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    /// assert_eq!(b.broadcast_to(&[2, 2]).to_vec(), vec![1.0, 2.0, 1.0, 2.0]);
    /// ```
    ///
    /// # Panics
    /// If this shape does not broadcast to `shape`.
    #[track_caller]
    pub fn broadcast_to(&self, shape: &[usize]) -> Tensor<T> {
        if same_shape(self.shape(), shape) {
            return self.clone();
        }
        let data = match spread_contiguous(self.data(), shape) {
            Some(data) => data,
            None => {
                let view = self.view();
                let Some(spread) = view.broadcast(IxDyn(shape)) else {
                    panic!(
                        "broadcast_to: shape {:?} cannot be broadcast to {:?}",
                        self.shape(),
                        shape
                    )
                };
                Data::from_array(spread.to_owned())
            }
        };
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "broadcast_to",
            // the transpose of broadcasting is summing over the broadcast axes
            rule: static_rule(|ctx, g| {
                let Params::Dims(shape) = ctx.params else {
                    unreachable!()
                };
                smallvec![Some(g.sum_to_any(shape))]
            }),
            saved: smallvec![],
            params: Params::Dims(self.shape().into()),
        };
        // linear: the tangent, broadcast the same way
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(|t| t.broadcast_to(shape));
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// Sums this tensor down to `shape`, the inverse of [`broadcast_to`](Self::broadcast_to):
    /// over leading axes `shape` lacks and over axes where `shape` has length 1.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.sum_to_shape(&[2]).to_vec(), vec![4.0, 6.0]);
    /// assert_eq!(x.sum_to_shape(&[2, 1]).to_vec(), vec![3.0, 7.0]);
    /// ```
    ///
    /// # Panics
    /// If `shape` does not broadcast to this tensor's shape.
    #[track_caller]
    pub fn sum_to_shape(&self, shape: &[usize]) -> Tensor<T> {
        let from = self.shape();
        if same_shape(from, shape) {
            return self.clone();
        }
        if shape.is_empty() {
            return self.sum();
        }
        assert!(
            from.len() >= shape.len(),
            "sum_to_shape: shape {from:?} cannot be summed to {shape:?}"
        );
        let fast = match self.data() {
            DataRef::Array(a) => match a.own() {
                Some(own) => sum_contiguous(own, shape),
                None => sum_contiguous(&a.view(), shape),
            },
            DataRef::Scalar(_) => None,
        };
        // a `match`, not `unwrap_or_else`: a closure would hide the caller's line from
        // `sum_general`'s panic
        let data = match fast {
            Some(data) => data,
            None => sum_general(self, shape),
        };
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "sum_to_shape",
            // the transpose of summing over axes is broadcasting along them
            rule: static_rule(|ctx, g| {
                let Params::Dims(shape) = ctx.params else {
                    unreachable!()
                };
                smallvec![Some(spread_batched(g, shape))]
            }),
            saved: smallvec![],
            params: Params::Dims(from.into()),
        };
        // linear: the tangent, summed the same way
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(|t| t.sum_to_shape(shape));
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// [`sum_to_shape`](Self::sum_to_shape) for a cotangent in a backward sweep: sums to
    /// `shape` behind the sweep's leading batch axes (see `tape::jacobian`), which it keeps.
    #[track_caller]
    pub(crate) fn sum_to_batched(&self, shape: &[usize]) -> Tensor<T> {
        let k = batch_rank();
        if k == 0 {
            return self.sum_to_shape(shape);
        }
        let from = self.shape();
        let target = batched_shape(from, shape);
        if from.len() == target.len() && from == &target[..] {
            return self.clone();
        }
        // Pad `shape` with ones to the cotangent's rank so that the batch axes line up
        // with themselves, not with `shape`'s leading axes; then drop the padding.
        let inner = from.len() - k;
        assert!(
            inner >= shape.len(),
            "sum_to_shape: shape {from:?} cannot be summed to {shape:?} behind {k} batch axes"
        );
        let mut padded: Dims = from[..k].into();
        padded.extend(std::iter::repeat_n(1, inner - shape.len()));
        padded.extend_from_slice(shape);
        self.sum_to_shape(&padded).reshape(&target)
    }
}

impl<T: Float> Tensor<T> {
    /// Cumulative sums along `axis` (TensorFlow's `cumsum`): element `i` is the sum of the
    /// elements up to and including `i`, or before `i` if `exclusive` (the first is then
    /// 0); `reverse` sums from the end of the axis instead.
    ///
    /// Linear, so its gradient is the cumulative sum of the cotangent in the other
    /// direction (recorded, so higher orders follow).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// assert_eq!(x.cumsum(1, false, false).to_vec(), vec![1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
    /// assert_eq!(x.cumsum(1, true, false).to_vec(), vec![0.0, 1.0, 3.0, 0.0, 4.0, 9.0]);
    /// assert_eq!(x.cumsum(1, false, true).to_vec(), vec![6.0, 5.0, 3.0, 15.0, 11.0, 6.0]);
    /// assert_eq!(x.cumsum(0, false, false).to_vec(), vec![1.0, 2.0, 3.0, 5.0, 7.0, 9.0]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn cumsum(&self, axis: usize, exclusive: bool, reverse: bool) -> Tensor<T> {
        check_axis("cumsum", axis, self.shape());
        let mut out = self.view().to_owned();
        for mut lane in out.lanes_mut(Axis(axis)) {
            let n = lane.len();
            let mut total = T::ZERO;
            for k in 0..n {
                let i = if reverse { n - 1 - k } else { k };
                let v = lane[i];
                if exclusive {
                    lane[i] = total;
                    total += v;
                } else {
                    total += v;
                    lane[i] = total;
                }
            }
        }
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "cumsum",
            // the transpose of summing up to i is summing from i on: the other direction
            rule: static_rule(|ctx, g| {
                let Params::Scan {
                    axis,
                    exclusive,
                    reverse,
                } = *ctx.params
                else {
                    unreachable!()
                };
                let axis = axis + batch_rank();
                smallvec![Some(match g {
                    AnyTensor::F32(g) => AnyTensor::F32(g.cumsum(axis, exclusive, !reverse)),
                    AnyTensor::F64(g) => AnyTensor::F64(g.cumsum(axis, exclusive, !reverse)),
                })]
            }),
            saved: smallvec![],
            params: Params::Scan {
                axis,
                exclusive,
                reverse,
            },
        };
        // linear: the same cumulative sum of the tangent
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            t.of::<T>(0).map(|t| t.cumsum(axis, exclusive, reverse))
        };
        stack::record(Data::from_array(out), &[self.id()], spec, &jvp)
    }
}

/// `Σᵢ xᵢ yᵢ` over two tensors of one shape, as a 0-d tensor: `(x * y).sum()` without the
/// product array, rounded as that would round it (each product, then ndarray's order of
/// additions). The cotangent of a scalar weight against an array (`a * x`) is one. Inputs
/// not both contiguous fall back to that product and sum, recorded as such.
#[track_caller]
pub(crate) fn dot_all<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> Tensor<T> {
    debug_assert!(same_shape(x.shape(), y.shape()), "dot_all: shapes differ");
    let slices = match (x.data(), y.data()) {
        (DataRef::Scalar(_), _) | (_, DataRef::Scalar(_)) => None,
        (a, b) => a.as_slice().zip(b.as_slice()),
    };
    let Some((p, q)) = slices else {
        return (x * y).sum();
    };
    let data = Data::scalar(dot_slices(p, q));
    let spec = |_: &Tensor<T>| NodeSpec {
        op: "dot",
        // ∂(Σ x y)/∂x = y, ∂(Σ x y)/∂y = x, times the (possibly batched) cotangent
        rule: static_rule(|ctx, g| {
            let (x, y, g) = (
                ctx.saved[0].typed::<T>(),
                ctx.saved[1].typed::<T>(),
                g.typed::<T>(),
            );
            // a 0-d cotangent broadcasts as it is; batch axes go first, then ones so that
            // the cotangent broadcasts over x's axes
            let g = if batch_rank() == 0 {
                g.clone()
            } else {
                let ones: Dims = smallvec![1; x.rank()];
                g.reshape(&batched_shape(g.shape(), &ones))
            };
            smallvec![
                ctx.needs[0].then(|| T::into_any(&g * y)),
                ctx.needs[1].then(|| T::into_any(&g * x)),
            ]
        }),
        saved: smallvec![T::into_any(x.clone()), T::into_any(y.clone())],
        params: Params::None,
    };
    // bilinear: d(Σ x y) = Σ dx y + Σ x dy
    let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
        let dx = t.of::<T>(0).map(|dx| dot_all(dx, y));
        let dy = t.of::<T>(1).map(|dy| dot_all(x, dy));
        sum_tangents(dx, dy, out.shape())
    };
    stack::record(data, &[x.id(), y.id()], spec, &jvp)
}

/// The reduction of a tangent `t` over `axis` (or all axes) by `all` or `along`, in the
/// shape of the primal's result `out` (which has the kept dimension or not).
fn reduced_like<T: Float>(
    t: &Tensor<T>,
    axis: usize,
    out: &Tensor<T>,
    all: fn(&Tensor<T>) -> Tensor<T>,
    along: fn(&Tensor<T>, usize, bool) -> Tensor<T>,
) -> Tensor<T> {
    let reduced = if axis == ALL_AXES {
        all(t)
    } else {
        along(t, axis, false)
    };
    reduced.reshape(out.shape())
}

/// `Σ pᵢ qᵢ` with the partial sums of [`sum_slice`], so equal to summing the products.
fn dot_slices<T: Float>(p: &[T], q: &[T]) -> T {
    let mut partial = [T::ZERO; 8];
    let (mut ps, mut qs) = (p.chunks_exact(8), q.chunks_exact(8));
    for (pc, qc) in (&mut ps).zip(&mut qs) {
        for ((acc, &a), &b) in partial.iter_mut().zip(pc).zip(qc) {
            *acc += a * b;
        }
    }
    let mut acc = T::ZERO;
    for i in 0..4 {
        acc += partial[i] + partial[i + 4];
    }
    ps.remainder()
        .iter()
        .zip(qs.remainder())
        .fold(acc, |acc, (&a, &b)| acc + a * b)
}

/// A reduction's cotangent spread back over the reduced axes (`axis`, or all of them) of
/// `shape`, behind the sweep's batch axes: the transpose of summing.
fn spread_reduced(g: &AnyTensor, shape: &[usize], axis: usize) -> AnyTensor {
    if axis == ALL_AXES && batch_rank() == 0 {
        // a 0-d cotangent broadcasts as it is: no reshape to all-ones first
        return g.broadcast_any(shape);
    }
    let (kept, full) = (
        batched_shape(g.shape(), &kept_shape(shape, axis)),
        batched_shape(g.shape(), shape),
    );
    g.reshape_any(&kept).broadcast_any(&full)
}

/// [`Tensor::sum_to_shape`] by axis-by-axis `sum_axis`, for any layout.
#[track_caller]
fn sum_general<T: Float>(x: &Tensor<T>, shape: &[usize]) -> Data<T> {
    let from = x.shape();
    let lead = from.len() - shape.len();
    let mut summed = x.view().into_owned();
    for axis in (0..from.len()).rev() {
        let keep = axis >= lead && shape[axis - lead] == from[axis];
        if !keep {
            assert!(
                axis < lead || shape[axis - lead] == 1,
                "sum_to_shape: shape {from:?} cannot be summed to {shape:?}"
            );
            summed = summed.sum_axis(Axis(axis));
        }
    }
    Data::from_array(
        summed
            .into_shape_with_order(IxDyn(shape))
            .expect("same size"),
    )
}

/// [`Tensor::sum_to_shape`] on a standard-layout array whose target is one contiguous
/// block repeated (a bias's gradient: add the blocks up) or each of whose elements covers
/// one contiguous block (kept dimensions: sum each block), with no copy of the input.
/// Adds in the order `sum_axis` does for one summed axis. `None` for any other case.
fn sum_contiguous<T: Float, S: ndarray::Data<Elem = T>>(
    a: &ndarray::ArrayBase<S, IxDyn>,
    shape: &[usize],
) -> Option<Data<T>> {
    let xs = a.as_slice()?;
    let block: usize = shape.iter().product();
    if xs.is_empty() || block == 0 {
        return None;
    }
    let dim = IxDyn(shape);
    if super::is_trailing_part(shape, a.shape()) {
        let (first, rest) = xs.split_at(block);
        let mut out = first.to_vec();
        for chunk in rest.chunks_exact(block) {
            for (acc, &v) in out.iter_mut().zip(chunk) {
                *acc += v;
            }
        }
        Some(Data::from_vec(dim, out))
    } else if super::is_leading_part(shape, a.shape()) {
        let sums = xs.chunks_exact(xs.len() / block).map(sum_slice).collect();
        Some(Data::from_vec(dim, sums))
    } else {
        None
    }
}

/// Repeats a scalar, or a standard-layout array that is one contiguous block of `shape`
/// (a bias row) or whose elements each cover one contiguous block (kept dimensions), into
/// a new buffer of `shape`. `None` for other layouts and shapes, and for empty results.
#[track_caller]
fn spread_contiguous<T: Float>(data: DataRef<'_, T>, shape: &[usize]) -> Option<Data<T>> {
    let (from, xs) = match data {
        DataRef::Scalar(v) => return Some(Data::filled("broadcast_to", shape, v.get())),
        DataRef::Array(a) => (a.shape(), a.as_slice()?),
    };
    let len: usize = shape.iter().product();
    if xs.is_empty() || len == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(len);
    if super::is_trailing_part(from, shape) {
        for _ in 0..len / xs.len() {
            out.extend_from_slice(xs);
        }
    } else if super::is_leading_part(from, shape) {
        let block = len / xs.len();
        for &v in xs {
            out.extend(std::iter::repeat_n(v, block));
        }
    } else {
        return None;
    }
    Some(Data::from_vec(IxDyn(shape), out))
}

/// The sum of `values` in the order ndarray's `sum` adds a contiguous slice (eight
/// interleaved partial sums, so the loop vectorises), so results match it bit for bit.
fn sum_slice<T: Float>(values: &[T]) -> T {
    let mut partial = [T::ZERO; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        for (p, &v) in partial.iter_mut().zip(chunk) {
            *p += v;
        }
    }
    let mut acc = T::ZERO;
    for i in 0..4 {
        acc += partial[i] + partial[i + 4];
    }
    chunks.remainder().iter().fold(acc, |acc, &v| acc + v)
}

/// One step of a maximum's fold: `v` where it is larger than `m` or NaN, else `m`. Folded
/// from `-inf` in order, it gives the first of the largest elements (of `-0.0` and `0.0`,
/// whichever comes first), or the last NaN if there is one.
#[inline(always)]
fn larger<T: Float>(m: T, v: T) -> T {
    if v > m || v.is_nan() { v } else { m }
}

/// [`larger`] folded over `values` in order from `-inf`: the maximum as [`Tensor::max`]
/// defines it (which zero, which NaN).
fn max_in_order<'a, T: Float>(values: impl IntoIterator<Item = &'a T>) -> T {
    values
        .into_iter()
        .fold(T::neg_infinity(), |m, &v| larger(m, v))
}

/// [`max_in_order`] of `values`, with the same bits, eight lanes at a time so
/// that the loop vectorises (a fold in order is a chain of dependent selects, about 1 ns
/// per element).
///
/// The lanes' maximum is the fold's value except in two cases: a NaN (a lane that meets
/// one keeps it, but which NaN the fold returns depends on the order) and a zero (the
/// fold's sign is that of the first zero, which the lanes do not see). Both are rare and
/// both are seen in the lanes' result, so they take the fold in order. Otherwise all the
/// largest elements have the same bits, and any of them is the fold's.
fn max_slice<T: Float>(values: &[T]) -> T {
    const LANES: usize = 8;
    let mut lanes = [T::neg_infinity(); LANES];
    let mut chunks = values.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (m, &v) in lanes.iter_mut().zip(chunk) {
            *m = larger(*m, v);
        }
    }
    let top = lanes
        .into_iter()
        .chain(chunks.remainder().iter().copied())
        .fold(T::neg_infinity(), larger);
    if top.is_nan() || top == T::ZERO {
        return max_in_order(values);
    }
    top
}

/// Broadcasts a cotangent to `shape` behind the sweep's batch axes. Its own axes may be
/// fewer than `shape`'s (a sum over leading axes); they align with `shape`'s last ones.
fn spread_batched(g: &AnyTensor, shape: &[usize]) -> AnyTensor {
    let k = batch_rank();
    let inner = &g.shape()[k..];
    if k == 0 || inner.len() == shape.len() {
        return g.broadcast_any(&batched_shape(g.shape(), shape));
    }
    let padded: Dims = std::iter::repeat_n(1, shape.len() - inner.len())
        .chain(inner.iter().copied())
        .collect();
    g.reshape_any(&batched_shape(g.shape(), &padded))
        .broadcast_any(&batched_shape(g.shape(), shape))
}

/// `[xᵢ = max] / #ties` along the reduced axes: constant weights of the max's backward.
fn tie_weights<T: Float>(
    x: &Tensor<T>,
    out: &Tensor<T>,
    shape: &[usize],
    axis: usize,
) -> Tensor<T> {
    let kept = kept_shape(shape, axis);
    let out = out
        .view()
        .into_shape_with_order(IxDyn(&kept))
        .expect("same size")
        .to_owned();
    let x = x.view();
    // the ties at each kept position, counted in one pass (rows of `x` in order for an
    // axis, so a row-major array is read in memory order)
    let mut ties = ndarray::ArrayD::<usize>::zeros(IxDyn(&kept));
    if axis == ALL_AXES {
        let top = *out
            .first()
            .expect("the maximum of all elements is one number");
        ties.fill(x.iter().filter(|&&v| v == top).count());
    } else {
        let top = out.index_axis(Axis(axis), 0);
        let mut count = ties.index_axis_mut(Axis(axis), 0);
        for row in x.axis_iter(Axis(axis)) {
            ndarray::Zip::from(&mut count)
                .and(&row)
                .and(&top)
                .for_each(|c, &v, &m| *c += usize::from(v == m));
        }
    }
    // `[v = m] / ties`, as a 1 or 0 divided by the count (0 / 0 = NaN where the maximum is
    // NaN, which no element equals)
    let counts = ties.mapv(|c| T::from_f64(c as f64));
    let (out, counts) = (
        out.broadcast(IxDyn(shape)).expect("kept dims broadcast"),
        counts.broadcast(IxDyn(shape)).expect("kept dims broadcast"),
    );
    let weights = ndarray::Zip::from(&x)
        .and(&out)
        .and(&counts)
        .map_collect(|&v, &m, &c| if v == m { T::ONE } else { T::ZERO } / c);
    constant(weights)
}

impl AnyTensor {
    pub(crate) fn reshape_any(&self, shape: &[usize]) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(t.reshape(shape)),
            AnyTensor::F64(t) => AnyTensor::F64(t.reshape(shape)),
        }
    }

    /// `self · c`, recorded.
    fn scale_any(&self, c: f64) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(Primal::scale(t, c)),
            AnyTensor::F64(t) => AnyTensor::F64(Primal::scale(t, c)),
        }
    }

    pub(crate) fn broadcast_any(&self, shape: &[usize]) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(t.broadcast_to(shape)),
            AnyTensor::F64(t) => AnyTensor::F64(t.broadcast_to(shape)),
        }
    }

    /// Sums a cotangent to `shape` behind the sweep's batch axes.
    pub(crate) fn sum_to_any(&self, shape: &[usize]) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(t.sum_to_batched(shape)),
            AnyTensor::F64(t) => AnyTensor::F64(t.sum_to_batched(shape)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded stream of draws below a bound (xorshift64).
    fn draws(mut state: u64) -> impl FnMut(usize) -> usize {
        move |bound| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        }
    }

    /// Lengths around the lane count, values drawn from a few that tie, two zeros, two
    /// NaNs with different payloads, and ±∞: the lanes' result has the fold's bits on each.
    #[test]
    fn max_slice_has_the_bits_of_the_fold_in_order() {
        let nan_a = f64::from_bits(0x7FF8_0000_0000_0001);
        let nan_b = f64::from_bits(0xFFF8_0000_0000_0002);
        let pool = [
            -0.0,
            0.0,
            1.5,
            1.5,
            -2.0,
            f64::NEG_INFINITY,
            f64::INFINITY,
            nan_a,
            nan_b,
            -7.25,
            3.0,
        ];
        let mut next = draws(0x2545_F491_4F6C_DD1D_u64);
        let mut cases = 0;
        for len in 0..40 {
            for _ in 0..300 {
                // a narrower pool for some draws, so that zeros and ties decide the result
                let width = [2, 3, 6, pool.len()][next(4)];
                let values: Vec<f64> = (0..len).map(|_| pool[next(width)]).collect();
                let expected = max_in_order(&values);
                assert_eq!(
                    max_slice(&values).to_bits(),
                    expected.to_bits(),
                    "max of {values:?}"
                );
                let single: Vec<f32> = values.iter().map(|&v| v as f32).collect();
                assert_eq!(
                    max_slice(&single).to_bits(),
                    max_in_order(&single).to_bits(),
                    "max of {single:?}"
                );
                cases += 1;
            }
        }
        assert_eq!(cases, 40 * 300);
    }

    /// The weights as three passes compute them (a 0/1 mask, its sums along the axis, their
    /// quotient): the definition [`tie_weights`] computes in two.
    fn tie_weights_by_passes(
        x: &Tensor<f64>,
        out: &Tensor<f64>,
        shape: &[usize],
        axis: usize,
    ) -> ndarray::ArrayD<f64> {
        let kept = kept_shape(shape, axis);
        let out = out
            .view()
            .into_shape_with_order(IxDyn(&kept))
            .unwrap()
            .to_owned();
        let out = out.broadcast(IxDyn(shape)).unwrap();
        let is_max = ndarray::Zip::from(&x.view())
            .and(&out)
            .map_collect(|&v, &m| if v == m { 1.0 } else { 0.0 });
        let counts = if axis == ALL_AXES {
            ndarray::ArrayD::from_elem(IxDyn(&kept), is_max.sum())
        } else {
            is_max.sum_axis(Axis(axis)).insert_axis(Axis(axis))
        };
        is_max / &counts
    }

    /// `tie_weights` has the bits of the three-pass definition: every axis and all axes, of
    /// row-major and transposed arrays, with ties, both zeros, NaNs (whose weights are NaN)
    /// and infinities, and empty axes.
    #[test]
    fn tie_weights_have_the_bits_of_the_definition() {
        let pool = [0.0, -0.0, 1.0, 1.0, 2.0, f64::NAN, f64::NEG_INFINITY, -3.5];
        let mut next = draws(0x9E37_79B9_7F4A_7C15_u64);
        let shapes: [&[usize]; 7] = [&[], &[5], &[3, 4], &[4, 1], &[2, 3, 5], &[3, 0], &[0]];
        let mut cases = 0;
        for shape in shapes {
            for transposed in [false, true] {
                for _ in 0..20 {
                    let len = shape.iter().product();
                    let width = [2, 3, pool.len()][next(3)];
                    let values: Vec<f64> = (0..len).map(|_| pool[next(width)]).collect();
                    let x = Tensor::from_vec(values, shape);
                    let x = if transposed && shape.len() >= 2 {
                        x.transpose()
                    } else {
                        x
                    };
                    let shape = x.shape().to_vec();
                    let axes = (0..shape.len()).chain([ALL_AXES]);
                    for axis in axes {
                        let out = if axis == ALL_AXES {
                            x.max()
                        } else {
                            x.max_axis(axis, false)
                        };
                        let fast = tie_weights(&x, &out, &shape, axis).to_vec();
                        let slow = tie_weights_by_passes(&x, &out, &shape, axis);
                        let slow: Vec<f64> = slow.iter().copied().collect();
                        let bits = |v: &[f64]| v.iter().map(|w| w.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(&fast), bits(&slow), "{shape:?} axis {axis}: {x:?}");
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 400, "{cases}");
    }

    /// Named cases: the first zero's sign wins among zeros wherever the lanes put them, and
    /// the last NaN is returned.
    #[test]
    fn max_slice_keeps_the_first_zero_and_the_last_nan() {
        let mut zeros = vec![-1.0_f64; 20];
        zeros[9] = -0.0;
        zeros[3] = 0.0;
        assert_eq!(max_slice(&zeros).to_bits(), 0.0_f64.to_bits());
        zeros[3] = -0.0;
        zeros[9] = 0.0;
        assert_eq!(max_slice(&zeros).to_bits(), (-0.0_f64).to_bits());
        let first = f64::from_bits(0x7FF8_0000_0000_0001);
        let last = f64::from_bits(0x7FF8_0000_0000_0003);
        let mut nans = vec![2.0_f64; 17];
        nans[1] = last;
        nans[8] = first;
        nans[12] = last;
        assert_eq!(max_slice(&nans).to_bits(), last.to_bits());
        assert_eq!(max_slice::<f64>(&[]), f64::NEG_INFINITY);
    }
}
