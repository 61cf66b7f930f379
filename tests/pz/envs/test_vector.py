"""``gymnasium.make_vec("alem/Coop-v0")``: the batched VectorEnv over N worlds x P agents.

All tests use the small world with N = 2 worlds (6 sub-envs) and 4-step episodes, so they share
one compiled batch with ``tests/core/test_batch.py``.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import (
    ClipReward,
    DictInfoToList,
    NormalizeObservation,
    NormalizeReward,
    RecordEpisodeStatistics,
)

import alem_pz  # noqa: F401  (registers alem/Coop-v0)
from tests.pz.conftest import SMALL

WORLDS = 2
HORIZON = 4


def make(**overrides) -> VectorEnv:
    kwargs = dict(
        num_envs=WORLDS,
        vectorization_mode="vector_entry_point",
        players=3,
        static=SMALL,
        max_steps=HORIZON,
    )
    kwargs.update(overrides)
    return gymnasium.make_vec("alem/Coop-v0", **kwargs)


def legal(infos: dict, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]], np.int64)


def test_make_vec_gives_a_batched_vector_env():
    envs = make()
    assert isinstance(envs, VectorEnv)
    assert envs.num_envs == WORLDS * 3
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert isinstance(envs.single_action_space, gymnasium.spaces.Discrete)
    assert envs.single_action_space.n == SMALL.num_actions
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (6, *envs.single_observation_space.shape) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs) and obs.flags.writeable
    assert infos["action_mask"].shape == (6, SMALL.num_actions)
    assert infos["action_mask"].dtype == np.int8 and infos["_action_mask"].all()
    assert infos["alive"].all() and list(infos["world"]) == [0, 0, 0, 1, 1, 1]
    obs, rewards, terms, truncs, infos = envs.step(legal(infos, np.random.default_rng(0)))
    assert envs.observation_space.contains(obs)
    assert rewards.shape == terms.shape == truncs.shape == (6,)
    assert terms.dtype == truncs.dtype == np.bool_
    assert "episode" not in infos
    for array in (obs, rewards, terms, truncs, infos["alive"], infos["score"]):
        assert array.flags.writeable


def test_every_step_has_the_same_info_keys_and_shapes():
    envs = make()
    _, infos = envs.reset(seed=0)
    layout = {k: np.shape(v) for k, v in infos.items()}
    assert set(infos) == {"action_mask", "alive", "world", "score"} | {
        f"_{k}" for k in ("action_mask", "alive", "world", "score")
    }
    assert layout["score"] == (6, len(envs.unwrapped.score_keys))
    rng = np.random.default_rng(0)
    for _ in range(HORIZON + 2):
        _, _, _, _, infos = envs.step(legal(infos, rng))
        assert {k: np.shape(v) for k, v in infos.items()} == layout


def test_episode_end_statistics_then_next_step_reset():
    envs, twin = make(), make()
    _, infos = envs.reset(seed=5)
    twin.reset(seed=5)
    rng = np.random.default_rng(1)
    column = {k: i for i, k in enumerate(envs.unwrapped.score_keys)}
    for t in range(HORIZON):
        actions = legal(infos, rng)
        _, rewards, terms, truncs, infos = envs.step(actions)
        twin.step(actions)
        assert truncs.all() == (t == HORIZON - 1)
        assert infos["score"].any() == (t == HORIZON - 1)  # zero until the episode ends
    for k in range(3):  # per-agent score keys hold that agent's value in every sub-env of its world
        expected = np.repeat(infos["alive"].reshape(WORLDS, 3)[:, k], 3).astype(np.float32)
        np.testing.assert_array_equal(infos["score"][:, column[f"Agent{k}/alive"]], expected)
    # NEXT_STEP: the following step resets and ignores the actions.
    first = legal(infos, rng)
    reset_obs, rewards, terms, truncs, infos = envs.step(first)
    other_obs, *_ = twin.step(np.zeros(6, np.int64))
    np.testing.assert_array_equal(reset_obs, other_obs)
    assert not rewards.any() and not terms.any() and not truncs.any()
    assert "episode" not in infos


def test_same_step_mode_plays_the_same_episodes_one_call_sooner():
    nxt, same = make(), make(autoreset_mode=AutoresetMode.SAME_STEP)
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    _, infos = nxt.reset(seed=5)
    same.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(2):  # two episodes
        for t in range(HORIZON):
            actions = legal(infos, rng)
            n_obs, n_rew, n_term, n_trunc, infos = nxt.step(actions)
            s_obs, s_rew, s_term, s_trunc, s_infos = same.step(actions)
            np.testing.assert_array_equal(n_rew, s_rew)
            np.testing.assert_array_equal(n_term, s_term)
            np.testing.assert_array_equal(n_trunc, s_trunc)
            assert ("final_obs" in s_infos) == (t == HORIZON - 1)
            if t < HORIZON - 1:
                np.testing.assert_array_equal(n_obs, s_obs)
        np.testing.assert_array_equal(s_infos["final_obs"], n_obs)  # the last observation
        np.testing.assert_array_equal(s_infos["_final_obs"], n_trunc)
        np.testing.assert_array_equal(s_infos["final_info"]["action_mask"], infos["action_mask"])
        np.testing.assert_array_equal(s_infos["score"], infos["score"])
        reset_obs, *_, infos = nxt.step(legal(infos, rng))  # NEXT_STEP resets one call later
        np.testing.assert_array_equal(s_obs, reset_obs)
        np.testing.assert_array_equal(s_infos["action_mask"], infos["action_mask"])
    with pytest.raises(ValueError, match="autoreset_mode"):
        make(autoreset_mode=AutoresetMode.DISABLED)


def test_same_seed_same_multi_step_run():
    runs = []
    for _ in range(2):
        envs = make()
        obs, infos = envs.reset(seed=11)
        rng, trace = np.random.default_rng(3), [(obs, infos)]
        for _ in range(2 * HORIZON + 3):  # crosses two episode ends and a reset
            trace.append(envs.step(legal(infos, rng)))
            infos = trace[-1][-1]
        runs.append(trace)
    assert data_equivalence(runs[0], runs[1], exact=True)
    other, _ = make().reset(seed=12)
    assert not np.array_equal(other, runs[0][0][0])


def test_gymnasium_checks_and_wrappers():
    """Gymnasium 1.4 ships no vector-env checker (``check_env`` and ``check_environments_match``
    take single envs); what it does check for vector envs is ``make_vec``'s metadata warning and
    the vector wrappers' assertions (dict infos, autoreset mode), exercised here."""
    # make_vec warns about a missing or mistyped autoreset mode: no warning may come out.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make()
    stats = RecordEpisodeStatistics(make())
    listed = DictInfoToList(NormalizeObservation(stats))  # observation wrappers need NEXT_STEP
    _, info_list = listed.reset(seed=2)
    assert isinstance(info_list, list) and len(info_list) == 6
    assert info_list[0]["action_mask"].shape == (SMALL.num_actions,)


def test_the_standard_reward_chain_runs_across_episode_ends():
    """``NormalizeReward(ClipReward(RecordEpisodeStatistics(make_vec(...))))`` unchanged."""
    raw = make()
    envs = NormalizeReward(ClipReward(RecordEpisodeStatistics(raw), -1.0, 1.0))
    _, infos = envs.reset(seed=2)
    twin = make()
    twin.reset(seed=2)
    rng, total, seen = np.random.default_rng(4), np.zeros(6), 0
    for t in range(2 * HORIZON + 1):  # two episode ends and the reset between them
        actions = legal(infos, rng)
        _, rewards, _, _, infos = envs.step(actions)
        _, raw_rewards, *_ = twin.step(actions)
        assert np.isfinite(rewards).all()
        total += raw_rewards
        if "episode" in infos:
            seen += 1
            assert infos["_episode"].all() and t in (HORIZON - 1, 2 * HORIZON)
            np.testing.assert_allclose(infos["episode"]["r"], total, rtol=1e-5)
            assert (infos["episode"]["l"] == HORIZON).all()
            total[:] = 0
    assert seen == 2


def test_bad_input_is_refused_and_leaves_the_batch_unchanged():
    with pytest.raises(ValueError, match=r"num_envs must be an int in \[1, 2,147,483,647\], got 0"):
        make(num_envs=0)
    envs, twin = make(), make()
    envs.reset(seed=3)
    _, infos = twin.reset(seed=3)
    bad = {
        "shape": (np.zeros(5, np.int64), r"shape \(6,\).*got shape \(5,\)"),
        "dtype": (np.zeros(6, np.float32), "must be integers, got dtype float32"),
        "negative": (
            np.array([0, 0, 0, 0, -1, 0]),
            r"action -1 for sub-env 4 \(world 1, agent_1\)",
        ),
        "too big": (np.full(6, SMALL.num_actions), f"action {SMALL.num_actions} for sub-env 0"),
    }
    for actions, message in bad.values():
        with pytest.raises(ValueError, match=message):
            envs.step(actions)
    actions = legal(infos, np.random.default_rng(0))
    assert data_equivalence(envs.step(actions), twin.step(actions), exact=True)
    with pytest.raises(ValueError, match="one int for the whole batch"):
        envs.reset(seed=[1, 2])
    with pytest.raises(RuntimeError, match="before reset"):
        make().step(actions)


def test_strict_mode_names_the_sub_env_and_the_illegal_action():
    envs = make(strict_actions=True)
    _, infos = envs.reset(seed=3)
    actions = legal(infos, np.random.default_rng(0))
    illegal = int(np.flatnonzero(infos["action_mask"][4] == 0)[0])
    actions[4] = illegal
    with pytest.raises(
        ValueError, match=rf"illegal action {illegal} .*sub-env 4 \(world 1, agent_1\)"
    ):
        envs.step(actions)
    actions = legal(infos, np.random.default_rng(0))
    envs.step(actions)  # legal actions still step
