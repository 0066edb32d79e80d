"""t-way coverage of ANY list of rows, independent of the engine.

:func:`measure` takes a :class:`~pairwise_param.model.Model` and a list of rows
(ours from :func:`~pairwise_param.cover`, or hand-written ``parametrize``
lists) and reports, per strength t, how many t-tuples of values could be
covered, how many are, which are missing, which no valid row can contain,
which rows break a constraint or fall outside the model, and how coverage
grows row after row.

This module checks the engine, so it shares no code with it: it reads only
the model's axes and values and calls the user's predicates itself.  Which
tuples are infeasible is decided here by an own exact search (backtracking
with forward checking over the constrained axes, one connected group of axes
at a time), not by :class:`pairwise_param.constraints.Feasibility`.

Rows may be given as

* mappings by argument name (grouped axes flattened: ``{"n": 1, "k": 2, ...}``,
  as ``cover()`` returns them), or by axis name (``{"n,k,m": (1, 2, 3)}``);
* sequences of values in argument order (flattened, as ``pytest.param`` and
  ``parametrize`` take them) or in axis order (grouped axes as tuples);
* ``pytest.param(...)`` objects;
* bare values when the model has a single argument (pytest's own convention).

Decisions (also in ``docs/model.md``):

* A row breaking a constraint is listed in :attr:`CoverageReport.violations`
  (with the constraint's label) and does not count toward coverage (it is not a
  valid test; pass ``count_invalid=True`` to count it anyway).
* A cell outside the model (unknown value, unknown argument, missing argument)
  is listed in :attr:`CoverageReport.out_of_model` (``unknown="raise"`` raises
  :class:`~pairwise_param.errors.RowOutsideModel` instead); the row's other
  cells still count, since they do test their combinations.
* A strength larger than the number of axes gives a level marked
  ``applicable=False`` with zero counts instead of an error.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pairwise_param.errors import InvalidArgument, InvalidConstraint, RowOutsideModel
from pairwise_param.model import Model, _value_key, value_label

__all__ = [
    "Combination",
    "CoverageReport",
    "LevelCoverage",
    "OutOfModel",
    "Violation",
    "audit_rows",
    "extendable",
    "measure",
    "model_from_rows",
]

_MISSING: Any = object()


# -- report types -------------------------------------------------------------
@dataclass(frozen=True)
class Combination:
    """One t-tuple: axis names (grouped axes as ``"n,k,m"``) and their values.

    ``index`` is the same tuple as ``(axis indices, value indices)``, the form
    the engine uses (``CoveringArray.index_rows``).
    """

    axes: tuple[str, ...]
    values: tuple[Any, ...]
    index: tuple[tuple[int, ...], tuple[int, ...]]

    def as_dict(self) -> dict[str, Any]:
        return dict(zip(self.axes, self.values))

    def __str__(self) -> str:
        return "{" + ", ".join(f"{a}={value_label(v)}" for a, v in zip(self.axes, self.values)) + "}"


@dataclass(frozen=True)
class Violation:
    """Row ``row`` (0-based position in the input) breaks ``constraint``.

    ``arguments`` are the values the predicate was called with; ``error`` is
    set when the predicate raised instead of answering (only possible for
    values outside the model).
    """

    row: int
    constraint: str
    arguments: tuple[tuple[str, Any], ...]
    error: str | None = None

    def __str__(self) -> str:
        args = ", ".join(f"{k}={value_label(v)}" for k, v in self.arguments)
        what = f"raised {self.error}" if self.error else "is false"
        return f"row {self.row}: constraint {self.constraint} {what} for {args}"


@dataclass(frozen=True)
class OutOfModel:
    """A cell of row ``row`` that the model cannot place.

    ``kind`` is ``"value"`` (the axis has no such value), ``"argument"`` (the
    model has no such argument) or ``"missing"`` (the row lacks the argument;
    ``value`` is then ``None``).
    """

    row: int
    name: str
    value: Any
    kind: Literal["value", "argument", "missing"]

    def __str__(self) -> str:
        if self.kind == "missing":
            return f"row {self.row}: no value for {self.name!r}"
        if self.kind == "argument":
            return f"row {self.row}: unknown argument {self.name!r}={value_label(self.value)}"
        return f"row {self.row}: {self.name!r} has no value {value_label(self.value)}"


@dataclass(frozen=True)
class LevelCoverage:
    """Coverage of one set of interactions: all scopes of ``strength`` axes,
    or (``strength=None``) the model's own mixed-strength interactions.

    ``total`` = ``coverable`` + number of infeasible tuples; ``covered`` counts
    coverable tuples present in some counted row; ``cumulative[i]`` is
    ``covered`` after the first ``i + 1`` rows (non-decreasing, ends at
    ``covered``).
    """

    name: str
    strength: int | None
    applicable: bool
    scope_count: int
    total: int
    coverable: int
    covered: int
    missing: tuple[Combination, ...]
    infeasible: tuple[Combination, ...]
    cumulative: tuple[int, ...]

    @property
    def percent(self) -> float | None:
        """Covered share of the coverable tuples in percent (100.0 when there
        is nothing to cover); ``None`` when the level is not applicable."""
        if not self.applicable:
            return None
        return 100.0 if self.coverable == 0 else 100.0 * self.covered / self.coverable

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def curve(self) -> tuple[float, ...]:
        """Percent covered after each row (for coverage-vs-rows plots)."""
        if not self.applicable:
            return ()
        if self.coverable == 0:
            return tuple(100.0 for _ in self.cumulative)
        return tuple(100.0 * c / self.coverable for c in self.cumulative)

    def to_dict(self, limit: int | None = None) -> dict[str, Any]:
        return {
            "name": self.name,
            "strength": self.strength,
            "applicable": self.applicable,
            "scopes": self.scope_count,
            "total": self.total,
            "coverable": self.coverable,
            "covered": self.covered,
            "percent": self.percent,
            "missing_count": len(self.missing),
            "missing": [_combo_json(c) for c in self.missing[:limit]],
            "infeasible_count": len(self.infeasible),
            "infeasible": [_combo_json(c) for c in self.infeasible[:limit]],
            "cumulative": list(self.cumulative),
        }


@dataclass(frozen=True)
class CoverageReport:
    """What :func:`measure` found.

    ``overall`` is the model's own interactions (its strength plus any
    sub-models); ``levels`` the strengths asked for (the same object as
    ``overall`` where they coincide).  ``counted`` lists the positions of the
    rows that counted toward coverage.
    """

    model: Model = field(compare=False, repr=False)
    rows: int
    overall: LevelCoverage
    levels: tuple[LevelCoverage, ...]
    violations: tuple[Violation, ...]
    out_of_model: tuple[OutOfModel, ...]
    counted: tuple[int, ...]

    @property
    def percent(self) -> float:
        """Percent of the model's coverable interactions covered."""
        p = self.overall.percent
        assert p is not None  # the model's own strength is always applicable
        return p

    @property
    def complete(self) -> bool:
        """Every coverable tuple of the model's interactions is covered."""
        return self.overall.complete

    @property
    def ok(self) -> bool:
        """Complete, and no row breaks a constraint or leaves the model."""
        return self.complete and not self.violations and not self.out_of_model

    @property
    def curve(self) -> tuple[float, ...]:
        """``overall`` percent after each row."""
        return self.overall.curve

    def level(self, strength: int) -> LevelCoverage:
        """The level of uniform strength ``strength`` (must have been asked for)."""
        for lv in self.levels:
            if lv.strength == strength:
                return lv
        if self.overall.strength == strength:
            return self.overall
        asked = ", ".join(str(lv.strength) for lv in self.levels)
        raise InvalidArgument(
            f"strength={strength!r} was not measured (measured: {asked}); pass strengths=[...] to measure()"
        )

    def to_dict(self, limit: int | None = None) -> dict[str, Any]:
        """A JSON-able dict (values as JSON scalars or their readable labels);
        ``limit`` caps each listed collection (the counts stay exact)."""
        m = self.model
        return {
            "model": {
                "axes": {a.name: [_json_value(v) for v in a.values] for a in m.axes},
                "strength": m.strength,
                "sub_models": [
                    {"axes": [m.axes[i].name for i in s.axes], "strength": s.strength} for s in m.sub_models
                ],
                "constraints": [c.label for c in m.constraints],
            },
            "rows": self.rows,
            "counted_rows": len(self.counted),
            "percent": self.percent,
            "complete": self.complete,
            "ok": self.ok,
            "overall": self.overall.to_dict(limit),
            "levels": [lv.to_dict(limit) for lv in self.levels],
            "violations": [
                {
                    "row": v.row,
                    "constraint": v.constraint,
                    "arguments": {k: _json_value(x) for k, x in v.arguments},
                    "error": v.error,
                }
                for v in self.violations[:limit]
            ],
            "out_of_model": [
                {"row": o.row, "name": o.name, "value": _json_value(o.value), "kind": o.kind}
                for o in self.out_of_model[:limit]
            ],
        }

    def summary(self) -> str:
        """A few readable lines (for the CLI and assertion messages)."""
        lines = [f"{self.rows} rows ({len(self.counted)} counted)"]
        seen: list[LevelCoverage] = []
        for lv in (*self.levels, self.overall):
            if any(lv is s for s in seen):
                continue
            seen.append(lv)
            if not lv.applicable:
                n = len(self.model.axes)
                lines.append(f"{lv.name}: not applicable ({n} ax{'i' if n == 1 else 'e'}s)")
                continue
            line = f"{lv.name}: {lv.covered}/{lv.coverable} covered ({lv.percent:.1f}%)"
            if lv.infeasible:
                line += f", {len(lv.infeasible)} infeasible"
            if lv.missing:
                shown = ", ".join(str(c) for c in lv.missing[:5])
                more = len(lv.missing) - 5
                line += f"; missing {shown}" + (f" (+{more} more)" if more > 0 else "")
            lines.append(line)
        lines.extend(str(v) for v in self.violations[:10])
        lines.extend(str(o) for o in self.out_of_model[:10])
        return "\n".join(lines)


def _json_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float) and math.isfinite(v):
        return v
    if type(v) is tuple:
        return [_json_value(x) for x in v]
    return value_label(v)


def _combo_json(c: Combination) -> dict[str, Any]:
    return {a: _json_value(v) for a, v in zip(c.axes, c.values)}


# -- the model as this module sees it -----------------------------------------
@dataclass(frozen=True)
class _Rule:
    label: str
    predicate: Any
    params: tuple[str, ...]
    bindings: tuple[tuple[int, int | None], ...]
    scope: tuple[int, ...]


class _View:
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
            return ax._index[_value_key(value)]
        except KeyError:
            pass
        except TypeError:  # unhashable: a hand-written list for a tuple value
            frozen = _freeze(value)
            if frozen is not value:
                return self.lookup(axis, frozen)
        matches = [i for i, v in enumerate(ax.values) if _loose_eq(v, value)]
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
                            if name in mapping and _loose_eq(mapping[name], part):
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
        if _is_param_set(row):
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


def _is_param_set(row: Any) -> bool:
    # pytest.param(...) objects without importing pytest.
    return (
        type(row).__name__ == "ParameterSet"
        and hasattr(row, "values")
        and hasattr(row, "marks")
        and isinstance(row.values, (tuple, list))
    )


def _freeze(value: Any) -> Any:
    """Lists -> tuples, dicts -> tuples of items, sets -> frozensets (recursively);
    other values unchanged."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, tuple):
        frozen = tuple(_freeze(v) for v in value)
        return value if all(a is b for a, b in zip(frozen, value)) else frozen
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, set):
        return frozenset(value)
    return value


def _loose_eq(a: Any, b: Any) -> bool:
    """Equality across types (``numpy.int64(2) == 2``) but never bool vs non-bool."""
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an odd __eq__ just means "not equal"
        return False


# -- measuring ----------------------------------------------------------------
def _strengths(strengths: int | Iterable[int] | None, default: int) -> tuple[int, ...]:
    if strengths is None:
        return (default,)
    if isinstance(strengths, int):
        items: tuple[Any, ...] = (strengths,)
    elif isinstance(strengths, (str, bytes)) or not isinstance(strengths, Iterable):
        raise InvalidArgument(f"strengths must be an int or a list of ints, got strengths={strengths!r}")
    else:
        items = tuple(strengths)
    out: list[int] = []
    for t in items:
        if isinstance(t, bool) or not isinstance(t, int) or t < 1:
            raise InvalidArgument(f"strengths must be ints >= 1, got {t!r}")
        if t not in out:
            out.append(t)
    if not out:
        raise InvalidArgument("strengths is empty; give at least one strength, e.g. strengths=[2]")
    return tuple(sorted(out))


class _Scopes:
    """Per-scope data shared by the levels: first counted row covering each
    value combination, and the infeasible combinations."""

    def __init__(self, view: _View, index_rows: Sequence[Sequence[int | None]], counted: Sequence[int]) -> None:
        self.view = view
        self.rows = index_rows
        self.counted = counted
        self._first: dict[tuple[int, ...], dict[tuple[int, ...], int]] = {}
        self._infeasible: dict[tuple[int, ...], set[tuple[int, ...]]] = {}

    def first(self, scope: tuple[int, ...]) -> dict[tuple[int, ...], int]:
        hit = self._first.get(scope)
        if hit is None:
            hit = {}
            for ri in self.counted:
                r = self.rows[ri]
                key = tuple(r[a] for a in scope)
                if key not in hit and None not in key:
                    hit[key] = ri  # type: ignore[index]
            self._first[scope] = hit
        return hit

    def infeasible(self, scope: tuple[int, ...]) -> set[tuple[int, ...]]:
        hit = self._infeasible.get(scope)
        if hit is None:
            view = self.view
            hit = set()
            pos = [i for i, a in enumerate(scope) if a in view.group_of]
            if pos:
                bad = []
                for sub in itertools.product(*(range(view.sizes[scope[i]]) for i in pos)):
                    if not view.feasible({scope[i]: v for i, v in zip(pos, sub)}):
                        bad.append(sub)
                if bad:
                    free = [i for i in range(len(scope)) if i not in pos]
                    for sub in bad:
                        for rest in itertools.product(*(range(view.sizes[scope[i]]) for i in free)):
                            combo = [0] * len(scope)
                            for i, v in zip(pos, sub):
                                combo[i] = v
                            for i, v in zip(free, rest):
                                combo[i] = v
                            hit.add(tuple(combo))
            self._infeasible[scope] = hit
        return hit

    def level(self, name: str, strength: int | None, scopes: Sequence[tuple[int, ...]]) -> LevelCoverage:
        view = self.view
        hist = [0] * len(self.rows)
        total = coverable = 0
        missing: list[Combination] = []
        infeasible: list[Combination] = []
        for scope in scopes:
            first = self.first(scope)
            bad = self.infeasible(scope)
            size = 1
            for a in scope:
                size *= view.sizes[a]
            total += size
            coverable += size - len(bad)
            for key, ri in first.items():
                if key not in bad:
                    hist[ri] += 1
            if len(first) - len(bad.intersection(first)) < size - len(bad):
                everything = itertools.product(*(range(view.sizes[a]) for a in scope))
                missing.extend(
                    view.combinations(scope, (c for c in everything if c not in first and c not in bad))
                )
            if bad:
                infeasible.extend(view.combinations(scope, sorted(bad)))
        cumulative = tuple(itertools.accumulate(hist))
        return LevelCoverage(
            name=name,
            strength=strength,
            applicable=True,
            scope_count=len(scopes),
            total=total,
            coverable=coverable,
            covered=cumulative[-1] if cumulative else 0,
            missing=tuple(missing),
            infeasible=tuple(infeasible),
            cumulative=cumulative,
        )


def _not_applicable(name: str, strength: int, rows: int) -> LevelCoverage:
    return LevelCoverage(name, strength, False, 0, 0, 0, 0, (), (), (0,) * rows)


def measure(
    model: Model,
    rows: Iterable[Any],
    *,
    strengths: int | Iterable[int] | None = None,
    count_invalid: bool = False,
    unknown: Literal["list", "raise"] = "list",
) -> CoverageReport:
    """Measure the t-way coverage of ``rows`` against ``model``.

    ``strengths``: the uniform strengths to report (an int or several; default
    the model's strength; 1..4 is the useful range, larger ones cost
    C(axes, t) * values^t); a strength above the number of axes gives a level
    with ``applicable=False``.  The model's own interactions (its strength plus
    sub-models) are always measured as ``report.overall``.

    ``count_invalid``: count rows that break a constraint toward coverage too.
    ``unknown``: ``"list"`` (default) reports cells outside the model in
    ``out_of_model``; ``"raise"`` raises :class:`RowOutsideModel` at the first.
    """
    if not isinstance(model, Model):
        raise InvalidArgument(
            f"measure() needs a pairwise_param.Model, got {type(model).__name__}; "
            "build one with Model(axes, ...) or model_from_rows(rows)"
        )
    if unknown not in ("list", "raise"):
        raise InvalidArgument(f"unknown must be 'list' or 'raise', got unknown={unknown!r}")
    levels_t = _strengths(strengths, model.strength)
    view = _View(model)
    if isinstance(rows, (str, bytes, Mapping)):
        raise InvalidArgument(f"rows must be a list of rows, got {type(rows).__name__}", where=model.where)
    index_rows: list[list[int | None]] = []
    counted: list[int] = []
    violations: list[Violation] = []
    outside: list[OutOfModel] = []
    for pos, row in enumerate(rows):
        cells, args, problems = view.read(pos, row)
        if problems and unknown == "raise":
            raise RowOutsideModel(
                f"{problems[0]} (axes: {', '.join(f'{a.name}={list(map(value_label, a.values))}' for a in view.axes)})",
                where=model.where,
            )
        outside.extend(problems)
        broken = view.check(pos, cells, args)
        violations.extend(broken)
        index_rows.append(cells)
        if count_invalid or not broken:
            counted.append(pos)

    broken_rows = {v.row for v in violations}
    view.witness_rows(index_rows[i] for i in counted if i not in broken_rows)
    shared = _Scopes(view, index_rows, counted)
    n = view.n
    levels: list[LevelCoverage] = []
    for t in levels_t:
        if t > n:
            levels.append(_not_applicable(f"t={t}", t, len(index_rows)))
        else:
            levels.append(shared.level(f"t={t}", t, list(itertools.combinations(range(n), t))))
    if model.sub_models:
        scopes = set(itertools.combinations(range(n), model.strength))
        for sub in model.sub_models:
            scopes.update(itertools.combinations(sorted(sub.axes), sub.strength))
        label = f"t={model.strength} + " + " + ".join(
            "{" + ",".join(model.axes[a].name for a in sub.axes) + f"}}@{sub.strength}" for sub in model.sub_models
        )
        overall = shared.level(label, None, sorted(scopes, key=lambda s: (len(s), s)))
    else:
        found = [lv for lv in levels if lv.strength == model.strength]
        if found:
            overall = found[0]
        else:
            overall = shared.level(
                f"t={model.strength}", model.strength, list(itertools.combinations(range(n), model.strength))
            )
    return CoverageReport(
        model=model,
        rows=len(index_rows),
        overall=overall,
        levels=tuple(levels),
        violations=tuple(violations),
        out_of_model=tuple(outside),
        counted=tuple(counted),
    )


def extendable(model: Model, row: Any) -> bool:
    """Can the (partial) ``row`` be completed to a row satisfying every
    constraint?  Decided exactly by this module's own search.  Arguments or
    values outside the model raise :class:`RowOutsideModel`; absent arguments
    are free."""
    view = _View(model)
    cells, args, problems = view.read(0, row)
    problems = [p for p in problems if p.kind != "missing"]
    if problems:
        raise RowOutsideModel(str(problems[0]).replace("row 0: ", "", 1), where=model.where)
    # A grouped axis named by some of its parts: any tuple matching them will do.
    choices: list[list[tuple[int, int]]] = []
    for a, axis in enumerate(view.axes):
        if cells[a] is not None or len(axis.names) == 1:
            continue
        given = {j: args[name] for j, name in enumerate(axis.names) if name in args}
        if given:
            options = [
                (a, i) for i, v in enumerate(axis.values) if all(_loose_eq(v[j], x) for j, x in given.items())
            ]
            if not options:
                shown = ", ".join(f"{axis.names[j]}={value_label(x)}" for j, x in given.items())
                raise RowOutsideModel(f"{shown} matches no value of {axis.name!r}", where=model.where)
            choices.append(options)
    fixed = {a: v for a, v in enumerate(cells) if v is not None}
    for pick in itertools.product(*choices):
        if view.feasible({**fixed, **dict(pick)}):
            return True
    return False


# -- models from observed rows --------------------------------------------------
def _split_argnames(argnames: str | Sequence[str]) -> list[str]:
    if isinstance(argnames, str):
        names = [n.strip() for n in argnames.split(",")]
    else:
        names = [str(n).strip() for n in argnames]
    if not names or any(not n for n in names):
        raise InvalidArgument(f"argnames {argnames!r} has an empty name")
    return names


def model_from_rows(
    rows: Iterable[Any],
    argnames: str | Sequence[str] | None = None,
    *,
    strength: int = 2,
    constraints: Iterable[Any] = (),
    sub_models: Iterable[tuple[Sequence[str], int]] = (),
    where: str | None = None,
) -> Model:
    """A model whose axes are what ``rows`` use: each axis lists its distinct
    values in order of first appearance (``1`` and ``True`` stay distinct;
    unhashable values such as lists are stored frozen, lists as tuples).

    ``argnames`` (pytest style: ``"a,b,c"`` or a list) is needed for rows that
    are sequences; for mapping rows the names default to the keys in order of
    first appearance.  An entry with commas in a list (``["dtype", "n,k,m"]``)
    makes a grouped axis.  ``strength`` is lowered to the number of axes when
    larger.
    """
    rows = list(rows)
    groups: list[str] | None = None
    if argnames is not None:
        if isinstance(argnames, str):
            groups = _split_argnames(argnames)
        else:
            groups = [",".join(_split_argnames(g)) if "," in str(g) else str(g).strip() for g in argnames]
            _split_argnames(groups)
    flat = [n for g in groups for n in g.split(",")] if groups else None
    if flat is not None and len(set(flat)) != len(flat):
        from pairwise_param.errors import DuplicateAxis

        raise DuplicateAxis(f"argnames {argnames!r} repeats a name", where=where)
    seen_names: list[str] = list(flat) if flat else []
    values: dict[str, dict[Any, Any]] = {n: {} for n in seen_names}
    for pos, row in enumerate(rows):
        if isinstance(row, Mapping):
            items = list(row.items())
        else:
            if flat is None:
                raise InvalidArgument(
                    f"row {pos} is a {type(row).__name__}: pass argnames= for rows that are not mappings",
                    where=where,
                )
            seq = tuple(row.values) if _is_param_set(row) else row
            if len(flat) == 1 and not _is_param_set(row):
                seq = (row,)
            if not isinstance(seq, (tuple, list)) or len(seq) != len(flat):
                raise InvalidArgument(
                    f"row {pos} {row!r} does not have one value per argument ({', '.join(flat)})",
                    where=where,
                )
            items = list(zip(flat, seq))
        expanded: list[tuple[str, Any]] = []
        for name, value in items:
            if groups and name in groups and "," in name and isinstance(value, (tuple, list)):
                expanded.extend(zip(name.split(","), value))
            else:
                expanded.append((name, value))
        for name, value in expanded:
            name = str(name)
            if name not in values:
                if flat is not None:
                    raise InvalidArgument(
                        f"row {pos} names argument {name!r}, not in argnames ({', '.join(flat)})", where=where
                    )
                values[name] = {}
                seen_names.append(name)
            frozen = _freeze(value)
            try:
                key = _value_key(frozen)
                hash(key)
            except TypeError:
                from pairwise_param.errors import UnhashableValue

                raise UnhashableValue(
                    f"row {pos}: argument {name!r} value {value!r} is unhashable ({type(value).__name__})",
                    where=where,
                ) from None
            values[name].setdefault(key, frozen)
    if not seen_names:
        raise InvalidArgument("model_from_rows() needs at least one row (or argnames)", where=where)
    axes: list[tuple[str, list[Any]]] = []
    for g in groups or seen_names:
        parts = g.split(",")
        if len(parts) == 1:
            axes.append((g, list(values[g].values())))
            continue
        combos: dict[Any, Any] = {}
        for row in rows:
            if isinstance(row, Mapping):
                given = row.get(g, _MISSING)
                if isinstance(given, (tuple, list)) and len(given) == len(parts):
                    vals = tuple(_freeze(v) for v in given)
                else:
                    vals = tuple(_freeze(row.get(p, _MISSING)) for p in parts)
            else:
                seq = tuple(row.values) if _is_param_set(row) else tuple(row)
                assert flat is not None
                vals = tuple(_freeze(seq[flat.index(p)]) for p in parts)
            if any(v is _MISSING for v in vals):
                continue
            combos.setdefault(_value_key(vals), vals)
        axes.append((g, list(combos.values())))
    n = len(axes)
    return Model(
        axes,
        strength=min(strength, n) if isinstance(strength, int) and not isinstance(strength, bool) else strength,
        constraints=constraints,
        sub_models=sub_models,
        where=where,
    )


def audit_rows(
    rows: Iterable[Any],
    argnames: str | Sequence[str] | None = None,
    *,
    strength: int = 2,
    strengths: int | Iterable[int] | None = None,
    constraints: Iterable[Any] = (),
    where: str | None = None,
) -> CoverageReport:
    """Measure a hand-written list of rows against the model its own values
    make (:func:`model_from_rows`): "how much of what these rows mention do
    they cover pairwise?".  ``strengths`` defaults to ``strength`` (reported
    as not applicable when the rows have fewer axes)."""
    rows = list(rows)
    model = model_from_rows(rows, argnames, strength=strength, constraints=constraints, where=where)
    return measure(model, rows, strengths=strength if strengths is None else strengths)
