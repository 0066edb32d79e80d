"""--pairwise-mirror (issue 36): mirror jobs that each run the whole suite on another
platform take different complete tables, and `report --run` unites them row by row: each
job complete at t, the union covering more (t+1)-tuples than one table; a job missing or
given twice is named; mirror jobs do not combine with rotation or replay."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["f16", "bf16", "f32"], bias=[True, False], act=["relu", "gelu", "silu"], fused=[True, False],
          layout=["nt", "tn"])
@pytest.mark.parametrize("n", [1, 7])
def test_kernel(dtype, bias, act, fused, layout, n):
    pass
"""


def _job(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, job: str, platform: str, *extra: str) -> Any:
    monkeypatch.setenv("PAIRWISE_PLATFORM", platform)
    out = f"{platform}-{job.replace('/', 'of')}.json"
    result = pytester.runpytest_subprocess("-p", "no:randomly", f"--pairwise-mirror={job}", f"--pairwise-report={out}",
                                           *extra)
    assert result.ret == 0, result.stdout.str()
    return json.loads((pytester.path / out).read_text()), out


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    capsys.readouterr()
    code = main(["report", "--run", *args, "--strength", "2", "--strength", "3", "--format", "json"])
    got = capsys.readouterr()
    return code, json.loads(got.out), got.err


def test_two_mirror_jobs_run_different_complete_tables_and_unite(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    cuda, a = _job(pytester, monkeypatch, "1/2", "cuda")
    rocm, b = _job(pytester, monkeypatch, "2/2", "rocm")
    assert cuda["mirror"] == {"index": 0, "count": 2} and rocm["mirror"] == {"index": 1, "count": 2}
    rows_a, rows_b = cuda["tables"][0]["rows"], rocm["tables"][0]["rows"]
    assert rows_a != rows_b
    # each job complete at t=2 by itself
    for one in (a, b):
        capsys.readouterr()
        assert main(["report", "--run", one, "--fail-under", "100"]) == ExitCode.OK
    # the union: every row of both, executed, 2-way complete, more 3-tuples than either job
    code, union, err = _report(capsys, a, b)
    assert code == ExitCode.OK, err
    (table,) = union["tables"]
    assert {tuple(r) for r in table["rows"]} == {tuple(r) for r in rows_a} | {tuple(r) for r in rows_b}
    assert table["coverage"]["executed"] == table["coverage"]["collected"]  # every pair, executed
    _, single, _ = _report(capsys, a)
    assert _triples(table) > _triples(single["tables"][0])


def _triples(table: dict[str, Any]) -> int:
    """3-tuples the executed rows cover, counted here from the rows (independent of the report)."""
    import itertools

    ran = {i["row"] for i in table["items"] if i["outcome"] in ("passed", "failed")}
    rows = [table["rows"][r] for r in ran]
    return len({tuple((a, r[a]) for a in s) for r in rows for s in itertools.combinations(range(len(r)), 3)})


def test_a_missing_or_doubled_mirror_job_fails_the_gate(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    _, a = _job(pytester, monkeypatch, "1/3", "cuda")
    _, b = _job(pytester, monkeypatch, "2/3", "rocm")
    (pytester.path / "again.json").write_text((pytester.path / b).read_text())
    capsys.readouterr()
    code = main(["report", "--run", a, b, "again.json", "--fail-under", "100"])
    out = capsys.readouterr().out
    assert code == ExitCode.COVERAGE_BELOW
    assert "mirror job 3 of 3 missing" in out and "mirror job 2 of 3 given twice" in out
    # per platform: each platform's union is gated, the set of jobs once
    capsys.readouterr()
    code = main(["report", "--run", a, b, "--per-platform", "--fail-under", "100"])
    out = capsys.readouterr().out
    assert code == ExitCode.COVERAGE_BELOW and "the mirror jobs as a set" in out and "mirror job 3 of 3 missing" in out


def test_mirror_jobs_with_another_model_still_disagree(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    _, a = _job(pytester, monkeypatch, "1/2", "cuda")
    pytester.makepyfile(test_suite=SUITE.replace('"silu"]', '"silu", "tanh"]'))
    _, b = _job(pytester, monkeypatch, "2/2", "rocm")
    capsys.readouterr()
    assert main(["report", "--run", a, b]) == ExitCode.USAGE_ERROR
    assert "ran another table" in capsys.readouterr().err


def test_full_mode_runs_the_full_product_in_every_job(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_suite=SUITE)
    a, _ = _job(pytester, monkeypatch, "1/2", "cuda", "--pairwise-mode=full")
    b, _ = _job(pytester, monkeypatch, "2/2", "rocm", "--pairwise-mode=full")
    assert a["tables"][0]["rows"] == b["tables"][0]["rows"] and len(a["tables"][0]["rows"]) == 72


@pytest.mark.parametrize(("args", "said"), [
    (["--pairwise-mirror=2/2", "--pairwise-rotate"], "does not combine with --pairwise-rotate"),
    (["--pairwise-mirror=3/2"], "mirror job 3 of 2 does not exist"),
    (["--pairwise-mirror=two"], "give K/N"),
])
def test_bad_mirror_options_are_usage_errors(pytester: pytest.Pytester, args: list[str], said: str) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:randomly", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert said in result.stderr.str()
