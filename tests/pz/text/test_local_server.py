"""The fault-injecting local server in a process of its own (``python -m
alem_pz.text.local_server``, as the soak runs it) faults exactly like the in-process one, and
both report their counts at ``/stats``."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

from alem_pz.text.local_server import LocalServer, fetch_stats

FAULTS = {"429": 0.2, "500": 0.1, "garble": 0.2, "truncate": 0.1}


def _post_all(url: str) -> None:
    for i in range(30):
        messages = [{"role": "system", "content": "You are Agent 1"},
                    {"role": "user", "content": f"Step {i}"}]  # fmt: skip
        body = json.dumps({"model": "rule", "messages": messages}).encode()
        request = urllib.request.Request(f"{url}/chat/completions", body, method="POST")
        request.add_header("Content-Type", "application/json")
        for _ in range(2):  # a transport fault hits the first attempt only
            try:
                urllib.request.urlopen(request, timeout=10).read()
                break
            except urllib.error.HTTPError:
                continue


def test_child_process_faults_like_the_in_process_server():
    with LocalServer(FAULTS) as server:
        _post_all(server.url)
        in_process = fetch_stats(server.url)
        assert in_process == dict(server.stats)
    assert all(in_process.get(kind, 0) > 0 for kind in FAULTS)
    command = [sys.executable, "-m", "alem_pz.text.local_server", "--faults", json.dumps(FAULTS)]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = child.stdout.readline().strip()
        _post_all(url)
        assert fetch_stats(url) == in_process
    finally:
        child.stdin.close()  # closing its input stops it
        assert child.wait(timeout=30) == 0
