#!/usr/bin/env bash
# Issue 39, third round (benchmarks/gpu_issue39c.py says what each plan runs), one device call per plan:
#   rm -rf .devcarry/base-0b7d251; mkdir -p .devcarry/base-0b7d251
#   git archive 0b7d251 | tar -x -C .devcarry/base-0b7d251
#   command: OUT=$OUT PLAN=speed bash benchmarks/gpu_issue39c.sh   carry: [".devcarry/base-0b7d251"]
#   command: OUT=$OUT PLAN=full bash benchmarks/gpu_issue39c.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/out/issue39c}"
mkdir -p "$OUT"
BASE=()
[ -d .devcarry/base-0b7d251/kernel_tests ] && BASE=(--baseline .devcarry/base-0b7d251)
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/install.log" 2>&1 || echo "pip install -e . failed (see install.log)"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
  python3 -c 'import torch, triton, pytest, xdist; print("torch", torch.__version__, "triton", triton.__version__, "pytest", pytest.__version__, "xdist", xdist.__version__)'
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
python3 benchmarks/gpu_issue39c.py --out "$OUT" --plan "${PLAN:-speed}" "${BASE[@]}" --budget "${BUDGET:-540}" --timeout "${TIMEOUT:-150}"
