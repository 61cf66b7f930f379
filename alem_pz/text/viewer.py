"""A self-contained HTML viewer for one episode's trace (docs/language-agents.md#run-directories).

One file per episode, no server and no network: the trace is embedded as JSON and a small
script steps through it. Per step, each agent's card shows its frame (its 9 x 11 view as an
ASCII map), the observation text it read, the action parsed, its message, its private note and
its reasoning; a timeline lists the achievements as they were unlocked (read from the
observations' feedback lines).

    python -m alem_pz.text.viewer RUN_DIR/easy/episode_0.trace.jsonl   # writes episode_0.html
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

_UNLOCKED = re.compile(r"Achievements unlocked: (.+)")
_FIELDS = (
    "frame",
    "observation",
    "action",
    "status",
    "message",
    "note",
    "reasoning",
    "plan",
    "reply",
)

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; background: #f6f6f2; }}
#bar {{ position: sticky; top: 0; background: #f6f6f2; padding: .5em 0; }}
#cards {{ display: flex; gap: 1em; align-items: flex-start; }}
.card {{ flex: 1; background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: .6em;
  min-width: 0; }}
.card h3 {{ margin: 0 0 .4em 0; }}
pre {{ white-space: pre-wrap; font-size: 11px; max-height: 28em; overflow: auto;
  background: #fafafa; border: 1px solid #eee; padding: .4em; }}
.frame {{ font-size: 14px; line-height: 1.1; background: #1e1e1e; color: #e8e8d0; }}
.failed {{ color: #b00; }} .label {{ font-weight: bold; }}
#timeline li {{ cursor: pointer; }} #timeline li:hover {{ text-decoration: underline; }}
</style></head><body>
<h2>{title}</h2>
<div id="bar"><button id="prev">&larr; prev</button>
<input id="slider" type="range" min="0" max="0" value="0" style="width:50%">
<button id="next">next &rarr;</button> <span id="where"></span></div>
<div id="cards"></div>
<h3>Achievement timeline</h3><ol id="timeline"></ol>
<script id="trace" type="application/json">{data}</script>
<script>
const trace = JSON.parse(document.getElementById("trace").textContent);
const steps = trace.steps, slider = document.getElementById("slider");
slider.max = Math.max(steps.length - 1, 0);
function esc(s) {{
  const d = document.createElement("div"); d.textContent = s || ""; return d.innerHTML; }}
function show(k) {{
  k = Math.max(0, Math.min(steps.length - 1, k)); slider.value = k;
  const step = steps[k];
  document.getElementById("where").textContent = "step " + step.step + " / " + (steps.length - 1);
  document.getElementById("cards").innerHTML = step.agents.map(a =>
    '<div class="card"><h3>Agent ' + a.agent + (a.inactive ? " (inactive)" : "") + '</h3>' +
    '<div><span class="label">Action:</span> <span class="' + (a.status === "ok" ? "" : "failed") +
    '">' + esc(a.action) + (a.status === "ok" ? "" : " (" + esc(a.status) + ")") + '</span></div>' +
    '<div><span class="label">Message:</span> ' + esc(a.message) + '</div>' +
    '<div><span class="label">Note:</span> ' + esc(a.note) + '</div>' +
    '<div><span class="label">Reasoning:</span> ' + esc(a.reasoning || a.plan) + '</div>' +
    (a.frame ? '<pre class="frame">' + esc(a.frame) + '</pre>' : '') +
    '<div class="label">Observation:</div><pre>' + esc(a.observation) + '</pre>' +
    '<details><summary>raw reply</summary><pre>' + esc(a.reply) + '</pre></details></div>'
  ).join("");
}}
document.getElementById("timeline").innerHTML = trace.timeline.map(e =>
  '<li data-k="' + e.index + '">step ' + e.step + ': Agent ' + e.agent + ' unlocked ' +
  esc(e.achievements) + '</li>').join("") || "<li>none</li>";
document.querySelectorAll("#timeline li[data-k]").forEach(li =>
  li.addEventListener("click", () => show(+li.dataset.k)));
slider.addEventListener("input", () => show(+slider.value));
document.getElementById("prev").onclick = () => show(+slider.value - 1);
document.getElementById("next").onclick = () => show(+slider.value + 1);
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowLeft") show(+slider.value - 1);
  if (e.key === "ArrowRight") show(+slider.value + 1); }});
show(0);
</script></body></html>
"""


def load_trace(path: str | Path) -> tuple[list[dict], dict | None]:
    """(step records, final record or None) of a JSONL trace."""
    steps, end = [], None
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("end"):
            end = record
        elif "agents" in record:
            steps.append(record)
    return steps, end


def timeline(steps: list[dict]) -> list[dict]:
    """Achievement unlocks in order: the feedback at step t reports step t - 1's unlocks."""
    events = []
    for k, step in enumerate(steps):
        for agent in step["agents"]:
            match = _UNLOCKED.search(agent.get("observation", ""))
            if match:
                events.append(
                    {"index": k, "step": step["step"] - 1, "agent": agent["agent"],
                     "achievements": match.group(1)}
                )  # fmt: skip
    return events


def render_html(steps: list[dict], title: str) -> str:
    """The viewer page for ``steps`` (trace records)."""
    slim = [
        {"step": s["step"], "agents": [
            {k: a.get(k, "") for k in ("agent", "inactive", *_FIELDS)} for a in s["agents"]
        ]}
        for s in steps
    ]  # fmt: skip
    data = json.dumps({"steps": slim, "timeline": timeline(steps)})
    data = data.replace("</", "<\\/")  # keep "</script>" inside replies from closing the tag
    return _PAGE.format(title=html.escape(title), data=data)


def write_viewer(trace_path: str | Path, out: str | Path | None = None) -> Path:
    """Write the viewer of a trace beside it (``episode_<i>.html``) or to ``out``."""
    trace_path = Path(trace_path)
    steps, _ = load_trace(trace_path)
    name = trace_path.name.split(".")[0]
    target = Path(out) if out else trace_path.with_name(f"{name}.html")
    target.write_text(render_html(steps, f"alem episode trace: {trace_path.parent.name}/{name}"))
    return target


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(write_viewer(arg))
