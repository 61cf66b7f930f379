"""The evaluation runner (docs/evaluation.md#the-protocol): protocol, summary JSON, bootstrap,
baselines."""

from __future__ import annotations

import json

import numpy as np
import pytest

from alem_core.scoring.score import HEADLINE_KEYS, score, score_keys
from alem_pz.episode import seat_actions
from alem_pz.evaluation import cli, policies
from alem_pz.evaluation import protocol as ev
from alem_pz.evaluation.baselines import GreedyCoordinator, MaskedRandom
from alem_pz.evaluation.policies import load_policy, load_seat_policy
from alem_pz.evaluation.stats import column_means
from tests.pz.conftest import SMALL

MAX_STEPS = 30


@pytest.fixture(scope="module")
def summary():
    return ev.evaluate(
        MaskedRandom(0),
        episodes=2,
        max_steps=MAX_STEPS,
        difficulties=["easy"],
        static=SMALL,
        resamples=500,
        progress=False,
        policy_name="random",
    )


def test_summary_structure_survives_json(summary):
    loaded = json.loads(json.dumps(summary))
    protocol = loaded["protocol"]
    assert protocol["seeds"] == [9999, 10000]
    assert protocol["shared_reward"] is False and protocol["soft_specialization"] is True
    assert protocol["players"] == 3 and protocol["max_steps"] == MAX_STEPS
    assert protocol["bootstrap"] == {
        "resamples": 500, "seed": 0, "interval": 0.95, "method": "rliable percentile"
    }  # fmt: skip
    result = loaded["results"]["easy"]
    assert list(loaded["results"]) == ["easy"]
    assert list(result["headline"]) == list(HEADLINE_KEYS)
    assert set(result["metrics"]) == set(score_keys(SMALL))
    for stats in result["metrics"].values():
        assert stats["ci_low"] - 1e-9 <= stats["mean"] <= stats["ci_high"] + 1e-9
    assert [ep["seed"] for ep in result["per_episode"]] == [9999, 10000]
    assert all(1 <= ep["steps"] <= MAX_STEPS for ep in result["per_episode"])


def test_episode_metrics_equal_the_score_of_the_final_states(summary):
    # Replaying with a fresh policy gives the same episodes: the policy is reseeded per episode
    # and the world depends only on the seed.
    policy = MaskedRandom(0)
    env = ev.make_env("easy", MAX_STEPS, SMALL)
    records = summary["results"]["easy"]["per_episode"]
    for record in records:
        policy.reset(record["seed"])
        obs, infos = env.reset(seed=record["seed"])
        while env.agents:
            actions = {a: policy(obs[a], infos[a]["action_mask"]) for a in env.agents}
            obs, _, _, _, infos = env.step(actions)
        final = score(env.core_state, SMALL)
        for key, values in final.items():
            assert record["metrics"][key] == pytest.approx(
                float(np.mean(values)), rel=1e-6, abs=1e-6
            ), key
    team = [r["metrics"]["Team/achievement_pct"] for r in records]
    headline = summary["results"]["easy"]["headline"]["Team/achievement_pct"]
    assert headline["mean"] == pytest.approx(np.mean(team))


def test_summary_intervals_are_seeded_and_bracket_the_mean():
    """The protocol's per-metric intervals (alem_pz.evaluation.stats.column_means, rliable's
    bootstrap)."""
    values = np.array([[0.0, 2.0], [1.0, 2.0], [2.0, 2.0], [5.0, 2.0]])
    mean, low, high = column_means(values, reps=2000, seed=3)
    again = column_means(values, reps=2000, seed=3)
    np.testing.assert_array_equal(low, again[1])
    assert mean[0] == pytest.approx(2.0) and low[0] < 2.0 < high[0]
    assert low[0] >= 0.0 and high[0] <= 5.0
    assert low[1] == high[1] == 2.0  # a constant column has no spread


def test_no_progress_bar_off_a_terminal_and_batched_policies(capsys):
    class Batched:
        batched = True

        def __call__(self, observations, masks):
            assert observations.shape[0] == masks.shape[0] == 3
            return np.zeros(3, int)  # NOOP for everyone

    out = ev.evaluate(
        Batched(), episodes=1, max_steps=5, difficulties=["easy"], static=SMALL, resamples=10
    )
    assert capsys.readouterr().err == ""  # pytest's stderr is no terminal: alem_pz.progress
    assert out["results"]["easy"]["per_episode"][0]["steps"] == 5


def test_load_policy_names():
    assert isinstance(load_policy("random"), MaskedRandom)
    assert isinstance(load_policy("greedy"), GreedyCoordinator)
    assert load_policy("alem_pz.evaluation.protocol:summarise") is ev.summarise
    with pytest.raises(ValueError, match="module:function"):
        load_policy("nonsense")
    with pytest.raises(ValueError, match="at least one difficulty"):
        ev.evaluate(MaskedRandom(0), difficulties=[], static=SMALL)
    with pytest.raises(ValueError, match="'greedy' is no policy file"):
        load_policy("greedy", greedy=True)  # the scripted team has no "most likely" action


def test_cli_refuses_a_bad_policy_option_with_one_line():
    from alem_pz.evaluation import cli

    with pytest.raises(SystemExit, match=r"^alem-evaluate: error: .*'random' is no policy file"):
        cli.main(["--policy", "random", "--greedy", "--episodes", "1"])


def test_seats_take_one_agent_and_team_policies_and_refuse_text_ones():
    """alem-play and alem-serve seat one agent per policy: a batched (team) policy sees the
    whole team and its row for the seat is taken; a text policy is refused by name."""
    agents = ["agent_0", "agent_1", "agent_2"]
    obs = {a: np.full(4, i, np.float32) for i, a in enumerate(agents)}
    infos = {a: {"action_mask": np.ones(5, np.int8)} for a in agents}

    def team(observations, masks):
        assert observations.shape == (3, 4) and masks.shape == (3, 5)
        return observations[:, 0].astype(int) + 1  # agent i answers i + 1

    team.batched = True
    calls = []
    team_calls = lambda o, m: calls.append(1) or team(o, m)  # noqa: E731
    team_calls.batched = True
    assert seat_actions(dict.fromkeys(range(3), team), agents, obs, infos) == {0: 1, 1: 2, 2: 3}
    one_agent = lambda o, m: int(o[0]) + 5  # noqa: E731
    moves = seat_actions({0: team_calls, 1: one_agent, 2: team_calls}, agents, obs, infos)
    assert moves == {0: 1, 1: 6, 2: 3} and len(calls) == 1  # the team answers once a step
    assert seat_actions({1: lambda o, m: int(o[0]) + 2}, agents, obs, infos) == {1: 3}
    with pytest.raises(ValueError, match="'text-rule' reads text observations"):
        load_seat_policy("text-rule")
    assert isinstance(load_seat_policy("random"), MaskedRandom)


def test_seat_policies_share_a_team_policy_and_seed_one_agent_policies_per_seat(monkeypatch):
    """A team policy is loaded once for all its seats (so it answers once a step); one-agent
    policies get one instance per seat, seeded ``seed + seat``."""
    randoms = policies.load_seat_policies("random", [0, 2], players=3, seed=5)
    assert randoms[0] is not randoms[2] and [randoms[0].seed, randoms[2].seed] == [5, 7]

    def team_loader(spec, players, seed, comm_channels):
        def team(observations, masks):
            return np.zeros(len(observations), int)

        team.batched = True
        return team

    monkeypatch.setattr(policies, "load_seat_policy", team_loader)
    teams = policies.load_seat_policies("team.npz", [1, 2], players=3)
    assert teams[1] is teams[2]


def test_greedy_coordinator_plays_legal_actions(make_env):
    env = make_env(max_steps=40, difficulty="easy")
    policy = GreedyCoordinator()
    policy.reset(0)
    obs, infos = env.reset(seed=0)
    while env.agents:
        actions = {}
        for a in env.agents:
            actions[a] = policy(obs[a], infos[a]["action_mask"])
            assert infos[a]["action_mask"][actions[a]] == 1
        obs, _, _, _, infos = env.step(actions)


@pytest.mark.slow
def test_command_line_on_the_full_world(tmp_path):
    out = tmp_path / "summary.json"
    argv = ["--policy", "greedy", "--episodes", "1", "--max-steps", "5"]
    argv += ["--difficulties", "hard", "--out", str(out), "--resamples", "10", "--no-progress"]
    assert cli.main(argv) == 0
    loaded = json.loads(out.read_text())
    assert loaded["protocol"]["num_levels"] == 9 and loaded["protocol"]["map_size"] == [48, 48]
    assert list(loaded["results"]) == ["hard"]


def test_masked_random_draws_a_batch_among_the_legal_actions_only():
    """``MaskedRandom.actions`` (what the benchmarks' host-side teams draw): every row's action
    is legal, every legal action comes up, and a row with nothing legal gets NOOP."""
    masks = np.zeros((2, 3, 6), np.int8)
    masks[0, :, [1, 4]] = 1
    masks[1, 0, 5] = 1
    team = MaskedRandom(7)
    draws = np.stack([team.actions(masks) for _ in range(200)])
    assert draws.shape == (200, 2, 3)
    assert set(np.unique(draws[:, 0])) == {1, 4}
    assert set(np.unique(draws[:, 1, 0])) == {5} and set(np.unique(draws[:, 1, 1:])) == {0}
