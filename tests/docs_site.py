"""Building the documentation site, for the docs test and the screenshot test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_site(out: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` into ``out``; any warning (broken link, anchor, page) fails."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
