"""Rotation you can trust (issue 38, QA round 4 D1, D3-D7, D10, D13): full mode is the
full product, --lf reproduces at the history's cap, -W error, shared and corrupt
histories, histories that do not fit, collection skips, --lf/--ff/--sw in addopts."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.runs.history import MAX_RUNS

SKINNY = """
import os
from pairwise_param import pairwise

@pairwise(dtype=["bf16", "fp16", "fp32"], padded_a=[False, True], padded_b=[False, True],
          bias_mode=[0, 1, 2], xnorm=[False, True]{mode})
def test_k(dtype, padded_a, padded_b, bias_mode, xnorm):
    assert not (dtype == "fp32" and bias_mode == 2 and xnorm), "triple bug"
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:randomly", "--pairwise-history=h.json", *args)


def table(path: Path, k: int = 0) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc["tables"][k]


def rows_of(path: Path, k: int = 0) -> list[list[int]]:
    return [list(r) for r in table(path, k)["rows"]]


@pytest.mark.parametrize("compiled", ["", ', compile_axes=["dtype", "bias_mode", "xnorm"]'],
                         ids=["plain", "compile-aware"])
@pytest.mark.parametrize("how", ["flag", "decorator"])
def test_full_mode_is_the_full_product_under_rotation(pytester: pytest.Pytester, how: str, compiled: str) -> None:
    """D1: rotation never touches a full-mode table (no duplicate rows, every failure found),
    a compile-aware one included (its rotated variant lists are for cover mode only)."""
    pytester.makepyfile(test_k=SKINNY.format(mode=(', mode="full"' if how == "decorator" else "") + compiled))
    full = ("--pairwise-mode=full",) if how == "flag" else ()
    run(pytester, "--pairwise-rotate")
    run(pytester, "--pairwise-rotate")
    result = run(pytester, "--pairwise-rotate", *full, "--pairwise-report=f.json")
    result.assert_outcomes(failed=4, passed=68)
    rows = rows_of(pytester.path / "f.json")
    assert len(rows) == len({tuple(r) for r in rows}) == 72


def test_first_run_under_filterwarnings_error_starts_the_history(pytester: pytest.Pytester) -> None:
    """D4: no INTERNALERROR on the first rotated run; the history is created."""
    pytester.makepyfile(test_k=SKINNY.format(mode=""))
    pytester.makeini("[pytest]\nfilterwarnings =\n    error\n")
    result = run(pytester, "--pairwise-rotate")
    assert result.ret in (0, 1), result.stdout.str()  # the fixed table may or may not hit the triple bug; never 3
    assert "INTERNALERROR" not in result.stdout.str()
    assert (pytester.path / "h.json").exists()
    result.stdout.fnmatch_lines(["*pairwise-param: rotation: no history at *h.json yet*"])


def test_an_unwritable_history_is_a_clear_message_not_a_traceback(pytester: pytest.Pytester) -> None:
    """D4: a history that cannot be written ends with a clear line (and exit 1 under -W error)."""
    pytester.makepyfile(test_k=SKINNY.format(mode="").replace("assert not", "assert True or not"))
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc (a folder no one can create a file in, root included)")
    args = ("-p", "no:randomly", "--pairwise-rotate", "--pairwise-history=/proc/pairwise_h.json")
    result = pytester.runpytest(*args)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*cannot write the history file /proc/pairwise_h.json*"])
    result = pytester.runpytest(*args, "-W", "error")
    out = result.stdout.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out
    result.stdout.fnmatch_lines(["*pairwise-param: rotation: cannot write the history file /proc/pairwise_h.json*"])
    assert result.ret == 1


def test_a_corrupt_history_is_kept_aside_and_rewritten(pytester: pytest.Pytester) -> None:
    """D6: a corrupt history warns, runs the fixed tables and writes a fresh history."""
    pytester.makepyfile(test_k=SKINNY.format(mode=""))
    (pytester.path / "h.json").write_text("{not json")
    result = run(pytester, "--pairwise-rotate")
    result.stdout.fnmatch_lines(["*is corrupt*"])
    doc = json.loads((pytester.path / "h.json").read_text())
    assert len(doc["tables"][0]["runs"]) == 1
    assert (pytester.path / "h.json.corrupt").read_text() == "{not json"
    result = run(pytester, "--pairwise-rotate")
    assert "is corrupt" not in result.stdout.str()
    assert len(json.loads((pytester.path / "h.json").read_text())["tables"][0]["runs"]) == 2


def test_a_history_that_does_not_fit_the_model_falls_back(pytester: pytest.Pytester) -> None:
    """D7: same fingerprint, rows outside the model: the fixed table and a note, not a collection error."""
    pytester.makepyfile(test_k=SKINNY.format(mode=""))
    run(pytester, "--pairwise-rotate", "--pairwise-report=fixed.json")
    doc = json.loads((pytester.path / "h.json").read_text())
    doc["tables"][0]["sizes"] = [7, 7, 7, 7, 7]
    doc["tables"][0]["runs"][0][0] = [6, 6, 6, 6, 6]
    (pytester.path / "h.json").write_text(json.dumps(doc))
    result = run(pytester, "--pairwise-rotate", "--pairwise-report=r.json")
    assert result.ret in (0, 1) and "error" not in result.stdout.str().lower().split("failed")[0]
    result.stdout.fnmatch_lines(["*test_k.py::test_k*history does not fit the model*fixed table*"])
    assert rows_of(pytester.path / "r.json") == rows_of(pytester.path / "fixed.json")
    # the run starts the table's history over, so the next run rotates again
    entry = json.loads((pytester.path / "h.json").read_text())["tables"][0]
    assert entry["sizes"] == [3, 2, 2, 3, 2] and len(entry["runs"]) == 1


def test_last_failed_reproduces_at_the_history_cap(pytester: pytest.Pytester) -> None:
    """D3: with MAX_RUNS runs in the history, --lf reruns the failed rows of the last run."""
    pytester.makepyfile(test_k="""
from pairwise_param import pairwise

@pairwise(dtype=["bf16", "fp16"], padded_a=[False, True], padded_b=[False, True],
          bias_mode=[0, 1, 2], xnorm=[False, True])
def test_k(dtype, padded_a, padded_b, bias_mode, xnorm):
    assert not (bias_mode == 2 and xnorm and dtype == "fp16")
""")
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=r0.json")
    r = table(pytester.path / "r0.json")
    history = {"schema": "pairwise-param/history", "schema_version": 1, "tables": [{
        "test": r["test"], "table": 0, "fingerprint": r["fingerprint"], "strength": 2,
        "sizes": [len(a["values"]) for a in r["axes"]], "axes": [a["name"] for a in r["axes"]],
        "coverable": [], "runs": [r["rows"]] * MAX_RUNS}]}
    (pytester.path / "h.json").write_text(json.dumps(history))
    result = run(pytester, "--pairwise-rotate", "--pairwise-report=r1.json")
    assert result.ret == 1
    failed = result.parseoutcomes()["failed"]
    result = run(pytester, "--pairwise-rotate", "--lf", "--pairwise-report=r2.json")
    result.assert_outcomes(failed=failed)
    assert "not in selected tests" not in result.stdout.str()


def test_two_runs_sharing_a_history_keep_both_runs(pytester: pytest.Pytester) -> None:
    """D5: two processes writing one history at once: both runs are kept."""
    body = """
import time
from pairwise_param import pairwise

@pairwise(dtype=["bf16", "fp16"], padded_a=[False, True], bias_mode=[0, 1, 2])
def test_{n}(dtype, padded_a, bias_mode):
    time.sleep(0.05)
"""
    pytester.makepyfile(test_a=body.format(n="a"), test_b=body.format(n="b"))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
           "--pairwise-rotate", "--pairwise-history=h.json"]
    first = subprocess.Popen([*cmd, "test_a.py"], cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    time.sleep(0.2)
    second = subprocess.run([*cmd, "test_b.py"], cwd=pytester.path, capture_output=True, check=False)
    first.communicate()
    assert first.returncode == 0 and second.returncode == 0
    tests = sorted(t["test"] for t in json.loads((pytester.path / "h.json").read_text())["tables"])
    assert tests == ["test_a.py::test_a", "test_b.py::test_b"]


def test_a_machine_dependent_skip_keeps_the_history(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """D10: a value skipped at collection on one runner does not reset the table's history."""
    pytester.makepyfile(test_k="""
import os
import pytest
from pairwise_param import pairwise

NO_FP8 = bool(os.environ.get("NO_FP8"))

@pairwise(dtype=["bf16", "fp16", pytest.param("fp8", marks=pytest.mark.skipif(NO_FP8, reason="no fp8"))],
          padded_a=[False, True], padded_b=[False, True], bias_mode=[0, 1, 2], xnorm=[False, True])
def test_k(dtype, padded_a, padded_b, bias_mode, xnorm):
    pass
""")
    kept = []
    for env in ("", "", "1", "", "1"):
        monkeypatch.setenv("NO_FP8", env)
        assert run(pytester, "--pairwise-rotate").ret == 0
        kept.append(len(json.loads((pytester.path / "h.json").read_text())["tables"][0]["runs"]))
    assert kept == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("opt", ["--ff", "--lf", "--sw"])
def test_rerun_options_in_addopts_keep_rotating(pytester: pytest.Pytester, opt: str) -> None:
    """D13: --ff / --lf / --sw in addopts: with no failure to rerun, the run rotates and is recorded."""
    pytester.makepyfile(test_k=SKINNY.format(mode="").replace("assert not", "assert True or not"))
    pytester.makeini(f"[pytest]\naddopts = {opt}\npairwise_rotate = true\npairwise_history = h.json\n")
    seen = []
    for k in range(3):
        assert pytester.runpytest("-p", "no:randomly", f"--pairwise-report=r{k}.json").ret == 0
        seen.append(rows_of(pytester.path / f"r{k}.json"))
    assert seen[0] != seen[1] != seen[2]
    assert len(json.loads((pytester.path / "h.json").read_text())["tables"][0]["runs"]) == 3
