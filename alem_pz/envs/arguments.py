"""Checking what a user passes to the env faces (actions, and the constructor's counts,
switches, shapes and gameplay parameters), one module for every face: a clear error naming the
agent or argument and the value, raised before anything in the running episode changes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import numpy as np

import alem_core
from alem_core.constants import Action, action_label


def as_int(value: Any) -> int | None:
    """``value`` as an int if it is an integer scalar (Python, numpy or 0-d array), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    is_array = isinstance(value, (np.ndarray, jax.Array))
    if is_array and value.shape == () and np.issubdtype(value.dtype, np.integer):
        return int(value)
    return None


INT32_MAX = 2**31 - 1
"""The world counts steps in int32: a larger horizon would overflow inside the step."""


def positive_int(name: str, value: Any, most: int = INT32_MAX) -> int:
    """``value`` as an int in [1, ``most``]; a ValueError names ``name`` and the value."""
    integer = as_int(value)
    if integer is None or not 1 <= integer <= most:
        raise ValueError(f"{name} must be an int in [1, {most:,}], got {value!r}")
    return integer


def switch(name: str, value: Any) -> bool:
    """``value`` as a bool; a ValueError names ``name`` for anything but True or False (a
    string such as "no" would otherwise read as True)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def static_params(
    players: int, comm_channels: int, static: alem_core.StaticParams | None
) -> alem_core.StaticParams:
    """The faces' shapes: ``static`` if given (its sizes must equal ``players`` and
    ``comm_channels``), else the default world for that team."""
    if static is None:
        return alem_core.StaticParams(player_count=players, num_comm_channels=comm_channels)
    if not isinstance(static, alem_core.StaticParams):
        raise ValueError(f"static must be an alem_core.StaticParams or None, got {static!r}")
    if (static.player_count, static.num_comm_channels) != (players, comm_channels):
        raise ValueError(
            f"static.player_count={static.player_count} and static.num_comm_channels="
            f"{static.num_comm_channels} must equal players={players!r} and "
            f"comm_channels={comm_channels!r}"
        )
    return static


def gameplay_params(
    difficulty: str | float, max_steps: int, overrides: Mapping[str, Any] | None
) -> alem_core.Params:
    """The faces' ``Params``: ``difficulty`` with the ``params`` overrides and the horizon
    ``max_steps`` (never ``params["max_timesteps"]``: one spelling per face)."""
    overrides = {} if overrides is None else overrides
    if not isinstance(overrides, Mapping):
        raise ValueError(f"params must be a dict of Params overrides or None, got {overrides!r}")
    if "max_timesteps" in overrides:
        raise ValueError(
            f"set the horizon with max_steps=..., not params['max_timesteps'] "
            f"(got {overrides['max_timesteps']!r})"
        )
    return alem_core.make_params(difficulty, **overrides, max_timesteps=max_steps)


def action_array(
    actions: Mapping[str, Any],
    agents: Sequence[str],
    possible_agents: Sequence[str],
    num_actions: int,
) -> np.ndarray:
    """(P,) int32 action ids in ``possible_agents`` order (NOOP for agents not in ``agents``)
    from ``{agent: action}``, which must give exactly one valid action per agent in ``agents``.
    """
    index = {agent: i for i, agent in enumerate(possible_agents)}
    if not isinstance(actions, Mapping):
        raise ValueError(
            f"actions must be a dict {{agent: int}} for agents {agents}, got {actions!r}"
        )
    out = np.full((len(possible_agents),), Action.NOOP, np.int32)
    for agent, value in actions.items():
        if agent not in index:
            raise ValueError(
                f"action {value!r} given for unknown agent {agent!r}; agents are {possible_agents}"
            )
        if agent not in agents:
            raise ValueError(
                f"action {value!r} given for agent {agent!r}, which has left the episode; "
                f"live agents are {agents}"
            )
        out[index[agent]] = check_action(agent, value, num_actions)
    missing = [a for a in agents if a not in actions]
    if missing:
        raise ValueError(
            f"no action given for agent(s) {missing} (got actions {dict(actions)!r}); "
            f"step() needs one action for every agent in env.agents"
        )
    return out


def check_action(agent: str, value: Any, num_actions: int) -> int:
    """``value`` as an action id of ``agent``; a ValueError names the agent and the value."""
    n = num_actions
    integer = as_int(value)
    if integer is None:
        raise ValueError(
            f"action for agent {agent!r} must be an integer in [0, {n - 1}], "
            f"got {value!r} (type {type(value).__name__})"
        )
    if not 0 <= integer < n:
        raise ValueError(
            f"action for agent {agent!r} is out of range: got {value!r}, "
            f"expected an integer in [0, {n - 1}]"
        )
    return integer


def check_legal(
    chosen: np.ndarray, masks: np.ndarray, agents: Sequence[str], possible_agents: Sequence[str]
) -> None:
    """Strict mode: raise ValueError for the first agent in ``agents`` whose action its mask
    (``masks`` (P, A), from the last observation) marks illegal, naming agent and action."""
    for agent in agents:
        i = possible_agents.index(agent)
        action = int(chosen[i])
        if not masks[i, action]:
            legal = np.flatnonzero(masks[i]).tolist()
            label = action_label(action, len(possible_agents))
            raise ValueError(
                f"illegal action {action} ({label}) for agent {agent!r}: its "
                f"action mask allows only {legal} now (strict_actions=True; without it the "
                "rules would leave the world as NOOP does)"
            )


__all__ = [
    "INT32_MAX",
    "action_array",
    "as_int",
    "check_action",
    "check_legal",
    "positive_int",
    "switch",
]
