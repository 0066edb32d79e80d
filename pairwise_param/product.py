"""The full product of a model: its feasible rows, and how many there are.

Used by the plugin's full mode (:func:`full_rows`) and by the plugin's summary
and the suite report (:func:`feasible_count`).  Needs no engine: the rows are
the full product in lexicographic order (the user's value order), minus rows
that break a constraint, enumerated with early pruning.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pairwise_param.model import Model

__all__ = ["COUNT_LIMIT", "feasible_count", "full_rows"]

#: Above this many combinations in one constrained component, the feasible
#: full-product count is reported as the unconstrained product.
COUNT_LIMIT = 1_000_000


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


def feasible_count(model: Model) -> int:
    """Rows of the full product that break no constraint (counted per
    constrained component; the unconstrained product if a component is too
    large to count)."""
    sizes = model.sizes
    total = 1
    constrained: set[int] = set()
    by_last = _checks_by_axis(model)
    for comp in model.feasibility.components:
        space = 1
        for a in comp:
            space *= sizes[a]
        constrained.update(comp)
        if space > COUNT_LIMIT:
            return model.full_product
        total *= sum(1 for _ in _enumerate(sizes, sorted(comp), by_last))
    for a, s in enumerate(sizes):
        if a not in constrained:
            total *= s
    return total


