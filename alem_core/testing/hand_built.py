"""Hand-built states for tests and notebooks: draw a map in ASCII, place the team, go.

Legend: ``.`` grass, ``~`` water, ``#`` stone, ``T`` tree, ``c`` coal, ``i`` iron, ``d`` diamond,
``t`` crafting table, ``f`` furnace, ``s`` sand, ``p`` path, ``L`` lava, ``P`` plant,
``R`` ripe plant, ``S`` sapphire, ``r`` ruby, ``W`` wall, ``C`` chest, ``E`` fire enchantment
table, ``I`` ice enchantment table. Cells outside the drawing are grass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block
from alem_core.params import Params, StaticParams
from alem_core.state import FloorMaps, State, World, to_light
from alem_core.worldgen.initial import initial_state

LEGEND = {
    ".": Block.GRASS,
    "~": Block.WATER,
    "#": Block.STONE,
    "T": Block.TREE,
    "c": Block.COAL,
    "i": Block.IRON,
    "d": Block.DIAMOND,
    "t": Block.CRAFTING_TABLE,
    "f": Block.FURNACE,
    "s": Block.SAND,
    "p": Block.PATH,
    "L": Block.LAVA,
    "P": Block.PLANT,
    "R": Block.RIPE_PLANT,
    "S": Block.SAPPHIRE,
    "r": Block.RUBY,
    "W": Block.WALL,
    "C": Block.CHEST,
    "E": Block.ENCHANTMENT_TABLE_FIRE,
    "I": Block.ENCHANTMENT_TABLE_ICE,
}


def ascii_blocks(rows: Sequence[str], static: StaticParams) -> np.ndarray:
    """(H, W) int32 block map from an ASCII drawing placed at the top-left corner."""
    blocks = np.full(static.map_size, Block.GRASS, np.int32)
    for r, line in enumerate(rows):
        for c, char in enumerate(line):
            blocks[r, c] = LEGEND[char]
    return blocks


def hand_built_state(
    rows: Sequence[str],
    static: StaticParams,
    params: Params | None = None,
    positions: Sequence[tuple[int, int]] | None = None,
    facing: Sequence[int] | None = None,
) -> State:
    """A step-0 state on floor 0 of a hand-drawn map, daylight, no mobs.

    Args:
        rows: the ASCII map (see module docstring).
        static: shapes; ``static.map_size`` must cover the drawing.
        params: gameplay params (defaults: ``Params()``).
        positions: (row, col) per player; defaults to the normal spawn cells.
        facing: facing code per player (1 left, 2 right, 3 up, 4 down); default up.
    """
    params = Params() if params is None else params
    levels = static.num_levels
    block = np.full((levels, *static.map_size), Block.WALL, np.int32)
    block[0] = ascii_blocks(rows, static)
    shape = (levels, *static.map_size)
    floors = FloorMaps(
        block=jnp.asarray(block),
        item=jnp.zeros(shape, jnp.int32),
        light=to_light(jnp.ones(shape, jnp.float32)),
        coord=jnp.zeros(shape, jnp.int32),
        soft=jnp.zeros(shape, bool),
    )
    world = World.on_floor(
        floors,
        0,
        ladders=jnp.zeros((levels, 2, static.player_count, 2), jnp.int32),
        kills=jnp.zeros((levels,), jnp.int32).at[0].set(10),
        daylight=jnp.ones((), jnp.float32),
        potion_effect=jnp.arange(6, dtype=jnp.int32),
    )
    state = initial_state(world, None, params, static, jnp.float32(0.0))
    players = state.players
    if positions is not None:
        players = dataclasses.replace(players, pos=jnp.asarray(positions, jnp.int32))
    if facing is not None:
        players = dataclasses.replace(players, facing=jnp.asarray(facing, jnp.int32))
    return dataclasses.replace(state, players=players)


def with_inventory(state: State, agent: int, **counts: int) -> State:
    """Set inventory columns of one agent by ``Inv`` name, e.g. ``with_inventory(s, 0, wood=3)``."""
    from alem_core.constants import Inv

    inventory = state.players.inventory
    for name, value in counts.items():
        inventory = inventory.at[agent, Inv[name.upper()]].set(value)
    return dataclasses.replace(
        state, players=dataclasses.replace(state.players, inventory=inventory)
    )
