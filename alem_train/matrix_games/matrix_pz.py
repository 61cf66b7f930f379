"""The T0 matrix games as a PettingZoo ``ParallelEnv``: conversion only, the rules live in
``alem_train.matrix_games.games``.

| | |
|---|---|
| Agents | ``agent_0`` .. ``agent_{N-1}``, N = 2..4 |
| Actions | ``Discrete(3)`` |
| Observations | ``Box(0, 1, (N,), float32)``: the one-hot of the agent's own index |
| Rewards | every agent gets the team reward (pairwise-mean payoff) |
| Episode | one step; every agent terminates after it |
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from alem_train.matrix_games import games as mg


class MatrixGameParallelEnv(ParallelEnv):
    """A one-shot matrix coordination game (``matrix_games.MatrixGame``) for PettingZoo."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "alem_matrix_game_v0",
        "render_modes": [],
        "is_parallelizable": True,
    }

    def __init__(self, game: mg.MatrixGame) -> None:
        if not isinstance(game, mg.MatrixGame):
            raise ValueError(f"game must be a matrix_games.MatrixGame, got {game!r}")
        self.game = game
        self.render_mode = None
        self.possible_agents = [f"agent_{i}" for i in range(game.num_agents)]
        self.agents: list[str] = []
        self._obs_space = spaces.Box(0.0, 1.0, (game.obs_size,), np.float32)
        self._act_space = spaces.Discrete(game.num_actions)
        self._state: mg.GameState | None = None
        self._key = jax.random.key(0)

    def observation_space(self, agent: str) -> spaces.Box:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def _obs_dict(self, obs) -> dict[str, np.ndarray]:
        rows = np.asarray(obs, dtype=np.float32)
        return {agent: rows[i] for i, agent in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._key = jax.random.key(seed)
        self._key, key = jax.random.split(self._key)
        obs, self._state = mg.reset(self.game, key)
        self.agents = list(self.possible_agents)
        return self._obs_dict(obs), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, Any]):
        if self._state is None or not self.agents:
            raise ValueError("step() called without an episode in progress; call reset() first")
        missing = [agent for agent in self.agents if agent not in actions]
        if missing:
            raise ValueError(f"missing actions for {missing}")
        joint = [actions[agent] for agent in self.possible_agents]
        for agent, value in zip(self.possible_agents, joint, strict=True):
            if not self._act_space.contains(value):
                raise ValueError(f"{agent}: action {value!r} is not in {self._act_space}")
        obs, self._state, rewards, _ = mg.step(self.game, self._state, np.asarray(joint))
        rewards = np.asarray(rewards)
        agents, self.agents = self.agents, []
        return (
            self._obs_dict(obs),
            {agent: float(rewards[i]) for i, agent in enumerate(agents)},
            {agent: True for agent in agents},
            {agent: False for agent in agents},
            {agent: {} for agent in agents},
        )
