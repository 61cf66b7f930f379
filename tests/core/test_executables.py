"""Compiled functions per shape stay within the process's memory-map budget (executables.py)."""

from __future__ import annotations

import pytest

from alem_core import executables


def test_per_shape_keeps_the_last_shapes_and_builds_once_each():
    built = []
    cached = executables.per_shape(lambda shape: built.append(shape) or object())
    first = cached(1)
    assert cached(1) is first and built == [1]
    for shape in range(2, 2 + executables.SHAPES_KEPT):
        cached(shape)
    assert cached(1) is not first  # the least recently used shape was dropped
    assert built.count(1) == 2


def test_pressure_frees_alem_caches_and_refusal_names_the_limit(monkeypatch):
    cached = executables.per_shape(lambda shape: object())
    kept = cached("a")
    monkeypatch.setattr(executables, "map_limit", lambda: 1000)
    monkeypatch.setattr(executables, "maps_in_use", lambda: 100)
    executables.make_room()
    assert cached("a") is kept  # no pressure: nothing freed
    monkeypatch.setattr(executables, "maps_in_use", lambda: 700)
    executables.make_room()
    assert cached("a") is not kept  # past PRESSURE: alem's caches were freed
    monkeypatch.setattr(executables, "maps_in_use", lambda: 950)
    with pytest.raises(RuntimeError, match=r"950 of its 1000 memory mappings"):
        cached("b")  # still short after freeing: refused before XLA can crash


def test_the_process_figures_are_read_on_linux():
    used, limit = executables.maps_in_use(), executables.map_limit()
    if used is None:
        pytest.skip("no /proc/self/maps on this system")
    assert 0 < used < limit
