"""``ids="stacked"`` (contract.ID_STYLES): the ids and full-mode order of stacked parametrize."""

from __future__ import annotations

import pytest

from pairwise_param.contract import ID_STYLES
from pairwise_param.tables.ids import row_ids, stacked_order

SOURCE = """
import pytest
from pairwise_param import pairwise

@pytest.mark.parametrize("n", [1, 64])
{decorators}
def test_x(n, dtype, flag, m):
    pass
"""
STACKED = """@pytest.mark.parametrize("dtype", ["fp16", "bf16", None])
@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("m", [object(), 2.5])"""
PAIRWISE = '@pairwise(dtype=["fp16", "bf16", None], flag=[True, False], m=[object(), 2.5], ids="stacked")'


def test_the_style_is_declared_once() -> None:
    assert "stacked" in ID_STYLES


def test_row_ids_join_the_last_axis_first_and_the_order_is_last_axis_slowest() -> None:
    axes = [(["a"], ["x", "y"]), (["b"], [1, 2])]
    rows = [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert row_ids(axes, rows, None, "stacked") == ["1-x", "2-x", "1-y", "2-y"]
    assert [rows[i] for i in stacked_order(rows)] == [(0, 0), (1, 0), (0, 1), (1, 1)]


def test_full_mode_gives_the_stacked_node_ids_in_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a=SOURCE.format(decorators=STACKED), test_b=SOURCE.format(decorators=PAIRWISE))

    def ids(name: str, *args: str) -> list[str]:
        # no:randomly: pytest-randomly (in the CI range) would shuffle both listings
        res = pytester.runpytest_inprocess(name, "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args)
        return [ln.split("::", 1)[1] for ln in res.stdout.lines if "::" in ln]

    before = ids("test_a.py")
    assert len(before) == 24 and ids("test_b.py", "--pairwise-mode=full") == before
    assert set(ids("test_b.py")) < set(before)  # the covering rows are original ids too
