"""The action mask (docs/rules/observations.md#action-mask), stacked from the predicates the systems
themselves use.

Conservative: it may allow an action that turns out to do nothing (a soft gate may fail, a
target may be blocked), but it never forbids a possible one. Dead, sleeping or resting agents
have only NOOP.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.constants import GIVE_BASE, Action, comm_base, num_give_slots
from alem_core.dense import column_table, spread
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import RECIPE_ACTION
from alem_core.state import State
from alem_core.systems.attributes import LEVEL_UPS, can_level_up
from alem_core.systems.construction import build_mask
from alem_core.systems.consumables import DRINK_ACTIONS, can_drink_potion, can_read_book
from alem_core.systems.crafting import craft_mask
from alem_core.systems.enchanting import ENCHANT_ACTIONS, can_enchant
from alem_core.systems.floors import can_ascend, can_descend
from alem_core.systems.launching import can_cast_spell, can_shoot_arrow
from alem_core.systems.placement import placement_mask
from alem_core.systems.trading import give_mask

ALWAYS = (
    Action.NOOP,
    Action.LEFT,
    Action.RIGHT,
    Action.UP,
    Action.DOWN,
    Action.DO,
    Action.SLEEP,
    Action.REST,
    *range(Action.REQUEST_FOOD, Action.REQUEST_SAPPHIRE + 1),
)


def acting(state: State) -> jax.Array:
    """(P,) bool: the agent's action is consumed this step (alive, not asleep, not resting).

    The one statement of that rule: the step turns every other agent's action into NOOP
    (``pipeline.effective_actions``) and the mask offers them only NOOP. Trainers use it as the
    set of agents whose choice mattered.
    """
    players = state.players
    return players.alive & ~players.sleeping & ~players.resting


def action_mask(state: State, params: Params, static: StaticParams) -> jax.Array:
    """(P, A) bool: which actions each agent may take now.

    GIVE slot k is offered exactly when the give would move a unit (``trading.give_mask``).
    SHOOT_ARROW needs a bow and an arrow, CAST_SPELL a learned spell (mana not checked).
    BUILD_X: next to a site and some teammate can pay, or next to an open in-progress site of
    that type started by someone else (docs/rules/coordination.md#construction-sites).
    DRINK_POTION_* / READ_BOOK: that potion / a book in inventory. ENCHANT_*: an enchantment
    table adjacent (not necessarily faced), a ruby or a sapphire, full mana, the item and a
    passable gate (``enchanting.can_enchant``; looser than the rule, never stricter).
    DESCEND / ASCEND: on the ladder item, descend on a cleared floor (``floors.py``).
    """
    p = static.player_count
    allowed = {int(a): True for a in ALWAYS}
    allowed.update(placement_mask(state, params, static))
    allowed.update(spread(RECIPE_ACTION, craft_mask(state, params, static)))
    allowed.update({action: can_level_up(state) for action, _ in LEVEL_UPS})
    allowed[Action.SHOOT_ARROW] = can_shoot_arrow(state.players)
    allowed[Action.CAST_SPELL] = can_cast_spell(state.players)
    allowed.update(spread(DRINK_ACTIONS, can_drink_potion(state)))
    allowed[Action.READ_BOOK] = can_read_book(state)
    allowed.update(spread(ENCHANT_ACTIONS, can_enchant(state, params, static)))
    allowed[Action.DESCEND] = can_descend(state, static)
    allowed[Action.ASCEND] = can_ascend(state, static)
    allowed.update(
        spread(range(Action.BUILD_SHELTER, Action.BUILD_BEACON + 1), build_mask(state, static))
    )
    slots = num_give_slots(p)
    if slots:
        allowed.update(
            spread(range(GIVE_BASE, GIVE_BASE + slots), give_mask(state.players, static))
        )
    first_comm = comm_base(p)
    allowed.update({a: True for a in range(first_comm, first_comm + static.num_comm_channels)})
    mask = column_table(p, static.num_actions, allowed)
    noop_only = jnp.arange(static.num_actions)[None, :] == Action.NOOP
    return jnp.where(acting(state)[:, None], mask, noop_only)
