//! The cost of gradient diagnostics beside a W4 step (../shared/bench/WORKLOADS.md: one
//! MNIST training step of a 784-128-10 ReLU MLP, batch 128, SGD with learning rate 0.1):
//!
//! - `W4 step`: the step alone, as benches/mlp.rs times it;
//! - `gradient stats`: `GradientStats::new` on one step's gradients (per-variable norm,
//!   max |g|, mean, zeros, non-finite counts, update ratio, global norm: one pass over the
//!   101,770 gradients and one over the weights);
//! - `activation stats`: `ActivationStats::of_layers` on one step's layer outputs (the
//!   `[128, 128]` ReLU output and the `[128, 10]` logits);
//! - `monitor record`: both statistics of one step recorded in a `Monitor`: what the
//!   monitor adds to a step, timed apart from the step (whose time varies more with the
//!   machine's load, as it runs on two threads);
//! - `W4 step + monitor`: the step taking its layer outputs with `call_with_activations`
//!   and recording both statistics in a `Monitor` every step.
//!
//! MNIST comes from `MNIST_DIR`, else `../shared/data/mnist`.

// criterion_group! defines a public function it does not document.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{BatchSize, Criterion, black_box, criterion_group, criterion_main};
use gradtape::nn::data::Minibatches;
use gradtape::nn::diagnostics::{ActivationStats, GradientStats};
use gradtape::nn::monitor::Monitor;
use gradtape::nn::{Layer, LayerOutput, Optimizer, Sequential, Sgd, losses};
use gradtape::{GradientTape, Tensor, Variable};

mod w4;

use w4::{BATCH, LEARNING_RATE};

struct Trainer {
    model: Sequential<f32>,
    variables: Vec<Variable<f32>>,
    sgd: Sgd<f32>,
}

type Step = (f32, Vec<Option<Tensor<f32>>>, Vec<LayerOutput<f32>>);

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

    /// The step; with `monitor`, the layer outputs are taken and both statistics recorded.
    fn step(
        &mut self,
        images: &Tensor<f32>,
        labels: &[usize],
        monitor: Option<&mut Monitor>,
    ) -> f32 {
        let tape = GradientTape::new();
        let mut outputs = Vec::new();
        let loss = tape.record(|| {
            let logits = if monitor.is_some() {
                self.model.call_with_activations(images, &mut outputs)
            } else {
                self.model.call(images)
            };
            losses::sparse_softmax_cross_entropy(&logits, labels)
        });
        let grads = tape.gradient(&loss, &self.variables).expect("fresh tape");
        if let Some(monitor) = monitor {
            let step = self.sgd.iterations();
            let stats = GradientStats::new(&self.variables, &grads, LEARNING_RATE.into());
            black_box(monitor.record(step, &stats, &ActivationStats::of_layers(&outputs)));
        }
        self.sgd
            .apply_gradients(grads.into_iter().zip(&self.variables));
        loss.to_scalar()
    }

    /// One step's gradients and layer outputs, without the update.
    fn gradients(&self, images: &Tensor<f32>, labels: &[usize]) -> Step {
        let tape = GradientTape::new();
        let mut outputs = Vec::new();
        let loss = tape.record(|| {
            let logits = self.model.call_with_activations(images, &mut outputs);
            losses::sparse_softmax_cross_entropy(&logits, labels)
        });
        let grads = tape.gradient(&loss, &self.variables).expect("fresh tape");
        (loss.to_scalar(), grads, outputs)
    }
}

fn diagnostics(c: &mut Criterion) {
    let mnist = w4::load();
    let batches: Vec<(Tensor<f32>, Vec<usize>)> = Minibatches::new(mnist.train.len(), BATCH)
        .take(16)
        .map(|indices| mnist.train.batch(&indices))
        .collect();

    // the value computed, so a fast wrong answer cannot pass
    let trainer = Trainer::new();
    let (loss, grads, outputs) = trainer.gradients(&batches[0].0, &batches[0].1);
    let stats = GradientStats::new(&trainer.variables, &grads, LEARNING_RATE.into());
    let layers = ActivationStats::of_layers(&outputs);
    println!(
        "first W4 batch: loss {loss:.4}, global gradient norm {:.4}, dense kernel update ratio {:.3e}, dense dead units {:.3}",
        stats.global_norm(),
        stats.variables()[0]
            .gradient
            .as_ref()
            .unwrap()
            .update_ratio
            .unwrap(),
        layers[0].dead_fraction.unwrap()
    );

    let mut group = c.benchmark_group("diagnostics");
    group
        .sample_size(40)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8));
    group.bench_function("gradient stats", |b| {
        b.iter(|| {
            black_box(GradientStats::new(
                &trainer.variables,
                &grads,
                LEARNING_RATE.into(),
            ))
        })
    });
    group.bench_function("activation stats", |b| {
        b.iter(|| black_box(ActivationStats::of_layers(&outputs)))
    });
    // what the monitor adds to a step, apart from the step: both statistics and the record
    // (into a fresh monitor each time, made outside the timing, so that the history does
    // not grow over the run)
    group.bench_function("monitor record", |b| {
        b.iter_batched_ref(
            Monitor::new,
            |monitor| {
                let stats = GradientStats::new(&trainer.variables, &grads, LEARNING_RATE.into());
                black_box(monitor.record(0, &stats, &ActivationStats::of_layers(&outputs)))
            },
            BatchSize::SmallInput,
        )
    });
    let mut trainer = Trainer::new();
    let mut next = 0;
    group.bench_function("W4 step", |b| {
        b.iter(|| {
            let (images, labels) = &batches[next % batches.len()];
            next += 1;
            black_box(trainer.step(images, labels, None))
        })
    });
    let mut trainer = Trainer::new();
    let mut monitor = Monitor::new();
    group.bench_function("W4 step + monitor", |b| {
        b.iter(|| {
            let (images, labels) = &batches[next % batches.len()];
            next += 1;
            black_box(trainer.step(images, labels, Some(&mut monitor)))
        })
    });
    group.finish();
}

criterion_group!(benches, diagnostics);
criterion_main!(benches);
