"""Player movement and collisions between agents (docs/rules/step.md#movement).

Reads: players.pos, players.facing, world.block (current floor), mobs (current floor).
Writes: players.pos, players.facing.

A move to cell X succeeds iff X is in bounds, walkable (not solid, water or lava), holds no mob,
is not any player's *current* cell (dead players included) and is no other player's target this
step. So swaps, following into a vacated cell and two players entering one cell all fail. Every
move action turns the player to face its direction, even when blocked. God mode skips the checks.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import Action, Block
from alem_core.draws import Draws
from alem_core.grid import DIRECTIONS, cell_values, in_bounds, mob_at, player_at
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import WALKABLE
from alem_core.state import State


def is_move(actions: jax.Array) -> jax.Array:
    """(P,) bool: the action is LEFT, RIGHT, UP or DOWN."""
    return (actions >= Action.LEFT) & (actions <= Action.DOWN)


def move_targets(state: State, actions: jax.Array) -> jax.Array:
    """(P, 2) the cell each player tries to enter (its own cell when not moving)."""
    step = jnp.asarray(DIRECTIONS)[jnp.where(is_move(actions), actions, 0)]
    return state.players.pos + step


def can_enter(state: State, target: jax.Array, static: StaticParams) -> jax.Array:
    """(P,) bool: ``target`` cells are free of terrain, mobs and players (ignoring other moves)."""
    block = cell_values(state.world.block, target, static, Block.OUT_OF_BOUNDS)
    terrain = jnp.asarray(WALKABLE)[block]
    no_mob = ~mob_at(state.mobs, target)
    no_player = ~player_at(state.players, target)
    return in_bounds(target, static) & terrain & no_mob & no_player


def move_players(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Apply the move actions of all players simultaneously."""
    players = state.players
    moving = is_move(actions)
    target = move_targets(state, actions)
    # Two players aiming at one cell both fail: count claims on each target.
    same_target = (target[:, None, :] == target[None, :, :]).all(-1) & moving[None, :]
    contested = same_target.sum(axis=1) > 1
    free = can_enter(state, target, static) & ~contested
    god_ok = in_bounds(target, static)
    ok = moving & jnp.where(params.god_mode, god_ok, free)
    pos = jnp.where(ok[:, None], target, players.pos)
    facing = jnp.where(moving, actions, players.facing)
    return dataclasses.replace(state, players=dataclasses.replace(players, pos=pos, facing=facing))
