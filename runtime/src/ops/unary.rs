//! Elementwise unary ops: for each, its forward on one number (the kernel the tensor op maps
//! and the 0-d path of generated code calls, so the two agree to the last bit; `exp` maps
//! a vectorised kernel of its own over arrays, `exp.rs`, within 1 ulp of it) and its
//! backward rule, a generic function over [`Primal`] that the tape (on tensors and plain
//! numbers) and `#[differentiable]`'s generated adjoints share. What each rule keeps from
//! the forward (the input or the output) is the vocabulary's (`gradtape-primitives`), so the
//! runtime and the macro cannot disagree on it.

mod exp;

use super::{Saved, both, unary, unary_with_param};
use crate::base::dtype::Float;
use crate::base::primal::{Elementary, ElementaryOps, Primal, PrimalOps};
use crate::base::tensor::Tensor;

/// An elementwise op's forward value: its kernel on every element, or, when the row names
/// a function for `arrays` (`exp`'s: a vectorised kernel on an array's elements and the
/// plain kernel on a 0-d tensor), that function's values.
macro_rules! forward {
    ($x:expr, $kernel:path) => {
        $x.map_data($kernel)
    };
    ($x:expr, $kernel:path, $arrays:path) => {
        $arrays($x)
    };
}

/// Defines each op from its row: the `Tensor` method (recording the value the vocabulary
/// says the rule keeps), the kernel `kernel::<name>`, and the rule `<name>` (re-exported as
/// `vjp::<name>`), whose doc example checks it against a central difference of the op. A
/// row may name a function for arrays (`arrays = path;`), which gives the method's values
/// instead (`forward!`).
macro_rules! elementwise_unary_ops {
    ($(
        $(#[$method_doc:meta])*
        fn $name:ident($x:ident) = $forward:expr;
        $(arrays = $arrays:path;)?
        #[doc = $calculus:literal]
        rule($saved:ident, $g:ident) = $rule:expr;
    )*) => {
        impl<T: Float> Tensor<T> {$(
            $(#[$method_doc])*
            #[inline]
            #[track_caller]
            pub fn $name(&self) -> Tensor<T> {
                const SAVED: Saved = Saved::of(stringify!($name));
                let data = forward!(self, kernel::$name $(, $arrays)?);
                unary(self, &stringify!($name), SAVED, data, both!($name))
            }
        )*}

        $(
            #[doc = concat!("Backward rule of [`Tensor::", stringify!($name), "`]: ", $calculus, ".")]
            ///
            /// ```
            /// use gradtape_runtime::{Tensor, vjp};
            #[doc = concat!(
                "let f = |x: f64| Tensor::scalar(x).", stringify!($name), "().to_scalar();\n",
                "// at 0.7, or at 1.7 for an op defined only from 1 (acosh)\n",
                "let (x, h) = (if f(0.7).is_finite() { 0.7 } else { 1.7 }, 1e-6);\n",
                "let slope = (f(x + h) - f(x - h)) / (2.0 * h);\n",
                "let keeps_output = gradtape_primitives::row_of(\"", stringify!($name), "\").saves_output();\n",
                "let saved = if keeps_output { f(x) } else { x };\n",
                "assert!((vjp::", stringify!($name), "(&saved, &1.0) - slope).abs() < 1e-6);"
            )]
            /// ```
            pub fn $name<V: Elementary>($saved: &V, $g: &V) -> V {
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

            /// [`Tensor::round`](crate::Tensor::round) of one number: halves to even.
            #[inline]
            pub fn round<T: Float>(x: T) -> T {
                let nearest = num_traits::Float::round(x); // halves away from zero
                // a half (exact: x − trunc x is exact in binary floats) goes to the even
                // neighbour, which is 2·round(x / 2) (x / 2 is exact too)
                if num_traits::Float::abs(x - num_traits::Float::trunc(x)) == T::from_f64(0.5) {
                    num_traits::Float::round(x / T::from_f64(2.0)) * T::from_f64(2.0)
                } else {
                    nearest
                }
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
    arrays = exp::exp_values;
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

    /// Tangent, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).tan().to_scalar(), 0.0);
    /// ```
    fn tan(x) = num_traits::Float::tan(x);
    /// d/dx tan x = 1 + tan² x, from the output
    rule(out, g) = g.add(&g.mul(&out.square()));

    /// Arcsine, elementwise (NaN outside `[-1, 1]`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f64).asin().to_scalar(), std::f64::consts::FRAC_PI_2);
    /// ```
    fn asin(x) = num_traits::Float::asin(x);
    /// d/dx asin x = 1 / √(1 − x²)
    rule(x, g) = g.div(&x.square().one_minus().sqrt());

    /// Arccosine, elementwise (NaN outside `[-1, 1]`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f64).acos().to_scalar(), 0.0);
    /// ```
    fn acos(x) = num_traits::Float::acos(x);
    /// d/dx acos x = −1 / √(1 − x²)
    rule(x, g) = g.div(&x.square().one_minus().sqrt()).neg();

    /// Arctangent, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f64).atan().to_scalar(), std::f64::consts::FRAC_PI_4);
    /// ```
    fn atan(x) = num_traits::Float::atan(x);
    /// d/dx atan x = 1 / (1 + x²), with 1 + x² written 1 − (−x²)
    rule(x, g) = g.div(&x.square().neg().one_minus());

    /// Hyperbolic sine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).sinh().to_scalar(), 0.0);
    /// ```
    fn sinh(x) = num_traits::Float::sinh(x);
    /// d/dx sinh x = cosh x
    rule(x, g) = g.mul(&x.cosh());

    /// Hyperbolic cosine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).cosh().to_scalar(), 1.0);
    /// ```
    fn cosh(x) = num_traits::Float::cosh(x);
    /// d/dx cosh x = sinh x
    rule(x, g) = g.mul(&x.sinh());

    /// Inverse hyperbolic sine, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).asinh().to_scalar(), 0.0);
    /// ```
    fn asinh(x) = num_traits::Float::asinh(x);
    /// d/dx asinh x = 1 / √(x² + 1), with x² + 1 written 1 − (−x²)
    rule(x, g) = g.div(&x.square().neg().one_minus().sqrt());

    /// Inverse hyperbolic cosine, elementwise (NaN below 1).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(1.0_f32).acosh().to_scalar(), 0.0);
    /// ```
    fn acosh(x) = num_traits::Float::acosh(x);
    /// d/dx acosh x = 1 / √(x² − 1), with x² − 1 written −(1 − x²)
    rule(x, g) = g.div(&x.square().one_minus().neg().sqrt());

    /// Inverse hyperbolic tangent, elementwise (NaN outside `[-1, 1]`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(0.0_f32).atanh().to_scalar(), 0.0);
    /// ```
    fn atanh(x) = num_traits::Float::atanh(x);
    /// d/dx atanh x = 1 / (1 − x²)
    rule(x, g) = g.div(&x.square().one_minus());

    /// `2ˣ`, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(3.0_f32).exp2().to_scalar(), 8.0);
    /// ```
    fn exp2(x) = num_traits::Float::exp2(x);
    /// d/dx 2ˣ = 2ˣ ln 2, from the output
    rule(out, g) = g.mul_scaled(out, std::f64::consts::LN_2);

    /// `eˣ − 1`, elementwise: exact for small `x`, where `x.exp() - 1.0` loses the digits of
    /// `x` to rounding (TensorFlow's `expm1`; [`Tensor::exp_m1`] is Rust's name for it).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::scalar(1e-10_f64).expm1().to_scalar();
    /// assert!((y - 1e-10).abs() < 1e-20);
    /// ```
    fn expm1(x) = num_traits::Float::exp_m1(x);
    /// d/dx (eˣ − 1) = eˣ = out + 1, from the output
    rule(out, g) = g.add(&g.mul(out));

    /// The base-2 logarithm, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(8.0_f32).log2().to_scalar(), 3.0);
    /// ```
    fn log2(x) = num_traits::Float::log2(x);
    /// d/dx log₂ x = 1 / (x ln 2)
    rule(x, g) = g.div(x).scale(std::f64::consts::LOG2_E);

    /// The base-10 logarithm, elementwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(100.0_f32).log10().to_scalar(), 2.0);
    /// ```
    fn log10(x) = num_traits::Float::log10(x);
    /// d/dx log₁₀ x = 1 / (x ln 10)
    rule(x, g) = g.div(x).scale(std::f64::consts::LOG10_E);

    /// The cube root, elementwise (negative for negative `x`, unlike `x.powf(1.0 / 3.0)`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(-8.0_f32).cbrt().to_scalar(), -2.0);
    /// ```
    fn cbrt(x) = num_traits::Float::cbrt(x);
    /// d/dx ∛x = 1 / (3 ∛x²), from the output
    rule(out, g) = g.div(&out.square()).scale(1.0 / 3.0);

    /// `1 / x`, elementwise (TensorFlow's `reciprocal`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(4.0_f32).recip().to_scalar(), 0.25);
    /// ```
    fn recip(x) = num_traits::Float::recip(x);
    /// d/dx (1 / x) = −1 / x² = −out², from the output
    rule(out, g) = g.mul(&out.square()).neg();

    /// The error function `erf x = 2/√π ∫₀ˣ e^(−t²) dt`, elementwise (TensorFlow's `erf`;
    /// `f64` has no `erf`: the value is `libm`'s, computed in `f64` for both dtypes).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::scalar(1.0_f64).erf().to_scalar();
    /// assert!((y - 0.8427007929497149).abs() < 1e-15);
    /// ```
    fn erf(x) = T::from_f64(libm::erf(x.to_f64()));
    /// d/dx erf x = 2/√π e^(−x²)
    rule(x, g) = g.mul_scaled(&x.square().neg().exp(), std::f64::consts::FRAC_2_SQRT_PI);

    /// Radians to degrees, `x · 180/π`, elementwise (std's `to_degrees`, bit for bit: in
    /// `f32` with its own `f32` factor).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let right_angle = Tensor::scalar(std::f64::consts::FRAC_PI_2).to_degrees().to_scalar();
    /// assert!((right_angle - 90.0).abs() < 1e-13);
    /// ```
    fn to_degrees(x) = num_traits::Float::to_degrees(x);
    /// d/dx (x · 180/π) = 180/π, a constant in the element type (`scale` rounds it), the saved input unread
    rule(_x, g) = g.scale(180.0 / std::f64::consts::PI);

    /// Degrees to radians, `x · π/180`, elementwise (std's `to_radians`, bit for bit).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let half_turn = Tensor::scalar(180.0_f64).to_radians().to_scalar();
    /// assert!((half_turn - std::f64::consts::PI).abs() < 1e-15);
    /// ```
    fn to_radians(x) = num_traits::Float::to_radians(x);
    /// d/dx (x · π/180) = π/180, a constant in the element type (`scale` rounds it), the saved input unread
    rule(_x, g) = g.scale(std::f64::consts::PI / 180.0);
}

/// Piecewise constant ops: their derivative is zero wherever it exists. TensorFlow's
/// choices, followed here: `sign`'s gradient is registered as zeros (a derivative through it
/// is connected and zero), while `floor`, `ceil` and `round` are registered with no gradient
/// (not recorded: a gradient whose only path goes through one is `None`). `trunc`, which
/// TensorFlow has no float op for, is `floor`'s mirror and goes with it.
impl<T: Float> Tensor<T> {
    /// The sign of each element: −1, 0 or 1 (0 at ±0, NaN at NaN, as `tf.sign`; Rust's
    /// `f64::signum` gives ±1 at ±0). Recorded with a gradient of zeros, as in TensorFlow.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![-2.0_f64, 0.0, 3.0], &[3]);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.sign());
    /// assert_eq!(y.to_vec(), vec![-1.0, 0.0, 1.0]);
    /// // connected, and zero
    /// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_vec(), vec![0.0; 3]);
    /// ```
    #[track_caller]
    pub fn sign(&self) -> Tensor<T> {
        super::piecewise_constant(self, &"sign", crate::base::primal::sign_of)
    }

    /// The largest integer not above each element. Not differentiable, as in TensorFlow:
    /// not recorded, so a gradient through it alone is `None`.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![-1.5_f64, 2.5], &[2]);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.floor());
    /// assert_eq!(y.to_vec(), vec![-2.0, 2.0]);
    /// assert!(tape.gradient(&y, &x).unwrap().is_none());
    /// ```
    pub fn floor(&self) -> Tensor<T> {
        Tensor::from_data(self.map_data(num_traits::Float::floor))
    }

    /// The smallest integer not below each element. Not differentiable, as in TensorFlow
    /// (see [`Tensor::floor`]).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![-1.5_f32, 2.5], &[2]);
    /// assert_eq!(x.ceil().to_vec(), vec![-1.0, 3.0]);
    /// ```
    pub fn ceil(&self) -> Tensor<T> {
        Tensor::from_data(self.map_data(num_traits::Float::ceil))
    }

    /// Each element rounded to the nearest integer, halves to the even one (`tf.round`,
    /// NumPy's `round`, `f64::round_ties_even`; `f64::round` takes halves away from zero).
    /// Not differentiable, as in TensorFlow (see [`Tensor::floor`]).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![0.5_f64, 1.5, 2.5, -0.5, 2.4], &[5]);
    /// assert_eq!(x.round().to_vec(), vec![0.0, 2.0, 2.0, -0.0, 2.0]);
    /// ```
    pub fn round(&self) -> Tensor<T> {
        Tensor::from_data(self.map_data(kernel::round))
    }

    /// Each element with its fraction dropped (rounded toward zero). Not differentiable
    /// (see [`Tensor::floor`]).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![-1.5_f64, 2.5], &[2]);
    /// assert_eq!(x.trunc().to_vec(), vec![-1.0, 2.0]);
    /// ```
    pub fn trunc(&self) -> Tensor<T> {
        Tensor::from_data(self.map_data(num_traits::Float::trunc))
    }
}

impl<T: Float> Tensor<T> {
    /// `eˣ − 1`, elementwise: Rust's name (`f64::exp_m1`) for [`Tensor::expm1`], recorded as
    /// `expm1`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::scalar(1e-3_f64);
    /// assert_eq!(x.exp_m1().to_scalar(), x.expm1().to_scalar());
    /// ```
    #[inline]
    #[track_caller]
    pub fn exp_m1(&self) -> Tensor<T> {
        self.expm1()
    }

    /// `ln(1 + x)`, elementwise: Rust's name (`f64::ln_1p`) for [`Tensor::log1p`], recorded
    /// as `log1p`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::scalar(1e-3_f64);
    /// assert_eq!(x.ln_1p().to_scalar(), x.log1p().to_scalar());
    /// ```
    #[inline]
    #[track_caller]
    pub fn ln_1p(&self) -> Tensor<T> {
        self.log1p()
    }
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
            &"powi",
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
            &"powf",
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
