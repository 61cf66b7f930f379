"""The experiment's task table: name -> a ``TaskEnv`` factory, and each task's env-step budget.

Factories are cached, so every run of a task in one process shares one ``TaskEnv`` object and
the jitted rollouts and updates compiled for it (they take the env as a static argument).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from alem_train.experiment.envs import TaskEnv, alem_task, matrix_task
from alem_train.matrix_games import games as matrix_games


def _matrix(name: str, agents: int) -> Callable[[], TaskEnv]:
    games = {"climbing": matrix_games.climbing_game, "penalty": matrix_games.penalty_game}
    return lru_cache(maxsize=1)(lambda: matrix_task(games[name](num_agents=agents)))


TASKS: dict[str, Callable[[], TaskEnv]] = {
    f"t0_{game}_n{n}": _matrix(game, n) for game in ("climbing", "penalty") for n in (2, 3, 4)
}


def _drill(name: str, players: int, achievers: int, **knobs) -> Callable[[], TaskEnv]:
    """An alem drill; success = every one of ``achievers`` agents earned the rewarded
    achievements (the team return of a full success, from the achievement weight table)."""

    def make() -> TaskEnv:
        from alem_core.constants import Achievement
        from alem_core.drills import drill_setup
        from alem_core.rules.tables import ACHIEVEMENT_WEIGHT

        static, params = drill_setup(name, players=players, **knobs)
        per_agent = sum(
            float(ACHIEVEMENT_WEIGHT[Achievement[a]]) for a in static.rewarded_achievements
        )
        return alem_task(f"{name}_p{players}", static, params, achievers * per_agent)

    return lru_cache(maxsize=1)(make)


ADJACENT = {"room": 5, "start_adjacent": 1}
"""The sync drills as the experiment runs them: a masked-random team starting anywhere in the
7 x 7 room succeeded in 0 of 512 episodes (nothing for an outcome-only objective to learn
from); beside the block in a 5 x 5 room, in 2 of 512 (t1, P = 2) and 5 of 512 (t2, P = 4)."""

TASKS.update(
    {
        "t1_sync_p2": _drill("t1_sync", 2, 2, **ADJACENT),
        "t1_sync_p3": _drill("t1_sync", 3, 3, sync_agents=3, **ADJACENT),
        "t2_busy_p4": _drill("t2_busy", 4, 2, **ADJACENT),
        **{f"t3_chain_n{n}": _drill("t3_chain", n, n - 1) for n in (2, 3, 4, 6, 8)},
    }
)

BUDGETS = {"t0": 10_240, "t1": 65_536, "t2": 65_536, "t3": 32_768}
"""Env steps per run by task family (T0: 10,240 one-step episodes; T1/T2: 1,024 episodes of 64
steps; T3, which serves the stale-gap measurement of the sequential methods: 512 episodes)."""


def task_budget(task: str) -> int:
    return BUDGETS[task.split("_")[0]]


__all__ = ["BUDGETS", "TASKS", "task_budget"]
