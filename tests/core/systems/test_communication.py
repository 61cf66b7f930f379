"""One-hot radio (docs/rules/step.md#communication): a message is seen for exactly one observation,
by everyone."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from alem_core.constants import Action, comm_base
from alem_core.observation.masking import action_mask
from alem_core.observation.vector import dashboard_rows
from alem_core.params import Params
from alem_core.systems.communication import send_messages
from alem_core.testing import hand_built_state

from ..conftest import SMALL

RADIO = dataclasses.replace(SMALL, num_comm_channels=4)


def test_message_is_seen_for_exactly_one_step_by_everyone():
    params = Params()
    state = hand_built_state(["."], RADIO, params)
    channel_2 = comm_base(3) + 2
    sent = send_messages(
        state, jnp.array([Action.NOOP, channel_2, Action.NOOP]), None, params, RADIO
    )
    rows = np.asarray(dashboard_rows(sent.players, RADIO))
    np.testing.assert_array_equal(rows[:, -4:], [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    assert sent.stats.comms.tolist() == [0, 1, 0]
    later = send_messages(sent, jnp.zeros(3, jnp.int32), None, params, RADIO)
    assert float(np.asarray(later.players.message).sum()) == 0.0
    assert later.stats.comms.tolist() == [0, 1, 0]


def test_two_senders_and_a_resend():
    params = Params()
    state = hand_built_state(["."], RADIO, params)
    first = comm_base(3)
    both = send_messages(state, jnp.array([first + 3, Action.DO, first]), None, params, RADIO)
    np.testing.assert_array_equal(
        np.asarray(both.players.message)[[0, 2]], [[0, 0, 0, 1], [1, 0, 0, 0]]
    )
    again = send_messages(both, jnp.array([first + 3, Action.DO, Action.NOOP]), None, params, RADIO)
    np.testing.assert_array_equal(again.players.message[0], [0, 0, 0, 1])
    assert again.stats.comms.tolist() == [2, 0, 1]


def test_comm_actions_are_always_legal_for_able_agents():
    params = Params()
    state = hand_built_state(["."], RADIO, params)
    state = state.replace(players=state.players.replace(alive=jnp.array([True, False, True])))
    mask = np.asarray(action_mask(state, params, RADIO))
    first = comm_base(3)
    assert mask[[0, 2], first : first + 4].all()
    assert not mask[1, first : first + 4].any()
