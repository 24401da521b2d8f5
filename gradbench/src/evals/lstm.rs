//! `lstm`: the ADBench LSTM (diagonal weights) run over a character sequence, its loss
//! (`objective`), and the gradient of the loss with respect to the main and extra parameters
//! (`jacobian`).
//!
//! Written as a user of plain Rust would, the C++ reference
//! (`gradbench-src/cpp/gradbench/evals/lstm.hpp`) loop for loop over flat slices: a copy
//! of the state updated in place, layer by layer and step by step, a sigmoid helper, and
//! the log-sum-exp of each step's prediction. [`loss`](fn@loss) and [`sigmoid`](fn@sigmoid)
//! are annotated with `#[differentiable]`; the jacobian is the generated adjoint
//! (`loss::grad_into`), no tape. The initial state and the sequence are held constant
//! (`constant(..)`): the eval asks for no derivative of them.

use gradtape::differentiable;
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{flat, parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    main_params: Vec<Vec<f64>>,
    extra_params: Vec<Vec<f64>>,
    state: Vec<Vec<f64>>,
    sequence: Vec<Vec<f64>>,
    #[serde(flatten)]
    runs: Runs,
}

/// The logistic function `1 / (1 + e⁻ˣ)`.
///
/// ```
/// use gradtape_gradbench::evals::lstm::sigmoid;
/// assert_eq!(sigmoid(0.0), 0.5);
/// ```
#[differentiable]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The loss for `b` bits per character: the mean over the sequence's steps and bits of
/// `−gold · (prediction − log(Σ exp(prediction) + 2))`, the next character being the gold.
///
/// - `main`: for each layer `i`, `8b` numbers from `8bi`: the weights of the forget,
///   input, output and change gates (`b` each), then their biases;
/// - `extra`: the input weights, the output weights and the output biases (`b` each);
/// - `state`: for each layer, its hidden state then its cell state (`b` each), from
///   `2bi`; not changed (the loss runs on a copy);
/// - `sequence`: the characters, `b` bits each, at least two.
///
/// ```
/// use gradtape_gradbench::evals::lstm::loss;
/// // one layer, one bit, zero parameters: every gate is ½ or 0, the prediction 0, and the
/// // loss −1·(0 − log(1 + 2)) over one step and bit
/// let value = loss(&[0.0; 8], &[0.0; 3], &[0.0, 0.0], &[1.0, 1.0], 1);
/// assert!((value - 3f64.ln()).abs() < 1e-15);
/// ```
#[differentiable(constant(state, sequence))]
pub fn loss(main: &[f64], extra: &[f64], state: &[f64], sequence: &[f64], b: usize) -> f64 {
    let layers = state.len() / (2 * b);
    let characters = sequence.len() / b;
    let mut current: Vec<f64> = state.to_vec();
    // a step's input to the layer being run: the weighted character for the first, the
    // hidden state of the layer below for the others
    let mut input = vec![0.0; b];
    let mut prediction = vec![0.0; b];
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..characters - 1 {
        for i in 0..b {
            input[i] = sequence[t * b + i] * extra[i];
        }
        for layer in 0..layers {
            let p = 8 * b * layer;
            let s = 2 * b * layer;
            for i in 0..b {
                let forget = sigmoid(input[i] * main[p + i] + main[p + 4 * b + i]);
                let ingate = sigmoid(current[s + i] * main[p + b + i] + main[p + 5 * b + i]);
                let outgate = sigmoid(input[i] * main[p + 2 * b + i] + main[p + 6 * b + i]);
                let change = (current[s + i] * main[p + 3 * b + i] + main[p + 7 * b + i]).tanh();
                current[s + b + i] = current[s + b + i] * forget + ingate * change;
                current[s + i] = outgate * current[s + b + i].tanh();
            }
            input.copy_from_slice(&current[s..s + b]);
        }
        // the prediction is `input · out_weight + out_bias`, bit by bit
        for i in 0..b {
            prediction[i] = input[i] * extra[b + i] + extra[2 * b + i];
        }
        let sum: f64 = prediction.iter().map(|p| p.exp()).sum();
        let lse = (sum + 2.0).ln();
        for i in 0..b {
            total += sequence[(t + 1) * b + i] * (prediction[i] - lse);
        }
        count += b;
    }
    -total / count as f64
}

/// What the loss does not differentiate: the initial state (`2l` rows of `b`, flattened)
/// and the sequence (`c` rows of `b`), and `b`.
pub struct Problem {
    /// For each layer, its hidden state then its cell state.
    pub state: Vec<f64>,
    /// The characters, one row of bits each.
    pub sequence: Vec<f64>,
    /// Bits per character, `b`.
    pub bits: usize,
}

/// The loss at `main` (`2l` rows of `4b`: row `2i` layer `i`'s weights, row `2i + 1` its
/// biases, flattened) and `extra` (`3b`): [`loss`](fn@loss) on the problem's data.
///
/// ```
/// use gradtape_gradbench::evals::lstm::{Problem, objective};
/// let problem = Problem { state: vec![0.0, 0.0], sequence: vec![1.0, 1.0], bits: 1 };
/// assert!((objective(&[0.0; 8], &[0.0; 3], &problem) - 3f64.ln()).abs() < 1e-15);
/// ```
pub fn objective(main: &[f64], extra: &[f64], problem: &Problem) -> f64 {
    loss(main, extra, &problem.state, &problem.sequence, problem.bits)
}

/// The gradient of [`objective`]: the main parameters' then the extra parameters', in
/// their flattened order, from the generated adjoint (`loss::grad_into`).
///
/// ```
/// use gradtape_gradbench::evals::lstm::{Problem, gradient};
/// let problem = Problem { state: vec![0.0, 0.0], sequence: vec![1.0, 1.0], bits: 1 };
/// let g = gradient(&[0.0; 8], &[0.0; 3], &problem);
/// assert_eq!(g.len(), 8 + 3);
/// // ∂/∂out_bias of −(p − log(eᵖ + 2)) at p = 0: −(1 − 1/3)
/// assert!((g[10] + 2.0 / 3.0).abs() < 1e-15);
/// ```
pub fn gradient(main: &[f64], extra: &[f64], problem: &Problem) -> Vec<f64> {
    let mut out = vec![0.0; main.len() + extra.len()];
    let (d_main, d_extra) = out.split_at_mut(main.len());
    loss::grad_into(
        main,
        extra,
        &problem.state,
        &problem.sequence,
        problem.bits,
        d_main,
        d_extra,
    );
    out
}

/// `lstm::objective` and `lstm::jacobian`.
///
/// ```
/// use serde_json::json;
/// let input = json!({
///     "main_params": [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], "extra_params": [[0.0], [0.0], [0.0]],
///     "state": [[0.0], [0.0]], "sequence": [[1.0], [1.0]],
///     "min_runs": 1, "min_seconds": 0,
/// });
/// let done = gradtape_gradbench::evals::lstm::evaluate("objective", input).unwrap();
/// assert!((done.output.as_f64().unwrap() - 3f64.ln()).abs() < 1e-15);
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input {
        main_params,
        extra_params,
        state,
        sequence,
        runs,
    } = parse("lstm", input)?;
    let layers = main_params.len() / 2;
    require("lstm", layers >= 1 && main_params.len() % 2 == 0, || {
        format!(
            "`main_params` has {} rows: it needs two (weights, biases) per layer, at least one layer",
            main_params.len()
        )
    })?;
    let b = main_params[0].len() / 4;
    require("lstm", b >= 1 && main_params[0].len() % 4 == 0, || {
        format!(
            "`main_params[0]` has {} numbers: it needs four gates of b ≥ 1 each",
            main_params[0].len()
        )
    })?;
    let c = sequence.len();
    require("lstm", c >= 2, || {
        format!("`sequence` has {c} characters: the loss needs at least two")
    })?;
    let main = flat("lstm", "main_params", main_params, 2 * layers, 4 * b)?;
    let extra = flat("lstm", "extra_params", extra_params, 3, b)?;
    let problem = Problem {
        state: flat("lstm", "state", state, 2 * layers, b)?,
        sequence: flat("lstm", "sequence", sequence, c, b)?,
        bits: b,
    };
    match function {
        "objective" => Ok(runs.evaluate(|| objective(&main, &extra, &problem))),
        "jacobian" => Ok(runs.evaluate(|| gradient(&main, &extra, &problem))),
        _ => Err(Failure::UnknownFunction {
            module: "lstm",
            function: function.to_owned(),
            known: "`objective` and `jacobian`",
        }),
    }
}
