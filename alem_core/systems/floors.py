"""Team floor change (docs/rules/world.md#ladders-and-floor-changes), resolved first in the step.

Reads: actions, players (pos, alive, achievements, xp), world (item, floor, kills, ladders, the
hot maps and the floor stack), mobs and mob_floors, handovers, plants. Writes: world (hot maps,
stack, floor, deepest), mobs and mob_floors, players (pos, ENTER_* achievements, xp), handovers
(all wiped: construction starters refunded and their half-built sites reverted, decision 5).

The hot maps and entities go back to their stacks and the new floor's come out only when the
team moves (``World.change_floor``, ``MobStack.change_floor``): a dropped out-of-range write and a
select over the hot copies otherwise, because under ``vmap`` a ``lax.cond`` would select over
the whole stack. (A batching
rule that branched once per batch on "any world moved" was tried and dropped: inside a scan the
branch cost copies that made the bare step 30 % slower; bench/records/HISTORY.md, "A leaner
step".)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.constants import Action, Item
from alem_core.dense import raise_flags, take_row
from alem_core.draws import Draws
from alem_core.grid import cell_values
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import ENTER_XP, FLOOR_ENTER_ACHIEVEMENT, MONSTERS_TO_CLEAR_FLOOR
from alem_core.state import State
from alem_core.systems.handovers import MINING, close_rows, revert_builds
from alem_core.systems.plants import OVERWORLD, ripen

DOWN, UP = 0, 1
"""Index of the down and the up ladder cells in ``World.ladders``."""


def floor_cleared(state: State) -> jax.Array:
    """() bool: enough monsters were killed on the current floor to open its down ladder."""
    return take_row(state.world.kills, state.world.floor) >= MONSTERS_TO_CLEAR_FLOOR


def can_descend(state: State, static: StaticParams) -> jax.Array:
    """(P,) bool: on a down-ladder item of a cleared floor that has a floor below."""
    item = cell_values(state.world.item, state.players.pos, static, Item.NONE)
    below = state.world.floor < static.num_levels - 1
    return (item == Item.LADDER_DOWN) & floor_cleared(state) & below


def can_ascend(state: State, static: StaticParams) -> jax.Array:
    """(P,) bool: on an up-ladder item below the overworld."""
    item = cell_values(state.world.item, state.players.pos, static, Item.NONE)
    return (item == Item.LADDER_UP) & (state.world.floor > 0)


def _arrive(state: State, new_floor: jax.Array, moved: jax.Array, arrival: jax.Array) -> State:
    """Players on their arrival cells; ENTER_* for everyone, +XP on a first visit."""
    players = state.players
    enter = take_row(FLOOR_ENTER_ACHIEVEMENT, new_floor)
    gets = moved & (enter >= 0)
    column = jnp.clip(enter, 0, players.achievements.shape[1] - 1)
    first = gets & ~players.achievements[:, column]
    achievements = raise_flags(players.achievements, column, gets)
    return state.replace(
        players=players.replace(
            pos=jnp.where(moved, arrival, players.pos),
            achievements=achievements,
            xp=players.xp + ENTER_XP * first,
        )
    )


def change_floor(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """If any player descends validly the team goes down, else if any ascends it goes up."""
    down = ((actions == Action.DESCEND) & can_descend(state, static)).any()
    up = ((actions == Action.ASCEND) & can_ascend(state, static)).any() & ~down
    moved = down | up
    floor = state.world.floor
    new_floor = floor + down.astype(jnp.int32) - up.astype(jnp.int32)
    # Handovers belong to the floor being left: revert its half-built sites, refund, wipe.
    table = state.handovers
    state = revert_builds(state, table.open & (table.kind != MINING) & moved)
    state = state.replace(handovers=close_rows(state.handovers, state.handovers.open & moved))
    state = state.change_floor(new_floor, moved)
    world = state.world
    # Saplings kept ageing while the team was away; ripen them now that the overworld is back.
    plants = state.plants
    block = ripen(world.block, plants, plants.age, moved & (new_floor == OVERWORLD))
    world = world.replace(block=block, deepest=jnp.maximum(world.deepest, new_floor))
    arrival = take_row(world.ladders, new_floor)[jnp.where(down, UP, DOWN)]
    return _arrive(state.replace(world=world), new_floor, moved, arrival)
