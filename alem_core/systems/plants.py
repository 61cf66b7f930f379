"""Plant growth (GAME.md §4.3): saplings ripen after 500 steps, on the overworld only.

Reads: plants (pos, age, alive), world.block of floor 0. Writes: plants.age, world.block[0].
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from alem_core.constants import Block
from alem_core.params import Params, StaticParams
from alem_core.state import State
from alem_core.tables import RIPE_AGE

OVERWORLD = 0


def grow_plants(state: State, params: Params, static: StaticParams) -> State:
    """Age every planted slot; a plant block whose slot reached ``RIPE_AGE`` becomes ripe."""
    plants = state.plants
    age = plants.age + plants.alive
    blocks = state.world.block[OVERWORLD]
    rows, cols = plants.pos[:, 0], plants.pos[:, 1]
    ripe = plants.alive & (age >= RIPE_AGE) & (blocks[rows, cols] == Block.PLANT)
    blocks = blocks.at[jnp.where(ripe, rows, static.map_size[0]), cols].set(
        Block.RIPE_PLANT, mode="drop"
    )
    world = dataclasses.replace(state.world, block=state.world.block.at[OVERWORLD].set(blocks))
    return dataclasses.replace(state, world=world, plants=dataclasses.replace(plants, age=age))
