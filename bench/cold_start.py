"""Cold start as a new user meets it: every stage timed in a fresh process on an empty cache.

    python -m bench.cold_start [--runs 1] [--warm] [--tiers SECONDS] [--json out.json]

Each run starts a new Python process whose compilation cache directory is a new empty folder
(``XDG_CACHE_HOME`` points at it), and times, from the process's start:
* ``import``: ``import alem_pz`` (which imports ``alem_core``);
* ``make``: ``alem_pz.make(players=3)``, the default full world;
* ``reset``: the first ``reset(seed=0)``;
* ``first_step``: the first ``step`` (masked random actions);
* ``episode_100``: a 100-step episode played to its end, with the score in the last infos;
* ``step_ms``: then the mean milliseconds of a step (actions and resets included) over
  ``STEADY`` more steps, what the env costs once compiled;
* and, in the same process, the seconds JAX spent tracing (``jaxpr_trace_s``), lowering
  (``jaxpr_to_mlir_module_s``) and compiling (``backend_compile_s``), from ``jax.monitoring``'s
  duration events, with the count of programs compiled.
``--tiers SECONDS`` then steps on until the env serves its default-compiled step
(``alem_pz.envs.kernels.Tiered``): ``default_at`` is when (-1 if not within SECONDS of the start),
``step_ms_default`` the mean of ``STEADY`` steps after it, and ``tiers_differ`` counts the calls
(a 200-step random walk, 10 resets) where the two tiers' states or outputs differ at all (0
expected).
``--warm`` runs a second process on the same cache, as a user's second run. ``--play`` times
``alem-play`` instead (one person, two random AI seats, SDL's dummy video driver): ``ready``
when its window may open (the env reset and the step compiled) and ``first_frame`` when the
first frame is drawn.
Prints one table and the machine's load; the figures are whole-stage wall times, the mean
over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from bench.common import load_average

STEADY = 1000
"""Steps timed after the first episode for ``step_ms``."""

CHILD = r"""
import json, sys, time
start, STEADY, TIERS = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
marks = {}
events = {}
import jax
from jax import monitoring
def listen(event, secs, **kw):
    name = event.rsplit("/", 1)[-1].removesuffix("_duration")
    if name in ("backend_compile", "jaxpr_trace", "jaxpr_to_mlir_module"):
        events.setdefault(name, []).append(secs)
monitoring.register_event_duration_secs_listener(listen)
import numpy as np
import alem_pz
def tiers_differ(env, core, rng, steps=200):
    # steps of a random walk from the env's state (and resets, one per 20 steps, of new keys)
    # where the two tiers' results differ at all
    def differ(program, *args):
        copies = [jax.tree.map(jax.numpy.copy, args) for _ in range(2)]
        one, other = program.quick(*copies[0]), program.faster(*copies[1])
        pairs = zip(jax.tree.leaves(one), jax.tree.leaves(other))
        return one, not all(np.array_equal(a, b) for a, b in pairs)
    key, state, params = env._key, env._state, env._params_buffers
    n = env.action_space(env.possible_agents[0]).n
    count = 0
    for t in range(steps):
        if t % 20 == 0:
            count += differ(core.reset, jax.random.fold_in(key, t), params)[1]
        actions = np.asarray(rng.integers(0, n, size=len(env.possible_agents)), np.int32)
        (key, state, _), different = differ(core.step, key, state, actions, params)
        count += different
    return count
marks["import"] = time.perf_counter() - start
env = alem_pz.make(players=3, max_steps=100)
marks["make"] = time.perf_counter() - start
obs, infos = env.reset(seed=0)
marks["reset"] = time.perf_counter() - start
rng = np.random.default_rng(0)
def act(infos):
    return {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
obs, rewards, terms, truncs, infos = env.step(act(infos))
marks["first_step"] = time.perf_counter() - start
while env.agents:
    obs, rewards, terms, truncs, infos = env.step(act(infos))
if hasattr(env, "episode_score"):  # the score's own route, where the env has one
    env.episode_score()
marks["episode_100"] = time.perf_counter() - start
def play(seed, steps=None, until=lambda: False):
    # steps (or until ``until()``), each ended episode reset with ``seed``; ms a step
    global obs, infos
    began, done = time.perf_counter(), 0
    while (done < steps) if steps else not until():
        if not env.agents:
            obs, infos = env.reset(seed=seed)
        obs, rewards, terms, truncs, infos = env.step(act(infos))
        done += 1
    return (time.perf_counter() - began) / max(done, 1) * 1e3
obs, infos = env.reset(seed=1)
marks["step_ms"] = play(2, STEADY)
if TIERS:
    from alem_pz.envs.kernels import compiled_core
    core = compiled_core(env.static)
    play(3, until=lambda: core.step.tier == "default" or time.perf_counter() - start > TIERS)
    marks["default_at"] = time.perf_counter() - start if core.step.tier == "default" else -1.0
    marks["step_ms_default"] = play(4, STEADY)
    marks["tiers_differ"] = tiers_differ(env, core, rng)
for name, secs in events.items():
    marks[name + "_s"] = sum(secs)
marks["programs_compiled"] = len(events.get("backend_compile", []))
print("COLD_START " + json.dumps(marks))
"""


PLAY_CHILD = r"""
import json, sys, time
start = float(sys.argv[1])
from alem_pz.play.keyboard import Game, PlayConfig
marks = {"import": time.perf_counter() - start}
game = Game(PlayConfig(humans=(0,), seed=0))
marks["ready"] = time.perf_counter() - start
game.run(max_frames=1)
marks["first_frame"] = time.perf_counter() - start
print("COLD_START " + json.dumps(marks))
"""


def run_child(cache_home: str, play: bool = False, tiers: float = 0.0) -> dict:
    """One fresh process on ``cache_home``; its stage marks (seconds from its start)."""
    env = dict(os.environ, XDG_CACHE_HOME=cache_home)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env.pop("ALEM_COMPILATION_CACHE", None)
    if play:
        env |= {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            PLAY_CHILD if play else CHILD,
            repr(time.perf_counter()),
            str(STEADY),
            str(tiers),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith("COLD_START ")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"child failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(lines[-1].removeprefix("COLD_START "))


def mean(rows: list[dict]) -> dict:
    return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--warm", action="store_true", help="also a second run on the cache")
    parser.add_argument("--play", action="store_true", help="alem-play's first frame instead")
    parser.add_argument(
        "--tiers",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also wait (up to SECONDS from the start) for the default-compiled step",
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    load = " ".join(f"{v:.2f}" for v in load_average())
    print(f"{os.cpu_count()} cores, load average {load}; {args.runs} cold run(s)")
    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="alem-cold-") as cache_home:
            cold.append(run_child(cache_home, args.play, args.tiers))
            if args.warm:
                warm.append(run_child(cache_home, args.play, args.tiers))
    results = {"cold": mean(cold), "cold_runs": cold, "load_before": load}
    if warm:
        results |= {"warm": mean(warm), "warm_runs": warm}
    for name in ("cold", "warm"):
        if name in results:
            row = results[name]
            stages = "  ".join(f"{k} {v:6.2f}" for k, v in row.items() if k != "programs_compiled")
            programs = row.get("programs_compiled")
            print(f"{name:5} {stages}" + (f"  programs {programs:.0f}" if programs else ""))
    print(f"load average after: {' '.join(f'{v:.2f}' for v in load_average())}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
