"""W8 `cnn` (../shared/bench/WORKLOADS.md) in TensorFlow, for side-by-side timing.

The same network, data, initialisation rule and optimizer as benches/cnn.rs: NHWC
[128, 28, 28, 1] images in file order, pixels in [0, 1]; Conv2D 32 3x3 valid + ReLU ->
MaxPool 2x2 -> Conv2D 64 3x3 valid + ReLU -> MaxPool 2x2 -> Flatten -> Dense 128 ReLU ->
Dense 10; mean sparse softmax cross-entropy from logits; Adam(1e-3, eps 1e-7);
Glorot-uniform kernels, zero biases. Prints the median and mean ms per step of 100 steps
after 10 warm-up steps and the peak resident memory, in the Rust bench's words.

    python benches/peers/w8_tensorflow.py [--eager] [MNIST_DIR]

Needs `pip install tensorflow-cpu` (2.21 was used; docs/PERFORMANCE.md, W8).
"""

import sys

import tensorflow as tf

from w8_common import batches, run


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    eager = "--eager" in sys.argv
    folder = args[0] if args else "../shared/data/mnist"
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.Input((28, 28, 1)),
            tf.keras.layers.Conv2D(32, 3, activation="relu"),
            tf.keras.layers.MaxPool2D(2),
            tf.keras.layers.Conv2D(64, 3, activation="relu"),
            tf.keras.layers.MaxPool2D(2),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(128, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(1e-3, epsilon=1e-7)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    if not eager:
        step = tf.function(step)
    steps = [(tf.constant(x), tf.constant(y)) for x, y in batches(folder, (28, 28, 1))]
    mode = "eager" if eager else "tf.function"
    run(f"TensorFlow {tf.__version__} {mode}", step, steps)


if __name__ == "__main__":
    main()
