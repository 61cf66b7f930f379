"""What an agent of ``AlemParallelEnv`` observes: one ``Observer`` per observation type, handed
to the env, which never branches on the type itself.

The compiled step always returns the symbolic vectors and the masks of every agent (one packed
array, ``kernels``); an observer turns that ``Frame`` into each agent's observation. The
symbolic observer hands the vectors out as they are (its work is inside the compiled step); the
pixel observer draws every agent's view from the state (a program of its own, ``rendering``);
the text observer (``alem_pz.text.env``) writes each agent's context. A user's own observer
(anything with ``space`` and ``observe``) is passed as ``AlemParallelEnv(observer=...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np
from gymnasium import spaces

import alem_core
from alem_core.pixels import AGENT_TILE_PX, pixel_shape
from alem_pz.envs import rendering


class Frame(NamedTuple):
    """What the env knows after a reset or a step, for its observer."""

    vectors: np.ndarray
    """(P, D) float32 symbolic observation of every agent (read-only host copy)."""
    masks: np.ndarray
    """(P, A) int8 action masks."""
    state: Any
    """The running episode's state as the compiled step holds it (``packed_state``)."""
    actions: np.ndarray | None
    """(P,) int32 actions of the step (NOOP for departed agents); None after a reset."""
    rewards: np.ndarray | None
    """(P,) float32 rewards of the step (0 for departed agents); None after a reset."""


class Observer(Protocol):
    """Turns a ``Frame`` into every agent's observation."""

    def space(self) -> spaces.Space:
        """One agent's observation space (the env wraps it in a dict with ``mask_in_obs``)."""
        ...

    def observe(self, frame: Frame) -> tuple[Any, Sequence[dict[str, Any]]]:
        """``(observations, extra infos)``, both indexed by agent (agent order); the extras are
        merged into that agent's infos."""
        ...


class SymbolicObserver:
    """The core's symbolic vector (docs/rules/observations.md#symbolic-observation)."""

    def __init__(self, static: alem_core.StaticParams, low: float, high: float) -> None:
        self.box = spaces.Box(low, high, (alem_core.obs_size(static),), np.float32)
        self.no_extras: list[dict[str, Any]] = [{} for _ in range(static.player_count)]

    def space(self) -> spaces.Box:
        """``Box(low, high, (D,), float32)``."""
        return self.box

    def observe(self, frame: Frame) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """Every agent's row of a writable, contiguous copy (users may edit theirs)."""
        return np.array(frame.vectors, np.float32), self.no_extras


class PixelObserver:
    """Each agent's picture: its own view, teammate strip and status panel, float32 in [0, 1]."""

    def __init__(self, static: alem_core.StaticParams, tile_px: int = AGENT_TILE_PX) -> None:
        self.static, self.tile_px = static, tile_px
        self.box = spaces.Box(0.0, 1.0, pixel_shape(static), np.float32)
        self.no_extras: list[dict[str, Any]] = [{} for _ in range(static.player_count)]

    def space(self) -> spaces.Box:
        """``Box(0, 1, (H, W, 3), float32)``."""
        return self.box

    def observe(self, frame: Frame) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """(P, H, W, 3) images drawn from the state (``rendering.pixel_function``)."""
        return rendering.draw_pixels(self.static, frame.state, self.tile_px), self.no_extras


def text_observer(
    params: alem_core.Params, static: alem_core.StaticParams, text_config: Any
) -> Observer:
    """The text observer (imported on demand: symbolic and pixel envs never load the text
    track)."""
    from alem_pz.text.env import EnvTextObserver

    return EnvTextObserver(params, static, text_config)


def make_observer(
    obs_type: str,
    params: alem_core.Params,
    static: alem_core.StaticParams,
    bounds: tuple[float, float],
    text_config: Any = None,
) -> Observer:
    """The observer of ``obs_type`` (one of ``OBSERVERS``); ``bounds`` are the symbolic box's."""
    build: dict[str, Callable[[], Observer]] = {
        "symbolic": lambda: SymbolicObserver(static, *bounds),
        "pixels": lambda: PixelObserver(static),
        "text": lambda: text_observer(params, static, text_config),
    }
    if obs_type not in build:
        raise ValueError(f"obs_type must be one of {OBSERVERS}, got {obs_type!r}")
    return build[obs_type]()


OBSERVERS = ("symbolic", "pixels", "text")
"""The observation types ``AlemParallelEnv(obs_type=...)`` names."""
