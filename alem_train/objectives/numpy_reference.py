"""A plain numpy port of the objectives' forward values, written loop by loop on purpose.

It shares no code with the JAX versions: the JAX ones are vectorised over masks, these walk the
rows, groups and events explicitly, so an indexing or masking slip in either shows up as a
disagreement in ``tests/train/test_cross_framework.py``. Use it for checks, not for training.
"""

from __future__ import annotations

import math

import numpy as np


def _normalise_group(values: list[float], eps: float, scale: str, ddof: int, singleton: str):
    if len(values) == 1:
        if singleton == "zero":
            return [0.0]
        return [values[0] / (1.0 + eps) if scale == "std" else values[0]]
    mean = sum(values) / len(values)
    if scale == "none":
        return [x - mean for x in values]
    var = sum((x - mean) ** 2 for x in values) / (len(values) - ddof)
    return [(x - mean) / (math.sqrt(var) + eps) for x in values]


def group_norm_adv(R, eps, scale, ddof, singleton) -> np.ndarray:
    """[B, G, ...]: each (b, trailing index) normalised over its G entries."""
    R = np.asarray(R, dtype=np.float64)
    out = np.zeros_like(R)
    for b in range(R.shape[0]):
        for idx in np.ndindex(*R.shape[2:]):
            column = [R[(b, g, *idx)] for g in range(R.shape[1])]
            for g, a in enumerate(_normalise_group(column, eps, scale, ddof, singleton)):
                out[(b, g, *idx)] = a
    return out


def broadcast_outcome_adv(A, valid, act) -> np.ndarray:
    A = np.asarray(A, dtype=np.float64)
    b_, g_, t_, n_ = np.shape(act)
    out = np.zeros((b_, g_, t_, n_))
    for b, g, t, i in np.ndindex(b_, g_, t_, n_):
        if valid[b, g, t] and act[b, g, t, i]:
            out[b, g, t, i] = A[b, g] if A.ndim == 2 else A[b, g, i]
    return out


def reward_to_go_norm(r, valid, eps, ddof, singleton) -> np.ndarray:
    r = np.asarray(r, dtype=np.float64)
    out = np.zeros_like(r)
    for b in range(r.shape[0]):
        cells = [(g, t) for g in range(r.shape[1]) for t in range(r.shape[2]) if valid[b, g, t]]
        if not cells:
            continue
        normed = dict(
            zip(
                cells,
                _normalise_group([r[b, g, t] for g, t in cells], eps, "std", ddof, singleton),
                strict=True,
            )
        )
        for g, t in cells:
            out[b, g, t] = sum(v for (g2, t2), v in normed.items() if g2 == g and t2 >= t)
    return out


def kl_k1(logp, logp_ref):
    return np.asarray(logp, np.float64) - logp_ref


def kl_k2(logp, logp_ref):
    return 0.5 * (np.asarray(logp, np.float64) - logp_ref) ** 2


def kl_k3(logp, logp_ref):
    x = np.asarray(logp_ref, np.float64) - logp
    return np.exp(x) - x - 1.0


def _log_softmax(z):
    z = np.asarray(z, np.float64)
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))


def kl_exact(logits_p, logits_q, direction="forward"):
    lp, lq = _log_softmax(logits_p), _log_softmax(logits_q)
    if direction == "reverse":
        lp, lq = lq, lp
    return (np.exp(lp) * (lp - lq)).sum(axis=-1)


def _surrogate(ratio, adv, lo, hi):
    return min(ratio * adv, min(max(ratio, 1 - lo), 1 + hi) * adv)


def _members(act, valid):
    for b, g, t, i in np.ndindex(*np.shape(act)):
        if valid[b, g, t] and act[b, g, t, i]:
            yield b, g, t, i


def igrpo_loss(logp_new, logp_old, A, act, valid, eps_lo, eps_hi, beta, logp_ref, agg) -> float:
    """Forward value of ``losses.igrpo_loss`` with A given per member [B,G,T,N]."""
    groups: dict[tuple, list[float]] = {}
    kl_groups: dict[tuple, list[float]] = {}
    for b, g, t, i in _members(act, valid):
        ratio = math.exp(logp_new[b, g, t, i] - logp_old[b, g, t, i])
        key = {"token": (), "agent-seq": (b, g, i), "event": (b, g, t)}[agg]
        groups.setdefault(key, []).append(_surrogate(ratio, A[b, g, t, i], eps_lo, eps_hi))
        if beta:
            kl = float(kl_k3(logp_new[b, g, t, i], logp_ref[b, g, t, i]))
            kl_groups.setdefault(key, []).append(kl)
    if not groups:
        return 0.0
    objective = np.mean([np.mean(v) for v in groups.values()])
    penalty = np.mean([np.mean(v) for v in kl_groups.values()]) if beta else 0.0
    return float(-objective + beta * penalty)


def srpo_loss(logp_new, logp_old, A_event, act, valid, eps, reduction, beta, logp_ref) -> float:
    """Forward value of ``losses.srpo_loss`` with A_event given per event [B,G,T]."""
    terms, kls = [], []
    for b, g, t in np.ndindex(*np.shape(valid)):
        members = [i for i in range(np.shape(act)[3]) if valid[b, g, t] and act[b, g, t, i]]
        if not members:
            continue
        k = len(members)
        total = sum(logp_new[b, g, t, i] - logp_old[b, g, t, i] for i in members)
        norm = {"sqrt": math.sqrt(k), "sum": 1.0, "mean": float(k)}[reduction]
        terms.append(_surrogate(math.exp(total / norm), A_event[b, g, t], eps, eps))
        if beta:
            kls.append(
                np.mean([kl_k3(logp_new[b, g, t, i], logp_ref[b, g, t, i]) for i in members])
            )
    if not terms:
        return 0.0
    return float(-np.mean(terms) + (beta * np.mean(kls) if beta else 0.0))
