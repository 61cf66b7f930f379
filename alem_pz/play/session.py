"""One play session, with no window and no server: the team env, the policies of the AI seats,
the running episode, the actions people chose for this step, what the last step changed and the
end-of-episode summary.

Keyboard play (``alem_pz.play.keyboard``) and the browser room (``alem_pz.play.web.room``) are
views of it: each decides when the world steps (turns, ticks) and how a person's choice reaches
it (a key, a message with a seat token), and shows what the session holds. The session holds no
rules either: the world steps through ``AlemParallelEnv`` and ``alem_pz.episode.Episode``, the
pictures are the pixel observation (``alem_pz.envs.rendering``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

import alem_core
from alem_core.constants import ROLE_OF_INDEX, Achievement
from alem_pz.envs import rendering
from alem_pz.envs.parallel import AlemParallelEnv
from alem_pz.episode import Episode
from alem_pz.evaluation.policies import load_seat_policies


@dataclass
class SessionConfig:
    """The options every face of play shares (their command-line flags)."""

    players: int = 3
    humans: tuple[int, ...] = (0,)
    ai: str = "random"
    difficulty: str | float = "easy"
    seed: int | None = None
    comm_channels: int = 0
    max_steps: int = 10000
    tile_px: int = 24
    static: alem_core.StaticParams | None = field(default=None, repr=False)


class PlaySession:
    """A run of episodes on seeds ``seed``, ``seed + 1``, ... (module docstring).

    Attributes: ``env``, ``p`` (players), ``seed``, ``humans`` (seats people play), ``policies``
    ({seat: policy} of the seats an AI may play), ``episode`` (index of the running episode),
    ``current`` (its ``Episode``), ``chosen`` ({seat: action} people chose for this step),
    ``state`` (host copy of the state), ``before`` (the host copy before the last step),
    ``views`` ((P, H, W, 3) float pixel views at ``tile_px``), ``gained`` ((seat, achievement)
    pairs the last step unlocked).
    """

    def __init__(self, config: SessionConfig, ai_seats: Iterable[int] | None = None) -> None:
        """``ai_seats``: the seats whose AI policy is loaded (default: every seat no person
        plays; a room that hands abandoned seats to the AI loads all)."""
        self.config = config
        self.env = AlemParallelEnv(
            players=config.players, difficulty=config.difficulty,
            comm_channels=config.comm_channels, max_steps=config.max_steps, static=config.static,
        )  # fmt: skip
        self.p = self.env.static.player_count
        self.num_actions = self.env.static.num_actions
        self.seed = config.seed if config.seed is not None else int(time.time()) % 100000
        self.humans = sorted({i for i in config.humans if 0 <= i < self.p})
        if ai_seats is None:
            ai_seats = [i for i in range(self.p) if i not in self.humans]
        nc = self.env.static.num_comm_channels
        self.policies = load_seat_policies(config.ai, list(ai_seats), self.p, self.seed, nc)
        self.episode = 0
        self.start_episode()

    def start_episode(self) -> None:
        """Reset the env and the AI seats' policies on this episode's seed; nobody has chosen
        yet."""
        self.current = Episode(self.env, self.episode_seed, self.policies)
        self.chosen: dict[int, int] = {}
        self.state: Any = None  # the host copy of an alem_core.State, set by refresh()
        self.refresh()

    def next_episode(self) -> None:
        """Start the next episode (seed + 1)."""
        self.episode += 1
        self.start_episode()

    @property
    def episode_seed(self) -> int:
        """The world seed of the running episode."""
        return self.seed + self.episode

    @property
    def steps(self) -> int:
        """Steps played in the running episode."""
        return self.current.steps

    @property
    def over(self) -> bool:
        """The running episode has ended."""
        return self.current.over

    def can_act(self, i: int) -> bool:
        """Seat ``i`` has a real choice (not dead, asleep or resting: more than NOOP legal)."""
        return self.current.can_act(i)

    def ask(self, seats: Iterable[int]) -> dict[int, int]:
        """The AI's actions for ``seats`` on this step's observations. A team policy is asked
        every step even when none of its seats is in ``seats`` (all asleep or dead): it played
        every step in training, and a recurrent one's memory moves on with each."""
        wanted = {i: self.policies[i] for i in seats}
        teams = {i: p for i, p in self.policies.items() if getattr(p, "batched", False)}
        answers = self.current.ask(teams | wanted)  # each team policy once (seat_actions)
        return {i: answers[i] for i in wanted}

    def step(self, actions: Mapping[int, int]) -> list[float]:
        """Step once with ``{seat: action}`` (NOOP for the rest); the choices are cleared and
        the views refreshed. Returns each seat's reward."""
        reward = self.current.step(actions)
        self.chosen = {}
        self.refresh()
        return reward

    def refresh(self) -> None:
        """One host copy of the state and the pixel views per step (not per frame shown), and
        the achievements the step unlocked."""
        self.before = self.state
        self.state = jax.device_get(self.env.core_state)
        self.views = rendering.pixel_observations(self.env, self.config.tile_px)
        self.gained: list[tuple[int, Achievement]] = []
        if self.before is not None:
            new = self.state.players.achievements & ~self.before.players.achievements
            rows, cols = np.nonzero(new)
            self.gained = [(int(i), Achievement(int(a))) for i, a in zip(rows, cols, strict=True)]

    def summary(self) -> list[str]:
        """End-of-episode lines: steps and seed, then every seat's return and achievements."""
        assert self.state is not None  # refresh() ran when the episode started
        unlocked, returns = self.state.players.achievements, self.current.returns
        lines = [f"episode over after {self.steps} steps (seed {self.episode_seed})"]
        for i in range(self.p):
            names = [Achievement(int(a)).name.lower() for a in np.flatnonzero(unlocked[i])]
            lines.append(
                f"P{i + 1} {ROLE_OF_INDEX[i % 3].name.lower()}: score {returns[i]:.1f}, "
                f"{len(names)} achievements: {', '.join(names) or '-'}"
            )
        return lines


__all__ = ["PlaySession", "SessionConfig"]
