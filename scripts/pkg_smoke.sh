#!/usr/bin/env bash
# Packaging smoke test (tox -e pkg, scripts/ci_docs.sh): build the sdist and the wheel,
# check their metadata (twine --strict) and the wheel's contents, install the wheel into
# a FRESH venv (not the development one) and use it from outside the repository:
#   * `pairwise-param --version` answers with the package's version;
#   * `pytest --help` lists our options (the pytest11 entry point is registered);
#   * a tiny @pairwise test collects, runs, and prints the plugin's summary line.
# `--sdist-tests` (or PKG_SDIST_TESTS=1) also unpacks the sdist and runs its own test suite
# in that venv (about 3-4 minutes on 2 cores; CI does not run it).
# Needs `build` and `twine` in the calling environment (the `pkg` tox env installs them).
set -euo pipefail
[ "${1:-}" = "--sdist-tests" ] && PKG_SDIST_TESTS=1
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pairwise-pkg.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
VERSION="$(python -c 'import runpy; print(runpy.run_path("pairwise_param/_version.py")["__version__"])')"

echo "== build sdist + wheel ($VERSION)"
python -m build --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
python -m twine check --strict "$WORK"/dist/*

echo "== wheel contents"
python - "$WORK"/dist/*.whl <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
allowed = ("pairwise_param/", "pairwise_param-")
stray = [n for n in names if not n.startswith(allowed) or "__pycache__" in n or n.endswith(".pyc")]
assert not stray, f"stray files in the wheel: {stray}"
for needed in ("pairwise_param/py.typed", "pairwise_param/report/report.schema.json"):
    assert needed in names, f"{needed} missing from the wheel"
lic = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
assert lic, "LICENSE missing from the wheel's dist-info"
print(f"{len(names)} files, all under pairwise_param/ or its dist-info")
PY

echo "== fresh venv from the wheel"
python -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q "$WORK"/dist/*.whl "pytest>=8.0"
mkdir "$WORK/smoke" && cd "$WORK/smoke"   # outside the repository: the installed copy is used
PY="$WORK/venv/bin/python"
"$PY" -c "import pairwise_param, sys; assert '$ROOT' not in pairwise_param.__file__, pairwise_param.__file__"
test "$("$WORK/venv/bin/pairwise-param" --version)" = "pairwise-param $VERSION"
"$PY" -m pytest --help >"$WORK/help.txt"
grep -q -- "--pairwise-mode" "$WORK/help.txt" || { echo "pytest --help lacks --pairwise-mode"; exit 1; }
cat > test_smoke.py <<'PY'
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], padded=[False, True], bias=[0, 1, 2], xnorm=[False, True])
def test_options(dtype, padded, bias, xnorm):
    assert bias in (0, 1, 2)
PY
"$PY" -m pytest -q -p no:cacheprovider test_smoke.py | tee "$WORK/run.log"
grep -q "6 passed" "$WORK/run.log"
grep -q "pairwise-param: 6 items from 1 table stand for 24 full-product items" "$WORK/run.log"
"$PY" -m pytest -q -p no:cacheprovider --pairwise-mode=full test_smoke.py >"$WORK/full.log"
grep -q "24 passed" "$WORK/full.log"

if [ "${PKG_SDIST_TESTS:-0}" = 1 ]; then
    echo "== the sdist's own test suite (its sources, in the fresh venv)"
    "$PY" -m pip install -q "hypothesis>=6.100" "pytest-xdist>=3.5" "matplotlib>=3.7"
    tar -xzf "$WORK"/dist/*.tar.gz -C "$WORK"
    cd "$WORK"/pairwise_param-"$VERSION"
    "$PY" -m pytest tests -q -n 2 -p no:cacheprovider
fi
echo "pkg smoke: OK"
