"""End-of-step bookkeeping: alive flags, death causes, the clock and daylight
(docs/rules/survival.md#death-and-revival, docs/rules/engine.md#day-and-night).

Reads: players.health, food, drink, alive; world.floor; health snapshots taken by the pipeline.
Writes: players.alive, players.death_cause, players.death_floor, state.timestep,
world.daylight, stats counters.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.params import Params, StaticParams
from alem_core.state import State

ALIVE, STARVATION, DEHYDRATION, EXHAUSTION, MOB_COMBAT, FRIENDLY_FIRE = range(6)
DEATH_CAUSES = ("alive", "starvation", "dehydration", "exhaustion", "mob_combat", "friendly_fire")
"""Name of each ``Players.death_cause`` code. The numbering and the names are the published
benchmark's, measured as a black box (docs/decisions.md, "Death-cause codes"), so a code or a
``died_from_<name>`` key means the same thing in both."""


def daylight(timestep: jax.Array, params: Params) -> jax.Array:
    """Light level 1 - |cos(pi * ((t / day_length) mod 1 + 0.3))|^3: 0.80 at t=0, 0 at midnight."""
    phase = jnp.mod(timestep / params.day_length, 1.0) + 0.3
    return (1.0 - jnp.abs(jnp.cos(jnp.pi * phase)) ** 3).astype(jnp.float32)


def death_cause(
    state: State, health_before: jax.Array, after_do: jax.Array, after_mobs: jax.Array
) -> jax.Array:
    """(P,) cause code for each player: friendly fire if health fell in the Do phase, mob combat
    if it fell between the Do phase and the end of spawning, else the first unmet need (food,
    drink, energy). A death from an unmet need on a step that also saw a mob hit is filed as
    mob combat, as in the published benchmark (docs/decisions.md, "Death causes")."""
    players = state.players
    need = jnp.where(
        players.food <= 0, STARVATION, jnp.where(players.drink <= 0, DEHYDRATION, EXHAUSTION)
    )
    return jnp.where(
        after_do < health_before, FRIENDLY_FIRE, jnp.where(after_mobs < after_do, MOB_COMBAT, need)
    )


def end_step(
    state: State,
    health_before: jax.Array,
    after_do: jax.Array,
    after_mobs: jax.Array,
    params: Params,
    static: StaticParams,
) -> State:
    """Set alive := health > 0, record the cause and floor of new deaths (cleared on a revive),
    advance the clock and daylight."""
    players = state.players
    alive = players.health > 0
    died = players.alive & ~alive
    cause = jnp.where(died, death_cause(state, health_before, after_do, after_mobs), 0)
    revived = ~players.alive & alive
    cause = jnp.where(died, cause, jnp.where(revived, 0, players.death_cause))
    floor = jnp.where(died, state.world.floor, jnp.where(revived, -1, players.death_floor))
    players = dataclasses.replace(players, alive=alive, death_cause=cause, death_floor=floor)
    timestep = state.timestep + 1
    world = dataclasses.replace(state.world, daylight=daylight(timestep, params))
    return dataclasses.replace(state, players=players, world=world, timestep=timestep)
