"""Planned runs of a rotation cycle: the (t+1)-scope of the most tuples split into
Latin layers, one layer a run (:func:`plan`), the other axes filled until the run
covers every t-tuple.  Used by :mod:`pairwise_param.tables.rotate` (step 0).
"""

from __future__ import annotations

import itertools
import math
import random

from pairwise_param.tables.rotate_search import Search

__all__ = ["PLAN_LAYERS", "plan"]


#: a planned cycle is made only for a scope that needs at least this many runs
PLAN_LAYERS = 4


def plan(search: Search, rng: random.Random, limit: int) -> list[list[int]] | None:
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


def _complete(search: Search, rng: random.Random, cells: list[int | None]) -> list[int] | None:
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


def _uncovered_hard(search: Search) -> list[tuple[int, int]]:
    needed = search.needed
    search.scanned += sum(len(c) for c in search.hard.counts)
    return [(si, c) for si, cs in enumerate(search.hard.counts) for c, n in enumerate(cs) if not n and needed[si][c]]


def _hard_delta(search: Search, r: int, a: int, value: int) -> int | None:
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


def _fill(search: Search, rng: random.Random, locked: set[tuple[int, int]], steps: int) -> bool:
    """Write uncovered t-tuples into rows whose locked cells agree (kept when no
    t-tuple is lost on balance) until every t-tuple is covered or the steps run out."""
    n_rows = len(search.rows)
    missing = _uncovered_hard(search)
    for step in range(steps):
        if search.over:
            break
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


def _cover_row(search: Search, rng: random.Random) -> list[int] | None:
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
