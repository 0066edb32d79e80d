#!/usr/bin/env bash
# The skinny-GEMM suite on a GPU: pairwise vs full mode, module vs per-test clean-up.
#
#   OUT=/some/dir bash benchmarks/gpu_suite.sh        # from the repository root
#
# Installs the project (no network needed: --no-deps --no-build-isolation), then runs
# kernel_tests/skinny_gemm/test_skinny_gemms.py in four configurations and writes, under $OUT:
#   gpu_suite.json / gpu_suite.md   passed/failed/skipped counts and wall time per config
#   <config>.log                    the pytest output of each configuration
# Tests are spread over XDIST_WORKERS pytest-xdist workers (default 8) that share the
# one GPU ("-n 8 --dist load"); every configuration gets the same worker count, so
# the wall times compare like for like. Each configuration is capped at
# CONFIG_TIMEOUT seconds (default 200; a capped run is reported as "timeout"), and all
# of them together at TOTAL_BUDGET seconds (default 540).
# CONFIGS="full_module full_per_test" runs a subset, in that order.
# SKIP_INSTALL=1 skips the pip step. Expected total: 5-9 minutes on one H200.
# See benchmarks/README_gpu.md.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out}"
mkdir -p "$OUT"
WORKERS="${XDIST_WORKERS:-8}"
CAP="${CONFIG_TIMEOUT:-200}"
TOTAL="${TOTAL_BUDGET:-540}"   # seconds for everything after the install; fits a 10-minute call
START=$(date +%s)
SUITE=kernel_tests/skinny_gemm/test_skinny_gemms.py

if [ -z "${SKIP_INSTALL:-}" ]; then
  python -m pip install -q --no-deps --no-build-isolation -e . >"$OUT/install.log" 2>&1 \
    || echo "pip install failed (see $OUT/install.log); running from the source tree"
fi
# The @pairwise mark needs the plugin; it is registered through the pytest11 entry point
# of the installed package. Without it (install failed), load it by name from the tree.
if ! python -c "import importlib.metadata as m, sys; sys.exit(not any(e.name == 'pairwise_param' for e in m.entry_points(group='pytest11')))"; then
  export PYTEST_PLUGINS=pairwise_param.plugin.hooks
  echo "pytest11 entry point missing: PYTEST_PLUGINS=$PYTEST_PLUGINS" | tee -a "$OUT/install.log"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python - <<'EOF' >"$OUT/env.txt" 2>&1
import torch, triton
print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", torch.version.hip)
print("triton", triton.__version__)
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device", p.name, "SMs", p.multi_processor_count, "memory GiB", round(p.total_memory / 2**30))
EOF
cat "$OUT/env.txt"

# Warm Triton's kernel cache once (compile time would otherwise land in the first config).
python -m pytest $SUITE -q -p no:cacheprovider -p no:benchmark -n "$WORKERS" -k "1-16-16 or 1-8-16 or 1-32-16 or 128-2880-13" \
  >"$OUT/warmup.log" 2>&1

run_config() {  # name, extra pytest args...
  local name="$1"; shift
  local t0 t1 rc cap left
  left=$(( TOTAL - ($(date +%s) - START) - 15 ))
  cap=$(( left < CAP ? left : CAP ))
  if [ "$cap" -lt 20 ]; then cap=1; fi   # out of time: recorded as a timeout, not run
  t0=$(date +%s.%N)
  PYTHONUNBUFFERED=1 timeout "$cap" python -m pytest $SUITE -q -p no:cacheprovider -p no:benchmark -n "$WORKERS" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  python - "$OUT" "$name" "$rc" "$t0" "$t1" "$*" <<'EOF'
import json, re, sys
out, name, rc, t0, t1, args = sys.argv[1:]
text = open(f"{out}/{name}.log", errors="replace").read()
counts = {k: 0 for k in ("passed", "failed", "skipped", "error")}
tail = [l for l in text.splitlines() if re.search(r"\d+ (passed|failed|skipped|error)", l)]
if tail:
    for num, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", tail[-1]):
        counts["error" if word.startswith("error") else word] = int(num)
else:  # cut short (timeout): count the progress characters printed so far
    progress = "".join(m.group(1) for m in re.finditer(r"^([.sFExX]+)\s*(\[\s*\d+%\])?$", text, re.M))
    counts.update(passed=progress.count("."), failed=progress.count("F"), skipped=progress.count("s"),
                  error=progress.count("E"))
row = dict(config=name, args=args, rc=int(rc), timeout=int(rc) in (124, 137),
           wall_s=round(float(t1) - float(t0), 1), **counts)
with open(f"{out}/results.jsonl", "a") as fh:
    fh.write(json.dumps(row) + "\n")
print(json.dumps(row))
EOF
}

rm -f "$OUT/results.jsonl"
# CONFIGS picks and orders the configurations (default: all five).
for config in ${CONFIGS:-pairwise_module pairwise_per_test full_module full_per_test extras_fuzz_errors}; do
  case "$config" in
    pairwise_module) run_config pairwise_module ;;
    pairwise_per_test) run_config pairwise_per_test --per-test-cleanup ;;
    full_module) run_config full_module --pairwise-mode=full ;;
    full_per_test) run_config full_per_test --pairwise-mode=full --per-test-cleanup ;;
    # The other two kernel files (fuzzing, bad inputs), pairwise mode, for completeness.
    extras_fuzz_errors) SUITE="kernel_tests/skinny_gemm/test_fuzz.py kernel_tests/skinny_gemm/test_errors.py" \
      run_config extras_fuzz_errors ;;
    *) echo "unknown configuration in CONFIGS: $config" >&2; exit 2 ;;
  esac
done
python - "$OUT" "$WORKERS" <<'EOF'
import json, sys
out, workers = sys.argv[1:]
rows = [json.loads(l) for l in open(f"{out}/results.jsonl")]
env = open(f"{out}/env.txt").read().strip()
json.dump({"env": env, "xdist_workers": int(workers), "configs": rows}, open(f"{out}/gpu_suite.json", "w"), indent=2)
md = ["# skinny-GEMM suite on GPU", "", "```", env, "```", "",
      f"pytest-xdist: -n {workers} (workers share the GPU)", "",
      "| config | args | passed | failed | skipped | errors | wall s | rc |",
      "|---|---|---:|---:|---:|---:|---:|---:|"]
for r in rows:
    rc = f"{r['rc']} (timeout)" if r["timeout"] else str(r["rc"])
    md.append(f"| {r['config']} | `{r['args'] or '-'}` | {r['passed']} | {r['failed']} | {r['skipped']} | "
              f"{r['error']} | {r['wall_s']} | {rc} |")
open(f"{out}/gpu_suite.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
EOF
