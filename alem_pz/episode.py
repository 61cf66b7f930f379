"""One episode of the team env: the loop every face drives, and the one way a policy is asked.

The evaluation protocol, GIF recording, the demo, text play, keyboard play and the browser rooms
all play through ``Episode``: it resets the env on a world seed, steps it with one action per
seat (NOOP for a seat given none), and keeps what each face reports (steps, per-seat returns,
whether the episode terminated, the score averaged over agents). What differs between faces is
only where the actions come from (``seat_actions`` for policies, people's keys or words) and
what they do between steps (a frame, a progress bar, a record line).

A policy is ``policy(observation, action_mask) -> int`` for one agent, or, with
``batched = True``, ``policy(observations (P, D), masks (P, A)) -> (P,) ints`` for the team
(``alem_pz.evaluation.policies`` loads them by name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from alem_core.scoring.score import score_columns

if TYPE_CHECKING:  # the faces build the env; importing this module builds nothing
    from alem_pz.envs.parallel import AlemParallelEnv

Policy = Callable[..., Any]


def seat_actions(
    policies: Mapping[int, Policy], agents: Sequence[str], obs: Mapping[str, Any], infos: Mapping
) -> dict[int, int]:
    """Every listed seat's action ({seat: policy} -> {seat: action}), the one way a policy is
    asked for actions: a one-agent policy sees its agent's observation and mask; a batched
    policy (a trained team) sees the whole team's, as it was trained, once per step however
    many seats it plays, and its row for each seat is taken (a text team, ``wants_infos``, also
    gets every agent's infos)."""
    actions: dict[int, int] = {}
    team_rows: dict[int, np.ndarray] = {}  # id(policy) -> its (P,) answer this step
    for seat, policy in policies.items():
        if getattr(policy, "batched", False):
            if id(policy) not in team_rows:
                args: list[Any] = [
                    np.stack([obs[a] for a in agents]),
                    np.stack([infos[a]["action_mask"] for a in agents]),
                ]
                if getattr(policy, "wants_infos", False):  # text teams read infos["text"]
                    args.append([infos[a] for a in agents])
                team_rows[id(policy)] = np.asarray(policy(*args)).reshape(-1)
            actions[seat] = int(team_rows[id(policy)][seat])
        else:
            agent = agents[seat]
            actions[seat] = int(policy(obs[agent], infos[agent]["action_mask"]))
    return actions


def start_policies(policies: Mapping[int, Policy], seed: int) -> None:
    """Call ``reset(seed)`` once on every distinct policy in ``policies`` that has one: the
    episode start every face gives a policy (a fresh draw stream, a recurrent memory zeroed)."""
    for policy in {id(p): p for p in policies.values()}.values():
        if hasattr(policy, "reset"):
            policy.reset(seed)


class Episode:
    """One running episode of ``env`` on world ``seed`` (reset on construction, and with it
    every policy in ``policies``, ``start_policies``).

    Attributes: ``obs`` and ``infos`` (the env's last dicts), ``steps``, ``returns`` ((P,)
    float64 per seat), ``terminated`` (the last step ended it by termination, not the cap).
    """

    def __init__(
        self, env: AlemParallelEnv, seed: int, policies: Mapping[int, Policy] | None = None
    ) -> None:
        self.env, self.seed = env, seed
        start_policies(policies or {}, seed)
        self.players = env.static.player_count
        self.obs, self.infos = env.reset(seed=seed)
        self.steps, self.returns, self.terminated = 0, np.zeros(self.players), False

    @property
    def over(self) -> bool:
        """Every agent has left (terminated or truncated): the episode ended."""
        return not self.env.agents

    def can_act(self, seat: int) -> bool:
        """Seat ``seat`` has a real choice now: the episode runs and more than NOOP is legal
        (dead, sleeping and resting agents have only NOOP)."""
        return not self.over and int(self.infos[f"agent_{seat}"]["action_mask"].sum()) > 1

    def ask(self, policies: Mapping[int, Policy]) -> dict[int, int]:
        """``seat_actions`` on this step's observations and masks."""
        return seat_actions(policies, self.env.agents, self.obs, self.infos)

    def step(self, actions: Mapping[int, int]) -> list[float]:
        """Step once with ``{seat: action}`` (NOOP for every seat not in it); returns each
        seat's reward (0.0 for a seat that did not act)."""
        agents = self.env.agents
        index = self.env.possible_agents.index
        self.obs, rewards, terms, _, self.infos = self.env.step(
            {agent: actions.get(index(agent), 0) for agent in agents}
        )
        reward = [float(rewards.get(f"agent_{i}", 0.0)) for i in range(self.players)]
        self.returns += reward
        self.steps += 1
        self.terminated = any(terms.values())
        return reward

    def play(
        self, policies: Mapping[int, Policy], on_step: Callable[[Episode], None] | None = None
    ) -> Episode:
        """Play on to the end with ``{seat: policy}`` (a seat without one plays NOOP);
        ``on_step(self)`` runs after every step. Returns ``self``."""
        while not self.over:
            self.step(self.ask(policies))
            if on_step is not None:
                on_step(self)
        return self

    def metrics(self) -> dict[str, float]:
        """Every score key averaged over agents, from the last step's infos (the final score
        once the episode is over)."""
        agents = self.env.possible_agents
        table = np.stack([self.infos[a]["score"] for a in agents]).astype(np.float64)
        return {k: float(v) for k, v in score_columns(table.mean(axis=0), self.env.static).items()}

    def record(self) -> dict[str, Any]:
        """``{"seed", "steps", "terminated", "returns" (per seat), "metrics"}``."""
        return {
            "seed": self.seed,
            "steps": self.steps,
            "terminated": self.terminated,
            "returns": self.returns.tolist(),
            "metrics": self.metrics(),
        }


__all__ = ["Episode", "Policy", "seat_actions", "start_policies"]
