//! Matrix multiplication, 2-D and batched (leading axes broadcast), TensorFlow's `x @ w`,
//! and `tf.linalg.matmul`'s `transpose_a`/`transpose_b` form, which the products' own
//! rules use so that no transposed copy is ever made: the kernel reads transposed strides.

use std::borrow::Cow;
use std::mem::MaybeUninit;

use ndarray::{Array2, ArrayD, ArrayView2, ArrayViewD, ArrayViewMut2, Ix2, IxDyn};
use smallvec::smallvec;

use super::{static_rule, sum_tangents, try_broadcast_shapes};
use crate::base::context::batch_rank;
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Data, Tensor};
use crate::record::forward::Tangents;
use crate::record::node::{InputGrads, Params, Rule, RuleCtx};
use crate::record::stack::{self, NodeSpec};
use crate::record::variable::Variable;

/// An operand of a product, by reference: a tensor, or a variable (whose value is read as
/// [`Variable::value`] reads it, so a tape sees the read). Only references implement it, so
/// `x.matmul(&w.transpose())` stays the natural spelling (an owned argument would let
/// clippy suggest dropping the `&`).
///
/// ```
/// use gradtape_runtime::{Tensor, Variable};
/// let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[1, 2]);
/// let w = Variable::new(Tensor::from_vec(vec![3.0_f32, 4.0], &[2, 1]));
/// assert_eq!(x.matmul(&w).to_vec(), x.matmul(&w.value()).to_vec());
/// ```
pub trait TensorRef<T: Float> {
    /// The tensor, borrowed when it is one.
    fn as_tensor(&self) -> Cow<'_, Tensor<T>>;
}

impl<T: Float> TensorRef<T> for &Tensor<T> {
    #[inline]
    fn as_tensor(&self) -> Cow<'_, Tensor<T>> {
        Cow::Borrowed(*self)
    }
}

impl<T: Float> TensorRef<T> for &Variable<T> {
    #[inline]
    fn as_tensor(&self) -> Cow<'_, Tensor<T>> {
        Cow::Owned(self.value())
    }
}

impl<T: Float> Tensor<T> {
    /// The matrix product over the last two axes, batched and broadcast over leading axes:
    /// `[..., m, k] @ [..., k, n] → [..., m, n]`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[1, 3]);
    /// let w = Tensor::from_vec(vec![1.0_f32, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]);
    /// assert_eq!(x.matmul(&w).to_vec(), vec![4.0, 5.0]);
    /// ```
    ///
    /// The right-hand side is a tensor or a variable ([`TensorRef`]), as for `&x * &w`:
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor, Variable};
    /// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[1, 2]);
    /// let w = Variable::new(Tensor::from_vec(vec![3.0_f64, 4.0], &[2, 1]));
    /// let tape = GradientTape::new();
    /// let y = tape.record(|| x.matmul(&w));
    /// assert_eq!(y.to_vec(), vec![11.0]);
    /// let dw = tape.gradient(&y, &w).unwrap().unwrap();
    /// assert_eq!(dw.to_vec(), vec![1.0, 2.0]);
    /// ```
    ///
    /// # Panics
    /// If either has fewer than 2 axes, the inner dimensions differ, or the batch axes do
    /// not broadcast; the message names both shapes.
    #[track_caller]
    pub fn matmul(&self, other: impl TensorRef<T>) -> Tensor<T> {
        self.matmul_transposed(other, false, false)
    }

    /// `op(self) @ op(other)` where `op` transposes the last two axes when its flag is set:
    /// TensorFlow's `tf.linalg.matmul(a, b, transpose_a, transpose_b)`. Same value as
    /// `self.transpose().matmul(other)` and the like, without the transposed copy: the
    /// product reads the operand's strides transposed.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    /// let y = Tensor::from_vec(vec![1.0_f64, 0.0, 2.0], &[3, 1]);
    /// // xᵀ @ y = [1·1 + 5·2, 2·1 + 6·2]
    /// assert_eq!(x.matmul_transposed(&y, true, false).to_vec(), vec![11.0, 14.0]);
    /// assert_eq!(
    ///     x.matmul_transposed(&x, true, false).to_vec(),
    ///     x.transpose().matmul(&x).to_vec()
    /// );
    /// ```
    ///
    /// # Panics
    /// As [`matmul`](Self::matmul), for the transposed shapes.
    #[track_caller]
    pub fn matmul_transposed(
        &self,
        other: impl TensorRef<T>,
        transpose_a: bool,
        transpose_b: bool,
    ) -> Tensor<T> {
        let other = &*other.as_tensor();
        let data = Data::from_array(matmul_values(self, other, transpose_a, transpose_b));
        let spec = |_: &Tensor<T>| NodeSpec {
            op: if transpose_a || transpose_b {
                "matmul_transposed"
            } else {
                "matmul"
            },
            rule: match (transpose_a, transpose_b) {
                (false, false) => product_rule::<false, false>(),
                (false, true) => product_rule::<false, true>(),
                (true, false) => product_rule::<true, false>(),
                (true, true) => product_rule::<true, true>(),
            },
            saved: smallvec![T::into_any(self.clone()), T::into_any(other.clone())],
            params: Params::None,
        };
        // bilinear: d(A B) = dA B + A dB, with the same transpositions
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            let da = t
                .of::<T>(0)
                .map(|da| da.matmul_transposed(other, transpose_a, transpose_b));
            let db = t
                .of::<T>(1)
                .map(|db| self.matmul_transposed(db, transpose_a, transpose_b));
            sum_tangents(da, db, out.shape())
        };
        stack::record(data, &[self.id(), other.id()], spec, &jvp)
    }
}

impl<T: Float> Tensor<T> {
    /// `self @ weights + biases` for a `[batch, inputs]` matrix, `[inputs, units]` weights
    /// and `[units]` biases, as one op (TensorFlow 1's `tf.nn.xw_plus_b`, a dense layer):
    /// the biases are written first and the product added onto them in the same pass, and
    /// the rule sums the biases' cotangent directly, where a separate broadcast add would
    /// cost a pass and an array each way.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[1, 3]);
    /// let w = Tensor::from_vec(vec![1.0_f32, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]);
    /// let b = Tensor::from_vec(vec![0.5_f32, -5.0], &[2]);
    /// assert_eq!(x.xw_plus_b(&w, &b).to_vec(), vec![4.5, 0.0]);
    /// ```
    ///
    /// # Panics
    /// Unless the shapes are `[m, k]`, `[k, n]` and `[n]`; the message names all three.
    #[track_caller]
    pub fn xw_plus_b(&self, weights: impl TensorRef<T>, biases: impl TensorRef<T>) -> Tensor<T> {
        let (weights, biases) = (&*weights.as_tensor(), &*biases.as_tensor());
        let (xs, ws, bs) = (self.shape(), weights.shape(), biases.shape());
        assert!(
            xs.len() == 2 && ws.len() == 2 && xs[1] == ws[0] && bs == [ws[1]],
            "xw_plus_b: needs shapes [m, k], [k, n] and [n], got {xs:?}, {ws:?} and {bs:?}"
        );
        let (m, n) = (xs[0], ws[1]);
        let bias_row: Vec<T> = biases.view().iter().copied().collect();
        let mut rows = Vec::with_capacity(m * n);
        for _ in 0..m {
            rows.extend_from_slice(&bias_row);
        }
        let mut out = Array2::from_shape_vec((m, n), rows).expect("m rows of n");
        let (xv, wv) = (self.view(), weights.view());
        gemm_store(
            &xv.into_dimensionality::<Ix2>().expect("rank 2"),
            &wv.into_dimensionality::<Ix2>().expect("rank 2"),
            &mut out.view_mut(),
            true,
            true,
        );
        let data = Data::from_array(out.into_dyn());
        let inputs = [self.id(), weights.id(), biases.id()];
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "xw_plus_b",
            // X̄ and W̄ as for X W; b̄ = Σ over the rows of Ḡ
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => xw_plus_b_rule(ctx, g),
                AnyTensor::F64(g) => xw_plus_b_rule(ctx, g),
            }),
            saved: smallvec![T::into_any(self.clone()), T::into_any(weights.clone())],
            params: Params::None,
        };
        // d(X W + b) = dX W + X dW + db (broadcast over the rows)
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            let dx = t.of::<T>(0).map(|dx| dx.matmul(weights));
            let dw = t.of::<T>(1).map(|dw| self.matmul(dw));
            let product = sum_tangents(dx, dw, out.shape());
            sum_tangents(product, t.of::<T>(2).cloned(), out.shape())
        };
        stack::record(data, &inputs, spec, &jvp)
    }
}

fn xw_plus_b_rule<T: Float>(ctx: &RuleCtx<'_>, g: &Tensor<T>) -> InputGrads {
    let mut grads = matmul_rule::<T, false, false>(ctx.saved, g, &ctx.needs[..2]);
    let units = ctx.saved[1].typed::<T>().shape()[1];
    grads.push(ctx.needs[2].then(|| T::into_any(bias_gradient(g, units, ctx.unrecorded))));
    grads
}

/// Σ over the rows of the `[m, units]` cotangent: row slices added into one accumulator
/// when nothing records and there are no batch axes, else the recorded reduction.
fn bias_gradient<T: Float>(g: &Tensor<T>, units: usize, unrecorded: bool) -> Tensor<T> {
    let view = g.view();
    if unrecorded
        && batch_rank() == 0
        && units > 0
        && let Some(values) = view.as_slice()
    {
        let mut total = vec![T::ZERO; units];
        for row in values.chunks_exact(units) {
            for (sum, &v) in total.iter_mut().zip(row) {
                *sum += v;
            }
        }
        return super::constant(ArrayD::from_shape_vec(IxDyn(&[units]), total).expect("units"));
    }
    g.sum_to_batched(&[units])
}

/// The rule of `op_A(X) op_B(Y)`, one zero-sized closure per pair of flags.
fn product_rule<const TA: bool, const TB: bool>() -> Rule {
    static_rule(|ctx, g| match g {
        AnyTensor::F32(g) => matmul_rule::<_, TA, TB>(ctx.saved, g, ctx.needs),
        AnyTensor::F64(g) => matmul_rule::<_, TA, TB>(ctx.saved, g, ctx.needs),
    })
}

/// With A = op_A(X), B = op_B(Y) and Z = A B: Ā = Ḡ Bᵀ and B̄ = Aᵀ Ḡ (summed over broadcast
/// batches), and X̄ = Ā or Āᵀ. Written out per pair of flags, each is again a product with
/// flags, so no rule (at any order) materialises a transpose:
///
/// | Z       | X̄       | Ȳ       |
/// |---------|---------|---------|
/// | X Y     | Ḡ Yᵀ    | Xᵀ Ḡ    |
/// | X Yᵀ    | Ḡ Y     | Ḡᵀ X    |
/// | Xᵀ Y    | Y Ḡᵀ    | X Ḡ     |
/// | Xᵀ Yᵀ   | Yᵀ Ḡᵀ   | Ḡᵀ Xᵀ   |
fn matmul_rule<T: Float, const TA: bool, const TB: bool>(
    saved: &[AnyTensor],
    g: &Tensor<T>,
    needs: &[bool],
) -> InputGrads {
    let (x, y) = (saved[0].typed::<T>(), saved[1].typed::<T>());
    let k = batch_rank();
    if k > 0 && x.rank() == 2 && y.rank() == 2 {
        return batched_rule_transposed::<T, TA, TB>(x, y, g, needs, k);
    }
    // In a jacobian's sweep the batch axes of `g` broadcast as matmul batch axes.
    let gx = needs[0].then(|| {
        let gx = match (TA, TB) {
            (false, false) => g.matmul_transposed(y, false, true),
            (false, true) => g.matmul_transposed(y, false, false),
            (true, false) => y.matmul_transposed(g, false, true),
            (true, true) => y.matmul_transposed(g, true, true),
        };
        T::into_any(gx.sum_to_batched(x.shape()))
    });
    let gy = needs[1].then(|| {
        let gy = match (TA, TB) {
            (false, false) => x.matmul_transposed(g, true, false),
            (false, true) => g.matmul_transposed(x, true, false),
            (true, false) => x.matmul_transposed(g, false, false),
            (true, true) => g.matmul_transposed(x, true, true),
        };
        T::into_any(gy.sum_to_batched(y.shape()))
    });
    smallvec![gx, gy]
}

/// A jacobian sweep's rule for 2-D operands with flags: the flagged operands are turned
/// (recorded transposes of small matrices) so that [`batched_matrix_rule`]'s single large
/// products apply, and their cotangents turned back.
fn batched_rule_transposed<T: Float, const TA: bool, const TB: bool>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    g: &Tensor<T>,
    needs: &[bool],
    k: usize,
) -> InputGrads {
    let orient = |t: &Tensor<T>, flag: bool| if flag { t.transpose() } else { t.clone() };
    let (a, b) = (orient(x, TA), orient(y, TB));
    let (ga, gb) = batched_matrix_rule(&a, &b, g, needs, k);
    smallvec![
        ga.map(|ga| T::into_any(orient(&ga, TA))),
        gb.map(|gb| T::into_any(orient(&gb, TB)))
    ]
}

/// The rule of a 2-D `X Y` for a cotangent with `k` leading batch axes, as single large
/// matrix products (broadcasting `X` over the batch would copy it once per example):
/// X̄ = Ḡ Yᵀ with the batch folded into Ḡ's rows; Ȳᵦ = Xᵀ Ḡᵦ computed as (Ḡᵦᵀ X)ᵀ.
fn batched_matrix_rule<T: Float>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    g: &Tensor<T>,
    needs: &[bool],
    k: usize,
) -> (Option<Tensor<T>>, Option<Tensor<T>>) {
    let lead = &g.shape()[..k];
    let count: usize = lead.iter().product();
    let (m, inner, n) = (x.shape()[0], x.shape()[1], y.shape()[1]);
    let with_lead = |rows: usize, cols: usize| -> Vec<usize> {
        lead.iter().copied().chain([rows, cols]).collect()
    };
    let gx = needs[0].then(|| {
        let rows = g.reshape(&[count * m, n]).matmul_transposed(y, false, true);
        rows.reshape(&with_lead(m, inner))
    });
    let gy = needs[1].then(|| {
        if n == 1
            && let Some(scaled) = diagonal_rows_product(g, x, count, &with_lead(inner, 1))
        {
            return scaled;
        }
        if n == 1 {
            // a column: Ḡᵦᵀ X is a row, and its transpose is a reshape
            let rows = g.reshape(&[count, m]).matmul(x);
            rows.reshape(&with_lead(inner, 1))
        } else {
            let rows = g.transpose().reshape(&[count * n, m]).matmul(x);
            rows.reshape(&with_lead(n, inner)).transpose()
        }
    });
    (gx, gy)
}

/// `Ḡ X` for a square cotangent Ḡ = `g` viewed as `[count, count]` that is diagonal, as
/// a scaling of `X`'s rows, in O(count·k) instead of O(count²·k); `None` when it does not
/// apply. This is the shape of a jacobian sweep's first matrix product after elementwise
/// ops: the one-hot seeds, scaled elementwise, are still diagonal. A dense cotangent is
/// rejected at its first off-diagonal non-zero, usually the second element.
///
/// Not taken while a tape records: there the product must be recorded with its true
/// dependence on every entry of Ḡ. Not taken when `X` has a non-finite entry, where
/// `0 · ∞` would make the dense product differ.
fn diagonal_rows_product<T: Float>(
    g: &Tensor<T>,
    x: &Tensor<T>,
    count: usize,
    out_shape: &[usize],
) -> Option<Tensor<T>> {
    let m = x.shape()[0];
    if count != m || stack::any_recording() {
        return None;
    }
    let (gv, xv) = (g.view(), x.view());
    let (gs, xs) = (gv.as_slice()?, xv.as_slice()?);
    // Whole chunks are folded without a branch per element, so the test vectorises.
    let all_zero = |part: &[T]| {
        part.chunks(64)
            .all(|c| c.iter().fold(true, |acc, &v| acc & (v == T::zero())))
    };
    let off_diagonal_zero = gs
        .chunks_exact(m)
        .enumerate()
        .all(|(r, row)| all_zero(&row[..r]) && all_zero(&row[r + 1..]));
    if !off_diagonal_zero {
        return None;
    }
    // X's finiteness is folded into the scaling pass, which reads every entry once, as the
    // zero test is: a branch per element (an early exit) would cost more than the product.
    let all_finite = |part: &[T]| {
        part.chunks(64)
            .all(|c| c.iter().fold(true, |acc, &v| acc & v.is_finite()))
    };
    let k = xs.len() / m.max(1);
    let mut out = Vec::with_capacity(xs.len());
    let mut finite = true;
    for (r, x_row) in xs.chunks_exact(k.max(1)).enumerate() {
        let d = gs[r * m + r];
        out.extend(x_row.iter().map(|&v| d * v));
        finite &= all_finite(x_row);
    }
    if !finite {
        return None;
    }
    Some(super::constant(
        ArrayD::from_shape_vec(IxDyn(out_shape), out).expect("count·k elements"),
    ))
}

/// The shape of `op(x)`: the last two axes swapped when `transposed`.
fn oriented_shape(shape: &[usize], transposed: bool) -> Vec<usize> {
    let mut shape = shape.to_vec();
    if transposed {
        let r = shape.len();
        shape.swap(r - 2, r - 1);
    }
    shape
}

/// `op(view)`: a view with the last two axes swapped when `transposed`, no copy.
fn oriented_view<T>(mut view: ArrayViewD<'_, T>, transposed: bool) -> ArrayViewD<'_, T> {
    if transposed {
        let r = view.ndim();
        view.swap_axes(r - 2, r - 1);
    }
    view
}

#[track_caller]
fn matmul_values<T: Float>(x: &Tensor<T>, y: &Tensor<T>, tx: bool, ty: bool) -> ArrayD<T> {
    let op = if tx || ty {
        "matmul_transposed"
    } else {
        "matmul"
    };
    let (xs0, ys0) = (x.shape(), y.shape());
    assert!(
        xs0.len() >= 2 && ys0.len() >= 2,
        "{op}: needs at least 2 axes on both sides, got shapes {xs0:?} and {ys0:?}"
    );
    let (xs, ys) = (oriented_shape(xs0, tx), oriented_shape(ys0, ty));
    let (m, k) = (xs[xs.len() - 2], xs[xs.len() - 1]);
    let (k2, n) = (ys[ys.len() - 2], ys[ys.len() - 1]);
    if k != k2 {
        let flags = if tx || ty {
            format!(" (transpose_a = {tx}, transpose_b = {ty})")
        } else {
            String::new()
        };
        panic!("{op}: inner dimensions differ: shapes {xs0:?} and {ys0:?}{flags}");
    }
    let (xv, yv) = (oriented_view(x.view(), tx), oriented_view(y.view(), ty));
    if xs.len() == 2 && ys.len() == 2 {
        let a = xv.into_dimensionality::<Ix2>().expect("rank 2");
        let b = yv.into_dimensionality::<Ix2>().expect("rank 2");
        return gemm_product(&a, &b).into_dyn();
    }
    let Some(batch) = try_broadcast_shapes(&xs[..xs.len() - 2], &ys[..ys.len() - 2]) else {
        panic!("{op}: batch axes do not broadcast: shapes {xs0:?} and {ys0:?}")
    };
    let full = |rows: usize, cols: usize| {
        let mut shape: Vec<usize> = batch.to_vec();
        shape.extend([rows, cols]);
        shape
    };
    let xb = xv
        .broadcast(IxDyn(&full(m, k)))
        .expect("batch axes broadcast");
    let yb = yv
        .broadcast(IxDyn(&full(k, n)))
        .expect("batch axes broadcast");
    let count: usize = batch.iter().product();
    // A view where the batch axes merge into one (a copy only where they do not: a
    // broadcast axis, a transposed batch), of static rank 3 so that taking each matrix
    // builds no dynamic shape.
    let xb = xb.to_shape((count, m, k)).expect("same size");
    let yb = yb.to_shape((count, k, n)).expect("same size");
    let mut out = ndarray::Array3::<T>::uninit((count, m, n));
    for b in 0..count {
        let a = xb.index_axis(ndarray::Axis(0), b);
        let c = yb.index_axis(ndarray::Axis(0), b);
        let mut o = out.index_axis_mut(ndarray::Axis(0), b);
        gemm_into(&a, &c, &mut o, true);
    }
    // SAFETY: every matrix of the batch was written by `gemm_into`.
    let out = unsafe { out.assume_init() };
    out.into_shape_with_order(IxDyn(&full(m, n)))
        .expect("same size")
}

/// `a @ b` in a fresh array, written once by the kernel: no zeroing pass first (for the
/// kernel gradient of W4's first layer that pass was a 400 KB memset per step).
pub(super) fn gemm_product<T: Float>(a: &ArrayView2<'_, T>, b: &ArrayView2<'_, T>) -> Array2<T> {
    let mut out = Array2::<T>::uninit((a.nrows(), b.ncols()));
    gemm_into(a, b, &mut out.view_mut(), true);
    // SAFETY: `gemm_into` writes every element of `out`.
    unsafe { out.assume_init() }
}

/// `out = a @ b`, every element of `out` written (none read). See [`gemm_raw`] (and for
/// `split`).
pub(super) fn gemm_into<T: Float>(
    a: &ArrayView2<'_, T>,
    b: &ArrayView2<'_, T>,
    out: &mut ArrayViewMut2<'_, MaybeUninit<T>>,
    split: bool,
) {
    let (m, k) = a.dim();
    let n = b.ncols();
    assert!(b.nrows() == k && out.dim() == (m, n), "gemm_into: shapes");
    if m == 0 || n == 0 || k == 0 {
        // the empty sum
        out.fill(MaybeUninit::new(T::ZERO));
        return;
    }
    let strides = (out.strides()[0], out.strides()[1]);
    // SAFETY: `out` is a live, mutably borrowed m x n view that aliases neither input;
    // with `read_dst = false` gemm sets alpha to 0 and its kernels store without loading,
    // so `out`'s uninitialised contents are never read (later depth blocks read only what
    // the first block stored); gemm does not document this, so runtime/Cargo.toml pins the
    // version it was checked in. `MaybeUninit<T>` has `T`'s layout.
    unsafe { gemm_raw(a, b, out.as_mut_ptr().cast::<T>(), strides, false, split) }
}

/// `out += a @ b` (`add`: one pass over `out`, so a bias already in it costs no separate
/// add) or `out = a @ b` (an initialised buffer reused, its old values never read: the
/// convolutions' scratch matrices). See [`gemm_raw`] for `split`.
pub(super) fn gemm_store<T: Float>(
    a: &ArrayView2<'_, T>,
    b: &ArrayView2<'_, T>,
    out: &mut ArrayViewMut2<'_, T>,
    add: bool,
    split: bool,
) {
    let (m, k) = a.dim();
    let n = b.ncols();
    assert!(b.nrows() == k && out.dim() == (m, n), "gemm_store: shapes");
    if m == 0 || n == 0 || k == 0 {
        if !add {
            // the empty sum
            out.fill(T::ZERO);
        }
        return;
    }
    let strides = (out.strides()[0], out.strides()[1]);
    // SAFETY: `out` is a live, mutably borrowed, initialised m x n view aliasing neither
    // input.
    unsafe { gemm_raw(a, b, out.as_mut_ptr(), strides, add, split) }
}

/// `out = a @ b` (`read_dst` false) or `out = out + a @ b` (true) with the `gemm` crate:
/// cache-blocked kernels for the widest SIMD the CPU has (chosen at run time, AVX-512
/// included) that read any strides (transposed views too). With `split`, a product big
/// enough to pay for a second thread is cut in two halves along its larger side (see
/// [`SPLIT_WORK`]); without, it runs on the calling thread (a part of a pass that is
/// already shared between the two threads, as the convolutions' blocks are).
///
/// # Safety
/// `out` must point to an m x n matrix (m = rows of `a`, n = columns of `b`, all non-zero)
/// with the given element strides, valid for writes (and reads if `read_dst`), not aliasing
/// `a` or `b`; `a` and `b` must have matching inner dimensions.
unsafe fn gemm_raw<T: Float>(
    a: &ArrayView2<'_, T>,
    b: &ArrayView2<'_, T>,
    out: *mut T,
    (o_rs, o_cs): (isize, isize),
    read_dst: bool,
    split: bool,
) {
    let (m, k) = a.dim();
    let n = b.ncols();
    let product = Product {
        m,
        n,
        k,
        a: (a.as_ptr(), a.strides()[0], a.strides()[1]),
        b: (b.as_ptr(), b.strides()[0], b.strides()[1]),
        out: (out, o_rs, o_cs),
        read_dst,
    };
    // SAFETY (all `run`s below): the operands are the callers' live views and `out` is as
    // the caller promises; the halves address disjoint parts of it, and whichever thread
    // claims the second half runs it before `join_halves` returns, also when the first
    // half unwinds.
    if !split
        || m.saturating_mul(n).saturating_mul(k) < SPLIT_WORK
        || !crate::base::parallel::can_split()
    {
        unsafe { product.run() };
        return;
    }
    let (first, second) = product.halves();
    crate::base::parallel::join_halves(|| unsafe { first.run() }, move || unsafe { second.run() });
}

/// The number of multiply-adds (m·n·k) from which a product is split over two threads;
/// 2²¹ take ~40 µs on one core, well above a hand-over's cost. W4's two large products
/// (128·784·128 ≈ 12.8M) are split, its small one (128·128·10) not.
///
/// How, by measurement on this 2-core machine (µs per product, 10th percentile with the
/// second core free / median with it busy; 128x784 @ 784x128 and the kernel gradient
/// 784x128ᵀ @ 128x128): one thread 240 / 240 and 242 / 244; gemm's own
/// `Parallelism::Rayon` 169 / 284 and 178 / 277 (a parallel region per depth block, and
/// the calling thread sleeps while the pool works); `rayon::join` of two halves 144 / 255
/// and 163 / 264. Here the calling thread computes the first half itself and offers the
/// second to the runtime's helper thread (`parallel::join_halves`), taking it back if the
/// helper has not started it by then: with the second core free the two halves run side
/// by side, with it busy the product costs one thread's time plus a hand-over, not a sleep
/// and wake-up of the caller.
const SPLIT_WORK: usize = 1 << 21;

/// One gemm call's operands: m x k @ k x n into m x n, each as (first element, row stride,
/// column stride) in elements.
struct Product<T> {
    m: usize,
    n: usize,
    k: usize,
    a: (*const T, isize, isize),
    b: (*const T, isize, isize),
    out: (*mut T, isize, isize),
    read_dst: bool,
}

// SAFETY: a `Product` is handed to at most one other thread, which runs it while the
// caller of `gemm_raw` waits for it (see `parallel::join_halves`); the elements are plain
// floats.
unsafe impl<T: Sync> Send for Product<T> {}
// SAFETY: as for `Send`: the pointers are only dereferenced by the one thread that claims
// the product.
unsafe impl<T: Sync> Sync for Product<T> {}

impl<T: Float> Product<T> {
    /// The product cut in two along its larger side (rows of `a` and `out`, or columns of
    /// `b` and `out`).
    fn halves(&self) -> (Product<T>, Product<T>) {
        let (a, b, out) = (self.a, self.b, self.out);
        let part = |m, n, a, b, out| Product {
            m,
            n,
            k: self.k,
            a,
            b,
            out,
            read_dst: self.read_dst,
        };
        if self.m > self.n {
            let half = self.m / 2;
            let a2 = (a.0.wrapping_offset(half as isize * a.1), a.1, a.2);
            let out2 = (out.0.wrapping_offset(half as isize * out.1), out.1, out.2);
            (
                part(half, self.n, a, b, out),
                part(self.m - half, self.n, a2, b, out2),
            )
        } else {
            let half = self.n / 2;
            let b2 = (b.0.wrapping_offset(half as isize * b.2), b.1, b.2);
            let out2 = (out.0.wrapping_offset(half as isize * out.2), out.1, out.2);
            (
                part(self.m, half, a, b, out),
                part(self.m, self.n - half, a, b2, out2),
            )
        }
    }

    /// Runs the product on the calling thread.
    ///
    /// # Safety
    /// The operands must address live m x k and k x n matrices and `out` an m x n one
    /// valid for writes (and reads if `read_dst`), aliasing neither.
    unsafe fn run(&self) {
        let (a, b, out) = (self.a, self.b, self.out);
        // SAFETY: as the caller promises. dst = alpha·dst + beta·(a @ b) with alpha = 1
        // (ignored unless `read_dst`), beta = 1; gemm supports f32 and f64.
        unsafe {
            gemm::gemm(
                self.m,
                self.n,
                self.k,
                out.0,
                out.2,
                out.1,
                self.read_dst,
                a.0,
                a.2,
                a.1,
                b.0,
                b.2,
                b.1,
                T::ONE,
                T::ONE,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook triple loop, in f64, as the oracle for the blocked kernel.
    fn naive(x: &ArrayD<f64>, y: &ArrayD<f64>) -> Vec<f64> {
        let (x, y) = (
            x.view().into_dimensionality::<Ix2>().unwrap(),
            y.view().into_dimensionality::<Ix2>().unwrap(),
        );
        let mut out = Vec::new();
        for i in 0..x.nrows() {
            for j in 0..y.ncols() {
                out.push((0..x.ncols()).map(|p| x[[i, p]] * y[[p, j]]).sum());
            }
        }
        out
    }

    #[test]
    fn gemm_kernel_matches_the_triple_loop_on_awkward_shapes() {
        // sizes around the kernels' block edges, empty ones (the empty sum is 0: the output is
        // never zeroed first), and two large enough to be split (by rows, by columns)
        for (m, k, n) in [
            (1, 1, 1),
            (3, 0, 2),
            (0, 4, 2),
            (3, 5, 2),
            (17, 33, 9),
            (64, 1, 64),
            (130, 257, 70),
            (64, 512, 96),
        ] {
            let x = Tensor::<f64>::random_uniform(&[m, k], -1.0, 1.0, 1);
            let y = Tensor::<f64>::random_uniform(&[k, n], -1.0, 1.0, 2);
            let got = matmul_values(&x, &y, false, false);
            let want = naive(&x.to_ndarray(), &y.to_ndarray());
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "{m}x{k}x{n}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn split_products_agree_when_called_from_many_threads_at_once() {
        // Large enough to be split, called from several threads at once: the helper takes
        // at most one offer at a time, and callers it cannot serve compute both halves.
        let x = Tensor::<f64>::random_uniform(&[96, 300], -1.0, 1.0, 5);
        let y = Tensor::<f64>::random_uniform(&[300, 80], -1.0, 1.0, 6);
        let want = naive(&x.to_ndarray(), &y.to_ndarray());
        let check = |got: ArrayD<f64>| {
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "{g} vs {w}");
            }
        };
        let (xa, ya) = (x.to_ndarray(), y.to_ndarray());
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    let (x, y) = (
                        super::super::constant(xa.clone()),
                        super::super::constant(ya.clone()),
                    );
                    for _ in 0..10 {
                        check(matmul_values(&x, &y, false, false));
                    }
                });
            }
        });
    }

    #[test]
    fn gemm_kernel_reads_transposed_layouts_and_batches() {
        let x = Tensor::<f32>::random_uniform(&[2, 4, 3], -1.0, 1.0, 3);
        let y = Tensor::<f32>::random_uniform(&[3, 5], -1.0, 1.0, 4);
        let batched = matmul_values(&x, &y, false, false);
        for b in 0..2 {
            let xb = x
                .to_ndarray()
                .index_axis(ndarray::Axis(0), b)
                .mapv(f64::from);
            let want = naive(&xb.into_dyn(), &y.to_ndarray().mapv(f64::from));
            let got = batched.index_axis(ndarray::Axis(0), b);
            for (g, w) in got.iter().zip(&want) {
                assert!((f64::from(*g) - w).abs() < 1e-5);
            }
        }
        // a column-major operand (a transposed view) gives the same product
        let xt = x.to_ndarray().index_axis(ndarray::Axis(0), 0).to_owned();
        let xt = xt.t();
        let sq = Array2::<f32>::eye(4);
        let xt2 = xt.into_dimensionality::<Ix2>().unwrap();
        let out = gemm_product(&xt2, &sq.view().slice(ndarray::s![.., ..3]));
        for i in 0..3 {
            for j in 0..3 {
                assert_eq!(out[[i, j]], xt2[[i, j]]);
            }
        }
    }
}
