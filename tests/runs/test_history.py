"""The history of the tables that ran (pairwise_param.runs.history)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.runs.history import MAX_RUNS, SCHEMA_ID, SCHEMA_VERSION, History, read, write


def table_doc(rows: list[list[int]], ran: list[int], fingerprint: str = "fp", test: str = "t.py::test_k") -> dict[str, Any]:
    return {
        "test": test, "table": 0, "fingerprint": fingerprint, "strength": 2,
        "axes": [{"name": "a", "values": ["0", "1"]}, {"name": "b", "values": ["0", "1", "2"]}],
        "rows": rows,
        "items": [{"row": k, "outcome": "passed" if k in ran else "skipped", "when": "call" if k in ran else "setup"}
                  for k in range(len(rows))],
    }


def test_a_run_adds_the_rows_that_executed(tmp_path: Path) -> None:
    history = History().recorded([table_doc([[0, 0], [1, 2], [0, 1]], ran=[0, 2])])
    assert history.runs_for("t.py::test_k", 0, "fp") == (((0, 0), (0, 1)),)
    path = tmp_path / "h" / "history.json"
    write(path, history)
    back, problem = read(path)
    assert problem == "" and back == history
    doc = json.loads(path.read_text())
    assert doc["schema"] == SCHEMA_ID and doc["schema_version"] == SCHEMA_VERSION
    assert [p.name for p in path.parent.iterdir()] == ["history.json"]  # no temporary file left


def test_a_changed_model_starts_over_and_old_runs_are_dropped() -> None:
    history = History()
    for _ in range(MAX_RUNS + 3):
        history = history.recorded([table_doc([[0, 0]], ran=[0])])
    assert len(history.runs_for("t.py::test_k", 0, "fp")) == MAX_RUNS
    history = history.recorded([table_doc([[1, 1]], ran=[0], fingerprint="new")])
    assert history.runs_for("t.py::test_k", 0, "new") == (((1, 1),),)
    assert history.runs_for("t.py::test_k", 0, "fp") == ()


def test_a_table_none_of_whose_items_ran_adds_no_run() -> None:
    assert History().recorded([table_doc([[0, 0]], ran=[])]).tables == {}


def test_missing_file(tmp_path: Path) -> None:
    history, problem = read(tmp_path / "nope.json")
    assert history is None and problem.startswith("no history file at")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "corrupt"),
        ('{"schema": "other"}', "not a pairwise-param/history file"),
        ('{"schema": "pairwise-param/history", "schema_version": 9, "tables": []}', "schema_version 9"),
        ('{"schema": "pairwise-param/history", "schema_version": 1, "tables": {}}', "'tables' is not a list"),
        (('{"schema": "pairwise-param/history", "schema_version": 1, "tables": [{"test": "t", "table": 0, '
          '"fingerprint": "f", "strength": 2, "sizes": [2], "axes": ["a"], "runs": [[[5]]]}]}'),
         r"tables\[0\].runs\[0\]\[0\] = \[5\] is not a row of sizes \[2\]"),
        ('{"schema": "pairwise-param/history", "schema_version": 1, "tables": [{"test": "t"}]}',
         r"tables\[0\].table is missing"),
    ],
)
def test_corrupt_files_say_why(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "history.json"
    path.write_text(text)
    history, problem = read(path)
    assert history is None
    assert "is corrupt" in problem
    assert re.search(why, problem), problem


def test_writing_keeps_a_symlinked_history_a_link_and_its_mode(tmp_path: Path) -> None:
    """Issue 38 item 15: the history replaced its symlink by a regular file (the
    target never updated) and ended up mode 0600 (unreadable to a shared CI user)."""
    real = tmp_path / "shared" / "history.json"
    real.parent.mkdir()
    write(real, History())
    real.chmod(0o644)
    link = tmp_path / "history.json"
    link.symlink_to(real)
    history = History().recorded([table_doc([[0, 0], [1, 2]], ran=[0, 1])])
    write(link, history)
    assert link.is_symlink()
    assert read(real) == (history, "")
    assert oct(real.stat().st_mode & 0o777) == oct(0o644)
