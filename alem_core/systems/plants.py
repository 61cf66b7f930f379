"""Plant growth (docs/rules/interactions.md#placing): saplings ripen after 500 steps, on the
overworld only.

Reads: plants (pos, age, alive), world.block (the overworld's hot map while the team is there).
Writes: plants.age, world.block.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import Block
from alem_core.draws import Draws
from alem_core.grid import write_cells
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import RIPE_AGE
from alem_core.state import Plants, State

OVERWORLD = 0


def grow_plants(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Age every planted slot; a plant block whose slot reached ``RIPE_AGE`` becomes ripe."""
    plants = state.plants
    age = plants.age + plants.alive
    # Plants stand on the overworld: its hot map is only current there. Elsewhere the ripening
    # waits; ``ripen`` catches it up when the team comes back (same block, same age test).
    blocks = ripen(state.world.block, plants, age, state.world.floor == OVERWORLD)
    world = dataclasses.replace(state.world, block=blocks)
    return dataclasses.replace(state, world=world, plants=dataclasses.replace(plants, age=age))


def ripen(block: jax.Array, plants: Plants, age: jax.Array, on_overworld: jax.Array) -> jax.Array:
    """The overworld map (H, W) with every planted cell of ``age`` >= ``RIPE_AGE`` ripe (no
    change unless ``on_overworld``: ``block`` is then another floor's map)."""
    rows, cols = plants.pos[:, 0], plants.pos[:, 1]
    ripe = plants.alive & (age >= RIPE_AGE) & (block[rows, cols] == Block.PLANT) & on_overworld
    return write_cells(block, plants.pos, jnp.full(ripe.shape, Block.RIPE_PLANT), ripe)
