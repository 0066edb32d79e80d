"""The bitset state of all-triple scopes (:class:`TripleState`): the constrained
t=3 search of engine version 7 (see :mod:`pairwise_param.engine.improve`)."""

from __future__ import annotations

import itertools

from pairwise_param.engine.improve.state import State
from pairwise_param.engine.requirements import Requirements

__all__ = ["TripleState"]


class TripleState(State):
    """:class:`State` for all-triple scopes (strength 3), with bitsets for the
    hot paths, as :class:`PairState` has for pairs.

    Cell value ``(a, x)`` is number ``off[a] + x``; every unordered pair of cell
    values of two axes that share a scope is one bit, ``pid[c][d]``.
    ``one[a][x]`` has the bit of the pair ``{(b, y), (c, z)}`` set while the
    required triple ``(a=x, b=y, c=z)`` is covered exactly once, ``zero[a][x]``
    while it is coverable and uncovered; ``pmask[r]`` has the bits of the
    pairs of row ``r``'s cells.  The change in missing triples of writing
    ``v`` into ``rows[r][a]`` is then ``popcount(one[a][x] & pmask[r]) -
    popcount(zero[a][v] & pmask[r])`` (the bits of pairs holding ``a`` itself
    are never set in ``one[a]`` / ``zero[a]``): two ``&`` instead of a loop
    over the ``C(n-1, 2)`` scopes of the axis.  One level down, ``one2[p]`` /
    ``zero2[p]`` (``p`` the pair of ``(a, x)`` and ``(b, y)``) have the bit
    ``off[c] + z`` of each third cell whose triple is covered once / is
    missing, and ``cmask[r]`` the bits of row ``r``'s cells: a change of
    several cells of a row (a repair) is scored by the pair bitsets for the
    scopes holding one changed axis, by these for the scopes holding two, and
    on the counters only for the few holding three (:meth:`delta_many`).
    ``holders[a][x]`` is the bitset of the rows holding ``x`` at ``a``.
    """

    eval_cost = 8

    def __init__(self, req: Requirements, rows: list[list[int]]) -> None:
        super().__init__(req, rows)
        sizes = req.sizes
        n = len(sizes)
        off = self.off = req.offsets
        cells = off[-1] + sizes[-1] if n else 0
        pid = [[-1] * cells for _ in range(cells)]
        linked = sorted({(s[i], s[j]) for s in req.scopes for i in range(3) for j in range(i + 1, 3)})
        k = 0
        #: amask[a]: the bits of every pair that holds a cell of axis ``a``
        amask = [0] * n
        for b, c in linked:
            first = k
            for y in range(sizes[b]):
                for z in range(sizes[c]):
                    pid[off[b] + y][off[c] + z] = pid[off[c] + z][off[b] + y] = k
                    k += 1
            block = ((1 << (k - first)) - 1) << first
            amask[b] |= block
            amask[c] |= block
        self.pid = pid
        self.amask = amask
        self.npairs = k
        #: acell[a]: the cell bits of axis ``a``
        self.acell = [((1 << sizes[a]) - 1) << off[a] for a in range(n)]
        # adj3[a]: (global base, weight of a, b, weight of b, c, weight of c) per scope holding a
        adj3: list[list[tuple[int, int, int, int, int, int]]] = [[] for _ in range(n)]
        #: the scope of three axes (sorted): (global base, weights)
        self.scope_of: dict[tuple[int, int, int], tuple[int, tuple[int, ...]]] = {}
        for si, scope in enumerate(req.scopes):
            g = self.gbase[si]
            ws = req.weights[si]
            aw = tuple(zip(scope, ws))
            for j in range(3):
                (a, wa), (b, wb), (c, wc) = aw[j], aw[(j + 1) % 3], aw[(j + 2) % 3]
                adj3[a].append((g, wa, b, wb, c, wc))
            self.scope_of[(scope[0], scope[1], scope[2])] = (g, ws)
        self.adj3 = adj3
        self._recount()

    def _rebuild_rows(self) -> None:
        sizes = self.req.sizes
        off = self.off
        self.pmask = [self._pairs(row) for row in self.rows]
        self.cmask = [sum(1 << (off[a] + x) for a, x in enumerate(row)) for row in self.rows]
        holders = [[0] * s for s in sizes]
        for r, row in enumerate(self.rows):
            for a, x in enumerate(row):
                holders[a][x] |= 1 << r
        self.holders = holders

    def _pairs(self, row: list[int]) -> int:
        off, pid = self.off, self.pid
        ids = [off[a] + x for a, x in enumerate(row)]
        m = 0
        for i, c in enumerate(ids):
            p = pid[c]
            for d in ids[i + 1 :]:
                k = p[d]
                if k >= 0:
                    m |= 1 << k
        return m

    def _recount(self) -> None:
        """Rebuild the bitsets and pair masks from the counters."""
        sizes = self.req.sizes
        off, pid = self.off, self.pid
        counts, cov = self.counts, self.cov
        one = self.one = [[0] * s for s in sizes]
        zero = self.zero = [[0] * s for s in sizes]
        one2 = self.one2 = [0] * self.npairs
        zero2 = self.zero2 = [0] * self.npairs
        for si, scope in enumerate(self.req.scopes):
            g = self.gbase[si]
            a, b, c = scope
            for i, (x, y, z) in enumerate(itertools.product(range(sizes[a]), range(sizes[b]), range(sizes[c]))):
                cnt = counts[g + i]
                if cnt == 1:
                    target, target2 = one, one2
                elif cnt == 0 and cov[g + i]:
                    target, target2 = zero, zero2
                else:
                    continue
                ca, cb, cc = off[a] + x, off[b] + y, off[c] + z
                target[a][x] |= 1 << pid[cb][cc]
                target[b][y] |= 1 << pid[ca][cc]
                target[c][z] |= 1 << pid[ca][cb]
                target2[pid[cb][cc]] |= 1 << ca
                target2[pid[ca][cc]] |= 1 << cb
                target2[pid[ca][cb]] |= 1 << cc
        self._rebuild_rows()

    def set_cell(self, r: int, a: int, v: int) -> None:
        row = self.rows[r]
        x = row[a]
        if x == v:
            return
        counts, cov = self.counts, self.cov
        off, pid = self.off, self.pid
        one, zero, one2, zero2 = self.one, self.zero, self.one2, self.zero2
        cx, cv = off[a] + x, off[a] + v
        pa_x, pa_v = pid[cx], pid[cv]
        bx, bv = 1 << cx, 1 << cv
        one_ax, one_av = one[a][x], one[a][v]
        zero_ax, zero_av = zero[a][x], zero[a][v]
        for g, wa, b, wb, c, wc in self.adj3[a]:
            y, z = row[b], row[c]
            g += y * wb + z * wc
            cb, cc = off[b] + y, off[c] + z
            pbc = pid[cb][cc]
            bit_a = 1 << pbc
            i = g + x * wa
            cnt = counts[i] - 1
            counts[i] = cnt
            if cnt == 1:
                p1, p2 = pa_x[cc], pa_x[cb]
                one_ax |= bit_a
                one[b][y] |= 1 << p1
                one[c][z] |= 1 << p2
                one2[pbc] |= bx
                one2[p1] |= 1 << cb
                one2[p2] |= 1 << cc
            elif cnt == 0:
                p1, p2 = pa_x[cc], pa_x[cb]
                one_ax &= ~bit_a
                one[b][y] &= ~(1 << p1)
                one[c][z] &= ~(1 << p2)
                one2[pbc] &= ~bx
                one2[p1] &= ~(1 << cb)
                one2[p2] &= ~(1 << cc)
                if cov[i]:
                    zero_ax |= bit_a
                    zero[b][y] |= 1 << p1
                    zero[c][z] |= 1 << p2
                    zero2[pbc] |= bx
                    zero2[p1] |= 1 << cb
                    zero2[p2] |= 1 << cc
                    self._add(i)
            i = g + v * wa
            cnt = counts[i]
            counts[i] = cnt + 1
            if cnt == 0:
                p1, p2 = pa_v[cc], pa_v[cb]
                if cov[i]:
                    zero_av &= ~bit_a
                    zero[b][y] &= ~(1 << p1)
                    zero[c][z] &= ~(1 << p2)
                    zero2[pbc] &= ~bv
                    zero2[p1] &= ~(1 << cb)
                    zero2[p2] &= ~(1 << cc)
                    self._remove(i)
                one_av |= bit_a
                one[b][y] |= 1 << p1
                one[c][z] |= 1 << p2
                one2[pbc] |= bv
                one2[p1] |= 1 << cb
                one2[p2] |= 1 << cc
            elif cnt == 1:
                p1, p2 = pa_v[cc], pa_v[cb]
                one_av &= ~bit_a
                one[b][y] &= ~(1 << p1)
                one[c][z] &= ~(1 << p2)
                one2[pbc] &= ~bv
                one2[p1] &= ~(1 << cb)
                one2[p2] &= ~(1 << cc)
        one[a][x], one[a][v] = one_ax, one_av
        zero[a][x], zero[a][v] = zero_ax, zero_av
        # The pairs of the row's cells: those holding (a, x) leave, (a, v) come.
        m = self.pmask[r]
        for b, y in enumerate(row):
            if b != a:
                k = pa_x[off[b] + y]
                if k >= 0:
                    m ^= (1 << k) | (1 << pa_v[off[b] + y])
        self.pmask[r] = m
        self.cmask[r] ^= bx | bv
        row[a] = v
        rb = 1 << r
        self.holders[a][x] &= ~rb
        self.holders[a][v] |= rb

    def delta(self, r: int, a: int, v: int) -> int:
        P = self.pmask[r]
        x = self.rows[r][a]
        return (self.one[a][x] & P).bit_count() - (self.zero[a][v] & P).bit_count()

    def delta_many(self, r: int, changes: list[tuple[int, int]]) -> tuple[int, int]:
        """:meth:`State.delta_many` by the bitsets: the scopes holding one
        changed axis from the pairs of the unchanged cells, the few holding
        two or three on the counters."""
        if len(changes) == 1:
            a, v = changes[0]
            return self.delta(r, a, v), 2
        row = self.rows[r]
        P = self.pmask[r]
        amask = self.amask
        for a, _ in changes:
            P &= ~amask[a]
        one, zero = self.one, self.zero
        d = 0
        for a, v in changes:
            d += (one[a][row[a]] & P).bit_count() - (zero[a][v] & P).bit_count()
        C = self.cmask[r]
        acell = self.acell
        for a, _ in changes:
            C &= ~acell[a]
        off, pid = self.off, self.pid
        one2, zero2 = self.one2, self.zero2
        counts, cov = self.counts, self.cov
        ch = sorted(changes)
        reads = 2 * len(ch)
        for i, (a, v) in enumerate(ch):
            oa, xa = off[a] + row[a], off[a] + v
            for j in range(i + 1, len(ch)):
                b, w = ch[j]
                k = pid[oa][off[b] + row[b]]
                if k < 0:
                    continue
                d += (one2[k] & C).bit_count() - (zero2[pid[xa][off[b] + w]] & C).bit_count()
                reads += 2
                for c, u in ch[j + 1 :]:
                    sc = self.scope_of.get((a, b, c))
                    if sc is None:
                        continue
                    g, (wa, wb, wc) = sc
                    old = g + row[a] * wa + row[b] * wb + row[c] * wc
                    nxt = g + v * wa + w * wb + u * wc
                    reads += 1
                    if counts[old] == 1:
                        d += 1
                    if counts[nxt] == 0 and cov[nxt]:
                        d -= 1
        return d, reads

    def unique(self, row: list[int]) -> int:
        P = self._pairs(row)
        one = self.one
        return sum((one[a][x] & P).bit_count() for a, x in enumerate(row)) // 3

    def near(self, scope: tuple[int, ...], vals: tuple[int, ...]) -> list[int]:
        (a, b, c), (x, y, z) = scope, vals
        h = self.holders
        ha, hb, hc = h[a][x], h[b][y], h[c][z]
        m = (ha & hb & ~hc) | (ha & hc & ~hb) | (hb & hc & ~ha)
        out = []
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        return out

    def drop_row(self, r: int) -> list[int]:
        dropped = super().drop_row(r)
        self._recount()
        return dropped

