"""``alem_pz.make`` and the PettingZoo registry entries (``pettingzoo.make``)."""

from __future__ import annotations

from typing import Any

import pettingzoo

from alem_pz import alem_coop_v0

ENV_IDS = {"alem/Coop-v0": alem_coop_v0}
"""Registered ids and their entry modules."""


def make(env_id: str = "alem/Coop-v0", *, parallel: bool = True, **kwargs: Any) -> Any:
    """Create an alem env: a ``ParallelEnv`` by default, the AEC env with ``parallel=False``.

    Args:
        env_id: a registered id (``"alem/Coop-v0"``).
        parallel: return the ``ParallelEnv`` (True) or the AEC env (False).
        **kwargs: the env's keyword arguments (see ``alem_pz.parallel``).

    Returns:
        ``AlemParallelEnv`` or the AEC env from ``alem_pz.alem_coop_v0.env``.
    """
    module = ENV_IDS.get(env_id)
    if module is None:
        raise ValueError(f"unknown alem env id {env_id!r}; known ids: {sorted(ENV_IDS)}")
    return module.parallel_env(**kwargs) if parallel else module.env(**kwargs)


def register() -> None:
    """Register every id with ``pettingzoo.register`` for "parallel" and "aec" (idempotent)."""
    for env_id, module in ENV_IDS.items():
        for env_type, registry, entry in (
            ("parallel", pettingzoo.parallel_registry, module.parallel_env),
            ("aec", pettingzoo.aec_registry, module.env),
        ):
            if env_id not in registry:
                pettingzoo.register(env_type, env_id, entry_point=entry)


__all__ = ["ENV_IDS", "make", "register"]
