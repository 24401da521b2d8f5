//! `lstm`: the ADBench LSTM (diagonal weights) run over a character sequence, its loss
//! (`objective`), and the gradient of the loss with respect to the main and extra parameters
//! (`jacobian`).
//!
//! Written with tensors over the layers of a *wave* (the wavefront schedule of stacked
//! recurrent networks): wave `w` runs step `w − i` of every layer `i`, whose input, layer
//! `i − 1`'s hidden state at that step, the wave before produced. Each op then updates the
//! `[l, b]` states of all layers at once instead of one layer's `[1, b]`: the same arithmetic
//! element for element as the C++ reference's loop over steps and layers, in about `l` times
//! fewer (tiny) ops. The last layer's hidden states are collected, and the predictions and
//! the loss computed for all steps at once.
//!
//! The gradient comes from the tape op by op (`GradientTape::record` over the same function,
//! then `gradient`), not from `#[differentiable]`: the attribute cannot yet express a `Vec`
//! of tensors built in a loop (issue 13). The reference's own layout, a `Vec` of per-layer
//! states, is rejected at `hidden[layer] = …` ("a `#[differentiable]` function can assign
//! only to its own `let mut` locals: mutation through references, fields or indexing has no
//! adjoint"), and collecting the outputs at `outputs.push(…)` ("`push` is not a
//! differentiable method known to `#[differentiable]`").

use gradtape::{GradientTape, Tensor};
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{matrix, parse, require};
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

/// The loss at `main` (`[2l, 4b]`: row `2i` layer `i`'s weights, row `2i + 1` its biases, each
/// in the order forget, ingate, outgate, change) and `extra` (`[3, b]`: the input weights,
/// the output weights and the output biases): the mean over the sequence's steps and bits of
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
    let (layers, steps) = (main.shape()[0] / 2, c - 1);
    let even: Vec<usize> = (0..layers).map(|i| 2 * i).collect();
    let odd: Vec<usize> = (0..layers).map(|i| 2 * i + 1).collect();
    // each gate's weights and biases for all layers, [l, b]
    let (weights, biases) = (main.gather(0, &even), main.gather(0, &odd));
    let gate = |g: usize| Gate {
        weight: weights.slice(1, g * b, b),
        bias: biases.slice(1, g * b, b),
    };
    let gates = [gate(0), gate(1), gate(2), gate(3)];
    let mut hidden = problem.state.gather(0, &even);
    let mut cell = problem.state.gather(0, &odd);
    let in_weight = extra.slice(0, 0, 1);
    let mut outputs = Vec::with_capacity(steps);
    // wave w runs step w − i of every layer i that has one: layer i's input is what layer
    // i − 1 produced in the wave before, so the layers of a wave are independent
    for wave in 0..steps + layers - 1 {
        let (lo, hi) = ((wave + 1).saturating_sub(steps), (wave + 1).min(layers));
        // (the first layer's input is made here rather than sliced from all steps' inputs
        // made at once: a slice's cotangent is padded to its source's size, so slicing a
        // [steps, b] tensor at every step would make the gradient quadratic in the steps)
        let input = if lo > 0 {
            hidden.slice(0, lo - 1, hi - lo)
        } else if hi > 1 {
            let first = problem.sequence.slice(0, wave, 1) * &in_weight;
            Tensor::concat(&[&first, &hidden.slice(0, 0, hi - 1)], 0)
        } else {
            problem.sequence.slice(0, wave, 1) * &in_weight
        };
        let active = |t: &Tensor<f64>| {
            if hi - lo == layers {
                t.clone()
            } else {
                t.slice(0, lo, hi - lo)
            }
        };
        let g = |k: usize, x: &Tensor<f64>| x * active(&gates[k].weight) + active(&gates[k].bias);
        let forget = g(0, &input).sigmoid();
        let ingate = g(1, &active(&hidden)).sigmoid();
        let outgate = g(2, &input).sigmoid();
        let change = g(3, &active(&hidden)).tanh();
        let new_cell = active(&cell) * forget + ingate * change;
        let new_hidden = outgate * new_cell.tanh();
        if hi == layers {
            outputs.push(new_hidden.slice(0, hi - lo - 1, 1));
        }
        (hidden, cell) = if hi - lo == layers {
            (new_hidden, new_cell)
        } else {
            (
                splice(&hidden, lo, &new_hidden),
                splice(&cell, lo, &new_cell),
            )
        };
    }
    // the last layer's hidden states, [steps, b], give every step's prediction at once
    let outputs: Vec<&Tensor<f64>> = outputs.iter().collect();
    let prediction = Tensor::concat(&outputs, 0) * extra.slice(0, 1, 1) + extra.slice(0, 2, 1);
    let lse = (prediction.exp().sum_axis(1, true) + 2.0).ln();
    let gold = problem.sequence.slice(0, 1, steps);
    -(gold * (prediction - lse)).sum() / (steps * b) as f64
}

/// One gate's weights and biases for all layers, `[l, b]` each.
struct Gate {
    weight: Tensor<f64>,
    bias: Tensor<f64>,
}

/// `all` with the rows from `start` on replaced by `rows`.
fn splice(all: &Tensor<f64>, start: usize, rows: &Tensor<f64>) -> Tensor<f64> {
    let (n, len) = (all.shape()[0], rows.shape()[0]);
    let mut pieces = Vec::with_capacity(3);
    let before = all.slice(0, 0, start);
    let after = all.slice(0, start + len, n - start - len);
    if start > 0 {
        pieces.push(&before);
    }
    pieces.push(rows);
    if start + len < n {
        pieces.push(&after);
    }
    Tensor::concat(&pieces, 0)
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
    let main = matrix("lstm", "main_params", main_params, 2 * layers, 4 * b)?;
    let extra = matrix("lstm", "extra_params", extra_params, 3, b)?;
    let problem = Problem {
        state: matrix("lstm", "state", state, 2 * layers, b)?,
        sequence: matrix("lstm", "sequence", sequence, c, b)?,
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
