//! `f::jvp`, the tape-free forward derivative `#[differentiable]` generates for plain-float
//! functions (scalar mode), checked against three independent oracles: central finite
//! differences of the function as written, the generated reverse mode (`f::grad`, `f::vjp`:
//! `jvp(e_k)` is the k-th gradient entry, `jvp(v) = <grad, v>`), and a `ForwardAccumulator`
//! over the same computation on tensors, op by op. Its value must be the function's own,
//! to the bit (the forward code is the body as written), and it must not allocate.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gradtape::{ForwardAccumulator, Tensor, differentiable};

// ----- the functions -----

#[differentiable]
fn w7(x: f64, y: f64) -> f64 {
    (x * y).sin() + x.exp() / (1.0 + y * y)
}

#[differentiable]
fn polynomial(x: f64) -> f64 {
    3.0 * x.powi(3) - 2.0 * x * x + x - 7.0
}

#[differentiable]
fn scalar_branch(x: f64, y: f64) -> f64 {
    if x > y { x * y } else { (x - y).tanh() }
}

#[differentiable]
fn scalar_loop(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 0.9 + y * 0.1;
    }
    y
}

/// A damped oscillator by explicit Euler: two values carried through the loop, a third
/// computed in it.
#[differentiable]
fn oscillator(x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
    let mut x = x0;
    let mut v = v0;
    for _ in 0..steps {
        let a = -k * x - 0.1 * v;
        x += 0.05 * v;
        v += 0.05 * a;
    }
    x * v + x.cos()
}

#[differentiable]
fn scalar_accumulate(x: f64, y: f64) -> f64 {
    let mut acc = 0.0;
    let mut k = 0;
    while k < 4 {
        acc += x * y / (k as f64 + 1.0);
        acc *= 0.9;
        k += 1;
    }
    acc
}

#[differentiable]
fn scalar_early_return(x: f64) -> f64 {
    if x < 0.0 {
        return -x;
    }
    let y = x * x;
    y.sqrt() + y
}

#[differentiable]
fn matched(x: f64, y: f64, mode: u8) -> f64 {
    let z = match mode {
        0 => x * y,
        m if m < 3 => {
            let s = x.sin();
            s * y + s
        }
        _ => -x,
    };
    z * x
}

#[differentiable]
fn scalar_composed(x: f64, y: f64) -> f64 {
    w7(x, y) * polynomial(x) + w7(y, x)
}

/// Calls with constant arguments: a data parameter (`n`) and a float one given a literal.
#[differentiable]
fn calls_with_constants(x: f64, n: usize) -> f64 {
    scalar_loop(x, n) + w7(2.0, x) * w7(x, x)
}

#[differentiable]
fn scalar_extremes(x: f64, y: f64) -> f64 {
    x.max(y) * x.min(y * 0.5) + (x * x + 1.0).sqrt().ln() + (x - y).abs()
}

/// Exponents that are expressions, not literals.
#[differentiable]
fn powers(x: f64, n: i32) -> f64 {
    let e = n as f64 * 0.5;
    x.powf(1.5) + x.powi(n) + (x * x + 1.0).powf(e)
}

#[differentiable]
fn by_reference(x: &f64, y: f64) -> f64 {
    x * y + x.sin() * y.cos()
}

#[differentiable]
fn shadowed(x: f64) -> f64 {
    let y = x.sin();
    let y = {
        let y = y * x;
        y + 1.0
    };
    let z = if y > 1.0 { y.sqrt() } else { y.exp() };
    z * y
}

#[differentiable]
fn polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), (y / x).tanh())
}

#[differentiable]
fn half_constant(x: f64) -> (f64, f64) {
    (x.exp(), 2.0)
}

#[differentiable]
fn single_precision(x: f32, y: f32) -> f32 {
    x * y.exp() - y.powf(2.5)
}

// ----- the oracles -----

/// `|a - b| <= tol (1 + |b|)`.
fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * (1.0 + b.abs()),
        "{what}: {a} vs {b} (difference {:e})",
        (a - b).abs()
    );
}

/// `x + s v`.
fn along(x: &[f64], v: &[f64], s: f64) -> Vec<f64> {
    x.iter().zip(v).map(|(x, v)| x + s * v).collect()
}

/// The central difference of `f` at `x` along `v`.
fn finite_difference(f: &Value<'_>, x: &[f64], v: &[f64]) -> f64 {
    let h = 1e-6;
    (f(&along(x, v, h)) - f(&along(x, v, -h))) / (2.0 * h)
}

fn unit(n: usize, k: usize) -> Vec<f64> {
    (0..n).map(|i| if i == k { 1.0 } else { 0.0 }).collect()
}

/// A direction with no zero or repeated entry.
fn direction(n: usize) -> Vec<f64> {
    [0.7, -1.3, 0.4, 1.1][..n].to_vec()
}

type Value<'a> = dyn Fn(&[f64]) -> f64 + 'a;
type Jvp<'a> = dyn Fn(&[f64], &[f64]) -> (f64, f64) + 'a;
type Grad<'a> = dyn Fn(&[f64]) -> Vec<f64> + 'a;

/// Checks `jvp` at `x`: its value is `f`'s exactly; along each unit vector it is the
/// gradient's entry and along a general direction `<grad, v>` (both from the generated
/// adjoint); it matches central differences of `f`; and, one order up, its own central
/// differences along each unit vector `e_j` match second differences of `f`
/// (`d/ds jvp(x + s e_j, v) = e_jᵀ H v`).
fn check(name: &str, x: &[f64], f: &Value<'_>, jvp: &Jvp<'_>, grad: &Grad<'_>) {
    let n = x.len();
    let g = grad(x);
    assert_eq!(g.len(), n, "{name}: one gradient entry per input");
    for (k, &gk) in g.iter().enumerate() {
        let (value, dot) = jvp(x, &unit(n, k));
        assert_eq!(value.to_bits(), f(x).to_bits(), "{name}: value at {x:?}");
        assert_close(&format!("{name}: jvp(e_{k}) vs grad"), dot, gk, 1e-12);
    }
    let v = direction(n);
    let dot = jvp(x, &v).1;
    let inner: f64 = g.iter().zip(&v).map(|(g, v)| g * v).sum();
    assert_close(&format!("{name}: jvp(v) vs <grad, v>"), dot, inner, 1e-12);
    assert_close(
        &format!("{name}: jvp(v) vs finite differences"),
        dot,
        finite_difference(f, x, &v),
        1e-7,
    );
    let h = 1e-4;
    for j in 0..n {
        let e = unit(n, j);
        let of_jvp = (jvp(&along(x, &e, h), &v).1 - jvp(&along(x, &e, -h), &v).1) / (2.0 * h);
        let at = |s: f64, t: f64| f(&along(&along(x, &e, s), &v, t));
        let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
        assert_close(
            &format!("{name}: d/dx_{j} jvp(v) vs second differences"),
            of_jvp,
            second,
            1e-4,
        );
    }
}

// ----- against finite differences and the reverse mode -----

#[test]
fn straight_line_code() {
    check(
        "w7",
        &[0.5, 0.25],
        &|x| w7(x[0], x[1]),
        &|x, v| w7::jvp(x[0], x[1], v[0], v[1]),
        &|x| w7::grad(x[0], x[1]).1.to_vec(),
    );
    check(
        "polynomial",
        &[1.3],
        &|x| polynomial(x[0]),
        &|x, v| polynomial::jvp(x[0], v[0]),
        &|x| polynomial::grad(x[0]).1.to_vec(),
    );
    check(
        "scalar_extremes",
        &[0.8, 1.1],
        &|x| scalar_extremes(x[0], x[1]),
        &|x, v| scalar_extremes::jvp(x[0], x[1], v[0], v[1]),
        &|x| scalar_extremes::grad(x[0], x[1]).1.to_vec(),
    );
    for n in [2, 3] {
        check(
            &format!("powers n = {n}"),
            &[1.4],
            &|x| powers(x[0], n),
            &|x, v| powers::jvp(x[0], n, v[0]),
            &|x| powers::grad(x[0], n).1.to_vec(),
        );
    }
    check(
        "by_reference",
        &[0.6, -0.9],
        &|x| by_reference(&x[0], x[1]),
        &|x, v| by_reference::jvp(&x[0], x[1], v[0], v[1]),
        &|x| by_reference::grad(&x[0], x[1]).1.to_vec(),
    );
    check(
        "shadowed",
        &[0.9],
        &|x| shadowed(x[0]),
        &|x, v| shadowed::jvp(x[0], v[0]),
        &|x| shadowed::grad(x[0]).1.to_vec(),
    );
}

#[test]
fn branches_arms_and_early_returns() {
    // both branches: x > y, then x < y
    for point in [[0.9, 0.4], [0.2, 0.7]] {
        check(
            "scalar_branch",
            &point,
            &|x| scalar_branch(x[0], x[1]),
            &|x, v| scalar_branch::jvp(x[0], x[1], v[0], v[1]),
            &|x| scalar_branch::grad(x[0], x[1]).1.to_vec(),
        );
    }
    for point in [[-0.7], [1.4]] {
        check(
            "scalar_early_return",
            &point,
            &|x| scalar_early_return(x[0]),
            &|x, v| scalar_early_return::jvp(x[0], v[0]),
            &|x| scalar_early_return::grad(x[0]).1.to_vec(),
        );
    }
    // every arm, the guarded one twice
    for mode in [0, 1, 2, 7] {
        check(
            &format!("matched mode {mode}"),
            &[0.6, -1.1],
            &|x| matched(x[0], x[1], mode),
            &|x, v| matched::jvp(x[0], x[1], mode, v[0], v[1]),
            &|x| matched::grad(x[0], x[1], mode).1.to_vec(),
        );
    }
    // `shadowed`'s other branch: y = sin(x)·x + 1 <= 1 for x in (-π, 0)
    check(
        "shadowed, else branch",
        &[-0.5],
        &|x| shadowed(x[0]),
        &|x, v| shadowed::jvp(x[0], v[0]),
        &|x| shadowed::grad(x[0]).1.to_vec(),
    );
}

#[test]
fn loops_carrying_state() {
    check(
        "scalar_loop",
        &[0.5],
        &|x| scalar_loop(x[0], 30),
        &|x, v| scalar_loop::jvp(x[0], 30, v[0]),
        &|x| scalar_loop::grad(x[0], 30).1.to_vec(),
    );
    check(
        "oscillator",
        &[1.0, -0.3, 2.5],
        &|x| oscillator(x[0], x[1], x[2], 50),
        &|x, v| oscillator::jvp(x[0], x[1], x[2], 50, v[0], v[1], v[2]),
        &|x| oscillator::grad(x[0], x[1], x[2], 50).1.to_vec(),
    );
    check(
        "scalar_accumulate",
        &[0.4, -1.2],
        &|x| scalar_accumulate(x[0], x[1]),
        &|x, v| scalar_accumulate::jvp(x[0], x[1], v[0], v[1]),
        &|x| scalar_accumulate::grad(x[0], x[1]).1.to_vec(),
    );
    // no trip at all: the result is the input
    assert_eq!(scalar_loop::jvp(0.5, 0, 3.0), (0.5, 3.0));
}

#[test]
fn calls_of_annotated_functions() {
    check(
        "scalar_composed",
        &[0.3, 0.6],
        &|x| scalar_composed(x[0], x[1]),
        &|x, v| scalar_composed::jvp(x[0], x[1], v[0], v[1]),
        &|x| scalar_composed::grad(x[0], x[1]).1.to_vec(),
    );
    check(
        "calls_with_constants",
        &[0.45],
        &|x| calls_with_constants(x[0], 12),
        &|x, v| calls_with_constants::jvp(x[0], 12, v[0]),
        &|x| calls_with_constants::grad(x[0], 12).1.to_vec(),
    );
}

#[test]
fn tuple_results_give_a_tuple_of_tangents() {
    let (x, v) = ([0.8, -0.6], [0.3, 1.7]);
    let ((r, t), (dr, dt)) = polar::jvp(x[0], x[1], v[0], v[1]);
    assert_eq!((r, t), polar(x[0], x[1]));
    for (k, dot) in [dr, dt].into_iter().enumerate() {
        let component = |x: &[f64]| {
            let (r, t) = polar(x[0], x[1]);
            [r, t][k]
        };
        assert_close(
            &format!("polar.{k} vs finite differences"),
            dot,
            finite_difference(&component, &x, &v),
            1e-7,
        );
        // the reverse mode: the pullback of the k-th unit cotangent is that result's gradient
        let (_, pullback) = polar::vjp(x[0], x[1]);
        let seed = if k == 0 {
            (Some(1.0), None)
        } else {
            (None, Some(1.0))
        };
        let (gx, gy) = pullback(seed);
        let inner = gx.unwrap_or(0.0) * v[0] + gy.unwrap_or(0.0) * v[1];
        assert_close(&format!("polar.{k} vs the pullback"), dot, inner, 1e-12);
    }
    // d/dx (eˣ, 2) = (eˣ, 0)
    let ((e, two), (de, dtwo)) = half_constant::jvp(0.4, 1.0);
    assert_eq!((e, two), half_constant(0.4));
    assert_eq!((e, two, de, dtwo), (0.4_f64.exp(), 2.0, 0.4_f64.exp(), 0.0));
}

/// The example of the attribute's documentation (`macros/src/lib.rs`).
#[test]
fn the_attribute_docs_example() {
    // d/dx √(x² + y²) = x / r = 0.6 at (0.6, 0.8)
    let ((r, _), (dr, _)) = polar::jvp(0.6, 0.8, 1.0, 0.0);
    assert!((r - 1.0).abs() < 1e-15 && (dr - 0.6).abs() < 1e-15);
}

#[test]
fn single_precision_tangents() {
    // d = e^y dx + (x e^y - 2.5 y^1.5) dy, at (1.5, 0.5) along (1, -2)
    let (value, dot) = single_precision::jvp(1.5, 0.5, 1.0, -2.0);
    assert_eq!(value, single_precision(1.5, 0.5));
    let e = 0.5_f32.exp();
    let expected = e - 2.0 * (1.5 * e - 2.5 * 0.5_f32.powf(1.5));
    assert!((dot - expected).abs() < 1e-5, "{dot} vs {expected}");
    let (_, [dx, dy]) = single_precision::grad(1.5, 0.5);
    assert!((dot - (dx - 2.0 * dy)).abs() < 1e-5, "{dot} vs <grad, v>");
}

mod stopped {
    use gradtape::differentiable;

    /// Named like the library's, so the attribute treats its result as a constant.
    fn stop_gradient(x: f64) -> f64 {
        x
    }

    #[differentiable]
    fn times_stopped_self(x: f64) -> f64 {
        x * stop_gradient(x)
    }

    #[test]
    fn a_stopped_value_has_no_tangent() {
        // d/dx (x · c) = c with c = x held constant: 3 at x = 3, not 2x = 6
        assert_eq!(times_stopped_self::jvp(3.0, 1.0), (9.0, 3.0));
        assert_eq!(times_stopped_self(3.0), 9.0);
        assert_eq!(times_stopped_self::grad(3.0).1, [3.0]);
    }
}

#[test]
fn the_tangent_code_is_inspectable() {
    assert!(w7::GENERATED.contains("pub fn jvp"));
    assert!(w7::GENERATED.contains("vjp::sin"));
    assert!(scalar_composed::GENERATED.contains("jvp_call"));
}

// ----- against a ForwardAccumulator on tensors -----

fn t(x: f64) -> Tensor<f64> {
    Tensor::scalar(x)
}

/// The tangent a `ForwardAccumulator` gives `f`'s result, with `x` as primals and `v` as
/// their tangents, computed op by op on 0-d tensors.
fn accumulated(f: impl Fn(&[Tensor<f64>]) -> Tensor<f64>, x: &[f64], v: &[f64]) -> f64 {
    let primals: Vec<Tensor<f64>> = x.iter().map(|&x| t(x)).collect();
    let tangents: Vec<Tensor<f64>> = v.iter().map(|&v| t(v)).collect();
    let acc = ForwardAccumulator::new(&primals, tangents).unwrap();
    let y = acc.record(|| f(&primals));
    acc.jvp(&y).unwrap().to_scalar()
}

#[test]
fn tangents_match_a_forward_accumulator_on_tensors() {
    let v = direction(3);
    let (x, y) = (0.5, 0.25);
    let tape = accumulated(
        |a| (&a[0] * &a[1]).sin() + a[0].exp() / (&a[1] * &a[1] + 1.0),
        &[x, y],
        &v[..2],
    );
    assert_close("w7", w7::jvp(x, y, v[0], v[1]).1, tape, 1e-12);

    let (x, y) = (0.8, 1.1);
    let tape = accumulated(
        |a| {
            a[0].maximum(&a[1]) * a[0].minimum(&(&a[1] * 0.5))
                + (&a[0] * &a[0] + 1.0).sqrt().ln()
                + (&a[0] - &a[1]).abs()
        },
        &[x, y],
        &v[..2],
    );
    assert_close(
        "scalar_extremes",
        scalar_extremes::jvp(x, y, v[0], v[1]).1,
        tape,
        1e-12,
    );

    let p = [1.0, -0.3, 2.5];
    let tape = accumulated(
        |a| {
            let (mut x, mut u) = (a[0].clone(), a[1].clone());
            for _ in 0..50 {
                let acc = -&a[2] * &x - &u * 0.1;
                x = &x + &u * 0.05;
                u = &u + acc * 0.05;
            }
            &x * &u + x.cos()
        },
        &p,
        &v,
    );
    assert_close(
        "oscillator",
        oscillator::jvp(p[0], p[1], p[2], 50, v[0], v[1], v[2]).1,
        tape,
        1e-12,
    );

    let (x, y) = (0.6, -1.1);
    let tape = accumulated(
        |a| {
            let s = a[0].sin();
            (&s * &a[1] + &s) * &a[0]
        },
        &[x, y],
        &v[..2],
    );
    assert_close("matched", matched::jvp(x, y, 1, v[0], v[1]).1, tape, 1e-12);
}

// ----- tensor mode: `f::jvp` on tensors, and the node's tangent under an accumulator -----

mod tensor_mode {
    use gradtape::{
        ForwardAccumulator, GradientTape, Tensor, UnconnectedGradients, Variable, differentiable,
    };

    fn v(values: &[f64], shape: &[usize]) -> Tensor<f64> {
        Tensor::from_vec(values.to_vec(), shape)
    }

    fn assert_close(what: &str, a: &Tensor<f64>, b: &Tensor<f64>, tol: f64) {
        assert_eq!(a.shape(), b.shape(), "{what}: shapes");
        for (i, (p, q)) in a.to_vec().iter().zip(b.to_vec()).enumerate() {
            assert!(
                (p - q).abs() <= tol * (1.0 + q.abs()),
                "{what}[{i}]: {p} vs {q}"
            );
        }
    }

    /// A dense layer and a loss: elementwise rules, a broadcast bias, traced `matmul` and
    /// `sum_axis`.
    #[differentiable]
    fn dense_loss(x: &Tensor<f64>, w: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
        let h = (x.matmul(w) + b).tanh();
        (&h * &h).sum_axis(1, false) * 0.5 + x.sin().sum_axis(1, false)
    }

    /// A constant wider than the differentiable operand: the sum is `[2, 3]`, `x` is `[3]`,
    /// so the tangent must be broadcast as the value is.
    #[differentiable(constant(c))]
    fn widened(x: &Tensor<f64>, c: &Tensor<f64>) -> Tensor<f64> {
        let y = x + c;
        y.exp() - c * x
    }

    /// A loop carrying a tensor, a branch, and a call of another annotated function.
    #[differentiable]
    fn iterated(x: &Tensor<f64>, w: &Variable<f64>, steps: usize) -> Tensor<f64> {
        let mut y = x.clone();
        for k in 0..steps {
            y = if k % 2 == 0 {
                y.sin() * w
            } else {
                dense_loss(
                    &y.reshape(&[1, 3]),
                    &y.reshape(&[3, 1]),
                    &y.sum_axis(0, true),
                ) + &y
            };
        }
        y
    }

    #[differentiable]
    fn polar(r: &Tensor<f64>, theta: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
        (r * theta.cos(), r * theta.sin())
    }

    /// The op-by-op accumulator's tangent of `f` (on the function's `primal`).
    fn op_by_op(
        f: impl Fn(&[Tensor<f64>]) -> Tensor<f64>,
        xs: &[Tensor<f64>],
        us: &[Tensor<f64>],
    ) -> (Tensor<f64>, Tensor<f64>) {
        let acc = ForwardAccumulator::new(xs.to_vec(), us.to_vec()).unwrap();
        let y = acc.record(|| f(xs));
        let dy = acc.jvp_with(&y, UnconnectedGradients::Zero).unwrap();
        (y, dy)
    }

    #[test]
    fn jvp_on_tensors_matches_the_op_by_op_accumulator() {
        let x = v(&[0.3, -0.7, 1.1, 0.2, 0.5, -0.4], &[2, 3]);
        let w = v(&[0.4, 0.9, -0.3, 0.2, 0.7, -1.1], &[3, 2]);
        let b = v(&[0.1, -0.2], &[2]);
        let (dx, dw, db) = (
            v(&[1.0, 0.5, -0.2, 0.3, 0.0, 0.7], &[2, 3]),
            v(&[0.2, -0.1, 0.4, 0.3, -0.5, 0.6], &[3, 2]),
            v(&[0.9, -0.8], &[2]),
        );
        let (value, tangent) = dense_loss::jvp(&x, &w, &b, &dx, &dw, &db);
        // the value is the body's own, to the bit
        assert_eq!(value.to_vec(), dense_loss::primal(&x, &w, &b).to_vec());
        let (_, expected) = op_by_op(
            |a| dense_loss::primal(&a[0], &a[1], &a[2]),
            &[x.clone(), w.clone(), b.clone()],
            &[dx, dw, db],
        );
        assert_close("dense_loss", &tangent, &expected, 1e-12);
    }

    /// Tangents for some parameters only (the accumulator has none for `x` and `b`): the
    /// tangent code skips their symbolic zeros, alone (one pass, no node) and under a tape
    /// (the node's JVP rule), and agrees with the op-by-op accumulator.
    #[test]
    fn tangents_along_some_parameters_only() {
        let x = v(&[0.3, -0.7, 1.1, 0.2, 0.5, -0.4], &[2, 3]);
        let w = v(&[0.4, 0.9, -0.3, 0.2, 0.7, -1.1], &[3, 2]);
        let b = v(&[0.1, -0.2], &[2]);
        let dw = v(&[0.2, -0.1, 0.4, 0.3, -0.5, 0.6], &[3, 2]);
        let along_w = |f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>| {
            let acc = ForwardAccumulator::new(&w, dw.clone()).unwrap();
            let y = acc.record(|| f(&w));
            acc.jvp(&y).unwrap()
        };
        let expected = along_w(&|w| dense_loss::primal(&x, w, &b));
        assert_close(
            "alone",
            &along_w(&|w| dense_loss(&x, w, &b)),
            &expected,
            1e-12,
        );
        // under a tape that tracks x: the call records a node, whose JVP rule runs
        let tape = GradientTape::new();
        tape.watch(&x);
        let (under_tape, total) = tape.record(|| {
            let tangent = along_w(&|w| dense_loss(&x, w, &b));
            let total = tangent.sum();
            (tangent, total)
        });
        assert_close("under a tape", &under_tape, &expected, 1e-12);
        // d/dx of the tangent along w: ∂²f/∂x∂w · dw, against the op-by-op accumulator
        let by_node = tape.gradient(&total, &x).unwrap().unwrap();
        let tape = GradientTape::new();
        tape.watch(&x);
        let op_by_op = tape.record(|| along_w(&|w| dense_loss::primal(&x, w, &b)).sum());
        let expected = tape.gradient(&op_by_op, &x).unwrap().unwrap();
        assert_close("reverse over forward", &by_node, &expected, 1e-12);
        // and f::jvp with explicit zeros for the other parameters
        let (zx, zb) = (Tensor::zeros(&[2, 3]), Tensor::zeros(&[2]));
        let (_, by_jvp) = dense_loss::jvp(&x, &w, &b, &zx, &dw, &zb);
        assert_close(
            "f::jvp with zero tangents",
            &by_jvp,
            &along_w(&|w| dense_loss(&x, w, &b)),
            1e-12,
        );
    }

    #[test]
    fn a_constant_wider_than_the_tangent_broadcasts_it() {
        let x = v(&[0.3, -0.7, 1.1], &[3]);
        let c = v(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]);
        let dx = v(&[1.0, 2.0, -1.0], &[3]);
        let (value, tangent) = widened::jvp(&x, &c, &dx);
        assert_eq!(value.shape(), &[2, 3]);
        // d(e^(x+c) - c x) = (e^(x+c) - c) dx, each row
        let expected = ((&x + &c).exp() - &c) * &dx;
        assert_close("widened", &tangent, &expected, 1e-14);
        // and under an accumulator (op by op: the body reads the constant tensor `c`)
        let acc = ForwardAccumulator::new(&x, dx.clone()).unwrap();
        let y = acc.record(|| widened(&x, &c));
        assert_close(
            "widened under an accumulator",
            &acc.jvp(&y).unwrap(),
            &expected,
            1e-14,
        );
    }

    #[test]
    fn loops_variables_and_calls_of_annotated_functions() {
        let x = v(&[0.3, -0.7, 1.1], &[3]);
        let w = Variable::new(v(&[0.9, 1.2, -0.5], &[3]));
        let (dx, dw) = (v(&[1.0, -0.5, 0.25], &[3]), v(&[0.1, 0.2, 0.3], &[3]));
        let (value, tangent) = iterated::jvp(&x, &w.value(), 4, &dx, &dw);
        assert_eq!(value.to_vec(), iterated::primal(&x, &w, 4).to_vec());
        let acc = ForwardAccumulator::new((&x, &w), (dx.clone(), dw.clone())).unwrap();
        let y = acc.record(|| iterated::primal(&x, &w, 4));
        let expected = acc.jvp(&y).unwrap();
        assert_close("iterated", &tangent, &expected, 1e-12);
        // the annotated call under an accumulator: its node's tangent
        let acc = ForwardAccumulator::new((&x, &w), (dx, dw)).unwrap();
        let y = acc.record(|| iterated(&x, &w, 4));
        assert_close("iterated node", &acc.jvp(&y).unwrap(), &expected, 1e-12);
    }

    #[test]
    fn tuple_results_give_a_tuple_of_tangents_on_tensors() {
        let (r, theta) = (v(&[1.0, 2.0], &[2]), v(&[0.3, -1.2], &[2]));
        let (dr, dtheta) = (v(&[0.5, -0.5], &[2]), v(&[1.0, 0.25], &[2]));
        let ((px, py), (dpx, dpy)) = polar::jvp(&r, &theta, &dr, &dtheta);
        assert_eq!(px.to_vec(), (&r * theta.cos()).to_vec());
        assert_eq!(py.to_vec(), (&r * theta.sin()).to_vec());
        // d(r cos θ) = cos θ dr - r sin θ dθ; d(r sin θ) = sin θ dr + r cos θ dθ
        let ex = theta.cos() * &dr - &r * theta.sin() * &dtheta;
        let ey = theta.sin() * &dr + &r * theta.cos() * &dtheta;
        assert_close("polar x", &dpx, &ex, 1e-14);
        assert_close("polar y", &dpy, &ey, 1e-14);
        // each node of the tuple gets its own part
        let acc = ForwardAccumulator::new((&r, &theta), (dr, dtheta)).unwrap();
        let (qx, qy) = acc.record(|| polar(&r, &theta));
        let (tx, ty) = acc.jvp((&qx, &qy));
        assert_close("polar x node", &tx.unwrap(), &ex, 1e-14);
        assert_close("polar y node", &ty.unwrap(), &ey, 1e-14);
    }

    /// `H v` of `Σ dense_loss` by a tape over the generated tangent code called directly.
    #[test]
    fn the_tangent_code_is_recordable_for_reverse_over_forward() {
        let x = v(&[0.3, -0.7, 1.1, 0.2, 0.5, -0.4], &[2, 3]);
        let w = v(&[0.4, 0.9, -0.3, 0.2, 0.7, -1.1], &[3, 2]);
        let b = v(&[0.1, -0.2], &[2]);
        let dw = v(&[0.2, -0.1, 0.4, 0.3, -0.5, 0.6], &[3, 2]);
        let (zx, zb) = (Tensor::zeros(&[2, 3]), Tensor::zeros(&[2]));
        let tape = GradientTape::new();
        tape.watch(&w);
        let directional = tape.record(|| dense_loss::jvp(&x, &w, &b, &zx, &dw, &zb).1.sum());
        let hv = tape.gradient(&directional, &w).unwrap().unwrap();
        // against nested tapes: ∇_w <∇_w Σ f, dw>
        let outer = GradientTape::new();
        outer.watch(&w);
        let along = outer.record(|| {
            let inner = GradientTape::new();
            inner.watch(&w);
            let y = inner.record(|| dense_loss::primal(&x, &w, &b).sum());
            (inner.gradient(&y, &w).unwrap().unwrap() * &dw).sum()
        });
        let expected = outer.gradient(&along, &w).unwrap().unwrap();
        assert_close("H v", &hv, &expected, 1e-12);
    }

    #[test]
    fn the_tensor_tangent_code_is_inspectable() {
        assert!(dense_loss::GENERATED.contains("pub fn jvp"));
        assert!(dense_loss::GENERATED.contains("generated::trace_jvp"));
        assert!(widened::GENERATED.contains("generated::broadcast_tangent"));
    }
}

// ----- no allocation -----

/// The system allocator, counting the allocations each thread makes (tests run on
/// threads of their own, so a thread's count is its test's).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the count is a thread-local `Cell` with no destructor, which allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        // SAFETY: the caller's `layout` contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn jvp_allocates_nothing() {
    // The counter itself works: a `Vec` counts.
    let before = allocations();
    let boxed = std::hint::black_box(vec![1.0_f64; 4]);
    assert!(allocations() > before);
    drop(boxed);

    let before = allocations();
    let mut sum = 0.0;
    for k in 0..100 {
        let x = std::hint::black_box(0.01 * k as f64);
        sum += w7::jvp(x, 0.25, 1.0, 0.0).1;
        sum += scalar_loop::jvp(x, 30, 1.0).1;
        sum += oscillator::jvp(x, -0.3, 2.5, 50, 1.0, 0.5, -1.0).1;
        sum += scalar_composed::jvp(x, 0.6, 0.3, 0.2).1;
        sum += calls_with_constants::jvp(x, 12, 1.0).1;
        sum += matched::jvp(x, -1.1, (k % 4) as u8, 1.0, 1.0).1;
        sum += polar::jvp(x + 1.0, 0.5, 1.0, 1.0).1.0;
    }
    assert_eq!(allocations(), before, "jvp allocated");
    assert!(std::hint::black_box(sum).is_finite());
}
