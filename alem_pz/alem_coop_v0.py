"""PettingZoo-style entry module for ``alem/Coop-v0``: ``parallel_env``, ``env`` and ``raw_env``.

All three take the keyword arguments of ``alem_pz.envs.parallel.AlemParallelEnv`` (see its env
card), plus ``max_cycles`` as an alias of ``max_steps`` (``pettingzoo.make`` and PettingZoo's
``max_cycles_test`` pass it).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from alem_pz.envs.aec import AlemAECEnv
from alem_pz.envs.parallel import DEFAULT_MAX_STEPS, AlemParallelEnv


def parallel_env(*, max_cycles: int | None = None, **kwargs: Any) -> AlemParallelEnv:
    """The ``ParallelEnv``; ``max_cycles`` (if given) sets ``max_steps``."""
    if max_cycles is not None:
        max_steps = kwargs.pop("max_steps", None)
        if max_steps not in (None, max_cycles):
            raise ValueError(
                f"max_cycles={max_cycles!r} and max_steps={max_steps!r} disagree; pass only one"
            )
        kwargs["max_steps"] = max_cycles
    kwargs.setdefault("max_steps", DEFAULT_MAX_STEPS)
    return AlemParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> AlemAECEnv:
    """The AEC env without wrappers: PettingZoo's conversion of ``parallel_env(**kwargs)``,
    checking each action at its own agent's turn (``alem_pz.envs.aec``)."""
    return AlemAECEnv(parallel_env(**kwargs))


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The AEC env, wrapped as ``pettingzoo.utils.parallel_to_aec`` wraps its conversion."""
    return OrderEnforcingWrapper(raw_env(**kwargs))


__all__ = ["env", "parallel_env", "raw_env"]
