#!/usr/bin/env bash
# The GPU run, ready before a GPU is: from the repository root on a machine with JAX for its
# accelerator (no install: the scan and bare paths import only alem_core, jax and numpy, so
# neither PettingZoo nor Gymnasium needs to be there):
#
#     bash bench/gpu.sh [N ...]            # default N = 1024 4096 16384
#
# For each N it prints the training-regime throughput (bench/training_regime.py) of the scan
# path (auto-reset inside a jitted lax.scan, as alem_train runs it) and of the bare step, their
# compile times and the device's peak memory, and writes them as JSON to ${OUT:-.}/gpu.json.
# Sized to fit in 8 minutes on one H200; PYTHON picks the interpreter (default python3).
# tests/test_bench_scripts.py runs it on the CPU with a tiny N and the small world (ARGS).
set -euo pipefail
cd "$(dirname "$0")/.."
worlds=("${@:-1024 4096 16384}")
# shellcheck disable=SC2206  # word splitting of the default list is wanted
worlds=(${worlds[*]})
"${PYTHON:-python3}" -c "import jax; print('devices:', jax.devices())"
"${PYTHON:-python3}" -m bench.training_regime --paths bare scan --worlds "${worlds[@]}" \
  --steps "${STEPS:-512}" --json "${OUT:-.}/gpu.json" ${ARGS:-}
