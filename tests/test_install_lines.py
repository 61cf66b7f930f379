"""Every ``pip install`` line the README and the docs show works as written.

Two levels, because resolving a line costs a fresh venv and about 10 s of CPU each:

* always (the default suite): every line parses, names only extras that ``pyproject.toml``
  defines (pip merely warns about an unknown extra and installs without it), and installs alem
  from a clone or a wheel, never from PyPI, where it is not published;
* marked ``install`` (``.ci/compat``, not ``.ci/run``): each line runs as written, with
  ``--dry-run`` added, in a fresh venv from the repository root, so pip resolves every
  requirement against the index; a conflict such as AgileRL's ``pettingzoo<1.27`` fails here.
  Lines that name an index this machine cannot reach are skipped with that reason.

The wheel line (``pip install "dist/<the wheel>[extra]"``) has a placeholder; the packaging test
builds the wheel and installs it for real (``tests/test_packaging.py``).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PLACEHOLDER = "<the wheel>"


def install_lines() -> dict[str, list[str]]:
    """``{command: ["page:line", ...]}`` for each distinct ``pip install`` command shown in a
    code block (comments included: "CPU-only torch, first: pip install ...") or inline code."""
    found: dict[str, list[str]] = {}
    for page in PAGES:
        if page.name == "changelog.md":  # history, not instructions
            continue
        in_block = False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_block = not in_block
                continue
            texts = [line] if in_block else re.findall(r"`([^`]*pip install[^`]*)`", line)
            for text in texts:
                for command in re.findall(r"(?:\S*/)?pip install [^#&;`]*", text):
                    command = re.sub(r"^\S*/pip ", "pip ", command).strip()
                    found.setdefault(command, []).append(f"{page.relative_to(ROOT)}:{number}")
    return found


LINES = install_lines()


def _extras(command: str) -> list[str]:
    """Extras the command asks of alem (``-e ".[a,b]"``)."""
    return [e for group in re.findall(r'"\.\[([^\]]*)\]"', command) for e in group.split(",")]


def test_every_install_line_names_extras_that_exist():
    defined = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    defined = set(defined["optional-dependencies"])
    assert len(LINES) >= 15, LINES  # the README's extras alone are 8 lines
    unknown = {
        f"{command} ({', '.join(where)})": sorted(set(_extras(command)) - defined)
        for command, where in LINES.items()
        if set(_extras(command)) - defined
    }
    assert not unknown, unknown


def test_no_install_line_asks_pypi_for_alem() -> None:
    """alem is not on PyPI yet, so ``pip install alem-pz`` fails as written: every line
    installs alem from a clone (``-e .``) or a wheel built there."""
    wrong = {c: w for c, w in LINES.items() if re.search(r"(?<![\w/.-])alem-pz\b", c)}
    assert not wrong, wrong


def _unreachable_index(command: str) -> str | None:
    """The host of an ``--index-url`` this machine cannot connect to, else None."""
    match = re.search(r"--(?:extra-)?index-url\s+(\S+)", command)
    if not match:
        return None
    host = urlparse(match.group(1)).hostname
    try:
        socket.create_connection((host, 443), timeout=3).close()
    except OSError:
        return host
    return None


def _resolvable() -> dict[str, list[str]]:
    """The lines to resolve: ``-q`` only quiets pip (and would hide its "Would install" list,
    the evidence that it resolved), so lines that differ by it are resolved once."""
    lines: dict[str, list[str]] = {}
    for command, where in LINES.items():
        lines.setdefault(re.sub(r" -q(?= )", "", command), []).extend(where)
    return lines


RESOLVE = _resolvable()


@pytest.mark.install
@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(RESOLVE))
def test_install_line_resolves_in_a_fresh_venv(command, tmp_path):
    if PLACEHOLDER in command:
        pytest.skip("a placeholder for the wheel; tests/test_packaging.py installs a built wheel")
    host = _unreachable_index(command)
    if host:
        pytest.skip(f"{host} is not reachable from this machine")
    # A fresh venv without its own pip (seconds saved per line): `pip` is this pip, told to
    # install into that venv's interpreter (pip --python), so it resolves for that venv alone.
    venv, shims = tmp_path / "venv", tmp_path / "shims"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    shims.mkdir()
    shim = shims / "pip"
    shim.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -m pip --python "{venv}/bin/python" "$@"\n'
    )
    shim.chmod(0o755)
    dry_run = command.replace("pip install", "pip install --dry-run", 1)
    path = os.pathsep.join([str(shims), str(venv / "bin"), os.environ["PATH"]])
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"PATH": path}
    done = subprocess.run(
        ["bash", "-c", dry_run], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    tail = (done.stdout + done.stderr)[-3000:]
    assert done.returncode == 0, f"{command} ({', '.join(RESOLVE[command])}) failed:\n{tail}"
    assert "Would install" in done.stdout, tail
