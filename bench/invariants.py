"""Invariants at scale: masked random play through the batched core, checked on every step.

Run from the repository root::

    python -m bench.invariants [--agent-steps 1000000] [--worlds 256] [--difficulties easy,hard]

For each difficulty, N worlds (default map, nine floors, P = 3) play masked random actions with
auto-reset (``alem_core.batch.auto_reset``) inside one jitted ``lax.scan`` per chunk of steps,
and every step checks, on the device, over every live world:

* vitals: 0 <= food, drink, energy, mana <= their caps; 0 <= health <= its cap;
* alive implies health > 0;
* inventory counts in [0, 99];
* positions inside the map; no two live agents on one cell;
* NOOP is always legal;
* every floating-point leaf of the state is finite.

It prints the agent-steps checked and the violations of each invariant (all should be 0).
Not a unit test: it takes minutes; the unit tests check the same on short rollouts.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import alem_core
from alem_core.batch import auto_reset as core_batch
from alem_core.constants import MAX_INVENTORY, Action
from alem_core.systems.intrinsics import capacities
from alem_core.testing.rollout import random_legal_actions
from bench.common import world

CHECKS = (
    "vitals_in_bounds",
    "alive_has_health",
    "inventory_in_bounds",
    "position_in_map",
    "one_live_agent_per_cell",
    "noop_legal",
    "state_finite",
)


def _violations(worlds, mask, live, static: alem_core.StaticParams) -> dict[str, jax.Array]:
    """Counts of agents (or worlds, for the finite check) breaking each invariant this step."""

    def one(state, world_mask):
        p = state.players
        caps = capacities(p, static)
        vitals = (p.health >= 0) & (p.health <= caps["health"])
        for name in ("food", "drink", "energy", "mana"):
            value = getattr(p, name)
            vitals &= (value >= 0) & (value <= caps[name])
        rows, cols = static.map_size
        inside = (p.pos[:, 0] >= 0) & (p.pos[:, 0] < rows) & (p.pos[:, 1] >= 0)
        inside &= p.pos[:, 1] < cols
        same = (p.pos[:, None, :] == p.pos[None, :, :]).all(-1) & ~jnp.eye(len(p.alive), dtype=bool)
        shared = (same & p.alive[None, :] & p.alive[:, None]).any(axis=1)
        floats = [x for x in jax.tree.leaves(state) if jnp.issubdtype(x.dtype, jnp.floating)]
        finite = jnp.stack([jnp.isfinite(x).all() for x in floats]).all()
        return {
            "vitals_in_bounds": (~vitals).sum(),
            "alive_has_health": (p.alive & (p.health <= 0)).sum(),
            "inventory_in_bounds": ((p.inventory < 0) | (p.inventory > MAX_INVENTORY)).any(1).sum(),
            "position_in_map": (~inside).sum(),
            "one_live_agent_per_cell": shared.sum(),
            "noop_legal": (~world_mask[:, Action.NOOP]).sum(),
            "state_finite": (~finite).astype(jnp.int32),
        }

    counts = jax.vmap(one)(worlds, mask)
    return {name: jnp.where(live, value, 0).sum() for name, value in counts.items()}


def make_chunk(static: alem_core.StaticParams, steps: int, chunk: int):
    """A jitted scan of ``steps`` batched steps returning summed violations and agent-steps."""

    def body(carry, key):
        batch, mask, params = carry
        keys = jax.random.split(key, mask.shape[0])
        actions = jax.vmap(random_legal_actions)(keys, mask)
        batch, out = core_batch.step(batch, actions, params, static, chunk)
        mask = out.info["action_mask"]
        live = ~out.info["waiting"]
        found = _violations(batch.worlds, mask, live, static)
        found["agent_steps"] = live.sum() * static.player_count
        return (batch, mask, params), found

    @jax.jit
    def run(batch, mask, params, key):
        (batch, mask, _), found = jax.lax.scan(
            body, (batch, mask, params), jax.random.split(key, steps)
        )
        return batch, mask, jax.tree.map(lambda x: x.sum(), found)

    return run


def check(difficulty: str, agent_steps: int, worlds: int, steps: int, seed: int) -> dict:
    params, static = world(difficulty=difficulty)
    params = params.as_arrays()
    chunk = max(1, worlds // 8)
    run = make_chunk(static, steps, chunk)
    key = jax.random.key_data(jax.random.key(seed))
    batch, out = core_batch.init(key, worlds, params, static)
    mask, totals = out.info["action_mask"], {name: 0 for name in (*CHECKS, "agent_steps")}
    start, call = time.perf_counter(), 0
    while totals["agent_steps"] < agent_steps:
        batch, mask, found = run(batch, mask, params, jax.random.key(seed * 1000 + call))
        totals = {name: totals[name] + int(found[name]) for name in totals}
        call += 1
    totals["seconds"] = round(time.perf_counter() - start, 1)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent-steps", type=int, default=1_000_000)
    parser.add_argument("--worlds", type=int, default=256)
    parser.add_argument("--steps", type=int, default=100, help="steps per jitted chunk")
    parser.add_argument("--difficulties", default="easy,medium,hard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'difficulty':<10} {'agent-steps':>12} " + " ".join(f"{c:>12}" for c in CHECKS))
    for difficulty in args.difficulties.split(","):
        totals = check(difficulty, args.agent_steps, args.worlds, args.steps, args.seed)
        counts = " ".join(f"{totals[c]:>12}" for c in CHECKS)
        print(f"{difficulty:<10} {totals['agent_steps']:>12} {counts}  ({totals['seconds']} s)")
    print("columns after agent-steps: violations (agents, or worlds for state_finite)")
    print(f"jax {jax.__version__}, {np.__name__} {np.__version__}")


if __name__ == "__main__":
    main()
