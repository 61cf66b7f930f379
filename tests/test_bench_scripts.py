"""The benchmark scripts run (their figures belong in ``bench/records/``, not in tests).

``bench/gpu.sh`` waits for a GPU machine: this runs it on the CPU with a tiny N and the small
world, so the day a GPU is lent the script is known to work. It compiles two scans of the small
world and the paper's IPPO trainer in fresh processes (minutes on two cores), so it is marked
slow.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_pz.envs.parallel import DEFAULT_MAX_STEPS
from bench import common, training_regime

ROOT = Path(__file__).resolve().parents[1]


def test_training_regime_ends_episodes_on_the_default_horizon():
    assert common.HORIZON == DEFAULT_MAX_STEPS


@pytest.mark.slow
def test_gpu_script_runs_on_the_cpu_with_a_tiny_world(tmp_path):
    env = os.environ | {
        "OUT": str(tmp_path),
        "PYTHON": sys.executable,
        "STEPS": "8",
        "ARGS": "--small",
        "TRAIN_WORLDS": "8",  # the preset's 8 minibatches of whole worlds
        "UPDATES": "2",
        "JAX_COMPILATION_CACHE_DIR": jax.config.jax_compilation_cache_dir or "",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        ["bash", str(ROOT / "bench" / "gpu.sh"), "2"],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((tmp_path / "gpu.json").read_text())
    (row,) = record["rows"]
    assert row["worlds"] == 2 and set(row) >= {"bare", "scan"}
    assert row["scan"]["env_steps_per_s"] > 0 and row["bare"]["env_steps_per_s"] > 0
    assert row["scan"]["steps"] == training_regime.ROLLOUT  # whole rollouts, at least one
    assert "N=2 | bare" in done.stdout
    trained = json.loads((tmp_path / "gpu_train" / "gpu_train.json").read_text())
    assert trained["config"]["network"] == "gru" and trained["env_steps"] == 2 * 8 * 64
    assert trained["trainer_env_steps_per_s"] > 0 and trained["world_env_steps_per_s"] > 0
    assert (tmp_path / "gpu_train" / "policy.npz").exists()


@pytest.mark.slow
def test_training_regime_times_every_path_on_the_small_world():
    """Each path of the headline benchmark runs, counts the steps it ran and is held to the bare
    step with its observation kept (the steps are few: the figures mean nothing here)."""
    paths = list(training_regime.PATHS)
    if importlib.util.find_spec("jaxmarl") is None:  # an optional extra (CI's stage 2 has it)
        paths.remove("jaxmarl")
    (row,) = training_regime.measure([2], 8, paths, small=True)
    assert set(row) == {"worlds", "steps", *paths}
    for name in ("make_vec", "runner"):
        assert row[name]["steps"] == 8, name  # one host call per step
    for name in {"bare", "bare_summed", "scan", "jaxmarl"} & set(paths):
        assert row[name]["steps"] == training_regime.ROLLOUT, name  # one whole rollout
    for name in set(paths) - {"bare"}:
        assert row[name]["of_bare"] > 0, name
    if "jaxmarl" in paths:
        assert row["jaxmarl"]["of_scan"] > 0


@pytest.mark.slow
def test_call_overhead_fits_a_step_and_a_call_cost_from_two_call_sizes():
    from bench import call_overhead

    row = call_overhead.measure(2, [1, 2], rounds=1, small=True)
    assert set(row["ms_per_step"]) == {1, 2} and min(row["ms_per_step"].values()) > 0
    # the fit reproduces both measured points
    for k, ms in row["ms_per_step"].items():
        assert row["fit_step_ms"] + row["fit_call_ms"] / k == pytest.approx(ms)


def test_stage_costs_counts_the_instructions_inside_fusions():
    from bench.stage_costs import fused_ops

    def chain(x):
        return jnp.sin(x) * 2.0 + 1.0

    one = jax.jit(chain).lower(jnp.ones(8)).compile().as_text()
    two = jax.jit(lambda x: chain(chain(x))).lower(jnp.ones(8)).compile().as_text()
    assert 3 <= fused_ops(one) < fused_ops(two)


def test_stage_costs_parts_trace_and_the_compile_table_counts_kernels():
    """Every part ``stage_costs`` times or compiles traces on the small world (a renamed core
    function once broke the observation part unseen), and the compile table counts kernels."""
    import alem_core
    from bench import stage_costs

    static = alem_core.StaticParams(**common.SMALL)
    params = alem_core.make_params("medium").as_arrays()
    states, actions = stage_costs.world_shapes(params, static)
    table, whole = stage_costs.parts(params, static)
    for name, fn in {"whole step": whole, **table}.items():
        out = jax.eval_shape(fn, states, actions, jax.random.key(0))
        assert jax.tree.structure(out) == jax.tree.structure(states), name
    rows = stage_costs.compile_costs(params, static, names={"step", "books"}, worlds=2)
    assert set(rows) == {"step", "books"}
    assert rows["step"].kernels > rows["books"].kernels > 0
    assert rows["step"].ops > rows["books"].ops >= rows["books"].kernels  # an op or more each
    # the step writes at least its observation; a fresh output state costs more than a donated one
    assert rows["step"].kb_per_world > rows["books"].kb_per_world > 0
    assert rows["step"].kb_per_world_fresh > rows["step"].kb_per_world
    # every kernel is counted once, under the stage whose named scope it carries
    assert sum(rows["step"].by_stage.values()) == rows["step"].kernels
    assert {"observation", "mobs", "do_phase"} <= set(rows["step"].by_stage)


def test_xla_kernel_cost_counts_the_kernels_of_its_chain():
    from bench import xla_kernel_cost

    short, longer = xla_kernel_cost.measure(2, calls=3), xla_kernel_cost.measure(8, calls=3)
    assert 0 < short["kernels"] < longer["kernels"]
    assert short["compile_s"] > 0 and short["call_us"] > 0
    layered = xla_kernel_cost.measure(2, length=3, options={"xla_backend_optimization_level": 1})
    assert layered["kernels"] == short["kernels"] and layered["ops"] > short["ops"]


def test_every_record_is_indexed_by_the_tool_that_wrote_it():
    """bench/records/README.md's index has a row whose pattern matches every record file."""
    import fnmatch
    import re

    readme = (ROOT / "bench" / "records" / "README.md").read_text()
    index = readme.split("| records |", 1)[1].split("\n\n", 1)[0]
    patterns = [
        p for row in index.splitlines()[2:] for p in re.findall(r"`([^`]+)`", row.split("|")[1])
    ]
    records = [p.name for p in (ROOT / "bench" / "records").iterdir() if p.suffix != ".md"]
    unindexed = [r for r in records if not any(fnmatch.fnmatch(r, p) for p in patterns)]
    assert unindexed == []


def test_the_digest_comparison_names_the_first_step_and_leaves_that_differ(capsys):
    """``python -m bench.digest --compare``: equal runs pass; a run that parts at one step is
    named there, with the leaves that differ, and fails."""
    from bench import digest

    run = [{"obs": "a", "state.x": "b"}, {"obs": "c", "state.x": "d"}]
    assert digest.compare(run, [dict(step) for step in run]) == 0
    changed = [run[0], {"obs": "c", "state.x": "e"}]
    assert digest.compare(run, changed) == 1
    out = capsys.readouterr().out
    assert "first difference at step 1" in out and "state.x" in out
    assert digest.compare(run, run[:1]) == 1


def test_the_faces_digest_comparison_names_each_face_where_two_runs_part(capsys):
    """``python -m bench.faces_digest --compare``: equal runs pass; a face that parts at one
    record is named there with its leaves, a face missing from one run and a shorter run are
    named, and each fails."""
    from bench import faces_digest

    run = {
        "parallel": [{"['reset'][0]": "a"}, {"['step'][1]": "b"}],
        "room": [{"['hud'][0]": "c"}],
    }
    copy = {face: [dict(r) for r in records] for face, records in run.items()}
    assert faces_digest.compare(run, copy) == 0
    assert "parallel: identical over 2 records" in capsys.readouterr().out
    changed = copy | {"parallel": [run["parallel"][0], {"['step'][1]": "x"}]}
    assert faces_digest.compare(run, changed) == 1
    out = capsys.readouterr().out
    assert "parallel: first difference at record 1" in out and "['step'][1]" in out
    assert "room: identical" in out
    assert faces_digest.compare(run, {"parallel": run["parallel"]}) == 1
    assert "room: only in A" in capsys.readouterr().out
    assert faces_digest.compare(run, run | {"parallel": run["parallel"][:1]}) == 1
    assert "the first 1 records agree; 2 vs 1" in capsys.readouterr().out
    assert faces_digest.totals(run)["total"] == faces_digest.totals(copy)["total"]
    assert faces_digest.totals(run)["total"] != faces_digest.totals(changed)["total"]
    # leaves: arrays by dtype, shape and bytes, floats by their bits, dicts in any key order
    record = faces_digest.record
    assert record({"r": np.zeros(2, np.float32)}) != record({"r": np.zeros(2, np.float64)})
    assert record({"r": 0.1 + 0.2}) != record({"r": 0.3}) and record({"r": None})["['r']"]
    assert record({"a": 1, "b": [2.5, "x"]}) == record({"b": [2.5, "x"], "a": 1})
