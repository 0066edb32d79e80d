"""``report --run`` validates its file as every reader does (runs.document.load): figures
out of range, a strength above the axes, indices outside their axes are usage errors naming
the place, never a report (QA round 4, L2: 26 of 42 malformed files were accepted)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], bias=[0, 1, 2], xnorm=[False, True])
def test_k(dtype, bias, xnorm):
    if xnorm:
        pytest.skip("no xnorm here")
"""


@pytest.fixture
def good(pytester: pytest.Pytester) -> dict[str, Any]:
    pytester.makepyfile(test_k=SUITE)
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json")
    return json.loads((pytester.path / "run.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: (d["tables"][0]["axes"][0]["values"].pop(), d["tables"][0]["axes"][0]["reprs"].pop()),
     "a value index outside its axis"),
    (lambda d: d["tables"][0].update(strength=99), "$.tables[0].strength: 99, but the table has 3 axes"),
    (lambda d: d.update(tables=None), "$.tables: None is not array"),
    (lambda d: d["tables"][0]["coverage"].update(percent=110.8), "110.8 is above the maximum 100"),
    (lambda d: d["tables"][0]["counts"].update(executed=0), "$.tables[0].counts.executed: 0, but the items say"),
])
def test_a_malformed_run_file_is_a_usage_error_naming_the_place(
    good: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    mutate: Callable[[dict[str, Any]], Any], message: str,
) -> None:
    mutate(good)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(good))
    assert main(["report", "--run", str(bad), "--fail-under", "0"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert f"--run {str(bad)!r}: malformed run file" in err and message in err, err


def test_deeply_nested_json_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "deep.json"
    bad.write_text("[" * 100_000)
    assert main(["report", "--run", str(bad)]) == ExitCode.USAGE_ERROR
    assert "nested too deep" in capsys.readouterr().err
