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

import gzip
import resource
import statistics
import sys
import time

import numpy as np
import tensorflow as tf


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    eager = "--eager" in sys.argv
    folder = args[0] if args else "../shared/data/mnist"
    images = read_idx(f"{folder}/train-images-idx3-ubyte.gz")
    labels = read_idx(f"{folder}/train-labels-idx1-ubyte.gz").astype(np.int64)
    batch = 128
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

    def batch_at(k):
        lo = (k * batch) % (len(images) - batch)
        x = images[lo : lo + batch].reshape(batch, 28, 28, 1).astype(np.float32) / 255.0
        return tf.constant(x), tf.constant(labels[lo : lo + batch])

    batches = [batch_at(k) for k in range(110)]
    losses = []
    times = []
    for k, (x, y) in enumerate(batches):
        start = time.perf_counter()
        loss = step(x, y)
        loss = float(loss)  # waits for the step, as the Rust bench's to_scalar does
        elapsed = time.perf_counter() - start
        losses.append(loss)
        if k >= 10:
            times.append(elapsed * 1e3)
    mode = "eager" if eager else "tf.function"
    print(
        f"W8 cnn (TensorFlow {tf.__version__} {mode}): {statistics.median(times):.2f} ms per step "
        f"(median of 100 after 10 warm-up; mean {statistics.mean(times):.2f}); first losses "
        f"{losses[0]:.4f}, {losses[1]:.4f}; loss after 110 steps {losses[-1]:.4f}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"W8 cnn: peak resident memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
