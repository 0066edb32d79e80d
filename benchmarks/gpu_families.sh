#!/usr/bin/env bash
# Every kernel family on one GPU, side by side (benchmarks/gpu_bench.py does the work).
#
#   OUT=/path/to/results bash benchmarks/gpu_families.sh
#   OUT=... RUNS="rope:pairwise:cold rope:pairwise rmsnorm:full" bash benchmarks/gpu_families.sh
#
# RUNS: gpu_bench.py RUN texts (PATH:MODE[:n=K,cold,cleanup=test,sample=N,k=EXPR]); the
# default is each family in pairwise mode with a cold Triton cache and then warm, serial
# (one pytest process: workers sharing one GPU compete for it, see gpu_suite.sh). CAP
# seconds per run (default 200), BUDGET for all (default 560); a capped run is a lower bound.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out}"
DEFAULT=""
# the families: kernel_tests/support/families.py (their one list)
FAMILIES="$(python3 -c 'from kernel_tests.support.families import FAMILIES; print(*FAMILIES)')"
for fam in $FAMILIES; do DEFAULT+="$fam:pairwise:cold $fam:pairwise "; done
# shellcheck disable=SC2086
INSTALL=(--install); [ -n "${SKIP_INSTALL:-}" ] && INSTALL=()
exec python3 benchmarks/gpu_bench.py "${INSTALL[@]}" --out "$OUT" --cap "${CAP:-200}" \
  --budget "${BUDGET:-560}" ${RUNS:-$DEFAULT}
