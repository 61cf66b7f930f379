"""Invariants over random masked rollouts, and the mask's promise: a masked-out action is a NOOP."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.systems.intrinsics import capacities, start_sleep_and_rest
from alem_core.testing.rollout import compiled, random_rollout

from .conftest import SMALL

PARAMS = alem_core.make_params("medium", shared_reward=False)
CHUNK, CHUNKS = 100, 4


@pytest.fixture(scope="module")
def rollout():
    """Four worlds, 4 x 100 masked random steps; also the states after the first chunk
    (``midway``, while most teams are still alive)."""
    reset, _ = compiled(SMALL)
    run = jax.jit(jax.vmap(lambda k, s: random_rollout(k, s, PARAMS, SMALL, CHUNK)))
    keys = jax.random.split(jax.random.key(21), 4)
    _, states = jax.vmap(lambda k: reset(k, PARAMS))(keys)
    final, chunks, ends = states, [], []
    for i in range(CHUNKS):
        final, traces = run(jax.random.split(jax.random.key(22 + i), 4), final)
        chunks.append(traces)
        ends.append(final)
    midway = ends[0]
    traces = jax.tree.map(lambda *parts: jnp.concatenate(parts, axis=1), *chunks)
    return states, (final, traces), midway


def test_final_states_within_bounds(rollout):
    _, (final, _), _ = rollout
    players = final.players
    for world in range(4):
        p = jax.tree.map(lambda x, w=world: x[w], players)
        caps = capacities(p, SMALL)
        assert (np.asarray(p.inventory) >= 0).all() and (np.asarray(p.inventory) <= 99).all()
        assert (np.asarray(p.health) >= 0).all()
        assert (np.asarray(p.health) <= np.asarray(caps["health"])).all()
        for name in ("food", "drink", "energy", "mana"):
            value = np.asarray(getattr(p, name))
            assert (value >= 0).all() and (value <= np.asarray(caps[name])).all(), name
    for leaf in jax.tree.leaves(final):
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            assert np.isfinite(np.asarray(leaf)).all()


def test_only_a_revive_brings_an_agent_back_and_termination_follows(rollout):
    _, (final, traces), _ = rollout
    alive = np.asarray(traces["alive"])  # (worlds, T, P)
    returns = (alive[:, 1:] & ~alive[:, :-1]).sum(axis=1)  # (worlds, P)
    # Revives are legal (docs/rules/survival.md#death-and-revival); every return to life must be a
    # counted revive (a revived agent may also die again within its revive step, so the count can be
    # larger).
    assert (returns <= np.asarray(final.stats.times_revived)).all()
    terminated = np.asarray(traces["terminated"])
    np.testing.assert_array_equal(terminated[..., 0], ~alive.any(axis=-1))
    mask = np.asarray(traces["mask"])
    dead = ~alive
    assert (mask[dead][:, 1:] == 0).all() and mask[dead][:, 0].all()


def test_rewards_are_finite_and_the_team_makes_progress(rollout):
    _, (final, traces), _ = rollout
    assert np.isfinite(np.asarray(traces["reward"])).all()
    unlocked = np.asarray(final.players.achievements).any(axis=(0, 1))
    assert unlocked[alem_core.Achievement.COLLECT_WOOD]


def test_dtypes_stable(rollout):
    start, (final, _), _ = rollout
    for a, b in zip(jax.tree.leaves(start), jax.tree.leaves(final), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape


@pytest.mark.parametrize("when", ["start", "midway"])
def test_masked_out_actions_change_nothing(rollout, when):
    """From the reset state and from states 200 random steps in (other inventories, mobs,
    handovers and vitals), every action the mask refuses leaves the game state as NOOP does."""
    states, _, midway = rollout
    _, step = compiled(SMALL)
    source = states if when == "start" else midway
    world = int(np.argmax(np.asarray(source.players.alive).sum(axis=1)))  # the liveliest team
    state = jax.tree.map(lambda x: x[world], source)
    assert bool(state.players.alive.any()), "the test needs a team that is still playing"
    mask = np.asarray(alem_core.action_mask(state, PARAMS, SMALL))
    key = jax.random.key(5)
    noop = jnp.zeros(SMALL.player_count, jnp.int32)
    all_actions = []
    for agent in range(SMALL.player_count):
        for action in np.flatnonzero(~mask[agent]):
            all_actions.append(noop.at[agent].set(int(action)))
    assert all_actions, "the test needs at least one masked-out action"
    batch = jnp.stack(all_actions)

    def game_state(actions):
        # Attempt counters are metrics, never read by the rules: a masked GIVE or BUILD is still
        # an attempt. Everything the game reads must stay put.
        after = step(key, state, actions, PARAMS)[1]
        stats = after.stats.replace(give_attempts=jnp.zeros(3, jnp.int32))
        return after.replace(stats=stats, coordination=state.coordination)

    outputs = jax.jit(jax.vmap(game_state))(batch)
    reference = game_state(noop)
    for i in range(batch.shape[0]):
        got = jax.tree.map(lambda x, i=i: x[i], outputs)
        for x, y in zip(jax.tree.leaves(got), jax.tree.leaves(reference), strict=True):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_rest_is_always_offered_but_only_a_hurt_agent_rests(rollout):
    states, _, _ = rollout
    state = jax.tree.map(lambda x: x[0], states)
    players = dataclasses.replace(
        state.players,
        health=jnp.array([5.0, 9.0, 9.0]),
        alive=jnp.ones(3, bool),
        sleeping=jnp.zeros(3, bool),
        resting=jnp.zeros(3, bool),
    )
    state = dataclasses.replace(state, players=players)
    mask = np.asarray(alem_core.action_mask(state, PARAMS, SMALL))
    # docs/rules/observations.md#action-mask: REST is always legal
    assert mask[:, alem_core.Action.REST].all()
    rest = jnp.full(3, alem_core.Action.REST, jnp.int32)
    after = start_sleep_and_rest(state, rest, None, None, SMALL)
    np.testing.assert_array_equal(after.players.resting, [True, False, False])
