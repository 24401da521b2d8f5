//! Shape ops: `reshape`, `transpose`, `concat`, `slice` and `gather` along an axis (with
//! `scatter_add`, gather's transpose). Their rules move cotangents back without arithmetic.

use std::rc::Rc;
use std::sync::Arc;

use ndarray::{ArrayD, Axis, IxDyn, Slice};
use smallvec::{SmallVec, smallvec};

use super::{check_axis, static_rule};
use crate::base::context::{batch_rank, batched_shape};
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Data, Reshaped, Stored, Tensor, TensorId, same_shape};
use crate::record::forward::Tangents;
use crate::record::node::{Dims, InputGrads, Params};
use crate::record::stack::{self, NodeSpec};

/// `x`'s elements, in row-major order, under `shape` (of the same size): sharing the
/// buffer when it is in row-major order already, else a copy in that order.
fn reshaped_data<T: Float>(x: &Tensor<T>, shape: &[usize]) -> Data<T> {
    let stored = match x.data_clone() {
        Data::Scalar(v) => return Data::from_array(ArrayD::from_elem(IxDyn(shape), v.get())),
        Data::Array(a) => a,
    };
    // back to a reshape's base's own shape: the base itself (it is in standard layout)
    let base = Stored::storage(&stored);
    if !Arc::ptr_eq(base, &stored) && same_shape(base.shape(), shape) {
        return Data::Array(Arc::clone(base));
    }
    // (a 0-d result is stored inline by `from_array`, never shared)
    if !shape.is_empty()
        && let Some(shared) = Reshaped::new(&stored, shape)
    {
        return Data::Array(Arc::new(Stored::Reshaped(shared)));
    }
    Data::from_array(
        stored
            .view()
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(shape))
            .expect("count checked"),
    )
}

impl<T: Float> Tensor<T> {
    /// The same elements, in row-major order, with a new shape.
    ///
    /// O(1) when the elements are stored in row-major order (any tensor an op computed,
    /// except a `transpose` or `permute` of 2 or more axes): the result shares them, as
    /// tensors are immutable. Otherwise they are copied into that order.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// let y = x.reshape(&[3, 2]);
    /// assert_eq!(y.shape(), &[3, 2]);
    /// assert_eq!(y.to_vec(), x.to_vec());
    /// ```
    ///
    /// # Panics
    /// If the element counts differ.
    #[track_caller]
    pub fn reshape(&self, shape: &[usize]) -> Tensor<T> {
        let from = self.shape();
        if same_shape(from, shape) {
            return self.clone();
        }
        let count = crate::base::tensor::checked_len::<T>("reshape", shape);
        assert!(
            count == self.len(),
            "reshape: cannot reshape a tensor of shape {from:?} ({} elements) to {shape:?} ({count} elements)",
            self.len()
        );
        let data = reshaped_data(self, shape);
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "reshape",
            // reshaping back is its own transpose
            rule: static_rule(|ctx, g| {
                let Params::Dims(shape) = ctx.params else {
                    unreachable!()
                };
                smallvec![Some(g.reshape_any(&batched_shape(g.shape(), shape)))]
            }),
            saved: smallvec![],
            params: Params::Dims(from.into()),
        };
        // linear: the tangent, reshaped the same way
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(|t| t.reshape(shape));
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// Permutes the axes: axis `i` of the result is axis `perm[i]` of this tensor.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::<f32>::zeros(&[2, 3, 4]);
    /// assert_eq!(x.permute(&[2, 0, 1]).shape(), &[4, 2, 3]);
    /// ```
    ///
    /// # Panics
    /// If `perm` is not a permutation of `0..rank`.
    #[track_caller]
    pub fn permute(&self, perm: &[usize]) -> Tensor<T> {
        let rank = self.rank();
        let mut seen = vec![false; rank];
        let valid = perm.len() == rank
            && perm
                .iter()
                .all(|&p| p < rank && !std::mem::replace(&mut seen[p], true));
        assert!(
            valid,
            "permute: {perm:?} is not a permutation of the axes of shape {:?}",
            self.shape()
        );
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return self.clone();
        }
        let data = Data::from_array(
            self.view()
                .permuted_axes(IxDyn(perm))
                .as_standard_layout()
                .into_owned(),
        );
        let mut inverse: Dims = smallvec![0; rank];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i;
        }
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "permute",
            // the transpose of a permutation is its inverse
            rule: static_rule(|ctx, g| {
                let Params::Dims(inverse) = ctx.params else {
                    unreachable!()
                };
                // batch axes stay in front, in place
                let k = batch_rank();
                let inverse: Dims = (0..k).chain(inverse.iter().map(|&p| p + k)).collect();
                let inverse = &inverse;
                smallvec![Some(match g {
                    AnyTensor::F32(g) => AnyTensor::F32(g.permute(inverse)),
                    AnyTensor::F64(g) => AnyTensor::F64(g.permute(inverse)),
                })]
            }),
            saved: smallvec![],
            params: Params::Dims(inverse),
        };
        // linear: the tangent, permuted the same way
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(|t| t.permute(perm));
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// Swaps the last two axes (the matrix transpose, batched over leading axes).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// let t = x.transpose();
    /// assert_eq!(t.shape(), &[3, 2]);
    /// assert_eq!(t.to_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    /// ```
    ///
    /// # Panics
    /// If the tensor has fewer than 2 axes.
    #[track_caller]
    pub fn transpose(&self) -> Tensor<T> {
        let rank = self.rank();
        assert!(
            rank >= 2,
            "transpose: needs at least 2 axes, got shape {:?}",
            self.shape()
        );
        let mut perm: Dims = (0..rank).collect();
        perm.swap(rank - 2, rank - 1);
        self.permute(&perm)
    }

    /// Joins tensors along `axis`; all other axes must agree.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let a = Tensor::from_vec(vec![1.0_f32, 2.0], &[1, 2]);
    /// let b = Tensor::from_vec(vec![3.0_f32, 4.0, 5.0, 6.0], &[2, 2]);
    /// assert_eq!(Tensor::concat(&[&a, &b], 0).shape(), &[3, 2]);
    /// ```
    ///
    /// # Panics
    /// If `tensors` is empty, `axis` is out of range, or the other axes differ.
    #[track_caller]
    pub fn concat(tensors: &[&Tensor<T>], axis: usize) -> Tensor<T> {
        assert!(!tensors.is_empty(), "concat: needs at least one tensor");
        let first = tensors[0].shape();
        check_axis("concat", axis, first);
        for t in tensors {
            let s = t.shape();
            let compatible = s.len() == first.len()
                && s.iter()
                    .zip(first)
                    .enumerate()
                    .all(|(i, (a, b))| i == axis || a == b);
            assert!(
                compatible,
                "concat: shapes {first:?} and {s:?} differ outside axis {axis}"
            );
        }
        let views: Vec<_> = tensors.iter().map(|t| t.view()).collect();
        let joined = concat_blocks(&views, axis)
            .unwrap_or_else(|| ndarray::concatenate(Axis(axis), &views).expect("shapes checked"));
        let sizes: Dims = tensors.iter().map(|t| t.shape()[axis]).collect();
        let ids: SmallVec<[TensorId; 2]> = tensors.iter().map(|t| t.id()).collect();
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "concat",
            // each input's cotangent is its slice of the output's
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(sizes, axis) = ctx.params else {
                    unreachable!()
                };
                let mut start = 0;
                let grads: InputGrads = sizes
                    .iter()
                    .zip(ctx.needs)
                    .map(|(&len, &need)| {
                        let piece = need.then(|| g.slice_any(axis + batch_rank(), start, len));
                        start += len;
                        piece
                    })
                    .collect();
                grads
            }),
            saved: smallvec![],
            params: Params::DimsAxis(sizes, axis),
        };
        // linear: the tangents joined the same way (zeros for an input without one)
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            let parts: Vec<Tensor<T>> = (0..t.len())
                .map(|k| match t.of::<T>(k) {
                    Some(t) => t.clone(),
                    None => Tensor::zeros(tensors[k].shape()),
                })
                .collect();
            let parts: Vec<&Tensor<T>> = parts.iter().collect();
            Some(Tensor::concat(&parts, axis))
        };
        stack::record(Data::from_array(joined), &ids, spec, &jvp)
    }

    /// Elements `start..start + len` along `axis`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    /// assert_eq!(x.slice(0, 1, 2).to_vec(), vec![3.0, 4.0, 5.0, 6.0]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range or the range exceeds the axis.
    #[track_caller]
    pub fn slice(&self, axis: usize, start: usize, len: usize) -> Tensor<T> {
        let shape = self.shape();
        check_axis("slice", axis, shape);
        match start.checked_add(len) {
            Some(end) => assert!(
                end <= shape[axis],
                "slice: range {start}..{end} exceeds axis {axis} of shape {shape:?}"
            ),
            None => {
                panic!("slice: range {start}..{start}+{len} exceeds axis {axis} of shape {shape:?}")
            }
        }
        let view = self.view();
        let piece = slice_blocks(&view, axis, start, len).unwrap_or_else(|| {
            view.slice_axis(Axis(axis), Slice::from(start..start + len))
                .to_owned()
        });
        let mut params: Dims = shape.into();
        params.push(start);
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "slice",
            // the cotangent goes back to the slice's place, zeros elsewhere
            rule: static_rule(|ctx, g| {
                let Params::DimsAxis(shape_and_start, axis) = ctx.params else {
                    unreachable!()
                };
                let (shape, start) = shape_and_start.split_at(shape_and_start.len() - 1);
                let shape = batched_shape(g.shape(), shape);
                smallvec![Some(g.pad_any(axis + batch_rank(), start[0], &shape))]
            }),
            saved: smallvec![],
            params: Params::DimsAxis(params, axis),
        };
        // linear: the same slice of the tangent
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(|t| t.slice(axis, start, len));
        stack::record(Data::from_array(piece), &[self.id()], spec, &jvp)
    }

    /// Places this tensor at `start` along `axis` of a zero tensor of shape `shape`: the
    /// transpose of [`slice`](Self::slice).
    fn pad_into(&self, axis: usize, start: usize, shape: &[usize]) -> Tensor<T> {
        let len = self.shape()[axis];
        let (before, after) = (start, shape[axis] - start - len);
        let zeros = |n: usize| {
            let mut s: Dims = shape.into();
            s[axis] = n;
            Tensor::<T>::zeros(&s)
        };
        match (before, after) {
            (0, 0) => self.clone(),
            (0, _) => Tensor::concat(&[self, &zeros(after)], axis),
            (_, 0) => Tensor::concat(&[&zeros(before), self], axis),
            _ => Tensor::concat(&[&zeros(before), self, &zeros(after)], axis),
        }
    }

    /// Picks the entries `indices` along `axis` (repeats allowed): TensorFlow's `gather`.
    /// The indices are a list (`&[usize]`, an array, a `Vec`) or an integer tensor of any
    /// shape ([`GatherIndices`]), which replaces the axis: the result has shape
    /// `shape[..axis] ++ indices.shape ++ shape[axis + 1..]`, as TensorFlow's. So the class
    /// indices [`argmax_axis`](Tensor::argmax_axis) returns pick rows directly.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    /// assert_eq!(x.gather(0, &[2, 0]).to_vec(), vec![5.0, 6.0, 1.0, 2.0]);
    /// // indices from a tensor: the class of each row, used to pick rows of a table
    /// let scores = Tensor::from_vec(vec![0.1_f32, 0.9, 0.8, 0.2], &[2, 2]);
    /// let classes = scores.argmax_axis(1); // [1, 0], i64
    /// assert_eq!(x.gather(0, &classes).to_vec(), vec![3.0, 4.0, 1.0, 2.0]);
    /// // a 2-d index tensor replaces the axis with its two
    /// let grid = Tensor::from_vec(vec![0_i64, 2, 1, 1], &[2, 2]);
    /// assert_eq!(x.gather(0, &grid).shape(), &[2, 2, 2]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range, or an index is negative or exceeds the axis.
    #[track_caller]
    pub fn gather(&self, axis: usize, indices: impl GatherIndices) -> Tensor<T> {
        check_axis("gather", axis, self.shape());
        let (list, index_shape) = indices.to_list(self.shape()[axis]);
        let picked = self.gather_list(axis, &list);
        if index_shape.len() == 1 {
            return picked;
        }
        let shape = self.shape();
        let mut out_shape: Vec<usize> = shape[..axis].to_vec();
        out_shape.extend_from_slice(&index_shape);
        out_shape.extend_from_slice(&shape[axis + 1..]);
        picked.reshape(&out_shape)
    }

    /// [`gather`](Self::gather) of a list of indices, checked: the recorded op.
    #[track_caller]
    fn gather_list(&self, axis: usize, indices: &[usize]) -> Tensor<T> {
        let shape = self.shape();
        check_axis("gather", axis, shape);
        if let Some(&bad) = indices.iter().find(|&&i| i >= shape[axis]) {
            panic!("gather: index {bad} is out of range for axis {axis} of shape {shape:?}");
        }
        let view = self.view();
        let picked =
            gather_blocks(&view, axis, indices).unwrap_or_else(|| view.select(Axis(axis), indices));
        let params = Params::Gather {
            indices: Rc::from(indices),
            axis,
            shape: shape.into(),
        };
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "gather",
            // the transpose of gathering is adding each cotangent back at its index
            rule: static_rule(|ctx, g| {
                let Params::Gather {
                    indices,
                    axis,
                    shape,
                } = ctx.params
                else {
                    unreachable!()
                };
                let (len, axis) = (shape[*axis], axis + batch_rank());
                smallvec![Some(match g {
                    AnyTensor::F32(g) => AnyTensor::F32(g.scatter_add(axis, indices, len)),
                    AnyTensor::F64(g) => AnyTensor::F64(g.scatter_add(axis, indices, len)),
                })]
            }),
            saved: smallvec![],
            params,
        };
        // linear: the same entries of the tangent
        let jvp =
            |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(|t| t.gather_list(axis, indices));
        stack::record(Data::from_array(picked), &[self.id()], spec, &jvp)
    }

    /// Adds slice `k` along `axis` of this tensor into slice `indices[k]` of a zero tensor
    /// whose `axis` has length `len`: the transpose of [`gather`](Self::gather).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let g = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3]);
    /// assert_eq!(g.scatter_add(0, &[1, 1, 0], 3).to_vec(), vec![3.0, 3.0, 0.0]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range, `indices` does not match its length, or an index is
    /// not below `len`.
    #[track_caller]
    pub fn scatter_add(&self, axis: usize, indices: &[usize], len: usize) -> Tensor<T> {
        let shape = self.shape();
        check_axis("scatter_add", axis, shape);
        assert!(
            indices.len() == shape[axis],
            "scatter_add: {} indices for axis {axis} of shape {shape:?}",
            indices.len()
        );
        let mut out_shape: Dims = shape.into();
        out_shape[axis] = len;
        if let Some(&index) = indices.iter().find(|&&i| i >= len) {
            panic!(
                "scatter_add: index {index} is out of range for an output of shape {out_shape:?} (axis {axis}), from shape {shape:?}"
            );
        }
        let view = self.view();
        let out = scatter_add_blocks(&view, axis, indices, len).unwrap_or_else(|| {
            let mut out = ArrayD::<T>::zeros(IxDyn(&out_shape));
            for (k, &index) in indices.iter().enumerate() {
                let mut target = out.index_axis_mut(Axis(axis), index);
                target += &view.index_axis(Axis(axis), k);
            }
            out
        });
        let params = Params::Gather {
            indices: Rc::from(indices),
            axis,
            shape: out_shape,
        };
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "scatter_add",
            // the transpose of scatter-adding is gathering
            rule: static_rule(|ctx, g| {
                let Params::Gather { indices, axis, .. } = ctx.params else {
                    unreachable!()
                };
                let axis = &(axis + batch_rank());
                smallvec![Some(match g {
                    AnyTensor::F32(g) => AnyTensor::F32(g.gather_list(*axis, indices)),
                    AnyTensor::F64(g) => AnyTensor::F64(g.gather_list(*axis, indices)),
                })]
            }),
            saved: smallvec![],
            params,
        };
        // linear: the tangent, scatter-added the same way
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            t.of::<T>(0).map(|t| t.scatter_add(axis, indices, len))
        };
        stack::record(Data::from_array(out), &[self.id()], spec, &jvp)
    }
}

/// Elements `start..start + len` along `axis` of a row-major array, copied as contiguous
/// blocks (one per index of the axes before `axis`) rather than element by element through
/// a strided `IxDyn` view: slicing an inner axis is what a jacobian's batched sweep does to
/// every concatenation's cotangent. `None` if the array is not in row-major layout.
fn slice_blocks<T: Clone>(
    view: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
    start: usize,
    len: usize,
) -> Option<ArrayD<T>> {
    let data = view.as_slice()?;
    let shape = view.shape();
    let inner: usize = shape[axis + 1..].iter().product();
    let (row, block) = (shape[axis] * inner, len * inner);
    let mut out = Vec::with_capacity(data.len() / shape[axis].max(1) * len);
    if row > 0 {
        for chunk in data.chunks_exact(row) {
            out.extend_from_slice(&chunk[start * inner..start * inner + block]);
        }
    }
    let mut out_shape: Dims = shape.into();
    out_shape[axis] = len;
    Some(ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("sizes match"))
}

/// Entries `indices` along `axis` of a row-major array (every index checked in range), as
/// one contiguous block copy per index and index of the axes before `axis`: ndarray's
/// `select` builds a view per index and concatenates them (det's gathers of many short
/// rows spent most of their time there; docs/PERFORMANCE.md). `None` if the array is not
/// in row-major layout.
fn gather_blocks<T: Clone>(
    view: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
    indices: &[usize],
) -> Option<ArrayD<T>> {
    let data = view.as_slice()?;
    let shape = view.shape();
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let row = shape[axis] * inner;
    let mut out = Vec::with_capacity(outer * indices.len() * inner);
    for o in 0..outer {
        let chunk = &data[o * row..(o + 1) * row];
        for &index in indices {
            out.extend_from_slice(&chunk[index * inner..(index + 1) * inner]);
        }
    }
    let mut out_shape: Dims = shape.into();
    out_shape[axis] = indices.len();
    Some(ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("sizes match"))
}

/// [`Tensor::scatter_add`] of a row-major array (every index checked below `len`) by
/// contiguous blocks, see [`gather_blocks`]. Each output element receives its addends in
/// the order of `indices`, starting from zero, as the view-by-view loop it replaces, so the
/// sums are the same to the bit. `None` if the array is not in row-major layout.
fn scatter_add_blocks<T: Float>(
    view: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
    indices: &[usize],
    len: usize,
) -> Option<ArrayD<T>> {
    let data = view.as_slice()?;
    let shape = view.shape();
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let (row_in, row_out) = (indices.len() * inner, len * inner);
    let mut out = vec![T::zero(); outer * row_out];
    for o in 0..outer {
        let from = &data[o * row_in..(o + 1) * row_in];
        let to = &mut out[o * row_out..(o + 1) * row_out];
        for (k, &index) in indices.iter().enumerate() {
            let target = &mut to[index * inner..(index + 1) * inner];
            for (t, &f) in target.iter_mut().zip(&from[k * inner..(k + 1) * inner]) {
                *t += f;
            }
        }
    }
    let mut out_shape: Dims = shape.into();
    out_shape[axis] = len;
    Some(ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("sizes match"))
}

/// Concatenation of row-major arrays along `axis` as contiguous block copies (see
/// [`slice_blocks`]); `None` if one of them is not in row-major layout.
fn concat_blocks<T: Clone>(views: &[ndarray::ArrayViewD<'_, T>], axis: usize) -> Option<ArrayD<T>> {
    let slices: Vec<&[T]> = views.iter().map(|v| v.as_slice()).collect::<Option<_>>()?;
    let shape = views[0].shape();
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let blocks: Vec<usize> = views.iter().map(|v| v.shape()[axis] * inner).collect();
    let mut out = Vec::with_capacity(slices.iter().map(|s| s.len()).sum());
    for o in 0..outer {
        for (data, &block) in slices.iter().zip(&blocks) {
            out.extend_from_slice(&data[o * block..(o + 1) * block]);
        }
    }
    let mut out_shape: Dims = shape.into();
    out_shape[axis] = views.iter().map(|v| v.shape()[axis]).sum();
    Some(ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("sizes match"))
}

impl AnyTensor {
    pub(crate) fn slice_any(&self, axis: usize, start: usize, len: usize) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(t.slice(axis, start, len)),
            AnyTensor::F64(t) => AnyTensor::F64(t.slice(axis, start, len)),
        }
    }

    fn pad_any(&self, axis: usize, start: usize, shape: &[usize]) -> AnyTensor {
        match self {
            AnyTensor::F32(t) => AnyTensor::F32(t.pad_into(axis, start, shape)),
            AnyTensor::F64(t) => AnyTensor::F64(t.pad_into(axis, start, shape)),
        }
    }
}

/// Indices for [`Tensor::gather`]: a list (`&[usize]`, `&[usize; N]`, `&Vec<usize>`) or an
/// integer tensor of any shape (`&Tensor<i64>`, as
/// [`argmax_axis`](Tensor::argmax_axis) returns, `&Tensor<i32>`, `&Tensor<u8>`). Sealed: the
/// runtime checks the indices, so it alone implements it.
///
/// ```
/// use gradtape_runtime::Tensor;
/// let x = Tensor::from_vec(vec![10.0_f64, 20.0, 30.0], &[3]);
/// let picks = vec![2, 2, 0];
/// assert_eq!(x.gather(0, &picks).to_vec(), vec![30.0, 30.0, 10.0]);
/// let picks = Tensor::from_vec(vec![1_i32], &[1]);
/// assert_eq!(x.gather(0, &picks).to_vec(), vec![20.0]);
/// ```
pub trait GatherIndices: sealed::IndexList {}

impl<I: sealed::IndexList> GatherIndices for I {}

mod sealed {
    use std::borrow::Cow;

    use crate::base::dtype::DType;
    use crate::base::tensor::Tensor;

    /// The indices as a list, each checked against the axis length `len`, and the shape
    /// they came in (`[n]` for a list).
    pub trait IndexList {
        #[track_caller]
        fn to_list(&self, len: usize) -> (Cow<'_, [usize]>, Vec<usize>);
    }

    impl IndexList for &[usize] {
        fn to_list(&self, _: usize) -> (Cow<'_, [usize]>, Vec<usize>) {
            (Cow::Borrowed(*self), vec![self.len()])
        }
    }

    impl<const N: usize> IndexList for &[usize; N] {
        fn to_list(&self, _: usize) -> (Cow<'_, [usize]>, Vec<usize>) {
            (Cow::Borrowed(&self[..]), vec![N])
        }
    }

    impl IndexList for &Vec<usize> {
        fn to_list(&self, _: usize) -> (Cow<'_, [usize]>, Vec<usize>) {
            (Cow::Borrowed(&self[..]), vec![self.len()])
        }
    }

    /// An integer tensor's elements as indices: each must be a whole number in `0..len`.
    #[track_caller]
    fn tensor_list<I: DType>(t: &Tensor<I>, len: usize) -> (Cow<'static, [usize]>, Vec<usize>) {
        let list = t
            .view()
            .iter()
            .map(|&v| {
                let index = v.to_f64();
                if !(index >= 0.0 && index < len as f64) {
                    panic!(
                        "gather: index {v} (of an index tensor of shape {:?}) is out of range \
                         for an axis of length {len}",
                        t.shape()
                    );
                }
                index as usize
            })
            .collect();
        (Cow::Owned(list), t.shape().to_vec())
    }

    impl IndexList for &Tensor<i64> {
        fn to_list(&self, len: usize) -> (Cow<'_, [usize]>, Vec<usize>) {
            tensor_list(self, len)
        }
    }

    impl IndexList for &Tensor<i32> {
        fn to_list(&self, len: usize) -> (Cow<'_, [usize]>, Vec<usize>) {
            tensor_list(self, len)
        }
    }

    impl IndexList for &Tensor<u8> {
        fn to_list(&self, len: usize) -> (Cow<'_, [usize]>, Vec<usize>) {
            tensor_list(self, len)
        }
    }
}
