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
use gradtape::{Tensor, differentiable};

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
}
