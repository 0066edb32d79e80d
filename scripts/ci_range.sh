#!/usr/bin/env bash
# The range pairwise-param claims (pyproject: pytest>=8.0, requires-python), tested in
# throwaway virtual environments under a temp dir (issue 11):
#
#   1. oldest: the oldest Python on the machine (3.10 if present) + pytest 8.0.*:
#      the plugin's tests, the Hypothesis integration (tests/core/test_strategies.py) and
#      the CLI (the engine and the core run the same on every pytest);
#   2. newest: the newest Python on the machine + the newest pytest, WITH pytest-randomly:
#      the whole of tests/ in random order (`-p randomly`), so no test depends on another's
#      order; pytest-randomly is installed only here, never in the main environment.
#
# No torch (the core and the plugin need none). Usage: bash scripts/ci_range.sh
# Env: PY_OLDEST / PY_NEWEST (interpreters), PYTEST_OLDEST (default "8.0.*"),
#      RANDOMLY_SEED (default: a fresh one, printed by pytest-randomly for a re-run).
# Budget: about 4 minutes on 2 cores (most of it installing; the tests run with -n 2).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/pairwise-ci-range.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

# the interpreters: the oldest and the newest CPython 3.x this machine has (>= 3.10)
find_python() {  # $1: "oldest" | "newest"
    local found=() p v
    for p in python3.10 python3.11 python3.12 python3.13 python3.14 \
             /root/.pyenv/versions/3.1[0-9]*/bin/python3; do
        p="$(command -v "$p" 2>/dev/null || true)"
        [ -n "$p" ] && [ -x "$p" ] || continue
        v="$("$p" -c 'import sys, venv, ensurepip; print("%d.%02d" % sys.version_info[:2])' 2>/dev/null)" || continue
        found+=("$v $p")
    done
    [ "${#found[@]}" -gt 0 ] || { echo "ci_range: no python >= 3.10 found" >&2; exit 2; }
    if [ "$1" = oldest ]; then
        printf '%s\n' "${found[@]}" | sort | head -n 1 | cut -d' ' -f2
    else
        printf '%s\n' "${found[@]}" | sort | tail -n 1 | cut -d' ' -f2
    fi
}
PY_OLDEST="${PY_OLDEST:-$(find_python oldest)}"
PY_NEWEST="${PY_NEWEST:-$(find_python newest)}"
PYTEST_OLDEST="${PYTEST_OLDEST:-8.0.*}"

make_env() {  # $1: dir, $2: python, $3...: pip requirements
    local dir="$1" py="$2"
    shift 2
    "$py" -m venv "$dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check -e "$ROOT" "$@"
    "$dir/bin/python" -c 'import sys, pytest; print("ci_range:", sys.version.split()[0], "pytest", pytest.__version__)'
}

# xdist's parallel runs and Hypothesis's derandomized profile, as in scripts/test.sh
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
unset PYTEST_ADDOPTS PYTEST_PLUGINS PAIRWISE_MODE PAIRWISE_STRENGTH

echo "== oldest: $PY_OLDEST, pytest==$PYTEST_OLDEST"
make_env "$TMP/oldest" "$PY_OLDEST" "pytest==$PYTEST_OLDEST" "pytest-xdist>=3.5" "pytest-split>=0.9" "hypothesis>=6.100" \
    "tomli>=2.0; python_version<'3.11'"
status=0
(cd "$ROOT" && "$TMP/oldest/bin/python" -m pytest -q -n 2 -p no:cacheprovider \
    tests/plugin tests/core/test_strategies.py tests/cli) || status=1

echo "== newest: $PY_NEWEST, newest pytest, pytest-randomly"
make_env "$TMP/newest" "$PY_NEWEST" --upgrade pytest pytest-xdist pytest-split hypothesis pytest-randomly
(cd "$ROOT" && "$TMP/newest/bin/python" -m pytest -q -n 2 -p no:cacheprovider -p randomly \
    ${RANDOMLY_SEED:+"--randomly-seed=$RANDOMLY_SEED"} tests) || status=1
exit "$status"
