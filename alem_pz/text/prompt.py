"""The system prompt, generated from the rule tables and params the step uses
(docs/language-agents.md#the-system-prompt).

Every number in it is read from ``alem_core`` (recipe and structure tables, mining tiers, role
gates and perks, capacities, params such as the handover window and the gate chances in force),
so the prompt cannot drift from the rules; statements without a table behind them carry no
number. Decision 1: the non-specialist chance stated is the one in force. Decision 4: sleep,
rest, forager capacity, shelter and elite mobs are described as the rules implement them.
"""

from __future__ import annotations

from types import SimpleNamespace

import jax.numpy as jnp
import numpy as np

import alem_core
from alem_core.constants import NUM_POTIONS, REQUEST_DURATION, ROLE_OF_INDEX, Action, Block, Inv
from alem_core.rules.boss_tables import BOSS_FLOOR, BOSS_PROGRESS_TO_WIN
from alem_core.rules.item_tables import ENCHANT_MANA, ENCHANT_TABLES, POTION_AMOUNT, POTION_STAT
from alem_core.rules.specialisation import ROLE_GATES, ROLE_PERKS, describe_roles
from alem_core.rules.tables import (
    COW_FOOD,
    DRINK_AMOUNT,
    MINE_ITEM,
    MINE_TIER,
    MONSTERS_TO_CLEAR_FLOOR,
    PLANT_FOOD,
    RECIPE_ACTION,
    RECIPE_AMOUNT,
    RECIPE_COST,
    RECIPE_DIAMOND,
    RECIPE_FURNACE,
    RECIPE_KIND,
    RECIPE_TABLE,
    SLEEP_DAMAGE_MULTIPLIER,
    SWORD_DAMAGE,
)
from alem_core.systems.handovers import STRUCTURE_COST
from alem_core.systems.intrinsics import capacities
from alem_core.systems.launching import FIREBALL_MANA, HEAL_AMOUNT, HEAL_MANA
from alem_pz.text.actions import FIXED_NAMES
from alem_pz.text.disclosure import disclosed
from alem_pz.text.history import HistoryConfig, output_format
from alem_pz.text.inventory import TOOL_TIERS
from alem_pz.text.wording import achievement_title, block_name, role_name

PROMPT_MODES = ("general", "specific", "specific_collaborative")
_STRUCTURES = ((Action.BUILD_SHELTER, "Shelter"), (Action.BUILD_FORGE, "Forge"),
               (Action.BUILD_BEACON, "Beacon"))  # fmt: skip


def _count_list(costs: np.ndarray) -> str:
    return ", ".join(f"{n} {Inv(c).name.lower()}" for c, n in enumerate(costs) if n)


def capacity_formulas(static: alem_core.StaticParams) -> dict[str, list[str]]:
    """``{stat: [formula per agent]}`` such as "8 + strength", read from ``capacities``."""
    p = static.player_count

    def caps(**attrs: int) -> dict[str, np.ndarray]:
        values = {a: jnp.full((p,), attrs.get(a, 0), jnp.int32) for a in _ATTRS}
        return {k: np.asarray(v) for k, v in capacities(SimpleNamespace(**values), static).items()}

    base = caps()
    out: dict[str, list[str]] = {}
    for stat, values in base.items():
        formulas = []
        for i in range(p):
            terms = [str(round(float(values[i])))]
            for attr in _ATTRS:
                slope = round(float(caps(**{attr: 1})[stat][i] - values[i]))
                if slope:
                    terms.append(f"{slope} x {attr}" if slope != 1 else attr)
            formulas.append(" + ".join(terms))
        out[stat] = formulas
    return out


_ATTRS = ("dexterity", "strength", "intelligence")


def _intro(agent: int, static: alem_core.StaticParams, collaborative: bool) -> str:
    role = role_name(ROLE_OF_INDEX[agent % 3])
    team = " while coordinating with your teammates" if collaborative else ""
    return (
        f"You are Agent {agent} ({role}) in a {static.player_count}-agent cooperative survival "
        f"game. Gather resources, craft tools, fight monsters and descend through "
        f"{static.num_levels} level(s){team}. You die when your health reaches 0; the game ends "
        "when every agent is dead. Unlock as many achievements as you can while alive."
    )


def _how_to_play() -> str:
    return "\n".join([
        "How to play:",
        "- One action per turn. Moves are absolute (north = up, y decreases; east = right, x "
        "increases). A move turns you to face that way even when the cell is blocked (solid "
        "blocks, water, lava, creatures, other agents). Your facing persists.",
        "- Do acts on exactly the faced cell: chop trees, mine, attack, drink water, open "
        "chests, revive a downed teammate; hitting a living teammate hurts them.",
        "- Crafting needs the station next to you (diagonals count), no facing needed. Placing "
        "needs the faced cell free.",
        f"- Request X asks every teammate for X for {REQUEST_DURATION} turns; a teammate answers "
        "with 'Give to Agent <you>' (one unit, any distance). Give actions appear only while a "
        "request is open and the giver holds the resource.",
    ])  # fmt: skip


def _survival(static: alem_core.StaticParams) -> str:
    caps = capacity_formulas(static)
    lines = ["Survival:"]
    for stat in ("health", "food", "drink", "energy", "mana"):
        by_formula: dict[str, list[str]] = {}
        for i, formula in enumerate(caps[stat]):
            role = role_name(ROLE_OF_INDEX[i % 3])
            if role not in by_formula.setdefault(formula, []):
                by_formula[formula].append(role)
        if len(by_formula) == 1:
            lines.append(f"- max {stat}: {next(iter(by_formula))}")
        else:
            forms = "; ".join(f"{'/'.join(r)}: {f}" for f, r in by_formula.items())
            lines.append(f"- max {stat}: {forms}")
    lines += [
        "- Food, drink and energy drop slowly over time (more slowly while asleep); at 0 food, "
        "drink or energy you lose health instead of regenerating it.",
        f"- Drinking water gives {DRINK_AMOUNT} drink; eating a cow {COW_FOOD} food, a ripe "
        f"plant {PLANT_FOOD} food.",
        "- Sleep (only when energy is below max) restores energy until it is full; it is not "
        f"forced at energy 0. A sleeping agent takes {SLEEP_DAMAGE_MULTIPLIER:g}x melee damage.",
        "- Rest (only when health is below max) keeps you still while health and mana recover "
        "at the normal rate.",
    ]
    return "\n".join(lines)


def _roles(params: alem_core.Params) -> str:
    lines = ["Roles:", *[f"- {line}" for line in describe_roles(params).split("\n")]]
    gated = {a for g in ROLE_GATES for a in g.actions}
    free = [FIXED_NAMES[a] for a in RECIPE_ACTION if a not in gated]
    lines.append(f"- Anyone can: {', '.join(free)}.")
    lines.append(
        "- Sword damage by tier: "
        + ", ".join(f"{TOOL_TIERS[t]} {SWORD_DAMAGE[t]:g}" for t in range(len(SWORD_DAMAGE)))
        + f"; warriors deal x{ROLE_PERKS[ROLE_OF_INDEX[0]].melee_multiplier:g} melee damage."
    )
    return "\n".join(lines)


def _coordination(params: alem_core.Params) -> str:
    low, high = int(params.handover_window_min), int(params.handover_window_max)
    return "\n".join([
        "Coordination:",
        "- Sync: N agents stand on different cells next to the target, all face it and all "
        "select Do on the same turn (a Build action at a construction site). Approach from "
        "different sides; do not stand between a teammate and the target.",
        f"- A sync task needs all agents instead of 2 with probability "
        f"{float(params.p_max_agents):.2f}; a solo try at a soft (bonus) task fails with "
        f"probability {float(params.soft_solo_fail_prob):.2f}.",
        f"- Handover: one agent begins (pays and acts), a different agent completes it within "
        f"the window shown ({low} to {high} steps); otherwise it resets and the starter is "
        "refunded.",
        "- Elite and large creatures have normal health and damage but need several attackers "
        "striking together (some give a bonus, some require it).",
        f"- Diamond tools and armour need {int(params.diamond_crafting_agents_required)} agents "
        "crafting the same item at one forge on the same turn."
        if bool(params.crafting_coordination_enabled) else "",
        "- Revive a downed teammate by selecting Do on it.",
    ]).rstrip("\n")  # fmt: skip


def _resource_chain() -> str:
    tiers: dict[int, list[str]] = {}
    for block in range(len(MINE_ITEM)):
        if MINE_ITEM[block] >= 0 and Block(block) not in (Block.FIRE_TREE, Block.ICE_SHRUB):
            tiers.setdefault(int(MINE_TIER[block]), []).append(block_name(block))
    parts = [
        f"{' / '.join(names)} ({'no tool' if t == 0 else TOOL_TIERS[t] + ' pickaxe'})"
        for t, names in sorted(tiers.items())
    ]
    return "Resource chain: " + " -> ".join(parts) + "."


def _recipes(params: alem_core.Params) -> str:
    lines = ["Crafting (next to the stations named):"]
    for row, action in enumerate(RECIPE_ACTION):
        where = ["table"] if RECIPE_TABLE[row] else []
        where += ["furnace"] if RECIPE_FURNACE[row] else []
        if RECIPE_DIAMOND[row] and bool(params.crafting_coordination_enabled):
            where.append("forge")
        out = f" -> {RECIPE_AMOUNT[row]}" if RECIPE_KIND[row] == 1 else ""
        lines.append(
            f"- {FIXED_NAMES[action]}: {_count_list(RECIPE_COST[row])}"
            f" [{' + '.join(where) or 'anywhere'}]{out}"
        )
    lines.append("Construction (face the site, use the Build action):")
    for k, (action, name) in enumerate(_STRUCTURES):
        lines.append(f"- {FIXED_NAMES[action]}: {_count_list(STRUCTURE_COST[k])} ({name})")
    lines.append(
        "  A shelter speeds health regeneration and energy recovery while asleep for agents next "
        "to it; a forge enables diamond crafting; a beacon lights the area around it."
    )
    return "\n".join(lines)


def _progression() -> str:
    return (
        f"Progression: a level is cleared after {MONSTERS_TO_CLEAR_FLOOR} monster kills there; "
        "then stand on the ladder down and Descend (the whole team moves). Reaching a new level "
        "gives xp to spend on Level Up actions."
    )


def _late_game(floor: int) -> str:
    spells = (
        f"Spells: fireball costs {FIREBALL_MANA} mana (warrior, miner); heal costs {HEAL_MANA} "
        f"mana and restores {HEAL_AMOUNT:g} health (forager)."
    )
    effects = ", ".join(
        f"{amount:+d} {stat}" for stat, amount in zip(POTION_STAT, POTION_AMOUNT, strict=True)
    )
    lines = [f"Chests hold role-biased loot; potions come in {NUM_POTIONS} colours whose effects "
             f"({effects}) are shuffled every episode."] if floor >= 1 else []  # fmt: skip
    lines += [spells, _enchanting()] if floor >= 3 else []
    lines += [_boss()] if floor >= BOSS_FLOOR - 1 else []
    return "<late_game>\n" + "\n".join(lines) + "\n</late_game>" if lines else ""


def _enchanting() -> str:
    tables = "; ".join(
        f"the {Block(table).name.rsplit('_', 1)[1].lower()} table uses 1 {Inv(gem).name.lower()}"
        for table, _, gem in ENCHANT_TABLES
    )
    return (
        f"Enchanting: face an enchantment table with {ENCHANT_MANA} mana ({tables}); "
        "swords and bows are the warrior's job, armour anyone's."
    )


def _boss() -> str:
    return (
        f"The last level holds the Necromancer: it can be hit only when no wave monster is left "
        f"and its wave timer has run out; {BOSS_PROGRESS_TO_WIN} hits defeat it and win the game."
    )


def _achievements(floor: int, params: alem_core.Params, progressive: bool) -> str:
    ids = disclosed(floor, bool(params.coordination_enabled), progressive)
    return "<achievements>\n" + "\n".join(achievement_title(a) for a in ids) + "\n</achievements>"


def _all_actions() -> str:
    return "<all_actions>\n" + "\n".join(FIXED_NAMES) + "\nGive to Agent <k>\n</all_actions>"


def system_prompt(
    agent: int,
    params: alem_core.Params,
    static: alem_core.StaticParams,
    floor: int = 0,
    mode: str = "specific_collaborative",
    history: HistoryConfig | None = None,
    full_action_list: bool = False,
    progressive: bool = True,
) -> str:
    """Agent ``agent``'s system prompt for a team that has reached ``floor``.

    Raises:
        ValueError: an unknown ``mode`` or an agent index outside the team.
    """
    if mode not in PROMPT_MODES:
        raise ValueError(f"prompt mode must be one of {PROMPT_MODES}, got {mode!r}")
    if not 0 <= agent < static.player_count:
        raise ValueError(f"agent {agent!r} is not in a team of {static.player_count}")
    collaborative = mode == "specific_collaborative"
    parts = [_intro(agent, static, collaborative)]
    if mode != "general":
        rules = [_how_to_play(), _survival(static), _roles(params)]
        if collaborative and bool(params.coordination_enabled):
            rules.append(_coordination(params))
        rules += [_resource_chain(), _recipes(params), _progression()]
        parts.append("<game_rules>\n" + "\n\n".join(rules) + "\n</game_rules>")
    if full_action_list or mode == "general":
        parts.append(_all_actions())
    parts.append(_achievements(floor, params, progressive))
    late = _late_game(floor) if mode != "general" else ""
    parts += [late] if late else []
    parts.append(output_format(history or HistoryConfig()))
    return "\n\n".join(parts)
