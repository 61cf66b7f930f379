"""Memory of the batched path with auto-reset at large N, measured on this machine.

    python -m bench.batch_memory [--worlds 4096 16384] [--steps 3]

For each N (default world: 48 x 48, nine floors, 3 agents, "medium"):
* XLA's own buffer accounting of the compiled ``batch.step`` (``memory_analysis()``): the
  arguments (the batch: every running world and its reserve, the actions, the params), the
  outputs (observations, masks, infos), the temporaries, and what the donated batch aliases;
  ``peak`` is arguments + outputs + temporaries - aliased, the device memory one call needs;
* the bytes of the live batch and of one call's output, summed over their arrays;
* the process's peak resident memory (``ru_maxrss``) after ``BatchRunner.reset`` and
  ``--steps`` steps with masked random actions, and the seconds per step. ``ru_maxrss`` is the
  peak of the whole process so far, so give one N per run (as the records were made).
The device-memory goal (N = 16,384 in <= 24 GB; bench/records/HISTORY.md) is about a GPU; XLA's
buffer sizes are the same arrays there, its temporaries may differ.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import jax
import jax.numpy as jnp

from bench.common import world

GB = 1e9


def _nbytes(tree) -> int:
    return sum(leaf.nbytes for leaf in jax.tree.leaves(tree))


def measure(n: int, steps: int) -> dict:
    from alem_core.batch.runner import BatchRunner, compiled_batch
    from alem_core.testing.rollout import random_legal_actions

    params, static = world()
    runner = BatchRunner(n, params, static)
    start = time.perf_counter()
    out = runner.reset(seed=0)
    jax.block_until_ready(out.obs)
    reset_seconds = time.perf_counter() - start
    step = compiled_batch(static, runner.chunk).step
    actions = jnp.zeros((n, static.player_count), jnp.int32)
    arrays = jax.device_put(params.as_arrays())  # as the runner passes them
    stats = step.lower(runner.batch, actions, arrays).compile().memory_analysis()
    xla = {
        "arguments": stats.argument_size_in_bytes,
        "outputs": stats.output_size_in_bytes,
        "temporaries": stats.temp_size_in_bytes,
        "aliased": stats.alias_size_in_bytes,
    }
    xla["peak"] = xla["arguments"] + xla["outputs"] + xla["temporaries"] - xla["aliased"]
    draw = jax.jit(jax.vmap(random_legal_actions))
    key = jax.random.key(0)
    out = runner.step(draw(jax.random.split(key, n), out.info["action_mask"]))  # compiles draw
    jax.block_until_ready(out.obs)
    start = time.perf_counter()
    for _ in range(steps):
        key, sub = jax.random.split(key)
        out = runner.step(draw(jax.random.split(sub, n), out.info["action_mask"]))
    jax.block_until_ready(out.obs)
    seconds = (time.perf_counter() - start) / steps
    return {
        "worlds": n,
        "xla_bytes": xla,
        "batch_bytes": _nbytes(runner.batch),
        "output_bytes": _nbytes(out),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "reset_seconds": reset_seconds,
        "seconds_per_step": seconds,
        "env_steps_per_s": n / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[4096, 16384])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print(f"jax {jax.__version__} on {jax.devices()}")
    rows = []
    for n in args.worlds:
        row = measure(n, args.steps)
        x = row["xla_bytes"]
        print(
            f"N={n}: XLA peak {x['peak'] / GB:.2f} GB (arguments {x['arguments'] / GB:.2f}, "
            f"outputs {x['outputs'] / GB:.2f}, temporaries {x['temporaries'] / GB:.2f}, "
            f"aliased {x['aliased'] / GB:.2f}); batch {row['batch_bytes'] / GB:.2f} GB, "
            f"one output {row['output_bytes'] / GB:.2f} GB; peak RSS "
            f"{row['peak_rss_bytes'] / GB:.2f} GB; reset {row['reset_seconds']:.0f} s, "
            f"{row['env_steps_per_s']:.0f} env-steps/s on this CPU",
            flush=True,
        )
        rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
