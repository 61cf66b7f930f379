"""Small shared helpers on grids, positions, occupancy and role gates.

Every system uses these so that a rule (what blocks a move, who may pass a gate) is stated once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import ROLE_OF_INDEX, Block
from alem_core.params import Params, StaticParams
from alem_core.state import Entities, Mobs, Players

DIRECTIONS = np.array([[0, 0], [0, -1], [0, 1], [-1, 0], [1, 0]], np.int32)
"""(5, 2) step by facing/move code: 0 none, 1 left (west), 2 right, 3 up (north), 4 down."""

NEIGHBOURS_8 = np.array(
    [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]], np.int32
)
"""(8, 2) offsets of the 8 surrounding cells ("adjacent" everywhere in alem)."""


def roles(static: StaticParams) -> jax.Array:
    """(P,) int32 role of each agent: warrior, forager, miner for i mod 3 = 0, 1, 2."""
    return jnp.array([ROLE_OF_INDEX[i % 3] for i in range(static.player_count)], jnp.int32)


def in_bounds(pos: jax.Array, static: StaticParams) -> jax.Array:
    """(...,) bool: ``pos`` (..., 2) lies inside the map."""
    rows, cols = static.map_size
    return (pos[..., 0] >= 0) & (pos[..., 0] < rows) & (pos[..., 1] >= 0) & (pos[..., 1] < cols)


def clip_pos(pos: jax.Array, static: StaticParams) -> jax.Array:
    """Clamp positions into the map; only used for safe gathers whose result is masked after."""
    rows, cols = static.map_size
    return jnp.stack([jnp.clip(pos[..., 0], 0, rows - 1), jnp.clip(pos[..., 1], 0, cols - 1)], -1)


def faced_cell(players: Players) -> jax.Array:
    """(P, 2) the cell each player faces (may be out of bounds)."""
    return players.pos + jnp.asarray(DIRECTIONS)[players.facing]


def cell_values(
    layers: jax.Array, floor: jax.Array, pos: jax.Array, static: StaticParams, fill: object = 0
) -> jax.Array:
    """Gather ``layers[floor, pos]`` for positions (..., 2) of a per-floor array (L, H, W);
    out-of-bounds positions give ``fill``."""
    safe = clip_pos(pos, static)
    return jnp.where(in_bounds(pos, static), layers[floor, safe[..., 0], safe[..., 1]], fill)


def player_at(players: Players, cells: jax.Array, only_alive: bool = False) -> jax.Array:
    """(N,) bool: a player (dead ones too unless ``only_alive``) stands on each of ``cells`` (N, 2).

    Pairwise comparison with the P positions: far cheaper than building a map-sized grid.
    """
    same = (cells[:, None, :] == players.pos[None, :, :]).all(-1)
    present = players.alive if only_alive else jnp.ones_like(players.alive)
    return (same & present[None, :]).any(axis=1)


def entity_at(entities: Entities, floor: jax.Array, cells: jax.Array) -> jax.Array:
    """(N,) bool: a live entity of this class on ``floor`` occupies each of ``cells`` (N, 2)."""
    same = (cells[:, None, :] == entities.pos[floor][None, :, :]).all(-1)
    return (same & entities.alive[floor][None, :]).any(axis=1)


def mob_at(mobs: Mobs, floor: jax.Array, cells: jax.Array) -> jax.Array:
    """(N,) bool: a live melee, passive or ranged mob on ``floor`` occupies each of ``cells``."""
    return (
        entity_at(mobs.melee, floor, cells)
        | entity_at(mobs.passive, floor, cells)
        | entity_at(mobs.ranged, floor, cells)
    )


def adjacent_block(
    layers: jax.Array, floor: jax.Array, pos: jax.Array, block: int, static: StaticParams
) -> jax.Array:
    """(P,) bool: one of the 8 cells around each position on ``floor`` holds ``block``."""
    cells = pos[:, None, :] + jnp.asarray(NEIGHBOURS_8)[None]
    return (cell_values(layers, floor, cells, static, Block.INVALID) == block).any(axis=1)


def passes_gate_with(
    required_role: jax.Array, u: jax.Array, params: Params, static: StaticParams
) -> jax.Array:
    """(P,) bool: each agent passes the role gate of an action needing ``required_role``.

    ``required_role`` is a scalar or (P,) role id; -1 means ungated. ``u`` (P,) holds the
    subsystem's draws (``gate_draws``: one per agent per subsystem per step, GAME.md §5.4).
    Hard mode: only the role holder passes. Soft mode: the holder passes w.p.
    ``specialist_efficiency``, others w.p. ``non_specialist_efficiency``.
    """
    agent_roles = roles(static)
    holder = agent_roles == required_role
    soft_pass = jnp.where(
        holder, u < params.specialist_efficiency, u < params.non_specialist_efficiency
    )
    gated_pass = jnp.where(params.soft_specialization, soft_pass, holder)
    return (required_role < 0) | gated_pass


def may_pass_gate(required_role: jax.Array, params: Params, static: StaticParams) -> jax.Array:
    """(P,) bool for the action mask: the gate can be passed (role holder, or soft mode)."""
    required_role = jnp.asarray(required_role)
    agent_roles = roles(static)
    if required_role.ndim >= 2:  # (1, R) tables of gates: agents along the first axis
        agent_roles = agent_roles.reshape((-1,) + (1,) * (required_role.ndim - 1))
    return (required_role < 0) | (agent_roles == required_role) | params.soft_specialization


def write_cells(
    layers: jax.Array, floor: jax.Array, cells: jax.Array, values: jax.Array, write: jax.Array
) -> jax.Array:
    """Write ``values`` (N,) at ``cells`` (N, 2) of floor ``floor`` of ``layers`` (L, H, W).

    Only rows with ``write`` land: the others are sent out of bounds and dropped, so a player
    who changes nothing never overwrites a teammate's write to the same cell (scatter order is
    unspecified), and out-of-map cells are ignored. A point scatter: no map-sized copy.
    """
    rows = jnp.where(write, cells[:, 0], layers.shape[1])
    return layers.at[floor, rows, cells[:, 1]].set(values.astype(layers.dtype), mode="drop")


def gate_draws(key: jax.Array, static: StaticParams) -> jax.Array:
    """(P,) uniforms for one subsystem's role gates: one draw per agent per step (GAME.md §5.4)."""
    return jax.random.uniform(key, (static.player_count,))
