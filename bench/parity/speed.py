"""Black-box timing of the published package ``alem-env`` (PyPI, v0.2.1), for comparison.

Runs in the published package's venv (it pins its own JAX; ``peer.py`` starts that interpreter
when the command is run from alem's) and reaches the package through ``peer.py`` only::

    python -m bench.parity speed [--quick] [--json out.json]

Measured per variant (3 agents, "medium" coordination difficulty, CPU):
  * AOT compile time (trace + lower + compile) of jitted ``reset`` and of one
    "policy + step_env" call (random legal actions drawn from ``get_avail_actions``);
  * single-world step latency called from Python (mean ms/step, blocking each step);
  * N worlds vmapped inside a jitted ``lax.scan`` of T steps: compile time and
    env-steps/s (= N*T/seconds), with ``step_env`` and (``--autoreset``) ``step``.
Compile times are wall seconds (process CPU seconds and the 1-min load average also go to
the JSON, since a busy 2-core box inflates wall times). Observations are folded into a
checksum so XLA cannot dead-code-eliminate them. The JSON is what
``python -m bench.bench_alem --peer`` reads for its ours / peer ratios.
``--quick`` runs the overworld-only "Alem-Coop-Symbolic-Debug" variant only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

from bench.parity import peer


def _timed(jax, fn):
    t = time.perf_counter()
    out = fn()
    jax.block_until_ready(out)
    return out, time.perf_counter() - t


def _aot(jax, f, *args):
    """Return (compiled, wall s, process CPU s) for trace + lower + XLA compile of jit(f)."""
    t, c = time.perf_counter(), time.process_time()
    compiled = jax.jit(f).lower(*args).compile()
    return compiled, time.perf_counter() - t, time.process_time() - c


def _policy(env: dict):
    """(act, checksum): random legal actions per agent; observations and rewards folded into
    one number, so that nothing the step computes can be dropped."""
    import jax
    import jax.numpy as jnp

    agents = env["agents"]

    def act(key, state):
        masks = env["avail"](state)
        keys = jax.random.split(key, len(agents))
        return {
            a: jax.random.categorical(k, jnp.where(masks[a], 0.0, -jnp.inf))
            for a, k in zip(agents, keys, strict=True)
        }

    def checksum(obs, rew):
        return sum(jnp.sum(obs[a]) + rew[a] for a in agents).astype(jnp.float32)

    return act, checksum


def _rollout(env: dict, step_fn, n_envs: int, n_steps: int):
    """N worlds vmapped in a ``lax.scan`` of T steps of ``step_fn``, checksummed."""
    import jax
    import jax.numpy as jnp

    act, checksum = _policy(env)

    def run(key, states):
        def body(carry, k):
            states, acc = carry
            k_act, k_step = jax.random.split(k)
            ka = jax.random.split(k_act, n_envs)
            ks = jax.random.split(k_step, n_envs)

            def one(ka, ks, s):
                obs, s, rew, _, _ = step_fn(ks, s, act(ka, s))
                return s, checksum(obs, rew)

            states, c = jax.vmap(one)(ka, ks, states)
            return (states, acc + jnp.sum(c)), None

        (states, acc), _ = jax.lax.scan(
            body, (states, jnp.float32(0)), jax.random.split(key, n_steps)
        )
        return states, acc

    return run


def _latency(jax, env: dict, r: dict, key, latency_steps: int) -> None:
    """Compile reset and one policy + ``step_env`` call; time that call from Python."""
    act, checksum = _policy(env)

    def policy_step(key, state):  # single world, no auto-reset
        k_act, k_step = jax.random.split(key)
        obs, state, rew, _, _ = env["step_env"](k_step, state, act(k_act, state))
        return state, checksum(obs, rew)

    reset_c, r["compile_reset_s"], r["compile_reset_cpu_s"] = _aot(jax, env["reset"], key)
    (_, state), r["first_reset_s"] = _timed(jax, lambda: reset_c(key))
    step_c, r["compile_step_env_s"], r["compile_step_env_cpu_s"] = _aot(
        jax, policy_step, key, state
    )
    keys = jax.random.split(jax.random.PRNGKey(1), latency_steps + 10)
    for k in keys[:10]:  # warmup
        state, c = step_c(k, state)
    jax.block_until_ready(state)
    t = time.perf_counter()
    for k in keys[10:]:
        state, c = step_c(k, state)
        jax.block_until_ready((state, c))
    r["step_latency_ms"] = 1e3 * (time.perf_counter() - t) / latency_steps


def bench_variant(name: str, difficulty: str, n_envs: int, n_steps: int, latency_steps: int,
                  autoreset: bool, full_info: bool) -> dict[str, Any]:  # fmt: skip
    """Every figure of one published env variant (see the module docstring)."""
    import jax

    env = peer.speed_env(name, difficulty, full_info)
    r = {
        "env": name,
        "difficulty": difficulty,
        "agents": len(env["agents"]),
        "num_levels": env["num_levels"],
        "compute_full_info": full_info,
        "loadavg_start": os.getloadavg()[0],
    }
    key = jax.random.PRNGKey(0)
    _latency(jax, env, r, key, latency_steps)
    states = jax.vmap(lambda k: env["reset"](k)[1])(jax.random.split(key, n_envs))
    variants = [("step_env", env["step_env"])]
    variants += [("step_autoreset", env["step"])] if autoreset else []
    for label, fn in variants:
        run_c, r[f"compile_scan_{label}_s"], r[f"compile_scan_{label}_cpu_s"] = _aot(
            jax, _rollout(env, fn, n_envs, n_steps), key, states
        )
        _timed(jax, lambda f=run_c: f(jax.random.PRNGKey(2), states))  # warmup
        _, dt = _timed(jax, lambda f=run_c: f(jax.random.PRNGKey(3), states))
        r[f"scan_{label}_sps"] = n_envs * n_steps / dt
    r["loadavg_end"] = os.getloadavg()[0]
    return r


ROWS = (
    ("compile reset (s)", "compile_reset_s", "{:.1f}"),
    ("compile policy+step_env (s)", "compile_step_env_s", "{:.1f}"),
    ("step latency (ms)", "step_latency_ms", "{:.2f}"),
    ("compile scan step_env (s)", "compile_scan_step_env_s", "{:.1f}"),
    ("scan step_env (env-steps/s)", "scan_step_env_sps", "{:.0f}"),
    ("compile scan auto-reset (s)", "compile_scan_step_autoreset_s", "{:.1f}"),
    ("scan auto-reset (env-steps/s)", "scan_step_autoreset_sps", "{:.0f}"),
)
"""(label, JSON key, format) of the printed table."""


def _print(out: dict) -> None:
    results = out["results"]
    print(
        f"alem-env 0.2.1 | jax {out['jax']} ({out['backend']}) | "
        f"import jax {out['import_jax_s']:.1f}s, alem {out['import_alem_s']:.1f}s | "
        f"N={out['n_envs']}, T={out['scan_steps']}"
    )
    print(f"{'metric':32s}" + "".join(f"{r['env']:>28s}" for r in results))
    for label, k, fmt in ROWS:
        cells = (f"{fmt.format(r[k]) if k in r else '-':>28s}" for r in results)
        print(f"{label:32s}" + "".join(cells))
    loads = (f"{r['loadavg_start']:.1f} / {r['loadavg_end']:.1f}".rjust(28) for r in results)
    print(f"{'load avg 1-min (start/end)':32s}" + "".join(loads))


def main(args: argparse.Namespace) -> int:
    """``speed``: time each variant, print the table, write ``--json``."""
    t_jax, t_alem = peer.timed_imports()
    import jax

    names = [peer.DEBUG_ENV] + ([] if args.quick else [peer.PEER_ENV])
    out = {
        "package": peer.PACKAGE,
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "cpu": platform.processor() or platform.machine(),
        "n_envs": args.n_envs,
        "scan_steps": args.steps,
        "import_jax_s": t_jax,
        "import_alem_s": t_alem,
        "results": [],
    }
    settings = (args.difficulty, args.n_envs, args.steps, args.latency_steps, args.autoreset)
    for name in names:
        out["results"].append(bench_variant(name, *settings, not args.no_full_info))
    _print(out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0
