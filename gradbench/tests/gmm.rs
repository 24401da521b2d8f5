//! `gmm`: the jacobian against central finite differences of the objective, values against
//! hand-computed ones, and bad inputs answered with `BadInput`.

mod common;

use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::gmm::evaluate;
use serde_json::{Value, json};

/// A small deterministic input: `d` dimensions, `k` components, `n` points.
fn input(d: usize, k: usize, n: usize, m: usize, gamma: f64) -> Value {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        // xorshift, then a number in [-1, 1)
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let mut rows = |count: usize, len: usize, scale: f64| -> Vec<Vec<f64>> {
        (0..count)
            .map(|_| (0..len).map(|_| scale * next()).collect())
            .collect()
    };
    let x = rows(n, d, 1.5);
    let alpha: Vec<f64> = rows(1, k, 1.0).concat();
    let mu = rows(k, d, 1.0);
    let q = rows(k, d, 0.5);
    let l = rows(k, d * (d - 1) / 2, 0.7);
    json!({
        "d": d, "k": k, "n": n, "x": x, "m": m, "gamma": gamma,
        "alpha": alpha, "mu": mu, "q": q, "l": l,
        "min_runs": 1, "min_seconds": 0,
    })
}

fn objective(input: &Value) -> f64 {
    evaluate("objective", input.clone())
        .unwrap()
        .output
        .as_f64()
        .unwrap()
}

/// Each of the jacobian's numbers against `(f(p + h) − f(p − h)) / 2h` of the objective.
fn check_against_finite_differences(input: &Value) {
    let jacobian = evaluate("jacobian", input.clone()).unwrap().output;
    let h = 1e-5;
    let mut checked = 0;
    for field in ["alpha", "mu", "q", "l"] {
        let flat = |v: &Value| -> Vec<f64> {
            match v {
                Value::Array(items) if items.iter().all(Value::is_number) => {
                    items.iter().map(|x| x.as_f64().unwrap()).collect()
                }
                Value::Array(rows) => rows
                    .iter()
                    .flat_map(|row| row.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
                    .collect(),
                _ => panic!("{field}: not an array"),
            }
        };
        let derivative = flat(&jacobian[field]);
        let values = flat(&input[field]);
        assert_eq!(derivative.len(), values.len(), "{field}: length");
        let at = |index: usize, delta: f64| {
            let mut moved = input.clone();
            let target = match &mut moved[field] {
                Value::Array(items) if items.iter().all(Value::is_number) => &mut items[index],
                Value::Array(rows) => {
                    let len = rows[0].as_array().unwrap().len();
                    &mut rows[index / len][index % len]
                }
                _ => unreachable!(),
            };
            *target = json!(values[index] + delta);
            objective(&moved)
        };
        for (index, &analytic) in derivative.iter().enumerate() {
            let numeric = (at(index, h) - at(index, -h)) / (2.0 * h);
            let error = (analytic - numeric).abs() / (1.0 + numeric.abs());
            assert!(
                error < 1e-6,
                "{field}[{index}]: gradtape {analytic}, finite differences {numeric}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn the_jacobian_matches_finite_differences() {
    check_against_finite_differences(&input(3, 2, 5, 0, 1.0));
    check_against_finite_differences(&input(4, 3, 7, 2, 0.8));
    check_against_finite_differences(&input(1, 2, 3, 1, 1.3));
    check_against_finite_differences(&input(2, 1, 1, 0, 1.0));
}

#[test]
fn one_component_in_one_dimension_by_hand() {
    // d = k = n = 1, Q = [e^0] = [1], the point one away from the mean, m = 0, γ = 1:
    // β = α + q − ½(x − μ)² = −½, and the prior (n_w = 2) adds 2·log(1/√2) − log Γ(1) − ½·1²
    let input = json!({
        "d": 1, "k": 1, "n": 1, "x": [[1.5]], "m": 0, "gamma": 1.0,
        "alpha": [0.0], "mu": [[0.5]], "q": [[0.0]], "l": [[]],
        "min_runs": 2, "min_seconds": 0,
    });
    let expected = -0.5 - 0.5 * (2.0 * std::f64::consts::PI).ln() - 2f64.ln() - 0.5;
    let done = evaluate("objective", input.clone()).unwrap();
    assert!((done.output.as_f64().unwrap() - expected).abs() < 1e-12);
    assert_eq!(done.timings.len(), 2);
    // ∂/∂α = 1 − 1 (one component), ∂/∂μ = e^{2q}(x − μ) = 1,
    // ∂/∂q = 1 − e^{2q}(x − μ)² − γ²e^{2q} = −1, and no l
    let gradient = evaluate("jacobian", input).unwrap().output;
    assert_eq!(gradient["alpha"], json!([0.0]));
    assert!((gradient["mu"][0][0].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((gradient["q"][0][0].as_f64().unwrap() + 1.0).abs() < 1e-12);
    assert_eq!(gradient["l"], json!([[]]));
}

#[test]
fn the_jacobian_has_the_inputs_shape() {
    let gradient = evaluate("jacobian", input(3, 2, 4, 0, 1.0)).unwrap().output;
    assert_eq!(gradient["alpha"].as_array().unwrap().len(), 2);
    for (field, len) in [("mu", 3), ("q", 3), ("l", 3)] {
        let rows = gradient[field].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{field}");
        assert!(
            rows.iter().all(|row| row.as_array().unwrap().len() == len),
            "{field}"
        );
    }
}

fn bad_input(input: Value) -> String {
    common::bad_input_reason("gmm", evaluate("objective", input))
}

#[test]
fn bad_inputs_are_answered_not_panicked_on() {
    let good = input(3, 2, 4, 0, 1.0);
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("gamma");
    assert!(bad_input(missing).contains("gamma"));

    let mut wrong_type = good.clone();
    wrong_type["x"] = json!("points");
    bad_input(wrong_type);

    let mut short_row = good.clone();
    short_row["mu"][1] = json!([0.0, 1.0]);
    assert!(bad_input(short_row).contains("mu[1]"));

    let mut too_few_alphas = good.clone();
    too_few_alphas["alpha"] = json!([0.0]);
    assert!(bad_input(too_few_alphas).contains("alpha"));

    let mut more_points = good.clone();
    more_points["n"] = json!(5);
    assert!(bad_input(more_points).contains("`x`"));

    let mut wrong_l = good.clone();
    wrong_l["l"][0] = json!([0.0]);
    assert!(bad_input(wrong_l).contains("l[0]"));

    let mut no_components = good.clone();
    no_components["k"] = json!(0);
    bad_input(no_components);

    let mut negative_gamma = good;
    negative_gamma["gamma"] = json!(-1.0);
    assert!(bad_input(negative_gamma).contains("gamma"));
}

#[test]
fn an_unknown_function_is_named() {
    match evaluate("hessian", input(2, 2, 2, 0, 1.0)) {
        Err(Failure::UnknownFunction { function, .. }) => assert_eq!(function, "hessian"),
        other => panic!("expected UnknownFunction, got {other:?}"),
    }
}

/// The objective and its gradient at the parameters of `input`, the points in blocks of
/// `rows`.
fn in_blocks(input: &Value, rows: usize) -> (f64, Vec<Vec<f64>>) {
    use gradtape::Tensor;
    use gradtape_gradbench::evals::gmm::{Problem, objective};
    let (d, k) = (
        input["d"].as_u64().unwrap() as usize,
        input["k"].as_u64().unwrap() as usize,
    );
    let matrix = |field: &str| -> Tensor<f64> {
        let rows: Vec<Vec<f64>> = serde_json::from_value(input[field].clone()).unwrap();
        let len = rows[0].len();
        Tensor::from_vec(rows.concat(), &[rows.len(), len])
    };
    let alpha: Vec<f64> = serde_json::from_value(input["alpha"].clone()).unwrap();
    let alpha = Tensor::from_vec(alpha, &[k]);
    let (mu, q, l) = (matrix("mu"), matrix("q"), matrix("l"));
    let problem = Problem::in_blocks_of(rows, matrix("x"), k, 1, 1.1);
    assert_eq!(problem.d, d);
    let value = objective(&alpha, &mu, &q, &l, &problem).to_scalar();
    let (same, pullback) = objective::vjp(&alpha, &mu, &q, &l, &problem);
    assert_eq!(same.to_scalar(), value);
    let (da, dm, dq, dl, ()) = pullback(Tensor::scalar(1.0));
    let grads = [da, dm, dq, dl].map(|g| g.unwrap().to_vec()).to_vec();
    (value, grads)
}

#[test]
fn blocks_of_points_change_nothing_but_rounding() {
    let input = input(3, 2, 7, 1, 1.1);
    let (value, grads) = in_blocks(&input, 7);
    assert_eq!(objective(&input), {
        // the evaluate path (one block at this size) agrees with the pub objective
        let (v, _) = in_blocks(&input, 100);
        v
    });
    for rows in [1, 2, 3, 6] {
        let (v, g) = in_blocks(&input, rows);
        assert!(
            (v - value).abs() < 1e-12 * value.abs(),
            "rows = {rows}: {v} vs {value}"
        );
        for (a, b) in g.iter().flatten().zip(grads.iter().flatten()) {
            assert!(
                (a - b).abs() < 1e-12 * (1.0 + b.abs()),
                "rows = {rows}: {a} vs {b}"
            );
        }
    }
}
