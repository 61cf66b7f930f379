"""What kills a random agent on its last step, and what each side files it as (black box).

Plays the protocol of ``parity_compare.py`` (random team over all 56 actions, 3 agents, medium,
individual rewards, full env, N worlds vmapped) in a Python loop. Whenever an agent dies, the
same step (same key, same actions) is replayed from the state before it twice:

* "no need tick": every agent's hidden health-recovery counter set to 0, so unmet needs cannot
  take health this step;
* "no mobs": every melee and ranged mob and every mob projectile removed (all floors).

If the agent survives a replay, that replay removed what killed it. The table crosses the cause
each side filed with what killed the agent, and shows the cause filed in the replays. The peer
is driven through its public API and state fields only (``replace`` on its state dataclasses)::

    /work/peer_venv/bin/python -m bench.parity_death_probe --peer --worlds 32
    /work/main/.venv/bin/python -m bench.parity_death_probe --ours --worlds 32
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

PLAYERS = 3
DIFFICULTY = "medium"
PEER_ENV = "Alem-Coop-Symbolic"


def peer_side(steps: int):
    """(reset, step, fields, no_need, no_mobs, cause names) for the published env."""
    import jax.numpy as jnp
    from alem.alem_coop.alem_state import EnvParams, get_coordination_params
    from alem.alem_env import make_alem_env_from_name

    params = EnvParams().replace(
        **get_coordination_params(DIFFICULTY), shared_reward=False, max_timesteps=steps + 1
    )
    env = make_alem_env_from_name(PEER_ENV, env_params=params)
    agents = env.agents

    def step(key, state, actions):
        _, state, _, _, _ = env.step_env(key, state, {a: actions[i] for i, a in enumerate(agents)})
        return state

    def fields(s):
        return {
            "alive": s.player_alive, "health": s.player_health, "cause": s.player_death_cause,
            "recover": s.player_recover, "drink": s.player_drink, "food": s.player_food,
        }  # fmt: skip

    def no_mobs(s):
        off = {
            name: getattr(s, name).replace(mask=jnp.zeros_like(getattr(s, name).mask))
            for name in ("melee_mobs", "ranged_mobs", "mob_projectiles")
        }
        return s.replace(**off)

    def no_need(s):
        return s.replace(player_recover=jnp.zeros_like(s.player_recover))

    names = ["alive", "code1", "code2", "code3", "code4", "code5"]
    return lambda k: env.reset(k)[1], step, fields, no_need, no_mobs, names


def our_side(steps: int):
    """The same bundle for ours."""
    import jax.numpy as jnp

    import alem_core
    from alem_core.systems.lifecycle import DEATH_CAUSES

    static = alem_core.StaticParams(player_count=PLAYERS)
    params = alem_core.make_params(DIFFICULTY, shared_reward=False, max_timesteps=steps + 1)

    def step(key, state, actions):
        return alem_core.step(key, state, actions, params, static)[1]

    def fields(s):
        p = s.players
        return {
            "alive": p.alive, "health": p.health, "cause": p.death_cause,
            "recover": p.recover, "drink": p.drink, "food": p.food,
        }  # fmt: skip

    def no_mobs(s):
        m = s.mobs
        off = {
            name: getattr(m, name).replace(alive=jnp.zeros_like(getattr(m, name).alive))
            for name in ("melee", "ranged", "mob_projectiles")
        }
        return s.replace(mobs=m.replace(**off))

    def no_need(s):
        return s.replace(players=s.players.replace(recover=jnp.zeros_like(s.players.recover)))

    return (
        lambda k: alem_core.reset(k, params, static)[1], step, fields, no_need, no_mobs,
        list(DEATH_CAUSES),
    )  # fmt: skip


def probe(side: str, n: int, steps: int, seed: int) -> dict:
    """Play, replay every death twice, and count (filed, killer, replay causes)."""
    import jax
    import numpy as np

    reset, step, fields, no_need, no_mobs, names = (peer_side if side == "peer" else our_side)(
        steps
    )
    key_fn = jax.random.PRNGKey if side == "peer" else jax.random.key
    vstep = jax.jit(jax.vmap(step))
    vfields = jax.jit(jax.vmap(fields))
    states = jax.jit(jax.vmap(reset))(jax.random.split(key_fn(seed), n))
    cf_need = jax.jit(jax.vmap(lambda k, s, a: step(k, no_need(s), a)))
    cf_mobs = jax.jit(jax.vmap(lambda k, s, a: step(k, no_mobs(s), a)))
    rng = np.random.default_rng(seed)
    rows = collections.Counter()
    before = {k: np.asarray(v) for k, v in vfields(states).items()}
    for t, k in enumerate(jax.random.split(key_fn(seed + 1), steps)):
        keys = jax.random.split(k, n)
        actions = jax.numpy.asarray(rng.integers(0, 56, (n, PLAYERS)), jax.numpy.int32)
        new = vstep(keys, states, actions)
        after = {k: np.asarray(v) for k, v in vfields(new).items()}
        died = before["alive"] & ~after["alive"]
        if died.any():
            a_need = {k: np.asarray(v) for k, v in vfields(cf_need(keys, states, actions)).items()}
            a_mobs = {k: np.asarray(v) for k, v in vfields(cf_mobs(keys, states, actions)).items()}
            for w, p in zip(*np.nonzero(died), strict=True):
                saved_need, saved_mobs = a_need["alive"][w, p], a_mobs["alive"][w, p]
                killer = (
                    "needs" if saved_need and not saved_mobs
                    else "mobs" if saved_mobs and not saved_need
                    else "both needed" if saved_need and saved_mobs
                    else "neither alone"
                )  # fmt: skip
                rows[
                    (
                        names[after["cause"][w, p]], killer,
                        names[a_mobs["cause"][w, p]] if not saved_mobs else "-",
                        names[a_need["cause"][w, p]] if not saved_need else "-",
                        f"drink0={int(before['drink'][w, p] == 0)}"
                        f" food0={int(before['food'][w, p] == 0)}",
                    )
                ] += 1  # fmt: skip
        states, before = new, after
        if t % 50 == 0:
            print(f"t={t} alive={before['alive'].mean():.2f}", flush=True)
    return {"side": side, "worlds": n, "steps": steps, "rows": [[*k, v] for k, v in rows.items()]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--peer", action="store_true")
    mode.add_argument("--ours", action="store_true")
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    result = probe("peer" if args.peer else "ours", args.worlds, args.steps, args.seed)
    head = ("filed", "killed by", "filed w/o mobs", "filed w/o need", "before: needs at 0")
    print("".join(f"{h:>22}" for h in head) + f"{'deaths':>8}")
    for row in sorted(result["rows"], key=lambda r: -r[-1]):
        print("".join(f"{c!s:>22}" for c in row[:-1]) + f"{row[-1]:>8}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
