"""What the benchmarks share, so that "the default world" and "the load" mean one thing in every
figure: the world a user gets from ``gymnasium.make_vec("alem/Coop-v0")`` (48 x 48, nine
floors, a team of three, "medium", the default episode horizon), the small world the tests
use (for smoke runs of a tool) and the load average printed beside every figure. The
masked-random team is ``alem_pz.evaluation.baselines.MaskedRandom`` on the host (``actions``
draws a whole batch) and ``alem_core.testing.rollout.random_legal_actions`` on the device.

Only ``alem_core`` and JAX are imported here: the speed tools' device paths also run on a
machine without PettingZoo or Gymnasium (``bench/gpu.sh``).
"""

from __future__ import annotations

import os

import jax

PLAYERS = 3
DIFFICULTY = "medium"
HORIZON = 10_000
"""alem_pz's default ``max_steps`` (``make_vec`` uses its own; a test checks they agree), so
every path ends episodes alike."""
SMALL = {"map_size": (16, 16), "num_levels": 1}
"""The unit tests' world (seconds to compile): ``--small`` checks that a tool runs."""


def world(small: bool = False, players: int = PLAYERS, difficulty: str = DIFFICULTY,
          max_steps: int = HORIZON, **shapes):  # fmt: skip
    """``(params, static)`` of the world ``make_vec`` builds by default (``small``: the tests'
    16 x 16 one-floor world; ``shapes``: other ``StaticParams`` fields)."""
    import alem_core

    static = alem_core.StaticParams(player_count=players, **(SMALL if small else {}), **shapes)
    return alem_core.make_params(difficulty, max_timesteps=max_steps), static


def load_average() -> list[float]:
    """The 1, 5 and 15-minute load averages: on a shared machine every figure scales with the
    free cores, so each record carries them."""
    return [round(v, 2) for v in os.getloadavg()]


def peak_device_bytes() -> int | None:
    """The device's peak memory in use so far (None where the backend does not say: CPU)."""
    stats = jax.local_devices()[0].memory_stats() or {}
    return stats.get("peak_bytes_in_use")
