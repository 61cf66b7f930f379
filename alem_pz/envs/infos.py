"""The per-agent info layout of the PettingZoo faces: the same flat keys on every step.

Every ``infos[agent]`` from ``reset`` on holds exactly these keys, with numeric values of a fixed
shape, so a wrapper that builds its specs from the first infos (TorchRL's
``PettingZooWrapper``, BenchMARL, Tianshou's collectors) sees the same layout on every step:

| key | value |
|---|---|
| `action_mask` | `np.int8` (A,): 1 where the action is legal now (also with `mask_in_obs=True`) |
| `alive` | `bool`: the agent is alive (dead agents stay in `env.agents` with only NOOP legal) |
| `cooperation/<name>` | `int` or `float`: the running cooperation counters (``COOPERATION_KEYS``) |
| `score` | `np.float32` (K,): the episode score (docs/rules/score.md), 0 until the last step |

The score row's columns are named by ``env.score_keys`` (``alem_core.scoring.score.score_keys``);
``env.episode_score()`` gives the named view ``{agent: {key: float}}``. Text mode adds ``text``
(a dict of strings, ``alem_pz.text.env``). Why one array and not ~460 keys: keys that appear only
on the last step break every library that fixes its specs at ``reset``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from alem_core.scoring.metrics import COOPERATION_METRICS

COOPERATION_KEYS = tuple(f"cooperation/{name}" for name in COOPERATION_METRICS)
"""The info keys of the cooperation counters, in ``COOPERATION_METRICS`` order."""
_FLOAT_METRICS = {"give_success_rate", "friendly_fire_damage"}
_IS_FLOAT = tuple(name in _FLOAT_METRICS for name in COOPERATION_METRICS)


def info_keys(text: bool = False) -> tuple[str, ...]:
    """Every key of ``infos[agent]``, in order (``text`` adds the text mode's ``"text"``)."""
    return ("action_mask", "alive", *COOPERATION_KEYS, "score", *(("text",) if text else ()))


def agent_infos(
    agents: Sequence[str],
    index: dict[str, int],
    mask: np.ndarray,
    alive: np.ndarray,
    metrics: np.ndarray,
    score: np.ndarray,
) -> dict[str, dict]:
    """``{agent: info}`` for the acting ``agents`` from the host arrays of one step.

    Args:
        agents: the agents to report (those that acted).
        index: agent name -> row.
        mask: (P, A) int8; alive: (P,) float (> 0.5 alive); metrics: (P, M) float in
            ``COOPERATION_METRICS`` order; score: (P, K) float32 (zeros before the last step).
    """
    infos = {}
    for agent in agents:
        i = index[agent]
        info: dict = {"action_mask": mask[i], "alive": bool(alive[i] > 0.5)}
        for key, is_float, value in zip(COOPERATION_KEYS, _IS_FLOAT, metrics[i], strict=True):
            info[key] = float(value) if is_float else round(float(value))
        info["score"] = score[i]
        infos[agent] = info
    return infos


__all__ = ["COOPERATION_KEYS", "agent_infos", "info_keys"]
