"""What must be covered: the interaction scopes, their tuples, and which of
those tuples constraints make impossible.

Every construction and the improver share this one description so that they
agree on what "done" means.  A tuple of a scope is addressed by a mixed-radix
index (first axis of the scope most significant), which lets the constructions
keep coverage as flat lists or int bitsets instead of dicts of tuples.

Infeasible tuples are found exactly with :meth:`Feasibility.completable`: a
t-tuple is coverable iff some row breaking no exclusion contains it.  Scopes
that touch no constrained axis are skipped (every tuple is coverable there),
so unconstrained models pay nothing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

from pairwise_param.feasibility import Feasibility
from pairwise_param.model import IndexModel

__all__ = ["Requirements", "requirements", "scope_weights"]


@dataclass(frozen=True)
class Requirements:
    """Scopes to cover and, per scope, the coverable tuple indices.

    ``scopes[i]`` is a sorted axis tuple, ``weights[i][j]`` the radix weight of
    its j-th axis, ``totals[i]`` the number of value combinations;
    ``blocked[i]`` is the sorted tuple of infeasible combination indices (empty
    for unconstrained scopes).
    """

    sizes: tuple[int, ...]
    scopes: tuple[tuple[int, ...], ...]
    weights: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    blocked: tuple[tuple[int, ...], ...]
    constrained: bool

    def combo(self, si: int, index: int) -> tuple[int, ...]:
        """Value tuple of combination ``index`` of scope ``si``."""
        out = []
        for w, a in zip(self.weights[si], self.scopes[si]):
            out.append((index // w) % self.sizes[a])
        return tuple(out)

    def index_of(self, si: int, row: list[int | None] | tuple[int, ...]) -> int:
        """Combination index that ``row`` (fully assigned on the scope) covers."""
        index = 0
        for a, w in zip(self.scopes[si], self.weights[si]):
            x = row[a]
            assert x is not None
            index += x * w
        return index

    @cached_property
    def offsets(self) -> tuple[int, ...]:
        """Bit offset of each axis in a one-bit-per-cell-value layout: cell value
        ``(a, x)`` is bit ``offsets[a] + x`` (the pair bitsets of density, improve
        and verify all use this layout)."""
        out = []
        total = 0
        for s in self.sizes:
            out.append(total)
            total += s
        return tuple(out)

    @cached_property
    def _coverable(self) -> int:
        return sum(self.totals) - sum(len(b) for b in self.blocked if b)

    def coverable_count(self) -> int:
        """Number of coverable tuples over all scopes (computed once)."""
        return self._coverable

    def infeasible(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """(scope, values) for every tuple no valid row can contain, sorted."""
        out = []
        for si, scope in enumerate(self.scopes):
            for index in self.blocked[si]:
                out.append((scope, self.combo(si, index)))
        return tuple(out)


def scope_weights(sizes: tuple[int, ...], scope: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Mixed-radix place values of ``scope``'s axes (last axis fastest) and the
    number of value combinations: a tuple's code is ``sum(v * w)``."""
    ws = []
    w = 1
    for a in reversed(scope):
        ws.append(w)
        w *= sizes[a]
    return tuple(reversed(ws)), w


def requirements(model: IndexModel, feas: Feasibility) -> Requirements:
    """Describe what ``model`` needs covered; find infeasible tuples exactly."""
    sizes = tuple(model.sizes)
    n = len(sizes)
    constrained = bool(model.exclusions)
    scopes = tuple(model.interactions)
    weights: list[tuple[int, ...]] = []
    totals = []
    blocked: list[tuple[int, ...]] = []
    constrained_axes = set(feas.component_of) if constrained else set()
    pair_weights: dict[int, tuple[int, int]] = {}  # one shared tuple per size (2^3000: 4.5 M scopes)
    for scope in scopes:
        if len(scope) == 2:  # the bulk of every large model: no generic radix loop
            sb = sizes[scope[1]]
            w = pair_weights.get(sb)
            if w is None:
                w = pair_weights[sb] = (sb, 1)
            weights.append(w)
            totals.append(sizes[scope[0]] * sb)
        else:
            ws, total = scope_weights(sizes, scope)
            weights.append(ws)
            totals.append(total)
        if not constrained or not any(a in constrained_axes for a in scope):
            blocked.append(())
            continue
        bad = []
        row: list[int | None] = [None] * n
        for index, combo in enumerate(itertools.product(*(range(sizes[a]) for a in scope))):
            for a, v in zip(scope, combo):
                row[a] = v
            if feas.violates(row) is not None or not feas.completable(row):
                bad.append(index)
        for a in scope:
            row[a] = None
        blocked.append(tuple(bad))
    return Requirements(sizes, scopes, tuple(weights), tuple(totals), tuple(blocked), constrained)
