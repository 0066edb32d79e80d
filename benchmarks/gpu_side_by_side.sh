#!/usr/bin/env bash
# Every kernel family on one GPU, pairwise vs full, cold and warm, in one call (issue 22).
#
#   OUT=/path/to/results bash benchmarks/gpu_side_by_side.sh       # ~9 minutes on an H200
#
# benchmarks/gpu_bench.py with ONE Triton cache for all runs (--one-cache), in this order:
# the whole of kernel_tests pairwise with an empty cache (cold; per family in its table),
# again warm, and warm with `-p no:logging`; each family pairwise (warm); each family full
# (rmsnorm and skinny_gemm compile only what full adds; RoPE twice: what full adds, then
# warm); fused_norm's full product (241128 items, hours) as a fixed 1-in-SAMPLE sample
# (default 200), to be extrapolated. Then benchmarks/gpu_profile.py profiles the warm
# pairwise run (phases, compile, variants). CAP seconds per run (default 200), BUDGET for
# the gpu_bench runs (default 450).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out}"
CACHES="${CACHES:-$OUT/triton-cache}"
INSTALL=(--install); [ -n "${SKIP_INSTALL:-}" ] && INSTALL=()
RUNS=(".:pairwise:cold" ".:pairwise" ".:pairwise:nolog"
      "skinny_gemm:pairwise" "rmsnorm:pairwise" "rope:pairwise" "fused_norm:pairwise"
      "rmsnorm:full" "rope:full" "rope:full" "skinny_gemm:full" "fused_norm:full:sample=${SAMPLE:-200}")
python3 benchmarks/gpu_bench.py "${INSTALL[@]}" --one-cache --caches "$CACHES" --out "$OUT/bench" \
  --cap "${CAP:-200}" --budget "${BUDGET:-450}" "${RUNS[@]}"
python3 benchmarks/gpu_profile.py --one-cache --caches "$CACHES" --out "$OUT/profile" --cap 90 --budget 90 \
  ".:pairwise"
