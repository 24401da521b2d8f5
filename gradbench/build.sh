#!/usr/bin/env bash
# Builds the GradBench tool (and gradbench-logs) for this machine's CPU, as GradBench builds
# its C++ tools right before running them (`gradbench-src/cpp/common.mk`: `-O3
# -march=native` unless the binary goes into a Docker image), and as JAX's XLA and
# PyTorch's kernels pick this CPU's vector width at run time. A target directory of its
# own, so that these flags do not rebuild the workspace's other release artifacts.
# Prints the directory the binaries are in.
#
# Usage: dir="$(gradbench/build.sh)"   (run from anywhere; cargo's output goes to stderr)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${GRADBENCH_TARGET_DIR:-$PWD/target/gradbench-native}"
RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native" \
    cargo build --release -p gradtape-gradbench --target-dir "$target" >&2
echo "$target/release"
