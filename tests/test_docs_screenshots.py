"""Headless Chromium renders the built site: the home page and the environment card.

Why: a strict build proves the links, not that a person sees a page. This test opens the two
pages a newcomer reads first in a real browser and checks the pictures are real pages (not
blank, not an error page). Set ``ALEM_SCREENSHOT_DIR`` to keep the PNGs and look at them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM
from tests.docs_site import build_site

pytestmark = pytest.mark.browser  # skipped without Chromium (tests/conftest.py)
PAGES = {"home": "index.html", "environment_card": "environment/index.html"}


def screenshot(page: Path, out: Path) -> None:
    """One 1280 x 1000 screenshot of ``page`` in headless Chromium."""
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=1280,1000",
        f"--screenshot={out}",
        page.as_uri(),
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=120)


def test_home_page_and_environment_card_render(tmp_path: Path) -> None:
    pil_image = pytest.importorskip("PIL.Image")
    site = tmp_path / "site"
    result = build_site(site)
    assert result.returncode == 0, result.stdout + result.stderr
    keep = os.environ.get("ALEM_SCREENSHOT_DIR")
    for name, page in PAGES.items():
        png = tmp_path / f"{name}.png"
        screenshot(site / page, png)
        with pil_image.open(png) as image:
            assert image.size == (1280, 1000)
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
        # A rendered page has text, a header bar and tables: many colours, none filling it all.
        assert colours is None or len(colours) > 50, f"{name}: the page looks blank"
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(png, Path(keep) / png.name)
