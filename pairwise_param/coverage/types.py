"""The coverage module's result types: combinations, violations, cells outside
the model, per-strength coverage and the whole report (with its JSON form)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.values import json_value, value_label

__all__ = ["Combination", "CoverageReport", "LevelCoverage", "OutOfModel", "Violation", "fails_under"]


def fails_under(percent: float | None, threshold: float) -> bool:
    """Whether a coverage percentage is below a ``--fail-under`` threshold (the
    one comparison every command uses; a hair of float slack so 100.0 passes 100)."""
    return (percent or 0.0) + 1e-9 < threshold


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
                "axes": {a.name: [json_value(v) for v in a.values] for a in m.axes},
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
                    "arguments": {k: json_value(x) for k, x in v.arguments},
                    "error": v.error,
                }
                for v in self.violations[:limit]
            ],
            "out_of_model": [
                {"row": o.row, "name": o.name, "value": json_value(o.value), "kind": o.kind}
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


def _combo_json(c: Combination) -> dict[str, Any]:
    return {a: json_value(v) for a, v in zip(c.axes, c.values)}

