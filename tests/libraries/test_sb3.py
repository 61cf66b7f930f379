"""Stable-Baselines3: ``alem_pz.envs.sb3.make_vec_env`` is an SB3 ``VecEnv`` with SB3's auto-reset
convention, ``VecMonitor``-format episode statistics and ``action_masks()`` for
``sb3_contrib.MaskablePPO`` (docs/libraries/sb3.md)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip(
    "stable_baselines3", reason="stable-baselines3 is not installed (pip install -e '.[rllibs]')"
)

import gymnasium
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

import alem_pz.envs.sb3

from .conftest import run_snippet, small

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)

HORIZON = 4


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_auto_reset_in_the_same_step_with_no_spurious_transition():
    """The SB3 env equals ``make_vec`` with its NEXT_STEP reset call folded into the ending step."""
    env = alem_pz.envs.sb3.make_vec_env(2, **small(max_steps=HORIZON))
    assert isinstance(env, VecEnv) and env.num_envs == 6
    ref = gymnasium.make_vec("alem/Coop-v0", num_envs=2, **small(max_steps=HORIZON))
    env.seed(3)
    obs = env.reset()
    ref_obs, ref_infos = ref.reset(seed=3)
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(0)
    for t in range(2 * HORIZON):
        actions = _legal(env.action_masks(), rng)
        np.testing.assert_array_equal(env.action_masks(), ref_infos["action_mask"].astype(bool))
        obs, rewards, dones, infos = env.step(actions)
        ref_obs, ref_rewards, _, _, ref_infos = ref.step(actions)
        np.testing.assert_array_equal(rewards, ref_rewards)
        assert dones.all() == ((t + 1) % HORIZON == 0) and dones.dtype == np.bool_
        if dones.all():
            for k, info in enumerate(infos):
                np.testing.assert_array_equal(info["terminal_observation"], ref_obs[k])
                assert info["TimeLimit.truncated"] and info["episode"]["l"] == HORIZON
                np.testing.assert_array_equal(info["score"], ref_infos["score"][k])
            ref_obs, _, _, _, ref_infos = ref.step(np.zeros(6, np.int64))  # ref's reset call
        else:
            assert infos == [{}] * 6
        np.testing.assert_array_equal(obs, ref_obs)


def test_vec_monitor_reports_the_same_episodes():
    env = alem_pz.envs.sb3.make_vec_env(2, **small(max_steps=HORIZON))
    monitored = VecMonitor(alem_pz.envs.sb3.make_vec_env(2, **small(max_steps=HORIZON)))
    env.seed(5)
    monitored.seed(5)
    env.reset(), monitored.reset()
    rng = np.random.default_rng(1)
    for _ in range(HORIZON):
        actions = _legal(env.action_masks(), rng)
        _, _, _, infos = env.step(actions)
        _, _, _, m_infos = monitored.step(actions)
    for ours, theirs in zip(infos, m_infos, strict=True):
        assert set(ours["episode"]) == {"r", "l", "t"}
        assert ours["episode"]["r"] == pytest.approx(theirs["episode"]["r"], abs=1e-5)
        assert ours["episode"]["l"] == theirs["episode"]["l"] == HORIZON


def test_masks_through_sb3_contrib_and_strict_mode():
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = alem_pz.envs.sb3.make_vec_env(2, **small(max_steps=HORIZON, strict_actions=True))
    env.reset()
    assert is_masking_supported(env) and is_masking_supported(VecMonitor(env))
    masks = get_action_masks(VecMonitor(env))
    np.testing.assert_array_equal(masks, env.action_masks())
    illegal = int(np.flatnonzero(~masks[1])[0])
    actions = np.zeros(6, np.int64)
    actions[1] = illegal
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*world 0, agent_1"):
        env.step(actions)


@pytest.mark.slow
def test_the_docs_maskable_ppo_example_trains_with_no_illegal_action():
    """``strict_actions=True`` in the snippet: a single illegal action would raise."""
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed")
    scope = run_snippet("sb3.md", index=0, max_steps=16, TIMESTEPS=300)
    assert scope["model"].num_timesteps >= 300


def test_a_world_whose_reserve_is_stale_resets_to_the_same_episode():
    """The rarer path: the ended world's next episode must be generated in the reset call."""
    import jax.numpy as jnp

    env = alem_pz.envs.sb3.make_vec_env(2, **small(max_steps=HORIZON))
    ref = gymnasium.make_vec("alem/Coop-v0", num_envs=2, **small(max_steps=HORIZON))
    env.seed(9)
    env.reset()
    ref.reset(seed=9)
    actions = np.zeros(6, np.int64)
    for _ in range(HORIZON - 1):
        env.step(actions), ref.step(actions)
    for runner in (env.vector.runner, ref.unwrapped.runner):
        runner.batch = runner.batch._replace(reserve_fresh=jnp.zeros(2, bool))
    obs, _, dones, _ = env.step(actions)
    ref.step(actions)
    ref_obs, *_ = ref.step(actions)  # the reference's reset call regenerates the same worlds
    assert dones.all()
    np.testing.assert_array_equal(obs, ref_obs)
