"""The episode score in the PettingZoo adapter's infos (GAME.md §9, TEXT_AND_EVAL.md §4.3).

On the step that ends an episode (termination or truncation) every agent's info gets every key
of ``alem_core.scoring.score.score`` as a plain Python float, e.g. ``infos["agent_0"]["Team/
achievement_pct"]``. Team-wide keys hold the same value in every agent's info; per-agent keys
(``Achievements/<NAME>``) hold that agent's value. The score is computed by one jitted call on
the packed state, so it costs nothing on the other steps.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

import jax
import numpy as np

import alem_core
from alem_core.scoring.score import score_keys, score_table
from alem_pz.compiled import compiled_core


@functools.cache
def compiled_score(static: alem_core.StaticParams) -> Callable:
    """Jitted ``state buffers -> (K, P) float32``, rows in ``score_keys(static)`` order."""
    unpack = compiled_core(static).unpack_state

    def run(state_buffers):
        return score_table(unpack(state_buffers), static, True).T

    return jax.jit(run)


def episode_scores(
    state_buffers, static: alem_core.StaticParams, agents: Sequence[str]
) -> dict[str, dict[str, float]]:
    """``{agent: {score key: float}}`` for the packed state of a finished episode.

    Args:
        state_buffers: the adapter's packed ``alem_core.State``.
        static: its shapes.
        agents: agent names in index order (``possible_agents``).
    """
    values = np.asarray(jax.device_get(compiled_score(static)(state_buffers)), np.float64)
    keys = score_keys(static)
    return {
        agent: dict(zip(keys, values[:, i].tolist(), strict=True)) for i, agent in enumerate(agents)
    }


def merge_scores(
    infos: Mapping[str, dict],
    state_buffers,
    static: alem_core.StaticParams,
    agents: Sequence[str],
) -> None:
    """Add the score keys to each ``infos[agent]`` (in place) for the agents present."""
    scores = episode_scores(state_buffers, static, agents)
    for agent, info in infos.items():
        info.update(scores[agent])
