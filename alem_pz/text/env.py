"""The ``obs_type="text"`` face of ``AlemParallelEnv``: its observer (``alem_pz.envs.observers``).

Each agent's observation is its long-term then short-term context as one string
(``gymnasium.spaces.Text``); ``infos[agent]["text"]`` holds the two parts and the inactive
flag apart (the harness keeps only the long-term part in its history). The action mask stays in
the infos (or in the observation dict with ``mask_in_obs``).
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from alem_pz.envs.kernels import compiled_core
from alem_pz.text.observer import TEXT_CHARSET, TEXT_MAX_LENGTH, TextObserver


def text_space() -> spaces.Text:
    """The observation space of one agent's text."""
    return spaces.Text(max_length=TEXT_MAX_LENGTH, min_length=0, charset=TEXT_CHARSET)


class EnvTextObserver:
    """The text observer of ``AlemParallelEnv(obs_type="text")`` (``alem_pz.envs.observers``):
    a ``TextObserver`` fed from the env's frames."""

    def __init__(self, params: Any, static: Any, config: Any = None) -> None:
        self.static = static
        self.text = TextObserver(params, static, config)

    def space(self) -> spaces.Text:
        """``spaces.Text`` (``text_space``)."""
        return text_space()

    def observe(self, frame: Any) -> tuple[list[str], list[dict[str, Any]]]:
        """Each agent's full text, and its parts as ``infos[agent]["text"]``, from an
        ``alem_pz.envs.observers.Frame`` (not imported: that module builds this one)."""
        state = compiled_core(self.static).unpack_state(frame.state)
        if frame.actions is None:
            texts = self.text.reset(state, frame.masks)
        else:
            texts = self.text.step(state, frame.actions, frame.rewards, frame.masks)
        extras = [
            {"text": {"long": t.long, "short": t.short, "inactive": t.inactive, "frame": t.frame}}
            for t in texts
        ]
        return [t.full for t in texts], extras
