"""Two people in two headless Chromium tabs and one AI seat play alem-serve's page.

Why: the protocol tests prove the server; only a real browser proves the page: that it lists the
seats, takes one, draws the views, maps alem-play's keys and updates both tabs when the world
steps. The game record must then hold both people's keys and replay bit for bit. Set
``ALEM_SCREENSHOT_DIR`` to keep the screenshots (lobby, and each tab after three steps) and look.
Skipped where Debian's ``chromium`` is missing (``apt-get install chromium``; CI installs it).
"""

from __future__ import annotations

import os
import shutil
import statistics
from pathlib import Path

import pytest

from alem_core.constants import Action
from alem_pz.play.web.app import make_app
from alem_pz.play.web.record import read_record, replay

from .browser import Browser, Server

pytestmark = pytest.mark.browser  # skipped without Chromium (tests/conftest.py)
KEYS = {"d": ("KeyD", 68), "s": ("KeyS", 83), "w": ("KeyW", 87), "a": ("KeyA", 65)}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One Chromium for the module (each test opens its own tabs)."""
    chromium = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


def keep(png: Path) -> None:
    """Copy a screenshot to ``ALEM_SCREENSHOT_DIR`` when it is set."""
    if os.environ.get("ALEM_SCREENSHOT_DIR"):
        Path(os.environ["ALEM_SCREENSHOT_DIR"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(os.environ["ALEM_SCREENSHOT_DIR"]) / png.name)


def take_seat(page, seat: int) -> None:
    """Wait for the seat list, click the seat's button, wait until the page holds it."""
    page.wait(f"!!document.querySelector('[data-seat=\"{seat}\"]')")
    page.js(f"document.querySelector('[data-seat=\"{seat}\"]').click()")
    page.wait(f"window.alem.seat === {seat} && window.alem.frame !== null")


def looks_like_a_page(png: Path) -> None:
    """Many colours, none filling everything: a drawn page, not a blank or error page."""
    image_module = pytest.importorskip("PIL.Image")
    with image_module.open(png) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 50, f"{png.name} looks blank"


def test_two_browsers_and_an_ai_play_and_the_record_replays(browser, make_room, tmp_path):
    room = make_room(humans=(0, 1))
    with Server(make_app(room)) as server:
        url = f"http://127.0.0.1:{server.port}/"
        a, b = browser.page(url), browser.page(url)
        a.wait("document.body.dataset.step === '0'")
        a.screenshot(tmp_path / "web_lobby.png")
        take_seat(a, 0)
        take_seat(b, 1)
        for step in (1, 2, 3):
            a.press("d", *KEYS["d"])
            b.press("s", *KEYS["s"])
            for page in (a, b):
                page.wait(f"document.body.dataset.step === '{step}'")
        for page, name in ((a, "web_seat0.png"), (b, "web_seat1.png")):
            page.wait("document.getElementById('view').complete")
            page.screenshot(tmp_path / name)
        assert "P1 right (human)" in a.js("document.getElementById('hud').textContent")
        a.close()
        b.close()
    for name in ("web_lobby.png", "web_seat0.png", "web_seat1.png"):
        looks_like_a_page(tmp_path / name)
        keep(tmp_path / name)
    steps = [x for x in read_record(room.record_paths[0]) if x["type"] == "step"]
    assert [s["actions"][:2] for s in steps] == [[Action.RIGHT, Action.DOWN]] * 3  # d, s keys
    assert all(s["who"] == ["human", "human", "ai:random"] for s in steps)
    assert all(s["client_ms"][0] is not None for s in steps)
    assert replay(room.record_paths[0]).digest == steps[-1]["digest"]


def test_key_press_to_updated_view_latency(browser, make_room):
    """One person, turn mode: every key steps the world. The page measures key press to the
    new view drawn (``window.alem.latencies``); printed for docs/play-in-browser.md."""
    room = make_room(humans=(0,))
    with Server(make_app(room)) as server:
        page = browser.page(f"http://127.0.0.1:{server.port}/")
        take_seat(page, 0)
        for step in range(1, 31):
            page.press("w" if step % 2 else "a", *KEYS["w" if step % 2 else "a"])
            page.wait(f"window.alem.latencies.length === {step}")
        latencies = sorted(page.js("window.alem.latencies"))
        page.close()
    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"key press to updated view over {len(latencies)} presses: p50 {p50:.0f} ms, "
          f"p95 {p95:.0f} ms (small world, 10 px tiles)")  # fmt: skip
    assert p95 < 5000


def test_the_lobby_lists_two_rooms_and_a_rooms_page_plays_its_own_game(
    browser, make_room, tmp_path
):
    rooms = {n: make_room(humans=(0,), record_dir=str(tmp_path / n)) for n in ("1", "2")}
    with Server(make_app(rooms)) as server:
        lobby = browser.page(f"http://127.0.0.1:{server.port}/")
        lobby.wait("document.querySelectorAll('#rooms tbody tr').length === 2")
        assert lobby.js("document.querySelector('[data-room=\"2\"] .free').textContent") == "P1"
        lobby.screenshot(tmp_path / "web_rooms.png")
        page = browser.page(f"http://127.0.0.1:{server.port}/room/2")
        take_seat(page, 0)
        page.press("d", *KEYS["d"])
        page.wait("document.body.dataset.step === '1'")
        lobby.wait("document.querySelector('[data-room=\"2\"] .free').textContent === 'none'")
        page.wait("document.getElementById('view').complete")
        page.screenshot(tmp_path / "web_room2.png")
        lobby.close()
        page.close()
    for name in ("web_rooms.png", "web_room2.png"):
        looks_like_a_page(tmp_path / name)
        keep(tmp_path / name)
    assert rooms["1"].steps == 0 and rooms["2"].steps == 1
    assert replay(rooms["2"].record_paths[0]).steps == 1


OPEN_GAME_SOCKET = """
window.result = "pending";
const probe = new WebSocket("ws://127.0.0.1:PORT/ws");
probe.onmessage = (e) => { window.result = "open: " + JSON.parse(e.data).type; probe.close(); };
probe.onclose = (e) => { if (window.result === "pending") window.result = "closed " + e.code; };
"""


def test_a_page_from_another_origin_cannot_open_a_game_socket(browser, make_room):
    """Cross-site WebSocket hijacking: a page served from another localhost port used to get
    every seat's view and could take a seat. The same script on the game's own page opens."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    room = make_room()
    with Server(make_app(room)) as game:
        script = OPEN_GAME_SOCKET.replace("PORT", str(game.port))

        async def other_site(request):
            return HTMLResponse(f"<html><body><script>{script}</script></body></html>")

        with Server(Starlette(routes=[Route("/", other_site)])) as other:
            foreign = browser.page(f"http://127.0.0.1:{other.port}/")
            assert foreign.wait("window.result !== 'pending' && window.result", 30) == (
                "closed 1006"  # refused at the handshake: the page learns nothing more
            )
        own = browser.page(f"http://127.0.0.1:{game.port}/")
        own.wait("document.body.dataset.step === '0'")
        own.js(script)
        assert own.wait("window.result !== 'pending' && window.result", 30) == "open: welcome"
        for page in (foreign, own):
            page.close()
