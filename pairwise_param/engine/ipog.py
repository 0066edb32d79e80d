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

from pairwise_param.engine.requirements import Requirements, scope_weights
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import IndexModel

__all__ = ["ipog"]

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
    # Pair scopes (b, a) use one global layout: bit goff[b] + y stands for
    # cell (b, y), axes laid out in parameter order.  Each row keeps the mask
    # of its assigned cells (``glob``), so a row's mask for axis ``a`` is one
    # ``&`` with the bits of the axes before ``a``.
    goff = [0] * n
    acc = 0
    starts = []
    for b in order:
        goff[b] = acc
        starts.append(acc)
        acc += sizes[b]
    pair_bits = acc
    amask = [((1 << sizes[b]) - 1) << goff[b] for b in range(n)]
    layout = _Layout(req, by_last, pos, pair_bits, len(model.include))
    rows: list[Row] = [list(r) for r in model.include]
    glob = [sum(1 << (goff[b] + x) for b, x in enumerate(r) if x is not None) for r in rows]
    fits = _Fits(sizes, rows)
    for a in order:
        if by_last[a]:
            _add_axis(a, req, feas, by_last[a], rows, glob, goff, starts, order, pair_bits, amask, layout, fits)
    return [tuple(fill_dont_care(row, sizes, feas, req.constrained)) for row in rows]


class _Layout:
    """One global bit layout for the larger scopes (strength >= 3).

    A scope ending at axis ``a`` is split into ``a`` and its other cells
    ``others`` (a tuple of >= 2 axes); each distinct ``others`` gets one block
    of bits, ``o + code(values)``, after the pair region.  Blocks are ordered
    by ``(len, others)``, so for every axis its blocks appear in the order of
    its scopes (removing one common axis keeps sorted tuples in lexicographic
    order) and the rows match a per-axis layout bit for bit.

    Because the layout is global, each row keeps the bits of the blocks whose
    cells it has all assigned (``emask``), updated when a cell is written:
    a row's mask for a new axis is then one ``|`` instead of a walk over every
    scope ending at that axis (3^100 at t=3: 4,851 blocks per axis, every
    row, every axis).  Include rows (cells fixed ahead of the axis order) are
    masked by that walk instead, as before.
    """

    def __init__(
        self, req: Requirements, by_last: list[list[int]], pos: dict[int, int], start: int, locked: int
    ) -> None:
        self.locked = locked
        keys: set[tuple[int, ...]] = set()
        for a, sis in enumerate(by_last):
            for si in sis:
                scope = req.scopes[si]
                if len(scope) != 2:  # strength 1 too: its block has no other cell
                    keys.add(tuple(b for b in scope if b != a))
        self.block: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}
        #: per axis: (last position, others, weights, offset) of the blocks holding it, by last position
        self.holding: list[list[tuple[int, tuple[int, ...], tuple[int, ...], int]]] = [[] for _ in req.sizes]
        off = start
        for others in sorted(keys, key=lambda k: (len(k), k)):
            ows, size = scope_weights(req.sizes, others)
            self.block[others] = (ows, off)
            last = max((pos[b] for b in others), default=-1)
            for b in others:
                self.holding[b].append((last, others, ows, off))
            off += size
        for h in self.holding:
            h.sort(key=lambda e: e[0])
        self.nbytes = off // 8 + 1
        self.emask: dict[int, int] = {}
        # The same bits as bytes: setting one bit of a big int copies all of it
        # (2^30 at t=5: 438,000 bits), setting a byte does not.
        self._bytes: dict[int, bytearray] = {}

    def note(self, r: int, row: Row, cells: list[int], upto: int) -> None:
        """Row ``r`` (not an include row) got ``cells`` written; axes after
        position ``upto`` are unassigned in every such row."""
        if not self.block or r < self.locked:
            return
        bits = self._bytes.get(r)
        if bits is None:
            bits = self._bytes[r] = bytearray(self.nbytes)
        for c in cells:
            for last, others, ows, o in self.holding[c]:
                if last > upto:
                    break
                for b, w in zip(others, ows):
                    x = row[b]
                    if x is None:
                        break
                    o += x * w
                else:
                    bits[o >> 3] |= 1 << (o & 7)
        self.emask[r] = int.from_bytes(bits, "little")


class _Fits:
    """Which rows can take a cell, as bitsets over row numbers: per axis, the rows
    whose cell is assigned (``assigned[c]``) and the rows holding each value
    (``holds[c][x]``), kept in step with every committed write.  Vertical growth
    then finds the first row a tuple fits with a few ANDs instead of a scan of
    every row, which made a model of few, large axes quadratic in its rows (2
    axes x 300 values: 90,000 tuples, each scanning up to 90,000 rows: 379 s).
    The rows found, and their order, are the scan's: the lowest row that fits."""

    def __init__(self, sizes: tuple[int, ...], rows: list[Row]) -> None:
        self.assigned = [0] * len(sizes)
        self.holds = [[0] * s for s in sizes]
        for r, row in enumerate(rows):
            for c, x in enumerate(row):
                if x is not None:
                    self.write(r, c, x)

    def write(self, r: int, c: int, x: int) -> None:
        """Row ``r``'s free cell at axis ``c`` now holds ``x``."""
        bit = 1 << r
        self.assigned[c] |= bit
        self.holds[c][x] |= bit

    def rows_for(self, n_rows: int, cells: list[tuple[int, int]]) -> int:
        """The bitset of the rows (of the first ``n_rows``) whose every cell of
        ``cells`` is free or already holds the value."""
        m = (1 << n_rows) - 1
        assigned, holds = self.assigned, self.holds
        for c, x in cells:
            m &= ~assigned[c] | holds[c][x]
        return m


Entry = tuple[tuple[int, ...], tuple[int, ...], int]


def _add_axis(
    a: int,
    req: Requirements,
    feas: Feasibility,
    sis: list[int],
    rows: list[Row],
    glob: list[int],
    goff: list[int],
    starts: list[int],
    order: list[int],
    pair_bits: int,
    amask: list[int],
    layout: _Layout,
    fits: _Fits,
) -> None:
    """Give axis ``a`` a value in every row (horizontal growth), then add or
    fill rows for the tuples still uncovered (vertical growth)."""
    sizes = req.sizes
    n = len(sizes)
    sa = sizes[a]
    constrained = req.constrained
    prefix = (1 << goff[a]) - 1
    # Larger scopes are laid out after the pair region.
    entries: list[Entry] = []
    offsets: list[int] = []
    always = 0
    need = 0  # every tuple of every scope ending at ``a``, for each value of ``a``
    blocked: list[tuple[int, tuple[int, ...], int]] = []  # (scope index, weights, offset)
    scopes = req.scopes
    all_blocked = req.blocked
    for si in sis:
        scope = scopes[si]
        ows: tuple[int, ...] = (1,)
        if len(scope) == 2:
            b = scope[0] if scope[1] == a else scope[1]
            need |= amask[b]
            if all_blocked[si]:
                blocked.append((si, ows, goff[b]))
            continue
        others = tuple(b for b in scope if b != a)
        if len(others) == 1:
            o, P = goff[others[0]], sizes[others[0]]
        else:
            ows, o = layout.block[others]
            P = req.totals[si] // sa
            entries.append((others, ows, o))
            offsets.append(o)
            if not others:  # a strength-1 scope: every row holds its one "tuple" of no other cell
                always |= 1 << o
        need |= ((1 << P) - 1) << o
        if req.blocked[si]:
            blocked.append((si, ows, o))
    M = [need] * sa
    for si, ows, o in blocked:
        ia = req.scopes[si].index(a)
        for index in req.blocked[si]:
            combo = req.combo(si, index)
            c = sum(x * w for x, w in zip(combo[:ia] + combo[ia + 1 :], ows))
            M[combo[ia]] &= ~(1 << (o + c))

    include_count = layout.locked
    upto = order.index(a)

    def rowmask(r: int) -> int:
        R = glob[r] & prefix
        if r >= include_count:
            return R | layout.emask.get(r, 0) | always if entries else R
        row = rows[r]
        for others, ows, o in entries:
            for b, w in zip(others, ows):
                x = row[b]
                if x is None:
                    break
                o += x * w
            else:
                R |= 1 << o
        return R

    def ok(row: Row) -> bool:
        return feas.violates(row) is None and feas.completable(row)

    # Rows whose cell at ``a`` is already fixed (include rows).
    for r, row in enumerate(rows):
        fixed_v = row[a]
        if fixed_v is not None:
            M[fixed_v] &= ~rowmask(r)

    # Horizontal growth: largest (row, value) gain first, lazily.
    masks: dict[int, int] = {}
    heap: list[tuple[int, int, int]] = []
    for r, row in enumerate(rows):
        if row[a] is not None:
            continue
        R = rowmask(r)
        masks[r] = R
        for v in range(sa):
            g = (R & M[v]).bit_count()
            if g:
                heap.append((-g, r, v))
    heapq.heapify(heap)
    abit = goff[a]
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
        glob[r] |= 1 << (abit + v)
        fits.write(r, a, v)
        layout.note(r, row, [a], upto)
        M[v] &= ~R
        del masks[r]

    # Vertical growth: each uncovered tuple into a compatible row, or a new one.
    for v in range(sa):
        while M[v]:
            low = M[v] & -M[v]
            p = low.bit_length() - 1
            cells: list[tuple[int, int]] = []
            if p < pair_bits:
                b = order[bisect_right(starts, p) - 1]
                cells.append((b, p - goff[b]))
            else:
                k = bisect_right(offsets, p) - 1
                e_others, e_ows, o0 = entries[k]
                rest = p - o0
                for b, w in zip(e_others, e_ows):
                    cells.append((b, rest // w))
                    rest %= w
            placed = -1
            # the rows where a and every cell are free or hold the value, lowest first
            fit = fits.rows_for(len(rows), [(a, v), *cells])
            while fit:
                lowest = fit & -fit
                fit ^= lowest
                r = lowest.bit_length() - 1
                row = rows[r]
                x = row[a]
                fresh = [c for c in (a, *(b for b, _ in cells)) if row[c] is None]
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
                placed = r
                break
            if placed < 0:
                placed = len(rows)
                rows.append([None] * n)
                glob.append(0)
                fresh = [a, *(b for b, _ in cells)]
            row = rows[placed]
            row[a] = v
            for b, y in cells:
                row[b] = y
            for c, y in ((a, v), *cells):
                if c in fresh:
                    fits.write(placed, c, y)
            layout.note(placed, row, fresh, upto)
            glob[placed] |= 1 << (goff[a] + v)
            for b, y in cells:
                glob[placed] |= 1 << (goff[b] + y)
            M[v] &= ~rowmask(placed)
            if M[v] & low:  # cannot happen; guards against an endless loop
                raise AssertionError("vertical growth failed to cover a tuple")


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
