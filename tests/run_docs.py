"""Synthetic run documents for the merge tests (tests/runs/test_merge.py, tests/cli/test_report_runs_merge.py):
one 3-axis table whose 4 rows are split over shards, each analysed as the plugin analyses a run."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Any

from pairwise_param.runs.analysis import analyze_table, run_document
from pairwise_param.runs.document import RunDocument
from pairwise_param.runs.where import Platform, Shard

ROWS = [[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]


def payload(test: str, rows: list[list[int]], nodeids: list[tuple[str, int]], values: int = 2) -> dict[str, Any]:
    axes = [{"name": n, "names": [n], "values": [str(v) for v in range(values)],
             "reprs": [str(v) for v in range(values)]} for n in "abc"]
    return {"test": test, "table": 0, "mode": "cover", "strength": 2, "fingerprint": f"fp{values}", "axes": axes,
            "scopes": [list(s) for s in combinations(range(3), 2)], "rows": rows,
            "row_ids": [str(i) for i in range(len(rows))], "infeasible": [], "absent": [], "infeasible_absent": [],
            "location": ["t.py", 1], "items": [[n, r, ""] for n, r in nodeids]}


def shard_doc(k: int, n: int, rows_of_shard: list[int], test: str = "t.py::test_t", outcome: str = "passed",
           collected: int | None = 4, platform: str | None = None, rows: list[list[int]] = ROWS,
           values: int = 2) -> RunDocument:
    nodeids = [(f"{test}[{r}]", r) for r in rows_of_shard]
    outcomes = {nid: {"outcome": outcome, "when": "call" if outcome != "not_run" else ""} for nid, _ in nodeids
                if outcome != "not_run"}
    tables = [analyze_table(payload(test, rows, nodeids, values), outcomes)] if nodeids else []
    doc = run_document(tables, 0)
    return replace(doc, shard=Shard(k, n, "test") if n else None, collected=collected,
                   platform=Platform(platform) if platform else None)
