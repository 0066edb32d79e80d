#!/usr/bin/env bash
# The test command (README): library tests, then the kernel suites on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-1}" HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
python -m pytest tests -n 2 -q "$@"
