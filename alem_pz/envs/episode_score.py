"""The episode score on the PettingZoo faces (docs/rules/score.md, docs/evaluation.md#metrics).

The score reaches the user by one stable route: ``infos[agent]["score"]``, a float32 row of
K values on every step (zero until the episode's last step, then that agent's score), with
the column names in ``env.score_keys``; ``env.episode_score()`` is the named view. Team-wide
keys hold the same value in every agent's row; per-agent keys (``Achievements/<NAME>``) hold
that agent's value. The score is one jitted call on the packed state, made only on the
episode's last step (or when ``episode_score()`` asks mid-episode).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import numpy as np

import alem_core
from alem_core.executables import per_shape, quick_compile_options
from alem_core.scoring.score import score_columns, score_keys, score_table
from alem_pz.envs.kernels import compiled_core


@per_shape
def compiled_score(static: alem_core.StaticParams) -> Callable:
    """Jitted ``state buffers -> (P, K) float32``, columns in ``score_keys(static)`` order."""
    unpack = compiled_core(static).unpack

    def run(state_buffers):
        return score_table(unpack(state_buffers), static, True)

    return jax.jit(run, compiler_options=quick_compile_options("per_episode"))  # at episode ends


def score_rows(state_buffers, static: alem_core.StaticParams) -> np.ndarray:
    """(P, K) float32 host array: every agent's score of the packed state (writable)."""
    return np.array(jax.device_get(compiled_score(static)(state_buffers)), np.float32)


def named_scores(
    table: np.ndarray, static: alem_core.StaticParams, agents: Sequence[str]
) -> dict[str, dict[str, float]]:
    """``{agent: {score key: float}}`` from a (P, K) table (rows in ``agents`` order)."""
    columns = score_columns(np.asarray(table, np.float64), static)
    return {
        agent: {key: float(column[i]) for key, column in columns.items()}
        for i, agent in enumerate(agents)
    }


__all__ = ["compiled_score", "named_scores", "score_keys", "score_rows"]
