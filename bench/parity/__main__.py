"""``python -m bench.parity SUBCOMMAND``: the one command line of the parity tools.

Options are declared here and each tool is imported only when its subcommand runs, so that
``--help`` needs neither JAX nor either package, and the speed check's first ``import jax`` is
still the one it times. A subcommand that plays the published package (``--peer``, ``speed``)
is handed to the published package's interpreter when this one cannot import it
(``peer.relaunch``), so every command can be typed with alem's Python.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from bench.parity import peer

TEAMS = ("random", "masked", "greedy")


def _sides(parser: argparse.ArgumentParser, compare: str | None = None) -> None:
    """``--peer`` / ``--ours`` (and ``--compare PEER OURS`` with files of suffix ``compare``)."""
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--peer", action="store_true", help="play the published alem-env")
    mode.add_argument("--ours", action="store_true", help="play alem_core")
    if compare:
        metavar = (f"PEER.{compare}", f"OURS.{compare}")
        mode.add_argument("--compare", nargs=2, metavar=metavar, help="table")


def _tool(sub, name: str, target: str, text: str) -> argparse.ArgumentParser:
    """A subcommand whose handler is ``module:function`` of this package."""
    parser = sub.add_parser(name, help=text, description=text)
    parser.set_defaults(target=target)
    return parser


def _compare(sub) -> None:
    p = _tool(sub, "compare", "episodes:main", "whole episodes, ours vs the published package")
    _sides(p, "npz")
    p.add_argument("--out", help="output .npz for --peer / --ours")
    p.add_argument("--worlds", type=int, default=64, help="N worlds (default 64)")
    p.add_argument("--steps", type=int, default=400, help="T steps (default 400)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--team", choices=TEAMS, default="random")
    p.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")


def _floors(sub) -> None:
    p = _tool(sub, "floors", "floors:main", "per-floor parity, floors 1-8 (play or chests)")
    _sides(p, "npz")
    p.add_argument("--mode", choices=("play", "chests"), default="play")
    p.add_argument("--out", help="output .npz for --peer / --ours")
    p.add_argument("--worlds", type=int, default=64, help="N worlds per floor")
    p.add_argument("--steps", type=int, default=200, help="T steps (play)")
    p.add_argument("--team", choices=TEAMS, default="random")
    p.add_argument("--rounds", type=int, default=4, help="chest rounds (chests)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")


def _census(sub) -> None:
    p = _tool(sub, "census", "census:main", "world-generation census of every floor")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--peer", action="store_true", help="census of the published alem-env")
    mode.add_argument("--ours", action="store_true", help="census of alem_core.worldgen")
    mode.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"), help="print table")
    p.add_argument("--json", help="output path for --peer / --ours")
    p.add_argument("--seeds", type=int, default=50, help="number of worlds (default 50)")
    p.add_argument(
        "--flag", type=float, default=1.0, help="list differences beyond this many peer sd"
    )


def _speed(sub) -> None:
    p = _tool(sub, "speed", "speed:main", "timing of the published package's step")
    p.add_argument("--quick", action="store_true", help="overworld-only (Debug) variant only")
    p.add_argument("--json", help="write results as JSON to this path")
    p.add_argument("--difficulty", default="medium")
    p.add_argument("--n-envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=100, help="lax.scan length")
    p.add_argument("--latency-steps", type=int, default=200)
    p.add_argument(
        "--autoreset",
        action="store_true",
        help="also time a scan with the auto-reset `step` (compile ~5 min/variant)",
    )
    p.add_argument("--no-full-info", action="store_true", help="compute_full_info=False")


def _probes(sub) -> None:
    probe = sub.add_parser("probe", help="hand-built black-box scenarios, either side")
    kinds = probe.add_subparsers(dest="probe", required=True, metavar="PROBE")
    scenarios = {
        "handover": "a handover started by player 1, step by step",
        "sapling": "saplings and wood per Do on TREE, GRASS and a cow",
        "blocked": "a Do on a teammate on GRASS and on WATER holding a cow",
        "arrival": "XP and achievements of teams arriving on floors 1-8 by DESCEND",
    }
    for name, text in scenarios.items():
        p = _tool(kinds, name, "probes:main", text)
        p.set_defaults(scenario=name)
        _sides(p)
    p = _tool(kinds, "death", "health_probes:death_main", "what kills an agent, replayed")
    _sides(p)
    p.add_argument("--worlds", type=int, default=32)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the rows here")
    p = _tool(kinds, "needs", "health_probes:needs_main", "health under needs held at 0")
    _sides(p, "json")
    p.add_argument("--out", help="JSON output for --peer / --ours")
    p.add_argument("--steps", type=int, default=300)


def parser() -> argparse.ArgumentParser:
    """The whole command line (``python -m bench.parity --help``)."""
    top = argparse.ArgumentParser(
        prog="python -m bench.parity",
        description="Parity tools: alem_core against the published alem-env (black box).",
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    for add in (_compare, _floors, _census, _speed, _probes):
        add(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    """Parse, hand a peer run to the peer's interpreter if need be, and run the tool."""
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    if (args.command == "speed" or getattr(args, "peer", False)) and not peer.available():
        return peer.relaunch(argv)
    module, function = args.target.split(":")
    return getattr(importlib.import_module(f"bench.parity.{module}"), function)(args)


if __name__ == "__main__":
    sys.exit(main())
