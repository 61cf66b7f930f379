"""The Do phase on blocks: mining, saplings, drinking, eating ripe plants
(docs/rules/interactions.md#the-do-action).

Reads: players (pos, facing, alive, inventory pickaxe, drink, food), world.block (current
floor), mobs and players on the faced cell, plants, and the coordination gate's verdicts.
Writes: world.block, players (inventory, drink, thirst, food, hunger, achievements),
plants.age. A mined block's task ends with the block (``tables.TASK_BLOCK``).

A Do aimed at a cell holding a mob is an attack (``attack.py``) and one aimed at a teammate is
left to the teamwork rules, so neither touches the block underneath, with one exception: a Do
on a mob or a teammate standing on grass also rolls for a sapling, and one on water holding a
mob also drinks (docs/rules/interactions.md#the-do-action's grass and water rows; measured on the
published package, docs/decisions.md "Saplings under mobs" and "Block effects under a teammate
or a mob"). Several
players mining one block in one step each receive the yield; the block is removed once.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import Achievement, Action, Block, Inv
from alem_core.dense import add_to_column, raise_flags
from alem_core.draws import per_player
from alem_core.grid import (
    cell_values,
    faced_cell,
    in_bounds,
    mob_at,
    player_at,
    write_cells,
)
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import JOB_ROLE, passes_gate_with
from alem_core.rules.tables import (
    DRINK_AMOUNT,
    MINE_ITEM,
    MINE_MULTIPLIES,
    MINE_RESULT,
    MINE_TIER,
    PLANT_FOOD,
    SAPLING_CHANCE,
)
from alem_core.state import State
from alem_core.systems.intrinsics import capacities

DRAWS = {
    "do_gate": per_player("Do phase: the forager gate shared by every gated Do"),
    "sapling": per_player("Do phase: grass gives a sapling"),
}
"""The step's uniforms the Do phase's block interactions read (``alem_core/draws.py``); the
forager gate also serves the attack on passive mobs."""


def do_targets(state: State, actions: jax.Array, static: StaticParams) -> dict[str, jax.Array]:
    """Per-player facts about the faced cell for a Do on a block (each (P,) or (P, 2))."""
    target = faced_cell(state.players)

    mob = mob_at(state.mobs, target)
    acts = (actions == Action.DO) & state.players.alive & in_bounds(target, static)
    teammate = player_at(state.players, target)
    return {
        "cell": target,
        "block": cell_values(state.world.block, target, static, Block.OUT_OF_BOUNDS),
        "on": acts & ~teammate & ~mob,
        "under_mob": acts & ~teammate & mob,
        "under_teammate": acts & teammate,
    }


def can_mine(state: State, block: jax.Array) -> jax.Array:
    """(P,) bool: the faced block is mineable with each player's pickaxe."""
    item = jnp.asarray(MINE_ITEM)[block]
    tier = jnp.asarray(MINE_TIER)[block]
    return (item >= 0) & (state.players.inventory[:, Inv.PICKAXE] >= tier)


def interact_blocks(
    state: State,
    actions: jax.Array,
    forager_u: jax.Array,
    sapling_u: jax.Array,
    params: Params,
    static: StaticParams,
    allowed: jax.Array | None = None,
    multiplier: jax.Array | None = None,
) -> State:
    """Resolve every player's Do on a block. ``forager_u`` (P,) is the Do phase's gate draw,
    ``sapling_u`` (P,) its sapling rolls;
    ``allowed`` / ``multiplier`` (P,) come from the coordination gate (``mining_tasks``)."""
    facts = do_targets(state, actions, static)
    on, block, cell = facts["on"], facts["block"], facts["cell"]
    if allowed is not None:
        on = on & allowed
    players = state.players
    caps = capacities(players, static)
    mined = on & can_mine(state, block)
    gained = mined.astype(jnp.int32)
    if multiplier is not None:
        gained = gained * jnp.where(jnp.asarray(MINE_MULTIPLIES)[block], multiplier, 1)
    column = jnp.maximum(jnp.asarray(MINE_ITEM)[block], 0)
    inventory = add_to_column(players.inventory, column, gained)
    # A Do on a mob or a teammate standing on grass still rolls for a sapling, and one on water
    # holding a mob still drinks (measured, docs/decisions.md); mining and eating need the
    # cell free.
    occupied = facts["under_mob"] | facts["under_teammate"]
    occupied = occupied if allowed is None else occupied & allowed
    sapling = (on | occupied) & (block == Block.GRASS)
    sapling &= passes_gate_with(JOB_ROLE["sapling"], forager_u, params, static)
    sapling &= sapling_u < SAPLING_CHANCE
    inventory = add_to_column(inventory, Inv.SAPLING, sapling)
    drinks = (on | occupied) & ((block == Block.WATER) | (block == Block.FOUNTAIN))
    drinks &= passes_gate_with(JOB_ROLE["drink"], forager_u, params, static)
    eats = on & (block == Block.RIPE_PLANT)
    achievements = raise_flags(players.achievements, Achievement.COLLECT_DRINK, drinks)
    achievements = raise_flags(achievements, Achievement.EAT_PLANT, eats)
    players = dataclasses.replace(
        players,
        inventory=inventory,
        drink=jnp.where(
            drinks, jnp.minimum(caps["drink"], players.drink + DRINK_AMOUNT), players.drink
        ),
        thirst=jnp.where(drinks, 0.0, players.thirst),
        food=jnp.where(eats, jnp.minimum(caps["food"], players.food + PLANT_FOOD), players.food),
        hunger=jnp.where(eats, 0.0, players.hunger),
        achievements=achievements,
    )
    new_block = jnp.where(eats, Block.PLANT, jnp.asarray(MINE_RESULT)[block])
    blocks = write_cells(state.world.block, cell, new_block, mined | eats)
    # A mined block's task ends with it: readers mask the coordination map by TASK_BLOCK.
    world = dataclasses.replace(state.world, block=blocks)
    plants = _reset_eaten_plants(state, cell, eats)
    return dataclasses.replace(state, players=players, world=world, plants=plants)


def _reset_eaten_plants(state: State, cell: jax.Array, eats: jax.Array):
    """An eaten ripe plant starts growing again from age 0."""
    plants = state.plants
    eaten = ((plants.pos[:, None, :] == cell[None, :, :]).all(-1) & eats[None, :]).any(axis=1)
    eaten &= plants.alive
    return dataclasses.replace(plants, age=jnp.where(eaten, 0, plants.age))
