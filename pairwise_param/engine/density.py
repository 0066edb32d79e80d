"""One-row-at-a-time density greedy (AETG / deterministic density style), t=2.

Each new row is built cell by cell.  A value scores the pairs it would newly
cover with the cells already fixed, plus the *expected* pairs with each still
free axis (uncovered partners on that axis divided by its size): the density
look-ahead that makes rows dense early.  Several candidate rows per step (each
started from a different heavily-uncovered (axis, value) and with a seeded
shuffle of the remaining axis order) are built and the one covering most new
pairs is kept.

Coverage is kept as bitsets: ``U[a][v]`` has bit ``off[b] + y`` set while the
pair ``(a=v, b=y)`` is required and uncovered, so every score is a couple of
``&`` and ``bit_count`` on small ints.

Only pair interactions are handled here (mixed strength with larger scopes
goes to IPOG).  The random generator is local and seeded, so the rows are a
pure function of the model.
"""

from __future__ import annotations

import random

from pairwise_param.engine.requirements import Requirements
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import IndexModel

__all__ = ["applicable", "density"]


def applicable(req: Requirements) -> bool:
    """True when every scope is a pair (the density bookkeeping is pairwise)."""
    return bool(req.scopes) and all(len(s) == 2 for s in req.scopes)


def density(
    model: IndexModel,
    req: Requirements,
    feas: Feasibility,
    candidates: int = 4,
    limit: int | None = None,
) -> list[tuple[int, ...]] | None:
    """Rows (include rows first) covering every coverable pair, or None when
    more than ``limit`` rows would be needed (the caller already has better)."""
    sizes = req.sizes
    n = len(sizes)
    off = req.offsets
    axis_mask = [((1 << sizes[a]) - 1) << off[a] for a in range(n)]
    U = [[0] * sizes[a] for a in range(n)]
    for si, (a, b) in enumerate(req.scopes):
        for v in range(sizes[a]):
            U[a][v] |= axis_mask[b]
        for y in range(sizes[b]):
            U[b][y] |= axis_mask[a]
        for index in req.blocked[si]:
            v, y = req.combo(si, index)
            U[a][v] &= ~(1 << (off[b] + y))
            U[b][y] &= ~(1 << (off[a] + v))
    constrained = req.constrained
    distinct_sizes = sorted(set(sizes))
    rng = random.Random(0x5EED)
    rows: list[tuple[int, ...]] = []

    def cover_row(row: list[int]) -> int:
        R = 0
        for a in range(n):
            R |= 1 << (off[a] + row[a])
        gained = 0
        for a in range(n):
            u = U[a][row[a]]
            gained += (u & R).bit_count()
            U[a][row[a]] = u & ~R
        return gained // 2

    for inc in model.include:
        full = feas.complete(inc)  # identity on full rows; completes partial ones
        assert full is not None
        cover_row(list(full))
        rows.append(tuple(full))

    def build(first: tuple[int, int] | None, order_seed: int, base_order: list[int]) -> list[int] | None:
        row: list[int | None] = [None] * n
        fixed = 0
        free = {s: 0 for s in distinct_sizes}
        for b in range(n):
            free[sizes[b]] |= axis_mask[b]
        order = list(base_order)
        if order_seed:
            r2 = random.Random(order_seed)
            # Perturb the order a little: swap neighbours with probability 1/2.
            for i in range(n - 1):
                if r2.random() < 0.5:
                    order[i], order[i + 1] = order[i + 1], order[i]
        if first is not None:
            a0 = first[0]
            order.remove(a0)
            order.insert(0, a0)
        for a in order:
            free[sizes[a]] &= ~axis_mask[a]
            best_v = -1
            best = -1.0
            if first is not None and a == first[0]:
                cands = [first[1]]
            else:
                cands = list(range(sizes[a]))
            for v in cands:
                u = U[a][v]
                score = float((u & fixed).bit_count())
                if u:
                    for s in distinct_sizes:
                        f = free[s]
                        if f:
                            score += (u & f).bit_count() / s
                if score > best:
                    if constrained:
                        row[a] = v
                        if feas.violates(row) is not None or not feas.completable(row):
                            row[a] = None
                            continue
                    best, best_v = score, v
            if best_v < 0:
                return None
            row[a] = best_v
            fixed |= 1 << (off[a] + best_v)
        return row  # type: ignore[return-value]

    def gain(row: list[int]) -> int:
        R = 0
        for a in range(n):
            R |= 1 << (off[a] + row[a])
        return sum((U[a][row[a]] & R).bit_count() for a in range(n)) // 2

    while True:
        heads = []
        for a in range(n):
            for v in range(sizes[a]):
                c = U[a][v].bit_count()
                if c:
                    heads.append((-c, a, v))
        if not heads:
            break
        if limit is not None and len(rows) >= limit:
            return None
        heads.sort()
        load = [0] * n
        for c, a, _ in heads:
            load[a] -= c
        base_order = sorted(range(n), key=lambda a: (-load[a], a))
        best_row = None
        best_gain = 0
        for k in range(candidates):
            _, a0, v0 = heads[k % len(heads)]
            row = build((a0, v0), rng.randrange(1 << 30) if k else 0, base_order)
            if row is None:
                continue
            g = gain(row)
            if g > best_gain:
                best_gain, best_row = g, row
        if best_row is None:
            # Safety net (constraints): seed with an uncovered pair, complete validly.
            _, a0, v0 = heads[0]
            u = U[a0][v0]
            p = (u & -u).bit_length() - 1
            b0 = max(b for b in range(n) if off[b] <= p)
            seed: list[int | None] = [None] * n
            seed[a0] = v0
            seed[b0] = p - off[b0]
            best_row = feas.complete(seed)
            assert best_row is not None
        cover_row(best_row)
        rows.append(tuple(best_row))
    return rows
