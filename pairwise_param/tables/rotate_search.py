"""The state and the moves of one rotation: the rows, the t-level that must stay
covered, the objective levels (t+1, t+2) and every row's codes in each; value swaps,
greedy spare rows and the one-cell local search.  Every step counts work units
(:data:`~pairwise_param.tables.rotate_levels.WORK_BUDGET` bounds them); randomness only
from the ``random.Random`` handed in.  :mod:`pairwise_param.tables.rotate` drives it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from pairwise_param.model import Model
from pairwise_param.tables.build import Table
from pairwise_param.tables.rotate_levels import (
    LEVEL_LIMIT,
    WORK_BUDGET,
    Level,
    cycle_rows,
    level_scopes,
    tuple_count,
)

__all__ = ["Search", "greedy_row", "local_search", "swaps"]

Row = tuple[int, ...]


def _needed(model: Model, table: Table, level: Level) -> list[bytearray]:
    """Per t-scope, which codes must stay covered (coverable ones: all but the
    infeasible tuples the fixed table lists)."""
    needed = [bytearray(b"\x01" * len(c)) for c in level.counts]
    index = {scope: si for si, scope in enumerate(level.scopes)}
    for scope, values in table.infeasible:
        si = index.get(tuple(scope))
        if si is not None:
            needed[si][sum(v * w for v, w in zip(values, level.weights[si]))] = 0
    return needed


class Search:
    """The state of one rotation: the rows, the t-level (hard) and the objective
    levels, with every row's codes in every level."""

    def __init__(self, model: Model, fixed: Table, runs: Sequence[Sequence[Row]]) -> None:
        self.model = model
        self.feas = model.feasibility
        sizes = model.sizes
        n = len(sizes)
        self.hard = Level(sizes, model.index_model.interactions)
        self.needed = _needed(model, fixed, self.hard)
        self.levels: list[Level] = []
        for strength in (model.strength + 1, model.strength + 2):
            if tuple_count(sizes, strength) > LEVEL_LIMIT:
                continue  # too many to weigh (and to list: C(1000, 4) scopes)
            scopes = level_scopes(n, strength)
            size = sum(math.prod(sizes[a] for a in s) for s in scopes)
            if scopes and size <= LEVEL_LIMIT:
                level = Level(sizes, scopes)
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
        #: tuple slots scanned (whole-level passes); with ``work``, what :attr:`over` weighs
        self.scanned = 0
        self.budget = WORK_BUDGET
        self._slots = sum(len(c) for lv in self.levels for c in lv.counts)
        #: the codes a cell change of each axis moves (its cost in work units)
        self._cell_cost = [sum(len(lv.terms[a]) for lv in self.all) for a in range(n)]

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

    @property
    def over(self) -> bool:
        """Has this rotation spent its work budget (steps and scans together)?"""
        return self.work + self.scanned >= self.budget

    def score(self) -> tuple[int, ...]:
        self.scanned += self._slots
        return tuple(lv.new_covered() for lv in self.levels)

    def complete(self) -> bool:
        counts, needed = self.hard.counts, self.needed
        self.scanned += sum(len(c) for c in counts)
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
        self.scanned += self._cell_cost[a]
        change = value - row[a]
        for level, c in zip(self.all, codes):
            level.move(c, a, change)
        row[a] = value


def swaps(search: Search, rng: random.Random, trials: int) -> None:
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
        if search.over:
            return
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


def _targets(search: Search, rng: random.Random, k: int) -> list[list[tuple[int, int]]]:
    """The cells of up to ``k`` random objective tuples nobody covers (of the lowest
    level that has one); one scan of the counts."""
    for level in search.levels:
        missing = level.uncovered()
        search.scanned += sum(len(c) for c in level.counts)
        search.work += len(missing)
        if missing:
            picked = rng.sample(missing, min(k, len(missing)))
            return [level.cells(si, code) for si, code in picked]
    return []


def greedy_row(search: Search, rng: random.Random, tries: int = 6) -> Row | None:
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


def local_search(search: Search, rng: random.Random, steps: int) -> None:
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
        if search.over:
            return
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


def _targeted(search: Search, r: int, cells: list[tuple[int, int]], zero: tuple[int, ...]) -> bool:
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

