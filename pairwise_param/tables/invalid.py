"""Invalid values, tested one at a time (PICT's and coffee4j's "negative values").

An axis value wrapped in :func:`invalid` (``k=[64, 128, invalid(60, reason="not a
multiple of 8")]``) is a value the code under test must *reject*.  Two invalid values
in one row would test nothing more (the first rejection masks the second), and an
invalid value in every other row would hide the valid combinations behind an error,
so a table with invalid values is built in two parts, this module being the one home
of the rule:

* the **valid part**: the covering table of the model without any invalid value, at
  the model's strength (every t-tuple of valid values, as if the invalid values had
  never been written), built by the engine exactly as it would be without them;
* the **negative part**: for each invalid value ``A=v``, the rows of the strength-1
  table of the model in which axis ``A`` holds only ``v`` and every other axis only its
  valid values: every pair ``(A=v, B=b)`` of ``v`` with a valid value ``b`` of another
  axis appears in a row, constraints respected (pairs they forbid are reported, like
  every other uncoverable tuple), and no row holds two invalid values.  In full mode
  it is the full product of that model: ``v`` with every feasible row of the valid
  values of the other axes.

Rows are index rows of the *full* model (every value, valid or not, in the order
written), so ids, decoding and coverage measurement all use the one model the user
wrote.  The engine is untouched: it builds the valid table and one small table per
invalid value.  This module is the model side (the values, the split into parts);
the rows of the parts are built and assembled by
:func:`pairwise_param.tables.build.build_with_invalid`.  Nothing here imports pytest.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pairwise_param.errors import (
    EmptyAxis,
    InvalidArgument,
    InvalidInclude,
    PairwiseWarning,
    UnsatisfiableConstraints,
)
from pairwise_param.model import Model, RowLike
from pairwise_param.values import value_label

if TYPE_CHECKING:
    from pairwise_param.engine import TupleRef

__all__ = [
    "Invalid",
    "InvalidCase",
    "Split",
    "has_invalid",
    "invalid",
    "split_model",
    "unwrap_invalid",
]


@dataclass(frozen=True)
class Invalid:
    """An axis value the code under test must reject (made by :func:`invalid`)."""

    value: Any
    reason: str | None = None

    def __repr__(self) -> str:
        extra = f", reason={self.reason!r}" if self.reason is not None else ""
        return f"invalid({self.value!r}{extra})"


def invalid(value: Any, *, reason: str | None = None) -> Invalid:
    """Mark ``value`` of an axis as invalid: it is tested one at a time, never together
    with another invalid value, paired with every valid value of the other axes; its
    rows carry the ``pairwise_invalid`` mark (and fixture) so the test expects an error.

    >>> invalid(60, reason="k not a multiple of 8")
    invalid(60, reason='k not a multiple of 8')
    """
    if isinstance(value, Invalid):
        raise InvalidArgument(f"invalid({value!r}) wraps a value that is already invalid; wrap it once")
    if reason is not None and not isinstance(reason, str):
        raise InvalidArgument(f"invalid(..., reason={reason!r}): reason must be a string (or None)")
    return Invalid(value, reason)


@dataclass(frozen=True)
class InvalidCase:
    """What the ``pairwise_invalid`` fixture gives a row holding an invalid value:
    the axis, the value (the object given to :func:`invalid`) and its reason."""

    axis: str
    value: Any
    reason: str | None = None


def has_invalid(axes: Mapping[str, Any] | Sequence[tuple[str, Any]]) -> bool:
    """Does any axis list a value wrapped in :func:`invalid`?"""
    pairs = axes.items() if isinstance(axes, Mapping) else axes
    for pair in pairs:
        try:
            _, values = pair
        except (TypeError, ValueError):
            return False  # the model reports the malformed pair
        if isinstance(values, (list, tuple)) and any(isinstance(v, Invalid) for v in values):
            return True
    return False


def unwrap_invalid(values: Any) -> tuple[Any, dict[int, str | None]]:
    """Split an axis's values into the bare values and {position: reason} of the
    invalid ones; anything but a list or tuple is returned as given (the model
    reports it with its own message)."""
    if not isinstance(values, (list, tuple)):
        return values, {}
    bare: list[Any] = []
    marked: dict[int, str | None] = {}
    for pos, v in enumerate(values):
        if isinstance(v, Invalid):
            marked[pos] = v.reason
            bare.append(v.value)
        else:
            bare.append(v)
    return (tuple(bare) if isinstance(values, tuple) else bare), marked


@dataclass(frozen=True)
class Split:
    """A model with invalid values, split into its two parts.

    ``full`` holds every value (the index space of every row); ``valid`` the valid
    values only (the covering table's model); ``cases`` one ``(axis, value index in
    full, reason)`` per invalid value, in axis then value order; ``parts`` the
    strength-1 model of each case; ``valid_to_full[a][i]`` the full index of valid
    value ``i`` of axis ``a``.
    """

    full: Model
    valid: Model
    cases: tuple[tuple[int, int, str | None], ...]
    parts: tuple[Model, ...]
    valid_to_full: tuple[tuple[int, ...], ...]

    def lift(self, rows: Iterable[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
        """Rows of the valid model -> rows of the full model."""
        m = self.valid_to_full
        return tuple(tuple(m[a][v] for a, v in enumerate(r)) for r in rows)

    def lift_refs(self, refs: Iterable[TupleRef]) -> tuple[TupleRef, ...]:
        """t-tuples of the valid model -> the same tuples in full indices."""
        m = self.valid_to_full
        return tuple((tuple(s), tuple(m[a][v] for a, v in zip(s, vals))) for s, vals in refs)

    def case(self, index: int) -> InvalidCase:
        """The :class:`InvalidCase` of ``cases[index]`` (axis name, the user's value, reason)."""
        a, v, reason = self.cases[index]
        axis = self.full.axes[a]
        return InvalidCase(axis.name, axis.values[v], reason)

    def describe(self, index: int) -> str:
        """``k=60`` for ``cases[index]``."""
        a, v, _ = self.cases[index]
        axis = self.full.axes[a]
        return f"{axis.name}={value_label(axis.values[v])}"


def split_model(
    axes: Mapping[str, Iterable[Any]] | Sequence[tuple[str, Iterable[Any]]],
    *,
    strength: int | None = None,
    constraints: Iterable[Callable[..., Any] | Mapping[str, Any] | str] | None = (),
    include: Iterable[RowLike] | None = (),
    sub_models: Iterable[tuple[Sequence[str], int]] | None = (),
    compile_axes: Iterable[str] | None = (),
    compile_key: Callable[..., Any] | None = None,
    where: str | None = None,
    invalid_positions: Mapping[str, Mapping[int, str | None]] | None = None,
) -> Split:
    """Validate a model whose axes hold :func:`invalid` values (or whose invalid
    positions are given by ``invalid_positions``, axis name -> {position: reason},
    as ``@pairwise`` passes them) and split it into its two parts.

    The full model checks everything the user wrote (values, constraints, include
    rows against constraints); an include row holding one invalid value goes to that
    value's part, one holding two is an error; a valid part or an invalid value that
    no row can hold is an error naming the axis and the value.
    """
    pairs = list(axes.items()) if isinstance(axes, Mapping) else list(axes)
    bare_pairs: list[tuple[str, Any]] = []
    marks: dict[str, dict[int, str | None]] = {}
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            bare_pairs.append(pair)  # the model reports it
            continue
        name, values = pair
        bare, marked = unwrap_invalid(values)
        given = dict((invalid_positions or {}).get(name, {}))
        given.update(marked)
        bare_pairs.append((name, bare))
        if given:
            marks[name] = given
    include = list(include or ())
    full = Model(bare_pairs, strength=strength, constraints=constraints, include=include,
                 sub_models=sub_models, compile_axes=compile_axes, compile_key=compile_key, where=where)
    cases: list[tuple[int, int, str | None]] = []
    valid_to_full: list[tuple[int, ...]] = []
    valid_pairs: list[tuple[str, tuple[Any, ...]]] = []
    bad: set[tuple[int, int]] = set()
    for a, axis in enumerate(full.axes):
        # the model may have re-spelt the name ("n, k" -> "n,k"): look it up both ways
        marked_here = marks.get(axis.name) or marks.get(str(bare_pairs[a][0])) or {}
        keep = tuple(i for i in range(len(axis)) if i not in marked_here)
        if not keep:
            raise EmptyAxis(
                f"axis {axis.name!r} has only invalid values ({', '.join(value_label(v) for v in axis.values)}); "
                "give at least one valid value (the valid rows and every invalid value of another "
                "axis need one)",
                where=where,
            )
        cases.extend((a, i, marked_here[i]) for i in sorted(marked_here))
        bad.update((a, i) for i in marked_here)
        valid_to_full.append(keep)
        valid_pairs.append((axis.name, tuple(axis.values[i] for i in keep)))
    # include rows: by the invalid values they hold (the full model has validated them)
    valid_include: list[dict[str, Any]] = []
    case_include: dict[int, list[dict[str, Any]]] = {}
    case_of = {(a, v): k for k, (a, v, _) in enumerate(cases)}
    for cells in full.include:
        row = {full.axes[a].name: full.axes[a].values[v] for a, v in enumerate(cells) if v is not None}
        held = [(a, v) for a, v in enumerate(cells) if v is not None and (a, v) in bad]
        if len(held) > 1:
            shown = ", ".join(f"{full.axes[a].name}={value_label(full.axes[a].values[v])}" for a, v in held)
            raise InvalidInclude(
                f"include row {full.describe_row(cells)} holds {len(held)} invalid values ({shown}); "
                "invalid values are tested one at a time, so a row may hold one at most",
                where=where,
            )
        if held:
            case_include.setdefault(case_of[held[0]], []).append(row)
        else:
            valid_include.append(row)
    with warnings.catch_warnings():
        # the full model has warned already; a comparison with an invalid value "never
        # holds" among the valid values only by design
        warnings.simplefilter("ignore", PairwiseWarning)
        valid = Model(valid_pairs, strength=full.strength, constraints=constraints, include=valid_include,
                      sub_models=sub_models, compile_axes=[full.axes[a].name for a in full.compile_axes],
                      compile_key=compile_key, where=where)
        parts = _parts(full, cases, valid_pairs, constraints, case_include, where)
    return Split(full, valid, tuple(cases), tuple(parts), tuple(valid_to_full))


def _parts(
    full: Model,
    cases: Sequence[tuple[int, int, str | None]],
    valid_pairs: Sequence[tuple[str, tuple[Any, ...]]],
    constraints: Any,
    case_include: Mapping[int, Sequence[RowLike]],
    where: str | None,
) -> list[Model]:
    """The strength-1 model of each invalid value: it alone on its axis, the valid
    values on every other axis."""
    parts = []
    for k, (a, v, _) in enumerate(cases):
        part_axes = [
            (axis.name, (axis.values[v],) if b == a else vals)
            for b, (axis, (_, vals)) in enumerate(zip(full.axes, valid_pairs))
        ]
        try:
            part = Model(part_axes, strength=1, constraints=constraints, include=case_include.get(k, ()),
                         where=where)
        except UnsatisfiableConstraints:
            label = f"{full.axes[a].name}={value_label(full.axes[a].values[v])}"
            raise UnsatisfiableConstraints(
                f"invalid value {label}: no row that holds it (with valid values of the other axes) "
                "satisfies the constraints, so it would never be tested; relax the constraints "
                "or drop the value",
                where=where,
            ) from None
        parts.append(part)
    return parts
