//! `lstm`: the ADBench LSTM (diagonal weights) run over a character sequence, its loss
//! (`objective`), and the gradient of the loss with respect to the main and extra parameters
//! (`jacobian`).
//!
//! Written as a user with tensors would, one step of the sequence at a time, each layer's
//! hidden and cell state a `[1, b]` tensor kept in a `Vec` (the C++ reference's layout). The
//! gradient comes from the tape op by op (`GradientTape::record` over the same function, then
//! `gradient`), not from `#[differentiable]`: the attribute cannot yet express a `Vec` of
//! states updated per layer (issue 13). Assigning `hidden[layer] = …` is rejected ("a
//! `#[differentiable]` function can assign only to its own `let mut` locals: mutation through
//! references, fields or indexing has no adjoint"), and so is building the next step's `Vec`
//! ("`push` is not a differentiable method known to `#[differentiable]`").

use gradtape::{GradientTape, Tensor};
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{parse, require};
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

/// What the loss does not differentiate: the initial state and the sequence.
pub struct Problem {
    /// `[2l, b]`: row `2i` is layer `i`'s hidden state, row `2i + 1` its cell state.
    pub state: Tensor<f64>,
    /// `[c, b]`: the characters, one row of bits each.
    pub sequence: Tensor<f64>,
}

/// One layer's parameters, each `[1, b]`: the weights and biases of its four gates.
struct Layer {
    forget: (Tensor<f64>, Tensor<f64>),
    ingate: (Tensor<f64>, Tensor<f64>),
    outgate: (Tensor<f64>, Tensor<f64>),
    change: (Tensor<f64>, Tensor<f64>),
}

impl Layer {
    /// Layer `i` of `main` (`[2l, 4b]`: row `2i` its weights, row `2i + 1` its biases, each
    /// in the order forget, ingate, outgate, change).
    fn of(main: &Tensor<f64>, i: usize, b: usize) -> Layer {
        let (weight, bias) = (main.slice(0, 2 * i, 1), main.slice(0, 2 * i + 1, 1));
        let gate = |g: usize| (weight.slice(1, g * b, b), bias.slice(1, g * b, b));
        Layer {
            forget: gate(0),
            ingate: gate(1),
            outgate: gate(2),
            change: gate(3),
        }
    }

    /// One step: the new hidden and cell state from the input, the hidden and the cell state.
    fn step(
        &self,
        input: &Tensor<f64>,
        hidden: &Tensor<f64>,
        cell: &Tensor<f64>,
    ) -> (Tensor<f64>, Tensor<f64>) {
        let affine = |x: &Tensor<f64>, (w, b): &(Tensor<f64>, Tensor<f64>)| x * w + b;
        let forget = affine(input, &self.forget).sigmoid();
        let ingate = affine(hidden, &self.ingate).sigmoid();
        let outgate = affine(input, &self.outgate).sigmoid();
        let change = affine(hidden, &self.change).tanh();
        let cell = cell * forget + ingate * change;
        let hidden = outgate * cell.tanh();
        (hidden, cell)
    }
}

/// The loss at `main` (`[2l, 4b]`) and `extra` (`[3, b]`: the input weights, the output
/// weights and the output biases): the mean over the sequence's steps and bits of
/// `−gold · (prediction − log(Σ exp(prediction) + 2))`, the next character being the gold.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::lstm::{Problem, objective};
/// // one layer, one bit, zero parameters: every gate is ½ or 0, the prediction 0, and the
/// // loss −1·(0 − log(1 + 2)) over one step and bit
/// let problem = Problem {
///     state: Tensor::from_vec(vec![0.0, 0.0], &[2, 1]),
///     sequence: Tensor::from_vec(vec![1.0, 1.0], &[2, 1]),
/// };
/// let main = Tensor::from_vec(vec![0.0; 8], &[2, 4]);
/// let extra = Tensor::from_vec(vec![0.0; 3], &[3, 1]);
/// let loss = objective(&main, &extra, &problem).to_scalar();
/// assert!((loss - 3f64.ln()).abs() < 1e-15);
/// ```
pub fn objective(main: &Tensor<f64>, extra: &Tensor<f64>, problem: &Problem) -> Tensor<f64> {
    let (c, b) = (problem.sequence.shape()[0], problem.sequence.shape()[1]);
    let layers: Vec<Layer> = (0..main.shape()[0] / 2)
        .map(|i| Layer::of(main, i, b))
        .collect();
    let (in_weight, out_weight, out_bias) = (
        extra.slice(0, 0, 1),
        extra.slice(0, 1, 1),
        extra.slice(0, 2, 1),
    );
    let mut hidden: Vec<Tensor<f64>> = (0..layers.len())
        .map(|i| problem.state.slice(0, 2 * i, 1))
        .collect();
    let mut cell: Vec<Tensor<f64>> = (0..layers.len())
        .map(|i| problem.state.slice(0, 2 * i + 1, 1))
        .collect();
    let mut total = Tensor::scalar(0.0);
    let mut input = problem.sequence.slice(0, 0, 1);
    for t in 0..c - 1 {
        let mut x = &input * &in_weight;
        for (i, layer) in layers.iter().enumerate() {
            (hidden[i], cell[i]) = layer.step(&x, &hidden[i], &cell[i]);
            x = hidden[i].clone();
        }
        let prediction = x * &out_weight + &out_bias;
        let lse = (prediction.exp().sum() + 2.0).ln();
        let gold = problem.sequence.slice(0, t + 1, 1);
        total = total + (&gold * (prediction - lse)).sum();
        input = gold;
    }
    -total / ((c - 1) * b) as f64
}

/// The gradient of [`objective`]: the main parameters' then the extra parameters',
/// each flattened row by row.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::lstm::{Problem, gradient};
/// let problem = Problem {
///     state: Tensor::from_vec(vec![0.0, 0.0], &[2, 1]),
///     sequence: Tensor::from_vec(vec![1.0, 1.0], &[2, 1]),
/// };
/// let main = Tensor::from_vec(vec![0.0; 8], &[2, 4]);
/// let extra = Tensor::from_vec(vec![0.0; 3], &[3, 1]);
/// let g = gradient(&main, &extra, &problem);
/// assert_eq!(g.len(), 8 + 3);
/// // ∂/∂out_bias of −(p − log(eᵖ + 2)) at p = 0: −(1 − 1/3)
/// assert!((g[10] + 2.0 / 3.0).abs() < 1e-15);
/// ```
pub fn gradient(main: &Tensor<f64>, extra: &Tensor<f64>, problem: &Problem) -> Vec<f64> {
    let tape = GradientTape::new();
    tape.watch(main);
    tape.watch(extra);
    let loss = tape.record(|| objective(main, extra, problem));
    let [d_main, d_extra] = tape
        .gradient(&loss, [main, extra])
        .expect("a fresh tape computes one gradient");
    let expect = "the loss depends on every parameter";
    let mut out = d_main.expect(expect).to_vec();
    out.extend(d_extra.expect(expect).to_vec());
    out
}

/// Flattens `rows`, requiring `count` rows of `len` numbers each.
fn matrix(
    field: &str,
    rows: Vec<Vec<f64>>,
    count: usize,
    len: usize,
) -> Result<Tensor<f64>, Failure> {
    require("lstm", rows.len() == count, || {
        format!("`{field}` has {} rows, expected {count}", rows.len())
    })?;
    if let Some((i, row)) = rows.iter().enumerate().find(|(_, row)| row.len() != len) {
        return Err(Failure::BadInput {
            module: "lstm",
            reason: format!("`{field}[{i}]` has {} numbers, expected {len}", row.len()),
        });
    }
    Ok(Tensor::from_vec(rows.concat(), &[count, len]))
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
    let main = matrix("main_params", main_params, 2 * layers, 4 * b)?;
    let extra = matrix("extra_params", extra_params, 3, b)?;
    let problem = Problem {
        state: matrix("state", state, 2 * layers, b)?,
        sequence: matrix("sequence", sequence, c, b)?,
    };
    match function {
        "objective" => Ok(runs.evaluate(|| objective(&main, &extra, &problem).to_scalar())),
        "jacobian" => Ok(runs.evaluate(|| gradient(&main, &extra, &problem))),
        _ => Err(Failure::UnknownFunction {
            module: "lstm",
            function: function.to_owned(),
            known: "`objective` and `jacobian`",
        }),
    }
}
