"""Invalid values through the plugin (pytester): the negative rows carry the
``pairwise_invalid`` mark and fixture, the summary counts them apart, full mode
pairs each invalid value with the full product of the valid others."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

SUITE = """
import pytest
from pairwise_param import pairwise, invalid

def op(k, n, dtype):
    if k % 8:
        raise ValueError(f"k={k} must be a multiple of 8")
    if not 1 <= n <= 4:
        raise ValueError(f"n={n} out of range")
    return k * n

@pairwise(k=[64, 128, invalid(60, reason="not a multiple of 8")], n=[1, 4, invalid(0), invalid(5)],
          dtype=["f16", "bf16"])
def test_op(k, n, dtype, pairwise_invalid):
    if pairwise_invalid is None:
        assert op(k, n, dtype) == k * n
    else:
        assert pairwise_invalid.axis in ("k", "n")
        with pytest.raises(ValueError):
            op(k, n, dtype)

@pytest.mark.pairwise_invalid
def test_marker_is_registered():
    pass
"""


def test_negative_rows_marked_and_counted(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_neg=SUITE)
    result = pytester.runpytest("-v", "--strict-markers")
    # valid part: 2x2x2 -> 4 rows; k=60: 2 rows (n, dtype have 2 valid values); n=0, n=5: 2 each
    result.assert_outcomes(passed=4 + 6 + 1)
    result.stdout.fnmatch_lines(
        [
            ("pairwise-param: 4 items from 1 table stand for 8 full-product items (2.0x fewer), t=2; "
            "+ 6 invalid-value items (one invalid value each)*")
        ]
    )
    ids = re.findall(r"test_op\[(\S+)\] PASSED", result.stdout.str())
    assert sum(1 for i in ids if "k=60" in i) == 2
    assert not any("k=60" in i and ("n=0" in i or "n=5" in i) for i in ids)


def test_full_mode_pairs_each_invalid_value_with_the_full_product(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_neg=SUITE)
    result = pytester.runpytest("--pairwise-mode=full", "-q")
    # valid: 2*2*2 = 8; k=60 with 2*2 valid others, n=0 and n=5 with 2*2 each: 12
    result.assert_outcomes(passed=8 + 12 + 1)


def test_wrong_expectation_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_bad="""
from pairwise_param import pairwise, invalid

@pairwise(a=[1, 2, invalid(3)], b=[0, 1])
def test_a(a, b, pairwise_invalid):
    assert pairwise_invalid is None
"""
    )
    result = pytester.runpytest("-q", "-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=2)  # a: 2 valid x b: 2; a=3 with b=0, b=1


def test_unsatisfiable_invalid_value_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_bad="""
from pairwise_param import pairwise, invalid

@pairwise(a=[1, 2, invalid(3)], b=[0, 1], constraints=[lambda a: a != 3])
def test_a(a, b):
    pass
"""
    )
    result = pytester.runpytest("-q")
    result.stdout.fnmatch_lines(["*invalid value a=3: no row that holds it*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_report_counts_the_negative_part_apart(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.delenv("COLUMNS", raising=False)  # one line per test (a narrow COLUMNS stacks the table)
    pytester.makepyfile(test_neg=SUITE)
    result = pytester.run(sys.executable, "-m", "pairwise_param.cli", "report", "test_neg.py", "--show-missing")
    out = result.stdout.str()
    # the valid part is complete at t=2 (its own model: the invalid values are not axis values)
    assert re.search(r"test_op\s.*100%", out), out
    assert "+ 6 invalid-value row(s), one invalid value each" in out
    assert "outside the model" not in out
