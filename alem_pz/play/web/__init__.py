"""Play alem from browsers: one team game per room, people and AI seats mixed, every game recorded.

    alem-serve --players 3 --humans 0,1 --ai greedy      # http://127.0.0.1:8000
    alem-replay games/game_0_*.jsonl                      # re-run a record, check it bit for bit

Modules: ``room`` (seats, tokens, turns or ticks; no web code), ``record`` (the JSONL game
record and its replay), ``views`` (PNG frames, the key table in browser terms), ``app`` (the
Starlette app and its WebSocket protocol), ``server`` (the command line), ``replay`` (the
``alem-replay`` command). The page is ``static/`` (plain HTML, CSS and JavaScript, no CDN).
docs/play-in-browser.md is the user's guide.
"""

from __future__ import annotations

from alem_pz.play.web.room import Room, RoomConfig, RoomError

__all__ = ["Room", "RoomConfig", "RoomError"]
