"""Every mob kind's movement permission (docs/rules/mobs.md#mob-kinds): land, flying, amphibious,
aquatic.

A mob stands on grass with water to its north, lava to its south, stone to its west and grass
to its east, the team far away; 64 independent steps show every cell it can move to.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from alem_core.constants import Block, MobClass
from alem_core.params import Params
from alem_core.pipeline import step_draws
from alem_core.systems.mobs import update_mobs
from alem_core.testing import SMALL, hand_built_state

from .mob_states import place

STATIC = SMALL
PARAMS = Params(mob_despawn_distance=100)
START = (8, 8)
NEIGHBOURS = {"water": (7, 8), "lava": (9, 8), "stone": (8, 7), "grass": (8, 9)}
TERRAIN = {"water": Block.WATER, "lava": Block.LAVA, "stone": Block.STONE, "grass": Block.GRASS}

LAND, FLY, SWIM, AQUATIC = {"grass"}, {"grass", "water", "lava"}, {"grass", "water"}, {"water"}
KINDS = [
    # (class, type id, name, cells it may enter)
    *[(MobClass.MELEE, t, n, LAND) for t, n in enumerate(["zombie", "gnome warrior", "orc"])],
    (MobClass.MELEE, 3, "lizard", SWIM),
    *[(MobClass.MELEE, t, n, LAND) for t, n in [(4, "knight"), (5, "troll"), (6, "pigman")]],
    (MobClass.MELEE, 7, "frost troll", LAND),
    (MobClass.PASSIVE, 0, "cow", LAND),
    (MobClass.PASSIVE, 1, "bat", FLY),
    (MobClass.PASSIVE, 2, "snail", LAND),
    *[(MobClass.RANGED, t, n, LAND) for t, n in [(0, "skeleton"), (1, "archer"), (2, "mage")]],
    *[(MobClass.RANGED, t, n, LAND) for t, n in [(3, "kobold"), (4, "knight archer")]],
    (MobClass.RANGED, 5, "deep thing", AQUATIC),
    (MobClass.RANGED, 6, "fire elemental", FLY),
    (MobClass.RANGED, 7, "ice elemental", FLY),
]


@pytest.fixture(scope="module")
def moves():
    """Where each kind's mob was after one update, over 64 keys: {name: set of cell names}."""
    step = jax.jit(
        jax.vmap(
            lambda k, s, p, st: update_mobs(s, None, step_draws(k, st), p, st),
            in_axes=(0, None, None, None),
        ),
        static_argnums=3,
    )
    base = hand_built_state([], STATIC, PARAMS, positions=[(0, 0), (0, 1), (1, 0)])
    grid = base.world.block
    for name, cell in NEIGHBOURS.items():
        grid = grid.at[cell].set(TERRAIN[name])
    base = base.replace(world=base.world.replace(block=grid))
    seen = {}
    for mob_class, kind, name, _ in KINDS:
        state = place(base, mob_class, 0, START, kind=kind, health=50.0)
        out = step(jax.random.split(jax.random.key(kind), 64), state, PARAMS, STATIC)
        ents = getattr(out.mobs, ("melee", "passive", "ranged")[mob_class])
        cells = {tuple(p) for p in np.asarray(ents.pos[:, 0])}
        seen[name] = {n for n, c in NEIGHBOURS.items() if c in cells}
    return seen


@pytest.mark.parametrize(("mob_class", "kind", "name", "allowed"), KINDS)
def test_each_kind_moves_only_where_it_may(moves, mob_class, kind, name, allowed):
    assert moves[name] <= allowed, f"{name} entered {moves[name] - allowed}"
    assert moves[name], f"{name} never moved in 64 steps"
    if allowed == FLY:
        assert {"water", "lava"} <= moves[name], f"{name} flies over water and lava"
