"""Coordination drills: small hand-built alem worlds holding one coordination rule each.

docs/coordination-gap.md#tasks T1-T3, built from alem's own rules
(docs/rules/coordination.md#synchronous-mining, docs/rules/coordination.md#handovers,
docs/rules/survival.md#sleep-and-rest). A drill is chosen by ``StaticParams.layout``; only the reset
differs from the full game (this module builds the world and places the team), the step is the
core's. Every drill is one floor of WALL (unbreakable, no Do effect) around PATH floor (no Do
effect); it has no mobs, water, trees, chests or construction sites, only the coordination blocks
under study.

* ``t1_sync``: a 7 x 7 room with one hard synchronous STONE block needing ``sync_agents`` = m
  agents (coordination value +m), placed where all four neighbours are floor. The P agents start
  on random distinct floor cells with random facing, each holding a wood pickaxe. m agents facing
  the block and doing it on the same step mine it; fewer do nothing
  (docs/rules/coordination.md#synchronous-mining). Knobs ``room`` (odd side, default 7) and
  ``start_adjacent`` (the team starts beside the block).
* ``t2_busy``: ``t1_sync`` where each agent starts asleep w.p. ``busy_prob`` for a uniform number
  of steps in [1, ``max_busy``]. Asleep, an agent's actions are not consumed (NOOP only). The
  core's own wake-up rule (energy back at its maximum, docs/rules/survival.md#sleep-and-rest) wakes
  it after exactly that many steps: see ``busy_players``.
* ``t3_chain``: a handover chain of n = P agents along a one-cell corridor holding n - 1 handover
  STONE blocks H_1 .. H_{n-1} (coordination value -``window``) in consecutive cells. Agent 0
  starts west of H_1 facing east; agent k (k = 1 .. n-1) starts in a sealed one-cell alcove
  beside H_k, facing it. Alcoves alternate north (odd k) and south (even k) of the corridor:
  alcoves on one side beside consecutive cells would touch each other and could not be sealed.
  Nothing is random (the key is unused): the same layout every episode.

Rewards (``alem_core.drills.drill_setup``): only the drill's coordination achievements pay, and
an achievement pays its agent once (achievements are never lost,
docs/rules/rewards.md#per-step-reward). In t1/t2 each co-miner of the block earns
COORD_2_AGENTS_HARD (m = 2) or COORD_3_AGENTS_HARD (m >= 3); failed partial attempts cost nothing.
In t3 a completed link pays its completer HANDOVER_COMPLETE + COORD_MINE_HANDOVER; in the intended
chain every link has a new completer (agent k completes H_k), so the team return is 10 per completed
link.

Knobs live in ``StaticParams.layout_knobs`` (checked by ``drill_knobs``), so a reset stays a pure
function of (key, params, static). ``alem_core.drills.drill_setup`` builds matching static and
params.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block, Facing, Inv
from alem_core.drills.knobs import (
    KNOBS,
    ROOM,
    TICKS_PER_ENERGY,
    BusyKnobs,
    ChainKnobs,
    SyncKnobs,
    drill_knobs,
)
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import OVERWORLD_INITIAL_KILLS
from alem_core.state import FloorMaps, State, World, to_light
from alem_core.systems.intrinsics import capacities
from alem_core.systems.lifecycle import daylight
from alem_core.worldgen.initial import initial_state

NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""The four cells from which an agent can face a block."""


def _world(block: jax.Array, coord: jax.Array, params: Params, static: StaticParams) -> World:
    """A one-floor world of ``block`` / ``coord`` (H, W), fully lit, no items or ladders."""
    shape = (1, *static.map_size)
    maps = FloorMaps(
        block=block[None],
        item=jnp.zeros(shape, jnp.int32),
        light=to_light(jnp.ones(shape, jnp.float32)),
        coord=coord[None],
        soft=jnp.zeros(shape, bool),
    )
    return World.on_floor(
        maps,
        0,
        ladders=jnp.zeros((1, 2, static.player_count, 2), jnp.int32),
        kills=jnp.full((1,), OVERWORLD_INITIAL_KILLS, jnp.int32),
        daylight=daylight(jnp.zeros((), jnp.int32), params),
        potion_effect=jnp.arange(6, dtype=jnp.int32),
    )


def _team_state(world: World, pos, facing, params: Params, static: StaticParams) -> State:
    """The step-0 state with the team at ``pos`` / ``facing``, each holding a wood pickaxe."""
    state = initial_state(world, None, params, static, jnp.asarray(params.alpha, jnp.float32))
    players = state.players
    players = players.replace(
        pos=jnp.asarray(pos, jnp.int32),
        facing=jnp.asarray(facing, jnp.int32),
        inventory=players.inventory.at[:, Inv.PICKAXE].max(1),
    )
    return state.replace(players=players)


def room_cells(static: StaticParams, room: int = ROOM) -> tuple[np.ndarray, np.ndarray]:
    """(floor cells (room^2, 2), block cells ((room-2)^2, 2)) of the sync room: the room x room
    floor centred in the map, and its inner part, where a block has floor on all four sides."""
    top, left = ((n - room) // 2 for n in static.map_size)
    rows, cols = np.meshgrid(np.arange(room), np.arange(room), indexing="ij")
    floor = np.stack([rows.ravel() + top, cols.ravel() + left], axis=1)
    inner = (rows.ravel() % (room - 1) != 0) & (cols.ravel() % (room - 1) != 0)
    return floor.astype(np.int32), floor[inner].astype(np.int32)


def sync_room(key: jax.Array, params: Params, static: StaticParams, knobs: SyncKnobs) -> State:
    """``t1_sync``'s step-0 state (module docstring)."""
    k_block, k_cells, k_facing = jax.random.split(key, 3)
    floor, inner = room_cells(static, knobs.room)
    block_cell = jnp.asarray(inner)[jax.random.randint(k_block, (), 0, len(inner))]
    on_block = (jnp.asarray(floor) == block_cell).all(axis=1)
    # Distinct random floor cells: the P lowest of uniform scores, the block's cell excluded.
    scores = jnp.where(on_block, 2.0, jax.random.uniform(k_cells, (len(floor),)))
    pos = jnp.asarray(floor)[jnp.argsort(scores)[: static.player_count]]
    if knobs.start_adjacent:
        beside = block_cell + jnp.asarray(NEIGHBOURS, jnp.int32)
        pos = beside[jax.random.permutation(k_cells, len(NEIGHBOURS))[: static.player_count]]
    facing = jax.random.randint(k_facing, (static.player_count,), Facing.LEFT, Facing.DOWN + 1)
    walls = np.full(static.map_size, Block.WALL, np.int32)
    walls[floor[:, 0], floor[:, 1]] = Block.PATH
    block = jnp.asarray(walls).at[block_cell[0], block_cell[1]].set(Block.STONE)
    coord = jnp.zeros(static.map_size, jnp.int32).at[block_cell[0], block_cell[1]]
    coord = coord.set(knobs.sync_agents)
    return _team_state(_world(block, coord, params, static), pos, facing, params, static)


def busy_players(state: State, busy: jax.Array, ticks: jax.Array, static: StaticParams) -> State:
    """Put the ``busy`` (P,) agents to sleep so that the core's wake rule wakes them after
    exactly ``ticks`` (P,) steps (1 <= ticks <= 99).

    Asleep, fatigue falls by one a step (no shelter here) and restores one energy each time it
    passes -10; the agent wakes at the start of the step after the one its energy reaches the
    maximum in (docs/rules/survival.md#sleep-and-rest, ``intrinsics``). So with n = ticks - 1 the
    steps until energy is full, d = ceil(n / 11) missing energy and a starting fatigue of r - 11,
    with r = n - 11 (d - 1) in [1, 11] the steps to the first restored point (d = 0: full
    already), wake it in step ``ticks - 1``: its actions of steps 0 .. ticks - 1 are not consumed.
    """
    players = state.players
    filled = ticks - 1
    deficit = (filled + TICKS_PER_ENERGY - 1) // TICKS_PER_ENERGY
    first = filled - TICKS_PER_ENERGY * (deficit - 1)
    energy = capacities(players, static)["energy"] - deficit
    players = players.replace(
        sleeping=players.sleeping | busy,
        energy=jnp.where(busy, energy, players.energy).astype(jnp.int32),
        fatigue=jnp.where(busy, first - TICKS_PER_ENERGY, players.fatigue).astype(jnp.float32),
    )
    return state.replace(players=players)


def busy_room(key: jax.Array, params: Params, static: StaticParams, knobs: BusyKnobs) -> State:
    """``t2_busy``'s step-0 state (module docstring)."""
    k_room, k_busy, k_ticks = jax.random.split(key, 3)
    state = sync_room(k_room, params, static, knobs)
    p = static.player_count
    busy = jax.random.uniform(k_busy, (p,)) < knobs.busy_prob
    ticks = jax.random.randint(k_ticks, (p,), 1, knobs.max_busy + 1)
    return busy_players(state, busy, ticks, static)


def chain_cells(static: StaticParams) -> dict[str, np.ndarray]:
    """The chain's cells: "corridor" (n, 2) (agent 0's start, then H_1 .. H_{n-1}),
    "alcoves" (n - 1, 2) (agent k's start beside H_k) and "facing" (n,) start facing."""
    n = static.player_count
    row, left = static.map_size[0] // 2, (static.map_size[1] - n) // 2
    corridor = np.stack([np.full(n, row), left + np.arange(n)], axis=1)
    k = np.arange(1, n)
    north = k % 2 == 1
    alcoves = np.stack([np.where(north, row - 1, row + 1), left + k], axis=1)
    facing = np.concatenate([[Facing.RIGHT], np.where(north, Facing.DOWN, Facing.UP)])
    return {
        "corridor": corridor.astype(np.int32),
        "alcoves": alcoves.astype(np.int32),
        "facing": facing.astype(np.int32),
    }


def handover_chain(key: jax.Array, params: Params, static: StaticParams, knobs: ChainKnobs):
    """``t3_chain``'s step-0 state (module docstring); ``key`` is unused."""
    del key
    cells = chain_cells(static)
    corridor, alcoves = cells["corridor"], cells["alcoves"]
    block = np.full(static.map_size, Block.WALL, np.int32)
    coord = np.zeros(static.map_size, np.int32)
    for r, c in alcoves:
        block[r, c] = Block.PATH
    block[corridor[0, 0], corridor[0, 1]] = Block.PATH
    for r, c in corridor[1:]:
        block[r, c] = Block.STONE
        coord[r, c] = -knobs.window
    pos = np.concatenate([corridor[:1], alcoves])
    world = _world(jnp.asarray(block), jnp.asarray(coord), params, static)
    return _team_state(world, pos, cells["facing"], params, static)


class Drill(NamedTuple):
    """One drill: its knobs, the function building its step-0 state and its usual team size."""

    knobs: type
    build: Callable[[jax.Array, Params, StaticParams, Any], State]
    default_players: int


DRILLS: dict[str, Drill] = {
    "t1_sync": Drill(KNOBS["t1_sync"], sync_room, 2),
    "t2_busy": Drill(KNOBS["t2_busy"], busy_room, 4),
    "t3_chain": Drill(KNOBS["t3_chain"], handover_chain, 3),
}
"""Every drill by ``StaticParams.layout`` name."""


def drill_state(key: jax.Array, params: Params, static: StaticParams) -> State:
    """The step-0 state of ``static.layout``'s drill (jit with ``static`` static)."""
    return DRILLS[static.layout].build(key, params, static, drill_knobs(static))


__all__ = [
    "DRILLS",
    "Drill",
    "busy_players",
    "chain_cells",
    "drill_state",
    "room_cells",
]
