//! Ops on 0-d values recorded as compact records: on a tape alone on the stack, a unary or
//! binary elementwise op on 0-d `f32`/`f64` values is recorded with its local partial
//! derivatives (Jacobian taping), and a sweep that nothing records applies them as plain
//! numbers. Everything else (a recorded sweep, a jacobian's batched sweep, a record read
//! as a node) sees the general node the record stands for.
//!
//! `tests/gradcheck.rs` checks every elementwise op at 0-d against central differences,
//! against the general rules and at second order through a later tape; the tests here are
//! about how compact records meet the rest of the tape.

mod common;

use gradtape::{GradientTape, Tensor, UnconnectedGradients};

/// y ← sin(y)·0.9 + y·0.1, `steps` times, in `f32`: W2's chain.
fn chain(x: &Tensor<f32>, steps: usize) -> Tensor<f32> {
    let mut y = x.clone();
    for _ in 0..steps {
        y = y.sin() * 0.9 + &y * 0.1;
    }
    y
}

/// Regression: the first version of the compact sweep gave an `f32` cotangent slot that
/// held none yet the `f64` product `g · ∂` unrounded, so later sums started from a value
/// no `f32` computation has: W2's gradient moved in its seventh digit.
#[test]
fn an_f32_chain_gradient_is_the_f32_products_of_its_partials_bit_for_bit() {
    let steps = 200;
    let x = Tensor::scalar(0.5_f32);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| chain(&x, steps));
    let got = tape.gradient(&y, &x).unwrap().unwrap().to_scalar();
    // The same sweep by hand, in `f32`, in the tape's order: per step the sum's cotangent
    // goes to `y·0.1` (whose input slot it starts) and to `s·0.9`, whose cotangent reaches
    // `sin`, whose product is added last.
    let mut ys = vec![0.5_f32];
    for k in 0..steps {
        let y = ys[k];
        ys.push(y.sin() * 0.9 + y * 0.1);
    }
    let mut g = 1.0_f32;
    for k in (0..steps).rev() {
        let through_scale = g * 0.1;
        let through_sin = (g * 0.9) * ys[k].cos();
        g = through_scale + through_sin;
    }
    assert_eq!(got.to_bits(), g.to_bits(), "tape {got}, by hand {g}");
}

/// An op recorded but on no path to the target adds nothing, even where its partial
/// derivative is infinite (`sqrt` at 0): no cotangent reaches it, so none is multiplied.
#[test]
fn an_infinite_partial_off_the_path_to_the_target_adds_nothing() {
    let x = Tensor::scalar(0.0_f64);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        let _unused = x.sqrt();
        &x * 2.0
    });
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 2.0);
}

/// A cotangent of zero times an infinite partial is NaN, as TensorFlow's rule and the
/// general path on a 1-element tensor give: a zero cotangent is a number, not a missing
/// one.
#[test]
fn a_zero_cotangent_times_an_infinite_partial_is_nan_at_0d_as_in_1d() {
    fn f(x: &Tensor<f64>) -> Tensor<f64> {
        (x.sqrt() - 1.0).relu().sum()
    }
    let gradient_at = |x: Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| f(&x));
        tape.gradient(&y, &x).unwrap().unwrap().to_vec()[0]
    };
    let at_0d = gradient_at(Tensor::scalar(0.0));
    let at_1d = gradient_at(Tensor::from_vec(vec![0.0], &[1]));
    assert!(at_0d.is_nan() && at_1d.is_nan(), "0-d {at_0d}, 1-d {at_1d}");
}

/// The gradient with respect to an intermediate value recorded as a compact record, on a
/// persistent tape swept twice: the same numbers each time, and right.
#[test]
fn a_compact_record_is_a_source_on_a_persistent_tape_swept_twice() {
    let x = Tensor::scalar(0.8_f64);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (z, y) = tape.record(|| {
        let z = x.sin();
        let y = &z * &z * 3.0;
        (z, y)
    });
    for _ in 0..2 {
        let (dz, dx) = tape.gradient(&y, (&z, &x)).unwrap();
        let (dz, dx) = (dz.unwrap().to_scalar(), dx.unwrap().to_scalar());
        assert!(common::close(dz, 6.0 * 0.8_f64.sin(), 1e-15), "dy/dz {dz}");
        let want = 6.0 * 0.8_f64.sin() * 0.8_f64.cos();
        assert!(common::close(dx, want, 1e-15), "dy/dx {dx}, want {want}");
    }
}

/// Compact records and general nodes in one graph, each feeding the other: a sum of a
/// vector (general) into 0-d ops (compact) back into a vector op (general).
#[test]
fn compact_records_and_general_nodes_feed_each_other() {
    fn f(v: &[f64]) -> f64 {
        let s: f64 = v.iter().sum();
        let t = s.sin() * s + s.exp() * 0.5;
        v.iter().map(|x| x * t).sum::<f64>() * t
    }
    let values = vec![0.3, -0.2, 0.5];
    let x = Tensor::from_vec(values.clone(), &[3]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        let s = x.sum();
        let t = s.sin() * &s + s.exp() * 0.5;
        (&x * &t).sum() * &t
    });
    let got = tape.gradient(&y, &x).unwrap().unwrap().to_vec();
    let want = common::central_differences(&f, &values);
    for (g, w) in got.iter().zip(&want) {
        assert!(
            common::close(*g, *w, 1e-7),
            "{got:?} vs central differences {want:?}"
        );
    }
}

/// A jacobian's sweep carries a batch axis on every cotangent, so each compact record runs
/// its general rule there.
#[test]
fn a_jacobian_of_compact_records() {
    let x = Tensor::scalar(0.6_f64);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        let parts = [x.sin(), &x * &x, x.exp() / (&x + 1.0)];
        Tensor::stack(&[&parts[0], &parts[1], &parts[2]], 0)
    });
    let j = tape.jacobian(&y, &x).unwrap().unwrap().to_vec();
    let v = 0.6_f64;
    let want = [v.cos(), 2.0 * v, v.exp() * v / ((v + 1.0) * (v + 1.0))];
    for (got, want) in j.iter().zip(want) {
        assert!(common::close(*got, want, 1e-14), "{j:?} vs {want}");
    }
}

/// A constant a compact record kept (`c` in `x · c`) is watched only by a tape entered
/// after the record: that tape's derivative of the first tape's gradient is connected to
/// it. Had the record kept only its partials, the answer would be `None`.
///
/// As in TensorFlow, the later tape knows nothing of what ran before it was entered:
/// `u = x · c` is a constant to it, so `d/dc (c · cos u) = cos u` (not the total derivative
/// `cos u − u sin u`), which the same tapes give through general nodes (the first tape in
/// anomaly mode) too.
#[test]
fn a_later_tape_differentiates_through_a_constant_a_compact_record_kept() {
    let (x, c) = (Tensor::scalar(1.3_f64), Tensor::scalar(-0.4_f64));
    let second_order = |first: GradientTape| {
        first.watch(&x);
        let y = first.record(|| (&x * &c).sin());
        let second = GradientTape::new();
        second.watch(&c);
        let dy_dx = second.record(|| first.gradient(&y, &x).unwrap().unwrap());
        let options = gradtape::GradientOptions::new().unconnected(UnconnectedGradients::None);
        let d2 = second.gradient_with(&dy_dx, &c, options).unwrap();
        (dy_dx.to_scalar(), d2.map(|d2| d2.to_scalar()))
    };
    let (dy_dx, d2) = second_order(GradientTape::persistent());
    let u = 1.3_f64 * -0.4;
    assert!(common::close(dy_dx, -0.4 * u.cos(), 1e-15), "dy/dx {dy_dx}");
    let d2 = d2.expect("connected through the value the record kept");
    assert!(common::close(d2, u.cos(), 1e-15), "{d2} vs {}", u.cos());
    let general = GradientTape::builder()
        .persistent(true)
        .check_numerics(true)
        .build();
    assert_eq!(second_order(general), (dy_dx, Some(d2)));
}
