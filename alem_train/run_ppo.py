"""Train IPPO or MAPPO on alem and score the result with the evaluation protocol.

    python -m alem_train.run_ppo --algo mappo --difficulty hard --total-env-steps 500000 \
        --out results/marl/mappo_hard_s0 [--eval-episodes 10 --eval-max-steps 1000]

``--preset paper-ippo`` or ``paper-mappo`` starts from the paper's network and settings
(``alem_train.presets``); any other flag overrides the preset's value:

    python -m alem_train.run_ppo --preset paper-ippo --num-worlds 64 \
        --total-env-steps 1000000 --out results/reference/ippo_s0

Resumable: rerunning the same command continues from ``state.npz`` in ``--out`` (the config
must match). Every call of the compiled trainer appends its updates to ``metrics.csv`` and to a
TensorBoard run in CleanRL's layout (``--runs-dir``, default ``runs/``:
``runs/alem-<difficulty>__<algo>__<seed>__<time>``, ``alem_train.tensorboard``; off with
``--no-tensorboard``); a tqdm bar counts env steps on a terminal (``--no-progress`` to hide it).
``policy.npz`` is the actor, loadable by ``alem-evaluate --policy OUT/policy.npz``;
``--eval-episodes`` scores it under the protocol with its most likely legal actions, as the
paper evaluates (``alem-evaluate --greedy``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import time
from pathlib import Path

import jax
import numpy as np

import alem_core
from alem_core.compilation_cache import enable_default_cache
from alem_pz.progress import bar as progress_bar
from alem_train import checkpoint, policy_file
from alem_train.ppo import EPISODE_KEYS, PPOConfig, init_train_state, make_train_call
from alem_train.presets import PRESETS


def parse_args(argv=None) -> tuple[PPOConfig, argparse.Namespace]:
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument(
        "--preset", choices=sorted(PRESETS), default=None,
        help="start from the paper's network and settings (alem_train.presets)",
    )  # fmt: skip
    preset = first.parse_known_args(argv)[0].preset
    defaults = PRESETS[preset] if preset else {}
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        parents=[first],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    for field in dataclasses.fields(PPOConfig):
        default = defaults.get(field.name, field.default)
        flag = "--" + field.name.replace("_", "-")
        help_text = field.metadata["help"]
        if field.type == "bool":
            parser.add_argument(flag, type=lambda v: v.lower() in ("1", "true", "yes"),
                                default=default, help=help_text)  # fmt: skip
        elif field.name == "value_clip":
            parser.add_argument(flag, type=float, default=default, help=help_text)
        else:
            kind = {"int": int, "float": float, "str": str}[field.type]
            parser.add_argument(flag, type=kind, default=default, help=help_text)
    parser.add_argument("--seed", type=int, default=0, help="the run's seed")
    parser.add_argument("--out", type=Path, required=True, help="the run's directory")
    parser.add_argument("--checkpoint-every", type=int, default=10, help="trainer calls")
    parser.add_argument("--eval-episodes", type=int, default=0, help="greedy protocol episodes")
    parser.add_argument("--eval-max-steps", type=int, default=1000, help="episode cap of that")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs"), help="TensorBoard runs")
    parser.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard run")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    fields = {f.name: getattr(args, f.name) for f in dataclasses.fields(PPOConfig)}
    try:
        return PPOConfig(**fields), args
    except ValueError as err:  # the usage line naming the value, not a traceback
        parser.error(str(err))


def _rows(metrics: dict, first_update: int, config: PPOConfig, seconds: float) -> list[dict]:
    host = jax.device_get(metrics)
    rows = []
    for i in range(config.updates_per_call):
        row = {"update": first_update + i + 1,
               "env_steps": (first_update + i + 1) * config.steps_per_update,
               "seconds": seconds}  # fmt: skip
        episodes = float(host["episodes"][i])
        row["episodes"] = episodes
        for name in EPISODE_KEYS:
            total = float(host[f"sum/{name}"][i])
            row[name] = total / episodes if episodes else float("nan")
        for key, values in host.items():
            if not key.startswith("sum/") and key != "episodes":
                row[key] = float(np.asarray(values[i]))
        rows.append(row)
    return rows


def _resume(config: PPOConfig, args: argparse.Namespace):
    saved = args.out / "state.npz"
    if not saved.exists():
        return init_train_state(jax.random.key(args.seed), config), 0.0
    previous = _saved_run(config, args)  # checked before the trainer state is built
    state = init_train_state(jax.random.key(args.seed), config)
    return checkpoint.load_tree(saved, state), float(previous.get("seconds", 0.0))


def _saved_run(config: PPOConfig, args: argparse.Namespace) -> dict:
    """The saved run's ``config.json``, checked before anything compiles: a run of another
    config, seed, world version or state layout cannot be resumed here."""
    previous = json.loads((args.out / "config.json").read_text())
    why = alem_core.world_version_mismatch(previous.get("world_version"))
    why = why or alem_core.state_layout_mismatch(previous.get("state_layout"))
    if why:
        raise ValueError(
            f"{args.out}: {why}; resume it with the alem release that started it, or use a new "
            "--out"
        )
    # A field added since the run started is at its default there (the defaults train as
    # before the field existed: a feed-forward run saved earlier resumes).
    saved = {**dataclasses.asdict(PPOConfig()), **previous["config"]}
    wanted = {**dataclasses.asdict(config), "seed": args.seed}
    saved["seed"] = previous.get("seed")
    differ = [f"{k} {saved[k]!r} there, {v!r} here" for k, v in wanted.items() if saved[k] != v]
    if differ:
        raise ValueError(f"{args.out} holds a run with another config ({'; '.join(differ)}); "
                         "use a new --out")  # fmt: skip
    return previous


def _run_log(config: PPOConfig, args: argparse.Namespace):
    if args.no_tensorboard:
        return None
    from alem_train.tensorboard import RunLog

    hyper = {**dataclasses.asdict(config), "seed": args.seed, "out": str(args.out)}
    return RunLog.open(args.runs_dir, f"alem-{config.difficulty}", config.algo, args.seed, hyper)


def _drop_rows_after(metrics_path: Path, update: int) -> None:
    """Keep the rows of updates up to ``update``, the checkpoint a run resumes from: a run
    stopped between checkpoints logged updates it will run again."""
    if not metrics_path.exists() or metrics_path.stat().st_size == 0:
        return
    with metrics_path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
        fields = rows[0].keys() if rows else []
    kept = [row for row in rows if int(row["update"]) <= update]
    if len(kept) == len(rows):
        return
    tmp = metrics_path.with_suffix(".tmp.csv")
    with tmp.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(kept)
    tmp.replace(metrics_path)


def train(config: PPOConfig, args: argparse.Namespace) -> dict:
    args.out.mkdir(parents=True, exist_ok=True)
    state, seconds = _resume(config, args)
    call = make_train_call(config)
    metrics_path = args.out / "metrics.csv"
    # Whole calls only: a last partial call would run past the schedule at a learning rate of 0.
    calls = max(1, config.num_updates // config.updates_per_call)
    done = int(state.update) // config.updates_per_call
    _drop_rows_after(metrics_path, int(state.update))
    writer, handle = None, metrics_path.open("a", newline="")
    log = _run_log(config, args)
    per_call = config.updates_per_call * config.steps_per_update
    bar = progress_bar(calls * per_call, config.algo, "env-step", not args.no_progress)
    bar.update(done * per_call)
    for i in range(done, calls):
        start = time.perf_counter()
        first = int(state.update)
        state, metrics = call(state)
        jax.block_until_ready(state.params)
        seconds += time.perf_counter() - start
        rows = _rows(metrics, first, config, seconds)
        if writer is None:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            if metrics_path.stat().st_size == 0:
                writer.writeheader()
        writer.writerows(rows)
        handle.flush()
        for row in rows if log else ():
            log.write(row, row["env_steps"])
        bar.update(per_call)
        last = rows[-1]
        bar.write(
            f"update {last['update']}/{calls * config.updates_per_call} env-steps "
            f"{last['env_steps']:,} ({last['env_steps'] / seconds:,.0f}/s incl. compile) "
            f"return {last['episode_return']:.2f} ach {last['Team/achievement_pct']:.4f}"
        )
        if (i + 1) % args.checkpoint_every == 0 or i + 1 == calls:
            checkpoint.save_tree(args.out / "state.npz", state)
            policy_file.save_policy(args.out / "policy.npz", state.params["actor"], config.players)
            checkpoint.write_config(
                args.out,
                config,
                {
                    "seed": args.seed,
                    "seconds": seconds,
                    "world_version": alem_core.WORLD_VERSION,
                    "state_layout": alem_core.STATE_LAYOUT,
                    "preset": args.preset,
                },
            )
    handle.close()
    bar.close()
    if log:
        log.close()
    return {"seconds": seconds, "env_steps": int(state.update) * config.steps_per_update}


def evaluate(config: PPOConfig, args: argparse.Namespace) -> dict:
    from alem_pz.evaluation.protocol import evaluate as protocol

    summary = protocol(
        policy_file.load_policy(args.out / "policy.npz", seed=args.seed, greedy=True),
        episodes=args.eval_episodes, max_steps=args.eval_max_steps,
        difficulties=[config.difficulty], static=config.static(),
        players=config.players, progress=False, policy_name=f"{config.algo}:{args.out}",
    )  # fmt: skip
    (args.out / "eval.json").write_text(json.dumps(summary, indent=1))
    return summary["results"][config.difficulty]["headline"]


def main(argv=None) -> int:
    config, args = parse_args(argv)
    enable_default_cache()  # a command-line run keeps its compiled programs on disk
    run = train(config, args)
    print(f"trained {run['env_steps']:,} env-steps in {run['seconds']:.0f} s "
          f"({run['env_steps'] / run['seconds']:,.0f} env-steps/s incl. compile)")  # fmt: skip
    if args.eval_episodes:
        for key, value in evaluate(config, args).items():
            print(f"{key}: {value['mean']:.4f} [{value['ci_low']:.4f}, {value['ci_high']:.4f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
