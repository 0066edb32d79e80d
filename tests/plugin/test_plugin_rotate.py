"""--pairwise-rotate, --pairwise-history and --pairwise-replay, end to end (pytester)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pairwise_param import Model, measure

AXES = {"dtype": ["bf16", "fp16"], "padded_a": [False, True], "padded_b": [False, True],
        "bias_mode": [0, 1, 2], "xnorm": [False, True]}

SUITE = f"""
import os
import pytest
from pairwise_param import pairwise

@pairwise(**{AXES!r})
@pytest.mark.parametrize("n", [1, 3])
def test_k(n, dtype, padded_a, padded_b, bias_mode, xnorm):
    bad = os.environ.get("FAIL_ROW")
    assert bad is None or bad != f"{{dtype}}-{{padded_a}}-{{padded_b}}-{{bias_mode}}-{{xnorm}}"
"""


def rows_of(path: Path) -> list[list[int]]:
    doc = json.loads(path.read_text())
    return [list(r) for r in doc["tables"][0]["rows"]]


def run(pytester: pytest.Pytester, *args: str, sub: bool = False) -> pytest.RunResult:
    common = ("-p", "no:randomly", "--pairwise-history=h.json")
    if sub:
        return pytester.runpytest_subprocess(*common, *args)
    return pytester.runpytest(*common, *args)


def complete_at_2(rows: list[list[int]]) -> bool:
    model = Model(AXES)
    return measure(model, [model.decode(r) for r in rows]).complete


def test_rotation_changes_the_rows_run_after_run_and_each_run_is_complete(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=SUITE)
    seen = []
    for k in range(3):
        result = run(pytester, "--pairwise-rotate", f"--pairwise-report=r{k}.json")
        assert result.ret == 0, result.stdout.str()
        rows = rows_of(pytester.path / f"r{k}.json")
        assert len(rows) == 6 and complete_at_2(rows)
        seen.append(rows)
    assert seen[0] != seen[1] != seen[2]
    # three 6-row runs cover every triple (the bound ceil(15 / 6) = 3)
    model = Model(AXES)
    report = measure(model, [model.decode(r) for rows in seen for r in rows], strengths=[3])
    assert report.level(3).complete
    history = json.loads((pytester.path / "h.json").read_text())
    assert [len(run) for run in history["tables"][0]["runs"]] == [6, 6, 6]
    # without the flag: the fixed table, and the history is left alone
    result = run(pytester, "--pairwise-report=fixed.json")
    assert rows_of(pytester.path / "fixed.json") == seen[0]
    assert len(json.loads((pytester.path / "h.json").read_text())["tables"][0]["runs"]) == 3


#: SUITE with compile axes: a rotated run's variant list rotates too (tables/rotate_variants.py)
COMPILE_SUITE = SUITE.replace(f"@pairwise(**{AXES!r})",
                              f"@pairwise(**{AXES!r}, compile_axes=['dtype', 'padded_a', 'padded_b', 'xnorm'])")


@pytest.mark.parametrize("suite", [SUITE, COMPILE_SUITE], ids=["plain", "compile-aware"])
def test_same_history_same_rows_in_every_process_and_xdist_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, suite: str
) -> None:
    pytest.importorskip("xdist")
    assert suite.count("compile_axes") == (suite is COMPILE_SUITE)
    pytester.makepyfile(test_k=suite)
    assert run(pytester, "--pairwise-rotate").ret == 0
    assert run(pytester, "--pairwise-rotate").ret == 0
    saved = pytester.path / "saved.json"
    shutil.copy(pytester.path / "h.json", saved)
    got = []
    for seed, extra in (("1", ()), ("2", ()), ("3", ("-n", "2"))):
        shutil.copy(saved, pytester.path / "h.json")
        monkeypatch.setenv("PYTHONHASHSEED", seed)
        result = run(pytester, "--pairwise-rotate", f"--pairwise-report=s{seed}.json", *extra, sub=True)
        assert result.ret == 0, result.stdout.str()
        got.append(rows_of(pytester.path / f"s{seed}.json"))
    assert got[0] == got[1] == got[2]
    assert "Different tests were collected" not in result.stdout.str()
    # the controller wrote the -n 2 run to the history, once, with the workers' 100% counts
    entry = json.loads((pytester.path / "h.json").read_text())["tables"][0]
    assert len(entry["runs"]) == 3 and entry["coverable"] == [48, 104, 112]


def test_a_compile_aware_rotated_run_compiles_no_more_variants_and_says_which_are_new(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_k=COMPILE_SUITE)
    lines = []
    for k in range(3):
        result = run(pytester, "--pairwise-rotate", f"--pairwise-report=r{k}.json")
        assert result.ret == 0
        lines.append(result.stdout.str())
    model = Model(AXES, compile_axes=["dtype", "padded_a", "padded_b", "xnorm"])
    variants = [{model.index_model.variant(r) for r in rows_of(pytester.path / f"r{k}.json")} for k in range(3)]
    assert all(len(v) <= len(variants[0]) for v in variants[1:])
    assert variants[1] != variants[0]  # the list rotated: run 2 compiles a variant run 1 did not
    new = len(variants[1] - variants[0])
    assert (f"rotation: test_k.py::test_k: {new} of this run's {len(variants[1])} kernel variants are not the fixed "
            "table's") in lines[1]
    assert "kernel variants are not the fixed" not in lines[0]


def test_env_and_ini_turn_rotation_on(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_k=SUITE)
    monkeypatch.setenv("PAIRWISE_ROTATE", "yes")
    assert run(pytester, "--pairwise-report=a.json").ret == 0
    assert run(pytester, "--pairwise-report=b.json").ret == 0
    assert rows_of(pytester.path / "a.json") != rows_of(pytester.path / "b.json")
    monkeypatch.setenv("PAIRWISE_ROTATE", "")
    pytester.makeini("[pytest]\npairwise_rotate = true\npairwise_history = other.json\n")
    assert pytester.runpytest("-p", "no:randomly").ret == 0
    assert (pytester.path / "other.json").exists()
    monkeypatch.setenv("PAIRWISE_ROTATE", "maybe")
    result = pytester.runpytest("-p", "no:randomly")
    result.stdout.fnmatch_lines(["*PAIRWISE_ROTATE='maybe' is not a boolean*"])


def test_default_history_lives_in_pytests_cache(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--pairwise-rotate")
    # the first run of a history is a normal state: a summary line, never a warning (-W error)
    result.stdout.fnmatch_lines(["*pairwise-param: rotation: no history at *history.json yet: this run used the fixed tables*"])
    assert "PairwiseWarning" not in result.stdout.str()
    assert (pytester.path / ".pytest_cache" / "d" / "pairwise-param" / "history.json").exists()


@pytest.mark.parametrize("content", [None, "{not json", '{"schema": "pairwise-param/history", "schema_version": 7}'])
def test_missing_or_corrupt_history_falls_back_to_the_fixed_table(
    pytester: pytest.Pytester, content: str | None
) -> None:
    pytester.makepyfile(test_k=SUITE)
    assert run(pytester, "--pairwise-report=fixed.json").ret == 0
    if content is not None:
        (pytester.path / "h.json").write_text(content)
    result = run(pytester, "--pairwise-rotate", "--pairwise-report=r.json")
    assert result.ret == 0
    if content is None:
        result.stdout.fnmatch_lines(["*pairwise-param: rotation: no history at *h.json yet: this run used the fixed tables*"])
    else:
        result.stdout.fnmatch_lines(["*PairwiseWarning: --pairwise-rotate: *is corrupt*this run uses the fixed tables*"])
    assert rows_of(pytester.path / "r.json") == rows_of(pytester.path / "fixed.json")


def test_replay_runs_exactly_the_rows_of_a_past_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_k=SUITE)
    run(pytester, "--pairwise-rotate")
    run(pytester, "--pairwise-rotate", "--pairwise-report=past.json")
    past = rows_of(pytester.path / "past.json")
    run(pytester, "--pairwise-rotate")  # the history moves on
    result = run(pytester, "--pairwise-rotate", "--pairwise-replay=past.json", "--pairwise-report=again.json", "-v")
    assert result.ret == 0
    assert rows_of(pytester.path / "again.json") == past
    assert len(json.loads((pytester.path / "h.json").read_text())["tables"][0]["runs"]) == 3  # not recorded
    again = run(pytester, "--pairwise-replay=last", "--pairwise-report=last.json")
    assert again.ret == 0 and rows_of(pytester.path / "last.json") == past


def test_replay_of_another_model_or_a_bad_file_is_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=SUITE)
    run(pytester, "--pairwise-report=past.json")
    pytester.makepyfile(test_k=SUITE.replace("'bias_mode': [0, 1, 2]", "'bias_mode': [0, 1]"))
    result = run(pytester, "--pairwise-replay=past.json")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*test_k.py::test_k*--pairwise-replay=past.json: table 0 of this test was recorded for another model*"])
    (pytester.path / "bad.json").write_text("[]")
    result = run(pytester, "--pairwise-replay=bad.json")
    result.stderr.fnmatch_lines(["*--pairwise-replay=bad.json: not a pairwise-param run file*"])


def test_last_failed_reruns_the_failed_rows_of_a_rotated_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_k=SUITE)
    run(pytester, "--pairwise-rotate")
    run(pytester, "--pairwise-rotate", "--pairwise-report=r.json")
    doc: Any = json.loads((pytester.path / "r.json").read_text())
    # fail one row of the last run's rows that the fixed table does not hold
    model = Model(AXES)
    row = model.decode(doc["tables"][0]["rows"][0])
    monkeypatch.setenv("FAIL_ROW", "-".join(str(row[n]) for n in AXES))
    result = run(pytester, "--pairwise-rotate", "--pairwise-replay=r.json")
    assert result.ret == 1
    result.assert_outcomes(failed=2, passed=10)
    result = run(pytester, "--pairwise-rotate", "--lf")
    result.assert_outcomes(failed=2)
