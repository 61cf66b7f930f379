"""What the episode and floor comparisons share: health events read from the traces, and the
table of per-world quantities with bootstrap errors and flags.

Runs in alem's interpreter (the comparisons read the two sides' ``.npz`` files). Every quantity
is one number per world; the difference of the two sides' means gets a standard error from a
bootstrap over worlds (each side resampled independently: ``alem_pz.evaluation.stats``,
rliable's bootstrap, the one every alem report uses) and is flagged beyond ``FLAG_SE`` standard
errors. Worlds, not agents, are the samples: agents in one world share the world.
"""

from __future__ import annotations

import numpy as np

from bench.parity.protocol import MAX_HEALTH

FLAG_SE = 4.0
MIN_WORLDS = 10
"""A quantity most worlds lack (a rare death cause's time) is flagged only when at least this
many worlds on each side have a value; below it the bootstrap's SE means little."""
NEED_TICK_BELOW = -14.0
"""Recovery counter before a need tick: it fires below -15 after a step of -1 or -0.5."""
REGEN_TICK_ABOVE = 23.0
"""Recovery counter before a regeneration tick: it fires above 25 after a step of +2 or +3."""


def step_events(tr: dict) -> dict:
    """Per step (T, N, P) health events inferred from the traces, the same on both sides: a
    "need" tick is the recovery counter reset from below zero (1 health), a regeneration tick
    its reset from above zero (+2, capped at max health), friendly fire the world's rise in
    damage dealt, and "mob" damage the rest of the health lost by agents alive before the step
    (the dying step counts down to 0 only)."""
    alive_b = tr["alive"][:-1].astype(bool)
    rec_b, rec_a = tr["recover"][:-1], tr["recover"][1:]
    h_b, h_a = tr["health"][:-1], tr["health"][1:]
    need = alive_b & (rec_b < NEED_TICK_BELOW) & (rec_a == 0)
    regen = alive_b & (rec_b > REGEN_TICK_ABOVE) & (rec_a == 0)
    gain = np.where(regen, np.minimum(2.0, MAX_HEALTH - h_b), 0.0)
    ff = np.diff(tr["ff_dealt"], axis=0).sum(-1)  # (T, N) dealt by the world's agents
    lost = np.where(alive_b, h_b - h_a, 0.0)
    mob = np.maximum(0.0, (lost + gain - need).sum(-1) - ff)  # (T, N)
    died = alive_b & ~tr["alive"][1:].astype(bool)
    return {"need": need, "regen": regen, "ff": ff, "mob": mob, "died": died, "h_b": h_b}


def masked_mean(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over axis 0 where ``mask``; NaN where nothing is selected."""
    count = mask.sum(0)
    total = np.where(mask, values, 0.0).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def print_table(qa: dict, qb: dict, boot: int, seed: int = 0) -> list[str]:
    """Print each quantity both sides have (peer, ours, diff, SE, z, flag); return the flagged."""
    # Imported here: the peer's interpreter loads this module (through the floors tool) without
    # alem_pz's dependencies.
    from alem_pz.evaluation.stats import difference_of_means

    print(f"diff = ours - peer; SE by bootstrap over worlds ({boot}); ** = |diff| > {FLAG_SE} SE")
    print(f"{'quantity':<58}{'peer':>10}{'ours':>10}{'diff':>10}{'SE':>9}{'z':>7}")
    section, flagged = None, []
    for name in [k for k in qa if k in qb]:
        ma, mb, se = difference_of_means(qa[name], qb[name], boot, seed)
        if (ma == 0 and mb == 0) or np.isnan(ma) or np.isnan(mb):
            continue
        head = name.split("/")[0]
        if head != section:
            print(f"[{head}]")
            section = head
        d = mb - ma
        z = d / se if se > 0 else (0.0 if d == 0 else np.inf)
        few = min(np.isfinite(qa[name]).sum(), np.isfinite(qb[name]).sum())
        flag = "**" if abs(z) > FLAG_SE and few >= MIN_WORLDS else ""
        flagged += [name] if flag else []
        note = f" (worlds with a value: {few})" if few < MIN_WORLDS else ""
        print(f"{name:<58}{ma:>10.3f}{mb:>10.3f}{d:>+10.3f}{se:>9.3f}{z:>+7.1f} {flag}{note}")
    return flagged
