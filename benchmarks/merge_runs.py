"""Merging the run files of a sharded CI build (issue 36's target: 64 run files of a
flashinfer-sized suite, ~470,000 items, merged in <= 20 s CPU and <= 1 GB).

    python benchmarks/merge_runs.py                    # 64 shards, ~470,000 items
    python benchmarks/merge_runs.py --shards 8 --tables 47   # a smaller one

Writes the shards' run files (synthetic, as the plugin writes them: each table analysed
by ``runs.analysis.analyze_table``; items split as pytest-shard splits them,
``sha256(nodeid) % N``) into a temporary directory, then, in a fresh interpreter, reads
them all (``runs.document.load``: validated) and merges them (``runs.merge.merge``),
and prints the CPU seconds and the peak RSS of that interpreter (the generation is not
counted).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _table(test: str, n_rows: int, shapes: int) -> tuple[dict[str, object], list[tuple[str, int, str]]]:
    axes = [{"name": f"x{i}", "names": [f"x{i}"], "values": ["a", "b", "c"], "reprs": ["'a'", "'b'", "'c'"]}
            for i in range(5)]
    rows = [[(r * (i + 1) + i) % 3 for i in range(5)] for r in range(n_rows)]
    payload = {"test": test, "table": 0, "mode": "cover", "strength": 2, "fingerprint": "f" + test[-6:],
               "axes": axes, "scopes": [list(s) for s in combinations(range(5), 2)], "rows": rows,
               "row_ids": [f"r{r}" for r in range(n_rows)], "infeasible": [], "absent": [], "infeasible_absent": [],
               "location": [test.split("::")[0], 10]}
    items = [(f"{test}[r{r}-s{s}]", r, f"s{s}") for s in range(shapes) for r in range(n_rows)]
    return payload, items


def generate(out: Path, shards: int, tables: int, rows: int, shapes: int) -> int:
    """The shards' run files, written as JSON directly (the generation is not measured, and
    analysing 30,000 shard tables one by one would take longer than the merge): each
    table's items of the shard, every one passed, with counts and a coverage entry that
    the validator accepts (the merge analyses the union again in any case)."""
    from pairwise_param.runs.schema import SCHEMA_ID, SCHEMA_VERSION

    per_shard: list[list[dict[str, object]]] = [[] for _ in range(shards)]
    total = 0
    for k in range(tables):
        payload, items = _table(f"tests/kernels/test_op{k // 10}.py::test_op_{k:06d}", rows, shapes)
        total += len(items)
        parts: list[list[tuple[str, int, str]]] = [[] for _ in range(shards)]
        for nodeid, r, shape in items:
            parts[int(hashlib.sha256(nodeid.encode()).hexdigest(), 16) % shards].append((nodeid, r, shape))
        for s, mine in enumerate(parts):
            if not mine:
                continue
            n = len(mine)
            shapes_here = sorted({shape for _, _, shape in mine})
            counts = {"rows": rows, "items": n, "executed": n, "passed": n, "failed": 0, "error": 0, "skipped": 0,
                      "xfailed": 0, "xpassed": 0, "not_run": 0}
            per_shard[s].append(dict(
                payload,
                items=[{"nodeid": nodeid, "row": r, "shape": shape, "outcome": "passed", "when": "call",
                        "signature": None, "reason": None} for nodeid, r, shape in mine],
                counts=counts,
                coverage={"shapes": shapes_here, "shapes_not_run": [], "collected": 90 * len(shapes_here),
                          "executed": 90 * len(shapes_here), "percent": 100.0, "lost": [], "reasons": [],
                          "suggestion": []},
                suspicious=[],
            ))
    for s in range(shards):
        doc = {"schema": SCHEMA_ID, "schema_version": SCHEMA_VERSION, "exitstatus": 0,
               "shard": {"index": s, "count": shards, "source": "pytest-shard --shard-id/--num-shards"},
               "build": "bench-1", "platform": None, "collected": total, "tables": per_shard[s], "empty": []}
        (out / f"shard{s:02d}.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return total


def measure(folder: Path) -> None:
    from pairwise_param.runs.document import load
    from pairwise_param.runs.merge import merge

    start = time.process_time()
    wall = time.perf_counter()
    files = sorted(folder.glob("*.json"))
    merged = merge([(str(f), load(f)) for f in files])
    cpu = time.process_time() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    items = sum(t.counts.items for t in merged.doc.tables)
    cov = [t.coverage.percent for t in merged.doc.tables]
    print(json.dumps({"files": len(files), "tables": len(merged.doc.tables), "items": items,
                      "problems": list(merged.problems), "min_percent": min(c for c in cov if c is not None),
                      "cpu_s": round(cpu, 2), "wall_s": round(time.perf_counter() - wall, 2),
                      "peak_rss_mb": round(peak_kb / 1024, 1)}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", type=int, default=64)
    ap.add_argument("--tables", type=int, default=470, help="@pairwise tables (default 470)")
    ap.add_argument("--rows", type=int, default=20, help="rows per table (default 20)")
    ap.add_argument("--shapes", type=int, default=50, help="shapes per table (default 50: 1,000 items a table)")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure)
        return 0
    with tempfile.TemporaryDirectory(prefix="pairwise-merge-bench-") as tmp:
        t0 = time.perf_counter()
        total = generate(Path(tmp), args.shards, args.tables, args.rows, args.shapes)
        size = sum(f.stat().st_size for f in Path(tmp).glob("*.json"))
        print(f"generated {args.shards} run files, {total} items, {size / 1e6:.0f} MB in "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
        done = subprocess.run([sys.executable, __file__, "--measure", tmp], capture_output=True, text=True,
                              check=False, env={"PYTHONPATH": str(ROOT)})
        sys.stderr.write(done.stderr)
        print(done.stdout.strip())
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
