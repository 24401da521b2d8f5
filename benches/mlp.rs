//! W4 `mlp` (../shared/bench/WORKLOADS.md): one MNIST training step of a 784-128-10 ReLU MLP,
//! softmax cross-entropy (mean over the batch of 128), SGD with learning rate 0.1,
//! Glorot-uniform initial kernels, pixels scaled to [0, 1], images in file order.
//!
//! Prints the workload's own protocol first (200 timed steps after 10 warm-up steps: median
//! and mean ms per step; the test accuracy after one epoch over all 60,000 images; the peak
//! resident memory and how much of it training added to the loaded data), then lets criterion measure the step. MNIST comes from `MNIST_DIR`,
//! else `../shared/data/mnist`. With `W4_PROFILE_STEPS=n` set it runs only `n` steps, for a
//! profiler (see `profile_steps`).

// criterion_group! defines a public function it does not document.
#![allow(missing_docs)]

use std::time::Instant;

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use gradtape::nn::data::{Minibatches, Mnist, MnistSplit};
use gradtape::nn::metrics::accuracy;
use gradtape::nn::{Layer, Optimizer, Sequential, Sgd, losses};
use gradtape::{GradientTape, Tensor, Variable};

mod w4;

use w4::{BATCH, LEARNING_RATE, load};

struct Trainer {
    model: Sequential<f32>,
    variables: Vec<Variable<f32>>,
    sgd: Sgd<f32>,
}

impl Trainer {
    fn new() -> Trainer {
        let model = w4::model();
        let variables = model.trainable_variables();
        Trainer {
            model,
            variables,
            sgd: Sgd::new(LEARNING_RATE),
        }
    }

    fn step(&mut self, images: &Tensor<f32>, labels: &[usize]) -> f32 {
        let tape = GradientTape::new();
        let loss =
            tape.record(|| losses::sparse_softmax_cross_entropy(&self.model.call(images), labels));
        let grads = tape.gradient(&loss, &self.variables).expect("fresh tape");
        self.sgd
            .apply_gradients(grads.into_iter().zip(&self.variables));
        loss.to_scalar()
    }
}

/// The batches of one epoch in file order, the last one partial.
fn file_order(split: &MnistSplit) -> Minibatches {
    Minibatches::new(split.len(), BATCH)
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU seconds this process has used, all threads (from /proc/self/stat; Linux's user-space
/// clock tick is 1/100 s). On a machine shared with other work, CPU time per step shows what
/// a step costs when wall-clock time also counts waiting for a core.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn protocol(mnist: &Mnist, loaded_mb: Option<f64>) {
    let mut trainer = Trainer::new();
    let mut times = Vec::with_capacity(200);
    let mut loss = 0.0;
    let mut cpu_start = None;
    for (i, indices) in file_order(&mnist.train).take(210).enumerate() {
        // Making the batch from bytes is data loading, not the step: it is not timed.
        let (images, labels) = mnist.train.batch(&indices);
        if i == 10 {
            cpu_start = cpu_seconds();
        }
        let start = Instant::now();
        loss = trainer.step(&images, &labels);
        if i >= 10 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    let cpu_end = cpu_seconds();
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    times.sort_by(f64::total_cmp);
    println!(
        "W4 mlp: {:.3} ms per step (median of 200 after 10 warm-up; mean {mean:.3}), loss after 210 steps {loss:.4}",
        times[times.len() / 2]
    );
    if let (Some(start), Some(end)) = (cpu_start, cpu_end) {
        // batch making included here, which the wall-clock figures leave out
        println!(
            "W4 mlp: CPU time {:.3} ms per step (all threads, batch making included)",
            (end - start) * 1e3 / 200.0
        );
    }

    let mut trainer = Trainer::new();
    let start = Instant::now();
    for indices in file_order(&mnist.train) {
        let (images, labels) = mnist.train.batch(&indices);
        trainer.step(&images, &labels);
    }
    let epoch = start.elapsed().as_secs_f64();
    let test = test_accuracy(&trainer.model, &mnist.test);
    println!(
        "W4 mlp: one epoch (469 steps, batches made from bytes included) {epoch:.2} s, test accuracy {test:.4}"
    );
    if let Some(peak) = peak_rss_mb() {
        println!("W4 mlp: peak resident memory {peak:.0} MB");
        if let Some(loaded) = loaded_mb {
            println!(
                "W4 mlp: training adds {:.0} MB over the loaded data ({loaded:.0} MB resident after loading)",
                peak - loaded
            );
        }
    }
}

/// The accuracy over a whole split, evaluated 1,000 images at a time (as Keras'
/// `evaluate` batches): one batch of all 10,000 test images would be a 31 MB `f32` copy of
/// data the bench keeps as bytes, counted as training's memory.
fn test_accuracy(model: &Sequential<f32>, split: &MnistSplit) -> f64 {
    let indices: Vec<usize> = (0..split.len()).collect();
    let correct: f64 = indices
        .chunks(1000)
        .map(|chunk| {
            let (images, labels) = split.batch(chunk);
            accuracy(&model.call(&images), &labels) * chunk.len() as f64
        })
        .sum();
    correct / split.len() as f64
}

/// The resident memory now (VmRSS), in MB.
fn resident_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// `W4_PROFILE_STEPS=n`: only `n` steps on a fixed set of batches after 10 warm-up steps,
/// their median and 10th percentile printed, no criterion: a short run to put under `perf`
/// or callgrind, or to compare settings (`RAYON_NUM_THREADS`) run after run.
fn profile_steps() -> Option<usize> {
    std::env::var("W4_PROFILE_STEPS").ok()?.parse().ok()
}

fn mlp(c: &mut Criterion) {
    let mnist = load();
    let loaded_mb = resident_mb();
    if let Some(steps) = profile_steps() {
        let batches: Vec<(Tensor<f32>, Vec<usize>)> = file_order(&mnist.train)
            .take(16)
            .map(|indices| mnist.train.batch(&indices))
            .collect();
        let mut trainer = Trainer::new();
        let mut times = Vec::with_capacity(steps);
        for (i, (images, labels)) in batches.iter().cycle().take(10 + steps).enumerate() {
            let start = Instant::now();
            black_box(trainer.step(images, labels));
            if i >= 10 {
                times.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        times.sort_by(f64::total_cmp);
        if let Some(&median) = times.get(times.len() / 2) {
            println!(
                "W4 profile: {steps} steps, median {median:.3} ms, p10 {:.3} ms",
                times[times.len() / 10]
            );
        }
        return;
    }
    protocol(&mnist, loaded_mb);
    let batches: Vec<(Tensor<f32>, Vec<usize>)> = file_order(&mnist.train)
        .take(16)
        .map(|indices| mnist.train.batch(&indices))
        .collect();
    let mut trainer = Trainer::new();
    let mut next = 0;
    c.bench_function("W4 mlp step", |bench| {
        bench.iter(|| {
            let (images, labels) = &batches[next % batches.len()];
            next += 1;
            black_box(trainer.step(images, labels))
        })
    });
    if let Some(peak) = peak_rss_mb() {
        println!("W4 mlp: peak resident memory after criterion {peak:.0} MB");
    }
}

criterion_group!(benches, mlp);
criterion_main!(benches);
