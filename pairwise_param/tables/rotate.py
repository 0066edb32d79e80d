"""Rotating tables: a covering table chosen to cover what earlier runs did not.

A covering table of strength t is the same every run (the engine is deterministic), so
a bug that needs t+1 options set a particular way is missed forever.  :func:`rotate`
takes the fixed table of a model and the rows of the tables that already ran (the
history, :mod:`pairwise_param.runs.history`) and returns a table that

* still covers every coverable t-tuple of the model's interactions (hard: checked by
  :func:`pairwise_param.tables.build.verified`, the check every cached table passes;
  a candidate that fails it is never returned),
* has at most ``floor(slack * len(fixed rows))`` rows (``slack`` 1.1 by default, never
  fewer rows than the fixed table is allowed),
* breaks no constraint and keeps the include rows first (their fixed cells untouched),
* covers as many (t+1)-tuples as it can that the history has not covered, then, among
  those tables, as many new (t+2)-tuples (extend, not restart: the history is a weight,
  not a list of rows to repeat).

When the history has covered every feasible (t+1)-tuple, a *cycle* is complete and the
next table starts a new one at that strength (only the runs after the last completed
cycle weigh: :func:`cycle_rows`; each strength has its own cycles), so rotation keeps
cycling through the (t+1)-tuples while the (t+2)-tuples keep filling up.

How: (0) where the (t+1)-scope of the most tuples needs :data:`PLAN_LAYERS` runs or
more, a planned run (:func:`_plan`: the Latin layer of that scope the cycle covers least,
the other axes filled until the run covers every t-tuple; its scope cells then stay put)
replaces step (1); it is dropped for today's steps when it cannot be made or covers
fewer new (t+1)-tuples than the fixed table; (1) the fixed table and copies of it with the values of each axis
permuted (a covering array stays one under a value permutation; a copy that breaks a
constraint or an include row, or leaves a t-tuple uncovered, is dropped) are scored and
the best is kept; (2) the spare rows the slack allows are added greedily; (3) a local
search changes one cell at a time (or writes an uncovered (t+1)-tuple into a row), never
uncovering a t-tuple or breaking a constraint, and keeps a change that covers more new
(t+1)-, then (t+2)-tuples (sideways one-cell moves allowed).  Every step counts work units, never seconds; the one random generator is
``random.Random`` seeded from a SHA-256 digest of the model's fingerprint and the
history, so the same history gives the same rows in every process, hash seed and xdist
worker (no ``hash()``, no set iteration order).

No engine import here: the fixed table comes in built (``tables/build.py`` stays the
engine's only client) and the check is :func:`~pairwise_param.tables.build.verified`.
"""


import dataclasses
import hashlib
import itertools
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.tables.build import Table, verified
from pairwise_param.tables.rotate_levels import (
    LEVEL_LIMIT,
    WORK_BUDGET,
    Budget,
    cycle_rows,
    feasible_tuples,
    level_scopes,
    tuple_count,
)
from pairwise_param.tables.rotate_plan import plan as _plan
from pairwise_param.tables.rotate_search import Search as _Search
from pairwise_param.tables.rotate_search import greedy_row as _greedy_row
from pairwise_param.tables.rotate_search import local_search as _local_search
from pairwise_param.tables.rotate_search import swaps as _swaps

__all__ = [
    "LEVEL_LIMIT", "SLACK", "WORK_BUDGET", "Budget", "Rotated", "cycle_rows", "feasible_tuples", "level_scopes",
    "max_rows", "rotate", "seed_of", "tuple_count",
]

#: how many more rows than the fixed table a rotated one may have (a factor)
SLACK = 1.1

Row = tuple[int, ...]


def max_rows(fixed: int, slack: float = SLACK) -> int:
    """The most rows a rotated table of a ``fixed``-row table may have."""
    return max(fixed, math.floor(fixed * slack + 1e-9))


@dataclass(frozen=True)
class Rotated:
    """A rotated table and what it adds: ``new`` per objective level (t+1, t+2),
    the tuples the history had not covered that the table covers; ``work`` the
    work units spent."""

    table: Table
    new: tuple[int, ...]
    work: int


def seed_of(model: Model, runs: Sequence[Sequence[Sequence[int]]]) -> int:
    """The rotation's one seed: a SHA-256 digest of the model's fingerprint and the
    history (the same history, the same seed in every process and hash seed)."""
    blob = json.dumps([model.fingerprint(), [[[int(x) for x in r] for r in run] for run in runs]])
    return int.from_bytes(hashlib.sha256(blob.encode()).digest()[:8], "big")


def _permuted(model: Model, rows: Sequence[Row], rng: random.Random) -> list[Row] | None:
    """``rows`` with each axis's values permuted (one random permutation per axis),
    or None when a row then breaks a constraint or an include row's fixed cell."""
    perms = []
    for size in model.sizes:
        p = list(range(size))
        rng.shuffle(p)
        perms.append(p)
    out = [tuple(p[v] for p, v in zip(perms, row)) for row in rows]
    feas = model.feasibility
    if feas.constrained and any(feas.violates(r) is not None for r in out):
        return None
    for inc, row in zip(model.include, out):
        if any(v is not None and v != x for v, x in zip(inc, row)):
            return None
    return out


def rotate(
    model: Model,
    fixed: Table,
    runs: Sequence[Sequence[Sequence[int]]],
    *,
    slack: float = SLACK,
    work: int | None = None,
    moves: int | None = None,
    swaps: int | None = None,
) -> Rotated:
    """The rotated table of ``model`` given the fixed table and the ``runs`` of the
    history (each the index rows of one run, oldest first; at each objective
    strength only the runs of the current cycle weigh: :func:`cycle_rows`).  The
    result is verified (:func:`~pairwise_param.tables.build.verified`) and lists the
    fixed table's infeasible tuples.  ``work`` bounds the permuted copies tried (in
    work units: one per scope and row scored; default 20000), ``swaps`` the value
    swaps tried (default: 10 per row, at most 200), ``moves`` the local search
    (default: 300 per row, at most 20000)."""
    if not isinstance(slack, (int, float)) or isinstance(slack, bool) or not 1.0 <= slack <= 2.0:
        raise InvalidArgument(f"slack must be a number from 1.0 to 2.0, got slack={slack!r}", where=model.where)
    base = [tuple(r) for r in fixed.rows]
    if not base or not model.axes:
        return Rotated(fixed, (), 0)
    past = [[tuple(int(x) for x in r) for r in run] for run in runs]
    sizes = model.sizes
    for r in itertools.chain.from_iterable(past):
        if len(r) != len(sizes) or any(not 0 <= x < s for x, s in zip(r, sizes)):
            raise InvalidArgument(f"history row {list(r)} is not a row of the model {list(sizes)}", where=model.where)
    if not Budget.of(model).rotatable:
        return Rotated(fixed, (), 0)  # too large to weigh: the plugin says so
    seed = seed_of(model, past)
    search = _Search(model, fixed, past)
    if not search.levels:
        return Rotated(fixed, (), 0)
    limit = max_rows(len(base), slack)
    search.load(base)
    fixed_new = search.levels[0].new_count()
    search.budget = WORK_BUDGET * 3 // 4  # a plan leaves the rest of the budget to today's steps
    got = _rotation(search, base, random.Random(seed), limit, True, work, moves, swaps)
    if got is None or search.levels[0].new_count() < fixed_new:
        # no plan, or a planned run that covers fewer new (t+1)-tuples than the fixed table
        spent = search.work + search.scanned
        search = _Search(model, fixed, past)
        search.scanned = spent  # one budget for both attempts
        got = _rotation(search, base, random.Random(seed), limit, False, work, moves, swaps)
    assert got is not None
    _distinct(search, random.Random(seed + 1), limit)
    rows_out = tuple(tuple(r) for r in search.rows)
    table = dataclasses.replace(fixed, rows=rows_out)
    if not verified(model, table) or len(rows_out) > limit:
        return Rotated(fixed, (), search.work + search.scanned)  # never happens: every step keeps the table covering
    return Rotated(table, search.score(), search.work + search.scanned)


def _rotation(search: _Search, base: list[Row], rng: random.Random, limit: int, plan: bool,
              work: int | None, moves: int | None, swaps: int | None) -> bool | None:
    """The steps of :func:`rotate` on ``search`` (its rows are the result); None when
    ``plan`` asks for a planned run and none can be made."""
    model = search.model
    if plan:
        if _plan(search, rng, limit) is None:
            return None
    else:
        # (1) the fixed table and value-permuted copies of it, while the work lasts
        search.load(base)
        best_rows, best = base, search.score()
        budget = work if work is not None else 20_000
        while search.work < budget and not search.over:
            rows = _permuted(model, base, rng)
            search.work += len(base)
            if rows is None:
                continue
            search.load(rows)
            got = search.score()
            if got > best and search.complete():
                best_rows, best = rows, got
        search.load(best_rows)
    # (1b) value swaps on the free axes (no constraint, no include cell): a swap keeps
    # every t-tuple covered, so only the objective decides
    _swaps(search, rng, swaps if swaps is not None else min(200, 10 * len(base)))
    # (2) the spare rows the slack allows, greedily
    for _ in range(limit - len(search.rows)):
        if search.over:
            break
        row = _greedy_row(search, rng)
        if row is None:
            break
        search.append(row)
    # (3) cell by cell
    steps = moves if moves is not None else min(20_000, 300 * len(search.rows))
    _local_search(search, rng, steps)
    return True



def _distinct(search: _Search, rng: random.Random, limit: int) -> None:
    """Drop the rows that repeat an earlier row (the local search's sideways moves can
    make one: it covers nothing the first does not, and would run twice under two
    ids), then spend the freed rows on greedy spare rows (a greedy row covers a new
    tuple, so it repeats no row)."""
    seen: set[tuple[int, ...]] = set()
    keep = []
    for cells in search.rows:
        if tuple(cells) not in seen:
            seen.add(tuple(cells))
            keep.append(list(cells))
    if len(keep) == len(search.rows):
        return
    search.load(keep)
    while len(search.rows) < limit:
        row = _greedy_row(search, rng)
        if row is None or tuple(row) in seen:
            break
        seen.add(tuple(row))
        search.append(row)
