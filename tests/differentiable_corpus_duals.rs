//! The corpus of issue 13 in scalar mode, over float arrays: functions whose differentiable
//! values are the entries of `&[T]`, `[T; N]`, `[[T; N]; M]` and local `Vec<T>` buffers,
//! checked against two oracles although nothing records plain-float arithmetic on a tape.
//!
//! Each body is written once (`twice!`) and compiled twice: annotated (`#[differentiable]`,
//! generic over `gradtape::Float`) and plain, generic over `num_traits::Float`. The plain
//! copy runs on dual numbers (`gradtape::generated::Dual`, one direction per input): the
//! same body differentiated op by op, by each float operation's forward rule, with no
//! source transformation. Checked:
//! - the value of `f`, `f::primal` and `f::grad` against the body on numbers;
//! - order one: `f::grad` against the dual numbers' partials and against central
//!   differences of `f::primal`;
//! - order two: each Hessian column, by central differences of `f::grad`, against central
//!   differences of the dual numbers' gradient and against second differences of the
//!   value.

#[macro_use]
mod common;

use common::twice::{Tolerances, Twice};
use common::{central_differences, close};
use gradtape::generated::Dual;
use gradtape::{Differentiable, differentiable};

fn duals<const N: usize>(x: &[Dual<f64, N>]) -> Vec<Dual<f64, N>> {
    x.to_vec()
}

// ----- statistics and losses over slices -----

twice! {
    /// The weighted variance of a sample: `iter().zip()`, `fold`, `.len()`.
    fn weighted_variance / weighted_variance_on_duals<T>(x: &[T], w: &[T]) -> T {
        let total = w.iter().fold(T::zero(), |acc, v| acc + *v);
        let mut mean = T::zero();
        for (xi, wi) in x.iter().zip(w.iter()) {
            mean = mean + *xi * *wi;
        }
        mean = mean / total;
        let mut spread = T::zero();
        for (xi, wi) in x.iter().zip(w.iter()) {
            spread = spread + *wi * (*xi - mean) * (*xi - mean);
        }
        spread / total * T::from(x.len()).unwrap() / T::from(x.len() - 1).unwrap()
    }
}

twice! {
    /// Log-sum-exp shifted by the maximum: a running maximum, `map` and a sum.
    fn log_sum_exp / log_sum_exp_on_duals<T>(x: &[T]) -> T {
        let mut m = x[0];
        for v in x.iter() {
            m = m.max(*v);
        }
        let mut total = T::zero();
        for v in x.iter() {
            total = total + (*v - m).exp();
        }
        total.ln() + m
    }
}

twice! {
    /// Softmax cross-entropy of logits against a label: `enumerate`, a constant index.
    fn softmax_cross_entropy / softmax_cross_entropy_on_duals<T>(logits: &[T], label: usize) -> T {
        let mut m = logits[0];
        for v in logits.iter() {
            m = m.max(*v);
        }
        let mut total = T::zero();
        let mut picked = T::zero();
        for (k, v) in logits.iter().enumerate() {
            total = total + (*v - m).exp();
            if k == label {
                picked = *v - m;
            }
        }
        total.ln() - picked
    }
}

// ----- numerical methods over buffers -----

twice! {
    /// The trapezoid rule over samples: `windows(2)`.
    fn trapezoid / trapezoid_on_duals<T>(y: &[T], dx: T) -> T {
        let half = T::from(0.5).unwrap();
        let mut total = T::zero();
        for pair in y.windows(2) {
            total = total + (pair[0] + pair[1]) * half * dx;
        }
        total
    }
}

twice! {
    /// The Thomas algorithm for a symmetric tridiagonal system (diagonal `d`, off-diagonal
    /// a constant), then a weighted sum of the solution: local `vec![..; n]` buffers
    /// written by index, a reversed loop.
    fn tridiagonal_solve / tridiagonal_solve_on_duals<T>(d: &[T], rhs: &[T]) -> T {
        let n = d.len();
        let off = T::from(-1.0).unwrap();
        let mut c = vec![T::zero(); n];
        let mut r = vec![T::zero(); n];
        c[0] = off / d[0];
        r[0] = rhs[0] / d[0];
        for i in 1..n {
            let pivot = d[i] - off * c[i - 1];
            c[i] = off / pivot;
            r[i] = (rhs[i] - off * r[i - 1]) / pivot;
        }
        let mut x = vec![T::zero(); n];
        x[n - 1] = r[n - 1];
        for i in (0..n - 1).rev() {
            x[i] = r[i] - c[i] * x[i + 1];
        }
        let mut total = T::zero();
        for i in 0..n {
            total = total + x[i] * T::from(i + 1).unwrap();
        }
        total
    }
}

twice! {
    /// Explicit finite differences for the heat equation on a rod with fixed ends: the
    /// state a local `Vec` copied from the slice, the update read from a copy of the
    /// previous step.
    fn heat_rod / heat_rod_on_duals<T>(u0: &[T], alpha: T) -> T {
        let n = u0.len();
        let mut u = u0.to_vec();
        for _ in 0..10 {
            let previous = u.clone();
            for i in 1..n - 1 {
                u[i] = previous[i] + alpha * (previous[i - 1] - previous[i] * T::from(2.0).unwrap() + previous[i + 1]);
            }
        }
        let mut energy = T::zero();
        for v in u.iter() {
            energy = energy + *v * *v;
        }
        energy
    }
}

twice! {
    /// A moving average of window 3 pushed into a local `Vec`, against the sample.
    fn moving_average_residual / moving_average_residual_on_duals<T>(x: &[T]) -> T {
        let third = T::from(3.0).unwrap();
        let mut smooth = Vec::new();
        for i in 1..x.len() - 1 {
            smooth.push((x[i - 1] + x[i] + x[i + 1]) / third);
        }
        let mut total = T::zero();
        for (k, s) in smooth.iter().enumerate() {
            total = total + (x[k + 1] - *s) * (x[k + 1] - *s);
        }
        total / T::from(smooth.len()).unwrap()
    }
}

// ----- geometry over arrays of points -----

twice! {
    /// A polyline's length: rows of a slice of points, `hypot`.
    fn polyline_length / polyline_length_on_duals<T>(points: &[[T; 2]]) -> T {
        let mut total = T::zero();
        for i in 1..points.len() {
            let dx = points[i][0] - points[i - 1][0];
            let dy = points[i][1] - points[i - 1][1];
            total = total + dx.hypot(dy);
        }
        total
    }
}

twice! {
    /// A quadratic form `xᵀ M x` over a fixed-size matrix, read as `m[i][j]`.
    fn quadratic_form / quadratic_form_on_duals<T>(m: &[[T; 3]; 3], x: &[T; 3]) -> T {
        let mut total = T::zero();
        for i in 0..3 {
            for j in 0..3 {
                total = total + x[i] * m[i][j] * x[j];
            }
        }
        total
    }
}

twice! {
    /// The norms of consecutive pairs (`chunks(2)`), softly maximised.
    fn pair_norms / pair_norms_on_duals<T>(x: &[T]) -> T {
        let mut total = T::zero();
        for pair in x.chunks(2) {
            total = total + (pair[0] * pair[0] + pair[1] * pair[1]).sqrt().exp();
        }
        total.ln()
    }
}

twice! {
    /// A polynomial by Horner's rule, coefficients highest first, over `iter()`, with a
    /// differentiable point.
    fn horner / horner_on_duals<T>(coefficients: &[T], x: T) -> T {
        let mut total = T::zero();
        for c in coefficients.iter() {
            total = total * x + *c;
        }
        total
    }
}

twice! {
    /// A unit vector from a `mut` parameter normalised in place, projected on a fixed axis.
    fn normalised_projection / normalised_projection_on_duals<T>(mut v: Vec<T>) -> T {
        let mut norm = T::zero();
        for e in v.iter() {
            norm = norm + *e * *e;
        }
        norm = norm.sqrt();
        for i in 0..v.len() {
            v[i] = v[i] / norm;
        }
        v[0] * T::from(0.6).unwrap() + v[1] * T::from(0.8).unwrap()
    }
}

// ----- local closures taking a slice of a differentiable array -----

twice! {
    /// A closure taking `&[T]` called on the slice parameter itself (`norm(x)`) and on a
    /// local buffer (`norm(&y)`), and one of two slices (`dot(x, &y)`): each call reads the
    /// array it is given, element by element (issue 13: rejected as a copy of a
    /// differentiable array, `let v = &x;`).
    fn closure_over_slices / closure_over_slices_on_duals<T>(x: &[T]) -> T {
        let norm = |v: &[T]| v.iter().map(|a| *a * *a).sum::<T>().sqrt();
        let dot = |a: &[T], b: &[T]| {
            let mut total = T::zero();
            for i in 0..a.len() {
                total = total + a[i] * b[i];
            }
            total
        };
        let mut y = vec![T::zero(); x.len()];
        for i in 0..x.len() {
            y[i] = x[i].sin() * x[0];
        }
        norm(x) * dot(x, &y) + norm(&y)
    }
}

twice! {
    /// A closure taking `&[T]` called on a fixed-size array parameter (`norm(&x)`), whose
    /// body loops over it by value (`for a in v`) and reads its length.
    fn closure_over_an_array / closure_over_an_array_on_duals<T>(x: [T; 3], s: T) -> T {
        let spread = |v: &[T]| {
            let mut mean = T::zero();
            for a in v {
                mean = mean + *a;
            }
            mean = mean / T::from(v.len()).unwrap();
            let mut total = T::zero();
            for a in v {
                total = total + (*a - mean) * (*a - mean);
            }
            total
        };
        spread(&x) * s + x[1] * spread(&x)
    }
}

twice! {
    /// A closure taking `&[T]` called on a `Vec` parameter (`norm(&x)`), with a
    /// differentiable number captured and a number parameter of its own.
    fn closure_over_a_vec / closure_over_a_vec_on_duals<T>(x: Vec<T>, w: T) -> T {
        let softplus_sum = |v: &[T], shift: T| {
            let mut total = T::zero();
            for i in 0..v.len() {
                total = total + (T::one() + (v[i] * w - shift).exp()).ln();
            }
            total
        };
        softplus_sum(&x, x[0]) + softplus_sum(&x, T::from(0.5).unwrap()) * w
    }
}

// ----- a `&mut` parameter passed on as it is to a method -----

/// A damper whose rate is data: its `self` a constant.
struct Damper<T> {
    rate: T,
}

#[differentiable]
impl<T: num_traits::Float> Damper<T> {
    /// `yᵢ ← rate · yᵢ + sin yᵢ`, in place.
    #[differentiable]
    #[allow(clippy::needless_range_loop)]
    fn damp(&self, y: &mut [T]) {
        for i in 0..y.len() {
            y[i] = y[i] * self.rate + y[i].sin();
        }
    }

    /// Its own `&mut` parameter passed on as it is to `damp`, twice (issue 13: rustc's
    /// E0308 under the attribute, the call taken for one reading `y`).
    #[differentiable]
    fn damp_twice(&self, y: &mut [T]) {
        self.damp(y);
        self.damp(y);
    }
}

twice! {
    /// A method passing its `&mut` parameter on as it is, called on a copy of `x`.
    fn damped / damped_on_duals<T>(x: &[T]) -> T {
        let damper = Damper { rate: T::from(0.5).unwrap() };
        let mut y = x.to_vec();
        damper.damp_twice(&mut y);
        y[0] * y[1] + y[2] * x[0]
    }
}

// ----- several `&mut` parameters passed on as they are -----

/// Reads `pos`, writes `vel`.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn kick_of<T: num_traits::Float>(pos: &[T], vel: &mut [T], dt: T) {
    for i in 0..vel.len() {
        vel[i] = vel[i] - dt * pos[i].sin();
    }
}

/// Writes `pos`, reads `vel`.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn drift_of<T: num_traits::Float>(pos: &mut [T], vel: &[T], dt: T) {
    for i in 0..pos.len() {
        pos[i] = pos[i] + dt * vel[i];
    }
}

/// Its two `&mut` parameters passed on as they are to a reader of the first and writer
/// of the second, and the other way round (issue 13: rustc's E0057 under the attribute,
/// a statement took both for written).
#[differentiable(constant(dt))]
fn leapfrog_of<T: num_traits::Float>(pos: &mut [T], vel: &mut [T], dt: T, steps: usize) {
    kick_of(pos, vel, dt / (T::one() + T::one()));
    for _ in 0..steps {
        drift_of(pos, vel, dt);
        kick_of(pos, vel, dt);
    }
}

twice! {
    /// A leapfrog integrator passing its `&mut` parameters on as they are, from copies.
    fn leapfrogged / leapfrogged_on_duals<T>(x: &[T]) -> T {
        let mut pos = [x[0], x[1]];
        let mut vel = [x[2], x[3]];
        leapfrog_of(&mut pos, &mut vel, T::from(0.1).unwrap(), 3);
        pos[0] * vel[1] + pos[1] * pos[1]
    }
}

// ----- iterator forms, integrators and iterative solvers -----

twice! {
    /// The geometric mean: `map` then `sum`.
    fn geometric_mean / geometric_mean_on_duals<T>(x: &[T]) -> T {
        (x.iter().map(|v| v.ln()).sum::<T>() / T::from(x.len()).unwrap()).exp()
    }
}

twice! {
    /// Compound growth over a run of period returns, annualised: `.product()` over a
    /// mapped iterator (`gradtape::Float` had no `Product` bound, so a generic body calling
    /// it did not compile).
    fn compound_growth / compound_growth_on_duals<T>(returns: &[T], years: T) -> T {
        let growth: T = returns.iter().map(|r| T::one() + *r).product();
        growth.powf(T::one() / years) - T::one()
    }
}

twice! {
    /// The probability that every independent stage succeeds, each a logistic of its
    /// score, against the product of the raw scores: `.product()` over references
    /// (`Product<&T>`) and over values.
    fn stage_reliability / stage_reliability_on_duals<T>(scores: &[T]) -> T {
        let raw: T = scores.iter().product();
        let survival: T = scores.iter().map(|s| T::one() / (T::one() + (-*s).exp())).product();
        survival.ln() + raw
    }
}

twice! {
    /// A discounted return, the rewards folded from the last: `rev().fold()` with a
    /// differentiable discount captured.
    fn discounted_return / discounted_return_on_duals<T>(rewards: &[T], gamma: T) -> T {
        rewards.iter().rev().fold(T::zero(), |acc, r| *r + gamma * acc)
    }
}

twice! {
    /// A layer of softplus units computed in place over a copy: `iter_mut`.
    fn softplus_layer / softplus_layer_on_duals<T>(x: &[T], w: T) -> T {
        let mut h = x.to_vec();
        for v in h.iter_mut() {
            *v = (T::one() + (*v * w).exp()).ln();
        }
        h.iter().copied().sum::<T>()
    }
}

twice! {
    /// Products of interleaved pairs: `step_by`, `skip`, `zip`, `map`, `sum`.
    fn interleaved_products / interleaved_products_on_duals<T>(x: &[T]) -> T {
        x.iter()
            .step_by(2)
            .zip(x.iter().skip(1).step_by(2))
            .map(|(a, b)| *a * *b)
            .sum::<T>()
    }
}

twice! {
    /// Kahan's compensated sum of squares: two carried values updated in order.
    fn kahan_sum_of_squares / kahan_sum_of_squares_on_duals<T>(x: &[T]) -> T {
        let mut sum = T::zero();
        let mut compensation = T::zero();
        for v in x.iter() {
            let y = *v * *v - compensation;
            let t = sum + y;
            compensation = (t - sum) - y;
            sum = t;
        }
        sum
    }
}

twice! {
    /// The dominant eigenvalue of a 2x2 matrix by power iteration: a local `[T; 2]`
    /// carried through the loop, normalised each step, a Rayleigh quotient at the end.
    fn power_iteration / power_iteration_on_duals<T>(m: &[[T; 2]; 2]) -> T {
        let mut v = [T::one(), T::from(0.5).unwrap()];
        for _ in 0..30 {
            let w = [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]];
            let norm = (w[0] * w[0] + w[1] * w[1]).sqrt();
            v = [w[0] / norm, w[1] / norm];
        }
        let mv = [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]];
        v[0] * mv[0] + v[1] * mv[1]
    }
}

twice! {
    /// A harmonic oscillator by classical Runge–Kutta, the state and each stage a local
    /// `[T; 2]`.
    fn oscillator_rk4 / oscillator_rk4_on_duals<T>(y0: &[T; 2], k: T) -> T {
        let dt = T::from(0.1).unwrap();
        let half = T::from(0.5).unwrap();
        let sixth = T::from(1.0 / 6.0).unwrap();
        let two = T::from(2.0).unwrap();
        let mut y = *y0;
        for _ in 0..10 {
            let k1 = [y[1], -k * y[0]];
            let y2 = [y[0] + half * dt * k1[0], y[1] + half * dt * k1[1]];
            let k2 = [y2[1], -k * y2[0]];
            let y3 = [y[0] + half * dt * k2[0], y[1] + half * dt * k2[1]];
            let k3 = [y3[1], -k * y3[0]];
            let y4 = [y[0] + dt * k3[0], y[1] + dt * k3[1]];
            let k4 = [y4[1], -k * y4[0]];
            y = [
                y[0] + sixth * dt * (k1[0] + two * k2[0] + two * k3[0] + k4[0]),
                y[1] + sixth * dt * (k1[1] + two * k2[1] + two * k3[1] + k4[1]),
            ];
        }
        k * y[0] * y[0] + y[1] * y[1]
    }
}

twice! {
    /// Least squares `min |A x - b|²` by twenty steps of gradient descent from zero: local
    /// arrays written by index in nested loops.
    fn least_squares_descent / least_squares_descent_on_duals<T>(a: &[[T; 2]; 3], b: &[T; 3]) -> T {
        let lr = T::from(0.1).unwrap();
        let mut x = [T::zero(); 2];
        for _ in 0..20 {
            let mut r = [T::zero(); 3];
            for i in 0..3 {
                r[i] = a[i][0] * x[0] + a[i][1] * x[1] - b[i];
            }
            for j in 0..2 {
                let mut g = T::zero();
                for i in 0..3 {
                    g = g + a[i][j] * r[i];
                }
                x[j] = x[j] - lr * g;
            }
        }
        x[0] + x[1]
    }
}

// ----- the float method set, in functions of the kinds that use it -----

twice! {
    /// The great-circle distance between two points (radians) by the haversine formula:
    /// `sin`, `cos`, `asin`, `sqrt`, `powi`.
    fn haversine / haversine_on_duals<T>(lat1: T, lon1: T, lat2: T, lon2: T) -> T {
        let half = T::from(0.5).unwrap();
        let a = ((lat2 - lat1) * half).sin().powi(2)
            + lat1.cos() * lat2.cos() * ((lon2 - lon1) * half).sin().powi(2);
        T::from(2.0 * 6371.0).unwrap() * a.sqrt().asin()
    }
}

twice! {
    /// The initial bearing from one point to another: `atan2`.
    fn initial_bearing / initial_bearing_on_duals<T>(lat1: T, lon1: T, lat2: T, lon2: T) -> T {
        let y = (lon2 - lon1).sin() * lat2.cos();
        let x = lat1.cos() * lat2.sin() - lat1.sin() * lat2.cos() * (lon2 - lon1).cos();
        y.atan2(x)
    }
}

twice! {
    /// The angle between two plane vectors: `acos` of the normalised dot product, `hypot`.
    fn angle_between / angle_between_on_duals<T>(ax: T, ay: T, bx: T, by: T) -> T {
        ((ax * bx + ay * by) / (ax.hypot(ay) * bx.hypot(by))).acos()
    }
}

twice! {
    /// The Gudermannian and its inverse composed with a scaling: `sinh`, `atan`, `tan`,
    /// `asinh`.
    fn gudermannian_round_trip / gudermannian_round_trip_on_duals<T>(x: T, s: T) -> T {
        let gd = x.sinh().atan();
        (gd * s).tan().asinh() + gd
    }
}

twice! {
    /// A catenary's arc length over `[0, x]` and the height at which it reaches a span:
    /// `cosh`, `sinh`, `acosh`.
    fn catenary / catenary_on_duals<T>(a: T, x: T, h: T) -> T {
        let length = a * (x / a).sinh();
        let sag = a * (x / a).cosh() - a;
        length + a * ((h + a) / a).acosh() + sag
    }
}

twice! {
    /// Power gain in decibels, the bits of information of a ratio, and a logarithm in a
    /// differentiable base: `log10`, `log2`, `log`, `ln`.
    fn decibels / decibels_on_duals<T>(power: T, reference: T, base: T) -> T {
        let ratio = power / reference;
        T::from(10.0).unwrap() * ratio.log10() + ratio.log2() + ratio.log(base) - ratio.ln()
    }
}

twice! {
    /// The power mean of two values with a differentiable exponent, and half-life decay
    /// through `exp2`: `powf` with both operands differentiable, `recip`, `exp2`.
    fn power_mean_decay / power_mean_decay_on_duals<T>(a: T, b: T, p: T, t: T) -> T {
        let half = T::from(0.5).unwrap();
        let mean = ((a.powf(p) + b.powf(p)) * half).powf(p.recip());
        mean * (-t / b).exp2()
    }
}

twice! {
    /// The exponential linear unit and softplus, by their accurate forms: `exp_m1`,
    /// `ln_1p`, a branch on the sign.
    fn elu_softplus / elu_softplus_on_duals<T>(x: T, alpha: T) -> T {
        let elu = if x > T::zero() { x } else { alpha * x.exp_m1() };
        elu + x.exp().ln_1p()
    }
}

twice! {
    /// A confidence interval for a correlation through Fisher's transformation: `atanh`,
    /// `tanh`.
    fn fisher_upper / fisher_upper_on_duals<T>(r: T, half_width: T) -> T {
        (r.atanh() + half_width).tanh()
    }
}

twice! {
    /// CIE lightness from relative luminance: `cbrt` above the threshold, linear below.
    fn cie_lightness / cie_lightness_on_duals<T>(y: T, white: T) -> T {
        let t = y / white;
        let f = if t > T::from(216.0 / 24389.0).unwrap() {
            t.cbrt()
        } else {
            t * T::from(841.0 / 108.0).unwrap() + T::from(4.0 / 29.0).unwrap()
        };
        T::from(116.0).unwrap() * f - T::from(16.0).unwrap()
    }
}

twice! {
    /// A cubic by fused multiply-adds, clamped, with its fractional part: `mul_add`, `clamp`,
    /// `max`, `min`, and the zero-derivative `floor`, `ceil`, `round`, `trunc`, `signum`.
    fn clamped_cubic / clamped_cubic_on_duals<T>(x: T, a: T, b: T) -> T {
        let cubic = x.mul_add(x, a).mul_add(x, b);
        let clamped = cubic.clamp(T::from(-2.0).unwrap(), T::from(2.0).unwrap());
        let pieces = x.floor() + x.ceil() + x.round() + x.trunc() + x.signum();
        clamped + (x - x.floor()) * a.max(b) + a.min(b) * pieces
    }
}

// ----- structs of floats (`#[derive(Differentiable)]`), generic over the float type -----

/// A normal distribution's parameters, the scale by its logarithm.
#[derive(Differentiable, Clone)]
struct Gaussian<T> {
    mu: T,
    log_sigma: T,
}

/// A damped spring's constants.
#[derive(Differentiable, Clone)]
struct Spring<T> {
    stiffness: T,
    damping: T,
    rest: T,
}

/// A neuron: two weights (an array field) and a bias.
#[derive(Differentiable, Clone)]
struct Neuron<T> {
    w: [T; 2],
    b: T,
}

/// Two hidden neurons and an output one: nested structs.
#[derive(Differentiable, Clone)]
struct Net<T> {
    first: Neuron<T>,
    second: Neuron<T>,
    output: Neuron<T>,
}

twice! {
    /// The negative log-likelihood of a sample under a normal distribution: a struct
    /// parameter (its gradient a `Gaussian`) beside a differentiable slice.
    fn gaussian_nll / gaussian_nll_on_duals<T>(#[differentiable] p: &Gaussian<T>, data: &[T]) -> T {
        let sigma = p.log_sigma.exp();
        let half = T::from(0.5).unwrap();
        let mut total = T::zero();
        for x in data.iter() {
            let z = (*x - p.mu) / sigma;
            total = total + half * z * z + p.log_sigma;
        }
        total / T::from(data.len()).unwrap()
    }
}

twice! {
    /// A damped spring released from `x0`, simulated by semi-implicit Euler; its fields read
    /// in the loop.
    fn spring_release / spring_release_on_duals<T>(#[differentiable] s: &Spring<T>, x0: T) -> T {
        let dt = T::from(0.05).unwrap();
        let mut x = x0;
        let mut v = T::zero();
        for _ in 0..30 {
            v = v - dt * (s.stiffness * (x - s.rest) + s.damping * v);
            x = x + dt * v;
        }
        x
    }
}

twice! {
    /// A 2-2-1 network of tanh neurons and its squared error: nested structs, array fields
    /// read by index.
    fn net_loss / net_loss_on_duals<T>(#[differentiable] net: &Net<T>, x: &[T; 2], y: T) -> T {
        let h1 = (net.first.w[0] * x[0] + net.first.w[1] * x[1] + net.first.b).tanh();
        let h2 = (net.second.w[0] * x[0] + net.second.w[1] * x[1] + net.second.b).tanh();
        let out = net.output.w[0] * h1 + net.output.w[1] * h2 + net.output.b;
        (out - y) * (out - y)
    }
}

// ----- writers: results written into a caller's `&mut [T]` -----

twice! {
    /// Softmax probabilities written into the caller's buffer.
    fn softmax_into / softmax_into_on_duals<T>(logits: &[T], out: &mut [T]) {
        let mut m = logits[0];
        for v in logits.iter() {
            m = m.max(*v);
        }
        let mut total = T::zero();
        for i in 0..logits.len() {
            out[i] = (logits[i] - m).exp();
            total = total + out[i];
        }
        for i in 0..logits.len() {
            out[i] = out[i] / total;
        }
    }
}

twice! {
    /// One semi-implicit Euler step of a pendulum, the new state written out.
    fn pendulum_step_into / pendulum_step_into_on_duals<T>(state: &[T], dt: T, out: &mut [T]) {
        let omega = state[1] - dt * T::from(9.81).unwrap() * state[0].sin();
        out[0] = state[0] + dt * omega;
        out[1] = omega;
    }
}

twice! {
    /// The growth of one unit through a series of returns, each entry read back from the
    /// output written before it.
    fn compounded_into / compounded_into_on_duals<T>(returns: &[T], out: &mut [T]) {
        out[0] = T::one() + returns[0];
        for i in 1..returns.len() {
            out[i] = out[i - 1] * (T::one() + returns[i]);
        }
    }
}

// ----- references to references, and non-float methods on `iter_mut` items -----

twice! {
    /// `&r` of a local holding a reference passed to a local closure's `&T` parameter
    /// (`let r = &x[0]; d(&r)`; `let r = s; d(&r)` of a borrowed reference): the call
    /// coerces `&&T` to `&T`. The inlined closure bound its parameter to `&r` itself, a
    /// `&&T`, and the expansion failed with rustc E0369 (`&&f64 * f64`). Also `let q = &r;
    /// **q` as written, and `d(&u)` of `let u: &T = &x[2];` (the type spelled: rustc E0308
    /// in the tangent code, which gave the tangent, a number, the reference's type).
    fn reference_locals / reference_locals_on_duals<T>(x: &[T], w: T) -> T {
        let d = |v: &T| *v * w + v.sin();
        let r = &x[0];
        let s = &x[1];
        let t = s;
        let q = &r;
        let u: &T = &x[2];
        let mut total = d(&r) + d(&t) + d(r) + **q * x[2] + d(&u);
        for i in 0..x.len() {
            let e = &x[i];
            total = total + d(&e) * *e;
        }
        total
    }
}

twice! {
    /// Methods of a float that are not differentiable (constants for differentiation) on
    /// an `iter_mut` item, `v.is_nan()`, `v.is_sign_negative()`, `v.is_finite()`,
    /// `(*v).partial_cmp(&w)` and `v.lt(&&mut c)` (`PartialOrd` for `&mut T`, its
    /// argument a reference to a `&mut T`): each failed with rustc E0425 (`v` not found)
    /// where a float method (`v.sin()`) compiled.
    fn iter_mut_item_predicates / iter_mut_item_predicates_on_duals<T>(x: &[T], w: T) -> T {
        let mut a = x.to_vec();
        for v in a.iter_mut() {
            if v.is_nan() || !v.is_finite() {
                *v = T::zero();
            }
            if v.is_sign_negative() {
                *v = -*v * w;
            }
            if (*v).partial_cmp(&w) == Some(core::cmp::Ordering::Greater) {
                *v = v.sqrt();
            }
            let mut c = w * w;
            if v.lt(&&mut c) {
                *v = *v * *v + w;
            }
        }
        a.iter().fold(T::zero(), |acc, v| acc + *v)
    }
}

/// `to_bits` (of `f64`, no `num_traits::Float` method) on an `iter_mut` item: the sign
/// bit read off the item, a constant for differentiation.
#[differentiable]
fn iter_mut_item_bits(x: &[f64], w: f64) -> f64 {
    let mut a = x.to_vec();
    for v in a.iter_mut() {
        if v.to_bits() >> 63 == 1 {
            *v *= w;
        }
    }
    a.iter().sum::<f64>()
}

/// [`iter_mut_item_bits`] indexed, `a[i].to_bits()`: the oracle.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn iter_mut_item_bits_indexed(x: &[f64], w: f64) -> f64 {
    let mut a = x.to_vec();
    for i in 0..a.len() {
        if a[i].to_bits() >> 63 == 1 {
            a[i] *= w;
        }
    }
    a.iter().sum::<f64>()
}

// ----- `as` casts -----
//
// A body generic over the float type cannot write `as` (it casts primitives only), so
// `twice!` does not apply: each function below is written in f64 (and f32), and its twin
// on dual numbers beside it, statement for statement, each cast spelled for duals. A cast
// to an integer is a constant: the twin casts the dual's value (`d.value as usize`). A cast
// between f32 and f64 is differentiable with derivative one: the twin converts the value
// and every partial (`narrowed`, `widened`), and runs the f32 part on `Dual<f32, N>`, so
// its values round as the function's do.

/// `d` as `Dual<f32, N>`: the value and each partial rounded to f32 (`as f32`).
fn narrowed<const N: usize>(d: Dual<f64, N>) -> Dual<f32, N> {
    Dual {
        value: d.value as f32,
        partials: d.partials.map(|p| p as f32),
    }
}

/// `d` as `Dual<f64, N>` (`as f64`, exact).
fn widened<const N: usize>(d: Dual<f32, N>) -> Dual<f64, N> {
    Dual {
        value: f64::from(d.value),
        partials: d.partials.map(f64::from),
    }
}

/// Piecewise-linear interpolation in a table of samples over `[0, 1]`: the segment's
/// index computed from the float position, `(t * n as f64) as usize`, a constant.
#[differentiable]
fn table_lookup(t: f64, table: &[f64]) -> f64 {
    let n = table.len() - 1;
    let position = t * n as f64;
    let i = (position as usize).min(n - 1);
    let fraction = position - i as f64;
    table[i] * (1.0 - fraction) + table[i + 1] * fraction
}

fn table_lookup_on_duals<const N: usize>(t: Dual<f64, N>, table: &[Dual<f64, N>]) -> Dual<f64, N> {
    let n = table.len() - 1;
    let position = t * Dual::constant(n as f64);
    let i = (position.value as usize).min(n - 1);
    let fraction = position - Dual::constant(i as f64);
    table[i] * (Dual::constant(1.0) - fraction) + table[i + 1] * fraction
}

/// Snapping to a histogram's bin centre, with a penalty per bin index: `floor() as i32`
/// (a constant) and the index back to a float, `bin as f64`.
#[differentiable]
fn histogram_snap(x: f64, low: f64, width: f64) -> f64 {
    let bin = ((x - low) / width).floor() as i32;
    let centre = low + (bin as f64 + 0.5) * width;
    let miss = x - centre;
    miss * miss + 0.1 * width * bin as f64
}

fn histogram_snap_on_duals<const N: usize>(
    x: Dual<f64, N>,
    low: Dual<f64, N>,
    width: Dual<f64, N>,
) -> Dual<f64, N> {
    let bin = ((x - low) / width).value.floor() as i32;
    let centre = low + Dual::constant(bin as f64 + 0.5) * width;
    let miss = x - centre;
    miss * miss + Dual::constant(0.1) * width * Dual::constant(bin as f64)
}

/// A time-stepped decay whose number of steps follows from the horizon,
/// `(horizon * 20.0).ceil() as usize`, and whose step is `horizon / steps as f64`.
#[differentiable]
fn stepped_decay(rate: f64, horizon: f64) -> f64 {
    let steps = (horizon * 20.0).ceil() as usize;
    let dt = horizon / steps as f64;
    let mut y = 1.0;
    for _ in 0..steps {
        y = y - rate * y * dt;
    }
    y
}

fn stepped_decay_on_duals<const N: usize>(
    rate: Dual<f64, N>,
    horizon: Dual<f64, N>,
) -> Dual<f64, N> {
    let steps = (horizon.value * 20.0).ceil() as usize;
    let dt = horizon / Dual::constant(steps as f64);
    let mut y = Dual::constant(1.0);
    for _ in 0..steps {
        y = y - rate * y * dt;
    }
    y
}

/// A dot product in mixed precision: each product in f32 (`x[i] as f32 * w[i] as f32`),
/// accumulated in f64 (`as f64`).
#[differentiable]
fn mixed_precision_dot(x: &[f64], w: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let product = x[i] as f32 * w[i] as f32;
        total += product as f64;
    }
    total
}

fn mixed_precision_dot_on_duals<const N: usize>(
    x: &[Dual<f64, N>],
    w: &[Dual<f64, N>],
) -> Dual<f64, N> {
    let mut total = Dual::constant(0.0);
    for i in 0..x.len() {
        let product = narrowed(x[i]) * narrowed(w[i]);
        total += widened(product);
    }
    total
}

/// sRGB encoding of an exposed linear intensity, computed in f32 as a renderer does:
/// `(linear * exposure) as f32`, the gamma curve in f32, back `as f64`.
#[differentiable]
fn srgb_encode(linear: f64, exposure: f64) -> f64 {
    let l = (linear * exposure) as f32;
    let encoded = if l <= 0.003_130_8 {
        12.92 * l
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    encoded as f64
}

fn srgb_encode_on_duals<const N: usize>(
    linear: Dual<f64, N>,
    exposure: Dual<f64, N>,
) -> Dual<f64, N> {
    use num_traits::Float as _;
    let l = narrowed(linear * exposure);
    let encoded = if l.value <= 0.003_130_8 {
        Dual::constant(12.92) * l
    } else {
        Dual::constant(1.055) * l.powf(Dual::constant(1.0 / 2.4)) - Dual::constant(0.055)
    };
    widened(encoded)
}

/// A phase-indexed wavetable oscillator in f32: the table's slot from the phase,
/// `(phase * n as f32) as usize % n`, and the output widened, `as f64`.
#[differentiable]
fn wavetable(phase: f32, gain: f64, table: &[f64]) -> f64 {
    let n = table.len();
    let slot = (phase.abs() * n as f32) as usize % n;
    let shaped = (phase * 6.283_185_5).sin() * phase;
    gain * (shaped as f64) * table[slot]
}

fn wavetable_on_duals<const N: usize>(
    phase: Dual<f32, N>,
    gain: Dual<f64, N>,
    table: &[Dual<f64, N>],
) -> Dual<f64, N> {
    use num_traits::Float as _;
    let n = table.len();
    let slot = (phase.value.abs() * n as f32) as usize % n;
    let shaped = (phase * Dual::constant(6.283_185_5)).sin() * phase;
    gain * widened(shaped) * table[slot]
}

// ----- the checks -----

#[test]
fn statistics_and_losses() {
    Twice::<6> {
        name: "weighted_variance",
        itself: &|p| weighted_variance(&p[..3], &p[3..]),
        primal: &|p| weighted_variance::primal(&p[..3], &p[3..]),
        grad: &|p| {
            let (value, [dx, dw]) = weighted_variance::grad(&p[..3], &p[3..]);
            (value, [dx, dw].concat())
        },
        on_duals: &|d| weighted_variance_on_duals(&d[..3], &d[3..]),
    }
    .check([0.3, -1.2, 2.0, 0.5, 1.5, 0.8]);
    Twice::<4> {
        name: "compound_growth",
        itself: &|p| compound_growth(&p[..3], p[3]),
        primal: &|p| compound_growth::primal(&p[..3], p[3]),
        grad: &|p| {
            let (value, (dr, dy)) = compound_growth::grad(&p[..3], p[3]);
            (value, [dr, vec![dy]].concat())
        },
        on_duals: &|d| compound_growth_on_duals(&d[..3], d[3]),
    }
    .check([0.05, -0.12, 0.3, 2.5]);
    Twice::<3> {
        name: "stage_reliability",
        itself: &|p| stage_reliability(p),
        primal: &|p| stage_reliability::primal(p),
        grad: &|p| {
            let (value, [g]) = stage_reliability::grad(p);
            (value, g)
        },
        on_duals: &|d| stage_reliability_on_duals(d),
    }
    .check([1.2, -0.4, 2.1]);
    Twice::<4> {
        name: "log_sum_exp",
        itself: &|p| log_sum_exp(p),
        primal: &|p| log_sum_exp::primal(p),
        grad: &|p| {
            let (value, [g]) = log_sum_exp::grad(p);
            (value, g)
        },
        on_duals: &|d| log_sum_exp_on_duals(d),
    }
    .check([0.3, -1.2, 2.0, 1.1]);
    for label in [0, 2] {
        Twice::<4> {
            name: "softmax_cross_entropy",
            itself: &|p| softmax_cross_entropy(p, label),
            primal: &|p| softmax_cross_entropy::primal(p, label),
            grad: &|p| {
                let (value, [g]) = softmax_cross_entropy::grad(p, label);
                (value, g)
            },
            on_duals: &|d| softmax_cross_entropy_on_duals(d, label),
        }
        .check([0.3, -1.2, 2.0, 1.1]);
    }
}

#[test]
fn numerical_methods() {
    Twice::<6> {
        name: "trapezoid",
        itself: &|p| trapezoid(&p[..5], p[5]),
        primal: &|p| trapezoid::primal(&p[..5], p[5]),
        grad: &|p| {
            let (value, (dy, ddx)) = trapezoid::grad(&p[..5], p[5]);
            (value, [dy, vec![ddx]].concat())
        },
        on_duals: &|d| trapezoid_on_duals(&d[..5], d[5]),
    }
    .check([0.3, 0.9, 1.4, 1.2, 0.6, 0.25]);
    Twice::<8> {
        name: "tridiagonal_solve",
        itself: &|p| tridiagonal_solve(&p[..4], &p[4..]),
        primal: &|p| tridiagonal_solve::primal(&p[..4], &p[4..]),
        grad: &|p| {
            let (value, [dd, dr]) = tridiagonal_solve::grad(&p[..4], &p[4..]);
            (value, [dd, dr].concat())
        },
        on_duals: &|d| tridiagonal_solve_on_duals(&d[..4], &d[4..]),
    }
    .check([2.5, 3.0, 2.2, 2.8, 1.0, -0.5, 0.8, 0.3]);
    Twice::<6> {
        name: "heat_rod",
        itself: &|p| heat_rod(&p[..5], p[5]),
        primal: &|p| heat_rod::primal(&p[..5], p[5]),
        grad: &|p| {
            let (value, (du, da)) = heat_rod::grad(&p[..5], p[5]);
            (value, [du, vec![da]].concat())
        },
        on_duals: &|d| heat_rod_on_duals(&d[..5], d[5]),
    }
    .check([0.0, 0.8, 1.0, 0.4, 0.0, 0.2]);
    Twice::<5> {
        name: "moving_average_residual",
        itself: &|p| moving_average_residual(p),
        primal: &|p| moving_average_residual::primal(p),
        grad: &|p| {
            let (value, [g]) = moving_average_residual::grad(p);
            (value, g)
        },
        on_duals: &|d| moving_average_residual_on_duals(d),
    }
    .check([0.3, -1.2, 2.0, 1.1, 0.4]);
    Twice::<4> {
        name: "horner",
        itself: &|p| horner(&p[..3], p[3]),
        primal: &|p| horner::primal(&p[..3], p[3]),
        grad: &|p| {
            let (value, (dc, dx)) = horner::grad(&p[..3], p[3]);
            (value, [dc, vec![dx]].concat())
        },
        on_duals: &|d| horner_on_duals(&d[..3], d[3]),
    }
    .check([0.5, -1.0, 2.0, 1.3]);
    Twice::<3> {
        name: "normalised_projection",
        itself: &|p| normalised_projection(p.to_vec()),
        primal: &|p| normalised_projection::primal(p.to_vec()),
        grad: &|p| {
            let (value, [g]) = normalised_projection::grad(p.to_vec());
            (value, g)
        },
        on_duals: &|d| normalised_projection_on_duals(duals(d)),
    }
    .check([0.3, -1.2, 2.0]);
}

#[test]
fn closures_taking_slices() {
    Twice::<4> {
        name: "closure_over_slices",
        itself: &|p| closure_over_slices(p),
        primal: &|p| closure_over_slices::primal(p),
        grad: &|p| {
            let (value, [g]) = closure_over_slices::grad(p);
            (value, g)
        },
        on_duals: &|d| closure_over_slices_on_duals(d),
    }
    .check([0.3, -1.2, 2.0, 1.1]);
    Twice::<4> {
        name: "closure_over_an_array",
        itself: &|p| closure_over_an_array([p[0], p[1], p[2]], p[3]),
        primal: &|p| closure_over_an_array::primal([p[0], p[1], p[2]], p[3]),
        grad: &|p| {
            let (value, (dx, ds)) = closure_over_an_array::grad([p[0], p[1], p[2]], p[3]);
            (value, [dx.to_vec(), vec![ds]].concat())
        },
        on_duals: &|d| closure_over_an_array_on_duals([d[0], d[1], d[2]], d[3]),
    }
    .check([0.3, -1.2, 2.0, 0.7]);
    Twice::<4> {
        name: "closure_over_a_vec",
        itself: &|p| closure_over_a_vec(p[..3].to_vec(), p[3]),
        primal: &|p| closure_over_a_vec::primal(p[..3].to_vec(), p[3]),
        grad: &|p| {
            let (value, (dx, dw)) = closure_over_a_vec::grad(p[..3].to_vec(), p[3]);
            (value, [dx, vec![dw]].concat())
        },
        on_duals: &|d| closure_over_a_vec_on_duals(duals(&d[..3]), d[3]),
    }
    .check([0.3, -1.2, 2.0, 0.7]);
}

#[test]
fn a_method_passed_a_mut_parameter() {
    Twice::<3> {
        name: "damped",
        itself: &|p| damped(p),
        primal: &|p| damped::primal(p),
        grad: &|p| {
            let (value, [g]) = damped::grad(p);
            (value, g)
        },
        on_duals: &|d| damped_on_duals(d),
    }
    .check([0.3, -1.2, 2.0]);
}

#[test]
fn several_mut_parameters_passed_on() {
    Twice::<4> {
        name: "leapfrogged",
        itself: &|p| leapfrogged(p),
        primal: &|p| leapfrogged::primal(p),
        grad: &|p| {
            let (value, [g]) = leapfrogged::grad(p);
            (value, g)
        },
        on_duals: &|d| leapfrogged_on_duals(d),
    }
    .check([0.3, -1.2, 0.5, 0.8]);
    // `leapfrog_of`'s own pullback (`vjp`, `PassedOnMany`) against its `grad_into`
    let (mut pos, mut vel) = ([0.3, -1.2], [0.5, 0.8]);
    let (mut dpos, mut dvel) = ([0.7, 0.2], [-0.4, 1.1]);
    let ((), pullback) = leapfrog_of::vjp(&mut pos, &mut vel, 0.1, 3);
    pullback((), &mut dpos, &mut dvel);
    let (mut into_pos, mut into_vel) = ([0.3, -1.2], [0.5, 0.8]);
    let (mut into_dpos, mut into_dvel) = ([0.7, 0.2], [-0.4, 1.1]);
    leapfrog_of::grad_into(
        &mut into_pos,
        &mut into_vel,
        0.1,
        3,
        &mut into_dpos,
        &mut into_dvel,
    );
    assert_eq!((pos, vel), (into_pos, into_vel));
    for (a, b) in dpos
        .iter()
        .chain(&dvel)
        .zip(into_dpos.iter().chain(&into_dvel))
    {
        assert!(close(*a, *b, 1e-12), "vjp {a}, grad_into {b}");
    }
}

#[test]
fn geometry() {
    let rows = |p: &[f64]| -> Vec<[f64; 2]> { p.chunks(2).map(|c| [c[0], c[1]]).collect() };
    Twice::<8> {
        name: "polyline_length",
        itself: &|p| polyline_length(&rows(p)),
        primal: &|p| polyline_length::primal(&rows(p)),
        grad: &|p| {
            let (value, [g]) = polyline_length::grad(&rows(p));
            (value, g.concat())
        },
        on_duals: &|d| {
            let points: Vec<[Dual<f64, 8>; 2]> = d.chunks(2).map(|c| [c[0], c[1]]).collect();
            polyline_length_on_duals(&points)
        },
    }
    .check([0.0, 0.0, 1.0, 0.5, 1.5, 2.0, 3.0, 2.2]);
    let matrix = |p: &[f64]| [[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], p[8]]];
    Twice::<12> {
        name: "quadratic_form",
        itself: &|p| quadratic_form(&matrix(p), &[p[9], p[10], p[11]]),
        primal: &|p| quadratic_form::primal(&matrix(p), &[p[9], p[10], p[11]]),
        grad: &|p| {
            let (value, (dm, dx)) = quadratic_form::grad(&matrix(p), &[p[9], p[10], p[11]]);
            (value, [dm.concat(), dx.to_vec()].concat())
        },
        on_duals: &|d| {
            let m = [[d[0], d[1], d[2]], [d[3], d[4], d[5]], [d[6], d[7], d[8]]];
            quadratic_form_on_duals(&m, &[d[9], d[10], d[11]])
        },
    }
    .check([
        2.0, 0.3, -0.1, 0.3, 1.5, 0.2, -0.1, 0.2, 1.0, 0.5, -1.2, 0.8,
    ]);
    Twice::<6> {
        name: "pair_norms",
        itself: &|p| pair_norms(p),
        primal: &|p| pair_norms::primal(p),
        grad: &|p| {
            let (value, [g]) = pair_norms::grad(p);
            (value, g)
        },
        on_duals: &|d| pair_norms_on_duals(d),
    }
    .check([0.3, -1.2, 2.0, 1.1, 0.4, 0.9]);
}

#[test]
fn iterator_forms_integrators_and_solvers() {
    Twice::<4> {
        name: "geometric_mean",
        itself: &|p| geometric_mean(p),
        primal: &|p| geometric_mean::primal(p),
        grad: &|p| {
            let (value, [g]) = geometric_mean::grad(p);
            (value, g)
        },
        on_duals: &|d| geometric_mean_on_duals(d),
    }
    .check([0.3, 1.2, 2.0, 0.7]);
    Twice::<5> {
        name: "discounted_return",
        itself: &|p| discounted_return(&p[..4], p[4]),
        primal: &|p| discounted_return::primal(&p[..4], p[4]),
        grad: &|p| {
            let (value, (dr, dg)) = discounted_return::grad(&p[..4], p[4]);
            (value, [dr, vec![dg]].concat())
        },
        on_duals: &|d| discounted_return_on_duals(&d[..4], d[4]),
    }
    .check([1.0, -0.5, 0.3, 2.0, 0.9]);
    Twice::<4> {
        name: "softplus_layer",
        itself: &|p| softplus_layer(&p[..3], p[3]),
        primal: &|p| softplus_layer::primal(&p[..3], p[3]),
        grad: &|p| {
            let (value, (dx, dw)) = softplus_layer::grad(&p[..3], p[3]);
            (value, [dx, vec![dw]].concat())
        },
        on_duals: &|d| softplus_layer_on_duals(&d[..3], d[3]),
    }
    .check([0.3, -1.2, 2.0, 0.8]);
    Twice::<6> {
        name: "interleaved_products",
        itself: &|p| interleaved_products(p),
        primal: &|p| interleaved_products::primal(p),
        grad: &|p| {
            let (value, [g]) = interleaved_products::grad(p);
            (value, g)
        },
        on_duals: &|d| interleaved_products_on_duals(d),
    }
    .check([0.3, -1.2, 2.0, 1.1, 0.4, 0.9]);
    Twice::<5> {
        name: "kahan_sum_of_squares",
        itself: &|p| kahan_sum_of_squares(p),
        primal: &|p| kahan_sum_of_squares::primal(p),
        grad: &|p| {
            let (value, [g]) = kahan_sum_of_squares::grad(p);
            (value, g)
        },
        on_duals: &|d| kahan_sum_of_squares_on_duals(d),
    }
    .check([0.3, -1.2, 2.0, 1.1, 0.4]);
    let matrix = |p: &[f64]| [[p[0], p[1]], [p[2], p[3]]];
    Twice::<4> {
        name: "power_iteration",
        itself: &|p| power_iteration(&matrix(p)),
        primal: &|p| power_iteration::primal(&matrix(p)),
        grad: &|p| {
            let (value, [g]) = power_iteration::grad(&matrix(p));
            (value, g.concat())
        },
        on_duals: &|d| power_iteration_on_duals(&[[d[0], d[1]], [d[2], d[3]]]),
    }
    .check([2.0, 0.5, 0.3, 1.0]);
    Twice::<3> {
        name: "oscillator_rk4",
        itself: &|p| oscillator_rk4(&[p[0], p[1]], p[2]),
        primal: &|p| oscillator_rk4::primal(&[p[0], p[1]], p[2]),
        grad: &|p| {
            let (value, (dy, dk)) = oscillator_rk4::grad(&[p[0], p[1]], p[2]);
            (value, [dy.to_vec(), vec![dk]].concat())
        },
        on_duals: &|d| oscillator_rk4_on_duals(&[d[0], d[1]], d[2]),
    }
    .check([1.0, 0.2, 2.0]);
    let system = |p: &[f64]| [[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]];
    Twice::<9> {
        name: "least_squares_descent",
        itself: &|p| least_squares_descent(&system(p), &[p[6], p[7], p[8]]),
        primal: &|p| least_squares_descent::primal(&system(p), &[p[6], p[7], p[8]]),
        grad: &|p| {
            let (value, (da, db)) = least_squares_descent::grad(&system(p), &[p[6], p[7], p[8]]);
            (value, [da.concat(), db.to_vec()].concat())
        },
        on_duals: &|d| {
            let a = [[d[0], d[1]], [d[2], d[3]], [d[4], d[5]]];
            least_squares_descent_on_duals(&a, &[d[6], d[7], d[8]])
        },
    }
    .check([1.0, 0.2, 0.3, 0.9, -0.4, 0.5, 1.0, -0.5, 0.8]);
}

/// The faces of a function of `N` plain floats.
macro_rules! numbers {
    ($f:ident, $on_duals:ident, $n:literal, [$($k:literal),+], $x:expr) => {
        Twice::<$n> {
            name: stringify!($f),
            itself: &|p| $f($(p[$k]),+),
            primal: &|p| $f::primal($(p[$k]),+),
            grad: &|p| {
                let (value, g) = $f::grad($(p[$k]),+);
                (value, g.to_vec())
            },
            on_duals: &|d| $on_duals($(d[$k]),+),
        }
        .check($x)
    };
}

#[test]
fn the_float_method_set() {
    // Paris to New York, and a shorter hop, in radians
    for x in [[0.8527, 0.0410, 0.7101, -1.2915], [0.1, 0.2, -0.3, 0.5]] {
        numbers!(haversine, haversine_on_duals, 4, [0, 1, 2, 3], x);
        numbers!(
            initial_bearing,
            initial_bearing_on_duals,
            4,
            [0, 1, 2, 3],
            x
        );
    }
    numbers!(
        angle_between,
        angle_between_on_duals,
        4,
        [0, 1, 2, 3],
        [1.0, 0.5, -0.3, 1.2]
    );
    numbers!(
        gudermannian_round_trip,
        gudermannian_round_trip_on_duals,
        2,
        [0, 1],
        [0.4, 0.7]
    );
    numbers!(catenary, catenary_on_duals, 3, [0, 1, 2], [1.5, 2.0, 0.8]);
    numbers!(decibels, decibels_on_duals, 3, [0, 1, 2], [5.0, 2.0, 3.0]);
    numbers!(
        power_mean_decay,
        power_mean_decay_on_duals,
        4,
        [0, 1, 2, 3],
        [1.5, 2.5, 1.7, 3.0]
    );
    // both sides of the ELU's branch
    for x in [[0.6, 1.2], [-0.8, 1.2]] {
        numbers!(elu_softplus, elu_softplus_on_duals, 2, [0, 1], x);
    }
    numbers!(fisher_upper, fisher_upper_on_duals, 2, [0, 1], [0.45, 0.3]);
    // above and below the linear segment's threshold
    for x in [[0.5, 1.0], [0.004, 1.0]] {
        numbers!(cie_lightness, cie_lightness_on_duals, 2, [0, 1], x);
    }
    // inside the clamp, and clamped; away from integers (the pieces' jumps)
    for x in [[0.3, 0.5, -0.2], [1.4, 0.7, 0.9], [-1.7, 0.4, 0.2]] {
        numbers!(clamped_cubic, clamped_cubic_on_duals, 3, [0, 1, 2], x);
    }
}

#[test]
fn as_casts() {
    let table = [0.0, 0.8, 1.1, 0.7, -0.2];
    // inside the second segment, and the last (the index clamped to `n - 1` at `t = 1`
    // is not reached: a point inside it)
    for t in [0.37, 0.91] {
        let mut x = [0.0; 6];
        x[0] = t;
        x[1..].copy_from_slice(&table);
        Twice::<6> {
            name: "table_lookup",
            itself: &|p| table_lookup(p[0], &p[1..]),
            primal: &|p| table_lookup::primal(p[0], &p[1..]),
            grad: &|p| {
                let (value, (dt, dtable)) = table_lookup::grad(p[0], &p[1..]);
                (value, [vec![dt], dtable].concat())
            },
            on_duals: &|d| table_lookup_on_duals(d[0], &d[1..]),
        }
        .check(x);
    }
    // bins 2 and -3, away from their edges
    for x in [[1.37, 0.2, 0.5], [-1.1, 0.4, 0.6]] {
        numbers!(histogram_snap, histogram_snap_on_duals, 3, [0, 1, 2], x);
    }
    // 25 and 9 steps
    for x in [[0.7, 1.23], [1.3, 0.41]] {
        numbers!(stepped_decay, stepped_decay_on_duals, 2, [0, 1], x);
    }
    Twice::<6> {
        name: "mixed_precision_dot",
        itself: &|p| mixed_precision_dot(&p[..3], &p[3..]),
        primal: &|p| mixed_precision_dot::primal(&p[..3], &p[3..]),
        grad: &|p| {
            let (value, [dx, dw]) = mixed_precision_dot::grad(&p[..3], &p[3..]);
            (value, [dx, dw].concat())
        },
        on_duals: &|d| mixed_precision_dot_on_duals(&d[..3], &d[3..]),
    }
    .check_within([0.3, -1.2, 2.0, 0.5, 1.5, 0.8], &Tolerances::THROUGH_F32);
    // on the gamma curve (the linear toe, below 0.0031, is narrower than the Hessian's
    // step of 1e-2 through f32)
    for x in [[0.4, 0.8], [0.9, 0.3]] {
        Twice::<2> {
            name: "srgb_encode",
            itself: &|p| srgb_encode(p[0], p[1]),
            primal: &|p| srgb_encode::primal(p[0], p[1]),
            grad: &|p| {
                let (value, g) = srgb_encode::grad(p[0], p[1]);
                (value, g.to_vec())
            },
            on_duals: &|d| srgb_encode_on_duals(d[0], d[1]),
        }
        .check_within(x, &Tolerances::THROUGH_F32);
    }
    Twice::<7> {
        name: "wavetable",
        itself: &|p| wavetable(p[0] as f32, p[1], &p[2..]),
        primal: &|p| wavetable::primal(p[0] as f32, p[1], &p[2..]),
        grad: &|p| {
            let (value, (dphase, dgain, dtable)) = wavetable::grad(p[0] as f32, p[1], &p[2..]);
            (value, [vec![f64::from(dphase), dgain], dtable].concat())
        },
        on_duals: &|d| wavetable_on_duals(narrowed(d[0]), d[1], &d[2..]),
    }
    .check_within(
        [0.3, 1.5, 0.2, -0.6, 0.9, 0.4, -0.1],
        &Tolerances::THROUGH_F32,
    );
}

/// Weights of the objective `Σ w_k out_k` through which a writer is checked.
const WEIGHTS: [f64; 4] = [0.7, -0.4, 1.1, 0.3];

fn weighted(out: &[f64]) -> f64 {
    out.iter().zip(WEIGHTS).map(|(o, w)| o * w).sum()
}

fn weighted_duals<const N: usize>(out: &[Dual<f64, N>]) -> Dual<f64, N> {
    let mut total = Dual::constant(0.0);
    for (o, w) in out.iter().zip(WEIGHTS) {
        total += *o * Dual::constant(w);
    }
    total
}

#[test]
fn writers_into_a_callers_buffer() {
    // the objective is ⟨w, out⟩; `grad_into` takes w as `out`'s cotangent
    Twice::<4> {
        name: "softmax_into",
        itself: &|p| {
            let mut out = [0.0; 4];
            softmax_into(p, &mut out);
            weighted(&out)
        },
        primal: &|p| {
            let mut out = [0.0; 4];
            softmax_into::primal(p, &mut out);
            weighted(&out)
        },
        grad: &|p| {
            let (mut out, mut d_logits, mut d_out) = ([0.0; 4], vec![0.0; 4], WEIGHTS);
            softmax_into::grad_into(p, &mut out, &mut d_logits, &mut d_out);
            (weighted(&out), d_logits)
        },
        on_duals: &|d| {
            let mut out = [Dual::constant(0.0); 4];
            softmax_into_on_duals(d, &mut out);
            weighted_duals(&out)
        },
    }
    .check([0.3, -1.2, 2.0, 1.1]);
    Twice::<3> {
        name: "pendulum_step_into",
        itself: &|p| {
            let mut out = [0.0; 2];
            pendulum_step_into(&p[..2], p[2], &mut out);
            weighted(&out)
        },
        primal: &|p| {
            let mut out = [0.0; 2];
            pendulum_step_into::primal(&p[..2], p[2], &mut out);
            weighted(&out)
        },
        grad: &|p| {
            let (mut out, mut d_state, mut d_dt) = ([0.0; 2], vec![0.0; 2], 0.0);
            let mut d_out = [WEIGHTS[0], WEIGHTS[1]];
            pendulum_step_into::grad_into(
                &p[..2],
                p[2],
                &mut out,
                &mut d_state,
                &mut d_dt,
                &mut d_out,
            );
            (weighted(&out), [d_state, vec![d_dt]].concat())
        },
        on_duals: &|d| {
            let mut out = [Dual::constant(0.0); 2];
            pendulum_step_into_on_duals(&d[..2], d[2], &mut out);
            weighted_duals(&out)
        },
    }
    .check([0.6, -0.3, 0.05]);
    Twice::<4> {
        name: "compounded_into",
        itself: &|p| {
            let mut out = [0.0; 4];
            compounded_into(p, &mut out);
            weighted(&out)
        },
        primal: &|p| {
            let mut out = [0.0; 4];
            compounded_into::primal(p, &mut out);
            weighted(&out)
        },
        grad: &|p| {
            let (mut out, mut d_returns, mut d_out) = ([0.0; 4], vec![0.0; 4], WEIGHTS);
            compounded_into::grad_into(p, &mut out, &mut d_returns, &mut d_out);
            (weighted(&out), d_returns)
        },
        on_duals: &|d| {
            let mut out = [Dual::constant(0.0); 4];
            compounded_into_on_duals(d, &mut out);
            weighted_duals(&out)
        },
    }
    .check([0.02, -0.05, 0.1, 0.03]);
}

#[test]
fn structs_of_floats() {
    let gaussian = |p: &[f64]| Gaussian {
        mu: p[0],
        log_sigma: p[1],
    };
    Twice::<6> {
        name: "gaussian_nll",
        itself: &|p| gaussian_nll(&gaussian(p), &p[2..]),
        primal: &|p| gaussian_nll::primal(&gaussian(p), &p[2..]),
        grad: &|p| {
            let (value, (d_p, d_data)) = gaussian_nll::grad(&gaussian(p), &p[2..]);
            (value, [vec![d_p.mu, d_p.log_sigma], d_data].concat())
        },
        on_duals: &|d| {
            let p = Gaussian {
                mu: d[0],
                log_sigma: d[1],
            };
            gaussian_nll_on_duals(&p, &d[2..])
        },
    }
    .check([0.4, -0.2, 0.3, -1.2, 2.0, 0.7]);
    let spring = |p: &[f64]| Spring {
        stiffness: p[0],
        damping: p[1],
        rest: p[2],
    };
    Twice::<4> {
        name: "spring_release",
        itself: &|p| spring_release(&spring(p), p[3]),
        primal: &|p| spring_release::primal(&spring(p), p[3]),
        grad: &|p| {
            let (value, (d_s, d_x0)) = spring_release::grad(&spring(p), p[3]);
            (value, vec![d_s.stiffness, d_s.damping, d_s.rest, d_x0])
        },
        on_duals: &|d| {
            let s = Spring {
                stiffness: d[0],
                damping: d[1],
                rest: d[2],
            };
            spring_release_on_duals(&s, d[3])
        },
    }
    .check([4.0, 0.5, 1.0, 1.6]);
    fn net_of<F: Copy>(p: &[F]) -> Net<F> {
        let neuron = |k: usize| Neuron {
            w: [p[k], p[k + 1]],
            b: p[k + 2],
        };
        Net {
            first: neuron(0),
            second: neuron(3),
            output: neuron(6),
        }
    }
    let flat = |n: &Neuron<f64>| vec![n.w[0], n.w[1], n.b];
    Twice::<12> {
        name: "net_loss",
        itself: &|p| net_loss(&net_of(p), &[p[9], p[10]], p[11]),
        primal: &|p| net_loss::primal(&net_of(p), &[p[9], p[10]], p[11]),
        grad: &|p| {
            let (value, (d_net, d_x, d_y)) = net_loss::grad(&net_of(p), &[p[9], p[10]], p[11]);
            let weights = [flat(&d_net.first), flat(&d_net.second), flat(&d_net.output)].concat();
            (value, [weights, d_x.to_vec(), vec![d_y]].concat())
        },
        on_duals: &|d| net_loss_on_duals(&net_of(d), &[d[9], d[10]], d[11]),
    }
    .check([
        0.5, -0.3, 0.1, 0.2, 0.8, -0.2, 1.1, -0.7, 0.05, 0.9, -0.4, 0.3,
    ]);
}

#[test]
fn a_reference_to_a_reference_local() {
    for p in [[0.3, -1.2, 0.8, 0.7], [1.1, 0.4, -0.6, -0.9]] {
        Twice::<4> {
            name: "reference_locals",
            itself: &|p| reference_locals(&p[..3], p[3]),
            primal: &|p| reference_locals::primal(&p[..3], p[3]),
            grad: &|p| {
                let (value, (dx, dw)) = reference_locals::grad(&p[..3], p[3]);
                (value, [dx, vec![dw]].concat())
            },
            on_duals: &|d| reference_locals_on_duals(&d[..3], d[3]),
        }
        .check(p);
    }
    // d(v) = v w + sin v: d(x₀) twice, d(x₁), x₀ x₂, d(x₂), and Σ d(xᵢ) xᵢ, by hand
    let (x, w) = ([0.3, -1.2, 0.8], 0.7);
    let d = |v: f64| v * w + v.sin();
    let expected =
        2.0 * d(x[0]) + d(x[1]) + x[0] * x[2] + d(x[2]) + x.iter().map(|&v| d(v) * v).sum::<f64>();
    assert!(close(reference_locals(&x, w), expected, 1e-14));
}

#[test]
fn non_float_methods_on_an_iter_mut_item() {
    // every branch taken somewhere: negative items, one above w, one below w²
    for p in [[0.3, -1.2, 0.8, 0.02, 0.7], [1.5, 0.4, -0.6, 0.1, 0.9]] {
        Twice::<5> {
            name: "iter_mut_item_predicates",
            itself: &|p| iter_mut_item_predicates(&p[..4], p[4]),
            primal: &|p| iter_mut_item_predicates::primal(&p[..4], p[4]),
            grad: &|p| {
                let (value, (dx, dw)) = iter_mut_item_predicates::grad(&p[..4], p[4]);
                (value, [dx, vec![dw]].concat())
            },
            on_duals: &|d| iter_mut_item_predicates_on_duals(&d[..4], d[4]),
        }
        .check(p);
    }
    // the same decisions, by hand at one point
    let (x, w): ([f64; 4], f64) = ([0.3, -1.2, 0.8, 0.02], 0.7);
    let expected: f64 = x
        .iter()
        .map(|&v| {
            let v = if v < 0.0 { -v * w } else { v };
            let v = if v > w { v.sqrt() } else { v };
            if v < w * w { v * v + w } else { v }
        })
        .sum();
    assert!(close(iter_mut_item_predicates(&x, w), expected, 1e-14));
    // `to_bits`: against the indexed form to the bit, and central differences
    for p in [[0.3, -1.2, 0.8, -0.1, 0.7], [-1.5, 0.4, -0.6, 0.1, 0.9]] {
        let (x, w) = (&p[..4], p[4]);
        let (value, (dx, dw)) = iter_mut_item_bits::grad(x, w);
        let (indexed, (ix, iw)) = iter_mut_item_bits_indexed::grad(x, w);
        assert_eq!(value.to_bits(), indexed.to_bits());
        assert_eq!(value.to_bits(), iter_mut_item_bits::primal(x, w).to_bits());
        assert_eq!(value.to_bits(), iter_mut_item_bits(x, w).to_bits());
        assert_eq!(value.to_bits(), iter_mut_item_bits_indexed(x, w).to_bits());
        let gradient = [dx, vec![dw]].concat();
        assert_eq!(gradient, [ix, vec![iw]].concat());
        let differences = central_differences(&|p| iter_mut_item_bits::primal(&p[..4], p[4]), &p);
        for (g, e) in gradient.iter().zip(&differences) {
            assert!(close(*g, *e, 1e-6), "{gradient:?} vs {differences:?}");
        }
    }
}
