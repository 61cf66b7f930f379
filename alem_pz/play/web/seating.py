"""Who sits where in a browser room: seats, their tokens, and the AI taking over a seat whose
person went away.

A person who takes a seat gets a random token; every action must carry it, so nobody can act for
another seat. A person who disconnects can rejoin with the token; after ``takeover_s`` the AI
plays the seat until they come back. A refused call raises ``RoomError`` before anything
changes.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from alem_core.constants import ROLE_OF_INDEX


class RoomError(ValueError):
    """A refused request (bad seat, token, action or message); the room is unchanged."""


@dataclass
class Seat:
    """One agent of the team and who plays it."""

    index: int
    human: bool
    token: str | None = None
    connected: bool = False
    left_at: float | None = None
    taken_over: bool = False

    @property
    def role(self) -> str:
        """Soft role of the seat (warrior, forager, miner for i mod 3 = 0, 1, 2)."""
        return ROLE_OF_INDEX[self.index % 3].name.lower()


class Seating:
    """The seats of one room (module docstring)."""

    def __init__(self, players: int, humans: Iterable[int], takeover_s: float) -> None:
        people = set(humans)
        self.seats = [Seat(i, i in people) for i in range(players)]
        self.takeover_s = takeover_s

    @property
    def all_taken(self) -> bool:
        """Every human seat has been taken at least once (a room then starts ticking)."""
        return all(s.token for s in self.seats if s.human)

    def take(self, seat: Any, ai_name: Callable[[int], str]) -> str:
        """Take the free human seat ``seat``; returns its token (keep it to act and rejoin)."""
        p = len(self.seats)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < p:
            raise RoomError(f"seat must be an integer in [0, {p}), got {seat!r}")
        s = self.seats[seat]
        if not s.human:
            raise RoomError(f"seat {seat} is played by the AI ({ai_name(seat)}), not a person")
        if s.token is not None:
            raise RoomError(f"seat {seat} is taken; rejoin it with its token")
        s.token, s.connected, s.left_at = secrets.token_urlsafe(16), True, None
        return s.token

    def seat_of(self, token: Any) -> int:
        """The seat holding ``token``; RoomError for any other value."""
        for s in self.seats:
            if (
                s.token is not None
                and isinstance(token, str)
                and secrets.compare_digest(s.token, token)
            ):
                return s.index
        raise RoomError("unknown seat token: take a free seat or rejoin with your own token")

    def rejoin(self, token: Any) -> int:
        """A person comes back to their seat (the AI hands it back if it had taken over)."""
        s = self.seats[self.seat_of(token)]
        s.connected, s.left_at, s.taken_over = True, None, False
        return s.index

    def leave(self, token: str) -> None:
        """The person's connection closed: the seat waits ``takeover_s`` for them."""
        s = self.seats[self.seat_of(token)]
        s.connected, s.left_at = False, time.monotonic()

    def take_over(self, now: float) -> list[int]:
        """Hand the seats whose person has been away ``takeover_s`` to the AI; returns them."""
        due = [
            s.index
            for s in self.seats
            if s.human and not s.taken_over and s.left_at is not None
            and now - s.left_at >= self.takeover_s
        ]  # fmt: skip
        for i in due:
            self.seats[i].taken_over = True
        return due

    def played_by_ai(self, i: int) -> bool:
        """Seat ``i`` is an AI seat, or its person's seat was taken over."""
        s = self.seats[i]
        return not s.human or s.taken_over


__all__ = ["RoomError", "Seat", "Seating"]
