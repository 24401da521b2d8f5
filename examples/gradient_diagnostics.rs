//! Gradients as a diagnostic: trains two networks on MNIST under a
//! [`Monitor`](gradtape::nn::monitor::Monitor) that watches each layer's gradient norm and
//! dead units, and shows it catching the one built to fail.
//!
//! - **healthy**: 784-64-64-10 with ReLU, SGD with learning rate 0.1;
//! - **vanishing**: the same width but ten sigmoid layers deep, the same optimizer. Each
//!   sigmoid multiplies the gradient by at most σ' ≤ 1/4 on its way down, so the first
//!   layers' gradients are orders of magnitude smaller than the last ones' and the first
//!   layers barely learn.
//!
//! For each it prints the warnings as they are raised, the last record's per-variable
//! statistics, and writes a CSV of the history and two plots (gradient norm per variable,
//! log scale; dead-unit fraction per layer) to `target/plots/`.
//!
//! ```text
//! cargo run --release --example gradient_diagnostics             # the shipped subset
//! MNIST_DIR=../shared/data/mnist cargo run --release --example gradient_diagnostics
//! ```

use std::path::PathBuf;

use gradtape::GradientTape;
use gradtape::nn::data::{Minibatches, Mnist};
use gradtape::nn::diagnostics::{ActivationStats, GradientStats};
use gradtape::nn::metrics::accuracy;
use gradtape::nn::monitor::{Monitor, Warning};
use gradtape::nn::{Activation, Dense, Layer, Optimizer, Sequential, Sgd, losses, plot};

const LEARNING_RATE: f32 = 0.1;
const BATCH: usize = 64;
/// Two passes over the shipped subset's 6,000 images.
const STEPS: u64 = 188;
/// Statistics every few steps: enough points for the plots, little work.
const EVERY: u64 = 4;

/// Runs this example (the tour calls it too).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = std::env::var("MNIST_DIR").map_or_else(
        |_| workspace.join("examples/data/mnist-subset"),
        PathBuf::from,
    );
    let mnist = Mnist::load(&data)?;
    let out = workspace.join("target/plots");
    std::fs::create_dir_all(&out)?;
    println!(
        "MNIST from {}: {} training images; SGD, learning rate {LEARNING_RATE}, batches of {BATCH}, {STEPS} steps, statistics every {EVERY} steps",
        data.display(),
        mnist.train.len()
    );

    let healthy = Sequential::new()
        .push(Dense::new("dense", 784, 64, 0).with_activation(Activation::Relu))
        .push(Dense::new("dense_1", 64, 64, 1).with_activation(Activation::Relu))
        .push(Dense::new("logits", 64, 10, 2));
    let mut deep = Sequential::new()
        .push(Dense::new("sigmoid_0", 784, 64, 10).with_activation(Activation::Sigmoid));
    for i in 1..10 {
        deep = deep.push(
            Dense::new(&format!("sigmoid_{i}"), 64, 64, 10 + i as u64)
                .with_activation(Activation::Sigmoid),
        );
    }
    let deep = deep.push(Dense::new("logits", 64, 10, 20));

    for (name, model) in [("healthy", &healthy), ("vanishing", &deep)] {
        println!("\n-- {name}: {} layers", model.len());
        let monitor = train(model, &mnist)?;
        report(&monitor);
        let csv = out.join(format!("gradient_diagnostics_{name}.csv"));
        let norms = out.join(format!("gradient_diagnostics_{name}_norms.png"));
        let dead = out.join(format!("gradient_diagnostics_{name}_dead.png"));
        monitor.write_csv(&csv)?;
        plot::gradient_norms(
            &norms,
            &format!("{name}: gradient norm per variable"),
            &monitor,
        )?;
        plot::dead_units(
            &dead,
            &format!("{name}: dead and saturated units"),
            &monitor,
        )?;
        println!(
            "history: {}\nplots: {}, {}",
            csv.display(),
            norms.display(),
            dead.display()
        );
    }
    Ok(())
}

/// Trains `model` for `STEPS` steps, recording statistics every `EVERY` steps; prints each
/// warning as it is raised.
fn train(model: &Sequential<f32>, mnist: &Mnist) -> Result<Monitor, Box<dyn std::error::Error>> {
    let variables = model.trainable_variables();
    let mut sgd = Sgd::new(LEARNING_RATE);
    let mut monitor = Monitor::new().with_every(EVERY);
    let batches =
        (0..).flat_map(|epoch| Minibatches::new(mnist.train.len(), BATCH).shuffled(epoch));
    let mut last_accuracy = 0.0;
    let mut printed = 0;
    for (step, indices) in (0..STEPS).zip(batches) {
        let (images, labels) = mnist.train.batch(&indices);
        let tape = GradientTape::new();
        let mut outputs = Vec::new();
        let logits = tape.record(|| model.call_with_activations(&images, &mut outputs));
        let loss = tape.record(|| losses::sparse_softmax_cross_entropy(&logits, &labels));
        let grads = tape.gradient(&loss, &variables)?;
        if monitor.is_due(step) {
            // before the update: the update ratio compares the step with the weights
            let stats = GradientStats::new(&variables, &grads, LEARNING_RATE.into());
            for warning in monitor.record(step, &stats, &ActivationStats::of_layers(&outputs)) {
                // the first few in full; all of them stay in monitor.warnings()
                if printed < 3 {
                    println!("warning: {warning}");
                    printed += 1;
                }
            }
        }
        sgd.apply_gradients(grads.into_iter().zip(&variables));
        last_accuracy = accuracy(&logits, &labels);
    }
    println!("accuracy on the last batch: {last_accuracy:.3}");
    Ok(monitor)
}

/// The last record's statistics, per variable and per layer, and where to look.
fn report(monitor: &Monitor) {
    let Some(last) = monitor.records().last() else {
        return;
    };
    println!(
        "step {}: global gradient norm {:.3e}",
        last.step,
        last.gradients.global_norm()
    );
    println!(
        "  {:<18} {:>10} {:>10} {:>8} {:>12}",
        "variable", "norm", "max |g|", "zeros", "lr·‖g‖/‖w‖"
    );
    for v in last.gradients.variables() {
        match &v.gradient {
            Some(g) => println!(
                "  {:<18} {:>10.2e} {:>10.2e} {:>7.1}% {:>12}",
                v.name,
                g.norm,
                g.max_abs,
                g.zero_fraction * 100.0,
                g.update_ratio.map_or("-".into(), |r| format!("{r:.1e}"))
            ),
            None => println!("  {:<18} None", v.name),
        }
    }
    let flat: Vec<String> = last
        .activations
        .iter()
        .filter_map(|a| Some(format!("{} {:.0}% dead", a.layer, a.dead_fraction? * 100.0)))
        .collect();
    println!("  layers: {}", flat.join(", "));
    let warnings = monitor.warnings();
    if warnings.is_empty() {
        println!("no warnings: the gradients stay within a few decades of each other");
        return;
    }
    let mut vanishing: Vec<&str> = Vec::new();
    for w in warnings {
        if matches!(w, Warning::Vanishing { .. }) && !vanishing.contains(&w.subject()) {
            vanishing.push(w.subject());
        }
    }
    println!(
        "{} warnings in all (the first three printed above)",
        warnings.len()
    );
    if !vanishing.is_empty() {
        println!(
            "where to look: the gradients of {} vanished (the layers nearest the input \
             first); the norm plot shows each layer's norm decades below the next one's",
            vanishing.join(", ")
        );
    }
}
