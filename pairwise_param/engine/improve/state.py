"""The coverage state of a row list: counters and missing tuples (:class:`State`),
and the bitset state of all-pair scopes (:class:`PairState`); the improver's
moves read and write it (see :mod:`pairwise_param.engine.improve`)."""

from __future__ import annotations

from bisect import bisect_right

from pairwise_param.engine.requirements import Requirements

__all__ = ["PairState", "State"]


class State:
    """Coverage counts of a row list, with the list of missing tuples.

    Generic over scope sizes (any strength, mixed strength).  Rows are
    addressed by index; :class:`PairState` specialises the hot paths for
    models whose scopes are all pairs.
    """

    #: Work units charged for evaluating one candidate single-cell change
    #: (None: charge the axis degree, i.e. the counters read).
    eval_cost: int | None = None

    def __init__(self, req: Requirements, rows: list[list[int]]) -> None:
        self.req = req
        self.rows = rows
        n = len(req.sizes)
        gbase = []
        total = 0
        for t in req.totals:
            gbase.append(total)
            total += t
        self.gbase = gbase
        self.counts = [0] * total
        cov = bytearray(b"\x01") * total
        for si, blocked in enumerate(req.blocked):
            for index in blocked:
                cov[gbase[si] + index] = 0
        self.cov = cov
        self.pairs = all(len(s) == 2 for s in req.scopes)
        # adj[a]: (global base of scope, weight of a, ((b, weight of b), ...))
        adj: list[list[tuple[int, int, tuple[tuple[int, int], ...]]]] = [[] for _ in range(n)]
        # adj2[a] (pair scopes): (global base, weight of a, b, weight of b)
        adj2: list[list[tuple[int, int, int, int]]] = [[] for _ in range(n)]
        # flat[si]: (global base, ((axis, weight), ...)) for whole-row indexing
        self.flat = []
        for si, scope in enumerate(req.scopes):
            ws = req.weights[si]
            self.flat.append((gbase[si], tuple(zip(scope, ws))))
            for j, a in enumerate(scope):
                others = tuple((b, w) for k, (b, w) in enumerate(zip(scope, ws)) if k != j)
                adj[a].append((gbase[si], ws[j], others))
                if len(others) == 1:
                    adj2[a].append((gbase[si], ws[j], others[0][0], others[0][1]))
        self.adj = adj
        self.adj2 = adj2
        self.deg = [len(x) for x in adj]
        self.pair_index = [(g, aw[0][0], aw[0][1], aw[1][0]) for g, aw in self.flat] if self.pairs else []
        self.missing: list[int] = []
        self.where: dict[int, int] = {}
        counts = self.counts
        for row in rows:
            for i in self.indices(row):
                counts[i] += 1
        for g in range(total):
            if cov[g] and counts[g] == 0:
                self._add(g)

    def indices(self, row: list[int]) -> list[int]:
        """Global counter index of every scope's tuple in ``row``."""
        if self.pairs:
            return [g + row[a] * wa + row[b] for g, a, wa, b in self.pair_index]
        out = []
        for g, aws in self.flat:
            for a, w in aws:
                g += row[a] * w
            out.append(g)
        return out

    def _add(self, g: int) -> None:
        self.where[g] = len(self.missing)
        self.missing.append(g)

    def _remove(self, g: int) -> None:
        i = self.where.pop(g)
        last = self.missing.pop()
        if last != g:
            self.missing[i] = last
            self.where[last] = i

    def set_cell(self, r: int, a: int, v: int) -> None:
        row = self.rows[r]
        x = row[a]
        if x == v:
            return
        counts = self.counts
        cov = self.cov
        for g, wa, others in self.adj[a]:
            for b, wb in others:
                g += row[b] * wb
            i = g + x * wa
            counts[i] -= 1
            if counts[i] == 0 and cov[i]:
                self._add(i)
            i = g + v * wa
            if counts[i] == 0 and cov[i]:
                self._remove(i)
            counts[i] += 1
        row[a] = v

    def delta(self, r: int, a: int, v: int) -> int:
        """Change of the missing count if ``rows[r][a]`` became ``v`` (read only).

        Infeasible tuples need no special care: valid rows never hold them,
        and a move making the row invalid is rejected by the caller.
        """
        row = self.rows[r]
        x = row[a]
        counts = self.counts
        d = 0
        if self.pairs:
            for g, wa, b, wb in self.adj2[a]:
                g += row[b] * wb
                if counts[g + x * wa] == 1:
                    d += 1
                if counts[g + v * wa] == 0:
                    d -= 1
            return d
        for g, wa, others in self.adj[a]:
            for b, wb in others:
                g += row[b] * wb
            if counts[g + x * wa] == 1:
                d += 1
            if counts[g + v * wa] == 0:
                d -= 1
        return d

    def delta_many(self, r: int, changes: list[tuple[int, int]]) -> tuple[int, int]:
        """(change of the missing count, counters read) if the cells ``changes``
        of row ``r`` took their new values at once (read only).  Each scope
        touching a changed axis loses its old tuple and gains its new one; a
        scope touching two changed axes is counted once (scopes have disjoint
        counter ranges, so its base ``g`` names it)."""
        row = self.rows[r]
        new = list(row)
        for a, v in changes:
            new[a] = v
        counts, cov = self.counts, self.cov
        seen: set[int] | None = set() if len(changes) > 1 else None
        d = reads = 0
        for a, _ in changes:
            for g, wa, others in self.adj[a]:
                if seen is not None:
                    if g in seen:
                        continue
                    seen.add(g)
                i = g + row[a] * wa
                j = g + new[a] * wa
                for b, wb in others:
                    i += row[b] * wb
                    j += new[b] * wb
                reads += 1
                if i != j:
                    if counts[i] == 1:
                        d += 1
                    if counts[j] == 0 and cov[j]:
                        d -= 1
        return d, reads

    def near(self, scope: tuple[int, ...], vals: tuple[int, ...]) -> list[int]:
        """Rows agreeing with all but one cell of the tuple."""
        t = len(scope)
        out = []
        for r, row in enumerate(self.rows):
            agree = 0
            for a, v in zip(scope, vals):
                if row[a] == v:
                    agree += 1
            if agree == t - 1:
                out.append(r)
        return out

    def drop_row(self, r: int) -> list[int]:
        row = self.rows.pop(r)
        counts = self.counts
        for i in self.indices(row):
            counts[i] -= 1
            if counts[i] == 0 and self.cov[i]:
                self._add(i)
        return row

    def unique(self, row: list[int]) -> int:
        """Tuples only this row covers."""
        counts = self.counts
        return sum(1 for i in self.indices(row) if counts[i] == 1)

    def decode(self, g: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        si = bisect_right(self.gbase, g) - 1
        return self.req.scopes[si], self.req.combo(si, g - self.gbase[si])



class PairState(State):
    """:class:`State` for all-pair scopes, with bitsets for the hot paths.

    Position ``off[b] + y`` stands for the cell value ``(b, y)``.
    ``one[a][x]`` has the bit of ``(b, y)`` set while the required pair
    ``(a=x, b=y)`` is covered exactly once, ``zero[a][x]`` while it is
    coverable and uncovered; ``rmask[r]`` has the bits of row ``r``'s cells.
    The change in missing pairs of writing ``v`` into ``rows[r][a]`` is then
    ``popcount(one[a][x] & rmask[r]) - popcount(zero[a][v] & rmask[r])``: two
    ``&`` on small ints instead of a loop over all partner axes.
    ``holders[a][x]`` is a bitset of the rows holding ``x`` at ``a``, which
    finds the rows one cell away from a missing pair without a scan.
    """

    eval_cost = 6

    def __init__(self, req: Requirements, rows: list[list[int]]) -> None:
        super().__init__(req, rows)
        self.off = req.offsets
        self._recount()

    def _rebuild_rows(self) -> None:
        sizes = self.req.sizes
        off = self.off
        self.rmask = [sum(1 << (off[a] + x) for a, x in enumerate(row)) for row in self.rows]
        holders = [[0] * s for s in sizes]
        for r, row in enumerate(self.rows):
            for a, x in enumerate(row):
                holders[a][x] |= 1 << r
        self.holders = holders

    def set_cell(self, r: int, a: int, v: int) -> None:
        row = self.rows[r]
        x = row[a]
        if x == v:
            return
        counts = self.counts
        cov = self.cov
        off = self.off
        one = self.one
        zero = self.zero
        one_ax, one_av = one[a][x], one[a][v]
        zero_ax, zero_av = zero[a][x], zero[a][v]
        bx = 1 << (off[a] + x)
        bv = 1 << (off[a] + v)
        for g, wa, b, wb in self.adj2[a]:
            y = row[b]
            g += y * wb
            by = 1 << (off[b] + y)
            i = g + x * wa
            c = counts[i] - 1
            counts[i] = c
            if c == 1:
                one_ax |= by
                one[b][y] |= bx
            elif c == 0:
                one_ax &= ~by
                one[b][y] &= ~bx
                if cov[i]:
                    zero_ax |= by
                    zero[b][y] |= bx
                    self._add(i)
            i = g + v * wa
            c = counts[i]
            counts[i] = c + 1
            if c == 0:
                if cov[i]:
                    zero_av &= ~by
                    zero[b][y] &= ~bv
                    self._remove(i)
                one_av |= by
                one[b][y] |= bv
            elif c == 1:
                one_av &= ~by
                one[b][y] &= ~bv
        one[a][x], one[a][v] = one_ax, one_av
        zero[a][x], zero[a][v] = zero_ax, zero_av
        row[a] = v
        self.rmask[r] ^= bx | bv
        rb = 1 << r
        self.holders[a][x] &= ~rb
        self.holders[a][v] |= rb

    def delta(self, r: int, a: int, v: int) -> int:
        R = self.rmask[r]
        x = self.rows[r][a]
        return (self.one[a][x] & R).bit_count() - (self.zero[a][v] & R).bit_count()

    def unique(self, row: list[int]) -> int:
        """Tuples only this row covers: its pairs counted once, from the
        ``one`` bitsets (each such pair is seen from both of its cells)."""
        off = self.off
        R = 0
        for a, x in enumerate(row):
            R |= 1 << (off[a] + x)
        one = self.one
        return sum((one[a][x] & R).bit_count() for a, x in enumerate(row)) // 2

    def near(self, scope: tuple[int, ...], vals: tuple[int, ...]) -> list[int]:
        (a, b), (x, y) = scope, vals
        m = self.holders[a][x] ^ self.holders[b][y]
        out = []
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        return out

    def drop_row(self, r: int) -> list[int]:
        # Rare (once per elimination): recount the bitsets from the counters.
        dropped = super().drop_row(r)
        self._recount()
        return dropped

    def _recount(self) -> None:
        """Rebuild the bitsets and row masks from the counters."""
        sizes = self.req.sizes
        n = len(sizes)
        off = self.off
        counts = self.counts
        cov = self.cov
        self.one = [[0] * sizes[a] for a in range(n)]
        self.zero = [[0] * sizes[a] for a in range(n)]
        for g, a, wa, b in self.pair_index:
            for x in range(sizes[a]):
                for y in range(sizes[b]):
                    i = g + x * wa + y
                    c = counts[i]
                    if c == 1:
                        self.one[a][x] |= 1 << (off[b] + y)
                        self.one[b][y] |= 1 << (off[a] + x)
                    elif c == 0 and cov[i]:
                        self.zero[a][x] |= 1 << (off[b] + y)
                        self.zero[b][y] |= 1 << (off[a] + x)
        self._rebuild_rows()

