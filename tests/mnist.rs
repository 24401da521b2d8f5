//! End-to-end training: an MLP learns MNIST. On the shipped subset always; on the full
//! files when `MNIST_DIR` points at them (`.ci/run` sets it when ../shared/data/mnist exists).

use std::path::{Path, PathBuf};

use gradtape::GradientTape;
use gradtape::nn::data::{Minibatches, Mnist, MnistSplit};
use gradtape::nn::metrics::accuracy;
use gradtape::nn::{Activation, Adam, Dense, Layer, Optimizer, Sequential, losses};

/// 784-128-10 with ReLU, trained with Adam for `epochs` epochs of shuffled batches of 64;
/// returns the accuracy on `test`.
fn train_and_test(train: &MnistSplit, test: &MnistSplit, epochs: usize, learning_rate: f32) -> f64 {
    let model = Sequential::new()
        .push(Dense::<f32>::new("hidden", 784, 128, 1).with_activation(Activation::Relu))
        .push(Dense::new("logits", 128, 10, 2));
    let variables = model.trainable_variables();
    let mut adam = Adam::new(learning_rate);
    for epoch in 0..epochs {
        for indices in Minibatches::new(train.len(), 64).shuffled(epoch as u64) {
            let (images, labels) = train.batch(&indices);
            let tape = GradientTape::new();
            let loss =
                tape.record(|| losses::sparse_softmax_cross_entropy(&model.call(&images), &labels));
            let grads = tape.gradient(&loss, &variables).unwrap();
            adam.apply_gradients(grads.into_iter().zip(&variables));
        }
    }
    let (images, labels) = test.batch(&(0..test.len()).collect::<Vec<_>>());
    accuracy(&model.call(&images), &labels)
}

#[test]
fn mlp_learns_the_shipped_subset() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/mnist-subset");
    let mnist = Mnist::load(dir).unwrap();
    // 6,000 training images, 6 epochs; chance is 0.1
    let accuracy = train_and_test(&mnist.train, &mnist.test, 6, 1e-3);
    println!("subset test accuracy after 6 epochs: {accuracy:.4}");
    assert!(accuracy >= 0.90, "test accuracy {accuracy} < 0.90");
}

#[test]
fn mlp_reaches_95_percent_on_full_mnist_in_one_epoch() {
    let Some(dir) = std::env::var_os("MNIST_DIR").map(PathBuf::from) else {
        eprintln!("MNIST_DIR is not set: skipping the full-MNIST run");
        return;
    };
    let mnist = Mnist::load(&dir).unwrap();
    assert_eq!((mnist.train.len(), mnist.test.len()), (60000, 10000));
    let accuracy = train_and_test(&mnist.train, &mnist.test, 1, 2e-3);
    println!("full MNIST test accuracy after 1 epoch: {accuracy:.4}");
    assert!(accuracy >= 0.95, "test accuracy {accuracy} < 0.95");
}
