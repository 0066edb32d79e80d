"""The history file you can trust (issue 38 items 5, 11): a merge under a lock keeps
every writer's run; the report counts tuples exactly, fast, and says when a strength
is too large to measure."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param.runs.history import (
    MAX_RUNS,
    REPORT_LIMIT,
    History,
    HistoryTable,
    progress,
    read,
    render,
    update,
)


def brute(rows: list[tuple[int, ...]], strength: int) -> int:
    n = len(rows[0])
    return len({(scope, tuple(r[a] for a in scope)) for r in rows for scope in itertools.combinations(range(n), strength)})


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_the_report_counts_every_tuple_exactly(data: st.DataObject) -> None:
    """Both ways of counting (zipped columns; bit sets per value) against brute force."""
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=6))
    rows = data.draw(st.lists(st.tuples(*(st.integers(0, s - 1) for s in sizes)), min_size=1, max_size=60))
    runs = (tuple(rows[: len(rows) // 2]), tuple(rows[len(rows) // 2:]))
    entry = HistoryTable("t::t", 0, "fp", 1, tuple(sizes), tuple(f"a{i}" for i in range(len(sizes))),
                         tuple(r for r in runs if r), (0, 0, 0))
    got = progress(entry)
    everything = [r for run in entry.runs for r in run]
    assert got.covered == tuple(brute(everything, s) for s in got.strengths)


def test_a_strength_too_large_to_measure_is_said_not_computed() -> None:
    """64 runs of distinct rows of a 20 x 10 table: 59 million 4-tuples (QA: killed at 900 s, 3.3 GB)."""
    rng = random.Random(3)
    runs = tuple(tuple(tuple(rng.randrange(10) for _ in range(20)) for _ in range(190)) for _ in range(MAX_RUNS))
    entry = HistoryTable("t::wide", 0, "fp", 2, (10,) * 20, tuple(f"a{i}" for i in range(20)), runs, (19000, 0, 0))
    got = progress(entry)
    assert got.covered[2] is None and got.covered[0] == 19000 and got.covered[1] is not None
    assert len({r for run in runs for r in run}) * 4845 > REPORT_LIMIT
    text = render(History({("t::wide", 0): entry}))
    assert "- (too many to measure) t=4" in text


def _writer(path: str, test: str, barrier: Any) -> None:
    doc = {"test": test, "table": 0, "fingerprint": "fp", "strength": 1,
           "axes": [{"name": "a", "values": ["0", "1"]}], "rows": [[0], [1]],
           "items": [{"row": 0, "outcome": "passed", "when": "call"}]}
    barrier.wait()
    for _ in range(5):
        update(path, lambda h: h.recorded([doc]))


def test_writers_at_the_same_time_keep_every_run(tmp_path: Path) -> None:
    """Four processes, five runs each, one file: 20 runs kept (QA: the last writer won)."""
    path = tmp_path / "h.json"
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_writer, args=(str(path), f"t{k}::t", barrier)) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    history, problem = read(path)
    assert problem == "" and history is not None
    assert sorted(len(t.runs) for t in history.tables.values()) == [5, 5, 5, 5]


def test_a_corrupt_file_is_kept_aside_before_it_is_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    path.write_text("{not json")
    note = update(path, lambda h: h)
    assert "is corrupt" in note and (tmp_path / "h.json.corrupt").read_text() == "{not json"
    assert json.loads(path.read_text())["tables"] == []


@pytest.mark.parametrize("sizes", [[3, 2], [2, 2]])
def test_a_run_of_another_size_starts_the_table_over(sizes: list[int]) -> None:
    doc = {"test": "t::t", "table": 0, "fingerprint": "fp", "strength": 1,
           "axes": [{"name": f"a{i}", "values": list(range(s))} for i, s in enumerate(sizes)],
           "rows": [[1, 1]], "items": [{"row": 0, "outcome": "passed", "when": "call"}]}
    old = HistoryTable("t::t", 0, "fp", 1, (3, 2), ("a0", "a1"), (((2, 1),),))
    got = History({("t::t", 0): old}).recorded([doc]).tables[("t::t", 0)]
    assert len(got.runs) == (2 if sizes == [3, 2] else 1) and got.last == ((1, 1),)
