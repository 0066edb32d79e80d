"""Spreading a covering array one strength up: the same number of rows, every tuple it
covered still covered, more of the (t+1)-tuples.

Among equally small arrays of a model some cover many more (t+1)-tuples than others
(the fault study's fused-norm compile model: 416 six-row arrays of its five compile
axes cover 50 to 56 of its 74 coverable triples).  Where nothing else separates them,
the one covering more of the next strength is the better test table: a fault of order
t+1 is caught by more of its combinations.  A compile-aware table needs it most: its
rows can only hold the variant list's (t+1)-tuples over the compile axes, so the
variant list's spread is a ceiling no row choice can lift (:mod:`.variants`).

:func:`spread` is a deterministic hill climb.  A move replaces one row by another
valid row (every valid row when the model's product is at most :data:`FULL_LIMIT`,
else the rows one cell away); it is taken when no tuple of the model's interactions
loses its last row, the new row is not already in the array and the (t+1)-tuples
covered grow (the largest gain, the first such move in row and candidate order on
ties); a rotation passes its history's rows as ``seen``, whose (t+1)-tuples count as
covered already, so the moves reach the tuples earlier runs missed.  Rows are visited in order, again until a pass changes nothing or the work
units (scope projections evaluated) run out: no clock, no random draw, so the same
array in, the same array out, in every process.  The caller still verifies the result
(it never covers less: a move that would uncover a tuple is never taken).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from pairwise_param.feasibility import Feasibility

__all__ = ["FULL_LIMIT", "SPREAD_UNITS", "spread", "up_scopes"]

#: Models whose full product is at most this many rows try every valid row as a
#: replacement (constraints can couple cells, so a one-cell move alone may be stuck);
#: larger ones try the rows one cell away.
FULL_LIMIT = 4096

#: Work units (one scope projection evaluated is one unit) a spread may spend by default:
#: a fraction of a second, far below the improver's quick budget.
SPREAD_UNITS = 400_000

Row = tuple[int, ...]
Key = tuple[int, tuple[int, ...]]


def up_scopes(n: int, scopes: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """Every (t+1)-subset of the axes, t the longest interaction scope (none when t+1
    exceeds the axes: the array is then the whole valid product's share already)."""
    t = max((len(s) for s in scopes), default=0)
    return tuple(itertools.combinations(range(n), t + 1)) if 0 < t < n else ()


class _Counts:
    """How many rows hold each tuple of a list of scopes, and which scopes touch an axis."""

    def __init__(self, n: int, scopes: Sequence[tuple[int, ...]], rows: Sequence[Row]) -> None:
        self.scopes = tuple(scopes)
        self.by_axis: list[list[int]] = [[] for _ in range(n)]
        for si, s in enumerate(self.scopes):
            for a in s:
                self.by_axis[a].append(si)
        self.count: Counter[Key] = Counter(self.key(si, r) for r in rows for si in range(len(self.scopes)))

    def key(self, si: int, row: Row) -> Key:
        return si, tuple(row[a] for a in self.scopes[si])

    def touched(self, axes: Sequence[int]) -> list[int]:
        if len(axes) == 1:
            return self.by_axis[axes[0]]
        return sorted({si for a in axes for si in self.by_axis[a]})

    def move(self, old: Row, new: Row, scopes: Sequence[int]) -> None:
        for si in scopes:
            self.count[self.key(si, old)] -= 1
            self.count[self.key(si, new)] += 1


def _candidates(sizes: Sequence[int], feas: Feasibility, everything: list[Row] | None, row: Row) -> list[Row]:
    if everything is not None:
        return everything
    out = []
    for a, size in enumerate(sizes):
        for v in range(size):
            if v != row[a]:
                cand = row[:a] + (v,) + row[a + 1:]
                if feas.violates(cand) is None:
                    out.append(cand)
    return out


def spread(
    sizes: Sequence[int],
    scopes: Sequence[tuple[int, ...]],
    feas: Feasibility,
    rows: Sequence[Sequence[int]],
    *,
    frozen: int = 0,
    seen: Sequence[Sequence[int]] = (),
    units: int = SPREAD_UNITS,
) -> list[Row]:
    """``rows`` (valid, complete) moved to cover more (t+1)-tuples of ``sizes``' axes,
    every tuple of ``scopes`` they cover still covered, no two rows equal; the first
    ``frozen`` rows (must-include rows) stay as they are.  A (t+1)-tuple one of the
    ``seen`` rows holds (a rotation's history: the variants earlier runs compiled) is
    no gain.  See the module docstring."""
    n = len(sizes)
    out: list[Row] = [tuple(r) for r in rows]
    up = up_scopes(n, scopes)
    if not up or len(out) <= frozen:
        return out
    product = 1
    for s in sizes:
        product *= s
    everything = None
    if product <= FULL_LIMIT:
        everything = [c for c in itertools.product(*(range(s) for s in sizes)) if feas.violates(c) is None]
        units -= product
    keep, gain = _Counts(n, scopes, out), _Counts(n, up, [*out, *(tuple(r) for r in seen)])
    present = set(out)
    changed = True
    while changed and units > 0:
        changed = False
        for i in range(frozen, len(out)):
            row = out[i]
            best: tuple[int, Row, list[int], list[int]] | None = None
            for cand in _candidates(sizes, feas, everything, row):
                if cand in present:
                    continue
                diff = [a for a in range(n) if cand[a] != row[a]]
                ks, gs = keep.touched(diff), gain.touched(diff)
                units -= len(ks) + len(gs)
                if any(keep.count[keep.key(si, row)] == 1 for si in ks):
                    continue  # the row is the last to hold one of its tuples
                delta = sum((gain.count[gain.key(si, cand)] == 0) - (gain.count[gain.key(si, row)] == 1) for si in gs)
                if delta > 0 and (best is None or delta > best[0]):
                    best = (delta, cand, ks, gs)
            if best is not None:
                _, cand, ks, gs = best
                keep.move(row, cand, ks)
                gain.move(row, cand, gs)
                present.discard(row)
                present.add(cand)
                out[i] = cand
                changed = True
            if units <= 0:
                break
    return out
