"""Behavioural parity over whole episodes: ours vs the published ``alem-env`` (black box).

Both sides play the same protocol: 3 agents, "medium" difficulty, individual rewards, the full
9-floor env, N worlds vmapped, no reset, for T steps; the episode ends when all agents are dead
or at T (``max_timesteps = T`` on both sides). Three teams (``--team``):

* ``random`` (default): every one of the 56 actions equally likely, no action mask, drawn
  inside one jitted ``lax.scan``;
* ``masked``: the same scan, each agent's action uniform over the actions its mask allows
  (the mask each side returns with the step; the peer's from ``get_avail_actions``);
* ``greedy``: the scripted ``GreedyCoordinator`` of ``alem_pz/evaluation/baselines.py``, one
  instance per world, in a Python loop around one jitted vmapped step. It reads only an agent's
  observation and action mask, and the peer's observation has the same layout (9718 floats for
  3 agents, docs/rules/observations.md#symbolic-observation) and its ``get_avail_actions`` the
  same 56 action ids, so the same policy drives both. It is loaded from its file, so the peer's
  interpreter needs neither PettingZoo nor our adapters (it imports only ``alem_core``'s tables).

Three modes; ``--peer`` runs in the published package's venv (started by ``peer.py`` when the
command is run from alem's)::

    python -m bench.parity compare --peer --out peer.npz [--team greedy]
    python -m bench.parity compare --ours --out ours.npz
    # table: each quantity, peer vs ours, difference, bootstrap standard error, flag > 4 SE
    python -m bench.parity compare --compare peer.npz ours.npz

What each side records, from its public state and step output only (the same quantities,
computed from the same kinds of fields; ``peer.probe`` and ``ours.probe``): after every step,
per agent, health, food, drink, energy, the hidden health-recovery counter, alive, sleeping,
resting, friendly-fire damage dealt (cumulative, per attacker), the death-cause code and the
number of melee mobs that hit the agent this step (a live melee mob adjacent to the agent with
its cooldown just reset to 5), position and facing (for the friendly-fire chances: an able agent
facing a living teammate), and with the greedy team the action taken; per world, the positions
and alive flags of the mob slots, the floor and the live mob count per class on it; and the
score dictionary of the terminal step (the peer's ``info["user_info"]`` on its first done step,
ours ``alem_core.scoring.score.score`` of the final state with ``done``), which also gives the
achievement unlocks. Damage by source is inferred identically on both sides from those fields
(``tables.step_events``); ours also reports its own mob-damage counter, as a check of the
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

from bench.parity.protocol import PLAYERS, adapter


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

    root = pathlib.Path(__file__).resolve().parents[2]
    path = root / "alem_pz" / "evaluation" / "baselines.py"
    spec = importlib.util.spec_from_file_location("parity_greedy_baselines", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.GreedyCoordinator


def play(side: dict, team: str, key, steps: int) -> tuple:
    """T steps of ``team`` ("random", "masked" or "greedy") on a side bundle: (final states,
    traces (T+1, N, ...), terminal info, done flags)."""
    import jax

    if team == "greedy":
        return _loop_episode(jax, side, key, steps)
    return _scan_episode(jax, side, key, steps, masked=team == "masked")


def run(name: str, n: int, steps: int, seed: int, team: str) -> dict:
    """Episodes of side ``name`` on the protocol, as the arrays ``--compare`` reads."""
    import numpy as np

    sides = adapter(name)
    side = sides.side(n, steps, seed)
    final, traces, info, done = play(side, team, side["key"](seed + 10_000), steps)
    score = sides.terminal_score(side, final, info)
    causes = sides.cause_names(score)
    return _package(name, team, traces, score, np.asarray(done), side["n_actions"], causes)


def _package(side, team, traces, score, done, n_actions, cause_names) -> dict:
    import numpy as np

    meta = {"side": side, "team": team, "n_actions": n_actions, "cause_names": list(cause_names)}
    out = {f"trace/{k}": np.asarray(v) for k, v in traces.items()}
    out.update({f"score/{k}": v for k, v in score.items()})
    out["done"] = done
    out["meta"] = np.array(json.dumps(meta))
    return out


def main(args: argparse.Namespace) -> int:
    """``compare``: play one side into ``--out``, or print the table of two sides' files."""
    if args.compare:
        from bench.parity.episode_table import compare  # alem's interpreter (alem_pz's stats)

        compare(*args.compare, boot=args.boot)
        return 0
    import numpy as np

    result = run("peer" if args.peer else "ours", args.worlds, args.steps, args.seed, args.team)
    np.savez_compressed(args.out, **result)
    print(f"wrote {args.out}: {json.loads(str(result['meta']))}, {args.worlds} worlds")
    return 0
