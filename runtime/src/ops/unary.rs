//! Elementwise unary ops: for each, its forward on one number (the kernel the tensor op maps
//! and the 0-d path of generated code calls, so the two agree to the last bit) and its
//! backward rule, a generic function over [`Primal`] that the tape (on tensors and plain
//! numbers) and `#[differentiable]`'s generated adjoints share. What each rule keeps from
//! the forward (the input or the output) is the vocabulary's (`gradtape-primitives`), so the
//! runtime and the macro cannot disagree on it.

use super::{Saved, both, unary, unary_with_param};
use crate::base::dtype::Float;
use crate::base::primal::Primal;
use crate::base::tensor::Tensor;

/// Defines each op from its row: the `Tensor` method (recording the value the vocabulary
/// says the rule keeps), the kernel `kernel::<name>`, and the rule `<name>` (re-exported as
/// `vjp::<name>`), whose doc example checks it against a central difference of the op.
macro_rules! elementwise_unary_ops {
    ($(
        $(#[$method_doc:meta])*
        fn $name:ident($x:ident) = $forward:expr;
        #[doc = $calculus:literal]
        rule($saved:ident, $g:ident) = $rule:expr;
    )*) => {
        impl<T: Float> Tensor<T> {$(
            $(#[$method_doc])*
            #[inline]
            #[track_caller]
            pub fn $name(&self) -> Tensor<T> {
                const SAVED: Saved = Saved::of(stringify!($name));
                unary(self, stringify!($name), SAVED, kernel::$name, both!($name))
            }
        )*}

        $(
            #[doc = concat!("Backward rule of [`Tensor::", stringify!($name), "`]: ", $calculus, ".")]
            ///
            /// ```
            /// use gradtape_runtime::{Tensor, vjp};
            #[doc = concat!(
                "let f = |x: f64| Tensor::scalar(x).", stringify!($name), "().to_scalar();\n",
                "let (x, h) = (0.7, 1e-6);\n",
                "let slope = (f(x + h) - f(x - h)) / (2.0 * h);\n",
                "let keeps_output = gradtape_primitives::row_of(\"", stringify!($name), "\").saves_output();\n",
                "let saved = if keeps_output { f(x) } else { x };\n",
                "assert!((vjp::", stringify!($name), "(&saved, &1.0) - slope).abs() < 1e-6);"
            )]
            /// ```
            pub fn $name<V: Primal>($saved: &V, $g: &V) -> V {
                $rule
            }
        )*

        /// The forward of each elementwise op on one number.
        pub mod kernel {
            use crate::base::dtype::Float;

            $(
                #[doc = concat!(
                    "[`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ") of one number."
                )]
                #[inline]
                pub fn $name<T: Float>($x: T) -> T {
                    $forward
                }
            )*

            /// [`Tensor::powi`](crate::Tensor::powi) of one number.
            #[inline]
            pub fn powi<T: Float>(x: T, n: i32) -> T {
                num_traits::Float::powi(x, n)
            }

            /// [`Tensor::powf`](crate::Tensor::powf) of one number.
            #[inline]
            pub fn powf<T: Float>(x: T, p: T) -> T {
                num_traits::Float::powf(x, p)
            }
        }
    };
}

elementwise_unary_ops! {
    /// `x²`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(3.0_f32).square().to_scalar(), 9.0);
    /// ```
    fn square(x) = x * x;
    /// d/dx x² = 2x
    rule(x, g) = g.mul_scaled(x, 2.0);

    /// `√x`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(9.0_f32).sqrt().to_scalar(), 3.0);
    /// ```
    fn sqrt(x) = num_traits::Float::sqrt(x);
    /// d/dx √x = 1 / (2 √x), from the output
    rule(out, g) = g.div(out).scale(0.5);

    /// `eˣ`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).exp().to_scalar(), 1.0);
    /// ```
    fn exp(x) = num_traits::Float::exp(x);
    /// d/dx eˣ = eˣ, from the output
    rule(out, g) = g.mul(out);

    /// The natural logarithm, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f32).ln().to_scalar(), 0.0);
    /// ```
    fn ln(x) = num_traits::Float::ln(x);
    /// d/dx ln x = 1 / x
    rule(x, g) = g.div(x);

    /// `ln(1 + x)`, elementwise: exact for small `x`, where `(1.0 + x).ln()` loses the digits
    /// of `x` to rounding.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::scalar(1e-10_f64).log1p().to_scalar();
    /// assert!((y - 1e-10).abs() < 1e-20); // (1.0 + 1e-10).ln() is 8e-18 off
    /// ```
    fn log1p(x) = num_traits::Float::ln_1p(x);
    /// d/dx ln(1 + x) = 1 / (1 + x), with 1 + x written 1 − (−x)
    rule(x, g) = g.div(&x.neg().one_minus());

    /// Sine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sin().to_scalar(), 0.0);
    /// ```
    fn sin(x) = num_traits::Float::sin(x);
    /// d/dx sin x = cos x
    rule(x, g) = g.mul(&x.cos());

    /// Cosine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).cos().to_scalar(), 1.0);
    /// ```
    fn cos(x) = num_traits::Float::cos(x);
    /// d/dx cos x = −sin x
    rule(x, g) = g.mul(&x.sin()).neg();

    /// Hyperbolic tangent, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).tanh().to_scalar(), 0.0);
    /// ```
    fn tanh(x) = num_traits::Float::tanh(x);
    /// d/dx tanh x = 1 − tanh² x, from the output
    rule(out, g) = g.mul(&out.square().one_minus());

    /// The logistic sigmoid `1 / (1 + e⁻ˣ)`, elementwise, computed without overflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sigmoid().to_scalar(), 0.5);
    /// ```
    fn sigmoid(x) = crate::base::primal::sigmoid_value(x);
    /// d/dx σ(x) = σ(x) (1 − σ(x)), from the output
    rule(out, g) = g.mul(out).mul(&out.one_minus());

    /// `max(x, 0)`, elementwise (NaN at NaN). Keeps only its output for the backward pass.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![-1.0_f32, 2.0], &[2]);
    /// assert_eq!(x.relu().to_vec(), vec![0.0, 2.0]);
    /// ```
    fn relu(x) = crate::base::primal::relu_value(x);
    /// d/dx relu x = `[x > 0]` (0 at 0, as TensorFlow), from the output
    rule(out, g) = g.mul(&out.positive_mask());

    /// `ln(1 + eˣ)`, elementwise, computed without overflow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::scalar(10.0_f32).softplus().to_scalar();
    /// assert!((y - 10.0000454).abs() < 1e-5);
    /// ```
    fn softplus(x) = crate::base::primal::softplus_value(x);
    /// d/dx ln(1 + eˣ) = σ(x)
    rule(x, g) = g.mul(&x.sigmoid());

    /// `|x|`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(-2.0_f32).abs().to_scalar(), 2.0);
    /// ```
    fn abs(x) = num_traits::Float::abs(x);
    /// d/dx |x| = sign x (0 at 0, as TensorFlow)
    rule(x, g) = g.mul(&x.sign());
}

impl<T: Float> Tensor<T> {
    /// `xⁿ` for an integer `n`, elementwise (TensorFlow's `x ** n`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(2.0_f64).powi(3).to_scalar(), 8.0);
    /// ```
    #[track_caller]
    pub fn powi(&self, n: i32) -> Tensor<T> {
        unary_with_param(
            self,
            "powi",
            n as f64,
            |v| kernel::powi(v, n),
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
    #[track_caller]
    pub fn powf(&self, p: T) -> Tensor<T> {
        unary_with_param(
            self,
            "powf",
            p.to_f64(),
            |v| kernel::powf(v, p),
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
