"""The short-term context's vitals, attributes and inventory lines
(docs/language-agents.md#long-term-and-short-term-context)."""

from __future__ import annotations

import math

from alem_core.constants import ROLE_OF_INDEX, Inv
from alem_core.rules.specialisation import ROLE_PERKS
from alem_pz.text import view

TOOL_TIERS = ("none", "wood", "stone", "iron", "diamond")
ARMOUR_TIERS = ("none", "iron", "diamond")
ENCHANTS = ("none", "fire", "ice")
COUNTED = (
    ("wood", Inv.WOOD), ("stone", Inv.STONE), ("coal", Inv.COAL), ("iron", Inv.IRON),
    ("diamond", Inv.DIAMOND), ("ruby", Inv.RUBY), ("sapphire", Inv.SAPPHIRE),
    ("sapling", Inv.SAPLING), ("arrows", Inv.ARROW), ("torches", Inv.TORCH),
)  # fmt: skip
POTIONS = ("red", "green", "blue", "pink", "cyan", "yellow")


def _whole(value: float) -> int:
    """Health rounded up, so a living agent never reads 0."""
    return math.ceil(value - 1e-6)


def status_lines(me: view.PlayerView) -> list[str]:
    """``Your status:`` (raw values) and ``Attributes:`` (those above 0)."""
    vitals = [
        ("health", _whole(me.health)), ("food", me.food), ("drink", me.drink),
        ("energy", me.energy), ("mana", me.mana), ("xp", me.xp),
    ]  # fmt: skip
    lines = ["Your status:", *[f"- {name}: {value}" for name, value in vitals]]
    attributes = [
        (n, getattr(me, n)) for n in ("dexterity", "strength", "intelligence") if getattr(me, n)
    ]
    if attributes:
        lines += ["", "Attributes:", *[f"- {n}: {v}" for n, v in attributes]]
    return lines


def _gear(me: view.PlayerView) -> list[str]:
    inv = me.inventory
    lines = []
    if inv[Inv.PICKAXE]:
        lines.append(f"- pickaxe: {TOOL_TIERS[min(inv[Inv.PICKAXE], 4)]}")
    if inv[Inv.SWORD]:
        lines.append(f"- sword: {TOOL_TIERS[min(inv[Inv.SWORD], 4)]}")
    if inv[Inv.BOW]:
        lines.append("- bow: yes")
    worn = sorted((a for a in me.armour if a > 0), reverse=True)
    if worn:
        counts = [f"{worn.count(t)}x {ARMOUR_TIERS[t]}" for t in (2, 1) if worn.count(t)]
        lines.append(f"- armour: {', '.join(counts)}")
    return lines


def inventory_lines(me: view.PlayerView) -> list[str]:
    """``Your inventory:`` bullets, each only if non-zero."""
    inv = me.inventory
    lines = [f"- {name}: {inv[col]}" for name, col in COUNTED if inv[col]]
    lines += _gear(me)
    potions = [(c, inv[Inv.POTION_RED + k]) for k, c in enumerate(POTIONS)]
    lines += [f"- potion_{colour}: {n}" for colour, n in potions if n]
    if inv[Inv.BOOK]:
        lines.append(f"- books: {inv[Inv.BOOK]}")
    if me.sword_enchant:
        lines.append(f"- sword enchantment: {ENCHANTS[min(me.sword_enchant, 2)]}")
    if me.bow_enchant:
        lines.append(f"- bow enchantment: {ENCHANTS[min(me.bow_enchant, 2)]}")
    enchanted = sum(1 for e in me.armour_enchant if e)
    if enchanted:
        lines.append(f"- armour enchantments: {enchanted}")
    if me.spell_learned:
        spell = ROLE_PERKS[ROLE_OF_INDEX[me.index % 3]].spell
        lines.append(f"- spells known: {spell}")
    if not lines:
        return ["", "You have nothing in your inventory."]
    return ["", "Your inventory:", *lines]
