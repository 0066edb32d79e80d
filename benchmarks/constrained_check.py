"""Independent checker of constrained covering arrays (shares no code with the engine).

A table of value-index rows is valid for a :class:`constrained_models.ConstrainedModel` when

* every cell is an index of its axis' values;
* no row breaks a rule;
* every *coverable* t-tuple appears in some row, where a t-tuple is coverable iff
  some full row that breaks no rule contains it (decided here by its own small
  backtracking search over the axes the rules mention).

Only the standard library and :mod:`constrained_models` are imported: the
benchmark's verdicts do not depend on the engine's own check
(``pairwise_param.engine.verify``), nor on ``pairwise_param.constraints``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from constrained_models import ConstrainedModel

__all__ = ["Checked", "Coverable", "IndexRules", "check", "index_rules"]

#: ((axis, value index), ...) -> (axis, allowed value indices)
IndexRule = tuple[tuple[tuple[int, int], ...], tuple[int, frozenset[int]]]


@dataclass(frozen=True)
class IndexRules:
    sizes: tuple[int, ...]
    rules: tuple[IndexRule, ...]


def index_rules(m: ConstrainedModel) -> IndexRules:
    names = [n for n, _ in m.axes]
    values = [list(v) for _, v in m.axes]
    out: list[IndexRule] = []
    for conds, (axis, allowed) in m.rules:
        ic = tuple((names.index(a), values[names.index(a)].index(v)) for a, v in conds)
        q = names.index(axis)
        out.append((ic, (q, frozenset(values[q].index(w) for w in allowed))))
    return IndexRules(m.sizes, tuple(out))


def _breaks(rules: IndexRules, assign: dict[int, int]) -> bool:
    for conds, (q, allowed) in rules.rules:
        if q in assign and assign[q] not in allowed and all(assign.get(a) == v for a, v in conds):
            return True
    return False


def _satisfiable(rules: IndexRules, assign: dict[int, int], free: list[int]) -> bool:
    if _breaks(rules, assign):
        return False
    if not free:
        return True
    a, rest = free[0], free[1:]
    for v in range(rules.sizes[a]):
        assign[a] = v
        if _satisfiable(rules, assign, rest):
            del assign[a]
            return True
    del assign[a]
    return False


class Coverable:
    """Whether some valid full row extends a partial assignment of axis -> value index.

    Only the axes the rules mention can decide it, so the answer is memoised on
    the assignment's cells on those axes."""

    def __init__(self, rules: IndexRules) -> None:
        self.rules = rules
        self.ruled = sorted({a for conds, (q, _) in rules.rules for a in [q, *(x for x, _ in conds)]})
        self._memo: dict[tuple[tuple[int, int], ...], bool] = {}

    def __call__(self, assign: dict[int, int]) -> bool:
        key = tuple((a, assign[a]) for a in self.ruled if a in assign)
        ok = self._memo.get(key)
        if ok is None:
            fixed = dict(key)
            ok = self._memo[key] = _satisfiable(self.rules, fixed, [a for a in self.ruled if a not in fixed])
        return ok


@dataclass(frozen=True)
class Checked:
    ok: bool
    missing: int  #: coverable t-tuples no row holds
    violating: int  #: rows that break a rule or hold an unknown value
    coverable: int

    def verdict(self) -> str:
        if self.ok:
            return ""
        return f" INVALID({self.missing} missing, {self.violating} bad rows)"


def check(m: ConstrainedModel, rows: Sequence[Sequence[int]]) -> Checked:
    rules = index_rules(m)
    sizes = m.sizes
    n = len(sizes)
    bad = 0
    for r in rows:
        outside = len(r) != n or any(not (isinstance(x, int) and 0 <= x < s) for x, s in zip(r, sizes))
        if outside or _breaks(rules, dict(enumerate(r))):
            bad += 1
    extends = Coverable(rules)
    missing = coverable = 0
    good = [r for r in rows if len(r) == n]
    for scope in itertools.combinations(range(n), m.strength):
        seen = {tuple(r[a] for a in scope) for r in good}
        for combo in itertools.product(*(range(sizes[a]) for a in scope)):
            if extends(dict(zip(scope, combo))):
                coverable += 1
                if combo not in seen:
                    missing += 1
    return Checked(missing == 0 and bad == 0, missing, bad, coverable)
