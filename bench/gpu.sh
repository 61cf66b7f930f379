#!/usr/bin/env bash
# The GPU run, ready before a GPU is: from the repository root on a machine with JAX for its
# accelerator and optax (on a fresh machine: pip install -e ".[train]" and JAX's CUDA wheels; on
# a machine without a network, the checkout on PYTHONPATH is enough: nothing here imports
# PettingZoo or Gymnasium):
#
#     bash bench/gpu.sh [N ...]            # default N = 1024 4096 16384
#
# 1. For each N, the training-regime throughput (bench/training_regime.py) of the scan path
#    (auto-reset inside a jitted lax.scan, as alem_train runs it) and of the bare step, their
#    compile times and the device's peak memory, as JSON in ${OUT:-.}/gpu.json.
# 2. The paper's IPPO baseline (alem_train.presets, paper-ippo) at ${TRAIN_WORLDS:-1024} worlds
#    for ${UPDATES:-10} updates (bench/gpu_train.py): the trainer's env-steps/s beside the
#    world's from the same run, peak device memory, and a checkpoint in ${OUT:-.}/gpu_train.
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
"${PYTHON:-python3}" -m bench.gpu_train --preset paper-ippo --worlds "${TRAIN_WORLDS:-1024}" \
  --updates "${UPDATES:-10}" --out "${OUT:-.}/gpu_train" ${ARGS:-}
