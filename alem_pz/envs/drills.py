"""The coordination drills (``alem_core.drills``) as PettingZoo ``ParallelEnv``s: conversion only.

``drill_env("t1_sync", players=3)`` is ``AlemParallelEnv`` with the drill's ``static`` and its
params passed as overrides of the "none" preset; the rules and the worlds live in the core.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from alem_core.drills import DEFAULT_HORIZON, drill_setup
from alem_pz.envs.parallel import AlemParallelEnv


def drill_env(
    name: str,
    players: int | None = None,
    horizon: int = DEFAULT_HORIZON,
    obs_type: str = "symbolic",
    mask_in_obs: bool = False,
    **knobs: Any,
) -> AlemParallelEnv:
    """The drill ``name`` (see ``alem_core.drills.drill_setup`` for players, horizon, knobs)."""
    static, params = drill_setup(name, players, horizon, **knobs)
    overrides = {
        f.name: getattr(params, f.name)
        for f in dataclasses.fields(params)
        if f.name != "max_timesteps"
    }
    return AlemParallelEnv(
        players=static.player_count,
        difficulty="none",
        max_steps=horizon,
        obs_type=obs_type,
        mask_in_obs=mask_in_obs,
        params=overrides,
        static=static,
    )


__all__ = ["drill_env"]
