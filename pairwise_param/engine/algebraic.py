"""Algebraic constructions that are optimal (or nearly) where they apply.

* Bush orthogonal arrays OA(q^t, q+1, q, t) for a prime power q: one row per
  polynomial f of degree < t over GF(q); column x in GF(q) holds f(x), the
  last column the leading coefficient.  Any t columns are linearly independent
  functionals of the coefficients (Vandermonde), so every t-tuple appears
  exactly once: q^t rows, the lower bound.  For even q and t = 3 a further
  column (the coefficient of x) is added: the conic plus its nucleus is a
  hyperoval, so any 3 of the q+2 functionals are still independent (4^6 at
  t=3 -> 64 rows).
* The binary strength-2 construction: N rows, each column a distinct
  length-N binary vector with first bit 0 and weight ceil(N/2).  Row 0 gives
  (0,0); two distinct equal-weight columns differ both ways, giving (0,1) and
  (1,0); two weight-ceil(N/2) subsets of N-1 positions intersect, giving
  (1,1).  So C(N-1, ceil(N/2)) columns fit in N rows (2^100 -> 10).

Mixed sizes: an axis with fewer values than q is folded onto its own values
(value x -> x mod size), which keeps every combination present.  A one-value
axis is left out of the construction and re-inserted as its constant: every
t-tuple through it is a (t-1)-tuple of the others, which a strength-t array of
at least t other axes covers already (counting it cost the binary
construction a row: ``f16 x 2^3`` gave 5 rows, not 4).  Only
unconstrained models without include rows use these; the caller verifies the
result before trusting it (a cheap check that guards against mistakes here).
"""

from __future__ import annotations

import itertools
from math import comb

from pairwise_param.engine.gf import field, prime_power

__all__ = ["MAX_ROWS", "algebraic", "binary_pairwise", "binary_rows_needed", "bush", "fold"]

#: Do not build arrays larger than this many rows (the greedy will do better).
MAX_ROWS = 20_000


def bush(q: int, t: int, k: int) -> list[tuple[int, ...]] | None:
    """OA(q^t, k, q, t) rows, for k <= q+1 (q+2 when q is even and t == 3)."""
    if prime_power(q) is None or t < 1:
        return None
    extra = q % 2 == 0 and t == 3
    if k > q + 1 + (1 if extra else 0) or q**t > MAX_ROWS:
        return None
    add, mul = field(q)
    # power[x][j] = x^j
    power = []
    for x in range(q):
        ps = [1]
        for _ in range(t - 1):
            ps.append(mul[ps[-1]][x])
        power.append(ps)
    rows = []
    # only the columns kept are evaluated (2 axes over 120 values: 2 of q = 121 columns)
    evaluated = power[:k]
    for coeffs in itertools.product(range(q), repeat=t):  # coeffs[j] of x^j
        row = []
        for px_all in evaluated:
            acc = 0
            for c, px in zip(coeffs, px_all):
                acc = add[acc][mul[c][px]]
            row.append(acc)
        if k > q:
            row.append(coeffs[t - 1])
            if extra:
                row.append(coeffs[1])
        rows.append(tuple(row[:k]))
    return rows


def binary_rows_needed(k: int) -> int:
    """Fewest rows of the binary construction holding ``k`` columns."""
    n = 2
    while comb(n - 1, (n + 1) // 2) < k:
        n += 1
    return n


def binary_pairwise(k: int) -> list[tuple[int, ...]]:
    """Strength-2 covering array of ``k`` binary columns (k >= 2)."""
    n = binary_rows_needed(k)
    w = (n + 1) // 2
    cols = []
    for ones in itertools.combinations(range(1, n), w):
        cols.append(set(ones))
        if len(cols) == k:
            break
    return [tuple(1 if r in c else 0 for c in cols) for r in range(n)]


def fold(rows: list[tuple[int, ...]], sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    folded = [tuple(x % s for x, s in zip(row, sizes)) for row in rows]
    # Folding can repeat rows; keep the first occurrence only.
    seen: set[tuple[int, ...]] = set()
    out = []
    for r in folded:
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out


def _widen(row: tuple[int, ...], live: list[int], k: int) -> tuple[int, ...]:
    """``row`` over the ``live`` axes, with value 0 on the one-value axes."""
    out = [0] * k
    for i, x in zip(live, row):
        out[i] = x
    return tuple(out)


def algebraic(
    sizes: tuple[int, ...], strength: int, uniform_strength: bool, limit: int = MAX_ROWS
) -> tuple[list[tuple[int, ...]], str] | None:
    """The smallest applicable construction for ``sizes`` at ``strength``
    with at most ``limit`` rows (larger ones are not even built).

    ``uniform_strength`` must be true (every t-subset is a scope): the
    constructions cover all t-subsets and nothing of higher strength.
    """
    if not uniform_strength or strength < 1:
        return None
    live = [i for i, s in enumerate(sizes) if s > 1]
    if len(live) < len(sizes):
        if len(live) < strength:
            return None  # the product of the live axes: the greedy builds it
        inner = algebraic(tuple(sizes[i] for i in live), strength, uniform_strength, limit)
        if inner is None:
            return None
        return [_widen(row, live, len(sizes)) for row in inner[0]], inner[1]
    k = len(sizes)
    if k < strength:
        return None
    best: tuple[list[tuple[int, ...]], str] | None = None
    vmax = max(sizes)
    if strength == 2 and vmax <= 2 and k >= 2:
        # Optimal for binary axes (Kleitman-Spencer / Katona): nothing beats it.
        return fold(binary_pairwise(k), sizes), "binary"
    q = max(vmax, 2)
    while q**strength <= min(limit, MAX_ROWS):
        if prime_power(q) is not None:
            cap = q + 1 + (1 if q % 2 == 0 and strength == 3 else 0)
            if k <= cap and strength <= q + 1:
                if best is None or q**strength < len(best[0]):
                    rows = bush(q, strength, k)
                    if rows is not None:
                        best = (fold(rows, sizes), f"orthogonal-array(q={q})")
                break
        q += 1
    return best
