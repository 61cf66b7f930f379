"""``alem_pz.envs.rllib`` without Ray: the observation keys RLlib's masking module reads, the
spaces, and that the renamed observations and masks equal the plain env's."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from alem_pz.envs.rllib import MASK_KEY, OBS_KEY, RLlibObservationKeys, rllib_parallel_env
from tests.pz.conftest import small_kwargs

STEPS = 6


def test_keys_and_spaces_are_what_rllib_reads():
    env = rllib_parallel_env(**small_kwargs(max_steps=20))
    assert (OBS_KEY, MASK_KEY) == ("observations", "action_mask")
    assert env.possible_agents == ["agent_0", "agent_1", "agent_2"]
    inner = env.unwrapped
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space is env.observation_space(agent)  # cached, as PettingZoo requires
        assert isinstance(space, spaces.Dict) and set(space.spaces) == {OBS_KEY, MASK_KEY}
        assert space[OBS_KEY] is inner.observation_space(agent)["observation"]
        assert space[MASK_KEY].dtype == np.int8 and space[MASK_KEY].shape == (
            inner.action_space(agent).n,
        )
        assert env.action_space(agent) is inner.action_space(agent)
    obs, _ = env.reset(seed=3)
    assert env.agents == env.possible_agents
    for agent, o in obs.items():
        assert set(o) == {OBS_KEY, MASK_KEY}
        assert env.observation_space(agent).contains(o)
    env.close()


def test_observations_and_masks_equal_the_plain_env(make_env):
    wrapped = rllib_parallel_env(**small_kwargs(max_steps=20))
    plain = make_env(max_steps=20)  # masks in infos, observations bare
    obs, _ = wrapped.reset(seed=7)
    ref, infos = plain.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(STEPS):
        for agent in plain.agents:
            np.testing.assert_array_equal(obs[agent][OBS_KEY], ref[agent])
            np.testing.assert_array_equal(obs[agent][MASK_KEY], infos[agent]["action_mask"])
            assert obs[agent][MASK_KEY].dtype == np.int8
        actions = {a: int(rng.choice(np.flatnonzero(obs[a][MASK_KEY]))) for a in wrapped.agents}
        obs, rewards, terms, truncs, _ = wrapped.step(actions)
        ref, ref_rewards, ref_terms, ref_truncs, infos = plain.step(actions)
        assert (rewards, terms, truncs) == (ref_rewards, ref_terms, ref_truncs)
    wrapped.close()


def test_render_accepts_the_argument_rllibs_wrapper_passes():
    env = rllib_parallel_env(**small_kwargs())
    assert env.render(None) is None and env.render() is None  # render_mode None


def test_bad_requests_are_named(make_env):
    with pytest.raises(ValueError, match="mask_in_obs=False"):
        rllib_parallel_env(**small_kwargs(mask_in_obs=False))
    with pytest.raises(ValueError, match="obs_type='text'"):
        rllib_parallel_env(**small_kwargs(obs_type="text"))
    with pytest.raises(ValueError, match=r"mask_in_obs=True.*'agent_0'"):
        RLlibObservationKeys(make_env())
    with pytest.raises(ValueError, match="unknown agent 'agent_9'"):
        rllib_parallel_env(**small_kwargs()).observation_space("agent_9")
