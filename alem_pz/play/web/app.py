"""The Starlette app of ``alem-serve``: lobby, page, JSON summaries and the WebSocket protocol.

Why Starlette + uvicorn: Starlette is a small, well-kept ASGI toolkit (the base FastAPI is built
on) with WebSockets, static files and a test client in one package and no code generation;
uvicorn is the reference ASGI server. FastAPI's extras (validation models, OpenAPI pages) would
serve a JSON API, which this is not: one WebSocket carries everything.

Protocol (JSON text frames; docs/play-in-browser.md has the table). Client to server:
``{"type": "take", "seat": i}``, ``{"type": "rejoin", "token": t}``,
``{"type": "act", "token": t, "action": a, "client_ms": ms}``,
``{"type": "chat", "token": t, "text": s}``, ``{"type": "next"}`` (next episode once one ended).
Server to client: ``welcome`` (options, key table), ``joined`` (seat, token), ``frame`` (every
seat's view as a PNG data URL, HUDs, seats, who is awaited), ``status`` (a choice arrived),
``chat``, and ``error`` (a refused message; nothing changed).

Several rooms (``alem-serve --rooms K``): one ``Hub`` per room (its own lock, clock and pages)
under ``/room/NAME``, and a lobby at ``/`` listing them (``make_app``).

Room calls run one at a time in a worker thread (``asyncio.to_thread`` under a lock): the step
is a blocking JAX call, and serialising keeps the room's state consistent without locks inside.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from alem_core.constants import GIVE_BASE, comm_base, num_give_slots
from alem_pz.play.web.guard import LOOPBACK, MessageError, OriginGuard, Rates, parse_message
from alem_pz.play.web.outbox import Outbox
from alem_pz.play.web.room import Room, RoomError
from alem_pz.play.web.views import browser_keys

STATIC = Path(__file__).resolve().parent / "static"
UNSUPPORTED_DATA = 1003
UNATTENDED_STEP_S = 0.1
"""Pause between steps taken while no person can act, so pages show them."""


class Hub:
    """The room, its lock and the connected pages; builds and broadcasts messages."""

    def __init__(self, room: Room, name: str = "1") -> None:
        self.room, self.name = room, name
        self.lock = asyncio.Lock()
        self.gif_lock = asyncio.Lock()
        self.pages: dict[WebSocket, Page] = {}
        self.pages_given_up = 0  # closed for not reading (``alem_pz.play.web.outbox``)
        self.frames_dropped = 0  # views replaced before a slow page was sent them
        self.unattended: asyncio.Task | None = None
        self._urls: tuple[tuple[int, int], list[str]] = ((-1, -1), [])

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a room method in the worker thread, one call at a time."""
        async with self.lock:
            return await asyncio.to_thread(fn, *args)

    def welcome(self) -> dict[str, Any]:
        """Options and the key table: what the page needs once."""
        o = self.room.options()
        p, nc = o["players"], o["comm_channels"]
        return {
            "type": "welcome", "players": p, "mode": o["mode"], "tick_ms": o["tick_ms"],
            "num_actions": o["num_actions"], "give_base": GIVE_BASE,
            "give_slots": num_give_slots(p), "comm_base": comm_base(p), "comm_channels": nc,
            "keys": browser_keys(p, nc), "difficulty": o["difficulty"], "ai": o["ai"],
            "room": self.name,
        }  # fmt: skip

    def status(self) -> dict[str, Any]:
        """Seats and who the world waits for (``Room.status``)."""
        return {"type": "status", **self.room.status()}

    def frame(self) -> dict[str, Any]:
        """Every seat's view (PNG data URLs, encoded once per step), HUDs and the status."""
        snap = self.room.snapshot()
        if self._urls[0] != (snap["episode"], snap["step"]):
            urls = [f"data:image/png;base64,{base64.b64encode(b).decode()}" for b in snap["pngs"]]
            self._urls = ((snap["episode"], snap["step"]), urls)
        shown = ("hud", "events", "last", "summary", "chat")
        status = ("step", "episode", "started", "seats", "waiting", "chosen", "over")
        return {
            "type": "frame", **{k: snap[k] for k in status}, "views": self._urls[1],
            **{k: snap[k] for k in shown}, "sent_at": time.time(),
        }  # fmt: skip

    async def publish(self, kind: str = "frame") -> None:
        """Broadcast a ``frame`` or a ``status``, built under the lock (a consistent step)."""
        await self.broadcast(await self.call(self.frame if kind == "frame" else self.status))

    async def broadcast(self, message: dict[str, Any]) -> None:
        """Hand ``message`` to every open page's outbox (``alem_pz.play.web.outbox``): the room
        never waits on a page's socket."""
        text = json.dumps(message)
        for page in list(self.pages.values()):
            page.outbox.put(text, frame=message["type"] == "frame")

    def run_unattended(self) -> None:
        """Turn mode: step on, one shown step at a time, while no person can act
        (``Room.step_unattended``); one such run per room at a time."""
        if self.unattended is None or self.unattended.done():
            self.unattended = asyncio.create_task(self._unattended())

    async def _unattended(self) -> None:
        while await self.call(self.room.step_unattended):
            await self.publish("frame")
            await asyncio.sleep(UNATTENDED_STEP_S)

    def held_elsewhere(self, token: str, page: Page) -> bool:
        """Another open page holds ``token`` too (the person rejoined from a second tab)."""
        return any(token in other.tokens for other in self.pages.values() if other is not page)


class Page:
    """One open page: its outbox, the seat tokens it holds, its message rates."""

    def __init__(self, socket: WebSocket) -> None:
        self.outbox, self.tokens, self.rates = Outbox(socket), set[str](), Rates()

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.put(json.dumps(message), frame=message["type"] == "frame")


async def handle(hub: Hub, page: Page, message: Any) -> None:
    """One client message (module docstring); RoomError and bad shapes become ``error``."""
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise RoomError(f"a message must be a JSON object with a 'type', got {message!r:.80}")
    kind, room = message["type"], hub.room
    page.rates.check(kind)
    if kind == "take":
        token = await hub.call(room.take, message.get("seat"))
        page.tokens.add(token)  # before the reply: a page that closes now still frees it
        page.send({"type": "joined", "seat": message["seat"], "token": token})
        await hub.publish("status")
    elif kind == "rejoin":
        seat = await hub.call(room.rejoin, message.get("token"))
        page.tokens.add(message["token"])
        page.send({"type": "joined", "seat": seat, "token": message["token"]})
        await hub.publish("status")
    elif kind == "act":
        args = (message.get("token"), message.get("action"), message.get("client_ms"))
        stepped = await hub.call(room.choose, *args)
        await hub.publish("frame" if stepped else "status")
        if stepped:
            hub.run_unattended()
    elif kind == "chat":
        chat = await hub.call(room.chat, message.get("token"), message.get("text"))
        await hub.broadcast({"type": "chat", "message": chat})
    elif kind == "next":
        if not page.tokens:
            raise RoomError("take a seat to start the next episode")
        await hub.call(room.next_episode)
        await hub.publish("frame")
    else:
        raise RoomError(f"unknown message type {kind!r} (take, rejoin, act, chat, next)")


async def session(hub: Hub, socket: WebSocket) -> None:
    """One page's connection: welcome, then messages until it closes or stops reading; then
    every seat it held waits for its person (``Room.leave``)."""
    await socket.accept()
    page = Page(socket)
    hub.pages[socket] = page
    page.send(hub.welcome())
    page.send(await hub.call(hub.frame))
    sender = asyncio.create_task(page.outbox.run())
    receiver = asyncio.create_task(receive(hub, page, socket))
    try:
        await asyncio.wait((sender, receiver), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sender, receiver):
            task.cancel()
        if sender.done() and not sender.cancelled():  # given up: a page that does not read
            hub.pages_given_up += 1
            await page.outbox.close()
        hub.frames_dropped += page.outbox.dropped_frames
        del hub.pages[socket]
        left = [t for t in page.tokens if not hub.held_elsewhere(t, page)]
        for token in left:
            with contextlib.suppress(RoomError):
                await hub.call(hub.room.leave, token)
        if left:
            await hub.publish("status")


async def receive(hub: Hub, page: Page, socket: WebSocket) -> None:
    """A page's messages until it closes: text frames only (a binary frame closes it)."""
    while True:
        message = await socket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("text") is None:
            await socket.close(code=UNSUPPORTED_DATA, reason="text frames only")
            return
        try:
            await handle(hub, page, parse_message(message["text"]))
        except (RoomError, MessageError) as error:
            page.send({"type": "error", "message": str(error)})


async def clock(hub: Hub) -> None:
    """Real-time ticks (``tick_ms``) and, in both modes, AI takeovers of abandoned seats."""
    room = hub.room
    tick_ms = room.options()["tick_ms"]
    period = tick_ms / 1000 if tick_ms else 1.0
    next_at = time.monotonic() + period
    while True:
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        next_at = max(next_at + period, time.monotonic())
        stepped = False
        if await hub.call(room.check_takeovers):
            await hub.publish("status")
            stepped = tick_ms is None
        if tick_ms and not room.over:
            stepped = await hub.call(room.tick)
        if tick_ms is None:
            hub.run_unattended()
        if stepped:
            await hub.publish("frame")


class Site:
    """The rooms of one server, by name, and the endpoints that reach them (``make_app``)."""

    def __init__(self, rooms: Room | Mapping[str, Room]) -> None:
        named = {"1": rooms} if isinstance(rooms, Room) else dict(rooms)
        self.hubs = {name: Hub(room, name) for name, room in named.items()}
        self.first = next(iter(self.hubs))

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """Each room's clock runs while the app does; the records are closed at the end."""
        tasks = [asyncio.create_task(clock(hub)) for hub in self.hubs.values()]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for hub in self.hubs.values():
                hub.room.close()

    def hub_of(self, request: Any) -> Hub:
        """The room the path names (the first one where it names none); 404 if unknown."""
        name = request.path_params.get("name", self.first)
        if name not in self.hubs:
            raise HTTPException(404, f"no room {name!r}; rooms: {', '.join(self.hubs)}")
        return self.hubs[name]

    async def index(self, request: Any) -> FileResponse:
        self.hub_of(request)
        lobby = len(self.hubs) > 1 and "name" not in request.path_params
        return FileResponse(STATIC / ("lobby.html" if lobby else "index.html"))

    async def summary(self, request: Any) -> JSONResponse:
        hub = self.hub_of(request)
        records = [str(p) for p in hub.room.record_paths]
        pages = {"pages": len(hub.pages), "pages_given_up": hub.pages_given_up,
                 "frames_dropped": hub.frames_dropped}  # fmt: skip
        return JSONResponse({**(await hub.call(hub.status)), **pages, "records": records})

    async def lobby(self, request: Any) -> JSONResponse:
        return JSONResponse([await lobby_entry(name, hub) for name, hub in self.hubs.items()])

    async def gif(self, request: Any) -> Response:
        return await episode_gif(self.hub_of(request))

    async def websocket(self, socket: WebSocket) -> None:
        name = socket.path_params.get("name", self.first)
        if name not in self.hubs:
            await socket.close(code=4404)  # refused before accepting: nothing to clean up
            return
        await session(self.hubs[name], socket)


def make_app(
    rooms: Room | Mapping[str, Room],
    hosts: Iterable[str] = LOOPBACK,
    origins: Iterable[str] = (),
) -> Starlette:
    """The ASGI app serving ``rooms`` ({name: room}; a lone ``Room`` is named "1") to requests
    whose ``Host`` names one of ``hosts`` and to WebSockets from its own pages or ``origins``
    (``alem_pz.play.web.guard``).

    ``/`` is the lobby (the room's page itself when there is one room), ``/room/NAME`` a room's
    page, ``/room/NAME/ws`` its WebSocket, ``/api/rooms`` the lobby's list and
    ``/api/room/NAME`` a room's summary (``/ws`` and ``/api/room``: the first room's).
    ``/api/room/NAME/gif`` is the GIF of the room's last finished episode. Each room has its own
    hub, lock and clock, so one room's step never waits for another's lock.
    """
    site = Site(rooms)
    app = Starlette(
        routes=[
            Route("/", site.index),
            Route("/room/{name}", site.index),
            Route("/api/rooms", site.lobby),
            Route("/api/room", site.summary),
            Route("/api/room/{name}", site.summary),
            Route("/api/room/{name}/gif", site.gif),
            WebSocketRoute("/ws", site.websocket),
            WebSocketRoute("/room/{name}/ws", site.websocket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=site.lifespan,
        middleware=[Middleware(OriginGuard, hosts=hosts, origins=origins)],
    )
    app.state.hubs = site.hubs
    app.state.hub = site.hubs[site.first]
    return app


async def lobby_entry(name: str, hub: Hub) -> dict[str, Any]:
    """One row of the lobby: the room's options, step and free seats."""
    status = await hub.call(hub.status)
    free = [s["seat"] for s in status["seats"] if s["human"] and not s["taken"]]
    options = hub.room.options()
    return {
        "name": name, "url": f"/room/{name}", "players": options["players"], "free": free,
        "ai": options["ai"], "mode": options["mode"],
        "difficulty": options["difficulty"], "step": status["step"],
        "episode": status["episode"], "over": status["over"],
    }  # fmt: skip


async def episode_gif(hub: Hub) -> Response:
    """The GIF of the room's last finished episode, made from its record as ``alem-replay
    --gif`` makes it (and kept beside the record: a second request sends the same file)."""
    from alem_pz.play.web.replay import record_gif

    room = hub.room
    finished = room.record_paths if room.over else room.record_paths[:-1]
    if not finished:
        raise HTTPException(409, "no episode of this room has finished yet")
    path = finished[-1]
    out = path.with_suffix(".gif")
    if not out.exists():
        async with hub.gif_lock:  # one GIF at a time per room; the game is not blocked
            if not out.exists():
                await asyncio.to_thread(record_gif, path, out)
    return FileResponse(out, media_type="image/gif", filename=out.name)


__all__ = ["Hub", "Site", "episode_gif", "lobby_entry", "make_app"]
