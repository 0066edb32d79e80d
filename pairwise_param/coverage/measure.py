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
at a time), not by :class:`pairwise_param.feasibility.Feasibility`.

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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pairwise_param.coverage.types import Combination, CoverageReport, LevelCoverage, OutOfModel, Violation
from pairwise_param.coverage.view import View
from pairwise_param.errors import InvalidArgument, RowOutsideModel
from pairwise_param.model import Model
from pairwise_param.values import loose_eq, value_label

__all__ = ["extendable", "measure"]


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

    def __init__(self, view: View, index_rows: Sequence[Sequence[int | None]], counted: Sequence[int]) -> None:
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
    view = View(model)
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
    view = View(model)
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
                (a, i) for i, v in enumerate(axis.values) if all(loose_eq(v[j], x) for j, x in given.items())
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

