"""The text observation of one agent (docs/language-agents.md#text-observation): long-term and
short-term context.

Rendered from a host snapshot (``alem_pz.text.view``) in the core's terms: the 9 x 11 view,
light masking at the symbolic observation's threshold, the legal-action mask for the action
list. It shows only what the symbolic observation also carries (no mob health, projectile
direction, handover initiator or request duration).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import alem_core
from alem_core.constants import NUM_ACHIEVEMENTS, ROLE_OF_INDEX, Block, Item, MobClass, Request
from alem_core.observation.map_view import LIGHT_THRESHOLD, VIEW_CENTRE
from alem_core.rules.tables import MONSTERS_TO_CLEAR_FLOOR
from alem_pz.text import view
from alem_pz.text.actions import action_text
from alem_pz.text.ascii_map import ascii_map
from alem_pz.text.cues import cue_lines
from alem_pz.text.disclosure import disclosed
from alem_pz.text.inventory import inventory_lines, status_lines
from alem_pz.text.wording import (
    FACING_DELTA,
    FACING_NAMES,
    ITEM_NAMES,
    LocationStyle,
    achievement_title,
    block_name,
    compass,
    coords,
    floor_location,
    located,
    mob_name,
    role_name,
)


@dataclass(frozen=True)
class TextConfig:
    """Options of the text observation (defaults: the evaluation configuration,
    docs/language-agents.md#the-harness)."""

    style: LocationStyle = field(default_factory=LocationStyle)
    ascii_map: bool = False
    frames: bool = False
    """Also render each agent's ASCII view as a "frame" for traces and the viewer (not part of
    the observation)."""
    collaborative: bool = True
    """``specific_collaborative`` prompt mode: coordination cues and elite tags are shown."""
    show_affordances: bool = True
    unique_items: bool = True
    skipped: tuple[int, ...] = (Block.GRASS, Block.SAND, Block.PATH)
    edge_only: tuple[int, ...] = (Block.WATER,)


@dataclass(frozen=True)
class Feedback:
    """What the last step did for one agent (absent at reset)."""

    action: str
    had_effect: bool
    reward: float
    new_achievements: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


def window_cells(s, me: view.PlayerView) -> list[tuple[int, int, int, int]]:
    """(dr, dc, row, col) of the lit, in-map cells of the 9 x 11 window, row-major."""
    light = view.current_floor_light(s)
    height, width = light.shape
    cells = []
    for dr in range(-VIEW_CENTRE[0], VIEW_CENTRE[0] + 1):
        for dc in range(-VIEW_CENTRE[1], VIEW_CENTRE[1] + 1):
            row, col = me.row + dr, me.col + dc
            if 0 <= row < height and 0 <= col < width and light[row, col] > LIGHT_THRESHOLD:
                cells.append((dr, dc, row, col))
    return cells


def _is_edge(blocks: np.ndarray, row: int, col: int) -> bool:
    value, (height, width) = blocks[row, col], blocks.shape
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, col + dc
        if 0 <= r < height and 0 <= c < width and blocks[r, c] != value:
            return True
    return False


def you_see(s, me: view.PlayerView, cells, config: TextConfig) -> list[str]:
    """The "You see:" bullets: blocks (filtered) and items, nearest instance per name."""
    blocks, items = view.current_floor_blocks(s), view.current_floor_items(s)
    found: dict[str, tuple[int, int, int, int, int]] = {}
    order: list[str] = []
    for dr, dc, row, col in cells:
        names = []
        block = int(blocks[row, col])
        shown = (dr, dc) != (0, 0) and block not in config.skipped
        if shown and (block not in config.edge_only or _is_edge(blocks, row, col)):
            names.append(block_name(block))
        if items[row, col] != Item.NONE:
            names.append(ITEM_NAMES.get(Item(int(items[row, col])), "item"))
        for name in names:
            key = name if config.unique_items else f"{name}@{row},{col}"
            distance = abs(dr) + abs(dc)
            if key not in found:
                order.append(key)
            if key not in found or distance < found[key][0]:
                found[key] = (distance, dr, dc, row, col)
    lines = []
    for key in order:
        _, dr, dc, row, col = found[key]
        where = located(dr, dc, row, col, config.style, me.facing)
        lines.append(f"- {key.split('@')[0]} {where}")
    return ["You see:", *lines] if lines else ["You see nothing away from you."]


def do_target(s, me: view.PlayerView, lit: set[tuple[int, int]], with_coords: bool) -> str:
    """What Do would hit: the faced block, or the teammate / mob standing there."""
    if me.facing not in FACING_DELTA:
        return "nothing"
    dr, dc = FACING_DELTA[me.facing]
    row, col = me.row + dr, me.col + dc
    blocks = view.current_floor_blocks(s)
    height, width = blocks.shape
    if not (0 <= row < height and 0 <= col < width):
        return "out of bounds"
    if (row, col) not in lit:
        return "darkness"
    ground = block_name(int(blocks[row, col]))
    thing = ground
    for k in range(view.player_count(s)):
        other = view.player(s, k)
        if k != me.index and (other.row, other.col) == (row, col):
            thing = f"Agent {k} (on {ground})"
    for cls in (MobClass.MELEE, MobClass.RANGED, MobClass.PASSIVE):
        for e in view.entities(s, cls):
            if (e.row, e.col) == (row, col):
                thing = f"{mob_name(cls, e.kind)} (on {ground})"
    return f"{thing} {coords(row, col)}" if with_coords else thing


def facing_lines(s, me: view.PlayerView, lit, config: TextConfig) -> list[str]:
    """``Facing: east.`` and `` Do target: ...``."""
    if me.facing not in FACING_NAMES:
        return ["Facing: none."]
    target = do_target(s, me, lit, config.style.exact_coordinates)
    return [f"Facing: {FACING_NAMES[me.facing]}.", f" Do target: {target}."]


def _mob_tag(cls: MobClass, e: view.Entity, config: TextConfig) -> str:
    together = "must be fought together" if e.hard else "bonus if fought together"
    if cls == MobClass.RANGED:
        return f" [ranged, elite — {together}]" if e.elite and config.collaborative else " [ranged]"
    if not e.elite or not config.collaborative:
        return ""
    if cls == MobClass.PASSIVE:
        return f" [large — hunt alongside teammates ({'must' if e.hard else 'for bonus'})]"
    return f" [elite — {together}]"


def creature_lines(s, me: view.PlayerView, lit, config: TextConfig) -> list[str]:
    """``Nearby creatures:`` and the projectile sections (lit window cells only)."""
    offsets = {(row, col): (dr, dc) for (row, col), (dr, dc) in lit.items()}
    sections = []
    mobs = []
    for cls in (MobClass.MELEE, MobClass.RANGED, MobClass.PASSIVE):
        for e in view.entities(s, cls):
            if (e.row, e.col) in offsets:
                dr, dc = offsets[(e.row, e.col)]
                where = located(dr, dc, e.row, e.col, config.style, me.facing)
                mobs.append(f"- {mob_name(cls, e.kind)} {where}{_mob_tag(cls, e, config)}")
    if mobs:
        sections += ["Nearby creatures:", *mobs]
    for cls, header in (
        (MobClass.MOB_PROJECTILE, "Incoming projectiles:"),
        (MobClass.PLAYER_PROJECTILE, "Your projectiles:"),
    ):
        shots = []
        for e in view.entities(s, cls):
            if (e.row, e.col) in offsets:
                dr, dc = offsets[(e.row, e.col)]
                where = located(dr, dc, e.row, e.col, config.style, me.facing)
                mine = (
                    " (yours)" if cls == MobClass.PLAYER_PROJECTILE and e.owner == me.index else ""
                )
                shots.append(f"- {mob_name(cls, e.kind)} {where}{mine}")
        if shots:
            sections += [header, *shots]
    return sections


def teammate_lines(s, me: view.PlayerView, config: TextConfig) -> list[str]:
    """The ``Teammates:`` section."""
    lines = ["Teammates:"]
    for k in range(view.player_count(s)):
        if k == me.index:
            continue
        other = view.player(s, k)
        if not other.alive:
            lines.append(f"Agent {k} is dead.")
            continue
        dr, dc = other.row - me.row, other.col - me.col
        label = f"Agent {k} ({role_name(ROLE_OF_INDEX[k % 3])})"
        if abs(dr) <= VIEW_CENTRE[0] and abs(dc) <= VIEW_CENTRE[1]:
            where = located(dr, dc, other.row, other.col, config.style, me.facing)
        else:
            where = f"off-screen {compass(dr, dc)}"
            if config.style.exact_coordinates:
                where += f" {coords(other.row, other.col)}"
        lines.append(f"{label}: {where}, health={_number(other.health)}")
        if other.request >= 0:
            lines.append(f"  -> Requesting {Request(other.request).name.lower()}")
    return lines if len(lines) > 1 else []


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def feedback_lines(feedback: Feedback | None) -> list[str]:
    """Step feedback (absent at reset), with any evaluator notes on one line in front."""
    if feedback is None:
        return []
    lines = [" ".join(feedback.notes), ""] if feedback.notes else []
    suffix = "" if feedback.had_effect else " (had no effect — not currently available)"
    lines += [f"Last action: {feedback.action}{suffix}", f"Reward: {feedback.reward:+.3f}"]
    if feedback.new_achievements:
        names = ", ".join(achievement_title(a) for a in feedback.new_achievements)
        lines.append(f"Achievements unlocked: {names}")
    return lines


@dataclass(frozen=True)
class Context:
    """Everything one agent's text needs besides the snapshot."""

    agent: int
    params: alem_core.Params
    static: alem_core.StaticParams
    feedback: Feedback | None = None
    max_floor: int = 0
    config: TextConfig = field(default_factory=TextConfig)


def condition(me: view.PlayerView) -> str | None:
    """The inactive condition line, or None for an active agent."""
    if not me.alive:
        return "Condition: dead — cannot act; can only use communication"
    if me.sleeping:
        cap = 7 + 2 * me.dexterity
        return f"Condition: sleeping — energy {me.energy}/{cap}; cannot act until energy is full"
    if me.resting:
        return "Condition: resting — recovering health and mana"
    return None


def _step_line(s, ctx: Context) -> str:
    t, horizon = view.timestep(s), int(ctx.params.max_timesteps)
    return f"Step: {t}/{horizon} ({horizon - t} remaining, ends early if all agents die)"


def status_block(s, me: view.PlayerView, ctx: Context) -> list[str]:
    """Step, position, condition, role, location and achievement count."""
    lines = [_step_line(s, ctx)]
    if ctx.config.style.exact_coordinates:
        lines.append(f"Position: {coords(me.row, me.col)}")
    cond = condition(me)
    if cond:
        lines.append(cond)
    if bool(ctx.params.soft_specialization) or ctx.static.player_count > 1:
        lines.append(f"Role: {role_name(ROLE_OF_INDEX[me.index % 3])}")
    lines.append(f"Location: {floor_location(view.current_floor(s))}")
    shown = len(disclosed(ctx.max_floor, bool(ctx.params.coordination_enabled)))
    done = int(me.achievements.sum())
    lines.append(
        f"Achievements: {done}/{NUM_ACHIEVEMENTS} ({NUM_ACHIEVEMENTS - shown} unlock later)"
    )
    return lines


def level_info(s, ctx: Context) -> list[str]:
    """The ``Level info:`` block."""
    light = view.daylight(s)
    word = "bright" if light > 0.7 else "dim" if light > 0.3 else "dark"
    lines = ["Level info:", f"- Light: {word} ({light:.2f})"]
    if view.floor_kills(s) >= MONSTERS_TO_CLEAR_FLOOR:
        lines.append("- Level: cleared (find the ladder down and Descend)")
    else:
        lines.append("- Level: not yet cleared (kill more monsters to unlock the ladder down)")
    if view.boss_vulnerable(s, ctx.static):
        lines.append("- Boss: vulnerable — attack now!")
    return lines


def long_term(s, ctx: Context) -> str:
    """The long-term context (docs/language-agents.md#long-term-and-short-term-context, or
    docs/language-agents.md#long-term-and-short-term-context's compressed form for an inactive
    agent)."""
    me = view.player(s, ctx.agent)
    sections = [feedback_lines(ctx.feedback), status_block(s, me, ctx)]
    if condition(me) is None:
        cells = window_cells(s, me)
        lit = {(row, col): (dr, dc) for dr, dc, row, col in cells}
        sections.append(level_info(s, ctx))
        if ctx.config.ascii_map:
            target = do_target(s, me, lit, with_coords=False)
            sections.append([ascii_map(s, me, target)])
        else:
            sections.append(
                you_see(s, me, cells, ctx.config) + facing_lines(s, me, lit, ctx.config)
            )
        sections.append(creature_lines(s, me, lit, ctx.config))
        if ctx.config.collaborative and bool(ctx.params.coordination_enabled):
            cues = cue_lines(s, me, cells, ctx.config.style)
            sections.append(["Coordination:", *cues] if cues else [])
    sections.append(teammate_lines(s, me, ctx.config))
    return "\n\n".join("\n".join(part) for part in sections if part)


def short_term(s, ctx: Context, mask: np.ndarray | None) -> str:
    """The short-term context (docs/language-agents.md#long-term-and-short-term-context): vitals,
    attributes, inventory, available actions."""
    me = view.player(s, ctx.agent)
    parts = [status_lines(me), inventory_lines(me)]
    if ctx.config.show_affordances and mask is not None:
        names = [
            action_text(a, ctx.agent, ctx.static.player_count)
            for a in np.flatnonzero(
                np.asarray(mask)[: ctx.static.num_actions - ctx.static.num_comm_channels]
            )
        ]
        parts.append(["", "Available actions:", *[f" - {n}" for n in names]])
    return "\n".join("\n".join(p) for p in parts if p)


def frame(s, ctx: Context) -> str:
    """The agent's 9 x 11 view as an ASCII map (for the episode viewer), "" when inactive."""
    me = view.player(s, ctx.agent)
    if condition(me) is not None:
        return ""
    lit = {(row, col): (dr, dc) for dr, dc, row, col in window_cells(s, me)}
    return ascii_map(s, me, do_target(s, me, lit, with_coords=False))


def is_inactive(s, agent: int) -> bool:
    """Dead, sleeping or resting: the compressed observation applies."""
    return condition(view.player(s, agent)) is not None
