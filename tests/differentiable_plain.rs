//! Plain helpers (issue 13, "calls to plain helper functions ... without annotating them"):
//! functions that are not `#[differentiable]`, generic over `num_traits::Float`, named in
//! the caller's `plain(..)` and differentiated on dual numbers; in tensor mode, plain
//! helpers over tensors replayed op by op on a sub-tape; and `strict`, which allows neither.
//!
//! Oracles: each caller is written twice from one definition (`callers!`), once calling the
//! plain helpers and once calling the same helpers annotated (`helpers!`), so that the dual
//! numbers' derivatives meet the macro's own rules; both against central differences of
//! `f::primal`, `jvp` against `grad`, and the Hessian by differences of `grad` against
//! second differences of the value.

mod common;

use common::faces::Scalar;
use common::{Tolerance, central_differences, check_annotated, close};
use gradtape::{Tensor, differentiable};
use num_traits::Float;

/// The helpers, once as written (plain) and once annotated.
macro_rules! helpers {
    ($(#[$attr:meta])*) => {
        /// Softplus, `ln(1 + eˣ)`, stable for large `x`.
        $(#[$attr])*
        pub fn softplus<T: Float>(x: T) -> T {
            if x > T::from(30.0).unwrap() {
                x
            } else {
                x.exp().ln_1p()
            }
        }

        /// The logistic function.
        $(#[$attr])*
        pub fn logistic<T: Float>(x: T) -> T {
            T::one() / (T::one() + (-x).exp())
        }

        /// A smooth absolute value (pseudo-Huber with scale `eps`).
        $(#[$attr])*
        pub fn smooth_abs<T: Float>(x: T, eps: T) -> T {
            (x * x + eps * eps).sqrt() - eps
        }

        /// The Huber loss of a residual, both arguments differentiable.
        $(#[$attr])*
        pub fn huber<T: Float>(r: T, delta: T) -> T {
            let a = r.abs();
            if a <= delta {
                T::from(0.5).unwrap() * r * r
            } else {
                delta * (a - T::from(0.5).unwrap() * delta)
            }
        }

        /// Polar coordinates: a tuple result.
        $(#[$attr])*
        pub fn polar<T: Float>(x: T, y: T) -> (T, T) {
            (x.hypot(y), y.atan2(x))
        }

        /// A spring-damper's acceleration, with a cubic stiffening term.
        $(#[$attr])*
        pub fn acceleration<T: Float>(x: T, v: T, k: T) -> T {
            -k * x - T::from(0.1).unwrap() * v - T::from(0.05).unwrap() * x.powi(3)
        }

        /// A smooth step on `[0, 1]` of a value clamped into it, with constants of the type.
        $(#[$attr])*
        pub fn wave<T: Float + FloatConst>(x: T, phase: T) -> T {
            let t = x.max(T::zero()).min(T::one());
            let step = t * t * (T::from(3.0).unwrap() - T::from(2.0).unwrap() * t);
            step * (T::PI() * x + phase).sin() + x.cbrt() * phase.tanh()
        }
    };
}

/// Plain: not annotated.
mod plain {
    use num_traits::{Float, FloatConst};
    helpers!();
}

/// The same functions annotated: the oracle.
mod annotated {
    use gradtape::differentiable;
    use num_traits::{Float, FloatConst};
    helpers!(#[differentiable]);
}

/// The callers, once per module of helpers.
macro_rules! callers {
    ($(#[$attr:meta])*) => {
        /// A logistic-regression-like loss on one example.
        $(#[$attr])*
        pub fn loss(w: f64, b: f64, label: f64) -> f64 {
            let z = w * 1.5 + b;
            softplus(z) - label * z + 0.01 * smooth_abs(w, 0.1)
        }

        /// Robust regression: Huber losses of residuals, the threshold differentiable.
        $(#[$attr])*
        pub fn robust(a: f64, b: f64, delta: f64) -> f64 {
            let mut total = 0.0;
            for (k, y) in [0.3, -1.2, 2.5, 0.9].iter().enumerate() {
                let r = a * k as f64 + b - y;
                total += huber(r, delta);
            }
            total
        }

        /// A helper with a tuple result, destructured.
        $(#[$attr])*
        pub fn polar_energy(x: f64, y: f64) -> f64 {
            let (r, theta) = polar(x, y);
            r * r * theta.cos() + logistic(theta)
        }

        /// A damped oscillator integrated by symplectic Euler: a helper in a loop.
        $(#[$attr])*
        pub fn oscillator(x0: f64, v0: f64, k: f64) -> f64 {
            let (mut x, mut v) = (x0, v0);
            for _ in 0..40 {
                let a = acceleration(x, v, k);
                v += 0.05 * a;
                x += 0.05 * v;
            }
            x * x + v * v
        }

        /// A helper called in a branch and on the result of another.
        $(#[$attr])*
        pub fn branchy(x: f64, phase: f64) -> f64 {
            let y = if x > 0.5 {
                wave(x, phase)
            } else {
                logistic(softplus(x) * phase)
            };
            y * x
        }
    };
}

mod with_plain {
    use super::plain::*;
    use gradtape::differentiable;
    callers!(#[differentiable(plain(softplus, logistic, smooth_abs, huber, polar, acceleration, wave))]);
}

mod with_annotated {
    use super::annotated::*;
    use gradtape::differentiable;
    callers!(#[differentiable]);
}

/// The checks beyond `Scalar::check` (values to the bit, the gradient against central
/// differences, `jvp` against `grad`): the gradient and tangent against the annotated
/// twin's, and the Hessian by differences of the exact gradient (symmetric) against second
/// differences of the value.
fn check_twins(plain: &Scalar<'_>, annotated: &Scalar<'_>, x: &[f64]) {
    plain.check(x);
    let name = plain.name;
    assert_eq!(
        (annotated.primal)(x).to_bits(),
        (plain.primal)(x).to_bits(),
        "{name}: twin"
    );
    let (_, gradient) = (plain.grad)(x);
    let (_, expected) = (annotated.grad)(x);
    for k in 0..x.len() {
        assert!(
            close(gradient[k], expected[k], 1e-12),
            "{name} at {x:?}: ∂/∂x{k} {} vs the annotated twin's {}",
            gradient[k],
            expected[k]
        );
    }
    let v: Vec<f64> = (0..x.len()).map(|k| 0.7 - 0.4 * k as f64).collect();
    let ((_, tangent), (_, oracle_tangent)) = ((plain.jvp)(x, &v), (annotated.jvp)(x, &v));
    assert!(
        close(tangent, oracle_tangent, 1e-12),
        "{name}: jvp {tangent} vs the twin's {oracle_tangent}"
    );
    let h = 1e-4;
    for i in 0..x.len() {
        let (mut up, mut down) = (x.to_vec(), x.to_vec());
        up[i] += h;
        down[i] -= h;
        let (g_up, g_down) = ((plain.grad)(&up).1, (plain.grad)(&down).1);
        for j in 0..x.len() {
            let by_grad = (g_up[j] - g_down[j]) / (2.0 * h);
            let second = second_difference(plain.primal, x, i, j);
            assert!(
                close(by_grad, second, 1e-4),
                "{name} at {x:?}: H[{i}][{j}] {by_grad} vs second differences {second}"
            );
        }
    }
}

/// `∂²f/∂xᵢ∂xⱼ` by central second differences.
fn second_difference(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize, j: usize) -> f64 {
    let h = 1e-4;
    let at = |di: f64, dj: f64| {
        let mut y = x.to_vec();
        y[i] += di;
        y[j] += dj;
        f(&y)
    };
    (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h)
}

/// Both twins of a three-parameter caller.
macro_rules! twins3 {
    ($f:ident at $($x:expr),+) => {{
        macro_rules! faces {
            ($m:ident) => {
                Scalar {
                    name: stringify!($f),
                    itself: &|x: &[f64]| $m::$f(x[0], x[1], x[2]),
                    primal: &|x: &[f64]| $m::$f::primal(x[0], x[1], x[2]),
                    grad: &|x: &[f64]| {
                        let (value, g) = $m::$f::grad(x[0], x[1], x[2]);
                        (value, g.to_vec())
                    },
                    jvp: &|x: &[f64], v: &[f64]| {
                        $m::$f::jvp(x[0], x[1], x[2], v[0], v[1], v[2])
                    },
                }
            };
        }
        let (plain, annotated) = (faces!(with_plain), faces!(with_annotated));
        $(check_twins(&plain, &annotated, &$x);)+
    }};
}

/// Both twins of a two-parameter caller.
macro_rules! twins2 {
    ($f:ident at $($x:expr),+) => {{
        macro_rules! faces {
            ($m:ident) => {
                Scalar {
                    name: stringify!($f),
                    itself: &|x: &[f64]| $m::$f(x[0], x[1]),
                    primal: &|x: &[f64]| $m::$f::primal(x[0], x[1]),
                    grad: &|x: &[f64]| {
                        let (value, g) = $m::$f::grad(x[0], x[1]);
                        (value, g.to_vec())
                    },
                    jvp: &|x: &[f64], v: &[f64]| $m::$f::jvp(x[0], x[1], v[0], v[1]),
                }
            };
        }
        let (plain, annotated) = (faces!(with_plain), faces!(with_annotated));
        $(check_twins(&plain, &annotated, &$x);)+
    }};
}

#[test]
fn plain_helpers_against_their_annotated_twins() {
    twins3!(loss at [0.4, -0.3, 1.0], [-1.2, 0.8, 0.0], [25.0, 0.5, 1.0]);
    // residuals on both sides of the threshold, the threshold differentiable
    twins3!(robust at [0.5, 0.1, 1.0], [1.3, -0.7, 0.4], [-0.2, 0.3, 2.0]);
    twins2!(polar_energy at [0.7, 1.3], [-0.4, 0.9], [1.5, -0.5]);
    twins3!(oscillator at [1.0, 0.0, 2.0], [0.3, -0.5, 0.7]);
    twins2!(branchy at [0.8, 0.3], [0.2, -1.1], [0.6, 2.0]);
}

/// The generated code shows the fallback: the helper runs on dual numbers.
#[test]
fn the_fallback_is_visible_in_the_generated_code() {
    assert!(with_plain::loss::GENERATED.contains("dual_vjp"));
    assert!(with_plain::loss::GENERATED.contains("softplus"));
    assert!(!with_annotated::loss::GENERATED.contains("dual_vjp"));
}

// ----- generic callers, f32, paths, methods -----

/// A generic caller of plain generic helpers: the dual numbers' element type is the
/// caller's `T`.
#[differentiable(plain(plain::softplus, plain::smooth_abs))]
fn generic_caller<T: Float>(x: T, y: T) -> T {
    plain::softplus(x * y) + plain::smooth_abs(x - y, T::from(0.25).unwrap())
}

#[test]
fn a_generic_caller_at_both_float_types() {
    let (x, y) = (0.6_f64, -1.4_f64);
    let (value, [dx, dy]) = generic_caller::grad(x, y);
    assert_eq!(value, generic_caller(x, y));
    let f = |p: &[f64]| generic_caller::primal(p[0], p[1]);
    let expected = central_differences(&f, &[x, y]);
    assert!(close(dx, expected[0], 1e-6) && close(dy, expected[1], 1e-6));
    // the analytic gradient: σ(xy)·(y, x) + (x - y)/√((x - y)² + 0.25²)·(1, -1)
    let sigma = 1.0 / (1.0 + (-(x * y)).exp());
    let s = (x - y) / ((x - y).powi(2) + 0.0625).sqrt();
    assert!(close(dx, sigma * y + s, 1e-14) && close(dy, sigma * x - s, 1e-14));
    let (value32, [dx32, dy32]) = generic_caller::grad(x as f32, y as f32);
    assert_eq!(value32, generic_caller(x as f32, y as f32));
    assert!((dx32 as f64 - dx).abs() < 1e-5 && (dy32 as f64 - dy).abs() < 1e-5);
}

/// A plain helper whose float parameters are not all of its generic type, with data
/// arguments (an integer, a slice of coefficients) passed as they are.
fn polynomial<T: Float>(x: T, degree: usize, coefficients: &[f64], scale: f64) -> T {
    let mut total = T::zero();
    for k in (0..=degree).rev() {
        total = total * x + T::from(coefficients[k] * scale).unwrap();
    }
    total
}

const COEFFICIENTS: [f64; 4] = [1.0, -2.0, 0.5, 3.0];

#[differentiable(plain(polynomial))]
fn through_polynomial(x: f64, degree: usize) -> f64 {
    polynomial(x.sin(), degree, &COEFFICIENTS, 0.5) * x
}

#[test]
fn data_arguments_pass_through() {
    for degree in 0..4 {
        for x in [0.3, -1.1, 2.0] {
            let (value, [dx]) = through_polynomial::grad(x, degree);
            assert_eq!(value, through_polynomial(x, degree));
            let f = |p: &[f64]| through_polynomial::primal(p[0], degree);
            let expected = central_differences(&f, &[x])[0];
            assert!(
                close(dx, expected, 1e-6),
                "degree {degree} at {x}: {dx} vs {expected}"
            );
            let (_, tangent) = through_polynomial::jvp(x, degree, 1.0);
            assert!(close(tangent, dx, 1e-12));
        }
    }
}

/// An `f32` caller.
#[differentiable(plain(plain::logistic))]
fn single_precision(x: f32) -> f32 {
    plain::logistic(x * 2.0) * x
}

#[test]
fn an_f32_caller() {
    let x = 0.3_f32;
    let (value, [dx]) = single_precision::grad(x);
    assert_eq!(value, single_precision(x));
    let s = 1.0 / (1.0 + (-0.6_f64).exp());
    let expected = s + 0.3 * 2.0 * s * (1.0 - s);
    assert!((dx as f64 - expected).abs() < 1e-6, "{dx} vs {expected}");
}

struct Pendulum {
    length: f64,
}

impl Pendulum {
    /// A scalar method calling a plain helper.
    #[differentiable(plain(plain::smooth_abs))]
    fn energy(&self, angle: f64, speed: f64) -> f64 {
        0.5 * self.length * speed * speed
            + 9.81 * (1.0 - angle.cos())
            + plain::smooth_abs(angle, 0.01)
    }
}

#[test]
fn a_method_calling_a_plain_helper() {
    let p = Pendulum { length: 1.3 };
    let (angle, speed) = (0.4, -0.7);
    let (value, pullback) = p.energy_vjp(angle, speed);
    assert_eq!(value, p.energy(angle, speed));
    let ((), da, ds) = pullback(1.0);
    let f = |x: &[f64]| p.energy(x[0], x[1]);
    let expected = central_differences(&f, &[angle, speed]);
    assert!(
        close(da.unwrap(), expected[0], 1e-6),
        "{da:?} vs {expected:?}"
    );
    assert!(
        close(ds.unwrap(), expected[1], 1e-6),
        "{ds:?} vs {expected:?}"
    );
}

/// Every method of the float set on dual numbers, inside one plain helper, against the
/// same body annotated.
macro_rules! every_method {
    ($(#[$attr:meta])*) => {
        $(#[$attr])*
        pub fn everything<T: Float>(x: T, y: T) -> T {
            let a = x.tan() + x.asin() + x.acos() + x.atan() + y.atan2(x) + x.sinh()
                + x.cosh() + x.asinh() + (y + T::from(2.0).unwrap()).acosh() + x.atanh();
            let b = x.exp2() + x.exp_m1() + x.ln_1p() + y.log(T::from(3.0).unwrap())
                + y.log2() + y.log10() + y.powf(x) + y.cbrt() + x.hypot(y) + y.recip();
            let c = x.mul_add(y, T::one()) + x.max(y) + x.min(y) + x.abs() + y.sqrt()
                + x.powi(3) + x.clamp(T::from(-0.2).unwrap(), T::from(0.2).unwrap())
                + x.floor() + y.round() + x.signum();
            a + b * T::from(0.1).unwrap() + c * c
        }
    };
}

mod methods_plain {
    use num_traits::Float;
    every_method!();
}

mod methods_annotated {
    use gradtape::differentiable;
    use num_traits::Float;
    every_method!(#[differentiable]);
}

#[differentiable(plain(methods_plain::everything))]
fn call_everything(x: f64, y: f64) -> f64 {
    methods_plain::everything(x, y)
}

#[test]
fn every_float_method_on_dual_numbers() {
    for (x, y) in [(0.3, 1.7), (-0.45, 0.6), (0.1, 2.3)] {
        let (value, [dx, dy]) = call_everything::grad(x, y);
        assert_eq!(value.to_bits(), call_everything(x, y).to_bits());
        assert_eq!(
            value.to_bits(),
            methods_annotated::everything(x, y).to_bits()
        );
        assert_eq!(value.to_bits(), methods_plain::everything(x, y).to_bits());
        let (_, [ex, ey]) = methods_annotated::everything::grad(x, y);
        assert!(
            close(dx, ex, 1e-12),
            "at ({x}, {y}): ∂x {dx} vs annotated {ex}"
        );
        assert!(
            close(dy, ey, 1e-12),
            "at ({x}, {y}): ∂y {dy} vs annotated {ey}"
        );
        let f = |p: &[f64]| methods_plain::everything(p[0], p[1]);
        let expected = central_differences(&f, &[x, y]);
        assert!(close(dx, expected[0], 1e-6), "{dx} vs {expected:?}");
        assert!(close(dy, expected[1], 1e-6), "{dy} vs {expected:?}");
    }
}

// ----- tensor mode: a plain helper over tensors needs no naming -----

/// A plain helper over tensors, not annotated: the annotated caller replays it on a
/// sub-tape, op by op.
fn gelu_like(x: &Tensor<f64>) -> Tensor<f64> {
    x * &(x * 1.702).sigmoid()
}

#[differentiable]
fn tensor_caller(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let h = gelu_like(&x.matmul(w));
    (&h * &h).sum()
}

#[test]
fn a_plain_tensor_helper_orders_one_and_two() {
    let x = Tensor::from_vec(vec![0.3, -0.8, 1.2, 0.5, -0.1, 0.9], &[2, 3]);
    let w = Tensor::from_vec(vec![0.7, -0.2, 0.4, 1.1, -0.6, 0.25], &[3, 2]);
    let fused = |t: &[Tensor<f64>]| tensor_caller(&t[0], &t[1]);
    let plain = |t: &[Tensor<f64>]| tensor_caller::primal(&t[0], &t[1]);
    if let Err(message) =
        check_annotated("tensor_caller", &[x, w], &fused, &plain, Tolerance::F64, 11)
    {
        panic!("{message}");
    }
}

// ----- strict -----

#[differentiable(strict)]
fn strict_leaf(x: f64, y: f64) -> f64 {
    (x * y).sin() + y.exp()
}

/// Strict mode with an annotated callee (unconditional, so nothing is boxed) and no
/// plain helper: compiles, and its gradient is the calls' chain rule.
#[differentiable(strict)]
fn strict_caller(x: f64, y: f64) -> f64 {
    strict_leaf(x, y) * strict_leaf(y, x)
}

#[differentiable(strict)]
fn strict_tensor(x: &Tensor<f64>) -> Tensor<f64> {
    let y = tensor_caller(x, x);
    &y * 2.0
}

#[test]
fn strict_functions_differentiate() {
    let (x, y) = (0.4, -0.9);
    let (value, [dx, dy]) = strict_caller::grad(x, y);
    assert_eq!(value, strict_caller(x, y));
    let f = |p: &[f64]| strict_caller::primal(p[0], p[1]);
    let expected = central_differences(&f, &[x, y]);
    assert!(close(dx, expected[0], 1e-6) && close(dy, expected[1], 1e-6));
    let x = Tensor::from_vec(vec![0.3, -0.8, 1.2, 0.5], &[2, 2]);
    let fused = |t: &[Tensor<f64>]| strict_tensor(&t[0]);
    let plain = |t: &[Tensor<f64>]| strict_tensor::primal(&t[0]);
    if let Err(message) = check_annotated("strict_tensor", &[x], &fused, &plain, Tolerance::F64, 5)
    {
        panic!("{message}");
    }
}

/// An annotated call given one tensor at two positions.
#[differentiable]
fn same_tensor_twice(x: &Tensor<f64>) -> Tensor<f64> {
    let y = tensor_caller(x, x);
    &y * 2.0
}

/// Regression: a tensor passed to two parameters of an annotated function (`f(&x, &x)`)
/// got twice its gradient. The callee's sub-tape traces saw one id at both positions and
/// gave the total at each, and the node added both. Checked by central differences along a
/// direction, on the op-by-op tape, and by `check_annotated` (orders 1 and 2, forward).
#[test]
fn a_tensor_at_two_positions_is_credited_once() {
    use gradtape::GradientTape;
    let x = Tensor::from_vec(vec![0.3, -0.8, 1.2, 0.5], &[2, 2]);
    let u = Tensor::from_vec(vec![1.0, 0.5, -0.3, 0.2], &[2, 2]);
    let h = 1e-6;
    type Call<'a> = &'a dyn Fn(&Tensor<f64>) -> Tensor<f64>;
    let calls: [(&str, Call<'_>); 3] = [
        ("tensor_caller(x, x)", &|x| tensor_caller(x, x)),
        ("same_tensor_twice", &|x| same_tensor_twice(x)),
        ("same_tensor_twice::primal", &|x| {
            same_tensor_twice::primal(x)
        }),
    ];
    for (name, f) in calls {
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| f(&x));
        let g = tape.gradient(&y, &x).unwrap().unwrap();
        let along = (&g * &u).sum().to_scalar();
        let up = f(&(&x + &(&u * h))).to_scalar();
        let down = f(&(&x - &(&u * h))).to_scalar();
        let expected = (up - down) / (2.0 * h);
        assert!(
            close(along, expected, 1e-7),
            "{name}: {along} vs {expected}"
        );
    }
    let fused = |t: &[Tensor<f64>]| same_tensor_twice(&t[0]);
    let plain = |t: &[Tensor<f64>]| same_tensor_twice::primal(&t[0]);
    if let Err(message) =
        check_annotated("same_tensor_twice", &[x], &fused, &plain, Tolerance::F64, 3)
    {
        panic!("{message}");
    }
}

// ----- more forms, as users write them -----

/// Plain helpers reached by `crate::` and relative paths.
pub mod physics {
    use num_traits::Float;

    /// Lennard-Jones energy of a distance, with its parameters.
    pub fn lennard_jones<T: Float>(r: T, epsilon: T, sigma: T) -> T {
        let s6 = (sigma / r).powi(6);
        T::from(4.0).unwrap() * epsilon * (s6 * s6 - s6)
    }

    /// A rotation of a 2-d point: three results.
    pub fn rotate<T: Float>(x: T, y: T, angle: T) -> (T, T, T) {
        let (s, c) = angle.sin_cos();
        (c * x - s * y, s * x + c * y, x.hypot(y))
    }
}

/// The same number at two argument positions, an expression as an argument, a constant
/// before a differentiable one, a `crate::` path, a helper in a `match` arm and in a loop
/// that returns early.
#[differentiable(plain(
    crate::physics::lennard_jones,
    physics::lennard_jones,
    physics::rotate,
    plain::huber
))]
fn forms(x: f64, y: f64, mode: u8) -> f64 {
    let mut total = crate::physics::lennard_jones(x, x, 1.1) + physics::lennard_jones(1.3, y, x);
    let (a, b, r) = physics::rotate(x * 2.0 + y, y, 0.3);
    total += a * b + r;
    total += match mode {
        0 => plain::huber(x - y, 0.5),
        1 => plain::huber(2.0, x),
        _ => 0.0,
    };
    for k in 0..5 {
        let step = plain::huber(x * k as f64, y);
        if step > 3.0 {
            return total + step;
        }
        total += step;
    }
    total
}

/// The same, with every helper annotated: the oracle.
mod annotated_physics {
    use gradtape::differentiable;
    use num_traits::Float;

    #[differentiable]
    pub fn lennard_jones<T: Float>(r: T, epsilon: T, sigma: T) -> T {
        let s6 = (sigma / r).powi(6);
        T::from(4.0).unwrap() * epsilon * (s6 * s6 - s6)
    }

    #[differentiable]
    pub fn rotate<T: Float>(x: T, y: T, angle: T) -> (T, T, T) {
        let (s, c) = angle.sin_cos();
        (c * x - s * y, s * x + c * y, x.hypot(y))
    }
}

#[differentiable]
fn forms_annotated(x: f64, y: f64, mode: u8) -> f64 {
    use annotated_physics as physics;
    let mut total = physics::lennard_jones(x, x, 1.1) + physics::lennard_jones(1.3, y, x);
    let (a, b, r) = physics::rotate(x * 2.0 + y, y, 0.3);
    total += a * b + r;
    total += match mode {
        0 => annotated::huber(x - y, 0.5),
        1 => annotated::huber(2.0, x),
        _ => 0.0,
    };
    for k in 0..5 {
        let step = annotated::huber(x * k as f64, y);
        if step > 3.0 {
            return total + step;
        }
        total += step;
    }
    total
}

#[test]
fn more_forms_against_the_annotated_twin() {
    macro_rules! faces {
        ($f:ident, $mode:expr) => {
            Scalar {
                name: stringify!($f),
                itself: &|x: &[f64]| $f(x[0], x[1], $mode),
                primal: &|x: &[f64]| $f::primal(x[0], x[1], $mode),
                grad: &|x: &[f64]| {
                    let (value, g) = $f::grad(x[0], x[1], $mode);
                    (value, g.to_vec())
                },
                jvp: &|x: &[f64], v: &[f64]| $f::jvp(x[0], x[1], $mode, v[0], v[1]),
            }
        };
    }
    for mode in 0..3 {
        for x in [[1.2, 0.9], [0.95, 1.7], [1.6, 0.35]] {
            check_twins(&faces!(forms, mode), &faces!(forms_annotated, mode), &x);
        }
    }
}
