"""Players shoot arrows and cast spells (docs/rules/interactions.md#potions-books-spells,
docs/rules/step.md#the-pipeline steps 8-9).

Reads: actions, players (pos, facing, alive, inventory bow / arrows, mana, spell_learned,
health, strength), world.block, mobs.player_projectiles (current floor).
Writes: mobs.player_projectiles (new arrows and fireballs), players (arrows, mana, health),
achievements FIRE_BOW and CAST_SPELL.

* SHOOT_ARROW needs a bow and an arrow; CAST_SPELL needs a learned spell. The spell follows
  the raw role (not soft-gated): warriors and miners cast a fireball for 2 mana, foragers a
  team heal for 6 mana (+2 health to every alive player, capped).
* A projectile starts on the faced cell and flies on from there in the mobs stage (where it
  hits mobs and, with friendly fire, teammates). It needs that cell in bounds and not solid,
  and a free projectile slot on the floor; slots go to players in index order. Without a
  launch nothing is spent.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.constants import Achievement, Action, Block, Inv, Projectile, Role
from alem_core.dense import add_to_column, raise_flags
from alem_core.draws import Draws
from alem_core.grid import DIRECTIONS, cell_values, claim_free_slots, faced_cell, in_bounds
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import roles
from alem_core.rules.tables import SOLID
from alem_core.state import Entities, Players, State
from alem_core.systems.intrinsics import capacities

FIREBALL_MANA = 2
HEAL_MANA = 6
HEAL_AMOUNT = 2.0


def can_shoot_arrow(players: Players) -> jax.Array:
    """(P,) bool: a bow and at least one arrow (the mask's SHOOT_ARROW row,
    docs/rules/observations.md#action-mask)."""
    return (players.inventory[:, Inv.BOW] >= 1) & (players.inventory[:, Inv.ARROW] >= 1)


def can_cast_spell(players: Players) -> jax.Array:
    """(P,) bool: the spell is learned (the mask's CAST_SPELL row; mana is not checked there,
    docs/rules/observations.md#action-mask, so a cast without the mana does nothing)."""
    return players.spell_learned


def _wanted_launches(state: State, actions: jax.Array, static: StaticParams):
    """(P,) bool arrow, (P,) bool fireball, (P,) bool heal: the action and its cost are met."""
    players = state.players
    arrow = (actions == Action.SHOOT_ARROW) & can_shoot_arrow(players)
    casting = (actions == Action.CAST_SPELL) & can_cast_spell(players)
    forager = roles(static) == Role.FORAGER
    fireball = casting & ~forager & (players.mana >= FIREBALL_MANA)
    heal = casting & forager & (players.mana >= HEAL_MANA)
    return arrow, fireball, heal


def _put(proj: Entities, slot: jax.Array, **rows: jax.Array) -> Entities:
    """Write per-player ``rows`` into ``slot`` (past the end: dropped)."""
    changes = {
        name: getattr(proj, name).at[slot].set(value, mode="drop") for name, value in rows.items()
    }
    return proj.replace(**changes)


def launch(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Resolve SHOOT_ARROW and CAST_SPELL for every player."""
    players = state.players
    arrow, fireball, heal = _wanted_launches(state, actions, static)
    cell = faced_cell(players)
    block = cell_values(state.world.block, cell, static, Block.OUT_OF_BOUNDS)
    open_cell = in_bounds(cell, static) & ~jnp.asarray(SOLID)[block]
    proj = state.mobs.player_projectiles
    slot = claim_free_slots(~proj.alive, (arrow | fireball) & open_cell)
    flying = slot < proj.alive.shape[0]
    kind = jnp.where(arrow, Projectile.ARROW, Projectile.FIREBALL)
    proj = _put(
        proj,
        slot,
        pos=cell,
        direction=jnp.asarray(DIRECTIONS)[players.facing],
        kind=kind.astype(jnp.int32),
        owner=jnp.arange(static.player_count, dtype=jnp.int32),
        alive=flying,
    )
    shot, cast = flying & arrow, flying & fireball
    healers = heal.sum()
    max_health = capacities(players, static)["health"]
    healed = jnp.minimum(max_health, players.health + HEAL_AMOUNT * healers)
    achievements = raise_flags(players.achievements, Achievement.FIRE_BOW, shot)
    players = players.replace(
        inventory=add_to_column(players.inventory, Inv.ARROW, -shot.astype(jnp.int32)),
        mana=players.mana - FIREBALL_MANA * cast - HEAL_MANA * heal,
        health=jnp.where(players.alive & (healers > 0), healed, players.health),
        achievements=raise_flags(achievements, Achievement.CAST_SPELL, cast | heal),
    )
    mobs = state.mobs.replace(player_projectiles=proj)
    return state.replace(players=players, mobs=mobs)
