//! `#[differentiable]` workloads from `../shared/bench/WORKLOADS.md`: W7 (the tape-free
//! gradient of a plain f64 function against its hand-written derivative, by reverse mode
//! and by forward mode, two `jvp` calls per point), W2's loop as one
//! annotated function (record + backward per op; on its 0-d input the call runs on plain
//! numbers, and the same call on a shape-`[1]` input shows the tensor path), and W1 through
//! an annotated function against the op-by-op tape. Each prints the value it computed.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::{ForwardAccumulator, GradientTape, Tensor, Variable, differentiable};

#[differentiable]
fn w7(x: f64, y: f64) -> f64 {
    (x * y).sin() + x.exp() / (1.0 + y * y)
}

/// The derivative of W7 written by hand: ∂f/∂x = y cos(xy) + eˣ/(1+y²),
/// ∂f/∂y = x cos(xy) - 2y eˣ/(1+y²)².
#[inline]
fn w7_by_hand(x: f64, y: f64) -> (f64, [f64; 2]) {
    let (s, c) = (x * y).sin_cos();
    let e = x.exp();
    let q = 1.0 / (1.0 + y * y);
    (s + e * q, [y * c + e * q, x * c - 2.0 * y * e * q * q])
}

const W7_POINTS: usize = 1_000_000;

fn w7_sum(grad: impl Fn(f64, f64) -> (f64, [f64; 2])) -> f64 {
    let mut sum = 0.0;
    for i in 0..W7_POINTS {
        let (x, y) = (1e-5 * i as f64, 1.0 - 1e-6 * i as f64);
        let (_, [dx, dy]) = grad(black_box(x), black_box(y));
        sum += dx + dy;
    }
    sum
}

/// The forward derivative of W7 written by hand: the tangent of f along `(dx, dy)`,
/// `(y cos(xy) + eˣ/(1+y²)) dx + (x cos(xy) - 2y eˣ/(1+y²)²) dy`, as dual numbers compute
/// it (each intermediate's tangent beside it).
#[inline]
fn w7_jvp_by_hand(x: f64, y: f64, dx: f64, dy: f64) -> (f64, f64) {
    let (s, c) = (x * y).sin_cos();
    let dxy = dx * y + x * dy;
    let e = x.exp();
    let d = 1.0 + y * y;
    let dd = 2.0 * y * dy;
    let value = s + e / d;
    (value, c * dxy + (e * dx * d - e * dd) / (d * d))
}

/// W7's gradient by forward mode: two tangent sweeps per point, along x and along y.
fn w7_forward_sum(jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64)) -> f64 {
    let mut sum = 0.0;
    for i in 0..W7_POINTS {
        let (x, y) = (1e-5 * i as f64, 1.0 - 1e-6 * i as f64);
        let (_, dx) = jvp(black_box(x), black_box(y), 1.0, 0.0);
        let (_, dy) = jvp(black_box(x), black_box(y), 0.0, 1.0);
        sum += dx + dy;
    }
    sum
}

#[differentiable]
fn chain(x: &Variable<f32>, steps: usize) -> Tensor<f32> {
    let mut y = x.value();
    for _ in 0..steps {
        y = y.sin() * 0.9 + &y * 0.1;
    }
    y
}

fn chain_gradient(x: &Variable<f32>) -> f32 {
    let tape = GradientTape::new();
    let y = tape.record(|| chain(x, 10_000));
    tape.gradient(&y, x).unwrap().unwrap().to_scalar()
}

/// The same gradient with `x` of shape `[1]`: not 0-d, so the call runs on tensors.
fn chain_gradient_1(x: &Variable<f32>) -> f32 {
    let tape = GradientTape::new();
    let y = tape.record(|| chain(x, 10_000));
    tape.gradient(&y, x).unwrap().unwrap().to_vec()[0]
}

/// W2's dy/dx written by hand in reverse mode, as an adjoint works: the forward keeps each
/// step's input, the reverse sweep multiplies the local derivatives 0.9 cos y + 0.1.
fn chain_by_hand(x: f32, steps: usize) -> f32 {
    let mut inputs = Vec::with_capacity(steps);
    let mut y = x;
    for _ in 0..steps {
        inputs.push(y);
        y = y.sin() * 0.9 + y * 0.1;
    }
    black_box(y);
    let mut d = 1.0;
    for &y in inputs.iter().rev() {
        d *= y.cos() * 0.9 + 0.1;
    }
    d
}

#[differentiable]
fn seed(w1: &Variable<f32>, w2: &Variable<f32>) -> Tensor<f32> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

fn seed_gradient(
    f: impl Fn(&Variable<f32>, &Variable<f32>) -> Tensor<f32>,
    w: &[Variable<f32>; 2],
) -> [f32; 2] {
    let tape = GradientTape::new();
    let z = tape.record(|| f(&w[0], &w[1]));
    let [a, b] = tape.gradient(&z, [&w[0], &w[1]]).unwrap();
    [a.unwrap().to_scalar(), b.unwrap().to_scalar()]
}

/// A dense layer with a smooth loss, for forward mode on tensors: an annotated call under
/// a `ForwardAccumulator` (its node's tangent from the generated `f::jvp`) against the same
/// body op by op under the accumulator.
#[differentiable]
fn dense_layer(x: &Tensor<f32>, w: &Tensor<f32>, b: &Tensor<f32>) -> Tensor<f32> {
    let h = (x.matmul(w) + b).tanh();
    (&h * &h).sum() * 0.5
}

/// W7's function on tensors: elementwise ops only.
#[differentiable]
fn w7_tensor(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    (x * y).sin() + x.exp() / (y * y + 1.0)
}

/// The tangent of `f(x, y)` along `(dx, dy)` under one accumulator, summed.
fn w7_tangent(
    f: impl Fn(&Tensor<f64>, &Tensor<f64>) -> Tensor<f64>,
    [x, y, dx, dy]: &[Tensor<f64>; 4],
) -> f64 {
    let acc = ForwardAccumulator::new((x, y), (dx.clone(), dy.clone())).unwrap();
    let z = acc.record(|| f(x, y));
    acc.jvp(&z).unwrap().sum().to_scalar()
}

/// The tangent of `f(x, w, b)` along `dw` under one accumulator.
fn dense_tangent(
    f: impl Fn(&Tensor<f32>, &Tensor<f32>, &Tensor<f32>) -> Tensor<f32>,
    [x, w, b, dw]: &[Tensor<f32>; 4],
) -> f32 {
    let acc = ForwardAccumulator::new(w, dw.clone()).unwrap();
    let y = acc.record(|| f(x, w, b));
    acc.jvp(&y).unwrap().to_scalar()
}

fn benches(c: &mut Criterion) {
    println!("W7 f(0.5, 0.25) = {}", w7(0.5, 0.25));
    println!(
        "W7 sum of gradients: macro {:.9e}, by hand {:.9e}",
        w7_sum(w7::grad),
        w7_sum(w7_by_hand)
    );
    let mut group = c.benchmark_group("W7");
    group.bench_function("macro grad (1e6 points)", |b| b.iter(|| w7_sum(w7::grad)));
    group.bench_function("hand-written (1e6 points)", |b| {
        b.iter(|| w7_sum(w7_by_hand))
    });
    group.finish();

    println!(
        "W7 forward mode, sum of gradients: macro {:.9e}, by hand {:.9e}",
        w7_forward_sum(w7::jvp),
        w7_forward_sum(w7_jvp_by_hand)
    );
    let mut group = c.benchmark_group("W7 forward");
    group.bench_function("macro jvp, 2 per point (1e6 points)", |b| {
        b.iter(|| w7_forward_sum(w7::jvp))
    });
    group.bench_function("hand-written jvp, 2 per point (1e6 points)", |b| {
        b.iter(|| w7_forward_sum(w7_jvp_by_hand))
    });
    group.finish();

    let x = Variable::new(0.5_f32);
    let x_1 = Variable::new(Tensor::from_vec(vec![0.5_f32], &[1]));
    println!(
        "W2 dy/dx: annotated loop {}, tensor path {}, by hand {}",
        chain_gradient(&x),
        chain_gradient_1(&x_1),
        chain_by_hand(0.5, 10_000)
    );
    let mut group = c.benchmark_group("W2");
    group.bench_function("annotated loop, record + backward (40,000 ops)", |b| {
        b.iter(|| chain_gradient(black_box(&x)))
    });
    group.bench_function(
        "annotated loop on a [1] input: tensor path (40,000 ops)",
        |b| b.iter(|| chain_gradient_1(black_box(&x_1))),
    );
    group.bench_function("hand-written reverse loop (40,000 ops)", |b| {
        b.iter(|| chain_by_hand(black_box(0.5), 10_000))
    });
    group.bench_function("plain forward, no tape (40,000 ops)", |b| {
        b.iter(|| chain::primal(black_box(&x), 10_000))
    });
    group.bench_function("annotated call, nothing recording (40,000 ops)", |b| {
        b.iter(|| chain(black_box(&x), 10_000))
    });
    group.finish();

    // Forward mode on tensors: x [64, 256], w [256, 256], b [256], along dw.
    let dense = [
        Tensor::random_normal(&[64, 256], 0.0, 1.0, 1),
        Tensor::random_normal(&[256, 256], 0.0, 0.06, 2),
        Tensor::random_normal(&[256], 0.0, 0.1, 3),
        Tensor::random_normal(&[256, 256], 0.0, 1.0, 4),
    ];
    println!(
        "dense layer tangent: annotated {:.6e}, op by op {:.6e}",
        dense_tangent(dense_layer, &dense),
        dense_tangent(dense_layer::primal, &dense)
    );
    let mut group = c.benchmark_group("forward mode on tensors");
    group.bench_function(
        "annotated call under an accumulator (dense 64x256x256)",
        |b| b.iter(|| dense_tangent(dense_layer, black_box(&dense))),
    );
    group.bench_function("op by op under an accumulator (dense 64x256x256)", |b| {
        b.iter(|| dense_tangent(dense_layer::primal, black_box(&dense)))
    });
    let points = [
        Tensor::random_normal(&[100_000], 0.0, 1.0, 5),
        Tensor::random_normal(&[100_000], 0.0, 1.0, 6),
        Tensor::random_normal(&[100_000], 0.0, 1.0, 7),
        Tensor::random_normal(&[100_000], 0.0, 1.0, 8),
    ];
    println!(
        "W7 on tensors, tangent: annotated {:.9e}, op by op {:.9e}",
        w7_tangent(w7_tensor, &points),
        w7_tangent(w7_tensor::primal, &points)
    );
    group.bench_function(
        "annotated call under an accumulator (W7, 1e5 points)",
        |b| b.iter(|| w7_tangent(w7_tensor, black_box(&points))),
    );
    group.bench_function("op by op under an accumulator (W7, 1e5 points)", |b| {
        b.iter(|| w7_tangent(w7_tensor::primal, black_box(&points)))
    });
    group.finish();

    let w = [Variable::new(5.0_f32), Variable::new(3.0_f32)];
    println!(
        "W1 gradient: annotated {:?}, op by op {:?}",
        seed_gradient(seed, &w),
        seed_gradient(seed::primal, &w)
    );
    let mut group = c.benchmark_group("W1");
    group.bench_function("annotated", |b| {
        b.iter(|| seed_gradient(seed, black_box(&w)))
    });
    group.bench_function("op by op", |b| {
        b.iter(|| seed_gradient(seed::primal, black_box(&w)))
    });
    group.finish();
}

criterion_group!(fused, benches);
criterion_main!(fused);
