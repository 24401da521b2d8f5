//! Ops made of other ops: reductions (`min`, `logsumexp`, `variance`, `std`, `norm`, `prod`) and
//! `stack`. They record the primitives they are built from, so their gradients, JVPs and
//! higher derivatives come from those primitives' rules and are exact at every order; they
//! have no rule of their own and no row in the vocabulary of ops (the table lists them as
//! composites, which `#[differentiable]` replays on a sub-tape like any call).

use ndarray::Axis;

use super::{check_axis, constant};
use crate::base::dtype::Float;
use crate::base::tensor::Tensor;

impl<T: Float> Tensor<T> {
    /// The smallest element, as a scalar (TensorFlow's `reduce_min`): `-max(-x)`, so the
    /// gradient is split evenly between tied minima, as [`max`](Self::max)'s is between
    /// tied maxima. The minimum of no elements is `+inf`; a NaN element makes it NaN.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![3.0_f32, -1.0, 2.0], &[3]);
    /// assert_eq!(x.min().to_scalar(), -1.0);
    /// assert_eq!(Tensor::<f32>::zeros(&[0]).min().to_scalar(), f32::INFINITY);
    /// ```
    #[track_caller]
    pub fn min(&self) -> Tensor<T> {
        -(-self).max()
    }

    /// The smallest elements along `axis`; `keep_dims` keeps it with length 1 (TensorFlow's
    /// `reduce_min(x, axis)`). Along an empty axis the minimum is `+inf`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f64, 4.0, 3.0, 2.0], &[2, 2]);
    /// assert_eq!(x.min_axis(1, false).to_vec(), vec![1.0, 2.0]);
    /// assert_eq!(x.min_axis(0, true).shape(), &[1, 2]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn min_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("min_axis", axis, self.shape());
        -(-self).max_axis(axis, keep_dims)
    }

    /// `ln Σ exp(x)` over all elements, as a scalar, computed without overflow
    /// (TensorFlow's `reduce_logsumexp`). Its gradient is the softmax of the elements.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1000.0_f64, 1000.0], &[2]);
    /// // exp(1000) overflows; the shifted form does not
    /// assert!((x.logsumexp().to_scalar() - (1000.0 + 2.0_f64.ln())).abs() < 1e-9);
    /// ```
    #[track_caller]
    pub fn logsumexp(&self) -> Tensor<T> {
        let flat = self.reshape(&[self.len()]);
        flat.logsumexp_axis(0, false)
    }

    /// `ln Σ exp(x)` along `axis`; `keep_dims` keeps it with length 1. The elements are
    /// shifted by their maximum before `exp` (a constant: `ln Σ exp(x - s) + s` is the same
    /// function for every `s`, so every derivative is exact), and an axis of only `-inf`
    /// gives `-inf`, as TensorFlow's `reduce_logsumexp`.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![0.0_f64, 2.0_f64.ln(), 5.0, 5.0], &[2, 2]);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.logsumexp_axis(1, false));
    /// assert!((y.to_vec()[0] - 3.0_f64.ln()).abs() < 1e-12);
    /// // the gradient is each row's softmax: [1/3, 2/3] and [1/2, 1/2]
    /// let dx = tape.gradient_connected(&y, &x).unwrap().to_vec();
    /// let expected = [1.0 / 3.0, 2.0 / 3.0, 0.5, 0.5];
    /// assert!(dx.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-12));
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn logsumexp_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("logsumexp_axis", axis, self.shape());
        // the shift: each lane's maximum, 0 where it is not finite (an axis of -inf, or an
        // empty one), a constant to every tape
        let mut top = self
            .view()
            .fold_axis(
                Axis(axis),
                T::neg_infinity(),
                |&m, &v| if v > m { v } else { m },
            )
            .mapv(|m| if m.is_finite() { m } else { T::ZERO });
        top.insert_axis_inplace(Axis(axis));
        let shift = constant(top.into_dyn());
        let summed = (self - &shift).exp().sum_axis(axis, keep_dims).ln();
        if keep_dims {
            summed + &shift
        } else {
            let kept: Vec<usize> = summed.shape().to_vec();
            summed + shift.reshape(&kept)
        }
    }

    /// The variance of all elements (the population variance, dividing by n: TensorFlow's
    /// `reduce_variance`), as a scalar: `mean((x - mean(x))²)`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.variance().to_scalar(), 1.25);
    /// ```
    #[track_caller]
    pub fn variance(&self) -> Tensor<T> {
        (self - &self.mean()).square().mean()
    }

    /// The variance along `axis` (dividing by its length); `keep_dims` keeps it with
    /// length 1 (TensorFlow's `reduce_variance(x, axis)`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f64, 3.0, 2.0, 2.0], &[2, 2]);
    /// assert_eq!(x.variance_axis(1, false).to_vec(), vec![1.0, 0.0]);
    /// assert_eq!(x.variance_axis(0, false).to_vec(), vec![0.25, 0.25]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn variance_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("variance_axis", axis, self.shape());
        (self - &self.mean_axis(axis, true))
            .square()
            .mean_axis(axis, keep_dims)
    }

    /// The standard deviation of all elements, `sqrt(variance)` (TensorFlow's
    /// `reduce_std`). Where the variance is 0 (all elements equal) the derivative of the
    /// square root is infinite and the gradient is NaN, as TensorFlow's.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![2.0_f32, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], &[8]);
    /// assert_eq!(x.std().to_scalar(), 2.0);
    /// ```
    #[track_caller]
    pub fn std(&self) -> Tensor<T> {
        self.variance().sqrt()
    }

    /// The standard deviation along `axis`; `keep_dims` keeps it with length 1
    /// (TensorFlow's `reduce_std(x, axis)`). NaN gradient where a lane's elements are all
    /// equal, as [`std`](Self::std).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f64, 3.0, 5.0, 9.0], &[2, 2]);
    /// assert_eq!(x.std_axis(1, false).to_vec(), vec![1.0, 2.0]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn std_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        self.variance_axis(axis, keep_dims).sqrt()
    }

    /// The Euclidean (L2) norm of all elements, `sqrt(Σ x²)`, as a scalar (TensorFlow's
    /// `norm` with its defaults). At 0 the gradient is NaN (the square root's derivative
    /// is infinite there), as TensorFlow's.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![3.0_f64, 4.0], &[2]);
    /// assert_eq!(x.norm().to_scalar(), 5.0);
    /// ```
    #[track_caller]
    pub fn norm(&self) -> Tensor<T> {
        self.square().sum().sqrt()
    }

    /// The Euclidean norm along `axis`; `keep_dims` keeps it with length 1 (TensorFlow's
    /// `norm(x, axis=axis)`). NaN gradient where a lane is all zeros, as [`norm`](Self::norm).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![3.0_f32, 4.0, 6.0, 8.0], &[2, 2]);
    /// assert_eq!(x.norm_axis(1, false).to_vec(), vec![5.0, 10.0]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn norm_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("norm_axis", axis, self.shape());
        self.square().sum_axis(axis, keep_dims).sqrt()
    }

    /// The product of all elements, as a scalar (TensorFlow's `reduce_prod`). The product
    /// of no elements is 1.
    ///
    /// Computed as a tree of elementwise products (see [`prod_axis`](Self::prod_axis)), so
    /// the gradient is exact where elements are zero: with one zero, only the zero's
    /// partial derivative is non-zero (the product of the others), never `0/0`.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![2.0_f64, 0.0, 3.0], &[3]);
    /// assert_eq!(x.prod().to_scalar(), 0.0);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.prod());
    /// let g = tape.gradient(&y, &x).unwrap().unwrap();
    /// assert_eq!(g.to_vec(), vec![0.0, 6.0, 0.0]);
    /// ```
    #[track_caller]
    pub fn prod(&self) -> Tensor<T> {
        self.reshape(&[self.len()]).prod_axis(0, false)
    }

    /// The products along `axis`; `keep_dims` keeps it with length 1 (TensorFlow's
    /// `reduce_prod(x, axis)`). Along an empty axis the product is 1.
    ///
    /// Each step multiplies the first half of the axis by the second half elementwise (an
    /// odd element left over is carried to the next step), so a length-`n` axis takes
    /// about `log2 n` recorded multiplications and `n` multiplications in all. The
    /// gradient and every higher derivative come from `mul`'s rule, exact at zeros:
    /// TensorFlow's rule also avoids dividing by the input, with exclusive cumulative
    /// products; a `prod / x` rule would give NaN at a zero.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// assert_eq!(x.prod_axis(1, false).to_vec(), vec![6.0, 120.0]);
    /// assert_eq!(x.prod_axis(0, true).shape(), &[1, 3]);
    /// assert_eq!(x.prod_axis(0, true).to_vec(), vec![4.0, 10.0, 18.0]);
    /// ```
    ///
    /// # Panics
    /// If `axis` is out of range.
    #[track_caller]
    pub fn prod_axis(&self, axis: usize, keep_dims: bool) -> Tensor<T> {
        check_axis("prod_axis", axis, self.shape());
        let mut factors = self.clone();
        let mut len = self.shape()[axis];
        let kept = if len == 0 {
            // The empty product, connected to the input (whose gradient is then empty).
            self.sum_axis(axis, true) + T::ONE
        } else {
            // Invariant: the product along `axis` of `factors` (length `len`) is the
            // product along `axis` of `self`.
            while len > 1 {
                let half = len / 2;
                let pairs = &factors.slice(axis, 0, half) * &factors.slice(axis, half, half);
                factors = if len % 2 == 1 {
                    Tensor::concat(&[&pairs, &factors.slice(axis, 2 * half, 1)], axis)
                } else {
                    pairs
                };
                len = half + len % 2;
            }
            factors
        };
        if keep_dims {
            kept
        } else {
            let mut shape = self.shape().to_vec();
            shape.remove(axis);
            kept.reshape(&shape)
        }
    }

    /// Joins tensors of one shape along a new axis at position `axis` (0 to their rank):
    /// TensorFlow's `stack`. Each is reshaped to have the new axis with length 1 and the
    /// results are concatenated, so the gradient of each is its slice of the cotangent.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let a = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    /// let b = Tensor::from_vec(vec![3.0_f32, 4.0], &[2]);
    /// let rows = Tensor::stack(&[&a, &b], 0);
    /// assert_eq!((rows.shape(), rows.to_vec()), (&[2, 2][..], vec![1.0, 2.0, 3.0, 4.0]));
    /// let columns = Tensor::stack(&[&a, &b], 1);
    /// assert_eq!(columns.to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
    /// ```
    ///
    /// # Panics
    /// If `tensors` is empty, their shapes differ, or `axis` exceeds their rank; the
    /// message names the shapes.
    #[track_caller]
    pub fn stack(tensors: &[&Tensor<T>], axis: usize) -> Tensor<T> {
        let Some(first) = tensors.first() else {
            panic!("stack: needs at least one tensor");
        };
        let shape = first.shape();
        if let Some(other) = tensors.iter().find(|t| t.shape() != shape) {
            panic!(
                "stack: every tensor needs the same shape, got {shape:?} and {:?}",
                other.shape()
            );
        }
        assert!(
            axis <= shape.len(),
            "stack: axis {axis} is out of range for tensors of shape {shape:?} (at most {})",
            shape.len()
        );
        let mut expanded: Vec<usize> = shape.to_vec();
        expanded.insert(axis, 1);
        let parts: Vec<Tensor<T>> = tensors.iter().map(|t| t.reshape(&expanded)).collect();
        let refs: Vec<&Tensor<T>> = parts.iter().collect();
        Tensor::concat(&refs, axis)
    }
}
