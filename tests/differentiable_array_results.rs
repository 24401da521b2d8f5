//! Arrays of floats as results (issue 13, "#[differentiable] on real Rust"): an annotated
//! function returning `[F; N]` (a literal, a local buffer, a repeat, a branch's value,
//! another call's result), its `vjp`'s pullback taking the result's cotangent as an array
//! and its `jvp` giving the tangent as one; and annotated callers indexing such a result
//! (`let c = cross(a, b);` then `c[i]`, `c.iter()`, `let [x, y, z] = ..`, `s = step(&s);`,
//! passed on whole), differentiated through the callee's writer.
//!
//! Every result's faces are checked as `differentiable_struct_results.rs` checks a
//! struct's (`VectorFaces`: each Jacobian row by the pullback against central differences,
//! each column by `jvp` against the rows, second order through `⟨w, f(x)⟩`), and every
//! caller through its faces against central differences at orders 1 and 2, and against
//! the same body run on dual numbers (`twice!`).

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::{Case, VectorFaces};
use gradtape::{Differentiable, differentiable};

/// An array from a flat slice.
fn array<const N: usize>(x: &[f64]) -> [f64; N] {
    std::array::from_fn(|k| x[k])
}

/// An `Option` of a gradient, as a `Vec` (`None` is a zero).
fn entry<const N: usize>(g: Option<[f64; N]>) -> Vec<f64> {
    g.map_or(vec![0.0; N], |g| g.to_vec())
}

// ----- results -----

/// A cross product, as a literal.
#[differentiable]
fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Polar to Cartesian, written into a local buffer returned by name.
#[differentiable]
fn polar(r: f64, t: f64) -> [f64; 2] {
    let mut out = [0.0; 2];
    out[0] = r * t.cos();
    out[1] = r * t.sin();
    out
}

/// A softmax of three, in loops over a local buffer.
#[differentiable]
fn softmax3(x: &[f64; 3]) -> [f64; 3] {
    let m = x[0].max(x[1]).max(x[2]);
    let mut e = [0.0; 3];
    let mut total = 0.0;
    for i in 0..3 {
        e[i] = (x[i] - m).exp();
        total += e[i];
    }
    for i in 0..3 {
        e[i] /= total;
    }
    e
}

/// One value repeated.
#[differentiable]
fn splat(x: f64) -> [f64; 3] {
    [x.sin() * x; 3]
}

/// A piecewise map with an early return: every result position an array.
#[differentiable]
fn fold_back(x: f64, y: f64) -> [f64; 2] {
    if x < 0.0 {
        return [-x, y * y];
    }
    if y > 1.0 { [x * y, y.ln()] } else { [x, x * y] }
}

/// A call's result returned, and one passed on whole to another call.
#[differentiable]
fn triple(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    cross(a, &cross(a, b))
}

/// Gravity towards the origin, generic over the float type.
#[differentiable]
fn gravity<T: gradtape::Float>(x: &[T; 3]) -> [T; 3] {
    let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let k = -T::one() / (r2 * r2.sqrt());
    [k * x[0], k * x[1], k * x[2]]
}

/// One element.
#[differentiable]
fn square_of<T: gradtape::Float>(x: T) -> [T; 1] {
    [x * x]
}

/// A harmonic oscillator's right-hand side.
#[differentiable]
fn oscillator(s: &[f64; 2], w: f64) -> [f64; 2] {
    [s[1], -w * w * s[0]]
}

/// One Runge–Kutta step, each stage's state a local array built from the last stage's
/// result.
#[differentiable]
fn rk4(s: &[f64; 2], w: f64, dt: f64) -> [f64; 2] {
    let k1 = oscillator(s, w);
    let s2 = [s[0] + 0.5 * dt * k1[0], s[1] + 0.5 * dt * k1[1]];
    let k2 = oscillator(&s2, w);
    let s3 = [s[0] + 0.5 * dt * k2[0], s[1] + 0.5 * dt * k2[1]];
    let k3 = oscillator(&s3, w);
    let s4 = [s[0] + dt * k3[0], s[1] + dt * k3[1]];
    let k4 = oscillator(&s4, w);
    let mut next = [0.0; 2];
    for i in 0..2 {
        next[i] = s[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
    next
}

#[test]
fn arrays_out() {
    VectorFaces {
        name: "cross",
        itself: &|p| cross(&array(p), &array(&p[3..])).to_vec(),
        primal: &|p| cross::primal(&array(p), &array(&p[3..])).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = cross::vjp(&array(p), &array(&p[3..]));
            let (da, db) = pullback(array(w));
            (value.to_vec(), [entry(da), entry(db)].concat())
        },
        jvp: &|p, t| {
            let (value, tangent) = cross::jvp(&array(p), &array(&p[3..]), &t[..3], &t[3..]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.3, -1.2, 2.0, 1.5, 0.7, -0.4]);
    VectorFaces {
        name: "polar",
        itself: &|p| polar(p[0], p[1]).to_vec(),
        primal: &|p| polar::primal(p[0], p[1]).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = polar::vjp(p[0], p[1]);
            let (dr, dt) = pullback(array(w));
            (value.to_vec(), vec![dr.unwrap(), dt.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = polar::jvp(p[0], p[1], t[0], t[1]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[1.7, 0.6]);
    VectorFaces {
        name: "softmax3",
        itself: &|p| softmax3(&array(p)).to_vec(),
        primal: &|p| softmax3::primal(&array(p)).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = softmax3::vjp(&array(p));
            let (dx,) = pullback(array(w));
            (value.to_vec(), entry(dx))
        },
        jvp: &|p, t| {
            let (value, tangent) = softmax3::jvp(&array(p), t);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.2, -0.9, 1.4]);
    VectorFaces {
        name: "splat",
        itself: &|p| splat(p[0]).to_vec(),
        primal: &|p| splat::primal(p[0]).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = splat::vjp(p[0]);
            let (dx,) = pullback(array(w));
            (value.to_vec(), vec![dx.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = splat::jvp(p[0], t[0]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.8]);
    for point in [[-0.7, 1.3], [0.4, 2.5], [0.9, 0.3]] {
        VectorFaces {
            name: "fold_back",
            itself: &|p| fold_back(p[0], p[1]).to_vec(),
            primal: &|p| fold_back::primal(p[0], p[1]).to_vec(),
            vjp: &|p, w| {
                let (value, pullback) = fold_back::vjp(p[0], p[1]);
                let (dx, dy) = pullback(array(w));
                (value.to_vec(), vec![dx.unwrap_or(0.0), dy.unwrap_or(0.0)])
            },
            jvp: &|p, t| {
                let (value, tangent) = fold_back::jvp(p[0], p[1], t[0], t[1]);
                (value.to_vec(), tangent.to_vec())
            },
        }
        .check(&point);
    }
    VectorFaces {
        name: "triple",
        itself: &|p| triple(&array(p), &array(&p[3..])).to_vec(),
        primal: &|p| triple::primal(&array(p), &array(&p[3..])).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = triple::vjp(&array(p), &array(&p[3..]));
            let (da, db) = pullback(array(w));
            (value.to_vec(), [entry(da), entry(db)].concat())
        },
        jvp: &|p, t| {
            let (value, tangent) = triple::jvp(&array(p), &array(&p[3..]), &t[..3], &t[3..]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.3, -1.2, 2.0, 1.5, 0.7, -0.4]);
    VectorFaces {
        name: "gravity",
        itself: &|p| gravity(&array::<3>(p)).to_vec(),
        primal: &|p| gravity::primal(&array::<3>(p)).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = gravity::vjp(&array::<3>(p));
            let (dx,) = pullback(array(w));
            (value.to_vec(), entry(dx))
        },
        jvp: &|p, t| {
            let (value, tangent) = gravity::jvp(&array::<3>(p), t);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.9, -0.4, 1.1]);
    VectorFaces {
        name: "square_of",
        itself: &|p| square_of(p[0]).to_vec(),
        primal: &|p| square_of::primal(p[0]).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = square_of::vjp(p[0]);
            let (dx,) = pullback(array(w));
            (value.to_vec(), vec![dx.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = square_of::jvp(p[0], t[0]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[1.3]);
    VectorFaces {
        name: "rk4",
        itself: &|p| rk4(&array(p), p[2], p[3]).to_vec(),
        primal: &|p| rk4::primal(&array(p), p[2], p[3]).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = rk4::vjp(&array(p), p[2], p[3]);
            let (ds, dw, ddt) = pullback(array(w));
            (
                value.to_vec(),
                [entry(ds), vec![dw.unwrap(), ddt.unwrap()]].concat(),
            )
        },
        jvp: &|p, t| {
            let (value, tangent) = rk4::jvp(&array(p), p[2], p[3], &t[..2], t[2], t[3]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.6, -0.2, 1.7, 0.1]);
}

/// The pullback of a one-hot cotangent is a Jacobian row: the cross product's, known in
/// closed form (`∂(a × b)/∂a = -[b]×`).
#[test]
fn cross_products_rows_are_the_closed_form() {
    let (a, b) = ([0.3, -1.2, 2.0], [1.5, 0.7, -0.4]);
    let (_, pullback) = cross::vjp(&a, &b);
    // row 0 of a × b = (a1 b2 - a2 b1): ∂/∂a = (0, b2, -b1), ∂/∂b = (0, -a2, a1)
    let (da, db) = pullback([1.0, 0.0, 0.0]);
    assert_eq!(da.unwrap(), [0.0, b[2], -b[1]]);
    assert_eq!(db.unwrap(), [0.0, -a[2], a[1]]);
}

// ----- callers -----

/// An orbit integrated in loops: the acceleration a call's array result read by a
/// loop's index.
#[differentiable]
fn orbit<T: gradtape::Float>(x0: &[T; 3], v0: &[T; 3], dt: T) -> T {
    let mut x = *x0;
    let mut v = *v0;
    for _ in 0..20 {
        let acc = gravity(&x);
        for i in 0..3 {
            v[i] += dt * acc[i];
            x[i] += dt * v[i];
        }
    }
    x[0] * x[0] + x[1] - v[2]
}

/// The forms a caller reads a result by: indexed by constants, destructured, typed,
/// iterated, passed on whole and read too.
#[differentiable]
fn caller_forms(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let c = cross(a, b);
    let [x, y, z] = cross(b, a);
    let d: [f64; 3] = cross(a, &c);
    let mut total = c[0] * c[1] + x * z - y + d[2];
    for v in c.iter() {
        total += v * v;
    }
    total + norm(&c) + c.iter().map(|v| v.sin()).sum::<f64>()
}

#[differentiable]
fn norm(a: &[f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// An integrator stepping its state by assignment, `s = rk4(&s, w, dt);`.
#[differentiable]
fn oscillate(s0: &[f64; 2], w: f64, dt: f64) -> f64 {
    let mut s = *s0;
    for _ in 0..25 {
        s = rk4(&s, w, dt);
    }
    s[0] * s[0] + 0.5 * s[1]
}

/// A constant call (its arguments constants) beside a differentiable one.
#[differentiable]
fn with_a_constant_call(a: &[f64; 3]) -> f64 {
    let basis = cross(&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]);
    let d = cross(a, &basis);
    d[0] * a[1] + d[1] + basis[2]
}

#[test]
fn callers_index_array_results() {
    Case {
        name: "orbit",
        itself: &|p| orbit(&array(p), &array(&p[3..]), p[6]),
        primal: &|p| orbit::primal(&array(p), &array(&p[3..]), p[6]),
        grad: Some(&|p| {
            let (value, (dx, dv, ddt)) = orbit::grad(&array(p), &array(&p[3..]), p[6]);
            (value, [&dx[..], &dv[..], &[ddt]].concat())
        }),
        grad_into: &|p| {
            let (mut dx, mut dv, mut ddt) = ([0.0; 3], [0.0; 3], 0.0);
            let value =
                orbit::grad_into(&array(p), &array(&p[3..]), p[6], &mut dx, &mut dv, &mut ddt);
            (value, [&dx[..], &dv[..], &[ddt]].concat())
        },
        jvp: &|p, t| orbit::jvp(&array(p), &array(&p[3..]), p[6], &t[..3], &t[3..6], t[6]),
    }
    .check_with_second_order(&[1.0, 0.1, -0.2, 0.05, 0.9, 0.3, 0.02]);
    Case {
        name: "caller_forms",
        itself: &|p| caller_forms(&array(p), &array(&p[3..])),
        primal: &|p| caller_forms::primal(&array(p), &array(&p[3..])),
        grad: Some(&|p| {
            let (value, [da, db]) = caller_forms::grad(&array(p), &array(&p[3..]));
            (value, [da, db].concat())
        }),
        grad_into: &|p| {
            let (mut da, mut db) = ([0.0; 3], [0.0; 3]);
            let value = caller_forms::grad_into(&array(p), &array(&p[3..]), &mut da, &mut db);
            (value, [da, db].concat())
        },
        jvp: &|p, t| caller_forms::jvp(&array(p), &array(&p[3..]), &t[..3], &t[3..]),
    }
    .check_with_second_order(&[0.3, -1.2, 2.0, 1.5, 0.7, -0.4]);
    Case {
        name: "oscillate",
        itself: &|p| oscillate(&array(p), p[2], p[3]),
        primal: &|p| oscillate::primal(&array(p), p[2], p[3]),
        grad: Some(&|p| {
            let (value, (ds, dw, ddt)) = oscillate::grad(&array(p), p[2], p[3]);
            (value, [&ds[..], &[dw, ddt]].concat())
        }),
        grad_into: &|p| {
            let (mut ds, mut dw, mut ddt) = ([0.0; 2], 0.0, 0.0);
            let value = oscillate::grad_into(&array(p), p[2], p[3], &mut ds, &mut dw, &mut ddt);
            (value, [&ds[..], &[dw, ddt]].concat())
        },
        jvp: &|p, t| oscillate::jvp(&array(p), p[2], p[3], &t[..2], t[2], t[3]),
    }
    .check_with_second_order(&[0.6, -0.2, 1.7, 0.05]);
    Case {
        name: "with_a_constant_call",
        itself: &|p| with_a_constant_call(&array(p)),
        primal: &|p| with_a_constant_call::primal(&array(p)),
        grad: Some(&|p| {
            let (value, [da]) = with_a_constant_call::grad(&array(p));
            (value, da.to_vec())
        }),
        grad_into: &|p| {
            let mut da = [0.0; 3];
            let value = with_a_constant_call::grad_into(&array(p), &mut da);
            (value, da.to_vec())
        },
        jvp: &|p, t| with_a_constant_call::jvp(&array(p), t),
    }
    .check_with_second_order(&[0.3, -1.2, 2.0]);
}

// ----- methods -----

/// A charged particle in a uniform field: its force a method's array result, a rotation an
/// associated function's.
struct Field {
    charge: f64,
    strength: [f64; 2],
}

#[differentiable]
impl Field {
    /// The force on a particle with velocity `v` (a drag beside the field).
    #[differentiable]
    fn force(&self, v: &[f64; 2]) -> [f64; 2] {
        [
            self.charge * self.strength[0] - 0.1 * v[0] * v[0].abs(),
            self.charge * self.strength[1] - 0.1 * v[1] * v[1].abs(),
        ]
    }

    /// `x` rotated by `t`.
    #[differentiable]
    fn rotate(x: &[f64; 2], t: f64) -> [f64; 2] {
        [
            x[0] * t.cos() - x[1] * t.sin(),
            x[0] * t.sin() + x[1] * t.cos(),
        ]
    }

    /// The distance travelled in `n` steps from `v0`, the force read by index.
    #[differentiable]
    fn travel(&self, v0: &[f64; 2], turn: f64, n: usize) -> f64 {
        let mut v = *v0;
        let mut x = [0.0; 2];
        for _ in 0..n {
            let f = self.force(&v);
            let turned = Self::rotate(&f, turn);
            for i in 0..2 {
                v[i] += 0.05 * turned[i];
                x[i] += 0.05 * v[i];
            }
        }
        (x[0] * x[0] + x[1] * x[1]).sqrt()
    }
}

/// A free function calling the method and the associated function.
#[differentiable]
fn kick(field: &Field, v: &[f64; 2], turn: f64) -> f64 {
    let f = field.force(v);
    let [a, b] = Field::rotate(&f, turn);
    a * v[1] - b * v[0] + f[1]
}

#[test]
fn methods_and_associated_functions_return_arrays() {
    let field = Field {
        charge: 0.7,
        strength: [1.2, -0.5],
    };
    VectorFaces {
        name: "force",
        itself: &|p| field.force(&array(p)).to_vec(),
        primal: &|p| field.force_primal(&array(p)).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = field.force_vjp(&array(p));
            let ((), dv) = pullback(array(w));
            (value.to_vec(), entry(dv))
        },
        jvp: &|p, t| {
            let (value, tangent) = field.force_jvp(&array(p), t);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.8, -1.3]);
    Case {
        name: "travel",
        itself: &|p| field.travel(&array(p), p[2], 30),
        primal: &|p| field.travel_primal(&array(p), p[2], 30),
        grad: Some(&|p| {
            let (value, (dv, dturn)) = field.travel_grad(&array(p), p[2], 30);
            (value, [&dv[..], &[dturn]].concat())
        }),
        grad_into: &|p| {
            let (value, (dv, dturn)) = field.travel_grad(&array(p), p[2], 30);
            (value, [&dv[..], &[dturn]].concat())
        },
        jvp: &|p, t| field.travel_jvp(&array(p), p[2], 30, &t[..2], t[2]),
    }
    .check_with_second_order(&[0.8, -1.3, 0.4]);
    Case {
        name: "kick",
        itself: &|p| kick(&field, &array(p), p[2]),
        primal: &|p| kick::primal(&field, &array(p), p[2]),
        grad: Some(&|p| {
            let (value, (dv, dturn)) = kick::grad(&field, &array(p), p[2]);
            (value, [&dv[..], &[dturn]].concat())
        }),
        grad_into: &|p| {
            let (mut dv, mut dturn) = ([0.0; 2], 0.0);
            let value = kick::grad_into(&field, &array(p), p[2], &mut dv, &mut dturn);
            (value, [&dv[..], &[dturn]].concat())
        },
        jvp: &|p, t| kick::jvp(&field, &array(p), p[2], &t[..2], t[2]),
    }
    .check_with_second_order(&[0.8, -1.3, 0.4]);
}

// ----- struct parameters -----

#[derive(Differentiable, Clone, Debug, PartialEq)]
struct Spring {
    k: f64,
    rest: f64,
}

/// A spring's force on a point, the spring a marked struct.
#[differentiable]
fn spring_force(#[differentiable] s: &Spring, x: &[f64; 2]) -> [f64; 2] {
    let r = (x[0] * x[0] + x[1] * x[1]).sqrt();
    let f = -s.k * (r - s.rest) / r;
    [f * x[0], f * x[1]]
}

/// The work of the force along a step, the spring passed on whole to the writer.
#[differentiable]
fn spring_work(#[differentiable] s: &Spring, x: &[f64; 2], dx: &[f64; 2]) -> f64 {
    let f = spring_force(s, x);
    f[0] * dx[0] + f[1] * dx[1] + 0.5 * s.k * s.rest
}

/// Regression: the writer's item on the companion kept the parameters' marks
/// (`#[differentiable] s: &Spring`), which rustc then read as the attribute macro on a
/// parameter ("expected non-macro attribute").
#[test]
fn a_marked_struct_parameter_with_an_array_result() {
    let dx = [0.05, -0.02];
    let spring = |p: &[f64]| Spring {
        k: p[0],
        rest: p[1],
    };
    Case {
        name: "spring_work",
        itself: &|p| spring_work(&spring(p), &array(&p[2..]), &dx),
        primal: &|p| spring_work::primal(&spring(p), &array(&p[2..]), &dx),
        grad: Some(&|p| {
            let (value, (ds, dx_, _)) = spring_work::grad(&spring(p), &array(&p[2..]), &dx);
            (value, [&[ds.k, ds.rest][..], &dx_[..]].concat())
        }),
        grad_into: &|p| {
            let (value, (ds, dx_, _)) = spring_work::grad(&spring(p), &array(&p[2..]), &dx);
            (value, [&[ds.k, ds.rest][..], &dx_[..]].concat())
        },
        jvp: &|p, t| {
            spring_work::jvp(
                &spring(p),
                &array(&p[2..]),
                &dx,
                &spring(t),
                &t[2..],
                &[0.0; 2],
            )
        },
    }
    .check_with_second_order(&[3.0, 0.8, 1.1, -0.6]);
}

// ----- the longest array result -----

/// `1, x, .., x¹¹`: twelve elements, the most a result's tuple has (`FromParts`, the
/// runtime's tuples of cotangents, went up to eight parts before).
#[differentiable]
fn powers(x: f64) -> [f64; 12] {
    let mut out = [0.0; 12];
    let mut p = 1.0;
    for i in 0..12 {
        out[i] = p;
        p *= x;
    }
    out
}

/// A polynomial through the powers, read in a loop.
#[differentiable]
fn polynomial(x: f64, c: &[f64; 12]) -> f64 {
    let p = powers(x);
    let mut s = 0.0;
    for i in 0..12 {
        s += c[i] * p[i];
    }
    s
}

#[test]
fn twelve_elements() {
    let c: [f64; 12] = std::array::from_fn(|k| 1.0 / (k as f64 + 1.0));
    VectorFaces {
        name: "powers",
        itself: &|p| powers(p[0]).to_vec(),
        primal: &|p| powers::primal(p[0]).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = powers::vjp(p[0]);
            let (dx,) = pullback(array(w));
            (value.to_vec(), vec![dx.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = powers::jvp(p[0], t[0]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[0.9]);
    Case {
        name: "polynomial",
        itself: &|p| polynomial(p[0], &c),
        primal: &|p| polynomial::primal(p[0], &c),
        grad: Some(&|p| {
            let (value, (dx, _)) = polynomial::grad(p[0], &c);
            (value, vec![dx])
        }),
        grad_into: &|p| {
            let (value, (dx, _)) = polynomial::grad(p[0], &c);
            (value, vec![dx])
        },
        jvp: &|p, t| polynomial::jvp(p[0], &c, t[0], &[0.0; 12]),
    }
    .check_with_second_order(&[0.9]);
}

// ----- arrays of rows -----

/// A rotation matrix, as a literal of rows.
#[differentiable]
fn rotation(t: f64) -> [[f64; 2]; 2] {
    let (s, c) = t.sin_cos();
    [[c, -s], [s, c]]
}

/// An outer product, written into a local array of rows returned by name.
#[differentiable]
fn outer(a: &[f64; 3], b: &[f64; 3]) -> [[f64; 3]; 3] {
    let mut m = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = a[i] * b[j];
        }
    }
    m
}

/// The Jacobian of spherical to Cartesian coordinates, generic over the float type.
#[differentiable]
fn spherical_jacobian<T: gradtape::Float>(r: T, theta: T, phi: T) -> [[T; 3]; 3] {
    let (st, ct) = theta.sin_cos();
    let (sp, cp) = phi.sin_cos();
    [
        [st * cp, r * ct * cp, -r * st * sp],
        [st * sp, r * ct * sp, r * st * cp],
        [ct, -r * st, T::zero()],
    ]
}

/// Rows made otherwise: a row bound by name beside a literal one, a repeated row, an early
/// return of a place (a parameter's rows).
#[differentiable]
fn mixed_rows(x: f64, m: &[[f64; 2]; 2]) -> [[f64; 2]; 2] {
    if x > 5.0 {
        return *m;
    }
    let first = [x * m[0][0], x.exp()];
    if x < -5.0 {
        return [[x.sin(), m[1][0]]; 2];
    }
    [first, [m[1][1] * x, x * x]]
}

/// Twelve elements in rows of four, the most a result has.
#[differentiable]
fn three_by_four(x: f64, y: f64) -> [[f64; 4]; 3] {
    let mut m = [[0.0; 4]; 3];
    for i in 0..3 {
        for j in 0..4 {
            m[i][j] = (i as f64 + 1.0) * x.powi(j as i32) - y * j as f64;
        }
    }
    m
}

/// A flat vector of a matrix's rows.
fn flat<const R: usize, const C: usize>(m: [[f64; C]; R]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

/// A matrix of rows from a flat vector.
fn rows<const R: usize, const C: usize>(x: &[f64]) -> [[f64; C]; R] {
    std::array::from_fn(|i| std::array::from_fn(|j| x[i * C + j]))
}

#[test]
fn arrays_of_rows_out() {
    VectorFaces {
        name: "rotation",
        itself: &|p| flat(rotation(p[0])),
        primal: &|p| flat(rotation::primal(p[0])),
        vjp: &|p, w| {
            let (value, pullback) = rotation::vjp(p[0]);
            let (dt,) = pullback(rows(w));
            (flat(value), vec![dt.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = rotation::jvp(p[0], t[0]);
            (flat(value), flat(tangent))
        },
    }
    .check(&[0.7]);
    VectorFaces {
        name: "outer",
        itself: &|p| flat(outer(&array(p), &array(&p[3..]))),
        primal: &|p| flat(outer::primal(&array(p), &array(&p[3..]))),
        vjp: &|p, w| {
            let (value, pullback) = outer::vjp(&array(p), &array(&p[3..]));
            let (da, db) = pullback(rows(w));
            (flat(value), [entry(da), entry(db)].concat())
        },
        jvp: &|p, t| {
            let (value, tangent) = outer::jvp(&array(p), &array(&p[3..]), &t[..3], &t[3..]);
            (flat(value), flat(tangent))
        },
    }
    .check(&[0.3, -1.2, 2.0, 1.5, 0.7, -0.4]);
    VectorFaces {
        name: "spherical_jacobian",
        itself: &|p| flat(spherical_jacobian(p[0], p[1], p[2])),
        primal: &|p| flat(spherical_jacobian::primal(p[0], p[1], p[2])),
        vjp: &|p, w| {
            let (value, pullback) = spherical_jacobian::vjp(p[0], p[1], p[2]);
            let (dr, dtheta, dphi) = pullback(rows(w));
            (
                flat(value),
                vec![dr.unwrap(), dtheta.unwrap(), dphi.unwrap()],
            )
        },
        jvp: &|p, t| {
            let (value, tangent) = spherical_jacobian::jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
            (flat(value), flat(tangent))
        },
    }
    .check(&[1.3, 0.6, -0.9]);
    for x in [-6.0, 0.4, 6.0] {
        VectorFaces {
            name: "mixed_rows",
            itself: &|p| flat(mixed_rows(p[0], &rows(&p[1..]))),
            primal: &|p| flat(mixed_rows::primal(p[0], &rows(&p[1..]))),
            vjp: &|p, w| {
                let (value, pullback) = mixed_rows::vjp(p[0], &rows(&p[1..]));
                let (dx, dm) = pullback(rows(w));
                let dm = dm.map_or(vec![0.0; 4], flat);
                (flat(value), [vec![dx.unwrap_or(0.0)], dm].concat())
            },
            jvp: &|p, t| {
                let (value, tangent) =
                    mixed_rows::jvp(p[0], &rows(&p[1..]), t[0], &rows::<2, 2>(&t[1..]));
                (flat(value), flat(tangent))
            },
        }
        .check(&[x, 0.5, -1.1, 0.8, 1.9]);
    }
    VectorFaces {
        name: "three_by_four",
        itself: &|p| flat(three_by_four(p[0], p[1])),
        primal: &|p| flat(three_by_four::primal(p[0], p[1])),
        vjp: &|p, w| {
            let (value, pullback) = three_by_four::vjp(p[0], p[1]);
            let (dx, dy) = pullback(rows(w));
            (flat(value), vec![dx.unwrap(), dy.unwrap()])
        },
        jvp: &|p, t| {
            let (value, tangent) = three_by_four::jvp(p[0], p[1], t[0], t[1]);
            (flat(value), flat(tangent))
        },
    }
    .check(&[0.8, -0.3]);
}

/// Callers reading an array of rows: by two indices, a row's reads, rows iterated,
/// destructured by rows, passed on whole.
#[differentiable]
fn rotated_x(t: f64, x: f64) -> f64 {
    let r = rotation(t);
    r[0][1] * x
}

#[differentiable]
fn rows_read(t: f64, a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let r = rotation(t);
    let m = outer(a, b);
    let mut total = r[0][0] * r[1][1] - r[0][1] * r[1][0] + m[2][1];
    for i in 0..3 {
        for j in 0..3 {
            total += m[i][j] * m[j][i].sin();
        }
    }
    for row in m.iter() {
        total += row[0] * row[2];
    }
    let [[c, s], [ms, c2]] = rotation(2.0 * t);
    total + c * c2 - s * ms + trace(&m)
}

/// More forms: typed, a row bound and read, rows in an iterator's closure, a row passed on
/// whole, an array of rows stepped by assignment (`m = step(&m, h)`).
#[differentiable]
fn rows_forms(t: f64, h: f64) -> f64 {
    let r: [[f64; 2]; 2] = rotation(t);
    let second = r[1];
    let mut m = rotation(h);
    for _ in 0..4 {
        m = relax(&m, h);
    }
    let sums: f64 = r.iter().map(|row| row[0] * row[1]).sum();
    second[0] * second[1] + sums + norm2(&m[0]) + m[1][0] * m[1][1]
}

/// A step of a matrix's state.
#[differentiable]
fn relax(m: &[[f64; 2]; 2], h: f64) -> [[f64; 2]; 2] {
    [
        [m[0][0] - h * m[0][1], m[0][1] + h * m[1][0]],
        [m[1][0] * (1.0 - h), m[1][1] + h * m[0][0] * m[0][0]],
    ]
}

#[differentiable]
fn norm2(v: &[f64; 2]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

/// An array of rows passed on whole (a call's result held as one value), and bound with
/// its type and read both ways.
#[differentiable]
fn rows_held_whole(t: f64, h: f64) -> f64 {
    let r = rotation(t);
    let typed: [[f64; 2]; 2] = rotation(h * t);
    trace2(&r) * trace2(&rotation(h)) + trace2(&typed) * typed[0][1]
}

#[differentiable]
fn trace2(m: &[[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0] + m[0][0] + m[1][1]
}

/// Rows read only by being passed on (`norm2(&r[0])`), never by two indices: still an
/// array of rows.
#[differentiable]
fn rows_passed_on(t: f64, x: &[f64; 2]) -> f64 {
    let r = relax(&rotation(t), x[1]);
    let q = relax(&rotation(t * x[0]), 0.3);
    norm2(&r[0]) * x[0] + trace2(&q) * norm2(&q[1]) * x[1]
}

/// A result bound to the name its call reads (`let m = relax(&m, h);`, `let s =
/// oscillator(&s, w);`): the writer writes a local of its own, then copied, never the
/// array the call reads.
#[differentiable]
fn shadowed_by_the_result(t: f64, h: f64, s: &[f64; 2]) -> f64 {
    let m = rotation(t);
    let m = relax(&m, h);
    let m = relax(&m, h);
    let s = oscillator(s, h);
    let s = oscillator(&s, t);
    m[0][1] * s[0] + m[1][0] * s[1]
}

/// A call's rows written in place: rows swapped, an element updated, a row assigned
/// whole.
#[differentiable]
fn rows_rewritten(t: f64, h: f64) -> f64 {
    let mut r = rotation(t);
    r.swap(0, 1);
    r[1][0] *= h;
    let mut m = relax(&r, h);
    m[0] = m[1];
    r[0][0] * r[1][1] + r[0][1] + m[0][0] * m[1][1] - m[0][1] * h
}

/// `3 × 3` rows scaled.
#[differentiable]
fn scaled3(m: &[[f64; 3]; 3], h: f64) -> [[f64; 3]; 3] {
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = h * m[i][j] + m[j][i];
        }
    }
    out
}

/// Regression: a copy of a call's rows (`let m = r;`, as `let m = relax(&m, h);` is
/// written) took the row length read off the source's name, `row_len(&r)`; a later `let`
/// binding that name to rows of another length (here `3 × 3` after `2 × 2`, both through
/// the same rewrite's local) gave the copy that length: a type error for a flat array, and
/// for rows a flat shadow at one row length passed on whole (`trace2(&m)`) and read at
/// another.
#[differentiable]
fn copies_of_rows_of_two_lengths(t: f64, h: f64, a: &[f64; 3]) -> f64 {
    let m = rotation(t);
    let m = relax(&m, h);
    let o = outer(a, a);
    let o = scaled3(&o, h);
    trace2(&m) * o[2][1] + m[1][0] * o[0][2] + trace(&o)
}

/// A column read by a runtime index past a row's end.
#[differentiable]
fn column_of(t: f64, j: usize) -> f64 {
    let r = rotation(t);
    r[0][j] * t
}

#[differentiable]
fn trace(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] + m[1][1] + m[2][2]
}

/// A 2-d integrator rotating its velocity each step, the rotation a call's rows in a loop.
#[differentiable]
fn swirl(x0: &[f64; 2], turn: f64, dt: f64) -> f64 {
    let mut x = *x0;
    let mut v = [1.0, 0.0];
    for _ in 0..15 {
        let r = rotation(turn * dt);
        let w = [
            r[0][0] * v[0] + r[0][1] * v[1],
            r[1][0] * v[0] + r[1][1] * v[1],
        ];
        v = w;
        for i in 0..2 {
            x[i] += dt * v[i] * (1.0 + x[i] * x[i]).sqrt();
        }
    }
    x[0] * x[1]
}

/// A row of the spherical Jacobian, the rest of its entries read in a loop, the callee
/// generic.
#[differentiable]
fn jacobian_rows<T: gradtape::Float>(r: T, theta: T, phi: T) -> T {
    let j = spherical_jacobian(r, theta, phi);
    let mut det = T::zero();
    for k in 0..3 {
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        det += j[0][k] * (j[1][a] * j[2][b] - j[1][b] * j[2][a]);
    }
    det
}

#[test]
fn callers_read_arrays_of_rows() {
    // closed form: d/dt (-sin t · x) = -cos t · x, d/dx = -sin t
    let (t, x) = (0.7, 1.9);
    let (value, [dt, dx]) = rotated_x::grad(t, x);
    assert_eq!(value, -t.sin() * x);
    assert!(common::close(dt, -t.cos() * x, 1e-15));
    assert!(common::close(dx, -t.sin(), 1e-15));
    Case {
        name: "rotated_x",
        itself: &|p| rotated_x(p[0], p[1]),
        primal: &|p| rotated_x::primal(p[0], p[1]),
        grad: Some(&|p| {
            let (value, [dt, dx]) = rotated_x::grad(p[0], p[1]);
            (value, vec![dt, dx])
        }),
        grad_into: &|p| {
            let (value, [dt, dx]) = rotated_x::grad(p[0], p[1]);
            (value, vec![dt, dx])
        },
        jvp: &|p, t| rotated_x::jvp(p[0], p[1], t[0], t[1]),
    }
    .check_with_second_order(&[t, x]);
    Case {
        name: "rows_read",
        itself: &|p| rows_read(p[0], &array(&p[1..]), &array(&p[4..])),
        primal: &|p| rows_read::primal(p[0], &array(&p[1..]), &array(&p[4..])),
        grad: Some(&|p| {
            let (value, (dt, da, db)) = rows_read::grad(p[0], &array(&p[1..]), &array(&p[4..]));
            (value, [&[dt][..], &da[..], &db[..]].concat())
        }),
        grad_into: &|p| {
            let (mut dt, mut da, mut db) = (0.0, [0.0; 3], [0.0; 3]);
            let value = rows_read::grad_into(
                p[0],
                &array(&p[1..]),
                &array(&p[4..]),
                &mut dt,
                &mut da,
                &mut db,
            );
            (value, [&[dt][..], &da[..], &db[..]].concat())
        },
        jvp: &|p, t| {
            rows_read::jvp(
                p[0],
                &array(&p[1..]),
                &array(&p[4..]),
                t[0],
                &t[1..4],
                &t[4..],
            )
        },
    }
    .check_with_second_order(&[0.4, 0.3, -1.2, 2.0, 1.5, 0.7, -0.4]);
    Case {
        name: "swirl",
        itself: &|p| swirl(&array(p), p[2], p[3]),
        primal: &|p| swirl::primal(&array(p), p[2], p[3]),
        grad: Some(&|p| {
            let (value, (dx, dturn, ddt)) = swirl::grad(&array(p), p[2], p[3]);
            (value, [&dx[..], &[dturn, ddt]].concat())
        }),
        grad_into: &|p| {
            let (mut dx, mut dturn, mut ddt) = ([0.0; 2], 0.0, 0.0);
            let value = swirl::grad_into(&array(p), p[2], p[3], &mut dx, &mut dturn, &mut ddt);
            (value, [&dx[..], &[dturn, ddt]].concat())
        },
        jvp: &|p, t| swirl::jvp(&array(p), p[2], p[3], &t[..2], t[2], t[3]),
    }
    .check_with_second_order(&[0.2, -0.5, 1.3, 0.1]);
    // the determinant of the spherical Jacobian is r² sin θ
    let (r, theta, phi) = (1.3, 0.6, -0.9);
    let (det, [dr, dtheta, dphi]) = jacobian_rows::grad(r, theta, phi);
    assert!(common::close(det, r * r * theta.sin(), 1e-14));
    assert!(common::close(dr, 2.0 * r * theta.sin(), 1e-13));
    assert!(common::close(dtheta, r * r * theta.cos(), 1e-13));
    assert!(dphi.abs() < 1e-14);
    Case {
        name: "jacobian_rows",
        itself: &|p| jacobian_rows(p[0], p[1], p[2]),
        primal: &|p| jacobian_rows::primal(p[0], p[1], p[2]),
        grad: Some(&|p| {
            let (value, [dr, dtheta, dphi]) = jacobian_rows::grad(p[0], p[1], p[2]);
            (value, vec![dr, dtheta, dphi])
        }),
        grad_into: &|p| {
            let (value, [dr, dtheta, dphi]) = jacobian_rows::grad(p[0], p[1], p[2]);
            (value, vec![dr, dtheta, dphi])
        },
        jvp: &|p, t| jacobian_rows::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
    }
    .check_with_second_order(&[r, theta, phi]);
}

#[test]
fn more_callers_of_arrays_of_rows() {
    Case {
        name: "rows_forms",
        itself: &|p| rows_forms(p[0], p[1]),
        primal: &|p| rows_forms::primal(p[0], p[1]),
        grad: Some(&|p| {
            let (value, [dt, dh]) = rows_forms::grad(p[0], p[1]);
            (value, vec![dt, dh])
        }),
        grad_into: &|p| {
            let (value, [dt, dh]) = rows_forms::grad(p[0], p[1]);
            (value, vec![dt, dh])
        },
        jvp: &|p, t| rows_forms::jvp(p[0], p[1], t[0], t[1]),
    }
    .check_with_second_order(&[0.7, 0.2]);
    Case {
        name: "rows_held_whole",
        itself: &|p| rows_held_whole(p[0], p[1]),
        primal: &|p| rows_held_whole::primal(p[0], p[1]),
        grad: Some(&|p| {
            let (value, [dt, dh]) = rows_held_whole::grad(p[0], p[1]);
            (value, vec![dt, dh])
        }),
        grad_into: &|p| {
            let (value, [dt, dh]) = rows_held_whole::grad(p[0], p[1]);
            (value, vec![dt, dh])
        },
        jvp: &|p, t| rows_held_whole::jvp(p[0], p[1], t[0], t[1]),
    }
    .check_with_second_order(&[0.7, 0.4]);
    Case {
        name: "rows_passed_on",
        itself: &|p| rows_passed_on(p[0], &array(&p[1..])),
        primal: &|p| rows_passed_on::primal(p[0], &array(&p[1..])),
        grad: Some(&|p| {
            let (value, (dt, dx)) = rows_passed_on::grad(p[0], &array(&p[1..]));
            (value, [&[dt][..], &dx[..]].concat())
        }),
        grad_into: &|p| {
            let (mut dt, mut dx) = (0.0, [0.0; 2]);
            let value = rows_passed_on::grad_into(p[0], &array(&p[1..]), &mut dt, &mut dx);
            (value, [&[dt][..], &dx[..]].concat())
        },
        jvp: &|p, t| rows_passed_on::jvp(p[0], &array(&p[1..]), t[0], &t[1..]),
    }
    .check_with_second_order(&[0.7, 1.2, -0.4]);
    Case {
        name: "shadowed_by_the_result",
        itself: &|p| shadowed_by_the_result(p[0], p[1], &array(&p[2..])),
        primal: &|p| shadowed_by_the_result::primal(p[0], p[1], &array(&p[2..])),
        grad: Some(&|p| {
            let (value, (dt, dh, ds)) = shadowed_by_the_result::grad(p[0], p[1], &array(&p[2..]));
            (value, [&[dt, dh][..], &ds[..]].concat())
        }),
        grad_into: &|p| {
            let (mut dt, mut dh, mut ds) = (0.0, 0.0, [0.0; 2]);
            let value = shadowed_by_the_result::grad_into(
                p[0],
                p[1],
                &array(&p[2..]),
                &mut dt,
                &mut dh,
                &mut ds,
            );
            (value, [&[dt, dh][..], &ds[..]].concat())
        },
        jvp: &|p, t| shadowed_by_the_result::jvp(p[0], p[1], &array(&p[2..]), t[0], t[1], &t[2..]),
    }
    .check_with_second_order(&[0.7, 0.3, 1.1, -0.4]);
    Case {
        name: "rows_rewritten",
        itself: &|p| rows_rewritten(p[0], p[1]),
        primal: &|p| rows_rewritten::primal(p[0], p[1]),
        grad: Some(&|p| {
            let (value, [dt, dh]) = rows_rewritten::grad(p[0], p[1]);
            (value, vec![dt, dh])
        }),
        grad_into: &|p| {
            let (value, [dt, dh]) = rows_rewritten::grad(p[0], p[1]);
            (value, vec![dt, dh])
        },
        jvp: &|p, t| rows_rewritten::jvp(p[0], p[1], t[0], t[1]),
    }
    .check_with_second_order(&[0.7, 0.3]);
    Case {
        name: "copies_of_rows_of_two_lengths",
        itself: &|p| copies_of_rows_of_two_lengths(p[0], p[1], &array(&p[2..])),
        primal: &|p| copies_of_rows_of_two_lengths::primal(p[0], p[1], &array(&p[2..])),
        grad: Some(&|p| {
            let (value, (dt, dh, da)) =
                copies_of_rows_of_two_lengths::grad(p[0], p[1], &array(&p[2..]));
            (value, [&[dt, dh][..], &da[..]].concat())
        }),
        grad_into: &|p| {
            let (mut dt, mut dh, mut da) = (0.0, 0.0, [0.0; 3]);
            let value = copies_of_rows_of_two_lengths::grad_into(
                p[0],
                p[1],
                &array(&p[2..]),
                &mut dt,
                &mut dh,
                &mut da,
            );
            (value, [&[dt, dh][..], &da[..]].concat())
        },
        jvp: &|p, t| {
            copies_of_rows_of_two_lengths::jvp(p[0], p[1], &array(&p[2..]), t[0], t[1], &t[2..])
        },
    }
    .check_with_second_order(&[0.7, 0.3, 1.1, -0.4, 0.6]);
    let (value, [dt]) = column_of::grad(0.4, 1);
    assert_eq!(value, column_of(0.4, 1));
    assert_eq!(value, -0.4f64.sin() * 0.4);
    assert!(common::close(dt, -0.4f64.sin() - 0.4 * 0.4f64.cos(), 1e-15));
}

/// A column past a row's end is the body's panic, in the gradient too: never the next
/// row's element (`r[0][2]` of `[[f64; 2]; 2]` is `r[1][0]` in the flat shadow).
#[test]
#[should_panic(expected = "index out of bounds")]
fn a_column_past_the_row_panics_in_the_gradient() {
    let _ = column_of::grad(0.4, 2);
}

// ----- against dual numbers -----

/// `rotation` and `swirl` written again as plain functions generic over
/// `num_traits::Float`, run on dual numbers: the same arithmetic differentiated op by op,
/// no source transformation (the `twice!` oracle, by hand: the annotated caller calls an
/// annotated callee, which the plain copy cannot).
mod on_duals {
    use num_traits::Float;

    pub fn rotation<T: Float>(t: T) -> [[T; 2]; 2] {
        let (s, c) = t.sin_cos();
        [[c, -s], [s, c]]
    }

    pub fn swirl<T: Float>(x0: &[T; 2], turn: T, dt: T) -> T {
        let mut x = *x0;
        let mut v = [T::one(), T::zero()];
        for _ in 0..15 {
            let r = rotation(turn * dt);
            let w = [
                r[0][0] * v[0] + r[0][1] * v[1],
                r[1][0] * v[0] + r[1][1] * v[1],
            ];
            v = w;
            for i in 0..2 {
                x[i] = x[i] + dt * v[i] * (T::one() + x[i] * x[i]).sqrt();
            }
        }
        x[0] * x[1]
    }

    pub fn spherical_jacobian<T: Float>(r: T, theta: T, phi: T) -> [[T; 3]; 3] {
        let (st, ct) = theta.sin_cos();
        let (sp, cp) = phi.sin_cos();
        [
            [st * cp, r * ct * cp, -r * st * sp],
            [st * sp, r * ct * sp, r * st * cp],
            [ct, -r * st, T::zero()],
        ]
    }

    /// `Projectile::velocity`, `Projectile::frame` and `flight`, the struct's fields as
    /// plain parameters.
    pub fn flight<T: Float>(v0: T, drag: T, angle: T, t: T) -> T {
        let decay = (-drag * t).exp();
        let g = T::from(9.81).unwrap();
        let v = [v0 * angle.cos() * decay, v0 * angle.sin() * decay - g * t];
        let a = drag * t;
        let f = [[a.cos(), -v0 * a.sin()], [a.sin(), a.cos()]];
        v[0] * v[0] + v[1] * f[0][1] + f[1][0] * drag
    }

    /// `blend_into` and `blended_sum`.
    pub fn blended_sum<T: Float>(a: T, b: T, x: &[f64]) -> T {
        let (pa, pb) = (a, b * a);
        let mut total = T::zero();
        for &x in x {
            let x = T::from(x).unwrap();
            let out = pa * x + pb * x * x;
            total = total + out * out;
        }
        total
    }

    pub fn jacobian_rows<T: Float>(r: T, theta: T, phi: T) -> T {
        let j = spherical_jacobian(r, theta, phi);
        let mut det = T::zero();
        for k in 0..3 {
            let (a, b) = ((k + 1) % 3, (k + 2) % 3);
            det = det + j[0][k] * (j[1][a] * j[2][b] - j[1][b] * j[2][a]);
        }
        det
    }
}

#[test]
fn callers_of_arrays_of_rows_against_dual_numbers() {
    common::twice::Twice {
        name: "swirl",
        itself: &|p| swirl(&array(p), p[2], p[3]),
        primal: &|p| swirl::primal(&array(p), p[2], p[3]),
        grad: &|p| {
            let (value, (dx, dturn, ddt)) = swirl::grad(&array(p), p[2], p[3]);
            (value, [&dx[..], &[dturn, ddt]].concat())
        },
        on_duals: &|d| on_duals::swirl(&[d[0], d[1]], d[2], d[3]),
    }
    .check([0.2, -0.5, 1.3, 0.1]);
    common::twice::Twice {
        name: "jacobian_rows",
        itself: &|p| jacobian_rows(p[0], p[1], p[2]),
        primal: &|p| jacobian_rows::primal(p[0], p[1], p[2]),
        grad: &|p| {
            let (value, g) = jacobian_rows::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        },
        on_duals: &|d| on_duals::jacobian_rows(d[0], d[1], d[2]),
    }
    .check([1.3, 0.6, -0.9]);
    common::twice::Twice {
        name: "rotated_x",
        itself: &|p| rotated_x(p[0], p[1]),
        primal: &|p| rotated_x::primal(p[0], p[1]),
        grad: &|p| {
            let (value, g) = rotated_x::grad(p[0], p[1]);
            (value, g.to_vec())
        },
        on_duals: &|d| on_duals::rotation(d[0])[0][1] * d[1],
    }
    .check([0.7, 1.9]);
    // a differentiable receiver's array results, and a struct literal given to a writer
    let projectile = |p: &[f64]| Projectile {
        v0: p[0],
        drag: p[1],
    };
    common::twice::Twice {
        name: "flight",
        itself: &|p| flight(&projectile(p), p[2], p[3]),
        primal: &|p| flight::primal(&projectile(p), p[2], p[3]),
        grad: &|p| {
            let (value, (ds, da, dt)) = flight::grad(&projectile(p), p[2], p[3]);
            (value, vec![ds.v0, ds.drag, da, dt])
        },
        on_duals: &|d| on_duals::flight(d[0], d[1], d[2], d[3]),
    }
    .check([12.0, 0.3, 0.7, 0.4]);
    let x = [0.4, -1.3, 0.9];
    common::twice::Twice {
        name: "blended_sum",
        itself: &|p| blended_sum(p[0], p[1], &x),
        primal: &|p| blended_sum::primal(p[0], p[1], &x),
        grad: &|p| {
            let (value, (da, db, _)) = blended_sum::grad(p[0], p[1], &x);
            (value, vec![da, db])
        },
        on_duals: &|d| on_duals::blended_sum(d[0], d[1], &x),
    }
    .check([0.8, -0.6]);
}

// ----- a differentiable receiver -----

/// A projectile whose parameters are differentiable: its velocity and its rotation are
/// methods' array results, indexed by callers whose receiver is the marked struct.
#[derive(Differentiable, Clone, Debug, PartialEq)]
struct Projectile {
    v0: f64,
    drag: f64,
}

#[differentiable]
impl Projectile {
    /// The velocity after `dt` of flight at `angle`.
    #[differentiable]
    fn velocity(#[differentiable] &self, angle: f64, dt: f64) -> [f64; 2] {
        let decay = (-self.drag * dt).exp();
        [
            self.v0 * angle.cos() * decay,
            self.v0 * angle.sin() * decay - 9.81 * dt,
        ]
    }

    /// A frame turned by the drag, as rows.
    #[differentiable]
    fn frame(#[differentiable] &self, t: f64) -> [[f64; 2]; 2] {
        let a = self.drag * t;
        [[a.cos(), -self.v0 * a.sin()], [a.sin(), a.cos()]]
    }

    /// The height reached in `n` steps, the velocity read by index (a marked `self` the
    /// receiver).
    #[differentiable]
    fn height(#[differentiable] &self, angle: f64, n: usize) -> f64 {
        let mut y = 0.0;
        for k in 0..n {
            let v = self.velocity(angle, 0.05 * k as f64);
            y += 0.05 * v[1];
        }
        y
    }
}

/// A free function whose marked struct parameter is the receiver.
#[differentiable]
fn flight(#[differentiable] p: &Projectile, angle: f64, t: f64) -> f64 {
    let v = p.velocity(angle, t);
    let f = p.frame(t);
    v[0] * v[0] + v[1] * f[0][1] + f[1][0] * p.drag
}

#[test]
fn methods_with_a_differentiable_receiver_return_arrays() {
    let projectile = |p: &[f64]| Projectile {
        v0: p[0],
        drag: p[1],
    };
    VectorFaces {
        name: "velocity",
        itself: &|p| projectile(p).velocity(p[2], p[3]).to_vec(),
        primal: &|p| projectile(p).velocity_primal(p[2], p[3]).to_vec(),
        vjp: &|p, w| {
            let (value, pullback) = projectile(p).velocity_vjp(p[2], p[3]);
            let (ds, da, dt) = pullback(array(w));
            let ds = ds.unwrap_or(Projectile { v0: 0.0, drag: 0.0 });
            (
                value.to_vec(),
                vec![ds.v0, ds.drag, da.unwrap(), dt.unwrap()],
            )
        },
        jvp: &|p, t| {
            let (value, tangent) =
                projectile(p).velocity_jvp(p[2], p[3], &projectile(t), t[2], t[3]);
            (value.to_vec(), tangent.to_vec())
        },
    }
    .check(&[12.0, 0.3, 0.7, 0.4]);
    Case {
        name: "flight",
        itself: &|p| flight(&projectile(p), p[2], p[3]),
        primal: &|p| flight::primal(&projectile(p), p[2], p[3]),
        grad: Some(&|p| {
            let (value, (ds, da, dt)) = flight::grad(&projectile(p), p[2], p[3]);
            (value, vec![ds.v0, ds.drag, da, dt])
        }),
        grad_into: &|p| {
            let (value, (ds, da, dt)) = flight::grad(&projectile(p), p[2], p[3]);
            (value, vec![ds.v0, ds.drag, da, dt])
        },
        jvp: &|p, t| flight::jvp(&projectile(p), p[2], p[3], &projectile(t), t[2], t[3]),
    }
    .check_with_second_order(&[12.0, 0.3, 0.7, 0.4]);
    Case {
        name: "height",
        itself: &|p| projectile(p).height(p[2], 12),
        primal: &|p| projectile(p).height_primal(p[2], 12),
        grad: Some(&|p| {
            let (value, (ds, da)) = projectile(p).height_grad(p[2], 12);
            (value, vec![ds.v0, ds.drag, da])
        }),
        grad_into: &|p| {
            let (value, (ds, da)) = projectile(p).height_grad(p[2], 12);
            (value, vec![ds.v0, ds.drag, da])
        },
        jvp: &|p, t| projectile(p).height_jvp(p[2], 12, &projectile(t), t[2]),
    }
    .check_with_second_order(&[12.0, 0.3, 0.7]);
}

// ----- a struct literal passed to a writer -----

#[derive(Differentiable, Clone, Debug, PartialEq)]
struct Blend {
    a: f64,
    b: f64,
}

/// A writer of a `&mut` slice taking a marked struct.
#[differentiable]
fn blend_into(#[differentiable] p: &Blend, x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = p.a * x[i] + p.b * x[i] * x[i];
    }
}

/// The struct built by a literal of differentiable values at the writer's call (formerly
/// the UI case `struct-literal-passed-to-a-writer`).
#[differentiable]
fn blended_sum(a: f64, b: f64, x: &[f64]) -> f64 {
    let mut out = vec![0.0; x.len()];
    blend_into(&Blend { a, b: b * a }, x, &mut out);
    let mut total = 0.0;
    for i in 0..out.len() {
        total += out[i] * out[i];
    }
    total
}

/// A local struct passed to a writer (`fields` gives the call its literal), an array
/// result's writer given a literal (`spring_force`'s), in a loop.
#[differentiable]
fn literal_springs(k: f64, rest: f64, x: &[f64; 2]) -> f64 {
    let blend = Blend { a: k, b: rest };
    let mut out = [0.0; 2];
    blend_into(&blend, x, &mut out);
    let mut total = out[0] - out[1];
    for step in 0..3 {
        let f = spring_force(
            &Spring {
                k: k * (1.0 + step as f64),
                rest,
            },
            x,
        );
        total += f[0] * x[1] - f[1];
    }
    total
}

#[test]
fn struct_literals_passed_to_writers() {
    let x = [0.4, -1.3, 0.9];
    Case {
        name: "blended_sum",
        itself: &|p| blended_sum(p[0], p[1], &x),
        primal: &|p| blended_sum::primal(p[0], p[1], &x),
        grad: Some(&|p| {
            let (value, (da, db, _)) = blended_sum::grad(p[0], p[1], &x);
            (value, vec![da, db])
        }),
        grad_into: &|p| {
            let (value, (da, db, _)) = blended_sum::grad(p[0], p[1], &x);
            (value, vec![da, db])
        },
        jvp: &|p, t| blended_sum::jvp(p[0], p[1], &x, t[0], t[1], &[0.0; 3]),
    }
    .check_with_second_order(&[0.8, -0.6]);
    Case {
        name: "literal_springs",
        itself: &|p| literal_springs(p[0], p[1], &array(&p[2..])),
        primal: &|p| literal_springs::primal(p[0], p[1], &array(&p[2..])),
        grad: Some(&|p| {
            let (value, (dk, drest, dx)) = literal_springs::grad(p[0], p[1], &array(&p[2..]));
            (value, [&[dk, drest][..], &dx[..]].concat())
        }),
        grad_into: &|p| {
            let (mut dk, mut drest, mut dx) = (0.0, 0.0, [0.0; 2]);
            let value = literal_springs::grad_into(
                p[0],
                p[1],
                &array(&p[2..]),
                &mut dk,
                &mut drest,
                &mut dx,
            );
            (value, [&[dk, drest][..], &dx[..]].concat())
        },
        jvp: &|p, t| literal_springs::jvp(p[0], p[1], &array(&p[2..]), t[0], t[1], &t[2..]),
    }
    .check_with_second_order(&[2.5, 0.7, 1.1, -0.6]);
}

/// A number taken by reference (`&f64`), as some helpers take it.
#[differentiable]
fn weight_of(v: &f64) -> f64 {
    v * v + 1.0
}

/// A flat result whose element is borrowed for a call, `weight_of(&c[0])`, and used as a
/// number elsewhere (regression: the borrow took `c` for an array of rows, and the
/// macro's "row of an array of rows" errors answered the ordinary code).
#[differentiable]
fn weighted_cross(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let c = cross(a, b);
    let w = weight_of(&c[0]);
    c[1] * w + c[2]
}

#[test]
fn a_flat_result_whose_element_is_borrowed() {
    Case {
        name: "weighted_cross",
        itself: &|p| weighted_cross(&array(p), &array(&p[3..])),
        primal: &|p| weighted_cross::primal(&array(p), &array(&p[3..])),
        grad: Some(&|p| {
            let (value, [da, db]) = weighted_cross::grad(&array(p), &array(&p[3..]));
            (value, [da, db].concat())
        }),
        grad_into: &|p| {
            let (mut da, mut db) = ([0.0; 3], [0.0; 3]);
            let value = weighted_cross::grad_into(&array(p), &array(&p[3..]), &mut da, &mut db);
            (value, [&da[..], &db[..]].concat())
        },
        jvp: &|p, t| weighted_cross::jvp(&array(p), &array(&p[3..]), &t[..3], &t[3..]),
    }
    .check_with_second_order(&[1.0, 0.1, -0.2, 0.05, 0.9, 0.3]);
    // the closed form: c = a × b, value c₁ (c₀² + 1) + c₂
    let (a, b) = ([1.0, 0.1, -0.2], [0.05, 0.9, 0.3]);
    let c = cross(&a, &b);
    assert_eq!(weighted_cross(&a, &b), c[1] * (c[0] * c[0] + 1.0) + c[2]);
}
