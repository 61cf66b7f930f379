"""Behavioural parity over whole episodes: ours vs the published ``alem-env`` (black box).

Both sides play the same protocol: 3 agents, "medium" difficulty, individual rewards, the full
9-floor env, N worlds vmapped, no reset, for T steps; the episode ends when all agents are dead
or at T (``max_timesteps = T`` on both sides). Three teams (``--team``):

* ``random`` (default): every one of the 56 actions equally likely, no action mask, drawn
  inside one jitted ``lax.scan``;
* ``masked``: the same scan, each agent's action uniform over the actions its mask allows
  (the mask each side returns with the step; the peer's from ``get_avail_actions``);
* ``greedy``: the scripted ``GreedyCoordinator`` of ``alem_pz/evaluation/baselines.py``, one
instance per
  world, in a Python loop around one jitted vmapped step. It reads only an agent's observation
  and action mask, and the peer's observation has the same layout (9718 floats for 3 agents,
  docs/rules/observations.md#symbolic-observation) and its ``get_avail_actions`` the same 56 action
  ids, so the same policy drives both. It is loaded from its file, so the peer's interpreter needs
  neither PettingZoo nor our adapters (it imports only ``alem_core``'s tables).

Three modes, each run with its own interpreter::

    # peer side: alem-env==0.2.1 in a separate venv, public API only
    /work/peer_venv/bin/python -m bench.parity_compare --peer --out peer.npz [--team greedy]
    # our side
    /work/main/.venv/bin/python -m bench.parity_compare --ours --out ours.npz
    # table: each quantity, peer vs ours, difference, bootstrap standard error, flag > 4 SE
    /work/main/.venv/bin/python -m bench.parity_compare --compare peer.npz ours.npz

What each side records, from its public state and step output only (the same quantities,
computed from the same kinds of fields): after every step, per agent, health, food, drink,
energy, the hidden health-recovery counter, alive, sleeping, resting, friendly-fire damage dealt
(cumulative, per attacker), the death-cause code and the number of melee mobs that hit the agent
this step (a live melee mob adjacent to the agent with its cooldown just reset to 5), position
and facing (for the friendly-fire chances: an able agent facing a living teammate), and with
the greedy team the action taken; per world, the positions and alive flags of the mob slots,
the floor and the live mob count per class on it; and the score dictionary of the terminal step
(the peer's ``info["user_info"]`` on its first done step, ours
``alem_core.scoring.score.score`` of the final state with ``done``), which also gives the
achievement unlocks.
Damage by source is inferred identically on both sides from those fields: a "need" tick is the
recovery counter reset from below zero (1 health); a regeneration tick its reset from above
zero (+2, capped at max health 9); friendly fire is the world's rise in damage dealt; "mobs" is
the rest of the health lost by agents alive before the step. Health lost on the dying step is
counted down to 0 only. Ours also reports its own mob-damage counter, as a check of the
inference. The peer's death-cause codes are named from its terminal ``died_from_*`` keys.

Seeds: the peer resets from ``jax.random.PRNGKey(seed + i)``, ours from
``jax.random.split(jax.random.key(seed), N)``; the streams are unrelated, so only the
distributions are comparable. Standard errors come from a bootstrap over worlds (agents in one
world share the world, so they are not independent samples).
"""

from __future__ import annotations

import argparse
import json
import sys

PLAYERS = 3
DIFFICULTY = "medium"
PEER_ENV = "Alem-Coop-Symbolic"
MELEE_COOLDOWN = 5
"""A melee mob's cooldown right after it attacked (docs/rules/mobs.md#behaviour)."""
MAX_HEALTH = 9.0
"""Max health at strength 1; a random team rarely levels up."""
TRACE_FIELDS = (
    "health", "food", "drink", "energy", "recover", "alive", "sleeping", "resting", "ff_dealt",
    "cause", "melee_hits",
)  # fmt: skip
"""Per-agent (N, P) fields recorded after every step."""


def _melee_hits(jnp, pos, alive, cooldown, player_pos):
    """(P,) melee mobs (slots (S, 2) on the current floor) that hit each player this step."""
    gap = jnp.abs(pos[:, None, :] - player_pos[None]).sum(-1)
    attacked = alive & (cooldown == MELEE_COOLDOWN)
    return ((gap == 1) & attacked[:, None]).sum(0)


def _peer_probe(jnp, s) -> dict:
    """One world's recorded fields from the published state."""
    lvl = s.player_level
    m = s.melee_mobs
    return {
        "health": s.player_health,
        "food": s.player_food,
        "drink": s.player_drink,
        "energy": s.player_energy,
        "recover": s.player_recover,
        "alive": s.player_alive,
        "sleeping": s.is_sleeping,
        "resting": s.is_resting,
        "ff_dealt": s.ff_damage_dealt,
        "cause": s.player_death_cause,
        "melee_hits": _melee_hits(
            jnp, m.position[lvl], m.mask[lvl], m.attack_cooldown[lvl], s.player_position
        ),
        "floor": lvl,
        "mobs": jnp.stack(
            [c.mask[lvl].sum() for c in (s.melee_mobs, s.passive_mobs, s.ranged_mobs)]
        ),
        "pos": s.player_position,
        "facing": s.player_direction,
        "mob_pos": jnp.concatenate([c.position[lvl] for c in (m, s.passive_mobs, s.ranged_mobs)]),
        "mob_alive": jnp.concatenate([c.mask[lvl] for c in (m, s.passive_mobs, s.ranged_mobs)]),
    }


def _our_probe(jnp, s) -> dict:
    """One world's recorded fields from our state (plus our own mob-damage counter)."""
    pl, mobs, lvl = s.players, s.mobs, s.world.floor
    m = mobs.melee
    return {
        "health": pl.health,
        "food": pl.food,
        "drink": pl.drink,
        "energy": pl.energy,
        "recover": pl.recover,
        "alive": pl.alive,
        "sleeping": pl.sleeping,
        "resting": pl.resting,
        "ff_dealt": s.stats.friendly_fire_damage,
        "cause": pl.death_cause,
        "melee_hits": _melee_hits(jnp, m.pos[lvl], m.alive[lvl], m.cooldown[lvl], pl.pos),
        "floor": lvl,
        "mobs": jnp.stack([c.alive[lvl].sum() for c in (mobs.melee, mobs.passive, mobs.ranged)]),
        "pos": pl.pos,
        "facing": pl.facing,
        "mob_pos": jnp.concatenate([c.pos[lvl] for c in (mobs.melee, mobs.passive, mobs.ranged)]),
        "mob_alive": jnp.concatenate([c.alive[lvl] for c in (m, mobs.passive, mobs.ranged)]),
        "damage_taken": s.stats.damage_taken,
    }


def _scan_episode(jax, side: dict, key, steps: int, masked: bool = False):
    """Random team (``masked``: uniform over each agent's legal actions): vmapped play in one
    jitted ``lax.scan``; returns (final states, traces (T+1, N, ...), terminal info captured at
    each world's first done step, done flags)."""
    jnp = jax.numpy
    step_fn, probe, states = side["step"], side["probe"], side["states"]
    n = jax.tree.leaves(states)[0].shape[0]

    def body(carry, k):
        states, mask, info0, done0 = carry
        k_act, k_step = jax.random.split(k)
        if masked:
            actions = jax.random.categorical(k_act, jnp.where(mask, 0.0, -jnp.inf))
        else:
            actions = jax.random.randint(k_act, (n, PLAYERS), 0, side["n_actions"])
        keys = jax.random.split(k_step, n)
        states, info, done, _, mask = jax.vmap(step_fn)(keys, states, actions)
        carry = (states, mask, _capture(jax, info, info0, done & ~done0), done0 | done)
        return carry, jax.vmap(probe)(states)

    carry = (states, side["mask"], _empty_info(jax, side), jnp.zeros(n, bool))
    run = jax.jit(lambda carry, key: jax.lax.scan(body, carry, jax.random.split(key, steps)))
    (states, _, info, done), traces = run(carry, key)
    first = jax.vmap(probe)(side["states"])
    traces = jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), first, traces)
    return states, traces, info, done


def _capture(jax, info, info0, first):
    """Keep each world's info from its first done step."""
    n = first.shape[0]
    return jax.tree.map(
        lambda new, old: jax.numpy.where(first.reshape((n,) + (1,) * (new.ndim - 1)), new, old),
        info,
        info0,
    )


def _empty_info(jax, side: dict):
    """Zeros shaped like the step's info (found by tracing shapes only)."""
    n = jax.tree.leaves(side["states"])[0].shape[0]
    keys = jax.random.split(side["key0"], n)
    actions = jax.numpy.zeros((n, PLAYERS), jax.numpy.int32)
    _, info, _, _, _ = jax.eval_shape(jax.vmap(side["step"]), keys, side["states"], actions)
    return jax.tree.map(lambda x: jax.numpy.zeros(x.shape, x.dtype), info)


def _loop_episode(jax, side: dict, key, steps: int):
    """Greedy team: a Python loop, one jitted vmapped step per time step, the scripted policy
    (``alem_pz/evaluation/baselines.py``, one instance per world) choosing from observation and
    mask."""
    import numpy as np

    jnp = jax.numpy
    greedy = _load_greedy()
    states, n = side["states"], side["obs"].shape[0]
    policies = [greedy(players=PLAYERS, seed=0) for _ in range(n)]
    for w, policy in enumerate(policies):
        policy.reset(w)
    step = jax.jit(jax.vmap(side["step"]))
    probe = jax.jit(jax.vmap(side["probe"]))
    obs, mask = np.asarray(side["obs"]), np.asarray(side["mask"])
    info0, done0 = _empty_info(jax, side), jnp.zeros(n, bool)
    traces = [probe(states)]
    for k in jax.random.split(key, steps):
        actions = np.array(
            [[policies[w](obs[w, p], mask[w, p]) for p in range(PLAYERS)] for w in range(n)],
            np.int32,
        )
        states, info, done, obs, mask = step(jax.random.split(k, n), states, jnp.asarray(actions))
        info0, done0 = _capture(jax, info, info0, done & ~done0), done0 | done
        obs, mask = np.asarray(obs), np.asarray(mask)
        traces.append({**probe(states), "action": jnp.asarray(actions)})
    traces[0]["action"] = jnp.zeros((n, PLAYERS), jnp.int32)  # none before the first step
    traces = jax.tree.map(lambda *xs: jnp.stack(xs), *traces)
    return states, traces, info0, done0


def _load_greedy():
    """``GreedyCoordinator`` from ``alem_pz/evaluation/baselines.py`` (numpy only; loaded from
    its file so that the peer's interpreter does not import the PettingZoo adapters)."""
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    path = root / "alem_pz" / "evaluation" / "baselines.py"
    spec = importlib.util.spec_from_file_location("parity_greedy_baselines", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.GreedyCoordinator


def _play(jax, side: dict, team: str, key, steps: int):
    if team == "greedy":
        return _loop_episode(jax, side, key, steps)
    return _scan_episode(jax, side, key, steps, masked=team == "masked")


def peer_side(n: int, steps: int, seed: int) -> dict:
    """The published full env as a ``side`` bundle: N worlds reset, a step over action arrays,
    the probe (public API and state fields only)."""
    import jax
    import jax.numpy as jnp
    from alem.alem_coop.alem_state import EnvParams, get_coordination_params
    from alem.alem_env import make_alem_env_from_name

    params = EnvParams().replace(
        **get_coordination_params(DIFFICULTY), shared_reward=False, max_timesteps=steps
    )
    env = make_alem_env_from_name(PEER_ENV, env_params=params)
    agents = env.agents
    if len(agents) != PLAYERS:
        raise RuntimeError(f"peer env has {len(agents)} agents, expected {PLAYERS}")

    def stack(d):
        return jnp.stack([d[a] for a in agents])

    def step_fn(key, state, actions):
        acts = {a: actions[i] for i, a in enumerate(agents)}
        obs, state, _, done, info = env.step_env(key, state, acts)
        mask = stack(env.get_avail_actions(state))
        return state, info["user_info"], done["__all__"], stack(obs), mask

    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(seed, seed + n))
    obs, states = jax.jit(jax.vmap(env.reset))(keys)
    return {
        "name": "peer",
        "step": step_fn,
        "probe": lambda s: _peer_probe(jnp, s),
        "states": states,
        "obs": jax.vmap(stack)(obs),
        "mask": jax.vmap(lambda s: stack(env.get_avail_actions(s)))(states),
        "n_actions": int(env.action_space(agents[0]).n),
        "key0": jax.random.PRNGKey(0),
        "key": jax.random.PRNGKey,
    }


def run_peer(n: int, steps: int, seed: int, team: str) -> dict:
    """Episodes of the published full env (public API and state fields only)."""
    import jax
    import numpy as np

    side = peer_side(n, steps, seed)
    _, traces, info, done = _play(jax, side, team, jax.random.PRNGKey(seed + 10_000), steps)
    score = {k: np.asarray(v) for k, v in info.items()}
    causes = _peer_cause_names(score)
    return _package("peer", team, traces, score, np.asarray(done), side["n_actions"], causes)


def _peer_cause_names(score: dict) -> list[str]:
    """Name each death-cause code by the ``died_from_<name>`` key set on agents with that code."""
    import numpy as np

    names = {0: "alive"}
    for k in range(PLAYERS):
        code = score[f"Agent{k}/death_cause"][:, 0].astype(int)
        for key, flag in score.items():
            if key.startswith(f"Agent{k}/died_from_"):
                for c in np.unique(code[flag[:, 0] > 0]):
                    names[int(c)] = key.split("died_from_")[1]
    return [names.get(c, f"code{c}") for c in range(max(names) + 1)]


def our_side(n: int, steps: int, seed: int) -> dict:
    """Ours as a ``side`` bundle on the same protocol (plus ``static`` for the score)."""
    import jax
    import jax.numpy as jnp

    import alem_core

    static = alem_core.StaticParams(player_count=PLAYERS)
    params = alem_core.make_params(DIFFICULTY, shared_reward=False, max_timesteps=steps)

    def step_fn(key, state, actions):
        obs, state, _, term, trunc, info = alem_core.step(key, state, actions, params, static)
        return state, {}, term[0] | trunc[0], obs, info["action_mask"]

    keys = jax.random.split(jax.random.key(seed), n)
    obs, states = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)))(keys)
    return {
        "name": "ours",
        "step": step_fn,
        "probe": lambda s: _our_probe(jnp, s),
        "states": states,
        "obs": obs,
        "mask": jax.vmap(lambda s: alem_core.action_mask(s, params, static))(states),
        "n_actions": static.num_actions,
        "key0": jax.random.key(0),
        "key": jax.random.key,
        "static": static,
    }


def run_ours(n: int, steps: int, seed: int, team: str) -> dict:
    """Episodes of ours on the same protocol."""
    import jax
    import numpy as np

    from alem_core.scoring.score import score as score_of
    from alem_core.systems.lifecycle import DEATH_CAUSES

    side = our_side(n, steps, seed)
    final, traces, _, done = _play(jax, side, team, jax.random.key(seed + 10_000), steps)
    score = jax.jit(jax.vmap(lambda s: score_of(s, side["static"], True)))(final)
    score = {k: np.asarray(v) for k, v in score.items()}
    causes = DEATH_CAUSES  # code 0 = "alive"
    return _package("ours", team, traces, score, np.asarray(done), side["n_actions"], causes)


def _package(side, team, traces, score, done, n_actions, cause_names) -> dict:
    import numpy as np

    meta = {"side": side, "team": team, "n_actions": n_actions, "cause_names": list(cause_names)}
    out = {f"trace/{k}": np.asarray(v) for k, v in traces.items()}
    out.update({f"score/{k}": v for k, v in score.items()})
    out["done"] = done
    out["meta"] = np.array(json.dumps(meta))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--peer", action="store_true", help="play the published alem-env")
    mode.add_argument("--ours", action="store_true", help="play alem_core")
    mode.add_argument("--compare", nargs=2, metavar=("PEER.npz", "OURS.npz"), help="table")
    parser.add_argument("--out", help="output .npz for --peer / --ours")
    parser.add_argument("--worlds", type=int, default=64, help="N worlds (default 64)")
    parser.add_argument("--steps", type=int, default=400, help="T steps (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--team", choices=("random", "masked", "greedy"), default="random")
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args()
    if args.compare:
        from bench.parity_tables import compare  # alem's interpreter (alem_pz.evaluation.stats)

        compare(*args.compare, boot=args.boot)
        return 0
    import numpy as np

    run = run_peer if args.peer else run_ours
    result = run(args.worlds, args.steps, args.seed, args.team)
    np.savez_compressed(args.out, **result)
    print(f"wrote {args.out}: {json.loads(str(result['meta']))}, {args.worlds} worlds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
