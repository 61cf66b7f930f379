"""Statistics of the JaxMARL env over many auto-resets, to compare two commits whose auto-reset
draws other worlds for the same key (the worlds differ, the statistics must not).

Run from the repository root, with JaxMARL installed (``bash .ci/install_rl_libs``)::

    python -m bench.jaxmarl_autoreset_stats [--envs 64] [--steps 2000] [--horizon 50]

``--envs`` envs under ``vmap``, ``--steps`` masked random steps each in one ``lax.scan``, episodes
truncated at ``--horizon`` steps, the full world (medium). Prints the number of episodes and the
mean and standard error per episode of the team return, the length and the agents alive at the
end.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from alem_pz.envs.jaxmarl import AlemJaxMARL


def _masked_random(key: jax.Array, avail: dict, agents: list[str]) -> dict:
    keys = jax.random.split(key, len(agents))
    return {
        a: jax.random.categorical(k, jnp.where(avail[a], 0.0, -jnp.inf)).astype(jnp.int32)
        for a, k in zip(agents, keys, strict=True)
    }


def rollout(envs: int, steps: int, horizon: int) -> tuple[np.ndarray, ...]:
    """(team reward (T, N), episode ended (T, N), agents alive (T, N)) of one masked random run."""
    env = AlemJaxMARL(max_steps=horizon)
    agents = env.agents

    def one(state, key):
        k_act, k_step = jax.random.split(key)
        avail = jax.vmap(env.get_avail_actions)(state)
        acts = jax.vmap(_masked_random, in_axes=(0, 0, None))(
            jax.random.split(k_act, envs), avail, agents
        )
        _, state, rew, dones, info = jax.vmap(env.step)(jax.random.split(k_step, envs), state, acts)
        team = sum(rew[a] for a in agents)
        return state, (team, dones["__all__"], info["alive"].sum(-1))

    _, state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(7), envs))
    run = jax.jit(lambda s, k: jax.lax.scan(one, s, jax.random.split(k, steps)))
    _, out = run(state, jax.random.key(8))
    return tuple(np.asarray(x) for x in out)


def episodes(team: np.ndarray, done: np.ndarray, alive: np.ndarray) -> dict[str, list[float]]:
    """Per finished episode: its team return, length and agents alive at its last step."""
    found: dict[str, list[float]] = {"team return": [], "length": [], "alive at end": []}
    for w in range(team.shape[1]):
        total, length = 0.0, 0
        for t in range(team.shape[0]):
            total, length = total + float(team[t, w]), length + 1
            if done[t, w]:
                found["team return"].append(total)
                found["length"].append(length)
                found["alive at end"].append(float(alive[t, w]))
                total, length = 0.0, 0
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--horizon", type=int, default=50)
    args = parser.parse_args()
    started = time.perf_counter()
    found = episodes(*rollout(args.envs, args.steps, args.horizon))
    parts = [f"episodes {len(found['length'])}"]
    for name, values in found.items():
        x = np.asarray(values)
        parts.append(f"{name} {x.mean():.4f} +- {x.std(ddof=1) / np.sqrt(len(x)):.4f}")
    print("  ".join(parts) + f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
