//! W8 `cnn` (../shared/bench/WORKLOADS.md): one MNIST training step of a convolutional
//! network, NHWC input `[128, 28, 28, 1]` (pixels scaled to [0, 1], images in file order):
//! Conv2D 32 3x3 valid + bias, ReLU → MaxPool 2x2/2 → Conv2D 64 3x3 valid + bias, ReLU →
//! MaxPool 2x2/2 → Flatten (1600, NHWC order) → Dense 128, ReLU → Dense 10; softmax
//! cross-entropy (mean over the batch); Adam (lr 1e-3, Keras' β1, β2, ε); Glorot-uniform
//! kernels (a conv kernel's fans kh·kw·in and kh·kw·out), zero biases; no dropout.
//!
//! Prints the workload's own protocol first (100 timed steps after 10 warm-up steps: median
//! and mean ms per step, and the peak resident memory); with `W8_EPOCH=1` also one epoch over
//! all 60,000 images and the test accuracy after it. Then criterion measures the step. MNIST
//! comes from `MNIST_DIR`, else `../shared/data/mnist`.

// criterion_group! defines a public function it does not document.
#![allow(missing_docs)]

use std::time::Instant;

use criterion::{BatchSize, Criterion, black_box, criterion_group, criterion_main};
use gradtape::nn::data::{Minibatches, Mnist};
use gradtape::nn::metrics::accuracy;
use gradtape::nn::{
    Activation, Adam, Conv2D, Dense, Flatten, Layer, MaxPool2D, Optimizer, Sequential, losses,
};
use gradtape::{Conv2dOptions, GradientTape, Padding, Tensor, Variable};

/// Examples per step.
const BATCH: usize = 128;

/// W8's network, freshly initialised (one seed per kernel).
fn model() -> Sequential<f32> {
    Sequential::new()
        .push(Conv2D::new("conv2d", 1, 32, (3, 3), 0).with_activation(Activation::Relu))
        .push(MaxPool2D::new((2, 2)))
        .push(Conv2D::new("conv2d_1", 32, 64, (3, 3), 1).with_activation(Activation::Relu))
        .push(MaxPool2D::new((2, 2)))
        .push(Flatten)
        .push(Dense::new("dense", 1600, 128, 2).with_activation(Activation::Relu))
        .push(Dense::new("dense_1", 128, 10, 3))
}

struct Trainer {
    model: Sequential<f32>,
    variables: Vec<Variable<f32>>,
    adam: Adam<f32>,
}

impl Trainer {
    fn new() -> Trainer {
        let model = model();
        let variables = model.trainable_variables();
        Trainer {
            model,
            variables,
            adam: Adam::new(1e-3),
        }
    }

    fn step(&mut self, images: &Tensor<f32>, labels: &[usize]) -> f32 {
        let tape = GradientTape::new();
        let loss =
            tape.record(|| losses::sparse_softmax_cross_entropy(&self.model.call(images), labels));
        let grads = tape.gradient(&loss, &self.variables).expect("fresh tape");
        self.adam
            .apply_gradients(grads.into_iter().zip(&self.variables));
        loss.to_scalar()
    }
}

fn load() -> Mnist {
    let dir = std::env::var("MNIST_DIR").unwrap_or_else(|_| "../shared/data/mnist".into());
    Mnist::load(&dir).unwrap_or_else(|e| panic!("W8 needs the full MNIST files: {e}"))
}

/// Batch `indices` of a split as NHWC `[batch, 28, 28, 1]` images and labels.
fn nhwc_batch(
    split: &gradtape::nn::data::MnistSplit,
    indices: &[usize],
) -> (Tensor<f32>, Vec<usize>) {
    let (images, labels) = split.batch(indices);
    (images.reshape(&[indices.len(), 28, 28, 1]), labels)
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn protocol(mnist: &Mnist) {
    let mut trainer = Trainer::new();
    let mut times = Vec::with_capacity(100);
    let mut losses_seen = Vec::new();
    for (i, indices) in Minibatches::new(mnist.train.len(), BATCH)
        .take(110)
        .enumerate()
    {
        // Making the batch from bytes is data loading, not the step: it is not timed.
        let (images, labels) = nhwc_batch(&mnist.train, &indices);
        let start = Instant::now();
        losses_seen.push(trainer.step(&images, &labels));
        if i >= 10 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    times.sort_by(f64::total_cmp);
    println!(
        "W8 cnn: {:.2} ms per step (median of 100 after 10 warm-up; mean {mean:.2}); first losses {:.4}, {:.4}; loss after 110 steps {:.4}",
        times[times.len() / 2],
        losses_seen[0],
        losses_seen[1],
        losses_seen[109]
    );
    if let Some(peak) = peak_rss_mb() {
        println!("W8 cnn: peak resident memory {peak:.0} MB");
    }
    if std::env::var("W8_EPOCH").is_ok_and(|v| v == "1") {
        let mut trainer = Trainer::new();
        let start = Instant::now();
        for indices in Minibatches::new(mnist.train.len(), BATCH) {
            let (images, labels) = nhwc_batch(&mnist.train, &indices);
            trainer.step(&images, &labels);
        }
        let epoch = start.elapsed().as_secs_f64();
        // the test set in batches of 1,000 (the im2col matrix of all 10,000 at once would
        // be 240 MB), the accuracies weighted by batch size
        let mut correct = 0.0;
        for start in (0..mnist.test.len()).step_by(1000) {
            let indices: Vec<usize> = (start..(start + 1000).min(mnist.test.len())).collect();
            let (images, labels) = nhwc_batch(&mnist.test, &indices);
            correct += accuracy(&trainer.model.call(&images), &labels) * indices.len() as f64;
        }
        println!(
            "W8 cnn: one epoch (469 steps, batches made from bytes included) {epoch:.1} s, test accuracy {:.4}",
            correct / mnist.test.len() as f64
        );
        if let Some(peak) = peak_rss_mb() {
            println!("W8 cnn: peak resident memory after the epoch {peak:.0} MB");
        }
    }
}

fn cnn(c: &mut Criterion) {
    let mnist = load();
    protocol(&mnist);
    let batches: Vec<(Tensor<f32>, Vec<usize>)> = Minibatches::new(mnist.train.len(), BATCH)
        .take(8)
        .map(|indices| nhwc_batch(&mnist.train, &indices))
        .collect();
    let mut trainer = Trainer::new();
    let mut next = 0;
    let mut group = c.benchmark_group("W8");
    group.sample_size(20);
    group.bench_function("cnn step", |bench| {
        bench.iter(|| {
            let (images, labels) = &batches[next % batches.len()];
            next += 1;
            black_box(trainer.step(images, labels))
        })
    });
    group.finish();
}

/// The ops of a W8 step one at a time, at its shapes (f32, batch 128): where a step's time
/// goes. Conv 1: [128, 28, 28, 1] * [3, 3, 1, 32]; conv 2: [128, 13, 13, 32] * [3, 3, 32, 64].
fn ops(c: &mut Criterion) {
    let options = Conv2dOptions::new();
    let x1 = Tensor::<f32>::random_uniform(&[128, 28, 28, 1], 0.0, 1.0, 1);
    let w1 = Tensor::<f32>::random_uniform(&[3, 3, 1, 32], -0.2, 0.2, 2);
    let x2 = Tensor::<f32>::random_uniform(&[128, 13, 13, 32], 0.0, 1.0, 3);
    let w2 = Tensor::<f32>::random_uniform(&[3, 3, 32, 64], -0.1, 0.1, 4);
    let g1 = x1.conv2d(&w1, options);
    let g2 = x2.conv2d(&w2, options);
    let mut group = c.benchmark_group("W8 ops");
    group.sample_size(20);
    group.bench_function("conv 1 forward", |b| {
        b.iter(|| black_box(x1.conv2d(&w1, options)))
    });
    group.bench_function("conv 1 filter gradient", |b| {
        b.iter(|| black_box(x1.conv2d_backprop_filter(&g1, &[3, 3, 1, 32], options)))
    });
    group.bench_function("conv 2 forward", |b| {
        b.iter(|| black_box(x2.conv2d(&w2, options)))
    });
    group.bench_function("conv 2 filter gradient", |b| {
        b.iter(|| black_box(x2.conv2d_backprop_filter(&g2, &[3, 3, 32, 64], options)))
    });
    group.bench_function("conv 2 input gradient", |b| {
        b.iter(|| black_box(g2.conv2d_backprop_input(&w2, &[128, 13, 13, 32], options)))
    });
    group.bench_function("max pool 1 (26x26x32)", |b| {
        b.iter(|| black_box(g1.max_pool2d((2, 2), (2, 2), Padding::Valid)))
    });
    // the backward sweep alone (the forward recorded in the untimed setup): the sum's rule
    // (a broadcast of ones) and max pooling's (the cotangent routed to each window's
    // first maximum, found again from the input and output)
    group.bench_function("max pool 1 gradient, through a sum", |b| {
        b.iter_batched(
            || {
                let tape = GradientTape::new();
                tape.watch(&g1);
                let y = tape.record(|| g1.max_pool2d((2, 2), (2, 2), Padding::Valid).sum());
                (tape, y)
            },
            |(tape, y)| black_box(tape.gradient(&y, &g1)),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, cnn, ops);
criterion_main!(benches);
