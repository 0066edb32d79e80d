"""``@pairwise`` + Hypothesis ``@given`` through real inner sessions, with the
example database ON (a directory database in the inner session's tmp dir):
each row is a test of its own to Hypothesis (its own database key, a class
method may run on each row's instance)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

# Explicit settings: the database on whatever profile the outer session loaded
# (the `ci` profile is derandomized, which would also be fine, but be explicit).
HEADER = """
import pathlib
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from pairwise_param import pairwise

DB = DirectoryBasedExampleDatabase(str(pathlib.Path(__file__).parent / "hypo-db"))
LOG = pathlib.Path(__file__).parent / "calls.log"
"""


def test_class_method_rows_pass_the_differing_executors_health_check(pytester: pytest.Pytester) -> None:
    # was: 5 of 6 rows failed "called from multiple different executors"
    pytester.makepyfile(
        test_cls=HEADER
        + """
class TestKernel:
    @pairwise(dtype=["fp16", "bf16"], bias=[0, 1, 2], xnorm=[False, True])
    @settings(database=DB, max_examples=5)
    @given(n=st.integers(1, 8))
    def test_rows(self, dtype, bias, xnorm, n):
        assert n >= 1
"""
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=6)
    assert "different executors" not in result.stdout.str()


def test_each_row_has_its_own_database_key_so_a_failure_replays(pytester: pytest.Pytester) -> None:
    # was: all rows shared one key; row "b" replayed row "a"'s saved failure,
    # found it passing and deleted it, so the next run never replayed it
    pytester.makepyfile(
        test_db=HEADER
        + """
@pairwise(kind=["a", "b", "c"], flag=[False, True])
@settings(database=DB, max_examples=60, derandomize=False)
@given(x=st.integers(0, 10_000))
def test_rows(kind, flag, x):
    with LOG.open("a") as f:
        f.write(f"{kind}-{flag} {x}\\n")
    assert not (kind == "a" and x >= 3)
"""
    )
    first = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    first.assert_outcomes(passed=4, failed=2)
    log = pytester.path / "calls.log"
    log.unlink()
    second = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    second.assert_outcomes(passed=4, failed=2)
    calls: dict[str, list[int]] = {}
    for line in log.read_text().splitlines():
        row, x = line.split()
        calls.setdefault(row, []).append(int(x))
    # the second run starts each failing row from its own saved (shrunk) failure
    assert calls["a-False"][0] == 3 and calls["a-True"][0] == 3
    # and the passing rows never saw the failing rows' examples replayed as their first
    assert all(calls[r][0] != 3 for r in calls if not r.startswith("a-"))
    # every row stored under its own key (one directory per key in the database)
    keys = [p for p in (pytester.path / "hypo-db").iterdir() if p.is_dir()]
    assert len(keys) >= 2


def test_row_mark_is_not_read_as_a_parametrize_of_the_user(pytester: pytest.Pytester) -> None:
    # the one-row parametrize mark each item of a @given test carries is the plugin's
    # own; the pytest expansion does not see it (no doubled items) and pytest's
    # parametrize-vs-pairwise collision check does not fire on it.  A test without
    # @given gets no such mark (the plugin finds an item's row without it)
    pytester.makepyfile(
        test_m="""
        import pytest
        from hypothesis import given, settings, strategies as st
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[3, 4])
        @pytest.mark.parametrize("n", [7, 8])
        @settings(max_examples=2, database=None)
        @given(x=st.integers(0, 3))
        def test_m(request, a, b, n, x):
            marks = [m for m in request.node.iter_markers("parametrize")]
            assert len(marks) == 2
            row = [m for m in marks if m.kwargs.get("pairwise_row")]
            assert len(row) == 1 and row[0].args[0] == ["a", "b"]
            assert row[0].args[1][0].values == (a, b)

        @pairwise(a=[1, 2], b=[3, 4])
        @pytest.mark.parametrize("n", [7, 8])
        def test_plain(request, a, b, n):
            marks = [m for m in request.node.iter_markers("parametrize")]
            assert len(marks) == 1 and not marks[0].kwargs.get("pairwise_row")
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=16)
