"""The package as a stranger gets it: sdist and wheel build, twine accepts them, and the wheel
installed in a fresh venv outside the checkout plays a PettingZoo episode.

Why: tests that import from the checkout cannot see a module missing from the wheel, a data file
left out, or an entry point that does not resolve. Slow (a fresh venv installs JAX).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

EPISODE = textwrap.dedent(
    """
    from pathlib import Path
    import alem_core, alem_core.testing, alem_pz
    checkout = Path({root!r})
    assert checkout not in Path(alem_pz.__file__).resolve().parents, alem_pz.__file__
    assert alem_pz.__version__ == alem_core.__version__ != "0+unknown"
    static = alem_core.testing.small(player_count=2)
    env = alem_pz.parallel_env(players=2, static=static, max_steps=12)
    observations, infos = env.reset(seed=0)
    steps = 0
    while env.agents:
        actions = {{a: env.action_space(a).sample(infos[a]["action_mask"]) for a in env.agents}}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        steps += 1
    assert steps <= 12
    print("episode", steps, alem_pz.__version__)
    """
)


def run(command: list[str], cwd: Path) -> str:
    # Without PYTHONPATH: a path to the checkout there would shadow the installed wheel.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_wheel_installs_and_plays_outside_the_checkout(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="the packaging tools are in the dev extra")
    pytest.importorskip("twine", reason="the packaging tools are in the dev extra")
    dist = tmp_path / "dist"
    # --no-isolation: build with this venv's setuptools, so the test needs no extra download.
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist)], ROOT)
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(dist.iterdir())
    run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)], ROOT)

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python, scripts = venv / "bin" / "python", venv / "bin"
    run([str(python), "-m", "pip", "install", "-q", str(wheels[0])], tmp_path)
    out = run([str(python), "-c", EPISODE.format(root=str(ROOT))], tmp_path)
    assert out.startswith("episode")
    assert "usage" in run([str(scripts / "alem-evaluate"), "--help"], tmp_path).lower()
