"""The ``obs_type="text"`` face of ``AlemParallelEnv``: hooks the env calls only in text mode.

Each agent's observation is its long-term then short-term context as one string
(``gymnasium.spaces.Text``); ``infos[agent]["text"]`` holds the two parts and the inactive
flag apart (the harness keeps only the long-term part in its history). The action mask stays in
the infos (or in the observation dict with ``mask_in_obs``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from alem_pz.text.observer import TEXT_CHARSET, TEXT_MAX_LENGTH, AgentText, TextObserver


def text_space() -> spaces.Text:
    """The observation space of one agent's text."""
    return spaces.Text(max_length=TEXT_MAX_LENGTH, min_length=0, charset=TEXT_CHARSET)


def observe(env: Any, obs: dict, infos: dict, actions=None, rewards=None) -> dict:
    """Replace each acting agent's observation by its text (in place for ``infos``).

    Called after the env unpacked a reset (``actions`` None) or a step.
    """
    if getattr(env, "_text", None) is None:
        env._text = TextObserver(env.params, env.static, getattr(env, "text_config", None))
    masks = env._masks
    state = env.core_state
    if actions is None:
        texts = env._text.reset(state, masks)
    else:
        reward_array = np.array([rewards.get(a, 0.0) for a in env.possible_agents], np.float32)
        texts = env._text.step(state, actions, reward_array, masks)
    out = {}
    for agent in obs:
        text: AgentText = texts[env._index[agent]]
        infos[agent]["text"] = {
            "long": text.long,
            "short": text.short,
            "inactive": text.inactive,
            "frame": text.frame,
        }
        if env.mask_in_obs:
            out[agent] = {"observation": text.full, "action_mask": obs[agent]["action_mask"]}
        else:
            out[agent] = text.full
    return out
