"""The keyboard table of ``alem_pz.play.keyboard`` (docs/playing.md#keyboard-play, plus Give slots
and comm).

Pure data: keys are pygame key *names* (``pygame.key.key_code(name)`` turns them into codes),
so the table can be read, printed and tested without pygame. Modifiers extend the published
table, which has keys for Give slot 0 only and none for comm channels:

* Give slot k (k = 0-9): Ctrl + the (k+1)-th digit key (1 ... 9, 0); slot 0 also Backspace;
  slots 10-19: Ctrl + Shift + digit.
* Comm channel j (j = 0-9): Alt + the (j+1)-th digit key; channels 10-19: Alt + Shift + digit,
  20-29: Alt + Ctrl + digit.
"""

from __future__ import annotations

from alem_core.constants import GIVE_BASE, Action, action_label, comm_base, num_give_slots

BASE_KEYS: dict[str, Action] = {
    "w": Action.UP, "a": Action.LEFT, "s": Action.DOWN, "d": Action.RIGHT,
    "space": Action.DO, "tab": Action.SLEEP, "e": Action.REST, "q": Action.NOOP,
    ".": Action.DESCEND, ",": Action.ASCEND,
    "r": Action.PLACE_STONE, "t": Action.PLACE_TABLE, "f": Action.PLACE_FURNACE,
    "p": Action.PLACE_PLANT, "j": Action.PLACE_TORCH,
    "1": Action.MAKE_WOOD_PICKAXE, "2": Action.MAKE_STONE_PICKAXE,
    "3": Action.MAKE_IRON_PICKAXE, "4": Action.MAKE_DIAMOND_PICKAXE,
    "5": Action.MAKE_WOOD_SWORD, "6": Action.MAKE_STONE_SWORD,
    "7": Action.MAKE_IRON_SWORD, "8": Action.MAKE_DIAMOND_SWORD,
    "y": Action.MAKE_IRON_ARMOUR, "u": Action.MAKE_DIAMOND_ARMOUR,
    "o": Action.MAKE_ARROW, "[": Action.MAKE_TORCH, "i": Action.SHOOT_ARROW,
    "g": Action.CAST_SPELL,
    "z": Action.DRINK_POTION_RED, "x": Action.DRINK_POTION_GREEN, "c": Action.DRINK_POTION_BLUE,
    "v": Action.DRINK_POTION_PINK, "b": Action.DRINK_POTION_CYAN, "n": Action.DRINK_POTION_YELLOW,
    "m": Action.READ_BOOK, "k": Action.ENCHANT_SWORD, "l": Action.ENCHANT_ARMOUR,
    ";": Action.ENCHANT_BOW,
    "]": Action.LEVEL_UP_DEXTERITY, "-": Action.LEVEL_UP_STRENGTH,
    "=": Action.LEVEL_UP_INTELLIGENCE,
    "f1": Action.REQUEST_FOOD, "f2": Action.REQUEST_DRINK, "f3": Action.REQUEST_WOOD,
    "f4": Action.REQUEST_STONE, "f5": Action.REQUEST_IRON, "f6": Action.REQUEST_COAL,
    "f7": Action.REQUEST_DIAMOND, "f8": Action.REQUEST_RUBY, "f9": Action.REQUEST_SAPPHIRE,
    "9": Action.BUILD_SHELTER, "0": Action.BUILD_FORGE, "`": Action.BUILD_BEACON,
}  # fmt: skip
"""Unmodified keys -> fixed actions (the published table)."""

DIGITS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0")
GIVE_MODS = (("ctrl",), ("ctrl", "shift"))
COMM_MODS = (("alt",), ("alt", "shift"), ("alt", "ctrl"))

Binding = tuple[str, frozenset[str]]
"""(key name, modifiers among "ctrl", "shift", "alt")."""


def key_table(player_count: int, num_comm_channels: int) -> dict[Binding, int]:
    """Every binding -> action id for a team of ``player_count`` with ``num_comm_channels``.

    Give slots and comm channels beyond what the modifier rows reach (20 slots, 30 channels)
    have no key.
    """
    table: dict[Binding, int] = {(k, frozenset()): int(a) for k, a in BASE_KEYS.items()}
    slots = num_give_slots(player_count)
    if slots:
        table[("backspace", frozenset())] = GIVE_BASE
    for k in range(min(slots, 10 * len(GIVE_MODS))):
        row, digit = divmod(k, 10)
        table[(DIGITS[digit], frozenset(GIVE_MODS[row]))] = GIVE_BASE + k
    for j in range(min(num_comm_channels, 10 * len(COMM_MODS))):
        row, digit = divmod(j, 10)
        table[(DIGITS[digit], frozenset(COMM_MODS[row]))] = comm_base(player_count) + j
    return table


def describe(player_count: int, num_comm_channels: int) -> list[str]:
    """Human-readable lines "key: ACTION" for the help screen and the console."""
    lines = []
    for (key, mods), action in key_table(player_count, num_comm_channels).items():
        name = "+".join([*sorted(mods), key])
        lines.append(f"{name}: {action_label(action, player_count)}")
    return lines
