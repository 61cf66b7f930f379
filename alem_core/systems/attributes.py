"""Attribute level-ups (docs/rules/survival.md#attributes-and-xp): spend one XP to raise dexterity,
strength or intelligence.

Reads and writes: players.xp, players.dexterity, players.strength, players.intelligence.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import Action
from alem_core.draws import Draws
from alem_core.params import Params, StaticParams
from alem_core.state import State

LEVEL_UPS = (
    (Action.LEVEL_UP_DEXTERITY, "dexterity"),
    (Action.LEVEL_UP_STRENGTH, "strength"),
    (Action.LEVEL_UP_INTELLIGENCE, "intelligence"),
)


def can_level_up(state: State) -> jax.Array:
    """(P,) bool for the action mask: xp >= 1 (the attribute cap is not checked,
    docs/rules/observations.md#action-mask)."""
    return state.players.xp >= 1


def level_up(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Raise the chosen attribute by one if xp >= 1 and it is below ``max_attribute``."""
    players = state.players
    changes: dict[str, jax.Array] = {}
    spent = jnp.zeros_like(players.xp)
    for action, name in LEVEL_UPS:
        value = getattr(players, name)
        ok = (actions == action) & can_level_up(state) & (value < params.max_attribute)
        changes[name] = value + ok
        spent = spent + ok
    players = dataclasses.replace(players, xp=players.xp - spent, **changes)
    return dataclasses.replace(state, players=players)
