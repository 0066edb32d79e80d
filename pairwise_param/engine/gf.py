"""Finite fields GF(q), q a prime power, as addition/multiplication tables.

Element ``e`` of GF(p^m) is the polynomial whose base-p digits are the
coefficients (``e = c0 + c1*p + ...``).  The modulus is the smallest monic
irreducible polynomial of degree m in that encoding, so the tables (and the
arrays built from them) are the same in every process.  Only small q are
needed (array rows grow as q^t), so tables are the simplest fast form.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["field", "prime_power"]


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    f = 2
    while f * f <= n:
        if n % f == 0:
            return False
        f += 1
    return True


def prime_power(q: int) -> tuple[int, int] | None:
    """(p, m) with q == p**m and p prime, or None."""
    if q < 2:
        return None
    for p in range(2, q + 1):
        if q % p == 0:
            if not _is_prime(p):
                return None
            m = 0
            while q % p == 0:
                q //= p
                m += 1
            return (p, m) if q == 1 else None
    return None


def _digits(e: int, p: int, m: int) -> list[int]:
    out = []
    for _ in range(m):
        out.append(e % p)
        e //= p
    return out


def _polymod(a: list[int], mod: list[int], p: int) -> list[int]:
    """a mod (monic) mod over GF(p); coefficient lists, lowest degree first."""
    a = a[:]
    d = len(mod) - 1
    for i in range(len(a) - 1, d - 1, -1):
        c = a[i] % p
        if c:
            for j in range(d + 1):
                a[i - d + j] = (a[i - d + j] - c * mod[j]) % p
    return [x % p for x in a[:d]] + [0] * max(0, d - len(a))


def _irreducible(p: int, m: int) -> list[int]:
    """Smallest monic irreducible polynomial of degree m over GF(p)."""
    for low in range(p**m):
        poly = _digits(low, p, m) + [1]
        ok = True
        for deg in range(1, m // 2 + 1):
            for lowd in range(p**deg):
                div = _digits(lowd, p, deg) + [1]
                if not any(_polymod(poly, div, p)):
                    ok = False
                    break
            if not ok:
                break
        if ok:
            return poly
    raise AssertionError(f"no irreducible polynomial of degree {m} over GF({p})")  # pragma: no cover


@lru_cache(maxsize=16)
def field(q: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """(add, mul) tables of GF(q); raises ValueError if q is no prime power."""
    pm = prime_power(q)
    if pm is None:
        raise ValueError(f"{q} is not a prime power")
    p, m = pm
    if m == 1:
        add = tuple(tuple((a + b) % p for b in range(q)) for a in range(q))
        mul = tuple(tuple((a * b) % p for b in range(q)) for a in range(q))
        return add, mul
    mod = _irreducible(p, m)
    digits = [_digits(e, p, m) for e in range(q)]

    def enc(cs: list[int]) -> int:
        return sum(c * p**i for i, c in enumerate(cs))

    add = tuple(tuple(enc([(x + y) % p for x, y in zip(digits[a], digits[b])]) for b in range(q)) for a in range(q))
    mul_rows = []
    for a in range(q):
        row = []
        for b in range(q):
            prod = [0] * (2 * m - 1)
            for i, x in enumerate(digits[a]):
                if x:
                    for j, y in enumerate(digits[b]):
                        prod[i + j] += x * y
            row.append(enc(_polymod(prod, mod, p)))
        mul_rows.append(tuple(row))
    return add, tuple(mul_rows)
