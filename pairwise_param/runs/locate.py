"""Suspicious combinations: which values of a covering table a failure points at.

Pure logic over value indices (no pytest, no engine, no values): the plugin's
terminal summary, the ``--pairwise-report`` JSON, ``pairwise-param report
--run`` and ``pairwise-param localize`` all rank with :func:`suspicious`.

Input: the rows (one value index per axis) that FAILED with one error
signature, and the rows that PASSED, both of one shape group of one table.
A *combination* is a set of ``(axis, value)`` cells, 1..t of them.  It is
*suspicious* when it appears in some failing row and in no passing row (a
passing row proves that none of its combinations is failure-inducing on its
own).  Only minimal ones are kept: ``{bias_mode=2, padded_a=True}`` is not
listed next to ``{bias_mode=2}`` when ``{bias_mode=2}`` alone is suspicious.

Ranking (after BEN, Ghandehari, Lei, Kacker and Kuhn, "Identifying
failure-inducing combinations in a combinatorial test set", ICST 2012): a
component ``o`` (one cell) gets ``rho(o) = (u + v + w) / 3`` where ``u`` is the
share of failing rows that hold ``o``, ``v`` the share of rows holding ``o``
that fail, and ``w`` the share of suspicious combinations that contain ``o``.
A combination ``c`` scores ``rho(c)`` (the mean of its components) minus its
*environment* ``chi(c)``: over the failing rows that hold ``c``, the most
suspicious component outside ``c`` (averaged).  A combination that explains
more failing rows ranks first; then the higher ``rho - chi``; then the
smaller; then table order (deterministic: no hash order anywhere).

A table too wide to enumerate every combination of ``t`` values of every row
within :data:`BUDGET` is searched at the largest size that fits (``Verdict.size``).

Verdicts (:class:`Verdict`): ``decided`` -- exactly one minimal combination
holds in every failing row and in no passing row; ``ambiguous`` -- several do
(follow-up rows are needed to tell them apart: ``pairwise-param localize``);
``unexplained`` -- none holds in every failing row (two faults behind one
signature, a fault of more than t values, or flaky outcomes: the failing rows
that hold no suspicious combination at all are listed).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Candidate", "Cell", "Combination", "Verdict", "suspicious"]

#: one cell: (axis index, value index)
Cell = tuple[int, int]
#: a value combination: cells sorted by axis
Combination = tuple[Cell, ...]

#: combinations enumerated at most (rows x combinations per row, summed over sizes):
#: a wide table (100 axes at t=3: 161700 scopes per row) is searched at the largest
#: size that fits, and the verdict says which (``Verdict.size``)
BUDGET = 2_000_000


@dataclass(frozen=True)
class Candidate:
    """A suspicious combination, with how many failing rows hold it and its score."""

    combination: Combination
    failing: int  # failing rows that hold it
    score: float  # rho(c) - chi(c), rounded for stable output


@dataclass(frozen=True)
class Verdict:
    """The ranking for one (shape group x error signature)."""

    kind: str  # "decided" | "ambiguous" | "unexplained"
    candidates: tuple[Candidate, ...]  # ranked, best first
    explaining: int  # candidates that hold in every failing row
    unexplained: tuple[int, ...]  # positions (in failing) of rows that hold no candidate
    failed: int
    passed: int
    size: int  # combinations of up to this many values were searched (strength, or less: BUDGET)


def _combos(row: Sequence[int], size: int) -> list[Combination]:
    return [tuple((a, row[a]) for a in scope) for scope in itertools.combinations(range(len(row)), size)]


def suspicious(
    failing: Sequence[Sequence[int]], passing: Sequence[Sequence[int]], strength: int
) -> Verdict:
    """Rank the minimal combinations of 1..``strength`` cells that appear in a
    failing row and in no passing row (see the module docstring)."""
    fail = [tuple(r) for r in failing]
    ok = [tuple(r) for r in passing]
    n_axes = len(fail[0]) if fail else (len(ok[0]) if ok else 0)
    t = max(1, min(strength, n_axes))
    n_rows = len(fail) + len(ok)
    while t > 1 and n_rows * sum(math.comb(n_axes, k) for k in range(1, t + 1)) > BUDGET:
        t -= 1
    seen_ok: set[Combination] = set()
    for size in range(1, t + 1):
        for row in ok:
            seen_ok.update(_combos(row, size))
    # candidates in table order: sizes ascending, rows in order, scopes in order
    holders: dict[Combination, list[int]] = {}
    minimal: list[Combination] = []
    for size in range(1, t + 1):
        for i, row in enumerate(fail):
            for c in _combos(row, size):
                if c in seen_ok:
                    continue
                if c not in holders:
                    if size > 1 and any(sub in holders for k in range(1, size) for sub in itertools.combinations(c, k)):
                        holders[c] = []  # not minimal: a smaller suspicious part exists
                        continue
                    holders[c] = []
                    minimal.append(c)
                holders[c].append(i)
    cands = [c for c in minimal if holders[c]]
    rho = _component_scores(fail, ok, cands)
    ranked = sorted(
        (Candidate(c, len(holders[c]), _score(c, holders[c], fail, rho)) for c in cands),
        key=lambda k: (-k.failing, -k.score, len(k.combination), k.combination),
    )
    explaining = sum(1 for k in ranked if k.failing == len(fail))
    held = {i for c in cands for i in holders[c]}
    unexplained = tuple(i for i in range(len(fail)) if i not in held)
    if explaining == 1:
        kind = "decided"
    elif explaining > 1:
        kind = "ambiguous"
    else:
        kind = "unexplained"
    return Verdict(kind, tuple(ranked), explaining, unexplained, len(fail), len(ok), t)


def _component_scores(
    fail: list[tuple[int, ...]], ok: list[tuple[int, ...]], cands: list[Combination]
) -> dict[Cell, float]:
    """rho(o) = (u + v + w) / 3 for every component of a failing row."""
    in_fail: dict[Cell, int] = {}
    for row in fail:
        for cell in enumerate(row):
            in_fail[cell] = in_fail.get(cell, 0) + 1
    in_ok: dict[Cell, int] = {}
    for row in ok:
        for cell in enumerate(row):
            in_ok[cell] = in_ok.get(cell, 0) + 1
    in_cands: dict[Cell, int] = {}
    for c in cands:
        for cell in c:
            in_cands[cell] = in_cands.get(cell, 0) + 1
    n_fail = max(1, len(fail))
    n_cands = max(1, len(cands))
    return {
        cell: (f / n_fail + f / (f + in_ok.get(cell, 0)) + in_cands.get(cell, 0) / n_cands) / 3
        for cell, f in in_fail.items()
    }


def _score(c: Combination, rows: list[int], fail: list[tuple[int, ...]], rho: dict[Cell, float]) -> float:
    """rho(c) - chi(c): the combination's own suspiciousness minus that of the
    most suspicious other component of the failing rows that hold it."""
    own = sum(rho[cell] for cell in c) / len(c)
    axes = {a for a, _ in c}
    env = 0.0
    for i in rows:
        others = [rho[cell] for cell in enumerate(fail[i]) if cell[0] not in axes]
        env += max(others, default=0.0)
    return round(own - env / len(rows), 6)
