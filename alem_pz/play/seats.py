"""What a seat shows and who sits where, shared by keyboard play and the browser rooms.

``hud_lines`` (and ``coordination_cues``) are the text a player reads beside the picture, read
from a host copy of the state; ``parse_humans`` reads the seats people play from the command
line. Neither face's command-line module is imported by the other: both import this one.
"""

from __future__ import annotations

import numpy as np

import alem_core
from alem_core.constants import NUM_REQUESTS, ROLE_OF_INDEX, Inv, Request


def hud_lines(state: alem_core.State, i: int, p: int, score: float, turn: int | None) -> list[str]:
    """Four HUD lines for player ``i``: who and vitals, inventory, requests and messages,
    coordination cues, read from a host copy of the state (``jax.device_get``)."""
    pl = state.players
    role = ROLE_OF_INDEX[i % 3].name.lower()
    who = f"Player {i + 1}/{p} · {role}" + ("" if turn is not None else " (AI team)")
    vitals = "  ".join(
        f"{name} {int(np.ceil(getattr(pl, name)[i]))}"
        for name in ("health", "food", "drink", "energy", "mana")
    )
    inv = np.asarray(pl.inventory[i])
    items = [f"{Inv(k).name.lower()} {inv[k]}" for k in range(len(Inv)) if inv[k] > 0]
    requests = [
        f"P{j + 1} wants {Request(int(pl.request[j])).name.lower()} ({int(pl.request_timer[j])})"
        for j in range(p)
        if 0 <= int(pl.request[j]) < NUM_REQUESTS and int(pl.request_timer[j]) > 0
    ]
    messages = [
        f"P{j + 1} ch {int(np.argmax(pl.message[j]))}"
        for j in range(p)
        if pl.message.shape[1] and pl.message[j].max() > 0
    ]
    return [
        f"{who}   {vitals}   score {score:.1f}   step {int(state.timestep)}",
        "inventory: " + (", ".join(items) or "empty"),
        "requests: " + (", ".join(requests) or "none"),
        "messages: " + (", ".join(messages) or "none") + "   " + coordination_cues(state, i),
    ]


def coordination_cues(state: alem_core.State, i: int) -> str:
    """Coordination targets in player ``i``'s 9 x 11 view, and open handovers anywhere."""
    r, c = (int(v) for v in state.players.pos[i])
    coord = np.asarray(state.world.coord)[max(r - 4, 0) : r + 5, max(c - 5, 0) : c + 6]
    elites = 0
    for name in ("melee", "passive", "ranged"):
        ents = getattr(state.mobs, name)
        pos = np.asarray(ents.pos)
        near = (np.abs(pos[:, 0] - r) <= 4) & (np.abs(pos[:, 1] - c) <= 5)
        elites += int((near & np.asarray(ents.alive) & np.asarray(ents.elite)).sum())
    return (
        f"in view: {int((coord > 0).sum())} sync, {int((coord < 0).sum())} handover, "
        f"{elites} elite;  open handovers: {int(np.asarray(state.handovers.open).sum())}"
    )


def parse_humans(text: str) -> tuple[int, ...]:
    """``"0,2"`` -> (0, 2); ``"none"`` or ``""`` -> (); ``"all"`` -> every seat (resolved later)."""
    if text in ("", "none"):
        return ()
    if text == "all":
        return tuple(range(16))
    return tuple(int(v) for v in text.split(","))


__all__ = ["coordination_cues", "hud_lines", "parse_humans"]
