"""``report`` without --from-marks / --expand-items: counting from the marks unless rows
are selected (issue 26).  The default decides before collecting (pytest arguments that
select rows: pytest's items) and, when the collection from the marks finds rows lost to a
hook or the configuration, collects again in a fresh interpreter with --expand-items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pairwise_param.cli.verbs.report import _selection

SUITE = """
import pytest

@pytest.mark.parametrize("a", ["x", "y", "z"])
@pytest.mark.parametrize("b", ["u", "v", "w", "t"])
def test_k(a, b):
    pass

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_n(n):
    pass
"""

#: a conftest hook that only counts the items pytest built (it deselects nothing)
COUNTING_HOOK = """
def pytest_collection_modifyitems(config, items):
    with open("built.txt", "a") as f:
        f.write(f"{len(items)}\\n")
"""

#: a conftest hook that deselects rows by their value (not the first row's)
DESELECTING_HOOK = """
def pytest_collection_modifyitems(config, items):
    with open("built.txt", "a") as f:
        f.write(f"{len(items)}\\n")
    gone = [it for it in items if getattr(it, "callspec", None) is not None and it.callspec.params.get("b") == "u"]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = [it for it in items if it not in gone]
"""


def _run(cwd: Path, *extra: str, pytest_args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pairwise_param.cli", "report", "--format", "json", "--no-progress", *extra, ".",
           "--", "-p", "no:cacheprovider", *pytest_args]
    return subprocess.run(cmd, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _doc(p: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert p.stdout, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


def _built(cwd: Path) -> list[int]:
    path = cwd / "built.txt"
    counts = [int(x) for x in path.read_text().split()]
    path.unlink()
    return counts


def _suite(tmp_path: Path, hook: str) -> Path:
    (tmp_path / "test_rows.py").write_text(SUITE)
    (tmp_path / "conftest.py").write_text(hook)
    return tmp_path


def test_default_counts_from_the_marks(tmp_path: Path) -> None:
    cwd = _suite(tmp_path, COUNTING_HOOK)
    default = _run(cwd)
    assert default.returncode == 0, default.stderr
    assert _built(cwd) == [2]  # one item per function: the marks were counted
    expanded = _run(cwd, "--expand-items")
    assert _built(cwd) == [17]
    assert _doc(default)["collected_items"] == _doc(expanded)["collected_items"] == 17
    assert _doc(default)["tests"] == _doc(expanded)["tests"]
    assert "again" not in default.stderr


def test_default_with_k_expands_items(tmp_path: Path) -> None:
    cwd = _suite(tmp_path, COUNTING_HOOK)
    p = _run(cwd, pytest_args=("-k", "not u"))
    assert p.returncode == 0, p.stderr
    assert _built(cwd) == [17]  # decided before collecting: pytest's items, once
    by_fn = {t["function"]: t["collected"] for t in _doc(p)["tests"]}
    assert by_fn == {"test_k": 9, "test_n": 5}
    assert "again" not in p.stderr


def test_default_with_a_deselecting_hook_reruns_with_items(tmp_path: Path) -> None:
    cwd = _suite(tmp_path, DESELECTING_HOOK)
    default = _run(cwd)
    assert _built(cwd) == [2, 17]  # from the marks, then a fresh collection of every item
    assert "collecting again with --expand-items" in default.stderr
    assert default.stderr.count("\n") >= 2
    expanded = _run(cwd, "--expand-items")
    _built(cwd)
    assert default.returncode == expanded.returncode == 0, default.stderr
    assert _doc(default) == _doc(expanded)
    by_fn = {t["function"]: t["collected"] for t in _doc(default)["tests"]}
    assert by_fn == {"test_k": 9, "test_n": 5}


def test_explicit_from_marks_still_reports_the_lost_rows(tmp_path: Path) -> None:
    cwd = _suite(tmp_path, DESELECTING_HOOK)
    p = _run(cwd, "--from-marks")
    assert _built(cwd) == [2]
    assert p.returncode == 3 and "again" not in p.stderr
    assert any("test_k" in e["message"] for e in _doc(p)["errors"])


def test_selection_names_what_selects() -> None:
    assert _selection(["tests"], ["-p", "no:cacheprovider", "-x"]) is None
    assert _selection([], ["-k", "fast"]) == "-k"
    assert _selection([], ["-kfast"]) == "-k"
    assert _selection([], ["-m", "not slow"]) == "-m"
    assert _selection([], ["--deselect=t.py::f[1]"]) == "--deselect"
    assert _selection([], ["--lf"]) == "--lf" and _selection([], ["--ff"]) == "--ff"
    assert _selection(["t.py::test_f[1-2]"], []) is not None
    assert _selection(["t.py::test_f"], []) is None


def test_default_with_a_hook_deselecting_a_later_row_reruns(tmp_path: Path) -> None:
    """The hook drops b == "w", never a function's first row: nothing it counted from the marks
    was lost, but the hook read the parameters of an item that stands for 12 rows."""
    cwd = _suite(tmp_path, DESELECTING_HOOK.replace('"u"', '"w"'))
    default = _run(cwd)
    assert _built(cwd) == [2, 17]
    assert "collecting again with --expand-items" in default.stderr
    assert default.returncode == 0, default.stderr
    by_fn = {t["function"]: t["collected"] for t in _doc(default)["tests"]}
    assert by_fn == {"test_k": 9, "test_n": 5}
    given = _run(cwd, "--from-marks")
    _built(cwd)
    assert given.returncode == 3
    assert any("conftest.py:pytest_collection_modifyitems" in e["message"] for e in _doc(given)["errors"])


def test_rerun_in_process_relays_its_output(pytester: Any, capsys: Any) -> None:
    """main() with streams that are not the process's own: the re-run's output is relayed.
    (pytester: the modules this in-process collection imports are dropped afterwards.)"""
    from pairwise_param.cli.main import main

    cwd = _suite(pytester.path, DESELECTING_HOOK)
    pytester.chdir()
    code = main(["report", "--format", "json", "--no-progress", ".", "--", "-p", "no:cacheprovider"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "collecting again with --expand-items" in err and "14 items collected" in err
    assert json.loads(out)["collected_items"] == 14
    assert _built(cwd) == [2, 17]


def test_default_with_k_in_the_configuration_reruns(tmp_path: Path) -> None:
    """-k from addopts is not in the arguments: found while collecting, then a re-run."""
    cwd = _suite(tmp_path, COUNTING_HOOK)
    (cwd / "pytest.ini").write_text('[pytest]\naddopts = -k "not u"\n')
    p = _run(cwd)
    assert _built(cwd) == [2, 17]
    assert p.returncode == 0 and "collecting again with --expand-items" in p.stderr, p.stderr
    assert {t["function"]: t["collected"] for t in _doc(p)["tests"]} == {"test_k": 9, "test_n": 5}
