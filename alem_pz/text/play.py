"""Play one seat in the terminal reading the same text a language model reads
(docs/playing.md#text-play).

    alem-play --text --seat 1 --difficulty easy --seed 3

Each step prints the seat's system prompt (once, and again when the team goes deeper), its
observation and teammates' messages, then reads one line: an action name in any form the shared
parser accepts ("move east", "<action>Do</action>", "Give to Agent 0"), optionally followed by
"| message" to broadcast. A blank line is Noop, "?" reprints the prompt, "quit" ends. The other
seats are the rule-based text agent, which reads the same kind of text.
"""

from __future__ import annotations

from collections.abc import Callable

import alem_core
from alem_pz.episode import Episode
from alem_pz.evaluation.protocol import BASE_SEED, make_env
from alem_pz.text.history import AgentHistory, HistoryConfig
from alem_pz.text.parser import parse_reply
from alem_pz.text.prompt import system_prompt
from alem_pz.text.rule_agent import reply


def _human_reply(line: str) -> str:
    action, _, message = line.partition("|")
    text = f"<action>{action.strip()}</action>" if action.strip() else ""
    return text + (f"<communication>{message.strip()}</communication>" if message.strip() else "")


def play_text(
    seat: int = 0,
    difficulty: str = "easy",
    seed: int = BASE_SEED,
    max_steps: int = 10000,
    static: alem_core.StaticParams | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> dict:
    """Play one episode with a person in ``seat``; returns the runner-style record."""
    env = make_env(difficulty, max_steps, static, obs_type="text")
    p = env.static.player_count
    if not 0 <= seat < p:
        raise ValueError(f"seat {seat!r} is not in a team of {p}")
    episode = Episode(env, seed)
    history = AgentHistory(seat, HistoryConfig(chain_of_thought=False))
    inbox: dict[int, str] = {}
    write(system_prompt(seat, env.params, env.static, history=history.config))
    while not episode.over:
        text = episode.infos[f"agent_{seat}"]["text"]
        history.observe(text["long"], inbox, text["inactive"])
        write(history.messages("", text["short"])[-1]["content"])
        line = read(f"Agent {seat}> ").strip()
        if line == "quit":
            break
        if line == "?":
            write(system_prompt(seat, env.params, env.static, history=history.config))
            line = read(f"Agent {seat}> ").strip()
        actions, new_inbox = {}, {}
        for i in range(p):
            answer = _human_reply(line) if i == seat else reply(episode.obs[f"agent_{i}"], i)
            parsed = parse_reply(answer, i, p)
            if i == seat:
                history.record(parsed, text["inactive"])
                if not parsed.ok and line:
                    write(" ".join(parsed.notes))
            if parsed.message:
                new_inbox[i] = parsed.message
            actions[i] = parsed.action
        inbox = new_inbox
        episode.step(actions)
    env.close()
    returns = episode.returns.tolist()
    write(f"episode over after {episode.steps} steps; returns {[round(r, 2) for r in returns]}")
    return {"seed": seed, "steps": episode.steps, "returns": returns}
