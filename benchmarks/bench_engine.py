"""Engine benchmark: rows and seconds, quick mode and improver, vs allpairspy.

Run from the repository root::

    python benchmarks/bench_engine.py                # quick + improver (effort 1)
    python benchmarks/bench_engine.py --quick-only
    python benchmarks/bench_engine.py --effort 2 --only "10^20"

Prints a Markdown table.  Every array (ours and the peer's) is checked here by
an independent coverage check (a few lines below, sharing no code with the
engine): the cell shows INVALID if any t-tuple is missing.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pairwise_param

#: (label, sizes, strength, quick target, improver target)
CONFIGS: list[tuple[str, list[int], int, str, str]] = [
    ("3^4", [3] * 4, 2, "9", "9"),
    ("3^13", [3] * 13, 2, "<=17", "15"),
    ("2^100", [2] * 100, 2, "10", "10"),
    ("4^15 3^17 2^29", [4] * 15 + [3] * 17 + [2] * 29, 2, "<=34", "<=28"),
    ("4^1 3^39 2^35", [4] + [3] * 39 + [2] * 35, 2, "<=26", "<=21"),
    ("10^20", [10] * 20, 2, "<=195", "<=180"),
    ("3^100", [3] * 100, 2, "<=29", "<=26"),
    ("5^1 3^8 2^2", [5] + [3] * 8 + [2] * 2, 2, "<=20", "15"),
    ("6^1 5^1 4^6 3^8 2^3", [6, 5] + [4] * 6 + [3] * 8 + [2] * 3, 2, "<=35", "30"),
    ("2.2.3.2", [2, 2, 3, 2], 2, "6", "6"),
    ("3.2.2.2.2.2", [3, 2, 2, 2, 2, 2], 2, "7", "7"),
    ("4^6 t=3", [4] * 6, 3, "64", "64"),
    ("3^6 t=3", [3] * 6, 3, "<=47", "<=40"),
]


def missing_tuples(sizes: list[int], strength: int, rows: list[list[Any]]) -> int:
    """Independent check: number of uncovered t-tuples (0 = valid)."""
    missing = 0
    for scope in itertools.combinations(range(len(sizes)), strength):
        seen = {tuple(r[a] for a in scope) for r in rows}
        missing += math.prod(sizes[a] for a in scope) - len(seen)
    return missing


def ours(sizes: list[int], strength: int, effort: int) -> tuple[list[list[int]], tuple[float, float], str]:
    axes = {f"p{i}": list(range(s)) for i, s in enumerate(sizes)}
    t0, c0 = time.perf_counter(), time.process_time()
    arr = pairwise_param.cover(axes, strength=strength, effort=effort)
    dt = (time.perf_counter() - t0, time.process_time() - c0)
    names = list(axes)
    return [[row[n] for n in names] for row in arr], dt, arr.method


def allpairs(sizes: list[int], strength: int) -> tuple[list[list[int]], tuple[float, float]] | None:
    try:
        from allpairspy import AllPairs
    except ImportError:
        return None
    t0, c0 = time.perf_counter(), time.process_time()
    rows = [list(r) for r in AllPairs([list(range(s)) for s in sizes], n=strength)]
    return rows, (time.perf_counter() - t0, time.process_time() - c0)


def cell(rows: list[list[Any]], dt: tuple[float, float], sizes: list[int], strength: int) -> str:
    miss = missing_tuples(sizes, strength, rows)
    flag = "" if miss == 0 else f" INVALID({miss} missing)"
    return f"{len(rows)} / {dt[0]:.2f}s ({dt[1]:.2f}){flag}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick-only", action="store_true", help="skip the improver column")
    ap.add_argument("--effort", type=int, default=1, help="improver effort (default 1)")
    ap.add_argument("--no-peers", action="store_true", help="skip allpairspy")
    ap.add_argument("--only", default="", help="comma-separated labels (substring match)")
    args = ap.parse_args(argv)
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    head = ["config", "t", "LB", "target quick", "ours quick (rows / s (cpu))"]
    if not args.quick_only:
        head += ["target improver", f"ours effort={args.effort} (rows / s (cpu))"]
    head += ["method"]
    if not args.no_peers:
        head += ["allpairspy (rows / s (cpu))"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for label, sizes, t, tq, ti in CONFIGS:
        if keys and not any(k in label for k in keys):
            continue
        lb = math.prod(sorted(sizes, reverse=True)[:t])
        rows, dt, method = ours(sizes, t, 0)
        line = [label, str(t), str(lb), tq, cell(rows, dt, sizes, t)]
        if not args.quick_only:
            rows, dt, method = ours(sizes, t, args.effort)
            line += [ti, cell(rows, dt, sizes, t)]
        line += [method]
        if not args.no_peers:
            peer = allpairs(sizes, t)
            line += ["not installed" if peer is None else cell(peer[0], peer[1], sizes, t)]
        print("| " + " | ".join(line) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
