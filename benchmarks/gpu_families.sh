#!/usr/bin/env bash
# Every kernel family on one GPU, pairwise mode and full mode, serially (one pytest
# process; xdist workers on ONE GPU compete for it: see README_gpu.md), each run capped.
#
#   OUT=/path/to/results RUNS="rmsnorm:pairwise rope:full ..." bash benchmarks/gpu_families.sh
#
# RUNS lists family:mode[:extra pytest args, comma-separated, '+' for a space inside one]
# (default: every family in pairwise mode), e.g. "fused_norm:full:-k,nss+and+B2". CAP (seconds, default 150) caps each run; a run that hits it is reported
# as a lower bound. Results: $OUT/gpu_families.md and .json (benchmarks/gpu_summary.py),
# one <run>.log and <run>.xml (JUnit) each.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out}"
mkdir -p "$OUT"
CAP="${CAP:-150}"
RUNS="${RUNS:-skinny_gemm:pairwise rmsnorm:pairwise rope:pairwise fused_norm:pairwise}"
if [ -z "${SKIP_INSTALL:-}" ]; then
  python3 -m pip install -q --no-deps --no-build-isolation -e . >"$OUT/install.log" 2>&1 \
    || echo "pip install failed (see $OUT/install.log)"
fi
python3 - >"$OUT/env.txt" 2>&1 <<'PY'
import torch, triton
print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device", p.name, "SMs", p.multi_processor_count, "memory GiB", round(p.total_memory / 2**30))
PY
: >"$OUT/runs.tsv"
for spec in $RUNS; do
  IFS=: read -r fam mode extra <<<"$spec"
  tag=$(printf %s "${extra:-}" | tr -c "A-Za-z0-9" "_" | cut -c1-24)
  name="${fam}_${mode}${tag:+_$tag}"
  args=()
  [ "$mode" = full ] && args+=(--pairwise-mode=full)
  if [ -n "${extra:-}" ]; then IFS=, read -r -a more <<<"${extra//+/ }"; args+=("${more[@]}"); fi
  t0=$(date +%s.%N)
  PYTHONUNBUFFERED=1 timeout "$CAP" python3 -m pytest "kernel_tests/$fam" -q -p no:cacheprovider \
    -p no:benchmark -rfE --junitxml="$OUT/$name.xml" "${args[@]}" >"$OUT/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  printf '%s\t%s\t%s\t%s\n' "$name" "${args[*]:-}" "$rc" "$(python3 -c "print(round($t1-$t0,1))")" >>"$OUT/runs.tsv"
  grep -E "^(FAILED|ERROR) " "$OUT/$name.log" | head -5
done
python3 benchmarks/gpu_summary.py "$OUT"
