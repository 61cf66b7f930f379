"""The LLM harness end to end: the official openai client against a real local HTTP server
(driven by the rule-based text agent) that injects faults; resume; keys; same worlds."""

from __future__ import annotations

import json

import pytest

from alem_pz.evaluation import cli as evaluate
from alem_pz.evaluation import protocol
from alem_pz.text import harness
from alem_pz.text.client import ChatClient, ClientConfig
from alem_pz.text.harness import HarnessConfig, evaluate_llm, load_config, world_fingerprint
from alem_pz.text.local_server import LocalServer

from ..conftest import SMALL

STEPS, EPISODES = 8, 2
KEY = "sk-test-Zq81-never-written"


def _config(server: LocalServer, **client) -> HarnessConfig:
    # A generous timeout: a loaded test machine must not turn a normal reply into a fault.
    settings = dict(model="rule", base_url=server.url, timeout=10.0, retry_delay=0.01)
    settings.update(client)
    return HarnessConfig(clients=[ClientConfig(**settings)], workers=2)


def _run(tmp_path, name, faults=None, slow_seconds=0.0, **client):
    with LocalServer(faults=faults, slow_seconds=slow_seconds) as server:
        summary = evaluate_llm(
            _config(server, **client), tmp_path / name, episodes=EPISODES, max_steps=STEPS,
            difficulties=["easy"], static=SMALL, resamples=50, progress=False,
        )  # fmt: skip
    return summary, server


def _episodes(summary):
    return summary["results"]["easy"]["per_episode"]


def _actions(run_dir, i):
    lines = (run_dir / "easy" / f"episode_{i}.trace.jsonl").read_text().splitlines()
    steps = [json.loads(line) for line in lines]
    return [[a["action"] for a in s["agents"]] for s in steps if "agents" in s]


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    path = tmp_path_factory.mktemp("llm")
    return path, *_run(path, "clean")


def test_clean_run_writes_the_run_directory(clean):
    path, summary, server = clean
    run = path / "clean"
    assert json.loads((run / "summary.json").read_text())["results"]["easy"]["episodes"] == 2
    for i, episode in enumerate(_episodes(summary)):
        assert episode["seed"] == protocol.BASE_SEED + i and episode["steps"] == STEPS
        assert episode["harness"]["action_parse_rate"] == 1.0
        assert episode["harness"]["tokens"]["requests"] == STEPS * 3
        assert len(_actions(run, i)) == STEPS
    assert server.stats["requests"] == EPISODES * STEPS * 3
    assert "Team/achievement_pct" in summary["results"]["easy"]["headline"]


def test_transport_faults_are_retried_counted_and_change_nothing(clean, tmp_path):
    path, summary, _ = clean
    faults = {"429": 0.15, "500": 0.15, "slow": 0.05}
    faulty, server = _run(tmp_path, "transport", faults, slow_seconds=4.0, timeout=2.0)
    totals = faulty["harness"]["totals"]["easy"]["faults"]
    assert totals.get("http_429", 0) == server.stats["429"] > 0
    assert totals.get("http_500", 0) == server.stats["500"] > 0
    assert totals.get("timeout", 0) == server.stats["slow"]
    for before, after in zip(_episodes(summary), _episodes(faulty), strict=True):
        assert after["metrics"] == before["metrics"] and after["returns"] == before["returns"]
    for i in range(EPISODES):
        assert _actions(tmp_path / "transport", i) == _actions(path / "clean", i)


def test_content_faults_become_counted_parse_failures(tmp_path):
    faulty, server = _run(tmp_path, "content", {"truncate": 0.1, "garble": 0.1, "400": 0.15})
    episodes = _episodes(faulty)
    assert len(episodes) == EPISODES and all(e["steps"] == STEPS for e in episodes)
    totals = faulty["harness"]["totals"]["easy"]
    assert totals["faults"].get("http_400", 0) == server.stats["400"] > 0
    assert totals["finish_reasons"].get("length", 0) == server.stats["truncate"] > 0
    assert totals["tokens"]["retries"] == 0  # 400 is not retried; content faults are replies
    failures = sum(e["harness"]["parse_failures"] for e in episodes)
    assert failures >= server.stats["garble"] + server.stats["400"] > 0


def test_resume_skips_finished_episodes(clean, tmp_path):
    path, summary, _ = clean
    run = tmp_path / "resume"
    run.mkdir()
    for item in (path / "clean").rglob("*"):  # a copy of a finished run...
        target = run / item.relative_to(path / "clean")
        target.parent.mkdir(parents=True, exist_ok=True)
        if item.is_file():
            target.write_bytes(item.read_bytes())
    (run / "easy" / "episode_1.json").unlink()  # ...killed during its second episode
    (run / "easy" / "episode_1.trace.jsonl").rename(run / "easy" / "episode_1.trace.jsonl.partial")
    resumed, server = _run(tmp_path, "resume")
    assert server.stats["requests"] == STEPS * 3  # only the missing episode was played
    assert [e["metrics"] for e in _episodes(resumed)] == [e["metrics"] for e in _episodes(summary)]
    assert not list(run.rglob("*.partial"))


def test_api_key_is_sent_but_never_written(tmp_path, monkeypatch):
    monkeypatch.setenv("ALEM_TEST_KEY", KEY)
    summary, server = _run(tmp_path, "keyed", {"400": 0.1}, api_key_env="ALEM_TEST_KEY")
    assert server.auth_headers and all(h == f"Bearer {KEY}" for h in server.auth_headers)
    files = [p for p in (tmp_path / "keyed").rglob("*") if p.is_file()]
    assert len(files) >= 2 * EPISODES + 2
    for path in files:
        assert KEY not in path.read_text(), path
    assert KEY not in json.dumps(summary)
    monkeypatch.delenv("ALEM_TEST_KEY")
    with pytest.raises(ValueError, match="ALEM_TEST_KEY"):
        _run(tmp_path, "nokey", api_key_env="ALEM_TEST_KEY")


def test_clients_are_made_once_per_evaluation_and_closed(tmp_path, monkeypatch):
    # New openai clients every episode held ~0.8 MB each until a rare full GC (the soak records:
    # bench/records/README.md, soak_2026-12-02_llm_out_of_process*.json).
    made = []

    class Counted(ChatClient):
        def __init__(self, config: ClientConfig) -> None:
            super().__init__(config)
            made.append(self)

    monkeypatch.setattr(harness, "ChatClient", Counted)
    with LocalServer() as server:
        evaluate_llm(_config(server), tmp_path / "shared", episodes=3, max_steps=2,
                     difficulties=["easy"], static=SMALL, resamples=10, progress=False)  # fmt: skip
        assert server.stats["requests"] == 3 * 2 * 3
    assert len(made) == 3  # one per agent, not one per agent and episode
    assert all(client._client.is_closed() for client in made)


def test_text_track_starts_from_the_symbolic_worlds(clean):
    _, summary, _ = clean
    env = protocol.make_env("easy", STEPS, SMALL)
    for i, episode in enumerate(_episodes(summary)):
        env.reset(seed=protocol.BASE_SEED + i)
        assert episode["world"] == world_fingerprint(env.core_state)
    env.reset(seed=protocol.BASE_SEED + 5)
    assert world_fingerprint(env.core_state) not in {e["world"] for e in _episodes(summary)}


def test_cli_runs_the_llm_policy(tmp_path, capsys):
    with LocalServer() as server:
        code = evaluate.main([
            "--policy", "llm", "--base-url", server.url, "--model", "rule",
            "--episodes", "1", "--difficulties", "easy", "--max-steps", "3",
            "--out", str(tmp_path / "cli"), "--map-size", "16", "--num-levels", "1",
            "--no-progress", "--resamples", "20",
        ])  # fmt: skip
    assert code == 0 and "easy: " in capsys.readouterr().out
    summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert summary["protocol"]["seeds"] == [protocol.BASE_SEED]
    assert summary["protocol"]["bootstrap"]["resamples"] == 20
    assert summary["protocol"]["obs_type"] == "text"
    assert summary["results"]["easy"]["per_episode"][0]["steps"] == 3


def test_config_file_mixes_models_per_agent(tmp_path):
    with LocalServer() as server:
        clients = [{"model": f"model-{k}", "retry_delay": 0.01} for k in range(3)]
        config_file = tmp_path / "harness.json"
        config_file.write_text(json.dumps({"clients": clients, "workers": 1, "parse_retries": 1}))
        config = load_config(str(config_file), base_url=server.url, model=None)
        assert [c.model for c in config.clients] == ["model-0", "model-1", "model-2"]
        assert config.parse_retries == 1 and config.workers == 1
        evaluate_llm(config, tmp_path / "mixed", episodes=1, max_steps=2, difficulties=["easy"],
                     static=SMALL, resamples=10, progress=False)  # fmt: skip
    assert server.routes == {(f"model-{k}", k): 2 for k in range(3)}
    config_file.write_text(json.dumps({"clients": [{"model": "m", "api_key": KEY}]}))
    with pytest.raises(ValueError, match="api_key_env"):
        load_config(str(config_file))
    with pytest.raises(ValueError, match="unknown client config"):
        ClientConfig.from_dict({"model": "m", "temprature": 0.5})
