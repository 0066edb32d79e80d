"""The model as the coverage module sees it: rows -> value indices, the
user's predicates called directly, and an exact feasibility search of its own
(backtracking with forward checking over the constrained axes, one connected
group of axes at a time), independent of :mod:`pairwise_param.constraints`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.coverage.types import Combination, OutOfModel, Violation
from pairwise_param.errors import InvalidArgument, InvalidConstraint
from pairwise_param.model import Model
from pairwise_param.values import freeze, loose_eq, value_key

__all__ = ["MISSING", "View", "is_param_set"]

#: a row's "no value here" (a dict row that lacks an argument)
MISSING: Any = object()


@dataclass(frozen=True)
class _Rule:
    label: str
    predicate: Any
    params: tuple[str, ...]
    bindings: tuple[tuple[int, int | None], ...]
    scope: tuple[int, ...]


class View:
    """Names, value lookup and predicates of one model, plus the exact
    feasibility search.  Built once per :func:`measure` call."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.axes = model.axes
        self.n = len(model.axes)
        self.sizes = tuple(len(a.values) for a in model.axes)
        self.binding: dict[str, tuple[int, int | None]] = {}
        for i, axis in enumerate(model.axes):
            if len(axis.names) > 1:
                for j, name in enumerate(axis.names):
                    self.binding[name] = (i, j)
            else:
                self.binding[axis.name] = (i, None)
        self.argnames = tuple(self.binding)
        self.rules: list[_Rule] = []
        for c in model.constraints:
            bindings = tuple(self._bind(p) for p in c.params)
            scope = tuple(sorted({a for a, _ in bindings}))
            self.rules.append(_Rule(c.label, c.predicate, tuple(c.params), bindings, scope))
        self.by_axis: list[list[int]] = [[] for _ in range(self.n)]
        for k, r in enumerate(self.rules):
            for a in r.scope:
                self.by_axis[a].append(k)
        # Connected groups of constrained axes (axes sharing a rule).
        group_of: dict[int, int] = {}
        groups: list[set[int]] = []
        for r in self.rules:
            hit = sorted({group_of[a] for a in r.scope if a in group_of})
            if hit:
                keep = hit[0]
                for g in hit[1:]:
                    groups[keep] |= groups[g]
                    for a in groups[g]:
                        group_of[a] = keep
                    groups[g] = set()
            else:
                keep = len(groups)
                groups.append(set())
            groups[keep].update(r.scope)
            for a in r.scope:
                group_of[a] = keep
        self.groups: tuple[tuple[int, ...], ...] = tuple(
            sorted(tuple(sorted(g)) for g in groups if g)
        )
        self.group_of: dict[int, int] = {a: gi for gi, g in enumerate(self.groups) for a in g}
        self.neighbors: list[frozenset[int]] = [
            frozenset(b for k in self.by_axis[a] for b in self.rules[k].scope if b != a) for a in range(self.n)
        ]
        self._allowed: dict[tuple[int, tuple[int, ...]], bool] = {}
        self._memo: dict[tuple[int, tuple[tuple[int, int], ...]], bool] = {}
        # Valid assignments found so far, per group: (axis, value) -> bitmask of
        # the witnesses holding it.
        self._witness_masks: list[dict[tuple[int, int], int]] = [{} for _ in self.groups]
        self._witness_count: list[int] = [0 for _ in self.groups]

    def _bind(self, name: str) -> tuple[int, int | None]:
        if name in self.binding:
            return self.binding[name]
        for i, axis in enumerate(self.axes):  # a grouped axis by its own name
            if axis.name == name:
                return (i, None)
        raise InvalidConstraint(f"constraint parameter {name!r} names no axis", where=self.model.where)

    # -- values ----------------------------------------------------------------
    def lookup(self, axis: int, value: Any) -> int | None:
        """Index of ``value`` on ``axis`` by the model's notion of identity
        (type-aware: ``1`` and ``True`` differ), or None."""
        ax = self.axes[axis]
        try:
            return ax._index[value_key(value)]
        except KeyError:
            pass
        except TypeError:  # unhashable: a hand-written list for a tuple value
            frozen = freeze(value)
            if frozen is not value:
                return self.lookup(axis, frozen)
        matches = [i for i, v in enumerate(ax.values) if loose_eq(v, value)]
        return matches[0] if len(matches) == 1 else None

    # -- predicates ------------------------------------------------------------
    def allowed(self, k: int, combo: tuple[int, ...]) -> bool:
        """Rule ``k`` on value indices ``combo`` over its scope (memoised)."""
        key = (k, combo)
        hit = self._allowed.get(key)
        if hit is None:
            rule = self.rules[k]
            by_axis = dict(zip(rule.scope, combo))
            kwargs = {}
            for p, (a, j) in zip(rule.params, rule.bindings):
                v = self.axes[a].values[by_axis[a]]
                kwargs[p] = v if j is None else v[j]
            try:
                hit = bool(rule.predicate(**kwargs))
            except Exception as exc:  # a user predicate failing: re-raised as ours
                shown = ", ".join(f"{p}={v!r}" for p, v in kwargs.items())
                raise InvalidConstraint(
                    f"constraint {rule.label} raised {type(exc).__name__}: {exc} when called with {shown}",
                    where=self.model.where,
                ) from exc
            self._allowed[key] = hit
        return hit

    def _ok(self, axis: int, value: int, work: Mapping[int, int]) -> bool:
        for k in self.by_axis[axis]:
            scope = self.rules[k].scope
            combo = []
            for a in scope:
                if a == axis:
                    combo.append(value)
                elif a in work:
                    combo.append(work[a])
                else:
                    break
            else:
                if not self.allowed(k, tuple(combo)):
                    return False
        return True

    # -- exact feasibility ---------------------------------------------------------
    def feasible(self, assignment: Mapping[int, int]) -> bool:
        """Can the assignment (axis -> value index) be completed to a row that
        satisfies every constraint?  Exact: each group of connected constrained
        axes is searched.  Every solution found is kept as a witness, so later
        queries that a known valid assignment already contains are answered
        without a search (most queries, as most tuples are feasible)."""
        for gi, group in enumerate(self.groups):
            part = tuple((a, assignment[a]) for a in group if a in assignment)
            key = (gi, part)
            hit = self._memo.get(key)
            if hit is None:
                hit = self._witnessed(gi, part)
                if not hit:
                    solution = self._search_group(gi, dict(part))
                    hit = solution is not None
                    if solution is not None:
                        self.add_witness(gi, solution)
                self._memo[key] = hit
            if not hit:
                return False
        return True

    def add_witness(self, gi: int, solution: Mapping[int, int]) -> None:
        """Record a valid assignment of group ``gi`` (every axis of it)."""
        bit = 1 << self._witness_count[gi]
        self._witness_count[gi] += 1
        masks = self._witness_masks[gi]
        for a in self.groups[gi]:
            item = (a, solution[a])
            masks[item] = masks.get(item, 0) | bit

    def witness_rows(self, rows: Iterable[Sequence[int | None]]) -> None:
        """Record the groups' parts of rows known to break no constraint."""
        for row in rows:
            for gi, group in enumerate(self.groups):
                if all(row[a] is not None for a in group):
                    self.add_witness(gi, {a: row[a] for a in group})  # type: ignore[misc]

    def _witnessed(self, gi: int, part: tuple[tuple[int, int], ...]) -> bool:
        if not self._witness_count[gi]:
            return False
        masks = self._witness_masks[gi]
        common = -1
        for item in part:
            common &= masks.get(item, 0)
            if not common:
                return False
        return True

    def _search_group(self, gi: int, fixed: dict[int, int]) -> dict[int, int] | None:
        for a, value in fixed.items():
            if not self._ok(a, value, {b: v for b, v in fixed.items() if b != a}):
                return None
        domains: dict[int, list[int]] = {}
        for a in self.groups[gi]:
            if a not in fixed:
                dom = [v for v in range(self.sizes[a]) if self._ok(a, v, fixed)]
                if not dom:
                    return None
                domains[a] = dom
        return self._backtrack(gi, fixed, domains)

    def _backtrack(self, gi: int, work: dict[int, int], domains: dict[int, list[int]]) -> dict[int, int] | None:
        """Forward checking: after each assignment only the neighbours' domains
        are filtered.  Values seen least in earlier witnesses are tried first,
        so witnesses differ and answer more later queries."""
        if not domains:
            return dict(work)
        axis = min(domains, key=lambda a: (len(domains[a]), a))
        values = domains[axis]
        if len(values) > 1:
            masks = self._witness_masks[gi]
            values = sorted(values, key=lambda v: masks.get((axis, v), 0).bit_count())
        near = self.neighbors[axis]
        for v in values:
            work[axis] = v
            pruned: dict[int, list[int]] | None = {}
            for b, dom in domains.items():
                if b == axis:
                    continue
                if b in near:
                    dom = [x for x in dom if self._ok(b, x, work)]
                    if not dom:
                        pruned = None
                        break
                pruned[b] = dom  # type: ignore[index]
            found = self._backtrack(gi, work, pruned) if pruned is not None else None
            del work[axis]
            if found is not None:
                return found
        return None

    # -- rows ------------------------------------------------------------------
    def read(self, pos: int, row: Any) -> tuple[list[int | None], dict[str, Any], list[OutOfModel]]:
        """Row -> (value index per axis or None, flattened argument values,
        cells outside the model)."""
        mapping = self._as_mapping(pos, row)
        cells: list[int | None] = [None] * self.n
        args: dict[str, Any] = {}
        problems: list[OutOfModel] = []
        used: set[str] = set()
        for i, axis in enumerate(self.axes):
            if len(axis.names) > 1:
                if axis.name in mapping:
                    used.add(axis.name)
                    value = mapping[axis.name]
                    if isinstance(value, (tuple, list)) and len(value) == len(axis.names):
                        args.update(zip(axis.names, value))
                        for name, part in zip(axis.names, value):
                            # given both ways: fine when they agree
                            if name in mapping and loose_eq(mapping[name], part):
                                used.add(name)
                else:
                    parts = []
                    for name in axis.names:
                        if name in mapping:
                            used.add(name)
                            args[name] = mapping[name]
                            parts.append(mapping[name])
                        else:
                            problems.append(OutOfModel(pos, name, None, "missing"))
                    if len(parts) != len(axis.names):
                        continue
                    value = tuple(parts)
            else:
                if axis.name not in mapping:
                    problems.append(OutOfModel(pos, axis.name, None, "missing"))
                    continue
                used.add(axis.name)
                value = mapping[axis.name]
                args[axis.name] = value
            idx = self.lookup(i, value)
            if idx is None:
                problems.append(OutOfModel(pos, axis.name, value, "value"))
            else:
                cells[i] = idx
        for key in mapping:
            if key not in used:
                problems.append(OutOfModel(pos, str(key), mapping[key], "argument"))
        return cells, args, problems

    def _as_mapping(self, pos: int, row: Any) -> Mapping[Any, Any]:
        if isinstance(row, Mapping):
            return row
        if is_param_set(row):
            values = tuple(row.values)
            if len(self.argnames) == 1 and len(values) == 1:
                return {self.argnames[0]: values[0]}
            row = values
        elif len(self.argnames) == 1:
            # pytest's convention: a single argument's rows are bare values.
            if type(row) is tuple and len(row) == 1 and self.lookup(0, row) is None:
                row = row[0]
            return {self.argnames[0]: row}
        if not isinstance(row, (tuple, list)):
            raise InvalidArgument(
                f"row {pos} is {type(row).__name__} {row!r}: rows must be mappings of argument "
                f"name -> value or sequences of values in argument order ({', '.join(self.argnames)})",
                where=self.model.where,
            )
        if len(row) == len(self.argnames):
            return dict(zip(self.argnames, row))
        if len(row) == self.n:
            return {a.name: v for a, v in zip(self.axes, row)}
        raise InvalidArgument(
            f"row {pos} has {len(row)} values, expected {len(self.argnames)} (one per argument: "
            f"{', '.join(self.argnames)})"
            + (f" or {self.n} (one per axis)" if self.n != len(self.argnames) else ""),
            where=self.model.where,
        )

    def check(self, pos: int, cells: Sequence[int | None], args: Mapping[str, Any]) -> list[Violation]:
        """Constraints the row breaks (those whose arguments it all has)."""
        out: list[Violation] = []
        for k, rule in enumerate(self.rules):
            if all(cells[a] is not None for a in rule.scope):
                if not self.allowed(k, tuple(cells[a] for a in rule.scope)):  # type: ignore[misc]
                    kwargs = self._kwargs(rule, cells)
                    out.append(Violation(pos, rule.label, tuple(kwargs.items())))
                continue
            if not all(p in args for p in rule.params):
                continue
            kwargs = {p: args[p] for p in rule.params}
            try:
                if not rule.predicate(**kwargs):
                    out.append(Violation(pos, rule.label, tuple(kwargs.items())))
            except Exception as exc:  # noqa: BLE001 - values outside the model may not suit it
                out.append(Violation(pos, rule.label, tuple(kwargs.items()), f"{type(exc).__name__}: {exc}"))
        return out

    def _kwargs(self, rule: _Rule, cells: Sequence[int | None]) -> dict[str, Any]:
        out = {}
        for p, (a, j) in zip(rule.params, rule.bindings):
            v = self.axes[a].values[cells[a]]  # type: ignore[index]
            out[p] = v if j is None else v[j]
        return out

    def combinations(
        self, scope: tuple[int, ...], combos: Iterable[tuple[int, ...]]
    ) -> Iterator[Combination]:
        names = tuple(self.axes[a].name for a in scope)
        values = [self.axes[a].values for a in scope]
        get = tuple.__getitem__
        for combo in combos:
            yield Combination(names, tuple(map(get, values, combo)), (scope, combo))



def is_param_set(row: Any) -> bool:
    # pytest.param(...) objects without importing pytest.
    return (
        type(row).__name__ == "ParameterSet"
        and hasattr(row, "values")
        and hasattr(row, "marks")
        and isinstance(row.values, (tuple, list))
    )


