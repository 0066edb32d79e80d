#!/usr/bin/env bash
# The skinny-GEMM suite on one GPU: what pairwise saves, with the measurements behind the
# defaults (benchmarks/gpu_bench.py does the work; see benchmarks/README_gpu.md).
#
#   OUT=/some/dir bash benchmarks/gpu_suite.sh        # from the repository root
#
# Serial by default (WORKERS=0): measured on one H200, pytest-xdist workers sharing the one
# GPU made the suite SLOWER (pairwise: 15.2 s wall serially, 20.2 s with -n 2, 18.2 s with
# -n 4; the summed case time rose from 7.4 s to 16.7 s and 29.7 s), so the worker sweep is
# part of the run (SWEEP="2 4"), never the default. The runs: pairwise with a cold Triton
# cache, then warm (compile time = the difference), full mode warm, the worker sweep, and a
# fixed 1-in-SAMPLE sample of the full product with per-test and module clean-up (the
# per-test "before" state of upstream is extrapolated from it, and said to be).
# CAP seconds per run (default 170), BUDGET for all (default 560: one 10-minute call).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out}"
S=skinny_gemm/test_skinny_gemms.py
W="${WORKERS:-0}"
RUNS=("$S:pairwise:cold,n=$W" "$S:pairwise:n=$W" "$S:full:n=$W")
for n in ${SWEEP-2 4}; do RUNS+=("$S:pairwise:n=$n"); done
for n in ${SWEEP_FULL-4}; do RUNS+=("$S:full:n=$n"); done
SAMPLE="${SAMPLE:-40}"
RUNS+=("$S:full:sample=$SAMPLE,cleanup=test" "$S:full:sample=$SAMPLE" "skinny_gemm:pairwise")
INSTALL=(--install); [ -n "${SKIP_INSTALL:-}" ] && INSTALL=()
exec python3 benchmarks/gpu_bench.py "${INSTALL[@]}" --out "$OUT" \
  --cap "${CAP:-170}" --budget "${BUDGET:-560}" "${RUNS[@]}"
