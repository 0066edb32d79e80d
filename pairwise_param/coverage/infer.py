"""Models inferred from observed rows (hand-written ``parametrize`` lists), and
the one-call audit of such a list: :func:`model_from_rows`, :func:`audit_rows`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pairwise_param.coverage.measure import measure
from pairwise_param.coverage.types import CoverageReport
from pairwise_param.coverage.view import MISSING, is_param_set
from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.values import freeze, value_key

__all__ = ["audit_rows", "model_from_rows"]


def _split_argnames(argnames: str | Sequence[str]) -> list[str]:
    if isinstance(argnames, str):
        names = [n.strip() for n in argnames.split(",")]
    else:
        names = [str(n).strip() for n in argnames]
    if not names or any(not n for n in names):
        raise InvalidArgument(f"argnames {argnames!r} has an empty name")
    return names


def _parse_argnames(argnames: str | Sequence[str] | None, where: str | None) -> tuple[list[str] | None, list[str] | None]:
    """(axis groups, flat argument names) of pytest-style ``argnames``, or (None, None)."""
    if argnames is None:
        return None, None
    if isinstance(argnames, str):
        groups = _split_argnames(argnames)
    else:
        groups = [",".join(_split_argnames(g)) if "," in str(g) else str(g).strip() for g in argnames]
        _split_argnames(groups)
    flat = [n for g in groups for n in g.split(",")]
    if len(set(flat)) != len(flat):
        from pairwise_param.errors import DuplicateAxis

        raise DuplicateAxis(f"argnames {argnames!r} repeats a name", where=where)
    return groups, flat


def _row_items(
    pos: int, row: Any, groups: list[str] | None, flat: list[str] | None, where: str | None
) -> list[tuple[str, Any]]:
    """(argument name, value) pairs of one row, grouped values split into their parts."""
    if isinstance(row, Mapping):
        items = list(row.items())
    else:
        if flat is None:
            raise InvalidArgument(
                f"row {pos} is a {type(row).__name__}: pass argnames= for rows that are not mappings",
                where=where,
            )
        seq = tuple(row.values) if is_param_set(row) else row
        if len(flat) == 1 and not is_param_set(row):
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
            expanded.append((str(name), value))
    return expanded


def _distinct_values(
    rows: Sequence[Any], groups: list[str] | None, flat: list[str] | None, where: str | None
) -> tuple[list[str], dict[str, dict[Any, Any]]]:
    """Argument names in order of first appearance, and each one's distinct values."""
    seen_names: list[str] = list(flat) if flat else []
    values: dict[str, dict[Any, Any]] = {n: {} for n in seen_names}
    for pos, row in enumerate(rows):
        for name, value in _row_items(pos, row, groups, flat, where):
            if name not in values:
                if flat is not None:
                    raise InvalidArgument(
                        f"row {pos} names argument {name!r}, not in argnames ({', '.join(flat)})", where=where
                    )
                values[name] = {}
                seen_names.append(name)
            frozen = freeze(value)
            try:
                key = value_key(frozen)
                hash(key)
            except TypeError:
                from pairwise_param.errors import UnhashableValue

                raise UnhashableValue(
                    f"row {pos}: argument {name!r} value {value!r} is unhashable ({type(value).__name__})",
                    where=where,
                ) from None
            values[name].setdefault(key, frozen)
    return seen_names, values


def _grouped_values(group: str, rows: Sequence[Any], flat: list[str] | None) -> list[Any]:
    """The distinct tuples a grouped axis takes in ``rows`` (rows missing a part skipped)."""
    parts = group.split(",")
    combos: dict[Any, Any] = {}
    for row in rows:
        if isinstance(row, Mapping):
            given = row.get(group, MISSING)
            if isinstance(given, (tuple, list)) and len(given) == len(parts):
                vals = tuple(freeze(v) for v in given)
            else:
                vals = tuple(freeze(row.get(p, MISSING)) for p in parts)
        else:
            seq = tuple(row.values) if is_param_set(row) else tuple(row)
            assert flat is not None
            vals = tuple(freeze(seq[flat.index(p)]) for p in parts)
        if any(v is MISSING for v in vals):
            continue
        combos.setdefault(value_key(vals), vals)
    return list(combos.values())


def model_from_rows(
    rows: Iterable[Any],
    argnames: str | Sequence[str] | None = None,
    *,
    strength: int | None = None,
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
    makes a grouped axis.  ``strength`` (default: the model's, ``min(2, number
    of axes)``) is lowered to the number of axes when larger.
    """
    rows = list(rows)
    groups, flat = _parse_argnames(argnames, where)
    seen_names, values = _distinct_values(rows, groups, flat, where)
    if not seen_names:
        raise InvalidArgument("model_from_rows() needs at least one row (or argnames)", where=where)
    axes: list[tuple[str, list[Any]]] = [
        (g, list(values[g].values()) if "," not in g else _grouped_values(g, rows, flat))
        for g in groups or seen_names
    ]
    n = len(axes)
    if isinstance(strength, int) and not isinstance(strength, bool):
        strength = min(strength, n)
    return Model(axes, strength=strength, constraints=constraints, sub_models=sub_models, where=where)


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
