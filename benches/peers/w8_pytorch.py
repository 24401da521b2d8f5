"""W8 `cnn` (../shared/bench/WORKLOADS.md) in PyTorch (eager), for side-by-side timing.

The same network, data, initialisation rule and optimizer as benches/cnn.rs and
w8_tensorflow.py: the images in file order, pixels in [0, 1]; Conv2D 32 3x3 valid + ReLU
-> MaxPool 2x2 -> Conv2D 64 3x3 valid + ReLU -> MaxPool 2x2 -> Flatten -> Dense 128 ReLU
-> Dense 10; mean softmax cross-entropy from logits; Adam(1e-3, eps 1e-7); Glorot-uniform
kernels (PyTorch's fans for a conv kernel are those WORKLOADS.md gives), zero biases.
PyTorch's layers are NCHW: with one channel the input is the same bytes as NHWC's, and
the flatten order (channel first) differs from NHWC's by a fixed permutation of the first
dense layer's rows, which changes neither the work nor the distribution of the
initial weights. Prints the median and mean ms per step of 100 steps after 10 warm-up
steps and the peak resident memory, in the Rust bench's words.

    python benches/peers/w8_pytorch.py [MNIST_DIR]

Needs `pip install torch numpy` (docs/PERFORMANCE.md, W8).
"""

import sys

import torch
from torch import nn

from w8_common import batches, run


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    folder = args[0] if args else "../shared/data/mnist"
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(5 * 5 * 64, 128),
        nn.ReLU(),
        nn.Linear(128, 10),
    )
    for layer in model:
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    steps = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches(folder, (1, 28, 28))]
    run(f"PyTorch {torch.__version__} eager, {torch.get_num_threads()} threads", step, steps)


if __name__ == "__main__":
    main()
