"""alem for RLlib: observation keys an action-masking RLModule reads, and an env creator.

Action-masking RLModules (``alem_pz.envs.rllib_module.MaskedPPOTorchModule``, RLlib's example one)
expect each observation to be a dict ``{"observations": ..., "action_mask": ...}``; alem's
``mask_in_obs=True`` gives ``{"observation": ..., "action_mask": ...}`` (the PettingZoo classic
convention), so the module failed with ``KeyError: 'observations'``. ``RLlibObservationKeys``
renames the one key and nothing else: same arrays, same mask (``np.int8``), same agents.

``rllib_env(config)`` is the creator to pass to ``ray.tune.register_env``: it wraps that env in
RLlib's ``ParallelPettingZooEnv`` and fixes two things about the wrapper (docs/training.md#rllib):

* agent order: the wrapper lists agents from a ``set``, whose order changes with the process's
  string hash seed; we list them in ``possible_agents`` order (``agent_0``, ``agent_1``, ...).
* ``render()``: the wrapper calls ``render(self.render_mode)`` although PettingZoo's ``render``
  takes no argument; ``RLlibObservationKeys.render`` accepts and ignores that argument.

Importing this module does not import Ray; only ``rllib_env`` does. No game rules live here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseParallelWrapper

from alem_pz.envs.parallel import AlemParallelEnv

OBS_KEY = "observations"
"""Key of the observation in RLlib's action-masking dict observations."""
MASK_KEY = "action_mask"
"""Key of the ``np.int8`` legal-action mask (the same name alem uses)."""
_ALEM_OBS_KEY = "observation"


class RLlibObservationKeys(BaseParallelWrapper):
    """Renames ``"observation"`` to ``"observations"`` in a ``mask_in_obs=True`` alem env."""

    def __init__(self, env: AlemParallelEnv) -> None:
        """Wrap ``env``, whose observation spaces must be ``{"observation", "action_mask"}``.

        Raises:
            ValueError: if ``env`` was not built with ``mask_in_obs=True``.
        """
        super().__init__(env)
        self.observation_spaces = {a: self._renamed_space(env, a) for a in env.possible_agents}
        self.action_spaces = {a: env.action_space(a) for a in env.possible_agents}

    @staticmethod
    def _renamed_space(env: AlemParallelEnv, agent: str) -> spaces.Dict:
        inner = env.observation_space(agent)
        if not (isinstance(inner, spaces.Dict) and set(inner.spaces) == {_ALEM_OBS_KEY, MASK_KEY}):
            raise ValueError(
                f"RLlibObservationKeys needs an env built with mask_in_obs=True; agent {agent!r} "
                f"has observation space {inner!r}"
            )
        return spaces.Dict({OBS_KEY: inner[_ALEM_OBS_KEY], MASK_KEY: inner[MASK_KEY]})

    @property
    def possible_agents(self) -> list[str]:
        return self.env.possible_agents

    @property
    def agents(self) -> list[str]:
        return self.env.agents

    def observation_space(self, agent: str) -> spaces.Dict:
        """The (cached) ``{"observations", "action_mask"}`` space of ``agent``."""
        try:
            return self.observation_spaces[agent]
        except KeyError:
            raise ValueError(
                f"unknown agent {agent!r}; agents are {self.possible_agents}"
            ) from None

    def action_space(self, agent: str) -> spaces.Space:
        """The inner env's (cached) action space of ``agent``."""
        return self.env.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None):
        """The inner reset, with renamed observation keys."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return _renamed(obs), infos

    def step(self, actions: Mapping[str, Any]):
        """The inner step, with renamed observation keys."""
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        return _renamed(obs), rewards, terms, truncs, infos

    def render(self, _ignored_mode: str | None = None) -> np.ndarray | None:
        """The inner ``render()``; the argument RLlib's wrapper passes is ignored (the mode
        is fixed when the env is built, as in PettingZoo)."""
        return self.env.render()


def _renamed(obs: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
    return {agent: {OBS_KEY: o[_ALEM_OBS_KEY], MASK_KEY: o[MASK_KEY]} for agent, o in obs.items()}


def rllib_parallel_env(**kwargs: Any) -> RLlibObservationKeys:
    """An alem ``ParallelEnv`` with RLlib's observation keys (no Ray needed).

    Args:
        **kwargs: ``AlemParallelEnv`` keyword arguments; ``mask_in_obs`` is always True.

    Raises:
        ValueError: for ``mask_in_obs=False``, ``obs_type="text"`` (RLlib's torch models take
            arrays, not strings), and anything ``AlemParallelEnv`` rejects.
    """
    if not kwargs.pop("mask_in_obs", True):
        raise ValueError(
            "rllib_parallel_env always puts the mask in the observation; got mask_in_obs=False"
        )
    if kwargs.get("obs_type") == "text":
        raise ValueError(
            "rllib_parallel_env needs array observations; got obs_type='text' "
            "(use 'symbolic' or 'pixels')"
        )
    return RLlibObservationKeys(AlemParallelEnv(mask_in_obs=True, **kwargs))


def rllib_env(config: Mapping[str, Any] | None = None) -> Any:
    """RLlib env creator: ``ParallelPettingZooEnv`` over ``rllib_parallel_env(**config)``.

    Use it as ``ray.tune.register_env("alem", rllib_env)`` and pass the env keyword arguments
    as ``env_config``. Agents are listed in a fixed order (``possible_agents``); alem keeps
    dead agents in the episode until it ends, so that list never changes mid-episode.
    """
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    env = ParallelPettingZooEnv(rllib_parallel_env(**dict(config or {})))
    ordered = list(env.par_env.possible_agents)
    env.agents = ordered
    env.possible_agents = list(ordered)
    env.observation_spaces = {a: env.par_env.observation_space(a) for a in ordered}
    env.action_spaces = {a: env.par_env.action_space(a) for a in ordered}
    env.render_mode = env.par_env.render_mode
    return env


__all__ = ["MASK_KEY", "OBS_KEY", "RLlibObservationKeys", "rllib_env", "rllib_parallel_env"]
