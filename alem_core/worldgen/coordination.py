"""Coordination maps and construction sites, generated once at reset (docs/rules/coordination.md).

The coordination map holds, per floor and cell, 0 (no task), +N (a synchronous task needing N
agents) or -W (a handover task with a window of W steps); the soft mask marks the sync tasks a
lone agent may still attempt. Every draw is made for every cell of every floor, then masked by
the parameters (``coordination_enabled``, ``construction_enabled``), so switching a task type
off changes no other random stream. The uniforms come from the reset's one draw (``DRAWS``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block
from alem_core.draws import DrawBlock, Draws
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import COORD_ELIGIBLE

SITE_TILES = np.zeros(len(Block), bool)
SITE_TILES[[Block.GRASS, Block.PATH]] = True
SITE_BORDER = 5
"""Sites keep at least this many cells from every border."""

MINING_SITE_FLOORS = (2, 5, 7)
"""Floors that get ``num_mining_construction_sites``; floor 0 gets ``num_construction_sites``."""


TASK_FIELDS = ("handover", "needs_all", "window", "soft")
"""The uniforms of one task, in block order: handover or sync, N = P or 2, the handover
window, the soft roll."""

DRAWS = {
    "mining": DrawBlock(
        lambda s: (1 + len(TASK_FIELDS), *s.map_size),
        "mining tasks: per cell, the pick and a task's four rolls",
        per_floor=True,
    ),
    "site_cells": DrawBlock(
        lambda s: s.map_size, "construction sites: per cell, the cell's score", per_floor=True
    ),
    "site_tasks": DrawBlock(
        lambda s: (len(TASK_FIELDS), s.max_construction_sites),
        "construction sites: per site, a task's four rolls",
        per_floor=True,
    ),
}
"""The reset's uniforms this generator reads (``alem_core/draws.py``)."""


def _task_values(u: jax.Array, params: Params, static: StaticParams):
    """A task for every entry of ``u`` (L, 4, ...) (``TASK_FIELDS`` on axis 1): (value, handover,
    soft-draw), each (L, ...), as if every entry were a task.

    value = -W for a handover (W uniform in the window, inclusive), else N = P w.p.
    ``p_max_agents`` or 2.
    """
    handover = u[:, 0] < params.handover_ratio
    needs_all = u[:, 1] < params.p_max_agents
    low, high = params.handover_window_min, params.handover_window_max
    window = jnp.minimum(low + jnp.floor(u[:, 2] * (high - low + 1)).astype(jnp.int32), high)
    n = jnp.where(needs_all, static.player_count, 2)
    value = jnp.where(handover, -window, n).astype(jnp.int32)
    return value, handover, u[:, 3]


def mining_tasks(
    u: jax.Array, block: jax.Array, params: Params, static: StaticParams
) -> tuple[jax.Array, jax.Array]:
    """(L, H, W) int32 coordination map and bool soft mask over the mining blocks
    (docs/rules/coordination.md#synchronous-mining), from the ``mining`` block ``u``
    (L, 5, H, W)."""
    picked = u[:, 0] < params.coordination_probability
    tasked = jnp.asarray(COORD_ELIGIBLE)[block] & picked & params.coordination_enabled
    value, handover, soft_u = _task_values(u[:, 1:], params, static)
    soft = tasked & ~handover & (soft_u < params.soft_coordination_ratio)
    return jnp.where(tasked, value, 0), soft


def sites_per_floor(params: Params, static: StaticParams) -> jax.Array:
    """(L,) int32 construction sites wanted on each floor (0 with construction off)."""
    floors = np.arange(static.num_levels)
    mining = np.isin(floors, MINING_SITE_FLOORS)
    count = jnp.where(
        floors == 0,
        params.num_construction_sites,
        jnp.where(mining, params.num_mining_construction_sites, 0),
    )
    return jnp.where(params.construction_enabled, count, 0).astype(jnp.int32)


def _site_cells(
    u: jax.Array, block: jax.Array, reserved: jax.Array, count: jax.Array, static: StaticParams
):
    """(S, 2) cells and (S,) validity of up to ``count`` sites on one floor, S static.

    Sampling without replacement among the candidate tiles (not ``reserved``): the S largest of
    independent uniforms over the candidates (ties have probability 0).
    """
    rows, cols = static.map_size
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    inner = np.minimum(np.minimum(r, rows - 1 - r), np.minimum(c, cols - 1 - c)) >= SITE_BORDER
    candidate = jnp.asarray(SITE_TILES)[block] & jnp.asarray(inner) & ~reserved
    score = jnp.where(candidate, u, -1.0).reshape(-1)
    best, flat = jax.lax.top_k(score, static.max_construction_sites)
    valid = (best >= 0) & (jnp.arange(static.max_construction_sites) < count)
    return jnp.stack([flat // cols, flat % cols], axis=-1), valid


def place_sites(
    draws: Draws,
    block: jax.Array,
    coord: jax.Array,
    soft: jax.Array,
    params: Params,
    static: StaticParams,
    reserved: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Put CONSTRUCTION_SITE blocks and their task values on every floor
    (docs/rules/coordination.md#construction-sites).

    Each site is a handover w.p. ``handover_ratio``, else sync (N as for mining) and soft w.p.
    ``soft_construction_ratio``. No site goes on a ``reserved`` cell (L, H, W). Returns the new
    (block, coord, soft) maps (L, H, W).
    """
    levels = static.num_levels
    cells, valid = jax.vmap(lambda u, b, r, n: _site_cells(u, b, r, n, static))(
        draws["site_cells"], block, reserved, sites_per_floor(params, static)
    )
    shape = (levels, static.max_construction_sites)
    value, handover, soft_u = _task_values(draws["site_tasks"], params, static)
    site_soft = ~handover & (soft_u < params.soft_construction_ratio)
    floor = jnp.broadcast_to(jnp.arange(levels)[:, None], shape)
    rows = jnp.where(valid, cells[..., 0], static.map_size[0])  # invalid rows: dropped
    index = (floor, rows, cells[..., 1])
    block = block.at[index].set(Block.CONSTRUCTION_SITE, mode="drop")
    coord = coord.at[index].set(value, mode="drop")
    soft = soft.at[index].set(site_soft, mode="drop")
    return block, coord, soft


def coordination_layers(
    draws: Draws,
    block: jax.Array,
    params: Params,
    static: StaticParams,
    reserved: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(block, coord, soft) for all floors: mining tasks, then construction sites.

    ``reserved`` (L, H, W) bool marks cells no site may cover (ladders and spawn cells, where
    players stand on arrival: a solid site there would trap them); None reserves nothing.
    """
    coord, soft = mining_tasks(draws["mining"], block, params, static)
    if reserved is None:
        reserved = jnp.zeros(block.shape, bool)
    return place_sites(draws, block, coord, soft, params, static, reserved)
