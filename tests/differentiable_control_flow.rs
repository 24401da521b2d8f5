//! `#[differentiable]` on ordinary control flow and patterns: `loop`, `break` (with a
//! value, labelled), `continue`, `return` anywhere, `while let`, `if let`, `let ... else`,
//! `match` with guards and bindings, and loops carrying several values updated in any
//! order (issue 13). Tensor functions are checked with `common::check_annotated` (value,
//! orders 1 and 2 against the op-by-op tape of `f::primal` and against central differences
//! in f64); plain-float functions through `f::grad` and `f::jvp` against central differences
//! of `f::primal` and against each other.

#[macro_use]
mod common;

use common::faces::Scalar;
use common::twice::Twice;
use common::{Tolerance, check_annotated, close};
use gradtape::{Tensor, differentiable};
use num_traits::Float;

// ----- oracles -----

/// Checks a plain-float function of `n` float parameters (then constants) at each point.
macro_rules! scalar {
    ($f:ident($($a:ident),+ $(; $($c:expr),*)?) at $($x:expr),+) => {{
        let check = Scalar {
            name: stringify!($f),
            itself: &|x: &[f64]| {
                let [$($a),+] = x else { panic!("arity") };
                $f($(*$a),+ $(, $($c),*)?)
            },
            primal: &|x: &[f64]| {
                let [$($a),+] = x else { panic!("arity") };
                $f::primal($(*$a),+ $(, $($c),*)?)
            },
            grad: &|x: &[f64]| {
                let [$($a),+] = x else { panic!("arity") };
                let (value, gradient) = $f::grad($(*$a),+ $(, $($c),*)?);
                (value, gradient.to_vec())
            },
            jvp: &|x: &[f64], v: &[f64]| {
                let [$($a),+] = x else { panic!("arity") };
                #[allow(non_snake_case)]
                let tangent = |k: usize| v[k];
                let mut k = 0;
                $(let $a = (*$a, { k += 1; tangent(k - 1) });)+
                $f::jvp($($a.0),+ $(, $($c),*)?, $($a.1),+)
            },
        };
        $(check.check(&$x);)+
    }};
}

/// Checks a tensor function against its op-by-op tape and central differences.
macro_rules! tensor {
    ($f:ident($($k:literal),+ $(; $($c:expr),*)?) at $($x:expr),+) => {{
        let fused = |x: &[Tensor<f64>]| $f($(&x[$k]),+ $(, $($c),*)?);
        let plain = |x: &[Tensor<f64>]| $f::primal($(&x[$k]),+ $(, $($c),*)?);
        for inputs in [$($x),+] {
            if let Err(message) =
                check_annotated(stringify!($f), &inputs, &fused, &plain, Tolerance::F64, 7)
            {
                panic!("{message}");
            }
        }
    }};
}

fn v(values: &[f64]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), &[values.len()])
}

fn s(value: f64) -> Tensor<f64> {
    Tensor::scalar(value)
}

// ----- 1. control flow, plain floats -----

/// Newton's method for `y³ = a`, stopping early once converged: `return` inside a loop.
#[differentiable]
fn cube_root(a: f64) -> f64 {
    let mut y = a;
    for _ in 0..50 {
        let next = y - (y * y * y - a) / (3.0 * y * y);
        if (next - y).abs() < 1e-12 {
            return next;
        }
        y = next;
    }
    y
}

/// A search with `break` carrying the value: the first partial sum above a threshold.
#[differentiable]
fn first_crossing(x: f64, threshold: f64) -> f64 {
    let mut sum = 0.0;
    let mut k = 0;
    let found = loop {
        k += 1;
        sum += x * x / k as f64;
        if sum > threshold {
            break sum * x;
        }
        if k > 100 {
            break 0.0;
        }
    };
    found + sum
}

/// `continue` skipping every third term of a series.
#[differentiable]
fn skipping_series(x: f64) -> f64 {
    let mut total = 0.0;
    for k in 1..10 {
        if k % 3 == 0 {
            continue;
        }
        let term = (x * k as f64).sin() / k as f64;
        total += term;
    }
    total
}

/// A labelled `break` out of two loops.
#[differentiable]
fn labelled_break(x: f64, y: f64) -> f64 {
    let mut acc = x;
    'outer: for i in 0..5 {
        for j in 0..5 {
            acc = acc * 0.9 + y * (i + j) as f64 * 0.01;
            if i * j >= 6 {
                break 'outer;
            }
        }
        acc = acc.sin() + x;
    }
    acc * y
}

/// A labelled `continue` from an inner loop to the next outer iteration.
#[differentiable]
fn labelled_continue(x: f64) -> f64 {
    let mut acc = 0.0;
    'rows: for i in 0..4 {
        for j in 0..4 {
            if j > i {
                continue 'rows;
            }
            acc += (x * (i * 4 + j) as f64 * 0.1).cos();
        }
        acc *= 0.5;
    }
    acc
}

/// Velocity Verlet-like integrator: two carried values updated from a tuple of new ones.
#[differentiable]
fn oscillator_tuple(x0: f64, v0: f64, dt: f64, steps: usize) -> f64 {
    let mut x = x0;
    let mut v = v0;
    for _ in 0..steps {
        let (x2, v2) = (x + dt * v, v - dt * x);
        x = x2;
        v = v2;
    }
    x * x + v * v
}

/// Symplectic Euler updating in place, in order.
#[differentiable]
fn symplectic_euler(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut x = x0;
    let mut v = v0;
    for _ in 0..20 {
        x += dt * v;
        v -= dt * x;
    }
    x + 2.0 * v
}

/// A `while let` over a stack of constants, folding them with the value.
#[differentiable(constant(weights))]
fn while_let_fold(x: f64, weights: &[f64]) -> f64 {
    let mut stack = weights.to_vec();
    let mut acc = x;
    while let Some(w) = stack.pop() {
        acc = acc * w + (acc * w).tanh();
    }
    acc
}

/// `if let` and `let ... else` on an optional constant, `return` from the `else`.
#[differentiable]
fn optional_scale(x: f64, scale: Option<f64>, shift: Option<f64>) -> f64 {
    let y = if let Some(s) = scale { x * s } else { x.exp() };
    let Some(d) = shift else {
        return y * y;
    };
    (y + d).sin()
}

/// A piecewise loss by `match` with guards and bindings on an enum.
#[derive(Clone, Copy)]
enum Loss {
    Squared,
    Huber(f64),
    Quantile { tau: f64 },
}

#[differentiable]
fn piecewise_loss(pred: f64, target: f64, loss: Loss) -> f64 {
    let r = pred - target;
    match loss {
        Loss::Squared => 0.5 * r * r,
        Loss::Huber(delta) if r.abs() <= delta => 0.5 * r * r,
        Loss::Huber(delta) => delta * (r.abs() - 0.5 * delta),
        Loss::Quantile { tau } if r >= 0.0 => tau * r,
        Loss::Quantile { tau } => (tau - 1.0) * r,
    }
}

/// Bisection-free root search: `loop` with a break in a `match` on a comparison.
#[differentiable]
fn damped_newton(a: f64, b: f64) -> f64 {
    // root of y + a·tanh(y) = b, early `return` on convergence, `continue` on damping
    let mut y = b;
    let mut step = 0;
    loop {
        step += 1;
        let f = y + a * y.tanh() - b;
        let df = 1.0 + a * (1.0 - y.tanh() * y.tanh());
        let next = y - f / df;
        match (next - y).abs() {
            d if d < 1e-13 => return next,
            d if d > 10.0 => {
                y -= 0.1 * f / df;
                continue;
            }
            _ => {}
        }
        y = next;
        if step > 60 {
            break y;
        }
    }
}

/// Formerly `tests/ui/differentiable/return-inside-loop.rs`, a rejection.
#[differentiable]
fn return_inside_loop(x: f64) -> f64 {
    let mut y = x;
    for _ in 0..3 {
        if y > 10.0 {
            return y;
        }
        y *= x;
    }
    y
}

/// `match` on a tuple of differentiable values, binding them, with guards reading them.
#[differentiable]
fn hinge_pair(a: f64, b: f64, margin: f64) -> f64 {
    match (a - b, margin) {
        (d, m) if d > m => d - m,
        (d, m) if d < -m => -(d + m) * 0.5,
        (d, _) => d * d * 0.1,
    }
}

/// `match` binding a differentiable value whole, with a guard.
#[differentiable]
fn soft_clip(x: f64) -> f64 {
    match x * 2.0 {
        y if y > 1.0 => 1.0 + (y - 1.0).tanh(),
        y if y < -1.0 => -1.0 + (y + 1.0).tanh(),
        y => y,
    }
}

/// A comparison and a constant in the scrutinee, a binding of the constant.
#[differentiable]
fn signed_steps(x: f64, steps: usize) -> f64 {
    match (x > 0.0, steps) {
        (true, n) => x.powi(n as i32 + 1),
        (false, 0) => x,
        (false, n) => x * n as f64,
    }
}

#[test]
fn control_flow_on_plain_numbers() {
    scalar!(hinge_pair(a, b, m) at [2.0, 0.5, 0.3], [0.1, 0.9, 0.3], [0.4, 0.35, 0.2]);
    scalar!(soft_clip(x) at [0.9], [-0.8], [0.2]);
    scalar!(signed_steps(x; 3) at [0.7], [-0.7]);
    scalar!(signed_steps(x; 0) at [-0.7]);
    // at 1.5 all three trips run: x⁴; at 2.5 the third returns x³ = 15.6 > 10
    scalar!(return_inside_loop(x) at [1.5], [2.5]);
    scalar!(cube_root(a) at [2.0], [0.7], [9.5]);
    scalar!(first_crossing(x, t) at [0.9, 3.0], [1.7, 2.0], [-1.3, 4.0]);
    scalar!(skipping_series(x) at [0.3], [1.1]);
    scalar!(labelled_break(x, y) at [0.4, 0.8], [1.2, -0.5]);
    scalar!(labelled_continue(x) at [0.3], [0.9]);
    scalar!(oscillator_tuple(x, v, dt; 25) at [1.0, 0.2, 0.1], [0.3, -0.4, 0.05]);
    scalar!(symplectic_euler(x, v, dt) at [1.0, 0.2, 0.1], [0.3, -0.4, 0.05]);
    scalar!(while_let_fold(x; &[0.5, 1.5, 0.9]) at [0.4], [-1.2]);
    scalar!(optional_scale(x; Some(1.5), Some(0.2)) at [0.4], [-0.3]);
    scalar!(optional_scale(x; None, Some(0.2)) at [0.4]);
    scalar!(optional_scale(x; Some(0.7), None) at [0.4]);
    for loss in [Loss::Squared, Loss::Huber(0.5), Loss::Quantile { tau: 0.3 }] {
        scalar!(piecewise_loss(p, t; loss) at [0.3, 0.1], [0.3, 1.5], [2.0, 0.1]);
    }
    scalar!(damped_newton(a, b) at [0.5, 1.0], [2.0, -0.7]);
}
// ----- 1. control flow, tensors (the same forms on tensors: one fused node each) -----

/// Newton's method for `√a` elementwise, with an early `return` once every element has
/// converged.
#[differentiable]
fn t_newton_sqrt(a: &Tensor<f64>) -> Tensor<f64> {
    let mut y = a.clone();
    for _ in 0..40 {
        let next = (&y + a / &y) * 0.5;
        if (&next - &y).abs().sum().to_scalar() < 1e-13 {
            return next;
        }
        y = next;
    }
    y
}

/// `loop` with `break` carrying the value.
#[differentiable]
fn t_first_crossing(x: &Tensor<f64>, threshold: f64) -> Tensor<f64> {
    let mut sum = x * 0.0;
    let mut k = 0;
    let found = loop {
        k += 1;
        sum = sum + x * x / k as f64;
        if sum.sum().to_scalar() > threshold {
            break &sum * x;
        }
        if k > 100 {
            break x.clone();
        }
    };
    found + sum
}

/// `continue` skipping every third term.
#[differentiable]
fn t_skipping_series(x: &Tensor<f64>) -> Tensor<f64> {
    let mut total = x * 0.0;
    for k in 1..9 {
        if k % 3 == 0 {
            continue;
        }
        let term = (x * k as f64).sin() / k as f64;
        total = total + term;
    }
    total
}

/// A labelled `break` out of two loops, decided on the values.
#[differentiable]
fn t_labelled_break(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut acc = x.clone();
    'outer: for i in 0..5 {
        for j in 0..5 {
            acc = &acc * 0.9 + y * ((i + j) as f64 * 0.01);
            if acc.sum().to_scalar() > 2.0 || i * j >= 6 {
                break 'outer;
            }
        }
        acc = acc.sin() + x;
    }
    acc * y
}

/// A labelled `continue` from an inner loop.
#[differentiable]
fn t_labelled_continue(x: &Tensor<f64>) -> Tensor<f64> {
    let mut acc = x * 0.0;
    'rows: for i in 0..4 {
        for j in 0..4 {
            if j > i {
                continue 'rows;
            }
            acc = acc + (x * ((i * 4 + j) as f64 * 0.1)).cos();
        }
        acc = acc * 0.5;
    }
    acc
}

/// An oscillator: two carried tensors updated from a tuple of new values.
#[differentiable]
fn t_oscillator(x0: &Tensor<f64>, v0: &Tensor<f64>, dt: f64) -> Tensor<f64> {
    let mut x = x0.clone();
    let mut v = v0.clone();
    for _ in 0..15 {
        let (x2, v2) = (&x + &v * dt, &v - &x * dt);
        x = x2;
        v = v2;
    }
    &x * &x + &v * &v
}

/// `while let` over constant weights.
#[differentiable]
fn t_while_let(x: &Tensor<f64>, weights: &[f64]) -> Tensor<f64> {
    let mut stack = weights.to_vec();
    let mut acc = x.clone();
    while let Some(w) = stack.pop() {
        acc = (&acc * w).tanh() + &acc * 0.5;
    }
    acc
}

/// `if let`, and `let ... else` with `return`.
#[differentiable]
fn t_optional(x: &Tensor<f64>, scale: Option<f64>, shift: Option<f64>) -> Tensor<f64> {
    let y = if let Some(s) = scale { x * s } else { x.exp() };
    let Some(d) = shift else {
        return &y * &y;
    };
    (y + d).sin()
}

/// A `match` with guards and bindings on an enum of constants.
#[differentiable]
fn t_piecewise(pred: &Tensor<f64>, target: &Tensor<f64>, loss: Loss) -> Tensor<f64> {
    let r = pred - target;
    match loss {
        Loss::Squared => &r * &r * 0.5,
        Loss::Huber(delta) if r.abs().sum().to_scalar() <= delta => &r * &r * 0.5,
        Loss::Huber(delta) => (r.abs() - 0.5 * delta) * delta,
        Loss::Quantile { tau } if r.sum().to_scalar() >= 0.0 => r * tau,
        Loss::Quantile { tau } => r * (tau - 1.0),
    }
}

/// A `return` from a `match` arm inside a `let`.
#[differentiable]
fn t_return_in_let(x: &Tensor<f64>, mode: Option<u8>) -> Tensor<f64> {
    let y = x.sin();
    let k = match mode {
        Some(k) => k as f64,
        None => return y.exp(),
    };
    y * k + x
}

/// A `match` binding a tuple of tensors, with a guard on a constant.
#[differentiable]
fn t_match_pair(x: &Tensor<f64>, y: &Tensor<f64>, mode: u8) -> Tensor<f64> {
    match (x * y, mode) {
        (p, 0) => p.sin(),
        (p, k) if k > 3 => p * k as f64,
        (p, _) => (p + x).tanh(),
    }
}

fn two() -> Vec<Tensor<f64>> {
    vec![v(&[0.3, -0.8, 1.1]), v(&[0.5, 0.2, -0.4])]
}

#[test]
fn control_flow_on_tensors() {
    tensor!(t_newton_sqrt(0) at vec![v(&[2.0, 0.5, 7.0])], vec![s(3.0)]);
    tensor!(t_first_crossing(0; 2.0) at vec![v(&[0.9, 0.4, 0.6])], vec![s(1.3)]);
    tensor!(t_skipping_series(0) at vec![v(&[0.3, 1.1, -0.7])], vec![s(0.4)]);
    tensor!(t_labelled_break(0, 1) at two(), vec![s(0.4), s(0.8)]);
    tensor!(t_labelled_continue(0) at vec![v(&[0.3, 0.9, -0.2])], vec![s(0.5)]);
    tensor!(t_oscillator(0, 1; 0.1) at two(), vec![s(1.0), s(0.2)]);
    tensor!(t_while_let(0; &[0.5, 1.5, 0.9]) at vec![v(&[0.4, -1.2, 0.1])], vec![s(0.3)]);
    for (scale, shift) in [(Some(1.5), Some(0.2)), (None, Some(0.2)), (Some(0.7), None)] {
        tensor!(t_optional(0; scale, shift) at vec![v(&[0.4, -0.3, 0.2])], vec![s(0.6)]);
    }
    for loss in [
        Loss::Squared,
        Loss::Huber(0.5),
        Loss::Huber(9.0),
        Loss::Quantile { tau: 0.3 },
    ] {
        tensor!(t_piecewise(0, 1; loss) at two(), vec![s(0.3), s(1.5)]);
    }
    for mode in [0, 2, 5] {
        tensor!(t_match_pair(0, 1; mode) at two(), vec![s(0.4), s(0.8)]);
    }
    for mode in [Some(3), None] {
        tensor!(t_return_in_let(0; mode) at vec![v(&[0.4, -0.3, 0.2])], vec![s(0.6)]);
    }
}

// ----- 2. patterns and aggregates -----

/// A rotation by a constant angle, as a tuple `let`.
#[differentiable]
fn rotate(x: f64, y: f64, angle: f64) -> f64 {
    let (c, s) = (angle.cos(), angle.sin());
    let (u, w) = (x * c - y * s, x * s + y * c);
    u * w.exp()
}

/// An annotated function with a tuple result, called and destructured by others.
#[differentiable]
fn to_polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), (y / x).tanh())
}

#[differentiable]
fn polar_energy(x: f64, y: f64) -> f64 {
    let (r, theta) = to_polar(x, y);
    r * r * theta.cos() + theta
}

/// The same result read by field, `p.0` and `p.1`.
#[differentiable]
fn polar_by_field(x: f64, y: f64) -> f64 {
    let p = to_polar(x, y);
    p.0.ln() + p.1 * p.0
}

/// A part ignored with `_`, a part bound `mut` and updated.
#[differentiable]
fn polar_partial(x: f64, y: f64) -> f64 {
    let (mut r, _) = to_polar(x, y);
    r *= x;
    r.sin()
}

/// Nested tuple patterns, with a type ascription.
#[differentiable]
fn nested_tuples(x: f64, y: f64) -> f64 {
    let ((s, d), p): ((f64, f64), f64) = ((x + y, x - y), x * y);
    s * d + p.sin()
}

/// Fields of a local tuple.
#[differentiable]
fn tuple_fields(x: f64, y: f64) -> f64 {
    let pair = (x.exp(), y * x);
    let mut total = pair.0 * pair.1;
    total += pair.0;
    total
}

/// Fibonacci-like recurrence by destructuring assignment `(a, b) = (b, a + b)`.
#[differentiable]
fn recurrence(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..8 {
        (a, b) = (b, a * 0.5 + b * 0.3);
    }
    a + b * b
}

/// `for (a, b) in` over a `zip` of constant slices, accumulating into the value.
#[differentiable(constant(xs, ys))]
fn weighted_residuals(m: f64, c: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let r = m * x + c - y;
        loss += r * r;
    }
    loss
}

/// `for (i, w) in ... .enumerate()`: a polynomial by Horner-free powers.
#[differentiable(constant(coefficients))]
fn enumerated_polynomial(x: f64, coefficients: &[f64]) -> f64 {
    let mut value = 0.0;
    for (i, w) in coefficients.iter().enumerate() {
        value += w * x.powi(i as i32);
    }
    value
}

/// Velocity and position returned together by a step function, in a loop.
#[differentiable]
fn euler_step(x: f64, v: f64, dt: f64) -> (f64, f64) {
    (x + dt * v, v - dt * x.sin())
}

#[differentiable]
fn pendulum(x0: f64, v0: f64) -> f64 {
    let mut x = x0;
    let mut v = v0;
    for _ in 0..12 {
        (x, v) = euler_step(x, v, 0.1);
    }
    x + v * 0.5
}

/// A tuple result whose early `return` ends a branch and whose tail is a `match`: `returns`
/// makes the body one branching tail, whose tuples are assigned part by part.
#[differentiable]
fn reflect(x: f64, v: f64, k: u8) -> (f64, f64) {
    if x < 0.0 {
        return (-x, -0.5 * v);
    }
    match k {
        0 => (x * v, v),
        _ => {
            if v > 0.0 {
                (v.sin(), x)
            } else {
                (x, v * v)
            }
        }
    }
}

#[differentiable]
fn reflected(x: f64, v: f64) -> f64 {
    let (a, b) = reflect(x, v, 1);
    let (c, d) = reflect(b, a, 0);
    a * d + b * c.exp()
}

#[test]
fn patterns_on_plain_numbers() {
    scalar!(reflected(x, v) at [0.6, 0.8], [-0.6, 0.8], [0.6, -0.8], [-0.6, -0.8]);
    scalar!(rotate(x, y, a) at [0.3, -0.8, 0.5], [1.2, 0.4, 2.0]);
    scalar!(polar_energy(x, y) at [0.6, 0.8], [1.5, -0.3]);
    scalar!(polar_by_field(x, y) at [0.6, 0.8], [1.5, -0.3]);
    scalar!(polar_partial(x, y) at [0.6, 0.8], [1.5, -0.3]);
    scalar!(nested_tuples(x, y) at [0.6, 0.8], [1.5, -0.3]);
    scalar!(tuple_fields(x, y) at [0.6, 0.8], [1.5, -0.3]);
    scalar!(recurrence(x, y) at [0.6, 0.8], [1.5, -0.3]);
    scalar!(weighted_residuals(m, c; &[0.0, 1.0, 2.0], &[0.1, 0.9, 2.2]) at [0.5, 0.1]);
    scalar!(enumerated_polynomial(x; &[1.0, -2.0, 0.5, 0.25]) at [0.7], [-1.3]);
    scalar!(pendulum(x, v) at [0.5, 0.1], [1.2, -0.4]);
}

/// Tensor-mode patterns: a tuple `let` of tensors, a call with a tuple result.
#[differentiable]
fn t_rotate(x: &Tensor<f64>, y: &Tensor<f64>, angle: f64) -> Tensor<f64> {
    let (c, s) = (angle.cos(), angle.sin());
    let (u, w) = (x * c - y * s, x * s + y * c);
    u * w.exp()
}

#[differentiable]
fn t_split(x: &Tensor<f64>, y: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    (x * y, (x - y).tanh())
}

#[differentiable]
fn t_split_user(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let (p, q) = t_split(x, y);
    &p * &q + p.sin()
}

#[differentiable]
fn t_fields(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let pair = (x.exp(), y * x);
    &pair.0 * &pair.1 + &pair.0
}

#[differentiable]
fn t_recurrence(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut a = x.clone();
    let mut b = y.clone();
    for _ in 0..6 {
        (a, b) = (b.clone(), &a * 0.5 + &b * 0.3);
    }
    a + &b * &b
}

#[test]
fn patterns_on_tensors() {
    tensor!(t_rotate(0, 1; 0.5) at two(), vec![s(0.4), s(0.8)]);
    tensor!(t_split_user(0, 1) at two(), vec![s(0.4), s(0.8)]);
    tensor!(t_fields(0, 1) at two(), vec![s(0.4), s(0.8)]);
    tensor!(t_recurrence(0, 1) at two(), vec![s(0.4), s(0.8)]);
}

// ----- 3. parameters: `mut`, and constants of any type -----

/// A `mut` parameter updated in place.
#[differentiable]
fn mut_parameter(mut x: f64, y: f64) -> f64 {
    x *= y;
    x += 1.0;
    x.ln()
}

/// A `mut` tensor parameter.
#[differentiable]
fn t_mut_parameter(mut x: Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x = x * y;
    x = x + 1.0;
    x.tanh()
}

/// A configuration struct read as constants.
#[derive(Clone, Copy)]
struct Config {
    steps: usize,
    rate: f64,
    clip: Option<f64>,
}

#[differentiable]
fn configured(x: f64, config: &Config) -> f64 {
    let mut y = x;
    for _ in 0..config.steps {
        y -= config.rate * (y * y - 2.0);
        if let Some(limit) = config.clip {
            let over = y > limit;
            if over {
                y = y * 0.5 + limit * 0.5;
            }
        }
    }
    y
}

/// A closure parameter applied to constants only.
#[differentiable]
fn closure_constant(x: f64, schedule: &dyn Fn(usize) -> f64) -> f64 {
    let mut y = x;
    for k in 0..5 {
        y = y * schedule(k) + y.sin();
    }
    y
}

/// A generic closure parameter applied to constants.
#[differentiable]
fn generic_closure<F: Fn(f64) -> f64>(x: f64, weight: F) -> f64 {
    x * weight(2.0) + (x * weight(0.5)).cos()
}

/// Integer and flag parameters deciding the control flow.
#[differentiable]
fn flags(x: f64, n: u32, squared: bool, mut budget: i64) -> f64 {
    let mut y = x;
    for _ in 0..n {
        if budget <= 0 {
            break;
        }
        budget -= 1;
        y = if squared { y * y * 0.5 } else { y.sin() } + x;
    }
    y
}

/// A `mut` constant parameter changed in the body.
#[differentiable]
fn mut_constant(x: f64, mut steps: usize) -> f64 {
    let mut y = x;
    while steps > 0 {
        y = y.cos() + x * 0.1;
        steps -= 1;
    }
    y
}

/// A string and a slice of strings as constants.
#[differentiable]
fn named_terms(x: f64, name: &str, terms: &[&str]) -> f64 {
    let mut y = x;
    for term in terms {
        match *term {
            "sin" => y = y.sin(),
            "square" => y = y * y,
            _ => y += name.len() as f64,
        }
    }
    y
}

/// A constant `Vec` and an `Option<usize>` parameter.
#[differentiable(constant(table))]
fn table_lookup(x: f64, table: Vec<f64>, index: Option<usize>) -> f64 {
    let scale = match index {
        Some(i) if i < table.len() => table[i],
        _ => 1.0,
    };
    (x * scale).exp()
}

/// A tensor function with a configuration and a flag.
#[differentiable]
fn t_configured(x: &Tensor<f64>, config: &Config, flip: bool) -> Tensor<f64> {
    let mut y = x.clone();
    for _ in 0..config.steps {
        y = &y - (&y * &y - 2.0) * config.rate;
        if flip {
            y = -y;
        }
    }
    y
}

#[test]
fn parameters() {
    scalar!(mut_parameter(x, y) at [0.6, 0.8], [1.5, 2.0]);
    let config = Config {
        steps: 6,
        rate: 0.1,
        clip: Some(1.3),
    };
    scalar!(configured(x; &config) at [0.5], [1.2]);
    let free = Config {
        clip: None,
        ..config
    };
    scalar!(configured(x; &free) at [0.5], [1.2]);
    scalar!(closure_constant(x; &|k| 0.9 - 0.1 * k as f64) at [0.5], [1.2]);
    scalar!(generic_closure(x; |w: f64| w * w) at [0.5], [1.2]);
    scalar!(flags(x; 6, true, 4) at [0.5], [1.2]);
    scalar!(flags(x; 6, false, 9) at [0.5], [1.2]);
    scalar!(mut_constant(x; 7) at [0.5], [1.2]);
    scalar!(named_terms(x; "abc", &["sin", "square", "shift"]) at [0.5], [1.2]);
    scalar!(table_lookup(x; vec![0.5, 2.0], Some(1)) at [0.5]);
    scalar!(table_lookup(x; vec![0.5, 2.0], Some(5)) at [0.5]);
    let owned = |x: &[Tensor<f64>]| t_mut_parameter(x[0].clone(), &x[1]);
    let plain = |x: &[Tensor<f64>]| t_mut_parameter::primal(x[0].clone(), &x[1]);
    for inputs in [two(), vec![s(0.4), s(0.8)]] {
        check_annotated(
            "t_mut_parameter",
            &inputs,
            &owned,
            &plain,
            Tolerance::F64,
            7,
        )
        .unwrap_or_else(|message| panic!("{message}"));
    }
    for flip in [false, true] {
        tensor!(t_configured(0; &config, flip) at vec![v(&[0.5, 1.2, -0.3])], vec![s(0.4)]);
    }
}

// ----- 4. ordinary forms rewritten before lowering (macros/src/rewrite.rs) -----
// Each of the first three was a rustc error on the attribute's expansion: a local closure
// (E0433, "cannot find module or crate `sq`"), recursion (E0720, "cannot resolve opaque
// type") and `f64::max(a, b)` (E0223, "ambiguous associated type").

/// Regression (E0433 on `sq`): a local closure capturing a differentiable value.
#[differentiable]
fn closure_capturing(x: f64, k: f64) -> f64 {
    let sq = |v: f64| v * v * k;
    sq(x) + sq(x + 1.0)
}

/// Closures calling closures, untyped parameters, a call inside a loop.
#[differentiable]
fn closures_nested(x: f64, y: f64) -> f64 {
    let scale = |v| v * y;
    let bump = |v: f64, w: f64| scale(v).sin() + w;
    let mut total = 0.0;
    for k in 0..4 {
        total += bump(x * k as f64, y);
    }
    total
}

/// Arguments are evaluated before the parameters are bound: `swap(1.0, v)` reads the
/// outer `v`, not the parameter `v` bound to 1.0.
#[differentiable]
fn closure_argument_order(v: f64, w: f64) -> f64 {
    let swap = |v: f64, u: f64| v * 2.0 + u * u;
    swap(1.0, v) + swap(w, v * w)
}

/// A closure whose body is a block with statements and a branch.
#[differentiable]
fn closure_with_block(x: f64) -> f64 {
    let smooth_abs = |v: f64| {
        let eps = 1e-3;
        if v > 0.0 {
            (v * v + eps).sqrt()
        } else {
            -v + eps
        }
    };
    smooth_abs(x) * smooth_abs(x - 2.0)
}

/// A helper function declared inside the body, called before and after its declaration.
#[differentiable]
fn local_function(x: f64, y: f64) -> f64 {
    let a = softplus(x * y);
    fn softplus(v: f64) -> f64 {
        (1.0 + v.exp()).ln()
    }
    a + softplus(a - y)
}

/// Regression (E0720): plain recursion.
#[differentiable]
fn power_by_recursion(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power_by_recursion(x, n - 1)
    }
}

/// Recursion with two calls per level (a tree of depth `n`).
#[differentiable]
fn recursive_tree(x: f64, y: f64, n: u32) -> f64 {
    if n == 0 {
        x * y
    } else {
        recursive_tree(x, y, n - 1).sin() + recursive_tree(y * 0.5, x, n - 1)
    }
}

/// Regression (E0720 on the pair): mutual recursion. `descend_odd` calls `descend_even`
/// unconditionally; `descend_even`'s call sits in a branch, so its pullback is boxed,
/// which breaks the cycle of pullback types.
#[differentiable]
fn descend_even(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        descend_odd(x.sin() * 1.5, n - 1) + 0.5 * x
    }
}

#[differentiable]
fn descend_odd(x: f64, n: u32) -> f64 {
    descend_even(x * 0.8 + 0.1, n).cos() * x
}

/// Mutual recursion where both calls are conditional, one in a loop.
#[differentiable]
fn ping(x: f64, y: f64, n: u32) -> f64 {
    let mut total = x * y;
    for k in 0..n.min(2) {
        total += pong(y * 0.5, x + k as f64 * 0.1, n - 1);
    }
    total
}

#[differentiable]
fn pong(x: f64, y: f64, n: u32) -> f64 {
    if n > 0 {
        ping(x.tanh(), y, n - 1) * y
    } else {
        x.exp() - y
    }
}

/// A generic function calling an annotated generic helper in a loop (its pullback boxed,
/// `T: 'static` added to the generated code's bounds).
#[differentiable]
fn generic_sum_of_logistics<T: Float>(x: T, k: T) -> T {
    let mut total = T::zero();
    for i in 0..3 {
        total = total + generic_logistic(x * T::from(i + 1).unwrap(), k);
    }
    total
}

/// Regression (E0223): float methods called by their paths, literal receivers included.
#[differentiable]
fn float_paths(a: f64, b: f64) -> f64 {
    f64::max(a, b) * 2.0
        + f64::sin(a * b)
        + f64::max(1.0, a)
        + f64::powi(b, 3)
        + <f64>::hypot(a, b)
        + f64::mul_add(a, b, 1.0)
}

/// Regression (E0432, "unresolved import `f64`"): a float method whose result is a flag,
/// an ordering or bits, called by its path, was taken for a function of the user's.
#[differentiable]
fn float_queries_by_path(a: f64, b: f64) -> f64 {
    let finite = if f64::is_finite(a) && !f64::is_nan(b) {
        a
    } else {
        0.0
    };
    let larger = match f64::total_cmp(&a, &b) {
        std::cmp::Ordering::Less => b,
        _ => a,
    };
    // the sign bit: constant near the points checked, as the differences need
    let sign_clear = f64::to_bits(b) >> 63 == 0;
    finite * larger + if sign_clear { b.sin() } else { b.cos() }
}

/// Regression (E0277, "`bool: ZeroTangent` is not satisfied" at the attribute): a flag
/// assigned a comparison or a negated comparison of differentiable values after its
/// declaration was taken for a differentiable local. (The late initialisation and the
/// negated comparison are the forms under test.)
#[allow(clippy::needless_late_init, clippy::neg_cmp_op_on_partial_ord)]
#[differentiable]
fn flags_assigned_comparisons(a: f64, b: f64) -> f64 {
    let mut above = false;
    let big: bool;
    big = a > b;
    let mut total = 0.0;
    for k in 0..3 {
        above = a * k as f64 > -b;
        let below = !(b < a);
        if above && !below {
            total += a * b;
        } else {
            total += a.sin();
        }
    }
    if big {
        total + a
    } else {
        total - b * above as u8 as f64
    }
}

/// `f32::` paths in an `f32` function.
#[differentiable]
fn float_paths_f32(x: f32) -> f32 {
    f32::exp(f32::min(x, 1.5)) + f32::sqrt(x * x + 1.0)
}

/// A tuple produced by an `if`, destructured by `let`.
#[differentiable]
fn tuple_from_if(x: f64, y: f64) -> f64 {
    let (a, b) = if x > y { (x, y * 2.0) } else { (y, x * 3.0) };
    a * b + a
}

/// A tuple produced by a `match` with a guard, a nested `if`, and an arm calling an
/// annotated function with a tuple result; the pattern reads names the arms also read.
#[differentiable]
fn tuple_from_match(x: f64, y: f64, mode: u8) -> f64 {
    let (x, mut y) = match mode {
        0 => (y, x),
        m if m < 3 => {
            if x > 0.0 {
                (x * x, y)
            } else {
                (x, y * y)
            }
        }
        _ => polar_parts(x, y),
    };
    y += x;
    x * y
}

#[differentiable]
fn polar_parts(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

#[test]
fn rewritten_forms() {
    scalar!(closure_capturing(x, k) at [0.7, 1.3], [-1.2, 0.4]);
    scalar!(closures_nested(x, y) at [0.7, 1.3], [-0.4, 0.9]);
    scalar!(closure_argument_order(v, w) at [0.7, 1.3], [-1.5, 0.2]);
    // swap(1, v) = 2 + v², not 2 + 1: the argument reads the outer `v`
    assert_eq!(closure_argument_order(3.0, 0.0), 2.0 + 9.0 + 0.0);
    scalar!(closure_with_block(x) at [0.7], [-0.6], [2.5]);
    scalar!(local_function(x, y) at [0.7, 1.3], [-1.0, 0.5]);
    scalar!(power_by_recursion(x; 5) at [0.7], [-1.3]);
    scalar!(recursive_tree(x, y; 4) at [0.7, 1.3], [-0.5, 0.25]);
    for n in [0, 1, 4] {
        scalar!(descend_even(x; n) at [0.7], [-1.3]);
        scalar!(descend_odd(x; n) at [0.7], [-1.3]);
        scalar!(ping(x, y; n) at [0.7, 1.3], [-0.5, 0.25]);
        scalar!(pong(x, y; n) at [0.7, 1.3], [-0.5, 0.25]);
    }
    scalar!(float_paths(a, b) at [0.7, 1.3], [1.5, -0.5]);
    scalar!(float_queries_by_path(a, b) at [0.7, 1.3], [1.5, -0.5]);
    scalar!(flags_assigned_comparisons(a, b) at [0.7, 1.3], [1.5, -0.5], [-0.4, 0.2]);
    scalar!(tuple_from_if(x, y) at [0.7, 1.3], [1.5, -0.5]);
    for mode in 0..4 {
        scalar!(tuple_from_match(x, y; mode) at [0.7, 1.3], [-0.8, 0.6]);
    }
    // f32: the gradient against the analytic one
    let (value, [dx]) = float_paths_f32::grad(0.5);
    assert_eq!(value, float_paths_f32::primal(0.5));
    assert_eq!(value, float_paths_f32(0.5));
    let expected = 0.5_f32.exp() + 0.5 / (1.25_f32).sqrt();
    assert!((dx - expected).abs() < 1e-6, "{dx} vs {expected}");
}

// ----- 5. generic code: `fn f<T: Float>(x: T) -> T` -----

/// The logistic function, generic over the float type, with `T::one()`.
#[differentiable]
fn generic_logistic<T: Float>(x: T, k: T) -> T {
    let one = T::one();
    one / (one + (-k * x).exp())
}

/// Horner's rule with `T::from(..)` constants, bound in a `where` clause.
#[differentiable]
fn generic_horner<T>(x: T, a: T, b: T) -> T
where
    T: Float,
{
    let half = T::from(0.5).unwrap();
    let mut acc = a;
    for _ in 0..3 {
        acc = acc * x + b * half;
    }
    acc.sin()
}

/// Newton's method for √a with an early `return`, generic.
#[differentiable]
fn generic_newton_sqrt<T: Float>(a: T) -> T {
    let two = T::from(2.0).unwrap();
    let mut y = a;
    for _ in 0..40 {
        let next = (y + a / y) / two;
        if (next - y).abs() < T::epsilon() {
            return next;
        }
        y = next;
    }
    y
}

/// A generic function calling another annotated generic function and a closure.
#[differentiable]
fn generic_caller<T: Float>(x: T, y: T) -> T {
    let square = |v: T| v * v;
    generic_logistic(square(x), y) + generic_newton_sqrt(y * y + T::one())
}

#[test]
fn generic_functions() {
    scalar!(generic_logistic(x, k) at [0.5, 2.0], [-1.0, 0.3]);
    scalar!(generic_horner(x, a, b) at [0.5, 2.0, 1.0], [-0.7, 0.3, 0.2]);
    scalar!(generic_newton_sqrt(a) at [2.0], [0.3]);
    scalar!(generic_caller(x, y) at [0.5, 2.0], [-1.0, 0.3]);
    scalar!(generic_sum_of_logistics(x, k) at [0.5, 2.0], [-1.0, 0.3]);
    // the same code at f32: d/dx σ(kx) = k σ (1 − σ)
    let (value, [dx, _]) = generic_logistic::grad(0.5_f32, 2.0);
    let sigma = 1.0 / (1.0 + (-1.0_f32).exp());
    assert!((value - sigma).abs() < 1e-7);
    assert!((dx - 2.0 * sigma * (1.0 - sigma)).abs() < 1e-6);
}

// ----- 6. `Option`s of differentiable numbers (macros/src/options.rs) -----

/// `Some`/`None` from a branch, then `match` with a guard and bindings.
#[differentiable]
fn guarded_sqrt(x: f64, y: f64) -> f64 {
    let root = if x >= 0.0 { Some(x.sqrt() * y) } else { None };
    match root {
        Some(r) if r > 1.0 => r.ln() + y,
        Some(r) => r * r - y,
        None => -x * y,
    }
}

/// The first element above a threshold, searched in a loop (`let mut` option assigned in
/// the loop, `is_none`, `unwrap_or`).
#[differentiable(constant(threshold))]
fn first_above(x: f64, y: f64, threshold: f64) -> f64 {
    let mut found: Option<f64> = None;
    for k in 0..6 {
        let v = x * k as f64 + y * y;
        if found.is_none() && v > threshold {
            found = Some(v.sin() + x);
        }
    }
    found.unwrap_or(x * y)
}

/// `if let`, `let ... else` with an early return, and `map_or`.
#[differentiable]
fn option_forms(x: f64, y: f64) -> f64 {
    let scaled = if x > y { Some(x - y) } else { None };
    let mut total = scaled.map_or(y * 2.0, |d| d.exp());
    if let Some(d) = scaled {
        total += d * y;
    }
    let ratio = match y.abs() > 1e-3 {
        true => Some(x / y),
        false => None,
    };
    let Some(q) = ratio else {
        return total;
    };
    total * q
}

/// The running best of a loop, matched on (`Some(b) if b >= v` keeps it).
#[differentiable]
fn running_best(x: f64, y: f64) -> f64 {
    let mut best = None;
    for k in 0..5 {
        let v = (x * k as f64).cos() * y + k as f64 * 0.1;
        best = match best {
            Some(b) if b >= v => Some(b),
            _ => Some(v),
        };
    }
    best.unwrap() * x
}

/// `expect`, `is_some`, and an option from a block with a diverging branch.
#[differentiable]
fn newton_option(a: f64) -> f64 {
    let start = {
        let s = a * 0.5 + 0.5;
        if s > 0.0 { Some(s) } else { return 0.0 }
    };
    let mut y = start.expect("a positive start");
    for _ in 0..20 {
        y = 0.5 * (y + a / y);
    }
    if start.is_some() { y } else { -y }
}

#[test]
fn options_of_differentiable_numbers() {
    // both branches of each `if`, every arm of each `match`
    scalar!(guarded_sqrt(x, y) at [4.0, 2.0], [0.09, 1.5], [-0.5, 0.7]);
    scalar!(first_above(x, y; 1.5) at [0.7, 0.4], [0.1, 0.2], [0.01, 0.01]);
    scalar!(option_forms(x, y) at [1.5, 0.5], [0.2, 0.9], [0.3, 0.0001]);
    scalar!(running_best(x, y) at [0.7, 1.3], [-0.4, 0.8]);
    scalar!(newton_option(a) at [2.0], [0.3]);
    // the found element, by hand: k = 2 gives 1.4 + 0.16 = 1.56 > 1.5
    let (value, [dx, dy]) = first_above::grad(0.7, 0.4, 1.5);
    assert!(close(value, 1.56_f64.sin() + 0.7, 1e-15));
    assert!(close(dx, 2.0 * 1.56_f64.cos() + 1.0, 1e-14));
    assert!(close(dy, 0.8 * 1.56_f64.cos(), 1e-14));
}

// ----- regression: a carried value that starts as a literal -----

/// Symplectic Euler from rest: the velocity starts as the literal `0.0` and becomes
/// differentiable in the loop. Its adjoint slot is first written at the end of the reverse
/// loop's body, so its type is not known where the body's first statement (`v = v + ..`)
/// copies its cotangent; a method call there (`g.clone()`) was rustc's E0282 "type
/// annotations needed" on the attribute (found by trying integrators as users write them).
#[differentiable]
fn from_rest(x0: f64, k: f64) -> f64 {
    let mut x = x0;
    let mut v = 0.0;
    for _ in 0..10 {
        x += 0.1 * v;
        v += 0.1 * (-k * x);
    }
    x
}

/// The same with the state in a tuple and a midpoint step (RK2).
#[differentiable]
fn midpoint_from_rest(x0: f64, k: f64) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    let dt = 0.1;
    for _ in 0..10 {
        let (ax, av) = (v, -k * x);
        let (mx, mv) = (x + 0.5 * dt * ax, v + 0.5 * dt * av);
        x += dt * mv;
        v += dt * (-k * mx);
    }
    x
}

#[test]
fn a_carried_value_starting_as_a_literal() {
    scalar!(from_rest(x0, k) at [1.0, 2.0], [-0.5, 0.7]);
    scalar!(midpoint_from_rest(x0, k) at [1.0, 2.0], [-0.5, 0.7]);
}

// ----- operands a loop reads but never changes, saved once as it starts -----

/// `dt` and `k` (parameters) in every trip of an integrator, a value defined before a
/// nested loop, one defined in the outer loop and read in the inner one, one read in a
/// loop inside a branch, and one in a loop that a `break` and a `return` may end.
#[differentiable]
fn loop_invariants(x0: f64, dt: f64, k: f64) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..12 {
        x += dt * v;
        v -= dt * k * x;
    }
    let c = x0.cos();
    let mut s = 0.0;
    for i in 0..4 {
        let w = (i as f64 + 1.0) * x;
        for j in 0..3 {
            s += c * w * (j as f64 + 0.5) + s * dt;
        }
    }
    if x0 > 0.0 {
        for _ in 0..3 {
            s = s * c + k;
        }
    }
    for i in 0..20 {
        s += c * (i as f64);
        if s > 1e3 {
            break;
        }
        if s < -1e3 {
            return s * k;
        }
    }
    s + x * v
}

/// Constant names: `h` (computed from a count) in every trip, and a closure inside the
/// loop whose parameter has the name of a constant outside it (so that name is not one
/// binding, and is saved per trip as before).
#[allow(clippy::needless_range_loop)] // the index loop is the form under test
#[differentiable]
fn constant_names_in_loops(x: &[f64], s: usize) -> f64 {
    let h = 2.0 / s as f64;
    let scale = 0.5;
    let mut y = 0.0;
    for i in 0..x.len() {
        y += h * x[i] * x[i];
        let f = |scale: f64| scale * x[i];
        y += f(1.5) * scale;
    }
    y
}

#[test]
fn operands_saved_once_per_loop() {
    for s in [1, 3] {
        let x = [0.3, -0.8, 1.1];
        let (value, [g]) = constant_names_in_loops::grad(&x, s);
        assert_eq!(
            value.to_bits(),
            constant_names_in_loops::primal(&x, s).to_bits()
        );
        assert_eq!(value.to_bits(), constant_names_in_loops(&x, s).to_bits());
        let by_differences =
            common::central_differences(&|x: &[f64]| constant_names_in_loops::primal(x, s), &x);
        for (k, (a, b)) in g.iter().zip(&by_differences).enumerate() {
            assert!(close(*a, *b, 1e-6), "s = {s}: d/dx{k} {a} vs {b}");
        }
    }
    assert!(constant_names_in_loops::GENERATED.contains("inv"));
    scalar!(loop_invariants(x0, dt, k) at [0.7, 0.05, 2.0], [-0.4, 0.1, 1.5], [1.3, 0.02, 30.0]);
    // `dt`, `k` and `c` are saved as their loops start, not on every trip: none of the
    // integrator's products keeps its left operand per trip
    let generated = loop_invariants::GENERATED;
    assert!(generated.contains("inv"), "{generated}");
}

// ----- a closure sees what it captured as it was when it was made -----
//
// A local closure is inlined at its calls; a capture written between the closure and a
// call must still read the closure's copy (`rewrite::snapshot_captures`). Each of the
// `move` forms was a wrong gradient with no error (`grad`'s value and gradient, `jvp`,
// read the later value; the function itself and `primal` were right).

/// The recount's case: `y` copied as 2x, then assigned sin x: the result is 2x² + sin x.
#[differentiable]
fn move_capture(x: f64) -> f64 {
    let mut y = x * 2.0;
    let f = move |v: f64| v * y;
    y = x.sin();
    f(x) + y
}

/// An array captured whole (`a[0]` captures `a`), then an element assigned and another
/// added to.
#[differentiable]
fn move_capture_element(x: f64, w: f64) -> f64 {
    let mut a = [x, w, x * w];
    let f = move |v: f64| v * a[0] + a[2];
    a[0] = w.cos();
    a[2] += x;
    f(x) + a[0] * a[2]
}

/// A local struct's fields captured (`s.x`, `s.v`: Rust captures the fields), then one
/// written.
#[differentiable]
fn move_capture_field(x0: f64, v0: f64) -> f64 {
    let mut s = SpringState { x: x0, v: v0 };
    let energy = move |k: f64| 0.5 * k * s.x * s.x + 0.5 * s.v * s.v;
    s.x += 0.1 * s.v;
    energy(2.0) + s.x
}

/// A capture assigned inside the loop that calls the closure: every trip after the first
/// would have read the new rate.
#[differentiable]
fn move_capture_in_loop(x: f64, r: f64) -> f64 {
    let mut rate = r;
    let grow = move |v: f64| v * (1.0 + rate);
    let mut v = x;
    let mut total = 0.0;
    for _ in 0..4 {
        v = grow(v);
        total += v;
        rate *= x;
    }
    total + rate
}

/// Written on one branch only, before the call: the copy is taken either way.
#[differentiable]
fn move_capture_in_branch(x: f64, y: f64) -> f64 {
    let mut c = y * y;
    let f = move |v: f64| (v * c).sin();
    if x > 0.0 {
        c = x;
    }
    f(x) * c
}

/// Two closures copying one variable at two values: each call reads its own closure's copy.
#[differentiable]
fn two_closures_one_capture(x: f64) -> f64 {
    let mut y = x;
    let f = move |v: f64| v * y;
    y = x * x;
    let g = move |v: f64| v + y;
    y = x.exp();
    f(2.0) + g(1.0) * y
}

/// A `move` closure with a mutable local of its own, assigned in its body: no capture, so
/// not the copy a `move` closure may not assign (UI test `move-closure-assigning-its-copy`).
#[differentiable]
fn move_closure_with_its_own_local(x: f64, w: f64) -> f64 {
    let mut scale = w;
    let series = move |v: f64| {
        let mut acc = 0.0;
        for k in 1..4 {
            acc += (v * k as f64).sin() * scale;
        }
        acc
    };
    scale = w * w;
    series(x) + scale
}

/// Not `move`, and the capture written only after the last call (the borrow has ended):
/// already right, and must stay so.
#[differentiable]
fn borrowed_capture_then_written(x: f64) -> f64 {
    let mut y = x * 2.0;
    let f = |v: f64| v * y;
    let first = f(x);
    y = x.sin();
    first + y
}

#[test]
fn closures_keep_what_they_captured() {
    // 2x² + sin x at x = 0.7: 1.6242 (grad's value was 1.0952, x sin x + sin x)
    let x = 0.7_f64;
    let expected = 2.0 * x * x + x.sin();
    assert!((move_capture::grad(x).0 - expected).abs() < 1e-15);
    // d/dx = 4x + cos x = 3.5648 (grad and jvp gave 1.9444)
    assert!((move_capture::grad(x).1[0] - (4.0 * x + x.cos())).abs() < 1e-12);
    scalar!(move_capture(x) at [0.7], [-1.3]);
    scalar!(move_capture_element(x, w) at [0.7, 1.3], [-0.4, 0.9]);
    scalar!(move_capture_field(x, v) at [0.7, 1.3], [-0.4, 0.9]);
    scalar!(move_capture_in_loop(x, r) at [0.7, 0.3], [1.1, -0.2]);
    scalar!(move_capture_in_branch(x, y) at [0.7, 1.3], [-0.4, 0.9]);
    scalar!(two_closures_one_capture(x) at [0.7], [-1.3]);
    scalar!(move_closure_with_its_own_local(x, w) at [0.7, 1.3], [-0.4, 0.9]);
    scalar!(borrowed_capture_then_written(x) at [0.7], [-1.3]);
}

// ----- a closure's `return`, and a closure mutating what it captured -----
//
// A `return` in a closure's body leaves the closure: inlined, it leaves the inlined body
// (`rewrite::returning_to_the_call`), never the function. A closure assigning a capture
// (`FnMut`) assigns the variable itself at each call, as its mutable borrow does. Each is
// checked against dual numbers and central differences at orders 1 and 2 (`Twice`), and
// through `grad` and `jvp` (`scalar!`).

twice! {
    /// `return` ending a branch of the closure's body (rewritten into the branch's value),
    /// called three times.
    fn closure_returning_early / closure_returning_early_on_duals<T>(x: T, y: T) -> T {
        let f = |t: T| {
            if t < T::zero() {
                return -t * y;
            }
            t * t
        };
        f(x) + f(x - y) * f(y)
    }
}

twice! {
    /// `return` inside a loop of the closure's body: the body becomes a labelled `loop`
    /// left by `break` with the value, and the outer loop calling it goes on.
    fn closure_returning_from_a_loop / closure_returning_from_a_loop_on_duals<T>(x: T, y: T) -> T {
        let settle = |t: T| {
            let mut s = t;
            for k in 0..6 {
                s = s * T::from(0.5).unwrap() + (t * T::from(k).unwrap()).sin() * y;
                if s > T::one() {
                    return s * t;
                }
            }
            s - t
        };
        let mut total = T::zero();
        for k in 0..3 {
            total = total + settle(x + y * T::from(k).unwrap());
        }
        total
    }
}

twice! {
    /// `return` inside a `let`'s value (an expression, which no branch rewrite reaches):
    /// the labelled `loop` form too.
    fn closure_returning_inside_a_let / closure_returning_inside_a_let_on_duals<T>(x: T, y: T) -> T {
        let g = |t: T, u: T| {
            let c = if t > u { return t.sin() * u } else { t * u };
            c + t.exp()
        };
        g(x, y) + g(y, x) * g(x * y, T::from(0.25).unwrap())
    }
}

twice! {
    /// An `FnMut` closure adding to a capture, called before and inside a loop, the
    /// capture read after its last call.
    fn closure_mutating_a_capture / closure_mutating_a_capture_on_duals<T>(x: T, y: T) -> T {
        let mut acc = T::zero();
        let mut add = |v: T| acc = acc + v * x;
        add(y);
        add(y * y);
        for k in 1..4 {
            add((x * T::from(k).unwrap()).sin());
        }
        acc * y
    }
}

twice! {
    /// An `FnMut` closure with a block body updating two captures on a branch.
    fn closure_mutating_two_captures / closure_mutating_two_captures_on_duals<T>(x: T, y: T) -> T {
        let mut sum = x;
        let mut product = T::one();
        let mut step = |v: T| {
            if v > T::zero() {
                sum = sum + v * y;
            } else {
                product = product * (v - y);
            }
            sum = sum * T::from(0.9).unwrap();
        };
        step(x);
        step(-y * y);
        step(x * y);
        sum * product
    }
}

/// `acc += ..` as the closure's whole body (the form users write; the dual twins above
/// spell `acc = acc + ..`, which `num_traits::Float` allows).
#[differentiable]
fn closure_adding_to_a_capture(x: f64, y: f64) -> f64 {
    let mut acc = 0.0;
    let mut add = |v: f64| acc += v * x;
    add(y);
    add(y * y);
    add(x);
    acc
}

/// A local function's `return` leaves that function.
#[differentiable]
fn local_function_returning(x: f64, y: f64) -> f64 {
    fn clipped(t: f64) -> f64 {
        if t > 1.0 {
            return 1.0 + (t - 1.0).ln_1p();
        }
        t * t
    }
    clipped(x) * clipped(y) + clipped(x * y)
}

#[test]
fn closures_return_to_their_call_and_mutate_their_captures() {
    macro_rules! two {
        ($f:ident, $on_duals:ident at $($x:expr),+) => {
            $(
                Twice::<2> {
                    name: stringify!($f),
                    itself: &|p| $f(p[0], p[1]),
                    primal: &|p| $f::primal(p[0], p[1]),
                    grad: &|p| {
                        let (value, g) = $f::grad(p[0], p[1]);
                        (value, g.to_vec())
                    },
                    on_duals: &|d| $on_duals(d[0], d[1]),
                }
                .check($x);
                scalar!($f(x, y) at $x);
            )+
        };
    }
    // each branch of each closure's `return` taken at one point or another
    two!(closure_returning_early, closure_returning_early_on_duals at [0.7, 1.3], [-0.4, 0.9], [0.6, -0.5]);
    two!(closure_returning_from_a_loop, closure_returning_from_a_loop_on_duals at [0.5, 0.8], [-0.2, 0.7], [0.2, 0.15]);
    two!(closure_returning_inside_a_let, closure_returning_inside_a_let_on_duals at [0.7, 1.3], [-0.4, 0.3], [1.2, -0.5]);
    two!(closure_mutating_a_capture, closure_mutating_a_capture_on_duals at [0.7, 1.3], [-0.4, 0.9]);
    two!(closure_mutating_two_captures, closure_mutating_two_captures_on_duals at [0.7, 1.3], [-0.4, 0.9], [0.5, -0.8]);
    // the values themselves: the `return` left the closure, not the function
    let (x, y) = (-0.4, 0.9);
    let f = |t: f64| if t < 0.0 { -t * y } else { t * t };
    assert_eq!(
        closure_returning_early::grad(x, y).0,
        f(x) + f(x - y) * f(y)
    );
    assert_eq!(
        closure_adding_to_a_capture(x, y),
        x * y + x * (y * y) + x * x
    );
    scalar!(closure_adding_to_a_capture(x, y) at [0.7, 1.3], [-0.4, 0.9]);
    scalar!(local_function_returning(x, y) at [0.7, 1.3], [1.4, 0.9], [-2.0, 0.6]);
}

// ----- 7. a local struct as a loop's carried state (macros/src/fields.rs) -----

/// A damped spring's state, as an integrator keeps it (formerly the trybuild case
/// `local-struct-state`, rejected at the struct literal).
#[derive(Clone, Copy)]
struct SpringState {
    x: f64,
    v: f64,
}

/// Field-by-field updates in any order, semi-implicit Euler.
#[differentiable]
fn spring_fields(x0: f64, v0: f64) -> f64 {
    let mut s = SpringState { x: x0, v: v0 };
    for _ in 0..40 {
        let a = -3.0 * s.x - 0.4 * s.v;
        s.v += 0.05 * a;
        s.x += 0.05 * s.v;
    }
    s.x * s.x + 0.5 * s.v * s.v
}

/// A state with a counter beside the floats, the fields shorthand `State { x, v, steps }`,
/// the whole state assigned from a literal reading the old one (explicit Euler: every new
/// field from the old values, as the literal's temporaries keep them), and a field read
/// in a condition.
struct Counted {
    x: f64,
    v: f64,
    steps: usize,
}

#[differentiable]
fn counted_steps(x: f64, v: f64, k: f64) -> f64 {
    let mut s = Counted { x, v, steps: 0 };
    while s.steps < 25 {
        s = Counted {
            v: s.v - 0.04 * k * s.x,
            x: s.x + 0.04 * s.v,
            steps: s.steps + 1,
        };
        if s.x > 2.0 {
            s.v *= 0.5;
        }
    }
    s.x + s.v * s.v
}

/// The faces of a function of two or three floats, first and second order.
fn check_state(
    name: &str,
    f: common::faces::Value,
    primal: common::faces::Value,
    grad: common::faces::Gradient,
    jvp: common::faces::Tangent,
    x: &[f64],
) {
    common::faces::Case {
        name,
        itself: f,
        primal,
        grad: Some(grad),
        grad_into: grad,
        jvp,
    }
    .check_with_second_order(x);
}

#[test]
fn a_local_struct_as_loop_state() {
    for x in [[0.8, -0.3], [-0.4, 1.1]] {
        check_state(
            "spring_fields",
            &|x| spring_fields(x[0], x[1]),
            &|x| spring_fields::primal(x[0], x[1]),
            &|x| {
                let (value, g) = spring_fields::grad(x[0], x[1]);
                (value, g.to_vec())
            },
            &|x, t| spring_fields::jvp(x[0], x[1], t[0], t[1]),
            &x,
        );
    }
    for x in [[0.8, -0.3, 2.0], [1.5, 0.9, 0.7]] {
        check_state(
            "counted_steps",
            &|x| counted_steps(x[0], x[1], x[2]),
            &|x| counted_steps::primal(x[0], x[1], x[2]),
            &|x| {
                let (value, g) = counted_steps::grad(x[0], x[1], x[2]);
                (value, g.to_vec())
            },
            &|x, t| counted_steps::jvp(x[0], x[1], x[2], t[0], t[1], t[2]),
            &x,
        );
    }
    // each field its own local in the generated code, no struct left
    let generated = spring_fields::GENERATED;
    assert!(!generated.contains("SpringState"), "{generated}");
}
