"""The full product of a model: its feasible rows, and how many there are.

Used by the plugin's full mode (:func:`full_rows`) and by the plugin's summary
and the suite report (:func:`feasible_count`).  Needs no engine: the rows are
the full product in lexicographic order (the user's value order), minus rows
that break a constraint, enumerated with early pruning.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.model import Model

__all__ = ["COUNT_LIMIT", "Count", "big_int_text", "feasible_count", "full_rows", "reduction_text"]

#: Work bound (state transitions) of the exact count of one constrained
#: component.  Counting is exact by dynamic programming over the "frontier"
#: (the assigned axes some later exclusion still reads), so chains and groups
#: of any product size count in linear time; only a component whose frontier
#: is huge exceeds the bound, and only then is the count the upper bound
#: given by the component's unconstrained product.
COUNT_LIMIT = 20_000_000


@dataclass(frozen=True)
class Count:
    """A feasible-row count and whether it is exact.

    ``exact`` is False only when some constrained component exceeded
    :data:`COUNT_LIMIT` and its unconstrained product stood in: ``value`` is
    then an upper bound, and every face that prints it says "at most" (this
    is the one place that decides whether a count is a bound)."""

    value: int
    exact: bool = True

    def __str__(self) -> str:
        """``1287`` or ``at most 1679616``: the count as a sentence fragment."""
        return str(self.value) if self.exact else f"at most {self.value}"

    def __mul__(self, other: Count) -> Count:
        """Counts of independent parts multiply; one bound makes the product a bound."""
        return Count(self.value * other.value, self.exact and other.exact)


def _checks_by_axis(model: Model) -> list[list[Any]]:
    """Exclusions grouped by the last axis of their scope (checked when it is assigned)."""
    by_last: list[list[Any]] = [[] for _ in model.axes]
    for ex in model.exclusions:
        by_last[max(ex.scope)].append(ex)
    return by_last


def _enumerate(
    sizes: Sequence[int], axes: Sequence[int], by_last: list[list[Any]]
) -> Iterator[dict[int, int]]:
    """Valid assignments of ``axes`` (in order), lexicographic, pruned early."""
    work: dict[int, int] = {}
    n = len(axes)

    def rec(i: int) -> Iterator[dict[int, int]]:
        if i == n:
            yield work
            return
        a = axes[i]
        for v in range(sizes[a]):
            work[a] = v
            ok = True
            for ex in by_last[a]:
                if all(b in work for b in ex.scope) and tuple(work[b] for b in ex.scope) in ex.forbidden:
                    ok = False
                    break
            if ok:
                yield from rec(i + 1)
        del work[a]

    return rec(0)


def full_rows(model: Model) -> tuple[tuple[int, ...], ...]:
    """Every row of the full product that breaks no constraint, lexicographic."""
    sizes = model.sizes
    by_last = _checks_by_axis(model)
    order = list(range(len(sizes)))
    return tuple(tuple(w[a] for a in order) for w in _enumerate(sizes, order, by_last))


def _count(sizes: Sequence[int], axes: Sequence[int], by_last: list[list[Any]], limit: int) -> int | None:
    """Valid assignments of ``axes`` (sorted), counted exactly by DP over the
    frontier; None when the work would exceed ``limit`` transitions."""
    last_use: dict[int, int] = {}
    for a in axes:
        for ex in by_last[a]:
            for b in ex.scope:
                last_use[b] = max(last_use.get(b, b), a)
    live: tuple[int, ...] = ()
    states: dict[tuple[int, ...], int] = {(): 1}
    work = 0
    for a in axes:
        keep = tuple(b for b in (*live, a) if last_use.get(b, b) > a)
        checks = by_last[a]
        nxt: dict[tuple[int, ...], int] = {}
        work += len(states) * sizes[a]
        if work > limit:
            return None
        for state, cnt in states.items():
            cells = dict(zip(live, state))
            for v in range(sizes[a]):
                cells[a] = v
                if any(tuple(cells[b] for b in ex.scope) in ex.forbidden for ex in checks):
                    continue
                key = tuple(cells[b] for b in keep)
                nxt[key] = nxt.get(key, 0) + cnt
        states, live = nxt, keep
    return sum(states.values())


def feasible_count(model: Model) -> Count:
    """Rows of the full product that break no constraint, counted per
    constrained component: exact, except where a component exceeds
    :data:`COUNT_LIMIT` (its unconstrained product stands in, and the
    returned :class:`Count` says ``exact=False``)."""
    sizes = model.sizes
    total = 1
    exact = True
    constrained: set[int] = set()
    by_last = _checks_by_axis(model)
    for comp in model.feasibility.components:
        constrained.update(comp)
        counted = _count(sizes, sorted(comp), by_last, COUNT_LIMIT)
        if counted is None:
            exact = False
            counted = 1
            for a in comp:
                counted *= sizes[a]
        total *= counted
    for a, s in enumerate(sizes):
        if a not in constrained:
            total *= s
    return Count(total, exact)




def big_int_text(n: int) -> str:
    """``324``, or ``2.04e+903`` past 18 digits: integer arithmetic only, so a full
    product past float's 1.8e308 (2^3000) prints instead of raising ``OverflowError``."""
    digits = str(n)
    if len(digits) <= 18:
        return digits
    head = int(digits[:4]) + (1 if digits[4] >= "5" else 0)  # 3 significant digits, rounded
    exp = len(digits) - 1
    if head >= 10000:
        head, exp = head // 10, exp + 1
    text = str(head)
    return f"{text[0]}.{text[1:3]}e+{exp}"


def reduction_text(full: int, rows: int) -> str:
    """``25.2x``: ``full / rows`` to one decimal, in integer arithmetic (any size of
    ``full``; past 18 digits as ``1.23e+400x``); ``-`` for no rows."""
    if rows <= 0:
        return "-"
    tenths = (full * 10 + rows // 2) // rows
    if tenths >= 10**18:
        return big_int_text(tenths // 10) + "x"
    return f"{tenths // 10}.{tenths % 10}x"
