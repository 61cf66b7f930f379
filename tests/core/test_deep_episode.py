"""End to end through the deep world: a scripted god-mode team goes down all eight ladders and
defeats the Necromancer; the episode ends as a win with every ENTER_* achievement.

The script puts the team on each floor's down ladders and credits the floor's kills (the
floor-clearing fights are tested elsewhere); everything else is the real step: the floor
change, ENTER_* and xp, the boss waves, fighting the wave mobs, the hits on the boss, the win.
Ranged slots are off so every wave mob comes to melee range, where the scripted team fights.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.constants import Achievement, Action, Block
from alem_core.rules.boss_tables import BOSS_FLOOR
from alem_core.rules.tables import FLOOR_ENTER_ACHIEVEMENT, MONSTERS_TO_CLEAR_FLOOR, WALKABLE
from alem_core.scoring.score import score
from alem_core.testing import small

STATIC = small(num_levels=9, max_ranged_mobs=0)
PARAMS = alem_core.make_params("medium", god_mode=True)
TOWARD = {(0, -1): Action.LEFT, (0, 1): Action.RIGHT, (-1, 0): Action.UP, (1, 0): Action.DOWN}
FACED = {1: (0, -1), 2: (0, 1), 3: (-1, 0), 4: (1, 0)}
WALKABLE_IDS = set(np.flatnonzero(WALKABLE).tolist())


def _fight_or_hit(state) -> np.ndarray:
    """Each player goes for the nearest melee mob, or the Necromancer once no mob is left:
    beside a target and facing it, Do; beside it but facing away, step back (the next move
    toward it turns the player to face it: god mode walks through everything, so turning in
    place is not available; at the map's edge the step away goes sideways); otherwise a step
    toward the nearest target."""
    players = jax.device_get(state.players)
    melee = jax.device_get(state.mobs.melee)
    block = np.asarray(state.world.block)
    here = zip(melee.pos, melee.alive, strict=True)  # the team's floor, the boss floor
    targets = [tuple(p) for p, alive in here if alive]
    if not targets:
        targets = [tuple(c) for c in np.argwhere(block == Block.NECROMANCER)]
    actions = []
    for pos, facing in zip(players.pos, players.facing, strict=True):
        beside = [d for d in TOWARD if tuple(pos + d) in targets]
        if FACED[int(facing)] in beside:
            actions.append(Action.DO)
        elif beside:
            actions.append(_step_away(pos, beside[0]))
        else:
            actions.append(_toward_nearest(pos, targets))
    return np.asarray(actions, np.int32)


def _step_away(pos: np.ndarray, toward: tuple[int, int]) -> int:
    """A move away from the target beside ``pos`` in direction ``toward``: back, or sideways
    where back is off the map (a move off the map fails, and the player would never turn)."""
    back = (-toward[0], -toward[1])
    sideways = [(toward[1], toward[0]), (-toward[1], -toward[0])]
    for step in (back, *sideways):
        cell = np.add(pos, step)
        if (cell >= 0).all() and (cell < STATIC.map_size).all():
            return TOWARD[step]
    return Action.NOOP


def _toward_nearest(pos: np.ndarray, targets: list[tuple[int, int]]) -> int:
    """A move along the larger gap to the nearest target (Manhattan)."""
    gap = min((np.subtract(t, pos) for t in targets), key=lambda g: abs(g).sum())
    axis = 0 if abs(gap[0]) >= abs(gap[1]) else 1
    step = [0, 0]
    step[axis] = int(np.sign(gap[axis]))
    return TOWARD.get(tuple(step), Action.NOOP)


def _beside_necromancers(block: np.ndarray) -> np.ndarray:
    """(3, 2) distinct walkable cells, each next to a Necromancer."""
    cells = []
    for r, c in np.argwhere(block == Block.NECROMANCER):
        for d in TOWARD:
            cell = (r + d[0], c + d[1])
            if _block_at(block, np.array(cell)) in WALKABLE_IDS and cell not in cells:
                cells.append(cell)
                break
    return np.asarray(cells, np.int32)


def _block_at(block: np.ndarray, cell: np.ndarray) -> int:
    inside = (0 <= cell[0] < block.shape[0]) and (0 <= cell[1] < block.shape[1])
    return int(block[cell[0], cell[1]]) if inside else -1


@pytest.fixture(scope="module")
def episode():
    reset = jax.jit(alem_core.reset, static_argnums=2)
    step = jax.jit(alem_core.step, static_argnums=4)
    key = jax.random.key(7)
    _, state = reset(key, PARAMS, STATIC)
    floors = []
    for floor in range(BOSS_FLOOR):  # down every ladder
        world = state.world
        kills = world.kills.at[floor].max(MONSTERS_TO_CLEAR_FLOOR)
        pos = world.ladders[floor, 0]
        state = state.replace(
            world=world.replace(kills=kills), players=state.players.replace(pos=pos)
        )
        actions = jnp.array([Action.DESCEND, Action.NOOP, Action.NOOP], jnp.int32)
        key, sub = jax.random.split(key)
        _, state, *_ = step(sub, state, actions, PARAMS, STATIC)
        floors.append(int(state.world.floor))
    beside = _beside_necromancers(np.asarray(state.world.block))
    state = state.replace(players=state.players.replace(pos=jnp.asarray(beside)))
    info, terminated, steps = {}, np.zeros(3, bool), 0
    while not terminated.all() and steps < 600:
        key, sub = jax.random.split(key)
        _, state, _, terminated, _, info = step(sub, state, _fight_or_hit(state), PARAMS, STATIC)
        terminated, steps = np.asarray(terminated), steps + 1
    return floors, state, info, terminated, steps


def test_the_team_goes_down_every_floor(episode):
    floors, state, *_ = episode
    assert floors == list(range(1, BOSS_FLOOR + 1))
    entered = np.asarray(state.players.achievements)[:, FLOOR_ENTER_ACHIEVEMENT[1:]]
    assert entered.all()  # every ENTER_* for every player
    np.testing.assert_array_equal(state.players.xp, [8, 8, 8])  # +1 per new floor
    assert int(state.world.deepest) == BOSS_FLOOR


def test_the_necromancer_falls_and_the_episode_is_won(episode):
    _, state, info, terminated, steps = episode
    assert terminated.all() and bool(info["won"]), f"not won after {steps} steps"
    achievements = np.asarray(state.players.achievements)
    assert achievements[:, Achievement.DEFEAT_NECROMANCER].all()
    assert achievements[:, Achievement.DAMAGE_NECROMANCER].any()
    assert (np.asarray(score(state, STATIC)["Progression/won"]) == 1.0).all()
