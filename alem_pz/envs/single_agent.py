"""alem as a single-agent Gymnasium env: one controller for the whole team of P agents.

    import gymnasium, alem_pz  # importing alem_pz registers "alem/Coop-v0"
    env = gymnasium.make("alem/Coop-v0", players=3, max_steps=1000)
    obs, info = env.reset(seed=0)                    # obs (P, D) float32
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

| | |
|---|---|
| Actions | `MultiDiscrete([A] * P)`: one action id per agent, in agent order |
| Observations | `Box(low, 100, (P, D), float32)`: every agent's observation, stacked |
| Reward | the team's reward: the sum of the P agents' rewards (``shared_reward`` or not) |
| Terminated | the whole team is dead or the game is won |
| Truncated | `max_steps` steps taken (the env's own horizon; no `TimeLimit` needed) |
| Info | `action_mask` (P, A) int8, `alive` (P,) bool, `cooperation` (P, M), `score` (P, K) |

``cooperation`` columns are ``env.cooperation_keys``; ``score`` (float32) is zero until the
episode's last step, its columns ``env.score_keys``. ``action_masks()`` returns the flat
(P·A,) bool mask that ``sb3_contrib.MaskablePPO`` expects for a ``MultiDiscrete`` space.
Illegal actions and ``strict_actions`` behave as in ``AlemParallelEnv`` (its env card).
Keyword arguments: those of ``AlemParallelEnv`` except ``obs_type`` and ``mask_in_obs``
(symbolic observations; the mask is in the info).

Why a second face: ``gymnasium.make`` and the ``sync`` / ``async`` vectorization modes need a
single-agent env; this one is a thin view of the ``ParallelEnv`` (same compiled step, same
episodes for the same seed), holding no game rules. For parameter sharing over agents use
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` (``alem_pz.envs.vector``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import alem_core
from alem_pz.envs.infos import COOPERATION_KEYS
from alem_pz.envs.parallel import OBS_HIGH, AlemParallelEnv, obs_low


class AlemTeamEnv(gymnasium.Env):
    """The whole team as one Gymnasium env (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 10}  # noqa: RUF012

    def __init__(self, render_mode: str | None = None, **kwargs: Any) -> None:
        """Build the env (nothing is compiled before the first ``reset``).

        Raises:
            ValueError: ``obs_type`` or ``mask_in_obs`` given, and whatever ``AlemParallelEnv``
                rejects.
        """
        for name in ("obs_type", "mask_in_obs"):
            if name in kwargs:
                raise ValueError(
                    f"{name}={kwargs[name]!r} is not an option of the team env: its observations "
                    "are the stacked symbolic vectors and the mask is in info['action_mask']"
                )
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.team = AlemParallelEnv(render_mode=render_mode, **kwargs)
        self.render_mode = render_mode
        self.agents = list(self.team.possible_agents)
        p, n = len(self.agents), self.team.action_space(self.agents[0]).n
        size = alem_core.obs_size(self.team.static)
        low = obs_low(self.team.params)
        self.observation_space = spaces.Box(low, OBS_HIGH, (p, size), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(p, n, np.int64))
        self.cooperation_keys = COOPERATION_KEYS
        self._mask = np.zeros((p, n), np.int8)

    @property
    def score_keys(self) -> tuple[str, ...]:
        """Names of the K columns of ``info["score"]`` (docs/rules/score.md)."""
        return self.team.score_keys

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; the same seed gives the same episode as the ``ParallelEnv``'s."""
        super().reset(seed=seed)
        obs, infos = self.team.reset(seed=seed, options=options)
        return self._stack(obs), self._info(infos)

    def step(self, action):
        """One step with (P,) action ids, one per agent in agent order.

        Raises:
            RuntimeError: before ``reset`` or after the episode ended.
            ValueError: an action of the wrong shape, or an id the ``ParallelEnv`` rejects
                (the message names the agent and the value).
        """
        array = np.asarray(action)
        if array.shape != (len(self.agents),):
            raise ValueError(
                f"action must have shape ({len(self.agents)},), one id per agent "
                f"{self.agents}, got {action!r}"
            )
        if not self.team.agents:
            raise RuntimeError(
                "step() called before reset() or after the episode ended; call reset() first"
            )
        if array.dtype.kind not in "iu":
            self._refuse_non_integers(action, array)
        actions = {a: array[i] for i, a in enumerate(self.agents)}
        obs, rewards, terms, truncs, infos = self.team.step(actions)
        reward = float(sum(rewards.values()))
        if self.team.params.shared_reward:  # every agent already holds the team's sum
            reward = rewards[self.agents[0]]
        terminated, truncated = any(terms.values()), any(truncs.values())
        return self._stack(obs), reward, terminated, truncated, self._info(infos)

    def _refuse_non_integers(self, action: Any, array: np.ndarray) -> None:
        """A float (or other) array: name the first entry that is not a whole number (a NaN,
        say), not merely the first entry, whose value may be fine."""

        def whole(value: Any) -> bool:
            try:
                return bool(np.isfinite(value)) and float(value).is_integer()
            except (TypeError, ValueError):
                return False

        bad = next((i for i, value in enumerate(array) if not whole(value)), 0)
        raise ValueError(
            f"action for agent {self.agents[bad]!r} must be an integer id, got {array[bad]!r} "
            f"in {action!r} (dtype {array.dtype}; pass integer ids, e.g. an int64 array)"
        )

    def action_masks(self) -> np.ndarray:
        """(P·A,) bool: the legal actions of every agent, concatenated (``MaskablePPO``)."""
        return self._mask.reshape(-1).astype(bool)

    def _stack(self, obs: dict) -> np.ndarray:
        return np.stack([obs[a] for a in self.agents]).astype(np.float32, copy=False)

    def _info(self, infos: dict) -> dict[str, np.ndarray]:
        rows = [infos[a] for a in self.agents]
        self._mask = np.stack([r["action_mask"] for r in rows])
        return {
            "action_mask": self._mask.copy(),
            "alive": np.array([r["alive"] for r in rows], bool),
            "cooperation": np.array([[r[k] for k in COOPERATION_KEYS] for r in rows], np.float32),
            "score": np.stack([r["score"] for r in rows]),
        }

    def render(self) -> np.ndarray | None:
        """The team frame (``AlemParallelEnv.render``) for ``render_mode="rgb_array"``."""
        return self.team.render() if self.render_mode is not None else None

    def close(self) -> None:
        """Close the ``ParallelEnv`` (compiled functions stay shared)."""
        self.team.close()


def make_team_env(**kwargs: Any) -> AlemTeamEnv:
    """The ``entry_point`` of ``alem/Coop-v0`` (``gymnasium.make`` and ``sync``/``async``)."""
    return AlemTeamEnv(**kwargs)


__all__ = ["AlemTeamEnv", "make_team_env"]
