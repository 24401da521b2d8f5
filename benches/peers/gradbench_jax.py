"""GradBench's JAX tool, timed to the end of its computation.

The vendored tool (`gradbench-src/python/gradbench/gradbench/tools/jax`) times each run
with `time.perf_counter_ns()` around a call that returns as soon as JAX has *dispatched*
the work: JAX runs asynchronously on the CPU too, so its `evaluate` timings stop before the
computation is done (17-140 us reported for work on 10^7 elements). This script runs that
same tool unchanged except that every timed call ends in `jax.block_until_ready`, which
waits for the result, as JAX's own benchmarking advice says.

Run it as a GradBench tool (gradbench/compare.sh does, for `-t jax`):

    ../shared/gradbench/run.sh eval lse --quick -- env PYTHONDONTWRITEBYTECODE=1 \
        PYTHONPATH=../shared/gradbench/gradbench-src/python/gradbench \
        /path/to/python-with-jax benches/peers/gradbench_jax.py
"""

import os
import runpy
import sys

import gradbench
import jax
from gradbench import wrap

tool = os.path.join(os.path.dirname(gradbench.__file__), "tools", "jax")
# run.py imports each eval's module (`lse`, `gmm`, ...) from its own folder.
sys.path.insert(0, tool)


def blocking(decorator):
    """Wraps a `wrap` decorator so that the function it times waits for its result."""

    def make(**options):
        timed = decorator(**options)

        def apply(function):
            wrapped = timed(lambda input: jax.block_until_ready(function(input)))
            # Calling the Wrapped object directly runs the plain function, as upstream.
            wrapped.function = function
            return wrapped

        return apply

    return make


wrap.function = blocking(wrap.function)
wrap.multiple_runs = blocking(wrap.multiple_runs)

sys.argv[0] = os.path.join(tool, "run.py")
runpy.run_path(sys.argv[0], run_name="__main__")
