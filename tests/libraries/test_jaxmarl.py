"""JaxMARL's documented pattern over alem (docs/libraries/jaxmarl.md): ``LogWrapper`` around
the env, ``vmap(env.step)`` in a jitted scan, masks from ``get_avail_actions``."""

from __future__ import annotations

import pytest

pytest.importorskip("jaxmarl", reason="JaxMARL is not installed (pip install -e '.[jaxmarl]')")

from .conftest import run_snippet

pytestmark = pytest.mark.jaxmarl  # CI's second stage installs JaxMARL and selects it (.ci/run)


def test_the_docs_smallest_snippet_runs(capsys):
    scope = run_snippet("jaxmarl.md", index=0, max_steps=10)
    assert int(scope["done"].sum()) == 4 * 100 // 10  # every env ends an episode each 10 steps
    assert int(scope["illegal"].sum()) == 0
    assert "40 episodes ended, 0 illegal actions" in capsys.readouterr().out
