#!/usr/bin/env bash
# CI's documentation and packaging step (issue 15), run after the project is installed
# (.ci/run: `pip install -e ".[dev,kernels]"` in .venv):
#   1. installs the `docs` and `pkg` extras (ranges in pyproject.toml, their one home);
#   2. builds the site with warnings as errors (`mkdocs build --strict`);
#   3. runs the packaging smoke test (scripts/pkg_smoke.sh: build sdist + wheel, twine
#      check --strict, wheel contents, fresh venv from the wheel, entry point,
#      `pytest --help`, a tiny @pairwise test).
# The docs' own checks (generated outputs current, every python example runs) are in
# tests/docs/, which the README's test command (scripts/test.sh) already runs.
# About 1 minute on 2 cores with a warm pip cache.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${VIRTUAL_ENV:-}" ] && [ -f .venv/bin/activate ]; then . .venv/bin/activate; fi
start=$SECONDS
python -m pip install -q -e ".[docs,pkg]"
echo "== mkdocs build --strict"
site="$(mktemp -d "${TMPDIR:-/tmp}/pairwise-site.XXXXXX")"
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "$site"
echo "site built: $(find "$site" -name '*.html' | wc -l) pages"
bash scripts/pkg_smoke.sh
echo "ci_docs: OK in $((SECONDS - start)) s"
