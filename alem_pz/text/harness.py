"""Evaluate a team of language models with the published protocol (docs/evaluation.md to
docs/language-agents.md#the-harness).

The same runner and score as the RL track: ``alem_pz.evaluation.protocol.make_env`` with
``obs_type="text"``, ``protocol.run_episode`` on world seed 9999 + i, ``protocol.summarise``
(mean and 95% bootstrap interval per difficulty). Episodes run in parallel worker threads.

Run directory (``out``)::

    run.json                               settings (client configs name key variables only)
    <difficulty>/episode_<i>.trace.jsonl   per step, per agent: prompt, reply, action, message,
                                           note, tokens, faults (".partial" until it finishes)
    <difficulty>/episode_<i>.json          the episode record plus the harness stats
    <difficulty>/episode_<i>.html          the self-contained episode viewer (``viewer.py``)
    summary.json                           the protocol summary with harness totals

Resume: a rerun with the same ``out`` loads every finished episode record and plays only the
missing ones; a half-written trace of an interrupted episode is replaced.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import alem_core
from alem_pz.evaluation import protocol
from alem_pz.progress import bar as progress_bar
from alem_pz.text import view
from alem_pz.text.client import ChatClient, ClientConfig
from alem_pz.text.history import HistoryConfig
from alem_pz.text.observation import TextConfig
from alem_pz.text.team import LLMTeam
from alem_pz.text.viewer import write_viewer


@dataclass
class HarnessConfig:
    """Everything an LLM evaluation needs besides the protocol settings."""

    clients: list[ClientConfig]
    history: HistoryConfig = field(default_factory=HistoryConfig)
    text: TextConfig = field(default_factory=lambda: TextConfig(frames=True))
    prompt_mode: str = "specific_collaborative"
    feedback: bool = True
    workers: int = 4
    parse_retries: int = 0

    def client_for(self, agent: int) -> ClientConfig:
        """Entry ``agent`` of the client list; a single entry drives every agent."""
        return self.clients[agent] if len(self.clients) > 1 else self.clients[0]

    def make_clients(self, players: int) -> list[ChatClient]:
        """One ``ChatClient`` per agent, for a whole evaluation rather than per episode: each
        holds an ``openai`` client with its own TLS context (about 0.8 MB, mostly outside the
        Python heap) in a reference cycle, which only a full garbage collection frees, and a process
        holding JAX's many objects runs few; new clients every episode grew RSS by about
        2 MB an episode. ``ChatClient`` is thread-safe, so concurrent episodes share them."""
        return [ChatClient(self.client_for(i)) for i in range(players)]

    def public(self) -> dict[str, Any]:
        """JSON-ready settings (no key: client configs hold variable names only)."""
        return {
            "clients": [c.public() for c in self.clients],
            "history": asdict(self.history),
            "text": {
                "ascii_map": self.text.ascii_map,
                "frames": self.text.frames,
                "collaborative": self.text.collaborative,
            },
            "prompt_mode": self.prompt_mode,
            "feedback": self.feedback,
            "workers": self.workers,
            "parse_retries": self.parse_retries,
        }


def load_config(path: str | None, **cli: Any) -> HarnessConfig:
    """A ``HarnessConfig`` from an optional JSON file, with command-line client flags applied.

    File keys: ``clients`` (list of ``ClientConfig`` fields), ``history`` (``HistoryConfig``
    fields), ``text`` ({"ascii_map": bool}), ``prompt_mode``, ``feedback``, ``workers``,
    ``parse_retries``.
    ``cli`` keys ``model``, ``base_url``, ``api_key_env`` fill or override a single client.
    """
    data: dict[str, Any] = {}
    if path:
        data = json.loads(Path(path).read_text())
    flags = {k: v for k, v in cli.items() if v is not None}
    entries = data.get("clients") or [{}]
    clients = [ClientConfig.from_dict({**entry, **flags}) for entry in entries]
    return HarnessConfig(
        clients=clients,
        history=HistoryConfig(**data.get("history", {})),
        text=TextConfig(
            ascii_map=bool(data.get("text", {}).get("ascii_map", False)),
            frames=bool(data.get("text", {}).get("frames", True)),
        ),
        prompt_mode=data.get("prompt_mode", "specific_collaborative"),
        feedback=bool(data.get("feedback", True)),
        workers=int(data.get("workers", 4)),
        parse_retries=int(data.get("parse_retries", 0)),
    )


def world_fingerprint(state: alem_core.State) -> str:
    """A hash of the current floor's blocks and the players' cells (same world check)."""
    s = view.snapshot(state)
    digest = hashlib.sha256(view.current_floor_blocks(s).tobytes())
    for i in range(view.player_count(s)):
        me = view.player(s, i)
        digest.update(f"{me.row},{me.col};".encode())
    return digest.hexdigest()[:16]


def _episode_paths(out: Path, difficulty: str, i: int) -> tuple[Path, Path]:
    folder = out / difficulty
    return folder / f"episode_{i}.json", folder / f"episode_{i}.trace.jsonl"


class _Progress:
    """The progress bar (``alem_pz.progress``, tqdm), suffixed with the live parse rate and
    token count; a lock because episodes run in worker threads."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = progress_bar(total, "llm", enabled=enabled)
        self.lock = threading.Lock()
        self.ok = self.bad = self.tokens = 0

    def step(self, team: LLMTeam) -> None:
        """Count one step of ``team``'s episode and relabel the bar."""
        with self.lock:
            ok, bad = self.ok + sum(team.stats.parsed), self.bad + sum(team.stats.failed)
            rate = ok / (ok + bad) if ok + bad else 1.0
            used = team.stats.tokens["input"] + team.stats.tokens["output"]
            self.bar.set_postfix_str(f"parse {rate:.0%} tokens {self.tokens + used}", False)
            self.bar.update()

    def finish(self, stats: dict[str, Any], skipped: int) -> None:
        with self.lock:
            self.ok += stats["parse_successes"]
            self.bad += stats["parse_failures"]
            self.tokens += stats["tokens"].get("input", 0) + stats["tokens"].get("output", 0)
            self.bar.update(skipped)


def run_llm_episode(
    config: HarnessConfig,
    difficulty: str,
    index: int,
    max_steps: int,
    out: Path,
    static: alem_core.StaticParams | None = None,
    players: int = 3,
    progress: _Progress | None = None,
    clients: list[ChatClient] | None = None,
) -> dict[str, Any]:
    """Play episode ``index`` (world seed 9999 + index) and write its trace and record.
    ``clients``: one per agent, shared across episodes (``HarnessConfig.make_clients``);
    without them the episode makes its own and closes them."""
    record_path, trace_path = _episode_paths(out, difficulty, index)
    record_path.parent.mkdir(parents=True, exist_ok=True)
    env = protocol.make_env(difficulty, max_steps, static, players, "text", config.text)
    seed = protocol.BASE_SEED + index
    env.reset(seed=seed)
    fingerprint = world_fingerprint(env.core_state)
    own = clients is None
    clients = config.make_clients(players) if own else clients
    team = LLMTeam(
        clients, env.params, env.static, config.history, config.prompt_mode, config.feedback,
        config.parse_retries,
    )  # fmt: skip
    partial = trace_path.with_suffix(".jsonl.partial")
    try:
        with open(partial, "w") as trace:
            team.trace = trace
            on_step = (lambda _: progress.step(team)) if progress else None
            record = protocol.run_episode(env, team, seed, on_step=on_step)
            record["difficulty"], record["world"] = difficulty, fingerprint
            record["harness"] = team.stats.as_dict()
            trace.write(json.dumps({"end": True, **record}) + "\n")
    finally:
        team.close()
        env.close()
        for client in clients if own else ():
            client.close()
    partial.replace(trace_path)
    write_viewer(trace_path)
    record_path.write_text(json.dumps(record, indent=1))
    if progress:
        progress.finish(record["harness"], max_steps - record["steps"])
    return record


def harness_totals(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Token, fault and stop-reason totals over episodes (parse rates stay per episode)."""
    totals: dict[str, Counter] = {"tokens": Counter(), "faults": Counter(), "finish": Counter()}
    seconds = Counter()
    for r in records:
        h = r["harness"]
        totals["tokens"].update(h["tokens"])
        totals["faults"].update(h["faults"])
        totals["finish"].update(h["finish_reasons"])
        seconds.update(steps=h["steps"], request=h["request_seconds"], harness=h["harness_seconds"])
    steps = max(seconds["steps"], 1)
    return {
        "tokens": dict(totals["tokens"]),
        "tokens_per_step": totals["tokens"]["input"] / steps,
        "faults": dict(totals["faults"]),
        "finish_reasons": dict(totals["finish"]),
        "harness_seconds_per_step": seconds["harness"] / steps,
        "request_seconds_per_step": seconds["request"] / steps,
    }


def _play_difficulty(
    config: HarnessConfig,
    difficulty: str,
    episodes: int,
    max_steps: int,
    out: Path,
    static: alem_core.StaticParams | None,
    players: int,
    bar: _Progress,
    clients: list[ChatClient],
) -> list[dict[str, Any]]:
    """The records of episodes 0..episodes-1 of one difficulty: finished ones loaded, the
    missing ones played in worker threads."""
    records: dict[int, dict[str, Any]] = {}
    todo = []
    for i in range(episodes):
        path = _episode_paths(out, difficulty, i)[0]
        if path.exists():
            records[i] = json.loads(path.read_text())
            bar.bar.update(max_steps)
        else:
            todo.append(i)
    play = functools.partial(
        run_llm_episode, config, difficulty, max_steps=max_steps, out=out, static=static,
        players=players, progress=bar, clients=clients,
    )  # fmt: skip
    with ThreadPoolExecutor(max_workers=max(1, config.workers)) as pool:
        futures = {i: pool.submit(play, i) for i in todo}
        for i, future in futures.items():
            records[i] = future.result()
    return [records[i] for i in range(episodes)]


def evaluate_llm(
    config: HarnessConfig,
    out: str | Path,
    episodes: int = 20,
    max_steps: int = 10000,
    difficulties: Sequence[str] = protocol.DIFFICULTIES,
    static: alem_core.StaticParams | None = None,
    players: int = 3,
    resamples: int = 10000,
    progress: bool = True,
) -> dict[str, Any]:
    """Run (or resume) the protocol for a language-model team; returns and writes the summary.

    Raises:
        ValueError: no difficulty, or fewer than one episode or step.
        RunAbortedError: the endpoint refused the credentials.
    """
    if not difficulties or episodes < 1 or max_steps < 1:
        raise ValueError(
            f"need at least one difficulty, episode and step, got difficulties={difficulties!r}, "
            f"episodes={episodes!r}, max_steps={max_steps!r}"
        )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps(config.public(), indent=1))
    clients = config.make_clients(players)
    bar = _Progress(episodes * max_steps * len(difficulties), progress)
    results, totals = {}, {}
    try:
        for difficulty in difficulties:
            played = _play_difficulty(
                config, difficulty, episodes, max_steps, out, static, players, bar, clients
            )
            results[difficulty] = protocol.summarise(played, resamples)
            totals[difficulty] = harness_totals(played)
    finally:
        for client in clients:
            client.close()
    bar.bar.close()
    shapes = static or alem_core.StaticParams(player_count=players)
    summary = {
        "protocol": _settings(players, episodes, max_steps, difficulties, shapes, resamples),
        "harness": {"config": config.public(), "totals": totals},
        "results": results,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _settings(players, episodes, max_steps, difficulties, shapes, resamples) -> dict[str, Any]:
    """The RL track's protocol record, for the LLM policy."""
    record = protocol.protocol_settings(
        "llm", players, episodes, max_steps, difficulties, shapes, resamples
    )
    return record | {"obs_type": "text"}
