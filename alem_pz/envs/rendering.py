"""Pictures of an ``AlemParallelEnv``: pixel observations, team frames and the human window.

Nothing here imports pygame at module level: ``render_mode=None`` and ``"rgb_array"`` never touch
it; only ``Window`` (``render_mode="human"``, ``alem_pz.play.keyboard``) imports it, on first use.

The team frame shows **each agent's own view side by side** (``pixel_observation`` at a larger
tile size), not one map area around the team: agents are often far apart on a 48 x 48 map, so
a box holding all of them would shrink every tile, and the side-by-side frame also shows each
agent's teammate strip and status panel, i.e. exactly what each agent sees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import alem_core
from alem_core.executables import per_shape, quick_compile_options
from alem_core.pixels import AGENT_TILE_PX, pixel_observation
from alem_pz.envs.kernels import compiled_core

RENDER_TILE_PX = 16
"""Pixels per tile of ``render()`` frames (agents observe at 10)."""
GAP_PX = 4
GAP_COLOUR = (12, 12, 16)


def _images(static: alem_core.StaticParams, tile_px: int) -> Callable:
    """``state buffers -> (P, H, W, 3) float32`` images of every agent (traceable)."""
    unpack = compiled_core(static).unpack

    def images(state_buffers: Any) -> jax.Array:
        return pixel_observation(unpack(state_buffers), None, static, tile_px)

    return images


@per_shape
def pixel_function(static: alem_core.StaticParams, tile_px: int) -> Callable:
    """Jitted ``state buffers -> (P, H, W, 3) float32`` images of every agent, per shape; one
    world per call, so compiled with ``quick_compile_options``."""
    return jax.jit(_images(static, tile_px), compiler_options=quick_compile_options("every_step"))


@per_shape
def frame_function(static: alem_core.StaticParams, tile_px: int) -> Callable:
    """Jitted ``state buffers -> (H, P * W + gaps, 3) uint8`` team frame (views side by side)."""
    images = _images(static, tile_px)

    def frame(state_buffers: Any) -> jax.Array:
        views = (images(state_buffers) * 255.0 + 0.5).astype(jnp.uint8)
        gap = jnp.broadcast_to(jnp.asarray(GAP_COLOUR, jnp.uint8), (views.shape[1], GAP_PX, 3))
        parts = []
        for i in range(views.shape[0]):
            parts += [gap, views[i]] if i else [views[i]]
        return jnp.concatenate(parts, axis=1)

    return jax.jit(frame, compiler_options=quick_compile_options("every_step"))


def draw_pixels(static: alem_core.StaticParams, state: Any, tile_px: int) -> np.ndarray:
    """(P, H, W, 3) float32 pixel observation of every agent from a packed ``state``."""
    return np.array(jax.device_get(pixel_function(static, tile_px)(state)))


def draw_team(static: alem_core.StaticParams, state: Any, tile_px: int) -> np.ndarray:
    """(H, W, 3) uint8 frame of the whole team from a packed ``state``."""
    return np.asarray(jax.device_get(frame_function(static, tile_px)(state)))


def pixel_observations(env: Any, tile_px: int = AGENT_TILE_PX) -> np.ndarray:
    """(P, H, W, 3) float32 pixel observation of every agent of ``env`` (an ``AlemParallelEnv``)."""
    return draw_pixels(env.static, env.packed_state, tile_px)


def team_frame(env: Any, tile_px: int = RENDER_TILE_PX) -> np.ndarray:
    """(H, W, 3) uint8 frame of the whole team: every agent's view, side by side, agent order."""
    return draw_team(env.static, env.packed_state, tile_px)


class Renderer:
    """``render()`` of one env: the team frame for "rgb_array", a window for "human" (opened at
    the first frame). The env holds one and hands it its state."""

    def __init__(self, static: alem_core.StaticParams, mode: str | None, fps: float) -> None:
        self.static, self.mode, self.fps = static, mode, fps
        self.window: Window | None = None

    def render(self, state: Any) -> np.ndarray | None:
        """The frame of a packed ``state`` (returned for "rgb_array", shown for "human"; the
        env calls it only with a render mode)."""
        frame = draw_team(self.static, state, RENDER_TILE_PX)
        if self.mode == "rgb_array":
            return frame
        if self.window is None:
            self.window = Window(caption=f"alem: {self.static.player_count} agents")
        self.window.show(frame, self.fps)
        return None

    def close(self) -> None:
        """Close the window, if one is open."""
        if self.window is not None:
            self.window.close()
            self.window = None


class Window:
    """A pygame window showing uint8 frames at a fixed rate (pygame imported on creation)."""

    def __init__(self, caption: str = "alem", scale: float = 1.0) -> None:
        try:
            import pygame
        except ImportError as error:  # pragma: no cover - depends on the install
            raise ImportError(
                'rendering needs pygame-ce: pip install -e ".[render]" (in a clone of alem)'
            ) from error
        self.pygame = pygame
        pygame.display.init()
        pygame.display.set_caption(caption)
        self.scale = scale
        self.screen = None
        self.clock = pygame.time.Clock()
        self.closed = False

    def show(self, frame: np.ndarray, fps: float) -> None:
        """Draw ``frame`` (H, W, 3) uint8, then wait to keep ``fps`` frames per second."""
        pg = self.pygame
        size = (round(frame.shape[1] * self.scale), round(frame.shape[0] * self.scale))
        screen = self.screen
        if screen is None or screen.get_size() != size:
            screen = self.screen = pg.display.set_mode(size)
        surface = pg.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        if size != surface.get_size():
            surface = pg.transform.scale(surface, size)
        screen.blit(surface, (0, 0))
        pg.display.flip()
        for event in pg.event.get(pg.QUIT):
            del event
            self.closed = True
        self.clock.tick(fps)

    def close(self) -> None:
        """Close the window (pygame's display is shut down; other modules stay as they are)."""
        self.pygame.display.quit()
