"""Soft specialisation (docs/rules/roles.md): the one table of role gates and role perks.

Every consumer reads the gates from here: the systems that resolve gated actions (Do phase,
crafting, placing; enchanting and chest loot when the deeper floors arrive), the action mask and
the text shown to language-model agents (``describe_roles``). Agent i has role
``ROLE_OF_INDEX[i % 3]``: warrior, forager, miner.

Gate modes: hard (``soft_specialization`` False): only the role holder succeeds. Soft: each gated
subsystem draws one uniform per agent per step; the holder passes if u < ``specialist_efficiency``,
anyone else if u < ``non_specialist_efficiency`` (1 - alpha in the presets). A failed gate does
nothing and costs nothing.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import GIVE_BASE, ROLE_OF_INDEX, Action, Role
from alem_core.params import Params, StaticParams

NO_ROLE = -1


class Subsystem(IntEnum):
    """Each subsystem draws its own gate uniforms once per agent per step."""

    DO_PHASE = 0
    CRAFTING = 1
    PLACING = 2
    ENCHANTING = 3
    CHEST_LOOT = 4


class Gate(NamedTuple):
    """One gated job: who holds it, which subsystem checks it, the actions it covers."""

    job: str
    role: Role
    subsystem: Subsystem
    actions: tuple[int, ...]
    text: str


ROLE_GATES: tuple[Gate, ...] = (
    Gate("drink", Role.FORAGER, Subsystem.DO_PHASE, (), "drink from water or a fountain"),
    Gate("sapling", Role.FORAGER, Subsystem.DO_PHASE, (), "collect saplings from grass"),
    Gate("eat_passive", Role.FORAGER, Subsystem.DO_PHASE, (), "eat the passive mobs they kill"),
    Gate(
        "pickaxe",
        Role.MINER,
        Subsystem.CRAFTING,
        (
            Action.MAKE_WOOD_PICKAXE,
            Action.MAKE_STONE_PICKAXE,
            Action.MAKE_IRON_PICKAXE,
            Action.MAKE_DIAMOND_PICKAXE,
        ),
        "craft pickaxes",
    ),
    Gate("torch", Role.MINER, Subsystem.CRAFTING, (Action.MAKE_TORCH,), "craft torches"),
    Gate("place_stone", Role.MINER, Subsystem.PLACING, (Action.PLACE_STONE,), "place stone"),
    Gate(
        "sword",
        Role.WARRIOR,
        Subsystem.CRAFTING,
        (Action.MAKE_STONE_SWORD, Action.MAKE_IRON_SWORD, Action.MAKE_DIAMOND_SWORD),
        "craft stone, iron and diamond swords",
    ),
    Gate("arrow", Role.WARRIOR, Subsystem.CRAFTING, (Action.MAKE_ARROW,), "craft arrows"),
    Gate(
        "enchant_weapon",
        Role.WARRIOR,
        Subsystem.ENCHANTING,
        (Action.ENCHANT_SWORD, Action.ENCHANT_BOW),
        "enchant swords and bows",
    ),
    Gate("chest_weapons", Role.WARRIOR, Subsystem.CHEST_LOOT, (), "loot arrows and bows"),
    Gate("chest_tools", Role.MINER, Subsystem.CHEST_LOOT, (), "loot wood, torches, ores, pickaxes"),
)

JOB_ROLE: dict[str, Role] = {gate.job: gate.role for gate in ROLE_GATES}
"""Role needed for each gated job, by name (Do-phase targets have no action of their own)."""

ACTION_ROLE = np.full(GIVE_BASE, NO_ROLE, np.int32)
"""(54,) role each fixed action needs; -1 ungated."""
for _gate in ROLE_GATES:
    ACTION_ROLE[list(_gate.actions)] = _gate.role


class Perks(NamedTuple):
    """Passive perks of a role (always on, no draw)."""

    melee_multiplier: float
    """Physical melee damage factor, friendly fire included."""
    food_drink_capacity: int
    """Factor on max food and max drink."""
    spell: str
    text: str


ROLE_PERKS: dict[Role, Perks] = {
    Role.WARRIOR: Perks(2.0, 1, "fireball", "melee damage x2"),
    Role.FORAGER: Perks(1.0, 3, "heal", "max food and drink x3"),
    Role.MINER: Perks(1.0, 1, "fireball", "no passive perk"),
}

MELEE_MULTIPLIER = np.array([ROLE_PERKS[r].melee_multiplier for r in Role], np.float32)
CAPACITY_MULTIPLIER = np.array([ROLE_PERKS[r].food_drink_capacity for r in Role], np.int32)


def roles(static: StaticParams) -> jax.Array:
    """(P,) int32 role of each agent: warrior, forager, miner for i mod 3 = 0, 1, 2."""
    return jnp.array([ROLE_OF_INDEX[i % 3] for i in range(static.player_count)], jnp.int32)


def role_perk(table: np.ndarray, static: StaticParams) -> jax.Array:
    """(P,) value of a per-role perk table (``MELEE_MULTIPLIER``, ``CAPACITY_MULTIPLIER``)."""
    return jnp.asarray(table)[roles(static)]


def passes_gate_with(
    required_role: jax.Array | int, u: jax.Array, params: Params, static: StaticParams
) -> jax.Array:
    """(P,) bool: each agent passes the gate of a job needing ``required_role`` (-1: ungated).

    ``required_role`` is a scalar or (P,) role id; ``u`` (P,) the subsystem's gate block of the
    step's draws (``alem_core/draws.py``).
    """
    holder = roles(static) == required_role
    soft_pass = jnp.where(
        holder, u < params.specialist_efficiency, u < params.non_specialist_efficiency
    )
    gated_pass = jnp.where(params.soft_specialization, soft_pass, holder)
    return (jnp.asarray(required_role) < 0) | gated_pass


def may_pass_gate(required_role: jax.Array | int, params: Params, static: StaticParams):
    """(P,) or (P, R) bool for the action mask: the gate can be passed (holder, or soft mode).

    A (1, R) table of roles broadcasts against the agents along the first axis.
    """
    required_role = jnp.asarray(required_role)
    agent_roles = roles(static)
    if required_role.ndim >= 2:
        agent_roles = agent_roles.reshape((-1,) + (1,) * (required_role.ndim - 1))
    return (required_role < 0) | (agent_roles == required_role) | params.soft_specialization


def describe_roles(params: Params | None = None) -> str:
    """Plain-text summary of roles, gates and perks for prompts and help screens.

    With ``params`` the success chances in force are stated (decision 1: the non-specialist
    chance is the parameter, 1 - alpha in the presets).
    """
    lines = []
    for role in Role:
        jobs = ", ".join(g.text for g in ROLE_GATES if g.role == role)
        perks = ROLE_PERKS[role]
        lines.append(
            f"{role.name.lower()}: only this role can reliably {jobs}; "
            f"{perks.text}; spell: {perks.spell}."
        )
    if params is not None:
        if bool(params.soft_specialization):
            lines.append(
                f"Soft gates: the role holder succeeds with probability "
                f"{float(params.specialist_efficiency):.2f}, other roles with probability "
                f"{float(params.non_specialist_efficiency):.2f}; a failed try costs nothing."
            )
        else:
            lines.append("Hard gates: only the role holder can do a gated job.")
    return "\n".join(lines)
