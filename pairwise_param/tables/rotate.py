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
    history covered (they add nothing); ``terms[axis]`` the (scope, weight) pairs
    that axis enters (a cell change moves each of those codes by weight x delta)."""

    def __init__(self, sizes: Sequence[int], scopes: Sequence[tuple[int, ...]]) -> None:
        self.sizes = tuple(sizes)
        self.scopes = tuple(scopes)
        self.weights: list[tuple[int, ...]] = []
        self.counts: list[list[int]] = []
        self.old: list[bytearray] = []
        self.terms: list[list[tuple[int, int]]] = [[] for _ in sizes]
        for si, scope in enumerate(self.scopes):
            w, acc = [], 1
            for a in scope:
                w.append(acc)
                self.terms[a].append((si, acc))
                acc *= sizes[a]
            self.weights.append(tuple(w))
            self.counts.append([0] * acc)
            self.old.append(bytearray(acc))
        self._pairs = [tuple(zip(scope, w)) for scope, w in zip(self.scopes, self.weights)]
        #: what a new tuple of each scope is worth (1; see :meth:`scarce`)
        self.worth = [1] * len(self.scopes)

    def scarce(self, rows: int) -> None:
        """Weigh each scope's tuples by the runs it needs at least (ceil(tuples /
        rows)): a scope of many combinations (7 x 6 x 6 layouts) is the one that
        holds the coverage back, so its tuples come first."""
        self.worth = [max(1, -(-len(c) // max(1, rows))) for c in self.counts]

    def codes(self, row: Sequence[int]) -> list[int]:
        """The code of ``row``'s tuple in every scope."""
        return [sum(row[a] * w for a, w in pairs) for pairs in self._pairs]

    def cells(self, si: int, code: int) -> list[tuple[int, int]]:
        """(axis, value) of the tuple ``code`` of scope ``si``."""
        return [(a, (code // w) % self.sizes[a]) for a, w in zip(self.scopes[si], self.weights[si])]

    def mark_old(self, rows: Sequence[Sequence[int]]) -> None:
        for row in rows:
            for si, c in enumerate(self.codes(row)):
                self.old[si][c] = 1

    def reset(self) -> None:
        self.counts = [[0] * len(c) for c in self.counts]

    def add(self, codes: Sequence[int], delta: int) -> None:
        for si, c in enumerate(codes):
            self.counts[si][c] += delta

    def new_covered(self) -> int:
        """Tuples the current table covers that the history did not (weighed)."""
        worth = self.worth
        return sum(worth[si] for si, cs in enumerate(self.counts) for c, n in enumerate(cs) if n and not self.old[si][c])

    def new_count(self) -> int:
        """Tuples the current table covers that the history did not (not weighed)."""
        return sum(1 for si, cs in enumerate(self.counts) for c, n in enumerate(cs) if n and not self.old[si][c])

    def uncovered(self) -> list[tuple[int, int]]:
        """(scope, code) of every tuple neither the history nor the table covers."""
        return [(si, c) for si, cs in enumerate(self.counts) for c, n in enumerate(cs) if not n and not self.old[si][c]]

    def gain(self, codes: Sequence[int]) -> int:
        """New tuples a row of these codes would add to the current table."""
        counts, old, worth = self.counts, self.old, self.worth
        return sum(worth[si] for si, c in enumerate(codes) if not counts[si][c] and not old[si][c])

    def delta(self, codes: Sequence[int], axis: int, change: int, in_table: bool) -> int:
        """Net new tuples when the row of ``codes`` (in the table or not) moves its
        cell ``axis`` by ``change``."""
        counts, old, worth = self.counts, self.old, self.worth
        net = 0
        lone = 1 if in_table else 0
        for si, w in self.terms[axis]:
            before = codes[si]
            after = before + change * w
            if counts[si][before] == lone and not old[si][before]:
                net -= worth[si]
            if counts[si][after] == 0 and not old[si][after]:
                net += worth[si]
        return net

    def keeps_covered(self, codes: Sequence[int], axis: int, needed: list[bytearray]) -> bool:
        """Does every tuple of the row of ``codes`` that a change of ``axis`` removes stay covered?"""
        counts = self.counts
        return all(counts[si][codes[si]] > 1 or not needed[si][codes[si]] for si, _ in self.terms[axis])

    def move(self, codes: list[int], axis: int, change: int, in_table: bool = True) -> None:
        """Apply a cell change to the row of ``codes`` (and to the counts when it is in the table)."""
        counts = self.counts
        for si, w in self.terms[axis]:
            before = codes[si]
            codes[si] = before + change * w
            if in_table:
                counts[si][before] -= 1
                counts[si][before + change * w] += 1

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


class _Search:
    """The state of one rotation: the rows, the t-level (hard) and the objective
    levels, with every row's codes in every level."""

    def __init__(self, model: Model, fixed: Table, runs: Sequence[Sequence[Row]]) -> None:
        self.model = model
        self.feas = model.feasibility
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
                level.scarce(len(fixed.rows))
                self.levels.append(level)
        self.all = (self.hard, *self.levels)
        self.locked: set[tuple[int, int]] = {
            (r, a) for r, inc in enumerate(model.include) for a, v in enumerate(inc) if v is not None
        }
        self.rows: list[list[int]] = []
        self.codes: list[list[list[int]]] = []  # [row][level] -> codes
        self.work = 0

    def load(self, rows: Sequence[Sequence[int]]) -> None:
        for level in self.all:
            level.reset()
        self.rows, self.codes = [], []
        for row in rows:
            self.append(row)

    def append(self, row: Sequence[int]) -> None:
        codes = [level.codes(row) for level in self.all]
        for level, c in zip(self.all, codes):
            level.add(c, 1)
        self.rows.append(list(row))
        self.codes.append(codes)
        self.work += sum(len(lv.scopes) for lv in self.all)

    def score(self) -> tuple[int, ...]:
        return tuple(lv.new_covered() for lv in self.levels)

    def complete(self) -> bool:
        counts, needed = self.hard.counts, self.needed
        return all(n or not needed[si][c] for si, cs in enumerate(counts) for c, n in enumerate(cs))

    def breaks_rule(self, row: list[int], a: int, value: int) -> bool:
        """Would ``row[a] = value`` break a constraint?  (``row`` is left as it was.)"""
        if not self.feas.constrained:
            return False
        old = row[a]
        row[a] = value
        try:
            return self.feas.violates(row) is not None
        finally:
            row[a] = old

    def try_cell(self, r: int, a: int, value: int) -> tuple[int, ...] | None:
        """The objective deltas of setting cell (r, a) to ``value``, or None when the
        change would uncover a t-tuple or break a constraint."""
        row, codes = self.rows[r], self.codes[r]
        self.work += 1
        if not self.hard.keeps_covered(codes[0], a, self.needed):
            return None
        if self.breaks_rule(row, a, value):
            return None
        change = value - row[a]
        return tuple(lv.delta(c, a, change, True) for lv, c in zip(self.levels, codes[1:]))

    def set_cell(self, r: int, a: int, value: int) -> None:
        row, codes = self.rows[r], self.codes[r]
        change = value - row[a]
        for level, c in zip(self.all, codes):
            level.move(c, a, change)
        row[a] = value


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
    seed = _seed(model, past)
    search = _Search(model, fixed, past)
    if not search.levels:
        return Rotated(fixed, (), 0)
    limit = max_rows(len(base), slack)
    search.load(base)
    fixed_new = search.levels[0].new_count()
    got = _rotation(search, base, random.Random(seed), limit, True, work, moves, swaps)
    if got is None or search.levels[0].new_count() < fixed_new:
        # no plan, or a planned run that covers fewer new (t+1)-tuples than the fixed table
        spent = search.work
        search = _Search(model, fixed, past)
        got = _rotation(search, base, random.Random(seed), limit, False, work, moves, swaps)
        search.work += spent
    assert got is not None
    rows_out = tuple(tuple(r) for r in search.rows)
    table = dataclasses.replace(fixed, rows=rows_out)
    if not verified(model, table) or len(rows_out) > limit:
        return Rotated(fixed, (), search.work)  # never happens: every step keeps the table covering
    return Rotated(table, search.score(), search.work)


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
        while search.work < budget:
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
        row = _greedy_row(search, rng)
        if row is None:
            break
        search.append(row)
    # (3) cell by cell
    steps = moves if moves is not None else min(20_000, 300 * len(search.rows))
    _local_search(search, rng, steps)
    return True


def _swaps(search: _Search, rng: random.Random, trials: int) -> None:
    """Swap two values of one free axis in every row (kept when no objective level
    loses, the lowest level first)."""
    sizes = search.model.sizes
    locked_axes = {a for _, a in search.locked}
    free = [a for a in range(len(sizes)) if sizes[a] > 1 and a not in search.feas.component_of
            and a not in locked_axes]
    if not free:
        return
    zero = (0,) * len(search.levels)
    for _ in range(trials):
        a = free[rng.randrange(len(free))]
        x, y = rng.sample(range(sizes[a]), 2)
        changed = [(r, y if row[a] == x else x) for r, row in enumerate(search.rows) if row[a] in (x, y)]
        total = zero
        undo = []
        for r, v in changed:
            codes = search.codes[r]
            change = v - search.rows[r][a]
            got = tuple(lv.delta(c, a, change, True) for lv, c in zip(search.levels, codes[1:]))
            total = tuple(p + q for p, q in zip(total, got))
            undo.append((r, search.rows[r][a]))
            search.set_cell(r, a, v)
        search.work += len(changed)
        if total < zero:
            for r, old in reversed(undo):
                search.set_cell(r, a, old)


def _targets(search: _Search, rng: random.Random, k: int) -> list[list[tuple[int, int]]]:
    """The cells of up to ``k`` random objective tuples nobody covers (of the lowest
    level that has one); one scan of the counts."""
    for level in search.levels:
        missing = level.uncovered()
        search.work += len(missing)
        if missing:
            picked = rng.sample(missing, min(k, len(missing)))
            return [level.cells(si, code) for si, code in picked]
    return []


def _greedy_row(search: _Search, rng: random.Random, tries: int = 6) -> Row | None:
    """A valid row covering the most new tuples (AETG-style: start from an uncovered
    tuple, the other cells random, then each free axis set to its best value in turn)."""
    feas = search.feas
    sizes = search.model.sizes
    best: tuple[tuple[int, ...], Row] | None = None
    targets = _targets(search, rng, tries)
    for k in range(tries):
        row = [rng.randrange(s) for s in sizes]
        fixed_axes: set[int] = set()
        for a, v in targets[k] if k < len(targets) else ():
            row[a] = v
            fixed_axes.add(a)
        if feas.constrained and feas.violates(row) is not None:
            continue
        codes = [lv.codes(row) for lv in search.levels]
        search.work += sum(len(lv.scopes) for lv in search.levels)
        for a in rng.sample(range(len(sizes)), len(sizes)):
            if a in fixed_axes:
                continue
            top, choice = (0,) * len(codes), row[a]
            for v in range(sizes[a]):
                if v == row[a]:
                    continue
                old = row[a]
                row[a] = v
                bad = feas.constrained and feas.violates(row) is not None
                row[a] = old
                if bad:
                    continue
                got = tuple(lv.delta(c, a, v - old, False) for lv, c in zip(search.levels, codes))
                search.work += len(codes)
                if got > top:
                    top, choice = got, v
            if choice != row[a]:
                for lv, c in zip(search.levels, codes):
                    lv.move(c, a, choice - row[a], False)
                row[a] = choice
        score = tuple(lv.gain(c) for lv, c in zip(search.levels, codes))
        if best is None or score > best[0]:
            best = (score, tuple(row))
    if best is None or not any(best[0]):
        return None
    return best[1]


def _local_search(search: _Search, rng: random.Random, steps: int) -> None:
    """Random one-cell moves (kept when no objective level loses, lowest level
    first) and, every other step, a targeted move: an uncovered objective tuple
    written into a random row, kept only when it gains."""
    sizes = search.model.sizes
    n_rows = len(search.rows)
    movable = [(r, a) for r in range(n_rows) for a in range(len(sizes)) if sizes[a] > 1 and (r, a) not in search.locked]
    if not movable:
        return
    zero = (0,) * len(search.levels)
    targets: list[list[tuple[int, int]]] = []
    for step in range(steps):
        if step % 2:
            if not targets:
                targets = _targets(search, rng, 64) or [[]] * 64
            cells = targets.pop()
            if cells:
                start = rng.randrange(n_rows)
                for k in range(min(8, n_rows)):  # the first of 8 rows (from a random one) where it gains
                    if _targeted(search, (start + k) % n_rows, cells, zero):
                        break
            continue
        r, a = movable[rng.randrange(len(movable))]
        value = rng.randrange(sizes[a] - 1)
        if value >= search.rows[r][a]:
            value += 1
        got = search.try_cell(r, a, value)
        if got is not None and got >= zero:
            search.set_cell(r, a, value)


def _targeted(search: _Search, r: int, cells: list[tuple[int, int]], zero: tuple[int, ...]) -> bool:
    """Write ``cells`` into row ``r`` when that keeps the table covering and gains."""
    row = search.rows[r]
    if any((r, a) in search.locked and row[a] != v for a, v in cells):
        return False
    done: list[tuple[int, int]] = []  # (axis, old value)
    total = zero
    for a, v in cells:
        if row[a] == v:
            continue
        got = search.try_cell(r, a, v)
        if got is None:
            break
        done.append((a, row[a]))
        search.set_cell(r, a, v)
        total = tuple(x + y for x, y in zip(total, got))
    else:
        if total > zero:
            return True
    for a, old in reversed(done):
        search.set_cell(r, a, old)
    return False


#: a planned cycle is made only for a scope that needs at least this many runs
PLAN_LAYERS = 4


def _plan(search: _Search, rng: random.Random, limit: int) -> list[list[int]] | None:
    """A planned run of a cycle: the (t+1)-scope of the most tuples is split into
    Latin layers, and this run takes the layer the cycle covers least.

    With the scope's axes sorted by size, ``a_1 .. a_t`` the largest and ``c`` the
    smallest, layer ``k`` holds one row per value tuple of ``a_1 .. a_t`` with
    ``c = (k + a_1 + .. + a_t) mod |c|``: each t-tuple of the scope occurs in it
    (``a_i mod |c|`` is onto), and the ``|c|`` layers partition the scope's tuples,
    so ``|c|`` runs cover them all.  The other axes are filled by a local search
    until the run covers every t-tuple (include rows' cells kept, constraints
    respected, spare rows up to ``limit``); the scope's cells are then locked for the
    rest of the rotation.  None (today's rotation) when the scope needs fewer than
    :data:`PLAN_LAYERS` runs, touches a constraint or an include cell, the layer
    would not fit in ``limit`` rows, or the fill does not cover every t-tuple."""
    model, feas = search.model, search.feas
    if not search.levels or len(search.levels[0].scopes[0]) != model.strength + 1:
        return None
    level = search.levels[0]
    sizes = model.sizes
    si = max(range(len(level.scopes)), key=lambda i: (len(level.counts[i]), -i))
    scope = sorted(level.scopes[si], key=lambda a: (-sizes[a], a))
    lead, c = scope[:-1], scope[-1]
    layers = sizes[c]
    n_rows = math.prod(sizes[a] for a in lead)
    includes = model.include
    if (layers < PLAN_LAYERS or n_rows > limit or len(includes) > n_rows
            or any(inc[a] is not None for inc in includes for a in scope)):
        return None
    # the layer the cycle covers least (ties: the lowest k)
    old, weights = level.old[si], dict(zip(level.scopes[si], level.weights[si]))
    lead_values = list(itertools.product(*(range(sizes[a]) for a in lead)))
    seen = []
    for k in range(layers):
        codes = (sum(v * weights[a] for a, v in zip(lead, vs)) + ((k + sum(vs)) % layers) * weights[c] for vs in lead_values)
        seen.append(sum(old[x] for x in codes))
    search.work += layers * n_rows
    k = min(range(layers), key=lambda i: (seen[i], i))
    if seen[k] == n_rows:
        return None
    locked: set[tuple[int, int]] = set()
    rows: list[list[int]] = []
    for r, vs in enumerate(lead_values):
        cells: list[int | None] = [None] * len(sizes)
        for a, v in zip(lead, vs):
            cells[a] = v
        cells[c] = (k + sum(vs)) % layers
        locked.update((r, a) for a in scope)
        if r < len(includes):
            for a, x in enumerate(includes[r]):
                if x is not None:
                    cells[a] = x
                    locked.add((r, a))
        if feas.constrained and (feas.violates(cells) is not None or not feas.completable(cells)):
            return None
        row = _complete(search, rng, cells)
        if row is None:
            return None
        rows.append(row)
    search.load(rows)
    if not _fill(search, rng, locked, 300 * n_rows):
        return None
    while not search.complete() and len(search.rows) < limit:
        row = _cover_row(search, rng)
        if row is None:
            return None
        search.append(row)
    if not search.complete():
        return None
    search.locked = search.locked | locked
    return [list(r) for r in search.rows]


def _complete(search: _Search, rng: random.Random, cells: list[int | None]) -> list[int] | None:
    """``cells`` with every free cell set (at random, each value kept only while the
    row stays completable), or None."""
    feas, sizes = search.feas, search.model.sizes
    row = list(cells)
    for a in rng.sample(range(len(sizes)), len(sizes)):
        if row[a] is not None:
            continue
        values = rng.sample(range(sizes[a]), sizes[a])
        for v in values:
            row[a] = v
            if not feas.constrained or (feas.violates(row) is None and feas.completable(row)):
                break
        else:
            return None
        search.work += 1
    out = [int(v) for v in row if v is not None]
    return out if len(out) == len(sizes) and (not feas.constrained or feas.violates(out) is None) else None


def _uncovered_hard(search: _Search) -> list[tuple[int, int]]:
    needed = search.needed
    return [(si, c) for si, cs in enumerate(search.hard.counts) for c, n in enumerate(cs) if not n and needed[si][c]]


def _hard_delta(search: _Search, r: int, a: int, value: int) -> int | None:
    """The change in covered t-tuples when cell (r, a) becomes ``value`` (None when
    the row then breaks a constraint)."""
    row, codes = search.rows[r], search.codes[r][0]
    if search.breaks_rule(row, a, value):
        return None
    hard, needed = search.hard, search.needed
    counts, change, net = hard.counts, value - row[a], 0
    for si, w in hard.terms[a]:
        before = codes[si]
        after = before + change * w
        if counts[si][before] == 1 and needed[si][before]:
            net -= 1
        if counts[si][after] == 0 and needed[si][after]:
            net += 1
    return net


def _fill(search: _Search, rng: random.Random, locked: set[tuple[int, int]], steps: int) -> bool:
    """Write uncovered t-tuples into rows whose locked cells agree (kept when no
    t-tuple is lost on balance) until every t-tuple is covered or the steps run out."""
    n_rows = len(search.rows)
    missing = _uncovered_hard(search)
    for step in range(steps):
        if step % 16 == 0 or not missing:
            missing = _uncovered_hard(search)
            search.work += len(missing) + 1
            if not missing:
                return True
        si, code = missing[rng.randrange(len(missing))]
        cells = search.hard.cells(si, code)
        start = rng.randrange(n_rows)
        for i in range(min(8, n_rows)):
            r = (start + i) % n_rows
            row = search.rows[r]
            if any((r, a) in locked and row[a] != v for a, v in cells):
                continue
            done: list[tuple[int, int]] = []
            net = 0
            for a, v in cells:
                if row[a] == v:
                    continue
                got = _hard_delta(search, r, a, v)
                search.work += 1
                if got is None:
                    net = -1
                    break
                done.append((a, row[a]))
                search.set_cell(r, a, v)
                net += got
            if net >= 0 and done:
                break
            for a, old in reversed(done):
                search.set_cell(r, a, old)
    return not _uncovered_hard(search)


def _cover_row(search: _Search, rng: random.Random) -> list[int] | None:
    """A spare row for the t-tuples a planned run still misses: one of them, the
    other cells each set to the value that covers the most missing t-tuples."""
    missing = _uncovered_hard(search)
    if not missing:
        return None
    sizes, feas, hard, needed = search.model.sizes, search.feas, search.hard, search.needed
    cells = hard.cells(*missing[0])
    fixed = {a for a, _ in cells}
    row = [rng.randrange(s) for s in sizes]
    for a, v in cells:
        row[a] = v
    for a in range(len(sizes)):
        if a in fixed:
            continue
        best, choice = -1, row[a]
        for v in range(sizes[a]):
            row[a] = v
            if feas.constrained and feas.violates(row) is not None:
                continue
            got = sum(1 for si, code in zip(range(len(hard.scopes)), hard.codes(row))
                      if not hard.counts[si][code] and needed[si][code])
            if got > best:
                best, choice = got, v
        row[a] = choice
    search.work += len(sizes)
    if feas.constrained and feas.violates(row) is not None:
        return None
    return row
