"""Placing tables, furnaces, stone, torches and saplings on the faced cell (GAME.md §4.3).

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

from alem_core.constants import Achievement, Action, Block, Inv, Item, Role
from alem_core.grid import (
    at,
    faced_cell,
    floor_map,
    in_bounds,
    may_pass_gate,
    mob_grid,
    passes_gate_with,
    player_grid,
    set_cells,
)
from alem_core.params import Params, StaticParams
from alem_core.state import State
from alem_core.tables import ITEM_PLACEABLE, WALKABLE

NO_ROLE = -1
BLOCK_PLACEMENTS = (
    # action, block placed, cost column, cost, role gate, may also fill water, achievement
    (
        Action.PLACE_TABLE,
        Block.CRAFTING_TABLE,
        Inv.WOOD,
        2,
        NO_ROLE,
        False,
        Achievement.PLACE_TABLE,
    ),
    (Action.PLACE_FURNACE, Block.FURNACE, Inv.STONE, 1, NO_ROLE, False, Achievement.PLACE_FURNACE),
    (Action.PLACE_STONE, Block.STONE, Inv.STONE, 1, Role.MINER, True, Achievement.PLACE_STONE),
)
TORCH_RADIUS = 4
TORCH_FALLOFF = 5.0


def _free_target(state: State, static: StaticParams) -> tuple[jax.Array, jax.Array]:
    """(P, 2) faced cells and (P,) bool: in bounds, no player, no mob, no item there."""
    target = faced_cell(state.players)
    floor = state.world.floor
    busy = mob_grid(state.mobs, floor, static) | player_grid(state.players, static)
    busy = busy | (floor_map(state.world.item, state) != Item.NONE)
    return target, in_bounds(target, static) & ~at(busy, target, static, True)


def _block_ok(blocks: jax.Array, target: jax.Array, fill_water: bool, static: StaticParams):
    """(P,) bool: the faced block accepts a placed block (land; stone also fills water)."""
    block = at(blocks, target, static, Block.OUT_OF_BOUNDS)
    ok = jnp.asarray(WALKABLE)[block]
    return ok | (block == Block.WATER) if fill_water else ok


def placement_mask(state: State, params: Params, static: StaticParams) -> dict[int, jax.Array]:
    """(P,) bool per placing action for the action mask (materials, and role for stone)."""
    inventory = state.players.inventory
    mask = {
        int(action): (inventory[:, column] >= cost) & may_pass_gate(role, params, static)
        for action, _, column, cost, role, _, _ in BLOCK_PLACEMENTS
    }
    mask[int(Action.PLACE_TORCH)] = inventory[:, Inv.TORCH] >= 1
    mask[int(Action.PLACE_PLANT)] = inventory[:, Inv.SAPLING] >= 1
    return mask


def place_blocks(
    state: State, actions: jax.Array, gate_u: jax.Array, params: Params, static: StaticParams
) -> State:
    """Tables, furnaces, then stone; ``gate_u`` (P,) is the placing gate draw."""
    target, free = _free_target(state, static)
    floor = state.world.floor
    blocks = floor_map(state.world.block, state)
    players = state.players
    inventory, achievements = players.inventory, players.achievements
    for action, block, column, cost, role, fill_water, achievement in BLOCK_PLACEMENTS:
        ok = (actions == action) & free & (inventory[:, column] >= cost)
        ok &= _block_ok(blocks, target, fill_water, static)
        ok &= passes_gate_with(role, gate_u, params, static)
        inventory = inventory.at[:, column].add(-cost * ok)
        achievements = achievements.at[:, achievement].max(ok)
        blocks = set_cells(blocks, target, jnp.full(ok.shape, block, jnp.int32), ok)
    world = dataclasses.replace(state.world, block=state.world.block.at[floor].set(blocks))
    players = dataclasses.replace(players, inventory=inventory, achievements=achievements)
    return dataclasses.replace(state, world=world, players=players)


def _first_claim(target: jax.Array, attempt: jax.Array) -> jax.Array:
    """(P,) bool: no lower-index attempting player aims at the same cell."""
    same = (target[:, None, :] == target[None, :, :]).all(-1) & attempt[None, :]
    lower = jnp.tril(jnp.ones_like(same), k=-1)
    return attempt & ~(same & lower).any(axis=1)


def torch_light(cells: jax.Array, placed: jax.Array, static: StaticParams) -> jax.Array:
    """(H, W) light added by torches at ``cells`` (P, 2): 1 - d/5 within a 9x9 patch."""
    rows, cols = jnp.arange(static.map_size[0]), jnp.arange(static.map_size[1])
    dr = rows[None, :, None] - cells[:, 0, None, None]
    dc = cols[None, None, :] - cells[:, 1, None, None]
    inside = (jnp.abs(dr) <= TORCH_RADIUS) & (jnp.abs(dc) <= TORCH_RADIUS)
    value = jnp.clip(1.0 - jnp.sqrt(dr**2 + dc**2) / TORCH_FALLOFF, 0.0, 1.0)
    return (jnp.where(inside & placed[:, None, None], value, 0.0)).sum(axis=0)


def place_torches_and_plants(state: State, actions: jax.Array, static: StaticParams) -> State:
    """Torches on item-placeable tiles, saplings on grass; the lowest index wins a cell."""
    target, free = _free_target(state, static)
    floor = state.world.floor
    blocks = floor_map(state.world.block, state)
    block = at(blocks, target, static, Block.OUT_OF_BOUNDS)
    players = state.players
    torch = (actions == Action.PLACE_TORCH) & free & (players.inventory[:, Inv.TORCH] >= 1)
    torch = _first_claim(target, torch & jnp.asarray(ITEM_PLACEABLE)[block])
    plant = (actions == Action.PLACE_PLANT) & free & (players.inventory[:, Inv.SAPLING] >= 1)
    plant = _first_claim(target, plant & (block == Block.GRASS))
    plants, plant = _claim_plant_slots(state, target, plant)
    items = set_cells(
        floor_map(state.world.item, state), target, jnp.full_like(actions, Item.TORCH), torch
    )
    blocks = set_cells(blocks, target, jnp.full_like(actions, Block.PLANT), plant)
    light = jnp.clip(floor_map(state.world.light, state) + torch_light(target, torch, static), 0, 1)
    world = dataclasses.replace(
        state.world,
        block=state.world.block.at[floor].set(blocks),
        item=state.world.item.at[floor].set(items),
        light=state.world.light.at[floor].set(light),
    )
    inventory = players.inventory.at[:, Inv.TORCH].add(-torch.astype(jnp.int32))
    inventory = inventory.at[:, Inv.SAPLING].add(-plant.astype(jnp.int32))
    achievements = players.achievements.at[:, Achievement.PLACE_TORCH].max(torch)
    achievements = achievements.at[:, Achievement.PLACE_PLANT].max(plant)
    players = dataclasses.replace(players, inventory=inventory, achievements=achievements)
    return dataclasses.replace(state, world=world, players=players, plants=plants)


def _claim_plant_slots(state: State, target: jax.Array, plant: jax.Array):
    """Give each planting player (in index order) a free plant slot; no slot, no planting."""
    plants = state.plants
    slots = plants.alive.shape[0]
    rank = jnp.cumsum(plant) - 1
    free_slots = jnp.nonzero(~plants.alive, size=plant.shape[0], fill_value=slots)[0]
    slot = jnp.where(plant, free_slots[jnp.clip(rank, 0, plant.shape[0] - 1)], slots)
    plant = plant & (slot < slots)
    slot = jnp.where(plant, slot, slots)
    plants = dataclasses.replace(
        plants,
        pos=plants.pos.at[slot].set(target, mode="drop"),
        age=plants.age.at[slot].set(0, mode="drop"),
        alive=plants.alive.at[slot].set(True, mode="drop"),
    )
    return plants, plant
