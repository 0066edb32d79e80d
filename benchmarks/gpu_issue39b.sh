#!/usr/bin/env bash
# Issue 39, second round: the GPU job cold and warm, baselines vs ours, in ONE device call (< 9 min).
#
# Before the call, on the machine that makes it (the baselines travel as carried, ignored paths):
#   for c in eca46bb 0b7d251; do rm -rf .devcarry/base-$c; mkdir -p .devcarry/base-$c
#     git archive $c | tar -x -C .devcarry/base-$c; done
# The call (device tool), from the repository root:
#   command: OUT=$OUT bash benchmarks/gpu_issue39b.sh
#   carry:   [".devcarry/base-eca46bb", ".devcarry/base-0b7d251"]
# Writes $OUT/summary.md, $OUT/runs.md, $OUT/runs.json and each run's log, JUnit file and
# variants (benchmarks/gpu_issue39b.py says which runs, in which order). BUDGET (default 500)
# and TIMEOUT (per run, default 130) are seconds; DRY=1 prints the runs and stops.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out/issue39b}"
mkdir -p "$OUT"
BASES=()
for b in .devcarry/base-*; do [ -d "$b/kernel_tests" ] && BASES+=(--baseline "$b"); done
if [ -n "${DRY:-}" ]; then python3 benchmarks/gpu_issue39b.py --out "$OUT" "${BASES[@]}" --dry; exit 0; fi
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/install.log" 2>&1 || echo "pip install -e . failed (see install.log)"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton, pytest; print("torch", torch.__version__, "triton", triton.__version__, "pytest", pytest.__version__)'
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
python3 benchmarks/gpu_issue39b.py --out "$OUT" "${BASES[@]}" --budget "${BUDGET:-500}" --timeout "${TIMEOUT:-130}"
