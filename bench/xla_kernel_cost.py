"""What one kernel costs XLA:CPU: to compile, and to launch on every call.

    python -m bench.xla_kernel_cost [--kernels 10 100 400 1000] [--length 0 10] [--quick]

A jitted chain of K dynamic-index updates of an 8-float array (XLA cannot fuse across them, so
each becomes kernels of its own, counted in the optimised HLO as ``stage_costs --compile``
counts them) is compiled from scratch and then called 100 times. Prints kernels, compile seconds
and the median microseconds per call. ``--length L`` puts L more select-and-arithmetic layers
in each update (so the kernels stay, the instructions inside them grow: the ``ops`` of
``stage_costs``), and ``--quick`` compiles with the PettingZoo step's XLA options
(``alem_core.executables.QUICK_COMPILE_CPU``). Why it is here: the step's cold compile and its
per-call cost are both read against it (``python -m bench.stage_costs --compile`` gives the
step's kernels and instructions); on this machine the compile grew with both, while the launch
of an empty kernel stayed well under a microsecond.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.executables import quick_compile_options
from bench.stage_costs import KERNEL, fused_ops


def chain(k: int, length: int = 0):
    """A jitted function of (x (8,), i ()) made of ``k`` unfusable dynamic updates, each
    adding a value computed through ``length`` more layers of selects and arithmetic."""

    def f(x, i):
        for j in range(k):
            value = jnp.sin(x[(i * j) % 8])
            for layer in range(length):
                value = jnp.where(value > layer, value - 1.5 * layer, value * 1.01 + j)
            x = x.at[(i + j) % 8].add(value)
        return x

    return jax.jit(f)


def measure(k: int, length: int = 0, options: dict | None = None, calls: int = 100) -> dict:
    x, i = jnp.ones((8,), jnp.float32), jnp.int32(3)
    fn = chain(k, length)
    start = time.perf_counter()
    compiled = fn.lower(x, i).compile(options)
    compile_s = time.perf_counter() - start
    kernels = len(KERNEL.findall(compiled.as_text()))
    ops = fused_ops(compiled.as_text())
    compiled(x, i).block_until_ready()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        compiled(x, i).block_until_ready()
        times.append(time.perf_counter() - start)
    call_us = 1e6 * float(np.median(times))
    return {"kernels": kernels, "ops": ops, "compile_s": compile_s, "call_us": call_us}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, nargs="+", default=[10, 100, 400, 1000])
    parser.add_argument("--length", type=int, nargs="+", default=[0])
    parser.add_argument("--quick", action="store_true", help="the PettingZoo step's options")
    args = parser.parse_args()
    options = quick_compile_options("every_step") if args.quick else None
    print(f"XLA options: {options or 'the defaults'}")
    for length in args.length:
        for k in args.kernels:
            r = measure(k, length, options)
            print(
                f"chain {k:5d} x {length:3d} layers: {r['kernels']:5d} kernels {r['ops']:6d} ops, "
                f"compile {r['compile_s']:6.2f} s ({1e3 * r['compile_s'] / r['kernels']:.1f} ms a "
                f"kernel), call {r['call_us']:7.1f} us",
                flush=True,
            )
    print(f"jax {jax.__version__}")


if __name__ == "__main__":
    main()
