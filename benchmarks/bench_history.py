"""``pairwise-param report --history`` and the plugin's read of a history, on
realistic histories (issue 38 item 11, QA round 4 D12).

    python -m benchmarks.bench_history [--case NAME] [--keep DIR]

Each case writes a history file (random rows from a seeded generator: the rows'
content does not change the cost, their count and distinctness do), then times, in
this process: ``runs.history.read`` (what every pytest process of a rotated run does)
and ``runs.history.render`` (what ``report --history`` prints), CPU seconds
(``time.process_time``) and the process's peak RSS so far.

* ``fixed-20x10``: 64 identical runs of a 190-row table of 20 axes x 10 values (what
  the plugin records for a model too large to rotate);
* ``distinct-20x10``: the same table, 64 runs of distinct random rows (t+2: 59 million
  4-tuples, past ``REPORT_LIMIT``: not measured, said so);
* ``many-small``: 1000 tables of 8 axes (2 or 3 values) x 64 runs x 15 rows (17.7 MB).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pairwise_param.runs.history import MAX_RUNS, SCHEMA_ID, SCHEMA_VERSION, read, render


def _table(test: str, sizes: list[int], runs: list[list[list[int]]]) -> dict[str, Any]:
    return {"test": test, "table": 0, "fingerprint": f"fp-{test}", "strength": 2, "sizes": sizes,
            "axes": [f"a{i}" for i in range(len(sizes))], "coverable": [], "runs": runs}


def _rows(rng: random.Random, sizes: list[int], n: int) -> list[list[int]]:
    return [[rng.randrange(s) for s in sizes] for _ in range(n)]


def fixed_20x10(rng: random.Random) -> list[dict[str, Any]]:
    sizes = [10] * 20
    run = _rows(rng, sizes, 190)
    return [_table("t.py::test_wide", sizes, [run] * MAX_RUNS)]


def distinct_20x10(rng: random.Random) -> list[dict[str, Any]]:
    sizes = [10] * 20
    return [_table("t.py::test_wide", sizes, [_rows(rng, sizes, 190) for _ in range(MAX_RUNS)])]


def many_small(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for k in range(1000):
        sizes = [2 + (k + i) % 2 for i in range(8)]
        out.append(_table(f"t{k // 50}.py::test_{k}", sizes, [_rows(rng, sizes, 15) for _ in range(MAX_RUNS)]))
    return out


CASES: dict[str, Callable[[random.Random], list[dict[str, Any]]]] = {
    "fixed-20x10": fixed_20x10, "distinct-20x10": distinct_20x10, "many-small": many_small,
}


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.process_time()
    got = fn()
    return got, time.process_time() - start


def _rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_history", description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--keep", default=None, help="write the history files here (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        print("| case | file MB | read CPU s | report CPU s | process max RSS MiB so far |")
        print("|---|---:|---:|---:|---:|")
        for name in args.case or list(CASES):
            path = folder / f"{name}.json"
            doc = {"schema": SCHEMA_ID, "schema_version": SCHEMA_VERSION, "tables": CASES[name](random.Random(7))}
            path.write_text(json.dumps(doc, separators=(",", ":")))
            (history, problem), read_s = _timed(lambda p=path: read(p))
            assert history is not None, problem
            text, report_s = _timed(lambda h=history: render(h))
            assert text
            size = path.stat().st_size / 1e6
            print(f"| {name} | {size:.1f} | {read_s:.2f} | {report_s:.2f} | {_rss_mb():.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
