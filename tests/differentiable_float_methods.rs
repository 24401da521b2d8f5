//! The float method set in `#[differentiable]` code: Rust's `f64` methods in scalar mode
//! (tan, asin, acos, atan, atan2, sinh, cosh, asinh, acosh, atanh, exp2, exp_m1, ln_1p, log,
//! log2, log10, powf with a differentiable exponent, cbrt, hypot, recip, mul_add, clamp, and
//! the zero-derivative signum/floor/ceil/round/trunc), and the same ops on tensors (with
//! erf), each in a function of the kind people write.
//!
//! Oracles: scalar functions' generated gradient (`f::grad`) against central differences of
//! the function as written, their Hessian (central differences of `f::grad`) against second
//! differences, and the tape-free `f::jvp` against both; hand-derived derivatives where the
//! formula is short. Tensor functions against the same body recorded op by op (`f::primal`)
//! and central differences, orders 1 and 2 (`common::check_annotated`), on arrays and on
//! 0-d inputs (the plain-number path).

mod common;

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use common::{Tolerance, central_differences, check_annotated};
use gradtape::{GradientTape, Tensor, differentiable};

// ----- scalar mode: geometry -----

/// Great-circle distance on the unit sphere (radians), the haversine formula with `asin`.
#[differentiable]
fn haversine(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let a = ((lat2 - lat1) * 0.5).sin().powi(2)
        + lat1.cos() * lat2.cos() * ((lon2 - lon1) * 0.5).sin().powi(2);
    2.0 * a.sqrt().asin()
}

/// The same distance in the form preferred for antipodal points: `atan2`.
#[differentiable]
fn haversine_atan2(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let a = ((lat2 - lat1) * 0.5).sin().powi(2)
        + lat1.cos() * lat2.cos() * ((lon2 - lon1) * 0.5).sin().powi(2);
    2.0 * a.sqrt().atan2((1.0 - a).sqrt())
}

/// The angle between two plane vectors: `hypot` for the norms, the cosine clamped into
/// `acos`'s domain against rounding.
#[differentiable]
fn angle_between(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    let cosine = (ax * bx + ay * by) / (ax.hypot(ay) * bx.hypot(by));
    cosine.clamp(-1.0, 1.0).acos()
}

// ----- scalar mode: statistics and machine learning -----

/// `ln(1 + eˣ)` through `ln_1p`.
#[differentiable]
fn softplus(x: f64) -> f64 {
    x.exp().ln_1p()
}

/// softplus, then its inverse `ln(eʸ − 1)` through `exp_m1`: the identity.
#[differentiable]
fn softplus_round_trip(x: f64) -> f64 {
    let y = x.exp().ln_1p();
    y.exp_m1().ln()
}

/// The logistic function through `recip`.
#[differentiable]
fn logistic(x: f64) -> f64 {
    (1.0 + (-x).exp()).recip()
}

/// The log-cosh regression loss.
#[differentiable]
fn log_cosh(prediction: f64, target: f64) -> f64 {
    (prediction - target).cosh().ln()
}

/// The upper end of a confidence interval of a correlation by Fisher's z-transform.
#[differentiable]
fn fisher_upper(r: f64, half_width: f64) -> f64 {
    (r.atanh() + half_width).tanh()
}

/// The entropy of a coin in bits (`log2`).
#[differentiable]
fn binary_entropy_bits(p: f64) -> f64 {
    let q = 1.0 - p;
    -(p * p.log2() + q * q.log2())
}

/// A power ratio in decibels (`log10`).
#[differentiable]
fn decibels(power: f64, reference: f64) -> f64 {
    10.0 * (power / reference).log10()
}

/// The power mean of two numbers with a differentiable exponent: `powf` of active
/// exponents, `recip`.
#[differentiable]
fn power_mean(a: f64, b: f64, p: f64) -> f64 {
    ((a.powf(p) + b.powf(p)) * 0.5).powf(p.recip())
}

/// The logarithm in a learned base, beside one in a constant base.
#[differentiable]
fn log_in_base(x: f64, base: f64) -> f64 {
    x.log(base) + x.log(10.0)
}

// ----- scalar mode: physics and numerics -----

/// What remains of `n0` after `t` with half-life `h`, by `exp2`.
#[differentiable]
fn decay_exp2(n0: f64, t: f64, h: f64) -> f64 {
    n0 * (-t / h).exp2()
}

/// The same by `0.5.powf(t / h)`: a constant base, a differentiable exponent.
#[differentiable]
fn decay_powf(n0: f64, t: f64, h: f64) -> f64 {
    n0 * 0.5_f64.powf(t / h)
}

/// The Gudermannian function `atan(sinh x)` and its inverse `asinh(tan y)`, composed.
#[differentiable]
fn gudermannian(x: f64) -> f64 {
    x.sinh().atan()
}

#[differentiable]
fn inverse_gudermannian(y: f64) -> f64 {
    y.tan().asinh()
}

/// The catenary's arc length between `a` and `b` for the curve `c·cosh(x / c)`, and the
/// inverse problem's `acosh`: the height above the vertex back to the abscissa.
#[differentiable]
fn catenary(a: f64, b: f64, c: f64) -> f64 {
    let length = c * ((b / c).sinh() - (a / c).sinh());
    let height = c * (b / c).cosh();
    length + c * (height / c).acosh()
}

/// CIE lightness `L* = 116 ∛Y − 16` (`cbrt`).
#[differentiable]
fn lightness(y: f64) -> f64 {
    116.0 * y.cbrt() - 16.0
}

/// `a x² + b x + c` by Horner's rule with `mul_add`.
#[differentiable]
fn horner(x: f64, a: f64, b: f64, c: f64) -> f64 {
    x.mul_add(x.mul_add(a, b), c)
}

// ----- scalar mode: the zero-derivative methods -----

/// A sawtooth wave `x − ⌊x⌋`: slope 1 between the jumps.
#[differentiable]
fn sawtooth(x: f64) -> f64 {
    x - x.floor()
}

/// `|x|` written with `signum`: its derivative is `signum x`, with `signum` a constant.
#[differentiable]
fn magnitude(x: f64) -> f64 {
    x.signum() * x
}

/// A quantiser's residue scaled by `y`, plus a term of rounded values only.
#[differentiable]
fn rounding_residue(x: f64, y: f64) -> f64 {
    (x - x.round()) * y + x.ceil() * y.trunc()
}

// ----- scalar mode: casts -----

/// f32 storage, f64 arithmetic: `as` both ways is differentiable; `as i32` is a constant.
#[differentiable]
fn mixed_precision(x: f32, y: f64) -> f32 {
    let wide = x as f64 * y;
    let narrow = (wide.sin() + y) as f32;
    narrow * x + (x * 10.0) as i32 as f32
}

/// A widening cast alone.
#[differentiable]
fn widened_exp(x: f32) -> f64 {
    (x as f64).exp()
}

// ----- scalar mode: angles in degrees -----

/// The bearing (in degrees) from one point to another, given in degrees: `to_radians` on
/// the way in, `to_degrees` on the way out (each linear, its derivative the factor π/180 or
/// 180/π).
#[differentiable]
fn bearing_degrees(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dl = (lon2 - lon1).to_radians();
    let y = dl.sin() * p2.cos();
    let x = p1.cos() * p2.sin() - p1.sin() * p2.cos() * dl.cos();
    y.atan2(x).to_degrees()
}

/// The same conversions in `f32`, inside a loop (a saved value per iteration): the
/// derivative stays in `f32`.
#[differentiable]
fn swept_angle_f32(start: f32, step: f32) -> f32 {
    let mut total = 0.0;
    let mut angle = start;
    for _ in 0..3 {
        total += angle.to_radians().sin().to_degrees();
        angle += step;
    }
    total
}

// ----- the scalar oracles -----

fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * (1.0 + b.abs()),
        "{what}: {a} vs {b} (difference {:e})",
        (a - b).abs()
    );
}

type Value<'a> = &'a dyn Fn(&[f64]) -> f64;
type Grad<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);

/// Order 1: `grad` against central differences of `f`, and `jvp` along each axis against
/// `grad` (its value is `f`'s, bit for bit). Order 2: the Hessian by central differences of
/// `grad` and by central differences of `jvp`, against second differences of `f`.
fn check_scalar(name: &str, x: &[f64], f: Value<'_>, grad: Grad<'_>, jvp: Jvp<'_>) {
    let n = x.len();
    let g = grad(x);
    assert_eq!(g.len(), n, "{name}: one gradient entry per input");
    for (i, (a, b)) in g.iter().zip(central_differences(f, x)).enumerate() {
        assert_close(
            &format!("{name}: ∂/∂x{i} vs finite differences"),
            *a,
            b,
            1e-7,
        );
    }
    let unit = |k: usize| {
        (0..n)
            .map(|i| f64::from(u8::from(i == k)))
            .collect::<Vec<_>>()
    };
    for (k, gk) in g.iter().enumerate() {
        let (value, dot) = jvp(x, &unit(k));
        assert_eq!(value.to_bits(), f(x).to_bits(), "{name}: jvp's value");
        assert_close(&format!("{name}: jvp(e{k}) vs grad"), dot, *gk, 1e-12);
    }
    let h = 1e-4;
    for i in 0..n {
        let row = central_differences(&|p: &[f64]| grad(p)[i], x);
        for j in 0..n {
            let at = |di: f64, dj: f64| {
                let mut p = x.to_vec();
                p[i] += di;
                p[j] += dj;
                f(&p)
            };
            let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
            assert_close(
                &format!("{name}: H[{i}][{j}] by grad"),
                row[j],
                second,
                1e-4,
            );
            let shifted = |s: f64| {
                let mut p = x.to_vec();
                p[j] += s;
                jvp(&p, &unit(i)).1
            };
            let by_jvp = (shifted(h) - shifted(-h)) / (2.0 * h);
            assert_close(&format!("{name}: H[{i}][{j}] by jvp"), by_jvp, second, 1e-4);
        }
    }
}

#[test]
fn geometry() {
    // Paris to New York, in radians
    let points: [&[f64]; 2] = [&[0.8527, 0.0410, 0.7101, -1.2915], &[0.1, 0.2, -0.3, 0.5]];
    for x in points {
        check_scalar(
            "haversine",
            x,
            &|x| haversine(x[0], x[1], x[2], x[3]),
            &|x| haversine::grad(x[0], x[1], x[2], x[3]).1.to_vec(),
            &|x, v| haversine::jvp(x[0], x[1], x[2], x[3], v[0], v[1], v[2], v[3]),
        );
        check_scalar(
            "haversine_atan2",
            x,
            &|x| haversine_atan2(x[0], x[1], x[2], x[3]),
            &|x| haversine_atan2::grad(x[0], x[1], x[2], x[3]).1.to_vec(),
            &|x, v| haversine_atan2::jvp(x[0], x[1], x[2], x[3], v[0], v[1], v[2], v[3]),
        );
        // two formulas, one function: the values and the gradients agree
        let (asin_form, atan2_form) = (
            haversine::grad(x[0], x[1], x[2], x[3]),
            haversine_atan2::grad(x[0], x[1], x[2], x[3]),
        );
        assert_close("haversine forms", asin_form.0, atan2_form.0, 1e-14);
        for (a, b) in asin_form.1.iter().zip(atan2_form.1) {
            assert_close("haversine forms' gradients", *a, b, 1e-12);
        }
    }
    // 5837 km on a sphere of radius 6371 km
    let paris_new_york = haversine(0.8527, 0.0410, 0.7101, -1.2915) * 6371.0;
    assert!((paris_new_york - 5837.0).abs() < 15.0, "{paris_new_york}");

    let x = [1.0, 0.5, -0.3, 2.0];
    check_scalar(
        "angle_between",
        &x,
        &|x| angle_between(x[0], x[1], x[2], x[3]),
        &|x| angle_between::grad(x[0], x[1], x[2], x[3]).1.to_vec(),
        &|x, v| angle_between::jvp(x[0], x[1], x[2], x[3], v[0], v[1], v[2], v[3]),
    );
    // the angle of (1, 0) and (cos θ, sin θ) is θ: dθ/d(by) at by = sin θ, bx = cos θ is
    // cos θ (rotating b along its tangent), here 1 at θ = 0… checked at θ = π/3
    let theta = PI / 3.0;
    let (value, grads) = angle_between::grad(1.0, 0.0, theta.cos(), theta.sin());
    assert_close("angle", value, theta, 1e-15);
    // ∂θ/∂bx = −sin θ / |b|², ∂θ/∂by = cos θ / |b|² with |b| = 1
    assert_close("∂θ/∂bx", grads[2], -theta.sin(), 1e-12);
    assert_close("∂θ/∂by", grads[3], theta.cos(), 1e-12);
}

#[test]
fn clamp_passes_the_gradient_inside_and_at_the_bounds_only() {
    #[differentiable]
    fn clamped(x: f64, lo: f64) -> f64 {
        x.clamp(lo, 1.0) * 3.0
    }
    assert_eq!(
        [clamped(0.5, -1.0), clamped(-2.0, -1.0), clamped(2.0, -1.0)],
        [1.5, -3.0, 3.0]
    );
    // inside: d/dx = 3, d/dlo = 0
    assert_eq!(clamped::grad(0.5, -1.0).1, [3.0, 0.0]);
    // below: the bound wins, d/dx = 0 and d/dlo = 3
    assert_eq!(clamped::grad(-2.0, -1.0).1, [0.0, 3.0]);
    // above the constant upper bound: nothing
    assert_eq!(clamped::grad(2.0, -1.0).1, [0.0, 0.0]);
    // at a bound the gradient goes to x, as TensorFlow's clip_by_value
    assert_eq!(clamped::grad(-1.0, -1.0).1, [3.0, 0.0]);
    assert_eq!(clamped::grad(1.0, -1.0).1, [3.0, 0.0]);
}

#[test]
fn statistics_and_learning() {
    for x in [-2.0, 0.3, 4.0] {
        check_scalar(
            "softplus",
            &[x],
            &|x| softplus(x[0]),
            &|x| softplus::grad(x[0]).1.to_vec(),
            &|x, v| softplus::jvp(x[0], v[0]),
        );
        // d/dx softplus = logistic, and d/dx logistic = σ(1 − σ)
        let sigma = 1.0 / (1.0 + (-x).exp());
        assert_close("softplus'", softplus::grad(x).1[0], sigma, 1e-14);
        check_scalar(
            "logistic",
            &[x],
            &|x| logistic(x[0]),
            &|x| logistic::grad(x[0]).1.to_vec(),
            &|x, v| logistic::jvp(x[0], v[0]),
        );
        assert_close(
            "logistic'",
            logistic::grad(x).1[0],
            sigma * (1.0 - sigma),
            1e-14,
        );
        check_scalar(
            "softplus_round_trip",
            &[x],
            &|x| softplus_round_trip(x[0]),
            &|x| softplus_round_trip::grad(x[0]).1.to_vec(),
            &|x, v| softplus_round_trip::jvp(x[0], v[0]),
        );
        // the identity: slope 1
        assert_close("round trip'", softplus_round_trip::grad(x).1[0], 1.0, 1e-12);
    }
    check_scalar(
        "log_cosh",
        &[0.7, -0.4],
        &|x| log_cosh(x[0], x[1]),
        &|x| log_cosh::grad(x[0], x[1]).1.to_vec(),
        &|x, v| log_cosh::jvp(x[0], x[1], v[0], v[1]),
    );
    // d/dp ln cosh(p − t) = tanh(p − t)
    assert_close(
        "log_cosh'",
        log_cosh::grad(0.7, -0.4).1[0],
        1.1_f64.tanh(),
        1e-15,
    );
    check_scalar(
        "fisher_upper",
        &[0.6, 0.35],
        &|x| fisher_upper(x[0], x[1]),
        &|x| fisher_upper::grad(x[0], x[1]).1.to_vec(),
        &|x, v| fisher_upper::jvp(x[0], x[1], v[0], v[1]),
    );
    check_scalar(
        "binary_entropy_bits",
        &[0.3],
        &|x| binary_entropy_bits(x[0]),
        &|x| binary_entropy_bits::grad(x[0]).1.to_vec(),
        &|x, v| binary_entropy_bits::jvp(x[0], v[0]),
    );
    // d/dp H(p) = log2((1 − p) / p)
    let p = 0.3_f64;
    assert_close(
        "H'",
        binary_entropy_bits::grad(p).1[0],
        ((1.0 - p) / p).log2(),
        1e-14,
    );
    check_scalar(
        "decibels",
        &[2.5, 0.8],
        &|x| decibels(x[0], x[1]),
        &|x| decibels::grad(x[0], x[1]).1.to_vec(),
        &|x, v| decibels::jvp(x[0], x[1], v[0], v[1]),
    );
    check_scalar(
        "power_mean",
        &[1.5, 3.0, 2.5],
        &|x| power_mean(x[0], x[1], x[2]),
        &|x| power_mean::grad(x[0], x[1], x[2]).1.to_vec(),
        &|x, v| power_mean::jvp(x[0], x[1], x[2], v[0], v[1], v[2]),
    );
    check_scalar(
        "log_in_base",
        &[5.0, 2.5],
        &|x| log_in_base(x[0], x[1]),
        &|x| log_in_base::grad(x[0], x[1]).1.to_vec(),
        &|x, v| log_in_base::jvp(x[0], x[1], v[0], v[1]),
    );
}

#[test]
fn physics_and_numerics() {
    let x = [100.0, 3.0, 5.0];
    check_scalar(
        "decay_exp2",
        &x,
        &|x| decay_exp2(x[0], x[1], x[2]),
        &|x| decay_exp2::grad(x[0], x[1], x[2]).1.to_vec(),
        &|x, v| decay_exp2::jvp(x[0], x[1], x[2], v[0], v[1], v[2]),
    );
    check_scalar(
        "decay_powf",
        &x,
        &|x| decay_powf(x[0], x[1], x[2]),
        &|x| decay_powf::grad(x[0], x[1], x[2]).1.to_vec(),
        &|x, v| decay_powf::jvp(x[0], x[1], x[2], v[0], v[1], v[2]),
    );
    // two spellings of one law
    let (a, b) = (
        decay_exp2::grad(100.0, 3.0, 5.0),
        decay_powf::grad(100.0, 3.0, 5.0),
    );
    assert_close("decay", a.0, b.0, 1e-13);
    for (p, q) in a.1.iter().zip(b.1) {
        assert_close("decay gradients", *p, q, 1e-12);
    }
    for x in [-1.2, 0.4] {
        check_scalar(
            "gudermannian",
            &[x],
            &|x| gudermannian(x[0]),
            &|x| gudermannian::grad(x[0]).1.to_vec(),
            &|x, v| gudermannian::jvp(x[0], v[0]),
        );
        // gd'(x) = sech x
        assert_close("gd'", gudermannian::grad(x).1[0], 1.0 / x.cosh(), 1e-14);
        let y = gudermannian(x);
        check_scalar(
            "inverse_gudermannian",
            &[y],
            &|x| inverse_gudermannian(x[0]),
            &|x| inverse_gudermannian::grad(x[0]).1.to_vec(),
            &|x, v| inverse_gudermannian::jvp(x[0], v[0]),
        );
        // the inverse function's derivative: 1 / gd'(x) = cosh x
        assert_close("gd⁻¹'", inverse_gudermannian::grad(y).1[0], x.cosh(), 1e-12);
    }
    check_scalar(
        "catenary",
        &[-0.5, 1.5, 2.0],
        &|x| catenary(x[0], x[1], x[2]),
        &|x| catenary::grad(x[0], x[1], x[2]).1.to_vec(),
        &|x, v| catenary::jvp(x[0], x[1], x[2], v[0], v[1], v[2]),
    );
    check_scalar(
        "lightness",
        &[0.18],
        &|x| lightness(x[0]),
        &|x| lightness::grad(x[0]).1.to_vec(),
        &|x, v| lightness::jvp(x[0], v[0]),
    );
    // d/dY 116 ∛Y = 116 / (3 ∛Y²)
    let expected = 116.0 / (3.0 * 0.18_f64.cbrt().powi(2));
    assert_close("L*'", lightness::grad(0.18).1[0], expected, 1e-14);
    check_scalar(
        "horner",
        &[1.3, 0.5, -2.0, 0.25],
        &|x| horner(x[0], x[1], x[2], x[3]),
        &|x| horner::grad(x[0], x[1], x[2], x[3]).1.to_vec(),
        &|x, v| horner::jvp(x[0], x[1], x[2], x[3], v[0], v[1], v[2], v[3]),
    );
    // ∂/∂(x, a, b, c) of a x² + b x + c = (2 a x + b, x², x, 1)
    let (value, g) = horner::grad(1.3, 0.5, -2.0, 0.25);
    assert_close("horner value", value, 0.5 * 1.69 - 2.6 + 0.25, 1e-14);
    for (got, want) in g.iter().zip([2.0 * 0.5 * 1.3 - 2.0, 1.69, 1.3, 1.0]) {
        assert_close("horner gradient", *got, want, 1e-14);
    }
}

#[test]
fn zero_derivative_methods_are_constants() {
    for x in [-2.7, 0.3, 1.6] {
        check_scalar(
            "sawtooth",
            &[x],
            &|x| sawtooth(x[0]),
            &|x| sawtooth::grad(x[0]).1.to_vec(),
            &|x, v| sawtooth::jvp(x[0], v[0]),
        );
        assert_eq!(sawtooth::grad(x).1, [1.0]);
        check_scalar(
            "magnitude",
            &[x],
            &|x| magnitude(x[0]),
            &|x| magnitude::grad(x[0]).1.to_vec(),
            &|x, v| magnitude::jvp(x[0], v[0]),
        );
        assert_eq!(magnitude::grad(x).1, [x.signum()]);
    }
    let x = [1.3, -2.4];
    check_scalar(
        "rounding_residue",
        &x,
        &|x| rounding_residue(x[0], x[1]),
        &|x| rounding_residue::grad(x[0], x[1]).1.to_vec(),
        &|x, v| rounding_residue::jvp(x[0], x[1], v[0], v[1]),
    );
    // ∂/∂x = y, ∂/∂y = x − round(x); the rounded term is constant
    let (_, g) = rounding_residue::grad(1.3, -2.4);
    assert_eq!(g[0], -2.4);
    assert_close("∂/∂y", g[1], 1.3 - 1.0, 1e-15);
}

// ----- tensor mode -----

/// A European call's Black–Scholes price, with the normal CDF from `erf`; differentiable in
/// the spot, strike and volatility (delta, the strike sensitivity and vega).
#[test]
fn degrees_and_radians() {
    for x in [[48.85, 2.35, 40.71, -74.0], [-10.0, 30.0, 25.0, 31.5]] {
        check_scalar(
            "bearing_degrees",
            &x,
            &|x| bearing_degrees(x[0], x[1], x[2], x[3]),
            &|x| bearing_degrees::grad(x[0], x[1], x[2], x[3]).1.to_vec(),
            &|x, v| bearing_degrees::jvp(x[0], x[1], x[2], x[3], v[0], v[1], v[2], v[3]),
        );
    }
    // by hand: d/dx to_degrees(to_radians(x)) = 1, and each factor alone
    #[differentiable]
    fn round_trip(x: f64) -> f64 {
        x.to_radians().to_degrees() + 2.0 * x.to_degrees() - x.to_radians()
    }
    let (value, [d]) = round_trip::grad(30.0);
    assert_eq!(value, round_trip::primal(30.0));
    assert_eq!(value, round_trip(30.0));
    let expected = 1.0 + 2.0 * (180.0 / PI) - PI / 180.0;
    assert_close("round trip", d, expected, 1e-14);
    assert_close(
        "round trip jvp",
        round_trip::jvp(30.0, 1.0).1,
        expected,
        1e-14,
    );

    // f32: the value is the body's to the bit, the gradient f32, against f64 by hand:
    // d/dstart Σ sin(a_k)·180/π·π/180... = Σ cos(rad(a_k)), d/dstep Σ k cos(rad(a_k))
    let (start, step) = (20.0_f32, 35.0_f32);
    let (value, [ds, dstep]) = swept_angle_f32::grad(start, step);
    assert_eq!(
        value.to_bits(),
        swept_angle_f32::primal(start, step).to_bits()
    );
    assert_eq!(value.to_bits(), swept_angle_f32(start, step).to_bits());
    let (mut by_start, mut by_step) = (0.0, 0.0);
    for k in 0..3 {
        let a = (f64::from(start) + f64::from(k) * f64::from(step)).to_radians();
        by_start += a.cos();
        by_step += f64::from(k) * a.cos();
    }
    assert_close("f32 d/dstart", f64::from(ds), by_start, 1e-5);
    assert_close("f32 d/dstep", f64::from(dstep), by_step, 1e-5);
    // (the tangent sums its terms in another order: an ulp of f32 apart)
    let (_, tangent) = swept_angle_f32::jvp(start, step, 1.0, 0.0);
    assert_close("f32 jvp", f64::from(tangent), f64::from(ds), 1e-6);
}

#[differentiable]
fn black_scholes_call(
    spot: &Tensor<f64>,
    strike: &Tensor<f64>,
    vol: &Tensor<f64>,
    years: f64,
    rate: f64,
) -> Tensor<f64> {
    let root_t = years.sqrt();
    let d1 = ((spot / strike).ln() + (vol * vol * 0.5 + rate) * years) / (vol * root_t);
    let d2 = &d1 - vol * root_t;
    let n1 = ((&d1 * FRAC_1_SQRT_2).erf() + 1.0) * 0.5;
    let n2 = ((&d2 * FRAC_1_SQRT_2).erf() + 1.0) * 0.5;
    spot * n1 - strike * n2 * (-rate * years).exp()
}

/// Haversine distances between pairs of points, elementwise on tensors.
#[differentiable]
fn haversine_tensor(
    lat1: &Tensor<f64>,
    lon1: &Tensor<f64>,
    lat2: &Tensor<f64>,
    lon2: &Tensor<f64>,
) -> Tensor<f64> {
    let a = ((lat2 - lat1) * 0.5).sin().square()
        + lat1.cos() * lat2.cos() * ((lon2 - lon1) * 0.5).sin().square();
    let by_asin = a.sqrt().asin() * 2.0;
    let by_atan2 = a.sqrt().atan2(&(1.0 - &a).sqrt()) * 2.0;
    by_asin + by_atan2
}

/// The activations and transforms of the trigonometric and hyperbolic family on tensors.
#[differentiable]
fn activations(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let softplus = x.exp().ln_1p();
    let logistic = (1.0 + (-x).exp()).recip();
    let gd = x.sinh().atan();
    let mixed = y.tan() + y.acos() + y.atanh() + (x.cosh() + 1.0).acosh() + y.asinh();
    softplus * logistic + gd + mixed + x.exp_m1() * 0.1
}

/// Logarithms and powers with tensor exponents and bases.
#[differentiable]
fn logs_and_powers(x: &Tensor<f64>, p: &Tensor<f64>, base: &Tensor<f64>) -> Tensor<f64> {
    let mean = ((x.pow(p) + 1.0) * 0.5).pow(&p.recip());
    mean + x.log(base) + x.log2() + x.log10() * x.exp2() + x.cbrt() + x.hypot(p)
}

/// A clipped, fused and rounded pipeline: `clamp`, `mul_add`, `floor`, `sign`.
#[differentiable]
fn clipped(x: &Tensor<f64>, a: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    let y = x.mul_add(a, b);
    let z = y.clamp(-0.8, 0.9) + x.clip_by_value(-1.5, 1.5);
    z + (x - x.floor()) * x.sign() + x.round() * a.ceil() + b.trunc()
}

/// Angles converted both ways on tensors (`Tensor::to_degrees`, `Tensor::to_radians`).
#[differentiable]
fn angles(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.to_radians().sin() * y.to_degrees() + (x * y).to_radians().cos().to_degrees()
}

fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

/// `check_annotated` on arrays and on 0-d inputs (the plain-number path).
fn check_tensor(name: &str, arrays: &[Tensor<f64>], fused: common::Op<'_>, plain: common::Op<'_>) {
    check_annotated(name, arrays, fused, plain, Tolerance::F64, 7).unwrap();
    let scalars: Vec<Tensor<f64>> = arrays
        .iter()
        .map(|x| Tensor::scalar(x.to_vec()[0]))
        .collect();
    check_annotated(
        &format!("{name} 0-d"),
        &scalars,
        fused,
        plain,
        Tolerance::F64,
        8,
    )
    .unwrap();
}

#[test]
fn black_scholes_with_erf() {
    let spot = t(&[100.0, 95.0, 120.0], &[3]);
    let strike = t(&[105.0, 100.0, 100.0], &[3]);
    let vol = t(&[0.2, 0.3, 0.25], &[3]);
    let (years, rate) = (0.5, 0.03);
    check_tensor(
        "black_scholes_call",
        &[spot.clone(), strike.clone(), vol.clone()],
        &|x| black_scholes_call(&x[0], &x[1], &x[2], years, rate),
        &|x| black_scholes_call::primal(&x[0], &x[1], &x[2], years, rate),
    );
    // Delta is N(d1), by the textbook: at the money-ish, S = 100, K = 105, σ = 0.2
    let tape = GradientTape::new();
    tape.watch(&spot);
    let price = tape.record(|| black_scholes_call(&spot, &strike, &vol, years, rate).sum());
    let delta = tape.gradient(&price, &spot).unwrap().unwrap().to_vec();
    let d1 = ((100.0_f64 / 105.0).ln() + (0.02 + rate) * years) / (0.2 * years.sqrt());
    let normal_cdf = 0.5 * (1.0 + erf_by_series(d1 * FRAC_1_SQRT_2));
    assert_close("delta", delta[0], normal_cdf, 1e-12);
}

/// `erf x` by its Maclaurin series (converges quickly for |x| < 1): an oracle independent
/// of `libm`.
fn erf_by_series(x: f64) -> f64 {
    let (mut term, mut sum, mut k) = (x, x, 0.0);
    while term.abs() > 1e-18 {
        k += 1.0;
        term *= -x * x / k;
        sum += term / (2.0 * k + 1.0);
    }
    2.0 / PI.sqrt() * sum
}

#[test]
fn erf_against_its_series() {
    for x in [-0.9, -0.2, 0.0, 0.35, 0.8] {
        assert_close(
            "erf",
            Tensor::scalar(x).erf().to_scalar(),
            erf_by_series(x),
            1e-15,
        );
    }
}

#[test]
fn haversine_on_tensors() {
    let lat1 = t(&[0.8527, 0.1, -0.4], &[3]);
    let lon1 = t(&[0.0410, 0.2, 1.0], &[3]);
    let lat2 = t(&[0.7101, -0.3, -0.2], &[3]);
    let lon2 = t(&[-1.2915, 0.5, 1.3], &[3]);
    check_tensor(
        "haversine_tensor",
        &[lat1, lon1, lat2, lon2],
        &|x| haversine_tensor(&x[0], &x[1], &x[2], &x[3]),
        &|x| haversine_tensor::primal(&x[0], &x[1], &x[2], &x[3]),
    );
}

#[test]
fn activations_on_tensors() {
    check_tensor(
        "activations",
        &[t(&[0.3, -1.2, 2.0], &[3]), t(&[0.25, -0.5, 0.7], &[3])],
        &|x| activations(&x[0], &x[1]),
        &|x| activations::primal(&x[0], &x[1]),
    );
}

#[test]
fn logs_and_powers_on_tensors() {
    check_tensor(
        "logs_and_powers",
        &[
            t(&[1.5, 0.7, 3.0], &[3]),
            t(&[2.5, -0.5, 1.2], &[3]),
            t(&[2.0, 3.5, 10.0], &[3]),
        ],
        &|x| logs_and_powers(&x[0], &x[1], &x[2]),
        &|x| logs_and_powers::primal(&x[0], &x[1], &x[2]),
    );
}

#[test]
fn clipped_on_tensors() {
    check_tensor(
        "clipped",
        &[
            t(&[0.3, -1.7, 2.2, 0.6], &[4]),
            t(&[1.5, 0.4, -0.3, 2.2], &[4]),
            t(&[-0.2, 0.3, 0.1, -1.4], &[4]),
        ],
        &|x| clipped(&x[0], &x[1], &x[2]),
        &|x| clipped::primal(&x[0], &x[1], &x[2]),
    );
}

#[test]
fn casts_between_f32_and_f64() {
    let (x, y) = (0.75_f32, -1.25_f64);
    let (value, (dx, dy)) = mixed_precision::grad(x, y);
    assert_eq!(value, mixed_precision(x, y));
    // f = (sin(x y) + y) x + ⌊10 x⌋ with the floor a constant (7 here):
    // ∂f/∂x = sin(x y) + y + x y cos(x y), ∂f/∂y = x (x cos(x y) + 1)
    let (xd, w) = (f64::from(x), f64::from(x) * y);
    assert_close("f", f64::from(value), (w.sin() + y) * xd + 7.0, 1e-6);
    assert_close(
        "∂f/∂x (f32)",
        f64::from(dx),
        w.sin() + y + w * w.cos(),
        1e-6,
    );
    assert_close("∂f/∂y (f64)", dy, xd * (xd * w.cos() + 1.0), 1e-6);
    // the tangent code agrees with the adjoint along each axis
    assert_eq!(mixed_precision::jvp(x, y, 1.0, 0.0).1, dx);
    assert_close(
        "jvp(e_y)",
        f64::from(mixed_precision::jvp(x, y, 0.0, 1.0).1),
        dy,
        1e-6,
    );

    let (value, [d]) = widened_exp::grad(0.5_f32);
    assert_eq!(value, widened_exp(0.5));
    assert_eq!(value, 0.5_f64.exp());
    // d/dx e^x at 0.5, rounded to the parameter's f32
    assert_eq!(d, 0.5_f64.exp() as f32);
    assert_eq!(widened_exp::jvp(0.5_f32, 1.0_f32).1, 0.5_f64.exp());
}

#[test]
fn angles_on_tensors() {
    check_tensor(
        "angles",
        &[t(&[30.0, -45.0, 100.0], &[3]), t(&[0.5, -1.5, 2.0], &[3])],
        &|x| angles(&x[0], &x[1]),
        &|x| angles::primal(&x[0], &x[1]),
    );
}
