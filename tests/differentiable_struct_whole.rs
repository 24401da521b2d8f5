//! Struct results held whole (issue 13, "#[differentiable] on real Rust"): an annotated
//! caller binds another function's struct result by `let` and uses it as one value,
//! passed on to a function taking the struct (`let s = euler(..); norm(&s)`), copied
//! (`let t = s;`), read by field beside that (`norm(&s) + s.x`), replaced in a loop by
//! each step's (`s = step(&s, dt)`), chosen by a branch. The caller's macro knows nothing
//! of the struct's fields: the struct is one differentiable value whose cotangent is a
//! value of it (`generated::Accumulate`, from `#[derive(Differentiable)]`).
//!
//! Every form is checked against central differences (`grad`, the pullback of `vjp`,
//! `jvp`), at second order (differences of the gradient), and to the bit against the same
//! body written with the fields, the form differentiated before.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::Case;
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct State {
    x: f64,
    v: f64,
}

/// One explicit-Euler step of a pendulum from the floats.
#[differentiable]
fn euler(x: f64, v: f64, dt: f64) -> State {
    State {
        x: x + dt * v,
        v: v - dt * x.sin(),
    }
}

/// One step of a state passed whole.
#[differentiable]
fn step(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.x + dt * s.v,
        v: s.v - dt * s.x.sin(),
    }
}

#[differentiable]
fn norm(#[differentiable] s: &State) -> f64 {
    (s.x * s.x + s.v * s.v).sqrt()
}

/// The faces of an annotated `f(a, b, c)` of three floats, the point's entries: `grad`,
/// and `vjp`'s pullback of 1 for `grad_into`.
macro_rules! three {
    ($f:ident) => {
        Case {
            name: stringify!($f),
            itself: &|p| $f(p[0], p[1], p[2]),
            primal: &|p| $f::primal(p[0], p[1], p[2]),
            grad: Some(&|p| {
                let (value, g) = $f::grad(p[0], p[1], p[2]);
                (value, g.to_vec())
            }),
            grad_into: &|p| {
                let (value, pullback) = $f::vjp(p[0], p[1], p[2]);
                let (a, b, c) = pullback(1.0);
                // `None`: no path from that input (a zero, checked against differences)
                let zero = |g: Option<f64>| g.unwrap_or(0.0);
                (value, vec![zero(a), zero(b), zero(c)])
            },
            jvp: &|p, t| $f::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
        }
    };
}

/// A function's value, gradient and tangent at a point ([`faces!`]).
type ValueGradientTangent = dyn Fn(&[f64]) -> (f64, Vec<f64>, f64);

/// `f` and `fields` (the same body written with the fields) give the same bits: value,
/// gradient, tangent.
fn same_bits(f: &ValueGradientTangent, fields: &ValueGradientTangent, p: &[f64]) {
    let (value, g, tangent) = f(p);
    let (same, expected, same_tangent) = fields(p);
    assert_eq!(value.to_bits(), same.to_bits(), "value");
    let bits = |v: &[f64]| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&g), bits(&expected), "gradient");
    assert_eq!(tangent.to_bits(), same_tangent.to_bits(), "tangent");
}

/// Value, gradient and tangent along `(0.3, -0.2, 0.5)` of an annotated `f(a, b, c)`
/// (the value `grad`'s, to the bit the function's own).
macro_rules! faces {
    ($f:ident) => {
        &|p: &[f64]| {
            let (value, g) = $f::grad(p[0], p[1], p[2]);
            assert_eq!(
                value.to_bits(),
                $f(p[0], p[1], p[2]).to_bits(),
                "{}: itself",
                stringify!($f)
            );
            let (_, tangent) = $f::jvp(p[0], p[1], p[2], 0.3, -0.2, 0.5);
            (value, g.to_vec(), tangent)
        }
    };
}

const P: [f64; 3] = [0.8, -0.3, 0.1];

// ----- passed on whole -----

/// A struct result held whole and passed on to a function taking the struct.
#[differentiable]
fn held_whole(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    norm(&s)
}

/// The same through the struct's fields (read by field, then a local struct of them).
#[differentiable]
fn held_by_fields(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    let t = State { x: s.x, v: s.v };
    norm(&t)
}

#[test]
fn a_struct_result_passed_on_whole() {
    three!(held_whole).check_with_second_order(&P);
    same_bits(faces!(held_whole), faces!(held_by_fields), &P);
    // the caller holds the struct whole: its `vjp` value, no field of it
    assert!(!held_whole::GENERATED.contains("parts_vjp"));
}

// ----- copied, and read by field beside -----

/// A struct result copied, the copy read by field.
#[differentiable]
fn copied(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    let t = s;
    t.x * t.v
}

#[differentiable]
fn copied_fields(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    s.x * s.v
}

/// A struct result passed on whole and read by field.
#[differentiable]
fn both(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    norm(&s) + s.x * dt
}

#[differentiable]
fn both_fields(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    let t = State { x: s.x, v: s.v };
    norm(&t) + s.x * dt
}

#[test]
fn a_struct_result_copied_and_read_by_field() {
    three!(copied).check_with_second_order(&P);
    three!(both).check_with_second_order(&P);
    same_bits(faces!(copied), faces!(copied_fields), &P);
    same_bits(faces!(both), faces!(both_fields), &P);
}

// ----- the integrator -----

/// The state a struct result replaced in a loop by each step's, then passed on whole.
#[differentiable]
fn orbit(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = euler(x0, v0, dt);
    for _ in 0..25 {
        s = step(&s, dt);
    }
    norm(&s)
}

/// The same from a local struct of the first step's fields (the form differentiated
/// before: the local split into its fields, passed whole as a literal of them).
#[differentiable]
fn orbit_fields(x0: f64, v0: f64, dt: f64) -> f64 {
    let first = euler(x0, v0, dt);
    let mut s = State {
        x: first.x,
        v: first.v,
    };
    for _ in 0..25 {
        s = step(&s, dt);
    }
    norm(&s)
}

/// Each step's result bound inside the loop, then the state replaced by it.
#[differentiable]
fn orbit_by_let(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = euler(x0, v0, dt);
    let mut path = 0.0;
    for _ in 0..25 {
        let next = step(&s, dt);
        path += norm(&next) * dt;
        s = next;
    }
    path + s.v
}

#[differentiable]
fn orbit_by_let_fields(x0: f64, v0: f64, dt: f64) -> f64 {
    let first = euler(x0, v0, dt);
    let mut s = State {
        x: first.x,
        v: first.v,
    };
    let mut path = 0.0;
    for _ in 0..25 {
        let next = step(&s, dt);
        let t = State {
            x: next.x,
            v: next.v,
        };
        path += norm(&t) * dt;
        s = State {
            x: next.x,
            v: next.v,
        };
    }
    path + s.v
}

#[test]
fn an_integrator_holding_the_state_whole() {
    three!(orbit).check_with_second_order(&P);
    three!(orbit_by_let).check_with_second_order(&P);
    same_bits(faces!(orbit), faces!(orbit_fields), &P);
    same_bits(faces!(orbit_by_let), faces!(orbit_by_let_fields), &P);
}

// ----- chosen by a branch, and held whole inside a struct result -----

/// A struct result chosen by a branch, then passed on whole.
#[differentiable]
fn branched(x: f64, v: f64, dt: f64) -> f64 {
    let s = if x > 0.0 {
        euler(x, v, dt)
    } else {
        euler(v, x, dt)
    };
    norm(&s) * s.v
}

#[differentiable]
fn branched_fields(x: f64, v: f64, dt: f64) -> f64 {
    let (a, b) = if x > 0.0 { (x, v) } else { (v, x) };
    let s = euler(a, b, dt);
    let t = State { x: s.x, v: s.v };
    norm(&t) * s.v
}

/// Two steps, the first's result held whole (passed to `step`, read by field), the
/// result a literal of both: a struct result computed from one held whole.
#[differentiable]
fn two_steps(x: f64, v: f64, dt: f64) -> State {
    let s = euler(x, v, dt);
    let t = step(&s, dt);
    State {
        x: t.x + s.x * dt,
        v: t.v,
    }
}

#[differentiable]
fn two_steps_fields(x: f64, v: f64, dt: f64) -> State {
    let s = euler(x, v, dt);
    let t = step(&State { x: s.x, v: s.v }, dt);
    State {
        x: t.x + s.x * dt,
        v: t.v,
    }
}

#[test]
fn a_struct_result_chosen_by_a_branch() {
    three!(branched).check_with_second_order(&P);
    three!(branched).check_with_second_order(&[-0.4, 0.7, 0.2]);
    same_bits(faces!(branched), faces!(branched_fields), &P);
    same_bits(faces!(branched), faces!(branched_fields), &[-0.4, 0.7, 0.2]);
}

#[test]
fn a_struct_result_from_one_held_whole() {
    // the whole Jacobian: each row by the pullback of a unit cotangent against central
    // differences, each column by `jvp` against the rows, to the bit against the fields
    let flat = |s: State| [s.x, s.v];
    let primal = |p: &[f64]| flat(two_steps::primal(p[0], p[1], p[2]));
    for (i, w) in [State { x: 1.0, v: 0.0 }, State { x: 0.0, v: 1.0 }]
        .into_iter()
        .enumerate()
    {
        let (value, pullback) = two_steps::vjp(P[0], P[1], P[2]);
        assert_eq!(flat(value), primal(&P));
        let (a, b, c) = pullback(w);
        let row = [a.unwrap(), b.unwrap(), c.unwrap()];
        let expected = common::central_differences(&|p| primal(p)[i], &P);
        for j in 0..3 {
            assert!(
                common::close(row[j], expected[j], 1e-6),
                "d out{i} / d in{j} = {}, central differences {}",
                row[j],
                expected[j]
            );
        }
        assert_eq!(two_steps_fields(P[0], P[1], P[2]), value);
        let (same_value, fields_pullback) = two_steps_fields::vjp(P[0], P[1], P[2]);
        assert_eq!(
            flat(same_value).map(f64::to_bits),
            flat(value).map(f64::to_bits)
        );
        let (fa, fb, fc) = fields_pullback(w);
        assert_eq!(
            [fa.unwrap(), fb.unwrap(), fc.unwrap()].map(f64::to_bits),
            row.map(f64::to_bits)
        );
        for j in 0..3 {
            let t: Vec<f64> = (0..3).map(|k| f64::from(k == j)).collect();
            let (_, tangent) = two_steps::jvp(P[0], P[1], P[2], t[0], t[1], t[2]);
            assert!(common::close(flat(tangent)[i], row[j], 1e-12));
        }
    }
    // second order: the gradient of ⟨w, two_steps(p)⟩, through a caller holding it whole
    three!(weighted_two_steps).check_with_second_order(&P);
}

/// ⟨(0.7, -1.3), two_steps(x, v, dt)⟩: a caller of [`two_steps`] holding its result
/// whole and reading it by field.
#[differentiable]
fn weighted_two_steps(x: f64, v: f64, dt: f64) -> f64 {
    let s = two_steps(x, v, dt);
    let t = s;
    0.7 * t.x - 1.3 * t.v
}

// ----- generic over the float type, f32, a struct that is not `Copy` -----

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct Polar<T> {
    r: T,
    theta: T,
}

#[differentiable]
fn to_polar<T: num_traits::Float>(x: T, y: T) -> Polar<T> {
    Polar {
        r: (x * x + y * y).sqrt(),
        theta: y.atan2(x),
    }
}

#[differentiable]
fn arc<T: num_traits::Float>(#[differentiable] q: &Polar<T>) -> T {
    q.r * q.theta
}

/// A generic struct result held whole: passed on, and read by field.
#[differentiable]
fn spiral<T: num_traits::Float>(x: T, y: T, k: T) -> T {
    let q = to_polar(x, y);
    arc(&q) + k * q.r
}

#[differentiable]
fn spiral_fields<T: num_traits::Float>(x: T, y: T, k: T) -> T {
    let q = to_polar(x, y);
    let p = Polar {
        r: q.r,
        theta: q.theta,
    };
    arc(&p) + k * q.r
}

#[test]
fn generic_over_the_float_type() {
    three!(spiral).check_with_second_order(&[0.8, 0.6, 1.5]);
    same_bits(faces!(spiral), faces!(spiral_fields), &[0.8, 0.6, 1.5]);
    // at f32: d/dk = r, d/dx = theta x / r - r y / r² + k x / r
    let (value, g) = spiral::grad(3.0_f32, 4.0, 0.5);
    let theta = 4.0_f32.atan2(3.0);
    assert!((value - (5.0 * theta + 2.5)).abs() < 1e-5);
    assert!((g[2] - 5.0).abs() < 1e-5);
    let dx = theta * 3.0 / 5.0 - 5.0 * 4.0 / 25.0 + 0.5 * 3.0 / 5.0;
    assert!((g[0] - dx).abs() < 1e-5, "{} vs {dx}", g[0]);
}

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct State32 {
    x: f32,
    v: f32,
}

#[differentiable]
fn euler32(x: f32, v: f32, dt: f32) -> State32 {
    State32 {
        x: x + dt * v,
        v: v - dt * x,
    }
}

#[differentiable]
fn energy32(#[differentiable] s: &State32) -> f32 {
    0.5 * (s.x * s.x + s.v * s.v)
}

#[differentiable]
fn energy_after32(x: f32, v: f32, dt: f32) -> f32 {
    let s = euler32(x, v, dt);
    energy32(&s) + s.v
}

#[test]
fn at_f32() {
    // s = (x + dt v, v - dt x); d/dx = s.x - dt s.v - dt, d/dv = dt s.x + s.v + 1
    let (x, v, dt) = (0.5_f32, -0.25, 0.1);
    let (sx, sv) = (x + dt * v, v - dt * x);
    let (value, g) = energy_after32::grad(x, v, dt);
    assert_eq!(value, energy_after32::primal(x, v, dt));
    assert_eq!(value, energy_after32(x, v, dt));
    assert!((g[0] - (sx - dt * sv - dt)).abs() < 1e-6, "{}", g[0]);
    assert!((g[1] - (dt * sx + sv + 1.0)).abs() < 1e-6, "{}", g[1]);
    let (_, tangent) = energy_after32::jvp(x, v, dt, 1.0, 0.0, 0.0);
    assert!((tangent - g[0]).abs() < 1e-6);
}

/// A struct that is only `Clone`: held whole, borrowed, cloned, read by field.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Body {
    position: f64,
    momentum: f64,
}

#[differentiable]
fn kick(x: f64, p: f64, dt: f64) -> Body {
    Body {
        position: x + dt * p,
        momentum: p - dt * x * x,
    }
}

#[differentiable]
fn hamiltonian(#[differentiable] b: &Body) -> f64 {
    0.5 * b.momentum * b.momentum + b.position.cos()
}

#[differentiable]
fn kicked(x: f64, p: f64, dt: f64) -> f64 {
    let b = kick(x, p, dt);
    let c = b.clone();
    hamiltonian(&b) + c.position * b.momentum
}

#[differentiable]
fn kicked_fields(x: f64, p: f64, dt: f64) -> f64 {
    let b = kick(x, p, dt);
    let whole = Body {
        position: b.position,
        momentum: b.momentum,
    };
    hamiltonian(&whole) + b.position * b.momentum
}

#[test]
fn a_struct_that_is_not_copy() {
    three!(kicked).check_with_second_order(&P);
    same_bits(faces!(kicked), faces!(kicked_fields), &P);
}

// ----- methods -----

#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Spring {
    k: f64,
}

#[differentiable]
impl Spring {
    #[differentiable]
    fn step(&self, x: f64, v: f64, dt: f64) -> State {
        State {
            x: x + dt * v,
            v: v - dt * self.k * x,
        }
    }

    #[differentiable]
    fn energy(&self, #[differentiable] s: &State) -> f64 {
        0.5 * (self.k * s.x * s.x + s.v * s.v)
    }

    /// Two steps, the state returned on whole.
    #[differentiable]
    fn twice(&self, x: f64, v: f64, dt: f64) -> State {
        let s = self.step(x, v, dt);
        self.step(s.x, s.v, dt)
    }
}

/// A method's struct result held whole and passed on to another method.
#[differentiable]
fn spring_energy(x: f64, v: f64, dt: f64) -> f64 {
    let spring = Spring { k: 3.0 };
    let s = spring.step(x, v, dt);
    spring.energy(&s) * s.x
}

#[differentiable]
fn spring_energy_fields(x: f64, v: f64, dt: f64) -> f64 {
    let spring = Spring { k: 3.0 };
    let s = spring.step(x, v, dt);
    let t = State { x: s.x, v: s.v };
    spring.energy(&t) * s.x
}

/// A method returning a struct result on whole, held whole by its caller.
#[differentiable]
fn spring_twice(x: f64, v: f64, dt: f64) -> f64 {
    let spring = Spring { k: 3.0 };
    let s = spring.twice(x, v, dt);
    spring.energy(&s)
}

#[differentiable]
fn spring_twice_fields(x: f64, v: f64, dt: f64) -> f64 {
    let spring = Spring { k: 3.0 };
    let first = spring.step(x, v, dt);
    let s = spring.step(first.x, first.v, dt);
    spring.energy(&State { x: s.x, v: s.v })
}

/// The receiver a parameter (calls of its methods are replayed in `grad`, `grad_into`),
/// the struct result held whole passed to another of its methods, and used in a loop.
#[differentiable]
fn spring_of_a_parameter(spring: &Spring, x: f64, v: f64, dt: f64) -> f64 {
    let mut s = spring.step(x, v, dt);
    let mut total = spring.energy(&s);
    for _ in 0..5 {
        s = spring.twice(s.x, s.v, dt);
        total += spring.energy(&s) * dt;
    }
    total + s.x
}

#[differentiable]
fn spring_of_a_parameter_fields(spring: &Spring, x: f64, v: f64, dt: f64) -> f64 {
    let first = spring.step(x, v, dt);
    let mut s = State {
        x: first.x,
        v: first.v,
    };
    let mut total = spring.energy(&s);
    for _ in 0..5 {
        let next = spring.twice(s.x, s.v, dt);
        s = State {
            x: next.x,
            v: next.v,
        };
        total += spring.energy(&s) * dt;
    }
    total + s.x
}

#[test]
fn methods_of_a_parameter_receiver() {
    let spring = Spring { k: 2.5 };
    let case = Case {
        name: "spring_of_a_parameter",
        itself: &|p| spring_of_a_parameter(&spring, p[0], p[1], p[2]),
        primal: &|p| spring_of_a_parameter::primal(&spring, p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, g) = spring_of_a_parameter::grad(&spring, p[0], p[1], p[2]);
            (value, g.to_vec())
        }),
        grad_into: &|p| {
            let (value, pullback) = spring_of_a_parameter::vjp(&spring, p[0], p[1], p[2]);
            let (_, a, b, c) = pullback(1.0);
            (value, vec![a.unwrap(), b.unwrap(), c.unwrap()])
        },
        jvp: &|p, t| spring_of_a_parameter::jvp(&spring, p[0], p[1], p[2], t[0], t[1], t[2]),
    };
    case.check_with_second_order(&P);
    let (value, g) = spring_of_a_parameter::grad(&spring, P[0], P[1], P[2]);
    let (same, expected) = spring_of_a_parameter_fields::grad(&spring, P[0], P[1], P[2]);
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(g.map(f64::to_bits), expected.map(f64::to_bits));
    assert_eq!(
        spring_of_a_parameter_fields(&spring, P[0], P[1], P[2]).to_bits(),
        value.to_bits()
    );
}

#[test]
fn methods_returning_a_struct_held_whole() {
    three!(spring_energy).check_with_second_order(&P);
    same_bits(faces!(spring_energy), faces!(spring_energy_fields), &P);
    three!(spring_twice).check_with_second_order(&P);
    same_bits(faces!(spring_twice), faces!(spring_twice_fields), &P);
    // the method's own pullback takes a value of the struct
    let spring = Spring { k: 3.0 };
    let (value, pullback) = spring.twice_vjp(P[0], P[1], P[2]);
    assert_eq!(value, spring.twice(P[0], P[1], P[2]));
    let (_, dx, dv, ddt) = pullback(State { x: 1.0, v: 0.0 });
    let row = [dx.unwrap(), dv.unwrap(), ddt.unwrap()];
    let expected = common::central_differences(&|p| spring.twice(p[0], p[1], p[2]).x, &P);
    for j in 0..3 {
        assert!(
            common::close(row[j], expected[j], 1e-6),
            "{} vs {}",
            row[j],
            expected[j]
        );
    }
}

// ----- returned on -----

/// A struct result returned on whole, bound first (the form under test, as written).
#[differentiable]
#[allow(clippy::let_and_return)]
fn relay(x: f64, v: f64, dt: f64) -> State {
    let s = euler(x, v, dt);
    s
}

/// A struct result returned on as the call itself.
#[differentiable]
fn relay_call(x: f64, v: f64, dt: f64) -> State {
    euler(x, v, dt)
}

/// Steps in a loop, the state returned on.
#[differentiable]
fn advance(x: f64, v: f64, dt: f64) -> State {
    let mut s = euler(x, v, dt);
    for _ in 0..10 {
        s = step(&s, dt);
    }
    s
}

/// The same returned as a literal of its fields (the form differentiated before).
#[differentiable]
fn advance_fields(x: f64, v: f64, dt: f64) -> State {
    let mut s = euler(x, v, dt);
    for _ in 0..10 {
        s = step(&s, dt);
    }
    State { x: s.x, v: s.v }
}

/// A caller of [`advance`] reading its result by field.
#[differentiable]
fn advanced_energy(x: f64, v: f64, dt: f64) -> f64 {
    let s = advance(x, v, dt);
    s.x * s.x + 0.5 * s.v * s.v
}

#[differentiable]
fn advanced_energy_fields(x: f64, v: f64, dt: f64) -> f64 {
    let s = advance_fields(x, v, dt);
    s.x * s.x + 0.5 * s.v * s.v
}

/// The whole Jacobian of a struct-valued `f(a, b, c)` of three floats: each row (the
/// pullback of a unit cotangent) against central differences, each column (`jvp`) against
/// the rows, and to the bit against `same`.
macro_rules! jacobian_of_a_state {
    ($f:ident, $same:ident, $p:expr) => {{
        let p: [f64; 3] = $p;
        let flat = |s: State| [s.x, s.v];
        let primal = |p: &[f64]| flat($f::primal(p[0], p[1], p[2]));
        assert_eq!(flat($f(p[0], p[1], p[2])), primal(&p));
        assert_eq!(flat($same(p[0], p[1], p[2])), primal(&p));
        for (i, w) in [State { x: 1.0, v: 0.0 }, State { x: 0.0, v: 1.0 }]
            .into_iter()
            .enumerate()
        {
            let (value, pullback) = $f::vjp(p[0], p[1], p[2]);
            assert_eq!(flat(value), primal(&p));
            let (a, b, c) = pullback(w);
            let row = [a.unwrap(), b.unwrap(), c.unwrap()];
            let expected = common::central_differences(&|p| primal(p)[i], &p);
            for j in 0..3 {
                assert!(
                    common::close(row[j], expected[j], 1e-6),
                    "{}: d out{i} / d in{j} = {}, central differences {}",
                    stringify!($f),
                    row[j],
                    expected[j]
                );
            }
            let (same_value, same_pullback) = $same::vjp(p[0], p[1], p[2]);
            assert_eq!(
                flat(same_value).map(f64::to_bits),
                flat(value).map(f64::to_bits)
            );
            let (sa, sb, sc) = same_pullback(w);
            assert_eq!(
                [sa.unwrap(), sb.unwrap(), sc.unwrap()].map(f64::to_bits),
                row.map(f64::to_bits)
            );
            for j in 0..3 {
                let t: Vec<f64> = (0..3).map(|k| f64::from(k == j)).collect();
                let (value, tangent) = $f::jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
                assert_eq!(flat(value), primal(&p));
                assert!(common::close(flat(tangent)[i], row[j], 1e-12));
            }
        }
    }};
}

#[test]
fn a_struct_result_returned_on() {
    jacobian_of_a_state!(relay, euler, P);
    jacobian_of_a_state!(relay_call, euler, P);
    jacobian_of_a_state!(advance, advance_fields, P);
    // second order through a caller, and to the bit against the literal's
    three!(advanced_energy).check_with_second_order(&P);
    same_bits(faces!(advanced_energy), faces!(advanced_energy_fields), &P);
}

// ----- a struct of `f32` from marked structs alone -----

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct Narrow {
    x: f32,
    v: f32,
}

/// No parameter names the float type: it is the struct's own (`f32`), not `f64`.
#[differentiable]
fn swapped(#[differentiable] s: &Narrow) -> Narrow {
    Narrow {
        x: s.v * 2.0,
        v: s.x * s.v,
    }
}

/// A caller of it holding the result whole and passing it on.
#[differentiable]
fn swapped_twice(x: f32, v: f32) -> f32 {
    let s = swapped(&Narrow { x, v });
    let t = swapped(&s);
    t.x + t.v
}

#[test]
fn the_float_type_of_a_struct_alone() {
    let s = Narrow { x: 1.5, v: -0.5 };
    let (value, pullback) = swapped::vjp(&s);
    assert_eq!(value, swapped(&s));
    assert_eq!(value, Narrow { x: -1.0, v: -0.75 });
    // the Jacobian [[0, 2], [v, x]], row by row
    let row_x = pullback(Narrow { x: 1.0, v: 0.0 }).0.unwrap();
    assert_eq!(row_x, Narrow { x: 0.0, v: 2.0 });
    let row_v = pullback(Narrow { x: 0.0, v: 1.0 }).0.unwrap();
    assert_eq!(row_v, Narrow { x: -0.5, v: 1.5 });
    let (same, tangent) = swapped::jvp(&s, &Narrow { x: 1.0, v: 0.0 });
    assert_eq!(same, value);
    assert_eq!(tangent, Narrow { x: 0.0, v: -0.5 });
    // the caller: t = swapped(s), s = swapped((x, v)); t.x + t.v = 2 s.v + s.x s.v with
    // s = (2v, x v): 2 x v + 2 x v² ; d/dx = 2v + 2v², d/dv = 2x + 4 x v
    let (x, v) = (0.75_f32, -1.25_f32);
    let (value, g) = swapped_twice::grad(x, v);
    assert_eq!(value, swapped_twice(x, v));
    assert!((value - (2.0 * x * v + 2.0 * x * v * v)).abs() < 1e-5);
    assert!((g[0] - (2.0 * v + 2.0 * v * v)).abs() < 1e-5, "{}", g[0]);
    assert!((g[1] - (2.0 * x + 4.0 * x * v)).abs() < 1e-5, "{}", g[1]);
    let (_, tangent) = swapped_twice::jvp(x, v, 0.0, 1.0);
    assert!((tangent - g[1]).abs() < 1e-5);
}

/// A struct of `f32` from an `f64` parameter: its float type is the struct's own, the
/// parameter's value cast to it (a differentiable cast).
#[differentiable]
fn narrowed(x: f64, k: f32) -> Narrow {
    Narrow {
        x: (x * x) as f32,
        v: k * x as f32,
    }
}

#[test]
fn a_struct_of_another_float_type_than_a_parameter() {
    let (x, k) = (0.75_f64, 2.5_f32);
    let (value, pullback) = narrowed::vjp(x, k);
    assert_eq!(value, narrowed(x, k));
    // x: d/dx = 2x (as f64), d/dk = 0; v: d/dx = k, d/dk = x
    let (dx, dk) = pullback(Narrow { x: 1.0, v: 0.0 });
    assert!((dx.unwrap() - 1.5).abs() < 1e-12);
    assert_eq!(dk, Some(0.0));
    let (dx, dk) = pullback(Narrow { x: 0.0, v: 1.0 });
    assert!((dx.unwrap() - 2.5).abs() < 1e-12);
    assert_eq!(dk, Some(0.75));
    let (_, tangent) = narrowed::jvp(x, k, 1.0, 0.0);
    assert_eq!(tangent, Narrow { x: 1.5, v: 2.5 });
}

// ----- a call passed on whole without a binding -----

#[differentiable]
fn norm_of_a_call(x: f64, v: f64, dt: f64) -> f64 {
    norm(&euler(x, v, dt)) + norm(&step(&euler(v, x, dt), dt))
}

#[differentiable]
fn norm_of_a_call_fields(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    let r = euler(v, x, dt);
    let t = step(&State { x: r.x, v: r.v }, dt);
    norm(&State { x: s.x, v: s.v }) + norm(&State { x: t.x, v: t.v })
}

#[test]
fn a_call_passed_on_whole() {
    three!(norm_of_a_call).check_with_second_order(&P);
    same_bits(faces!(norm_of_a_call), faces!(norm_of_a_call_fields), &P);
}

// ----- checkpointed, a method of the struct, a struct of constants -----

/// [`orbit`] with its loop checkpointed: the state held whole is the carried state the
/// snapshots keep.
#[differentiable(checkpoint)]
fn orbit_checkpointed(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = euler(x0, v0, dt);
    for _ in 0..25 {
        s = step(&s, dt);
    }
    norm(&s)
}

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct Oscillator {
    x: f64,
    v: f64,
}

#[differentiable]
fn kick_oscillator(x: f64, v: f64, dt: f64) -> Oscillator {
    Oscillator {
        x: x + dt * v,
        v: v - dt * x * x,
    }
}

#[differentiable]
impl Oscillator {
    /// The energy at stiffness `k`, `self` marked.
    #[differentiable]
    fn energy(#[differentiable] &self, k: f64) -> f64 {
        0.5 * (k * self.x * self.x + self.v * self.v)
    }
}

/// A method of the struct called on a result held whole.
#[differentiable]
fn method_on_a_result(x: f64, v: f64, k: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    s.energy(k) * s.v
}

/// The same with the method's body written out on the result's fields.
#[differentiable]
fn method_on_a_result_fields(x: f64, v: f64, k: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    0.5 * (k * s.x * s.x + s.v * s.v) * s.v
}

/// A struct result of constants (no tangent, no gradient) chosen by a branch beside one
/// of the parameters.
#[differentiable]
fn from_constants(x: f64, v: f64, dt: f64) -> f64 {
    let rest = euler(1.0, 0.0, 0.5);
    let s = if x > 0.0 { rest } else { euler(x, v, dt) };
    norm(&s) * v
}

#[test]
fn checkpointed_a_method_and_constants() {
    three!(orbit_checkpointed).check_with_second_order(&P);
    same_bits(faces!(orbit_checkpointed), faces!(orbit), &P);
    three!(method_on_a_result).check_with_second_order(&P);
    same_bits(
        faces!(method_on_a_result),
        faces!(method_on_a_result_fields),
        &P,
    );
    // both branches: the constant state's (d/dx = 0 but for the branch), the parameters'
    three!(from_constants).check_with_second_order(&P);
    three!(from_constants).check_with_second_order(&[-0.4, 0.7, 0.2]);
    let (value, g) = from_constants::grad(P[0], P[1], P[2]);
    let rest = euler(1.0, 0.0, 0.5);
    assert_eq!(value, norm(&rest) * P[1]);
    assert_eq!(g, [0.0, norm(&rest), 0.0]);
}

// ----- a method on a struct result chosen by a branch -----

/// A constant receiver whose method returns the struct.
struct Kicker {
    strength: f64,
}

#[differentiable]
impl Kicker {
    #[differentiable]
    fn kick(&self, x: f64, v: f64, dt: f64) -> Oscillator {
        Oscillator {
            x: x + dt * v,
            v: v - dt * self.strength * x,
        }
    }
}

/// A struct result chosen by an `if`, then the receiver of the struct's method.
#[differentiable]
fn method_on_a_branch(x: f64, v: f64, k: f64) -> f64 {
    let s = if x > 0.0 {
        kick_oscillator(x, v, 0.1)
    } else {
        kick_oscillator(v, x, 0.2)
    };
    s.energy(k) * s.v
}

/// The same with the method's body written out on the result's fields.
#[differentiable]
fn method_on_a_branch_fields(x: f64, v: f64, k: f64) -> f64 {
    let s = if x > 0.0 {
        kick_oscillator(x, v, 0.1)
    } else {
        kick_oscillator(v, x, 0.2)
    };
    0.5 * (k * s.x * s.x + s.v * s.v) * s.v
}

/// Methods' struct results chosen by a `match`, one through a copy of a held result, then
/// the receiver of the struct's method in a loop.
#[differentiable]
fn method_on_a_match(x: f64, v: f64, k: f64) -> f64 {
    let (soft, stiff) = (Kicker { strength: 0.5 }, Kicker { strength: 3.0 });
    let first = soft.kick(v, x, 0.3);
    let s = match (k * 10.0) as i64 % 3 {
        0 => soft.kick(x, v, 0.1),
        1 => stiff.kick(x, v, 0.1),
        _ => first,
    };
    let mut total = 0.0;
    for i in 0..3 {
        total += s.energy(k + i as f64);
    }
    total
}

#[differentiable]
fn method_on_a_match_fields(x: f64, v: f64, k: f64) -> f64 {
    let (soft, stiff) = (Kicker { strength: 0.5 }, Kicker { strength: 3.0 });
    let first = soft.kick(v, x, 0.3);
    let s = match (k * 10.0) as i64 % 3 {
        0 => soft.kick(x, v, 0.1),
        1 => stiff.kick(x, v, 0.1),
        _ => first,
    };
    let mut total = 0.0;
    for i in 0..3 {
        let k = k + i as f64;
        total += 0.5 * (k * s.x * s.x + s.v * s.v);
    }
    total
}

#[test]
fn a_method_on_a_result_chosen_by_a_branch() {
    // both branches of the `if`, each arm of the `match`
    for p in [P, [-0.4, 0.7, 0.2]] {
        three!(method_on_a_branch).check_with_second_order(&p);
        same_bits(
            faces!(method_on_a_branch),
            faces!(method_on_a_branch_fields),
            &p,
        );
    }
    for p in [[0.8, -0.3, 0.05], [0.8, -0.3, 0.12], [0.8, -0.3, 0.25]] {
        three!(method_on_a_match).check_with_second_order(&p);
        // the same value; the gradient to rounding only, since the struct's cotangent
        // from the three calls is summed field by field before it reaches the fields,
        // which the written-out body sums read by read
        let (value, g, tangent) = faces!(method_on_a_match)(&p);
        let (same, expected, same_tangent) = faces!(method_on_a_match_fields)(&p);
        assert_eq!(value.to_bits(), same.to_bits());
        for (g, e) in g
            .iter()
            .chain([&tangent])
            .zip(expected.iter().chain([&same_tangent]))
        {
            assert!(common::close(*g, *e, 1e-14), "{g} vs {e}");
        }
    }
}

// ----- a method's struct or tuple result on a differentiable struct, read by its parts -----

#[differentiable]
impl Oscillator {
    /// One step, `self` marked, the struct returned.
    #[differentiable]
    fn advance(#[differentiable] &self, dt: f64) -> Oscillator {
        Oscillator {
            x: self.x + dt * self.v,
            v: self.v - dt * self.x,
        }
    }

    /// Two values of the state, `self` marked.
    #[differentiable]
    fn stats(#[differentiable] &self, k: f64) -> (f64, f64) {
        (k * self.x, self.v * self.v)
    }
}

/// A struct result held whole, the receiver of a method whose struct result is read by
/// its fields (the call's parts).
#[differentiable]
fn advanced_by_fields(x: f64, v: f64, dt: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    let t = s.advance(dt);
    t.x * t.v + s.advance(2.0 * dt).x
}

#[differentiable]
fn advanced_by_fields_written_out(x: f64, v: f64, dt: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    let (tx, tv) = (s.x + dt * s.v, s.v - dt * s.x);
    tx * tv + (s.x + 2.0 * dt * s.v)
}

/// A method's tuple result destructured, of a held receiver, in a loop that replaces the
/// receiver by another method's result.
#[differentiable]
fn stats_in_a_loop(x: f64, v: f64, k: f64) -> f64 {
    let mut s = kick_oscillator(x, v, 0.1);
    let mut total = 0.0;
    for _ in 0..3 {
        let (a, b) = s.stats(k);
        total += a * b;
        s = s.advance(0.1);
    }
    total
}

/// [`stats_in_a_loop`] checkpointed: the held receiver is the snapshots' carried state.
#[differentiable(checkpoint)]
fn stats_checkpointed(x: f64, v: f64, k: f64) -> f64 {
    let mut s = kick_oscillator(x, v, 0.1);
    let mut total = 0.0;
    for _ in 0..3 {
        let (a, b) = s.stats(k);
        total += a * b;
        s = s.advance(0.1);
    }
    total
}

#[differentiable]
fn stats_in_a_loop_written_out(x: f64, v: f64, k: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    let (mut sx, mut sv) = (s.x, s.v);
    let mut total = 0.0;
    for _ in 0..3 {
        let (a, b) = (k * sx, sv * sv);
        total += a * b;
        (sx, sv) = (sx + 0.1 * sv, sv - 0.1 * sx);
    }
    total
}

/// The same calls on a marked parameter.
#[differentiable]
fn of_a_marked_oscillator(#[differentiable] s: &Oscillator, k: f64) -> f64 {
    let t = s.advance(0.2);
    let (a, b) = s.stats(k);
    t.x * t.v + a * b
}

/// [`of_a_marked_oscillator`] called on a held result (through its every face).
#[differentiable]
fn marked_oscillator_caller(x: f64, v: f64, k: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    of_a_marked_oscillator(&s, k)
}

#[differentiable]
fn marked_oscillator_written_out(x: f64, v: f64, k: f64) -> f64 {
    let s = kick_oscillator(x, v, 0.1);
    let (tx, tv) = (s.x + 0.2 * s.v, s.v - 0.2 * s.x);
    tx * tv + k * s.x * (s.v * s.v)
}

#[test]
fn a_methods_parts_on_a_differentiable_struct() {
    three!(advanced_by_fields).check_with_second_order(&P);
    three!(stats_in_a_loop).check_with_second_order(&P);
    three!(stats_checkpointed).check_with_second_order(&P);
    same_bits(faces!(stats_checkpointed), faces!(stats_in_a_loop), &P);
    three!(marked_oscillator_caller).check_with_second_order(&P);
    // against the bodies written out, to rounding: the struct's cotangent is summed field
    // by field before it reaches the fields, which the written-out forms sum read by read
    for (f, written_out) in [
        (
            faces!(advanced_by_fields) as &ValueGradientTangent,
            faces!(advanced_by_fields_written_out) as &ValueGradientTangent,
        ),
        (faces!(stats_in_a_loop), faces!(stats_in_a_loop_written_out)),
        (
            faces!(marked_oscillator_caller),
            faces!(marked_oscillator_written_out),
        ),
    ] {
        let (value, g, tangent) = f(&P);
        let (same, expected, same_tangent) = written_out(&P);
        assert!(common::close(value, same, 1e-14), "{value} vs {same}");
        for (g, e) in g
            .iter()
            .chain([&tangent])
            .zip(expected.iter().chain([&same_tangent]))
        {
            assert!(common::close(*g, *e, 1e-13), "{g} vs {e}");
        }
    }
    // the marked parameter's own gradient, a value of the struct, against differences
    let s = Oscillator { x: 0.6, v: -0.4 };
    let (value, (d_s, d_k)) = of_a_marked_oscillator::grad(&s, 1.5);
    assert_eq!(value, of_a_marked_oscillator(&s, 1.5));
    let at = |x: f64, v: f64, k: f64| of_a_marked_oscillator(&Oscillator { x, v }, k);
    let expected = common::central_differences(&|p| at(p[0], p[1], p[2]), &[0.6, -0.4, 1.5]);
    for (g, e) in [d_s.x, d_s.v, d_k].iter().zip(&expected) {
        assert!(common::close(*g, *e, 1e-6), "{g} vs {e}");
    }
    let (_, tangent) = of_a_marked_oscillator::jvp(&s, 1.5, &Oscillator { x: 0.3, v: -0.2 }, 0.5);
    let dot = 0.3 * d_s.x - 0.2 * d_s.v + 0.5 * d_k;
    assert!(common::close(tangent, dot, 1e-12), "{tangent} vs {dot}");
    let (mut into_s, mut into_k) = (Oscillator { x: 0.0, v: 0.0 }, 0.0);
    let by_into = of_a_marked_oscillator::grad_into(&s, 1.5, &mut into_s, &mut into_k);
    assert_eq!(by_into.to_bits(), value.to_bits());
    for (a, b) in [into_s.x, into_s.v, into_k].iter().zip([d_s.x, d_s.v, d_k]) {
        assert!(common::close(*a, b, 1e-14), "grad_into {a} vs grad {b}");
    }
    let (_, pullback) = of_a_marked_oscillator::vjp(&s, 1.5);
    let (by_vjp, by_vjp_k) = pullback(1.0);
    let by_vjp = by_vjp.expect("a path from the struct");
    for (a, b) in [by_vjp.x, by_vjp.v, by_vjp_k.unwrap()]
        .iter()
        .zip([d_s.x, d_s.v, d_k])
    {
        assert!(common::close(*a, b, 1e-14), "{a} vs {b}");
    }
}

// ----- a marked `self` read only by the result's literal -----

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct Phase {
    x: f64,
    v: f64,
}

#[differentiable]
impl Phase {
    /// The fields swapped, one scaled: `self.v` is read by the literal alone (each field
    /// goes through the twin's conversion, which must still take it for a float read).
    #[differentiable]
    fn swapped(#[differentiable] &self, k: f64) -> Phase {
        Phase {
            x: self.v,
            v: self.x * k,
        }
    }
}

/// The same of a marked parameter, in a function.
#[differentiable]
fn swapped_phase(#[differentiable] s: &Phase, k: f64) -> Phase {
    Phase { x: s.v, v: s.x * k }
}

#[test]
fn a_marked_self_read_by_the_literal_alone() {
    let s = Phase { x: 1.5, v: -0.5 };
    let (value, pullback) = swapped_phase::vjp(&s, 3.0);
    assert_eq!(value, swapped_phase(&s, 3.0));
    let (d_s, d_k) = pullback(Phase { x: 1.0, v: 1.0 });
    assert_eq!((d_s, d_k), (Some(Phase { x: 3.0, v: 1.0 }), Some(1.5)));
    let (value, pullback) = s.swapped_vjp(3.0);
    assert_eq!(value, s.swapped(3.0));
    assert_eq!(value, Phase { x: -0.5, v: 4.5 });
    // the Jacobian in (self.x, self.v, k): x' = v, v' = x k
    let (d_self, d_k) = pullback(Phase { x: 1.0, v: 0.0 });
    assert_eq!((d_self, d_k), (Some(Phase { x: 0.0, v: 1.0 }), Some(0.0)));
    let (d_self, d_k) = pullback(Phase { x: 0.0, v: 1.0 });
    assert_eq!((d_self, d_k), (Some(Phase { x: 3.0, v: 0.0 }), Some(1.5)));
    let (_, tangent) = s.swapped_jvp(3.0, &Phase { x: 1.0, v: 0.0 }, 0.0);
    assert_eq!(tangent, Phase { x: 0.0, v: 3.0 });
}
