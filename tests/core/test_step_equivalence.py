"""The step optimised for CPU speed gives the same bits as the reference step.

Why a reference implementation kept in the tests rather than stored hashes or golden arrays:
XLA may compile the same program differently on another version or CPU, so a golden file
would fail for reasons unrelated to the rewrite, while both the optimised and the reference
stages run here on the same XLA. ``reference_stages.py`` keeps each optimised stage in its
previous, plain form; the tests swap those into ``pipeline.PIPELINE`` and compare:
* the whole step over masked random rollouts (obs, rewards, flags, action masks and every
  state leaf after every step), two seeds, a 16 x 16 map with two floors;
* each optimised stage alone on many (state, key) pairs of freshly reset worlds, which
  exercises it far more often than a short episode does (e.g. spawns) and compiles no whole
  step, and checks that the case it changes actually occurred, so it cannot pass vacuously.
The whole-step comparison is marked slow (two full-step compiles); the stage ones are fast.
Equality is bitwise (float32 compared as their bit patterns, so -0.0 differs from 0.0).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core import api, pipeline
from alem_core.api import reset
from alem_core.observation.masking import action_mask
from alem_core.params import make_params
from alem_core.testing import small
from alem_core.testing.rollout import random_legal_actions
from tests.core.reference_stages import STAGES

STATIC = small(num_levels=2)
PARAMS = make_params("medium").as_arrays()
STEPS = 24
SEEDS = (0, 1)


def _reference_pipeline() -> tuple[pipeline.Stage, ...]:
    return tuple(stage._replace(fn=STAGES.get(stage.name, stage.fn)) for stage in pipeline.PIPELINE)


@functools.cache
def _rollouts(reference: bool):
    """Every step's (obs, state, reward, terminated, truncated, mask) of a masked random
    rollout for each seed of ``SEEDS`` (leading axes: seed, step), with the live stages or,
    if ``reference``, those of ``reference_stages`` swapped into ``pipeline.PIPELINE``."""

    def body(carry, key):
        state, mask = carry
        k_act, k_step = jax.random.split(key)
        actions = random_legal_actions(k_act, mask)
        obs, state, reward, term, trunc, info = api.step(k_step, state, actions, PARAMS, STATIC)
        mask = info["action_mask"]
        return (state, mask), (obs, state, reward, term, trunc, mask)

    def run(key):
        _, state = reset(key, PARAMS, STATIC)
        mask = action_mask(state, PARAMS, STATIC)
        keys = jax.random.split(jax.random.fold_in(key, 1), STEPS)
        return jax.lax.scan(body, (state, mask), keys)[1]

    live = pipeline.PIPELINE
    pipeline.PIPELINE = _reference_pipeline() if reference else live
    try:  # the swap only matters while tracing
        keys = jnp.stack([jax.random.key(seed) for seed in SEEDS])
        return jax.device_get(jax.jit(jax.vmap(run))(keys))
    finally:
        pipeline.PIPELINE = live


def _assert_same_bits(fast, slow) -> None:
    paths = jax.tree_util.tree_flatten_with_path(fast)[0]
    for (path, a), b in zip(paths, jax.tree.leaves(slow), strict=True):
        a, b = np.asarray(a), np.asarray(b)
        same = a.shape == b.shape and a.tobytes() == b.tobytes()
        assert same, f"{jax.tree_util.keystr(path)} differs from the reference step"


@pytest.mark.slow  # two full-step compiles: about 1-3 min on the shared 2-core machine
def test_step_matches_reference_step():
    _assert_same_bits(_rollouts(reference=False), _rollouts(reference=True))


def _fresh_states(count: int):
    """``count`` freshly reset worlds (batched): varied maps, players and mobs, without
    compiling the whole step."""
    keys = jax.random.split(jax.random.key(7), count)
    return jax.jit(jax.vmap(lambda k: reset(k, PARAMS, STATIC)[1]))(keys)


def test_spawning_matches_reference_on_many_draws():
    states = _fresh_states(16)
    n = states.timestep.shape[0]
    draws = 16
    keys = jax.random.split(jax.random.key(5), n * draws).reshape(n, draws)
    fast_stage = next(s.fn for s in pipeline.PIPELINE if s.name == "spawning")

    def both(state, key):
        args = (state, None, pipeline.step_draws(key, STATIC), PARAMS, STATIC)
        return fast_stage(*args), STAGES["spawning"](*args)

    per_state = jax.vmap(both, in_axes=(None, 0))
    fast, slow = jax.device_get(jax.jit(jax.vmap(per_state))(states, keys))
    _assert_same_bits(fast, slow)

    def live(mobs):
        return sum(e.alive.sum(axis=-1) for e in (mobs.melee, mobs.passive, mobs.ranged))

    spawned = live(fast.mobs) - live(states.mobs)[:, None]
    assert (spawned > 0).sum() > 0, "no spawn happened: the comparison would be vacuous"
    assert (spawned > 1).sum() > 0, "never two classes in one step: avoidance untested"
