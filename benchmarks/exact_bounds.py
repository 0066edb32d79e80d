"""Proven lower bounds on the constrained set: how many rows no generator can beat.

The engine stops at a cheap bound (the most coverable tuples of any one
t-scope).  When quick sits above it, is there anything left to find?  This script
answers with bounds proved by an exact solver, independent of the engine:

* **projection bounds**: for every set ``S`` of ``k`` axes (``k`` from t+1 up to
  ``--max-k``), the smallest set of *valid sub-rows over S* (sub-rows some full
  valid row extends) covering every coverable t-tuple inside ``S``.  Any valid
  covering array projected onto ``S`` is such a set, so its optimum bounds every
  array of the model from below.  Solved as a set-cover ILP by HiGHS; the bound is
  the solver's proven dual bound (its optimum when it finishes);
* **the whole model** (``S`` = every axis) when ``--full`` is given and the
  valid rows fit ``--full-rows``: the same ILP over full rows, whose finished
  optimum is the model's covering-array number.

Coverability and validity come from :mod:`constrained_check` (its own
backtracking over the rules), never from ``pairwise_param``; the engine is only
asked for its quick / effort rows to print beside the bound.  ``highspy`` is a
benchmark-only dependency (``pip install "pairwise-param[bounds]"``).

    python benchmarks/exact_bounds.py                     # every constrained model
    python benchmarks/exact_bounds.py --only "rope partial" --full
    python benchmarks/exact_bounds.py --max-k 5 --seconds 30 --effort 1

Prints one Markdown table: model, t, the engine's cheap bound, the best
projection bound (and its axes), the full-model bound where solved, ours quick
and effort rows, and the verdict: ``optimal`` when quick's rows equal a proven
bound, else the gap left.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from constrained_check import Coverable, check, index_rules
from constrained_models import CONSTRAINED, ConstrainedModel

__all__ = ["Bound", "projection_bound", "scope_bound"]


@dataclass(frozen=True)
class Bound:
    rows: int  #: proven: every valid covering array has at least this many rows
    exact: bool  #: the solver finished: ``rows`` is the projection's optimum
    found: int | None  #: the smallest cover the solver found (None: none in time)
    axes: tuple[int, ...]
    seconds: float


def scope_bound(m: ConstrainedModel, valid: Coverable) -> int:
    """The engine's own cheap bound, recomputed here: most coverable tuples in one t-scope."""
    best = 1
    for scope in itertools.combinations(range(len(m.sizes)), m.strength):
        n = sum(valid(dict(zip(scope, c))) for c in itertools.product(*(range(m.sizes[a]) for a in scope)))
        best = max(best, n)
    return best


def _ilp(columns: Sequence[Sequence[int]], targets: int, seconds: float) -> tuple[int, bool, int | None]:
    """Minimum number of columns covering ``range(targets)``: (proven bound, finished,
    the smallest cover found)."""
    import highspy
    import numpy as np

    h = highspy.Highs()
    h.silent()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(seconds))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("random_seed", 0)
    n = len(columns)
    inf = highspy.kHighsInf
    h.addCols(n, np.ones(n), np.zeros(n), np.ones(n), 0, np.array([], dtype=np.int32),
              np.array([], dtype=np.int32), np.array([], dtype=np.float64))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                            np.full(n, highspy.HighsVarType.kInteger, dtype=np.uint8))
    by_target: list[list[int]] = [[] for _ in range(targets)]
    for j, col in enumerate(columns):
        for i in col:
            by_target[i].append(j)
    starts, index = [], []
    for cols in by_target:
        starts.append(len(index))
        index.extend(cols)
    h.addRows(targets, np.ones(targets), np.full(targets, inf), len(index), np.array(starts, dtype=np.int32),
              np.array(index, dtype=np.int32), np.ones(len(index)))
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    finished = status == highspy.HighsModelStatus.kOptimal
    bound = info.objective_function_value if finished else info.mip_dual_bound
    primal = info.objective_function_value if info.primal_solution_status == 2 else None
    return math.ceil(bound - 1e-6), finished, None if primal is None else round(primal)


def projection_bound(m: ConstrainedModel, axes: Sequence[int], valid: Coverable, seconds: float,
                     beat: int = 0) -> Bound | None:
    """The exact set-cover bound of ``m`` projected onto ``axes`` (see the module docstring);
    ``None`` when the projection has at most ``beat`` valid sub-rows (it cannot prove more)."""
    t0 = time.process_time()
    axes = tuple(axes)
    sizes = [m.sizes[a] for a in axes]
    subrows = [c for c in itertools.product(*(range(s) for s in sizes)) if valid(dict(zip(axes, c)))]
    if len(subrows) <= beat:
        return None
    target_id: dict[tuple[tuple[int, int], ...], int] = {}
    for scope in itertools.combinations(range(len(axes)), m.strength):
        for c in itertools.product(*(range(sizes[i]) for i in scope)):
            key = tuple((axes[i], v) for i, v in zip(scope, c))
            if valid(dict(key)):
                target_id[key] = len(target_id)
    columns = []
    for r in subrows:
        columns.append([target_id[tuple((axes[i], r[i]) for i in scope)]
                        for scope in itertools.combinations(range(len(axes)), m.strength)])
    rows, exact, found = _ilp(columns, len(target_id), seconds)
    return Bound(rows, exact, found, axes, time.process_time() - t0)


def _engine_rows(m: ConstrainedModel, effort: int) -> tuple[int, bool]:
    from side_by_side import ours

    rows, _cpu, _method = ours(m, effort)
    return len(rows), check(m, rows).ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated substrings of model labels")
    ap.add_argument("--strength", type=int, default=0, help="only models of this t (0: all)")
    ap.add_argument("--max-k", type=int, default=0,
                    help="largest projection (axes); default t+2, capped at the model's axis count")
    ap.add_argument("--seconds", type=float, default=10.0, help="HiGHS time limit per projection ILP")
    ap.add_argument("--budget", type=float, default=120.0, help="CPU seconds of projections per model")
    ap.add_argument("--full", action="store_true", help="also the whole-model ILP where it fits")
    ap.add_argument("--full-rows", type=int, default=50000, help="most valid rows for the whole-model ILP")
    ap.add_argument("--full-seconds", type=float, default=120.0)
    ap.add_argument("--effort", type=int, default=1, help="effort column (0: skip)")
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    models = [m for m in CONSTRAINED if (not only or any(s in m.label for s in only))
              and args.strength in (0, m.strength)]
    print("| model | t | scope bound | projection bound (axes, k) | full-model bound | quick | "
          f"effort {args.effort} | verdict (quick) |")
    print("|---|---|---|---|---|---|---|---|")
    optimal = 0
    for m in models:
        valid = Coverable(index_rules(m))
        n = len(m.sizes)
        best = Bound(scope_bound(m, valid), True, None, (), 0.0)
        cheap = best.rows
        max_k = min(n, args.max_k or m.strength + 2)
        spent = 0.0
        for k in range(m.strength + 1, max_k + 1):
            # largest sub-products first: the subsets most likely to need many rows
            subsets = sorted(itertools.combinations(range(n), k),
                             key=lambda s: (-math.prod(m.sizes[a] for a in s), s))
            for s in subsets:
                if spent > args.budget:
                    break
                b = projection_bound(m, s, valid, args.seconds, best.rows)
                if b is None:
                    continue
                spent += b.seconds
                if b.rows > best.rows:
                    best = b
        proj = f"{best.rows} ({','.join(map(str, best.axes)) or 'one scope'}, k={len(best.axes) or m.strength})"
        full, ilp_found = "-", None
        if args.full:
            nvalid = sum(valid(dict(enumerate(c))) for c in itertools.product(*(range(s) for s in m.sizes)))
            if nvalid <= args.full_rows:
                fb = projection_bound(m, range(n), valid, args.full_seconds)
                assert fb is not None
                ilp_found = fb.found
                full = (f"{fb.rows} (optimum, {fb.seconds:.0f} s)" if fb.exact else
                        f">= {fb.rows}, found {fb.found if fb.found is not None else '-'} ({fb.seconds:.0f} s)")
                if fb.rows > best.rows:
                    best = fb
            else:
                full = f"- ({nvalid} valid rows)"
        quick, qok = _engine_rows(m, 0)
        eff = "-"
        if args.effort:
            e, eok = _engine_rows(m, args.effort)
            eff = f"{e}{'' if eok else ' INVALID'}"
        verdict = "optimal" if quick <= best.rows else f"gap <= {quick - best.rows}"
        if ilp_found is not None and ilp_found < quick:
            verdict += f"; {ilp_found} rows exist"
        optimal += quick <= best.rows
        print(f"| {m.label} | {m.strength} | {cheap} | {proj} | {full} | {quick}{'' if qok else ' INVALID'} | "
              f"{eff} | {verdict} |", flush=True)
    print(f"\nquick proven optimal on {optimal} of {len(models)} models")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
