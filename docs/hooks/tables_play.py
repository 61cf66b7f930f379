"""Generated tables of play: actions, keys, achievements, roles, difficulty, the step pipeline.

Like ``tables_world``, every function reads the code's own tables at call time.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
from tables_world import md_table

from alem_core import constants, params, pipeline, worldgen
from alem_core.constants import action_label
from alem_core.observation import map_view, vector
from alem_core.rules import specialisation as spec
from alem_core.rules import tables
from alem_core.scoring import score_tables
from alem_pz.envs.parallel import AlemParallelEnv
from alem_pz.play import keys

PRESETS = ("none", "easy", "medium", "hard")


def _role(role: int) -> str:
    return constants.Role(role).name.lower() if role >= 0 else ""


def actions() -> str:
    """The fixed actions 0-53 with their keyboard key and role gate, then Give and comm."""
    key_of = {int(a): k for k, a in keys.BASE_KEYS.items()}
    rows = [
        (int(a), f"`{a.name}`", f"`{key_of[int(a)]}`" if int(a) in key_of else "", _role(r))
        for a, r in zip(constants.Action, spec.ACTION_ROLE, strict=True)
    ]
    give = constants.GIVE_BASE
    rows.append((f"{give} … {give}+P−2", "`GIVE` slot k", "Ctrl+digit", ""))
    rows.append((f"{give}+P−1 …", "`COMM` channel j (with `comm_channels`)", "Alt+digit", ""))
    return md_table(("id", "action", "key", "role gate"), rows)


def _category(ach: int) -> str:
    for name, mask in score_tables.COORD_CATEGORIES.items():
        if name != "hard" and mask[ach]:
            return f"coordination: {name.replace('_', '-')}"
    return "normal"


def _aligned(ach: int) -> str:
    return ", ".join(r.name.lower() for r, m in score_tables.ROLE_ALIGNED.items() if m[ach])


def achievements() -> str:
    """All achievements: reward for the first unlock, category, role alignment."""
    rows = [
        (int(a), f"`{a.name}`", int(tables.ACHIEVEMENT_WEIGHT[a]), _category(a), _aligned(a))
        for a in constants.Achievement
    ]
    return md_table(("id", "achievement", "reward", "category", "role-aligned"), rows)


def achievement_tiers() -> str:
    """How many achievements pay 1, 3, 5 and 8, and the most one player can earn."""
    weight, coord = tables.ACHIEVEMENT_WEIGHT, tables.ACHIEVEMENT_IS_COORD
    rows = []
    for w in sorted({float(v) for v in weight}):
        tier = weight == w
        rows.append((f"{w:g}", int((tier & ~coord).sum()), int((tier & coord).sum())))
    rows.append(
        (
            "max reward per player",
            f"{float(weight[~coord].sum()):g}",
            f"{float(weight[coord].sum()):g} (total {float(weight.sum()):g})",
        )
    )
    return md_table(("reward", "normal", "coordination"), rows)


def score_categories() -> str:
    """The coordination sub-categories the score reports, with their members."""
    rows = []
    for name, mask in score_tables.COORD_CATEGORIES.items():
        members = [constants.Achievement(i).name for i in np.flatnonzero(mask)]
        rows.append((name.replace("_", "-"), len(members), ", ".join(members)))
    return md_table(("category", "count", "achievements"), rows)


def role_gates() -> str:
    """Every gated job: the role that holds it, the subsystem that checks it, its actions."""
    rows = [
        (
            gate.job,
            gate.role.name.lower(),
            gate.subsystem.name.lower(),
            ", ".join(constants.Action(a).name for a in gate.actions),
            gate.text,
        )
        for gate in spec.ROLE_GATES
    ]
    return md_table(("job", "role", "checked by", "actions", "what it covers"), rows)


def role_perks() -> str:
    """The passive perks of each role and which agents hold it."""
    rows = []
    for role, perks in spec.ROLE_PERKS.items():
        index = constants.ROLE_OF_INDEX.index(role)
        rows.append(
            (
                role.name.lower(),
                f"i mod 3 = {index}",
                perks.melee_multiplier,
                perks.food_drink_capacity,
                perks.spell,
            )
        )
    headers = ("role", "agents", "melee damage ×", "max food and drink ×", "spell")
    return md_table(headers, rows)


def presets() -> str:
    """Every ``Params`` field: its raw default and its value in each difficulty preset."""
    built = {name: params.make_params(name) for name in PRESETS}
    rows = []
    for field in dataclasses.fields(params.Params):
        values = [getattr(built[name], field.name) for name in PRESETS]
        rows.append((f"`{field.name}`", field.default, *values))
    return md_table(("parameter", "default", *PRESETS), rows)


def alpha_derived() -> str:
    """The α-derived execution parameters at the three named presets and at α = 0.5."""
    alphas = {**{n: params.PRESET_ALPHA[n] for n in PRESETS[1:]}, "α = 0.5": 0.5}
    derived = {name: params.alpha_derived(np.float64(a)) for name, a in alphas.items()}
    names = list(next(iter(derived.values())))
    rows = []
    for name in names:
        only = " (with `scale_base_difficulty`)" if name in params.SCALED_BY_ALPHA else ""
        rows.append((f"`{name}`{only}", *(f"{float(d[name]):g}" for d in derived.values())))
    return md_table(("derived value", *alphas), rows)


def pipeline_stages() -> str:
    """The stages of one step in order, with the system that runs each."""
    rows = []
    for number, stage in enumerate(pipeline.PIPELINE, start=1):
        doc = inspect.getdoc(stage.fn) or ""
        first = doc.split("\n\n")[0].replace("\n", " ")
        rows.append((number, f"`{stage.name}`", f"`{stage.fn.__module__}`", first))
    return md_table(("#", "stage", "module", "what it does"), rows)


def draw_blocks() -> str:
    """The blocks of a step's one random draw, their shapes for the default world, who reads."""
    static = params.StaticParams()
    rows = [
        (f"`{name}`", " x ".join(map(str, block.full_shape(static))), block.reader)
        for name, block in pipeline.DRAW_BLOCKS.items()
    ]
    return md_table(("block", "shape (default world)", "read by"), rows)


def reset_draw_blocks() -> str:
    """The blocks of the reset's one random draw, their shapes for the default world, who reads."""
    static = params.StaticParams()
    rows = [
        (f"`{name}`", " x ".join(map(str, block.full_shape(static))) or "1", block.reader)
        for name, block in worldgen.RESET_DRAW_BLOCKS.items()
    ]
    return md_table(("block", "shape (default world)", "read by"), rows)


def key_table() -> str:
    """The keyboard bindings of ``alem-play`` for 3 players and 4 comm channels."""
    rows = []
    for (key, mods), action in keys.key_table(3, 4).items():
        name = "+".join([*(m.capitalize() for m in sorted(mods)), key])
        rows.append((f"`{name}`", f"`{action_label(action, 3)}`"))
    return md_table(("key", "action (3 players, 4 channels)"), rows)


def static_params() -> str:
    """Every ``StaticParams`` field (shapes: a new value compiles new code) and its default."""
    rows = [(f"`{f.name}`", f.default) for f in dataclasses.fields(params.StaticParams)]
    return md_table(("field", "default"), rows)


def env_kwargs() -> str:
    """Every keyword argument of ``AlemParallelEnv`` with its default (from the signature)."""
    signature = inspect.signature(AlemParallelEnv.__init__)
    rows = [
        (f"`{p.name}`", f"`{p.default!r}`")
        for p in signature.parameters.values()
        if p.name != "self"
    ]
    return md_table(("argument", "default"), rows)


def _slices(layout: dict[str, slice]) -> list[tuple[object, ...]]:
    return [(f"`{n}`", s.stop - s.start, f"{s.start}-{s.stop - 1}") for n, s in layout.items()]


def obs_cell() -> str:
    """The channels of one view cell, for three players (``map_view.cell_layout``)."""
    return md_table(("channels", "count", "indices"), _slices(map_view.cell_layout(3)))


def obs_layout() -> str:
    """The blocks of one agent's vector for the default world (``vector.obs_layout``)."""
    static = params.StaticParams()
    rows = _slices(vector.obs_layout(static))
    rows.append(("total", vector.obs_size(static), ""))
    return md_table(("block", "size", "indices"), rows)


GENERATORS = {
    "obs_cell": obs_cell,
    "obs_layout": obs_layout,
    "actions": actions,
    "achievements": achievements,
    "achievement_tiers": achievement_tiers,
    "score_categories": score_categories,
    "role_gates": role_gates,
    "role_perks": role_perks,
    "presets": presets,
    "alpha_derived": alpha_derived,
    "pipeline": pipeline_stages,
    "draw_blocks": draw_blocks,
    "reset_draw_blocks": reset_draw_blocks,
    "keys": key_table,
    "static_params": static_params,
    "env_kwargs": env_kwargs,
}
