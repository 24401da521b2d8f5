//! Issue 13, bullet 3, with tensors as the elements: annotated functions taking slices,
//! vectors and arrays of tensors (`&[Tensor<f64>]`, `&Vec<Tensor<f64>>`, `Vec<Tensor<f64>>`,
//! `[Tensor<f64>; 3]`), reading them by index, `.len()`, `iter()`, `zip`, `enumerate`,
//! `map(..)` then `fold`, and `fold` itself.
//!
//! A parameter holding tensors is no input a fused node could see (`analyse::reach`), so
//! these functions run op by op, as written, on the caller's tapes: each element's gradient
//! comes back from the tape, one per tensor of the slice (the same shape as the slice).
//! Every function goes through `common::check_annotated`: the annotated call against the
//! same body recorded op by op (`f::primal` on a tape; equal by construction here, as the
//! call runs `primal`), against central differences in f64 at orders one and two, and in
//! forward mode. The differences are the check that carries weight.

mod common;

use common::{Tolerance, check_annotated};
use gradtape::{GradientTape, Tensor, differentiable, generated};

/// Checks `fused` (an annotated call) against `plain` (its `primal`) at each set of inputs.
fn check(name: &str, points: &[Vec<Tensor<f64>>], fused: common::Op<'_>, plain: common::Op<'_>) {
    for (k, inputs) in points.iter().enumerate() {
        if let Err(message) =
            check_annotated(name, inputs, fused, plain, Tolerance::F64, 41 + k as u64)
        {
            panic!("point {k}: {message}");
        }
    }
}

fn m(rows: usize, cols: usize, values: &[f64]) -> Tensor<f64> {
    assert_eq!(values.len(), rows * cols);
    Tensor::from_vec(values.to_vec(), &[rows, cols])
}

fn v(values: &[f64]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), &[values.len()])
}

/// A sum of parallel layers' outputs (a bank of filters): `for w in layers`.
#[differentiable]
fn layer_sum(layers: &[Tensor<f64>], x: &Tensor<f64>) -> Tensor<f64> {
    let mut total = x.sum() * 0.0;
    for w in layers {
        total = total + x.matmul(w).tanh().sum();
    }
    total
}

/// A multilayer perceptron whose weights are a `&Vec` of tensors: `weights.iter()`.
#[differentiable]
fn mlp(weights: &Vec<Tensor<f64>>, x: &Tensor<f64>) -> Tensor<f64> {
    let mut h = x.clone();
    for w in weights.iter() {
        h = h.matmul(w).tanh();
    }
    (&h * &h).sum()
}

/// A weighted sum of feature maps, one weight per map: `enumerate`, `xs[0]`.
#[differentiable]
fn weighted_sum(xs: &[Tensor<f64>], weights: &Tensor<f64>) -> Tensor<f64> {
    let mut total = &xs[0] * 0.0;
    for (i, x) in xs.iter().enumerate() {
        total = total + x * weights.slice(0, i, 1);
    }
    (&total * &total).sum()
}

/// An Elman RNN over a sequence of input tensors: the state carried through the loop.
#[differentiable]
fn rnn(inputs: &[Tensor<f64>], w: &Tensor<f64>, u: &Tensor<f64>) -> Tensor<f64> {
    let mut h = inputs[0].matmul(u) * 0.0;
    for x in inputs {
        h = (h.matmul(w) + x.matmul(u)).tanh();
    }
    h.sum()
}

/// The mean of squared tensors, stacked: `iter().map(..).fold(..)`, `.len()`.
#[differentiable]
fn stacked_mean(xs: &[Tensor<f64>]) -> Tensor<f64> {
    let total = xs
        .iter()
        .map(|x| x * x)
        .fold(&xs[0] * 0.0, |acc, y| acc + y);
    (total / xs.len() as f64).sum()
}

/// The total distance between paired points: `a.iter().zip(b)`.
#[differentiable]
fn paired_distance(a: &[Tensor<f64>], b: &[Tensor<f64>]) -> Tensor<f64> {
    let mut total = a[0].sum() * 0.0;
    for (p, q) in a.iter().zip(b) {
        let d = p - q;
        total = total + (&d * &d).sum().sqrt();
    }
    total
}

/// A residual stream: `fold` over tensors, `|acc, x| acc + x`.
#[differentiable]
fn residual_stream(xs: &[Tensor<f64>]) -> Tensor<f64> {
    xs.iter().fold(&xs[0] * 0.0, |acc, x| acc + x).exp().sum()
}

/// Luma of an image's three colour planes, an array of tensors by value: `channels[k]`.
#[differentiable]
fn luma(channels: [Tensor<f64>; 3]) -> Tensor<f64> {
    let y = &channels[0] * 0.299 + &channels[1] * 0.587 + &channels[2] * 0.114;
    (&y * &y).sum()
}

/// A smoothness penalty over a sequence of frames: `xs[i] - xs[i - 1]` for
/// `i in 1..xs.len()`.
#[differentiable]
fn smoothness(xs: &[Tensor<f64>]) -> Tensor<f64> {
    let mut penalty = xs[0].sum() * 0.0;
    for i in 1..xs.len() {
        let step = &xs[i] - &xs[i - 1];
        penalty = penalty + (&step * &step).sum();
    }
    penalty
}

/// A mixture of experts, the experts given as a `Vec` by value: softmax gates.
#[differentiable]
fn mixture_of_experts(
    experts: Vec<Tensor<f64>>,
    gates: &Tensor<f64>,
    x: &Tensor<f64>,
) -> Tensor<f64> {
    let weights = gates.softmax(0);
    let mut out = x.sum() * 0.0;
    for (k, expert) in experts.iter().enumerate() {
        out = out + (x * expert).sin().sum() * weights.slice(0, k, 1);
    }
    out.sum()
}

/// Attention pooling of a query over keys and values, two slices zipped: scores shifted
/// by their maximum (a constant), then a weighted sum.
#[differentiable]
fn attention_pool(q: &Tensor<f64>, keys: &[Tensor<f64>], values: &[Tensor<f64>]) -> Tensor<f64> {
    let mut numerator = &values[0] * 0.0;
    let mut denominator = q.sum() * 0.0;
    for (k, val) in keys.iter().zip(values) {
        let weight = (q * k).sum().exp();
        numerator = numerator + val * &weight;
        denominator = denominator + weight;
    }
    (numerator / denominator).sum()
}

/// The hidden states of a recurrence over a sequence, kept in a local `Vec` built by
/// `push` and read back by index: a plain helper, which an annotated caller runs on a
/// sub-tape inside its own node (a fused body keeps no collection of tensors itself).
fn hidden_states(inputs: &[Tensor<f64>], w: &Tensor<f64>) -> Vec<Tensor<f64>> {
    let mut states = Vec::new();
    let mut h = &inputs[0] * 0.0;
    for x in inputs {
        h = (&h * w + x).tanh();
        states.push(h.clone());
    }
    states
}

/// Self-attention of the last hidden state over all of them: the local vector of a plain
/// helper, its elements read back by index (`states[i]`, `states[states.len() - 1]`).
// reading the vector back by index is the form under test
#[allow(clippy::needless_range_loop)]
fn attend_last(inputs: &[Tensor<f64>], w: &Tensor<f64>) -> Tensor<f64> {
    let states = hidden_states(inputs, w);
    let last = &states[states.len() - 1];
    let mut score = last.sum() * 0.0;
    for i in 0..states.len() {
        score = score + (&states[i] * last).sum().exp();
    }
    score.ln()
}

/// A fused function of three tensors passing them to the helper as a slice built in the
/// call (`&[x0.clone(), ..]`): the call runs on a sub-tape, the rest of the body is
/// differentiated by the generated adjoint.
#[differentiable]
fn sequence_attention(
    x0: &Tensor<f64>,
    x1: &Tensor<f64>,
    x2: &Tensor<f64>,
    w: &Tensor<f64>,
) -> Tensor<f64> {
    let pooled = attend_last(&[x0.clone(), x1.clone(), x2.clone()], w);
    pooled * w.sum().sigmoid()
}

/// A local vector of layer outputs (`Vec::with_capacity`, `push`, `iter().rev()`, `fold`)
/// in a plain helper: a skip-connected stack.
fn skip_stack(x: &Tensor<f64>, layers: &[Tensor<f64>]) -> Tensor<f64> {
    let mut outputs: Vec<Tensor<f64>> = Vec::with_capacity(layers.len());
    let mut h = x.clone();
    for w in layers {
        h = h.matmul(w).tanh();
        outputs.push(h.clone());
    }
    outputs.iter().rev().fold(x * 0.0, |acc, o| acc * 0.5 + o)
}

#[differentiable]
fn skip_connected(x: &Tensor<f64>, w1: &Tensor<f64>, w2: &Tensor<f64>) -> Tensor<f64> {
    let out = skip_stack(x, &[w1.clone(), w2.clone()]);
    (&out * &out).mean()
}

/// A polynomial by Horner's rule, its coefficients (lowest degree first, constants)
/// folded in reverse into a tensor accumulator: a fused node, the `fold` differentiated as
/// the loop it stands for.
#[differentiable]
fn horner_folded(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
    coefficients
        .iter()
        .rev()
        .fold(x * 0.0, |acc, c| acc * x + *c)
}

/// A map whose closure names its argument `x` like the tensor parameter the fold's
/// closure reads (formerly left as written and rejected: the loop it stands for bound the
/// map's `x` where the generated code took it for the parameter, UI case
/// `fold-closure-names-a-parameter`).
#[differentiable]
fn doubled_horner(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
    coefficients
        .iter()
        .map(|x| *x * 2.0)
        .fold(x * 0.0, |acc, c| acc * x + c)
}

/// A sine series, `Σ c_k sin(k x)`: `map` then `sum::<Tensor<f64>>()` over a constant
/// array, in a fused node (the sum is the fold it stands for).
#[differentiable]
fn sine_series(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
    coefficients
        .iter()
        .enumerate()
        .map(|(k, c)| (x * (k as f64 + 1.0)).sin() * *c)
        .sum::<Tensor<f64>>()
}

/// The monic polynomial with given roots by `product()` into a typed `let`.
#[differentiable]
fn product_by_let(x: &Tensor<f64>, roots: &[f64]) -> Tensor<f64> {
    let p: Tensor<f64> = roots.iter().map(|r| x - *r).product();
    p * 0.5
}

/// The same sum generic over the float type.
#[differentiable]
fn generic_sum<T: gradtape::Float>(x: &Tensor<T>, coefficients: &[T]) -> Tensor<T> {
    coefficients
        .iter()
        .map(|c| (x * *c).exp())
        .sum::<Tensor<T>>()
}

/// Slices of tensors (op by op): a weighted sum of layers by `map` then `sum`, and the
/// layers' plain sum over references.
#[differentiable]
fn layers_summed(xs: &[Tensor<f64>], w: &Tensor<f64>) -> Tensor<f64> {
    let weighted = xs.iter().map(|x| x * w).sum::<Tensor<f64>>();
    let plain: Tensor<f64> = xs.iter().sum();
    (weighted * plain).sum()
}

/// The monic polynomial with given roots, `Π (x - r)`: `map` then a `fold` of products.
#[differentiable]
fn product_of_factors(x: &Tensor<f64>, roots: &[f64]) -> Tensor<f64> {
    roots
        .iter()
        .map(|r| x - *r)
        .fold(x * 0.0 + 1.0, |acc, factor| acc * factor)
}

/// A truncated series `Σ_{k=1..4} (x·s)^k / k` folded over a range, a differentiable
/// scale captured, the item typed (`k: i32`).
#[differentiable]
fn log_series(x: &Tensor<f64>, s: &Tensor<f64>) -> Tensor<f64> {
    let z = x * s;
    let total = (1..5).fold(x * 0.0, |acc, k: i32| acc + z.powi(k) / f64::from(k));
    total.sum()
}

/// A weighted ensemble of constant-weighted nonlinear terms, two maps then a fold over
/// `zip` of two constant slices.
#[differentiable]
fn weighted_terms(x: &Tensor<f64>, centres: &[f64], widths: &[f64]) -> Tensor<f64> {
    centres
        .iter()
        .zip(widths)
        .map(|(c, w)| (x - *c) / *w)
        .map(|z| (&z * &z * -0.5).exp())
        .fold(x * 0.0, |acc, bump| acc + bump)
        .ln()
}

#[test]
fn slices_of_tensors() {
    let x = m(2, 3, &[0.3, -0.5, 0.8, 0.1, 0.7, -0.2]);
    let w1 = m(3, 3, &[0.2, -0.4, 0.5, 0.3, 0.1, -0.6, -0.2, 0.4, 0.3]);
    let w2 = m(3, 3, &[-0.3, 0.2, 0.6, 0.5, -0.1, 0.2, 0.4, 0.3, -0.5]);
    let w3 = m(3, 3, &[0.1, 0.5, -0.2, -0.4, 0.3, 0.2, 0.6, -0.3, 0.1]);
    let layers = vec![x.clone(), w1.clone(), w2.clone(), w3.clone()];
    check(
        "layer_sum",
        std::slice::from_ref(&layers),
        &|t| layer_sum(&t[1..], &t[0]),
        &|t| layer_sum::primal(&t[1..], &t[0]),
    );
    check(
        "mlp",
        std::slice::from_ref(&layers),
        &|t| mlp(&t[1..].to_vec(), &t[0]),
        &|t| mlp::primal(&t[1..].to_vec(), &t[0]),
    );
    let frames = vec![
        v(&[0.3, -0.6, 1.1]),
        v(&[0.8, 0.1, -0.4]),
        v(&[-0.5, 1.2, 0.6]),
        v(&[0.9, -0.2, 0.4]),
    ];
    let mut with_weights = frames.clone();
    with_weights.insert(0, v(&[0.5, -1.5, 0.7, 1.1]));
    check(
        "weighted_sum",
        std::slice::from_ref(&with_weights),
        &|t| weighted_sum(&t[1..], &t[0]),
        &|t| weighted_sum::primal(&t[1..], &t[0]),
    );
    let sequence = vec![
        m(1, 3, &[0.3, -0.6, 1.1]),
        m(1, 3, &[0.8, 0.1, -0.4]),
        m(1, 3, &[-0.5, 1.2, 0.6]),
        w1.clone(),
        w2.clone(),
    ];
    check(
        "rnn",
        std::slice::from_ref(&sequence),
        &|t| rnn(&t[..3], &t[3], &t[4]),
        &|t| rnn::primal(&t[..3], &t[3], &t[4]),
    );
    check(
        "stacked_mean",
        std::slice::from_ref(&frames),
        &|t| stacked_mean(t),
        &|t| stacked_mean::primal(t),
    );
    check(
        "paired_distance",
        std::slice::from_ref(&frames),
        &|t| paired_distance(&t[..2], &t[2..]),
        &|t| paired_distance::primal(&t[..2], &t[2..]),
    );
    check(
        "residual_stream",
        std::slice::from_ref(&frames),
        &|t| residual_stream(t),
        &|t| residual_stream::primal(t),
    );
    check(
        "luma",
        std::slice::from_ref(&frames),
        &|t| luma([t[0].clone(), t[1].clone(), t[2].clone()]),
        &|t| luma::primal([t[0].clone(), t[1].clone(), t[2].clone()]),
    );
    check(
        "smoothness",
        std::slice::from_ref(&frames),
        &|t| smoothness(t),
        &|t| smoothness::primal(t),
    );
    let mut experts = frames.clone();
    experts.insert(0, v(&[0.2, -0.7, 0.4, 0.1]));
    experts.insert(1, v(&[0.6, 0.9, -0.3]));
    check(
        "mixture_of_experts",
        std::slice::from_ref(&experts),
        &|t| mixture_of_experts(t[2..].to_vec(), &t[0], &t[1]),
        &|t| mixture_of_experts::primal(t[2..].to_vec(), &t[0], &t[1]),
    );
    let mut pooled = frames.clone();
    pooled.insert(0, v(&[0.4, -0.2, 0.3]));
    check(
        "attention_pool",
        std::slice::from_ref(&pooled),
        &|t| attention_pool(&t[0], &t[1..3], &t[3..]),
        &|t| attention_pool::primal(&t[0], &t[1..3], &t[3..]),
    );
    check(
        "sequence_attention",
        &[vec![
            v(&[0.3, -0.6, 1.1]),
            v(&[0.8, 0.1, -0.4]),
            v(&[-0.5, 1.2, 0.6]),
            v(&[0.7, -0.3, 0.5]),
        ]],
        &|t| sequence_attention(&t[0], &t[1], &t[2], &t[3]),
        &|t| sequence_attention::primal(&t[0], &t[1], &t[2], &t[3]),
    );
    check(
        "skip_connected",
        &[vec![x.clone(), w1.clone(), w2.clone()]],
        &|t| skip_connected(&t[0], &t[1], &t[2]),
        &|t| skip_connected::primal(&t[0], &t[1], &t[2]),
    );
    let points = vec![v(&[-0.8, 0.1, 0.65, 1.7])];
    let coefficients = [0.5, -1.0, 0.25, 0.75, -0.3];
    check(
        "horner_folded",
        std::slice::from_ref(&points),
        &|t| horner_folded(&t[0], &coefficients),
        &|t| horner_folded::primal(&t[0], &coefficients),
    );
    check(
        "doubled_horner",
        std::slice::from_ref(&points),
        &|t| doubled_horner(&t[0], &coefficients),
        &|t| doubled_horner::primal(&t[0], &coefficients),
    );
    check(
        "sine_series",
        std::slice::from_ref(&points),
        &|t| sine_series(&t[0], &coefficients),
        &|t| sine_series::primal(&t[0], &coefficients),
    );
    check(
        "product_by_let",
        std::slice::from_ref(&points),
        &|t| product_by_let(&t[0], &[-1.0, 0.5, 2.0]),
        &|t| product_by_let::primal(&t[0], &[-1.0, 0.5, 2.0]),
    );
    check(
        "generic_sum",
        std::slice::from_ref(&points),
        &|t| generic_sum(&t[0], &coefficients),
        &|t| generic_sum::primal(&t[0], &coefficients),
    );
    let layers = vec![
        v(&[0.3, -0.6, 1.1]),
        v(&[0.8, 0.1, -0.4]),
        v(&[-0.5, 1.2, 0.6]),
    ];
    check(
        "layers_summed",
        std::slice::from_ref(&layers),
        &|t| layers_summed(&t[1..], &t[0]),
        &|t| layers_summed::primal(&t[1..], &t[0]),
    );
    // The sum's bits are the sum written out, and an empty sum is a 0-d `-0.0`.
    let x = &points[0];
    let written_out = (0..coefficients.len())
        .map(|k| (x * (k as f64 + 1.0)).sin() * coefficients[k])
        .reduce(|a, b| a + b)
        .expect("terms");
    assert_eq!(sine_series(x, &coefficients).to_vec(), written_out.to_vec());
    let empty = sine_series(x, &[]);
    assert!(empty.shape().is_empty() && empty.to_scalar().is_sign_negative());
    let roots = [-1.0, 0.5, 2.0];
    check(
        "product_of_factors",
        std::slice::from_ref(&points),
        &|t| product_of_factors(&t[0], &roots),
        &|t| product_of_factors::primal(&t[0], &roots),
    );
    check(
        "log_series",
        &[vec![v(&[-0.4, 0.1, 0.3]), v(&[0.9, -1.2, 0.5])]],
        &|t| log_series(&t[0], &t[1]),
        &|t| log_series::primal(&t[0], &t[1]),
    );
    let (centres, widths) = ([-1.0, 0.0, 1.5], [0.8, 1.2, 0.6]);
    check(
        "weighted_terms",
        std::slice::from_ref(&points),
        &|t| weighted_terms(&t[0], &centres, &widths),
        &|t| weighted_terms::primal(&t[0], &centres, &widths),
    );
}

/// The static transformation took the folds and the helper call: each such function is
/// one node on the caller's tape (its adjoint generated), where a function taking a slice
/// of tensors is its body's ops, one node each.
#[test]
fn folds_are_one_fused_node() {
    let nodes = |f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>| {
        let x = v(&[-0.8, 0.1, 0.65]);
        let tape = GradientTape::persistent();
        tape.watch(&x);
        tape.record(|| f(&x));
        generated::recorded_nodes(&tape).len()
    };
    let coefficients = [0.5, -1.0, 0.25, 0.75, -0.3];
    assert_eq!(nodes(&|x| horner_folded(x, &coefficients)), 1);
    assert_eq!(nodes(&|x| doubled_horner(x, &coefficients)), 1);
    assert_eq!(nodes(&|x| sine_series(x, &coefficients)), 1);
    assert_eq!(nodes(&|x| product_by_let(x, &[-1.0, 0.5, 2.0])), 1);
    assert_eq!(nodes(&|x| generic_sum(x, &coefficients)), 1);
    assert_eq!(nodes(&|x| product_of_factors(x, &[-1.0, 0.5, 2.0])), 1);
    assert_eq!(nodes(&|x| log_series(x, x)), 1);
    assert_eq!(
        nodes(&|x| weighted_terms(x, &[-1.0, 0.0, 1.5], &[0.8, 1.2, 0.6])),
        1
    );
    assert_eq!(nodes(&|x| sequence_attention(x, x, x, x)), 1);
    // op by op: `x * 0.0`, then per frame a subtraction, a product and a sum, an add
    let frames = [v(&[0.3, -0.6, 1.1]), v(&[0.8, 0.1, -0.4])];
    assert!(nodes(&|x| smoothness(&[x.clone(), frames[0].clone(), frames[1].clone()])) > 3);
}
