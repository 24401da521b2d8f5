//! Trains a multilayer perceptron (784-512-256-10, ReLU) on MNIST with Adam (learning rate
//! 0.001, times 0.65 each epoch) and reports the
//! test accuracy, the time per epoch, a plot of loss and accuracy per epoch, and a
//! checkpoint that is reloaded into a fresh model to check it.
//!
//! ```text
//! cargo run --release --example mnist                       # the shipped subset
//! cargo run --release --example mnist -- --data ../shared/data/mnist
//! MNIST_DIR=../shared/data/mnist cargo run --release --example mnist
//! ```
//!
//! Options: `--data DIR`, `--epochs N`, `--batch N`, `--seed N`, `--plot PATH`, `--save PATH`.

use gradtape::GradientTape;
use gradtape::nn::data::{Minibatches, Mnist, MnistSplit};
use gradtape::nn::metrics::{EpochRecord, accuracy};
use gradtape::nn::progress::EpochProgress;
use gradtape::nn::{
    Activation, Adam, Dense, History, Layer, Optimizer, Sequential, checkpoint, losses, plot,
};

// The tour includes mnist.rs and mnist_cnn.rs, so it compiles this module once for each.
#[allow(clippy::duplicate_mod)]
#[path = "common/training_options.rs"]
mod training_options;

/// Adam's learning rate in the first epoch, and its factor per epoch after that.
const LEARNING_RATE: f32 = 1e-3;
const LEARNING_RATE_DECAY: f32 = 0.65;

/// Runs this example (the tour calls it too).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = training_options::parse(10, "mnist");
    let mnist = Mnist::load(&options.data)?;
    println!(
        "MNIST from {}: {} training and {} test images",
        options.data.display(),
        mnist.train.len(),
        mnist.test.len()
    );

    let model = mlp(options.seed);
    let variables = model.trainable_variables();
    let mut adam = Adam::new(LEARNING_RATE);
    let mut history = History::default();
    for epoch in 0..options.epochs {
        // A decaying step lets the weights settle once the fast early progress is made.
        adam.set_learning_rate(LEARNING_RATE * LEARNING_RATE_DECAY.powi(epoch as i32));
        let batches =
            Minibatches::new(mnist.train.len(), options.batch).shuffled(options.epoch_seed(epoch));
        let mut bar = EpochProgress::new(epoch + 1, options.epochs, batches.batch_count());
        for indices in batches {
            let (images, labels) = mnist.train.batch(&indices);
            let tape = GradientTape::new();
            let logits = tape.record(|| model.call(&images));
            let loss = tape.record(|| losses::sparse_softmax_cross_entropy(&logits, &labels));
            let grads = tape.gradient(&loss, &variables)?;
            adam.apply_gradients(grads.into_iter().zip(&variables));
            bar.batch(
                loss.to_scalar().into(),
                accuracy(&logits, &labels),
                labels.len(),
            );
        }
        let (loss, train_accuracy, seconds) = bar.finish();
        let test_accuracy = evaluate(&model, &mnist.test);
        println!(
            "epoch {}/{}: {seconds:.2} s, loss {loss:.4}, accuracy {train_accuracy:.4}, test accuracy {test_accuracy:.4}",
            epoch + 1,
            options.epochs
        );
        history.push(EpochRecord {
            loss,
            accuracy: train_accuracy,
            test_accuracy: Some(test_accuracy),
            seconds,
        });
    }
    let test_accuracy = evaluate(&model, &mnist.test);
    println!("test accuracy: {test_accuracy:.4}");

    plot::history(&options.plot, "MLP 784-512-256-10 on MNIST, Adam", &history)?;
    println!("plot: {}", options.plot.display());

    checkpoint::save(&options.save, &variables)?;
    let reloaded = mlp(options.seed + 1);
    checkpoint::restore(&options.save, &reloaded.trainable_variables())?;
    println!(
        "checkpoint: {} (reloaded model's test accuracy {:.4})",
        options.save.display(),
        evaluate(&reloaded, &mnist.test)
    );
    Ok(())
}

/// The model; `seed` draws its initial kernels.
fn mlp(seed: u64) -> Sequential<f32> {
    Sequential::new()
        .push(Dense::new("dense", 784, 512, seed * 3).with_activation(Activation::Relu))
        .push(Dense::new("dense_1", 512, 256, seed * 3 + 1).with_activation(Activation::Relu))
        .push(Dense::new("dense_2", 256, 10, seed * 3 + 2))
}

/// Test accuracy, in batches so memory stays small.
fn evaluate(model: &impl Layer<f32>, split: &MnistSplit) -> f64 {
    let mut correct = 0.0;
    for indices in Minibatches::new(split.len(), 1000) {
        let (images, labels) = split.batch(&indices);
        correct += accuracy(&model.call(&images), &labels) * labels.len() as f64;
    }
    correct / split.len() as f64
}
