"""The small world every test, benchmark smoke run and notebook's CI setting shares.

One ``StaticParams`` value, written once: each distinct ``StaticParams`` is a program compiled
again, so tests that differ from it only by accident would pay a compile each. A test that needs
more floors or agents derives its world from this one (``small(num_levels=9)``), so the
difference is the only thing it writes.
"""

from __future__ import annotations

import dataclasses

from alem_core.params import StaticParams

SMALL = StaticParams(map_size=(16, 16), num_levels=1, player_count=3)
"""16 x 16, one floor, three agents."""


def small(**changes) -> StaticParams:
    """``SMALL`` with ``changes`` (e.g. ``small(num_levels=9)``, ``small(player_count=2)``)."""
    return dataclasses.replace(SMALL, **changes)


__all__ = ["SMALL", "small"]
