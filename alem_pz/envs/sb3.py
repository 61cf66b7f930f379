"""alem as a Stable-Baselines3 ``VecEnv``: N batched worlds x P agents, with action masks.

    from sb3_contrib import MaskablePPO
    import alem_pz.envs.sb3

    env = alem_pz.envs.sb3.make_vec_env(8, players=3, max_steps=1000)   # 8 worlds: 24 sub-envs
    model = MaskablePPO("MlpPolicy", env).learn(10_000)              # masks: env.action_masks()

* Sub-env ``w * P + i`` is agent ``i`` of world ``w`` (as in ``alem_pz.envs.vector``); one policy
  serves every agent (parameter sharing). All N worlds step in one jitted call.
* SB3's auto-reset convention: on the step where a world's episode ends, its sub-envs report
  ``done``, ``infos[k]["terminal_observation"]`` holds the final observation,
  ``infos[k]["TimeLimit.truncated"]`` tells truncation from termination, and the returned
  observation is already the next episode's first one: the vector env's ``SAME_STEP`` mode
  (``alem_core.batch``'s one auto-reset), which starts the ended worlds without stepping any
  other, so every action the policy picks is carried out.
* Episode statistics: ``infos[k]["episode"] = {"r", "l", "t"}`` on the ending step, the format
  of SB3's ``Monitor``/``VecMonitor`` (wrapping in ``VecMonitor`` works and overwrites it with
  the same numbers). ``infos[k]["score"]`` holds the (K,) score row there (``score_keys``).
* ``action_masks()`` (N·P, A) bool, for ``sb3_contrib.MaskablePPO`` (it also asks
  ``env_method("action_masks")``, answered from the same array).
* Illegal actions: as in ``AlemParallelEnv``; ``strict_actions=True`` raises naming the
  sub-env, its (world, agent) and the action.

Keyword arguments: those of ``alem_pz.envs.vector.AlemVectorEnv``; ``seed()`` seeds the next
``reset`` (SB3's convention), else each ``reset`` draws a fresh seed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as error:  # pragma: no cover - exercised only without SB3
    raise ImportError(
        "alem_pz.envs.sb3 needs Stable-Baselines3: pip install stable-baselines3 sb3-contrib "
        "(with a CPU-only torch: pip install -c <(echo torch==2.13.0) stable-baselines3)"
    ) from error

from alem_pz.envs.vector import AlemVectorEnv


class AlemSB3VecEnv(VecEnv):
    """N alem worlds as an SB3 ``VecEnv`` of N x P sub-envs (see the module docstring)."""

    def __init__(self, num_envs: int = 1, **env_kwargs: Any) -> None:
        """Build the env (nothing compiles before the first ``reset``); raises ValueError for
        whatever ``AlemVectorEnv`` rejects."""
        self.vector = AlemVectorEnv(
            num_envs=num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **env_kwargs
        )
        self.render_mode = None
        v = self.vector
        super().__init__(v.num_envs, v.single_observation_space, v.single_action_space)
        self._actions: np.ndarray | None = None
        self._mask = np.zeros((v.num_envs, v.num_actions), bool)
        self._returns = np.zeros(v.num_envs, np.float64)
        self._lengths = np.zeros(v.num_envs, np.int64)
        self._start = time.perf_counter()

    @property
    def score_keys(self) -> tuple[str, ...]:
        """Names of the K columns of ``infos[k]["score"]`` (docs/rules/score.md)."""
        return self.vector.score_keys

    def reset(self) -> np.ndarray:
        """Start every world (with the seed given to ``seed()``, if any); (N·P, D) float32."""
        seed = self._seeds[0]
        obs, infos = self.vector.reset(seed=seed)
        self._reset_seeds()
        self._mask = infos["action_mask"].astype(bool)
        self._returns[:] = 0
        self._lengths[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Store (N·P,) integer actions for ``step_wait``."""
        self._actions = np.asarray(actions)

    def step_wait(self):
        """Step every world; ended worlds are reset in the same call (SB3's convention)."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async(actions)")
        obs, rewards, terms, truncs, infos = self.vector.step(self._actions)
        self._actions = None
        dones = terms | truncs
        self._returns += rewards
        self._lengths += 1
        out = [{} for _ in range(self.num_envs)]
        mask = infos["action_mask"].astype(bool)
        if dones.any():
            final = infos["final_obs"]
            elapsed = round(time.perf_counter() - self._start, 6)
            for k in np.flatnonzero(dones):
                out[k] = {
                    "terminal_observation": final[k],
                    "TimeLimit.truncated": bool(truncs[k] and not terms[k]),
                    "episode": {"r": float(self._returns[k]), "l": int(self._lengths[k]),
                                "t": elapsed},
                    "score": infos["score"][k],
                }  # fmt: skip
            self._returns[dones] = 0
            self._lengths[dones] = 0
        self._mask = mask
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """(N·P, A) bool: the legal actions of every sub-env now (``MaskablePPO``)."""
        return self._mask.copy()

    def close(self) -> None:
        """Nothing to release (compiled functions stay cached for other envs)."""

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The attribute of this env, once per selected sub-env (all sub-envs share it)."""
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set an attribute of this env (the sub-envs are one batched env)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        """``action_masks`` row by row (``sb3_contrib``); other methods once per sub-env."""
        selected = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[selected])
        method = getattr(self, method_name)
        return [method(*args, **kwargs) for _ in selected]

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        """No sub-env is wrapped (they are rows of one batched env)."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No rendering on this face (use ``AlemParallelEnv`` with ``render_mode``)."""
        return [None for _ in range(self.num_envs)]


def make_vec_env(num_envs: int = 1, **env_kwargs: Any) -> AlemSB3VecEnv:
    """An SB3 ``VecEnv`` over ``num_envs`` batched worlds (``num_envs * players`` sub-envs).

    Args:
        num_envs: the number of worlds N.
        **env_kwargs: ``players``, ``difficulty``, ``max_steps``, ``params``, ``static``,
            ``strict_actions``, ... (``alem_pz.envs.vector.AlemVectorEnv``).
    """
    return AlemSB3VecEnv(num_envs=num_envs, **env_kwargs)


__all__ = ["AlemSB3VecEnv", "make_vec_env"]
