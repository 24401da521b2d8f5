//! Structs of floats as differentiable parameters (issue 13, "Structs and methods"): a
//! parameter marked `#[differentiable]` whose type derives `Differentiable` gets its
//! gradient back as a value of the same struct, through every face (`f`, `primal`, `grad`,
//! `grad_into`, `jvp`), checked against central differences (and at second order where
//! smooth), and to the bit against the same body written over the fields as parameters of
//! their own (the form the attribute differentiated before).
//!
//! The kinds: a parameter set (a Gaussian), a model of nested layers with integer sizes and
//! a constant name, a physical model taken by value and simulated, a generic parameter set,
//! a tuple struct, an iterator over a field, two structs at once, a yield curve, a spring
//! chain, a robust loss with a flag and a threshold, and Kepler's equation by Newton.

#![allow(clippy::excessive_precision, clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::{Case, point};
use gradtape::generated::Dual;
use gradtape::{Differentiable, differentiable};
use num_traits::Float;

/// A struct's floats, in order, and back.
trait Flat: Sized {
    fn to_flat(&self) -> Vec<f64>;
    /// The struct from the first floats of `x`, its constants from `like`.
    fn from_flat(x: &[f64], like: &Self) -> Self;
}

// ----- a parameter set -----

#[derive(Differentiable, Debug, Clone)]
struct Gaussian {
    mu: f64,
    log_sigma: f64,
    /// a constant, read only through `as`
    count: usize,
}

impl Flat for Gaussian {
    fn to_flat(&self) -> Vec<f64> {
        vec![self.mu, self.log_sigma]
    }
    fn from_flat(x: &[f64], like: &Self) -> Self {
        Gaussian {
            mu: x[0],
            log_sigma: x[1],
            count: like.count,
        }
    }
}

#[differentiable]
fn gaussian_nll(#[differentiable] p: &Gaussian, data: &[f64]) -> f64 {
    let sigma = p.log_sigma.exp();
    let mut total = 0.0;
    for x in data {
        let z = (x - p.mu) / sigma;
        total += 0.5 * z * z + p.log_sigma;
    }
    total / p.count as f64
}

/// The same body over the fields as parameters of their own.
#[differentiable]
fn gaussian_nll_fields(mu: f64, log_sigma: f64, count: usize, data: &[f64]) -> f64 {
    let sigma = log_sigma.exp();
    let mut total = 0.0;
    for x in data {
        let z = (x - mu) / sigma;
        total += 0.5 * z * z + log_sigma;
    }
    total / count as f64
}

#[test]
fn a_parameter_set() {
    let like = Gaussian {
        mu: 0.0,
        log_sigma: 0.0,
        count: 5,
    };
    let split = |x: &[f64]| (Gaussian::from_flat(x, &like), x[2..].to_vec());
    let flat = |d: &Gaussian, rest: &[f64]| {
        let mut out = d.to_flat();
        out.extend_from_slice(rest);
        out
    };
    let case = Case {
        name: "gaussian_nll",
        itself: &|x| {
            let (p, d) = split(x);
            gaussian_nll(&p, &d)
        },
        primal: &|x| {
            let (p, d) = split(x);
            gaussian_nll::primal(&p, &d)
        },
        grad: Some(&|x| {
            let (p, d) = split(x);
            let (value, (d_p, d_d)) = gaussian_nll::grad(&p, &d);
            assert_eq!(d_p.count, 5, "a constant field is a copy");
            (value, flat(&d_p, &d_d))
        }),
        grad_into: &|x| {
            let (p, d) = split(x);
            let (mut d_p, mut d_d) = (p.zero_like(), vec![0.0; d.len()]);
            let value = gaussian_nll::grad_into(&p, &d, &mut d_p, &mut d_d);
            (value, flat(&d_p, &d_d))
        },
        jvp: &|x, t| {
            let (p, d) = split(x);
            let (t_p, t_d) = split(t);
            gaussian_nll::jvp(&p, &d, &t_p, &t_d)
        },
    };
    let x = point(7, 1, -1.0, 1.0);
    case.check_with_second_order(&x);
    // to the bit against the fields as parameters
    let p = Gaussian::from_flat(&x, &like);
    let (value, (d_p, d_data)) = gaussian_nll::grad(&p, &x[2..]);
    let (by_fields, (d_mu, d_log_sigma, d_data_by_fields)) =
        gaussian_nll_fields::grad(p.mu, p.log_sigma, p.count, &x[2..]);
    assert_eq!(value.to_bits(), by_fields.to_bits());
    assert_eq!(
        gaussian_nll_fields(p.mu, p.log_sigma, p.count, &x[2..]).to_bits(),
        value.to_bits()
    );
    assert_eq!(d_p.mu.to_bits(), d_mu.to_bits());
    assert_eq!(d_p.log_sigma.to_bits(), d_log_sigma.to_bits());
    assert_eq!(d_data, d_data_by_fields);
    // by hand: ∂/∂mu = −Σ z / (σ count)
    let sigma = p.log_sigma.exp();
    let by_hand: f64 = -x[2..].iter().map(|x| (x - p.mu) / sigma).sum::<f64>() / sigma / 5.0;
    assert!(common::close(d_p.mu, by_hand, 1e-12));
}

// ----- a model of nested layers -----

#[derive(Differentiable, Debug, Clone)]
struct Layer {
    w: Vec<f64>,
    b: Vec<f64>,
    inputs: usize,
    outputs: usize,
    /// an array of integers: a constant the derive clones (it asked `[usize; 2]` to be
    /// `Differentiable` before)
    shape: [usize; 2],
}

#[derive(Differentiable, Debug, Clone)]
struct Mlp {
    hidden: Layer,
    out: Layer,
    #[constant]
    name: String,
}

impl Flat for Mlp {
    fn to_flat(&self) -> Vec<f64> {
        [&self.hidden.w, &self.hidden.b, &self.out.w, &self.out.b]
            .into_iter()
            .flatten()
            .copied()
            .collect()
    }
    fn from_flat(x: &[f64], like: &Self) -> Self {
        let mut at = 0;
        let mut take = |n: usize| {
            at += n;
            x[at - n..at].to_vec()
        };
        let hidden = Layer {
            w: take(like.hidden.w.len()),
            b: take(like.hidden.b.len()),
            ..like.hidden.clone()
        };
        let out = Layer {
            w: take(like.out.w.len()),
            b: take(like.out.b.len()),
            ..like.out.clone()
        };
        Mlp {
            hidden,
            out,
            name: like.name.clone(),
        }
    }
}

#[differentiable]
fn mlp_loss(#[differentiable] m: &Mlp, x: &[f64], y: f64) -> f64 {
    let mut h = vec![0.0; m.hidden.outputs];
    for j in 0..m.hidden.outputs {
        let mut s = m.hidden.b[j];
        for i in 0..m.hidden.inputs {
            s += m.hidden.w[j * m.hidden.inputs + i] * x[i];
        }
        h[j] = s.tanh();
    }
    let mut o = m.out.b[0];
    for j in 0..m.out.inputs {
        o += m.out.w[j] * h[j];
    }
    (o - y) * (o - y)
}

#[test]
fn a_model_of_nested_layers() {
    let like = Mlp {
        hidden: Layer {
            w: vec![0.0; 6],
            b: vec![0.0; 3],
            inputs: 2,
            outputs: 3,
            shape: [3, 2],
        },
        out: Layer {
            w: vec![0.0; 3],
            b: vec![0.0; 1],
            inputs: 3,
            outputs: 1,
            shape: [1, 3],
        },
        name: "tiny".into(),
    };
    let n = like.to_flat().len();
    let split = |x: &[f64]| (Mlp::from_flat(x, &like), [x[n], x[n + 1]], x[n + 2]);
    let flat = |d: &Mlp, dx: &[f64], dy: f64| {
        let mut out = d.to_flat();
        out.extend_from_slice(dx);
        out.push(dy);
        out
    };
    let case = Case {
        name: "mlp_loss",
        itself: &|x| {
            let (m, input, y) = split(x);
            mlp_loss(&m, &input, y)
        },
        primal: &|x| {
            let (m, input, y) = split(x);
            mlp_loss::primal(&m, &input, y)
        },
        grad: Some(&|x| {
            let (m, input, y) = split(x);
            let (value, (d_m, d_x, d_y)) = mlp_loss::grad(&m, &input, y);
            assert_eq!(d_m.name, "tiny");
            assert_eq!((d_m.hidden.inputs, d_m.out.outputs), (2, 1));
            assert_eq!((d_m.hidden.shape, d_m.out.shape), ([3, 2], [1, 3]));
            (value, flat(&d_m, &d_x, d_y))
        }),
        grad_into: &|x| {
            let (m, input, y) = split(x);
            let (mut d_m, mut d_x, mut d_y) = (m.zero_like(), [0.0; 2], 0.0);
            let value = mlp_loss::grad_into(&m, &input, y, &mut d_m, &mut d_x, &mut d_y);
            (value, flat(&d_m, &d_x, d_y))
        },
        jvp: &|x, t| {
            let (m, input, y) = split(x);
            let (t_m, t_x, t_y) = split(t);
            mlp_loss::jvp(&m, &input, y, &t_m, &t_x, t_y)
        },
    };
    case.check_with_second_order(&point(n + 3, 2, -1.0, 1.0));
}

// ----- a physical model, by value, simulated -----

#[derive(Differentiable, Debug, Clone, Copy)]
struct Pendulum {
    length: f64,
    damping: f64,
}

#[differentiable]
fn swing(#[differentiable] p: Pendulum, theta0: f64, steps: usize) -> f64 {
    let (mut theta, mut omega) = (theta0, 0.0);
    let dt = 0.01;
    for _ in 0..steps {
        let alpha = -9.81 / p.length * theta.sin() - p.damping * omega;
        omega += dt * alpha;
        theta += dt * omega;
    }
    theta
}

#[test]
fn a_physical_model_by_value() {
    let split = |x: &[f64]| {
        (
            Pendulum {
                length: x[0],
                damping: x[1],
            },
            x[2],
        )
    };
    let case = Case {
        name: "swing",
        itself: &|x| {
            let (p, theta) = split(x);
            swing(p, theta, 60)
        },
        primal: &|x| {
            let (p, theta) = split(x);
            swing::primal(p, theta, 60)
        },
        grad: Some(&|x| {
            let (p, theta) = split(x);
            let (value, (d_p, d_theta)) = swing::grad(p, theta, 60);
            (value, vec![d_p.length, d_p.damping, d_theta])
        }),
        grad_into: &|x| {
            // no array: built on the twin's `grad`, into a struct and a float buffer
            let (p, theta) = split(x);
            let (mut d_p, mut d_theta) = (p.zero_like(), 0.0);
            let value = swing::grad_into(p, theta, 60, &mut d_p, &mut d_theta);
            (value, vec![d_p.length, d_p.damping, d_theta])
        },
        jvp: &|x, t| {
            let (p, theta) = split(x);
            let (t_p, t_theta) = split(t);
            swing::jvp(p, theta, 60, &t_p, t_theta)
        },
    };
    case.check_with_second_order(&[1.2, 0.3, 0.4]);
}

// ----- generic code -----

#[derive(Differentiable, Debug, Clone)]
struct Quadratic<T> {
    a: T,
    b: [T; 2],
}

#[differentiable]
fn quadratic<T: Float>(#[differentiable] p: &Quadratic<T>, x: T) -> T {
    // a closure capturing a field
    let square = |t: T| p.a * t * t;
    square(x) + p.b[0] * x + p.b[1]
}

#[test]
fn generic_code_at_both_precisions() {
    let split = |x: &[f64]| {
        (
            Quadratic {
                a: x[0],
                b: [x[1], x[2]],
            },
            x[3],
        )
    };
    let grad = |x: &[f64]| {
        let (p, x) = split(x);
        let (value, (d_p, d_x)) = quadratic::grad(&p, x);
        (value, vec![d_p.a, d_p.b[0], d_p.b[1], d_x])
    };
    let case = Case {
        name: "quadratic",
        itself: &|x| {
            let (p, x) = split(x);
            quadratic(&p, x)
        },
        primal: &|x| {
            let (p, x) = split(x);
            quadratic::primal(&p, x)
        },
        grad: Some(&grad),
        grad_into: &grad,
        jvp: &|x, t| {
            let (p, x) = split(x);
            let (t_p, t_x) = split(t);
            quadratic::jvp(&p, x, &t_p, t_x)
        },
    };
    case.check_with_second_order(&[0.7, -0.2, 0.5, 1.3]);
    // f32: a x² + b0 x + b1 at x = 2, by hand
    let p = Quadratic {
        a: 2.0_f32,
        b: [1.0, 3.0],
    };
    let (value, (d_p, d_x)) = quadratic::grad(&p, 2.0);
    assert_eq!(value, 13.0);
    assert_eq!((d_p.a, d_p.b, d_x), (4.0, [2.0, 1.0], 9.0));
}

// ----- a tuple struct, iterators over fields, two structs -----

#[derive(Differentiable, Debug, Clone)]
struct Coeffs(f64, f64, f64);

#[differentiable]
fn polynomial_sum(#[differentiable] c: &Coeffs, xs: &[f64]) -> f64 {
    xs.iter().map(|x| c.0 + c.1 * x + c.2 * x * x).sum()
}

#[derive(Differentiable, Debug, Clone)]
struct Linear {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
fn squared_response(#[differentiable] l: &Linear, x: &[f64]) -> f64 {
    let z: f64 = l.w.iter().zip(x.iter()).map(|(w, x)| w * x).sum::<f64>() + l.b;
    z * z
}

#[differentiable]
fn two_structs(#[differentiable] l: &Linear, #[differentiable] c: &Coeffs, x: f64) -> f64 {
    (l.b * c.0 + l.w[0] * x * c.2).sin() + l.w[1] * c.1
}

#[test]
fn tuple_structs_field_iterators_and_two_structs() {
    let poly_grad = |x: &[f64]| {
        let c = Coeffs(x[0], x[1], x[2]);
        let (value, (d_c, d_xs)) = polynomial_sum::grad(&c, &x[3..]);
        let mut g = vec![d_c.0, d_c.1, d_c.2];
        g.extend(d_xs);
        (value, g)
    };
    Case {
        name: "polynomial_sum",
        itself: &|x| polynomial_sum(&Coeffs(x[0], x[1], x[2]), &x[3..]),
        primal: &|x| polynomial_sum::primal(&Coeffs(x[0], x[1], x[2]), &x[3..]),
        grad: Some(&poly_grad),
        grad_into: &|x| {
            let c = Coeffs(x[0], x[1], x[2]);
            let (mut d_c, mut d_xs) = (c.zero_like(), vec![0.0; x.len() - 3]);
            let value = polynomial_sum::grad_into(&c, &x[3..], &mut d_c, &mut d_xs);
            let mut g = vec![d_c.0, d_c.1, d_c.2];
            g.extend(d_xs);
            (value, g)
        },
        jvp: &|x, t| {
            polynomial_sum::jvp(
                &Coeffs(x[0], x[1], x[2]),
                &x[3..],
                &Coeffs(t[0], t[1], t[2]),
                &t[3..],
            )
        },
    }
    .check_with_second_order(&point(6, 3, -1.0, 1.0));

    let linear = |x: &[f64]| Linear {
        w: x[..2].to_vec(),
        b: x[2],
    };
    let linear_grad = |x: &[f64]| {
        let (value, (d_l, d_x)) = squared_response::grad(&linear(x), &x[3..]);
        let mut g = d_l.w.clone();
        g.push(d_l.b);
        g.extend(d_x);
        (value, g)
    };
    Case {
        name: "squared_response",
        itself: &|x| squared_response(&linear(x), &x[3..]),
        primal: &|x| squared_response::primal(&linear(x), &x[3..]),
        grad: Some(&linear_grad),
        grad_into: &linear_grad,
        jvp: &|x, t| squared_response::jvp(&linear(x), &x[3..], &linear(t), &t[3..]),
    }
    .check_with_second_order(&point(5, 4, -1.0, 1.0));

    let both_grad = |x: &[f64]| {
        let (l, c) = (linear(x), Coeffs(x[3], x[4], x[5]));
        let (value, (d_l, d_c, d_x)) = two_structs::grad(&l, &c, x[6]);
        (
            value,
            vec![d_l.w[0], d_l.w[1], d_l.b, d_c.0, d_c.1, d_c.2, d_x],
        )
    };
    Case {
        name: "two_structs",
        itself: &|x| two_structs(&linear(x), &Coeffs(x[3], x[4], x[5]), x[6]),
        primal: &|x| two_structs::primal(&linear(x), &Coeffs(x[3], x[4], x[5]), x[6]),
        grad: Some(&both_grad),
        grad_into: &both_grad,
        jvp: &|x, t| {
            two_structs::jvp(
                &linear(x),
                &Coeffs(x[3], x[4], x[5]),
                x[6],
                &linear(t),
                &Coeffs(t[3], t[4], t[5]),
                t[6],
            )
        },
    }
    .check_with_second_order(&point(7, 5, -1.0, 1.0));
}

// ----- an array field borrowed whole: an iterator's argument, a slice function's -----

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..a.len() {
        total += a[i] * b[i];
    }
    total
}

/// `&l.w` as `zip`'s argument (it was a `&&[f64]` in the twin, no iterator: rustc's
/// E0277) and as an annotated function's.
#[differentiable]
fn borrowed_field(#[differentiable] l: &Linear, x: &[f64]) -> f64 {
    let mut z = l.b;
    for (x, w) in x.iter().zip(&l.w) {
        z += (x * w).sin();
    }
    z * dot(&l.w, x)
}

#[test]
fn an_array_field_borrowed_whole() {
    let linear = |x: &[f64]| Linear {
        w: x[..2].to_vec(),
        b: x[2],
    };
    let flat = |value: f64, d_l: &Linear, d_x: &[f64]| {
        let mut g = d_l.w.clone();
        g.push(d_l.b);
        g.extend(d_x);
        (value, g)
    };
    Case {
        name: "borrowed_field",
        itself: &|x| borrowed_field(&linear(x), &x[3..]),
        primal: &|x| borrowed_field::primal(&linear(x), &x[3..]),
        grad: Some(&|x| {
            let (value, (d_l, d_x)) = borrowed_field::grad(&linear(x), &x[3..]);
            flat(value, &d_l, &d_x)
        }),
        grad_into: &|x| {
            let l = linear(x);
            let (mut d_l, mut d_x) = (l.zero_like(), vec![0.0; 2]);
            let value = borrowed_field::grad_into(&l, &x[3..], &mut d_l, &mut d_x);
            flat(value, &d_l, &d_x)
        },
        jvp: &|x, t| borrowed_field::jvp(&linear(x), &x[3..], &linear(t), &t[3..]),
    }
    .check_with_second_order(&point(5, 6, -1.0, 1.0));
}

// ----- finance: a yield curve fitted to observations -----

#[derive(Differentiable, Debug, Clone)]
struct NelsonSiegel {
    level: f64,
    slope: f64,
    curvature: f64,
    decay: f64,
}

#[differentiable]
fn curve_misfit(#[differentiable] c: &NelsonSiegel, maturities: &[f64], observed: &[f64]) -> f64 {
    let mut misfit = 0.0;
    for (m, y) in maturities.iter().zip(observed.iter()) {
        let x = m / c.decay;
        let loading = (1.0 - (-x).exp()) / x;
        let model = c.level + c.slope * loading + c.curvature * (loading - (-x).exp());
        misfit += (model - y) * (model - y);
    }
    misfit
}

// ----- physics: a chain of springs with per-spring stiffness -----

#[derive(Differentiable, Debug, Clone)]
struct SpringChain {
    stiffness: Vec<f64>,
    rest: f64,
}

#[differentiable]
fn chain_energy(#[differentiable] s: &SpringChain, positions: &[f64]) -> f64 {
    let mut energy = 0.0;
    for i in 0..s.stiffness.len() {
        let stretch = positions[i + 1] - positions[i] - s.rest;
        energy += 0.5 * s.stiffness[i] * stretch * stretch;
    }
    energy
}

// ----- a robust loss: a threshold compared and used, a flag -----

#[derive(Differentiable, Debug, Clone)]
struct Robust {
    delta: f64,
    scale: f64,
    squared: bool,
}

#[differentiable]
fn robust_loss(#[differentiable] h: &Robust, residuals: &[f64]) -> f64 {
    let mut total = 0.0;
    for r in residuals {
        let a = r.abs();
        let term = if a <= h.delta {
            0.5 * a * a
        } else {
            h.delta * (a - 0.5 * h.delta)
        };
        total += term;
    }
    if h.squared {
        h.scale * total * total
    } else {
        h.scale * total
    }
}

// ----- geometry: Kepler's equation by Newton -----

#[derive(Differentiable, Debug, Clone)]
struct Orbit {
    eccentricity: f64,
    mean_motion: f64,
    iterations: u32,
}

#[differentiable]
fn eccentric_anomaly(#[differentiable] o: &Orbit, t: f64) -> f64 {
    let m = o.mean_motion * t;
    let mut e = m;
    let mut k = 0;
    while k < o.iterations {
        e -= (e - o.eccentricity * e.sin() - m) / (1.0 - o.eccentricity * e.cos());
        k += 1;
    }
    e
}

#[test]
fn finance_physics_robust_losses_and_newton() {
    let curve = |x: &[f64]| NelsonSiegel {
        level: x[0],
        slope: x[1],
        curvature: x[2],
        decay: x[3],
    };
    let maturities = [0.5, 1.0, 2.0, 5.0, 10.0];
    let curve_grad = |x: &[f64]| {
        let (value, (d_c, d_m, d_y)) = curve_misfit::grad(&curve(x), &maturities, &x[4..]);
        let mut g = vec![d_c.level, d_c.slope, d_c.curvature, d_c.decay];
        assert!(d_m.iter().all(|d| d.is_finite()));
        g.extend(d_y);
        (value, g)
    };
    Case {
        name: "curve_misfit",
        itself: &|x| curve_misfit(&curve(x), &maturities, &x[4..]),
        primal: &|x| curve_misfit::primal(&curve(x), &maturities, &x[4..]),
        grad: Some(&curve_grad),
        grad_into: &curve_grad,
        jvp: &|x, t| {
            curve_misfit::jvp(
                &curve(x),
                &maturities,
                &x[4..],
                &curve(t),
                &[0.0; 5],
                &t[4..],
            )
        },
    }
    .check_with_second_order(&[0.03, -0.01, 0.02, 1.5, 0.02, 0.025, 0.03, 0.035, 0.04]);

    let chain = |x: &[f64]| SpringChain {
        stiffness: x[..3].to_vec(),
        rest: x[3],
    };
    let chain_grad = |x: &[f64]| {
        let (value, (d_s, d_p)) = chain_energy::grad(&chain(x), &x[4..]);
        let mut g = d_s.stiffness.clone();
        g.push(d_s.rest);
        g.extend(d_p);
        (value, g)
    };
    Case {
        name: "chain_energy",
        itself: &|x| chain_energy(&chain(x), &x[4..]),
        primal: &|x| chain_energy::primal(&chain(x), &x[4..]),
        grad: Some(&chain_grad),
        grad_into: &|x| {
            let s = chain(x);
            let (mut d_s, mut d_p) = (s.zero_like(), vec![0.0; 4]);
            let value = chain_energy::grad_into(&s, &x[4..], &mut d_s, &mut d_p);
            let mut g = d_s.stiffness.clone();
            g.push(d_s.rest);
            g.extend(d_p);
            (value, g)
        },
        jvp: &|x, t| chain_energy::jvp(&chain(x), &x[4..], &chain(t), &t[4..]),
    }
    .check_with_second_order(&[1.0, 2.0, 0.5, 0.3, 0.0, 0.7, 1.1, 1.9]);

    for squared in [false, true] {
        let robust = |x: &[f64]| Robust {
            delta: x[0],
            scale: x[1],
            squared,
        };
        let robust_grad = |x: &[f64]| {
            let (value, (d_h, d_r)) = robust_loss::grad(&robust(x), &x[2..]);
            assert_eq!(d_h.squared, squared);
            let mut g = vec![d_h.delta, d_h.scale];
            g.extend(d_r);
            (value, g)
        };
        // residuals on both sides of the threshold, none at a kink
        Case {
            name: "robust_loss",
            itself: &|x| robust_loss(&robust(x), &x[2..]),
            primal: &|x| robust_loss::primal(&robust(x), &x[2..]),
            grad: Some(&robust_grad),
            grad_into: &robust_grad,
            jvp: &|x, t| robust_loss::jvp(&robust(x), &x[2..], &robust(t), &t[2..]),
        }
        .check(&[1.0, 0.8, 0.3, -2.5, 1.7, -0.6]);
    }

    let orbit = |x: &[f64]| Orbit {
        eccentricity: x[0],
        mean_motion: x[1],
        iterations: 30,
    };
    let orbit_grad = |x: &[f64]| {
        let (value, (d_o, d_t)) = eccentric_anomaly::grad(&orbit(x), x[2]);
        assert_eq!(d_o.iterations, 30);
        (value, vec![d_o.eccentricity, d_o.mean_motion, d_t])
    };
    Case {
        name: "eccentric_anomaly",
        itself: &|x| eccentric_anomaly(&orbit(x), x[2]),
        primal: &|x| eccentric_anomaly::primal(&orbit(x), x[2]),
        grad: Some(&orbit_grad),
        grad_into: &orbit_grad,
        jvp: &|x, t| eccentric_anomaly::jvp(&orbit(x), x[2], &orbit(t), t[2]),
    }
    .check_with_second_order(&[0.3, 0.9, 1.4]);
    // by hand: E − e sin E = M, so ∂E/∂e = sin E / (1 − e cos E)
    let (e, (d_o, _)) = eccentric_anomaly::grad(&orbit(&[0.3, 0.9, 1.4]), 1.4);
    assert!(common::close(
        d_o.eccentricity,
        e.sin() / (1.0 - 0.3 * e.cos()),
        1e-12
    ));
}

/// An annotated caller calling a function with a differentiable struct parameter, the
/// struct a constant of the caller: the float arguments still get their gradients.
#[differentiable]
fn caller_of_a_struct_function(l: &Linear, scale: f64, x: &[f64]) -> f64 {
    scale * squared_response(l, x)
}

#[test]
fn called_from_an_annotated_function_with_the_struct_constant() {
    let l = Linear {
        w: vec![0.5, -1.0],
        b: 0.25,
    };
    let x = [1.5, 0.5];
    let (value, (d_scale, d_x)) = caller_of_a_struct_function::grad(&l, 2.0, &x);
    let (inner, (_, d_x_inner)) = squared_response::grad(&l, &x);
    assert_eq!(value, 2.0 * inner);
    assert_eq!(caller_of_a_struct_function(&l, 2.0, &x), value);
    assert_eq!(d_scale, inner);
    assert_eq!(d_x, d_x_inner.iter().map(|d| 2.0 * d).collect::<Vec<_>>());
    let (_, tangent) = caller_of_a_struct_function::jvp(&l, 2.0, &x, 1.0, &[0.0, 0.0]);
    assert_eq!(tangent, inner);
}

// ----- a writer with a differentiable struct parameter -----
//
// `fn f(#[differentiable] p: &S, .., out: &mut [f64])` returning nothing (it was the
// error "a function with a differentiable struct parameter returns a float" on the
// attribute): its float type is its output's element type, and its items are a writer's
// (`vjp` whose pullback takes the output's cotangent buffer, `grad_into`, `jvp`), the
// struct's entries gathered into a value of the struct. Checked on its own through
// `⟨w, out⟩` (the output's initial values inputs too, as it reads them) against central
// differences, dual numbers (a plain copy of the body over `num_traits::Float`) and the
// same writer over the fields as parameters, to the bit; and called from annotated
// functions, the struct passed on from the caller's own marked parameter or a constant.

#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Blend {
    a: f64,
    b: f64,
    /// a constant: read only as a bound
    len: usize,
}

/// Reads the output's old values and writes its new ones.
#[differentiable]
fn blend_into(#[differentiable] p: &Blend, x: &[f64], out: &mut [f64]) {
    for i in 0..p.len {
        out[i] = p.a * x[i] + p.b * out[i].sin();
    }
    out[0] *= p.b;
}

/// The same over the fields as parameters of their own.
#[differentiable]
fn blend_into_fields(a: f64, b: f64, len: usize, x: &[f64], out: &mut [f64]) {
    for i in 0..len {
        out[i] = a * x[i] + b * out[i].sin();
    }
    out[0] *= b;
}

/// The same body, plain, for dual numbers.
fn blend_into_on_duals<T: num_traits::Float>(a: T, b: T, len: usize, x: &[T], out: &mut [T]) {
    for i in 0..len {
        out[i] = a * x[i] + b * out[i].sin();
    }
    out[0] = out[0] * b;
}

/// The caller's own marked struct passed on to the writer twice, its output read by the
/// second call, a field read beside.
#[differentiable]
fn blended_twice(#[differentiable] p: &Blend, x: &[f64]) -> f64 {
    let mut out = vec![0.5; x.len()];
    blend_into(p, x, &mut out);
    let mut again = vec![0.0; x.len()];
    blend_into(p, &out, &mut again);
    let mut s = 0.0;
    for i in 0..x.len() {
        s += again[i] * out[i] + p.a * again[i];
    }
    s
}

/// The struct a constant of the caller.
#[differentiable]
fn blended_by_a_constant(p: &Blend, x: &[f64], scale: f64) -> f64 {
    let mut out = vec![scale; x.len()];
    blend_into(p, x, &mut out);
    out[0] * out[1] + out[2] * scale
}

#[test]
fn a_writer_with_a_struct_parameter() {
    const N: usize = 3;
    let w = point(N, 11, -1.0, 1.0);
    // the inputs: a, b, x (3), the output's initial values (3)
    let split = |v: &[f64]| {
        let p = Blend {
            a: v[0],
            b: v[1],
            len: N,
        };
        (p, v[2..2 + N].to_vec(), v[2 + N..].to_vec())
    };
    let dot = |u: &[f64]| u.iter().zip(&w).map(|(u, w)| u * w).sum::<f64>();
    let by_grad_into = |v: &[f64]| {
        let (p, x, mut out) = split(v);
        let (mut d_p, mut d_x, mut d_out) = (p.zero_like(), vec![0.0; N], w.clone());
        blend_into::grad_into(&p, &x, &mut out, &mut d_p, &mut d_x, &mut d_out);
        assert_eq!(d_p.len, N, "a constant field is a copy");
        (dot(&out), [vec![d_p.a, d_p.b], d_x, d_out].concat())
    };
    Case {
        name: "blend_into",
        itself: &|v| {
            let (p, x, mut out) = split(v);
            blend_into(&p, &x, &mut out);
            dot(&out)
        },
        primal: &|v| {
            let (p, x, mut out) = split(v);
            blend_into::primal(&p, &x, &mut out);
            dot(&out)
        },
        // a writer has no `grad`: `grad_into` stands for it at second order
        grad: Some(&by_grad_into),
        grad_into: &by_grad_into,
        jvp: &|v, t| {
            let (p, x, mut out) = split(v);
            let (t_p, t_x, mut t_out) = split(t);
            blend_into::jvp(&p, &x, &mut out, &t_p, &t_x, &mut t_out);
            (dot(&out), dot(&t_out))
        },
    }
    .check_with_second_order(&point(2 + 2 * N, 12, -1.0, 1.0));

    let v = point(2 + 2 * N, 13, -1.0, 1.0);
    let (value, gradient) = by_grad_into(&v);
    // dual numbers: one direction per input
    let duals: Vec<Dual<f64, 8>> = v
        .iter()
        .enumerate()
        .map(|(k, &value)| Dual::variable(value, k))
        .collect();
    let mut out = duals[2 + N..].to_vec();
    blend_into_on_duals(duals[0], duals[1], N, &duals[2..2 + N], &mut out);
    let by_duals = out
        .iter()
        .zip(&w)
        .fold(Dual::<f64, 8>::constant(0.0), |s, (o, &w)| {
            s + *o * Dual::constant(w)
        });
    assert!(common::close(by_duals.value, value, 1e-15));
    for (k, g) in gradient.iter().enumerate() {
        assert!(
            common::close(*g, by_duals.partials[k], 1e-12),
            "blend_into: d/d{k} = {g}, dual numbers {}",
            by_duals.partials[k]
        );
    }
    // to the bit against the fields as parameters
    let (p, x, out0) = split(&v);
    let (mut out, mut d_x, mut d_out) = (out0.clone(), vec![0.0; N], w.clone());
    let (mut d_a, mut d_b) = (0.0, 0.0);
    blend_into_fields::grad_into(
        p.a, p.b, N, &x, &mut out, &mut d_a, &mut d_b, &mut d_x, &mut d_out,
    );
    assert_eq!(dot(&out).to_bits(), value.to_bits());
    let mut itself = out0.clone();
    blend_into_fields(p.a, p.b, N, &x, &mut itself);
    assert_eq!(itself, out);
    assert_eq!(
        [vec![d_a, d_b], d_x, d_out].concat(),
        gradient,
        "against the fields as parameters"
    );
    // `vjp`: the pullback takes the output's cotangent buffer, in place
    let (mut out, mut d_out) = (out0.clone(), w.clone());
    let ((), pullback) = blend_into::vjp(&p, &x, &mut out);
    let (d_p, d_x, ()) = pullback((), &mut d_out);
    let d_p = d_p.expect("the struct's gradient");
    assert_eq!(
        [vec![d_p.a, d_p.b], d_x.expect("x's gradient"), d_out].concat(),
        gradient
    );

    // called from annotated functions
    let split_caller = |v: &[f64]| {
        (
            Blend {
                a: v[0],
                b: v[1],
                len: N,
            },
            v[2..].to_vec(),
        )
    };
    Case {
        name: "blended_twice",
        itself: &|v| {
            let (p, x) = split_caller(v);
            blended_twice(&p, &x)
        },
        primal: &|v| {
            let (p, x) = split_caller(v);
            blended_twice::primal(&p, &x)
        },
        grad: Some(&|v| {
            let (p, x) = split_caller(v);
            let (value, (d_p, d_x)) = blended_twice::grad(&p, &x);
            (value, [vec![d_p.a, d_p.b], d_x].concat())
        }),
        grad_into: &|v| {
            let (p, x) = split_caller(v);
            let (mut d_p, mut d_x) = (p.zero_like(), vec![0.0; N]);
            let value = blended_twice::grad_into(&p, &x, &mut d_p, &mut d_x);
            (value, [vec![d_p.a, d_p.b], d_x].concat())
        },
        jvp: &|v, t| {
            let (p, x) = split_caller(v);
            let (t_p, t_x) = split_caller(t);
            blended_twice::jvp(&p, &x, &t_p, &t_x)
        },
    }
    .check_with_second_order(&point(2 + N, 14, -1.0, 1.0));
    let p = Blend {
        a: 0.7,
        b: -0.4,
        len: N,
    };
    let by_constant_grad = |v: &[f64]| {
        let (value, (d_x, d_scale)) = blended_by_a_constant::grad(&p, &v[..N], v[N]);
        (value, [d_x, vec![d_scale]].concat())
    };
    Case {
        name: "blended_by_a_constant",
        itself: &|v| blended_by_a_constant(&p, &v[..N], v[N]),
        primal: &|v| blended_by_a_constant::primal(&p, &v[..N], v[N]),
        grad: Some(&by_constant_grad),
        grad_into: &|v| {
            let (mut d_x, mut d_scale) = (vec![0.0; N], 0.0);
            let value = blended_by_a_constant::grad_into(&p, &v[..N], v[N], &mut d_x, &mut d_scale);
            (value, [d_x, vec![d_scale]].concat())
        },
        jvp: &|v, t| blended_by_a_constant::jvp(&p, &v[..N], v[N], &t[..N], t[N]),
    }
    .check_with_second_order(&point(N + 1, 15, -1.0, 1.0));
}

// ----- methods: `#[differentiable] &self`, `self` by value, a trait's impl, generic impls -----

#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Neuron {
    w: Vec<f64>,
    b: f64,
    /// a constant: the gradient holds a copy
    inputs: usize,
}

impl Neuron {
    /// A layer's forward, its gradient with respect to its own weights.
    #[differentiable]
    fn activation(#[differentiable] &self, x: &[f64]) -> f64 {
        let mut z = self.b;
        for i in 0..self.inputs {
            z += self.w[i] * x[i];
        }
        z.tanh()
    }

    /// `self` marked with a marked struct parameter beside it.
    #[differentiable]
    fn regularised(#[differentiable] &self, #[differentiable] prior: &Neuron, x: &[f64]) -> f64 {
        let mut penalty = 0.0;
        for (w, m) in self.w.iter().zip(prior.w.iter()) {
            penalty += (w - m) * (w - m);
        }
        let mut z = self.b;
        for i in 0..self.inputs {
            z += self.w[i] * x[i];
        }
        z.tanh() + 0.1 * penalty + prior.b * prior.b
    }

    /// `self` unmarked (a constant), a marked struct parameter.
    #[differentiable]
    fn distance(&self, #[differentiable] other: &Neuron) -> f64 {
        let mut total = (self.b - other.b).powi(2);
        for i in 0..self.inputs {
            total += (self.w[i] - other.w[i]).powi(2);
        }
        total.sqrt()
    }
}

impl Flat for Neuron {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.w.clone();
        out.push(self.b);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> Self {
        let n = like.w.len();
        Neuron {
            w: x[..n].to_vec(),
            b: x[n],
            inputs: like.inputs,
        }
    }
}

#[test]
fn a_method_differentiated_with_respect_to_self() {
    let like = Neuron {
        w: vec![0.0; 3],
        b: 0.0,
        inputs: 3,
    };
    let split = |x: &[f64]| (Neuron::from_flat(x, &like), x[4..].to_vec());
    let flat = |d: &Neuron, dx: &[f64]| {
        let mut out = d.to_flat();
        out.extend_from_slice(dx);
        out
    };
    let grad = |x: &[f64]| {
        let (n, input) = split(x);
        let (value, (d_n, d_x)) = n.activation_grad(&input);
        assert_eq!(d_n.inputs, 3, "a constant field is a copy");
        (value, flat(&d_n, &d_x))
    };
    let case = Case {
        name: "activation",
        itself: &|x| {
            let (n, input) = split(x);
            n.activation(&input)
        },
        primal: &|x| {
            let (n, input) = split(x);
            n.activation_primal(&input)
        },
        grad: Some(&grad),
        grad_into: &|x| {
            let (n, input) = split(x);
            let (mut d_n, mut d_x) = (n.zero_like(), vec![0.0; 3]);
            let value = n.activation_grad_into(&input, &mut d_n, &mut d_x);
            (value, flat(&d_n, &d_x))
        },
        jvp: &|x, t| {
            let (n, input) = split(x);
            let (t_n, t_x) = split(t);
            n.activation_jvp(&input, &t_n, &t_x)
        },
    };
    let x = point(7, 3, -1.0, 1.0);
    case.check_with_second_order(&x);
    // by hand: ∂/∂w = (1 − tanh²) x, ∂/∂b = 1 − tanh²
    let (n, input) = split(&x);
    let (value, (d_n, _)) = n.activation_grad(&input);
    let slope = 1.0 - value * value;
    for i in 0..3 {
        assert!(common::close(d_n.w[i], slope * input[i], 1e-14));
    }
    assert!(common::close(d_n.b, slope, 1e-14));
    // the pullback: `Option` of the struct for `self`
    let (_, pullback) = n.activation_vjp(&input);
    let (d_self, _) = pullback(2.0);
    assert_eq!(d_self.unwrap().b, 2.0 * slope);
    assert!(Neuron::ACTIVATION_GENERATED.contains("self_w"));
}

#[test]
fn a_method_with_self_and_a_struct_parameter_marked() {
    let like = Neuron {
        w: vec![0.0; 2],
        b: 0.0,
        inputs: 2,
    };
    let split = |x: &[f64]| {
        (
            Neuron::from_flat(&x[..3], &like),
            Neuron::from_flat(&x[3..6], &like),
            x[6..].to_vec(),
        )
    };
    let flat = |a: &Neuron, b: &Neuron, dx: &[f64]| {
        let mut out = a.to_flat();
        out.extend(b.to_flat());
        out.extend_from_slice(dx);
        out
    };
    let grad = |x: &[f64]| {
        let (n, prior, input) = split(x);
        let (value, (d_n, d_prior, d_x)) = n.regularised_grad(&prior, &input);
        (value, flat(&d_n, &d_prior, &d_x))
    };
    let case = Case {
        name: "regularised",
        itself: &|x| {
            let (n, prior, input) = split(x);
            n.regularised(&prior, &input)
        },
        primal: &|x| {
            let (n, prior, input) = split(x);
            n.regularised_primal(&prior, &input)
        },
        grad: Some(&grad),
        grad_into: &|x| {
            let (n, prior, input) = split(x);
            let (mut d_n, mut d_prior, mut d_x) = (n.zero_like(), prior.zero_like(), vec![0.0; 2]);
            let value = n.regularised_grad_into(&prior, &input, &mut d_n, &mut d_prior, &mut d_x);
            (value, flat(&d_n, &d_prior, &d_x))
        },
        jvp: &|x, t| {
            let (n, prior, input) = split(x);
            let (t_n, t_prior, t_x) = split(t);
            n.regularised_jvp(&prior, &input, &t_n, &t_prior, &t_x)
        },
    };
    case.check_with_second_order(&point(8, 4, -1.0, 1.0));

    // `self` a constant, the parameter marked: only the parameter's gradient
    let a = Neuron {
        w: vec![1.0, 2.0],
        b: 0.0,
        inputs: 2,
    };
    let b = Neuron {
        w: vec![4.0, 6.0],
        b: 0.0,
        inputs: 2,
    };
    let (value, [d_b]) = a.distance_grad(&b);
    // |b − a| = 5: ∂/∂b = (b − a) / 5
    assert_eq!(value, 5.0);
    assert_eq!(a.distance(&b), value);
    assert!(common::close(d_b.w[0], 0.6, 1e-15) && common::close(d_b.w[1], 0.8, 1e-15));
    assert_eq!(d_b.b, 0.0);
}

#[derive(Differentiable, Debug, Clone, Copy)]
struct Oscillator {
    stiffness: f64,
    damping: f64,
}

impl Oscillator {
    /// `self` by value, simulated.
    #[differentiable]
    fn displacement(#[differentiable] self, x0: f64, steps: usize) -> f64 {
        let (mut x, mut v) = (x0, 0.0);
        let dt = 0.02;
        for _ in 0..steps {
            let a = -self.stiffness * x - self.damping * v;
            v += dt * a;
            x += dt * v;
        }
        x
    }
}

trait Potential {
    fn energy(&self, x: f64) -> f64;
}

#[derive(Differentiable, Debug, Clone)]
struct Morse {
    depth: f64,
    width: f64,
    rest: f64,
}

#[differentiable]
impl Potential for Morse {
    #[differentiable]
    fn energy(#[differentiable] &self, x: f64) -> f64 {
        let e = 1.0 - (-self.width * (x - self.rest)).exp();
        self.depth * e * e
    }
}

#[derive(Differentiable, Debug, Clone)]
struct Poly<T> {
    c: [T; 3],
}

#[differentiable]
impl<T: Float> Poly<T> {
    #[differentiable]
    fn eval(#[differentiable] &self, x: T) -> T {
        (self.c[2] * x + self.c[1]) * x + self.c[0]
    }
}

#[test]
fn self_by_value_in_a_trait_impl_and_generic() {
    let split = |x: &[f64]| {
        (
            Oscillator {
                stiffness: x[0],
                damping: x[1],
            },
            x[2],
        )
    };
    let grad = |x: &[f64]| {
        let (o, x0) = split(x);
        let (value, (d_o, d_x0)) = o.displacement_grad(x0, 80);
        (value, vec![d_o.stiffness, d_o.damping, d_x0])
    };
    let case = Case {
        name: "displacement",
        itself: &|x| {
            let (o, x0) = split(x);
            o.displacement(x0, 80)
        },
        primal: &|x| {
            let (o, x0) = split(x);
            o.displacement_primal(x0, 80)
        },
        grad: Some(&grad),
        grad_into: &grad,
        jvp: &|x, t| {
            let (o, x0) = split(x);
            let (t_o, t_x0) = split(t);
            o.displacement_jvp(x0, 80, &t_o, t_x0)
        },
    };
    case.check_with_second_order(&[2.0, 0.3, 0.8]);

    let split = |x: &[f64]| {
        (
            Morse {
                depth: x[0],
                width: x[1],
                rest: x[2],
            },
            x[3],
        )
    };
    let grad = |x: &[f64]| {
        let (m, r) = split(x);
        let (value, (d_m, d_r)) = m.energy_grad(r);
        (value, vec![d_m.depth, d_m.width, d_m.rest, d_r])
    };
    let case = Case {
        name: "morse energy",
        itself: &|x| {
            let (m, r) = split(x);
            Potential::energy(&m, r)
        },
        primal: &|x| {
            let (m, r) = split(x);
            m.energy_primal(r)
        },
        grad: Some(&grad),
        grad_into: &|x| {
            let (m, r) = split(x);
            let (mut d_r, mut d_m) = (0.0, m.zero_like());
            let value = m.energy_grad_into(r, &mut d_m, &mut d_r);
            (value, vec![d_m.depth, d_m.width, d_m.rest, d_r])
        },
        jvp: &|x, t| {
            let (m, r) = split(x);
            let (t_m, t_r) = split(t);
            m.energy_jvp(r, &t_m, t_r)
        },
    };
    case.check_with_second_order(&[1.5, 0.8, 1.0, 1.4]);

    // generic, at both precisions: c0 + c1 x + c2 x², by hand at x = 2
    let p = Poly {
        c: [1.0_f32, 3.0, 2.0],
    };
    let (value, (d_p, d_x)) = p.eval_grad(2.0);
    assert_eq!(value, 15.0);
    assert_eq!(p.eval(2.0), value);
    assert_eq!((d_p.c, d_x), ([1.0, 2.0, 4.0], 11.0));
    let p = Poly {
        c: [0.5_f64, -1.0, 0.25],
    };
    let (value, (d_p, d_x)) = p.eval_grad(3.0);
    assert_eq!(value, 0.5 - 3.0 + 2.25);
    assert_eq!((d_p.c, d_x), ([1.0, 3.0, 9.0], -1.0 + 1.5));
}

/// An annotated caller of methods whose `self` is marked: the receiver a constant there.
#[differentiable]
fn caller_of_marked_methods(n: &Neuron, m: &Morse, x: &[f64], r: f64) -> f64 {
    n.activation(x) * m.energy(r)
}

#[test]
fn marked_methods_called_from_an_annotated_function() {
    let n = Neuron {
        w: vec![0.3, -0.2],
        b: 0.1,
        inputs: 2,
    };
    let m = Morse {
        depth: 1.5,
        width: 0.8,
        rest: 1.0,
    };
    let (x, r) = ([0.7, -0.4], 1.3);
    let (value, (d_x, d_r)) = caller_of_marked_methods::grad(&n, &m, &x, r);
    let (a, (_, d_x_inner)) = n.activation_grad(&x);
    let (e, (_, d_r_inner)) = m.energy_grad(r);
    assert_eq!(value, a * e);
    assert_eq!(caller_of_marked_methods(&n, &m, &x, r), value);
    assert!(common::close(d_r, a * d_r_inner, 1e-14));
    for i in 0..2 {
        assert!(common::close(d_x[i], e * d_x_inner[i], 1e-14));
    }
    let (_, tangent) = caller_of_marked_methods::jvp(&n, &m, &x, r, &[0.0, 0.0], 1.0);
    assert!(common::close(tangent, d_r, 1e-14));
}

// ----- regression: reads that bind a value are never taken for constants -----
//
// A first version took a field read in a `match` scrutinee, a
// `let` typed with a type it did not know for a float (an alias, a tuple, an array) or an
// `as` cast to such a type, and `resize`'s fill value, for a constant read, as a
// condition's or an index's are: the gradient through them was silently zero. (`resize`
// with a differentiable fill value, and a cast of a differentiable value to an alias, are
// now the macro's errors: trybuild `struct-param-misuse`, `cast-to-an-alias`.)

type Real = f64;

#[derive(Differentiable, Debug, Clone)]
struct Pair {
    a: f64,
    b: f64,
}

#[differentiable]
fn read_by_match(#[differentiable] p: &Pair, x: f64) -> f64 {
    let y = match (p.a, x) {
        (a, x) if x > 0.0 => a * x,
        (_, x) => x,
    };
    y + p.b
}

#[differentiable]
fn read_by_typed_lets(#[differentiable] p: &Pair, x: f64) -> f64 {
    let a: Real = p.a;
    let c: [f64; 2] = [x, p.a];
    let e: f64 = p.a;
    a * x + c[0] * c[1] + e * p.b
}

#[test]
fn reads_that_bind_values_are_differentiated() {
    let p = Pair { a: 1.5, b: -0.5 };
    // x > 0: a x + b
    let (value, (d_p, d_x)) = read_by_match::grad(&p, 2.0);
    assert_eq!(value, read_by_match(&p, 2.0));
    assert_eq!((d_p.a, d_p.b, d_x), (2.0, 1.0, 1.5));

    // a x + x a + a b
    let (value, (d_p, d_x)) = read_by_typed_lets::grad(&p, 2.0);
    assert_eq!(value, read_by_typed_lets(&p, 2.0));
    assert_eq!((d_p.a, d_p.b, d_x), (4.0 - 0.5, 1.5, 3.0));
}

// ----- regression: a local named `compile_error` is no failed expansion -----
//
// The struct pass told a failed expansion of its twin (the fallback's stand-in companion)
// by any `compile_error` identifier in the twin's companion, which copies the body
// (`primal`): a local of that name made a correct function the twin's "rejection". The
// stand-in is now told by a marker item only the fallback emits.

#[differentiable]
fn local_named_compile_error(#[differentiable] p: &Pair, x: f64) -> f64 {
    let compile_error = p.a * x;
    compile_error * compile_error + p.b
}

#[test]
fn a_local_named_compile_error() {
    let p = Pair { a: 1.5, b: -0.5 };
    let x = 2.0;
    let (value, (d_p, d_x)) = local_named_compile_error::grad(&p, x);
    assert_eq!(value, local_named_compile_error(&p, x));
    assert_eq!(value, local_named_compile_error::primal(&p, x));
    // (a x)² + b: d/da = 2 a x², d/db = 1, d/dx = 2 a² x
    assert_eq!(
        (d_p.a, d_p.b, d_x),
        (2.0 * 1.5 * 4.0, 1.0, 2.0 * 1.5 * 1.5 * 2.0)
    );
    let at = |a: f64, b: f64, x: f64| local_named_compile_error(&Pair { a, b }, x);
    let h = 1e-6;
    let by_differences = [
        (at(1.5 + h, -0.5, x) - at(1.5 - h, -0.5, x)) / (2.0 * h),
        (at(1.5, -0.5 + h, x) - at(1.5, -0.5 - h, x)) / (2.0 * h),
        (at(1.5, -0.5, x + h) - at(1.5, -0.5, x - h)) / (2.0 * h),
    ];
    for (derivative, by_difference) in [d_p.a, d_p.b, d_x].into_iter().zip(by_differences) {
        assert!(common::close(derivative, by_difference, 1e-8));
    }
    let (_, tangent) = local_named_compile_error::jvp(&p, x, &Pair { a: 0.0, b: 0.0 }, 1.0);
    assert!(common::close(tangent, d_x, 1e-14));
}
