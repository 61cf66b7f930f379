"""Play alem with the keyboard: hot-seat for several people, with AI teammates in any seat.

    python -m alem_pz.play.keyboard --players 3 --humans 0,1 --ai greedy --difficulty easy
    alem-play --humans none --ai random            # watch an AI team (console script)
    alem-play --text --seat 1                      # one seat in the terminal, as text

Flow (docs/playing.md#keyboard-play): the people act in turn; the window shows the current person's
own view (large) beside the teammates' views; each key records that person's action and passes the
turn on; when every person has chosen, the AI seats choose (``policy(observation, action_mask)``)
and the world steps once. Dead, sleeping or resting people get NOOP without a turn. At the end
of an episode a summary is printed and shown, and a new episode starts (``--episodes``).
Keys: ``alem_pz.play.keys`` (``--keys`` prints them). ``--record team.gif`` saves every step.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alem_pz.envs import rendering
from alem_pz.envs.kernels import compiled_core
from alem_pz.evaluation.protocol import BASE_SEED
from alem_pz.play.gif import save_frames
from alem_pz.play.keys import describe, key_table
from alem_pz.play.seats import hud_lines, parse_humans
from alem_pz.play.session import PlaySession, SessionConfig

ACCENTS = ((64, 216, 242), (90, 230, 90), (255, 184, 51), (178, 115, 242), (255, 115, 178))
NOTICE_SECONDS = 3.5
HINT = "WASD move  Space do  Tab sleep  1-8 tools  F1-F9 request  Ctrl+digit give  Esc quit"


@dataclass
class PlayConfig(SessionConfig):
    """Options of keyboard play (the command-line flags): the session's, and the window's."""

    tile_px: int = 32
    fps: float = 30.0
    scale: float = 1.0
    episodes: int | None = None
    record: str | None = None


class Game:
    """Keyboard play: a ``PlaySession`` (``alem_pz.play.session``) seen through a pygame window,
    with hot-seat turns, notices and the event loop."""

    def __init__(self, config: PlayConfig) -> None:
        import pygame

        self.pg, self.config = pygame, config
        self.session = PlaySession(config)
        self.p, self.humans = self.session.p, self.session.humans
        nc = self.session.env.static.num_comm_channels
        pygame.display.init()  # key names resolve only once pygame's display is up
        self.keys = {
            (pygame.key.key_code(name), mods): action
            for (name, mods), action in key_table(self.p, nc).items()
        }
        self.log: list[tuple[int, int]] = []  # (player, action) of every key a person pressed
        self.frames: list[np.ndarray] = []
        self.notices: list[tuple[str, tuple[int, int, int], float]] = []
        self.episodes = 0
        pygame.font.init()
        pygame.key.set_repeat(250, 75)
        pygame.display.set_caption("alem")
        self.font = pygame.font.Font(None, max(16, round(20 * config.scale)))
        self.clock = pygame.time.Clock()
        self.screen = None
        self.dirty = True
        self._shown_notices: tuple[str, ...] = ()
        self._begin()
        # The window opens only once the step is compiled: the first key then moves at once.
        compiled_core(self.session.env.static).step.wait()

    # ---- turns ----------------------------------------------------------------------------

    def _begin(self) -> None:
        """A new episode is on screen: record its first frame, give the first turn."""
        self.dirty = True
        self._record()
        self._next_turn()

    def _next_turn(self) -> None:
        """Move the turn to the next person who can act; step the world when none is left."""
        waiting = [
            i for i in self.humans if i not in self.session.chosen and self.session.can_act(i)
        ]
        self.turn = waiting[0] if waiting else None
        if self.turn is None and self.humans:
            self.step_world()

    def press(self, key: int, mods: frozenset[str]) -> int | None:
        """A key from the current person: record its action and pass the turn. Returns the
        action, or None when the key is not in the table or nobody is waiting."""
        action = self.keys.get((key, mods))
        if action is None and "shift" in mods:
            action = self.keys.get((key, mods - {"shift"}))
        if action is None or self.turn is None:
            return None
        self.session.chosen[self.turn] = action
        self.log.append((self.turn, action))
        self.dirty = True  # the turn passes on
        self._next_turn()
        return action

    def step_world(self) -> None:
        """Fill in AI and NOOP seats, step once, update notices, end the episode if over."""
        ai = [i for i in self.session.policies if self.session.can_act(i)]
        self.session.step(self.session.chosen | self.session.ask(ai))
        self.dirty = True
        self._notice_changes()
        self._record()
        if self.session.over:
            self._end_episode()
        else:
            self._next_turn()

    def _notice_changes(self) -> None:
        before, after = self.session.before, self.session.state
        lost = before.players.health - after.players.health
        now = time.monotonic()
        for i, a in self.session.gained:
            self.notices.append((f"P{i + 1} {a.name.lower()}", (255, 210, 60), now))
        for i in np.flatnonzero(lost >= 0.5):
            self.notices.append((f"P{i + 1} -{lost[i]:.0f} HP", (240, 70, 70), now))
        self.notices = self.notices[-4:]

    def _end_episode(self) -> None:
        lines = self.session.summary()
        print("\n".join(lines))
        now = time.monotonic()
        self.notices = [(line, (255, 255, 255), now + 2) for line in lines[:3]]
        self.episodes += 1
        if self.config.episodes is None or self.episodes < self.config.episodes:
            self.session.next_episode()
            self._begin()

    def _record(self) -> None:
        if self.config.record:
            self.frames.append(rendering.team_frame(self.session.env))

    # ---- loop -----------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the requested number of episodes has been played."""
        return self.config.episodes is not None and self.episodes >= self.config.episodes

    def handle_events(self) -> bool:
        """Process pending pygame events; False when the window asks to quit."""
        pg = self.pg
        for event in pg.event.get():
            if event.type == pg.QUIT or (event.type == pg.KEYDOWN and event.key == pg.K_ESCAPE):
                return False
            if event.type == pg.KEYDOWN:
                mods = {"ctrl": pg.KMOD_CTRL, "shift": pg.KMOD_SHIFT, "alt": pg.KMOD_ALT}
                self.press(event.key, frozenset(m for m, bit in mods.items() if event.mod & bit))
        return True

    def run(self, max_frames: int | None = None) -> None:
        """The event loop: draw, read keys (or let an all-AI team step), keep ``fps``."""
        frames = 0
        while not self.finished and (max_frames is None or frames < max_frames):
            if not self.handle_events():
                break
            if not self.humans:
                self.step_world()
            if self.finished:
                break
            self._expire_notices()
            if self.dirty:  # an idle window redraws nothing
                self.draw()
            self.clock.tick(self.config.fps)
            frames += 1
        self.close()

    def close(self) -> None:
        """Save the recording (if asked) and close the window."""
        if self.config.record and self.frames:
            print(f"recording saved to {save_frames(self.frames, self.config.record)}")
            self.frames = []
        self.pg.display.quit()

    # ---- drawing --------------------------------------------------------------------------

    def draw(self) -> None:
        """The current player's view, the teammates' views at a smaller size, the HUD text."""
        pg, scale = self.pg, self.config.scale
        views = self.session.views
        focus = self.turn if self.turn is not None else 0
        big = self._surface(views[focus], scale)
        others = [j for j in range(self.p) if j != focus]
        small_scale = scale / max(2, len(others))
        smalls = [self._surface(views[j], small_scale) for j in others]
        side = max((s.get_width() for s in smalls), default=0)
        hud_h = 6 * self.font.get_linesize() + 8
        size = (max(big.get_width() + side + 8, 720), big.get_height() + hud_h)
        if self.screen is None or self.screen.get_size() != size:
            self.screen = pg.display.set_mode(size)
        self.screen.fill((16, 16, 22))
        self.screen.blit(big, (0, 0))
        pg.draw.rect(self.screen, ACCENTS[focus % 5], big.get_rect(), 3)
        y = 0
        for j, s in zip(others, smalls, strict=True):
            self.screen.blit(s, (big.get_width() + 8, y))
            pg.draw.rect(
                self.screen, ACCENTS[j % 5], s.get_rect(topleft=(big.get_width() + 8, y)), 2
            )
            y += s.get_height() + 4
        self._draw_hud(focus, big.get_height() + 4)
        pg.display.flip()
        self.dirty = False

    def _surface(self, image: np.ndarray, scale: float):
        surface = self.pg.surfarray.make_surface((image * 255).astype(np.uint8).swapaxes(0, 1))
        size = (round(surface.get_width() * scale), round(surface.get_height() * scale))
        return self.pg.transform.smoothscale(surface, size) if scale != 1 else surface

    def _expire_notices(self) -> None:
        """Drop notices older than ``NOTICE_SECONDS``; a change in what shows asks for a redraw."""
        now = time.monotonic()
        self.notices = [n for n in self.notices if now - n[2] < NOTICE_SECONDS]
        shown = tuple(n[0] for n in self.notices)
        if shown != self._shown_notices:
            self._shown_notices = shown
            self.dirty = True

    def _draw_hud(self, focus: int, top: int) -> None:
        lines = hud_lines(
            self.session.state, focus, self.p, self.session.current.returns[focus], self.turn
        )
        colours = [ACCENTS[focus % 5]] + [(220, 220, 220)] * (len(lines) - 1)
        notice = "   ".join(n[0] for n in self.notices)
        rows = [
            *zip(lines, colours, strict=True),
            (notice, (255, 210, 60)),
            (HINT, (140, 140, 150)),
        ]
        for k, (text, colour) in enumerate(rows):
            self.screen.blit(
                self.font.render(text, True, colour), (8, top + k * self.font.get_linesize())
            )


def main(argv: Sequence[str] | None = None) -> None:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description="Play alem with the keyboard (hot-seat).")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--difficulty", default="easy")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--scale", type=float, default=1.0, help="window scale")
    parser.add_argument("--tile", type=int, default=32, help="pixels per tile before scaling")
    parser.add_argument("--humans", default="0", help="seats played by people: 0,1 / all / none")
    parser.add_argument(
        "--ai",
        default="random",
        help="random, greedy or module:function (alem_pz.evaluation.policies)",
    )
    parser.add_argument("--comm-channels", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=10000)
    parser.add_argument("--episodes", type=int, default=None)
    parser.add_argument("--record", default=None, help="save the session as a GIF (or PNG folder)")
    parser.add_argument("--keys", action="store_true", help="print the key table and exit")
    parser.add_argument(
        "--text", action="store_true", help="play one seat in the terminal, as text"
    )
    parser.add_argument("--seat", type=int, default=0, help="the seat played with --text")
    args = parser.parse_args(argv)
    if args.text:  # the text game: the same text an LLM reads (alem_pz.text.play)
        from alem_pz.text.play import play_text

        seed = BASE_SEED if args.seed is None else args.seed
        play_text(args.seat, args.difficulty, seed, args.max_steps)
        return
    if args.keys:
        print("\n".join(describe(args.players, args.comm_channels)))
        return
    config = PlayConfig(
        players=args.players, difficulty=args.difficulty, seed=args.seed, fps=args.fps,
        scale=args.scale, tile_px=args.tile, humans=parse_humans(args.humans), ai=args.ai,
        comm_channels=args.comm_channels, max_steps=args.max_steps, episodes=args.episodes,
        record=args.record,
    )  # fmt: skip
    print(f"compiling and warming up (tens of seconds); {len(config.humans)} human seat(s)")
    Game(config).run()


__all__ = ["Game", "PlayConfig", "main"]

if __name__ == "__main__":
    main()
