"""Teamwork through the PettingZoo adapter: revives, gives and the cooperation metrics in infos."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alem_core.constants import GIVE_BASE, Action, Facing, Inv, Request
from alem_core.scoring.metrics import COOPERATION_METRICS

NOOP = 0


def _edit_players(env, **fields):
    state = env.core_state
    changes = {k: jnp.asarray(v, getattr(state.players, k).dtype) for k, v in fields.items()}
    env.core_state = state.replace(players=state.players.replace(**changes))


def _side_by_side(env):
    """agent_0 at (5,5) facing agent_1 at (5,6); agent_2 away at (9,9)."""
    _edit_players(
        env,
        pos=[[5, 5], [5, 6], [9, 9]],
        facing=[Facing.RIGHT, Facing.UP, Facing.UP],
    )


def test_cooperation_metrics_are_plain_numbers_in_every_info(make_env):
    env = make_env()
    _, infos = env.reset(seed=0)
    _, _, _, _, infos = env.step(dict.fromkeys(env.agents, Action.REQUEST_WOOD))
    for agent in env.possible_agents:
        metrics = {k[len("cooperation/") :]: v for k, v in infos[agent].items() if "/" in k}
        assert list(metrics) == list(COOPERATION_METRICS)
        assert all(type(v) in (int, float) for v in metrics.values())
        assert metrics["requests"] == 1 and metrics["open_request"] == 1


def test_a_dead_agent_stays_in_agents_and_is_revived(make_env):
    env = make_env()
    env.reset(seed=0)
    _side_by_side(env)
    _edit_players(env, alive=[True, False, True], health=[9.0, 0.0, 9.0])
    _, _, terms, _, infos = env.step(dict.fromkeys(env.agents, NOOP))
    assert "agent_1" in env.agents and not terms["agent_1"]
    assert infos["agent_1"]["alive"] is False
    assert np.flatnonzero(infos["agent_1"]["action_mask"]).tolist() == [NOOP]
    _, _, _, _, infos = env.step({"agent_0": Action.DO, "agent_1": NOOP, "agent_2": NOOP})
    assert infos["agent_1"]["alive"] is True
    assert infos["agent_1"]["action_mask"].sum() > 1  # acts again from the next step
    assert infos["agent_0"]["cooperation/revives"] == 1
    assert infos["agent_1"]["cooperation/times_revived"] == 1


def test_a_give_slot_is_offered_exactly_when_it_would_move_a_unit(make_env):
    env = make_env()
    env.reset(seed=0)
    state = env.core_state
    inventory = state.players.inventory.at[2, Inv.STONE].set(3)
    players = state.players.replace(
        inventory=inventory,
        request=jnp.array([Request.STONE, -1, -1], jnp.int32),
        request_timer=jnp.array([5, 0, 0], jnp.int32),
    )
    env.core_state = state.replace(players=players)
    _, _, _, _, infos = env.step(dict.fromkeys(env.agents, NOOP))
    assert infos["agent_2"]["action_mask"][GIVE_BASE] == 1  # agent_2's slot 0 serves agent_0
    assert infos["agent_1"]["action_mask"][GIVE_BASE] == 0  # agent_1 has no stone
    _, _, _, _, infos = env.step({"agent_0": NOOP, "agent_1": NOOP, "agent_2": GIVE_BASE})
    assert infos["agent_2"]["cooperation/trades"] == 1
    assert infos["agent_0"]["cooperation/received"] == 1
    assert int(env.core_state.players.inventory[0, Inv.STONE]) == 1
