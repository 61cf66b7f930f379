"""One team game hosted for several people: a view of a play session with seats, tokens, turns
or ticks, chat and the record.

The room holds no rules: the episode, the AI seats' policies, the pictures and the summary are
the ``PlaySession``'s (``alem_pz.play.session``), exactly as ``alem-play`` plays them; the seats
and their tokens are ``seating.Seating``'s; the record is written by ``record.RecordWriter``; a
page's view of the room is ``options()`` and ``snapshot()``. What the room adds is who may act
for which seat and when the world steps:

* **turn mode** (``tick_ms`` None, as hot-seat): the world steps once every human seat that can
  act has chosen; a seat nobody has taken yet is waited for.
* **real-time mode** (``tick_ms``): ``tick()`` steps the world with NOOP for every person who has
  not chosen; ticking starts once every human seat has been taken.

A person who disconnects can rejoin with their token; after ``takeover_s`` the ``ai`` policy
plays the seat (recorded as such) until they return. A refused call raises ``RoomError`` first.

Language-model seats (``ai="llm"`` or ``llm_seats``) are asked through the text harness
(``alem_pz.play.web.llm``); people's chat lines reach them as team messages.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from alem_core.constants import action_label
from alem_pz.play.seats import hud_lines
from alem_pz.play.session import PlaySession, SessionConfig
from alem_pz.play.web.llm import LLM, LLMSeats
from alem_pz.play.web.record import RecordWriter, state_digest
from alem_pz.play.web.seating import RoomError, Seat, Seating
from alem_pz.play.web.views import png_bytes, to_uint8
from alem_pz.text.harness import HarnessConfig

MAX_CHAT_CHARS = 300


@dataclass
class RoomConfig(SessionConfig):
    """Options of a room (the ``alem-serve`` flags, minus host and port): the session's, and
    the room's own."""

    tick_ms: int | None = None
    record_dir: str = "games"
    takeover_s: float = 60.0
    llm: HarnessConfig | None = None
    """The text harness's settings for language-model seats (``harness.load_config``)."""
    llm_seats: tuple[int, ...] = ()
    """AI seats a language model plays although ``ai`` is another policy."""


class Room:
    """The game of one room (module docstring). Not thread-safe: callers serialise calls."""

    def __init__(self, config: RoomConfig) -> None:
        self.config = config
        ai_seats = range(config.players) if config.ai != LLM else ()
        self.session = PlaySession(config, ai_seats)  # every seat: the AI may take one over
        self.p = self.session.p
        self.seating = Seating(self.p, self.session.humans, config.takeover_s)
        llm_seats = {i for i in config.llm_seats if 0 <= i < self.p and not self.seats[i].human}
        self.uses_llm = [config.ai == LLM or i in llm_seats for i in range(self.p)]
        self.llm = LLMSeats(config.llm, self.session.env) if any(self.uses_llm) else None
        self.started = not self.session.humans
        self.record_paths: list[Path] = []
        self._begin_episode()

    # ---- the session and the seats, as the room sees them ----------------------------------

    @property
    def seats(self) -> list[Seat]:
        return self.seating.seats

    @property
    def over(self) -> bool:
        return self.session.over

    @property
    def chosen(self) -> dict[int, int]:
        """Actions the people chose for this step."""
        return self.session.chosen

    def ai_name(self, i: int) -> str:
        """Who plays seat ``i`` when an AI does: the ``ai`` policy or ``llm:MODEL``."""
        return self.llm.name(i) if self.llm is not None and self.uses_llm[i] else self.config.ai

    def options(self) -> dict[str, Any]:
        """What a page needs once: the room's options."""
        c, static = self.config, self.session.env.static
        return {
            "players": self.p, "mode": "tick" if c.tick_ms else "turn", "tick_ms": c.tick_ms,
            "num_actions": static.num_actions, "comm_channels": static.num_comm_channels,
            "difficulty": c.difficulty, "ai": c.ai,
        }  # fmt: skip

    def status(self) -> dict[str, Any]:
        """The step, the seats and who the world waits for (a page's status line)."""
        return {
            "step": self.steps, "episode": self.session.episode, "started": self.started,
            "seats": self.seats_info(), "waiting": self.waiting_for(),
            "chosen": sorted(self.chosen), "over": self.over,
        }  # fmt: skip

    def snapshot(self) -> dict[str, Any]:
        """Everything a page shows of the room now, as one value: the status, every seat's
        view (PNG bytes) and HUD, events, chat and summary."""
        return self.status() | {
            "pngs": self.pngs, "hud": [self.hud(i) for i in range(self.p)],
            "events": self.events, "last": self.last, "summary": self.summary,
            "chat": self.chat_log,
        }  # fmt: skip

    # ---- seats -----------------------------------------------------------------------------

    def take(self, seat: Any) -> str:
        """Take the free human seat ``seat``; returns its token (keep it to act and rejoin)."""
        token = self.seating.take(seat, self.ai_name)
        self.started = self.started or self.seating.all_taken
        return token

    def seat_of(self, token: Any) -> int:
        """The seat holding ``token``; RoomError for any other value."""
        return self.seating.seat_of(token)

    def rejoin(self, token: Any) -> int:
        """A person comes back to their seat (the AI hands it back if it had taken over)."""
        return self.seating.rejoin(token)

    def leave(self, token: str) -> None:
        """The person's connection closed: the seat waits ``takeover_s`` for them."""
        self.seating.leave(token)

    def check_takeovers(self, now: float | None = None) -> list[int]:
        """Hand seats whose person has been away ``takeover_s`` to the AI; returns them. In
        turn mode the world may then step (the AI chooses for the seat)."""
        due = self.seating.take_over(time.monotonic() if now is None else now)
        for i in due:
            self.chosen.pop(i, None)
        if due and self.config.tick_ms is None:
            self._step_if_ready()
        return due

    def seats_info(self) -> list[dict[str, Any]]:
        """What the page lists: each seat's role, who plays it, whether it is free."""
        return [
            {
                "seat": s.index, "role": s.role, "human": s.human, "taken": s.token is not None,
                "connected": s.connected, "ai": self._who_plays(s),
            }
            for s in self.seats
        ]  # fmt: skip

    def _who_plays(self, s: Seat) -> str | None:
        if not s.human:
            return f"ai:{self.ai_name(s.index)}"
        return f"ai:{self.ai_name(s.index)} (took over)" if s.taken_over else None

    # ---- actions ---------------------------------------------------------------------------

    def choose(self, token: Any, action: Any, client_ms: Any = None) -> bool:
        """Record the action of the token's seat for this step. In turn mode the world steps
        when every person has chosen. Returns True when the world stepped.

        Raises RoomError, naming the seat and the value, for an action that is not an integer
        in [0, A), or when the seat cannot act now (dead, asleep, resting, episode over)."""
        i, n = self.seat_of(token), self.session.num_actions
        if isinstance(action, bool) or not isinstance(action, int):
            raise RoomError(f"seat {i}: action must be an integer in [0, {n}), got {action!r}")
        if not 0 <= action < n:
            raise RoomError(f"seat {i}: action {action} is outside [0, {n})")
        if self.seats[i].taken_over:
            self.rejoin(token)
        if not self.can_act(i):
            raise RoomError(f"seat {i} cannot act now (dead, asleep or resting): only NOOP")
        self.chosen[i] = action
        now = time.monotonic()
        self.reaction_ms[i] = round(1000 * (now - self.shown_at), 1)
        finite = isinstance(client_ms, (int, float)) and not isinstance(client_ms, bool)
        if finite and math.isfinite(client_ms):  # NaN or Infinity would not be JSON
            self.client_ms[i] = round(float(client_ms), 1)
        return self._step_if_ready() if self.config.tick_ms is None else False

    def chat(self, token: Any, text: Any) -> dict[str, Any]:
        """A free-text message from the token's seat, recorded with this step and shown to the
        team (comm-channel messages are actions: ``choose`` with a COMM id)."""
        i = self.seat_of(token)
        if not isinstance(text, str) or not text.strip():
            raise RoomError(f"seat {i}: a chat message must be non-empty text, got {text!r}")
        if len(text.strip()) > MAX_CHAT_CHARS:
            raise RoomError(
                f"seat {i}: a chat message holds at most {MAX_CHAT_CHARS} characters, "
                f"got {len(text.strip())}"
            )
        message = {"seat": i, "step": self.steps, "text": text.strip()}
        self._say(message)
        if self.llm is not None:
            self.llm.hear(i, message["text"])
        return message

    def _say(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.chat_log = [*self.chat_log, message][-50:]

    @property
    def steps(self) -> int:
        return self.session.steps

    def can_act(self, i: int) -> bool:
        """Seat ``i`` has a real choice (more than NOOP legal), as in ``alem-play``."""
        return self.session.can_act(i)

    def waiting_for(self) -> list[int]:
        """Human seats (played by a person) that can act and have not chosen yet."""
        return [
            s.index for s in self.seats
            if s.human and not s.taken_over and s.index not in self.chosen and self.can_act(s.index)
        ]  # fmt: skip

    def _step_if_ready(self) -> bool:
        if self.waiting_for():
            return False
        self.step_world()
        return True

    def step_unattended(self) -> bool:
        """Turn mode: step when no person can act (asleep, resting or dead; or no person plays),
        as alem-play does; otherwise the room would wait for a key nobody can press. Returns
        True when the world stepped."""
        if self.config.tick_ms is not None or self.over or self.waiting_for():
            return False
        self.step_world()
        return True

    def tick(self) -> bool:
        """Real-time mode: step with NOOP for whoever has not chosen (once started)."""
        if not self.started:
            return False
        self.step_world()
        return True

    # ---- stepping --------------------------------------------------------------------------

    def _choices(self) -> tuple[list[int], list[str]]:
        """Every seat's action this step and who chose it."""
        actions, who = [], []
        asked = self._ask_llm()
        ai = [
            s.index for s in self.seats
            if self.can_act(s.index) and s.index not in asked and self.seating.played_by_ai(s.index)
        ]  # fmt: skip
        machine = asked | self.session.ask(ai)
        for s in self.seats:
            if not self.can_act(s.index):
                action, by = 0, "noop:cannot-act"
            elif s.index in machine:
                action, by = machine[s.index], self._who_plays(s) or ""
            elif s.index in self.chosen:
                action, by = self.chosen[s.index], "human"
            else:
                action, by = 0, "noop:no-choice"
            actions.append(action)
            who.append(by)
        return actions, who

    def _ask_llm(self) -> dict[int, int]:
        """The language-model seats' actions this step; their messages join the chat."""
        if self.llm is None:
            return {}
        seats = [
            s.index for s in self.seats
            if self.uses_llm[s.index] and (not s.human or s.taken_over) and self.can_act(s.index)
        ]  # fmt: skip
        asked, said = self.llm.act(seats, self.steps)
        for message in said:
            self._say(message)
        return asked

    def _masks(self) -> np.ndarray:
        infos = self.session.current.infos
        return np.stack([infos[f"agent_{i}"]["action_mask"] for i in range(self.p)])

    def step_world(self) -> None:
        """Step once with every seat's choice, write the step to the record, refresh views."""
        actions, who = self._choices()
        reward = self.session.step(dict(enumerate(actions)))
        self._refresh()
        self.events = [f"P{i + 1} {a.name.lower()}" for i, a in self.session.gained][-6:]
        extra = {"llm": self.llm.statuses} if self.llm is not None else {}  # parse statuses
        if self.llm is not None and self.llm.error:  # shown beside the achievements
            self.events = [*self.events, f"language model: {self.llm.error}"]
        if self.llm is not None and not self.over:
            self.llm.observe(self.session.state, actions, reward, self._masks())
        self.writer.step(
            actions=actions, who=who, rewards=reward, digest=self.digest,
            reaction_ms=[self.reaction_ms.get(i) for i in range(self.p)],
            client_ms=[self.client_ms.get(i) for i in range(self.p)], messages=self.messages,
            **extra,
        )  # fmt: skip
        self.last = {"actions": [action_label(a, self.p) for a in actions], "who": who}
        self.reaction_ms, self.client_ms, self.messages = {}, {}, []
        if self.over:
            self._end_episode()

    def _begin_episode(self) -> None:
        """The session started an episode: clear the room's step state, open its record."""
        seed = self.session.episode_seed
        self.reaction_ms: dict[int, float] = {}
        self.client_ms: dict[int, float] = {}
        self.messages: list[dict[str, Any]] = []
        self.chat_log: list[dict[str, Any]] = []
        self.events: list[str] = []
        self.last: dict[str, Any] = {}
        self.summary: list[str] | None = None
        self._refresh()
        path = Path(self.config.record_dir) / f"game_{seed}_{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        self.writer = RecordWriter(path, self._header(seed))
        self.record_paths.append(path)
        if self.llm is not None:
            trace = path.parent / "traces" / f"{path.stem}.trace.jsonl"
            self.llm.reset(self.session.state, self._masks(), seed, trace)

    def _header(self, seed: int) -> dict[str, Any]:
        c = self.config
        return {
            "seed": seed, "players": self.p, "difficulty": c.difficulty,
            "comm_channels": c.comm_channels, "max_steps": c.max_steps,
            "static": self.session.env.static, "tick_ms": c.tick_ms, "ai": c.ai,
            "seats": [
                {"seat": s.index, "role": s.role, "human": s.human, "ai": self.ai_name(s.index)}
                for s in self.seats
            ],
            "llm": self.llm.config.public() if self.llm is not None else None,
            "digest": self.digest,
        }  # fmt: skip

    def _end_episode(self) -> None:
        score = self.session.env.episode_score()
        llm = {"llm": self.llm.stats()} if self.llm is not None else {}
        self.writer.end(steps=self.steps, score=score, digest=self.digest, **llm)
        self.summary = self.session.summary()

    def next_episode(self) -> None:
        """Start the next episode (seed + 1) after one has ended."""
        if not self.over:
            raise RoomError("the episode is still running")
        self.session.next_episode()
        self._begin_episode()

    def _refresh(self) -> None:
        """The state's digest and one PNG per seat view, per step (the session keeps the host
        copy of the state and the views)."""
        self.digest = state_digest(self.session.state)
        self.pngs = [png_bytes(image) for image in to_uint8(self.session.views)]
        self.shown_at = time.monotonic()

    def hud(self, i: int) -> list[str]:
        """The HUD lines of seat ``i`` (``alem_pz.play.seats.hud_lines``, the same as alem-play)."""
        return hud_lines(self.session.state, i, self.p, float(self.session.current.returns[i]), i)

    def close(self) -> None:
        """Flush and close the record file (and the language models' trace)."""
        self.writer.close()
        if self.llm is not None:
            self.llm.close()


__all__ = ["Room", "RoomConfig", "RoomError", "Seat"]
