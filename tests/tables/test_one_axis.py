"""A long free axis skips the engine (issue 24 item 9): the same rows, in milliseconds."""

from __future__ import annotations

import pytest

from pairwise_param.model import Model
from pairwise_param.tables.build import ONE_AXIS_FAST, build_table, engine_options, run_engine


@pytest.mark.parametrize("n", [ONE_AXIS_FAST, 100, 257])
def test_the_fast_path_gives_the_engines_rows(n: int) -> None:
    model = Model({"x": list(range(n))})
    table = build_table(model)
    assert table.method == "one-axis"
    assert table.rows == tuple(tuple(r) for r in run_engine(model, engine_options()).rows)


def test_constraints_and_short_axes_still_go_to_the_engine() -> None:
    assert build_table(Model({"x": list(range(ONE_AXIS_FAST - 1))})).method != "one-axis"
    constrained = Model({"x": list(range(100))}, constraints=[lambda x: x != 3])
    table = build_table(constrained)
    assert table.method != "one-axis" and (3,) not in table.rows


def test_an_axis_of_10000_values_collects_every_value(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(x=list(range(10000)))
        def test_axis(x):
            pass
        """
    )
    res = pytester.runpytest("--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider")
    res.stdout.fnmatch_lines(["*test_axis[[]x=0[]]", "*test_axis[[]x=9999[]]", "10000 tests collected*"])
