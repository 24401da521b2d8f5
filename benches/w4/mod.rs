//! W4's definition (../shared/bench/WORKLOADS.md), shared by the benches that run it: the
//! 784-128-10 ReLU MLP (Glorot-uniform kernels, seeds 0 and 1), batches of 128, SGD with
//! learning rate 0.1, the full MNIST files from `MNIST_DIR`, else `../shared/data/mnist`.

use gradtape::nn::data::Mnist;
use gradtape::nn::{Activation, Dense, Sequential};

/// Examples per step.
pub const BATCH: usize = 128;

/// SGD's learning rate.
pub const LEARNING_RATE: f32 = 0.1;

/// The network, freshly initialised.
pub fn model() -> Sequential<f32> {
    Sequential::new()
        .push(Dense::new("dense", 784, 128, 0).with_activation(Activation::Relu))
        .push(Dense::new("dense_1", 128, 10, 1))
}

/// The full MNIST files.
pub fn load() -> Mnist {
    let dir = std::env::var("MNIST_DIR").unwrap_or_else(|_| "../shared/data/mnist".into());
    Mnist::load(&dir).unwrap_or_else(|e| panic!("W4 needs the full MNIST files: {e}"))
}
