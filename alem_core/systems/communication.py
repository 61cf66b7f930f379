"""One-hot radio messages (docs/rules/step.md#communication).

Reads: actions. Writes: players.message (P, nc): reset every step, so a message is seen in
exactly one observation (the one returned by the step that sent it), by everyone; stats.comms.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import comm_base
from alem_core.draws import Draws
from alem_core.params import Params, StaticParams
from alem_core.state import State


def send_messages(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Set each sender's message to one-hot(channel); everyone else's to zeros."""
    channels = static.num_comm_channels
    channel = actions - comm_base(static.player_count)
    sent = (channel >= 0) & (channel < channels)
    message = jax.nn.one_hot(jnp.where(sent, channel, -1), channels, dtype=jnp.float32)
    players = dataclasses.replace(state.players, message=message)
    stats = dataclasses.replace(state.stats, comms=state.stats.comms + sent)
    return dataclasses.replace(state, players=players, stats=stats)
