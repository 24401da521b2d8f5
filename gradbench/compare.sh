#!/usr/bin/env bash
# Times gradtape against GradBench's hand-written C++ derivatives (`manual`), and against
# the PyTorch and JAX tools when a Python that has them is given, on the same inputs in one
# run, the tools interleaved round by round (this machine's speed drifts), and prints a
# Markdown table: the median `evaluate` time of each tool per eval, function and input, and
# gradtape's ratio to each.
#
# Usage: gradbench/compare.sh [-r ROUNDS] [-t TOOL]... [EVAL...] [-- EVAL_OPTIONS...]
#   EVAL...          evals to run (default: all but hello)
#   -r ROUNDS        rounds per tool (default 1); each round runs every input once
#   -t TOOL          a tool to run (gradtape, manual, pytorch, jax, tensorflow); repeat for
#                    several; default gradtape and manual, plus pytorch and jax when
#                    GRADBENCH_TOOL_PYTHON has them
#   EVAL_OPTIONS     passed to every eval, e.g. `-- --min-runs 10 --min-seconds 0` or
#                    sizes (`-- -n 1000`); default: the evals' default sizes
# GRADBENCH_TOOL_PYTHON=/path/to/python with torch and/or jax adds pytorch and/or jax;
# GRADBENCH_PYTORCH_PYTHON and GRADBENCH_JAX_PYTHON name one for each, where they differ.
# Every tool runs as GradBench runs it by default, on one thread: gradtape-gradbench
# without `--multithreaded` (built for this CPU by gradbench/build.sh, as GradBench builds
# its C++ tools with `-march=native`), manual compiled without OpenMP, JAX pinned to one core
# (PyTorch's tool sets no thread count, so it may use more). JAX runs through
# benches/peers/gradbench_jax.py: the vendored tool, timed to the end of its asynchronous
# computation (`block_until_ready`), which the vendored one is not.
# Logs go to target/gradbench-compare/ (GRADBENCH_COMPARE_OUT to change).
set -euo pipefail
cd "$(dirname "$0")/.."

gradbench="${GRADBENCH_DIR:-../shared/gradbench}"
gradbench="$(cd "$gradbench" && pwd)"
rounds=1
evals=()
tools=()
while [ $# -gt 0 ]; do
    case "$1" in
        -r) rounds="$2"; shift 2 ;;
        -t) tools+=("$2"); shift 2 ;;
        --) shift; break ;;
        *) evals+=("$1"); shift ;;
    esac
done
options=("$@")
if [ ${#evals[@]} -eq 0 ]; then
    evals=(llsq lse gmm ode lstm det ba ht kmeans particle saddle)
fi

pytorch_python="${GRADBENCH_PYTORCH_PYTHON:-${GRADBENCH_TOOL_PYTHON:-}}"
jax_python="${GRADBENCH_JAX_PYTHON:-${GRADBENCH_TOOL_PYTHON:-}}"
bin="$(gradbench/build.sh)"
"$gradbench/run.sh" setup

if [ ${#tools[@]} -eq 0 ]; then
    tools=(gradtape manual)
    if [ -n "$pytorch_python" ] && "$pytorch_python" -c 'import torch' 2>/dev/null; then
        tools+=(pytorch)
    fi
    if [ -n "$jax_python" ] && "$jax_python" -c 'import jax' 2>/dev/null; then
        tools+=(jax)
    fi
fi

out="${GRADBENCH_COMPARE_OUT:-target/gradbench-compare}"
rm -rf "$out"
mkdir -p "$out"
for eval in "${evals[@]}"; do
    for round in $(seq "$rounds"); do
        for tool in "${tools[@]}"; do
            log="$out/$eval-$tool-$round.jsonl"
            echo "== $eval, $tool, round $round" >&2
            case "$tool" in
                gradtape) how=(-- "$bin/gradtape-gradbench") ;;
                jax) how=(-- env PYTHONDONTWRITEBYTECODE=1
                          PYTHONPATH="$gradbench/gradbench-src/python/gradbench"
                          "$jax_python" "$PWD/benches/peers/gradbench_jax.py") ;;
                pytorch) how=(--tool pytorch --tool-python "$pytorch_python") ;;
                *) how=(--tool "$tool") ;;
            esac
            "$gradbench/run.sh" eval "$eval" -q --log "$log" "${options[@]}" "${how[@]}" \
                >&2 || true
        done
    done
done
"$bin/gradbench-logs" table "$out"/*.jsonl
