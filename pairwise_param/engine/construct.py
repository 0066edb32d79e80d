"""Construction of covering arrays (placeholder greedy; replaced by IPOG-F /
density constructions)."""

from __future__ import annotations

import itertools

from pairwise_param.constraints import Feasibility
from pairwise_param.model import IndexModel


def build(model: IndexModel, options, feas: Feasibility):
    from pairwise_param.engine import Generated

    n = len(model.sizes)
    uncovered: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    infeasible = []
    for scope in model.interactions:
        todo = set()
        for combo in itertools.product(*(range(model.sizes[a]) for a in scope)):
            row: list[int | None] = [None] * n
            for a, v in zip(scope, combo):
                row[a] = v
            if feas.violates(row) is None and feas.completable(row):
                todo.add(combo)
            else:
                infeasible.append((scope, combo))
        uncovered[scope] = todo
    rows: list[tuple[int, ...]] = []

    def take(row):
        for scope, todo in uncovered.items():
            todo.discard(tuple(row[a] for a in scope))
        rows.append(tuple(row))

    for inc in model.include:
        full = feas.complete(inc)
        assert full is not None
        take(full)
    while True:
        seed = None
        for scope in model.interactions:
            if uncovered[scope]:
                seed = (scope, min(uncovered[scope]))
                break
        if seed is None:
            break
        row: list[int | None] = [None] * n
        for a, v in zip(*seed):
            row[a] = v
        for a in range(n):
            if row[a] is not None:
                continue
            best, best_gain = None, -1
            for v in range(model.sizes[a]):
                row[a] = v
                if feas.violates(row) is not None or not feas.completable(row):
                    continue
                gain = 0
                for scope in model.interactions:
                    if a in scope and all(row[b] is not None for b in scope):
                        if tuple(row[b] for b in scope) in uncovered[scope]:
                            gain += 1
                if gain > best_gain:
                    best, best_gain = v, gain
            row[a] = best
        take(row)
    return Generated(tuple(rows), tuple(infeasible), "greedy")
