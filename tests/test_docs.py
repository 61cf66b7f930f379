"""The documentation: the site builds strictly, its rules tables follow the code, citations land.

Why: the docs promise that every rules table is generated from the code's own tables, so a
test must see a changed rule value change the page; and a citation into the docs is only
useful if the page and anchor it names exist.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.docs_site import build_site

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
pytest.importorskip("mkdocs", reason="the docs tools are in the dev and docs extras")
sys.path.insert(0, str(DOCS / "hooks"))

import rules_tables  # noqa: E402

from alem_core.rules import tables  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = build_site(out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_site_builds_strictly(site: Path) -> None:
    for page in ("index.html", "environment/index.html", "rules/mobs/index.html"):
        assert (site / page).is_file(), page
    assert "zombie" in (site / "rules/mobs/index.html").read_text()


def test_generated_mob_table_follows_a_rule_change(monkeypatch: pytest.MonkeyPatch) -> None:
    page = (DOCS / "rules" / "mobs.md").read_text()
    before = rules_tables.render(page)
    assert re.search(r"\| zombie \| melee \| 5 \|", before)
    health = tables.MOB_HEALTH.copy()
    health[0, 0] = 77  # melee type 0, the zombie
    monkeypatch.setattr(tables, "MOB_HEALTH", health)
    after = rules_tables.render(page)
    assert re.search(r"\| zombie \| melee \| 77 \|", after)
    assert "<!-- table:" not in after


def test_generated_achievement_tiers_follow_a_weight_change(monkeypatch: pytest.MonkeyPatch):
    page = (DOCS / "rules" / "achievements.md").read_text()
    assert "| max reward per player | 217 | 159 (total 376) |" in rules_tables.render(page)
    weights = tables.ACHIEVEMENT_WEIGHT.copy()
    weights[0] = np.float32(8)  # COLLECT_WOOD from 1 to 8
    monkeypatch.setattr(tables, "ACHIEVEMENT_WEIGHT", weights)
    changed = rules_tables.render(page)
    assert "| max reward per player | 224 | 159 (total 383) |" in changed
    assert "| 0 | `COLLECT_WOOD` | 8 |" in changed


def test_unknown_table_marker_fails_the_build() -> None:
    with pytest.raises(rules_tables.UnknownTableError, match="no_such_table"):
        rules_tables.render("<!-- table: no_such_table -->")


def test_every_marker_in_the_docs_has_a_generator() -> None:
    used = {m for p in DOCS.rglob("*.md") for m in rules_tables.MARKER.findall(p.read_text())}
    assert used <= set(rules_tables.GENERATORS), used - set(rules_tables.GENERATORS)
    assert len(used) >= 20


def _grep(pattern: str) -> set[str]:
    """Every distinct match of ``pattern`` (extended regex) in the tracked files."""
    listed = subprocess.run(
        ["git", "grep", "-ohE", pattern], cwd=ROOT, capture_output=True, text=True
    ).stdout
    return {form.strip().rstrip(".") for form in listed.splitlines()}


def test_no_old_spec_citation_is_left() -> None:
    """The specification files are not in the tree; a citation of one names nothing a reader has."""
    assert _grep(r"(GAME|TEXT_AND_EVAL|ALGORITHMS|STYLE|ECOSYSTEM)\.md( §[0-9.]+)?") == set()


def test_every_docs_citation_lands(site: Path) -> None:
    cited = _grep(r"docs/[A-Za-z0-9_/.-]+\.md(#[A-Za-z0-9_-]+)?")
    assert len(cited) >= 20
    for target in cited:
        path, _, anchor = target.partition("#")
        assert (ROOT / path).is_file(), target
        page = Path(path).relative_to("docs").with_suffix("")
        folder = page.parent if page.name == "index" else page
        html = site / folder / "index.html"
        assert html.is_file(), target
        if anchor:
            assert f'id="{anchor}"' in html.read_text(), target


def test_readme_is_a_short_front_door() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert readme.split("```")[1].startswith("bash\n")  # CI reads the test command from here
    for dated in (r"20\d\d-\d\d-\d\d", r"\b[0-9a-f]{7,40}\b commit", "this VM", "segfault"):
        assert not re.search(dated, readme), dated


def test_no_tracked_file_names_the_spec_folder() -> None:
    outside = ".." + "/shared"  # built so that this file does not name it itself
    found = subprocess.run(
        ["git", "grep", "-lF", outside], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert found == []
