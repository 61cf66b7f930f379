"""JaxMARL's own masked IPPO and MAPPO baselines on alem, with only the line that builds the env
changed, for two jitted updates on the small world; counts the masked actions they sample.

    git clone https://github.com/FLAIROx/JaxMARL        # their scripts stay in their checkout
    pip install -e ".[jaxmarl]" "jaxmarl[algs]"
    python -m bench.jaxmarl_baselines JaxMARL/baselines [--json F]

For each script in ``SCRIPTS`` a copy is made in a temporary directory with the env line
replaced by ``env = AlemJaxMARL(**config["ENV_KWARGS"])`` (nothing else changes), the script's
own yaml config is read as hydra reads it, the sizes are cut (``SIZES``) and its
``make_train(config)`` is jitted and run. Each update's metrics reach the scripts' own
``io_callback``; a spy in front of it keeps them, and the env's ``illegal_action`` info counts
the actions sampled outside the mask (it must stay 0). ``mappo_ff_hanabi.py`` is not run: it
sizes its critic for Hanabi's 658 inputs in the code.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.experimental
import numpy as np

SCRIPTS = {  # script: (its config, the line that builds the env)
    "IPPO/ippo_ff_hanabi.py": ("IPPO/config/ippo_ff_hanabi.yaml", r"env = jaxmarl\.make\(.*\)"),
    "IPPO/ippo_rnn_smax.py": ("IPPO/config/ippo_rnn_smax.yaml", r"env = HeuristicEnemySMAX\(.*\)"),
    "MAPPO/mappo_rnn_smax.py": (
        "MAPPO/config/mappo_homogenous_rnn_smax.yaml",
        r"env = HeuristicEnemySMAX\(.*\)",
    ),
}
SIZES = dict(NUM_ENVS=4, NUM_STEPS=16, TOTAL_TIMESTEPS=2 * 4 * 16, NUM_MINIBATCHES=2,
             UPDATE_EPOCHS=1, NUM_SEEDS=1, WANDB_MODE="disabled", ENTITY="")  # fmt: skip
"""Two updates of 4 envs x 16 steps; the rest of each script's config is its own."""
HORIZON = 12


def changed_copy(baselines: Path, script: str, env_line: str, into: Path) -> Path:
    """The script with its env line (and only it) replaced; fails if the line is not found."""
    text = (baselines / script).read_text()
    changed, count = re.subn(env_line, 'env = AlemJaxMARL(**config["ENV_KWARGS"])', text)
    if count != 1:
        raise SystemExit(f"{script}: expected one line matching {env_line!r}, found {count}")
    path = into / Path(script).name
    path.write_text(changed)
    return path


def run_one(baselines: Path, script: str, workdir: Path) -> dict:
    from omegaconf import OmegaConf

    import alem_core
    from alem_pz.envs.jaxmarl import AlemJaxMARL

    config_file, env_line = SCRIPTS[script]
    config = OmegaConf.to_container(OmegaConf.load(baselines / config_file))  # as hydra reads it
    small = alem_core.StaticParams(player_count=3, map_size=(16, 16), num_levels=1)
    env_kwargs = dict(static=small, max_steps=HORIZON, world_state=script.startswith("MAPPO"))
    config.update(SIZES, ENV_KWARGS=env_kwargs)
    spec = importlib.util.spec_from_file_location(
        "baseline", changed_copy(baselines, script, env_line, workdir)
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.AlemJaxMARL = AlemJaxMARL  # the name the changed line uses
    seen = []
    real = jax.experimental.io_callback

    def spy(callback, result_shape, metric, *args, **kwargs):
        def keep(m):
            seen.append(jax.tree.map(np.asarray, m))

        return real(keep, result_shape, metric, *args, **kwargs)

    jax.experimental.io_callback = spy
    try:
        start = time.perf_counter()
        jax.block_until_ready(jax.jit(module.make_train(config))(jax.random.PRNGKey(0)))
        seconds = time.perf_counter() - start
    finally:
        jax.experimental.io_callback = real
    return {
        "script": script,
        "updates": len(seen),
        "seconds_with_compile": round(seconds, 1),
        "illegal_actions": [int(m["illegal_action"].sum()) for m in seen],
        "actions": [int(m["illegal_action"].size) for m in seen],
        "episodes_ended": [int(m["returned_episode"].sum()) // 3 for m in seen],
    }


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baselines", type=Path, help="the baselines/ folder of a JaxMARL clone")
    parser.add_argument("--scripts", nargs="+", default=list(SCRIPTS), choices=list(SCRIPTS))
    parser.add_argument("--json", default=None)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for script in args.scripts:
            row = run_one(args.baselines, script, Path(workdir))
            print(f"{script}: {row['updates']} updates in {row['seconds_with_compile']} s "
                  f"(compile included); masked actions sampled {row['illegal_actions']} of "
                  f"{row['actions']}; episodes ended {row['episodes_ended']}")  # fmt: skip
            rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps({"jax": jax.__version__, "rows": rows}, indent=1))
    bad = [r["script"] for r in rows if r["updates"] != 2 or any(r["illegal_actions"])]
    if bad:
        raise SystemExit(f"failed: {bad}")
    return rows


if __name__ == "__main__":
    main()
