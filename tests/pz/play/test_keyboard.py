"""Keyboard play (``alem_pz.play.keyboard``), headless: every key of the table and the idle
window. ``SDL_VIDEODRIVER=dummy`` (tests/conftest.py) lets pygame open its window without a
screen; everything runs on the small world of ``tests/pz/conftest.py``."""

from __future__ import annotations

import pytest

import alem_core
from alem_core.testing import small
from alem_pz.play.keys import key_table
from tests.pz.conftest import SMALL


def _play_every_key(static: alem_core.StaticParams) -> None:
    """Every key of the table, pressed once by each of players 1..P as injected pygame events,
    records exactly the action it names for that player, and each round steps the world."""
    import pygame

    from alem_pz.play.keyboard import Game, PlayConfig

    p, nc = static.player_count, static.num_comm_channels
    game = Game(
        PlayConfig(players=p, comm_channels=nc, humans=tuple(range(p)), seed=0, static=static)
    )
    session = game.session
    start, start_infos = session.env.core_state, session.current.infos
    mods = {"ctrl": pygame.KMOD_LCTRL, "shift": pygame.KMOD_LSHIFT, "alt": pygame.KMOD_LALT}
    for steps, ((name, held), action) in enumerate(key_table(p, nc).items(), start=1):
        # Every round starts from the same state, so nobody is asleep, resting or dead.
        session.env.core_state, session.current.infos, session.chosen = start, start_infos, {}
        game.turn = 0
        bits = 0
        for m in held:
            bits |= mods[m]
        for _ in range(p):
            event = pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name), mod=bits)
            pygame.event.post(event)
        assert game.handle_events()
        assert game.log[-p:] == [(i, action) for i in range(p)], (name, held)
        assert session.steps == steps
    game.draw()  # the HUD draws headless
    game.close()


def test_a_waiting_window_redraws_only_on_change(monkeypatch):
    """A window waiting for a key draws once, then nothing until a key or a notice changes
    what it shows (redrawing the views 30 times a second kept a core busy)."""
    from alem_pz.play.keyboard import Game, PlayConfig

    game = Game(PlayConfig(players=3, humans=(0,), seed=0, static=SMALL, fps=1000))
    draws = []
    real_draw = game.draw
    monkeypatch.setattr(game, "draw", lambda: (draws.append(1), real_draw())[1])
    monkeypatch.setattr(game, "close", lambda: None)
    game.notices = []
    game.run(max_frames=40)
    assert len(draws) == 1
    game.press(game.pg.K_d, frozenset())  # a move: the world steps, the view changes
    game.run(max_frames=40)
    assert len(draws) == 2
    game.pg.display.quit()


def test_keyboard_play_every_key_for_every_player():
    _play_every_key(SMALL)
    table = key_table(3, 0)
    assert sorted(set(table.values())) == list(range(56))  # every action of P = 3 has a key


@pytest.mark.slow
def test_keyboard_play_comm_keys():
    static = small(num_comm_channels=4)
    _play_every_key(static)
