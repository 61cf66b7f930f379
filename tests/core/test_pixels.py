"""Pixel observations (docs/rules/observations.md#pixel-observation): layout, bounds, transforms,
and what light does to them.

One tiny world (16 x 16, one floor, 3 agents). The image of each agent is, top to bottom, the
teammate strip (2 rows of tiles for P = 3), the 9 x 11 map, the 4-row panel, at 10 px a tile:
150 x 110 x 3. Tests compare the map rows only where the panel would blur the effect.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.pixels import pixel_observation, pixel_shape, strip_rows
from tests.core.conftest import SMALL

render = jax.jit(pixel_observation, static_argnums=(2, 3))
T = 10
MAP_ROWS = slice(strip_rows(3) * T, (strip_rows(3) + 9) * T)


@pytest.fixture(scope="module")
def world() -> alem_core.State:
    params = alem_core.make_params("medium")
    _, state = jax.jit(alem_core.reset, static_argnums=2)(jax.random.key(3), params, SMALL)
    return state


def _with(state: alem_core.State, **players) -> alem_core.State:
    return state.replace(players=dataclasses.replace(state.players, **players))


def test_shape_dtype_and_bounds(world):
    image = np.asarray(render(world, None, SMALL, T))
    assert pixel_shape(SMALL) == (150, 110, 3)
    assert image.shape == (3, 150, 110, 3) and image.dtype == np.float32
    assert image.min() >= 0.0 and image.max() <= 1.0
    # Every agent sees something different (its own window and dashboard order).
    assert not np.array_equal(image[0], image[1])


def test_jit_equals_vmap(world):
    params = alem_core.make_params("medium")
    reset = jax.jit(alem_core.reset, static_argnums=2)
    other = reset(jax.random.key(4), params, SMALL)[1]
    batch = jax.tree.map(lambda a, b: jnp.stack([a, b]), world, other)
    batched = jax.jit(jax.vmap(pixel_observation, (0, None, None, None)), static_argnums=(2, 3))
    together = np.asarray(batched(batch, None, SMALL, T))
    np.testing.assert_allclose(together[0], np.asarray(render(world, None, SMALL, T)), atol=1e-6)
    np.testing.assert_allclose(together[1], np.asarray(render(other, None, SMALL, T)), atol=1e-6)


@pytest.mark.slow
def test_eager_equals_jit(world):
    eager = np.asarray(pixel_observation(world, None, SMALL, T))
    np.testing.assert_allclose(eager, np.asarray(render(world, None, SMALL, T)), atol=1e-6)


def test_night_is_darker_on_the_overworld(world):
    day = world.replace(world=world.world.replace(daylight=jnp.float32(1.0)))
    night = world.replace(world=world.world.replace(daylight=jnp.float32(0.0)))
    lit = np.asarray(render(day, None, SMALL, T))[:, MAP_ROWS]
    dark = np.asarray(render(night, None, SMALL, T))[:, MAP_ROWS]
    assert dark.mean() < 0.5 * lit.mean()
    # The panel and strip do not change with the time of day (but for the sun/moon icon).
    full_day = np.asarray(render(day, None, SMALL, T))
    full_night = np.asarray(render(night, None, SMALL, T))
    np.testing.assert_array_equal(full_day[:, : MAP_ROWS.start], full_night[:, : MAP_ROWS.start])


def test_sleeping_halves_the_map(world):
    awake = np.asarray(render(world, None, SMALL, T))[0, MAP_ROWS]
    asleep_state = _with(world, sleeping=world.players.sleeping.at[0].set(True))
    asleep = np.asarray(render(asleep_state, None, SMALL, T))[0, MAP_ROWS]
    # The agent's own tile (centre, row 4, col 5) also gets a Z badge; compare the rest.
    keep = np.ones(asleep.shape[:2], bool)
    keep[4 * T : 5 * T, 5 * T : 6 * T] = False
    np.testing.assert_allclose(asleep[keep], 0.5 * awake[keep], atol=1e-5)


def test_an_open_handover_shows_a_clock(world):
    pos = world.players.pos[0]
    cell = pos + jnp.array([0, 2])  # two cells east of agent 0, inside its view
    ho = world.handovers
    opened = world.replace(
        handovers=ho.replace(
            pos=ho.pos.at[0].set(cell),
            open=ho.open.at[0].set(True),
            deadline=ho.deadline.at[0].set(world.timestep + 10),
        )
    )
    before = np.asarray(render(world, None, SMALL, T))[0, MAP_ROWS]
    after = np.asarray(render(opened, None, SMALL, T))[0, MAP_ROWS]
    tile = (slice(4 * T, 5 * T), slice(7 * T, 8 * T))
    assert np.abs(after[tile] - before[tile]).max() > 0.3
    untouched = np.ones(after.shape[:2], bool)
    untouched[tile] = False
    np.testing.assert_array_equal(after[untouched], before[untouched])
