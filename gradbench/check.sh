#!/usr/bin/env bash
# Runs every GradBench eval at its --quick size against gradtape's tool and fails unless
# every answer is valid (all four variants of particle and saddle included).
#
# Usage: gradbench/check.sh [EVAL...]   (default: all twelve)
# GRADBENCH_DIR points at the vendored GradBench (default ../shared/gradbench beside the
# repository); its run.sh installs what it needs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

gradbench="${GRADBENCH_DIR:-../shared/gradbench}"
evals=("$@")
if [ ${#evals[@]} -eq 0 ]; then
    evals=(hello llsq lse gmm ode lstm det ba ht kmeans particle saddle)
fi

bin="$(gradbench/build.sh)"
"$gradbench/run.sh" setup

tool="$bin/gradtape-gradbench"
logs="$(mktemp -d)"
for eval in "${evals[@]}"; do
    # the verdict reads the logs (a failed eval still leaves one), naming every problem
    "$gradbench/run.sh" eval "$eval" --quick -q --timeout 600 --log "$logs/$eval.jsonl" \
        -- "$tool" || true
done
"$bin/gradbench-logs" check $(printf "$logs/%s.jsonl " "${evals[@]}")
