"""Mob spawning (docs/rules/mobs.md#behaviour): distance bands, tiles, chances, caps, floors
(statistical)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Block
from alem_core.params import Params
from alem_core.pipeline import step_draws
from alem_core.rules.tables import MOB_HEALTH
from alem_core.state import State
from alem_core.systems.spawning import spawn_mobs
from alem_core.testing import hand_built_state, small

STATIC = small(num_levels=9)
CLASSES = ("melee", "passive", "ranged")
TRIALS = 1000
STEPS = 300
PLAYERS = [(7, 7), (7, 8), (0, 15)]


@pytest.fixture(scope="module")
def trials():
    """``spawn_mobs`` on one state for many keys at once (independent trials)."""
    one = lambda k, s, p, st: spawn_mobs(s, None, step_draws(k, st), p, st)  # noqa: E731
    return jax.jit(jax.vmap(one, in_axes=(0, None, None, None)), static_argnums=3)


@pytest.fixture(scope="module")
def accumulate():
    """``spawn_mobs`` run ``STEPS`` times in a row; returns each step's live mobs per class."""

    def run(key, state, params, static):
        def body(s, k):
            s = spawn_mobs(s, None, step_draws(k, static), params, static)
            return s, [(getattr(s.mobs, n).alive, getattr(s.mobs, n).pos) for n in CLASSES]

        return jax.lax.scan(body, state, jax.random.split(key, STEPS))

    return jax.jit(run, static_argnums=3)


def mixed_map() -> np.ndarray:
    """16 x 16 floor of grass, path, sand, water, stone and trees (fixed seed)."""
    rng = np.random.default_rng(0)
    choices = [Block.GRASS, Block.PATH, Block.SAND, Block.WATER, Block.STONE, Block.TREE]
    blocks = rng.choice(np.array(choices, np.int32), size=STATIC.map_size)
    for r, c in PLAYERS:
        blocks[r, c] = Block.GRASS
    return blocks


def base_state(floor: int = 0, blocks: np.ndarray | None = None, **world) -> State:
    """Players at ``PLAYERS`` (the third one dead), no mobs, the team on ``floor``."""
    state = hand_built_state([], STATIC, positions=PLAYERS)
    players = state.players
    players = players.replace(
        alive=players.alive.at[2].set(False), health=players.health.at[2].set(0.0)
    )
    grid = mixed_map() if blocks is None else blocks
    w = state.world
    w = w.replace(block=jnp.asarray(grid, w.block.dtype), floor=jnp.int32(floor))
    w = w.replace(**{k: jnp.asarray(v, getattr(w, k).dtype) for k, v in world.items()})
    return state.replace(players=players, world=w)


def nearest_alive(cells: np.ndarray) -> np.ndarray:
    """Euclidean distance from cells (N, 2) to the nearest alive player (players 0 and 1)."""
    alive = np.array(PLAYERS[:2])
    return np.sqrt(((cells[:, None, :] - alive[None]) ** 2).sum(-1)).min(1)


@pytest.fixture(scope="module")
def day_trials(trials):
    keys = jax.random.split(jax.random.key(0), TRIALS)
    return trials(keys, base_state(), Params(mob_health_multiplier=1.2), STATIC)


@pytest.mark.parametrize(("name", "lo"), [("passive", 3), ("melee", 9), ("ranged", 9)])
def test_spawns_in_band_on_spawn_tiles(day_trials, name, lo):
    ents = getattr(day_trials.mobs, name)
    alive = np.asarray(ents.alive)  # (trials, slots) on the team's floor
    assert not alive[:, 1:].any()  # one mob per class, first free slot
    cells = np.asarray(ents.pos[:, 0])[alive[:, 0]]
    assert len(cells) > 0
    dist = nearest_alive(cells)
    assert (dist > lo).all() and (dist < 14).all()
    blocks = mixed_map()[cells[:, 0], cells[:, 1]]
    assert np.isin(blocks, [Block.GRASS, Block.PATH]).all()
    assert not any(tuple(c) in PLAYERS for c in cells.tolist())


def test_daytime_chances_and_health(day_trials):
    rate = {n: float(getattr(day_trials.mobs, n).alive[:, 0].mean()) for n in CLASSES}
    assert 0.24 < rate["passive"] < 0.36  # 0.1 x P
    assert 0.03 < rate["melee"] < 0.09  # 0.02 x P (floor cleared: kills 10 >= 8)
    assert 0.11 < rate["ranged"] < 0.19  # 0.05 x P
    passive = day_trials.mobs.passive
    health = np.asarray(passive.health[:, 0])[np.asarray(passive.alive[:, 0])]
    np.testing.assert_allclose(health, MOB_HEALTH[1, 0] * 1.2, rtol=1e-6)


def test_night_and_uncleared_floor_raise_hostile_chances(trials):
    keys = jax.random.split(jax.random.key(1), TRIALS)
    night = trials(keys, base_state(daylight=0.0), Params(), STATIC)
    assert 0.30 < float(night.mobs.melee.alive[:, 0].mean()) < 0.42  # (0.02 + 0.1) x 3
    fresh = trials(keys, base_state(kills=np.zeros(9, np.int32)), Params(), STATIC)
    assert 0.13 < float(fresh.mobs.melee.alive[:, 0].mean()) < 0.23  # 0.02 x 3 x 3
    assert 0.39 < float(fresh.mobs.ranged.alive[:, 0].mean()) < 0.51  # 0.05 x 3 x 3


def test_existing_mobs_keep_their_slot_cell_and_elite_roll(trials):
    state = base_state(kills=np.zeros(9, np.int32), daylight=0.0)
    melee = state.mobs.melee
    melee = melee.replace(
        alive=melee.alive.at[0].set(True),
        pos=melee.pos.at[0].set(jnp.array([0, 0])),
        elite=melee.elite.at[1].set(True),
        hard=melee.hard.at[1].set(True),
        required=melee.required.at[1].set(3),
    )
    state = state.replace(mobs=state.mobs.replace(melee=melee))
    out = trials(jax.random.split(jax.random.key(2), TRIALS), state, Params(), STATIC).mobs.melee
    spawned = np.asarray(out.alive[:, 1])
    assert spawned.mean() > 0.2 and np.asarray(out.alive[:, 0]).all()
    assert not np.asarray(out.alive[:, 2:]).any()
    cells = np.asarray(out.pos[:, 1])[spawned]
    assert not (cells == 0).all(axis=1).any()
    assert np.asarray(out.elite[:, 1]).all() and np.asarray(out.hard[:, 1]).all()
    assert (np.asarray(out.required[:, 1]) == 3).all()


def _counts(history) -> dict[str, np.ndarray]:
    return {n: np.asarray(alive).sum(-1) for n, (alive, _) in zip(CLASSES, history, strict=True)}


def _assert_distinct_cells(history) -> None:
    alive = np.concatenate([np.asarray(a) for a, _ in history], axis=1)
    pos = np.concatenate([np.asarray(p) for _, p in history], axis=1)
    for step in range(0, STEPS, 10):
        cells = [tuple(c) for c in pos[step][alive[step]].tolist()]
        assert len(cells) == len(set(cells))
        assert not set(cells) & set(PLAYERS)


def test_caps_on_the_overworld(accumulate):
    state = base_state(blocks=np.full(STATIC.map_size, Block.GRASS, np.int32))
    state = state.replace(world=state.world.replace(kills=jnp.zeros(9, jnp.int32)))
    _, history = accumulate(jax.random.key(3), state, Params(), STATIC)
    counts = _counts(history)
    assert counts["passive"].max() == 9 and counts["melee"].max() == 9
    assert counts["ranged"].max() == 6
    _assert_distinct_cells(history)


def test_dungeon_caps(accumulate):
    state = base_state(floor=1, blocks=np.full(STATIC.map_size, Block.PATH, np.int32))
    final, history = accumulate(jax.random.key(4), state, Params(), STATIC)
    counts = _counts(history)
    assert counts["melee"].max() == 3 and counts["ranged"].max() == 2
    assert counts["passive"].max() == 9
    assert (np.asarray(final.mobs.melee.kind)[np.asarray(final.mobs.melee.alive)] == 2).all()
    assert not np.asarray(final.all_mobs().melee.alive[0]).any()  # other floors untouched


def test_deep_things_spawn_on_water_only(accumulate):
    blocks = np.full(STATIC.map_size, Block.GRASS, np.int32)
    blocks[:, ::2] = Block.WATER
    state = base_state(floor=5, blocks=blocks)
    _, history = accumulate(jax.random.key(5), state, Params(), STATIC)
    ranged_alive, ranged_pos = (np.asarray(x) for x in history[2])
    cells = ranged_pos[ranged_alive]
    assert len(cells) > 0 and (blocks[cells[:, 0], cells[:, 1]] == Block.WATER).all()
    melee_alive, melee_pos = (np.asarray(x) for x in history[0])
    cells = melee_pos[melee_alive]
    assert len(cells) > 0 and (blocks[cells[:, 0], cells[:, 1]] == Block.GRASS).all()


@pytest.mark.parametrize(("floor", "quiet"), [(7, ("passive",)), (8, CLASSES)])
def test_floors_without_spawns(accumulate, floor, quiet):
    state = base_state(floor=floor, blocks=np.full(STATIC.map_size, Block.GRASS, np.int32))
    _, history = accumulate(jax.random.key(6), state, Params(), STATIC)
    counts = _counts(history)
    for name in quiet:
        assert counts[name].max() == 0


@pytest.mark.slow  # eager op-by-op dispatch compiles each primitive once
def test_jit_matches_eager():
    state = base_state(kills=np.zeros(9, np.int32), daylight=0.2)
    key = jax.random.key(9)
    eager = spawn_mobs(state, None, step_draws(key, STATIC), Params(), STATIC)
    jitted = jax.jit(
        lambda k, s, p, st: spawn_mobs(s, None, step_draws(k, st), p, st), static_argnums=3
    )(key, state, Params(), STATIC)
    for a, b in zip(jax.tree.leaves(eager), jax.tree.leaves(jitted), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
