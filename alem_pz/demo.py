"""A short random-team episode through the PettingZoo API, with a summary.

    python -m alem_pz.demo [--steps 300] [--players 3] [--difficulty medium] [--seed 0]

Every agent picks a uniformly random legal action (``MaskedRandom``, from
``infos[agent]["action_mask"]``).
Prints the steps played, wall seconds (compile included, then per step), and the
achievements unlocked by the team.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from alem_core.constants import Achievement
from alem_pz.episode import Episode
from alem_pz.evaluation.baselines import MaskedRandom


def run(steps: int, players: int, difficulty: str, seed: int) -> dict[str, object]:
    """Play one episode of at most ``steps`` steps; return a summary dict."""
    import alem_pz

    start = time.perf_counter()
    env = alem_pz.make(players=players, difficulty=difficulty, max_steps=steps)
    # One seeded draw per agent in seat order (MaskedRandom), timed around each step.
    team = dict.fromkeys(range(players), MaskedRandom(seed))
    episode = Episode(env, seed)
    first_step = 0.0
    durations = []
    while not episode.over:
        actions = episode.ask(team)
        tick = time.perf_counter()
        episode.step(actions)
        durations.append(time.perf_counter() - tick)
        if episode.steps == 1:
            first_step = time.perf_counter()
    end = time.perf_counter()
    unlocked = np.asarray(env.core_state.players.achievements).any(axis=0)
    return {
        "steps": episode.steps,
        "setup_seconds": first_step - start,
        "play_seconds": end - first_step,
        "median_step_ms": 1e3 * float(np.median(durations[1:-1] or durations)),
        "last_step_seconds": durations[-1],
        "alive_at_end": int(np.asarray(env.core_state.players.alive).sum()),
        "returns": dict(zip(env.possible_agents, episode.returns.tolist(), strict=True)),
        "shared_reward": bool(env.params.shared_reward),
        "achievements": [Achievement(i).name for i in np.flatnonzero(unlocked)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a short random-team alem episode.")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--difficulty", default="medium")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    summary = run(args.steps, args.players, args.difficulty, args.seed)
    print(f"steps played      {summary['steps']}")
    print(
        f"seconds           {summary['setup_seconds']:.1f} to compile, reset, first step; "
        f"{summary['play_seconds']:.1f} to play (median {summary['median_step_ms']:.1f} ms/step; "
        f"the last step, which scores the episode, {summary['last_step_seconds']:.1f} s)"
    )
    print(f"alive at the end  {summary['alive_at_end']} of {args.players}")
    mode = "shared: each agent gets the team sum" if summary["shared_reward"] else "individual"
    print(f"reward mode       {mode}")
    print("returns           " + ", ".join(f"{a}: {r:.1f}" for a, r in summary["returns"].items()))
    print(
        f"achievements ({len(summary['achievements'])} unlocked by the team): "
        + ", ".join(summary["achievements"])
    )


if __name__ == "__main__":
    main()
