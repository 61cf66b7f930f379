"""The paper's IPPO baseline at paper scale on one accelerator: the trainer's and world's rates.

    python -m bench.gpu_train [--preset paper-ippo] [--worlds 1024] [--updates 10] [--out DIR]
                              [--small]

One process: the preset (``alem_train.presets``) at ``--worlds`` worlds, one update per call,
the learning rate annealed over the ``--updates`` updates. It compiles the trainer's call (its
seconds reported), runs ``--updates`` updates from Python timed whole (the trainer's env-steps/s,
as ``run_ppo`` calls it, episodes ending and resetting inside), then the same number of rollouts
of the world alone (the batched auto-reset step in a ``lax.scan`` with NOOP actions, as
``bench.trainer_profile`` times it). It reports the device's peak memory where the device keeps
the count (GPUs do; the CPU does not), and leaves a checkpoint in ``--out``: ``state.npz`` to
resume with ``run_ppo``, ``policy.npz`` for ``alem-evaluate``, ``config.json``, and the figures as
``gpu_train.json``. Imports only ``alem_core``, ``alem_train``, JAX and optax, so a GPU machine
needs no PettingZoo or Gymnasium for it. ``bench/gpu.sh`` runs it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax

import alem_core
from alem_train import checkpoint, policy_file, ppo
from alem_train.presets import PRESETS, preset_config
from bench.common import load_average
from bench.trainer_profile import timed, world_program


def peak_memory() -> int | None:
    stats = jax.devices()[0].memory_stats() or {}
    return stats.get("peak_bytes_in_use")


def run(config: ppo.PPOConfig, updates: int, out: Path) -> dict:
    state = ppo.init_train_state(jax.random.key(0), config)
    call = ppo.make_train_call(config)
    started = time.perf_counter()
    compiled = call.lower(state).compile()
    compile_s = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(updates):
        state, metrics = compiled(state)
    jax.block_until_ready(state.params)
    train_s = time.perf_counter() - started
    world = timed(world_program(config), (state.batch,), updates)
    env_steps = config.steps_per_update
    out.mkdir(parents=True, exist_ok=True)
    checkpoint.save_tree(out / "state.npz", state)
    policy_file.save_policy(out / "policy.npz", state.params["actor"], config.players)
    checkpoint.write_config(
        out,
        config,
        {
            "seed": 0,
            "world_version": alem_core.WORLD_VERSION,
            "state_layout": alem_core.STATE_LAYOUT,
        },
    )
    return {
        "updates": updates, "env_steps": updates * env_steps, "train_compile_s": compile_s,
        "train_s": train_s, "trainer_env_steps_per_s": updates * env_steps / train_s,
        "world_compile_s": world["compile_s"],
        "world_env_steps_per_s": env_steps / world["mean_s"],
        "peak_memory_bytes": peak_memory(),
        "last_update": {k: float(v.mean()) for k, v in metrics.items()},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="paper-ippo", choices=sorted(PRESETS))
    parser.add_argument("--worlds", type=int, default=1024)
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("gpu_train"))
    parser.add_argument("--small", action="store_true", help="16 x 16, one floor (tests)")
    args = parser.parse_args(argv)
    world = {"map_size": 16, "num_levels": 1} if args.small else {}
    steps = PRESETS[args.preset]["num_steps"] * args.worlds * args.updates
    config = preset_config(
        args.preset, num_worlds=args.worlds, updates_per_call=1, total_env_steps=steps, **world
    )
    load_before = load_average()
    report = {
        "command": "python -m bench.gpu_train " + " ".join(
            f"--{k} {v}" for k, v in vars(args).items() if v not in (None, False)
        ),
        "jax": jax.__version__, "device": str(jax.devices()[0]), "config": vars(config),
        **run(config, args.updates, args.out), "load": [load_before, load_average()],
    }  # fmt: skip
    peak = report["peak_memory_bytes"]
    print(
        f"{args.preset} at N={args.worlds} on {report['device']}: trainer "
        f"{report['trainer_env_steps_per_s']:,.0f} env-steps/s over {args.updates} updates "
        f"(compile {report['train_compile_s']:.1f} s), world alone "
        f"{report['world_env_steps_per_s']:,.0f} env-steps/s; peak memory "
        f"{'n/a' if peak is None else f'{peak / 2**30:.2f} GiB'}; checkpoint in {args.out}"
    )
    (args.out / "gpu_train.json").write_text(json.dumps(report, indent=1, default=str))
    return report


if __name__ == "__main__":
    main()
