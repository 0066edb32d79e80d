"""``pairwise-param localize`` on planted faults (pytester): the last run is read from
pytest's cache, follow-up rows run in a subprocess pytest, and the planted
combination is what comes out; plus the pure parts (row building under
constraints, determinism of the requests)."""

from __future__ import annotations

import json
import sys

import pytest

from pairwise_param import Model
from pairwise_param.runs.localize import build_row, groups, requests

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16", "fp32"], padded_a=[False, True], bias_mode=[0, 1, 2],
          xnorm=[False, True], tile=[16, 32, 64])
def test_kernel(dtype, padded_a, bias_mode, xnorm, tile):
{body}
"""


def _suite(pytester: pytest.Pytester, body: str) -> None:
    pytester.makepyfile(test_k=SUITE.format(body=body))
    pytester.runpytest("-q", "-p", "no:randomly")  # the run whose outcomes localize reads
    assert (pytester.path / ".pytest_cache" / "v" / "pairwise" / "lastrun").is_file()


def _localize(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-m", "pairwise_param.cli", "localize", "test_k.py", *args)


def _extra(result: pytest.RunResult) -> int:
    line = next(ln for ln in result.outlines if ln.startswith("pairwise-param localize:"))
    return int(line.split(": ")[1].split()[0])


def test_two_value_fault(pytester: pytest.Pytester) -> None:
    _suite(pytester, "    assert not (dtype == 'bf16' and tile == 64), 'bf16 tile 64'")
    result = _localize(pytester, "--budget", "20")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*found: {dtype=bf16, tile=64}*", "*reproduce with plain pytest:*",
                                 "    pytest 'test_k.py::test_kernel?dtype=bf16-*tile=64?'"])
    assert 1 <= _extra(result) <= 20
    # the user's cache is untouched by the follow-up runs: localize again does the same
    again = _localize(pytester, "--budget", "20")
    assert again.stdout.lines == result.stdout.lines
    # the printed node id fails with plain pytest
    nodeid = next(ln for ln in result.outlines if ln.startswith("    pytest '")).split("'")[1]
    pytester.runpytest(nodeid, "-q").assert_outcomes(failed=1)


def test_single_value_fault(pytester: pytest.Pytester) -> None:
    _suite(pytester, "    assert tile != 32")
    result = _localize(pytester)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*found: {tile=32}*"])


def test_two_faults_in_one_table(pytester: pytest.Pytester) -> None:
    body = (
        "    if dtype == 'bf16' and tile == 64:\n"
        "        raise ValueError('bf16 x 64')\n"
        "    if padded_a and bias_mode == 2:\n"
        "        raise TypeError('padded bias')\n"
    )
    _suite(pytester, body)
    result = _localize(pytester, "--budget", "40")
    out = result.stdout.str()
    assert "found: {dtype=bf16, tile=64}" in out
    assert "found: {padded_a=True, bias_mode=2}" in out
    assert result.ret == 0


def test_mixed_outcomes_skips_and_xfails_are_not_passes(pytester: pytest.Pytester) -> None:
    body = (
        "    if xnorm and tile == 16:\n"
        "        pytest.skip('no xnorm at 16')\n"
        "    if dtype == 'fp32' and bias_mode == 1:\n"
        "        pytest.xfail('known')\n"
        "    assert not (dtype == 'fp16' and padded_a), 'fp16 padded'\n"
    )
    _suite(pytester, body)
    result = _localize(pytester, "--budget", "30")
    result.stdout.fnmatch_lines(["*found: {dtype=fp16, padded_a=True}*"])


def test_fault_beyond_strength_is_reported_honestly(pytester: pytest.Pytester) -> None:
    _suite(pytester, "    assert not (dtype == 'bf16' and tile == 64 and xnorm), 'three'")
    result = _localize(pytester, "--budget", "6")
    assert _extra(result) <= 6
    if result.ret != 0:
        result.stdout.fnmatch_lines(["*candidate(s) remain*"])


def test_budget_is_a_hard_limit(pytester: pytest.Pytester) -> None:
    _suite(pytester, "    assert not (dtype == 'bf16' and tile == 64)")
    result = _localize(pytester, "--budget", "1")
    assert _extra(result) <= 1
    assert result.ret in (0, 1)


def test_no_last_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k="def test_a(): pass")
    result = _localize(pytester)
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*no last run*"])


def test_nothing_failed(pytester: pytest.Pytester) -> None:
    _suite(pytester, "    pass")
    result = _localize(pytester)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*nothing to localize*"])


def test_requests_are_deterministic(pytester: pytest.Pytester) -> None:
    _suite(pytester, "    assert not (dtype == 'bf16' and tile == 64)")
    doc = json.loads((pytester.path / ".pytest_cache" / "v" / "pairwise" / "lastrun").read_text())
    first = requests(groups(doc), 10)
    second = requests(groups(json.loads(json.dumps(doc))), 10)
    assert first == second and first
    assert all(r["test"] == "test_k.py::test_kernel" for r in first)


def test_build_row_respects_constraints() -> None:
    model = Model({"a": [0, 1, 2], "b": [0, 1], "c": [0, 1]},
                  constraints=[lambda a, c: not (a == 1 and c == 0)])
    # keep b=1; prefer a=1 and c=0 first: that pair is forbidden, so c moves on
    row = build_row(model, {"keep": [[1, 1]], "prefer": [[1, 0, 2], [1], [0, 1]]})
    assert row == (1, 1, 1)
    # a row already run is not asked for again
    assert build_row(model, {"keep": [[1, 1]], "prefer": [[1, 0, 2], [1], [0, 1]], "exclude": [[1, 1, 1]]}) == (0, 1, 0)
    assert build_row(model, {"keep": [[0, 1], [2, 0]], "prefer": [[1], [0, 1], [0]]}) is None


def test_cli_help_lists_localize() -> None:
    from pairwise_param.cli.main import main

    assert main(["localize", "--help"]) == 0


def test_follow_up_rounds_under_xdist(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    _suite(pytester, "    assert not (dtype == 'bf16' and tile == 64), 'bf16 tile 64'")
    serial = _localize(pytester, "--budget", "20")
    spread = _localize(pytester, "--budget", "20", "--", "-n", "2")
    assert spread.ret == 0
    spread.stdout.fnmatch_lines(["*found: {dtype=bf16, tile=64}*"])
    assert _extra(spread) == _extra(serial)
