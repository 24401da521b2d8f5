//! Structs of floats as results (issue 13, "#[differentiable] on real Rust"): an annotated
//! function returning a struct (deriving `Differentiable`) built by a literal, its `vjp`'s
//! pullback taking the result's cotangent as a value of the struct and its `jvp` giving
//! the tangent as one; and annotated callers reading such a result by its fields (`let s =
//! step(..);`, then `s.x`), differentiated through the call.
//!
//! Every face is checked against central differences (the whole Jacobian: each row by the
//! pullback of a unit cotangent, each column by `jvp` along a unit tangent), at second
//! order as scalar mode has it (the gradient of `⟨w, f(x)⟩` for a fixed cotangent `w`
//! differenced against second differences), and to the bit against the same body
//! returning a tuple (the form differentiated before, which the struct's twin is), and a
//! checkpointed integrator to the bit against the plain one.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::close;
use common::faces::{Case, VectorFaces};
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct State {
    x: f64,
    v: f64,
}

impl State {
    fn flat(&self) -> Vec<f64> {
        vec![self.x, self.v]
    }
    fn from(x: &[f64]) -> State {
        State { x: x[0], v: x[1] }
    }
}

// ----- floats in, a struct out -----

/// One explicit-Euler step of a pendulum, the state built from the floats.
#[differentiable]
fn euler(x: f64, v: f64, dt: f64) -> State {
    State {
        x: x + dt * v,
        v: v - dt * x.sin(),
    }
}

/// The same body returning a tuple: what the struct's twin differentiates.
#[differentiable]
fn euler_tuple(x: f64, v: f64, dt: f64) -> (f64, f64) {
    (x + dt * v, v - dt * x.sin())
}

#[test]
fn floats_in_a_struct_out() {
    VectorFaces {
        name: "euler",
        itself: &|p| euler(p[0], p[1], p[2]).flat(),
        primal: &|p| euler::primal(p[0], p[1], p[2]).flat(),
        vjp: &|p, w| {
            let (value, pullback) = euler::vjp(p[0], p[1], p[2]);
            let (dx, dv, ddt) = pullback(State::from(w));
            (value.flat(), vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = euler::jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
            (value.flat(), tangent.flat())
        },
    }
    .check(&[0.7, -0.3, 0.1]);
}

#[test]
fn a_struct_result_is_its_tuple_to_the_bit() {
    let (x, v, dt) = (1.3, 0.4, 0.05);
    let (value, pullback) = euler::vjp(x, v, dt);
    let (tuple, tuple_pullback) = euler_tuple::vjp(x, v, dt);
    assert_eq!((value.x, value.v), tuple);
    for w in [[1.0, 0.0], [0.0, 1.0], [0.3, -2.0]] {
        let by_struct = pullback(State::from(&w));
        let by_tuple = tuple_pullback((Some(w[0]), Some(w[1])));
        assert_eq!(by_struct, by_tuple);
    }
    let (value, tangent) = euler::jvp(x, v, dt, 0.5, -1.0, 2.0);
    let (tuple, tuple_tangent) = euler_tuple::jvp(x, v, dt, 0.5, -1.0, 2.0);
    assert_eq!(
        ((value.x, value.v), (tangent.x, tangent.v)),
        (tuple, tuple_tangent)
    );
    // the function and its primal are the body as written
    assert_eq!(euler(x, v, dt), euler::primal(x, v, dt));
    assert_eq!((value.x, value.v), euler_tuple(x, v, dt));
    assert!(euler::GENERATED.contains("pub fn vjp"));
}

// ----- a marked struct in, a struct out -----

/// One step of a harmonic oscillator, the state taken as a struct of floats.
#[differentiable]
fn step(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.x + dt * s.v,
        v: s.v - dt * s.x * s.x.cos(),
    }
}

/// The [`VectorFaces`] of `$f`, an annotated `fn(&State, f64) -> State`: the state and the step
/// as one flat input `[x, v, dt]`.
macro_rules! step_faces {
    ($f:ident) => {
        VectorFaces {
            name: stringify!($f),
            itself: &|p| $f(&State::from(p), p[2]).flat(),
            primal: &|p| $f::primal(&State::from(p), p[2]).flat(),
            vjp: &|p, w| {
                let (value, pullback) = $f::vjp(&State::from(p), p[2]);
                let (d_s, d_dt) = pullback(State::from(w));
                let d_s = d_s.unwrap();
                (value.flat(), vec![d_s.x, d_s.v, d_dt.unwrap()])
            },
            jvp: &|p, t| {
                let (value, tangent) = $f::jvp(&State::from(p), p[2], &State::from(t), t[2]);
                (value.flat(), tangent.flat())
            },
        }
    };
}

#[test]
fn a_struct_in_a_struct_out() {
    step_faces!(step).check(&[0.9, 0.2, 0.1]);
}

/// A field of the marked struct returned as it is (`v: s.v`): its read is checked through
/// the result's conversion at the result's field (one message for a field of another
/// type, `tests/ui/differentiable/struct-mixing-float-types.rs`), and differentiated as
/// any read is.
#[differentiable]
fn drift(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.x + dt * s.v * s.x.cos(),
        v: s.v,
    }
}

/// [`drift`] with that field read in arithmetic (`s.v * 1.0`, the same bits), checked
/// at the read as any float field is.
#[differentiable]
#[allow(dead_code)] // its companion items are what is compared
fn drift_read(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.x + dt * s.v * s.x.cos(),
        v: s.v * 1.0,
    }
}

/// `$f` and `$read` (`fn(&State, f64) -> State`, the same arithmetic written two ways)
/// agree to the bit: values, pullbacks of three cotangents, and tangents.
macro_rules! assert_same_bits {
    ($f:ident, $read:ident) => {{
        let (p, t) = ([0.9, 0.2, 0.1], [0.3, -0.7, 0.5]);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for w in [[1.0, 0.0], [0.0, 1.0], [0.25, -1.5]] {
            let (value, pullback) = $f::vjp(&State::from(&p), p[2]);
            let (same, read_pullback) = $read::vjp(&State::from(&p), p[2]);
            assert_eq!(bits(&value.flat()), bits(&same.flat()));
            let (d_s, d_dt) = pullback(State::from(&w));
            let (read_s, read_dt) = read_pullback(State::from(&w));
            let (d_s, read_s) = (d_s.unwrap(), read_s.unwrap());
            assert_eq!(
                bits(&[d_s.x, d_s.v, d_dt.unwrap()]),
                bits(&[read_s.x, read_s.v, read_dt.unwrap()]),
                "the pullback of {w:?}"
            );
        }
        let (value, tangent) = $f::jvp(&State::from(&p), p[2], &State::from(&t), t[2]);
        let (same, read_tangent) = $read::jvp(&State::from(&p), p[2], &State::from(&t), t[2]);
        assert_eq!(bits(&value.flat()), bits(&same.flat()));
        assert_eq!(bits(&tangent.flat()), bits(&read_tangent.flat()));
    }};
}

#[test]
fn a_field_returned_as_it_is() {
    step_faces!(drift).check(&[0.9, 0.2, 0.1]);
    // to the bit the same field read in arithmetic: values, pullbacks and tangents
    assert_same_bits!(drift, drift_read);
}

/// Fields of the marked struct returned crossed (`x: s.v`, a plain read, and `v` from
/// `s.x`): each read is checked through the result's conversion at the result's field of
/// its name (one message for a field of another type,
/// `tests/ui/differentiable/struct-result-crossed-fields.rs`), and differentiated as any
/// read is; to the bit the same reads in arithmetic.
#[differentiable]
fn swap(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.v,
        v: s.x - dt * s.v,
    }
}

#[differentiable]
#[allow(dead_code)] // its companion items are what is compared
fn swap_read(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.v * 1.0,
        v: s.x - dt * s.v,
    }
}

/// The same crossing on a marked `self`: a method of an annotated `impl` block returning
/// `Self` by name (`-> Turned`), and one annotated alone (its block is not).
#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct Turned {
    x: f64,
    v: f64,
}

#[differentiable]
impl Turned {
    #[differentiable]
    fn turned(#[differentiable] &self, k: f64) -> Turned {
        Turned {
            x: self.v,
            v: self.x * k,
        }
    }
}

impl Turned {
    #[differentiable]
    fn turned_alone(#[differentiable] &self, k: f64) -> Turned {
        Turned {
            x: self.v * k,
            v: self.x,
        }
    }
}

#[test]
fn fields_returned_crossed() {
    step_faces!(swap).check(&[0.9, 0.2, 0.1]);
    assert_same_bits!(swap, swap_read);
    // a marked `self`, in an annotated block and alone
    let turned = |p: &[f64]| Turned { x: p[0], v: p[1] };
    let flat = |t: Turned| vec![t.x, t.v];
    VectorFaces {
        name: "turned",
        itself: &|p| flat(turned(p).turned(p[2])),
        primal: &|p| flat(turned(p).turned(p[2])),
        vjp: &|p, w| {
            let (value, pullback) = turned(p).turned_vjp(p[2]);
            let (d_s, d_k) = pullback(turned(w));
            let d_s = d_s.unwrap();
            (flat(value), vec![d_s.x, d_s.v, d_k.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = turned(p).turned_jvp(p[2], &turned(t), t[2]);
            (flat(value), flat(tangent))
        },
    }
    .check(&[0.9, 0.2, 1.3]);
    VectorFaces {
        name: "turned_alone",
        itself: &|p| flat(turned(p).turned_alone(p[2])),
        primal: &|p| flat(turned(p).turned_alone(p[2])),
        vjp: &|p, w| {
            let (value, pullback) = turned(p).turned_alone_vjp(p[2]);
            let (d_s, d_k) = pullback(turned(w));
            let d_s = d_s.unwrap();
            (flat(value), vec![d_s.x, d_s.v, d_k.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = turned(p).turned_alone_jvp(p[2], &turned(t), t[2]);
            (flat(value), flat(tangent))
        },
    }
    .check(&[0.9, 0.2, 1.3]);
}
/// The same step returning a tuple: a marked struct with a tuple result, which the struct
/// result's twin is.
#[differentiable]
fn step_tuple(#[differentiable] s: &State, dt: f64) -> (f64, f64) {
    (s.x + dt * s.v, s.v - dt * s.x * s.x.cos())
}

#[test]
fn a_struct_in_a_tuple_out() {
    VectorFaces {
        name: "step_tuple",
        itself: &|p| {
            let (x, v) = step_tuple(&State::from(p), p[2]);
            vec![x, v]
        },
        primal: &|p| {
            let (x, v) = step_tuple::primal(&State::from(p), p[2]);
            vec![x, v]
        },
        vjp: &|p, w| {
            let ((x, v), pullback) = step_tuple::vjp(&State::from(p), p[2]);
            let (d_s, d_dt) = pullback((Some(w[0]), Some(w[1])));
            let d_s = d_s.unwrap();
            (vec![x, v], vec![d_s.x, d_s.v, d_dt.unwrap()])
        },
        jvp: &|p, t| {
            let ((x, v), (tx, tv)) = step_tuple::jvp(&State::from(p), p[2], &State::from(t), t[2]);
            (vec![x, v], vec![tx, tv])
        },
    }
    .check(&[0.9, 0.2, 0.1]);
    // the struct result is this tuple, to the bit
    let s = State { x: 0.9, v: 0.2 };
    let (value, pullback) = step::vjp(&s, 0.1);
    let (tuple, tuple_pullback) = step_tuple::vjp(&s, 0.1);
    assert_eq!((value.x, value.v), tuple);
    let (d_s, d_dt) = pullback(State { x: 0.3, v: -1.2 });
    let (t_s, t_dt) = tuple_pullback((Some(0.3), Some(-1.2)));
    assert_eq!((d_s, d_dt), (t_s, t_dt));
}

// ----- control flow: early returns, branches, match -----

/// A ball bouncing off the floor at 0 and a wall at `wall`: three literals, one behind a
/// `return`, one in a `match` arm.
#[differentiable]
fn bounce(x: f64, v: f64, wall: f64, mode: u8) -> State {
    if x < 0.0 {
        return State { x: -x, v: -0.9 * v };
    }
    match mode {
        0 => State {
            x: x + 0.1 * v,
            v: v * wall.tanh(),
        },
        _ => {
            let over = x - wall;
            if over > 0.0 {
                State {
                    x: wall - over,
                    v: -v,
                }
            } else {
                State {
                    x: x + 0.1 * v * wall,
                    v,
                }
            }
        }
    }
}

#[test]
fn returns_branches_and_arms() {
    // every path: the early return, the `match`'s first arm, the inner `if`'s two branches
    for (point, mode) in [
        ([-0.4, 0.3, 1.5], 1),
        ([0.4, 0.3, 1.5], 0),
        ([1.8, 0.3, 1.5], 1),
        ([0.4, -0.7, 1.5], 1),
    ] {
        VectorFaces {
            name: "bounce",
            itself: &|p| bounce(p[0], p[1], p[2], mode).flat(),
            primal: &|p| bounce::primal(p[0], p[1], p[2], mode).flat(),
            vjp: &|p, w| {
                let (value, pullback) = bounce::vjp(p[0], p[1], p[2], mode);
                let (dx, dv, dw, ()) = pullback(State::from(w));
                (
                    value.flat(),
                    vec![dx.unwrap_or(0.0), dv.unwrap_or(0.0), dw.unwrap_or(0.0)],
                )
            },
            jvp: &|p, t| {
                let (value, tangent) = bounce::jvp(p[0], p[1], p[2], mode, t[0], t[1], t[2]);
                (value.flat(), tangent.flat())
            },
        }
        .check(&point);
    }
}

// ----- one field -----

#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Energy {
    total: f64,
}

#[differentiable]
fn energy(x: f64, v: f64, k: f64) -> Energy {
    Energy {
        total: 0.5 * v * v + 0.5 * k * x * x,
    }
}

#[test]
fn a_struct_of_one_field() {
    VectorFaces {
        name: "energy",
        itself: &|p| vec![energy(p[0], p[1], p[2]).total],
        primal: &|p| vec![energy::primal(p[0], p[1], p[2]).total],
        vjp: &|p, w| {
            let (value, pullback) = energy::vjp(p[0], p[1], p[2]);
            let (dx, dv, dk) = pullback(Energy { total: w[0] });
            (
                vec![value.total],
                vec![dx.unwrap(), dv.unwrap(), dk.unwrap()],
            )
        },
        jvp: &|p, t| {
            let (value, tangent) = energy::jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
            (vec![value.total], vec![tangent.total])
        },
    }
    .check(&[0.6, -1.1, 2.5]);
}

// ----- generic over the float type -----

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

#[test]
fn generic_over_the_float_type() {
    VectorFaces {
        name: "to_polar",
        itself: &|p| {
            let q = to_polar(p[0], p[1]);
            vec![q.r, q.theta]
        },
        primal: &|p| {
            let q = to_polar::primal(p[0], p[1]);
            vec![q.r, q.theta]
        },
        vjp: &|p, w| {
            let (q, pullback) = to_polar::vjp(p[0], p[1]);
            let (dx, dy) = pullback(Polar {
                r: w[0],
                theta: w[1],
            });
            (vec![q.r, q.theta], vec![dx.unwrap(), dy.unwrap()])
        },
        jvp: &|p, t| {
            let (q, dq) = to_polar::jvp(p[0], p[1], t[0], t[1]);
            (vec![q.r, q.theta], vec![dq.r, dq.theta])
        },
    }
    .check(&[0.8, -0.6]);
    // at f32 too: d r / dx = x / r
    let (q, pullback) = to_polar::vjp(3.0_f32, 4.0);
    assert_eq!(q.r, 5.0);
    let (dx, _) = pullback(Polar { r: 1.0, theta: 0.0 });
    assert!((dx.unwrap() - 0.6).abs() < 1e-6);
}

/// [`to_polar`] at `f32` and at `f64`, not generic: a generic function's fields are
/// converted to its float type `T` (`generated::float_cast`, which `as` cannot name), the
/// same bits as these, whose fields need no conversion.
#[differentiable]
#[allow(dead_code)] // its companion items are what is compared
fn to_polar_f32(x: f32, y: f32) -> Polar<f32> {
    Polar {
        r: (x * x + y * y).sqrt(),
        theta: y.atan2(x),
    }
}

#[differentiable]
#[allow(dead_code)] // its companion items are what is compared
fn to_polar_f64(x: f64, y: f64) -> Polar<f64> {
    Polar {
        r: (x * x + y * y).sqrt(),
        theta: y.atan2(x),
    }
}

#[test]
fn generic_fields_are_the_concrete_ones_to_the_bit() {
    let (q, pullback) = to_polar::vjp(0.3_f32, -1.7);
    let (same, same_pullback) = to_polar_f32::vjp(0.3, -1.7);
    assert_eq!(q, same);
    let w = Polar {
        r: 0.7_f32,
        theta: -1.3,
    };
    let (dx, dy) = pullback(w);
    let (sx, sy) = same_pullback(w);
    assert_eq!(
        (dx.unwrap().to_bits(), dy.unwrap().to_bits()),
        (sx.unwrap().to_bits(), sy.unwrap().to_bits())
    );
    let (_, tangent) = to_polar::jvp(0.3_f32, -1.7, 0.4, 0.9);
    let (_, same_tangent) = to_polar_f32::jvp(0.3, -1.7, 0.4, 0.9);
    assert_eq!(
        (tangent.r.to_bits(), tangent.theta.to_bits()),
        (same_tangent.r.to_bits(), same_tangent.theta.to_bits())
    );
    let (q, pullback) = to_polar::vjp(0.3_f64, -1.7);
    let (same, same_pullback) = to_polar_f64::vjp(0.3, -1.7);
    assert_eq!(q, same);
    let w = Polar {
        r: 0.7_f64,
        theta: -1.3,
    };
    let (dx, dy) = pullback(w);
    let (sx, sy) = same_pullback(w);
    assert_eq!(
        (dx.unwrap().to_bits(), dy.unwrap().to_bits()),
        (sx.unwrap().to_bits(), sy.unwrap().to_bits())
    );
    let (_, tangent) = to_polar::jvp(0.3_f64, -1.7, 0.4, 0.9);
    let (_, same_tangent) = to_polar_f64::jvp(0.3, -1.7, 0.4, 0.9);
    assert_eq!(
        (tangent.r.to_bits(), tangent.theta.to_bits()),
        (same_tangent.r.to_bits(), same_tangent.theta.to_bits())
    );
}

// ----- annotated callers reading a struct result by its fields -----

/// The integrator: the state a struct local, replaced by each step's struct result.
#[differentiable]
fn simulate(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = State { x: x0, v: v0 };
    for _ in 0..40 {
        s = euler(s.x, s.v, dt);
    }
    s.x * s.x + 0.5 * s.v * s.v
}

/// The same with the tuple result, destructured: the form differentiated before.
#[differentiable]
fn simulate_tuple(x0: f64, v0: f64, dt: f64) -> f64 {
    let (mut x, mut v) = (x0, v0);
    for _ in 0..40 {
        (x, v) = euler_tuple(x, v, dt);
    }
    x * x + 0.5 * v * v
}

/// A result bound by `let` and read by field, one field only, in straight-line code and
/// in a branch; a marked struct passed on whole to `step` and its result read by field.
#[differentiable]
fn caller_forms(x: f64, v: f64, dt: f64) -> f64 {
    let first = euler(x, v, dt);
    let mut total = first.x * first.v;
    if first.x > 0.0 {
        let second = euler(first.v, first.x, dt);
        total += second.v.exp();
    }
    let only_x = euler(v, x, dt);
    let mut moved = euler(only_x.x, x, dt);
    moved.v += 2.0 * x;
    total + only_x.x * moved.v
}

/// A struct result shadowed by the next step's, which reads it, and a tuple result the
/// same way (`let s = f(s.x, s.v);`: the parts of the first are read up to the new `let`).
#[differentiable]
fn shadowed_steps(x: f64, v: f64, dt: f64) -> f64 {
    let s = euler(x, v, dt);
    let s = euler(s.x, s.v * s.x, dt);
    let p = euler_tuple(s.v, s.x, dt);
    let p = euler_tuple(p.1, p.0, dt);
    s.x * s.v + p.0 * p.1
}

/// The state a struct result replaced by each step's (`let mut s = euler(..);`, then `s =
/// euler(s.x, s.v, dt);`): the same steps as [`simulate`]'s with one more.
#[differentiable]
fn simulate_from_a_call(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = euler(x0, v0, dt);
    for _ in 0..39 {
        s = euler(s.x, s.v, dt);
    }
    s.x * s.x + 0.5 * s.v * s.v
}

#[test]
fn a_struct_result_replaced_by_another() {
    let p = [0.8, -0.2, 0.05];
    // 40 steps either way: the same operations, so the same bits
    let (value, g) = simulate_from_a_call::grad(p[0], p[1], p[2]);
    let (same, expected) = simulate::grad(p[0], p[1], p[2]);
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(g.map(f64::to_bits), expected.map(f64::to_bits));
    assert_eq!(
        simulate_from_a_call::jvp(p[0], p[1], p[2], 0.3, 0.2, -1.0),
        simulate::jvp(p[0], p[1], p[2], 0.3, 0.2, -1.0)
    );
    assert_eq!(
        simulate_from_a_call(p[0], p[1], p[2]).to_bits(),
        value.to_bits()
    );
}

#[test]
fn shadowed_results() {
    Case {
        name: "shadowed_steps",
        itself: &|p| shadowed_steps(p[0], p[1], p[2]),
        primal: &|p| shadowed_steps::primal(p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, g) = shadowed_steps::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        }),
        grad_into: &|p| {
            let (value, pullback) = shadowed_steps::vjp(p[0], p[1], p[2]);
            let (dx, dv, ddt) = pullback(1.0);
            (value, vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| shadowed_steps::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
    }
    .check_with_second_order(&[0.5, 0.9, 0.2]);
}

/// A field of the call itself, a struct pattern binding the fields (one left out), and a
/// struct of one field.
#[differentiable]
fn caller_patterns(x: f64, v: f64, dt: f64) -> f64 {
    let ahead = euler(x, v, dt).x * euler(v, x, dt).v;
    let State { x: a, v: b } = euler(x, ahead, dt);
    let State { v, .. } = euler(a, b, dt);
    // a struct of one field: the call's one part
    ahead + a * b + v + energy(a, v, 2.0).total
}

#[differentiable]
fn after_two_steps(#[differentiable] s0: &State, dt: f64) -> f64 {
    let s1 = step(s0, dt);
    let s2 = euler(s1.x, s1.v, dt);
    s2.x * s2.v + s1.v
}

#[test]
fn an_integrator_of_struct_results() {
    let case = Case {
        name: "simulate",
        itself: &|p| simulate(p[0], p[1], p[2]),
        primal: &|p| simulate::primal(p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, g) = simulate::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        }),
        grad_into: &|p| {
            let (value, g) = simulate::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        },
        jvp: &|p, t| simulate::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
    };
    let p = [0.8, -0.2, 0.05];
    case.check_with_second_order(&p);
    // to the bit against the tuple form
    let (value, g) = simulate::grad(p[0], p[1], p[2]);
    let (tuple_value, tuple_g) = simulate_tuple::grad(p[0], p[1], p[2]);
    assert_eq!(value.to_bits(), tuple_value.to_bits());
    assert_eq!(simulate(p[0], p[1], p[2]), simulate_tuple(p[0], p[1], p[2]));
    assert_eq!(g.map(f64::to_bits), tuple_g.map(f64::to_bits));
    let by_jvp = simulate::jvp(p[0], p[1], p[2], 0.3, -0.7, 1.1);
    let tuple_jvp = simulate_tuple::jvp(p[0], p[1], p[2], 0.3, -0.7, 1.1);
    assert_eq!(by_jvp, tuple_jvp);
}

#[test]
fn callers_read_struct_results_by_field() {
    // both sides of the branch
    for p in [[0.7, 0.4, 0.1], [-0.6, 0.3, 0.2]] {
        Case {
            name: "caller_forms",
            itself: &|p| caller_forms(p[0], p[1], p[2]),
            primal: &|p| caller_forms::primal(p[0], p[1], p[2]),
            grad: Some(&|p| {
                let (value, g) = caller_forms::grad(p[0], p[1], p[2]);
                (value, g.to_vec())
            }),
            grad_into: &|p| {
                let (value, pullback) = caller_forms::vjp(p[0], p[1], p[2]);
                let (dx, dv, ddt) = pullback(1.0);
                (value, vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
            },
            jvp: &|p, t| caller_forms::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
        }
        .check_with_second_order(&p);
    }
    Case {
        name: "caller_patterns",
        itself: &|p| caller_patterns(p[0], p[1], p[2]),
        primal: &|p| caller_patterns::primal(p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, g) = caller_patterns::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        }),
        grad_into: &|p| {
            let (value, pullback) = caller_patterns::vjp(p[0], p[1], p[2]);
            let (dx, dv, ddt) = pullback(1.0);
            (value, vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| caller_patterns::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
    }
    .check_with_second_order(&[0.3, 0.6, 0.1]);
    Case {
        name: "after_two_steps",
        itself: &|p| after_two_steps(&State::from(p), p[2]),
        primal: &|p| after_two_steps::primal(&State::from(p), p[2]),
        grad: Some(&|p| {
            let (value, (d_s, d_dt)) = after_two_steps::grad(&State::from(p), p[2]);
            (value, vec![d_s.x, d_s.v, d_dt])
        }),
        grad_into: &|p| {
            let (mut d_s, mut d_dt) = (State { x: 0.0, v: 0.0 }, 0.0);
            let value = after_two_steps::grad_into(&State::from(p), p[2], &mut d_s, &mut d_dt);
            (value, vec![d_s.x, d_s.v, d_dt])
        },
        jvp: &|p, t| after_two_steps::jvp(&State::from(p), p[2], &State::from(t), t[2]),
    }
    .check_with_second_order(&[0.5, -0.4, 0.1]);
}

#[test]
fn generated_code_reads_the_parts_by_field() {
    // the caller's forward code takes the struct result's fields as the call's parts, and
    // its adjoint hands the callee's pullback a zero of the struct with their cotangents
    let code = simulate::GENERATED;
    assert!(code.contains("(value.x, value.v)"), "{code}");
    assert!(code.contains("cotangent.x = part"), "{code}");
    assert!(code.contains("cotangent.v = part"), "{code}");
}

// ----- composition: struct results built from struct results, and checkpointed -----

/// Two steps in a loop, returned as a struct: the callee's pullback is boxed (a call in a
/// loop), which the struct result's `vjp` boxes in turn.
#[differentiable]
fn two_steps(x: f64, v: f64, dt: f64) -> State {
    let mut s = State { x, v };
    for _ in 0..2 {
        s = euler(s.x, s.v, dt);
    }
    State {
        x: s.x,
        v: s.v * s.x,
    }
}

/// [`simulate`] with its loop checkpointed: the same operations, so the same bits.
#[differentiable(checkpoint(snapshots = 4))]
fn simulate_checkpointed(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = State { x: x0, v: v0 };
    for _ in 0..40 {
        s = euler(s.x, s.v, dt);
    }
    s.x * s.x + 0.5 * s.v * s.v
}

#[test]
fn struct_results_compose() {
    VectorFaces {
        name: "two_steps",
        itself: &|p| two_steps(p[0], p[1], p[2]).flat(),
        primal: &|p| two_steps::primal(p[0], p[1], p[2]).flat(),
        vjp: &|p, w| {
            let (value, pullback) = two_steps::vjp(p[0], p[1], p[2]);
            let (dx, dv, ddt) = pullback(State::from(w));
            (value.flat(), vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = two_steps::jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
            (value.flat(), tangent.flat())
        },
    }
    .check(&[0.4, 0.9, 0.2]);
    let p = [0.8, -0.2, 0.05];
    let (value, g) = simulate::grad(p[0], p[1], p[2]);
    let (same, checkpointed) = simulate_checkpointed::grad(p[0], p[1], p[2]);
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(g.map(f64::to_bits), checkpointed.map(f64::to_bits));
    assert_eq!(
        simulate_checkpointed(p[0], p[1], p[2]).to_bits(),
        value.to_bits()
    );
}

// ----- a local struct passed whole: the integrator of the issue -----

/// [`step`]'s body over the floats as parameters of their own.
#[differentiable]
fn step_fields(x: f64, v: f64, dt: f64) -> State {
    State {
        x: x + dt * v,
        v: v - dt * x * x.cos(),
    }
}

#[differentiable]
fn norm(#[differentiable] s: &State) -> f64 {
    (s.x * s.x + s.v * s.v).sqrt()
}

/// The state a local struct passed whole to a step taking it marked, `s = step(&s, dt)`,
/// and to a function of it, `norm(&s)`.
#[differentiable]
fn integrate(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = State { x: x0, v: v0 };
    let mut path = 0.0;
    for _ in 0..30 {
        s = step(&s, dt);
        path += norm(&s) * dt;
    }
    path + s.x
}

/// The same over the floats.
#[differentiable]
fn integrate_fields(x0: f64, v0: f64, dt: f64) -> f64 {
    let (mut x, mut v) = (x0, v0);
    let mut path = 0.0;
    for _ in 0..30 {
        let s = step_fields(x, v, dt);
        (x, v) = (s.x, s.v);
        path += (x * x + v * v).sqrt() * dt;
    }
    path + x
}

#[test]
fn a_local_struct_passed_whole() {
    let case = Case {
        name: "integrate",
        itself: &|p| integrate(p[0], p[1], p[2]),
        primal: &|p| integrate::primal(p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, g) = integrate::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        }),
        grad_into: &|p| {
            let (value, pullback) = integrate::vjp(p[0], p[1], p[2]);
            let (dx, dv, ddt) = pullback(1.0);
            (value, vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| integrate::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
    };
    let p = [0.9, 0.3, 0.05];
    case.check_with_second_order(&p);
    let (value, g) = integrate::grad(p[0], p[1], p[2]);
    let (fields_value, fields_g) = integrate_fields::grad(p[0], p[1], p[2]);
    assert!(
        close(value, fields_value, 1e-14),
        "{value} vs {fields_value}"
    );
    assert_eq!(
        integrate(p[0], p[1], p[2]),
        integrate_fields(p[0], p[1], p[2])
    );
    // the struct is built again from the fields' locals, its cotangent read by field
    assert!(integrate::GENERATED.contains("StructEntry::field"));
    for (a, b) in g.iter().zip(&fields_g) {
        assert!(close(*a, *b, 1e-12), "{a} vs {b}");
    }
}

// ----- methods and associated functions returning a struct -----

/// A damped oscillator's constants, held by the methods (`self` constant or marked).
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Oscillator {
    k: f64,
    damping: f64,
}

#[differentiable]
impl Oscillator {
    /// One step, `self` constant.
    #[differentiable]
    fn step(&self, x: f64, v: f64, dt: f64) -> State {
        State {
            x: x + dt * v,
            v: v - dt * (self.k * x + self.damping * v),
        }
    }

    /// One step, `self` differentiable: its constants get their gradient.
    #[differentiable]
    fn step_marked(#[differentiable] &self, x: f64, v: f64, dt: f64) -> State {
        State {
            x: x + dt * v,
            v: v - dt * (self.k * x.sin() + self.damping * v),
        }
    }

    /// One step of a state passed whole, `self` constant.
    #[differentiable]
    fn advance(&self, #[differentiable] s: &State, dt: f64) -> State {
        State {
            x: s.x + dt * s.v,
            v: s.v - dt * self.k * s.x,
        }
    }

    /// The state at rest displaced by `x`: an associated function returning `Self`'s
    /// sibling struct.
    #[differentiable]
    fn displaced(x: f64, scale: f64) -> State {
        State {
            x: x * scale,
            v: 0.0 * x,
        }
    }
}

/// Callers of the methods: by field, a field of the call, a local struct replaced.
#[differentiable]
fn oscillate(x0: f64, v0: f64, dt: f64) -> f64 {
    let sim = Oscillator {
        k: 2.0,
        damping: 0.1,
    };
    let start = Oscillator::displaced(x0, 1.5);
    let mut s = State {
        x: start.x,
        v: v0 + start.v,
    };
    for _ in 0..20 {
        s = sim.step(s.x, s.v, dt);
    }
    let next = sim.step(s.x, s.v, dt);
    s = sim.advance(&s, dt);
    s.x * next.v + sim.step(next.x, s.x, dt).v
}

#[test]
fn methods_returning_a_struct() {
    let sim = Oscillator {
        k: 2.0,
        damping: 0.1,
    };
    VectorFaces {
        name: "Oscillator::step",
        itself: &|p| sim.step(p[0], p[1], p[2]).flat(),
        primal: &|p| sim.step_primal(p[0], p[1], p[2]).flat(),
        vjp: &|p, w| {
            let (value, pullback) = sim.step_vjp(p[0], p[1], p[2]);
            let ((), dx, dv, ddt) = pullback(State::from(w));
            (value.flat(), vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = sim.step_jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
            (value.flat(), tangent.flat())
        },
    }
    .check(&[0.6, -0.2, 0.1]);
    // `self` marked: its gradient a value of the struct, against central differences
    let (x, v, dt) = (0.6, -0.2, 0.1);
    let (value, pullback) = sim.step_marked_vjp(x, v, dt);
    assert_eq!(value, sim.step_marked(x, v, dt));
    let (d_self, _, _, _) = pullback(State { x: 0.0, v: 1.0 });
    let d_self = d_self.unwrap();
    let h = 1e-6;
    let at = |k: f64, damping: f64| Oscillator { k, damping }.step_marked(x, v, dt).v;
    let fd_k = (at(2.0 + h, 0.1) - at(2.0 - h, 0.1)) / (2.0 * h);
    let fd_damping = (at(2.0, 0.1 + h) - at(2.0, 0.1 - h)) / (2.0 * h);
    assert!(close(d_self.k, fd_k, 1e-7) && close(d_self.damping, fd_damping, 1e-7));
    let (_, tangent) = sim.step_marked_jvp(
        x,
        v,
        dt,
        &Oscillator {
            k: 1.0,
            damping: 0.0,
        },
        0.0,
        0.0,
        0.0,
    );
    assert!(close(tangent.v, fd_k, 1e-7));
    // the associated function
    let (value, pullback) = Oscillator::displaced_vjp(0.4, 1.5);
    assert_eq!(value, Oscillator::displaced(0.4, 1.5));
    assert_eq!(pullback(State { x: 1.0, v: 0.0 }), (Some(1.5), Some(0.4)));
    assert!(Oscillator::STEP_GENERATED.contains("fn __gradtape_result_step_vjp"));
    // an annotated caller of all three
    Case {
        name: "oscillate",
        itself: &|p| oscillate(p[0], p[1], p[2]),
        primal: &|p| oscillate::primal(p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, g) = oscillate::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        }),
        grad_into: &|p| {
            let (value, pullback) = oscillate::vjp(p[0], p[1], p[2]);
            let (dx, dv, ddt) = pullback(1.0);
            (value, vec![dx.unwrap(), dv.unwrap(), ddt.unwrap()])
        },
        jvp: &|p, t| oscillate::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
    }
    .check_with_second_order(&[0.7, 0.2, 0.05]);
}

// ----- a marked struct alone: the float type `f64` -----

/// The right-hand side of `x' = v`, `v' = -x³`: no float parameter names the float type,
/// which is then `f64` (the struct's, checked at each field).
#[differentiable]
fn rhs(#[differentiable] s: &State) -> State {
    State {
        x: s.v,
        v: -s.x * s.x * s.x,
    }
}

/// The same generic over the float type: its type parameter is the float type.
#[differentiable]
fn rhs_polar<T: num_traits::Float>(#[differentiable] q: &Polar<T>) -> Polar<T> {
    Polar {
        r: q.r * q.theta.cos(),
        theta: q.theta * q.r,
    }
}

#[test]
fn a_marked_struct_alone() {
    VectorFaces {
        name: "rhs",
        itself: &|p| rhs(&State::from(p)).flat(),
        primal: &|p| rhs::primal(&State::from(p)).flat(),
        vjp: &|p, w| {
            let (value, pullback) = rhs::vjp(&State::from(p));
            let (d_s,) = pullback(State::from(w));
            (value.flat(), d_s.unwrap().flat())
        },
        jvp: &|p, t| {
            let (value, tangent) = rhs::jvp(&State::from(p), &State::from(t));
            (value.flat(), tangent.flat())
        },
    }
    .check(&[0.8, -0.5]);
    let polar = |p: &[f64]| Polar {
        r: p[0],
        theta: p[1],
    };
    let flat = |q: Polar<f64>| vec![q.r, q.theta];
    VectorFaces {
        name: "rhs_polar",
        itself: &|p| flat(rhs_polar(&polar(p))),
        primal: &|p| flat(rhs_polar::primal(&polar(p))),
        vjp: &|p, w| {
            let (value, pullback) = rhs_polar::vjp(&polar(p));
            let (d_q,) = pullback(polar(w));
            (flat(value), flat(d_q.unwrap()))
        },
        jvp: &|p, t| {
            let (value, tangent) = rhs_polar::jvp(&polar(p), &polar(t));
            (flat(value), flat(tangent))
        },
    }
    .check(&[1.2, 0.4]);
    // at f32 through the type parameter
    let (value, _) = rhs_polar::vjp(&Polar {
        r: 2.0_f32,
        theta: 0.0,
    });
    assert_eq!(value, Polar { r: 2.0, theta: 0.0 });
}
