"""Cuts the shipped MNIST subset from the full IDX files: the first N items of each file,
in file order, with the count in the header changed and nothing else touched.

Usage (from the repository root):
    python3 examples/data/mnist-subset/cut_subset.py ../shared/data/mnist examples/data/mnist-subset
"""
import gzip
import struct
import sys

TRAIN, TEST = 6000, 1000
FILES = {
    "train-images-idx3-ubyte.gz": TRAIN,
    "train-labels-idx1-ubyte.gz": TRAIN,
    "t10k-images-idx3-ubyte.gz": TEST,
    "t10k-labels-idx1-ubyte.gz": TEST,
}


def cut(source, target, count):
    data = gzip.open(source, "rb").read()
    ndim = data[3]
    dims = list(struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim]))
    item = 1
    for d in dims[1:]:
        item *= d
    body = data[4 + 4 * ndim : 4 + 4 * ndim + count * item]
    header = data[:4] + struct.pack(">" + "I" * ndim, count, *dims[1:])
    # mtime=0 makes the output byte-for-byte reproducible
    with open(target, "wb") as out:
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
            gz.write(header + body)


if __name__ == "__main__":
    src, dst = sys.argv[1], sys.argv[2]
    for name, count in FILES.items():
        cut(f"{src}/{name}", f"{dst}/{name}", count)
