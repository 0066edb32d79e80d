"""Direct and recursive constructions: binary strength 3 and 4, strength-2 products.

* Paley / quadratic-residue arrays.  For a prime p = 3 (mod 4), row i of the
  p x p circulant has a 1 in column j when ``j - i`` is 0 or a quadratic
  residue mod p; with one all-zero row added this is the Plackett-Burman
  design of p+1 runs (the core of a Paley Hadamard matrix).  For some p
  (11, 19, ... : those of "projectivity 3") every 3 columns hold all 8
  patterns: CA(p+1; 3, p, 2), e.g. 12 rows for 11 columns (optimal).  Which
  p qualify is checked here by computer (:func:`_covers`), not assumed.
* Fold-over: the same p+1 rows, an all-one column added, and their
  complements: 2(p+1) rows, p+1 columns.  For p = 11 every 4 columns hold all
  16 patterns: CA(24; 4, 12, 2), the best known (checked by computer too).
* Doubling (Chateauneuf-Kreher; M. Chateauneuf and D. L. Kreher, "On the
  state of strength-three covering arrays", J. Combin. Des. 10 (2002)
  217-238, the binary case of their Construction 4.1 / Roux's theorem):
  from a CA(N; 3, k, 2) ``A`` and a CA(M; 2, k, 2) ``B``, the rows
  ``A | A`` and ``B | complement(B)`` form a CA(N+M; 3, 2k, 2).  (Three
  columns among distinct originals are covered by ``A``; a column with its
  own copy, ``i`` and ``i'``, shows ``(x, y, x)`` in ``A | A`` and
  ``(x, y, 1-x)`` wherever ``B`` shows ``(x, y)`` on ``i, j``.)  So
  2^20 at t=3 takes 12 + 6 = 18 rows (the best known).

* Product with constant rows, strength 2 (the "product of covering
  arrays" of C. J. Colbourn, "Combinatorial aspects of covering arrays",
  Le Matematiche 59 (2004), Sec. 3; Stevens, Ling and Mendelsohn): if
  ``A`` = CA(N; 2, k, v) and ``B`` = CA(M; 2, l, v) both hold the v constant
  rows, the columns (i, j) with rows ``A[r][i]`` and then ``B[r][j]`` (B's
  constant rows left out, they repeat A's) form a CA(N + M - v; 2, kl, v):
  two columns with different i are covered by ``A``, with the same i by
  ``B``.  The orthogonal array OA(q^2, q, q, 2) of the lines c0 + c1 x over
  GF(q) holds the q constant rows (c1 = 0), and so does every product, so
  the construction recurses: 5^20 takes 25 + 25 - 5 = 45 rows.

* The same product with a built inner array (:func:`product_with`): the
  outer array ``A`` needs no constant rows at all (two columns with
  different ``i`` are covered by ``A`` alone, and ``A`` shows ``(x, x)`` on
  two columns of the same ``i`` in every row), so it is the orthogonal array
  OA(q^2; 2, q+1, q) of :func:`.algebraic.bush` with its q+1 columns; the
  inner ``B`` is the engine's own quick array of ``v^l`` built with the v
  constant rows as include rows (the caller's ``ingredient``), which are
  then left out: ``q^2 + |B| - v`` rows.  4^100: 16 + 31 - 4 = 43 rows
  (was 46: IPOG polished; the q-column product gives 52).  For v = 3 it
  does not win (3^100: 9 + 19 - 3 = 25, the polished IPOG's size), so it
  is tried for v >= 4 only.

Only unconstrained, uniform-strength models use these (the binary ones need
every axis to have at most two values; axes with fewer values than the
construction's are folded).  The pipeline verifies every result before
trusting it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations

from pairwise_param.engine.algebraic import MAX_ROWS, binary_pairwise, binary_rows_needed, bush, fold
from pairwise_param.engine.gf import field, prime_power

__all__ = ["binary_t3", "binary_t4", "product_t2", "product_with", "recursive"]

#: product_with: the inner array's columns at most (it is built by the engine, in quick mode).
PRODUCT_INNER_MAX = 60

#: Largest p whose Paley array is built and checked here (the check grows as p^t).
_PALEY_MAX = {3: 60, 4: 32}

BinRows = list[tuple[int, ...]]


def _paley_core(p: int) -> BinRows:
    """The p+1 Plackett-Burman rows (0/1) of a prime p = 3 (mod 4)."""
    qr = {(x * x) % p for x in range(1, p)}
    first = [1 if (j == 0 or j in qr) else 0 for j in range(p)]
    rows = [tuple(first[(j - i) % p] for j in range(p)) for i in range(p)]
    rows.append(tuple([0] * p))
    return rows


def _covers(rows: BinRows, t: int) -> bool:
    """Every t columns of the binary ``rows`` hold all 2^t patterns."""
    k = len(rows[0]) if rows else 0
    full = (1 << len(rows)) - 1
    ones = [sum(1 << r for r, row in enumerate(rows) if row[c]) for c in range(k)]
    cols = [(m, full & ~m) for m in ones]
    for scope in combinations(range(k), t):
        masks = [full]
        for c in scope:
            one, zero = cols[c]
            masks = [m & one for m in masks] + [m & zero for m in masks]
        if not all(masks):
            return False
    return True


def _primes_3mod4(limit: int) -> list[int]:
    return [p for p in range(3, limit + 1) if p % 4 == 3 and prime_power(p) == (p, 1)]


@cache
def _paley_t3(p: int) -> bool:
    return _covers(_paley_core(p), 3)


@cache
def _foldover(p: int) -> tuple[tuple[int, ...], ...] | None:
    """2(p+1) rows, p+1 columns, when they cover strength 4."""
    core = [row + (1,) for row in _paley_core(p)]
    rows = core + [tuple(1 - x for x in row) for row in core]
    return tuple(rows) if _covers(rows, 4) else None


@cache
def _t3_size(k: int) -> tuple[int, str]:
    """(rows, recipe) of the smallest binary strength-3 array for k columns
    that these constructions give; recipe "paley:p", "double:k" or "full"."""
    if k <= 3:
        return 8, "full"
    best = (1 << 30, "")
    for p in _primes_3mod4(_PALEY_MAX[3]):
        if p >= k and _paley_t3(p):
            best = (p + 1, f"paley:{p}")
            break
    half = (k + 1) // 2
    if half < k:
        n = _t3_size(half)[0] + binary_rows_needed(max(2, half))
        if n < best[0]:
            best = (n, f"double:{half}")
    return best


def binary_t3(k: int) -> BinRows:
    """A binary strength-3 covering array of ``k`` >= 3 columns."""
    _, recipe = _t3_size(k)
    kind, _, arg = recipe.partition(":")
    if kind == "full":
        return [tuple((r >> (2 - c)) & 1 for c in range(k)) for r in range(8)]
    if kind == "paley":
        return [row[:k] for row in _paley_core(int(arg))]
    half = int(arg)
    a = binary_t3(half)
    b = binary_pairwise(max(2, half))
    b = [row[:half] for row in b]
    rows = [row + row for row in a] + [row + tuple(1 - x for x in row) for row in b]
    return [row[:k] for row in rows]


def binary_t4(k: int) -> BinRows | None:
    """A binary strength-4 fold-over array of ``k`` >= 4 columns, if one fits."""
    for p in _primes_3mod4(_PALEY_MAX[4]):
        if p + 1 >= k:
            rows = _foldover(p)
            if rows is not None:
                return [row[:k] for row in rows]
    return None


def _lines(q: int) -> BinRows:
    """OA(q^2; 2, q, q): row (c0, c1) holds c0 + c1 x at column x; the q
    constant rows (c1 = 0) come first."""
    add, mul = field(q)
    return [tuple(add[c0][mul[c1][x]] for x in range(q)) for c1 in range(q) for c0 in range(q)]


def _product_size(k: int, q: int) -> int:
    if k <= q:
        return q * q
    return q * q + _product_size(-(-k // q), q) - q


def product_t2(k: int, q: int) -> BinRows:
    """A strength-2 array of ``k`` columns over ``q`` symbols (a prime power)
    whose first q rows are the constant rows."""
    base = _lines(q)
    if k <= q:
        return [row[:k] for row in base]
    l_cols = -(-k // q)
    inner = product_t2(l_cols, q)
    cols = [(i, j) for i in range(q) for j in range(l_cols)][:k]
    rows = [tuple(a[i] for i, _ in cols) for a in base]
    rows += [tuple(b[j] for _, j in cols) for b in inner[q:]]
    return rows


def product_with(
    sizes: tuple[int, ...], below: int, ingredient: Callable[[int, int], BinRows]
) -> tuple[BinRows, str] | None:
    """The product of OA(q^2; 2, q+1, q) and ``ingredient(l, v)`` (an array
    of ``v^l`` holding the v constant rows), when it may have fewer than
    ``below`` rows; None otherwise.  The caller checks the result."""
    k, v = len(sizes), max(sizes)
    if v < 4:
        return None
    q = next(q for q in range(v, 2 * v + 1) if prime_power(q) is not None)
    inner = -(-k // (q + 1))
    if k <= q + 1 or inner > PRODUCT_INNER_MAX or q * q + v * (v - 1) >= below:
        return None
    outer = bush(q, 2, q + 1)
    if outer is None:
        return None
    outer = [tuple(x % v for x in row) for row in outer]
    b = [row for row in ingredient(inner, v) if len(set(row)) > 1]
    if q * q + len(b) >= below:
        return None
    cols = [(i, j) for i in range(q + 1) for j in range(inner)][:k]
    rows = [tuple(a[i] for i, _ in cols) for a in outer] + [tuple(r[j] for _, j in cols) for r in b]
    return fold(rows, sizes), f"product(OA(q={q}) x {v}^{inner})"


def recursive(sizes: tuple[int, ...], strength: int, uniform_strength: bool) -> tuple[list[tuple[int, ...]], str] | None:
    """The smallest of these constructions for ``sizes``, or None."""
    k = len(sizes)
    if not uniform_strength or k <= strength:
        return None
    vmax = max(sizes)
    if strength == 2 and vmax > 2 and k > vmax + 1:
        qs = [q for q in range(vmax, 2 * vmax + 1) if prime_power(q) is not None and q * q <= MAX_ROWS]
        if not qs:
            return None
        best_q = min(qs, key=lambda q: (_product_size(k, q), q))
        return fold(product_t2(k, best_q), sizes), f"product(q={best_q})"
    if vmax > 2:
        return None
    if strength == 3:
        return fold(binary_t3(k), sizes), "binary-t3(" + _t3_size(k)[1] + ")"
    if strength == 4:
        rows = binary_t4(k)
        if rows is not None:
            return fold(rows, sizes), "binary-t4(fold-over)"
    return None
