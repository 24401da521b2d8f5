#!/bin/sh
# A long hunt: generate programs from a range of seeds into a scratch crate that depends on
# gradtape by path, and run them against the op-by-op tape and finite differences.
#   fuzz/hunt.sh [SEEDS] [DIR] [--scalar]  e.g. fuzz/hunt.sh 1000..3000 /tmp/gradtape-fuzz
# (`--scalar`: plain-float programs against dual numbers, fuzz/src/scalar.rs)
# The scratch crate builds in the worktree's target/ (its dependencies are reused). A
# failing program prints its name (`program_<seed>`); `cargo run -p gradtape-fuzz --
# --print <seed>` prints it alone, to keep as a regression test.
set -eu
seeds=${1:-1000..3000}
out=${2:-/tmp/gradtape-fuzz}
mode=${3:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
cargo run -q --manifest-path "$repo/Cargo.toml" -p gradtape-fuzz -- $mode --seeds "$seeds" --out "$out"
cd "$out"
CARGO_TARGET_DIR="$repo/target" cargo test --no-fail-fast 2>&1 | grep -E "^test result|FAILED|panicked|^error|^failures" || true
