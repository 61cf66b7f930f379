"""A Do aimed at a teammate: revive the dead, hurt the living
(docs/rules/survival.md#death-and-revival, docs/rules/interactions.md#the-do-action,
docs/rules/step.md#friendly-fire-and-revives).

Reads: actions, players (pos, facing, alive, health, sleeping, sword, strength, intelligence,
armour, armour_enchant), params.friendly_fire.
Writes: players.health, stats (revives, times_revived, friendly_fire_damage).

* Revive: a Do on a dead teammate's cell sets its health to 1; it is alive again at the end of
  the step (food, drink and energy unchanged) and acts from the next step.
* Friendly fire (when ``friendly_fire`` is on): a Do on a living teammate deals the attacker's
  melee damage (warrior x2 and strength included) reduced by the victim's defence, x3.5 when the
  victim sleeps. The victim is not woken: the spec gives friendly fire only the damage factor.
  Damage dealt is logged per attacker. "Living" means alive at the start of the step, so a
  player revived this step cannot also be hit in it.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import Action
from alem_core.grid import faced_cell
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import SLEEP_DAMAGE_MULTIPLIER
from alem_core.state import State
from alem_core.systems.combat import player_defence, player_melee_damage

REVIVE_HEALTH = 1.0


def teammate_targets(state: State, actions: jax.Array) -> jax.Array:
    """(P, P) bool [actor, teammate]: the actor's Do this step lands on the teammate's cell."""
    players = state.players
    target = faced_cell(players)
    doing = actions == Action.DO
    on = (target[:, None, :] == players.pos[None, :, :]).all(-1)
    return doing[:, None] & on & ~jnp.eye(players.alive.shape[0], dtype=bool)


def friendly_fire_damage(state: State, params: Params, static: StaticParams) -> jax.Array:
    """(P, P) health the attacker [row] would take from the victim [column] with one hit."""
    players = state.players
    raw = player_melee_damage(players, static)  # (P, 3) per attacker
    kept = 1.0 - player_defence(players)  # (P, 3) per victim
    per_hit = raw @ kept.T
    sleeping = jnp.where(players.sleeping, SLEEP_DAMAGE_MULTIPLIER, 1.0)
    return per_hit * sleeping[None, :] * jnp.where(params.friendly_fire, 1.0, 0.0)


def act_on_teammates(
    state: State, actions: jax.Array, params: Params, static: StaticParams
) -> State:
    """Revives and friendly-fire hits of this step's Do actions."""
    players, stats = state.players, state.stats
    on = teammate_targets(state, actions)
    revive = on & ~players.alive[None, :]
    hit = on & players.alive[None, :]
    dealt = jnp.where(hit, friendly_fire_damage(state, params, static), 0.0)
    revived = revive.any(axis=0)
    health = jnp.where(revived, REVIVE_HEALTH, players.health) - dealt.sum(axis=0)
    stats = dataclasses.replace(
        stats,
        revives=stats.revives + revive.sum(axis=1),
        times_revived=stats.times_revived + revived,
        friendly_fire_damage=stats.friendly_fire_damage + dealt.sum(axis=1),
    )
    players = dataclasses.replace(players, health=health.astype(players.health.dtype))
    return dataclasses.replace(state, players=players, stats=stats)
