"""End to end: a forager who shares water keeps a hard-gated team alive longer (docs/rules/roles.md,
docs/rules/step.md#trading).

Under hard gates only the forager can drink. On a sand pocket walled in by stone (so no mob
can spawn), the forager stands at the water; the warrior and the miner cannot reach any drink
themselves and ask for it with REQUEST_DRINK when they run low. The same scripted team plays
twice per seed: once with the forager answering requests with GIVE, once without.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import GIVE_BASE, Action, Facing, Request
from alem_core.params import Params
from alem_core.testing import hand_built_state
from alem_core.testing.rollout import compiled

from .conftest import SMALL

POCKET = ["#" * 16] * 6 + ["#####ssssss#####", "####~ssssss#####", "#####ssssss#####"]
POCKET += ["#" * 16] * 7
POSITIONS = [(8, 8), (7, 5), (7, 8)]  # warrior, forager (faces the water at (7, 4)), miner
FACING = [Facing.UP, Facing.LEFT, Facing.UP]
STEPS = 420
SEEDS = (0, 1, 2)
PARAMS = Params(soft_specialization=False, shared_reward=False)


def scripted_actions(players: dict[str, np.ndarray], sharing: bool) -> np.ndarray:
    """Warrior and miner request drink when low; the forager serves the thirstiest, or drinks."""
    actions = np.full(3, Action.NOOP, np.int32)
    for agent in (0, 2):
        low = players["drink"][agent] <= 5
        if low and players["request_timer"][agent] <= 1:
            actions[agent] = Action.REQUEST_DRINK
    asking = [
        a
        for a in (0, 2)
        if players["request"][a] == Request.DRINK
        and players["request_timer"][a] > 0
        and players["alive"][a]
    ]
    if sharing and asking and players["drink"][1] > 2:
        target = min(asking, key=lambda a: players["drink"][a])
        actions[1] = GIVE_BASE + (target if target < 1 else target - 1)
    else:
        actions[1] = Action.DO  # drink
    return actions


def play(seed: int, sharing: bool) -> tuple[int, np.ndarray]:
    """(alive agent-steps, per agent: did it ever run out of drink while alive)."""
    step = compiled(SMALL)[1]
    rng = np.random.default_rng(seed)
    state = hand_built_state(POCKET, SMALL, PARAMS, POSITIONS, FACING)
    start = {  # the seed varies how thirsty and hungry everyone starts
        "drink": jnp.asarray(rng.integers(5, 10, 3), jnp.int32),
        "thirst": jnp.asarray(rng.uniform(0, 20, 3), jnp.float32),
        "hunger": jnp.asarray(rng.uniform(0, 25, 3), jnp.float32),
    }
    state = state.replace(players=state.players.replace(**start))
    key = jax.random.key(seed)
    fields = ("drink", "request", "request_timer", "alive")
    ran_dry = np.zeros(3, bool)
    for _ in range(STEPS):
        players = {f: np.asarray(getattr(state.players, f)) for f in fields}
        ran_dry |= players["alive"] & (players["drink"] == 0)
        if not players["alive"].any():
            break
        key, sub = jax.random.split(key)
        actions = jnp.asarray(scripted_actions(players, sharing))
        _, state, _, _, _, _ = step(sub, state, actions, PARAMS)
    return int(state.stats.alive_steps.sum()), ran_dry


@pytest.mark.parametrize("seed", SEEDS)
def test_giving_drink_keeps_the_team_alive_longer(seed):
    shared_steps, shared_dry = play(seed, sharing=True)
    alone_steps, alone_dry = play(seed, sharing=False)
    assert shared_steps > alone_steps + 50, (shared_steps, alone_steps)
    assert alone_dry.tolist() == [True, False, True]  # only the forager can drink
    assert not shared_dry.any()  # the forager's gives keep everyone watered
