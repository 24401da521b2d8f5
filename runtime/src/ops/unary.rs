//! Elementwise unary ops. Each op is followed by its backward rule, a generic function over
//! [`Primal`] (so the tape and `#[differentiable]`'s generated code share it), whose doc
//! states the calculus it implements.

use super::primal::Primal;
use super::{Saved, both, unary, unary_with_param};
use crate::dtype::Float;
use crate::tensor::Tensor;

impl<T: Float> Tensor<T> {
    /// `x²`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(3.0_f32).square().to_scalar(), 9.0);
    /// ```
    pub fn square(&self) -> Tensor<T> {
        unary(self, "square", Saved::Input, |v| v * v, (square, square))
    }
}

/// Backward rule of [`Tensor::square`]: d/dx x² = 2x.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::square(&0.5_f64, &1.0);
/// ```
pub fn square<V: Primal>(x: &V, g: &V) -> V {
    g.mul_scaled(x, 2.0)
}

impl<T: Float> Tensor<T> {
    /// `√x`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(9.0_f32).sqrt().to_scalar(), 3.0);
    /// ```
    pub fn sqrt(&self) -> Tensor<T> {
        unary(self, "sqrt", Saved::Output, T::sqrt, (sqrt, sqrt))
    }
}

/// Backward rule of [`Tensor::sqrt`]: d/dx √x = 1 / (2 √x), from the output.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::sqrt(&0.5_f64, &1.0);
/// ```
pub fn sqrt<V: Primal>(out: &V, g: &V) -> V {
    g.div(out).scale(0.5)
}

impl<T: Float> Tensor<T> {
    /// `eˣ`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).exp().to_scalar(), 1.0);
    /// ```
    pub fn exp(&self) -> Tensor<T> {
        unary(self, "exp", Saved::Output, T::exp, (exp, exp))
    }
}

/// Backward rule of [`Tensor::exp`]: d/dx eˣ = eˣ, from the output.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::exp(&0.5_f64, &1.0);
/// ```
pub fn exp<V: Primal>(out: &V, g: &V) -> V {
    g.mul(out)
}

impl<T: Float> Tensor<T> {
    /// The natural logarithm, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f32).ln().to_scalar(), 0.0);
    /// ```
    pub fn ln(&self) -> Tensor<T> {
        unary(self, "ln", Saved::Input, T::ln, (ln, ln))
    }
}

/// Backward rule of [`Tensor::ln`]: d/dx ln x = 1 / x.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::ln(&0.5_f64, &1.0);
/// ```
pub fn ln<V: Primal>(x: &V, g: &V) -> V {
    g.div(x)
}

impl<T: Float> Tensor<T> {
    /// Sine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sin().to_scalar(), 0.0);
    /// ```
    pub fn sin(&self) -> Tensor<T> {
        unary(
            self,
            "sin",
            Saved::Input,
            num_traits::Float::sin,
            (sin, sin),
        )
    }
}

/// Backward rule of [`Tensor::sin`]: d/dx sin x = cos x.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::sin(&0.5_f64, &1.0);
/// ```
pub fn sin<V: Primal>(x: &V, g: &V) -> V {
    g.mul(&x.cos())
}

impl<T: Float> Tensor<T> {
    /// Cosine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).cos().to_scalar(), 1.0);
    /// ```
    pub fn cos(&self) -> Tensor<T> {
        unary(
            self,
            "cos",
            Saved::Input,
            num_traits::Float::cos,
            (cos, cos),
        )
    }
}

/// Backward rule of [`Tensor::cos`]: d/dx cos x = -sin x.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::cos(&0.5_f64, &1.0);
/// ```
pub fn cos<V: Primal>(x: &V, g: &V) -> V {
    g.mul(&x.sin()).neg()
}

impl<T: Float> Tensor<T> {
    /// Hyperbolic tangent, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).tanh().to_scalar(), 0.0);
    /// ```
    pub fn tanh(&self) -> Tensor<T> {
        unary(self, "tanh", Saved::Output, T::tanh, (tanh, tanh))
    }
}

/// Backward rule of [`Tensor::tanh`]: d/dx tanh x = 1 - tanh² x, from the output.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::tanh(&0.5_f64, &1.0);
/// ```
pub fn tanh<V: Primal>(out: &V, g: &V) -> V {
    g.mul(&out.square().one_minus())
}

impl<T: Float> Tensor<T> {
    /// The logistic sigmoid `1 / (1 + e⁻ˣ)`, elementwise, computed without overflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sigmoid().to_scalar(), 0.5);
    /// ```
    pub fn sigmoid(&self) -> Tensor<T> {
        unary(
            self,
            "sigmoid",
            Saved::Output,
            sigmoid_value,
            (sigmoid, sigmoid),
        )
    }
}

/// Backward rule of [`Tensor::sigmoid`]: d/dx σ(x) = σ(x) (1 - σ(x)), from the output.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::sigmoid(&0.5_f64, &1.0);
/// ```
pub fn sigmoid<V: Primal>(out: &V, g: &V) -> V {
    g.mul(out).mul(&out.one_minus())
}

impl<T: Float> Tensor<T> {
    /// `max(x, 0)`, elementwise. Keeps only its output for the backward pass.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![-1.0_f32, 2.0], &[2]);
    /// assert_eq!(x.relu().to_vec(), vec![0.0, 2.0]);
    /// ```
    pub fn relu(&self) -> Tensor<T> {
        unary(
            self,
            "relu",
            Saved::Output,
            |v| v.max(T::ZERO),
            (relu, relu),
        )
    }
}

/// Backward rule of [`Tensor::relu`]: d/dx relu x = `[x > 0]` (0 at 0, as TensorFlow), from the output.
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::relu(&0.5_f64, &1.0);
/// ```
pub fn relu<V: Primal>(out: &V, g: &V) -> V {
    g.mul(&out.positive_mask())
}

impl<T: Float> Tensor<T> {
    /// `ln(1 + eˣ)`, elementwise, computed without overflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::scalar(10.0_f32).softplus().to_scalar();
    /// assert!((y - 10.0000454).abs() < 1e-5);
    /// ```
    pub fn softplus(&self) -> Tensor<T> {
        unary(
            self,
            "softplus",
            Saved::Input,
            softplus_value,
            (softplus, softplus),
        )
    }
}

/// Backward rule of [`Tensor::softplus`]: d/dx ln(1 + eˣ) = σ(x).
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::softplus(&0.5_f64, &1.0);
/// ```
pub fn softplus<V: Primal>(x: &V, g: &V) -> V {
    g.mul(&x.sigmoid())
}

impl<T: Float> Tensor<T> {
    /// `|x|`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(-2.0_f32).abs().to_scalar(), 2.0);
    /// ```
    pub fn abs(&self) -> Tensor<T> {
        unary(self, "abs", Saved::Input, T::abs, (abs, abs))
    }
}

/// Backward rule of [`Tensor::abs`]: d/dx |x| = sign x (0 at 0, as TensorFlow).
///
/// ```
/// # use gradtape_runtime::vjp;
/// let _ = vjp::abs(&0.5_f64, &1.0);
/// ```
pub fn abs<V: Primal>(x: &V, g: &V) -> V {
    g.mul(&x.sign())
}

impl<T: Float> Tensor<T> {
    /// `xⁿ` for an integer `n`, elementwise (TensorFlow's `x ** n`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(2.0_f64).powi(3).to_scalar(), 8.0);
    /// ```
    pub fn powi(&self, n: i32) -> Tensor<T> {
        unary_with_param(
            self,
            "powi",
            n as f64,
            |v| num_traits::Float::powi(v, n),
            both!(|x, g, n| powi(x, g, n as i32)),
        )
    }
}

/// Backward rule of [`Tensor::powi`]: d/dx xⁿ = n xⁿ⁻¹ (and 0 for n = 0).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::powi(&2.0_f64, &1.0, 3), 12.0);
/// ```
pub fn powi<V: Primal>(x: &V, g: &V, n: i32) -> V {
    if n == 0 {
        g.scale(0.0)
    } else {
        g.mul_scaled(&x.powi(n - 1), n as f64)
    }
}

impl<T: Float> Tensor<T> {
    /// `xᵖ` for a real `p`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(4.0_f32).powf(0.5).to_scalar(), 2.0);
    /// ```
    pub fn powf(&self, p: T) -> Tensor<T> {
        unary_with_param(
            self,
            "powf",
            p.to_f64(),
            |v| num_traits::Float::powf(v, p),
            (powf, powf),
        )
    }
}

/// Backward rule of [`Tensor::powf`]: d/dx xᵖ = p xᵖ⁻¹.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::powf(&4.0_f64, &1.0, 0.5), 0.25);
/// ```
pub fn powf<V: Primal>(x: &V, g: &V, p: f64) -> V {
    g.mul_scaled(&x.powf(p - 1.0), p)
}

pub(crate) fn sigmoid_value<T: Float>(v: T) -> T {
    if v >= T::ZERO {
        T::ONE / (T::ONE + (-v).exp())
    } else {
        let e = v.exp();
        e / (T::ONE + e)
    }
}

pub(crate) fn softplus_value<T: Float>(v: T) -> T {
    // ln(1 + eˣ) = max(x, 0) + ln(1 + e^-|x|)
    v.max(T::ZERO) + (-v.abs()).exp().ln_1p()
}
