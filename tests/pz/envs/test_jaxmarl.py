"""The JaxMARL env (``alem_pz.envs.jaxmarl``): JaxMARL's ``LogWrapper`` and ``vmap`` over it,
auto-reset from the reserve, masks, per-agent info, and the message when JaxMARL is missing."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.testing import SMALL
from alem_pz.envs import jaxmarl as module

HORIZON = 4
N = 3


def test_without_jaxmarl_the_module_imports_and_the_env_says_what_to_install(monkeypatch):
    monkeypatch.setattr(module, "spaces", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[jaxmarl\]"'):
        module.AlemJaxMARL(static=SMALL)


needs_jaxmarl = pytest.mark.jaxmarl  # CI's second stage installs JaxMARL and selects these


def _needs_jaxmarl() -> None:
    pytest.importorskip("jaxmarl", reason="JaxMARL is not installed (pip install -e '.[jaxmarl]')")


def _env(**kwargs):
    _needs_jaxmarl()
    return module.AlemJaxMARL(static=SMALL, max_steps=HORIZON, **kwargs)


def _masked_random(key, avail: dict, agents) -> dict:
    keys = jax.random.split(key, len(agents))
    return {
        a: jax.random.categorical(k, jnp.where(avail[a], 0.0, -jnp.inf)).astype(jnp.int32)
        for k, a in zip(keys, agents, strict=True)
    }


@pytest.fixture(scope="module")
def logged_run():
    """``3 * HORIZON`` steps of N envs under ``LogWrapper``, vmapped, in one jitted scan; the
    env keys and actions of every step are returned with the outputs, to be replayed."""
    _needs_jaxmarl()
    from jaxmarl.wrappers.baselines import LogWrapper

    env = LogWrapper(_env())
    params, static = env._env.params, env._env.static

    def body(state, key):
        k_act, k_env = jax.random.split(key)
        avail = jax.vmap(env.get_avail_actions)(state.env_state)
        actions = jax.vmap(lambda k, m: _masked_random(k, m, env.agents))(
            jax.random.split(k_act, N), avail
        )
        env_keys = jax.random.split(k_env, N)
        obs, state, _, dones, info = jax.vmap(env.step)(env_keys, state, actions)
        after = jax.vmap(env.get_avail_actions)(state.env_state)
        own = jax.vmap(lambda w: alem_core.observe(w, params, static))(state.env_state.world)
        world = state.env_state.world
        return state, (obs, dones, info, after, own, world, env_keys, actions)

    run = jax.jit(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, 3 * HORIZON)))
    starts = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), N))[1]
    return env, starts, run(starts, jax.random.key(1))[1]


@needs_jaxmarl
def test_all_fires_at_max_steps_and_the_next_episode_starts(logged_run):
    env, _, (_, dones, info, _, _, world, _, _) = logged_run
    timestep = world.timestep
    ends = np.asarray(dones["__all__"])  # (T, N)
    expected = (np.arange(1, 3 * HORIZON + 1) % HORIZON == 0)[:, None]
    assert (ends == expected).all()
    for agent in env.agents:
        assert (np.asarray(dones[agent]) == ends).all()
    # truncation, not termination: the episodes hit max_steps with the team alive
    assert np.asarray(info["truncated"])[ends].all() and not np.asarray(info["terminated"]).any()
    assert (np.asarray(timestep)[ends] == 0).all()  # the state returned is the next start
    assert (np.asarray(info["returned_episode_lengths"])[ends] == HORIZON).all()


@needs_jaxmarl
def test_avail_actions_equal_the_step_mask_after_every_step_and_auto_reset(logged_run):
    env, _, (obs, _, info, after, own, _, _, _) = logged_run
    own_obs, own_mask = own
    for i, agent in enumerate(env.agents):
        assert np.array_equal(np.asarray(after[agent]), np.asarray(own_mask[:, :, i]))
        assert np.array_equal(np.asarray(obs[agent]), np.asarray(own_obs[:, :, i]))
    assert not np.asarray(info["illegal_action"]).any()  # masked sampling never breaks it


@needs_jaxmarl
def test_info_leaves_are_per_agent_for_the_baselines_reshape(logged_run):
    env, _, (_, _, info, _, _, _, _, _) = logged_run
    shapes = {
        jax.tree_util.keystr(p): x.shape for p, x in jax.tree_util.tree_leaves_with_path(info)
    }
    assert set(shapes.values()) == {(3 * HORIZON, N, env.num_agents)}, shapes
    for name in ("terminated", "truncated", "illegal_action", "won", "timestep", "alive"):
        assert f"['{name}']" in shapes


@needs_jaxmarl
def test_batched_steps_equal_one_env_at_a_time_across_auto_resets(logged_run):
    """The ``custom_vmap`` rule (swap and regenerate only when some env ended) gives what the
    unbatched step gives: two of the logged envs replayed alone, over two auto-resets."""
    wrapped, starts, (obs, _, _, _, _, world, env_keys, actions) = logged_run
    env = wrapped._env

    def replay(state, keys, acts):
        def body(s, x):
            o, s, *_ = env.step(x[0], s, x[1])
            return s, (o, s.world)

        return jax.lax.scan(body, state, (keys, acts))[1]

    replay = jax.jit(replay)
    for i in (0, N - 1):
        per_env = (starts.env_state, env_keys.T, {a: v.T for a, v in actions.items()})
        alone = replay(*jax.tree.map(lambda x, i=i: x[i], per_env))
        for x, y in zip(jax.tree.leaves(alone), jax.tree.leaves((obs, world)), strict=True):
            if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
                x, y = jax.random.key_data(x), jax.random.key_data(y)
            assert np.array_equal(np.asarray(x), np.asarray(y)[:, i])


@needs_jaxmarl
def test_spaces_size_the_baselines_networks_and_wrong_actions_name_the_shape():
    env = _env(world_state=True)
    space = env.observation_space(env.agents[0])
    d = alem_core.obs_size(SMALL)
    assert space.shape == (d,) and space.shape[0] == d
    assert jnp.zeros((1, 2, space.shape)).shape == (1, 2, d)  # the Hanabi baselines' use
    assert env.action_space(env.agents[0]).n == SMALL.num_actions
    assert env.state_size == SMALL.player_count * d and env.num_allies == SMALL.player_count
    obs, state = jax.eval_shape(env.reset, jax.random.key(0))
    assert obs["world_state"].shape == (SMALL.player_count * d,)
    wrong = {a: jnp.zeros(2, jnp.int32) for a in env.agents}
    with pytest.raises(ValueError, match=r"actions: expected shape \(3,\).*got shape \(3, 2\)"):
        jax.eval_shape(env.step, jax.random.key(0), state, wrong)
