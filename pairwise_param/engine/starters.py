"""Cover starters: strength-2 covering arrays developed from one vector.

A *cover starter* (K. Meagher and B. Stevens, "Group construction of
covering arrays", J. Combin. Des. 13 (2005) 70-77; with fixed points:
J. R. Lobb, C. J. Colbourn, P. Danziger, B. Stevens and J. Torres-Jimenez,
"Cover starters for covering arrays of strength two", Discrete Math. 312
(2012) 943-956) is a vector ``s`` of length ``k`` over the ``v`` symbols
``Z_g`` (``g = v - f``) plus ``f`` fixed symbols ``g .. v-1``.  The array has
the rows

    ``row(h, i)[c] = s[(c - i) mod k] + h``   (``h`` in ``Z_g``, ``i`` in ``Z_k``;
    a fixed symbol stays fixed under ``+ h``)

followed by a strength-2 array over the ``f`` fixed symbols alone (one
constant row when ``f = 1``; the binary construction of :mod:`.algebraic`
when ``f = 2``; for ``f = 3`` the caller's own array of ``3^k``, the
pipeline's quick answer): ``g * k + CAN(2, k, f)`` rows.  Columns ``c`` and
``c + d`` see, over the shifts ``i``, the pairs ``(s[j], s[j + d])`` for every
``j``; adding ``h`` runs each through its orbit under ``Z_g``.  So the
array covers every pair when, for every ``d`` in ``1 .. k-1``,

* the pairs of two finite symbols show every difference ``b - a`` in ``Z_g``
  (the orbit of ``(a, b)`` is the set of pairs of that difference),
* each fixed symbol ``x`` shows up as ``(x, finite)`` and as
  ``(finite, x)`` (orbits ``{x} x Z_g`` and ``Z_g x {x}``),

and the pairs of two fixed symbols come from the fixed part.  Such a
vector is a cover starter; :func:`is_starter` checks the conditions and
:func:`find_starter` searches for one (a deterministic local search over
the vector with a seeded generator: the same vector in every process).
Counting the pairs gives ``k >= v + 1`` for ``f = 1``; a fixed symbol that
occurs once meets every other fixed symbol at some ``d``, so for ``f >= 2``
each fixed symbol occurs (at least) twice.

Examples (issue 23's set): 7^10 in 6 * 10 + 1 = 61 rows (the best known),
6^10 in 5 * 10 + 1 = 51, 5^10 in 3 * 10 + 6 = 36 (f = 2, the best known),
10^20 in 7 * 20 + 17 = 157 (f = 3, the 17 rows of the engine's 3^20; Lobb
et al. reach 155 with a 15-row 3^20).  The search runs with a small budget
in the engine (:data:`SEARCH_MOVES`); starters that need a longer search
are kept in :data:`FOUND`, each found by this module's own
:func:`find_starter` with the budget noted there and checked again
(:func:`is_starter`) before use.  The pipeline checks every array built
from a starter before it can win.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import cache

from pairwise_param.engine.algebraic import binary_pairwise, binary_rows_needed

__all__ = ["FOUND", "cover_starter", "find_starter", "is_starter", "smallest_size", "starter_rows", "starter_size"]

#: Largest fixed-symbol count tried (f = 3 asks the caller for its 3^k array).
MAX_FIXED = 3
#: Search budget of one starter in the engine: local-search moves over all restarts
#: (a search that finds nothing costs about 0.1 s).
SEARCH_MOVES = 24_000
#: Moves of one restart.
RESTART_MOVES = 12_000
#: Search budget for fewer than 10 columns (a tiny model's engine time stays under
#: 50 ms): every starter of fewer than 14 columns met in the measurements was found
#: within 4,000 moves (10 columns, v = 7: 2,000-4,000).
SMALL_MOVES = 4_000
#: Random placements of the fixed symbols tried per restart (f >= 2).
PLACEMENTS = 300
#: Temperature of the local search (a move that loses ``x`` is taken with probability e^(-x/T)).
TEMPERATURE = 0.7


#: (k, v, f) -> a starter the engine's budget does not find, each found by
#: ``find_starter(k, v, f, moves=4_000_000, restart=400_000)`` (7 s of CPU).
FOUND: dict[tuple[int, int, int], tuple[int, ...]] = {
    (20, 10, 3): (0, 1, 1, 0, 5, 3, 3, 6, 8, 5, 0, 7, 9, 6, 3, 6, 7, 1, 9, 8),
}

Rows = list[tuple[int, ...]]


def min_length(v: int, f: int) -> int:
    """Shortest starter searched for: the counting bound ``v + f`` plus a
    margin below which the search found none even with ten times its budget
    (f = 1: k = v + 2 for v = 6 .. 10; f = 2: k = v + 3 for v = 6 .. 10), so a
    search there would only cost time (about 0.1 s each in quick mode).  The
    f = 3 margin is not measured that way: its fixed symbols take six cells,
    so it is set above f = 2's (the one f = 3 starter in use, 10^20, has
    k = v + 10)."""
    if f == 1:
        return v + 2 if v <= 5 else v + 3
    return v + f + (2 if f == 2 else 4)


def _fixed_rows_needed(k: int, f: int) -> int:
    """Rows of the fixed part (f = 3: a lower bound, f * f)."""
    return 1 if f == 1 else binary_rows_needed(k) if f == 2 else f * f


def starter_size(k: int, v: int, f: int) -> int:
    """Rows of the cover-starter array for ``k`` columns, ``v`` symbols, ``f``
    fixed (f = 3: at least this many, the fixed part is the caller's)."""
    return (v - f) * k + _fixed_rows_needed(k, f)


def _fixed_counts(v: int) -> range:
    """The fixed-symbol counts tried: at least two symbols stay finite."""
    return range(1, min(MAX_FIXED, v - 2) + 1)


def smallest_size(k: int, v: int) -> int:
    """A lower bound on the rows of any cover-starter array :func:`cover_starter` tries."""
    return min((starter_size(k, v, f) for f in _fixed_counts(v)), default=1 << 62)


def is_starter(s: tuple[int, ...], v: int, f: int) -> bool:
    """Whether ``s`` (symbols 0 .. v-1, the last ``f`` fixed) is a cover starter."""
    k, g = len(s), v - f
    for d in range(1, k):
        diffs: set[int] = set()
        first: set[int] = set()
        second: set[int] = set()
        for j in range(k):
            a, b = s[j], s[(j + d) % k]
            if a < g and b < g:
                diffs.add((b - a) % g)
            elif a >= g and b < g:
                first.add(a)
            elif a < g and b >= g:
                second.add(b)
        if len(diffs) < g or len(first) < f or len(second) < f:
            return False
    return True


def _placement_ok(k: int, groups: list[list[int]]) -> bool:
    """Each fixed symbol meets a finite cell at every distance, both ways."""
    taken = {p for group in groups for p in group}
    for group in groups:
        for d in range(1, k):
            if all((p + d) % k in taken for p in group) or all((p - d) % k in taken for p in group):
                return False
    return True


def _placement(k: int, f: int, rnd: random.Random) -> dict[int, int]:
    """Cells of the fixed symbols: position -> symbol offset (0 .. f-1).

    ``f = 1``: one cell.  Otherwise each symbol twice, at the sampled cells
    that leave the most finite pairs at the worst distance."""
    if f == 1:
        return {0: 0}
    best: tuple[tuple[int, int], list[list[int]]] | None = None
    for _ in range(PLACEMENTS):
        cells = rnd.sample(range(k), 2 * f)
        groups = [cells[2 * a : 2 * a + 2] for a in range(f)]
        if not _placement_ok(k, groups):
            continue
        taken = set(cells)
        inner = [sum(1 for p in taken if (p + d) % k in taken) for d in range(1, k)]
        low = min(inner)
        score = (low, -sum(1 for x in inner if x == low))
        if best is None or score > best[0]:
            best = (score, groups)
    if best is None:
        return {}
    return {p: a for a, group in enumerate(best[1]) for p in group}


def _finite_search(k: int, g: int, fixed: dict[int, int], rnd: random.Random, moves: int) -> list[int] | None:
    """Finite symbols for the cells outside ``fixed`` so that every distance
    shows every difference (simulated annealing on the count of missing
    (distance, difference) pairs; incremental counts)."""
    free = [p for p in range(k) if p not in fixed]
    s = [-1] * k  # -1: a fixed cell (never read below)
    for p in free:
        s[p] = rnd.randrange(g)
    cnt = [[0] * g for _ in range(k)]
    for d in range(1, k):
        for j in free:
            if (j + d) % k not in fixed:
                cnt[d][(s[(j + d) % k] - s[j]) % g] += 1
    cost = sum(1 for d in range(1, k) for x in cnt[d] if x == 0)
    # a move at p changes the pairs (j, p) at distance p - j and (p, j) at distance j - p
    others = {p: [(j, (p - j) % k, (j - p) % k) for j in free if j != p] for p in free}
    randrange, uniform, exp = rnd.randrange, rnd.random, math.exp
    nfree = len(free)
    for _ in range(moves):
        if cost == 0:
            break
        p = free[randrange(nfree)]
        old = s[p]
        new = (old + 1 + randrange(g - 1)) % g
        delta = 0
        for j, d1, d2 in others[p]:
            x = s[j]
            c = cnt[d1]
            o, n = (old - x) % g, (new - x) % g
            c[o] -= 1
            if c[o] == 0:
                delta += 1
            if c[n] == 0:
                delta -= 1
            c[n] += 1
            c = cnt[d2]
            o, n = (x - old) % g, (x - new) % g
            c[o] -= 1
            if c[o] == 0:
                delta += 1
            if c[n] == 0:
                delta -= 1
            c[n] += 1
        if delta <= 0 or uniform() < exp(-delta / TEMPERATURE):
            s[p] = new
            cost += delta
        else:
            for j, d1, d2 in others[p]:
                x = s[j]
                c = cnt[d1]
                c[(new - x) % g] -= 1
                c[(old - x) % g] += 1
                c = cnt[d2]
                c[(x - new) % g] -= 1
                c[(x - old) % g] += 1
    if cost:
        return None
    return [max(x, 0) for x in s]


@cache
def find_starter(k: int, v: int, f: int, moves: int = 0, restart: int = RESTART_MOVES) -> tuple[int, ...] | None:
    """A cover starter of length ``k`` over ``v`` symbols with ``f`` fixed, or
    None when the search (``moves`` local-search moves in all; 0: the engine's
    budget, :data:`SEARCH_MOVES` or :data:`SMALL_MOVES` below 10 columns) finds none."""
    if moves <= 0:
        moves = SMALL_MOVES if k < 10 else SEARCH_MOVES
    g = v - f
    known = FOUND.get((k, v, f))
    if known is not None and is_starter(known, v, f):
        return known
    if g < 2 or f < 1 or k < min_length(v, f):
        return None
    rnd = random.Random(f"starter:{k}:{v}:{f}")
    spent = 0
    while spent < moves:
        fixed = _placement(k, f, rnd)
        if not fixed:
            return None
        chunk = min(restart, moves - spent)
        spent += chunk
        finite = _finite_search(k, g, fixed, rnd, chunk)
        if finite is None:
            continue
        s = tuple(g + fixed[p] if p in fixed else finite[p] for p in range(k))
        if is_starter(s, v, f):
            return s
    return None


def starter_rows(s: tuple[int, ...], v: int, f: int, fixed: Rows | None = None) -> Rows:
    """The rows developed from the starter ``s`` plus the fixed part
    (``fixed``: a strength-2 array of ``len(s)`` columns over ``0 .. f-1``;
    default the one of f = 1 or 2)."""
    k, g = len(s), v - f
    rows = []
    for h in range(g):
        moved = [x if x >= g else (x + h) % g for x in s]
        for i in range(k):
            rows.append(tuple(moved[(c - i) % k] for c in range(k)))
    if fixed is None:
        fixed = [tuple([0] * k)] if f == 1 else binary_pairwise(k)
    rows += [tuple(g + x for x in row) for row in fixed]
    return rows


def cover_starter(
    k: int, v: int, below: int, fixed_part: Callable[[int, int], Rows] | None = None
) -> tuple[Rows, str] | None:
    """The smallest cover-starter array for ``k`` columns over ``v`` symbols
    with fewer than ``below`` rows, or None (no size fits or no starter found).
    ``fixed_part(k, f)`` gives the strength-2 array of f^k for f = 3 (not
    tried without it)."""
    if v < 3:
        return None
    best: tuple[Rows, str] | None = None
    for f in sorted(_fixed_counts(v), key=lambda f: (starter_size(k, v, f), f)):
        if starter_size(k, v, f) >= below or (f == 3 and fixed_part is None):
            continue
        s = find_starter(k, v, f)
        if s is None:
            continue
        fixed = fixed_part(k, f) if f == 3 and fixed_part is not None else None
        rows = starter_rows(s, v, f, fixed)
        if len(rows) < below:
            best, below = (rows, f"cover-starter(f={f})"), len(rows)
    return best
