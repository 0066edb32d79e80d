"""The tuple bookkeeping of a rotation: per level (t, t+1, t+2), the count of each
tuple in the current table, which tuples the history covered, and what a cell change
does to them; the feasible tuples of a level (the 100% of accumulated coverage); the
rows of the current cycle; and the :class:`Budget` that bounds what a rotation may
cost at collection (work units, never seconds).

Pure logic over value indices (no engine, no pytest); :mod:`pairwise_param.tables.rotate`
is the entry point.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pairwise_param.feasibility import Feasibility
from pairwise_param.model import Model

__all__ = [
    "LEVEL_LIMIT", "WORK_BUDGET", "Budget", "Level", "cycle_of", "cycle_rows", "feasible_tuples", "level_scopes", "tuple_count",
]

#: a level of more tuples than this is not weighed nor counted (its bookkeeping would
#: cost more time and memory than a collection should); a table whose (t+1)-level is
#: over it is not rotated
LEVEL_LIMIT = 400_000
#: work units one rotation may spend (cells tried, tuples scanned, rows scored); past
#: it the search stops with the best complete table found so far
WORK_BUDGET = 8_000_000

Row = tuple[int, ...]


def level_scopes(n_axes: int, strength: int) -> tuple[tuple[int, ...], ...]:
    """Every set of ``strength`` axes (empty when there are fewer axes)."""
    if strength > n_axes or strength < 1:
        return ()
    return tuple(itertools.combinations(range(n_axes), strength))


class Level:
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

    def feasible_total(self, feas: Feasibility) -> int:
        """How many of this level's tuples some valid row holds (exact; ``feas``: the
        constraints of the model whose ``sizes`` the level counts)."""
        constrained = set(feas.component_of)
        total = 0
        sizes = self.sizes
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
    return Level(model.sizes, scopes).feasible_total(model.feasibility) if scopes else 0


def cycle_rows(model: Model, runs: Sequence[Sequence[Sequence[int]]], strength: int) -> list[Row]:
    """The rows that weigh at ``strength``: those of the runs after the last completed
    cycle at that strength (a cycle is complete when its runs cover every feasible
    tuple of ``strength`` axes).  Runs are oldest first."""
    return cycle_of(model.sizes, model.feasibility, runs, strength)


def cycle_of(sizes: Sequence[int], feas: Feasibility, runs: Sequence[Sequence[Sequence[int]]],
             strength: int) -> list[Row]:
    """:func:`cycle_rows` over any axes (``sizes``, constraints ``feas``): the compile
    axes' variants of a compile-aware rotation (:mod:`.rotate_variants`) cycle alike."""
    scopes = level_scopes(len(sizes), strength)
    if not scopes:
        return []
    level = Level(sizes, scopes)
    total = level.feasible_total(feas)
    kept: list[Row] = []
    for run in runs:
        rows = [tuple(r) for r in run]
        level.mark_old(rows)
        kept.extend(rows)
        if sum(sum(o) for o in level.old) >= total:
            level = Level(sizes, scopes)
            kept = []
    return kept



def tuple_count(sizes: Sequence[int], strength: int) -> int:
    """How many tuples of ``strength`` axes there are (feasible or not): the
    elementary symmetric sum of ``sizes`` (O(axes x strength), no scope listed)."""
    if strength < 1 or strength > len(sizes):
        return 0
    e = [1] + [0] * strength
    for s in sizes:
        for k in range(strength, 0, -1):
            e[k] += e[k - 1] * s
    return e[strength]


@dataclass(frozen=True)
class Budget:
    """What a rotation of a model may afford: which levels are weighed and counted
    (at most :data:`LEVEL_LIMIT` tuples each), whether the model rotates at all (its
    (t+1)-level fits), and why not."""

    strength: int
    counts: tuple[int, ...]  # tuples at t, t+1, t+2

    @classmethod
    def of(cls, model: Model) -> Budget:
        t = model.strength
        return cls(t, tuple(tuple_count(model.sizes, s) for s in (t, t + 1, t + 2)))

    def countable(self, strength: int) -> bool:
        """Are the tuples of ``strength`` axes few enough to weigh and count?"""
        k = strength - self.strength
        return 0 <= k < len(self.counts) and 0 < self.counts[k] <= LEVEL_LIMIT

    @property
    def rotatable(self) -> bool:
        return self.countable(self.strength) and self.countable(self.strength + 1)

    @property
    def why(self) -> str:
        if self.rotatable:
            return ""
        if not self.counts[1]:
            return f"no axis beyond the {self.strength} of its strength"
        return (f"{self.counts[1]:,} tuples of {self.strength + 1} axes, more than the {LEVEL_LIMIT:,} "
                "a rotation weighs")
