"""The HTML episode viewer (checked in headless Chromium) and the terminal text game."""

from __future__ import annotations

import re
import subprocess

import pytest

from alem_pz.text.client import ClientConfig
from alem_pz.text.harness import HarnessConfig, evaluate_llm
from alem_pz.text.local_server import LocalServer
from alem_pz.text.play import play_text
from alem_pz.text.viewer import load_trace, render_html, timeline
from tests.conftest import CHROMIUM

from ..conftest import SMALL


def _fake_steps():
    agent = {"agent": 0, "inactive": False, "action": "Do", "status": "ok", "message": "hi",
             "note": "n", "reasoning": "", "plan": "p", "reply": "</script><b>x</b>",
             "observation": "Last action: Do\nAchievements unlocked: Collect Wood"}  # fmt: skip
    return [
        {"step": 0, "agents": [dict(agent, observation="start")]},
        {"step": 1, "agents": [agent]},
    ]


def test_viewer_embeds_the_trace_safely():
    steps = _fake_steps()
    assert timeline(steps) == [{"index": 1, "step": 0, "agent": 0, "achievements": "Collect Wood"}]
    page = render_html(steps, "t")
    assert page.count("</script>") == 2  # a reply holding "</script>" cannot close the tag
    assert "http" not in page.split("<script")[0]  # nothing fetched: self-contained


@pytest.mark.browser
def test_viewer_renders_in_headless_chromium(tmp_path):
    with LocalServer() as server:
        config = HarnessConfig(clients=[ClientConfig(model="rule", base_url=server.url)])
        evaluate_llm(config, tmp_path / "run", episodes=1, max_steps=4, difficulties=["easy"],
                     static=SMALL, resamples=10, progress=False)  # fmt: skip
    page = tmp_path / "run" / "easy" / "episode_0.html"
    steps, end = load_trace(tmp_path / "run" / "easy" / "episode_0.trace.jsonl")
    assert len(steps) == 4 and end is not None and page.exists()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"]
    dom = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    assert len(re.findall(r"<h3>Agent \d", dom)) == 3 and "step 0 / 3" in dom  # rendered by JS
    assert len(re.findall(r'<pre class="frame"> +N\n', dom)) == 3  # the ASCII frames
    shot = tmp_path / "viewer.png"
    subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1400,900", page.as_uri()],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert shot.exists() and shot.stat().st_size > 10_000


def test_text_game_in_the_terminal():
    lines = iter(["move east", "Do | hello team", "blah", "", "quit"])
    shown: list[str] = []
    record = play_text(1, "easy", 9999, 50, SMALL, read=lambda _: next(lines), write=shown.append)
    text = "\n".join(shown)
    assert record["steps"] == 4
    assert "You are Agent 1 (forager)" in shown[0]
    assert "Last action: Move East" in text and "Last action: Do" in text
    assert "No valid action was found" in text  # "blah" became Noop with feedback
    assert "Available actions:" in text and "Current Observation:" in text
