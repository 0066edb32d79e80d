"""Feasibility on constraint-heavy models: our bounded backtracking against
python-sat (CaDiCaL, Glucose) and OR-Tools CP-SAT, measured before choosing.

For each model it times two questions, the ones the engine asks:

* ``sat``: is there any valid row at all (``Feasibility.satisfiable``);
* ``pairs``: which value pairs can some valid row hold (the exact infeasible
  tuples the engine reports); SAT answers each under assumptions on one
  incremental solver, CP-SAT solves one model per pair.

Ours gives up with ``ConstraintsTooHard`` past ``MAX_SEARCH_NODES``; the
solvers get a per-question time limit (``--limit``).  The solvers are optional
(``pip install "pairwise-param[solver]"``); a missing one is reported, not
required.

    python benchmarks/solvers.py --limit 20
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pairwise_param.errors import ConstraintsTooHard
from pairwise_param.feasibility import Exclusion, Feasibility
from pairwise_param.model import Model


def chain(n: int) -> Model:
    names = [f"a{i}" for i in range(n)]
    return Model({a: list(range(6)) for a in names}, constraints=[f"{x} <= {y}" for x, y in itertools.pairwise(names)])


@dataclass(frozen=True)
class Raw:
    """Sizes and exclusions only: an unsatisfiable model cannot be a ``Model``
    (it refuses itself), but its feasibility question can still be timed."""

    sizes: tuple[int, ...]
    exclusions: tuple[Exclusion, ...]


def pigeon(n: int, holes: int) -> Raw:
    """``p_i != p_j`` for all i < j (all-different) over ``holes`` values."""
    same = frozenset((v, v) for v in range(holes))
    return Raw((holes,) * n, tuple(Exclusion((i, j), same) for i, j in itertools.combinations(range(n), 2)))


MODELS: dict[str, Callable[[], Model | Raw]] = {
    "chain9": lambda: chain(9),
    "pigeon9 (8 holes, unsat)": lambda: pigeon(9, 8),
    "pigeon12 (11 holes, unsat)": lambda: pigeon(12, 11),
    "perm10 (10 holes, sat)": lambda: pigeon(10, 10),
    "perm12 (12 holes, sat)": lambda: pigeon(12, 12),
}


def _pairs(sizes: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    return [(a, x, b, y) for a, b in itertools.combinations(range(len(sizes)), 2)
            for x in range(sizes[a]) for y in range(sizes[b])]


def ours(m: Model | Raw, question: str, limit: float) -> str:
    feas = Feasibility(m.sizes, m.exclusions)
    t0 = time.perf_counter()
    try:
        if question == "sat":
            ans = feas.satisfiable()
            return f"{'sat' if ans else 'unsat'} {time.perf_counter() - t0:.2f} s"
        bad = 0
        row: list[int | None] = [None] * len(m.sizes)
        for a, x, b, y in _pairs(m.sizes):
            row[a], row[b] = x, y
            bad += not feas.completable(row)
            row[a] = row[b] = None
        return f"{bad} infeasible {time.perf_counter() - t0:.2f} s"
    except ConstraintsTooHard:
        return f"ConstraintsTooHard {time.perf_counter() - t0:.2f} s"


def _cnf(m: Model | Raw) -> tuple[list[list[int]], list[list[int]]]:
    var: list[list[int]] = []
    k = 0
    for s in m.sizes:
        var.append(list(range(k + 1, k + s + 1)))
        k += s
    clauses = [list(vs) for vs in var]  # at least one value per axis
    clauses += [[-p, -q] for vs in var for p, q in itertools.combinations(vs, 2)]  # at most one
    for ex in m.exclusions:
        for combo in sorted(ex.forbidden):
            clauses.append([-var[a][v] for a, v in zip(ex.scope, combo)])
    return var, clauses


def pysat_run(m: Model | Raw, question: str, limit: float, name: str) -> str:
    try:
        from pysat.solvers import Solver
    except ImportError:
        return "python-sat not installed"
    t0 = time.perf_counter()
    var, clauses = _cnf(m)
    with Solver(name=name, bootstrap_with=clauses) as s:
        timer = threading.Timer(limit, s.interrupt)
        timer.start()
        try:
            if question == "sat":
                ans = s.solve_limited(expect_interrupt=True)
                if ans is None:
                    return f"> {limit:.0f} s (time limit)"
                return f"{'sat' if ans else 'unsat'} {time.perf_counter() - t0:.2f} s"
            bad = 0
            for a, x, b, y in _pairs(m.sizes):
                ans = s.solve_limited(assumptions=[var[a][x], var[b][y]], expect_interrupt=True)
                if ans is None:
                    return f"> {limit:.0f} s (time limit)"
                bad += not ans
        finally:
            timer.cancel()
        return f"{bad} infeasible {time.perf_counter() - t0:.2f} s"


def cpsat_run(m: Model | Raw, question: str, limit: float) -> str:
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        return "ortools not installed"
    t0 = time.perf_counter()

    def solve(fix: tuple[int, int, int, int] | None) -> Any:
        model = cp_model.CpModel()
        xs = [model.NewIntVar(0, s - 1, f"x{i}") for i, s in enumerate(m.sizes)]
        for ex in m.exclusions:
            model.AddForbiddenAssignments([xs[a] for a in ex.scope], sorted(ex.forbidden))
        if fix is not None:
            a, x, b, y = fix
            model.Add(xs[a] == x)
            model.Add(xs[b] == y)
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.1, limit - (time.perf_counter() - t0))
        solver.parameters.num_workers = 1
        return solver.Solve(model)

    if question == "sat":
        st = solve(None)
        word = {cp_model.OPTIMAL: "sat", cp_model.FEASIBLE: "sat", cp_model.INFEASIBLE: "unsat"}.get(st, "unknown")
        return f"{word} {time.perf_counter() - t0:.2f} s"
    bad = 0
    for p in _pairs(m.sizes):
        st = solve(p)
        if st == cp_model.UNKNOWN or time.perf_counter() - t0 > limit:
            return f"> {limit:.0f} s (time limit)"
        bad += st == cp_model.INFEASIBLE
    return f"{bad} infeasible {time.perf_counter() - t0:.2f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per solver question")
    ap.add_argument("--only", default="", help="comma-separated model name prefixes")
    args = ap.parse_args(argv)
    print("| model | question | ours (bounded search) | CaDiCaL 1.5.3 | Glucose 4 | CP-SAT (1 worker) |")
    print("|---|---|---|---|---|---|")
    for name, build in MODELS.items():
        if args.only and not any(name.startswith(p) for p in args.only.split(",")):
            continue
        m = build()
        for q in ("sat", "pairs"):
            cells = [ours(m, q, args.limit), pysat_run(m, q, args.limit, "cadical153"),
                     pysat_run(m, q, args.limit, "glucose4"), cpsat_run(m, q, args.limit)]
            print(f"| {name} | {q} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
