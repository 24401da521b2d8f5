//! `ode`: the gradient against central differences of the primal, hand-computed values,
//! and bad input answered as `BadInput`.

mod common;

use gradtape::Tensor;
use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::ode::{evaluate, gradient, solve};
use serde_json::{Value, json};

fn run(function: &str, x: &[f64], s: usize) -> Vec<f64> {
    let input = json!({ "x": x, "s": s, "min_runs": 1, "min_seconds": 0 });
    let done = evaluate(function, input).unwrap();
    serde_json::from_value(done.output).unwrap()
}

fn last(x: &[f64], s: usize) -> f64 {
    *run("primal", x, s).last().unwrap()
}

#[test]
fn gradient_matches_central_differences() {
    for (n, s) in [(1, 1), (2, 3), (5, 1), (6, 7), (9, 20)] {
        let x: Vec<f64> = (0..n).map(|i| 0.4 + 0.13 * i as f64).collect();
        let got = run("gradient", &x, s);
        assert_eq!(got.len(), n);
        let expected = common::finite_differences(|x| last(x, s), &x, 1e-6);
        common::assert_close(&format!("n = {n}, s = {s}, x"), &got, &expected, 1e-7);
    }
}

#[test]
fn one_step_by_hand() {
    // One RK4 step of h = 2 from y = 0 for n = 3, x = (1, 2, 3):
    // k1 = f(0) = (1, 0, 0); k2 = f(k1) = (1, 2, 0); k3 = f(k2) = (1, 2, 6);
    // k4 = f(2 k3) = (1, 4, 12); y = (k1 + 2 k2 + 2 k3 + k4) / 3 = (2, 4, 8).
    let y = run("primal", &[1.0, 2.0, 3.0], 1);
    assert_eq!(y, vec![2.0, 4.0, 8.0]);
    // Symbolically k3₂ = x₀x₁x₂ h²/4 and k4₂ = x₀x₁x₂ h²/2, so y₂ = h/6 (2 k3₂ + k4₂)
    // = (4/3) x₀x₁x₂ and its gradient is (4/3)(x₁x₂, x₀x₂, x₀x₁) = (8, 4, 8/3).
    let g = gradient(&Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]), 1);
    let expected = [8.0, 4.0, 8.0 / 3.0];
    for (a, b) in g.iter().zip(expected) {
        assert!((a - b).abs() < 1e-13, "{g:?} vs {expected:?}");
    }
    assert_eq!(
        solve(&Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]), 1).to_vec(),
        y
    );
}

fn bad(function: &str, input: Value) -> String {
    common::bad_input_reason("ode", evaluate(function, input))
}

#[test]
fn bad_input_is_reported() {
    let runs = json!({ "min_runs": 1, "min_seconds": 0 });
    let with = |mut v: Value| {
        v.as_object_mut()
            .unwrap()
            .extend(runs.as_object().unwrap().clone());
        v
    };
    assert!(bad("primal", with(json!({ "y": [1.0], "s": 1 }))).contains("missing field `x`"));
    assert!(bad("gradient", with(json!({ "x": [], "s": 1 }))).contains("x is empty"));
    assert!(bad("primal", with(json!({ "x": [1.0], "s": 0 }))).contains("s = 0"));
    assert!(
        bad("primal", with(json!({ "x": [1.0], "s": -1 }))).contains("invalid value: integer `-1`")
    );
    assert!(matches!(
        evaluate("hessian", with(json!({ "x": [1.0], "s": 1 }))),
        Err(Failure::UnknownFunction { .. })
    ));
}
