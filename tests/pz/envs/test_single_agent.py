"""``gymnasium.make("alem/Coop-v0")``: the team env (one controller for all P agents), checked by
Gymnasium's own ``check_env`` and vectorized by its ``sync`` and ``async`` modes."""

from __future__ import annotations

import warnings

import gymnasium
import jax
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import alem_pz
from alem_pz.envs.single_agent import AlemTeamEnv
from tests.pz.conftest import SMALL, small_kwargs

HORIZON = 4


def _make(**overrides):
    return gymnasium.make("alem/Coop-v0", **small_kwargs(max_steps=HORIZON, **overrides))


def _legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal id per row of a (..., A) mask."""
    flat = mask.reshape(-1, mask.shape[-1])
    return np.array([rng.choice(np.flatnonzero(m)) for m in flat]).reshape(mask.shape[:-1])


def test_gymnasium_make_gives_a_team_env_that_passes_check_env():
    env = _make()
    assert isinstance(env.unwrapped, AlemTeamEnv)
    assert isinstance(env.action_space, gymnasium.spaces.MultiDiscrete)
    assert env.action_space.shape == (3,) and (env.action_space.nvec == SMALL.num_actions).all()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    assert not [w for w in caught if "alem" in str(w.filename)], caught


def test_team_episode_equals_the_parallel_env_episode():
    env = _make()
    twin = alem_pz.parallel_env(**small_kwargs(max_steps=HORIZON))
    obs, info = env.reset(seed=7)
    twin_obs, _ = twin.reset(seed=7)
    np.testing.assert_array_equal(obs, np.stack([twin_obs[a] for a in twin.agents]))
    rng, steps, done = np.random.default_rng(0), 0, False
    while not done:
        action = _legal(info["action_mask"], rng)
        assert env.unwrapped.action_masks().reshape(3, -1)[np.arange(3), action].all()
        obs, reward, term, trunc, info = env.step(action)
        t_obs, t_rew, *_ = twin.step({a: int(action[i]) for i, a in enumerate(twin.agents)})
        np.testing.assert_array_equal(obs, np.stack([t_obs[a] for a in t_obs]))
        # With shared rewards (the default) every agent already holds the team's sum.
        shared = env.unwrapped.team.params.shared_reward
        team_reward = next(iter(t_rew.values())) if shared else sum(t_rew.values())
        assert reward == pytest.approx(team_reward)
        done, steps = term or trunc, steps + 1
        assert info["score"].shape == (3, len(env.unwrapped.score_keys))
        assert info["score"].any() == done and info["cooperation"].shape == (3, 16)
    assert trunc and steps == HORIZON
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(action)


def test_bad_input_names_the_problem():
    env = _make(strict_actions=True)
    _, info = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        env.unwrapped.step(np.zeros(2, np.int64))
    illegal = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*'agent_2'"):
        env.unwrapped.step(np.array([0, 0, illegal]))
    with pytest.raises(ValueError, match="obs_type"):
        _make(obs_type="pixels")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_sync_and_async_vectorization_run_across_episode_ends(mode, monkeypatch):
    # async: fresh "spawn" workers (forking a process that runs JAX can deadlock); they read
    # the suite's compilation cache through the environment, so they load what we compiled.
    kwargs = {"context": "spawn"} if mode == "async" else {}
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", jax.config.jax_compilation_cache_dir)
    monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    envs = gymnasium.make_vec(
        "alem/Coop-v0",
        num_envs=2,
        vectorization_mode=mode,
        vector_kwargs=kwargs,
        **small_kwargs(max_steps=HORIZON),
    )
    try:
        obs, infos = envs.reset(seed=1)
        assert obs.shape == (2, 3, envs.single_observation_space.shape[1])
        assert infos["action_mask"].shape == (2, 3, SMALL.num_actions)
        rng, ends = np.random.default_rng(1), 0
        for _ in range(2 * HORIZON + 1):
            actions = _legal(infos["action_mask"], rng)
            obs, rewards, _, truncs, infos = envs.step(actions)
            assert envs.observation_space.contains(obs) and rewards.shape == (2,)
            ends += int(truncs.sum())
        assert ends == 4  # both envs, two episodes each
    finally:
        envs.close()
