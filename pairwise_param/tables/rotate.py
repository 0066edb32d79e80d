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

How: (1) the fixed table and ``candidates`` copies of it with the values of each axis
permuted (a covering array stays one under a value permutation; a copy that breaks a
constraint or an include row, or leaves a t-tuple uncovered, is dropped) are scored and
the best is kept; (2) the spare rows the slack allows are added greedily; (3) a local
search changes one cell at a time, never uncovering a t-tuple or breaking a constraint,
and keeps a change that covers more new (t+1)-, then (t+2)-tuples (sideways moves
allowed).  Every step counts work units, never seconds; the one random generator is
``random.Random`` seeded from a SHA-256 digest of the model's fingerprint and the
history, so the same history gives the same rows in every process, hash seed and xdist
worker (no ``hash()``, no set iteration order).

No engine import here: the fixed table comes in built (``tables/build.py`` stays the
engine's only client) and the check is :func:`~pairwise_param.tables.build.verified`.
"""

from __future__ import annotations

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

__all__ = [
    "SLACK", "Rotated", "cycle_rows", "feasible_tuples", "level_scopes", "max_rows", "rotate",
]

#: how many more rows than the fixed table a rotated one may have (a factor)
SLACK = 1.1
#: a level of more tuples than this is not weighed (its bookkeeping would cost more
#: than a collection should); the t-level is always checked
LEVEL_LIMIT = 400_000

Row = tuple[int, ...]


def max_rows(fixed: int, slack: float = SLACK) -> int:
    """The most rows a rotated table of a ``fixed``-row table may have."""
    return max(fixed, math.floor(fixed * slack + 1e-9))


def level_scopes(n_axes: int, strength: int) -> tuple[tuple[int, ...], ...]:
    """Every set of ``strength`` axes (empty when there are fewer axes)."""
    if strength > n_axes or strength < 1:
        return ()
    return tuple(itertools.combinations(range(n_axes), strength))


class _Level:
    """Counts of one level's tuples in the current table: per scope, a dense list
    indexed by the mixed-radix code of the values; ``old`` marks the tuples the
    history covered (they add nothing)."""

    def __init__(self, sizes: Sequence[int], scopes: Sequence[tuple[int, ...]]) -> None:
        self.scopes = tuple(scopes)
        self.weights: list[tuple[int, ...]] = []
        self.counts: list[list[int]] = []
        self.old: list[bytearray] = []
        self.by_axis: list[list[int]] = [[] for _ in sizes]
        for si, scope in enumerate(self.scopes):
            w, acc = [], 1
            for a in scope:
                w.append(acc)
                acc *= sizes[a]
            self.weights.append(tuple(w))
            self.counts.append([0] * acc)
            self.old.append(bytearray(acc))
            for a in scope:
                self.by_axis[a].append(si)

    def code(self, si: int, row: Sequence[int]) -> int:
        return sum(row[a] * w for a, w in zip(self.scopes[si], self.weights[si]))

    def mark_old(self, rows: Sequence[Sequence[int]]) -> None:
        for row in rows:
            for si in range(len(self.scopes)):
                self.old[si][self.code(si, row)] = 1

    def add(self, row: Sequence[int], delta: int) -> None:
        for si in range(len(self.scopes)):
            self.counts[si][self.code(si, row)] += delta

    def new_covered(self) -> int:
        """Tuples the current table covers that the history did not."""
        return sum(1 for si, cs in enumerate(self.counts) for c, n in enumerate(cs) if n and not self.old[si][c])

    def gain(self, row: Sequence[int]) -> int:
        """New tuples ``row`` would add to the current table."""
        return sum(
            1 for si in range(len(self.scopes))
            if not self.counts[si][c := self.code(si, row)] and not self.old[si][c]
        )

    def move(self, row: Sequence[int], axis: int, value: int) -> tuple[int, int]:
        """(new tuples gained, new tuples lost) when ``row``'s cell ``axis`` becomes ``value``."""
        won = lost = 0
        for si in self.by_axis[axis]:
            scope, w = self.scopes[si], self.weights[si]
            before = self.code(si, row)
            after = before + (value - row[axis]) * w[scope.index(axis)]
            if self.counts[si][before] == 1 and not self.old[si][before]:
                lost += 1
            if self.counts[si][after] == 0 and not self.old[si][after]:
                won += 1
        return won, lost

    def apply(self, row: Sequence[int], axis: int, value: int) -> None:
        """Count ``row`` with its cell ``axis`` set to ``value`` instead (``row`` unchanged)."""
        for si in self.by_axis[axis]:
            before = self.code(si, row)
            self.counts[si][before] -= 1
            self.counts[si][before + (value - row[axis]) * self.weights[si][self.scopes[si].index(axis)]] += 1

    def keeps_covered(self, row: Sequence[int], axis: int, value: int, needed: list[bytearray]) -> bool:
        """Does every tuple of ``row`` that the change removes stay covered (t-level)?"""
        for si in self.by_axis[axis]:
            before = self.code(si, row)
            if self.counts[si][before] == 1 and needed[si][before]:
                return False
        return True

    def feasible_total(self, model: Model) -> int:
        """How many of this level's tuples some valid row holds (exact)."""
        feas = model.feasibility
        constrained = set(feas.component_of)
        total = 0
        sizes = model.sizes
        for scope in self.scopes:
            size = math.prod(sizes[a] for a in scope)
            if not constrained.intersection(scope):
                total += size
                continue
            for values in itertools.product(*(range(sizes[a]) for a in scope)):
                cells: list[int | None] = [None] * len(sizes)
                for a, v in zip(scope, values):
                    cells[a] = v
                if feas.violates(cells) is None and feas.completable(cells):
                    total += 1
        return total


def feasible_tuples(model: Model, strength: int) -> int:
    """How many tuples of ``strength`` axes some valid row of ``model`` holds (exact;
    0 when there are fewer axes): the 100% of accumulated coverage."""
    scopes = level_scopes(len(model.sizes), strength)
    return _Level(model.sizes, scopes).feasible_total(model) if scopes else 0


def cycle_rows(model: Model, runs: Sequence[Sequence[Sequence[int]]], strength: int) -> list[Row]:
    """The rows that weigh at ``strength``: those of the runs after the last completed
    cycle at that strength (a cycle is complete when its runs cover every feasible
    tuple of ``strength`` axes).  Runs are oldest first."""
    scopes = level_scopes(len(model.sizes), strength)
    if not scopes:
        return []
    level = _Level(model.sizes, scopes)
    total = level.feasible_total(model)
    kept: list[Row] = []
    for run in runs:
        rows = [tuple(r) for r in run]
        level.mark_old(rows)
        kept.extend(rows)
        if sum(sum(o) for o in level.old) >= total:
            level = _Level(model.sizes, scopes)
            kept = []
    return kept


@dataclass(frozen=True)
class Rotated:
    """A rotated table and what it adds: ``new`` per objective level (t+1, t+2),
    the tuples the history had not covered that the table covers; ``work`` the
    work units spent."""

    table: Table
    new: tuple[int, ...]
    work: int


def _seed(model: Model, runs: Sequence[Sequence[Row]]) -> int:
    blob = json.dumps([model.fingerprint(), [[list(r) for r in run] for run in runs]])
    return int.from_bytes(hashlib.sha256(blob.encode()).digest()[:8], "big")


def _needed(model: Model, table: Table, level: _Level) -> list[bytearray]:
    """Per t-scope, which codes must stay covered (coverable ones: all but the
    infeasible tuples the fixed table lists)."""
    needed = [bytearray(b"\x01" * len(c)) for c in level.counts]
    index = {scope: si for si, scope in enumerate(level.scopes)}
    for scope, values in table.infeasible:
        si = index.get(tuple(scope))
        if si is not None:
            needed[si][sum(v * w for v, w in zip(values, level.weights[si]))] = 0
    return needed


def _complete(level: _Level, needed: list[bytearray]) -> bool:
    return all(n for si, cs in enumerate(level.counts) for c, n in enumerate(cs) if needed[si][c])


class _Search:
    """The state of one rotation: the t-level (hard) and the objective levels."""

    def __init__(self, model: Model, fixed: Table, runs: Sequence[Sequence[Row]]) -> None:
        self.model = model
        sizes = model.sizes
        n = len(sizes)
        self.hard = _Level(sizes, model.index_model.interactions)
        self.needed = _needed(model, fixed, self.hard)
        self.levels: list[_Level] = []
        for strength in (model.strength + 1, model.strength + 2):
            scopes = level_scopes(n, strength)
            size = sum(math.prod(sizes[a] for a in s) for s in scopes)
            if scopes and size <= LEVEL_LIMIT:
                level = _Level(sizes, scopes)
                level.mark_old(cycle_rows(model, runs, strength))
                self.levels.append(level)
        self.locked: set[tuple[int, int]] = {
            (r, a) for r, inc in enumerate(model.include) for a, v in enumerate(inc) if v is not None
        }
        self.work = 0

    def load(self, rows: Sequence[Row]) -> list[list[int]]:
        for level in (self.hard, *self.levels):
            level.counts = [[0] * len(c) for c in level.counts]
            for row in rows:
                level.add(row, 1)
        return [list(r) for r in rows]

    def score(self, rows: Sequence[Row]) -> tuple[int, ...]:
        self.load(rows)
        self.work += len(rows) * sum(len(lv.scopes) for lv in self.levels)
        return tuple(lv.new_covered() for lv in self.levels)


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


def _better(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return a > b


def rotate(
    model: Model,
    fixed: Table,
    runs: Sequence[Sequence[Sequence[int]]],
    *,
    slack: float = SLACK,
    candidates: int = 64,
    moves: int | None = None,
) -> Rotated:
    """The rotated table of ``model`` given the fixed table and the ``runs`` of the
    history (each the index rows of one run, oldest first; at each objective
    strength only the runs of the current cycle weigh: :func:`cycle_rows`).  The
    result is verified (:func:`~pairwise_param.tables.build.verified`) and lists the
    fixed table's infeasible tuples.  ``moves`` bounds the local search (default:
    300 per row, at most 30000)."""
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
    rng = random.Random(_seed(model, past))
    search = _Search(model, fixed, past)
    if not search.levels:
        return Rotated(fixed, (), 0)
    # (1) the fixed table and value-permuted copies of it
    best_rows, best = base, search.score(base)
    for _ in range(candidates):
        rows = _permuted(model, base, rng)
        if rows is None:
            continue
        got = search.score(rows)
        if _better(got, best) and _complete(search.hard, search.needed):
            best_rows, best = rows, got
    current = search.load(best_rows)
    # (2) the spare rows the slack allows, greedily
    for _ in range(max_rows(len(base), slack) - len(base)):
        row = _greedy_row(search, rng)
        if row is None:
            break
        current.append(list(row))
        for level in (search.hard, *search.levels):
            level.add(row, 1)
    # (3) one cell at a time
    budget = moves if moves is not None else min(30_000, 300 * len(current))
    _local_search(search, current, rng, budget)
    rows_out = tuple(tuple(r) for r in current)
    table = dataclasses.replace(fixed, rows=rows_out)
    if not verified(model, table) or len(rows_out) > max_rows(len(base), slack):
        return Rotated(fixed, (), search.work)  # never happens: every step keeps the table covering
    final = search.score(rows_out)
    return Rotated(table, final, search.work)


def _greedy_row(search: _Search, rng: random.Random, tries: int = 24) -> Row | None:
    """A valid row covering the most new tuples (AETG-style: random starts,
    then each axis set to its best value in turn)."""
    model = search.model
    feas = model.feasibility
    sizes = model.sizes
    best: tuple[tuple[int, ...], Row] | None = None
    for _ in range(tries):
        row = [rng.randrange(s) for s in sizes]
        if feas.constrained and feas.violates(row) is not None:
            continue
        for a in rng.sample(range(len(sizes)), len(sizes)):
            choice = row[a]
            top = tuple(lv.gain(row) for lv in search.levels)
            for v in range(sizes[a]):
                row[a] = v
                if feas.constrained and feas.violates(row) is not None:
                    continue
                got = tuple(lv.gain(row) for lv in search.levels)
                search.work += len(search.levels)
                if got > top:
                    top, choice = got, v
            row[a] = choice
        score = tuple(lv.gain(row) for lv in search.levels)
        if best is None or score > best[0]:
            best = (score, tuple(row))
    if best is None or not any(best[0]):
        return None
    return best[1]


def _local_search(search: _Search, rows: list[list[int]], rng: random.Random, budget: int) -> None:
    model = search.model
    feas = model.feasibility
    sizes = model.sizes
    movable = [(r, a) for r in range(len(rows)) for a in range(len(sizes)) if sizes[a] > 1 and (r, a) not in search.locked]
    if not movable:
        return
    for _ in range(budget):
        r, a = movable[rng.randrange(len(movable))]
        row = rows[r]
        value = rng.randrange(sizes[a] - 1)
        if value >= row[a]:
            value += 1
        search.work += 1
        if not search.hard.keeps_covered(row, a, value, search.needed):
            continue
        deltas = []
        for level in search.levels:
            won, lost = level.move(row, a, value)
            deltas.append(won - lost)
        if tuple(deltas) < (0,) * len(deltas):
            continue
        old = row[a]
        row[a] = value
        if feas.constrained and feas.violates(row) is not None:
            row[a] = old
            continue
        row[a] = old
        for level in (search.hard, *search.levels):
            level.apply(row, a, value)
        row[a] = value
