#!/usr/bin/env bash
# Every kernel family on one GPU, pairwise vs full, cold and warm, in one call (issue 22).
#
#   OUT=/path/to/results bash benchmarks/gpu_side_by_side.sh       # ~9 minutes on an H200
#
# benchmarks/gpu_bench.py with ONE Triton cache for all runs (--one-cache), in this order:
# the whole of kernel_tests pairwise with an empty cache (cold; per family in its table),
# again warm, and warm with `-p no:logging`; each family pairwise (warm); each family full
# (compiling only what full adds), the families of FULL_AGAIN (default rope) a second time
# warm; a family of FULL_SAMPLED (fused_norm's full product: 241128 items, hours) as a fixed
# 1-in-SAMPLE sample (default 200), to be extrapolated. The families are
# kernel_tests/support/families.py's (FAMILIES, FULL_SAMPLED); none is named here. Then
# benchmarks/gpu_profile.py profiles the warm pairwise run (phases, compile, variants). CAP
# seconds per run (default 200), BUDGET for the gpu_bench runs (default 450). DRY=1 prints
# the runs and stops.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out}"
CACHES="${CACHES:-$OUT/triton-cache}"
INSTALL=(--install); [ -n "${SKIP_INSTALL:-}" ] && INSTALL=()
# the families and those sampled in full mode: their one list (kernel_tests/support/families.py)
read -r -a FAMILIES <<< "$(python3 -c 'from kernel_tests.support.families import FAMILIES; print(*FAMILIES)')"
SAMPLED=" $(python3 -c 'from kernel_tests.support.families import FULL_SAMPLED; print(*FULL_SAMPLED)') "
AGAIN=" ${FULL_AGAIN-rope} "
for fam in $AGAIN; do
  case " ${FAMILIES[*]} " in *" $fam "*) ;; *) echo "FULL_AGAIN: $fam is no family (${FAMILIES[*]})" >&2; exit 2;; esac
done
RUNS=(".:pairwise:cold" ".:pairwise" ".:pairwise:nolog")
for fam in "${FAMILIES[@]}"; do RUNS+=("$fam:pairwise"); done
for fam in "${FAMILIES[@]}"; do
  if [[ "$SAMPLED" == *" $fam "* ]]; then RUNS+=("$fam:full:sample=${SAMPLE:-200}"); continue; fi
  RUNS+=("$fam:full")
  [[ "$AGAIN" == *" $fam "* ]] && RUNS+=("$fam:full")
done
if [ -n "${DRY:-}" ]; then printf '%s\n' "${RUNS[@]}"; exit 0; fi
python3 benchmarks/gpu_bench.py "${INSTALL[@]}" --one-cache --caches "$CACHES" --out "$OUT/bench" \
  --cap "${CAP:-200}" --budget "${BUDGET:-450}" "${RUNS[@]}"
python3 benchmarks/gpu_profile.py --one-cache --caches "$CACHES" --out "$OUT/profile" --cap 90 --budget 90 \
  ".:pairwise"
