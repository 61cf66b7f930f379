"""The published evaluation protocol as a library (docs/evaluation.md#the-protocol,
docs/rules/score.md).

Protocol: 3 agents, soft specialisation on, individual reward (``shared_reward`` off), episode
i played on world seed 9999 + i (``env.reset(seed=9999 + i)``), up to 10,000 steps, easy /
medium / hard evaluated and reported separately. Each episode's metrics are the score keys
(``alem_core.scoring.score``) from the agents' ``infos[agent]["score"]`` rows on its last step
(columns named by ``env.score_keys``), averaged over agents; per difficulty the summary gives
the mean and a 95% percentile-bootstrap interval over episodes of every key
(``alem_pz.evaluation.stats.column_means``: rliable's bootstrap), with the headline keys
(Team/achievement_pct, its normal and coordination variants, Base% / Coord.% / Total% as
fractions) repeated under ``"headline"``.

Policies: a callable ``policy(observation, action_mask) -> int`` called once per live agent per step
(numpy in, int out), or, if it has ``batched = True``, ``policy(observations (P, D), masks (P, A))
-> (P,) ints`` once per step. An optional ``policy.reset(seed)`` is called with the world seed at
each episode start. ``alem_pz.evaluation.policies.load_policy`` builds one by name.

The text harness (``alem_pz.text.harness``) and the trainers run their evaluations through this
module; ``alem_pz.evaluation.cli`` is its command line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import alem_core
from alem_core.params import PROTOCOL_PARAMS
from alem_core.scoring.score import HEADLINE_KEYS
from alem_pz.envs.parallel import AlemParallelEnv
from alem_pz.episode import Episode, Policy
from alem_pz.evaluation.stats import column_means
from alem_pz.progress import bar as progress_bar

BASE_SEED = 9999
DIFFICULTIES = ("easy", "medium", "hard")


def make_env(
    difficulty: str,
    max_steps: int,
    static: alem_core.StaticParams | None = None,
    players: int = 3,
    obs_type: str = "symbolic",
    text_config: Any = None,
) -> AlemParallelEnv:
    """The protocol's env for one difficulty (``static`` overrides the shapes, for tests;
    ``obs_type="text"`` for language agents, with their ``text_config``: same params, same
    world seeds)."""
    return AlemParallelEnv(
        players=players,
        difficulty=difficulty,
        max_steps=max_steps,
        params=PROTOCOL_PARAMS,
        static=static,
        obs_type=obs_type,
        text_config=text_config,
    )


def run_episode(
    env: AlemParallelEnv,
    policy: Policy,
    seed: int,
    on_step: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play one episode on world ``seed`` with ``policy`` in every seat until every agent has
    left (``alem_pz.episode.Episode.play``); ``policy.reset(seed)`` first, when it has one.

    Returns:
        ``Episode.record()``: ``{"seed", "steps", "terminated", "returns" (per agent),
        "metrics"}``, where ``metrics`` maps every score key to its value averaged over agents
        (from the infos of the last step).
    """
    seats = dict.fromkeys(range(env.static.player_count), policy)
    tick = None if on_step is None else (lambda episode: on_step(episode.steps))
    return Episode(env, seed, seats).play(seats, on_step=tick).record()


def summarise(
    episodes: Sequence[dict[str, Any]], resamples: int = 10000, seed: int = 0
) -> dict[str, Any]:
    """One difficulty's summary: every key's mean and interval, the headline keys, lengths."""
    keys = list(episodes[0]["metrics"])
    table = np.array([[ep["metrics"][k] for k in keys] for ep in episodes])
    mean, low, high = column_means(table, resamples, seed=seed)
    metrics = {
        k: {"mean": float(m), "ci_low": float(lo), "ci_high": float(hi)}
        for k, m, lo, hi in zip(keys, mean, low, high, strict=True)
    }
    return {
        "episodes": len(episodes),
        "mean_episode_length": float(np.mean([ep["steps"] for ep in episodes])),
        "mean_episode_return": float(np.mean([np.mean(ep["returns"]) for ep in episodes])),
        "success_rate": float(np.mean([ep["terminated"] for ep in episodes])),
        "headline": {k: metrics[k] for k in HEADLINE_KEYS},
        "metrics": metrics,
        "per_episode": list(episodes),
    }


def evaluate(
    policy: Policy,
    episodes: int = 20,
    max_steps: int = 10000,
    difficulties: Sequence[str] = DIFFICULTIES,
    static: alem_core.StaticParams | None = None,
    players: int = 3,
    resamples: int = 10000,
    ci_seed: int = 0,
    progress: bool = True,
    policy_name: str = "custom",
    obs_type: str = "symbolic",
) -> dict[str, Any]:
    """Run the protocol for ``policy`` and return the JSON-ready summary.

    Args:
        policy: see the module docstring.
        episodes: episodes per difficulty; episode i uses world seed 9999 + i.
        max_steps: step cap per episode (the env's truncation horizon).
        difficulties: evaluated and reported separately, in this order.
        static: other world shapes (tests); default the full 48 x 48, 9-floor world.
        players: team size (the protocol's is 3; must match ``static``).
        resamples / ci_seed: bootstrap draws and their fixed RNG seed.
        progress: draw a progress bar on stderr (only on a terminal: ``alem_pz.progress``).
        policy_name: recorded in the summary.
        obs_type: the observations the policy reads ("text" for text agents).

    Returns:
        ``{"protocol": {...}, "results": {difficulty: summarise(...)}}``.

    Raises:
        ValueError: no difficulty, or fewer than one episode or step.
    """
    if not difficulties or episodes < 1 or max_steps < 1:
        raise ValueError(
            f"need at least one difficulty, episode and step, got difficulties={difficulties!r}, "
            f"episodes={episodes!r}, max_steps={max_steps!r}"
        )
    bar = progress_bar(episodes * max_steps * len(difficulties), policy_name, enabled=progress)
    results = {}
    for difficulty in difficulties:
        env = make_env(difficulty, max_steps, static, players, obs_type)
        played = []
        for i in range(episodes):
            bar.set_description_str(f"{policy_name} {difficulty} episode {i + 1}/{episodes}")
            record = run_episode(env, policy, BASE_SEED + i, on_step=lambda _: bar.update())
            bar.update(max_steps - record["steps"])  # an early end skips the rest of its steps
            played.append(record)
        env.close()
        results[difficulty] = summarise(played, resamples, ci_seed)
    bar.close()
    protocol = protocol_settings(
        policy_name, players, episodes, max_steps, difficulties, env.static, resamples, ci_seed
    )
    return {"protocol": protocol, "results": results}


def protocol_settings(
    policy_name: str,
    players: int,
    episodes: int,
    max_steps: int,
    difficulties: Sequence[str],
    shapes: alem_core.StaticParams,
    resamples: int,
    ci_seed: int = 0,
) -> dict[str, Any]:
    """The settings an evaluation ran with, for its JSON summary (the intervals' bootstrap
    included: ``summarise``'s rliable percentile intervals)."""
    bootstrap = {"resamples": resamples, "seed": ci_seed, "interval": 0.95}
    return {
        "policy": policy_name,
        "players": players,
        "shared_reward": PROTOCOL_PARAMS["shared_reward"],
        "soft_specialization": PROTOCOL_PARAMS["soft_specialization"],
        "seeds": [BASE_SEED + i for i in range(episodes)],
        "max_steps": max_steps,
        "difficulties": list(difficulties),
        "map_size": list(shapes.map_size),
        "num_levels": shapes.num_levels,
        "bootstrap": bootstrap | {"method": "rliable percentile"},
    }
