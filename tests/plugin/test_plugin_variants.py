"""A table with compile axes runs variant by variant (plugin/variants.py): the items of
one variant are consecutive, the summary line counts the variants, and under
pytest-xdist every item carries an ``xdist_group`` mark of its test and variant."""

from __future__ import annotations

import re

import pytest

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["f16", "bf16", "f32"], bias=[0, 1, 2], x=[False, True], y=[0, 1], z=[0, 1, 2, 3],
          compile_axes=["dtype", "x"])
@pytest.mark.parametrize("n", [1, 2])
def test_k(n, dtype, bias, x, y, z):
    pass

@pairwise(dtype=["f16", "bf16"], w=[0, 1, 2])
def test_plain(dtype, w):
    pass
"""

CONFTEST = """
def pytest_collection_finish(session):
    for item in session.items:
        mark = item.get_closest_marker("xdist_group")
        print("GROUP", item.nodeid, mark.kwargs["name"] if mark else None)
"""

ID = re.compile(r"test_suite\.py::test_k\[dtype=(\w+)-bias=\d-x=(True|False)-.*\]")


def _variant_runs(lines: list[str]) -> list[tuple[str, str]]:
    """The (dtype, x) of consecutive test_k items, one entry per run of equal variants."""
    runs: list[tuple[str, str]] = []
    for line in lines:
        m = ID.search(line)
        if m and (not runs or runs[-1] != m.groups()):
            runs.append(m.groups())  # type: ignore[arg-type]
    return runs


def test_items_of_one_variant_run_consecutively(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    # pytest-randomly (where installed) shuffles the items after the grouping: its order is
    # the one asked for then (docs/how-to/compile-aware.md), so the grouping is seen without it
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
    runs = _variant_runs(result.outlines)
    assert len(runs) == len(set(runs)) == 6  # each of the 6 variants once, all its items together
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["pairwise-param: 30 items from 2 tables stand for *, t=2, 6 variants (compile_axes)"])


def test_plain_tables_keep_their_order_and_summary(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE.replace('\n          compile_axes=["dtype", "x"])', ")"))
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    assert result.ret == 0
    assert "variants" not in result.stdout.str()


def test_xdist_groups_are_marked_per_test_and_variant(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(test_suite=SUITE)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest("--collect-only", "-q", "-s", "-p", "no:cacheprovider")
    groups = [line.split(" ", 2)[1:] for line in result.outlines if line.startswith("GROUP ")]
    names = {nodeid: name for nodeid, name in groups}
    k_groups = {name for nodeid, name in names.items() if "test_k[" in nodeid}
    assert len(k_groups) == 6
    assert all(name.startswith("test_suite.py::test_k[dtype=") for name in k_groups)
    assert all(name == "None" for nodeid, name in names.items() if "test_plain" in nodeid)
    result = pytester.runpytest("-n", "2", "--dist", "loadgroup", "-q", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*6 variants (compile_axes)*", "*30 passed*"])
