"""The env id, written once, and its registrations: ``alem_pz.make``, PettingZoo's registry
(``pettingzoo.make``) and Gymnasium's (``gymnasium.make`` and ``gymnasium.make_vec``)."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import pettingzoo

from alem_pz import alem_coop_v0

ENV_ID = "alem/Coop-v0"
ENV_IDS = {ENV_ID: alem_coop_v0}
"""Registered ids and their entry modules."""


def make(env_id: str = ENV_ID, *, parallel: bool = True, **kwargs: Any) -> Any:
    """Create an alem env: a ``ParallelEnv`` by default, the AEC env with ``parallel=False``.

    Args:
        env_id: a registered id (``"alem/Coop-v0"``).
        parallel: return the ``ParallelEnv`` (True) or the AEC env (False).
        **kwargs: the env's keyword arguments (see ``alem_pz.envs.parallel``).

    Returns:
        ``AlemParallelEnv`` or the AEC env from ``alem_pz.alem_coop_v0.env``.
    """
    module = ENV_IDS.get(env_id)
    if module is None:
        raise ValueError(f"unknown alem env id {env_id!r}; known ids: {sorted(ENV_IDS)}")
    return module.parallel_env(**kwargs) if parallel else module.env(**kwargs)


def has_registry() -> bool:
    """Whether this PettingZoo has an environment registry (``pettingzoo.make``, from 1.27)."""
    return hasattr(pettingzoo, "parallel_registry")


def register() -> bool:
    """Register every id with ``pettingzoo.register`` for "parallel" and "aec" (idempotent).

    PettingZoo before 1.27 has no environment registry (``pettingzoo.make``): there nothing is
    registered, a warning says so, and ``alem_pz.make`` / ``alem_pz.parallel_env`` still work
    (AgileRL, for one, pins ``pettingzoo<1.27``). Returns whether the ids are registered.
    """
    if not has_registry():
        warnings.warn(
            f"PettingZoo {getattr(pettingzoo, '__version__', '?')} has no environment registry "
            f"(added in 1.27), so {sorted(ENV_IDS)} are not registered with pettingzoo.make; "
            "use alem_pz.make(...), alem_pz.parallel_env(...) or alem_pz.env(...) instead",
            stacklevel=2,
        )
        return False
    for env_id, module in ENV_IDS.items():
        for env_type, registry, entry in (
            ("parallel", pettingzoo.parallel_registry, module.parallel_env),
            ("aec", pettingzoo.aec_registry, module.env),
        ):
            if env_id not in registry:
                pettingzoo.register(env_type, env_id, entry_point=entry)
    return True


def register_gymnasium() -> None:
    """Register ``ENV_ID`` with Gymnasium (idempotent): ``gymnasium.make`` and the ``sync`` /
    ``async`` modes of ``make_vec`` build the team env (``alem_pz.envs.single_agent``), the
    ``vector_entry_point`` mode (``make_vec``'s default here) the batched ``AlemVectorEnv``
    (``alem_pz.envs.vector``). Both are named by path, so registering imports neither."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            ENV_ID,
            entry_point="alem_pz.envs.single_agent:make_team_env",
            vector_entry_point="alem_pz.envs.vector:make_vector_env",
        )


__all__ = ["ENV_ID", "ENV_IDS", "has_registry", "make", "register", "register_gymnasium"]
