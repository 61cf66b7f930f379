"""The Gymnasium, SuperSuit and CleanRL pages' snippets run as written on the small world
(docs/libraries/gymnasium.md, supersuit.md, cleanrl.md)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import run_snippet


def test_gymnasium_wrapper_chain_snippet(capsys):
    scope = run_snippet("gymnasium.md", index=0, max_steps=20)
    assert scope["infos"]["score"].shape[0] == 2 * 3
    assert np.isfinite(scope["rewards"]).all()
    assert capsys.readouterr().out.count("length 20") == 500 // 21  # one line per episode end


def test_gymnasium_team_env_snippet():
    scope = run_snippet("gymnasium.md", index=1, max_steps=20)
    assert scope["obs"].shape[0] == 3 and scope["vec"].num_envs == 2


def test_supersuit_snippet():
    pytest.importorskip("supersuit", reason="supersuit is not installed (pip install supersuit)")
    scope = run_snippet("supersuit.md", max_steps=20)
    assert scope["obs"].shape[0] == 6 and scope["infos"][0]["score"].ndim == 1


def test_cleanrl_loop_snippet(capsys):
    run_snippet("cleanrl.md", max_steps=20)
    assert capsys.readouterr().out.count("achievements") == 6 * (400 // 21)  # 6 sub-envs
