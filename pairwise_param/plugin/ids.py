"""Readable, unique, stable test ids for the rows of a pairwise table.

A row of ``dtype=torch.bfloat16, padded_a=True, bias_mode=2`` gets the id
``dtype=bfloat16-padded_a=True-bias_mode=2``: every axis shows its name and a
short text for its value.  The rules (documented in ``docs/pytest.md``):

* ``torch.dtype`` -> its name without ``torch.`` (``bfloat16``, ``float16``);
* bools, ints, floats, ``None`` -> ``repr`` (``True``, ``2``, ``1e-05``, ``None``);
* strings -> the string itself (``''`` for the empty string);
* enum members -> the member name; functions and classes -> ``__name__``;
* tuples -> ``(a,b)`` with each element labelled by these rules; frozensets ->
  ``{a,b}`` with the labels sorted (their repr order depends on the hash seed);
* anything else -> its ``repr`` when that is short and free of memory
  addresses, else ``<TypeName>#<position of the value in its axis>``.

A grouped axis ``"n,k,m"`` shows each bound name: ``n=1-k=64-m=128``.
When two values of one axis would get the same text (``1`` and ``"1"``), each
of them gets its position appended (``1#0``, ``1#1``), so ids are unique
without depending on anything but the axis values and their order, hence
stable across runs, processes and xdist workers.

Per-axis id functions (``@pairwise(..., ids={"dtype": fn})``) replace the
value text of that axis (the ``name=`` prefix stays); a single callable
``ids=fn`` is called as ``fn(argname, value)`` for every value and may return
``None`` to keep the default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pairwise_param.values import value_id

if TYPE_CHECKING:
    IdsOption = Mapping[str, Callable[[Any], Any]] | Callable[[str, Any], Any] | None

__all__ = ["axis_segments", "row_ids", "value_id", "with_value_ids"]



def _custom(ids: IdsOption, argname: str, value: Any) -> str | None:
    if ids is None:
        return None
    if callable(ids) and not isinstance(ids, Mapping):
        out = ids(argname, value)
    else:
        fn = ids.get(argname)
        if fn is None:
            return None
        out = fn(value)
    return None if out is None else str(out)


def _label(ids: IdsOption, argname: str, value: Any, position: int) -> str:
    custom = _custom(ids, argname, value)
    return custom if custom is not None else value_id(value, position)


def axis_segments(names: Sequence[str], values: Sequence[Any], ids: IdsOption = None) -> list[str]:
    """One id segment per value of an axis, unique within the axis.

    ``names`` are the argument names the axis binds (one for a plain axis,
    several for a grouped axis whose values are tuples).
    """
    segments: list[str] = []
    for pos, value in enumerate(values):
        if len(names) == 1:
            parts = [f"{names[0]}={_label(ids, names[0], value, pos)}"]
        else:
            parts = [f"{n}={_label(ids, n, v, pos)}" for n, v in zip(names, value)]
        segments.append("-".join(parts))
    # Appending the position can itself collide with another value's text (1, "1" and
    # "1#1" give x=1#0, x=1#1, x=1#1): repeat until unique.  Each pass gives the
    # colliding segments distinct suffixes, so this ends within len(values) passes.
    for _ in range(len(segments)):
        counts: dict[str, int] = {}
        for s in segments:
            counts[s] = counts.get(s, 0) + 1
        if all(c == 1 for c in counts.values()):
            break
        segments = [f"{s}#{pos}" if counts[s] > 1 else s for pos, s in enumerate(segments)]
    return segments


def row_ids(
    axes: Sequence[tuple[Sequence[str], Sequence[Any]]],
    index_rows: Sequence[Sequence[int]],
    ids: IdsOption = None,
) -> list[str]:
    """Ids of index rows; ``axes`` is ``[(bound names, values), ...]`` in axis order.

    Distinct rows always get distinct ids (segments are unique per axis).
    """
    per_axis = [axis_segments(names, values, ids) for names, values in axes]
    return ["-".join(per_axis[a][v] for a, v in enumerate(row)) for row in index_rows]


def with_value_ids(ids: IdsOption, model: Any, extra: Sequence[Mapping[int, tuple[Any, str | None]]]) -> IdsOption:
    """``ids`` extended by the ``id=`` of values given as ``pytest.param(value, id=...)``
    (``extra[a]``: value position -> (marks, id) for axis ``a`` of ``model``).  Values
    are matched by identity: the model hands back the very objects it was given."""
    by_arg: dict[str, list[tuple[Any, str]]] = {}
    for axis, per_value in zip(model.axes, extra):
        for pos, (_, text) in per_value.items():
            if text is not None and len(axis.names) == 1:
                by_arg.setdefault(axis.names[0], []).append((axis.values[pos], text))
    if not by_arg:
        return ids

    def combined(argname: str, value: Any) -> Any:
        for obj, text in by_arg.get(argname, ()):
            if obj is value:
                return text
        return _custom(ids, argname, value)

    return combined
