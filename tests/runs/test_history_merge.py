"""runs/history_merge.merge: per-shard rotation histories -> the history a shared file holds
(issue 36: "per-shard histories merged by one command before the next build"), failing
closed where a merge would guess."""

from __future__ import annotations

import pytest

from pairwise_param.errors import RunsDisagree
from pairwise_param.runs.history import History, HistoryTable
from pairwise_param.runs.history_merge import merge

TABLE = ((0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0))  # the rows one build's shards ran (one table)
PAST = (((0, 0, 0), (1, 1, 1)),)


def entry(runs: tuple[tuple[tuple[int, ...], ...], ...], builds: tuple[str, ...], *, fingerprint: str = "f",
          sizes: tuple[int, ...] = (2, 2, 2), last: tuple[tuple[int, ...], ...] = TABLE) -> HistoryTable:
    return HistoryTable("t.py::test_k", 0, fingerprint, 2, sizes, ("a", "b", "c"), runs, (12, 8), last, builds)


def hist(e: HistoryTable) -> History:
    return History({(e.test, e.table): e})


def shard(rows: tuple[tuple[int, ...], ...], build: str = "b2") -> History:
    """A shard's history: the restored past (build b1) plus its own run of ``build``."""
    return hist(entry((*PAST, rows), ("b1", build)))


def test_the_shards_of_a_build_join_one_run_as_a_shared_history_does() -> None:
    parts = [("s0", shard((TABLE[2], TABLE[0]))), ("s1", shard((TABLE[3],))), ("s2", shard((TABLE[1],)))]
    merged = merge(parts).tables[("t.py::test_k", 0)]
    assert merged.runs == (*PAST, TABLE)  # the union, in the table's order
    assert merged.run_builds() == ("b1", "b2")
    # the same as the shards recording into one shared file one after another
    shared = hist(entry(PAST, ("b1",)))
    for rows in ((TABLE[2], TABLE[0]), (TABLE[3],), (TABLE[1],)):
        doc = {"test": "t.py::test_k", "table": 0, "fingerprint": "f", "strength": 2,
               "axes": [{"name": n, "values": ["0", "1"]} for n in "abc"], "rows": [list(r) for r in TABLE],
               "items": [{"row": TABLE.index(r), "outcome": "passed", "when": "call"} for r in rows]}
        shared = shared.recorded([doc], coverable={"0:t.py::test_k": [12, 8]}, build="b2")
    assert merge(parts).to_json() == shared.to_json()


def test_a_shard_that_ran_none_of_a_tables_items_adds_nothing_and_merging_is_idempotent() -> None:
    restored = hist(entry(PAST, ("b1",)))
    merged = merge([("s0", shard(TABLE)), ("s1", restored)])
    assert merged.tables[("t.py::test_k", 0)].runs == (*PAST, TABLE)
    assert merge([("m", merged), ("s0", shard(TABLE[:2]))]).to_json() == merged.to_json()


def test_a_table_whose_model_changed_keeps_the_newer_model() -> None:
    """Shard s1 ran the changed table (its history of it starts over at build b2); shard s0
    ran none of its items and kept the old model's; the other table says b2 follows b1."""
    other = HistoryTable("t.py::test_o", 0, "o", 2, (2, 2), ("x", "y"), (PAST[0][:1], TABLE[:1]), (), (), ("b1", "b2"))
    old = History({("t.py::test_k", 0): entry(PAST, ("b1",)), ("t.py::test_o", 0): other})
    new = History({("t.py::test_k", 0): entry(((TABLE[0],),), ("b2",), fingerprint="g"),
                   ("t.py::test_o", 0): other})
    for parts in ([("s0", old), ("s1", new)], [("s1", new), ("s0", old)]):
        merged = merge(parts).tables[("t.py::test_k", 0)]
        assert merged.fingerprint == "g" and merged.runs == ((TABLE[0],),)
    # without anything that orders the two builds, the merge does not guess
    with pytest.raises(RunsDisagree, match="different models"):
        merge([("s0", hist(entry(PAST, ("b1",)))), ("s1", hist(entry(((TABLE[0],),), ("b2",), fingerprint="g")))])


@pytest.mark.parametrize(("parts", "message"), [
    ([("s0", shard(TABLE[:1])), ("s1", hist(entry((*PAST, TABLE[1:2]), ("b1", "b2"), fingerprint="g",
                                                  sizes=(2, 2, 3))))],
     "s0 and s1 keep this table for different models (values per axis [2, 2, 2] -> [2, 2, 3])"),
    ([("s0", hist(entry((*PAST, TABLE[:1], TABLE[1:2]), ("b1", "b2", "b2"))))],
     "s0 records build 'b2' twice"),
    ([("s0", shard(TABLE[:1])), ("s1", hist(entry((((1, 0, 0),), TABLE[1:2]), ("b1", "b2"))))],
     "s0 and s1 hold different rows for build 'b1', which is not the last run of either"),
    ([("s0", hist(entry((*PAST, TABLE[:1]), ("", "")))), ("s1", hist(entry((*PAST, TABLE[1:2]), ("", ""))))],
     "s0, s1 hold different rows for run 2 without a build id"),
    ([("s0", hist(entry((TABLE[:1], TABLE[1:2]), ("b1", "b2")))),
      ("s1", hist(entry((TABLE[1:2], TABLE[:1]), ("b2", "b1"))))],
     "order their builds differently"),
    ([("m", hist(entry((*PAST, TABLE[:2], TABLE[2:]), ("b1", "b2", "b3")))), ("late", shard(TABLE[3:]))],
     "late adds rows to build 'b2', which m holds as an earlier run"),
])
def test_what_cannot_be_one_history_fails_closed(parts: list[tuple[str, History]], message: str) -> None:
    with pytest.raises(RunsDisagree, match="t.py::test_k") as info:
        merge(parts)
    assert message in str(info.value)
