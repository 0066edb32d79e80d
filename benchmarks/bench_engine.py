"""Engine benchmark: rows, seconds and work units against best known, PICT and allpairspy.

Run from the repository root::

    python benchmarks/bench_engine.py                  # quick + effort 1, all models
    python benchmarks/bench_engine.py --quick-only
    python benchmarks/bench_engine.py --effort 2 --only "10^20"
    PICT_BIN=/path/to/pict python benchmarks/bench_engine.py   # PICT measured live
    python benchmarks/bench_engine.py --extra            # also 6^10, 7^10, 3^1000
    python benchmarks/bench_engine.py --extra --quick-only --no-peers --only 3^1000   # + peak RSS
    python benchmarks/bench_engine.py --set issue23 --no-peers   # issue 23's 26-model set

Prints one Markdown table and the geometric means of rows / best known over
the 26-model set (:mod:`engine_models`; ``--set issue23``: issue 23's own
26 models, with the best-known sizes the issue states).  Every array (ours and the peers') is
checked by an independent coverage check written below (it shares no code
with the engine); a cell shows INVALID if a t-tuple is missing.  Our cells are
``rows / wall s (cpu s) / work units`` of one ``engine.generate`` call (model
building excluded): the work units are the machine-independent cost, seconds
on a shared machine move with the load.  Without ``PICT_BIN`` the PICT column
shows the stored numbers of the anchors baseline, marked "(stored)".
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine_models import EXTRA, PICT_STORED, SETS, BenchModel

import pairwise_param
from pairwise_param.engine import EngineOptions, generate

Rows = list[list[Any]]


def missing_tuples(sizes: tuple[int, ...], strength: int, rows: Rows) -> int:
    """Independent check: number of uncovered t-tuples (0 = valid)."""
    if any(len(r) != len(sizes) or any(not 0 <= x < s for x, s in zip(r, sizes)) for r in rows):
        return -1
    if len(sizes) > 200:  # 3^1000: check pairs through per-column value sets
        cols = [[r[a] for r in rows] for a in range(len(sizes))]
        missing = 0
        for a, b in itertools.combinations(range(len(sizes)), 2):
            missing += sizes[a] * sizes[b] - len(set(zip(cols[a], cols[b])))
        return missing
    missing = 0
    for scope in itertools.combinations(range(len(sizes)), strength):
        seen = {tuple(r[a] for a in scope) for r in rows}
        missing += math.prod(sizes[a] for a in scope) - len(seen)
    return missing


def ours(m: BenchModel, effort: int) -> tuple[Rows, float, float, int, str]:
    model = pairwise_param.Model({f"p{i}": list(range(s)) for i, s in enumerate(m.sizes)}, strength=m.strength)
    t0, c0 = time.perf_counter(), time.process_time()
    g = generate(model.index_model, EngineOptions(effort=effort), model.feasibility)
    return [list(r) for r in g.rows], time.perf_counter() - t0, time.process_time() - c0, g.work, g.method


def allpairs(m: BenchModel) -> tuple[Rows, float] | None:
    try:
        from allpairspy import AllPairs
    except ImportError:
        return None
    t0 = time.perf_counter()
    rows = [list(r) for r in AllPairs([list(range(s)) for s in m.sizes], n=m.strength)]
    return rows, time.perf_counter() - t0


def pict(m: BenchModel, binary: str) -> tuple[Rows, float] | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pict")
        with open(path, "w") as fh:
            fh.writelines(f"p{i}: " + ", ".join(str(v) for v in range(s)) + "\n" for i, s in enumerate(m.sizes))
        t0 = time.perf_counter()
        out = subprocess.run([binary, path, f"/o:{m.strength}"], capture_output=True, text=True, check=False)
        dt = time.perf_counter() - t0
    if out.returncode != 0:
        return None
    lines = out.stdout.strip().splitlines()[1:]
    return [[int(x) for x in line.split("\t")] for line in lines], dt


def check(m: BenchModel, rows: Rows) -> str:
    miss = missing_tuples(m.sizes, m.strength, rows)
    return "" if miss == 0 else f" INVALID({miss} missing)"


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick-only", action="store_true", help="skip the effort column")
    ap.add_argument("--effort", type=int, default=1, help="improver effort (default 1)")
    ap.add_argument("--no-peers", action="store_true", help="skip allpairspy")
    ap.add_argument("--extra", action="store_true", help="also the models outside the mean (6^10, 7^10, 3^1000)")
    ap.add_argument("--only", default="", help="comma-separated labels (substring match)")
    ap.add_argument("--set", default="ours", choices=sorted(SETS), help="the model set of the mean (default: ours)")
    args = ap.parse_args(argv)
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    pict_bin = os.environ.get("PICT_BIN")
    head = ["model", "t", "best known", "ours quick (rows / s (cpu) / work)"]
    if not args.quick_only:
        head += [f"ours effort {args.effort}"]
    head += ["method (quick)", "PICT" + ("" if pict_bin else " (stored)")]
    if not args.no_peers:
        head += ["allpairspy"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ratios: dict[str, list[float]] = {"quick": [], "effort": [], "std quick": [], "std effort": []}
    slow: list[str] = []
    chosen = SETS[args.set]
    # Our own set marks its quick-mode speed targets (``standard``); every model of another set has one.
    timed = {m.label for m in chosen if m.standard or args.set != "ours"}
    models = chosen + (EXTRA if args.extra else [])
    for m in models:
        if keys and not any(k in m.label for k in keys):
            continue
        rows, wall, cpu, work, method = ours(m, 0)
        line = [m.label, str(m.strength), "?" if m.best is None else str(m.best)]
        line.append(f"{len(rows)} / {wall:.2f} ({cpu:.2f}) / {work:.2g}{check(m, rows)}")
        if m.best is not None and m in chosen:
            ratios["quick"].append(len(rows) / m.best)
            if m.standard:
                ratios["std quick"].append(len(rows) / m.best)
        if m.label in timed and m in chosen and cpu > 1.0:  # the target is CPU seconds (wall moves with the load)
            slow.append(f"{m.label} ({cpu:.2f} s CPU)")
        if not args.quick_only and m.quick_only:
            line.append("(speed probe)")
        elif not args.quick_only:
            rows1, wall1, cpu1, work1, _ = ours(m, args.effort)
            line.append(f"{len(rows1)} / {wall1:.2f} ({cpu1:.2f}) / {work1:.2g}{check(m, rows1)}")
            if m.best is not None and m in chosen:
                ratios["effort"].append(len(rows1) / m.best)
                if m.standard:
                    ratios["std effort"].append(len(rows1) / m.best)
        line.append(method)
        if pict_bin:
            got = pict(m, pict_bin)
            line.append("failed" if got is None else f"{len(got[0])} / {got[1]:.3f}{check(m, got[0])}")
        else:
            stored = PICT_STORED.get(m.label)
            line.append("-" if stored is None else f"{stored[0] or '?'} / {stored[1]:.3g}")
        if not args.no_peers:
            peer = allpairs(m) if len(m.sizes) <= 200 else None
            line.append("-" if peer is None else f"{len(peer[0])} / {peer[1]:.2f}{check(m, peer[0])}")
        print("| " + " | ".join(line) + " |", flush=True)
    print()
    for name, xs in ratios.items():
        if xs:
            print(f"geometric mean rows / best known, {name} ({len(xs)} models): {geomean(xs):.3f}")
    print("speed-target models over 1 s CPU in quick mode: " + (", ".join(slow) if slow else "none"))
    # Peak resident memory of this process (Linux: KiB); meaningful for a one-model run,
    # e.g. --extra --quick-only --no-peers --only 3^1000.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
