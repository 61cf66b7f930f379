"""Black-box timing of the peer package ``alem-env`` (PyPI, v0.2.1) for comparison.

Uses only the public API documented in alem-env's README and docstrings:
``alem.alem_env.make_alem_env_from_name``, ``alem.alem_coop.alem_state.EnvParams`` /
``get_coordination_params``, and the env methods ``reset``, ``step_env`` (no auto-reset),
``step`` (auto-reset) and ``get_avail_actions``.

Run it in a separate venv that has ``alem-env==0.2.1`` installed (it pins its own JAX)::

    /work/peer_venv/bin/python -m bench.peer_alem_env [--quick] [--json out.json]

Measured per variant (3 agents, "medium" coordination difficulty, CPU):
  * AOT compile time (trace + lower + compile) of jitted ``reset`` and of one
    "policy + step_env" call (random legal actions drawn from ``get_avail_actions``);
  * single-world step latency called from Python (mean ms/step, blocking each step);
  * N worlds vmapped inside a jitted ``lax.scan`` of T steps: compile time and
    env-steps/s (= N*T/seconds), with ``step_env`` and (``--autoreset``) ``step``.
Compile times are wall seconds (process CPU seconds and the 1-min load average also go to
the JSON, since a busy 2-core box inflates wall times). Observations are folded into a
checksum so XLA cannot dead-code-eliminate them.
``--quick`` runs the overworld-only "Alem-Coop-Symbolic-Debug" variant only.
"""

import argparse
import json
import os
import platform
import time

T0 = time.perf_counter()
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

T_JAX = time.perf_counter() - T0
T0 = time.perf_counter()
from alem.alem_coop.alem_state import EnvParams, get_coordination_params  # noqa: E402
from alem.alem_env import make_alem_env_from_name  # noqa: E402

T_ALEM = time.perf_counter() - T0


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    jax.block_until_ready(out)
    return out, time.perf_counter() - t


def _aot(f, *args):
    """Return (compiled, wall s, process CPU s) for trace + lower + XLA compile of jit(f)."""
    t, c = time.perf_counter(), time.process_time()
    compiled = jax.jit(f).lower(*args).compile()
    return compiled, time.perf_counter() - t, time.process_time() - c


def bench_variant(name, difficulty, n_envs, n_steps, latency_steps, autoreset, full_info):
    params = EnvParams().replace(**get_coordination_params(difficulty))
    env = make_alem_env_from_name(name, env_params=params, compute_full_info=full_info)
    agents = env.agents

    def act(key, state):
        masks = env.get_avail_actions(state)
        keys = jax.random.split(key, len(agents))
        return {
            a: jax.random.categorical(k, jnp.where(masks[a], 0.0, -jnp.inf))
            for a, k in zip(agents, keys, strict=True)
        }

    def checksum(obs, rew):
        return sum(jnp.sum(obs[a]) + rew[a] for a in agents).astype(jnp.float32)

    def policy_step(key, state):  # single world, no auto-reset
        k_act, k_step = jax.random.split(key)
        obs, state, rew, _, _ = env.step_env(k_step, state, act(k_act, state))
        return state, checksum(obs, rew)

    def rollout(step_fn):
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

    r = {
        "env": name,
        "difficulty": difficulty,
        "agents": len(agents),
        "num_levels": env.static_env_params.num_levels,
        "compute_full_info": full_info,
        "loadavg_start": os.getloadavg()[0],
    }
    key = jax.random.PRNGKey(0)

    reset_c, r["compile_reset_s"], r["compile_reset_cpu_s"] = _aot(env.reset, key)
    (_, state), r["first_reset_s"] = _timed(lambda: reset_c(key))
    step_c, r["compile_step_env_s"], r["compile_step_env_cpu_s"] = _aot(policy_step, key, state)

    keys = jax.random.split(jax.random.PRNGKey(1), latency_steps + 10)
    for k in keys[:10]:  # warmup
        state, c = step_c(k, state)
    jax.block_until_ready(state)
    t = time.perf_counter()
    for k in keys[10:]:
        state, c = step_c(k, state)
        jax.block_until_ready((state, c))
    r["step_latency_ms"] = 1e3 * (time.perf_counter() - t) / latency_steps

    states = jax.vmap(lambda k: env.reset(k)[1])(jax.random.split(key, n_envs))
    variants = [("step_env", env.step_env)] + ([("step_autoreset", env.step)] if autoreset else [])
    for label, fn in variants:
        run_c, r[f"compile_scan_{label}_s"], r[f"compile_scan_{label}_cpu_s"] = _aot(
            rollout(fn), key, states
        )
        _timed(lambda f=run_c: f(jax.random.PRNGKey(2), states))  # warmup
        _, dt = _timed(lambda f=run_c: f(jax.random.PRNGKey(3), states))
        r[f"scan_{label}_sps"] = n_envs * n_steps / dt
    r["loadavg_end"] = os.getloadavg()[0]
    return r


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="overworld-only (Debug) variant only")
    p.add_argument("--json", help="write results as JSON to this path")
    p.add_argument("--difficulty", default="medium")
    p.add_argument("--n-envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=100, help="lax.scan length")
    p.add_argument("--latency-steps", type=int, default=200)
    p.add_argument(
        "--autoreset",
        action="store_true",
        help="also time a scan with the auto-reset `step` (compile ~5 min/variant)",
    )
    p.add_argument("--no-full-info", action="store_true", help="compute_full_info=False")
    a = p.parse_args()

    names = ["Alem-Coop-Symbolic-Debug"] + ([] if a.quick else ["Alem-Coop-Symbolic"])
    out = {
        "package": "alem-env==0.2.1",
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "cpu": platform.processor() or platform.machine(),
        "n_envs": a.n_envs,
        "scan_steps": a.steps,
        "import_jax_s": T_JAX,
        "import_alem_s": T_ALEM,
        "results": [],
    }
    for name in names:
        out["results"].append(
            bench_variant(
                name,
                a.difficulty,
                a.n_envs,
                a.steps,
                a.latency_steps,
                a.autoreset,
                not a.no_full_info,
            )
        )

    print(
        f"alem-env 0.2.1 | jax {jax.__version__} ({jax.default_backend()}) | "
        f"import jax {T_JAX:.1f}s, alem {T_ALEM:.1f}s | N={a.n_envs}, T={a.steps}"
    )
    rows = [
        ("compile reset (s)", "compile_reset_s", "{:.1f}"),
        ("compile policy+step_env (s)", "compile_step_env_s", "{:.1f}"),
        ("step latency (ms)", "step_latency_ms", "{:.2f}"),
        ("compile scan step_env (s)", "compile_scan_step_env_s", "{:.1f}"),
        ("scan step_env (env-steps/s)", "scan_step_env_sps", "{:.0f}"),
        ("compile scan auto-reset (s)", "compile_scan_step_autoreset_s", "{:.1f}"),
        ("scan auto-reset (env-steps/s)", "scan_step_autoreset_sps", "{:.0f}"),
    ]
    print(f"{'metric':32s}" + "".join(f"{r['env']:>28s}" for r in out["results"]))
    for label, k, fmt in rows:
        print(
            f"{label:32s}"
            + "".join(f"{fmt.format(r[k]) if k in r else '-':>28s}" for r in out["results"])
        )
    print(
        f"{'load avg 1-min (start/end)':32s}"
        + "".join(
            f"{r['loadavg_start']:.1f} / {r['loadavg_end']:.1f}".rjust(28) for r in out["results"]
        )
    )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
