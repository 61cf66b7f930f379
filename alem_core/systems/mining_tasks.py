"""Coordination gates on mining: synchronous blocks and handover blocks
(docs/rules/coordination.md).

Reads: actions, players (pos, facing, alive, pickaxe), world (block, coord, soft), handovers,
timestep. Writes: handovers (new and completed mining entries), world.coord / soft (cleared on
completion), achievements (COORD_2/3_AGENTS_*, COORD_MINE_*, HANDOVER_COMPLETE,
COORD_MINE_HANDOVER), coordination counters. Returns, for the mining that follows in the Do
phase, which players' Do may proceed and the yield multiplier of each.

* Sync cell needing N, k players doing it this step: hard: all succeed with k(k+1)/2 each if
  k >= N, else all fail. Soft: the same when k >= N, else each succeeds alone w.p.
  1 - ``soft_solo_fail_prob`` with multiplier 1.
* Handover cell: the first Do opens an entry (no effect itself); a different player's Do while it
  is open completes it (lowest index wins, the rest fail) and mines normally.
* Coordination achievements for sync mining need the mining to succeed (decision 7); the
  handover ones do not (kept quirk, docs/rules/engine.md#behaviour-kept-on-purpose).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_ACHIEVEMENTS, Achievement, Block, Inv
from alem_core.dense import raise_flags
from alem_core.draws import Draws, per_player
from alem_core.grid import cell_values, lower_index_claims, write_cells
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import COORD_ELIGIBLE
from alem_core.state import State
from alem_core.systems.handovers import MINING, add_entries, close_rows, open_entry_at
from alem_core.systems.interaction import can_mine, do_targets

DRAWS = {"solo": per_player("Do phase: a soft sync cell mined alone")}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""

_RESOURCE_ACHIEVEMENTS = {
    Inv.STONE: ("STONE", Block.STONE),
    Inv.COAL: ("COAL", Block.COAL),
    Inv.IRON: ("IRON", Block.IRON),
    Inv.DIAMOND: ("DIAMOND", Block.DIAMOND),
    Inv.SAPPHIRE: ("SAPPHIRE", Block.SAPPHIRE),
    Inv.RUBY: ("RUBY", Block.RUBY),
}
MINE_SOFT = np.full(len(Block), -1, np.int32)
MINE_HARD = np.full(len(Block), -1, np.int32)
for _name, _block in _RESOURCE_ACHIEVEMENTS.values():
    MINE_SOFT[_block] = Achievement[f"COORD_MINE_{_name}_SOFT"]
    MINE_HARD[_block] = Achievement[f"COORD_MINE_{_name}_HARD"]
"""Resource-specific sync achievement by block (-1: none, e.g. trees)."""


class MiningGate(NamedTuple):
    """What the coordination rules allow for each player's Do on a block this step."""

    allowed: jax.Array
    """(P,) bool: the Do may proceed (True for cells without a task)."""
    multiplier: jax.Array
    """(P,) int32 yield per mined block (1 unless a sync task was met)."""


def _one_hot(ids: jax.Array) -> jax.Array:
    """(P, NUM_ACHIEVEMENTS) bool rows with a True at ``ids`` (-1: none)."""
    return ids[:, None] == jnp.arange(NUM_ACHIEVEMENTS)[None, :]


def _sync(state: State, facts: dict, value: jax.Array, soft: jax.Array, solo_u, params: Params):
    """(allowed, multiplier, achievements (P, A), counters) for sync cells."""
    on, cell, block = facts["on"], facts["cell"], facts["block"]
    sync = on & (value > 0)
    soft = sync & soft
    same = (cell[:, None, :] == cell[None, :, :]).all(-1) & sync[None, :]
    k = jnp.where(sync, same.sum(axis=1), 0)
    met = sync & (k >= value)
    solo_ok = solo_u >= params.soft_solo_fail_prob
    allowed = ~sync | met | (soft & solo_ok)
    multiplier = jnp.where(met, k * (k + 1) // 2, 1)
    mined = sync & allowed & can_mine(state, block)
    generic_soft = jnp.where(
        value == 2, Achievement.COORD_2_AGENTS_SOFT, Achievement.COORD_3_AGENTS_SOFT
    )
    generic_hard = jnp.where(
        value == 2, Achievement.COORD_2_AGENTS_HARD, Achievement.COORD_3_AGENTS_HARD
    )
    generic = jnp.where(soft, jnp.where(met, generic_soft, -1), generic_hard)
    resource = jnp.where(
        soft,
        jnp.where(k >= 2, jnp.asarray(MINE_SOFT)[block], -1),
        jnp.asarray(MINE_HARD)[block],
    )
    unlocked = (_one_hot(generic) | _one_hot(resource)) & mined[:, None]
    solo = soft & ~met
    counters = {
        "sync_attempts": sync.any(),
        # A sync success is a group that met the cell's N; a lone soft success counts only as
        # a solo-soft success, as in the published benchmark (docs/decisions.md).
        "sync_successes": (mined & met).any(),
        "sync_soft_successes": (mined & soft & met).any(),
        "sync_hard_successes": (mined & ~soft).any(),
        # By the cell's required N, lone soft successes included: the published benchmark's
        # 2-agent + 3+-agent counts add up to its sync + solo-soft successes (docs/decisions.md).
        "sync_2_agents": (mined & (value == 2)).any(),
        "sync_3plus_agents": (mined & (value >= 3)).any(),
        "soft_sync_events": soft.any(),
        "soft_bonus_events": (soft & met & mined).any(),
        "solo_soft_attempts": solo.any(),
        "solo_soft_successes": (solo & mined).any(),
    }
    return allowed, multiplier, unlocked, counters


def _handover(state: State, facts: dict, value: jax.Array):
    """(state with the table updated, allowed (P,), completes (P,), setups (P,))."""
    on, cell = facts["on"], facts["cell"]
    p, t = on.shape[0], state.timestep
    table = state.handovers
    hand = on & (value < 0)
    entry = open_entry_at(table, cell, MINING) & (table.deadline > t)[None, :]  # (P, K)
    initiator = jnp.where(entry, table.initiator[None, :], -1).max(axis=1)
    candidate = hand & entry.any(axis=1) & (initiator != jnp.arange(p))
    completes = candidate & ~lower_index_claims(cell, candidate)
    starters = hand & ~entry.any(axis=1)
    starts = starters & ~lower_index_claims(cell, starters)
    table = close_rows(table, (entry & completes[:, None]).any(axis=0))
    table, made = add_entries(table, starts, cell, t - value + 1, jnp.full(p, MINING))
    return state.replace(handovers=table), ~hand | completes, completes, made


def gate_mining(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> tuple[State, MiningGate]:
    """Apply the coordination rules to this step's Do on blocks (before any mining happens);
    reads the ``solo`` block of the step's draws."""
    facts = do_targets(state, actions, static)
    value = cell_values(state.world.coord, facts["cell"], static, 0)
    value = jnp.where(facts["on"] & jnp.asarray(COORD_ELIGIBLE)[facts["block"]], value, 0)
    soft = cell_values(state.world.soft, facts["cell"], static, False)
    allowed, multiplier, unlocked, counters = _sync(
        state, facts, value, soft, draws["solo"], params
    )
    state, handover_ok, completes, setups = _handover(state, facts, value)
    coord = write_cells(state.world.coord, facts["cell"], jnp.zeros_like(value), completes)
    achievements = state.players.achievements | unlocked
    achievements = raise_flags(achievements, Achievement.HANDOVER_COMPLETE, completes)
    achievements = raise_flags(achievements, Achievement.COORD_MINE_HANDOVER, completes)
    state = state.replace(
        world=state.world.replace(coord=coord),
        players=state.players.replace(achievements=achievements),
        coordination=state.coordination.bump(
            handover_setups=setups.any(), handover_successes=completes.any(), **counters
        ),
    )
    return state, MiningGate(allowed & handover_ok, multiplier.astype(jnp.int32))
