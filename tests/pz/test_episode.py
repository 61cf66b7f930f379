"""The one episode loop (``alem_pz.episode``): what every face reads from it, on the small world."""

from __future__ import annotations

import numpy as np
import pytest

from alem_core.constants import Action
from alem_pz.episode import Episode
from alem_pz.evaluation.baselines import MaskedRandom


def test_an_episode_steps_every_seat_and_ends_by_the_cap(make_env):
    env = make_env(max_steps=6)
    episode = Episode(env, seed=3)
    assert (episode.steps, episode.over, episode.returns.tolist()) == (0, False, [0.0] * 3)
    assert all(episode.can_act(i) for i in range(3))  # a fresh team: more than NOOP is legal
    totals = np.zeros(3)
    while not episode.over:
        totals += episode.step({1: int(Action.DO)})  # seats 0 and 2 given nothing: NOOP
    assert episode.steps == 6 and not episode.terminated  # truncated by the cap, not ended
    np.testing.assert_array_equal(episode.returns, totals)
    assert not any(episode.can_act(i) for i in range(3))
    record = episode.record()
    assert set(record) == {"seed", "steps", "terminated", "returns", "metrics"}
    assert record["seed"] == 3 and "Team/achievement_pct" in record["metrics"]


def test_play_equals_stepping_by_hand_and_seeds_replay(make_env):
    """``play`` asks each seat's policy once a step; the same seed and policy give the same
    episode, whichever way it is driven."""
    env = make_env(max_steps=12)
    seen: list[int] = []
    played = Episode(env, 5).play(
        dict.fromkeys(range(3), MaskedRandom(1)), on_step=lambda e: seen.append(e.steps)
    )
    assert seen == list(range(1, 13))
    policy, by_hand = MaskedRandom(1), Episode(env, 5)
    while not by_hand.over:
        by_hand.step({seat: policy(by_hand.obs[a], by_hand.infos[a]["action_mask"])
                      for seat, a in enumerate(env.agents)})  # fmt: skip
    assert played.record() == by_hand.record()


def test_an_illegal_seat_action_is_refused_and_nothing_counts(make_env):
    env = make_env(max_steps=6)
    episode = Episode(env, seed=0)
    with pytest.raises(ValueError, match="agent_2"):
        episode.step({2: 10_000})
    assert episode.steps == 0 and episode.returns.tolist() == [0.0] * 3
