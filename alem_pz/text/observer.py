"""Per-episode text observations for a whole team (the text env and the harness share it).

``TextObserver`` keeps what the step feedback needs between steps (the legal-action mask the
agents chose under, their achievements before the step, the deepest floor reached) and renders
every agent's long-term and short-term context from a host snapshot.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np

import alem_core
from alem_core.constants import comm_base
from alem_pz.text import view
from alem_pz.text.actions import action_text
from alem_pz.text.observation import (
    Context,
    Feedback,
    TextConfig,
    frame,
    is_inactive,
    long_term,
    short_term,
)

TEXT_CHARSET = string.printable + "—←→↑↓"
"""Every character the observation text may contain (``gymnasium.spaces.Text`` charset)."""
TEXT_MAX_LENGTH = 20000


@dataclass(frozen=True)
class AgentText:
    """One agent's observation text."""

    long: str
    short: str
    inactive: bool
    frame: str = ""
    """The ASCII view (``TextConfig.frames``), for traces; not shown to the agent."""

    @property
    def full(self) -> str:
        """Long-term then short-term context, as the text env's observation."""
        return f"{self.long}\n\n{self.short}"


class TextObserver:
    """Renders the team's text observations step after step."""

    def __init__(
        self,
        params: alem_core.Params,
        static: alem_core.StaticParams,
        config: TextConfig | None = None,
    ) -> None:
        self.params, self.static = params, static
        self.config = config or TextConfig()
        self.max_floor = 0
        self._feedback: list[Feedback | None] = [None] * static.player_count
        self._achievements: np.ndarray | None = None
        self._masks: np.ndarray | None = None

    def reset(self, state: alem_core.State, masks: np.ndarray) -> list[AgentText]:
        """Observations at the start of an episode (no feedback)."""
        s = view.snapshot(state)
        self.max_floor = view.current_floor(s)
        self._feedback = [None] * self.static.player_count
        return self._observe(s, masks)

    def step(
        self,
        state: alem_core.State,
        actions: np.ndarray,
        rewards: np.ndarray,
        masks: np.ndarray,
    ) -> list[AgentText]:
        """Observations after a step taken with ``actions`` (P,) that earned ``rewards`` (P,)."""
        s = view.snapshot(state)
        self.max_floor = max(self.max_floor, view.current_floor(s))
        after = np.stack([view.player(s, i).achievements for i in range(self.static.player_count)])
        before = self._achievements if self._achievements is not None else after
        feedback = []
        for i, action in enumerate(np.asarray(actions, int)):
            legal = self._masks is None or bool(self._masks[i][action])
            new = tuple(int(a) for a in np.flatnonzero(after[i] & ~before[i]))
            name = self._name(int(action), i)
            feedback.append(Feedback(name, legal, float(rewards[i]), new))
        self._feedback = feedback
        return self._observe(s, masks)

    def _name(self, action: int, agent: int) -> str:
        """Canonical name, or "Comm channel k" for the RL comm actions (not text actions)."""
        base = comm_base(self.static.player_count)
        if action >= base:
            return f"Comm channel {action - base}"
        return action_text(action, agent, self.static.player_count)

    def _observe(self, s, masks: np.ndarray) -> list[AgentText]:
        self._masks = np.asarray(masks)
        players = range(self.static.player_count)
        self._achievements = np.stack([view.player(s, i).achievements for i in players])
        out = []
        for i in players:
            ctx = Context(
                i, self.params, self.static, self._feedback[i], self.max_floor, self.config
            )
            pic = frame(s, ctx) if self.config.frames else ""
            long, short = long_term(s, ctx), short_term(s, ctx, masks[i])
            out.append(AgentText(long, short, is_inactive(s, i), pic))
        return out
