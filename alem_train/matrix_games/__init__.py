"""T0: one-shot matrix coordination games (climbing, penalty) for checking the objectives."""

from alem_train.matrix_games.games import (
    GameState,
    MatrixGame,
    climbing_game,
    expected_return,
    joint_payoff,
    optimal_joint_value,
    payoff_tensor,
    penalty_game,
    reset,
    step,
    validate_actions,
)
from alem_train.matrix_games.matrix_pz import MatrixGameParallelEnv

__all__ = [
    "GameState",
    "MatrixGame",
    "MatrixGameParallelEnv",
    "climbing_game",
    "expected_return",
    "joint_payoff",
    "optimal_joint_value",
    "payoff_tensor",
    "penalty_game",
    "reset",
    "step",
    "validate_actions",
]
