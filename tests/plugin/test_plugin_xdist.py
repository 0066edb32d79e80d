"""pytest-xdist: every worker collects the same items (ids and order)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdist")

SUITE = """
import enum
import pytest
from pairwise_param import pairwise

class Kind(enum.Enum):
    A = "a"
    B = "b"

@pairwise(
    dtype=["fp16", "bf16", "fp32"], kind=[Kind.A, Kind.B], flag=[False, True], k=[1, 2, 3], s=["x", "y"],
    constraints=[lambda dtype, k: not (dtype == "fp32" and k == 3)],
)
@pytest.mark.parametrize("n", [1, 64])
def test_many(n, dtype, kind, flag, k, s):
    assert not (dtype == "fp32" and k == 3)

class TestC:
    @pairwise({"n,m": [(1, 2), (3, 4), (5, 6)]}, frozen=[frozenset({1}), frozenset({2})], z=[None, 0])
    def test_grouped(self, n, m, frozen, z):
        pass
"""


def ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if re.fullmatch(r"\S+::\S+\[.*\]", line)]


def test_xdist_workers_collect_identically(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)  # each process draws its own hash seed
    pytester.makepyfile(test_suite=SUITE)
    serial = pytester.runpytest_subprocess("--collect-only", "-q")
    expected = ids(serial)
    assert len(expected) > 10 and len(set(expected)) == len(expected)
    # A real distributed run: xdist itself fails the run ("Different tests were
    # collected between gw0 and gw1") if the workers' collections differ; the
    # workers run with different (random) hash seeds.
    result = pytester.runpytest_subprocess("-n", "2", "-v", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    ran_ids = sorted(
        line.split(" PASSED ", 1)[1].strip()
        for line in result.outlines
        if line.startswith("[gw") and " PASSED " in line
    )
    assert ran_ids == sorted(expected)
    assert "Different tests were collected" not in result.stdout.str()
    # the controller reports the summary although only workers collected
    result.stdout.fnmatch_lines([f"pairwise-param: {len(expected)} items from 2 tables stand for *"])


def test_xdist_collection_error_reported_once(pytester: pytest.Pytester) -> None:
    """A model error is one collection error, not one per worker (xdist de-duplicates
    collection errors by their report, which must therefore be our plain message)."""
    pytester.makepyfile(
        test_bad="""
        from pairwise_param import pairwise

        @pairwise(dtype=["a", "b"], bias=[0, 1], strength=3)
        def test_s(dtype, bias):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    out = result.stdout.str()
    # Count in the ERRORS section only: the short summary line repeats the message
    # when it is not truncated (pytest never truncates it when CI is set).
    errors_section = out.split("short test summary info")[0]
    assert out.count("ERROR collecting test_bad.py") == 1, out
    assert errors_section.count("so strength must be 1..2") == 1, out
    result.stdout.fnmatch_lines(["*= 1 error in *"])
    assert "2 errors" not in out
