"""Shrinking a valid covering array: redundant rows, then row elimination.

1. Redundant-row removal: a row all of whose tuples are also covered by other
   rows is dropped (last rows first, include rows never).
2. Row elimination: drop the row that covers the fewest tuples alone, then
   repair the now missing tuples by cell changes, a tabu search: a move picks
   a missing tuple (seeded local ``random.Random``) and the rows that already
   agree with all but one of its cells (any row if none does), and writes the
   tuple into the candidate whose change loses least, even when it loses,
   skipping cells changed in the last ``tenure`` moves.  When nothing is
   missing the smaller array is recorded and the next row is dropped.
   (A simulated-annealing acceptance rule was measured against this one at
   equal budget and lost everywhere, e.g. 4^1 3^39 2^35: 22 vs 21 rows, 3^13:
   16 vs 15; it was removed in engine version 3.)

3. Under constraints (engine version 5): a move whose cell change would
   break an exclusion is not dropped but repaired: the other cells of the
   axes linked to the written ones by constraints are re-chosen, keeping their
   values where they can (:func:`_repaired`), and the whole change is scored
   at once on the counters (:meth:`_State.delta_many`).  The search thus walks
   the feasible space only, as CASA (Garvin, Cohen and Dwyer, "Evaluating
   improvements to a meta-heuristic search for constrained interaction
   testing", Empirical Software Engineering 16, 2011) and TCA / FastCA (Lin,
   Luo, Cai et al., ASE 2015 / ICSE 2019) do, with the constraint check
   incremental: only the linked axes of a change are looked at.  Before it,
   a missing tuple whose every one-cell placement broke a rule could not be
   placed at all, so effort 1 gave exactly the quick rows on constrained models.

4. Constrained models whose scopes are all triples (engine version 7): the
   search runs on the bitsets of :class:`_TripleState` (a move's candidates
   are scored with a few big-int ANDs instead of a loop over the axis'
   scopes), the constraint check looks only at the exclusions of the changed
   axes (:func:`_breaks`), a repair changes the fewest cells of the written
   axes' constraint component (:func:`_repairs`, memoised), and the move
   (:func:`_triple_move`) follows TCA's tabu step: rows one cell away first,
   then every row.  Moves are charged what they cost there, so quick mode
   makes some 12,000 of them where version 6 made 1,500; a changed cell's
   tenure is drawn from a range in the second half of the budget (a fixed
   one let a 4-move cycle run for good), repaired cells are tabu too, and an
   attempt is abandoned after :data:`TRIPLE_PATIENCE` moves without progress.
   An effort level on a constrained model first runs quick mode's search and
   then fresh rounds from the start array with seeds of their own
   (:func:`search`'s ``warmup``), so it is never larger than quick mode.

The budget is counted in work units (one unit = one coverage counter looked
at, plus a fixed charge per move), never seconds, so the output is a pure
function of (model, rows, budget, seed) while each effort level costs about
the same time on any model.  A search also stops after ``stall`` work units
without a new best array (the level has converged; see :mod:`.budget`).
Rows stay valid under the exclusions at every accepted step (a full row is
checked with :meth:`Feasibility.violates`), include rows are never dropped and
their given cells never change, so the best array seen is always a valid
answer.
"""

from __future__ import annotations

import itertools
import random
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from pairwise_param.constraints import Feasibility
from pairwise_param.engine.budget import Progress
from pairwise_param.engine.requirements import Requirements

__all__ = ["Improved", "improve", "remove_redundant", "search"]

#: Work units charged per move on top of the counters it reads (the Python
#: overhead of picking the tuple and the candidate rows).
MOVE_OVERHEAD = 60

#: Tabu tenure (moves a changed cell stays frozen): unconstrained models, and
#: constrained ones, whose repair moves change several linked cells at once and
#: cycle back sooner (measured on the constrained t=3 set of
#: benchmarks/constrained_models.py: tenure 2 / 4 / 6 / 10 gave 430 / 424 / 425 /
#: 425 quick rows in all, 416 / 411 / 412 / 415 at effort 1).
TENURE = 2
CONSTRAINED_TENURE = 4

#: A staged search (:func:`search`'s ``warmup``): the seed of round ``k`` after
#: the first stage is ``seed + k * STAGE_SEED``, and each round may spend
#: ``ROUND_UNITS`` work units.
STAGE_SEED = 0x9E3779B9
ROUND_UNITS = 10_000_000

#: Repair moves between two progress reports (``search(on_progress=...)``).
PROGRESS_MOVES = 256


class _State:
    """Coverage counts of a row list, with the list of missing tuples.

    Generic over scope sizes (any strength, mixed strength).  Rows are
    addressed by index; :class:`_PairState` specialises the hot paths for
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


class _PairState(_State):
    """:class:`_State` for all-pair scopes, with bitsets for the hot paths.

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


class _TripleState(_State):
    """:class:`_State` for all-triple scopes (strength 3), with bitsets for the
    hot paths, as :class:`_PairState` has for pairs.

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
        """:meth:`_State.delta_many` by the bitsets: the scopes holding one
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


def remove_redundant(req: Requirements, rows: list[list[int]], locked: int) -> list[list[int]]:
    """Drop rows (last first, never the first ``locked``) covering nothing alone."""
    state = _State(req, [list(r) for r in rows])
    _drop_redundant(state, locked)
    return state.rows


def _drop_redundant(state: _State, locked: int) -> None:
    r = len(state.rows) - 1
    while r >= locked:
        if state.unique(state.rows[r]) == 0:
            state.drop_row(r)
        r -= 1


@dataclass(frozen=True)
class Improved:
    """What a search returned: the best rows, the work units it spent, and the
    work counter when the best was found (how a stall window is tuned)."""

    rows: list[tuple[int, ...]]
    work: int
    found_at: int = 0
    #: a KeyboardInterrupt ended the search (``interruptible``): ``rows`` is the best so far
    interrupted: bool = False


def setup_cost(req: Requirements, n_rows: int) -> int:
    """Work units of building the coverage state of ``n_rows`` rows: two per
    (row, scope) counter update and two per tuple scanned (measured against
    the hot loop's units on 3^100, 4^100, 3^300 and 10^20: within a factor
    of two).  A search whose budget is below this cannot drop a single row, so
    it is not started: the gate that keeps quick mode cheap on huge models."""
    return 2 * (len(req.scopes) * max(1, n_rows) + sum(req.totals))


def _score_cost(state: _State, n_rows: int) -> int:
    """Work units of scoring ``n_rows`` rows by the tuples they cover alone."""
    if isinstance(state, _PairState):
        return 4 * len(state.req.sizes) * n_rows
    return len(state.req.scopes) * n_rows


def improve(
    req: Requirements,
    feas: Feasibility,
    rows: list[tuple[int, ...]],
    include: tuple[tuple[int | None, ...], ...],
    budget: int,
    seed: int,
    lower_bound: int = 1,
    stall: int = 0,
) -> list[tuple[int, ...]]:
    """A valid array no larger than ``rows`` (same include rows first); see :func:`search`."""
    return search(req, feas, rows, include, budget, seed, lower_bound, stall).rows


def search(
    req: Requirements,
    feas: Feasibility,
    rows: list[tuple[int, ...]],
    include: tuple[tuple[int | None, ...], ...],
    budget: int,
    seed: int,
    lower_bound: int = 1,
    stall: int = 0,
    sample: int = 1000,
    tenure: int | None = None,
    patience: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    interruptible: bool = False,
    warmup: int = 0,
    warmup_stall: int = 0,
) -> Improved:
    """Row elimination within ``budget`` work units.

    Up to ``sample`` candidate rows are tried per move; the best move whose
    cells were not changed in the last ``tenure`` moves is always taken
    (``tenure=None``: :data:`TENURE`, or :data:`CONSTRAINED_TENURE` on a
    constrained model).  An
    attempt that finds no new best for ``patience`` moves is abandoned: the
    search restarts from the best array, dropping the next row in the order of
    fewest tuples covered alone.  The whole search ends after ``stall`` work
    units (0: never) without a new best array, at ``lower_bound`` rows, or
    when the budget is spent.

    ``on_progress`` is told the best row count after each new best and every
    :data:`PROGRESS_MOVES` repair moves (it reads, never steers: the rows do
    not depend on it).  With ``interruptible``, a KeyboardInterrupt (from
    Ctrl-C or from ``on_progress``) ends the search with the best array so far
    and ``interrupted`` set; ``best`` is only ever replaced by a complete
    array, so an interrupt mid-move cannot leave it half-repaired.

    With ``0 < warmup < budget`` the search runs in stages: the first is
    exactly the search of ``warmup`` units and stall window ``warmup_stall``
    (quick mode's, so an effort level never returns more rows than quick
    mode); then rounds of :data:`ROUND_UNITS` each start again from ``rows``
    with a generator of their own (``seed + k *`` :data:`STAGE_SEED`), and an
    array smaller than every earlier one replaces it, until the budget is
    spent or ``stall`` units brought none.
    """
    locked = len(include)
    work = setup_cost(req, len(rows))
    if budget < work:
        return Improved([tuple(r) for r in rows], 0)
    pairs = all(len(s) == 2 for s in req.scopes)
    triples = req.constrained and all(len(s) == 3 for s in req.scopes)
    make = _PairState if pairs else _TripleState if triples else _State
    state = make(req, [list(r) for r in rows])
    _drop_redundant(state, locked)
    work += _score_cost(state, len(rows))
    best = [tuple(r) for r in state.rows]
    if len(best) <= max(lower_bound, locked):
        return Improved(best, work, work)
    rng = random.Random(seed)
    fixed = [[x is not None for x in inc] for inc in include]
    linked = _linked(feas, len(req.sizes)) if req.constrained else ()
    if tenure is None:
        tenure = CONSTRAINED_TENURE if req.constrained else TENURE
    if patience is None:
        patience = TRIPLE_PATIENCE if triples else 100_000
    staged = 0 < warmup < budget
    first, first_stall = (warmup, warmup_stall) if staged else (budget, stall)
    ctx = _Context(
        req, feas, state.deg, state.eval_cost or 0, locked, fixed, sample, tenure, pairs, linked,
        _rules(feas, len(req.sizes)) if req.constrained else (), triples, int(first * TRIPLE_SPLIT),
    )
    # Dropping a row updates its counters; the bitset states also recount their bitsets.
    drop_cost = 2 * len(req.scopes) + (2 * sum(req.totals) if pairs or triples else 0)
    overall = best
    work_now = work
    found = work

    def tick(now: int) -> None:
        if on_progress is not None:
            on_progress(Progress(len(overall), lower_bound, now, budget))

    def stage(state: _State, ctx: _Context, rng: random.Random, end: int, end_stall: int) -> None:
        """Row elimination from ``state`` until ``end`` units (or ``end_stall``
        units without a smaller array of this stage); ``overall`` takes every
        array smaller than it."""
        nonlocal work_now, overall, found
        best = [tuple(r) for r in state.rows]
        work = work_now
        attempt = 0
        last_best = work
        try:
            while work < end and len(state.rows) > max(lower_bound, locked):
                if end_stall and work - last_best >= end_stall:
                    break
                # Drop the row covering fewest tuples alone (latest on ties); after
                # abandoned attempts, the next ones in that order.
                scores = sorted((state.unique(state.rows[r]), -r) for r in range(locked, len(state.rows)))
                work += _score_cost(state, len(scores))
                _, neg_r = scores[attempt % len(scores)]
                state.drop_row(-neg_r)
                work += drop_cost
                limit = end if not end_stall else min(end, last_best + end_stall)
                work = _repair(ctx, state, rng, work, limit, patience, tick if on_progress is not None else None)
                if state.missing:
                    if work >= limit:
                        break
                    attempt += 1
                    state = make(req, [list(r) for r in best])
                    work += setup_cost(req, len(best))
                    continue
                attempt = 0
                best = [tuple(r) for r in state.rows]
                last_best = work
                if len(best) < len(overall):
                    overall, found = best, work
                tick(work)
        finally:
            work_now = work

    try:
        stage(state, ctx, rng, first, first_stall)
        # Further rounds (an effort level on a constrained model, after quick
        # mode's search): each from the start array with its own generator,
        # ROUND_UNITS each, until the budget is spent or ``stall`` units
        # brought no smaller array.  Fresh starts, not the best array: from
        # quick mode's best the search stayed where it was (vLLM fused MoE t=3
        # and flash-attention fwd t=3: no new array in 60 million units),
        # while independent runs spread over 50-51 and 60-63 rows.
        k = 0
        while staged and work_now < budget and len(overall) > max(lower_bound, locked):
            if stall and work_now - found >= stall:
                break
            k += 1
            end = min(budget, work_now + ROUND_UNITS)
            fresh = make(req, [list(r) for r in rows])
            _drop_redundant(fresh, locked)
            work_now += setup_cost(req, len(rows)) + _score_cost(fresh, len(rows))
            round_ctx = replace(ctx, spread_from=work_now + int((end - work_now) * TRIPLE_SPLIT))
            stage(fresh, round_ctx, random.Random(seed + k * STAGE_SEED), end, 0)
    except KeyboardInterrupt:
        if not interruptible:
            raise
        return Improved(overall, work_now, found, interrupted=True)
    return Improved(overall, work_now, found)


@dataclass(frozen=True)
class _Context:
    """The fixed inputs of the repair moves (one search)."""

    req: Requirements
    feas: Feasibility
    deg: list[int]
    eval_cost: int
    locked: int
    fixed: list[list[bool]]
    sample: int
    tenure: int
    pairs: bool
    #: linked[a]: the other axes of a's constraint component (() when unconstrained)
    linked: tuple[tuple[int, ...], ...] = ()
    #: rules[a]: (scope, forbidden value tuples) of every exclusion holding axis a
    rules: tuple[tuple[tuple[tuple[int, ...], frozenset[tuple[int, ...]]], ...], ...] = ()
    #: the all-triple constrained search (:class:`_TripleState`): its moves are
    #: charged what they cost there, and repairs are memoised
    triples: bool = False
    #: the work counter from which the triple search draws its tenures (:data:`TRIPLE_SPREAD`)
    spread_from: int = 0
    #: repairs already computed: (writes, the row's cells on the written axes'
    #: components) -> the cell changes (a pure function, so memoising keeps the rows)
    memo: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], tuple[tuple[int, int], ...] | None] = field(
        default_factory=dict
    )
    #: the valid value combinations of each small constraint component (by its index)
    projections: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    #: :func:`_repairs`' answers: (writes, the row's cells on the component) -> change lists
    options: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], tuple[tuple[tuple[int, int], ...], ...]] = field(
        default_factory=dict
    )


def _rules(feas: Feasibility, n: int) -> tuple[tuple[tuple[tuple[int, ...], frozenset[tuple[int, ...]]], ...], ...]:
    out: list[list[tuple[tuple[int, ...], frozenset[tuple[int, ...]]]]] = [[] for _ in range(n)]
    for ex in feas.exclusions:
        for a in ex.scope:
            out[a].append((ex.scope, ex.forbidden))
    return tuple(tuple(x) for x in out)


def _breaks(ctx: _Context, row: list[int], axes: Iterable[int]) -> bool:
    """Does ``row`` break an exclusion holding one of ``axes``?  Exact for a
    row that was valid before only the cells of ``axes`` changed: the only
    exclusions it can break are those (the incremental constraint check)."""
    rules = ctx.rules
    for a in axes:
        for scope, forbidden in rules[a]:
            if tuple([row[b] for b in scope]) in forbidden:
                return True
    return False


def _linked(feas: Feasibility, n: int) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = [()] * n
    for comp in feas.components:
        for a in comp:
            out[a] = tuple(b for b in comp if b != a)
    return tuple(out)


#: Work units of one repair: per exclusion looked at, per freed cell.
REPAIR_UNIT = 4
#: Work units of a repair found in the memo (the all-triple constrained search).
REPAIR_HIT = 8
#: The all-triple constrained search (:class:`_TripleState`): work units of
#: finding the rows one cell away from a triple (three ANDs of row bitsets),
#: and per scope of a written cell (its counters and up to nine bitsets).
TRIPLE_NEAR = 8
TRIPLE_SET = 6
#: ... and of looking at one candidate row (its differing cells, the tabu and
#: the incremental constraint check; scoring it is charged on top).
TRIPLE_CANDIDATE = 16
#: The all-triple constrained search: a changed cell stays tabu for the tenure
#: plus a draw from ``range(TRIPLE_SPREAD)`` moves.
TRIPLE_SPREAD = 4
#: ... in the second half of its budget (from this share on; before it, the fixed tenure).
TRIPLE_SPLIT = 0.5
#: The all-triple constrained search abandons an attempt (restarts from the
#: best array, dropping the next row) after this many moves without fewer
#: missing tuples: it makes some 12,000 moves in quick mode, where the
#: version-6 search made 1,500 and never reached its patience of 100,000.
TRIPLE_PATIENCE = 2_000


def _repaired(ctx: _Context, r: int, row: list[int], writes: dict[int, int]) -> tuple[list[tuple[int, int]] | None, int]:
    """The cell changes that write ``writes`` into ``row`` (row ``r``) and keep it
    valid: the other cells of the axes linked to the written ones by constraints
    are re-chosen, each keeping its current value when it can
    (:meth:`Feasibility.complete` with the row as preference), so a tuple that
    breaks an exclusion in this row can still be placed by changing the cells
    that forbid it (the repair moves of constrained local search, as CASA and
    TCA / FastCA do over the feasible space).  Cells of an include row's given
    values never change.  Returns (changes or None when impossible, work units)."""
    key = None
    if ctx.triples and r >= ctx.locked:
        comp = sorted({b for a in writes for b in ctx.linked[a]} | set(writes))
        key = (tuple(sorted(writes.items())), tuple([row[b] for b in comp]))
        if key in ctx.memo:
            hit = ctx.memo[key]
            return (None if hit is None else list(hit)), REPAIR_HIT
    partial: list[int | None] = list(row)
    for a, v in writes.items():
        partial[a] = v
    free = []
    for a in writes:
        for b in ctx.linked[a]:
            if b not in writes and partial[b] is not None and not (r < ctx.locked and ctx.fixed[r][b]):
                partial[b] = None
                free.append(b)
    cost = REPAIR_UNIT * len(ctx.feas.exclusions) * (1 + len(free))
    full = ctx.feas.complete(partial, prefer=row) if free and ctx.feas.completable(partial) else None
    out = None if full is None else [(a, full[a]) for a in range(len(row)) if full[a] != row[a]]
    if key is not None:
        ctx.memo[key] = None if out is None else tuple(out)
    return out, cost


#: The all-triple constrained search repairs a candidate row with the valid
#: assignment of the written axes' constraint component that changes the
#: fewest other cells (:func:`_repairs`; :func:`_repaired`'s greedy completion
#: keeps values in axis order, which may change more).  Scoring the best 4
#: such repairs instead of one was measured and lost (quick, three seeds: 662-663
#: rows over the t=3 set with 4, 660-662 with 1).
REPAIR_OPTIONS = 1
#: ... when the component has at most this many value combinations (else the
#: one repair of :func:`_repaired`).
REPAIR_PRODUCT = 4096


def _repairs(ctx: _Context, r: int, row: list[int], writes: dict[int, int]) -> tuple[list[list[tuple[int, int]]], int]:
    """Up to :data:`REPAIR_OPTIONS` ways to write ``writes`` into ``row`` and keep
    it valid, fewest changed cells first (ties in value order): the valid
    assignments of the one constraint component the written axes touch, found
    once per component and filtered per (writes, the row's cells there),
    memoised.  Falls back to :func:`_repaired` for include rows, writes over two
    components and components of more than :data:`REPAIR_PRODUCT` combinations.
    Returns (the change lists, work units)."""
    feas = ctx.feas
    comps = {feas.component_of[a] for a in writes if a in feas.component_of}
    c = next(iter(comps)) if len(comps) == 1 else -1
    comp = feas.components[c] if c >= 0 else ()
    size = 1
    for a in comp:
        size *= feas.sizes[a]
    if r < ctx.locked or c < 0 or size > REPAIR_PRODUCT or any(a not in comp for a in writes):
        one, cost = _repaired(ctx, r, row, writes)
        return ([] if one is None else [one]), cost
    here = tuple([row[a] for a in comp])
    key = (tuple(sorted(writes.items())), here)
    hit = ctx.options.get(key)
    if hit is not None:
        return [list(x) for x in hit], REPAIR_HIT
    cost = REPAIR_HIT
    valid = ctx.projections.get(c)
    if valid is None:
        scratch = list(row)
        valid = []
        for combo in itertools.product(*(range(feas.sizes[a]) for a in comp)):
            for a, v in zip(comp, combo):
                scratch[a] = v
            if not _breaks(ctx, scratch, comp):
                valid.append(combo)
        ctx.projections[c] = valid
        cost += REPAIR_UNIT * size * len(feas.exclusions)
    pos = [(comp.index(a), v) for a, v in sorted(writes.items())]
    ranked = []
    for combo in valid:
        if all(combo[i] == v for i, v in pos):
            ranked.append((sum(1 for x, y in zip(combo, here) if x != y), combo))
    cost += len(valid)
    ranked.sort()
    out = tuple(
        tuple((a, x) for a, x, y in zip(comp, combo, here) if x != y) for _, combo in ranked[:REPAIR_OPTIONS]
    )
    ctx.options[key] = out
    return [list(x) for x in out], cost


def _trial(ctx: _Context, state: _State, r: int, changes: list[tuple[int, int]]) -> tuple[int, int]:
    """(change of the missing count, work units) of writing ``changes`` into row
    ``r`` (:meth:`_State.delta_many`, read only)."""
    d, reads = state.delta_many(r, changes)
    return d, 4 * reads


def _repair(
    ctx: _Context, state: _State, rng: random.Random, work: int, budget: int, patience: int,
    tick: Callable[[int], None] | None = None,
) -> int:
    """Tabu moves until nothing is missing, ``patience`` moves bring no new
    best missing count, or ``budget`` is reached; returns the work counter.
    ``tick(work)`` every :data:`PROGRESS_MOVES` moves (progress only)."""
    stall = 0
    best_miss = len(state.missing)
    changed: dict[int, int] = {}
    step = 0
    pair_state = state if isinstance(state, _PairState) else None
    triple_state = state if isinstance(state, _TripleState) else None
    while state.missing and work < budget:
        step += 1
        if tick is not None and step % PROGRESS_MOVES == 0:
            tick(work)
        g = state.missing[rng.randrange(len(state.missing))]
        scope, vals = state.decode(g)
        moved: bool | None = None
        if pair_state is not None:
            spent, moved = _pair_move(ctx, pair_state, rng, scope, vals, changed, step)
            work += spent
        if triple_state is not None:
            spread = TRIPLE_SPREAD if work >= ctx.spread_from else 1
            spent, moved = _triple_move(ctx, triple_state, rng, scope, vals, changed, step, spread)
            work += spent
        elif moved is None:
            spent, moved = _generic_move(ctx, state, rng, scope, vals, changed, step)
            work += spent
        if not moved:
            continue
        missing_now = len(state.missing)
        if missing_now < best_miss:
            best_miss = missing_now
            stall = 0
        else:
            stall += 1
            if patience and stall >= patience:
                break
    return work


def _pair_move(
    ctx: _Context,
    state: _PairState,
    rng: random.Random,
    scope: tuple[int, ...],
    vals: tuple[int, ...],
    changed: dict[int, int],
    step: int,
) -> tuple[int, bool | None]:
    """One move for pair scopes: candidates from the holder bitsets, gains from
    the one/zero bitsets (see :class:`_PairState`).  Returns the work units
    spent and whether a cell changed; None when no row is one cell away (the
    generic move then runs)."""
    (a0, b0), (x0, y0) = scope, vals
    m = state.holders[a0][x0] ^ state.holders[b0][y0]
    if not m:
        return 0, None
    one, zero, rmask, rows_ = state.one, state.zero, state.rmask, state.rows
    locked, fixed, tenure = ctx.locked, ctx.fixed, ctx.tenure
    n_axes = len(ctx.req.sizes)
    constrained = ctx.req.constrained
    best_d = None
    best_r = best_c = -1
    best_fix: list[tuple[int, int]] | None = None
    ties = 0
    cnt = 0
    extra = 0
    while m:
        low = m & -m
        m ^= low
        r = low.bit_length() - 1
        cnt += 1
        row = rows_[r]
        if row[a0] == x0:
            c, v = b0, y0
        else:
            c, v = a0, x0
        if r < locked and fixed[r][c]:
            continue
        if tenure and step - changed.get(r * n_axes + c, -tenure) < tenure:
            continue
        fix = None
        if constrained:
            x = row[c]
            row[c] = v
            bad = _breaks(ctx, row, (c,))
            row[c] = x
            if bad:
                fix, spent = _repaired(ctx, r, row, {c: v})
                extra += spent
                if fix is None:
                    continue
                dd, spent = _trial(ctx, state, r, fix)
                extra += spent
        if fix is None:
            R = rmask[r]
            dd = (one[c][row[c]] & R).bit_count() - (zero[c][v] & R).bit_count()
        if best_d is None or dd < best_d:
            best_d, best_r, best_c, best_fix, ties = dd, r, c, fix, 1
        elif dd == best_d:
            ties += 1
            if rng.randrange(ties) == 0:
                best_r, best_c, best_fix = r, c, fix
    work = MOVE_OVERHEAD + cnt * (1 + ctx.eval_cost) + extra
    if best_d is None:
        return work, False
    if best_fix is not None:
        for a, v in best_fix:
            work += ctx.deg[a]
            state.set_cell(best_r, a, v)
        changed[best_r * n_axes + best_c] = step
        return work, True
    work += ctx.deg[best_c]
    state.set_cell(best_r, best_c, x0 if best_c == a0 else y0)
    changed[best_r * n_axes + best_c] = step
    return work, True


def _generic_move(
    ctx: _Context,
    state: _State,
    rng: random.Random,
    scope: tuple[int, ...],
    vals: tuple[int, ...],
    changed: dict[int, int],
    step: int,
) -> tuple[int, bool]:
    """One move for any scope: the rows one cell away (any row if none is),
    each candidate change evaluated on the counters.  Returns the work units
    and whether a cell changed."""
    rows_ = state.rows
    near = state.near(scope, vals)
    locked, fixed, tenure, sample = ctx.locked, ctx.fixed, ctx.tenure, ctx.sample
    n_axes = len(ctx.req.sizes)
    constrained = ctx.req.constrained
    deg = ctx.deg
    # A counter read costs about t times a pair one.
    work = MOVE_OVERHEAD + len(rows_) * len(scope)
    pool: list[int] | range = near if near else range(len(rows_))
    best_d = None
    best_r = -1
    best_fix: list[tuple[int, int]] | None = None
    ties = 0
    picks = pool if len(pool) <= sample else [pool[rng.randrange(len(pool))] for _ in range(sample)]
    for r in picks:
        row = rows_[r]
        diffs = [(a, v) for a, v in zip(scope, vals) if row[a] != v]
        if r < locked and any(fixed[r][a] for a, _ in diffs):
            continue
        if tenure and any(step - changed.get(r * n_axes + a, -tenure) < tenure for a, _ in diffs):
            continue
        bad = False
        if len(diffs) == 1:
            a, v = diffs[0]
            work += ctx.eval_cost if ctx.pairs else deg[a] * len(scope)
            d: int | None = state.delta(r, a, v)
            if constrained:
                x = row[a]
                row[a] = v
                bad = _breaks(ctx, row, (a,))
                row[a] = x
        elif constrained:
            d, reads = state.delta_many(r, diffs)
            work += 4 * reads
            old = [(a, row[a]) for a, _ in diffs]
            for a, v in diffs:
                row[a] = v
            bad = _breaks(ctx, row, [a for a, _ in diffs])
            for a, v in old:
                row[a] = v
        else:
            before = len(state.missing)
            old = [(a, row[a]) for a, _ in diffs]
            for a, v in diffs:
                work += 2 * deg[a] * len(scope)
                state.set_cell(r, a, v)
            d = len(state.missing) - before
            bad = False
            for a, v in old:
                state.set_cell(r, a, v)
        fix = None
        if bad:
            fix, spent = _repaired(ctx, r, row, dict(diffs))
            work += spent
            if fix is None:
                continue
            d, spent = _trial(ctx, state, r, fix)
            work += spent * len(scope)
        if d is None:
            continue
        if best_d is None or d < best_d:
            best_d, best_r, best_fix, ties = d, r, fix, 1
        elif d == best_d:
            ties += 1
            if rng.randrange(ties) == 0:
                best_r, best_fix = r, fix
    if best_d is None:
        return work, False
    row = rows_[best_r]
    if best_fix is not None:
        for a, v in best_fix:
            work += deg[a]
            state.set_cell(best_r, a, v)
        for a, v in zip(scope, vals):
            changed[best_r * n_axes + a] = step
        return work, True
    for a, v in zip(scope, vals):
        if row[a] != v:
            work += deg[a]
            state.set_cell(best_r, a, v)
            changed[best_r * n_axes + a] = step
    return work, True


def _triple_move(
    ctx: _Context,
    state: _TripleState,
    rng: random.Random,
    scope: tuple[int, ...],
    vals: tuple[int, ...],
    changed: dict[int, int],
    step: int,
    spread: int,
) -> tuple[int, bool]:
    """One move of the all-triple constrained search (:class:`_TripleState`).

    As TCA's tabu step (Lin et al., ASE 2015): the rows one cell away from the
    missing triple are scored first, with the linked cells repaired
    (:func:`_repairs`) where the one-cell change breaks a rule; only when none
    is left (none one cell away, all tabu or none repairable) are the other
    rows tried, each with the triple written (and repaired where needed).  Each written cell
    stays tabu for ``tenure`` moves plus a draw from ``range(spread)``, and so
    does every cell a repair changed (else a repaired cell could flip back at
    once).
    Returns the work units and whether a cell changed."""
    rows_ = state.rows
    locked, fixed, tenure = ctx.locked, ctx.fixed, ctx.tenure
    n_axes = len(ctx.req.sizes)
    deg = ctx.deg
    work = MOVE_OVERHEAD + TRIPLE_NEAR
    best_d: int | None = None
    best_r = -1
    best_fix: list[tuple[int, int]] | None = None
    ties = 0
    near = state.near(scope, vals)
    for pool in (near, None):
        if pool is None:
            if best_d is not None:
                break
            pool = [r for r in range(len(rows_)) if r not in set(near)] if near else list(range(len(rows_)))
        for r in pool:
            row = rows_[r]
            diffs = [(a, v) for a, v in zip(scope, vals) if row[a] != v]
            work += TRIPLE_CANDIDATE
            if r < locked and any(fixed[r][a] for a, _ in diffs):
                continue
            if tenure and any(step - changed.get(r * n_axes + a, -tenure) < tenure for a, _ in diffs):
                continue
            old = [(a, row[a]) for a, _ in diffs]
            for a, v in diffs:
                row[a] = v
            bad = _breaks(ctx, row, [a for a, _ in diffs])
            for a, v in old:
                row[a] = v
            fix = None
            if bad:
                options, spent = _repairs(ctx, r, row, dict(diffs))
                work += spent
                for fix in options:
                    d, spent = _trial(ctx, state, r, fix)
                    work += spent
                    if best_d is None or d < best_d:
                        best_d, best_r, best_fix, ties = d, r, fix, 1
                    elif d == best_d:
                        ties += 1
                        if rng.randrange(ties) == 0:
                            best_r, best_fix = r, fix
                continue
            elif len(diffs) == 1:
                a, v = diffs[0]
                work += state.eval_cost
                d = state.delta(r, a, v)
            else:
                d, spent = _trial(ctx, state, r, diffs)
                work += spent
            if best_d is None or d < best_d:
                best_d, best_r, best_fix, ties = d, r, fix, 1
            elif d == best_d:
                ties += 1
                if rng.randrange(ties) == 0:
                    best_r, best_fix = r, fix
    if best_d is None:
        return work, False
    row = rows_[best_r]
    # A drawn tenure (a fixed one let a 4-move cycle through two rows run for
    # good: vLLM marlin t=3 stayed one triple short of 55 rows for 20,000 moves).
    mark = step + rng.randrange(spread) if spread > 1 else step
    changes = best_fix if best_fix is not None else [(a, v) for a, v in zip(scope, vals) if row[a] != v]
    for a, v in changes:
        work += TRIPLE_SET * deg[a]
        state.set_cell(best_r, a, v)
    for a in sorted({a for a, _ in changes} | set(scope)):
        changed[best_r * n_axes + a] = mark
    return work, True
