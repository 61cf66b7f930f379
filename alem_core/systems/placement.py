"""Placing tables, furnaces, stone, torches and saplings on the faced cell
(docs/rules/interactions.md#placing).

Reads: players (pos, facing, inventory), world (block, item, light on the current floor),
mobs, plants. Writes: world.block, world.item, world.light, players.inventory, achievements
(PLACE_*), plants.

Order inside the step: tables, then furnaces, then stone, each seeing the earlier placements;
players placing the same block on one cell all pay and one block results. Torches and plants go
to the lowest-index player aiming at a cell; the others keep their items.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import Achievement, Action, Block, Inv, Item
from alem_core.dense import add_to_column, raise_flags
from alem_core.draws import per_player
from alem_core.grid import (
    add_light_patches,
    cell_values,
    claim_free_slots,
    faced_cell,
    in_bounds,
    lower_index_claims,
    mob_at,
    player_at,
    write_cells,
)
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import ACTION_ROLE, may_pass_gate, passes_gate_with
from alem_core.rules.tables import ITEM_PLACEABLE, WALKABLE
from alem_core.state import State

DRAWS = {"placing_gate": per_player("placing: each agent's role gate")}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""

BLOCK_PLACEMENTS = (
    # action, block placed, cost column, cost, may also fill water, achievement (role: ACTION_ROLE)
    (
        Action.PLACE_TABLE,
        Block.CRAFTING_TABLE,
        Inv.WOOD,
        2,
        False,
        Achievement.PLACE_TABLE,
    ),
    (Action.PLACE_FURNACE, Block.FURNACE, Inv.STONE, 1, False, Achievement.PLACE_FURNACE),
    (Action.PLACE_STONE, Block.STONE, Inv.STONE, 1, True, Achievement.PLACE_STONE),
)
TORCH_RADIUS = 4
TORCH_FALLOFF = 5.0


def _free_target(state: State, static: StaticParams) -> tuple[jax.Array, jax.Array]:
    """(P, 2) faced cells and (P,) bool: in bounds, no player, no mob, no item there."""
    target = faced_cell(state.players)
    busy = mob_at(state.mobs, target) | player_at(state.players, target)
    busy |= cell_values(state.world.item, target, static, Item.NONE) != Item.NONE
    return target, in_bounds(target, static) & ~busy


def _block_ok(layer: jax.Array, target: jax.Array, fill_water: bool, static: StaticParams):
    """(P,) bool: the faced block accepts a placed block (land; stone also fills water)."""
    block = cell_values(layer, target, static, Block.OUT_OF_BOUNDS)
    ok = jnp.asarray(WALKABLE)[block]
    return ok | (block == Block.WATER) if fill_water else ok


ITEM_PLACEMENTS = ((Action.PLACE_TORCH, Inv.TORCH), (Action.PLACE_PLANT, Inv.SAPLING))
"""Torches and saplings: one of the item from the inventory."""


def has_materials(inventory: jax.Array) -> dict[int, jax.Array]:
    """(P,) bool per placing action: the inventory (P, NUM_INV) holds what it costs."""
    costs = [(a, column, cost) for a, _, column, cost, _, _ in BLOCK_PLACEMENTS]
    costs += [(a, column, 1) for a, column in ITEM_PLACEMENTS]
    return {int(a): inventory[:, column] >= cost for a, column, cost in costs}


def placement_mask(state: State, params: Params, static: StaticParams) -> dict[int, jax.Array]:
    """(P,) bool per placing action for the action mask (materials, and role for stone)."""
    mask = has_materials(state.players.inventory)
    for action, *_ in BLOCK_PLACEMENTS:
        mask[int(action)] &= may_pass_gate(ACTION_ROLE[action], params, static)
    return mask


def place_blocks(
    state: State, actions: jax.Array, gate_u: jax.Array, params: Params, static: StaticParams
) -> State:
    """Tables, furnaces, then stone; ``gate_u`` (P,) is the placing gate draw."""
    target, free = _free_target(state, static)
    layer = state.world.block
    players = state.players
    inventory, achievements = players.inventory, players.achievements
    for action, block, column, cost, fill_water, achievement in BLOCK_PLACEMENTS:
        ok = (actions == action) & free & has_materials(inventory)[int(action)]
        ok &= _block_ok(layer, target, fill_water, static)  # sees earlier placements
        ok &= passes_gate_with(ACTION_ROLE[action], gate_u, params, static)
        inventory = add_to_column(inventory, column, -cost * ok)
        achievements = raise_flags(achievements, achievement, ok)
        layer = write_cells(layer, target, jnp.full(ok.shape, block), ok)
    world = dataclasses.replace(state.world, block=layer)
    players = dataclasses.replace(players, inventory=inventory, achievements=achievements)
    return dataclasses.replace(state, world=world, players=players)


def place_torches_and_plants(state: State, actions: jax.Array, static: StaticParams) -> State:
    """Torches on item-placeable tiles, saplings on grass; the lowest index wins a cell."""
    target, free = _free_target(state, static)
    block = cell_values(state.world.block, target, static, Block.OUT_OF_BOUNDS)
    players = state.players
    materials = has_materials(players.inventory)
    torch = (actions == Action.PLACE_TORCH) & free & materials[int(Action.PLACE_TORCH)]
    torch &= jnp.asarray(ITEM_PLACEABLE)[block]
    torch &= ~lower_index_claims(target, torch)
    plant = (actions == Action.PLACE_PLANT) & free & materials[int(Action.PLACE_PLANT)]
    plant &= block == Block.GRASS
    plant &= ~lower_index_claims(target, plant)
    plants, plant = _claim_plant_slots(state, target, plant)
    world = dataclasses.replace(
        state.world,
        block=write_cells(state.world.block, target, jnp.full_like(actions, Block.PLANT), plant),
        item=write_cells(state.world.item, target, jnp.full_like(actions, Item.TORCH), torch),
        light=add_light_patches(state.world.light, target, torch, TORCH_RADIUS, TORCH_FALLOFF),
    )
    inventory = add_to_column(players.inventory, Inv.TORCH, -torch.astype(jnp.int32))
    inventory = add_to_column(inventory, Inv.SAPLING, -plant.astype(jnp.int32))
    achievements = raise_flags(players.achievements, Achievement.PLACE_TORCH, torch)
    achievements = raise_flags(achievements, Achievement.PLACE_PLANT, plant)
    players = dataclasses.replace(players, inventory=inventory, achievements=achievements)
    return dataclasses.replace(state, world=world, players=players, plants=plants)


def _claim_plant_slots(state: State, target: jax.Array, plant: jax.Array):
    """Give each planting player (in index order) a free plant slot; no slot, no planting."""
    plants = state.plants
    slot = claim_free_slots(~plants.alive, plant)
    plant = plant & (slot < plants.alive.shape[0])
    plants = dataclasses.replace(
        plants,
        pos=plants.pos.at[slot].set(target, mode="drop"),
        age=plants.age.at[slot].set(0, mode="drop"),
        alive=plants.alive.at[slot].set(True, mode="drop"),
    )
    return plants, plant
