"""``report --from-marks``: counting from the marks gives pytest's own numbers (issue 26).

The counting path builds one pytest item per test function (per fixture param and class
mark), not per row; pytest's expansion stays the source of truth, so each test here runs
the report both ways and holds every test's FULL, COLLECTED, axes and tables equal, on
this repository's own suites (the examples, the kernel suites) and on fixture suites that
stress what pytest does around ``parametrize`` (fixture params, shadowing, class marks,
``indirect=``, ``pytest.param`` ids and marks, empty lists, @pairwise).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.report import analyze, collect

ROOT = Path(__file__).resolve().parents[2]

TRICKY = """
import pytest
from pairwise_param import pairwise

@pytest.fixture(params=[1, 2])
def fx(request):
    return request.param

@pytest.fixture
def doubled(request):
    return request.param * 2

ROWS = [("p", True, "u"), ("p", False, "v"), ("q", True, "v"), ("q", False, "u"), ("p", True, "v")]

@pytest.mark.parametrize("a,b,c", ROWS)
@pytest.mark.parametrize("n", [1, 2, 3], ids=["x", "y", "z"])
def test_audit(n, a, b, c, fx):
    pass

@pytest.mark.parametrize("x", [pytest.param(1, id="one"), 2])
class TestC:
    @pytest.mark.parametrize("y", ["a", "b", pytest.param("c", marks=pytest.mark.skip)])
    def test_m(self, x, y):
        pass

@pytest.mark.parametrize("fx", [5, 6, 7])
def test_shadow(fx):
    pass

@pytest.mark.parametrize("doubled", [1, 2, 3], indirect=True)
@pytest.mark.parametrize("k", [])
def test_indirect_and_empty(doubled, k):
    pass

@pairwise(dtype=["f16", "bf16"], bias=[True, False], kind=["a", "b", "c"])
@pytest.mark.parametrize("m", [1, 2])
def test_pw(dtype, bias, kind, m):
    pass

def test_plain():
    pass
"""


def _report(paths: list[str], cwd: Path, from_marks: bool) -> dict[str, Any]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pairwise_param.cli", "report", "--strength", "2", "--format", "json",
           "--from-marks" if from_marks else "--expand-items", *paths, "--", "-p", "no:cacheprovider"]
    p = subprocess.run(cmd, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert p.stdout, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


def _same(expanded: dict[str, Any], counted: dict[str, Any]) -> None:
    a = {t["id"]: t for t in expanded["tests"]}
    b = {t["id"]: t for t in counted["tests"]}
    assert a.keys() == b.keys()
    for k in a:
        for key in ("full_product", "collected", "axes", "tables", "with_pairwise"):
            assert a[k][key] == b[k][key], (k, key)
    assert expanded["collected_items"] == counted["collected_items"]
    assert expanded["totals"] == counted["totals"]
    assert expanded["unparametrized_tests"] == counted["unparametrized_tests"]


def test_fixture_suite_counts_equal(tmp_path: Path) -> None:
    (tmp_path / "test_tricky.py").write_text(TRICKY)
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["pairwise_param.pytest_plugin"]\n')
    expanded = _report(["."], tmp_path, False)
    counted = _report(["."], tmp_path, True)
    _same(expanded, counted)
    tests = {t["function"]: t for t in counted["tests"]}
    assert tests["test_audit"]["collected"] == 5 * 3 * 2
    assert tests["test_m"]["collected"] == 6 and tests["test_shadow"]["collected"] == 3
    assert tests["test_indirect_and_empty"]["collected"] == 3


@pytest.mark.parametrize("paths", [["examples/skinny_gemm_audit"], ["kernel_tests"]], ids=["examples", "kernel_tests"])
def test_our_suites_count_equal(paths: list[str]) -> None:
    _same(_report(paths, ROOT, False), _report(paths, ROOT, True))


def test_counted_items_stand_for_their_rows(pytester: pytest.Pytester) -> None:
    """In-process: the counting path builds one item per function and weighs it."""
    pytester.makepyfile(test_w="""
        import pytest

        @pytest.mark.parametrize("a,b", [(1, "x"), (2, "y"), (3, "x")])
        @pytest.mark.parametrize("n", [1, 2, 3, 4])
        def test_w(n, a, b):
            pass
        """)
    col = collect([str(pytester.path)], ["-p", "no:cacheprovider"], rootdir=str(pytester.path),
                          from_marks=True)
    assert [it.weight for it in col.items] == [12]
    assert col.items[0].params == {}
    report = analyze(col)
    assert report.collected_items == 12 and report.tests[0].collected == report.tests[0].full_product == 12


def test_counting_never_touches_the_functions_marks(pytester: pytest.Pytester) -> None:
    """Issue 34: the one-row marks live only in the definition pytest generates a function's
    calls from; the function's own ``pytestmark`` is as written at every moment (a suite's
    own ``pytest_generate_tests`` reads it there; it once saw the swapped one-row mark), and
    the item carries the original marks."""
    pytester.makeconftest("""
        def pytest_generate_tests(metafunc):
            rows = [len(m.args[1]) for m in metafunc.function.pytestmark if m.name == "parametrize"]
            with open("seen.txt", "a") as f:
                f.write(f"{rows}\\n")
        """)
    pytester.makepyfile(test_w="""
        import pytest

        SHARED = pytest.mark.parametrize("n", [1, 2, 3, 4])

        @pytest.mark.parametrize("a", [1, 2, 3])
        @SHARED
        def test_w(n, a):
            pass

        @SHARED
        def test_v(n):
            pass
        """)
    col = collect([str(pytester.path)], ["-p", "no:cacheprovider"], rootdir=str(pytester.path),
                  from_marks=True)
    assert [it.weight for it in col.items] == [12, 4]
    assert (pytester.path / "seen.txt").read_text().split("\n")[:2] == ["[4, 3]", "[4]"]
    assert [len(m.rows) for m in col.marks["test_w.py::test_w"][0]] == [4, 3]


def test_deselection_is_reported(pytester: pytest.Pytester) -> None:
    """-k over row ids cannot be honoured when rows are not items: the report says so."""
    pytester.makepyfile(test_k="""
        import pytest

        @pytest.mark.parametrize("a", ["x", "y", "z"])
        @pytest.mark.parametrize("b", ["u", "v"])
        def test_k(a, b):
            pass
        """)
    col = collect([str(pytester.path)], ["-p", "no:cacheprovider", "-k", "not u"], rootdir=str(pytester.path),
                  from_marks=True)
    assert any("--from-marks with -k" in e.message for e in col.errors)
    col = collect([str(pytester.path)], ["-p", "no:cacheprovider", "--deselect", "test_k.py::test_k[u-x]"],
                  rootdir=str(pytester.path), from_marks=True)
    assert any("--from-marks" in e.message and "test_k" in e.message for e in col.errors)

