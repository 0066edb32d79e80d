"""Exact feasibility over value indices: exclusions and the completion test.

The engine-facing side of constraints (:mod:`pairwise_param.constraints`
turns predicates into these): an :class:`Exclusion` is a set of forbidden
value-index tuples over a scope of axes, and :class:`Feasibility` answers
exactly whether a partial row can be completed to a row that breaks none, so
the engine never builds a dead-end row and can tell coverable t-tuples from
infeasible ones.  The bounded backtracking search gives up after
:data:`MAX_SEARCH_NODES` steps; the optional SAT back end (python-sat) then
answers the same yes/no question exactly, or the model is refused as too hard
(:func:`too_hard`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pairwise_param.errors import ConstraintsTooHard

__all__ = ["Exclusion", "Feasibility", "merge_exclusions", "sat_available", "too_hard"]

#: Search work (exclusion look-ups of value checks, counted before they run) one
#: feasibility question may take before the model is refused as too hard
#: (:class:`ConstraintsTooHard`: a bounded-time failure, a few seconds,
#: instead of an exponential wait: a 12-axis pigeonhole model did not finish
#: in 5 minutes).  Real kernel models need a few thousand.
MAX_SEARCH_NODES = 2_000_000


#: Conflicts the optional SAT solver (python-sat's CaDiCaL, the ``solver``
#: extra) may spend on one question once :data:`MAX_SEARCH_NODES` ran out: a
#: budget in conflicts, not seconds, so the answer (and thus the rows) is the
#: same on every machine.  Measured (benchmarks/solvers.py, 2-core sandbox):
#: a 9-axis pigeonhole model needs 38,000 conflicts (1.7 s; the search gives
#: up after 3 s), 10 axes 271,000 (23 s), so 100,000 decides the first and
#: refuses the second and larger ones in a few seconds.
MAX_SAT_CONFLICTS = 100_000


class _TooHard(Exception):
    """Internal: the search step budget ran out."""


def sat_available() -> bool:
    """Is the optional SAT back end (python-sat) importable?"""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


def too_hard(axes: str, where: str | None = None) -> ConstraintsTooHard:
    """The one message of a model whose constraints exceed the search budget."""
    if sat_available():
        tried = (
            f"took more than {MAX_SEARCH_NODES:,} search steps and then more than "
            f"{MAX_SAT_CONFLICTS:,} SAT solver conflicts"
        )
        more = ""
    else:
        tried = f"took more than {MAX_SEARCH_NODES:,} search steps"
        more = "; or install the SAT back end (pip install 'pairwise-param[solver]'), which decides such models exactly"
    return ConstraintsTooHard(
        f"deciding whether the constraints over axes {axes} can all hold {tried}; simplify them: "
        "fewer axes per group of linked constraints, fewer values, or one constraint instead of "
        f"many pairwise ones (all-different over many axes is a pigeonhole problem){more}",
        where=where,
    )


class _SatComponent:
    """One linked group of axes as CNF on an incremental SAT solver
    (python-sat's CaDiCaL): a boolean per (axis, value), exactly one per
    axis, one clause per forbidden tuple; a partial row is asked as
    assumptions.  Used only when the bounded search gives up: it answers the
    same yes/no question exactly, so the rows do not depend on which answered."""

    def __init__(self, comp: tuple[int, ...], sizes: Sequence[int], exclusions: Sequence[Exclusion]) -> None:
        from pysat.solvers import Solver

        self.var: dict[tuple[int, int], int] = {}
        clauses: list[list[int]] = []
        for a in comp:
            vs = []
            for v in range(sizes[a]):
                self.var[(a, v)] = len(self.var) + 1
                vs.append(self.var[(a, v)])
            clauses.append(vs)
            clauses.extend([-p, -q] for p, q in itertools.combinations(vs, 2))
        members = set(comp)
        for ex in exclusions:
            if ex.scope[0] in members:
                clauses.extend([-self.var[(a, v)] for a, v in zip(ex.scope, combo)] for combo in sorted(ex.forbidden))
        self.solver = Solver(name="cadical153", bootstrap_with=clauses)

    def completable(self, row: Sequence[int | None], comp: tuple[int, ...]) -> bool | None:
        """True / False, or None when the conflict budget ran out."""
        assumptions = [self.var[(a, row[a])] for a in comp if row[a] is not None]  # type: ignore[index]
        self.solver.conf_budget(MAX_SAT_CONFLICTS)
        answer = self.solver.solve_limited(assumptions=assumptions)
        return None if answer is None else bool(answer)


#: Attribute of a predicate compiled from a declarative rule
#: (:mod:`pairwise_param.language`): the axis names it reads, in order.  Axis
#: names need not be Python identifiers (``"bias-mode"``, ``"my axis"``,
#: ``"if"``), so such predicates carry their names here instead of in a


@dataclass(frozen=True)
class Exclusion:
    """Forbidden value-index combinations over a scope of axes (sorted indices).

    This is the engine-facing form of one or more constraints with the same
    scope: PICT calls these exclusions.
    """

    scope: tuple[int, ...]
    forbidden: frozenset[tuple[int, ...]]

    def canonical(self) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
        """Hash-order-free form used for fingerprints."""
        return self.scope, tuple(sorted(self.forbidden))


def merge_exclusions(items: Iterable[tuple[tuple[int, ...], frozenset[tuple[int, ...]]]]) -> tuple[Exclusion, ...]:
    """Merge forbidden sets with the same scope; drop scopes that forbid nothing."""
    merged: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for scope, forbidden in items:
        merged.setdefault(scope, set()).update(forbidden)
    return tuple(
        Exclusion(scope, frozenset(f)) for scope, f in sorted(merged.items()) if f
    )



class Feasibility:
    """Exact completion test for partial rows under exclusions.

    Only axes that appear in some exclusion matter; they split into connected
    components (axes linked by a shared exclusion).  A partial row is
    completable iff every component has a consistent completion, found by
    backtracking with forward checking.  Answers are memoised per component and
    restricted assignment, so repeated queries from the engine are cheap.
    """

    def __init__(self, sizes: Sequence[int], exclusions: Sequence[Exclusion]) -> None:
        self.sizes = tuple(sizes)
        self.exclusions = tuple(exclusions)
        n = len(self.sizes)
        self.by_axis: list[list[int]] = [[] for _ in range(n)]
        for k, ex in enumerate(self.exclusions):
            for a in ex.scope:
                self.by_axis[a].append(k)
        # Union-find over constrained axes.
        parent = list(range(n))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for ex in self.exclusions:
            for a in ex.scope[1:]:
                ra, rb = find(ex.scope[0]), find(a)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
        groups: dict[int, list[int]] = {}
        for a in range(n):
            if self.by_axis[a]:
                groups.setdefault(find(a), []).append(a)
        self.components: tuple[tuple[int, ...], ...] = tuple(
            tuple(g) for _, g in sorted(groups.items())
        )
        self.component_of: dict[int, int] = {
            a: c for c, comp in enumerate(self.components) for a in comp
        }
        self._memo: dict[tuple[int, tuple[int | None, ...]], bool] = {}
        self._nodes = 0
        self._sat: dict[tuple[int, ...], _SatComponent] = {}

    @property
    def constrained(self) -> bool:
        return bool(self.exclusions)

    def violates(self, row: Sequence[int | None]) -> int | None:
        """Index of an exclusion that the assigned cells of ``row`` break, or None."""
        for k, ex in enumerate(self.exclusions):
            key = []
            for a in ex.scope:
                v = row[a]
                if v is None:
                    break
                key.append(v)
            else:
                if tuple(key) in ex.forbidden:
                    return k
        return None

    def completable(self, row: Sequence[int | None]) -> bool:
        """Can the assigned cells of ``row`` (``None`` = free) be completed to a
        row that breaks no exclusion?"""
        if not self.exclusions:
            return True
        touched = {self.component_of[a] for a, v in enumerate(row) if v is not None and a in self.component_of}
        if not touched:
            touched = set(range(len(self.components)))
        return all(self.completable_component(c, row) for c in sorted(touched))

    def satisfiable(self) -> bool:
        """Is there any valid row at all?"""
        empty: list[int | None] = [None] * len(self.sizes)
        return all(self.completable_component(c, empty) for c in range(len(self.components)))

    def completable_component(self, c: int, row: Sequence[int | None]) -> bool:
        """Can component ``c``'s axes be completed consistently with ``row``? (memoised)"""
        comp = self.components[c]
        key = (c, tuple(-1 if row[a] is None else row[a] for a in comp))
        hit = self._memo.get(key)
        if hit is None:
            hit = self._solve(comp, row)
            self._memo[key] = hit
        return hit

    def complete(self, row: Sequence[int | None], prefer: Sequence[int] | None = None) -> list[int] | None:
        """A full valid row extending ``row`` (free cells take the first
        consistent value, or ``prefer[a]`` first when given), or None."""
        work: list[int | None] = list(row)
        for a in range(len(work)):
            if work[a] is not None:
                continue
            order = list(range(self.sizes[a]))
            if prefer is not None:
                p = prefer[a]
                order.remove(p)
                order.insert(0, p)
            for v in order:
                work[a] = v
                if self.violates(work) is None and self.completable(work):
                    break
            else:
                return None
        return [v for v in work if v is not None] if all(v is not None for v in work) else None

    # -- the search ------------------------------------------------------------
    def _solve(self, comp: tuple[int, ...], row: Sequence[int | None]) -> bool:
        work: dict[int, int] = {a: row[a] for a in comp if row[a] is not None}  # type: ignore[misc]
        # Check the assigned part first.
        for k in {k for a in work for k in self.by_axis[a]}:
            ex = self.exclusions[k]
            if all(a in work for a in ex.scope) and tuple(work[a] for a in ex.scope) in ex.forbidden:
                return False
        domains: dict[int, list[int]] = {}
        for a in comp:
            if a in work:
                continue
            dom = [v for v in range(self.sizes[a]) if self._consistent(a, v, work)]
            if not dom:
                return False
            domains[a] = dom
        if comp in self._sat:  # the search already gave up on this group once: ask the solver
            answer = self._sat[comp].completable(row, comp)
            if answer is None:
                raise too_hard(", ".join(f"#{a}" for a in comp))
            return answer
        self._nodes = 0
        try:
            return self._search(work, domains)
        except _TooHard:
            pass
        answer = self._sat_answer(comp, row)
        if answer is None:
            raise too_hard(", ".join(f"#{a}" for a in comp))
        return answer

    def _sat_answer(self, comp: tuple[int, ...], row: Sequence[int | None]) -> bool | None:
        """The SAT back end's exact answer, or None (not installed, or its
        conflict budget ran out)."""
        if not sat_available():
            return None
        solver = self._sat.get(comp)
        if solver is None:
            solver = self._sat[comp] = _SatComponent(comp, self.sizes, self.exclusions)
        return solver.completable(row, comp)

    def _consistent(self, axis: int, value: int, work: Mapping[int, int]) -> bool:
        for k in self.by_axis[axis]:
            ex = self.exclusions[k]
            key = []
            for a in ex.scope:
                if a == axis:
                    key.append(value)
                elif a in work:
                    key.append(work[a])
                else:
                    break
            else:
                if tuple(key) in ex.forbidden:
                    return False
        return True

    def _search(self, work: dict[int, int], domains: dict[int, list[int]]) -> bool:
        if not domains:
            return True
        axis = min(domains, key=lambda a: (len(domains[a]), a))
        rest = {a: d for a, d in domains.items() if a != axis}
        # work, counted before it runs (an upper bound): exclusion look-ups of the value checks below
        self._nodes += 1 + len(domains[axis]) * sum(len(d) * len(self.by_axis[a]) for a, d in rest.items())
        if self._nodes > MAX_SEARCH_NODES:
            raise _TooHard
        for value in domains[axis]:
            work[axis] = value
            pruned: dict[int, list[int]] = {}
            ok = True
            for a, dom in rest.items():
                nd = [v for v in dom if self._consistent(a, v, work)]
                if not nd:
                    ok = False
                    break
                pruned[a] = nd
            if ok and self._search(work, pruned):
                del work[axis]
                return True
            del work[axis]
        return False
