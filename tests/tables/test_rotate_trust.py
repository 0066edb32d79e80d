"""Rotated tables you can trust (issue 38, QA round 4 D8, D9): no duplicate row, and a
bounded cost (work units and memory) whatever the model's size."""

from __future__ import annotations

import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import Model
from pairwise_param.tables.build import build_table, verified
from pairwise_param.tables.rotate import LEVEL_LIMIT, WORK_BUDGET, Budget, rotate, tuple_count
from tests.tables.test_rotate import rotated_runs


def test_the_qa_model_rotates_without_a_duplicate_row() -> None:
    """D8: x0=3, x1=4, x2=2: the fourth run had 13 rows of which 12 distinct."""
    model = Model({"x0": [0, 1, 2], "x1": [0, 1, 2, 3], "x2": [0, 1]})
    for run in rotated_runs(model, 8):
        assert len(run) == len(set(run))


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.integers(2, 4), min_size=3, max_size=4), st.integers(2, 4))
def test_rotated_tables_never_repeat_a_row(sizes: list[int], count: int) -> None:
    model = Model({f"a{i}": list(range(s)) for i, s in enumerate(sizes)})
    for run in rotated_runs(model, count):
        assert len(run) == len(set(run))
        assert verified(model, build_table(model).__class__(rows=tuple(run), infeasible=(), method="rotated"))


def test_tuple_count_is_the_number_of_tuples_without_listing_them() -> None:
    assert tuple_count([2, 3, 4], 2) == 2 * 3 + 2 * 4 + 3 * 4
    assert tuple_count([10] * 40, 4) == 91390 * 10**4
    assert tuple_count([2], 2) == 0 and tuple_count([2, 2], 0) == 0


def test_a_model_too_large_to_weigh_is_not_rotated_and_says_why() -> None:
    """D9: 40 axes x 10 values: the (t+1)-level alone is 9.88 million tuples."""
    model = Model({f"a{i}": list(range(10)) for i in range(40)})
    budget = Budget.of(model)
    assert not budget.rotatable and not budget.countable(3) and not budget.countable(4)
    assert "9,880,000 tuples of 3 axes, more than the 400,000" in budget.why
    assert budget.countable(2) and tuple_count(model.sizes, 2) <= LEVEL_LIMIT


def test_rotation_memory_is_bounded_by_the_level_limit() -> None:
    """D9: a 12 x 8 model's (t+2)-level (2 million tuples) is neither weighed nor
    counted; the rotation's peak memory stays a few megabytes."""
    from pairwise_param.plugin.rotation import Rotation
    from pairwise_param.runs.history import History

    model = Model({f"a{i}": list(range(8)) for i in range(12)})
    fixed = build_table(model)
    rotation = Rotation(None, History(), "")
    tracemalloc.start()
    try:
        rotation.table_for("t.py::test_k", 0, model, fixed)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12 * 2**20, f"{peak / 2**20:.1f} MiB"
    assert rotation.seen["0:t.py::test_k"].coverable[2] == 0  # not counted: too many


def test_the_search_stops_at_its_work_budget() -> None:
    """D9: 10 axes x 12 values with a history: the search ends within its budget."""
    model = Model({f"a{i}": list(range(12)) for i in range(10)})
    fixed = build_table(model)
    got = rotate(model, fixed, [list(fixed.rows)])
    assert got.work <= 2 * WORK_BUDGET
    assert verified(model, got.table) and len(set(got.table.rows)) == len(got.table.rows)
