//! Matrix multiplication, 2-D and batched (leading axes broadcast), TensorFlow's `x @ w`.

use ndarray::{Array2, ArrayD, ArrayView2, ArrayViewMut2, Ix2, IxDyn};
use smallvec::smallvec;

use super::{static_rule, try_broadcast_shapes};
use crate::dtype::{AnyTensor, Float};
use crate::tape::jacobian::batch_rank;
use crate::tape::node::Params;
use crate::tape::recording::{self, NodeSpec};
use crate::tensor::{Data, Tensor};

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
    /// # Panics
    /// If either has fewer than 2 axes, the inner dimensions differ, or the batch axes do
    /// not broadcast; the message names both shapes.
    #[track_caller]
    pub fn matmul(&self, other: &Tensor<T>) -> Tensor<T> {
        let data = Data::from_array(matmul_values(self, other));
        recording::record(data, &[self.id(), other.id()], |_| NodeSpec {
            op: "matmul",
            // d(X Y) = dX Y + X dY  →  X̄ = Ḡ Yᵀ, Ȳ = Xᵀ Ḡ (summed over broadcast batches)
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => matmul_rule(ctx.saved, g, ctx.needs),
                AnyTensor::F64(g) => matmul_rule(ctx.saved, g, ctx.needs),
            }),
            saved: smallvec![T::into_any(self.clone()), T::into_any(other.clone())],
            params: Params::None,
        })
    }
}

fn matmul_rule<T: Float>(
    saved: &[AnyTensor],
    g: &Tensor<T>,
    needs: &[bool],
) -> crate::tape::node::InputGrads {
    let (x, y) = (saved[0].typed::<T>(), saved[1].typed::<T>());
    let k = batch_rank();
    if k > 0 && x.rank() == 2 && y.rank() == 2 {
        return batched_matrix_rule(x, y, g, needs, k);
    }
    // In a jacobian's sweep the batch axes of `g` broadcast as matmul batch axes.
    let gx = needs[0].then(|| T::into_any(g.matmul(&y.transpose()).sum_to_batched(x.shape())));
    let gy = needs[1].then(|| T::into_any(x.transpose().matmul(g).sum_to_batched(y.shape())));
    smallvec![gx, gy]
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
) -> crate::tape::node::InputGrads {
    let lead = &g.shape()[..k];
    let count: usize = lead.iter().product();
    let (m, inner, n) = (x.shape()[0], x.shape()[1], y.shape()[1]);
    let with_lead = |rows: usize, cols: usize| -> Vec<usize> {
        lead.iter().copied().chain([rows, cols]).collect()
    };
    let gx = needs[0].then(|| {
        let rows = g.reshape(&[count * m, n]).matmul(&y.transpose());
        T::into_any(rows.reshape(&with_lead(m, inner)))
    });
    let gy = needs[1].then(|| {
        if n == 1
            && let Some(scaled) = diagonal_rows_product(g, x, count, &with_lead(inner, 1))
        {
            return T::into_any(scaled);
        }
        let gy = if n == 1 {
            // a column: Ḡᵦᵀ X is a row, and its transpose is a reshape
            let rows = g.reshape(&[count, m]).matmul(x);
            rows.reshape(&with_lead(inner, 1))
        } else {
            let rows = g.transpose().reshape(&[count * n, m]).matmul(x);
            rows.reshape(&with_lead(n, inner)).transpose()
        };
        T::into_any(gy)
    });
    smallvec![gx, gy]
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
    if count != m || recording::any_recording() {
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
    if !off_diagonal_zero || !xs.iter().all(|v| v.is_finite()) {
        return None;
    }
    let k = xs.len() / m.max(1);
    let mut out = Vec::with_capacity(xs.len());
    for (r, x_row) in xs.chunks_exact(k.max(1)).enumerate() {
        let d = gs[r * m + r];
        out.extend(x_row.iter().map(|&v| d * v));
    }
    Some(super::constant(
        ArrayD::from_shape_vec(IxDyn(out_shape), out).expect("count·k elements"),
    ))
}

#[track_caller]
fn matmul_values<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> ArrayD<T> {
    let (xs, ys) = (x.shape(), y.shape());
    assert!(
        xs.len() >= 2 && ys.len() >= 2,
        "matmul: needs at least 2 axes on both sides, got shapes {xs:?} and {ys:?}"
    );
    let (m, k) = (xs[xs.len() - 2], xs[xs.len() - 1]);
    let (k2, n) = (ys[ys.len() - 2], ys[ys.len() - 1]);
    assert!(
        k == k2,
        "matmul: inner dimensions differ: shapes {xs:?} and {ys:?}"
    );
    let (xv, yv) = (x.view(), y.view());
    if xs.len() == 2 && ys.len() == 2 {
        let a = xv.into_dimensionality::<Ix2>().expect("rank 2");
        let b = yv.into_dimensionality::<Ix2>().expect("rank 2");
        let mut out = Array2::<T>::zeros((m, n));
        gemm_into(&a, &b, &mut out.view_mut());
        return out.into_dyn();
    }
    let Some(batch) = try_broadcast_shapes(&xs[..xs.len() - 2], &ys[..ys.len() - 2]) else {
        panic!("matmul: batch axes do not broadcast: shapes {xs:?} and {ys:?}")
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
    let xb = xb
        .to_shape(IxDyn(&[count, m, k]))
        .expect("same size")
        .into_owned();
    let yb = yb
        .to_shape(IxDyn(&[count, k, n]))
        .expect("same size")
        .into_owned();
    let mut out = ndarray::Array3::<T>::zeros((count, m, n));
    for b in 0..count {
        let a = xb
            .index_axis(ndarray::Axis(0), b)
            .into_dimensionality::<Ix2>()
            .expect("rank 2");
        let c = yb
            .index_axis(ndarray::Axis(0), b)
            .into_dimensionality::<Ix2>()
            .expect("rank 2");
        let mut o = out
            .index_axis_mut(ndarray::Axis(0), b)
            .into_dimensionality::<Ix2>()
            .expect("rank 2");
        gemm_into(&a, &c, &mut o);
    }
    out.into_shape_with_order(IxDyn(&full(m, n)))
        .expect("same size")
}

/// `out = a @ b` with the `gemm` crate: cache-blocked kernels for the widest SIMD the CPU has
/// (chosen at run time, AVX-512 included), spread over rayon's threads once the product is
/// big enough to pay for it (gemm's own threshold), any strides (transposed views too).
/// Measured on this project's 2-core machine (shared, loaded) for W4's layer product
/// 128x784 @ 784x128: matrixmultiply 273 µs, gemm 229 µs on one thread, 181 µs on two.
fn gemm_into<T: Float>(
    a: &ArrayView2<'_, T>,
    b: &ArrayView2<'_, T>,
    out: &mut ArrayViewMut2<'_, T>,
) {
    let (m, k) = a.dim();
    let n = b.ncols();
    debug_assert!(b.nrows() == k && out.dim() == (m, n));
    if m == 0 || n == 0 || k == 0 {
        // `out` starts as zeros, which is the empty product
        return;
    }
    let (a_rs, a_cs) = (a.strides()[0], a.strides()[1]);
    let (b_rs, b_cs) = (b.strides()[0], b.strides()[1]);
    let (o_rs, o_cs) = (out.strides()[0], out.strides()[1]);
    // SAFETY: the pointers and element strides come from live ndarray views whose shapes are
    // m x k, k x n and m x n, so every element gemm addresses is inside its view; `out` is
    // borrowed mutably and does not alias the inputs. `read_dst = false`: out = 1·(a @ b),
    // its previous contents are never read. T is f32 or f64, both supported by gemm.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out.as_mut_ptr(),
            o_cs,
            o_rs,
            false,
            a.as_ptr(),
            a_cs,
            a_rs,
            b.as_ptr(),
            b_cs,
            b_rs,
            T::ZERO,
            T::ONE,
            false,
            false,
            false,
            gemm::Parallelism::Rayon(0),
        );
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
        // sizes around the kernels' block edges, and one large enough to be threaded
        for (m, k, n) in [
            (1, 1, 1),
            (3, 5, 2),
            (17, 33, 9),
            (64, 1, 64),
            (130, 257, 70),
        ] {
            let x = Tensor::<f64>::random_uniform(&[m, k], -1.0, 1.0, 1);
            let y = Tensor::<f64>::random_uniform(&[k, n], -1.0, 1.0, 2);
            let got = matmul_values(&x, &y);
            let want = naive(&x.to_ndarray(), &y.to_ndarray());
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "{m}x{k}x{n}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn gemm_kernel_reads_transposed_layouts_and_batches() {
        let x = Tensor::<f32>::random_uniform(&[2, 4, 3], -1.0, 1.0, 3);
        let y = Tensor::<f32>::random_uniform(&[3, 5], -1.0, 1.0, 4);
        let batched = matmul_values(&x, &y);
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
        let mut out = Array2::<f32>::zeros((3, 3));
        let sq = Array2::<f32>::eye(4);
        let xt2 = xt.into_dimensionality::<Ix2>().unwrap();
        gemm_into(
            &xt2,
            &sq.view().slice(ndarray::s![.., ..3]),
            &mut out.view_mut(),
        );
        for i in 0..3 {
            for j in 0..3 {
                assert_eq!(out[[i, j]], xt2[[i, j]]);
            }
        }
    }
}
