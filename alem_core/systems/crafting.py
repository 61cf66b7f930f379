"""Crafting tools, weapons, armour, arrows and torches from the recipe table
(docs/rules/interactions.md#crafting).

Reads: players (pos, inventory, armour), world.block (stations on the current floor).
Writes: players.inventory, players.armour, achievements (MAKE_*_ARMOUR, COORD_DIAMOND_*).

One vectorised rule serves every recipe row: materials, stations adjacent (8-neighbourhood),
the tier condition and the role gate (one crafting draw per agent). Each agent crafts at most
one recipe per step, so the table's resolution order never changes an outcome. With crafting
coordination on, diamond items need an adjacent Epic Forge and at least
``diamond_crafting_agents_required`` able agents choosing the same recipe at the same forge.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import MAX_INVENTORY, Achievement, Action, Block
from alem_core.dense import raise_flags, set_column
from alem_core.draws import Draws, per_player
from alem_core.grid import (
    NEIGHBOURS_8,
    adjacent_block,
    cell_values,
)
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import (
    ACTION_ROLE,
    may_pass_gate,
    passes_gate_with,
)
from alem_core.rules.tables import (
    CRAFT_ARMOUR,
    CRAFT_COUNT,
    CRAFT_TOOL,
    RECIPE_ACTION,
    RECIPE_AMOUNT,
    RECIPE_COLUMN,
    RECIPE_COST,
    RECIPE_DIAMOND,
    RECIPE_FURNACE,
    RECIPE_KIND,
    RECIPE_TABLE,
)
from alem_core.state import State

DRAWS = {"crafting_gate": per_player("crafting: each agent's role gate")}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""

RECIPE_ROLE = ACTION_ROLE[RECIPE_ACTION]
"""(R,) role gate of each recipe, from the one gate table."""

ACTION_TO_RECIPE = np.full(len(Action), -1, np.int32)
ACTION_TO_RECIPE[RECIPE_ACTION] = np.arange(len(RECIPE_ACTION))
"""(54,) recipe row of each fixed action, -1 if the action crafts nothing."""

ARMOUR_ACHIEVEMENT = {1: Achievement.MAKE_IRON_ARMOUR, 2: Achievement.MAKE_DIAMOND_ARMOUR}
COORD_ACHIEVEMENT = {
    Action.MAKE_DIAMOND_PICKAXE: Achievement.COORD_DIAMOND_PICKAXE,
    Action.MAKE_DIAMOND_SWORD: Achievement.COORD_DIAMOND_SWORD,
    Action.MAKE_DIAMOND_ARMOUR: Achievement.COORD_DIAMOND_ARMOUR,
}


def _stations(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """(P,) bool adjacency to each station kind on the current floor."""
    blocks, pos = state.world.block, state.players.pos
    return {
        kind: adjacent_block(blocks, pos, block, static)
        for kind, block in (
            ("table", Block.CRAFTING_TABLE),
            ("furnace", Block.FURNACE),
            ("forge", Block.EPIC_FORGE),
        )
    }


def recipe_feasible(state: State, params: Params, static: StaticParams) -> jax.Array:
    """(P, R) bool: materials, tier condition and stations hold, ignoring role gates."""
    players = state.players
    near = _stations(state, static)
    cost = jnp.asarray(RECIPE_COST)
    has = (players.inventory[:, None, :] >= cost[None]).all(-1)
    level = players.inventory[:, jnp.asarray(RECIPE_COLUMN)]
    amount = jnp.asarray(RECIPE_AMOUNT)[None]
    kind = jnp.asarray(RECIPE_KIND)[None]
    armour_room = (players.armour[:, None, :] < amount[..., None]).any(-1)
    room = jnp.where(
        kind == CRAFT_TOOL,
        level < amount,
        jnp.where(kind == CRAFT_COUNT, level < MAX_INVENTORY, armour_room),
    )
    classic = (~jnp.asarray(RECIPE_TABLE)[None] | near["table"][:, None]) & (
        ~jnp.asarray(RECIPE_FURNACE)[None] | near["furnace"][:, None]
    )
    forge_rule = jnp.asarray(RECIPE_DIAMOND)[None] & params.crafting_coordination_enabled
    station = jnp.where(forge_rule, near["forge"][:, None], classic)
    return has & room & station


def craft_mask(state: State, params: Params, static: StaticParams) -> jax.Array:
    """(P, R) bool for the action mask: feasible and the role gate can be passed."""
    role_ok = may_pass_gate(jnp.asarray(RECIPE_ROLE)[None, :], params, static)
    return recipe_feasible(state, params, static) & role_ok


def _forge_cell(state: State, static: StaticParams) -> jax.Array:
    """(P,) flat index of the first adjacent Epic Forge cell, -1 if none."""
    cells = state.players.pos[:, None, :] + jnp.asarray(NEIGHBOURS_8)[None]
    block = cell_values(state.world.block, cells, static, Block.INVALID)
    is_forge = block == Block.EPIC_FORGE
    flat = cells[..., 0] * static.map_size[1] + cells[..., 1]
    first = jnp.argmax(is_forge, axis=1)
    return jnp.where(is_forge.any(axis=1), jnp.take_along_axis(flat, first[:, None], 1)[:, 0], -1)


def _co_crafters_met(
    state: State, actions: jax.Array, able: jax.Array, params: Params, static: StaticParams
) -> jax.Array:
    """(P,) bool: enough able agents chose this diamond recipe at the same forge this step."""
    forge = _forge_cell(state, static)
    same = (actions[:, None] == actions[None, :]) & (forge[:, None] == forge[None, :])
    count = (same & able[None, :]).sum(axis=1)
    return (forge >= 0) & (count >= params.diamond_crafting_agents_required)


def craft(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Apply every agent's crafting action; the role gates read the ``crafting_gate`` draws."""
    return craft_with_draws(state, actions, draws["crafting_gate"], params, static)


def craft_with_draws(
    state: State, actions: jax.Array, gate_u: jax.Array, params: Params, static: StaticParams
) -> State:
    """``craft`` with the gate draws given: ``gate_u`` (P,) uniform in [0, 1) per agent."""
    players = state.players
    row = jnp.asarray(ACTION_TO_RECIPE)[jnp.clip(actions, 0, len(Action) - 1)]
    row = jnp.where(actions < len(Action), row, -1)
    safe = jnp.maximum(row, 0)
    agents = jnp.arange(static.player_count)
    feasible = recipe_feasible(state, params, static)[agents, safe]
    role_ok = passes_gate_with(jnp.asarray(RECIPE_ROLE)[safe], gate_u, params, static)
    able = (row >= 0) & feasible & role_ok
    diamond = jnp.asarray(RECIPE_DIAMOND)[safe]
    coordinated = diamond & params.crafting_coordination_enabled
    ok = able & jnp.where(coordinated, _co_crafters_met(state, actions, able, params, static), True)
    inventory = players.inventory - jnp.asarray(RECIPE_COST)[safe] * ok[:, None]
    kind, column = jnp.asarray(RECIPE_KIND)[safe], jnp.asarray(RECIPE_COLUMN)[safe]
    amount = jnp.asarray(RECIPE_AMOUNT)[safe]
    current = inventory[agents, column]
    updated = jnp.where(kind == CRAFT_TOOL, jnp.maximum(current, amount), current + amount)
    writes = ok & (kind != CRAFT_ARMOUR)
    inventory = set_column(inventory, column, jnp.where(writes, updated, current))
    armour, achievements = _craft_armour(players, ok & (kind == CRAFT_ARMOUR), amount)
    for action, achievement in COORD_ACHIEVEMENT.items():
        achievements = raise_flags(
            achievements, achievement, ok & coordinated & (actions == action)
        )
    players = dataclasses.replace(
        players, inventory=inventory, armour=armour, achievements=achievements
    )
    attempts = able & coordinated  # a feasible diamond craft waiting for its partners
    counters = state.coordination.bump(
        craft_attempts=attempts.any(),
        craft_successes=(ok & coordinated).any(),
        diamond_items=(ok & diamond).sum(),
    )
    return dataclasses.replace(state, players=players, coordination=counters)


def _craft_armour(players, crafted: jax.Array, level: jax.Array):
    """Raise the first armour slot below ``level`` to it; grant MAKE_<tier>_ARMOUR."""
    below = players.armour < level[:, None]
    first = jnp.argmax(below, axis=1)
    slot = jax.nn.one_hot(first, 4, dtype=bool) & crafted[:, None]
    armour = jnp.where(slot, level[:, None], players.armour)
    achievements = players.achievements
    for tier, achievement in ARMOUR_ACHIEVEMENT.items():
        achievements = raise_flags(achievements, achievement, crafted & (level == tier))
    return armour, achievements
