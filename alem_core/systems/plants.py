"""Plant growth (GAME.md §4.3): saplings ripen after 500 steps, on the overworld only.

Reads: plants (pos, age, alive), world.block of floor 0. Writes: plants.age, world.block[0].
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from alem_core.constants import Block
from alem_core.grid import write_cells
from alem_core.params import Params, StaticParams
from alem_core.state import State
from alem_core.tables import RIPE_AGE

OVERWORLD = 0


def grow_plants(state: State, params: Params, static: StaticParams) -> State:
    """Age every planted slot; a plant block whose slot reached ``RIPE_AGE`` becomes ripe."""
    plants = state.plants
    age = plants.age + plants.alive
    rows, cols = plants.pos[:, 0], plants.pos[:, 1]
    ripe = (
        plants.alive & (age >= RIPE_AGE) & (state.world.block[OVERWORLD, rows, cols] == Block.PLANT)
    )
    ripe_block = jnp.full(ripe.shape, Block.RIPE_PLANT)
    blocks = write_cells(state.world.block, OVERWORLD, plants.pos, ripe_block, ripe)
    world = dataclasses.replace(state.world, block=blocks)
    return dataclasses.replace(state, world=world, plants=dataclasses.replace(plants, age=age))
