"""``pairwise_param.report.analyze`` on hand-built collections (no pytest
session): the option-axis rule and the counts, in isolation."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from pairwise_param.report import (
    CollectedItem,
    Collection,
    MarkInfo,
    analyze,
    has_key_column,
    is_shape_like,
)


def collection(marks: list[MarkInfo], rows: list[dict[str, Any]], specs: list[Any] | None = None) -> Collection:
    test_id = "test_x.py::test_f"
    items = [
        CollectedItem(f"{test_id}[{i}]", test_id, "test_x.py", None, "test_f", dict(r)) for i, r in enumerate(rows)
    ]
    return Collection(items=items, marks={test_id: (marks, specs or [])}, errors=[], pytest_exit=0)


def product(marks: list[MarkInfo]) -> list[dict[str, Any]]:
    out = []
    for combo in itertools.product(*(m.rows for m in marks)):
        row: dict[str, Any] = {}
        for m, values in zip(marks, combo):
            row.update(zip(m.argnames, values))
        out.append(row)
    return out


@pytest.mark.parametrize(
    "rows, shape, key",
    [
        ([(1, 8, 16), (2, 64, 64), (2, 8, 64), (1, 64, 16)], True, False),
        ([(1, 8, 16), (1, 8, 32)], True, True),
        ([(True, 1, 2), (False, 1, 3), (True, 2, 3), (False, 2, 2)], False, False),  # bools are not shapes
        ([("fp16", 1e-3), ("bf16", 1e-2)], False, True),  # a tolerance per dtype: a key column
        ([("a", True), ("a", False), ("b", True)], False, False),
        ([("a", True)], False, True),  # one row: nothing to pair
    ],
)
def test_classification(rows: list[tuple[Any, ...]], shape: bool, key: bool) -> None:
    mark = MarkInfo(tuple("xyz"[: len(rows[0])]), tuple(rows))
    assert is_shape_like(mark) is shape
    assert has_key_column(mark) is key


def test_vllm_style_option_rows_times_shapes() -> None:
    options = MarkInfo(
        ("dtype", "padded_a", "padded_b", "bias_mode", "xnorm"),
        (
            ("bf16", False, False, 0, False),
            ("fp16", True, True, 0, True),
            ("bf16", False, True, 1, True),
            ("fp16", True, False, 1, False),
            ("bf16", True, False, 2, True),
            ("fp16", False, True, 2, False),
        ),
    )
    shapes = MarkInfo(("n", "k", "m"), tuple((n, 64 * n, 16) for n in range(1, 19)))  # 18 shapes
    marks = [shapes, options]  # iter_markers order: closest (bottom) decorator first
    report = analyze(collection(marks, product(marks)), strengths=(2,))
    [test] = report.tests
    assert (test.full_product, test.collected) == (48 * 18, 6 * 18)  # 864 -> 108, as upstream
    assert [a.name for a in test.axes] == ["dtype", "padded_a", "padded_b", "bias_mode", "xnorm", "n,k,m"]
    [table] = test.tables
    assert (table.rows, table.full_product) == (6, 48)
    two = table.at(2)
    assert two is not None and (two.covered, two.coverable) == (48, 48)
    assert two.cumulative[-1] == 48 and len(two.cumulative) == 6
    assert report.totals.coverage == {2: (48, 48)}


def test_forced_option_axes_split_a_mark() -> None:
    mark = MarkInfo(("dtype", "atol", "n"), (("fp16", 1e-3, 1), ("bf16", 1e-2, 1), ("fp16", 1e-3, 2)))
    coll = collection([mark], product([mark]))
    test = analyze(coll, strengths=(2,), option_axes=["dtype"]).tests[0]
    # dtype alone is the table (2 values); atol,n ride along with it: fp16 has two variants
    # of them, so FULL is 2 * 2 (not 2 * 3, the old double count of issue 10)
    assert [t.axes for t in test.tables] == [("dtype",)]
    assert test.full_product == 2 * 2
    assert test.tables[0].at(2) is None  # one axis: no pairs to measure


def test_unparametrized_tests_are_counted_apart() -> None:
    coll = collection([], [{}])
    report = analyze(coll)
    assert report.tests == [] and report.unparametrized == 1
    report = analyze(coll, include_unparametrized=True)
    assert [(t.full_product, t.collected) for t in report.tests] == [(1, 1)]


def test_forced_option_axes_do_not_multiply_the_rest_of_their_mark() -> None:
    """Issue 10: ``[dtype:2 bias:2 -> 4/4] x atol:2`` printed FULL 8 for a 4-item product."""
    rows = (("fp16", True, 1e-3), ("fp16", False, 1e-3), ("bf16", True, 1e-2), ("bf16", False, 1e-2))
    mark = MarkInfo(("dtype", "bias", "atol"), rows)
    test = analyze(collection([mark], product([mark])), strengths=(2,), option_axes=["dtype,bias"]).tests[0]
    assert test.full_product == 4 and test.collected == 4
    assert any("rides along" in n for n in test.notes)
