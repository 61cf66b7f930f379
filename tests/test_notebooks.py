"""Every notebook in ``notebooks/`` runs top to bottom under its small CI settings.

The notebooks read ``ALEM_NOTEBOOK_SMALL=1`` (16 x 16 one-floor world, a few steps, episodes and
worlds); a cell that raises fails the test with the cell's traceback. They are stored without
outputs, which is checked too, so diffs stay reviewable. Running them is marked slow (CI's second
stage runs it): each starts a Jupyter kernel that imports JAX and traces its programs afresh,
10-23 s a notebook on 2 cores with a warm cache.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {
        "quickstart.ipynb",
        "inside_an_episode.ipynb",
        "compare_agents.ipynb",
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name}: outputs"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("ALEM_NOTEBOOK_SMALL", "1")
    # The kernel compiles into the suite's cache, not the user's (``tests/conftest.py``).
    monkeypatch.setenv("ALEM_COMPILATION_CACHE", jax.config.jax_compilation_cache_dir)
    # The kernel imports this checkout's packages, as the test process does.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()  # raises CellExecutionError naming the cell when one fails
    pictures = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if {"image/png", "image/gif"} & set(output.get("data", {}))
    ]
    assert pictures, f"{path.name} showed no picture"
