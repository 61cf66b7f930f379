"""``alem-evaluate``: the evaluation protocol (``alem_pz.protocol``) from the command line.

Command line::

    python -m alem_pz.evaluate --policy greedy --episodes 20 --max-steps 1000 --out greedy.json
    python -m alem_pz.evaluate --policy mypkg.agents:policy --difficulties easy,hard
    alem-evaluate --policy text-rule --episodes 20          # the rule agent on text observations
    alem-evaluate --policy runs/ippo/policy.npz             # a trained policy (alem_train)
    alem-evaluate --policy llm --base-url URL --model NAME [--api-key-env VAR] [--config FILE] \
        --episodes K --difficulties easy,medium --max-steps S --out DIR   (alem_pz.text.harness)
    alem-evaluate --policy greedy --episodes 20 --plot greedy.png   # also the scores as bars
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import alem_core
from alem_pz.policies import load_policy
from alem_pz.protocol import DIFFICULTIES, evaluate


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--policy",
        default="random",
        help="random | greedy | text-rule | llm | PATH/policy.npz | module:function",
    )
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--max-steps", type=int, default=10000)
    parser.add_argument("--difficulties", default=",".join(DIFFICULTIES))
    parser.add_argument(
        "--out", default=None, help="JSON path (default eval_<policy>.json); a run dir for llm"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the built-in policies")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (module docstring); writes the summary JSON to ``--out``."""
    args = _parser().parse_args(argv)
    difficulties = [d.strip() for d in args.difficulties.split(",") if d.strip()]
    if args.policy == "llm":
        summary = _run_llm(args, difficulties)
        out = str(Path(args.out or "llm_run") / "summary.json")
    else:
        summary = evaluate(
            load_policy(args.policy, seed=args.seed),
            **_cli_protocol(args, difficulties),
            policy_name=args.policy,
            obs_type="text" if args.policy == "text-rule" else "symbolic",
        )
        out = args.out or f"eval_{args.policy.replace(':', '_').replace('.', '_')}.json"
        with open(out, "w") as f:
            json.dump(summary, f, indent=1)
    for difficulty, result in summary["results"].items():
        parts = [
            f"{k.split('/')[1]}={v['mean']:.4f} [{v['ci_low']:.4f}, {v['ci_high']:.4f}]"
            for k, v in result["headline"].items()
        ]
        print(f"{difficulty}: " + "  ".join(parts))
    print(f"wrote {out}")
    if args.plot:
        from alem_pz.plots import save_comparison

        print(f"wrote {save_comparison(summary, args.plot)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
