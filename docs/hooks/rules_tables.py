"""MkDocs hook: replace ``<!-- table: NAME -->`` markers with tables built from alem's code.

Why: the rules pages must not drift from the game. Every table of numbers on them (blocks,
recipes, mobs, achievements, presets, keys, ...) is rendered at build time from the tables the
systems themselves read (``alem_core.rules``, ``alem_core.constants``, ``alem_pz.play.keys``, ...),
so a rule change shows up in the docs on the next build, and a stale marker fails the build.

The generators read their tables through module attributes at call time (never copies taken at
import), so a test can monkeypatch a rule value and see the rendered page change.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tables_play
import tables_results
import tables_world

MARKER = re.compile(r"<!--\s*table:\s*([a-z_]+)\s*-->")

GENERATORS: dict[str, Callable[[], str]] = {
    **tables_world.GENERATORS,
    **tables_play.GENERATORS,
    **tables_results.GENERATORS,
}
"""Marker name -> function returning the Markdown that replaces the marker."""


class UnknownTableError(ValueError):
    """A page names a table no generator provides (a typo, or a generator was removed)."""


def render(markdown: str) -> str:
    """``markdown`` with every table marker replaced by its generated table."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise UnknownTableError(
                f"unknown table marker {name!r}; known: {', '.join(sorted(GENERATORS))}"
            )
        return GENERATORS[name]()

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, **_: object) -> str:
    """MkDocs event: runs on every page's Markdown before it is converted to HTML."""
    return render(markdown)
