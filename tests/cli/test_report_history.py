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
