"""What one kernel costs XLA:CPU: to compile, and to launch on every call.

    python -m bench.xla_kernel_cost [--kernels 10 100 400 1000]

A jitted chain of K dynamic-index updates of an 8-float array (XLA cannot fuse across them, so
each becomes kernels of its own, counted in the optimised HLO as ``stage_costs --compile``
counts them) is compiled from scratch and then called 100 times. Prints kernels, compile seconds
and the median microseconds per call. Why it is here: the step's cold compile and its per-call
cost are both read against it (``python -m bench.stage_costs --compile`` gives the step's kernel
count); on this machine the compile grew in proportion to the kernels while the launch of an
empty kernel stayed well under a microsecond.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from bench.stage_costs import KERNEL


def chain(k: int):
    """A jitted function of (x (8,), i ()) made of ``k`` unfusable dynamic updates."""

    def f(x, i):
        for j in range(k):
            x = x.at[(i + j) % 8].add(jnp.sin(x[(i * j) % 8]))
        return x

    return jax.jit(f)


def measure(k: int, calls: int = 100) -> dict:
    x, i = jnp.ones((8,), jnp.float32), jnp.int32(3)
    fn = chain(k)
    start = time.perf_counter()
    compiled = fn.lower(x, i).compile()
    compile_s = time.perf_counter() - start
    kernels = len(KERNEL.findall(compiled.as_text()))
    compiled(x, i).block_until_ready()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        compiled(x, i).block_until_ready()
        times.append(time.perf_counter() - start)
    return {"kernels": kernels, "compile_s": compile_s, "call_us": 1e6 * float(np.median(times))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, nargs="+", default=[10, 100, 400, 1000])
    args = parser.parse_args()
    for k in args.kernels:
        r = measure(k)
        print(
            f"chain {k:5d}: {r['kernels']:5d} kernels, compile {r['compile_s']:6.2f} s "
            f"({1e3 * r['compile_s'] / r['kernels']:.1f} ms a kernel), call {r['call_us']:7.1f} us",
            flush=True,
        )
    print(f"jax {jax.__version__}")


if __name__ == "__main__":
    main()
