"""What the W8 peer scripts share: reading MNIST, the batches, the timed loop, the report.

The batches are those of benches/cnn.rs: 128 consecutive images in file order per step,
pixels scaled to [0, 1]. Each step is timed until its loss is a Python float (the step
has finished, as the Rust bench's `to_scalar`); the first 10 of 110 steps are warm-up.
"""

import gzip
import resource
import statistics
import time

import numpy as np

BATCH = 128
STEPS = 110
WARM_UP = 10


def read_idx(path):
    """An IDX file (gzip'd) as a numpy array of its shape."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def batches(folder, image_shape):
    """The protocol's `STEPS` batches as (images float32 of `(BATCH, *image_shape)`, labels
    int64) numpy pairs."""
    images = read_idx(f"{folder}/train-images-idx3-ubyte.gz")
    labels = read_idx(f"{folder}/train-labels-idx1-ubyte.gz").astype(np.int64)
    out = []
    for k in range(STEPS):
        lo = (k * BATCH) % (len(images) - BATCH)
        x = images[lo : lo + BATCH].reshape(BATCH, *image_shape).astype(np.float32) / 255.0
        out.append((x, labels[lo : lo + BATCH]))
    return out


def run(name, step, steps):
    """Times `step(x, y)` (returning the loss) over `steps` and prints the report."""
    losses = []
    times = []
    for k, (x, y) in enumerate(steps):
        start = time.perf_counter()
        loss = float(step(x, y))
        elapsed = time.perf_counter() - start
        losses.append(loss)
        if k >= WARM_UP:
            times.append(elapsed * 1e3)
    print(
        f"W8 cnn ({name}): {statistics.median(times):.2f} ms per step "
        f"(median of {len(times)} after {WARM_UP} warm-up; mean {statistics.mean(times):.2f}); "
        f"first losses {losses[0]:.4f}, {losses[1]:.4f}; "
        f"loss after {len(losses)} steps {losses[-1]:.4f}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"W8 cnn: peak resident memory {peak:.0f} MB")
