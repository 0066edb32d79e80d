"""Pure analysis of one fault's full-product outcome (no torch, no Triton).

Rows are tuples of values in axis order. ``failing`` is the set of full-product rows on
which the mutated kernel failed at least one shape.

**Interaction order** of a fault: the smallest ``t`` such that some combination of
``t`` axis values (a t-tuple) that occurs in at least one feasible row occurs *only* in
failing rows -- its presence implies failure. Order 0 means every row fails (the empty
combination already implies failure: a shape-only bug); ``None`` means no row fails
(the suite cannot see the fault at the study's shapes). A covering table of strength
``t`` holds every coverable t-tuple, so it is guaranteed to run a failing row of every
fault of order <= t; beyond that it may or may not.

Every mode's rows are full-product rows, so one full run per fault decides the kill of
every mode: a mode kills the fault when one of its rows is failing.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from typing import Any

RowT = tuple[Any, ...]


def minimal_failure_tuples(full: Sequence[RowT], failing: set[RowT], limit: int = 8
                           ) -> tuple[int | None, list[dict[int, Any]]]:
    """(interaction order, up to ``limit`` of the minimal value combinations that imply
    failure, each as {axis position: value})."""
    if not failing:
        return None, []
    if len(failing) == len(full):
        return 0, [{}]
    k = len(full[0])
    for t in range(1, k + 1):
        verdict: dict[tuple[tuple[int, ...], RowT], bool] = {}
        for row in full:
            bad = row in failing
            for axes in itertools.combinations(range(k), t):
                key = (axes, tuple(row[a] for a in axes))
                verdict[key] = verdict.get(key, True) and bad
        found = [dict(zip(axes, vals)) for (axes, vals), all_bad in verdict.items() if all_bad]
        if found:
            return t, found[:limit]
    raise AssertionError("a failing row is itself a k-tuple that implies failure")


def killed(rows: Iterable[RowT], failing: set[RowT]) -> bool:
    """Whether any of ``rows`` fails."""
    return any(r in failing for r in rows)


def random_samples(full: Sequence[RowT], size: int, seeds: Sequence[int]) -> list[list[RowT]]:
    """One sample per seed: ``size`` distinct full-product rows drawn uniformly with a
    local ``random.Random(seed)`` (never the global generator)."""
    size = min(size, len(full))
    return [random.Random(seed).sample(list(full), size) for seed in seeds]
