"""Generated coordination tasks match the spec's probabilities
(docs/rules/coordination.md#synchronous-mining, docs/rules/coordination.md#construction-sites,
docs/rules/difficulty.md#randomised-alpha).

20 seeds per difficulty on the overworld (48 x 48, one floor so generation stays cheap; floor 0
is generated the same way in the 9-floor world). Every count is checked against a binomial
with its own number of trials, within 4 standard deviations of the total over the 20 worlds.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.constants import Block
from alem_core.rules.difficulty import episode_params
from alem_core.rules.tables import COORD_ELIGIBLE
from alem_core.worldgen import generate_world

OVERWORLD = alem_core.StaticParams(map_size=(48, 48), num_levels=1, player_count=3)
SEEDS = 20


@pytest.fixture(scope="module")
def worlds():
    gen = jax.jit(jax.vmap(generate_world, in_axes=(0, None, None)), static_argnums=2)
    keys = jax.random.split(jax.random.key(9999), SEEDS)
    out = {}
    for difficulty in ("none", "easy", "medium", "hard"):
        params = alem_core.make_params(difficulty)
        world = gen(keys, params.as_arrays(), OVERWORLD)
        out[difficulty] = (params, jax.tree.map(np.asarray, world.floors))  # (N, L, H, W) maps
    return out


def within(successes: int, trials: int, p: float) -> bool:
    sd = np.sqrt(max(trials * p * (1 - p), 1e-9))
    return abs(successes - trials * p) <= 4 * sd + 1e-9


def test_none_has_no_tasks_and_no_sites(worlds):
    _, world = worlds["none"]
    assert not world.coord.any() and not world.soft.any()
    assert not (world.block == Block.CONSTRUCTION_SITE).any()


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_mining_task_counts_follow_the_probabilities(worlds, difficulty):
    params, world = worlds[difficulty]
    eligible = COORD_ELIGIBLE[world.block]
    coord, soft = world.coord, world.soft
    tasked = eligible & (coord != 0)
    sync, handover = tasked & (coord > 0), tasked & (coord < 0)
    assert not (~eligible & (coord != 0) & (world.block != Block.CONSTRUCTION_SITE)).any()
    assert within(tasked.sum(), eligible.sum(), params.coordination_probability)
    assert within(handover.sum(), tasked.sum(), params.handover_ratio)
    assert within((soft & sync).sum(), sync.sum(), params.soft_coordination_ratio)
    assert not (soft & handover).any()
    assert within((coord[sync] == 3).sum(), sync.sum(), params.p_max_agents)
    assert set(np.unique(coord[sync])) <= {2, 3}
    windows = -coord[handover]
    assert windows.min() >= params.handover_window_min
    assert windows.max() <= params.handover_window_max
    per_world = tasked.sum(axis=(1, 2, 3))
    assert (per_world > 0).all()  # every one of the 20 worlds has tasks


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_eight_sites_on_the_overworld_away_from_the_border(worlds, difficulty):
    params, world = worlds[difficulty]
    sites = world.block == Block.CONSTRUCTION_SITE
    assert (sites.sum(axis=(1, 2, 3)) == params.num_construction_sites).all()
    rows, cols = np.nonzero(sites)[2:]
    assert rows.min() >= 5 and rows.max() <= 42 and cols.min() >= 5 and cols.max() <= 42
    values = world.coord[sites]
    assert (values != 0).all()
    assert within((values < 0).sum(), values.size, params.handover_ratio)
    site_sync = sites & (world.coord > 0)
    assert within((world.soft & site_sync).sum(), site_sync.sum(), params.soft_construction_ratio)


def test_randomised_alpha_drives_every_derived_parameter():
    params = alem_core.make_params("medium", randomize_alpha=True, alpha_min=0.2, alpha_max=0.85)
    reset = jax.jit(jax.vmap(alem_core.reset, in_axes=(0, None, None)), static_argnums=2)
    tiny = dataclasses.replace(OVERWORLD, map_size=(16, 16))
    _, states = reset(jax.random.split(jax.random.key(1), 16), params.as_arrays(), tiny)
    alphas = np.asarray(states.alpha)
    assert (alphas >= 0.2).all() and (alphas <= 0.85).all() and np.ptp(alphas) > 0.2
    coord = np.asarray(states.world.coord)
    for i, alpha in enumerate(alphas):  # reset generated each world with its own windows
        windows = -coord[i][coord[i] < 0]
        assert windows.min() >= max(3, np.ceil(12 * (1 - alpha) - 1e-4))
        assert windows.max() <= max(6, np.ceil(24 * (1 - alpha) + 1e-4))
    derived = episode_params(params, jnp.float32(0.9))
    assert float(derived.non_specialist_efficiency) == pytest.approx(0.1)
    assert float(derived.soft_solo_fail_prob) == pytest.approx(0.9)
    assert float(derived.p_max_agents) == pytest.approx(0.9)
    assert (int(derived.handover_window_min), int(derived.handover_window_max)) == (3, 6)
    fixed = episode_params(alem_core.make_params("medium"), jnp.float32(0.9))
    assert float(fixed.non_specialist_efficiency) == pytest.approx(0.4)  # not randomised


def test_randomised_alpha_shapes_the_generated_windows():
    low = alem_core.make_params("medium", randomize_alpha=True, alpha_min=0.0, alpha_max=0.01)
    high = low.replace(alpha_min=0.99, alpha_max=1.0)
    gen = jax.jit(generate_world, static_argnums=2)
    key = jax.random.key(3)
    windows = {}
    for name, params in (("low", low), ("high", high)):
        alpha = jnp.float32(params.alpha_min)
        world = gen(key, episode_params(params, alpha), OVERWORLD)
        coord = np.asarray(world.coord)
        windows[name] = -coord[coord < 0]
    assert windows["low"].min() >= 12 and windows["high"].max() <= 6
