"""The engine's own last check of a candidate array.

Used before trusting a construction whose correctness rests on algebra or on
a code path that may have a bug: a candidate that misses a coverable tuple or
breaks an exclusion is discarded, never returned.  (The separate
:mod:`pairwise_param.coverage` module checks the engine from outside; this
one only protects the engine's choice.)

Pair scopes, the bulk of every large model, are checked with bitsets: bit
``off[b] + y`` of ``seen[a][x]`` is set when some row holds ``x`` at axis
``a`` and ``y`` at axis ``b``, built with one OR of a whole-row mask per
(row, axis), so the cost is rows x axes big-int operations instead of one
Python step per (row, pair scope).  Larger scopes use a set of tuple codes
per scope.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pairwise_param.engine.requirements import Requirements
from pairwise_param.feasibility import Feasibility

__all__ = ["uncovered", "valid"]


def valid(req: Requirements, feas: Feasibility, rows: Sequence[Sequence[int]]) -> bool:
    """True when ``rows`` are full, in range, break no exclusion and cover
    every coverable tuple."""
    sizes = req.sizes
    n = len(sizes)
    for row in rows:
        if len(row) != n or any(not 0 <= x < s for x, s in zip(row, sizes)):
            return False
        if req.constrained and feas.violates(row) is not None:
            return False
    return _pairs_covered(req, rows) and _others_covered(req, rows)


def _pairs_covered(req: Requirements, rows: Sequence[Sequence[int]]) -> bool:
    sizes = req.sizes
    n = len(sizes)
    off = req.offsets
    axis_bits = [((1 << s) - 1) << o for s, o in zip(sizes, off)]
    # need[a]: bits of the axes paired with a (per value, blocked pairs removed below)
    need_axes = [0] * n
    blocked_bits: dict[tuple[int, int], int] = {}
    any_pair = False
    for si, scope in enumerate(req.scopes):
        if len(scope) != 2:
            continue
        any_pair = True
        a, b = scope
        need_axes[a] |= axis_bits[b]
        need_axes[b] |= axis_bits[a]
        for index in req.blocked[si]:
            x, y = req.combo(si, index)
            blocked_bits[(a, x)] = blocked_bits.get((a, x), 0) | 1 << (off[b] + y)
            blocked_bits[(b, y)] = blocked_bits.get((b, y), 0) | 1 << (off[a] + x)
    if not any_pair:
        return True
    seen = [[0] * s for s in sizes]
    for row in rows:
        mask = 0
        for a in range(n):
            mask |= 1 << (off[a] + row[a])
        for a in range(n):
            seen[a][row[a]] |= mask
    for a in range(n):
        need = need_axes[a]
        if not need:
            continue
        for x in range(sizes[a]):
            want = need & ~blocked_bits.get((a, x), 0)
            if seen[a][x] & want != want:
                return False
    return True


def _others_covered(req: Requirements, rows: Sequence[Sequence[int]]) -> bool:
    """Scopes of three or more axes: every combination :func:`uncovered` finds
    must be a blocked one."""
    big = [si for si, scope in enumerate(req.scopes) if len(scope) > 2]
    for si, missing in zip(big, uncovered(req.sizes, [req.scopes[si] for si in big], rows)):
        if missing and (not req.blocked[si] or not set(missing) <= set(req.blocked[si])):
            return False
    return True


def uncovered(
    sizes: Sequence[int], scopes: Sequence[tuple[int, ...]], rows: Sequence[Sequence[int]]
) -> Iterator[list[int]]:
    """For each scope (sorted axes), the codes of the value combinations no row
    holds (mixed radix, first axis most significant, as in
    :func:`.requirements.scope_weights`).

    By row bitsets: ``col[a][x]`` has bit ``r`` set when row ``r`` holds ``x``
    at axis ``a``, so a combination is covered iff the AND of its cells'
    bitsets is non-zero.  The ANDs of a scope's prefix are kept on a stack and
    shared by the next scopes (sorted scopes ``(0, 1, 2)``, ``(0, 1, 3)`` ...
    reuse the masks of ``(0, 1)``): one big-int AND per combination instead of
    one Python step per (row, scope) (3^60 at t=3: 4.6 M generator steps
    before).  Also the table cache's check of a stored table."""
    col = [[0] * s for s in sizes]
    for r, row in enumerate(rows):
        bit = 1 << r
        for a, x in enumerate(row):
            col[a][x] |= bit
    # stack[i]: (axis, masks of every value combination of the scope prefix up to i)
    stack: list[tuple[int, list[int]]] = []
    for scope in scopes:
        keep = 0
        while keep < len(stack) and keep < len(scope) - 1 and stack[keep][0] == scope[keep]:
            keep += 1
        del stack[keep:]
        masks = stack[-1][1] if stack else [-1]
        for a in scope[keep:-1]:
            cols = col[a]
            masks = [m & c for m in masks for c in cols]
            stack.append((a, masks))
        last = col[scope[-1]] if scope else [-1]
        if all(m & c for m in masks for c in last):
            yield []
        else:
            yield [i for i, hit in enumerate(m & c for m in masks for c in last) if not hit]
