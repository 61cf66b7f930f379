"""The score keys in the PettingZoo adapter's infos on the episode's last step (GAME.md §9)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement
from alem_core.scoring.score import score, score_keys

from .conftest import SMALL

NOOP = 0


def _unlock(env, agent: int, achievement: int) -> None:
    state = env.core_state
    achievements = state.players.achievements.at[agent, achievement].set(True)
    env.core_state = state.replace(players=state.players.replace(achievements=achievements))


def _noop(env):
    return env.step(dict.fromkeys(env.agents, NOOP))


def test_scores_appear_only_on_the_truncation_step_as_plain_floats(make_env):
    env = make_env(max_steps=3)
    _, infos = env.reset(seed=0)
    assert "Team/achievement_pct" not in infos["agent_0"]
    for _ in range(2):
        _, _, _, truncs, infos = _noop(env)
        assert not any(truncs.values())
        assert not any("Team/achievement_pct" in info for info in infos.values())
    _unlock(env, 1, Achievement.COORD_BUILD_SHELTER)
    _, _, _, truncs, infos = _noop(env)
    assert all(truncs.values()) and env.agents == []
    keys = set(score_keys(SMALL))
    for info in infos.values():
        assert keys <= set(info)
        assert all(type(info[k]) is float for k in keys)
    # One floor: 57 eligible achievements (GAME.md §2.4); the shelter build weighs 5 of 159.
    assert infos["agent_2"]["Team/achievement_pct"] == pytest.approx(1 / 57)
    assert infos["agent_0"]["Team/coord_reward_pct_of_max"] == pytest.approx(5 / 159)
    assert infos["agent_1"]["Achievements/COORD_BUILD_SHELTER"] == 100.0
    assert infos["agent_0"]["Achievements/COORD_BUILD_SHELTER"] == 0.0


def test_infos_equal_the_core_score_of_the_final_state(make_env):
    env = make_env(max_steps=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents:
        actions = {a: int(rng.integers(0, 5)) for a in env.agents}
        _, _, _, _, infos = env.step(actions)
    expected = score(env.core_state, SMALL)
    for i, agent in enumerate(env.possible_agents):
        for key, values in expected.items():
            assert infos[agent][key] == pytest.approx(float(values[i]), rel=1e-6), key


def test_scores_appear_when_the_whole_team_dies(make_env):
    env = make_env(max_steps=50)
    env.reset(seed=0)
    state = env.core_state
    players = state.players.replace(alive=jnp.zeros(3, bool), health=jnp.zeros(3, jnp.float32))
    env.core_state = state.replace(players=players)
    _, _, terms, truncs, infos = _noop(env)
    assert all(terms.values()) and not any(truncs.values())
    assert infos["agent_0"]["Team/achievement_pct"] == 0.0
    assert infos["agent_0"]["Agent2/alive"] == 0.0
