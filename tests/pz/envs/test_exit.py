"""A script that ends right after its first reset, on an empty compilation cache, exits
cleanly: normally with status 0, by an exception in user code with status 1 and the traceback,
never by a signal. The env compiles its step in a worker thread from the first reset on; the
process must wait for it rather than tear XLA down under a running compile.

Marked slow (CI's second stage runs them): they compile on an empty cache by design, so they
cost 15-17 s each on 2 cores however warm the suite's cache is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import alem_core, alem_pz
from alem_core.testing import SMALL as static
env = alem_pz.make(players=3, static=static)
env.reset(seed=0)
{ending}
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ending", "status"),
    [("print('done')", 0), ("raise ValueError('user code failed')", 1)],
    ids=["normal-exit", "exception"],
)
def test_exit_right_after_a_cold_reset(tmp_path, ending, status):
    env = dict(os.environ, JAX_COMPILATION_CACHE_DIR=str(tmp_path / "empty-cache"))
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(ending=ending)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == status, result.stderr[-2000:]
    assert "FATAL" not in result.stderr and "Segmentation" not in result.stderr
    if status:
        assert "ValueError: user code failed" in result.stderr
