//! Elementwise unary ops. Each rule is one line of calculus, noted above it.

use super::{Saved, unary, unary_with_param};
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
        // d/dx x² = 2x
        unary(
            self,
            "square",
            Saved::Input,
            |v| v * v,
            |x, g| g * x * T::from_f64(2.0),
        )
    }

    /// `xⁿ` for an integer `n`, elementwise (TensorFlow's `x ** n`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(2.0_f64).powi(3).to_scalar(), 8.0);
    /// ```
    pub fn powi(&self, n: i32) -> Tensor<T> {
        // d/dx xⁿ = n xⁿ⁻¹ (and 0 for n = 0)
        unary_with_param(
            self,
            "powi",
            n as f64,
            |v| v.powi(n),
            |x, g, n| {
                let n = n as i32;
                if n == 0 {
                    g * T::ZERO
                } else {
                    g * x.powi(n - 1) * T::from_f64(n as f64)
                }
            },
        )
    }

    /// `xᵖ` for a real `p`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(4.0_f32).powf(0.5).to_scalar(), 2.0);
    /// ```
    pub fn powf(&self, p: T) -> Tensor<T> {
        // d/dx xᵖ = p xᵖ⁻¹
        unary_with_param(
            self,
            "powf",
            p.to_f64(),
            |v| v.powf(p),
            |x, g, p| g * x.powf(T::from_f64(p - 1.0)) * T::from_f64(p),
        )
    }

    /// `√x`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(9.0_f32).sqrt().to_scalar(), 3.0);
    /// ```
    pub fn sqrt(&self) -> Tensor<T> {
        // d/dx √x = 1 / (2 √x)
        unary(self, "sqrt", Saved::Output, T::sqrt, |out, g| {
            g / out * T::from_f64(0.5)
        })
    }

    /// `eˣ`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).exp().to_scalar(), 1.0);
    /// ```
    pub fn exp(&self) -> Tensor<T> {
        // d/dx eˣ = eˣ
        unary(self, "exp", Saved::Output, T::exp, |out, g| g * out)
    }

    /// The natural logarithm, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f32).ln().to_scalar(), 0.0);
    /// ```
    pub fn ln(&self) -> Tensor<T> {
        // d/dx ln x = 1 / x
        unary(self, "ln", Saved::Input, T::ln, |x, g| g / x)
    }

    /// Sine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sin().to_scalar(), 0.0);
    /// ```
    pub fn sin(&self) -> Tensor<T> {
        // d/dx sin x = cos x
        unary(self, "sin", Saved::Input, T::sin, |x, g| g * x.cos())
    }

    /// Cosine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).cos().to_scalar(), 1.0);
    /// ```
    pub fn cos(&self) -> Tensor<T> {
        // d/dx cos x = -sin x
        unary(self, "cos", Saved::Input, T::cos, |x, g| -(g * x.sin()))
    }

    /// Hyperbolic tangent, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).tanh().to_scalar(), 0.0);
    /// ```
    pub fn tanh(&self) -> Tensor<T> {
        // d/dx tanh x = 1 - tanh² x
        unary(self, "tanh", Saved::Output, T::tanh, |out, g| {
            g * (Tensor::scalar(T::ONE) - out.square())
        })
    }

    /// The logistic sigmoid `1 / (1 + e⁻ˣ)`, elementwise, computed without overflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sigmoid().to_scalar(), 0.5);
    /// ```
    pub fn sigmoid(&self) -> Tensor<T> {
        // d/dx σ(x) = σ(x) (1 - σ(x))
        unary(self, "sigmoid", Saved::Output, sigmoid_value, |out, g| {
            g * out * (Tensor::scalar(T::ONE) - out)
        })
    }

    /// `max(x, 0)`, elementwise. Keeps only its output for the backward pass.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![-1.0_f32, 2.0], &[2]);
    /// assert_eq!(x.relu().to_vec(), vec![0.0, 2.0]);
    /// ```
    pub fn relu(&self) -> Tensor<T> {
        // d/dx relu x = [x > 0]  (0 at x = 0, as TensorFlow)
        unary(
            self,
            "relu",
            Saved::Output,
            |v| v.max(T::ZERO),
            |out, g| g * out.positive_mask(),
        )
    }

    /// `ln(1 + eˣ)`, elementwise, computed without overflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::scalar(10.0_f32).softplus().to_scalar();
    /// assert!((y - 10.0000454).abs() < 1e-5);
    /// ```
    pub fn softplus(&self) -> Tensor<T> {
        // d/dx ln(1 + eˣ) = σ(x)
        unary(self, "softplus", Saved::Input, softplus_value, |x, g| {
            g * x.sigmoid()
        })
    }

    /// `|x|`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(-2.0_f32).abs().to_scalar(), 2.0);
    /// ```
    pub fn abs(&self) -> Tensor<T> {
        // d/dx |x| = sign x  (0 at x = 0, as TensorFlow)
        unary(self, "abs", Saved::Input, T::abs, |x, g| {
            g * x.sign_constant()
        })
    }

    /// `[x > 0]` as 0/1 values of the same dtype: a constant, never recorded.
    pub(crate) fn positive_mask(&self) -> Tensor<T> {
        Tensor::from_data(self.map_data(|v| if v > T::ZERO { T::ONE } else { T::ZERO }))
    }

    /// The sign of each element (0 at 0): a constant, never recorded.
    pub(crate) fn sign_constant(&self) -> Tensor<T> {
        Tensor::from_data(self.map_data(|v| {
            if v > T::ZERO {
                T::ONE
            } else if v < T::ZERO {
                -T::ONE
            } else {
                T::ZERO
            }
        }))
    }
}

fn sigmoid_value<T: Float>(v: T) -> T {
    if v >= T::ZERO {
        T::ONE / (T::ONE + (-v).exp())
    } else {
        let e = v.exp();
        e / (T::ONE + e)
    }
}

fn softplus_value<T: Float>(v: T) -> T {
    // ln(1 + eˣ) = max(x, 0) + ln(1 + e^-|x|)
    v.max(T::ZERO) + (-v.abs()).exp().ln_1p()
}
