"""Small drills for checking the objectives: T0 one-shot matrix coordination games."""

from alem_train.drills.matrix_games import (
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
from alem_train.drills.matrix_pz import MatrixGameParallelEnv

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
