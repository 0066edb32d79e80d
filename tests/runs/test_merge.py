"""Runs merged (pairwise_param.runs.merge): the union per table is the coverage of what the
shards ran together; a missing, doubled, overlapping or empty shard, items never reported
and a table built two ways are named."""

from __future__ import annotations

import pytest
from run_docs import ROWS, shard_doc

from pairwise_param.errors import RunsDisagree
from pairwise_param.runs.merge import by_platform, merge, only_on


def test_three_shards_give_the_unsharded_coverage() -> None:
    parts = [("s1.json", shard_doc(0, 3, [0, 3])), ("s2.json", shard_doc(1, 3, [1])), ("s3.json", shard_doc(2, 3, [2]))]
    for _, d in parts:
        assert d.tables[0].coverage.percent is not None and d.tables[0].coverage.percent < 100
    m = merge(parts)
    assert m.problems == ()
    (t,) = m.doc.tables
    assert t.coverage.percent == 100.0 and t.counts.items == 4 and t.counts.executed == 4
    assert m.runs == ("s1.json (shard 1 of 3)", "s2.json (shard 2 of 3)", "s3.json (shard 3 of 3)")


def test_a_missing_shard_names_the_items_that_never_ran() -> None:
    m = merge([("s1.json", shard_doc(0, 3, [0, 3])), ("s2.json", shard_doc(1, 3, [1]))])
    assert m.problems == ("shard 3 of 3 missing: 1 items never ran",)
    assert m.doc.tables[0].coverage.percent is not None and m.doc.tables[0].coverage.percent < 100


def test_a_shard_twice_and_shards_that_ran_the_same_items() -> None:
    m = merge([("a.json", shard_doc(0, 2, [0, 1])), ("b.json", shard_doc(0, 2, [0, 1])), ("c.json", shard_doc(1, 2, [2, 3]))])
    assert m.problems == ("shard 1 of 2 given twice: a.json, b.json",)
    m = merge([("a.json", shard_doc(0, 2, [0, 1, 2, 3])), ("b.json", shard_doc(1, 2, [0, 1, 2, 3]))])
    assert any("ran the same 4 items: a splitter that did not split" in p for p in m.problems), m.problems


def test_an_empty_shard_and_items_never_reported() -> None:
    m = merge([("a.json", shard_doc(0, 2, [0, 1, 2, 3])), ("b.json", shard_doc(1, 2, []))])
    assert m.problems == ("b.json (shard 2 of 2) ran no @pairwise item (an empty shard)",)
    m = merge([("a.json", shard_doc(0, 2, [0, 1])), ("b.json", shard_doc(1, 2, [2, 3], outcome="not_run"))])
    assert "b.json (shard 2 of 2): 2 items collected but never reported" in m.problems[0]
    assert m.doc.tables[0].coverage.percent is not None and m.doc.tables[0].coverage.percent < 100


def test_a_table_built_two_ways_is_an_error_naming_the_test() -> None:
    other = [[0, 0, 0], [1, 1, 1], [2, 2, 2], [0, 1, 2]]
    with pytest.raises(RunsDisagree) as info:
        merge([("a.json", shard_doc(0, 2, [0, 1])), ("b.json", shard_doc(1, 2, [2, 3], rows=other, values=3))])
    text = str(info.value)
    assert text.startswith("in t.py::test_t: a.json and b.json ran another table (table 0): ")
    assert "axis 'a': values ['0', '1'] -> ['0', '1', '2']" in text
    with pytest.raises(RunsDisagree, match="the rows"):
        merge([("a.json", shard_doc(0, 2, [0, 1])), ("b.json", shard_doc(1, 2, [0, 1], rows=ROWS[::-1]))])


def test_per_platform_unions_and_the_tuples_one_platform_ran() -> None:
    parts = [("cuda.json", shard_doc(0, 0, [0, 1, 2, 3], platform="cuda")),
             ("rocm.json", shard_doc(0, 0, [0, 1], platform="rocm"))]
    groups = by_platform(parts)
    assert list(groups) == ["cuda", "rocm"]
    merged = {name: merge(g) for name, g in groups.items()}
    assert merged["cuda"].doc.tables[0].coverage.percent == 100.0
    lines = only_on(merged)
    assert len(lines) == 1 and lines[0].startswith("t.py::test_t: 6 2-tuples ran on cuda only: {a=1, b=0}, {a=1, b=1}")
    # the same items on two platforms are mirror jobs, not shards that overlap
    assert merge(parts).problems == ()


def test_a_table_with_a_repeated_row_merges_with_its_row_indices_kept() -> None:
    """A hand-made or synthetic table may list a row twice (benchmarks/merge_runs.py's
    does): its items keep their row indices (the mirror union once dropped the repeat and
    failed with an IndexError)."""
    rows = [*ROWS, ROWS[0]]
    parts = [("s1.json", shard_doc(0, 2, [0, 4, 1], rows=rows, collected=5)),
             ("s2.json", shard_doc(1, 2, [2, 3], rows=rows, collected=5))]
    m = merge(parts)
    (t,) = m.doc.tables
    assert m.problems == () and t.rows == tuple(map(tuple, rows))
    assert sorted(i.row for i in t.items) == [0, 1, 2, 3, 4] and t.coverage.percent == 100.0
