"""The boss floor: the Necromancer, its wave timer, progress and defeat
(docs/rules/mobs.md#behaviour, docs/rules/interactions.md#the-do-action,
docs/rules/rewards.md#termination-and-truncation).

Reads: ``world.{floor, block, boss_timer, boss_progress}``, ``mobs.{melee, ranged}.alive`` of
the current floor, ``players.{pos, facing, alive, achievements}``. Writes:
``world.{boss_timer, boss_progress}``, ``players.achievements`` (DAMAGE_NECROMANCER,
DEFEAT_NECROMANCER).

Timeline of one step on the boss floor (docs/rules/step.md#the-pipeline):

* Do phase (stage 5, after attacks on mobs and mining): ``hit_boss``. Players whose Do faces a
  NECROMANCER block while ``boss_vulnerable`` get DAMAGE_NECROMANCER; if any did, progress +1
  (once per step, however many hit) and the timer goes back to ``BOSS_WAVE_TIMER``.
* Boss bookkeeping (stage 13): ``boss_bookkeeping``. The timer counts down by 1 (on the boss
  floor only; elsewhere it waits at its reset value); progress >= ``BOSS_PROGRESS_TO_WIN``
  gives DEFEAT_NECROMANCER to every player (dead ones too) and ends the episode as a win
  (``boss_defeated``, read by the pipeline).
* Spawning (stage 20): while ``wave_in_progress`` melee and ranged mobs spawn on graves
  (``spawning.py`` asks ``wave_types`` and ``wave_cells``).

What "a wave" is (the spec says "only during a wave" without defining it): a wave is in
progress at the spawning stage of every step on the boss floor whose timer, after that step's
countdown, is still > 0, as long as the boss stands. So a wave is the 6 spawning stages right
after the team arrives on the floor (timer 7 at reset) and right after each hit (timer reset to
7 in the Do phase, 6 after the countdown of the same step). The boss can only be hit once the
timer is <= 0 and no melee or ranged mob is left, so waves never overlap hits.

"The boss fight" (no passive spawns, no despawn of melee/ranged) is every step the team is on
the boss floor: the episode ends when the boss falls, and the team cannot go back up.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.constants import Achievement, Block
from alem_core.dense import raise_flags
from alem_core.draws import Draws
from alem_core.params import Params, StaticParams
from alem_core.rules.boss_tables import (
    BOSS_FLOOR,
    BOSS_PROGRESS_TO_WIN,
    BOSS_WAVE_DISTANCE,
    BOSS_WAVE_TIMER,
    GRAVE_BLOCKS,
)
from alem_core.rules.tables import FLOOR_MELEE_TYPE, FLOOR_RANGED_TYPE
from alem_core.state import State
from alem_core.systems.interaction import do_targets


def on_boss_floor(state: State) -> jax.Array:
    """() bool: the team is on the boss floor (the boss fight is on)."""
    return state.world.floor == BOSS_FLOOR


def boss_vulnerable(state: State) -> jax.Array:
    """() bool: on the boss floor, the wave timer is <= 0 and no melee or ranged mob is alive
    on the floor. The one test behind the Do rule and the observation's floor info."""
    mobs = state.mobs
    hostiles = mobs.melee.alive.any() | mobs.ranged.alive.any()
    return on_boss_floor(state) & (state.world.boss_timer <= 0) & ~hostiles


def boss_defeated(state: State) -> jax.Array:
    """() bool: the boss took its last hit; the episode is over and won."""
    return state.world.boss_progress >= BOSS_PROGRESS_TO_WIN


def hit_boss(state: State, actions: jax.Array, static: StaticParams) -> State:
    """Resolve Do on NECROMANCER blocks (docs/rules/interactions.md#the-do-action): progress +1 once
    per step if any player hits the vulnerable boss, timer reset, DAMAGE_NECROMANCER to every
    hitter.

    Args:
        state: the state in the Do phase, after attacks on mobs (a mob killed this step no
            longer protects the boss).
        actions: (P,) effective actions.
        static: shapes.
    """
    facts = do_targets(state, actions, static)
    hitters = facts["on"] & (facts["block"] == Block.NECROMANCER) & boss_vulnerable(state)
    hit = hitters.any()
    world = state.world.replace(
        boss_progress=state.world.boss_progress + hit.astype(jnp.int32),
        boss_timer=jnp.where(hit, BOSS_WAVE_TIMER, state.world.boss_timer).astype(jnp.int32),
    )
    players = state.players
    achievements = raise_flags(players.achievements, Achievement.DAMAGE_NECROMANCER, hitters)
    return state.replace(world=world, players=players.replace(achievements=achievements))


def boss_bookkeeping(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """docs/rules/step.md#the-pipeline stage 13: the wave timer counts down on the boss floor; a
    defeated boss gives DEFEAT_NECROMANCER to every player."""
    world = state.world
    timer = world.boss_timer - on_boss_floor(state).astype(jnp.int32)
    players = state.players
    achievements = raise_flags(
        players.achievements, Achievement.DEFEAT_NECROMANCER, boss_defeated(state)
    )
    return state.replace(
        world=world.replace(boss_timer=timer),
        players=players.replace(achievements=achievements),
    )


def wave_in_progress(state: State) -> jax.Array:
    """() bool: boss-wave mobs may spawn this step (module docstring)."""
    return on_boss_floor(state) & (state.world.boss_timer > 0) & ~boss_defeated(state)


def wave_types(state: State) -> tuple[jax.Array, jax.Array]:
    """() int32 melee and ranged type ids of the current wave: the mobs of floor ``progress``
    (progress 0 zombies and skeletons, 1 orc soldiers and mages, ..., 7 frost trolls and ice
    elementals)."""
    row = jnp.clip(state.world.boss_progress, 0, BOSS_PROGRESS_TO_WIN - 1)
    return jnp.asarray(FLOOR_MELEE_TYPE)[row], jnp.asarray(FLOOR_RANGED_TYPE)[row]


def wave_cells(block: jax.Array, nearest_player_d2: jax.Array) -> jax.Array:
    """(H, W) bool grave tiles at Euclidean distance <= ``BOSS_WAVE_DISTANCE`` of an alive
    player. ``nearest_player_d2`` (H, W) is the squared distance to the nearest alive one."""
    grave = jnp.isin(block, jnp.asarray(GRAVE_BLOCKS, block.dtype))
    return grave & (nearest_player_d2 <= BOSS_WAVE_DISTANCE**2)
