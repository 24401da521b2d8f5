//! `lstm`: the jacobian against central finite differences of the objective, values against
//! hand-computed ones, and bad inputs answered with `BadInput`.

mod common;

use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::lstm::{Problem, evaluate, gradient, objective};
use serde_json::{Value, json};

/// Numbers in [0, 1), deterministic.
fn numbers(count: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// `l` layers, `b` bits, `c` characters: parameters and state in [0, 1) as the eval draws
/// them, the sequence of bits 0 and 1.
fn case(l: usize, b: usize, c: usize) -> (Vec<f64>, Vec<f64>, Problem) {
    let main = numbers(2 * l * 4 * b, 1);
    let extra = numbers(3 * b, 2);
    let problem = Problem {
        state: numbers(2 * l * b, 4),
        sequence: numbers(c * b, 3).iter().map(|x| x.round()).collect(),
        bits: b,
    };
    (main, extra, problem)
}

fn check_against_finite_differences(l: usize, b: usize, c: usize) {
    let (main, extra, problem) = case(l, b, c);
    let analytic = gradient(&main, &extra, &problem);
    assert_eq!(analytic.len(), main.len() + extra.len());
    let h = 1e-5;
    let at = |index: usize, delta: f64| {
        let (mut m, mut e) = (main.clone(), extra.clone());
        if index < m.len() {
            m[index] += delta;
        } else {
            e[index - m.len()] += delta;
        }
        objective(&m, &e, &problem)
    };
    for (index, &a) in analytic.iter().enumerate() {
        let numeric = (at(index, h) - at(index, -h)) / (2.0 * h);
        assert!(
            (a - numeric).abs() < 1e-8 * (1.0 + numeric.abs()),
            "l={l} b={b} c={c}, parameter {index}: gradtape {a}, finite differences {numeric}"
        );
    }
}

#[test]
fn the_jacobian_matches_finite_differences() {
    check_against_finite_differences(1, 2, 4);
    check_against_finite_differences(2, 3, 5);
    check_against_finite_differences(3, 2, 3);
    check_against_finite_differences(3, 2, 2);
    check_against_finite_differences(4, 1, 9);
}

#[test]
fn one_step_of_one_bit_by_hand() {
    // one layer, b = 1, zero parameters and state: the gates are ½, ½, ½ and tanh 0 = 0, so
    // the cell and hidden state stay 0 and the prediction is 0; the loss is
    // −1·(0 − log(e⁰ + 2)) = log 3
    let input = json!({
        "main_params": [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], "extra_params": [[0.0], [0.0], [0.0]],
        "state": [[0.0], [0.0]], "sequence": [[1.0], [1.0]],
        "min_runs": 3, "min_seconds": 0,
    });
    let done = evaluate("objective", input.clone()).unwrap();
    assert!((done.output.as_f64().unwrap() - 3f64.ln()).abs() < 1e-15);
    assert_eq!(done.timings.len(), 3);
    // only the output bias reaches the loss at zero: ∂/∂p −(p − log(eᵖ + 2)) = −(1 − 1/3);
    // out_weight multiplies the hidden state 0, and every gate's effect goes through it
    let jacobian = evaluate("jacobian", input).unwrap().output;
    let expected = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0 / 3.0];
    let got: Vec<f64> = serde_json::from_value(jacobian).unwrap();
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert!((g - e).abs() < 1e-15, "{got:?}");
    }
}

#[test]
fn two_steps_by_hand() {
    // one layer, b = 1, every weight 0 and every bias 0 except the change gate's bias
    // β = 1: the cell goes 0 → ½·tanh 1 → ¼ tanh 1 + ½ tanh 1 and the hidden state is ½·tanh
    // of it; the output weight 1 and bias 0 predict the hidden state, the gold is 1 then 0
    let input = json!({
        "main_params": [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
        "extra_params": [[0.0], [1.0], [0.0]],
        "state": [[0.0], [0.0]], "sequence": [[0.0], [1.0], [0.0]],
        "min_runs": 1, "min_seconds": 0,
    });
    let t = 1f64.tanh();
    let h1 = 0.5 * (0.5 * t).tanh();
    // the second step's gold is 0: it adds nothing to the total, over 2 steps · 1 bit
    let expected = -(h1 - (h1.exp() + 2.0).ln()) / 2.0;
    let done = evaluate("objective", input).unwrap();
    assert!((done.output.as_f64().unwrap() - expected).abs() < 1e-15);
}

fn bad_input(input: Value) -> String {
    common::bad_input_reason("lstm", evaluate("jacobian", input))
}

#[test]
fn bad_inputs_are_answered_not_panicked_on() {
    let good = json!({
        "main_params": [[0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2], [0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3], [0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]],
        "extra_params": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]],
        "state": [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
        "sequence": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        "min_runs": 1, "min_seconds": 0,
    });
    assert!(evaluate("jacobian", good.clone()).is_ok());

    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("state");
    assert!(bad_input(missing).contains("state"));

    let mut odd_rows = good.clone();
    odd_rows["main_params"] = json!([
        [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
        [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
        [0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    ]);
    assert!(bad_input(odd_rows).contains("main_params"));

    let mut not_four_gates = good.clone();
    not_four_gates["main_params"] = json!([
        [0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
        [0.2, 0.2, 0.2, 0.2, 0.2, 0.2]
    ]);
    assert!(bad_input(not_four_gates).contains("main_params"));

    let mut ragged = good.clone();
    ragged["main_params"][3] = json!([0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]);
    assert!(bad_input(ragged).contains("main_params[3]"));

    let mut short_extra = good.clone();
    short_extra["extra_params"][1] = json!([0.5]);
    assert!(bad_input(short_extra).contains("extra_params[1]"));

    let mut one_layer_of_state = good.clone();
    one_layer_of_state["state"] = json!([[0.0, 0.0], [0.0, 0.0]]);
    assert!(bad_input(one_layer_of_state).contains("state"));

    let mut one_character = good.clone();
    one_character["sequence"] = json!([[1.0, 0.0]]);
    assert!(bad_input(one_character).contains("sequence"));

    let mut wide_character = good.clone();
    wide_character["sequence"][2] = json!([1.0, 1.0, 1.0]);
    assert!(bad_input(wide_character).contains("sequence[2]"));

    let mut no_parameters = good;
    no_parameters["main_params"] = json!([]);
    assert!(bad_input(no_parameters).contains("main_params"));
}

#[test]
fn an_unknown_function_is_named() {
    let input = json!({
        "main_params": [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], "extra_params": [[0.0], [0.0], [0.0]],
        "state": [[0.0], [0.0]], "sequence": [[1.0], [1.0]],
        "min_runs": 1, "min_seconds": 0,
    });
    match evaluate("hessian", input) {
        Err(Failure::UnknownFunction { function, .. }) => assert_eq!(function, "hessian"),
        other => panic!("expected UnknownFunction, got {other:?}"),
    }
}
