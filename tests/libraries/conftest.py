"""Shared helpers for the third-party library tests: tiny worlds, and running the snippets of
``docs/libraries/*.md`` as written (so the pages cannot drift from what works).

Every snippet sets its world options on one line starting ``kwargs = dict(``; the tests
replace that line with the suite's small world (16 x 16, one floor) and a short horizon.
"""

from __future__ import annotations

import re
from pathlib import Path

from alem_core.testing import SMALL

DOCS = Path(__file__).resolve().parents[2] / "docs" / "libraries"


def small(**overrides) -> dict:
    """Env kwargs for the small world (3 players, 16 x 16, one floor)."""
    return dict(players=3, static=SMALL, **overrides)


def snippet(page: str, index: int = 0) -> str:
    """The ``index``-th python code block of ``docs/libraries/<page>``."""
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S)
    return blocks[index]


def run_snippet(
    page: str, index: int = 0, max_steps: int = 8, small: str = "static=SMALL", **names
) -> dict:
    """Execute a snippet with its ``kwargs = dict(...)`` line set to the small world (``small``:
    how the page's API names it); returns the snippet's globals (``names`` are defined before
    it runs)."""
    code = snippet(page, index)
    line = re.search(r"^kwargs = dict\(.*\)$", code, re.M)
    assert line, f"{page}: the snippet has no 'kwargs = dict(...)' line"
    code = code.replace(line.group(0), f"kwargs = dict(players=3, {small}, max_steps={max_steps})")
    scope = {"SMALL": SMALL, **names}
    exec(compile(code, f"docs/libraries/{page}", "exec"), scope)
    return scope
