"""``alem-evaluate``: the evaluation protocol (``alem_pz.evaluation.protocol``) from the command
line.

Command line::

    python -m alem_pz.evaluation.cli --policy greedy --episodes 20 --max-steps 1000 \
        --out greedy.json
    python -m alem_pz.evaluation.cli --policy mypkg.agents:policy --difficulties easy,hard
    alem-evaluate --policy text-rule --episodes 20          # the rule agent on text observations
    alem-evaluate --policy runs/ippo/policy.npz             # a trained policy (alem_train)
    alem-evaluate --policy llm --base-url URL --model NAME [--api-key-env VAR] [--config FILE] \
        --episodes K --difficulties easy,medium --max-steps S --out DIR   (alem_pz.text.harness)
    alem-evaluate --policy greedy --episodes 20 --plot greedy.png   # also the scores as bars
    alem-evaluate --policy greedy --policy random --out evals/ --plot evals/cmp.png
    alem-evaluate --compare evals/eval_greedy.json evals/eval_random.json   # P(improvement)

Each summary JSON gets a CSV beside it (``alem_pz.evaluation.report``: one row per agent, difficulty
and metric). Several ``--policy`` flags evaluate each in turn (``--out`` is then a directory);
``--plot`` draws the bars and, for the agents evaluated, rliable's interval plot and performance
profile (``<stem>_intervals.png``, ``<stem>_profile.png``). ``--compare A B`` reads two summaries
(JSON files or run directories) and prints the probability that an episode of A scores above one of
B on ``--metric``, per difficulty, with its 95 % interval.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import alem_core
from alem_pz.evaluation.policies import load_policy
from alem_pz.evaluation.protocol import DIFFICULTIES, evaluate
from alem_pz.evaluation.report import DEFAULT_METRIC, compare, load_summary, write_csv


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--policy",
        action="append",
        help="random | greedy | text-rule | llm | PATH/policy.npz | module:function; repeatable"
        " (default random)",
    )
    parser.add_argument(
        "--compare", nargs=2, metavar=("A", "B"), help="print P(A > B) of two summaries and exit"
    )
    parser.add_argument("--metric", default=DEFAULT_METRIC, help="score of --compare and --plot")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--max-steps", type=int, default=10000)
    parser.add_argument("--difficulties", default=",".join(DIFFICULTIES))
    parser.add_argument(
        "--out",
        default=None,
        help="JSON path (default eval_<policy>.json); a directory with several --policy; a run"
        " dir for llm",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the built-in policies")
    parser.add_argument(
        "--greedy", action="store_true",
        help="a policy file plays its most likely legal action instead of sampling",
    )  # fmt: skip
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--map-size", type=int, default=None, help="square map side (tests)")
    parser.add_argument("--num-levels", type=int, default=None, help="floors (tests)")
    parser.add_argument(
        "--plot", default=None, help="also draw the scores to this image (needs matplotlib)"
    )
    llm = parser.add_argument_group("--policy llm (alem_pz.text.harness)")
    llm.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint")
    llm.add_argument("--model", default=None)
    llm.add_argument("--api-key-env", default=None, help="variable holding the API key")
    llm.add_argument("--config", default=None, help="harness JSON (clients per agent, ...)")
    return parser


def _shapes(args: argparse.Namespace) -> alem_core.StaticParams | None:
    if args.map_size is None and args.num_levels is None:
        return None
    defaults = alem_core.StaticParams()
    size = (args.map_size, args.map_size) if args.map_size else defaults.map_size
    return alem_core.StaticParams(map_size=size, num_levels=args.num_levels or defaults.num_levels)


def _run_llm(args: argparse.Namespace, difficulties: list[str]) -> dict[str, Any]:
    from alem_pz.text.harness import evaluate_llm, load_config

    config = load_config(
        args.config, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
    )
    return evaluate_llm(config, args.out or "llm_run", **_cli_protocol(args, difficulties))


def _cli_protocol(args: argparse.Namespace, difficulties: list[str]) -> dict[str, Any]:
    """The protocol settings both runners (RL and LLM) take from the command line."""
    return dict(
        episodes=args.episodes,
        max_steps=args.max_steps,
        difficulties=difficulties,
        static=_shapes(args),
        resamples=args.resamples,
        progress=not args.no_progress,
    )


def _json_path(args: argparse.Namespace, policy: str) -> Path:
    name = f"eval_{policy.replace(':', '_').replace('.', '_').replace('/', '_')}.json"
    if len(args.policy) > 1:
        return Path(args.out or ".") / name
    return Path(args.out or name)


def _run_one(args: argparse.Namespace, policy: str, difficulties: list[str]) -> dict[str, Any]:
    """Evaluate ``policy``, write its JSON and CSV, print its headline scores."""
    if policy == "llm":
        summary = _run_llm(args, difficulties)
        out = Path(args.out or "llm_run") / "summary.json"
    else:
        try:
            loaded = load_policy(policy, seed=args.seed, greedy=args.greedy)
        except ValueError as err:  # a bad name or option: the usage line, not a traceback
            raise SystemExit(f"alem-evaluate: error: {err}") from None
        summary = evaluate(
            loaded,
            **_cli_protocol(args, difficulties),
            policy_name=f"{policy} --greedy" if args.greedy else policy,
            obs_type="text" if getattr(loaded, "needs_text", False) else "symbolic",
        )
        out = _json_path(args, policy)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(summary, indent=1))
    for difficulty, result in summary["results"].items():
        parts = [
            f"{k.split('/')[1]}={v['mean']:.4f} [{v['ci_low']:.4f}, {v['ci_high']:.4f}]"
            for k, v in result["headline"].items()
        ]
        print(f"{policy} {difficulty}: " + "  ".join(parts))
    print(f"wrote {out} and {write_csv({policy: summary}, out.with_suffix('.csv'))}")
    return summary


def _print_comparison(args: argparse.Namespace) -> None:
    a, b = (load_summary(p) for p in args.compare)
    names = [s["protocol"].get("policy", p) for s, p in zip((a, b), args.compare, strict=True)]
    print(f"P({names[0]} > {names[1]}) on {args.metric} (95 % interval, rliable):")
    for row in compare(a, b, args.metric, seed=args.seed):
        low, high = row["ci_low"], row["ci_high"]
        print(f"  {row['difficulty']:<8} {row['p']:.3f} [{low:.3f}, {high:.3f}]")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (module docstring); writes each summary's JSON and CSV."""
    args = _parser().parse_args(argv)
    if args.compare:
        _print_comparison(args)
        return 0
    args.policy = args.policy or ["random"]
    difficulties = [d.strip() for d in args.difficulties.split(",") if d.strip()]
    summaries = {policy: _run_one(args, policy, difficulties) for policy in args.policy}
    if args.plot:
        from alem_pz.evaluation.plots import save_comparison
        from alem_pz.evaluation.report import save_rliable_figures

        print(f"wrote {save_comparison(summaries, args.plot)}")
        for path in save_rliable_figures(summaries, args.plot, args.metric):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
