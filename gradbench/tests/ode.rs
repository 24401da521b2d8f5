//! `ode`: the annotated solver's gradient against central differences of the primal, the
//! same solve recorded op by op on a tape, the exact solution's gradient where RK4 is
//! exact, and hand-computed values; bad input answered as `BadInput`.

mod common;

use gradtape::{GradientTape, Tensor};
use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::ode::{evaluate, last_element, solve};
use serde_json::{Value, json};

/// The same solve written with tensors and recorded op by op (the eval's former
/// implementation): an oracle independent of the generated adjoint.
fn gradient_on_the_tape(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let x = Tensor::from_vec(x.to_vec(), &[n]);
    let rate =
        |y: &Tensor<f64>| &x * Tensor::concat(&[&Tensor::ones(&[1]), &y.slice(0, 0, n - 1)], 0);
    let h = 2.0 / s as f64;
    let tape = GradientTape::new();
    tape.watch(&x);
    let last = tape.record(|| {
        let mut y = Tensor::zeros(&[n]);
        for _ in 0..s {
            let k1 = rate(&y);
            let k2 = rate(&(&y + &k1 * (h / 2.0)));
            let k3 = rate(&(&y + &k2 * (h / 2.0)));
            let k4 = rate(&(&y + &k3 * h));
            y = &y + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
        }
        y.slice(0, n - 1, 1).sum()
    });
    tape.gradient(&last, &x).unwrap().unwrap().to_vec()
}

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
        let taped = gradient_on_the_tape(&x, s);
        common::assert_close(&format!("n = {n}, s = {s}, tape"), &got, &taped, 1e-12);
    }
}

/// For `n ≤ 4` every `yᵢ` is a polynomial of degree `i + 1 ≤ 4` in `t`, which RK4
/// integrates exactly, so the gradient is the exact solution's (the closed form `manual`
/// answers): `∂y_{n−1}(2)/∂xᵢ = y_{n−1}(2) / xᵢ` with `y_{n−1}(2) = Π xᵢ 2ⁿ / n!`.
#[test]
fn gradient_is_the_exact_solutions_where_rk4_is_exact() {
    for n in 1..=4 {
        for s in [1, 2, 5] {
            let x: Vec<f64> = (0..n).map(|i| 0.7 + 0.31 * i as f64).collect();
            let exact_last: f64 = (0..n).map(|i| x[i] * 2.0 / (i + 1) as f64).product();
            let expected: Vec<f64> = x.iter().map(|xi| exact_last / xi).collect();
            let mut got = vec![0.0; n];
            last_element::grad_into(&x, s, &mut got);
            common::assert_close(&format!("n = {n}, s = {s}"), &got, &expected, 1e-13);
            assert!((last_element(&x, s) - exact_last).abs() < 1e-13);
        }
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
    let mut g = vec![0.0; 3];
    last_element::grad_into(&[1.0, 2.0, 3.0], 1, &mut g);
    let expected = [8.0, 4.0, 8.0 / 3.0];
    for (a, b) in g.iter().zip(expected) {
        assert!((a - b).abs() < 1e-13, "{g:?} vs {expected:?}");
    }
    let mut direct = vec![f64::NAN; 3];
    solve(&[1.0, 2.0, 3.0], 1, &mut direct);
    assert_eq!(direct, y);
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
