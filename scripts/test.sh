#!/usr/bin/env bash
# The test command (README): the library's own tests, then the kernel suites
# (on a machine without a GPU they run through the Triton interpreter, under a
# documented cost budget; see docs/kernels.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
python -m pytest tests -n 2 -q "$@"
python -m pytest kernel_tests -n 2 -q "$@"
