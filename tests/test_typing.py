"""The public API type-checks: mypy over the modules ``[tool.mypy]`` in pyproject.toml names,
and the packages ship ``py.typed`` (PEP 561), so a user's own type checker reads the hints."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package", ["alem_core", "alem_pz"])
def test_the_package_ships_its_type_hints(package):
    assert (ROOT / package / "py.typed").is_file()


def test_the_public_api_type_checks():
    api = pytest.importorskip("mypy.api", reason="mypy is in the dev extra")
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental"])
    assert status == 0, out + err
