"""Reference versions of pipeline stages, as they were before a speed change.

``test_step_equivalence.py`` swaps these into ``pipeline.PIPELINE`` and checks the optimised
step gives the same bits. Each entry is the straightforward form of its stage (the code as it
stood before the rewrite), built from the live module's unchanged helpers; when a stage is
optimised, add its previous form here instead of deleting it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import MOB_SPAWN_TILE
from alem_core.state import State
from alem_core.systems import spawning
from alem_core.systems.boss import on_boss_floor, wave_cells


def spawn_mobs(
    state: State, actions: jax.Array, draws: dict, params: Params, static: StaticParams
) -> State:
    """``spawning.spawn_mobs`` before the batched row counts: each class builds its eligible
    map from a ``free`` map that the earlier classes' spawns updated, and counts it alone."""
    block = state.world.block
    u = draws["spawning"]
    dist2 = spawning._nearest_player_distance2(state, static)
    free = ~spawning._occupied(state, static)
    ground = jnp.isin(block, jnp.asarray(np.flatnonzero(MOB_SPAWN_TILE)))
    water = block == Block.WATER
    row_ids = jnp.arange(static.map_size[0])[:, None]
    col_ids = jnp.arange(static.map_size[1])[None, :]
    mobs = state.mobs
    graves = wave_cells(block, dist2)
    boss = on_boss_floor(state)
    for row, plan in enumerate(spawning._plans(state, static)):
        tile = jnp.where(jnp.asarray(spawning._AQUATIC)[plan.mob_class, plan.kind], water, ground)
        lo = plan.min_distance
        band = (dist2 > lo * lo) & (dist2 < params.mob_despawn_distance**2)
        cells = jnp.where(boss, graves, tile & band) & free
        go = u[row, 0] < plan.chance
        name = spawning._NAMES[plan.mob_class]
        ents = getattr(mobs, name)
        if ents.alive.shape[0] == 0:
            continue
        counts = cells.sum(axis=1, dtype=jnp.int32)
        ents, cell = spawning._spawn_one(ents, cells, counts, u[row, 1], go, plan, params)
        free = free & ((row_ids != cell[0]) | (col_ids != cell[1]))
        mobs = mobs.replace(**{name: ents})
    return state.replace(mobs=mobs)


STAGES = {"spawning": spawn_mobs}
"""Stage name in ``pipeline.PIPELINE`` -> its reference ``fn(state, actions, draws, params,
static)``."""
