"""The experiment's task table: name -> a ``TaskEnv`` factory, and each task's env-step budget.

Factories are cached, so every run of a task in one process shares one ``TaskEnv`` object and
the jitted rollouts and updates compiled for it (they take the env as a static argument).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from alem_train.drills import matrix_games
from alem_train.experiment.envs import TaskEnv, matrix_task


def _matrix(name: str, agents: int) -> Callable[[], TaskEnv]:
    games = {"climbing": matrix_games.climbing_game, "penalty": matrix_games.penalty_game}
    return lru_cache(maxsize=1)(lambda: matrix_task(games[name](num_agents=agents)))


TASKS: dict[str, Callable[[], TaskEnv]] = {
    f"t0_{game}_n{n}": _matrix(game, n) for game in ("climbing", "penalty") for n in (2, 3, 4)
}

BUDGETS = {"t0": 10_240}
"""Env steps per run by task family (T0: 10,240 one-step episodes)."""


def task_budget(task: str) -> int:
    return BUDGETS[task.split("_")[0]]


__all__ = ["BUDGETS", "TASKS", "task_budget"]
