"""What one table covers HERE: collected, runnable on this platform, executed, and the gate.

One model that the static report (:mod:`pairwise_param.report`), the plugin's summary
and the run file (:mod:`pairwise_param.runs`) all state their numbers in, and that the
``--fail-under`` gate of ``report`` and ``report --run`` reads (pure: no pytest, no engine).

A table's t-tuples at one strength fall into:

* *runnable* tuples: some row the constraints allow can hold them on this platform;
* *not runnable here*: tuples that only rows holding a value skipped at collection
  (``pytest.param(v, marks=skipif(True, reason=...))``, see
  :mod:`pairwise_param.plugin.absent`) could hold; each carries its reason
  (``dtype=bf16: bf16 needs sm80+``);
* forbidden tuples (constraints): never counted.

``covered`` is what the collected rows (static) or the executed rows (a run) hold
among the runnable ones.  By default the gate passes a table whose runnable tuples
are all covered and SAYS what could not run here; ``strict`` (``--strict-platform``)
counts the tuples not runnable here as missing.

An item that crashed its pytest-xdist worker fails the gate (:attr:`Reach.crashed`).

An *empty* table (an axis without values: pytest collects one skipped item) is a hole:
:attr:`Reach.empty_axes` names the axis and the gate fails it at any threshold.

The gate's strength: each table is held to the strength it was built for
(:func:`gated`), unless the user picks strengths (``--strength``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.coverage.types import fails_under

__all__ = ["Reach", "absent_values", "gated", "skip_reason"]


@dataclass(frozen=True)
class Reach:
    """One table at one strength, here (see the module docstring)."""

    strength: int
    #: tuples a row can hold on this platform (constraints and values skipped at collection applied)
    runnable: int
    #: of the runnable tuples, those the rows hold (collected rows, or executed rows of a run)
    covered: int
    #: tuples only values skipped at collection hold: not runnable here
    unrunnable: int = 0
    #: why they cannot run (``dtype=bf16: bf16 needs sm80+``), one entry per value
    reasons: tuple[str, ...] = ()
    #: the table's empty axes (a hole: no row at all)
    empty_axes: tuple[str, ...] = ()
    #: items that crashed their worker (a run): the gate fails, whatever the coverage
    crashed: int = 0

    def total(self, strict: bool = False) -> int:
        """The tuples the percentage is taken of."""
        return self.runnable + (self.unrunnable if strict else 0)

    def percent(self, strict: bool = False) -> float:
        """Covered share (an empty table covers nothing: 0)."""
        if self.empty_axes:
            return 0.0
        total = self.total(strict)
        return 100.0 if total == 0 else 100.0 * self.covered / total

    def below(self, fail_under: float, strict: bool = False) -> bool:
        """Does the gate fail this table at ``fail_under`` percent?  (An empty table
        always fails: nothing of it can run.)"""
        return bool(self.empty_axes) or self.crashed > 0 or fails_under(self.percent(strict), fail_under)

    def missing(self, strict: bool = False) -> int:
        return self.total(strict) - self.covered

    def why(self, strict: bool = False) -> str:
        """The reason of a number below 100% (empty when there is none)."""
        if self.empty_axes:
            names = ", ".join(repr(a) for a in self.empty_axes)
            return f"axis {names} has no values: the table is empty (pytest runs none of it)"
        parts = []
        if self.crashed:
            parts.append(f"{self.crashed} item{'s' if self.crashed != 1 else ''} crashed the worker")
        if self.missing(strict=False):
            what = "runnable tuples" if self.unrunnable else "tuples"
            parts.append(f"{self.missing(strict=False)} of {self.runnable} {what} missing")
        if self.unrunnable:
            head = f"{self.unrunnable} tuples not runnable here"
            head += " (counted missing: --strict-platform)" if strict else ""
            parts.append(head + (f": skipped at collection ({'; '.join(self.reasons)})" if self.reasons else ""))
        return "; ".join(parts)


def gated(measured: Sequence[int], built: int, chosen: Sequence[int] | None) -> tuple[int, ...]:
    """The strengths the gate holds a table to: ``chosen`` (``--strength``) where the user
    picked them, else the strength the table was built for (``built``), each only where
    it was measured."""
    want = tuple(chosen) if chosen is not None else (built,)
    return tuple(t for t in want if t in measured)


def skip_reason(marks: Sequence[Any]) -> str | None:
    """The reason of the first mark that skips unconditionally at collection
    (``skip``, or ``skipif`` with a true non-string condition); None if none does.
    Duck-typed on pytest's ``Mark`` / ``MarkDecorator`` (no pytest import)."""
    for m in marks:
        mark = getattr(m, "mark", m)  # MarkDecorator or Mark
        name = getattr(mark, "name", None)
        args = tuple(getattr(mark, "args", ()))
        kwargs = dict(getattr(mark, "kwargs", {}))
        if name == "skip":
            return str(kwargs.get("reason", args[0] if args else "unconditional skip"))
        if name != "skipif":
            continue
        conditions = (kwargs["condition"],) if "condition" in kwargs else args
        reason = kwargs.get("reason", "")
        if not conditions:
            return str(reason or "unconditional skip")
        if any(isinstance(c, str) for c in conditions):
            continue  # evaluated by pytest per item: keep today's behaviour
        try:
            hit = any(bool(c) for c in conditions)
        except Exception:  # noqa: BLE001, S112 - pytest reports an odd condition itself, per item
            continue
        if hit:
            return str(reason or "condition: True")
    return None


def absent_values(
    axes: Mapping[str, Any], value_params: Mapping[str, Mapping[int, tuple[Sequence[Any], Any]]]
) -> dict[tuple[int, int], str]:
    """(axis index, value index) -> reason, for each value of a ``@pairwise`` spec
    (``axes``: name -> values; ``value_params``: name -> {position: (marks, id)})
    whose skip mark is already true at collection."""
    out: dict[tuple[int, int], str] = {}
    for a, name in enumerate(axes):
        for pos, (marks, _id) in sorted(value_params.get(name, {}).items()):
            reason = skip_reason(marks)
            if reason is not None:
                out[(a, pos)] = reason
    return out
