"""Mobs spawned on every floor of the default world follow the floor's spawn table
(docs/rules/index.md docs/rules/world.md#floors, docs/rules/mobs.md#behaviour): the team is moved to
each floor and left standing for 120 steps."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.constants import Action
from alem_core.rules.boss_tables import BOSS_FLOOR
from alem_core.rules.tables import (
    FLOOR_MELEE_TYPE,
    FLOOR_PASSIVE_CHANCE,
    FLOOR_PASSIVE_TYPE,
    FLOOR_RANGED_TYPE,
)
from alem_core.testing.rollout import compiled

STATIC = alem_core.StaticParams()  # 48 x 48, nine floors, P = 3
PARAMS = alem_core.make_params("medium")
STEPS = 120
CLASSES = {"melee": FLOOR_MELEE_TYPE, "passive": FLOOR_PASSIVE_TYPE, "ranged": FLOOR_RANGED_TYPE}


@pytest.fixture(scope="module")
def spawned():
    """{floor: {class: set of type ids seen alive on the floor}} over 120 idle steps."""
    reset, step = compiled(STATIC)
    _, start = reset(jax.random.key(1), PARAMS)
    # Strongly typed int32, as the other default-world tests pass: an array filled from the
    # IntEnum is weakly typed in JAX, and the step would compile a second time for it.
    idle = np.full(STATIC.player_count, Action.NOOP, np.int32)
    seen = {}
    for floor in range(1, BOSS_FLOOR):
        state = start.change_floor(jnp.int32(floor))
        state = state.replace(players=state.players.replace(pos=state.world.ladders[floor, 1]))
        kinds = {name: set() for name in CLASSES}
        for t in range(STEPS):
            _, state, *_ = step(jax.random.key(100 * floor + t), state, idle, PARAMS)
            for name in CLASSES:
                ents = getattr(state.mobs, name)
                alive = np.asarray(ents.alive)
                kinds[name] |= set(np.asarray(ents.kind)[alive].tolist())
        seen[floor] = kinds
    return seen


@pytest.mark.parametrize("floor", range(1, BOSS_FLOOR))
def test_only_the_floors_own_kinds_spawn(spawned, floor):
    for name, table in CLASSES.items():
        assert spawned[floor][name] <= {int(table[floor])}, (floor, name, spawned[floor][name])


def test_mobs_do_spawn_on_the_deep_floors(spawned):
    passive = [f for f in spawned if FLOOR_PASSIVE_CHANCE[f] > 0]
    assert sum(bool(spawned[f]["passive"]) for f in passive) >= len(passive) // 2
    hostile = sum(bool(spawned[f]["melee"] | spawned[f]["ranged"]) for f in spawned)
    assert hostile >= 4, spawned
