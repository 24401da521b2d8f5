//! Trains a convolutional network on MNIST, the network of TensorFlow's guides in spirit:
//! two convolution/pooling blocks (32 and 64 filters, 3x3, ReLU, 2x2 max pooling), a dense
//! head of 128 ReLU units with dropout, 10 logits; Adam with an exponentially decaying
//! learning rate. Reports the time per epoch, the test accuracy, a plot of loss and
//! accuracy per epoch, and a checkpoint reloaded into a fresh model to check it.
//!
//! ```text
//! cargo run --release --example mnist_cnn                        # the shipped subset, 2 epochs
//! cargo run --release --example mnist_cnn -- --data ../shared/data/mnist --epochs 12
//! ```
//!
//! Options: `--data DIR` (or `MNIST_DIR`), `--epochs N`, `--batch N`, `--seed N`, `--plot PATH`,
//! `--save PATH`.

use gradtape::GradientTape;
use gradtape::nn::data::{Minibatches, Mnist, MnistSplit};
use gradtape::nn::metrics::{EpochRecord, accuracy};
use gradtape::nn::progress::EpochProgress;
use gradtape::nn::schedules::ExponentialDecay;
use gradtape::nn::{
    Activation, Adam, Conv2D, Dense, Dropout, Flatten, History, Layer, MaxPool2D, Optimizer,
    Sequential, checkpoint, losses, plot,
};

// The tour includes mnist.rs and mnist_cnn.rs, so it compiles this module once for each.
#[allow(clippy::duplicate_mod)]
#[path = "common/training_options.rs"]
mod training_options;

/// Adam's first learning rate, and its factor per epoch (applied smoothly, step by step).
const LEARNING_RATE: f64 = 1e-3;
const DECAY_PER_EPOCH: f64 = 0.75;

/// Runs this example (the tour calls it too).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = training_options::parse(2, "mnist_cnn");
    let mnist = Mnist::load(&options.data)?;
    println!(
        "MNIST from {}: {} training and {} test images",
        options.data.display(),
        mnist.train.len(),
        mnist.test.len()
    );

    let model = cnn(options.seed);
    let variables = model.trainable_variables();
    let steps_per_epoch = Minibatches::new(mnist.train.len(), options.batch).batch_count() as u64;
    let schedule = ExponentialDecay::new(LEARNING_RATE, steps_per_epoch, DECAY_PER_EPOCH);
    let mut adam = Adam::from_schedule(schedule);
    let mut history = History::default();
    for epoch in 0..options.epochs {
        let batches =
            Minibatches::new(mnist.train.len(), options.batch).shuffled(options.epoch_seed(epoch));
        let mut bar = EpochProgress::new(epoch + 1, options.epochs, batches.batch_count());
        for indices in batches {
            let (images, labels) = mnist.train.batch(&indices);
            let images = as_images(&images);
            let tape = GradientTape::new();
            // training mode: dropout drops units
            let logits = tape.record(|| model.call_training(&images));
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

    plot::history(
        &options.plot,
        "CNN (2 conv/pool blocks) on MNIST, Adam",
        &history,
    )?;
    println!("plot: {}", options.plot.display());

    checkpoint::save(&options.save, &variables)?;
    let reloaded = cnn(options.seed + 1);
    checkpoint::restore(&options.save, &reloaded.trainable_variables())?;
    let reloaded_accuracy = evaluate(&reloaded, &mnist.test);
    println!(
        "checkpoint: {} (reloaded model's test accuracy {reloaded_accuracy:.4})",
        options.save.display()
    );
    assert_eq!(
        reloaded_accuracy, test_accuracy,
        "the reloaded model must predict exactly as the trained one"
    );
    Ok(())
}

/// The model; `seed` draws its initial kernels. NHWC input `[batch, 28, 28, 1]`.
fn cnn(seed: u64) -> Sequential<f32> {
    let relu = Activation::Relu;
    Sequential::new()
        .push(Conv2D::new("conv2d", 1, 32, (3, 3), seed * 5).with_activation(relu))
        .push(MaxPool2D::new((2, 2)))
        .push(Conv2D::new("conv2d_1", 32, 64, (3, 3), seed * 5 + 1).with_activation(relu))
        .push(MaxPool2D::new((2, 2)))
        .push(Flatten)
        .push(Dense::new("dense", 5 * 5 * 64, 128, seed * 5 + 2).with_activation(relu))
        .push(Dropout::new(0.5, seed * 5 + 3))
        .push(Dense::new("dense_1", 128, 10, seed * 5 + 4))
}

/// A `[batch, 784]` batch of pixels as NHWC images `[batch, 28, 28, 1]`.
fn as_images(pixels: &gradtape::Tensor<f32>) -> gradtape::Tensor<f32> {
    pixels.reshape(&[pixels.shape()[0], 28, 28, 1])
}

/// Test accuracy (inference mode), in batches so memory stays small.
fn evaluate(model: &impl Layer<f32>, split: &MnistSplit) -> f64 {
    let mut correct = 0.0;
    for indices in Minibatches::new(split.len(), 500) {
        let (images, labels) = split.batch(&indices);
        correct += accuracy(&model.call(&as_images(&images)), &labels) * labels.len() as f64;
    }
    correct / split.len() as f64
}
