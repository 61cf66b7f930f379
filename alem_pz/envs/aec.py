"""The AEC (turn-by-turn) face: PettingZoo's parallel-to-AEC conversion, checking each action
at its own agent's turn.

PettingZoo's ``parallel_to_aec_wrapper`` stores every agent's action and hands the whole dict to
the parallel env at the last agent's turn, so a bad value from ``agent_0`` raised only at
``agent_2``'s turn and then kept raising, since the stored value stayed. Here the value is
checked (and, with ``strict_actions``, its legality) when its agent steps: the error names that
agent and value, and nothing is stored, so the same agent can step again with a good action.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from alem_pz.envs.arguments import check_action, check_legal
from alem_pz.envs.parallel import AlemParallelEnv


class AlemAECEnv(parallel_to_aec_wrapper):
    """``parallel_to_aec_wrapper`` over ``AlemParallelEnv`` with the check above."""

    def step(self, action: Any) -> None:
        """The selected agent's action; raises ValueError naming the agent and the value (the
        turn stays with that agent) for a value the parallel env would refuse."""
        agent = self.agent_selection
        live = not (self.terminations[agent] or self.truncations[agent])
        if live:
            parallel: AlemParallelEnv = self.env
            if not parallel.agents:
                raise RuntimeError(
                    f"step({action!r}) for {agent!r} before reset() or after the episode ended"
                )
            chosen = check_action(agent, action, parallel.static.num_actions)
            if parallel.strict_actions:  # against the masks step() itself checks
                agents = parallel.possible_agents
                chosen_row = np.zeros(len(agents), np.int32)
                chosen_row[agents.index(agent)] = chosen
                check_legal(chosen_row, parallel.action_masks, [agent], agents)
        super().step(action)


__all__ = ["AlemAECEnv"]
