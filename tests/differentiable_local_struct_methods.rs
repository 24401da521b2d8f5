//! Annotated methods called on a local struct built from differentiable values: `let p =
//! Particle { x, v }; p.energy(k)`, `p = p.step(dt);` in a loop, a method taking `self` by
//! value. `fields.rs` splits the local into its fields and builds the receiver again,
//! `(Particle { x: p_x, v: p_v }).energy(k)`, which lowering gives the method field by
//! field (`Callee::Gathered` with the receiver's shape). They were "a struct built from
//! differentiable values is ... used otherwise (a method called on it)". Each function is
//! checked as every annotated function is (`Case`: the value to the bit, central differences, `jvp` against the gradient, and second order).

mod common;

use common::faces::Case;
use gradtape::{Differentiable, differentiable};

/// A point mass on a spring.
#[derive(Clone, Copy, Differentiable)]
struct Particle {
    x: f64,
    v: f64,
}

#[differentiable]
impl Particle {
    /// The energy at stiffness `k`.
    #[differentiable]
    fn energy(#[differentiable] &self, k: f64) -> f64 {
        0.5 * self.v * self.v + 0.5 * k * self.x * self.x
    }

    /// One symplectic Euler step.
    #[differentiable]
    fn step(#[differentiable] &self, dt: f64) -> Particle {
        let v = self.v - dt * self.x.sin();
        Particle {
            x: self.x + dt * v,
            v,
        }
    }

    /// The kinetic energy, taking `self` by value.
    #[differentiable]
    fn kinetic(#[differentiable] self) -> f64 {
        0.5 * self.v * self.v
    }
}

/// A pendulum integrated by its own `step` method, then its energy.
#[differentiable]
fn pendulum_energy(x0: f64, v0: f64) -> f64 {
    let mut p = Particle { x: x0, v: v0 };
    for _ in 0..12 {
        p = p.step(0.1);
    }
    p.energy(1.0) + p.kinetic() * x0
}

/// A particle built, read by field and by its methods, then changed by field.
#[differentiable]
fn built_and_read(x0: f64, v0: f64) -> f64 {
    let mut p = Particle {
        x: x0 * v0,
        v: v0.exp(),
    };
    let e = p.energy(2.0);
    p.v += e * 0.1;
    p.kinetic() + e * p.x
}

fn case<'a>(
    name: &'a str,
    f: &'a dyn Fn(f64, f64) -> f64,
    primal: &'a dyn Fn(f64, f64) -> f64,
    grad: &'a dyn Fn(f64, f64) -> (f64, [f64; 2]),
    jvp: &'a dyn Fn(f64, f64, f64, f64) -> (f64, f64),
) -> Case<'a> {
    Case {
        name,
        itself: Box::leak(Box::new(move |p: &[f64]| f(p[0], p[1]))),
        primal: Box::leak(Box::new(move |p: &[f64]| primal(p[0], p[1]))),
        grad: Some(Box::leak(Box::new(move |p: &[f64]| {
            let (value, g) = grad(p[0], p[1]);
            (value, g.to_vec())
        }))),
        // a function of numbers alone has no `grad_into` (it writes no array)
        grad_into: Box::leak(Box::new(move |p: &[f64]| {
            let (value, g) = grad(p[0], p[1]);
            (value, g.to_vec())
        })),
        jvp: Box::leak(Box::new(move |p: &[f64], t: &[f64]| {
            jvp(p[0], p[1], t[0], t[1])
        })),
    }
}

#[test]
fn methods_of_a_local_struct_built_from_differentiable_values() {
    let pendulum = case(
        "pendulum_energy",
        &pendulum_energy,
        &pendulum_energy::primal,
        &pendulum_energy::grad,
        &pendulum_energy::jvp,
    );
    let built = case(
        "built_and_read",
        &built_and_read,
        &built_and_read::primal,
        &built_and_read::grad,
        &built_and_read::jvp,
    );
    for x in [[0.7, -0.4], [1.9, 0.3], [-0.5, 1.1]] {
        pendulum.check_with_second_order(&x);
        built.check_with_second_order(&x);
    }
}

/// A counter a body keeps beside its differentiable values: methods taking `&mut self`
/// and returning a borrow of `self`.
struct Tally {
    count: usize,
    label: String,
}

impl Tally {
    fn bump(&mut self) {
        self.count += 1;
    }

    fn label(&self) -> &str {
        &self.label
    }
}

/// A constant local struct whose methods mutate it and lend from it: kept whole (a
/// rebuilt receiver would drop the mutation and the borrow), while a local of
/// differentiable values beside it has its receiver rebuilt.
#[differentiable]
fn counted_steps(x0: f64, v0: f64) -> f64 {
    let mut tally = Tally {
        count: 0,
        label: String::from("steps"),
    };
    let mut p = Particle { x: x0, v: v0 };
    for _ in 0..5 {
        p = p.step(0.2);
        tally.bump();
    }
    let name = tally.label();
    p.energy(1.5) * (tally.count + name.len()) as f64
}

#[test]
fn a_constant_local_struct_with_mutating_and_lending_methods_is_kept_whole() {
    let case = case(
        "counted_steps",
        &counted_steps,
        &counted_steps::primal,
        &counted_steps::grad,
        &counted_steps::jvp,
    );
    for x in [[0.7, -0.4], [1.9, 0.3]] {
        case.check_with_second_order(&x);
    }
    // the count is the loop's five steps, the label's length five: a factor of 10
    let mut p = Particle { x: 0.7, v: -0.4 };
    for _ in 0..5 {
        p = p.step(0.2);
    }
    assert_eq!(counted_steps(0.7, -0.4), p.energy(1.5) * 10.0);
}

/// A blend of two values.
#[derive(Differentiable, Clone)]
struct Blend {
    a: f64,
    b: f64,
}

#[differentiable]
impl Blend {
    /// `a x + b`.
    #[differentiable]
    fn mix(#[differentiable] &self, x: f64) -> f64 {
        self.a * x + self.b
    }
}

/// A method called on a struct literal itself (no local): the literal given field by
/// field, as a local's rebuilt receiver is (was the UI case `struct-literal-as-a-receiver`).
#[differentiable]
fn blended(a: f64, b: f64, x: f64) -> f64 {
    Blend { a: a * a, b }.mix(x.sin())
}

#[test]
fn a_method_called_on_a_struct_literal() {
    for (a, b, x) in [(0.5_f64, -1.5_f64, 0.25_f64), (-2.0, 0.75, 1.5)] {
        let (value, [da, db, dx]) = blended::grad(a, b, x);
        assert_eq!(value.to_bits(), blended(a, b, x).to_bits());
        let expected = [2.0 * a * x.sin(), 1.0, a * a * x.cos()];
        for (got, want) in [da, db, dx].iter().zip(expected) {
            assert!(common::close(*got, want, 1e-14), "{got} vs {want}");
        }
        let (_, tangent) = blended::jvp(a, b, x, 1.0, 1.0, 1.0);
        assert!(common::close(tangent, expected.iter().sum(), 1e-14));
    }
}
