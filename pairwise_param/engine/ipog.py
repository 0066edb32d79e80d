"""In-parameter-order construction (IPOG-F flavour).

Axes are added one at a time, largest first.  When axis ``a`` is added, only
the scopes whose last axis (in that order) is ``a`` can gain coverage, so the
uncovered tuples of those scopes are kept as one int bitset per value ``v`` of
``a``: bit ``off(scope) + index(other cells)`` is set while the tuple
``(other cells, v)`` is uncovered.  A row's cells give a mask ``R`` of the same
layout, and the gain of writing ``v`` into the row is ``(R & M[v]).bit_count()``.

Horizontal growth picks, over all (row, value) pairs, the largest gain first
(IPOG-F); gains only shrink as tuples get covered, so a lazy max-heap finds the
true maximum without rescanning.  A row whose best gain is 0 keeps a don't-care
cell.  Vertical growth then places each still-uncovered tuple in the first row
whose cells are don't-care or equal, or in a new row, so don't-care cells are
reused before rows are added.  Remaining don't-care cells are finally filled
with values that keep the row valid.

Constraints: every write is checked with :meth:`Feasibility.completable` (only
when the model has exclusions), so a partial row can always be completed and
no coverable tuple is lost.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right

from pairwise_param.constraints import Feasibility
from pairwise_param.engine.requirements import Requirements, scope_weights
from pairwise_param.model import IndexModel

__all__ = ["fill_dont_care", "ipog"]

Row = list[int | None]


def ipog(model: IndexModel, req: Requirements, feas: Feasibility) -> list[tuple[int, ...]]:
    """Covering array built in parameter order; include rows come first."""
    sizes = req.sizes
    n = len(sizes)
    order = sorted(range(n), key=lambda a: (-sizes[a], a))
    pos = {a: i for i, a in enumerate(order)}
    by_last: list[list[int]] = [[] for _ in range(n)]
    for si, scope in enumerate(req.scopes):
        by_last[max(scope, key=pos.__getitem__)].append(si)
    constrained = req.constrained
    rows: list[Row] = [list(r) for r in model.include]

    def ok(row: Row) -> bool:
        return feas.violates(row) is None and feas.completable(row)

    for a in order:
        sis = by_last[a]
        if not sis:
            continue
        sa = sizes[a]
        # Local layout of the scopes ending at ``a``.
        entries: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
        offsets: list[int] = []
        off = 0
        M = [0] * sa
        for si in sis:
            scope = req.scopes[si]
            others = tuple(b for b in scope if b != a)
            ows, P = scope_weights(sizes, others)
            entries.append((others, ows, off))
            offsets.append(off)
            full = ((1 << P) - 1) << off
            for v in range(sa):
                M[v] |= full
            if req.blocked[si]:
                ia = scope.index(a)
                for index in req.blocked[si]:
                    combo = req.combo(si, index)
                    o = sum(x * w for x, w in zip(combo[:ia] + combo[ia + 1 :], ows))
                    M[combo[ia]] &= ~(1 << (off + o))
            off += P
        pairs = all(len(e[0]) == 1 for e in entries)
        pair_axes = [(e[0][0], e[2]) for e in entries] if pairs else []

        def rowmask(
            row: Row,
            pairs: bool = pairs,
            pair_axes: list[tuple[int, int]] = pair_axes,
            entries: list[tuple[tuple[int, ...], tuple[int, ...], int]] = entries,
        ) -> int:
            R = 0
            if pairs:
                for b, o in pair_axes:
                    x = row[b]
                    if x is not None:
                        R |= 1 << (o + x)
                return R
            for others, ows, o in entries:
                for b, w in zip(others, ows):
                    x = row[b]
                    if x is None:
                        break
                    o += x * w
                else:
                    R |= 1 << o
            return R

        # Rows whose cell at ``a`` is already fixed (include rows).
        for row in rows:
            fixed_v = row[a]
            if fixed_v is not None:
                M[fixed_v] &= ~rowmask(row)

        # Horizontal growth: largest (row, value) gain first, lazily.
        masks: dict[int, int] = {}
        heap: list[tuple[int, int, int]] = []
        for r, row in enumerate(rows):
            if row[a] is not None:
                continue
            R = rowmask(row)
            masks[r] = R
            for v in range(sa):
                g = (R & M[v]).bit_count()
                if g:
                    heap.append((-g, r, v))
        heapq.heapify(heap)
        while heap:
            neg, r, v = heapq.heappop(heap)
            got = masks.get(r)
            if got is None:
                continue
            R = got
            g = (R & M[v]).bit_count()
            if g == 0:
                continue
            if g != -neg:
                heapq.heappush(heap, (-g, r, v))
                continue
            row = rows[r]
            row[a] = v
            if constrained and not ok(row):
                row[a] = None
                continue
            M[v] &= ~R
            del masks[r]

        # Vertical growth: each uncovered tuple into a compatible row, or a new one.
        for v in range(sa):
            while M[v]:
                low = M[v] & -M[v]
                p = low.bit_length() - 1
                k = bisect_right(offsets, p) - 1
                others, ows, o0 = entries[k]
                rest = p - o0
                cells = []
                for b, w in zip(others, ows):
                    cells.append((b, rest // w))
                    rest %= w
                placed = None
                for row in rows:
                    x = row[a]
                    if x is not None and x != v:
                        continue
                    if any(row[b] is not None and row[b] != y for b, y in cells):
                        continue
                    if constrained:
                        saved = [row[b] for b, _ in cells]
                        row[a] = v
                        for b, y in cells:
                            row[b] = y
                        if not ok(row):
                            row[a] = x
                            for (b, _), s in zip(cells, saved):
                                row[b] = s
                            continue
                    placed = row
                    break
                if placed is None:
                    placed = [None] * n
                    rows.append(placed)
                placed[a] = v
                for b, y in cells:
                    placed[b] = y
                M[v] &= ~rowmask(placed)
                if M[v] & low:  # cannot happen; guards against an endless loop
                    raise AssertionError("vertical growth failed to cover a tuple")
    return [tuple(fill_dont_care(row, sizes, feas, constrained)) for row in rows]


def fill_dont_care(row: Row, sizes: tuple[int, ...], feas: Feasibility, constrained: bool) -> list[int]:
    """Give every don't-care cell a value keeping the row valid.

    Without constraints value 0 is as good as any: every tuple is already
    covered.  With constraints :meth:`Feasibility.complete` finds a valid
    completion, which exists because every write kept the row completable.
    """
    if not constrained:
        return [0 if x is None else x for x in row]
    full = feas.complete(row)
    if full is None:  # pragma: no cover - guarded by the completable checks
        raise AssertionError(f"row {row} cannot be completed")
    return full
