"""The per-agent infos (``alem_pz.envs.infos``): the same flat keys on every step, and the episode
score as one (K,) row under ``"score"``, zero until the last step (docs/rules/score.md)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement
from alem_core.scoring.score import score, score_keys
from alem_pz.envs.infos import info_keys
from tests.pz.conftest import SMALL

NOOP = 0


def _unlock(env, agent: int, achievement: int) -> None:
    state = env.core_state
    achievements = state.players.achievements.at[agent, achievement].set(True)
    env.core_state = state.replace(players=state.players.replace(achievements=achievements))


def _noop(env):
    return env.step(dict.fromkeys(env.agents, NOOP))


def _layout(info) -> dict:
    return {k: (np.shape(v), np.asarray(v).dtype.kind) for k, v in info.items()}


def test_every_step_has_the_same_keys_shapes_and_kinds(make_env):
    env = make_env(max_steps=3)
    _, infos = env.reset(seed=0)
    first = _layout(infos["agent_0"])
    assert tuple(infos["agent_0"]) == info_keys()
    assert first["score"] == ((len(score_keys(SMALL)),), "f")
    while env.agents:
        _, _, _, _, infos = _noop(env)
        for info in infos.values():
            assert _layout(info) == first


def test_the_score_row_is_zero_until_the_truncation_step(make_env):
    env = make_env(max_steps=3)
    assert env.score_keys == score_keys(SMALL)
    _, infos = env.reset(seed=0)
    assert not infos["agent_0"]["score"].any()
    for _ in range(2):
        _, _, _, truncs, infos = _noop(env)
        assert not any(truncs.values())
        assert not any(info["score"].any() for info in infos.values())
    _unlock(env, 1, Achievement.COORD_BUILD_SHELTER)
    _, _, _, truncs, infos = _noop(env)
    assert all(truncs.values()) and env.agents == []
    column = {k: i for i, k in enumerate(env.score_keys)}
    # One floor: 57 eligible achievements (docs/rules/achievements.md#every-achievement); the
    # shelter build weighs 5 of 159.
    assert infos["agent_2"]["score"][column["Team/achievement_pct"]] == pytest.approx(1 / 57)
    assert infos["agent_0"]["score"][column["Team/coord_reward_pct_of_max"]] == pytest.approx(
        5 / 159
    )
    assert infos["agent_1"]["score"][column["Achievements/COORD_BUILD_SHELTER"]] == 100.0
    assert infos["agent_0"]["score"][column["Achievements/COORD_BUILD_SHELTER"]] == 0.0
    named = env.episode_score()
    assert named["agent_2"]["Team/achievement_pct"] == pytest.approx(1 / 57)
    assert all(type(v) is float for v in named["agent_0"].values())


def test_the_score_row_equals_the_core_score_of_the_final_state(make_env):
    env = make_env(max_steps=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents:
        actions = {a: int(rng.integers(0, 5)) for a in env.agents}
        _, _, _, _, infos = env.step(actions)
    expected = score(env.core_state, SMALL)
    for i, agent in enumerate(env.possible_agents):
        row = dict(zip(env.score_keys, infos[agent]["score"], strict=True))
        for key, values in expected.items():
            assert row[key] == pytest.approx(float(values[i]), rel=1e-6), key


def test_episode_score_before_the_end_is_the_score_so_far(make_env):
    env = make_env(max_steps=50)
    with pytest.raises(RuntimeError, match="before reset"):
        env.episode_score()
    env.reset(seed=0)
    _unlock(env, 0, Achievement.COORD_BUILD_SHELTER)
    assert env.episode_score()["agent_0"]["Achievements/COORD_BUILD_SHELTER"] == 100.0


def test_writing_into_an_info_does_not_leak_into_later_steps(make_env):
    env = make_env(max_steps=5)
    _, infos = env.reset(seed=0)
    infos["agent_0"]["score"][:] = 7.0
    infos["agent_0"]["action_mask"][:] = 0
    _, _, _, _, infos = _noop(env)
    assert not infos["agent_0"]["score"].any() and infos["agent_0"]["action_mask"][NOOP] == 1


def test_the_score_row_is_filled_when_the_whole_team_dies(make_env):
    env = make_env(max_steps=50)
    env.reset(seed=0)
    state = env.core_state
    players = state.players.replace(alive=jnp.zeros(3, bool), health=jnp.zeros(3, jnp.float32))
    env.core_state = state.replace(players=players)
    _, _, terms, truncs, infos = _noop(env)
    assert all(terms.values()) and not any(truncs.values())
    row = dict(zip(env.score_keys, infos["agent_0"]["score"], strict=True))
    assert row["Team/achievement_pct"] == 0.0 and row["Agent2/alive"] == 0.0
    assert env.episode_score()["agent_0"]["Agent2/alive"] == 0.0
