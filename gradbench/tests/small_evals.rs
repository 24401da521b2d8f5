//! hello, llsq, lse, particle and saddle on small inputs: every derivative against central
//! finite differences of the eval's own primal, and values against hand-computed numbers.

mod common;

use common::{assert_close, finite_differences};

use gradtape_gradbench::evaluate;
use serde_json::{Value, json};

fn once(module: &str, function: &str, mut input: Value) -> Value {
    if let Some(object) = input.as_object_mut() {
        object.insert("min_runs".into(), json!(1));
        object.insert("min_seconds".into(), json!(0));
    }
    evaluate(module, function, input).unwrap().output
}

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn hello_double_is_the_derivative_of_square() {
    for x in [-3.0, 0.0, 0.5, 16384.0] {
        assert_eq!(once("hello", "square", json!(x)), json!(x * x));
        assert_eq!(once("hello", "double", json!(x)), json!(2.0 * x));
    }
}

#[test]
fn llsq_primal_matches_the_definition_and_its_gradient_finite_differences() {
    // n = 3: t = (−1, 0, 1), s = (−1, 0, 1); at x = (1, 2): residuals sᵢ − 1 − 2tᵢ = (0, −1, −2)
    let primal = once("llsq", "primal", json!({ "x": [1.0, 2.0], "n": 3 }));
    assert_eq!(primal, json!(2.5));
    let x = [0.3, -1.2, 0.7, 2.0];
    let gradient = numbers(&once("llsq", "gradient", json!({ "x": x, "n": 9 })));
    let primal = |x: &[f64]| {
        once("llsq", "primal", json!({ "x": x, "n": 9 }))
            .as_f64()
            .unwrap()
    };
    assert_close(
        "llsq gradient",
        &gradient,
        &finite_differences(primal, &x, 1e-5),
        1e-7,
    );
}

#[test]
fn lse_is_stable_and_its_gradient_is_the_softmax() {
    let x = [1000.0, 1000.0 + 2f64.ln()];
    // log(e¹⁰⁰⁰ + 2e¹⁰⁰⁰) = 1000 + log 3, without overflow
    let primal = once("lse", "primal", json!({ "x": x })).as_f64().unwrap();
    assert!((primal - (1000.0 + 3f64.ln())).abs() < 1e-12);
    let gradient = numbers(&once("lse", "gradient", json!({ "x": x })));
    assert_close("softmax", &gradient, &[1.0 / 3.0, 2.0 / 3.0], 1e-12);
    let x = [0.1, -2.0, 3.5, 0.0, 1.25];
    let gradient = numbers(&once("lse", "gradient", json!({ "x": x })));
    let primal = |x: &[f64]| once("lse", "primal", json!({ "x": x })).as_f64().unwrap();
    assert_close(
        "lse gradient",
        &gradient,
        &finite_differences(primal, &x, 1e-6),
        1e-8,
    );
}

/// The reverse-over-reverse gradient of the particle's miss distance, which `particle::rr`
/// descends on, against central differences of the miss distance itself.
#[test]
fn particle_miss_gradient_is_the_derivative_of_the_miss_distance() {
    use gradtape::Tensor;
    use gradtape_gradbench::evals::descent::{Mode, gradient};
    use gradtape_gradbench::evals::particle::miss;
    let modes = [Mode::Forward, Mode::Reverse];
    for w in [0.0, 0.2, 0.5] {
        let w = Tensor::scalar(w);
        // every pairing of the outer gradient's mode with the force's
        for (outer, inner) in modes.iter().flat_map(|&o| modes.map(|i| (o, i))) {
            let gradient = gradient(outer, |w| miss(w, inner), &w).to_scalar();
            let at = |w: f64| miss(&Tensor::scalar(w), inner).to_scalar();
            let h = 1e-6;
            let expected = (at(w.to_scalar() + h) - at(w.to_scalar() - h)) / (2.0 * h);
            assert!(
                (gradient - expected).abs() <= 1e-5 * (1.0 + expected.abs()),
                "w = {w}, {outer:?} over {inner:?}: {gradient} vs {expected}"
            );
        }
    }
}

#[test]
fn particle_and_saddle_answer_the_expected_points_in_every_variant() {
    for function in ["ff", "fr", "rf", "rr"] {
        let w = once("particle", function, json!({ "w": 0.0 }))
            .as_f64()
            .unwrap();
        assert!((w - 0.2071918746486116).abs() < 1e-9, "{function}: {w}");
        let point = numbers(&once("saddle", function, json!({ "start": [1.0, 1.0] })));
        assert_close(function, &point, &[8.246324826140356e-06; 4], 1e-10);
    }
}

/// A regression test: the descent used to start from a clone of its start point, which
/// shares the start's identity on tapes; saddle's outer search watched its point, the inner
/// search started from the same tensor, and the inner gradient `∂/∂y (|x|² − |y|²)` then
/// came out 0 (the tape saw `x` and `y` as one source), so `rr` answered the start point.
#[test]
fn the_descent_starts_from_a_new_tensor_not_a_clone_of_the_start() {
    use gradtape::{GradientTape, Tensor};
    use gradtape_gradbench::evals::descent::argmin;
    let start = Tensor::from_vec(vec![1.0, -1.0], &[2]);
    let tape = GradientTape::new();
    let point = argmin(|x| x.square().sum(), |x| x * 2.0, &start);
    tape.watch(&point);
    let value = tape.record(|| (&point * &start).sum());
    let gradient = tape.gradient(&value, &point).unwrap().unwrap();
    assert_eq!(gradient.to_vec(), start.to_vec(), "start is not a source");
}
