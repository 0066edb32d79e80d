"""`pairwise-param report --history PATH`: accumulated coverage of the rotated tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode

SUITE = """
from pairwise_param import pairwise

@pairwise(dtype=["bf16", "fp16"], padded_a=[False, True], padded_b=[False, True], bias_mode=[0, 1, 2],
          xnorm=[False, True])
def test_k(dtype, padded_a, padded_b, bias_mode, xnorm):
    pass
"""


@pytest.fixture
def history(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(test_k=SUITE)
    for _ in range(3):
        assert pytester.runpytest("-p", "no:randomly", "--pairwise-rotate", "--pairwise-history=h.json").ret == 0
    return pytester.path / "h.json"


def test_terminal_markdown_and_json(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--history", str(history)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "test_k.py::test_k  3     6     100.0% (48/48) t=2  100.0% (104/104) t=3" in out
    assert out.splitlines()[2].endswith("reached")
    assert main(["report", "--history", str(history), "--last", "2", "--format", "markdown"]) == ExitCode.OK
    md = capsys.readouterr().out
    assert md.startswith("### pairwise-param: accumulated coverage of the rotated tables over the last 2 runs")
    row = md.splitlines()[-1]
    assert row.startswith("| test_k.py::test_k | 2 | 6 | 100.0% (48/48) t=2 |") and row.endswith("| 1 |")
    assert main(["report", "--history", str(history), "--format", "json", "--last", "1"]) == ExitCode.OK
    doc = json.loads(capsys.readouterr().out)
    entry = doc["tables"][0]
    assert entry["covered"][0] == 48 and entry["coverable"] == [48, 104, 112] and entry["runs"] == 1
    assert 0 < entry["covered"][1] < 104 and entry["more_runs"] == 1  # one run: the rest fits in one more


def test_a_missing_history_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--history", str(tmp_path / "none.json")]) == ExitCode.USAGE_ERROR
    assert "--history: no history file at" in capsys.readouterr().err


def test_fail_under_gates_the_accumulated_coverage(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35: --fail-under and --strength were ignored under --history (exit 0 at 94.7%)."""
    assert main(["report", "--history", str(history), "--fail-under", "100"]) == ExitCode.OK
    capsys.readouterr()
    # three runs reach 100% at t+1 (the test above); the last run alone does not
    assert main(["report", "--history", str(history), "--fail-under", "100", "--strength", "3"]) == ExitCode.OK
    capsys.readouterr()
    code = main(["report", "--history", str(history), "--last", "1", "--fail-under", "99", "--strength", "3"])
    assert code == ExitCode.COVERAGE_BELOW
    err = capsys.readouterr().err
    assert "below --fail-under: test_k.py::test_k: 3-way" in err and "over 1 runs < 99%" in err
    # strength 2 (the table's own) is met by every run, so the same window passes at t
    assert main(["report", "--history", str(history), "--last", "1", "--fail-under", "100"]) == ExitCode.OK
    capsys.readouterr()
    code = main(["report", "--history", str(history), "--fail-under", "100", "--strength", "5"])
    assert code == ExitCode.USAGE_ERROR
    assert "strength 5 is not recorded (the history measures t=2 to t+2=4)" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--plot", "h.png"], ["--grouped", "a,b"], ["--show-missing"],
                                   ["--option-axes", "dtype"]])
def test_options_of_a_collection_are_refused(history: Path, capsys: pytest.CaptureFixture[str],
                                             extra: list[str]) -> None:
    assert main(["report", "--history", str(history), *extra]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert f"{extra[0]} does not apply to it" in err or f"{extra[0]}," in err


def test_last_without_history_and_run_with_history_are_refused(history: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--last", "2", str(history.parent / "test_k.py")]) == ExitCode.USAGE_ERROR
    assert "--last N applies to --history" in capsys.readouterr().err
    assert main(["report", "--run", "r.json", "--history", str(history)]) == ExitCode.USAGE_ERROR
    assert "--run FILE and --history PATH are two reports" in capsys.readouterr().err
